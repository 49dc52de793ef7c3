import { createRoot } from 'react-dom/client';
import { App } from './components/App';
import { createAppStore, isIdle } from './store/app';
import { createController } from './store/controller';
import { createActions } from './actions/actions';
import { startEngine } from './engine/client';
import { bundledScenarios, DEFAULT_SCENARIO_ID } from './engine/scenarios';
import './styles.css';

declare global {
  interface Window {
    /** Read by end-to-end tests: `idle` is true when nothing is running or pending. */
    __schedlab?: { idle: boolean; events: number; status: string };
  }
}

const store = createAppStore();
const controller = createController(store, startEngine());
const actions = createActions(controller, store);

store.subscribe(() => {
  const state = store.get();
  window.__schedlab = { idle: isIdle(state), events: state.frame?.events ?? 0, status: state.status };
  document.documentElement.dataset.engine = isIdle(state) ? 'idle' : 'busy';
});

const root = document.getElementById('root');
if (root) createRoot(root).render(<App store={store} controller={controller} actions={actions} />);

const initial = bundledScenarios.find((scenario) => scenario.id === DEFAULT_SCENARIO_ID) ?? bundledScenarios[0];
if (initial) void controller.load(initial.id, initial.text);
