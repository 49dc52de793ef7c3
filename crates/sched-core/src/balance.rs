//! Load balancing: `newidle_balance` when a CPU is about to go idle, and periodic
//! `load_balance` per domain at its interval (from the tick on busy CPUs, and on
//! behalf of idle CPUs through a NOHZ idle balance).
//!
//! `load_balance()` here: find the busiest group of the domain (`find_busiest_group`,
//! by group type then average load), its busiest runqueue, and detach waiting tasks
//! that may run on this CPU (`can_migrate_task`: allowed, not running, not
//! `task_hot` unless balancing keeps failing), at most `sched_nr_migrate` looked at,
//! never leaving the source empty. Simplifications: the imbalance is counted in
//! tasks (half the difference in runnable tasks), not PELT load; no active balance.

use crate::domains::SchedDomain;
use crate::engine::Simulator;
use crate::task::{TaskId, TaskState};
use crate::time::SimTime;
use crate::topology::CpuId;
use crate::trace::Reason;
use crate::wakeup::GroupType;

/// Kernel's `busy_factor`: a busy CPU balances this many times less often.
pub const BUSY_FACTOR: u64 = 16;

impl Simulator {
    /// `newidle_balance()`. Returns true when a task was pulled.
    pub(crate) fn newidle_balance(&mut self, cpu: CpuId) -> bool {
        let cpu_idx = cpu.0 as usize;
        let avg_idle = self.cpus[cpu_idx].avg_idle_ns;
        // Not worth it when this CPU's idle periods are short, or nothing is waiting.
        if avg_idle < self.knobs.sched_migration_cost_ns || !self.any_waiting() {
            return false;
        }
        let n_domains = self.domains.of(cpu).len();
        let mut spent = 0u64;
        for level in 0..n_domains {
            let sd = self.domains.of(cpu)[level].clone();
            let expected = self.cpus[cpu_idx].max_newidle_lb_cost[level];
            if avg_idle < spent + expected {
                break;
            }
            if !sd.flags.balance_newidle {
                continue;
            }
            let cost =
                self.costs.balance_attempt_ns + sd.span.len() as u64 * self.costs.scan_per_cpu_ns;
            spent += cost;
            self.charge_overhead(cpu, cost);
            let slot = &mut self.cpus[cpu_idx].max_newidle_lb_cost[level];
            *slot = (*slot).max(cost);
            if self.load_balance(cpu, level, &sd, true) {
                return true;
            }
        }
        false
    }

    /// Whether any runqueue has a task waiting behind another (the root domain's
    /// `overload` flag).
    fn any_waiting(&self) -> bool {
        self.rqs.iter().any(|rq| rq.nr_running >= 2)
    }

    /// Periodic balancing for one CPU (`rebalance_domains()`), from its tick.
    pub(crate) fn rebalance_domains(&mut self, cpu: CpuId, idle: bool) {
        let cpu_idx = cpu.0 as usize;
        let n_domains = self.domains.of(cpu).len();
        for level in 0..n_domains {
            let sd = self.domains.of(cpu)[level].clone();
            let mut interval_ms = sd.min_interval_ms.max(1);
            if !idle {
                interval_ms *= BUSY_FACTOR;
            }
            let due = self.cpus[cpu_idx].last_balance[level] + SimTime::from_ms(interval_ms);
            if self.now() < due {
                continue;
            }
            self.cpus[cpu_idx].last_balance[level] = self.now();
            let cost =
                self.costs.balance_attempt_ns + sd.span.len() as u64 * self.costs.scan_per_cpu_ns;
            self.charge_overhead(cpu, cost);
            if self.load_balance(cpu, level, &sd, false) && idle {
                // An idle CPU that pulled work stops balancing higher levels for now.
                break;
            }
        }
    }

    /// NOHZ idle balance: idle CPUs have no tick, so a busy CPU's tick kicks one
    /// balance pass on their behalf when some runqueue has waiting tasks.
    pub(crate) fn nohz_idle_balance(&mut self) {
        if !self.any_waiting() {
            return;
        }
        let idle: Vec<CpuId> = (0..self.rqs.len())
            .map(|idx| CpuId(idx as u32))
            .filter(|cpu| self.cpu_is_idle(*cpu))
            .collect();
        for cpu in idle {
            if !self.cpu_is_idle(cpu) {
                continue;
            }
            self.rebalance_domains(cpu, true);
        }
    }

    /// `load_balance()` at one domain level. Returns true when a task moved.
    fn load_balance(
        &mut self,
        this_cpu: CpuId,
        level: usize,
        sd: &SchedDomain,
        newidle: bool,
    ) -> bool {
        let this_idx = this_cpu.0 as usize;
        // find_busiest_group()
        let mut local = None;
        let mut busiest: Option<(crate::wakeup::GroupStats, usize)> = None;
        for (group_idx, group) in sd.groups.iter().enumerate() {
            let stats = self.group_stats(group, None);
            if group.contains(this_cpu) {
                local = Some(stats);
                continue;
            }
            let busier = match &busiest {
                None => true,
                Some((best, _)) => {
                    (stats.group_type(), stats.sum_nr_running, stats.avg_load())
                        > (best.group_type(), best.sum_nr_running, best.avg_load())
                }
            };
            if busier {
                busiest = Some((stats, group_idx));
            }
        }
        let (Some(local), Some((busiest_stats, busiest_idx))) = (local, busiest) else {
            return false;
        };
        // Balanced enough? Only a group with waiting work, busier than this one, counts.
        if busiest_stats.sum_nr_running <= busiest_stats.weight
            && busiest_stats.group_type() != GroupType::Overloaded
        {
            // Tasks can still wait on one CPU of a group with spare CPUs elsewhere in it.
            let waiting = sd.groups[busiest_idx]
                .iter()
                .any(|cpu| self.rqs[cpu.0 as usize].nr_running >= 2);
            if !waiting || local.idle_cpus == 0 {
                return false;
            }
        }
        let diff = busiest_stats
            .sum_nr_running
            .saturating_sub(local.sum_nr_running);
        if diff < 2 && local.idle_cpus == 0 {
            return false;
        }
        if sd.flags.numa
            && busiest_stats.sum_nr_running <= sd.imb_numa_nr
            && local.idle_cpus > 0
            && busiest_stats.group_type() == GroupType::HasSpare
        {
            // adjust_numa_imbalance(): a small imbalance across nodes is allowed.
            return false;
        }
        let mut imbalance = (diff / 2).max(1);

        // find_busiest_queue(): the CPU with the most runnable tasks, with one waiting.
        let src = sd.groups[busiest_idx]
            .iter()
            .filter(|cpu| self.rqs[cpu.0 as usize].nr_running >= 2)
            .max_by_key(|cpu| {
                (
                    self.rqs[cpu.0 as usize].nr_running,
                    std::cmp::Reverse(cpu.0),
                )
            });
        let Some(src) = src else {
            return false;
        };

        // detach_tasks(): oldest-run first (the tail of `cfs_tasks`).
        let mut candidates: Vec<TaskId> = self.rqs[src.0 as usize]
            .queued
            .iter()
            .map(|(_, task)| *task)
            .collect();
        candidates.sort_by_key(|task| (self.tasks[task.0 as usize].last_ran, task.0));
        let failed = self.cpus[this_idx].balance_failed[level];
        let may_move_hot = failed > sd.cache_nice_tries;
        let mut moved = 0u32;
        let mut blocked_by_hot_or_affinity = false;
        for (looked, task_id) in candidates.into_iter().enumerate() {
            if looked as u32 >= self.knobs.sched_nr_migrate || imbalance == 0 {
                break;
            }
            // Never leave the source runqueue empty while balancing for an idle CPU.
            if self.rqs[src.0 as usize].nr_running <= 1 {
                break;
            }
            let task = &self.tasks[task_id.0 as usize];
            if task.state != TaskState::Queued(src) {
                continue;
            }
            if !task.affinity.contains(this_cpu) {
                blocked_by_hot_or_affinity = true;
                continue;
            }
            if !may_move_hot && self.task_hot(task_id, this_cpu) {
                blocked_by_hot_or_affinity = true;
                continue;
            }
            let src_nr_running = self.rqs[src.0 as usize].nr_running;
            let reason = Reason::Pull {
                src: src.0,
                src_nr_running,
                level: sd.level.tag(),
                newidle,
            };
            self.move_queued_task(!newidle, task_id, src, this_cpu, reason);
            moved += 1;
            imbalance -= 1;
        }
        let counter = &mut self.cpus[this_idx].balance_failed[level];
        if moved > 0 {
            *counter = 0;
        } else if blocked_by_hot_or_affinity {
            *counter += 1;
        }
        moved > 0
    }

    /// `task_hot()`: ran within `sched_migration_cost_ns` (and not moving to an SMT
    /// sibling, which shares its caches).
    pub(crate) fn task_hot(&self, task_id: TaskId, dest: CpuId) -> bool {
        let task = &self.tasks[task_id.0 as usize];
        if self.topology.core_of(task.cpu) == self.topology.core_of(dest) {
            return false;
        }
        let since = (self.now() - task.last_ran).as_ns();
        since < self.knobs.sched_migration_cost_ns
    }
}
