import { describe, expect, it } from 'vitest';
import type { Machine } from '../engine/protocol';
import { appendMotions, distanceOf, MAX_KEPT, MotionLog, motionSpanNs, motionView } from './motion';

/** 2 nodes x 2 LLCs x 2 cores x SMT2: CPU i is core i>>1, LLC i>>2, node i>>3. */
const MACHINE: Machine = {
  name: 'm',
  sockets: 2,
  llcs: 4,
  cores: 8,
  nodes: 2,
  threads_per_core: 2,
  frequency_mhz: 2000,
  cpus: Array.from({ length: 16 }, (_, cpu) => ({ core: cpu >> 1, llc: cpu >> 2, node: cpu >> 3, socket: cpu >> 3, thread: cpu & 1 })),
};

describe('task moves', () => {
  it('are classed by distance on the topology', () => {
    expect(distanceOf(MACHINE, 0, 1)).toBe('smt');
    expect(distanceOf(MACHINE, 0, 2)).toBe('llc');
    expect(distanceOf(MACHINE, 0, 4)).toBe('cross-llc');
    expect(distanceOf(MACHINE, 0, 8)).toBe('cross-numa');
  });

  it('read the bridge quintuples with their cause, and keep the newest', () => {
    const motions = appendMotions(MotionLog.EMPTY, new Float64Array([100, 1001, 0, 1, 0, 200, 1002, 3, 9, 1]), MACHINE);
    expect(motions.toArray()).toEqual([
      { atNs: 100, pid: 1001, from: 0, to: 1, cause: 'wakeup', distance: 'smt' },
      { atNs: 200, pid: 1002, from: 3, to: 9, cause: 'pull', distance: 'cross-numa' },
    ]);
    const many = new Float64Array(Array.from({ length: MAX_KEPT + 10 }, (_, index) => [index, 1, 0, 2, 2]).flat());
    const kept = appendMotions(motions, many, MACHINE);
    expect(kept.length).toBe(MAX_KEPT);
    expect(kept.at(kept.length - 1)?.atNs).toBe(MAX_KEPT + 9);
    expect(kept.at(0)?.atNs).toBe(10);
  });

  it('show for a span the speed sets, the newest drawn and the rest counted by distance', () => {
    // 1/100x: 0.6 s of real time is 6 ms simulated.
    expect(motionSpanNs(0.01)).toBe(6e6);
    const flat = Array.from({ length: 10 }, (_, index) => [index * 1000, 1000 + index, 0, index % 2 === 0 ? 1 : 8, 0]).flat();
    const motions = appendMotions(MotionLog.EMPTY, new Float64Array(flat), MACHINE);
    const view = motionView(motions, 9_000, 5_000, 3);
    // In the span [4000, 9000]: six moves; the newest three drawn, three counted.
    expect(view.drawn.map((motion) => motion.atNs)).toEqual([7000, 8000, 9000]);
    expect(view.drawn[0]?.age).toBeCloseTo(0.4);
    expect(view.drawn[2]?.age).toBe(0);
    expect(view.moreTotal).toBe(3);
    expect(view.more).toEqual({ smt: 2, llc: 0, 'cross-llc': 0, 'cross-numa': 1 });
    // Nothing after the playhead is drawn (a step back in time shows what had happened by then).
    expect(motionView(motions, 2_500, 5_000).drawn.map((motion) => motion.atNs)).toEqual([0, 1000, 2000]);
  });

  it('never change once made: an older log keeps its moves when a newer one grows past it', () => {
    const flat = (from: number, count: number) => new Float64Array(Array.from({ length: count }, (_, index) => [(from + index) * 10, 1, 0, 1, 0]).flat());
    const base = appendMotions(MotionLog.EMPTY, flat(0, 3), MACHINE);
    const grown = appendMotions(base, flat(3, 2), MACHINE);
    // A second branch from the same log (a run restored to an earlier frame) must not see the first's moves.
    const branch = appendMotions(base, flat(100, 1), MACHINE);
    expect(base.toArray().map((motion) => motion.atNs)).toEqual([0, 10, 20]);
    expect(grown.toArray().map((motion) => motion.atNs)).toEqual([0, 10, 20, 30, 40]);
    expect(branch.toArray().map((motion) => motion.atNs)).toEqual([0, 10, 20, 1000]);
    expect(grown.upTo(25).toArray().map((motion) => motion.atNs)).toEqual([0, 10, 20]);
    // Many frames past the limit: the newest MAX_KEPT stay, in order, with nothing lost in between.
    let log = MotionLog.EMPTY;
    for (let frame = 0; frame < 50; frame += 1) log = appendMotions(log, flat(frame * 1000, 1000), MACHINE);
    expect(log.length).toBe(MAX_KEPT);
    const times = log.toArray().map((motion) => motion.atNs / 10);
    expect(times[0]).toBe(50_000 - MAX_KEPT);
    expect(times.every((time, index) => index === 0 || time === (times[index - 1] ?? 0) + 1)).toBe(true);
  });

  it('count the moves of any stretch by distance as a walk over them would, across branches and trims', () => {
    let state = 12345;
    const next = () => {
      state = (state * 1103515245 + 12345) % 2147483648;
      return state;
    };
    let time = 0;
    const frame = (count: number) =>
      new Float64Array(
        Array.from({ length: count }, () => {
          time += 1;
          return [time, 1, next() % 16, next() % 16, 0];
        }).flat(),
      );
    let log = MotionLog.EMPTY;
    const older: MotionLog[] = [];
    for (let step = 0; step < 300; step += 1) {
      // Now and then a branch from an older log (a step back), which copies its window.
      const from = step % 97 === 96 && older.length > 0 ? (older[next() % older.length] ?? log) : log;
      log = appendMotions(from, frame(next() % 900), MACHINE);
      older.push(log);
      const moves = log.toArray();
      for (let probe = 0; probe < 5; probe += 1) {
        const a = probe === 0 ? 0 : next() % (moves.length + 1);
        const b = a + (next() % (moves.length + 1 - a));
        const walked: Record<string, number> = { smt: 0, llc: 0, 'cross-llc': 0, 'cross-numa': 0 };
        for (const motion of moves.slice(a, b)) walked[motion.distance] = (walked[motion.distance] ?? 0) + 1;
        expect(log.countByDistance(a, b)).toEqual(walked);
      }
    }
    expect(log.length).toBeLessThanOrEqual(MAX_KEPT);
  });

  it('say when a span reaches back past the moves kept, so the count is of those kept', () => {
    const flat = (from: number, count: number) => new Float64Array(Array.from({ length: count }, (_, index) => [(from + index) * 10, 1, 0, 1, 0]).flat());
    let log = MotionLog.EMPTY;
    for (let frame = 0; frame < 30; frame += 1) log = appendMotions(log, flat(frame * 1000, 1000), MACHINE);
    const now = 29_999 * 10;
    // A span within the kept moves: counted whole.
    expect(motionView(log, now, 1_000).truncated).toBe(false);
    // A span longer than what is kept (10,000 moves ago is before the oldest kept).
    const wide = motionView(log, now, 300_000);
    expect(wide.truncated).toBe(true);
    expect(wide.moreTotal + wide.drawn.length).toBe(MAX_KEPT);
  });
});
