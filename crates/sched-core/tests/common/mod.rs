//! Scenario builders shared by the integration tests.
#![allow(dead_code)]

/// This directory (`crates/sched-core/tests`): the fixtures and goldens live here, and
/// the suite is built by the package `crates/sched-core-tests`.
pub const TESTS_DIR: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../sched-core/tests");

use sched_core::behaviour::{Dist, Op};
use sched_core::cfs::KnobsSpec;
use sched_core::cost::CostsSpec;
use sched_core::scenario::PolicySpec;
use sched_core::topology::TopologySpec;
use sched_core::workload::{SchbenchSpec, TaskTemplate, TasksSpec, WorkloadSpec};
use sched_core::{Scenario, Simulator};

pub fn preset(name: &str) -> TopologySpec {
    TopologySpec {
        preset: Some(name.into()),
        ..Default::default()
    }
}

pub fn scenario(
    topology: TopologySpec,
    workloads: Vec<WorkloadSpec>,
    duration_ms: u64,
    seed: u64,
) -> Scenario {
    Scenario {
        schema: None,
        title: "test".into(),
        description: String::new(),
        seed,
        duration_ms,
        topology,
        kernel: None,
        features: Default::default(),
        workloads,
        policy: PolicySpec::default(),
        knobs: KnobsSpec::default(),
        costs: CostsSpec::default(),
        background: Default::default(),
        power: Default::default(),
        hotplug: Vec::new(),
        cgroups: Vec::new(),
    }
}

pub fn schbench(
    message_threads: u32,
    worker_threads: u32,
    cputime_us: u64,
    sleeptime_us: u64,
) -> WorkloadSpec {
    WorkloadSpec::Schbench(SchbenchSpec {
        message_threads,
        worker_threads,
        cputime_us,
        sleeptime_us,
        pipe_bytes: None,
        cpus: None,
        nice: 0,
        footprint_kib: 256,
    })
}

/// `count` tasks that loop forever: run `run_us`, sleep `sleep_us`.
pub fn run_sleep(comm: &str, count: u32, run_us: f64, sleep_us: f64) -> WorkloadSpec {
    tasks(
        comm,
        count,
        None,
        0,
        vec![Op::Loop {
            count: None,
            body: vec![
                Op::Run {
                    duration: Dist::Exponential { mean_us: run_us },
                    memory_bound: false,
                },
                Op::Sleep {
                    duration: Dist::Exponential { mean_us: sleep_us },
                },
                Op::Complete,
            ],
        }],
    )
}

/// `count` CPU-bound tasks that never sleep (their latency is not recorded).
pub fn hogs(comm: &str, count: u32, nice: i32) -> WorkloadSpec {
    let mut workload = tasks(
        comm,
        count,
        None,
        0,
        vec![Op::Loop {
            count: None,
            body: vec![Op::Run {
                duration: Dist::fixed_us(10_000.0),
                memory_bound: false,
            }],
        }],
    );
    if let WorkloadSpec::Tasks(spec) = &mut workload {
        spec.tasks[0].nice = nice;
        spec.tasks[0].record_latency = false;
    }
    workload
}

pub fn hackbench(groups: u32, loops: u32, fds: u32) -> WorkloadSpec {
    WorkloadSpec::Hackbench(sched_core::workload::HackbenchSpec {
        groups,
        loops,
        fds,
        buffer_messages: 8,
        write_us: 1.5,
        read_us: 1.0,
        footprint_kib: 32,
    })
}

pub fn netperf(pairs: u32) -> WorkloadSpec {
    WorkloadSpec::Netperf(sched_core::workload::NetperfSpec {
        mode: sched_core::workload::NetperfMode::UdpRr,
        pairs,
        footprint_kib: 16,
    })
}

pub fn tbench(clients: u32) -> WorkloadSpec {
    WorkloadSpec::Tbench(sched_core::workload::TbenchSpec {
        clients,
        footprint_kib: 128,
    })
}

pub fn kcompile(jobs: u32, units: u32) -> WorkloadSpec {
    WorkloadSpec::Kcompile(sched_core::workload::KcompileSpec {
        jobs,
        units,
        unit_ms: 5.0,
        footprint_kib: 2048,
    })
}

pub fn stream(threads: u32, cpus: Option<String>) -> WorkloadSpec {
    WorkloadSpec::Stream(sched_core::workload::StreamSpec {
        threads,
        cpus,
        array_size: 100_000,
        ntimes: 3,
    })
}

pub fn turbo_bench(cpu_bound: u32) -> WorkloadSpec {
    WorkloadSpec::TurboBench(sched_core::workload::TurboBenchSpec {
        cpu_bound,
        jitter_tasks: None,
        jitter_run_us: 200.0,
        jitter_period_us: 2000.0,
        classify: Default::default(),
    })
}

pub fn schbench_pipe(message_threads: u32) -> WorkloadSpec {
    WorkloadSpec::Schbench(SchbenchSpec {
        message_threads,
        worker_threads: 1,
        cputime_us: 0,
        sleeptime_us: 0,
        pipe_bytes: Some(512),
        cpus: None,
        nice: 0,
        footprint_kib: 64,
    })
}

pub fn cgroup_tree(depth: u32, width: u32, quota_pct: u32) -> WorkloadSpec {
    WorkloadSpec::CgroupTree(sched_core::workload::CgroupTreeSpec {
        depth,
        width,
        quota_pct,
        period_us: 10_000,
        leaf: sched_core::workload::LeafSchbench {
            message_threads: 1,
            worker_threads: 2,
            cputime_us: 1000,
            sleeptime_us: 300,
        },
    })
}

/// `count` copies of a hand-written task.
pub fn tasks(
    comm: &str,
    count: u32,
    cpus: Option<&str>,
    footprint_kib: u64,
    program: Vec<Op>,
) -> WorkloadSpec {
    WorkloadSpec::Tasks(TasksSpec {
        unit: "loops".into(),
        tasks: vec![TaskTemplate {
            comm: comm.into(),
            count,
            nice: 0,
            cpus: cpus.map(String::from),
            start_us: 0,
            record_latency: true,
            footprint_kib,
            jitter: false,
            uclamp_max: None,
            program,
        }],
    })
}

/// Runs a scenario to the end and returns the simulator.
pub fn run_sim(scenario: &Scenario) -> Simulator {
    let mut sim = Simulator::new(scenario).expect("valid scenario");
    sim.run_to_end();
    sim
}

/// Runs a scenario to the end and returns its summary.
pub fn run(scenario: &Scenario) -> sched_core::metrics::RunSummary {
    run_sim(scenario).summary("test")
}

/// The median of a few figures (the mean of the middle two for an even count).
pub fn median(mut values: Vec<f64>) -> f64 {
    values.sort_by(|a, b| a.partial_cmp(b).expect("no NaN"));
    let mid = values.len() / 2;
    if values.len() % 2 == 0 {
        (values[mid - 1] + values[mid]) / 2.0
    } else {
        values[mid]
    }
}
