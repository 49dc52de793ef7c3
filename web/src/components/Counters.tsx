import type { AppStore } from '../store/app';
import { useAppState } from './useStore';
import { formatCount } from '../base/format';

export function Counters({ store }: { store: AppStore }) {
  const frame = useAppState(store, (s) => s.frame);
  const loaded = useAppState(store, (s) => s.loaded);
  if (!frame || !loaded) return null;
  const counters = frame.counters;
  const busy = frame.busyNs.reduce((sum, ns) => sum + ns, 0);
  const capacity = frame.nowNs * frame.busyNs.length;
  const utilization = capacity > 0 ? (100 * busy) / capacity : 0;
  const seconds = frame.nowNs / 1e9;
  const throughput = seconds > 0 ? (counters[6] ?? 0) / seconds : 0;
  const unit = loaded.workloads[0]?.unit ?? 'ops/s';
  return (
    <section className="panel" aria-labelledby="counters-title">
      <h2 id="counters-title">Run so far</h2>
      <dl className="counters">
        <dt>utilisation</dt>
        <dd>{utilization.toFixed(1)} %</dd>
        <dt>throughput</dt>
        <dd>
          {throughput.toFixed(1)} {unit}
        </dd>
        <dt>context switches</dt>
        <dd>{formatCount(counters[0] ?? 0)}</dd>
        <dt>wakeups</dt>
        <dd>{formatCount(counters[1] ?? 0)}</dd>
        <dt>migrations</dt>
        <dd>
          SMT {formatCount(counters[2] ?? 0)} · LLC {formatCount(counters[3] ?? 0)} · cross-LLC {formatCount(counters[4] ?? 0)} ·
          cross-NUMA {formatCount(counters[5] ?? 0)}
        </dd>
      </dl>
    </section>
  );
}
