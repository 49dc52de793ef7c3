//! A scheduling group's statistics (`update_sg_lb_stats`, `update_sg_wakeup_stats`)
//! and `group_classify`, shared by fork placement and load balancing.
//!
//! Simplifications: a CPU's load is its runqueue's instantaneous weight (the kernel
//! uses PELT `load_avg`), and its runnable average is its PELT utilisation times the
//! tasks it holds (the kernel tracks `runnable_avg` per entity).

use crate::cpuset::CpuSet;
use crate::domains::SchedDomain;
use crate::engine::Simulator;
use crate::pelt::CAPACITY_SCALE;

/// Statistics of one scheduling group.
#[derive(Clone, Copy, Debug, Default)]
pub struct GroupStats {
    pub idle_cpus: u32,
    pub sum_nr_running: u32,
    /// Sum of the CPUs' runqueue weights.
    pub load: u64,
    /// Sum of the CPUs' PELT utilisation (0..1024 each).
    pub util: f64,
    /// Sum of the CPUs' runnable averages (utilisation times runnable tasks).
    pub runnable: f64,
    /// CPUs in the group (its capacity is `weight * 1024`).
    pub weight: u32,
    /// `sg_imbalanced()`: the group's `sgc->imbalance` flag is set. Load balancing
    /// fills it in; fork placement leaves it false (simplification: 5.5+'s
    /// `update_sg_wakeup_stats()` classifies it too).
    pub imbalanced: bool,
}

/// `group_type`, least busy first: the order both `find_idlest_group` and
/// `find_busiest_group` compare. (Misfit and asym packing are not modelled;
/// `Imbalanced` is only classified by load balancing, see `GroupStats::imbalanced`.)
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum GroupType {
    HasSpare,
    FullyBusy,
    /// `group_imbalanced`: a balance inside the group failed because of CPU
    /// affinity (`sg_imbalanced()`).
    Imbalanced,
    Overloaded,
}

impl GroupStats {
    fn capacity(&self) -> f64 {
        self.weight as f64 * CAPACITY_SCALE
    }

    /// `group_has_capacity()`: fewer tasks than CPUs, or utilisation and runnable
    /// time below capacity by the imbalance margin.
    pub fn has_capacity(&self, imbalance_pct: u32) -> bool {
        if self.sum_nr_running < self.weight {
            return true;
        }
        let pct = imbalance_pct as f64;
        if self.capacity() * pct < self.runnable * 100.0 {
            return false;
        }
        self.capacity() * 100.0 > self.util * pct
    }

    /// `group_is_overloaded()`: more tasks than CPUs, and the utilisation or the
    /// runnable time exceeds capacity by the margin.
    pub fn is_overloaded(&self, imbalance_pct: u32) -> bool {
        if self.sum_nr_running <= self.weight {
            return false;
        }
        let pct = imbalance_pct as f64;
        self.capacity() * 100.0 < self.util * pct || self.capacity() * pct < self.runnable * 100.0
    }

    /// `group_classify()` (5.5+).
    pub fn group_type(&self, imbalance_pct: u32) -> GroupType {
        if self.is_overloaded(imbalance_pct) {
            GroupType::Overloaded
        } else if self.imbalanced {
            GroupType::Imbalanced
        } else if !self.has_capacity(imbalance_pct) {
            GroupType::FullyBusy
        } else {
            GroupType::HasSpare
        }
    }

    /// The same counts, and the same averages up to rounding (running sums against
    /// a walk over the CPUs).
    pub(crate) fn matches(&self, other: &GroupStats) -> bool {
        let close = |a: f64, b: f64| (a - b).abs() <= 1e-6 * (1.0 + a.abs().max(b.abs()));
        (self.idle_cpus, self.sum_nr_running, self.load, self.weight)
            == (
                other.idle_cpus,
                other.sum_nr_running,
                other.load,
                other.weight,
            )
            && close(self.util, other.util)
            && close(self.runnable, other.runnable)
    }

    /// `avg_load`: load per unit of capacity, scaled by 1024.
    pub fn avg_load(&self) -> u64 {
        self.load * 1024 / self.weight.max(1) as u64
    }
}

impl Simulator {
    /// The statistics of group `group` of `sd`, over all its CPUs (the kernel's group
    /// stats cover the whole group, not only the CPUs a task may use: this is what
    /// lets pinned tasks pile up). Wide domains read running sums
    /// (`engine/group_sums.rs`) instead of walking every CPU.
    pub(crate) fn group_stats(&self, sd: &SchedDomain, group: usize) -> GroupStats {
        let Some(&summed) = sd.sums.get(group) else {
            return self.group_stats_by_cpu(&sd.groups[group]);
        };
        let stats = self.summed_group_stats(summed);
        #[cfg(debug_assertions)]
        {
            let walked = self.group_stats_by_cpu(&sd.groups[group]);
            debug_assert!(
                stats.matches(&walked),
                "group sums drifted from the CPUs: {stats:?} against {walked:?}"
            );
        }
        stats
    }

    /// `update_sg_lb_stats()`'s walk: every CPU of the group.
    pub(crate) fn group_stats_by_cpu(&self, group: &CpuSet) -> GroupStats {
        let mut stats = GroupStats::default();
        for cpu in group.iter() {
            let rq = &self.rqs[cpu.0 as usize];
            let util = self.cpu_util(cpu);
            stats.weight += 1;
            stats.sum_nr_running += rq.nr_running;
            stats.load += self.cfs_load(cpu);
            stats.util += util;
            stats.runnable += util * rq.nr_running.max(1) as f64;
            if self.cpu_is_idle(cpu) {
                stats.idle_cpus += 1;
            }
        }
        stats
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn stats(nr: u32, weight: u32, util_each: f64) -> GroupStats {
        GroupStats {
            idle_cpus: 0,
            sum_nr_running: nr,
            load: nr as u64 * 1024,
            util: util_each * weight as f64,
            runnable: util_each * nr as f64,
            weight,
            imbalanced: false,
        }
    }

    #[test]
    fn an_imbalanced_group_ranks_above_busy_and_below_overloaded() {
        let mut spare = stats(2, 4, 300.0);
        assert_eq!(spare.group_type(117), GroupType::HasSpare);
        spare.imbalanced = true;
        assert_eq!(spare.group_type(117), GroupType::Imbalanced);
        let mut overloaded = stats(6, 4, 1000.0);
        overloaded.imbalanced = true;
        assert_eq!(overloaded.group_type(117), GroupType::Overloaded);
        assert!(GroupType::FullyBusy < GroupType::Imbalanced);
        assert!(GroupType::Imbalanced < GroupType::Overloaded);
    }

    #[test]
    fn a_group_with_one_task_per_cpu_is_fully_busy_only_when_utilised() {
        // Four tasks on four CPUs that each run 30 % of the time: spare capacity.
        assert_eq!(stats(4, 4, 300.0).group_type(117), GroupType::HasSpare);
        // The same tasks running flat out: fully busy.
        assert_eq!(stats(4, 4, 1000.0).group_type(117), GroupType::FullyBusy);
        // More tasks than CPUs, flat out: overloaded.
        assert_eq!(stats(6, 4, 1000.0).group_type(117), GroupType::Overloaded);
        // More tasks than CPUs but mostly asleep: not overloaded.
        assert_eq!(stats(6, 4, 100.0).group_type(117), GroupType::HasSpare);
    }
}
