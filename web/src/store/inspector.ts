/**
 * The decision inspector's state: which trace record is selected, its task, and
 * the explanation the engine re-ran the scenario for. Pure: no React, no engine.
 */
import type { CpuState, Decision, TaskInfo, TraceLine } from '../engine/protocol';

/** A trace record the user picked in the event log, and the task it is about. */
export interface Selection {
  readonly index: number;
  readonly event: string;
  readonly timeNs: number;
  /** The task the record is about; undefined for records about no task. */
  readonly pid: number | undefined;
}

export type Inspection =
  | { readonly status: 'none' }
  | { readonly status: 'loading' }
  | { readonly status: 'ready'; readonly decision: Decision }
  /** The record is not a decision that can be explained, or the engine said no. */
  | { readonly status: 'message'; readonly message: string };

export const NO_INSPECTION: Inspection = { status: 'none' };

/** The events that name a placement decision (the core's `EXPLAINABLE_EVENTS`). */
const EXPLAINABLE = new Set(['sched_wakeup', 'sched_wakeup_new', 'sched_waking', 'sched_migrate_task']);

/** Whether the engine may explain a record of this kind (a migration may still be a balance move). */
export function mayExplain(event: string): boolean {
  return EXPLAINABLE.has(event);
}

/**
 * What the inspector says about a record that is never a placement decision: the
 * record's own reason first when it has one (a switch says why it switched), then
 * where the step-by-step explanations are.
 */
export function notExplainable(event: string, reason = '', pid?: number): string {
  const where =
    pid !== undefined && pid !== 0
      ? ` To see a placement step by step, select a sched_wakeup of pid ${pid} in its recent events below, or press n for the next decision.`
      : ' To see a placement step by step, select a sched_wakeup or sched_wakeup_new line, or press n for the next decision.';
  const why = reason === '' ? '' : `why: ${reason}. `;
  return `${why}A ${event} event is not a placement decision. Only wakeups and forks can be explained: sched_wakeup, sched_wakeup_new, and the sched_waking and sched_migrate_task lines of a wakeup.${where}`;
}

/** The fields after a task's `comm=`, matched from the end so a comm cannot fake them. */
const TASK_FIELDS = / pid=(\d+) (?:prio=-?\d+(?: target_cpu=\d+| orig_cpu=\d+ dest_cpu=\d+)?|shard=\d+ llc=\d+(?: orig_cpu=\d+ dest_cpu=\d+)?)$/;
const NEXT_FIELDS = / next_pid=(\d+) next_prio=-?\d+$/;
const PREV_FIELDS = / prev_pid=(\d+) prev_prio=-?\d+ prev_state=\S+ ==> next_comm=/;

/**
 * The task a trace line is about: the woken, forked, migrated or exiting task, or
 * the one pushed into, popped from or pulled out of a SHARED_RUNQ shard (`pid=`), or for a switch the task switched to (`next_pid=`, else `prev_pid=`
 * when the CPU goes idle). Undefined when the line names no task.
 */
export function taskOfLine(line: Pick<TraceLine, 'event' | 'payload'>): number | undefined {
  const payload = ` ${line.payload}`;
  const field = (pattern: RegExp) => {
    const match = pattern.exec(payload);
    return match ? Number(match[1]) : undefined;
  };
  const pid = line.event === 'sched_switch' ? field(NEXT_FIELDS) || field(PREV_FIELDS) : field(TASK_FIELDS);
  return pid === undefined || pid === 0 ? undefined : pid;
}

export function selectionOf(line: TraceLine): Selection {
  return { index: line.index, event: line.event, timeNs: line.timeNs, pid: taskOfLine(line) };
}

/** What the machine drawing highlights for the selected task. */
export interface TaskHighlight {
  readonly pid: number;
  readonly comm: string;
  /** TurboSched's jitter class (`TaskInfo.jitter`). */
  readonly jitter: boolean;
  /** The CPUs the task may use: at the decision's time when it is explained. */
  readonly allowed: readonly number[];
  /** The CPU the explained decision chose. */
  readonly chosen: number | undefined;
}

export function highlightOf(
  selection: Selection | undefined,
  inspection: Inspection,
  tasks: readonly TaskInfo[],
): TaskHighlight | undefined {
  if (!selection?.pid) return undefined;
  const decision = inspection.status === 'ready' && inspection.decision.pid === selection.pid ? inspection.decision : undefined;
  const task = tasks.find((candidate) => candidate.pid === selection.pid);
  if (!decision && !task) return undefined;
  return {
    pid: selection.pid,
    comm: decision?.comm ?? task?.comm ?? '',
    jitter: task?.jitter ?? false,
    allowed: decision?.allowed_cpus ?? task?.cpus ?? [],
    chosen: decision?.chosen_cpu,
  };
}

/** `0-3,8,10-11`, like the kernel's CPU lists. */
export function cpuList(cpus: readonly number[]): string {
  const sorted = [...cpus].sort((a, b) => a - b);
  const parts: string[] = [];
  for (let index = 0; index < sorted.length; ) {
    const start = sorted[index] ?? 0;
    let end = start;
    while (index + 1 < sorted.length && sorted[index + 1] === end + 1) {
      index += 1;
      end = sorted[index] ?? end;
    }
    parts.push(start === end ? String(start) : `${start}-${end}`);
    index += 1;
  }
  return parts.join(',');
}

/** How the inspector names each CPU state. */
export const CPU_STATE_LABEL: Readonly<Record<CpuState, string>> = {
  busy: 'busy',
  idle: 'idle',
  idle_core: 'idle core',
  not_allowed: 'not allowed',
  offline: 'offline',
  wake_pending: 'wakeup pending',
};
