/**
 * User intents turned into engine calls: load, play, pause, step, speed, and a
 * policy change (a re-run of the same scenario with the Policy panel's settings).
 * Playback runs on animation frames with at most one engine request in flight,
 * so a slow frame never piles up work.
 */
import * as Comlink from 'comlink';
import type { EngineClient, EngineLifecycle } from '../engine/client';
import { isEngineFailure } from '../engine/failure';
import type { Frame, LayoutResult, LoadedScenario, LoadResult, LogFilter, LogOpenResult, LogProgress, ScenarioProblem, TraceLine } from '../engine/protocol';
import { appendTrace, SPEEDS, type AppState, type AppStore, type CatchUp, type EngineTrouble, type Notice } from './app';
import { mayExplain, NO_INSPECTION, notExplainable, selectionOf, type Inspection as AppInspection } from './inspector';
import { NO_OVERRIDES, runText, type PolicyOverrides } from './policy';
import { editedName } from './keep';
import { perShardContention, shardLockContention } from './shards';
import { FOLLOW_VIEW, SliceStore, type SliceMark, type TimelineView } from './timeline';
import { FrequencySeries, parseFramePower, powerOn } from './power';
import { appendMotions, MotionLog } from './motion';
import { RunHistory } from './history';
import type { Playhead } from './share';
import { formatTraceTime } from '../base/format';
import { simTimeNs, type SimTimeNs } from '../base/types';

/** Records per `ftrace_text` call when exporting the trace (about 10 MB of text each). */
export const FTRACE_CHUNK = 100_000;

/** A session to open (a share link's, the kept one's): what to load, with what, and how far to run. */
export interface RestoreRequest {
  /** A bundled scenario's id, or `custom` for text. */
  readonly id: string;
  readonly text: string;
  /** The part of the link or session the scenario came from, for problems (`scenario`, `text`). */
  readonly part: string;
  readonly overrides: PolicyOverrides;
  readonly speedIndex: number;
  readonly playhead: Playhead | undefined;
  /** The timeline's window to show; undefined follows the playhead. */
  readonly view?: TimelineView;
  /** Editor text to put back once the run has loaded; undefined keeps the loaded text. */
  readonly editorText: string | undefined;
  /** What to open when the scenario does not load. */
  readonly fallback: { readonly id: string; readonly text: string };
}

/** The decisions `stepToNext` stops at. */
export type DecisionKind = 'wakeup' | 'migration' | 'pull';
export const DECISION_KINDS: readonly { readonly kind: DecisionKind; readonly label: string; readonly code: number }[] = [
  { kind: 'wakeup', label: 'wakeup placement', code: 0 },
  { kind: 'migration', label: 'migration', code: 1 },
  { kind: 'pull', label: 'balancer pull', code: 2 },
];
/** At most this many events are looked through for the next decision (in chunks the page stays live between). */
const MAX_EVENTS_TO_NEXT = 20_000_000;

/**
 * Wall time the engine may spend on one animation frame while playing: half of
 * the last frame's interval (the other half draws it), at least 8 ms of a 60 Hz
 * frame, at most 50 ms, so a page that draws slowly (a 512-CPU machine) still
 * gives the engine its share.
 */
function frameBudgetMs(elapsedMs: number): number {
  return Math.min(50, Math.max(8, elapsedMs / 2));
}

/** Records one event-log search looks through at most (a few milliseconds of work). */
const SEARCH_SCAN = 2_000_000;

/** Events one frame may handle before it yields back to the page. */
const MAX_EVENTS_PER_FRAME = 200_000;
/** How often a catch-up to a time (a policy re-run, a seek) shows where it has got to, in wall milliseconds. */
const SHOW_EVERY_MS = 100;
/** Longest real time one animation frame may account for (after a stall). */
const MAX_FRAME_MS = 100;
/**
 * How long the engine may leave a request unanswered, with no progress, before
 * the page says so. Frames and seeks answer within a frame; a large export or a
 * log's re-simulation can take longer, so the page offers to wait or restart and
 * stops nothing itself.
 */
export const ENGINE_SILENCE_MS = 30_000;

export interface Controller {
  /** Loads a scenario from time 0, with the Policy panel's `overrides` (none by default) on top. */
  load(id: string, text: string, overrides?: PolicyOverrides): Promise<boolean>;
  play(): void;
  pause(): void;
  /**
   * Runs on (paused) to the next decision of a kind and selects it, so the
   * Inspector explains it; says so when none came before the end of the run.
   */
  stepToNext(kind: DecisionKind): Promise<void>;
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
  /** Selects a CPU (a click on the machine): the Inspector shows its runqueue, its recent switches and its load. */
  selectCpu(cpu: number): void;
  /**
   * Re-runs the loaded scenario file from time 0 (same seed) with the policy
   * settings `update` makes of the current ones, runs it on to the time the
   * playhead was at (so the change is seen at the same moment), and resumes
   * playback if it was playing. Changes are applied one after another, each to the settings the
   * previous one left, so quick changes are never lost. If the engine refuses
   * the settings, says why in `policyProblems` and keeps the previous run loaded
   * and playable. Resolves to whether the new run loaded.
   */
  updatePolicy(update: (current: PolicyOverrides) => PolicyOverrides): Promise<boolean>;
  /** Starts the current run again from time 0, with its policy settings. */
  restart(): Promise<boolean>;
  /**
   * Reads a real machine's log (a file, or pasted text as a Blob) in the engine
   * worker, telling `progress` as it goes, and plays it in place of the loaded
   * run, in every view: time 0 is its first event. On failure or cancel the
   * loaded run stays as it was.
   */
  openLog(file: Blob, preset: string, name: string, progress?: (progress: LogProgress) => void): Promise<LogOpenResult>;
  /** Stops the log being read by `openLog`. */
  cancelLog(): Promise<void>;
  /** The playing log's what-if scenario (JSON text), made on demand; undefined when no log plays. */
  logWhatIf(): Promise<string | undefined>;
  /**
   * Moves the playhead to `timeNs` (paused): on by running, back by running the
   * same scenario and seed again from 0 to there; the run is deterministic, so
   * the state there is the one seen before.
   */
  scrubTo(timeNs: number): Promise<void>;
  /**
   * Runs the current run on (paused) until it has handled `playhead.events` events
   * and reached `playhead.timeNs`, in bounded steps so the page stays live; stops at
   * the end of the run, or when another run is loaded meanwhile.
   */
  seek(playhead: Playhead): Promise<void>;
  /**
   * Opens a session: loads the scenario with its overrides, selects the speed, runs
   * to the playhead, and puts back the editor's text. What cannot be done as asked
   * (the scenario does not load, the engine refuses the overrides, the playhead is
   * past the end) is returned as problems, after falling back: the scenario without
   * the overrides, or `fallback` (the shared text kept in the editor with its problems).
   * Busy throughout, so the idle signal holds off until it is all done.
   */
  restore(request: RestoreRequest): Promise<readonly ScenarioProblem[]>;
  /** Sets the timeline's window (zoom, pan, or following the playhead). */
  setTimelineView(view: TimelineView): void;
  /** Shows (or with undefined, dismisses) the notice above the panels. */
  notify(notice: Notice | undefined): void;
  /**
   * Replaces a failed or silent engine with a fresh one (every request to the old
   * one is dropped) and loads the scenario again from time 0, with the file's text
   * and the Policy panel's settings as they were; a log is closed, as only the
   * user can give its file again. Resolves to whether the scenario loaded.
   */
  restartEngine(): Promise<boolean>;
  /** Dismisses the engine's trouble note; a silent engine is given another `ENGINE_SILENCE_MS`. */
  dismissEngineTrouble(): void;
  /** Puts the set-aside edit back in the editor (setting aside, in turn, an unapplied edit there). */
  restoreSetAside(): void;
  /** Forgets the set-aside edit. */
  discardSetAside(): void;
  /** The whole trace as the kernel's `trace` file, in chunks to join: read in `FTRACE_CHUNK` records per engine call. */
  ftraceText(reasons: boolean): Promise<readonly string[]>;
  /** The run's summary as `schedlab run --json` prints it. */
  summaryJson(): Promise<string>;
  /**
   * Checks a `policy.struct_layout` value (JSON text; empty for the original
   * layout) with the core: both structures laid out, or why it is not a layout.
   */
  structLayout(specText: string): Promise<LayoutResult>;
  /** Scenario text's problems as the core finds them on Apply (the editor's live check); empty when it would load. */
  checkScenario(text: string): Promise<readonly ScenarioProblem[]>;
  /** Trace records matching `filter` before record `before`, newest first (the event log's search). */
  searchTrace(filter: LogFilter, before: number, count: number): Promise<readonly TraceLine[]>;
  /** The kept trace as Chrome trace-event JSON, for Perfetto. */
  perfettoJson(): Promise<string>;
}

/** Whether the editor holds text that differs from the applied file (and is not empty). */
function unapplied(state: Pick<AppState, 'scenarioText' | 'fileText' | 'appliedText'>): boolean {
  return state.scenarioText.trim() !== '' && state.scenarioText !== state.fileText && state.scenarioText !== state.appliedText;
}



/** The page's stores at an engine snapshot (see `marks` in `createController`). */
interface RunMark {
  readonly timeNs: number;
  readonly slices: SliceMark;
  readonly history: ReturnType<RunHistory['mark']>;
  readonly frequency: ReturnType<FrequencySeries['mark']> | undefined;
}

export function createController(store: AppStore, firstEngine: EngineClient, lifecycle?: EngineLifecycle): Controller {
  let engine = firstEngine;
  let lastTick: number | undefined;
  let rafId: number | undefined;
  /** Bumped by each inspection and load: an older explanation that arrives late is dropped. */
  let inspectGeneration = 0;
  /** Engine requests in flight: `busy` (part of the idle signal) holds until the last one ends. */
  let inFlight = 0;
  /** Policy re-runs, chained so each starts from the settings the previous one left. */
  let policyQueue: Promise<unknown> = Promise.resolve();
  /**
   * Per engine snapshot of this run (its index), what the page's own stores held
   * right after that frame: going back restores both sides to the same moment.
   */
  let marks = new Map<number, RunMark>();
  /** Rejects, on a restart, every request still waiting for the engine it replaced. */
  let dropRequests: (error: Error) => void = () => undefined;
  let dropped = droppedRequests();
  /** When the engine last answered or reported progress, and the check that it still does. */
  let lastAnswer = 0;
  let silenceCheck: ReturnType<typeof setInterval> | undefined;
  /** The last scenario that loaded (not a log): what a restart loads when a log was playing. */
  let lastScenario: { id: string; text: string; overrides: PolicyOverrides } | undefined;

  function droppedRequests(): Promise<never> {
    const promise = new Promise<never>((_, reject) => {
      dropRequests = reject;
    });
    promise.catch(() => undefined);
    return promise;
  }

  function engineTrouble(trouble: EngineTrouble | undefined) {
    if (trouble && trouble.kind !== 'restarted') controller.pause();
    store.set({ engineTrouble: trouble });
  }

  function engineAnswered() {
    lastAnswer = Date.now();
    if (store.get().engineTrouble?.kind === 'silent') engineTrouble(undefined);
  }

  function checkSilence() {
    if (inFlight === 0 || store.get().engineTrouble !== undefined) return;
    const silentMs = Date.now() - lastAnswer;
    if (silentMs >= ENGINE_SILENCE_MS) engineTrouble({ kind: 'silent', message: `The engine has not answered for ${Math.round(silentMs / 1000)} s.` });
  }

  lifecycle?.onFailure((message) => engineTrouble({ kind: 'failed', message }));

  /** Notes where the run's stores stand when the engine took a snapshot at this frame. */
  function markSnapshot(frame: Frame) {
    if (frame.snapshot === undefined) return;
    const state = store.get();
    if (!state.slices || !state.history) return;
    marks.set(frame.snapshot, { timeNs: frame.nowNs, slices: state.slices.mark(), history: state.history.mark(), frequency: state.frequency?.mark() });
  }

  /**
   * Goes back to the latest snapshot at or before `target` (which lies before the
   * playhead): the engine restores it, the stores rewind to their marks. False
   * when there is none, and the caller re-runs from time 0 instead.
   */
  async function restoreBefore(target: number): Promise<boolean> {
    let best: [number, RunMark] | undefined;
    for (const entry of marks) if (entry[1].timeNs <= target && (!best || entry[1].timeNs > best[1].timeNs)) best = entry;
    if (!best) return false;
    const [index, mark] = best;
    const run = store.get().slices;
    const frame = await engineCall(() => engine.restore(index));
    const state = store.get();
    if (!frame || state.slices !== run || !state.slices || !state.history) return false;
    for (const key of [...marks.keys()]) if (key > index) marks.delete(key);
    state.slices.rewind(mark.slices);
    state.history.rewind(mark.history);
    if (mark.frequency) state.frequency?.rewind(mark.frequency);
    store.set({
      frame,
      trace: appendTrace([], frame.newTrace),
      motions: state.motions.upTo(frame.nowNs),
      playing: false,
      restoredFromNs: frame.nowNs,
    });
    return true;
  }

  async function engineCall<T>(call: () => Promise<T>): Promise<T> {
    // A failed engine is not called again: its state may be half changed.
    if (store.get().engineTrouble?.kind === 'failed') throw new Error('the engine has stopped: restart it to go on');
    inFlight += 1;
    if (inFlight === 1) {
      lastAnswer = Date.now();
      silenceCheck ??= setInterval(checkSilence, 1000);
    }
    if (!store.get().busy) store.set({ busy: true });
    const generation = dropped;
    try {
      return await Promise.race([call(), generation]);
    } catch (error) {
      if (isEngineFailure(error)) engineTrouble({ kind: 'failed', message: error.message });
      throw error;
    } finally {
      // A request the restart dropped was counted off then.
      if (generation === dropped) {
        engineAnswered();
        inFlight -= 1;
        if (inFlight === 0) {
          clearInterval(silenceCheck);
          silenceCheck = undefined;
          store.set({ busy: false });
        }
      }
    }
  }

  /** Adds a frame's switches and waiting counts to the run's slices (before the frame is set: see `AppState.slices`). */
  function addSlices(slices: SliceStore, frame: Frame) {
    slices.append(frame.switches);
    slices.appendWaits(frame.waits);
    if (frame.traceKeptUntilNs !== undefined) slices.markTruncated(frame.traceKeptUntilNs);
    slices.setNow(frame.nowNs);
  }

  /** Samples a frame's socket frequencies into the run's series (before the frame is set: see `AppState.frequency`). */
  function addFrequency(series: FrequencySeries, loaded: LoadedScenario, frame: Frame) {
    const power = parseFramePower(frame.power, loaded.power);
    if (power) series.add(frame.nowNs, power.sockets);
  }

  /** The time a finished frame ended at, when that is before the scenario's end. */
  function endedEarly(frame: Frame, loaded: LoadedScenario | undefined): SimTimeNs | undefined {
    return frame.finished && loaded && frame.nowNs < loaded.endNs ? frame.nowNs : undefined;
  }

  /**
   * A frame's changes to the page's state not shown yet: a catch-up shows a frame
   * every `SHOW_EVERY_MS` of wall time, not each of its hundred-odd steps (each shown
   * frame is a render of the whole page, and those renders were most of a re-run's
   * time). The run's own stores (slices, history, frequency) take every frame.
   */
  let held: Partial<AppState> | undefined;

  /** The state with the frames held back applied. */
  function latest(): AppState {
    return held ? { ...store.get(), ...held } : store.get();
  }

  /** Shows what was held back, if it still belongs to the run shown. */
  function showHeld(run: SliceStore | undefined) {
    const pending = held;
    held = undefined;
    if (pending && store.get().slices === run) store.set(pending);
  }

  function applyFrame(frame: Frame, show = true) {
    const state = latest();
    if (state.slices) addSlices(state.slices, frame);
    if (state.frequency && state.loaded) addFrequency(state.frequency, state.loaded, frame);
    state.history?.add(frame);
    const update: Partial<AppState> = {
      frame,
      trace: appendTrace(state.trace, frame.newTrace),
      motions: state.loaded ? appendMotions(state.motions, frame.migrations, state.loaded.machine) : state.motions,
      playing: state.playing && !frame.finished,
      finishedAtNs: endedEarly(frame, state.loaded) ?? state.finishedAtNs,
      shardLockContention: shardLockContention(state.frame?.locks, frame.locks, state.shardLockContention),
      shardContentions: perShardContention(state.frame?.shardLocks, frame.shardLocks, state.shardContentions),
    };
    if (show) {
      held = undefined;
      store.set(update);
    } else {
      held = update;
    }
    markSnapshot(frame);
  }

  /** What a run that loaded replaces: the machine, the frame, the trace, the selection. */
  function startRun(result: Extract<LoadResult, { ok: true }>) {
    inspectGeneration += 1;
    const slices = new SliceStore(result.loaded.machine.cpus.length);
    addSlices(slices, result.frame);
    const power = powerOn(result.loaded.power);
    const frequency = power ? new FrequencySeries(power.cores_per_socket.length) : undefined;
    if (frequency) addFrequency(frequency, result.loaded, result.frame);
    const history = new RunHistory(result.loaded.machine.cpus.length);
    history.add(result.frame);
    store.set({
      slices,
      frequency,
      history,
      status: 'ready',
      problems: [] as readonly ScenarioProblem[],
      loaded: result.loaded,
      frame: result.frame,
      trace: appendTrace([], result.frame.newTrace),
      motions: appendMotions(MotionLog.EMPTY, result.frame.migrations, result.loaded.machine),
      finishedAtNs: endedEarly(result.frame, result.loaded),
      selection: undefined,
      // The inspected CPU stays (the same CPU under another policy), if the new machine has it.
      cpuSelection: (store.get().cpuSelection ?? Infinity) < result.loaded.machine.cpus.length ? store.get().cpuSelection : undefined,
      inspection: NO_INSPECTION,
      shardLockContention: shardLockContention(undefined, result.frame.locks, 0),
      shardContentions: perShardContention(undefined, result.frame.shardLocks, []),
    });
    marks = new Map();
    store.set({ restoredFromNs: undefined });
    markSnapshot(result.frame);
  }

  async function tick(timestamp: number) {
    rafId = undefined;
    const state = store.get();
    if (!state.playing || !state.loaded) return;
    const elapsedMs = Math.min(MAX_FRAME_MS, lastTick === undefined ? 16 : timestamp - lastTick);
    lastTick = timestamp;
    const factor = SPEEDS[state.speedIndex]?.factor ?? 0.01;
    const deltaNs = elapsedMs * 1e6 * factor;
    try {
      await engineCall(async () => applyFrame(await engine.advance(deltaNs, frameBudgetMs(elapsedMs))));
    } catch {
      // The engine failed or was restarted (the page says so): playing stops.
      controller.pause();
      return;
    }
    if (store.get().playing) schedule();
  }

  function schedule() {
    rafId ??= requestAnimationFrame((timestamp) => void tick(timestamp));
  }

  /**
   * One policy re-run: the file with `overrides` on top, from time 0, then (with
   * `keepTime`) on to the playhead's time.
   */
  async function rerun(overrides: PolicyOverrides, keepTime: boolean): Promise<boolean> {
    const state = store.get();
    const atNs = keepTime ? (state.frame?.nowNs ?? 0) : 0;
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
      // The same run again (going back re-runs it from 0) ends where it ended before.
      const sameRun = overrides === state.policyOverrides && state.loaded?.endNs === result.loaded.endNs;
      store.set({ policyOverrides: overrides, policyProblems: [], ...(sameRun && state.finishedAtNs !== undefined ? { finishedAtNs: state.finishedAtNs } : {}) });
      if (atNs > 0) await catchUp({ timeNs: simTimeNs(atNs), events: undefined }, 'policy');
      if (wasPlaying) controller.play();
      return true;
    });
  }

  /**
   * Carries the run on to `playhead` without playing, a frame at a time, with
   * `catchingUp` saying where to and why until it gets there.
   */
  async function catchUp(playhead: Playhead, why: CatchUp['why']): Promise<void> {
    controller.pause();
    const run = store.get().slices;
    store.set({ catchingUp: { toNs: playhead.timeNs, why } });
    try {
      await seekTo(playhead, run);
    } finally {
      store.set({ catchingUp: undefined });
    }
  }

  async function seekTo(playhead: Playhead, run: SliceStore | undefined): Promise<void> {
    await engineCall(async () => {
      let shownAt = performance.now();
      try {
        for (;;) {
          const state = latest();
          const frame = state.frame;
          if (!frame || frame.finished || state.slices !== run || state.status !== 'ready') return;
          const needEvents = playhead.events !== undefined && frame.events < playhead.events;
          if (!needEvents && frame.nowNs >= playhead.timeNs) return;
          // In steps of a 150th of the way (as playing would), so the charts over time get their samples.
          const stepNs = Math.max(10_000, playhead.timeNs / 150);
          const towards = needEvents ? playhead.timeNs : Math.min(playhead.timeNs, frame.nowNs + stepNs);
          const next = await engine.seek(needEvents ? playhead.events : undefined, towards, MAX_EVENTS_PER_FRAME);
          if (store.get().slices !== run) return;
          // The way there is shown a few times a second (how far it has got), not at every step.
          const show = performance.now() - shownAt >= SHOW_EVERY_MS;
          if (show) shownAt = performance.now();
          applyFrame(next, show);
          // No progress (nothing left before the target): done.
          if (next.events === frame.events && next.nowNs === frame.nowNs) return;
        }
      } finally {
        showHeld(run);
      }
    });
  }

  /** Re-runs one after another; a change made to one scenario never lands on the next one loaded meanwhile. */
  function queueRerun(update: (current: PolicyOverrides) => PolicyOverrides, keepTime: boolean): Promise<boolean> {
    const file = store.get().fileText;
    const run = policyQueue.then(() => (store.get().fileText === file ? rerun(update(store.get().policyOverrides), keepTime) : false));
    policyQueue = run.catch(() => undefined);
    return run;
  }

  const controller: Controller = {
    async load(id, text, overrides = NO_OVERRIDES) {
      controller.pause();
      inspectGeneration += 1;
      const before = store.get();
      // The run to keep when this one does not load (the engine keeps it too).
      const previous =
        before.status === 'ready' && before.loaded && (before.fileText !== '' || before.loaded.log) ? { id: before.scenarioId, view: before.timelineView } : undefined;
      // Unapplied editor text is not lost when another scenario takes its place.
      if (unapplied(before) && before.scenarioText !== text) store.set({ setAsideEdit: { from: editedName(before.scenarioId), text: before.scenarioText } });
      store.set({ status: 'loading', scenarioId: id, scenarioText: text, selection: undefined, inspection: NO_INSPECTION, timelineView: FOLLOW_VIEW });
      return engineCall(async () => {
        const result = await engine.load(runText(text, overrides) ?? text, id);
        if (!result.ok) {
          // The last good run stays loaded and playable; the editor keeps the text with its problems.
          if (previous) store.set({ status: 'ready', scenarioId: previous.id, timelineView: previous.view, problems: result.problems });
          else store.set({ status: 'error', problems: result.problems });
          return false;
        }
        startRun(result);
        store.set({ fileText: text, appliedText: text, policyOverrides: overrides, policyProblems: [] });
        lastScenario = { id, text, overrides };
        return true;
      });
    },
    async openLog(file, preset, name, progress) {
      controller.pause();
      // Progress counts as an answer: a long read is not a silent engine.
      const heard = (report: LogProgress) => {
        engineAnswered();
        progress?.(report);
      };
      const result = await engineCall<LogOpenResult>(() => engine.openLog(file, preset, name, Comlink.proxy(heard)) as Promise<LogOpenResult>);
      if (!result.ok) return result;
      inspectGeneration += 1;
      startRun(result);
      // Nothing to re-run or edit: the editor keeps its text, the policy panel has no file.
      store.set({ scenarioId: 'log', fileText: '', policyOverrides: NO_OVERRIDES, policyProblems: [], problems: [], timelineView: FOLLOW_VIEW });
      return result;
    },
    async cancelLog() {
      await engine.cancelLog();
    },
    async logWhatIf() {
      return engineCall(() => engine.logWhatIf());
    },
    async seek(playhead) {
      await catchUp(playhead, 'seek');
    },
    async restore(request) {
      return engineCall(async () => {
        const problems: ScenarioProblem[] = [];
        controller.setSpeed(request.speedIndex);
        const hasOverrides = Object.keys(request.overrides).length > 0;
        let loaded = await controller.load(request.id, request.text, request.overrides);
        if (!loaded && hasOverrides) {
          const refused = store.get().problems;
          loaded = await controller.load(request.id, request.text);
          if (loaded) {
            problems.push(...refused.map((problem) => ({ path: `set ${problem.path}`, message: `${problem.message}; ran without the overrides` })));
          }
        }
        if (!loaded) {
          const refused = store.get().problems;
          const first = refused[0];
          problems.push({
            path: request.part,
            message: `the scenario did not load (${refused.length} problem${refused.length === 1 ? '' : 's'}${first ? `, first ${first.path === '' ? '' : `${first.path}: `}${first.message}` : ''}); opened ${request.fallback.id} instead, with the text kept in the Scenario JSON editor`,
          });
          if (await controller.load(request.fallback.id, request.fallback.text)) {
            // The text stays where the user can fix it, with what is wrong with it.
            store.set({ scenarioText: request.text, problems: refused });
          }
          return problems;
        }
        const playhead = request.playhead;
        const endNs = store.get().loaded?.endNs;
        if (playhead && (playhead.timeNs > 0 || (playhead.events ?? 0) > 0)) {
          if (endNs !== undefined && playhead.timeNs > endNs) {
            problems.push({ path: 't', message: `${formatTraceTime(playhead.timeNs)} s is past the scenario's end (${formatTraceTime(endNs)} s); ran to the end` });
          }
          await controller.seek(playhead);
        }
        if (request.view) controller.setTimelineView(request.view);
        if (request.editorText !== undefined && request.editorText !== store.get().scenarioText) controller.editText(request.editorText);
        return problems;
      });
    },
    notify(notice) {
      store.set({ notice });
    },
    async restartEngine() {
      if (!lifecycle) return false;
      const before = store.get();
      controller.pause();
      dropRequests(new Error('the engine was restarted'));
      dropped = droppedRequests();
      inFlight = 0;
      clearInterval(silenceCheck);
      silenceCheck = undefined;
      policyQueue = Promise.resolve();
      engine = lifecycle.restart();
      inspectGeneration += 1;
      store.set({ busy: false, catchingUp: undefined, engineTrouble: undefined, inspection: NO_INSPECTION, selection: undefined });
      const log = before.loaded?.log;
      const next = log ? lastScenario : { id: before.scenarioId, text: before.fileText !== '' ? before.fileText : before.scenarioText, overrides: before.policyOverrides };
      if (!next) {
        engineTrouble({ kind: 'restarted', message: `The log ${log?.name ?? ''} was closed: open it again to replay it.` });
        store.set({ status: 'error', loaded: undefined, frame: undefined });
        return false;
      }
      const editorText = before.scenarioText;
      const loaded = await controller.load(next.id, next.text, next.overrides);
      // The editor keeps whatever the user had typed (nothing was set aside).
      store.set({ scenarioText: editorText, setAsideEdit: before.setAsideEdit });
      engineTrouble({
        kind: 'restarted',
        message: log
          ? `${next.id} loaded from the start in place of the log ${log.name}: open the log again to replay it.`
          : loaded
            ? `${next.id} loaded again from the start, with the same settings.`
            : `${next.id} did not load again: see the problems in the Scenario JSON editor.`,
      });
      return loaded;
    },
    restoreSetAside() {
      const state = store.get();
      const aside = state.setAsideEdit;
      if (!aside) return;
      store.set({
        scenarioText: aside.text,
        setAsideEdit: unapplied(state) && state.scenarioText !== aside.text ? { from: editedName(state.scenarioId), text: state.scenarioText } : undefined,
      });
    },
    discardSetAside() {
      store.set({ setAsideEdit: undefined });
    },
    dismissEngineTrouble() {
      lastAnswer = Date.now();
      store.set({ engineTrouble: undefined });
    },
    setTimelineView(view) {
      store.set({ timelineView: view });
    },
    async ftraceText(reasons) {
      return engineCall(async () => {
        const total = await engine.traceLen();
        const chunks: string[] = [];
        let from = 0;
        do {
          const to = Math.min(total, from + FTRACE_CHUNK);
          chunks.push(await engine.ftraceText(from, to, reasons));
          from = to;
        } while (from < total);
        return chunks;
      });
    },
    async summaryJson() {
      return engineCall(() => engine.summaryJson());
    },
    async structLayout(specText) {
      return engineCall<LayoutResult>(() => engine.structLayout(specText) as Promise<LayoutResult>);
    },
    async checkScenario(text) {
      return engineCall(() => engine.checkScenario(text));
    },
    async searchTrace(filter, before, count) {
      return engineCall(() => engine.searchTrace(filter, before, count, SEARCH_SCAN));
    },
    async perfettoJson() {
      return engineCall(() => engine.perfettoJson());
    },
    updatePolicy(update) {
      return queueRerun(update, true);
    },
    async scrubTo(timeNs) {
      controller.pause();
      const state = store.get();
      if (state.status !== 'ready' || !state.frame || !state.loaded) return;
      const target = simTimeNs(Math.max(0, Math.min(state.loaded.endNs, Math.round(timeNs))));
      // Back: from the latest snapshot before the target, else a re-run from time 0.
      if (target < state.frame.nowNs && !(await restoreBefore(target))) {
        if (!(await queueRerun((current) => current, false))) return;
      }
      if (target > 0) await controller.seek({ timeNs: target, events: undefined });
    },
    async restart() {
      const state = store.get();
      // A log starts again from its first snapshot, taken at time 0.
      if (state.loaded?.log && state.status === 'ready') return restoreBefore(0);
      if (state.fileText === '' || state.status !== 'ready') return controller.load(state.scenarioId, state.scenarioText);
      return queueRerun((current) => current, false);
    },
    play() {
      const state = store.get();
      // A run being carried on to a time plays from there once it arrives.
      if (!state.loaded || state.frame?.finished || state.status !== 'ready' || state.catchingUp || state.engineTrouble?.kind === 'failed') return;
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
    async stepToNext(kind) {
      controller.pause();
      const state = store.get();
      if (!state.loaded || state.busy || state.frame?.finished || state.status !== 'ready') return;
      const code = DECISION_KINDS.find((entry) => entry.kind === kind)?.code ?? 0;
      const run = state.slices;
      const label = DECISION_KINDS.find((entry) => entry.kind === kind)?.label ?? kind;
      const found = await engineCall(async () => {
        for (let handled = 0; handled < MAX_EVENTS_TO_NEXT; handled += MAX_EVENTS_PER_FRAME) {
          const result = await engine.runToNext(code, MAX_EVENTS_PER_FRAME);
          if (store.get().slices !== run) return undefined;
          applyFrame(result.frame);
          if (result.record) return result.record;
          if (result.frame.finished) return undefined;
        }
        return undefined;
      });
      if (found) {
        await controller.inspect(found);
        const inspection = store.get().inspection;
        // A balancer's move is not a placement the inspector walks through: its reason says why.
        if (inspection.status === 'message' && found.event === 'sched_migrate_task' && found.reason !== '') {
          store.set({ inspection: { status: 'message', message: `why: ${found.reason}. A move by the load balancer: the step-by-step explanation covers wakeup and fork placements` } });
        }
      } else if (store.get().slices === run) {
        store.set({ selection: undefined, inspection: { status: 'message', message: `No ${label} came before ${store.get().frame?.finished ? 'the end of the run' : 'the search gave up'}.` } });
      }
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
      store.set({ cpuSelection: undefined });
      if (!mayExplain(line.event)) {
        store.set({ selection, inspection: { status: 'message', message: notExplainable(line.event, line.reason, selection.pid) } });
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
      store.set({ selection: undefined, inspection: NO_INSPECTION, cpuSelection: undefined });
    },
    selectCpu(cpu) {
      inspectGeneration += 1;
      store.set({ selection: undefined, inspection: NO_INSPECTION, cpuSelection: cpu });
    },
  };
  return controller;
}
