import { createRoot } from 'react-dom/client';
import { App } from './components/App';
import { createAppStore, isIdle } from './store/app';
import { createController } from './store/controller';
import { createActions } from './actions/actions';
import { startEngine } from './engine/client';
import { bundledScenarios, DEFAULT_SCENARIO_ID } from './engine/scenarios';
import type { DrawStats } from './render/timeline';
import './styles.css';

declare global {
  interface Window {
    /**
     * Read by end-to-end tests: `idle` is true when nothing is running or pending;
     * `timeline` counts the switches the timeline holds and the lanes and spans its
     * last draw painted, with the middle of its widest task run in canvas pixels.
     */
    __schedlab?: { idle: boolean; events: number; status: string; timeline: TimelineHook };
  }
}

interface TimelineHook {
  switches: number;
  lanes: number;
  spans: number;
  sample: DrawStats['sample'];
}

const store = createAppStore();
const timelineHook: TimelineHook = { switches: 0, lanes: 0, spans: 0, sample: undefined };
const controller = createController(store, startEngine());
const actions = createActions(controller, store);

store.subscribe(() => {
  const state = store.get();
  timelineHook.switches = state.slices?.switches ?? 0;
  window.__schedlab = { idle: isIdle(state), events: state.frame?.events ?? 0, status: state.status, timeline: timelineHook };
  document.documentElement.dataset.engine = isIdle(state) ? 'idle' : 'busy';
});

const root = document.getElementById('root');
if (root) createRoot(root).render(
    <App
      store={store}
      controller={controller}
      actions={actions}
      onTimelineDrawn={(stats) => {
        timelineHook.lanes = stats.lanes;
        timelineHook.spans = stats.spans;
        timelineHook.sample = stats.sample;
      }}
    />,
  );

const initial = bundledScenarios.find((scenario) => scenario.id === DEFAULT_SCENARIO_ID) ?? bundledScenarios[0];
if (initial) void controller.load(initial.id, initial.text);
