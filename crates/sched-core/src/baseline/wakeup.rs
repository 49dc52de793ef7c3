//! `select_task_rq_fair()` on a wakeup: `wake_wide`, then `wake_affine` between the
//! waker's CPU and the previous CPU, then `select_idle_sibling` (in `sis`); and
//! `ttwu_queue`, which decides who takes the target runqueue's lock.
//!
//! `wake_affine` variants, side by side:
//! - 4.6 (`WakeAffineVariant::Load`): one comparison of the waker CPU's load plus
//!   the wakee against the previous CPU's load with half the imbalance margin; an
//!   empty waker CPU always wins (`this_load == 0`).
//! - 4.14+ (`IdleThenWeight`): `wake_affine_idle` (an idle waker CPU sharing the
//!   cache wins, a sync wakeup onto a CPU running only the waker wins), then
//!   `wake_affine_weight`.
//!
//! Loads are the runqueues' instantaneous weights, where the kernel uses
//! `source_load`/`target_load` (4.x) or PELT `load_avg` (5.x).

use crate::domains::SchedDomain;
use crate::engine::Simulator;
use crate::kernel::WakeAffineVariant;
use crate::task::TaskId;
use crate::topology::CpuId;
use crate::trace::{Affine, Reason};

impl Simulator {
    /// `select_task_rq_fair()` for a wakeup. `waker` is the waking task, if any
    /// (a timer wakeup has none); `waker_cpu` is where the wakeup runs.
    pub(crate) fn select_task_rq_wake(
        &mut self,
        task_id: TaskId,
        waker_cpu: CpuId,
        waker: Option<TaskId>,
        sync: bool,
    ) -> (CpuId, Reason) {
        let task = &self.tasks[task_id.0 as usize];
        let prev = task.cpu;
        if task.affinity.len() == 1 {
            // A task pinned to one CPU skips select_task_rq (`nr_cpus_allowed == 1`).
            let only = task.affinity.first().expect("affinity is never empty");
            return (only, Reason::Pinned);
        }
        let llc_size =
            self.topology.llc_cpus[self.topology.llc_of(waker_cpu).0 as usize].len() as u32;
        let wide = waker.is_some_and(|waker| self.wake_wide(waker, task_id, llc_size));
        let want_affine = self.policy.wake_affine
            && waker.is_some()
            && !wide
            && task.affinity.contains(waker_cpu);
        let mut target = prev;
        let mut affine = if wide {
            Affine::WakeWide
        } else {
            Affine::NotTried
        };
        if want_affine {
            // The lowest domain of the waker's CPU that has SD_WAKE_AFFINE and spans prev.
            let level = self
                .domains
                .of(waker_cpu)
                .iter()
                .position(|sd| sd.flags.wake_affine && sd.span.contains(prev));
            if let Some(level) = level {
                if waker_cpu == prev {
                    affine = Affine::SameCpu;
                } else {
                    let sd = &self.domains.of(waker_cpu)[level];
                    let chose_waker = match self.features.wake_affine {
                        WakeAffineVariant::Load => {
                            self.wake_affine_load(sd, task_id, waker_cpu, prev, waker, sync)
                        }
                        WakeAffineVariant::IdleThenWeight => {
                            self.wake_affine_idle_weight(sd, task_id, waker_cpu, prev, waker, sync)
                        }
                    };
                    if chose_waker {
                        target = waker_cpu;
                        affine = Affine::ChoseWaker;
                    } else {
                        affine = Affine::KeptPrev;
                    }
                }
            }
        }
        let found = self.select_idle_sibling(task_id, prev, target, waker_cpu);
        (
            found.cpu,
            Reason::Wakeup {
                affine,
                step: found.step,
                prev: prev.0,
                target: target.0,
                llc: found.llc,
                scanned: found.scanned,
                limit: found.limit,
            },
        )
    }

    /// `wake_wide()` (4.5+): true when the waker switches between many wakees, so
    /// pulling them all to its LLC would overload it.
    fn wake_wide(&self, waker: TaskId, wakee: TaskId, llc_size: u32) -> bool {
        let waker_flips = self.tasks[waker.0 as usize].wakee_flips;
        let wakee_flips = self.tasks[wakee.0 as usize].wakee_flips;
        let (master, slave) = if waker_flips >= wakee_flips {
            (waker_flips, wakee_flips)
        } else {
            (wakee_flips, waker_flips)
        };
        !(slave < llc_size || master < slave.saturating_mul(llc_size))
    }

    /// 4.6 `wake_affine()`: pull to the waker's CPU (`this`) when its load plus the
    /// wakee stays within the previous CPU's load and half the imbalance margin.
    /// Returns true for the waker's CPU.
    fn wake_affine_load(
        &self,
        sd: &SchedDomain,
        task_id: TaskId,
        this: CpuId,
        prev: CpuId,
        waker: Option<TaskId>,
        sync: bool,
    ) -> bool {
        let task_weight = self.tasks[task_id.0 as usize].weight as u64;
        let mut this_load = self.rqs[this.0 as usize].load_weight;
        let prev_load = self.rqs[prev.0 as usize].load_weight;
        if sync {
            // effective_load(): the waker is about to sleep, so its weight leaves this CPU.
            let waker_weight = waker.map_or(0, |waker| self.tasks[waker.0 as usize].weight as u64);
            this_load = this_load.saturating_sub(waker_weight);
        }
        if this_load == 0 {
            // An empty waker CPU: the kernel skips the load terms and the 100 vs
            // 100 + margin comparison always holds.
            return true;
        }
        let this_eff = 100 * (this_load + task_weight);
        let prev_eff = (100 + (sd.imbalance_pct as u64 - 100) / 2) * prev_load;
        this_eff <= prev_eff
    }

    /// 4.14+ `wake_affine()`: `wake_affine_idle()` then `wake_affine_weight()`
    /// (each behind its `sched_feat`). Returns true for the waker's CPU.
    fn wake_affine_idle_weight(
        &self,
        sd: &SchedDomain,
        task_id: TaskId,
        this: CpuId,
        prev: CpuId,
        waker: Option<TaskId>,
        sync: bool,
    ) -> bool {
        if self.features.wa_idle {
            if self.cpu_is_idle(this) && self.topology.llc_of(this) == self.topology.llc_of(prev) {
                return !self.cpu_is_idle(prev);
            }
            if sync && self.rqs[this.0 as usize].nr_running == 1 {
                return true;
            }
            if self.cpu_is_idle(prev) {
                return false;
            }
        }
        if !self.features.wa_weight {
            return false;
        }
        // wake_affine_weight()
        let task_weight = self.tasks[task_id.0 as usize].weight as u64;
        let mut this_load = self.rqs[this.0 as usize].load_weight;
        if sync {
            let waker_weight = waker.map_or(0, |waker| self.tasks[waker.0 as usize].weight as u64);
            if waker_weight > this_load {
                return true;
            }
            this_load -= waker_weight;
        }
        let mut this_eff = this_load + task_weight;
        let mut prev_eff = self.rqs[prev.0 as usize].load_weight;
        if self.features.wa_bias {
            this_eff *= 100;
            prev_eff *= 100 + (sd.imbalance_pct as u64 - 100) / 2;
        }
        if sync {
            prev_eff += 1;
        }
        this_eff < prev_eff
    }

    /// `ttwu_queue()`: takes the target runqueue's lock for the wakeup. With
    /// `TTWU_QUEUE`, a wakeup onto a CPU that does not share the waker's cache (and
    /// from 6.0 onto an idle CPU) is put on the target's wake list, and the target
    /// takes its own lock in `sched_ttwu_pending()`; otherwise the waker takes it.
    pub(crate) fn ttwu_queue(&mut self, target: CpuId, waker_cpu: CpuId) {
        let queued = self.features.ttwu_queue
            && target != waker_cpu
            && (self.topology.llc_of(target) != self.topology.llc_of(waker_cpu)
                || (self.features.ttwu_queue_idle && self.cpu_is_idle(target)));
        let by = if queued { target } else { waker_cpu };
        self.lock_rq(target, by);
    }
}
