//! Invariants that must hold for any workload: no task is lost or duplicated, the
//! runqueues' counts match their contents, and time never goes backwards.

use crate::common;

use common::{
    cgroup_tree, hackbench, hogs, kcompile, netperf, preset, run_sleep, scenario, schbench,
    schbench_pipe, stream, tbench, turbo_bench,
};
use proptest::prelude::*;
use sched_core::policy::shared_runq::{ShardIndex, SharedRunqMode, SharedRunqSpec};
use sched_core::Simulator;

const PRESETS: &[&str] = &[
    "teaching-small",
    "teaching-numa",
    "xeon-2s10c",
    "ryzen-7950x",
    "power9-smt4",
];

fn workload_strategy() -> impl Strategy<Value = sched_core::workload::WorkloadSpec> {
    prop_oneof![
        (1u32..4, 1u32..12, 0u64..3000, 1u64..4000).prop_map(|(m, t, c, s)| schbench(m, t, c, s)),
        (1u32..40, 1.0f64..2000.0, 1.0f64..2000.0)
            .prop_map(|(n, run, sleep)| run_sleep("w", n, run, sleep)),
        (1u32..20, -5i32..5).prop_map(|(n, nice)| hogs("hog", n, nice)),
        (1u32..3, 1u32..20, 1u32..6).prop_map(|(g, l, f)| hackbench(g, l, f)),
        (1u32..16).prop_map(netperf),
        (1u32..8).prop_map(tbench),
        (1u32..12, 1u32..30).prop_map(|(jobs, units)| kcompile(jobs, units)),
        (1u32..8, any::<bool>())
            .prop_map(|(threads, pinned)| stream(threads, pinned.then(|| "0-3".to_string()))),
        (1u32..6).prop_map(turbo_bench),
        (1u32..6).prop_map(schbench_pipe),
        (1u32..3, 1u32..4, 10u32..100).prop_map(|(d, w, q)| cgroup_tree(d, w, q)),
    ]
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 48, ..ProptestConfig::default() })]

    #[test]
    fn every_step_keeps_the_books_straight(
        preset_idx in 0usize..PRESETS.len(),
        workloads in prop::collection::vec(workload_strategy(), 1..3),
        seed in any::<u64>(),
        newidle in any::<bool>(),
        hotplug in prop::collection::vec((0.0f64..40.0, 0u32..8, any::<bool>()), 0..6),
        shared_runq in (0u8..3, 0u32..8, any::<bool>(), any::<bool>()),
        power in any::<bool>(),
        turbo_pack in any::<bool>(),
    ) {
        let mut scenario = scenario(preset(PRESETS[preset_idx]), workloads, 40, seed);
        scenario.policy.newidle_balance.enabled = newidle;
        scenario.power.enabled = power;
        scenario.policy.turbo_pack.enabled = turbo_pack;
        let (mode, shard_size, shifted, skip_llc_balance) = shared_runq;
        scenario.policy.shared_runq = SharedRunqSpec {
            mode: [SharedRunqMode::Off, SharedRunqMode::Wakeups, SharedRunqMode::All]
                [mode as usize],
            shard_size,
            shard_index: if shifted { ShardIndex::CpuShr1Mod } else { ShardIndex::CpuMod },
            skip_llc_balance,
        };
        // CPUs going offline and coming back at random times (never all at once:
        // CPU 0 stays, as the boot CPU does).
        scenario.hotplug = hotplug
            .into_iter()
            .map(|(at_ms, cpu, online)| sched_core::scenario::HotplugSpec {
                at_ms,
                cpu: 1 + cpu % 7,
                online,
            })
            .collect();
        let mut sim = Simulator::new(&scenario).unwrap();
        let mut last_time = sim.now();
        let mut steps = 0u64;
        while sim.step() == sched_core::StepOutcome::Handled {
            prop_assert!(sim.now() >= last_time, "time went backwards");
            last_time = sim.now();
            steps += 1;
            if steps % 7 == 0 {
                if let Err(problem) = sim.check_invariants() {
                    prop_assert!(false, "after {} steps: {}", steps, problem);
                }
                // No CPU has been busy for longer than the run has lasted.
                let now = sim.now().0;
                for (cpu, busy) in sim.busy_ns().into_iter().enumerate() {
                    prop_assert!(busy <= now, "CPU {} busy {} ns of {} ns", cpu, busy, now);
                }
            }
        }
        prop_assert!(sim.check_invariants().is_ok());
        let trace = &sim.trace;
        prop_assert!(
            (1..trace.len()).all(|idx| trace.time(idx - 1) <= trace.time(idx)),
            "trace out of order"
        );
    }
}
