import { useState } from 'react';
import type { AppStore } from '../store/app';
import { useAppStateEvery } from './useStore';
import { formatCount } from '../base/format';
import { columnKind, DEFAULT_LOCK_SORT, formatLockCell, LOCK_COLUMN_MEANING, LOCK_COLUMNS, lockSites, nextSort, sortLockRows, type LockColumn, type LockSort, type LockSite } from '../store/locks';
import type { LockStatRow } from '../engine/protocol';

/** `waittime-min` → the `waittime` group and its `min` column; other columns stand alone. */
function split(column: LockColumn): { readonly group: string | undefined; readonly name: string } {
  const match = /^(waittime|holdtime)-(.+)$/.exec(column);
  return match?.[1] && match[2] ? { group: match[1], name: match[2] } : { group: undefined, name: column };
}

/** `contentions` may break as `conten-tions` in a narrow table (a soft hyphen). */
function breakable(name: string): string {
  return name.replace(/^(conten)(tions)$/, '$1\u00ad$2').replace(/^(acqui)(sitions)$/, '$1\u00ad$2');
}

/**
 * The lock statistics as `/proc/lock_stat` prints them (and `schedlab run
 * --lockstat`): one row per lock class in the kernel's columns, times in
 * microseconds, sortable by any column; under each class its call sites, first
 * where the waiting CPU took the lock (contention points), then where the holder
 * had taken it (contending points).
 */
export function LockStat({ store }: { store: AppStore }) {
  const rows = useAppStateEvery(store, (s) => s.frame?.locks);
  const [sort, setSort] = useState<LockSort>(DEFAULT_LOCK_SORT);
  if (!rows) return null;
  const sorted = sortLockRows(rows, sort);
  return (
    <section className="panel lockstat" aria-labelledby="lockstat-title">
      <h2 id="lockstat-title">Lock stat</h2>
      <p className="muted lockstat-hint">
        As <code>/proc/lock_stat</code>: times in microseconds. Under each class, its call sites: where a CPU spun waiting (contention points), then where
        the holder had taken the lock (contending points). Click a column to sort.
      </p>
      <div className="lockstat-host">
        <table className="lockstat" aria-label="lock_stat">
          <thead>
            {/* The kernel's columns; waittime-* and holdtime-* under one heading each. */}
            <tr>
              {LOCK_COLUMNS.map((column, index) => {
                const { group } = split(column);
                if (!group) return <SortHeader key={column} column={column} sort={sort} onSort={setSort} rowSpan={2} />;
                if (split(LOCK_COLUMNS[index - 1] ?? column).group === group && index > 0) return null;
                return (
                  <th key={group} scope="colgroup" colSpan={4} className="group">
                    {group} (us)
                  </th>
                );
              })}
            </tr>
            <tr>
              {LOCK_COLUMNS.filter((column) => split(column).group !== undefined).map((column) => (
                <SortHeader key={column} column={column} sort={sort} onSort={setSort} rowSpan={1} />
              ))}
            </tr>
          </thead>
          {sorted.map((row) => (
            <LockClass key={row.class} row={row} />
          ))}
        </table>
      </div>
      {rows.length === 0 && <p className="muted">No locks taken yet.</p>}
    </section>
  );
}

/** A column header that sorts by its column; its accessible name is the kernel's column name. */
function SortHeader({ column, sort, onSort, rowSpan }: { column: LockColumn; sort: LockSort; onSort(sort: LockSort): void; rowSpan: number }) {
  const active = sort.column === column;
  const kind = columnKind(column);
  return (
    <th scope="col" rowSpan={rowSpan} aria-sort={active ? sort.direction : 'none'} className={kind} data-column={column}>
      <button type="button" onClick={() => onSort(nextSort(sort, column))} aria-label={`${column}${kind === 'time' ? ' (us)' : ''}`} title={`${column}: ${LOCK_COLUMN_MEANING[column]}. Click to sort by it.`}>
        {breakable(split(column).name)}
        <span className="sort-mark" aria-hidden="true">
          {active ? (sort.direction === 'ascending' ? '▲' : '▼') : ''}
        </span>
      </button>
    </th>
  );
}

function LockClass({ row }: { row: LockStatRow }) {
  const { contention, contending } = lockSites(row);
  return (
    <tbody data-class={row.class}>
      <tr className="lock-class" data-class={row.class}>
        {LOCK_COLUMNS.map((column) =>
          column === 'class name' ? (
            <th key={column} scope="row" className="name" data-column={column}>
              {row.class}:
            </th>
          ) : (
            <td key={column} className={columnKind(column)} data-column={column}>
              {formatLockCell(row, column)}
            </td>
          ),
        )}
      </tr>
      <SiteBlock kind="contention" title="contention points: where the waiting CPU took the lock" sites={contention} />
      <SiteBlock kind="contending" title="contending points: where the holder had taken it" sites={contending} />
    </tbody>
  );
}

/** One block of call sites under a class, as the kernel prints them after a dashed rule. */
function SiteBlock({ kind, title, sites }: { kind: 'contention' | 'contending'; title: string; sites: readonly LockSite[] }) {
  if (sites.length === 0) return null;
  return (
    <>
      <tr className="lock-sites-head">
        <td colSpan={LOCK_COLUMNS.length}>{title}</td>
      </tr>
      {sites.map((site) => (
        <tr key={`${kind}-${site.site}`} className="lock-site" data-kind={kind} data-site={site.site}>
          {/* The site spans the class and con-bounces columns, so long kernel names do not widen the table. */}
          <th scope="row" className="site" colSpan={2}>
            <code>{site.site}</code>
          </th>
          <td className="count" data-column="contentions">
            {formatCount(site.count)}
          </td>
          <td colSpan={LOCK_COLUMNS.length - 3} />
        </tr>
      ))}
    </>
  );
}
