import { Fragment, useEffect, useState } from 'react';
import type { TraceLine } from '../engine/protocol';
import { formatCount } from '../base/format';
import type { AppStore } from '../store/app';
import type { Controller } from '../store/controller';
import type { CpuState, CpuVisit, Decision, DecisionStep, GroupRow } from '../engine/protocol';
import { CPU_STATE_LABEL, cpuList, type Selection } from '../store/inspector';
import { useAppState, useAppStateEvery } from './useStore';
import { formatTraceTime } from '../base/format';
import type { SimTimeNs } from '../base/types';
import { JitterTag } from './JitterTag';

const LEGEND: readonly CpuState[] = ['busy', 'idle', 'idle_core', 'not_allowed'];
/** States the legend lists only when a scan shows them. */
const RARE_STATES: readonly CpuState[] = ['offline', 'wake_pending'];

/**
 * The decision inspector: for the wakeup or fork selected in the event log, the
 * path `select_task_rq_fair` took, step by step with its numbers, the CPUs each
 * scan inspected as chips, and the CPU chosen. Task names are rendered as text.
 */
export function Inspector({ store, controller }: { store: AppStore; controller: Controller }) {
  const selection = useAppState(store, (s) => s.selection);
  const cpuSelection = useAppState(store, (s) => s.cpuSelection);
  const inspection = useAppState(store, (s) => s.inspection);
  const log = useAppState(store, (s) => s.loaded?.log?.name);
  const tasks = useAppState(store, (s) => s.loaded?.tasks);
  const presenter = useAppState(store, (s) => s.presenter);
  const nowNs = useAppState(store, (s) => s.frame?.nowNs);
  const loading = inspection.status === 'loading';
  const isJitter = (pid: number | undefined) => pid !== undefined && (tasks ?? []).some((task) => task.pid === pid && task.jitter);
  return (
    <section className="panel inspector" aria-label="Inspector" aria-busy={loading} data-open={selection !== undefined}>
      <div className="inspector-head">
        <h2>Inspector</h2>
        {(selection || cpuSelection !== undefined) && (
          <button type="button" className="inspector-close" onClick={() => controller.clearSelection()}>
            Close
          </button>
        )}
      </div>
      {!selection && cpuSelection !== undefined && <CpuInspection store={store} controller={controller} cpu={cpuSelection} />}
      {!selection && cpuSelection === undefined && log !== undefined && (
        <p className="inspector-hint">
          {log} is a real machine&apos;s log: it says where each task ran and waited, not which path chose the CPU. Click a CPU on the machine for its
          runqueue and its recent switches; Re-simulate the log (Replay panel) to see the decisions.
        </p>
      )}
      {!selection && cpuSelection === undefined && log === undefined && (
        <p className="inspector-hint">
          {presenter ? (
            // Presenter mode shows no event log: the hint names what is on the screen.
            <>
              Press <kbd>n</kbd> (Next decision) to stop at the next placement and see which CPUs the scheduler looked at, with the numbers it compared,
              and why the chosen CPU won. Click a CPU on the machine, or a run on the timeline, for more.
            </>
          ) : (
            <>
              Select a <code>sched_wakeup</code> or <code>sched_wakeup_new</code> line in the event log to see which CPUs the scheduler looked at, with the
              numbers it compared, and why the chosen CPU won. Click a CPU on the machine for its runqueue, its recent switches and its load.
            </>
          )}
        </p>
      )}
      {selection && inspection.status === 'loading' && (
        <p className="inspector-busy" role="status">
          <span className="spinner" aria-hidden="true" />
          Re-running the scenario to trace record {selection.index}…
        </p>
      )}
      {selection && inspection.status === 'message' && <SelectionMessage selection={selection} message={inspection.message} jitter={isJitter(selection.pid)} />}
      {selection && inspection.status === 'ready' && (
        <DecisionView decision={inspection.decision} jitter={isJitter(inspection.decision.pid)} nowNs={nowNs} onShowThen={(timeNs) => void controller.scrubTo(timeNs)} />
      )}
      {selection?.pid !== undefined && selection.pid !== 0 && <TaskHistory controller={controller} store={store} pid={selection.pid} />}
    </section>
  );
}

function SelectionMessage({ selection, message, jitter }: { selection: Selection; message: string; jitter: boolean }) {
  return (
    <div className="inspector-message" role="note">
      <p className="inspector-record">
        Event {selection.index}: <code>{selection.event}</code> at {formatTraceTime(selection.timeNs as SimTimeNs)} s
        {selection.pid !== undefined && (
          <>
            {' '}
            (pid {selection.pid}
            {jitter && <JitterTag />}; its allowed CPUs are outlined on the machine)
          </>
        )}
      </p>
      <p>{message.charAt(0).toUpperCase() + message.slice(1)}</p>
    </div>
  );
}

/** Which chip is the chosen CPU: where the step that found it saw it, else its first sighting. */
function chosenChip(decision: Decision): { step: number; visit: number } | undefined {
  const steps = decision.steps;
  for (let step = steps.length - 1; step >= 0; step--) {
    if (steps[step]?.found !== decision.chosen_cpu) continue;
    const visit = steps[step]?.cpus?.findIndex((cpu) => cpu.cpu === decision.chosen_cpu) ?? -1;
    if (visit >= 0) return { step, visit };
  }
  for (let step = 0; step < steps.length; step++) {
    const visit = steps[step]?.cpus?.findIndex((cpu) => cpu.cpu === decision.chosen_cpu) ?? -1;
    if (visit >= 0) return { step, visit };
  }
  return undefined;
}

function DecisionView({
  decision,
  jitter,
  nowNs,
  onShowThen,
}: {
  decision: Decision;
  jitter: boolean;
  /** Where the playhead (and so the machine drawing) stands. */
  nowNs: number | undefined;
  onShowThen: (timeNs: number) => void;
}) {
  const records = decision.records.map((record) => `${record.index} ${record.event}`).join(', ');
  const scans = decision.steps.map((step, index) => ({ step, index })).filter(({ step }) => (step.cpus?.length ?? 0) > 0);
  const chosen = chosenChip(decision);
  return (
    <div className="decision">
      <p className="inspector-summary">{decision.summary}</p>
      <div className="inspector-chosen" data-testid="chosen-cpu">
        <span className="chosen-cpu">CPU {decision.chosen_cpu}</span>{' '}
        <span>
          chosen for pid {decision.pid} <strong className="comm">{decision.comm}</strong>
          {jitter && <JitterTag />}: a {decision.kind} at {formatTraceTime(decision.time_ns as SimTimeNs)} s,
          kernel {decision.kernel}
        </span>
      </div>
      {nowNs !== undefined && nowNs !== decision.time_ns && (
        <p className="inspector-when" data-testid="inspector-when">
          The machine shows {formatTraceTime(nowNs as SimTimeNs)} s, not this decision&apos;s time.{' '}
          <button type="button" onClick={() => onShowThen(decision.time_ns)}>
            Show the machine at {formatTraceTime(decision.time_ns as SimTimeNs)} s
          </button>
        </p>
      )}
      <p className="inspector-facts">
        <span>
          <span title="The 0-based number of this line among the trace's event lines: what `schedlab explain N` takes">trace record {decision.record_index}</span>{' '}
          <code>{decision.event}</code>
        </span>
        <span>{decision.kind === 'wakeup' ? `waker’s CPU ${decision.from_cpu}` : `forked on CPU ${decision.from_cpu}`}</span>
        {decision.prev_cpu !== null && <span>previous CPU {decision.prev_cpu}</span>}
        <span>allowed CPUs {cpuList(decision.allowed_cpus)}</span>
        <span className="muted">records: {records}</span>
      </p>
      {scans.length > 0 && (
        <div className="inspected">
          <h3>CPUs inspected, in order</h3>
          <ol className="chip-groups">
            {scans.map(({ step, index }) => (
              <li key={index} className="chip-group">
                <span className="chip-step" title={`What step ${index + 1} under Steps below looked at`}>
                  step {index + 1}
                </span>
                <ul className="chips" aria-label={`CPUs step ${index + 1} inspected, in order`}>
                  {(step.cpus ?? []).map((visit, at) => (
                    <Chip key={at} visit={visit} chosen={chosen?.step === index && chosen.visit === at} />
                  ))}
                </ul>
              </li>
            ))}
          </ol>
          <ChipLegend shown={RARE_STATES.filter((state) => scans.some(({ step }) => step.cpus?.some((visit) => visit.state === state)))} />
        </div>
      )}
      <h3>Steps</h3>
      <ol className="inspector-steps" aria-label="Steps">
        {decision.steps.map((step, index) => (
          <Step key={index} step={step} />
        ))}
      </ol>
    </div>
  );
}

function Step({ step }: { step: DecisionStep }) {
  return (
    <li className={`step step-${step.step}${(step.cpus?.length ?? 0) > 0 ? ' step-with-cpus' : ''}`}>
      <p>{step.text}</p>
      {step.groups && step.groups.length > 0 && <GroupTable groups={step.groups} />}
    </li>
  );
}

function Chip({ visit, chosen }: { visit: CpuVisit; chosen: boolean }) {
  const label = CPU_STATE_LABEL[visit.state];
  return (
    <li
      className={`chip chip-${visit.state}${chosen ? ' chip-chosen' : ''}`}
      title={`CPU ${visit.cpu}: ${label}, ${visit.nr_running} on its runqueue${chosen ? ' (chosen)' : ''}`}
      data-cpu={visit.cpu}
      data-state={visit.state}
    >
      <span className="chip-cpu">
        <span className="sr-only">CPU </span>
        {visit.cpu}
      </span>{' '}
      <span className="chip-state">
        {label}
        {chosen ? ', chosen' : ''}
      </span>
    </li>
  );
}

function ChipLegend({ shown }: { shown: readonly CpuState[] }) {
  return (
    <ul className="chip-legend" aria-label="What the CPU chips mean">
      {[...LEGEND, ...shown].map((state) => (
        <li key={state} className={`chip chip-${state}`}>
          <span className="chip-state">{CPU_STATE_LABEL[state]}</span>
        </li>
      ))}
      <li className="chip chip-idle chip-chosen">
        <span className="chip-state">chosen</span>
      </li>
    </ul>
  );
}

function GroupTable({ groups }: { groups: readonly GroupRow[] }) {
  return (
    <div className="groups-host">
      <table className="groups">
        <thead>
          <tr>
            <th scope="col">group</th>
            <th scope="col" title="tasks on the group's runqueues">
              sum_nr_
              <wbr />
              running
            </th>
            <th scope="col" title="idle CPUs, of the group's CPUs">
              idle_
              <wbr />
              cpus
            </th>
            <th scope="col" title="CPUs of the group the task may use">
              allowed
            </th>
            <th scope="col" title="group_classify()">
              group_
              <wbr />
              type
            </th>
            <th scope="col" title="runqueue weight per CPU, scaled by 1024">
              avg_
              <wbr />
              load
            </th>
          </tr>
        </thead>
        <tbody>
          {groups.map((group, index) => (
            <tr key={index} className={[group.local ? 'local' : '', group.idlest ? 'idlest' : '', group.allowed_cpus === 0 ? 'skipped' : ''].join(' ').trim()}>
              <th scope="row">
                <BreakableList list={group.cpus} />
                {group.local && <span className="tag">local</span>}
                {group.idlest && <span className="tag">idlest</span>}
              </th>
              <td>{group.sum_nr_running}</td>
              <td>
                {group.idle_cpus}/{group.weight}
              </td>
              <td>{group.allowed_cpus === 0 ? 'none' : group.allowed_cpus}</td>
              <td>{group.group_type ?? '–'}</td>
              <td>{group.avg_load}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}

/** A CPU list that may wrap after its commas in a narrow column. */
function BreakableList({ list }: { list: string }) {
  const parts = list.split(',');
  return (
    <>
      {parts.map((part, index) => (
        <Fragment key={index}>
          <span className="nowrap">
            {part}
            {index < parts.length - 1 && ','}
          </span>
          {index < parts.length - 1 && <wbr />}
        </Fragment>
      ))}
    </>
  );
}

/** Newest records of a search, re-read when the run moves on (not while it plays). */
function useSearch(store: AppStore, controller: Controller, filter: { event: string; cpu: number | undefined; pid: number | undefined }, count: number): readonly TraceLine[] {
  // Read only when not playing: in the tables' slot while playing, so a frame
  // does not re-render the inspection.
  const traceTotal = useAppStateEvery(store, (s) => s.frame?.traceTotal ?? 0);
  const playing = useAppState(store, (s) => s.playing);
  const [lines, setLines] = useState<readonly TraceLine[]>([]);
  const key = `${filter.event}|${filter.cpu ?? ''}|${filter.pid ?? ''}`;
  useEffect(() => {
    if (playing) return;
    let current = true;
    void controller.searchTrace(filter, traceTotal, count).then((found) => {
      if (current) setLines(found);
    });
    return () => {
      current = false;
    };
    // `filter` is read through `key`.
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [key, traceTotal, playing, controller, count]);
  return lines;
}

/** A CPU clicked on the machine: where it sits, what it runs and queues, its load, its recent switches. */
function CpuInspection({ store, controller, cpu }: { store: AppStore; controller: Controller; cpu: number }) {
  const loaded = useAppState(store, (s) => s.loaded);
  const frame = useAppStateEvery(store, (s) => s.frame);
  const switches = useSearch(store, controller, { event: 'sched_switch', cpu, pid: undefined }, 8);
  const info = loaded?.machine.cpus[cpu];
  if (!loaded || !frame || !info) return null;
  const pid = frame.running[cpu] ?? 0;
  const comm = loaded.tasks.find((task) => task.pid === pid)?.comm;
  const queued = Math.max(0, (frame.nrRunning[cpu] ?? 0) - (pid !== 0 ? 1 : 0));
  const busy = frame.nowNs > 0 ? (100 * (frame.busyNs[cpu] ?? 0)) / frame.nowNs : 0;
  return (
    <div className="cpu-inspection" data-testid="cpu-inspection">
      <h3>
        CPU {cpu} <span className="muted">(core {info.core}, LLC {info.llc}, node {info.node}, socket {info.socket})</span>
      </h3>
      <dl className="counters">
        <dt>running</dt>
        <dd data-testid="cpu-running">{pid === 0 ? 'idle' : `pid ${pid}${comm ? ` ${comm}` : ''}`}</dd>
        <dt>queued behind it</dt>
        <dd data-testid="cpu-queued">{formatCount(queued)}</dd>
        <dt>busy so far</dt>
        <dd>{busy.toFixed(1)} %</dd>
      </dl>
      <h3>Recent switches</h3>
      <ol className="history" aria-label={`Recent switches on CPU ${cpu}`}>
        {switches.map((line) => (
          <li key={line.index}>
            <button type="button" onClick={() => void controller.inspect(line)}>
              {formatTraceTime(line.timeNs)} {line.payload.replace(/^prev_comm=/, '')}
            </button>
          </li>
        ))}
      </ol>
    </div>
  );
}

/** The selected task's recent life: where it ran, when it woke, waited and moved. */
function TaskHistory({ store, controller, pid }: { store: AppStore; controller: Controller; pid: number }) {
  const lines = useSearch(store, controller, { event: '', cpu: undefined, pid }, 12);
  if (lines.length === 0) return null;
  return (
    <div className="task-history">
      <h3>Task {pid}: its recent events</h3>
      <ol className="history" aria-label={`Recent events of pid ${pid}`}>
        {lines.map((line) => (
          <li key={line.index}>
            <button type="button" onClick={() => void controller.inspect(line)}>
              {formatTraceTime(line.timeNs)} [{String(line.cpu).padStart(3, '0')}] {line.event}
              {line.reason !== '' ? `: ${line.reason}` : ''}
            </button>
          </li>
        ))}
      </ol>
    </div>
  );
}
