//! Enqueue, dequeue and migration of tasks between runqueues.

use super::*;
use crate::policy::shared_runq::{ShardSite, SharedRunqMode};
use crate::policy::struct_layout::StructOp;
use crate::task::{TaskId, TaskState};
use crate::topology::CpuId;
use crate::trace::{Reason, TraceKind};

impl Simulator {
    /// Puts a task on `cpu`'s runqueue (`enqueue_task_fair` → `__enqueue_entity`);
    /// `by` is the CPU doing it.
    pub(crate) fn enqueue_task(&mut self, task_id: TaskId, cpu: CpuId, by: CpuId) {
        let task = &mut self.tasks[task_id.0 as usize];
        task.state = TaskState::Queued(cpu);
        task.cpu = cpu;
        let (vruntime, weight) = (task.vruntime, task.weight);
        let rq = &mut self.rqs[cpu.0 as usize];
        rq.insert(vruntime, task_id);
        rq.nr_running += 1;
        rq.load_weight += weight as u64;
        // account_entity_enqueue(): at the head of cfs_tasks.
        self.cfs_tasks.push_front(cpu.0, task_id);
        self.attach_load(task_id, cpu);
        self.group_enqueue(task_id, cpu);
        self.touch(cpu);
        self.walk_group_entities(task_id, cpu, by, StructOp::Enqueue, 1);
        if self.shared_runq.spec.mode == SharedRunqMode::All {
            self.shared_runq_enqueue(task_id, cpu, by, ShardSite::EnqueueEntity);
        }
    }

    /// The shard site of a dequeue in the current SHARED_RUNQ mode.
    fn dequeue_site(&self) -> ShardSite {
        match self.shared_runq.spec.mode {
            SharedRunqMode::All => ShardSite::DequeueEntity,
            _ => ShardSite::DequeueTaskFair,
        }
    }

    /// Takes the current task off its CPU because it blocks, sleeps or exits.
    pub(crate) fn dequeue_curr(&mut self, task_id: TaskId, cpu: CpuId, new_state: TaskState) {
        self.update_curr(cpu);
        let task = &mut self.tasks[task_id.0 as usize];
        debug_assert_eq!(task.state, TaskState::Running(cpu));
        task.state = new_state;
        let weight = task.weight;
        let rq = &mut self.rqs[cpu.0 as usize];
        rq.nr_running -= 1;
        rq.load_weight -= weight as u64;
        self.cfs_tasks.unlink(task_id);
        self.detach_load(task_id, cpu, new_state != TaskState::Exited);
        self.group_dequeue(task_id, cpu);
        self.walk_group_entities(task_id, cpu, cpu, StructOp::Dequeue, -1);
        self.note_cpu_state(cpu);
        self.cpus[cpu.0 as usize].run_gen += 1;
        self.tasks[task_id.0 as usize].run_memory_bound = false;
        self.refresh_memory_bound(cpu);
        self.request_resched(cpu, Reason::PrevStopped);
    }

    /// Moves a task that is not running (queued, or being woken) to another CPU,
    /// re-basing its vruntime on the destination's `min_vruntime` (its cfs_rq's there,
    /// with group scheduling).
    pub(crate) fn set_task_cpu(&mut self, task_id: TaskId, dest: CpuId, reason: Reason) {
        let task = &self.tasks[task_id.0 as usize];
        let orig = task.cpu;
        if orig == dest {
            return;
        }
        let from_min = self.task_min_vruntime(task_id, orig);
        let to_min = self.task_min_vruntime(task_id, dest);
        let pid = task.pid.0;
        self.emit(
            orig,
            TraceKind::SchedMigrateTask,
            pid,
            orig.0,
            dest.0,
            reason,
        );
        let distance = self.topology.distance(orig, dest);
        self.metrics.migrations.count(distance);
        let task = &mut self.tasks[task_id.0 as usize];
        // `migrate_task_rq_fair()` / `dequeue_entity()` subtract the old cfs_rq's
        // min_vruntime and `enqueue_entity()` adds the new one's, in wrapping u64
        // arithmetic: an entity below its min_vruntime (a woken sleeper's credit, or
        // a long sleep) keeps that offset, and the wakeup's place_entity() then
        // grants the credit on the new CPU. Simplification: the model's vruntimes
        // start at 0, so a result below 0 is held at 0.
        let relative = task.vruntime as i128 - from_min as i128;
        task.vruntime = (to_min as i128 + relative).max(0) as u64;
        task.cpu = dest;
        task.exec_start = None;
        task.nr_migrations += 1;
    }

    /// Detaches a queued task from `src` and attaches it to `dest` (load balancing).
    pub(crate) fn move_queued_task(
        &mut self,
        kick: bool,
        task_id: TaskId,
        src: CpuId,
        dest: CpuId,
        reason: Reason,
    ) {
        debug_assert_eq!(self.tasks[task_id.0 as usize].state, TaskState::Queued(src));
        // double_rq_lock(): the balancing CPU takes both runqueue locks.
        self.lock_rq(src, dest, "raw_spin_rq_lock_nested");
        self.lock_rq(dest, dest, "raw_spin_rq_lock_nested");
        self.dequeue_queued(task_id, src, dest);
        self.set_task_cpu(task_id, dest, reason);
        self.enqueue_task(task_id, dest, dest);
        // `attach_task()` → `check_preempt_curr()`; a CPU pulling for itself in
        // `newidle_balance` is already inside `schedule` and picks the task next.
        if kick {
            self.check_preempt_curr(dest, task_id);
        }
    }

    /// Takes a waiting (not running) task off `cpu`'s runqueue; `by` is the CPU
    /// doing it.
    pub(crate) fn dequeue_queued(&mut self, task_id: TaskId, cpu: CpuId, by: CpuId) {
        let task = &self.tasks[task_id.0 as usize];
        let (vruntime, weight) = (task.vruntime, task.weight);
        let rq = &mut self.rqs[cpu.0 as usize];
        rq.remove(vruntime, task_id);
        if rq.last == Some(task_id) {
            rq.last = None; // dequeue_entity() → clear_buddies()
        }
        rq.nr_running -= 1;
        rq.load_weight -= weight as u64;
        self.cfs_tasks.unlink(task_id);
        // It moves, or waits throttled: attached here until it is runnable again.
        self.detach_load(task_id, cpu, true);
        self.group_dequeue(task_id, cpu);
        self.touch(cpu);
        self.walk_group_entities(task_id, cpu, by, StructOp::Dequeue, -1);
        let site = self.dequeue_site();
        self.shared_runq_dequeue(task_id, by, site);
    }

    /// `enqueue_load_avg()`: the task's runnable average catches up on the time it
    /// was not runnable, and its load joins `cpu`'s sums; if it was attached to
    /// another runqueue, that one first loses its blocked load
    /// (`remove_entity_load_avg()`, then `attach_entity_load_avg()`).
    pub(crate) fn attach_load(&mut self, task_id: TaskId, cpu: CpuId) {
        let now = self.now;
        let task = &mut self.tasks[task_id.0 as usize];
        task.load.update(now, false);
        let (weight, runnable) = (task.weight, task.load.util_avg);
        let from = task.load_rq.replace(cpu);
        if let Some(from) = from.filter(|&from| from != cpu) {
            self.rqs[from.0 as usize]
                .load_avg
                .remove_blocked(now, weight, runnable);
        }
        self.rqs[cpu.0 as usize]
            .load_avg
            .enqueue(now, weight, runnable, from == Some(cpu));
    }

    /// `dequeue_load_avg()`: the task's runnable average counts the time since it
    /// was enqueued, and its load leaves `cpu`'s runnable sum; with `stays` it stays
    /// attached there as blocked load, else (an exit) it goes.
    fn detach_load(&mut self, task_id: TaskId, cpu: CpuId, stays: bool) {
        let now = self.now;
        let task = &mut self.tasks[task_id.0 as usize];
        task.load.update(now, true);
        if !stays {
            task.load_rq = None;
        }
        let (weight, runnable) = (task.weight, task.load.util_avg);
        self.rqs[cpu.0 as usize]
            .load_avg
            .dequeue(now, weight, runnable, stays);
    }
}
