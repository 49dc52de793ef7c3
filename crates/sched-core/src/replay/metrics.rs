//! Replay metrics: what a parsed trace says about the scheduler's work, rebuilt event
//! by event per CPU: who runs, who waits, how long a woken task waited to run, where
//! tasks moved and how busy each CPU was.

use super::parse::{Event, EventData, EventKind, ParsedTrace};
use crate::metrics::{LatencyPercentiles, Metrics, MigrationCounts};
use crate::topology::{CpuId, MachineShape, Numbering, Topology};
use std::collections::{BTreeMap, BTreeSet, HashMap};

/// Where the migration counts come from.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum MigrationSource {
    /// The trace has `sched_migrate_task` events: they are counted.
    MigrateEvents,
    /// No `sched_migrate_task` in the trace: a task switching in on another CPU than
    /// the one it last ran on counts as a migration.
    Inferred,
}

impl MigrationSource {
    /// Where a parsed trace's migrations come from.
    pub fn of(parsed: &ParsedTrace) -> MigrationSource {
        if parsed
            .report
            .events
            .contains_key(EventKind::SchedMigrateTask.name())
        {
            MigrationSource::MigrateEvents
        } else {
            MigrationSource::Inferred
        }
    }

    pub fn name(self) -> &'static str {
        match self {
            MigrationSource::MigrateEvents => "sched_migrate_task",
            MigrationSource::Inferred => "inferred",
        }
    }
}

#[derive(Clone, Debug, PartialEq)]
pub struct ReplayMigrations {
    pub counts: MigrationCounts,
    /// Migrations between CPUs the topology does not have.
    pub unclassified: u64,
    pub source: MigrationSource,
}

impl ReplayMigrations {
    pub fn total(&self) -> u64 {
        self.counts.total() + self.unclassified
    }
}

/// One CPU over the trace.
#[derive(Clone, Debug, PartialEq)]
pub struct CpuReplay {
    pub cpu: u32,
    /// From the CPU's first scheduler event line to the trace's last event line.
    pub window_ns: u64,
    /// Time a task other than idle (pid 0) ran, within the window.
    pub busy_ns: u64,
    /// `busy_ns` over `window_ns`; unknown (`None`) in a log with no `sched_switch`
    /// line at all, where what ran between the lines cannot be told.
    pub utilization: Option<f64>,
    /// `sched_switch` events on this CPU.
    pub switches: u64,
    /// Runnable tasks waiting (not running) on this CPU: the most at once, and the
    /// time-weighted mean over the window.
    pub max_waiting: u32,
    pub mean_waiting: f64,
}

/// One CPU's frequency and idle states, from `cpu_frequency` and `cpu_idle`, each
/// from its first such event to the trace's end.
#[derive(Clone, Debug, PartialEq)]
pub struct CpuPowerReplay {
    pub cpu: u32,
    /// `cpu_frequency`: the changes, and the time-weighted mean, the lowest and the
    /// highest frequency (MHz). `None` without any.
    pub frequency: Option<FrequencyReplay>,
    /// `cpu_idle`: `None` without any.
    pub idle: Option<IdleReplay>,
}

#[derive(Clone, Debug, PartialEq)]
pub struct FrequencyReplay {
    pub changes: u64,
    pub mean_mhz: f64,
    pub min_mhz: f64,
    pub max_mhz: f64,
}

#[derive(Clone, Debug, PartialEq)]
pub struct IdleReplay {
    /// Entries into an idle state.
    pub entries: u64,
    /// Time in each idle state (ns), by the driver's state index (0 the shallowest).
    pub state_ns: Vec<u64>,
    /// Time out of idle (ns), from the first `cpu_idle` on.
    pub active_ns: u64,
}

/// `sched_stat_runtime`: the runtime the kernel itself charged to tasks.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct StatRuntimeReplay {
    pub events: u64,
    /// The sum of `runtime`, all tasks.
    pub total_ns: u64,
    /// The sum by pid.
    pub by_pid: BTreeMap<u32, u64>,
}

/// What the replay rebuilt.
#[derive(Clone, Debug, PartialEq)]
pub struct ReplayMetrics {
    /// Last event time minus first, over every event line (other events included).
    pub span_ns: u64,
    /// Wakeups (`sched_wakeup`, `sched_wakeup_new`) of tasks that were not running
    /// nor already runnable; `success=0` ones excluded.
    pub wakeups: u64,
    /// Wakeup to the task's next switch-in, in µs.
    pub wakeup_latency_us: LatencyPercentiles,
    /// Wakeups whose task never switched in before the trace ended.
    pub unmatched_wakeups: u64,
    /// Wakeups of a task that was running or already runnable (no latency sample).
    pub wakeups_of_runnable: u64,
    pub switches: u64,
    pub migrations: ReplayMigrations,
    pub cpus: Vec<CpuReplay>,
    /// Busy time over window time, all CPUs together; unknown (`None`) in a log with
    /// no `sched_switch` line (a CPU's lines show only who ran at those instants).
    pub utilization: Option<f64>,
    /// Switches whose `prev_pid` was not the task the replay had running on that CPU
    /// (lost events, or a trace that starts mid-way): the count and the first lines.
    pub inconsistencies: u64,
    pub inconsistent_lines: Vec<u64>,
    /// The machine the migrations were classed on.
    pub topology_name: String,
    /// Per CPU named by a `cpu_frequency` or `cpu_idle` event, in CPU order.
    pub power: Vec<CpuPowerReplay>,
    pub stat_runtime: StatRuntimeReplay,
}

/// A flat machine (one socket, one LLC, one thread per core) with CPUs `0..=max`
/// of the CPUs seen: every migration is then `llc`.
pub fn flat_topology(cpus: &BTreeSet<u32>) -> Topology {
    let count = cpus.iter().next_back().map(|max| max + 1).unwrap_or(1);
    Topology::build(MachineShape {
        name: "flat".into(),
        sockets: 1,
        numa_nodes_per_socket: 1,
        llcs_per_socket: 1,
        cores_per_llc: count,
        threads_per_core: 1,
        numbering: Numbering::Adjacent,
        cpu_ids: None,
    })
}

#[derive(Clone, Copy, Debug, Default)]
struct TaskState {
    running_on: Option<u32>,
    queued_on: Option<u32>,
    woken_at: Option<u64>,
    last_ran_on: Option<u32>,
}

/// One CPU's frequency and idle state as the log's `cpu_frequency` and `cpu_idle`
/// events leave them, with the time spent in each.
#[derive(Clone, Debug, Default)]
struct PowerState {
    /// `(kHz, since)`.
    khz: Option<(u64, u64)>,
    khz_first: u64,
    khz_integral: u128,
    min_khz: u64,
    max_khz: u64,
    changes: u64,
    /// `(state, since)`: `None` out of idle.
    idle: Option<(Option<u32>, u64)>,
    idle_entries: u64,
    state_ns: Vec<u64>,
    active_ns: u64,
}

impl PowerState {
    fn frequency(&mut self, ts: u64, khz: u64) {
        match self.khz {
            Some((old, since)) => {
                self.khz_integral += u128::from(old) * u128::from(ts.saturating_sub(since));
                self.min_khz = self.min_khz.min(khz);
                self.max_khz = self.max_khz.max(khz);
            }
            None => {
                self.khz_first = ts;
                self.min_khz = khz;
                self.max_khz = khz;
            }
        }
        self.changes += 1;
        self.khz = Some((khz, ts));
    }

    fn idle(&mut self, ts: u64, state: Option<u32>) {
        self.spend_idle(ts);
        if state.is_some() {
            self.idle_entries += 1;
        }
        self.idle = Some((state, ts));
    }

    /// Adds the time since the last `cpu_idle` to the state it left the CPU in.
    fn spend_idle(&mut self, ts: u64) {
        if let Some((old, since)) = self.idle {
            let spent = ts.saturating_sub(since);
            match old {
                Some(index) => {
                    let index = index as usize;
                    if self.state_ns.len() <= index {
                        self.state_ns.resize(index + 1, 0);
                    }
                    self.state_ns[index] += spent;
                }
                None => self.active_ns += spent,
            }
            self.idle = Some((old, ts));
        }
    }

    fn finish(&mut self, cpu: u32, end: u64) -> CpuPowerReplay {
        let frequency = self.khz.map(|(khz, since)| {
            self.khz_integral += u128::from(khz) * u128::from(end.saturating_sub(since));
            let window = end.saturating_sub(self.khz_first);
            let mean_khz = if window == 0 {
                khz as f64
            } else {
                self.khz_integral as f64 / window as f64
            };
            FrequencyReplay {
                changes: self.changes,
                mean_mhz: mean_khz / 1e3,
                min_mhz: self.min_khz as f64 / 1e3,
                max_mhz: self.max_khz as f64 / 1e3,
            }
        });
        let idle = self.idle.map(|_| {
            self.spend_idle(end);
            IdleReplay {
                entries: self.idle_entries,
                state_ns: self.state_ns.clone(),
                active_ns: self.active_ns,
            }
        });
        CpuPowerReplay {
            cpu,
            frequency,
            idle,
        }
    }
}

#[derive(Clone, Debug, Default)]
pub(crate) struct CpuState {
    /// The first time anything touched this CPU, and the first event line on it.
    touched_at: Option<u64>,
    first_line_at: Option<u64>,
    /// `Some((pid, since))` once known; pid 0 is idle.
    pub(crate) current: Option<(u32, u64)>,
    pub(crate) busy_ns: u64,
    switches: u64,
    pub(crate) waiting: u32,
    max_waiting: u32,
    waiting_since: u64,
    waiting_integral: u128,
}

impl CpuState {
    fn touch(&mut self, ts: u64) {
        if self.touched_at.is_none() {
            self.touched_at = Some(ts);
            self.waiting_since = ts;
        }
    }

    fn set_waiting(&mut self, ts: u64, waiting: u32) {
        self.touch(ts);
        let since = self.waiting_since.min(ts);
        self.waiting_integral += u128::from(self.waiting) * u128::from(ts - since);
        self.waiting_since = ts;
        self.waiting = waiting;
        self.max_waiting = self.max_waiting.max(waiting);
    }
}

/// What a step of the replay changed, for a front end that plays the log (the
/// [`super::player::LogPlayer`]); [`replay`] passes `()`, which ignores it all.
pub(crate) trait ReplayHooks {
    /// `pid` started waiting on `cpu` (`added`) or stopped waiting there; `waiting`
    /// is the CPU's count after the change. `ts` is the trace's clock.
    fn queue_changed(&mut self, _ts: u64, _cpu: u32, _pid: u32, _added: bool, _waiting: u32) {}
    /// A migration as the replay counts it (a `sched_migrate_task`, or a switch-in
    /// on another CPU than the task last ran on when the log has none).
    fn moved(&mut self, _ts: u64, _pid: u32, _from: u32, _to: u32) {}
}

impl ReplayHooks for () {}

#[derive(Clone, Debug)]
pub(crate) struct Replayer {
    pub(crate) cpus: Vec<CpuState>,
    tasks: HashMap<u32, TaskState>,
    pub(crate) latency: Metrics,
    pub(crate) wakeups: u64,
    wakeups_of_runnable: u64,
    pub(crate) switches: u64,
    pub(crate) migrations: MigrationCounts,
    unclassified: u64,
    inconsistencies: u64,
    inconsistent_lines: Vec<u64>,
    /// By CPU, for the CPUs `cpu_frequency` and `cpu_idle` name.
    power: BTreeMap<u32, PowerState>,
    stat_runtime: StatRuntimeReplay,
}

impl Replayer {
    fn cpu(&mut self, cpu: u32) -> &mut CpuState {
        let idx = cpu as usize;
        if idx >= self.cpus.len() {
            self.cpus.resize_with(idx + 1, CpuState::default);
        }
        &mut self.cpus[idx]
    }

    fn enqueue(&mut self, ts: u64, pid: u32, cpu: u32, hooks: &mut dyn ReplayHooks) {
        let previous = self.tasks.entry(pid).or_default().queued_on;
        if previous == Some(cpu) {
            return;
        }
        if let Some(old) = previous {
            self.dequeue(ts, pid, old, hooks);
        }
        self.tasks.entry(pid).or_default().queued_on = Some(cpu);
        let state = self.cpu(cpu);
        let waiting = state.waiting + 1;
        state.set_waiting(ts, waiting);
        hooks.queue_changed(ts, cpu, pid, true, waiting);
    }

    fn dequeue(&mut self, ts: u64, pid: u32, cpu: u32, hooks: &mut dyn ReplayHooks) {
        self.tasks.entry(pid).or_default().queued_on = None;
        let state = self.cpu(cpu);
        let waiting = state.waiting.saturating_sub(1);
        state.set_waiting(ts, waiting);
        hooks.queue_changed(ts, cpu, pid, false, waiting);
    }

    #[allow(clippy::too_many_arguments)]
    fn count_migration(
        &mut self,
        topology: &Topology,
        ts: u64,
        pid: u32,
        from: u32,
        to: u32,
        hooks: &mut dyn ReplayHooks,
    ) {
        if from == to {
            return;
        }
        hooks.moved(ts, pid, from, to);
        let n = topology.n_cpus() as u32;
        if from < n && to < n {
            self.migrations
                .count(topology.distance(CpuId(from), CpuId(to)));
        } else {
            self.unclassified += 1;
        }
    }
}

/// Rebuilds the trace's scheduling and measures it. `topology` classes migrations
/// by distance; `None` takes [`flat_topology`] of the CPUs seen.
pub fn replay(parsed: &ParsedTrace, topology: Option<&Topology>) -> ReplayMetrics {
    let flat;
    let topology = match topology {
        Some(topology) => topology,
        None => {
            flat = flat_topology(&parsed.report.cpus);
            &flat
        }
    };
    let source = MigrationSource::of(parsed);
    let mut replayer = Replayer::new();
    let (first, end) = span(parsed);

    for event in &parsed.events {
        replayer.apply(event, topology, source, &mut ());
    }
    replayer.finish(first, end, topology, source)
}

impl Replayer {
    pub(crate) fn new() -> Replayer {
        Replayer {
            cpus: Vec::new(),
            tasks: HashMap::new(),
            latency: Metrics::new(0, 0),
            wakeups: 0,
            wakeups_of_runnable: 0,
            switches: 0,
            migrations: MigrationCounts::default(),
            unclassified: 0,
            inconsistencies: 0,
            inconsistent_lines: Vec::new(),
            power: BTreeMap::new(),
            stat_runtime: StatRuntimeReplay::default(),
        }
    }

    /// The events that count without changing who runs where (`sched_stat_runtime`,
    /// `cpu_frequency`, `cpu_idle`): true when `event` was one. They leave the
    /// CPUs' windows to the scheduler events.
    fn apply_counter(&mut self, event: &Event) -> bool {
        let ts = event.ts_ns;
        match &event.data {
            EventData::StatRuntime {
                pid, runtime_ns, ..
            } => {
                let stat = &mut self.stat_runtime;
                stat.events += 1;
                stat.total_ns = stat.total_ns.saturating_add(*runtime_ns);
                let sum = stat.by_pid.entry(*pid).or_default();
                *sum = sum.saturating_add(*runtime_ns);
            }
            EventData::CpuFrequency { khz, cpu_id } => {
                self.power.entry(*cpu_id).or_default().frequency(ts, *khz);
            }
            EventData::CpuIdle { state, cpu_id } => {
                self.power.entry(*cpu_id).or_default().idle(ts, *state);
            }
            _ => return false,
        }
        true
    }

    /// Applies one event (events come in time order).
    pub(crate) fn apply(
        &mut self,
        event: &Event,
        topology: &Topology,
        source: MigrationSource,
        hooks: &mut dyn ReplayHooks,
    ) {
        if self.apply_counter(event) {
            return;
        }
        let ts = event.ts_ns;
        let cpu = event.cpu;
        let learned_current = {
            let state = self.cpu(cpu);
            state.touch(ts);
            state.first_line_at.get_or_insert(ts);
            // Until a switch says otherwise, the line's header names who runs here.
            let unknown = state.current.is_none();
            if unknown {
                state.current = Some((event.ctx_pid, ts));
            }
            unknown
        };
        if learned_current && event.ctx_pid != 0 {
            let task = self.tasks.entry(event.ctx_pid).or_default();
            if task.running_on.is_none() && task.queued_on.is_none() {
                task.running_on = Some(cpu);
                task.last_ran_on.get_or_insert(cpu);
            }
        }
        match &event.data {
            EventData::Wakeup {
                kind,
                pid,
                target_cpu,
                success,
                ..
            } => {
                if *kind == EventKind::SchedWaking || *success == Some(false) || *pid == 0 {
                    return;
                }
                let target = target_cpu.unwrap_or(cpu);
                let task = self.tasks.entry(*pid).or_default();
                if task.running_on.is_some() || task.queued_on.is_some() {
                    self.wakeups_of_runnable += 1;
                    return;
                }
                task.woken_at = Some(ts);
                self.wakeups += 1;
                self.enqueue(ts, *pid, target, hooks);
            }
            EventData::MigrateTask {
                pid,
                orig_cpu,
                dest_cpu,
                ..
            } => {
                if source == MigrationSource::MigrateEvents {
                    self.count_migration(topology, ts, *pid, *orig_cpu, *dest_cpu, hooks);
                }
                let task = self.tasks.entry(*pid).or_default();
                task.last_ran_on = Some(*dest_cpu);
                if task.queued_on.is_some() {
                    self.enqueue(ts, *pid, *dest_cpu, hooks);
                }
            }
            EventData::Switch {
                prev_pid,
                prev_state,
                next_pid,
                ..
            } => {
                self.switches += 1;
                let state = self.cpu(cpu);
                state.switches += 1;
                if let Some((current, since)) = state.current {
                    if current != 0 {
                        state.busy_ns += ts.saturating_sub(since);
                    }
                    if current != *prev_pid {
                        self.inconsistencies += 1;
                        if self.inconsistent_lines.len() < 5 {
                            self.inconsistent_lines.push(event.line);
                        }
                        if current != 0 {
                            let task = self.tasks.entry(current).or_default();
                            if task.running_on == Some(cpu) {
                                task.running_on = None;
                            }
                        }
                    }
                }
                if *prev_pid != 0 {
                    let task = self.tasks.entry(*prev_pid).or_default();
                    task.running_on = None;
                    task.last_ran_on = Some(cpu);
                    if prev_state.is_runnable() {
                        self.enqueue(ts, *prev_pid, cpu, hooks);
                    }
                }
                if *next_pid != 0 {
                    let task = *self.tasks.entry(*next_pid).or_default();
                    if let Some(queued) = task.queued_on {
                        self.dequeue(ts, *next_pid, queued, hooks);
                    }
                    if let Some(other) = task.running_on {
                        if other != cpu {
                            // Its switch-out on the other CPU was lost.
                            let other_state = self.cpu(other);
                            if let Some((pid, since)) = other_state.current {
                                if pid == *next_pid {
                                    other_state.busy_ns += ts.saturating_sub(since);
                                    other_state.current = None;
                                }
                            }
                        }
                    }
                    if let Some(woken) = task.woken_at {
                        self.latency.record_latency(ts.saturating_sub(woken).max(1));
                    }
                    if source == MigrationSource::Inferred {
                        if let Some(last) = task.last_ran_on {
                            self.count_migration(topology, ts, *next_pid, last, cpu, hooks);
                        }
                    }
                    let task = self.tasks.entry(*next_pid).or_default();
                    task.woken_at = None;
                    task.running_on = Some(cpu);
                    task.last_ran_on = Some(cpu);
                }
                self.cpu(cpu).current = Some((*next_pid, ts));
            }
            EventData::ProcessExit { pid, .. } => {
                let task = *self.tasks.entry(*pid).or_default();
                if let Some(queued) = task.queued_on {
                    self.dequeue(ts, *pid, queued, hooks);
                }
                self.tasks.entry(*pid).or_default().woken_at = None;
            }
            EventData::ProcessFork { .. }
            | EventData::ProcessExec { .. }
            | EventData::StatRuntime { .. }
            | EventData::CpuFrequency { .. }
            | EventData::CpuIdle { .. } => {}
        }
    }

    /// The metrics at `end`, the trace's last event time (`first` its first).
    fn finish(
        mut self,
        first: u64,
        end: u64,
        topology: &Topology,
        source: MigrationSource,
    ) -> ReplayMetrics {
        let replayer = &mut self;
        let unmatched_wakeups = replayer
            .tasks
            .values()
            .filter(|task| task.woken_at.is_some())
            .count() as u64;
        // Without a single switch line, a CPU's lines name who ran at those instants
        // only: no time can be counted busy or idle.
        let known = replayer.switches > 0;
        let mut cpus = Vec::new();
        let mut busy_total = 0u64;
        let mut window_total = 0u64;
        for (idx, state) in replayer.cpus.iter_mut().enumerate() {
            let Some(touched) = state.touched_at else {
                continue;
            };
            if let Some((pid, since)) = state.current {
                if pid != 0 {
                    state.busy_ns += end.saturating_sub(since);
                }
            }
            let waiting = state.waiting;
            state.set_waiting(end.max(touched), waiting);
            let window_ns = state
                .first_line_at
                .map(|at| end.saturating_sub(at))
                .unwrap_or(0);
            let busy_ns = state.busy_ns.min(window_ns);
            let waiting_window = end.saturating_sub(touched);
            busy_total += busy_ns;
            window_total += window_ns;
            cpus.push(CpuReplay {
                cpu: idx as u32,
                window_ns,
                busy_ns,
                utilization: known.then(|| ratio(busy_ns, window_ns)),
                switches: state.switches,
                max_waiting: state.max_waiting,
                mean_waiting: if waiting_window == 0 {
                    0.0
                } else {
                    state.waiting_integral as f64 / waiting_window as f64
                },
            });
        }
        ReplayMetrics {
            span_ns: end - first,
            wakeups: replayer.wakeups,
            wakeup_latency_us: replayer.latency.latency_percentiles(),
            unmatched_wakeups,
            wakeups_of_runnable: replayer.wakeups_of_runnable,
            switches: replayer.switches,
            migrations: ReplayMigrations {
                counts: replayer.migrations.clone(),
                unclassified: replayer.unclassified,
                source,
            },
            cpus,
            utilization: known.then(|| ratio(busy_total, window_total)),
            inconsistencies: replayer.inconsistencies,
            inconsistent_lines: std::mem::take(&mut replayer.inconsistent_lines),
            topology_name: topology.shape.name.clone(),
            power: replayer
                .power
                .iter_mut()
                .map(|(cpu, state)| state.finish(*cpu, end))
                .collect(),
            stat_runtime: std::mem::take(&mut replayer.stat_runtime),
        }
    }
}

/// The trace's first and last timestamps, over every event line (other events
/// included): the span the metrics are measured over.
pub(crate) fn span(parsed: &ParsedTrace) -> (u64, u64) {
    let first = parsed.events.first().map_or(0, |event| event.ts_ns);
    let first = parsed.report.min_ts_ns.map_or(first, |min| min.min(first));
    let end = parsed.events.last().map_or(0, |event| event.ts_ns);
    let end = parsed.report.max_ts_ns.map_or(end, |max| max.max(end));
    (first, end)
}

fn ratio(part: u64, whole: u64) -> f64 {
    if whole == 0 {
        0.0
    } else {
        part as f64 / whole as f64
    }
}
