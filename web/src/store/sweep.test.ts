import { describe, expect, it } from 'vitest';
import type { SweepResult } from '../engine/sweepProtocol';
import type { JsonValue } from './policy';
import { changePlot, defaultXPath, metricChoices, metricLabel, suggestedSweep, sweepCommand, sweepCsv, sweepPlot, varyLines } from './sweep';

const summary = (p99: number, throughput: number) => ({ wakeup_latency_us: { p99 }, throughput: { unit: 'requests/s', value: throughput }, seed: 1 });

/** A point as the worker gives it: each seed's summary, and their median, min and max. */
function point(index: number, scan: boolean, threads: number, p99s: readonly [number, number, number], throughput: number): SweepResult['points'][number] {
  const sorted = [...p99s].sort((x, y) => x - y);
  return {
    index,
    set: { 'policy.sis_scan.enabled': scan, 'workloads.0.worker_threads': threads },
    median: summary(sorted[1]!, throughput),
    min: summary(sorted[0]!, throughput - 1),
    max: summary(sorted[2]!, throughput + 1),
    runs: p99s.map((p99) => summary(p99, throughput)),
  };
}

/** Two lines (scan off, on) over three thread counts and three seeds, as `schedlab sweep --json` gives them. */
const RESULT: SweepResult = {
  seeds: [1, 2, 3],
  points: [
    point(0, false, 18, [100, 90, 130], 5),
    point(1, false, 19, [2000, 900, 2600], 5),
    point(2, false, 20, [5000, 4000, 6000], 5),
    point(3, true, 18, [90, 80, 95], 5),
    point(4, true, 19, [95, 85, 99], 5),
    point(5, true, 20, [300, 200, 400], 5),
  ],
};
const PATHS = ['policy.sis_scan.enabled', 'workloads.0.worker_threads'];

describe('sweep form', () => {
  it('reads vary lines as --vary arguments and says which line is wrong', () => {
    expect(varyLines('--vary a.b=1,2\n\n# note\n  c=1..3 ').lines).toEqual(['a.b=1,2', 'c=1..3']);
    expect(varyLines('a.b=1\nnope\nc=').problems).toEqual([
      { path: 'vary line 2', message: 'expected PATH=V1,V2,... or PATH=A..B, got `nope`' },
      { path: 'vary line 3', message: '`c` has no values after =' },
    ]);
    expect(varyLines('  \n').problems[0]?.message).toContain('at least one field');
  });

  it('suggests the docs sweep for a seed scenario and a kernel sweep otherwise', () => {
    expect(suggestedSweep('sis-schbench-t19').form.vary).toContain('workloads.0.worker_threads=16..22');
    expect(suggestedSweep('sis-schbench-t19').metric).toBe('wakeup_latency_us.p99');
    expect(suggestedSweep('teaching-small').form.vary).toMatch(/^kernel=/);
    // The compile's gap: SHARED_RUNQ against SIS_UTIL (docs/policies/shared-runq.md, experiment 1).
    expect(suggestedSweep('shared-runq-kcompile-7950x')).toMatchObject({ metric: 'idle_while_runnable_ns.llc', form: { vary: 'policy.shared_runq.mode=off,all\nfeatures.SIS_UTIL=true,false' } });
  });

  it('gives the same sweep as a CLI command, quoting what a shell would split', () => {
    expect(sweepCommand('sis-schbench-t19', { 'policy.sis_scan.gate': false }, ['workloads.0.cpus="0-3,8",0-7'], '1..5')).toBe(
      `schedlab sweep sis-schbench-t19 --set policy.sis_scan.gate=false --vary 'workloads.0.cpus="0-3,8",0-7' --seeds 1..5 --json`,
    );
  });
});

describe('sweep plot', () => {
  it('puts the numeric field with most values on the x axis and one line per other value', () => {
    expect(defaultXPath(RESULT, PATHS)).toBe('workloads.0.worker_threads');
    const plot = sweepPlot(RESULT, PATHS, 'workloads.0.worker_threads', 'wakeup_latency_us.p99');
    expect(plot.numericX).toBe(true);
    expect(plot.series.map((series) => series.label)).toEqual(['policy.sis_scan.enabled=false', 'policy.sis_scan.enabled=true']);
    expect(plot.series[0]?.points).toEqual([
      { x: 18, median: 100, min: 90, max: 130 },
      { x: 19, median: 2000, min: 900, max: 2600 },
      { x: 20, median: 5000, min: 4000, max: 6000 },
    ]);
  });

  it('plots each line\'s change against the first, paired by seed', () => {
    const values = sweepPlot(RESULT, PATHS, 'workloads.0.worker_threads', 'wakeup_latency_us.p99');
    const change = changePlot(values, RESULT, PATHS);
    expect(change.series.map((series) => series.label)).toEqual(['policy.sis_scan.enabled=true vs policy.sis_scan.enabled=false']);
    const at18 = change.series[0]?.points[0];
    // Seeds: 90/100, 80/90, 95/130: -10 %, -11.1 %, -26.9 %.
    expect(at18?.x).toBe(18);
    expect(at18?.median).toBeCloseTo(-11.11, 2);
    expect(at18?.min).toBeCloseTo(-26.92, 2);
    expect(at18?.max).toBeCloseTo(-10, 5);
    // One line has nothing to compare with.
    const single = sweepPlot({ ...RESULT, points: RESULT.points.slice(0, 3) }, PATHS, 'workloads.0.worker_threads', 'wakeup_latency_us.p99');
    expect(changePlot(single, RESULT, PATHS).series).toEqual([]);
  });

  it('plots a boolean on a categorical axis', () => {
    const plot = sweepPlot(RESULT, PATHS, 'policy.sis_scan.enabled', 'throughput.value');
    expect(plot.numericX).toBe(false);
    expect(plot.series).toHaveLength(3);
    expect(plot.series[0]?.points.map((point) => point.x)).toEqual(['false', 'true']);
  });

  it('lists the headline metrics first, with units', () => {
    expect(metricChoices(RESULT).slice(0, 2)).toEqual(['wakeup_latency_us.p99', 'throughput.value']);
    expect(metricChoices(RESULT)).not.toContain('seed');
    expect(metricLabel('throughput.value', RESULT)).toBe('throughput (requests/s)');
    expect(metricLabel('wakeup_latency_us.p99', RESULT)).toBe('p99 wakeup latency (us)');
    expect(metricLabel('idle_while_runnable_ns.llc', RESULT)).toBe('idle while a task waits, LLC (ns)');
    expect(metricLabel('bandwidth.throttles', RESULT)).toBe('cfs_rq throttles');
    expect(metricLabel('wakeup_latency_us.p99_5', RESULT)).toBe('p99.5 wakeup latency (us)');
    expect(metricLabel('wakeup_latency_us.samples', RESULT)).toBe('wakeup latency samples');
  });

  it('names lock_stat columns by their class and workloads by their label', () => {
    const median: JsonValue = {
      locks: [{ class: '&rq->__lock', contentions: 3 }, { class: '&shard->lock', acquisitions: 9 }],
      throughput_by_workload: [{ workload: 'netperf UDP_RR', values: [{ unit: 'transactions/s', value: 5 }] }],
    };
    const result: SweepResult = { seeds: [1], points: [{ index: 0, set: {}, median, min: median, max: median, runs: [median] }] };
    expect(metricLabel('locks.0.contentions', result)).toBe('&rq->__lock contentions');
    expect(metricLabel('locks.1.acquisitions', result)).toBe('&shard->lock acquisitions');
    expect(metricLabel('locks.1.holdtime_avg_ns', result)).toBe('&shard->lock average hold (ns)');
    expect(metricLabel('locks.0.contention_points.task_rq_lock', result)).toBe('&rq->__lock contentions, waiter in task_rq_lock');
    expect(metricLabel('locks.0.contending_points.__schedule', result)).toBe('&rq->__lock contentions, holder in __schedule');
    expect(metricLabel('locks.2.contentions', result)).toBe('lock 2 contentions');
    expect(metricLabel('throughput_by_workload.0.values.0.value', result)).toBe('throughput of netperf UDP_RR (transactions/s)');
  });

  it('offers the metrics of every point, not only the first', () => {
    const off: JsonValue = { locks: [{ class: '&rq->__lock', contentions: 3 }] };
    const all: JsonValue = { locks: [{ class: '&rq->__lock', contentions: 4 }, { class: '&shard->lock', contentions: 9 }] };
    const points = [off, all].map((median, index) => ({ index, set: {}, median, min: median, max: median, runs: [median] }));
    expect(metricChoices({ seeds: [1], points })).toEqual(['locks.0.contentions', 'locks.1.contentions']);
  });

  it('plots a metric inside a list (a lock_stat row)', () => {
    const points = [3, 5].map((contentions, index) => {
      const median: JsonValue = { locks: [{ class: '&rq->__lock', contentions }] };
      return { index, set: { 'workloads.0.clients': 8 * (index + 1) }, median, min: median, max: median, runs: [median] };
    });
    const plot = sweepPlot({ seeds: [1], points }, ['workloads.0.clients'], 'workloads.0.clients', 'locks.0.contentions');
    expect(plot.series[0]?.points.map((point) => [point.x, point.median])).toEqual([
      [8, 3],
      [16, 5],
    ]);
    expect(sweepCsv({ seeds: [1], points }, ['workloads.0.clients'], 'locks.0.contentions').split('\n')[1]).toBe('8,3,3,3');
  });

  it('writes each point with its settings and spread as CSV', () => {
    const csv = sweepCsv(RESULT, PATHS, 'wakeup_latency_us.p99').split('\n');
    expect(csv[0]).toBe('policy.sis_scan.enabled,workloads.0.worker_threads,wakeup_latency_us.p99 median,wakeup_latency_us.p99 min,wakeup_latency_us.p99 max');
    expect(csv[2]).toBe('false,19,2000,900,2600');
    expect(csv).toHaveLength(8);
  });
});
