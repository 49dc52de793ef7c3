//! Times a run that keeps its whole trace, to measure the trace store's push path:
//! `cargo run --release -p sched-cli --example keep_trace -- tbench-milan`.
//! Prints the scenario, the records kept and emitted, the run's wall time (the run
//! only: not building, not freeing), the store's bytes and the trace hash.

use sched_core::Simulator;
use std::time::Instant;

fn main() {
    let name = std::env::args()
        .nth(1)
        .expect("usage: keep_trace SCENARIO [DURATION_MS]");
    let path = format!("{}/../../scenarios/{name}.json", env!("CARGO_MANIFEST_DIR"));
    let text = std::fs::read_to_string(&path).unwrap_or_else(|err| panic!("{path}: {err}"));
    let mut scenario = sched_scenario::parse_scenario(&text).expect("a good scenario");
    if let Some(ms) = std::env::args().nth(2) {
        scenario.duration_ms = ms.parse().expect("a duration in ms");
    }
    let mut sim = Simulator::with_trace_limit(&scenario, usize::MAX).expect("a good scenario");
    let start = Instant::now();
    sim.run_to_end();
    let seconds = start.elapsed().as_secs_f64();
    let trace = &sim.trace;
    println!(
        "{name} kept {} of {} records in {seconds:.3} s, {} bytes ({:.2} a record), hash {}",
        trace.len(),
        trace.total(),
        trace.heap_bytes(),
        trace.heap_bytes() as f64 / trace.len().max(1) as f64,
        trace.hash_hex()
    );
}
