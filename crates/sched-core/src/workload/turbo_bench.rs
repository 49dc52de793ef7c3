//! turbo_bench: N CPU-bound tasks and 2N short "jitter" tasks.

use super::{forever, plan, run, run_exp, Expansion};
use crate::behaviour::{Dist, Op};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct TurboBenchSpec {
    /// N: CPU-bound tasks; 2N jitter tasks run beside them.
    #[schemars(range(min = 1, max = 4096))]
    pub cpu_bound: u32,
    /// A jitter task's burst, in microseconds (default 200).
    #[serde(default = "jitter_run_us")]
    pub jitter_run_us: f64,
    /// A jitter task's sleep between bursts, in microseconds (default 10000).
    #[serde(default = "jitter_sleep_us")]
    pub jitter_sleep_us: f64,
}

fn jitter_run_us() -> f64 {
    200.0
}
fn jitter_sleep_us() -> f64 {
    10_000.0
}

impl TurboBenchSpec {
    pub(crate) fn label(&self) -> String {
        format!(
            "turbo_bench: {} CPU-bound + {} jitter",
            self.cpu_bound,
            2 * self.cpu_bound
        )
    }

    pub(crate) fn check(&self) -> Vec<(String, String)> {
        let mut errors = Vec::new();
        super::at_least_one(&mut errors, "cpu_bound", self.cpu_bound as u64);
        for (field, value) in [
            ("jitter_run_us", self.jitter_run_us),
            ("jitter_sleep_us", self.jitter_sleep_us),
        ] {
            if !(value.is_finite() && value > 0.0) {
                errors.push((
                    field.into(),
                    format!("must be a positive number of microseconds, got {value}"),
                ));
            }
        }
        errors
    }

    pub(crate) fn task_count(&self) -> u64 {
        3 * self.cpu_bound as u64
    }

    pub(crate) fn expand(&self) -> Expansion {
        let mut expansion = Expansion::rate("loops/s");
        // CPU-bound: 1 ms loops, counted. Jitter: short bursts, long sleeps, not counted.
        let cpu_bound = expansion.program(&forever(vec![run(1000.0), Op::Complete]));
        let jitter = expansion.program(&forever(vec![
            run_exp(self.jitter_run_us),
            Op::Sleep {
                duration: Dist::Exponential {
                    mean_us: self.jitter_sleep_us,
                },
            },
        ]));
        expansion.spawn(self.cpu_bound, plan("turbo_bench", cpu_bound, 0, 256));
        let mut template = plan("jitter", jitter, 0, 16);
        template.jitter = true;
        expansion.spawn(2 * self.cpu_bound, template);
        expansion
    }
}
