/**
 * Compare mode: a second run, B, of the same scenario file and seed with its own
 * policy settings, in an engine worker of its own, kept at the playhead of the
 * main run, A. A plays, steps, seeks and restarts as always; B follows: it runs on
 * to A's time, starts again when A does, and reloads when A loads another
 * scenario. The diff table reads both runs' summaries once both stand at one time.
 */
import type { ScenarioProblem } from '../engine/protocol';
import { createStore, type Store } from './store';
import { isIdle, type AppStore } from './app';
import type { Controller } from './controller';
import { parseScenarioValue, type JsonValue, type PolicyOverrides } from './policy';

export type Side = 'A' | 'B';

export interface CompareState {
  readonly on: boolean;
  /** Which run the Policy panel edits. */
  readonly editing: Side;
  /** Both runs' summaries (`run --json`), read at `atNs` on both; undefined until read. */
  readonly summaries: { readonly a: JsonValue; readonly b: JsonValue; readonly atNs: number; readonly standing: string } | undefined;
  /** Why B could not run as asked (it then runs with A's settings). */
  readonly problems: readonly ScenarioProblem[];
}

const OFF: CompareState = { on: false, editing: 'A', summaries: undefined, problems: [] };

/** B's run: its own store and controller over its own engine worker. */
export interface CompareSide {
  readonly store: AppStore;
  readonly controller: Controller;
}

export interface CompareSession {
  readonly state: Store<CompareState>;
  /** B's run, once compare mode has been started. */
  side(): CompareSide | undefined;
  /** Starts comparing: B loads A's scenario with `overrides` (A's own by default) and runs to A's time. */
  start(overrides?: PolicyOverrides): Promise<void>;
  stop(): void;
  edit(side: Side): void;
  /** Whether B stands at A's time with the summaries read (part of the app's idle signal). */
  settled(): boolean;
}

/** Summaries are re-read at most this often while A plays. */
const SUMMARY_EVERY_MS = 500;

export function createCompareSession(storeA: AppStore, controllerA: Controller, makeSide: () => CompareSide): CompareSession {
  const state = createStore<CompareState>(OFF);
  let side: CompareSide | undefined;
  let syncing = false;
  let again = false;
  /** True while `start` loads B itself: B's half-set state must not be taken for a run to replace. */
  let starting = false;
  /** What the last summaries were read for: `aNow|bNow|aRun|bRun`; a change means read again. */
  let summaryKey = '';
  let lastSummaryAt = 0;
  let summaryTimer: ReturnType<typeof setTimeout> | undefined;
  /** Bumped on stop and start: an older sync's results are dropped. */
  let generation = 0;
  /** When A plays a log: its what-if scenario, which B runs (made once per log opened). */
  let logWhatIf: { readonly run: object; readonly text: string | undefined } | undefined;

  /**
   * What B runs: A's scenario file, or when A plays a real machine's log, the
   * simulation of the log's workload (its what-if scenario). Empty when there is none.
   */
  async function sourceOfA(): Promise<{ readonly id: string; readonly text: string }> {
    const a = storeA.get();
    if (!a.loaded?.log) return { id: a.scenarioId, text: a.fileText };
    if (logWhatIf?.run !== a.loaded) logWhatIf = { run: a.loaded, text: await controllerA.logWhatIf() };
    return { id: 'custom', text: logWhatIf.text ?? '' };
  }

  // Each run has its own slice store: numbering them tells one run from the next.
  const runIds = new WeakMap<object, number>();
  let nextRunId = 1;
  const runId = (run: object | undefined) => {
    if (!run) return 0;
    let id = runIds.get(run);
    if (id === undefined) {
      id = nextRunId++;
      runIds.set(run, id);
    }
    return id;
  };
  /** Where both runs stand: which run, at what time. */
  const standing = () => {
    const a = storeA.get();
    const b = side?.store.get();
    return `${runId(a.slices)}@${a.frame?.nowNs ?? -1}|${runId(b?.slices)}@${b?.frame?.nowNs ?? -1}`;
  };
  const runKey = () => {
    const a = storeA.get();
    const b = side?.store.get();
    return `${standing()}|${a.status}|${b?.status ?? ''}`;
  };

  async function readSummaries(current: CompareSide, at: number) {
    const key = standing();
    if (key === summaryKey) return;
    // While A plays, at most every SUMMARY_EVERY_MS, with a trailing read when it stops.
    const wait = lastSummaryAt + SUMMARY_EVERY_MS - Date.now();
    if (storeA.get().playing && wait > 0) {
      summaryTimer ??= setTimeout(() => {
        summaryTimer = undefined;
        void sync();
      }, wait);
      return;
    }
    summaryKey = key;
    lastSummaryAt = Date.now();
    const [a, b] = await Promise.all([controllerA.summaryJson(), current.controller.summaryJson()]);
    if (at !== generation) return;
    const parsedA = parseScenarioValue(a);
    const parsedB = parseScenarioValue(b);
    if (parsedA === undefined || parsedB === undefined) return;
    state.set({ summaries: { a: parsedA, b: parsedB, atNs: storeA.get().frame?.nowNs ?? 0, standing: key } });
  }

  /** One step towards B standing where A stands; true when it did something (look again). */
  async function syncOnce(current: CompareSide, at: number): Promise<boolean> {
    if (!state.get().on || storeA.get().status !== 'ready' || !storeA.get().frame) return false;
    const source = await sourceOfA();
    if (at !== generation) return false;
    const a = storeA.get();
    const b = current.store.get();
    if (!a.frame || source.text === '') return false;
    if (b.status === 'loading' || b.status === 'starting') return false;
    if (b.fileText !== source.text || b.status !== 'ready') {
      // A loaded another scenario (or B never loaded): B follows with its settings, else A's.
      const wanted = b.fileText === '' ? a.policyOverrides : b.policyOverrides;
      const ok = await current.controller.load(source.id, source.text, wanted);
      if (at !== generation) return false;
      if (!ok) {
        const refused = current.store.get().problems;
        state.set({ problems: refused.map((problem) => ({ path: `B ${problem.path}`, message: `${problem.message}; B runs with A's settings` })) });
        await current.controller.load(source.id, source.text, a.policyOverrides);
      }
      return true;
    }
    const bFrame = b.frame;
    if (!bFrame) return false;
    if (bFrame.nowNs > a.frame.nowNs) {
      await current.controller.restart();
      return true;
    }
    if (bFrame.nowNs < a.frame.nowNs && !bFrame.finished) {
      await current.controller.seek({ timeNs: a.frame.nowNs, events: undefined });
      return current.store.get().frame?.nowNs !== bFrame.nowNs;
    }
    await readSummaries(current, at);
    return false;
  }

  async function sync() {
    const current = side;
    if (!current || !state.get().on || starting) return;
    if (syncing) {
      again = true;
      return;
    }
    syncing = true;
    const at = generation;
    try {
      let more = true;
      while (more && at === generation) {
        again = false;
        more = (await syncOnce(current, at)) || again;
      }
    } finally {
      syncing = false;
      publish();
    }
  }

  // Any change of either run's time, file or status may need B to move.
  let lastKey = '';
  const onChange = () => {
    if (!state.get().on) return;
    const key = runKey();
    if (key === lastKey) return;
    lastKey = key;
    void sync();
  };
  storeA.subscribe(onChange);

  /** Listeners of `settled()` learn of it through the compare store. */
  const publish = () => state.set({});

  const session: CompareSession = {
    state,
    side: () => side,
    async start(overrides) {
      generation += 1;
      if (!side) {
        side = makeSide();
        side.store.subscribe(onChange);
        // Any change of B (busy with a re-run, say) may change whether the pair is settled: say so at once.
        side.store.subscribe(publish);
      }
      summaryKey = '';
      lastKey = '';
      state.set({ on: true, editing: 'B', summaries: undefined, problems: [] });
      starting = true;
      try {
        const source = await sourceOfA();
        const a = storeA.get();
        if (source.text === '') return;
        const ok = await side.controller.load(source.id, source.text, overrides ?? a.policyOverrides);
        if (!ok && overrides) {
          const refused = side.store.get().problems;
          state.set({ problems: refused.map((problem) => ({ path: `B ${problem.path}`, message: `${problem.message}; B runs with A's settings` })) });
          await side.controller.load(source.id, source.text, a.policyOverrides);
        }
      } finally {
        starting = false;
      }
      await sync();
    },
    stop() {
      generation += 1;
      if (summaryTimer !== undefined) clearTimeout(summaryTimer);
      summaryTimer = undefined;
      state.set(OFF);
    },
    edit(which) {
      state.set({ editing: which });
    },
    settled() {
      const compare = state.get();
      if (!compare.on) return true;
      if (!side || syncing || starting || summaryTimer !== undefined) return false;
      const a = storeA.get();
      const b = side.store.get();
      if (!isIdle(b) || b.status !== 'ready') return false;
      const aNow = a.frame?.nowNs ?? 0;
      const bNow = b.frame?.nowNs ?? 0;
      const caughtUp = bNow === aNow || (b.frame?.finished ?? false);
      // The summaries must be of these very runs at this time (a re-run of B at the same time is another run).
      return caughtUp && compare.summaries?.atNs === aNow && compare.summaries.standing === standing();
    },
  };
  return session;
}
