import { describe, expect, it } from 'vitest';
import { isGzip, latencyText, logVersusSimulation, noWorkloadText, powerSummary, presetsOf, skippedText, type ReplayReport } from './replay';

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
    // A log without a switch line has no utilisation: missing too, not zero.
    const noSwitches = { ...REPORT, utilization: null } as ReplayReport;
    expect(logVersusSimulation(noSwitches, { utilization: 0.5 }).find((row) => row.label === 'utilisation')).toMatchObject({ log: undefined, simulation: 50 });
  });

  it('lists the presets the bundled scenarios use, once each, and knows gzip', () => {
    expect(presetsOf(['{"topology": {"preset": "b"}}', '{"topology": {"preset": "a"}}', '{"topology": {"preset": "b"}}', 'not json'])).toEqual(['a', 'b']);
    expect(isGzip(new Uint8Array([0x1f, 0x8b, 8]))).toBe(true);
    expect(isGzip(new Uint8Array([0x23, 0x20]))).toBe(false);
  });

  it('sums up a log\'s frequencies, idle states and charged runtime over its CPUs', () => {
    // The figures `schedlab replay --json` gives for tests/fixtures/ftrace/power_events.txt.
    const report = {
      ...REPORT,
      power: [
        { cpu: 0, frequency: { changes: 2, mean_mhz: 2100, min_mhz: 1200, max_mhz: 2400 }, idle: { entries: 2, state_ns: [0, 390_000], active_ns: 210_000 } },
        { cpu: 1, frequency: { changes: 1, mean_mhz: 2400, min_mhz: 2400, max_mhz: 2400 }, idle: { entries: 2, state_ns: [0, 0, 400_000], active_ns: 200_000 } },
      ],
      stat_runtime: { events: 1, total_ns: 190_000, by_pid: { '500': 190_000 } },
    } as ReplayReport;
    expect(powerSummary(report)).toEqual({
      frequency: '2 CPUs: 1200 to 2400 MHz, mean 2250 MHz (3 changes)',
      idle: '2 CPUs: active 34.2 %, state 0 0.0 %, state 1 32.5 %, state 2 33.3 %',
      runtime: '0.190 ms to 1 task (1 event)',
    });
    // A log without them, or a report from before they were read: nothing to say.
    expect(powerSummary(REPORT)).toEqual({});
    expect(powerSummary({ ...REPORT, power: [{ cpu: 3, frequency: null, idle: null }], stat_runtime: { events: 0, total_ns: 0, by_pid: {} } } as ReplayReport)).toEqual({});
  });
});

describe('a log with nothing to re-simulate', () => {
  it('says so beside the tasks the report names', () => {
    expect(noWorkloadText(0)).toBe('The log shows no task running: there is no workload to re-simulate.');
    expect(noWorkloadText(1)).toBe('The log never shows the task it names running: there is no workload to re-simulate.');
    expect(noWorkloadText(3)).toBe('The log never shows any of the 3 tasks it names running: there is no workload to re-simulate.');
  });
});

describe('the log\'s wakeup latency', () => {
  it('is measured only over wakeups whose task the log shows switched in', () => {
    expect(latencyText({ wakeups: 0, wakeup_latency_us: { samples: 0 } })).toBe('no wakeup in the log');
    expect(latencyText({ wakeups: 1, wakeup_latency_us: { p50: 0, p99: 0, max: 0, samples: 0 } })).toBe(
      'none measured: no woken task is switched in within the log (1 wakeup)',
    );
    expect(latencyText({ wakeups: 1200, wakeup_latency_us: { p50: 3, p99: 41.25, max: 90, samples: 1100 } })).toBe(
      'p50 3.0 us, p99 41.3 us, max 90.0 us (1,200 wakeups, 1,100 measured)',
    );
    expect(latencyText({ wakeups: 2, wakeup_latency_us: { p50: 5, p99: 6, max: 6, samples: 2 } })).toBe('p50 5.0 us, p99 6.0 us, max 6.0 us (2 wakeups)');
  });
});

describe('skippedText', () => {
  it('names each kind of skipped line in the core\'s words, with the lines it lists', () => {
    expect(skippedText('bad_payload', { count: 2, first_lines: [5, 6], label: 'scheduler events that could not be read' })).toBe(
      'scheduler events that could not be read (see the warnings) 2 (lines 5, 6)',
    );
    expect(skippedText('unrecognised', { count: 11, first_lines: [5, 6, 7, 8, 9], label: 'lines that are not trace events' })).toBe(
      'lines that are not trace events 11 (first at lines 5, 6, 7, 8, 9)',
    );
    expect(skippedText('too_long', { count: 1, first_lines: [1], label: 'lines too long to read' })).toBe('lines too long to read 1 (line 1)');
    // A report from before the labels: the key in words.
    expect(skippedText('some_new_reason', { count: 3, first_lines: [] })).toBe('some new reason 3');
  });
});
