//! The simulator: one machine, its runqueues and tasks, driven by the event queue.
//!
//! How the parts fit: an event (a fork, a timer, the end of a CPU burst, a tick) is
//! popped in `(time, seq)` order and handled. Handlers change task and runqueue
//! state and may ask for a reschedule of a CPU; requests are queued and served after
//! the handler (`drain_resched`), as the kernel's need-resched flag is acted on at
//! the next preemption point. A task runs its behaviour program while it is a CPU's
//! current task; instantaneous steps (posting to a channel) happen at once, a `Run`
//! becomes a future `RunDone` event, and blocking or sleeping leaves the CPU.
//!
//! Simplification: a reschedule takes effect at the instant it is requested (no
//! IPI delay), and the switch itself costs no time in this first model.

use crate::bandwidth::{BandwidthStats, TaskGroup};
use crate::behaviour::{ChannelId, Dist, DistId, Instr, Program};
use crate::cfs::Knobs;
use crate::cost::Costs;
use crate::cpuset::{parse_cpu_list, CpuSet};
use crate::domains::Domains;
use crate::event_queue::EventQueue;
use crate::lock::{LockStat, SpinLock};
use crate::metrics::Metrics;
use crate::pelt::Pelt;
use crate::rng::SimRng;
use crate::runqueue::CfsRq;
use crate::scenario::{Policy, Scenario, ScenarioError};
use crate::task::{nice_to_weight, Pid, Task, TaskId, TaskState};
use crate::time::SimTime;
use crate::topology::{CpuId, Topology};
use crate::trace::{Reason, TaskNames, Trace};
use crate::workload::ThroughputKind;
use std::collections::VecDeque;

mod accounting;
mod build;
mod enqueue;
mod group_sums;
mod hotplug;
mod program;
mod schedule;
mod snapshot;
mod speed;
mod ttwu;
mod views;

pub use snapshot::Snapshot;

/// What the queue holds.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Event {
    Fork(TaskId),
    TimerWake(TaskId),
    /// The current `Run` of the task on `cpu` ends, unless `gen` is stale.
    RunDone {
        cpu: CpuId,
        gen: u64,
    },
    /// The context switch on `cpu` is done: the new current task starts running.
    SwitchDone {
        cpu: CpuId,
        gen: u64,
    },
    /// An idle CPU that had a task woken onto it is ready to schedule.
    IdleExit(CpuId),
    /// A CPU that left idle reaches `__schedule()` (`costs.idle_pick_delay_ns` after
    /// its `IdleExit` enqueued its wakeups).
    IdlePick(CpuId),
    Tick(CpuId),
    /// A cgroup's bandwidth period ends: refill its quota.
    BandwidthRefresh(u32),
    /// A core that went idle has stayed idle for the deep state's residency
    /// (`power`), unless `gen` is stale.
    CoreDeepIdle {
        core: u32,
        gen: u64,
    },
    /// A CPU goes offline (`online: false`) or comes back.
    Hotplug {
        cpu: CpuId,
        online: bool,
    },
    End,
}

/// A wait queue with a token count: a futex, a pipe, a semaphore.
#[derive(Clone, Debug, Default)]
pub struct Channel {
    pub tokens: u64,
    pub waiters: VecDeque<TaskId>,
    /// The writer's CPU of each token posted and not yet taken, oldest first (only
    /// with `costs.message_lines`); tokens the channel starts with have none.
    pub sources: VecDeque<CpuId>,
    /// For a barrier: when it last released its waiters (the start of the phase).
    pub last_release: SimTime,
}

/// Per-CPU bookkeeping beyond the runqueue.
#[derive(Clone, Debug, Default)]
pub struct CpuState {
    /// Bumped whenever the current burst is cut short, so its `RunDone` is ignored.
    pub run_gen: u64,
    pub tick_armed: bool,
    pub busy_since: Option<SimTime>,
    pub need_resched: bool,
    /// An `IdleExit` is pending for this CPU.
    pub leaving_idle: bool,
    /// `rq->wake_list`: tasks woken onto this CPU while it was idle, with whether
    /// their wakeup moved them (`ENQUEUE_MIGRATED`); enqueued when it leaves idle.
    pub wake_list: Vec<(TaskId, bool)>,
    /// When the CPU last went idle.
    pub idle_since: SimTime,
    /// `rq->avg_idle`: a running average of idle periods.
    pub avg_idle_ns: u64,
    /// How busy the CPU has been (PELT of "a task is running").
    pub pelt: Pelt,
    /// Current speed: 1000 alone, less while an SMT sibling is busy.
    pub speed_permille: u32,
    /// Scheduler-path time spent in the current event, not yet paid
    /// (`settle_overhead`).
    pub overhead_ns: u64,
    /// Scheduler work of an idle CPU (`idle_cpu_work`): from when, and until when,
    /// not yet in `busy_ns`.
    pub idle_work_from: Option<SimTime>,
    pub idle_work_until: SimTime,
    /// Per domain level: last periodic balance, its interval now (`balance_interval`,
    /// ms), failed attempts, and the most a newidle balance has cost
    /// (`max_newidle_lb_cost`).
    pub last_balance: Vec<SimTime>,
    pub balance_interval_ms: Vec<u64>,
    pub balance_failed: Vec<u32>,
    pub max_newidle_lb_cost: Vec<u64>,
    /// The running task is in a memory-bound run (it shares memory bandwidth).
    pub memory_bound: bool,
    /// Cached for the work-conservation figures: is the CPU idle, and how many
    /// tasks wait in its runqueue.
    pub counted_idle: bool,
    pub counted_waiting: u32,
    pub resched_reason: Option<Reason>,
    /// Background kthreads whose deferrable timer expired while this CPU was idle:
    /// they run when the CPU next leaves idle for something else.
    pub deferred_timers: Vec<TaskId>,
}

/// Puts a buffer taken with `mem::take` back in `slot`, emptied, so its allocation
/// serves the next use; if `slot` was filled again meanwhile, that is kept instead.
pub(crate) fn give_back<T>(slot: &mut Vec<T>, mut buffer: Vec<T>) {
    buffer.clear();
    if slot.is_empty() {
        *slot = buffer;
    }
}

/// The outcome of one call to [`Simulator::step`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum StepOutcome {
    Handled,
    Finished,
}

/// Names of the workloads' throughput units, with their completed counts.
#[derive(Clone, Debug)]
pub struct WorkloadInfo {
    pub label: String,
    /// The machine's background kernel threads, not a workload of the scenario:
    /// no throughput figure, and the run ends without waiting for them.
    pub background: bool,
    pub throughput: ThroughputKind,
    /// Barrier phase labels (STREAM's kernels), by index.
    pub phase_labels: Vec<String>,
    /// Tasks not yet exited, and when the last one exited.
    pub alive: u32,
    pub finished_at: Option<SimTime>,
    /// Shortest duration seen of each phase, by label index.
    pub best_phase_ns: Vec<Option<u64>>,
}

#[derive(Clone, Debug)]
pub struct Simulator {
    pub title: String,
    pub seed: u64,
    pub topology: Topology,
    pub domains: Domains,
    pub knobs: Knobs,
    /// The kernel version whose paths run, and each path's variant (`features`).
    pub kernel: crate::kernel::KernelVersion,
    pub features: crate::kernel::Features,
    pub costs: Costs,
    pub policy: Policy,
    pub tasks: Vec<Task>,
    pub workloads: Vec<WorkloadInfo>,
    pub(crate) programs: Vec<Program>,
    /// `load_balance`'s buffer for the statistics of a domain's other groups.
    pub(crate) balance_groups: Vec<(usize, crate::baseline::groups::GroupStats)>,
    /// The memory-bound CPUs of a node to re-time, kept between calls of
    /// `refresh_memory_bound` (a list per call was an allocation per STREAM switch).
    pub(crate) retime_buffer: Vec<CpuId>,
    /// Buffers kept between uses, so that waking a channel's waiters allocates
    /// nothing: the waiters of a `WakeAll`, and finished `WakeEach` walks.
    pub(crate) waiters_scratch: Vec<TaskId>,
    // Boxed: a walk moves between here and `Task::wake_walk` without reallocating.
    #[allow(clippy::vec_box)]
    pub(crate) walk_pool: Vec<Box<crate::task::WakeWalk>>,
    /// Every program's duration distributions, one entry per distinct one (`DistId`).
    pub(crate) dists: Vec<Dist>,
    /// Per distribution, its duration when fixed (`Dist::fixed_ns`), else `u64::MAX`:
    /// most runs' steps take a fixed time, drawn without the generator or floats.
    pub(crate) dist_fixed_ns: Vec<u64>,
    pub(crate) channels: Vec<Channel>,
    pub rqs: Vec<CfsRq>,
    pub cpus: Vec<CpuState>,
    queue: EventQueue<Event>,
    now: SimTime,
    end: SimTime,
    finished: bool,
    pub(crate) rng: SimRng,
    pub trace: Trace,
    pub metrics: Metrics,
    resched_queue: VecDeque<CpuId>,
    events: u64,
    last_nohz_balance: SimTime,
    /// Per task: the task whose CPU forks it (its thread-group leader, or the task
    /// whose program spawned it).
    fork_parent: Vec<Option<TaskId>>,
    /// Per spawn pool: the unborn tasks a program's `Spawn` forks, in order.
    pub(crate) spawn_pools: Vec<VecDeque<TaskId>>,
    /// Per LLC: `avg_scan_cost` of `select_idle_cpu`, a running average in ns.
    pub(crate) llc_avg_scan_cost: Vec<u64>,
    /// Per LLC: SIS_UTIL's `nr_idle_scan` (`sd_llc_shared`), as the last periodic
    /// balance of the LLC domain left it (`update_idle_cpu_scan`).
    pub(crate) llc_idle_scan: Vec<crate::baseline::sis::IdleScanHint>,
    /// The online CPUs (`cpu_online_mask`); the domains span only these.
    pub online: CpuSet,
    /// Per-CPU kernel threads parked while their CPU is offline.
    pub(crate) parked: Vec<TaskId>,
    /// CPU time spent offline by CPUs back online, and when each offline CPU went
    /// offline: utilisation is of the online CPUs' time.
    pub(crate) offline_ns: u64,
    pub(crate) offline_since: Vec<SimTime>,
    /// CPUs with scheduler-path time to settle at the end of the event.
    overhead_pending: Vec<CpuId>,
    pub(crate) rq_locks: Vec<SpinLock>,
    pub rq_lock_stat: LockStat,
    /// SHARED_RUNQ's per-LLC shards (`policy::shared_runq`); empty work when off.
    pub shared_runq: crate::policy::shared_runq::SharedRunq,
    /// Per CPU, `rq->cfs_tasks`: its CFS tasks (the running one too), the most
    /// recently enqueued or picked at the head; `detach_tasks()` walks it from the
    /// tail.
    pub(crate) cfs_tasks: crate::task_list::TaskLists,
    /// Work-conservation bookkeeping: per LLC, idle CPUs and waiting tasks.
    gap: accounting::GapCounts,
    gap_integrated_to: SimTime,
    /// CPUs running a memory-bound burst (`CpuState::memory_bound`), for the
    /// bandwidth shares of their LLCs and nodes.
    memory_bound_cpus: CpuSet,
    /// Task groups (cgroups), for CFS bandwidth control.
    pub groups: Vec<TaskGroup>,
    /// Each group's `cfs_rq` on each CPU, made when first written.
    pub(crate) group_rqs: crate::group_table::PairTable<crate::bandwidth::GroupRq>,
    /// The cfs_rqs and group entities of the hierarchical pick (`group_sched`): on
    /// with task groups.
    pub(crate) group_sched: Option<Box<crate::group_sched::GroupSched>>,
    /// The groups depth-first; a group's subtree is a range of it.
    pub(crate) group_preorder: Vec<u32>,
    /// Per CPU, the cfs_rqs with load to decay (`rq->leaf_cfs_rq_list`), each with
    /// its parent group and its record in `group_rqs`.
    pub(crate) leaf_cfs_rqs: Vec<Vec<(u32, Option<u32>, u32)>>,
    /// cfs_rqs (group, CPU) out of runtime, to throttle at the next scheduling point.
    pub(crate) pending_throttle: Vec<(u32, CpuId)>,
    /// The struct-layout cache-line model (`policy::struct_layout`): on with cgroups
    /// or an explicit `policy.struct_layout`.
    pub(crate) layout_model: Option<Box<crate::policy::struct_layout::LayoutModel>>,
    pub bandwidth: BandwidthStats,
    /// `sgc->imbalance` of each scheduling group, as (domain level, the group's first
    /// CPU): a balance one level down failed because of CPU affinity.
    pub(crate) sg_imbalance: std::collections::BTreeSet<(usize, u32)>,
    /// `max_load_balance_interval`: the longest a domain's balance interval may be,
    /// `HZ * num_online_cpus() / 10` ticks, set at start and on hotplug
    /// (`update_max_interval()`).
    pub(crate) max_balance_interval_ticks: u64,
    /// Idle CPUs, and idle cores per LLC.
    pub(crate) idle_cores: accounting::IdleCores,
    /// The runqueues with a task waiting (`nr_running >= 2`): what sets the root
    /// domain's `overload` flag, CPU by CPU.
    pub(crate) overloaded: CpuSet,
    /// Running sums of the groups of wide domains (`group_sums`).
    pub(crate) group_sums: group_sums::GroupSums,
    /// The frequency and idle-state model (`power`); inert unless enabled.
    pub power: crate::power::PowerState,
    /// The decision inspector's recorder (`explain.rs`): `None` except in the
    /// re-run of `Simulator::explain_record`.
    pub(crate) recorder: Option<Box<crate::explain::Recorder>>,
    /// Each runqueue's waiting count over time (`waiting`): `None` unless a front
    /// end asked for it with [`Simulator::keep_wait_log`].
    pub wait_log: Option<crate::waiting::WaitLog>,
}

impl CpuState {
    /// The part of the idle CPU's scheduler work done by `now`.
    pub(crate) fn idle_work_elapsed(&self, now: SimTime) -> u64 {
        self.idle_work_from.map_or(0, |from| {
            self.idle_work_until
                .min(now)
                .as_ns()
                .saturating_sub(from.as_ns())
        })
    }
}

/// Pid numbering starts here, like a freshly booted machine's first user tasks.
const FIRST_PID: u32 = 1000;
/// The memory budget for the trace's kept records by default, in bytes (the hash and
/// the count cover all records; see `Trace::kept_bytes`). The largest shipped runs
/// keep their whole traces in about 107 MB (netperf-udp-rr-skylake, 11.9 M records)
/// and 123 MB (schbench-pipe-milan, 11.5 M); 512 MiB keeps runs about four times
/// longer, and stays well within what a browser grants a WebAssembly instance
/// (wasm32 memory is at most 4 GiB, and an instance's memory never shrinks once
/// grown).
pub const DEFAULT_TRACE_KEEP_BYTES: usize = 512 << 20;

impl Simulator {
    /// Builds a simulator, or says every way in which the scenario is wrong.
    pub fn new(scenario: &Scenario) -> Result<Simulator, Vec<ScenarioError>> {
        Self::with_trace_limit(scenario, DEFAULT_TRACE_KEEP_BYTES)
    }

    /// Starts logging how many tasks wait in each runqueue, change by change
    /// ([`crate::waiting`]), from the state as it stands. Logging stops when the
    /// trace stops keeping records, so the log covers the kept trace's time.
    pub fn keep_wait_log(&mut self) {
        if self.wait_log.is_some() {
            return;
        }
        let mut log = crate::waiting::WaitLog::new(self.rqs.len());
        for (cpu, rq) in self.rqs.iter().enumerate() {
            log.note(self.now.as_ns(), cpu as u32, rq.queued.len() as u32);
        }
        self.wait_log = Some(log);
    }

    pub fn now(&self) -> SimTime {
        self.now
    }

    pub fn end_time(&self) -> SimTime {
        self.end
    }

    pub fn is_finished(&self) -> bool {
        self.finished
    }

    /// Queues a core's entry into deep idle (`power`).
    pub(crate) fn queue_core_deep_idle(&mut self, core: u32, gen: u64, at: SimTime) {
        self.queue.push(at, Event::CoreDeepIdle { core, gen });
    }

    /// Queues a sleeping task's timer wakeup at `at`.
    pub(crate) fn queue_timer_wake(&mut self, task: TaskId, at: SimTime) {
        self.queue.push(at, Event::TimerWake(task));
    }

    /// Events handled so far.
    pub fn events(&self) -> u64 {
        self.events
    }

    pub fn next_event_time(&self) -> Option<SimTime> {
        if self.finished {
            None
        } else {
            self.queue.peek_time()
        }
    }

    /// Handles exactly one event.
    pub fn step(&mut self) -> StepOutcome {
        if self.finished {
            return StepOutcome::Finished;
        }
        let Some((time, event)) = self.queue.pop() else {
            self.finished = true;
            return StepOutcome::Finished;
        };
        debug_assert!(time >= self.now, "time went backwards");
        self.integrate_gap(time);
        self.now = time;
        self.events += 1;
        match event {
            Event::Fork(task) => self.wake_up_new_task(task),
            Event::TimerWake(task) => {
                // The timer fires on the CPU the task slept on.
                let waker_cpu = self.tasks[task.0 as usize].cpu;
                if self.defer_timer(task, waker_cpu) {
                    // A deferrable timer does not wake a NOHZ-idle CPU.
                } else {
                    self.try_to_wake_up(task, waker_cpu, None, false);
                }
            }
            Event::RunDone { cpu, gen } => self.run_done(cpu, gen),
            Event::SwitchDone { cpu, gen } => self.switch_done(cpu, gen),
            Event::IdleExit(cpu) => {
                let delay = self.costs.idle_pick_delay_ns;
                if delay == 0 {
                    // Still leaving idle while the wakeups are enqueued, so that their
                    // check_preempt_curr() does not queue a second exit: the pick below
                    // is the one this exit stands for.
                    self.sched_ttwu_pending(cpu);
                    self.cpus[cpu.0 as usize].leaving_idle = false;
                    self.request_resched(cpu, Reason::LeftIdle);
                } else {
                    // Still leaving idle until the pick: a wakeup meanwhile waits for it.
                    self.sched_ttwu_pending(cpu);
                    self.queue
                        .push(self.now + SimTime(delay), Event::IdlePick(cpu));
                }
            }
            Event::IdlePick(cpu) => {
                self.cpus[cpu.0 as usize].leaving_idle = false;
                if self.cpu_online(cpu) {
                    self.request_resched(cpu, Reason::LeftIdle);
                }
            }
            Event::Tick(cpu) => self.scheduler_tick(cpu),
            Event::BandwidthRefresh(group) => self.refresh_bandwidth(group),
            Event::Hotplug { cpu, online } => self.hotplug(cpu, online),
            Event::CoreDeepIdle { core, gen } => self.core_deep_idle(core, gen),
            Event::End => {
                self.finish();
                return StepOutcome::Finished;
            }
        }
        self.drain_resched();
        self.settle_overhead();
        StepOutcome::Handled
    }

    /// Handles every event up to and including `until`, then sets the clock there.
    pub fn run_until(&mut self, until: SimTime) {
        self.run_until_bounded(until, u64::MAX);
    }

    /// Like `run_until`, but stops after `max_events` events (so a caller that must
    /// stay responsive can come back for the rest). Returns true when `until` was
    /// reached (or the run ended).
    pub fn run_until_bounded(&mut self, until: SimTime, max_events: u64) -> bool {
        let mut handled = 0u64;
        while !self.finished {
            match self.queue.peek_time() {
                Some(time) if time <= until => {
                    if handled == max_events {
                        return false;
                    }
                    self.step();
                    handled += 1;
                }
                _ => break,
            }
        }
        if !self.finished && until > self.now {
            self.now = until.min(self.end);
        }
        true
    }

    /// Runs at most `max_events` events; returns how many ran.
    pub fn run_events(&mut self, max_events: u64) -> u64 {
        let mut count = 0;
        while count < max_events && self.step() == StepOutcome::Handled {
            count += 1;
        }
        count
    }

    pub fn run_to_end(&mut self) {
        while self.step() == StepOutcome::Handled {}
    }

    fn finish(&mut self) {
        for cpu_idx in 0..self.cpus.len() {
            self.close_busy_interval(CpuId(cpu_idx as u32));
            let cpu = CpuId(cpu_idx as u32);
            self.update_curr(cpu);
        }
        self.finished = true;
    }
}

impl TaskNames for Simulator {
    fn cgroup_name(&self, group: u32) -> String {
        self.groups
            .get(group as usize)
            .map_or_else(|| format!("#{group}"), |tg| tg.name.clone())
    }

    fn comm(&self, pid: u32) -> &str {
        if pid == 0 {
            return "swapper";
        }
        self.tasks
            .get((pid - FIRST_PID) as usize)
            .map_or("<...>", |task| task.comm.as_str())
    }

    fn prio(&self, pid: u32) -> i32 {
        if pid == 0 {
            return 120;
        }
        self.tasks
            .get((pid - FIRST_PID) as usize)
            .map_or(120, |task| task.prio())
    }
}
