//! CFS bandwidth control: cgroups with a quota of CPU time per period.
//!
//! Runtime used by a group's tasks is charged to the group and to every ancestor
//! with a quota. When a group's runtime runs out, the group is throttled: its
//! running and queued tasks leave their runqueues (`throttle_cfs_rq`, whose walk of
//! the group's subtree is `tg_throttle_down`); tasks woken meanwhile stay parked.
//! The period timer refills the quota and unthrottles (`tg_unthrottle_up`).
//! Simplifications: one global runtime pool per group (no per-CPU slices of
//! `sched_cfs_bandwidth_slice_us`), and overrun until the next runtime update
//! (a tick at the latest) is carried into the next period as debt.

use crate::engine::{Event, Simulator};
use crate::task::{TaskId, TaskState};
use crate::time::SimTime;
use crate::topology::CpuId;
use crate::trace::{Reason, TraceKind};
use serde::Serialize;

/// CPU time the tree walk costs per task group visited on one CPU.
pub const TG_WALK_NS_PER_GROUP: u64 = 30;

#[derive(Clone, Debug)]
pub struct TaskGroup {
    pub name: String,
    pub parent: Option<u32>,
    pub quota_ns: Option<u64>,
    pub period_ns: u64,
    /// Runtime left in this period (negative: overrun, paid next period).
    pub runtime_ns: i64,
    pub throttled: bool,
    /// Tasks directly in this group.
    pub tasks: Vec<TaskId>,
    /// This group and all its descendants.
    pub subtree_size: u32,
}

/// Bandwidth-control counters for a run.
#[derive(Clone, Debug, Default, Serialize, PartialEq, Eq)]
pub struct BandwidthStats {
    pub throttles: u64,
    pub unthrottles: u64,
    /// Task groups visited by throttle and unthrottle walks, over all CPUs.
    pub tg_walk_visits: u64,
}

impl Simulator {
    /// The groups whose quota a task's runtime counts against: its own and its
    /// ancestors', nearest first.
    fn quota_chain(&self, task_id: TaskId) -> Vec<u32> {
        let mut chain = Vec::new();
        let mut group = self.tasks[task_id.0 as usize].cgroup;
        while let Some(idx) = group {
            let tg = &self.groups[idx as usize];
            if tg.quota_ns.is_some() {
                chain.push(idx);
            }
            group = tg.parent;
        }
        chain
    }

    /// Whether the task's group or an ancestor is throttled.
    pub(crate) fn task_throttled(&self, task_id: TaskId) -> bool {
        let mut group = self.tasks[task_id.0 as usize].cgroup;
        while let Some(idx) = group {
            let tg = &self.groups[idx as usize];
            if tg.throttled {
                return true;
            }
            group = tg.parent;
        }
        false
    }

    /// `account_cfs_rq_runtime()`: charge `delta_ns` of `task_id`'s runtime; a group
    /// that runs out is queued for throttling at the next scheduling point.
    pub(crate) fn account_bandwidth(&mut self, task_id: TaskId, cpu: CpuId, delta_ns: u64) {
        if self.tasks[task_id.0 as usize].cgroup.is_none() {
            return;
        }
        for group in self.quota_chain(task_id) {
            let tg = &mut self.groups[group as usize];
            tg.runtime_ns -= delta_ns as i64;
            if tg.runtime_ns <= 0 && !tg.throttled && !self.pending_throttle.contains(&group) {
                self.pending_throttle.push(group);
                self.request_resched_for_bandwidth(cpu);
            }
        }
    }

    /// Throttles every group that ran out of runtime since the last scheduling point.
    pub(crate) fn apply_pending_throttles(&mut self) {
        while let Some(group) = self.pending_throttle.pop() {
            if self.groups[group as usize].runtime_ns <= 0 && !self.groups[group as usize].throttled
            {
                self.throttle_group(group);
            }
        }
    }

    fn subtree_tasks(&self, group: u32) -> Vec<TaskId> {
        let tg = &self.groups[group as usize];
        if tg.subtree_size == 1 {
            // A leaf (the common case): no need to look for descendants.
            return tg.tasks.clone();
        }
        let mut out = Vec::new();
        for (idx, tg) in self.groups.iter().enumerate() {
            if self.is_descendant(idx as u32, group) {
                out.extend(tg.tasks.iter().copied());
            }
        }
        out
    }

    fn is_descendant(&self, mut group: u32, ancestor: u32) -> bool {
        loop {
            if group == ancestor {
                return true;
            }
            match self.groups[group as usize].parent {
                Some(parent) => group = parent,
                None => return false,
            }
        }
    }

    /// `throttle_cfs_rq()` on every CPU where the group has runnable tasks.
    fn throttle_group(&mut self, group: u32) {
        self.groups[group as usize].throttled = true;
        self.bandwidth.throttles += 1;
        let walk = self.groups[group as usize].subtree_size as u64;
        let mut tally = WalkTally::default();
        for task_id in self.subtree_tasks(group) {
            let state = self.tasks[task_id.0 as usize].state;
            let cpu = match state {
                TaskState::Running(cpu) => {
                    self.dequeue_curr(task_id, cpu, TaskState::Throttled(cpu));
                    cpu
                }
                TaskState::Queued(cpu) => {
                    self.dequeue_queued(task_id, cpu, cpu);
                    self.tasks[task_id.0 as usize].state = TaskState::Throttled(cpu);
                    cpu
                }
                _ => continue,
            };
            tally.touched(cpu);
        }
        // tg_throttle_down() visits each group of the subtree on each CPU.
        self.finish_tree_walk(TraceKind::CfsThrottle, group, walk, &tally);
    }

    /// The period timer: refill the quota (less any overrun) and unthrottle.
    pub(crate) fn refresh_bandwidth(&mut self, group: u32) {
        let tg = &mut self.groups[group as usize];
        let Some(quota) = tg.quota_ns else {
            return;
        };
        tg.runtime_ns = quota as i64 + tg.runtime_ns.min(0);
        let period = tg.period_ns;
        let next = self.now() + SimTime(period);
        self.push_event(next, Event::BandwidthRefresh(group));
        if self.groups[group as usize].throttled && self.groups[group as usize].runtime_ns > 0 {
            self.unthrottle_group(group);
        }
    }

    fn unthrottle_group(&mut self, group: u32) {
        self.groups[group as usize].throttled = false;
        self.bandwidth.unthrottles += 1;
        let walk = self.groups[group as usize].subtree_size as u64;
        let mut tally = WalkTally::default();
        for task_id in self.subtree_tasks(group) {
            let TaskState::Throttled(cpu) = self.tasks[task_id.0 as usize].state else {
                continue;
            };
            if self.task_throttled(task_id) {
                continue; // an ancestor is still throttled
            }
            // enqueue_entity(ENQUEUE_WAKEUP) → place_entity(): like a waking sleeper,
            // the task gets no more than half a latency period of credit.
            let min_vruntime = self.rqs[cpu.0 as usize].min_vruntime;
            let task = &mut self.tasks[task_id.0 as usize];
            task.vruntime = self.knobs.place_woken(task.vruntime, min_vruntime);
            // 6.x unthrottles a remote cfs_rq on its own CPU (async CSD).
            self.enqueue_task(task_id, cpu, cpu);
            self.check_preempt_curr(cpu, task_id);
            tally.touched(cpu);
        }
        // tg_unthrottle_up() visits each group of the subtree on each CPU.
        self.finish_tree_walk(TraceKind::CfsUnthrottle, group, walk, &tally);
    }

    /// Charges a throttle or unthrottle walk of `groups` task groups to each CPU
    /// it touched, and traces it.
    fn finish_tree_walk(&mut self, kind: TraceKind, group: u32, groups: u64, tally: &WalkTally) {
        for &cpu in &tally.cpus {
            self.bandwidth.tg_walk_visits += groups;
            self.charge_overhead(cpu, groups * TG_WALK_NS_PER_GROUP);
            self.struct_layout_touch(
                crate::policy::struct_layout::StructOp::TgWalk { groups },
                cpu,
            );
        }
        let cpu = tally.cpus.first().copied().unwrap_or(CpuId(0));
        self.emit(cpu, kind, 0, group, tally.tasks, Reason::None);
    }
}

/// What a throttle or unthrottle walk touched: tasks moved and the CPUs they were on.
#[derive(Default)]
struct WalkTally {
    tasks: u32,
    cpus: Vec<CpuId>,
}

impl WalkTally {
    fn touched(&mut self, cpu: CpuId) {
        self.tasks += 1;
        if !self.cpus.contains(&cpu) {
            self.cpus.push(cpu);
        }
    }
}
