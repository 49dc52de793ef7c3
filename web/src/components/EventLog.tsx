import type { AppStore } from '../store/app';
import { useAppState } from './useStore';
import { formatTraceTime } from '../base/format';

const SHOWN = 60;

/** The newest trace records, newest first, each with the model's reason. */
export function EventLog({ store }: { store: AppStore }) {
  const trace = useAppState(store, (s) => s.trace);
  const shown = trace.slice(-SHOWN).reverse();
  return (
    <section className="panel log" aria-labelledby="log-title">
      <h2 id="log-title">Scheduler events</h2>
      {shown.length === 0 ? (
        <p className="muted">Press Play or Step to see events.</p>
      ) : (
        <ol className="events" aria-label="Recent scheduler events">
          {shown.map((line) => (
            <li key={line.index} className={`ev ev-${line.event}`}>
              <span className="ev-time">{formatTraceTime(line.timeNs)}</span>
              <span className="ev-cpu">[{String(line.cpu).padStart(3, '0')}]</span>
              <span className="ev-name">{line.event}</span>
              <span className="ev-payload">{line.payload}</span>
              {line.reason !== '' && <span className="ev-reason">{line.reason}</span>}
            </li>
          ))}
        </ol>
      )}
    </section>
  );
}
