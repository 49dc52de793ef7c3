//! `select_idle_sibling()`: where in the target's LLC a waking task finds an idle CPU.
//!
//! The variants, side by side:
//! - 4.6 (`SisVariant::Groups`): the target, the previous CPU, then walking down
//!   from the LLC domain: a core whose threads are all idle (and that does not hold
//!   the target), then an idle SMT sibling of the target. An idle thread of a
//!   partly busy core elsewhere is never taken: this is what seed 001's scan fixed.
//! - 4.9-5.11 (`CoreCpuSmt`): the target, the previous CPU, the recently used CPU
//!   (4.16+), `select_idle_core()`, `select_idle_cpu()` bounded by SIS_AVG_CPU
//!   (4.9-4.10) or SIS_PROP (4.13+), then `select_idle_smt()` of the target.
//! - 5.12+ (`SinglePass`): the target, the previous CPU, the recently used CPU;
//!   then, while the LLC has an idle core, one unbounded pass for it (remembering
//!   any idle CPU); otherwise an idle sibling of the previous CPU and a bounded
//!   scan (SIS_PROP, or SIS_UTIL from 6.0).
//!
//! SIS_UTIL's `nr_idle_scan` is refreshed by periodic balancing of the LLC domain
//! (`update_idle_cpu_scan`), as in the kernel. Simplifications: it starts at the
//! whole LLC, as if an idle machine had been balanced; SIS_PROP uses
//! `avg_idle / 512` in every version (5.13+ ages a `wake_avg_idle`).

use crate::engine::Simulator;
use crate::explain::{plural, scan_step, CpuState, Recorder, ScanKind, StepDetail};
use crate::kernel::SisVariant;
use crate::pelt::CAPACITY_SCALE;
use crate::task::TaskId;
use crate::time::SimTime;
use crate::topology::{CoreId, CpuId};
use crate::trace::SisStep;

/// SIS_UTIL's per-LLC hint (`sd_llc_shared->nr_idle_scan`) and where it came from.
#[derive(Clone, Copy, Debug)]
pub(crate) struct IdleScanHint {
    /// How many CPUs `select_idle_cpu()` may inspect.
    pub nr: u32,
    /// The LLC domain's CPUs when it was set.
    pub weight: u32,
    /// `x`: the LLC's utilisation per CPU (0..1024) when it was set.
    pub per_cpu_util: u32,
    /// When, and by which CPU's periodic balance; `None` while it is the start value.
    pub set: Option<(SimTime, CpuId)>,
}

impl IdleScanHint {
    /// The start value: the whole LLC, as a periodic balance of an idle machine
    /// leaves it (the kernel's zeroed `sd_llc_shared` would scan nothing until the
    /// first periodic balance; the simulated machine is taken as already running).
    pub fn idle(weight: u32) -> IdleScanHint {
        IdleScanHint {
            nr: weight,
            weight,
            per_cpu_util: 0,
            set: None,
        }
    }
}

/// What `select_idle_sibling` found, and how.
#[derive(Clone, Copy, Debug)]
pub(crate) struct SisResult {
    pub cpu: CpuId,
    pub step: SisStep,
    pub llc: u32,
    /// CPUs inspected by the scans.
    pub scanned: u32,
    /// How many CPUs the idle-CPU scan was allowed to inspect, when it was bounded.
    pub limit: Option<u32>,
}

impl SisResult {
    fn new(cpu: CpuId, step: SisStep, llc: u32, scanned: u32, limit: Option<u32>) -> Self {
        SisResult {
            cpu,
            step,
            llc,
            scanned,
            limit,
        }
    }
}

impl Simulator {
    /// `select_idle_sibling()`: dispatches to the kernel version's variant. The CPUs
    /// inspected are charged to `scanning_cpu` (the waker's CPU).
    pub(crate) fn select_idle_sibling(
        &mut self,
        task_id: TaskId,
        prev: CpuId,
        target: CpuId,
        scanning_cpu: CpuId,
    ) -> SisResult {
        let llc = self.topology.llc_of(target).0;
        let done = |cpu: CpuId, step: SisStep| SisResult {
            cpu,
            step,
            llc,
            scanned: 0,
            limit: None,
        };
        let affinity = &self.tasks[task_id.0 as usize].affinity;
        if !affinity.contains(target) {
            let idle = affinity.iter().find(|cpu| self.cpu_is_idle(*cpu));
            let first = affinity.first().expect("affinity is never empty");
            self.explain(move |sim, rec| {
                sim.explain_affinity_fallback(rec, task_id, target, idle, first)
            });
            return done(idle.unwrap_or(first), SisStep::AffinityFallback);
        }
        self.explain(move |sim, rec| {
            sim.explain_single(rec, ScanKind::Target, task_id, target, llc)
        });
        if self.cpu_is_idle(target) {
            return done(target, SisStep::TargetIdle);
        }
        if prev != target && self.topology.llc_of(prev).0 == llc {
            self.explain(move |sim, rec| {
                sim.explain_single(rec, ScanKind::Prev, task_id, prev, llc)
            });
        }
        if prev != target
            && self.topology.llc_of(prev).0 == llc
            && affinity.contains(prev)
            && self.cpu_is_idle(prev)
        {
            return done(prev, SisStep::PrevIdle);
        }
        let variant = self.features.select_idle_sibling;
        if variant != SisVariant::Groups && self.features.recent_used_cpu {
            let recent = self.tasks[task_id.0 as usize].recent_used_cpu;
            self.tasks[task_id.0 as usize].recent_used_cpu = Some(prev);
            if let Some(recent) = recent {
                if recent != prev && recent != target && self.topology.llc_of(recent).0 == llc {
                    self.explain(move |sim, rec| {
                        sim.explain_single(rec, ScanKind::RecentUsed, task_id, recent, llc)
                    });
                }
                if recent != prev
                    && recent != target
                    && self.topology.llc_of(recent).0 == llc
                    && self.tasks[task_id.0 as usize].affinity.contains(recent)
                    && self.cpu_is_idle(recent)
                {
                    return done(recent, SisStep::RecentUsed);
                }
            }
        }
        let mut result = match variant {
            SisVariant::Groups => {
                let walk = self.sis_lower_domain_groups(task_id, target, llc);
                match walk.step {
                    SisStep::NoneIdle => self.after_lower_domain_walk(task_id, target, walk),
                    _ => walk,
                }
            }
            SisVariant::CoreCpuSmt => self.sis_core_cpu_smt(task_id, target, llc, scanning_cpu),
            SisVariant::SinglePass => {
                self.sis_single_pass(task_id, prev, target, llc, scanning_cpu)
            }
        };
        result.llc = llc;
        let cost = result.scanned as u64 * self.costs.scan_per_cpu_ns;
        self.charge_overhead(scanning_cpu, cost);
        result
    }

    /// The cores of an LLC in the order of the domain's groups: starting with the
    /// target's core, then the following cores, wrapping.
    fn llc_cores_from(&self, llc: u32, target: CpuId) -> impl Iterator<Item = CoreId> + '_ {
        let cores = &self.topology.llc_core_list[llc as usize];
        let own = self.topology.core_of(target);
        let start = cores.iter().position(|core| *core == own).unwrap_or(0);
        (0..cores.len()).map(move |offset| cores[(start + offset) % cores.len()])
    }

    /// 4.6: walk down from the LLC domain. At the LLC level the groups are cores: take
    /// one whose threads are all idle (and that does not hold the target), its first
    /// CPU the task may use. At the SMT level the groups are single threads: an idle
    /// sibling of the target. Nothing else is looked at.
    fn sis_lower_domain_groups(&self, task_id: TaskId, target: CpuId, llc: u32) -> SisResult {
        let affinity = &self.tasks[task_id.0 as usize].affinity;
        let mut scanned = 0u32;
        let result = |cpu, step, scanned| SisResult {
            cpu,
            step,
            llc,
            scanned,
            limit: None,
        };
        let smt = self.topology.shape.threads_per_core > 1;
        if smt {
            for core in self.llc_cores_from(llc, target) {
                let threads = &self.topology.core_cpus[core.0 as usize];
                if !threads.intersects(affinity) {
                    continue;
                }
                let mut whole_group_idle = true;
                for thread in threads.iter() {
                    scanned += 1;
                    if thread == target || !self.cpu_is_idle(thread) {
                        whole_group_idle = false;
                        break;
                    }
                }
                if whole_group_idle {
                    let first = threads
                        .iter()
                        .find(|thread| affinity.contains(*thread))
                        .expect("the core intersects the mask");
                    self.explain(move |sim, rec| sim.explain_llc_groups(rec, task_id, target, llc));
                    return result(first, SisStep::IdleCore, scanned);
                }
            }
            self.explain(move |sim, rec| sim.explain_llc_groups(rec, task_id, target, llc));
            let (sibling, inspected) = self.select_idle_smt(task_id, target);
            scanned += inspected;
            if let Some(cpu) = sibling {
                return result(cpu, SisStep::IdleSibling, scanned);
            }
        } else {
            // Without SMT the LLC's groups are single CPUs: any idle one.
            let cpus = &self.topology.llc_cpu_list[llc as usize];
            for cpu in wrap_after(cpus, target) {
                if !affinity.contains(cpu) {
                    continue;
                }
                scanned += 1;
                if cpu != target && self.cpu_is_idle(cpu) {
                    self.explain(move |sim, rec| sim.explain_llc_groups(rec, task_id, target, llc));
                    return result(cpu, SisStep::IdleCpu, scanned);
                }
            }
            self.explain(move |sim, rec| sim.explain_llc_groups(rec, task_id, target, llc));
        }
        result(target, SisStep::NoneIdle, scanned)
    }

    /// The policy hook after 4.6's walk found nothing: seed 001's package scan.
    fn after_lower_domain_walk(
        &self,
        task_id: TaskId,
        target: CpuId,
        walk: SisResult,
    ) -> SisResult {
        let Some(scan) = self.sis_package_scan(task_id, target) else {
            return walk;
        };
        SisResult {
            cpu: scan.found.unwrap_or(target),
            step: SisStep::PackageScan {
                first: scan.first,
                last: scan.last,
                found: scan.found.is_some(),
            },
            llc: walk.llc,
            scanned: walk.scanned + scan.inspected,
            limit: None,
        }
    }

    /// 4.9-5.11: `select_idle_core()`, `select_idle_cpu()`, `select_idle_smt()`.
    fn sis_core_cpu_smt(
        &mut self,
        task_id: TaskId,
        target: CpuId,
        llc: u32,
        scanning_cpu: CpuId,
    ) -> SisResult {
        let mut scanned = 0u32;
        self.explain(move |sim, rec| sim.explain_no_idle_core(rec, llc));
        if self.topology.shape.threads_per_core > 1 && self.llc_has_idle_core(llc) {
            let (core_cpu, _, inspected) = self.scan_idle_cores(task_id, target, llc);
            scanned += inspected;
            if let Some(cpu) = core_cpu {
                return SisResult::new(cpu, SisStep::IdleCore, llc, scanned, None);
            }
        }
        let (found, inspected, limit) = self.select_idle_cpu(task_id, target, llc, scanning_cpu);
        scanned += inspected;
        if let Some(cpu) = found {
            return SisResult::new(cpu, SisStep::IdleCpu, llc, scanned, limit);
        }
        let (sibling, inspected) = self.select_idle_smt(task_id, target);
        scanned += inspected;
        SisResult {
            cpu: sibling.unwrap_or(target),
            step: if sibling.is_some() {
                SisStep::IdleSibling
            } else {
                SisStep::NoneIdle
            },
            llc,
            scanned,
            limit,
        }
    }

    /// 5.12+: one pass over the LLC.
    fn sis_single_pass(
        &mut self,
        task_id: TaskId,
        prev: CpuId,
        target: CpuId,
        llc: u32,
        scanning_cpu: CpuId,
    ) -> SisResult {
        let smt = self.topology.shape.threads_per_core > 1;
        let has_idle_core = smt && self.llc_has_idle_core(llc);
        let mut scanned = 0u32;
        self.explain(move |sim, rec| sim.explain_no_idle_core(rec, llc));
        if has_idle_core {
            // The idle-core search ignores the scan bound and remembers any idle CPU.
            let (core_cpu, any_idle, inspected) = self.scan_idle_cores(task_id, target, llc);
            let (cpu, step) = match (core_cpu, any_idle) {
                (Some(cpu), _) => (cpu, SisStep::IdleCore),
                (None, Some(cpu)) => (cpu, SisStep::IdleCpu),
                (None, None) => (target, SisStep::NoneIdle),
            };
            return SisResult {
                cpu,
                step,
                llc,
                scanned: inspected,
                limit: None,
            };
        }
        if smt && self.topology.llc_of(prev).0 == llc {
            // select_idle_smt(prev): the previous CPU's core is cache-warm.
            let (sibling, inspected) = self.select_idle_smt(task_id, prev);
            scanned += inspected;
            if let Some(cpu) = sibling {
                return SisResult::new(cpu, SisStep::IdleSibling, llc, scanned, None);
            }
        }
        let (found, inspected, limit) = self.select_idle_cpu(task_id, target, llc, scanning_cpu);
        scanned += inspected;
        SisResult {
            cpu: found.unwrap_or(target),
            step: if found.is_some() {
                SisStep::IdleCpu
            } else {
                SisStep::NoneIdle
            },
            llc,
            scanned,
            limit,
        }
    }

    /// `select_idle_smt()`: an idle SMT sibling of `cpu` the task may use, and how
    /// many siblings were inspected.
    fn select_idle_smt(&self, task_id: TaskId, cpu: CpuId) -> (Option<CpuId>, u32) {
        let affinity = &self.tasks[task_id.0 as usize].affinity;
        let mut inspected = 0u32;
        for sibling in self.topology.siblings(cpu) {
            inspected += 1;
            if affinity.contains(sibling) && self.cpu_is_idle(sibling) {
                self.explain(move |sim, rec| sim.explain_idle_smt(rec, task_id, cpu));
                return (Some(sibling), inspected);
            }
        }
        self.explain(move |sim, rec| sim.explain_idle_smt(rec, task_id, cpu));
        (None, inspected)
    }

    /// `select_idle_core()` over the LLC, wrapping from after the target: the first
    /// CPU of a core whose threads are all idle, and (for the single pass) the first
    /// idle CPU seen. Returns them and how many CPUs were inspected.
    fn scan_idle_cores(
        &self,
        task_id: TaskId,
        target: CpuId,
        llc: u32,
    ) -> (Option<CpuId>, Option<CpuId>, u32) {
        let affinity = &self.tasks[task_id.0 as usize].affinity;
        let cpus = &self.topology.llc_cpu_list[llc as usize];
        let mut seen_cores: Vec<CoreId> = Vec::new();
        let mut any_idle = None;
        let mut scanned = 0u32;
        for cpu in wrap_after(cpus, target) {
            if !affinity.contains(cpu) {
                continue;
            }
            let core = self.topology.core_of(cpu);
            if seen_cores.contains(&core) {
                continue;
            }
            seen_cores.push(core);
            let threads = &self.topology.core_cpus[core.0 as usize];
            scanned += threads.len() as u32;
            let all_idle = threads.iter().all(|thread| self.cpu_is_idle(thread));
            let allowed_idle = threads
                .iter()
                .find(|thread| affinity.contains(*thread) && self.cpu_is_idle(*thread));
            if all_idle && allowed_idle.is_some() {
                self.explain(move |sim, rec| sim.explain_idle_cores(rec, task_id, target, llc));
                return (allowed_idle, any_idle, scanned);
            }
            if any_idle.is_none() {
                any_idle = allowed_idle;
            }
        }
        self.explain(move |sim, rec| sim.explain_idle_cores(rec, task_id, target, llc));
        (None, any_idle, scanned)
    }

    /// `select_idle_cpu()`: scan the LLC's CPUs, wrapping from after the target, for
    /// an idle one, within the version's bound. Returns the CPU, how many CPUs were
    /// inspected, and the bound when there was one.
    fn select_idle_cpu(
        &mut self,
        task_id: TaskId,
        target: CpuId,
        llc: u32,
        scanning_cpu: CpuId,
    ) -> (Option<CpuId>, u32, Option<u32>) {
        let bound = self.idle_scan_bound(llc, scanning_cpu);
        let (found, scanned, _) = self.select_idle_cpu_with_bound(task_id, target, llc, bound);
        // The waker's LLC keeps a running average of what a scan costs.
        let cost = scanned as u64 * self.costs.scan_per_cpu_ns;
        let waker_llc = self.topology.llc_of(scanning_cpu).0 as usize;
        let avg = &mut self.llc_avg_scan_cost[waker_llc];
        *avg = (*avg as i64 + (cost as i64 - *avg as i64) / 8) as u64;
        (found, scanned, bound)
    }

    /// The scan of `select_idle_cpu()` under a given bound (`None`: unbounded).
    pub(crate) fn select_idle_cpu_with_bound(
        &self,
        task_id: TaskId,
        target: CpuId,
        llc: u32,
        bound: Option<u32>,
    ) -> (Option<CpuId>, u32, Option<u32>) {
        let affinity = &self.tasks[task_id.0 as usize].affinity;
        // Before 5.6 (SIS_PROP's form here) every CPU of the span used up the bound,
        // allowed or not; SIS_UTIL (6.0+) scans only the CPUs the task may use.
        let disallowed_count = self.features.sis_prop && !self.features.sis_util;
        // The loop tests each CPU's idleness; the idle mask gives the same first
        // idle CPU and count a word at a time.
        let scan = crate::cpuset::scan_wrap(
            &self.topology.llc_cpus[llc as usize],
            affinity,
            &self.idle_cores.mask,
            target,
            disallowed_count,
            bound,
        );
        debug_assert_eq!(
            scan,
            crate::cpuset::scan_wrap_by_cpu(
                &self.topology.llc_cpus[llc as usize],
                affinity,
                |cpu, _| self.cpu_is_idle(cpu),
                target,
                disallowed_count,
                bound,
            ),
            "select_idle_cpu: the idle mask and the per-CPU test disagree"
        );
        let (found, scanned) = (scan.found, scan.scanned);
        self.explain(move |sim, rec| sim.explain_idle_cpu(rec, task_id, target, llc, bound));
        (found, scanned, bound)
    }

    /// How many CPUs `select_idle_cpu()` may inspect: `None` is unbounded.
    fn idle_scan_bound(&self, llc: u32, scanning_cpu: CpuId) -> Option<u32> {
        if self.features.sis_util {
            // nr = nr_idle_scan + 1, and the loop stops at `!--nr`.
            let limit = self.sis_util_scan_limit(llc);
            let hint = self.llc_idle_scan[llc as usize];
            self.explain(move |_, rec| {
                let fraction = hint.per_cpu_util as f64 / CAPACITY_SCALE;
                let source = match hint.set {
                    Some((at, cpu)) => format!(
                        "CPU {}'s periodic balance of LLC {llc} at {at} s saw it {:.0} % utilised",
                        cpu.0,
                        fraction * 100.0
                    ),
                    None => format!("no periodic balance of LLC {llc} yet: the idle start value"),
                };
                rec.push(StepDetail::ScanBound {
                    feature: "SIS_UTIL",
                    limit,
                    why: format!(
                        "{source}: nr_idle_scan = {} CPUs x (1 - ({fraction:.2} x 1.17)^2) = {limit}",
                        hint.weight
                    ),
                });
            });
            return Some(limit);
        }
        let avg_idle = self.cpus[scanning_cpu.0 as usize].avg_idle_ns / 512;
        let waker_llc = self.topology.llc_of(scanning_cpu).0 as usize;
        let avg_cost = self.llc_avg_scan_cost[waker_llc] + 1;
        if self.features.sis_avg_cpu && avg_idle < avg_cost {
            self.explain(move |_, rec| {
                rec.push(StepDetail::ScanBound {
                    feature: "SIS_AVG_CPU",
                    limit: 0,
                    why: format!("the waker's CPU avg_idle / 512 = {avg_idle} < average scan cost + 1 = {avg_cost}"),
                });
            });
            return Some(0);
        }
        if self.features.sis_prop {
            let span = self.topology.llc_cpus[llc as usize].len() as u64;
            let span_avg = span * avg_idle;
            let nr = if span_avg > 4 * avg_cost {
                span_avg / avg_cost
            } else {
                4
            };
            let limit = (nr - 1).min(u32::MAX as u64) as u32;
            self.explain(move |_, rec| {
                rec.push(StepDetail::ScanBound {
                    feature: "SIS_PROP",
                    limit,
                    why: format!("{span} CPUs x avg_idle / 512 = {span_avg}, average scan cost + 1 = {avg_cost}: nr = {nr} (at least 4), the loop stops at --nr == 0"),
                });
            });
            return Some(limit);
        }
        None
    }

    /// `test_idle_cores()`: the kernel keeps a per-LLC "has idle cores" hint; here
    /// it is exact, counted as CPUs go idle and busy (`IdleCores`).
    pub(crate) fn llc_has_idle_core(&self, llc: u32) -> bool {
        let counted = self.idle_cores.llc_has_idle_core(llc);
        debug_assert_eq!(counted, self.llc_has_idle_core_by_scan(llc), "LLC {llc}");
        counted
    }

    /// The same by looking at every core of the LLC.
    pub(crate) fn llc_has_idle_core_by_scan(&self, llc: u32) -> bool {
        let mut seen = Vec::new();
        for cpu in self.topology.llc_cpus[llc as usize].iter() {
            let core = self.topology.core_of(cpu);
            if seen.contains(&core) {
                continue;
            }
            seen.push(core);
            if self.topology.core_cpus[core.0 as usize]
                .iter()
                .all(|thread| self.cpu_is_idle(thread))
            {
                return true;
            }
        }
        false
    }

    /// SIS_UTIL's bound: the LLC's `nr_idle_scan`, as the last periodic balance of
    /// the LLC domain set it.
    pub(crate) fn sis_util_scan_limit(&self, llc: u32) -> u32 {
        self.llc_idle_scan[llc as usize].nr
    }

    /// `update_idle_cpu_scan()` (6.0+), from `update_sd_lb_stats()`: a periodic (not
    /// newidle) `load_balance()` of the LLC domain refreshes the LLC's hint. With `x`
    /// the LLC's utilisation per CPU and `pct` the domain's `imbalance_pct` (117),
    /// `nr_idle_scan = llc_weight * (1 - min((x * pct / 100)^2, 1))`, in the kernel's
    /// integer steps: none from about 85 % busy.
    pub(crate) fn update_idle_cpu_scan(&mut self, this_cpu: CpuId, level: usize) {
        let domains = self.domains.of(this_cpu);
        if crate::domains::llc_level(domains) != Some(level) {
            return;
        }
        let sd = &domains[level];
        let weight = sd.span.len() as u64;
        // `sum_util`: the groups' `group_util`, each the sum of its CPUs' `cpu_util_cfs`.
        let sum_util: u64 = sd.span.iter().map(|cpu| self.cpu_util(cpu) as u64).sum();
        let pct = sd.imbalance_pct as u64;
        let x = sum_util / weight.max(1);
        let tmp = (x * x * pct * pct / (10_000 * CAPACITY_SCALE as u64)).min(CAPACITY_SCALE as u64);
        let nr = ((CAPACITY_SCALE as u64 - tmp) * weight / CAPACITY_SCALE as u64) as u32;
        let llc = self.topology.llc_of(this_cpu).0 as usize;
        self.llc_idle_scan[llc] = IdleScanHint {
            nr,
            weight: weight as u32,
            per_cpu_util: x as u32,
            set: Some((self.now(), this_cpu)),
        };
    }
}

/// For the decision inspector: each scan above replayed, read-only, to record the
/// CPUs it inspected in order and what each was. They run only while a decision
/// is recorded (through `Simulator::explain`), after the scan they mirror, so the
/// scans themselves stay as they were; each replay follows its scan's loop exactly.
impl Simulator {
    /// The target is not allowed: it, then the allowed CPUs up to the first idle one.
    fn explain_affinity_fallback(
        &self,
        rec: &Recorder,
        task_id: TaskId,
        target: CpuId,
        idle: Option<CpuId>,
        first: CpuId,
    ) {
        let mut cpus = vec![self.visit(task_id, target)];
        for cpu in self.tasks[task_id.0 as usize].affinity.iter() {
            cpus.push(self.visit(task_id, cpu));
            if Some(cpu) == idle {
                break;
            }
        }
        let why = match idle {
            Some(cpu) => format!(
                "target CPU {} is not allowed: the first idle allowed CPU is {}",
                target.0, cpu.0
            ),
            None => format!(
                "target CPU {} is not allowed and no allowed CPU is idle: the first allowed, CPU {}",
                target.0, first.0
            ),
        };
        rec.push(scan_step(
            ScanKind::AffinityFallback,
            target,
            None,
            None,
            cpus,
            idle,
            why,
        ));
    }

    /// One CPU checked on its own: the target, the previous CPU or `recent_used_cpu`.
    fn explain_single(
        &self,
        rec: &Recorder,
        scan: ScanKind,
        task_id: TaskId,
        cpu: CpuId,
        llc: u32,
    ) {
        let visit = self.visit(task_id, cpu);
        let take = matches!(visit.state, CpuState::Idle | CpuState::IdleCore);
        let state = match visit.state {
            CpuState::NotAllowed => "is not allowed".to_string(),
            CpuState::Offline => "is offline".to_string(),
            CpuState::WakePending => {
                "has a wakeup pending on its wake list (ttwu_pending): not idle".to_string()
            }
            CpuState::Busy => format!("is busy ({} running)", visit.nr_running),
            CpuState::Idle | CpuState::IdleCore => "is idle: take it".to_string(),
        };
        let why = match scan {
            ScanKind::Target => format!("target CPU {} {state}", cpu.0),
            ScanKind::Prev => format!(
                "previous CPU {} shares the target's LLC {llc} and {state}",
                cpu.0
            ),
            _ => format!(
                "recently used CPU {} (recent_used_cpu) shares the LLC and {state}",
                cpu.0
            ),
        };
        rec.push(scan_step(
            scan,
            cpu,
            Some(llc),
            None,
            vec![visit],
            take.then_some(cpu),
            why,
        ));
    }

    /// `sis_lower_domain_groups`: the LLC's cores from the target's (each up to its
    /// first busy thread or the target), or without SMT its CPUs after the target.
    fn explain_llc_groups(&self, rec: &Recorder, task_id: TaskId, target: CpuId, llc: u32) {
        let affinity = &self.tasks[task_id.0 as usize].affinity;
        let mut cpus = Vec::new();
        let mut found = None;
        let why = if self.topology.shape.threads_per_core > 1 {
            for core in self.llc_cores_from(llc, target) {
                let threads = &self.topology.core_cpus[core.0 as usize];
                if !threads.intersects(affinity) {
                    continue;
                }
                let mut whole_group_idle = true;
                for thread in threads.iter() {
                    cpus.push(self.visit(task_id, thread));
                    if thread == target || !self.cpu_is_idle(thread) {
                        whole_group_idle = false;
                        break;
                    }
                }
                if whole_group_idle {
                    found = threads.iter().find(|thread| affinity.contains(*thread));
                    break;
                }
            }
            match found {
                Some(cpu) => format!(
                    "4.6 walk of LLC {llc}'s cores from the target's: every thread of CPU {}'s core is idle: CPU {}",
                    cpu.0, cpu.0
                ),
                None => format!("4.6 walk of LLC {llc}'s cores from the target's: no core has every thread idle (each has a busy thread or the target)"),
            }
        } else {
            let llc_cpus = &self.topology.llc_cpu_list[llc as usize];
            for cpu in wrap_after(llc_cpus, target) {
                if !affinity.contains(cpu) {
                    continue;
                }
                cpus.push(self.visit(task_id, cpu));
                if cpu != target && self.cpu_is_idle(cpu) {
                    found = Some(cpu);
                    break;
                }
            }
            match found {
                Some(cpu) => format!(
                    "4.6 walk of LLC {llc}'s CPUs after the target: idle CPU {}",
                    cpu.0
                ),
                None => format!("4.6 walk of LLC {llc}'s CPUs after the target: none idle"),
            }
        };
        rec.push(scan_step(
            ScanKind::LlcGroups,
            target,
            Some(llc),
            None,
            cpus,
            found,
            why,
        ));
    }

    /// On an SMT machine, when the LLC has no idle core, the idle-core search is skipped.
    fn explain_no_idle_core(&self, rec: &Recorder, llc: u32) {
        if self.topology.shape.threads_per_core > 1 && !self.llc_has_idle_core(llc) {
            rec.push(scan_step(
                ScanKind::IdleCore,
                self.topology.llc_cpus[llc as usize]
                    .first()
                    .expect("an LLC has CPUs"),
                Some(llc),
                None,
                Vec::new(),
                None,
                format!(
                    "LLC {llc} has no idle core (test_idle_cores): select_idle_core is skipped"
                ),
            ));
        }
    }

    /// `select_idle_smt`: the siblings of `cpu` up to the first idle allowed one.
    fn explain_idle_smt(&self, rec: &Recorder, task_id: TaskId, cpu: CpuId) {
        let affinity = &self.tasks[task_id.0 as usize].affinity;
        let mut cpus = Vec::new();
        let mut found = None;
        for sibling in self.topology.siblings(cpu) {
            cpus.push(self.visit(task_id, sibling));
            if affinity.contains(sibling) && self.cpu_is_idle(sibling) {
                found = Some(sibling);
                break;
            }
        }
        if cpus.is_empty() {
            return; // no SMT siblings
        }
        let why = match found {
            Some(sibling) => format!(
                "select_idle_smt: CPU {}'s SMT sibling CPU {} is idle",
                cpu.0, sibling.0
            ),
            None => format!("select_idle_smt: no idle SMT sibling of CPU {}", cpu.0),
        };
        rec.push(scan_step(
            ScanKind::IdleSmt,
            cpu,
            None,
            None,
            cpus,
            found,
            why,
        ));
    }

    /// `select_idle_core`: whole cores, wrapping after the target, up to the first
    /// wholly idle one; the single pass (5.12+) keeps the first idle CPU it saw.
    fn explain_idle_cores(&self, rec: &Recorder, task_id: TaskId, target: CpuId, llc: u32) {
        let affinity = &self.tasks[task_id.0 as usize].affinity;
        let llc_cpus = &self.topology.llc_cpu_list[llc as usize];
        let mut seen_cores: Vec<CoreId> = Vec::new();
        let mut any_idle = None;
        let mut core_cpu = None;
        let mut cpus = Vec::new();
        for cpu in wrap_after(llc_cpus, target) {
            if !affinity.contains(cpu) {
                continue;
            }
            let core = self.topology.core_of(cpu);
            if seen_cores.contains(&core) {
                continue;
            }
            seen_cores.push(core);
            let threads = &self.topology.core_cpus[core.0 as usize];
            cpus.extend(threads.iter().map(|thread| self.visit(task_id, thread)));
            let all_idle = threads.iter().all(|thread| self.cpu_is_idle(thread));
            let allowed_idle = threads
                .iter()
                .find(|thread| affinity.contains(*thread) && self.cpu_is_idle(*thread));
            if all_idle && allowed_idle.is_some() {
                core_cpu = allowed_idle;
                break;
            }
            if any_idle.is_none() {
                any_idle = allowed_idle;
            }
        }
        let single_pass = self.features.select_idle_sibling == SisVariant::SinglePass;
        let remembered = any_idle.filter(|_| single_pass && core_cpu.is_none());
        let why = match (core_cpu, remembered) {
            (Some(cpu), _) => format!(
                "select_idle_core over LLC {llc}, wrapping after CPU {}: every thread of CPU {}'s core is idle: CPU {}",
                target.0, cpu.0, cpu.0
            ),
            (None, Some(cpu)) => format!(
                "select_idle_core over LLC {llc}, wrapping after CPU {}: no core is wholly idle; the first idle CPU seen was CPU {}",
                target.0, cpu.0
            ),
            (None, None) => format!(
                "select_idle_core over LLC {llc}, wrapping after CPU {}: no core is wholly idle",
                target.0
            ),
        };
        rec.push(scan_step(
            ScanKind::IdleCore,
            target,
            Some(llc),
            None,
            cpus,
            core_cpu.or(remembered),
            why,
        ));
    }

    /// `select_idle_cpu`: the LLC's CPUs wrapping after the target, within the bound
    /// (before 6.0 a CPU the task may not use still counts against it).
    fn explain_idle_cpu(
        &self,
        rec: &Recorder,
        task_id: TaskId,
        target: CpuId,
        llc: u32,
        bound: Option<u32>,
    ) {
        let affinity = &self.tasks[task_id.0 as usize].affinity;
        let disallowed_count = self.features.sis_prop && !self.features.sis_util;
        // The decision's own loop, recording every CPU it counts.
        let mut cpus = Vec::new();
        let found = crate::cpuset::scan_wrap_by_cpu(
            &self.topology.llc_cpus[llc as usize],
            affinity,
            |cpu, allowed| {
                cpus.push(self.visit(task_id, cpu));
                allowed && self.cpu_is_idle(cpu)
            },
            target,
            disallowed_count,
            bound,
        )
        .found;
        let limit = match bound {
            Some(limit) => format!(" (limit {limit})"),
            None => " (unbounded)".to_string(),
        };
        let looked = cpus.len() as u32;
        let why = match found {
            Some(cpu) => format!(
                "select_idle_cpu over LLC {llc}, wrapping after CPU {}{limit}: idle CPU {} after {looked}",
                target.0, cpu.0
            ),
            None if looked == 0 => format!("select_idle_cpu over LLC {llc}{limit}: nothing scanned"),
            None => format!(
                "select_idle_cpu over LLC {llc}, wrapping after CPU {}{limit}: none idle among {looked} CPU{}",
                target.0,
                plural(looked)
            ),
        };
        rec.push(scan_step(
            ScanKind::IdleCpu,
            target,
            Some(llc),
            bound,
            cpus,
            found,
            why,
        ));
    }
}

/// `for_each_cpu_wrap(cpu, cpus, target + 1)`: the CPUs after `target`, wrapping,
/// `target` last.
fn wrap_after(cpus: &[CpuId], target: CpuId) -> impl Iterator<Item = CpuId> + '_ {
    let start = cpus.iter().position(|cpu| *cpu == target).unwrap_or(0);
    (1..=cpus.len()).map(move |offset| cpus[(start + offset) % cpus.len()])
}
