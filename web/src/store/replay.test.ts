import { describe, expect, it } from 'vitest';
import { isGzip, logVersusSimulation, presetsOf, type ReplayReport } from './replay';

const REPORT = {
  wakeup_latency_us: { p50: 50, p99: 90, max: 90 },
  migrations: { smt: 0, llc: 1, cross_llc: 0, cross_numa: 0, unclassified: 0, total: 1, source: 'sched_migrate_task', topology: 'flat' },
  utilization: 0.658,
} as unknown as ReplayReport;

describe('the Replay panel', () => {
  it('sets the log against a run summary, figure by figure', () => {
    const rows = logVersusSimulation(REPORT, {
      wakeup_latency_us: { p50: 12.3, p99: 20, max: 30 },
      migrations: { smt: 1, llc: 2, cross_llc: 0, cross_numa: 0 },
      utilization: 0.5,
    });
    expect(rows.map((row) => [row.label, row.log, row.simulation])).toEqual([
      ['wakeup latency p50', 50, 12.3],
      ['wakeup latency p99', 90, 20],
      ['wakeup latency max', 90, 30],
      ['migrations', 1, 3],
      ['utilisation', 65.8, 50],
    ]);
    // Without a summary, the simulation's figures are missing, not zero.
    expect(logVersusSimulation(REPORT, undefined).every((row) => row.simulation === undefined)).toBe(true);
  });

  it('lists the presets the bundled scenarios use, once each, and knows gzip', () => {
    expect(presetsOf(['{"topology": {"preset": "b"}}', '{"topology": {"preset": "a"}}', '{"topology": {"preset": "b"}}', 'not json'])).toEqual(['a', 'b']);
    expect(isGzip(new Uint8Array([0x1f, 0x8b, 8]))).toBe(true);
    expect(isGzip(new Uint8Array([0x23, 0x20]))).toBe(false);
  });
});
