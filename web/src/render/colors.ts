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

/** A workload with at most this many tasks gives each task a colour of its own (around the workload's hue). */
export const DISTINCT_TASKS = 24;

export function taskColors(tasks: readonly TaskInfo[]): TaskColors {
  const fills = new Map<number, string>();
  const groups = new Map<number, number>();
  const jitter = new Set<number>();
  const sizes = new Map<number, number>();
  for (const task of tasks) sizes.set(task.group, (sizes.get(task.group) ?? 0) + 1);
  const indexInGroup = new Map<number, number>();
  for (const task of tasks) {
    if (task.jitter) jitter.add(task.pid);
    const index = indexInGroup.get(task.group) ?? 0;
    indexInGroup.set(task.group, index + 1);
    const size = sizes.get(task.group) ?? 1;
    const base = hsl(groupColor(task.group));
    if (size > 1 && size <= DISTINCT_TASKS) {
      // One colour a task, so one task can be followed: hues spread around the
      // workload's (up to 20 degrees each way, so no task takes the next workload's
      // hue), dark and light in turn.
      const step = Math.min(7, 40 / (size - 1));
      base.h = (base.h + (index - (size - 1) / 2) * step + 360) % 360;
      base.l = index % 2 === 0 ? 0.36 : 0.6;
      base.s = Math.max(0.45, base.s);
    } else {
      // Many tasks: five shades of the workload's colour, by role in the list.
      const shade = ((index % 5) - 2) * 0.09;
      base.l = Math.min(0.8, Math.max(0.3, base.l + shade));
    }
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
