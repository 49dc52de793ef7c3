//! The loader never panics: arbitrary text, arbitrary JSON, and a valid scenario with
//! one field replaced by arbitrary JSON each give a scenario or errors, and what loads
//! builds a simulator that runs.

use proptest::prelude::*;
use sched_core::Simulator;
use sched_scenario::{parse_scenario, scenario_from_value, schema_value};
use serde_json::{Map, Number, Value};

const GOOD: &str = r#"{
  "title": "t",
  "duration_ms": 10,
  "topology": { "preset": "teaching-small" },
  "hotplug": [ { "at_ms": 2, "cpu": 1, "online": false } ],
  "workloads": [
    { "kind": "schbench", "message_threads": 1, "worker_threads": 2, "cputime_us": 100, "sleeptime_us": 100 },
    { "kind": "stream", "threads": 2, "array_size": 2000, "ntimes": 2 },
    { "kind": "tasks", "tasks": [ { "comm": "t", "count": 2, "start_us": 100, "cpus": "0-3",
      "program": [ { "op": "run", "duration": { "dist": "fixed", "us": 100.0 } }, { "op": "sleep", "duration": { "dist": "fixed", "us": 50.0 } } ] } ] }
  ]
}"#;

/// Every property name and string value in the schema: the words a scenario is made of.
fn schema_words() -> Vec<String> {
    fn walk(value: &Value, out: &mut Vec<String>) {
        match value {
            Value::Object(map) => {
                for (key, child) in map {
                    out.push(key.clone());
                    walk(child, out);
                }
            }
            Value::Array(items) => items.iter().for_each(|item| walk(item, out)),
            Value::String(text) => out.push(text.clone()),
            _ => {}
        }
    }
    let mut words = Vec::new();
    walk(&schema_value(), &mut words);
    words.sort();
    words.dedup();
    words
}

fn word() -> impl Strategy<Value = String> {
    prop_oneof![
        3 => proptest::sample::select(schema_words()),
        1 => "[a-z_]{0,10}",
        1 => any::<String>(),
    ]
}

/// JSON trees: numbers at the edges, the schema's words as keys and strings.
fn json() -> impl Strategy<Value = Value> {
    let leaf = prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::Bool),
        prop_oneof![
            Just(0i64),
            Just(1),
            Just(-1),
            Just(4096),
            Just(8192),
            Just(i64::from(u32::MAX)),
            Just(i64::MAX),
            Just(i64::MIN),
        ]
        .prop_map(Value::from),
        any::<i64>().prop_map(Value::from),
        any::<u64>().prop_map(Value::from),
        any::<f64>().prop_filter_map("finite", |f| Number::from_f64(f).map(Value::Number)),
        word().prop_map(Value::String),
        "[0-9,-]{0,8}".prop_map(Value::String),
    ];
    leaf.prop_recursive(4, 48, 6, |inner| {
        prop_oneof![
            proptest::collection::vec(inner.clone(), 0..6).prop_map(Value::Array),
            proptest::collection::vec((word(), inner), 0..6)
                .prop_map(|fields| Value::Object(fields.into_iter().collect::<Map<_, _>>())),
        ]
    })
}

/// JSON pointers of every node of `value`, the root included.
fn pointers(value: &Value, here: String, out: &mut Vec<String>) {
    match value {
        Value::Object(map) => {
            for (key, child) in map {
                pointers(child, format!("{here}/{key}"), out);
            }
        }
        Value::Array(items) => {
            for (idx, child) in items.iter().enumerate() {
                pointers(child, format!("{here}/{idx}"), out);
            }
        }
        _ => {}
    }
    out.push(here);
}

/// Loads `value` (a refusal names at least one problem); what loads builds a
/// simulator and runs a few hundred events.
fn load_and_run(value: &Value) {
    match scenario_from_value(value) {
        Ok(scenario) => {
            if let Ok(mut sim) = Simulator::new(&scenario) {
                sim.run_events(300);
                sim.summary("arbitrary");
            }
        }
        Err(errors) => assert!(!errors.is_empty()),
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(128))]

    #[test]
    fn arbitrary_text_never_panics_the_loader(text in any::<String>()) {
        if let Err(errors) = parse_scenario(&text) {
            prop_assert!(!errors.is_empty());
        }
    }

    #[test]
    fn arbitrary_json_never_panics_the_loader(value in json()) {
        let text = value.to_string();
        load_and_run(&value);
        // The text path reads the same value.
        prop_assert_eq!(parse_scenario(&text).is_ok(), scenario_from_value(&value).is_ok());
    }

    #[test]
    fn a_scenario_with_a_field_replaced_never_panics_the_loader(
        at in any::<proptest::sample::Index>(),
        replacement in json(),
    ) {
        let mut value: Value = serde_json::from_str(GOOD).unwrap();
        assert!(scenario_from_value(&value).is_ok());
        let mut nodes = Vec::new();
        pointers(&value, String::new(), &mut nodes);
        let pointer = at.get(&nodes);
        *value.pointer_mut(pointer).unwrap() = replacement;
        load_and_run(&value);
    }
}
