//! `schedlab sweep`, run as a user would.

mod common;

use common::schedlab;

use serde_json::Value;

/// Runs `schedlab sweep teaching-small --set duration_ms=200 ARGS --json`, asserts
/// success, and returns the printed text.
fn sweep_text(args: &[&str]) -> String {
    let mut all = vec!["sweep", "teaching-small", "--set", "duration_ms=200"];
    all.extend(args);
    all.push("--json");
    let (ok, stdout, stderr) = schedlab(&all);
    assert!(ok, "{stderr}");
    stdout
}

fn sweep_points(args: &[&str]) -> Vec<Value> {
    let value: Value = serde_json::from_str(&sweep_text(args)).expect("sweep --json prints JSON");
    value["points"].as_array().expect("a points list").clone()
}

#[test]
fn json_has_a_point_per_combination_with_median_min_and_max() {
    let points = sweep_points(&[
        "--vary",
        "workloads.0.worker_threads=2,3",
        "--vary",
        "knobs.hz=250,1000,100",
        "--seeds",
        "1..3",
    ]);
    assert_eq!(points.len(), 2 * 3);
    let (ok, run, stderr) = schedlab(&[
        "run",
        "teaching-small",
        "--set",
        "duration_ms=200",
        "--json",
    ]);
    assert!(ok, "{stderr}");
    let run: Value = serde_json::from_str(&run).unwrap();
    let run_keys: Vec<&String> = run.as_object().unwrap().keys().collect();
    for (index, point) in points.iter().enumerate() {
        for key in ["set", "seeds", "median", "min", "max"] {
            assert!(!point[key].is_null(), "point {index} lacks {key}: {point}");
        }
        assert_eq!(point["index"], index);
        assert_eq!(point["seeds"], serde_json::json!([1, 2, 3]));
        assert!(point["set"]["workloads.0.worker_threads"].is_u64());
        assert!(point["set"]["knobs.hz"].is_u64());
        for which in ["median", "min", "max"] {
            let keys: Vec<&String> = point[which].as_object().unwrap().keys().collect();
            assert_eq!(
                keys, run_keys,
                "point {index} {which} has run --json's keys"
            );
        }
        let p99 = |which: &str| point[which]["wakeup_latency_us"]["p99"].as_f64().unwrap();
        assert!(
            p99("min") <= p99("median") && p99("median") <= p99("max"),
            "point {index}: {} {} {}",
            p99("min"),
            p99("median"),
            p99("max")
        );
        // Text fields come from the first seed.
        assert_eq!(point["median"]["scenario"], "teaching-small");
        assert_eq!(point["median"]["throughput"]["unit"], "requests/s");
    }
    // The first flag varies slowest.
    let settings: Vec<(u64, u64)> = points
        .iter()
        .map(|point| {
            (
                point["set"]["workloads.0.worker_threads"].as_u64().unwrap(),
                point["set"]["knobs.hz"].as_u64().unwrap(),
            )
        })
        .collect();
    assert_eq!(
        settings,
        [(2, 250), (2, 1000), (2, 100), (3, 250), (3, 1000), (3, 100)]
    );
}

#[test]
fn a_range_gives_one_point_per_integer() {
    let points = sweep_points(&[
        "--vary",
        "workloads.0.worker_threads=2..4",
        "--seeds",
        "1,2",
    ]);
    let values: Vec<&Value> = points
        .iter()
        .map(|point| &point["set"]["workloads.0.worker_threads"])
        .collect();
    assert_eq!(values, [2, 3, 4]);
}

#[test]
fn the_same_sweep_prints_the_same_bytes_on_any_number_of_threads() {
    let args = [
        "--vary",
        "workloads.0.worker_threads=2..4",
        "--vary",
        "policy.wake_affine.enabled=true,false",
        "--seeds",
        "1..3",
    ];
    let first = sweep_text(&args);
    assert_eq!(first, sweep_text(&args));
    let mut one_thread = args.to_vec();
    one_thread.extend(["--threads", "1"]);
    let mut three_threads = args.to_vec();
    three_threads.extend(["--threads", "3"]);
    assert_eq!(first, sweep_text(&one_thread));
    assert_eq!(first, sweep_text(&three_threads));
}

#[test]
fn a_shard_runs_exactly_its_points() {
    let args = [
        "--vary",
        "workloads.0.worker_threads=1..5",
        "--seeds",
        "1,2",
    ];
    let all = sweep_points(&args);
    let mut sharded_args = args.to_vec();
    sharded_args.extend(["--shard", "1/2"]);
    let shard = sweep_points(&sharded_args);
    let odd: Vec<&Value> = all.iter().skip(1).step_by(2).collect();
    assert_eq!(shard.len(), 2);
    assert_eq!(shard.iter().collect::<Vec<_>>(), odd);
    assert_eq!(shard[0]["index"], 1);
    assert_eq!(shard[1]["index"], 3);
}

#[test]
fn bad_vary_input_names_the_path_and_runs_nothing() {
    let (ok, stdout, stderr) = schedlab(&[
        "sweep",
        "teaching-small",
        "--vary",
        "workloads.0.threads=2..4",
    ]);
    assert!(!ok);
    assert!(stdout.is_empty(), "{stdout}");
    assert!(
        stderr.contains("--vary workloads.0.threads: unknown field `threads` in `workloads.0`"),
        "{stderr}"
    );
    assert!(!stderr.contains("panicked"));

    // A value of the wrong type, found in a later point, still stops every run.
    let (ok, stdout, stderr) = schedlab(&[
        "sweep",
        "teaching-small",
        "--vary",
        "workloads.0.worker_threads=2,abc",
    ]);
    assert!(!ok);
    assert!(stdout.is_empty(), "{stdout}");
    assert!(
        stderr.contains("--vary workloads.0.worker_threads: expected an integer, got `abc`"),
        "{stderr}"
    );

    // A value the schema accepts but the model refuses names the point.
    let (ok, _, stderr) = schedlab(&[
        "sweep",
        "teaching-small",
        "--vary",
        "workloads.0.worker_threads=0,2",
    ]);
    assert!(!ok);
    assert!(
        stderr.contains("point 0 (workloads.0.worker_threads=0)")
            && stderr.contains("workloads.0.worker_threads: must be at least 1, got 0"),
        "{stderr}"
    );

    for (flag, value, expected) in [
        ("--vary", "knobs.hz=4..2", "A <= B, got 4..2"),
        ("--vary", "kernel=4.6..6.5", "`4.6` is not one"),
        ("--seeds", "5..1", "A <= B, got 5..1"),
        ("--shard", "2/2", "0 <= K < N, got 2/2"),
    ] {
        let mut args = vec!["sweep", "teaching-small", flag, value];
        if flag != "--vary" {
            args.extend(["--vary", "knobs.hz=250"]);
        }
        let (ok, _, stderr) = schedlab(&args);
        assert!(!ok, "{flag} {value}");
        assert!(stderr.contains(expected), "{flag} {value}: {stderr}");
    }

    // A path varied twice would keep one of its lists: refused, before any run.
    let (ok, stdout, stderr) = schedlab(&[
        "sweep",
        "teaching-small",
        "--vary",
        "kernel=4.6",
        "--vary",
        "kernel=6.5",
    ]);
    assert!(!ok);
    assert!(stdout.is_empty());
    assert!(
        stderr.contains("`kernel` is varied twice (`kernel=4.6` and `kernel=6.5`): give its values in one list, `kernel=4.6,6.5`"),
        "{stderr}"
    );
}

/// `run --json` of the point `workloads.0.worker_threads=5` with one seed.
fn five_workers_alone(seed: u64) -> Value {
    let seed = seed.to_string();
    let (ok, stdout, stderr) = schedlab(&[
        "run",
        "teaching-small",
        "--seed",
        &seed,
        "--set",
        "duration_ms=200",
        "--set",
        "workloads.0.worker_threads=5",
        "--json",
    ]);
    assert!(ok, "{stderr}");
    serde_json::from_str(&stdout).unwrap()
}

#[test]
fn a_single_seed_sweep_reports_what_run_reports() {
    let points = sweep_points(&["--vary", "workloads.0.worker_threads=5", "--seeds", "7"]);
    let run = five_workers_alone(7);
    let median = &points[0]["median"];
    assert_eq!(
        median["wakeup_latency_us"]["p99"],
        run["wakeup_latency_us"]["p99"]
    );
    assert_eq!(median["throughput"], run["throughput"]);
    // One summary function serves both, so everything else matches too.
    assert_eq!(median, &run);
    assert_eq!(&points[0]["min"], &run);
    assert_eq!(&points[0]["max"], &run);
    assert_eq!(points[0]["runs"], serde_json::json!([run]));
}

#[test]
fn each_point_lists_every_seeds_own_run_in_seed_order() {
    let points = sweep_points(&["--vary", "workloads.0.worker_threads=5", "--seeds", "9,2"]);
    let runs = points[0]["runs"].as_array().expect("runs");
    assert_eq!(runs.len(), 2);
    for (run, seed) in runs.iter().zip([9, 2]) {
        assert_eq!(run, &five_workers_alone(seed), "seed {seed}");
    }
    assert_ne!(runs[0]["trace_hash"], runs[1]["trace_hash"]);
}

#[test]
fn the_text_table_names_the_scenario_and_seeds() {
    let (ok, stdout, stderr) = schedlab(&[
        "sweep",
        "teaching-small",
        "--set",
        "duration_ms=200",
        "--vary",
        "workloads.0.worker_threads=2..4",
        "--seeds",
        "1..3",
    ]);
    assert!(ok, "{stderr}");
    let lines: Vec<&str> = stdout.lines().collect();
    assert!(
        lines[0].starts_with("teaching-small (") && lines[0].contains("(seeds 1..3)"),
        "{stdout}"
    );
    assert!(
        lines[1].starts_with("workloads.0.worker_threads")
            && lines[1].contains("p99 wakeup (us)")
            && lines[1].contains("throughput (requests/s)")
            && lines[1].contains("utilisation (%)"),
        "{stdout}"
    );
    assert_eq!(lines.len(), 2 + 3, "{stdout}");
    // Every row's p99 cell sits under its header.
    let column = lines[1].find("p99 wakeup").unwrap();
    for row in &lines[2..] {
        assert_eq!(&row[column - 2..column], "  ", "{stdout}");
        assert!(
            row[column..]
                .trim_start()
                .starts_with(|c: char| c.is_ascii_digit()),
            "{stdout}"
        );
    }
}
