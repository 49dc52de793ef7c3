//! Same scenario and seed give the same trace; how the run is driven does not matter.

mod common;

use common::{preset, run_sim, run_sleep, scenario, schbench};
use sched_core::{SimTime, Simulator};

fn hash_of(scenario: &sched_core::Scenario) -> String {
    run_sim(scenario).trace.hash_hex()
}

#[test]
fn same_seed_twice_gives_the_same_trace_hash() {
    let scenario = scenario(
        preset("teaching-small"),
        vec![schbench(2, 5, 2000, 3000)],
        500,
        42,
    );
    assert_eq!(hash_of(&scenario), hash_of(&scenario));
}

#[test]
fn another_seed_gives_another_trace() {
    let first = scenario(
        preset("teaching-small"),
        vec![schbench(2, 5, 2000, 3000)],
        500,
        1,
    );
    let mut second = first.clone();
    second.seed = 2;
    assert_ne!(hash_of(&first), hash_of(&second));
}

#[test]
fn stepping_in_pieces_matches_running_to_the_end() {
    let scenario = scenario(
        preset("xeon-2s10c"),
        vec![run_sleep("w", 60, 500.0, 800.0)],
        300,
        7,
    );
    let whole = hash_of(&scenario);
    let mut sim = Simulator::new(&scenario).unwrap();
    let mut until = SimTime::ZERO;
    while !sim.is_finished() {
        until += SimTime::from_us(1_337);
        sim.run_until(until);
        sim.run_events(3);
    }
    assert_eq!(sim.trace.hash_hex(), whole);
}

#[test]
fn a_cloned_simulator_continues_identically() {
    let scenario = scenario(
        preset("teaching-numa"),
        vec![run_sleep("w", 12, 300.0, 300.0)],
        200,
        3,
    );
    let mut sim = Simulator::new(&scenario).unwrap();
    sim.run_until(SimTime::from_ms(50));
    let mut copy = sim.clone();
    sim.run_to_end();
    copy.run_to_end();
    assert_eq!(sim.trace.hash_hex(), copy.trace.hash_hex());
    assert_eq!(sim.trace.hash_hex(), hash_of(&scenario));
}
