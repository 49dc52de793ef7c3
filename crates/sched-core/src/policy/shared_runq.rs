//! SHARED_RUNQ (seed 000, David Vernet, 2023, on 6.5): sharded per-LLC shared
//! runqueues that a CPU about to go idle pulls from.
//!
//! Each LLC has `max(llc_cpus / shard_size, 1)` shards (one when `shard_size` is 0,
//! the unsharded v1 form), each a FIFO list of runnable tasks under its own spinlock;
//! a CPU's shard is `cpu % num_shards` (patch 6) or `(cpu >> 1) % num_shards` (Peter
//! Zijlstra's form that keeps SMT siblings together). A task allowed on more than one
//! CPU is pushed into the shard of the CPU whose runqueue it joins:
//! - `wakeups` (patches 1-6): at the end of `enqueue_task_fair()` on a wakeup that
//!   `select_task_rq` did not migrate; it leaves the shard when it is picked
//!   (`pick_next_task_fair()`) or dequeued (`dequeue_task_fair()`).
//! - `all` (patch 7): in `__enqueue_entity()` and `__dequeue_entity()`, so every
//!   insertion into and removal from a CFS runqueue's tree pushes or removes it.
//!
//! At the head of `newidle_balance()`, `shared_runq_pick_next_task()` visits the
//! LLC's shards starting with the CPU's own and pops the head of the first non-empty
//! one, if the task may run here (else that shard yields nothing, as in v2). If the
//! task is still queued and not running, `move_queued_task()` brings it over and
//! newidle balancing ends; with `skip_llc_balance` (Peter's suggestion) a failed
//! attempt makes newidle balance start above the LLC.
//!
//! Costs: every push and removal takes the shard's lock, each shard looked at costs
//! `scan_per_cpu_ns`, and a pull takes the task's runqueue lock (`task_rq_lock`) and
//! its own twice (`move_queued_task`, then re-taking it). `lock_stat` rows are per
//! class, `&shard->lock` beside `&rq->__lock`, with their call sites.
//!
//! Hooks: `shared_runq_enqueue` from `engine::enqueue` (`enqueue_task`, every tree
//! insertion) and `engine::ttwu` (the wakeup case); `shared_runq_dequeue` from
//! `engine::schedule` (pick) and `engine::enqueue` (dequeue, migration);
//! `shared_runq_pull` from the head of `baseline::balance::newidle_balance`.
//! Left out: rebuilding the shards when domains change (hotplug keeps the boot-time
//! shards), and stale entries when the feature is toggled at run time.

use crate::engine::Simulator;
use crate::lock::{LockSite, LockStat, SpinLock};
use crate::task::{TaskId, TaskState};
use crate::task_list::TaskLists;
use crate::time::SimTime;
use crate::topology::{CpuId, Topology};
use crate::trace::{Reason, TraceKind};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// Where tasks are pushed into the shared runqueue.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum SharedRunqMode {
    /// No shared runqueue (NO_SHARED_RUNQ).
    #[default]
    Off,
    /// Push on a wakeup that select_task_rq did not migrate (patches 1-6).
    Wakeups,
    /// Push on every `__enqueue_entity`, remove on every `__dequeue_entity` (patch 7).
    All,
}

/// Which shard of its LLC a CPU uses.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum ShardIndex {
    /// `cpu % num_shards` (patch 6).
    #[default]
    CpuMod,
    /// `(cpu >> 1) % num_shards`: SMT siblings numbered 2k, 2k+1 share a shard.
    CpuShr1Mod,
}

/// `policy.shared_runq` as a scenario writes it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct SharedRunqSpec {
    /// `off`, `wakeups` or `all` (default `off`).
    #[serde(default)]
    pub mode: SharedRunqMode,
    /// CPUs per shard: an LLC of N CPUs has `max(N / shard_size, 1)` shards; 0 means
    /// one shard per LLC, unsharded (default 6, `SHARED_RUNQ_SHARD_SZ`).
    #[serde(default = "default_shard_size")]
    #[schemars(range(max = 4096))]
    pub shard_size: u32,
    /// `cpu_mod` or `cpu_shr1_mod` (default `cpu_mod`).
    #[serde(default)]
    pub shard_index: ShardIndex,
    /// After a shared-runqueue pull attempt, start newidle balancing above the LLC
    /// (default false).
    #[serde(default)]
    pub skip_llc_balance: bool,
}

fn default_shard_size() -> u32 {
    6
}

impl Default for SharedRunqSpec {
    fn default() -> Self {
        SharedRunqSpec {
            mode: SharedRunqMode::Off,
            shard_size: default_shard_size(),
            shard_index: ShardIndex::CpuMod,
            skip_llc_balance: false,
        }
    }
}

/// Where a task was pushed or removed: the kernel function the hook sits in.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ShardSite {
    EnqueueTaskFair,
    PickNextTaskFair,
    DequeueTaskFair,
    EnqueueEntity,
    DequeueEntity,
    NewidleBalance,
}

impl ShardSite {
    pub fn name(self) -> LockSite {
        match self {
            ShardSite::EnqueueTaskFair => "enqueue_task_fair",
            ShardSite::PickNextTaskFair => "pick_next_task_fair",
            ShardSite::DequeueTaskFair => "dequeue_task_fair",
            ShardSite::EnqueueEntity => "__enqueue_entity",
            ShardSite::DequeueEntity => "__dequeue_entity",
            ShardSite::NewidleBalance => "newidle_balance",
        }
    }
}

/// One shard's lock; its FIFO list of tasks is in [`SharedRunq::lists`].
#[derive(Clone, Debug)]
struct Shard {
    lock: SpinLock,
}

/// The shared runqueues of every LLC. Invariant: a task is in at most one shard, and
/// only while it is queued (never while running or sleeping).
#[derive(Clone, Debug)]
pub struct SharedRunq {
    pub spec: SharedRunqSpec,
    shards: Vec<Shard>,
    /// Per LLC: the index of its first shard and its number of shards.
    llc_shards: Vec<(u32, u32)>,
    /// Per shard: its index within its LLC, and the LLC.
    shard_place: Vec<(u32, u32)>,
    /// Per CPU: its shard.
    cpu_shard: Vec<u32>,
    /// Per shard: its tasks, a FIFO threaded through them (the kernel's
    /// `shared_runq_node` list_head).
    lists: TaskLists,
    pub lock_stat: LockStat,
    /// Per shard: its lock's acquisitions and contentions (the class row sums them).
    pub shard_acquisitions: Vec<u64>,
    pub shard_contentions: Vec<u64>,
    /// Per shard: the last `SPINS_KEPT` CPUs that spun on its lock, each with the
    /// time its spin ended, newest at `spin_next` (for the app's drawing of a lock's
    /// waiters; nothing in the simulation reads it).
    spins: Vec<[(CpuId, SimTime); SPINS_KEPT]>,
    spin_next: Vec<u8>,
}

/// How many of a shard lock's latest spins are kept for the drawing.
pub const SPINS_KEPT: usize = 8;

impl SharedRunq {
    pub fn new(spec: SharedRunqSpec, topology: &Topology, n_tasks: usize) -> SharedRunq {
        let mut shards = Vec::new();
        let mut llc_shards = Vec::new();
        let mut cpu_shard = vec![0; topology.n_cpus()];
        let mut shard_place = Vec::new();
        for llc_cpus in &topology.llc_cpus {
            let n_cpus = llc_cpus.len() as u32;
            let num_shards = match spec.shard_size {
                0 => 1,
                size => (n_cpus / size).max(1),
            };
            let first = shards.len() as u32;
            for cpu in llc_cpus.iter() {
                let key = match spec.shard_index {
                    ShardIndex::CpuMod => cpu.0,
                    ShardIndex::CpuShr1Mod => cpu.0 >> 1,
                };
                cpu_shard[cpu.0 as usize] = first + key % num_shards;
            }
            llc_shards.push((first, num_shards));
            for index in 0..num_shards {
                shard_place.push((index, llc_shards.len() as u32 - 1));
                shards.push(Shard {
                    lock: SpinLock::default(),
                });
            }
        }
        let n_shards = shards.len();
        SharedRunq {
            spec,
            shards,
            llc_shards,
            shard_place,
            cpu_shard,
            lists: TaskLists::new(n_shards, n_tasks),
            lock_stat: LockStat::new("&shard->lock"),
            shard_acquisitions: vec![0; n_shards],
            shard_contentions: vec![0; n_shards],
            spins: vec![[(CpuId(u32::MAX), SimTime(0)); SPINS_KEPT]; n_shards],
            spin_next: vec![0; n_shards],
        }
    }

    /// The CPUs that spun on `shard`'s lock at some time after `since` (a spin that
    /// ends later than `since`), each once, newest first: the lock's waiters over a
    /// span, as the app draws them. At most `SPINS_KEPT`.
    pub fn spinners_since(&self, shard: u32, since: SimTime) -> Vec<CpuId> {
        let ring = &self.spins[shard as usize];
        let next = self.spin_next[shard as usize] as usize;
        let mut cpus: Vec<CpuId> = Vec::new();
        for back in 1..=SPINS_KEPT {
            let (cpu, until) = ring[(next + SPINS_KEPT - back) % SPINS_KEPT];
            if cpu.0 == u32::MAX || until <= since {
                continue;
            }
            if !cpus.contains(&cpu) {
                cpus.push(cpu);
            }
        }
        cpus
    }

    pub fn enabled(&self) -> bool {
        self.spec.mode != SharedRunqMode::Off
    }

    /// The shard a CPU pushes into.
    pub fn shard_of_cpu(&self, cpu: CpuId) -> u32 {
        self.cpu_shard[cpu.0 as usize]
    }

    /// The shard a task is queued in, if any.
    pub fn shard_of_task(&self, task: TaskId) -> Option<u32> {
        self.lists.list_of(task)
    }

    /// A shard's index within its LLC, and the LLC.
    pub fn shard_in_llc(&self, shard: u32) -> (u32, u32) {
        self.shard_place[shard as usize]
    }

    /// Number of shards in an LLC.
    pub fn shards_in_llc(&self, llc: u32) -> u32 {
        self.llc_shards[llc as usize].1
    }

    /// The tasks of a shard, head first.
    pub fn shard_tasks(&self, shard: u32) -> Vec<TaskId> {
        self.lists.iter(shard).collect()
    }

    pub fn n_shards(&self) -> usize {
        self.shards.len()
    }
}

impl Simulator {
    /// Takes a shard's lock on `by` from `site`, charging `by` the spin and hold.
    fn lock_shard(&mut self, shard: u32, by: CpuId, site: ShardSite) {
        let hold = self.costs.shard_lock_hold_ns;
        let now = self.now();
        let runq = &mut self.shared_runq;
        let contended_before = runq.lock_stat.contentions;
        // A contended acquisition spins until the lock is free.
        let spin_until = runq.shards[shard as usize].lock.free_at;
        let cost = runq.shards[shard as usize].lock.acquire(
            now,
            by,
            hold,
            &self.topology,
            &mut runq.lock_stat,
            site.name(),
        );
        runq.shard_acquisitions[shard as usize] += 1;
        let contended = runq.lock_stat.contentions - contended_before;
        runq.shard_contentions[shard as usize] += contended;
        if contended > 0 {
            let next = &mut runq.spin_next[shard as usize];
            runq.spins[shard as usize][*next as usize] = (by, spin_until);
            *next = ((*next as usize + 1) % SPINS_KEPT) as u8;
        }
        self.charge_overhead(by, cost);
    }

    /// `shared_runq_enqueue_task()`: pushes a task that joined `cpu`'s runqueue into
    /// `cpu`'s shard, unless it may run on one CPU only. `by` is the CPU doing it.
    pub(crate) fn shared_runq_enqueue(
        &mut self,
        task: TaskId,
        cpu: CpuId,
        by: CpuId,
        site: ShardSite,
    ) {
        if self.tasks[task.0 as usize].affinity.len() <= 1 {
            return;
        }
        let shard = self.shared_runq.shard_of_cpu(cpu);
        self.lock_shard(shard, by, site);
        self.shared_runq.lists.push_back(shard, task);
        self.emit_shard(
            cpu,
            TraceKind::ShardPush,
            task,
            shard,
            Reason::ShardPush { site },
        );
    }

    /// A shard trace record: `arg0` the shard's index in its LLC, `arg1` the LLC.
    fn emit_shard(
        &mut self,
        cpu: CpuId,
        kind: TraceKind,
        task: TaskId,
        shard: u32,
        reason: Reason,
    ) {
        let (index, llc) = self.shared_runq.shard_in_llc(shard);
        let pid = self.pid_of(task);
        self.emit(cpu, kind, pid, index, llc, reason);
    }

    /// `shared_runq_dequeue_task()`: takes a task out of its shard, if it is in one
    /// (the kernel checks the list node without the lock first).
    pub(crate) fn shared_runq_dequeue(&mut self, task: TaskId, by: CpuId, site: ShardSite) {
        let Some(shard) = self.shared_runq.shard_of_task(task) else {
            return;
        };
        self.lock_shard(shard, by, site);
        self.shared_runq.lists.unlink(task);
        self.emit_shard(
            by,
            TraceKind::ShardPop,
            task,
            shard,
            Reason::ShardPop { site },
        );
    }

    /// `shared_runq_pick_next_task()`, at the head of `newidle_balance()`: pop the
    /// first task of the LLC's shards (own shard first) that may run on `cpu`, and
    /// move it here if it is still queued elsewhere. True when a task was taken.
    pub(crate) fn shared_runq_pull(&mut self, cpu: CpuId) -> bool {
        let llc = self.topology.llc_of(cpu).0;
        let (first, num_shards) = self.shared_runq.llc_shards[llc as usize];
        let own = self.shared_runq.shard_of_cpu(cpu) - first;
        let mut popped = None;
        for step in 0..num_shards {
            let shard = first + (own + step) % num_shards;
            // The lockless list_empty() look at the shard's line.
            self.charge_overhead(cpu, self.costs.scan_per_cpu_ns);
            let Some(head) = self.shared_runq.lists.head(shard) else {
                continue;
            };
            self.lock_shard(shard, cpu, ShardSite::NewidleBalance);
            // is_cpu_allowed(): otherwise this shard yields nothing (v2).
            if self.tasks[head.0 as usize].affinity.contains(cpu) && self.cpu_online(cpu) {
                self.shared_runq.lists.unlink(head);
                popped = Some((head, shard));
                break;
            }
        }
        let Some((task, shard)) = popped else {
            return false;
        };
        let (index, _) = self.shared_runq.shard_in_llc(shard);
        let src = self.tasks[task.0 as usize].cpu;
        // task_rq_lock(p), then move_queued_task() takes this CPU's lock.
        self.lock_rq(src, cpu, "task_rq_lock");
        let reason = Reason::SharedRunqPull {
            shard: index,
            llc,
            src: src.0,
        };
        if self.tasks[task.0 as usize].state == TaskState::Queued(src) && src != cpu {
            self.dequeue_queued(task, src, cpu);
            self.lock_rq(cpu, cpu, "raw_spin_rq_lock_nested");
            self.emit_shard(cpu, TraceKind::ShardPull, task, shard, reason);
            self.set_task_cpu(task, cpu, reason);
            self.enqueue_task(task, cpu, cpu);
        }
        // raw_spin_rq_lock(this_rq) again before returning to the pick.
        self.lock_rq(cpu, cpu, "raw_spin_rq_lock_nested");
        true
    }

    /// The first domain level above the LLC, where newidle balancing starts after a
    /// shared-runqueue attempt with `skip_llc_balance`.
    pub(crate) fn first_level_above_llc(&self, cpu: CpuId) -> usize {
        let llc_size = self.topology.llc_cpus[self.topology.llc_of(cpu).0 as usize].len();
        self.domains
            .of(cpu)
            .iter()
            .position(|sd| sd.span.len() > llc_size)
            .unwrap_or(self.domains.of(cpu).len())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::topology::TopologySpec;

    fn topology(preset: &str) -> Topology {
        Topology::build(
            TopologySpec {
                preset: Some(preset.into()),
                ..Default::default()
            }
            .resolve()
            .unwrap(),
        )
    }

    fn spec(shard_size: u32, shard_index: ShardIndex) -> SharedRunqSpec {
        SharedRunqSpec {
            mode: SharedRunqMode::All,
            shard_size,
            shard_index,
            skip_llc_balance: false,
        }
    }

    #[test]
    fn shards_per_llc_follow_the_patch_formula() {
        // Skylake: one LLC of 36 CPUs. Size 6 gives 6 shards, 12 gives 3, 0 gives 1.
        let skylake = topology("skylake-18c");
        for (size, expected) in [(6, 6), (12, 3), (0, 1), (64, 1)] {
            let runq = SharedRunq::new(spec(size, ShardIndex::CpuMod), &skylake, 0);
            assert_eq!(runq.shards_in_llc(0), expected, "shard_size {size}");
        }
        // cpu % n against (cpu >> 1) % n with 6 shards: CPUs 0 and 1 differ, then agree.
        let modulo = SharedRunq::new(spec(6, ShardIndex::CpuMod), &skylake, 0);
        let shifted = SharedRunq::new(spec(6, ShardIndex::CpuShr1Mod), &skylake, 0);
        assert_ne!(modulo.shard_of_cpu(CpuId(0)), modulo.shard_of_cpu(CpuId(1)));
        assert_eq!(
            shifted.shard_of_cpu(CpuId(0)),
            shifted.shard_of_cpu(CpuId(1))
        );
        assert_eq!(
            shifted.shard_of_cpu(CpuId(2)),
            shifted.shard_of_cpu(CpuId(3))
        );
        assert_eq!(modulo.shard_of_cpu(CpuId(7)), 1);
        assert_eq!(shifted.shard_of_cpu(CpuId(7)), 3);
    }

    #[test]
    fn each_llc_has_its_own_shards() {
        // Milan: 6 LLCs of 12 CPUs, shard size 6: two shards each, twelve in all.
        let milan = topology("milan-72");
        let runq = SharedRunq::new(spec(6, ShardIndex::CpuMod), &milan, 0);
        assert_eq!(runq.n_shards(), 12);
        for cpu in 0..72u32 {
            let shard = runq.shard_of_cpu(CpuId(cpu));
            let (_, llc) = runq.shard_in_llc(shard);
            assert_eq!(llc, milan.llc_of(CpuId(cpu)).0, "CPU {cpu}");
        }
    }

    #[test]
    fn a_shard_is_a_fifo_and_removal_from_the_middle_keeps_the_order() {
        let skylake = topology("skylake-18c");
        let mut runq = SharedRunq::new(spec(0, ShardIndex::CpuMod), &skylake, 5);
        for task in 0..5 {
            runq.lists.push_back(0, TaskId(task));
        }
        runq.lists.unlink(TaskId(2));
        runq.lists.unlink(TaskId(0));
        assert_eq!(runq.shard_tasks(0), vec![TaskId(1), TaskId(3), TaskId(4)]);
        assert_eq!(runq.shard_of_task(TaskId(2)), None);
        runq.lists.push_back(0, TaskId(2));
        runq.lists.unlink(TaskId(4));
        assert_eq!(runq.shard_tasks(0), vec![TaskId(1), TaskId(3), TaskId(2)]);
        assert_eq!(runq.lists.len(0), 3);
    }
}
