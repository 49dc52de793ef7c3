/**
 * A CPU cell's state as the machine drawing shows it, whichever renderer paints
 * it (SVG elements on small machines, a canvas on large ones): the frame's
 * running tasks and queue depths, the selected task's marks, the depth bar.
 */

export interface CpuView {
  readonly running: Uint32Array;
  readonly nrRunning: Uint32Array;
  /** Each CPU's queued tasks, the next to run first (`Frame.queues`); empty on large machines. */
  readonly queues?: Uint32Array;
  /** The CPUs offline now (`Frame.offline`), lowest first. */
  readonly offline?: Uint32Array;
}

/** Whether `cpu` is offline (hotplug): drawn apart from an idle CPU. */
export function isOffline(view: CpuView, cpu: number): boolean {
  return view.offline !== undefined && view.offline.length > 0 && view.offline.includes(cpu);
}

/** The smallest type a pid is written in; a cell too narrow for it shows the pid in its tooltip only. */
export const PID_MIN_PX = 8;

/**
 * The type size a cell's text of `chars` characters is written in: `preferred`,
 * or smaller to fit the cell's width with 2 px either side (digits are about 0.6 em
 * wide), so neighbouring cells' pids never run together; 0 when even `PID_MIN_PX`
 * does not fit.
 */
export function fittedTypePx(chars: number, preferred: number, cellWidth: number): number {
  const fits = Math.floor((cellWidth - 4) / (0.6 * Math.max(1, chars)));
  const size = Math.min(preferred, fits);
  return size >= PID_MIN_PX ? size : 0;
}

/** An offline CPU's fill: darker than any idle state, the same in both themes' cells. */
export const OFFLINE_FILL = '#3e4c59';

/**
 * The selected task's CPUs: those it may use, and the one its decision chose; or,
 * with no `allowed`, the CPU the inspector shows, ringed as `chosen`.
 */
export interface CpuHighlight {
  readonly allowed?: ReadonlySet<number>;
  readonly chosen: number | undefined;
}

export type CpuMark = 'none' | 'allowed' | 'not-allowed';

/** How a CPU is marked for the selected task (none when no task is selected). */
export function cpuMark(cpu: number, highlight: CpuHighlight | undefined): CpuMark {
  if (!highlight?.allowed) return 'none';
  return highlight.allowed.has(cpu) ? 'allowed' : 'not-allowed';
}

const DEPTH_UNIT = 4;
/** The queue depth that fills a cell's bar: beyond a step a task, the bar grows by the logarithm, so it never caps out before this. */
export const DEPTH_FULL = 256;
/**
 * The depth bar's width: a step a waiting task while the steps fit, then on a
 * logarithmic scale up to `DEPTH_FULL` waiting tasks, so a deep queue on a small
 * cell still reads deeper than a shallow one (the cell's tooltip has the count).
 */
export function depthWidth(waiting: number, width: number): number {
  if (waiting <= 0) return 0;
  const linear = waiting * DEPTH_UNIT;
  const knee = Math.min(width / 2, linear);
  if (linear <= width / 2) return linear;
  const steps = width / 2 / DEPTH_UNIT;
  const share = Math.min(1, Math.log(waiting / steps) / Math.log(DEPTH_FULL / steps));
  return knee + (width / 2) * Math.max(0, share);
}

/** Tasks queued behind the running one. */
export function waitingOn(view: CpuView, cpu: number): number {
  const runnable = view.nrRunning[cpu] ?? 0;
  const running = (view.running[cpu] ?? 0) !== 0 ? 1 : 0;
  return Math.max(0, runnable - running);
}
