//! Fork placement: `find_idlest_cpu()` walking down the domains with
//! `find_idlest_group()`, and the NUMA rule that may keep a new task on its
//! parent's node.
//!
//! `find_idlest_group` variants, side by side:
//! - before 5.5 (`IdlestGroupVariant::Load`): the group with the lowest load per
//!   CPU, taken only when the local group's load exceeds it by half the imbalance
//!   margin (the 4.6 form; 4.14-5.4 add a spare-capacity test that fork skips).
//! - 5.5+ (`GroupType`): by `group_type` (has spare < fully busy < overloaded), then
//!   by load (busy groups) or idle CPUs (groups with spare capacity), with the NUMA
//!   rule of the version in between ([`NumaForkRule`]).

use crate::baseline::groups::{GroupStats, GroupType};
use crate::cpuset::CpuSet;
use crate::domains::{DomainLevel, SchedDomain};
use crate::engine::Simulator;
use crate::kernel::{IdlestGroupVariant, NumaForkRule};
use crate::task::TaskId;
use crate::topology::CpuId;
use crate::trace::Reason;

/// `NUMA_IMBALANCE_MIN`: an idle-CPU (or task) difference this small is left alone.
pub const NUMA_IMBALANCE_MIN: u32 = 2;

pub(crate) enum IdlestGroup {
    /// Stay in the local group; with `(local.sum_nr_running, allowance,
    /// sd.imb_numa_nr)` when the NUMA rule decided.
    Local(Option<(u32, u32, u32)>),
    Other(CpuSet),
}

impl Simulator {
    /// `find_idlest_cpu()` for a new task forked on `this_cpu`.
    pub(crate) fn select_task_rq_fork(
        &mut self,
        task_id: TaskId,
        this_cpu: CpuId,
    ) -> (CpuId, Reason) {
        let affinity = self.tasks[task_id.0 as usize].affinity.clone();
        if affinity.len() == 1 {
            // `nr_cpus_allowed == 1`: select_task_rq is skipped.
            let only = affinity.first().expect("affinity is never empty");
            return (only, Reason::Pinned);
        }
        let mut cpu = if affinity.contains(this_cpu) {
            this_cpu
        } else {
            affinity.first().expect("affinity is never empty")
        };
        let mut reason = Reason::ForkIdlest {
            level: DomainLevel::Smt.tag(),
            idle: self.cpu_is_idle(cpu),
        };
        // The widest domain of `cpu` with SD_BALANCE_FORK.
        let mut level_idx = self
            .domains
            .of(cpu)
            .iter()
            .rposition(|sd| sd.flags.balance_fork);
        let mut inspected = 0u32;
        while let Some(idx) = level_idx {
            let sd = &self.domains.of(cpu)[idx];
            inspected += sd.span.len() as u32;
            let (level, weight) = (sd.level, sd.span.len());
            match self.find_idlest_group(sd, task_id, cpu) {
                IdlestGroup::Local(Some((local_running, allowance, imb_numa_nr))) => {
                    reason = Reason::ForkNumaImbalance {
                        level: level.tag(),
                        local_running,
                        allowance,
                        imb_numa_nr,
                    };
                    level_idx = idx.checked_sub(1);
                }
                IdlestGroup::Local(None) => level_idx = idx.checked_sub(1),
                IdlestGroup::Other(group) => {
                    let new_cpu = self.find_idlest_group_cpu(&group, &affinity);
                    if new_cpu == cpu {
                        level_idx = idx.checked_sub(1);
                        continue;
                    }
                    cpu = new_cpu;
                    reason = Reason::ForkIdlest {
                        level: level.tag(),
                        idle: self.cpu_is_idle(cpu),
                    };
                    // Continue below the level just used, from the new CPU's domains.
                    level_idx =
                        self.domains.of(cpu).iter().rposition(|lower| {
                            lower.span.len() < weight && lower.flags.balance_fork
                        });
                }
            }
        }
        if let Reason::ForkIdlest { level, .. } = reason {
            reason = Reason::ForkIdlest {
                level,
                idle: self.cpu_is_idle(cpu),
            };
        }
        let cost = inspected as u64 * self.costs.scan_per_cpu_ns;
        self.charge_overhead(this_cpu, cost);
        (cpu, reason)
    }

    /// `find_idlest_group()`: `Local` keeps the task in the group of `this_cpu`,
    /// `Other` names the idlest remote group.
    fn find_idlest_group(&self, sd: &SchedDomain, task_id: TaskId, this_cpu: CpuId) -> IdlestGroup {
        let allowed = &self.tasks[task_id.0 as usize].affinity;
        let pct = sd.imbalance_pct;
        let mut local: Option<GroupStats> = None;
        let mut idlest: Option<(GroupStats, &CpuSet)> = None;
        let variant = self.features.find_idlest_group;
        for group in &sd.groups {
            if !group.intersects(allowed) {
                continue;
            }
            let stats = self.group_stats(group);
            if group.contains(this_cpu) {
                local = Some(stats);
                continue;
            }
            let better = match (&idlest, variant) {
                (None, _) => true,
                (Some((best, _)), IdlestGroupVariant::Load) => stats.avg_load() < best.avg_load(),
                (Some((best, _)), IdlestGroupVariant::GroupType) => {
                    idlest_is_better(&stats, best, pct)
                }
            };
            if better {
                idlest = Some((stats, group));
            }
        }
        let Some((idlest_stats, idlest_group)) = idlest else {
            return IdlestGroup::Local(None);
        };
        let Some(local) = local else {
            return IdlestGroup::Other(idlest_group.clone());
        };
        if variant == IdlestGroupVariant::Load {
            // 4.6: stay unless the local load exceeds the idlest by half the margin.
            let scale = 100 + (pct as u64 - 100) / 2;
            return if 100 * local.avg_load() < scale * idlest_stats.avg_load() {
                IdlestGroup::Local(None)
            } else {
                IdlestGroup::Other(idlest_group.clone())
            };
        }
        let (local_type, idlest_type) = (local.group_type(pct), idlest_stats.group_type(pct));
        if local_type < idlest_type {
            return IdlestGroup::Local(None);
        }
        if local_type > idlest_type {
            return IdlestGroup::Other(idlest_group.clone());
        }
        match local_type {
            GroupType::Overloaded | GroupType::FullyBusy => {
                // Only move when the remote group is clearly less loaded.
                let imbalance = 1024 * (pct as u64 - 100) / 100;
                let (local_avg, idlest_avg) = (local.avg_load(), idlest_stats.avg_load());
                if sd.flags.numa && idlest_avg + imbalance >= local_avg {
                    return IdlestGroup::Local(None);
                }
                if idlest_avg >= local_avg + imbalance || 100 * local_avg <= pct as u64 * idlest_avg
                {
                    IdlestGroup::Local(None)
                } else {
                    IdlestGroup::Other(idlest_group.clone())
                }
            }
            GroupType::HasSpare => {
                if sd.flags.numa {
                    if let Some(kept) =
                        self.numa_fork_keeps_local(sd, task_id, this_cpu, &local, &idlest_stats)
                    {
                        return IdlestGroup::Local(Some(kept));
                    }
                }
                if local.idle_cpus >= idlest_stats.idle_cpus {
                    IdlestGroup::Local(None)
                } else {
                    IdlestGroup::Other(idlest_group.clone())
                }
            }
        }
    }

    /// The NUMA case of `find_idlest_group()` when both groups have spare capacity:
    /// `Some((local running, allowance, imb_numa_nr))` when the version's rule keeps
    /// the task local (`imb_numa_nr` equals the allowance for the rules before 5.18).
    fn numa_fork_keeps_local(
        &self,
        sd: &SchedDomain,
        task_id: TaskId,
        this_cpu: CpuId,
        local: &GroupStats,
        idlest: &GroupStats,
    ) -> Option<(u32, u32, u32)> {
        let dst_running = local.sum_nr_running + 1;
        match self.features.numa_fork_rule {
            NumaForkRule::None => None,
            NumaForkRule::LocalIdle => {
                (local.idle_cpus > 0).then_some((local.sum_nr_running, 0, 0))
            }
            NumaForkRule::Quarter => {
                let quarter = local.weight >> 2;
                (dst_running < quarter).then_some((local.sum_nr_running, quarter, quarter))
            }
            NumaForkRule::ImbNumaNr => {
                // The hook of the CPU-affinity fix (seed 004) may lower the allowance.
                let allowance = self.numa_imbalance_allowance(sd, task_id, this_cpu);
                (dst_running <= allowance).then_some((
                    local.sum_nr_running,
                    allowance,
                    sd.imb_numa_nr,
                ))
            }
            NumaForkRule::AffinityAware => {
                let allowed = &self.tasks[task_id.0 as usize].affinity;
                let local_span = sd
                    .groups
                    .iter()
                    .find(|group| group.contains(this_cpu))
                    .expect("the local group holds this CPU");
                let usable = local_span
                    .iter()
                    .filter(|cpu| allowed.contains(*cpu))
                    .count() as u32;
                let allowance = usable.min(sd.imb_numa_nr);
                let imbalance = local.idle_cpus.abs_diff(idlest.idle_cpus);
                let ignored = dst_running <= allowance && imbalance <= NUMA_IMBALANCE_MIN;
                ignored.then_some((local.sum_nr_running, allowance, sd.imb_numa_nr))
            }
        }
    }

    /// `find_idlest_group_cpu()`: the idle CPU that went idle most recently, else the
    /// least loaded CPU.
    fn find_idlest_group_cpu(&self, group: &CpuSet, allowed: &CpuSet) -> CpuId {
        let candidates = || group.iter().filter(|cpu| allowed.contains(*cpu));
        if let Some(idle) = candidates()
            .filter(|cpu| self.cpu_is_idle(*cpu))
            .max_by_key(|cpu| {
                (
                    self.cpus[cpu.0 as usize].idle_since,
                    std::cmp::Reverse(cpu.0),
                )
            })
        {
            return idle;
        }
        candidates()
            .min_by_key(|cpu| (self.rqs[cpu.0 as usize].load_weight, cpu.0))
            .expect("the group intersects the affinity mask")
    }
}

/// Is `candidate` an idler group than `best` (`update_pick_idlest()`, 5.5+)?
fn idlest_is_better(candidate: &GroupStats, best: &GroupStats, pct: u32) -> bool {
    let (candidate_type, best_type) = (candidate.group_type(pct), best.group_type(pct));
    if candidate_type != best_type {
        return candidate_type < best_type;
    }
    match candidate_type {
        GroupType::Overloaded | GroupType::FullyBusy => candidate.avg_load() < best.avg_load(),
        GroupType::HasSpare => {
            candidate.idle_cpus > best.idle_cpus
                || (candidate.idle_cpus == best.idle_cpus && candidate.util < best.util)
        }
    }
}
