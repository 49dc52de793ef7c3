//! Wakeups: `try_to_wake_up`, `wake_up_new_task`, and wakeup preemption (`check_preempt_wakeup`).

use super::*;
use crate::cfs::calc_delta_fair;
use crate::policy::shared_runq::{ShardSite, SharedRunqMode};
use crate::task::{TaskId, TaskState};
use crate::time::SimTime;
use crate::topology::CpuId;
use crate::trace::{Reason, TraceKind};

impl Simulator {
    pub(crate) fn wake_up_new_task(&mut self, task_id: TaskId) {
        let task = &mut self.tasks[task_id.0 as usize];
        task.forked_at = Some(self.now);
        // init_entity_runnable_average(): a new task's load starts at its weight.
        task.load = crate::pelt::Pelt::new(crate::pelt::CAPACITY_SCALE, self.now);
        // Forked from its thread-group leader's CPU, or from the first CPU it may use.
        let parent_cpu = match self.fork_parent[task_id.0 as usize] {
            Some(leader) if self.tasks[leader.0 as usize].state != TaskState::Unborn => {
                self.tasks[leader.0 as usize].cpu
            }
            _ => self.tasks[task_id.0 as usize]
                .affinity
                .first()
                .expect("affinity is never empty"),
        };
        if self.is_parking_kthread(task_id) {
            // Forked for an offline CPU: parked until it comes back.
            let task = &mut self.tasks[task_id.0 as usize];
            task.state = TaskState::Sleeping;
            self.parked.push(task_id);
            return;
        }
        let (mut cpu, mut reason) = self.select_task_rq_fork(task_id, parent_cpu);
        if !self.cpu_online(cpu) {
            let (dest, broke_affinity) = self.select_fallback_rq(task_id, cpu);
            reason = Reason::Fallback {
                from: cpu.0,
                broke_affinity,
            };
            cpu = dest;
        }
        self.tasks[task_id.0 as usize].cpu = cpu;
        // START_DEBIT: a new task starts one virtual slice after min_vruntime (of its
        // own cfs_rq, with group scheduling: `sched_vslice()` over its hierarchy).
        let rq = &self.rqs[cpu.0 as usize];
        let weight = self.tasks[task_id.0 as usize].weight;
        let slice = match self.group_sched {
            Some(_) => self.group_sched_slice(task_id.0, false, cpu),
            None => {
                self.knobs
                    .sched_slice(rq.nr_running + 1, weight, rq.load_weight + weight as u64)
            }
        };
        let min_vruntime = self.task_min_vruntime(task_id, cpu);
        let task = &mut self.tasks[task_id.0 as usize];
        task.vruntime = min_vruntime + calc_delta_fair(slice, weight);
        task.last_ran = self.now;
        task.charged_until = self.now;
        let pid = task.pid.0;
        if self.enqueue_throttled(task_id, cpu) {
            self.tasks[task_id.0 as usize].state = TaskState::Throttled(cpu);
            self.emit(cpu, TraceKind::SchedWakeupNew, pid, cpu.0, 0, reason);
            return;
        }
        self.enqueue_task(task_id, cpu, parent_cpu);
        self.emit(cpu, TraceKind::SchedWakeupNew, pid, cpu.0, 0, reason);
        self.check_preempt_curr(cpu, task_id);
    }

    /// `try_to_wake_up()`: choose a CPU, enqueue, maybe preempt. `waker` is the task
    /// doing the wakeup (none for a timer); `sync` hints that the waker will sleep.
    pub(crate) fn try_to_wake_up(
        &mut self,
        task_id: TaskId,
        waker_cpu: CpuId,
        waker: Option<TaskId>,
        sync: bool,
    ) {
        let task = &self.tasks[task_id.0 as usize];
        if !matches!(task.state, TaskState::Sleeping | TaskState::Blocked) {
            return;
        }
        let pid = task.pid.0;
        let prev_cpu = task.cpu;
        self.emit(
            waker_cpu,
            TraceKind::SchedWaking,
            pid,
            prev_cpu.0,
            0,
            Reason::None,
        );
        if self.rqs[prev_cpu.0 as usize].curr == Some(task_id) {
            // It blocked in this same instant and has not left the CPU yet
            // (`ttwu_runnable()`): it simply stays runnable there.
            let task = &mut self.tasks[task_id.0 as usize];
            task.state = TaskState::Running(prev_cpu);
            let weight = task.weight as u64;
            let rq = &mut self.rqs[prev_cpu.0 as usize];
            rq.nr_running += 1;
            rq.load_weight += weight;
            self.cfs_tasks.push_front(prev_cpu.0, task_id);
            self.attach_load(task_id, prev_cpu);
            self.group_enqueue(task_id, prev_cpu);
            self.touch(prev_cpu);
            self.recount_group_entities(task_id, prev_cpu);
            self.emit(
                waker_cpu,
                TraceKind::SchedWakeup,
                pid,
                prev_cpu.0,
                0,
                Reason::None,
            );
            return;
        }
        if let Some(waker) = waker {
            self.record_wakee(waker, task_id);
        }
        self.place_woken_task(task_id, waker_cpu, waker, sync);
    }

    /// The placement half of `try_to_wake_up()`: pick a CPU, move and enqueue the
    /// task there, and check for preemption.
    pub(crate) fn place_woken_task(
        &mut self,
        task_id: TaskId,
        waker_cpu: CpuId,
        waker: Option<TaskId>,
        sync: bool,
    ) {
        let pid = self.tasks[task_id.0 as usize].pid.0;
        if self.is_parking_kthread(task_id) {
            // Its CPU is offline: it stays parked until the CPU comes back.
            self.tasks[task_id.0 as usize].state = TaskState::Sleeping;
            self.parked.push(task_id);
            return;
        }
        let (mut target, mut reason) = self.select_task_rq_wake(task_id, waker_cpu, waker, sync);
        if !self.cpu_online(target) {
            // is_cpu_allowed() failed: select_fallback_rq().
            let (dest, broke_affinity) = self.select_fallback_rq(task_id, target);
            reason = Reason::Fallback {
                from: target.0,
                broke_affinity,
            };
            target = dest;
        }
        let migrated = self.tasks[task_id.0 as usize].cpu != target;
        self.set_task_cpu(task_id, target, reason);
        self.tasks[task_id.0 as usize].woken_at = Some(self.now);
        self.metrics.wakeups += 1;
        let queued = self.ttwu_queue_cond(target, waker_cpu);
        if queued && self.rqs[target.0 as usize].curr.is_none() {
            // __ttwu_queue_wakelist(): the idle target enqueues the task itself once
            // it leaves idle; until then the task is on no runqueue, so nothing can
            // pull it, and the CPU no longer counts as idle (`rq->ttwu_pending`).
            // Simplification: the model emits sched_wakeup now, on the waker's CPU.
            self.tasks[task_id.0 as usize].state = TaskState::Waking(target);
            self.cpus[target.0 as usize]
                .wake_list
                .push((task_id, migrated));
            self.touch(target);
            self.emit(waker_cpu, TraceKind::SchedWakeup, pid, target.0, 0, reason);
            self.check_preempt_curr(target, task_id);
            return;
        }
        // Simplification: a wakeup queued to a busy CPU of another LLC is enqueued at
        // once, as if the IPI were handled immediately; the target takes the lock.
        let (by, site) = if queued {
            (target, "sched_ttwu_pending")
        } else {
            (waker_cpu, "raw_spin_rq_lock_nested")
        };
        self.lock_rq(target, by, site);
        let enqueued = self.ttwu_do_activate(task_id, target, by, migrated);
        self.emit(waker_cpu, TraceKind::SchedWakeup, pid, target.0, 0, reason);
        if enqueued {
            self.check_preempt_curr(target, task_id);
        }
    }

    /// `ttwu_do_activate()`: places the woken task's vruntime and enqueues it on
    /// `cpu` (or parks it on its throttled cgroup). `by` is the CPU doing it. Returns
    /// false when the task was throttled instead.
    fn ttwu_do_activate(&mut self, task_id: TaskId, cpu: CpuId, by: CpuId, migrated: bool) -> bool {
        let min_vruntime = self.task_min_vruntime(task_id, cpu);
        let task = &mut self.tasks[task_id.0 as usize];
        task.vruntime = self.knobs.place_woken(task.vruntime, min_vruntime);
        if self.enqueue_throttled(task_id, cpu) {
            // Its cfs_rq there is out of runtime: it waits on the throttled cfs_rq.
            self.tasks[task_id.0 as usize].state = TaskState::Throttled(cpu);
            return false;
        }
        self.enqueue_task(task_id, cpu, by);
        // SHARED_RUNQ's wakeups mode: the end of enqueue_task_fair(), for a wakeup
        // that select_task_rq did not migrate (no ENQUEUE_MIGRATED).
        if self.shared_runq.spec.mode == SharedRunqMode::Wakeups && !migrated {
            self.shared_runq_enqueue(task_id, cpu, by, ShardSite::EnqueueTaskFair);
        }
        true
    }

    /// `sched_ttwu_pending()`: a CPU leaving idle (or going offline) enqueues the
    /// tasks on its wake list, under its own runqueue lock.
    pub(crate) fn sched_ttwu_pending(&mut self, cpu: CpuId) {
        if self.cpus[cpu.0 as usize].wake_list.is_empty() {
            return;
        }
        let pending = std::mem::take(&mut self.cpus[cpu.0 as usize].wake_list);
        self.lock_rq(cpu, cpu, "sched_ttwu_pending");
        for &(task_id, migrated) in &pending {
            debug_assert_eq!(self.tasks[task_id.0 as usize].state, TaskState::Waking(cpu));
            if self.ttwu_do_activate(task_id, cpu, cpu, migrated) {
                self.check_preempt_curr(cpu, task_id);
            }
        }
        // No allocation per exit from idle.
        super::give_back(&mut self.cpus[cpu.0 as usize].wake_list, pending);
        self.touch(cpu);
    }

    /// `check_preempt_wakeup()`: preempt when the current task's vruntime is ahead of
    /// the woken task's by more than the (weighted) wakeup granularity; the preempted
    /// task becomes the runqueue's last buddy (LAST_BUDDY).
    pub(crate) fn check_preempt_curr(&mut self, cpu: CpuId, woken: TaskId) {
        let Some(curr) = self.rqs[cpu.0 as usize].curr else {
            let state = &mut self.cpus[cpu.0 as usize];
            if !state.leaving_idle && !state.need_resched {
                state.leaving_idle = true;
                let at = self.now + SimTime(self.idle_exit_latency_ns(cpu));
                self.queue.push(at, Event::IdleExit(cpu));
            }
            return;
        };
        if self.tasks[curr.0 as usize].state != TaskState::Running(cpu) {
            return; // a switch is already pending
        }
        self.update_curr(cpu);
        let curr_vruntime = self.tasks[curr.0 as usize].vruntime;
        let woken_task = &self.tasks[woken.0 as usize];
        let gran = self.knobs.wakeup_gran(woken_task.weight);
        let preempt = match self.group_sched {
            Some(_) => self.group_wakeup_preempt(curr, woken, cpu),
            None => curr_vruntime > woken_task.vruntime + gran,
        };
        if preempt {
            let woken_pid = woken_task.pid.0;
            // `set_last_buddy()`: the preempted task, still on the runqueue, may get
            // the CPU back after the wakee once the runqueue holds `sched_nr_latency`
            // tasks (`scale`); not when a reschedule was already due, where
            // `check_preempt_wakeup()` returns first. Simplification: no buddies with
            // task groups.
            let rq = &mut self.rqs[cpu.0 as usize];
            if self.features.last_buddy
                && self.group_sched.is_none()
                && !self.cpus[cpu.0 as usize].need_resched
                && rq.nr_running as u64 >= self.knobs.nr_latency()
            {
                rq.last = Some(curr);
            }
            self.request_resched(cpu, Reason::WakeupPreempt { woken_pid });
        }
    }

    /// `record_wakee()`: count how often a waker switches between wakees; the count
    /// halves every second.
    pub(crate) fn record_wakee(&mut self, waker: TaskId, wakee: TaskId) {
        let now = self.now;
        let task = &mut self.tasks[waker.0 as usize];
        if now > task.wakee_flips_decayed_at + SimTime::from_ms(1000) {
            task.wakee_flips >>= 1;
            task.wakee_flips_decayed_at = now;
        }
        if task.last_wakee != Some(wakee) {
            task.last_wakee = Some(wakee);
            task.wakee_flips += 1;
        }
    }

    /// An online CPU with nothing to run (an offline CPU is never "idle": no
    /// placement may choose it).
    pub(crate) fn cpu_is_idle(&self, cpu: CpuId) -> bool {
        let rq = &self.rqs[cpu.0 as usize];
        rq.curr.is_none()
            && rq.nr_running == 0
            && self.cpus[cpu.0 as usize].wake_list.is_empty()
            && self.online.contains(cpu)
    }
}
