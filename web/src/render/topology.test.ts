import { describe, expect, it } from 'vitest';
import { cpuMark, DEPTH_FULL, depthWidth, laneWithBadge } from './topology';
import { chipX, LANE, type LaneFit } from './lanes';
import type { Pid } from '../base/types';
import { fittedTypePx, PID_MIN_PX } from './cellState';

describe('CPU marks for the selected task', () => {
  it('outline the allowed CPUs and dim the others', () => {
    const highlight = { allowed: new Set([0, 16]), chosen: 16 };
    expect(cpuMark(0, highlight)).toBe('allowed');
    expect(cpuMark(16, highlight)).toBe('allowed');
    expect(cpuMark(1, highlight)).toBe('not-allowed');
  });

  it('mark nothing when no task is selected', () => {
    expect(cpuMark(0, undefined)).toBe('none');
  });
});

describe('the depth bar', () => {
  it('steps a task at a time while the steps fit half the cell, then grows by the logarithm without capping out early', () => {
    expect(depthWidth(0, 64)).toBe(0);
    expect(depthWidth(3, 64)).toBe(12);
    // A 12 px cell: 1 task 4 px; then 10, 50 and 200 waiting are still told apart.
    const widths = [1, 10, 50, 200].map((waiting) => depthWidth(waiting, 12));
    expect(widths[0]).toBe(4);
    for (let index = 1; index < widths.length; index++) expect(widths[index]!).toBeGreaterThan(widths[index - 1]!);
    expect(depthWidth(DEPTH_FULL, 12)).toBeCloseTo(12);
    expect(depthWidth(DEPTH_FULL * 4, 12)).toBeCloseTo(12);
  });
});

describe('a pid in its cell', () => {
  it('keeps its type where it fits, shrinks in a narrow cell, and is left out below the smallest type', () => {
    // Four digits at 12 px are about 29 px wide: a 40 px cell keeps 12 px.
    expect(fittedTypePx(4, 12, 40)).toBe(12);
    // A 26 px cell (presenter mode at 1280 px on Milan) writes them at 9 px: 21.6 px, inside 22.
    expect(fittedTypePx(4, 10, 26)).toBe(9);
    expect(4 * 0.6 * fittedTypePx(4, 10, 26)).toBeLessThanOrEqual(26 - 4);
    expect(fittedTypePx(5, 10, 20)).toBe(0);
    expect(fittedTypePx(1, 10, 12)).toBe(10);
    // The smallest type that fits, not one below it.
    expect(fittedTypePx(4, 10, 4 + 4 * 0.6 * PID_MIN_PX)).toBe(PID_MIN_PX);
    expect(fittedTypePx(4, 10, 3 + 4 * 0.6 * PID_MIN_PX)).toBe(0);
  });
});

describe("a shard lane's badge of the CPUs that spun on its lock", () => {
  const pids = Array.from({ length: 12 }, (_, index) => (1000 + index) as Pid);
  /** Where the chips, and the "+N more" note after them, end. */
  const chipsEnd = (fit: LaneFit) => chipX(0, fit.visible.length) + (fit.more > 0 ? LANE.more : 0);

  it('keeps room of its own: the chips and "+N more" stop before it', () => {
    const width = 400;
    const { badge, fit } = laneWithBadge(pids, width, [20, 2, 18, 6]);
    expect(badge).toBe('spun: CPUs 20, 2, 18, 6');
    expect(fit.visible.length + fit.more).toBe(12);
    expect(fit.more).toBeGreaterThan(0);
    expect(chipsEnd(fit)).toBeLessThanOrEqual(width - badge.length * 7.2 - 2 * LANE.pad);
    // Without waiters the whole lane holds chips.
    expect(laneWithBadge(pids, width, []).fit.visible.length).toBeGreaterThan(fit.visible.length);
  });

  it('only counts the CPUs on a lane too short for their names, and drops out on the shortest', () => {
    const short = LANE.pad + LANE.label + LANE.chipWidth + LANE.chipGap + LANE.more + 60;
    const counted = laneWithBadge(pids, short, [20, 2, 18, 6, 7]);
    expect(counted.badge).toBe('spun: 5');
    expect(counted.fit.visible.length).toBeGreaterThanOrEqual(1);
    expect(laneWithBadge(pids, short - 30, [20, 2]).badge).toBe('');
  });
});
