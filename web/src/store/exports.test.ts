import { describe, expect, it } from 'vitest';
import { EXPORT_KINDS, exportFileName, exportLabel, flattenNumbers, metricsCsv } from './exports';
import type { JsonValue } from './policy';

const summary: JsonValue = {
  scenario: 'teaching-small',
  seed: 42,
  trace_hash: 'f4e3fa397a5e4040',
  wakeup_latency_us: { p50: 12.303, p99: 1353.727, p99_9: 2371.583, samples: 3344 },
  throughput: { unit: 'requests/s', value: 1668.0 },
  locks: [{ class: '&rq->__lock', contentions: 163, contention_points: { '__schedule': 43, 'odd,name "x"': 1 } }],
  migrations: { smt: 531, cross_numa: 0 },
  features: { SIS_UTIL: true, busy_factor: 16 },
  nothing: null,
};

describe('metrics as CSV', () => {
  it('flattens every number to a dotted key, arrays by index, and leaves out text, booleans and nulls', () => {
    expect(flattenNumbers(summary)).toEqual([
      ['seed', 42],
      ['wakeup_latency_us.p50', 12.303],
      ['wakeup_latency_us.p99', 1353.727],
      ['wakeup_latency_us.p99_9', 2371.583],
      ['wakeup_latency_us.samples', 3344],
      ['throughput.value', 1668],
      ['locks.0.contentions', 163],
      ['locks.0.contention_points.__schedule', 43],
      ['locks.0.contention_points.odd,name "x"', 1],
      ['migrations.smt', 531],
      ['migrations.cross_numa', 0],
      ['features.busy_factor', 16],
    ]);
  });

  it('writes a key,value header and one row per number, quoting a key that needs it', () => {
    const csv = metricsCsv(summary);
    const rows = csv.trimEnd().split('\n');
    expect(rows[0]).toBe('key,value');
    expect(rows).toContain('wakeup_latency_us.p99,1353.727');
    expect(rows).toContain('migrations.cross_numa,0');
    expect(rows).toContain('"locks.0.contention_points.odd,name ""x""",1');
    expect(rows).toHaveLength(1 + 12);
    expect(csv.endsWith('\n')).toBe(true);
  });

  it('has no rows for a value without numbers', () => {
    expect(metricsCsv({})).toBe('key,value\n');
    expect(flattenNumbers(5)).toEqual([]);
  });
});

describe('export file names', () => {
  it('carry the scenario and the seed, and a suffix per kind', () => {
    expect(exportFileName('teaching-small', 42, 'trace')).toBe('schedlab-teaching-small-seed42-trace.txt');
    expect(exportFileName('teaching-small', 42, 'metrics-csv')).toBe('schedlab-teaching-small-seed42-metrics.csv');
    expect(exportFileName('edited', undefined, 'machine-svg')).toBe('schedlab-edited-machine.svg');
    expect(exportFileName('../a b/c', 1, 'timeline-png')).toBe('schedlab-a_b_c-seed1-timeline.png');
    const names = EXPORT_KINDS.map((kind) => exportFileName('s', 1, kind));
    expect(new Set(names).size).toBe(EXPORT_KINDS.length);
    expect(new Set(EXPORT_KINDS.map(exportLabel)).size).toBe(EXPORT_KINDS.length);
  });
});
