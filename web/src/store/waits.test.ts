import { describe, expect, it } from 'vitest';
import { cpuId } from '../base/types';
import { SliceStore } from './timeline';
import { WaitLane, type WaitSpan } from './waits';

/** `[start, end, waiting]` per span, for compact expectations. */
function compact(spans: readonly WaitSpan[]): number[][] {
  return spans.map((span) => [span.start, span.end, span.waiting]);
}

function laneOf(changes: readonly (readonly [number, number])[]): WaitLane {
  const lane = new WaitLane();
  for (const [time, waiting] of changes) lane.push(time, waiting);
  return lane;
}

/** Task-nanoseconds of waiting in `[t0, t1]`, the slow way: step by step over the changes. */
function bruteIntegral(changes: readonly (readonly [number, number])[], t0: number, t1: number): number {
  let total = 0;
  for (let index = 0; index < changes.length; index++) {
    const [start, waiting] = changes[index] ?? [0, 0];
    const end = changes[index + 1]?.[0] ?? Infinity;
    const from = Math.max(start, t0);
    const to = Math.min(end, t1);
    if (to > from) total += waiting * (to - from);
  }
  return total;
}

function spanIntegral(spans: readonly WaitSpan[]): number {
  return spans.reduce((sum, span) => sum + span.waiting * (span.end - span.start), 0);
}

describe('WaitLane', () => {
  it('keeps changes only: same-instant changes collapse into the last, repeats are dropped', () => {
    const lane = laneOf([
      [0, 0],
      [100, 1],
      [100, 2],
      [150, 2],
      [200, 0],
      [200, 1],
      [300, 1],
      [400, 0],
    ]);
    expect(lane.length).toBe(3);
    expect(lane.waitingAt(99)).toBe(0);
    expect(lane.waitingAt(100)).toBe(2);
    expect(lane.waitingAt(250)).toBe(1);
    expect(lane.waitingAt(400)).toBe(0);
    // A change back to the count before it at the same instant leaves nothing.
    const back = laneOf([
      [100, 1],
      [200, 2],
      [200, 1],
    ]);
    expect(back.length).toBe(1);
  });

  it('gives exact spans where counts hold for a pixel or more, and leaves out nobody waiting', () => {
    const lane = laneOf([
      [100, 1],
      [300, 3],
      [350, 0],
      [600, 2],
    ]);
    // 1 ns a pixel: every interval is its own span, the last open to the limit.
    expect(compact(lane.spansIn(0, 1000, 1))).toEqual([
      [100, 300, 1],
      [300, 350, 3],
      [600, 1000, 2],
    ]);
    // Clipped to the window.
    expect(compact(lane.spansIn(200, 650, 1))).toEqual([
      [200, 300, 1],
      [300, 350, 3],
      [600, 650, 2],
    ]);
    expect(lane.spansIn(400, 500, 1)).toEqual([]);
  });

  it('averages changes closer than a pixel over the pixel', () => {
    // One task waits for 10 ns out of every 40 from 0 to 4000 ns, then nothing.
    const changes: [number, number][] = [];
    for (let time = 0; time < 4000; time += 40) changes.push([time, 1], [time + 10, 0]);
    const lane = laneOf(changes);
    // 400 ns a pixel: ten pixels, each a quarter of the time with one task waiting.
    const spans = lane.spansIn(0, 4000, 400);
    expect(spans.length).toBe(1);
    expect(spans[0]?.start).toBe(0);
    expect(spans[0]?.end).toBe(4000);
    expect(spans[0]?.waiting).toBeCloseTo(0.25, 10);
    // Past the last change nobody waits: nothing more to shade.
    expect(lane.spansIn(0, 8000, 400).at(-1)?.end).toBe(4000);
  });

  it('shades exactly the task-time that was waited, at any zoom', () => {
    // A pseudo-random run: bursts of fast changes between long stretches.
    const changes: [number, number][] = [];
    let time = 0;
    let seed = 7;
    const next = () => {
      seed = (seed * 1103515245 + 12345) % 2 ** 31;
      return seed / 2 ** 31;
    };
    for (let index = 0; index < 5000; index++) {
      time += next() < 0.1 ? Math.floor(next() * 50_000) : Math.floor(next() * 300) + 1;
      changes.push([time, Math.floor(next() * 5)]);
    }
    const lane = laneOf(changes);
    const limit = time + 10_000;
    for (const [t0, t1, pixels] of [
      [0, limit, 1000],
      [0, limit, 37],
      [time / 3, time / 2, 800],
      [time / 3, time / 3 + 5000, 1200],
    ] as const) {
      const spans = lane.spansIn(t0, t1, (t1 - t0) / pixels);
      expect(spanIntegral(spans)).toBeCloseTo(bruteIntegral(changes, t0, t1), 3);
      // Spans stay in the window, in order, and never overlap.
      for (let index = 0; index < spans.length; index++) {
        const span = spans[index]!;
        expect(span.start).toBeGreaterThanOrEqual(t0);
        expect(span.end).toBeLessThanOrEqual(t1);
        expect(span.end).toBeGreaterThan(span.start);
        if (index > 0) expect(span.start).toBeGreaterThanOrEqual(spans[index - 1]!.end);
      }
    }
  });

  it('costs pixels, not changes: a million changes across 1000 pixels give at most a span a pixel', () => {
    const lane = new WaitLane();
    for (let index = 0; index < 1_000_000; index++) lane.push(index * 10, (index % 2) * 2);
    const started = performance.now();
    const spans = lane.spansIn(0, 10_000_000, 10_000);
    expect(performance.now() - started).toBeLessThan(50);
    expect(spans.length).toBeLessThanOrEqual(1000);
    // Each pixel holds a thousand changes 0, 2, 0, 2, ...: the mean is 1, so the pixels merge into one span.
    expect(spans.length).toBe(1);
    expect(spans[0]?.waiting).toBe(1);
  });
});

describe('SliceStore waits', () => {
  it('reads the bridge triples per CPU and stops where the known data ends', () => {
    const store = new SliceStore(2);
    store.appendWaits(new Float64Array([100, 0, 1, 200, 1, 2, 300, 0, 0, 400, 1, 0]));
    store.setNow(1000);
    expect(store.waitChanges).toBe(4);
    expect(store.waitingAt(cpuId(0), 150)).toBe(1);
    expect(store.waitingAt(cpuId(1), 350)).toBe(2);
    expect(store.waitingAt(cpuId(1), 450)).toBe(0);
    expect(compact(store.waitsIn(cpuId(0), 0, 2000, 1))).toEqual([[100, 300, 1]]);
    // An open count runs to now, and no further than the kept trace.
    store.appendWaits([500, 0, 3]);
    expect(compact(store.waitsIn(cpuId(0), 0, 2000, 1)).at(-1)).toEqual([500, 1000, 3]);
    store.markTruncated(800);
    store.setNow(5000);
    expect(compact(store.waitsIn(cpuId(0), 0, 6000, 1)).at(-1)).toEqual([500, 800, 3]);
    expect(store.waitingAt(cpuId(0), 900)).toBe(0);
    // A CPU the store does not know is ignored.
    store.appendWaits([600, 9, 1]);
    expect(store.waitsIn(cpuId(9), 0, 1000, 1)).toEqual([]);
  });
});
