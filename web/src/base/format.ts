import type { SimTimeNs } from './types';

/** `1.234567` seconds, like ftrace's timestamp column. */
export function formatTraceTime(ns: SimTimeNs): string {
  const micros = Math.floor(ns / 1000);
  const seconds = Math.floor(micros / 1_000_000);
  return `${seconds}.${String(micros % 1_000_000).padStart(6, '0')}`;
}

/** A short human duration: `850 ns`, `12.0 us`, `3.40 ms`, `1.250 s`. */
export function formatDuration(ns: number): string {
  if (ns < 1_000) return `${Math.round(ns)} ns`;
  if (ns < 1_000_000) return `${(ns / 1_000).toFixed(1)} us`;
  if (ns < 1_000_000_000) return `${(ns / 1_000_000).toFixed(2)} ms`;
  return `${(ns / 1_000_000_000).toFixed(3)} s`;
}

/**
 * `value` with thousands separators and exactly `digits` decimals, as
 * `value.toLocaleString('en-US', { minimumFractionDigits: digits, maximumFractionDigits: digits })`
 * gives it. A whole number (what the panels that refresh while a run plays mostly show,
 * hundreds ten times a second) is grouped here, about four times faster than
 * `toLocaleString`; anything else goes to it.
 */
export function formatGrouped(value: number, digits = 0): string {
  if (digits !== 0 || !Number.isSafeInteger(value)) {
    return value.toLocaleString('en-US', { minimumFractionDigits: digits, maximumFractionDigits: digits });
  }
  const text = String(Math.abs(value));
  let out = text.slice(0, text.length % 3 || 3);
  for (let at = out.length; at < text.length; at += 3) out += `,${text.slice(at, at + 3)}`;
  // `-0` is a safe integer that toLocaleString shows signed.
  return value < 0 || Object.is(value, -0) ? `-${out}` : out;
}

/** Microseconds as schbench prints them: whole numbers. */
export function formatUs(us: number): string {
  return formatGrouped(Math.round(us));
}

export function formatCount(count: number): string {
  return formatGrouped(Math.round(count));
}

/** A size in bytes as people read it: `512 B`, `12.3 KB`, `1.2 GB` (powers of 1000, as file managers show). */
export function formatBytes(bytes: number): string {
  const units = ['B', 'KB', 'MB', 'GB', 'TB'];
  let value = bytes;
  let unit = 0;
  while (value >= 1000 && unit < units.length - 1) {
    value /= 1000;
    unit += 1;
  }
  return unit === 0 ? `${Math.round(value)} B` : `${value.toFixed(value < 10 ? 2 : 1)} ${units[unit]}`;
}

/** `value` with exactly `digits` decimals and thousands separators; a dash when there is none. */
export function formatFixed(value: number | undefined, digits: number): string {
  return value === undefined ? '—' : formatGrouped(value, digits);
}
