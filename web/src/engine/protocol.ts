/** Messages between the UI and the engine worker. Bulk state is typed arrays. */
import type { CpuId, LlcId, SimTimeNs } from '../base/types';
import type { ReplayResult } from '../store/replay';

/** Machines this small show their queued tasks themselves; larger ones, depth bars. */
export const QUEUE_CPUS = 16;
/** Queued tasks a frame carries per CPU at most. */
export const QUEUE_MAX = 8;

export interface ScenarioProblem {
  readonly path: string;
  readonly message: string;
}

export interface MachineCpu {
  readonly core: number;
  readonly llc: number;
  readonly node: number;
  readonly socket: number;
  readonly thread: number;
}

export interface Machine {
  readonly name: string;
  readonly sockets: number;
  readonly llcs: number;
  readonly cores: number;
  readonly nodes: number;
  readonly threads_per_core: number;
  readonly frequency_mhz: number;
  readonly cpus: readonly MachineCpu[];
}

export interface TaskInfo {
  readonly pid: number;
  readonly comm: string;
  readonly group: number;
  /** The CPUs the task may run on when it starts. */
  readonly cpus: readonly number[];
  /**
   * TurboSched's jitter class (the core's `is_jitter`: the scenario's jitter
   * attribute, or `uclamp_max` <= 1): short, periodic, not worth a core of its own.
   */
  readonly jitter: boolean;
  /** Whether its wakeups count in the latency figures (schbench workers, hackbench receivers, ...); absent for a log's tasks. */
  readonly records_latency?: boolean;
}

/** How a workload's headline figure is measured (the core's `ThroughputKind`). */
/** `none`: a replayed log's tasks, which have no benchmark to count. */
export type ThroughputKind = 'rate' | 'completion_time' | 'stream' | 'none';

export interface WorkloadInfo {
  readonly label: string;
  readonly throughput: ThroughputKind;
}

/** One figure in the benchmark's own unit: `requests/s`, `s`, `MB/s Copy`, ... */
export interface Throughput {
  readonly unit: string;
  readonly value: number;
}

/**
 * One workload's figures, from the core's `Simulator::throughputs`: the same list
 * `schedlab run --json` prints as `throughput_by_workload`.
 */
export interface WorkloadThroughput {
  readonly workload: string;
  readonly values: readonly Throughput[];
}

/**
 * One SHARED_RUNQ shard (the bridge's `shards_json`): its LLC, its index within
 * that LLC, and the CPUs that push into it. The list's order is the order of
 * `Frame.shards`.
 */
export interface ShardInfo {
  readonly llc: LlcId;
  readonly index: number;
  readonly cpus: readonly CpuId[];
}

/** One cpuidle state as the power model uses it (the core's `IdleStateFigures`). */
export interface IdleStateInfo {
  /** The platform's name for it: `stop2`, `C6`, ... */
  readonly name: string;
  readonly exit_latency_ns: number;
  readonly target_residency_ns: number;
}

/**
 * The power model (the bridge's `power_json`, read once per run): the turbo table,
 * each socket's power budget and the idle states' figures. `Frame.power` carries
 * the state that changes.
 */
export type PowerInfo =
  | { readonly enabled: false }
  | {
      readonly enabled: true;
      readonly nominal_mhz: number;
      /** Cores per socket, in socket order; cores are numbered as `MachineCpu.core`. */
      readonly cores_per_socket: readonly number[];
      readonly budget_w_by_socket: readonly number[];
      /** Entry `n - 1`: the socket's frequency with `n` cores not in deep idle. */
      readonly turbo_mhz_by_active_cores: readonly number[];
      readonly shallow: IdleStateInfo;
      readonly deep: IdleStateInfo;
    };

export const POWER_OFF: PowerInfo = { enabled: false };

/**
 * One cgroup (the bridge's `cgroups_json`, read once per run), in the order of
 * `Frame.cgroups`. The root cgroup is not listed: a group without a parent hangs
 * from it.
 */
export interface CgroupInfo {
  /** Its path: `/0/3/7`. */
  readonly name: string;
  /** The index of its parent in the list; undefined under the root. */
  readonly parent: number | undefined;
  /** 1 for a child of the root. */
  readonly depth: number;
  /** `cpu.max`'s quota in microseconds per period; undefined without a limit. */
  readonly quotaUs: number | undefined;
  readonly periodUs: number;
  /** `cpu.weight` (1 to 10000, default 100): its share against its siblings. */
  readonly cpuWeight: number;
  /** Tasks placed in this group itself (not its subtree). */
  readonly tasks: number;
}

/** A field of `struct sched_entity` or `struct cfs_rq` where a layout places it. */
export interface LayoutField {
  readonly name: string;
  readonly offset: number;
  readonly size: number;
}

/** A structure laid out: its fields in order, its size with padding, and its 64-byte lines. */
export interface StructLayout {
  readonly name: string;
  readonly fields: readonly LayoutField[];
  readonly size: number;
  readonly lines: number;
}

/** A field as the kernel declares it: its size and alignment in bytes. */
export interface FieldDef {
  readonly name: string;
  readonly size: number;
  readonly align: number;
}

/** The fields a kernel function reads and writes in each structure. */
export interface OperationFields {
  readonly operation: string;
  readonly sched_entity: { readonly read: readonly string[]; readonly write: readonly string[] };
  readonly cfs_rq: { readonly read: readonly string[]; readonly write: readonly string[] };
}

/** The two structures the layout model knows. */
export type StructName = 'sched_entity' | 'cfs_rq';
export const STRUCT_NAMES: readonly StructName[] = ['sched_entity', 'cfs_rq'];

/**
 * The struct-layout lab's data for one `policy.struct_layout` value (the bridge's
 * `struct_layout_json`): both structures laid out, the fields' declarations, and
 * the fields each operation touches (the same whatever the layout).
 */
export interface LayoutReport {
  readonly kernel: string;
  readonly sched_entity: StructLayout;
  readonly cfs_rq: StructLayout;
  readonly defs: { readonly sched_entity: readonly FieldDef[]; readonly cfs_rq: readonly FieldDef[] };
  readonly operations: readonly OperationFields[];
}

/** A layout checked by the core: its report, or the core's reason it is not a layout. */
export type LayoutResult = { readonly ok: true; readonly report: LayoutReport } | { readonly ok: false; readonly message: string };

/** One operation's figures over a run (`cache_misses.detail`): calls, and misses in each structure. */
export interface OperationMisses {
  readonly operation: string;
  readonly calls: number;
  readonly sched_entity: number;
  readonly cfs_rq: number;
}

/** The run summary's `cache_misses` (scenarios with cgroups or a `policy.struct_layout`). */
export interface CacheMisses {
  readonly total: number;
  readonly by_operation: Readonly<Record<string, number>>;
  readonly by_struct: Readonly<Record<string, number>>;
  readonly detail: readonly OperationMisses[];
  readonly accesses: number;
  readonly remote: number;
  readonly layout: 'original' | 'reordered' | 'explicit';
  readonly lines: Readonly<Record<string, number>>;
}

/** One group's `cpu.stat` bandwidth figures. */
export interface CpuStat {
  readonly group: string;
  readonly nr_periods: number;
  readonly nr_throttled: number;
  readonly throttled_usec: number;
}

/** The run summary's `bandwidth` (scenarios with cgroups). */
export interface BandwidthFigures {
  readonly throttles: number;
  readonly unthrottles: number;
  readonly tg_walk_visits: number;
  readonly blocked_updates: number;
  readonly blocked_visits: number;
  readonly nr_periods: number;
  readonly nr_throttled: number;
  readonly throttled_usec: number;
  readonly cpu_stat: readonly CpuStat[];
  /** `cpu.stat`'s `usage_usec` of every group (absent without cgroups). */
  readonly usage?: readonly { readonly group: string; readonly usage_usec: number }[];
}

export interface LoadedScenario {
  readonly machine: Machine;
  readonly tasks: readonly TaskInfo[];
  readonly workloads: readonly WorkloadInfo[];
  readonly endNs: SimTimeNs;
  /** SHARED_RUNQ's shards; empty when `policy.shared_runq.mode` is off. */
  readonly shards: readonly ShardInfo[];
  /** The power model's fixed figures; `{enabled: false}` when it does not run. */
  readonly power: PowerInfo;
  /** The cgroups, in `Frame.cgroups` order; empty without any (and for a log). */
  readonly cgroups: readonly CgroupInfo[];
  /** Set when what plays is a real machine's log, not a simulation: its name (the file's, or `pasted log`). */
  readonly log?: { readonly name: string };
}

/**
 * One `/proc/lock_stat` row (the bridge's `lock_stat_json`, the CLI's `run --json`
 * `locks`): a lock class, times in nanoseconds, and per kernel call site how often
 * a waiter spun there (`contention_points`) and where the holder was meanwhile
 * (`contending_points`).
 */
export interface LockStatRow {
  readonly class: string;
  readonly con_bounces: number;
  readonly contentions: number;
  readonly waittime_min_ns: number;
  readonly waittime_max_ns: number;
  readonly waittime_total_ns: number;
  readonly waittime_avg_ns: number;
  readonly acq_bounces: number;
  readonly acquisitions: number;
  readonly holdtime_min_ns: number;
  readonly holdtime_max_ns: number;
  readonly holdtime_total_ns: number;
  readonly holdtime_avg_ns: number;
  readonly contention_points: Readonly<Record<string, number>>;
  readonly contending_points: Readonly<Record<string, number>>;
}

export type LoadResult =
  | { readonly ok: true; readonly loaded: LoadedScenario; readonly frame: Frame }
  | { readonly ok: false; readonly problems: readonly ScenarioProblem[] };

/** How far the reading of a log has come: bytes of the file read (compressed ones for `.gz`) of its size. */
export interface LogProgress {
  readonly read: number;
  readonly total: number;
}

/**
 * How a log was read: its text's bytes (decompressed), the wall time of the streamed
 * read and parse, of the parser's own part of it, of the whole open, and the
 * worker's wasm memory after.
 */
export interface LogReading {
  readonly bytes: number;
  readonly readMs: number;
  readonly parseMs: number;
  readonly totalMs: number;
  readonly wasmBytes: number;
}

/**
 * Opening a log (`Engine.openLog`): it plays, with what `replay_log` says of it; or
 * why not (the run that was loaded stays); or it was cancelled.
 */
export type LogOpenResult =
  | { readonly ok: true; readonly loaded: LoadedScenario; readonly frame: Frame; readonly replay: ReplayResult; readonly reading: LogReading }
  | { readonly ok: false; readonly message: string }
  | { readonly ok: false; readonly cancelled: true };

/** The event log's filter: an event name (empty for any), a CPU and a pid (undefined for any). */
export interface LogFilter {
  readonly event: string;
  readonly cpu: number | undefined;
  readonly pid: number | undefined;
}

/** One trace record, split from the bridge's `time|cpu|event|payload|reason` line. */
export interface TraceLine {
  readonly index: number;
  readonly timeNs: SimTimeNs;
  readonly cpu: number;
  readonly event: string;
  readonly payload: string;
  readonly reason: string;
}

/** Everything the UI draws for one frame. */
export interface Frame {
  readonly nowNs: SimTimeNs;
  readonly events: number;
  readonly finished: boolean;
  /** Per CPU: running pid, 0 when idle. */
  readonly running: Uint32Array;
  /** Per CPU: runnable tasks including the running one. */
  readonly nrRunning: Uint32Array;
  /** The CPUs offline now (hotplug), lowest first; empty on most machines. */
  readonly offline: Uint32Array;
  /**
   * On machines of up to `QUEUE_CPUS` CPUs, each CPU's queued tasks, the next to
   * run first: `[n, pid, ...]` per CPU, at most `QUEUE_MAX` pids each (the bridge's
   * `frame_queues`). Empty on larger machines, whose depth bars show only counts.
   */
  readonly queues: Uint32Array;
  /** Per CPU: busy nanoseconds so far. */
  readonly busyNs: Float64Array;
  /** p50, p75, p90, p95, p99, p99.5, p99.9, min, max (us), samples: read with `LATENCY`. */
  readonly latency: Float64Array;
  /** The wakeup latencies so far in powers of two from 1 us: `[upper_us, count, ...]` (the bridge's `latency_histogram`). */
  readonly latencyHistogram: Float64Array;
  /** See `Counter` for the index of each figure. */
  readonly counters: Float64Array;
  /** Per workload, its headline figures so far (the bridge's `throughputs_json`). */
  readonly throughput: readonly WorkloadThroughput[];
  /**
   * SHARED_RUNQ's shards, in `LoadedScenario.shards` order: each shard's length,
   * then its pids head (oldest) first (the bridge's `frame_shards`). Empty when off.
   */
  readonly shards: Uint32Array;
  /**
   * Per shard, in the same order: its lock's acquisitions and contentions so far,
   * `[acq, cont, acq, cont, ...]` (the bridge's `frame_shard_locks`). Empty when off.
   */
  readonly shardLocks: Float64Array;
  /**
   * Per shard, in the same order: the CPUs that spun on its lock since the previous
   * frame, `[n, cpu, ..., n, cpu, ...]`, newest first, at most 8 each (the bridge's
   * `frame_shard_spinners`). Empty when off.
   */
  readonly shardSpinners: Uint32Array;
  /**
   * The power model's state (the bridge's `frame_power`): per core its idle state
   * (0 active, 1 shallow idle, 2 deep idle), then per socket `[mhz, watts]`; read
   * with `parseFramePower`. Empty when the model does not run.
   */
  readonly power: Float64Array;
  /**
   * Per cgroup, in `LoadedScenario.cgroups` order, now: how many of its cfs_rqs are
   * throttled, then its runnable tasks: `[throttled, runnable, ...]` (the bridge's
   * `frame_cgroups`). Empty without cgroups.
   */
  readonly cgroups: Uint32Array;
  /** `lock_stat` rows so far: `&rq->__lock`, and `&shard->lock` when SHARED_RUNQ is on. */
  readonly locks: readonly LockStatRow[];
  /** Trace records added since the previous frame (the newest ones, capped). */
  readonly newTrace: readonly TraceLine[];
  readonly traceTotal: number;
  /**
   * The engine's wasm memory in bytes: everything the core holds (the trace store,
   * the wait log, snapshots, a log's events). Wasm memory grows and never shrinks,
   * so this is the run's high-water mark.
   */
  readonly wasmBytes: number;
  /**
   * The `sched_switch` records added since the previous frame, all of them (not
   * capped like `newTrace`): flat `[time_ns, cpu, next_pid, ...]` triples (the
   * bridge's `switches`), for the timeline's run slices.
   */
  readonly switches: Float64Array;
  /**
   * The task moves (`sched_migrate_task`) added since the previous frame, all of
   * them: flat `[time_ns, pid, orig_cpu, dest_cpu, cause, ...]` (the bridge's
   * `migrations`; cause 0 wakeup, 1 balancer pull, 2 other), for the machine's motion.
   */
  readonly migrations: Float64Array;
  /**
   * The changes of each CPU's waiting count since the previous frame, all of them:
   * flat `[time_ns, cpu, waiting, ...]` triples in time order (the bridge's `waits`),
   * where `waiting` is the number of tasks runnable on that CPU's runqueue but not
   * running (`nr_running` less the running task). Exact changes logged by the core,
   * not samples; for the timeline's shading. None after the trace store is full.
   */
  readonly waits: Float64Array;
  /**
   * Set once the core's trace store is full (the bridge's `trace_full()`: its
   * memory budget, `DEFAULT_TRACE_KEEP_BYTES`, is spent; every shipped scenario's
   * whole run fits): the time of the last record kept, `traceTotal` being then the
   * number kept. No switch after it arrives.
   */
  readonly traceKeptUntilNs: SimTimeNs | undefined;
  /** The frame's wall-time budget ran out before its simulated time: the run plays slower than the chosen speed. */
  readonly behind: boolean;
  /**
   * Set when the engine took a snapshot at this frame (its index): going back to
   * any time after it restores it and runs forward, instead of re-running from 0.
   */
  readonly snapshot?: number;
}

export function parseTraceLines(text: string, firstIndex: number): TraceLine[] {
  const lines: TraceLine[] = [];
  let index = firstIndex;
  for (const line of text.split('\n')) {
    if (line === '') continue;
    const [time = '0', cpu = '0', event = '', payload = '', ...reason] = line.split('|');
    lines.push({
      index,
      timeNs: Number(time) as SimTimeNs,
      cpu: Number(cpu),
      event,
      payload,
      reason: reason.join('|'),
    });
    index += 1;
  }
  return lines;
}

/** What a CPU was when a scan looked at it (the core's `explain::CpuState`). */
export type CpuState = 'busy' | 'idle' | 'idle_core' | 'not_allowed' | 'offline' | 'wake_pending';

export interface CpuVisit {
  readonly cpu: number;
  readonly state: CpuState;
  /** Tasks on its runqueue, the running one included. */
  readonly nr_running: number;
}

/** A scheduling group's figures as `find_idlest_group` saw them. */
export interface GroupRow {
  readonly cpus: string;
  readonly local: boolean;
  readonly idlest: boolean;
  readonly allowed_cpus: number;
  readonly weight: number;
  readonly sum_nr_running: number;
  readonly idle_cpus: number;
  readonly group_type: string | null;
  readonly avg_load: number;
  readonly util_pct: number;
}

/**
 * One step of a decision: `text` says it with its numbers; `step` names the kind
 * (`wake_wide`, `wake_affine`, `target`, `scan_bound`, `scan`, `domain`,
 * `numa_rule`, `group_choice`, ...) and the other fields are that kind's numbers.
 * Scans carry the CPUs they looked at, in order; fork domains their groups.
 */
export interface DecisionStep {
  readonly text: string;
  readonly step: string;
  readonly scan?: string;
  readonly cpus?: readonly CpuVisit[];
  readonly found?: number | null;
  readonly limit?: number | null;
  readonly groups?: readonly GroupRow[];
  readonly [field: string]: unknown;
}

/** One wakeup or fork placement, explained (the core's `explain::Decision`). */
export interface Decision {
  readonly record_index: number;
  readonly event: string;
  readonly kind: 'wakeup' | 'fork';
  readonly pid: number;
  readonly comm: string;
  readonly time_ns: number;
  readonly kernel: string;
  readonly from_cpu: number;
  readonly prev_cpu: number | null;
  readonly allowed_cpus: readonly number[];
  readonly records: readonly { readonly index: number; readonly event: string }[];
  readonly steps: readonly DecisionStep[];
  readonly chosen_cpu: number;
  readonly summary: string;
}

export type ExplainResult = { readonly ok: true; readonly decision: Decision } | { readonly ok: false; readonly message: string };

/** Indexes into `Frame.counters` (the bridge's `counters()` order). */
export const Counter = {
  switches: 0,
  wakeups: 1,
  migrationsSmt: 2,
  migrationsLlc: 3,
  migrationsCrossLlc: 4,
  migrationsCrossNuma: 5,
  idleWhileRunnableLlcNs: 6,
  idleWhileRunnableMachineNs: 7,
  lockContentions: 8,
  lockAcquisitions: 9,
  lockWaitNs: 10,
  cacheRefillNs: 11,
  schedOverheadNs: 12,
  /** CPU time of offline CPUs so far: utilisation is of the online CPUs' time. */
  offlineNs: 13,
} as const;

/** The bridge's `cgroups_json`, its nulls as undefined. */
export function cgroupsOf(text: string): CgroupInfo[] {
  const raw = JSON.parse(text) as { name: string; parent: number | null; depth: number; quota_us: number | null; period_us: number; cpu_weight: number; tasks: number }[];
  return raw.map((group) => ({
    name: group.name,
    parent: group.parent ?? undefined,
    depth: group.depth,
    quotaUs: group.quota_us ?? undefined,
    periodUs: group.period_us,
    cpuWeight: group.cpu_weight,
    tasks: group.tasks,
  }));
}

/** Where each figure is in `Frame.latency`: the seven percentiles schbench prints from `p50`, then min, max and the sample count. */
export const LATENCY = { p50: 0, p99: 4, min: 7, max: 8, samples: 9 } as const;
