//! Playing a parsed log as the simulator plays a scenario: the same trace store,
//! wait log and latency histogram, filled event by event from the log instead of
//! from scheduling decisions, so front ends draw a real machine's log in the views
//! they draw a simulation in (the machine, the timeline, the event log, exports).
//!
//! Time starts at the log's first event (time 0 here is that line's timestamp). The
//! state after each event is what [`super::replay`] rebuilds (it is the same
//! [`Replayer`]): who runs on each CPU, who waits where, wakeup latencies and
//! migrations. Every event line the replay reads becomes one trace record, in
//! order; `sched_process_fork` and `sched_process_exec` have no record kind in the
//! trace store and are kept only in the counts.

use super::metrics::{flat_topology, span, MigrationSource, ReplayHooks, Replayer};
use super::parse::{Event, EventData, EventKind, ParsedTrace, PrevState};
use crate::engine::DEFAULT_TRACE_KEEP_BYTES;
use crate::metrics::{LatencyPercentiles, MigrationCounts};
use crate::time::SimTime;
use crate::topology::Topology;
use crate::trace::{
    Reason, TaskNames, Trace, TraceKind, TraceMark, TraceRecord, PREV_STATE_DEAD,
    PREV_STATE_RUNNING, PREV_STATE_SLEEPING,
};
use crate::waiting::{WaitLog, WaitMark};
use std::collections::HashMap;

/// A task move as the machine view animates it: when, who, from where to where.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct LogMove {
    pub time: SimTime,
    pub pid: u32,
    pub from: u32,
    pub to: u32,
    /// The index of the trace record of the line that showed it (the
    /// `sched_migrate_task`, or the switch-in on the new CPU).
    pub record: u64,
}

/// Per CPU, the pids waiting there in the order they started waiting (the
/// machine view draws the first few). The log does not say which the kernel would
/// pick next; arrival order is what it shows.
#[derive(Clone, Debug, Default)]
struct Queues {
    by_cpu: Vec<Vec<u32>>,
}

/// What the hooks collect while an event is applied.
struct Collect<'a> {
    origin: u64,
    queues: &'a mut Queues,
    wait_log: &'a mut WaitLog,
    moves: &'a mut Vec<LogMove>,
    record: u64,
}

impl ReplayHooks for Collect<'_> {
    fn queue_changed(&mut self, ts: u64, cpu: u32, pid: u32, added: bool, waiting: u32) {
        let Some(queue) = self.queues.by_cpu.get_mut(cpu as usize) else {
            return;
        };
        if added {
            queue.push(pid);
        } else if let Some(at) = queue.iter().position(|queued| *queued == pid) {
            queue.remove(at);
        }
        self.wait_log
            .note(ts.saturating_sub(self.origin), cpu, waiting);
    }

    fn moved(&mut self, ts: u64, pid: u32, from: u32, to: u32) {
        self.moves.push(LogMove {
            time: SimTime(ts.saturating_sub(self.origin)),
            pid,
            from,
            to,
            record: self.record,
        });
    }
}

/// The names the trace renders a log's pids with: the last comm the log gave each
/// pid, and its priority.
#[derive(Clone, Debug, Default)]
pub struct LogNames {
    comms: HashMap<u32, String>,
    prios: HashMap<u32, i32>,
}

impl TaskNames for LogNames {
    fn comm(&self, pid: u32) -> &str {
        self.comms.get(&pid).map_or("<...>", String::as_str)
    }

    fn prio(&self, pid: u32) -> i32 {
        self.prios.get(&pid).copied().unwrap_or(120)
    }
}

/// Where a [`LogPlayer`] stood (`snapshot`), to go back to with `restore`.
#[derive(Clone, Debug)]
pub struct LogSnapshot {
    next: usize,
    now: SimTime,
    replayer: Replayer,
    queues: Queues,
    trace: TraceMark,
    waits: WaitMark,
    moves: usize,
}

impl LogSnapshot {
    /// Records the trace had pushed when the snapshot was taken.
    pub fn trace_total(&self) -> u64 {
        self.trace.total()
    }
}

/// A parsed log, played forward event by event.
pub struct LogPlayer {
    /// The log, kept whole: its events play, and the what-if derivation reads it again on demand.
    parsed: ParsedTrace,
    pub topology: Topology,
    source: MigrationSource,
    /// The log's first timestamp: time 0 of the player.
    origin: u64,
    end: SimTime,
    /// The next event to apply.
    next: usize,
    now: SimTime,
    replayer: Replayer,
    queues: Queues,
    pub trace: Trace,
    pub wait_log: WaitLog,
    moves: Vec<LogMove>,
    pub names: LogNames,
}

impl LogPlayer {
    /// A player for `parsed` on `topology` (`None`: [`flat_topology`] of the CPUs
    /// seen). Fails when the log names a CPU the machine does not have.
    pub fn new(parsed: ParsedTrace, topology: Option<Topology>) -> Result<LogPlayer, String> {
        let topology = match topology {
            Some(topology) => topology,
            None => flat_topology(&parsed.report.cpus),
        };
        let n_cpus = topology.n_cpus();
        if let Some(&cpu) = parsed.report.cpus.iter().next_back() {
            if cpu as usize >= n_cpus {
                return Err(format!(
                    "the log names CPU {cpu}, and the machine {} has {n_cpus} CPUs (0 to {}): choose a larger machine, or the flat one",
                    topology.shape.name,
                    n_cpus - 1
                ));
            }
        }
        let source = MigrationSource::of(&parsed);
        let (origin, last) = span(&parsed);
        let mut names = LogNames::default();
        for (pid, comm) in &parsed.report.tasks {
            names.comms.insert(*pid, comm.clone());
        }
        for event in &parsed.events {
            let (pid, prio) = match &event.data {
                EventData::Switch {
                    next_pid,
                    next_prio,
                    ..
                } => (*next_pid, *next_prio),
                EventData::Wakeup { pid, prio, .. }
                | EventData::MigrateTask { pid, prio, .. }
                | EventData::ProcessExit { pid, prio, .. } => (*pid, *prio),
                _ => continue,
            };
            if let Some(prio) = prio {
                names.prios.insert(pid, prio);
            }
        }
        Ok(LogPlayer {
            parsed,
            source,
            origin,
            end: SimTime(last.saturating_sub(origin)),
            next: 0,
            now: SimTime(0),
            replayer: Replayer::new(),
            queues: Queues {
                by_cpu: vec![Vec::new(); n_cpus],
            },
            trace: Trace::new(DEFAULT_TRACE_KEEP_BYTES),
            wait_log: WaitLog::new(n_cpus),
            moves: Vec::new(),
            names,
            topology,
        })
    }

    /// The log as parsed: its events in time order and its report.
    pub fn parsed(&self) -> &ParsedTrace {
        &self.parsed
    }

    pub fn now(&self) -> SimTime {
        self.now
    }

    /// The log's span: its last event's time.
    pub fn end_time(&self) -> SimTime {
        self.end
    }

    /// Events applied so far.
    pub fn events(&self) -> u64 {
        self.next as u64
    }

    pub fn events_total(&self) -> u64 {
        self.parsed.events.len() as u64
    }

    pub fn is_finished(&self) -> bool {
        self.next >= self.parsed.events.len() && self.now >= self.end
    }

    fn time_of(&self, idx: usize) -> SimTime {
        SimTime(self.parsed.events[idx].ts_ns.saturating_sub(self.origin))
    }

    /// Applies the next event; false when there is none.
    pub fn step(&mut self) -> bool {
        let Some(event) = self.parsed.events.get(self.next) else {
            return false;
        };
        let time = SimTime(event.ts_ns.saturating_sub(self.origin));
        let mut hooks = Collect {
            origin: self.origin,
            queues: &mut self.queues,
            wait_log: &mut self.wait_log,
            moves: &mut self.moves,
            record: self.trace.total(),
        };
        self.replayer
            .apply(event, &self.topology, self.source, &mut hooks);
        if let Some(record) = record_of(event, time) {
            self.trace.push(record);
        }
        self.next += 1;
        self.now = self.now.max(time);
        true
    }

    /// Applies every event up to `until` (clamped to the end) and sets the clock there.
    pub fn run_until(&mut self, until: SimTime) {
        self.run_until_bounded(until, u64::MAX);
    }

    /// As `run_until`, applying at most `max_events`; true when it got there.
    pub fn run_until_bounded(&mut self, until: SimTime, max_events: u64) -> bool {
        let until = until.min(self.end);
        let mut done = 0;
        while self.next < self.parsed.events.len() && self.time_of(self.next) <= until {
            if done == max_events {
                return false;
            }
            self.step();
            done += 1;
        }
        self.now = self.now.max(until);
        true
    }

    /// Applies at most `max_events` events; how many were applied.
    pub fn run_events(&mut self, max_events: u64) -> u64 {
        let mut done = 0;
        while done < max_events && self.step() {
            done += 1;
        }
        if self.next >= self.parsed.events.len() {
            self.now = self.end;
        }
        done
    }

    pub fn snapshot(&self) -> LogSnapshot {
        LogSnapshot {
            next: self.next,
            now: self.now,
            replayer: self.replayer.clone(),
            queues: self.queues.clone(),
            trace: self.trace.mark(),
            waits: self.wait_log.mark(),
            moves: self.moves.len(),
        }
    }

    /// Back to `snapshot`, taken earlier on this player.
    pub fn restore(&mut self, snapshot: &LogSnapshot) {
        self.next = snapshot.next;
        self.now = snapshot.now;
        self.replayer.clone_from(&snapshot.replayer);
        self.queues.clone_from(&snapshot.queues);
        self.trace.rewind(snapshot.trace);
        self.wait_log.rewind(&snapshot.waits);
        self.moves.truncate(snapshot.moves);
    }

    /// Per CPU, the running pid (0: idle or not known yet).
    pub fn running(&self) -> Vec<u32> {
        (0..self.topology.n_cpus())
            .map(|cpu| {
                self.replayer
                    .cpus
                    .get(cpu)
                    .and_then(|state| state.current)
                    .map_or(0, |(pid, _)| pid)
            })
            .collect()
    }

    /// Per CPU, the tasks waiting there (first to wait first), at most `max_each`.
    pub fn queue(&self, cpu: usize, max_each: usize) -> &[u32] {
        let queue = &self.queues.by_cpu[cpu];
        &queue[..queue.len().min(max_each)]
    }

    /// Per CPU, runnable tasks: the waiting ones and the running one.
    pub fn nr_running(&self) -> Vec<u32> {
        let running = self.running();
        (0..self.topology.n_cpus())
            .map(|cpu| {
                let waiting = self.replayer.cpus.get(cpu).map_or(0, |state| state.waiting);
                waiting + u32::from(running[cpu] != 0)
            })
            .collect()
    }

    /// Per CPU, the time a task other than idle ran, up to now.
    pub fn busy_ns(&self) -> Vec<u64> {
        let now = self.now.as_ns() + self.origin;
        (0..self.topology.n_cpus())
            .map(|cpu| {
                self.replayer.cpus.get(cpu).map_or(0, |state| {
                    let running = match state.current {
                        Some((pid, since)) if pid != 0 => now.saturating_sub(since),
                        _ => 0,
                    };
                    state.busy_ns + running
                })
            })
            .collect()
    }

    pub fn latency_percentiles(&self) -> LatencyPercentiles {
        self.replayer.latency.latency_percentiles()
    }

    pub fn latency_histogram(&self) -> Vec<(u64, u64)> {
        self.replayer.latency.latency_histogram()
    }

    pub fn switches(&self) -> u64 {
        self.replayer.switches
    }

    pub fn wakeups(&self) -> u64 {
        self.replayer.wakeups
    }

    /// Migrations so far, by distance on the machine.
    pub fn migrations(&self) -> &MigrationCounts {
        &self.replayer.migrations
    }

    /// Whether migrations come from `sched_migrate_task` lines or are inferred.
    pub fn migration_source(&self) -> MigrationSource {
        self.source
    }

    /// The task moves so far, oldest first.
    pub fn moves(&self) -> &[LogMove] {
        &self.moves
    }

    /// The pids the log shows, smallest first (pid 0, idle, left out), with their comm.
    pub fn tasks(&self) -> Vec<(u32, &str)> {
        let mut tasks: Vec<(u32, &str)> = self
            .names
            .comms
            .iter()
            .filter(|(pid, _)| **pid != 0)
            .map(|(pid, comm)| (*pid, comm.as_str()))
            .collect();
        tasks.sort_unstable_by_key(|(pid, _)| *pid);
        tasks
    }
}

/// The trace record a log line becomes, as the simulator would have written it.
fn record_of(event: &Event, time: SimTime) -> Option<TraceRecord> {
    let (kind, pid, arg0, arg1) = match &event.data {
        EventData::Switch {
            prev_pid,
            prev_state,
            next_pid,
            ..
        } => {
            let state = match prev_state {
                PrevState::Runnable | PrevState::Preempted => PREV_STATE_RUNNING,
                PrevState::Dead => PREV_STATE_DEAD,
                _ => PREV_STATE_SLEEPING,
            };
            (TraceKind::SchedSwitch, *prev_pid, *next_pid, state)
        }
        EventData::Wakeup {
            kind,
            pid,
            target_cpu,
            ..
        } => {
            let kind = match kind {
                EventKind::SchedWaking => TraceKind::SchedWaking,
                EventKind::SchedWakeupNew => TraceKind::SchedWakeupNew,
                _ => TraceKind::SchedWakeup,
            };
            (kind, *pid, target_cpu.unwrap_or(event.cpu), 0)
        }
        EventData::MigrateTask {
            pid,
            orig_cpu,
            dest_cpu,
            ..
        } => (TraceKind::SchedMigrateTask, *pid, *orig_cpu, *dest_cpu),
        EventData::ProcessExit { pid, .. } => (TraceKind::SchedProcessExit, *pid, 0, 0),
        // As the power model traces it: the CPU whose frequency changed, in kHz.
        EventData::CpuFrequency { khz, cpu_id } => {
            return Some(TraceRecord {
                time,
                cpu: *cpu_id,
                ctx_pid: event.ctx_pid,
                kind: TraceKind::CpuFrequency,
                pid: 0,
                arg0: u32::try_from(*khz).unwrap_or(u32::MAX),
                arg1: 0,
                reason: Reason::None,
            })
        }
        EventData::ProcessFork { .. }
        | EventData::ProcessExec { .. }
        | EventData::StatRuntime { .. }
        | EventData::CpuIdle { .. } => return None,
    };
    Some(TraceRecord {
        time,
        cpu: event.cpu,
        ctx_pid: event.ctx_pid,
        kind,
        pid,
        arg0,
        arg1,
        reason: Reason::None,
    })
}
