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
/** Moves kept (the newest): enough for the widest span at the fastest speed to be counted. */
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

/** Adds a frame's moves (the bridge's `migrations`: `[time, pid, orig, dest, cause]` quintuples), keeping the newest `MAX_KEPT`. */
export function appendMotions(motions: readonly Motion[], flat: Float64Array, machine: Machine): readonly Motion[] {
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
  const merged = motions.concat(added);
  return merged.length > MAX_KEPT ? merged.slice(merged.length - MAX_KEPT) : merged;
}

export interface MotionView {
  /** The newest moves in the span, oldest first, each with its age as a share of the span (0 new, 1 gone). */
  readonly drawn: readonly (Motion & { readonly age: number })[];
  /** Moves in the span not drawn, by distance. */
  readonly more: Readonly<Record<Distance, number>>;
  readonly moreTotal: number;
}

/** What to draw at `nowNs`: the moves of the last `spanNs`, the newest `max` of them. */
export function motionView(motions: readonly Motion[], nowNs: number, spanNs: number, max = MAX_DRAWN): MotionView {
  const since = nowNs - spanNs;
  let first = motions.length;
  while (first > 0 && (motions[first - 1]?.atNs ?? -Infinity) >= since) first -= 1;
  const recent = motions.slice(first).filter((motion) => motion.atNs <= nowNs);
  const cut = Math.max(0, recent.length - max);
  const more: Record<Distance, number> = { smt: 0, llc: 0, 'cross-llc': 0, 'cross-numa': 0 };
  for (const motion of recent.slice(0, cut)) more[motion.distance] += 1;
  return {
    drawn: recent.slice(cut).map((motion) => ({ ...motion, age: spanNs > 0 ? Math.min(1, Math.max(0, (nowNs - motion.atNs) / spanNs)) : 1 })),
    more,
    moreTotal: cut,
  };
}
