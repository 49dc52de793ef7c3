/**
 * What the Export menu writes, apart from the drawing: the metrics as CSV (one
 * `key,value` row per number of `schedlab run --json`'s object, nested keys
 * dotted) and the files' names. Pure: no React, no DOM.
 */
import type { JsonValue } from './policy';
import { unreachable } from '../base/types';

/** Each file the Export menu offers. */
export type ExportKind =
  | 'trace'
  | 'trace-reasons'
  | 'trace-perfetto'
  | 'metrics-json'
  | 'metrics-csv'
  | 'timeline-svg'
  | 'timeline-png'
  | 'machine-svg'
  | 'machine-png'
  | 'frequency-svg'
  | 'frequency-png';

export const EXPORT_KINDS: readonly ExportKind[] = [
  'trace',
  'trace-reasons',
  'trace-perfetto',
  'metrics-json',
  'metrics-csv',
  'timeline-svg',
  'timeline-png',
  'machine-svg',
  'machine-png',
  'frequency-svg',
  'frequency-png',
];

/** Files that exist only with the power model (the Frequency chart). */
export function needsPower(kind: ExportKind): boolean {
  return kind === 'frequency-svg' || kind === 'frequency-png';
}

/** The menu's label for each file. */
export function exportLabel(kind: ExportKind): string {
  switch (kind) {
    case 'trace':
      return 'Trace (ftrace text: Perfetto, trace-cmd, replay)';
    case 'trace-reasons':
      return 'Trace (ftrace, with reasons)';
    case 'trace-perfetto':
      return 'Trace (Chrome JSON: Perfetto, chrome://tracing)';
    case 'metrics-json':
      return 'Metrics (JSON)';
    case 'metrics-csv':
      return 'Metrics (CSV)';
    case 'timeline-svg':
      return 'Timeline (SVG)';
    case 'timeline-png':
      return 'Timeline (PNG)';
    case 'machine-svg':
      return 'Machine (SVG)';
    case 'machine-png':
      return 'Machine (PNG)';
    case 'frequency-svg':
      return 'Frequency chart (SVG)';
    case 'frequency-png':
      return 'Frequency chart (PNG)';
    default:
      return unreachable(kind);
  }
}

/** The file's name after the run's: `schedlab-teaching-small-seed42-trace.txt`. */
export function exportFileName(scenario: string, seed: number | undefined, kind: ExportKind): string {
  const safe = scenario.replace(/[^A-Za-z0-9._-]+/g, '_').replace(/^[._]+/, '') || 'scenario';
  const seedPart = seed === undefined ? '' : `-seed${seed}`;
  return `schedlab-${safe}${seedPart}-${suffix(kind)}`;
}

function suffix(kind: ExportKind): string {
  switch (kind) {
    case 'trace':
      return 'trace.txt';
    case 'trace-reasons':
      return 'trace-reasons.txt';
    case 'trace-perfetto':
      return 'trace.json';
    case 'metrics-json':
      return 'metrics.json';
    case 'metrics-csv':
      return 'metrics.csv';
    case 'timeline-svg':
      return 'timeline.svg';
    case 'timeline-png':
      return 'timeline.png';
    case 'machine-svg':
      return 'machine.svg';
    case 'machine-png':
      return 'machine.png';
    case 'frequency-svg':
      return 'frequency.svg';
    case 'frequency-png':
      return 'frequency.png';
    default:
      return unreachable(kind);
  }
}

/** A CSV field, quoted when it holds a comma, a quote or a line break (RFC 4180). */
function csvField(text: string): string {
  return /[",\r\n]/.test(text) ? `"${text.replace(/"/g, '""')}"` : text;
}

/**
 * Every number in a JSON value as `[dotted key, number]`, in the object's order:
 * nested objects' keys joined with `.`, array items by index
 * (`locks.0.contentions`). Strings, booleans and nulls are not numbers and are
 * left out.
 */
export function flattenNumbers(value: JsonValue, prefix = ''): readonly (readonly [string, number])[] {
  if (typeof value === 'number') return prefix === '' ? [] : [[prefix, value]];
  if (value === null || typeof value !== 'object') return [];
  const entries: readonly (readonly [string, JsonValue])[] = Array.isArray(value)
    ? (value as readonly JsonValue[]).map((item, index) => [String(index), item] as const)
    : Object.entries(value as { readonly [key: string]: JsonValue });
  return entries.flatMap(([key, item]) => flattenNumbers(item, prefix === '' ? key : `${prefix}.${key}`));
}

/** The metrics as CSV: a `key,value` header, then one row per number. */
export function metricsCsv(summary: JsonValue): string {
  const rows = flattenNumbers(summary).map(([key, number]) => `${csvField(key)},${String(number)}`);
  return ['key,value', ...rows].join('\n') + '\n';
}
