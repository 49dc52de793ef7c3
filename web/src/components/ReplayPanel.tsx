import { useMemo, useState, type DragEvent } from 'react';
import type { AppStore } from '../store/app';
import type { Controller } from '../store/controller';
import type { ReplayClient } from '../engine/replayClient';
import { bundledScenarios } from '../engine/scenarios';
import { isGzip, logVersusSimulation, presetsOf, type ReplayResult } from '../store/replay';
import { parseScenarioValue, type JsonValue } from '../store/policy';
import { formatCount } from '../base/format';
import { simTimeNs } from '../base/types';
import { useAppState } from './useStore';

type Status =
  | { readonly kind: 'idle' }
  | { readonly kind: 'reading'; readonly what: string }
  | { readonly kind: 'failed'; readonly message: string }
  | { readonly kind: 'done'; readonly result: ReplayResult; readonly source: string };

/** A log file's text: gzip-compressed ones (`.gz`) through the browser's own DecompressionStream. */
async function readLogFile(file: File): Promise<string> {
  const head = new Uint8Array(await file.slice(0, 2).arrayBuffer());
  if (!isGzip(head)) return file.text();
  const stream = file.stream().pipeThrough(new DecompressionStream('gzip'));
  return new Response(stream).text();
}

function fixed(value: number | undefined, digits: number): string {
  return value === undefined ? '—' : value.toLocaleString('en-US', { minimumFractionDigits: digits, maximumFractionDigits: digits });
}

/**
 * The Replay region: paste or drop an ftrace log (any layout `schedlab replay`
 * reads, `.gz` too), replay it in a worker for its parse report and what the log
 * says (wakeup latency, migrations, utilisation), then re-simulate its workload:
 * it becomes the running scenario, so every view, the Policy panel, Compare and
 * Sweep work on it, and the log is set against the simulation.
 */
export function ReplayPanel({ store, controller, replayer }: { store: AppStore; controller: Controller; replayer: () => ReplayClient }) {
  const [text, setText] = useState('');
  const [preset, setPreset] = useState('');
  const [status, setStatus] = useState<Status>({ kind: 'idle' });
  const [source, setSource] = useState('pasted log');
  const [against, setAgainst] = useState<JsonValue | undefined>();
  /** The scenario text Re-simulate loaded: the log is set against the run only while it is that one. */
  const [loadedText, setLoadedText] = useState<string | undefined>();
  const appStatus = useAppState(store, (s) => s.status);
  const fileText = useAppState(store, (s) => s.fileText);
  const running = loadedText !== undefined && fileText === loadedText;
  const presets = useMemo(() => presetsOf(bundledScenarios.map((scenario) => scenario.text)), []);

  const replay = async () => {
    if (text.trim() === '') {
      setStatus({ kind: 'failed', message: 'Paste an ftrace log (or drop a file here) first: the box is empty.' });
      return;
    }
    setStatus({ kind: 'reading', what: 'Reading the log…' });
    setAgainst(undefined);
    const outcome = await replayer().replay(text, preset, source);
    setStatus(outcome.ok ? { kind: 'done', result: outcome.result, source } : { kind: 'failed', message: outcome.message });
  };

  const open = async (file: File) => {
    setStatus({ kind: 'reading', what: `Opening ${file.name}…` });
    try {
      setText(await readLogFile(file));
      setSource(file.name);
      setStatus({ kind: 'idle' });
    } catch (error) {
      setStatus({ kind: 'failed', message: `${file.name} could not be read: ${error instanceof Error ? error.message : String(error)}` });
    }
  };

  const onDrop = (event: DragEvent<HTMLTextAreaElement>) => {
    const file = event.dataTransfer.files[0];
    if (!file) return;
    event.preventDefault();
    void open(file);
  };

  const resimulate = async (result: ReplayResult) => {
    const scenario = JSON.stringify(result.scenario, null, 2);
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
        <code>perf script</code>, systrace; or drop a file, <code>.gz</code> too). Replay reads it as <code>schedlab replay</code> does; Re-simulate runs
        its workload here, under any policy.
      </p>
      <textarea
        aria-label="Paste ftrace log"
        rows={8}
        spellCheck={false}
        value={text}
        placeholder="          <idle>-0     [003] d..2.  1234.567890: sched_switch: prev_comm=swapper/3 ..."
        onChange={(event) => {
          setText(event.target.value);
          setSource('pasted log');
        }}
        onDragOver={(event) => event.preventDefault()}
        onDrop={onDrop}
      />
      <div className="replay-actions">
        <label className="field">
          <span>Open a log file</span>
          <input
            type="file"
            aria-label="Open a log file"
            onChange={(event) => {
              const file = event.target.files?.[0];
              if (file) void open(file);
            }}
          />
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
      {status.kind === 'reading' && <p role="status">{status.what}</p>}
      {status.kind === 'failed' && (
        <p role="alert" className="problems">
          {status.message}
        </p>
      )}
      {status.kind === 'done' && (
        <ReplayReportView
          result={status.result}
          canResimulate={appStatus !== 'loading'}
          running={running}
          onResimulate={() => void resimulate(status.result)}
          onCompare={() => void compareWithRun()}
          against={against}
        />
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
  const span = report.first_ts !== null && report.last_ts !== null ? report.last_ts - report.first_ts : 0;
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
            : skipped.map(([reason, entry]) => `${reason} ${formatCount(entry.count)} (first at line ${entry.first_lines.join(', ')})`).join('; ')}
        </dd>
        <dt>CPUs, tasks</dt>
        <dd>
          {report.cpus.length} CPUs, {Object.keys(report.tasks).length} tasks, {span.toFixed(6)} s
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
          p50 {fixed(report.wakeup_latency_us.p50, 1)} us, p99 {fixed(report.wakeup_latency_us.p99, 1)} us, max {fixed(report.wakeup_latency_us.max, 1)} us
          ({formatCount(report.wakeups)} wakeups)
        </dd>
        <dt>migrations</dt>
        <dd>
          {formatCount(report.migrations.total)} ({report.migrations.source}; on {report.migrations.topology}: SMT {report.migrations.smt}, LLC{' '}
          {report.migrations.llc}, cross-LLC {report.migrations.cross_llc}, cross-NUMA {report.migrations.cross_numa}
          {report.migrations.unclassified > 0 ? `, unclassified ${report.migrations.unclassified}` : ''})
        </dd>
        <dt>utilisation</dt>
        <dd>{(report.utilization * 100).toFixed(1)} %</dd>
      </dl>
      {result.scenario === null ? (
        <p className="muted">The log shows no task running: there is no workload to re-simulate.</p>
      ) : (
        <div className="replay-whatif">
          <p>
            Its workload: {result.derived.tasks} tasks, {formatCount(result.derived.task_wakeups)} wakeups between tasks and{' '}
            {formatCount(result.derived.timer_wakeups)} from idle.
          </p>
          <button type="button" onClick={onResimulate} disabled={!canResimulate}>
            Re-simulate
          </button>{' '}
          <button type="button" onClick={onCompare} disabled={!running}>
            Log against the simulation
          </button>
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
                    <td>{fixed(row.log, row.unit === '' ? 0 : 1)}</td>
                    <td>{fixed(row.simulation, row.unit === '' ? 0 : 1)}</td>
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
