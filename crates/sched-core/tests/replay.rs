//! Replaying ftrace text: one fixture per variant of FTRACE.md with its expected
//! counts, bad input, a property test, and a round trip through schedlab's own trace.

use crate::common;

use common::*;
use proptest::prelude::*;
use sched_core::replay::*;
use sched_core::topology::{Topology, TopologySpec};
use sched_core::trace::TraceKind;
use sched_core::Simulator;
use std::collections::BTreeMap;

fn fixture_text(name: &str) -> String {
    let path = format!("{}/fixtures/ftrace/{name}", common::TESTS_DIR);
    std::fs::read_to_string(&path).unwrap_or_else(|err| panic!("{path}: {err}"))
}

fn fixture(name: &str) -> ParsedTrace {
    parse(&fixture_text(name))
}

fn events(report: &ParseReport) -> Vec<(&'static str, u64)> {
    report.events.iter().map(|(k, v)| (*k, *v)).collect()
}

fn skipped(report: &ParseReport) -> Vec<(&'static str, u64)> {
    report
        .skipped
        .iter()
        .map(|(reason, count)| (reason.name(), count.count))
        .collect()
}

fn preset(name: &str) -> Topology {
    let spec = TopologySpec {
        preset: Some(name.into()),
        ..Default::default()
    };
    Topology::build(spec.resolve().expect("a preset"))
}

/// Every switch-in, per CPU, in time order.
fn switch_ins(events: &[Event]) -> BTreeMap<u32, Vec<u32>> {
    let mut out: BTreeMap<u32, Vec<u32>> = BTreeMap::new();
    for event in events {
        if let EventData::Switch { next_pid, .. } = event.data {
            out.entry(event.cpu).or_default().push(next_pid);
        }
    }
    out
}

#[test]
fn current_trace_file_with_every_kind_of_noise() {
    let parsed = fixture("ftrace_current.txt");
    let report = &parsed.report;
    assert_eq!(report.format(), "ftrace");
    assert_eq!(report.formats.get("ftrace"), Some(&16));
    assert_eq!(report.lines, 37);
    assert_eq!(
        events(report),
        vec![
            ("sched_migrate_task", 1),
            ("sched_process_exec", 1),
            ("sched_process_exit", 1),
            ("sched_process_fork", 1),
            ("sched_stat_runtime", 1),
            ("sched_switch", 7),
            ("sched_wakeup", 2),
            ("sched_wakeup_new", 1),
            ("sched_waking", 1),
        ]
    );
    assert_eq!(
        skipped(report),
        vec![
            ("blank", 1),
            ("header", 12),
            ("lost_events", 1),
            ("buffer_started", 1),
            ("stack_trace", 3),
            ("function_tracer", 1),
            ("marker", 1),
            ("other_event", 1),
        ]
    );
    assert_eq!(
        report.skipped[&SkipReason::LostEvents].first_lines,
        vec![20]
    );
    assert_eq!(report.lost_events, 12);
    assert_eq!(report.warnings.len(), 1);
    assert_eq!(report.warnings[0].line, Some(20));
    assert!(report.warnings[0].message.contains("CPU 3 lost 12 events"));
    assert_eq!(report.other_events.get("sched_stat_runtime"), None);
    assert_eq!(report.other_events.get("irq_handler_entry"), Some(&1));
    assert_eq!(
        report.cpus.iter().copied().collect::<Vec<_>>(),
        vec![0, 1, 2, 3]
    );
    // Comms with spaces, dashes and colons; `<...>` stays unknown; exec renames.
    assert_eq!(report.tasks[&55], "kworker/u8:2-events");
    assert_eq!(report.tasks[&4100], "Web Content");
    assert_eq!(report.tasks[&4200], "a:b c-d");
    assert_eq!(report.tasks[&4201], "true");
    assert_eq!(report.tasks[&4300], "<...>");
    assert_eq!(report.first_ts, Some(100.0001));
    assert_eq!(report.last_ts, Some(100.0015));
    // Unknown trailing key=value pairs are ignored.
    let wakeup = parsed
        .events
        .iter()
        .find(|event| event.line == 24)
        .expect("line 24");
    assert_eq!(
        wakeup.data,
        EventData::Wakeup {
            kind: EventKind::SchedWakeup,
            comm: "Web Content".into(),
            pid: 4100,
            prio: Some(120),
            target_cpu: Some(3),
            success: None,
        }
    );
    let switch = parsed.events.iter().find(|e| e.line == 21).unwrap();
    assert!(matches!(
        switch.data,
        EventData::Switch {
            prev_state: PrevState::Preempted,
            prev_pid: 4100,
            next_pid: 4200,
            next_prio: Some(110),
            ..
        }
    ));
    assert_eq!(switch.ctx_pid, 4100);
    assert_eq!(switch.ts_ns, 100_000_500_000);
}

#[test]
fn current_trace_file_replays() {
    let metrics = replay(&fixture("ftrace_current.txt"), None);
    assert_eq!(metrics.switches, 7);
    // kworker woken at .000210, in at .000300; 4201 new at .000950, in at .001000.
    assert_eq!(metrics.wakeups, 2);
    assert_eq!(metrics.wakeup_latency_us.samples, 2);
    assert!((metrics.wakeup_latency_us.min - 50.0).abs() < 0.1);
    assert!((metrics.wakeup_latency_us.max - 90.0).abs() < 0.1);
    // Web Content was preempted (R+), so its wakeup finds it runnable already.
    assert_eq!(metrics.wakeups_of_runnable, 1);
    assert_eq!(metrics.unmatched_wakeups, 0);
    assert_eq!(metrics.migrations.source, MigrationSource::MigrateEvents);
    assert_eq!(metrics.migrations.counts.llc, 1, "flat machine: one LLC");
    assert_eq!(metrics.migrations.total(), 1);
    assert_eq!(metrics.topology_name, "flat");
    assert_eq!(metrics.inconsistencies, 0);
    assert_eq!(metrics.span_ns, 1_400_000);
    let cpu0 = metrics.cpus.iter().find(|cpu| cpu.cpu == 0).unwrap();
    // 4201 runs .001000-.001300 of CPU 0's window .001000-.001500.
    assert_eq!(cpu0.window_ns, 500_000);
    assert_eq!(cpu0.busy_ns, 300_000);
    assert!((cpu0.utilization.unwrap() - 0.6).abs() < 1e-9);
    let cpu3 = metrics.cpus.iter().find(|cpu| cpu.cpu == 3).unwrap();
    assert_eq!(
        cpu3.max_waiting, 1,
        "Web Content waited on CPU 3 after migrating"
    );
}

#[test]
fn tgid_column_and_four_flags() {
    let parsed = fixture("ftrace_tgid.txt");
    let report = &parsed.report;
    assert_eq!(report.format(), "ftrace-tgid");
    assert_eq!(report.formats.get("ftrace-tgid"), Some(&4));
    assert_eq!(
        events(report),
        vec![("sched_switch", 3), ("sched_wakeup", 1)]
    );
    assert_eq!(skipped(report), vec![("header", 9), ("marker", 1)]);
    assert_eq!(report.tasks[&612], "surfaceflinger");
    assert_eq!(report.tasks[&2210], "RenderThread");
    let metrics = replay(&parsed, None);
    assert_eq!(metrics.inconsistencies, 0);
    assert_eq!(metrics.wakeup_latency_us.samples, 1);
    assert!((metrics.wakeup_latency_us.min - 10.0).abs() < 0.1);
    // D|K is blocked: CPU 1 has nobody waiting at the end.
    let switch_out = parsed.events.iter().find(|e| e.line == 13).unwrap();
    assert!(matches!(
        switch_out.data,
        EventData::Switch {
            prev_state: PrevState::Blocked,
            ..
        }
    ));
}

#[test]
fn no_flags_old_cpu_column_and_pre_4_3_success() {
    let parsed = fixture("ftrace_noflags.txt");
    let report = &parsed.report;
    assert_eq!(report.format(), "ftrace");
    assert_eq!(
        events(report),
        vec![("sched_switch", 2), ("sched_wakeup", 2)]
    );
    let failed = parsed.events.iter().find(|e| e.line == 7).unwrap();
    assert!(matches!(
        failed.data,
        EventData::Wakeup {
            success: Some(false),
            target_cpu: Some(1),
            ..
        }
    ));
    let metrics = replay(&parsed, None);
    assert_eq!(metrics.wakeups, 1, "success=0 is not a wakeup");
    assert_eq!(metrics.wakeup_latency_us.samples, 1);
}

#[test]
fn preempt_rt_seven_flags() {
    let parsed = fixture("ftrace_rt.txt");
    assert_eq!(parsed.report.format(), "ftrace");
    assert_eq!(
        events(&parsed.report),
        vec![("sched_switch", 2), ("sched_wakeup", 1)]
    );
    assert_eq!(parsed.report.tasks[&311], "irq/45-eth0");
    let metrics = replay(&parsed, None);
    assert!((metrics.wakeup_latency_us.min - 4.0).abs() < 0.1);
    let cpu2 = &metrics.cpus[0];
    assert_eq!(
        (cpu2.cpu, cpu2.busy_ns, cpu2.window_ns),
        (2, 20_000, 24_000)
    );
}

#[test]
fn kernel_2_6_31_forms() {
    let parsed = fixture("ftrace_2631.txt");
    assert_eq!(parsed.report.format(), "ftrace");
    assert_eq!(
        events(&parsed.report),
        vec![("sched_switch", 2), ("sched_wakeup", 1)]
    );
    assert_eq!(parsed.report.tasks[&1283], "kondemand/1");
    assert!(matches!(
        parsed.events[0].data,
        EventData::Wakeup {
            pid: 1283,
            prio: Some(120),
            success: Some(true),
            target_cpu: Some(1),
            ..
        }
    ));
    assert!(matches!(
        parsed.events[1].data,
        EventData::Switch {
            prev_pid: 3253,
            prev_state: PrevState::Runnable,
            next_pid: 1283,
            ..
        }
    ));
}

#[test]
fn trace_cmd_report_short_forms() {
    let parsed = fixture("trace_cmd.txt");
    let report = &parsed.report;
    assert_eq!(report.format(), "trace-cmd");
    assert_eq!(report.formats.get("trace-cmd"), Some(&7));
    assert_eq!(
        events(report),
        vec![
            ("sched_stat_runtime", 1),
            ("sched_switch", 4),
            ("sched_wakeup", 2)
        ]
    );
    assert_eq!(skipped(report), vec![("header", 3)]);
    // `kworker/0:1:66` splits at the last colon.
    assert_eq!(report.tasks[&66], "kworker/0:1");
    assert!(matches!(
        parsed.events[2].data,
        EventData::Wakeup {
            pid: 1013,
            target_cpu: Some(3),
            success: None,
            ..
        }
    ));
    let metrics = replay(&parsed, None);
    assert_eq!(metrics.wakeup_latency_us.samples, 2);
    assert!((metrics.wakeup_latency_us.min - 5.0).abs() < 0.1);
    assert!((metrics.wakeup_latency_us.max - 17.0).abs() < 0.1);
}

#[test]
fn trace_cmd_raw_numeric_state_tabs_and_out_of_order() {
    let parsed = fixture("trace_cmd_raw.txt");
    let report = &parsed.report;
    assert_eq!(report.format(), "trace-cmd-raw");
    assert_eq!(report.formats.get("trace-cmd-raw"), Some(&5));
    assert_eq!(report.out_of_order, 2);
    assert_eq!(report.warnings.len(), 1);
    assert_eq!(report.warnings[0].line, Some(5));
    assert!(report.warnings[0].message.contains("sorted by time"));
    // File order first/last, but events sorted by time.
    assert_eq!(report.first_ts, Some(900.0003));
    assert_eq!(report.last_ts, Some(900.0005));
    let times: Vec<u64> = parsed.events.iter().map(|e| e.ts_ns).collect();
    let mut sorted = times.clone();
    sorted.sort();
    assert_eq!(times, sorted);
    let preempted = parsed.events.iter().find(|e| e.line == 4).unwrap();
    assert!(matches!(
        preempted.data,
        EventData::Switch {
            prev_state: PrevState::Preempted,
            ..
        }
    ));
    let metrics = replay(&parsed, None);
    assert!((metrics.wakeup_latency_us.min - 300.0).abs() < 0.5);
    let cpu1 = metrics.cpus.iter().find(|cpu| cpu.cpu == 1).unwrap();
    assert_eq!(cpu1.max_waiting, 2, "make waiting, then cc1 preempted");
}

#[test]
fn perf_script_with_and_without_prefix() {
    let parsed = fixture("perf_script.txt");
    let report = &parsed.report;
    assert_eq!(report.format(), "perf");
    assert_eq!(report.formats.get("perf"), Some(&5));
    assert_eq!(
        events(report),
        vec![
            ("sched_migrate_task", 1),
            ("sched_stat_runtime", 1),
            ("sched_switch", 2),
            ("sched_wakeup", 1)
        ]
    );
    assert!(report.other_events.is_empty());
    assert_eq!(
        report.cpus.iter().copied().collect::<Vec<_>>(),
        vec![2, 4, 5]
    );
    // Migrations classed on a machine the caller passes: 4 -> 5 are SMT siblings.
    let metrics = replay(&parsed, Some(&preset("teaching-small")));
    assert_eq!(metrics.migrations.counts.smt, 1);
    assert_eq!(metrics.topology_name, "teaching-small");
}

#[test]
fn ftrace_dump_on_the_console() {
    let parsed = fixture("ftrace_dump.txt");
    let report = &parsed.report;
    assert_eq!(report.format(), "ftrace_dump");
    assert!(report.wrappers.contains("dmesg"));
    assert_eq!(
        events(report),
        vec![("sched_switch", 2), ("sched_wakeup", 1)]
    );
    assert_eq!(skipped(report), vec![("lost_events", 1), ("kernel_log", 3)]);
    assert_eq!(report.first_ts, Some(12.345678));
    assert_eq!(report.cpus.iter().copied().collect::<Vec<_>>(), vec![1]);
    assert_eq!(report.tasks[&99], "kworker/1:2");
    let metrics = replay(&parsed, None);
    assert!((metrics.wakeup_latency_us.min - 12.0).abs() < 0.1);
}

#[test]
fn a_stack_trace_entry_of_the_idle_task_is_a_stack_trace_not_markup() {
    // The `stacktrace` option's entry has a head like any event's; `<idle>-0` starts
    // it with `<` and `<stack trace>` ends it with `>`, as an HTML tag would.
    let head = "          <idle>-0     [004] d..2  4000.100030: <stack trace>\n => __schedule\n => schedule_idle\n";
    let switch = "          <idle>-0     [004] d..2  4000.100040: sched_switch: prev_comm=swapper/4 prev_pid=0 prev_prio=120 prev_state=R ==> next_comm=a next_pid=7 next_prio=120\n";
    let plain = parse(&format!("{head}{switch}"));
    assert_eq!(skipped(&plain.report), vec![("stack_trace", 3)]);
    assert_eq!(
        plain.report.skipped[&SkipReason::StackTrace].first_lines,
        vec![1, 2, 3]
    );

    // Inside a systrace page's trace data too.
    let html = fixture_text("systrace.html").replace(
        "    Binder:612_3-1490  (  612)",
        "          <idle>-0     (-----) [004] d..2  4000.100030: <stack trace>\n => __schedule\n    Binder:612_3-1490  (  612)",
    );
    let report = parse(&html).report;
    assert_eq!(
        skipped(&report),
        vec![
            ("header", 4),
            ("stack_trace", 2),
            ("marker", 1),
            ("markup", 17)
        ]
    );
}

#[test]
fn systrace_html_and_legacy() {
    let parsed = fixture("systrace.html");
    let report = &parsed.report;
    assert_eq!(report.format(), "ftrace-tgid");
    assert!(report.wrappers.contains("systrace-html"));
    assert_eq!(
        events(report),
        vec![("sched_switch", 1), ("sched_wakeup", 1)]
    );
    assert_eq!(
        skipped(report),
        vec![("header", 4), ("marker", 1), ("markup", 17)]
    );
    assert_eq!(report.tasks[&1490], "Binder:612_3");

    let legacy = fixture("systrace_legacy.html");
    assert!(legacy.report.wrappers.contains("systrace-legacy"));
    assert_eq!(
        events(&legacy.report),
        vec![("sched_switch", 1), ("sched_wakeup", 1)]
    );
    assert_eq!(legacy.report.tasks[&3000], "app");
}

#[test]
fn mail_quoting_annotations_and_a_wrapped_line() {
    let parsed = fixture("mail_quoted.txt");
    let report = &parsed.report;
    assert!(report.wrappers.contains("mail-quote"));
    assert_eq!(report.format(), "ftrace");
    assert_eq!(
        events(report),
        vec![("sched_switch", 2), ("sched_wakeup", 2)]
    );
    assert_eq!(
        skipped(report),
        vec![
            ("blank", 1),
            ("annotation", 2),
            ("continuation", 1),
            ("unrecognised", 3)
        ]
    );
    // The wakeup wrapped over lines 9 and 10 is read whole.
    let wrapped = parsed.events.iter().find(|e| e.line == 9).unwrap();
    assert!(matches!(
        wrapped.data,
        EventData::Wakeup {
            pid: 2002,
            target_cpu: Some(7),
            ..
        }
    ));
    let metrics = replay(&parsed, None);
    assert_eq!(metrics.wakeup_latency_us.samples, 1);
    assert_eq!(metrics.unmatched_wakeups, 1);
}

#[test]
fn seed_004_wakeup_new_placement() {
    let parsed = fixture("seed004_wakeup_new.txt");
    let report = &parsed.report;
    assert_eq!(report.format(), "ftrace");
    assert!(report.wrappers.contains("mail-quote"));
    assert_eq!(events(report), vec![("sched_wakeup_new", 7)]);
    assert_eq!(report.first_ts, Some(230.784046));
    assert_eq!(report.last_ts, Some(230.784368));
    let targets: Vec<u32> = parsed
        .events
        .iter()
        .filter_map(|event| match event.data {
            EventData::Wakeup { target_cpu, .. } => target_cpu,
            _ => None,
        })
        .collect();
    assert_eq!(targets, vec![32, 48, 0, 112, 96, 80, 64]);
    assert_eq!(
        report.cpus.iter().copied().collect::<Vec<_>>(),
        vec![0, 16, 32, 48, 64, 80, 96, 112]
    );
    assert_eq!(report.tasks.len(), 8);
    let metrics = replay(&parsed, Some(&preset("zen3-2s64c")));
    assert_eq!(metrics.wakeups, 7);
    assert_eq!(metrics.unmatched_wakeups, 7, "no switch-ins in the excerpt");
    assert_eq!(metrics.wakeup_latency_us.samples, 0);
    // One new task waits on each target CPU.
    for cpu in [0, 32, 48, 64, 80, 96, 112] {
        let state = metrics.cpus.iter().find(|c| c.cpu == cpu).unwrap();
        assert_eq!(state.max_waiting, 1, "CPU {cpu}");
    }
}

#[test]
fn streaming_in_small_chunks_matches_the_whole_text() {
    for name in [
        "ftrace_current.txt",
        "mail_quoted.txt",
        "systrace.html",
        "trace_cmd_raw.txt",
    ] {
        let text = fixture_text(name);
        let mut parser = Parser::new();
        let mut rest = text.as_str();
        while !rest.is_empty() {
            let mut cut = rest.len().min(7);
            while !rest.is_char_boundary(cut) {
                cut += 1;
            }
            parser.feed(&rest[..cut]);
            rest = &rest[cut..];
        }
        assert_eq!(parser.finish(), parse(&text), "{name}");
    }
}

#[test]
fn bytes_split_anywhere_read_as_the_whole_text() {
    let mut text = fixture_text("ftrace_current.txt");
    // A comm with a character of three bytes and one of four, and a byte that is not UTF-8.
    text.push_str("  caf\u{e9}-\u{20ac}\u{1f600}-4242 [001] d..2.  100.900000: sched_wakeup: comm=x pid=1 prio=120 target_cpu=001\n");
    let mut bytes = text.clone().into_bytes();
    bytes.extend_from_slice(b"\xff\xfe garbage\nno newline at the end");
    let whole = parse(&String::from_utf8_lossy(&bytes));
    for size in [1, 2, 3, 5, 64, 4096] {
        let mut parser = Parser::new();
        for chunk in bytes.chunks(size) {
            parser.feed_bytes(chunk);
        }
        assert_eq!(parser.finish(), whole, "chunks of {size} bytes");
    }
}

#[test]
fn a_long_line_in_bytes_is_skipped_without_being_held() {
    let mut parser = Parser::new();
    let line = vec![b'x'; 3 * sched_core::replay::MAX_LINE_BYTES];
    for chunk in line.chunks(1000) {
        parser.feed_bytes(chunk);
    }
    parser.feed_bytes(b"\n");
    let parsed = parser.finish();
    assert_eq!(parsed.report.lines, 1);
    assert_eq!(parsed.report.skipped_total(), 1);
}

#[test]
fn bad_input_gives_a_report() {
    let empty = parse("");
    assert_eq!(empty.report.lines, 0);
    assert!(empty.events.is_empty());
    assert_eq!(empty.report.format(), "unknown");
    let metrics = replay(&empty, None);
    assert_eq!(metrics.switches, 0);
    assert_eq!(metrics.wakeup_latency_us.samples, 0);

    let bytes: Vec<u8> = (0..4096u32)
        .map(|i| (i.wrapping_mul(2_654_435_761) >> 13) as u8)
        .collect();
    let garbage = String::from_utf8_lossy(&bytes);
    let parsed = parse(&garbage);
    assert!(parsed.events.is_empty());
    assert_eq!(parsed.report.lines, parsed.report.skipped_total());
    replay(&parsed, None);

    let truncated = "          <idle>-0       [001] d..2.   100.000100: sched_switch: prev_comm=swapper/1 prev_pid=0 prev_prio=120 prev_st";
    let parsed = parse(truncated);
    assert_eq!(parsed.report.lines, 1);
    assert_eq!(parsed.report.skipped[&SkipReason::BadPayload].count, 1);
    let cut_header = parse("          <idle>-0       [00");
    assert_eq!(
        cut_header.report.skipped[&SkipReason::Unrecognised].count,
        1
    );

    let mut huge = "x: ".repeat(10 * 1024 * 1024 / 3);
    huge.push('\n');
    huge.push_str(&fixture_text("ftrace_rt.txt"));
    let parsed = parse(&huge);
    assert_eq!(parsed.report.skipped[&SkipReason::TooLong].count, 1);
    assert_eq!(
        parsed.report.skipped[&SkipReason::TooLong].first_lines,
        vec![1]
    );
    assert_eq!(
        parsed.report.events_total(),
        3,
        "the lines after it are read"
    );

    let beyond = parse("  a-1 [009999] d..2 1.000000: sched_wakeup: comm=a pid=1 prio=120 target_cpu=001\n  a-1 [000] d..2 1.000000: sched_migrate_task: comm=a pid=1 prio=120 orig_cpu=0 dest_cpu=4000000000\n");
    assert!(beyond.events.is_empty());
    assert_eq!(beyond.report.skipped_total(), 2);
}

#[test]
fn round_trip_through_schedlabs_own_ftrace_text() {
    let scenario = scenario(
        preset_spec("teaching-small"),
        vec![
            run_sleep("run sleep-x:y", 6, 300.0, 500.0),
            hogs("hog", 2, 0),
        ],
        60,
        7,
    );
    let mut sim = Simulator::new(&scenario).expect("a scenario");
    sim.run_to_end();
    let trace = &sim.trace;
    assert!(trace.len() > 100 && trace.len() as u64 == trace.total());
    let mut text = String::from("# tracer: nop\n#\n");
    for idx in 0..trace.len() {
        text.push_str(&trace.ftrace_line(idx, &sim));
        text.push('\n');
    }
    let parsed = parse(&text);
    assert_eq!(parsed.report.format(), "ftrace");

    let mut expected: BTreeMap<u32, Vec<u32>> = BTreeMap::new();
    let mut wakeups = 0u64;
    for idx in 0..trace.len() {
        let record = trace.get(idx);
        match record.kind {
            TraceKind::SchedSwitch => expected.entry(record.cpu).or_default().push(record.arg0),
            TraceKind::SchedWakeup => wakeups += 1,
            _ => {}
        }
    }
    assert_eq!(switch_ins(&parsed.events), expected);
    assert_eq!(
        parsed
            .report
            .events
            .get("sched_wakeup")
            .copied()
            .unwrap_or(0),
        wakeups
    );
    assert_eq!(
        parsed
            .report
            .events
            .get("sched_switch")
            .copied()
            .unwrap_or(0),
        expected.values().map(|pids| pids.len() as u64).sum::<u64>()
    );
    // Every comm came back.
    for (pid, comm) in &parsed.report.tasks {
        assert_eq!(
            comm,
            &sched_core::trace::TaskNames::comm(&sim, *pid),
            "pid {pid}"
        );
    }
    let metrics = replay(&parsed, Some(&sim.topology));
    assert_eq!(
        metrics.inconsistencies, 0,
        "{:?}",
        metrics.inconsistent_lines
    );
    assert!(metrics.wakeup_latency_us.samples > 0);
    let summary = sim.summary("round-trip");
    assert_eq!(metrics.migrations.source, MigrationSource::MigrateEvents);
    let util = metrics.utilization.unwrap();
    assert!(util > 0.0 && util <= 1.0);
    assert!(summary.context_switches > 0);
}

fn preset_spec(name: &str) -> TopologySpec {
    common::preset(name)
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    #[test]
    fn arbitrary_text_never_panics(text in any::<String>()) {
        let parsed = parse(&text);
        prop_assert_eq!(parsed.report.lines, parsed.report.skipped_total() + parsed.report.events_total());
        replay(&parsed, None);
    }

    #[test]
    fn mangled_trace_lines_never_panic(
        cut in 0usize..200,
        noise in "[ -~]{0,20}",
        at in 0usize..200,
    ) {
        let text = fixture_text("ftrace_current.txt");
        let line = text.lines().nth(15).unwrap_or("");
        let mut chars: Vec<char> = line.chars().collect();
        chars.truncate(cut.min(chars.len()).max(1));
        let mut mangled: String = chars.into_iter().collect();
        let at = at.min(mangled.len());
        if mangled.is_char_boundary(at) {
            mangled.insert_str(at, &noise);
        }
        let parsed = parse(&format!("{mangled}\n{line}\n{mangled}"));
        replay(&parsed, None);
    }
}

#[test]
fn a_long_line_start_after_a_newline_is_not_held() {
    // One chunk with a newline, then more than two lines' worth of bytes without one:
    // the start of that line is skipped as too long, not carried whole.
    let mut parser = Parser::new();
    let mut chunk = b"a line\n".to_vec();
    chunk.extend(std::iter::repeat_n(b'x', 10 * MAX_LINE_BYTES));
    parser.feed_bytes(&chunk);
    assert!(
        parser.buffered_bytes() <= MAX_LINE_BYTES,
        "{} bytes held",
        parser.buffered_bytes()
    );
    parser.feed_bytes(b"xx\nlast\n");
    let parsed = parser.finish();
    assert_eq!(parsed.report.lines, 3);
    assert_eq!(
        parsed.report.skipped[&SkipReason::TooLong].first_lines,
        vec![2]
    );
}

/// Bytes that read as a trace in places: whole lines of a fixture, random bytes,
/// newlines, and characters of two to four bytes (which chunking may cut).
fn trace_like_bytes() -> impl Strategy<Value = Vec<u8>> {
    let lines: Vec<Vec<u8>> = fixture_text("ftrace_current.txt")
        .lines()
        .map(|line| format!("{line}\n").into_bytes())
        .collect();
    let piece = prop_oneof![
        3 => proptest::sample::select(lines),
        3 => proptest::collection::vec(any::<u8>(), 0..48),
        1 => Just(b"\n".to_vec()),
        1 => Just("\u{e9}\u{20ac}\u{1f600}".as_bytes().to_vec()),
        1 => Just(b"\r\n> ".to_vec()),
    ];
    proptest::collection::vec(piece, 0..40).prop_map(|pieces| pieces.concat())
}

/// Feeds `bytes` in chunks of the given sizes (repeated), checking after each how
/// much the parser holds; returns the result and the most it held.
fn feed_in_chunks(bytes: &[u8], sizes: &[usize]) -> (ParsedTrace, usize) {
    let mut parser = Parser::new();
    let mut most = 0;
    let mut rest = bytes;
    for size in sizes.iter().cycle() {
        if rest.is_empty() {
            break;
        }
        let (chunk, tail) = rest.split_at((*size).clamp(1, rest.len()));
        parser.feed_bytes(chunk);
        most = most.max(parser.buffered_bytes());
        rest = tail;
    }
    (parser.finish(), most)
}

/// Runs of one byte (an ASCII letter, a byte that is never UTF-8, the first byte of a
/// three-byte character), each up to four lines' worth long, some ending in a newline.
fn long_runs(newlines: bool) -> impl Strategy<Value = Vec<u8>> {
    let run = (
        0..4 * MAX_LINE_BYTES,
        prop_oneof![Just(b'x'), Just(0xff_u8), Just(0xe2_u8)],
        any::<bool>(),
    );
    proptest::collection::vec(run, 1..5).prop_map(move |runs| {
        let mut bytes = Vec::new();
        for (len, byte, newline) in runs {
            bytes.extend(std::iter::repeat_n(byte, len));
            if newlines && newline {
                bytes.push(b'\n');
            }
        }
        bytes
    })
}

fn chunk_sizes() -> impl Strategy<Value = Vec<usize>> {
    proptest::collection::vec(
        prop_oneof![1usize..64, MAX_LINE_BYTES..8 * MAX_LINE_BYTES],
        1..6,
    )
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    #[test]
    fn arbitrary_bytes_never_panic(
        bytes in trace_like_bytes(),
        sizes in proptest::collection::vec(1usize..300, 1..8),
    ) {
        let whole = parse(&String::from_utf8_lossy(&bytes));
        let (parsed, _) = feed_in_chunks(&bytes, &sizes);
        prop_assert_eq!(&parsed, &whole);
        let report = &parsed.report;
        prop_assert_eq!(report.lines, report.skipped_total() + report.events_total());
        replay(&parsed, None);
        derive_workload(&parsed);
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(32))]

    /// Without a newline nothing is read, and the parser holds at most two lines'
    /// worth of the bytes (past that the line is skipped as too long unread).
    #[test]
    fn bytes_without_newlines_are_not_held(bytes in long_runs(false), sizes in chunk_sizes()) {
        let (parsed, most) = feed_in_chunks(&bytes, &sizes);
        prop_assert!(most <= 2 * MAX_LINE_BYTES, "{} bytes held", most);
        prop_assert_eq!(parsed.report.lines, u64::from(!bytes.is_empty()));
    }

    /// With long lines: at most the line held back one line (itself at most
    /// `MAX_LINE_BYTES`) and two lines' worth of bytes not yet read.
    #[test]
    fn long_lines_are_not_held(bytes in long_runs(true), sizes in chunk_sizes()) {
        let (parsed, most) = feed_in_chunks(&bytes, &sizes);
        prop_assert!(most <= 3 * MAX_LINE_BYTES, "{} bytes held", most);
        prop_assert_eq!(parsed, parse(&String::from_utf8_lossy(&bytes)));
    }
}

#[test]
fn frequency_idle_states_and_charged_runtime() {
    let parsed = fixture("power_events.txt");
    let report = &parsed.report;
    assert_eq!(
        events(report),
        vec![
            ("cpu_frequency", 3),
            ("cpu_idle", 6),
            ("sched_stat_runtime", 1),
            ("sched_switch", 2)
        ]
    );
    assert_eq!(report.formats.get("perf"), Some(&1));
    assert!(report.other_events.is_empty());
    assert!(parsed.events.iter().any(|event| matches!(
        event.data,
        EventData::CpuIdle {
            state: None,
            cpu_id: 1
        }
    )));
    let metrics = replay(&parsed, None);
    // The power events leave the CPUs' windows to the scheduler's: CPU 0 from its
    // first switch, and CPU 1 (no scheduler event) not at all.
    assert_eq!(
        metrics
            .cpus
            .iter()
            .map(|cpu| (cpu.cpu, cpu.window_ns))
            .collect::<Vec<_>>(),
        vec![(0, 490_000)]
    );
    let [cpu0, cpu1] = &metrics.power[..] else {
        panic!("two CPUs: {:?}", metrics.power)
    };
    // 2.4 GHz for 300 us, then 1.2 GHz for 100 us.
    let frequency = cpu0.frequency.as_ref().unwrap();
    assert_eq!(
        (frequency.changes, frequency.min_mhz, frequency.max_mhz),
        (2, 1200.0, 2400.0)
    );
    assert!((frequency.mean_mhz - 2100.0).abs() < 1e-6, "{frequency:?}");
    assert_eq!(cpu1.frequency.as_ref().unwrap().mean_mhz, 2400.0);
    // CPU 0: state 1 for 100 us, active 210 us, state 1 again to the end (290 us).
    let idle = cpu0.idle.as_ref().unwrap();
    assert_eq!((idle.entries, idle.active_ns), (2, 210_000));
    assert_eq!(idle.state_ns, vec![0, 390_000]);
    // CPU 1: state 2 for 400 us, active 200 us, then state 1 at the last line.
    let idle = cpu1.idle.as_ref().unwrap();
    assert_eq!((idle.entries, idle.active_ns), (2, 200_000));
    assert_eq!(idle.state_ns, vec![0, 0, 400_000]);
    assert_eq!(metrics.stat_runtime.total_ns, 190_000);
    assert_eq!(metrics.stat_runtime.by_pid.get(&500), Some(&190_000));
}

#[test]
fn a_log_without_switch_lines_has_no_utilisation() {
    // Wakeups only: each line names the task current at its instant, nothing more.
    let log = "\
 a-11 [001] d..2.   100.000600: sched_wakeup: comm=b pid=12 prio=120 target_cpu=002
 b-12 [002] d..2.   100.002100: sched_wakeup: comm=a pid=11 prio=120 target_cpu=001
";
    let metrics = replay(&parse(log), None);
    assert!(metrics.wakeups > 0);
    assert_eq!(metrics.utilization, None);
    assert!(metrics.cpus.iter().all(|cpu| cpu.utilization.is_none()));
    // One switch line anywhere and the CPUs' lines can be read as time: a CPU whose
    // only lines name a task ran it throughout (a switch away would have been logged).
    let with_switch = format!(
        "{log} <idle>-0 [002] d..2.   100.003000: sched_switch: prev_comm=swapper/2 prev_pid=0 prev_prio=120 prev_state=R ==> next_comm=b next_pid=12 next_prio=120\n"
    );
    let metrics = replay(&parse(&with_switch), None);
    assert!(metrics.utilization.is_some());
    let cpu1 = metrics.cpus.iter().find(|cpu| cpu.cpu == 1).unwrap();
    assert_eq!(cpu1.utilization, Some(1.0));
}

#[test]
fn a_header_gives_the_machine_cpu_count() {
    // The trace file's `#P:4`, and trace-cmd report's `cpus=4`.
    assert_eq!(fixture("ftrace_current.txt").report.machine_cpus, Some(4));
    assert_eq!(fixture("trace_cmd.txt").report.machine_cpus, Some(4));
    // perf script has no such header; nor has a pasted excerpt, nor a nonsense count.
    assert_eq!(fixture("perf_script.txt").report.machine_cpus, None);
    let excerpt =
        " a-11 [001] d..2. 100.000600: sched_wakeup: comm=b pid=12 prio=120 target_cpu=002\n";
    assert_eq!(parse(excerpt).report.machine_cpus, None);
    let bad = format!("# entries-in-buffer/entries-written: 1/1   #P:0\ncpus=999999\n{excerpt}");
    assert_eq!(parse(&bad).report.machine_cpus, None);
    // The derived workload carries it to the re-simulation's machine.
    assert_eq!(
        derive_workload(&fixture("ftrace_current.txt")).machine_cpus,
        Some(4)
    );
}

#[test]
fn a_clock_going_back_on_one_cpu_is_told_from_the_order_across_cpus() {
    let log = "\
          <idle>-0       [002] d..2.   100.000100: sched_switch: prev_comm=swapper/2 prev_pid=0 prev_prio=120 prev_state=R ==> next_comm=a next_pid=10 next_prio=120
               a-10      [002] d..2.   100.000200: sched_switch: prev_comm=a prev_pid=10 prev_prio=120 prev_state=S ==> next_comm=swapper/2 next_pid=0 next_prio=120
          <idle>-0       [001] d..2.   100.000150: sched_switch: prev_comm=swapper/1 prev_pid=0 prev_prio=120 prev_state=R ==> next_comm=b next_pid=11 next_prio=120
          <idle>-0       [002] d..2.     5.000100: sched_switch: prev_comm=swapper/2 prev_pid=0 prev_prio=120 prev_state=R ==> next_comm=a next_pid=10 next_prio=120
";
    let report = parse(log).report;
    assert_eq!(report.out_of_order, 2);
    assert_eq!(report.warnings.len(), 1, "{:?}", report.warnings);
    let warning = &report.warnings[0];
    // The first event behind its own CPU's last one, not the first out of order overall.
    assert_eq!(warning.line, Some(4));
    assert!(
        warning.message.contains(
            "1 of them on their own CPU (the first: CPU 2, earlier than line 2, at 100.000200)"
        ) && warning.message.contains("two logs pasted together"),
        "{}",
        warning.message
    );
    // One line whose time is far ahead: every later line of its CPU goes back, and
    // the warning names that line, the one to look at.
    let ahead = log
        .lines()
        .take(3)
        .collect::<Vec<_>>()
        .join("\n")
        .replace("100.000200", "99999.000000");
    let tail = "\n               a-10      [002] d..2.   100.000300: sched_switch: prev_comm=a prev_pid=10 prev_prio=120 prev_state=S ==> next_comm=swapper/2 next_pid=0 next_prio=120\n";
    let report = parse(&format!("{ahead}{tail}")).report;
    assert_eq!(report.warnings[0].line, Some(4));
    assert!(
        report.warnings[0]
            .message
            .contains("earlier than line 2, at 99999.000000")
            && report.warnings[0]
                .message
                .contains("a line whose time is wrong"),
        "{}",
        report.warnings[0].message
    );

    // Across CPUs alone: the usual per-CPU buffers' order, said as such.
    let across = parse(&log.lines().take(3).collect::<Vec<_>>().join("\n")).report;
    assert_eq!(across.out_of_order, 1);
    assert!(
        across.warnings[0]
            .message
            .contains("out of order across CPUs"),
        "{}",
        across.warnings[0].message
    );
}

#[test]
fn a_perf_header_tid_from_a_pid_namespace_is_its_task_not_another() {
    // gnome-shell is pid 1234 in the payloads and tid 17 in perf's headers (inside a
    // PID namespace, FTRACE.md): its own switch out (header 17, prev_pid=1234) ties them.
    let parsed = fixture("perf_namespace_tid.txt");
    let tasks: Vec<u32> = parsed.report.tasks.keys().copied().collect();
    assert!(!tasks.contains(&17), "{tasks:?}");
    assert_eq!(
        parsed.report.tasks.get(&1234).map(String::as_str),
        Some("gnome-shell")
    );
    // Every event whose header says 17 is 1234's.
    assert!(parsed.events.iter().all(|event| event.ctx_pid != 17));
    let first = &parsed.events[0];
    assert_eq!((first.line, first.ctx_pid), (1, 1234));
    // So the replay sees gnome-shell running where it switches out: no inconsistency.
    let metrics = replay(&parsed, None);
    assert_eq!(
        metrics.inconsistencies, 0,
        "{:?}",
        metrics.inconsistent_lines
    );
}
