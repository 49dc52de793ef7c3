import { describe, expect, it } from 'vitest';
import { hsl, rgb } from 'd3';
import { DISTINCT_TASKS, taskColors } from './colors';

const task = (pid: number, group: number) => ({ pid, comm: `t${pid}`, group, cpus: [0], jitter: false });

/** How far apart two colours are (RGB distance, 0..441). */
function distance(a: string, b: string): number {
  const x = rgb(a);
  const y = rgb(b);
  return Math.hypot(x.r - y.r, x.g - y.g, x.b - y.b);
}

describe('task colours', () => {
  it('give each task of a small workload its own colour, around the workload hue', () => {
    const tasks = Array.from({ length: 12 }, (_, index) => task(1000 + index, 0));
    const colors = taskColors(tasks);
    const fills = tasks.map((entry) => colors.fill(entry.pid));
    expect(new Set(fills).size).toBe(12);
    for (let index = 1; index < fills.length; index++) expect(distance(fills[index - 1]!, fills[index]!)).toBeGreaterThan(60);
    // Every one stays near the workload's hue (Tableau blue, about 210 degrees).
    for (const fill of fills) expect(Math.abs(hsl(fill).h - 210)).toBeLessThan(25);
  });

  it('fall back to shades of the workload colour for a large workload, and keep idle grey', () => {
    const tasks = Array.from({ length: DISTINCT_TASKS + 8 }, (_, index) => task(1000 + index, 1));
    const colors = taskColors(tasks);
    expect(new Set(tasks.map((entry) => colors.fill(entry.pid))).size).toBe(5);
    expect(colors.fill(0)).toBe('#e9ecef');
  });
});
