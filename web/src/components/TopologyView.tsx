import { useEffect, useMemo, useRef, useState } from 'react';
import type { AppStore } from '../store/app';
import { useAppState } from './useStore';
import { computeLayout } from '../render/layout';
import { drawMachine } from '../render/topology';
import { groupColor, taskColors } from '../render/colors';

export function TopologyView({ store }: { store: AppStore }) {
  const loaded = useAppState(store, (s) => s.loaded);
  const frame = useAppState(store, (s) => s.frame);
  const svgRef = useRef<SVGSVGElement>(null);
  const hostRef = useRef<HTMLDivElement>(null);
  const [width, setWidth] = useState(800);

  useEffect(() => {
    const host = hostRef.current;
    if (!host) return;
    const observer = new ResizeObserver((entries) => {
      const entry = entries[0];
      if (entry) setWidth(Math.max(320, Math.floor(entry.contentRect.width)));
    });
    observer.observe(host);
    return () => observer.disconnect();
  }, []);

  const layout = useMemo(() => (loaded ? computeLayout(loaded.machine, width) : undefined), [loaded, width]);
  const colors = useMemo(() => taskColors(loaded?.tasks ?? []), [loaded]);

  useEffect(() => {
    if (svgRef.current && layout && frame) {
      drawMachine(svgRef.current, layout, colors, { running: frame.running, nrRunning: frame.nrRunning });
    }
  }, [layout, colors, frame]);

  return (
    <section className="panel machine" aria-labelledby="machine-title">
      <h2 id="machine-title">
        {loaded ? `${loaded.machine.name}: ${loaded.machine.cpus.length} CPUs` : 'Machine'}
      </h2>
      {loaded && (
        <ul className="legend" aria-label="Workloads">
          {loaded.workloads.map((workload, index) => (
            <li key={workload.label}>
              <span className="swatch" style={{ background: groupColor(index) }} />
              {workload.label}
            </li>
          ))}
          <li>
            <span className="swatch idle" /> idle
          </li>
          <li>
            <span className="swatch depth" /> waiting tasks (one step each)
          </li>
        </ul>
      )}
      <div ref={hostRef} className="machine-host">
        <svg ref={svgRef} role="img" aria-label="CPUs and what they run" data-testid="machine" />
      </div>
    </section>
  );
}
