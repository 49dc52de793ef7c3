//! turbo_bench (the series' benchmark): N CPU-bound threads, J short "jitter" threads and a polling main thread.

use super::{forever, plan, run, Expansion};
use crate::behaviour::{Dist, Op};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// How turbo_bench's low-utilisation threads are classified (its `-j` and `-u`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum JitterClass {
    /// `-j`: the per-task jitter attribute (`sched_setattr`, the series' v3).
    #[default]
    Jitter,
    /// `-u`: `uclamp_max` 0, which v3 also classes as jitter.
    Uclamp,
    /// Neither: the threads are ordinary tasks.
    None,
}

/// `turbo_bench -t T -h N -n (N + J)`: N CPU-bound threads and J low-utilisation
/// ("jitter") threads, created 1 ms apart, high-utilisation ones first, and the main
/// thread that polls for the end every 100 us.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct TurboBenchSpec {
    /// N (`-h`): CPU-bound threads.
    #[schemars(range(min = 1, max = 4096))]
    pub cpu_bound: u32,
    /// J: jitter threads (default N, as the seed's `-h N -n 2N`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(range(max = 4096))]
    pub jitter_tasks: Option<u32>,
    /// A jitter thread's burst, in microseconds (default 30: its 40,000 additions).
    #[serde(default = "jitter_run_us")]
    pub jitter_run_us: f64,
    /// A jitter thread's period, in microseconds: it sleeps for the rest of it
    /// (default 3000, turbo_bench's `run_period`).
    #[serde(default = "jitter_period_us")]
    pub jitter_period_us: f64,
    /// How the jitter threads are classified: `jitter` (`-j`, default), `uclamp`
    /// (`-u`) or `none`.
    #[serde(default)]
    pub classify: JitterClass,
}

fn jitter_run_us() -> f64 {
    30.0
}
fn jitter_period_us() -> f64 {
    3_000.0
}

impl TurboBenchSpec {
    fn jitter_count(&self) -> u32 {
        self.jitter_tasks.unwrap_or(self.cpu_bound)
    }

    pub(crate) fn label(&self) -> String {
        format!(
            "turbo_bench: {} CPU-bound + {} jitter",
            self.cpu_bound,
            self.jitter_count()
        )
    }

    pub(crate) fn check(&self) -> Vec<(String, String)> {
        let mut errors = Vec::new();
        super::at_least_one(&mut errors, "cpu_bound", self.cpu_bound as u64);
        for (field, value) in [
            ("jitter_run_us", self.jitter_run_us),
            ("jitter_period_us", self.jitter_period_us),
        ] {
            if !(value.is_finite() && value > 0.0) {
                errors.push((
                    field.into(),
                    format!("must be a positive number of microseconds, got {value}"),
                ));
            }
        }
        if self.jitter_run_us.is_finite()
            && self.jitter_period_us.is_finite()
            && self.jitter_run_us >= self.jitter_period_us
        {
            errors.push((
                "jitter_run_us".into(),
                format!(
                    "must be shorter than jitter_period_us ({} us), got {}",
                    self.jitter_period_us, self.jitter_run_us
                ),
            ));
        }
        errors
    }

    pub(crate) fn task_count(&self) -> u64 {
        1 + self.cpu_bound as u64 + self.jitter_count() as u64
    }

    pub(crate) fn expand(&self) -> Expansion {
        let mut expansion = Expansion::rate("loops/s");
        // The main thread: creates the threads, then polls every 100 us.
        let main = expansion.program(&forever(vec![
            run(2.0),
            Op::Sleep {
                duration: Dist::fixed_us(100.0),
            },
        ]));
        // CPU-bound: 1 ms loops, counted. Jitter: a short burst, then sleep out the
        // period (`usleep(run_period - wall_clock)`); not counted.
        let cpu_bound = expansion.program(&forever(vec![run(1000.0), Op::Complete]));
        let jitter = expansion.program(&forever(vec![
            run(self.jitter_run_us),
            Op::Sleep {
                duration: Dist::fixed_us(self.jitter_period_us - self.jitter_run_us),
            },
        ]));
        expansion.spawn(1, plan("turbo_bench", main, 0, 16));
        // pthread_create() then usleep(1000), high-utilisation threads first.
        for idx in 0..self.cpu_bound {
            let mut template = plan("turbo_bench", cpu_bound, 0, 256);
            template.start_us = 1000 * (idx as u64 + 1);
            expansion.spawn(1, template);
        }
        for idx in 0..self.jitter_count() {
            let mut template = plan("turbo_jitter", jitter, 0, 16);
            template.start_us = 1000 * (self.cpu_bound as u64 + idx as u64 + 1);
            match self.classify {
                JitterClass::Jitter => template.jitter = true,
                JitterClass::Uclamp => template.uclamp_max = Some(0),
                JitterClass::None => {}
            }
            expansion.spawn(1, template);
        }
        expansion
    }
}
