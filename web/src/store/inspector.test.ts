import { describe, expect, it } from 'vitest';
import { cpuList, highlightOf, mayExplain, notExplainable, selectionOf, taskOfLine, type Inspection } from './inspector';
import type { Decision, TaskInfo, TraceLine } from '../engine/protocol';
import type { SimTimeNs } from '../base/types';

function line(index: number, event: string, payload: string): TraceLine {
  return { index, timeNs: 1000 as SimTimeNs, cpu: 0, event, payload, reason: '' };
}

const wakeup = line(48, 'sched_wakeup', 'comm=schbench-worker pid=1011 prio=120 target_cpu=001');
const tasks: TaskInfo[] = [
  { pid: 1011, comm: 'schbench-worker', group: 0, cpus: [0, 1, 2, 3, 4, 5, 6, 7], jitter: false },
  { pid: 1012, comm: 'kworker/0', group: 1, cpus: [0], jitter: false },
  { pid: 1013, comm: 'turbo_jitter', group: 2, cpus: [0, 1], jitter: true },
];

function decision(overrides: Partial<Decision> = {}): Decision {
  return {
    record_index: 48,
    event: 'sched_wakeup',
    kind: 'wakeup',
    pid: 1011,
    comm: 'schbench-worker',
    time_ns: 14000,
    kernel: '6.5',
    from_cpu: 3,
    prev_cpu: 0,
    allowed_cpus: [0, 1, 2, 3],
    records: [{ index: 48, event: 'sched_wakeup' }],
    steps: [],
    chosen_cpu: 1,
    summary: 'idle SMT sibling CPU 1',
    ...overrides,
  };
}

describe('the task a trace line is about', () => {
  it('is the pid of a wakeup, fork, migration or exit', () => {
    expect(taskOfLine(wakeup)).toBe(1011);
    expect(taskOfLine(line(1, 'sched_wakeup_new', 'comm=stream pid=1004 prio=120 target_cpu=000'))).toBe(1004);
    expect(taskOfLine(line(2, 'sched_migrate_task', 'comm=x pid=1000 prio=120 orig_cpu=0 dest_cpu=4'))).toBe(1000);
  });

  it('is the next task of a switch, or the previous one when the CPU goes idle', () => {
    const to = 'prev_comm=swapper/0 prev_pid=0 prev_prio=120 prev_state=R ==> next_comm=kworker/0 next_pid=1012 next_prio=120';
    expect(taskOfLine(line(3, 'sched_switch', to))).toBe(1012);
    const idle = 'prev_comm=w prev_pid=1004 prev_prio=120 prev_state=S ==> next_comm=swapper/1 next_pid=0 next_prio=120';
    expect(taskOfLine(line(4, 'sched_switch', idle))).toBe(1004);
  });

  it("is the task pushed into, popped from or pulled out of a SHARED_RUNQ shard", () => {
    expect(taskOfLine(line(7, 'schedlab_shard_push', 'comm=schbench-worker pid=1087 shard=4 llc=0'))).toBe(1087);
    expect(taskOfLine(line(8, 'schedlab_shard_pop', 'comm=schbench pid=1020 shard=1 llc=0'))).toBe(1020);
    expect(taskOfLine(line(9, 'schedlab_shard_pull', 'comm=hackbench pid=1203 shard=0 llc=1 orig_cpu=3 dest_cpu=19'))).toBe(1203);
  });

  it('is none for records about no task, and a comm that looks like a field does not fool it', () => {
    expect(taskOfLine(line(5, 'schedlab_cfs_throttle', 'cgroup=/a tasks=3'))).toBeUndefined();
    expect(taskOfLine(line(6, 'sched_wakeup', 'comm=evil pid=7 pid=1010 prio=120 target_cpu=000'))).toBe(1010);
  });
});

describe('what can be explained', () => {
  it('is a wakeup, a fork, and the waking and migration lines of a wakeup', () => {
    for (const event of ['sched_wakeup', 'sched_wakeup_new', 'sched_waking', 'sched_migrate_task']) expect(mayExplain(event)).toBe(true);
    for (const event of ['sched_switch', 'sched_process_exit', 'schedlab_cfs_throttle']) expect(mayExplain(event)).toBe(false);
    expect(notExplainable('sched_switch')).toContain('sched_switch event is not a placement decision');
  });

  it("says a switch's own reason first, then where a placement is explained for its task", () => {
    const message = notExplainable('sched_switch', 'woken pid 1014 preempted: its vruntime is behind by more than the wakeup granularity', 1010);
    expect(message.startsWith('why: woken pid 1014 preempted: its vruntime is behind by more than the wakeup granularity. A sched_switch event')).toBe(true);
    expect(message).toContain('select a sched_wakeup of pid 1010 in its recent events below, or press n');
    // The idle task has no wakeups of its own.
    expect(notExplainable('sched_switch', '', 0)).toContain('select a sched_wakeup or sched_wakeup_new line');
  });

  it('selects the record and its task', () => {
    expect(selectionOf(wakeup)).toEqual({ index: 48, event: 'sched_wakeup', timeNs: 1000, pid: 1011 });
  });
});

describe('the selected task on the machine', () => {
  const selection = selectionOf(wakeup);

  it('outlines the CPUs the task list gives while the explanation is pending', () => {
    const loading: Inspection = { status: 'loading' };
    expect(highlightOf(selection, loading, tasks)).toEqual({ pid: 1011, comm: 'schbench-worker', jitter: false, allowed: tasks[0]?.cpus, chosen: undefined });
  });

  it('uses the decision: the CPUs allowed at its time, and the CPU chosen', () => {
    const ready: Inspection = { status: 'ready', decision: decision() };
    expect(highlightOf(selection, ready, tasks)).toEqual({ pid: 1011, comm: 'schbench-worker', jitter: false, allowed: [0, 1, 2, 3], chosen: 1 });
  });

  it('is nothing without a selected task', () => {
    expect(highlightOf(undefined, { status: 'none' }, tasks)).toBeUndefined();
    const throttle = selectionOf(line(5, 'schedlab_cfs_throttle', 'cgroup=/a tasks=3'));
    expect(highlightOf(throttle, { status: 'none' }, tasks)).toBeUndefined();
  });
});

describe('CPU lists', () => {
  it('are written like the kernel writes them', () => {
    expect(cpuList([0, 1, 2, 3, 8, 10, 11])).toBe('0-3,8,10-11');
    expect(cpuList([112, 0, 16])).toBe('0,16,112');
    expect(cpuList([])).toBe('');
  });
});

describe('a jitter task selected', () => {
  it('is marked as TurboSched’s jitter class', () => {
    const jitter = selectionOf(line(9, 'sched_wakeup', 'comm=turbo_jitter pid=1013 prio=120 target_cpu=001'));
    expect(highlightOf(jitter, { status: 'none' }, tasks)).toEqual({ pid: 1013, comm: 'turbo_jitter', jitter: true, allowed: [0, 1], chosen: undefined });
  });
});
