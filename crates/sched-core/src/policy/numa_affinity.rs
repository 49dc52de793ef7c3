//! NUMA imbalance with CPU affinity (seed 004, K Prateek Nayak, 2022, on 5.18): how
//! many tasks fork placement lets pile up on the local node before spreading.
//!
//! 5.18's `find_idlest_group()` keeps a new task in the local NUMA group while both
//! groups have spare capacity and `local.sum_nr_running + 1 <= sd->imb_numa_nr`
//! (`allow_numa_imbalance()`). `imb_numa_nr` counts the whole node (one task per LLC
//! on Zen3: 8), but a task pinned with `numactl -C 0,16,...,112` may use only four
//! CPUs of that node, so threads five to eight pile onto CPUs already busy while the
//! other socket's allowed CPUs stay idle. The patch lowers the allowance, for a task
//! pinned to a subset of the machine, to the number of CPUs it may use in the local
//! group: `min(|sched_group_span(local) & p->cpus_ptr|, sd->imb_numa_nr)`.
//!
//! Hook: [`Simulator::numa_imbalance_allowance`], called from `baseline::fork`
//! (`numa_fork_keeps_local`) in the 5.18 rule (`NumaForkRule::ImbNumaNr`) only. 6.0
//! merged the same limit together with the idle-CPU-difference test of
//! `adjust_numa_imbalance()`; that form is the baseline `NumaForkRule::AffinityAware`
//! (`numa_fork_rule: "6.0"`) and does not call this hook.
//!
//! "Pinned to a subset" has two forms in the thread. The posted patch (v7) tests
//! `p->nr_cpus_allowed != num_online_cpus()` ([`AffinityCheck::Ne`]); Peter Zijlstra
//! suggested `p->nr_cpus_allowed < num_online_cpus()` ([`AffinityCheck::Lt`]). While
//! every CPU is online, `nr_cpus_allowed <= num_online_cpus()` and the two agree.
//! They differ only with CPUs offline (a scenario's `hotplug`: `nr_cpus_allowed`
//! counts the task's mask, offline CPUs included, and `num_online_cpus()` the
//! online ones): when a CPU goes offline between the fork
//! copying `nr_cpus_allowed` and `find_idlest_group()` (the thread's systemd-udevd
//! trace: 124 allowed, 123 online), "ne" limits the allowance and "lt" does not.
//! Neither catches Peter's counter-example: 8 CPUs, mask 0x55 (4 CPUs), CPUs 4-7
//! offline (online 0x0f, 4 CPUs): the effective mask 0x05 holds 2 CPUs, yet
//! `nr_cpus_allowed == num_online_cpus() == 4`, so both tests say "not pinned".
//! [`pinned_to_subset`] states both tests over plain counts; the scenario
//! `numa-affinity-hotplug` plays the counter-example.

use crate::domains::SchedDomain;
use crate::engine::Simulator;
use crate::task::TaskId;
use crate::topology::CpuId;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// `policy.numa_affinity` as a scenario writes it.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct NumaAffinitySpec {
    /// Limit 5.18's NUMA imbalance allowance at fork to the CPUs the task may use in
    /// the local group, for a task pinned to a subset of the CPUs (default false).
    #[serde(default)]
    pub enabled: bool,
    /// How "pinned to a subset" is tested: "ne" (`nr_cpus_allowed !=
    /// num_online_cpus()`, the patch) or "lt" (`<`, Peter Zijlstra's suggestion);
    /// they agree while every CPU is online, as in the model today (default "ne").
    #[serde(default)]
    pub check: AffinityCheck,
}

/// The test for "the task is pinned to a subset of the CPUs".
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub enum AffinityCheck {
    /// `p->nr_cpus_allowed != num_online_cpus()` (the posted patch, v7).
    #[default]
    #[serde(rename = "ne")]
    Ne,
    /// `p->nr_cpus_allowed < num_online_cpus()` (suggested in review).
    #[serde(rename = "lt")]
    Lt,
}

/// Is a task with `nr_cpus_allowed` CPUs in its mask "pinned to a subset" when
/// `num_online_cpus` CPUs are online? With every CPU online (the model today)
/// `nr_cpus_allowed <= num_online_cpus`, and both checks say `nr_cpus_allowed <
/// num_online_cpus`.
pub fn pinned_to_subset(check: AffinityCheck, nr_cpus_allowed: u32, num_online_cpus: u32) -> bool {
    match check {
        AffinityCheck::Ne => nr_cpus_allowed != num_online_cpus,
        AffinityCheck::Lt => nr_cpus_allowed < num_online_cpus,
    }
}

impl Simulator {
    /// The allowed NUMA imbalance, in tasks, for a task forking on `this_cpu` at the
    /// NUMA domain `sd`: `sd.imb_numa_nr`, or with the policy on and the task pinned
    /// to a subset, `min(|local group span & allowed CPUs|, sd.imb_numa_nr)`.
    pub fn numa_imbalance_allowance(
        &self,
        sd: &SchedDomain,
        task_id: TaskId,
        this_cpu: CpuId,
    ) -> u32 {
        let spec = self.policy.numa_affinity;
        if !spec.enabled {
            return sd.imb_numa_nr;
        }
        let allowed = &self.tasks[task_id.0 as usize].affinity;
        let num_online_cpus = self.online.len() as u32;
        if !pinned_to_subset(spec.check, allowed.len() as u32, num_online_cpus) {
            return sd.imb_numa_nr;
        }
        let local = sd
            .groups
            .iter()
            .find(|group| group.contains(this_cpu))
            .expect("the local group holds this CPU");
        (local.intersection_len(allowed) as u32).min(sd.imb_numa_nr)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn with_every_cpu_online_ne_and_lt_agree() {
        for online in [8u32, 128, 256] {
            for allowed in 1..=online {
                assert_eq!(
                    pinned_to_subset(AffinityCheck::Ne, allowed, online),
                    pinned_to_subset(AffinityCheck::Lt, allowed, online),
                    "{allowed} of {online}"
                );
            }
        }
    }

    #[test]
    fn with_cpus_offline_they_can_differ_and_both_can_miss() {
        // The udevd race: the mask was counted with 124 CPUs online, one went away.
        assert!(pinned_to_subset(AffinityCheck::Ne, 124, 123));
        assert!(!pinned_to_subset(AffinityCheck::Lt, 124, 123));
        // Peter Zijlstra's counter-example: mask 0x55 on 8 CPUs, CPUs 4-7 offline.
        // The effective mask 0x05 has 2 CPUs, but both tests see 4 == 4.
        assert!(!pinned_to_subset(AffinityCheck::Ne, 4, 4));
        assert!(!pinned_to_subset(AffinityCheck::Lt, 4, 4));
    }
}
