import type { KeyboardEvent } from 'react';
import type { AppStore } from '../store/app';
import type { Controller } from '../store/controller';
import { mayExplain } from '../store/inspector';
import { useAppState } from './useStore';
import { formatTraceTime } from '../base/format';

const SHOWN = 60;

/** Up and down arrows move between the rows' buttons. */
function moveFocus(event: KeyboardEvent<HTMLOListElement>) {
  if (event.key !== 'ArrowDown' && event.key !== 'ArrowUp') return;
  const rows = [...event.currentTarget.querySelectorAll<HTMLButtonElement>('button.ev-row')];
  const at = rows.indexOf(document.activeElement as HTMLButtonElement);
  if (at < 0) return;
  const next = rows[event.key === 'ArrowDown' ? at + 1 : at - 1];
  if (next) {
    event.preventDefault();
    next.focus();
  }
}

/**
 * The newest trace records, newest first, each with the model's reason. Each row
 * is a button: clicking it (or Enter) selects the record and its task, and the
 * inspector explains a wakeup or fork.
 */
export function EventLog({ store, controller }: { store: AppStore; controller: Controller }) {
  const trace = useAppState(store, (s) => s.trace);
  const selected = useAppState(store, (s) => s.selection?.index);
  const shown = trace.slice(-SHOWN).reverse();
  return (
    <section className="panel log" aria-labelledby="log-title">
      <h2 id="log-title">Scheduler events</h2>
      {shown.length === 0 ? (
        <p className="muted">Press Play or Step to see events.</p>
      ) : (
        <>
          <p className="muted log-hint">Click a sched_wakeup or sched_wakeup_new line (or focus it and press Enter) to see how its CPU was chosen.</p>
          <ol className="events" aria-label="Recent scheduler events" onKeyDown={moveFocus}>
            {shown.map((line) => (
              <li key={line.index} className={`ev ev-${line.event}${line.index === selected ? ' selected' : ''}`}>
                <button
                  type="button"
                  className={`ev-row${mayExplain(line.event) ? ' explainable' : ''}`}
                  aria-pressed={line.index === selected}
                  data-index={line.index}
                  onClick={() => void controller.inspect(line)}
                >
                  <span className="ev-time">{formatTraceTime(line.timeNs)}</span>{' '}
                  <span className="ev-cpu">[{String(line.cpu).padStart(3, '0')}]</span>{' '}
                  <span className="ev-name">{line.event}</span>{' '}
                  <span className="ev-payload">{line.payload}</span>
                  {line.reason !== '' && (
                    <>
                      {' '}
                      <span className="ev-reason">{line.reason}</span>
                    </>
                  )}
                </button>
              </li>
            ))}
          </ol>
        </>
      )}
    </section>
  );
}
