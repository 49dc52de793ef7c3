import { useSyncExternalStore } from 'react';
import type { AppState, AppStore } from '../store/app';
import { throttledView, type ReadableStore } from '../store/throttle';

export function useAppState<T>(store: ReadableStore<AppState>, pick: (state: AppState) => T): T {
  return useSyncExternalStore(store.subscribe, () => pick(store.get()));
}

/** How often text panels (tables, the log, the charts) take a new state while a run plays. */
export const PLAYING_TEXT_MS = 100;

/**
 * The panels that refresh while playing, each in its own slot of the
 * `PLAYING_TEXT_MS` grid (a third of it apart), so their re-renders fall in
 * different animation frames.
 */
export type TextPanel = 'charts' | 'log' | 'tables';
const PHASE: Readonly<Record<TextPanel, number>> = { charts: 0, log: PLAYING_TEXT_MS / 3, tables: (2 * PLAYING_TEXT_MS) / 3 };

const views = new WeakMap<AppStore, Map<TextPanel, ReadableStore<AppState>>>();

/**
 * Like `useAppState`, but while the run plays the value changes at most every
 * `PLAYING_TEXT_MS` (`store/throttle.ts`), in `panel`'s slot; paused or stepping, at once.
 */
export function useAppStateEvery<T>(store: AppStore, pick: (state: AppState) => T, panel: TextPanel = 'tables'): T {
  let byPanel = views.get(store);
  if (!byPanel) {
    byPanel = new Map();
    views.set(store, byPanel);
  }
  let view = byPanel.get(panel);
  if (!view) {
    view = throttledView(store, PLAYING_TEXT_MS, PHASE[panel]);
    byPanel.set(panel, view);
  }
  return useAppState(view, pick);
}
