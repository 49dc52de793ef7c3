//! Kernel versions: which variant of each baseline path a scenario's `kernel` selects,
//! and the `features` that override one path at a time.
//!
//! The five patch series the model comes from were written against five kernels
//! (4.6, 5.2, 5.18/6.0, 6.5 and 6.15), and each result depends on the baseline it
//! patched. A version resolves to a [`Features`] set: a `sched_feat` flag where the
//! kernel has one (`SIS_PROP`, `SIS_UTIL`, `WA_IDLE`, `WA_WEIGHT`, `WA_BIAS`,
//! `TTWU_QUEUE`), and a plain variant name where the code changed without a flag
//! (`select_idle_sibling: "4.6"`). The fair class itself is pre-EEVDF CFS in every
//! version here; EEVDF (6.6) will be one more variant of [`FairClass`].

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// A kernel version, `major.minor`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct KernelVersion {
    pub major: u16,
    pub minor: u16,
}

impl KernelVersion {
    pub const fn new(major: u16, minor: u16) -> Self {
        KernelVersion { major, minor }
    }

    /// Reads `"5.18"` (a third component, `"5.18.3"`, is accepted and ignored).
    pub fn parse(text: &str) -> Result<KernelVersion, String> {
        let mut parts = text.trim().split('.');
        let number = |part: Option<&str>| part.and_then(|part| part.parse::<u16>().ok());
        let (Some(major), Some(minor)) = (number(parts.next()), number(parts.next())) else {
            return Err(format!(
                "`{text}` is not a kernel version: write it as MAJOR.MINOR, for example \"5.18\""
            ));
        };
        let version = KernelVersion { major, minor };
        if version < OLDEST {
            return Err(format!(
                "kernel {version} is older than the oldest modelled, {OLDEST}"
            ));
        }
        if version > NEWEST {
            return Err(format!(
                "kernel {version} is not modelled: 6.6 replaced CFS with EEVDF, which is not modelled yet; the newest modelled is {NEWEST}"
            ));
        }
        Ok(version)
    }
}

impl std::fmt::Display for KernelVersion {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}.{}", self.major, self.minor)
    }
}

pub const OLDEST: KernelVersion = KernelVersion::new(4, 6);
pub const NEWEST: KernelVersion = KernelVersion::new(6, 5);
/// The version a scenario without a `kernel` field runs.
pub const DEFAULT_KERNEL: &str = "6.5";

/// The versions `schedlab list` tabulates: the seeds' kernels and each version where
/// a modelled path changed. Any version between the oldest and the newest is accepted.
pub const LISTED_VERSIONS: &[&str] = &[
    "4.6", "4.9", "4.11", "4.13", "4.14", "4.16", "5.2", "5.5", "5.6", "5.10", "5.11", "5.12",
    "5.16", "5.18", "6.0", "6.5",
];

/// The fair class: which scheduler picks the next task.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum FairClass {
    /// CFS with vruntime, slices from `sched_latency` and wakeup granularity (to 6.5).
    Cfs,
}

/// `wake_affine()`: how a wakeup chooses between the waker's CPU and the previous CPU.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub enum WakeAffineVariant {
    /// 4.x before 4.14: one load comparison (`effective_load`), the waker's CPU load
    /// plus the wakee against the previous CPU's load, with half the imbalance margin.
    #[serde(rename = "4.6")]
    Load,
    /// 4.14+: `wake_affine_idle()` (an idle CPU wins), then `wake_affine_weight()`.
    #[serde(rename = "4.14")]
    IdleThenWeight,
}

/// `select_idle_sibling()`: how a wakeup looks for an idle CPU in the target's LLC.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub enum SisVariant {
    /// 4.6: the target, the previous CPU, then walking down from the LLC domain a
    /// group (core) whose CPUs are all idle, then an idle sibling of the target. An
    /// idle thread of a partly busy core elsewhere is never taken.
    #[serde(rename = "4.6")]
    Groups,
    /// 4.9-5.11: `select_idle_core()`, then `select_idle_cpu()` (bounded by
    /// SIS_AVG_CPU or SIS_PROP), then `select_idle_smt()` of the target.
    #[serde(rename = "4.9")]
    CoreCpuSmt,
    /// 5.12+: one pass: an idle core while the LLC has one (unbounded), else an idle
    /// sibling of the previous CPU, then an idle CPU (bounded by SIS_PROP or SIS_UTIL).
    #[serde(rename = "5.12")]
    SinglePass,
}

/// `find_idlest_group()`: how fork placement compares groups.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub enum IdlestGroupVariant {
    /// Before 4.10: by runnable load alone (`target_load()`), staying local unless a
    /// remote group is lighter by the imbalance margin.
    #[serde(rename = "load")]
    Load,
    /// 4.10 to 5.4: by runnable load, and when two groups' runnable loads are within
    /// the margin, by `avg_load`, which counts the blocked load of sleeping tasks
    /// (`cfs_rq_load_avg()`), so a CPU whose tasks just went to sleep looks busy.
    #[serde(rename = "load_blocked")]
    LoadBlocked,
    /// 5.5+: by `group_type` (has spare, fully busy, overloaded), then idle CPUs.
    #[serde(rename = "group_type")]
    GroupType,
}

/// The NUMA rule of fork placement: when a new task stays on its parent's node.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub enum NumaForkRule {
    /// No NUMA special case: the group comparison alone decides.
    #[serde(rename = "none")]
    None,
    /// 5.5-5.10: stay local while the local node has an idle CPU.
    #[serde(rename = "5.5")]
    LocalIdle,
    /// 5.11-5.17: stay local while the local node would run fewer than 25 % of its CPUs.
    #[serde(rename = "5.11")]
    Quarter,
    /// 5.18: stay local while `local.sum_nr_running + 1 <= imb_numa_nr`.
    #[serde(rename = "5.18")]
    ImbNumaNr,
    /// 6.0: the allowance is limited to the CPUs the task may use in the local group,
    /// and only an idle-CPU difference of at most `NUMA_IMBALANCE_MIN` is ignored.
    #[serde(rename = "6.0")]
    AffinityAware,
}

/// How `load_balance()` measures an imbalance.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub enum LoadBalanceVariant {
    /// Before 5.5: by load (`avg_load`) against the domain average, with
    /// `fix_small_imbalance()` moving one task when that helps.
    #[serde(rename = "load")]
    Load,
    /// 5.5+: by migration type: tasks or idle CPUs while the local group has spare
    /// capacity, load once both are overloaded.
    #[serde(rename = "5.5")]
    MigrationType,
}

/// The NUMA rule of `load_balance()` (`adjust_numa_imbalance`): which small
/// imbalances between nodes the balancer leaves alone.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub enum NumaBalanceRule {
    /// Before 5.6: none.
    #[serde(rename = "none")]
    None,
    /// 5.6-5.10: ignore any imbalance while the busiest node runs at most 2 tasks.
    #[serde(rename = "5.6")]
    BusiestTwo,
    /// 5.11-5.17: ignore an imbalance of at most 2 tasks while the local node would
    /// run fewer than 25 % of its CPUs.
    #[serde(rename = "5.11")]
    Quarter,
    /// 5.18: ignore an imbalance (already halved) of at most 2 while the local node
    /// would run at most `imb_numa_nr` tasks.
    #[serde(rename = "5.18")]
    ImbNumaNr,
    /// 6.0: as 5.18, tested on the imbalance before it is halved.
    #[serde(rename = "6.0")]
    ImbNumaNrUnhalved,
}

/// What gates `newidle_balance()` (`idle_balance()` before 5.6).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub enum NewidleGate {
    /// Before 5.16: skip when `avg_idle < sysctl_sched_migration_cost`.
    #[serde(rename = "migration_cost")]
    MigrationCost,
    /// 5.16+: skip when `avg_idle` is shorter than the lowest domain's `max_newidle_lb_cost`.
    #[serde(rename = "max_newidle_lb_cost")]
    MaxNewidleLbCost,
}

/// The runqueue load that `wake_affine()` compares.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub enum CpuLoad {
    /// Before 5.7: `cfs_rq->runnable_load_avg`, the tasks on the runqueue only
    /// (`weighted_cpuload()`, later `cpu_runnable_load()`).
    #[serde(rename = "runnable_load_avg")]
    RunnableLoadAvg,
    /// 5.7+: `cfs_rq->avg.load_avg`, blocked load included (`cpu_load()`).
    #[serde(rename = "load_avg")]
    LoadAvg,
}

impl CpuLoad {
    /// The cfs_rq field's name, for the decision inspector.
    pub fn field(self) -> &'static str {
        match self {
            CpuLoad::RunnableLoadAvg => "runnable_load_avg",
            CpuLoad::LoadAvg => "load_avg",
        }
    }
}

/// The resolved variant of every baseline path.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub struct Features {
    pub fair_class: FairClass,
    pub wake_affine: WakeAffineVariant,
    #[serde(rename = "WA_IDLE")]
    pub wa_idle: bool,
    #[serde(rename = "WA_WEIGHT")]
    pub wa_weight: bool,
    #[serde(rename = "WA_BIAS")]
    pub wa_bias: bool,
    /// The runqueue load `wake_affine()` reads.
    pub cpu_load: CpuLoad,
    pub select_idle_sibling: SisVariant,
    /// Bound the idle-CPU scan by `avg_idle` against the LLC's `avg_scan_cost` (4.11+).
    #[serde(rename = "SIS_PROP")]
    pub sis_prop: bool,
    /// 4.9-4.10's all-or-nothing form of the same bound (`SIS_AVG_CPU`).
    #[serde(rename = "SIS_AVG_CPU")]
    pub sis_avg_cpu: bool,
    /// Bound the idle-CPU scan by the LLC's utilisation (6.0+).
    #[serde(rename = "SIS_UTIL")]
    pub sis_util: bool,
    /// Try the task's recently used CPU (4.16+).
    pub recent_used_cpu: bool,
    pub find_idlest_group: IdlestGroupVariant,
    pub numa_fork_rule: NumaForkRule,
    pub load_balance: LoadBalanceVariant,
    pub numa_balance_rule: NumaBalanceRule,
    /// A busy CPU balances `busy_factor` times less often (32 before 5.10, then 16).
    pub busy_factor: u32,
    /// A busy CPU's balance interval is one jiffy shorter, so the levels' periods are
    /// not multiples of each other (`get_sd_balance_interval()`, 5.10+).
    pub busy_interval_minus_one: bool,
    /// The balancer passes over per-CPU kernel threads before its affinity test
    /// (`can_migrate_task()`'s `kthread_is_per_cpu()`, 5.11+): they neither mark a
    /// balance `LBF_SOME_PINNED` nor count as pinned tasks it looked at.
    pub lb_ignores_pcpu_kthreads: bool,
    pub newidle_gate: NewidleGate,
    /// Queue a wakeup on another LLC's CPU to that CPU's wake list, which then takes
    /// its own runqueue lock (`ttwu_queue_wakelist`); 5.8+ also for an idle target.
    #[serde(rename = "TTWU_QUEUE")]
    pub ttwu_queue: bool,
    /// 6.0+: a wakeup onto an idle CPU of the same LLC is queued too (`ttwu_queue_cond`).
    pub ttwu_queue_idle: bool,
    /// The task a wakeup preempted gets the CPU back at the next pick if that is not
    /// unfair (`cfs_rq->last`, every CFS version up to 6.5).
    #[serde(rename = "LAST_BUDDY")]
    pub last_buddy: bool,
    /// The balancer treats the last buddy as cache hot (`task_hot()`).
    #[serde(rename = "CACHE_HOT_BUDDY")]
    pub cache_hot_buddy: bool,
}

impl Features {
    /// The paths as they were in `version`.
    pub fn of(version: KernelVersion) -> Features {
        let at_least = |major: u16, minor: u16| version >= KernelVersion::new(major, minor);
        Features {
            fair_class: FairClass::Cfs,
            wake_affine: if at_least(4, 14) {
                WakeAffineVariant::IdleThenWeight
            } else {
                WakeAffineVariant::Load
            },
            wa_idle: at_least(4, 14),
            wa_weight: at_least(4, 14),
            wa_bias: at_least(4, 14),
            cpu_load: if at_least(5, 7) {
                CpuLoad::LoadAvg
            } else {
                CpuLoad::RunnableLoadAvg
            },
            select_idle_sibling: if at_least(5, 12) {
                SisVariant::SinglePass
            } else if at_least(4, 9) {
                SisVariant::CoreCpuSmt
            } else {
                SisVariant::Groups
            },
            sis_prop: at_least(4, 13) && !at_least(6, 0),
            sis_avg_cpu: at_least(4, 9) && !at_least(4, 11),
            sis_util: at_least(6, 0),
            recent_used_cpu: at_least(4, 16),
            find_idlest_group: if at_least(5, 5) {
                IdlestGroupVariant::GroupType
            } else if at_least(4, 10) {
                IdlestGroupVariant::LoadBlocked
            } else {
                IdlestGroupVariant::Load
            },
            numa_fork_rule: if at_least(6, 0) {
                NumaForkRule::AffinityAware
            } else if at_least(5, 18) {
                NumaForkRule::ImbNumaNr
            } else if at_least(5, 11) {
                NumaForkRule::Quarter
            } else if at_least(5, 5) {
                NumaForkRule::LocalIdle
            } else {
                NumaForkRule::None
            },
            load_balance: if at_least(5, 5) {
                LoadBalanceVariant::MigrationType
            } else {
                LoadBalanceVariant::Load
            },
            numa_balance_rule: if at_least(6, 0) {
                NumaBalanceRule::ImbNumaNrUnhalved
            } else if at_least(5, 18) {
                NumaBalanceRule::ImbNumaNr
            } else if at_least(5, 11) {
                NumaBalanceRule::Quarter
            } else if at_least(5, 6) {
                NumaBalanceRule::BusiestTwo
            } else {
                NumaBalanceRule::None
            },
            busy_factor: if at_least(5, 10) { 16 } else { 32 },
            busy_interval_minus_one: at_least(5, 10),
            lb_ignores_pcpu_kthreads: at_least(5, 11),
            newidle_gate: if at_least(5, 16) {
                NewidleGate::MaxNewidleLbCost
            } else {
                NewidleGate::MigrationCost
            },
            ttwu_queue: true,
            ttwu_queue_idle: at_least(6, 0),
            // Both buddies are CFS's until EEVDF (6.6) removed LAST_BUDDY.
            last_buddy: true,
            cache_hot_buddy: true,
        }
    }
}

/// Per-path overrides of the version's choice, as a scenario writes them.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct FeaturesSpec {
    /// `wake_affine()`: "4.6" (one load comparison) or "4.14" (idle, then weight).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub wake_affine: Option<WakeAffineVariant>,
    /// `sched_feat(WA_IDLE)`: an idle waker or previous CPU wins the affine choice (4.14+).
    #[serde(rename = "WA_IDLE", default, skip_serializing_if = "Option::is_none")]
    pub wa_idle: Option<bool>,
    /// `sched_feat(WA_WEIGHT)`: compare the two CPUs' loads (4.14+).
    #[serde(rename = "WA_WEIGHT", default, skip_serializing_if = "Option::is_none")]
    pub wa_weight: Option<bool>,
    /// `sched_feat(WA_BIAS)`: give the previous CPU half the imbalance margin (4.14+).
    #[serde(rename = "WA_BIAS", default, skip_serializing_if = "Option::is_none")]
    pub wa_bias: Option<bool>,
    /// The runqueue load `wake_affine()` compares: "runnable_load_avg" (before 5.7,
    /// the runqueue's tasks only) or "load_avg" (5.7+, blocked load included).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cpu_load: Option<CpuLoad>,
    /// `select_idle_sibling()`: "4.6" (idle core or idle sibling only), "4.9" (idle
    /// core, bounded idle-CPU scan, idle sibling) or "5.12" (one pass).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub select_idle_sibling: Option<SisVariant>,
    /// `sched_feat(SIS_PROP)`: bound the idle-CPU scan by avg_idle / avg_scan_cost (4.13-5.19).
    #[serde(rename = "SIS_PROP", default, skip_serializing_if = "Option::is_none")]
    pub sis_prop: Option<bool>,
    /// Skip the idle-CPU scan when avg_idle / 512 < avg_scan_cost (4.9-4.10 always; `sched_feat(SIS_AVG_CPU)` to 5.11).
    #[serde(
        rename = "SIS_AVG_CPU",
        default,
        skip_serializing_if = "Option::is_none"
    )]
    pub sis_avg_cpu: Option<bool>,
    /// `sched_feat(SIS_UTIL)`: bound the idle-CPU scan by the LLC's utilisation (6.0+).
    #[serde(rename = "SIS_UTIL", default, skip_serializing_if = "Option::is_none")]
    pub sis_util: Option<bool>,
    /// Try the task's recently used CPU in `select_idle_sibling` (4.16+).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub recent_used_cpu: Option<bool>,
    /// `find_idlest_group()`: "load" (before 4.10), "load_blocked" (4.10 to 5.4) or
    /// "group_type" (5.5+).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub find_idlest_group: Option<IdlestGroupVariant>,
    /// Fork placement's NUMA rule: "none", "5.5", "5.11", "5.18" or "6.0".
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub numa_fork_rule: Option<NumaForkRule>,
    /// `load_balance()`'s imbalance: "load" (before 5.5) or "5.5" (migration types).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub load_balance: Option<LoadBalanceVariant>,
    /// The balancer's NUMA rule (`adjust_numa_imbalance`): "none", "5.6", "5.11", "5.18" or "6.0".
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub numa_balance_rule: Option<NumaBalanceRule>,
    /// How many times less often a busy CPU balances (32 before 5.10, then 16).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(range(min = 1, max = 256))]
    pub busy_factor: Option<u32>,
    /// A busy CPU's balance interval is one jiffy shorter (5.10+), so the levels'
    /// periods are not multiples of each other.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub busy_interval_minus_one: Option<bool>,
    /// The balancer passes over per-CPU kernel threads before its affinity test
    /// (5.11+), so they do not mark the balance as held back by affinity.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub lb_ignores_pcpu_kthreads: Option<bool>,
    /// What gates newidle balance: "migration_cost" (before 5.16) or "max_newidle_lb_cost".
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub newidle_gate: Option<NewidleGate>,
    /// `sched_feat(TTWU_QUEUE)`: a remote wakeup is queued to the target CPU, which
    /// takes its own runqueue lock.
    #[serde(
        rename = "TTWU_QUEUE",
        default,
        skip_serializing_if = "Option::is_none"
    )]
    pub ttwu_queue: Option<bool>,
    /// Also queue wakeups to an idle CPU of the same LLC (6.0+ `ttwu_queue_cond`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ttwu_queue_idle: Option<bool>,
    /// `sched_feat(LAST_BUDDY)`: after a wakeup preemption on a runqueue of at least
    /// `sched_nr_latency` tasks, the preempted task runs next if that is not unfair
    /// by more than the wakeup granularity (on in every CFS version).
    #[serde(
        rename = "LAST_BUDDY",
        default,
        skip_serializing_if = "Option::is_none"
    )]
    pub last_buddy: Option<bool>,
    /// `sched_feat(CACHE_HOT_BUDDY)`: the balancer does not move the last buddy to a
    /// CPU with tasks of its own, as if it were cache hot (on in every CFS version).
    #[serde(
        rename = "CACHE_HOT_BUDDY",
        default,
        skip_serializing_if = "Option::is_none"
    )]
    pub cache_hot_buddy: Option<bool>,
}

impl FeaturesSpec {
    /// The version's features with this spec's overrides applied.
    pub fn resolve(&self, version: KernelVersion) -> Features {
        let mut features = Features::of(version);
        macro_rules! take {
            ($($field:ident),*) => {
                $(if let Some(value) = self.$field { features.$field = value; })*
            };
        }
        take!(
            wake_affine,
            wa_idle,
            wa_weight,
            wa_bias,
            cpu_load,
            select_idle_sibling,
            sis_prop,
            sis_avg_cpu,
            sis_util,
            recent_used_cpu,
            find_idlest_group,
            numa_fork_rule,
            load_balance,
            numa_balance_rule,
            busy_factor,
            busy_interval_minus_one,
            lb_ignores_pcpu_kthreads,
            newidle_gate,
            ttwu_queue,
            ttwu_queue_idle,
            last_buddy,
            cache_hot_buddy
        );
        features
    }
}

/// Paths that are taken only when another path has one of some values: `(path,
/// the path it hangs on, the values under which it is taken)`, values as a scenario
/// writes them. The bounds of the idle-CPU scan need a `select_idle_sibling` with
/// `select_idle_cpu()` (4.6's walk has none), `wake_affine()`'s `WA_*` its 4.14
/// form, `recent_used_cpu` a `select_idle_sibling` after 4.6's, the queueing of
/// wakeups to idle CPUs `TTWU_QUEUE` itself, and `CACHE_HOT_BUDDY` a buddy to test
/// (the model has no `NEXT_BUDDY`, off by default in the kernel).
pub const PATH_NEEDS: &[(&str, &str, &[&str])] = &[
    ("SIS_AVG_CPU", "select_idle_sibling", &["4.9", "5.12"]),
    ("SIS_PROP", "select_idle_sibling", &["4.9", "5.12"]),
    ("SIS_UTIL", "select_idle_sibling", &["4.9", "5.12"]),
    ("WA_IDLE", "wake_affine", &["4.14"]),
    ("WA_WEIGHT", "wake_affine", &["4.14"]),
    ("WA_BIAS", "wake_affine", &["4.14"]),
    ("recent_used_cpu", "select_idle_sibling", &["4.9", "5.12"]),
    ("ttwu_queue_idle", "TTWU_QUEUE", &["true"]),
    ("CACHE_HOT_BUDDY", "LAST_BUDDY", &["true"]),
];

/// Every released `major.minor` from the oldest modelled to the newest: 4.6-4.20,
/// 5.0-5.19, 6.0-6.5 (the last minor of each major series as released).
pub fn released_versions() -> Vec<KernelVersion> {
    const LAST_MINOR: &[(u16, u16)] = &[(4, 20), (5, 19), (6, NEWEST.minor)];
    LAST_MINOR
        .iter()
        .flat_map(|&(major, last)| (0..=last).map(move |minor| KernelVersion::new(major, minor)))
        .filter(|version| (OLDEST..=NEWEST).contains(version))
        .collect()
}

/// One row of `schedlab list`'s version table: the version and its variants.
pub fn version_table() -> Vec<(String, Features)> {
    LISTED_VERSIONS
        .iter()
        .map(|text| {
            let version = KernelVersion::parse(text).expect("listed versions parse");
            (text.to_string(), Features::of(version))
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn released_versions_run_from_the_oldest_to_the_newest_without_gaps() {
        let versions = released_versions();
        assert_eq!(versions.first(), Some(&OLDEST));
        assert_eq!(versions.last(), Some(&NEWEST));
        assert_eq!(versions.len(), 15 + 20 + 6);
        assert!(versions.windows(2).all(|pair| pair[0] < pair[1]));
        for listed in LISTED_VERSIONS {
            let version = KernelVersion::parse(listed).unwrap();
            assert!(
                versions.contains(&version),
                "{listed} is not a released version"
            );
        }
    }

    #[test]
    fn a_minor_never_released_takes_the_paths_of_the_released_one_below_it() {
        // The app resolves `5.25` (which `parse` accepts) to 5.19 this way.
        let released = released_versions();
        for major in 4..=6u16 {
            for minor in 0..100u16 {
                let version = KernelVersion::new(major, minor);
                if !(OLDEST..=NEWEST).contains(&version) {
                    continue;
                }
                let floor = released
                    .iter()
                    .rev()
                    .find(|known| **known <= version)
                    .unwrap();
                assert_eq!(Features::of(version), Features::of(*floor), "{version}");
            }
        }
    }

    #[test]
    fn versions_parse_and_out_of_range_ones_are_explained() {
        assert_eq!(
            KernelVersion::parse("5.18").unwrap(),
            KernelVersion::new(5, 18)
        );
        assert_eq!(
            KernelVersion::parse("6.0.9").unwrap(),
            KernelVersion::new(6, 0)
        );
        assert!(KernelVersion::parse("4.5").unwrap_err().contains("oldest"));
        assert!(KernelVersion::parse("6.6").unwrap_err().contains("EEVDF"));
        assert!(KernelVersion::parse("five")
            .unwrap_err()
            .contains("MAJOR.MINOR"));
        for text in LISTED_VERSIONS {
            KernelVersion::parse(text).unwrap();
        }
    }

    #[test]
    fn each_seed_kernel_resolves_to_its_paths() {
        let v46 = Features::of(KernelVersion::new(4, 6));
        assert_eq!(v46.select_idle_sibling, SisVariant::Groups);
        assert_eq!(v46.wake_affine, WakeAffineVariant::Load);
        assert_eq!(v46.busy_factor, 32);
        assert!(!v46.busy_interval_minus_one && !v46.lb_ignores_pcpu_kthreads);
        assert!(!v46.sis_util && !v46.sis_prop && !v46.recent_used_cpu);
        let v52 = Features::of(KernelVersion::new(5, 2));
        assert!(v52.sis_prop && v52.recent_used_cpu);
        assert_eq!(v52.load_balance, LoadBalanceVariant::Load);
        assert_eq!(v52.find_idlest_group, IdlestGroupVariant::LoadBlocked);
        assert_eq!(v46.find_idlest_group, IdlestGroupVariant::Load);
        assert_eq!(v52.numa_balance_rule, NumaBalanceRule::None);
        let v518 = Features::of(KernelVersion::new(5, 18));
        assert_eq!(v518.numa_fork_rule, NumaForkRule::ImbNumaNr);
        assert_eq!(v518.newidle_gate, NewidleGate::MaxNewidleLbCost);
        let v60 = Features::of(KernelVersion::new(6, 0));
        assert_eq!(v60.numa_fork_rule, NumaForkRule::AffinityAware);
        assert!(v60.sis_util && !v60.sis_prop);
        assert_eq!(v60.busy_factor, 16);
        assert!(v60.busy_interval_minus_one && v60.lb_ignores_pcpu_kthreads);
    }

    #[test]
    fn overrides_replace_one_path() {
        let spec = FeaturesSpec {
            select_idle_sibling: Some(SisVariant::Groups),
            sis_util: Some(false),
            ..Default::default()
        };
        let features = spec.resolve(KernelVersion::new(6, 5));
        assert_eq!(features.select_idle_sibling, SisVariant::Groups);
        assert!(!features.sis_util);
        assert_eq!(features.busy_factor, 16);
    }
}
