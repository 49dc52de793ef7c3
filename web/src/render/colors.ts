/** Colours: one hue per workload, a shade per task within it; idle is grey. Jitter tasks are marked. */
import { hsl, schemeTableau10 } from 'd3';
import type { TaskInfo } from '../engine/protocol';

export const IDLE_FILL = '#e9ecef';

export interface TaskColors {
  fill(pid: number): string;
  group(pid: number): number | undefined;
  /** Whether the task is TurboSched's jitter class: drawn with a dashed outline wherever it appears. */
  jitter(pid: number): boolean;
}

/** The dashed outline that marks a jitter task's cell, chip or run. */
export const JITTER_STROKE = '#102a43';
export const JITTER_DASH = '4 2';

export function groupColor(group: number): string {
  return schemeTableau10[group % schemeTableau10.length] ?? '#888888';
}

export function taskColors(tasks: readonly TaskInfo[]): TaskColors {
  const fills = new Map<number, string>();
  const groups = new Map<number, number>();
  const indexInGroup = new Map<number, number>();
  const jitter = new Set<number>();
  for (const task of tasks) {
    if (task.jitter) jitter.add(task.pid);
    const index = indexInGroup.get(task.group) ?? 0;
    indexInGroup.set(task.group, index + 1);
    const base = hsl(groupColor(task.group));
    // Five shades per group, so neighbouring tasks of one workload stay tellable apart.
    const shade = ((index % 5) - 2) * 0.09;
    base.l = Math.min(0.8, Math.max(0.3, base.l + shade));
    fills.set(task.pid, base.formatHex());
    groups.set(task.pid, task.group);
  }
  return {
    fill: (pid) => (pid === 0 ? IDLE_FILL : (fills.get(pid) ?? '#999999')),
    group: (pid) => groups.get(pid),
    jitter: (pid) => jitter.has(pid),
  };
}

/** Text that stays readable on a fill: white on dark colours, dark on light ones. */
export function textOn(fill: string): string {
  return hsl(fill).l < 0.5 ? '#ffffff' : '#102a43';
}
