/** The application's state: what is loaded, the latest frame, playback settings. */
import type { Frame, LoadedScenario, ScenarioProblem, TraceLine } from '../engine/protocol';
import { createStore } from './store';
import { NO_INSPECTION, type Inspection, type Selection } from './inspector';
import { NO_OVERRIDES, type PolicyOverrides } from './policy';
import { FOLLOW_VIEW, type SliceStore, type TimelineView } from './timeline';
import type { FrequencySeries } from './power';
import { MotionLog } from './motion';
import type { RunHistory } from './history';
import type { SweepForm } from './sweep';
import type { SimTimeNs } from '../base/types';

export type Status = 'starting' | 'loading' | 'ready' | 'error';

/**
 * A message about state the app could not restore as it was (a share link's or the
 * kept session's): each problem names the part it was in.
 */
export interface Notice {
  readonly title: string;
  readonly problems: readonly ScenarioProblem[];
  /** Whether the rest of what was asked for was restored (the banner says so); true when absent. */
  readonly restDone?: boolean;
}

/** Playback speeds: simulated time per real time. */
export const SPEEDS: readonly { readonly label: string; readonly factor: number }[] = [
  { label: '1/10000×', factor: 0.0001 },
  { label: '1/1000×', factor: 0.001 },
  { label: '1/100×', factor: 0.01 },
  { label: '1/10×', factor: 0.1 },
  { label: '1×', factor: 1 },
  // Fast-forward, towards a steady state: the clock says when the engine cannot keep up.
  { label: '10×', factor: 10 },
  { label: '100×', factor: 100 },
];
export const DEFAULT_SPEED_INDEX = 2;

/** How many recent trace records the event log keeps. */
export const TRACE_KEEP = 200;

/** A run carried on to `toNs` without playing: after a policy change, or a seek. */
export interface CatchUp {
  readonly toNs: number;
  readonly why: 'policy' | 'seek';
}

export interface AppState {
  readonly status: Status;
  /** A bundled scenario id, or `custom` for edited text. */
  readonly scenarioId: string;
  /** The editor's text: never discarded, even when it does not load. */
  readonly scenarioText: string;
  readonly problems: readonly ScenarioProblem[];
  readonly loaded: LoadedScenario | undefined;
  readonly frame: Frame | undefined;
  readonly trace: readonly TraceLine[];
  readonly playing: boolean;
  readonly speedIndex: number;
  /** A request to the engine is in flight. */
  readonly busy: boolean;
  /**
   * The run is being carried on to a time without playing (a seek, or a policy
   * re-run going back to the playhead's time): where to, and why.
   */
  readonly catchingUp: CatchUp | undefined;
  /** The trace record picked in the event log, and its task. */
  readonly selection: Selection | undefined;
  /** The decision inspector: its explanation of the selection. */
  readonly inspection: Inspection;
  /**
   * The scenario the run was built from, before the Policy panel's overrides: a
   * bundled file, or editor text that loaded. Empty until a scenario has loaded.
   */
  readonly fileText: string;
  /**
   * The text the last scenario loaded from, kept while a replayed log plays (when
   * `fileText` is empty): the editor still holding it holds no edit.
   */
  readonly appliedText: string;
  /** The Policy panel's settings on top of `fileText`, as the current run uses them. */
  readonly policyOverrides: PolicyOverrides;
  /**
   * Why the engine refused the last policy change (the previous run stays loaded
   * and playable); empty when it was accepted.
   */
  readonly policyProblems: readonly ScenarioProblem[];
  /** Moving share of `&shard->lock` acquisitions that waited (0 when SHARED_RUNQ is off). */
  readonly shardLockContention: number;
  /** Each shard's own lock contention, smoothed over frames (`perShardContention`). */
  readonly shardContentions: readonly number[];
  /**
   * The timeline's run slices for the current run. A mutable columnar store (it
   * may hold millions of switches, so it is appended to, never copied): a new
   * object per run, appended to before each `frame` is set, so a change of
   * `frame` is the signal that it grew.
   */
  readonly slices: SliceStore | undefined;
  /**
   * Each socket's frequency over the run, for the Frequency chart: like `slices`,
   * a mutable bounded store, a new object per run, sampled before each `frame` is
   * set. Undefined when the power model does not run.
   */
  readonly frequency: FrequencySeries | undefined;
  /** Shown above the panels until dismissed; undefined when all is well. */
  readonly notice: Notice | undefined;
  /**
   * The timeline's window: following the playhead, or zoomed and panned. Kept
   * across policy re-runs (the same moment, seen under another setting); a newly
   * loaded scenario starts followed.
   */
  readonly timelineView: TimelineView;
  /** The run's task moves, newest last (bounded), for the machine view's motion. */
  readonly motions: MotionLog;
  /** When going back last restored an engine snapshot: the snapshot's time (undefined after a re-run from 0). */
  readonly restoredFromNs: number | undefined;
  /**
   * Where this run ended, once it has been played to its end, when that came before
   * the scenario's duration (every task exited): the scrubber spans the run, not the
   * idle rest. Kept when going back, as the run is deterministic.
   */
  readonly finishedAtNs: SimTimeNs | undefined;
  /**
   * The run's figures over time for the charts: like `slices`, a mutable bounded
   * store, a new object per run, sampled before each `frame` is set.
   */
  readonly history: RunHistory | undefined;
  /** The kind of decision `Next decision` stops at. */
  readonly nextDecision: 'wakeup' | 'migration' | 'pull';
  /** The keyboard shortcuts overlay is open. */
  readonly shortcutsOpen: boolean;
  /** The colour theme; the page's `data-theme` follows it. */
  readonly theme: 'light' | 'dark';
  /** The CPU clicked on the machine, for the Inspector's CPU view; undefined when none. */
  readonly cpuSelection: number | undefined;
  /** Presenter mode: large type, high contrast, only the machine, the charts, the timeline and the inspector. */
  readonly presenter: boolean;
  /** The engine failed, has not answered for a long while, or was just restarted; undefined while all is well. */
  readonly engineTrouble: EngineTrouble | undefined;
  /**
   * Editor text that was never applied when another scenario loaded in its place:
   * kept here until the user puts it back or discards it. `from` is the scenario it
   * was an edit of.
   */
  readonly setAsideEdit: { readonly from: string; readonly text: string } | undefined;
  /** What was typed in the Replay and Sweep panels, kept across reloads with the session. */
  readonly drafts: Drafts;
}

/** Text typed in the panels that is not a scenario: kept so a reload loses none of it. */
export interface Drafts {
  /** The Replay panel's pasted log (not a chosen file: a page cannot keep those). */
  readonly replayText: string;
  /** The Sweep panel's form once typed in; until then the scenario's suggested sweep shows. */
  readonly sweep: SweepForm | undefined;
}

export const NO_DRAFTS: Drafts = { replayText: '', sweep: undefined };

/** What is wrong with the engine worker, as the banner above the panels says it. */
export interface EngineTrouble {
  /** `failed`: it stopped on an error; `silent`: a request has had no answer for a long while; `restarted`: a fresh one replaced it. */
  readonly kind: 'failed' | 'silent' | 'restarted';
  readonly message: string;
}

export const initialState: AppState = {
  status: 'starting',
  scenarioId: '',
  scenarioText: '',
  problems: [],
  loaded: undefined,
  frame: undefined,
  trace: [],
  playing: false,
  speedIndex: DEFAULT_SPEED_INDEX,
  busy: false,
  catchingUp: undefined,
  selection: undefined,
  inspection: NO_INSPECTION,
  fileText: '',
  appliedText: '',
  policyOverrides: NO_OVERRIDES,
  policyProblems: [],
  shardLockContention: 0,
  shardContentions: [],
  slices: undefined,
  frequency: undefined,
  notice: undefined,
  timelineView: FOLLOW_VIEW,
  motions: MotionLog.EMPTY,
  restoredFromNs: undefined,
  finishedAtNs: undefined,
  history: undefined,
  // A wakeup placement first: the one the Inspector explains step by step, as its hint promises.
  nextDecision: 'wakeup',
  shortcutsOpen: false,
  presenter: false,
  engineTrouble: undefined,
  setAsideEdit: undefined,
  drafts: NO_DRAFTS,
  cpuSelection: undefined,
  theme: 'light',
};

export function createAppStore() {
  return createStore<AppState>(initialState);
}

export type AppStore = ReturnType<typeof createAppStore>;

/** Appends a frame's new trace records, keeping the newest `TRACE_KEEP`. */
export function appendTrace(trace: readonly TraceLine[], added: readonly TraceLine[]): readonly TraceLine[] {
  if (added.length === 0) return trace;
  const merged = trace.concat(added);
  return merged.length > TRACE_KEEP ? merged.slice(merged.length - TRACE_KEEP) : merged;
}

/** Whether nothing is happening: the signal end-to-end tests wait on. */
export function isIdle(state: AppState): boolean {
  return (
    !state.busy &&
    !state.playing &&
    state.catchingUp === undefined &&
    state.inspection.status !== 'loading' &&
    (state.status === 'ready' || state.status === 'error')
  );
}
