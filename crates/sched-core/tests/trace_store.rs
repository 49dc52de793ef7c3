//! The trace store keeps whole runs compactly: bytes per kept record, measured from
//! the store's allocated capacity, on shipped scenarios with their traces kept; and
//! a run's records, pushed again after a rewind, give the same trace.

use sched_core::trace::{Trace, TraceRecord};
use sched_core::{Scenario, Simulator};

/// The bound the store is built to: the plain columns took 69 bytes a record.
const MAX_BYTES_PER_RECORD: f64 = 16.0;

fn shipped(name: &str, duration_ms: u64) -> Scenario {
    let path = format!("{}/../../scenarios/{name}.json", env!("CARGO_MANIFEST_DIR"));
    let text = std::fs::read_to_string(&path).unwrap_or_else(|err| panic!("{path}: {err}"));
    let mut scenario: Scenario =
        serde_json::from_str(&text).unwrap_or_else(|err| panic!("{path}: {err}"));
    scenario.duration_ms = duration_ms;
    scenario
}

/// Runs the scenario with the default trace budget; returns the store's bytes per
/// kept record.
fn bytes_per_record(name: &str, duration_ms: u64) -> f64 {
    let mut sim = Simulator::new(&shipped(name, duration_ms)).unwrap();
    sim.run_to_end();
    let trace = &sim.trace;
    assert!(!trace.is_full(), "{name}: the whole run is kept");
    assert_eq!(
        trace.len() as u64,
        trace.total(),
        "{name}: the whole run is kept"
    );
    assert!(
        trace.len() > 100_000,
        "{name}: {} records is too few to measure",
        trace.len()
    );
    let per_record = trace.heap_bytes() as f64 / trace.len() as f64;
    eprintln!(
        "{name} ({duration_ms} ms): {} records, {} bytes, {per_record:.2} bytes a record",
        trace.len(),
        trace.heap_bytes()
    );
    per_record
}

#[test]
fn whole_runs_take_at_most_16_bytes_a_record() {
    for (name, duration_ms) in [
        ("tbench-milan", 100),
        ("netperf-udp-rr-skylake", 60),
        ("hackbench-7950x", 200),
    ] {
        let per_record = bytes_per_record(name, duration_ms);
        assert!(
            per_record <= MAX_BYTES_PER_RECORD,
            "{name}: {per_record:.2} bytes a record, above {MAX_BYTES_PER_RECORD}"
        );
    }
}

fn records(trace: &Trace) -> Vec<TraceRecord> {
    (0..trace.len()).map(|idx| trace.get(idx)).collect()
}

#[test]
fn a_rewound_trace_pushed_again_equals_a_straight_run() {
    let mut sim = Simulator::new(&shipped("teaching-small", 300)).unwrap();
    sim.run_to_end();
    let run = records(&sim.trace);
    assert_eq!(run.len() as u64, sim.trace.total());
    // Marks inside a chunk, at the start and near the end, rewound from the end.
    for at in [0, 1_500, run.len() / 2, run.len() - 3] {
        let mut trace = Trace::new(usize::MAX);
        run[..at].iter().for_each(|record| trace.push(*record));
        let mark = trace.mark();
        run[at..].iter().for_each(|record| trace.push(*record));
        trace.rewind(mark);
        assert_eq!(trace.len(), at);
        assert_eq!(trace.total(), at as u64);
        run[at..].iter().for_each(|record| trace.push(*record));
        assert_eq!(trace.hash_hex(), sim.trace.hash_hex(), "mark at {at}");
        assert_eq!(trace.total(), sim.trace.total());
        assert!(records(&trace) == run, "mark at {at}: the records differ");
    }
}
