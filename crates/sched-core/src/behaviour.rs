//! Behaviour programs: what a task does, built from a few primitives.
//!
//! A scenario writes a program as a tree of [`Op`]s; [`Program::compile`] flattens it
//! into instructions with explicit loop markers, and channel names into numbers.
//! Durations are drawn from [`Dist`]s with the scenario's one seeded generator.

use crate::rng::SimRng;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

/// A duration distribution, in microseconds.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(tag = "dist", rename_all = "snake_case", deny_unknown_fields)]
pub enum Dist {
    Fixed {
        us: f64,
    },
    Uniform {
        min_us: f64,
        max_us: f64,
    },
    Exponential {
        mean_us: f64,
    },
    /// A normal distribution clamped to `[min_us, max_us]`.
    Normal {
        mean_us: f64,
        stddev_us: f64,
        min_us: f64,
        max_us: f64,
    },
}

/// The longest duration a [`Dist`] draws, in nanoseconds (about 104 days): longer
/// than any run, and far enough below `u64::MAX` that the model's arithmetic on
/// times and work (wall time is work * 1000 / speed) cannot overflow.
pub const MAX_SAMPLE_NS: u64 = 1 << 53;

impl Dist {
    pub fn fixed_us(us: f64) -> Dist {
        Dist::Fixed { us }
    }

    /// The duration in nanoseconds of a fixed distribution (as [`Dist::sample_ns`]
    /// draws it), or None for one that draws from the generator.
    pub fn fixed_ns(&self) -> Option<u64> {
        match *self {
            Dist::Fixed { us } => Some(((us.max(0.0) * 1_000.0) as u64).min(MAX_SAMPLE_NS)),
            _ => None,
        }
    }

    /// Draws a duration in nanoseconds, at most [`MAX_SAMPLE_NS`].
    pub fn sample_ns(&self, rng: &mut SimRng) -> u64 {
        let us = match *self {
            Dist::Fixed { us } => us,
            Dist::Uniform { min_us, max_us } => min_us + (max_us - min_us) * rng.next_f64(),
            Dist::Exponential { mean_us } => -mean_us * libm::log(1.0 - rng.next_f64()),
            Dist::Normal {
                mean_us,
                stddev_us,
                min_us,
                max_us,
            } => (mean_us + stddev_us * rng.next_standard_normal()).clamp(min_us, max_us),
        };
        ((us.max(0.0) * 1_000.0) as u64).min(MAX_SAMPLE_NS)
    }

    /// Checks the parameters; the message names the bad field.
    pub fn check(&self) -> Result<(), (String, String)> {
        let nonneg = |name: &str, value: f64| {
            if !(value.is_finite() && value >= 0.0) {
                Err((
                    name.to_string(),
                    format!("must be a non-negative number of microseconds, got {value}"),
                ))
            } else {
                Ok(())
            }
        };
        match *self {
            Dist::Fixed { us } => nonneg("us", us),
            Dist::Uniform { min_us, max_us } => {
                nonneg("min_us", min_us)?;
                nonneg("max_us", max_us)?;
                if max_us < min_us {
                    return Err((
                        "max_us".into(),
                        format!("must be at least min_us ({min_us}), got {max_us}"),
                    ));
                }
                Ok(())
            }
            Dist::Exponential { mean_us } => nonneg("mean_us", mean_us),
            Dist::Normal {
                mean_us,
                stddev_us,
                min_us,
                max_us,
            } => {
                nonneg("mean_us", mean_us)?;
                nonneg("stddev_us", stddev_us)?;
                nonneg("min_us", min_us)?;
                nonneg("max_us", max_us)?;
                if max_us < min_us {
                    return Err((
                        "max_us".into(),
                        format!("must be at least min_us ({min_us}), got {max_us}"),
                    ));
                }
                Ok(())
            }
        }
    }

    /// Whether this can draw a positive duration.
    pub fn can_take_time(&self) -> bool {
        match *self {
            Dist::Fixed { us } => us > 0.0,
            Dist::Uniform { max_us, .. } => max_us > 0.0,
            Dist::Exponential { mean_us } => mean_us > 0.0,
            Dist::Normal { max_us, .. } => max_us > 0.0,
        }
    }
}

/// One step of a behaviour program.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(tag = "op", rename_all = "snake_case", deny_unknown_fields)]
pub enum Op {
    /// Use the CPU for this much work (at full speed). A `memory_bound` run moves
    /// data: it slows down when threads share an LLC's or a node's memory bandwidth.
    Run {
        duration: Dist,
        #[serde(default, skip_serializing_if = "std::ops::Not::not")]
        memory_bound: bool,
    },
    /// Busy-wait on the clock for this long (schbench's `usec_spin` on
    /// `gettimeofday`): it ends this long after it starts, however much of that time
    /// it actually ran, and an SMT sibling or a cache refill does not stretch it.
    Spin { duration: Dist },
    /// Sleep (off the CPU) for this long, then wake.
    Sleep { duration: Dist },
    /// Take a token from the channel, or block until one is posted.
    Wait { channel: String },
    /// Post `count` tokens: each wakes the longest waiter, or is kept if nobody waits.
    Post {
        channel: String,
        #[serde(default = "one")]
        count: u32,
        /// A synchronous wakeup (`WF_SYNC`, as pipes and sockets do): the poster is
        /// about to sleep, which `wake_affine` takes into account.
        #[serde(default, skip_serializing_if = "std::ops::Not::not")]
        sync: bool,
    },
    /// Wake every task waiting on the channel; keeps no token.
    WakeAll { channel: String },
    /// Join the channel's waiter list without blocking yet (schbench's worker:
    /// it sets its own futex word to BLOCKED and adds itself to the message
    /// thread's list, then goes on to post). A `Post`, `WakeAll` or `WakeEach`
    /// that reaches it before its `Await` takes it off the list and sets its word
    /// instead of waking it; one that reaches it after wakes it. A token the
    /// channel kept from an earlier post is taken at once, as `Wait` takes it.
    Enlist { channel: String },
    /// Block until a waker takes this task off the list it enlisted on, or go on
    /// at once if one already has (`FUTEX_WAIT` on a word no longer BLOCKED), or
    /// if it is on no list.
    Await,
    /// Wake the channel's waiters one at a time, newest first (the order a
    /// lock-free list hands them back, as schbench's `xlist_wake_all` walks it),
    /// running `each` on this CPU after every wake (the futex syscall). Each woken
    /// task's wakeup latency counts from the start of the walk, where schbench
    /// takes its one timestamp, so a waker preempted mid-walk delays the rest.
    WakeEach { channel: String, each: Dist },
    /// Drop any tokens the channel holds (a futex set back to "blocked").
    Reset { channel: String },
    /// Count one unit of the workload's throughput (a request, a message, a job).
    Complete,
    /// Wait until `parties` tasks have arrived at this barrier, then all go on.
    /// `label` names the phase that ends here (STREAM reports per phase).
    Barrier {
        channel: String,
        parties: u32,
        #[serde(default, skip_serializing_if = "String::is_empty")]
        label: String,
    },
    /// Change its own CPU affinity (`sched_setaffinity`, as `taskset -p` does); when
    /// its CPU is no longer allowed it is moved at once.
    SetAffinity { cpus: String },
    /// Repeat the body `count` times, or forever when `count` is absent.
    Loop {
        #[serde(default, skip_serializing_if = "Option::is_none")]
        count: Option<u32>,
        body: Vec<Op>,
    },
    /// Fork the next unborn task of a spawn pool (`fork()` + `wake_up_new_task`),
    /// from this task's CPU. For workload generators only (a `make` forking its
    /// compilers): the pool is an index into the workload's own pools, so it is not
    /// part of the scenario format.
    #[serde(skip)]
    Spawn { pool: u32 },
}

fn one() -> u32 {
    1
}

/// A channel's index in the simulator's channel table.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct ChannelId(pub u32);

/// A duration distribution's index: in its program's `dists` as compiled, in the
/// simulator's table once built (as channel ids are shifted to the simulator's).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct DistId(pub u32);

/// A flattened program instruction: plain data, copied out of the program at each
/// step. Kept to 16 bytes (distributions by index, positions as `u32`): every
/// task's step reads its program, and a thousand tasks' programs then stay in the
/// first-level cache where 48-byte instructions did not.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Instr {
    Run(DistId, bool),
    Spin(DistId),
    Sleep(DistId),
    Wait(ChannelId),
    Post(ChannelId, u32, bool),
    Barrier(ChannelId, u32, u32),
    WakeAll(ChannelId),
    Enlist(ChannelId),
    Await,
    WakeEach(ChannelId, DistId),
    Reset(ChannelId),
    Complete,
    /// The new affinity mask: its CPU numbers are `Program::masks[N]`.
    SetAffinity(u32),
    /// Fork the next unborn task of this spawn pool.
    Spawn(u32),
    /// Start of a loop; `end` is the index of its `LoopEnd`.
    LoopStart {
        count: Option<u32>,
        end: u32,
    },
    /// End of a loop; `start` is the index of its `LoopStart`.
    LoopEnd {
        start: u32,
    },
}

const _: () = assert!(std::mem::size_of::<Instr>() <= 16);

/// A compiled program, shared by every task that runs it.
#[derive(Clone, Debug, PartialEq)]
pub struct Program {
    pub instrs: Vec<Instr>,
    /// The CPU numbers of each `SetAffinity`.
    pub masks: Vec<Vec<u32>>,
    /// The distributions the instructions name by `DistId`.
    pub dists: Vec<Dist>,
}

/// Maps channel names to ids; names are scoped by the caller (a workload instance).
#[derive(Clone, Debug, Default)]
pub struct ChannelNames {
    pub ids: BTreeMap<String, ChannelId>,
    pub next: u32,
    /// Tokens a channel starts with (free slots of a bounded buffer).
    pub initial_tokens: BTreeMap<ChannelId, u64>,
    /// Phase labels used by barriers, by index.
    pub labels: Vec<String>,
}

impl ChannelNames {
    pub fn id(&mut self, name: &str) -> ChannelId {
        if let Some(id) = self.ids.get(name) {
            return *id;
        }
        let id = ChannelId(self.next);
        self.next += 1;
        self.ids.insert(name.to_string(), id);
        id
    }

    pub fn with_tokens(&mut self, name: &str, tokens: u64) -> ChannelId {
        let id = self.id(name);
        self.initial_tokens.insert(id, tokens);
        id
    }

    pub fn label(&mut self, label: &str) -> u32 {
        match self.labels.iter().position(|known| known == label) {
            Some(idx) => idx as u32,
            None => {
                self.labels.push(label.to_string());
                (self.labels.len() - 1) as u32
            }
        }
    }
}

impl Program {
    pub fn compile(ops: &[Op], channels: &mut ChannelNames) -> Program {
        let mut program = Program {
            instrs: Vec::new(),
            masks: Vec::new(),
            dists: Vec::new(),
        };
        emit(ops, channels, &mut program);
        program
    }
}

impl Program {
    /// `dist` appended to this program's table (the build shares equal ones).
    fn dist(&mut self, dist: Dist) -> DistId {
        self.dists.push(dist);
        DistId(self.dists.len() as u32 - 1)
    }
}

impl Dist {
    /// The variant and its parameters bit for bit: equal keys draw the same
    /// durations from the same random numbers.
    fn key(&self) -> (u8, [u64; 4]) {
        match *self {
            Dist::Fixed { us } => (0, [us.to_bits(), 0, 0, 0]),
            Dist::Uniform { min_us, max_us } => (1, [min_us.to_bits(), max_us.to_bits(), 0, 0]),
            Dist::Exponential { mean_us } => (2, [mean_us.to_bits(), 0, 0, 0]),
            Dist::Normal {
                mean_us,
                stddev_us,
                min_us,
                max_us,
            } => (
                3,
                [
                    mean_us.to_bits(),
                    stddev_us.to_bits(),
                    min_us.to_bits(),
                    max_us.to_bits(),
                ],
            ),
        }
    }
}

/// The simulator's one table of distributions, each distinct one once (a replayed
/// log's programs have one per observed run, nearly all distinct: a hash, not a
/// search). Ids are handed out in first-seen order, so a run is the same each time.
#[derive(Debug, Default)]
pub(crate) struct DistTable {
    pub dists: Vec<Dist>,
    ids: std::collections::HashMap<(u8, [u64; 4]), DistId>,
}

impl DistTable {
    pub(crate) fn intern(&mut self, dist: Dist) -> DistId {
        *self.ids.entry(dist.key()).or_insert_with(|| {
            self.dists.push(dist);
            DistId(self.dists.len() as u32 - 1)
        })
    }
}

fn emit(ops: &[Op], channels: &mut ChannelNames, program: &mut Program) {
    for op in ops {
        let instr = match op {
            Op::Run {
                duration,
                memory_bound,
            } => Instr::Run(program.dist(*duration), *memory_bound),
            Op::Sleep { duration } => Instr::Sleep(program.dist(*duration)),
            Op::Spin { duration } => Instr::Spin(program.dist(*duration)),
            Op::Wait { channel } => Instr::Wait(channels.id(channel)),
            Op::Post {
                channel,
                count,
                sync,
            } => Instr::Post(channels.id(channel), *count, *sync),
            Op::Barrier {
                channel,
                parties,
                label,
            } => {
                let label = channels.label(label);
                Instr::Barrier(channels.id(channel), *parties, label)
            }
            Op::WakeAll { channel } => Instr::WakeAll(channels.id(channel)),
            Op::Enlist { channel } => Instr::Enlist(channels.id(channel)),
            Op::Await => Instr::Await,
            Op::WakeEach { channel, each } => {
                Instr::WakeEach(channels.id(channel), program.dist(*each))
            }
            Op::Reset { channel } => Instr::Reset(channels.id(channel)),
            Op::Complete => Instr::Complete,
            Op::SetAffinity { cpus } => {
                program
                    .masks
                    .push(crate::cpuset::parse_cpu_list(cpus).unwrap_or_default());
                Instr::SetAffinity(program.masks.len() as u32 - 1)
            }
            Op::Spawn { pool } => Instr::Spawn(*pool),
            Op::Loop { count, body } => {
                let start = program.instrs.len() as u32;
                program.instrs.push(Instr::LoopStart {
                    count: *count,
                    end: 0,
                });
                emit(body, channels, program);
                let end = program.instrs.len() as u32;
                program.instrs[start as usize] = Instr::LoopStart { count: *count, end };
                Instr::LoopEnd { start }
            }
        };
        program.instrs.push(instr);
    }
}

/// Checks a program tree: distributions, and that no endless loop can spin without
/// taking time. Errors carry a path relative to the program (`2.body.0.duration.us`).
pub fn check_program(ops: &[Op]) -> Vec<(String, String)> {
    let mut errors = Vec::new();
    check_ops(ops, "", &mut errors);
    errors
}

fn check_ops(ops: &[Op], prefix: &str, errors: &mut Vec<(String, String)>) {
    for (idx, op) in ops.iter().enumerate() {
        let here = format!("{prefix}{idx}");
        match op {
            Op::Run { duration, .. } | Op::Spin { duration } | Op::Sleep { duration } => {
                if let Err((field, message)) = duration.check() {
                    errors.push((format!("{here}.duration.{field}"), message));
                }
            }
            Op::WakeEach { each, .. } => {
                if let Err((field, message)) = each.check() {
                    errors.push((format!("{here}.each.{field}"), message));
                }
            }
            Op::Post { count, .. } if *count == 0 => {
                errors.push((format!("{here}.count"), "must be at least 1, got 0".into()));
            }
            Op::SetAffinity { cpus } => {
                if let Err(message) = crate::cpuset::parse_cpu_list(cpus) {
                    errors.push((format!("{here}.cpus"), message));
                }
            }
            Op::Barrier { parties, .. } if *parties == 0 => {
                errors.push((
                    format!("{here}.parties"),
                    "must be at least 1, got 0".into(),
                ));
            }
            Op::Loop { count, body } => {
                if count.is_none() && !takes_time(body) {
                    errors.push((
                        format!("{here}.body"),
                        "an endless loop must contain a run, sleep or wait that takes time".into(),
                    ));
                }
                check_ops(body, &format!("{here}.body."), errors);
            }
            _ => {}
        }
    }
}

fn takes_time(ops: &[Op]) -> bool {
    ops.iter().any(|op| match op {
        Op::Run { duration, .. } | Op::Spin { duration } | Op::Sleep { duration } => {
            duration.can_take_time()
        }
        Op::Wait { .. } | Op::Barrier { .. } => true,
        // It blocks only on a word an `Enlist` set.
        Op::Await => enlists(ops),
        Op::Loop { body, .. } => takes_time(body),
        _ => false,
    })
}

fn enlists(ops: &[Op]) -> bool {
    ops.iter().any(|op| match op {
        Op::Enlist { .. } => true,
        Op::Loop { body, .. } => enlists(body),
        _ => false,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn loops_compile_with_matching_markers() {
        let ops = vec![Op::Loop {
            count: Some(3),
            body: vec![
                Op::Run {
                    duration: Dist::fixed_us(5.0),
                    memory_bound: false,
                },
                Op::Post {
                    channel: "c".into(),
                    count: 1,
                    sync: false,
                },
            ],
        }];
        let mut names = ChannelNames::default();
        let program = Program::compile(&ops, &mut names);
        assert_eq!(
            program.instrs[0],
            Instr::LoopStart {
                count: Some(3),
                end: 3
            }
        );
        assert_eq!(program.instrs[3], Instr::LoopEnd { start: 0 });
    }

    #[test]
    fn endless_loop_without_time_is_rejected() {
        let ops = vec![Op::Loop {
            count: None,
            body: vec![Op::Complete],
        }];
        let errors = check_program(&ops);
        assert_eq!(errors[0].0, "0.body");
    }

    #[test]
    fn uniform_needs_ordered_bounds() {
        let dist = Dist::Uniform {
            min_us: 5.0,
            max_us: 1.0,
        };
        assert_eq!(dist.check().unwrap_err().0, "max_us");
    }
}
