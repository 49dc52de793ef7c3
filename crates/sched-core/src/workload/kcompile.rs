//! A kernel compile (`make -j JOBS`): a job server forking one compiler process per unit.

use super::{plan, post, run, run_exp, wait, Expansion, ThroughputKind};
use crate::behaviour::{Dist, Op};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// The job server's channel: one token per free job slot.
const JOBSERVER: &str = "jobserver";
/// `make`'s own CPU time per unit (reading the recipe, `fork()` and `exec()`), in
/// microseconds.
const MAKE_FORK_US: f64 = 50.0;
/// Data `make` keeps warm, in KiB.
const MAKE_FOOTPRINT_KIB: u64 = 256;

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

    /// `make` and one process per unit.
    pub(crate) fn task_count(&self) -> u64 {
        1 + self.units as u64
    }

    /// `make` is a job server, as GNU make is: it holds `jobs` tokens, and for each
    /// unit takes one (blocking while none is free), does a little work of its own
    /// and forks a compiler for the unit. The compiler is a new process placed by
    /// the fork path; it runs the unit as CPU work in a few bursts with short reads
    /// in between, then gives the token back (its exit wakes `make`, a synchronous
    /// wakeup as `__wake_up_parent` makes) and exits.
    ///
    /// Simplification: `make` exits after forking the last unit instead of waiting
    /// for its children, so the build ends when the last unit exits.
    pub(crate) fn expand(&self) -> Expansion {
        let mut expansion = Expansion::new(ThroughputKind::CompletionTime {
            fallback_unit: "units/s".into(),
        });
        expansion.channels.with_tokens(JOBSERVER, self.jobs as u64);
        let compilers = expansion.pool();
        let unit_us = self.unit_ms * 1000.0;
        let make = expansion.program(&[Op::Loop {
            count: Some(self.units),
            body: vec![
                wait(JOBSERVER),
                run(MAKE_FORK_US),
                Op::Spawn { pool: compilers },
            ],
        }]);
        let compiler = expansion.program(&[
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
            post(JOBSERVER, true),
        ]);
        expansion.spawn(1, plan("make", make, 0, MAKE_FOOTPRINT_KIB));
        for _ in 0..self.units {
            let leader = expansion.tasks.len();
            let mut template = plan("cc1", compiler, leader, self.footprint_kib);
            template.record_latency = true;
            template.pool = Some(compilers);
            expansion.spawn(1, template);
        }
        expansion
    }
}
