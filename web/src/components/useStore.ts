import { useSyncExternalStore } from 'react';
import type { AppState, AppStore } from '../store/app';

export function useAppState<T>(store: AppStore, pick: (state: AppState) => T): T {
  return useSyncExternalStore(store.subscribe, () => pick(store.get()));
}
