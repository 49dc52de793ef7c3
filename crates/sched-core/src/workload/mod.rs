//! Workload generators: each expands into tasks running behaviour programs.
//!
//! Each is parametrised like the real benchmark it imitates, and lives in its own
//! file with its spec (the scenario form), defaults, checks and expansion. This
//! module holds the enum that dispatches to them, the plan types and the shared
//! program helpers.

mod cgroup_tree;
mod hackbench;
mod kcompile;
mod netperf;
mod schbench;
mod stream;
mod tasks;
mod turbo_bench;

pub use cgroup_tree::{CgroupTreeSpec, LeafSchbench};
pub use hackbench::HackbenchSpec;
pub use kcompile::KcompileSpec;
pub use netperf::{NetperfMode, NetperfSpec, TbenchSpec};
pub use schbench::SchbenchSpec;
pub use stream::{StreamSpec, STREAM_THREAD_BYTES_PER_US};
pub use tasks::{TaskTemplate, TasksSpec};
pub use turbo_bench::{JitterClass, TurboBenchSpec};

use crate::behaviour::{ChannelNames, Dist, Op, Program};
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
    /// turbo_bench: N CPU-bound threads and (by default) N short "jitter" threads.
    TurboBench(TurboBenchSpec),
    /// A cgroup tree (`depth` levels of `width` children) whose every leaf runs a
    /// schbench under a CFS bandwidth quota: together the leaves may use
    /// `quota_pct` of the machine each `period_us`.
    CgroupTree(CgroupTreeSpec),
    /// Tasks written by hand, each with a behaviour program.
    Tasks(TasksSpec),
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
    /// `uclamp_max` set with `sched_setattr` (TurboSched v3 classes `<= 1` as jitter).
    pub uclamp_max: Option<u32>,
    /// Index of its cgroup in the expansion's `groups`.
    pub cgroup: Option<usize>,
    /// A spawn pool of the expansion: the task is not forked at `start_us` but
    /// stays unborn until a program's `Spawn` of this pool forks it (a pool's
    /// tasks are forked in plan order).
    pub pool: Option<u32>,
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
    /// Spawn pools the programs fork from, numbered from 0 (private to it, like
    /// channel names).
    pub pools: u32,
}

impl Expansion {
    fn new(throughput: ThroughputKind) -> Self {
        Expansion {
            tasks: Vec::new(),
            programs: Vec::new(),
            channels: ChannelNames::default(),
            throughput,
            groups: Vec::new(),
            pools: 0,
        }
    }

    /// A new spawn pool, for tasks that a program forks at run time.
    fn pool(&mut self) -> u32 {
        self.pools += 1;
        self.pools - 1
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
        uclamp_max: None,
        cgroup: None,
        pool: None,
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

/// Adds "must be at least 1" for a count of zero.
fn at_least_one(errors: &mut Vec<(String, String)>, field: &str, value: u64) {
    if value == 0 {
        errors.push((field.to_string(), "must be at least 1, got 0".to_string()));
    }
}

impl WorkloadSpec {
    pub fn label(&self) -> String {
        match self {
            WorkloadSpec::Schbench(spec) => spec.label(),
            WorkloadSpec::Hackbench(spec) => spec.label(),
            WorkloadSpec::Netperf(spec) => spec.label(),
            WorkloadSpec::Tbench(spec) => spec.label(),
            WorkloadSpec::Kcompile(spec) => spec.label(),
            WorkloadSpec::Stream(spec) => spec.label(),
            WorkloadSpec::TurboBench(spec) => spec.label(),
            WorkloadSpec::CgroupTree(spec) => spec.label(),
            WorkloadSpec::Tasks(spec) => spec.label(),
        }
    }

    /// Semantic checks the schema cannot express; paths are relative to the workload.
    pub fn check(&self) -> Vec<(String, String)> {
        match self {
            WorkloadSpec::Schbench(spec) => spec.check(),
            WorkloadSpec::Hackbench(spec) => spec.check(),
            WorkloadSpec::Netperf(spec) => spec.check(),
            WorkloadSpec::Tbench(spec) => spec.check(),
            WorkloadSpec::Kcompile(spec) => spec.check(),
            WorkloadSpec::Stream(spec) => spec.check(),
            WorkloadSpec::TurboBench(spec) => spec.check(),
            WorkloadSpec::CgroupTree(spec) => spec.check(),
            WorkloadSpec::Tasks(spec) => spec.check(),
        }
    }

    /// How many tasks it creates (without building them).
    pub fn task_count(&self) -> u64 {
        match self {
            WorkloadSpec::Schbench(spec) => spec.task_count(),
            WorkloadSpec::Hackbench(spec) => spec.task_count(),
            WorkloadSpec::Netperf(spec) => spec.task_count(),
            WorkloadSpec::Tbench(spec) => spec.task_count(),
            WorkloadSpec::Kcompile(spec) => spec.task_count(),
            WorkloadSpec::Stream(spec) => spec.task_count(),
            WorkloadSpec::TurboBench(spec) => spec.task_count(),
            WorkloadSpec::CgroupTree(spec) => spec.task_count(),
            WorkloadSpec::Tasks(spec) => spec.task_count(),
        }
    }

    pub fn expand(&self) -> Expansion {
        match self {
            WorkloadSpec::Schbench(spec) => spec.expand(),
            WorkloadSpec::Hackbench(spec) => spec.expand(),
            WorkloadSpec::Netperf(spec) => spec.expand(),
            WorkloadSpec::Tbench(spec) => spec.expand(),
            WorkloadSpec::Kcompile(spec) => spec.expand(),
            WorkloadSpec::Stream(spec) => spec.expand(),
            WorkloadSpec::TurboBench(spec) => spec.expand(),
            WorkloadSpec::CgroupTree(spec) => spec.expand(),
            WorkloadSpec::Tasks(spec) => spec.expand(),
        }
    }

    /// Affinity CPU lists with their paths, for validation against the topology.
    pub fn cpu_lists(&self) -> Vec<(String, String)> {
        match self {
            WorkloadSpec::Schbench(spec) => spec.cpu_lists(),
            WorkloadSpec::Stream(spec) => spec.cpu_lists(),
            WorkloadSpec::Tasks(spec) => spec.cpu_lists(),
            _ => Vec::new(),
        }
    }
}
