//! The `schedlab` binary, run as a user would.

mod common;

use common::{schedlab, unique_temp};

/// Runs `schedlab ARGS --trace-out TMP [EXTRA]`, asserts success, and returns its
/// stdout and the written trace.
fn run_with_trace(name: &str, args: &[&str], extra: &[&str]) -> (String, String) {
    let out = unique_temp(name);
    let out_str = out.to_string_lossy().into_owned();
    let mut all: Vec<&str> = args.to_vec();
    all.extend(["--trace-out", out_str.as_str()]);
    all.extend(extra);
    let (ok, stdout, stderr) = schedlab(&all);
    assert!(ok, "{stderr}");
    let text = std::fs::read_to_string(&out).expect("the trace file");
    std::fs::remove_file(&out).ok();
    (stdout, text)
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
        "policy.shared_rq.mode=all",
    ]);
    assert!(!ok);
    assert!(
        stderr
            .contains("unknown field `shared_rq` in `policy`; valid fields are: newidle_balance, numa_affinity, periodic_balance, shared_runq, sis_scan, struct_layout, turbo_pack, wake_affine"),
        "{stderr}"
    );
    // A value outside the schema's choices names the field and the choices.
    let (ok, _, stderr) = schedlab(&[
        "run",
        "teaching-small",
        "--set",
        "policy.shared_runq.mode=sometimes",
    ]);
    assert!(!ok);
    assert!(
        stderr.contains(
            r#"policy.shared_runq.mode: must be one of "off", "wakeups", "all", got "sometimes""#
        ),
        "{stderr}"
    );
    assert!(!stderr.contains("panicked"));

    let (ok, _, stderr) = schedlab(&["validate", "no-such-scenario"]);
    assert!(!ok);
    assert!(
        stderr.contains("no scenario `no-such-scenario`: not a file")
            && stderr.contains("not a shipped scenario"),
        "{stderr}"
    );
    // A flag that only means something with another says so.
    let (ok, _, stderr) = schedlab(&["run", "teaching-small", "--reasons"]);
    assert!(!ok && stderr.contains("--trace-out <FILE>"), "{stderr}");
    let (ok, _, stderr) = schedlab(&["bench", "teaching-small", "--repeat", "0"]);
    assert!(!ok && stderr.contains("--repeat"), "{stderr}");
}

#[test]
fn shipped_scenarios_run_by_name_from_any_directory() {
    let elsewhere = std::env::temp_dir();
    let run = |args: &[&str]| {
        let output = std::process::Command::new(env!("CARGO_BIN_EXE_schedlab"))
            .args(args)
            .current_dir(&elsewhere)
            .output()
            .expect("schedlab runs");
        (
            output.status.success(),
            String::from_utf8_lossy(&output.stdout).into_owned(),
            String::from_utf8_lossy(&output.stderr).into_owned(),
        )
    };
    let (ok, stdout, stderr) = run(&["run", "teaching-small", "--set", "duration_ms=5"]);
    assert!(ok, "{stderr}");
    assert!(stdout.starts_with("Teaching machine"), "{stdout}");
    let (ok, stdout, _) = run(&["list"]);
    assert!(ok);
    assert!(stdout.contains("Scenarios (built in"), "{stdout}");
    assert!(stdout.contains("  hackbench-7950x "), "{stdout}");
}

#[cfg(unix)]
#[test]
fn output_into_a_closed_pipe_ends_quietly() {
    use std::io::Read;
    use std::process::{Command, Stdio};
    // The reader takes nothing and goes: the writer gets SIGPIPE, not a panic.
    let mut child = Command::new(env!("CARGO_BIN_EXE_schedlab"))
        .args(["schema"])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("schedlab runs");
    drop(child.stdout.take());
    let mut stderr = String::new();
    child
        .stderr
        .take()
        .expect("stderr")
        .read_to_string(&mut stderr)
        .expect("read stderr");
    child.wait().expect("schedlab ends");
    assert!(!stderr.contains("panicked"), "{stderr}");
}

#[test]
fn validate_and_list() {
    let (ok, stdout, stderr) = schedlab(&["validate", "sis-schbench-t19"]);
    assert!(ok, "{stderr}");
    assert!(
        stdout.contains("ok (xeon-2s10c, 40 CPUs, 40 tasks and 40 background kthreads, kernel 4.6"),
        "{stdout}"
    );
    let (ok, stdout, _) = schedlab(&["list"]);
    assert!(ok);
    assert!(
        stdout.contains("zen3-2s64c")
            && stdout.contains("teaching-small")
            && stdout.contains("wake_affine.enabled")
            && stdout.contains("newidle_balance.enabled")
            && stdout.contains("periodic_balance.enabled"),
        "{stdout}"
    );
    // The kernel table: a column per version, a row per path.
    let header = stdout
        .lines()
        .find(|line| line.trim_start().starts_with("path "))
        .expect("a kernel version table");
    assert!(header.contains("4.6") && header.contains("5.18") && header.contains("6.5"));
    let sis = stdout
        .lines()
        .find(|line| line.trim_start().starts_with("select_idle_sibling"))
        .expect("a select_idle_sibling row");
    assert!(sis.split_whitespace().nth(1) == Some("4.6"), "{sis}");
}

#[test]
fn trace_out_writes_ftrace_text() {
    let (_, text) = run_with_trace(
        "trace",
        &["run", "teaching-small", "--set", "duration_ms=20"],
        &[],
    );
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

#[test]
fn lockstat_prints_the_kernel_layout() {
    let (ok, stdout, stderr) = schedlab(&[
        "run",
        "teaching-small",
        "--set",
        "duration_ms=100",
        "--lockstat",
    ]);
    assert!(ok, "{stderr}");
    assert!(stdout.contains("lock_stat version 0.4"), "{stdout}");
    assert!(
        stdout.contains("con-bounces    contentions   waittime-min"),
        "{stdout}"
    );
    let row = stdout
        .lines()
        .find(|line| line.trim_start().starts_with("&rq->__lock:"))
        .expect("an rq lock row");
    let acquisitions: u64 = row.split_whitespace().nth(8).unwrap().parse().unwrap();
    assert!(acquisitions > 0, "{row}");
}

#[test]
fn perfetto_json_has_cpu_tracks_and_slices() {
    let (_, text) = run_with_trace(
        "perfetto",
        &["run", "teaching-small", "--set", "duration_ms=20"],
        &["--trace-format", "perfetto-json"],
    );
    let value: serde_json::Value = serde_json::from_str(&text).unwrap();
    let events = value["traceEvents"].as_array().unwrap();
    assert!(events
        .iter()
        .any(|e| e["ph"] == "M" && e["args"]["name"] == "CPU 7"));
    let slices: Vec<_> = events.iter().filter(|e| e["ph"] == "X").collect();
    assert!(!slices.is_empty());
    assert!(slices.iter().all(|e| e["dur"].as_f64().unwrap() >= 0.0));
    assert!(events
        .iter()
        .any(|e| e["ph"] == "i" && e["args"]["reason"].as_str().is_some_and(|r| !r.is_empty())));
}

#[test]
fn json_reports_every_metric_the_docs_name() {
    let (ok, stdout, stderr) = schedlab(&[
        "run",
        "hackbench-7950x",
        "--set",
        "workloads.0.loops=20",
        "--json",
    ]);
    assert!(ok, "{stderr}");
    let value: serde_json::Value = serde_json::from_str(&stdout).unwrap();
    assert_eq!(
        value["throughput"]["unit"], "s",
        "hackbench reports its completion time"
    );
    assert!(value["throughput"]["value"].as_f64().unwrap() > 0.0);
    for key in ["llc", "machine"] {
        assert!(value["idle_while_runnable_ns"][key].is_u64());
    }
    for key in ["smt", "llc", "cross_llc", "cross_numa"] {
        assert!(value["migrations"][key].is_u64());
    }
    let lock = &value["locks"][0];
    for key in [
        "class",
        "con_bounces",
        "contentions",
        "waittime_min_ns",
        "waittime_max_ns",
        "waittime_total_ns",
        "waittime_avg_ns",
        "acq_bounces",
        "acquisitions",
        "holdtime_avg_ns",
    ] {
        assert!(!lock[key].is_null(), "locks[0].{key}");
    }
    assert!(value["utilization"].as_f64().unwrap() > 0.0);
    assert!(value["avg_freq_mhz"].as_f64().unwrap() > 0.0);
}

#[test]
fn stream_reports_mb_per_second_per_kernel() {
    let (ok, stdout, stderr) = schedlab(&[
        "run",
        "stream8-pinned-zen3",
        "--set",
        "workloads.0.ntimes=2",
        "--json",
    ]);
    assert!(ok, "{stderr}");
    let value: serde_json::Value = serde_json::from_str(&stdout).unwrap();
    let units: Vec<&str> = value["throughput_by_workload"][0]["values"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v["unit"].as_str().unwrap())
        .collect();
    assert_eq!(
        units,
        vec!["MB/s Copy", "MB/s Scale", "MB/s Add", "MB/s Triad"]
    );
}

#[test]
fn the_trace_shows_cfs_throttling_of_a_cgroup_tree() {
    let (stdout, text) = run_with_trace(
        "cgroup",
        &[
            "run",
            "cgroup-d3w10",
            "--set",
            "duration_ms=40",
            "--set",
            "topology.preset=teaching-small",
            "--set",
            "workloads.0.width=2",
        ],
        &[],
    );
    assert!(stdout.contains("cfs bandwidth: 14 cgroups"), "{stdout}");
    assert!(text
        .lines()
        .any(|line| line.contains("schedlab_cfs_throttle: cgroup=/") && line.contains(" tasks=")));
    assert!(text
        .lines()
        .any(|line| line.contains("schedlab_cfs_unthrottle: cgroup=/")));
}

/// `schedlab bench teaching-small --json` with `extra` arguments: the JSON, and its
/// events/s minimum, median and maximum.
fn bench_json(extra: &[&str]) -> (serde_json::Value, [f64; 3]) {
    let mut args = vec!["bench", "teaching-small", "--json"];
    args.extend_from_slice(extra);
    let (ok, stdout, stderr) = schedlab(&args);
    assert!(ok, "{stderr}");
    let value: serde_json::Value = serde_json::from_str(&stdout).expect("bench --json prints JSON");
    let rate = &value["events_per_s"];
    let figures = ["min", "median", "max"].map(|key| rate[key].as_f64().unwrap());
    (value, figures)
}

#[test]
fn bench_prints_its_figures_as_json() {
    let (value, [min, median, max]) = bench_json(&["--set", "duration_ms=50", "--repeat", "3"]);
    assert_eq!(value["scenario"], "teaching-small");
    assert_eq!(value["cpus"], 8);
    assert_eq!(value["runs"], 3);
    assert!(value["events"].as_u64().is_some_and(|events| events > 0));
    assert!(min > 0.0 && min <= median && median <= max, "{value}");
    assert_eq!(value["trace_hash"].as_str().map(str::len), Some(16));
    // Two runs: their median is their mean, not the faster one.
    let (value, [min, median, max]) = bench_json(&["--set", "duration_ms=20", "--repeat", "2"]);
    assert!((median - (min + max) / 2.0).abs() <= 1e-6 * max, "{value}");
}

#[test]
fn every_cgroup_reports_its_cpu_usage() {
    let (ok, stdout, stderr) = schedlab(&[
        "run",
        "cgroup-weights",
        "--set",
        "duration_ms=100",
        "--json",
    ]);
    assert!(ok, "{stderr}");
    let summary: serde_json::Value = serde_json::from_str(&stdout).expect("JSON");
    let usage = summary["bandwidth"]["usage"]
        .as_array()
        .expect("usage rows");
    let by_group: Vec<(&str, u64)> = usage
        .iter()
        .map(|row| {
            (
                row["group"].as_str().unwrap(),
                row["usage_usec"].as_u64().unwrap(),
            )
        })
        .collect();
    assert_eq!(
        by_group.iter().map(|(group, _)| *group).collect::<Vec<_>>(),
        ["/batch", "/web"]
    );
    // Neither group has a quota, and both ran; together they had at most the machine.
    assert!(
        summary["bandwidth"]["cpu_stat"].is_null(),
        "{}",
        summary["bandwidth"]
    );
    assert!(by_group.iter().all(|(_, usec)| *usec > 0), "{by_group:?}");
    let total: u64 = by_group.iter().map(|(_, usec)| usec).sum();
    assert!(total <= 8 * 100_000, "{total} us on 8 CPUs in 100 ms");
    let (ok, stdout, _) = schedlab(&["run", "cgroup-weights", "--set", "duration_ms=100"]);
    assert!(ok);
    assert!(stdout.contains("cpu.stat usage_usec: /batch "), "{stdout}");
}
