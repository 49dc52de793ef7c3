//! "What if": a replayed log turned into a workload the simulator can run under any
//! kernel, policy and machine.
//!
//! Each task of the log becomes a hand-written task ([`TaskTemplate`]) whose program
//! is what the log shows it doing, in order:
//! - its CPU time between two blocking points, as one `run` (preemptions are the
//!   scheduler's doing, so the simulation decides them anew);
//! - each block, ended by a wakeup from another task `W` (the task current on the
//!   waking CPU), as a `wait` on a channel `W>T` that `W`'s program `post`s to at the
//!   point of the wakeup, its run split there;
//! - each block ended by a wakeup from an idle CPU (a timer or an interrupt) as a
//!   `sleep` of the observed length.
//!
//! A task first seen running starts runnable at the log's start, one first seen
//! waking starts blocked, a task forked in the log (`sched_wakeup_new`) starts at its
//! fork, and a task that exits stops there. A per-CPU kernel thread (`name/N`,
//! `name/N:M`) is pinned to CPU N; every other task may run anywhere.
//! What a log cannot tell: why a task slept (a timer, I/O, a lock), how much of its
//! CPU time was cache refill on the real machine, and wakeups that a `sched_wakeup`
//! recorded on the target CPU attributes to whoever ran there (`sched_waking`, on the
//! waker's CPU, is used when the log has it). See `docs/replay.md`.

use super::parse::{EventData, EventKind, ParsedTrace};
use crate::behaviour::{Dist, Op};
use crate::workload::{TaskTemplate, TasksSpec};
use std::collections::BTreeMap;

/// Where a task of the log is, as the derivation walks it.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Seen {
    /// Running since this time.
    Running(u64),
    /// Runnable but not running (preempted, or woken and not yet switched in).
    Runnable,
    /// Blocked since this time.
    Blocked(u64),
    Exited,
}

struct Derived {
    comm: String,
    start_ns: u64,
    state: Seen,
    /// CPU time since the last blocking point, not yet written as a `run`.
    run_ns: u64,
    ops: Vec<Op>,
}

impl Derived {
    fn flush_run(&mut self) {
        if self.run_ns > 0 {
            self.ops.push(Op::Run {
                duration: Dist::Fixed {
                    us: self.run_ns as f64 / 1000.0,
                },
                memory_bound: false,
            });
            self.run_ns = 0;
        }
    }

    /// Accounts the running time up to `t` and restarts the clock there.
    fn settle(&mut self, t: u64) {
        if let Seen::Running(since) = self.state {
            self.run_ns += t.saturating_sub(since);
            self.state = Seen::Running(t);
        }
    }
}

/// The workload a log describes, and the CPUs it needs.
#[derive(Clone, Debug, PartialEq)]
pub struct DerivedWorkload {
    pub tasks: TasksSpec,
    /// The log's span, from its first to its last scheduler event.
    pub span_ns: u64,
    /// Wakeups turned into channel posts (task to task) and into sleeps (from idle).
    pub task_wakeups: u64,
    pub timer_wakeups: u64,
    /// The machine's CPU count, when the log's header gives it.
    pub machine_cpus: Option<u32>,
}

/// The CPU a per-CPU kernel thread's name binds it to (`kworker/3:1`,
/// `ksoftirqd/3`, `migration/3`), if it is one. Unbound workers (`kworker/u8:2`)
/// are not.
fn per_cpu_thread(comm: &str) -> Option<u32> {
    let (_, rest) = comm.split_once('/')?;
    let digits: String = rest.chars().take_while(|c| c.is_ascii_digit()).collect();
    let tail = &rest[digits.len()..];
    if digits.is_empty() || !(tail.is_empty() || tail.starts_with(':') || tail.starts_with('-')) {
        return None;
    }
    digits.parse().ok()
}

/// Derives the workload of a parsed log (see the module's introduction).
pub fn derive_workload(parsed: &ParsedTrace) -> DerivedWorkload {
    let events = &parsed.events;
    let first = events.first().map_or(0, |event| event.ts_ns);
    let last = events.last().map_or(0, |event| event.ts_ns);
    let uses_waking = events
        .iter()
        .any(|event| event.kind() == EventKind::SchedWaking);
    let mut tasks: BTreeMap<u32, Derived> = BTreeMap::new();
    let mut task_wakeups = 0;
    let mut timer_wakeups = 0;
    let new_task = |comm: &str, start_ns: u64, state: Seen| Derived {
        comm: comm.chars().take(15).collect(),
        start_ns,
        state,
        run_ns: 0,
        ops: Vec::new(),
    };
    for event in events {
        let t = event.ts_ns;
        match &event.data {
            EventData::Switch {
                prev_comm,
                prev_pid,
                prev_state,
                next_comm,
                next_pid,
                ..
            } => {
                if *prev_pid != 0 {
                    let prev = tasks
                        .entry(*prev_pid)
                        .or_insert_with(|| new_task(prev_comm, first, Seen::Running(first)));
                    if prev.comm.is_empty() {
                        prev.comm = prev_comm.chars().take(15).collect();
                    }
                    prev.settle(t);
                    if prev.state != Seen::Exited {
                        if prev_state.is_runnable() {
                            prev.state = Seen::Runnable;
                        } else {
                            prev.flush_run();
                            prev.state = Seen::Blocked(t);
                        }
                    }
                }
                if *next_pid != 0 {
                    let next = tasks
                        .entry(*next_pid)
                        .or_insert_with(|| new_task(next_comm, first, Seen::Runnable));
                    if next.comm.is_empty() {
                        next.comm = next_comm.chars().take(15).collect();
                    }
                    if next.state != Seen::Exited {
                        next.state = Seen::Running(t);
                    }
                }
            }
            EventData::Wakeup {
                kind, comm, pid, ..
            } => {
                let counts = match kind {
                    EventKind::SchedWakeupNew => true,
                    EventKind::SchedWaking => uses_waking,
                    _ => !uses_waking,
                };
                if !counts || *pid == 0 {
                    continue;
                }
                if *kind == EventKind::SchedWakeupNew {
                    tasks
                        .entry(*pid)
                        .or_insert_with(|| new_task(comm, t, Seen::Runnable));
                    continue;
                }
                let waker = event.ctx_pid;
                if waker != 0 && waker != *pid {
                    // The waker is current on the waking CPU: running since the start
                    // if the log has not shown it before.
                    tasks
                        .entry(waker)
                        .or_insert_with(|| new_task("", first, Seen::Running(first)));
                }
                let blocked_since = match tasks.get(pid).map(|task| task.state) {
                    Some(Seen::Blocked(since)) => since,
                    // First seen waking: blocked since the log's start.
                    None => {
                        tasks.insert(*pid, new_task(comm, first, Seen::Blocked(first)));
                        first
                    }
                    _ => continue, // already runnable: no effect on its program
                };
                if waker != 0 && waker != *pid {
                    let channel = format!("{waker}>{pid}");
                    let poster = tasks.get_mut(&waker).expect("checked above");
                    poster.settle(t);
                    poster.flush_run();
                    poster.ops.push(Op::Post {
                        channel: channel.clone(),
                        count: 1,
                        sync: false,
                    });
                    let wakee = tasks.get_mut(pid).expect("inserted above");
                    wakee.ops.push(Op::Wait { channel });
                    task_wakeups += 1;
                } else {
                    let wakee = tasks.get_mut(pid).expect("inserted above");
                    wakee.ops.push(Op::Sleep {
                        duration: Dist::Fixed {
                            us: t.saturating_sub(blocked_since) as f64 / 1000.0,
                        },
                    });
                    timer_wakeups += 1;
                }
                tasks.get_mut(pid).expect("inserted above").state = Seen::Runnable;
            }
            EventData::ProcessExit { pid, .. } => {
                if let Some(task) = tasks.get_mut(pid) {
                    task.settle(t);
                    task.flush_run();
                    task.state = Seen::Exited;
                }
            }
            EventData::MigrateTask { .. }
            | EventData::ProcessFork { .. }
            | EventData::ProcessExec { .. }
            | EventData::StatRuntime { .. }
            | EventData::CpuFrequency { .. }
            | EventData::CpuIdle { .. } => {}
        }
    }
    let mut templates = Vec::new();
    for (pid, mut task) in tasks {
        task.settle(last);
        task.flush_run();
        if task.ops.is_empty() {
            continue;
        }
        let mut comm = task.comm.clone();
        if comm.is_empty() {
            comm = format!("pid{pid}");
        }
        templates.push(TaskTemplate {
            cpus: per_cpu_thread(&comm).map(|cpu| cpu.to_string()),
            comm,
            count: 1,
            nice: 0,
            start_us: task.start_ns.saturating_sub(first) / 1000,
            record_latency: true,
            footprint_kib: 0,
            jitter: false,
            uclamp_max: None,
            program: task.ops,
        });
    }
    DerivedWorkload {
        tasks: TasksSpec {
            unit: "bursts".into(),
            tasks: templates,
        },
        span_ns: last.saturating_sub(first),
        task_wakeups,
        timer_wakeups,
        machine_cpus: parsed.report.machine_cpus,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::replay::parse;

    const PING_PONG: &str = "\
# tracer: nop
          client-100   [000] d..2.  1.000000: sched_waking: comm=server pid=200 prio=120 target_cpu=001
          client-100   [000] d..2.  1.000001: sched_wakeup: comm=server pid=200 prio=120 target_cpu=001
          client-100   [000] d..2.  1.000010: sched_switch: prev_comm=client prev_pid=100 prev_prio=120 prev_state=S ==> next_comm=swapper/0 next_pid=0 next_prio=120
          <idle>-0     [001] d..2.  1.000020: sched_switch: prev_comm=swapper/1 prev_pid=0 prev_prio=120 prev_state=R ==> next_comm=server next_pid=200 next_prio=120
          server-200   [001] d..2.  1.000050: sched_waking: comm=client pid=100 prio=120 target_cpu=000
          server-200   [001] d..2.  1.000060: sched_switch: prev_comm=server prev_pid=200 prev_prio=120 prev_state=S ==> next_comm=swapper/1 next_pid=0 next_prio=120
          <idle>-0     [000] d..2.  1.000070: sched_switch: prev_comm=swapper/0 prev_pid=0 prev_prio=120 prev_state=R ==> next_comm=client next_pid=100 next_prio=120
          <idle>-0     [002] d..2.  1.000100: sched_waking: comm=kworker/2:1 pid=300 prio=120 target_cpu=002
          <idle>-0     [002] d..2.  1.000110: sched_switch: prev_comm=swapper/2 prev_pid=0 prev_prio=120 prev_state=R ==> next_comm=kworker/2:1 next_pid=300 next_prio=120
          kworker/2:1-300 [002] d..2.  1.000130: sched_switch: prev_comm=kworker/2:1 prev_pid=300 prev_prio=120 prev_state=S ==> next_comm=swapper/2 next_pid=0 next_prio=120
";

    fn program_of<'a>(derived: &'a DerivedWorkload, comm: &str) -> &'a TaskTemplate {
        derived
            .tasks
            .tasks
            .iter()
            .find(|task| task.comm == comm)
            .unwrap_or_else(|| panic!("no task {comm}"))
    }

    #[test]
    fn a_ping_pong_becomes_posts_and_waits_on_one_channel_each_way() {
        let derived = derive_workload(&parse(PING_PONG));
        assert_eq!(derived.span_ns, 130_000);
        assert_eq!(derived.task_wakeups, 2);
        assert_eq!(derived.timer_wakeups, 1);
        let client = program_of(&derived, "client");
        // Running from the start: wakes the server at once, runs 10 us, blocks; the
        // server wakes it; it runs to the end of the log (60 us).
        assert_eq!(client.start_us, 0);
        assert_eq!(
            client.program,
            vec![
                Op::Post {
                    channel: "100>200".into(),
                    count: 1,
                    sync: false
                },
                Op::Run {
                    duration: Dist::Fixed { us: 10.0 },
                    memory_bound: false
                },
                Op::Wait {
                    channel: "200>100".into()
                },
                Op::Run {
                    duration: Dist::Fixed { us: 60.0 },
                    memory_bound: false
                },
            ]
        );
        let server = program_of(&derived, "server");
        // First seen being woken: starts blocked on the client's channel; runs 30 us
        // before waking the client, 10 us after, then blocks.
        assert_eq!(
            server.program,
            vec![
                Op::Wait {
                    channel: "100>200".into()
                },
                Op::Run {
                    duration: Dist::Fixed { us: 30.0 },
                    memory_bound: false
                },
                Op::Post {
                    channel: "200>100".into(),
                    count: 1,
                    sync: false
                },
                Op::Run {
                    duration: Dist::Fixed { us: 10.0 },
                    memory_bound: false
                },
            ]
        );
        assert_eq!(server.cpus, None);
    }

    #[test]
    fn a_wakeup_from_idle_is_a_sleep_and_a_per_cpu_kthread_is_pinned() {
        let derived = derive_workload(&parse(PING_PONG));
        let kworker = program_of(&derived, "kworker/2:1");
        assert_eq!(kworker.cpus.as_deref(), Some("2"));
        assert_eq!(
            kworker.program,
            vec![
                Op::Sleep {
                    duration: Dist::Fixed { us: 100.0 }
                },
                Op::Run {
                    duration: Dist::Fixed { us: 20.0 },
                    memory_bound: false
                },
            ]
        );
    }

    #[test]
    fn per_cpu_thread_names() {
        assert_eq!(per_cpu_thread("kworker/3:1"), Some(3));
        assert_eq!(per_cpu_thread("ksoftirqd/12"), Some(12));
        assert_eq!(per_cpu_thread("kworker/u8:2"), None);
        assert_eq!(per_cpu_thread("schbench"), None);
        assert_eq!(per_cpu_thread("a/b"), None);
    }
}
