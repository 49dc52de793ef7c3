//! `schedlab sweep`: run a scenario over a grid of settings and seeds in parallel, and report each point's median, min and max over seeds.

use crate::summary::{spread, summary_json};
use indicatif::{ProgressBar, ProgressStyle};
use sched_core::{Scenario, Simulator};
use sched_scenario::{apply_override, schema_value};
use serde_json::{json, Map, Value};
use std::fmt::Write as _;
use std::io::IsTerminal;
use std::num::NonZeroUsize;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::atomic::{AtomicUsize, Ordering};

/// At most this many values in one `--vary` range or `--seeds` range, and runs in one
/// sweep: a typo such as `1..1000000000` is refused instead of filling memory.
const MAX_VALUES: u64 = 100_000;
const MAX_RUNS: u64 = 1_000_000;

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
    #[arg(long, value_name = "N")]
    threads: Option<NonZeroUsize>,
    /// Print each point's settings, seeds, and the median, min and max over seeds of
    /// every number `run --json` reports, as one JSON object.
    #[arg(long)]
    json: bool,
}

/// One `--vary` flag: a field and the values it takes, as written.
#[derive(Clone, Debug)]
pub struct Vary {
    path: String,
    values: Vec<String>,
}

/// The `--seeds` list, in the order given.
#[derive(Clone, Debug)]
pub struct Seeds(Vec<u64>);

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

fn parse_vary(text: &str) -> Result<Vary, String> {
    let (path, list) = text
        .split_once('=')
        .ok_or_else(|| "expected PATH=V1,V2,... or PATH=A..B".to_string())?;
    let path = path.trim();
    if path.is_empty() {
        return Err("the path before `=` is empty".into());
    }
    let items = split_list(list);
    let values = match items.as_slice() {
        [single] if is_range(single) => integer_range(single)
            .map_err(|message| format!("`{path}={list}`: {message}"))?
            .map(|value| value.to_string())
            .collect(),
        _ => items,
    };
    Ok(Vary {
        path: path.to_string(),
        values,
    })
}

/// Splits `V1,V2,...` at the commas that are not inside a quoted string or a JSON
/// list or object, so `[0,1],[2,3]` is two values.
fn split_list(list: &str) -> Vec<String> {
    let mut items = Vec::new();
    let mut current = String::new();
    let mut depth = 0usize;
    let mut in_string = false;
    let mut escaped = false;
    for character in list.chars() {
        if in_string {
            if escaped {
                escaped = false;
            } else if character == '\\' {
                escaped = true;
            } else if character == '"' {
                in_string = false;
            }
        } else {
            match character {
                '"' => in_string = true,
                '[' | '{' => depth += 1,
                ']' | '}' => depth = depth.saturating_sub(1),
                ',' if depth == 0 => {
                    items.push(std::mem::take(&mut current));
                    continue;
                }
                _ => {}
            }
        }
        current.push(character);
    }
    items.push(current);
    items
}

/// A range is written `A..B`; a quoted string or JSON value holding `..` is not one.
fn is_range(item: &str) -> bool {
    let trimmed = item.trim_start();
    trimmed.contains("..") && !trimmed.starts_with(['"', '[', '{'])
}

/// `A..B` (inclusive) of integers, A <= B, at most [`MAX_VALUES`] of them.
fn integer_range(text: &str) -> Result<std::ops::RangeInclusive<i64>, String> {
    let (low, high) = text
        .split_once("..")
        .ok_or_else(|| format!("`{text}` is not a range A..B"))?;
    let parse = |end: &str| {
        end.trim().parse::<i64>().map_err(|_| {
            format!(
                "a range A..B needs two integers, and `{}` is not one",
                end.trim()
            )
        })
    };
    let (low, high) = (parse(low)?, parse(high)?);
    if low > high {
        return Err(format!("a range A..B needs A <= B, got {low}..{high}"));
    }
    let count = (i128::from(high) - i128::from(low) + 1) as u128;
    if count > u128::from(MAX_VALUES) {
        return Err(format!(
            "the range {low}..{high} has {count} values; at most {MAX_VALUES} in one range"
        ));
    }
    Ok(low..=high)
}

fn parse_seeds(text: &str) -> Result<Seeds, String> {
    let parse = |seed: &str| {
        seed.trim()
            .parse::<u64>()
            .map_err(|_| format!("`{}` is not a seed (a whole number from 0)", seed.trim()))
    };
    let seeds: Vec<u64> = match text.split_once("..") {
        Some((low, high)) => {
            let (low, high) = (parse(low)?, parse(high)?);
            if low > high {
                return Err(format!("a range A..B needs A <= B, got {low}..{high}"));
            }
            if high - low >= MAX_VALUES {
                return Err(format!("{low}..{high} is more than {MAX_VALUES} seeds"));
            }
            (low..=high).collect()
        }
        None => text.split(',').map(parse).collect::<Result<_, _>>()?,
    };
    // A repeated seed would run twice and weigh twice in the median.
    for (position, seed) in seeds.iter().enumerate() {
        if seeds[..position].contains(seed) {
            return Err(format!("seed {seed} is listed twice"));
        }
    }
    Ok(Seeds(seeds))
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

/// The settings of point `index`: mixed-radix digits with the last flag fastest.
fn settings_of(vary: &[Vary], mut index: u64) -> Vec<(String, String)> {
    let mut settings = vec![(String::new(), String::new()); vary.len()];
    for (slot, flag) in vary.iter().enumerate().rev() {
        let radix = flag.values.len() as u64;
        let digit = (index % radix) as usize;
        index /= radix;
        settings[slot] = (flag.path.clone(), flag.values[digit].clone());
    }
    settings
}

/// A dotted path as a JSON pointer (`workloads.0.kind` → `/workloads/0/kind`).
fn pointer_of(path: &str) -> String {
    path.split('.')
        .map(|segment| format!("/{}", segment.replace('~', "~0").replace('/', "~1")))
        .collect()
}

fn assignment(path: &str, value: &str) -> String {
    format!("{path}={value}")
}

pub fn sweep(args: &SweepArgs) -> Result<(), String> {
    let seeds = &args.seeds.0;
    if seeds.is_empty() {
        return Err("error: --seeds lists no seed".into());
    }
    if let Some(empty) = args.vary.iter().find(|flag| flag.values.is_empty()) {
        return Err(format!("error: --vary {} lists no value", empty.path));
    }
    // The base is what `run --set ...` would run; a bad --set fails here, once.
    let (path, base) = crate::load(&args.scenario, None, &args.set)?;
    let name = crate::scenario_name(&path);
    let point_count = args
        .vary
        .iter()
        .try_fold(1u64, |product, flag| {
            product.checked_mul(flag.values.len() as u64)
        })
        .filter(|&count| count <= MAX_RUNS)
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
    let schema = schema_value();
    // The vary values are typed against the base scenario as JSON: the same rules as
    // --set, and an error there can say --vary rather than --set.
    let base_json = serde_json::to_value(base)
        .map_err(|err| format!("error: the scenario does not serialise: {err}"))?;
    let mut points = Vec::new();
    let mut problems: Vec<String> = Vec::new();
    for index in 0..point_count {
        let settings = settings_of(&args.vary, index);
        let mut scratch = base_json.clone();
        let mut typed = Vec::new();
        let mut bad = false;
        for (path, value) in &settings {
            match apply_override(&mut scratch, &schema, &assignment(path, value)) {
                Ok(()) => typed.push((
                    path.clone(),
                    scratch
                        .pointer(&pointer_of(path))
                        .cloned()
                        .unwrap_or(Value::Null),
                )),
                Err(message) => {
                    // A value error names the path itself; a path error is the same
                    // for every value, so it is reported once (see below).
                    let message = message
                        .strip_prefix(&format!("`{path}`: "))
                        .unwrap_or(&message);
                    problems.push(format!("--vary {path}: {message}"));
                    bad = true;
                }
            }
        }
        if bad {
            continue;
        }
        let mut overrides = args.set.clone();
        overrides.extend(settings.iter().map(|(path, value)| assignment(path, value)));
        match crate::load(&args.scenario, None, &overrides) {
            Ok((_, scenario)) => {
                if args.shard.is_none_or(|shard| shard.includes(index)) {
                    points.push(Point {
                        index,
                        settings,
                        typed,
                        scenario,
                    });
                }
            }
            Err(message) => {
                let shown: Vec<String> = settings
                    .iter()
                    .map(|(path, value)| assignment(path, value))
                    .collect();
                problems.push(format!("point {index} ({}): {message}", shown.join(" ")));
            }
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
    let metrics = [
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

#[cfg(test)]
mod tests {
    use super::{parse_seeds, parse_shard, parse_vary, settings_of, split_list};

    #[test]
    fn vary_reads_lists_and_ranges() {
        let vary = parse_vary("knobs.hz=100,250,1000").unwrap();
        assert_eq!(vary.path, "knobs.hz");
        assert_eq!(vary.values, ["100", "250", "1000"]);
        assert_eq!(parse_vary("a.b=2..4").unwrap().values, ["2", "3", "4"]);
        assert_eq!(parse_vary("a=-1..1").unwrap().values, ["-1", "0", "1"]);
        assert_eq!(
            split_list(r#"[0,1],{"a":1,"b":2},"x,y",z"#),
            [r#"[0,1]"#, r#"{"a":1,"b":2}"#, r#""x,y""#, "z"]
        );
        // A quoted `..` is a value, not a range.
        assert_eq!(parse_vary(r#"title="a..b""#).unwrap().values, [r#""a..b""#]);
        assert!(parse_vary("a=4..2")
            .unwrap_err()
            .contains("A <= B, got 4..2"));
        assert!(parse_vary("kernel=4.6..6.5")
            .unwrap_err()
            .contains("needs two integers, and `4.6` is not one"));
        assert!(parse_vary("a=0..100000000")
            .unwrap_err()
            .contains("at most"));
        assert!(parse_vary("novalue").is_err());
    }

    #[test]
    fn seeds_and_shards_parse() {
        assert_eq!(parse_seeds("1..5").unwrap().0, [1, 2, 3, 4, 5]);
        assert_eq!(parse_seeds("7, 3,9").unwrap().0, [7, 3, 9]);
        assert!(parse_seeds("3..1").is_err());
        assert!(parse_seeds("1,x")
            .unwrap_err()
            .contains("`x` is not a seed"));
        assert!(parse_seeds("1,2,1").unwrap_err().contains("listed twice"));
        let shard = parse_shard("1/2").unwrap();
        assert!(shard.includes(1) && shard.includes(3) && !shard.includes(2));
        assert!(parse_shard("2/2").is_err());
        assert!(parse_shard("0/0").is_err());
        assert!(parse_shard("1").is_err());
    }

    #[test]
    fn points_count_in_product_order_first_flag_slowest() {
        let vary = [parse_vary("a=1,2").unwrap(), parse_vary("b=x,y,z").unwrap()];
        let values = |index| {
            settings_of(&vary, index)
                .into_iter()
                .map(|(_, value)| value)
                .collect::<Vec<_>>()
        };
        assert_eq!(values(0), ["1", "x"]);
        assert_eq!(values(1), ["1", "y"]);
        assert_eq!(values(3), ["2", "x"]);
        assert_eq!(values(5), ["2", "z"]);
    }
}
