import { describe, expect, it } from 'vitest';
import { LINE_CHART, pointNearPixel } from './lineChart';

describe('reading a line chart at a pixel', () => {
  // A chart 400 px wide up to 10 ms: the plot runs from x = 64 (time 0) to x = 386 (10 ms).
  const width = 400;
  const nowNs = 10_000_000;
  const plotWidth = width - LINE_CHART.left - LINE_CHART.right;
  const px = (timeNs: number) => LINE_CHART.left + (timeNs / nowNs) * plotWidth;
  const points = [0, 2, 4, 6, 8, 10].map((ms) => ({ timeNs: ms * 1_000_000 }));

  it('finds the point nearest in time, on either side', () => {
    expect(pointNearPixel(points, width, nowNs, px(2_900_000))).toBe(1);
    expect(pointNearPixel(points, width, nowNs, px(3_100_000))).toBe(2);
    expect(pointNearPixel(points, width, nowNs, px(6_000_000))).toBe(3);
  });

  it('keeps to the first and the last point beyond the plot', () => {
    expect(pointNearPixel(points, width, nowNs, 0)).toBe(0);
    expect(pointNearPixel(points, width, nowNs, width + 50)).toBe(5);
  });

  it('has nothing to read on an empty chart', () => {
    expect(pointNearPixel([], width, nowNs, 100)).toBeUndefined();
  });
});
