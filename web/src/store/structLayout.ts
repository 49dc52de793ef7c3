/**
 * The struct-layout lab's model: how hot each field of `struct sched_entity` and
 * `struct cfs_rq` is in a run, which 64-byte lines an operation touches in a
 * layout, the user's field order as it is edited (moved by drag or by key, or typed),
 * the `policy.struct_layout` value that order becomes, and the misses table of the
 * original layout against the current one. Pure: no React, no engine.
 */
import { STRUCT_NAMES, type CacheMisses, type LayoutField, type LayoutReport, type OperationFields, type OperationMisses, type StructLayout, type StructName } from '../engine/protocol';
import type { SettingObject, SettingValue } from './policy';

/** A cache line's size in bytes: the model's and x86-64's. */
export const LINE_BYTES = 64;

/** Per structure, a number per field name. */
export type FieldFigures = Readonly<Record<StructName, ReadonlyMap<string, number>>>;

/** The fields an operation reads or writes in one structure. */
export function touchedFields(operation: OperationFields, struct: StructName): ReadonlySet<string> {
  return new Set([...operation[struct].read, ...operation[struct].write]);
}

/**
 * How hot each field is in a run: the sum, over the operations that read or write
 * it, of each operation's calls (`cache_misses.detail`). A field no operation
 * touches, or only operations not called yet, is 0.
 */
export function fieldHeat(operations: readonly OperationFields[], detail: readonly OperationMisses[]): FieldFigures {
  const calls = new Map<string, number>();
  for (const row of detail) calls.set(row.operation, (calls.get(row.operation) ?? 0) + row.calls);
  const heat = { sched_entity: new Map<string, number>(), cfs_rq: new Map<string, number>() };
  for (const operation of operations) {
    const count = calls.get(operation.operation) ?? 0;
    for (const struct of STRUCT_NAMES) {
      for (const field of touchedFields(operation, struct)) heat[struct].set(field, (heat[struct].get(field) ?? 0) + count);
    }
  }
  return heat;
}

/** The lines a field occupies (more than one when it straddles a boundary). */
export function fieldLines(field: LayoutField): readonly number[] {
  const first = Math.floor(field.offset / LINE_BYTES);
  const last = Math.floor((field.offset + Math.max(1, field.size) - 1) / LINE_BYTES);
  return Array.from({ length: last - first + 1 }, (_, index) => first + index);
}

/** The lines of a layout that hold any of `fields`, in order. */
export function linesTouched(layout: StructLayout, fields: ReadonlySet<string>): readonly number[] {
  const lines = new Set<number>();
  for (const field of layout.fields) if (fields.has(field.name)) for (const line of fieldLines(field)) lines.add(line);
  return [...lines].sort((a, b) => a - b);
}

/** Each structure's field names in a report's order. */
export type LayoutOrders = Readonly<Record<StructName, readonly string[]>>;

export function ordersOf(report: Pick<LayoutReport, StructName>): LayoutOrders {
  return { sched_entity: report.sched_entity.fields.map((field) => field.name), cfs_rq: report.cfs_rq.fields.map((field) => field.name) };
}

/** `order` with `name` moved to position `index` (clamped); the same array when nothing moves or the name is not there. */
export function moveField(order: readonly string[], name: string, index: number): readonly string[] {
  const from = order.indexOf(name);
  if (from < 0) return order;
  const to = Math.max(0, Math.min(order.length - 1, index));
  if (to === from) return order;
  const next = order.filter((entry) => entry !== name);
  next.splice(to, 0, name);
  return next;
}

/** `order` with `name` moved `delta` places later (negative: earlier), stopping at either end. */
export function moveFieldBy(order: readonly string[], name: string, delta: number): readonly string[] {
  const from = order.indexOf(name);
  return from < 0 ? order : moveField(order, name, from + delta);
}

/**
 * `order` with `dragged` dropped next to `target`: before it, or after it. A drop
 * onto itself changes nothing.
 */
export function dropField(order: readonly string[], dragged: string, target: string, side: 'before' | 'after'): readonly string[] {
  if (dragged === target || !order.includes(target)) return order;
  const rest = order.filter((entry) => entry !== dragged);
  if (rest.length === order.length) return order;
  const at = rest.indexOf(target) + (side === 'after' ? 1 : 0);
  const next = [...rest.slice(0, at), dragged, ...rest.slice(at)];
  return next.every((entry, index) => entry === order[index]) ? order : next;
}

function sameOrder(a: readonly string[], b: readonly string[]): boolean {
  return a.length === b.length && a.every((entry, index) => entry === b[index]);
}

/**
 * The explicit `policy.struct_layout` value for the user's orders: a structure
 * still in its original order is left out (the core then keeps its 6.15 order),
 * so the value and a link holding it stay short.
 */
export function explicitLayout(orders: LayoutOrders, original: LayoutOrders): SettingObject {
  const value: Record<string, readonly string[]> = {};
  for (const struct of STRUCT_NAMES) if (!sameOrder(orders[struct], original[struct])) value[struct] = orders[struct];
  return value;
}

/** The JSON text `struct_layout_json` takes for a setting: empty for the original layout (or none). */
export function layoutSpecText(value: SettingValue | undefined): string {
  if (value === undefined || value === 'original') return '';
  return JSON.stringify(value);
}

/** The lab's three choices. */
export type LayoutChoice = 'original' | 'reordered' | 'custom';

/** Which choice a `policy.struct_layout` value is (unset: the original). */
export function layoutChoice(value: SettingValue | undefined): LayoutChoice {
  if (value === 'reordered') return 'reordered';
  if (value !== undefined && typeof value === 'object') return 'custom';
  return 'original';
}

/** A typed order: names separated by commas, spaces or new lines (the core checks them). */
export function parseOrderText(text: string): readonly string[] {
  return text.split(/[\s,]+/).filter((name) => name !== '');
}

export function orderText(order: readonly string[]): string {
  return order.join(', ');
}

/** One row of the misses table: an operation's misses in the original layout and in the current one. */
export interface MissRow {
  readonly operation: string;
  /** Calls in the current run (the same scheduling decisions make them alike in both). */
  readonly calls: number | undefined;
  readonly original: number | undefined;
  readonly current: number | undefined;
  /** `current` against `original` in %; undefined when either is missing or the original is 0. */
  readonly changePct: number | undefined;
}

/** `current` against `original` in %, undefined when it cannot be said (either missing, or from 0). */
export function changePct(original: number | undefined, current: number | undefined): number | undefined {
  if (original === undefined || current === undefined || original === 0) return undefined;
  return ((current - original) / original) * 100;
}

function missesOf(misses: CacheMisses | undefined, operation: string): number | undefined {
  if (!misses) return undefined;
  const row = misses.detail.find((entry) => entry.operation === operation);
  return row ? row.sched_entity + row.cfs_rq : (misses.by_operation[operation] ?? 0);
}

/** A row per operation, in `operations`' order, then any operation a summary has that the list lacks. */
export function missRows(operations: readonly string[], original: CacheMisses | undefined, current: CacheMisses | undefined): readonly MissRow[] {
  const names = [...operations];
  for (const misses of [original, current]) for (const row of misses?.detail ?? []) if (!names.includes(row.operation)) names.push(row.operation);
  return names.map((operation) => {
    const originalMisses = missesOf(original, operation);
    const currentMisses = missesOf(current, operation);
    return {
      operation,
      calls: current?.detail.find((entry) => entry.operation === operation)?.calls,
      original: originalMisses,
      current: currentMisses,
      changePct: changePct(originalMisses, currentMisses),
    };
  });
}

/** The table's foot: misses in each structure, then in all. */
export function missTotals(original: CacheMisses | undefined, current: CacheMisses | undefined): readonly MissRow[] {
  const row = (label: string, pick: (misses: CacheMisses) => number | undefined): MissRow => {
    const a = original ? pick(original) : undefined;
    const b = current ? pick(current) : undefined;
    return { operation: label, calls: undefined, original: a, current: b, changePct: changePct(a, b) };
  };
  return [
    row('sched_entity', (misses) => misses.by_struct.sched_entity ?? 0),
    row('cfs_rq', (misses) => misses.by_struct.cfs_rq ?? 0),
    row('total', (misses) => misses.total),
  ];
}

export type MissSortKey = 'operation' | 'calls' | 'original' | 'current' | 'change';
export interface MissSort {
  readonly key: MissSortKey;
  readonly direction: 'ascending' | 'descending';
}
export const DEFAULT_MISS_SORT: MissSort = { key: 'current', direction: 'descending' };

/** A click on a column: the other way round when it already sorts, else its natural way (names A to Z, figures most first). */
export function nextMissSort(sort: MissSort, key: MissSortKey): MissSort {
  if (sort.key === key) return { key, direction: sort.direction === 'ascending' ? 'descending' : 'ascending' };
  return { key, direction: key === 'operation' ? 'ascending' : 'descending' };
}

/** The rows sorted; a row without the figure goes last either way, ties by name. */
export function sortMissRows(rows: readonly MissRow[], sort: MissSort): readonly MissRow[] {
  const sign = sort.direction === 'ascending' ? 1 : -1;
  const value = (row: MissRow) =>
    sort.key === 'calls' ? row.calls : sort.key === 'original' ? row.original : sort.key === 'current' ? row.current : sort.key === 'change' ? row.changePct : undefined;
  return [...rows].sort((a, b) => {
    if (sort.key === 'operation') return sign * a.operation.localeCompare(b.operation);
    const left = value(a);
    const right = value(b);
    if (left === undefined || right === undefined) return left === right ? a.operation.localeCompare(b.operation) : left === undefined ? 1 : -1;
    return sign * (left - right) || a.operation.localeCompare(b.operation);
  });
}

/** A change in % as the Comparison table writes it: `−9.4 %`, `+2.0 %`, `0.0 %`; `—` when it cannot be said. */
export function formatChangePct(change: number | undefined): string {
  if (change === undefined) return '—';
  const sign = change > 0.05 ? '+' : change < -0.05 ? '−' : '';
  return `${sign}${Math.abs(change).toFixed(1)} %`;
}
