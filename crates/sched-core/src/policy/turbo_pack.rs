//! TurboSched task packing (seed 003, Parth Shah, RFC v3, 2019, on 5.2).
//!
//! Small "jitter" tasks (a per-task attribute set with `sched_setattr`, or, in v3,
//! `uclamp_max <= 1`) are packed onto cores that are already busy, so the idle cores
//! stay in deep idle and the busy ones keep a higher turbo frequency (`power`).
//!
//! The hook `turbo_pack_select` runs in `select_task_rq_fair()` before
//! `select_idle_sibling()` (`baseline::wakeup`), as the patch's
//! `turbosched_select_idle_sibling()` does: for a waking jitter task it walks the
//! cores of the turbo domain (the LLC, the socket or the NUMA node of the target: v3
//! bounds the search by the LLC, and its POWER patch widens it to the node) in CPU
//! order, and takes the first core that is busy (its threads' utilisation above
//! `busy_threshold_pct` of the core's capacity) and can still take the task's
//! utilisation within that capacity; the task goes to the core's least loaded
//! thread it may use. The core's capacity is SMT-aware (the series' "core
//! capacity"): one thread's capacity times what the SMT model says all of its
//! threads together do. When no core fits, the default path runs. Other tasks are
//! never touched, and the load balancer may still move a packed task.

use crate::engine::Simulator;
use crate::task::TaskId;
use crate::topology::{CoreId, CpuId};
use crate::trace::Reason;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// The domain a packing search is bounded by.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum TurboDomain {
    /// The target's last-level cache (v3's generic bound).
    Llc,
    /// The target's socket.
    Socket,
    /// The target's NUMA node (v3's POWER setting).
    #[default]
    Node,
}

impl TurboDomain {
    pub fn name(self) -> &'static str {
        match self {
            TurboDomain::Llc => "LLC",
            TurboDomain::Socket => "socket",
            TurboDomain::Node => "node",
        }
    }
}

/// `policy.turbo_pack` as a scenario writes it.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct TurboPackSpec {
    /// Pack waking jitter tasks onto busy cores (default false).
    #[serde(default)]
    pub enabled: bool,
    /// A core is busy when its threads' utilisation exceeds this share of its
    /// capacity, in percent (default 12.5, the series' figure).
    #[serde(default = "default_threshold")]
    #[schemars(range(min = 0.0, max = 100.0))]
    pub busy_threshold_pct: f64,
    /// The domain that bounds the search: `llc`, `socket` or `node` (default node).
    #[serde(default)]
    pub domain: TurboDomain,
}

fn default_threshold() -> f64 {
    12.5
}

impl Default for TurboPackSpec {
    fn default() -> Self {
        TurboPackSpec {
            enabled: false,
            busy_threshold_pct: default_threshold(),
            domain: TurboDomain::default(),
        }
    }
}

impl TurboPackSpec {
    /// Problems the schema cannot state, with paths relative to `policy.turbo_pack`.
    pub fn check(&self) -> Vec<(String, String)> {
        if !(self.busy_threshold_pct.is_finite()
            && (0.0..=100.0).contains(&self.busy_threshold_pct))
        {
            return vec![(
                "busy_threshold_pct".into(),
                format!(
                    "must be a percentage from 0 to 100, got {}",
                    self.busy_threshold_pct
                ),
            )];
        }
        Vec::new()
    }
}

impl Simulator {
    /// Whether TurboSched classes the task as jitter: the attribute, or v3's
    /// `uclamp_max <= 1`.
    pub fn is_jitter(&self, task: TaskId) -> bool {
        let task = &self.tasks[task.0 as usize];
        task.jitter || task.uclamp_max.is_some_and(|max| max <= 1)
    }

    /// A core's capacity, SMT-aware: one thread's 1024 times the work all of its
    /// threads do together under the SMT model.
    pub(crate) fn core_capacity(&self, core: CoreId) -> f64 {
        let threads = self.topology.core_cpus[core.0 as usize].len() as u64;
        let per_thread = crate::cost::smt_thread_permille(
            self.costs.smt_speed_permille,
            threads.saturating_sub(1),
        );
        crate::pelt::CAPACITY_SCALE * (per_thread * threads) as f64 / 1000.0
    }

    /// `turbosched_select_idle_sibling()`: for a waking jitter task, the first busy
    /// core of the turbo domain that can take it, and its least loaded thread; `None`
    /// for the default path.
    pub(crate) fn turbo_pack_select(
        &self,
        task_id: TaskId,
        target: CpuId,
    ) -> Option<(CpuId, Reason)> {
        let spec = self.policy.turbo_pack;
        if !spec.enabled || !self.is_jitter(task_id) {
            return None;
        }
        let found = self.turbo_pack_search(task_id, target, |_, _, _| {});
        self.explain(|sim, rec| {
            let mut cores = Vec::new();
            sim.turbo_pack_search(task_id, target, |core, util_pct, verdict| {
                cores.push(crate::explain::TurboCore {
                    core,
                    util_pct,
                    verdict,
                })
            });
            let info = sim.topology.info(target);
            let (name, id) = match spec.domain {
                TurboDomain::Llc => ("LLC", info.llc.0),
                TurboDomain::Socket => ("socket", info.socket.0),
                TurboDomain::Node => ("node", info.node.0),
            };
            rec.push(crate::explain::StepDetail::TurboPack {
                domain: format!("{name} {id}"),
                threshold_permille: (spec.busy_threshold_pct * 10.0).round() as u32,
                task_util_pct: (100.0 * sim.tasks[task_id.0 as usize].pelt.util_avg
                    / crate::pelt::CAPACITY_SCALE)
                    .round() as u32,
                cores,
                chosen_cpu: found.as_ref().map(|(cpu, _)| cpu.0),
            });
        });
        found
    }

    /// The search itself, telling `visit` each core it looks at: its number, its
    /// utilisation in % of its capacity, and the verdict (`not busy`, `too full`,
    /// `no allowed thread`, `packed`).
    fn turbo_pack_search(
        &self,
        task_id: TaskId,
        target: CpuId,
        mut visit: impl FnMut(u32, u32, &'static str),
    ) -> Option<(CpuId, Reason)> {
        let spec = self.policy.turbo_pack;
        let info = self.topology.info(target);
        let span = match spec.domain {
            TurboDomain::Llc => &self.topology.llc_cpus[info.llc.0 as usize],
            TurboDomain::Socket => &self.topology.socket_cpus[info.socket.0 as usize],
            TurboDomain::Node => &self.topology.node_cpus[info.node.0 as usize],
        };
        let task = &self.tasks[task_id.0 as usize];
        let task_util = task.pelt.util_avg;
        let mut last_core = None;
        for cpu in span.iter() {
            let core = self.topology.core_of(cpu);
            if last_core == Some(core) {
                continue;
            }
            last_core = Some(core);
            let capacity = self.core_capacity(core);
            let util = self.core_util(core);
            let util_pct = (100.0 * util / capacity).round() as u32;
            if util <= capacity * spec.busy_threshold_pct / 100.0 {
                visit(core.0, util_pct, "not busy");
                continue;
            }
            if util + task_util > capacity {
                visit(core.0, util_pct, "too full");
                continue;
            }
            // The core's least loaded thread the task may use.
            let thread = self.topology.core_cpus[core.0 as usize]
                .iter()
                .filter(|thread| task.affinity.contains(*thread) && self.online.contains(*thread))
                .min_by(|a, b| {
                    let load = |cpu: &CpuId| {
                        (
                            self.rqs[cpu.0 as usize].nr_running,
                            (self.cpu_util(*cpu) * 1000.0) as u64,
                        )
                    };
                    load(a).cmp(&load(b)).then(a.0.cmp(&b.0))
                });
            if let Some(thread) = thread {
                visit(core.0, util_pct, "packed");
                return Some((
                    thread,
                    Reason::TurboPack {
                        core: core.0,
                        util_pct,
                        domain: spec.domain,
                        domain_id: match spec.domain {
                            TurboDomain::Llc => info.llc.0,
                            TurboDomain::Socket => info.socket.0,
                            TurboDomain::Node => info.node.0,
                        },
                    },
                ));
            }
            visit(core.0, util_pct, "no allowed thread");
        }
        None
    }
}
