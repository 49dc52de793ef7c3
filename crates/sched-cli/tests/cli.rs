//! The `schedlab` binary, run as a user would.

use std::process::Command;

fn schedlab(args: &[&str]) -> (bool, String, String) {
    let output = Command::new(env!("CARGO_BIN_EXE_schedlab"))
        .args(args)
        .current_dir(concat!(env!("CARGO_MANIFEST_DIR"), "/../.."))
        .output()
        .expect("schedlab runs");
    (
        output.status.success(),
        String::from_utf8_lossy(&output.stdout).into_owned(),
        String::from_utf8_lossy(&output.stderr).into_owned(),
    )
}

#[test]
fn run_prints_a_schbench_table() {
    let (ok, stdout, stderr) = schedlab(&["run", "teaching-small", "--set", "duration_ms=300"]);
    assert!(ok, "{stderr}");
    for label in [
        "50.0th", "75.0th", "90.0th", "95.0th", "*99.0th", "99.5th", "99.9th", "min=", "max=",
    ] {
        assert!(stdout.contains(label), "missing {label} in:\n{stdout}");
    }
    assert!(stdout.contains("trace hash"));
}

#[test]
fn run_json_has_the_documented_keys() {
    let (ok, stdout, stderr) = schedlab(&[
        "run",
        "scenarios/teaching-small.json",
        "--seed",
        "9",
        "--set",
        "duration_ms=200",
        "--json",
    ]);
    assert!(ok, "{stderr}");
    let value: serde_json::Value = serde_json::from_str(&stdout).unwrap();
    assert_eq!(value["scenario"], "teaching-small");
    assert_eq!(value["seed"], 9);
    assert_eq!(value["sim_time_ns"], 200_000_000);
    assert!(value["events"].as_u64().unwrap() > 0);
    for key in [
        "p50", "p75", "p90", "p95", "p99", "p99_5", "p99_9", "min", "max",
    ] {
        assert!(
            value["wakeup_latency_us"][key].is_number(),
            "missing wakeup_latency_us.{key}"
        );
    }
}

#[test]
fn seed_changes_the_trace_and_repeats_exactly() {
    let hash = |seed: &str| {
        let (ok, stdout, _) = schedlab(&[
            "run",
            "teaching-small",
            "--seed",
            seed,
            "--set",
            "duration_ms=200",
            "--json",
        ]);
        assert!(ok);
        serde_json::from_str::<serde_json::Value>(&stdout).unwrap()["trace_hash"].clone()
    };
    assert_eq!(hash("1"), hash("1"));
    assert_ne!(hash("1"), hash("2"));
}

#[test]
fn bad_input_is_explained_not_panicked() {
    let (ok, _, stderr) = schedlab(&[
        "run",
        "teaching-small",
        "--set",
        "topology.llcs_per_socket=0",
    ]);
    assert!(!ok);
    assert!(
        stderr.contains("topology.llcs_per_socket: must be at least 1, got 0"),
        "{stderr}"
    );
    assert!(!stderr.contains("panicked"));

    let (ok, _, stderr) = schedlab(&[
        "run",
        "teaching-small",
        "--set",
        "policy.shared_runq.mode=all",
    ]);
    assert!(!ok);
    assert!(
        stderr
            .contains("unknown field `shared_runq` in `policy`; valid fields are: newidle_balance, periodic_balance, wake_affine"),
        "{stderr}"
    );

    let (ok, _, stderr) = schedlab(&["validate", "no-such-scenario"]);
    assert!(!ok);
    assert!(
        stderr.contains("no scenario file `no-such-scenario`"),
        "{stderr}"
    );
}

#[test]
fn validate_and_list() {
    let (ok, stdout, stderr) = schedlab(&["validate", "sis-schbench-t19"]);
    assert!(ok, "{stderr}");
    assert!(
        stdout.contains("ok (xeon-2s10c, 40 CPUs, 40 tasks"),
        "{stdout}"
    );
    let (ok, stdout, _) = schedlab(&["list"]);
    assert!(ok);
    assert!(
        stdout.contains("zen3-2s64c")
            && stdout.contains("teaching-small")
            && stdout.contains("newidle_balance")
    );
}

#[test]
fn trace_out_writes_ftrace_text() {
    let out = std::env::temp_dir().join(format!("schedlab-trace-{}.txt", std::process::id()));
    let out_str = out.to_string_lossy().into_owned();
    let (ok, _, stderr) = schedlab(&[
        "run",
        "teaching-small",
        "--set",
        "duration_ms=20",
        "--trace-out",
        &out_str,
    ]);
    assert!(ok, "{stderr}");
    let text = std::fs::read_to_string(&out).unwrap();
    std::fs::remove_file(&out).ok();
    assert!(text.starts_with("# tracer: nop\n"));
    let switch = text
        .lines()
        .find(|line| line.contains("sched_switch:"))
        .expect("a switch");
    assert!(
        switch.contains("prev_comm=") && switch.contains(" ==> next_comm="),
        "{switch}"
    );
    assert!(text
        .lines()
        .any(|line| line.contains("sched_wakeup: comm=schbench-worker")));
}
