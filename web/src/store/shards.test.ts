import { describe, expect, it } from 'vitest';
import { glowOf, parseFrameShards, parseShardSpinners, perShardContention, shardLockContention, shardLockRow, SMOOTHING } from './shards';
import { spunBadge } from '../render/topology';
import type { LockStatRow, ShardInfo } from '../engine/protocol';
import { cpuId, llcId } from '../base/types';

const shards: ShardInfo[] = [
  { llc: llcId(0), index: 0, cpus: [0, 2].map(cpuId) },
  { llc: llcId(0), index: 1, cpus: [1, 3].map(cpuId) },
  { llc: llcId(1), index: 0, cpus: [4, 5, 6, 7].map(cpuId) },
];

function row(lockClass: string, acquisitions: number, contentions: number): LockStatRow {
  return {
    class: lockClass,
    con_bounces: contentions,
    contentions,
    waittime_min_ns: 0,
    waittime_max_ns: 0,
    waittime_total_ns: 0,
    waittime_avg_ns: 0,
    acq_bounces: 0,
    acquisitions,
    holdtime_min_ns: 0,
    holdtime_max_ns: 0,
    holdtime_total_ns: 0,
    holdtime_avg_ns: 0,
    contention_points: {},
    contending_points: {},
  };
}

describe("frame_shards' flat array", () => {
  it('splits into one queue per shard, head first, in the bridge order', () => {
    const queues = parseFrameShards(Uint32Array.from([2, 1095, 1081, 0, 3, 1071, 1059, 1009]), shards);
    expect(queues.map((queue) => [queue.shard.llc, queue.shard.index, queue.pids])).toEqual([
      [0, 0, [1095, 1081]],
      [0, 1, []],
      [1, 0, [1071, 1059, 1009]],
    ]);
  });

  it('reads nothing from the wrong place when the array is short, and nothing at all when SHARED_RUNQ is off', () => {
    expect(parseFrameShards(Uint32Array.from([1, 1001, 5, 1002]), shards).map((queue) => queue.pids)).toEqual([[1001], [], []]);
    expect(parseFrameShards(new Uint32Array(0), [])).toEqual([]);
  });
});

describe("frame_shard_spinners' flat array", () => {
  it('gives each shard the CPUs that spun on its lock, newest first, and none past a short array', () => {
    expect(parseShardSpinners(Uint32Array.from([2, 3, 1, 0, 1, 6]), 3)).toEqual([[3, 1], [], [6]]);
    expect(parseShardSpinners(Uint32Array.from([1, 2, 4, 5]), 3)).toEqual([[2], [], []]);
    expect(parseShardSpinners(new Uint32Array(0), 2)).toEqual([[], []]);
  });

  it('names them at the lane, singular for one', () => {
    expect(spunBadge([3, 1])).toBe('spun: CPUs 3, 1');
    expect(spunBadge([6])).toBe('spun: CPU 6');
    expect(spunBadge([])).toBe('');
    expect(spunBadge(undefined)).toBe('');
    // Past four, the rest are counted (the lane's tooltip names them all).
    expect(spunBadge([6, 4, 2, 16, 22, 9])).toBe('spun: CPUs 6, 4, 2, 16 +2');
  });
});

describe("the shard lock's contention", () => {
  const rq = row('&rq->__lock', 5000, 2500);

  it('is the share of acquisitions since the last frame that waited, averaged over frames', () => {
    const before = [rq, row('&shard->lock', 100, 10)];
    const after = [rq, row('&shard->lock', 200, 60)];
    expect(shardLockRow(after)?.acquisitions).toBe(200);
    expect(shardLockContention(before, after, 0.1)).toBeCloseTo(0.1 + SMOOTHING * (0.5 - 0.1), 10);
  });

  it('starts a new run from its own totals, holds still without acquisitions, and is 0 when SHARED_RUNQ is off', () => {
    expect(shardLockContention([row('&shard->lock', 900, 800)], [row('&shard->lock', 40, 10)], 0.7)).toBe(0.25);
    expect(shardLockContention(undefined, [row('&shard->lock', 0, 0)], 0.7)).toBe(0);
    const same = [row('&shard->lock', 100, 10)];
    expect(shardLockContention(same, same, 0.42)).toBe(0.42);
    expect(shardLockContention([rq], [rq], 0.42)).toBe(0);
  });

  it('follows each shard lock on its own, smoothed, and restarts with a new run', () => {
    // Shard 0: 100 acquisitions, 50 waited; shard 1: 100, none.
    const first = perShardContention(undefined, new Float64Array([100, 50, 100, 0]), []);
    expect(first).toEqual([0.5, 0]);
    // Next frame: shard 0 gets 100 more with none waiting, shard 1 100 more, all waiting.
    const second = perShardContention(new Float64Array([100, 50, 100, 0]), new Float64Array([200, 50, 200, 100]), first);
    expect(second[0]).toBeCloseTo(0.5 + SMOOTHING * (0 - 0.5), 12);
    expect(second[1]).toBeCloseTo(SMOOTHING * 1, 12);
    // A quiet frame keeps the values; lower counts mean a new run.
    expect(perShardContention(new Float64Array([200, 50, 200, 100]), new Float64Array([200, 50, 200, 100]), second)).toEqual(second);
    expect(perShardContention(new Float64Array([200, 50, 200, 100]), new Float64Array([10, 1, 10, 0]), second)).toEqual([0.1, 0]);
    expect(perShardContention(undefined, new Float64Array(0), [])).toEqual([]);
  });

  it('glows fully at half the acquisitions waiting, and visibly at a few per cent', () => {
    expect(glowOf(0.5)).toBe(1);
    expect(glowOf(0.9)).toBe(1);
    expect(glowOf(0.02)).toBeCloseTo(0.2, 10);
    expect(glowOf(0)).toBe(0);
  });
});
