//! Group scheduling (`CONFIG_FAIR_GROUP_SCHED`, 6.5's pre-EEVDF CFS): the pick
//! through group entities, so that `cpu.weight` shares CPU time between cgroups.
//!
//! With task groups, every CPU has a root `cfs_rq` and one `cfs_rq` per group
//! ([`HierRq`]); each holds the entities directly under it, ordered by vruntime: the
//! tasks of that group and the group entities of its child groups ([`GroupSe`]).
//! A task's enqueue enqueues its group entities up the tree as their cfs_rqs become
//! non-empty (`enqueue_task_fair`), a dequeue takes them off as they empty
//! (`dequeue_task_fair`); the pick descends from the root, leftmost entity by
//! leftmost entity, down to a task (`pick_next_task_fair` → `pick_next_entity`,
//! `set_next_entity`); run time advances the vruntime of the task and of each of its
//! group entities, each in its own weight (`update_curr` at each level); the tick
//! checks each level (`entity_tick` → `check_preempt_tick`), and a wakeup compares
//! the two entities that share a cfs_rq (`find_matching_se`).
//!
//! A group entity's weight on a CPU is its group's share there:
//! `shares x (load of the group's cfs_rq on this CPU) / (its load on all CPUs)`,
//! between 2 and `shares` (`calc_group_shares`), recomputed on every enqueue, dequeue
//! and tick that passes through it (`update_cfs_group`).
//!
//! The runqueue's own task list (`Simulator::rqs`, `rq->cfs_tasks`) still holds every
//! queued task of the CPU: balancing, placement and the views read it.
//!
//! Simplifications (also in docs/MODEL-STATUS.md):
//! - group shares use the runnable weight of each cfs_rq, not its PELT load average
//!   (`tg->load_avg`), so they follow load changes at once; an emptied cfs_rq keeps
//!   its last share;
//! - entities with equal vruntimes are ordered by id (tasks before groups), not
//!   first in, first out;
//! - `wake_affine_weight` and `find_idlest_group`'s blocked load use task weights;
//! - a group entity that joins its cfs_rq again is placed as a waking sleeper
//!   (`place_entity` with half a latency of credit), whatever the reason;
//! - the balancer's loads are weights, not PELT averages, as without groups: a
//!   runqueue's load is its root cfs_rq's (`cfs_rq_load_avg(&rq->cfs)`: its tasks and
//!   its groups' shares there), and a task moves its `task_h_load()`;
//! - no buddies (`next`, `last`, `skip`); the flat pick has the last buddy.

use crate::cfs::calc_delta_fair;
use crate::engine::Simulator;
use crate::group_table::PairTable;
use crate::task::{TaskId, TaskState};
use crate::topology::CpuId;
use crate::trace::Reason;
use std::collections::BTreeSet;

/// An entity on a cfs_rq: a task id, or `GROUP_ENT | group` for a group entity.
pub type Ent = u32;
pub const GROUP_ENT: u32 = 1 << 31;

/// `MIN_SHARES`: the smallest weight of a group entity.
pub const MIN_SHARES: u64 = 2;

/// `cpu.weight` (1 to 10000, default 100) as shares (`sched_weight_from_cgroup`).
pub fn shares_from_cpu_weight(weight: u32) -> u64 {
    (weight as u64 * 1024 + 50) / 100
}

/// One `cfs_rq`: the entities queued on it, its current entity (not in `queue`),
/// and `load.weight`.
#[derive(Clone, Debug, Default)]
pub struct HierRq {
    pub queue: BTreeSet<(u64, Ent)>,
    pub curr: Option<Ent>,
    /// `cfs_rq->nr_running`: entities on it, `curr` included while on_rq.
    pub nr_running: u32,
    /// `cfs_rq->load.weight`.
    pub load: u64,
    pub min_vruntime: u64,
}

impl HierRq {
    /// `update_min_vruntime()`.
    fn update_min_vruntime(&mut self, curr_vruntime: Option<u64>) {
        let leftmost = self.queue.first().map(|&(vruntime, _)| vruntime);
        self.min_vruntime =
            crate::runqueue::next_min_vruntime(self.min_vruntime, curr_vruntime, leftmost);
    }
}

/// A group's `sched_entity` on one CPU (`tg->se[cpu]`).
#[derive(Clone, Copy, Debug, Default)]
pub struct GroupSe {
    pub vruntime: u64,
    /// `se->load.weight`: the group's share on this CPU.
    pub weight: u64,
    pub on_rq: bool,
    pub sum_exec_runtime: u64,
    pub prev_sum_exec_runtime: u64,
}

/// The cfs_rqs and group entities of every CPU, each made when first written
/// ([`PairTable`]).
#[derive(Clone, Debug)]
pub struct GroupSched {
    /// Per CPU, column 0 the root cfs_rq and column `g + 1` group `g`'s.
    pub rqs: PairTable<HierRq>,
    /// Per CPU, group `g`'s entity in column `g`.
    pub ses: PairTable<GroupSe>,
    /// Per group, the load of its cfs_rqs over all CPUs (`tg->load_avg`).
    pub load_sum: Vec<u64>,
}

impl GroupSched {
    /// Every group entity starts at `NICE_0_LOAD` (`init_tg_cfs_entry`).
    pub fn new(n_cpus: usize, n_groups: usize) -> Self {
        let se = GroupSe {
            weight: crate::task::NICE_0_LOAD,
            ..GroupSe::default()
        };
        let mut rqs = PairTable::new(n_cpus, n_groups + 1, HierRq::default());
        // The root cfs_rqs first: CPU `c`'s is record `c`.
        for cpu in 0..n_cpus {
            rqs.index_of(0, CpuId(cpu as u32));
        }
        GroupSched {
            rqs,
            ses: PairTable::new(n_cpus, n_groups, se),
            load_sum: vec![0; n_groups],
        }
    }

    /// The index of the cfs_rq of `group` (None: the root) on `cpu`, made if need be.
    #[inline]
    pub fn rq_index(&mut self, group: Option<u32>, cpu: CpuId) -> usize {
        match group {
            None => cpu.0 as usize,
            Some(g) => self.rqs.index_of(g as usize + 1, cpu),
        }
    }

    /// The cfs_rq of `group` (None: the root) on `cpu`.
    #[inline]
    pub fn rq(&self, group: Option<u32>, cpu: CpuId) -> &HierRq {
        match group {
            None => &self.rqs[cpu.0 as usize],
            Some(g) => self.rqs.get(g as usize + 1, cpu),
        }
    }

    /// The index of group `group`'s entity on `cpu`, made if need be.
    #[inline]
    pub fn se_index(&mut self, group: u32, cpu: CpuId) -> usize {
        self.ses.index_of(group as usize, cpu)
    }

    /// Group `group`'s entity on `cpu`.
    #[inline]
    pub fn se(&self, group: u32, cpu: CpuId) -> &GroupSe {
        self.ses.get(group as usize, cpu)
    }
}

impl Simulator {
    /// The cfs_rq an entity is queued on (`cfs_rq_of`): a task's group, or a group's
    /// parent; None is the root.
    fn ent_cfs_rq(&self, ent: Ent) -> Option<u32> {
        if ent & GROUP_ENT != 0 {
            self.groups[(ent & !GROUP_ENT) as usize].parent
        } else {
            self.tasks[ent as usize].cgroup
        }
    }

    /// The entity above (`parent_entity`).
    fn ent_parent(&self, ent: Ent) -> Option<Ent> {
        self.ent_cfs_rq(ent).map(|g| g | GROUP_ENT)
    }

    /// `se->depth`: 0 for an entity on the root cfs_rq.
    fn ent_depth(&self, ent: Ent) -> u32 {
        self.ent_cfs_rq(ent)
            .map_or(0, |g| self.groups[g as usize].depth)
    }

    /// Whether an entity is queued on its cfs_rq on `cpu` (`se->on_rq`).
    fn ent_on_rq(&self, gs: &GroupSched, ent: Ent, cpu: CpuId) -> bool {
        if ent & GROUP_ENT != 0 {
            gs.se(ent & !GROUP_ENT, cpu).on_rq
        } else {
            matches!(self.tasks[ent as usize].state,
                TaskState::Queued(on) | TaskState::Running(on) if on == cpu)
        }
    }

    /// (vruntime, weight) of an entity on `cpu`.
    fn ent_key(&self, gs: &GroupSched, ent: Ent, cpu: CpuId) -> (u64, u64) {
        if ent & GROUP_ENT != 0 {
            let se = gs.se(ent & !GROUP_ENT, cpu);
            (se.vruntime, se.weight)
        } else {
            let task = &self.tasks[ent as usize];
            (task.vruntime, task.weight as u64)
        }
    }

    /// The `min_vruntime` a task's vruntime is relative to on `cpu`: its own cfs_rq's
    /// with group scheduling, else the runqueue's.
    #[inline]
    pub fn task_min_vruntime(&self, task_id: TaskId, cpu: CpuId) -> u64 {
        match &self.group_sched {
            Some(gs) => {
                let group = self.tasks[task_id.0 as usize].cgroup;
                gs.rq(group, cpu).min_vruntime
            }
            None => self.rqs[cpu.0 as usize].min_vruntime,
        }
    }

    /// Moves the load of a cfs_rq (record `idx` of `group`) by `delta`, and its
    /// group's sum over all CPUs.
    fn add_rq_load(gs: &mut GroupSched, idx: usize, group: Option<u32>, delta: i64) {
        gs.rqs[idx].load = gs.rqs[idx].load.wrapping_add_signed(delta);
        if let Some(g) = group {
            gs.load_sum[g as usize] = gs.load_sum[g as usize].wrapping_add_signed(delta);
        }
    }

    /// `enqueue_task_fair()`'s entity loop: the task's entity joins its cfs_rq, then
    /// each group entity whose cfs_rq was empty joins its parent's, placed like a
    /// waking sleeper; the shares along the path are recomputed. The caller then
    /// brings the CPU's cached figures up to date (`touch`, `note_cpu_state`).
    pub(crate) fn group_enqueue(&mut self, task_id: TaskId, cpu: CpuId) {
        let Some(mut gs) = self.group_sched.take() else {
            return;
        };
        let mut ent = task_id.0;
        loop {
            let group = self.ent_cfs_rq(ent);
            let (vruntime, weight) = self.ent_key(&gs, ent, cpu);
            let idx = gs.rq_index(group, cpu);
            let rq = &mut gs.rqs[idx];
            if rq.curr != Some(ent) {
                let fresh = rq.queue.insert((vruntime, ent));
                debug_assert!(fresh, "entity queued twice");
            }
            rq.nr_running += 1;
            Self::add_rq_load(&mut gs, idx, group, weight as i64);
            if ent & GROUP_ENT != 0 {
                let se = gs.se_index(ent & !GROUP_ENT, cpu);
                gs.ses[se].on_rq = true;
            }
            let Some(g) = group else { break };
            let se = gs.se_index(g, cpu);
            if gs.ses[se].on_rq {
                break;
            }
            let parent_rq = gs.rq_index(self.groups[g as usize].parent, cpu);
            if gs.rqs[parent_rq].curr != Some(g | GROUP_ENT) {
                let min_vruntime = gs.rqs[parent_rq].min_vruntime;
                gs.ses[se].vruntime = self.knobs.place_woken(gs.ses[se].vruntime, min_vruntime);
            }
            ent = g | GROUP_ENT;
        }
        self.update_cfs_groups(&mut gs, self.tasks[task_id.0 as usize].cgroup, cpu);
        self.group_sched = Some(gs);
    }

    /// `dequeue_task_fair()`'s entity loop: the task's entity leaves its cfs_rq, and
    /// each group entity whose cfs_rq empties leaves its parent's.
    pub(crate) fn group_dequeue(&mut self, task_id: TaskId, cpu: CpuId) {
        let Some(mut gs) = self.group_sched.take() else {
            return;
        };
        let mut ent = task_id.0;
        loop {
            let group = self.ent_cfs_rq(ent);
            let (vruntime, weight) = self.ent_key(&gs, ent, cpu);
            let idx = gs.rq_index(group, cpu);
            let rq = &mut gs.rqs[idx];
            if rq.curr != Some(ent) {
                let present = rq.queue.remove(&(vruntime, ent));
                debug_assert!(present, "dequeuing an entity that is not queued");
            }
            rq.nr_running -= 1;
            let emptied = rq.nr_running == 0;
            Self::add_rq_load(&mut gs, idx, group, -(weight as i64));
            if ent & GROUP_ENT != 0 {
                let se = gs.se_index(ent & !GROUP_ENT, cpu);
                gs.ses[se].on_rq = false;
            }
            // dequeue_entity() → update_min_vruntime(), with the current entity if it
            // is still queued.
            let curr = gs.rqs[idx]
                .curr
                .filter(|&curr| self.ent_on_rq(&gs, curr, cpu));
            let curr_vruntime = curr.map(|curr| self.ent_key(&gs, curr, cpu).0);
            gs.rqs[idx].update_min_vruntime(curr_vruntime);
            match group {
                Some(g) if emptied => ent = g | GROUP_ENT,
                _ => break,
            }
        }
        self.update_cfs_groups(&mut gs, self.tasks[task_id.0 as usize].cgroup, cpu);
        self.group_sched = Some(gs);
    }

    /// A runqueue's load as the balancer reads it: with groups, its root cfs_rq's
    /// (the weights of its root tasks and its groups' shares on this CPU); else its
    /// tasks' weights.
    #[inline]
    pub(crate) fn cfs_load(&self, cpu: CpuId) -> u64 {
        match &self.group_sched {
            Some(gs) => gs.rq(None, cpu).load,
            None => self.rqs[cpu.0 as usize].load_weight,
        }
    }

    /// `task_h_load()`: the part of its runqueue's load that a task carries, its
    /// weight scaled by its group entities' shares of each cfs_rq up to the root
    /// (`update_cfs_rq_h_load`). Without groups, its weight.
    pub(crate) fn task_h_load(&self, task_id: TaskId, cpu: CpuId) -> u64 {
        let Some(gs) = &self.group_sched else {
            return self.tasks[task_id.0 as usize].weight as u64;
        };
        let mut ent = task_id.0;
        let mut share = 1.0f64;
        loop {
            let (_, weight) = self.ent_key(gs, ent, cpu);
            let group = self.ent_cfs_rq(ent);
            let load = gs.rq(group, cpu).load.max(1);
            share *= weight as f64 / load as f64;
            match group {
                Some(g) => ent = g | GROUP_ENT,
                None => break,
            }
        }
        let root = gs.rq(None, cpu).load;
        (root as f64 * share) as u64
    }

    /// `update_cfs_group()` from `group` up: each group entity's weight becomes its
    /// group's share on this CPU (`calc_group_shares`), and its cfs_rq's load follows
    /// (`reweight_entity`).
    fn update_cfs_groups(&self, gs: &mut GroupSched, mut group: Option<u32>, cpu: CpuId) {
        while let Some(g) = group {
            let tg = &self.groups[g as usize];
            let load = gs.rq(Some(g), cpu).load;
            if load == 0 {
                // An emptied cfs_rq keeps its share while its load average decays
                // (`calc_group_shares` takes the larger of weight and load_avg).
                group = tg.parent;
                continue;
            }
            let tg_load = gs.load_sum[g as usize];
            let shares = (tg.shares * load).checked_div(tg_load).unwrap_or(0);
            let shares = shares.clamp(MIN_SHARES, tg.shares.max(MIN_SHARES));
            let se = gs.se_index(g, cpu);
            let old = std::mem::replace(&mut gs.ses[se].weight, shares);
            if gs.ses[se].on_rq && old != shares {
                let parent_idx = gs.rq_index(tg.parent, cpu);
                Self::add_rq_load(gs, parent_idx, tg.parent, shares as i64 - old as i64);
            }
            group = tg.parent;
        }
    }

    /// `put_prev_task_fair()`: at every level the current entity goes back into its
    /// cfs_rq's tree if still queued there, and the cfs_rq has no current entity.
    pub(crate) fn group_put_prev(&mut self, cpu: CpuId) {
        let Some(mut gs) = self.group_sched.take() else {
            return;
        };
        let mut group = None;
        loop {
            let idx = gs.rq_index(group, cpu);
            let Some(ent) = gs.rqs[idx].curr.take() else {
                break;
            };
            if self.ent_on_rq(&gs, ent, cpu) {
                let (vruntime, _) = self.ent_key(&gs, ent, cpu);
                gs.rqs[idx].queue.insert((vruntime, ent));
            }
            if ent & GROUP_ENT == 0 {
                break;
            }
            group = Some(ent & !GROUP_ENT);
        }
        self.group_sched = Some(gs);
    }

    /// `pick_next_entity()` from the root down: the leftmost entity of each cfs_rq,
    /// down to a task.
    pub(crate) fn group_pick(&self, cpu: CpuId) -> Option<TaskId> {
        let gs = self.group_sched.as_ref()?;
        let mut group = None;
        loop {
            let &(_, ent) = gs.rq(group, cpu).queue.first()?;
            if ent & GROUP_ENT == 0 {
                return Some(TaskId(ent));
            }
            group = Some(ent & !GROUP_ENT);
        }
    }

    /// `set_next_entity()` at every level of the picked task's path: each entity
    /// leaves its tree and becomes its cfs_rq's current one. A group entity that was
    /// already current there (an ancestor of `prev`, the task that ran last) keeps
    /// its slice: `pick_next_task_fair` calls `set_next_entity` only below the
    /// common ancestor of `prev` and the next task.
    pub(crate) fn group_set_next(&mut self, task_id: TaskId, prev: Option<TaskId>, cpu: CpuId) {
        let Some(mut gs) = self.group_sched.take() else {
            return;
        };
        let prev_group = prev.and_then(|prev| self.tasks[prev.0 as usize].cgroup);
        let mut ent = task_id.0;
        loop {
            let group = self.ent_cfs_rq(ent);
            let (vruntime, _) = self.ent_key(&gs, ent, cpu);
            let idx = gs.rq_index(group, cpu);
            let rq = &mut gs.rqs[idx];
            rq.queue.remove(&(vruntime, ent));
            rq.curr = Some(ent);
            let Some(g) = group else { break };
            if !self.group_is_within(prev_group, g) {
                let se = gs.se_index(g, cpu);
                gs.ses[se].prev_sum_exec_runtime = gs.ses[se].sum_exec_runtime;
            }
            ent = g | GROUP_ENT;
        }
        self.group_sched = Some(gs);
    }

    /// Whether `group` is `leaf` or one of its ancestors.
    fn group_is_within(&self, mut leaf: Option<u32>, group: u32) -> bool {
        while let Some(g) = leaf {
            if g == group {
                return true;
            }
            leaf = self.groups[g as usize].parent;
        }
        false
    }

    /// `update_curr()` at every level above the running task: each group entity's
    /// vruntime advances in its own weight; each cfs_rq's `min_vruntime` follows.
    pub(crate) fn group_update_curr(&mut self, task_id: TaskId, cpu: CpuId, delta: u64) {
        let Some(mut gs) = self.group_sched.take() else {
            return;
        };
        let task = &self.tasks[task_id.0 as usize];
        let mut group = task.cgroup;
        let idx = gs.rq_index(group, cpu);
        gs.rqs[idx].update_min_vruntime(Some(task.vruntime));
        while let Some(g) = group {
            let se = gs.se_index(g, cpu);
            let entity = &mut gs.ses[se];
            entity.sum_exec_runtime += delta;
            entity.vruntime += calc_delta_fair(delta, entity.weight.min(u32::MAX as u64) as u32);
            let curr = entity.on_rq.then_some(entity.vruntime);
            group = self.groups[g as usize].parent;
            let idx = gs.rq_index(group, cpu);
            gs.rqs[idx].update_min_vruntime(curr);
        }
        self.group_sched = Some(gs);
    }

    /// `sched_slice()` of an entity on `cpu` (ALT_PERIOD and BASE_SLICE, as 6.5):
    /// the period for the runqueue's runnable tasks, times the entity's share of
    /// each cfs_rq on the way up, and at least the minimum granularity.
    /// `on_rq` is the task entity's (a new task is not yet queued).
    pub(crate) fn group_sched_slice(&self, ent: Ent, on_rq: bool, cpu: CpuId) -> u64 {
        let Some(gs) = &self.group_sched else {
            return 0;
        };
        let nr_running = self.rqs[cpu.0 as usize].nr_running + u32::from(!on_rq);
        let mut slice = self.knobs.sched_period(nr_running) as u128;
        let mut ent = Some(ent);
        while let Some(e) = ent {
            let (_, weight) = self.ent_key(gs, e, cpu);
            let entity_on_rq = if e & GROUP_ENT != 0 {
                gs.se(e & !GROUP_ENT, cpu).on_rq
            } else {
                on_rq
            };
            let rq = gs.rq(self.ent_cfs_rq(e), cpu);
            let load = rq.load + if entity_on_rq { 0 } else { weight };
            if load > 0 {
                slice = slice * weight as u128 / load as u128;
            }
            ent = self.ent_parent(e);
        }
        (slice as u64).max(self.knobs.sched_min_granularity_ns)
    }

    /// The tick at every level (`entity_tick` → `update_cfs_group`,
    /// `check_preempt_tick`): resched when the current entity of a cfs_rq with
    /// others has run past its slice, or is more than a slice ahead of the leftmost.
    pub(crate) fn group_entity_tick(&mut self, task_id: TaskId, cpu: CpuId) {
        let Some(mut gs) = self.group_sched.take() else {
            return;
        };
        self.update_cfs_groups(&mut gs, self.tasks[task_id.0 as usize].cgroup, cpu);
        self.group_sched = Some(gs);
        self.note_group_sums(cpu);
        let mut ent = Some(task_id.0);
        while let Some(e) = ent {
            if let Some(reason) = self.check_preempt_tick(e, cpu) {
                self.request_resched(cpu, reason);
                return;
            }
            ent = self.ent_parent(e);
        }
    }

    /// `check_preempt_tick()` of entity `ent`, current on its cfs_rq.
    fn check_preempt_tick(&self, ent: Ent, cpu: CpuId) -> Option<Reason> {
        let gs = self.group_sched.as_ref()?;
        let rq = gs.rq(self.ent_cfs_rq(ent), cpu);
        if rq.nr_running <= 1 {
            return None;
        }
        let ideal = self
            .group_sched_slice(ent, true, cpu)
            .min(self.knobs.sched_latency_ns);
        let (ran, vruntime) = if ent & GROUP_ENT != 0 {
            let se = gs.se(ent & !GROUP_ENT, cpu);
            (se.sum_exec_runtime - se.prev_sum_exec_runtime, se.vruntime)
        } else {
            let task = &self.tasks[ent as usize];
            (
                task.sum_exec_runtime - task.prev_sum_exec_runtime,
                task.vruntime,
            )
        };
        let reason = Reason::SliceExpired {
            ran_us: (ran / 1_000) as u32,
            slice_us: (ideal / 1_000) as u32,
        };
        if ran > ideal {
            return Some(reason);
        }
        if ran < self.knobs.sched_min_granularity_ns {
            return None;
        }
        let &(left, _) = rq.queue.first()?;
        (vruntime > left && vruntime - left > ideal).then_some(reason)
    }

    /// `check_preempt_wakeup()` with groups: `find_matching_se()` brings the current
    /// and the woken task's entities up to one cfs_rq, and those two are compared
    /// (`wakeup_preempt_entity`). Returns whether to preempt.
    pub(crate) fn group_wakeup_preempt(&self, curr: TaskId, woken: TaskId, cpu: CpuId) -> bool {
        let Some(gs) = &self.group_sched else {
            return false;
        };
        let (mut se, mut pse) = (curr.0, woken.0);
        let (mut se_depth, mut pse_depth) = (self.ent_depth(se), self.ent_depth(pse));
        while se_depth > pse_depth {
            se_depth -= 1;
            se = self.ent_parent(se).expect("deeper than the root");
        }
        while pse_depth > se_depth {
            pse_depth -= 1;
            pse = self.ent_parent(pse).expect("deeper than the root");
        }
        while self.ent_cfs_rq(se) != self.ent_cfs_rq(pse) {
            se = self.ent_parent(se).expect("entities meet at the root");
            pse = self.ent_parent(pse).expect("entities meet at the root");
        }
        let (se_vruntime, _) = self.ent_key(gs, se, cpu);
        let (pse_vruntime, pse_weight) = self.ent_key(gs, pse, cpu);
        let gran = calc_delta_fair(
            self.knobs.sched_wakeup_granularity_ns,
            pse_weight.min(u32::MAX as u64) as u32,
        );
        se_vruntime > pse_vruntime + gran
    }

    /// The pick's bookkeeping: every cfs_rq counts and weighs the entities on it
    /// (its tree and its current one while on_rq), a group entity is on_rq exactly
    /// when its cfs_rq has entities, and every queued task of a CPU is in its
    /// cfs_rq's tree there.
    pub(crate) fn check_group_sched(&self) -> Result<(), String> {
        let Some(gs) = &self.group_sched else {
            return Ok(());
        };
        for cpu_idx in 0..self.rqs.len() {
            let cpu = CpuId(cpu_idx as u32);
            let slots = std::iter::once(None).chain((0..self.groups.len() as u32).map(Some));
            for group in slots {
                let rq = gs.rq(group, cpu);
                let mut count = 0u32;
                let mut load = 0u64;
                for &(vruntime, ent) in &rq.queue {
                    let (key, weight) = self.ent_key(gs, ent, cpu);
                    if key != vruntime {
                        return Err(format!(
                            "CPU {cpu_idx}: entity {ent:#x} keyed with a stale vruntime"
                        ));
                    }
                    count += 1;
                    load += weight;
                }
                if let Some(curr) = rq.curr {
                    let on_rq = if curr & GROUP_ENT != 0 {
                        gs.se(curr & !GROUP_ENT, cpu).on_rq
                    } else {
                        self.tasks[curr as usize].state == TaskState::Running(cpu)
                    };
                    if on_rq {
                        count += 1;
                        load += self.ent_key(gs, curr, cpu).1;
                    }
                }
                if count != rq.nr_running || load != rq.load {
                    return Err(format!(
                        "CPU {cpu_idx}, cfs_rq of {group:?}: nr_running {} / load {} but holds {count} / {load}",
                        rq.nr_running, rq.load
                    ));
                }
                if let Some(g) = group {
                    let on_rq = gs.se(g, cpu).on_rq;
                    if on_rq != (rq.nr_running > 0) {
                        return Err(format!(
                            "CPU {cpu_idx}: group {g}'s entity on_rq {on_rq} with {} entities on its cfs_rq",
                            rq.nr_running
                        ));
                    }
                }
            }
        }
        // Runnable tasks under each group on each CPU, against `h_nr_running`.
        let n_groups = self.groups.len();
        let mut runnable = vec![0u32; self.rqs.len() * n_groups];
        for (idx, task) in self.tasks.iter().enumerate() {
            if let TaskState::Queued(cpu) = task.state {
                let rq = gs.rq(task.cgroup, cpu);
                if !rq.queue.contains(&(task.vruntime, idx as u32)) {
                    return Err(format!(
                        "pid {} queued but not in its cfs_rq's tree",
                        task.pid.0
                    ));
                }
            }
            if let TaskState::Queued(cpu) | TaskState::Running(cpu) = task.state {
                let mut group = task.cgroup;
                while let Some(g) = group {
                    runnable[cpu.0 as usize * n_groups + g as usize] += 1;
                    group = self.groups[g as usize].parent;
                }
            }
        }
        for cpu_idx in 0..self.rqs.len() {
            for g in 0..n_groups as u32 {
                let counted = self.group_rq(g, CpuId(cpu_idx as u32)).h_nr_running;
                let found = runnable[cpu_idx * n_groups + g as usize];
                if counted != found {
                    return Err(format!(
                        "CPU {cpu_idx}: group {g}'s h_nr_running {counted} with {found} runnable tasks under it"
                    ));
                }
            }
        }
        for g in 0..n_groups as u32 {
            let sum: u64 = (0..self.rqs.len())
                .map(|cpu| gs.rq(Some(g), CpuId(cpu as u32)).load)
                .sum();
            if sum != gs.load_sum[g as usize] {
                return Err(format!(
                    "group {g}: load sum {} but its cfs_rqs weigh {sum}",
                    gs.load_sum[g as usize]
                ));
            }
        }
        Ok(())
    }
}
