import { describe, expect, it } from 'vitest';
import { DEFAULT_LOCK_SORT, formatLockCell, LOCK_COLUMNS, lockSites, nextSort, sortLockRows } from './locks';
import type { LockStatRow } from '../engine/protocol';

/** Figures from the bridge's `lock_stat_json` after 2 ms of shared-runq-schbench-pipe-skylake. */
const rq: LockStatRow = {
  class: '&rq->__lock',
  con_bounces: 142,
  contentions: 142,
  waittime_min_ns: 9,
  waittime_max_ns: 4250,
  waittime_total_ns: 84524,
  waittime_avg_ns: 595,
  acq_bounces: 824,
  acquisitions: 36859,
  holdtime_min_ns: 150,
  holdtime_max_ns: 190,
  holdtime_total_ns: 5561810,
  holdtime_avg_ns: 150,
  contention_points: { __schedule: 40, raw_spin_rq_lock_nested: 48, task_rq_lock: 54 },
  contending_points: { __schedule: 10, raw_spin_rq_lock_nested: 88, task_rq_lock: 44 },
};
const shard: LockStatRow = {
  class: '&shard->lock',
  con_bounces: 372,
  contentions: 372,
  waittime_min_ns: 1,
  waittime_max_ns: 3100,
  waittime_total_ns: 113309,
  waittime_avg_ns: 304,
  acq_bounces: 18512,
  acquisitions: 36740,
  holdtime_min_ns: 60,
  holdtime_max_ns: 100,
  holdtime_total_ns: 2944880,
  holdtime_avg_ns: 80,
  contention_points: { __dequeue_entity: 61, __enqueue_entity: 246, newidle_balance: 65 },
  contending_points: { __dequeue_entity: 245, __enqueue_entity: 79, newidle_balance: 48 },
};

describe('lock_stat rows', () => {
  it("use the kernel's columns, times in microseconds with two decimals, thousands separated", () => {
    expect(LOCK_COLUMNS).toHaveLength(13);
    expect(LOCK_COLUMNS.map((column) => formatLockCell(shard, column))).toEqual([
      '&shard->lock',
      '372',
      '372',
      '0.00',
      '3.10',
      '113.31',
      '0.30',
      '18,512',
      '36,740',
      '0.06',
      '0.10',
      '2,944.88',
      '0.08',
    ]);
  });

  it('sort by the clicked column, most first, and flip on a second click; ties keep their order', () => {
    const rows = [rq, shard];
    expect(sortLockRows(rows, DEFAULT_LOCK_SORT).map((row) => row.class)).toEqual(['&shard->lock', '&rq->__lock']);
    const byAcquisitions = nextSort(DEFAULT_LOCK_SORT, 'acquisitions');
    expect(byAcquisitions).toEqual({ column: 'acquisitions', direction: 'descending' });
    expect(sortLockRows(rows, byAcquisitions).map((row) => row.class)).toEqual(['&rq->__lock', '&shard->lock']);
    const flipped = nextSort(byAcquisitions, 'acquisitions');
    expect(sortLockRows(rows, flipped).map((row) => row.class)).toEqual(['&shard->lock', '&rq->__lock']);
    expect(nextSort(flipped, 'class name')).toEqual({ column: 'class name', direction: 'ascending' });
    expect(sortLockRows(rows, { column: 'class name', direction: 'ascending' }).map((row) => row.class)).toEqual(['&rq->__lock', '&shard->lock']);
    const tie = { ...shard, class: 'tie', acquisitions: rq.acquisitions };
    expect(sortLockRows([tie, rq], byAcquisitions).map((row) => row.class)).toEqual(['tie', '&rq->__lock']);
  });

  it('list their call sites under them: contention points, then contending points', () => {
    expect(lockSites(shard)).toEqual({
      contention: [
        { site: '__dequeue_entity', count: 61 },
        { site: '__enqueue_entity', count: 246 },
        { site: 'newidle_balance', count: 65 },
      ],
      contending: [
        { site: '__dequeue_entity', count: 245 },
        { site: '__enqueue_entity', count: 79 },
        { site: 'newidle_balance', count: 48 },
      ],
    });
  });
});
