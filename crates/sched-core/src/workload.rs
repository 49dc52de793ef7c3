//! Workload generators: each expands into tasks running behaviour programs,
//! parametrised like the real benchmark it imitates.

use crate::behaviour::{check_program, ChannelNames, Dist, Op, Program};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// One workload of a scenario.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum WorkloadSpec {
    /// Chris Mason's schbench (2016): message threads wake their workers, workers
    /// think (spin) and report back. Latency is wakeup to running, for workers.
    Schbench(SchbenchSpec),
    /// Tasks written by hand, each with a behaviour program.
    Tasks(TasksSpec),
}

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

fn schbench_footprint() -> u64 {
    256
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct TasksSpec {
    /// What one completed unit of work is called (for the throughput figure).
    #[serde(default = "default_unit")]
    pub unit: String,
    #[schemars(length(min = 1))]
    pub tasks: Vec<TaskTemplate>,
}

fn default_unit() -> String {
    "ops".to_string()
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct TaskTemplate {
    /// The task's name (`comm`), at most 15 characters as in the kernel.
    #[schemars(length(min = 1, max = 15))]
    pub comm: String,
    /// How many identical tasks to start.
    #[serde(default = "one")]
    #[schemars(range(min = 1, max = 4096))]
    pub count: u32,
    #[serde(default)]
    #[schemars(range(min = -20, max = 19))]
    pub nice: i32,
    /// Affinity as a CPU list (`0-3,8`); all CPUs when absent.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cpus: Option<String>,
    /// When the tasks fork, in microseconds from the start.
    #[serde(default)]
    #[schemars(range(min = 0))]
    pub start_us: u64,
    /// Whether this task's wakeup latency counts in the latency table.
    #[serde(default)]
    pub record_latency: bool,
    /// Data it keeps warm in cache, in KiB; refilled when it runs elsewhere.
    #[serde(default)]
    #[schemars(range(max = 1048576))]
    pub footprint_kib: u64,
    pub program: Vec<Op>,
}

fn one() -> u32 {
    1
}

/// A task to create, before it has a pid.
#[derive(Clone, Debug)]
pub struct TaskPlan {
    pub comm: String,
    pub nice: i32,
    pub cpus: Option<String>,
    pub start_us: u64,
    pub record_latency: bool,
    pub program: usize,
    /// Index of the thread group leader within this workload's plans (tgid).
    pub leader: usize,
    pub footprint_kib: u64,
}

/// Tasks and programs a workload expands to. Channel names are private to it.
#[derive(Clone, Debug, Default)]
pub struct Expansion {
    pub tasks: Vec<TaskPlan>,
    pub programs: Vec<Program>,
    pub channels: ChannelNames,
    pub unit: String,
}

impl WorkloadSpec {
    pub fn label(&self) -> String {
        match self {
            WorkloadSpec::Schbench(spec) => format!(
                "schbench -m {} -t {} -c {} -s {}",
                spec.message_threads, spec.worker_threads, spec.cputime_us, spec.sleeptime_us
            ),
            WorkloadSpec::Tasks(spec) => {
                let names: Vec<&str> = spec.tasks.iter().map(|task| task.comm.as_str()).collect();
                format!("tasks: {}", names.join(", "))
            }
        }
    }

    /// Semantic checks the schema cannot express; paths are relative to the workload.
    pub fn check(&self) -> Vec<(String, String)> {
        let mut errors = Vec::new();
        match self {
            WorkloadSpec::Schbench(spec) => {
                if spec.message_threads == 0 {
                    errors.push(("message_threads".into(), "must be at least 1, got 0".into()));
                }
                if spec.worker_threads == 0 {
                    errors.push(("worker_threads".into(), "must be at least 1, got 0".into()));
                }
                if spec.cputime_us == 0 && spec.sleeptime_us == 0 {
                    errors.push((
                        "cputime_us".into(),
                        "cputime_us and sleeptime_us cannot both be 0: the benchmark would never take time".into(),
                    ));
                }
            }
            WorkloadSpec::Tasks(spec) => {
                if spec.tasks.is_empty() {
                    errors.push(("tasks".into(), "must list at least one task".into()));
                }
                for (idx, task) in spec.tasks.iter().enumerate() {
                    if task.count == 0 {
                        errors.push((
                            format!("tasks.{idx}.count"),
                            "must be at least 1, got 0".into(),
                        ));
                    }
                    if task.comm.is_empty() || task.comm.len() > 15 {
                        errors.push((
                            format!("tasks.{idx}.comm"),
                            format!("must be 1 to 15 characters, got {}", task.comm.len()),
                        ));
                    }
                    for (path, message) in check_program(&task.program) {
                        errors.push((format!("tasks.{idx}.program.{path}"), message));
                    }
                }
            }
        }
        errors
    }

    pub fn expand(&self) -> Expansion {
        match self {
            WorkloadSpec::Schbench(spec) => expand_schbench(spec),
            WorkloadSpec::Tasks(spec) => expand_tasks(spec),
        }
    }

    /// Affinity CPU lists with their paths, for validation against the topology.
    pub fn cpu_lists(&self) -> Vec<(String, String)> {
        match self {
            WorkloadSpec::Schbench(spec) => spec
                .cpus
                .iter()
                .map(|list| ("cpus".to_string(), list.clone()))
                .collect(),
            WorkloadSpec::Tasks(spec) => spec
                .tasks
                .iter()
                .enumerate()
                .filter_map(|(idx, task)| {
                    task.cpus
                        .as_ref()
                        .map(|list| (format!("tasks.{idx}.cpus"), list.clone()))
                })
                .collect(),
        }
    }
}

fn expand_schbench(spec: &SchbenchSpec) -> Expansion {
    let mut expansion = Expansion {
        unit: "requests/s".into(),
        ..Default::default()
    };
    let sleep = spec.sleeptime_us as f64;
    for messenger in 0..spec.message_threads {
        let futex = format!("m{messenger}.futex");
        let list = format!("m{messenger}.list");
        // The message thread: reset its futex, wake every worker that reported in,
        // wait for the next report, then sleep `-s` plus up to a quarter of jitter.
        let mut messenger_ops = vec![
            Op::Reset {
                channel: futex.clone(),
            },
            Op::WakeAll {
                channel: list.clone(),
            },
            Op::Wait {
                channel: futex.clone(),
            },
        ];
        if spec.sleeptime_us > 0 {
            messenger_ops.push(Op::Sleep {
                duration: Dist::Uniform {
                    min_us: sleep,
                    max_us: sleep + sleep / 4.0,
                },
            });
        }
        let messenger_program = vec![Op::Loop {
            count: None,
            body: messenger_ops,
        }];
        // A worker: report to the messenger and wait to be woken (the latency sample),
        // then think for `-c` on the CPU.
        let worker_program = vec![Op::Loop {
            count: None,
            body: vec![
                Op::Post {
                    channel: futex,
                    count: 1,
                },
                Op::Wait { channel: list },
                Op::Run {
                    duration: Dist::fixed_us(spec.cputime_us as f64),
                },
                Op::Complete,
            ],
        }];
        let messenger_idx = expansion.programs.len();
        expansion.programs.push(Program::compile(
            &messenger_program,
            &mut expansion.channels,
        ));
        expansion
            .programs
            .push(Program::compile(&worker_program, &mut expansion.channels));
        expansion.tasks.push(TaskPlan {
            comm: "schbench".into(),
            nice: spec.nice,
            cpus: spec.cpus.clone(),
            start_us: 0,
            record_latency: false,
            program: messenger_idx,
            leader: 0,
            footprint_kib: spec.footprint_kib,
        });
        for _ in 0..spec.worker_threads {
            expansion.tasks.push(TaskPlan {
                comm: "schbench-worker".into(),
                nice: spec.nice,
                cpus: spec.cpus.clone(),
                start_us: 0,
                record_latency: true,
                program: messenger_idx + 1,
                leader: 0,
                footprint_kib: spec.footprint_kib,
            });
        }
    }
    expansion
}

fn expand_tasks(spec: &TasksSpec) -> Expansion {
    let mut expansion = Expansion {
        unit: format!("{}/s", spec.unit),
        ..Default::default()
    };
    for task in &spec.tasks {
        let program = expansion.programs.len();
        expansion
            .programs
            .push(Program::compile(&task.program, &mut expansion.channels));
        let leader = expansion.tasks.len();
        for _ in 0..task.count {
            expansion.tasks.push(TaskPlan {
                comm: task.comm.clone(),
                nice: task.nice,
                cpus: task.cpus.clone(),
                start_us: task.start_us,
                record_latency: task.record_latency,
                program,
                leader,
                footprint_kib: task.footprint_kib,
            });
        }
    }
    expansion
}
