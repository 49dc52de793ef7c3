/**
 * User intents turned into engine calls: load, play, pause, step, speed, and a
 * policy change (a re-run of the same scenario with the Policy panel's settings).
 * Playback runs on animation frames with at most one engine request in flight,
 * so a slow frame never piles up work.
 */
import type { EngineClient } from '../engine/client';
import type { Frame, LoadResult, ScenarioProblem, TraceLine } from '../engine/protocol';
import { appendTrace, SPEEDS, type AppStore } from './app';
import { mayExplain, NO_INSPECTION, notExplainable, selectionOf, type Inspection as AppInspection } from './inspector';
import { NO_OVERRIDES, parseScenarioValue, withOverrides, type PolicyOverrides } from './policy';
import { perShardContention, shardLockContention } from './shards';
import { SliceStore } from './timeline';

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
  /**
   * Selects the run that started on `cpu` at `startNs` (a timeline slice): its
   * `sched_switch` record and task, as clicking that line in the event log does.
   */
  inspectSwitch(cpu: number, startNs: number): Promise<void>;
  clearSelection(): void;
  /**
   * Re-runs the loaded scenario file from time 0 (same seed) with the policy
   * settings `update` makes of the current ones; playback resumes if it was
   * playing. Changes are applied one after another, each to the settings the
   * previous one left, so quick changes are never lost. If the engine refuses
   * the settings, says why in `policyProblems` and keeps the previous run loaded
   * and playable. Resolves to whether the new run loaded.
   */
  updatePolicy(update: (current: PolicyOverrides) => PolicyOverrides): Promise<boolean>;
  /** Starts the current run again from time 0, with its policy settings. */
  restart(): Promise<boolean>;
}

/** The scenario text a run with these overrides loads (the file's own text when there are none). */
export function runText(fileText: string, overrides: PolicyOverrides): string | undefined {
  if (Object.keys(overrides).length === 0) return fileText;
  const value = parseScenarioValue(fileText);
  return value === undefined ? undefined : JSON.stringify(withOverrides(value, overrides), null, 2);
}

export function createController(store: AppStore, engine: EngineClient): Controller {
  let lastTick: number | undefined;
  let rafId: number | undefined;
  /** Bumped by each inspection and load: an older explanation that arrives late is dropped. */
  let inspectGeneration = 0;
  /** Engine requests in flight: `busy` (part of the idle signal) holds until the last one ends. */
  let inFlight = 0;
  /** Policy re-runs, chained so each starts from the settings the previous one left. */
  let policyQueue: Promise<unknown> = Promise.resolve();

  async function engineCall<T>(call: () => Promise<T>): Promise<T> {
    inFlight += 1;
    if (!store.get().busy) store.set({ busy: true });
    try {
      return await call();
    } finally {
      inFlight -= 1;
      if (inFlight === 0) store.set({ busy: false });
    }
  }

  /** Adds a frame's switches to the run's slices (before the frame is set: see `AppState.slices`). */
  function addSlices(slices: SliceStore, frame: Frame) {
    slices.append(frame.switches);
    if (frame.traceKeptUntilNs !== undefined) slices.markTruncated(frame.traceKeptUntilNs);
    slices.setNow(frame.nowNs);
  }

  function applyFrame(frame: Frame) {
    const state = store.get();
    if (state.slices) addSlices(state.slices, frame);
    store.set({
      frame,
      trace: appendTrace(state.trace, frame.newTrace),
      playing: state.playing && !frame.finished,
      shardLockContention: shardLockContention(state.frame?.locks, frame.locks, state.shardLockContention),
      shardContentions: perShardContention(state.frame?.shardLocks, frame.shardLocks, state.shardContentions),
    });
  }

  /** What a run that loaded replaces: the machine, the frame, the trace, the selection. */
  function startRun(result: Extract<LoadResult, { ok: true }>) {
    inspectGeneration += 1;
    const slices = new SliceStore(result.loaded.machine.cpus.length);
    addSlices(slices, result.frame);
    store.set({
      slices,
      status: 'ready',
      problems: [] as readonly ScenarioProblem[],
      loaded: result.loaded,
      frame: result.frame,
      trace: appendTrace([], result.frame.newTrace),
      selection: undefined,
      inspection: NO_INSPECTION,
      shardLockContention: shardLockContention(undefined, result.frame.locks, 0),
      shardContentions: perShardContention(undefined, result.frame.shardLocks, []),
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
    await engineCall(async () => applyFrame(await engine.advance(deltaNs, MAX_EVENTS_PER_FRAME)));
    if (store.get().playing) schedule();
  }

  function schedule() {
    rafId ??= requestAnimationFrame((timestamp) => void tick(timestamp));
  }

  /** One policy re-run: the file with `overrides` on top, from time 0. */
  async function rerun(overrides: PolicyOverrides): Promise<boolean> {
    const state = store.get();
    // Only a loaded run is re-run: after editor text failed to load, the panel waits for one.
    if (state.fileText === '' || state.status !== 'ready') return false;
    const wasPlaying = state.playing;
    controller.pause();
    const text = runText(state.fileText, overrides);
    if (text === undefined) {
      store.set({ policyProblems: [{ path: '', message: 'the scenario file is not valid JSON' }] });
      return false;
    }
    return engineCall(async () => {
      const result = await engine.load(text, state.scenarioId);
      if (!result.ok) {
        // The engine kept the previous run; so does the app.
        store.set({ policyProblems: result.problems });
        return false;
      }
      startRun(result);
      store.set({ policyOverrides: overrides, policyProblems: [] });
      if (wasPlaying) controller.play();
      return true;
    });
  }

  const controller: Controller = {
    async load(id, text) {
      controller.pause();
      inspectGeneration += 1;
      store.set({ status: 'loading', scenarioId: id, scenarioText: text, selection: undefined, inspection: NO_INSPECTION });
      return engineCall(async () => {
        const result = await engine.load(text, id);
        if (!result.ok) {
          store.set({ status: 'error', problems: result.problems });
          return false;
        }
        startRun(result);
        store.set({ fileText: text, policyOverrides: NO_OVERRIDES, policyProblems: [] });
        return true;
      });
    },
    updatePolicy(update) {
      // A change made to one scenario never lands on the next one loaded meanwhile.
      const file = store.get().fileText;
      const run = policyQueue.then(() => (store.get().fileText === file ? rerun(update(store.get().policyOverrides)) : false));
      policyQueue = run.catch(() => undefined);
      return run;
    },
    async restart() {
      const state = store.get();
      if (state.fileText === '' || state.status !== 'ready') return controller.load(state.scenarioId, state.scenarioText);
      return controller.updatePolicy((current) => current);
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
      await engineCall(async () => applyFrame(await engine.step()));
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
    async inspectSwitch(cpu, startNs) {
      controller.pause();
      const generation = ++inspectGeneration;
      const line = await engineCall(() => engine.switchRecord(cpu, startNs));
      if (line && generation === inspectGeneration) await controller.inspect(line);
    },
    clearSelection() {
      inspectGeneration += 1;
      store.set({ selection: undefined, inspection: NO_INSPECTION });
    },
  };
  return controller;
}
