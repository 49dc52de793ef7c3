//! Golden schedules: the compact trace of small runs, checked against files in
//! `tests/golden/`. After an intended model change, regenerate them with
//! `UPDATE_EXPECT=1 cargo test -p sched-core-tests --test suite golden` and review the diff.

use crate::common;

use common::{hogs, preset, run_sim, run_sleep, scenario, schbench, tasks};
use sched_core::behaviour::{Dist, Op};
use sched_core::kernel::{
    CpuLoad, FeaturesSpec, IdlestGroupVariant, LoadBalanceVariant, NewidleGate, NumaForkRule,
    SisVariant, WakeAffineVariant,
};
use sched_core::topology::TopologySpec;
use sched_core::workload::WorkloadSpec;
use std::path::PathBuf;

fn check_golden(name: &str, actual: &str) {
    let path = PathBuf::from(common::TESTS_DIR).join("golden").join(name);
    if std::env::var_os("UPDATE_EXPECT").is_some() {
        std::fs::write(&path, actual).unwrap();
        return;
    }
    let expected = std::fs::read_to_string(&path)
        .unwrap_or_else(|_| panic!("{} is missing: run with UPDATE_EXPECT=1", path.display()));
    if expected != actual {
        let first_difference = expected
            .lines()
            .zip(actual.lines())
            .position(|(left, right)| left != right)
            .unwrap_or(expected.lines().count().min(actual.lines().count()));
        panic!(
            "{name} differs from the golden file at line {}:\n  expected: {}\n  actual:   {}\n(rerun with UPDATE_EXPECT=1 if the change is intended)",
            first_difference + 1,
            expected.lines().nth(first_difference).unwrap_or("<end>"),
            actual.lines().nth(first_difference).unwrap_or("<end>")
        );
    }
}

#[test]
fn schbench_on_the_teaching_machine() {
    let scenario = scenario(
        preset("teaching-small"),
        vec![schbench(2, 5, 2000, 3000)],
        12,
        42,
    );
    let sim = run_sim(&scenario);
    check_golden("schbench-teaching-small.txt", &sim.trace.compact(&sim));
}

/// One scenario run under each variant of one baseline path.
struct VariantGroup {
    path: &'static str,
    /// Whether the variants must give different schedules here.
    must_differ: bool,
    scenario: sched_core::Scenario,
    variants: Vec<(&'static str, FeaturesSpec)>,
}

fn no_background(mut scenario: sched_core::Scenario) -> sched_core::Scenario {
    scenario.background.enabled = false;
    scenario
}

fn variant_groups() -> Vec<VariantGroup> {
    let features = FeaturesSpec::default;
    let pinned_pairs = || {
        // Tasks allowed on two CPUs of each node of a 2-node machine with 4 LLCs per
        // node (imb_numa_nr 4): 6.0 limits their allowance to 2, 5.18 does not.
        tasks(
            "pinned",
            4,
            Some("0,1,16,17"),
            0,
            vec![Op::Loop {
                count: None,
                body: vec![
                    Op::Run {
                        duration: Dist::Fixed { us: 3_000.0 },
                        memory_bound: false,
                    },
                    Op::Sleep {
                        duration: Dist::Fixed { us: 200.0 },
                    },
                ],
            }],
        )
    };
    vec![
        VariantGroup {
            path: "wake_affine",
            must_differ: true,
            // Two message threads, three workers each: 4.6 compares the two CPUs'
            // loads on every wakeup, 4.14 first asks wake_affine_idle whether either
            // CPU is idle.
            scenario: no_background(scenario(
                preset("teaching-small"),
                vec![schbench(2, 6, 1500, 1000)],
                6,
                7,
            )),
            variants: vec![
                (
                    "4.6",
                    FeaturesSpec {
                        wake_affine: Some(WakeAffineVariant::Load),
                        ..features()
                    },
                ),
                (
                    "4.14",
                    FeaturesSpec {
                        wake_affine: Some(WakeAffineVariant::IdleThenWeight),
                        ..features()
                    },
                ),
            ],
        },
        VariantGroup {
            path: "cpu_load",
            must_differ: true,
            // The same: with load_avg a CPU keeps the blocked load of the workers
            // that slept there; runnable_load_avg forgets it.
            scenario: no_background(scenario(
                preset("teaching-small"),
                vec![schbench(2, 6, 1500, 1000)],
                6,
                7,
            )),
            variants: vec![
                (
                    "runnable_load_avg",
                    FeaturesSpec {
                        cpu_load: Some(CpuLoad::RunnableLoadAvg),
                        ..features()
                    },
                ),
                (
                    "load_avg",
                    FeaturesSpec {
                        cpu_load: Some(CpuLoad::LoadAvg),
                        ..features()
                    },
                ),
            ],
        },
        VariantGroup {
            path: "select_idle_sibling",
            must_differ: true,
            scenario: no_background(scenario(
                preset("teaching-small"),
                vec![schbench(2, 4, 1500, 1000)],
                10,
                3,
            )),
            variants: vec![
                (
                    "4.6",
                    FeaturesSpec {
                        select_idle_sibling: Some(SisVariant::Groups),
                        ..features()
                    },
                ),
                (
                    "4.9",
                    FeaturesSpec {
                        select_idle_sibling: Some(SisVariant::CoreCpuSmt),
                        ..features()
                    },
                ),
                (
                    "5.12",
                    FeaturesSpec {
                        select_idle_sibling: Some(SisVariant::SinglePass),
                        ..features()
                    },
                ),
            ],
        },
        VariantGroup {
            path: "find_idlest_group",
            must_differ: true,
            // Three tasks that mostly sleep, then three forked 1 ms later: only the
            // 4.10-5.4 form sees the sleepers' blocked load.
            scenario: no_background(scenario(
                preset("teaching-numa"),
                vec![run_sleep("s", 3, 100.0, 3_000.0), {
                    let mut later = run_sleep("w", 3, 800.0, 300.0);
                    if let WorkloadSpec::Tasks(spec) = &mut later {
                        spec.tasks[0].start_us = 1_000;
                    }
                    later
                }],
                4,
                5,
            )),
            variants: vec![
                (
                    "load",
                    FeaturesSpec {
                        find_idlest_group: Some(IdlestGroupVariant::Load),
                        ..features()
                    },
                ),
                (
                    "load_blocked",
                    FeaturesSpec {
                        find_idlest_group: Some(IdlestGroupVariant::LoadBlocked),
                        ..features()
                    },
                ),
                (
                    "group_type",
                    FeaturesSpec {
                        find_idlest_group: Some(IdlestGroupVariant::GroupType),
                        ..features()
                    },
                ),
            ],
        },
        VariantGroup {
            path: "numa_fork_rule",
            must_differ: true,
            scenario: no_background(scenario(
                TopologySpec {
                    llcs_per_socket: Some(4),
                    ..preset("teaching-numa")
                },
                vec![run_sleep("free", 2, 3_000.0, 200.0), pinned_pairs()],
                4,
                1,
            )),
            variants: vec![
                (
                    "none",
                    FeaturesSpec {
                        numa_fork_rule: Some(NumaForkRule::None),
                        ..features()
                    },
                ),
                (
                    "5.18",
                    FeaturesSpec {
                        numa_fork_rule: Some(NumaForkRule::ImbNumaNr),
                        ..features()
                    },
                ),
                (
                    "6.0",
                    FeaturesSpec {
                        numa_fork_rule: Some(NumaForkRule::AffinityAware),
                        ..features()
                    },
                ),
            ],
        },
        VariantGroup {
            path: "load_balance",
            must_differ: true,
            scenario: no_background(scenario(
                preset("teaching-small"),
                vec![hogs("hog", 11, 0)],
                40,
                2,
            )),
            variants: vec![
                (
                    "load",
                    FeaturesSpec {
                        load_balance: Some(LoadBalanceVariant::Load),
                        ..features()
                    },
                ),
                (
                    "5.5",
                    FeaturesSpec {
                        load_balance: Some(LoadBalanceVariant::MigrationType),
                        ..features()
                    },
                ),
            ],
        },
        VariantGroup {
            path: "newidle_gate",
            must_differ: true,
            scenario: no_background(scenario(
                preset("teaching-small"),
                vec![run_sleep("w", 12, 300.0, 100.0)],
                4,
                4,
            )),
            variants: vec![
                (
                    "migration_cost",
                    FeaturesSpec {
                        newidle_gate: Some(NewidleGate::MigrationCost),
                        ..features()
                    },
                ),
                (
                    "max_newidle_lb_cost",
                    FeaturesSpec {
                        newidle_gate: Some(NewidleGate::MaxNewidleLbCost),
                        ..features()
                    },
                ),
            ],
        },
    ]
}

#[test]
fn each_variant_of_each_path_has_its_own_golden_schedule() {
    for group in variant_groups() {
        let mut traces: Vec<(&str, String)> = Vec::new();
        for (variant, features) in &group.variants {
            let mut scenario = group.scenario.clone();
            scenario.features = features.clone();
            let sim = run_sim(&scenario);
            let trace = sim.trace.compact(&sim);
            check_golden(&format!("variants/{}-{variant}.txt", group.path), &trace);
            // Compare decisions, not the words of their reasons.
            let decisions: String = trace
                .lines()
                .map(|line| line.split("  #").next().unwrap_or(line))
                .collect::<Vec<_>>()
                .join("\n");
            traces.push((variant, decisions));
        }
        // Each variant must decide differently from the others here, or its golden
        // shows nothing.
        if !group.must_differ {
            continue;
        }
        for (idx, (left, left_trace)) in traces.iter().enumerate() {
            for (right, right_trace) in &traces[idx + 1..] {
                assert!(
                    left_trace != right_trace,
                    "{}: variants {left} and {right} give the same schedule",
                    group.path
                );
            }
        }
    }
}

#[test]
fn each_shared_runq_mode_has_its_own_golden_schedule() {
    use sched_core::policy::shared_runq::{SharedRunqMode, SharedRunqSpec};
    // Two hackbench groups on 8 CPUs in 2 LLCs: queues form, so pushes, pops and
    // newidle pulls all show.
    let base = no_background(scenario(
        preset("teaching-small"),
        vec![common::hackbench(1, 3, 2)],
        4,
        5,
    ));
    let mut decisions = Vec::new();
    for (name, mode) in [
        ("off", SharedRunqMode::Off),
        ("wakeups", SharedRunqMode::Wakeups),
        ("all", SharedRunqMode::All),
    ] {
        let mut scenario = base.clone();
        scenario.policy.shared_runq = SharedRunqSpec {
            mode,
            ..SharedRunqSpec::default()
        };
        let sim = run_sim(&scenario);
        let trace = sim.trace.compact(&sim);
        check_golden(&format!("policies/shared_runq-{name}.txt"), &trace);
        decisions.push((name, trace));
    }
    for (idx, (left, left_trace)) in decisions.iter().enumerate() {
        for (right, right_trace) in &decisions[idx + 1..] {
            assert!(
                left_trace != right_trace,
                "modes {left} and {right} give the same schedule"
            );
        }
    }
}
