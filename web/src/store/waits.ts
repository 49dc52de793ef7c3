/**
 * How many tasks waited in one CPU's runqueue over time (runnable, not running),
 * from the core's exact changes (the bridge's `waits`), and what the timeline
 * draws of it at a zoom level. Pure: no React, no engine, no drawing.
 *
 * Storage is columnar and grows by doubling: the times at which the count
 * changed, the new count, and the running integral of the count over time (task
 * nanoseconds of waiting up to each change). The integral gives the mean count
 * over any stretch with two binary searches, so a pixel holding thousands of
 * changes costs the same as one holding a single change.
 */
import { countAtOrBefore } from '../base/search';

const INITIAL_CAPACITY = 64;

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
  private times = new Float64Array(INITIAL_CAPACITY);
  private counts = new Uint32Array(INITIAL_CAPACITY);
  /** Task-nanoseconds of waiting from the first change up to change `i`. */
  private integral = new Float64Array(INITIAL_CAPACITY);
  length = 0;

  /**
   * Appends a change: from `timeNs` on, `waiting` tasks wait. Changes at one
   * instant collapse into the last of them (the earlier lasted no time), and a
   * change to the count already standing is dropped.
   */
  push(timeNs: number, waiting: number) {
    let last = this.length - 1;
    if (last >= 0 && (this.times[last] ?? 0) >= timeNs) {
      // The same instant (times never go back): the earlier change lasted no time.
      this.length -= 1;
      last -= 1;
    }
    if (last >= 0 ? this.counts[last] === waiting : waiting === 0) return;
    if (this.length === this.times.length) this.grow();
    const at = this.length;
    this.times[at] = timeNs;
    this.counts[at] = waiting;
    this.integral[at] = last >= 0 ? (this.integral[last] ?? 0) + (this.counts[last] ?? 0) * (timeNs - (this.times[last] ?? 0)) : 0;
    this.length += 1;
  }

  /** Where the lane stands: its length and its last change (a later change at the same instant rewrites it). */
  mark(): readonly [number, number, number, number] {
    const last = this.length - 1;
    return [this.length, this.times[last] ?? 0, this.counts[last] ?? 0, this.integral[last] ?? 0];
  }

  /** Back to `mark`, taken earlier on this lane. */
  rewind([length, time, count, integral]: readonly [number, number, number, number]) {
    this.length = Math.min(length, this.times.length);
    const last = this.length - 1;
    if (last >= 0) {
      this.times[last] = time;
      this.counts[last] = count;
      this.integral[last] = integral;
    }
  }

  private grow() {
    const size = this.times.length * 2;
    const times = new Float64Array(size);
    times.set(this.times);
    this.times = times;
    const counts = new Uint32Array(size);
    counts.set(this.counts);
    this.counts = counts;
    const integral = new Float64Array(size);
    integral.set(this.integral);
    this.integral = integral;
  }

  /** Bytes the columns hold (capacity, not just length). */
  get bytes(): number {
    return this.times.byteLength + this.counts.byteLength + this.integral.byteLength;
  }

  /** The index of the last change at or before `timeNs`, or -1. */
  indexAt(timeNs: number): number {
    return countAtOrBefore(this.times, this.length, timeNs) - 1;
  }

  /** Tasks waiting at `timeNs` (after every change at that instant); 0 before the first change. */
  waitingAt(timeNs: number): number {
    const index = this.indexAt(timeNs);
    return index < 0 ? 0 : (this.counts[index] ?? 0);
  }

  /** Task-nanoseconds of waiting up to `timeNs`, where change `index` (`indexAt(timeNs)`) holds. */
  private integralAt(index: number, timeNs: number): number {
    if (index < 0) return 0;
    return (this.integral[index] ?? 0) + (this.counts[index] ?? 0) * (timeNs - (this.times[index] ?? 0));
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
      const next = index + 1 < this.length ? (this.times[index + 1] ?? Infinity) : Infinity;
      if (next - time >= pixelNs || next >= limit) {
        const end = Math.min(next, limit);
        add(time, end, index < 0 ? 0 : (this.counts[index] ?? 0));
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
