//! `schedlab replay FILE|-`: read a real scheduler trace (ftrace text in any of the
//! layouts of docs/replay.md, optionally gzip-compressed) and print what it says.

use sched_core::replay::{parse, replay as replay_trace, ParseReport, ReplayMetrics};
use sched_core::topology::{Topology, TopologySpec};
use serde_json::{json, Map, Value};
use std::io::Read;

#[derive(clap::Args)]
pub struct ReplayArgs {
    /// The trace file (`.gz` is decompressed), or `-` for standard input.
    pub file: String,
    /// Print the parse report and the metrics as one JSON object.
    #[arg(long)]
    pub json: bool,
    /// Class migrations by distance on this machine preset (`schedlab list`);
    /// default a flat machine with the CPUs seen (every migration is `llc`).
    #[arg(long, value_name = "PRESET")]
    pub topology: Option<String>,
}

const GZIP_MAGIC: [u8; 2] = [0x1f, 0x8b];

fn read_input(file: &str) -> Result<Vec<u8>, String> {
    let mut bytes = Vec::new();
    if file == "-" {
        std::io::stdin()
            .read_to_end(&mut bytes)
            .map_err(|err| format!("error: cannot read standard input: {err}"))?;
    } else {
        bytes = std::fs::read(file).map_err(|err| format!("error: cannot read {file}: {err}"))?;
    }
    if bytes.starts_with(&GZIP_MAGIC) || (file.ends_with(".gz") && !bytes.is_empty()) {
        let mut text = Vec::new();
        flate2::read::MultiGzDecoder::new(bytes.as_slice())
            .read_to_end(&mut text)
            .map_err(|err| format!("error: cannot decompress {file} (gzip): {err}"))?;
        bytes = text;
    }
    Ok(bytes)
}

fn topology(preset: &str) -> Result<Topology, String> {
    let spec = TopologySpec {
        preset: Some(preset.to_string()),
        ..Default::default()
    };
    let shape = spec.resolve().map_err(|errors| {
        let messages: Vec<String> = errors.into_iter().map(|error| error.message).collect();
        format!("error: --topology: {}", messages.join("; "))
    })?;
    Ok(Topology::build(shape))
}

pub fn replay(args: &ReplayArgs) -> Result<(), String> {
    let machine = args.topology.as_deref().map(topology).transpose()?;
    let bytes = read_input(&args.file)?;
    let text = String::from_utf8_lossy(&bytes);
    let parsed = parse(&text);
    let metrics = replay_trace(&parsed, machine.as_ref());
    if args.json {
        let value = to_json(&parsed.report, &metrics);
        println!(
            "{}",
            serde_json::to_string_pretty(&value).expect("the report serialises")
        );
    } else {
        print!("{}", to_text(&args.file, &parsed.report, &metrics));
    }
    Ok(())
}

fn seconds(value: Option<f64>) -> Value {
    value.map(Value::from).unwrap_or(Value::Null)
}

/// The report as JSON; the keys are documented in docs/replay.md.
pub fn to_json(report: &ParseReport, metrics: &ReplayMetrics) -> Value {
    let skipped: Map<String, Value> = report
        .skipped
        .iter()
        .map(|(reason, count)| {
            (
                reason.name().to_string(),
                json!({"count": count.count, "first_lines": count.first_lines}),
            )
        })
        .collect();
    let warnings: Vec<Value> = report
        .warnings
        .iter()
        .map(|warning| json!({"line": warning.line, "message": warning.message}))
        .collect();
    let tasks: Map<String, Value> = report
        .tasks
        .iter()
        .map(|(pid, comm)| (pid.to_string(), Value::from(comm.as_str())))
        .collect();
    let cpus: Vec<u32> = report.cpus.iter().copied().collect();
    let per_cpu: Vec<Value> = metrics
        .cpus
        .iter()
        .map(|cpu| {
            json!({
                "cpu": cpu.cpu,
                "window_ns": cpu.window_ns,
                "busy_ns": cpu.busy_ns,
                "utilization": cpu.utilization,
                "switches": cpu.switches,
                "max_waiting": cpu.max_waiting,
                "mean_waiting": cpu.mean_waiting,
            })
        })
        .collect();
    let migrations = &metrics.migrations;
    json!({
        "format": report.format(),
        "formats": report.formats,
        "wrappers": report.wrappers,
        "lines": report.lines,
        "events": report.events,
        "other_events": report.other_events,
        "skipped": skipped,
        "warnings": warnings,
        "warnings_dropped": report.warnings_dropped,
        "lost_events": report.lost_events,
        "out_of_order": report.out_of_order,
        "cpus": cpus,
        "tasks": tasks,
        "first_ts": seconds(report.first_ts),
        "last_ts": seconds(report.last_ts),
        "span_ns": metrics.span_ns,
        "wakeups": metrics.wakeups,
        "wakeups_of_runnable": metrics.wakeups_of_runnable,
        "unmatched_wakeups": metrics.unmatched_wakeups,
        "wakeup_latency_us": metrics.wakeup_latency_us,
        "switches": metrics.switches,
        "migrations": {
            "smt": migrations.counts.smt,
            "llc": migrations.counts.llc,
            "cross_llc": migrations.counts.cross_llc,
            "cross_numa": migrations.counts.cross_numa,
            "unclassified": migrations.unclassified,
            "total": migrations.total(),
            "source": migrations.source.name(),
            "topology": metrics.topology_name,
        },
        "utilization": metrics.utilization,
        "per_cpu": per_cpu,
        "inconsistencies": metrics.inconsistencies,
        "inconsistent_lines": metrics.inconsistent_lines,
    })
}

/// `0-3,8` from sorted CPU numbers.
fn cpu_list(cpus: &[u32]) -> String {
    sched_core::cpuset::format_cpu_list(cpus)
}

fn lines_list(lines: &[u64]) -> String {
    lines
        .iter()
        .map(u64::to_string)
        .collect::<Vec<_>>()
        .join(", ")
}

/// The report as text.
pub fn to_text(file: &str, report: &ParseReport, metrics: &ReplayMetrics) -> String {
    use std::fmt::Write as _;
    let mut out = String::new();
    let shown = if file == "-" { "standard input" } else { file };
    let formats: Vec<String> = report
        .formats
        .iter()
        .map(|(name, count)| format!("{name} ({count} lines)"))
        .collect();
    let _ = writeln!(
        out,
        "{shown}: {} lines, format {}{}{}",
        report.lines,
        report.format(),
        if formats.len() > 1 {
            format!(" [{}]", formats.join(", "))
        } else {
            String::new()
        },
        if report.wrappers.is_empty() {
            String::new()
        } else {
            format!(
                ", found in {}",
                report
                    .wrappers
                    .iter()
                    .cloned()
                    .collect::<Vec<_>>()
                    .join(", ")
            )
        }
    );
    let events: Vec<String> = report
        .events
        .iter()
        .map(|(name, count)| format!("{name} {count}"))
        .collect();
    let _ = writeln!(
        out,
        "events read: {}",
        if events.is_empty() {
            "none".to_string()
        } else {
            events.join(", ")
        }
    );
    if !report.other_events.is_empty() {
        let others: Vec<String> = report
            .other_events
            .iter()
            .map(|(name, count)| format!("{name} {count}"))
            .collect();
        let _ = writeln!(out, "other events (not used): {}", others.join(", "));
    }
    if report.skipped.is_empty() {
        let _ = writeln!(out, "lines skipped: none");
    } else {
        let _ = writeln!(out, "lines skipped: {}", report.skipped_total());
        for (reason, count) in &report.skipped {
            let _ = writeln!(
                out,
                "  {:<16} {:>8}  ({} {}{})",
                reason.name(),
                count.count,
                if count.count == 1 { "line" } else { "lines" },
                lines_list(&count.first_lines),
                if count.count > count.first_lines.len() as u64 {
                    ", ..."
                } else {
                    ""
                }
            );
        }
    }
    for warning in &report.warnings {
        match warning.line {
            Some(line) => {
                let _ = writeln!(out, "warning: line {line}: {}", warning.message);
            }
            None => {
                let _ = writeln!(out, "warning: {}", warning.message);
            }
        }
    }
    if report.warnings_dropped > 0 {
        let _ = writeln!(out, "warning: {} more warnings", report.warnings_dropped);
    }
    let cpus: Vec<u32> = report.cpus.iter().copied().collect();
    let _ = writeln!(
        out,
        "CPUs seen: {} ({}), tasks seen: {}",
        cpus.len(),
        cpu_list(&cpus),
        report.tasks.len()
    );
    match (report.first_ts, report.last_ts) {
        (Some(first), Some(last)) => {
            let _ = writeln!(
                out,
                "time: {first:.6} s to {last:.6} s (first and last event lines), span {:.3} ms",
                metrics.span_ns as f64 / 1e6
            );
        }
        _ => {
            let _ = writeln!(out, "time: no event lines");
        }
    }
    let _ = writeln!(out);
    let latency = &metrics.wakeup_latency_us;
    let _ = writeln!(
        out,
        "Wakeup latency (usec, wakeup to switch-in), {} samples",
        latency.samples
    );
    for ((label, _), value) in sched_core::metrics::PERCENTILES
        .iter()
        .zip(latency.ordered().iter())
    {
        let _ = writeln!(out, "\t{label}: {}", value.round() as u64);
    }
    let _ = writeln!(
        out,
        "\tmin={}, max={}",
        latency.min.round() as u64,
        latency.max.round() as u64
    );
    let _ = writeln!(
        out,
        "wakeups: {} (of tasks already running or runnable: {}, never switched in: {}), switches: {}",
        metrics.wakeups, metrics.wakeups_of_runnable, metrics.unmatched_wakeups, metrics.switches
    );
    let migrations = &metrics.migrations;
    let _ = writeln!(
        out,
        "migrations ({}, on {}): smt {}, llc {}, cross-llc {}, cross-numa {}{}",
        migrations.source.name(),
        metrics.topology_name,
        migrations.counts.smt,
        migrations.counts.llc,
        migrations.counts.cross_llc,
        migrations.counts.cross_numa,
        if migrations.unclassified > 0 {
            format!(
                ", unclassified {} (CPUs beyond the machine)",
                migrations.unclassified
            )
        } else {
            String::new()
        }
    );
    let _ = writeln!(out, "utilization: {:.1} %", metrics.utilization * 100.0);
    if !metrics.cpus.is_empty() {
        let _ = writeln!(
            out,
            "  {:>5} {:>8} {:>12} {:>9} {:>12} {:>12}",
            "CPU", "util %", "window ms", "switches", "max waiting", "mean waiting"
        );
        for cpu in &metrics.cpus {
            let _ = writeln!(
                out,
                "  {:>5} {:>8.1} {:>12.3} {:>9} {:>12} {:>12.2}",
                cpu.cpu,
                cpu.utilization * 100.0,
                cpu.window_ns as f64 / 1e6,
                cpu.switches,
                cpu.max_waiting,
                cpu.mean_waiting
            );
        }
    }
    if metrics.inconsistencies > 0 {
        let _ = writeln!(
            out,
            "warning: {} switches named a previous task the replay did not have running (line {}): lost events or a trace cut mid-way",
            metrics.inconsistencies,
            lines_list(&metrics.inconsistent_lines)
        );
    }
    out
}
