//! A kernel compile (`make -j JOBS`): compiler jobs working through compile units.

use super::{plan, run_exp, Expansion, ThroughputKind};
use crate::behaviour::{Dist, Op};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct KcompileSpec {
    /// `make -j JOBS`: compiler jobs running at once.
    #[schemars(range(min = 1, max = 4096))]
    pub jobs: u32,
    /// Compilation units in the build (each is one job).
    #[schemars(range(min = 1, max = 1000000))]
    pub units: u32,
    /// Mean CPU time of one unit, in milliseconds (default 120).
    #[serde(default = "kcompile_unit_ms")]
    pub unit_ms: f64,
    /// Data a compiler keeps in cache, in KiB (default 2048: large, little reuse).
    #[serde(default = "two_thousand_forty_eight")]
    #[schemars(range(max = 1048576))]
    pub footprint_kib: u64,
}

fn kcompile_unit_ms() -> f64 {
    120.0
}
fn two_thousand_forty_eight() -> u64 {
    2048
}

impl KcompileSpec {
    pub(crate) fn label(&self) -> String {
        format!("make -j{} ({} units)", self.jobs, self.units)
    }

    pub(crate) fn check(&self) -> Vec<(String, String)> {
        let mut errors = Vec::new();
        super::at_least_one(&mut errors, "jobs", self.jobs as u64);
        super::at_least_one(&mut errors, "units", self.units as u64);
        if !(self.unit_ms.is_finite() && self.unit_ms > 0.0) {
            errors.push((
                "unit_ms".into(),
                format!(
                    "must be a positive number of milliseconds, got {}",
                    self.unit_ms
                ),
            ));
        }
        errors
    }

    pub(crate) fn task_count(&self) -> u64 {
        self.jobs.min(self.units) as u64
    }

    pub(crate) fn expand(&self) -> Expansion {
        let mut expansion = Expansion::new(ThroughputKind::CompletionTime {
            fallback_unit: "units/s".into(),
        });
        // `make` keeps `jobs` compilers running; each job slot works through its share
        // of the units. A unit is CPU work in a few bursts with short reads in between.
        // Simplification: a slot is one long-lived task rather than a new process per unit.
        let slots = self.jobs.min(self.units);
        let unit_us = self.unit_ms * 1000.0;
        for slot in 0..slots {
            let share = self.units / slots + u32::from(slot < self.units % slots);
            let program = expansion.program(&[Op::Loop {
                count: Some(share),
                body: vec![
                    Op::Loop {
                        count: Some(4),
                        body: vec![
                            run_exp(unit_us / 4.0),
                            Op::Sleep {
                                duration: Dist::Exponential { mean_us: 150.0 },
                            },
                        ],
                    },
                    Op::Complete,
                ],
            }]);
            let leader = expansion.tasks.len();
            let mut template = plan("cc1", program, leader, self.footprint_kib);
            template.record_latency = true;
            expansion.spawn(1, template);
        }
        expansion
    }
}
