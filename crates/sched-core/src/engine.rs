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
use crate::behaviour::{ChannelId, Instr, Program};
use crate::cfs::{calc_delta_fair, Knobs};
use crate::cost::{wall_time_for, work_done_in, Costs};
use crate::cpuset::{parse_cpu_list, CpuSet};
use crate::domains::Domains;
use crate::event_queue::EventQueue;
use crate::lock::{LockStat, SpinLock};
use crate::metrics::{IdleWhileRunnable, Metrics, RunSummary, Throughput, WorkloadThroughput};
use crate::pelt::Pelt;
use crate::rng::SimRng;
use crate::runqueue::CfsRq;
use crate::scenario::{Policy, Scenario, ScenarioError};
use crate::task::{nice_to_weight, LoopFrame, Pid, Task, TaskId, TaskState};
use crate::time::SimTime;
use crate::topology::{CpuId, Topology};
use crate::trace::{
    Reason, TaskNames, Trace, TraceKind, TraceRecord, PREV_STATE_DEAD, PREV_STATE_RUNNING,
    PREV_STATE_SLEEPING,
};
use crate::workload::{ThroughputKind, STREAM_THREAD_BYTES_PER_US};
use std::collections::VecDeque;

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
    Tick(CpuId),
    /// A cgroup's bandwidth period ends: refill its quota.
    BandwidthRefresh(u32),
    End,
}

/// A wait queue with a token count: a futex, a pipe, a semaphore.
#[derive(Clone, Debug, Default)]
pub struct Channel {
    pub tokens: u64,
    pub waiters: VecDeque<TaskId>,
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
    /// When the CPU last went idle.
    pub idle_since: SimTime,
    /// `rq->avg_idle`: a running average of idle periods.
    pub avg_idle_ns: u64,
    /// How busy the CPU has been (PELT of "a task is running").
    pub pelt: Pelt,
    /// Current speed: 1000 alone, less while an SMT sibling is busy.
    pub speed_permille: u32,
    /// Scheduler-path time owed, paid before the next task runs.
    pub overhead_ns: u64,
    /// Per domain level: last periodic balance, failed attempts, and the most a
    /// newidle balance has cost (`max_newidle_lb_cost`).
    pub last_balance: Vec<SimTime>,
    pub balance_failed: Vec<u32>,
    pub max_newidle_lb_cost: Vec<u64>,
    /// The running task is in a memory-bound run (it shares memory bandwidth).
    pub memory_bound: bool,
    /// Cached for the work-conservation figures: is the CPU idle, and how many
    /// tasks wait in its runqueue.
    pub counted_idle: bool,
    pub counted_waiting: u32,
    pub resched_reason: Option<Reason>,
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
    pub costs: Costs,
    pub policy: Policy,
    pub tasks: Vec<Task>,
    pub workloads: Vec<WorkloadInfo>,
    pub(crate) programs: Vec<Program>,
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
    /// Per task: the task whose CPU forks it (its thread-group leader).
    fork_parent: Vec<Option<TaskId>>,
    pub(crate) rq_locks: Vec<SpinLock>,
    pub rq_lock_stat: LockStat,
    /// Work-conservation bookkeeping: per LLC, idle CPUs and waiting tasks.
    llc_idle: Vec<u32>,
    llc_waiting: Vec<u32>,
    gap_integrated_to: SimTime,
    /// Task groups (cgroups), for CFS bandwidth control.
    pub groups: Vec<TaskGroup>,
    pub(crate) pending_throttle: Vec<u32>,
    pub bandwidth: BandwidthStats,
}

/// Pid numbering starts here, like a freshly booted machine's first user tasks.
const FIRST_PID: u32 = 1000;
/// Records the trace keeps by default (the hash and counts cover all of them).
pub const DEFAULT_TRACE_KEEP: usize = 2_000_000;

impl Simulator {
    /// Builds a simulator, or says every way in which the scenario is wrong.
    pub fn new(scenario: &Scenario) -> Result<Simulator, Vec<ScenarioError>> {
        Self::with_trace_limit(scenario, DEFAULT_TRACE_KEEP)
    }

    pub fn with_trace_limit(
        scenario: &Scenario,
        trace_keep: usize,
    ) -> Result<Simulator, Vec<ScenarioError>> {
        let errors = scenario.check();
        if !errors.is_empty() {
            return Err(errors);
        }
        let shape = scenario
            .topology
            .resolve()
            .expect("checked by Scenario::check");
        let topology = Topology::build(shape);
        let n_cpus = topology.n_cpus();
        let domains = Domains::build(&topology);
        let knobs = scenario.knobs.resolve(n_cpus);

        let mut tasks = Vec::new();
        let mut fork_parent = Vec::new();
        let mut groups: Vec<TaskGroup> = Vec::new();
        let mut programs = Vec::new();
        let mut channels = Vec::new();
        let mut workloads = Vec::new();
        for (group, workload) in scenario.workloads.iter().enumerate() {
            let expansion = workload.expand();
            let program_base = programs.len();
            let channel_base = channels.len() as u32;
            for program in expansion.programs {
                programs.push(offset_channels(program, channel_base));
            }
            channels.extend((0..expansion.channels.next).map(|idx| {
                Channel {
                    tokens: expansion
                        .channels
                        .initial_tokens
                        .get(&ChannelId(idx))
                        .copied()
                        .unwrap_or(0),
                    ..Channel::default()
                }
            }));
            let first_task = tasks.len();
            let group_base = groups.len() as u32;
            for group in &expansion.groups {
                let period_ns = group.period_us * 1_000;
                let quota_ns = group.quota_machine_fraction.map(|fraction| {
                    ((fraction * n_cpus as f64 * period_ns as f64) as u64).max(1_000)
                });
                groups.push(TaskGroup {
                    name: group.name.clone(),
                    parent: group.parent.map(|parent| group_base + parent as u32),
                    quota_ns,
                    period_ns,
                    runtime_ns: quota_ns.unwrap_or(0) as i64,
                    throttled: false,
                    tasks: Vec::new(),
                    subtree_size: 1,
                });
            }
            for plan in expansion.tasks {
                let leader_idx = first_task + plan.leader;
                fork_parent.push((leader_idx != tasks.len()).then_some(TaskId(leader_idx as u32)));
                let pid = Pid(FIRST_PID + tasks.len() as u32);
                let tgid = Pid(FIRST_PID + (first_task + plan.leader) as u32);
                let affinity = match &plan.cpus {
                    Some(list) => CpuSet::from_cpus(
                        n_cpus,
                        parse_cpu_list(list)
                            .expect("checked by Scenario::check")
                            .into_iter()
                            .map(CpuId),
                    ),
                    None => CpuSet::full(n_cpus),
                };
                tasks.push(Task {
                    pid,
                    tgid,
                    comm: plan.comm,
                    nice: plan.nice,
                    weight: nice_to_weight(plan.nice),
                    affinity,
                    group: group as u32,
                    program: program_base + plan.program,
                    start_at: SimTime::from_us(plan.start_us),
                    record_latency: plan.record_latency,
                    state: TaskState::Unborn,
                    cpu: CpuId(0),
                    vruntime: 0,
                    sum_exec_runtime: 0,
                    prev_sum_exec_runtime: 0,
                    last_ran: SimTime::ZERO,
                    charged_until: SimTime::ZERO,
                    woken_at: None,
                    pc: 0,
                    loops: Vec::new(),
                    remaining_work: None,
                    nr_switches: 0,
                    nr_migrations: 0,
                    recent_used_cpu: None,
                    wakee_flips: 0,
                    last_wakee: None,
                    wakee_flips_decayed_at: SimTime::ZERO,
                    pelt: Pelt::default(),
                    warm_cpu: None,
                    refill_debt_ns: 0,
                    footprint_kib: plan.footprint_kib,
                    jitter: plan.jitter,
                    run_memory_bound: false,
                    cgroup: plan.cgroup.map(|group| group_base + group as u32),
                });
                if let Some(group) = plan.cgroup {
                    groups[group_base as usize + group]
                        .tasks
                        .push(TaskId(tasks.len() as u32 - 1));
                }
            }
            let labels = expansion.channels.labels.clone();
            workloads.push(WorkloadInfo {
                label: workload.label(),
                throughput: expansion.throughput,
                best_phase_ns: vec![None; labels.len()],
                phase_labels: labels,
                alive: (tasks.len() - first_task) as u32,
                finished_at: None,
            });
        }

        let costs = scenario
            .costs
            .resolve(crate::topology::nominal_mhz(&topology.shape.name));
        let n_llcs = topology.llc_cpus.len();
        let llc_idle_initial: Vec<u32> = topology
            .llc_cpus
            .iter()
            .map(|cpus| cpus.len() as u32)
            .collect();
        let cpu_states: Vec<CpuState> = (0..n_cpus)
            .map(|cpu_idx| {
                let levels = domains.per_cpu[cpu_idx].len();
                CpuState {
                    avg_idle_ns: 2 * knobs.sched_migration_cost_ns,
                    speed_permille: costs.frequency_permille,
                    last_balance: vec![SimTime::ZERO; levels],
                    balance_failed: vec![0; levels],
                    max_newidle_lb_cost: vec![0; levels],
                    counted_idle: true,
                    ..CpuState::default()
                }
            })
            .collect();
        // Subtree sizes: every group counts itself in each of its ancestors.
        for idx in 0..groups.len() {
            let mut parent = groups[idx].parent;
            while let Some(up) = parent {
                groups[up as usize].subtree_size += 1;
                parent = groups[up as usize].parent;
            }
        }
        let mut queue = EventQueue::default();
        for (idx, group) in groups.iter().enumerate() {
            if group.quota_ns.is_some() {
                queue.push(
                    SimTime(group.period_ns),
                    Event::BandwidthRefresh(idx as u32),
                );
            }
        }
        for (idx, task) in tasks.iter().enumerate() {
            queue.push(task.start_at, Event::Fork(TaskId(idx as u32)));
        }
        let end = SimTime::from_ms(scenario.duration_ms);
        queue.push(end, Event::End);
        let n_workloads = workloads.len();
        Ok(Simulator {
            title: scenario.title.clone(),
            seed: scenario.seed,
            topology,
            domains,
            knobs,
            costs,
            policy: scenario.policy.resolve(),
            tasks,
            workloads,
            programs,
            channels,
            rqs: vec![CfsRq::default(); n_cpus],
            cpus: cpu_states,
            queue,
            now: SimTime::ZERO,
            end,
            finished: false,
            rng: SimRng::new(scenario.seed),
            trace: Trace::new(trace_keep),
            metrics: Metrics::new(n_cpus, n_workloads),
            resched_queue: VecDeque::new(),
            events: 0,
            last_nohz_balance: SimTime::ZERO,
            fork_parent,
            rq_locks: vec![SpinLock::default(); n_cpus],
            rq_lock_stat: LockStat::new("&rq->__lock"),
            llc_idle: llc_idle_initial,
            llc_waiting: vec![0; n_llcs],
            gap_integrated_to: SimTime::ZERO,
            groups,
            pending_throttle: Vec::new(),
            bandwidth: BandwidthStats::default(),
        })
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
                self.try_to_wake_up(task, waker_cpu, None, false);
            }
            Event::RunDone { cpu, gen } => self.run_done(cpu, gen),
            Event::SwitchDone { cpu, gen } => self.switch_done(cpu, gen),
            Event::IdleExit(cpu) => {
                self.cpus[cpu.0 as usize].leaving_idle = false;
                self.request_resched(cpu, Reason::LeftIdle);
            }
            Event::Tick(cpu) => self.scheduler_tick(cpu),
            Event::BandwidthRefresh(group) => self.refresh_bandwidth(group),
            Event::End => {
                self.finish();
                return StepOutcome::Finished;
            }
        }
        self.drain_resched();
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

    // ----- Accounting -------------------------------------------------------

    /// `update_curr()`: charge the running task for the time since last charged.
    pub(crate) fn update_curr(&mut self, cpu: CpuId) {
        let Some(task_id) = self.rqs[cpu.0 as usize].curr else {
            return;
        };
        let now = self.now;
        let task = &mut self.tasks[task_id.0 as usize];
        if task.state != TaskState::Running(cpu) {
            return;
        }
        let delta = (now - task.charged_until).as_ns();
        if delta == 0 {
            return;
        }
        task.charged_until = now;
        task.sum_exec_runtime += delta;
        task.vruntime += calc_delta_fair(delta, task.weight);
        let speed = self.cpus[cpu.0 as usize].speed_permille;
        if let Some(work) = task.remaining_work.as_mut() {
            *work = work.saturating_sub(work_done_in(delta, speed));
        }
        let vruntime = task.vruntime;
        self.rqs[cpu.0 as usize].update_min_vruntime(Some(vruntime));
        self.account_bandwidth(task_id, cpu, delta);
    }

    fn close_busy_interval(&mut self, cpu: CpuId) {
        if let Some(since) = self.cpus[cpu.0 as usize].busy_since.take() {
            self.metrics.busy_ns[cpu.0 as usize] += (self.now - since).as_ns();
        }
    }

    /// Busy time of each CPU so far, including the interval still open.
    pub fn busy_ns(&self) -> Vec<u64> {
        self.metrics
            .busy_ns
            .iter()
            .zip(&self.cpus)
            .map(|(closed, state)| {
                closed
                    + state
                        .busy_since
                        .map_or(0, |since| (self.now - since).as_ns())
            })
            .collect()
    }

    // ----- Trace ------------------------------------------------------------

    pub(crate) fn pid_of(&self, task: TaskId) -> u32 {
        self.tasks[task.0 as usize].pid.0
    }

    fn ctx_pid(&self, cpu: CpuId) -> u32 {
        self.rqs[cpu.0 as usize]
            .curr
            .map_or(0, |task| self.pid_of(task))
    }

    pub(crate) fn emit(
        &mut self,
        cpu: CpuId,
        kind: TraceKind,
        pid: u32,
        arg0: u32,
        arg1: u32,
        reason: Reason,
    ) {
        let record = TraceRecord {
            time: self.now,
            cpu: cpu.0,
            ctx_pid: self.ctx_pid(cpu),
            kind,
            pid,
            arg0,
            arg1,
            reason,
        };
        self.trace.push(record);
    }

    // ----- Enqueue, dequeue, migrate ----------------------------------------

    pub(crate) fn enqueue_task(&mut self, task_id: TaskId, cpu: CpuId) {
        let task = &mut self.tasks[task_id.0 as usize];
        task.state = TaskState::Queued(cpu);
        task.cpu = cpu;
        let (vruntime, weight) = (task.vruntime, task.weight);
        let rq = &mut self.rqs[cpu.0 as usize];
        rq.insert(vruntime, task_id);
        rq.nr_running += 1;
        rq.load_weight += weight as u64;
        self.touch(cpu);
    }

    /// Takes the current task off its CPU because it blocks, sleeps or exits.
    pub(crate) fn dequeue_curr(&mut self, task_id: TaskId, cpu: CpuId, new_state: TaskState) {
        self.update_curr(cpu);
        let task = &mut self.tasks[task_id.0 as usize];
        debug_assert_eq!(task.state, TaskState::Running(cpu));
        task.state = new_state;
        let weight = task.weight;
        let rq = &mut self.rqs[cpu.0 as usize];
        rq.nr_running -= 1;
        rq.load_weight -= weight as u64;
        self.cpus[cpu.0 as usize].run_gen += 1;
        self.tasks[task_id.0 as usize].run_memory_bound = false;
        self.refresh_memory_bound(cpu);
        self.request_resched(cpu, Reason::PrevStopped);
    }

    /// Moves a task that is not running (queued, or being woken) to another CPU,
    /// re-basing its vruntime on the destination's `min_vruntime`.
    pub(crate) fn set_task_cpu(&mut self, task_id: TaskId, dest: CpuId, reason: Reason) {
        let task = &self.tasks[task_id.0 as usize];
        let orig = task.cpu;
        if orig == dest {
            return;
        }
        let from_min = self.rqs[orig.0 as usize].min_vruntime;
        let to_min = self.rqs[dest.0 as usize].min_vruntime;
        let pid = task.pid.0;
        self.emit(
            orig,
            TraceKind::SchedMigrateTask,
            pid,
            orig.0,
            dest.0,
            reason,
        );
        let distance = self.topology.distance(orig, dest);
        self.metrics.migrations.count(distance);
        let task = &mut self.tasks[task_id.0 as usize];
        task.vruntime = task.vruntime.saturating_sub(from_min) + to_min;
        task.cpu = dest;
        task.nr_migrations += 1;
    }

    /// Detaches a queued task from `src` and attaches it to `dest` (load balancing).
    pub(crate) fn move_queued_task(
        &mut self,
        kick: bool,
        task_id: TaskId,
        src: CpuId,
        dest: CpuId,
        reason: Reason,
    ) {
        let task = &self.tasks[task_id.0 as usize];
        debug_assert_eq!(task.state, TaskState::Queued(src));
        let (vruntime, weight) = (task.vruntime, task.weight);
        let rq = &mut self.rqs[src.0 as usize];
        rq.remove(vruntime, task_id);
        rq.nr_running -= 1;
        rq.load_weight -= weight as u64;
        self.touch(src);
        // double_rq_lock(): the balancing CPU takes both runqueue locks.
        self.lock_rq(src, dest);
        self.lock_rq(dest, dest);
        self.set_task_cpu(task_id, dest, reason);
        self.enqueue_task(task_id, dest);
        // `attach_task()` → `check_preempt_curr()`; a CPU pulling for itself in
        // `newidle_balance` is already inside `schedule` and picks the task next.
        if kick {
            self.check_preempt_curr(dest, task_id);
        }
    }

    // ----- Wakeups ----------------------------------------------------------

    fn wake_up_new_task(&mut self, task_id: TaskId) {
        // Forked from its thread-group leader's CPU, or from the first CPU it may use.
        let parent_cpu = match self.fork_parent[task_id.0 as usize] {
            Some(leader) if self.tasks[leader.0 as usize].state != TaskState::Unborn => {
                self.tasks[leader.0 as usize].cpu
            }
            _ => self.tasks[task_id.0 as usize]
                .affinity
                .first()
                .expect("affinity is never empty"),
        };
        let (cpu, reason) = self.select_task_rq_fork(task_id, parent_cpu);
        let task = &mut self.tasks[task_id.0 as usize];
        task.cpu = cpu;
        // START_DEBIT: a new task starts one virtual slice after min_vruntime.
        let rq = &self.rqs[cpu.0 as usize];
        let weight = task.weight;
        let slice =
            self.knobs
                .sched_slice(rq.nr_running + 1, weight, rq.load_weight + weight as u64);
        task.vruntime = rq.min_vruntime + calc_delta_fair(slice, weight);
        task.last_ran = self.now;
        task.charged_until = self.now;
        let pid = task.pid.0;
        if self.task_throttled(task_id) {
            self.tasks[task_id.0 as usize].state = TaskState::Throttled(cpu);
            self.emit(cpu, TraceKind::SchedWakeupNew, pid, cpu.0, 0, reason);
            return;
        }
        self.enqueue_task(task_id, cpu);
        self.emit(cpu, TraceKind::SchedWakeupNew, pid, cpu.0, 0, reason);
        self.check_preempt_curr(cpu, task_id);
    }

    /// `try_to_wake_up()`: choose a CPU, enqueue, maybe preempt. `waker` is the task
    /// doing the wakeup (none for a timer); `sync` hints that the waker will sleep.
    pub(crate) fn try_to_wake_up(
        &mut self,
        task_id: TaskId,
        waker_cpu: CpuId,
        waker: Option<TaskId>,
        sync: bool,
    ) {
        let task = &self.tasks[task_id.0 as usize];
        if !matches!(task.state, TaskState::Sleeping | TaskState::Blocked) {
            return;
        }
        let pid = task.pid.0;
        let prev_cpu = task.cpu;
        self.emit(
            waker_cpu,
            TraceKind::SchedWaking,
            pid,
            prev_cpu.0,
            0,
            Reason::None,
        );
        if self.rqs[prev_cpu.0 as usize].curr == Some(task_id) {
            // It blocked in this same instant and has not left the CPU yet
            // (`ttwu_runnable()`): it simply stays runnable there.
            let task = &mut self.tasks[task_id.0 as usize];
            task.state = TaskState::Running(prev_cpu);
            let weight = task.weight as u64;
            let rq = &mut self.rqs[prev_cpu.0 as usize];
            rq.nr_running += 1;
            rq.load_weight += weight;
            self.touch(prev_cpu);
            self.emit(
                waker_cpu,
                TraceKind::SchedWakeup,
                pid,
                prev_cpu.0,
                0,
                Reason::None,
            );
            return;
        }
        if let Some(waker) = waker {
            self.record_wakee(waker, task_id);
        }
        self.place_woken_task(task_id, waker_cpu, waker, sync);
    }

    /// The placement half of `try_to_wake_up()`: pick a CPU, move and enqueue the
    /// task there, and check for preemption.
    fn place_woken_task(
        &mut self,
        task_id: TaskId,
        waker_cpu: CpuId,
        waker: Option<TaskId>,
        sync: bool,
    ) {
        let pid = self.tasks[task_id.0 as usize].pid.0;
        let (target, reason) = self.select_task_rq_wake(task_id, waker_cpu, waker, sync);
        self.set_task_cpu(task_id, target, reason);
        self.lock_rq(target, waker_cpu);
        let min_vruntime = self.rqs[target.0 as usize].min_vruntime;
        let task = &mut self.tasks[task_id.0 as usize];
        task.vruntime = self.knobs.place_woken(task.vruntime, min_vruntime);
        task.woken_at = Some(self.now);
        self.metrics.wakeups += 1;
        if self.task_throttled(task_id) {
            // Its cgroup is out of quota: it waits on the throttled cfs_rq.
            self.tasks[task_id.0 as usize].state = TaskState::Throttled(target);
            self.emit(waker_cpu, TraceKind::SchedWakeup, pid, target.0, 0, reason);
            return;
        }
        self.enqueue_task(task_id, target);
        self.emit(waker_cpu, TraceKind::SchedWakeup, pid, target.0, 0, reason);
        self.check_preempt_curr(target, task_id);
    }

    /// `check_preempt_wakeup()`: preempt when the current task's vruntime is ahead of
    /// the woken task's by more than the (weighted) wakeup granularity.
    pub(crate) fn check_preempt_curr(&mut self, cpu: CpuId, woken: TaskId) {
        let Some(curr) = self.rqs[cpu.0 as usize].curr else {
            let state = &mut self.cpus[cpu.0 as usize];
            if !state.leaving_idle && !state.need_resched {
                state.leaving_idle = true;
                let at = self.now + SimTime(self.costs.idle_exit_latency_ns);
                self.queue.push(at, Event::IdleExit(cpu));
            }
            return;
        };
        if self.tasks[curr.0 as usize].state != TaskState::Running(cpu) {
            return; // a switch is already pending
        }
        self.update_curr(cpu);
        let curr_vruntime = self.tasks[curr.0 as usize].vruntime;
        let woken_task = &self.tasks[woken.0 as usize];
        let gran = self.knobs.wakeup_gran(woken_task.weight);
        if curr_vruntime > woken_task.vruntime + gran {
            let woken_pid = woken_task.pid.0;
            self.request_resched(cpu, Reason::WakeupPreempt { woken_pid });
        }
    }

    pub(crate) fn cpu_is_idle(&self, cpu: CpuId) -> bool {
        let rq = &self.rqs[cpu.0 as usize];
        rq.curr.is_none() && rq.nr_running == 0
    }

    // ----- Scheduling -------------------------------------------------------

    pub(crate) fn request_resched_for_bandwidth(&mut self, cpu: CpuId) {
        self.request_resched(cpu, Reason::Throttled);
    }

    pub(crate) fn push_event(&mut self, time: SimTime, event: Event) {
        self.queue.push(time, event);
    }

    /// Takes a waiting (not running) task off its runqueue.
    pub(crate) fn dequeue_queued(&mut self, task_id: TaskId, cpu: CpuId) {
        let task = &self.tasks[task_id.0 as usize];
        let (vruntime, weight) = (task.vruntime, task.weight);
        let rq = &mut self.rqs[cpu.0 as usize];
        rq.remove(vruntime, task_id);
        rq.nr_running -= 1;
        rq.load_weight -= weight as u64;
        self.touch(cpu);
    }

    fn request_resched(&mut self, cpu: CpuId, reason: Reason) {
        let state = &mut self.cpus[cpu.0 as usize];
        if !state.need_resched {
            state.need_resched = true;
            state.resched_reason = Some(reason);
            self.resched_queue.push_back(cpu);
        }
    }

    fn drain_resched(&mut self) {
        self.apply_pending_throttles();
        while let Some(cpu) = self.resched_queue.pop_front() {
            self.cpus[cpu.0 as usize].need_resched = false;
            let reason = self.cpus[cpu.0 as usize]
                .resched_reason
                .take()
                .unwrap_or(Reason::None);
            self.schedule(cpu, reason);
        }
    }

    /// `__schedule()`: put the previous task back (if still runnable), pick the
    /// leftmost task (pulling one in `newidle_balance` if there is none), switch.
    fn schedule(&mut self, cpu: CpuId, reason: Reason) {
        let cpu_idx = cpu.0 as usize;
        self.lock_rq(cpu, cpu);
        let prev = self.rqs[cpu_idx].curr;
        let mut prev_state_code = PREV_STATE_RUNNING;
        if let Some(prev_id) = prev {
            self.update_curr(cpu);
            let prev_task = &mut self.tasks[prev_id.0 as usize];
            match prev_task.state {
                TaskState::Running(_) => {
                    prev_task.state = TaskState::Queued(cpu);
                    let vruntime = prev_task.vruntime;
                    self.rqs[cpu_idx].insert(vruntime, prev_id);
                }
                TaskState::Exited => prev_state_code = PREV_STATE_DEAD,
                TaskState::Throttled(_) => prev_state_code = PREV_STATE_RUNNING,
                _ => prev_state_code = PREV_STATE_SLEEPING,
            }
        }
        self.rqs[cpu_idx].curr = None;
        if self.rqs[cpu_idx].leftmost().is_none() && self.policy.newidle_balance {
            self.newidle_balance(cpu);
        }
        let next = self.rqs[cpu_idx].leftmost().map(|(_, task)| task);
        if let Some(next_id) = next {
            let vruntime = self.tasks[next_id.0 as usize].vruntime;
            self.rqs[cpu_idx].remove(vruntime, next_id);
        }
        self.rqs[cpu_idx].curr = next;
        self.touch(cpu);
        self.refresh_memory_bound(cpu);
        let curr_vruntime = next.map(|task| self.tasks[task.0 as usize].vruntime);
        self.rqs[cpu_idx].update_min_vruntime(curr_vruntime);
        self.cpus[cpu_idx].run_gen += 1;
        let now = self.now;
        if let Some(prev_id) = prev {
            if prev != next {
                self.tasks[prev_id.0 as usize].pelt.update(now, true);
            }
        }
        let was_busy = prev.is_some();
        let is_busy = next.is_some();
        if was_busy != is_busy {
            self.cpus[cpu_idx].pelt.update(now, was_busy);
            if is_busy {
                // Leaving idle: fold this idle period into avg_idle (`update_avg`).
                let idle_ns = (now - self.cpus[cpu_idx].idle_since).as_ns() as i64;
                let cap = (2 * self.knobs.sched_migration_cost_ns).max(1_000_000) as i64;
                let state = &mut self.cpus[cpu_idx];
                let avg = state.avg_idle_ns as i64;
                state.avg_idle_ns = (avg + (idle_ns - avg) / 8).clamp(0, cap) as u64;
            } else {
                self.cpus[cpu_idx].idle_since = now;
            }
            self.refresh_core_speed(cpu);
        }

        if prev == next {
            if let Some(task_id) = next {
                // The same task goes on running: no switch is traced.
                self.tasks[task_id.0 as usize].state = TaskState::Running(cpu);
                let task = &mut self.tasks[task_id.0 as usize];
                task.prev_sum_exec_runtime = task.sum_exec_runtime;
                let starts = task.charged_until;
                if starts > self.now {
                    // Still inside its switch-in: it starts when that is done.
                    let gen = self.cpus[cpu_idx].run_gen;
                    self.queue.push(starts, Event::SwitchDone { cpu, gen });
                } else {
                    self.resume(task_id, cpu);
                }
            }
            return;
        }

        let prev_pid = prev.map_or(0, |task| self.pid_of(task));
        let next_pid = next.map_or(0, |task| self.pid_of(task));
        // The switch is traced from the previous task's context.
        let record = TraceRecord {
            time: self.now,
            cpu: cpu.0,
            ctx_pid: prev_pid,
            kind: TraceKind::SchedSwitch,
            pid: prev_pid,
            arg0: next_pid,
            arg1: prev_state_code,
            reason: if prev.is_none() {
                Reason::LeftIdle
            } else {
                reason
            },
        };
        self.trace.push(record);
        self.metrics.context_switches += 1;

        match next {
            Some(task_id) => {
                if self.cpus[cpu_idx].busy_since.is_none() {
                    self.cpus[cpu_idx].busy_since = Some(self.now);
                }
                self.arm_tick(cpu);
                // The task runs once the switch (and any scheduler work owed) is done;
                // it is not charged for either.
                let overhead = std::mem::take(&mut self.cpus[cpu_idx].overhead_ns);
                let starts = self.now + SimTime(self.costs.context_switch_ns + overhead);
                self.note_cache_refill(task_id, cpu);
                let task = &mut self.tasks[task_id.0 as usize];
                task.pelt.update(self.now, false);
                task.state = TaskState::Running(cpu);
                task.prev_sum_exec_runtime = task.sum_exec_runtime;
                task.last_ran = starts;
                task.charged_until = starts;
                task.nr_switches += 1;
                if let Some(woken_at) = task.woken_at.take() {
                    if task.record_latency {
                        self.metrics.record_latency((starts - woken_at).as_ns());
                    }
                }
                let gen = self.cpus[cpu_idx].run_gen;
                self.queue.push(starts, Event::SwitchDone { cpu, gen });
            }
            None => {
                self.close_busy_interval(cpu);
                // Scheduler work done on the way to idle still kept the CPU busy.
                let overhead = std::mem::take(&mut self.cpus[cpu_idx].overhead_ns);
                self.metrics.busy_ns[cpu_idx] += overhead;
            }
        }
    }

    /// Continues the task that just got (or kept) the CPU.
    fn resume(&mut self, task_id: TaskId, cpu: CpuId) {
        let task = &mut self.tasks[task_id.0 as usize];
        match task.remaining_work {
            Some(work) => {
                let work = work + std::mem::take(&mut task.refill_debt_ns);
                task.remaining_work = Some(work);
                if self.refresh_memory_bound(cpu) {
                    return;
                }
                self.schedule_run_done(cpu, work);
            }
            None => self.advance_program(task_id, cpu),
        }
    }

    /// Queues the end of the current burst: `work` at the CPU's current speed.
    fn schedule_run_done(&mut self, cpu: CpuId, work: u64) {
        let state = &self.cpus[cpu.0 as usize];
        let (gen, speed) = (state.run_gen, state.speed_permille);
        self.queue.push(
            self.now + SimTime(wall_time_for(work, speed)),
            Event::RunDone { cpu, gen },
        );
    }

    /// A task about to run on `cpu` owes a cache refill if its data is warm elsewhere.
    fn note_cache_refill(&mut self, task_id: TaskId, cpu: CpuId) {
        let task = &self.tasks[task_id.0 as usize];
        let Some(warm) = task.warm_cpu else {
            self.tasks[task_id.0 as usize].warm_cpu = Some(cpu);
            return;
        };
        if warm == cpu || task.footprint_kib == 0 {
            return;
        }
        let cost = self
            .costs
            .refill_ns(task.footprint_kib, self.topology.distance(warm, cpu));
        let task = &mut self.tasks[task_id.0 as usize];
        task.refill_debt_ns += cost;
        task.warm_cpu = Some(cpu);
        self.metrics.cache_refill_ns += cost;
    }

    /// Recomputes the speed of `cpu`'s core after its busy state changed.
    fn refresh_core_speed(&mut self, cpu: CpuId) {
        if self.topology.shape.threads_per_core < 2 {
            return;
        }
        let core = self.topology.core_of(cpu);
        let threads: Vec<CpuId> = self.topology.core_cpus[core.0 as usize].iter().collect();
        for thread in threads {
            self.retime(thread);
        }
    }

    /// Updates whether `cpu` runs a memory-bound burst; when that changes, every
    /// memory-bound CPU of its node gets a new bandwidth share. Returns true when
    /// `cpu`'s own burst was (re)queued.
    fn refresh_memory_bound(&mut self, cpu: CpuId) -> bool {
        let cpu_idx = cpu.0 as usize;
        let now_bound = self.rqs[cpu_idx].curr.is_some_and(|task| {
            let task = &self.tasks[task.0 as usize];
            task.state == TaskState::Running(cpu) && task.run_memory_bound
        });
        if self.cpus[cpu_idx].memory_bound == now_bound {
            return false;
        }
        self.cpus[cpu_idx].memory_bound = now_bound;
        let node = self.topology.info(cpu).node.0 as usize;
        let neighbours: Vec<CpuId> = self.topology.node_cpus[node]
            .iter()
            .filter(|other| *other != cpu && self.cpus[other.0 as usize].memory_bound)
            .collect();
        for other in neighbours {
            self.retime(other);
        }
        self.retime(cpu)
    }

    /// The speed `cpu` runs at now, in permille: SMT sharing times its share of
    /// memory bandwidth (for a memory-bound burst).
    fn target_speed(&self, cpu: CpuId) -> u32 {
        let mut speed = self.costs.frequency_permille as u64;
        if self.topology.shape.threads_per_core > 1
            && self
                .topology
                .siblings(cpu)
                .any(|sibling| self.rqs[sibling.0 as usize].curr.is_some())
        {
            speed = speed * self.costs.smt_speed_permille as u64 / 1000;
        }
        if self.cpus[cpu.0 as usize].memory_bound {
            let demand_gbps = STREAM_THREAD_BYTES_PER_US / 1000.0;
            let info = self.topology.info(cpu);
            let count = |set: &crate::cpuset::CpuSet| {
                set.iter()
                    .filter(|other| self.cpus[other.0 as usize].memory_bound)
                    .count()
                    .max(1) as f64
            };
            let llc_share = self.costs.memory_llc_gbps as f64
                / (count(&self.topology.llc_cpus[info.llc.0 as usize]) * demand_gbps);
            let node_share = self.costs.memory_node_gbps as f64
                / (count(&self.topology.node_cpus[info.node.0 as usize]) * demand_gbps);
            let share = llc_share.min(node_share).min(1.0);
            speed = (speed as f64 * share) as u64;
        }
        speed.max(1) as u32
    }

    /// Applies `target_speed` to `cpu`: work done so far is charged at the old speed
    /// and a running burst is re-timed. Returns true when it queued the burst's end.
    fn retime(&mut self, cpu: CpuId) -> bool {
        let speed = self.target_speed(cpu);
        let cpu_idx = cpu.0 as usize;
        if self.cpus[cpu_idx].speed_permille == speed {
            return false;
        }
        self.update_curr(cpu);
        self.cpus[cpu_idx].speed_permille = speed;
        let Some(task_id) = self.rqs[cpu_idx].curr else {
            return false;
        };
        let task = &self.tasks[task_id.0 as usize];
        let in_burst = task.state == TaskState::Running(cpu) && task.charged_until <= self.now;
        match (in_burst, task.remaining_work) {
            (true, Some(work)) => {
                self.cpus[cpu_idx].run_gen += 1;
                self.schedule_run_done(cpu, work);
                true
            }
            _ => false,
        }
    }

    /// `record_wakee()`: count how often a waker switches between wakees; the count
    /// halves every second.
    fn record_wakee(&mut self, waker: TaskId, wakee: TaskId) {
        let now = self.now;
        let task = &mut self.tasks[waker.0 as usize];
        if now > task.wakee_flips_decayed_at + SimTime::from_ms(1000) {
            task.wakee_flips >>= 1;
            task.wakee_flips_decayed_at = now;
        }
        if task.last_wakee != Some(wakee) {
            task.last_wakee = Some(wakee);
            task.wakee_flips += 1;
        }
    }

    /// Utilisation of a CPU (PELT, 0..1024) as of now.
    pub fn cpu_util(&self, cpu: CpuId) -> f64 {
        let busy = self.rqs[cpu.0 as usize].curr.is_some();
        self.cpus[cpu.0 as usize].pelt.peek(self.now, busy)
    }

    /// Utilisation of a core: the sum over its SMT threads (0..1024 per thread).
    pub fn core_util(&self, core: crate::topology::CoreId) -> f64 {
        self.topology.core_cpus[core.0 as usize]
            .iter()
            .map(|cpu| self.cpu_util(cpu))
            .sum()
    }

    /// A task's utilisation (PELT) as of now.
    pub fn task_util(&self, task_id: TaskId) -> f64 {
        let task = &self.tasks[task_id.0 as usize];
        task.pelt
            .peek(self.now, matches!(task.state, TaskState::Running(_)))
    }

    /// Scheduler work done on `cpu`; paid before its next task runs.
    pub(crate) fn charge_overhead(&mut self, cpu: CpuId, ns: u64) {
        self.cpus[cpu.0 as usize].overhead_ns += ns;
        self.metrics.sched_overhead_ns += ns;
    }

    fn switch_done(&mut self, cpu: CpuId, gen: u64) {
        if self.cpus[cpu.0 as usize].run_gen != gen {
            return;
        }
        if let Some(task_id) = self.rqs[cpu.0 as usize].curr {
            if self.tasks[task_id.0 as usize].state == TaskState::Running(cpu) {
                self.resume(task_id, cpu);
            }
        }
    }

    fn run_done(&mut self, cpu: CpuId, gen: u64) {
        if self.cpus[cpu.0 as usize].run_gen != gen {
            return;
        }
        let Some(task_id) = self.rqs[cpu.0 as usize].curr else {
            return;
        };
        self.update_curr(cpu);
        self.tasks[task_id.0 as usize].remaining_work = None;
        if self.tasks[task_id.0 as usize].run_memory_bound {
            self.tasks[task_id.0 as usize].run_memory_bound = false;
            self.refresh_memory_bound(cpu);
        }
        self.advance_program(task_id, cpu);
    }

    fn arm_tick(&mut self, cpu: CpuId) {
        let state = &mut self.cpus[cpu.0 as usize];
        if state.tick_armed {
            return;
        }
        state.tick_armed = true;
        let tick = self.knobs.tick_ns();
        let next = (self.now.as_ns() / tick + 1) * tick;
        self.queue.push(SimTime(next), Event::Tick(cpu));
    }

    /// `scheduler_tick()` → `check_preempt_tick()`: resched when the current task has
    /// run past its slice, or is more than a slice ahead of the leftmost task.
    fn scheduler_tick(&mut self, cpu: CpuId) {
        let cpu_idx = cpu.0 as usize;
        let Some(curr) = self.rqs[cpu_idx].curr else {
            // Idle: the tick stops (NOHZ idle) until the CPU is busy again.
            self.cpus[cpu_idx].tick_armed = false;
            return;
        };
        let tick = self.knobs.tick_ns();
        self.queue.push(self.now + SimTime(tick), Event::Tick(cpu));
        if self.policy.periodic_balance {
            self.rebalance_domains(cpu, false);
            if self.now >= self.last_nohz_balance + SimTime(tick) {
                self.last_nohz_balance = self.now;
                self.nohz_idle_balance();
            }
        }
        if self.tasks[curr.0 as usize].state != TaskState::Running(cpu) {
            return;
        }
        self.lock_rq(cpu, cpu);
        self.update_curr(cpu);
        let rq = &self.rqs[cpu_idx];
        if rq.nr_running <= 1 {
            return;
        }
        let task = &self.tasks[curr.0 as usize];
        let ideal = self
            .knobs
            .sched_slice(rq.nr_running, task.weight, rq.load_weight);
        let ran = task.sum_exec_runtime - task.prev_sum_exec_runtime;
        let reason = Reason::SliceExpired {
            ran_us: (ran / 1_000) as u32,
            slice_us: (ideal / 1_000) as u32,
        };
        if ran > ideal {
            self.request_resched(cpu, reason);
            return;
        }
        if ran < self.knobs.sched_min_granularity_ns {
            return;
        }
        if let Some((left_vruntime, _)) = rq.leftmost() {
            if task.vruntime > left_vruntime && task.vruntime - left_vruntime > ideal {
                self.request_resched(cpu, reason);
            }
        }
    }

    // ----- Behaviour programs ----------------------------------------------

    /// Runs the task's program from its current position until it needs CPU time,
    /// sleeps, blocks or exits.
    fn advance_program(&mut self, task_id: TaskId, cpu: CpuId) {
        let tidx = task_id.0 as usize;
        let program_idx = self.tasks[tidx].program;
        // Guard against a loop that draws zero-length runs forever.
        let mut steps_without_time = 0u32;
        loop {
            let pc = self.tasks[tidx].pc;
            let Some(instr) = self.programs[program_idx].instrs.get(pc).cloned() else {
                self.exit_task(task_id, cpu);
                return;
            };
            self.tasks[tidx].pc = pc + 1;
            steps_without_time += 1;
            match instr {
                Instr::Run(dist, memory_bound) => {
                    let mut work = dist.sample_ns(&mut self.rng);
                    if work == 0 && steps_without_time > 10_000 {
                        work = 1_000;
                    }
                    if work == 0 {
                        continue;
                    }
                    let work = work + std::mem::take(&mut self.tasks[tidx].refill_debt_ns);
                    self.tasks[tidx].remaining_work = Some(work);
                    self.tasks[tidx].run_memory_bound = memory_bound;
                    // A memory-bound run sets this CPU's speed (and its neighbours');
                    // if that already timed the run, it is queued.
                    if memory_bound && self.refresh_memory_bound(cpu) {
                        return;
                    }
                    self.schedule_run_done(cpu, work);
                    return;
                }
                Instr::Sleep(dist) => {
                    let duration = dist.sample_ns(&mut self.rng);
                    self.dequeue_curr(task_id, cpu, TaskState::Sleeping);
                    self.queue
                        .push(self.now + SimTime(duration), Event::TimerWake(task_id));
                    return;
                }
                Instr::Wait(channel) => {
                    let chan = &mut self.channels[channel.0 as usize];
                    if chan.tokens > 0 {
                        chan.tokens -= 1;
                        continue;
                    }
                    chan.waiters.push_back(task_id);
                    self.dequeue_curr(task_id, cpu, TaskState::Blocked);
                    return;
                }
                Instr::Post(channel, count, sync) => {
                    for _ in 0..count {
                        match self.channels[channel.0 as usize].waiters.pop_front() {
                            Some(waiter) => self.try_to_wake_up(waiter, cpu, Some(task_id), sync),
                            None => self.channels[channel.0 as usize].tokens += 1,
                        }
                    }
                }
                Instr::WakeAll(channel) => {
                    let waiters: Vec<TaskId> = self.channels[channel.0 as usize]
                        .waiters
                        .drain(..)
                        .collect();
                    for waiter in waiters {
                        self.try_to_wake_up(waiter, cpu, Some(task_id), false);
                    }
                }
                Instr::Reset(channel) => self.channels[channel.0 as usize].tokens = 0,
                Instr::Barrier(channel, parties, label) => {
                    let chan = &mut self.channels[channel.0 as usize];
                    if chan.tokens + 1 < parties as u64 {
                        chan.tokens += 1;
                        chan.waiters.push_back(task_id);
                        self.dequeue_curr(task_id, cpu, TaskState::Blocked);
                        return;
                    }
                    // The last to arrive: the phase is over, everyone goes on.
                    let phase = (self.now - chan.last_release).as_ns();
                    chan.tokens = 0;
                    chan.last_release = self.now;
                    let waiters: Vec<TaskId> = chan.waiters.drain(..).collect();
                    let group = self.tasks[tidx].group as usize;
                    if let Some(best) = self.workloads[group].best_phase_ns.get_mut(label as usize)
                    {
                        *best = Some(best.map_or(phase, |known| known.min(phase)));
                    }
                    for waiter in waiters {
                        self.try_to_wake_up(waiter, cpu, Some(task_id), false);
                    }
                }
                Instr::SetAffinity(cpus) => {
                    let n_cpus = self.topology.n_cpus();
                    let mask = CpuSet::from_cpus(
                        n_cpus,
                        cpus.iter()
                            .filter(|cpu| (**cpu as usize) < n_cpus)
                            .map(|cpu| CpuId(*cpu)),
                    );
                    if mask.is_empty() {
                        continue; // the kernel refuses an empty mask (EINVAL)
                    }
                    let must_move = !mask.contains(cpu);
                    self.tasks[tidx].affinity = mask;
                    if must_move {
                        // set_cpus_allowed_ptr(): the running task is pushed off this
                        // CPU and placed again as if woken.
                        self.dequeue_curr(task_id, cpu, TaskState::Blocked);
                        self.place_woken_task(task_id, cpu, None, false);
                        return;
                    }
                }
                Instr::Complete => {
                    let group = self.tasks[tidx].group as usize;
                    self.metrics.completed[group] += 1;
                }
                Instr::LoopStart { count, end } => {
                    if count == Some(0) {
                        self.tasks[tidx].pc = end + 1;
                    } else {
                        self.tasks[tidx].loops.push(LoopFrame {
                            start: pc,
                            remaining: count,
                        });
                    }
                }
                Instr::LoopEnd { start } => {
                    let task = &mut self.tasks[tidx];
                    let frame = task.loops.last_mut().expect("loop end without start");
                    match frame.remaining.as_mut() {
                        None => task.pc = start + 1,
                        Some(remaining) => {
                            *remaining -= 1;
                            if *remaining == 0 {
                                task.loops.pop();
                            } else {
                                task.pc = start + 1;
                            }
                        }
                    }
                }
            }
        }
    }

    fn exit_task(&mut self, task_id: TaskId, cpu: CpuId) {
        let pid = self.pid_of(task_id);
        self.emit(cpu, TraceKind::SchedProcessExit, pid, 0, 0, Reason::None);
        self.dequeue_curr(task_id, cpu, TaskState::Exited);
        let group = self.tasks[task_id.0 as usize].group as usize;
        let workload = &mut self.workloads[group];
        workload.alive -= 1;
        if workload.alive == 0 {
            workload.finished_at = Some(self.now);
            if self.workloads.iter().all(|workload| workload.alive == 0) {
                // Every task has exited: the run is over.
                self.queue.push(self.now, Event::End);
            }
        }
    }

    /// Adds the work-conservation gap accumulated since the last event: CPU time
    /// idle while tasks waited on another runqueue of the same LLC (and anywhere).
    fn integrate_gap(&mut self, until: SimTime) {
        let elapsed = (until - self.gap_integrated_to).as_ns();
        self.gap_integrated_to = until;
        if elapsed == 0 {
            return;
        }
        let mut idle_total = 0u64;
        let mut waiting_total = 0u64;
        for (idle, waiting) in self.llc_idle.iter().zip(&self.llc_waiting) {
            idle_total += *idle as u64;
            waiting_total += *waiting as u64;
            self.metrics.idle_while_runnable_llc_ns += elapsed * (*idle).min(*waiting) as u64;
        }
        self.metrics.idle_while_runnable_machine_ns += elapsed * idle_total.min(waiting_total);
    }

    /// Refreshes the cached idle/waiting figures of `cpu` after its runqueue changed.
    pub(crate) fn touch(&mut self, cpu: CpuId) {
        let cpu_idx = cpu.0 as usize;
        let idle = self.cpu_is_idle(cpu);
        // Waiting means queued behind a running task (not on a CPU about to run it).
        let waiting = if self.rqs[cpu_idx].curr.is_some() {
            self.rqs[cpu_idx].queued.len() as u32
        } else {
            0
        };
        let llc = self.topology.llc_of(cpu).0 as usize;
        let state = &mut self.cpus[cpu_idx];
        if state.counted_idle != idle {
            if idle {
                self.llc_idle[llc] += 1;
            } else {
                self.llc_idle[llc] -= 1;
            }
            state.counted_idle = idle;
        }
        if state.counted_waiting != waiting {
            self.llc_waiting[llc] = self.llc_waiting[llc] + waiting - state.counted_waiting;
            state.counted_waiting = waiting;
        }
    }

    /// Takes `cpu`'s runqueue lock from `by`: the spin and the hold are `by`'s overhead.
    pub(crate) fn lock_rq(&mut self, cpu: CpuId, by: CpuId) {
        let hold = self.costs.rq_lock_hold_ns;
        let cost = self.rq_locks[cpu.0 as usize].acquire(
            self.now,
            by,
            hold,
            &self.topology,
            &mut self.rq_lock_stat,
        );
        self.charge_overhead(by, cost);
    }

    // ----- Views for the CLI and the UI -------------------------------------

    /// Per CPU: the pid running there (0 when idle) and the number of runnable tasks.
    pub fn cpu_frame(&self, running_pid: &mut [u32], nr_running: &mut [u32]) {
        for (cpu_idx, rq) in self.rqs.iter().enumerate() {
            running_pid[cpu_idx] = rq
                .curr
                .filter(|task| {
                    self.tasks[task.0 as usize].state == TaskState::Running(CpuId(cpu_idx as u32))
                })
                .map_or(0, |task| self.pid_of(task));
            nr_running[cpu_idx] = rq.nr_running;
        }
    }

    /// Throughput of each workload, in its benchmark's own unit(s).
    pub fn throughputs(&self) -> Vec<(String, Vec<Throughput>)> {
        let elapsed_s = self.now.as_ns() as f64 / 1e9;
        let rate = |completed: u64| {
            if elapsed_s > 0.0 {
                completed as f64 / elapsed_s
            } else {
                0.0
            }
        };
        self.workloads
            .iter()
            .zip(&self.metrics.completed)
            .map(|(workload, completed)| {
                let values = match &workload.throughput {
                    ThroughputKind::Rate { unit } => vec![Throughput {
                        unit: unit.clone(),
                        value: rate(*completed),
                    }],
                    ThroughputKind::CompletionTime { fallback_unit } => {
                        match workload.finished_at {
                            Some(at) => vec![Throughput {
                                unit: "s".into(),
                                value: at.as_ns() as f64 / 1e9,
                            }],
                            None => vec![Throughput {
                                unit: fallback_unit.clone(),
                                value: rate(*completed),
                            }],
                        }
                    }
                    ThroughputKind::StreamPhases { bytes_per_phase } => bytes_per_phase
                        .iter()
                        .map(|(label, bytes)| {
                            let best = workload
                                .phase_labels
                                .iter()
                                .position(|known| known == label)
                                .and_then(|idx| workload.best_phase_ns[idx]);
                            Throughput {
                                unit: format!("MB/s {label}"),
                                value: best
                                    .map_or(0.0, |ns| *bytes as f64 * 1000.0 / ns.max(1) as f64),
                            }
                        })
                        .collect(),
                };
                (workload.label.clone(), values)
            })
            .collect()
    }

    pub fn summary(&self, scenario_name: &str) -> RunSummary {
        let by_workload = self.throughputs();
        let throughput = by_workload
            .first()
            .and_then(|(_, values)| values.first().cloned())
            .unwrap_or(Throughput {
                unit: "ops/s".into(),
                value: 0.0,
            });
        let busy: u64 = self.busy_ns().iter().sum();
        let capacity = self.now.as_ns() as f64 * self.topology.n_cpus() as f64;
        RunSummary {
            scenario: scenario_name.to_string(),
            seed: self.seed,
            sim_time_ns: self.now.as_ns(),
            events: self.events,
            trace_events: self.trace.total,
            trace_hash: self.trace.hash_hex(),
            wakeup_latency_us: self.metrics.latency_percentiles(),
            throughput,
            throughput_by_workload: by_workload
                .into_iter()
                .map(|(workload, values)| WorkloadThroughput { workload, values })
                .collect(),
            utilization: if capacity > 0.0 {
                busy as f64 / capacity
            } else {
                0.0
            },
            idle_while_runnable_ns: IdleWhileRunnable {
                llc: self.metrics.idle_while_runnable_llc_ns,
                machine: self.metrics.idle_while_runnable_machine_ns,
            },
            context_switches: self.metrics.context_switches,
            wakeups: self.metrics.wakeups,
            migrations: self.metrics.migrations.clone(),
            locks: vec![self.rq_lock_stat.clone()],
            avg_freq_mhz: self.costs.frequency_mhz as f64,
            cache_refill_ns: self.metrics.cache_refill_ns,
            sched_overhead_ns: self.metrics.sched_overhead_ns,
            bandwidth: self.bandwidth.clone(),
        }
    }

    /// Checks the model's bookkeeping: every task is in exactly one place, and the
    /// runqueues' counts and weights match their contents. Used by property tests.
    pub fn check_invariants(&self) -> Result<(), String> {
        let mut seen = vec![0u32; self.tasks.len()];
        for (cpu_idx, rq) in self.rqs.iter().enumerate() {
            let cpu = CpuId(cpu_idx as u32);
            let mut count = 0u32;
            let mut weight = 0u64;
            for (vruntime, task_id) in &rq.queued {
                let task = &self.tasks[task_id.0 as usize];
                if task.state != TaskState::Queued(cpu) {
                    return Err(format!(
                        "pid {} in CPU {cpu_idx}'s tree but {:?}",
                        task.pid.0, task.state
                    ));
                }
                if task.vruntime != *vruntime {
                    return Err(format!("pid {} keyed with a stale vruntime", task.pid.0));
                }
                seen[task_id.0 as usize] += 1;
                count += 1;
                weight += task.weight as u64;
            }
            if let Some(curr) = rq.curr {
                let task = &self.tasks[curr.0 as usize];
                if task.state == TaskState::Running(cpu) {
                    seen[curr.0 as usize] += 1;
                    count += 1;
                    weight += task.weight as u64;
                }
            }
            if count != rq.nr_running || weight != rq.load_weight {
                return Err(format!(
                    "CPU {cpu_idx}: nr_running {} / load {} but holds {count} tasks / {weight}",
                    rq.nr_running, rq.load_weight
                ));
            }
        }
        for (idx, task) in self.tasks.iter().enumerate() {
            let expected = u32::from(task.is_runnable());
            if seen[idx] != expected {
                return Err(format!(
                    "pid {} ({:?}) found {} times on runqueues",
                    task.pid.0, task.state, seen[idx]
                ));
            }
        }
        for (cpu_idx, rq) in self.rqs.iter().enumerate() {
            let state = &self.cpus[cpu_idx];
            if rq.curr.is_none()
                && !rq.queued.is_empty()
                && !state.leaving_idle
                && !state.need_resched
            {
                return Err(format!(
                    "CPU {cpu_idx} is idle with {} tasks queued and nothing will make it schedule",
                    rq.queued.len()
                ));
            }
        }
        for channel in &self.channels {
            for waiter in &channel.waiters {
                if self.tasks[waiter.0 as usize].state != TaskState::Blocked {
                    return Err("a channel holds a waiter that is not blocked".into());
                }
            }
        }
        Ok(())
    }
}

impl WorkloadInfo {
    /// The unit a live rate of completed work is shown in.
    pub fn rate_unit(&self) -> String {
        match &self.throughput {
            ThroughputKind::Rate { unit } => unit.clone(),
            ThroughputKind::CompletionTime { fallback_unit } => fallback_unit.clone(),
            ThroughputKind::StreamPhases { .. } => "phases/s".into(),
        }
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

fn offset_channels(program: Program, base: u32) -> Program {
    let shift = |channel: ChannelId| ChannelId(channel.0 + base);
    Program {
        instrs: program
            .instrs
            .into_iter()
            .map(|instr| match instr {
                Instr::Wait(channel) => Instr::Wait(shift(channel)),
                Instr::Post(channel, count, sync) => Instr::Post(shift(channel), count, sync),
                Instr::Barrier(channel, parties, label) => {
                    Instr::Barrier(shift(channel), parties, label)
                }
                Instr::WakeAll(channel) => Instr::WakeAll(shift(channel)),
                Instr::Reset(channel) => Instr::Reset(shift(channel)),
                other => other,
            })
            .collect(),
    }
}
