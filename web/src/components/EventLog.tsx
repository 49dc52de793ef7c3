import { useEffect, useRef, useState, type KeyboardEvent } from 'react';
import type { AppStore } from '../store/app';
import type { Controller } from '../store/controller';
import type { LogFilter, TraceLine } from '../engine/protocol';
import { mayExplain } from '../store/inspector';
import { isFiltered, LOG_EVENTS, readLogFilter } from '../store/logFilter';
import { useAppState, useAppStateEvery } from './useStore';
import { formatCount, formatTraceTime } from '../base/format';
import { ProblemList } from './ProblemList';

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

/** What the log shows: the newest records as they come, or a page of a search back through the whole run. */
/** The records shown: the newest, or a page a search found (for the filter `key` names). */
type Page = { readonly kind: 'live' } | { readonly kind: 'search'; readonly key: string; readonly before: number; readonly lines: readonly TraceLine[]; readonly older: boolean };

function filterKey(filter: LogFilter): string {
  return `${filter.event}|${filter.cpu ?? ''}|${filter.pid ?? ''}`;
}

/**
 * The trace records, newest first, each with the model's reason: the newest as
 * the run plays, or, filtered by event, CPU and pid, any page back through the
 * whole kept trace. Each row is a button: clicking it (or Enter) selects the
 * record and its task, and the inspector explains a wakeup or fork. When the
 * trace store is full, the log says up to when it holds records.
 */
export function EventLog({ store, controller }: { store: AppStore; controller: Controller }) {
  const trace = useAppStateEvery(store, (s) => s.trace, 'log');
  const selected = useAppState(store, (s) => s.selection?.index);
  // Both change every frame; the log reads them with its rows (in the log's slot
  // while playing), so a frame does not re-render the whole list.
  const traceTotal = useAppStateEvery(store, (s) => s.frame?.traceTotal ?? 0, 'log');
  const keptUntil = useAppStateEvery(store, (s) => s.frame?.traceKeptUntilNs, 'log');
  const nCpus = useAppState(store, (s) => s.loaded?.machine.cpus.length ?? 0);
  const playing = useAppState(store, (s) => s.playing);
  const [event, setEvent] = useState('');
  const [cpuText, setCpuText] = useState('');
  const [pidText, setPidText] = useState('');
  const [page, setPage] = useState<Page>({ kind: 'live' });
  const { filter, problems } = readLogFilter(event, cpuText, pidText, Math.max(1, nCpus));
  const filtered = isFiltered(filter);
  const request = useRef(0);

  const search = async (wanted: LogFilter, before: number) => {
    const id = ++request.current;
    const lines = await controller.searchTrace(wanted, before, SHOWN + 1);
    if (id !== request.current) return;
    setPage({ kind: 'search', key: filterKey(wanted), before, lines: lines.slice(0, SHOWN), older: lines.length > SHOWN });
  };

  // A filter searches from the newest record, again as the run goes on (not while it plays: once it stops).
  const key = filterKey(filter);
  // A page found for another filter is not followed: a changed filter searches from the newest again.
  const following = page.kind === 'live' || page.key !== key || page.before >= traceTotal || page.before === Number.MAX_SAFE_INTEGER;
  useEffect(() => {
    if (!filtered || !following || playing) return;
    void search(filter, traceTotal);
    // `filter` is read through `key`; `search` is stable in what it does.
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [key, filtered, traceTotal, playing]);

  // A filter emptied (or left with only a field that cannot be read) shows the newest
  // records again, not the last page found for the filter it was.
  const live = !filtered && (page.kind === 'live' || page.key !== key);
  const shown = live ? trace.slice(-SHOWN).reverse() : page.kind === 'search' ? page.lines : [];

  return (
    <section className="panel log" aria-label="Event log" aria-describedby="log-title">
      <h2 id="log-title">Scheduler events</h2>
      <div className="log-filter" role="group" aria-label="Filter events">
        <label>
          <span>Event</span>
          <select aria-label="Event" value={event} onChange={(change) => setEvent(change.target.value)}>
            <option value="">any</option>
            {LOG_EVENTS.map((name) => (
              <option key={name} value={name}>
                {name}
              </option>
            ))}
          </select>
        </label>
        <label>
          <span>CPU</span>
          <input aria-label="CPU" inputMode="numeric" size={4} value={cpuText} onChange={(change) => setCpuText(change.target.value)} />
        </label>
        <label>
          <span>pid</span>
          <input aria-label="pid" inputMode="numeric" size={6} value={pidText} onChange={(change) => setPidText(change.target.value)} />
        </label>
        <button
          type="button"
          disabled={shown.length === 0 || (!live && page.kind === 'search' && !page.older)}
          onClick={() => {
            const oldest = shown[shown.length - 1];
            if (oldest) void search(filter, oldest.index);
          }}
          title="The records before these"
        >
          Older
        </button>
        <button
          type="button"
          disabled={live}
          onClick={() => {
            request.current += 1;
            setPage({ kind: 'live' });
            if (filtered) void search(filter, traceTotal);
          }}
          title="Back to the newest records"
        >
          Newest
        </button>
      </div>
      {problems.length > 0 && (
        <div role="alert" className="problems">
          <ProblemList problems={problems} />
        </div>
      )}
      {keptUntil !== undefined && (
        <p className="log-truncated" role="status">
          The trace store is full: its memory holds the first {formatCount(traceTotal)} records, up to {formatTraceTime(keptUntil)} s. The run goes on;
          later events are counted in the metrics but not listed.
        </p>
      )}
      {shown.length === 0 ? (
        <p className="muted">{live ? 'Press Play or Step to see events.' : 'No event matches the filter (searched back through the kept trace).'}</p>
      ) : (
        <>
          <p className="muted log-hint">
            {live ? 'The newest events. ' : `Events ${formatCount(shown[shown.length - 1]?.index ?? 0)} to ${formatCount(shown[0]?.index ?? 0)}${filtered ? ' matching the filter' : ''}. `}
            Click a sched_wakeup or sched_wakeup_new line (or focus it and press Enter) to see how its CPU was chosen.
          </p>
          <ol className="events" aria-label="Recent scheduler events" onKeyDown={moveFocus}>
            {/* Live, a row is keyed by its place: each frame rewrites the rows' text
                rather than making and dropping their elements, which cost the frame
                a style and layout pass over the whole list. */}
            {shown.map((line, place) => (
              <li key={live ? place : line.index} className={`ev ev-${line.event}${line.index === selected ? ' selected' : ''}`}>
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
