//! Load balancing: `newidle_balance()` when a CPU is about to go idle, and periodic
//! `load_balance()` per domain at its interval (from the tick on busy CPUs, and on
//! behalf of idle CPUs through a NOHZ idle balance).
//!
//! Variants, side by side:
//! - the newidle gate ([`NewidleGate`]): before 5.16 `avg_idle` against
//!   `sysctl_sched_migration_cost`; from 5.16 against the lowest domain's
//!   `max_newidle_lb_cost`. Both stop climbing domains once the cost so far plus a
//!   domain's `max_newidle_lb_cost` exceeds `avg_idle`.
//! - `busy_factor`: 32 before 5.10, then 16; from 5.10 a busy CPU's interval is
//!   also one tick shorter (`get_sd_balance_interval()`).
//! - from 5.11 `can_migrate_task()` passes over per-CPU kthreads (the machine's
//!   kworkers) before its affinity test.
//! - the imbalance ([`LoadBalanceVariant`]): before 5.5 by load against the domain
//!   average (`calculate_imbalance`, `fix_small_imbalance`); from 5.5 by migration
//!   type (tasks while the local group has spare capacity, load once busy).
//! - the NUMA rule (`adjust_numa_imbalance`, [`NumaBalanceRule`]).
//!
//! Every version: `should_we_balance()` lets only the first idle CPU of a group (else
//! its first CPU) balance a domain periodically; each CPU's `sd->balance_interval`
//! doubles after a periodic balance that had nothing to do, up to `max_interval`,
//! and falls back to `min_interval` when a balance finds an imbalance; `can_migrate_task()` refuses tasks
//! that may not run here, that run, or that are cache-hot (`task_hot`) until
//! periodic balancing has failed more than `cache_nice_tries` times; newidle
//! failures do not count. A balance that fell short because tasks may not run on
//! this CPU (`LBF_SOME_PINNED`) marks the parent domain's local group imbalanced
//! (`sgc->imbalance`); one that finds nothing to do clears it; a busiest group so
//! marked is `group_imbalanced` and gives up one task whatever the averages say
//! (5.5+). Simplifications: loads are instantaneous runqueue weights;
//! `migrate_util` moves one task; no active balance, no misfit or
//! asymmetric-capacity types; no retry with another destination CPU of the group
//! (`LBF_DST_PINNED`); a source runqueue whose tasks are all pinned elsewhere
//! (`LBF_ALL_PINNED`) is passed for the next of the same busiest group, where the
//! kernel recomputes the statistics without it; the pre-5.5 load variant sets and
//! clears the flag but does not read it (`group_imb`).

use crate::baseline::fork::NUMA_IMBALANCE_MIN;
use crate::baseline::groups::{GroupStats, GroupType};
use crate::domains::SchedDomain;
use crate::engine::Simulator;
use crate::kernel::{LoadBalanceVariant, NewidleGate, NumaBalanceRule};
use crate::task::{TaskId, TaskState};
use crate::time::SimTime;
use crate::topology::CpuId;
use crate::trace::Reason;

/// `MAX_PINNED_INTERVAL` (ms): how far a domain's interval may back off when every
/// task the balancer looked at was pinned elsewhere.
const MAX_PINNED_INTERVAL_MS: u64 = 512;

/// `enum cpu_idle_type`: why a balance runs.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum IdleType {
    /// From the tick of a busy CPU.
    NotIdle,
    /// On behalf of an idle CPU (NOHZ idle balance).
    Idle,
    /// A CPU about to go idle (`newidle_balance`).
    NewlyIdle,
}

/// What `detach_tasks()` did.
struct Detached {
    moved: u32,
    pinned: Pinned,
    /// Imbalance was left over (`env.imbalance > 0`).
    short: bool,
}

/// `load_balance()`'s affinity flags over the tasks it looked at.
#[derive(Clone, Copy)]
struct Pinned {
    /// Some task could not move here because of its affinity (`LBF_SOME_PINNED`).
    some: bool,
    /// No task looked at may run here (`LBF_ALL_PINNED` still set).
    all: bool,
}

impl Pinned {
    /// Before any task is looked at: none held back, all (vacuously) pinned.
    const START: Pinned = Pinned {
        some: false,
        all: true,
    };
}

/// How much to move, as `calculate_imbalance()` decides.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Imbalance {
    /// `migrate_task`: this many tasks.
    Tasks(u32),
    /// `migrate_load`: this much runqueue weight.
    Load(u64),
}

impl Simulator {
    /// `newidle_balance()`. Returns true when a task was pulled.
    pub(crate) fn newidle_balance(&mut self, cpu: CpuId) -> bool {
        let cpu_idx = cpu.0 as usize;
        // SHARED_RUNQ: pull from the LLC's shards first, before any gate.
        let mut first_level = 0;
        if self.shared_runq.enabled() {
            if self.shared_runq_pull(cpu) {
                return true;
            }
            if self.shared_runq.spec.skip_llc_balance {
                first_level = self.first_level_above_llc(cpu);
            }
        }
        let avg_idle = self.cpus[cpu_idx].avg_idle_ns;
        // rd->overload: some runqueue has a task waiting.
        if !self.any_waiting() {
            return false;
        }
        let skip = match self.features.newidle_gate {
            NewidleGate::MigrationCost => avg_idle < self.knobs.sched_migration_cost_ns,
            NewidleGate::MaxNewidleLbCost => {
                avg_idle
                    < self.cpus[cpu_idx]
                        .max_newidle_lb_cost
                        .first()
                        .copied()
                        .unwrap_or(0)
            }
        };
        if skip {
            return false;
        }
        self.update_blocked_averages(cpu);
        let n_domains = self.domains.of(cpu).len();
        let mut spent = 0u64;
        for level in first_level..n_domains {
            let expected = self.cpus[cpu_idx].max_newidle_lb_cost[level];
            if avg_idle < spent + expected {
                break;
            }
            let sd = &self.domains.of(cpu)[level];
            if !sd.flags.balance_newidle {
                continue;
            }
            let cost =
                self.costs.balance_attempt_ns + sd.span.len() as u64 * self.costs.scan_per_cpu_ns;
            spent += cost;
            self.charge_overhead(cpu, cost);
            let slot = &mut self.cpus[cpu_idx].max_newidle_lb_cost[level];
            *slot = (*slot).max(cost);
            if self.load_balance(cpu, level, IdleType::NewlyIdle) {
                return true;
            }
        }
        false
    }

    /// Whether any runqueue has a task waiting behind another (the root domain's
    /// `overload` flag).
    fn any_waiting(&self) -> bool {
        !self.overloaded.is_empty()
    }

    /// Periodic balancing for one CPU (`rebalance_domains()`), from its tick.
    pub(crate) fn rebalance_domains(&mut self, cpu: CpuId, idle: bool) {
        let cpu_idx = cpu.0 as usize;
        let idle_type = if idle {
            IdleType::Idle
        } else {
            IdleType::NotIdle
        };
        let n_domains = self.domains.of(cpu).len();
        let mut softirq = false;
        for level in 0..n_domains {
            let due = self.cpus[cpu_idx].last_balance[level]
                + self.sd_balance_interval(cpu_idx, level, !idle);
            if self.now() < due {
                continue;
            }
            if !std::mem::replace(&mut softirq, true) {
                // A domain is due: SCHED_SOFTIRQ runs, and run_rebalance_domains()
                // first updates the blocked load averages.
                self.update_blocked_averages(cpu);
            }
            let sd = &self.domains.of(cpu)[level];
            self.cpus[cpu_idx].last_balance[level] = self.now();
            if !self.should_we_balance(cpu, sd) {
                // Another CPU of the group balances this domain, and the ones above;
                // in the kernel this is `load_balance()` going to `out_balanced`.
                self.out_balanced(cpu, level, idle_type, false);
                break;
            }
            let cost =
                self.costs.balance_attempt_ns + sd.span.len() as u64 * self.costs.scan_per_cpu_ns;
            self.charge_overhead(cpu, cost);
            if self.load_balance(cpu, level, idle_type) && idle {
                // An idle CPU that pulled work stops balancing higher levels for now.
                break;
            }
        }
    }

    /// `update_max_interval()`: `max_load_balance_interval` for the CPUs online now.
    pub(crate) fn update_max_interval(&mut self) {
        let hz = self.knobs.hz as u64;
        self.max_balance_interval_ticks = (hz * self.online.len() as u64 / 10).max(1);
    }

    /// `get_sd_balance_interval()`: the domain's `balance_interval`, `busy_factor`
    /// times longer on a busy CPU, in whole ticks (`msecs_to_jiffies()` rounds up),
    /// a tick shorter when busy (5.10+), and between one tick and
    /// `max_load_balance_interval`.
    pub(crate) fn sd_balance_interval(&self, cpu_idx: usize, level: usize, busy: bool) -> SimTime {
        let mut interval_ms = self.cpus[cpu_idx].balance_interval_ms[level];
        if busy {
            interval_ms *= self.features.busy_factor as u64;
        }
        let mut jiffies = (interval_ms * self.knobs.hz as u64).div_ceil(1000);
        if busy && self.features.busy_interval_minus_one {
            jiffies = jiffies.saturating_sub(1);
        }
        SimTime(jiffies.clamp(1, self.max_balance_interval_ticks) * self.knobs.tick_ns())
    }

    /// `load_balance()`'s `out_balanced` / `out_all_pinned`: nothing moved because
    /// nothing needed to, or because every task looked at was pinned elsewhere. The
    /// failure count resets; unless all were pinned, the parent's group is no longer
    /// imbalanced (other tasks had their chance to fix it); and a periodic balance
    /// backs off, doubling `balance_interval` up to `max_interval` (2x the span's
    /// weight), or up to `MAX_PINNED_INTERVAL` when all were pinned. A newidle
    /// balance does not back off: it ignores intervals and would climb too fast.
    fn out_balanced(&mut self, this_cpu: CpuId, level: usize, idle: IdleType, all_pinned: bool) {
        let this_idx = this_cpu.0 as usize;
        if !all_pinned && !self.sg_imbalance.is_empty() {
            // (No group is marked unless affinity got in the way: skip the lookup.)
            if let Some(key) = self.parent_group_key(this_cpu, level) {
                self.sg_imbalance.remove(&key);
            }
        }
        self.cpus[this_idx].balance_failed[level] = 0;
        if idle == IdleType::NewlyIdle {
            return;
        }
        let max_interval_ms = self.domains.of(this_cpu)[level].max_interval_ms;
        let interval = &mut self.cpus[this_idx].balance_interval_ms[level];
        if (all_pinned && *interval < MAX_PINNED_INTERVAL_MS) || *interval < max_interval_ms {
            *interval *= 2;
        }
    }

    /// `should_we_balance()`: of the local group, only the first idle CPU (or, when
    /// none is idle, the group's first CPU) balances the domain periodically.
    fn should_we_balance(&self, cpu: CpuId, sd: &SchedDomain) -> bool {
        let Some(local) = sd.groups.iter().find(|group| group.contains(cpu)) else {
            return true;
        };
        match local.iter().find(|other| self.cpu_is_idle(*other)) {
            Some(first_idle) => first_idle == cpu,
            None => local.first() == Some(cpu),
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

    /// `can_migrate_task()` for tests: whether `task` may move from `src` to
    /// `this_cpu`, and the `LBF_SOME_PINNED` / `LBF_ALL_PINNED` flags after it.
    #[cfg(test)]
    pub(crate) fn may_detach_for_test(
        &self,
        task: TaskId,
        src: CpuId,
        this_cpu: CpuId,
    ) -> (bool, bool, bool) {
        let mut pinned = Pinned::START;
        let may = self
            .may_detach(task, src, this_cpu, true, Imbalance::Tasks(1), &mut pinned)
            .is_some();
        (may, pinned.some, pinned.all)
    }

    /// One `load_balance()` for tests: newidle or periodic from a busy CPU.
    #[cfg(test)]
    pub(crate) fn load_balance_for_test(
        &mut self,
        cpu: CpuId,
        level: usize,
        newidle: bool,
    ) -> bool {
        let idle = if newidle {
            IdleType::NewlyIdle
        } else {
            IdleType::NotIdle
        };
        self.load_balance(cpu, level, idle)
    }

    /// The parent domain's group holding `cpu`, as the key of its `sgc->imbalance`
    /// (`sd_parent->groups->sgc`), or `None` at the top level.
    fn parent_group_key(&self, cpu: CpuId, level: usize) -> Option<(usize, u32)> {
        let parent = self.domains.of(cpu).get(level + 1)?;
        let group = parent.groups.iter().find(|group| group.contains(cpu))?;
        Some((level + 1, group.first()?.0))
    }

    /// `load_balance()` at one domain level. Returns true when a task moved.
    fn load_balance(&mut self, this_cpu: CpuId, level: usize, idle: IdleType) -> bool {
        let this_idx = this_cpu.0 as usize;
        if self.features.sis_util && idle != IdleType::NewlyIdle {
            // update_sd_lb_stats() ends with update_idle_cpu_scan().
            self.update_idle_cpu_scan(this_cpu, level);
        }
        // The other groups' statistics go in a buffer kept between balances: one
        // allocation per balance of every level was a cost that grew with the machine.
        let mut others = std::mem::take(&mut self.balance_groups);
        self.flush_group_sums();
        let sd = &self.domains.of(this_cpu)[level];
        let found = match self.features.load_balance {
            LoadBalanceVariant::Load => {
                self.find_busiest_group_load(sd, this_cpu, idle, level, &mut others)
            }
            LoadBalanceVariant::MigrationType => {
                self.find_busiest_group_by_type(sd, this_cpu, idle, level, &mut others)
            }
        };
        self.balance_groups = others;
        let Some((busiest_idx, imbalance)) = found else {
            self.out_balanced(this_cpu, level, idle, false);
            return false;
        };
        // Runqueues whose every task was pinned elsewhere (`LBF_ALL_PINNED`): the
        // kernel drops each from `env->cpus` and tries again (`redo`). Simplified: the
        // next runqueue of the same busiest group, its statistics not recomputed
        // without the dropped ones.
        let mut all_pinned_rqs: Vec<CpuId> = Vec::new();
        let moved = loop {
            let sd = &self.domains.of(this_cpu)[level];
            let group = &sd.groups[busiest_idx];
            // find_busiest_queue(): by load for a load imbalance, else by task count;
            // only a runqueue with a task waiting can give one up.
            let src = group
                .iter_and(&self.overloaded)
                .filter(|cpu| !all_pinned_rqs.contains(cpu))
                .max_by_key(|cpu| {
                    let rq = &self.rqs[cpu.0 as usize];
                    let key = match imbalance {
                        Imbalance::Load(_) => self.cfs_load(*cpu),
                        Imbalance::Tasks(_) => rq.nr_running as u64,
                    };
                    (key, std::cmp::Reverse(cpu.0))
                });
            let Some(src) = src else {
                // No queue (`out_balanced`), or none left after pinned ones
                // (`out_all_pinned`).
                self.out_balanced(this_cpu, level, idle, !all_pinned_rqs.is_empty());
                return false;
            };
            let (level_tag, cache_nice_tries) = (sd.level.tag(), sd.cache_nice_tries);
            let Detached {
                moved,
                pinned,
                short,
            } = self.detach_and_attach(
                this_cpu,
                src,
                imbalance,
                level,
                level_tag,
                cache_nice_tries,
                idle,
            );
            // "We failed to reach balance because of affinity": the parent's group is
            // imbalanced, so the level above moves a task out of it whatever its
            // averages say.
            if pinned.some && short {
                if let Some(key) = self.parent_group_key(this_cpu, level) {
                    self.sg_imbalance.insert(key);
                }
            }
            if moved == 0 && pinned.all {
                all_pinned_rqs.push(src);
                continue;
            }
            break moved;
        };
        let state = &mut self.cpus[this_idx];
        if moved > 0 {
            state.balance_failed[level] = 0;
        } else if idle != IdleType::NewlyIdle {
            // Only periodic balancing counts failures (`nr_balance_failed`).
            state.balance_failed[level] += 1;
        }
        // "We were unbalanced, so reset the balancing interval" (no active balance
        // in the model, so always).
        state.balance_interval_ms[level] = self.domains.of(this_cpu)[level].min_interval_ms;
        moved > 0
    }

    /// `detach_tasks()` then `attach_tasks()`: walks the source's `cfs_tasks` from its
    /// tail (the task least recently enqueued or picked first), looking at no more
    /// than `min(sched_nr_migrate, nr_running)` tasks, never emptying the source. A
    /// task that may not move goes to the head of the list (`list_move()`), so the
    /// next look starts with others.
    #[allow(clippy::too_many_arguments)]
    fn detach_and_attach(
        &mut self,
        this_cpu: CpuId,
        src: CpuId,
        imbalance: Imbalance,
        level: usize,
        level_tag: crate::trace::LevelTag,
        cache_nice_tries: u32,
        idle: IdleType,
    ) -> Detached {
        let failed = self.cpus[this_cpu.0 as usize].balance_failed[level];
        let may_move_hot = failed > cache_nice_tries;
        let loop_max = (self.knobs.sched_nr_migrate).min(self.rqs[src.0 as usize].nr_running);
        let mut moved = 0u32;
        let mut pinned = Pinned::START;
        let mut left = imbalance;
        let mut looked = 0u32;
        while looked < loop_max {
            let done = match left {
                Imbalance::Tasks(count) => count == 0,
                Imbalance::Load(load) => load == 0,
            };
            if done || self.rqs[src.0 as usize].nr_running <= 1 {
                break;
            }
            let Some(task_id) = self.cfs_tasks.tail(src.0) else {
                break;
            };
            looked += 1;
            let Some(after) =
                self.may_detach(task_id, src, this_cpu, may_move_hot, left, &mut pinned)
            else {
                self.cfs_tasks.move_to_front(src.0, task_id);
                continue;
            };
            left = after;
            let reason = Reason::Pull {
                src: src.0,
                src_nr_running: self.rqs[src.0 as usize].nr_running,
                level: level_tag,
                newidle: idle == IdleType::NewlyIdle,
            };
            self.move_queued_task(idle != IdleType::NewlyIdle, task_id, src, this_cpu, reason);
            moved += 1;
        }
        let short = match left {
            Imbalance::Tasks(count) => count > 0,
            Imbalance::Load(load) => load > 0,
        };
        Detached {
            moved,
            pinned,
            short,
        }
    }

    /// `can_migrate_task()` and `detach_tasks()`'s load test: whether the balancer
    /// may take this task from `src` to `this_cpu` now, and if so the imbalance left
    /// once it has. In the kernel's order: per-CPU kthreads are passed over first
    /// (5.11+), then affinity is tested, so a task that may run here clears
    /// `all_pinned` even when it is running or cache-hot.
    fn may_detach(
        &self,
        task_id: TaskId,
        src: CpuId,
        this_cpu: CpuId,
        may_move_hot: bool,
        left: Imbalance,
        pinned: &mut Pinned,
    ) -> Option<Imbalance> {
        let task = &self.tasks[task_id.0 as usize];
        if self.features.lb_ignores_pcpu_kthreads && self.workloads[task.group as usize].background
        {
            // kthread_is_per_cpu(): "they are where they need to be".
            return None;
        }
        if !task.affinity.contains(this_cpu) {
            // LBF_SOME_PINNED.
            pinned.some = true;
            return None;
        }
        pinned.all = false;
        if task.state != TaskState::Queued(src) {
            // Running (task_on_cpu()).
            return None;
        }
        if !may_move_hot && self.task_hot(task_id, this_cpu) {
            return None;
        }
        match left {
            Imbalance::Load(load) => {
                let weight = self.task_h_load(task_id, src);
                // A task more than twice the remaining imbalance would overshoot.
                (weight / 2 <= load).then(|| Imbalance::Load(load.saturating_sub(weight)))
            }
            Imbalance::Tasks(count) => Some(Imbalance::Tasks(count - 1)),
        }
    }

    /// The domain's groups' statistics: the local one, and each other with its index.
    fn domain_group_stats(
        &self,
        sd: &SchedDomain,
        level: usize,
        this_cpu: CpuId,
        others: &mut Vec<(usize, GroupStats)>,
    ) -> Option<GroupStats> {
        let mut local = None;
        others.clear();
        for (group_idx, group) in sd.groups.iter().enumerate() {
            let mut stats = self.group_stats(sd, group_idx);
            stats.imbalanced = !self.sg_imbalance.is_empty()
                && group
                    .first()
                    .is_some_and(|first| self.sg_imbalance.contains(&(level, first.0)));
            if group.contains(this_cpu) {
                local = Some(stats);
            } else {
                others.push((group_idx, stats));
            }
        }
        local
    }

    /// Before 5.5: `find_busiest_group()` and `calculate_imbalance()` by load.
    fn find_busiest_group_load(
        &self,
        sd: &SchedDomain,
        this_cpu: CpuId,
        idle: IdleType,
        level: usize,
        others: &mut Vec<(usize, GroupStats)>,
    ) -> Option<(usize, Imbalance)> {
        let pct = sd.imbalance_pct;
        let local = self.domain_group_stats(sd, level, this_cpu, others);
        let local = local?;
        let local_has_capacity = local.has_capacity(pct);
        let prefer_sibling = self.prefer_sibling(this_cpu, level);
        // Busiest: no spare capacity first, then the highest load per CPU.
        let no_capacity = |stats: &GroupStats| {
            stats.is_overloaded(pct)
                || (prefer_sibling && local_has_capacity && stats.sum_nr_running > 1)
        };
        let (busiest_idx, busiest) = others
            .iter()
            .max_by_key(|(idx, stats)| {
                (
                    no_capacity(stats),
                    stats.avg_load(),
                    std::cmp::Reverse(*idx),
                )
            })
            .copied()?;
        if busiest.sum_nr_running == 0 {
            return None;
        }
        let total_load: u64 = local.load + others.iter().map(|(_, stats)| stats.load).sum::<u64>();
        let total_weight: u32 =
            local.weight + others.iter().map(|(_, stats)| stats.weight).sum::<u32>();
        let domain_avg = total_load * 1024 / total_weight.max(1) as u64;
        let forced = idle == IdleType::NewlyIdle && local_has_capacity && no_capacity(&busiest);
        if !forced {
            if local.avg_load() >= busiest.avg_load() || local.avg_load() >= domain_avg {
                return None;
            }
            if idle == IdleType::NotIdle {
                if 100 * busiest.avg_load() <= pct as u64 * local.avg_load() {
                    return None;
                }
            } else if !busiest.is_overloaded(pct) && local.idle_cpus <= busiest.idle_cpus + 1 {
                return None;
            }
        }
        // calculate_imbalance(): what brings both groups nearest the domain average.
        let busiest_per_task = busiest.load / busiest.sum_nr_running.max(1) as u64;
        let pull = busiest.avg_load().saturating_sub(domain_avg) * busiest.weight as u64;
        let push = domain_avg.saturating_sub(local.avg_load()) * local.weight as u64;
        let load = pull.min(push) / 1024;
        if load < busiest_per_task {
            // fix_small_imbalance(): move one task when that evens things out.
            let scaled = busiest_per_task * 1024 / busiest.weight.max(1) as u64;
            if busiest.avg_load() + scaled >= local.avg_load() + scaled * 2 {
                return Some((busiest_idx, Imbalance::Load(busiest_per_task)));
            }
            return None;
        }
        Some((busiest_idx, Imbalance::Load(load)))
    }

    /// 5.5+: `find_busiest_group()` and `calculate_imbalance()` by migration type.
    fn find_busiest_group_by_type(
        &self,
        sd: &SchedDomain,
        this_cpu: CpuId,
        idle: IdleType,
        level: usize,
        others: &mut Vec<(usize, GroupStats)>,
    ) -> Option<(usize, Imbalance)> {
        let pct = sd.imbalance_pct;
        let local = self.domain_group_stats(sd, level, this_cpu, others);
        let local = local?;
        // update_sd_pick_busiest(): the highest type; then the highest load (busy
        // groups), or the fewest idle CPUs and the most tasks (spare capacity).
        let (busiest_idx, busiest) = others
            .iter()
            .filter(|(_, stats)| stats.sum_nr_running > 0)
            .max_by(|(a_idx, a), (b_idx, b)| {
                let key = |stats: &GroupStats| {
                    let kind = stats.group_type(pct);
                    let order = if kind == GroupType::HasSpare {
                        (u32::MAX - stats.idle_cpus) as u64 * 1_000_000
                            + stats.sum_nr_running as u64
                    } else {
                        stats.avg_load()
                    };
                    (kind, order)
                };
                key(a).cmp(&key(b)).then(b_idx.cmp(a_idx))
            })
            .copied()?;
        let (local_type, busiest_type) = (local.group_type(pct), busiest.group_type(pct));
        if busiest_type == GroupType::Imbalanced {
            // "If the busiest group is imbalanced the below checks don't work":
            // force_balance, and calculate_imbalance() moves any one task.
            return Some((busiest_idx, Imbalance::Tasks(1)));
        }
        let domain_avg = {
            let load: u64 = local.load + others.iter().map(|(_, stats)| stats.load).sum::<u64>();
            let weight: u32 =
                local.weight + others.iter().map(|(_, stats)| stats.weight).sum::<u32>();
            load * 1024 / weight.max(1) as u64
        };
        if local_type > busiest_type {
            return None;
        }
        if local_type == GroupType::Overloaded {
            if local.avg_load() >= busiest.avg_load()
                || local.avg_load() >= domain_avg
                || 100 * busiest.avg_load() <= pct as u64 * local.avg_load()
            {
                return None;
            }
        } else {
            let forced = self.prefer_sibling(this_cpu, level)
                && local_type == GroupType::HasSpare
                && busiest.sum_nr_running > local.sum_nr_running + 1;
            if !forced && busiest_type != GroupType::Overloaded {
                if idle == IdleType::NotIdle {
                    return None;
                }
                if busiest.weight > 1 && local.idle_cpus <= busiest.idle_cpus + 1 {
                    return None;
                }
                if busiest.sum_nr_running <= 1 {
                    return None;
                }
            }
        }
        // calculate_imbalance()
        if local_type == GroupType::HasSpare {
            let shares_llc = sd.flags.share_llc;
            if busiest_type == GroupType::Overloaded && !shares_llc {
                // migrate_util: fill the local group's spare capacity; here one task.
                return Some((busiest_idx, Imbalance::Tasks(1)));
            }
            let raw = if busiest.weight == 1 || self.prefer_sibling(this_cpu, level) {
                busiest.sum_nr_running.saturating_sub(local.sum_nr_running)
            } else {
                local.idle_cpus.saturating_sub(busiest.idle_cpus)
            };
            let tasks = if sd.flags.numa {
                self.adjust_numa_imbalance(raw, &local, &busiest, sd)
            } else {
                raw >> 1
            };
            return (tasks > 0).then_some((busiest_idx, Imbalance::Tasks(tasks)));
        }
        // migrate_load: bring both groups to the domain average.
        if local.avg_load() >= busiest.avg_load() {
            return None;
        }
        let pull = busiest.avg_load().saturating_sub(domain_avg) * busiest.weight as u64;
        let push = domain_avg.saturating_sub(local.avg_load()) * local.weight as u64;
        let load = pull.min(push) / 1024;
        (load > 0).then_some((busiest_idx, Imbalance::Load(load)))
    }

    /// `adjust_numa_imbalance()` as the version has it, applied to the raw task
    /// imbalance, halved where the version halves it. Returns the tasks to move.
    fn adjust_numa_imbalance(
        &self,
        raw: u32,
        local: &GroupStats,
        busiest: &GroupStats,
        sd: &SchedDomain,
    ) -> u32 {
        let dst_running = local.sum_nr_running + 1;
        match self.features.numa_balance_rule {
            NumaBalanceRule::None => raw >> 1,
            NumaBalanceRule::BusiestTwo => {
                if busiest.sum_nr_running <= NUMA_IMBALANCE_MIN {
                    0
                } else {
                    raw >> 1
                }
            }
            NumaBalanceRule::Quarter => {
                let halved = raw >> 1;
                if dst_running < local.weight >> 2 && halved <= NUMA_IMBALANCE_MIN {
                    0
                } else {
                    halved
                }
            }
            NumaBalanceRule::ImbNumaNr => {
                let halved = raw >> 1;
                if dst_running <= sd.imb_numa_nr && halved <= NUMA_IMBALANCE_MIN {
                    0
                } else {
                    halved
                }
            }
            NumaBalanceRule::ImbNumaNrUnhalved => {
                if dst_running <= sd.imb_numa_nr && raw <= NUMA_IMBALANCE_MIN {
                    0
                } else {
                    raw >> 1
                }
            }
        }
    }

    /// `sds->prefer_sibling`: the child domain has SD_PREFER_SIBLING, which every
    /// level but NUMA sets (and the SMT level has no child).
    fn prefer_sibling(&self, this_cpu: CpuId, level: usize) -> bool {
        level
            .checked_sub(1)
            .is_some_and(|child| !self.domains.of(this_cpu)[child].flags.numa)
    }

    /// `task_hot()`: ran within `sched_migration_cost_ns` of now (measured from when
    /// it last ran, `exec_start`), unless the move stays on the SMT core. A task
    /// just migrated is cold (the kernel clears its `exec_start`). The last buddy of
    /// its runqueue is hot for a destination with tasks of its own (CACHE_HOT_BUDDY).
    pub(crate) fn task_hot(&self, task_id: TaskId, dest: CpuId) -> bool {
        let task = &self.tasks[task_id.0 as usize];
        if self.topology.core_of(task.cpu) == self.topology.core_of(dest) {
            return false;
        }
        if self.features.cache_hot_buddy
            && self.rqs[dest.0 as usize].nr_running > 0
            && self.rqs[task.cpu.0 as usize].last == Some(task_id)
        {
            return true;
        }
        self.ran_within_migration_cost(task_id)
    }

    /// The time test of `task_hot()` alone: `now - exec_start < migration cost`.
    pub(crate) fn ran_within_migration_cost(&self, task_id: TaskId) -> bool {
        match self.tasks[task_id.0 as usize].exec_start {
            Some(ran) => (self.now() - ran).as_ns() < self.knobs.sched_migration_cost_ns,
            None => false,
        }
    }
}
