/**
 * The geometry of a SHARED_RUNQ shard lane: a label, then the queued tasks as
 * chips, head (oldest) first, left to right; a lane too short for its queue ends
 * with "+N more" instead of overflowing. Sizes are in CSS pixels (the machine SVG
 * is drawn at 1:1), chosen so a pid reads at 12 px. Pure: unit tested without a DOM.
 */
import type { Pid } from '../base/types';

export const LANE = {
  height: 24,
  gap: 4,
  /** Room for the label `shard 10` at 12 px. */
  label: 62,
  chipWidth: 40,
  chipHeight: 18,
  chipGap: 3,
  /** Room for `+999 more` at 12 px. */
  more: 70,
  pad: 4,
} as const;

/** The narrowest lane: its label, two chips and the "+N more" note. */
export const LANE_MIN_WIDTH = LANE.pad + LANE.label + 2 * (LANE.chipWidth + LANE.chipGap) + LANE.more;

/** What a lane shows: the first pids of its queue, and how many did not fit. */
export interface LaneFit {
  readonly visible: readonly Pid[];
  readonly more: number;
}

/** How many chips fit in a lane of this width with nothing left over. */
export function laneCapacity(width: number): number {
  return Math.max(0, Math.floor((width - LANE.pad - LANE.label + LANE.chipGap) / (LANE.chipWidth + LANE.chipGap)));
}

/** The pids a lane of this width shows, head first, and the count behind them. */
export function fitLane(pids: readonly Pid[], width: number): LaneFit {
  const all = laneCapacity(width);
  if (pids.length <= all) return { visible: pids, more: 0 };
  const room = Math.max(0, Math.floor((width - LANE.pad - LANE.label - LANE.more + LANE.chipGap) / (LANE.chipWidth + LANE.chipGap)));
  return { visible: pids.slice(0, room), more: pids.length - room };
}

/** The x of chip `slot` in a lane that starts at `laneX`. */
export function chipX(laneX: number, slot: number): number {
  return laneX + LANE.label + slot * (LANE.chipWidth + LANE.chipGap);
}
