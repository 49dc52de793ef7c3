//! Background activity: the per-CPU kernel threads every real machine runs
//! (kworkers, ksoftirqd, RCU and vmstat work) that wake now and then and run briefly.
//!
//! Without them a model machine can settle into a perfect one-task-per-CPU partition
//! that no real machine keeps: every woken task finds its previous CPU idle. A
//! kthread that happens to run on a CPU when a task wakes there displaces the task,
//! which is how real wakeup paths meet busy CPUs. Each CPU gets one thread,
//! `kworker/N`, pinned to it, that sleeps an exponentially distributed interval and
//! then runs an exponentially distributed burst. They exist before the run starts:
//! each begins asleep, its first timer an exponential residual away. The defaults (a wakeup every 10 ms
//! on average, 20 us of work) are illustrative: servers show tens to hundreds of
//! per-CPU kworker and softirq wakeups a second, each of a few to tens of
//! microseconds. Their wakeup latency is not counted and they are not a workload's
//! throughput.
//!
//! Their timers are deferrable, as the kernel's periodic per-CPU work mostly is
//! (`vmstat_update()`'s delayed work, `TIMER_DEFERRABLE`): a CPU in NOHZ idle is not
//! woken for them, and the work runs when the CPU next wakes for something else. So a
//! busy CPU is interrupted about every 10 ms, while an idle one stays idle: it does
//! not run `newidle_balance` every few milliseconds, and a core can stay idle long
//! enough for a deep idle state. Simplification: every background wakeup is
//! deferrable (the kernel also has non-deferrable per-CPU timers and interrupts).

use crate::behaviour::{Dist, Op};
use crate::workload::{TaskTemplate, TasksSpec, WorkloadSpec};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

pub const DEFAULT_KTHREAD_INTERVAL_US: f64 = 10_000.0;
pub const DEFAULT_KTHREAD_RUN_US: f64 = 20.0;

/// The machine's per-CPU kernel-thread activity.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct BackgroundSpec {
    /// Run one pinned kernel thread per CPU (default true).
    #[serde(default = "yes")]
    pub enabled: bool,
    /// Mean time between a kernel thread's wakeups, in microseconds (default 10000).
    #[serde(default = "default_interval")]
    #[schemars(range(min = 100.0, max = 10000000.0))]
    pub kthread_interval_us: f64,
    /// Mean time it runs per wakeup, in microseconds (default 20).
    #[serde(default = "default_run")]
    #[schemars(range(min = 0.1, max = 100000.0))]
    pub kthread_run_us: f64,
}

impl Default for BackgroundSpec {
    fn default() -> Self {
        BackgroundSpec {
            enabled: true,
            kthread_interval_us: DEFAULT_KTHREAD_INTERVAL_US,
            kthread_run_us: DEFAULT_KTHREAD_RUN_US,
        }
    }
}

fn yes() -> bool {
    true
}

fn default_interval() -> f64 {
    DEFAULT_KTHREAD_INTERVAL_US
}

fn default_run() -> f64 {
    DEFAULT_KTHREAD_RUN_US
}

impl BackgroundSpec {
    /// Problems the schema cannot state, with paths relative to `background`.
    pub fn check(&self) -> Vec<(String, String)> {
        let mut errors = Vec::new();
        for (field, value) in [
            ("kthread_interval_us", self.kthread_interval_us),
            ("kthread_run_us", self.kthread_run_us),
        ] {
            if !(value.is_finite() && value > 0.0) {
                errors.push((
                    field.to_string(),
                    format!("must be a positive number of microseconds, got {value}"),
                ));
            }
        }
        errors
    }

    /// The kernel threads as a workload of hand-written tasks, one per CPU; `None`
    /// when disabled.
    pub fn workload(&self, n_cpus: usize) -> Option<WorkloadSpec> {
        if !self.enabled {
            return None;
        }
        let tasks = (0..n_cpus)
            .map(|cpu| TaskTemplate {
                comm: format!("kworker/{cpu}"),
                count: 1,
                nice: 0,
                cpus: Some(cpu.to_string()),
                start_us: 0,
                record_latency: false,
                footprint_kib: 0,
                jitter: false,
                uclamp_max: None,
                // It starts asleep (`engine::build`): each wakeup runs, then sleeps.
                program: vec![Op::Loop {
                    count: None,
                    body: vec![
                        Op::Run {
                            duration: Dist::Exponential {
                                mean_us: self.kthread_run_us,
                            },
                            memory_bound: false,
                        },
                        Op::Sleep {
                            duration: Dist::Exponential {
                                mean_us: self.kthread_interval_us,
                            },
                        },
                    ],
                }],
            })
            .collect();
        Some(WorkloadSpec::Tasks(TasksSpec {
            unit: "wakeups".into(),
            tasks,
        }))
    }
}

impl crate::engine::Simulator {
    /// A background kthread's sleep timer is deferrable (`TIMER_DEFERRABLE`, as
    /// `vmstat_update()` and most periodic per-CPU work are): on a NOHZ-idle CPU it
    /// does not fire until the CPU wakes for something else. Returns true when the
    /// wakeup was deferred; `release_deferred_timers` runs it later.
    pub(crate) fn defer_timer(
        &mut self,
        task: crate::task::TaskId,
        cpu: crate::topology::CpuId,
    ) -> bool {
        let group = self.tasks[task.0 as usize].group as usize;
        if !self.workloads[group].background
            || !self.cpu_is_idle(cpu)
            || self.cpus[cpu.0 as usize].leaving_idle
        {
            return false;
        }
        self.cpus[cpu.0 as usize].deferred_timers.push(task);
        true
    }

    /// `cpu` left idle: the deferrable timers that expired meanwhile fire now, in
    /// the order they expired (each as its own event, after the current one).
    pub(crate) fn release_deferred_timers(&mut self, cpu: crate::topology::CpuId) {
        if self.cpus[cpu.0 as usize].deferred_timers.is_empty() {
            return;
        }
        let deferred = std::mem::take(&mut self.cpus[cpu.0 as usize].deferred_timers);
        for &task in &deferred {
            let now = self.now();
            self.queue_timer_wake(task, now);
        }
        // No allocation per exit from idle.
        crate::engine::give_back(&mut self.cpus[cpu.0 as usize].deferred_timers, deferred);
    }
}
