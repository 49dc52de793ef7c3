import { useEffect, useRef, type RefObject } from 'react';
import type { AppStore } from '../store/app';
import type { FrequencySeries, PowerOn } from '../store/power';
import type { Frame } from '../engine/protocol';
import { useAppState } from './useStore';
import { useElementWidth } from './useElementWidth';
import { formatGhz, powerOn } from '../store/power';
import { drawFrequencyChart, FREQUENCY_CHART, socketColor } from '../render/frequencyChart';

/**
 * The Charts region: while the power model runs, "Frequency over time", one line
 * per socket (MHz against simulated time, from the run's start to the playhead).
 * Absent when the model does not run.
 */
export function Charts({ store, svgRef }: { store: AppStore; svgRef?: RefObject<SVGSVGElement | null> }) {
  const loaded = useAppState(store, (s) => s.loaded);
  const frame = useAppState(store, (s) => s.frame);
  const series = useAppState(store, (s) => s.frequency);
  const power = powerOn(loaded?.power);
  if (!power || !series || !frame) return null;
  return (
    <section className="panel charts" aria-label="Charts">
      <FrequencyChart power={power} series={series} frame={frame} svgRef={svgRef} />
    </section>
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
