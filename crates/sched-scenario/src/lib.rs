//! The scenario file format: the only crate that reads or writes scenario JSON.
//!
//! Parsing goes in three stages, each of which reports every problem it finds with
//! the field's dotted path: JSON syntax (line and column), the JSON Schema generated
//! from `sched-core`'s types (natively; the browser uses Ajv on the same schema),
//! then `Scenario::check` for what a schema cannot say. `--set` overrides live here too.

mod overrides;
pub mod perfetto;
pub mod replay;
#[cfg(feature = "schema-validation")]
mod schema_errors;
#[cfg(feature = "schema-validation")]
pub use schema_errors::field_belongs;
pub mod spread;
pub mod sweep;

use sched_core::{Scenario, ScenarioError};
use serde_json::Value;

pub use overrides::apply_override;

/// The JSON Schema of a scenario file, as committed in `scenarios/scenario.schema.json`.
pub fn schema_value() -> Value {
    let schema = schemars::schema_for!(Scenario);
    serde_json::to_value(schema).expect("a schema serialises")
}

/// The schema as pretty JSON with a trailing newline (the committed file's bytes).
pub fn schema_text() -> String {
    let mut text = serde_json::to_string_pretty(&schema_value()).expect("a schema serialises");
    text.push('\n');
    text
}

/// Every released kernel version the model accepts, with the variant each baseline
/// path takes in it (`Features::of`), for the web app's Policy panel: its kernel
/// choice and the defaults of its `features.*` controls. Committed as
/// `web/src/engine/kernels.json`.
pub fn kernels_value() -> Value {
    let versions = sched_core::kernel::released_versions();
    let features: serde_json::Map<String, Value> = versions
        .iter()
        .map(|version| {
            let resolved = sched_core::kernel::Features::of(*version);
            let value = serde_json::to_value(resolved).expect("features serialise");
            (version.to_string(), value)
        })
        .collect();
    serde_json::json!({
        "$comment": "Generated from crates/sched-core/src/kernel.rs (Features::of); regenerate with UPDATE_EXPECT=1 cargo test -p sched-scenario. Do not edit.",
        "default": sched_core::kernel::DEFAULT_KERNEL,
        "versions": versions.iter().map(ToString::to_string).collect::<Vec<_>>(),
        "features": features,
        "needs": sched_core::kernel::PATH_NEEDS
            .iter()
            .map(|(path, on, values)| (path.to_string(), serde_json::json!({ "path": on, "values": values })))
            .collect::<serde_json::Map<String, Value>>(),
    })
}

/// The kernel table as pretty JSON with a trailing newline (the committed file's bytes).
pub fn kernels_text() -> String {
    let mut text = serde_json::to_string_pretty(&kernels_value()).expect("a table serialises");
    text.push('\n');
    text
}

fn error(path: impl Into<String>, message: impl Into<String>) -> ScenarioError {
    ScenarioError {
        path: path.into(),
        message: message.into(),
    }
}

/// Parses scenario text into a JSON value; a syntax error names line and column.
pub fn parse_json(text: &str) -> Result<Value, Vec<ScenarioError>> {
    serde_json::from_str(text).map_err(|err| {
        vec![error(
            "",
            format!(
                "not valid JSON at line {}, column {}: {}",
                err.line(),
                err.column(),
                strip_position(&err.to_string())
            ),
        )]
    })
}

fn strip_position(message: &str) -> String {
    match message.find(" at line ") {
        Some(idx) => message[..idx].to_string(),
        None => message.to_string(),
    }
}

/// Validates a JSON value against the scenario schema.
#[cfg(feature = "schema-validation")]
pub fn validate_schema(value: &Value) -> Vec<ScenarioError> {
    schema_errors::validate(&schema_value(), value)
}

/// Turns a JSON value into a checked scenario: schema (when compiled in), types, semantics.
pub fn scenario_from_value(value: &Value) -> Result<Scenario, Vec<ScenarioError>> {
    #[cfg(feature = "schema-validation")]
    {
        let errors = validate_schema(value);
        if !errors.is_empty() {
            return Err(errors);
        }
    }
    let scenario: Scenario = serde_path_to_error::deserialize(value).map_err(|err| {
        let path = err.path().to_string();
        let path = if path == "." { String::new() } else { path };
        vec![error(path, err.inner().to_string())]
    })?;
    let errors = scenario.check();
    if errors.is_empty() {
        Ok(scenario)
    } else {
        Err(errors)
    }
}

/// Parses and checks scenario text.
pub fn parse_scenario(text: &str) -> Result<Scenario, Vec<ScenarioError>> {
    scenario_from_value(&parse_json(text)?)
}

/// A scenario written back as pretty JSON.
pub fn scenario_to_json(scenario: &Scenario) -> String {
    serde_json::to_string_pretty(scenario).expect("a scenario serialises")
}

/// Errors as lines: `path: message`.
pub fn format_errors(errors: &[ScenarioError]) -> String {
    errors
        .iter()
        .map(ToString::to_string)
        .collect::<Vec<_>>()
        .join("\n")
}
