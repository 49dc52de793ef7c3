/**
 * The event log's filter, read from its fields: an event name, a CPU and a pid,
 * each optional; what the user typed that is not a CPU or a pid is said with the
 * field it is in, and the field keeps it. Pure.
 */
import type { LogFilter, ScenarioProblem } from '../engine/protocol';

/** The events the log can be filtered to (the trace's ftrace names). */
export const LOG_EVENTS: readonly string[] = [
  'sched_switch',
  'sched_wakeup',
  'sched_wakeup_new',
  'sched_waking',
  'sched_migrate_task',
  'sched_process_exit',
  'cpu_frequency',
  'schedlab_cfs_throttle',
  'schedlab_cfs_unthrottle',
  'schedlab_cpu_hotplug',
  'schedlab_shard_push',
  'schedlab_shard_pop',
  'schedlab_shard_pull',
];

export const NO_FILTER: LogFilter = { event: '', cpu: undefined, pid: undefined };

export function isFiltered(filter: LogFilter): boolean {
  return filter.event !== '' || filter.cpu !== undefined || filter.pid !== undefined;
}

function wholeNumber(field: string, text: string, problems: ScenarioProblem[]): number | undefined {
  const trimmed = text.trim();
  if (trimmed === '') return undefined;
  if (!/^\d+$/.test(trimmed) || !Number.isSafeInteger(Number(trimmed))) {
    problems.push({ path: field, message: `expected a whole number from 0, got \`${trimmed}\`` });
    return undefined;
  }
  return Number(trimmed);
}

export function readLogFilter(event: string, cpu: string, pid: string, nCpus: number): { readonly filter: LogFilter; readonly problems: readonly ScenarioProblem[] } {
  const problems: ScenarioProblem[] = [];
  const cpuNumber = wholeNumber('CPU', cpu, problems);
  if (cpuNumber !== undefined && cpuNumber >= nCpus) problems.push({ path: 'CPU', message: `this machine has CPUs 0 to ${nCpus - 1}, not ${cpuNumber}` });
  const pidNumber = wholeNumber('pid', pid, problems);
  return {
    filter: { event, cpu: cpuNumber !== undefined && cpuNumber < nCpus ? cpuNumber : undefined, pid: pidNumber },
    problems,
  };
}
