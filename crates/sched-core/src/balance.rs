//! Load balancing. First model: `newidle_balance` within the LLC.
//!
//! A CPU about to go idle looks at the other CPUs of its LLC, takes the one with the
//! most runnable tasks that has a task waiting (not running), and pulls the waiting
//! task that ran longest ago (the tail of the kernel's `cfs_tasks` list, the most
//! likely to be cache-cold) if the task may run here.
//! Simplification of `newidle_balance` → `load_balance` → `detach_tasks`.

use crate::engine::Simulator;
use crate::task::TaskId;
use crate::topology::CpuId;
use crate::trace::Reason;

impl Simulator {
    pub(crate) fn newidle_balance(&mut self, cpu: CpuId) -> bool {
        let llc = self.topology.llc_of(cpu);
        let mut best: Option<(CpuId, TaskId)> = None;
        let mut best_nr = 0u32;
        for src in self.topology.llc_cpus[llc.0 as usize].iter() {
            if src == cpu {
                continue;
            }
            let rq = &self.rqs[src.0 as usize];
            // Never take a runqueue's last task (`detach_tasks` stops at one when
            // balancing for an idle CPU), nor look at one no busier than the best so far.
            if rq.nr_running < 2 || rq.nr_running <= best_nr || rq.queued.is_empty() {
                continue;
            }
            let candidate = rq
                .queued
                .iter()
                .map(|(_, task_id)| *task_id)
                .filter(|task_id| self.tasks[task_id.0 as usize].affinity.contains(cpu))
                .min_by_key(|task_id| (self.tasks[task_id.0 as usize].last_ran, task_id.0));
            if let Some(task_id) = candidate {
                best = Some((src, task_id));
                best_nr = rq.nr_running;
            }
        }
        let Some((src, task_id)) = best else {
            return false;
        };
        let reason = Reason::NewidlePull {
            src: src.0,
            src_nr_running: best_nr,
            llc: llc.0,
        };
        self.move_queued_task(task_id, src, cpu, reason);
        true
    }
}
