import { describe, expect, it } from 'vitest';
import { chipX, fitLane, LANE, LANE_MIN_WIDTH, laneCapacity } from './lanes';
import { pid } from '../base/types';

const pids = (n: number) => Array.from({ length: n }, (_, index) => pid(1000 + index));
/** A lane exactly wide enough for `n` chips. */
const widthFor = (n: number) => LANE.pad + LANE.label + n * LANE.chipWidth + (n - 1) * LANE.chipGap;

describe('a shard lane', () => {
  it('holds as many chips as fit', () => {
    expect(laneCapacity(widthFor(3))).toBe(3);
    expect(laneCapacity(widthFor(3) - 1)).toBe(2);
    expect(laneCapacity(widthFor(14))).toBe(14);
  });

  it('shows a queue that fits whole, head first', () => {
    expect(fitLane(pids(3), widthFor(3))).toEqual({ visible: pids(3), more: 0 });
    expect(fitLane([], widthFor(3))).toEqual({ visible: [], more: 0 });
  });

  it('caps a long queue with "+N more" that stays inside the lane', () => {
    const width = widthFor(10);
    const fit = fitLane(pids(342), width);
    expect(fit.visible).toEqual(pids(342).slice(0, fit.visible.length));
    expect(fit.visible.length + fit.more).toBe(342);
    expect(fit.visible.length).toBe(8);
    // The note starts after the last chip and ends inside the lane.
    expect(chipX(0, fit.visible.length) + LANE.more).toBeLessThanOrEqual(width);
  });

  it('has room for two chips and the note at its narrowest', () => {
    expect(fitLane(pids(5), LANE_MIN_WIDTH)).toEqual({ visible: pids(2), more: 3 });
  });
});
