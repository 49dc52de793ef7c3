//! `schedlab sweep`: run a scenario over a grid of settings and seeds in parallel, and report each point's median, min and max over seeds.

use crate::summary::summary_json;
use indicatif::{ProgressBar, ProgressStyle};
use sched_core::{Scenario, Simulator};
use sched_scenario::spread::spread;
use sched_scenario::sweep::{
    check_vary_list, parse_seeds, parse_vary, point_count, point_scenario, Seeds, Vary, MAX_RUNS,
};
use serde_json::{json, Map, Value};
use std::fmt::Write as _;
use std::io::IsTerminal;
use std::num::NonZeroUsize;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::atomic::{AtomicUsize, Ordering};

/// How many problems to print before summing up the rest.
const MAX_PROBLEMS_SHOWN: usize = 10;

#[derive(clap::Args)]
pub struct SweepArgs {
    /// A scenario file, or the name of one in scenarios/ (`teaching-small`).
    scenario: String,
    /// Override a field in every run, as `run --set` does, e.g. `duration_ms=500`.
    #[arg(long = "set", value_name = "PATH=VALUE")]
    set: Vec<String>,
    /// A field to vary: a list `PATH=V1,V2,...` or an inclusive integer range
    /// `PATH=A..B`. Each value is read as --set reads it; quote a string that holds a
    /// comma (`'workloads.0.cpus="0-3,8",0-7'`). With several --vary flags every
    /// combination runs, the first flag varying slowest.
    #[arg(long = "vary", value_name = "PATH=VALUES", required = true, value_parser = parse_vary)]
    vary: Vec<Vary>,
    /// The seeds every point runs with: an inclusive range `A..B` or a list `1,7,9`.
    #[arg(long, value_name = "A..B|LIST", default_value = "1..5", value_parser = parse_seeds)]
    seeds: Seeds,
    /// Run only the points whose index i (counted from 0 in sweep order) has
    /// i % N == K. This lets a batch system split a large sweep across machines: one
    /// job per K, each printing its own points (the JSON gives each point's index).
    #[arg(long, value_name = "K/N", value_parser = parse_shard)]
    shard: Option<Shard>,
    /// How many runs at once (default: the machine's cores); the output does not
    /// depend on it.
    #[arg(long, value_name = "N", value_parser = parse_threads)]
    threads: Option<NonZeroUsize>,
    /// Print each point's settings, seeds, and the median, min and max over seeds of
    /// every number `run --json` reports, as one JSON object; `runs` holds each
    /// seed's own `run --json` summary, in the order of --seeds.
    #[arg(long)]
    json: bool,
}

/// `--shard K/N`.
#[derive(Clone, Copy, Debug)]
pub struct Shard {
    index: u64,
    count: u64,
}

impl Shard {
    fn includes(self, point: u64) -> bool {
        point % self.count == self.index
    }
}

fn parse_shard(text: &str) -> Result<Shard, String> {
    let (index, count) = text
        .split_once('/')
        .ok_or_else(|| "expected K/N, e.g. 0/4".to_string())?;
    let index: u64 = index
        .trim()
        .parse()
        .map_err(|_| format!("K in K/N must be a whole number, got `{}`", index.trim()))?;
    let count: u64 = count
        .trim()
        .parse()
        .map_err(|_| format!("N in K/N must be a whole number, got `{}`", count.trim()))?;
    if count == 0 || index >= count {
        return Err(format!("K/N needs 0 <= K < N, got {index}/{count}"));
    }
    Ok(Shard { index, count })
}

/// One point of the sweep: its index in the full product, its settings, and the
/// checked scenario they give.
struct Point {
    index: u64,
    /// `(path, value as written)` per `--vary` flag.
    settings: Vec<(String, String)>,
    /// The same values as the scenario JSON holds them (`2`, `"4.6"`, `false`).
    typed: Vec<(String, Value)>,
    scenario: Scenario,
}

pub fn sweep(args: &SweepArgs) -> Result<(), String> {
    let seeds = &args.seeds.0;
    if seeds.is_empty() {
        return Err("error: --seeds lists no seed".into());
    }
    if let Some(empty) = args.vary.iter().find(|flag| flag.values.is_empty()) {
        return Err(format!("error: --vary {} lists no value", empty.path));
    }
    check_vary_list(&args.vary).map_err(|message| format!("error: --vary: {message}"))?;
    // The base is what `run --set ...` would run; a bad --set fails here, once.
    let (path, base) = crate::load(&args.scenario, None, &args.set)?;
    let name = crate::scenario_name(&path);
    let point_count = point_count(&args.vary)
        .ok_or_else(|| format!("error: the sweep has more than {MAX_RUNS} points"))?;
    let run_count = point_count.saturating_mul(seeds.len() as u64);
    if run_count > MAX_RUNS {
        return Err(format!(
            "error: the sweep has {run_count} runs ({point_count} points x {} seeds); at most {MAX_RUNS} in one command",
            seeds.len()
        ));
    }

    // Each seed is checked once against the schema, as `run --seed` would check it;
    // the runs then set it on the points' already checked scenarios.
    for &seed in seeds {
        crate::load(&args.scenario, Some(seed), &args.set)
            .map_err(|message| format!("--seeds {seed}: {message}"))?;
    }
    let points = check_points(args, &base, point_count)?;

    let jobs: Vec<(usize, u64)> = (0..points.len())
        .flat_map(|point| seeds.iter().map(move |&seed| (point, seed)))
        .collect();
    let results = run_jobs(&jobs, &points, &name, args.threads)?;

    let per_point: Vec<Value> = points
        .iter()
        .zip(results.chunks(seeds.len()))
        .map(|(point, runs)| {
            let spread = spread(runs);
            let set: Map<String, Value> = point.typed.iter().cloned().collect();
            json!({
                "index": point.index,
                "set": set,
                "seeds": seeds,
                "median": spread.median,
                "min": spread.min,
                "max": spread.max,
                "runs": runs,
            })
        })
        .collect();
    if args.json {
        let document = json!({ "points": per_point });
        println!(
            "{}",
            serde_json::to_string_pretty(&document).expect("JSON values serialise")
        );
    } else {
        print!(
            "{}",
            table(args, &name, &base.title, point_count, &points, &per_point)
        );
    }
    Ok(())
}

/// Builds and checks every point of the product before anything runs, so a bad
/// value in the last point does not waste the time spent on the others. Points of
/// other shards are checked too, so every shard of a sweep fails alike.
fn check_points(args: &SweepArgs, base: &Scenario, point_count: u64) -> Result<Vec<Point>, String> {
    let base_json = serde_json::to_value(base)
        .map_err(|err| format!("error: the scenario does not serialise: {err}"))?;
    let mut points = Vec::new();
    let mut problems: Vec<String> = Vec::new();
    for index in 0..point_count {
        match point_scenario(&base_json, &args.vary, index) {
            Ok(point) => {
                if args.shard.is_none_or(|shard| shard.includes(index)) {
                    points.push(Point {
                        index,
                        settings: point.settings,
                        typed: point.typed,
                        scenario: point.scenario,
                    });
                }
            }
            Err(message) => problems.extend(message.lines().map(str::to_string)),
        }
    }
    if problems.is_empty() {
        return Ok(points);
    }
    // A bad path fails at every point alike; say it once.
    let mut distinct: Vec<String> = Vec::new();
    for problem in problems {
        if !distinct.contains(&problem) {
            distinct.push(problem);
        }
    }
    let mut message = format!(
        "error: the sweep has {} problem{}, so nothing ran:",
        distinct.len(),
        if distinct.len() == 1 { "" } else { "s" }
    );
    for problem in distinct.iter().take(MAX_PROBLEMS_SHOWN) {
        message.push_str("\n  ");
        message.push_str(&problem.replace('\n', "\n  "));
    }
    if distinct.len() > MAX_PROBLEMS_SHOWN {
        let _ = write!(
            message,
            "\n  ... and {} more",
            distinct.len() - MAX_PROBLEMS_SHOWN
        );
    }
    Err(message)
}

/// Runs every `(point, seed)` job on a pool of scoped threads, each taking the next
/// job from a shared counter. Results land in job order, so the output is the same
/// for any number of threads.
fn run_jobs(
    jobs: &[(usize, u64)],
    points: &[Point],
    name: &str,
    threads: Option<NonZeroUsize>,
) -> Result<Vec<Value>, String> {
    let threads = threads
        .or_else(|| std::thread::available_parallelism().ok())
        .map_or(1, NonZeroUsize::get)
        .min(jobs.len())
        .max(1);
    let bar = if std::io::stderr().is_terminal() {
        let bar = ProgressBar::new(jobs.len() as u64);
        bar.set_style(
            ProgressStyle::with_template(
                "{spinner} sweep: {pos}/{len} runs [{bar:30}] {elapsed} (eta {eta})",
            )
            .expect("a valid template")
            .progress_chars("=> "),
        );
        Some(bar)
    } else {
        None
    };
    let next_job = AtomicUsize::new(0);
    let mut slots: Vec<Option<Result<Value, String>>> = vec![None; jobs.len()];
    std::thread::scope(|scope| {
        let workers: Vec<_> = (0..threads)
            .map(|_| {
                scope.spawn(|| {
                    let mut done = Vec::new();
                    loop {
                        let job = next_job.fetch_add(1, Ordering::Relaxed);
                        let Some(&(point, seed)) = jobs.get(job) else {
                            break;
                        };
                        done.push((job, run_one(&points[point], seed, name)));
                        if let Some(bar) = &bar {
                            bar.inc(1);
                        }
                    }
                    done
                })
            })
            .collect();
        for worker in workers {
            // run_one catches a simulator panic itself, so a worker cannot panic.
            if let Ok(done) = worker.join() {
                for (job, result) in done {
                    slots[job] = Some(result);
                }
            }
        }
    });
    if let Some(bar) = bar {
        bar.finish_and_clear();
    }
    let mut results = Vec::with_capacity(jobs.len());
    let mut failures = Vec::new();
    for (slot, &(point, seed)) in slots.into_iter().zip(jobs) {
        match slot {
            Some(Ok(summary)) => results.push(summary),
            Some(Err(message)) => failures.push(message),
            None => failures.push(format!(
                "point {} seed {seed}: the run did not report",
                points[point].index
            )),
        }
    }
    if failures.is_empty() {
        Ok(results)
    } else {
        Err(format!(
            "error: {} run(s) failed:\n  {}",
            failures.len(),
            failures.join("\n  ")
        ))
    }
}

/// One run, as `run --seed SEED --json` would report it.
fn run_one(point: &Point, seed: u64, name: &str) -> Result<Value, String> {
    let mut scenario = point.scenario.clone();
    scenario.seed = seed;
    // A model bug that panics should fail this run with its point named, not take
    // down the other threads' runs.
    catch_unwind(AssertUnwindSafe(|| {
        // No trace is kept: the summary's trace hash and count cover every event anyway.
        let mut sim = Simulator::with_trace_limit(&scenario, 0)
            .map_err(|errors| crate::report(name, &errors))?;
        sim.run_to_end();
        Ok(summary_json(&sim.summary(name)))
    }))
    .unwrap_or_else(|_| {
        Err(format!(
            "point {} seed {seed}: the simulator panicked (message above)",
            point.index
        ))
    })
}

/// The seeds as written short: `1..5` when consecutive, else `1, 7, 9`.
fn seeds_text(seeds: &[u64]) -> String {
    let consecutive = seeds
        .windows(2)
        .all(|pair| pair[0].checked_add(1) == Some(pair[1]));
    match (seeds.first(), seeds.last()) {
        (Some(first), Some(last)) if consecutive && seeds.len() > 2 => format!("{first}..{last}"),
        _ => seeds
            .iter()
            .map(u64::to_string)
            .collect::<Vec<_>>()
            .join(", "),
    }
}

/// One table column of a metric: where it is in the summary and how it is shown.
struct Metric {
    header: String,
    /// A JSON pointer into the summary.
    pointer: &'static str,
    scale: f64,
}

/// The text report: a header naming the scenario and seeds, then one aligned row per
/// point with its settings and `median (min..max)` of each headline metric.
fn table(
    args: &SweepArgs,
    name: &str,
    title: &str,
    point_count: u64,
    points: &[Point],
    per_point: &[Value],
) -> String {
    let seeds = &args.seeds.0;
    let mut out = String::new();
    let _ = write!(
        out,
        "{name} ({title}): {point_count} point{} x {} seed{} (seeds {})",
        if point_count == 1 { "" } else { "s" },
        seeds.len(),
        if seeds.len() == 1 { "" } else { "s" },
        seeds_text(seeds)
    );
    if let Some(shard) = args.shard {
        let _ = write!(
            out,
            ", shard {}/{}: {} of them",
            shard.index,
            shard.count,
            points.len()
        );
    }
    out.push_str("; each cell is the median (min..max) over seeds\n");

    // One unit in the header when every point shares it (the usual case); else each
    // cell names its own.
    let units: Vec<&str> = per_point
        .iter()
        .map(|point| point["median"]["throughput"]["unit"].as_str().unwrap_or(""))
        .collect();
    let shared_unit = units
        .first()
        .filter(|unit| units.iter().all(|other| other == *unit));
    let mut metrics = vec![
        Metric {
            header: "p50 wakeup (us)".into(),
            pointer: "/wakeup_latency_us/p50",
            scale: 1.0,
        },
        Metric {
            header: "p99 wakeup (us)".into(),
            pointer: "/wakeup_latency_us/p99",
            scale: 1.0,
        },
        Metric {
            header: match shared_unit {
                Some(unit) => format!("throughput ({unit})"),
                None => "throughput".into(),
            },
            pointer: "/throughput/value",
            scale: 1.0,
        },
        Metric {
            header: "utilisation (%)".into(),
            pointer: "/utilization",
            scale: 100.0,
        },
    ];
    // The struct-layout model's misses, in runs that have it (cgroups).
    if per_point
        .iter()
        .any(|point| point["median"].pointer("/cache_misses/total").is_some())
    {
        metrics.push(Metric {
            header: "cache misses (M)".into(),
            pointer: "/cache_misses/total",
            scale: 1e-6,
        });
    }

    let mut headers: Vec<String> = args.vary.iter().map(|flag| flag.path.clone()).collect();
    headers.extend(metrics.iter().map(|metric| metric.header.clone()));
    let mut rows: Vec<Vec<String>> = points
        .iter()
        .map(|point| {
            point
                .settings
                .iter()
                .map(|(_, value)| value.clone())
                .collect()
        })
        .collect();
    for metric in &metrics {
        let number = |point: &Value, which: &str| {
            point[which]
                .pointer(metric.pointer)
                .and_then(Value::as_f64)
                .map_or_else(
                    || "-".to_string(),
                    |value| format!("{:.1}", value * metric.scale),
                )
        };
        let medians: Vec<String> = per_point
            .iter()
            .map(|point| number(point, "median"))
            .collect();
        // Right-align the medians within the column so their digits line up.
        let width = medians.iter().map(String::len).max().unwrap_or(0);
        for ((row, point), median) in rows.iter_mut().zip(per_point).zip(&medians) {
            let mut cell = format!(
                "{median:>width$} ({}..{})",
                number(point, "min"),
                number(point, "max")
            );
            if shared_unit.is_none() && metric.pointer == "/throughput/value" {
                let unit = point["median"]["throughput"]["unit"].as_str().unwrap_or("");
                let _ = write!(cell, " {unit}");
            }
            row.push(cell);
        }
    }
    let widths: Vec<usize> = headers
        .iter()
        .enumerate()
        .map(|(column, header)| {
            rows.iter()
                .map(|row| row[column].chars().count())
                .chain([header.chars().count()])
                .max()
                .unwrap_or(0)
        })
        .collect();
    let line = |cells: &[String]| {
        let padded: Vec<String> = cells
            .iter()
            .zip(&widths)
            .map(|(cell, width)| format!("{cell:<width$}"))
            .collect();
        format!("{}\n", padded.join("  ").trim_end())
    };
    out.push_str(&line(&headers));
    for row in &rows {
        out.push_str(&line(row));
    }
    out
}

/// `--threads N`: a whole number of at least 1.
fn parse_threads(text: &str) -> Result<NonZeroUsize, String> {
    match text.parse::<usize>() {
        Ok(0) => Err("at least 1 run at once: 0 would run nothing".into()),
        Ok(n) => Ok(NonZeroUsize::new(n).expect("not zero")),
        Err(_) => Err(format!("`{text}` is not a whole number of runs")),
    }
}

#[cfg(test)]
mod tests {
    use super::parse_shard;

    #[test]
    fn shards_parse() {
        let shard = parse_shard("1/2").unwrap();
        assert!(shard.includes(1) && shard.includes(3) && !shard.includes(2));
        assert!(parse_shard("2/2").is_err());
        assert!(parse_shard("0/0").is_err());
        assert!(parse_shard("1").is_err());
    }
}
