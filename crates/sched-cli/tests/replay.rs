//! `schedlab replay`, run as a user would: files, standard input, gzip, garbage.

mod common;

use std::io::Write;
use std::process::{Command, Stdio};

const FIXTURES: &str = concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/../sched-core/tests/fixtures/ftrace"
);

fn schedlab(args: &[&str], stdin: Option<&[u8]>) -> (bool, String, String) {
    let mut child = Command::new(env!("CARGO_BIN_EXE_schedlab"))
        .args(args)
        .current_dir(concat!(env!("CARGO_MANIFEST_DIR"), "/../.."))
        .stdin(if stdin.is_some() {
            Stdio::piped()
        } else {
            Stdio::null()
        })
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("schedlab runs");
    if let Some(bytes) = stdin {
        let mut pipe = child.stdin.take().expect("a stdin pipe");
        pipe.write_all(bytes).expect("stdin takes the input");
    }
    let output = child.wait_with_output().expect("schedlab ends");
    (
        output.status.success(),
        String::from_utf8_lossy(&output.stdout).into_owned(),
        String::from_utf8_lossy(&output.stderr).into_owned(),
    )
}

fn fixture(name: &str) -> String {
    format!("{FIXTURES}/{name}")
}

fn json(args: &[&str], stdin: Option<&[u8]>) -> serde_json::Value {
    let (ok, stdout, stderr) = schedlab(args, stdin);
    assert!(ok, "{stderr}");
    serde_json::from_str(&stdout).unwrap_or_else(|err| panic!("{err}: {stdout}"))
}

fn temp_path(name: &str) -> std::path::PathBuf {
    common::unique_temp(name)
}

/// `replay - --json --resimulate --save-scenario FILE` on `log`: the report and the
/// saved what-if scenario.
fn resimulate_stdin(log: &str, name: &str) -> (serde_json::Value, serde_json::Value) {
    let saved = temp_path(&format!("{name}.json"));
    let value = json(
        &[
            "replay",
            "-",
            "--json",
            "--resimulate",
            "--save-scenario",
            saved.to_str().unwrap(),
        ],
        Some(log.as_bytes()),
    );
    let scenario = serde_json::from_str(&std::fs::read_to_string(&saved).unwrap()).unwrap();
    std::fs::remove_file(&saved).ok();
    (value, scenario)
}

#[test]
fn json_has_the_documented_keys_and_counts() {
    let path = fixture("ftrace_current.txt");
    let value = json(&["replay", &path, "--json"], None);
    for key in [
        "format",
        "lines",
        "events",
        "skipped",
        "warnings",
        "cpus",
        "tasks",
        "first_ts",
        "last_ts",
        "wakeup_latency_us",
        "migrations",
        "utilization",
        "per_cpu",
        "power",
        "stat_runtime",
    ] {
        assert!(value.get(key).is_some(), "missing {key} in {value}");
    }
    assert_eq!(value["format"], "ftrace");
    assert_eq!(value["lines"], 37);
    assert_eq!(value["events"]["sched_switch"], 7);
    assert_eq!(value["events"]["sched_wakeup"], 2);
    assert_eq!(value["events"]["sched_wakeup_new"], 1);
    assert_eq!(value["events"]["sched_migrate_task"], 1);
    assert_eq!(value["events"]["sched_stat_runtime"], 1);
    assert_eq!(value["stat_runtime"]["by_pid"]["0"], 1000);
    assert_eq!(value["skipped"]["header"]["count"], 12);
    assert_eq!(value["skipped"]["lost_events"]["first_lines"][0], 20);
    assert_eq!(value["warnings"][0]["line"], 20);
    assert_eq!(value["cpus"], serde_json::json!([0, 1, 2, 3]));
    assert_eq!(value["tasks"]["4100"], "Web Content");
    assert_eq!(value["first_ts"].as_f64(), Some(100.0001));
    assert_eq!(value["last_ts"].as_f64(), Some(100.0015));
    for key in [
        "p50", "p75", "p90", "p95", "p99", "p99_5", "p99_9", "min", "max",
    ] {
        assert!(
            value["wakeup_latency_us"][key].is_number(),
            "missing wakeup_latency_us.{key}"
        );
    }
    assert_eq!(value["wakeup_latency_us"]["samples"], 2);
    assert_eq!(value["migrations"]["llc"], 1);
    assert_eq!(value["migrations"]["source"], "sched_migrate_task");
    assert_eq!(value["migrations"]["topology"], "flat");
}

#[test]
fn topology_preset_classes_migrations() {
    let path = fixture("perf_script.txt");
    let value = json(
        &["replay", &path, "--json", "--topology", "teaching-small"],
        None,
    );
    assert_eq!(value["format"], "perf");
    assert_eq!(value["migrations"]["smt"], 1);
    assert_eq!(value["migrations"]["topology"], "teaching-small");
    let (ok, _, stderr) = schedlab(&["replay", &path, "--topology", "no-such-box"], None);
    assert!(!ok);
    assert!(stderr.contains("unknown preset"), "{stderr}");
}

#[test]
fn text_report_shows_the_parse_and_the_latency_table() {
    let (ok, stdout, stderr) = schedlab(&["replay", &fixture("trace_cmd.txt")], None);
    assert!(ok, "{stderr}");
    for needle in [
        "format trace-cmd",
        "events read: sched_stat_runtime 1, sched_switch 4, sched_wakeup 2",
        "runtime charged (sched_stat_runtime): 0.040 ms to 1 task(s) in 1 event(s)",
        "*99.0th",
        "min=",
        "migrations (inferred, on flat)",
        "utilization:",
    ] {
        assert!(stdout.contains(needle), "missing {needle} in:\n{stdout}");
    }
}

#[test]
fn stdin_works() {
    let text = std::fs::read(fixture("seed004_wakeup_new.txt")).unwrap();
    let value = json(&["replay", "-", "--json"], Some(&text));
    assert_eq!(value["events"]["sched_wakeup_new"], 7);
    assert_eq!(value["format"], "ftrace");
    assert_eq!(value["wrappers"][0], "mail-quote");
    assert_eq!(value["first_ts"].as_f64(), Some(230.784046));
}

#[test]
fn gzip_file_works() {
    let text = std::fs::read(fixture("trace_cmd_raw.txt")).unwrap();
    let path = temp_path("trace.txt.gz");
    let mut encoder = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
    encoder.write_all(&text).unwrap();
    std::fs::write(&path, encoder.finish().unwrap()).unwrap();
    let value = json(&["replay", path.to_str().unwrap(), "--json"], None);
    std::fs::remove_file(&path).ok();
    assert_eq!(value["format"], "trace-cmd-raw");
    assert_eq!(value["events"]["sched_switch"], 4);
    assert_eq!(value["out_of_order"], 2);
}

#[test]
fn garbage_is_a_clear_error_saying_what_its_lines_were() {
    let bytes: Vec<u8> = (0..20_000u32)
        .map(|i| (i.wrapping_mul(2_654_435_761) >> 11) as u8)
        .collect();
    let (ok, stdout, stderr) = schedlab(&["replay", "-", "--json"], Some(&bytes));
    assert!(!ok);
    assert!(stdout.is_empty(), "{stdout}");
    assert!(
        stderr.contains("error: standard input: none of its")
            && stderr.contains("lines is a scheduler event")
            && stderr.contains("lines that are not trace events (lines 1, "),
        "{stderr}"
    );
    let (ok, _, stderr) = schedlab(&["replay", "-"], Some(b""));
    assert!(!ok);
    assert!(
        stderr.contains("standard input is empty: there is no ftrace line to replay"),
        "{stderr}"
    );
}

#[test]
fn unreadable_files_are_a_clear_error() {
    let (ok, _, stderr) = schedlab(&["replay", "/no/such/trace.txt"], None);
    assert!(!ok);
    assert!(
        stderr.contains("cannot read /no/such/trace.txt"),
        "{stderr}"
    );
    let path = temp_path("broken.gz");
    std::fs::write(&path, b"\x1f\x8bnot really gzip").unwrap();
    let (ok, _, stderr) = schedlab(&["replay", path.to_str().unwrap()], None);
    std::fs::remove_file(&path).ok();
    assert!(!ok);
    assert!(stderr.contains("gzip"), "{stderr}");
}

#[test]
fn resimulate_runs_the_log_as_a_workload_under_the_settings_asked() {
    // A schedlab trace of teaching-small in schbench's pipe mode, 40 ms: 2 message
    // threads, 10 workers and the kworkers that woke. Pipe mode's workers do CPU
    // work, which a re-simulation replays as it was; outside it they spin on the
    // clock, which a log cannot tell from work (docs/replay.md).
    let trace = temp_path("whatif.trace");
    let (ok, _, stderr) = schedlab(
        &[
            "run",
            "teaching-small",
            "--set",
            "workloads.0.pipe_bytes=4096",
            "--set",
            "duration_ms=40",
            "--trace-out",
            trace.to_str().unwrap(),
        ],
        None,
    );
    assert!(ok, "{stderr}");
    let saved = temp_path("whatif.json");
    let value = json(
        &[
            "replay",
            trace.to_str().unwrap(),
            "--json",
            "--topology",
            "teaching-small",
            "--resimulate",
            "--set",
            "kernel=4.6",
            "--save-scenario",
            saved.to_str().unwrap(),
        ],
        None,
    );
    let what_if = &value["resimulation"];
    let logged_tasks = value["tasks"].as_object().unwrap().len();
    assert!(logged_tasks >= 12, "{logged_tasks} tasks in the log");
    assert_eq!(what_if["tasks"], logged_tasks, "{what_if}");
    assert!(what_if["task_wakeups"].as_u64().unwrap() > 1000);
    assert_eq!(what_if["summary"]["kernel"], "4.6");
    // The same machine replays the same work: utilisation within a fifth of the log's.
    let log = value["utilization"].as_f64().unwrap();
    let simulated = what_if["summary"]["utilization"].as_f64().unwrap();
    assert!(
        (simulated - log).abs() < 0.2 * log,
        "log {log}, simulation {simulated}"
    );
    // The saved scenario runs on its own, with the override in it.
    let (ok, stdout, stderr) = schedlab(&["run", saved.to_str().unwrap(), "--json"], None);
    assert!(ok, "{stderr}");
    let rerun: serde_json::Value = serde_json::from_str(&stdout).unwrap();
    assert_eq!(rerun["kernel"], "4.6");
    assert_eq!(rerun["trace_hash"], what_if["summary"]["trace_hash"]);
    // A bad override names the field.
    let (ok, _, stderr) = schedlab(
        &[
            "replay",
            trace.to_str().unwrap(),
            "--resimulate",
            "--set",
            "policy.shared_runq.mode=sometimes",
        ],
        None,
    );
    std::fs::remove_file(&trace).ok();
    std::fs::remove_file(&saved).ok();
    assert!(!ok);
    assert!(stderr.contains("policy.shared_runq.mode"), "{stderr}");
}

#[test]
fn resimulate_says_so_when_the_log_has_no_task() {
    // A log of scheduler events but no task (only the idle task) has no workload.
    let idle_only = b"  <idle>-0  [001] d..2.  100.000001: sched_switch: prev_comm=swapper/1 prev_pid=0 prev_prio=120 prev_state=R ==> next_comm=swapper/1 next_pid=0 next_prio=120\n";
    let (ok, _, stderr) = schedlab(&["replay", "-", "--resimulate"], Some(idle_only));
    assert!(!ok);
    assert!(stderr.contains("nothing to re-simulate"), "{stderr}");
}

#[test]
fn frequency_and_idle_states_in_json_and_text() {
    let path = fixture("power_events.txt");
    let value = json(&["replay", &path, "--json"], None);
    assert_eq!(value["events"]["cpu_idle"], 6);
    assert_eq!(value["power"][0]["cpu"], 0);
    assert_eq!(value["power"][0]["frequency"]["mean_mhz"], 2100.0);
    assert_eq!(
        value["power"][1]["idle"]["state_ns"],
        serde_json::json!([0, 0, 400_000])
    );
    let (ok, stdout, stderr) = schedlab(&["replay", &path], None);
    assert!(ok, "{stderr}");
    for needle in [
        "frequency (cpu_frequency), MHz:",
        "      0        2     2100     1200     2400",
        "idle states (cpu_idle)",
        "      1        2   33.3 %    0.0 %    0.0 %   66.7 %",
    ] {
        assert!(stdout.contains(needle), "missing {needle} in:\n{stdout}");
    }
}

#[test]
fn resimulate_a_log_of_more_cpus_than_an_llc_holds() {
    // CPU 199 named: the flat machine has 200 CPUs, more than a scenario's LLC may.
    let log = "\
          a-10    [000] d..2.     1.000000: sched_switch: prev_comm=a prev_pid=10 prev_prio=120 prev_state=S ==> next_comm=swapper/0 next_pid=0 next_prio=120
          b-11    [199] d..2.     1.000050: sched_wakeup: comm=a pid=10 prio=120 target_cpu=199
          b-11    [199] d..2.     1.000100: sched_switch: prev_comm=b prev_pid=11 prev_prio=120 prev_state=S ==> next_comm=a next_pid=10 next_prio=120
          a-10    [199] d..2.     1.000600: sched_wakeup: comm=b pid=11 prio=120 target_cpu=000
          a-10    [199] d..2.     1.000700: sched_switch: prev_comm=a prev_pid=10 prev_prio=120 prev_state=S ==> next_comm=swapper/199 next_pid=0 next_prio=120
          <idle>-0     [000] d..2.     1.000750: sched_switch: prev_comm=swapper/0 prev_pid=0 prev_prio=120 prev_state=R ==> next_comm=b next_pid=11 next_prio=120
";
    let (value, scenario) = resimulate_stdin(log, "wide");
    assert_eq!(value["resimulation"]["tasks"], 2, "{value}");
    // Two LLCs of 100 cores: every CPU the log names exists.
    assert_eq!(scenario["topology"]["llcs_per_socket"], 2, "{scenario}");
    assert_eq!(scenario["topology"]["cores_per_llc"], 100, "{scenario}");
}

#[test]
fn resimulate_on_the_flat_machine_keeps_the_log_cpu_numbers_and_only_its_cpus() {
    // A log recorded on CPUs 1 and 2 only (a CPU mask): two tasks waking each other.
    let log = "\
          <idle>-0     [001] d..2.   100.000100: sched_switch: prev_comm=swapper/1 prev_pid=0 prev_prio=120 prev_state=R ==> next_comm=a next_pid=11 next_prio=120
               a-11    [001] d..2.   100.000600: sched_wakeup: comm=b pid=12 prio=120 target_cpu=002
          <idle>-0     [002] d..2.   100.000700: sched_switch: prev_comm=swapper/2 prev_pid=0 prev_prio=120 prev_state=R ==> next_comm=b next_pid=12 next_prio=120
               a-11    [001] d..2.   100.001100: sched_switch: prev_comm=a prev_pid=11 prev_prio=120 prev_state=S ==> next_comm=swapper/1 next_pid=0 next_prio=120
               b-12    [002] d..2.   100.002100: sched_wakeup: comm=a pid=11 prio=120 target_cpu=001
          <idle>-0     [001] d..2.   100.002200: sched_switch: prev_comm=swapper/1 prev_pid=0 prev_prio=120 prev_state=R ==> next_comm=a next_pid=11 next_prio=120
               b-12    [002] d..2.   100.002300: sched_switch: prev_comm=b prev_pid=12 prev_prio=120 prev_state=S ==> next_comm=swapper/2 next_pid=0 next_prio=120
               a-11    [001] d..2.   100.003000: sched_switch: prev_comm=a prev_pid=11 prev_prio=120 prev_state=S ==> next_comm=swapper/1 next_pid=0 next_prio=120
";
    let (value, scenario) = resimulate_stdin(log, "masked");
    // Numbered as in the log, CPU 0 taken offline from the start.
    assert_eq!(scenario["topology"]["cores_per_llc"], 3, "{scenario}");
    assert_eq!(
        scenario["hotplug"],
        serde_json::json!([{ "at_ms": 0.0, "cpu": 0, "online": false }])
    );
    // Utilisation is of the two online CPUs, as the log's is, and no task moved.
    let what_if = &value["resimulation"]["summary"];
    let log_util = value["utilization"].as_f64().unwrap();
    let simulated = what_if["utilization"].as_f64().unwrap();
    assert!(
        (simulated - log_util).abs() < 0.1,
        "log {log_util}, simulation {simulated}"
    );
    for distance in ["smt", "llc", "cross_llc", "cross_numa"] {
        assert_eq!(what_if["migrations"][distance], 0, "{what_if}");
    }
}

#[test]
fn resimulate_on_the_flat_machine_takes_its_size_from_the_header() {
    // The trace file's header says the machine has 8 CPUs; the log shows only 1 and 2.
    let log = format!(
        "# tracer: nop\n#\n# entries-in-buffer/entries-written: 8/8   #P:8\n#\n{}",
        "\
          <idle>-0     [001] d..2.   100.000100: sched_switch: prev_comm=swapper/1 prev_pid=0 prev_prio=120 prev_state=R ==> next_comm=a next_pid=11 next_prio=120
               a-11    [001] d..2.   100.000600: sched_wakeup: comm=b pid=12 prio=120 target_cpu=002
          <idle>-0     [002] d..2.   100.000700: sched_switch: prev_comm=swapper/2 prev_pid=0 prev_prio=120 prev_state=R ==> next_comm=b next_pid=12 next_prio=120
               a-11    [001] d..2.   100.001100: sched_switch: prev_comm=a prev_pid=11 prev_prio=120 prev_state=S ==> next_comm=swapper/1 next_pid=0 next_prio=120
"
    );
    let (value, scenario) = resimulate_stdin(&log, "header");
    assert_eq!(value["machine_cpus"], 8, "{value}");
    // The whole machine, every CPU online: the header says they were there.
    assert_eq!(scenario["topology"]["cores_per_llc"], 8, "{scenario}");
    // (No hotplug: an empty list is left out of the file.)
    assert!(scenario.get("hotplug").is_none(), "{scenario}");
    let (ok, stdout, stderr) = schedlab(&["replay", "-"], Some(log.as_bytes()));
    assert!(ok, "{stderr}");
    assert!(
        stdout.contains("CPUs seen: 2 (1-2) of the machine's 8"),
        "{stdout}"
    );
}

#[test]
fn the_text_report_says_how_many_samples_its_latencies_stand_on() {
    let fixture = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../sched-core/tests/fixtures/ftrace/ftrace_current.txt"
    );
    let (ok, stdout, stderr) = schedlab(
        &[
            "replay",
            fixture,
            "--resimulate",
            "--topology",
            "xeon-2s10c",
        ],
        None,
    );
    assert!(ok, "{stderr}");
    let row = |name: &str| -> Vec<String> {
        let line = stdout
            .lines()
            .find(|line| line.starts_with(name))
            .unwrap_or_else(|| panic!("no `{name}` row in:\n{stdout}"));
        line[name.len()..]
            .split_whitespace()
            .map(String::from)
            .collect()
    };
    // The log's wakeups and the simulation's, and the CPUs each utilisation is over.
    assert_eq!(row("wakeup latency samples").len(), 2);
    assert_eq!(row("CPUs (utilisation over)"), ["4", "40"]);
    // A log with no wakeup followed by its switch-in: said, not a table of zeros.
    let switches_only = "\
          <idle>-0       [001] d..2.   100.000100: sched_switch: prev_comm=swapper/1 prev_pid=0 prev_prio=120 prev_state=R ==> next_comm=b next_pid=11 next_prio=120
               b-11      [001] d..2.   100.000300: sched_switch: prev_comm=b prev_pid=11 prev_prio=120 prev_state=S ==> next_comm=swapper/1 next_pid=0 next_prio=120
";
    let (ok, stdout, stderr) = schedlab(&["replay", "-"], Some(switches_only.as_bytes()));
    assert!(ok, "{stderr}");
    assert!(
        stdout.contains("Wakeup latency (usec, wakeup to switch-in): no samples"),
        "{stdout}"
    );
    assert!(!stdout.contains("\t99.0th"), "{stdout}");
}

#[test]
fn save_scenario_without_resimulate_names_the_missing_flag_and_each_argument_once() {
    let (ok, _, stderr) = schedlab(
        &[
            "replay",
            "--save-scenario",
            "out.json",
            &fixture("ftrace_current.txt"),
        ],
        None,
    );
    assert!(!ok);
    assert!(stderr.contains("--resimulate"), "{stderr}");
    // The usage line names the output and the log apart: "<OUT.json> <FILE>".
    let usage = stderr
        .lines()
        .find(|line| line.starts_with("Usage:"))
        .unwrap_or_else(|| panic!("no usage line: {stderr}"));
    assert!(
        usage.contains("--save-scenario <OUT.json> <FILE>"),
        "{usage}"
    );
}
