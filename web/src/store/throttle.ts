/**
 * A view of a store that, while the run plays, passes on a new state at most
 * every `intervalMs`: for panels of text and charts, which cannot be read at 60
 * changes a second and whose re-layout and repaint every animation frame is most
 * of the page's work on a large machine. When nothing plays, every change passes
 * at once, so a step, a pause or the end of a run always shows its last state.
 */
export interface ReadableStore<T> {
  get(): T;
  subscribe(listener: () => void): () => void;
}

export function throttledView<T extends { readonly playing: boolean }>(store: ReadableStore<T>, intervalMs: number, now: () => number = () => performance.now()): ReadableStore<T> {
  let shown = store.get();
  let lastShown = -Infinity;
  let timer: ReturnType<typeof setTimeout> | undefined;
  const listeners = new Set<() => void>();
  let unsubscribe: (() => void) | undefined;

  const publish = () => {
    if (timer !== undefined) clearTimeout(timer);
    timer = undefined;
    lastShown = now();
    const next = store.get();
    if (next === shown) return;
    shown = next;
    for (const listener of listeners) listener();
  };
  const changed = () => {
    if (!store.get().playing) {
      publish();
      return;
    }
    if (timer !== undefined) return;
    timer = setTimeout(publish, Math.max(0, lastShown + intervalMs - now()));
  };

  return {
    get: () => (listeners.size > 0 ? shown : store.get()),
    subscribe(listener) {
      if (listeners.size === 0) {
        shown = store.get();
        unsubscribe = store.subscribe(changed);
      }
      listeners.add(listener);
      return () => {
        listeners.delete(listener);
        if (listeners.size === 0) {
          unsubscribe?.();
          unsubscribe = undefined;
          if (timer !== undefined) clearTimeout(timer);
          timer = undefined;
        }
      };
    },
  };
}
