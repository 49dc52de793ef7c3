//! Seed 004's policy, NUMA imbalance with CPU affinity, on the 5.18 baseline:
//! `numactl -C 0,16,32,48,64,80,96,112` STREAM with 8 threads on 2-socket Zen3.

use crate::common;

use common::{preset, run, run_sim, scenario};
use sched_core::cpuset::CpuSet;
use sched_core::policy::numa_affinity::{AffinityCheck, NumaAffinitySpec};
use sched_core::topology::CpuId;
use sched_core::trace::TraceKind;
use sched_core::workload::{StreamSpec, WorkloadSpec};
use sched_core::{Scenario, Simulator};

const PINNED: &str = "0,16,32,48,64,80,96,112";

fn stream8(cpus: Option<&str>, fix: bool, seed: u64) -> Scenario {
    stream8_passes(cpus, fix, seed, 10)
}

/// The same with `ntimes` passes (10 take about 0.16 s without the fix).
fn stream8_passes(cpus: Option<&str>, fix: bool, seed: u64, ntimes: u32) -> Scenario {
    let stream = WorkloadSpec::Stream(StreamSpec {
        threads: 8,
        cpus: cpus.map(String::from),
        array_size: 20_000_000,
        ntimes,
    });
    let mut scenario = scenario(preset("zen3-2s64c"), vec![stream], 5_000, seed);
    scenario.kernel = Some("5.18".into());
    scenario.policy.numa_affinity = NumaAffinitySpec {
        enabled: fix,
        check: AffinityCheck::Ne,
    };
    scenario
}

/// Where the STREAM threads forked (`sched_wakeup_new`), and how many of their
/// migrations crossed sockets.
struct Placement {
    forked_on: Vec<u32>,
    /// The reasons of the `sched_wakeup_new` records, as `--reasons` prints them.
    fork_reasons: Vec<String>,
    per_socket: [usize; 2],
    cross_node_moves: usize,
    /// When the first STREAM thread crossed sockets, in ns.
    first_cross_node_ns: Option<u64>,
    /// From when each thread had an allowed CPU of its own (and kept it), in ns.
    one_per_cpu_from_ns: Option<u64>,
    moves: usize,
}

fn placement(sim: &Simulator) -> Placement {
    let is_stream = |pid: u32| {
        sim.tasks
            .iter()
            .any(|task| task.pid.0 == pid && task.comm == "stream")
    };
    let socket = |cpu: u32| sim.topology.info(CpuId(cpu)).socket.0 as usize;
    assert_eq!(
        sim.trace.total() as usize,
        sim.trace.len(),
        "the whole trace is kept"
    );
    let mut result = Placement {
        forked_on: Vec::new(),
        fork_reasons: Vec::new(),
        per_socket: [0, 0],
        cross_node_moves: 0,
        first_cross_node_ns: None,
        one_per_cpu_from_ns: None,
        moves: 0,
    };
    let mut on_cpu = std::collections::BTreeMap::new();
    for idx in 0..sim.trace.len() {
        let record = sim.trace.get(idx);
        if !is_stream(record.pid) {
            continue;
        }
        match record.kind {
            TraceKind::SchedWakeupNew => on_cpu.insert(record.pid, record.arg0),
            TraceKind::SchedMigrateTask => on_cpu.insert(record.pid, record.arg1),
            _ => None,
        };
        let distinct: std::collections::BTreeSet<u32> = on_cpu.values().copied().collect();
        if on_cpu.len() == 8 && distinct.len() == 8 {
            result.one_per_cpu_from_ns.get_or_insert(record.time.0);
        } else {
            result.one_per_cpu_from_ns = None;
        }
        match record.kind {
            TraceKind::SchedWakeupNew => {
                result.forked_on.push(record.arg0);
                result
                    .fork_reasons
                    .push(record.reason.describe(record.pid, record.arg0));
                result.per_socket[socket(record.arg0)] += 1;
            }
            TraceKind::SchedMigrateTask => {
                result.moves += 1;
                if socket(record.arg0) != socket(record.arg1) {
                    result.cross_node_moves += 1;
                    result.first_cross_node_ns.get_or_insert(record.time.0);
                }
            }
            _ => {}
        }
    }
    result
}

#[test]
fn with_the_fix_four_threads_fork_onto_each_socket_and_nothing_moves_across() {
    let mut spread_in = 0;
    for seed in 1..=5 {
        // 300 passes (about 4.8 s without the fix): long enough for many of the NUMA
        // level's periodic balances, whose interval is its span in ms (256), backing
        // off to 512 ms after a balance with nothing to do.
        let without = placement(&run_sim(&stream8_passes(Some(PINNED), false, seed, 300)));
        let with = placement(&run_sim(&stream8_passes(Some(PINNED), true, seed, 300)));
        if without.one_per_cpu_from_ns.is_some() {
            spread_in += 1;
        }
        assert_eq!(without.forked_on.len(), 8, "seed {seed}");
        assert_eq!(with.forked_on.len(), 8, "seed {seed}");
        // 5.18 alone: local.sum_nr_running + 1 <= imb_numa_nr (8) for all eight, so all
        // eight fork onto socket 0's four allowed CPUs...
        assert_eq!(
            without.per_socket,
            [8, 0],
            "seed {seed}: {:?}",
            without.forked_on
        );
        // ... and the balancer moves some across later, slowly: not before the NUMA
        // level's first periodic balance (its idle CPUs do not wake to newidle-balance,
        // their kworkers' timers being deferrable).
        assert!(
            without.cross_node_moves > 0,
            "seed {seed}: no cross-node migration without the fix"
        );
        let first = without.first_cross_node_ns.expect("a cross-node move");
        assert!(
            first >= 100_000_000,
            "seed {seed}: the first cross-node move came at {first} ns"
        );
        // With the fix the allowance is min(4 allowed CPUs in the node, 8) = 4: threads
        // five to eight fork onto socket 1, one per allowed CPU, and stay.
        assert_eq!(with.per_socket, [4, 4], "seed {seed}: {:?}", with.forked_on);
        let mut distinct = with.forked_on.clone();
        distinct.sort_unstable();
        distinct.dedup();
        assert_eq!(
            distinct,
            vec![0, 16, 32, 48, 64, 80, 96, 112],
            "seed {seed}"
        );
        assert_eq!(with.cross_node_moves, 0, "seed {seed}");
        assert_eq!(with.moves, 0, "seed {seed}: no sched_migrate_task at all");
        // The trace says when affinity lowered the allowance.
        assert!(
            with.fork_reasons[0]
                .contains("allowance 4 = allowed CPUs in the local node, below imb_numa_nr 8"),
            "seed {seed}: {}",
            with.fork_reasons[0]
        );
        assert!(
            without.fork_reasons[7].contains("(7 running + 1, allowance 8)"),
            "seed {seed}: {}",
            without.fork_reasons[7]
        );
    }
    // Without the fix the balancer reaches one thread per allowed CPU only after a
    // while (the seed: "it takes a while to get to {4}{4}"): within the run in
    // some seeds, not all (4 of 5; none within 100 passes).
    assert!(
        (2..5).contains(&spread_in),
        "one thread per allowed CPU in {spread_in} of 5 seeds"
    );
}

#[test]
fn the_allowance_is_the_allowed_cpus_of_the_local_node_and_ne_and_lt_agree_with_every_cpu_online() {
    let mut sim = Simulator::new(&stream8(Some(PINNED), true, 1)).expect("valid scenario");
    let n_cpus = sim.topology.n_cpus();
    let stream = sim
        .tasks
        .iter()
        .position(|task| task.comm == "stream")
        .map(|idx| sched_core::task::TaskId(idx as u32))
        .expect("a STREAM thread");
    let this_cpu = CpuId(0);
    let numa_level = sim
        .domains
        .of(this_cpu)
        .iter()
        .position(|sd| sd.flags.numa)
        .expect("Zen3 has a NUMA level");
    let allowance = |sim: &Simulator| {
        let sd = &sim.domains.of(this_cpu)[numa_level];
        (
            sim.numa_imbalance_allowance(sd, stream, this_cpu),
            sd.imb_numa_nr,
        )
    };
    let masks: Vec<(String, CpuSet)> = vec![
        ("one CPU".into(), CpuSet::from_cpus(n_cpus, [CpuId(0)])),
        (
            PINNED.into(),
            CpuSet::from_cpus(n_cpus, (0..8).map(|i| CpuId(16 * i))),
        ),
        (
            "socket 0's first CCX".into(),
            CpuSet::from_cpus(n_cpus, (0..8).map(CpuId)),
        ),
        (
            "all but one".into(),
            CpuSet::from_cpus(n_cpus, (0..n_cpus as u32 - 1).map(CpuId)),
        ),
        ("every CPU".into(), CpuSet::full(n_cpus)),
    ];
    let expected = [1, 4, 8, 8, 8];
    for ((name, mask), expected) in masks.into_iter().zip(expected) {
        sim.tasks[stream.0 as usize].affinity = mask;
        let mut seen = Vec::new();
        for check in [AffinityCheck::Ne, AffinityCheck::Lt] {
            sim.policy.numa_affinity = NumaAffinitySpec {
                enabled: true,
                check,
            };
            let (value, imb_numa_nr) = allowance(&sim);
            assert_eq!(imb_numa_nr, 8);
            assert_eq!(value, expected, "{name}, {check:?}");
            seen.push(value);
        }
        // No hotplug: nr_cpus_allowed <= num_online_cpus() always, so "ne" and "lt"
        // agree on every mask.
        assert_eq!(seen[0], seen[1], "{name}");
        // With the policy off, the allowance is imb_numa_nr whatever the mask.
        sim.policy.numa_affinity.enabled = false;
        assert_eq!(allowance(&sim).0, 8, "{name}, policy off");
    }
}

/// STREAM's best-pass MB/s per kernel (Copy, Scale, Add, Triad) of one run.
fn stream_rates(scenario: &Scenario) -> Vec<f64> {
    run(scenario).throughput_by_workload[0]
        .values
        .iter()
        .take(4)
        .map(|value| value.value)
        .collect()
}

#[test]
fn stream_orders_as_the_seed_pinned_without_the_fix_below_unpinned_below_the_fix() {
    // The seed's Zen3 table: pinned without the fix < unpinned < pinned with it, on
    // each of Copy, Scale, Add and Triad. In the model it holds in every seed.
    for seed in 1..=5 {
        let pinned = stream_rates(&stream8(Some(PINNED), false, seed));
        let unpinned = stream_rates(&stream8(None, false, seed));
        let fixed = stream_rates(&stream8(Some(PINNED), true, seed));
        for kernel in 0..4 {
            assert!(
                pinned[kernel] < unpinned[kernel] && unpinned[kernel] < fixed[kernel],
                "seed {seed}, kernel {kernel}: pinned {} unpinned {} fixed {}",
                pinned[kernel],
                unpinned[kernel],
                fixed[kernel]
            );
        }
    }
}
