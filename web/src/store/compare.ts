/**
 * Compare mode's model: the metrics diff table (A, B and the change, from the two
 * runs' summaries, the very keys `schedlab run --json` prints), what B's settings
 * change from A's, and the table as Markdown for a mailing-list post. Pure: no
 * React, no engine.
 */
import { formatFixed } from '../base/format';
import { allControls, changedSettings, currentSetting, formatSetting, sameSetting, valueAtPath, type JsonValue, type PolicyControl, type PolicyGroup, type PolicyOverrides, type SettingValue } from './policy';

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
  return { group: spec.group, label: spec.label, unit: spec.unit, a, b, changePct, better: spec.better, digits: telling(a, b, spec.digits) };
}

/**
 * The digits that tell A from B: `digits`, or up to two more when the values differ
 * but would show the same (1.23 against 1.23 beside a change of -0.6 %).
 */
function telling(a: number | undefined, b: number | undefined, digits: number): number {
  if (a === undefined || b === undefined || a === b) return digits;
  let shown = digits;
  while (shown < digits + 2 && formatFixed(a, shown) === formatFixed(b, shown)) shown += 1;
  return shown;
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

/** A figure with `digits` decimals, a dash when absent (`formatFixed`). */
export const formatValue = formatFixed;

export function formatChange(entry: CompareRow): string {
  if (entry.changePct === undefined) {
    if (entry.a === 0 && entry.b !== undefined && entry.b !== 0) return 'new';
    return entry.a === entry.b ? '0.0 %' : '—';
  }
  const shown = Math.abs(entry.changePct).toFixed(1);
  // A change that rounds to 0.0 has no sign (not "−0.0 %").
  const sign = shown === '0.0' ? '' : entry.changePct > 0 ? '+' : '−';
  return `${sign}${shown} %`;
}

/** A setting that differs between A and B. */
export interface SettingDiff {
  readonly path: string;
  readonly a: SettingValue | undefined;
  readonly b: SettingValue | undefined;
}

/**
 * The settings B changes from A, each side's values as it runs them: `groupsA` and
 * `groupsB` are the Policy controls for each side's kernel (a `features.*` default
 * is the kernel's), so each path's value is the side's override, else the file's
 * under that side's kernel. When the kernels differ, a `features.*` path either
 * side sets is listed even where the two values agree, since it is what keeps that
 * side's path as it is under the other kernel.
 */
export function settingDiffs(
  groupsA: readonly PolicyGroup[],
  groupsB: readonly PolicyGroup[],
  file: JsonValue | undefined,
  a: PolicyOverrides,
  b: PolicyOverrides,
): readonly SettingDiff[] {
  const controlsA = new Map(allControls(groupsA).map((control) => [control.path, control] as const));
  const controlsB = new Map(allControls(groupsB).map((control) => [control.path, control] as const));
  const value = (controls: ReadonlyMap<string, PolicyControl>, overrides: PolicyOverrides, path: string) => {
    const control = controls.get(path);
    return control ? currentSetting(control, file, overrides) : overrides[path];
  };
  const kernelsDiffer = !sameSetting(value(controlsA, a, 'kernel'), value(controlsB, b, 'kernel'));
  const explicit = new Set(kernelsDiffer ? [...Object.keys(a), ...Object.keys(b)].filter((path) => path.startsWith('features.')) : []);
  const changed = new Set([...changedSettings(groupsA, file, a), ...changedSettings(groupsB, file, b)].map((entry) => entry.path));
  // In the panel's order.
  const paths = [...controlsA.keys()].filter((path) => changed.has(path) || explicit.has(path));
  return paths.flatMap((path) => {
    const valueA = value(controlsA, a, path);
    const valueB = value(controlsB, b, path);
    return sameSetting(valueA, valueB) && !explicit.has(path) ? [] : [{ path, a: valueA, b: valueB }];
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
