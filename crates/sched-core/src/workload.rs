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
    /// hackbench: groups of senders and receivers passing messages through bounded
    /// socket buffers (`hackbench -g GROUPS -l LOOPS`, process mode).
    Hackbench(HackbenchSpec),
    /// netperf request/response pairs (`-t UDP_RR` or `-t TCP_RR`): tiny run times,
    /// one wakeup per transaction each way.
    Netperf(NetperfSpec),
    /// tbench: client/server pairs with somewhat larger requests than netperf.
    Tbench(TbenchSpec),
    /// A kernel compile (`make -j JOBS`): CPU-bound compiler jobs with short I/O waits.
    Kcompile(KcompileSpec),
    /// STREAM: threads pinned by a CPU list, memory-bandwidth bound, running Copy,
    /// Scale, Add and Triad with a barrier after each.
    Stream(StreamSpec),
    /// turbo_bench: N CPU-bound tasks and 2N short "jitter" tasks.
    TurboBench(TurboBenchSpec),
    /// A cgroup tree (`depth` levels of `width` children) whose every leaf runs a
    /// schbench under a CFS bandwidth quota: together the leaves may use
    /// `quota_pct` of the machine each `period_us`.
    CgroupTree(CgroupTreeSpec),
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

fn schbench_footprint() -> u64 {
    256
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct HackbenchSpec {
    /// `-g`: groups, each of `fds` senders and `fds` receivers.
    #[schemars(range(min = 1, max = 256))]
    pub groups: u32,
    /// `-l`: messages each sender sends to each receiver of its group.
    #[schemars(range(min = 1, max = 1000000))]
    pub loops: u32,
    /// `-f`: senders (and receivers) per group (default 20).
    #[serde(default = "twenty")]
    #[schemars(range(min = 1, max = 64))]
    pub fds: u32,
    /// Messages a receiver's socket buffer holds before senders block (default 64).
    #[serde(default = "sixty_four")]
    #[schemars(range(min = 1, max = 100000))]
    pub buffer_messages: u32,
    /// CPU time to write one message, in microseconds (default 1.5).
    #[serde(default = "hackbench_write_us")]
    pub write_us: f64,
    /// CPU time to read one message, in microseconds (default 1.0).
    #[serde(default = "hackbench_read_us")]
    pub read_us: f64,
    /// Data each task keeps warm, in KiB (default 32: small).
    #[serde(default = "thirty_two")]
    #[schemars(range(max = 1048576))]
    pub footprint_kib: u64,
}

fn twenty() -> u32 {
    20
}
fn sixty_four() -> u32 {
    64
}
fn thirty_two() -> u64 {
    32
}
fn hackbench_write_us() -> f64 {
    1.5
}
fn hackbench_read_us() -> f64 {
    1.0
}

/// netperf's request/response tests.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum NetperfMode {
    UdpRr,
    TcpRr,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct NetperfSpec {
    pub mode: NetperfMode,
    /// Client/server pairs running at once (`for i in $(seq N); do netperf ... & done`).
    #[schemars(range(min = 1, max = 4096))]
    pub pairs: u32,
    /// Data each task keeps warm, in KiB (default 16).
    #[serde(default = "sixteen")]
    #[schemars(range(max = 1048576))]
    pub footprint_kib: u64,
}

fn sixteen() -> u64 {
    16
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct TbenchSpec {
    /// Client processes (`tbench N`), each with its own server thread.
    #[schemars(range(min = 1, max = 4096))]
    pub clients: u32,
    /// Data each task keeps warm, in KiB (default 128).
    #[serde(default = "one_twenty_eight")]
    #[schemars(range(max = 1048576))]
    pub footprint_kib: u64,
}

fn one_twenty_eight() -> u64 {
    128
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct KcompileSpec {
    /// `make -j JOBS`: compiler jobs running at once.
    #[schemars(range(min = 1, max = 4096))]
    pub jobs: u32,
    /// Compilation units in the build (each is one job).
    #[schemars(range(min = 1, max = 1000000))]
    pub units: u32,
    /// Mean CPU time of one unit, in milliseconds (default 120).
    #[serde(default = "kcompile_unit_ms")]
    pub unit_ms: f64,
    /// Data a compiler keeps in cache, in KiB (default 2048: large, little reuse).
    #[serde(default = "two_thousand_forty_eight")]
    #[schemars(range(max = 1048576))]
    pub footprint_kib: u64,
}

fn kcompile_unit_ms() -> f64 {
    120.0
}
fn two_thousand_forty_eight() -> u64 {
    2048
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct StreamSpec {
    /// OpenMP threads (`OMP_NUM_THREADS`).
    #[schemars(range(min = 1, max = 4096))]
    pub threads: u32,
    /// CPUs the threads may use (`numactl -C LIST`); all CPUs when absent.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cpus: Option<String>,
    /// Elements per array (`STREAM_ARRAY_SIZE`, 8-byte doubles; default 10,000,000).
    #[serde(default = "stream_array")]
    #[schemars(range(min = 1000, max = 10000000000u64))]
    pub array_size: u64,
    /// Times each kernel runs (`NTIMES`, default 10).
    #[serde(default = "ten")]
    #[schemars(range(min = 1, max = 10000))]
    pub ntimes: u32,
}

fn stream_array() -> u64 {
    10_000_000
}
fn ten() -> u32 {
    10
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct TurboBenchSpec {
    /// N: CPU-bound tasks; 2N jitter tasks run beside them.
    #[schemars(range(min = 1, max = 4096))]
    pub cpu_bound: u32,
    /// A jitter task's burst, in microseconds (default 200).
    #[serde(default = "jitter_run_us")]
    pub jitter_run_us: f64,
    /// A jitter task's sleep between bursts, in microseconds (default 10000).
    #[serde(default = "jitter_sleep_us")]
    pub jitter_sleep_us: f64,
}

fn jitter_run_us() -> f64 {
    200.0
}
fn jitter_sleep_us() -> f64 {
    10_000.0
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct CgroupTreeSpec {
    #[schemars(range(min = 1, max = 8))]
    pub depth: u32,
    #[schemars(range(min = 1, max = 64))]
    pub width: u32,
    /// The leaves' combined quota, in percent of the whole machine (default 80).
    #[serde(default = "eighty")]
    #[schemars(range(min = 1, max = 100))]
    pub quota_pct: u32,
    /// The bandwidth period (`cpu.cfs_period_us`, default 10000).
    #[serde(default = "ten_thousand")]
    #[schemars(range(min = 1000, max = 1000000))]
    pub period_us: u64,
    /// The schbench each leaf runs (`-m`, `-t`, `-c`, `-s`).
    pub leaf: LeafSchbench,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct LeafSchbench {
    #[schemars(range(min = 1, max = 64))]
    pub message_threads: u32,
    #[schemars(range(min = 1, max = 256))]
    pub worker_threads: u32,
    #[schemars(range(min = 0, max = 10000000))]
    pub cputime_us: u64,
    #[schemars(range(min = 0, max = 10000000))]
    pub sleeptime_us: u64,
}

fn eighty() -> u32 {
    80
}
fn ten_thousand() -> u64 {
    10_000
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
    /// TurboSched's "jitter" class: short, unimportant bursts.
    pub jitter: bool,
    /// Index of its cgroup in the expansion's `groups`.
    pub cgroup: Option<usize>,
}

/// A cgroup a workload creates.
#[derive(Clone, Debug, PartialEq)]
pub struct GroupPlan {
    pub name: String,
    pub parent: Option<usize>,
    /// Quota per period as a fraction of the whole machine's CPU time.
    pub quota_machine_fraction: Option<f64>,
    pub period_us: u64,
}

/// How a workload's throughput is reported, in the benchmark's own unit.
#[derive(Clone, Debug, PartialEq)]
pub enum ThroughputKind {
    /// Completed units per second (`Complete` ops).
    Rate { unit: String },
    /// Time until every task has exited (hackbench, a kernel compile); a rate of
    /// completed units when the run ends first.
    CompletionTime { fallback_unit: String },
    /// STREAM: MB/s per kernel, from its best (shortest) phase and bytes moved.
    StreamPhases { bytes_per_phase: Vec<(String, u64)> },
}

/// Tasks and programs a workload expands to. Channel names are private to it.
#[derive(Clone, Debug)]
pub struct Expansion {
    pub tasks: Vec<TaskPlan>,
    pub programs: Vec<Program>,
    pub channels: ChannelNames,
    pub throughput: ThroughputKind,
    pub groups: Vec<GroupPlan>,
}

impl Expansion {
    fn new(throughput: ThroughputKind) -> Self {
        Expansion {
            tasks: Vec::new(),
            programs: Vec::new(),
            channels: ChannelNames::default(),
            throughput,
            groups: Vec::new(),
        }
    }

    fn rate(unit: &str) -> Self {
        Self::new(ThroughputKind::Rate { unit: unit.into() })
    }

    fn program(&mut self, ops: &[Op]) -> usize {
        self.programs
            .push(Program::compile(ops, &mut self.channels));
        self.programs.len() - 1
    }

    /// Adds `count` tasks running `program`; the first of the call is their leader
    /// unless `leader` names one.
    fn spawn(&mut self, count: u32, template: TaskPlan) {
        for _ in 0..count {
            self.tasks.push(template.clone());
        }
    }
}

fn plan(comm: &str, program: usize, leader: usize, footprint_kib: u64) -> TaskPlan {
    TaskPlan {
        comm: comm.into(),
        nice: 0,
        cpus: None,
        start_us: 0,
        record_latency: false,
        program,
        leader,
        footprint_kib,
        jitter: false,
        cgroup: None,
    }
}

fn run(us: f64) -> Op {
    Op::Run {
        duration: Dist::fixed_us(us),
        memory_bound: false,
    }
}

fn run_exp(mean_us: f64) -> Op {
    Op::Run {
        duration: Dist::Exponential { mean_us },
        memory_bound: false,
    }
}

fn post(channel: &str, sync: bool) -> Op {
    Op::Post {
        channel: channel.into(),
        count: 1,
        sync,
    }
}

fn wait(channel: &str) -> Op {
    Op::Wait {
        channel: channel.into(),
    }
}

fn forever(body: Vec<Op>) -> Vec<Op> {
    vec![Op::Loop { count: None, body }]
}

impl WorkloadSpec {
    pub fn label(&self) -> String {
        match self {
            WorkloadSpec::Schbench(spec) => match spec.pipe_bytes {
                Some(bytes) => format!(
                    "schbench -L -m {} -t {} -p {bytes}",
                    spec.message_threads, spec.worker_threads
                ),
                None => format!(
                    "schbench -m {} -t {} -c {} -s {}",
                    spec.message_threads, spec.worker_threads, spec.cputime_us, spec.sleeptime_us
                ),
            },
            WorkloadSpec::Hackbench(spec) => {
                format!(
                    "hackbench -g {} -f {} -l {}",
                    spec.groups, spec.fds, spec.loops
                )
            }
            WorkloadSpec::Netperf(spec) => format!(
                "{} x netperf -t {}",
                spec.pairs,
                match spec.mode {
                    NetperfMode::UdpRr => "UDP_RR",
                    NetperfMode::TcpRr => "TCP_RR",
                }
            ),
            WorkloadSpec::Tbench(spec) => format!("tbench {}", spec.clients),
            WorkloadSpec::Kcompile(spec) => format!("make -j{} ({} units)", spec.jobs, spec.units),
            WorkloadSpec::Stream(spec) => match &spec.cpus {
                Some(cpus) => format!("numactl -C {cpus} stream ({} threads)", spec.threads),
                None => format!("stream ({} threads)", spec.threads),
            },
            WorkloadSpec::TurboBench(spec) => format!(
                "turbo_bench: {} CPU-bound + {} jitter",
                spec.cpu_bound,
                2 * spec.cpu_bound
            ),
            WorkloadSpec::CgroupTree(spec) => format!(
                "cgroup tree d{} w{} ({} leaves at {} %), schbench -m {} -t {} per leaf",
                spec.depth,
                spec.width,
                spec.width.pow(spec.depth),
                spec.quota_pct,
                spec.leaf.message_threads,
                spec.leaf.worker_threads
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
        let mut at_least_one = |field: &str, value: u64| {
            if value == 0 {
                errors.push((field.to_string(), "must be at least 1, got 0".to_string()));
            }
        };
        match self {
            WorkloadSpec::Schbench(spec) => {
                at_least_one("message_threads", spec.message_threads as u64);
                at_least_one("worker_threads", spec.worker_threads as u64);
                if spec.cputime_us == 0 && spec.sleeptime_us == 0 && spec.pipe_bytes.is_none() {
                    errors.push((
                        "cputime_us".into(),
                        "cputime_us and sleeptime_us cannot both be 0: the benchmark would never take time".into(),
                    ));
                }
            }
            WorkloadSpec::Hackbench(spec) => {
                at_least_one("groups", spec.groups as u64);
                at_least_one("loops", spec.loops as u64);
                at_least_one("fds", spec.fds as u64);
                at_least_one("buffer_messages", spec.buffer_messages as u64);
                for (field, value) in [("write_us", spec.write_us), ("read_us", spec.read_us)] {
                    if !(value.is_finite() && value > 0.0) {
                        errors.push((
                            field.into(),
                            format!("must be a positive number of microseconds, got {value}"),
                        ));
                    }
                }
            }
            WorkloadSpec::Netperf(spec) => at_least_one("pairs", spec.pairs as u64),
            WorkloadSpec::Tbench(spec) => at_least_one("clients", spec.clients as u64),
            WorkloadSpec::Kcompile(spec) => {
                at_least_one("jobs", spec.jobs as u64);
                at_least_one("units", spec.units as u64);
                if !(spec.unit_ms.is_finite() && spec.unit_ms > 0.0) {
                    errors.push((
                        "unit_ms".into(),
                        format!(
                            "must be a positive number of milliseconds, got {}",
                            spec.unit_ms
                        ),
                    ));
                }
            }
            WorkloadSpec::Stream(spec) => {
                at_least_one("threads", spec.threads as u64);
                at_least_one("ntimes", spec.ntimes as u64);
                if spec.array_size < 1000 {
                    errors.push((
                        "array_size".into(),
                        format!("must be at least 1000, got {}", spec.array_size),
                    ));
                }
            }
            WorkloadSpec::TurboBench(spec) => {
                at_least_one("cpu_bound", spec.cpu_bound as u64);
                for (field, value) in [
                    ("jitter_run_us", spec.jitter_run_us),
                    ("jitter_sleep_us", spec.jitter_sleep_us),
                ] {
                    if !(value.is_finite() && value > 0.0) {
                        errors.push((
                            field.into(),
                            format!("must be a positive number of microseconds, got {value}"),
                        ));
                    }
                }
            }
            WorkloadSpec::CgroupTree(spec) => {
                at_least_one("depth", spec.depth as u64);
                at_least_one("width", spec.width as u64);
                let leaves = (spec.width as u64).saturating_pow(spec.depth);
                if leaves > 4096 {
                    errors.push((
                        "width".into(),
                        format!(
                            "width^depth makes {leaves} leaf cgroups; at most 4096 are modelled"
                        ),
                    ));
                }
                if spec.leaf.cputime_us == 0 && spec.leaf.sleeptime_us == 0 {
                    errors.push((
                        "leaf.cputime_us".into(),
                        "cputime_us and sleeptime_us cannot both be 0".into(),
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

    /// How many tasks it creates (without building them).
    pub fn task_count(&self) -> u64 {
        match self {
            WorkloadSpec::Schbench(spec) => {
                spec.message_threads as u64 * (1 + spec.worker_threads as u64)
            }
            WorkloadSpec::Hackbench(spec) => spec.groups as u64 * 2 * spec.fds as u64,
            WorkloadSpec::Netperf(spec) => 2 * spec.pairs as u64,
            WorkloadSpec::Tbench(spec) => 2 * spec.clients as u64,
            WorkloadSpec::Kcompile(spec) => spec.jobs.min(spec.units) as u64,
            WorkloadSpec::Stream(spec) => spec.threads as u64,
            WorkloadSpec::TurboBench(spec) => 3 * spec.cpu_bound as u64,
            WorkloadSpec::CgroupTree(spec) => {
                (spec.width as u64).saturating_pow(spec.depth)
                    * spec.leaf.message_threads as u64
                    * (1 + spec.leaf.worker_threads as u64)
            }
            WorkloadSpec::Tasks(spec) => spec.tasks.iter().map(|task| task.count as u64).sum(),
        }
    }

    pub fn expand(&self) -> Expansion {
        match self {
            WorkloadSpec::Schbench(spec) => expand_schbench(spec),
            WorkloadSpec::Hackbench(spec) => expand_hackbench(spec),
            WorkloadSpec::Netperf(spec) => expand_netperf(spec),
            WorkloadSpec::Tbench(spec) => expand_tbench(spec),
            WorkloadSpec::Kcompile(spec) => expand_kcompile(spec),
            WorkloadSpec::Stream(spec) => expand_stream(spec),
            WorkloadSpec::TurboBench(spec) => expand_turbo_bench(spec),
            WorkloadSpec::CgroupTree(spec) => expand_cgroup_tree(spec),
            WorkloadSpec::Tasks(spec) => expand_tasks(spec),
        }
    }

    /// Affinity CPU lists with their paths, for validation against the topology.
    pub fn cpu_lists(&self) -> Vec<(String, String)> {
        match self {
            WorkloadSpec::Schbench(SchbenchSpec {
                cpus: Some(list), ..
            })
            | WorkloadSpec::Stream(StreamSpec {
                cpus: Some(list), ..
            }) => {
                vec![("cpus".to_string(), list.clone())]
            }
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
            _ => Vec::new(),
        }
    }
}

fn expand_schbench(spec: &SchbenchSpec) -> Expansion {
    let mut expansion = Expansion::rate("requests/s");
    add_schbench(&mut expansion, spec, "", None);
    expansion
}

/// Adds one schbench instance; `prefix` keeps its channels apart from others'.
fn add_schbench(
    expansion: &mut Expansion,
    spec: &SchbenchSpec,
    prefix: &str,
    cgroup: Option<usize>,
) {
    let sleep = spec.sleeptime_us as f64;
    // One process: its first thread leads the thread group.
    let leader = expansion.tasks.len();
    for messenger in 0..spec.message_threads {
        let futex = format!("{prefix}m{messenger}.futex");
        let list = format!("{prefix}m{messenger}.list");
        // The message thread: reset its futex, wake every worker that reported in,
        // wait for the next report, then (unless piping) sleep `-s` plus up to a
        // quarter of jitter.
        let mut messenger_ops = vec![
            Op::Reset {
                channel: futex.clone(),
            },
            Op::WakeAll {
                channel: list.clone(),
            },
            wait(&futex),
        ];
        if spec.sleeptime_us > 0 && spec.pipe_bytes.is_none() {
            messenger_ops.push(Op::Sleep {
                duration: Dist::Uniform {
                    min_us: sleep,
                    max_us: sleep + sleep / 4.0,
                },
            });
        }
        // A worker: report to the messenger and wait to be woken (the latency sample),
        // then think for `-c` on the CPU, or in pipe mode copy `-p` bytes.
        let work = match spec.pipe_bytes {
            // A page-sized memset and the futex syscalls: about a microsecond.
            Some(bytes) => 0.5 + bytes as f64 / 4096.0,
            None => spec.cputime_us as f64,
        };
        let worker_ops = vec![post(&futex, false), wait(&list), run(work), Op::Complete];
        let messenger_program = expansion.program(&forever(messenger_ops));
        let worker_program = expansion.program(&forever(worker_ops));
        let mut template = plan("schbench", messenger_program, leader, spec.footprint_kib);
        template.nice = spec.nice;
        template.cpus = spec.cpus.clone();
        template.cgroup = cgroup;
        expansion.spawn(1, template.clone());
        template.comm = "schbench-worker".into();
        template.program = worker_program;
        template.record_latency = true;
        expansion.spawn(spec.worker_threads, template);
    }
}

fn expand_cgroup_tree(spec: &CgroupTreeSpec) -> Expansion {
    let mut expansion = Expansion::rate("requests/s");
    let leaves = spec.width.pow(spec.depth);
    let leaf_fraction = spec.quota_pct as f64 / 100.0 / leaves as f64;
    // Breadth-first: level by level, each node with `width` children.
    let mut level: Vec<usize> = Vec::new();
    for depth in 1..=spec.depth {
        let parents: Vec<Option<usize>> = if depth == 1 {
            vec![None]
        } else {
            level.iter().copied().map(Some).collect()
        };
        let mut next = Vec::new();
        for parent in parents {
            for child in 0..spec.width {
                let name = match parent {
                    Some(parent) => format!("{}/{child}", expansion.groups[parent].name),
                    None => format!("/{child}"),
                };
                let is_leaf = depth == spec.depth;
                expansion.groups.push(GroupPlan {
                    name,
                    parent,
                    quota_machine_fraction: is_leaf.then_some(leaf_fraction),
                    period_us: spec.period_us,
                });
                next.push(expansion.groups.len() - 1);
            }
        }
        level = next;
    }
    let leaf = SchbenchSpec {
        message_threads: spec.leaf.message_threads,
        worker_threads: spec.leaf.worker_threads,
        cputime_us: spec.leaf.cputime_us,
        sleeptime_us: spec.leaf.sleeptime_us,
        pipe_bytes: None,
        cpus: None,
        nice: 0,
        footprint_kib: 64,
    };
    for (leaf_idx, group) in level.into_iter().enumerate() {
        add_schbench(&mut expansion, &leaf, &format!("l{leaf_idx}."), Some(group));
    }
    expansion
}

fn expand_hackbench(spec: &HackbenchSpec) -> Expansion {
    let mut expansion = Expansion::new(ThroughputKind::CompletionTime {
        fallback_unit: "messages/s".into(),
    });
    for group in 0..spec.groups {
        // Each receiver's socket: `data` holds sent messages, `space` its free slots.
        for receiver in 0..spec.fds {
            expansion.channels.with_tokens(
                &format!("g{group}.r{receiver}.space"),
                spec.buffer_messages as u64,
            );
        }
        let mut sender_body = Vec::new();
        for receiver in 0..spec.fds {
            sender_body.push(wait(&format!("g{group}.r{receiver}.space")));
            sender_body.push(run(spec.write_us));
            sender_body.push(post(&format!("g{group}.r{receiver}.data"), true));
        }
        let sender = expansion.program(&[Op::Loop {
            count: Some(spec.loops),
            body: sender_body,
        }]);
        let leader = expansion.tasks.len();
        for receiver in 0..spec.fds {
            let receiver_program = expansion.program(&[Op::Loop {
                count: Some(spec.loops * spec.fds),
                body: vec![
                    wait(&format!("g{group}.r{receiver}.data")),
                    run(spec.read_us),
                    post(&format!("g{group}.r{receiver}.space"), true),
                    Op::Complete,
                ],
            }]);
            let mut template = plan("hackbench", receiver_program, leader, spec.footprint_kib);
            template.record_latency = true;
            expansion.spawn(1, template);
        }
        expansion.spawn(
            spec.fds,
            plan("hackbench", sender, leader, spec.footprint_kib),
        );
    }
    expansion
}

/// A client/server request-response pair (netperf's RR tests, tbench): the client
/// works, posts a request and waits for the response; the server waits, works, replies.
struct PingPong<'a> {
    client_comm: &'a str,
    server_comm: &'a str,
    client_us: f64,
    server_us: f64,
    footprint_kib: u64,
}

fn add_ping_pong(expansion: &mut Expansion, name: &str, pair: &PingPong<'_>) {
    let request = format!("{name}.request");
    let response = format!("{name}.response");
    let client = expansion.program(&forever(vec![
        run_exp(pair.client_us),
        post(&request, true),
        wait(&response),
        Op::Complete,
    ]));
    let server = expansion.program(&forever(vec![
        wait(&request),
        run_exp(pair.server_us),
        post(&response, true),
    ]));
    let leader = expansion.tasks.len();
    for (comm, program, own_leader) in [
        (pair.client_comm, client, leader),
        (pair.server_comm, server, leader + 1),
    ] {
        let mut template = plan(comm, program, own_leader, pair.footprint_kib);
        template.record_latency = true;
        expansion.spawn(1, template);
    }
}

fn expand_netperf(spec: &NetperfSpec) -> Expansion {
    let mut expansion = Expansion::rate("transactions/s");
    // UDP_RR and TCP_RR differ in per-transaction stack work, in microseconds.
    let (client_us, server_us) = match spec.mode {
        NetperfMode::UdpRr => (4.0, 4.0),
        NetperfMode::TcpRr => (5.0, 5.5),
    };
    let pair = PingPong {
        client_comm: "netperf",
        server_comm: "netserver",
        client_us,
        server_us,
        footprint_kib: spec.footprint_kib,
    };
    for index in 0..spec.pairs {
        add_ping_pong(&mut expansion, &format!("p{index}"), &pair);
    }
    expansion
}

fn expand_tbench(spec: &TbenchSpec) -> Expansion {
    let mut expansion = Expansion::rate("transactions/s");
    let pair = PingPong {
        client_comm: "tbench",
        server_comm: "tbench_srv",
        client_us: 25.0,
        server_us: 15.0,
        footprint_kib: spec.footprint_kib,
    };
    for index in 0..spec.clients {
        add_ping_pong(&mut expansion, &format!("c{index}"), &pair);
    }
    expansion
}

fn expand_kcompile(spec: &KcompileSpec) -> Expansion {
    let mut expansion = Expansion::new(ThroughputKind::CompletionTime {
        fallback_unit: "units/s".into(),
    });
    // `make` keeps `jobs` compilers running; each job slot works through its share
    // of the units. A unit is CPU work in a few bursts with short reads in between.
    // Simplification: a slot is one long-lived task rather than a new process per unit.
    let slots = spec.jobs.min(spec.units);
    let unit_us = spec.unit_ms * 1000.0;
    for slot in 0..slots {
        let share = spec.units / slots + u32::from(slot < spec.units % slots);
        let program = expansion.program(&[Op::Loop {
            count: Some(share),
            body: vec![
                Op::Loop {
                    count: Some(4),
                    body: vec![
                        run_exp(unit_us / 4.0),
                        Op::Sleep {
                            duration: Dist::Exponential { mean_us: 150.0 },
                        },
                    ],
                },
                Op::Complete,
            ],
        }]);
        let leader = expansion.tasks.len();
        let mut template = plan("cc1", program, leader, spec.footprint_kib);
        template.record_latency = true;
        expansion.spawn(1, template);
    }
    expansion
}

/// Bytes one STREAM kernel moves per element: Copy and Scale touch two arrays,
/// Add and Triad three.
const STREAM_KERNELS: [(&str, u64); 4] = [("Copy", 16), ("Scale", 16), ("Add", 24), ("Triad", 24)];

/// Memory bandwidth one thread can draw alone, in bytes per microsecond (12 GB/s).
pub const STREAM_THREAD_BYTES_PER_US: f64 = 12_000.0;

fn expand_stream(spec: &StreamSpec) -> Expansion {
    let bytes_per_phase = STREAM_KERNELS
        .iter()
        .map(|(name, per_element)| (name.to_string(), per_element * spec.array_size))
        .collect();
    let mut expansion = Expansion::new(ThroughputKind::StreamPhases { bytes_per_phase });
    // Each thread handles an equal slice of the arrays, then meets the others at the
    // OpenMP barrier that ends the kernel.
    let mut body = Vec::new();
    for (name, per_element) in STREAM_KERNELS {
        let slice_bytes = (per_element * spec.array_size) as f64 / spec.threads as f64;
        body.push(Op::Run {
            duration: Dist::fixed_us(slice_bytes / STREAM_THREAD_BYTES_PER_US),
            memory_bound: true,
        });
        body.push(Op::Barrier {
            channel: "omp.barrier".into(),
            parties: spec.threads,
            label: name.into(),
        });
    }
    let program = expansion.program(&[Op::Loop {
        count: Some(spec.ntimes),
        body,
    }]);
    let mut template = plan("stream", program, 0, 0);
    template.cpus = spec.cpus.clone();
    expansion.spawn(spec.threads, template);
    expansion
}

fn expand_turbo_bench(spec: &TurboBenchSpec) -> Expansion {
    let mut expansion = Expansion::rate("loops/s");
    // CPU-bound: 1 ms loops, counted. Jitter: short bursts, long sleeps, not counted.
    let cpu_bound = expansion.program(&forever(vec![run(1000.0), Op::Complete]));
    let jitter = expansion.program(&forever(vec![
        run_exp(spec.jitter_run_us),
        Op::Sleep {
            duration: Dist::Exponential {
                mean_us: spec.jitter_sleep_us,
            },
        },
    ]));
    expansion.spawn(spec.cpu_bound, plan("turbo_bench", cpu_bound, 0, 256));
    let mut template = plan("jitter", jitter, 0, 16);
    template.jitter = true;
    expansion.spawn(2 * spec.cpu_bound, template);
    expansion
}

fn expand_tasks(spec: &TasksSpec) -> Expansion {
    let mut expansion = Expansion::rate(&format!("{}/s", spec.unit));
    for task in &spec.tasks {
        let program = expansion.program(&task.program);
        let leader = expansion.tasks.len();
        let mut template = plan(&task.comm, program, leader, task.footprint_kib);
        template.nice = task.nice;
        template.cpus = task.cpus.clone();
        template.start_us = task.start_us;
        template.record_latency = task.record_latency;
        expansion.spawn(task.count, template);
    }
    expansion
}
