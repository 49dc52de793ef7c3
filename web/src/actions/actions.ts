/** User intents with names and key bindings, shared by buttons and the keyboard. */
import type { Controller } from '../store/controller';
import type { AppStore } from '../store/app';
import { SPEEDS } from '../store/app';

export interface Action {
  readonly id: string;
  readonly name: string;
  readonly keys: readonly string[];
  perform(): void;
}

export function createActions(controller: Controller, store: AppStore): readonly Action[] {
  return [
    { id: 'play-pause', name: 'Play or pause', keys: [' ', 'k'], perform: () => controller.togglePlay() },
    { id: 'step', name: 'Step to the next scheduler event', keys: ['.', 'ArrowRight'], perform: () => void controller.step() },
    {
      id: 'step-next',
      name: 'Step to the next decision of the chosen kind, and explain it',
      keys: ['n'],
      perform: () => void controller.stepToNext(store.get().nextDecision),
    },
    { id: 'reset', name: 'Reset: start again from time 0', keys: ['r'], perform: () => void controller.restart() },
    {
      id: 'faster',
      name: 'Faster',
      keys: ['+', '='],
      perform: () => controller.setSpeed(Math.min(SPEEDS.length - 1, store.get().speedIndex + 1)),
    },
    {
      id: 'slower',
      name: 'Slower',
      keys: ['-', '_'],
      perform: () => controller.setSpeed(Math.max(0, store.get().speedIndex - 1)),
    },
    { id: 'presenter', name: 'Presenter mode on or off', keys: ['p'], perform: () => store.set({ presenter: !store.get().presenter }) },
    { id: 'theme', name: 'Light or dark theme', keys: ['t'], perform: () => store.set({ theme: store.get().theme === 'dark' ? 'light' : 'dark' }) },
    { id: 'shortcuts', name: 'Show or hide these shortcuts', keys: ['?'], perform: () => store.set({ shortcutsOpen: !store.get().shortcutsOpen }) },
  ];
}

/** The action bound to a key, unless the user is typing in a field. */
export function actionForKey(actions: readonly Action[], event: KeyboardEvent): Action | undefined {
  const target = event.target as HTMLElement | null;
  if (target && (target.isContentEditable || ['INPUT', 'TEXTAREA', 'SELECT'].includes(target.tagName))) {
    return undefined;
  }
  if (event.ctrlKey || event.metaKey || event.altKey) return undefined;
  // A widget that took the key for itself (a chart's arrow keys) keeps it.
  if (event.defaultPrevented) return undefined;
  // While a modal dialog is open the page behind it is inert: its shortcuts too.
  if (typeof document !== 'undefined' && document.querySelector('dialog[open]')) return undefined;
  // Space and Enter on a focused button, link or summary press it, as they do everywhere.
  if (target && typeof target.closest === 'function' && (event.key === ' ' || event.key === 'Enter') && target.closest('button, a[href], summary, [role="button"], [role="menuitem"]')) return undefined;
  // Space on a focused box that scrolls (a long scenario description) scrolls it a page.
  if (target && typeof target.closest === 'function' && event.key === ' ' && target.closest('[role="region"][tabindex]')) return undefined;
  return actions.find((action) => action.keys.includes(event.key));
}
