//! A per-CPU CFS runqueue: queued tasks ordered by vruntime, the current task apart.

use crate::task::TaskId;
use std::collections::BTreeSet;

/// Invariant: `curr` is never in `queued`; `nr_running` counts `queued` plus `curr`
/// (when it is a runnable task), and `load_weight` is the sum of their weights.
#[derive(Clone, Debug, Default)]
pub struct CfsRq {
    /// `(vruntime, task)`: the leftmost entry is the next to run. The task id breaks
    /// ties, so the order never depends on insertion history.
    pub queued: BTreeSet<(u64, TaskId)>,
    pub curr: Option<TaskId>,
    pub nr_running: u32,
    pub load_weight: u64,
    pub min_vruntime: u64,
    /// `cfs_rq->last` (LAST_BUDDY): the task a wakeup preempted, which the next pick
    /// prefers while that is not unfair; cleared when it is picked or leaves.
    pub last: Option<TaskId>,
    /// `load_avg` and `runnable_load_avg` (`crate::load_avg`).
    pub load_avg: crate::load_avg::RqLoadAvg,
}

impl CfsRq {
    pub fn leftmost(&self) -> Option<(u64, TaskId)> {
        self.queued.first().copied()
    }

    pub fn insert(&mut self, vruntime: u64, task: TaskId) {
        let fresh = self.queued.insert((vruntime, task));
        debug_assert!(fresh, "task queued twice");
    }

    pub fn remove(&mut self, vruntime: u64, task: TaskId) {
        let present = self.queued.remove(&(vruntime, task));
        debug_assert!(present, "removing a task that is not queued");
    }

    /// `update_min_vruntime()`: never goes backwards; follows the smaller of the
    /// current task's and the leftmost queued task's vruntime.
    pub fn update_min_vruntime(&mut self, curr_vruntime: Option<u64>) {
        let leftmost = self.leftmost().map(|(vruntime, _)| vruntime);
        self.min_vruntime = next_min_vruntime(self.min_vruntime, curr_vruntime, leftmost);
    }
}

/// `update_min_vruntime()` of any cfs_rq: the smaller of the current entity's and the
/// leftmost queued entity's vruntime, never going backwards.
pub fn next_min_vruntime(min_vruntime: u64, curr: Option<u64>, leftmost: Option<u64>) -> u64 {
    let candidate = match (curr, leftmost) {
        (Some(curr), Some(left)) => Some(curr.min(left)),
        (one, other) => one.or(other),
    };
    candidate.map_or(min_vruntime, |candidate| min_vruntime.max(candidate))
}
