import { describe, expect, it } from 'vitest';
import { Counter } from '../engine/protocol';
import { RunHistory } from './history';
import { testFrame } from './testFrames';
import type { SimTimeNs } from '../base/types';

/** A frame at `nowNs` with both CPUs busy `busyEach` ns so far and the given counters. */
function frameAt(nowNs: number, busyEach: number, counters: Partial<Record<keyof typeof Counter, number>>, p99 = 0) {
  const values = new Float64Array(14);
  for (const [name, value] of Object.entries(counters)) values[Counter[name as keyof typeof Counter]] = value;
  const latency = new Float64Array(10);
  latency[0] = p99 / 2;
  latency[4] = p99;
  return testFrame({ events: 1, nowNs: nowNs as SimTimeNs, busyNs: new Float64Array([busyEach, busyEach]), counters: values, latency });
}

describe('the run history', () => {
  it('turns cumulative counters into rates per interval', () => {
    const history = new RunHistory(2);
    history.add(frameAt(0, 0, {}));
    // 1 ms later: each CPU busy 0.5 ms, 0.1 ms idle while runnable, 3 LLC moves, 2 of 10 acquisitions waited.
    history.add(frameAt(1e6, 5e5, { idleWhileRunnableLlcNs: 1e5, migrationsLlc: 3, lockAcquisitions: 10, lockContentions: 2 }, 40));
    expect(history.points).toHaveLength(1);
    expect(history.points[0]).toMatchObject({ timeNs: 1e6, utilisationPct: 50, gapPct: 5, llcPerMs: 3, smtPerMs: 0, lockWaitPct: 20, p50Us: 20, p99Us: 40 });
    // The next interval counts only what happened in it.
    history.add(frameAt(2e6, 1.5e6, { idleWhileRunnableLlcNs: 1e5, migrationsLlc: 4, lockAcquisitions: 20, lockContentions: 2 }));
    expect(history.points[1]).toMatchObject({ utilisationPct: 100, gapPct: 0, llcPerMs: 1, lockWaitPct: 0 });
  });

  it('counts utilisation over the online CPUs only', () => {
    const history = new RunHistory(2);
    history.add(frameAt(0, 0, {}));
    // 1 ms: one CPU offline throughout, the other busy 0.5 ms.
    history.add(testFrame({ events: 1, nowNs: 1e6 as SimTimeNs, busyNs: new Float64Array([5e5, 0]), counters: frameAt(1e6, 0, { offlineNs: 1e6 }).counters }));
    expect(history.points[0]?.utilisationPct).toBe(50);
  });

  it('waits for an interval long enough to mean something, and stays bounded', () => {
    const history = new RunHistory(2, 8);
    history.add(frameAt(0, 0, {}));
    history.add(frameAt(5_000, 0, {}));
    expect(history.points).toHaveLength(0);
    for (let step = 1; step <= 40; step += 1) history.add(frameAt(step * 1e6, 0, {}));
    expect(history.points.length).toBeLessThanOrEqual(8);
    expect(history.points[history.points.length - 1]?.timeNs).toBe(40e6);
    // A frame from before the last point (a new run in the same store) starts again.
    history.add(frameAt(0, 0, {}));
    expect(history.points).toHaveLength(0);
  });
});
