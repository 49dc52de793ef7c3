/**
 * User intents turned into engine calls: load, play, pause, step, speed.
 * Playback runs on animation frames with at most one engine request in flight,
 * so a slow frame never piles up work.
 */
import type { EngineClient } from '../engine/client';
import type { Frame, ScenarioProblem, TraceLine } from '../engine/protocol';
import { appendTrace, SPEEDS, type AppStore } from './app';
import { mayExplain, NO_INSPECTION, notExplainable, selectionOf, type Inspection as AppInspection } from './inspector';

/** Events one frame may handle before it yields back to the page. */
const MAX_EVENTS_PER_FRAME = 200_000;
/** Longest real time one animation frame may account for (after a stall). */
const MAX_FRAME_MS = 100;

export interface Controller {
  load(id: string, text: string): Promise<boolean>;
  play(): void;
  pause(): void;
  togglePlay(): void;
  step(): Promise<void>;
  setSpeed(index: number): void;
  editText(text: string): void;
  /**
   * Selects a trace record and its task, pausing playback; for a wakeup or fork
   * asks the engine to explain it (a re-run of the scenario, so it may take a while).
   */
  inspect(line: TraceLine): Promise<void>;
  clearSelection(): void;
}

export function createController(store: AppStore, engine: EngineClient): Controller {
  let lastTick: number | undefined;
  let rafId: number | undefined;
  /** Bumped by each inspection and load: an older explanation that arrives late is dropped. */
  let inspectGeneration = 0;

  function applyFrame(frame: Frame) {
    const state = store.get();
    store.set({
      frame,
      trace: appendTrace(state.trace, frame.newTrace),
      playing: state.playing && !frame.finished,
    });
  }

  async function tick(timestamp: number) {
    rafId = undefined;
    const state = store.get();
    if (!state.playing || !state.loaded) return;
    const elapsedMs = Math.min(MAX_FRAME_MS, lastTick === undefined ? 16 : timestamp - lastTick);
    lastTick = timestamp;
    const factor = SPEEDS[state.speedIndex]?.factor ?? 0.01;
    const deltaNs = elapsedMs * 1e6 * factor;
    store.set({ busy: true });
    try {
      applyFrame(await engine.advance(deltaNs, MAX_EVENTS_PER_FRAME));
    } finally {
      store.set({ busy: false });
    }
    if (store.get().playing) schedule();
  }

  function schedule() {
    rafId ??= requestAnimationFrame((timestamp) => void tick(timestamp));
  }

  const controller: Controller = {
    async load(id, text) {
      controller.pause();
      inspectGeneration += 1;
      store.set({ status: 'loading', scenarioId: id, scenarioText: text, busy: true, selection: undefined, inspection: NO_INSPECTION });
      try {
        const result = await engine.load(text, id);
        if (!result.ok) {
          store.set({ status: 'error', problems: result.problems });
          return false;
        }
        store.set({
          status: 'ready',
          problems: [] as readonly ScenarioProblem[],
          loaded: result.loaded,
          frame: result.frame,
          trace: appendTrace([], result.frame.newTrace),
        });
        return true;
      } finally {
        store.set({ busy: false });
      }
    },
    play() {
      const state = store.get();
      if (!state.loaded || state.frame?.finished || state.status !== 'ready') return;
      lastTick = undefined;
      store.set({ playing: true });
      schedule();
    },
    pause() {
      if (rafId !== undefined) cancelAnimationFrame(rafId);
      rafId = undefined;
      if (store.get().playing) store.set({ playing: false });
    },
    togglePlay() {
      if (store.get().playing) controller.pause();
      else controller.play();
    },
    async step() {
      controller.pause();
      const state = store.get();
      if (!state.loaded || state.busy || state.frame?.finished || state.status !== 'ready') return;
      store.set({ busy: true });
      try {
        applyFrame(await engine.step());
      } finally {
        store.set({ busy: false });
      }
    },
    setSpeed(index) {
      if (index >= 0 && index < SPEEDS.length) store.set({ speedIndex: index });
    },
    editText(text) {
      store.set({ scenarioText: text });
    },
    async inspect(line) {
      controller.pause();
      const generation = ++inspectGeneration;
      const selection = selectionOf(line);
      if (!mayExplain(line.event)) {
        store.set({ selection, inspection: { status: 'message', message: notExplainable(line.event) } });
        return;
      }
      store.set({ selection, inspection: { status: 'loading' } });
      let inspection: AppInspection;
      try {
        const result = await engine.explain(line.index);
        inspection = result.ok ? { status: 'ready', decision: result.decision } : { status: 'message', message: result.message };
      } catch (error) {
        inspection = { status: 'message', message: `The engine could not explain this event: ${String(error)}` };
      }
      if (generation === inspectGeneration) store.set({ inspection });
    },
    clearSelection() {
      inspectGeneration += 1;
      store.set({ selection: undefined, inspection: NO_INSPECTION });
    },
  };
  return controller;
}
