/**
 * Binary searches over the first `length` entries of a sorted time column (the
 * timeline's slice and wait lanes).
 */

/** How many of the first `length` times are at or before `timeNs` (the last such index + 1). */
export function countAtOrBefore(times: ArrayLike<number>, length: number, timeNs: number): number {
  let lo = 0;
  let hi = length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if ((times[mid] ?? 0) <= timeNs) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/** How many of the first `length` times are strictly before `timeNs`. */
export function countBefore(times: ArrayLike<number>, length: number, timeNs: number): number {
  let lo = 0;
  let hi = length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if ((times[mid] ?? 0) < timeNs) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}
