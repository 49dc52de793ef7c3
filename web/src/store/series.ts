/**
 * An append-only series of entries in time order, each a time (ns), an unsigned
 * integer value and, optionally, a running total: the columnar store behind the
 * timeline's slice and wait lanes. Pure: no React, no engine, no drawing.
 *
 * Entries are packed in chunks of `CHUNK_SIZE`: a chunk keeps its first time once
 * (as a double) and each entry's time as a 32-bit offset from it, its values as 16
 * bits, and its totals as doubles. A chunk widens a column only when an entry does
 * not fit (an offset of 4.3 s or more, or a fractional one: doubles; a value over
 * 65,535: 32 bits), so a chunk pays for a rare entry, not the whole series. The
 * newest chunk grows by doubling up to `CHUNK_SIZE`; every other chunk is full, so
 * entry `i` is in chunk `i / CHUNK_SIZE`. A slice lane costs 6 bytes an entry and a
 * wait lane 14, against 12 and 20 (and up to twice that in unused capacity) as
 * plain doubling columns.
 */
import { countAtOrBefore, countBefore } from '../base/search';

const CHUNK_BITS = 12;
/** Entries in a full chunk. */
export const CHUNK_SIZE = 1 << CHUNK_BITS;
const CHUNK_MASK = CHUNK_SIZE - 1;
const FIRST_CAPACITY = 32;
const MAX_OFFSET = 0xffff_ffff;
const MAX_NARROW_VALUE = 0xffff;

class Chunk {
  /** The time of the chunk's first entry: every offset is from it. */
  base: number;
  offsets: Uint32Array | Float64Array;
  values: Uint16Array | Uint32Array;
  totals: Float64Array | undefined;
  length = 0;

  constructor(base: number, withTotals: boolean) {
    this.base = base;
    this.offsets = new Uint32Array(FIRST_CAPACITY);
    this.values = new Uint16Array(FIRST_CAPACITY);
    this.totals = withTotals ? new Float64Array(FIRST_CAPACITY) : undefined;
  }

  get bytes(): number {
    return this.offsets.byteLength + this.values.byteLength + (this.totals?.byteLength ?? 0);
  }

  /** Writes entry `at` (at most `length`: an append or a rewrite), widening or growing columns as needed. */
  write(at: number, time: number, value: number, total: number) {
    if (at === this.offsets.length) this.grow();
    const offset = time - this.base;
    if (this.offsets instanceof Uint32Array && !(Number.isInteger(offset) && offset >= 0 && offset <= MAX_OFFSET)) {
      this.offsets = Float64Array.from(this.offsets);
    }
    if (this.values instanceof Uint16Array && value > MAX_NARROW_VALUE) this.values = Uint32Array.from(this.values);
    this.offsets[at] = offset;
    this.values[at] = value;
    if (this.totals) this.totals[at] = total;
    if (at >= this.length) this.length = at + 1;
  }

  private grow() {
    const size = Math.min(CHUNK_SIZE, this.offsets.length * 2);
    const offsets = this.offsets instanceof Uint32Array ? new Uint32Array(size) : new Float64Array(size);
    offsets.set(this.offsets);
    this.offsets = offsets;
    const values = this.values instanceof Uint16Array ? new Uint16Array(size) : new Uint32Array(size);
    values.set(this.values);
    this.values = values;
    if (this.totals) {
      const totals = new Float64Array(size);
      totals.set(this.totals);
      this.totals = totals;
    }
  }
}

export class TimeSeries {
  private readonly chunks: Chunk[] = [];
  /** Each chunk's first time, for the search across chunks. */
  private readonly firstTimes: number[] = [];
  length = 0;

  /** `withTotals`: keep a running total beside each entry (`totalAt`). */
  constructor(private readonly withTotals = false) {}

  /** Appends an entry; `time` must not be before the last entry's. */
  push(time: number, value: number, total = 0) {
    const at = this.length & CHUNK_MASK;
    if (at === 0) {
      this.chunks.push(new Chunk(time, this.withTotals));
      this.firstTimes.push(time);
    }
    this.chunks[this.chunks.length - 1]?.write(at, time, value, total);
    this.length += 1;
  }

  /** Keeps the first `length` entries. */
  truncate(length: number) {
    const keep = Math.max(0, Math.min(this.length, length));
    const chunks = Math.ceil(keep / CHUNK_SIZE);
    this.chunks.length = chunks;
    this.firstTimes.length = chunks;
    const last = this.chunks[chunks - 1];
    if (last) last.length = keep - (chunks - 1) * CHUNK_SIZE;
    this.length = keep;
  }

  /**
   * Back to a mark: `length` entries, the last one `(time, value, total)`. The
   * series may have lost that last entry since (a later entry at the same instant
   * replaced it), so it is appended again when the series is one short.
   */
  rewindTo(length: number, time: number, value: number, total = 0) {
    this.truncate(length);
    if (this.length < length) this.push(time, value, total);
    else if (length > 0) this.setLast(time, value, total);
  }

  /** Rewrites the last entry (it must stay at or after the one before it). */
  setLast(time: number, value: number, total = 0) {
    const index = this.length - 1;
    const chunk = this.chunks[index >>> CHUNK_BITS];
    if (!chunk) return;
    const at = index & CHUNK_MASK;
    if (at === 0) {
      chunk.base = time;
      this.firstTimes[index >>> CHUNK_BITS] = time;
    }
    chunk.write(at, time, value, total);
  }

  timeAt(index: number): number {
    const chunk = this.chunks[index >>> CHUNK_BITS];
    return chunk ? chunk.base + (chunk.offsets[index & CHUNK_MASK] ?? 0) : 0;
  }

  valueAt(index: number): number {
    return this.chunks[index >>> CHUNK_BITS]?.values[index & CHUNK_MASK] ?? 0;
  }

  totalAt(index: number): number {
    return this.chunks[index >>> CHUNK_BITS]?.totals?.[index & CHUNK_MASK] ?? 0;
  }

  /** How many entries are at or before `timeNs` (the last such index + 1). */
  countAtOrBefore(timeNs: number): number {
    const c = countAtOrBefore(this.firstTimes, this.chunks.length, timeNs) - 1;
    const chunk = this.chunks[c];
    if (!chunk) return 0;
    return c * CHUNK_SIZE + countAtOrBefore(chunk.offsets, chunk.length, timeNs - chunk.base);
  }

  /** How many entries are strictly before `timeNs`. */
  countBefore(timeNs: number): number {
    const c = countBefore(this.firstTimes, this.chunks.length, timeNs) - 1;
    const chunk = this.chunks[c];
    if (!chunk) return 0;
    return c * CHUNK_SIZE + countBefore(chunk.offsets, chunk.length, timeNs - chunk.base);
  }

  /** Bytes the columns hold (capacity included). */
  get bytes(): number {
    let total = this.firstTimes.length * 8;
    for (const chunk of this.chunks) total += chunk.bytes;
    return total;
  }
}
