/**
 * The figures the struct-layout lab and the cgroup tree read from run summaries:
 * the playing run's `cache_misses` and `bandwidth` (its summary re-read as it
 * plays, at most every `LIVE_EVERY_MS`, at once when paused or stepping), and the
 * original layout's whole run of the same scenario, settings and seed, run to its
 * end in a worker of its own (`SummaryRunner`) so the playing run is never
 * disturbed. Only for runs with cgroups or a `policy.struct_layout`: others cost
 * nothing. Part of the app's idle signal (`settled`).
 */
import type { BandwidthFigures, CacheMisses } from '../engine/protocol';
import type { SummaryRunner } from '../engine/sweepClient';
import type { AppState, AppStore } from './app';
import { createStore, type Store } from './store';
import { runText } from './policy';
import { parseScenarioValue, valueAtPath, type JsonValue } from './policy';
import { seedOf } from './share';

/** The scenario field the lab sets. */
export const STRUCT_LAYOUT_PATH = 'policy.struct_layout';

/** The live summary is re-read at most this often while the run plays or seeks. */
export const LIVE_EVERY_MS = 500;

/** What one summary says that these views read. */
export interface SummaryFigures {
  readonly cacheMisses: CacheMisses | undefined;
  readonly bandwidth: BandwidthFigures | undefined;
}

/** The playing run's figures, and the frame they were read at. */
export interface LiveFigures extends SummaryFigures {
  /** The run they belong to (`AppState.slices`, a new object per run). */
  readonly run: unknown;
  readonly nowNs: number;
  readonly events: number;
}

/** The original layout's whole run: for which scenario text and seed, and how far it has come. */
export type OriginalRun =
  | { readonly status: 'none' }
  | { readonly status: 'running'; readonly key: string }
  | { readonly status: 'ready'; readonly key: string; readonly figures: SummaryFigures; readonly endNs: number }
  | { readonly status: 'error'; readonly key: string; readonly message: string };

export interface RunFiguresState {
  readonly live: LiveFigures | undefined;
  readonly original: OriginalRun;
}

export interface RunFigures {
  readonly state: Store<RunFiguresState>;
  /** Nothing is being read or run, and the live figures are the current frame's (part of the idle signal). */
  settled(): boolean;
}

const NONE: RunFiguresState = { live: undefined, original: { status: 'none' } };

/** The last file asked about and whether it sets `policy.struct_layout` (asked on every store change: parsed once). */
let layoutInFile: { readonly text: string; readonly has: boolean } = { text: '', has: false };

/** Whether a run has the layout model: any cgroup, or `policy.struct_layout` in its file or settings. */
export function hasLayoutModel(state: Pick<AppState, 'loaded' | 'fileText' | 'policyOverrides'>): boolean {
  if (!state.loaded || state.loaded.log || state.fileText === '') return false;
  if (state.loaded.cgroups.length > 0 || Object.hasOwn(state.policyOverrides, STRUCT_LAYOUT_PATH)) return true;
  if (layoutInFile.text !== state.fileText) {
    layoutInFile = { text: state.fileText, has: valueAtPath(parseScenarioValue(state.fileText), STRUCT_LAYOUT_PATH) !== undefined };
  }
  return layoutInFile.has;
}

/** The run's figures from its summary JSON (a summary without them gives undefined ones). */
export function summaryFigures(summary: JsonValue | undefined): SummaryFigures {
  const cacheMisses = valueAtPath(summary, 'cache_misses');
  const bandwidth = valueAtPath(summary, 'bandwidth');
  const isObject = (value: JsonValue | undefined) => value !== null && typeof value === 'object' && !Array.isArray(value);
  return {
    cacheMisses: isObject(cacheMisses) ? (cacheMisses as unknown as CacheMisses) : undefined,
    bandwidth: isObject(bandwidth) ? (bandwidth as unknown as BandwidthFigures) : undefined,
  };
}

/** The original layout's run for the current one: the same file, settings and seed, `policy.struct_layout` "original". */
export function originalRequest(state: Pick<AppState, 'fileText' | 'policyOverrides' | 'scenarioId'>): { readonly text: string; readonly name: string; readonly seed: number } | undefined {
  const text = runText(state.fileText, { ...state.policyOverrides, [STRUCT_LAYOUT_PATH]: 'original' });
  if (text === undefined) return undefined;
  return { text, name: state.scenarioId, seed: seedOf(state.fileText) ?? 0 };
}

export function createRunFigures(store: AppStore, readSummary: () => Promise<string>, runner: SummaryRunner, now: () => number = () => performance.now()): RunFigures {
  const state = createStore<RunFiguresState>(NONE);
  /** The original run's request for the file and settings last seen (made once per change of either, not per frame). */
  let requestFor: { readonly fileText: string; readonly overrides: AppState['policyOverrides']; readonly scenarioId: string; readonly key: string; readonly request: ReturnType<typeof originalRequest> } | undefined;
  const requestOf = (app: AppState) => {
    if (!requestFor || requestFor.fileText !== app.fileText || requestFor.overrides !== app.policyOverrides || requestFor.scenarioId !== app.scenarioId) {
      const request = originalRequest(app);
      requestFor = { fileText: app.fileText, overrides: app.policyOverrides, scenarioId: app.scenarioId, key: request ? `${request.seed}\n${request.text}` : '', request };
    }
    return requestFor;
  };
  let reading = false;
  let lastReadAt = Number.NEGATIVE_INFINITY;
  let timer: ReturnType<typeof setTimeout> | undefined;

  const current = (app: AppState, live: LiveFigures | undefined) =>
    live !== undefined && app.frame !== undefined && live.run === app.slices && live.nowNs === app.frame.nowNs && live.events === app.frame.events;

  async function readLive(app: AppState) {
    const frame = app.frame;
    if (!frame) return;
    reading = true;
    lastReadAt = now();
    let figures: SummaryFigures | undefined;
    try {
      figures = summaryFigures(parseScenarioValue(await readSummary()));
    } catch {
      // The engine is gone or busy loading another run: the next frame reads again.
      figures = undefined;
    } finally {
      reading = false;
    }
    // The engine answers in order, so the summary is at least as new as this frame;
    // if a newer frame came meanwhile, `check` reads again.
    if (figures && hasLayoutModel(store.get())) state.set({ live: { ...figures, run: app.slices, nowNs: frame.nowNs, events: frame.events } });
    check();
  }

  function runOriginal(request: { readonly text: string; readonly name: string; readonly seed: number }, key: string) {
    state.set({ original: { status: 'running', key } });
    void runner.summary(request.text, request.name, request.seed).then(
      (outcome) => {
        const original = state.get().original;
        if (!outcome || original.status !== 'running' || original.key !== key) return;
        if (!outcome.ok) {
          state.set({ original: { status: 'error', key, message: outcome.message } });
          return;
        }
        const summary = parseScenarioValue(outcome.summary);
        const endNs = valueAtPath(summary, 'sim_time_ns');
        state.set({ original: { status: 'ready', key, figures: summaryFigures(summary), endNs: typeof endNs === 'number' ? endNs : 0 } });
      },
      (error: unknown) => {
        if (state.get().original.status === 'running') state.set({ original: { status: 'error', key, message: String(error) } });
      },
    );
  }

  function check() {
    const app = store.get();
    if (!hasLayoutModel(app) || app.status !== 'ready') {
      if (app.status === 'loading') return;
      if (state.get() !== NONE) {
        runner.cancel();
        state.set(NONE);
      }
      return;
    }
    const { request, key } = requestOf(app);
    const original = state.get().original;
    if (request && (original.status === 'none' || original.key !== key)) runOriginal(request, key);
    if (current(app, state.get().live) || reading) return;
    const wait = app.playing || app.busy ? lastReadAt + LIVE_EVERY_MS - now() : 0;
    // Paused and idle again: the frame shown is read now, not when a timer set while busy fires.
    if (wait <= 0 && timer !== undefined) {
      clearTimeout(timer);
      timer = undefined;
    }
    if (timer !== undefined) return;
    if (wait > 0) {
      timer = setTimeout(() => {
        timer = undefined;
        check();
      }, wait);
      return;
    }
    void readLive(app);
  }

  store.subscribe(check);
  check();
  return {
    state,
    settled() {
      const app = store.get();
      if (!hasLayoutModel(app) || app.status !== 'ready') return true;
      return !reading && timer === undefined && current(app, state.get().live) && state.get().original.status !== 'running';
    },
  };
}
