//! A run's summary as JSON (what `run --json` prints); `sched_scenario::spread` combines several.

use sched_core::metrics::RunSummary;
use serde_json::Value;

/// The summary of one run as JSON. `run --json` prints it and `sweep` aggregates it,
/// so the two can never disagree on a key.
pub fn summary_json(summary: &RunSummary) -> Value {
    serde_json::to_value(summary).expect("a run summary serialises to JSON")
}
