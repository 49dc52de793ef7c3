import { describe, expect, it } from 'vitest';
import { cpuMark, DEPTH_FULL, depthWidth } from './topology';

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
