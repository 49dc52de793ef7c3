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

/**
 * While playing, a view publishes on a grid of `intervalMs` shifted by `phaseMs`:
 * views with different phases publish in different animation frames, so their
 * re-renders never pile up into one long task that makes a frame miss the display.
 */
export function throttledView<T extends { readonly playing: boolean }>(
  store: ReadableStore<T>,
  intervalMs: number,
  phaseMs = 0,
  now: () => number = () => performance.now(),
): ReadableStore<T> {
  let shown = store.get();
  let timer: ReturnType<typeof setTimeout> | undefined;
  const listeners = new Set<() => void>();
  let unsubscribe: (() => void) | undefined;

  const publish = () => {
    if (timer !== undefined) clearTimeout(timer);
    timer = undefined;
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
    const into = (((now() - phaseMs) % intervalMs) + intervalMs) % intervalMs;
    timer = setTimeout(publish, intervalMs - into);
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
