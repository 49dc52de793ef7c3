import { describe, expect, it } from 'vitest';
import { readFileSync } from 'node:fs';
import { allControls, policyGroups } from './policy';
import { scenarioSchema } from '../engine/validate';
import {
  compressText,
  decodeShareHash,
  decompressText,
  encodeShareHash,
  fromBase64Url,
  loadTarget,
  seedOf,
  sessionOf,
  sourceOf,
  toBase64Url,
  withSeed,
  type SessionState,
  type ShareContext,
} from './share';
import { simTimeNs } from '../base/types';

const text = (name: string) => readFileSync(`../scenarios/${name}.json`, 'utf8');

const context: ShareContext = {
  scenarios: [
    { id: 'teaching-small', text: text('teaching-small') },
    { id: 'shared-runq-schbench-pipe-skylake', text: text('shared-runq-schbench-pipe-skylake') },
  ],
  defaultScenarioId: 'teaching-small',
  controls: allControls(policyGroups(scenarioSchema)),
  speeds: [0.0001, 0.001, 0.01, 0.1, 1],
  defaultSpeedIndex: 2,
};

const shared: SessionState = {
  scenario: { kind: 'bundled', id: 'shared-runq-schbench-pipe-skylake' },
  overrides: { 'policy.shared_runq.mode': 'off', 'policy.wake_affine.enabled': false, 'policy.shared_runq.shard_size': 4 },
  seed: 0,
  speedIndex: 3,
  playhead: { timeNs: simTimeNs(12_345_678), events: 4321 },
};

describe('base64url and compression', () => {
  it('round-trips bytes, including the ones base64 writes as + and /', () => {
    const bytes = Uint8Array.from([0, 251, 255, 62, 63, 190, 1, 2]);
    const encoded = toBase64Url(bytes);
    expect(encoded).toMatch(/^[A-Za-z0-9_-]+$/);
    expect(Array.from(fromBase64Url(encoded) ?? [])).toEqual(Array.from(bytes));
    expect(fromBase64Url('not base64!')).toBeUndefined();
  });

  it('compresses a scenario to less than its text and back, exactly', async () => {
    const original = text('shared-runq-schbench-pipe-skylake') + '\n// ünïcode ✓';
    const encoded = await compressText(original);
    expect(encoded.length).toBeLessThan(original.length);
    expect(encoded.length).toBeLessThan(0.8 * toBase64Url(new TextEncoder().encode(original)).length);
    expect(await decompressText(encoded)).toEqual({ ok: true, text: original });
  });

  it('says why text does not decompress', async () => {
    expect(await decompressText('%%%')).toMatchObject({ ok: false, message: expect.stringContaining('not base64url') });
    expect(await decompressText(toBase64Url(Uint8Array.from([255, 255, 255, 255, 0, 1])))).toMatchObject({ ok: false, message: expect.stringContaining('does not decompress') });
  });
});

describe('share links', () => {
  it('round-trips a bundled scenario with overrides, seed, speed and playhead', async () => {
    const hash = await encodeShareHash(shared, context.speeds);
    expect(hash).toMatch(/^#v=1&scenario=shared-runq-schbench-pipe-skylake&seed=0&speed=0\.1&t=12345678&e=4321&set=/);
    const decoded = await decodeShareHash(hash, context);
    expect(decoded.problems).toEqual([]);
    expect(decoded.hasState).toBe(true);
    expect(decoded.state).toEqual(shared);
  });

  it('round-trips an explicit struct layout as the JSON --set takes, and says what is wrong with a bad one', async () => {
    const order = { cfs_rq: ['tg', 'load', 'curr'], sched_entity: ['vruntime'] };
    const session: SessionState = { ...shared, overrides: { 'policy.struct_layout': order, 'policy.wake_affine.enabled': false } };
    const hash = await encodeShareHash(session, context.speeds);
    expect(new URLSearchParams(hash.slice(1)).getAll('set')).toContain(`policy.struct_layout=${JSON.stringify(order)}`);
    const decoded = await decodeShareHash(hash, context);
    expect(decoded.problems).toEqual([]);
    expect(decoded.state.overrides).toEqual(session.overrides);
    const bad = await decodeShareHash('#scenario=teaching-small&set=policy.struct_layout=%5B1%5D', context);
    expect(bad.problems).toEqual([{ path: 'set policy.struct_layout', message: 'must be one of "original", "reordered" or a JSON object, got `[1]`; ignored' }]);
  });

  it('round-trips an edited scenario as compressed text', async () => {
    const edited = text('teaching-small').replace('"seed": 42', '"seed": 7');
    const state: SessionState = { scenario: { kind: 'text', text: edited }, overrides: {}, seed: 7, speedIndex: 0, playhead: undefined };
    const hash = await encodeShareHash(state, context.speeds);
    expect(hash).toContain('text=');
    expect(hash).not.toContain('scenario=');
    const decoded = await decodeShareHash(hash, context);
    expect(decoded.problems).toEqual([]);
    expect(decoded.state).toEqual(state);
    expect(loadTarget(decoded.state, context)).toEqual({ id: 'custom', text: edited, part: 'text' });
  });

  it('treats an address without share state as no link', async () => {
    expect((await decodeShareHash('', context)).hasState).toBe(false);
    expect((await decodeShareHash('#', context)).hasState).toBe(false);
  });

  it('falls back to the default scenario for an unknown scenario, dropping what belonged to it', async () => {
    const decoded = await decodeShareHash('#v=1&scenario=gone-scenario&speed=1&t=500&set=policy.shared_runq.mode=off', context);
    expect(decoded.problems).toEqual([{ path: 'scenario', message: 'there is no scenario `gone-scenario` in this version of schedlab; opened teaching-small instead, with its own seed and settings from time 0 (the link\'s were for the scenario it named); only the speed was kept' }]);
    expect(decoded.state.scenario).toEqual({ kind: 'bundled', id: 'teaching-small' });
    expect(decoded.state.overrides).toEqual({});
    expect(decoded.state.playhead).toBeUndefined();
    // The speed is not the scenario's: it still applies.
    expect(decoded.state.speedIndex).toBe(4);
  });

  it('says that the events count went with a time it could not read', async () => {
    const decoded = await decodeShareHash('#v=1&scenario=teaching-small&t=12x&e=5', context);
    expect(decoded.problems).toEqual([{ path: 't', message: 'expected a time in whole nanoseconds, got `12x`; started at 0 (`e`, the events up to that time, was not used either)' }]);
  });

  it('names a part it does not read, a part given twice, and an `e` without a `t`', async () => {
    const typo = await decodeShareHash('#v=1&scenario=teaching-small&sed=7&sped=1&zz=1', context);
    expect(typo.problems).toEqual([
      { path: 'sed', message: 'is not a part of a schedlab link; ignored (did you mean `seed`?)' },
      { path: 'sped', message: 'is not a part of a schedlab link; ignored (did you mean `speed`?)' },
      { path: 'zz', message: 'is not a part of a schedlab link; ignored' },
    ]);
    const setTwice = await decodeShareHash('#v=1&scenario=teaching-small&set=kernel=5.2&set=kernel=4.6', context);
    expect(setTwice.problems).toEqual([{ path: 'set kernel', message: 'is set more than once; used the first, `5.2`, not `4.6`' }]);
    expect(setTwice.state.overrides).toEqual({ kernel: '5.2' });
    const twice = await decodeShareHash('#v=1&scenario=teaching-small&seed=1&seed=2', context);
    expect(twice.problems).toEqual([{ path: 'seed', message: 'is given more than once; used the first, `1`, not `2`' }]);
    expect(twice.state.seed).toBe(1);
    const events = await decodeShareHash('#v=1&scenario=teaching-small&e=100', context);
    expect(events.problems).toEqual([{ path: 'e', message: 'counts the events up to the time `t`, and the link has no `t`; ignored' }]);
    const both = await decodeShareHash(`#v=1&scenario=hackbench-7950x&text=${await compressText(text('teaching-small'))}`, context);
    expect(both.problems).toEqual([{ path: 'scenario', message: 'the link has both `text` and `scenario`; opened the text, which holds the scenario itself' }]);
  });

  it('reads `t` as whole nanoseconds, as it writes it', async () => {
    for (const t of ['1.5e8', '0x10', '1e30', '12.5']) {
      const decoded = await decodeShareHash(`#v=1&scenario=teaching-small&t=${t}`, context);
      expect(decoded.problems).toEqual([{ path: 't', message: `expected a time in whole nanoseconds, got \`${t}\`; started at 0` }]);
      expect(decoded.state.playhead).toBeUndefined();
    }
    expect((await decodeShareHash('#v=1&scenario=teaching-small&t=150000000', context)).state.playhead?.timeNs).toBe(150000000);
  });

  it('falls back to the default scenario for corrupt text', async () => {
    const good = await compressText(text('teaching-small'));
    const cut = `#v=1&text=${good.slice(0, Math.floor(good.length / 2))}x&t=10`;
    const decoded = await decodeShareHash(cut, context);
    expect(decoded.state.scenario).toEqual({ kind: 'bundled', id: 'teaching-small' });
    expect(decoded.problems).toHaveLength(1);
    expect(decoded.problems[0]?.path).toBe('text');
    expect(decoded.problems[0]?.message).toMatch(/^the scenario text (is not base64url|does not decompress|decompresses to bytes).*; opened teaching-small instead, with its own seed/);
    const notBase64 = await decodeShareHash('#v=1&text=@@@', context);
    expect(notBase64.problems[0]).toEqual({ path: 'text', message: 'the scenario text is not base64url text (the link may have been cut short or altered); opened teaching-small instead, with its own seed and settings from time 0 (the link\'s were for the scenario it named); only the speed was kept' });
  });

  it('drops an override the schema does not have, naming its path and the settings there, and keeps the others', async () => {
    const decoded = await decodeShareHash(
      '#v=1&scenario=teaching-small&set=policy.shared_runq.mood=off&set=policy.sis_scan.enabled=true&set=policy.nope=1',
      context,
    );
    expect(decoded.state.overrides).toEqual({ 'policy.sis_scan.enabled': true });
    expect(decoded.problems.map((problem) => problem.path)).toEqual(['set policy.shared_runq.mood', 'set policy.nope']);
    expect(decoded.problems[0]?.message).toMatch(/^the scenario schema has no policy setting `policy.shared_runq.mood` \(there: policy.shared_runq.mode, .*\); ignored$/);
  });

  it('suggests the `policy.` prefix for a setting named as the Policy panel shows it', async () => {
    const decoded = await decodeShareHash('#v=1&scenario=teaching-small&set=shared_runq.mode=all', context);
    expect(decoded.state.overrides).toEqual({});
    expect(decoded.problems[0]?.message).toBe('the scenario schema has no policy setting `shared_runq.mode` (did you mean `policy.shared_runq.mode`?); ignored');
  });

  it('drops an override whose value the control refuses, as the Policy panel words it', async () => {
    const decoded = await decodeShareHash('#v=1&scenario=teaching-small&set=policy.shared_runq.mode=sideways&set=policy.wake_affine.enabled=maybe', context);
    expect(decoded.state.overrides).toEqual({});
    expect(decoded.problems).toEqual([
      { path: 'set policy.shared_runq.mode', message: expect.stringMatching(/^must be one of "off", .*, got "sideways"; ignored$/) },
      { path: 'set policy.wake_affine.enabled', message: 'expected a boolean, got `maybe`; ignored' },
    ]);
  });

  it('starts at 0 for a negative or unreadable time', async () => {
    const negative = await decodeShareHash('#v=1&scenario=teaching-small&t=-5', context);
    expect(negative.state.playhead).toBeUndefined();
    expect(negative.state.scenario).toEqual({ kind: 'bundled', id: 'teaching-small' });
    expect(negative.problems).toEqual([{ path: 't', message: 'the time must be at least 0 ns, got -5; started at 0' }]);
    const words = await decodeShareHash('#v=1&scenario=teaching-small&t=soon', context);
    expect(words.problems).toEqual([{ path: 't', message: 'expected a time in whole nanoseconds, got `soon`; started at 0' }]);
  });

  it('says what is wrong with the speed, the seed, the events and the format, and reads on', async () => {
    const decoded = await decodeShareHash('#v=9&scenario=teaching-small&speed=3&seed=-1&t=100&e=x', context);
    expect(decoded.problems.map((problem) => problem.path)).toEqual(['v', 'speed', 'seed', 'e']);
    expect(decoded.problems[0]?.message).toContain('made by a newer schedlab (format 9');
    expect(decoded.state.speedIndex).toBe(2);
    expect(decoded.state.seed).toBeUndefined();
    expect(decoded.state.playhead).toEqual({ timeNs: 100, events: undefined });
  });

  it('says an empty value is nothing, not an empty quote (a link cut off after `=`)', async () => {
    const decoded = await decodeShareHash('#scenario=teaching-small&t=100&e=', context);
    expect(decoded.problems).toEqual([{ path: 'e', message: 'expected a whole number of events at least 0, got nothing; ran to time t only' }]);
    const seed = await decodeShareHash('#scenario=teaching-small&seed=x', context);
    expect(seed.problems[0]?.message).toBe("expected a whole number at least 0, got `x`; used the scenario's own seed");
  });

  it('reports a hash that is not a share link', async () => {
    const decoded = await decodeShareHash('#section-3', context);
    expect(decoded.hasState).toBe(true);
    expect(decoded.state.scenario).toEqual({ kind: 'bundled', id: 'teaching-small' });
    expect(decoded.problems[0]?.path).toBe('link');
  });
});

describe('compare mode in a link', () => {
  it('round-trips run B settings with cmp=1', async () => {
    const state: SessionState = { ...shared, compare: { 'policy.shared_runq.mode': 'all' } };
    const hash = await encodeShareHash(state, context.speeds);
    expect(hash).toContain('cmp=1');
    expect(hash).toContain('bset=policy.shared_runq.mode%3Dall');
    const link = await decodeShareHash(hash, context);
    expect(link.problems).toEqual([]);
    expect(link.state.compare).toEqual({ 'policy.shared_runq.mode': 'all' });
    expect(link.state.overrides).toEqual(shared.overrides);
  });

  it('says what is wrong with compare state and opens without it, or without the bad setting', async () => {
    const bad = await decodeShareHash('#v=1&scenario=teaching-small&cmp=yes&bset=policy.sis_scan.enabled=true', context);
    expect(bad.state.compare).toBeUndefined();
    expect(bad.problems.map((problem) => problem.path)).toEqual(['cmp']);
    const orphan = await decodeShareHash('#v=1&scenario=teaching-small&bset=policy.sis_scan.enabled=true', context);
    expect(orphan.state.compare).toBeUndefined();
    expect(orphan.problems[0]?.message).toContain('without `cmp=1`');
    const unknown = await decodeShareHash('#v=1&scenario=teaching-small&cmp=1&bset=policy.nope=1&bset=policy.sis_scan.enabled=true', context);
    expect(unknown.state.compare).toEqual({ 'policy.sis_scan.enabled': true });
    expect(unknown.problems[0]?.path).toBe('bset policy.nope');
  });
});

describe('the timeline window in a link', () => {
  it('round-trips a panned window and a zoomed followed one, and leaves the default out', async () => {
    const panned = await encodeShareHash({ ...shared, view: { follow: false, startNs: 2_000_000, spanNs: 500_000 } }, context.speeds);
    expect(panned).toContain('view=2000000%3A500000');
    expect((await decodeShareHash(panned, context)).state.view).toEqual({ follow: false, startNs: 2_000_000, spanNs: 500_000 });
    const zoomed = await encodeShareHash({ ...shared, view: { follow: true, startNs: 0, spanNs: 40_000 } }, context.speeds);
    expect((await decodeShareHash(zoomed, context)).state.view).toEqual({ follow: true, startNs: 0, spanNs: 40_000 });
    expect(await encodeShareHash({ ...shared, view: { follow: true, startNs: 0, spanNs: undefined } }, context.speeds)).not.toContain('view=');
  });

  it('says what is wrong with a window and follows the playhead instead', async () => {
    const bad = await decodeShareHash('#v=1&scenario=teaching-small&view=soon:5', context);
    expect(bad.state.view).toBeUndefined();
    expect(bad.problems).toEqual([{ path: 'view', message: expect.stringContaining('width must be whole nanoseconds') as string }]);
    const shape = await decodeShareHash('#v=1&scenario=teaching-small&view=123', context);
    expect(shape.problems[0]?.message).toContain('expected START_NS:SPAN_NS');
  });
});

describe('what a link holds', () => {
  it('names a bundled scenario whose text is unchanged, and carries an edited one as text', () => {
    const teaching = text('teaching-small');
    expect(sourceOf('teaching-small', teaching, context.scenarios)).toEqual({ kind: 'bundled', id: 'teaching-small' });
    // Edited text that happens to equal a bundled file is that file.
    expect(sourceOf('custom', teaching, context.scenarios)).toEqual({ kind: 'bundled', id: 'teaching-small' });
    const edited = teaching.replace('"seed": 42', '"seed": 1');
    expect(sourceOf('custom', edited, context.scenarios)).toEqual({ kind: 'text', text: edited });
  });

  it('takes the playhead from the frame and the seed from the file', () => {
    const session = sessionOf(
      { scenarioId: 'teaching-small', fileText: text('teaching-small'), policyOverrides: {}, speedIndex: 1, frame: { nowNs: simTimeNs(5000), events: 12 } },
      context,
    );
    expect(session).toEqual({ scenario: { kind: 'bundled', id: 'teaching-small' }, overrides: {}, seed: 42, speedIndex: 1, playhead: { timeNs: 5000, events: 12 } });
    expect(sessionOf({ scenarioId: '', fileText: '', policyOverrides: {}, speedIndex: 1, frame: undefined }, context)).toBeUndefined();
  });

  it('applies a seed that differs from the file, leaving the file alone otherwise', () => {
    const teaching = text('teaching-small');
    expect(withSeed(teaching, 42)).toBe(teaching);
    expect(withSeed(teaching, undefined)).toBe(teaching);
    expect(seedOf(withSeed(teaching, 9))).toBe(9);
    expect(withSeed('{ not json', 9)).toBe('{ not json');
    const target = loadTarget({ scenario: { kind: 'bundled', id: 'teaching-small' }, overrides: {}, seed: 9, speedIndex: 2, playhead: undefined }, context);
    expect(target.id).toBe('teaching-small');
    expect(seedOf(target.text)).toBe(9);
  });
});
