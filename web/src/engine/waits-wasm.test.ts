/**
 * The timeline's waiting counts end to end: the wasm bridge's `waits`, read from a
 * cursor frame by frame as the engine worker reads them (and lets the core forget
 * them, as it does), into a `SliceStore`, agree
 * with the simulator's own figures (`frame_nr_running` less the running task of
 * `frame_running`) at many instants of teaching-small, now and afterwards.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { initSync, SimHandle } from '../../wasm-pkg/sched_wasm.js';
import { cpuId } from '../base/types';
import { SliceStore } from '../store/timeline';

const repo = fileURLToPath(new URL('../../../', import.meta.url));

describe('waiting counts from the wasm bridge', () => {
  beforeAll(() => {
    initSync({ module: readFileSync(`${repo}web/wasm-pkg/sched_wasm_bg.wasm`) });
  });

  it('match nr_running less the running task at every frame of teaching-small', () => {
    const sim = new SimHandle(readFileSync(`${repo}scenarios/teaching-small.json`, 'utf8'), 'teaching-small');
    const nCpus = sim.n_cpus();
    const store = new SliceStore(nCpus);
    let cursor = 0;
    const seen: { timeNs: number; expected: number[] }[] = [];
    let timeNs = 0;
    for (let frame = 0; frame < 300; frame++) {
      // Uneven frames, so the instants fall anywhere in the tasks' cycles.
      timeNs += 150_000 + (frame % 5) * 70_000;
      sim.run_until(timeNs);
      const total = sim.waits_len();
      store.appendWaits(sim.waits(cursor, total));
      cursor = total;
      // As the worker does: the core forgets what the page has copied.
      sim.forget_waits_before(cursor);
      store.setNow(sim.now_ns());
      const running = sim.frame_running();
      const nrRunning = sim.frame_nr_running();
      const expected = Array.from({ length: nCpus }, (_, cpu) => (nrRunning[cpu] ?? 0) - (running[cpu] === 0 ? 0 : 1));
      for (let cpu = 0; cpu < nCpus; cpu++) expect(store.waitingAt(cpuId(cpu), timeNs), `CPU ${cpu} at ${timeNs} ns`).toBe(expected[cpu]);
      seen.push({ timeNs, expected });
    }
    sim.free();
    // The store keeps the history: every instant still reads as it did.
    for (const { timeNs: at, expected } of seen) {
      expect(expected.map((_, cpu) => store.waitingAt(cpuId(cpu), at))).toEqual(expected);
    }
    // Tasks did wait: at some instants, on several CPUs, and the shading has something to show.
    const instantsWithWaits = seen.filter(({ expected }) => expected.some((count) => count > 0)).length;
    expect(instantsWithWaits).toBeGreaterThan(10);
    const shaded = Array.from({ length: nCpus }, (_, cpu) => store.waitsIn(cpuId(cpu), 0, timeNs, timeNs / 1000).length);
    expect(shaded.filter((count) => count > 0).length).toBeGreaterThan(1);
  });

  it('are the same read frame by frame with the core forgetting them as read all at once', () => {
    const text = readFileSync(`${repo}scenarios/hackbench-7950x.json`, 'utf8');
    const untilNs = 20_000_000;
    const whole = new SimHandle(text, 'hackbench-7950x');
    whole.run_until(untilNs);
    const total = whole.waits_len();
    const all = whole.waits(0, total);
    whole.free();

    const sim = new SimHandle(text, 'hackbench-7950x');
    const read: number[] = [];
    let cursor = 0;
    for (let timeNs = 100_000; timeNs <= untilNs; timeNs += 100_000) {
      sim.run_until(timeNs);
      const now = sim.waits_len();
      read.push(...sim.waits(cursor, now));
      cursor = now;
      sim.forget_waits_before(cursor);
    }
    expect(cursor).toBe(total);
    expect(total).toBeGreaterThan(10 * 1024);
    expect(read).toEqual(Array.from(all));
    // The core kept only the newest entries: the open ones and at most a sealed chunk of 1024.
    expect(sim.waits(0, total).length / 3).toBeLessThan(2 * 1024);
    sim.free();
  });
});