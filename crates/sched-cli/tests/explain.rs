//! `schedlab explain`, run as a user would: pick a line of `run --trace-out`, ask
//! why.

mod common;

use common::{schedlab, unique_temp};

/// The event lines of `schedlab run SCENARIO --trace-out FILE --reasons ARGS`,
/// header lines dropped: line N is record N.
fn trace_lines(name: &str, args: &[&str]) -> Vec<String> {
    let out = unique_temp(name);
    let out_str = out.to_string_lossy().into_owned();
    let mut all = vec!["run", name, "--trace-out", out_str.as_str(), "--reasons"];
    all.extend(args);
    let (ok, _, stderr) = schedlab(&all);
    assert!(ok, "{stderr}");
    let text = std::fs::read_to_string(&out).expect("the trace file");
    std::fs::remove_file(&out).ok();
    text.lines()
        .filter(|line| !line.starts_with('#'))
        .map(String::from)
        .collect()
}

/// `target_cpu=005` of a wakeup line, as a number.
fn target_cpu(line: &str) -> u32 {
    let field = line
        .split_whitespace()
        .find_map(|word| word.strip_prefix("target_cpu="))
        .expect("a target_cpu field");
    field.parse().expect("a CPU number")
}

#[test]
fn a_wakeup_in_teaching_small_lists_the_cpus_inspected_and_the_chosen_one() {
    let set = ["--set", "duration_ms=40"];
    let lines = trace_lines("teaching-small", &set);
    // A schbench wakeup that scanned (not a pinned kworker, not "target idle").
    let index = lines
        .iter()
        .position(|line| line.contains("sched_wakeup:") && line.contains("found idle CPU"))
        .expect("a wakeup whose scan found an idle CPU");
    let event = index.to_string();
    let (ok, stdout, stderr) = schedlab(&[
        "explain",
        "teaching-small",
        "--set",
        "duration_ms=40",
        "--event",
        &event,
    ]);
    assert!(ok, "{stderr}");
    let expected = target_cpu(&lines[index]);
    assert!(
        stdout.contains(&format!("chosen CPU: {expected}\n")),
        "line {index}: {}\n{stdout}",
        lines[index]
    );
    assert!(stdout.contains(&format!("record {index}: sched_wakeup of pid")));
    // The target and the scan's CPUs, in order, each with what it was.
    assert!(stdout.contains("target CPU"), "{stdout}");
    assert!(stdout.contains("select_idle_cpu"), "{stdout}");
    let inspected = stdout.matches(" busy").count() + stdout.matches(" idle").count();
    assert!(inspected >= 2, "{stdout}");
    assert!(stdout.contains(&format!("CPU {expected} idle")), "{stdout}");

    // The sched_waking line of the same wakeup names the same decision.
    let waking = (0..index)
        .rev()
        .find(|idx| lines[*idx].contains("sched_waking:"))
        .expect("its sched_waking line");
    let (ok, by_waking, stderr) = schedlab(&[
        "explain",
        "teaching-small",
        "--set",
        "duration_ms=40",
        "--event",
        &waking.to_string(),
        "--json",
    ]);
    assert!(ok, "{stderr}");
    let value: serde_json::Value = serde_json::from_str(&by_waking).unwrap();
    assert_eq!(value["event"], "sched_waking");
    assert_eq!(value["kind"], "wakeup");
    assert_eq!(value["chosen_cpu"], expected);
    let steps = value["steps"].as_array().unwrap();
    assert!(steps.iter().any(|step| step["step"] == "scan"
        && step["cpus"]
            .as_array()
            .is_some_and(|cpus| !cpus.is_empty() && cpus[0]["state"].is_string())));
}

#[test]
fn a_pinned_stream_fork_on_5_18_shows_the_numa_rule() {
    let set = ["--set", "duration_ms=5"];
    let lines = trace_lines("stream8-pinned-zen3", &set);
    let index = lines
        .iter()
        .position(|line| line.contains("sched_wakeup_new:") && line.contains("the NUMA rule"))
        .expect("a fork the NUMA rule kept local");
    let (ok, stdout, stderr) = schedlab(&[
        "explain",
        "stream8-pinned-zen3",
        "--set",
        "duration_ms=5",
        "--event",
        &index.to_string(),
    ]);
    assert!(ok, "{stderr}");
    assert!(stdout.contains("a fork placement, kernel 5.18"), "{stdout}");
    assert!(stdout.contains("NUMA rule (5.18)"), "{stdout}");
    assert!(stdout.contains("imb_numa_nr 8"), "{stdout}");
    assert!(stdout.contains("+ 1 ="), "{stdout}");
    assert!(stdout.contains("sum_nr_running"), "{stdout}");
    assert!(
        stdout.contains(&format!("chosen CPU: {}\n", target_cpu(&lines[index]))),
        "{stdout}"
    );
}

#[test]
fn a_sched_switch_cannot_be_explained() {
    let set = ["--set", "duration_ms=20"];
    let lines = trace_lines("teaching-small", &set);
    let index = lines
        .iter()
        .position(|line| line.contains("sched_switch:"))
        .expect("a switch");
    let (ok, stdout, stderr) = schedlab(&[
        "explain",
        "teaching-small",
        "--set",
        "duration_ms=20",
        "--event",
        &index.to_string(),
    ]);
    assert!(!ok);
    assert!(stdout.is_empty());
    assert!(
        stderr.contains(&format!("record {index} is a sched_switch event")),
        "{stderr}"
    );
    assert!(
        stderr.contains("only wakeups and forks can be explained"),
        "{stderr}"
    );
}

#[test]
fn an_index_past_the_end_is_out_of_range() {
    let set = ["--set", "duration_ms=20"];
    let count = trace_lines("teaching-small", &set).len();
    let (ok, _, stderr) = schedlab(&[
        "explain",
        "teaching-small",
        "--set",
        "duration_ms=20",
        "--event",
        &count.to_string(),
    ]);
    assert!(!ok);
    assert!(
        stderr.contains(&format!(
            "record {count} is out of range: the run emits {count} trace records (0 to {})",
            count - 1
        )),
        "{stderr}"
    );
}
