//! The median, min and max of several runs' summaries, field by field: what `schedlab sweep` and the app's sweeps report per point.

use serde_json::{Map, Number, Value};

/// The median, min and max of several runs' summaries, each shaped like one summary.
pub struct Spread {
    pub median: Value,
    pub min: Value,
    pub max: Value,
}

/// Combines runs field by field: every number (at any depth, list entries matched by
/// position) becomes its median, min and max over the runs; anything else (a unit, a
/// name, a trace hash) is taken from the first run.
pub fn spread(runs: &[Value]) -> Spread {
    let all: Vec<&Value> = runs.iter().collect();
    spread_of(&all)
}

fn spread_of(values: &[&Value]) -> Spread {
    let Some(first) = values.first() else {
        return Spread {
            median: Value::Null,
            min: Value::Null,
            max: Value::Null,
        };
    };
    match first {
        Value::Number(_) => {
            let numbers: Vec<&Number> = values
                .iter()
                .filter_map(|value| value.as_number())
                .collect();
            number_spread(&numbers)
        }
        Value::Object(fields) => {
            let mut median = Map::new();
            let mut min = Map::new();
            let mut max = Map::new();
            for key in fields.keys() {
                // Runs of one scenario have the same keys; a key some run lacks is
                // combined over the runs that have it.
                let children: Vec<&Value> =
                    values.iter().filter_map(|value| value.get(key)).collect();
                let child = spread_of(&children);
                median.insert(key.clone(), child.median);
                min.insert(key.clone(), child.min);
                max.insert(key.clone(), child.max);
            }
            Spread {
                median: Value::Object(median),
                min: Value::Object(min),
                max: Value::Object(max),
            }
        }
        Value::Array(items) => {
            let mut median = Vec::with_capacity(items.len());
            let mut min = Vec::with_capacity(items.len());
            let mut max = Vec::with_capacity(items.len());
            for position in 0..items.len() {
                let children: Vec<&Value> = values
                    .iter()
                    .filter_map(|value| value.get(position))
                    .collect();
                let child = spread_of(&children);
                median.push(child.median);
                min.push(child.min);
                max.push(child.max);
            }
            Spread {
                median: Value::Array(median),
                min: Value::Array(min),
                max: Value::Array(max),
            }
        }
        other => Spread {
            median: (*other).clone(),
            min: (*other).clone(),
            max: (*other).clone(),
        },
    }
}

/// Median, min and max of numbers. Integers stay exact integers (counters such as
/// `events` exceed f64's 53 bits in long runs); the median of an even count is the
/// mean of the two middle values, an integer only when that mean is whole.
fn number_spread(numbers: &[&Number]) -> Spread {
    let integers: Option<Vec<i128>> = numbers.iter().map(|number| integer_of(number)).collect();
    match integers {
        Some(mut integers) if !integers.is_empty() => {
            integers.sort_unstable();
            let count = integers.len();
            let median = if count % 2 == 1 {
                integer_value(integers[count / 2])
            } else {
                let sum = integers[count / 2 - 1] + integers[count / 2];
                if sum % 2 == 0 {
                    integer_value(sum / 2)
                } else {
                    Value::from(sum as f64 / 2.0)
                }
            };
            Spread {
                median,
                min: integer_value(integers[0]),
                max: integer_value(integers[count - 1]),
            }
        }
        _ => {
            let mut floats: Vec<f64> = numbers
                .iter()
                .filter_map(|number| number.as_f64())
                .collect();
            floats.sort_by(f64::total_cmp);
            let count = floats.len();
            if count == 0 {
                return Spread {
                    median: Value::Null,
                    min: Value::Null,
                    max: Value::Null,
                };
            }
            let median = if count % 2 == 1 {
                floats[count / 2]
            } else {
                let (low, high) = (floats[count / 2 - 1], floats[count / 2]);
                let mean = (low + high) / 2.0;
                // Two huge values can overflow their sum; halving first cannot.
                if mean.is_finite() {
                    mean
                } else {
                    low / 2.0 + high / 2.0
                }
            };
            Spread {
                median: Value::from(median),
                min: Value::from(floats[0]),
                max: Value::from(floats[count - 1]),
            }
        }
    }
}

fn integer_of(number: &Number) -> Option<i128> {
    number
        .as_u64()
        .map(i128::from)
        .or_else(|| number.as_i64().map(i128::from))
}

/// An exact integer back as JSON.
fn integer_value(value: i128) -> Value {
    // The inputs were u64 or i64, and so are their min, max and whole means.
    match (u64::try_from(value), i64::try_from(value)) {
        (Ok(unsigned), _) => Value::from(unsigned),
        (_, Ok(signed)) => Value::from(signed),
        _ => Value::from(value as f64),
    }
}

#[cfg(test)]
mod tests {
    use super::spread;
    use serde_json::json;

    #[test]
    fn numbers_at_any_depth_get_median_min_and_max() {
        let runs = vec![
            json!({"seed": 1, "latency": {"p99": 30.0}, "throughput": {"unit": "req/s", "value": 5.0},
                   "locks": [{"class": "rq", "n": 4}], "hash": "aa", "ok": true}),
            json!({"seed": 2, "latency": {"p99": 10.0}, "throughput": {"unit": "req/s", "value": 9.0},
                   "locks": [{"class": "rq", "n": 1}], "hash": "bb", "ok": false}),
            json!({"seed": 3, "latency": {"p99": 20.0}, "throughput": {"unit": "req/s", "value": 7.0},
                   "locks": [{"class": "rq", "n": 2}], "hash": "cc", "ok": false}),
        ];
        let result = spread(&runs);
        assert_eq!(
            result.median,
            json!({"seed": 2, "latency": {"p99": 20.0}, "throughput": {"unit": "req/s", "value": 7.0},
                   "locks": [{"class": "rq", "n": 2}], "hash": "aa", "ok": true})
        );
        assert_eq!(result.min["latency"]["p99"], json!(10.0));
        assert_eq!(result.max["locks"][0]["n"], json!(4));
        assert_eq!(result.max["hash"], json!("aa"));
    }

    #[test]
    fn an_even_count_takes_the_mean_of_the_middle_two() {
        let runs = vec![
            json!({"n": 1, "x": 1.0}),
            json!({"n": 4, "x": 2.0}),
            json!({"n": 2, "x": 4.0}),
            json!({"n": 9, "x": 8.0}),
        ];
        let result = spread(&runs);
        assert_eq!(result.median, json!({"n": 3, "x": 3.0}));
        let runs = vec![json!(1), json!(2)];
        assert_eq!(spread(&runs).median, json!(1.5));
        // Integers beyond f64's precision stay exact.
        let big = u64::MAX - 1;
        let runs = vec![json!(big), json!(big)];
        assert_eq!(spread(&runs).median, json!(big));
    }
}
