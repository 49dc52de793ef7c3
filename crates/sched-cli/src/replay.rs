//! `schedlab replay FILE|-`: read a real scheduler trace (ftrace text in any of the
//! layouts of docs/replay.md, optionally gzip-compressed) and print what it says.

use sched_core::replay::{
    derive_workload, replay as replay_trace, ParseReport, Parser, ReplayMetrics,
};
use sched_core::topology::Topology;
use serde_json::{json, Value};
use std::io::{IsTerminal, Read};

#[derive(clap::Args)]
pub struct ReplayArgs {
    /// The trace file (`.gz` is decompressed), or `-` for standard input.
    pub file: String,
    /// Print the parse report and the metrics as one JSON object.
    #[arg(long)]
    pub json: bool,
    /// Class migrations by distance on this machine preset (`schedlab list`);
    /// default a flat machine with the CPUs seen (every migration is `llc`); the
    /// header's CPU count (`#P:N`, `cpus=N`) sizes its re-simulation.
    #[arg(long, value_name = "PRESET")]
    pub topology: Option<String>,
    /// What if: turn the log into a workload (each task's runs, sleeps and the
    /// wakeups between tasks) and re-simulate it on the `--topology` machine (a flat
    /// one by default), then print the log's figures and the simulation's side by side.
    #[arg(long)]
    pub resimulate: bool,
    /// With --resimulate: override a field of the derived scenario, as for `run`
    /// (`--set kernel=4.6`, `--set policy.shared_runq.mode=all`). Repeatable.
    #[arg(long = "set", value_name = "PATH=VALUE", requires = "resimulate")]
    pub set: Vec<String>,
    /// With --resimulate: the simulation's random seed (default 1).
    #[arg(long, requires = "resimulate")]
    pub seed: Option<u64>,
    /// With --resimulate: also write the derived scenario to OUT.json, to run, edit or
    /// open in the app.
    #[arg(long, value_name = "OUT.json", requires = "resimulate")]
    pub save_scenario: Option<std::path::PathBuf>,
}

const GZIP_MAGIC: [u8; 2] = [0x1f, 0x8b];
/// How much of the input is read at a time: the text is never held whole.
const CHUNK_BYTES: usize = 1 << 20;
/// Inputs at least this large show a progress bar on a terminal.
const PROGRESS_BYTES: u64 = 64 << 20;

/// Counts the bytes read from the underlying file, for the progress bar.
struct Counted<R> {
    inner: R,
    bar: Option<indicatif::ProgressBar>,
}

impl<R: Read> Read for Counted<R> {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        let read = self.inner.read(buf)?;
        if let Some(bar) = &self.bar {
            bar.inc(read as u64);
        }
        Ok(read)
    }
}

/// Parses the input as it is read, in chunks (gzip decompressed on the way), so
/// a large log is never held as text in memory; a terminal sees a progress bar
/// for large files.
fn parse_input(file: &str) -> Result<sched_core::replay::ParsedTrace, String> {
    let (source, size): (Box<dyn Read>, Option<u64>) = if file == "-" {
        (Box::new(std::io::stdin()), None)
    } else {
        let handle =
            std::fs::File::open(file).map_err(|err| format!("error: cannot read {file}: {err}"))?;
        let size = handle.metadata().ok().map(|meta| meta.len());
        (Box::new(handle), size)
    };
    let bar = size
        .filter(|&bytes| bytes >= PROGRESS_BYTES && std::io::stderr().is_terminal())
        .map(|bytes| {
            let bar = indicatif::ProgressBar::new(bytes);
            bar.set_style(
                indicatif::ProgressStyle::with_template(
                    "parsing {bar:40} {bytes}/{total_bytes} {eta}",
                )
                .expect("a valid template"),
            );
            bar
        });
    let mut reader = std::io::BufReader::with_capacity(
        CHUNK_BYTES,
        Counted {
            inner: source,
            bar: bar.clone(),
        },
    );
    let head = std::io::BufRead::fill_buf(&mut reader)
        .map_err(|err| format!("error: cannot read {file}: {err}"))?;
    let gzip = head.starts_with(&GZIP_MAGIC) || (file.ends_with(".gz") && !head.is_empty());
    let mut input: Box<dyn Read> = if gzip {
        Box::new(flate2::read::MultiGzDecoder::new(reader))
    } else {
        Box::new(reader)
    };
    let mut parser = Parser::new();
    let mut buffer = vec![0u8; CHUNK_BYTES];
    loop {
        let read = input.read(&mut buffer).map_err(|err| {
            if gzip {
                format!("error: cannot decompress {file} (gzip): {err}")
            } else {
                format!("error: cannot read {file}: {err}")
            }
        })?;
        if read == 0 {
            break;
        }
        parser.feed_bytes(&buffer[..read]);
    }
    if let Some(bar) = bar {
        bar.finish_and_clear();
    }
    Ok(parser.finish())
}

fn topology(preset: &str) -> Result<Topology, String> {
    sched_scenario::replay::preset_topology(preset)
        .map_err(|message| format!("error: --topology: {message}"))
}

pub fn replay(args: &ReplayArgs) -> Result<(), String> {
    let machine = args.topology.as_deref().map(topology).transpose()?;
    let parsed = parse_input(&args.file)?;
    let source = if args.file == "-" {
        "standard input"
    } else {
        args.file.as_str()
    };
    if let Some(why) = parsed.report.nothing_to_replay(source) {
        return Err(format!("error: {why}"));
    }
    let metrics = replay_trace(&parsed, machine.as_ref());
    let what_if = if args.resimulate {
        Some(resimulate(args, &parsed, &metrics)?)
    } else {
        None
    };
    if args.json {
        let mut value = sched_scenario::replay::report_json(&parsed.report, &metrics);
        if let (Some(what_if), Value::Object(map)) = (&what_if, &mut value) {
            map.insert("resimulation".into(), what_if.to_json());
        }
        println!(
            "{}",
            serde_json::to_string_pretty(&value).expect("the report serialises")
        );
    } else {
        print!("{}", to_text(&args.file, &parsed.report, &metrics));
        if let Some(what_if) = &what_if {
            print!("{}", what_if.to_text(&metrics));
        }
    }
    Ok(())
}

/// A log re-simulated: the derived workload's size and the simulation's summary.
struct WhatIf {
    tasks: usize,
    task_wakeups: u64,
    timer_wakeups: u64,
    set: Vec<String>,
    /// The simulated machine's CPUs (its utilisation is over them all).
    cpus: usize,
    summary: sched_core::metrics::RunSummary,
}

/// Derives the log's workload, builds the scenario (the `--topology` machine or a
/// flat one with the CPUs seen, the model's own background threads off since the
/// log's kthreads are replayed), applies `--set` and `--seed`, and runs it.
fn resimulate(
    args: &ReplayArgs,
    parsed: &sched_core::replay::ParsedTrace,
    metrics: &ReplayMetrics,
) -> Result<WhatIf, String> {
    let derived = derive_workload(parsed);
    if derived.tasks.tasks.is_empty() {
        return Err(format!(
            "error: {}: --resimulate: the log shows no task running, so there is nothing to re-simulate",
            args.file
        ));
    }
    let scenario = sched_scenario::replay::what_if_scenario(
        &derived,
        metrics,
        args.topology.as_deref(),
        args.seed.unwrap_or(1),
        &args.file,
    );
    let mut value = serde_json::to_value(&scenario).expect("a scenario serialises");
    let schema = sched_scenario::schema_value();
    for assignment in &args.set {
        sched_scenario::apply_override(&mut value, &schema, assignment)
            .map_err(|message| format!("error: --set {assignment}: {message}"))?;
    }
    let scenario = sched_scenario::scenario_from_value(&value)
        .map_err(|errors| crate::report("error: --resimulate: the derived scenario", &errors))?;
    if let Some(path) = &args.save_scenario {
        let text = serde_json::to_string_pretty(&value).expect("a scenario serialises");
        std::fs::write(path, text + "\n")
            .map_err(|err| format!("error: cannot write {}: {err}", path.display()))?;
    }
    let mut sim = sched_core::Simulator::new(&scenario)
        .map_err(|errors| crate::report("error: --resimulate: the derived scenario", &errors))?;
    sim.run_to_end();
    Ok(WhatIf {
        tasks: derived.tasks.tasks.len(),
        task_wakeups: derived.task_wakeups,
        timer_wakeups: derived.timer_wakeups,
        set: args.set.clone(),
        cpus: sim.topology.n_cpus(),
        summary: sim.summary("what-if"),
    })
}

impl WhatIf {
    fn to_json(&self) -> Value {
        json!({
            "tasks": self.tasks,
            "task_wakeups": self.task_wakeups,
            "timer_wakeups": self.timer_wakeups,
            "set": self.set,
            "summary": serde_json::to_value(&self.summary).expect("a summary serialises"),
        })
    }

    /// The log's figures and the simulation's, side by side.
    fn to_text(&self, metrics: &ReplayMetrics) -> String {
        use std::fmt::Write;
        let summary = &self.summary;
        let mut out = String::new();
        let _ = writeln!(out);
        let _ = writeln!(
            out,
            "What if: {} tasks ({} wakeups between tasks, {} from idle) re-simulated on {}, kernel {}{}",
            self.tasks,
            self.task_wakeups,
            self.timer_wakeups,
            metrics.topology_name,
            summary.kernel,
            if self.set.is_empty() {
                String::new()
            } else {
                format!(", with {}", self.set.join(" "))
            }
        );
        let log = &metrics.wakeup_latency_us;
        let sim = &summary.wakeup_latency_us;
        let _ = writeln!(out, "{:<24} {:>14} {:>14}", "", "log", "simulation");
        // How many wakeups each percentile stands on: a p99 of five samples is their maximum.
        let _ = writeln!(
            out,
            "{:<24} {:>14} {:>14}",
            "wakeup latency samples", log.samples, sim.samples
        );
        let shown = |samples: u64, value: f64| {
            if samples == 0 {
                "-".to_string()
            } else {
                format!("{value:.1}")
            }
        };
        for (name, left, right) in [
            ("wakeup latency p50 (us)", log.p50, sim.p50),
            ("wakeup latency p99 (us)", log.p99, sim.p99),
            ("wakeup latency max (us)", log.max, sim.max),
        ] {
            let _ = writeln!(
                out,
                "{name:<24} {:>14} {:>14}",
                shown(log.samples, left),
                shown(sim.samples, right)
            );
        }
        let sim_migrations = summary.migrations.smt
            + summary.migrations.llc
            + summary.migrations.cross_llc
            + summary.migrations.cross_numa;
        let _ = writeln!(
            out,
            "{:<24} {:>14} {:>14}",
            "migrations",
            metrics.migrations.total(),
            sim_migrations
        );
        let _ = writeln!(
            out,
            "{:<24} {:>14} {:>14}",
            "CPUs (utilisation over)",
            metrics.cpus.len(),
            self.cpus
        );
        let _ = writeln!(
            out,
            "{:<24} {:>14} {:>13.1}%",
            "utilisation",
            metrics
                .utilization
                .map_or("unknown".to_string(), |util| format!(
                    "{:.1}%",
                    util * 100.0
                )),
            summary.utilization * 100.0
        );
        out
    }
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
        "CPUs seen: {} ({}){}, tasks seen: {}",
        cpus.len(),
        cpu_list(&cpus),
        report
            .machine_cpus
            .map_or(String::new(), |all| format!(" of the machine's {all}")),
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
    if latency.samples == 0 {
        // Not a table of zeros: there is nothing to take percentiles of.
        let _ = writeln!(
            out,
            "Wakeup latency (usec, wakeup to switch-in): no samples (no wakeup in the log is followed by its task's switch-in)"
        );
    } else {
        let _ = writeln!(
            out,
            "Wakeup latency (usec, wakeup to switch-in), {} sample{}",
            latency.samples,
            if latency.samples == 1 { "" } else { "s" }
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
    }
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
    match metrics.utilization {
        Some(util) => {
            let _ = writeln!(out, "utilization: {:.1} %", util * 100.0);
        }
        None => {
            let _ = writeln!(
                out,
                "utilization: unknown (no sched_switch lines: what ran between the lines cannot be told)"
            );
        }
    }
    if !metrics.cpus.is_empty() {
        let _ = writeln!(
            out,
            "  {:>5} {:>8} {:>12} {:>9} {:>12} {:>12}",
            "CPU", "util %", "window ms", "switches", "max waiting", "mean waiting"
        );
        for cpu in &metrics.cpus {
            let _ = writeln!(
                out,
                "  {:>5} {:>8} {:>12.3} {:>9} {:>12} {:>12.2}",
                cpu.cpu,
                cpu.utilization
                    .map_or("-".to_string(), |util| format!("{:.1}", util * 100.0)),
                cpu.window_ns as f64 / 1e6,
                cpu.switches,
                cpu.max_waiting,
                cpu.mean_waiting
            );
        }
    }
    let frequency: Vec<_> = metrics
        .power
        .iter()
        .filter_map(|cpu| cpu.frequency.as_ref().map(|frequency| (cpu.cpu, frequency)))
        .collect();
    if !frequency.is_empty() {
        let _ = writeln!(out, "frequency (cpu_frequency), MHz:");
        let _ = writeln!(
            out,
            "  {:>5} {:>8} {:>8} {:>8} {:>8}",
            "CPU", "changes", "mean", "min", "max"
        );
        for (cpu, frequency) in frequency {
            let _ = writeln!(
                out,
                "  {:>5} {:>8} {:>8.0} {:>8.0} {:>8.0}",
                cpu, frequency.changes, frequency.mean_mhz, frequency.min_mhz, frequency.max_mhz
            );
        }
    }
    let idle: Vec<_> = metrics
        .power
        .iter()
        .filter_map(|cpu| cpu.idle.as_ref().map(|idle| (cpu.cpu, idle)))
        .collect();
    if !idle.is_empty() {
        let states = idle
            .iter()
            .map(|(_, idle)| idle.state_ns.len())
            .max()
            .unwrap_or(0);
        let _ = writeln!(
            out,
            "idle states (cpu_idle), share of the time from each CPU's first cpu_idle:"
        );
        let mut header = format!("  {:>5} {:>8} {:>8}", "CPU", "entries", "active");
        for state in 0..states {
            let _ = write!(header, " {:>8}", format!("state {state}"));
        }
        let _ = writeln!(out, "{header}");
        for (cpu, idle) in idle {
            let total = (idle.active_ns + idle.state_ns.iter().sum::<u64>()).max(1) as f64;
            let share = |ns: u64| format!("{:.1} %", ns as f64 * 100.0 / total);
            let mut row = format!(
                "  {:>5} {:>8} {:>8}",
                cpu,
                idle.entries,
                share(idle.active_ns)
            );
            for state in 0..states {
                let _ = write!(
                    row,
                    " {:>8}",
                    share(idle.state_ns.get(state).copied().unwrap_or(0))
                );
            }
            let _ = writeln!(out, "{row}");
        }
    }
    let stat = &metrics.stat_runtime;
    if stat.events > 0 {
        let busy: u64 = metrics.cpus.iter().map(|cpu| cpu.busy_ns).sum();
        let _ = writeln!(
            out,
            "runtime charged (sched_stat_runtime): {:.3} ms to {} task(s) in {} event(s); the switches give {:.3} ms busy",
            stat.total_ns as f64 / 1e6,
            stat.by_pid.len(),
            stat.events,
            busy as f64 / 1e6
        );
    }
    if metrics.inconsistencies > 0 {
        let _ = writeln!(
            out,
            "warning: {} named a previous task the replay did not have running ({} {}): lost events or a trace cut mid-way",
            if metrics.inconsistencies == 1 { "1 switch".to_string() } else { format!("{} switches", metrics.inconsistencies) },
            if metrics.inconsistent_lines.len() == 1 { "line" } else { "lines" },
            lines_list(&metrics.inconsistent_lines)
        );
    }
    out
}
