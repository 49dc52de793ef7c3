//! The committed schema and scenarios, and the messages bad input gets.

use sched_scenario::{
    apply_override, kernels_text, kernels_value, parse_json, parse_scenario, scenario_from_value,
    schema_text, schema_value,
};
use std::path::PathBuf;

fn repo_root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../..")
}

fn messages(text: &str) -> Vec<String> {
    match parse_scenario(text) {
        Ok(_) => Vec::new(),
        Err(errors) => errors.iter().map(ToString::to_string).collect(),
    }
}

const GOOD: &str = r#"{
  "title": "t",
  "duration_ms": 10,
  "topology": { "preset": "teaching-small" },
  "workloads": [ { "kind": "schbench", "message_threads": 1, "worker_threads": 2, "cputime_us": 100, "sleeptime_us": 100 } ]
}"#;

/// A generated file as committed must be what the code generates now; with
/// `UPDATE_EXPECT=1` it is written first.
fn assert_committed(relative: &str, generated: &str) {
    let path = repo_root().join(relative);
    if std::env::var_os("UPDATE_EXPECT").is_some() {
        std::fs::write(&path, generated).unwrap();
    }
    let committed = std::fs::read_to_string(&path).unwrap_or_default();
    assert!(
        committed == generated,
        "{relative} is stale: rerun with UPDATE_EXPECT=1"
    );
}

/// The committed schema must be what the Rust types generate. Regenerate with
/// `UPDATE_EXPECT=1 cargo test -p sched-scenario` (or `schedlab schema`).
#[test]
fn committed_schema_is_up_to_date() {
    assert_committed("scenarios/scenario.schema.json", &schema_text());
}

/// The web app's kernel table must be what the core resolves. Regenerate with
/// `UPDATE_EXPECT=1 cargo test -p sched-scenario`.
#[test]
fn committed_kernel_table_is_up_to_date() {
    assert_committed("web/src/engine/kernels.json", &kernels_text());
}

/// Each feature the table resolves is one a scenario's `features` can set, so the
/// Policy panel can offer every one of them; the table's versions are all accepted.
#[test]
fn the_kernel_table_names_the_settable_features() {
    let table = kernels_value();
    let schema = schema_value();
    let settable = schema["$defs"]["FeaturesSpec"]["properties"]
        .as_object()
        .expect("FeaturesSpec has properties");
    let features = table["features"].as_object().unwrap();
    assert_eq!(features.len(), 41);
    for (version, resolved) in features {
        let mut scenario: serde_json::Value = serde_json::from_str(GOOD).unwrap();
        scenario["kernel"] = version.clone().into();
        assert!(
            scenario_from_value(&scenario).is_ok(),
            "{version} is refused"
        );
        for name in resolved.as_object().unwrap().keys() {
            assert!(
                name == "fair_class" || settable.contains_key(name),
                "{version}: `{name}` is not a `features` field"
            );
        }
    }
    for name in settable.keys() {
        assert!(
            features["6.5"].get(name).is_some(),
            "`features.{name}` has no resolved value in the table"
        );
    }
    // Each dependency names two settable paths, and values the path it hangs on takes.
    for (name, need) in table["needs"].as_object().unwrap() {
        let on = need["path"].as_str().unwrap();
        assert!(
            settable.contains_key(name) && settable.contains_key(on),
            "{name} needs {on}"
        );
        for value in need["values"].as_array().unwrap() {
            let value = value.as_str().unwrap();
            assert!(
                features.values().any(|resolved| {
                    let at = &resolved[on];
                    at.as_str() == Some(value)
                        || at.as_bool().map(|b| b.to_string()).as_deref() == Some(value)
                }),
                "no version has {on} = {value}"
            );
        }
    }
}

#[test]
fn every_shipped_scenario_is_valid() {
    let mut count = 0;
    for entry in std::fs::read_dir(repo_root().join("scenarios")).unwrap() {
        let path = entry.unwrap().path();
        let name = path.to_string_lossy().to_string();
        if !name.ends_with(".json") || name.ends_with(".schema.json") {
            continue;
        }
        let text = std::fs::read_to_string(&path).unwrap();
        if let Err(errors) = parse_scenario(&text) {
            panic!("{name}: {errors:?}");
        }
        count += 1;
    }
    assert!(count >= 2, "expected the shipped scenarios, found {count}");
}

#[test]
fn zero_llcs_names_the_field() {
    let text = GOOD.replace(
        r#""preset": "teaching-small""#,
        r#""preset": "teaching-small", "llcs_per_socket": 0"#,
    );
    assert_eq!(
        messages(&text),
        vec!["topology.llcs_per_socket: must be at least 1, got 0"]
    );
}

#[test]
fn unknown_fields_and_kinds_are_named() {
    let text = GOOD.replace(r#""worker_threads": 2"#, r#""workers": 2"#);
    let found = messages(&text);
    assert!(
        found.contains(&"workloads.0.workers: is not a known field".to_string()),
        "{found:?}"
    );
    assert!(
        found.contains(&"workloads.0.worker_threads: is required".to_string()),
        "{found:?}"
    );

    let text = GOOD.replace(r#""kind": "schbench""#, r#""kind": "schbench2""#);
    let found = messages(&text);
    assert_eq!(found.len(), 1, "{found:?}");
    assert!(
        found[0].starts_with(
            "workloads.0.kind: must be one of \"schbench\", \"hackbench\", \"netperf\""
        ) && found[0].ends_with("got \"schbench2\""),
        "{found:?}"
    );
}

#[test]
fn wrong_types_and_syntax_errors_say_where() {
    let text = GOOD.replace(r#""duration_ms": 10"#, r#""duration_ms": "ten""#);
    assert_eq!(
        messages(&text),
        vec!["duration_ms: must be an integer, got a string"]
    );
    let found = messages("{\n  \"title\": \"t\",\n  oops\n}");
    assert_eq!(found.len(), 1);
    assert!(
        found[0].starts_with("not valid JSON at line 3, column 3"),
        "{found:?}"
    );
}

#[test]
fn semantic_errors_name_the_field() {
    let text = GOOD.replace(
        r#""cputime_us": 100"#,
        r#""cputime_us": 100, "cpus": "0-3,99""#,
    );
    assert_eq!(
        messages(&text),
        vec!["workloads.0.cpus: CPU 99 does not exist: the machine has CPUs 0-7"]
    );
    let text = GOOD.replace("teaching-small", "teaching-huge");
    let found = messages(&text);
    assert!(
        found[0].starts_with(
            "topology.preset: unknown preset `teaching-huge`; presets are: teaching-small"
        ),
        "{found:?}"
    );
}

#[test]
fn set_overrides_fields_by_path() {
    let schema = schema_value();
    let mut value = parse_json(GOOD).unwrap();
    apply_override(&mut value, &schema, "policy.newidle_balance.enabled=false").unwrap();
    apply_override(&mut value, &schema, "knobs.sched_migration_cost_ns=0").unwrap();
    apply_override(&mut value, &schema, "workloads.0.worker_threads=7").unwrap();
    let scenario = scenario_from_value(&value).unwrap();
    assert!(!scenario.policy.newidle_balance.enabled);
    assert_eq!(scenario.knobs.sched_migration_cost_ns, Some(0));
    match &scenario.workloads[0] {
        sched_core::workload::WorkloadSpec::Schbench(spec) => assert_eq!(spec.worker_threads, 7),
        other => panic!("{other:?}"),
    }
}

#[test]
fn set_with_an_unknown_path_lists_the_valid_neighbours() {
    let schema = schema_value();
    let mut value = parse_json(GOOD).unwrap();
    let error = apply_override(&mut value, &schema, "policy.shared_rq.mode=all").unwrap_err();
    assert_eq!(
        error,
        "unknown field `shared_rq` in `policy`; valid fields are: newidle_balance, numa_affinity, periodic_balance, shared_runq, sis_scan, struct_layout, turbo_pack, wake_affine"
    );
    let error = apply_override(&mut value, &schema, "knobs.latency=5").unwrap_err();
    assert!(
        error.contains("valid fields are: hz, preset, sched_latency_ns"),
        "{error}"
    );
    let error = apply_override(&mut value, &schema, "workloads.3.kind=x").unwrap_err();
    assert_eq!(error, "`workloads` has 1 entries: index 3 is out of range");
    let error = apply_override(&mut value, &schema, "workloads.0.cputime=1").unwrap_err();
    assert!(
        error.contains("valid fields are: cpus, cputime_us, footprint_kib, kind, message_threads"),
        "{error}"
    );
    // A field set in the wrong object: where it belongs, as a file's check says it.
    let error = apply_override(&mut value, &schema, "policy.shard_size=3").unwrap_err();
    assert!(
        error.ends_with("; `shard_size` belongs in policy.shared_runq"),
        "{error}"
    );
    let error = apply_override(&mut value, &schema, "topology.nosuch=3").unwrap_err();
    assert!(!error.contains("belongs"), "{error}");
}

#[test]
fn set_reads_the_value_by_the_fields_type() {
    let schema = schema_value();
    let mut value = parse_json(GOOD).unwrap();
    // A string field keeps text that would parse as a number.
    apply_override(&mut value, &schema, "title=4.6").unwrap();
    apply_override(&mut value, &schema, "knobs.hz=250").unwrap();
    let scenario = scenario_from_value(&value).unwrap();
    assert_eq!(scenario.title, "4.6");
    assert_eq!(scenario.knobs.hz, Some(250));

    let error = apply_override(&mut value, &schema, "knobs.hz=abc").unwrap_err();
    assert_eq!(error, "`knobs.hz`: expected an integer, got `abc`");
    let error = apply_override(&mut value, &schema, "workloads.0.cputime_us=1ms").unwrap_err();
    assert_eq!(
        error,
        "`workloads.0.cputime_us`: expected an integer, got `1ms`"
    );
}

/// A cgroup tree as large as the schema allows.
const HUGE_TREE: &str = r#"{ "kind": "cgroup_tree", "depth": 8, "width": 64,
  "leaf": { "message_threads": 64, "worker_threads": 256, "cputime_us": 1000, "sleeptime_us": 500 } }"#;

#[test]
fn task_counts_too_large_for_any_integer_are_refused() {
    // Four of the largest trees create more tasks than a u64 holds.
    let text = GOOD.replace(
        r#""workloads": ["#,
        &format!(r#""workloads": [{HUGE_TREE}, {HUGE_TREE}, {HUGE_TREE}, {HUGE_TREE}, "#),
    );
    let found = messages(&text);
    assert!(
        found
            .iter()
            .any(|message| message.starts_with("workloads: the workloads create")),
        "{found:?}"
    );

    // Without the schema (the browser's Rust, which Ajv guards): a depth past the
    // schema's range makes width^depth saturate, and the check still answers.
    let mut value = parse_json(&GOOD.replace(
        r#""workloads": ["#,
        &format!(
            r#""workloads": [{}, "#,
            HUGE_TREE.replace("\"depth\": 8", "\"depth\": 255")
        ),
    ))
    .unwrap();
    let scenario: sched_core::Scenario = serde_json::from_value(value.take()).unwrap();
    let errors: Vec<String> = scenario.check().iter().map(ToString::to_string).collect();
    assert!(
        errors
            .iter()
            .any(|message| message.starts_with("workloads.0.width: width^depth makes")),
        "{errors:?}"
    );
}

#[test]
fn a_task_starting_past_any_time_never_forks() {
    // 18446744073709552 us is just past u64::MAX ns: multiplied by 1000 it wrapped to
    // 384 ns (or overflowed), so the task forked at once.
    for start_us in ["18446744073709552", "9223372036854775807"] {
        let late = format!(
            r#"{{ "kind": "tasks", "tasks": [ {{ "comm": "late", "count": 1, "start_us": {start_us},
              "program": [ {{ "op": "run", "duration": {{ "dist": "fixed", "us": 100.0 }} }} ] }} ] }}"#
        );
        let text = GOOD.replace(r#""workloads": ["#, &format!(r#""workloads": [{late}, "#));
        let scenario = parse_scenario(&text).unwrap_or_else(|errors| panic!("{errors:?}"));
        let mut sim = sched_core::Simulator::new(&scenario).unwrap();
        sim.run_to_end();
        let task = sim.tasks.iter().find(|task| task.comm == "late").unwrap();
        assert_eq!(
            task.state,
            sched_core::task::TaskState::Unborn,
            "start_us {start_us}"
        );
    }
}

#[test]
fn durations_too_long_for_nanoseconds_run_past_the_end() {
    // 1e300 us is a valid number; in nanoseconds it saturated to u64::MAX, and the
    // run's wall time (work * 1000 / speed) overflowed.
    let endless = r#"{ "kind": "tasks", "tasks": [ { "comm": "endless", "count": 2,
      "program": [ { "op": "run", "duration": { "dist": "fixed", "us": 1e300 } },
                   { "op": "sleep", "duration": { "dist": "uniform", "min_us": 0, "max_us": 1e300 } } ] } ] }"#;
    let text = GOOD.replace(
        r#""workloads": ["#,
        &format!(r#""workloads": [{endless}, "#),
    );
    let scenario = parse_scenario(&text).unwrap_or_else(|errors| panic!("{errors:?}"));
    let mut sim = sched_core::Simulator::new(&scenario).unwrap();
    sim.run_to_end();
    let summary = sim.summary("endless");
    assert!(summary.context_switches > 0);
}

#[test]
fn the_llc_bound_the_code_uses_is_the_schemas() {
    let schema = sched_scenario::schema_value();
    let bound = schema
        .pointer("/$defs/TopologySpec/properties/cores_per_llc/maximum")
        .and_then(serde_json::Value::as_u64);
    assert_eq!(
        bound,
        Some(u64::from(sched_core::topology::MAX_CORES_PER_LLC)),
        "cores_per_llc's maximum in the schema"
    );
}

#[test]
fn a_mistyped_field_is_named_with_the_one_it_most_likely_meant() {
    let text = GOOD.replace("\"duration_ms\"", "\"kernal\": \"6.5\", \"duration_ms\"");
    assert!(messages(&text)
        .contains(&"kernal: is not a known field (did you mean \"kernel\"?)".to_string()));
    let far = GOOD.replace("\"duration_ms\"", "\"zzzzzz\": 1, \"duration_ms\"");
    assert!(messages(&far).contains(&"zzzzzz: is not a known field".to_string()));
    // The hint comes from the fields of the object the unknown one is in.
    let nested = GOOD.replace(
        "\"preset\": \"teaching-small\"",
        "\"preset\": \"teaching-small\", \"socktes\": 1, \"seed\": 3",
    );
    let found = messages(&nested);
    assert!(
        found.contains(
            &"topology.socktes: is not a known field (did you mean \"sockets\"?)".to_string()
        ),
        "{found:?}"
    );
    // `seed` is a field of the scenario, not of the machine: the message says where it goes.
    assert!(
        found.contains(
            &"topology.seed: is not a known field (\"seed\" belongs at the top level)".to_string()
        ),
        "{found:?}"
    );
}

#[test]
fn a_field_in_the_wrong_object_is_told_where_it_belongs() {
    // One level too high: a SHARED_RUNQ knob straight under `policy`.
    let high = GOOD.replace(
        "\"duration_ms\"",
        "\"policy\": { \"shard_size\": 3 }, \"duration_ms\"",
    );
    assert!(messages(&high).contains(
        &"policy.shard_size: is not a known field (\"shard_size\" belongs in policy.shared_runq)"
            .to_string()
    ));
    // In the second workload instead of at the top level: the index is not kept
    // where the place does not share it.
    let second = GOOD.replace(
        "\"sleeptime_us\": 100 } ]",
        "\"sleeptime_us\": 100 }, { \"kind\": \"schbench\", \"message_threads\": 1, \"worker_threads\": 2, \"cputime_us\": 100, \"sleeptime_us\": 100, \"kernel\": \"6.5\" } ]",
    );
    assert!(
        messages(&second).contains(
            &"workloads.1.kernel: is not a known field (\"kernel\" belongs at the top level)"
                .to_string()
        ),
        "{:?}",
        messages(&second)
    );
    // A field of another workload kind, in its own place, is not sent elsewhere.
    let other_kind = GOOD.replace(
        "\"sleeptime_us\": 100",
        "\"sleeptime_us\": 100, \"buffer_messages\": 8",
    );
    let found = messages(&other_kind);
    assert!(
        found.iter().any(|line| line
            .starts_with("workloads.0.buffer_messages: is not a known field")
            && !line.contains("belongs")),
        "{found:?}"
    );
    // Known nowhere: no place.
    assert_eq!(sched_scenario::field_belongs("zzzz", "topology"), None);
    // A cgroup tree's field put in its leaf: one level up, with the workload's own index.
    assert_eq!(
        sched_scenario::field_belongs("depth", "workloads.3.leaf").as_deref(),
        Some("in workloads.3")
    );
}
