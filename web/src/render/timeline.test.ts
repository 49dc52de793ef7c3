import { describe, expect, it } from 'vitest';
import { AXIS_PX, hitTest, MAX_LANE_PX, MAX_VIEW_PX, MIN_LANE_PX, timelineGeometry, timeTicks, visibleLanes } from './timeline';

describe('timeline geometry', () => {
  it('gives 8 CPUs tall lanes, each labelled, and no scrolling', () => {
    const geometry = timelineGeometry(800, 8);
    expect(geometry.laneHeight).toBe(MAX_LANE_PX);
    expect(geometry.labelEvery).toBe(1);
    expect(geometry.viewHeight).toBe(geometry.contentHeight);
    expect(geometry.contentHeight).toBe(AXIS_PX + 8 * MAX_LANE_PX);
  });

  it('shrinks 512 lanes to the minimum height and scrolls, labelling every few lanes', () => {
    const geometry = timelineGeometry(800, 512);
    expect(geometry.laneHeight).toBe(MIN_LANE_PX);
    expect(geometry.viewHeight).toBe(MAX_VIEW_PX);
    expect(geometry.contentHeight).toBe(AXIS_PX + 512 * MIN_LANE_PX);
    expect(geometry.labelEvery * geometry.laneHeight).toBeGreaterThanOrEqual(15);
    // Scrolled by 100 lanes, the first visible lane is CPU 100 and only a view's worth is drawn.
    const { first, last } = visibleLanes(geometry, 100 * MIN_LANE_PX);
    expect(first).toBe(100);
    expect(last - first).toBeLessThanOrEqual(Math.ceil((MAX_VIEW_PX - AXIS_PX) / MIN_LANE_PX));
  });

  it('maps a point to a CPU and a time', () => {
    const geometry = timelineGeometry(800, 8);
    const x = geometry.plotLeft + geometry.plotWidth / 4;
    expect(hitTest(geometry, 0, 1000, 2000, x, AXIS_PX + 2.5 * MAX_LANE_PX)).toEqual({ cpu: 2, timeNs: 1250 });
    expect(hitTest(geometry, 0, 1000, 2000, x, AXIS_PX - 1)).toBeUndefined();
    expect(hitTest(geometry, 0, 1000, 2000, 5, AXIS_PX + 10)).toBeUndefined();
    expect(hitTest(geometry, 0, 1000, 2000, x, AXIS_PX + 8 * MAX_LANE_PX + 1)).toBeUndefined();
  });
});

describe('timeTicks', () => {
  it('labels ticks in the unit of their step', () => {
    expect(timeTicks(20e6, 60e6, 700).map((tick) => tick.label)).toEqual(['20 ms', '25 ms', '30 ms', '35 ms', '40 ms', '45 ms', '50 ms', '55 ms', '60 ms']);
    expect(timeTicks(1_000, 3_500, 300).map((tick) => tick.label)).toEqual(['1 us', '2 us', '3 us']);
    expect(timeTicks(0, 2e9, 700).map((tick) => tick.label)).toEqual(['0.0 s', '0.5 s', '1.0 s', '1.5 s', '2.0 s']);
    expect(timeTicks(20.0e6, 20.8e6, 700).map((tick) => tick.label)[1]).toBe('20.1 ms');
    expect(timeTicks(5, 5, 700)).toEqual([]);
  });
});
