/**
 * SHARED_RUNQ's shards as the machine drawing shows them: each shard's FIFO of
 * queued pids, parsed from the frame's flat `[len, pid.., len, pid.., ...]` array,
 * and how hot the shards' lock ran over the last frames. Pure: no React, no engine.
 */
import type { LockStatRow, ShardInfo } from '../engine/protocol';
import { pid, type Pid } from '../base/types';

/** The lock class every shard's lock belongs to (`/proc/lock_stat` counts per class). */
export const SHARD_LOCK_CLASS = '&shard->lock';

/** One shard and the tasks queued in it, head (oldest, pulled first) first. */
export interface ShardQueue {
  readonly shard: ShardInfo;
  readonly pids: readonly Pid[];
}

/**
 * Splits a per-shard flat array, `[n, item, ..., n, item, ...]`, into `count` lists.
 * A short or inconsistent array (never expected from the bridge) leaves the shards
 * it does not cover empty, rather than reading items from the wrong place.
 */
function splitPerShard(flat: Uint32Array, count: number): number[][] {
  const lists: number[][] = [];
  let at = 0;
  for (let shard = 0; shard < count; shard++) {
    const length = flat[at];
    if (length === undefined || at + 1 + length > flat.length) {
      lists.push([]);
      at = flat.length;
      continue;
    }
    lists.push(Array.from(flat.subarray(at + 1, at + 1 + length)));
    at += 1 + length;
  }
  return lists;
}

/**
 * Splits the frame's `frame_shards()` array into one queue per shard, in the order
 * of `shards` (the bridge's `shards_json`), head first.
 */
export function parseFrameShards(flat: Uint32Array, shards: readonly ShardInfo[]): readonly ShardQueue[] {
  const lists = splitPerShard(flat, shards.length);
  return shards.map((shard, index) => ({ shard, pids: (lists[index] ?? []).map(pid) }));
}

/**
 * Per shard, the CPUs that spun on its lock since the previous frame, from
 * `Frame.shardSpinners` (`[n, cpu, ..., n, cpu, ...]`), newest first.
 */
export function parseShardSpinners(flat: Uint32Array, nShards: number): readonly (readonly number[])[] {
  return splitPerShard(flat, nShards);
}

/** The `&shard->lock` row, when SHARED_RUNQ is on. */
export function shardLockRow(rows: readonly LockStatRow[]): LockStatRow | undefined {
  return rows.find((row) => row.class === SHARD_LOCK_CLASS);
}

/**
 * How contended the shards' lock is now: the share of `&shard->lock` acquisitions
 * since the previous frame that had to wait, as a moving average over frames
 * (each frame weighs `SMOOTHING`), so one frame's handful of acquisitions does not
 * flicker the glow. A frame with no acquisitions (a single step, a paused run)
 * keeps the previous value. This is the class's figure, for the legend; each lane
 * glows by its own shard's (`perShardContention`).
 */
export function shardLockContention(
  previous: readonly LockStatRow[] | undefined,
  next: readonly LockStatRow[],
  previousContention: number,
): number {
  const now = shardLockRow(next);
  if (!now) return 0;
  const before = previous ? shardLockRow(previous) : undefined;
  // A new run (counts went down) starts from its own totals.
  const restarted = !before || now.acquisitions < before.acquisitions;
  const acquisitions = now.acquisitions - (restarted ? 0 : before.acquisitions);
  const contentions = now.contentions - (restarted ? 0 : before.contentions);
  if (acquisitions <= 0) return restarted ? 0 : previousContention;
  const share = Math.min(1, Math.max(0, contentions / acquisitions));
  return restarted ? share : previousContention + SMOOTHING * (share - previousContention);
}

/**
 * Each shard's own lock contention, the same moving average per shard, from the
 * frames' cumulative `[acq, cont, ...]` counts (`Frame.shardLocks`). A new run
 * (counts went down, or the shard count changed) starts from its own totals.
 */
export function perShardContention(
  previous: Float64Array | undefined,
  next: Float64Array,
  previousShares: readonly number[],
): readonly number[] {
  const shards = Math.floor(next.length / 2);
  const restarted =
    !previous || previous.length !== next.length || previousShares.length !== shards || (previous[0] ?? 0) > (next[0] ?? 0);
  const shares: number[] = [];
  for (let shard = 0; shard < shards; shard += 1) {
    const acquisitions = (next[2 * shard] ?? 0) - (restarted ? 0 : (previous?.[2 * shard] ?? 0));
    const contentions = (next[2 * shard + 1] ?? 0) - (restarted ? 0 : (previous?.[2 * shard + 1] ?? 0));
    const before = restarted ? 0 : (previousShares[shard] ?? 0);
    if (acquisitions <= 0) {
      shares.push(before);
      continue;
    }
    const share = Math.min(1, Math.max(0, contentions / acquisitions));
    shares.push(restarted ? share : before + SMOOTHING * (share - before));
  }
  return shares;
}

/** The weight of the newest frame in the moving average of shard-lock contention. */
export const SMOOTHING = 0.3;

/**
 * How strongly a lane glows for a contended share in [0, 1]: full glow when half
 * the acquisitions waited (an unsharded queue under schbench's pipe mode), and a
 * square root so that the few per cent of a well-sharded queue still shows.
 */
export function glowOf(contention: number): number {
  return Math.min(1, Math.sqrt(Math.max(0, contention) / 0.5));
}
