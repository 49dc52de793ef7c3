//! CPU hotplug: taking a CPU offline moves its tasks away, as `sched_cpu_dying()` →
//! `migrate_tasks()` does, and rebuilds the scheduling domains without it; bringing
//! it back rebuilds them again and unparks its per-CPU kernel threads.
//!
//! `select_fallback_rq()` picks a task's new CPU: an online CPU it may use on the
//! same node, else any online CPU it may use; when none is online, the task's mask
//! becomes every online CPU ("no longer affine to cpu N"). Per-CPU kernel threads
//! are not moved: they park until their CPU comes back (`smpboot`).

use super::*;
use crate::task::{TaskId, TaskState};
use crate::topology::CpuId;
use crate::trace::{Reason, TraceKind};

impl Simulator {
    /// Whether `cpu` is online.
    pub fn cpu_online(&self, cpu: CpuId) -> bool {
        self.online.contains(cpu)
    }

    /// The CPU time of offline CPUs so far: taken from the capacity utilisation is of.
    pub fn offline_time_ns(&self) -> u64 {
        let offline_now: u64 = (0..self.topology.n_cpus() as u32)
            .map(CpuId)
            .filter(|&cpu| !self.cpu_online(cpu))
            .map(|cpu| (self.now - self.offline_since[cpu.0 as usize]).as_ns())
            .sum();
        self.offline_ns + offline_now
    }

    /// CPUs offline from the start (hotplug events at time 0, before any task has
    /// run): the same as taking each offline in turn with nothing to move, with the
    /// domains rebuilt once.
    pub(crate) fn start_offline(&mut self, cpus: &[CpuId]) {
        for &cpu in cpus {
            self.online.remove(cpu);
            self.offline_since[cpu.0 as usize] = self.now;
        }
        self.rebuild_domains();
        for &cpu in cpus {
            self.touch(cpu);
            self.emit(cpu, TraceKind::CpuHotplug, 0, 0, 0, Reason::None);
        }
    }

    /// Handles one hotplug event.
    pub(crate) fn hotplug(&mut self, cpu: CpuId, online: bool) {
        if online == self.cpu_online(cpu) {
            return;
        }
        if online {
            self.offline_ns += (self.now - self.offline_since[cpu.0 as usize]).as_ns();
            self.online.insert(cpu);
            self.rebuild_domains();
            self.touch(cpu);
            self.emit(cpu, TraceKind::CpuHotplug, 0, 1, 0, Reason::None);
            let parked: Vec<TaskId> = std::mem::take(&mut self.parked);
            for task_id in parked {
                // A parked kthread wakes on its CPU again; others stay parked.
                if self.tasks[task_id.0 as usize]
                    .affinity
                    .intersects(&self.online)
                {
                    self.try_to_wake_up(task_id, cpu, None, false);
                } else {
                    self.parked.push(task_id);
                }
            }
            return;
        }
        // Wakeups still on its wake list are enqueued first, then moved with the rest.
        self.sched_ttwu_pending(cpu);
        // Its kthreads whose deferrable timers are pending park with it, and run
        // again when it comes back.
        let deferred = std::mem::take(&mut self.cpus[cpu.0 as usize].deferred_timers);
        self.parked.extend(deferred);
        self.online.remove(cpu);
        self.offline_since[cpu.0 as usize] = self.now;
        self.note_cpu_state(cpu);
        self.rebuild_domains();
        let mut moved = 0u32;
        // The running task first, then the queued ones, in vruntime order.
        let running = self.rqs[cpu.0 as usize]
            .curr
            .filter(|task| self.tasks[task.0 as usize].state == TaskState::Running(cpu));
        if let Some(task_id) = running {
            self.dequeue_curr(task_id, cpu, TaskState::Blocked);
            moved += u32::from(self.move_off(task_id, cpu));
        }
        let queued: Vec<TaskId> = self.rqs[cpu.0 as usize]
            .queued
            .iter()
            .map(|(_, task)| *task)
            .collect();
        for task_id in queued {
            self.dequeue_queued(task_id, cpu, cpu);
            self.tasks[task_id.0 as usize].state = TaskState::Blocked;
            moved += u32::from(self.move_off(task_id, cpu));
        }
        // Tasks parked on a throttled cgroup follow to their fallback CPU.
        for idx in 0..self.tasks.len() {
            if self.tasks[idx].state == TaskState::Throttled(cpu) {
                let (dest, broke_affinity) = self.select_fallback_rq(TaskId(idx as u32), cpu);
                let reason = Reason::Fallback {
                    from: cpu.0,
                    broke_affinity,
                };
                self.set_task_cpu(TaskId(idx as u32), dest, reason);
                if self.throttled_on(TaskId(idx as u32), dest) {
                    self.tasks[idx].state = TaskState::Throttled(dest);
                } else {
                    self.enqueue_unthrottled(TaskId(idx as u32), dest);
                }
                moved += 1;
            }
        }
        if self.rqs[cpu.0 as usize].curr.is_some() {
            self.request_resched(cpu, Reason::PrevStopped);
        }
        self.touch(cpu);
        self.emit(cpu, TraceKind::CpuHotplug, 0, 0, moved, Reason::None);
    }

    /// Moves a task taken off `from`'s runqueue (state `Blocked`, not on any
    /// runqueue) to its fallback CPU; a per-CPU kernel thread parks instead.
    /// Returns true when it moved.
    fn move_off(&mut self, task_id: TaskId, from: CpuId) -> bool {
        if self.is_parking_kthread(task_id) {
            self.tasks[task_id.0 as usize].state = TaskState::Sleeping;
            self.parked.push(task_id);
            return false;
        }
        let (dest, broke_affinity) = self.select_fallback_rq(task_id, from);
        let reason = Reason::Fallback {
            from: from.0,
            broke_affinity,
        };
        self.set_task_cpu(task_id, dest, reason);
        // migrate_tasks() runs on the outgoing CPU.
        self.enqueue_task(task_id, dest, from);
        self.check_preempt_curr(dest, task_id);
        true
    }

    /// A background kernel thread whose CPUs are all offline parks rather than move.
    pub(crate) fn is_parking_kthread(&self, task_id: TaskId) -> bool {
        let task = &self.tasks[task_id.0 as usize];
        self.workloads[task.group as usize].background && !task.affinity.intersects(&self.online)
    }

    /// `select_fallback_rq()`: an online allowed CPU on `from`'s node (the first
    /// idle one, else the first), else on any node; when the task may use no online
    /// CPU, its mask becomes every online CPU. Returns the CPU and whether the
    /// affinity was broken.
    pub(crate) fn select_fallback_rq(&mut self, task_id: TaskId, from: CpuId) -> (CpuId, bool) {
        let mut broke_affinity = false;
        if !self.tasks[task_id.0 as usize]
            .affinity
            .intersects(&self.online)
        {
            self.tasks[task_id.0 as usize].affinity = self.online.clone();
            broke_affinity = true;
        }
        let usable = self.tasks[task_id.0 as usize].affinity.and(&self.online);
        let node = self.topology.info(from).node.0 as usize;
        let on_node = usable.and(&self.topology.node_cpus[node]);
        let pick = |set: &crate::cpuset::CpuSet| {
            set.iter()
                .find(|cpu| self.cpu_is_idle(*cpu))
                .or_else(|| set.first())
        };
        let dest = pick(&on_node)
            .or_else(|| pick(&usable))
            .expect("some CPU is always online");
        (dest, broke_affinity)
    }

    fn rebuild_domains(&mut self) {
        self.domains = crate::domains::Domains::build_online(&self.topology, &self.online);
        self.update_max_interval();
        self.rebuild_group_sums();
        // New groups, new `sched_group_capacity`: no group starts imbalanced.
        self.sg_imbalance.clear();
        // Per-level balance state follows the new number of levels.
        for (cpu_idx, state) in self.cpus.iter_mut().enumerate() {
            let levels = self.domains.per_cpu[cpu_idx].len();
            state.last_balance.resize(levels, SimTime::ZERO);
            // New domains start at their `min_interval` (`sd_init()`).
            state.balance_interval_ms = self.domains.min_intervals(cpu_idx);
            state.balance_failed.resize(levels, 0);
            state.max_newidle_lb_cost.resize(levels, 0);
        }
    }
}
