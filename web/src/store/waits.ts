/**
 * How many tasks waited in one CPU's runqueue over time (runnable, not running),
 * from the core's exact changes (the bridge's `waits`), and what the timeline
 * draws of it at a zoom level. Pure: no React, no engine, no drawing.
 *
 * Storage is a `TimeSeries` (packed chunks): the times at which the count
 * changed, the new count, and the running integral of the count over time (task
 * nanoseconds of waiting up to each change). The integral gives the mean count
 * over any stretch with two binary searches, so a pixel holding thousands of
 * changes costs the same as one holding a single change.
 */
import { TimeSeries } from './series';

/**
 * One stretch to shade: `waiting` is the number of tasks that waited there, the
 * exact count where the stretch is one change's interval, or the mean over the
 * stretch (a fraction, time-weighted) where changes come closer than a pixel.
 */
export interface WaitSpan {
  readonly start: number;
  readonly end: number;
  readonly waiting: number;
}

export class WaitLane {
  /** Per change: its time, the new count, and the task-nanoseconds of waiting from the first change up to it. */
  private readonly changes = new TimeSeries(true);

  get length(): number {
    return this.changes.length;
  }

  /**
   * Appends a change: from `timeNs` on, `waiting` tasks wait. Changes at one
   * instant collapse into the last of them (the earlier lasted no time), and a
   * change to the count already standing is dropped.
   */
  push(timeNs: number, waiting: number) {
    const changes = this.changes;
    let last = changes.length - 1;
    if (last >= 0 && changes.timeAt(last) >= timeNs) {
      // The same instant (times never go back): the earlier change lasted no time.
      changes.truncate(last);
      last -= 1;
    }
    if (last >= 0 ? changes.valueAt(last) === waiting : waiting === 0) return;
    const integral = last >= 0 ? changes.totalAt(last) + changes.valueAt(last) * (timeNs - changes.timeAt(last)) : 0;
    changes.push(timeNs, waiting, integral);
  }

  /** Where the lane stands: its length and its last change (a later change at the same instant rewrites it). */
  mark(): readonly [number, number, number, number] {
    const changes = this.changes;
    const last = changes.length - 1;
    return last < 0 ? [0, 0, 0, 0] : [changes.length, changes.timeAt(last), changes.valueAt(last), changes.totalAt(last)];
  }

  /** Back to `mark`, taken earlier on this lane. */
  rewind([length, time, count, integral]: readonly [number, number, number, number]) {
    this.changes.rewindTo(length, time, count, integral);
  }

  /** Bytes the columns hold (capacity, not just length). */
  get bytes(): number {
    return this.changes.bytes;
  }

  /** The index of the last change at or before `timeNs`, or -1. */
  indexAt(timeNs: number): number {
    return this.changes.countAtOrBefore(timeNs) - 1;
  }

  /** Tasks waiting at `timeNs` (after every change at that instant); 0 before the first change. */
  waitingAt(timeNs: number): number {
    const index = this.indexAt(timeNs);
    return index < 0 ? 0 : this.changes.valueAt(index);
  }

  /** Task-nanoseconds of waiting up to `timeNs`, where change `index` (`indexAt(timeNs)`) holds. */
  private integralAt(index: number, timeNs: number): number {
    if (index < 0) return 0;
    const changes = this.changes;
    return changes.totalAt(index) + changes.valueAt(index) * (timeNs - changes.timeAt(index));
  }

  /**
   * The stretches to shade between `t0` and `limit` (where the known data ends) at
   * `pixelNs` per pixel: where the count holds for at least a pixel, one span with
   * that count; where it changes faster, one span a pixel wide with the mean count
   * over that pixel. Stretches with nobody waiting are left out, and neighbours
   * with the same count are merged. The walk moves at least a pixel or a whole
   * interval per step, each step one binary search: cost follows the pixels, not
   * the number of changes.
   */
  spansIn(t0: number, limit: number, pixelNs: number): WaitSpan[] {
    const spans: WaitSpan[] = [];
    if (this.length === 0 || !(limit > t0) || !(pixelNs > 0)) return spans;
    const add = (start: number, end: number, waiting: number) => {
      if (!(waiting > 0) || !(end > start)) return;
      const previous = spans[spans.length - 1];
      if (previous && previous.end === start && previous.waiting === waiting) spans[spans.length - 1] = { start: previous.start, end, waiting };
      else spans.push({ start, end, waiting });
    };
    let time = t0;
    let index = this.indexAt(t0);
    while (time < limit) {
      // Where the interval holding `time` ends.
      const next = index + 1 < this.length ? this.changes.timeAt(index + 1) : Infinity;
      if (next - time >= pixelNs || next >= limit) {
        const end = Math.min(next, limit);
        add(time, end, index < 0 ? 0 : this.changes.valueAt(index));
        time = end;
        index += 1;
        continue;
      }
      // Changes closer than a pixel: the mean over the next pixel.
      const end = Math.min(time + pixelNs, limit);
      const endIndex = this.indexAt(end);
      add(time, end, (this.integralAt(endIndex, end) - this.integralAt(index, time)) / (end - time));
      time = end;
      index = endIndex;
    }
    return spans;
  }
}
