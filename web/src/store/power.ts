/**
 * The power model as the app shows it: each core's idle state and each socket's
 * frequency and power draw, parsed from the frame's flat `frame_power` array, and
 * a bounded series of socket frequencies over simulated time for the Frequency
 * chart. Pure: no React, no engine.
 */
import type { PowerInfo } from '../engine/protocol';
import type { SimTimeNs } from '../base/types';
import { unreachable } from '../base/types';

/** A core's idle state: running something, or in the platform's shallow or deep idle state. */
export type CoreIdle = 'active' | 'shallow' | 'deep';

/** The bridge's codes, in order: 0 active, 1 shallow idle, 2 deep idle. */
const IDLE_CODES: readonly CoreIdle[] = ['active', 'shallow', 'deep'];

export interface SocketPower {
  readonly mhz: number;
  readonly watts: number;
}

/** One frame's power state: per core (numbered as `MachineCpu.core`) and per socket. */
export interface PowerFrame {
  readonly cores: readonly CoreIdle[];
  readonly sockets: readonly SocketPower[];
}

/** The power model's figures when it runs; undefined when it does not. */
export type PowerOn = Extract<PowerInfo, { enabled: true }>;

export function powerOn(info: PowerInfo | undefined): PowerOn | undefined {
  return info?.enabled ? info : undefined;
}

/**
 * Splits the frame's `frame_power()` array, `[core0, core1, ..., mhz0, watts0,
 * mhz1, watts1, ...]`, by the core and socket counts of `power_json`. Undefined
 * when the model is off (an empty array) or when the array does not have the
 * length those counts give (never expected from the bridge): better no power
 * figures than figures read from the wrong place.
 */
export function parseFramePower(flat: Float64Array, info: PowerInfo): PowerFrame | undefined {
  if (!info.enabled || flat.length === 0) return undefined;
  const nCores = info.cores_per_socket.reduce((sum, cores) => sum + cores, 0);
  const nSockets = info.cores_per_socket.length;
  if (flat.length !== nCores + 2 * nSockets) return undefined;
  const cores: CoreIdle[] = [];
  for (let core = 0; core < nCores; core += 1) {
    const state = IDLE_CODES[flat[core] ?? -1];
    if (state === undefined) return undefined;
    cores.push(state);
  }
  const sockets: SocketPower[] = [];
  for (let socket = 0; socket < nSockets; socket += 1) {
    sockets.push({ mhz: flat[nCores + 2 * socket] ?? 0, watts: flat[nCores + 2 * socket + 1] ?? 0 });
  }
  return { cores, sockets };
}

/** How the app names each idle state, with the platform's name for the idle ones: `deep idle (stop4)`. */
export function idleLabel(state: CoreIdle, info: PowerOn): string {
  switch (state) {
    case 'active':
      return 'active';
    case 'shallow':
      return `shallow idle (${info.shallow.name})`;
    case 'deep':
      return `deep idle (${info.deep.name})`;
    default:
      return unreachable(state);
  }
}

/** `3.80 GHz` from MHz. */
export function formatGhz(mhz: number): string {
  return `${(mhz / 1000).toFixed(2)} GHz`;
}

/** `152 W / 190 W`: whole watts, one decimal under 10 W. */
export function formatWatts(watts: number, budget: number): string {
  const figure = (value: number) => (value < 10 ? value.toFixed(1) : value.toFixed(0));
  return `${figure(watts)} W / ${figure(budget)} W`;
}

/** The most points a `FrequencySeries` holds; older ones are thinned to stay under it. */
export const FREQUENCY_MAX_POINTS = 2000;

/**
 * Each socket's frequency over simulated time, one point per frame, for the
 * Frequency chart. Bounded: once it holds `maxPoints`, the older half is thinned
 * to every other point, so recent history stays at frame resolution and older
 * history at coarser steps (the first point, time 0, is always kept). A new
 * object per run, appended to before each frame is set (like `SliceStore`), so a
 * change of `frame` is the signal that it grew.
 */
export class FrequencySeries {
  readonly sockets: number;
  readonly maxPoints: number;
  private times: number[] = [];
  /** Per socket, its MHz at each of `times`. */
  private mhz: number[][];

  constructor(sockets: number, maxPoints = FREQUENCY_MAX_POINTS) {
    if (maxPoints < 4) throw new Error('a frequency series keeps at least 4 points');
    this.sockets = sockets;
    this.maxPoints = maxPoints;
    this.mhz = Array.from({ length: sockets }, () => []);
  }

  get length(): number {
    return this.times.length;
  }

  /**
   * Adds a frame's sample. A sample at the time of the last one replaces it (a
   * step that handled an event at the same instant); one from before it (never
   * expected within a run) starts the series again from there.
   */
  add(timeNs: SimTimeNs, sockets: readonly SocketPower[]): void {
    const last = this.times[this.times.length - 1];
    if (last !== undefined && timeNs < last) this.clear();
    else if (last !== undefined && timeNs === last) this.dropLast();
    this.times.push(timeNs);
    this.mhz.forEach((series, socket) => series.push(sockets[socket]?.mhz ?? Number.NaN));
    if (this.times.length > this.maxPoints) this.thin();
  }

  /** Forgets every point (a new run). */
  /** Where the series stands now. */
  mark(): { readonly times: readonly number[]; readonly mhz: readonly (readonly number[])[] } {
    return { times: this.times.slice(), mhz: this.mhz.map((series) => series.slice()) };
  }

  /** Back to `mark`, taken earlier in this run. */
  rewind(mark: ReturnType<FrequencySeries['mark']>): void {
    this.times = mark.times.slice();
    this.mhz = mark.mhz.map((series) => series.slice());
  }

  clear(): void {
    this.times = [];
    this.mhz = Array.from({ length: this.sockets }, () => []);
  }

  /** The points of one socket, oldest first: `[timeNs, mhz]`. */
  points(socket: number): readonly (readonly [number, number])[] {
    const series = this.mhz[socket] ?? [];
    return this.times.map((time, index) => [time, series[index] ?? Number.NaN] as const);
  }

  /** The newest sample's MHz per socket; undefined before any sample. */
  latest(): readonly number[] | undefined {
    if (this.times.length === 0) return undefined;
    return this.mhz.map((series) => series[series.length - 1] ?? Number.NaN);
  }

  /** The lowest and highest MHz over every socket and point; undefined when empty. */
  extent(): readonly [number, number] | undefined {
    let low = Infinity;
    let high = -Infinity;
    for (const series of this.mhz) {
      for (const value of series) {
        if (Number.isNaN(value)) continue;
        low = Math.min(low, value);
        high = Math.max(high, value);
      }
    }
    return low <= high ? [low, high] : undefined;
  }

  private dropLast(): void {
    this.times.pop();
    for (const series of this.mhz) series.pop();
  }

  /** Keeps every other point of the older half (even indexes, so the first stays), and the newer half whole. */
  private thin(): void {
    const half = Math.floor(this.times.length / 2);
    const keep = (values: number[]) => values.filter((_, index) => index >= half || index % 2 === 0);
    this.times = keep(this.times);
    this.mhz = this.mhz.map(keep);
  }
}
