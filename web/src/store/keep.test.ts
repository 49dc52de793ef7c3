import { describe, expect, it } from 'vitest';
import { readFileSync } from 'node:fs';
import { allControls, policyGroups } from './policy';
import { scenarioSchema } from '../engine/validate';
import { DRAFTS_KEY, KEEP_KEY, KEEP_TEXT_MAX, keptSession, loadDrafts, loadSession, sameKept, saveDrafts, saveSession, startupPlan, tooLongToKeep, unappliedKeptEdit, type KeepStorage, type KeptFields } from './keep';
import { NO_DRAFTS } from './app';
import { decodeShareHash, type ShareContext } from './share';

const text = (name: string) => readFileSync(`../scenarios/${name}.json`, 'utf8');

const context: ShareContext = {
  scenarios: [
    { id: 'teaching-small', text: text('teaching-small') },
    { id: 'hackbench-7950x', text: text('hackbench-7950x') },
  ],
  defaultScenarioId: 'teaching-small',
  controls: allControls(policyGroups(scenarioSchema)),
  speeds: [0.0001, 0.001, 0.01, 0.1, 1],
  defaultSpeedIndex: 2,
};

function memoryStorage(initial: Record<string, string> = {}): KeepStorage & { readonly items: Map<string, string> } {
  const items = new Map(Object.entries(initial));
  return {
    items,
    getItem: (key) => items.get(key) ?? null,
    setItem: (key, value) => void items.set(key, value),
  };
}

const hackbench: KeptFields = {
  scenarioId: 'hackbench-7950x',
  fileText: text('hackbench-7950x'),
  scenarioText: text('hackbench-7950x'),
  policyOverrides: { 'policy.wake_affine.enabled': false },
  speedIndex: 4,
};

describe('keeping compare mode', () => {
  it('keeps run B\'s settings with the session, and drops a setting this build does not have', () => {
    const storage = memoryStorage();
    const kept = keptSession(hackbench, context, { 'policy.shared_runq.mode': 'all' });
    expect(kept?.compare).toEqual({ 'policy.shared_runq.mode': 'all' });
    if (kept) saveSession(storage, kept);
    expect(loadSession(storage, context)?.state.compare).toEqual({ 'policy.shared_runq.mode': 'all' });
    const old = memoryStorage({ [KEEP_KEY]: JSON.stringify({ ...kept, compare: { 'policy.gone': true, 'policy.sis_scan.enabled': true } }) });
    const restored = loadSession(old, context);
    expect(restored?.state.compare).toEqual({ 'policy.sis_scan.enabled': true });
    expect(restored?.problems[0]?.path).toBe('compare policy.gone');
    expect(keptSession(hackbench, context)?.compare).toBeUndefined();
  });
});

describe('keeping the session', () => {
  it('keeps an explicit struct layout (an object) with the other overrides', () => {
    const storage = memoryStorage();
    const order = { sched_entity: ['vruntime', 'load'] };
    const kept = keptSession({ ...hackbench, policyOverrides: { 'policy.struct_layout': order } }, context);
    if (kept) saveSession(storage, kept);
    const restored = loadSession(storage, context);
    expect(restored?.problems).toEqual([]);
    expect(restored?.state.overrides).toEqual({ 'policy.struct_layout': order });
  });

  it('saves and restores the scenario, overrides, speed and editor text', () => {
    const storage = memoryStorage();
    const kept = keptSession(hackbench, context);
    expect(kept).toBeDefined();
    if (kept) saveSession(storage, kept);
    const restored = loadSession(storage, context);
    expect(restored?.problems).toEqual([]);
    expect(restored?.state).toEqual({
      scenario: { kind: 'bundled', id: 'hackbench-7950x' },
      overrides: { 'policy.wake_affine.enabled': false },
      seed: undefined,
      speedIndex: 4,
      playhead: undefined,
    });
    expect(restored?.editorText).toBe(text('hackbench-7950x'));
  });

  it('keeps editor text that is not even JSON, beside the run that last loaded', () => {
    const storage = memoryStorage();
    const typing: KeptFields = { ...hackbench, scenarioId: 'custom', scenarioText: '{ "title": "half typed", oops' };
    const kept = keptSession(typing, context);
    if (kept) saveSession(storage, kept);
    const restored = loadSession(storage, context);
    expect(restored?.editorText).toBe('{ "title": "half typed", oops');
    // The run itself is the hackbench file the user had loaded.
    expect(restored?.state.scenario).toEqual({ kind: 'bundled', id: 'hackbench-7950x' });
  });

  it('keeps an applied edited scenario as its text', () => {
    const storage = memoryStorage();
    const edited = text('teaching-small').replace('"seed": 42', '"seed": 3');
    const kept = keptSession({ ...hackbench, scenarioId: 'custom', fileText: edited, scenarioText: edited, policyOverrides: {} }, context);
    if (kept) saveSession(storage, kept);
    expect(loadSession(storage, context)?.state.scenario).toEqual({ kind: 'text', text: edited });
  });

  it('keeps nothing before a scenario has loaded', () => {
    expect(keptSession({ ...hackbench, fileText: '' }, context)).toBeUndefined();
  });

  it('restores nothing from an empty, unreadable or foreign entry', () => {
    expect(loadSession(memoryStorage(), context)).toBeUndefined();
    expect(loadSession(memoryStorage({ [KEEP_KEY]: '{ broken' }), context)).toBeUndefined();
    expect(loadSession(memoryStorage({ [KEEP_KEY]: '[1, 2]' }), context)).toBeUndefined();
    const throwing: KeepStorage = {
      getItem: () => {
        throw new Error('denied');
      },
      setItem: () => {
        throw new Error('quota');
      },
    };
    expect(loadSession(throwing, context)).toBeUndefined();
    const kept = keptSession(hackbench, context);
    expect(() => kept && saveSession(throwing, kept)).not.toThrow();
  });

  it('falls back from a scenario no longer bundled and a setting the schema dropped, keeping the editor text', () => {
    const storage = memoryStorage({
      [KEEP_KEY]: JSON.stringify({ format: 1, scenario: { kind: 'bundled', id: 'retired' }, overrides: {}, speed: 1, editorText: 'my text' }),
    });
    const restored = loadSession(storage, context);
    expect(restored?.state.scenario).toEqual({ kind: 'bundled', id: 'teaching-small' });
    expect(restored?.state.speedIndex).toBe(4);
    expect(restored?.editorText).toBe('my text');
    expect(restored?.problems[0]?.path).toBe('scenario');

    storage.setItem(KEEP_KEY, JSON.stringify({ format: 1, scenario: { kind: 'bundled', id: 'teaching-small' }, overrides: { 'policy.gone.enabled': true, 'policy.sis_scan.enabled': true }, speed: 0.01, editorText: '' }));
    const partly = loadSession(storage, context);
    expect(partly?.state.overrides).toEqual({ 'policy.sis_scan.enabled': true });
    expect(partly?.problems.map((problem) => problem.path)).toEqual(['policy policy.gone.enabled']);
  });

  it('lets a link with state win over the kept session, and the kept session win over the default', async () => {
    const storage = memoryStorage();
    const kept = keptSession(hackbench, context);
    if (kept) saveSession(storage, kept);
    const restored = loadSession(storage, context);
    const link = await decodeShareHash('#v=1&scenario=teaching-small&t=1000', context);
    const fromLink = startupPlan(link, restored, context);
    expect(fromLink.from).toBe('link');
    expect(fromLink.state.scenario).toEqual({ kind: 'bundled', id: 'teaching-small' });
    expect(fromLink.editorText).toBeUndefined();

    const noLink = await decodeShareHash('', context);
    const fromKept = startupPlan(noLink, restored, context);
    expect(fromKept.from).toBe('kept');
    expect(fromKept.state.scenario).toEqual({ kind: 'bundled', id: 'hackbench-7950x' });
    expect(fromKept.editorText).toBe(text('hackbench-7950x'));

    const fresh = startupPlan(undefined, undefined, context);
    expect(fresh.from).toBe('default');
    expect(fresh.state.scenario).toEqual({ kind: 'bundled', id: 'teaching-small' });
  });

  it('names the edit a link opened in a new tab would replace, and only an unapplied one', () => {
    const restore = (fields: KeptFields) => {
      const storage = memoryStorage();
      const kept = keptSession(fields, context);
      if (kept) saveSession(storage, kept);
      return loadSession(storage, context);
    };
    // The file as it is, and the file with the session's overrides applied, are no edits.
    expect(unappliedKeptEdit(restore({ ...hackbench, policyOverrides: {} }), context)).toBeUndefined();
    const applied = JSON.stringify({ ...JSON.parse(text('hackbench-7950x')), policy: { wake_affine: { enabled: false } } }, null, 2);
    expect(unappliedKeptEdit(restore({ ...hackbench, scenarioText: applied }), context)).toBeUndefined();
    expect(unappliedKeptEdit(restore({ ...hackbench, scenarioText: '  ' }), context)).toBeUndefined();
    expect(unappliedKeptEdit(undefined, context)).toBeUndefined();
    // A typed edit, even one that does not parse, is named by its scenario.
    expect(unappliedKeptEdit(restore({ ...hackbench, scenarioText: '{ "title": "mine' }), context)).toEqual({ from: 'hackbench-7950x', text: '{ "title": "mine' });
    const custom: KeptFields = { ...hackbench, scenarioId: 'custom', fileText: '{"title": "x"}', scenarioText: '{"title": "y"}', policyOverrides: {} };
    expect(unappliedKeptEdit(restore(custom), context)).toEqual({ from: 'the edited scenario', text: '{"title": "y"}' });
  });

  it('writes only when a kept field changed', () => {
    expect(sameKept(undefined, hackbench)).toBe(false);
    expect(sameKept(hackbench, { ...hackbench })).toBe(true);
    expect(sameKept(hackbench, { ...hackbench, scenarioText: 'typed' })).toBe(false);
    expect(sameKept(hackbench, { ...hackbench, speedIndex: 0 })).toBe(false);
  });
});

describe('keeping the panels\' drafts', () => {
  const form = { vary: 'kernel=4.6,6.5', seeds: '1..3' };
  const aside = { from: 'hackbench-7950x', text: '{ "title": "half' };

  it('gives back a pasted log, the sweep form and a set-aside edit exactly as typed', () => {
    const storage = memoryStorage();
    const log = '  <idle>-0 [003] d..2. 1.000000: sched_switch: prev_comm=swapper/3 \u00e9\n';
    saveDrafts(storage, { drafts: { replayText: log, sweep: form }, setAsideEdit: aside });
    expect(loadDrafts(storage)).toEqual({ drafts: { replayText: log, sweep: form }, setAsideEdit: aside });
  });

  it('keeps nothing of a pasted log too long for the storage, and the rest all the same', () => {
    const storage = memoryStorage();
    const long = 'x'.repeat(KEEP_TEXT_MAX + 1);
    expect(tooLongToKeep(long)).toBe(true);
    expect(tooLongToKeep(long.slice(1))).toBe(false);
    saveDrafts(storage, { drafts: { replayText: long, sweep: form }, setAsideEdit: undefined });
    expect(loadDrafts(storage)).toEqual({ drafts: { replayText: '', sweep: form }, setAsideEdit: undefined });
  });

  it('reads missing, unreadable or misshapen drafts as nothing typed, and survives a refusing storage', () => {
    const nothing = { drafts: NO_DRAFTS, setAsideEdit: undefined };
    expect(loadDrafts(memoryStorage())).toEqual(nothing);
    expect(loadDrafts(memoryStorage({ [DRAFTS_KEY]: '{ not json' }))).toEqual(nothing);
    expect(loadDrafts(memoryStorage({ [DRAFTS_KEY]: JSON.stringify({ replayText: 7, sweep: { vary: 'kernel=6.5' }, setAside: 'x' }) }))).toEqual(nothing);
    const refusing: KeepStorage = {
      getItem: () => {
        throw new Error('denied');
      },
      setItem: () => {
        throw new Error('quota');
      },
    };
    expect(() => saveDrafts(refusing, { drafts: { replayText: 'a', sweep: undefined }, setAsideEdit: undefined })).not.toThrow();
    expect(loadDrafts(refusing)).toEqual(nothing);
  });

  it('keeps the drafts apart from the session, so a refused drafts write costs the session nothing', () => {
    const items = new Map<string, string>();
    const storage: KeepStorage = {
      getItem: (key) => items.get(key) ?? null,
      setItem: (key, value) => {
        if (key === DRAFTS_KEY) throw new Error('quota');
        items.set(key, value);
      },
    };
    const kept = keptSession(hackbench, context);
    if (kept) saveSession(storage, kept);
    saveDrafts(storage, { drafts: { replayText: 'log', sweep: form }, setAsideEdit: undefined });
    expect(loadSession(storage, context)?.state.scenario).toEqual({ kind: 'bundled', id: 'hackbench-7950x' });
  });
});
