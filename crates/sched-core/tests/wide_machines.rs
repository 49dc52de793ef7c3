//! Machines with domains wider than 8 CPUs read their groups' statistics from running
//! sums (`engine/group_sums.rs`), a CPU's change folded in when a balance next reads
//! them. These runs check after every event (`check_invariants`) that each group's
//! sums equal its CPUs' parts, that every CPU not noted since the last fold has the
//! part its state gives, and that a group with no noted CPU agrees with a walk over
//! its CPUs; on a busy machine, through CPU hotplug, and across the epoch's moves.

use crate::common;

use common::{hackbench, hogs, preset, scenario};
use sched_core::scenario::HotplugSpec;
use sched_core::{Simulator, StepOutcome};

/// Runs to the end, checking the invariants after every event; returns the events.
fn run_checked(scenario: &sched_core::Scenario) -> u64 {
    let mut sim = Simulator::new(scenario).expect("valid scenario");
    let mut events = 0u64;
    while sim.step() == StepOutcome::Handled {
        events += 1;
        if let Err(problem) = sim.check_invariants() {
            panic!("after {events} events: {problem}");
        }
    }
    events
}

#[test]
fn group_sums_follow_a_busy_512_cpu_machine() {
    // 200 ms: past several epoch moves (every 128 ms), with newidle balancing at
    // the socket and NUMA levels.
    let events = run_checked(&scenario(
        preset("zen4-2s128c"),
        vec![hackbench(8, 40, 20)],
        200,
        1,
    ));
    assert!(events > 10_000, "only {events} events");
}

#[test]
fn group_sums_follow_cpus_going_offline_and_back() {
    let mut scenario = scenario(preset("zen3-2s64c"), vec![hogs("hog", 300, 0)], 120, 2);
    scenario.hotplug = [(5, 30.0, false), (200, 40.0, false), (5, 80.0, true)]
        .into_iter()
        .map(|(cpu, at_ms, online)| HotplugSpec { at_ms, cpu, online })
        .collect();
    let events = run_checked(&scenario);
    assert!(events > 1_000, "only {events} events");
}
