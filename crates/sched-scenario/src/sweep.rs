//! Sweeps: the grammar of `--vary PATH=VALUES` and `--seeds`, the points of a sweep's
//! grid, and each point's scenario. `schedlab sweep` and the app's sweeps both use it,
//! so a sweep typed in either runs the same points.

use crate::{apply_override, scenario_from_value, schema_value};
use sched_core::Scenario;
use serde_json::Value;

/// At most this many values in one `--vary` range or `--seeds` range, and runs in one
/// sweep: a typo such as `1..1000000000` is refused instead of filling memory.
pub const MAX_VALUES: u64 = 100_000;
pub const MAX_RUNS: u64 = 1_000_000;

/// One `--vary` flag: a field and the values it takes, as written.
#[derive(Clone, Debug)]
pub struct Vary {
    pub path: String,
    pub values: Vec<String>,
}

/// The `--seeds` list, in the order given.
#[derive(Clone, Debug)]
pub struct Seeds(pub Vec<u64>);

pub fn parse_vary(text: &str) -> Result<Vary, String> {
    let (path, list) = text
        .split_once('=')
        .ok_or_else(|| "expected PATH=V1,V2,... or PATH=A..B".to_string())?;
    let path = path.trim();
    if path.is_empty() {
        return Err("the path before `=` is empty".into());
    }
    let items = split_list(list);
    let values = match items.as_slice() {
        // The caller names the whole flag (`--vary` and the app's vary line do).
        [single] if is_range(single) => integer_range(single)?
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
pub fn split_list(list: &str) -> Vec<String> {
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

/// A sweep's vary list as a whole: each path varied once, each value once in its
/// list. A path varied twice would keep only one of its lists (the later one sets
/// the field last), and a value listed twice would run the same point twice.
pub fn check_vary_list(vary: &[Vary]) -> Result<(), String> {
    for (position, flag) in vary.iter().enumerate() {
        // Each run's seed is the seed list's: a varied `seed` would be overwritten, and
        // its points would be the same runs.
        if flag.path == "seed" {
            return Err(
                "`seed` is not varied: each point runs every seed of the seed list (`--seeds`, the app's Seeds field); list the seeds there"
                    .into(),
            );
        }
        if let Some(earlier) = vary[..position]
            .iter()
            .find(|other| other.path == flag.path)
        {
            let together: Vec<&str> = earlier
                .values
                .iter()
                .chain(&flag.values)
                .map(|value| value.trim())
                .collect();
            return Err(format!(
                "`{}` is varied twice (`{}={}` and `{}={}`): give its values in one list, `{}={}`",
                flag.path,
                earlier.path,
                earlier.values.join(","),
                flag.path,
                flag.values.join(","),
                flag.path,
                together.join(",")
            ));
        }
        // A set, not a scan of the values before: a range lists up to MAX_VALUES.
        let mut listed = std::collections::HashSet::with_capacity(flag.values.len());
        for value in &flag.values {
            if !listed.insert(value.trim()) {
                return Err(format!(
                    "`{}={}` lists {} twice",
                    flag.path,
                    flag.values.join(","),
                    value.trim()
                ));
            }
        }
    }
    Ok(())
}

pub fn parse_seeds(text: &str) -> Result<Seeds, String> {
    if text.trim().is_empty() {
        return Err("no seed is given: write a list (1,2,3) or a range (1..5)".into());
    }
    // `empty`: what to say of an empty item (between commas, or a range's end).
    let parse = |seed: &str, empty: &str| {
        if seed.trim().is_empty() {
            return Err(empty.to_string());
        }
        seed.trim()
            .parse::<u64>()
            .map_err(|_| format!("`{}` is not a seed (a whole number from 0)", seed.trim()))
    };
    let seeds: Vec<u64> = match text.split_once("..") {
        Some((low, high)) => {
            let end = "a range A..B needs a seed at each end";
            let (low, high) = (parse(low, end)?, parse(high, end)?);
            if low > high {
                return Err(format!("a range A..B needs A <= B, got {low}..{high}"));
            }
            if high - low >= MAX_VALUES {
                return Err(format!("{low}..{high} is more than {MAX_VALUES} seeds"));
            }
            (low..=high).collect()
        }
        None => text
            .split(',')
            .map(|seed| parse(seed, "an empty item between commas is not a seed"))
            .collect::<Result<_, _>>()?,
    };
    // A repeated seed would run twice and weigh twice in the median.
    let mut listed = std::collections::HashSet::with_capacity(seeds.len());
    for seed in &seeds {
        if !listed.insert(*seed) {
            return Err(format!("seed {seed} is listed twice"));
        }
    }
    Ok(Seeds(seeds))
}

/// The settings of point `index`: mixed-radix digits with the last flag fastest.
pub fn settings_of(vary: &[Vary], mut index: u64) -> Vec<(String, String)> {
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
pub fn pointer_of(path: &str) -> String {
    path.split('.')
        .map(|segment| format!("/{}", segment.replace('~', "~0").replace('/', "~1")))
        .collect()
}

pub fn assignment(path: &str, value: &str) -> String {
    format!("{path}={value}")
}

/// How many points the product of `vary` has, or `None` past [`MAX_RUNS`].
pub fn point_count(vary: &[Vary]) -> Option<u64> {
    vary.iter()
        .try_fold(1u64, |product, flag| {
            product.checked_mul(flag.values.len() as u64)
        })
        .filter(|&count| count <= MAX_RUNS)
}

/// One point of a sweep, checked: its settings as written, the same values as the
/// scenario JSON holds them (`2`, `"4.6"`, `false`), and the scenario they give.
#[derive(Clone, Debug)]
pub struct PointScenario {
    pub settings: Vec<(String, String)>,
    pub typed: Vec<(String, Value)>,
    pub scenario: Scenario,
}

/// Point `index`'s settings applied to a scenario, before it is checked as one.
pub struct PointValue {
    /// Each varied path and its value as written.
    pub settings: Vec<(String, String)>,
    /// Each varied path and its value as the schema types it.
    pub typed: Vec<(String, Value)>,
    /// The scenario with the settings applied, as JSON.
    pub value: Value,
}

impl PointValue {
    /// The point's settings as `PATH=VALUE` words, as a problem names the point.
    pub fn label(&self) -> String {
        let words: Vec<String> = self
            .settings
            .iter()
            .map(|(path, value)| assignment(path, value))
            .collect();
        words.join(" ")
    }
}

/// Applies point `index`'s settings to `base` (a scenario as JSON), not yet checked
/// as a scenario. A value the schema's type refuses is said as `--vary PATH: message`.
pub fn point_value(base: &Value, vary: &[Vary], index: u64) -> Result<PointValue, String> {
    let schema = schema_value();
    let settings = settings_of(vary, index);
    let mut scratch = base.clone();
    let mut typed = Vec::new();
    let mut problems = Vec::new();
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
                let message = message
                    .strip_prefix(&format!("`{path}`: "))
                    .unwrap_or(&message);
                problems.push(format!("--vary {path}: {message}"));
            }
        }
    }
    if !problems.is_empty() {
        return Err(problems.join("\n"));
    }
    Ok(PointValue {
        settings,
        typed,
        value: scratch,
    })
}

/// Checks a point's scenario: a scenario the settings make wrong is said with the
/// point's settings.
pub fn check_point(point: &PointValue, index: u64) -> Result<Scenario, String> {
    scenario_from_value(&point.value).map_err(|errors| {
        let first = errors
            .iter()
            .map(|error| format!("{}: {}", error.path, error.message))
            .collect::<Vec<_>>()
            .join("; ");
        format!("point {index} ({}): {first}", point.label())
    })
}

/// Applies point `index`'s settings to `base` (a scenario as JSON) and checks the
/// result. A value the schema refuses is said as `--vary PATH: message`; a scenario
/// the settings make wrong, with the point's settings.
pub fn point_scenario(base: &Value, vary: &[Vary], index: u64) -> Result<PointScenario, String> {
    let point = point_value(base, vary, index)?;
    let scenario = check_point(&point, index)?;
    Ok(PointScenario {
        settings: point.settings,
        typed: point.typed,
        scenario,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_path_varied_twice_or_a_value_listed_twice_is_refused() {
        let twice = [
            parse_vary("kernel=4.6").unwrap(),
            parse_vary("kernel=6.5").unwrap(),
        ];
        assert_eq!(
            check_vary_list(&twice).unwrap_err(),
            "`kernel` is varied twice (`kernel=4.6` and `kernel=6.5`): give its values in one list, `kernel=4.6,6.5`"
        );
        let repeated = [
            parse_vary("duration_ms=100").unwrap(),
            parse_vary("knobs.hz=100, 250,100").unwrap(),
        ];
        assert_eq!(
            check_vary_list(&repeated).unwrap_err(),
            "`knobs.hz=100, 250,100` lists 100 twice"
        );
        assert_eq!(
            check_vary_list(&[parse_vary("a=1..3").unwrap(), parse_vary("b=1,2").unwrap()]),
            Ok(())
        );
    }

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
    fn a_long_range_is_checked_for_repeats_in_one_pass() {
        // 100,000 values: compared pairwise, this took minutes.
        let started = std::time::Instant::now();
        let vary = parse_vary("workloads.0.worker_threads=1..100000").unwrap();
        assert_eq!(check_vary_list(&[vary]), Ok(()));
        assert!(started.elapsed() < std::time::Duration::from_secs(5));
        assert_eq!(parse_seeds("0..99999").unwrap().0.len(), 100_000);
        assert!(check_vary_list(&[parse_vary("seed=1,2").unwrap()])
            .unwrap_err()
            .contains("list the seeds there"));
        assert!(started.elapsed() < std::time::Duration::from_secs(5));
        assert!(check_vary_list(&[parse_vary("a=1,2, 1").unwrap()])
            .unwrap_err()
            .contains("lists 1 twice"));
    }

    #[test]
    fn seeds_parse() {
        assert_eq!(parse_seeds("1..5").unwrap().0, [1, 2, 3, 4, 5]);
        assert_eq!(parse_seeds("7, 3,9").unwrap().0, [7, 3, 9]);
        assert!(parse_seeds("3..1").is_err());
        assert!(parse_seeds("1,x")
            .unwrap_err()
            .contains("`x` is not a seed"));
        assert_eq!(
            parse_seeds("1,,3").unwrap_err(),
            "an empty item between commas is not a seed"
        );
        // The range's message does not repeat the flag its caller names.
        assert_eq!(
            parse_vary("a=5..1").unwrap_err(),
            "a range A..B needs A <= B, got 5..1"
        );
        assert!(parse_seeds("1,2,1").unwrap_err().contains("listed twice"));
        assert_eq!(
            parse_seeds("  ").unwrap_err(),
            "no seed is given: write a list (1,2,3) or a range (1..5)"
        );
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

    #[test]
    fn a_point_types_its_values_and_checks_its_scenario() {
        let text = include_str!("../../../scenarios/teaching-small.json");
        let base = crate::parse_json(text).unwrap();
        let vary = [
            parse_vary("seed=3,4").unwrap(),
            parse_vary("kernel=4.6,6.5").unwrap(),
        ];
        let point = point_scenario(&base, &vary, 2).unwrap();
        assert_eq!(point.typed[0].1, serde_json::json!(4));
        assert_eq!(point.typed[1].1, serde_json::json!("4.6"));
        assert_eq!(point.scenario.seed, 4);
        let bad = [parse_vary("seed=x").unwrap()];
        let message = point_scenario(&base, &bad, 0).unwrap_err();
        assert!(message.starts_with("--vary seed:"), "{message}");
        let nowhere = [parse_vary("nope.field=1").unwrap()];
        assert!(point_scenario(&base, &nowhere, 0).is_err());
    }
}
