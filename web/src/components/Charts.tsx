import { useEffect, useRef, useState, type KeyboardEvent, type PointerEvent, type RefObject } from 'react';
import type { AppStore } from '../store/app';
import type { FrequencySeries, PowerOn } from '../store/power';
import { LATENCY, type Frame } from '../engine/protocol';
import { useAppState, useAppStateEvery } from './useStore';
import { useElementWidth } from './useElementWidth';
import { formatGhz, powerOn } from '../store/power';
import { drawFrequencyChart, FREQUENCY_CHART, socketColor } from '../render/frequencyChart';
import { drawLineChart, LINE_CHART, pointNearPixel, type ChartLine } from '../render/lineChart';
import { formatTraceTime } from '../base/format';
import { DISTANCE_COLOR } from '../render/motion';
import { DISTANCE_LABEL, DISTANCES, type Distance } from '../store/motion';
import type { HistoryPoint } from '../store/history';
import { simTimeNs, unreachable } from '../base/types';
import { bucketLabel, bucketNearPixel, bucketReadout, bucketsOf, drawHistogram, HISTOGRAM_CHART } from '../render/histogram';
import { cursorAfterKey } from '../render/chartCursor';

/**
 * The Charts region: the run's figures over simulated time, from the start to the
 * playhead, redrawn as it plays: wakeup latency so far, utilisation and the
 * idle-while-runnable gap, migrations by distance, `rq` lock contention; and,
 * while the power model runs, each socket's frequency.
 */
export function Charts({ store, svgRef, run }: { store: AppStore; svgRef?: RefObject<SVGSVGElement | null>; run?: 'A' }) {
  const loaded = useAppState(store, (s) => s.loaded);
  const frame = useAppStateEvery(store, (s) => s.frame, 'charts');
  const series = useAppState(store, (s) => s.frequency);
  const history = useAppState(store, (s) => s.history);
  const power = powerOn(loaded?.power);
  if (!loaded || !frame || !history) return null;
  const points = history.points;
  const last = points[points.length - 1];
  return (
    <section className="panel charts" aria-label="Charts">
      {run && (
        // While comparing, these are A's: B's figures are in the Comparison table.
        <p className="charts-run" data-testid="charts-run">
          <span className="run-tag">{run}</span> The charts follow run {run}; run B&apos;s figures are beside A&apos;s in the Comparison table.
        </p>
      )}
      <div className="chart-grid">
        <HistoryChart
          title="Wakeup latency so far"
          testId="latency-chart"
          points={points}
          nowNs={frame.nowNs}
          unit=" us"
          lines={[
            { key: 'p50', label: 'p50', color: '#2b6cb0', value: (point) => point.p50Us },
            { key: 'p99', label: 'p99', color: '#c53030', value: (point) => point.p99Us },
          ]}
          latest={
            // The figures now, as the latency table shows them (the last point drawn can be older).
            (frame.latency[LATENCY.samples] ?? 0) > 0
              ? `p50 ${(frame.latency[LATENCY.p50] ?? 0).toFixed(1)} us, p99 ${(frame.latency[LATENCY.p99] ?? 0).toFixed(1)} us`
              : 'no wakeup yet'
          }
        />
        <LatencyHistogram flat={frame.latencyHistogram} />
        <HistoryChart
          title="Utilisation and idle while runnable"
          testId="utilisation-chart"
          points={points}
          nowNs={frame.nowNs}
          unit="%"
          minTop={100}
          lines={[
            { key: 'utilisation', label: 'busy', color: '#2f855a', value: (point) => point.utilisationPct },
            { key: 'gap', label: 'idle while a task waited in the LLC', color: '#c05621', value: (point) => point.gapPct, dashed: true },
          ]}
          latest={last ? `busy ${last.utilisationPct.toFixed(1)} %, idle while runnable ${last.gapPct.toFixed(2)} % lately` : ''}
        />
        <HistoryChart
          title="Migrations per ms, by distance"
          testId="migrations-chart"
          points={points}
          nowNs={frame.nowNs}
          unit=""
          digits={2}
          lines={DISTANCES.map((distance) => ({
            key: distance,
            label: DISTANCE_LABEL[distance],
            color: DISTANCE_COLOR[distance],
            value: (point: HistoryPoint) => migrationsOf(point, distance),
          }))}
          latest={last ? DISTANCES.map((distance) => `${DISTANCE_LABEL[distance]} ${migrationsOf(last, distance).toFixed(2)}`).join(', ') : ''}
        />
        <HistoryChart
          title="rq lock: acquisitions that waited"
          testId="lock-chart"
          points={points}
          nowNs={frame.nowNs}
          unit="%"
          digits={2}
          lines={[{ key: 'lock', label: '&rq->__lock', color: '#805ad5', value: (point) => point.lockWaitPct }]}
          latest={last ? `${last.lockWaitPct.toFixed(2)} % lately` : ''}
        />
      </div>
      {power && series && <FrequencyChart power={power} series={series} frame={frame} svgRef={svgRef} />}
    </section>
  );
}

/**
 * How long wakeups waited, so far: a bar a power-of-two bucket, and the cumulative
 * share. The pointer or the arrow keys pick a bucket to read out under the chart.
 */
function LatencyHistogram({ flat }: { flat: Float64Array }) {
  const hostRef = useRef<HTMLDivElement>(null);
  const svgRef = useRef<SVGSVGElement>(null);
  const width = useElementWidth(hostRef, 400);
  const buckets = bucketsOf(flat);
  const [cursor, setCursor] = useState<number | undefined>(undefined);
  const shown = cursor === undefined || buckets.length === 0 ? undefined : Math.min(cursor, buckets.length - 1);
  useEffect(() => {
    if (svgRef.current) drawHistogram(svgRef.current, bucketsOf(flat), width, shown);
  }, [flat, width, shown]);
  const total = buckets.reduce((sum, bucket) => sum + bucket.count, 0);
  const description =
    total === 0
      ? 'no wakeup yet'
      : buckets
          .filter((bucket) => bucket.count > 0)
          .map((bucket) => `${bucket.count} up to ${bucketLabel(bucket.upperUs)}`)
          .join(', ');
  const onPointer = (event: PointerEvent<HTMLDivElement>) => {
    const box = event.currentTarget.getBoundingClientRect();
    setCursor(bucketNearPixel(buckets.length, width, event.clientX - box.left));
  };
  const onKey = (event: KeyboardEvent<HTMLDivElement>) => {
    const moved = cursorAfterKey(event.key, shown, buckets.length);
    if (!moved) return;
    event.preventDefault();
    setCursor(moved.to);
  };
  return (
    <figure className="chart" data-testid="latency-histogram">
      <figcaption className="chart-head">
        <h3>Wakeup latency histogram</h3>
        <ul className="legend chart-legend">
          <li>
            <span className="swatch hist-swatch" />
            wakeups per bucket
          </li>
          <li>
            <span className="swatch line" style={{ background: '#c53030' }} />
            share up to it (right axis)
          </li>
        </ul>
      </figcaption>
      <div
        ref={hostRef}
        className="chart-host readable"
        tabIndex={0}
        role="group"
        aria-label="Wakeup latency histogram: point or use the arrow keys to read a bucket"
        onPointerMove={onPointer}
        onPointerLeave={() => setCursor(undefined)}
        onKeyDown={onKey}
        onBlur={() => setCursor(undefined)}
      >
        <svg ref={svgRef} role="img" aria-label={`Wakeup latency histogram: ${description}`} height={HISTOGRAM_CHART.height} />
      </div>
      <p className="chart-readout" data-testid="latency-histogram-readout" aria-live="polite">
        {bucketReadout(buckets, shown)}
      </p>
    </figure>
  );
}

function migrationsOf(point: HistoryPoint, distance: Distance): number {
  switch (distance) {
    case 'smt':
      return point.smtPerMs;
    case 'llc':
      return point.llcPerMs;
    case 'cross-llc':
      return point.crossLlcPerMs;
    case 'cross-numa':
      return point.crossNumaPerMs;
    default:
      return unreachable(distance);
  }
}

interface HistoryLine extends ChartLine<HistoryPoint> {
  readonly label: string;
}

/** One chart of the run's history: its title and legend, the lines, and a readout of their values at a time. */
function HistoryChart({
  title,
  testId,
  points,
  nowNs,
  unit,
  digits = 1,
  minTop,
  lines,
  latest,
}: {
  title: string;
  testId: string;
  points: readonly HistoryPoint[];
  nowNs: number;
  unit: string;
  /** Decimals of the values read out. */
  digits?: number;
  minTop?: number;
  lines: readonly HistoryLine[];
  latest: string;
}) {
  const hostRef = useRef<HTMLDivElement>(null);
  const svgRef = useRef<SVGSVGElement>(null);
  const width = useElementWidth(hostRef, 400);
  // The point read out, chosen by the pointer or the arrow keys; none: the figures now.
  const [cursor, setCursor] = useState<number | undefined>(undefined);
  const shown = cursor === undefined || points.length === 0 ? undefined : Math.min(cursor, points.length - 1);
  useEffect(() => {
    if (svgRef.current) drawLineChart(svgRef.current, { width, points, lines, nowNs, unit, minTop, cursor: shown });
  }, [width, points, lines, nowNs, unit, minTop, shown]);
  const point = shown === undefined ? undefined : points[shown];
  const readout = point
    ? `at ${formatTraceTime(simTimeNs(point.timeNs))} s: ${lines.map((entry) => `${entry.label} ${entry.value(point).toFixed(digits)}${unit === '%' ? ' %' : unit}`).join(', ')}`
    : `now: ${latest}`;
  const onPointer = (event: PointerEvent<HTMLDivElement>) => {
    const box = event.currentTarget.getBoundingClientRect();
    setCursor(pointNearPixel(points, width, nowNs, event.clientX - box.left));
  };
  const onKey = (event: KeyboardEvent<HTMLDivElement>) => {
    const moved = cursorAfterKey(event.key, shown, points.length);
    if (!moved) return;
    // The chart's keys, not the page's shortcuts (ArrowRight steps the run).
    event.preventDefault();
    setCursor(moved.to);
  };
  return (
    <figure className="chart" data-testid={testId}>
      <figcaption className="chart-head">
        <h3>{title}</h3>
        <ul className="legend chart-legend">
          {lines.map((entry) => (
            <li key={entry.key}>
              <span className={entry.dashed ? 'swatch line dashed' : 'swatch line'} style={{ background: entry.color }} />
              {entry.label}
            </li>
          ))}
        </ul>
      </figcaption>
      <div
        ref={hostRef}
        className="chart-host readable"
        tabIndex={0}
        role="group"
        aria-label={`${title}: point or use the arrow keys to read the values over time`}
        onPointerMove={onPointer}
        onPointerLeave={() => setCursor(undefined)}
        onKeyDown={onKey}
        onBlur={() => setCursor(undefined)}
      >
        <svg ref={svgRef} role="img" aria-label={`${title}: ${latest}`} height={LINE_CHART.height} />
      </div>
      <p className="chart-readout" data-testid={`${testId}-readout`} aria-live="polite">
        {readout}
      </p>
    </figure>
  );
}

/** "Frequency over time": mounted with its host, so the host's width is measured from the start. */
function FrequencyChart({
  power,
  series,
  frame,
  svgRef: sharedRef,
}: {
  power: PowerOn;
  series: FrequencySeries;
  frame: Frame;
  svgRef?: RefObject<SVGSVGElement | null>;
}) {
  const hostRef = useRef<HTMLDivElement>(null);
  const ownRef = useRef<SVGSVGElement>(null);
  const svgRef = sharedRef ?? ownRef;
  const width = useElementWidth(hostRef);

  useEffect(() => {
    if (!svgRef.current) return;
    drawFrequencyChart(svgRef.current, {
      width,
      series,
      nowNs: frame.nowNs,
      nominalMhz: power.nominal_mhz,
      turboMhz: power.turbo_mhz_by_active_cores,
    });
  }, [power, series, frame, width, svgRef]);

  const latest = series.latest() ?? [];
  const sockets = Array.from({ length: series.sockets }, (_, socket) => socket);
  const turboTop = power.turbo_mhz_by_active_cores[0];
  const description = `Frequency over time, one line per socket: ${sockets.map((socket) => `socket ${socket} ${formatGhz(latest[socket] ?? 0)} now`).join(', ')}`;
  return (
    <figure className="chart" data-testid="frequency-chart">
      <figcaption className="chart-head">
        <h2>Frequency over time</h2>
        <ul className="legend chart-legend" aria-label="Sockets">
          {sockets.map((socket) => (
            <li key={socket} data-socket={socket}>
              <span className="swatch line" style={{ background: socketColor(socket) }} />
              socket {socket}: <strong>{formatGhz(latest[socket] ?? 0)}</strong>
            </li>
          ))}
          <li className="muted">
            nominal {formatGhz(power.nominal_mhz)}
            {turboTop !== undefined && <>, up to {formatGhz(turboTop)} with one core out of deep idle</>}
          </li>
        </ul>
      </figcaption>
      <div ref={hostRef} className="chart-host">
        <svg ref={svgRef} role="img" aria-label={description} data-testid="frequency-svg" height={FREQUENCY_CHART.height} />
      </div>
    </figure>
  );
}
