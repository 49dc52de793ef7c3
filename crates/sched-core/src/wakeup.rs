//! Where a task goes when it wakes or forks (`select_task_rq_fair`).
//!
//! First model: a woken task returns to its previous CPU if that is idle, else takes
//! an idle CPU of the same LLC (scanning from the CPU after the previous one, as
//! `select_idle_cpu` does), else queues on its previous CPU. A new task goes to the
//! allowed CPU with the fewest runnable tasks. Simplification of `wake_affine`,
//! the idle-core search and `find_idlest_cpu`.

use crate::engine::Simulator;
use crate::task::TaskId;
use crate::topology::CpuId;
use crate::trace::Reason;

impl Simulator {
    pub(crate) fn select_task_rq_wake(&self, task_id: TaskId) -> (CpuId, Reason) {
        let task = &self.tasks[task_id.0 as usize];
        let prev = task.cpu;
        if !task.affinity.contains(prev) {
            let first = task.affinity.first().expect("affinity is never empty");
            let idle_allowed = task.affinity.iter().find(|cpu| self.cpu_is_idle(*cpu));
            return (idle_allowed.unwrap_or(first), Reason::AffinityFallback);
        }
        if self.cpu_is_idle(prev) {
            return (prev, Reason::PrevIdle);
        }
        self.select_idle_sibling(task_id, prev)
    }

    /// Scans the LLC of `target` for an idle CPU the task may use.
    pub(crate) fn select_idle_sibling(&self, task_id: TaskId, target: CpuId) -> (CpuId, Reason) {
        let task = &self.tasks[task_id.0 as usize];
        let llc = self.topology.llc_of(target);
        let llc_cpus: Vec<CpuId> = self.topology.llc_cpus[llc.0 as usize].iter().collect();
        let start = llc_cpus.iter().position(|cpu| *cpu == target).unwrap_or(0);
        let mut scanned = 0u32;
        for offset in 1..llc_cpus.len() {
            let candidate = llc_cpus[(start + offset) % llc_cpus.len()];
            scanned += 1;
            if task.affinity.contains(candidate) && self.cpu_is_idle(candidate) {
                return (
                    candidate,
                    Reason::IdleInLlc {
                        prev: target.0,
                        llc: llc.0,
                        scanned,
                    },
                );
            }
        }
        (
            target,
            Reason::NoIdleInLlc {
                llc: llc.0,
                scanned,
            },
        )
    }

    pub(crate) fn select_task_rq_fork(&self, task_id: TaskId) -> (CpuId, Reason) {
        let task = &self.tasks[task_id.0 as usize];
        let best = task
            .affinity
            .iter()
            .min_by_key(|cpu| (self.rqs[cpu.0 as usize].nr_running, cpu.0))
            .expect("affinity is never empty");
        (
            best,
            Reason::ForkLeastLoaded {
                nr_running: self.rqs[best.0 as usize].nr_running,
            },
        )
    }
}
