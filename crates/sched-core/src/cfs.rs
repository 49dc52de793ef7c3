//! CFS arithmetic and tunables: vruntime scaling, the period and slices, wakeup
//! granularity and sleeper placement (pre-EEVDF `kernel/sched/fair.c`).

use crate::task::NICE_0_LOAD;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// Named sets of tunables.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum KnobPreset {
    /// The kernel's defaults, scaled by CPU count (`SCHED_TUNABLESCALING_LOG`).
    #[default]
    Default,
    /// The HHVM tuning reported with the SHARED_RUNQ series: migration_cost 0, latency 20 ms, min_granularity 10 ms,
    /// wakeup_granularity 12 ms.
    Hhvm,
}

/// The scheduler tunables as a scenario writes them; absent fields take the preset's value.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct KnobsSpec {
    #[serde(default)]
    pub preset: KnobPreset,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(range(min = 100000, max = 1000000000))]
    pub sched_latency_ns: Option<u64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(range(min = 100000, max = 1000000000))]
    pub sched_min_granularity_ns: Option<u64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(range(max = 1000000000))]
    pub sched_wakeup_granularity_ns: Option<u64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(range(max = 1000000000))]
    pub sched_migration_cost_ns: Option<u64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(range(min = 1, max = 4096))]
    pub sched_nr_migrate: Option<u32>,
    /// Timer interrupt frequency (CONFIG_HZ).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(range(min = 100, max = 1000))]
    pub hz: Option<u32>,
}

/// Resolved tunables, in nanoseconds.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Knobs {
    pub sched_latency_ns: u64,
    pub sched_min_granularity_ns: u64,
    pub sched_wakeup_granularity_ns: u64,
    pub sched_migration_cost_ns: u64,
    pub sched_nr_migrate: u32,
    pub hz: u32,
}

/// Unscaled defaults (`sysctl_sched_*` before `update_sysctl()` scales them).
pub const BASE_LATENCY_NS: u64 = 6_000_000;
pub const BASE_MIN_GRANULARITY_NS: u64 = 750_000;
pub const BASE_WAKEUP_GRANULARITY_NS: u64 = 1_000_000;
pub const DEFAULT_MIGRATION_COST_NS: u64 = 500_000;
pub const DEFAULT_NR_MIGRATE: u32 = 32;
pub const DEFAULT_HZ: u32 = 250;

/// `get_update_sysctl_factor()` with log scaling: `1 + ilog2(min(ncpus, 8))`.
pub fn tunable_scaling_factor(n_cpus: usize) -> u64 {
    let capped = n_cpus.clamp(1, 8) as u64;
    1 + (63 - capped.leading_zeros() as u64)
}

impl KnobsSpec {
    pub fn resolve(&self, n_cpus: usize) -> Knobs {
        let factor = tunable_scaling_factor(n_cpus);
        let base = match self.preset {
            KnobPreset::Default => Knobs {
                sched_latency_ns: BASE_LATENCY_NS * factor,
                sched_min_granularity_ns: BASE_MIN_GRANULARITY_NS * factor,
                sched_wakeup_granularity_ns: BASE_WAKEUP_GRANULARITY_NS * factor,
                sched_migration_cost_ns: DEFAULT_MIGRATION_COST_NS,
                sched_nr_migrate: DEFAULT_NR_MIGRATE,
                hz: DEFAULT_HZ,
            },
            KnobPreset::Hhvm => Knobs {
                sched_latency_ns: 20_000_000,
                sched_min_granularity_ns: 10_000_000,
                sched_wakeup_granularity_ns: 12_000_000,
                sched_migration_cost_ns: 0,
                sched_nr_migrate: DEFAULT_NR_MIGRATE,
                hz: DEFAULT_HZ,
            },
        };
        Knobs {
            sched_latency_ns: self.sched_latency_ns.unwrap_or(base.sched_latency_ns),
            sched_min_granularity_ns: self
                .sched_min_granularity_ns
                .unwrap_or(base.sched_min_granularity_ns),
            sched_wakeup_granularity_ns: self
                .sched_wakeup_granularity_ns
                .unwrap_or(base.sched_wakeup_granularity_ns),
            sched_migration_cost_ns: self
                .sched_migration_cost_ns
                .unwrap_or(base.sched_migration_cost_ns),
            sched_nr_migrate: self.sched_nr_migrate.unwrap_or(base.sched_nr_migrate),
            hz: self.hz.unwrap_or(base.hz),
        }
    }
}

impl Knobs {
    pub fn tick_ns(&self) -> u64 {
        1_000_000_000 / self.hz as u64
    }

    /// `sched_nr_latency`: how many tasks fit in one latency period at min granularity.
    pub fn nr_latency(&self) -> u64 {
        (self.sched_latency_ns / self.sched_min_granularity_ns.max(1)).max(1)
    }

    /// `__sched_period()`: the latency target, stretched when too many tasks are runnable.
    pub fn sched_period(&self, nr_running: u32) -> u64 {
        if nr_running as u64 > self.nr_latency() {
            nr_running as u64 * self.sched_min_granularity_ns
        } else {
            self.sched_latency_ns
        }
    }

    /// `sched_slice()`: a task's weighted share of the period. `rq_weight` includes the task.
    pub fn sched_slice(&self, nr_running: u32, weight: u32, rq_weight: u64) -> u64 {
        let period = self.sched_period(nr_running);
        if rq_weight == 0 {
            return period;
        }
        ((period as u128 * weight as u128) / rq_weight as u128) as u64
    }

    /// `wakeup_gran()`: the granularity in the woken task's virtual time.
    pub fn wakeup_gran(&self, woken_weight: u32) -> u64 {
        calc_delta_fair(self.sched_wakeup_granularity_ns, woken_weight)
    }

    /// `place_entity()` for a wakeup (GENTLE_FAIR_SLEEPERS): a sleeper gets at most half
    /// a latency period of credit.
    pub fn place_woken(&self, vruntime: u64, min_vruntime: u64) -> u64 {
        vruntime.max(min_vruntime.saturating_sub(self.sched_latency_ns / 2))
    }
}

/// `calc_delta_fair()`: real time to virtual time for an entity of this weight.
pub fn calc_delta_fair(delta_ns: u64, weight: u32) -> u64 {
    if weight as u64 == NICE_0_LOAD {
        return delta_ns;
    }
    ((delta_ns as u128 * NICE_0_LOAD as u128) / weight.max(1) as u128) as u64
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn defaults_scale_with_log_cpus() {
        assert_eq!(tunable_scaling_factor(1), 1);
        assert_eq!(tunable_scaling_factor(2), 2);
        assert_eq!(tunable_scaling_factor(4), 3);
        assert_eq!(tunable_scaling_factor(64), 4);
        let knobs = KnobsSpec::default().resolve(40);
        assert_eq!(knobs.sched_latency_ns, 24_000_000);
        assert_eq!(knobs.sched_min_granularity_ns, 3_000_000);
        assert_eq!(knobs.sched_wakeup_granularity_ns, 4_000_000);
        assert_eq!(knobs.nr_latency(), 8);
    }

    #[test]
    fn period_stretches_past_nr_latency() {
        let knobs = KnobsSpec::default().resolve(8);
        assert_eq!(knobs.sched_period(8), 24_000_000);
        assert_eq!(knobs.sched_period(10), 30_000_000);
        assert_eq!(knobs.sched_slice(2, 1024, 2048), 12_000_000);
    }

    #[test]
    fn heavier_tasks_age_slower() {
        assert_eq!(calc_delta_fair(1000, 1024), 1000);
        assert_eq!(calc_delta_fair(1000, 2048), 500);
        assert!(calc_delta_fair(1000, 335) > 3000);
    }

    #[test]
    fn hhvm_preset() {
        let spec = KnobsSpec {
            preset: KnobPreset::Hhvm,
            ..Default::default()
        };
        let knobs = spec.resolve(256);
        assert_eq!(knobs.sched_migration_cost_ns, 0);
        assert_eq!(knobs.sched_latency_ns, 20_000_000);
    }
}
