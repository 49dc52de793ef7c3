//! Runs one scenario to its end without a trace and prints its event count:
//! `scripts/perf-guard.sh` counts the instructions of `Simulator::step` in this run
//! under callgrind. It is `schedlab bench --repeat 1` without the CLI's other
//! dependencies (argument parsing, native schema validation), so the guard's build
//! compiles the model and little else.
//!
//! Usage: `count_events SCENARIO [--set PATH=VALUE]...`, SCENARIO a file or the name
//! of one in `scenarios/`.

use sched_core::Simulator;
use sched_scenario::{
    apply_override, format_errors, parse_json, scenario_from_value, schema_value,
};
use std::path::{Path, PathBuf};

fn scenario_path(name: &str) -> PathBuf {
    let direct = Path::new(name);
    if direct.is_file() {
        return direct.to_path_buf();
    }
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../scenarios")
        .join(format!("{name}.json"))
}

fn run(args: &[String]) -> Result<u64, String> {
    let Some((name, rest)) = args.split_first() else {
        return Err("usage: count_events SCENARIO [--set PATH=VALUE]...".into());
    };
    let path = scenario_path(name);
    let text = std::fs::read_to_string(&path)
        .map_err(|err| format!("cannot read {}: {err}", path.display()))?;
    let mut value = parse_json(&text).map_err(|errors| format_errors(&errors))?;
    let schema = schema_value();
    let mut words = rest.iter();
    while let Some(word) = words.next() {
        let assignment = match (word.as_str(), words.next()) {
            ("--set", Some(assignment)) => assignment,
            _ => {
                return Err(format!(
                    "unexpected argument `{word}`: only --set PATH=VALUE"
                ))
            }
        };
        apply_override(&mut value, &schema, assignment)
            .map_err(|message| format!("--set {assignment}: {message}"))?;
    }
    let scenario = scenario_from_value(&value).map_err(|errors| format_errors(&errors))?;
    let mut sim =
        Simulator::with_trace_limit(&scenario, 0).map_err(|errors| format_errors(&errors))?;
    sim.run_to_end();
    Ok(sim.events())
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    match run(&args) {
        Ok(events) => println!("{{\"events\": {events}}}"),
        Err(message) => {
            eprintln!("count_events: {message}");
            std::process::exit(1);
        }
    }
}
