/**
 * Task moves for the machine view to animate: every `sched_migrate_task` the
 * run emits (a wakeup placed elsewhere, a balancer pull, a fallback), with its
 * distance on the topology. Each shows for a span of real time that the speed
 * turns into simulated time, so the speed control decides how long a move is
 * seen; when more moves fall in that span than can be drawn, the newest are drawn
 * and the rest are counted, by distance, never dropped silently. Pure: no React.
 */
import type { Machine } from '../engine/protocol';

export type Distance = 'smt' | 'llc' | 'cross-llc' | 'cross-numa';
export const DISTANCES: readonly Distance[] = ['smt', 'llc', 'cross-llc', 'cross-numa'];
export const DISTANCE_LABEL: Readonly<Record<Distance, string>> = { smt: 'SMT sibling', llc: 'within LLC', 'cross-llc': 'cross-LLC', 'cross-numa': 'cross-NUMA' };

export type Cause = 'wakeup' | 'pull' | 'other';
const CAUSES: readonly Cause[] = ['wakeup', 'pull', 'other'];

export interface Motion {
  readonly atNs: number;
  readonly pid: number;
  readonly from: number;
  readonly to: number;
  readonly cause: Cause;
  readonly distance: Distance;
}

/** How long a move shows, in real time; the speed makes it simulated time. */
export const MOTION_MS = 600;
/** Moves drawn at once at most; the others in the span are counted. */
export const MAX_DRAWN = 32;
/** Moves kept (the newest): what the span of 1x holds on a large machine; at faster speeds a span can reach past them (`MotionView.truncated`). */
export const MAX_KEPT = 20_000;

/** The simulated time a move stays on screen at this speed (simulated per real time). */
export function motionSpanNs(speedFactor: number): number {
  return Math.max(2_000, MOTION_MS * 1e6 * speedFactor);
}

export function distanceOf(machine: Machine, from: number, to: number): Distance {
  const a = machine.cpus[from];
  const b = machine.cpus[to];
  if (!a || !b) return 'cross-numa';
  if (a.core === b.core) return 'smt';
  if (a.llc === b.llc) return 'llc';
  if (a.node === b.node) return 'cross-llc';
  return 'cross-numa';
}

/**
 * The run's moves, oldest first: a window onto storage that only grows at its end,
 * so appending a frame's few moves costs those moves, not a copy of the thousands
 * kept (as a new array per frame would, and the garbage it makes). A log never
 * changes once made: an older log still reads its own window when a newer one has
 * appended past it, and a log appended to twice copies its window first.
 */
export class MotionLog {
  static readonly EMPTY = new MotionLog([], [], 0, 0);

  /**
   * `tallies` holds, for each stored move, how many moves of each distance (in
   * `DISTANCES` order) the storage holds up to and including it: the moves of a
   * stretch are counted by distance with two reads, whatever its length.
   */
  private constructor(
    private readonly items: Motion[],
    private readonly tallies: number[],
    private readonly start: number,
    private readonly end: number,
  ) {}

  get length(): number {
    return this.end - this.start;
  }

  /** The move at `index` (0 the oldest kept). */
  at(index: number): Motion | undefined {
    return index >= 0 && index < this.length ? this.items[this.start + index] : undefined;
  }

  /** The number of moves at or before `timeNs` (moves are in time order). */
  countAtOrBefore(timeNs: number): number {
    return this.countWhile((atNs) => atNs <= timeNs);
  }

  /** The number of moves before `timeNs`. */
  countBefore(timeNs: number): number {
    return this.countWhile((atNs) => atNs < timeNs);
  }

  /** The moves from index `from` up to (not including) `to`, counted by distance. */
  countByDistance(from: number, to: number): Record<Distance, number> {
    // Moves of a kind in the storage before stored index `at`.
    const before = (at: number, kind: number) => (at <= 0 ? 0 : (this.tallies[4 * (at - 1) + kind] ?? 0));
    const count = (kind: number) => (to > from ? before(this.start + to, kind) - before(this.start + from, kind) : 0);
    return { smt: count(0), llc: count(1), 'cross-llc': count(2), 'cross-numa': count(3) };
  }

  /** The length of the log's first stretch whose times pass `test` (a binary search). */
  private countWhile(test: (atNs: number) => boolean): number {
    let low = 0;
    let high = this.length;
    while (low < high) {
      const mid = (low + high) >>> 1;
      if (test(this.items[this.start + mid]?.atNs ?? Infinity)) low = mid + 1;
      else high = mid;
    }
    return low;
  }

  /** The log with `added` (in time order, after this log's moves) at its end, keeping the newest `MAX_KEPT`. */
  append(added: readonly Motion[]): MotionLog {
    if (added.length === 0) return this;
    // Grow the storage in place unless another log already grew it past our end (then
    // copy our window), or this log is empty (fresh arrays: `EMPTY` is shared).
    const inPlace = this.length > 0 && this.items.length === this.end;
    let items = inPlace ? this.items : this.items.slice(this.start, this.end);
    let tallies = inPlace ? this.tallies : rebased(this.tallies, this.start, this.end);
    let start = inPlace ? this.start : 0;
    for (const motion of added) {
      const last = tallies.length - 4;
      for (let kind = 0; kind < 4; kind += 1) tallies.push((last >= 0 ? (tallies[last + kind] ?? 0) : 0) + (DISTANCES[kind] === motion.distance ? 1 : 0));
      items.push(motion);
    }
    let end = items.length;
    start = Math.max(start, end - MAX_KEPT);
    if (start >= MAX_KEPT) {
      // Drop the storage before the window once it is as long as the window: amortised, a move is copied at most once.
      tallies = rebased(tallies, start, end);
      items = items.slice(start);
      end -= start;
      start = 0;
    }
    return new MotionLog(items, tallies, start, end);
  }

  /** The moves at or before `timeNs` (a step back in time). */
  upTo(timeNs: number): MotionLog {
    const count = this.countAtOrBefore(timeNs);
    return count === this.length ? this : new MotionLog(this.items, this.tallies, this.start, this.start + count);
  }

  toArray(): Motion[] {
    return this.items.slice(this.start, this.end);
  }
}

/** The tallies of stored moves `from` to `to`, counted from `from` on (a copy). */
function rebased(tallies: readonly number[], from: number, to: number): number[] {
  const base = from > 0 ? tallies.slice(4 * (from - 1), 4 * from) : [0, 0, 0, 0];
  const out = tallies.slice(4 * from, 4 * to);
  for (let at = 0; at < out.length; at += 1) out[at] = (out[at] ?? 0) - (base[at % 4] ?? 0);
  return out;
}

/** Adds a frame's moves (the bridge's `migrations`: `[time, pid, orig, dest, cause]` quintuples), keeping the newest `MAX_KEPT`. */
export function appendMotions(motions: MotionLog, flat: Float64Array, machine: Machine): MotionLog {
  if (flat.length < 5) return motions;
  const added: Motion[] = [];
  for (let index = 0; index + 4 < flat.length; index += 5) {
    const from = flat[index + 2] ?? 0;
    const to = flat[index + 3] ?? 0;
    added.push({
      atNs: flat[index] ?? 0,
      pid: flat[index + 1] ?? 0,
      from,
      to,
      cause: CAUSES[flat[index + 4] ?? 2] ?? 'other',
      distance: distanceOf(machine, from, to),
    });
  }
  return motions.append(added);
}

export interface MotionView {
  /** The newest moves in the span, oldest first, each with its age as a share of the span (0 new, 1 gone). */
  readonly drawn: readonly (Motion & { readonly age: number })[];
  /** Moves in the span not drawn, by distance. */
  readonly more: Readonly<Record<Distance, number>>;
  readonly moreTotal: number;
  /** The span reaches back past the oldest move kept (`MAX_KEPT` of them): older ones in it went uncounted. */
  readonly truncated: boolean;
}

/** What to draw at `nowNs`: the moves of the last `spanNs`, the newest `max` of them. */
export function motionView(motions: MotionLog, nowNs: number, spanNs: number, max = MAX_DRAWN): MotionView {
  // Two binary searches bound the span, two reads of the tallies count the moves not
  // drawn, and only the drawn moves are copied.
  const since = nowNs - spanNs;
  const first = motions.countBefore(since);
  const last = motions.countAtOrBefore(nowNs);
  const cut = Math.max(first, last - max);
  const more = motions.countByDistance(first, cut);
  const drawn: (Motion & { readonly age: number })[] = [];
  for (let index = cut; index < last; index += 1) {
    const motion = motions.at(index);
    if (motion) drawn.push({ ...motion, age: spanNs > 0 ? Math.min(1, Math.max(0, (nowNs - motion.atNs) / spanNs)) : 1 });
  }
  const truncated = first === 0 && motions.length >= MAX_KEPT && (motions.at(0)?.atNs ?? since) > since;
  return { drawn, more, moreTotal: cut - first, truncated };
}
