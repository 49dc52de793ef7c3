/**
 * The lock_stat view's model: the kernel's `/proc/lock_stat` columns, sorting the
 * classes by one of them, and each class's call sites. Pure: no React, no engine.
 */
import { formatCount, formatFixed } from '../base/format';
import type { LockStatRow } from '../engine/protocol';
import { unreachable } from '../base/types';

/** A column of `/proc/lock_stat`, by the kernel's header name. */
export type LockColumn =
  | 'class name'
  | 'con-bounces'
  | 'contentions'
  | 'waittime-min'
  | 'waittime-max'
  | 'waittime-total'
  | 'waittime-avg'
  | 'acq-bounces'
  | 'acquisitions'
  | 'holdtime-min'
  | 'holdtime-max'
  | 'holdtime-total'
  | 'holdtime-avg';

/** The columns in the kernel's order. */
export const LOCK_COLUMNS: readonly LockColumn[] = [
  'class name',
  'con-bounces',
  'contentions',
  'waittime-min',
  'waittime-max',
  'waittime-total',
  'waittime-avg',
  'acq-bounces',
  'acquisitions',
  'holdtime-min',
  'holdtime-max',
  'holdtime-total',
  'holdtime-avg',
];

/** What each column counts, as the kernel's lockstat documentation says it (the headers' tooltips). */
export const LOCK_COLUMN_MEANING: Readonly<Record<LockColumn, string>> = {
  'class name': 'the lock class: every lock of one kind (each shard\'s lock, each runqueue\'s) summed',
  'con-bounces': 'contentions where the lock was last taken on another CPU: for a spinlock nearly every contention (the series\' own tables: 31,510,503 of 31,510,711)',
  contentions: 'acquisitions that had to wait',
  'waittime-min': 'the shortest wait of a contention, us',
  'waittime-max': 'the longest wait of a contention, us',
  'waittime-total': 'all contentions\' waits, us',
  'waittime-avg': 'the average wait of a contention, us',
  'acq-bounces': 'acquisitions where the lock was last taken on another CPU',
  acquisitions: 'times the lock was taken',
  'holdtime-min': 'the shortest hold, us',
  'holdtime-max': 'the longest hold, us',
  'holdtime-total': 'all holds, us',
  'holdtime-avg': 'the average hold, us',
};

/** What a column holds: a name, a count, or a time the kernel prints in microseconds. */
export function columnKind(column: LockColumn): 'name' | 'count' | 'time' {
  switch (column) {
    case 'class name':
      return 'name';
    case 'con-bounces':
    case 'contentions':
    case 'acq-bounces':
    case 'acquisitions':
      return 'count';
    case 'waittime-min':
    case 'waittime-max':
    case 'waittime-total':
    case 'waittime-avg':
    case 'holdtime-min':
    case 'holdtime-max':
    case 'holdtime-total':
    case 'holdtime-avg':
      return 'time';
    default:
      return unreachable(column);
  }
}

/** A row's value in a column: the class name, a count, or nanoseconds. */
export function columnValue(row: LockStatRow, column: LockColumn): string | number {
  switch (column) {
    case 'class name':
      return row.class;
    case 'con-bounces':
      return row.con_bounces;
    case 'contentions':
      return row.contentions;
    case 'waittime-min':
      return row.waittime_min_ns;
    case 'waittime-max':
      return row.waittime_max_ns;
    case 'waittime-total':
      return row.waittime_total_ns;
    case 'waittime-avg':
      return row.waittime_avg_ns;
    case 'acq-bounces':
      return row.acq_bounces;
    case 'acquisitions':
      return row.acquisitions;
    case 'holdtime-min':
      return row.holdtime_min_ns;
    case 'holdtime-max':
      return row.holdtime_max_ns;
    case 'holdtime-total':
      return row.holdtime_total_ns;
    case 'holdtime-avg':
      return row.holdtime_avg_ns;
    default:
      return unreachable(column);
  }
}

/** A cell as `/proc/lock_stat` prints it: times in microseconds with two decimals. */
export function formatLockCell(row: LockStatRow, column: LockColumn): string {
  const value = columnValue(row, column);
  const kind = columnKind(column);
  switch (kind) {
    case 'name':
      return String(value);
    // The kernel's columns, with thousands separated as elsewhere in the app.
    case 'count':
      return formatCount(Number(value));
    case 'time':
      return formatFixed(Number(value) / 1000, 2);
    default:
      return unreachable(kind);
  }
}

export type SortDirection = 'ascending' | 'descending';

export interface LockSort {
  readonly column: LockColumn;
  readonly direction: SortDirection;
}

/** As the kernel lists classes by default: most contended first. */
export const DEFAULT_LOCK_SORT: LockSort = { column: 'contentions', direction: 'descending' };

/**
 * The sort after clicking a column header: the same column flips its direction; a
 * new one starts with the biggest numbers first (names A to Z).
 */
export function nextSort(current: LockSort, clicked: LockColumn): LockSort {
  if (current.column === clicked) {
    return { column: clicked, direction: current.direction === 'ascending' ? 'descending' : 'ascending' };
  }
  return { column: clicked, direction: columnKind(clicked) === 'name' ? 'ascending' : 'descending' };
}

/** The classes in the chosen order; ties keep the bridge's order. */
export function sortLockRows(rows: readonly LockStatRow[], sort: LockSort): readonly LockStatRow[] {
  const sign = sort.direction === 'ascending' ? 1 : -1;
  return rows
    .map((row, index) => ({ row, index }))
    .sort((a, b) => {
      const left = columnValue(a.row, sort.column);
      const right = columnValue(b.row, sort.column);
      const order = typeof left === 'string' || typeof right === 'string' ? String(left).localeCompare(String(right)) : left - right;
      return order !== 0 ? sign * order : a.index - b.index;
    })
    .map(({ row }) => row);
}

/** One call site under a class: a kernel function and how many contentions it saw. */
export interface LockSite {
  readonly site: string;
  readonly count: number;
}

/**
 * A class's call sites as `/proc/lock_stat` lists them under it: first the
 * contention points (where the CPU that had to wait took the lock), then the
 * contending points (where the CPU holding it meanwhile had taken it). The sites
 * keep the core's order, so the list reads like `schedlab run --lockstat`.
 */
export function lockSites(row: LockStatRow): { readonly contention: readonly LockSite[]; readonly contending: readonly LockSite[] } {
  const list = (points: Readonly<Record<string, number>>) => Object.entries(points).map(([site, count]) => ({ site, count }));
  return { contention: list(row.contention_points), contending: list(row.contending_points) };
}
