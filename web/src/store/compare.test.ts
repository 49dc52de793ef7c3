import { describe, expect, it } from 'vitest';
import { scenarioSchema } from '../engine/validate';
import { compareMarkdown, compareRows, formatChange, formatValue, settingDiffs, verdict } from './compare';
import { policyGroups, type JsonValue } from './policy';

const GROUPS = policyGroups(scenarioSchema);

/** A `run --json` summary, cut to the figures the table reads. */
function summary(p99: number, throughput: number, crossLlc: number, contentions: number, freq: number): JsonValue {
  return {
    wakeup_latency_us: { p50: 10, p90: 20, p99, p99_9: p99 * 2, max: p99 * 3 },
    throughput_by_workload: [{ workload: 'schbench', values: [{ unit: 'requests/s', value: throughput }] }],
    utilization: 0.5,
    idle_while_runnable_ns: { llc: 2_000_000, machine: 3_000_000 },
    context_switches: 100,
    wakeups: 50,
    migrations: { smt: 1, llc: 2, cross_llc: crossLlc, cross_numa: 0 },
    locks: [{ class: '&rq->__lock', acquisitions: 1000, contentions }],
    avg_freq_mhz: freq,
  };
}

describe('the diff table', () => {
  const rows = compareRows(summary(200, 1000, 10, 10, 2000), summary(100, 1100, 0, 20, 2000));
  const find = (label: string) => rows.find((row) => row.label === label);

  it('gives A, B and the change for latency, throughput, CPU, migrations, locks and frequency', () => {
    expect(rows.map((row) => row.group)).toEqual([
      ...Array(5).fill('wakeup latency'),
      'throughput',
      ...Array(5).fill('CPU'),
      ...Array(4).fill('migrations'),
      'lock contention',
      'frequency',
    ]);
    expect(find('p99')).toMatchObject({ a: 200, b: 100, changePct: -50 });
    expect(find('throughput')).toMatchObject({ a: 1000, b: 1100, unit: 'requests/s' });
    expect(find('utilisation')).toMatchObject({ a: 50, b: 50, unit: '%' });
    expect(find('idle while runnable (LLC)')).toMatchObject({ a: 2, unit: 'ms' });
    expect(find('rq lock acquisitions that waited')).toMatchObject({ a: 1, b: 2 });
  });

  it('judges a change by the figure\'s better direction', () => {
    expect(verdict(find('p99')!)).toBe('better');
    expect(verdict(find('throughput')!)).toBe('better');
    expect(verdict(find('rq lock acquisitions that waited')!)).toBe('worse');
    expect(verdict(find('average frequency')!)).toBe('same');
    expect(verdict(find('context switches')!)).toBeUndefined();
    expect(formatChange(find('p99')!)).toBe('−50.0 %');
    expect(formatChange(find('cross-LLC')!)).toBe('−100.0 %');
    // A change too small to show has no sign.
    const tiny = find('p99')!;
    expect(formatChange({ ...tiny, changePct: -0.04 })).toBe('0.0 %');
    expect(formatChange({ ...tiny, changePct: 0.04 })).toBe('0.0 %');
    expect(formatChange({ ...tiny, changePct: -0.05 })).toBe('−0.1 %');
  });

  it('shows more digits where the usual ones would show two different figures as one', () => {
    // 1.234 % and 1.227 % of acquisitions waited: 1.23 both at two digits, beside a change of -0.6 %.
    const close = compareRows(summary(200, 1000, 10, 12.34, 2000), summary(200, 1000, 10, 12.27, 2000));
    const waited = close.find((row) => row.label === 'rq lock acquisitions that waited')!;
    expect(waited.digits).toBe(3);
    expect(formatValue(waited.a, waited.digits)).toBe('1.234');
    expect(formatValue(waited.b, waited.digits)).toBe('1.227');
    // Equal figures, and figures apart at the usual digits, keep them.
    expect(find('utilisation')!.digits).toBe(1);
    expect(find('p99')!.digits).toBe(1);
  });

  it('shows a figure only one run has as missing, never as a number', () => {
    const partial = compareRows(summary(1, 1, 1, 1, 1), undefined);
    expect(partial.find((row) => row.label === 'p99')).toMatchObject({ a: 1, b: undefined, changePct: undefined });
  });
});

describe('what B changes', () => {
  const file: JsonValue = { policy: { shared_runq: { mode: 'off' } } };

  it('lists each setting whose value differs, with the file value where a run leaves it alone', () => {
    const diffs = settingDiffs(GROUPS, GROUPS, file, { 'policy.wake_affine.enabled': false }, { 'policy.shared_runq.mode': 'all' });
    expect(diffs).toEqual([
      { path: 'policy.wake_affine.enabled', a: false, b: true },
      { path: 'policy.shared_runq.mode', a: 'off', b: 'all' },
    ]);
    expect(settingDiffs(GROUPS, GROUPS, file, { 'policy.shared_runq.mode': 'all' }, { 'policy.shared_runq.mode': 'all' })).toEqual([]);
  });

  it("gives each side its own kernel's paths, and keeps a path a side sets when the kernels differ", () => {
    const older = policyGroups(scenarioSchema, '5.10');
    // B runs 5.10 with SIS_UTIL on: the value is A's too (6.5's default), but without it B would run it off.
    const diffs = settingDiffs(GROUPS, older, file, {}, { kernel: '5.10', 'features.SIS_UTIL': true });
    expect(diffs).toEqual([
      { path: 'kernel', a: '6.5', b: '5.10' },
      { path: 'features.SIS_UTIL', a: true, b: true },
    ]);
    // Same kernel, a path set to its default on one side: no difference.
    expect(settingDiffs(GROUPS, GROUPS, file, { 'features.SIS_UTIL': true }, {})).toEqual([]);
    expect(settingDiffs(GROUPS, GROUPS, file, { 'features.SIS_UTIL': false }, {})).toEqual([{ path: 'features.SIS_UTIL', a: false, b: true }]);
  });

  it('writes the table as Markdown with the settings and the runs named', () => {
    const rows = compareRows(summary(200, 1000, 10, 10, 2000), summary(100, 1100, 0, 20, 2000));
    const text = compareMarkdown({ scenario: 'teaching-small', seed: 42, timeS: '0.500000', diffs: [{ path: 'policy.wake_affine.enabled', a: true, b: false }] }, rows);
    const lines = text.split('\n');
    expect(lines[0]).toBe('schedlab compare: teaching-small, seed 42, at 0.500000 s simulated');
    expect(lines[2]).toBe('B differs from A by: policy.wake_affine.enabled: true → false');
    expect(lines[4]).toBe('| metric | A | B | change |');
    expect(text).toContain('| wakeup latency: p99 (us) | 200.0 | 100.0 | −50.0 % |');
    expect(text).toContain('| throughput: throughput (requests/s) | 1,000.0 | 1,100.0 | +10.0 % |');
  });
});
