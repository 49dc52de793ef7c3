import { afterEach, describe, expect, it, vi } from 'vitest';
import { createAppStore, isIdle } from './app';
import { createController, ENGINE_SILENCE_MS } from './controller';
import type { EngineClient, EngineLifecycle } from '../engine/client';
import { ENGINE_FAILURE, guardEngine, isEngineFailure } from '../engine/failure';
import type { SimTimeNs } from '../base/types';
import { testFrame, testLoaded } from './testFrames';

const loaded = testLoaded();

function engineWith(step: () => Promise<unknown>) {
  const load = vi.fn<(text: string, name: string) => Promise<unknown>>(async () => ({ ok: true, loaded, frame: testFrame({ events: 0, nowNs: 0 as SimTimeNs }) }));
  return { client: { load, step } as unknown as EngineClient, load };
}

/** A lifecycle whose restart hands out `next`, and whose failure listener the test can call. */
function lifecycleOf(next: EngineClient) {
  let listener: ((message: string) => void) | undefined;
  const lifecycle: EngineLifecycle = {
    onFailure: (l) => {
      listener = l;
    },
    restart: vi.fn(() => next),
  };
  return { lifecycle, fail: (message: string) => listener?.(message) };
}

function failure(message: string): Error {
  const error = new Error(message);
  error.name = ENGINE_FAILURE;
  return error;
}

afterEach(() => {
  vi.useRealTimers();
});

describe('a failed engine', () => {
  it('says what the core said when a call fails with an engine failure, and a restart loads the scenario again with its settings', async () => {
    const first = engineWith(async () => Promise.reject(failure('panicked at crates/sched-core/src/engine/mod.rs:1:1:\nboom')));
    const second = engineWith(async () => testFrame({ events: 1, nowNs: 1000 as SimTimeNs }));
    const { lifecycle } = lifecycleOf(second.client);
    const store = createAppStore();
    const controller = createController(store, first.client, lifecycle);
    const text = '{"title": "mine"}';
    await controller.load('custom', text, { 'policy.shared_runq.mode': 'all' });
    await expect(controller.step()).rejects.toThrow('boom');
    expect(store.get().engineTrouble).toEqual({ kind: 'failed', message: 'panicked at crates/sched-core/src/engine/mod.rs:1:1:\nboom' });
    expect(isIdle(store.get())).toBe(true);

    // Nothing more goes to it.
    await expect(controller.step()).rejects.toThrow('the engine has stopped: restart it to go on');

    store.set({ scenarioText: '{"title": "mine", "seed": 3' });
    expect(await controller.restartEngine()).toBe(true);
    expect(lifecycle.restart).toHaveBeenCalledTimes(1);
    // The same file with the same overrides, in the fresh engine; the editor's unfinished text is kept.
    expect(second.load).toHaveBeenCalledTimes(1);
    expect(JSON.parse(second.load.mock.calls[0]![0])).toEqual({ title: 'mine', policy: { shared_runq: { mode: 'all' } } });
    expect(store.get().policyOverrides).toEqual({ 'policy.shared_runq.mode': 'all' });
    expect(store.get().scenarioText).toBe('{"title": "mine", "seed": 3');
    expect(store.get().engineTrouble?.kind).toBe('restarted');
    await controller.step();
    expect(store.get().frame?.events).toBe(1);
  });

  it('shows a failure the worker reports on its own, and stops playing', async () => {
    const first = engineWith(async () => testFrame({ events: 1, nowNs: 1 as SimTimeNs }));
    const { lifecycle, fail } = lifecycleOf(first.client);
    const store = createAppStore();
    const controller = createController(store, first.client, lifecycle);
    await controller.load('custom', '{}');
    store.set({ playing: true });
    fail('Uncaught RangeError: out of memory');
    expect(store.get().engineTrouble).toEqual({ kind: 'failed', message: 'Uncaught RangeError: out of memory' });
    expect(store.get().playing).toBe(false);
  });

  it('does not take an ordinary error for a failed engine', async () => {
    const first = engineWith(async () => Promise.reject(new Error('no scenario is loaded')));
    const { lifecycle } = lifecycleOf(first.client);
    const store = createAppStore();
    const controller = createController(store, first.client, lifecycle);
    await controller.load('custom', '{}');
    await expect(controller.step()).rejects.toThrow('no scenario is loaded');
    expect(store.get().engineTrouble).toBeUndefined();
  });
});

describe('a silent engine', () => {
  it('is reported after ENGINE_SILENCE_MS without an answer; a restart drops the request and frees the page', async () => {
    vi.useFakeTimers();
    const first = engineWith(() => new Promise(() => undefined));
    const second = engineWith(async () => testFrame({ events: 5, nowNs: 5 as SimTimeNs }));
    const { lifecycle } = lifecycleOf(second.client);
    const store = createAppStore();
    const controller = createController(store, first.client, lifecycle);
    await controller.load('teaching-small', '{}');
    const stuck = controller.step();
    stuck.catch(() => undefined);
    await vi.advanceTimersByTimeAsync(ENGINE_SILENCE_MS - 2000);
    expect(store.get().engineTrouble).toBeUndefined();
    expect(store.get().busy).toBe(true);
    await vi.advanceTimersByTimeAsync(3000);
    expect(store.get().engineTrouble?.kind).toBe('silent');
    expect(store.get().engineTrouble?.message).toMatch(/has not answered for 3\d s/);

    // Keep waiting: quiet for another ENGINE_SILENCE_MS, then said again.
    controller.dismissEngineTrouble();
    await vi.advanceTimersByTimeAsync(ENGINE_SILENCE_MS - 2000);
    expect(store.get().engineTrouble).toBeUndefined();
    await vi.advanceTimersByTimeAsync(3000);
    expect(store.get().engineTrouble?.kind).toBe('silent');

    expect(await controller.restartEngine()).toBe(true);
    await expect(stuck).rejects.toThrow('the engine was restarted');
    expect(store.get().busy).toBe(false);
    expect(isIdle(store.get())).toBe(true);
    await controller.step();
    expect(store.get().frame?.events).toBe(5);
  });

  it('goes away when the engine answers after all', async () => {
    vi.useFakeTimers();
    let finish: (value: unknown) => void = () => undefined;
    const first = engineWith(() => new Promise((resolve) => (finish = resolve)));
    const store = createAppStore();
    const controller = createController(store, first.client, lifecycleOf(first.client).lifecycle);
    await controller.load('teaching-small', '{}');
    const slow = controller.step();
    await vi.advanceTimersByTimeAsync(ENGINE_SILENCE_MS + 1000);
    expect(store.get().engineTrouble?.kind).toBe('silent');
    finish(testFrame({ events: 2, nowNs: 2 as SimTimeNs }));
    await slow;
    expect(store.get().engineTrouble).toBeUndefined();
    expect(store.get().frame?.events).toBe(2);
  });
});

describe('a long log read', () => {
  it('is not taken for a silent engine while it reports progress', async () => {
    vi.useFakeTimers();
    const openLog = vi.fn(async (_file: Blob, _preset: string, _name: string, progress: (report: { read: number; total: number }) => void) => {
      for (let read = 1; read <= 6; read += 1) {
        await new Promise((resolve) => setTimeout(resolve, 10_000));
        progress({ read, total: 6 });
      }
      return { ok: false, message: 'x.txt has no scheduler events' };
    });
    const client = { openLog } as unknown as EngineClient;
    const store = createAppStore();
    const controller = createController(store, client, lifecycleOf(client).lifecycle);
    const seen: number[] = [];
    const reading = controller.openLog(new Blob(['']), 'auto', 'x.txt', (report) => seen.push(report.read));
    for (let second = 0; second < 60; second += 5) {
      await vi.advanceTimersByTimeAsync(5000);
      expect(store.get().engineTrouble).toBeUndefined();
    }
    expect(await reading).toEqual({ ok: false, message: 'x.txt has no scheduler events' });
    expect(seen).toEqual([1, 2, 3, 4, 5, 6]);
  });
});

describe('guardEngine', () => {
  it('turns a trap of the wasm module into an engine failure with the panic message, thrown or rejected', async () => {
    const trap = () => {
      throw new WebAssembly.RuntimeError('unreachable');
    };
    const guarded = guardEngine(
      {
        now: trap,
        later: async () => trap(),
        ordinary: () => {
          throw new Error('no scenario is loaded');
        },
        fine: (x: number) => x + 1,
      },
      () => 'panicked at src/lib.rs:1:1:\nboom',
    );
    let thrown: unknown;
    try {
      guarded.now();
    } catch (error) {
      thrown = error;
    }
    expect(isEngineFailure(thrown)).toBe(true);
    expect((thrown as Error).message).toBe('panicked at src/lib.rs:1:1:\nboom');
    await expect(guarded.later()).rejects.toMatchObject({ name: ENGINE_FAILURE, message: 'panicked at src/lib.rs:1:1:\nboom' });
    expect(() => guarded.ordinary()).toThrow('no scenario is loaded');
    expect(isEngineFailure((() => { try { guarded.ordinary(); } catch (e) { return e; } })())).toBe(false);
    expect(guarded.fine(1)).toBe(2);
  });

  it('says the module stopped when it left no panic message', () => {
    const guarded = guardEngine({ now: () => { throw new WebAssembly.RuntimeError('unreachable'); } }, () => undefined);
    expect(() => guarded.now()).toThrow('the WebAssembly core stopped: unreachable');
  });
});

describe('an unapplied edit', () => {
  it('is set aside when another scenario loads in its place, and can be put back or discarded', async () => {
    const { client } = engineWith(async () => testFrame({ events: 1, nowNs: 1 as SimTimeNs }));
    const store = createAppStore();
    const controller = createController(store, client);
    await controller.load('teaching-small', '{"seed": 1}');
    controller.editText('{"seed": 1, "mine": true}');
    await controller.load('cgroup-weights', '{"seed": 2}');
    expect(store.get().scenarioText).toBe('{"seed": 2}');
    expect(store.get().setAsideEdit).toEqual({ from: 'teaching-small', text: '{"seed": 1, "mine": true}' });

    // Put back while the editor holds an edit of its own: the two change places.
    controller.editText('{"seed": 2, "other": 1}');
    controller.restoreSetAside();
    expect(store.get().scenarioText).toBe('{"seed": 1, "mine": true}');
    expect(store.get().setAsideEdit).toEqual({ from: 'cgroup-weights', text: '{"seed": 2, "other": 1}' });
    controller.discardSetAside();
    expect(store.get().setAsideEdit).toBeUndefined();
  });

  it('is not set aside when the editor holds the applied text, or the text being applied', async () => {
    const { client } = engineWith(async () => testFrame({ events: 1, nowNs: 1 as SimTimeNs }));
    const store = createAppStore();
    const controller = createController(store, client);
    await controller.load('teaching-small', '{"seed": 1}');
    await controller.load('cgroup-weights', '{"seed": 2}');
    expect(store.get().setAsideEdit).toBeUndefined();
    controller.editText('{"seed": 3}');
    await controller.load('custom', '{"seed": 3}');
    expect(store.get().setAsideEdit).toBeUndefined();
  });

  it("is not the last scenario's text kept in the editor while a replayed log plays", async () => {
    const { client } = engineWith(async () => testFrame({ events: 1, nowNs: 1 as SimTimeNs }));
    const openLog = vi.fn(async () => ({ ok: true, loaded: { ...loaded, log: { name: 'pasted log' } }, frame: testFrame({ events: 0, nowNs: 0 as SimTimeNs }), replay: {}, reading: {} }));
    const store = createAppStore();
    const controller = createController(store, { ...client, openLog } as unknown as EngineClient);
    await controller.load('teaching-small', '{"seed": 1}');
    await controller.openLog(new Blob(['log']), 'generic', 'pasted log');
    expect(store.get().scenarioId).toBe('log');
    expect(store.get().scenarioText).toBe('{"seed": 1}');
    // Re-simulate (or any scenario) loads: the editor held no edit, so nothing is set aside.
    await controller.load('custom', '{"seed": 4}');
    expect(store.get().setAsideEdit).toBeUndefined();
    // An edit made while the log plays still is.
    await controller.openLog(new Blob(['log']), 'generic', 'pasted log');
    controller.editText('{"seed": 4, "mine": true}');
    await controller.load('cgroup-weights', '{"seed": 2}');
    expect(store.get().setAsideEdit).toEqual({ from: "the log's scenario", text: '{"seed": 4, "mine": true}' });
  });
});
