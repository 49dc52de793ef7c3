import { createRoot } from 'react-dom/client';
import { App } from './components/App';
import { createAppStore, isIdle } from './store/app';
import { createController } from './store/controller';
import { createActions } from './actions/actions';
import { EngineWorker } from './engine/client';
import { createSummaryRunner, createSweepRunner } from './engine/sweepClient';
import { createRunFigures } from './store/runFigures';
import { createCompareSession } from './store/compareSession';
import { DEFAULT_SCENARIO, SHARE_CONTEXT } from './components/shareContext';
import { decodeShareHash, loadTarget } from './store/share';
import { keptSession, loadDrafts, loadSession, sameKept, saveDrafts, saveSession, startupPlan, unappliedKeptEdit, type DraftFields, type KeepStorage, type KeptFields, type StartupPlan } from './store/keep';
import type { DrawStats } from './render/timeline';
import type { PolicyOverrides } from './store/policy';
import './styles.css';

declare global {
  interface Window {
    /**
     * Read by end-to-end tests: `idle` is true when nothing is running or pending;
     * `timeline` counts the switches and waiting-count changes the timeline holds,
     * the lanes, spans and wait-band rectangles (and lanes with any) its last draw
     * painted, the time range it drew, and the middle of its widest task run in
     * canvas pixels.
     */
    __schedlab?: { idle: boolean; events: number; wasmBytes: number; status: string; timeline: TimelineHook; restoredFromNs: number | undefined };
  }
}

interface TimelineHook {
  switches: number;
  waitChanges: number;
  /** The slice store's bytes (its packed lanes, capacity included), read when asked. */
  storeBytes: () => number;
  lanes: number;
  spans: number;
  waitSpans: number;
  waitLanes: number;
  waitSample: DrawStats['waitSample'];
  t0: number;
  t1: number;
  sample: DrawStats['sample'];
}

const store = createAppStore();
const timelineHook: TimelineHook = { switches: 0, waitChanges: 0, storeBytes: () => store.get().slices?.bytes ?? 0, lanes: 0, spans: 0, waitSpans: 0, waitLanes: 0, waitSample: undefined, t0: 0, t1: 0, sample: undefined };
const engine = new EngineWorker();
const controller = createController(store, engine.client, engine);
const actions = createActions(controller, store);
// Compare mode's run B: its own store, controller and engine worker, made on first use.
const compare = createCompareSession(store, controller, () => {
  const storeB = createAppStore();
  // B is drawn as A is: the same theme and presenter mode, now and on every change.
  const followDisplay = () => {
    const { theme, presenter } = store.get();
    const b = storeB.get();
    if (b.theme !== theme || b.presenter !== presenter) storeB.set({ theme, presenter });
  };
  followDisplay();
  store.subscribe(followDisplay);
  const engineB = new EngineWorker();
  return { store: storeB, controller: createController(storeB, engineB.client, engineB) };
});

// The struct-layout lab's and the cgroup tree's figures: the run's summary as it plays, and the original layout's whole run.
const figures = createRunFigures(store, () => controller.summaryJson(), createSummaryRunner());

/**
 * The idle signal covers run B too (idle once B stands at A's time with the
 * comparison read), and the lab's figures (read for the frame shown, the
 * original layout's run done).
 */
const publishIdle = () => {
  const state = store.get();
  timelineHook.switches = state.slices?.switches ?? 0;
  timelineHook.waitChanges = state.slices?.waitChanges ?? 0;
  const idle = isIdle(state) && compare.settled() && figures.settled();
  window.__schedlab = { idle, events: state.frame?.events ?? 0, wasmBytes: state.frame?.wasmBytes ?? 0, status: state.status, timeline: timelineHook, restoredFromNs: state.restoredFromNs };
  document.documentElement.dataset.engine = idle ? 'idle' : 'busy';
};
store.subscribe(publishIdle);

// The theme: the one chosen last on this browser, else the system's; kept on change.
const THEME_KEY = 'schedlab.theme';
const savedTheme = (() => {
  try {
    return window.localStorage.getItem(THEME_KEY);
  } catch {
    return null;
  }
})();
store.set({ theme: savedTheme === 'dark' || savedTheme === 'light' ? savedTheme : window.matchMedia?.('(prefers-color-scheme: dark)').matches ? 'dark' : 'light' });
let shownTheme = '';
store.subscribe(() => {
  const { theme } = store.get();
  if (theme === shownTheme) return;
  shownTheme = theme;
  document.documentElement.dataset.theme = theme;
  try {
    window.localStorage.setItem(THEME_KEY, theme);
  } catch {
    // Storage refused: the theme lasts for this page only.
  }
});
document.documentElement.dataset.theme = store.get().theme;
compare.state.subscribe(publishIdle);
figures.state.subscribe(publishIdle);

const root = document.getElementById('root');
if (root) createRoot(root).render(
    <App
      store={store}
      controller={controller}
      actions={actions}
      sweeps={createSweepRunner()}
      compare={compare}
      figures={figures}
      onTimelineDrawn={(stats) => {
        timelineHook.lanes = stats.lanes;
        timelineHook.spans = stats.spans;
        timelineHook.waitSpans = stats.waitSpans;
        timelineHook.waitLanes = stats.waitLanes;
        timelineHook.waitSample = stats.waitSample;
        timelineHook.t0 = stats.t0;
        timelineHook.t1 = stats.t1;
        timelineHook.sample = stats.sample;
      }}
    />,
  );

/** `localStorage`, or undefined where the page may not use it. */
function keepStorage(): KeepStorage | undefined {
  try {
    return window.localStorage;
  } catch {
    return undefined;
  }
}

const TITLES: Readonly<Record<StartupPlan['from'], string>> = {
  link: 'This link could not be opened exactly as it was shared.',
  kept: 'Your last session could not be restored exactly.',
  default: 'The default scenario could not be opened.',
};

/** Opens what the plan says, then tells the user what could not be restored; true when something could not. */
async function open(plan: StartupPlan): Promise<boolean> {
  if (!DEFAULT_SCENARIO) return false;
  const target = loadTarget(plan.state, SHARE_CONTEXT);
  const problems = await controller.restore({
    ...target,
    overrides: plan.state.overrides,
    speedIndex: plan.state.speedIndex,
    playhead: plan.state.playhead,
    view: plan.state.view,
    editorText: plan.editorText,
    fallback: DEFAULT_SCENARIO,
  });
  // A link made in compare mode opens in compare mode, with run B's settings.
  if (plan.state.compare) await compare.start(plan.state.compare);
  else compare.stop();
  const bProblems = compare.state.get().problems;
  const all = [...plan.problems, ...problems, ...bProblems];
  // A link with no schedlab state in it restored nothing, and one whose scenario could not
  // be opened kept only its speed: the banner does not say the rest was restored.
  const nothingRead = all.some((problem) => problem.path === 'link' || (plan.from === 'link' && (problem.path === 'scenario' || problem.path === 'text')));
  controller.notify(all.length > 0 ? { title: TITLES[plan.from], problems: all, restDone: !nothingRead } : undefined);
  return all.length > 0;
}

/** The link's state, read once. */
async function linkInAddress() {
  if (location.hash === '' || location.hash === '#') return undefined;
  return decodeShareHash(location.hash, SHARE_CONTEXT);
}

let stopWatchingAddress: (() => void) | undefined;

/**
 * The link leaves the address bar once it has opened, so that a reload keeps the user's
 * later changes. One that could not be opened exactly stays there as it was written, to
 * read or mend, until the user changes what is kept (the scenario or its text, a policy
 * setting, the speed).
 */
function settleAddress(hadProblems: boolean) {
  stopWatchingAddress?.();
  stopWatchingAddress = undefined;
  if (location.hash === '' || location.hash === '#') return;
  const clear = () => history.replaceState(history.state, '', `${location.pathname}${location.search}`);
  if (!hadProblems) {
    clear();
    return;
  }
  const opened = store.get();
  const stop = store.subscribe(() => {
    if (sameKept(opened, store.get())) return;
    stop();
    stopWatchingAddress = undefined;
    clear();
  });
  stopWatchingAddress = stop;
}

/** Saves the session on every change of what is kept (the editor's text included, on each keystroke). */
function keepSession(storage: KeepStorage) {
  let last: KeptFields | undefined;
  let lastCompare: PolicyOverrides | undefined;
  const save = () => {
    const state = store.get();
    // In compare mode, run B's settings are kept too.
    const compareB = compare.state.get().on ? compare.side()?.store.get().policyOverrides : undefined;
    if (sameKept(last, state) && compareB === lastCompare) return;
    last = state;
    lastCompare = compareB;
    const kept = keptSession(state, SHARE_CONTEXT, compareB);
    if (kept) saveSession(storage, kept);
  };
  store.subscribe(save);
  compare.state.subscribe(save);
  save();
  // The panels' drafts (a pasted log, the sweep's fields, a set-aside edit), under their own key.
  let lastDrafts: DraftFields | undefined;
  const saveTyped = () => {
    const { drafts, setAsideEdit } = store.get();
    if (lastDrafts?.drafts === drafts && lastDrafts.setAsideEdit === setAsideEdit) return;
    lastDrafts = { drafts, setAsideEdit };
    saveDrafts(storage, lastDrafts);
  };
  store.subscribe(saveTyped);
  saveTyped();
}

async function start() {
  const storage = keepStorage();
  const link = await linkInAddress();
  const saved = storage ? loadSession(storage, SHARE_CONTEXT) : undefined;
  const kept = link?.hasState ? undefined : saved;
  // What was typed in the panels comes back whatever opens (a link too).
  const typed = storage ? loadDrafts(storage) : undefined;
  if (typed) store.set({ drafts: typed.drafts });
  settleAddress(await open(startupPlan(link, kept, SHARE_CONTEXT)));
  // A link opened in a new tab replaces the last session: an edit it had not applied is
  // set aside, as a link pasted into an open tab sets it aside, not lost.
  const replaced = link?.hasState ? unappliedKeptEdit(saved, SHARE_CONTEXT) : undefined;
  const aside = replaced ?? typed?.setAsideEdit;
  if (aside) store.set({ setAsideEdit: aside });
  // Kept from here on: what the start-up itself loaded is not a change of the user's.
  if (storage) keepSession(storage);
  // A share link pasted into this tab's address bar changes only the hash.
  window.addEventListener('hashchange', () => {
    void linkInAddress().then(async (next) => {
      if (next?.hasState) settleAddress(await open(startupPlan(next, undefined, SHARE_CONTEXT)));
      else settleAddress(false);
    });
  });
}

void start();
