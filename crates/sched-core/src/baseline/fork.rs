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
use crate::explain::{scan_step, DecisionKind, GroupRow, ScanKind, StepDetail};
use crate::kernel::{IdlestGroupVariant, NumaForkRule};
use crate::task::{TaskId, TaskState};
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
        self.explain_begin(DecisionKind::Fork, task_id, this_cpu);
        let affinity = self.tasks[task_id.0 as usize].affinity.clone();
        if affinity.len() == 1 {
            // `nr_cpus_allowed == 1`: select_task_rq is skipped.
            let only = affinity.first().expect("affinity is never empty");
            self.explain(move |_, rec| {
                rec.push(StepDetail::Pinned { cpu: only.0 });
            });
            return (only, Reason::Pinned);
        }
        self.flush_group_sums();
        let mut cpu = if affinity.contains(this_cpu) {
            this_cpu
        } else {
            affinity.first().expect("affinity is never empty")
        };
        self.explain(move |_, rec| {
            rec.push(StepDetail::ForkStart {
                parent_cpu: this_cpu.0,
                start_cpu: cpu.0,
            });
        });
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

    /// Each CPU's blocked load: the load of the tasks that last ran there and now
    /// sleep (`cfs_rq_load_avg()` minus the runnable part). A task's load is its
    /// PELT average, or, just after its fork, what is left of the full weight the
    /// kernel starts it with (`init_entity_runnable_average()`), decaying with the
    /// same 32 ms half-life. Simplification: the kernel tracks it per entity as it
    /// attaches and detaches; this recomputes it from the tasks.
    fn blocked_load_per_cpu(&self) -> Vec<f64> {
        let mut blocked = vec![0.0; self.rqs.len()];
        let now = self.now();
        for task in &self.tasks {
            if !matches!(task.state, TaskState::Sleeping | TaskState::Blocked) {
                continue;
            }
            let fresh = task.forked_at.map_or(0.0, |at| {
                let elapsed = (now - at).as_ns() as f64;
                1024.0 * crate::pelt::decay(elapsed)
            });
            let load = task.pelt.peek(now, false).max(fresh) * task.weight as f64 / 1024.0;
            blocked[task.cpu.0 as usize] += load;
        }
        blocked
    }

    /// `find_idlest_group()` of 4.10 to 5.4: the least runnable load, and among
    /// groups within the imbalance margin of it, the least `avg_load` (blocked load
    /// included); then stay local unless the idlest is clearly lighter.
    fn find_idlest_group_blocked(
        &self,
        sd: &SchedDomain,
        task_id: TaskId,
        this_cpu: CpuId,
    ) -> IdlestGroup {
        let allowed = &self.tasks[task_id.0 as usize].affinity;
        let pct = sd.imbalance_pct as f64;
        let imbalance = 1024.0 * (pct - 100.0) / 100.0;
        let imbalance_scale = 100.0 + (pct - 100.0) / 2.0;
        let blocked = self.blocked_load_per_cpu();
        let loads = |group: &CpuSet| {
            let (mut runnable, mut avg) = (0.0, 0.0);
            for cpu in group.iter() {
                let weight = self.cfs_load(cpu) as f64;
                runnable += weight;
                avg += weight + blocked[cpu.0 as usize];
            }
            // Per unit of capacity (SCHED_CAPACITY_SCALE per CPU), as the kernel scales it.
            let cpus = group.len().max(1) as f64;
            (runnable / cpus, avg / cpus)
        };
        let mut this = None;
        let mut idlest: Option<(f64, f64, &CpuSet)> = None;
        for group in &sd.groups {
            if !group.intersects(allowed) {
                continue;
            }
            let (runnable, avg) = loads(group);
            if group.contains(this_cpu) {
                this = Some((runnable, avg));
                continue;
            }
            idlest = match idlest {
                None => Some((runnable, avg, group)),
                // "The runnable load is significantly smaller": take it.
                Some((min_runnable, _, _)) if min_runnable > runnable + imbalance => {
                    Some((runnable, avg, group))
                }
                // "The runnable loads are close so take the blocked load into
                // account through avg_load".
                Some((min_runnable, min_avg, _))
                    if runnable < min_runnable + imbalance
                        && 100.0 * min_avg > imbalance_scale * avg =>
                {
                    Some((min_runnable, avg, group))
                }
                kept => kept,
            };
        }
        self.explain_domain(sd, allowed, this_cpu, idlest.map(|(_, _, group)| group));
        let Some((min_runnable, min_avg, idlest_group)) = idlest else {
            self.explain_choice(sd, None, || {
                "no other group has a CPU the task may use".to_string()
            });
            return IdlestGroup::Local(None);
        };
        let Some((this_runnable, this_avg)) = this else {
            self.explain_choice(sd, Some(idlest_group), || {
                "the local group has no CPU the task may use".to_string()
            });
            return IdlestGroup::Other(idlest_group.clone());
        };
        let stay = (sd.flags.numa && min_runnable + imbalance >= this_runnable)
            || min_runnable > this_runnable + imbalance
            || (this_runnable < min_runnable + imbalance
                && 100.0 * this_avg < imbalance_scale * min_avg);
        self.explain_choice(sd, (!stay).then_some(idlest_group), move || {
            format!(
                "runnable load per CPU local {this_runnable:.0} vs idlest {min_runnable:.0} (margin {imbalance:.0}); with blocked load local {this_avg:.0} vs idlest {min_avg:.0} ({imbalance_scale:.0} %): {}",
                if stay { "stay local" } else { "take the idlest" }
            )
        });
        if stay {
            IdlestGroup::Local(None)
        } else {
            IdlestGroup::Other(idlest_group.clone())
        }
    }

    /// Records a domain's groups for the decision inspector, the idlest one marked.
    fn explain_domain(
        &self,
        sd: &SchedDomain,
        allowed: &CpuSet,
        this_cpu: CpuId,
        idlest: Option<&CpuSet>,
    ) {
        self.explain(move |sim, rec| {
            let rows = sd
                .groups
                .iter()
                .enumerate()
                .map(|(group_idx, group)| {
                    let mut row = sim.group_row(sd, group_idx, allowed, this_cpu);
                    row.idlest = idlest.is_some_and(|idlest| std::ptr::eq(group, idlest));
                    row
                })
                .collect();
            rec.push(StepDetail::Domain {
                level: sd.level.name(),
                cpu: this_cpu.0,
                span: sd.span.to_list_string(),
                imbalance_pct: sd.imbalance_pct,
                groups: rows,
            });
        });
    }

    /// `find_idlest_group()`: `Local` keeps the task in the group of `this_cpu`,
    /// `Other` names the idlest remote group.
    fn find_idlest_group(&self, sd: &SchedDomain, task_id: TaskId, this_cpu: CpuId) -> IdlestGroup {
        let allowed = &self.tasks[task_id.0 as usize].affinity;
        let pct = sd.imbalance_pct;
        let mut local: Option<GroupStats> = None;
        let mut idlest: Option<(GroupStats, &CpuSet)> = None;
        let variant = self.features.find_idlest_group;
        if variant == IdlestGroupVariant::LoadBlocked {
            return self.find_idlest_group_blocked(sd, task_id, this_cpu);
        }
        for (group_idx, group) in sd.groups.iter().enumerate() {
            if !group.intersects(allowed) {
                continue;
            }
            let stats = self.group_stats(sd, group_idx);
            if group.contains(this_cpu) {
                local = Some(stats);
                continue;
            }
            let better = match (&idlest, variant) {
                (None, _) => true,
                (Some((best, _)), IdlestGroupVariant::Load | IdlestGroupVariant::LoadBlocked) => {
                    stats.avg_load() < best.avg_load()
                }
                (Some((best, _)), IdlestGroupVariant::GroupType) => {
                    idlest_is_better(&stats, best, pct)
                }
            };
            if better {
                idlest = Some((stats, group));
            }
        }
        self.explain_domain(sd, allowed, this_cpu, idlest.map(|(_, group)| group));
        let Some((idlest_stats, idlest_group)) = idlest else {
            self.explain_choice(sd, None, move || {
                "no other group has a CPU the task may use".to_string()
            });
            return IdlestGroup::Local(None);
        };
        let Some(local) = local else {
            self.explain_choice(sd, Some(idlest_group), move || {
                "the local group has no CPU the task may use".to_string()
            });
            return IdlestGroup::Other(idlest_group.clone());
        };
        if variant == IdlestGroupVariant::Load {
            // 4.6: stay unless the local load exceeds the idlest by half the margin.
            let scale = 100 + (pct as u64 - 100) / 2;
            let stay = 100 * local.avg_load() < scale * idlest_stats.avg_load();
            self.explain_choice(sd, (!stay).then_some(idlest_group), move || {
                format!(
                    "100 x local avg_load {} {} {scale} x idlest avg_load {}",
                    local.avg_load(),
                    if stay { "<" } else { ">=" },
                    idlest_stats.avg_load()
                )
            });
            return if stay {
                IdlestGroup::Local(None)
            } else {
                IdlestGroup::Other(idlest_group.clone())
            };
        }
        let (local_type, idlest_type) = (local.group_type(pct), idlest_stats.group_type(pct));
        if local_type < idlest_type {
            self.explain_choice(sd, None, move || {
                format!(
                    "the local group is {}, less busy than the idlest group ({})",
                    group_type_name(local_type),
                    group_type_name(idlest_type)
                )
            });
            return IdlestGroup::Local(None);
        }
        if local_type > idlest_type {
            self.explain_choice(sd, Some(idlest_group), move || {
                format!(
                    "the idlest group is {}, less busy than the local group ({})",
                    group_type_name(idlest_type),
                    group_type_name(local_type)
                )
            });
            return IdlestGroup::Other(idlest_group.clone());
        }
        match local_type {
            GroupType::Imbalanced => {
                // "Those types are not used in the slow wakeup path": stay local
                // (never reached: fork placement does not classify imbalanced groups).
                self.explain_choice(sd, None, || "the local group is imbalanced".to_string());
                IdlestGroup::Local(None)
            }
            GroupType::Overloaded | GroupType::FullyBusy => {
                // Only move when the remote group is clearly less loaded.
                let imbalance = 1024 * (pct as u64 - 100) / 100;
                let (local_avg, idlest_avg) = (local.avg_load(), idlest_stats.avg_load());
                let kind = group_type_name(local_type);
                if sd.flags.numa && idlest_avg + imbalance >= local_avg {
                    self.explain_choice(sd, None, move || {
                        format!("both {kind}; across NUMA nodes, idlest avg_load {idlest_avg} + imbalance {imbalance} >= local avg_load {local_avg}")
                    });
                    return IdlestGroup::Local(None);
                }
                if idlest_avg >= local_avg + imbalance || 100 * local_avg <= pct as u64 * idlest_avg
                {
                    self.explain_choice(sd, None, move || {
                        format!("both {kind}; local avg_load {local_avg} is within the margin of the idlest's {idlest_avg} (imbalance {imbalance}, {pct} %)")
                    });
                    IdlestGroup::Local(None)
                } else {
                    self.explain_choice(sd, Some(idlest_group), move || {
                        format!("both {kind}; local avg_load {local_avg} exceeds the idlest's {idlest_avg} by more than the margin (imbalance {imbalance}, {pct} %)")
                    });
                    IdlestGroup::Other(idlest_group.clone())
                }
            }
            GroupType::HasSpare => {
                if sd.flags.numa {
                    if let Some(kept) =
                        self.numa_fork_keeps_local(sd, task_id, this_cpu, &local, &idlest_stats)
                    {
                        self.explain_choice(sd, None, move || {
                            "both have spare capacity, and the NUMA rule allows the imbalance"
                                .to_string()
                        });
                        return IdlestGroup::Local(Some(kept));
                    }
                }
                let stay = local.idle_cpus >= idlest_stats.idle_cpus;
                self.explain_choice(sd, (!stay).then_some(idlest_group), move || {
                    format!(
                        "both have spare capacity; local idle CPUs {} {} the idlest's {}",
                        local.idle_cpus,
                        if stay { ">=" } else { "<" },
                        idlest_stats.idle_cpus
                    )
                });
                if stay {
                    IdlestGroup::Local(None)
                } else {
                    IdlestGroup::Other(idlest_group.clone())
                }
            }
        }
    }

    /// For the decision inspector: which group `find_idlest_group` chose, and why
    /// (`why` runs only while a decision is recorded).
    fn explain_choice(
        &self,
        sd: &SchedDomain,
        group: Option<&CpuSet>,
        why: impl FnOnce() -> String,
    ) {
        self.explain(move |_, rec| {
            rec.push(StepDetail::GroupChoice {
                level: sd.level.name(),
                keep_local: group.is_none(),
                group: group.map(CpuSet::to_list_string),
                why: why(),
            });
        });
    }

    /// For the decision inspector: a group's figures as `find_idlest_group` sees them.
    fn group_row(
        &self,
        sd: &SchedDomain,
        group_idx: usize,
        allowed: &CpuSet,
        this_cpu: CpuId,
    ) -> GroupRow {
        let group = &sd.groups[group_idx];
        let stats = self.group_stats(sd, group_idx);
        let capacity = stats.weight.max(1) as f64 * crate::pelt::CAPACITY_SCALE;
        GroupRow {
            cpus: group.to_list_string(),
            local: group.contains(this_cpu),
            idlest: false,
            allowed_cpus: group.intersection_len(allowed) as u32,
            weight: stats.weight,
            sum_nr_running: stats.sum_nr_running,
            idle_cpus: stats.idle_cpus,
            group_type: (self.features.find_idlest_group == IdlestGroupVariant::GroupType)
                .then(|| group_type_name(stats.group_type(sd.imbalance_pct))),
            avg_load: stats.avg_load(),
            util_pct: (stats.util / capacity * 100.0).round() as u32,
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
        let kept = self.numa_fork_rule(sd, task_id, this_cpu, local, idlest);
        self.explain(move |sim, rec| {
            let allowed = &sim.tasks[task_id.0 as usize].affinity;
            let allowed_in_local = sd
                .groups
                .iter()
                .find(|group| group.contains(this_cpu))
                .map_or(0, |group| group.intersection_len(allowed) as u32);
            let running = local.sum_nr_running;
            let keeps_local = kept.is_some();
            let (allowance, imb_numa_nr) = match kept {
                Some((_, allowance, imb)) => (allowance, imb),
                None => match sim.features.numa_fork_rule {
                    NumaForkRule::ImbNumaNr => (
                        sim.numa_imbalance_allowance(sd, task_id, this_cpu),
                        sd.imb_numa_nr,
                    ),
                    NumaForkRule::AffinityAware => {
                        (allowed_in_local.min(sd.imb_numa_nr), sd.imb_numa_nr)
                    }
                    NumaForkRule::Quarter => (local.weight >> 2, local.weight >> 2),
                    _ => (0, 0),
                },
            };
            let decided = if keeps_local {
                "stay local"
            } else {
                "the rule does not apply"
            };
            let rule = match sim.features.numa_fork_rule {
                NumaForkRule::None => None,
                NumaForkRule::LocalIdle => Some(("5.5", None, format!(
                    "the local node has {} idle CPU{}: {decided}",
                    local.idle_cpus,
                    crate::explain::plural(local.idle_cpus)
                ))),
                NumaForkRule::Quarter => Some(("5.11", None, format!(
                    "local running {running} + 1 = {dst_running} {} a quarter of the node's {} CPUs = {allowance}: {decided}",
                    if dst_running < allowance { "<" } else { ">=" },
                    local.weight
                ))),
                NumaForkRule::ImbNumaNr => {
                    let limited = sim.policy.numa_affinity.enabled && allowance < sd.imb_numa_nr;
                    Some(("5.18", None, format!(
                        "local running {running} + 1 = {dst_running} {} allowance {allowance} (imb_numa_nr {}; the task may use {allowed_in_local} CPU{} of the local node{}): {decided}",
                        if dst_running <= allowance { "<=" } else { ">" },
                        sd.imb_numa_nr,
                        crate::explain::plural(allowed_in_local),
                        if limited {
                            ", and policy.numa_affinity limits the allowance to them"
                        } else {
                            ", which this rule does not count"
                        }
                    )))
                }
                NumaForkRule::AffinityAware => {
                    let difference = local.idle_cpus.abs_diff(idlest.idle_cpus);
                    Some(("6.0", Some(difference), format!(
                        "local running {running} + 1 = {dst_running} {} allowance min({allowed_in_local} allowed CPUs of the local node, imb_numa_nr {}) = {allowance}, and idle-CPU difference |{} - {}| = {difference} {} {NUMA_IMBALANCE_MIN}: {decided}",
                        if dst_running <= allowance { "<=" } else { ">" },
                        sd.imb_numa_nr,
                        local.idle_cpus,
                        idlest.idle_cpus,
                        if difference <= NUMA_IMBALANCE_MIN { "<=" } else { ">" }
                    )))
                }
            };
            if let Some((rule, idle_difference, why)) = rule {
                rec.push(StepDetail::NumaRule {
                    rule,
                    local_running: running,
                    allowance,
                    imb_numa_nr,
                    allowed_in_local,
                    affinity_limited: allowance < sd.imb_numa_nr
                        && matches!(
                            sim.features.numa_fork_rule,
                            NumaForkRule::ImbNumaNr | NumaForkRule::AffinityAware
                        ),
                    idle_difference,
                    keeps_local,
                    why,
                });
            }
        });
        kept
    }

    /// The version's NUMA rule at fork (see `numa_fork_keeps_local`).
    fn numa_fork_rule(
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
            self.explain_idlest_cpu(group, allowed, idle, move || {
                format!(
                    "find_idlest_group_cpu in CPUs {}: of the idle CPUs the task may use, CPU {} went idle most recently (at {} s)",
                    group.to_list_string(),
                    idle.0,
                    self.cpus[idle.0 as usize].idle_since
                )
            });
            return idle;
        }
        let least = candidates()
            .min_by_key(|cpu| (self.cfs_load(*cpu), cpu.0))
            .expect("the group intersects the affinity mask");
        self.explain_idlest_cpu(group, allowed, least, move || {
            format!(
                "find_idlest_group_cpu in CPUs {}: no allowed CPU is idle; the least loaded is CPU {} (load {})",
                group.to_list_string(),
                least.0,
                self.cfs_load(least)
            )
        });
        least
    }

    /// For the decision inspector: the CPUs `find_idlest_group_cpu` compared.
    fn explain_idlest_cpu(
        &self,
        group: &CpuSet,
        allowed: &CpuSet,
        chosen: CpuId,
        why: impl FnOnce() -> String,
    ) {
        self.explain(move |sim, rec| {
            let cpus = group
                .iter()
                .filter(|cpu| allowed.contains(*cpu))
                .map(|cpu| sim.visit_with(allowed, cpu))
                .collect();
            rec.push(scan_step(
                ScanKind::IdlestGroupCpu,
                chosen,
                None,
                None,
                cpus,
                Some(chosen),
                why(),
            ));
        });
    }
}

/// `group_type` as the kernel's enum names it.
fn group_type_name(group_type: GroupType) -> &'static str {
    match group_type {
        GroupType::HasSpare => "has_spare",
        GroupType::FullyBusy => "fully_busy",
        GroupType::Imbalanced => "imbalanced",
        GroupType::Overloaded => "overloaded",
    }
}

/// Is `candidate` an idler group than `best` (`update_pick_idlest()`, 5.5+)?
fn idlest_is_better(candidate: &GroupStats, best: &GroupStats, pct: u32) -> bool {
    let (candidate_type, best_type) = (candidate.group_type(pct), best.group_type(pct));
    if candidate_type != best_type {
        return candidate_type < best_type;
    }
    match candidate_type {
        // Imbalanced is not classified on this path (see `GroupStats::imbalanced`).
        GroupType::Imbalanced => false,
        GroupType::Overloaded | GroupType::FullyBusy => candidate.avg_load() < best.avg_load(),
        GroupType::HasSpare => {
            candidate.idle_cpus > best.idle_cpus
                || (candidate.idle_cpus == best.idle_cpus && candidate.util < best.util)
        }
    }
}
