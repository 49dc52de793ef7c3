//! Accounting: charging run time, scheduler overhead and lock time, the trace records, and the work-conservation gap.

use super::*;
use crate::cfs::calc_delta_fair;
use crate::cost::work_done_in;
use crate::lock::LockSite;
use crate::task::{TaskId, TaskState};
use crate::time::SimTime;
use crate::topology::CpuId;
use crate::trace::{Reason, TraceKind, TraceRecord};

impl Simulator {
    /// `update_curr()`: charge the running task for the time since last charged.
    pub(crate) fn update_curr(&mut self, cpu: CpuId) {
        let Some(task_id) = self.rqs[cpu.0 as usize].curr else {
            return;
        };
        let now = self.now;
        let task = &mut self.tasks[task_id.0 as usize];
        if task.state != TaskState::Running(cpu) {
            return;
        }
        let delta = (now - task.charged_until).as_ns();
        if delta == 0 {
            return;
        }
        task.charged_until = now;
        task.exec_start = Some(now);
        task.sum_exec_runtime += delta;
        task.vruntime += calc_delta_fair(delta, task.weight);
        let speed = self.cpus[cpu.0 as usize].speed_permille;
        if let Some(work) = task.remaining_work.as_mut() {
            *work = work.saturating_sub(work_done_in(delta, speed));
        }
        let vruntime = task.vruntime;
        self.rqs[cpu.0 as usize].update_min_vruntime(Some(vruntime));
        self.group_update_curr(task_id, cpu, delta);
        self.account_bandwidth(task_id, cpu, delta);
    }

    pub(crate) fn close_busy_interval(&mut self, cpu: CpuId) {
        if let Some(since) = self.cpus[cpu.0 as usize].busy_since.take() {
            self.metrics.busy_ns[cpu.0 as usize] += (self.now - since).as_ns();
        }
    }

    /// Scheduler work an idle CPU does out of its idle time (a balance pass, a
    /// placement): busy from now, or from the end of the work it is still doing,
    /// for `ns`. Counted as it elapses, and only until the CPU next runs a task,
    /// which the model does not delay for it: busy time never exceeds elapsed time.
    pub(crate) fn idle_cpu_work(&mut self, cpu: CpuId, ns: u64) {
        let now = self.now;
        let state = &mut self.cpus[cpu.0 as usize];
        let start = state.idle_work_until.max(now);
        if state.idle_work_from.is_none() || state.idle_work_until < now {
            self.metrics.busy_ns[cpu.0 as usize] += state.idle_work_elapsed(now);
            state.idle_work_from = Some(start);
        }
        state.idle_work_until = start + SimTime(ns);
    }

    /// The CPU starts running a task: its idle-time work ends here (what is left of
    /// it overlaps the task's busy time).
    pub(crate) fn end_idle_work(&mut self, cpu: CpuId) {
        let now = self.now;
        let state = &mut self.cpus[cpu.0 as usize];
        self.metrics.busy_ns[cpu.0 as usize] += state.idle_work_elapsed(now);
        state.idle_work_from = None;
        state.idle_work_until = SimTime::ZERO;
    }

    /// Busy time of each CPU so far, including the interval still open.
    pub fn busy_ns(&self) -> Vec<u64> {
        self.metrics
            .busy_ns
            .iter()
            .zip(&self.cpus)
            .map(|(closed, state)| {
                closed
                    + state
                        .busy_since
                        .map_or(0, |since| (self.now - since).as_ns())
                    + state.idle_work_elapsed(self.now)
            })
            .collect()
    }

    /// Scheduler work done on `cpu`; paid before its next task runs.
    pub(crate) fn charge_overhead(&mut self, cpu: CpuId, ns: u64) {
        if ns == 0 {
            return;
        }
        let state = &mut self.cpus[cpu.0 as usize];
        if state.overhead_ns == 0 {
            self.overhead_pending.push(cpu);
        }
        state.overhead_ns += ns;
        self.metrics.sched_overhead_ns += ns;
    }

    /// Pays the scheduler-path time each CPU spent in this event, where it was
    /// spent: an idle CPU spends it out of its idle time; a running task's burst is
    /// delayed by it (the kernel charges softirq and tick work to the current task);
    /// a task about to start starts that much later. Time spent inside `__schedule`
    /// was already paid by the switch it delayed.
    pub(crate) fn settle_overhead(&mut self) {
        while let Some(cpu) = self.overhead_pending.pop() {
            let cpu_idx = cpu.0 as usize;
            let owed = std::mem::take(&mut self.cpus[cpu_idx].overhead_ns);
            if owed == 0 {
                continue;
            }
            let running = self.rqs[cpu_idx]
                .curr
                .filter(|task| self.tasks[task.0 as usize].state == TaskState::Running(cpu));
            let Some(task_id) = running else {
                self.idle_cpu_work(cpu, owed);
                continue;
            };
            let starts = self.tasks[task_id.0 as usize].charged_until;
            if starts > self.now {
                // Still switching in: the task starts later.
                let later = starts + SimTime(owed);
                let task = &mut self.tasks[task_id.0 as usize];
                task.charged_until = later;
                task.last_ran = later;
                task.exec_start = Some(later);
                self.cpus[cpu_idx].run_gen += 1;
                let gen = self.cpus[cpu_idx].run_gen;
                self.queue.push(later, Event::SwitchDone { cpu, gen });
                continue;
            }
            if self.tasks[task_id.0 as usize].remaining_work.is_none() {
                // A running CPU is busy already: the work is inside its busy time.
                continue;
            }
            // In a burst: it makes no progress while the CPU does scheduler work.
            self.update_curr(cpu);
            let speed = self.cpus[cpu_idx].speed_permille;
            let task = &mut self.tasks[task_id.0 as usize];
            let work = task.remaining_work.unwrap_or(0) + crate::cost::work_done_in(owed, speed);
            task.remaining_work = Some(work);
            self.cpus[cpu_idx].run_gen += 1;
            self.schedule_run_done(cpu, work);
        }
    }

    /// The idle-while-runnable time so far, `(LLC, machine)`, including the stretch
    /// since the last event (which `integrate_gap` adds only at the next one), so that
    /// a view taken between events (a frame) does not see it arrive late, in a lump.
    pub fn idle_while_runnable_now(&self) -> (u64, u64) {
        let open = if self.now > self.gap_integrated_to {
            (self.now - self.gap_integrated_to).as_ns()
        } else {
            0
        };
        let (llc, machine) = self.gap_over(open);
        (
            self.metrics.idle_while_runnable_llc_ns + llc,
            self.metrics.idle_while_runnable_machine_ns + machine,
        )
    }

    /// The gap, `(LLC, machine)`, over `elapsed` ns of the current idle and waiting counts.
    fn gap_over(&self, elapsed: u64) -> (u64, u64) {
        let gap = &self.gap;
        (
            elapsed * gap.llc_matched,
            elapsed * gap.idle_total.min(gap.waiting_total),
        )
    }

    /// Adds the work-conservation gap accumulated since the last event: CPU time
    /// idle while tasks waited on another runqueue of the same LLC (and anywhere).
    pub(crate) fn integrate_gap(&mut self, until: SimTime) {
        let elapsed = (until - self.gap_integrated_to).as_ns();
        self.gap_integrated_to = until;
        if elapsed == 0 {
            return;
        }
        let (llc, machine) = self.gap_over(elapsed);
        self.metrics.idle_while_runnable_llc_ns += llc;
        self.metrics.idle_while_runnable_machine_ns += machine;
    }

    /// Keeps what is derived from `cpu`'s state up to date after its runqueue, its
    /// current task, its wake list, its PELT record or its being online changed: the
    /// idle cores, the overload mask and the wide groups' sums.
    pub(crate) fn note_cpu_state(&mut self, cpu: CpuId) {
        let idle = self.cpu_is_idle(cpu);
        if idle != self.idle_cores.idle[cpu.0 as usize] {
            let core = self.topology.core_of(cpu).0 as usize;
            let threads = self.topology.core_cpus[core].len() as u32;
            let llc = self.topology.llc_of(cpu).0 as usize;
            self.idle_cores.set(cpu, core, threads, llc, idle);
        }
        let overloaded = self.rqs[cpu.0 as usize].nr_running >= 2;
        if overloaded != self.overloaded.contains(cpu) {
            if overloaded {
                self.overloaded.insert(cpu);
            } else {
                self.overloaded.remove(cpu);
            }
        }
        self.note_group_sums(cpu);
    }

    /// Refreshes the cached idle/waiting figures of `cpu` after its runqueue changed,
    /// and notes its waiting count in the wait log when one is kept.
    pub(crate) fn touch(&mut self, cpu: CpuId) {
        self.note_cpu_state(cpu);
        let cpu_idx = cpu.0 as usize;
        let idle = self.cpu_is_idle(cpu);
        // Waiting means queued behind a running task (not on a CPU about to run it).
        let waiting = if self.rqs[cpu_idx].curr.is_some() {
            self.rqs[cpu_idx].queued.len() as u32
        } else {
            0
        };
        let llc = self.topology.llc_of(cpu).0 as usize;
        let state = &mut self.cpus[cpu_idx];
        if state.counted_idle != idle || state.counted_waiting != waiting {
            let llc_idle = self.gap.llc_idle[llc] + idle as u32 - state.counted_idle as u32;
            let llc_waiting = self.gap.llc_waiting[llc] + waiting - state.counted_waiting;
            self.gap.set(llc, llc_idle, llc_waiting);
            state.counted_idle = idle;
            state.counted_waiting = waiting;
        }
        // The timeline's count: every queued task, whether or not one runs (a CPU
        // leaving idle has tasks waiting for it too).
        if let Some(log) = &mut self.wait_log {
            if !self.trace.is_full() {
                let queued = self.rqs[cpu_idx].queued.len() as u32;
                log.note(self.now.as_ns(), cpu.0, queued);
            }
        }
    }

    /// Takes `cpu`'s runqueue lock from `by`: the spin and the hold are `by`'s overhead.
    /// Takes `cpu`'s runqueue lock on CPU `by`, from kernel function `site`.
    pub(crate) fn lock_rq(&mut self, cpu: CpuId, by: CpuId, site: LockSite) {
        let hold = self.costs.rq_lock_hold_ns;
        let cost = self.rq_locks[cpu.0 as usize].acquire(
            self.now,
            by,
            hold,
            &self.topology,
            &mut self.rq_lock_stat,
            site,
        );
        self.charge_overhead(by, cost);
    }

    pub(crate) fn pid_of(&self, task: TaskId) -> u32 {
        self.tasks[task.0 as usize].pid.0
    }

    pub(crate) fn ctx_pid(&self, cpu: CpuId) -> u32 {
        self.rqs[cpu.0 as usize]
            .curr
            .map_or(0, |task| self.pid_of(task))
    }

    pub(crate) fn emit(
        &mut self,
        cpu: CpuId,
        kind: TraceKind,
        pid: u32,
        arg0: u32,
        arg1: u32,
        reason: Reason,
    ) {
        let record = TraceRecord {
            time: self.now,
            cpu: cpu.0,
            ctx_pid: self.ctx_pid(cpu),
            kind,
            pid,
            arg0,
            arg1,
            reason,
        };
        self.explain_on_emit(&record);
        self.trace.push(record);
    }
}

/// Work-conservation bookkeeping: per LLC, its idle CPUs and its tasks waiting behind
/// a running one, with the machine's totals and the sum over LLCs of the smaller of
/// the two, kept up to date as they change so that integrating the gap costs the
/// same on any machine.
#[derive(Clone, Debug, Default)]
pub(crate) struct GapCounts {
    llc_idle: Vec<u32>,
    llc_waiting: Vec<u32>,
    idle_total: u64,
    waiting_total: u64,
    llc_matched: u64,
}

impl GapCounts {
    /// Every LLC with `idle` CPUs idle and nothing waiting.
    pub(crate) fn new(idle: Vec<u32>) -> GapCounts {
        GapCounts {
            idle_total: idle.iter().map(|&count| count as u64).sum(),
            llc_waiting: vec![0; idle.len()],
            llc_idle: idle,
            waiting_total: 0,
            llc_matched: 0,
        }
    }

    fn set(&mut self, llc: usize, idle: u32, waiting: u32) {
        let (old_idle, old_waiting) = (self.llc_idle[llc], self.llc_waiting[llc]);
        self.idle_total = self.idle_total + idle as u64 - old_idle as u64;
        self.waiting_total = self.waiting_total + waiting as u64 - old_waiting as u64;
        self.llc_matched =
            self.llc_matched + idle.min(waiting) as u64 - old_idle.min(old_waiting) as u64;
        self.llc_idle[llc] = idle;
        self.llc_waiting[llc] = waiting;
    }
}

/// Which CPUs are idle, and from that how many threads of each core and how many
/// whole cores of each LLC are: what `test_idle_cores()` asks, kept as CPUs change.
#[derive(Clone, Debug, Default)]
pub(crate) struct IdleCores {
    idle: Vec<bool>,
    /// The same as a mask, for scans a word at a time (the kernel's idle CPUs are
    /// found by testing each; the mask is the model's shortcut to the same answer).
    pub(crate) mask: crate::cpuset::CpuSet,
    core_idle_threads: Vec<u32>,
    llc_idle_cores: Vec<u32>,
}

impl IdleCores {
    /// Every CPU idle.
    pub(crate) fn new(topology: &crate::topology::Topology) -> IdleCores {
        let mut llc_idle_cores = vec![0; topology.llc_cpus.len()];
        for cpus in &topology.core_cpus {
            if let Some(first) = cpus.first() {
                llc_idle_cores[topology.llc_of(first).0 as usize] += 1;
            }
        }
        IdleCores {
            idle: vec![true; topology.n_cpus()],
            mask: crate::cpuset::CpuSet::full(topology.n_cpus()),
            core_idle_threads: topology
                .core_cpus
                .iter()
                .map(|cpus| cpus.len() as u32)
                .collect(),
            llc_idle_cores,
        }
    }

    fn set(&mut self, cpu: CpuId, core: usize, threads: u32, llc: usize, idle: bool) {
        self.idle[cpu.0 as usize] = idle;
        if idle {
            self.mask.insert(cpu);
        } else {
            self.mask.remove(cpu);
        }
        let was_idle_core = self.core_idle_threads[core] == threads;
        if idle {
            self.core_idle_threads[core] += 1;
        } else {
            self.core_idle_threads[core] -= 1;
        }
        let is_idle_core = self.core_idle_threads[core] == threads;
        if is_idle_core && !was_idle_core {
            self.llc_idle_cores[llc] += 1;
        } else if was_idle_core && !is_idle_core {
            self.llc_idle_cores[llc] -= 1;
        }
    }

    /// Whether the LLC has a core whose threads are all idle.
    pub(crate) fn llc_has_idle_core(&self, llc: u32) -> bool {
        self.llc_idle_cores[llc as usize] > 0
    }
}
