/**
 * Compare mode's model: the metrics diff table (A, B and the change, from the two
 * runs' summaries, the very keys `schedlab run --json` prints), what B's settings
 * change from A's, and the table as Markdown for a mailing-list post. Pure: no
 * React, no engine.
 */
import { changedSettings, formatSetting, sameSetting, valueAtPath, type JsonValue, type PolicyGroup, type PolicyOverrides, type SettingValue } from './policy';

/** Which way is better for a figure; undefined when neither is. */
export type Better = 'lower' | 'higher' | undefined;

export interface CompareRow {
  readonly group: string;
  readonly label: string;
  readonly unit: string;
  readonly a: number | undefined;
  readonly b: number | undefined;
  /** (B - A) / A in %, undefined when A is 0 or either is missing. */
  readonly changePct: number | undefined;
  readonly better: Better;
  /** Digits after the point when shown. */
  readonly digits: number;
}

interface RowSpec {
  readonly group: string;
  readonly label: string;
  readonly path: string;
  readonly unit: string;
  readonly better: Better;
  readonly digits: number;
  /** Multiplies the summary's figure (a share as %). */
  readonly scale?: number;
  /** Only when the figure is in both summaries (the power model's). */
  readonly optional?: boolean;
}

const LATENCY: readonly RowSpec[] = (
  [
    ['p50', 'p50'],
    ['p90', 'p90'],
    ['p99', 'p99'],
    ['p99.9', 'p99_9'],
    ['max', 'max'],
  ] as const
).map(([label, key]) => ({ group: 'wakeup latency', label, path: `wakeup_latency_us.${key}`, unit: 'us', better: 'lower', digits: 1 }));

const SPECS: readonly RowSpec[] = [
  ...LATENCY,
  { group: 'CPU', label: 'utilisation', path: 'utilization', unit: '%', better: undefined, digits: 1, scale: 100 },
  { group: 'CPU', label: 'idle while runnable (LLC)', path: 'idle_while_runnable_ns.llc', unit: 'ms', better: 'lower', digits: 3, scale: 1e-6 },
  { group: 'CPU', label: 'idle while runnable (machine)', path: 'idle_while_runnable_ns.machine', unit: 'ms', better: 'lower', digits: 3, scale: 1e-6 },
  { group: 'CPU', label: 'context switches', path: 'context_switches', unit: '', better: undefined, digits: 0 },
  { group: 'CPU', label: 'wakeups', path: 'wakeups', unit: '', better: undefined, digits: 0 },
  { group: 'migrations', label: 'SMT sibling', path: 'migrations.smt', unit: '', better: undefined, digits: 0 },
  { group: 'migrations', label: 'within LLC', path: 'migrations.llc', unit: '', better: undefined, digits: 0 },
  { group: 'migrations', label: 'cross-LLC', path: 'migrations.cross_llc', unit: '', better: 'lower', digits: 0 },
  { group: 'migrations', label: 'cross-NUMA', path: 'migrations.cross_numa', unit: '', better: 'lower', digits: 0 },
  { group: 'frequency', label: 'average frequency', path: 'avg_freq_mhz', unit: 'MHz', better: 'higher', digits: 0 },
  { group: 'frequency', label: 'cores in deep idle (avg)', path: 'power.avg_deep_idle_cores', unit: '', better: undefined, digits: 2, optional: true },
];

function numberAt(summary: JsonValue | undefined, path: string): number | undefined {
  const value = valueAtPath(summary, path);
  return typeof value === 'number' ? value : undefined;
}

function row(spec: Omit<RowSpec, 'path' | 'scale' | 'optional'>, a: number | undefined, b: number | undefined): CompareRow {
  const changePct = a !== undefined && b !== undefined && a !== 0 ? ((b - a) / Math.abs(a)) * 100 : undefined;
  return { group: spec.group, label: spec.label, unit: spec.unit, a, b, changePct, better: spec.better, digits: spec.digits };
}

/** Each workload's headline figures: throughput (higher is better) or time to finish (lower). */
function throughputRows(a: JsonValue | undefined, b: JsonValue | undefined): CompareRow[] {
  const list = (summary: JsonValue | undefined) => {
    const value = valueAtPath(summary, 'throughput_by_workload');
    return Array.isArray(value) ? (value as readonly JsonValue[]) : [];
  };
  const rows: CompareRow[] = [];
  const workloadsA = list(a);
  const workloadsB = list(b);
  workloadsA.forEach((workload, index) => {
    const name = valueAtPath(workload, 'workload');
    const valuesA = valueAtPath(workload, 'values');
    const valuesB = valueAtPath(workloadsB[index], 'values');
    if (!Array.isArray(valuesA)) return;
    (valuesA as readonly JsonValue[]).forEach((entry, position) => {
      const unit = valueAtPath(entry, 'unit');
      const other = Array.isArray(valuesB) ? (valuesB as readonly JsonValue[])[position] : undefined;
      const unitText = typeof unit === 'string' ? unit : '';
      rows.push(
        row(
          {
            group: 'throughput',
            label: workloadsA.length > 1 && typeof name === 'string' ? name : 'throughput',
            unit: unitText,
            better: unitText === 's' ? 'lower' : 'higher',
            digits: unitText === 's' ? 3 : 1,
          },
          numberAt(entry, 'value'),
          numberAt(other, 'value'),
        ),
      );
    });
  });
  return rows;
}

/** The `&rq->__lock` share of acquisitions that waited, in %. */
function lockRow(a: JsonValue | undefined, b: JsonValue | undefined): CompareRow[] {
  const contended = (summary: JsonValue | undefined): number | undefined => {
    const locks = valueAtPath(summary, 'locks');
    if (!Array.isArray(locks)) return undefined;
    const rq = (locks as readonly JsonValue[]).find((lock) => valueAtPath(lock, 'class') === '&rq->__lock');
    const acquisitions = numberAt(rq, 'acquisitions');
    const contentions = numberAt(rq, 'contentions');
    if (acquisitions === undefined || contentions === undefined) return undefined;
    return acquisitions > 0 ? (100 * contentions) / acquisitions : 0;
  };
  return [row({ group: 'lock contention', label: 'rq lock acquisitions that waited', unit: '%', better: 'lower', digits: 2 }, contended(a), contended(b))];
}

/** The diff table: latency, throughput, CPU, migrations by distance, lock contention, frequency. */
export function compareRows(a: JsonValue | undefined, b: JsonValue | undefined): readonly CompareRow[] {
  const fixed = SPECS.flatMap((spec) => {
    const scale = spec.scale ?? 1;
    const valueA = numberAt(a, spec.path);
    const valueB = numberAt(b, spec.path);
    if (spec.optional && (valueA === undefined || valueB === undefined)) return [];
    return [row(spec, valueA === undefined ? undefined : valueA * scale, valueB === undefined ? undefined : valueB * scale)];
  });
  const latency = fixed.filter((entry) => entry.group === 'wakeup latency');
  const rest = fixed.filter((entry) => entry.group !== 'wakeup latency');
  const cpu = rest.filter((entry) => entry.group === 'CPU' || entry.group === 'migrations');
  const frequency = rest.filter((entry) => entry.group === 'frequency');
  return [...latency, ...throughputRows(a, b), ...cpu, ...lockRow(a, b), ...frequency];
}

/** Whether B's change is for the better, the worse, or neither (within 0.05 %). */
export function verdict(entry: CompareRow): 'better' | 'worse' | 'same' | undefined {
  if (entry.changePct === undefined || entry.better === undefined) return undefined;
  if (Math.abs(entry.changePct) < 0.05) return 'same';
  return (entry.changePct < 0) === (entry.better === 'lower') ? 'better' : 'worse';
}

export function formatValue(value: number | undefined, digits: number): string {
  if (value === undefined) return '—';
  return value.toLocaleString('en-US', { minimumFractionDigits: digits, maximumFractionDigits: digits });
}

export function formatChange(entry: CompareRow): string {
  if (entry.changePct === undefined) {
    if (entry.a === 0 && entry.b !== undefined && entry.b !== 0) return 'new';
    return entry.a === entry.b ? '0.0 %' : '—';
  }
  const sign = entry.changePct > 0 ? '+' : entry.changePct < 0 ? '−' : '';
  return `${sign}${Math.abs(entry.changePct).toFixed(1)} %`;
}

/** A setting that differs between A and B. */
export interface SettingDiff {
  readonly path: string;
  readonly a: SettingValue | undefined;
  readonly b: SettingValue | undefined;
}

/** The settings B changes from A: each path either overrides, with the file's value where one leaves it alone. */
export function settingDiffs(groups: readonly PolicyGroup[], file: JsonValue | undefined, a: PolicyOverrides, b: PolicyOverrides): readonly SettingDiff[] {
  const valueOf = (overrides: PolicyOverrides) => new Map(changedSettings(groups, file, overrides).map((entry) => [entry.path, entry] as const));
  const inA = valueOf(a);
  const inB = valueOf(b);
  const paths = [...new Set([...inA.keys(), ...inB.keys()])];
  return paths.flatMap((path) => {
    const entryA = inA.get(path);
    const entryB = inB.get(path);
    const valueA = entryA ? entryA.value : entryB?.file;
    const valueB = entryB ? entryB.value : entryA?.file;
    return sameSetting(valueA, valueB) ? [] : [{ path, a: valueA, b: valueB }];
  });
}

export function describeDiff(diff: SettingDiff): string {
  return `${diff.path}: ${formatSetting(diff.a)} → ${formatSetting(diff.b)}`;
}

/** What the Markdown table's header says about the runs. */
export interface CompareHeading {
  readonly scenario: string;
  readonly seed: number | undefined;
  readonly timeS: string;
  readonly diffs: readonly SettingDiff[];
}

/** The table as Markdown, for pasting into a mailing-list post or an issue. */
export function compareMarkdown(heading: CompareHeading, rows: readonly CompareRow[]): string {
  const lines = [
    `schedlab compare: ${heading.scenario}${heading.seed === undefined ? '' : `, seed ${heading.seed}`}, at ${heading.timeS} s simulated`,
    '',
    heading.diffs.length === 0 ? 'B differs from A by: nothing (the same settings)' : `B differs from A by: ${heading.diffs.map(describeDiff).join('; ')}`,
    '',
    '| metric | A | B | change |',
    '|:--|--:|--:|--:|',
    ...rows.map((entry) => {
      const unit = entry.unit === '' ? '' : ` (${entry.unit})`;
      return `| ${entry.group}: ${entry.label}${unit} | ${formatValue(entry.a, entry.digits)} | ${formatValue(entry.b, entry.digits)} | ${formatChange(entry)} |`;
    }),
  ];
  return lines.join('\n') + '\n';
}
