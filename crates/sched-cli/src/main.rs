//! `schedlab`: run, validate and list scenarios natively (batch runs, CI, benchmarks).

mod explain;
mod replay;
mod summary;
mod sweep;

use clap::{Parser, Subcommand};
use indicatif::{ProgressBar, ProgressStyle};
use sched_core::topology::PRESETS;
use sched_core::{SimTime, Simulator};
use sched_scenario::{
    apply_override, format_errors, parse_json, scenario_from_value, schema_value,
};
use serde_json::Value;
use std::io::IsTerminal;
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::{Duration, Instant};

#[derive(Parser)]
#[command(
    name = "schedlab",
    version,
    about = "Simulate the Linux CFS scheduler on a modelled machine"
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
enum TraceFormat {
    Ftrace,
    PerfettoJson,
}

#[derive(Subcommand)]
enum Command {
    /// Run a scenario and print its wakeup-latency table and summary.
    Run {
        /// A scenario file, or a shipped scenario's name (`teaching-small`; `schedlab list`).
        scenario: String,
        /// Override the scenario's seed.
        #[arg(long)]
        seed: Option<u64>,
        /// Override a field by its dotted path, e.g. `knobs.sched_migration_cost_ns=0`.
        #[arg(long = "set", value_name = "PATH=VALUE")]
        set: Vec<String>,
        /// Print the metrics as one JSON object.
        #[arg(long)]
        json: bool,
        /// Write the event trace to FILE as ftrace text (with each decision's reason
        /// as a trailing comment when --reasons is given).
        #[arg(long, value_name = "FILE")]
        trace_out: Option<PathBuf>,
        /// Append the model's one-line reason to each trace line (ftrace format).
        #[arg(long, requires = "trace_out")]
        reasons: bool,
        /// The --trace-out format: ftrace text (`trace` file layout, opens in
        /// Perfetto) or Chrome trace-event JSON (opens in Perfetto and chrome://tracing).
        #[arg(long, value_enum, default_value_t = TraceFormat::Ftrace, requires = "trace_out")]
        trace_format: TraceFormat,
        /// Print lock statistics in the layout of the kernel's /proc/lock_stat.
        #[arg(long)]
        lockstat: bool,
    },
    /// Check a scenario and report every problem with its field path.
    Validate {
        /// A scenario file, or a shipped scenario's name (`teaching-small`; `schedlab list`).
        scenario: String,
        /// Override a field by its dotted path before checking, as for `run`.
        #[arg(long = "set", value_name = "PATH=VALUE")]
        set: Vec<String>,
    },
    /// Measure simulation speed: events per second of wall time (median of runs).
    Bench {
        /// A scenario file, or a shipped scenario's name (`teaching-small`; `schedlab list`).
        scenario: String,
        /// Override a field by its dotted path, as for `run`.
        #[arg(long = "set", value_name = "PATH=VALUE")]
        set: Vec<String>,
        /// How many timed runs (at least 1).
        #[arg(long, default_value_t = 3, value_parser = clap::value_parser!(u32).range(1..))]
        repeat: u32,
        /// Print `{"scenario", "cpus", "events", "events_per_s": {"median", "min",
        /// "max"}, "runs", "trace_hash"}` as JSON instead of a line of text.
        #[arg(long)]
        json: bool,
    },
    /// Run a scenario over a grid of settings and seeds, in parallel, and report
    /// each point's median (min..max) over seeds.
    Sweep(sweep::SweepArgs),
    /// Explain one wakeup or fork: which CPUs and groups the kernel's paths compared,
    /// with their numbers, and why the chosen CPU won. N is the 0-based index of the
    /// trace record: the line number among the event lines of `run --trace-out`
    /// (same --seed and --set), header lines (`#`) excluded.
    Explain(explain::ExplainArgs),
    /// Read a real scheduler trace (ftrace text, trace-cmd report, perf script, systrace; `.gz` or `-` for stdin) and report wakeup latency, migrations and utilisation.
    Replay(replay::ReplayArgs),
    /// List machine presets, shipped scenarios and policy switches.
    List,
    /// Print the scenario JSON Schema.
    Schema,
}

/// Output into a closed pipe (`schedlab list | head -1`) ends the process quietly, as
/// SIGPIPE ends a C tool, instead of a "failed printing to stdout" panic. Rust's runtime
/// ignores the signal at start-up; this puts back its default action.
fn default_sigpipe() {
    #[cfg(unix)]
    // SAFETY: called first in `main`, before any thread starts; it only resets one
    // signal's disposition to the system default.
    unsafe {
        libc::signal(libc::SIGPIPE, libc::SIG_DFL);
    }
}

fn main() -> ExitCode {
    default_sigpipe();
    let cli = Cli::parse();
    let result = match cli.command {
        Command::Run {
            scenario,
            seed,
            set,
            json,
            trace_out,
            reasons,
            trace_format,
            lockstat,
        } => run(
            &scenario,
            seed,
            &set,
            RunOutput {
                json,
                trace_out,
                reasons,
                trace_format,
                lockstat,
            },
        ),
        Command::Validate { scenario, set } => validate(&scenario, &set),
        Command::Bench {
            scenario,
            set,
            repeat,
            json,
        } => bench(&scenario, &set, repeat, json),
        Command::Sweep(args) => sweep::sweep(&args),
        Command::Explain(args) => explain::explain(&args),
        Command::Replay(args) => replay::replay(&args),
        Command::List => {
            list();
            Ok(())
        }
        Command::Schema => {
            print!("{}", sched_scenario::schema_text());
            Ok(())
        }
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(message) => {
            eprintln!("{message}");
            ExitCode::FAILURE
        }
    }
}

include!(concat!(env!("OUT_DIR"), "/shipped.rs"));

/// Where scenario files are looked for by name: `$SCHEDLAB_SCENARIOS`, else `./scenarios`.
fn scenarios_dir() -> PathBuf {
    std::env::var_os("SCHEDLAB_SCENARIOS")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from("scenarios"))
}

/// A scenario found by `locate`: its path (a file's, or `NAME.json` for a built-in
/// one) and, when built in, its text.
struct Located {
    path: PathBuf,
    builtin: Option<&'static str>,
}

/// A scenario by path, or by name: a file in the scenarios folder (so a checkout's
/// edits count), else the shipped one built into the binary (from any directory).
fn locate(name: &str) -> Result<Located, String> {
    let direct = Path::new(name);
    if direct.is_file() {
        return Ok(Located {
            path: direct.to_path_buf(),
            builtin: None,
        });
    }
    let named = scenarios_dir().join(format!("{name}.json"));
    if named.is_file() {
        return Ok(Located {
            path: named,
            builtin: None,
        });
    }
    let stem = name.strip_suffix(".json").unwrap_or(name);
    if let Some((_, text)) = SHIPPED.iter().find(|(shipped, _)| *shipped == stem) {
        return Ok(Located {
            path: PathBuf::from(format!("{stem}.json")),
            builtin: Some(text),
        });
    }
    Err(format!(
        "error: no scenario `{name}`: not a file, not in {}, and not a shipped scenario; `schedlab list` shows the shipped ones",
        scenarios_dir().display()
    ))
}

fn load(
    name: &str,
    seed: Option<u64>,
    set: &[String],
) -> Result<(PathBuf, sched_core::Scenario), String> {
    let Located { path, builtin } = locate(name)?;
    let text = match builtin {
        Some(text) => text.to_string(),
        None => std::fs::read_to_string(&path)
            .map_err(|err| format!("error: cannot read {}: {err}", path.display()))?,
    };
    let shown = path.display().to_string();
    let mut value = parse_json(&text).map_err(|errors| report(&shown, &errors))?;
    let schema = schema_value();
    for assignment in set {
        apply_override(&mut value, &schema, assignment)
            .map_err(|message| format!("{shown}: --set {assignment}: {message}"))?;
    }
    if let (Some(seed), Value::Object(map)) = (seed, &mut value) {
        map.insert("seed".into(), Value::from(seed));
    }
    let scenario = scenario_from_value(&value).map_err(|errors| report(&shown, &errors))?;
    Ok((path, scenario))
}

pub(crate) fn report(file: &str, errors: &[sched_core::ScenarioError]) -> String {
    let count = errors.len();
    format!(
        "{file}: {count} problem{}:\n{}",
        if count == 1 { "" } else { "s" },
        format_errors(errors)
            .lines()
            .map(|line| format!("  {line}"))
            .collect::<Vec<_>>()
            .join("\n")
    )
}

/// `1 socket`, `2 sockets`.
fn counted(count: usize, what: &str) -> String {
    if count == 1 {
        format!("1 {what}")
    } else {
        format!("{count} {what}s")
    }
}

fn scenario_name(path: &Path) -> String {
    path.file_stem()
        .map(|stem| stem.to_string_lossy().into_owned())
        .unwrap_or_default()
}

/// What `run` prints and writes.
struct RunOutput {
    json: bool,
    trace_out: Option<PathBuf>,
    reasons: bool,
    trace_format: TraceFormat,
    lockstat: bool,
}

fn run(name: &str, seed: Option<u64>, set: &[String], output: RunOutput) -> Result<(), String> {
    let (path, scenario) = load(name, seed, set)?;
    let mut sim = Simulator::new(&scenario).map_err(|errors| report(name, &errors))?;
    let end = sim.end_time();
    let started = Instant::now();
    let show_progress = std::io::stderr().is_terminal();
    let mut bar: Option<ProgressBar> = None;
    // Run in slices of simulated time so a progress bar can follow.
    let slice = SimTime((end.as_ns() / 200).max(1));
    while !sim.is_finished() {
        let until = sim.now() + slice;
        sim.run_until(until);
        if sim.next_event_time().is_none() && !sim.is_finished() {
            sim.run_to_end();
        }
        if show_progress && bar.is_none() && started.elapsed() > Duration::from_secs(1) {
            let progress = ProgressBar::new(end.as_ns() / 1_000_000);
            progress.set_style(
                ProgressStyle::with_template("{spinner} simulated {pos}/{len} ms [{bar:30}] {eta}")
                    .expect("a valid template")
                    .progress_chars("=> "),
            );
            bar = Some(progress);
        }
        if let Some(progress) = &bar {
            progress.set_position(sim.now().as_ns() / 1_000_000);
        }
    }
    if let Some(progress) = bar {
        progress.finish_and_clear();
    }
    let summary = sim.summary(&scenario_name(&path));
    if let Some(out) = &output.trace_out {
        match output.trace_format {
            TraceFormat::Ftrace => write_trace(&sim, out, output.reasons)?,
            TraceFormat::PerfettoJson => write_perfetto_json(&sim, out)?,
        }
    }
    if output.json {
        println!(
            "{}",
            serde_json::to_string_pretty(&summary::summary_json(&summary))
                .expect("a summary serialises")
        );
        return Ok(());
    }
    let topology = &sim.topology;
    println!(
        "{} ({}), seed {}",
        scenario.title,
        path.display(),
        summary.seed
    );
    println!(
        "machine: {}, {}, {}, {} CPUs",
        topology.shape.name,
        counted(topology.shape.sockets as usize, "socket"),
        counted(topology.llc_cpus.len(), "LLC"),
        topology.n_cpus()
    );
    for workload in &sim.workloads {
        println!("workload: {}", workload.label);
    }
    print!("{}", summary.latency_table());
    println!(
        "simulated {:.3} s in {} events ({:.2} s wall), trace hash {}",
        summary.sim_time_ns as f64 / 1e9,
        summary.events,
        started.elapsed().as_secs_f64(),
        summary.trace_hash
    );
    for workload in &summary.throughput_by_workload {
        let values: Vec<String> = workload
            .values
            .iter()
            .map(|value| format!("{:.1} {}", value.value, value.unit))
            .collect();
        println!("throughput ({}): {}", workload.workload, values.join(", "));
    }
    println!(
        "utilization: {:.1} %, context switches: {}, wakeups: {}, latency samples: {}",
        summary.utilization * 100.0,
        summary.context_switches,
        summary.wakeups,
        summary.wakeup_latency_us.samples
    );
    let migrations = &summary.migrations;
    println!(
        "migrations: smt {}, llc {}, cross-llc {}, cross-numa {}",
        migrations.smt, migrations.llc, migrations.cross_llc, migrations.cross_numa
    );
    println!(
        "idle while runnable: {:.3} ms in the same LLC, {:.3} ms machine-wide; cache refill {:.3} ms; scheduler overhead {:.3} ms",
        summary.idle_while_runnable_ns.llc as f64 / 1e6,
        summary.idle_while_runnable_ns.machine as f64 / 1e6,
        summary.cache_refill_ns as f64 / 1e6,
        summary.sched_overhead_ns as f64 / 1e6
    );
    if let Some(power) = &summary.power {
        let watts: Vec<String> = power
            .avg_power_w_by_socket
            .iter()
            .zip(&power.budget_w_by_socket)
            .map(|(used, budget)| format!("{used:.0} of {budget:.0} W"))
            .collect();
        println!(
            "frequency: {:.0} MHz on average while busy; {:.1} cores in deep idle on average; power per socket {}; {} frequency changes",
            power.avg_freq_mhz,
            power.avg_deep_idle_cores,
            watts.join(", "),
            power.frequency_changes
        );
    }
    if !sim.groups.is_empty() {
        let bw = &summary.bandwidth;
        println!(
            "cfs bandwidth: {} cgroups, {} cfs_rq throttles, {} unthrottles, {} task-group visits by tree walks; cpu.stat over the {} groups with a quota: nr_periods {}, nr_throttled {}, throttled_usec {}; update_blocked_averages: {} calls visiting {} cfs_rqs",
            sim.groups.len(),
            bw.throttles,
            bw.unthrottles,
            bw.tg_walk_visits,
            bw.cpu_stat.len(),
            bw.nr_periods,
            bw.nr_throttled,
            bw.throttled_usec,
            bw.blocked_updates,
            bw.blocked_visits
        );
        // A small tree's CPU time by group (a large one's is in --json).
        if bw.usage.len() <= 8 {
            let by_group: Vec<String> = bw
                .usage
                .iter()
                .map(|row| format!("{} {}", row.group, row.usage_usec))
                .collect();
            println!("cpu.stat usage_usec: {}", by_group.join(", "));
        }
    }
    if let Some(misses) = &summary.cache_misses {
        let by_op: Vec<String> = misses
            .detail
            .iter()
            .map(|row| format!("{} {}", row.operation, row.sched_entity + row.cfs_rq))
            .collect();
        println!(
            "struct layout ({}; sched_entity {} lines, cfs_rq {} lines): {} cache misses of {} line accesses ({} sched_entity, {} cfs_rq; {} from another CPU); by function: {}",
            misses.layout,
            misses.lines.get("sched_entity").copied().unwrap_or(0),
            misses.lines.get("cfs_rq").copied().unwrap_or(0),
            misses.total,
            misses.accesses,
            misses.by_struct.get("sched_entity").copied().unwrap_or(0),
            misses.by_struct.get("cfs_rq").copied().unwrap_or(0),
            misses.remote,
            by_op.join(", ")
        );
    }
    if output.lockstat {
        print!("{}", sched_core::lock::format_lock_stat(&summary.locks));
    }
    Ok(())
}

fn write_trace(sim: &Simulator, out: &Path, reasons: bool) -> Result<(), String> {
    use std::io::Write;
    let file = std::fs::File::create(out)
        .map_err(|err| format!("error: cannot write {}: {err}", out.display()))?;
    let mut writer = std::io::BufWriter::new(file);
    let write_error = |err: std::io::Error| format!("error: writing {}: {err}", out.display());
    write!(writer, "{}", sim.trace.ftrace_header(sim.topology.n_cpus())).map_err(write_error)?;
    for idx in 0..sim.trace.len() {
        let line = sim.trace.ftrace_line_with_reason(idx, sim, reasons);
        writeln!(writer, "{line}").map_err(write_error)?;
    }
    writer.flush().map_err(write_error)
}

fn bench(name: &str, set: &[String], repeat: u32, json: bool) -> Result<(), String> {
    let (_, scenario) = load(name, None, set)?;
    let mut rates = Vec::new();
    let mut events = 0;
    let mut hash = String::new();
    for _ in 0..repeat.max(1) {
        let mut sim =
            Simulator::with_trace_limit(&scenario, 0).map_err(|errors| report(name, &errors))?;
        let started = Instant::now();
        sim.run_to_end();
        let seconds = started.elapsed().as_secs_f64();
        events = sim.events();
        hash = sim.trace.hash_hex();
        rates.push(events as f64 / seconds.max(1e-9));
    }
    rates.sort_by(|a, b| a.total_cmp(b));
    // With an even count, the mean of the two middle runs (as `sweep`'s medians).
    let middle = rates.len() / 2;
    let median = if rates.len() % 2 == 1 {
        rates[middle]
    } else {
        (rates[middle - 1] + rates[middle]) / 2.0
    };
    let cpus = Simulator::new(&scenario)
        .map(|sim| sim.topology.n_cpus())
        .unwrap_or(0);
    if json {
        let document = serde_json::json!({
            "scenario": name,
            "cpus": cpus,
            "events": events,
            "events_per_s": {"median": median, "min": rates[0], "max": rates[rates.len() - 1]},
            "runs": rates.len(),
            "trace_hash": hash,
        });
        println!(
            "{}",
            serde_json::to_string_pretty(&document).expect("JSON values serialise")
        );
        return Ok(());
    }
    println!(
        "{name}: {} CPUs, {events} events, {:.2} M events/s (median of {}; min {:.2}, max {:.2}), trace hash {hash}",
        cpus,
        median / 1e6,
        rates.len(),
        rates[0] / 1e6,
        rates[rates.len() - 1] / 1e6
    );
    Ok(())
}

/// Writes the run as Chrome trace-event JSON (`sched_scenario::perfetto`).
fn write_perfetto_json(sim: &Simulator, out: &Path) -> Result<(), String> {
    use std::io::Write;
    let file = std::fs::File::create(out)
        .map_err(|err| format!("error: cannot write {}: {err}", out.display()))?;
    let mut writer = std::io::BufWriter::new(file);
    serde_json::to_writer(&mut writer, &sched_scenario::perfetto::perfetto_json(sim))
        .map_err(|err| format!("error: writing {}: {err}", out.display()))?;
    writer
        .flush()
        .map_err(|err| format!("error: writing {}: {err}", out.display()))
}

fn validate(name: &str, set: &[String]) -> Result<(), String> {
    let (path, scenario) = load(name, None, set)?;
    let sim = Simulator::new(&scenario).map_err(|errors| report(name, &errors))?;
    let background = sim
        .tasks
        .iter()
        .filter(|task| sim.workloads[task.group as usize].background)
        .count();
    println!(
        "{}: ok ({}, {} CPUs, {} tasks and {background} background kthreads, kernel {}, {} ms)",
        path.display(),
        sim.topology.shape.name,
        sim.topology.n_cpus(),
        sim.tasks.len() - background,
        sim.kernel,
        scenario.duration_ms
    );
    Ok(())
}

fn list() {
    println!("Machine presets (topology.preset):");
    for preset in PRESETS {
        println!("  {:<16} {}", preset.name, preset.summary);
    }
    println!();
    println!("Power model per preset (with power.enabled; illustrative, see docs/policies/turbosched.md):");
    for preset in PRESETS {
        let nominal = sched_core::topology::nominal_mhz(preset.name);
        let figures = sched_core::power::power_figures(preset.name, nominal);
        println!(
            "  {:<16} nominal {} MHz, turbo {} MHz (one core) to {} MHz (all cores); shallow {} ({} us exit), deep {} ({} us exit, {} us residency)",
            preset.name,
            nominal,
            figures.turbo_one_core_mhz,
            figures.turbo_all_cores_mhz,
            figures.shallow.name,
            figures.shallow.exit_latency_ns / 1000,
            figures.deep.name,
            figures.deep.exit_latency_ns / 1000,
            figures.deep.target_residency_ns / 1000
        );
    }
    println!();
    // The scenarios folder's files when there is one (a checkout), else those built in.
    let mut entries: Vec<(String, String)> = std::fs::read_dir(scenarios_dir())
        .map(|dir| {
            dir.filter_map(Result::ok)
                .map(|entry| entry.path())
                .filter(|path| {
                    path.extension().is_some_and(|ext| ext == "json")
                        && !path.to_string_lossy().ends_with(".schema.json")
                })
                .map(|path| {
                    (
                        scenario_name(&path),
                        std::fs::read_to_string(&path).unwrap_or_default(),
                    )
                })
                .collect()
        })
        .unwrap_or_default();
    if entries.is_empty() {
        println!("Scenarios (built in; `schedlab run NAME` runs one):");
        entries = SHIPPED
            .iter()
            .map(|(name, text)| ((*name).to_string(), (*text).to_string()))
            .collect();
    } else {
        println!("Scenarios ({}):", scenarios_dir().display());
    }
    entries.sort();
    let width = entries
        .iter()
        .map(|(name, _)| name.len())
        .max()
        .unwrap_or(0)
        .max(28);
    for (name, text) in entries {
        let title = serde_json::from_str::<Value>(&text)
            .ok()
            .and_then(|value| value.get("title").and_then(Value::as_str).map(String::from))
            .unwrap_or_else(|| "(unreadable)".into());
        println!("  {name:<width$} {title}");
    }
    println!();
    println!("Policy switches (policy.*):");
    println!("  wake_affine.enabled       let a wakeup move the task towards the waker's CPU (default true)");
    println!("  newidle_balance.enabled   pull a waiting task when a CPU goes idle (default true)");
    println!("  periodic_balance.enabled  balance each domain at its interval, and NOHZ idle balance (default true)");
    println!("  sis_scan.enabled          seed 001: on the 4.6 wakeup path, scan the package for an idle thread (default false)");
    println!("  sis_scan.gate             ... only when should_scan_idle holds: target runs <= 1 task, task not cache-hot (default true)");
    println!("  numa_affinity.enabled     5.18 fork: limit the NUMA imbalance allowance to a pinned task's allowed CPUs in the local node (default false)");
    println!("  numa_affinity.check       how \"pinned to a subset\" is tested: \"ne\" (nr_cpus_allowed != num_online_cpus(), default) or \"lt\"");
    println!("  shared_runq.mode          seed 000 (6.5): \"off\" (default), \"wakeups\" (push a wakeup that select_task_rq did not migrate) or \"all\" (push on every enqueue)");
    println!("  shared_runq.shard_size    CPUs per shard: max(llc_cpus / size, 1) shards per LLC; 0 for one unsharded queue per LLC (default 6)");
    println!("  shared_runq.shard_index   a CPU's shard: \"cpu_mod\" (cpu % shards, default) or \"cpu_shr1_mod\" ((cpu >> 1) % shards)");
    println!("  shared_runq.skip_llc_balance  after a shared-runqueue pull attempt, newidle balancing starts above the LLC (default false)");
    println!();
    println!("Knob presets (knobs.preset): default, hhvm");
    println!();
    print!("{}", kernel_table());
}

/// `schedlab list`'s table of kernel versions and the variant each path takes.
fn kernel_table() -> String {
    let table = sched_core::kernel::version_table();
    let rows: Vec<(String, Value)> = table
        .iter()
        .map(|(version, features)| {
            let value = serde_json::to_value(features).expect("features serialise");
            (version.clone(), value)
        })
        .collect();
    let Some((_, first)) = rows.first() else {
        return String::new();
    };
    let names: Vec<String> = first
        .as_object()
        .map(|map| map.keys().cloned().collect())
        .unwrap_or_default();
    let cell = |value: &Value| match value {
        Value::Bool(true) => "on".to_string(),
        Value::Bool(false) => "-".to_string(),
        // Shortened so that every version fits on one line; the names are in the docs.
        Value::String(text) => match text.as_str() {
            "migration_cost" => "mig_cost".to_string(),
            "max_newidle_lb_cost" => "lb_cost".to_string(),
            "group_type" => "type".to_string(),
            "load_blocked" => "blocked".to_string(),
            "runnable_load_avg" => "runnable".to_string(),
            other => other.to_string(),
        },
        other => other.to_string(),
    };
    let mut out = format!(
        "Kernel versions (kernel: \"{}\" by default; any of {} to {}; override one path with features.NAME):\n",
        sched_core::kernel::DEFAULT_KERNEL,
        sched_core::kernel::OLDEST,
        sched_core::kernel::NEWEST
    );
    out.push_str(&format!("  {:<20}", "path"));
    for (version, _) in &rows {
        out.push_str(&format!("{version:>9}"));
    }
    out.push('\n');
    for name in &names {
        out.push_str(&format!("  {name:<20}"));
        for (_, value) in &rows {
            out.push_str(&format!("{:>9}", cell(&value[name])));
        }
        out.push('\n');
    }
    out.push_str("  (newidle_gate: mig_cost = avg_idle against sched_migration_cost_ns, lb_cost = against max_newidle_lb_cost;\n");
    out.push_str("   find_idlest_group: blocked = load_blocked, type = group_type; cpu_load: runnable = runnable_load_avg)\n");
    out
}
