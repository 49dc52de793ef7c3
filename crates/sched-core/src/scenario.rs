//! A scenario: machine, workloads, policy switches, tunables, duration and seed.
//!
//! These types define the scenario file format (serde field names) and, through
//! schemars, its JSON Schema. This crate never reads or writes JSON itself: that is
//! `sched-scenario`'s job. `Scenario::check` holds the rules a schema cannot state.

use crate::background::BackgroundSpec;
use crate::cfs::KnobsSpec;
use crate::cost::CostsSpec;
use crate::cpuset::parse_cpu_list;
use crate::kernel::{FeaturesSpec, KernelVersion, DEFAULT_KERNEL};
use crate::topology::{Topology, TopologySpec};
use crate::workload::WorkloadSpec;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Scenario {
    /// The schema this file follows (editors use it; the simulator ignores it).
    #[serde(rename = "$schema", default, skip_serializing_if = "Option::is_none")]
    pub schema: Option<String>,
    #[schemars(length(min = 1, max = 120))]
    pub title: String,
    #[serde(default)]
    pub description: String,
    /// Seed of the run's random generator: same seed, same trace.
    #[serde(default)]
    #[schemars(range(max = 9007199254740991u64))]
    pub seed: u64,
    /// Simulated run time in milliseconds.
    #[schemars(range(min = 1, max = 3600000))]
    pub duration_ms: u64,
    pub topology: TopologySpec,
    /// The kernel whose baseline paths run, as "MAJOR.MINOR" from "4.6" to "6.5"
    /// (default "6.5"). `schedlab list` shows what each version selects.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(regex(pattern = r"^[0-9]+\.[0-9]+(\.[0-9]+)?$"))]
    pub kernel: Option<String>,
    /// Per-path overrides of the kernel version's choices, with the kernel's
    /// `sched_feat` names where it has them.
    #[serde(default)]
    pub features: FeaturesSpec,
    #[schemars(length(min = 1))]
    pub workloads: Vec<WorkloadSpec>,
    #[serde(default)]
    pub policy: PolicySpec,
    #[serde(default)]
    pub knobs: KnobsSpec,
    #[serde(default)]
    pub costs: CostsSpec,
    /// The machine's per-CPU kernel threads (kworkers), on by default.
    #[serde(default)]
    pub background: BackgroundSpec,
    /// The frequency and idle-state model (TurboSched's machine); off by default.
    #[serde(default, skip_serializing_if = "is_default_power")]
    pub power: crate::power::PowerSpec,
    /// CPU hotplug: CPUs taken offline or brought back at given times.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub hotplug: Vec<HotplugSpec>,
    /// An explicit cgroup hierarchy: each cgroup's path, its `cpu.max`, and the
    /// workloads whose tasks it holds.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub cgroups: Vec<crate::bandwidth::CgroupSpec>,
}

/// One CPU hotplug event.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct HotplugSpec {
    /// When, in milliseconds from the start.
    #[schemars(range(min = 0.0))]
    pub at_ms: f64,
    /// Which CPU.
    pub cpu: u32,
    /// `false` takes the CPU offline (its tasks move away), `true` brings it back.
    pub online: bool,
}

/// Switches for the scheduler's paths.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct PolicySpec {
    /// Let a wakeup move the task towards the waker's CPU (`wake_affine`).
    #[serde(default)]
    pub wake_affine: Switch,
    /// Pull a waiting task when a CPU is about to go idle (`newidle_balance`).
    #[serde(default)]
    pub newidle_balance: Switch,
    /// Balance each domain at its interval (`rebalance_domains`, NOHZ idle balance).
    #[serde(default)]
    pub periodic_balance: Switch,
    /// Seed 001: on the 4.6 wakeup path, scan the package for an idle thread when
    /// no idle core or sibling was found.
    #[serde(default)]
    pub sis_scan: crate::policy::sis_scan::SisScanSpec,
    /// Seed 004: on the 5.18 fork path, limit the NUMA imbalance allowance to the
    /// CPUs a task pinned to a subset may use in the local node. `enabled` (default
    /// false); `check`: "ne" (`nr_cpus_allowed != num_online_cpus()`, the patch) or
    /// "lt" (`<`), which agree while every CPU is online (default "ne").
    #[serde(default)]
    pub numa_affinity: crate::policy::numa_affinity::NumaAffinitySpec,
    /// Seed 000: sharded per-LLC shared runqueues that a CPU pulls from before it goes
    /// idle. `mode`: "off" (default), "wakeups" (push on a wakeup that
    /// select_task_rq did not migrate) or "all" (push on every enqueue);
    /// `shard_size` (default 6, 0 for one shard per LLC); `shard_index`: "cpu_mod"
    /// or "cpu_shr1_mod"; `skip_llc_balance` (default false).
    #[serde(default)]
    pub shared_runq: crate::policy::shared_runq::SharedRunqSpec,
    /// Seed 003: TurboSched (5.2) packs a waking jitter task (its jitter attribute,
    /// or `uclamp_max` <= 1) onto the first busy core of its domain that has room,
    /// so idle cores stay in deep idle and busy ones keep turbo (needs
    /// `power.enabled` to show). `enabled` (default false); `busy_threshold_pct`
    /// (default 12.5); `domain`: "llc", "socket" or "node" (default "node").
    #[serde(default)]
    pub turbo_pack: crate::policy::turbo_pack::TurboPackSpec,
    /// Seed 002: the field order of `struct cfs_rq` and `struct sched_entity` in the
    /// cache-line model: "original" (6.15's, the default), "reordered" (the
    /// patch's), or `{"cfs_rq": [...], "sched_entity": [...]}` listing every field
    /// once. The model runs with any cgroup, or when this is given.
    #[serde(default, skip_serializing_if = "is_unset_layout")]
    pub struct_layout: crate::policy::struct_layout::StructLayoutSpec,
}

fn is_unset_layout(spec: &crate::policy::struct_layout::StructLayoutSpec) -> bool {
    *spec == crate::policy::struct_layout::StructLayoutSpec::Unset
}

/// The policy switches, resolved.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Policy {
    pub wake_affine: bool,
    pub newidle_balance: bool,
    pub periodic_balance: bool,
    pub sis_scan: crate::policy::sis_scan::SisScanSpec,
    pub numa_affinity: crate::policy::numa_affinity::NumaAffinitySpec,
    pub shared_runq: crate::policy::shared_runq::SharedRunqSpec,
    pub turbo_pack: crate::policy::turbo_pack::TurboPackSpec,
}

impl PolicySpec {
    pub fn resolve(&self) -> Policy {
        Policy {
            wake_affine: self.wake_affine.enabled,
            newidle_balance: self.newidle_balance.enabled,
            periodic_balance: self.periodic_balance.enabled,
            sis_scan: self.sis_scan,
            numa_affinity: self.numa_affinity,
            shared_runq: self.shared_runq,
            turbo_pack: self.turbo_pack,
        }
    }
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Switch {
    #[serde(default = "yes")]
    pub enabled: bool,
}

impl Default for Switch {
    fn default() -> Self {
        Switch { enabled: true }
    }
}

fn yes() -> bool {
    true
}

fn is_default_power(power: &crate::power::PowerSpec) -> bool {
    *power == crate::power::PowerSpec::default()
}

/// A problem in a scenario: the field's dotted path and what is wrong with it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct ScenarioError {
    pub path: String,
    pub message: String,
}

impl std::fmt::Display for ScenarioError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        if self.path.is_empty() {
            write!(f, "{}", self.message)
        } else {
            write!(f, "{}: {}", self.path, self.message)
        }
    }
}

/// The most tasks a scenario may create (keeps the browser responsive).
pub const MAX_TASKS: usize = 20_000;

impl Scenario {
    /// Hotplug events in the order they happen (by time, then as written).
    pub fn hotplug_in_order(&self) -> Vec<(usize, &HotplugSpec)> {
        let mut events: Vec<(usize, &HotplugSpec)> = self.hotplug.iter().enumerate().collect();
        events.sort_by(|(left_idx, left), (right_idx, right)| {
            left.at_ms
                .partial_cmp(&right.at_ms)
                .unwrap_or(std::cmp::Ordering::Equal)
                .then(left_idx.cmp(right_idx))
        });
        events
    }

    fn check_hotplug(&self, n_cpus: usize) -> Vec<ScenarioError> {
        let mut errors = Vec::new();
        let mut online = vec![true; n_cpus];
        for (idx, event) in self.hotplug_in_order() {
            let path = format!("hotplug.{idx}");
            if !(event.at_ms.is_finite() && event.at_ms >= 0.0) {
                errors.push(ScenarioError {
                    path: format!("{path}.at_ms"),
                    message: format!("must be a time in milliseconds, got {}", event.at_ms),
                });
                continue;
            }
            let Some(state) = online.get_mut(event.cpu as usize) else {
                errors.push(ScenarioError {
                    path: format!("{path}.cpu"),
                    message: format!(
                        "CPU {} does not exist: the machine has CPUs 0-{}",
                        event.cpu,
                        n_cpus - 1
                    ),
                });
                continue;
            };
            *state = event.online;
            if online.iter().all(|up| !up) {
                errors.push(ScenarioError {
                    path: format!("{path}.cpu"),
                    message: format!(
                        "taking CPU {} offline at {} ms would leave no CPU online",
                        event.cpu, event.at_ms
                    ),
                });
                online[event.cpu as usize] = true;
            }
        }
        errors
    }

    /// The kernel version the scenario names (the default when it names none).
    pub fn kernel_version(&self) -> Result<KernelVersion, String> {
        KernelVersion::parse(self.kernel.as_deref().unwrap_or(DEFAULT_KERNEL))
    }

    /// Checks what the schema cannot: the machine, CPU lists against it, programs.
    pub fn check(&self) -> Vec<ScenarioError> {
        let mut errors = Vec::new();
        let topology = match self.topology.resolve() {
            Ok(shape) => Some(Topology::build(shape)),
            Err(topology_errors) => {
                errors.extend(topology_errors.into_iter().map(|error| ScenarioError {
                    path: format!("topology.{}", error.field),
                    message: error.message,
                }));
                None
            }
        };
        if let Err(message) =
            crate::policy::struct_layout::resolve_layouts(&self.policy.struct_layout)
        {
            errors.push(ScenarioError {
                path: "policy.struct_layout".into(),
                message,
            });
        }
        for (path, message) in self.policy.turbo_pack.check() {
            errors.push(ScenarioError {
                path: format!("policy.turbo_pack.{path}"),
                message,
            });
        }
        if let Err(message) = self.kernel_version() {
            errors.push(ScenarioError {
                path: "kernel".into(),
                message,
            });
        }
        for (path, message) in self.background.check() {
            errors.push(ScenarioError {
                path: format!("background.{path}"),
                message,
            });
        }
        for (path, message) in crate::bandwidth::check_cgroups(&self.cgroups, self.workloads.len())
        {
            errors.push(ScenarioError { path, message });
        }
        if let Some(topology) = &topology {
            errors.extend(self.check_hotplug(topology.n_cpus()));
            let nominal = crate::topology::nominal_mhz(&topology.shape.name);
            for (path, message) in self.power.check(nominal, &topology.shape.name) {
                errors.push(ScenarioError {
                    path: format!("power.{path}"),
                    message,
                });
            }
        }
        if self.duration_ms == 0 {
            errors.push(ScenarioError {
                path: "duration_ms".into(),
                message: "must be at least 1, got 0".into(),
            });
        }
        if self.workloads.is_empty() {
            errors.push(ScenarioError {
                path: "workloads".into(),
                message: "must list at least one workload".into(),
            });
        }
        // In u64, saturating: a usize sum (32 bits in WebAssembly) of large workloads
        // could wrap to below the limit.
        let mut n_tasks = 0u64;
        for (idx, workload) in self.workloads.iter().enumerate() {
            for (path, message) in workload.check() {
                errors.push(ScenarioError {
                    path: format!("workloads.{idx}.{path}"),
                    message,
                });
            }
            for (path, list) in workload.cpu_lists() {
                let full_path = format!("workloads.{idx}.{path}");
                match parse_cpu_list(&list) {
                    Err(message) => errors.push(ScenarioError {
                        path: full_path,
                        message,
                    }),
                    Ok(cpus) => {
                        if let Some(topology) = &topology {
                            if let Some(bad) =
                                cpus.iter().find(|cpu| **cpu as usize >= topology.n_cpus())
                            {
                                errors.push(ScenarioError {
                                    path: full_path,
                                    message: format!(
                                        "CPU {bad} does not exist: the machine has CPUs 0-{}",
                                        topology.n_cpus() - 1
                                    ),
                                });
                            }
                        }
                    }
                }
            }
            n_tasks = n_tasks.saturating_add(workload.task_count());
        }
        if n_tasks > MAX_TASKS as u64 {
            errors.push(ScenarioError {
                path: "workloads".into(),
                message: format!(
                    "the workloads create {n_tasks} tasks; at most {MAX_TASKS} are modelled"
                ),
            });
        }
        errors
    }
}
