//! The select_idle_sibling idle-thread scan (seed 001, Chris Mason, 2016, on 4.6).
//!
//! 4.6's `select_idle_sibling` takes only a fully idle core or an idle SMT sibling of
//! the target, so on a machine where every core has one busy thread a waking task
//! queues behind another although idle threads exist. The patch adds a last step:
//! when that walk found nothing and `should_scan_idle(p, target)` holds (the target
//! runs at most one CFS task, and the task is not cache-hot with respect to it),
//! scan the LLC domain's CPUs (`sd_llc`, the package on the seed's Xeon) in CPU
//! order for any idle CPU the task may use; the first one wins.
//!
//! Hook: `sis_package_scan`, called from `baseline::sis` at the end of the 4.6
//! variant (`SisVariant::Groups`) only: the patch was written against 4.6, and later
//! kernels' `select_idle_cpu` scans for idle threads themselves. `gate: false` scans
//! whenever the walk failed, to show what `should_scan_idle` saves.

use crate::engine::Simulator;
use crate::explain::{scan_step, Recorder, ScanKind, StepDetail};
use crate::task::TaskId;
use crate::topology::CpuId;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// `policy.sis_scan` as a scenario writes it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct SisScanSpec {
    /// Scan the package for an idle thread when the 4.6 select_idle_sibling found no
    /// idle core or sibling (default false).
    #[serde(default)]
    pub enabled: bool,
    /// Scan only when `should_scan_idle(p, target)` holds: the target runs at most
    /// one CFS task and the task is not cache-hot (default true).
    #[serde(default = "yes")]
    pub gate: bool,
}

impl Default for SisScanSpec {
    fn default() -> Self {
        SisScanSpec {
            enabled: false,
            gate: true,
        }
    }
}

fn yes() -> bool {
    true
}

/// What the package scan did.
#[derive(Clone, Copy, Debug)]
pub(crate) struct PackageScan {
    /// The idle CPU taken, if any.
    pub found: Option<CpuId>,
    /// CPUs inspected, and the first and last of them (the scan goes in CPU order).
    pub inspected: u32,
    pub first: u32,
    pub last: u32,
}

impl Simulator {
    /// `should_scan_idle()`: the target runs at most one CFS task, and the task is
    /// not cache-hot. The patch calls 4.6's `task_hot` without a domain, so only the
    /// time test applies (no SMT exemption).
    fn should_scan_idle(&self, task_id: TaskId, target: CpuId) -> bool {
        if self.rqs[target.0 as usize].nr_running > 1 {
            return false;
        }
        !self.ran_within_migration_cost(task_id)
    }

    /// The patch's last step of `select_idle_sibling`: `None` when the policy is off
    /// or its gate says no; otherwise the scan of the target's LLC domain.
    pub(crate) fn sis_package_scan(&self, task_id: TaskId, target: CpuId) -> Option<PackageScan> {
        let spec = &self.policy.sis_scan;
        if spec.enabled {
            self.explain(move |sim, rec| {
                rec.push(StepDetail::PackageScanGate {
                    gate: spec.gate,
                    target_cpu: target.0,
                    target_nr_running: sim.rqs[target.0 as usize].nr_running,
                    cache_hot: sim.ran_within_migration_cost(task_id),
                    scans: !spec.gate || sim.should_scan_idle(task_id, target),
                })
            });
        }
        if !spec.enabled || (spec.gate && !self.should_scan_idle(task_id, target)) {
            return None;
        }
        let affinity = &self.tasks[task_id.0 as usize].affinity;
        let llc = self.topology.llc_of(target).0 as usize;
        let mut scan = PackageScan {
            found: None,
            inspected: 0,
            first: 0,
            last: 0,
        };
        for cpu in self.topology.llc_cpus[llc].iter() {
            if !affinity.contains(cpu) {
                continue;
            }
            if scan.inspected == 0 {
                scan.first = cpu.0;
            }
            scan.inspected += 1;
            scan.last = cpu.0;
            if self.cpu_is_idle(cpu) {
                scan.found = Some(cpu);
                break;
            }
        }
        self.explain(move |sim, rec| sim.explain_package_scan(rec, task_id, target));
        Some(scan)
    }

    /// For the decision inspector: the package scan replayed, read-only (the LLC's
    /// allowed CPUs in CPU order up to the first idle one).
    fn explain_package_scan(&self, rec: &Recorder, task_id: TaskId, target: CpuId) {
        let affinity = &self.tasks[task_id.0 as usize].affinity;
        let llc = self.topology.llc_of(target).0;
        let mut cpus = Vec::new();
        let mut found = None;
        for cpu in self.topology.llc_cpus[llc as usize].iter() {
            if !affinity.contains(cpu) {
                continue;
            }
            cpus.push(self.visit(task_id, cpu));
            if self.cpu_is_idle(cpu) {
                found = Some(cpu);
                break;
            }
        }
        let why = match found {
            Some(cpu) => format!(
                "package scan (seed 001) of LLC {llc} in CPU order: idle CPU {} after {}",
                cpu.0,
                cpus.len()
            ),
            None => format!(
                "package scan (seed 001) of LLC {llc} in CPU order: none of {} idle",
                cpus.len()
            ),
        };
        rec.push(scan_step(
            ScanKind::PackageScan,
            target,
            Some(llc),
            None,
            cpus,
            found,
            why,
        ));
    }
}
