//! Cgroups and CFS bandwidth control, as in 6.5's `kernel/sched/fair.c`.
//!
//! Every task group has one `cfs_rq` per CPU ([`GroupRq`]). A group with a quota
//! has a pool of runtime per period (`cfs_b->runtime`); each of its cfs_rqs takes
//! runtime from the pool in slices of `sched_cfs_bandwidth_slice_us` (5 ms) as its
//! tasks run (`assign_cfs_rq_runtime`), so quotas at any level of the tree throttle,
//! CPU by CPU: a cfs_rq out of runtime with an empty pool is throttled on its CPU
//! alone (`throttle_cfs_rq`, whose walk of the subtree is `tg_throttle_down`), and
//! the period timer refills the pool and hands it to the throttled cfs_rqs in the
//! order they were throttled (`distribute_cfs_runtime`, `tg_unthrottle_up`).
//! A cfs_rq that empties gives back what it holds beyond 1 ms
//! (`return_cfs_rq_runtime`).
//!
//! Simplifications (also in docs/MODEL-STATUS.md):
//! - the slack timer (which hands returned runtime to throttled cfs_rqs 5 ms later)
//!   is not modelled: throttled cfs_rqs wait for the period timer;
//! - the period timer never goes idle, so `nr_periods` counts every period.

use crate::engine::{Event, Simulator};
use crate::policy::struct_layout::{Rq, Se, StructOp};
use crate::task::{TaskId, TaskState};
use crate::time::SimTime;
use crate::topology::CpuId;
use crate::trace::{Reason, TraceKind};
use serde::Serialize;

/// CPU time the tree walk costs per task group visited on one CPU.
pub const TG_WALK_NS_PER_GROUP: u64 = 30;

/// CPU time of one level of a group entity in the `for_each_sched_entity()` loops
/// of enqueue, dequeue, pick and put (the entity's own work at that level, with
/// warm cache lines; misses are the cache-line model's).
pub const GROUP_SE_LEVEL_NS: u64 = 40;

/// `sysctl_sched_cfs_bandwidth_slice_us`: 5 ms.
pub const CFS_BANDWIDTH_SLICE_NS: i64 = 5_000_000;

/// `min_cfs_rq_runtime`: what an emptied cfs_rq keeps (1 ms).
pub const MIN_CFS_RQ_RUNTIME_NS: i64 = 1_000_000;

/// A cgroup of a scenario's explicit hierarchy (`cgroups`).
#[derive(Clone, Debug, PartialEq, Serialize, serde::Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct CgroupSpec {
    /// Its path from the root cgroup, such as "/web" or "/web/api". Parents that are
    /// not listed are made, without a limit.
    pub path: String,
    /// `cpu.max`: a quota of CPU time per period; absent means "max" (no limit).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cpu_max: Option<CpuMax>,
    /// `cpu.weight` (1 to 10000; absent means 100): the group's share against its
    /// siblings.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(range(min = 1, max = 10000))]
    pub cpu_weight: Option<u32>,
    /// Indices into `workloads` whose tasks live in this cgroup. A `cgroup_tree`
    /// listed here builds its tree under it.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub workloads: Vec<u32>,
}

/// `cpu.max`: "QUOTA PERIOD" in microseconds.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, serde::Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct CpuMax {
    /// Runtime per period, over all CPUs together (at least 1000: the kernel's 1 ms).
    #[schemars(range(min = 1000))]
    pub quota_us: u64,
    /// The period (1000 to 1000000; default 100000, the kernel's).
    #[serde(default = "default_period_us")]
    #[schemars(range(min = 1000, max = 1000000))]
    pub period_us: u64,
}

fn default_period_us() -> u64 {
    100_000
}

/// Checks a scenario's `cgroups` against its `n_workloads` workloads: (path, message).
pub(crate) fn check_cgroups(cgroups: &[CgroupSpec], n_workloads: usize) -> Vec<(String, String)> {
    let mut errors = Vec::new();
    let mut owner: Vec<Option<usize>> = vec![None; n_workloads];
    for (idx, cgroup) in cgroups.iter().enumerate() {
        let at = format!("cgroups.{idx}");
        let path = &cgroup.path;
        if !path.starts_with('/') || path.len() < 2 || path.ends_with('/') || path.contains("//") {
            errors.push((
                format!("{at}.path"),
                format!("must be a path like \"/web/api\" (not the root), got {path:?}"),
            ));
        }
        if let Some(first) = cgroups[..idx].iter().position(|other| &other.path == path) {
            errors.push((
                format!("{at}.path"),
                format!("{path:?} is already cgroups.{first}"),
            ));
        }
        if let Some(max) = cgroup.cpu_max {
            if max.quota_us < 1000 {
                errors.push((
                    format!("{at}.cpu_max.quota_us"),
                    format!("must be at least 1000, got {}", max.quota_us),
                ));
            }
            if !(1000..=1_000_000).contains(&max.period_us) {
                errors.push((
                    format!("{at}.cpu_max.period_us"),
                    format!("must be between 1000 and 1000000, got {}", max.period_us),
                ));
            }
        }
        if let Some(weight) = cgroup.cpu_weight {
            if !(1..=10_000).contains(&weight) {
                errors.push((
                    format!("{at}.cpu_weight"),
                    format!("must be between 1 and 10000, got {weight}"),
                ));
            }
        }
        for (slot, &workload) in cgroup.workloads.iter().enumerate() {
            let field = format!("{at}.workloads.{slot}");
            match owner.get_mut(workload as usize) {
                None => errors.push((
                    field,
                    format!("there is no workload {workload} (the scenario has {n_workloads})"),
                )),
                Some(Some(other)) => errors.push((
                    field,
                    format!("workload {workload} is already in cgroups.{other}"),
                )),
                Some(slot) => *slot = Some(idx),
            }
        }
    }
    errors
}

/// A group of the explicit hierarchy: its path, its parent, its `cpu.max`, its
/// `cpu.weight`.
pub(crate) type ExplicitGroup = (String, Option<u32>, Option<CpuMax>, Option<u32>);

/// The explicit hierarchy as task groups (parents first, made where not listed), and
/// for each workload the group its tasks join.
pub(crate) fn explicit_groups(
    cgroups: &[CgroupSpec],
    n_workloads: usize,
) -> (Vec<ExplicitGroup>, Vec<Option<u32>>) {
    let mut groups: Vec<ExplicitGroup> = Vec::new();
    let mut workload_group = vec![None; n_workloads];
    for cgroup in cgroups {
        let mut parent = None;
        let mut prefix = String::new();
        for part in cgroup.path.split('/').filter(|part| !part.is_empty()) {
            prefix.push('/');
            prefix.push_str(part);
            parent = Some(match groups.iter().position(|(name, ..)| *name == prefix) {
                Some(found) => found as u32,
                None => {
                    groups.push((prefix.clone(), parent, None, None));
                    groups.len() as u32 - 1
                }
            });
        }
        let Some(idx) = parent else { continue };
        groups[idx as usize].2 = cgroup.cpu_max;
        groups[idx as usize].3 = cgroup.cpu_weight;
        for &workload in &cgroup.workloads {
            if let Some(slot) = workload_group.get_mut(workload as usize) {
                *slot = Some(idx);
            }
        }
    }
    (groups, workload_group)
}

#[derive(Clone, Debug)]
pub struct TaskGroup {
    pub name: String,
    pub parent: Option<u32>,
    /// 1 for a child of the root cgroup.
    pub depth: u32,
    pub quota_ns: Option<u64>,
    pub period_ns: u64,
    /// `cpu.weight` (default 100).
    pub cpu_weight: u32,
    /// `tg->shares`, from `cpu.weight` (1024 for the default 100).
    pub shares: u64,
    /// `cfs_b->runtime`: what is left in this period's pool.
    pub pool_ns: u64,
    /// `cfs_b->throttled_cfs_rq`: the CPUs whose cfs_rq of this group is throttled,
    /// in the order they were throttled.
    pub throttled_cpus: Vec<CpuId>,
    /// Tasks directly in this group.
    pub tasks: Vec<TaskId>,
    /// This group and its descendants: `Simulator::group_preorder[subtree.0..subtree.1]`.
    pub subtree: (u32, u32),
    pub stat: CpuStatCounts,
    /// The CPU the period timer fires on: the one that first took runtime from the
    /// pool (`start_cfs_bandwidth()` arms it there, pinned).
    pub timer_cpu: Option<CpuId>,
}

impl TaskGroup {
    pub fn subtree_size(&self) -> u64 {
        (self.subtree.1 - self.subtree.0) as u64
    }
}

/// `cpu.stat`'s bandwidth counters of one group, as the run goes.
#[derive(Clone, Debug, Default)]
pub struct CpuStatCounts {
    pub nr_periods: u64,
    pub nr_throttled: u64,
    /// Throttled time summed over the group's cfs_rqs (`cfs_b->throttled_time`).
    pub throttled_ns: u64,
}

/// A group's `cfs_rq` on one CPU: what the bandwidth path needs of it.
#[derive(Clone, Copy, Debug, Default)]
pub struct GroupRq {
    /// Runnable tasks of the group's subtree enqueued on this CPU.
    pub h_nr_running: u32,
    /// `cfs_rq->runtime_remaining` (groups with a quota).
    pub runtime_remaining: i64,
    /// This cfs_rq itself is throttled.
    pub throttled: bool,
    /// `cfs_rq->throttle_count`: throttled cfs_rqs on this CPU at or above this one.
    pub throttle_count: u32,
    /// `cfs_rq->throttled_clock`.
    pub throttled_clock: SimTime,
    /// `cfs_rq->on_list`: on its CPU's leaf list.
    pub on_list: bool,
    /// In `Simulator::leaf_cfs_rqs` (which drops entries taken off the list lazily).
    pub listed: bool,
    /// When a task last joined or left it: its load averages decay from then.
    pub last_active: SimTime,
}

/// How long a cfs_rq without tasks keeps load to decay (`cfs_rq_is_decayed()`): its
/// load sum, at most 1024 x `LOAD_AVG_MAX` (under 2^26), halves every 32 PELT
/// periods of 1024 us and is zero after 26 halvings, 832 periods. Every cfs_rq is
/// taken as saturated.
pub const LOAD_DECAYED_NS: u64 = 26 * 32 * 1_024_000;

/// `cpu.stat` of one group with a quota, at the end of the run.
#[derive(Clone, Debug, Serialize, PartialEq, Eq)]
pub struct GroupCpuStat {
    pub group: String,
    pub nr_periods: u64,
    pub nr_throttled: u64,
    pub throttled_usec: u64,
}

/// `cpu.stat`'s `usage_usec` of one group (every group has it, quota or not).
#[derive(Clone, Debug, Serialize, PartialEq, Eq)]
pub struct GroupUsage {
    pub group: String,
    pub usage_usec: u64,
}

/// Bandwidth-control counters for a run.
#[derive(Clone, Debug, Default, Serialize, PartialEq, Eq)]
pub struct BandwidthStats {
    /// cfs_rqs throttled (`throttle_cfs_rq`), over all groups and CPUs.
    pub throttles: u64,
    pub unthrottles: u64,
    /// Task groups visited by throttle and unthrottle walks, over all CPUs.
    pub tg_walk_visits: u64,
    /// `update_blocked_averages()` calls, and the cfs_rqs they visited.
    pub blocked_updates: u64,
    pub blocked_visits: u64,
    /// Sums of `cpu.stat` over the groups with a quota.
    pub nr_periods: u64,
    pub nr_throttled: u64,
    pub throttled_usec: u64,
    /// `cpu.stat` of each group with a quota.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub cpu_stat: Vec<GroupCpuStat>,
    /// `cpu.stat`'s `usage_usec` of every group: the CPU time its subtree's tasks
    /// were charged.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub usage: Vec<GroupUsage>,
}

/// Orders groups depth-first and gives each its subtree's range in that order.
pub(crate) fn preorder(groups: &mut [TaskGroup]) -> Vec<u32> {
    let mut children: Vec<Vec<u32>> = vec![Vec::new(); groups.len()];
    let mut roots = Vec::new();
    for (idx, group) in groups.iter().enumerate() {
        match group.parent {
            Some(parent) => children[parent as usize].push(idx as u32),
            None => roots.push(idx as u32),
        }
    }
    let mut order = Vec::with_capacity(groups.len());
    // (group, depth, entered): a group is numbered on entry and closed on exit.
    let mut stack: Vec<(u32, u32, bool)> = roots.iter().rev().map(|&g| (g, 1, false)).collect();
    while let Some((group, depth, entered)) = stack.pop() {
        if entered {
            groups[group as usize].subtree.1 = order.len() as u32;
            continue;
        }
        groups[group as usize].subtree.0 = order.len() as u32;
        groups[group as usize].depth = depth;
        order.push(group);
        stack.push((group, depth, true));
        for &child in children[group as usize].iter().rev() {
            stack.push((child, depth + 1, false));
        }
    }
    order
}

impl Simulator {
    /// The index of the group's cfs_rq on `cpu` in `group_rqs`, made if need be.
    #[inline]
    fn grq_index(&mut self, group: u32, cpu: CpuId) -> usize {
        self.group_rqs.index_of(group as usize, cpu)
    }

    /// The group's cfs_rq on `cpu` (a blank one if never written).
    pub fn group_rq(&self, group: u32, cpu: CpuId) -> &GroupRq {
        self.group_rqs.get(group as usize, cpu)
    }

    /// How many (group, CPU) cfs_rqs the run has written so far: the others are not
    /// stored.
    pub fn group_rqs_made(&self) -> usize {
        self.group_rqs.made()
    }

    /// `throttled_hierarchy()`: whether the task's cfs_rq on `cpu`, or one above it,
    /// is throttled.
    pub(crate) fn throttled_on(&self, task_id: TaskId, cpu: CpuId) -> bool {
        match self.tasks[task_id.0 as usize].cgroup {
            Some(group) => self.group_rq(group, cpu).throttle_count > 0,
            None => false,
        }
    }

    /// The `for_each_sched_entity()` walk of a task's group entities on `cpu` done by
    /// `by`: `h_nr_running` moves by `delta` at each level (enqueue +1, dequeue -1,
    /// pick and put 0), each level is charged and touched in the cache-line model.
    /// A cfs_rq that empties returns its spare runtime (`return_cfs_rq_runtime`).
    /// Inline: a task outside any cgroup, with no cache-line model, has nothing to walk.
    #[inline]
    pub(crate) fn walk_group_entities(
        &mut self,
        task_id: TaskId,
        cpu: CpuId,
        by: CpuId,
        op: StructOp,
        delta: i32,
    ) {
        if self.tasks[task_id.0 as usize].cgroup.is_none() && self.layout_model.is_none() {
            return;
        }
        self.walk_group_levels(task_id, cpu, by, Some(op), delta);
    }

    /// Undoes a dequeue's counts without a kernel operation: a task that blocked and
    /// was woken in the same instant, before leaving its CPU (`ttwu_runnable()`: the
    /// kernel had not dequeued it).
    pub(crate) fn recount_group_entities(&mut self, task_id: TaskId, cpu: CpuId) {
        self.walk_group_levels(task_id, cpu, cpu, None, 1);
    }

    fn walk_group_levels(
        &mut self,
        task_id: TaskId,
        cpu: CpuId,
        by: CpuId,
        op: Option<StructOp>,
        delta: i32,
    ) {
        let Some(leaf) = self.tasks[task_id.0 as usize].cgroup else {
            if let Some(op) = op {
                self.struct_layout_touch(op, by, cpu, Some(Se::Task(task_id)), Rq::Root);
            }
            return;
        };
        // The task's own entity on its group's cfs_rq, then each group entity on its
        // parent's cfs_rq (the root's for a top-level group).
        if let Some(op) = op {
            self.struct_layout_touch(op, by, cpu, Some(Se::Task(task_id)), Rq::Group(leaf));
        }
        let mut group = Some(leaf);
        let mut levels = 0u64;
        while let Some(g) = group {
            let idx = self.grq_index(g, cpu);
            let parent = self.groups[g as usize].parent;
            if delta != 0 {
                let now = self.now();
                let rq = &mut self.group_rqs[idx];
                rq.h_nr_running = rq.h_nr_running.wrapping_add_signed(delta);
                rq.last_active = now;
                let emptied = delta < 0 && rq.h_nr_running == 0;
                if delta > 0 {
                    self.list_add_leaf_cfs_rq(idx, g, cpu);
                }
                if emptied {
                    self.return_cfs_rq_runtime(g, idx);
                }
            }
            if let Some(op) = op {
                self.struct_layout_touch(op, by, cpu, Some(Se::Group(g)), Rq::of(parent));
            }
            levels += 1;
            group = parent;
        }
        if op.is_some() {
            self.charge_overhead(by, levels * GROUP_SE_LEVEL_NS);
        }
    }

    /// `list_add_leaf_cfs_rq()`.
    fn list_add_leaf_cfs_rq(&mut self, idx: usize, group: u32, cpu: CpuId) {
        let rq = &mut self.group_rqs[idx];
        rq.on_list = true;
        if !std::mem::replace(&mut rq.listed, true) {
            let parent = self.groups[group as usize].parent;
            self.leaf_cfs_rqs[cpu.0 as usize].push((group, parent, idx as u32));
        }
    }

    /// `return_cfs_rq_runtime()`: an emptied cfs_rq keeps 1 ms and gives the rest
    /// back to its group's pool.
    fn return_cfs_rq_runtime(&mut self, group: u32, idx: usize) {
        if self.groups[group as usize].quota_ns.is_none() || self.group_rqs[idx].throttled {
            return;
        }
        let slack = self.group_rqs[idx].runtime_remaining - MIN_CFS_RQ_RUNTIME_NS;
        if slack > 0 {
            self.group_rqs[idx].runtime_remaining -= slack;
            self.groups[group as usize].pool_ns += slack as u64;
        }
    }

    /// `__assign_cfs_rq_runtime()`: tops the cfs_rq up towards `target` from its
    /// group's pool; true if it then has runtime.
    fn assign_cfs_rq_runtime(&mut self, group: u32, cpu: CpuId, idx: usize, target: i64) -> bool {
        let want = (target - self.group_rqs[idx].runtime_remaining).max(0) as u64;
        let tg = &mut self.groups[group as usize];
        tg.timer_cpu.get_or_insert(cpu);
        let amount = want.min(tg.pool_ns);
        tg.pool_ns -= amount;
        self.group_rqs[idx].runtime_remaining += amount as i64;
        self.group_rqs[idx].runtime_remaining > 0
    }

    /// `account_cfs_rq_runtime()` at every level with a quota: charge `delta_ns` of
    /// the running task's time to its cfs_rqs on `cpu`; one that runs dry and cannot
    /// get a slice from its pool is throttled at the next scheduling point.
    pub(crate) fn account_bandwidth(&mut self, task_id: TaskId, cpu: CpuId, delta_ns: u64) {
        let mut group = self.tasks[task_id.0 as usize].cgroup;
        while let Some(g) = group {
            let tg = &self.groups[g as usize];
            group = tg.parent;
            if tg.quota_ns.is_none() {
                continue;
            }
            let idx = self.grq_index(g, cpu);
            self.group_rqs[idx].runtime_remaining -= delta_ns as i64;
            self.struct_layout_touch(StructOp::AccountRuntime, cpu, cpu, None, Rq::Group(g));
            if self.group_rqs[idx].runtime_remaining > 0 || self.group_rqs[idx].throttled {
                continue;
            }
            if !self.assign_cfs_rq_runtime(g, cpu, idx, CFS_BANDWIDTH_SLICE_NS)
                && !self.pending_throttle.contains(&(g, cpu))
            {
                self.pending_throttle.push((g, cpu));
                self.request_resched_for_bandwidth(cpu);
            }
        }
    }

    /// Throttles the cfs_rqs that ran dry since the last scheduling point
    /// (`check_cfs_rq_runtime()` in `put_prev_entity` / `pick_next_task_fair`).
    pub(crate) fn apply_pending_throttles(&mut self) {
        while let Some((group, cpu)) = self.pending_throttle.pop() {
            let idx = self.grq_index(group, cpu);
            if self.group_rqs[idx].runtime_remaining <= 0 && !self.group_rqs[idx].throttled {
                self.throttle_cfs_rq(group, cpu);
            }
        }
    }

    /// Whether a task about to be enqueued on `cpu` must wait instead: its hierarchy
    /// there is throttled, or a cfs_rq it would be the first entity of has no
    /// runtime and its pool none to give (`check_enqueue_throttle()`, which then
    /// throttles that cfs_rq).
    pub(crate) fn enqueue_throttled(&mut self, task_id: TaskId, cpu: CpuId) -> bool {
        if self.throttled_on(task_id, cpu) {
            return true;
        }
        let mut group = self.tasks[task_id.0 as usize].cgroup;
        while let Some(g) = group {
            let tg = &self.groups[g as usize];
            group = tg.parent;
            if tg.quota_ns.is_none() {
                continue;
            }
            let idx = self.grq_index(g, cpu);
            if self.group_rqs[idx].h_nr_running > 0 || self.group_rqs[idx].runtime_remaining > 0 {
                continue;
            }
            if !self.assign_cfs_rq_runtime(g, cpu, idx, CFS_BANDWIDTH_SLICE_NS) {
                self.throttle_cfs_rq(g, cpu);
                return self.throttled_on(task_id, cpu);
            }
        }
        false
    }

    /// `throttle_cfs_rq()`: unless a last nanosecond can be had from the pool, the
    /// group's cfs_rq on `cpu` is throttled; the runnable tasks of its subtree there
    /// leave the runqueue and wait on it.
    fn throttle_cfs_rq(&mut self, group: u32, cpu: CpuId) {
        let idx = self.grq_index(group, cpu);
        if self.assign_cfs_rq_runtime(group, cpu, idx, 1) {
            return;
        }
        self.group_rqs[idx].throttled = true;
        self.group_rqs[idx].throttled_clock = self.now();
        self.groups[group as usize].throttled_cpus.push(cpu);
        self.bandwidth.throttles += 1;
        // tg_throttle_down() on each cfs_rq of the subtree on this CPU.
        let (start, end) = self.groups[group as usize].subtree;
        for pos in start..end {
            let g = self.group_preorder[pos as usize];
            let idx = self.grq_index(g, cpu);
            self.group_rqs[idx].throttle_count += 1;
            if self.group_rqs[idx].throttle_count == 1 {
                // Entering the throttled state: off the leaf list (list_del_leaf_cfs_rq).
                self.group_rqs[idx].on_list = false;
            }
            self.struct_layout_touch(StructOp::TgThrottleDown, cpu, cpu, None, Rq::Group(g));
        }
        let mut moved = 0u32;
        for pos in start..end {
            let g = self.group_preorder[pos as usize];
            for slot in 0..self.groups[g as usize].tasks.len() {
                let task_id = self.groups[g as usize].tasks[slot];
                match self.tasks[task_id.0 as usize].state {
                    TaskState::Running(on) if on == cpu => {
                        self.dequeue_curr(task_id, cpu, TaskState::Throttled(cpu));
                    }
                    TaskState::Queued(on) if on == cpu => {
                        self.dequeue_queued(task_id, cpu, cpu);
                        self.tasks[task_id.0 as usize].state = TaskState::Throttled(cpu);
                    }
                    _ => continue,
                }
                moved += 1;
            }
        }
        self.finish_tree_walk(TraceKind::CfsThrottle, group, cpu, moved);
    }

    /// The period timer (`sched_cfs_period_timer` → `do_sched_cfs_period_timer`):
    /// refill the pool and hand it to the throttled cfs_rqs, first throttled first
    /// (`distribute_cfs_runtime`).
    pub(crate) fn refresh_bandwidth(&mut self, group: u32) {
        let tg = &mut self.groups[group as usize];
        let Some(quota) = tg.quota_ns else {
            return;
        };
        tg.stat.nr_periods += 1;
        tg.pool_ns = quota;
        let period = tg.period_ns;
        let throttled = !tg.throttled_cpus.is_empty();
        let next = self.now() + SimTime(period);
        self.push_event(next, Event::BandwidthRefresh(group));
        if !throttled {
            return;
        }
        self.groups[group as usize].stat.nr_throttled += 1;
        let waiting = std::mem::take(&mut self.groups[group as usize].throttled_cpus);
        let timer_cpu = self.groups[group as usize].timer_cpu.unwrap_or(waiting[0]);
        let mut still = Vec::new();
        for cpu in waiting {
            let idx = self.grq_index(group, cpu);
            if self.groups[group as usize].pool_ns > 0 {
                // The timer's CPU locks each throttled cfs_rq's runqueue and hands it
                // runtime; a remote one is unthrottled on its own CPU (6.x's async
                // CSD, queued on its throttled_csd_list).
                self.lock_rq(cpu, timer_cpu, "distribute_cfs_runtime");
                self.struct_layout_touch(
                    StructOp::DistributeRuntime,
                    timer_cpu,
                    cpu,
                    None,
                    Rq::Group(group),
                );
                self.charge_overhead(timer_cpu, TG_WALK_NS_PER_GROUP);
            }
            if self.groups[group as usize].pool_ns > 0 {
                // runtime = 1 - runtime_remaining: just enough to run again.
                self.assign_cfs_rq_runtime(group, cpu, idx, 1);
            }
            if self.group_rqs[idx].runtime_remaining > 0 {
                self.unthrottle_cfs_rq(group, cpu);
            } else {
                still.push(cpu);
            }
        }
        self.groups[group as usize].throttled_cpus = still;
    }

    /// `unthrottle_cfs_rq()`, on the cfs_rq's own CPU (6.x sends remote ones there):
    /// `tg_unthrottle_up()` over the subtree, and the tasks no longer under a
    /// throttled cfs_rq return to the runqueue.
    fn unthrottle_cfs_rq(&mut self, group: u32, cpu: CpuId) {
        let idx = self.grq_index(group, cpu);
        let now = self.now();
        let rq = &mut self.group_rqs[idx];
        rq.throttled = false;
        let throttled_for = (now - rq.throttled_clock).as_ns();
        self.groups[group as usize].stat.throttled_ns += throttled_for;
        self.bandwidth.unthrottles += 1;
        let (start, end) = self.groups[group as usize].subtree;
        for pos in start..end {
            let g = self.group_preorder[pos as usize];
            let idx = self.grq_index(g, cpu);
            self.group_rqs[idx].throttle_count -= 1;
            let rq = &self.group_rqs[idx];
            if rq.throttle_count == 0
                && (rq.h_nr_running > 0 || (self.now() - rq.last_active).as_ns() < LOAD_DECAYED_NS)
            {
                // Back on the leaf list unless its load has decayed (cfs_rq_is_decayed).
                self.list_add_leaf_cfs_rq(idx, g, cpu);
            }
            self.struct_layout_touch(StructOp::TgUnthrottleUp, cpu, cpu, None, Rq::Group(g));
        }
        let mut moved = 0u32;
        for pos in start..end {
            let g = self.group_preorder[pos as usize];
            for slot in 0..self.groups[g as usize].tasks.len() {
                let task_id = self.groups[g as usize].tasks[slot];
                if self.tasks[task_id.0 as usize].state != TaskState::Throttled(cpu)
                    || self.throttled_on(task_id, cpu)
                {
                    continue;
                }
                self.enqueue_unthrottled(task_id, cpu);
                moved += 1;
            }
        }
        self.finish_tree_walk(TraceKind::CfsUnthrottle, group, cpu, moved);
    }

    /// A task waiting on a throttled cfs_rq runs again on `cpu`.
    pub(crate) fn enqueue_unthrottled(&mut self, task_id: TaskId, cpu: CpuId) {
        // enqueue_entity(ENQUEUE_WAKEUP) → place_entity(): like a waking sleeper,
        // the task gets no more than half a latency period of credit.
        let min_vruntime = self.task_min_vruntime(task_id, cpu);
        let task = &mut self.tasks[task_id.0 as usize];
        task.vruntime = self.knobs.place_woken(task.vruntime, min_vruntime);
        self.enqueue_task(task_id, cpu, cpu);
        self.check_preempt_curr(cpu, task_id);
    }

    /// Charges a throttle or unthrottle walk of the group's subtree on `cpu`, and
    /// traces it.
    fn finish_tree_walk(&mut self, kind: TraceKind, group: u32, cpu: CpuId, tasks: u32) {
        let groups = self.groups[group as usize].subtree_size();
        self.bandwidth.tg_walk_visits += groups;
        self.charge_overhead(cpu, groups * TG_WALK_NS_PER_GROUP);
        self.emit(cpu, kind, 0, group, tasks, Reason::None);
    }

    /// `update_blocked_averages()` → `__update_blocked_fair()`: every cfs_rq on the
    /// CPU's leaf list has its blocked load decayed and propagated to its parent;
    /// one whose load has decayed away leaves the list (`list_del_leaf_cfs_rq`).
    pub(crate) fn update_blocked_averages(&mut self, cpu: CpuId) {
        if self.groups.is_empty() {
            return;
        }
        let mut list = std::mem::take(&mut self.leaf_cfs_rqs[cpu.0 as usize]);
        let now = self.now();
        let mut visited = 0;
        let mut kept = 0;
        for pos in 0..list.len() {
            let (g, parent, idx) = list[pos];
            let idx = idx as usize;
            if !self.group_rqs[idx].on_list {
                self.group_rqs[idx].listed = false;
                continue;
            }
            visited += 1;
            self.struct_layout_touch(
                StructOp::BlockedAverages,
                cpu,
                cpu,
                Some(Se::Group(g)),
                Rq::Group(g),
            );
            self.struct_layout_touch(StructOp::BlockedParent, cpu, cpu, None, Rq::of(parent));
            let rq = &mut self.group_rqs[idx];
            if rq.h_nr_running == 0 && (now - rq.last_active).as_ns() >= LOAD_DECAYED_NS {
                rq.on_list = false;
                rq.listed = false;
            } else {
                list[kept] = list[pos];
                kept += 1;
            }
        }
        list.truncate(kept);
        self.bandwidth.blocked_updates += 1;
        self.bandwidth.blocked_visits += visited;
        self.leaf_cfs_rqs[cpu.0 as usize] = list;
        self.charge_overhead(cpu, visited * TG_WALK_NS_PER_GROUP);
    }

    /// The bandwidth figures at the end of the run, with `cpu.stat` per group.
    pub(crate) fn bandwidth_summary(&self) -> BandwidthStats {
        let mut stats = self.bandwidth.clone();
        let now = self.now();
        let n_cpus = self.rqs.len() as u32;
        for (g, tg) in self.groups.iter().enumerate() {
            // usage_usec: what `update_curr()` charged the group's entities (each
            // level is charged its subtree's tasks' time), over its CPUs.
            let usage_ns: u64 = self.group_sched.as_ref().map_or(0, |gs| {
                (0..n_cpus)
                    .map(|cpu| gs.se(g as u32, CpuId(cpu)).sum_exec_runtime)
                    .sum()
            });
            stats.usage.push(GroupUsage {
                group: tg.name.clone(),
                usage_usec: usage_ns / 1_000,
            });
            if tg.quota_ns.is_none() {
                continue;
            }
            // Simplification: a throttle still on counts up to now; the kernel adds
            // each to `cfs_b->throttled_time` at its `unthrottle_cfs_rq()`.
            let still: u64 = tg
                .throttled_cpus
                .iter()
                .map(|&cpu| (now - self.group_rq(g as u32, cpu).throttled_clock).as_ns())
                .sum();
            let row = GroupCpuStat {
                group: tg.name.clone(),
                nr_periods: tg.stat.nr_periods,
                nr_throttled: tg.stat.nr_throttled,
                throttled_usec: (tg.stat.throttled_ns + still) / 1_000,
            };
            stats.nr_periods += row.nr_periods;
            stats.nr_throttled += row.nr_throttled;
            stats.throttled_usec += row.throttled_usec;
            stats.cpu_stat.push(row);
        }
        stats
    }
}
