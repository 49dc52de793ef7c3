/**
 * The per-CPU timeline's data: run slices built from the trace's `sched_switch`
 * records, and the view (which time range is shown, following the playhead or not).
 * Pure: no React, no engine, no drawing.
 *
 * Storage is columnar, one `TimeSeries` (packed chunks) per CPU: the times at
 * which the CPU switched and the pid it switched to (0: idle). Slice `i`
 * runs from `times[i]` to `times[i + 1]`; the last one is open and runs to "now".
 * Invariant: on each CPU times never decrease and two neighbouring slices never
 * have the same pid (a switch to the task already running is not a new slice).
 * A run with millions of switches costs about 6 bytes per switch and no objects.
 *
 * Beside the runs, each CPU keeps how many tasks waited on its runqueue over time
 * (`WaitLane`, from the bridge's `waits`), which the timeline shades.
 */
import type { CpuId, Pid, SimTimeNs } from '../base/types';
import { pid as toPid, simTimeNs } from '../base/types';
import { WaitLane, type WaitSpan } from './waits';
import { TimeSeries } from './series';

/** What `slicesIn` returns for one drawn span. */
export type SpanKind = 'run' | 'busy';

/**
 * One span to draw: a task's run (`pid`) or, where runs are shorter than a pixel,
 * a `busy` span merging them (`pid` is undefined: several tasks ran there).
 */
export interface Span {
  readonly kind: SpanKind;
  readonly start: SimTimeNs;
  readonly end: SimTimeNs;
  readonly pid: Pid | undefined;
}

/** One task run on a CPU (`end` is "now" for the running one). */
export interface Slice {
  readonly start: SimTimeNs;
  readonly end: SimTimeNs;
  readonly pid: Pid;
}

/** One CPU's switches: each the time it switched and the pid it switched to (0: idle). */
class Lane {
  private readonly switches = new TimeSeries();

  get length(): number {
    return this.switches.length;
  }

  startOf(index: number): number {
    return this.switches.timeAt(index);
  }

  pidOf(index: number): number {
    return this.switches.valueAt(index);
  }

  push(timeNs: number, nextPid: number) {
    const switches = this.switches;
    const last = switches.length - 1;
    if (last >= 0 && switches.valueAt(last) === nextPid) return;
    if (last >= 0 && switches.timeAt(last) === timeNs) {
      // Two switches at the same instant: the earlier one lasted no time at all.
      switches.truncate(last);
      if (last - 1 >= 0 && switches.valueAt(last - 1) === nextPid) return;
    }
    switches.push(timeNs, nextPid);
  }

  /** Back to `length` slices, the last starting at `timeNs` with `pid` (a switch at that instant may have replaced it). */
  rewind(length: number, timeNs: number, pid: number) {
    this.switches.rewindTo(length, timeNs, pid);
  }

  get bytes(): number {
    return this.switches.bytes;
  }

  /** The index of the last slice starting at or before `timeNs`, or -1. */
  indexAt(timeNs: number): number {
    return this.switches.countAtOrBefore(timeNs) - 1;
  }

  /** The index of the last slice starting strictly before `timeNs`, or -1. */
  indexBefore(timeNs: number): number {
    return this.switches.countBefore(timeNs) - 1;
  }
}

/** Where a slice store stood (`SliceStore.mark`), to come back to with `rewind`. */
export interface SliceMark {
  /** Per lane: its length, and its last slice's start and pid (a later switch at the same instant rewrites it). */
  readonly lengths: Int32Array;
  readonly lastTimes: Float64Array;
  readonly lastPids: Uint32Array;
  readonly nowNs: number;
  readonly switchCount: number;
  readonly keptUntil: number | undefined;
  /** Per CPU, its wait lane's mark (`WaitLane.mark`), and the changes read. */
  readonly waits: readonly (readonly [number, number, number, number])[];
  readonly waitCount: number;
}

export class SliceStore {
  private readonly lanes: Lane[];
  /** The latest time the slices are known to: the clock, or where the kept trace ends. */
  private nowNs = 0;
  private switchCount = 0;
  /** Set once the core's trace stopped growing: slices after this time are unknown. */
  private keptUntil: number | undefined;

  private readonly waitLanes: WaitLane[];
  private waitCount = 0;

  constructor(readonly nCpus: number) {
    this.lanes = Array.from({ length: nCpus }, () => new Lane());
    this.waitLanes = Array.from({ length: nCpus }, () => new WaitLane());
  }

  /**
   * Appends flat `[time_ns, cpu, waiting, ...]` triples (the bridge's `waits`: each
   * change of a CPU's count of tasks waiting on its runqueue), in time order.
   */
  appendWaits(changes: Float64Array | readonly number[]) {
    for (let index = 0; index + 2 < changes.length; index += 3) {
      const lane = this.waitLanes[changes[index + 1] ?? -1];
      if (!lane) continue;
      lane.push(changes[index] ?? 0, changes[index + 2] ?? 0);
      this.waitCount += 1;
    }
  }

  /** Changes of the waiting counts read so far. */
  get waitChanges(): number {
    return this.waitCount;
  }

  /** Tasks waiting on `cpu`'s runqueue at `timeNs` (0 where nothing is known). */
  waitingAt(cpu: CpuId, timeNs: number): number {
    const lane = this.waitLanes[cpu];
    return lane && timeNs <= this.endNs ? lane.waitingAt(timeNs) : 0;
  }

  /**
   * Where tasks waited on `cpu`'s runqueue between `t0` and `t1` at `pixelNs` per
   * pixel (`WaitLane.spansIn`: exact counts where they hold a pixel or more, a
   * pixel's mean where they change faster), up to where the slices are known.
   */
  waitsIn(cpu: CpuId, t0: number, t1: number, pixelNs: number): WaitSpan[] {
    const lane = this.waitLanes[cpu];
    return lane ? lane.spansIn(t0, Math.min(t1, this.endNs), pixelNs) : [];
  }

  /** Appends flat `[time_ns, cpu, next_pid, ...]` triples (the bridge's `switches`), in time order. */
  append(switches: Float64Array | readonly number[]) {
    for (let index = 0; index + 2 < switches.length; index += 3) {
      const lane = this.lanes[switches[index + 1] ?? -1];
      if (!lane) continue;
      lane.push(switches[index] ?? 0, switches[index + 2] ?? 0);
      this.switchCount += 1;
    }
  }

  /** Where the store stands now. */
  mark(): SliceMark {
    const n = this.lanes.length;
    const lengths = new Int32Array(n);
    const lastTimes = new Float64Array(n);
    const lastPids = new Uint32Array(n);
    this.lanes.forEach((lane, index) => {
      lengths[index] = lane.length;
      lastTimes[index] = lane.length > 0 ? lane.startOf(lane.length - 1) : 0;
      lastPids[index] = lane.length > 0 ? lane.pidOf(lane.length - 1) : 0;
    });
    return {
      lengths,
      lastTimes,
      lastPids,
      nowNs: this.nowNs,
      switchCount: this.switchCount,
      keptUntil: this.keptUntil,
      waits: this.waitLanes.map((lane) => lane.mark()),
      waitCount: this.waitCount,
    };
  }

  /** Back to `mark`, taken earlier on this store: the slices appended since are dropped. */
  rewind(mark: SliceMark) {
    this.lanes.forEach((lane, index) => {
      lane.rewind(Math.min(lane.length + 1, mark.lengths[index] ?? 0), mark.lastTimes[index] ?? 0, mark.lastPids[index] ?? 0);
    });
    this.nowNs = mark.nowNs;
    this.switchCount = mark.switchCount;
    this.keptUntil = mark.keptUntil;
    this.waitLanes.forEach((lane, index) => {
      const waits = mark.waits[index];
      if (waits) lane.rewind(waits);
    });
    this.waitCount = mark.waitCount;
  }

  /** Moves "now", where the running slices end (never past the end of the kept trace). */
  setNow(nowNs: number) {
    this.nowNs = Math.max(this.nowNs, nowNs);
  }

  /** The trace is full: nothing after `timeNs` is known. */
  markTruncated(timeNs: number) {
    this.keptUntil ??= timeNs;
  }

  /** Where the kept trace ends, when the core's trace store is full. */
  get truncatedAtNs(): SimTimeNs | undefined {
    return this.keptUntil === undefined ? undefined : simTimeNs(this.keptUntil);
  }

  /** Where open slices end. */
  get endNs(): SimTimeNs {
    return simTimeNs(this.keptUntil === undefined ? this.nowNs : Math.min(this.nowNs, this.keptUntil));
  }

  /** Switches read so far (the end-to-end test hook). */
  get switches(): number {
    return this.switchCount;
  }

  /** Stored slices, idle ones included. */
  get sliceCount(): number {
    let total = 0;
    for (const lane of this.lanes) total += lane.length;
    return total;
  }

  /** Bytes the columns hold (capacity, not just length). */
  get bytes(): number {
    let total = 0;
    for (const lane of this.lanes) total += lane.bytes;
    for (const lane of this.waitLanes) total += lane.bytes;
    return total;
  }

  private sliceEnd(lane: Lane, index: number): number {
    return index + 1 < lane.length ? lane.startOf(index + 1) : Math.max(lane.startOf(index), this.endNs);
  }

  /** The task running on `cpu` at `timeNs` (its whole slice), or undefined when idle or unknown. */
  sliceAt(cpu: CpuId, timeNs: number): Slice | undefined {
    const lane = this.lanes[cpu];
    if (!lane || timeNs > this.endNs) return undefined;
    const index = lane.indexAt(timeNs);
    if (index < 0) return undefined;
    const runPid = lane.pidOf(index);
    const end = this.sliceEnd(lane, index);
    if (runPid === 0 || timeNs >= end) return undefined;
    return { start: simTimeNs(lane.startOf(index)), end: simTimeNs(end), pid: toPid(runPid) };
  }

  /**
   * The spans to draw for `cpu` between `t0` and `t1` at `pixelNs` per pixel, as
   * Perfetto does: a run at least a pixel long is its own span; a maximal series
   * of neighbouring slices each shorter than a pixel (short idle gaps included)
   * becomes one `busy` span from its first to its last task run. Idle is not drawn.
   * Spans are clipped to `[t0, t1]`. Cost grows with pixels, not slices: inside a
   * series it jumps a pixel at a time (every slice between two points a pixel apart
   * is shorter than a pixel), so each pixel costs one binary search.
   */
  slicesIn(cpu: CpuId, t0: number, t1: number, pixelNs: number): Span[] {
    const lane = this.lanes[cpu];
    const spans: Span[] = [];
    if (!lane || lane.length === 0 || t1 <= t0) return spans;
    const limit = Math.min(t1, this.endNs);
    const clip = (kind: SpanKind, start: number, end: number, runPid: number | undefined) => {
      const from = Math.max(start, t0);
      const to = Math.min(end, limit);
      if (to > from) spans.push({ kind, start: simTimeNs(from), end: simTimeNs(to), pid: runPid === undefined ? undefined : toPid(runPid) });
    };
    const startOf = (index: number) => lane.startOf(index);
    const pidOf = (index: number) => lane.pidOf(index);
    const isShort = (index: number) => this.sliceEnd(lane, index) - startOf(index) < pixelNs;

    let index = Math.max(0, lane.indexAt(t0));
    while (index < lane.length && startOf(index) < limit) {
      if (!isShort(index)) {
        if (pidOf(index) !== 0) clip('run', startOf(index), this.sliceEnd(lane, index), pidOf(index));
        index += 1;
        continue;
      }
      // A series of short slices: find where it ends, a pixel at a time.
      const first = index;
      let last = index;
      for (;;) {
        const reach = Math.min(this.sliceEnd(lane, last) + pixelNs, limit);
        const next = lane.indexBefore(reach);
        // Every slice strictly between `last` and `next` lies inside one pixel: short.
        if (next <= last) break;
        if (isShort(next)) {
          last = next;
          continue;
        }
        last = next - 1;
        break;
      }
      // Trim idle ends: the span runs from the first to the last task run.
      let from = first;
      let to = last;
      if (pidOf(from) === 0) from += 1;
      if (pidOf(to) === 0) to -= 1;
      if (from <= to) {
        if (from === to) clip('run', startOf(from), this.sliceEnd(lane, from), pidOf(from));
        else clip('busy', startOf(from), this.sliceEnd(lane, to), undefined);
      }
      index = last + 1;
    }
    return spans;
  }
}

/** The timeline's view: what range it shows and whether it follows the playhead. */
export interface TimelineView {
  /** Follow the playhead: the window ends at "now". */
  readonly follow: boolean;
  /** Left edge when not following. */
  readonly startNs: number;
  /** Width of the window; undefined: chosen from the playback speed. */
  readonly spanNs: number | undefined;
}

export const FOLLOW_VIEW: TimelineView = { follow: true, startNs: 0, spanNs: undefined };

/** Narrowest and widest windows: 2 us (a few context switches) to 100 s. */
export const MIN_SPAN_NS = 2_000;
export const MAX_SPAN_NS = 100e9;

/**
 * The window followed by default: the simulated time that passes in 4 s of real
 * time at this speed, so a slice crosses the screen in about 4 s (40 ms at 1/100×),
 * and never longer than the run (`runNs`), which then fills it.
 */
export function followSpanNs(speedFactor: number, runNs = Infinity): number {
  return clampSpan(Math.min(speedFactor * 4e9, runNs > 0 ? runNs : Infinity));
}

function clampSpan(spanNs: number): number {
  return Math.min(MAX_SPAN_NS, Math.max(MIN_SPAN_NS, spanNs));
}

/** The range `[t0, t1]` a view shows at `nowNs`, in a run `runNs` long. */
export function visibleRange(view: TimelineView, nowNs: number, speedFactor: number, runNs?: number): { t0: number; t1: number } {
  const span = view.spanNs ?? followSpanNs(speedFactor, runNs);
  if (view.follow) {
    // Until a whole window has passed, time 0 stays at the left edge.
    const t1 = Math.max(span, nowNs);
    return { t0: t1 - span, t1 };
  }
  return { t0: view.startNs, t1: view.startNs + span };
}

/**
 * Zooms by `factor` (< 1 zooms in) keeping the time at `anchor` (0 left edge, 1
 * right edge) where it is. Following keeps following when the anchor is the
 * right edge (the playhead); otherwise the view stops following.
 */
export function zoomView(view: TimelineView, nowNs: number, speedFactor: number, factor: number, anchor: number, runNs?: number): TimelineView {
  const { t0, t1 } = visibleRange(view, nowNs, speedFactor, runNs);
  const span = clampSpan((t1 - t0) * factor);
  if (view.follow && anchor >= 1) return { follow: true, startNs: t0, spanNs: span };
  const at = t0 + (t1 - t0) * anchor;
  return { follow: false, startNs: Math.max(0, at - span * anchor), spanNs: span };
}

/** Pans by `deltaNs` (positive: later); the view stops following. */
export function panView(view: TimelineView, nowNs: number, speedFactor: number, deltaNs: number, runNs?: number): TimelineView {
  const { t0, t1 } = visibleRange(view, nowNs, speedFactor, runNs);
  return { follow: false, startNs: Math.max(0, t0 + deltaNs), spanNs: t1 - t0 };
}

/** Resumes following the playhead with the window the speed chooses. */
export function followView(): TimelineView {
  return FOLLOW_VIEW;
}

/** The time under `x` (CSS pixels) in a plot showing `[t0, t1]`, clamped to the plot. */
export function timeAtX(t0: number, t1: number, plotLeft: number, plotWidth: number, x: number): number {
  const share = Math.min(1, Math.max(0, (x - plotLeft) / plotWidth));
  return t0 + share * (t1 - t0);
}

/**
 * The view a brush selects: the window between two times (in either order), no
 * longer following. A window narrower than `MIN_SPAN_NS` widens around its middle,
 * and none starts before time 0.
 */
export function brushView(fromNs: number, toNs: number): TimelineView {
  const start = Math.min(fromNs, toNs);
  const end = Math.max(fromNs, toNs);
  const span = clampSpan(end - start);
  const middle = (start + end) / 2;
  return { follow: false, startNs: Math.max(0, span > end - start ? middle - span / 2 : start), spanNs: span };
}

/**
 * The anchor for keyboard zoom (0 left edge, 1 right edge): the right edge while
 * following (the playhead is there), else the playhead when it is in view, else
 * the middle of the window.
 */
export function keyZoomAnchor(view: TimelineView, t0: number, t1: number, nowNs: number): number {
  if (view.follow) return 1;
  if (t1 > t0 && nowNs >= t0 && nowNs <= t1) return (nowNs - t0) / (t1 - t0);
  return 0.5;
}
