//! `select_task_rq_fair()` on a wakeup: `wake_wide`, then `wake_affine` between the
//! waker's CPU and the previous CPU, then `select_idle_sibling` (in `sis`); and
//! `ttwu_queue_cond`, which decides whether the target CPU enqueues the task itself
//! (its wake list) or the waker does, taking the target runqueue's lock.
//!
//! `wake_affine` variants, side by side:
//! - 4.6 (`WakeAffineVariant::Load`): one comparison of the waker CPU's load plus
//!   the wakee against the previous CPU's load with half the imbalance margin; an
//!   empty waker CPU always wins (`this_load == 0`).
//! - 4.14+ (`IdleThenWeight`): `wake_affine_idle` (an idle waker CPU sharing the
//!   cache wins, a sync wakeup onto a CPU running only the waker wins), then
//!   `wake_affine_weight`.
//!
//! Loads are PELT averages, as the kernel's: a CPU's load is, before 5.7, the sum of
//! the `load_avg` of the CFS tasks on its runqueue (`weighted_cpuload()`, the
//! `runnable_load_avg` that `source_load`/`target_load` read with `wake_idx` 0), and
//! from 5.7 `cpu_load()`, the runqueue's `load_avg` with its blocked load
//! (`Features::cpu_load`); the wakee's is its own `load_avg` as of when it last
//! slept. A waker CPU whose only task barely runs (a message thread) holds a load
//! that rounds to 0, and then the 4.6 form always pulls.
//! Simplification: `capacity_of()` is left out of `wake_affine_weight()` (every CPU
//! of a preset has the same capacity).

use crate::domains::SchedDomain;
use crate::engine::Simulator;
use crate::explain::{AffineSkip, DecisionKind, StepDetail};
use crate::kernel::{CpuLoad, WakeAffineVariant};
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
        self.explain_begin(DecisionKind::Wakeup, task_id, waker_cpu);
        let task = &self.tasks[task_id.0 as usize];
        let prev = task.cpu;
        if task.affinity.len() == 1 {
            // A task pinned to one CPU skips select_task_rq (`nr_cpus_allowed == 1`).
            let only = task.affinity.first().expect("affinity is never empty");
            self.explain(move |_, rec| {
                rec.push(StepDetail::Pinned { cpu: only.0 });
            });
            return (only, Reason::Pinned);
        }
        let llc_size =
            self.topology.llc_cpus[self.topology.llc_of(waker_cpu).0 as usize].len() as u32;
        let wide = waker.is_some_and(|waker| self.wake_wide(waker, task_id, llc_size));
        let want_affine = self.policy.wake_affine
            && waker.is_some()
            && !wide
            && task.affinity.contains(waker_cpu);
        if !want_affine {
            self.explain(move |sim, rec| {
                let cause = if !sim.policy.wake_affine {
                    AffineSkip::PolicyOff
                } else if waker.is_none() {
                    AffineSkip::NoWaker
                } else if wide {
                    AffineSkip::WakeWide
                } else {
                    AffineSkip::WakerCpuNotAllowed
                };
                rec.push(StepDetail::AffineNotTried {
                    cause,
                    waker_cpu: waker_cpu.0,
                    prev_cpu: prev.0,
                });
            });
        }
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
            if level.is_none() || waker_cpu == prev {
                self.explain(move |_, rec| {
                    rec.push(StepDetail::AffineNotTried {
                        cause: if level.is_none() {
                            AffineSkip::NoDomain
                        } else {
                            AffineSkip::SameCpu
                        },
                        waker_cpu: waker_cpu.0,
                        prev_cpu: prev.0,
                    });
                });
            }
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
        self.explain(move |_, rec| {
            rec.push(StepDetail::Target {
                cpu: target.0,
                prev_cpu: prev.0,
                waker_cpu: waker_cpu.0,
            });
        });
        if let Some((packed, reason)) = self.turbo_pack_select(task_id, target) {
            // TurboSched: a jitter task takes the busy core it was packed onto.
            return (packed, reason);
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
        let wide = !(slave < llc_size || master < slave.saturating_mul(llc_size));
        self.explain(move |_, rec| {
            rec.push(StepDetail::WakeWide {
                waker_flips,
                wakee_flips,
                llc_size,
                wide,
            });
        });
        wide
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
        let task_weight = self.task_load_avg(task_id);
        let mut this_load = self.cpu_load(this);
        let prev_load = self.cpu_load(prev);
        if sync {
            // effective_load(): the waker is about to sleep, so its load leaves this CPU.
            let waker_load = waker.map_or(0, |waker| self.task_runnable_load(waker));
            this_load = this_load.saturating_sub(waker_load);
        }
        if this_load == 0 {
            // An empty waker CPU: the kernel skips the load terms and the 100 vs
            // 100 + margin comparison always holds.
            self.explain(move |_, rec| {
                rec.push(affine_step(
                    "4.6",
                    sd,
                    this,
                    prev,
                    "empty_waker_cpu",
                    true,
                    [
                        Some(0),
                        Some(prev_load as i64),
                        Some(task_weight as i64),
                        None,
                        None,
                    ],
                    format!(
                        "the waker's CPU {} holds no load{}: pull to the waker's CPU",
                        this.0,
                        if sync {
                            " once the waker sleeps (sync)"
                        } else {
                            ""
                        }
                    ),
                ));
            });
            return true;
        }
        let this_eff = 100 * (this_load + task_weight);
        let scale = 100 + (sd.imbalance_pct as u64 - 100) / 2;
        let prev_eff = scale * prev_load;
        self.explain(move |_, rec| {
            let chose = this_eff <= prev_eff;
            rec.push(affine_step(
                "4.6",
                sd,
                this,
                prev,
                "load",
                chose,
                [this_load, prev_load, task_weight, this_eff, prev_eff].map(|value| Some(value as i64)),
                format!(
                    "100 x (waker CPU {} load {this_load}{} + task {task_weight}) = {this_eff} {} {scale} x previous CPU {} load {prev_load} = {prev_eff}: {}",
                    this.0,
                    if sync { " without the waker" } else { "" },
                    if chose { "<=" } else { ">" },
                    prev.0,
                    if chose { "pull to the waker's CPU" } else { "keep the previous CPU" }
                ),
            ));
        });
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
                let prev_busy = !self.cpu_is_idle(prev);
                self.explain(move |_, rec| {
                    rec.push(affine_step("4.14", sd, this, prev, "wa_idle", prev_busy, [None; 5], format!(
                        "wake_affine_idle: the waker's CPU {} is idle and shares its cache with previous CPU {}, which is {}",
                        this.0,
                        prev.0,
                        if prev_busy { "busy: pull to the waker's CPU" } else { "idle too: keep the previous CPU" }
                    )));
                });
                return prev_busy;
            }
            if sync && self.rqs[this.0 as usize].nr_running == 1 {
                self.explain(move |_, rec| {
                    rec.push(affine_step("4.14", sd, this, prev, "wa_idle_sync", true, [None; 5], format!(
                        "wake_affine_idle: a sync wakeup, and the waker's CPU {} runs only the waker: pull to the waker's CPU",
                        this.0
                    )));
                });
                return true;
            }
            if self.cpu_is_idle(prev) {
                self.explain(move |_, rec| {
                    rec.push(affine_step(
                        "4.14",
                        sd,
                        this,
                        prev,
                        "wa_idle_prev_idle",
                        false,
                        [None; 5],
                        format!("wake_affine_idle: previous CPU {} is idle: keep it", prev.0),
                    ));
                });
                return false;
            }
        }
        if !self.features.wa_weight {
            self.explain(move |_, rec| {
                rec.push(affine_step(
                    "4.14",
                    sd,
                    this,
                    prev,
                    "wa_weight_off",
                    false,
                    [None; 5],
                    "WA_WEIGHT is off: keep the previous CPU".to_string(),
                ));
            });
            return false;
        }
        // wake_affine_weight()
        let task_weight = self.task_load_avg(task_id);
        let mut this_load = self.cpu_load(this);
        if sync {
            let waker_weight = waker.map_or(0, |waker| self.task_runnable_load(waker));
            if waker_weight > this_load {
                self.explain(move |_, rec| {
                    rec.push(affine_step("4.14", sd, this, prev, "wa_weight_sync", true, [Some(this_load as i64), None, Some(task_weight as i64), None, None], format!(
                        "wake_affine_weight: a sync wakeup whose waker's weight {waker_weight} exceeds its CPU's load {this_load}: pull to the waker's CPU"
                    )));
                });
                return true;
            }
            this_load -= waker_weight;
        }
        // Signed, as the kernel's s64: the wakee's load is taken off the previous CPU
        // (with `load_avg` it is still there as blocked load), which can go below 0.
        // The kernel also scales each side by the other CPU's capacity; the model's
        // CPUs all have the same.
        let mut this_eff = (this_load + task_weight) as i64;
        let prev_load = self.cpu_load(prev);
        let mut prev_eff = prev_load as i64 - task_weight as i64;
        if self.features.wa_bias {
            this_eff *= 100;
            prev_eff *= 100 + (sd.imbalance_pct as i64 - 100) / 2;
        }
        if sync {
            prev_eff += 1;
        }
        self.explain(move |sim, rec| {
            let chose = this_eff < prev_eff;
            let load = sim.features.cpu_load.field();
            let (this_scale, prev_scale) = if sim.features.wa_bias {
                (
                    "100 x ".to_string(),
                    format!("{} x ", 100 + (sd.imbalance_pct as u64 - 100) / 2),
                )
            } else {
                (String::new(), String::new())
            };
            rec.push(affine_step("4.14", sd, this, prev, "wa_weight", chose, [Some(this_load as i64), Some(prev_load as i64), Some(task_weight as i64), Some(this_eff), Some(prev_eff)], format!(
                "wake_affine_weight: {this_scale}(waker CPU {} {load} {this_load}{} + task {task_weight}) = {this_eff} {} {prev_scale}(previous CPU {} {load} {prev_load} - task {task_weight}){} = {prev_eff}: {}",
                this.0,
                if sync { " without the waker" } else { "" },
                if chose { "<" } else { ">=" },
                prev.0,
                if sync { " (+1 for sync)" } else { "" },
                if chose { "pull to the waker's CPU" } else { "keep the previous CPU" }
            )));
        });
        this_eff < prev_eff
    }

    /// `task_h_load(p)` of a waking task: its `se.avg.load_avg` as of when it last
    /// left a runqueue, an integer as the kernel keeps it. Simplification: with
    /// cgroups, not scaled by its groups' shares (the flat weight).
    fn task_load_avg(&self, task_id: TaskId) -> u64 {
        let task = &self.tasks[task_id.0 as usize];
        (task.load.util_avg * task.weight as f64 / crate::pelt::CAPACITY_SCALE) as u64
    }

    /// `task_h_load(current)`, the waker's `load_avg`: it is runnable, so its
    /// average has grown since its last enqueue.
    fn task_runnable_load(&self, task_id: TaskId) -> u64 {
        let task = &self.tasks[task_id.0 as usize];
        (task.load.peek(self.now(), true) * task.weight as f64 / crate::pelt::CAPACITY_SCALE) as u64
    }

    /// The load of a CPU's runqueue that `wake_affine()` compares, as the kernel
    /// version keeps it (`Features::cpu_load`): `runnable_load_avg` (before 5.7,
    /// `weighted_cpuload()` / `cpu_runnable_load()`) or `load_avg` (`cpu_load()`).
    /// Kept incrementally as tasks come and go (`crate::load_avg`), so reading it
    /// costs the same whatever the runqueue holds.
    fn cpu_load(&self, cpu: CpuId) -> u64 {
        let load = &self.rqs[cpu.0 as usize].load_avg;
        match self.features.cpu_load {
            CpuLoad::RunnableLoadAvg => load.runnable_load_avg(self.now()),
            CpuLoad::LoadAvg => load.load_avg(self.now()),
        }
    }

    /// `ttwu_queue_cond()`: who takes the target runqueue's lock for the wakeup. With
    /// `TTWU_QUEUE`, a wakeup onto a CPU that does not share the waker's cache (and
    /// from 6.0 onto an idle CPU) is put on the target's wake list, and the target
    /// takes its own lock in `sched_ttwu_pending()`; otherwise the waker takes it.
    /// True when the wakeup goes to the target's wake list.
    pub(crate) fn ttwu_queue_cond(&self, target: CpuId, waker_cpu: CpuId) -> bool {
        self.features.ttwu_queue
            && target != waker_cpu
            && (self.topology.llc_of(target) != self.topology.llc_of(waker_cpu)
                || (self.features.ttwu_queue_idle && self.rqs[target.0 as usize].nr_running == 0))
    }
}

/// A `wake_affine` step for the decision inspector; `loads` is `[this_load,
/// prev_load, task_weight, this_eff, prev_eff]`.
#[allow(clippy::too_many_arguments)]
fn affine_step(
    form: &'static str,
    sd: &SchedDomain,
    this: CpuId,
    prev: CpuId,
    test: &'static str,
    chose_waker: bool,
    loads: [Option<i64>; 5],
    why: String,
) -> StepDetail {
    let [this_load, prev_load, task_weight, this_eff, prev_eff] = loads;
    StepDetail::WakeAffine {
        form,
        domain: sd.level.name(),
        waker_cpu: this.0,
        prev_cpu: prev.0,
        test,
        chose_waker,
        this_load,
        prev_load,
        task_weight,
        this_eff,
        prev_eff,
        why,
    }
}
