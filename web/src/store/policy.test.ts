import { describe, expect, it } from 'vitest';
import { readFileSync } from 'node:fs';
import {
  allControls,
  changedSettings,
  currentSetting,
  fileSetting,
  NO_OVERRIDES,
  parseControlInput,
  policyGroups,
  formatSetting,
  sameSetting,
  scenarioKernel,
  setArgument,
  setOverride,
  settingText,
  valueAtPath,
  withOverrides,
  type JsonValue,
  type PolicyControl,
  runText,
} from './policy';
import { formatProblem, scenarioSchema, schemaProblems } from '../engine/validate';

const groups = policyGroups(scenarioSchema);
const file = (name: string) => JSON.parse(readFileSync(`../scenarios/${name}.json`, 'utf8')) as JsonValue;
const skylake = file('shared-runq-schbench-pipe-skylake');
const teaching = file('teaching-small');

function control(path: string): PolicyControl {
  const found = allControls(groups).find((candidate) => candidate.path === path);
  if (!found) throw new Error(`no control ${path}`);
  return found;
}

describe('policy controls from the scenario schema', () => {
  it('groups the switches by patch series: baseline, then by the kernel each series was written against', () => {
    expect(groups.map((group) => [group.id, group.title, group.kernel])).toEqual([
      ['kernel', 'Kernel version and paths', undefined],
      ['baseline', 'Baseline paths', undefined],
      ['seed-001', 'select_idle_sibling idle-thread scan', '4.6'],
      ['seed-003', 'TurboSched task packing', '5.2'],
      ['seed-004', 'NUMA affinity at fork', '5.18'],
      ['seed-000', 'SHARED_RUNQ', '6.5'],
      ['seed-002', 'cfs_rq / sched_entity field order', '6.15'],
    ]);
    expect(groups.slice(1).map((group) => group.controls.map((entry) => entry.label))).toEqual([
      ['newidle_balance.enabled', 'periodic_balance.enabled', 'wake_affine.enabled'],
      ['sis_scan.enabled', 'sis_scan.gate'],
      ['turbo_pack.enabled', 'turbo_pack.busy_threshold_pct', 'turbo_pack.domain'],
      ['numa_affinity.enabled', 'numa_affinity.check'],
      ['shared_runq.mode', 'shared_runq.shard_index', 'shared_runq.shard_size', 'shared_runq.skip_llc_balance'],
      ['struct_layout'],
    ]);
    expect(groups[5]?.summary).toBe('Sharded per-LLC shared runqueues that a CPU pulls from before it goes idle.');
    // Seed 002's one setting begins with the series' sentence: said once, under it.
    expect(groups[6]?.summary).toBeUndefined();
    expect(groups[6]?.controls[0]?.description).toMatch(/^The field order of `struct cfs_rq` and `struct sched_entity`/);
  });

  it('maps booleans to switches, enums to choices with their sentences, integers to a range', () => {
    expect(control('policy.wake_affine.enabled')).toEqual({
      path: 'policy.wake_affine.enabled',
      label: 'wake_affine.enabled',
      kind: 'boolean',
      default: true,
      // A Switch's `enabled` has no description of its own: its parent's is used, on one line.
      description: "Let a wakeup move the task towards the waker's CPU (`wake_affine`).",
    });
    const mode = control('policy.shared_runq.mode');
    expect(mode.kind).toBe('enum');
    if (mode.kind === 'enum') {
      expect(mode.options.map((option) => option.value)).toEqual(['off', 'wakeups', 'all']);
      expect(mode.options[2]?.description).toBe('Push on every `__enqueue_entity`, remove on every `__dequeue_entity` (patch 7).');
      expect(mode.default).toBe('off');
      expect(mode.description).toBe('Where tasks are pushed into the shared runqueue.');
    }
    expect(control('policy.shared_runq.shard_size')).toMatchObject({ kind: 'integer', minimum: 0, maximum: 4096, default: 6 });
    expect(control('policy.shared_runq.skip_llc_balance')).toMatchObject({ kind: 'boolean', default: false });
    expect(control('policy.numa_affinity.check')).toMatchObject({ kind: 'enum', default: 'ne' });
    expect(control('policy.sis_scan.gate').description).not.toMatch(/\n|\s{2}/);
  });

  it('shows a knob or a series added to the schema without UI work', () => {
    const schema = structuredClone(scenarioSchema) as {
      $defs: Record<string, { properties: Record<string, unknown> }>;
      properties: { policy: unknown };
    };
    const runq = schema.$defs.SharedRunqSpec;
    if (!runq) throw new Error('SharedRunqSpec is gone from the schema');
    runq.properties.pull_batch = { type: 'integer', minimum: 1, maximum: 64, default: 1, description: 'Tasks pulled at once.' };
    const policy = schema.$defs.PolicySpec;
    if (!policy) throw new Error('PolicySpec is gone from the schema');
    policy.properties.turbo_pack = {
      description: 'Seed 007: on the 6.1 wakeup path, pack small tasks.',
      type: 'object',
      properties: { enabled: { type: 'boolean', default: false } },
    };
    const extended = policyGroups(schema);
    expect(allControls(extended).find((entry) => entry.label === 'shared_runq.pull_batch')).toMatchObject({
      kind: 'integer',
      minimum: 1,
      maximum: 64,
      default: 1,
      description: 'Tasks pulled at once.',
    });
    const added = extended.find((group) => group.id === 'seed-007');
    // Its one switch says the series' sentence, so the group does not say it again.
    expect(added).toMatchObject({ title: 'Seed 007', kernel: '6.1', summary: undefined });
    expect(added?.controls.map((entry) => [entry.label, entry.description])).toEqual([['turbo_pack.enabled', 'On the 6.1 wakeup path, pack small tasks.']]);
    expect(extended.map((group) => group.id)).toEqual(['kernel', 'baseline', 'seed-001', 'seed-004', 'seed-007', 'seed-000', 'seed-002']);
  });
});

describe('the kernel version and its paths', () => {
  const at = (kernel: string, path: string) => {
    const found = allControls(policyGroups(scenarioSchema, kernel)).find((candidate) => candidate.path === path);
    if (!found) throw new Error(`no control ${path} for ${kernel}`);
    return found;
  };

  it('offers every modelled version, and each features path with the chosen version as its default', () => {
    const kernel = at('6.5', 'kernel');
    expect(kernel.kind).toBe('enum');
    if (kernel.kind === 'enum') {
      expect(kernel.options.map((option) => option.value)).toHaveLength(41);
      expect(kernel.options[0]?.value).toBe('4.6');
      expect(kernel.options.at(-1)?.value).toBe('6.5');
      expect(kernel.default).toBe('6.5');
    }
    // The labels drop `features.`, as the policy ones drop `policy.`; the paths keep it.
    expect(at('6.5', 'features.SIS_UTIL')).toMatchObject({ kind: 'boolean', label: 'SIS_UTIL', default: true });
    expect(at('5.10', 'features.SIS_UTIL')).toMatchObject({ default: false });
    expect(at('5.10', 'features.SIS_PROP')).toMatchObject({ default: true });
    expect(at('4.6', 'features.busy_factor')).toMatchObject({ kind: 'integer', default: 32 });
    expect(at('6.5', 'features.busy_factor')).toMatchObject({ default: 16 });
    const sis = at('4.9', 'features.select_idle_sibling');
    expect(sis.kind).toBe('enum');
    if (sis.kind === 'enum') {
      expect(sis.options.map((option) => option.value)).toEqual(['4.6', '4.9', '5.12']);
      expect(sis.default).toBe('4.9');
    }
    // A patch release reads as its minor version, a minor the table lacks as the one
    // below it (as the core reads them); either is offered as the file spells it.
    expect(at('5.18.3', 'features.numa_fork_rule').default).toBe(at('5.18', 'features.numa_fork_rule').default);
    expect(at('5.25', 'features.SIS_PROP').default).toBe(true);
    expect(at('5.25', 'features.busy_factor').default).toBe(16);
    for (const spelled of ['5.18.3', '5.25', '7.1']) {
      const choice = at(spelled, 'kernel');
      expect(choice.kind).toBe('enum');
      expect(choice.kind === 'enum' && choice.options.at(-1)?.value).toBe(spelled);
    }
    // Outside the modelled range there are no defaults (the core refuses the file).
    expect(at('7.1', 'features.SIS_UTIL').default).toBeUndefined();
    expect(at('4.5', 'features.SIS_UTIL').default).toBeUndefined();
  });

  it('shows a file\'s own features setting over the version, and a choice that matches the version as no change', () => {
    const six = allControls(policyGroups(scenarioSchema, '6.5'));
    const util = six.find((entry) => entry.path === 'features.SIS_UTIL');
    if (!util) throw new Error('no SIS_UTIL');
    const plain = file('shared-runq-kcompile-7950x');
    expect(fileSetting(util, plain)).toBe(true);
    expect(fileSetting(util, { ...(plain as object), features: { SIS_UTIL: false } })).toBe(false);
    const off = setOverride(NO_OVERRIDES, util, false, plain);
    expect(off).toEqual({ 'features.SIS_UTIL': false });
    expect(setOverride(off, util, true, plain)).toEqual({});
    const groups65 = policyGroups(scenarioSchema, '6.5');
    expect(changedSettings(groups65, plain, off)).toEqual([{ path: 'features.SIS_UTIL', label: 'SIS_UTIL', file: true, value: false }]);
    expect(setArgument('features.SIS_UTIL', false)).toBe('--set features.SIS_UTIL=false');
    const run = withOverrides(plain, { kernel: '5.10', 'features.SIS_UTIL': true }) as { kernel: string; features: { SIS_UTIL: boolean } };
    expect(run.kernel).toBe('5.10');
    expect(run.features.SIS_UTIL).toBe(true);
    expect(schemaProblems(run as unknown as JsonValue)).toEqual([]);
  });
});

describe('a setting that is a name or an object (policy.struct_layout)', () => {
  const layout = control('policy.struct_layout');
  const cgroups = file('cgroup-d3w10');
  const order = { cfs_rq: ['tg', 'load'], sched_entity: ['vruntime'] };

  it('is a choice of the names, the original by default, explained without its series tag', () => {
    expect(layout).toMatchObject({ kind: 'enum-or-object', default: 'original' });
    if (layout.kind === 'enum-or-object') expect(layout.options.map((option) => option.value)).toEqual(['original', 'reordered']);
    expect(layout.description).toMatch(/^The field order of `struct cfs_rq`/);
    expect(fileSetting(layout, cgroups)).toBe('original');
    expect(fileSetting(layout, withOverrides(cgroups, { 'policy.struct_layout': order }))).toEqual(order);
  });

  it('reads a name or a JSON object as --set does, and refuses anything else with the choices', () => {
    expect(parseControlInput(layout, 'reordered')).toEqual({ ok: true, value: 'reordered' });
    expect(parseControlInput(layout, '"original"')).toEqual({ ok: true, value: 'original' });
    expect(parseControlInput(layout, JSON.stringify(order))).toEqual({ ok: true, value: order });
    const bad = parseControlInput(layout, 'sideways');
    expect(bad.ok).toBe(false);
    if (!bad.ok) expect(formatProblem(bad.problem)).toBe('policy.struct_layout: must be one of "original", "reordered" or a JSON object, got `sideways`');
    expect(parseControlInput(layout, '["load"]').ok).toBe(false);
  });

  it('compares objects by their contents, so an order set back to the file drops the override', () => {
    expect(sameSetting({ a: [1, 2], b: 'x' }, { b: 'x', a: [1, 2] })).toBe(true);
    expect(sameSetting({ a: [1, 2] }, { a: [2, 1] })).toBe(false);
    expect(sameSetting('original', 'original')).toBe(true);
    const withOrder = withOverrides(cgroups, { 'policy.struct_layout': order });
    expect(setOverride({ 'policy.struct_layout': 'reordered' }, layout, { sched_entity: ['vruntime'], cfs_rq: ['tg', 'load'] }, withOrder)).toEqual({});
    const changed = changedSettings(groups, cgroups, { 'policy.struct_layout': order });
    expect(changed).toEqual([{ path: 'policy.struct_layout', label: 'struct_layout', file: 'original', value: order }]);
  });

  it('writes an object as JSON for the command line, quoted for the shell, and shortens a long one for reading', () => {
    expect(setArgument('policy.struct_layout', 'reordered')).toBe('--set policy.struct_layout=reordered');
    expect(setArgument('policy.struct_layout', { cfs_rq: ['tg', 'load'] })).toBe(`--set 'policy.struct_layout={"cfs_rq":["tg","load"]}'`);
    expect(settingText({ cfs_rq: ['tg'] })).toBe('{"cfs_rq":["tg"]}');
    expect(formatSetting({ cfs_rq: ['tg'] })).toBe('{"cfs_rq":["tg"]}');
    const long = { cfs_rq: Array.from({ length: 37 }, (_, index) => `field_${index}`), sched_entity: Array.from({ length: 23 }, (_, index) => `f${index}`) };
    expect(formatSetting(long)).toBe('{"cfs_rq": [37 names], "sched_entity": [23 names]}');
    const text = runText(JSON.stringify(cgroups), { 'policy.struct_layout': order }) ?? '';
    expect(JSON.parse(text)).toMatchObject({ policy: { struct_layout: order } });
    expect(schemaProblems(JSON.parse(text))).toEqual([]);
  });
});

describe('the scenario file and the overrides', () => {
  it("reads the file's settings, and the schema's defaults where it says nothing", () => {
    expect(fileSetting(control('policy.shared_runq.mode'), skylake)).toBe('all');
    expect(fileSetting(control('policy.shared_runq.shard_size'), skylake)).toBe(6);
    expect(fileSetting(control('policy.shared_runq.mode'), teaching)).toBe('off');
    expect(fileSetting(control('policy.wake_affine.enabled'), teaching)).toBe(true);
    expect(scenarioKernel(scenarioSchema, skylake)).toEqual({ version: '6.5', fromFile: true });
    expect(scenarioKernel(scenarioSchema, file('sis-schbench-t19'))).toEqual({ version: '4.6', fromFile: true });
    expect(scenarioKernel(scenarioSchema, teaching)).toEqual({ version: '6.5', fromFile: false });
  });

  it("drops an override set back to the file's value, and lists only what differs", () => {
    const mode = control('policy.shared_runq.mode');
    const off = setOverride(NO_OVERRIDES, mode, 'off', skylake);
    expect(off).toEqual({ 'policy.shared_runq.mode': 'off' });
    expect(currentSetting(mode, skylake, off)).toBe('off');
    const both = setOverride(off, control('policy.shared_runq.shard_size'), 0, skylake);
    expect(changedSettings(groups, skylake, both)).toEqual([
      { path: 'policy.shared_runq.mode', label: 'shared_runq.mode', file: 'all', value: 'off' },
      { path: 'policy.shared_runq.shard_size', label: 'shared_runq.shard_size', file: 6, value: 0 },
    ]);
    expect(setOverride(both, mode, 'all', skylake)).toEqual({ 'policy.shared_runq.shard_size': 0 });
    expect(setArgument('policy.shared_runq.mode', 'off')).toBe('--set policy.shared_runq.mode=off');
  });

  it('writes overrides into the scenario, creating the policy objects the file leaves out, without touching the file', () => {
    const on = withOverrides(teaching, { 'policy.shared_runq.mode': 'all', 'policy.shared_runq.shard_size': 2 });
    expect(valueAtPath(on, 'policy.shared_runq')).toEqual({ mode: 'all', shard_size: 2 });
    expect(valueAtPath(teaching, 'policy')).toBeUndefined();
    expect(valueAtPath(on, 'seed')).toBe(valueAtPath(teaching, 'seed'));
    expect(schemaProblems(on)).toEqual([]);
    const text = runText(JSON.stringify(skylake), { 'policy.shared_runq.mode': 'off' }) ?? '';
    expect(JSON.parse(text)).toMatchObject({ seed: 1, policy: { shared_runq: { mode: 'off', shard_size: 6 } } });
    expect(runText('{"a": 1}', NO_OVERRIDES)).toBe('{"a": 1}');
    expect(runText('not json', { 'policy.x': 1 })).toBeUndefined();
  });
});

describe('what the user types into a control', () => {
  const shardSize = control('policy.shared_runq.shard_size');

  it('is read as the field type, with the range checked', () => {
    expect(parseControlInput(shardSize, '12')).toEqual({ ok: true, value: 12 });
    expect(parseControlInput(shardSize, ' 0 ')).toEqual({ ok: true, value: 0 });
    expect(parseControlInput(control('policy.shared_runq.mode'), 'wakeups')).toEqual({ ok: true, value: 'wakeups' });
    expect(parseControlInput(control('policy.wake_affine.enabled'), 'false')).toEqual({ ok: true, value: false });
  });

  it('names the field and what is wrong, in the words of `--set` and of the schema check', () => {
    const message = (raw: string) => {
      const parsed = parseControlInput(shardSize, raw);
      return parsed.ok ? 'ok' : formatProblem(parsed.problem);
    };
    expect(message('abc')).toBe('policy.shared_runq.shard_size: expected an integer, got `abc`');
    expect(message('2.5')).toBe('policy.shared_runq.shard_size: expected an integer, got `2.5`');
    expect(message('')).toBe('policy.shared_runq.shard_size: expected an integer, got an empty value');
    expect(message('-1')).toBe('policy.shared_runq.shard_size: must be at least 0, got -1');
    expect(message('4097')).toBe('policy.shared_runq.shard_size: must be at most 4096, got 4097');
    expect(formatProblem((parseControlInput(control('policy.shared_runq.mode'), 'most') as { problem: { path: string; message: string } }).problem)).toBe(
      'policy.shared_runq.mode: must be one of "off", "wakeups", "all", got "most"',
    );
  });

  it('is refused with the very message the schema check gives for the same value', () => {
    const cases: [PolicyControl, string, number | string][] = [
      [shardSize, '-1', -1],
      [shardSize, '4097', 4097],
      [control('policy.shared_runq.mode'), 'most', 'most'],
    ];
    for (const [entry, typed, value] of cases) {
      const parsed = parseControlInput(entry, typed);
      const problems = schemaProblems(withOverrides(skylake, { [entry.path]: value })).map(formatProblem);
      expect(parsed.ok).toBe(false);
      if (!parsed.ok) expect(problems).toEqual([formatProblem(parsed.problem)]);
    }
  });
});
