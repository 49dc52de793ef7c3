/**
 * The run's figures over simulated time, for the charts: wakeup latency so far
 * (p50, p99), and per interval the utilisation, the idle-while-runnable gap,
 * migrations per millisecond by distance and the share of `rq` lock acquisitions
 * that waited. Sampled from the frames' cumulative counters; an interval closes
 * once it spans a small share of the run so far, so a step of one event does not
 * make a spike, and the store is bounded like the frequency series (the older
 * half thinned). A new object per run, appended to before each frame is set.
 * Pure: no React.
 */
import { Counter, LATENCY, type Frame } from '../engine/protocol';

export const HISTORY_MAX_POINTS = 1200;

/** The figures of one interval (rates) and the run so far (latency). */
export interface HistoryPoint {
  readonly timeNs: number;
  readonly p50Us: number;
  readonly p99Us: number;
  /** Busy share of all CPUs over the interval, in %. */
  readonly utilisationPct: number;
  /** Idle-while-runnable (LLC) over the interval, in % of all CPUs' time. */
  readonly gapPct: number;
  /** Migrations per simulated millisecond over the interval, by distance. */
  readonly smtPerMs: number;
  readonly llcPerMs: number;
  readonly crossLlcPerMs: number;
  readonly crossNumaPerMs: number;
  /** `rq` lock acquisitions that waited over the interval, in %. */
  readonly lockWaitPct: number;
}

interface Totals {
  readonly timeNs: number;
  readonly busyNs: number;
  readonly gapNs: number;
  readonly offlineNs: number;
  readonly smt: number;
  readonly llc: number;
  readonly crossLlc: number;
  readonly crossNuma: number;
  readonly acquisitions: number;
  readonly contentions: number;
}

function totalsOf(frame: Frame): Totals {
  const at = (index: number) => frame.counters[index] ?? 0;
  let busyNs = 0;
  for (const ns of frame.busyNs) busyNs += ns;
  return {
    timeNs: frame.nowNs,
    busyNs,
    gapNs: at(Counter.idleWhileRunnableLlcNs),
    offlineNs: at(Counter.offlineNs),
    smt: at(Counter.migrationsSmt),
    llc: at(Counter.migrationsLlc),
    crossLlc: at(Counter.migrationsCrossLlc),
    crossNuma: at(Counter.migrationsCrossNuma),
    acquisitions: at(Counter.lockAcquisitions),
    contentions: at(Counter.lockContentions),
  };
}

export class RunHistory {
  readonly cpus: number;
  readonly maxPoints: number;
  private list: HistoryPoint[] = [];
  /** The counters where the open interval started. */
  private start: Totals | undefined;

  constructor(cpus: number, maxPoints = HISTORY_MAX_POINTS) {
    if (maxPoints < 4) throw new Error('a run history keeps at least 4 points');
    this.cpus = Math.max(1, cpus);
    this.maxPoints = maxPoints;
  }

  get points(): readonly HistoryPoint[] {
    return this.list;
  }

  /** Where the history stands now (its points are never changed once made, so they are shared). */
  mark(): { readonly list: readonly HistoryPoint[]; readonly start: Totals | undefined } {
    return { list: this.list.slice(), start: this.start };
  }

  /** Back to `mark`, taken earlier in this run. */
  rewind(mark: ReturnType<RunHistory['mark']>): void {
    this.list = mark.list.slice();
    this.start = mark.start;
  }

  /** Takes a frame; closes the open interval when it spans enough time. */
  add(frame: Frame): void {
    const now = totalsOf(frame);
    if (!this.start || now.timeNs < this.start.timeNs) {
      this.start = now;
      if (now.timeNs < (this.list[this.list.length - 1]?.timeNs ?? 0)) this.list = [];
      return;
    }
    const span = now.timeNs - this.start.timeNs;
    // At least 10 us, and a 150th of the run so far: about 150 intervals whatever the speed.
    if (span < Math.max(10_000, now.timeNs / 150)) return;
    // The online CPUs' time over the interval (an offline CPU is not idle capacity).
    const capacity = Math.max(1, span * this.cpus - (now.offlineNs - this.start.offlineNs));
    const perMs = (count: number) => (count * 1e6) / span;
    const acquisitions = now.acquisitions - this.start.acquisitions;
    this.list.push({
      timeNs: now.timeNs,
      p50Us: frame.latency[LATENCY.p50] ?? 0,
      p99Us: frame.latency[LATENCY.p99] ?? 0,
      utilisationPct: (100 * (now.busyNs - this.start.busyNs)) / capacity,
      gapPct: (100 * (now.gapNs - this.start.gapNs)) / capacity,
      smtPerMs: perMs(now.smt - this.start.smt),
      llcPerMs: perMs(now.llc - this.start.llc),
      crossLlcPerMs: perMs(now.crossLlc - this.start.crossLlc),
      crossNumaPerMs: perMs(now.crossNuma - this.start.crossNuma),
      lockWaitPct: acquisitions > 0 ? (100 * (now.contentions - this.start.contentions)) / acquisitions : 0,
    });
    this.start = now;
    if (this.list.length > this.maxPoints) {
      const half = Math.floor(this.list.length / 2);
      this.list = this.list.filter((_, index) => index >= half || index % 2 === 0);
    }
  }
}
