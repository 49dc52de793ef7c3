import { describe, expect, it } from 'vitest';
import { cpuId } from '../base/types';
import { brushView, FOLLOW_VIEW, followSpanNs, keyZoomAnchor, MIN_SPAN_NS, panView, SliceStore, timeAtX, visibleRange, zoomView, type Span } from './timeline';

/** `[start, end, pid]` per span (`pid` -1 for busy), for compact expectations. */
function compact(spans: readonly Span[]): number[][] {
  return spans.map((span) => [span.start, span.end, span.kind === 'busy' ? -1 : (span.pid ?? 0)]);
}

/** A store with the given switches; `now` moves the clock. */
function storeOf(nCpus: number, switches: readonly (readonly [number, number, number])[], now: number): SliceStore {
  const store = new SliceStore(nCpus);
  store.append(switches.flat());
  store.setNow(now);
  return store;
}

describe('SliceStore', () => {
  it('rewinds to a mark: runs and waits as a store that never saw the later changes', () => {
    const before = { switches: [100, 0, 7, 200, 1, 8, 300, 0, 9], waits: [150, 0, 1, 250, 1, 2, 300, 0, 2] };
    // After the mark: a change at the mark's last instant (it rewrites the last entry), then more.
    const after = { switches: [300, 0, 10, 400, 1, 0, 500, 0, 11], waits: [300, 0, 3, 450, 1, 0, 500, 0, 0] };
    const fresh = new SliceStore(2);
    fresh.append(before.switches);
    fresh.appendWaits(before.waits);
    fresh.setNow(320);
    const store = new SliceStore(2);
    store.append(before.switches);
    store.appendWaits(before.waits);
    store.setNow(320);
    const mark = store.mark();
    store.append(after.switches);
    store.appendWaits(after.waits);
    store.setNow(600);
    expect(store.waitingAt(cpuId(0), 310)).toBe(3);
    store.rewind(mark);
    for (const cpu of [cpuId(0), cpuId(1)]) {
      expect(store.slicesIn(cpu, 0, 320, 1)).toEqual(fresh.slicesIn(cpu, 0, 320, 1));
      expect(store.waitsIn(cpu, 0, 320, 1)).toEqual(fresh.waitsIn(cpu, 0, 320, 1));
    }
    expect(store.endNs).toBe(320);
    expect(store.switches).toBe(3);
    expect(store.waitChanges).toBe(fresh.waitChanges);
    // And it grows again the same way.
    for (const target of [store, fresh]) {
      target.append(after.switches);
      target.appendWaits(after.waits);
      target.setNow(600);
    }
    for (const cpu of [cpuId(0), cpuId(1)]) {
      expect(store.slicesIn(cpu, 0, 600, 1)).toEqual(fresh.slicesIn(cpu, 0, 600, 1));
      expect(store.waitsIn(cpu, 0, 600, 1)).toEqual(fresh.waitsIn(cpu, 0, 600, 1));
    }
  });

  it('builds per-CPU slices from switches; the running one is open to now', () => {
    const store = storeOf(
      2,
      [
        [100, 0, 1001],
        [150, 1, 1002],
        [300, 0, 0],
        [400, 0, 1003],
      ],
      1000,
    );
    expect(compact(store.slicesIn(cpuId(0), 0, 1000, 1))).toEqual([
      [100, 300, 1001],
      [400, 1000, 1003],
    ]);
    expect(compact(store.slicesIn(cpuId(1), 0, 1000, 1))).toEqual([[150, 1000, 1002]]);
    // The open slice grows with the clock.
    store.setNow(1500);
    expect(compact(store.slicesIn(cpuId(0), 0, 2000, 1))).toEqual([
      [100, 300, 1001],
      [400, 1500, 1003],
    ]);
    expect(store.switches).toBe(4);
  });

  it('clips spans to the window and finds the slice under a point', () => {
    const store = storeOf(
      1,
      [
        [100, 0, 7],
        [300, 0, 0],
        [400, 0, 8],
      ],
      1000,
    );
    expect(compact(store.slicesIn(cpuId(0), 200, 500, 1))).toEqual([
      [200, 300, 7],
      [400, 500, 8],
    ]);
    expect(store.sliceAt(cpuId(0), 250)).toEqual({ start: 100, end: 300, pid: 7 });
    expect(store.sliceAt(cpuId(0), 350)).toBeUndefined();
    expect(store.sliceAt(cpuId(0), 50)).toBeUndefined();
    expect(store.sliceAt(cpuId(0), 999)).toEqual({ start: 400, end: 1000, pid: 8 });
    expect(store.sliceAt(cpuId(0), 1001)).toBeUndefined();
    expect(store.sliceAt(cpuId(3), 250)).toBeUndefined();
  });

  it('merges runs shorter than a pixel into one busy span, trimmed to its task runs', () => {
    // Pixel = 10 ns. Long run 0-50 (pid 1); short runs 50-53, 53-55 idle, 55-58 (pids 2, 3);
    // long idle 58-100; a lone short run 100-104 (pid 4); long idle; long run 200-260 (pid 5);
    // short idle 260-262 then short run 262-265 (pid 6) then long idle to now.
    const store = storeOf(
      1,
      [
        [0, 0, 1],
        [50, 0, 2],
        [53, 0, 0],
        [55, 0, 3],
        [58, 0, 0],
        [100, 0, 4],
        [104, 0, 0],
        [200, 0, 5],
        [260, 0, 0],
        [262, 0, 6],
        [265, 0, 0],
      ],
      400,
    );
    expect(compact(store.slicesIn(cpuId(0), 0, 400, 10))).toEqual([
      [0, 50, 1],
      [50, 58, -1],
      [100, 104, 4],
      [200, 260, 5],
      [262, 265, 6],
    ]);
    // At one nanosecond per pixel nothing merges.
    expect(compact(store.slicesIn(cpuId(0), 0, 400, 1))).toEqual([
      [0, 50, 1],
      [50, 53, 2],
      [55, 58, 3],
      [100, 104, 4],
      [200, 260, 5],
      [262, 265, 6],
    ]);
  });

  it('keeps a long run that starts within a pixel of a series out of the busy span', () => {
    // Short 0-2 (pid 1), short 2-4 (pid 2), exactly one pixel 4-14 (pid 3: not short), short 14-15 (pid 4).
    const store = storeOf(
      1,
      [
        [0, 0, 1],
        [2, 0, 2],
        [4, 0, 3],
        [14, 0, 4],
        [15, 0, 0],
      ],
      100,
    );
    expect(compact(store.slicesIn(cpuId(0), 0, 100, 10))).toEqual([
      [0, 4, -1],
      [4, 14, 3],
      [14, 15, 4],
    ]);
  });

  it('draws a million short switches in a bounded number of spans and steps', () => {
    const store = new SliceStore(1);
    const switches = new Float64Array(3 * 1_000_000);
    for (let index = 0; index < 1_000_000; index++) {
      switches[3 * index] = index * 10;
      switches[3 * index + 2] = index % 2 === 0 ? 1000 + (index % 7) : 0;
    }
    store.append(switches);
    store.setNow(10_000_000);
    // 10 ms across 1000 pixels: every run is 1% of a pixel, one busy span covers it all.
    const started = performance.now();
    const spans = store.slicesIn(cpuId(0), 0, 10_000_000, 10_000);
    expect(performance.now() - started).toBeLessThan(50);
    expect(compact(spans)).toEqual([[0, 9_999_990, -1]]);
    expect(store.sliceCount).toBe(1_000_000);
    // Packed chunks of 4096 switches, 4 bytes of time offset and 2 of pid each, and a
    // double per chunk for its first time; the newest chunk's capacity is the next
    // power of two above its 576 switches. The empty wait lane holds nothing.
    const full = Math.floor(1_000_000 / 4096);
    expect(store.bytes).toBe(full * 4096 * 6 + 1024 * 6 + (full + 1) * 8);
  });

  it('collapses zero-length slices and repeated switches to the same task', () => {
    const store = storeOf(
      1,
      [
        [10, 0, 5],
        [20, 0, 5],
        [30, 0, 6],
        [30, 0, 7],
        [40, 0, 0],
        [40, 0, 7],
      ],
      50,
    );
    expect(compact(store.slicesIn(cpuId(0), 0, 50, 1))).toEqual([
      [10, 30, 5],
      [30, 50, 7],
    ]);
    expect(store.sliceCount).toBe(2);
  });

  it('ends open slices where the kept trace ends', () => {
    const store = storeOf(1, [[10, 0, 5]], 1000);
    store.markTruncated(400);
    store.setNow(5000);
    expect(store.truncatedAtNs).toBe(400);
    expect(compact(store.slicesIn(cpuId(0), 0, 5000, 1))).toEqual([[10, 400, 5]]);
    expect(store.sliceAt(cpuId(0), 500)).toBeUndefined();
  });
});

describe('timeline view', () => {
  it('follows the playhead with a window chosen from the speed', () => {
    expect(followSpanNs(0.01)).toBe(40e6);
    expect(visibleRange(FOLLOW_VIEW, 100e6, 0.01)).toEqual({ t0: 60e6, t1: 100e6 });
    // Early on, time 0 stays at the left edge.
    expect(visibleRange(FOLLOW_VIEW, 5e6, 0.01)).toEqual({ t0: 0, t1: 40e6 });
  });

  it('never follows with a window longer than the run, which then fills it', () => {
    // 10x would show 40 s; a 2 s run is shown whole, and so is a 2 ms log at 1/100x.
    expect(followSpanNs(10, 2e9)).toBe(2e9);
    expect(visibleRange(FOLLOW_VIEW, 0.5e9, 10, 2e9)).toEqual({ t0: 0, t1: 2e9 });
    expect(visibleRange(FOLLOW_VIEW, 1e6, 0.01, 2e6)).toEqual({ t0: 0, t1: 2e6 });
    // A run longer than the speed's window changes nothing; an unknown length neither.
    expect(followSpanNs(0.01, 2e9)).toBe(40e6);
    expect(followSpanNs(10, 0)).toBe(40e9);
    // Zooming out from it may still go past the run's end, as the user asks.
    expect(zoomView(FOLLOW_VIEW, 2e9, 10, 2, 1, 2e9)).toEqual({ follow: true, startNs: 0, spanNs: 4e9 });
  });

  it('zooms around an anchor and pans, which stops following', () => {
    const zoomed = zoomView(FOLLOW_VIEW, 100e6, 0.01, 0.5, 0.5);
    expect(zoomed).toEqual({ follow: false, startNs: 70e6, spanNs: 20e6 });
    // Zooming at the playhead keeps following.
    expect(zoomView(FOLLOW_VIEW, 100e6, 0.01, 0.5, 1)).toEqual({ follow: true, startNs: 60e6, spanNs: 20e6 });
    expect(panView(zoomed, 100e6, 0.01, -5e6)).toEqual({ follow: false, startNs: 65e6, spanNs: 20e6 });
    // Never before time 0.
    expect(panView(zoomed, 100e6, 0.01, -500e6).startNs).toBe(0);
  });
});

describe('brushing a window', () => {
  it('maps the pointer to a time, clamped to the plot', () => {
    // A plot 66 px from the left, 800 px wide, showing 10 ms to 20 ms.
    expect(timeAtX(10e6, 20e6, 66, 800, 66)).toBe(10e6);
    expect(timeAtX(10e6, 20e6, 66, 800, 466)).toBe(15e6);
    expect(timeAtX(10e6, 20e6, 66, 800, 5)).toBe(10e6);
    expect(timeAtX(10e6, 20e6, 66, 800, 2000)).toBe(20e6);
  });

  it('selects the window between the two ends, either way round, and stops following', () => {
    expect(brushView(12e6, 14e6)).toEqual({ follow: false, startNs: 12e6, spanNs: 2e6 });
    expect(brushView(14e6, 12e6)).toEqual({ follow: false, startNs: 12e6, spanNs: 2e6 });
    // The view it gives shows exactly that window.
    expect(visibleRange(brushView(14e6, 12e6), 50e6, 0.01)).toEqual({ t0: 12e6, t1: 14e6 });
  });

  it('widens a window narrower than the narrowest around its middle, never before 0', () => {
    expect(brushView(5000, 5500)).toEqual({ follow: false, startNs: 5250 - MIN_SPAN_NS / 2, spanNs: MIN_SPAN_NS });
    expect(brushView(0, 10)).toEqual({ follow: false, startNs: 0, spanNs: MIN_SPAN_NS });
  });

  it('zooms from the keyboard around the playhead', () => {
    expect(keyZoomAnchor(FOLLOW_VIEW, 0, 10, 10)).toBe(1);
    const paused = { follow: false, startNs: 0, spanNs: 100e6 };
    expect(keyZoomAnchor(paused, 0, 100e6, 25e6)).toBe(0.25);
    expect(keyZoomAnchor(paused, 0, 100e6, 400e6)).toBe(0.5);
    // Zooming in keeps the playhead where it was on screen.
    const zoomed = zoomView(paused, 25e6, 1, 0.5, keyZoomAnchor(paused, 0, 100e6, 25e6));
    const { t0, t1 } = visibleRange(zoomed, 25e6, 1);
    expect(t1 - t0).toBe(50e6);
    expect((25e6 - t0) / (t1 - t0)).toBeCloseTo(0.25, 10);
  });
});
