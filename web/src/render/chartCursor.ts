/**
 * The keys that move a chart's read-out point: the arrows one step, Page Up/Down a
 * tenth of the points, Home and End to either end, Escape lets go. Shared by the
 * charts over time and the latency histogram.
 */

/**
 * Where a key moves the read-out point of a chart of `count` points from `from`
 * (undefined: none chosen, which starts from the last): `{ to }` (undefined `to`:
 * no point, the chart reads out its latest figures), or undefined for a key the
 * chart does not take.
 */
export function cursorAfterKey(key: string, from: number | undefined, count: number): { readonly to: number | undefined } | undefined {
  if (count === 0) return undefined;
  const last = count - 1;
  const at = from === undefined ? last : Math.min(from, last);
  const page = Math.max(1, Math.round(count / 10));
  switch (key) {
    case 'ArrowLeft':
      return { to: Math.max(0, at - 1) };
    case 'ArrowRight':
      return { to: Math.min(last, at + 1) };
    case 'PageUp':
      return { to: Math.max(0, at - page) };
    case 'PageDown':
      return { to: Math.min(last, at + page) };
    case 'Home':
      return { to: 0 };
    case 'End':
      return { to: last };
    case 'Escape':
      return { to: undefined };
    default:
      return undefined;
  }
}
