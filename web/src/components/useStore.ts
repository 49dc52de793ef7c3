import { useSyncExternalStore } from 'react';
import type { AppState, AppStore } from '../store/app';
import { throttledView, type ReadableStore } from '../store/throttle';

export function useAppState<T>(store: ReadableStore<AppState>, pick: (state: AppState) => T): T {
  return useSyncExternalStore(store.subscribe, () => pick(store.get()));
}

/** How often text panels (tables, the log, the charts) take a new state while a run plays. */
export const PLAYING_TEXT_MS = 100;

const views = new WeakMap<AppStore, ReadableStore<AppState>>();

/**
 * Like `useAppState`, but while the run plays the value changes at most every
 * `PLAYING_TEXT_MS` (`store/throttle.ts`); paused or stepping, at once.
 */
export function useAppStateEvery<T>(store: AppStore, pick: (state: AppState) => T): T {
  let view = views.get(store);
  if (!view) {
    view = throttledView(store, PLAYING_TEXT_MS);
    views.set(store, view);
  }
  return useAppState(view, pick);
}
