//! Where a task goes when it wakes (`select_task_rq_fair`) or forks (`find_idlest_cpu`).
//!
//! Wakeup: `wake_affine` picks between the waker's CPU and the previous CPU (unless
//! `wake_wide` says the waker fans out), then `select_idle_sibling` looks inside the
//! target's LLC: the target if idle, the previous CPU if idle and cache-affine, the
//! recently used CPU, an idle core, then an idle CPU within the SIS_UTIL scan limit,
//! else the target. Loads are the runqueues' instantaneous weights, where the kernel
//! uses PELT load averages.
//!
//! Fork: walk down from the widest domain with SD_BALANCE_FORK, at each level
//! choosing the idlest group (`find_idlest_group`, including the NUMA rule that keeps
//! a task local while `local.sum_nr_running + 1 <= imb_numa_nr`), then its idlest CPU.

use crate::cpuset::CpuSet;
use crate::domains::SchedDomain;
use crate::engine::Simulator;
use crate::pelt::CAPACITY_SCALE;
use crate::task::TaskId;
use crate::topology::CpuId;
use crate::trace::{Affine, Reason, SisStep};

/// Statistics of one scheduling group, as `update_sg_wakeup_stats()` gathers them.
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct GroupStats {
    pub idle_cpus: u32,
    pub sum_nr_running: u32,
    pub load: u64,
    pub util: f64,
    pub weight: u32,
}

/// `group_type`, least busy first: the order `find_idlest_group` compares.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub(crate) enum GroupType {
    HasSpare,
    FullyBusy,
    Overloaded,
}

impl GroupStats {
    pub fn group_type(&self) -> GroupType {
        if self.sum_nr_running > self.weight {
            GroupType::Overloaded
        } else if self.idle_cpus == 0
            && (self.sum_nr_running >= self.weight
                || self.util >= self.weight as f64 * CAPACITY_SCALE * 0.85)
        {
            GroupType::FullyBusy
        } else {
            GroupType::HasSpare
        }
    }

    pub fn avg_load(&self) -> u64 {
        self.load * 1024 / self.weight.max(1) as u64
    }
}

impl Simulator {
    pub(crate) fn group_stats(&self, group: &CpuSet, allowed: Option<&CpuSet>) -> GroupStats {
        let mut stats = GroupStats::default();
        for cpu in group.iter() {
            if allowed.is_some_and(|mask| !mask.contains(cpu)) {
                continue;
            }
            let rq = &self.rqs[cpu.0 as usize];
            stats.weight += 1;
            stats.sum_nr_running += rq.nr_running;
            stats.load += rq.load_weight;
            stats.util += self.cpu_util(cpu);
            if self.cpu_is_idle(cpu) {
                stats.idle_cpus += 1;
            }
        }
        stats
    }

    /// `select_task_rq_fair()` for a wakeup. `waker` is the waking task, if any
    /// (a timer wakeup has none); `waker_cpu` is where the wakeup runs.
    pub(crate) fn select_task_rq_wake(
        &mut self,
        task_id: TaskId,
        waker_cpu: CpuId,
        waker: Option<TaskId>,
        sync: bool,
    ) -> (CpuId, Reason) {
        let task = &self.tasks[task_id.0 as usize];
        let prev = task.cpu;
        let llc_size =
            self.topology.llc_cpus[self.topology.llc_of(waker_cpu).0 as usize].len() as u32;
        let wide = waker.is_some_and(|waker| self.wake_wide(waker, task_id, llc_size));
        let want_affine = self.policy.wake_affine
            && waker.is_some()
            && !wide
            && task.affinity.contains(waker_cpu);
        let mut target = prev;
        let mut affine = if wide {
            Affine::WakeWide
        } else {
            Affine::NotTried
        };
        if want_affine {
            let domain = self
                .domains
                .of(waker_cpu)
                .iter()
                .find(|sd| sd.flags.wake_affine && sd.span.contains(prev))
                .cloned();
            if let Some(sd) = domain {
                if waker_cpu == prev {
                    affine = Affine::SameCpu;
                } else {
                    target = self.wake_affine(&sd, task_id, waker_cpu, prev, waker, sync);
                    affine = if target == prev {
                        Affine::KeptPrev
                    } else {
                        Affine::ChoseWaker
                    };
                }
            }
        }
        let (cpu, step, llc, scanned, limit) =
            self.select_idle_sibling(task_id, prev, target, waker_cpu);
        (
            cpu,
            Reason::Wakeup {
                affine,
                step,
                prev: prev.0,
                target: target.0,
                llc,
                scanned,
                limit,
            },
        )
    }

    /// `wake_wide()`: true when the waker switches between many wakees, so pulling
    /// them all to its LLC would overload it.
    fn wake_wide(&self, waker: TaskId, wakee: TaskId, llc_size: u32) -> bool {
        let waker_flips = self.tasks[waker.0 as usize].wakee_flips;
        let wakee_flips = self.tasks[wakee.0 as usize].wakee_flips;
        let (master, slave) = if waker_flips >= wakee_flips {
            (waker_flips, wakee_flips)
        } else {
            (wakee_flips, waker_flips)
        };
        !(slave < llc_size || master < slave.saturating_mul(llc_size))
    }

    /// `wake_affine()`: the waker's CPU (`this`) or the previous CPU.
    fn wake_affine(
        &self,
        sd: &SchedDomain,
        task_id: TaskId,
        this: CpuId,
        prev: CpuId,
        waker: Option<TaskId>,
        sync: bool,
    ) -> CpuId {
        // wake_affine_idle()
        if self.cpu_is_idle(this) && self.topology.llc_of(this) == self.topology.llc_of(prev) {
            return if self.cpu_is_idle(prev) { prev } else { this };
        }
        if sync && self.rqs[this.0 as usize].nr_running == 1 {
            return this;
        }
        if self.cpu_is_idle(prev) {
            return prev;
        }
        // wake_affine_weight()
        let task_weight = self.tasks[task_id.0 as usize].weight as u64;
        let mut this_load = self.rqs[this.0 as usize].load_weight;
        if sync {
            let waker_weight = waker.map_or(0, |waker| self.tasks[waker.0 as usize].weight as u64);
            this_load = this_load.saturating_sub(waker_weight);
        }
        let this_eff = (this_load + task_weight) * 100;
        let prev_eff =
            self.rqs[prev.0 as usize].load_weight * (100 + (sd.imbalance_pct as u64 - 100) / 2);
        if this_eff < prev_eff {
            this
        } else {
            prev
        }
    }

    /// `select_idle_sibling()`. Returns the CPU, the step that chose it, the LLC,
    /// how many CPUs were inspected and the SIS_UTIL limit (when the scan ran).
    fn select_idle_sibling(
        &mut self,
        task_id: TaskId,
        prev: CpuId,
        target: CpuId,
        scanning_cpu: CpuId,
    ) -> (CpuId, SisStep, u32, u32, Option<u32>) {
        let affinity = self.tasks[task_id.0 as usize].affinity.clone();
        let llc = self.topology.llc_of(target);
        let allowed_here = |cpu: CpuId| affinity.contains(cpu);
        if !allowed_here(target) {
            let idle = affinity.iter().find(|cpu| self.cpu_is_idle(*cpu));
            let first = affinity.first().expect("affinity is never empty");
            return (
                idle.unwrap_or(first),
                SisStep::AffinityFallback,
                llc.0,
                0,
                None,
            );
        }
        if self.cpu_is_idle(target) {
            return (target, SisStep::TargetIdle, llc.0, 0, None);
        }
        if prev != target
            && self.topology.llc_of(prev) == llc
            && allowed_here(prev)
            && self.cpu_is_idle(prev)
        {
            return (prev, SisStep::PrevIdle, llc.0, 0, None);
        }
        let recent = self.tasks[task_id.0 as usize].recent_used_cpu;
        self.tasks[task_id.0 as usize].recent_used_cpu = Some(prev);
        if let Some(recent) = recent {
            if recent != prev
                && recent != target
                && self.topology.llc_of(recent) == llc
                && allowed_here(recent)
                && self.cpu_is_idle(recent)
            {
                return (recent, SisStep::RecentUsed, llc.0, 0, None);
            }
        }

        let llc_cpus: Vec<CpuId> = self.topology.llc_cpus[llc.0 as usize].iter().collect();
        let start = llc_cpus.iter().position(|cpu| *cpu == target).unwrap_or(0);
        let order: Vec<CpuId> = (1..=llc_cpus.len())
            .map(|offset| llc_cpus[(start + offset) % llc_cpus.len()])
            .collect();
        let smt = self.topology.shape.threads_per_core > 1;
        let mut scanned = 0u32;
        if smt && self.llc_has_idle_core(llc.0) {
            // select_idle_core(): a core whose threads are all idle; no scan limit.
            let mut seen_cores = Vec::new();
            let mut any_idle: Option<CpuId> = None;
            for cpu in &order {
                let core = self.topology.core_of(*cpu);
                if seen_cores.contains(&core) {
                    continue;
                }
                seen_cores.push(core);
                let threads: Vec<CpuId> = self.topology.core_cpus[core.0 as usize].iter().collect();
                scanned += threads.len() as u32;
                let all_idle = threads.iter().all(|thread| self.cpu_is_idle(*thread));
                let allowed_idle = threads
                    .iter()
                    .copied()
                    .find(|thread| allowed_here(*thread) && self.cpu_is_idle(*thread));
                if all_idle {
                    if let Some(cpu) = allowed_idle {
                        self.charge_scan(scanning_cpu, scanned);
                        return (cpu, SisStep::IdleCore, llc.0, scanned, None);
                    }
                }
                if any_idle.is_none() {
                    any_idle = allowed_idle;
                }
            }
            self.charge_scan(scanning_cpu, scanned);
            return match any_idle {
                Some(cpu) => (cpu, SisStep::IdleCpu, llc.0, scanned, None),
                None => (target, SisStep::NoneIdle, llc.0, scanned, None),
            };
        }
        // select_idle_cpu() under SIS_UTIL: the busier the LLC, the fewer CPUs looked at.
        let limit = self.sis_util_scan_limit(llc.0);
        let mut budget = limit;
        for cpu in order {
            if budget <= 1 {
                break;
            }
            budget -= 1;
            if !allowed_here(cpu) {
                continue;
            }
            scanned += 1;
            if self.cpu_is_idle(cpu) {
                self.charge_scan(scanning_cpu, scanned);
                return (cpu, SisStep::IdleCpu, llc.0, scanned, Some(limit));
            }
        }
        self.charge_scan(scanning_cpu, scanned);
        (target, SisStep::NoneIdle, llc.0, scanned, Some(limit))
    }

    /// The kernel keeps a per-LLC "has idle cores" hint; here it is exact.
    fn llc_has_idle_core(&self, llc: u32) -> bool {
        let mut seen = Vec::new();
        for cpu in self.topology.llc_cpus[llc as usize].iter() {
            let core = self.topology.core_of(cpu);
            if seen.contains(&core) {
                continue;
            }
            seen.push(core);
            if self.topology.core_cpus[core.0 as usize]
                .iter()
                .all(|thread| self.cpu_is_idle(thread))
            {
                return true;
            }
        }
        false
    }

    /// SIS_UTIL (`update_idle_cpu_scan()`): with `x` the LLC's average utilisation
    /// as a fraction and `pct` its imbalance percentage, scan
    /// `llc_weight * (1 - (x * pct / 100)^2)` CPUs, none once that reaches zero.
    pub(crate) fn sis_util_scan_limit(&self, llc: u32) -> u32 {
        let cpus = &self.topology.llc_cpus[llc as usize];
        let weight = cpus.len() as f64;
        let util: f64 = cpus.iter().map(|cpu| self.cpu_util(cpu)).sum();
        let fraction = (util / (weight * CAPACITY_SCALE)).min(1.0);
        let scaled = fraction * 117.0 / 100.0;
        let remaining = (1.0 - scaled * scaled).max(0.0);
        (weight * remaining) as u32
    }

    fn charge_scan(&mut self, cpu: CpuId, inspected: u32) {
        let cost = inspected as u64 * self.costs.scan_per_cpu_ns;
        self.charge_overhead(cpu, cost);
    }

    /// `find_idlest_cpu()` for a new task forked on `this_cpu`.
    pub(crate) fn select_task_rq_fork(
        &mut self,
        task_id: TaskId,
        this_cpu: CpuId,
    ) -> (CpuId, Reason) {
        let affinity = self.tasks[task_id.0 as usize].affinity.clone();
        let mut cpu = if affinity.contains(this_cpu) {
            this_cpu
        } else {
            affinity.first().expect("affinity is never empty")
        };
        let mut reason = Reason::ForkIdlest {
            level: crate::domains::DomainLevel::Smt.tag(),
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
            let sd = self.domains.of(cpu)[idx].clone();
            inspected += sd.span.len() as u32;
            match self.find_idlest_group(&sd, &affinity, cpu) {
                IdlestGroup::Local(Some(numa)) => {
                    reason = Reason::ForkNumaImbalance {
                        level: sd.level.tag(),
                        local_running: numa.0,
                        imb_numa_nr: numa.1,
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
                    let weight = sd.span.len();
                    cpu = new_cpu;
                    reason = Reason::ForkIdlest {
                        level: sd.level.tag(),
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
        self.charge_scan(this_cpu, inspected);
        (cpu, reason)
    }

    /// `find_idlest_group()`: `Local` keeps the task in the group of `this_cpu`
    /// (with the NUMA imbalance figures when that rule decided), `Other` names the
    /// idlest remote group.
    fn find_idlest_group(
        &self,
        sd: &SchedDomain,
        allowed: &CpuSet,
        this_cpu: CpuId,
    ) -> IdlestGroup {
        let mut local: Option<GroupStats> = None;
        let mut idlest: Option<(GroupStats, CpuSet)> = None;
        for group in &sd.groups {
            if !group.intersects(allowed) {
                continue;
            }
            // Statistics cover the whole group, not only the CPUs the task may use
            // (`update_sg_wakeup_stats()`): this is what lets pinned tasks pile up.
            let stats = self.group_stats(group, None);
            if group.contains(this_cpu) {
                local = Some(stats);
                continue;
            }
            let better = match &idlest {
                None => true,
                Some((best, _)) => idlest_is_better(&stats, best),
            };
            if better {
                idlest = Some((stats, group.clone()));
            }
        }
        let Some((idlest_stats, idlest_group)) = idlest else {
            return IdlestGroup::Local(None);
        };
        let Some(local) = local else {
            return IdlestGroup::Other(idlest_group);
        };
        let (local_type, idlest_type) = (local.group_type(), idlest_stats.group_type());
        if local_type < idlest_type {
            return IdlestGroup::Local(None);
        }
        if local_type > idlest_type {
            return IdlestGroup::Other(idlest_group);
        }
        match local_type {
            GroupType::Overloaded | GroupType::FullyBusy => {
                // Only move when the remote group is clearly less loaded.
                let threshold = local.avg_load() * 100 / sd.imbalance_pct as u64;
                if idlest_stats.avg_load() >= threshold {
                    IdlestGroup::Local(None)
                } else {
                    IdlestGroup::Other(idlest_group)
                }
            }
            GroupType::HasSpare => {
                if sd.flags.numa {
                    let imb = self.numa_imbalance_allowance(sd, allowed, this_cpu);
                    if local.sum_nr_running < imb {
                        return IdlestGroup::Local(Some((local.sum_nr_running, imb)));
                    }
                }
                if local.idle_cpus >= idlest_stats.idle_cpus {
                    IdlestGroup::Local(None)
                } else {
                    IdlestGroup::Other(idlest_group)
                }
            }
        }
    }

    /// How many tasks a NUMA domain lets pile up in the local group before spreading.
    /// Baseline: the domain's `imb_numa_nr`.
    pub(crate) fn numa_imbalance_allowance(
        &self,
        sd: &SchedDomain,
        _allowed: &CpuSet,
        _this_cpu: CpuId,
    ) -> u32 {
        sd.imb_numa_nr
    }

    /// `find_idlest_group_cpu()`: the idle CPU that went idle most recently, else the
    /// least loaded CPU.
    fn find_idlest_group_cpu(&self, group: &CpuSet, allowed: &CpuSet) -> CpuId {
        let candidates: Vec<CpuId> = group.iter().filter(|cpu| allowed.contains(*cpu)).collect();
        if let Some(idle) = candidates
            .iter()
            .copied()
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
        candidates
            .into_iter()
            .min_by_key(|cpu| (self.rqs[cpu.0 as usize].load_weight, cpu.0))
            .expect("the group intersects the affinity mask")
    }
}

pub(crate) enum IdlestGroup {
    /// Stay in the local group; with `(local.sum_nr_running, allowance)` when the
    /// NUMA imbalance rule decided.
    Local(Option<(u32, u32)>),
    Other(CpuSet),
}

/// Is `candidate` an idler group than `best` (`update_pick_idlest()`)?
fn idlest_is_better(candidate: &GroupStats, best: &GroupStats) -> bool {
    let (candidate_type, best_type) = (candidate.group_type(), best.group_type());
    if candidate_type != best_type {
        return candidate_type < best_type;
    }
    match candidate_type {
        GroupType::Overloaded | GroupType::FullyBusy => candidate.avg_load() < best.avg_load(),
        GroupType::HasSpare => {
            candidate.idle_cpus > best.idle_cpus
                || (candidate.idle_cpus == best.idle_cpus
                    && candidate.sum_nr_running < best.sum_nr_running)
        }
    }
}
