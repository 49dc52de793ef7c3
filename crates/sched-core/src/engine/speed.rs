//! The speed model: SMT sharing, memory bandwidth and frequency, and cache-refill debt.

use super::*;
use crate::cost::wall_time_for;
use crate::task::{TaskId, TaskState};
use crate::time::SimTime;
use crate::topology::CpuId;
use crate::workload::STREAM_THREAD_BYTES_PER_US;

impl Simulator {
    /// Queues the end of the current burst: `work` at the CPU's current speed.
    pub(crate) fn schedule_run_done(&mut self, cpu: CpuId, work: u64) {
        let state = &self.cpus[cpu.0 as usize];
        let (gen, speed) = (state.run_gen, state.speed_permille);
        // A spin on the clock ends at its deadline, or at once if that has passed
        // while it waited for the CPU.
        let spin_until = self.rqs[cpu.0 as usize]
            .curr
            .and_then(|task| self.tasks[task.0 as usize].spin_until)
            .map(|until| until.max(self.now));
        let at = spin_until.unwrap_or(self.now + SimTime(wall_time_for(work, speed)));
        self.queue.push(at, Event::RunDone { cpu, gen });
    }

    /// A task about to run on `cpu` owes a cache refill if its data is warm elsewhere.
    pub(crate) fn note_cache_refill(&mut self, task_id: TaskId, cpu: CpuId) {
        if let Some(from) = self.tasks[task_id.0 as usize].message_from.take() {
            self.note_message_read(task_id.0 as usize, from, cpu);
        }
        let task = &self.tasks[task_id.0 as usize];
        let Some(warm) = task.warm_cpu else {
            self.tasks[task_id.0 as usize].warm_cpu = Some(cpu);
            return;
        };
        if warm == cpu || task.footprint_kib == 0 {
            return;
        }
        let cost = self
            .costs
            .refill_ns(task.footprint_kib, self.topology.distance(warm, cpu));
        let task = &mut self.tasks[task_id.0 as usize];
        task.refill_debt_ns += cost;
        task.warm_cpu = Some(cpu);
        self.metrics.cache_refill_ns += cost;
    }

    /// A task on `cpu` reads a message written on `from` (`costs.message_lines`):
    /// the lines move to this CPU's caches, owed with its next burst and counted as
    /// cache refill.
    #[cold]
    #[inline(never)]
    pub(crate) fn note_message_read(&mut self, tidx: usize, from: CpuId, cpu: CpuId) {
        let cost = self.costs.message_ns(self.topology.distance(from, cpu));
        self.tasks[tidx].refill_debt_ns += cost;
        self.metrics.cache_refill_ns += cost;
    }

    /// Recomputes the speed of `cpu`'s core after its busy state changed.
    pub(crate) fn refresh_core_speed(&mut self, cpu: CpuId) {
        self.power_cpu_busy_changed(cpu);
        if self.topology.shape.threads_per_core < 2 {
            return;
        }
        let core = self.topology.core_of(cpu);
        // A core's threads, without an allocation: scenarios allow SMT8 at most.
        let mut threads = [CpuId(0); 8];
        let mut n = 0;
        for thread in self.topology.core_cpus[core.0 as usize].iter() {
            threads[n] = thread;
            n += 1;
        }
        for &thread in &threads[..n] {
            self.retime(thread);
        }
    }

    /// Updates whether `cpu` runs a memory-bound burst; when that changes, every
    /// memory-bound CPU of its node gets a new bandwidth share. Returns true when
    /// `cpu`'s own burst was (re)queued.
    pub(crate) fn refresh_memory_bound(&mut self, cpu: CpuId) -> bool {
        let cpu_idx = cpu.0 as usize;
        let now_bound = self.rqs[cpu_idx].curr.is_some_and(|task| {
            let task = &self.tasks[task.0 as usize];
            task.state == TaskState::Running(cpu) && task.run_memory_bound
        });
        if self.cpus[cpu_idx].memory_bound == now_bound {
            return false;
        }
        self.cpus[cpu_idx].memory_bound = now_bound;
        if now_bound {
            self.memory_bound_cpus.insert(cpu);
        } else {
            self.memory_bound_cpus.remove(cpu);
        }
        let node = self.topology.info(cpu).node.0 as usize;
        let mut neighbours = std::mem::take(&mut self.retime_buffer);
        neighbours.extend(
            self.topology.node_cpus[node]
                .iter_and(&self.memory_bound_cpus)
                .filter(|other| *other != cpu),
        );
        for &other in &neighbours {
            self.retime(other);
        }
        super::give_back(&mut self.retime_buffer, neighbours);
        self.retime(cpu)
    }

    /// The speed `cpu` runs at now, in permille: SMT sharing times its share of
    /// memory bandwidth (for a memory-bound burst).
    pub(crate) fn target_speed(&self, cpu: CpuId) -> u32 {
        let mut speed = self.frequency_permille(cpu);
        if self.topology.shape.threads_per_core > 1 {
            let busy_siblings = self
                .topology
                .siblings(cpu)
                .filter(|sibling| self.rqs[sibling.0 as usize].curr.is_some())
                .count() as u64;
            speed = speed
                * crate::cost::smt_thread_permille(self.costs.smt_speed_permille, busy_siblings)
                / 1000;
        }
        if self.cpus[cpu.0 as usize].memory_bound {
            // The run pulls what the core can, unless its LLC's link or its node's
            // channels, shared with the other memory-bound runs there, give less.
            // Its work was sized at STREAM_THREAD_BYTES_PER_US, so speed scales by
            // the rate it gets against that.
            let info = self.topology.info(cpu);
            let count = |set: &crate::cpuset::CpuSet| {
                set.intersection_len(&self.memory_bound_cpus).max(1) as f64
            };
            let llc_share = self.costs.memory_llc_gbps as f64
                / count(&self.topology.llc_cpus[info.llc.0 as usize]);
            let node_share = self.costs.memory_node_gbps as f64
                / count(&self.topology.node_cpus[info.node.0 as usize]);
            let rate_gbps = (self.costs.memory_core_gbps as f64)
                .min(llc_share)
                .min(node_share);
            let sized_at_gbps = STREAM_THREAD_BYTES_PER_US / 1000.0;
            speed = (speed as f64 * rate_gbps / sized_at_gbps) as u64;
        }
        speed.max(1) as u32
    }

    /// Applies `target_speed` to `cpu`: work done so far is charged at the old speed
    /// and a running burst is re-timed. Returns true when it queued the burst's end.
    pub(crate) fn retime(&mut self, cpu: CpuId) -> bool {
        let speed = self.target_speed(cpu);
        let cpu_idx = cpu.0 as usize;
        if self.cpus[cpu_idx].speed_permille == speed {
            return false;
        }
        self.update_curr(cpu);
        self.cpus[cpu_idx].speed_permille = speed;
        let Some(task_id) = self.rqs[cpu_idx].curr else {
            return false;
        };
        let task = &self.tasks[task_id.0 as usize];
        let in_burst = task.state == TaskState::Running(cpu) && task.charged_until <= self.now;
        match (in_burst, task.remaining_work) {
            (true, Some(work)) => {
                self.cpus[cpu_idx].run_gen += 1;
                self.schedule_run_done(cpu, work);
                true
            }
            _ => false,
        }
    }
}
