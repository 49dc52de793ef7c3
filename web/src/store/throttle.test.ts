import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { createStore } from './store';
import { throttledView } from './throttle';

describe('throttledView', () => {
  beforeEach(() => {
    vi.useFakeTimers();
    vi.setSystemTime(0);
  });
  afterEach(() => vi.useRealTimers());

  it('passes changes on at most every interval while playing, and at once otherwise', () => {
    const store = createStore({ playing: false, n: 0 });
    const view = throttledView(store, 100, 0, () => Date.now());
    const seen: number[] = [];
    const stop = view.subscribe(() => seen.push(view.get().n));
    // Not playing: every change, at once.
    store.set({ n: 1 });
    store.set({ n: 2 });
    expect(seen).toEqual([1, 2]);
    // Playing: the first change waits out the interval since the last shown; the rest fold into one.
    store.set({ playing: true, n: 3 });
    for (let n = 4; n <= 10; n++) store.set({ n });
    expect(view.get().n).toBe(2);
    vi.advanceTimersByTime(100);
    expect(seen).toEqual([1, 2, 10]);
    store.set({ n: 11 });
    vi.advanceTimersByTime(50);
    expect(seen).toEqual([1, 2, 10]);
    vi.advanceTimersByTime(50);
    expect(seen).toEqual([1, 2, 10, 11]);
    // The run stops: its last state shows at once, and a pending update is dropped.
    store.set({ n: 12 });
    store.set({ playing: false, n: 13 });
    expect(seen).toEqual([1, 2, 10, 11, 13]);
    vi.advanceTimersByTime(200);
    expect(seen).toEqual([1, 2, 10, 11, 13]);
    stop();
    // Another phase publishes in other slots of the same grid.
    const shifted = throttledView(store, 100, 30, () => Date.now());
    const times: number[] = [];
    const stopShifted = shifted.subscribe(() => times.push(Date.now()));
    store.set({ playing: true, n: 20 });
    vi.advanceTimersByTime(100);
    store.set({ n: 21 });
    vi.advanceTimersByTime(100);
    expect(times.map((time) => time % 100)).toEqual([30, 30]);
    stopShifted();
    store.set({ playing: false });
    // Without listeners it reads the store itself.
    store.set({ n: 14 });
    expect(view.get().n).toBe(14);
  });
});
