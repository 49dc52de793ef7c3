import type { AppStore } from '../store/app';
import { useAppState, useAppStateEvery } from './useStore';
import { formatUs, formatCount } from '../base/format';
import { LATENCY } from '../engine/protocol';

const ROWS = ['50.0th', '75.0th', '90.0th', '95.0th', '*99.0th', '99.5th', '99.9th'] as const;

/** Wakeup latency percentiles, laid out as schbench prints them. */
export function LatencyTable({ store }: { store: AppStore }) {
  const latency = useAppStateEvery(store, (s) => s.frame?.latency);
  const samples = latency?.[LATENCY.samples] ?? 0;
  // A simulation whose tasks all report throughput instead (STREAM, turbo_bench, plain tasks) never fills the table.
  const unmeasured = useAppState(store, (s) => s.loaded !== undefined && s.loaded.log === undefined && !s.loaded.tasks.some((task) => task.records_latency));
  return (
    <section className="panel" aria-labelledby="latency-title">
      <h2 id="latency-title">Wakeup latency (usec)</h2>
      {unmeasured && (
        <p className="muted" data-testid="latency-unmeasured">
          This scenario's workloads do not measure wakeup latency; their throughput is under Run so far.
        </p>
      )}
      <table className="latency" aria-label="Wakeup latency percentiles">
        <tbody>
          {ROWS.map((label, index) => (
            <tr key={label} className={label.startsWith('*') ? 'headline' : undefined}>
              <th scope="row">{label}</th>
              <td data-testid={`latency-${label.replace('*', '')}`}>{samples > 0 ? formatUs(latency?.[LATENCY.p50 + index] ?? 0) : '—'}</td>
            </tr>
          ))}
          <tr>
            <th scope="row">min / max</th>
            <td>{samples > 0 ? `${formatUs(latency?.[LATENCY.min] ?? 0)} / ${formatUs(latency?.[LATENCY.max] ?? 0)}` : '—'}</td>
          </tr>
          <tr>
            <th scope="row">samples</th>
            <td data-testid="latency-samples">{formatCount(samples)}</td>
          </tr>
        </tbody>
      </table>
    </section>
  );
}
