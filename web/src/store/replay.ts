/**
 * The Replay panel's model: what the core's `replay_log` answers (the keys of
 * `schedlab replay --json`, and the what-if scenario of the log's workload),
 * the machines a log can be classed on, and the log against its re-simulation.
 * Pure: no React, no engine.
 */
import type { JsonValue } from './policy';
import { valueAtPath } from './policy';
import { formatCount, formatFixed } from '../base/format';

export function skippedText(reason: string, skip: SkipCount): string {
  const { count, first_lines: firstLines } = skip;
  const at = firstLines.length === 0 ? '' : ` (${firstLines.length === 1 ? 'line' : count > firstLines.length ? 'first at lines' : 'lines'} ${firstLines.join(', ')})`;
  // The unreadable ones each have a warning below the report.
  const see = reason === 'bad_payload' ? ' (see the warnings)' : '';
  return `${skip.label ?? reason.replaceAll('_', ' ')}${see} ${formatCount(count)}${at}`;
}

/** Lines skipped for one reason: how many, the first few, and the reason in words (absent from older reports). */
export interface SkipCount {
  readonly count: number;
  readonly first_lines: readonly number[];
  readonly label?: string;
}

export interface ReplayReport {
  readonly format: string;
  readonly lines: number;
  readonly events: Readonly<Record<string, number>>;
  readonly skipped: Readonly<Record<string, SkipCount>>;
  readonly warnings: readonly { readonly line: number; readonly message: string }[];
  readonly lost_events: number;
  readonly cpus: readonly number[];
  /** The machine's CPU count from the log's header (`#P:N`, `cpus=N`); null without one (absent from older reports). */
  readonly machine_cpus?: number | null;
  readonly tasks: Readonly<Record<string, string>>;
  readonly first_ts: number | null;
  readonly last_ts: number | null;
  readonly span_ns: number;
  readonly wakeups: number;
  readonly wakeup_latency_us: Readonly<Record<string, number>>;
  readonly migrations: {
    readonly smt: number;
    readonly llc: number;
    readonly cross_llc: number;
    readonly cross_numa: number;
    readonly unclassified: number;
    readonly total: number;
    readonly source: string;
    readonly topology: string;
  };
  /** Null for a log with no `sched_switch` line: what ran between its lines cannot be told. */
  readonly utilization: number | null;
  /** Per CPU named by `cpu_frequency` or `cpu_idle` (absent from older reports). */
  readonly power?: readonly CpuPower[];
  /** `sched_stat_runtime`: the runtime the kernel charged (absent from older reports). */
  readonly stat_runtime?: { readonly events: number; readonly total_ns: number; readonly by_pid: Readonly<Record<string, number>> };
}

export interface CpuPower {
  readonly cpu: number;
  readonly frequency: { readonly changes: number; readonly mean_mhz: number; readonly min_mhz: number; readonly max_mhz: number } | null;
  readonly idle: { readonly entries: number; readonly state_ns: readonly number[]; readonly active_ns: number } | null;
}

/** One line each for a log's frequencies, idle states and charged runtime, when it has them. */
export interface PowerSummary {
  readonly frequency?: string;
  readonly idle?: string;
  readonly runtime?: string;
}

const percent = (part: number, whole: number) => `${whole > 0 ? ((part * 100) / whole).toFixed(1) : '0.0'} %`;

/** Sums up `report.power` and `report.stat_runtime` over the CPUs and tasks. */
export function powerSummary(report: ReplayReport): PowerSummary {
  const power = report.power ?? [];
  const summary: { frequency?: string; idle?: string; runtime?: string } = {};
  const frequencies = power.flatMap((cpu) => (cpu.frequency ? [cpu.frequency] : []));
  if (frequencies.length > 0) {
    const low = Math.min(...frequencies.map((frequency) => frequency.min_mhz));
    const high = Math.max(...frequencies.map((frequency) => frequency.max_mhz));
    const mean = frequencies.reduce((sum, frequency) => sum + frequency.mean_mhz, 0) / frequencies.length;
    const changes = frequencies.reduce((sum, frequency) => sum + frequency.changes, 0);
    summary.frequency = `${frequencies.length} CPUs: ${low.toFixed(0)} to ${high.toFixed(0)} MHz, mean ${mean.toFixed(0)} MHz (${changes} changes)`;
  }
  const idles = power.flatMap((cpu) => (cpu.idle ? [cpu.idle] : []));
  if (idles.length > 0) {
    const states = Math.max(...idles.map((idle) => idle.state_ns.length));
    const byState = Array.from({ length: states }, (_, state) => idles.reduce((sum, idle) => sum + (idle.state_ns[state] ?? 0), 0));
    const active = idles.reduce((sum, idle) => sum + idle.active_ns, 0);
    const total = active + byState.reduce((sum, ns) => sum + ns, 0);
    const parts = [`active ${percent(active, total)}`, ...byState.map((ns, state) => `state ${state} ${percent(ns, total)}`)];
    summary.idle = `${idles.length} CPUs: ${parts.join(', ')}`;
  }
  const stat = report.stat_runtime;
  if (stat && stat.events > 0) {
    const tasks = Object.keys(stat.by_pid).length;
    summary.runtime = `${(stat.total_ns / 1e6).toFixed(3)} ms to ${tasks} ${tasks === 1 ? 'task' : 'tasks'} (${stat.events} ${stat.events === 1 ? 'event' : 'events'})`;
  }
  return summary;
}

export interface ReplayResult {
  readonly report: ReplayReport;
  /**
   * The what-if scenario, or null: when the log shows no task running, and always
   * from a played log, which makes it on demand (`Controller.logWhatIf`).
   */
  readonly scenario: JsonValue;
  readonly derived: { readonly tasks: number; readonly task_wakeups: number; readonly timer_wakeups: number };
}

export type ReplayOutcome = { readonly ok: true; readonly result: ReplayResult } | { readonly ok: false; readonly message: string };

/** The machine presets the bundled scenarios use, for classing a log's migrations by distance. */
export function presetsOf(scenarioTexts: readonly string[]): readonly string[] {
  const presets = new Set<string>();
  for (const text of scenarioTexts) {
    try {
      const preset = valueAtPath(JSON.parse(text) as JsonValue, 'topology.preset');
      if (typeof preset === 'string') presets.add(preset);
    } catch {
      // A bundled file that does not parse names no preset.
    }
  }
  return [...presets].sort();
}

/** The log's figures next to its re-simulation's (a `run --json` summary), for the table. */
export interface LogVersusSimulation {
  readonly label: string;
  /** Undefined where the log cannot tell (utilisation without a `sched_switch` line). */
  readonly log: number | undefined;
  readonly simulation: number | undefined;
  readonly unit: string;
}

export function logVersusSimulation(report: ReplayReport, summary: JsonValue | undefined): readonly LogVersusSimulation[] {
  const number = (path: string) => {
    const value = valueAtPath(summary, path);
    return typeof value === 'number' ? value : undefined;
  };
  const simulated = ['smt', 'llc', 'cross_llc', 'cross_numa'].map((key) => number(`migrations.${key}`));
  const migrations = simulated.every((value) => value !== undefined) ? simulated.reduce<number>((sum, value) => sum + (value ?? 0), 0) : undefined;
  const utilisation = number('utilization');
  return [
    { label: 'wakeup latency p50', log: report.wakeup_latency_us.p50 ?? 0, simulation: number('wakeup_latency_us.p50'), unit: 'us' },
    { label: 'wakeup latency p99', log: report.wakeup_latency_us.p99 ?? 0, simulation: number('wakeup_latency_us.p99'), unit: 'us' },
    { label: 'wakeup latency max', log: report.wakeup_latency_us.max ?? 0, simulation: number('wakeup_latency_us.max'), unit: 'us' },
    { label: 'migrations', log: report.migrations.total, simulation: migrations, unit: '' },
    { label: 'utilisation', log: report.utilization === null ? undefined : report.utilization * 100, simulation: utilisation === undefined ? undefined : utilisation * 100, unit: '%' },
  ];
}

/** Gzip's magic number: a `.gz` log is decompressed before it is read. */
export function isGzip(bytes: Uint8Array): boolean {
  return bytes.length >= 2 && bytes[0] === 0x1f && bytes[1] === 0x8b;
}

/** Why a log has nothing to re-simulate, beside the report's count of the tasks it names. */
export function noWorkloadText(named: number): string {
  if (named === 0) return 'The log shows no task running: there is no workload to re-simulate.';
  const them = named === 1 ? 'the task it names' : `any of the ${named} tasks it names`;
  return `The log never shows ${them} running: there is no workload to re-simulate.`;
}

/**
 * The log's wakeup latency in a line: its percentiles over the wakeups whose task
 * the log then shows switched in; a wakeup of a task already running or queued, or
 * one the log ends before, has no latency to measure.
 */
export function latencyText(report: Pick<ReplayReport, 'wakeups' | 'wakeup_latency_us'>): string {
  const { wakeups } = report;
  if (wakeups === 0) return 'no wakeup in the log';
  const counted = `${formatCount(wakeups)} ${wakeups === 1 ? 'wakeup' : 'wakeups'}`;
  const latency = report.wakeup_latency_us;
  const samples = latency.samples;
  if (samples === 0) return `none measured: no woken task is switched in within the log (${counted})`;
  const measured = samples !== undefined && samples !== wakeups ? `, ${formatCount(samples)} measured` : '';
  return `p50 ${formatFixed(latency.p50, 1)} us, p99 ${formatFixed(latency.p99, 1)} us, max ${formatFixed(latency.max, 1)} us (${counted}${measured})`;
}
