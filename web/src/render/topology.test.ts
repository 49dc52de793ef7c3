import { describe, expect, it } from 'vitest';
import { cpuMark, DEPTH_FULL, depthWidth } from './topology';
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
