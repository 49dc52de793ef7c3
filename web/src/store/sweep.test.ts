import { describe, expect, it } from 'vitest';
import type { SweepResult } from '../engine/sweepProtocol';
import { defaultXPath, metricChoices, metricLabel, suggestedSweep, sweepCommand, sweepCsv, sweepPlot, varyLines } from './sweep';

const summary = (p99: number, throughput: number) => ({ wakeup_latency_us: { p99 }, throughput: { unit: 'requests/s', value: throughput }, seed: 1 });

/** Two lines (scan off, on) over three thread counts, as `schedlab sweep --json` gives them. */
const RESULT: SweepResult = {
  seeds: [1, 2, 3],
  points: [
    { index: 0, set: { 'policy.sis_scan.enabled': false, 'workloads.0.worker_threads': 18 }, median: summary(100, 5), min: summary(90, 4), max: summary(130, 6) },
    { index: 1, set: { 'policy.sis_scan.enabled': false, 'workloads.0.worker_threads': 19 }, median: summary(2000, 5), min: summary(900, 4), max: summary(2600, 6) },
    { index: 2, set: { 'policy.sis_scan.enabled': false, 'workloads.0.worker_threads': 20 }, median: summary(5000, 5), min: summary(4000, 4), max: summary(6000, 6) },
    { index: 3, set: { 'policy.sis_scan.enabled': true, 'workloads.0.worker_threads': 18 }, median: summary(90, 5), min: summary(80, 4), max: summary(95, 6) },
    { index: 4, set: { 'policy.sis_scan.enabled': true, 'workloads.0.worker_threads': 19 }, median: summary(95, 5), min: summary(85, 4), max: summary(99, 6) },
    { index: 5, set: { 'policy.sis_scan.enabled': true, 'workloads.0.worker_threads': 20 }, median: summary(300, 5), min: summary(200, 4), max: summary(400, 6) },
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
  });

  it('writes each point with its settings and spread as CSV', () => {
    const csv = sweepCsv(RESULT, PATHS, 'wakeup_latency_us.p99').split('\n');
    expect(csv[0]).toBe('policy.sis_scan.enabled,workloads.0.worker_threads,wakeup_latency_us.p99 median,wakeup_latency_us.p99 min,wakeup_latency_us.p99 max');
    expect(csv[2]).toBe('false,19,2000,900,2600');
    expect(csv).toHaveLength(8);
  });
});
