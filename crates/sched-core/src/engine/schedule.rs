//! `__schedule`, reschedule requests, the end of bursts and switches, and the tick.

use super::*;
use crate::policy::shared_runq::{ShardSite, SharedRunqMode};
use crate::policy::struct_layout::StructOp;
use crate::task::{TaskId, TaskState};
use crate::time::SimTime;
use crate::topology::CpuId;
use crate::trace::{
    Reason, TraceKind, TraceRecord, PREV_STATE_DEAD, PREV_STATE_RUNNING, PREV_STATE_SLEEPING,
};

impl Simulator {
    pub(crate) fn request_resched_for_bandwidth(&mut self, cpu: CpuId) {
        self.request_resched(cpu, Reason::Throttled);
    }

    pub(crate) fn push_event(&mut self, time: SimTime, event: Event) {
        self.queue.push(time, event);
    }

    /// `pick_next_entity()` of the flat runqueue: the leftmost task, or the last
    /// buddy while `wakeup_preempt_entity(last, left) < 1`; the pick clears the buddy
    /// (`clear_buddies()`). The flag says the buddy was taken over the leftmost.
    pub(crate) fn pick_next_entity(&mut self, cpu: CpuId) -> (Option<TaskId>, bool) {
        let rq = &self.rqs[cpu.0 as usize];
        let Some((left_vruntime, left)) = rq.leftmost() else {
            return (None, false);
        };
        let mut se = left;
        if let Some(last) = rq.last {
            let last_task = &self.tasks[last.0 as usize];
            let gran = self.knobs.wakeup_gran(self.tasks[left.0 as usize].weight);
            if last_task.state == TaskState::Queued(cpu)
                && last_task.vruntime <= left_vruntime.saturating_add(gran)
            {
                se = last;
            }
        }
        let rq = &mut self.rqs[cpu.0 as usize];
        if rq.last == Some(se) {
            rq.last = None;
        }
        (Some(se), se != left)
    }

    pub(crate) fn request_resched(&mut self, cpu: CpuId, reason: Reason) {
        let state = &mut self.cpus[cpu.0 as usize];
        if !state.need_resched {
            state.need_resched = true;
            state.resched_reason = Some(reason);
            self.resched_queue.push_back(cpu);
        }
    }

    pub(crate) fn drain_resched(&mut self) {
        self.apply_pending_throttles();
        while let Some(cpu) = self.resched_queue.pop_front() {
            self.cpus[cpu.0 as usize].need_resched = false;
            let reason = self.cpus[cpu.0 as usize]
                .resched_reason
                .take()
                .unwrap_or(Reason::None);
            self.schedule(cpu, reason);
        }
    }

    /// `__schedule()`: put the previous task back (if still runnable), pick the
    /// leftmost task (pulling one in `newidle_balance` if there is none), switch.
    pub(crate) fn schedule(&mut self, cpu: CpuId, reason: Reason) {
        let cpu_idx = cpu.0 as usize;
        // Leaving idle: first enqueue the wakeups on the wake list.
        self.sched_ttwu_pending(cpu);
        self.lock_rq(cpu, cpu, "__schedule");
        let prev = self.rqs[cpu_idx].curr;
        let mut prev_state_code = PREV_STATE_RUNNING;
        if let Some(prev_id) = prev {
            self.update_curr(cpu);
            let prev_task = &mut self.tasks[prev_id.0 as usize];
            match prev_task.state {
                TaskState::Running(_) => {
                    prev_task.state = TaskState::Queued(cpu);
                    let vruntime = prev_task.vruntime;
                    self.rqs[cpu_idx].insert(vruntime, prev_id);
                    // put_prev_entity() → __enqueue_entity().
                    self.walk_group_entities(prev_id, cpu, cpu, StructOp::PutPrev, 0);
                    if self.shared_runq.spec.mode == SharedRunqMode::All {
                        self.shared_runq_enqueue(prev_id, cpu, cpu, ShardSite::EnqueueEntity);
                    }
                }
                TaskState::Exited => prev_state_code = PREV_STATE_DEAD,
                TaskState::Throttled(_) => prev_state_code = PREV_STATE_RUNNING,
                _ => prev_state_code = PREV_STATE_SLEEPING,
            }
            self.group_put_prev(cpu);
        }
        self.rqs[cpu_idx].curr = None;
        self.note_cpu_state(cpu);
        if self.rqs[cpu_idx].leftmost().is_none()
            && self.policy.newidle_balance
            && self.online.contains(cpu)
        {
            self.newidle_balance(cpu);
        }
        let (next, buddy) = match self.group_sched {
            Some(_) => (self.group_pick(cpu), false),
            None => self.pick_next_entity(cpu),
        };
        debug_assert_eq!(next.is_some(), self.rqs[cpu_idx].leftmost().is_some());
        if let Some(next_id) = next {
            let vruntime = self.tasks[next_id.0 as usize].vruntime;
            self.rqs[cpu_idx].remove(vruntime, next_id);
            // pick_next_task_fair(): the picked task moves to the head of cfs_tasks.
            self.cfs_tasks.move_to_front(cpu.0, next_id);
            self.group_set_next(next_id, prev, cpu);
            // set_next_entity() at each level.
            self.walk_group_entities(next_id, cpu, cpu, StructOp::SetNext, 0);
            if prev != next {
                self.struct_layout_switch_in(cpu, next_id);
            }
            // set_next_entity() → __dequeue_entity(), or (wakeups mode) the end of
            // pick_next_task_fair().
            match self.shared_runq.spec.mode {
                SharedRunqMode::Off => {}
                SharedRunqMode::Wakeups => {
                    self.shared_runq_dequeue(next_id, cpu, ShardSite::PickNextTaskFair)
                }
                SharedRunqMode::All => {
                    self.shared_runq_dequeue(next_id, cpu, ShardSite::DequeueEntity)
                }
            }
        }
        self.rqs[cpu_idx].curr = next;
        self.touch(cpu);
        self.refresh_memory_bound(cpu);
        let curr_vruntime = next.map(|task| self.tasks[task.0 as usize].vruntime);
        self.rqs[cpu_idx].update_min_vruntime(curr_vruntime);
        self.cpus[cpu_idx].run_gen += 1;
        let now = self.now;
        if let Some(prev_id) = prev {
            if prev != next {
                self.tasks[prev_id.0 as usize].pelt.update(now, true);
            }
        }
        let was_busy = prev.is_some();
        let is_busy = next.is_some();
        if was_busy != is_busy {
            self.cpus[cpu_idx].pelt.update(now, was_busy);
            self.note_cpu_state(cpu);
            if is_busy {
                // Leaving idle: fold this idle period into avg_idle (`update_avg`).
                let idle_ns = (now - self.cpus[cpu_idx].idle_since).as_ns() as i64;
                // update_avg() capped at 2 * rq->max_idle_balance_cost, which is
                // sysctl_sched_migration_cost or the costliest newidle balance seen.
                let max_idle_balance_cost = self.cpus[cpu_idx]
                    .max_newidle_lb_cost
                    .iter()
                    .copied()
                    .max()
                    .unwrap_or(0)
                    .max(self.knobs.sched_migration_cost_ns);
                let cap = (2 * max_idle_balance_cost) as i64;
                let state = &mut self.cpus[cpu_idx];
                let avg = state.avg_idle_ns as i64;
                state.avg_idle_ns = (avg + (idle_ns - avg) / 8).clamp(0, cap) as u64;
                self.release_deferred_timers(cpu);
            } else {
                self.cpus[cpu_idx].idle_since = now;
            }
            self.refresh_core_speed(cpu);
        }

        if prev == next {
            if let Some(task_id) = next {
                // The same task goes on running: no switch is traced.
                self.tasks[task_id.0 as usize].state = TaskState::Running(cpu);
                let grouped = self.group_sched.is_some();
                let task = &mut self.tasks[task_id.0 as usize];
                if !grouped {
                    // Simplification of the flat pick: the task starts a new slice.
                    // With groups, as in the kernel, `pick_next_task_fair` does not
                    // call `set_next_entity` when `prev` is picked again.
                    task.prev_sum_exec_runtime = task.sum_exec_runtime;
                }
                let starts = task.charged_until;
                if starts > self.now {
                    // Still inside its switch-in: it starts when that is done.
                    let gen = self.cpus[cpu_idx].run_gen;
                    self.queue.push(starts, Event::SwitchDone { cpu, gen });
                } else {
                    self.resume(task_id, cpu);
                }
            }
            return;
        }

        let prev_pid = prev.map_or(0, |task| self.pid_of(task));
        let next_pid = next.map_or(0, |task| self.pid_of(task));
        // The switch is traced from the previous task's context.
        let record = TraceRecord {
            time: self.now,
            cpu: cpu.0,
            ctx_pid: prev_pid,
            kind: TraceKind::SchedSwitch,
            pid: prev_pid,
            arg0: next_pid,
            arg1: prev_state_code,
            reason: if prev.is_none() {
                Reason::LeftIdle
            } else if buddy {
                Reason::LastBuddy { pid: next_pid }
            } else {
                reason
            },
        };
        self.explain_on_emit(&record);
        self.trace.push(record);
        self.metrics.context_switches += 1;

        match next {
            Some(task_id) => {
                if self.cpus[cpu_idx].busy_since.is_none() {
                    self.end_idle_work(cpu);
                    self.cpus[cpu_idx].busy_since = Some(self.now);
                }
                self.arm_tick(cpu);
                // The task runs once the switch (and any scheduler work owed) is done;
                // it is not charged for either.
                let overhead = std::mem::take(&mut self.cpus[cpu_idx].overhead_ns);
                let starts = self.now + SimTime(self.costs.context_switch_ns + overhead);
                self.note_cache_refill(task_id, cpu);
                let task = &mut self.tasks[task_id.0 as usize];
                task.pelt.update(self.now, false);
                task.state = TaskState::Running(cpu);
                task.prev_sum_exec_runtime = task.sum_exec_runtime;
                task.last_ran = starts;
                task.exec_start = Some(starts);
                task.charged_until = starts;
                task.nr_switches += 1;
                if let Some(woken_at) = task.woken_at.take() {
                    if task.record_latency {
                        self.metrics.record_latency((starts - woken_at).as_ns());
                    }
                }
                let gen = self.cpus[cpu_idx].run_gen;
                self.queue.push(starts, Event::SwitchDone { cpu, gen });
            }
            None => {
                self.close_busy_interval(cpu);
                // Scheduler work done on the way to idle still keeps the CPU busy.
                let overhead = std::mem::take(&mut self.cpus[cpu_idx].overhead_ns);
                if overhead > 0 {
                    self.idle_cpu_work(cpu, overhead);
                }
            }
        }
    }

    /// Continues the task that just got (or kept) the CPU.
    pub(crate) fn resume(&mut self, task_id: TaskId, cpu: CpuId) {
        let task = &mut self.tasks[task_id.0 as usize];
        match task.remaining_work {
            Some(work) => {
                let work = work + std::mem::take(&mut task.refill_debt_ns);
                task.remaining_work = Some(work);
                if self.refresh_memory_bound(cpu) {
                    return;
                }
                self.schedule_run_done(cpu, work);
            }
            None => self.advance_program(task_id, cpu),
        }
    }

    pub(crate) fn switch_done(&mut self, cpu: CpuId, gen: u64) {
        if self.cpus[cpu.0 as usize].run_gen != gen {
            return;
        }
        if let Some(task_id) = self.rqs[cpu.0 as usize].curr {
            if self.tasks[task_id.0 as usize].state == TaskState::Running(cpu) {
                self.resume(task_id, cpu);
            }
        }
    }

    pub(crate) fn run_done(&mut self, cpu: CpuId, gen: u64) {
        if self.cpus[cpu.0 as usize].run_gen != gen {
            return;
        }
        let Some(task_id) = self.rqs[cpu.0 as usize].curr else {
            return;
        };
        self.update_curr(cpu);
        self.tasks[task_id.0 as usize].remaining_work = None;
        self.tasks[task_id.0 as usize].spin_until = None;
        if self.tasks[task_id.0 as usize].run_memory_bound {
            self.tasks[task_id.0 as usize].run_memory_bound = false;
            self.refresh_memory_bound(cpu);
        }
        self.advance_program(task_id, cpu);
    }

    pub(crate) fn arm_tick(&mut self, cpu: CpuId) {
        let state = &mut self.cpus[cpu.0 as usize];
        if state.tick_armed {
            return;
        }
        state.tick_armed = true;
        let tick = self.knobs.tick_ns();
        let next = (self.now.as_ns() / tick + 1) * tick;
        self.queue.push(SimTime(next), Event::Tick(cpu));
    }

    /// `scheduler_tick()` → `check_preempt_tick()`: resched when the current task has
    /// run past its slice, or is more than a slice ahead of the leftmost task.
    pub(crate) fn scheduler_tick(&mut self, cpu: CpuId) {
        let cpu_idx = cpu.0 as usize;
        let Some(curr) = self.rqs[cpu_idx].curr else {
            // Idle: the tick stops (NOHZ idle) until the CPU is busy again.
            self.cpus[cpu_idx].tick_armed = false;
            return;
        };
        let tick = self.knobs.tick_ns();
        self.queue.push(self.now + SimTime(tick), Event::Tick(cpu));
        if self.policy.periodic_balance {
            self.rebalance_domains(cpu, false);
            if self.now >= self.last_nohz_balance + SimTime(tick) {
                self.last_nohz_balance = self.now;
                self.nohz_idle_balance();
            }
        }
        if self.tasks[curr.0 as usize].state != TaskState::Running(cpu) {
            return;
        }
        // scheduler_tick(): rq_lock().
        self.lock_rq(cpu, cpu, "raw_spin_rq_lock_nested");
        self.update_curr(cpu);
        // entity_tick() at each level: update_curr() and update_load_avg().
        self.walk_group_entities(curr, cpu, cpu, StructOp::Tick, 0);
        if self.group_sched.is_some() {
            self.group_entity_tick(curr, cpu);
            return;
        }
        let rq = &self.rqs[cpu_idx];
        if rq.nr_running <= 1 {
            return;
        }
        let task = &self.tasks[curr.0 as usize];
        let ideal = self
            .knobs
            .sched_slice(rq.nr_running, task.weight, rq.load_weight);
        let ran = task.sum_exec_runtime - task.prev_sum_exec_runtime;
        let reason = Reason::SliceExpired {
            ran_us: (ran / 1_000) as u32,
            slice_us: (ideal / 1_000) as u32,
        };
        if ran > ideal {
            self.request_resched(cpu, reason);
            return;
        }
        if ran < self.knobs.sched_min_granularity_ns {
            return;
        }
        if let Some((left_vruntime, _)) = rq.leftmost() {
            if task.vruntime > left_vruntime && task.vruntime - left_vruntime > ideal {
                self.request_resched(cpu, reason);
            }
        }
    }
}
