//! schbench: message threads wake their workers, workers think and report back.

use super::{forever, plan, post, run, wait, Expansion};
use crate::behaviour::{Dist, Op};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct SchbenchSpec {
    /// `-m`: message threads.
    #[schemars(range(min = 1, max = 1024))]
    pub message_threads: u32,
    /// `-t`: workers per message thread.
    #[schemars(range(min = 1, max = 4096))]
    pub worker_threads: u32,
    /// `-c`: how long a worker thinks (spins on the CPU) per request, in microseconds.
    #[schemars(range(min = 0, max = 10000000))]
    pub cputime_us: u64,
    /// `-s`: how long a message thread sleeps before replying, in microseconds
    /// (plus a random jitter of up to a quarter of it, as schbench adds).
    #[schemars(range(min = 0, max = 10000000))]
    pub sleeptime_us: u64,
    /// `-p`: pipe mode, bytes passed per request. Message threads reply at once
    /// (no sleep) and workers do no thinking: a runqueue-hammering ping-pong.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(range(min = 1, max = 1048576))]
    pub pipe_bytes: Option<u64>,
    /// Affinity of every thread, as a CPU list (`0-3,8`); all CPUs when absent.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cpus: Option<String>,
    #[serde(default)]
    #[schemars(range(min = -20, max = 19))]
    pub nice: i32,
    /// Data each thread keeps warm in cache, in KiB (default 256).
    #[serde(default = "schbench_footprint")]
    #[schemars(range(max = 1048576))]
    pub footprint_kib: u64,
}

/// One `FUTEX_WAKE` that wakes a waiter, as the waker's CPU time: the syscall's
/// entry and exit and the futex hash-bucket lock (about 1 us on the servers of
/// the time; `try_to_wake_up()`'s own runqueue lock and idle scan are charged by
/// the model on top). Simplification: one fixed figure for every machine.
const FUTEX_WAKE_US: f64 = 1.0;

/// The message thread's `xlist_wake_all()`: it takes the list once, then wakes
/// the workers one `FUTEX_WAKE` at a time, each a syscall of the waker's time
/// after its wake, in pipe mode as outside it (there it also writes each worker's
/// page, which the model counts in the worker's copy). Outside pipe mode every
/// worker is stamped with the walk's one timestamp, so the k-th worker's latency
/// includes the k wakes before it; in pipe mode each is stamped as it is woken.
/// Simplification: in pipe mode the model also stamps them with the walk's start
/// (the shipped pipe scenarios run one worker per message thread, where the two
/// agree).
fn wake_list(list: &str) -> Op {
    Op::WakeEach {
        channel: list.into(),
        each: Dist::fixed_us(FUTEX_WAKE_US),
    }
}

fn schbench_footprint() -> u64 {
    256
}

impl SchbenchSpec {
    pub(crate) fn label(&self) -> String {
        match self.pipe_bytes {
            Some(bytes) => format!(
                "schbench -L -m {} -t {} -p {bytes}",
                self.message_threads, self.worker_threads
            ),
            None => format!(
                "schbench -m {} -t {} -c {} -s {}",
                self.message_threads, self.worker_threads, self.cputime_us, self.sleeptime_us
            ),
        }
    }

    pub(crate) fn check(&self) -> Vec<(String, String)> {
        let mut errors = Vec::new();
        super::at_least_one(&mut errors, "message_threads", self.message_threads as u64);
        super::at_least_one(&mut errors, "worker_threads", self.worker_threads as u64);
        if self.cputime_us == 0 && self.sleeptime_us == 0 && self.pipe_bytes.is_none() {
            errors.push((
                "cputime_us".into(),
                "cputime_us and sleeptime_us cannot both be 0: the benchmark would never take time"
                    .into(),
            ));
        }
        errors
    }

    pub(crate) fn task_count(&self) -> u64 {
        self.message_threads as u64 * (1 + self.worker_threads as u64)
    }

    pub(crate) fn expand(&self) -> Expansion {
        let mut expansion = Expansion::rate("requests/s");
        self.add(&mut expansion, "", None);
        expansion
    }

    pub(crate) fn cpu_lists(&self) -> Vec<(String, String)> {
        self.cpus
            .iter()
            .map(|list| ("cpus".to_string(), list.clone()))
            .collect()
    }

    /// Adds one schbench instance; `prefix` keeps its channels apart from others'.
    pub(super) fn add(&self, expansion: &mut Expansion, prefix: &str, cgroup: Option<usize>) {
        let sleep = self.sleeptime_us as f64;
        // One process: its first thread leads the thread group.
        let leader = expansion.tasks.len();
        for messenger in 0..self.message_threads {
            let futex = format!("{prefix}m{messenger}.futex");
            let list = format!("{prefix}m{messenger}.list");
            // The message thread: reset its futex, wake every worker that reported in,
            // wait for the next report, then (unless piping) sleep `-s` plus up to a
            // quarter of jitter.
            let mut messenger_ops = vec![
                Op::Reset {
                    channel: futex.clone(),
                },
                wake_list(&list),
                wait(&futex),
            ];
            if self.sleeptime_us > 0 && self.pipe_bytes.is_none() {
                messenger_ops.push(Op::Sleep {
                    duration: Dist::Uniform {
                        min_us: sleep,
                        max_us: sleep + sleep / 4.0,
                    },
                });
            }
            // A worker (schbench's `msg_and_wait()`): set its own futex word to
            // BLOCKED and join the messenger's list, post the messenger's futex (a
            // `FUTEX_WAKE` syscall of its own time), then wait on its word unless the
            // messenger has already woken it (the latency sample). Then think for `-c`
            // on the CPU, or in pipe mode write `-p` bytes into its page.
            // Simplification: the `FUTEX_WAIT` syscall itself costs nothing.
            let work = match self.pipe_bytes {
                // The page's memset: about a microsecond per 4 KiB.
                Some(bytes) => run(bytes as f64 / 4096.0),
                // usec_spin(): -c microseconds of the clock, not of work.
                None => Op::Spin {
                    duration: Dist::fixed_us(self.cputime_us as f64),
                },
            };
            let worker_ops = vec![
                Op::Enlist {
                    channel: list.clone(),
                },
                post(&futex, false),
                run(FUTEX_WAKE_US),
                Op::Await,
                work,
                Op::Complete,
            ];
            let messenger_program = expansion.program(&forever(messenger_ops));
            let worker_program = expansion.program(&forever(worker_ops));
            let mut template = plan("schbench", messenger_program, leader, self.footprint_kib);
            template.nice = self.nice;
            template.cpus = self.cpus.clone();
            template.cgroup = cgroup;
            expansion.spawn(1, template.clone());
            template.comm = "schbench-worker".into();
            template.program = worker_program;
            template.record_latency = true;
            expansion.spawn(self.worker_threads, template);
        }
    }
}
