import { useMemo, useState, type DragEvent } from 'react';
import type { AppStore } from '../store/app';
import type { Controller } from '../store/controller';
import type { LogProgress, LogReading } from '../engine/protocol';
import { bundledScenarios } from '../engine/scenarios';
import { latencyText, logVersusSimulation, noWorkloadText, powerSummary, presetsOf, skippedText, type ReplayResult } from '../store/replay';
import { cpuList } from '../store/inspector';
import { parseScenarioValue, type JsonValue } from '../store/policy';
import { formatBytes, formatCount, formatFixed } from '../base/format';
import { simTimeNs } from '../base/types';
import { useAppState } from './useStore';
import { KEEP_TEXT_MAX, tooLongToKeep } from '../store/keep';

type Status =
  | { readonly kind: 'idle' }
  | { readonly kind: 'reading'; readonly name: string; readonly progress: LogProgress }
  | { readonly kind: 'failed'; readonly message: string }
  | { readonly kind: 'cancelled'; readonly name: string }
  | { readonly kind: 'done'; readonly result: ReplayResult; readonly source: string; readonly reading: LogReading };

function megabytesPerSecond(bytes: number, ms: number): string {
  return (bytes / 1e6 / Math.max(ms / 1000, 1e-6)).toFixed(0);
}

function percent(progress: LogProgress): number {
  return progress.total === 0 ? 100 : Math.min(100, Math.floor((100 * progress.read) / progress.total));
}

/**
 * The Replay region: paste or drop an ftrace log (any layout `schedlab replay`
 * reads, `.gz` too). Replay reads it in the engine worker in chunks, with its
 * progress and a Cancel, then plays it in the machine, timeline and event log as
 * a simulation plays, with its parse report and what the log says (wakeup
 * latency, migrations, utilisation). Re-simulate runs its workload here, under
 * any policy, and sets the log against the simulation.
 */
export function ReplayPanel({ store, controller }: { store: AppStore; controller: Controller }) {
  // The pasted log lives in the store's drafts, so a reload keeps it (up to KEEP_TEXT_MAX).
  const text = useAppState(store, (s) => s.drafts.replayText);
  const setText = (replayText: string) => store.set({ drafts: { ...store.get().drafts, replayText } });
  /** A chosen or dropped file: Replay reads it (not the box) until the box is typed in or the file is cleared. */
  const [file, setFile] = useState<File | undefined>();
  const [preset, setPreset] = useState('');
  const [status, setStatus] = useState<Status>({ kind: 'idle' });
  const [against, setAgainst] = useState<JsonValue | undefined>();
  /** The replayed log's what-if scenario text, once Re-simulate has asked for it. */
  const [whatIf, setWhatIf] = useState<string | undefined>();
  /** The scenario text Re-simulate loaded: the log is set against the run only while it is that one. */
  const [loadedText, setLoadedText] = useState<string | undefined>();
  const appStatus = useAppState(store, (s) => s.status);
  const fileText = useAppState(store, (s) => s.fileText);
  const playingLog = useAppState(store, (s) => s.loaded?.log?.name);
  const running = loadedText !== undefined && fileText === loadedText;
  const presets = useMemo(() => presetsOf(bundledScenarios.map((scenario) => scenario.text)), []);

  const replay = async () => {
    if (!file && text.trim() === '') {
      setStatus({ kind: 'failed', message: 'Paste an ftrace log (or drop a file here) first: the box is empty.' });
      return;
    }
    const name = file ? file.name : 'pasted log';
    const blob = file ?? new Blob([text], { type: 'text/plain' });
    setStatus({ kind: 'reading', name, progress: { read: 0, total: blob.size } });
    setAgainst(undefined);
    setWhatIf(undefined);
    const outcome = await controller.openLog(blob, preset, name, (progress) =>
      setStatus((now) => (now.kind === 'reading' && now.name === name ? { ...now, progress } : now)),
    );
    if (outcome.ok) setStatus({ kind: 'done', result: outcome.replay, source: name, reading: outcome.reading });
    else if ('cancelled' in outcome) setStatus({ kind: 'cancelled', name });
    else setStatus({ kind: 'failed', message: outcome.message });
  };

  const choose = (chosen: File) => {
    setFile(chosen);
    setStatus({ kind: 'idle' });
  };

  const onDrop = (event: DragEvent<HTMLTextAreaElement>) => {
    const dropped = event.dataTransfer.files[0];
    if (!dropped) return;
    event.preventDefault();
    choose(dropped);
  };

  const resimulate = async () => {
    // Made once, when first asked for (large for a large log), and kept for the next time.
    const scenario = whatIf ?? (await controller.logWhatIf());
    if (scenario === undefined) {
      setStatus({ kind: 'failed', message: 'The log is no longer loaded: press Replay again, then Re-simulate.' });
      return;
    }
    setWhatIf(scenario);
    setAgainst(undefined);
    if (await controller.load('custom', scenario)) setLoadedText(scenario);
  };

  const compareWithRun = async () => {
    await controller.seek({ timeNs: simTimeNs(store.get().loaded?.endNs ?? 0), events: undefined });
    setAgainst(parseScenarioValue(await controller.summaryJson()));
  };

  return (
    <section className="panel replay" aria-labelledby="replay-title">
      <h2 id="replay-title">Replay</h2>
      <p className="muted">
        Paste a <code>sched_switch</code> / <code>sched_wakeup</code> trace from a real machine (the <code>trace</code> file, <code>trace-cmd report</code>,{' '}
        <code>perf script</code>, systrace; or drop a file, <code>.gz</code> too). Replay reads it as <code>schedlab replay</code> does and plays it in the
        machine, the timeline and the event log; Re-simulate runs its workload here, under any policy.
      </p>
      <textarea
        aria-label="Paste ftrace log"
        rows={8}
        spellCheck={false}
        value={text}
        placeholder="          <idle>-0     [003] d..2.  1234.567890: sched_switch: prev_comm=swapper/3 ..."
        onChange={(event) => {
          setText(event.target.value);
          setFile(undefined);
        }}
        onDragOver={(event) => event.preventDefault()}
        onDrop={onDrop}
      />
      {!file && tooLongToKeep(text) && (
        <p className="muted" data-testid="replay-not-kept">
          This pasted log ({formatBytes(text.length)}) is longer than the {formatBytes(KEEP_TEXT_MAX)} a reload keeps: save it to a file and open that, or keep this
          page open.
        </p>
      )}
      {file && (
        <p className="replay-file" data-testid="replay-file">
          Replay reads <strong>{file.name}</strong> ({formatBytes(file.size)}), not the box.{' '}
          <button type="button" className="link" onClick={() => setFile(undefined)}>
            Use the box instead
          </button>
        </p>
      )}
      <div className="replay-actions">
        <label className="field">
          <span>Open a log file</span>
          {/* The browser's own input would read "No file chosen" after a drop: its button is drawn here, with the file Replay will read. */}
          <span className="file-pick">
            <input
              type="file"
              className="sr-only"
              aria-label="Open a log file"
              onChange={(event) => {
                const chosen = event.target.files?.[0];
                if (chosen) choose(chosen);
                event.target.value = '';
              }}
            />
            <span className="file-button" aria-hidden="true">
              Choose a file…
            </span>
            <span className="muted" data-testid="replay-file-name">
              {file ? file.name : 'none chosen'}
            </span>
          </span>
        </label>
        <label className="field">
          <span>Machine</span>
          <select aria-label="Machine for the log" value={preset} onChange={(event) => setPreset(event.target.value)}>
            <option value="">flat: the CPUs the log shows</option>
            {presets.map((name) => (
              <option key={name} value={name}>
                {name}
              </option>
            ))}
          </select>
        </label>
        <button type="button" onClick={() => void replay()} disabled={status.kind === 'reading'}>
          Replay
        </button>
      </div>
      {status.kind === 'reading' && (
        <div className="replay-progress" role="status">
          <progress aria-label="Reading the log" max={100} value={percent(status.progress)} />
          <span>
            Reading {status.name}: {percent(status.progress)} % ({formatBytes(status.progress.read)} of {formatBytes(status.progress.total)})
          </span>{' '}
          <button type="button" onClick={() => void controller.cancelLog()}>
            Cancel
          </button>
        </div>
      )}
      {status.kind === 'cancelled' && (
        <p role="status">
          Cancelled reading {status.name}; {playingLog === undefined ? 'the scenario that was loaded stays.' : 'the log that was playing stays.'}
        </p>
      )}
      {status.kind === 'failed' && (
        <p role="alert" className="problems">
          {status.message}
        </p>
      )}
      {status.kind === 'done' && (
        <>
          {playingLog === status.source && (
            <p className="replay-playing" data-testid="replay-playing">
              <strong>{status.source}</strong> is loaded in the machine, the timeline and the event log: press Play (time 0 is its first event).
            </p>
          )}
          {/* Rates of a read shorter than a tenth of a second say nothing: only its size then. */}
          <p className="muted" data-testid="replay-reading">
            {status.reading.readMs >= 100 ? (
              <>
                Read {formatBytes(status.reading.bytes)} in {(status.reading.readMs / 1000).toFixed(2)} s ({megabytesPerSecond(status.reading.bytes, status.reading.readMs)}{' '}
                MB/s; the parser's part {(status.reading.parseMs / 1000).toFixed(2)} s, {megabytesPerSecond(status.reading.bytes, status.reading.parseMs)} MB/s), ready to
                play in {(status.reading.totalMs / 1000).toFixed(2)} s
              </>
            ) : (
              <>Read {formatBytes(status.reading.bytes)} at once</>
            )}
            ; the engine holds {formatBytes(status.reading.wasmBytes)}.
          </p>
          <ReplayReportView
            result={status.result}
            canResimulate={appStatus !== 'loading'}
            running={running}
            onResimulate={() => void resimulate()}
            onCompare={() => void compareWithRun()}
            against={against}
          />
        </>
      )}
    </section>
  );
}

function ReplayReportView({
  result,
  canResimulate,
  running,
  onResimulate,
  onCompare,
  against,
}: {
  result: ReplayResult;
  canResimulate: boolean;
  running: boolean;
  onResimulate: () => void;
  onCompare: () => void;
  against: JsonValue | undefined;
}) {
  const report = result.report;
  const events = Object.entries(report.events).filter(([, count]) => count > 0);
  const skipped = Object.entries(report.skipped);
  // From the earliest event to the latest (a log's lines need not be in time order).
  const span = report.span_ns / 1e9;
  const power = powerSummary(report);
  return (
    <div className="replay-report" data-testid="replay-report">
      <h3>Parse report</h3>
      <dl className="counters">
        <dt>format</dt>
        <dd data-testid="replay-format">{report.format}</dd>
        <dt>lines</dt>
        <dd>{formatCount(report.lines)}</dd>
        <dt>events used</dt>
        <dd data-testid="replay-events">{events.map(([name, count]) => `${name} ${formatCount(count)}`).join(', ') || 'none'}</dd>
        <dt>skipped</dt>
        <dd>
          {skipped.length === 0
            ? 'nothing'
            : skipped.map(([reason, entry]) => skippedText(reason, entry)).join('; ')}
        </dd>
        <dt>CPUs, tasks</dt>
        <dd>
          {report.cpus.length} {report.cpus.length === 1 ? 'CPU' : 'CPUs'}
          {report.cpus.length > 0 && ` (${cpuList(report.cpus)})`}
          {typeof report.machine_cpus === 'number' && ` of the machine's ${report.machine_cpus}`}, {Object.keys(report.tasks).length} {Object.keys(report.tasks).length === 1 ? 'task' : 'tasks'},{' '}
          {formatFixed(span, 6)} s
        </dd>
        {report.lost_events > 0 && (
          <>
            <dt>lost</dt>
            <dd>{formatCount(report.lost_events)} events the kernel dropped</dd>
          </>
        )}
      </dl>
      {report.warnings.length > 0 && (
        <ul className="replay-warnings" aria-label="Warnings">
          {report.warnings.map((warning) => (
            <li key={`${warning.line}-${warning.message}`}>
              line {warning.line}: {warning.message}
            </li>
          ))}
        </ul>
      )}
      <h3>What the log says</h3>
      <dl className="counters">
        <dt>wakeup latency</dt>
        <dd data-testid="replay-latency">
          {latencyText(report)}
        </dd>
        <dt>migrations</dt>
        <dd>
          {formatCount(report.migrations.total)} ({report.migrations.source}; on {report.migrations.topology}: SMT {report.migrations.smt}, LLC{' '}
          {report.migrations.llc}, cross-LLC {report.migrations.cross_llc}, cross-NUMA {report.migrations.cross_numa}
          {report.migrations.unclassified > 0 ? `, unclassified ${report.migrations.unclassified}` : ''})
        </dd>
        <dt>utilisation</dt>
        <dd data-testid="replay-utilisation">
          {report.utilization === null ? 'unknown: the log has no sched_switch line, so what ran between its lines cannot be told' : `${(report.utilization * 100).toFixed(1)} %`}
        </dd>
        {power.frequency && (
          <>
            <dt>frequency</dt>
            <dd data-testid="replay-frequency">{power.frequency}</dd>
          </>
        )}
        {power.idle && (
          <>
            <dt>idle states</dt>
            <dd data-testid="replay-idle">{power.idle}</dd>
          </>
        )}
        {power.runtime && (
          <>
            <dt>runtime charged</dt>
            <dd data-testid="replay-runtime">{power.runtime}</dd>
          </>
        )}
      </dl>
      {result.derived.tasks === 0 ? (
        <p className="muted">{noWorkloadText(Object.keys(report.tasks).length)}</p>
      ) : (
        <div className="replay-whatif">
          <p>
            Its workload: {result.derived.tasks} {result.derived.tasks === 1 ? 'task' : 'tasks'}, {formatCount(result.derived.task_wakeups)} {result.derived.task_wakeups === 1 ? 'wakeup' : 'wakeups'} between tasks and{' '}
            {formatCount(result.derived.timer_wakeups)} from idle.
          </p>
          <button type="button" onClick={onResimulate} disabled={!canResimulate}>
            Re-simulate
          </button>{' '}
          <button
            type="button"
            onClick={onCompare}
            disabled={!running}
            title={running ? 'Run the re-simulation to its end and set the log beside it' : 'Press Re-simulate first: this sets the log beside its re-simulation'}
          >
            Log against the simulation
          </button>
          {running && (
            <p role="status" className="replay-playing" data-testid="replay-resimulated">
              Re-simulated: the log&apos;s workload is the running scenario, “Edited scenario” in the toolbar. The machine, the timeline and the
              charts show it from time 0; Play runs it.
            </p>
          )}
          <p className="muted">
            Re-simulate makes it the running scenario (its text in the Scenario JSON editor): change its policy in the Policy panel, Compare two
            policies, or Sweep. “Log against the simulation” runs it to its end and sets the two side by side.
          </p>
          {running && against !== undefined && (
            <table className="compare-table" aria-label="The log against the simulation">
              <thead>
                <tr>
                  <th scope="col">figure</th>
                  <th scope="col">log</th>
                  <th scope="col">simulation</th>
                </tr>
              </thead>
              <tbody>
                {logVersusSimulation(report, against).map((row) => (
                  <tr key={row.label}>
                    <th scope="row">
                      {row.label}
                      {row.unit !== '' && <span className="muted"> ({row.unit})</span>}
                    </th>
                    <td>{formatFixed(row.log, row.unit === '' ? 0 : 1)}</td>
                    <td>{formatFixed(row.simulation, row.unit === '' ? 0 : 1)}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          )}
        </div>
      )}
    </div>
  );
}
