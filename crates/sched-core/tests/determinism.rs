//! Same scenario and seed give the same trace; how the run is driven does not matter.

use crate::common;

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

/// Everything a run reports, as its JSON summary, with the trace's hash and count.
type WaitEntries = Option<Vec<sched_core::waiting::WaitEntry>>;

fn fingerprint(
    sim: &Simulator,
) -> (
    String,
    u64,
    u64,
    sched_core::metrics::RunSummary,
    WaitEntries,
    Vec<(u64, u64)>,
) {
    let waits = sim
        .wait_log
        .as_ref()
        .map(|log| log.iter().collect::<Vec<_>>());
    (
        sim.trace.hash_hex(),
        sim.trace.total(),
        sim.events(),
        sim.summary("s"),
        waits,
        // The latency histogram bucket by bucket (a snapshot keeps it as its buckets).
        sim.metrics.latency_histogram(),
    )
}

#[test]
fn restoring_a_snapshot_and_running_again_repeats_the_run_exactly() {
    for (preset_name, workload, seed) in [
        ("teaching-small", schbench(2, 5, 2000, 3000), 42),
        ("xeon-2s10c", run_sleep("w", 60, 500.0, 800.0), 7),
        ("ryzen-7950x", common::hackbench(4, 2000, 5), 3),
    ] {
        let scenario = scenario(preset(preset_name), vec![workload], 200, seed);
        let mut straight = Simulator::new(&scenario).unwrap();
        straight.keep_wait_log();
        straight.run_until(SimTime::from_ms(30));
        assert!(
            !straight.is_finished(),
            "{preset_name}: the run must go on past 30 ms"
        );
        let expected = fingerprint(&straight);

        let mut sim = Simulator::new(&scenario).unwrap();
        sim.keep_wait_log();
        sim.run_until(SimTime::from_ms(8));
        let early = sim.snapshot();
        assert_eq!(early.now_ns(), sim.now().0);
        sim.run_until(SimTime::from_ms(17));
        let late = sim.snapshot();
        sim.run_until(SimTime::from_ms(30));
        assert_eq!(
            fingerprint(&sim),
            expected,
            "{preset_name}: straight and driven runs"
        );
        let kept = sim.trace.len();

        // Back to 8 ms: the trace loses the records after it, then grows back the same.
        sim.restore(&early);
        assert_eq!(sim.now().0, early.now_ns());
        assert_eq!(sim.trace.total(), early.trace_total());
        assert!(
            sim.trace.len() < kept,
            "{preset_name}: {} of {kept}",
            sim.trace.len()
        );
        sim.run_until(SimTime::from_ms(30));
        assert_eq!(
            fingerprint(&sim),
            expected,
            "{preset_name}: after the early snapshot"
        );
        assert_eq!(sim.trace.len(), kept);

        // A later snapshot stays valid after an earlier one was restored, once the
        // run has gone past it again.
        sim.restore(&early);
        sim.run_until(SimTime::from_ms(20));
        sim.restore(&late);
        sim.run_until(SimTime::from_ms(30));
        assert_eq!(
            fingerprint(&sim),
            expected,
            "{preset_name}: after the late snapshot"
        );
    }
}
