//! The decision inspector: why a wakeup or a fork went to the CPU it did, step by
//! step, with the numbers each step compared.
//!
//! Nothing is recorded while a simulation plays. [`Simulator::explain_record`]
//! re-runs the scenario from time 0 (the same scenario and seed give the same
//! schedule, so no history is stored) with a [`Recorder`] armed for one trace
//! record; the baseline paths (`baseline::wakeup`, `sis`, `fork`) and the policies'
//! hooks push their steps only while the recorder is collecting the decision that
//! emits that record. When no recorder is armed each hook is one test of a `None`.
//! Recording only reads the simulator: it never draws a random number or changes a
//! decision, so the trace hash is the same with and without it (tested below).
//!
//! A decision's trace records: a wakeup emits `sched_waking` (before the choice), a
//! `sched_migrate_task` when the CPU changes, then `sched_wakeup`; a fork emits
//! `sched_wakeup_new`. Any of them names the decision.

use crate::cpuset::CpuSet;
use crate::engine::Simulator;
use crate::scenario::Scenario;
use crate::task::TaskId;
use crate::topology::CpuId;
use crate::trace::{Reason, TraceKind, TraceRecord};
use serde::Serialize;
use std::sync::{Mutex, MutexGuard, PoisonError};

/// What was placed: a woken task or a new one.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum DecisionKind {
    Wakeup,
    Fork,
}

/// One placement decision, explained.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Decision {
    /// The trace record asked about (0-based over every record of the run).
    pub record_index: u64,
    /// That record's ftrace event name.
    pub event: &'static str,
    pub kind: DecisionKind,
    pub pid: u32,
    pub comm: String,
    pub time_ns: u64,
    /// The kernel version whose paths ran.
    pub kernel: String,
    /// The CPU the decision ran on: the waker's CPU, or the CPU the fork came from.
    pub from_cpu: u32,
    /// The CPU the task last ran on (wakeups).
    pub prev_cpu: Option<u32>,
    /// The CPUs the task may run on, at the time of the decision.
    pub allowed_cpus: Vec<u32>,
    /// The indexes and event names of this decision's trace records.
    pub records: Vec<DecisionRecord>,
    pub steps: Vec<DecisionStep>,
    pub chosen_cpu: u32,
    /// The model's one-line reason, as the trace shows it.
    pub summary: String,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub struct DecisionRecord {
    pub index: u64,
    pub event: &'static str,
}

/// One step: a sentence with its numbers, and the numbers themselves.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct DecisionStep {
    pub text: String,
    #[serde(flatten)]
    pub detail: StepDetail,
}

/// What a CPU was when a scan looked at it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum CpuState {
    /// Running or holding a task.
    Busy,
    /// Idle, on a core with a busy thread (or without SMT).
    Idle,
    /// Idle, and every thread of its core is idle.
    IdleCore,
    /// Not in the task's allowed CPUs.
    NotAllowed,
    /// Taken offline (CPU hotplug): never chosen.
    Offline,
    /// Nothing runs or waits yet, but a wakeup is queued on its wake list
    /// (`rq->ttwu_pending`), so `idle_cpu()` says it is not idle.
    WakePending,
}

impl CpuState {
    pub fn label(self) -> &'static str {
        match self {
            CpuState::Busy => "busy",
            CpuState::Idle => "idle",
            CpuState::IdleCore => "idle core",
            CpuState::NotAllowed => "not allowed",
            CpuState::Offline => "offline",
            CpuState::WakePending => "wakeup pending",
        }
    }
}

/// One CPU a scan inspected.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub struct CpuVisit {
    pub cpu: u32,
    pub state: CpuState,
    /// Tasks on its runqueue, the running one included.
    pub nr_running: u32,
}

/// Which look at CPUs a [`StepDetail::Scan`] was.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum ScanKind {
    /// `select_idle_sibling`: the target CPU itself.
    Target,
    /// The previous CPU, when it shares the target's LLC.
    Prev,
    /// `recent_used_cpu` (4.16+).
    RecentUsed,
    /// The target is not allowed: the first idle allowed CPU, else the first allowed.
    AffinityFallback,
    /// 4.6: the LLC domain's groups (cores, or CPUs without SMT).
    LlcGroups,
    /// `select_idle_core()`.
    IdleCore,
    /// `select_idle_cpu()`.
    IdleCpu,
    /// `select_idle_smt()`.
    IdleSmt,
    /// Seed 001's package scan (`policy.sis_scan`).
    PackageScan,
    /// Fork: `find_idlest_group_cpu()` in the chosen group.
    IdlestGroupCpu,
}

/// Why `wake_affine` was not tried.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum AffineSkip {
    /// `policy.wake_affine` is off.
    PolicyOff,
    /// No waking task: a timer, or an affinity change.
    NoWaker,
    /// `wake_wide()` said the waker wakes many tasks.
    WakeWide,
    /// The waker's CPU is not in the task's allowed CPUs.
    WakerCpuNotAllowed,
    /// The waker runs on the task's previous CPU.
    SameCpu,
    /// No domain of the waker's CPU with SD_WAKE_AFFINE spans the previous CPU.
    NoDomain,
}

/// A scheduling group's figures as `find_idlest_group` saw them.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct GroupRow {
    /// The group's CPUs, as a list (`0-7,64-71`).
    pub cpus: String,
    /// It holds the CPU the search runs from.
    pub local: bool,
    /// The idlest of the other groups.
    pub idlest: bool,
    /// CPUs of the group the task may use; a group with none is not compared.
    pub allowed_cpus: u32,
    pub weight: u32,
    pub sum_nr_running: u32,
    pub idle_cpus: u32,
    /// `group_classify()` (5.5+ only): `has_spare`, `fully_busy`, `overloaded`.
    pub group_type: Option<&'static str>,
    /// Runqueue weight per CPU, scaled by 1024.
    pub avg_load: u64,
    /// PELT utilisation as a percentage of the group's capacity.
    pub util_pct: u32,
}

/// One core TurboSched's search looked at.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct TurboCore {
    pub core: u32,
    /// Its utilisation, in % of its SMT-aware capacity.
    pub util_pct: u32,
    /// `not busy`, `too full`, `no allowed thread` or `packed`.
    pub verdict: &'static str,
}

/// The numbers of one step.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(tag = "step", rename_all = "snake_case")]
pub enum StepDetail {
    /// The task may use one CPU only: `select_task_rq` is skipped.
    Pinned { cpu: u32 },
    /// `wake_wide()`.
    WakeWide {
        waker_flips: u32,
        wakee_flips: u32,
        llc_size: u32,
        wide: bool,
    },
    /// `wake_affine` was not tried.
    AffineNotTried {
        cause: AffineSkip,
        waker_cpu: u32,
        prev_cpu: u32,
    },
    /// `wake_affine` compared the waker's CPU with the previous CPU.
    WakeAffine {
        /// `4.6` (one load comparison) or `4.14` (idle, then weight).
        form: &'static str,
        domain: String,
        waker_cpu: u32,
        prev_cpu: u32,
        /// Which test decided: `empty_waker_cpu`, `load`, `wa_idle`, `wa_idle_sync`,
        /// `wa_idle_prev_idle`, `wa_weight_off`, `wa_weight_sync`, `wa_weight`.
        test: &'static str,
        chose_waker: bool,
        this_load: Option<i64>,
        prev_load: Option<i64>,
        task_weight: Option<i64>,
        this_eff: Option<i64>,
        prev_eff: Option<i64>,
        /// Why, in words (serialised as the step's `text`).
        #[serde(skip_serializing)]
        why: String,
    },
    /// Where `select_idle_sibling` starts.
    Target {
        cpu: u32,
        prev_cpu: u32,
        waker_cpu: u32,
    },
    /// How many CPUs `select_idle_cpu` may look at.
    ScanBound {
        /// `SIS_UTIL`, `SIS_PROP` or `SIS_AVG_CPU`.
        feature: &'static str,
        limit: u32,
        /// Why, in words (serialised as the step's `text`).
        #[serde(skip_serializing)]
        why: String,
    },
    /// CPUs looked at, in order, and what each was.
    Scan {
        scan: ScanKind,
        /// The CPU the scan is about: the target, or whose siblings are looked at.
        of_cpu: u32,
        llc: Option<u32>,
        limit: Option<u32>,
        cpus: Vec<CpuVisit>,
        found: Option<u32>,
        /// Why, in words (serialised as the step's `text`).
        #[serde(skip_serializing)]
        why: String,
    },
    /// `should_scan_idle()`, the gate of seed 001's package scan.
    PackageScanGate {
        gate: bool,
        target_cpu: u32,
        target_nr_running: u32,
        cache_hot: bool,
        scans: bool,
    },
    /// Fork: where `find_idlest_cpu` starts.
    ForkStart { parent_cpu: u32, start_cpu: u32 },
    /// Fork: one domain level and its groups' figures.
    Domain {
        level: String,
        cpu: u32,
        span: String,
        imbalance_pct: u32,
        groups: Vec<GroupRow>,
    },
    /// Fork: the NUMA imbalance rule of the kernel version.
    NumaRule {
        /// `5.5`, `5.11`, `5.18` or `6.0`.
        rule: &'static str,
        local_running: u32,
        /// The most tasks the local node may hold after the fork: the allowance.
        allowance: u32,
        imb_numa_nr: u32,
        /// CPUs of the local node the task may use (the affinity-limited allowance).
        allowed_in_local: u32,
        /// The allowance was limited to `allowed_in_local` (policy or 6.0 rule).
        affinity_limited: bool,
        /// 6.0: the idle-CPU difference between the groups.
        idle_difference: Option<u32>,
        keeps_local: bool,
        /// Why, in words (serialised as the step's `text`).
        #[serde(skip_serializing)]
        why: String,
    },
    /// Fork: which group `find_idlest_group` chose at a level.
    GroupChoice {
        level: String,
        keep_local: bool,
        /// The chosen remote group's CPUs.
        group: Option<String>,
        /// Why, in words (serialised as the step's `text`).
        #[serde(skip_serializing)]
        why: String,
    },
    /// TurboSched's search (`turbosched_select_idle_sibling`): the cores of the
    /// domain in CPU order, each with its utilisation and the verdict, until one
    /// busy core can take the jitter task.
    TurboPack {
        /// `node 0`, `socket 1`, `LLC 2`.
        domain: String,
        /// A core is busy above this share of its capacity, in permille (125: 12.5 %).
        threshold_permille: u32,
        task_util_pct: u32,
        cores: Vec<TurboCore>,
        /// None: no busy core fits, the default path places the task.
        chosen_cpu: Option<u32>,
    },
    /// The CPU chosen is offline: `select_fallback_rq()` moved the task.
    Fallback {
        from: u32,
        to: u32,
        broke_affinity: bool,
    },
}

impl StepDetail {
    /// The step as one sentence, with its numbers.
    pub fn describe(&self) -> String {
        match self {
            StepDetail::Pinned { cpu } => format!(
                "the task may run only on CPU {cpu} (nr_cpus_allowed == 1): select_task_rq is skipped"
            ),
            StepDetail::WakeWide {
                waker_flips,
                wakee_flips,
                llc_size,
                wide,
            } => {
                let (master, slave) = if waker_flips >= wakee_flips {
                    (waker_flips, wakee_flips)
                } else {
                    (wakee_flips, waker_flips)
                };
                if *wide {
                    format!("wake_wide: waker flips {waker_flips}, wakee flips {wakee_flips}, LLC size {llc_size}: {slave} >= {llc_size} and {master} >= {slave} x {llc_size}, so the waker wakes many tasks and does not pull this one")
                } else if slave < llc_size {
                    format!("wake_wide: waker flips {waker_flips}, wakee flips {wakee_flips}: {slave} < LLC size {llc_size}, not wide")
                } else {
                    format!("wake_wide: waker flips {waker_flips}, wakee flips {wakee_flips}: {master} < {slave} x LLC size {llc_size}, not wide")
                }
            }
            StepDetail::AffineNotTried {
                cause,
                waker_cpu,
                prev_cpu,
            } => match cause {
                AffineSkip::PolicyOff => format!("wake_affine is switched off (policy.wake_affine): target = previous CPU {prev_cpu}"),
                AffineSkip::NoWaker => format!("no waking task (a timer or an affinity change): target = previous CPU {prev_cpu}"),
                AffineSkip::WakeWide => format!("wake_wide: wake_affine not tried, target = previous CPU {prev_cpu}"),
                AffineSkip::WakerCpuNotAllowed => format!("the waker's CPU {waker_cpu} is not allowed for the task: target = previous CPU {prev_cpu}"),
                AffineSkip::SameCpu => format!("the waker runs on the previous CPU {prev_cpu}: target = CPU {prev_cpu}"),
                AffineSkip::NoDomain => format!("no domain of the waker's CPU {waker_cpu} with SD_WAKE_AFFINE spans previous CPU {prev_cpu}: target = previous CPU {prev_cpu}"),
            },
            StepDetail::WakeAffine {
                form, domain, why, ..
            } => format!("wake_affine (its {form} form, {domain} domain): {why}"),
            StepDetail::Target {
                cpu,
                prev_cpu,
                waker_cpu,
            } => {
                let whose = if cpu == waker_cpu && cpu != prev_cpu {
                    "the waker's CPU"
                } else {
                    "the previous CPU"
                };
                format!("select_idle_sibling starts at target CPU {cpu} ({whose})")
            }
            StepDetail::ScanBound {
                feature,
                limit,
                why,
            } => format!("{feature}: {why}: select_idle_cpu may look at {limit} CPU{}", plural(*limit)),
            StepDetail::Scan { why, .. } => why.clone(),
            StepDetail::PackageScanGate {
                gate,
                target_cpu,
                target_nr_running,
                cache_hot,
                scans,
            } => {
                if !gate {
                    "package scan (seed 001) without its gate (policy.sis_scan.gate false): scan".to_string()
                } else {
                    format!(
                        "should_scan_idle: target CPU {target_cpu} runs {target_nr_running} task{} ({}), the task is {}: {}",
                        plural(*target_nr_running),
                        if *target_nr_running > 1 { "more than 1" } else { "at most 1" },
                        if *cache_hot { "cache-hot" } else { "not cache-hot" },
                        if *scans { "scan the package" } else { "no scan" }
                    )
                }
            }
            StepDetail::ForkStart {
                parent_cpu,
                start_cpu,
            } => {
                if parent_cpu == start_cpu {
                    format!("forked on CPU {parent_cpu}: find_idlest_cpu starts there, at the widest domain with SD_BALANCE_FORK")
                } else {
                    format!("forked on CPU {parent_cpu}, which the task may not use: find_idlest_cpu starts at its first allowed CPU {start_cpu}")
                }
            }
            StepDetail::Domain {
                level,
                cpu,
                span,
                imbalance_pct,
                groups,
            } => format!(
                "find_idlest_group at the {level} domain of CPU {cpu} (CPUs {span}, imbalance_pct {imbalance_pct}): {} group{}",
                groups.len(),
                plural(groups.len() as u32)
            ),
            StepDetail::NumaRule { rule, why, .. } => format!("NUMA rule ({rule}): {why}"),
            StepDetail::GroupChoice {
                level,
                keep_local,
                group,
                why,
            } => match (keep_local, group) {
                (false, Some(group)) => format!("{level}: {why}: go to group {group}"),
                _ => format!("{level}: {why}: stay in the local group"),
            },
            StepDetail::TurboPack {
                domain,
                threshold_permille,
                task_util_pct,
                cores,
                chosen_cpu,
            } => {
                let looked: Vec<String> = cores
                    .iter()
                    .map(|core| format!("core {} at {} %: {}", core.core, core.util_pct, core.verdict))
                    .collect();
                let outcome = match chosen_cpu {
                    Some(cpu) => format!("packed onto CPU {cpu}, the core's least loaded thread"),
                    None => "no busy core can take it: the default path places it".to_string(),
                };
                format!(
                    "TurboSched: a jitter task (util {task_util_pct} %) looks in {domain}, in CPU order, for a busy core (util above {}.{} % of its capacity) that can still take it: {}; {outcome}",
                    threshold_permille / 10,
                    threshold_permille % 10,
                    if looked.is_empty() { "no core looked at".to_string() } else { looked.join(", ") }
                )
            }
            StepDetail::Fallback {
                from,
                to,
                broke_affinity,
            } => format!(
                "CPU {from} is offline: select_fallback_rq moves the task to CPU {to}{}",
                if *broke_affinity {
                    " (no allowed CPU was online: it may now run anywhere)"
                } else {
                    ""
                }
            ),
        }
    }

    /// The CPUs a step inspected, in order (empty for steps that are not scans).
    pub fn visits(&self) -> &[CpuVisit] {
        match self {
            StepDetail::Scan { cpus, .. } => cpus,
            _ => &[],
        }
    }
}

/// A [`StepDetail::Scan`].
pub(crate) fn scan_step(
    scan: ScanKind,
    of_cpu: CpuId,
    llc: Option<u32>,
    limit: Option<u32>,
    cpus: Vec<CpuVisit>,
    found: Option<CpuId>,
    why: String,
) -> StepDetail {
    StepDetail::Scan {
        scan,
        of_cpu: of_cpu.0,
        llc,
        limit,
        cpus,
        found: found.map(|cpu| cpu.0),
        why,
    }
}

pub(crate) fn plural(count: u32) -> &'static str {
    if count == 1 {
        ""
    } else {
        "s"
    }
}

/// Formats CPU numbers like the kernel's `%*pbl`: `0-3,8,10-11`.
pub fn cpu_list(cpus: &[u32]) -> String {
    crate::cpuset::format_cpu_list(cpus)
}

/// The event names a decision can be asked about.
pub const EXPLAINABLE_EVENTS: &str =
    "sched_wakeup, sched_wakeup_new, and the sched_waking and sched_migrate_task lines of a wakeup";

/// A decision being recorded.
#[derive(Clone, Debug)]
struct Pending {
    kind: DecisionKind,
    pid: u32,
    comm: String,
    from_cpu: u32,
    prev_cpu: Option<u32>,
    allowed_cpus: Vec<u32>,
    kernel: String,
    records: Vec<DecisionRecord>,
    steps: Vec<DecisionStep>,
}

/// Collects the steps of the decision that emits one trace record (or, in tests,
/// of every decision). Lives in `Simulator::recorder`, `None` unless explaining.
#[derive(Debug)]
pub(crate) struct Recorder {
    /// The record to explain; `None` records every decision.
    target: Option<u64>,
    /// The decision being recorded, if any: steps are pushed from `&self` paths.
    /// (A mutex, not a `RefCell`, so that `Simulator` stays `Sync`; it is locked
    /// only while explaining.)
    pending: Mutex<Option<Pending>>,
    /// The last `sched_waking` emitted: `(pid, index)`.
    last_waking: Option<(u32, u64)>,
    /// The record asked about, once emitted.
    target_record: Option<TraceRecord>,
    /// The finished decision whose records include the target.
    found: Option<Decision>,
    /// Every finished decision (when `target` is `None`).
    all: Vec<Decision>,
}

impl Clone for Recorder {
    fn clone(&self) -> Recorder {
        Recorder {
            target: self.target,
            pending: Mutex::new(self.slot().clone()),
            last_waking: self.last_waking,
            target_record: self.target_record,
            found: self.found.clone(),
            all: self.all.clone(),
        }
    }
}

impl Recorder {
    /// The decision being recorded (a poisoned lock is only a panic elsewhere).
    fn slot(&self) -> MutexGuard<'_, Option<Pending>> {
        self.pending.lock().unwrap_or_else(PoisonError::into_inner)
    }

    pub(crate) fn for_record(index: u64) -> Recorder {
        Recorder {
            target: Some(index),
            pending: Mutex::new(None),
            last_waking: None,
            target_record: None,
            found: None,
            all: Vec::new(),
        }
    }

    #[cfg(test)]
    pub(crate) fn every_decision() -> Recorder {
        Recorder {
            target: None,
            ..Recorder::for_record(0)
        }
    }

    /// Itself, while a decision is being recorded.
    #[cold]
    #[inline(never)]
    fn if_collecting(&self) -> Option<&Recorder> {
        self.slot().is_some().then_some(self)
    }

    /// Adds a step to the decision being recorded.
    pub(crate) fn push(&self, detail: StepDetail) {
        if let Some(pending) = self.slot().as_mut() {
            pending.steps.push(DecisionStep {
                text: detail.describe(),
                detail,
            });
        }
    }

    /// Called for every trace record, with its index, before it is stored.
    fn on_emit(&mut self, index: u64, record: &TraceRecord) {
        if self.target == Some(index) {
            self.target_record = Some(*record);
        }
        if record.kind == TraceKind::SchedWaking {
            self.last_waking = Some((record.pid, index));
        }
        let slot = self
            .pending
            .get_mut()
            .unwrap_or_else(PoisonError::into_inner);
        let Some(pending) = slot.as_mut() else {
            return;
        };
        if record.pid != pending.pid {
            return;
        }
        match record.kind {
            TraceKind::SchedMigrateTask => pending.records.push(DecisionRecord {
                index,
                event: record.kind.ftrace_name(),
            }),
            TraceKind::SchedWakeup | TraceKind::SchedWakeupNew => {
                let mut pending = slot.take().expect("checked above");
                pending.records.push(DecisionRecord {
                    index,
                    event: record.kind.ftrace_name(),
                });
                let includes_target = self
                    .target
                    .is_none_or(|target| pending.records.iter().any(|r| r.index == target));
                if !includes_target {
                    return;
                }
                if let Reason::Fallback {
                    from,
                    broke_affinity,
                } = record.reason
                {
                    let detail = StepDetail::Fallback {
                        from,
                        to: record.arg0,
                        broke_affinity,
                    };
                    pending.steps.push(DecisionStep {
                        text: detail.describe(),
                        detail,
                    });
                }
                let event = match self.target {
                    Some(target) => pending
                        .records
                        .iter()
                        .find(|r| r.index == target)
                        .map_or(record.kind.ftrace_name(), |r| r.event),
                    None => record.kind.ftrace_name(),
                };
                let decision = Decision {
                    record_index: self.target.unwrap_or(index),
                    event,
                    kind: pending.kind,
                    pid: pending.pid,
                    comm: pending.comm,
                    time_ns: record.time.as_ns(),
                    kernel: pending.kernel,
                    from_cpu: pending.from_cpu,
                    prev_cpu: pending.prev_cpu,
                    allowed_cpus: pending.allowed_cpus,
                    records: pending.records,
                    steps: pending.steps,
                    chosen_cpu: record.arg0,
                    summary: record.reason.describe(record.pid, record.arg0),
                };
                if self.target.is_some() {
                    self.found = Some(decision);
                } else {
                    self.all.push(decision);
                }
            }
            _ => {}
        }
    }
}

impl Simulator {
    /// The recorder, when it is recording the current decision. One test of a
    /// `None` when nothing is being explained.
    #[inline(always)]
    pub(crate) fn explaining(&self) -> Option<&Recorder> {
        match self.recorder.as_deref() {
            None => None,
            Some(rec) => rec.if_collecting(),
        }
    }

    /// Runs `record` with the recorder while it records a decision. The hook costs
    /// one test of a `None` on the kernel paths: the recording code is compiled
    /// out of line, as a cold function, so the paths stay as small as without it.
    /// `record` gets the simulator itself, so that a closure need not borrow `self`
    /// (it captures only copies: nothing on the path has its address taken).
    #[inline(always)]
    pub(crate) fn explain(&self, record: impl FnOnce(&Simulator, &Recorder)) {
        if self.recorder.is_some() {
            self.explain_cold(record);
        }
    }

    #[cold]
    #[inline(never)]
    fn explain_cold(&self, record: impl FnOnce(&Simulator, &Recorder)) {
        if let Some(rec) = self.explaining() {
            record(self, rec);
        }
    }

    /// A placement decision starts (`select_task_rq_fair`): record it when its
    /// trace records may include the one asked about. A wakeup's records are its
    /// `sched_waking` (already emitted), a migration and the `sched_wakeup`; a
    /// fork's is its `sched_wakeup_new`: at most three, in a row.
    #[inline(always)]
    pub(crate) fn explain_begin(&self, kind: DecisionKind, task_id: TaskId, from_cpu: CpuId) {
        if self.recorder.is_some() {
            self.explain_begin_cold(kind, task_id, from_cpu);
        }
    }

    #[cold]
    #[inline(never)]
    fn explain_begin_cold(&self, kind: DecisionKind, task_id: TaskId, from_cpu: CpuId) {
        let Some(rec) = self.recorder.as_deref() else {
            return;
        };
        let task = &self.tasks[task_id.0 as usize];
        let total = self.trace.total();
        let mut records = Vec::new();
        let first = match rec.last_waking {
            Some((pid, index))
                if kind == DecisionKind::Wakeup && pid == task.pid.0 && index + 1 == total =>
            {
                records.push(DecisionRecord {
                    index,
                    event: TraceKind::SchedWaking.ftrace_name(),
                });
                index
            }
            _ => total,
        };
        let in_window = rec
            .target
            .is_none_or(|target| first <= target && target <= first + 2);
        if !in_window {
            *rec.slot() = None;
            return;
        }
        *rec.slot() = Some(Pending {
            kind,
            pid: task.pid.0,
            comm: task.comm.clone(),
            from_cpu: from_cpu.0,
            prev_cpu: (kind == DecisionKind::Wakeup).then_some(task.cpu.0),
            allowed_cpus: task.affinity.iter().map(|cpu| cpu.0).collect(),
            kernel: self.kernel.to_string(),
            records,
            steps: Vec::new(),
        });
    }

    /// Called by `emit` for every trace record, before it is stored.
    #[inline(always)]
    pub(crate) fn explain_on_emit(&mut self, record: &TraceRecord) {
        if self.recorder.is_some() {
            self.explain_on_emit_cold(record);
        }
    }

    #[cold]
    #[inline(never)]
    fn explain_on_emit_cold(&mut self, record: &TraceRecord) {
        let index = self.trace.total();
        if let Some(rec) = self.recorder.as_deref_mut() {
            rec.on_emit(index, record);
        }
    }

    /// What a CPU is, for a scan's record: not allowed, busy, idle, or idle with
    /// every thread of its core idle.
    #[cold]
    #[inline(never)]
    pub(crate) fn visit(&self, task_id: TaskId, cpu: CpuId) -> CpuVisit {
        self.visit_with(&self.tasks[task_id.0 as usize].affinity, cpu)
    }

    /// [`Simulator::visit`] for a task allowed on `allowed`.
    pub(crate) fn visit_with(&self, allowed: &CpuSet, cpu: CpuId) -> CpuVisit {
        let nr_running = self.rqs[cpu.0 as usize].nr_running;
        let rq = &self.rqs[cpu.0 as usize];
        let state = if !allowed.contains(cpu) {
            CpuState::NotAllowed
        } else if !self.cpu_is_idle(cpu) {
            if !self.online.contains(cpu) {
                CpuState::Offline
            } else if rq.curr.is_none() && rq.nr_running == 0 {
                // Not idle with nothing on the runqueue: a wakeup on its wake list.
                CpuState::WakePending
            } else {
                CpuState::Busy
            }
        } else if self.topology.shape.threads_per_core > 1
            && self.topology.core_cpus[self.topology.core_of(cpu).0 as usize]
                .iter()
                .all(|thread| self.cpu_is_idle(thread))
        {
            CpuState::IdleCore
        } else {
            CpuState::Idle
        };
        CpuVisit {
            cpu: cpu.0,
            state,
            nr_running,
        }
    }

    /// Explains the placement decision behind trace record `record_index` (0-based
    /// over every record the run emits, the line number among the event lines of
    /// `schedlab run --trace-out`): re-runs `scenario` from the start, with a
    /// recorder armed for that record, until it is emitted.
    pub fn explain_record(scenario: &Scenario, record_index: u64) -> Result<Decision, String> {
        // No records are kept: the recorder sees each one as it is emitted.
        let mut sim = Simulator::with_trace_limit(scenario, 0).map_err(|errors| {
            errors
                .iter()
                .map(|error| format!("{}: {}", error.path, error.message))
                .collect::<Vec<_>>()
                .join("\n")
        })?;
        sim.recorder = Some(Box::new(Recorder::for_record(record_index)));
        // A decision is made within one event, so stepping whole events until the
        // record exists also finishes its decision.
        while sim.trace.total() <= record_index {
            if sim.step() == crate::StepOutcome::Finished {
                break;
            }
        }
        let total = sim.trace.total();
        let mut rec = sim.recorder.take().expect("armed above");
        if let Some(decision) = rec.found.take() {
            return Ok(decision);
        }
        let Some(record) = rec.target_record else {
            return Err(format!(
                "record {record_index} is out of range: the run emits {total} trace records (0 to {})",
                total.saturating_sub(1)
            ));
        };
        let name = record.kind.ftrace_name();
        let with_pid = |what: &str| {
            format!(
                "record {record_index} ({name} of pid {} at {} s) {what}",
                record.pid, record.time
            )
        };
        Err(match (record.kind, record.reason) {
            (TraceKind::SchedWaking | TraceKind::SchedWakeup, _) => with_pid(
                "made no placement decision: the task had not left its CPU yet and stays runnable there (ttwu_runnable), or its CPU is offline and it stays parked",
            ),
            (TraceKind::SchedMigrateTask, Reason::Pull { newidle, .. }) => with_pid(&format!(
                "is a move by {}, not a wakeup or fork placement; explainable events: {EXPLAINABLE_EVENTS}",
                if newidle { "newidle_balance" } else { "periodic load balancing" }
            )),
            _ => format!(
                "record {record_index} is a {name} event, which is not a placement decision; only wakeups and forks can be explained: {EXPLAINABLE_EVENTS}"
            ),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::behaviour::{Dist, Op};
    use crate::policy::numa_affinity::NumaAffinitySpec;
    use crate::policy::sis_scan::SisScanSpec;
    use crate::scenario::PolicySpec;
    use crate::topology::TopologySpec;
    use crate::workload::{SchbenchSpec, StreamSpec, TaskTemplate, TasksSpec, WorkloadSpec};

    fn scenario(preset: &str, kernel: &str, workloads: Vec<WorkloadSpec>, ms: u64) -> Scenario {
        Scenario {
            schema: None,
            title: "explain".into(),
            description: String::new(),
            seed: 7,
            duration_ms: ms,
            topology: TopologySpec {
                preset: Some(preset.into()),
                ..Default::default()
            },
            kernel: Some(kernel.into()),
            features: Default::default(),
            workloads,
            policy: PolicySpec::default(),
            knobs: Default::default(),
            costs: Default::default(),
            background: Default::default(),
            power: Default::default(),
            hotplug: Vec::new(),
            cgroups: Vec::new(),
        }
    }

    fn schbench(message_threads: u32, worker_threads: u32) -> WorkloadSpec {
        WorkloadSpec::Schbench(SchbenchSpec {
            message_threads,
            worker_threads,
            cputime_us: 2000,
            sleeptime_us: 3000,
            pipe_bytes: None,
            cpus: None,
            nice: 0,
            footprint_kib: 256,
        })
    }

    /// Tasks pinned to a CPU list that run and sleep: wakeups with CPUs not allowed.
    fn pinned_run_sleep(count: u32, cpus: &str) -> WorkloadSpec {
        WorkloadSpec::Tasks(TasksSpec {
            unit: "ops".into(),
            tasks: vec![TaskTemplate {
                comm: "pinned".into(),
                count,
                nice: 0,
                cpus: Some(cpus.into()),
                start_us: 0,
                record_latency: false,
                footprint_kib: 0,
                jitter: false,
                uclamp_max: None,
                program: vec![Op::Loop {
                    count: None,
                    body: vec![
                        Op::Run {
                            duration: Dist::Exponential { mean_us: 300.0 },
                            memory_bound: false,
                        },
                        Op::Sleep {
                            duration: Dist::Exponential { mean_us: 400.0 },
                        },
                    ],
                }],
            }],
        })
    }

    fn stream(cpus: &str) -> WorkloadSpec {
        WorkloadSpec::Stream(StreamSpec {
            threads: 8,
            cpus: Some(cpus.into()),
            array_size: 2_000_000,
            ntimes: 2,
        })
    }

    /// Scenarios that take every kernel variant of the wakeup and fork paths.
    fn variants() -> Vec<Scenario> {
        let mut list = Vec::new();
        for kernel in ["4.6", "4.9", "4.13", "4.16", "5.12", "6.5"] {
            list.push(scenario(
                "teaching-small",
                kernel,
                vec![schbench(2, 5), pinned_run_sleep(3, "1,2,5")],
                150,
            ));
        }
        let mut scan = scenario("xeon-2s10c", "4.6", vec![schbench(2, 19)], 60);
        scan.policy = PolicySpec {
            sis_scan: SisScanSpec {
                enabled: true,
                gate: true,
            },
            ..Default::default()
        };
        list.push(scan);
        for kernel in ["4.6", "5.5", "5.11", "5.18", "6.0"] {
            list.push(scenario(
                "zen3-2s64c",
                kernel,
                vec![stream("0,16,32,48,64,80,96,112")],
                40,
            ));
        }
        let mut fixed = scenario(
            "zen3-2s64c",
            "5.18",
            vec![stream("0,16,32,48,64,80,96,112")],
            40,
        );
        fixed.policy = PolicySpec {
            numa_affinity: NumaAffinitySpec {
                enabled: true,
                ..Default::default()
            },
            ..Default::default()
        };
        list.push(fixed);
        list
    }

    #[test]
    fn recording_every_decision_leaves_the_trace_hash_unchanged() {
        for scenario in variants() {
            let mut plain = Simulator::new(&scenario).unwrap();
            plain.run_to_end();
            let mut recorded = Simulator::new(&scenario).unwrap();
            recorded.recorder = Some(Box::new(Recorder::every_decision()));
            recorded.run_to_end();
            let rec = recorded.recorder.take().unwrap();
            assert_eq!(
                plain.trace.hash_hex(),
                recorded.trace.hash_hex(),
                "kernel {}",
                scenario.kernel.as_deref().unwrap_or("")
            );
            assert!(!rec.all.is_empty());
            let trace = &recorded.trace;
            let mut scans = 0;
            for decision in &rec.all {
                let last = decision.records.last().unwrap();
                let record = trace.get(last.index as usize);
                assert_eq!(decision.chosen_cpu, record.arg0);
                assert!(!decision.steps.is_empty(), "{decision:?}");
                for step in &decision.steps {
                    assert!(!step.text.is_empty());
                    if let StepDetail::Scan { cpus, found, .. } = &step.detail {
                        scans += 1;
                        if let Some(found) = found {
                            assert!(cpus.iter().any(|visit| visit.cpu == *found), "{step:?}");
                        }
                    }
                }
                // The last CPU any step found is the chosen one.
                let last_found = decision
                    .steps
                    .iter()
                    .rev()
                    .find_map(|step| match step.detail {
                        StepDetail::Scan { found, .. } => found,
                        _ => None,
                    });
                if let Some(found) = last_found {
                    assert_eq!(found, decision.chosen_cpu, "{decision:#?}");
                }
            }
            assert!(scans > 0);
        }
    }

    #[test]
    fn the_decision_of_each_record_of_a_wakeup_is_the_same() {
        let scenario = scenario("teaching-small", "6.5", vec![schbench(2, 5)], 30);
        let mut sim = Simulator::new(&scenario).unwrap();
        sim.run_to_end();
        let trace = &sim.trace;
        // A wakeup that migrated: waking, migrate, wakeup.
        let migrate = (0..trace.len())
            .find(|idx| {
                trace.kind(*idx) == TraceKind::SchedMigrateTask
                    && matches!(trace.reason(*idx), Reason::Wakeup { .. })
            })
            .expect("a wakeup migrates");
        let wakeup = migrate + 1;
        assert_eq!(trace.kind(wakeup), TraceKind::SchedWakeup);
        let by_wakeup = Simulator::explain_record(&scenario, wakeup as u64).unwrap();
        assert_eq!(by_wakeup.kind, DecisionKind::Wakeup);
        assert_eq!(by_wakeup.chosen_cpu, trace.arg0(wakeup));
        assert_eq!(by_wakeup.summary, trace.reason_text(wakeup));
        let indexes: Vec<u64> = by_wakeup.records.iter().map(|r| r.index).collect();
        for index in &indexes {
            let other = Simulator::explain_record(&scenario, *index).unwrap();
            assert_eq!(other.steps, by_wakeup.steps);
            assert_eq!(other.event, trace.kind(*index as usize).ftrace_name());
        }
        assert_eq!(
            by_wakeup.records.first().map(|r| r.event),
            Some("sched_waking")
        );
    }

    #[test]
    fn other_records_give_clear_errors() {
        let scenario = scenario("teaching-small", "6.5", vec![schbench(2, 5)], 30);
        let mut sim = Simulator::new(&scenario).unwrap();
        sim.run_to_end();
        let switch =
            (0..sim.trace.len()).find(|idx| sim.trace.kind(*idx) == TraceKind::SchedSwitch);
        let error = Simulator::explain_record(&scenario, switch.unwrap() as u64).unwrap_err();
        assert!(error.contains("sched_switch"), "{error}");
        assert!(error.contains("sched_wakeup_new"), "{error}");
        let total = sim.trace.total();
        let error = Simulator::explain_record(&scenario, total).unwrap_err();
        assert!(error.contains("out of range"), "{error}");
        assert!(error.contains(&format!("{total} trace records")), "{error}");
    }

    #[test]
    fn a_pinned_stream_fork_shows_the_numa_rule() {
        let scenario = scenario(
            "zen3-2s64c",
            "5.18",
            vec![stream("0,16,32,48,64,80,96,112")],
            40,
        );
        let mut sim = Simulator::new(&scenario).unwrap();
        sim.run_to_end();
        let trace = &sim.trace;
        let fork = (0..trace.len())
            .find(|idx| matches!(trace.reason(*idx), Reason::ForkNumaImbalance { .. }))
            .expect("the NUMA rule keeps a thread local");
        let decision = Simulator::explain_record(&scenario, fork as u64).unwrap();
        assert_eq!(decision.kind, DecisionKind::Fork);
        let rule = decision
            .steps
            .iter()
            .find_map(|step| match &step.detail {
                StepDetail::NumaRule {
                    imb_numa_nr,
                    allowed_in_local,
                    keeps_local,
                    ..
                } => Some((*imb_numa_nr, *allowed_in_local, *keeps_local)),
                _ => None,
            })
            .expect("a NUMA rule step");
        assert_eq!(rule, (8, 4, true));
        assert!(decision.steps.iter().any(
            |step| matches!(&step.detail, StepDetail::Domain { groups, .. } if groups.len() == 2)
        ));
    }

    #[test]
    fn a_simulator_stays_send_and_sync() {
        fn assert_send_sync<T: Send + Sync>() {}
        assert_send_sync::<Simulator>();
    }

    #[test]
    fn cpu_lists_are_compact() {
        assert_eq!(cpu_list(&[0, 1, 2, 3, 8, 10, 11]), "0-3,8,10-11");
        assert_eq!(cpu_list(&[]), "");
    }
}
