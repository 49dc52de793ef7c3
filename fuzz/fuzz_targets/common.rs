//! What the scenario targets share: loading as the CLI and the browser do, and a run
//! bounded in events.

use sched_core::{Scenario, SimTime, Simulator};
use serde_json::Value;

/// Events run per loaded scenario, so that one input stays fast however long the
/// scenario's own duration.
const MAX_EVENTS: u64 = 3_000;

/// Loads a scenario held as JSON as the CLI does (the schema, the types,
/// `Scenario::check`) and, when the schema refuses it, as the browser's Rust does
/// without the native schema (Ajv checks it there first); runs what loads.
pub fn load_and_run(value: &Value) {
    if let Ok(scenario) = sched_scenario::scenario_from_value(value) {
        run(&scenario);
        return;
    }
    // What the schema refuses may still reach the types and the checks.
    if let Ok(scenario) = serde_json::from_value::<Scenario>(value.clone()) {
        if scenario.check().is_empty() {
            run(&scenario);
        }
    }
}

/// Builds a simulator and runs a few milliseconds of it, at most [`MAX_EVENTS`].
pub fn run(scenario: &Scenario) {
    let Ok(mut sim) = Simulator::new(scenario) else {
        return;
    };
    sim.keep_wait_log();
    sim.run_until_bounded(SimTime::from_ms(2), MAX_EVENTS / 2);
    sim.run_events(MAX_EVENTS / 2);
    sim.summary("fuzz");
}
