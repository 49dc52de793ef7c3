import { Fragment } from 'react';
import type { AppStore } from '../store/app';
import { useAppState, useAppStateEvery } from './useStore';
import { formatCount, formatDuration } from '../base/format';
import { Counter } from '../engine/protocol';
import { throughputRows } from './throughput';

export function Counters({ store }: { store: AppStore }) {
  const frame = useAppStateEvery(store, (s) => s.frame);
  const loaded = useAppState(store, (s) => s.loaded);
  if (!frame || !loaded) return null;
  const at = (index: number) => frame.counters[index] ?? 0;
  const busy = frame.busyNs.reduce((sum, ns) => sum + ns, 0);
  // The online CPUs' time (an offline CPU is not idle capacity), as the run's summary counts it.
  const capacity = frame.nowNs * frame.busyNs.length - at(Counter.offlineNs);
  const utilization = capacity > 0 ? (100 * busy) / capacity : 0;
  const gapPct = capacity > 0 ? (100 * at(Counter.idleWhileRunnableLlcNs)) / capacity : 0;
  // Each workload's headline figures, exactly as `schedlab run --json` reports them.
  const several = frame.throughput.length > 1;
  const throughput = frame.throughput.flatMap((entry, workloadIndex) =>
    throughputRows(loaded.workloads[workloadIndex]?.throughput, entry.values).map((row, rowIndex) => ({
      ...row,
      key: `${workloadIndex}-${rowIndex}`,
      name: several ? `${entry.workload}: ${row.name}` : row.name,
      hint: `${entry.workload}. ${row.hint}`,
    })),
  );
  const acquisitions = at(Counter.lockAcquisitions);
  const log = loaded.log;
  return (
    <section className="panel" aria-labelledby="counters-title">
      <h2 id="counters-title">Run so far</h2>
      <dl className="counters">
        <dt>utilisation</dt>
        <dd data-testid="utilization">{utilization.toFixed(1)} %</dd>
        {!log && (
          <>
            <dt title="CPU time idle while a task waited on another runqueue of the same LLC">idle while runnable (LLC)</dt>
            <dd data-testid="idle-while-runnable">
              {formatDuration(at(Counter.idleWhileRunnableLlcNs))} ({gapPct.toFixed(2)} %)
            </dd>
          </>
        )}
        {throughput.map((row) => (
          <Fragment key={row.key}>
            <dt title={row.hint}>{row.name}</dt>
            <dd data-testid="throughput" title={row.hint}>
              {row.text}
            </dd>
          </Fragment>
        ))}
        <dt>context switches</dt>
        <dd>{formatCount(at(Counter.switches))}</dd>
        <dt>wakeups</dt>
        <dd>{formatCount(at(Counter.wakeups))}</dd>
        <dt>migrations</dt>
        <dd>
          SMT {formatCount(at(Counter.migrationsSmt))} · LLC {formatCount(at(Counter.migrationsLlc))} · cross-LLC{' '}
          {formatCount(at(Counter.migrationsCrossLlc))} · cross-NUMA {formatCount(at(Counter.migrationsCrossNuma))}
        </dd>
        {log ? (
          <>
            <dt>source</dt>
            <dd data-testid="log-source" title="A real machine's log: lock waits, cache refills and scheduler time are the model's own figures, and a log has none">
              {log.name} (a real machine's log)
            </dd>
          </>
        ) : (
          <>
            <dt>rq lock</dt>
            <dd>
              {formatCount(at(Counter.lockContentions))} of {formatCount(acquisitions)} contended, {formatDuration(at(Counter.lockWaitNs))}{' '}
              spinning
            </dd>
            <dt>clock</dt>
            <dd>{formatCount(loaded.machine.frequency_mhz)} MHz</dd>
            <dt>cache refill · sched paths</dt>
            <dd>
              {formatDuration(at(Counter.cacheRefillNs))} · {formatDuration(at(Counter.schedOverheadNs))}
            </dd>
          </>
        )}
      </dl>
    </section>
  );
}
