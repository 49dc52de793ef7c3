/**
 * Sweeps in the app: the form's text read as `schedlab sweep` arguments, the
 * sweeps the docs run for each bundled scenario, the result arranged for the
 * plot (one line per value of the other varied fields, each point's median with
 * its min..max over seeds), and the same sweep as a CLI command and as CSV.
 * Pure: no React, no engine.
 */
import type { ScenarioProblem } from '../engine/protocol';
import type { SweepResult } from '../engine/sweepProtocol';
import { flattenNumbers } from './exports';
import { isObject, settingText, shellWord, valueAtPath, type JsonValue, type PolicyOverrides } from './policy';

/** What the Sweep form holds. */
export interface SweepForm {
  /** One `PATH=VALUES` per line (a leading `--vary` is allowed); the first varies slowest. */
  readonly vary: string;
  readonly seeds: string;
}

/** The app refuses bigger sweeps (the CLI runs them on every core). */
export const MAX_BROWSER_RUNS = 400;

/**
 * The sweeps the docs run, by bundled scenario (`docs/policies/*.md`), narrowed
 * where the docs' grid would take minutes in a browser.
 */
const SUGGESTED: readonly { readonly match: RegExp; readonly form: SweepForm; readonly metric: string; readonly show?: PlotShow }[] = [
  { match: /^sis-schbench/, form: { vary: 'policy.sis_scan.enabled=false,true\nworkloads.0.worker_threads=16..22', seeds: '1..5' }, metric: 'wakeup_latency_us.p99' },
  { match: /^sis-netperf/, form: { vary: 'policy.sis_scan.enabled=false,true\npolicy.sis_scan.gate=true,false', seeds: '1..5' }, metric: 'throughput.value' },
  { match: /^turbo-bench/, form: { vary: 'policy.turbo_pack.enabled=false,true\nworkloads.0.cpu_bound=2..24', seeds: '1..5' }, metric: 'throughput.value', show: 'change' },
  { match: /^stream/, form: { vary: 'policy.numa_affinity.enabled=false,true', seeds: '1..5' }, metric: 'throughput.value' },
  // Experiment 1's finding: SIS_UTIL's cut scan decides which way SHARED_RUNQ moves the LLC gap.
  { match: /^shared-runq-kcompile/, form: { vary: 'policy.shared_runq.mode=off,all\nfeatures.SIS_UTIL=true,false', seeds: '1..5' }, metric: 'idle_while_runnable_ns.llc' },
  { match: /^shared-runq-hackbench/, form: { vary: 'policy.shared_runq.mode=off,wakeups,all\nworkloads.0.groups=1,2,4', seeds: '1..5' }, metric: 'throughput.value' },
  { match: /^shared-runq/, form: { vary: 'policy.shared_runq.mode=off,wakeups,all', seeds: '1..5' }, metric: 'throughput.value' },
];

const DEFAULT_FORM: SweepForm = { vary: 'kernel=4.6,5.2,5.18,6.5', seeds: '1..5' };
export const DEFAULT_METRIC = 'wakeup_latency_us.p99';

/** What the plot's y axis shows: the metric itself, or each line's change against the first, in %. */
export type PlotShow = 'values' | 'change';

/** The docs' sweep for a scenario, or a sweep over kernel versions. */
export function suggestedSweep(scenarioId: string): { readonly form: SweepForm; readonly metric: string; readonly show: PlotShow } {
  const found = SUGGESTED.find((entry) => entry.match.test(scenarioId));
  return found ? { form: found.form, metric: found.metric, show: found.show ?? 'values' } : { form: DEFAULT_FORM, metric: DEFAULT_METRIC, show: 'values' };
}

/**
 * The form's vary lines as `--vary` arguments: blank lines and `#` comments
 * skipped, a leading `--vary` dropped. The core checks paths and values; this
 * says only what is wrong with a line's shape, by its line number.
 */
export function varyLines(text: string): { readonly lines: readonly string[]; readonly problems: readonly ScenarioProblem[] } {
  const lines: string[] = [];
  const problems: ScenarioProblem[] = [];
  text.split('\n').forEach((raw, index) => {
    const line = raw.trim().replace(/^--vary(\s+|=)/, '');
    if (line === '' || line.startsWith('#')) return;
    const equals = line.indexOf('=');
    if (equals <= 0) problems.push({ path: `vary line ${index + 1}`, message: `expected PATH=V1,V2,... or PATH=A..B, got \`${line}\`` });
    else if (line.slice(equals + 1).trim() === '') problems.push({ path: `vary line ${index + 1}`, message: `\`${line.slice(0, equals)}\` has no values after =` });
    else lines.push(line);
  });
  if (lines.length === 0 && problems.length === 0) problems.push({ path: 'vary', message: 'name at least one field to vary, as PATH=VALUES' });
  return { lines, problems };
}

/** The dotted path a `PATH=VALUES` line varies. */
export function varyPath(line: string): string {
  return line.slice(0, line.indexOf('=')).trim();
}

/** The same sweep on the command line (`--set` for each of the Policy panel's settings). */
export function sweepCommand(scenario: string, overrides: PolicyOverrides, vary: readonly string[], seeds: string): string {
  const quote = shellWord;
  const parts = ['schedlab sweep', quote(scenario)];
  for (const [path, value] of Object.entries(overrides)) parts.push('--set', quote(`${path}=${settingText(value)}`));
  for (const line of vary) parts.push('--vary', quote(line));
  parts.push('--seeds', quote(seeds.trim()), '--json');
  return parts.join(' ');
}

/** One point of a plotted line: its x, and the metric's median, min and max over seeds. */
export interface PlotPoint {
  readonly x: number | string;
  readonly median: number;
  readonly min: number;
  readonly max: number;
}

/** A line: the points sharing the values of the fields that are not on the x axis. */
export interface PlotSeries {
  /** `policy.sis_scan.enabled=true`, or `all runs` when only the x axis varies. */
  readonly label: string;
  readonly points: readonly PlotPoint[];
}

export interface SweepPlot {
  readonly xPath: string;
  /** True when every x is a number: a linear axis; else the values in sweep order. */
  readonly numericX: boolean;
  readonly metric: string;
  readonly series: readonly PlotSeries[];
}

function show(value: unknown): string {
  return typeof value === 'string' ? value : JSON.stringify(value);
}

/** The number at a dotted path, which may index arrays (`locks.1.contentions`), as `flattenNumbers` names them. */
function numberAt(value: JsonValue, path: string): number | undefined {
  let node: JsonValue | undefined = value;
  for (const key of path.split('.')) {
    if (Array.isArray(node)) node = (node as readonly JsonValue[])[Number(key)];
    else if (isObject(node)) node = node[key];
    else return undefined;
  }
  return typeof node === 'number' ? node : undefined;
}

/**
 * The field the plot puts on the x axis: the varied field with the most values
 * whose values are all numbers (worker threads, N), else the one varying fastest.
 */
export function defaultXPath(result: SweepResult, paths: readonly string[]): string {
  let best: string | undefined;
  let bestCount = 0;
  for (const path of paths) {
    const values = new Set(result.points.map((point) => show(point.set[path])));
    const numeric = result.points.every((point) => typeof point.set[path] === 'number');
    if (numeric && values.size > bestCount) {
      best = path;
      bestCount = values.size;
    }
  }
  return best ?? paths[paths.length - 1] ?? '';
}

/** The result as lines of `metric` against `xPath`; a point whose runs lack the metric is left out. */
export function sweepPlot(result: SweepResult, paths: readonly string[], xPath: string, metric: string): SweepPlot {
  const others = paths.filter((path) => path !== xPath);
  const byLabel = new Map<string, PlotPoint[]>();
  for (const point of result.points) {
    const label = others.length === 0 ? 'all runs' : others.map((path) => `${path}=${show(point.set[path])}`).join(' ');
    const median = numberAt(point.median, metric);
    const min = numberAt(point.min, metric);
    const max = numberAt(point.max, metric);
    const x = point.set[xPath];
    if (median === undefined || min === undefined || max === undefined) continue;
    const list = byLabel.get(label) ?? [];
    list.push({ x: typeof x === 'number' ? x : show(x), median, min, max });
    byLabel.set(label, list);
  }
  const numericX = result.points.every((point) => typeof point.set[xPath] === 'number');
  const series = [...byLabel].map(([label, points]) => ({
    label,
    points: numericX ? [...points].sort((a, b) => Number(a.x) - Number(b.x)) : points,
  }));
  return { xPath, numericX, metric, series };
}

/**
 * The change of each line against the first (the baseline: `packing off`), in %,
 * per x: per seed `(line - baseline) / baseline`, paired by seed (the same seed
 * runs the same workload under both settings), then the median, min and max over
 * seeds, as the seeds' papers chart a patch's benefit. Lines whose baseline point
 * is missing or 0 are left out at that x.
 */
export function changePlot(plot: SweepPlot, result: SweepResult, paths: readonly string[]): SweepPlot {
  const [baseline, ...others] = plot.series;
  if (!baseline || others.length === 0) return { ...plot, series: [] };
  const otherPaths = paths.filter((path) => path !== plot.xPath);
  const labelOf = (point: SweepResult['points'][number]) =>
    otherPaths.length === 0 ? 'all runs' : otherPaths.map((path) => `${path}=${show(point.set[path])}`).join(' ');
  const xOf = (point: SweepResult['points'][number]) => {
    const x = point.set[plot.xPath];
    return typeof x === 'number' ? x : show(x);
  };
  const find = (label: string, x: number | string) => result.points.find((point) => labelOf(point) === label && xOf(point) === x);
  const series = others.map((line) => ({
    label: `${line.label} vs ${baseline.label}`,
    points: line.points.flatMap((linePoint) => {
      const base = find(baseline.label, linePoint.x);
      const mine = find(line.label, linePoint.x);
      if (!base || !mine) return [];
      const changes = result.seeds.flatMap((_, seed) => {
        const a = numberAt(base.runs[seed] ?? null, plot.metric);
        const b = numberAt(mine.runs[seed] ?? null, plot.metric);
        return a === undefined || b === undefined || a === 0 ? [] : [((b - a) / Math.abs(a)) * 100];
      });
      if (changes.length === 0) return [];
      const sorted = [...changes].sort((p, q) => p - q);
      const middle = sorted.length / 2;
      const median = sorted.length % 2 === 1 ? (sorted[Math.floor(middle)] ?? 0) : ((sorted[middle - 1] ?? 0) + (sorted[middle] ?? 0)) / 2;
      return [{ x: linePoint.x, median, min: sorted[0] ?? 0, max: sorted[sorted.length - 1] ?? 0 }];
    }),
  }));
  return { ...plot, series };
}

/** The metrics a sweep can plot: every number in its summaries, the headline ones first. */
export function metricChoices(result: SweepResult): readonly string[] {
  // Every point's numbers: a point with SHARED_RUNQ off has no shard lock, another has.
  const seen = new Set<string>();
  for (const point of result.points) for (const [key] of flattenNumbers(point.median)) seen.add(key);
  const all = [...seen].filter((key) => !['seed', 'sim_time_ns'].includes(key) && !key.startsWith('features.'));
  const headline = ['wakeup_latency_us.p99', 'wakeup_latency_us.p50', 'throughput.value', 'utilization', 'avg_freq_mhz'].filter((key) => all.includes(key));
  return [...headline, ...all.filter((key) => !headline.includes(key))];
}

/** A metric's name with its unit, for the axis: `wakeup_latency_us.p99` → `p99 wakeup latency (us)`. */
export function metricLabel(metric: string, result: SweepResult | undefined): string {
  if (metric === 'wakeup_latency_us.samples') return 'wakeup latency samples';
  const latency = /^wakeup_latency_us\.(\w+)$/.exec(metric);
  if (latency) return `${(latency[1] ?? '').replace(/^(p\d+)_(\d)$/, '$1.$2')} wakeup latency (us)`;
  const lock = /^locks\.(\d+)\.(.+)$/.exec(metric);
  if (lock) return lockMetricLabel(lockClass(result, Number(lock[1])), lock[2] ?? '');
  const workload = /^throughput_by_workload\.(\d+)\.values\.(\d+)\.value$/.exec(metric);
  if (workload) {
    const entry = result?.points.map((point) => workloadEntry(point.median, Number(workload[1]), Number(workload[2]))).find((found) => found !== undefined);
    return entry ? `throughput of ${entry.workload} (${entry.unit})` : metric;
  }
  if (metric === 'throughput.value') {
    const unit = result?.points[0] ? valueAtPath(result.points[0].median, 'throughput.unit') : undefined;
    return typeof unit === 'string' ? `throughput (${unit})` : 'throughput';
  }
  if (metric === 'utilization') return 'utilisation (0..1)';
  if (metric === 'avg_freq_mhz') return 'average frequency (MHz)';
  return NAMED_METRICS[metric] ?? metric;
}

/** The other metrics a run reports, in words with their unit (short: the plot's y axis is about 250 px). */
const NAMED_METRICS: Readonly<Record<string, string>> = {
  'idle_while_runnable_ns.llc': 'idle while a task waits, LLC (ns)',
  'idle_while_runnable_ns.machine': 'idle while a task waits, machine (ns)',
  sched_overhead_ns: 'scheduler overhead (ns)',
  cache_refill_ns: 'cache refill after moves (ns)',
  context_switches: 'context switches',
  wakeups: 'wakeups',
  'migrations.smt': 'migrations to an SMT sibling',
  'migrations.llc': 'migrations within an LLC',
  'migrations.cross_llc': 'migrations across LLCs',
  'migrations.cross_numa': 'migrations across NUMA nodes',
  events: 'simulation events',
  trace_events: 'trace records',
  'bandwidth.nr_periods': 'CFS bandwidth periods',
  'bandwidth.nr_throttled': 'CFS bandwidth periods throttled',
  'bandwidth.throttled_usec': 'time throttled (us)',
  'bandwidth.throttles': 'cfs_rq throttles',
  'bandwidth.unthrottles': 'cfs_rq unthrottles',
  'bandwidth.tg_walk_visits': 'cfs_rqs visited by throttle walks',
  'bandwidth.blocked_updates': 'update_blocked_averages passes',
  'bandwidth.blocked_visits': 'cfs_rqs visited by update_blocked_averages',
};

/** lock_stat's columns in words, with their unit. */
const LOCK_FIELDS: Readonly<Record<string, string>> = {
  contentions: 'contentions',
  acquisitions: 'acquisitions',
  con_bounces: 'contentions on a bounced line',
  acq_bounces: 'acquisitions of a bounced line',
  waittime_min_ns: 'shortest wait (ns)',
  waittime_max_ns: 'longest wait (ns)',
  waittime_total_ns: 'total wait (ns)',
  waittime_avg_ns: 'average wait (ns)',
  holdtime_min_ns: 'shortest hold (ns)',
  holdtime_max_ns: 'longest hold (ns)',
  holdtime_total_ns: 'total hold (ns)',
  holdtime_avg_ns: 'average hold (ns)',
};

function lockMetricLabel(lockClassName: string, field: string): string {
  const site = /^(contention|contending)_points\.(.+)$/.exec(field);
  if (site) {
    return site[1] === 'contention' ? `${lockClassName} contentions, waiter in ${site[2] ?? ''}` : `${lockClassName} contentions, holder in ${site[2] ?? ''}`;
  }
  return `${lockClassName} ${LOCK_FIELDS[field] ?? field}`;
}

/** The class of the `index`th lock_stat row (`&rq->__lock`), from any point that has it. */
function lockClass(result: SweepResult | undefined, index: number): string {
  for (const point of result?.points ?? []) {
    const locks = isObject(point.median) ? point.median.locks : undefined;
    const row = Array.isArray(locks) ? locks[index] : undefined;
    if (isObject(row) && typeof row.class === 'string') return row.class;
  }
  return `lock ${index}`;
}

function workloadEntry(median: JsonValue, workload: number, value: number): { workload: string; unit: string } | undefined {
  const list = isObject(median) ? median.throughput_by_workload : undefined;
  const entry = Array.isArray(list) ? list[workload] : undefined;
  if (!isObject(entry) || typeof entry.workload !== 'string' || !Array.isArray(entry.values)) return undefined;
  const found = entry.values[value];
  return isObject(found) && typeof found.unit === 'string' ? { workload: entry.workload, unit: found.unit } : undefined;
}


function csvField(text: string): string {
  return /[",\r\n]/.test(text) ? `"${text.replace(/"/g, '""')}"` : text;
}

/** One row per point: its settings, then the metric's median, min and max over seeds. */
export function sweepCsv(result: SweepResult, paths: readonly string[], metric: string): string {
  const header = [...paths, `${metric} median`, `${metric} min`, `${metric} max`].map(csvField).join(',');
  const rows = result.points.map((point) =>
    [
      ...paths.map((path) => show(point.set[path])),
      ...[point.median, point.min, point.max].map((value) => {
        const found = numberAt(value, metric);
        return found === undefined ? '' : String(found);
      }),
    ]
      .map(csvField)
      .join(','),
  );
  return [header, ...rows].join('\n') + '\n';
}
