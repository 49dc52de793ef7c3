//! What the scenario targets share: loading as the CLI and the browser do, and a run
//! bounded in events.

use sched_core::{Scenario, SimTime, Simulator};
use serde_json::Value;

/// Events run per loaded scenario, so that one input stays fast however long the
/// scenario's own duration.
const MAX_EVENTS: u64 = 3_000;

/// Loads a scenario held as JSON as the CLI does (the schema, the types,
/// `Scenario::check`; the browser checks the same schema with Ajv first) and runs
/// what loads.
///
/// Values the schema refuses are not given to `Scenario::check` and the simulator
/// on their own: `check` leaves the schema's ranges to the schema, so a period of
/// `i64::MAX` microseconds overflows when the simulator is built.
pub fn load_and_run(value: &Value) {
    if let Ok(scenario) = sched_scenario::scenario_from_value(value) {
        run(&scenario);
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
