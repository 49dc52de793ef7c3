//! The event trace: an append-only, column-oriented log with ftrace names and fields.
//!
//! Every record also carries a [`Reason`]: why the model did what it did, rendered as
//! a sentence a student can read. The trace hash covers every record ever pushed,
//! byte for byte, so two runs agree on the hash exactly when they agree on the trace.

use crate::time::SimTime;
use std::fmt::Write as _;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[repr(u8)]
pub enum TraceKind {
    SchedWaking = 0,
    SchedWakeup = 1,
    SchedWakeupNew = 2,
    SchedSwitch = 3,
    SchedMigrateTask = 4,
    SchedProcessExit = 5,
    /// The model's own: a cgroup ran out of CFS bandwidth quota.
    CfsThrottle = 6,
    /// The model's own: a cgroup's quota was refilled and its tasks run again.
    CfsUnthrottle = 7,
    /// The model's own: a CPU went offline (`arg0` 0) or came online (1); `arg1`
    /// counts the tasks moved away.
    CpuHotplug = 8,
    /// The model's own: SHARED_RUNQ pushed a task into a shard (`arg0` the shard's
    /// index in its LLC, `arg1` the LLC).
    ShardPush = 9,
    /// The model's own: a task left its shard because it was picked or dequeued.
    ShardPop = 10,
    /// The model's own: a CPU about to go idle pulled a task from a shard.
    ShardPull = 11,
    /// The power model changed a CPU's frequency (`arg0`, in kHz as the kernel's
    /// `cpu_frequency` event gives it).
    CpuFrequency = 12,
}

impl TraceKind {
    pub fn ftrace_name(self) -> &'static str {
        match self {
            TraceKind::SchedWaking => "sched_waking",
            TraceKind::SchedWakeup => "sched_wakeup",
            TraceKind::SchedWakeupNew => "sched_wakeup_new",
            TraceKind::SchedSwitch => "sched_switch",
            TraceKind::SchedMigrateTask => "sched_migrate_task",
            TraceKind::SchedProcessExit => "sched_process_exit",
            TraceKind::CfsThrottle => "schedlab_cfs_throttle",
            TraceKind::CfsUnthrottle => "schedlab_cfs_unthrottle",
            TraceKind::CpuHotplug => "schedlab_cpu_hotplug",
            TraceKind::ShardPush => "schedlab_shard_push",
            TraceKind::ShardPop => "schedlab_shard_pop",
            TraceKind::ShardPull => "schedlab_shard_pull",
            TraceKind::CpuFrequency => "cpu_frequency",
        }
    }
}

/// How the wakeup's first step (`wake_affine`) went.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Affine {
    /// Not tried: switched off, a timer wakeup, or the waker's CPU not allowed.
    NotTried,
    /// `wake_wide()`: the waker wakes many tasks, so the wakee is not pulled.
    WakeWide,
    /// The waker runs on the wakee's previous CPU.
    SameCpu,
    /// `wake_affine()` kept the previous CPU.
    KeptPrev,
    /// `wake_affine()` chose the waker's CPU.
    ChoseWaker,
}

/// Which step of `select_idle_sibling` chose the CPU.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SisStep {
    TargetIdle,
    PrevIdle,
    RecentUsed,
    IdleCore,
    IdleCpu,
    /// An idle SMT sibling (of the target in 4.6-5.11, of the previous CPU from 5.12).
    IdleSibling,
    /// Seed 001's package scan after the 4.6 walk: CPUs `first`..=`last` of the LLC
    /// were looked at in order; `scanned` counts them.
    PackageScan {
        first: u32,
        last: u32,
        found: bool,
    },
    /// Nothing idle found (or the scan was not allowed): the target CPU.
    NoneIdle,
    /// The previous CPU is not in the task's affinity mask.
    AffinityFallback,
}

/// A scheduling-domain level, compactly (`DomainLevel` without the allocation).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct LevelTag(pub u32);

impl LevelTag {
    pub fn name(self) -> String {
        match self.0 {
            0 => "SMT".into(),
            1 => "MC".into(),
            2 => "PKG".into(),
            distance => format!("NUMA({})", distance - 100),
        }
    }
}

/// Why a placement, migration or switch happened.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Reason {
    None,
    /// A wakeup's placement: the `wake_affine` outcome and the `select_idle_sibling` step.
    Wakeup {
        affine: Affine,
        step: SisStep,
        prev: u32,
        target: u32,
        llc: u32,
        scanned: u32,
        /// The SIS_UTIL scan limit, when the scan ran under one.
        limit: Option<u32>,
    },
    /// Fork placement by `find_idlest_cpu`: the last domain level it descended.
    ForkIdlest {
        level: LevelTag,
        idle: bool,
    },
    /// Fork stayed in the local group of a NUMA domain: `local + 1 <= allowance`.
    /// `allowance` is below the domain's `imb_numa_nr` when CPU affinity limited it
    /// to the allowed CPUs of the local node (seed 004's policy, or 6.0's rule).
    ForkNumaImbalance {
        level: LevelTag,
        local_running: u32,
        allowance: u32,
        imb_numa_nr: u32,
    },
    /// A CPU pulled a task in load balancing (`newidle` or periodic).
    Pull {
        src: u32,
        src_nr_running: u32,
        level: LevelTag,
        newidle: bool,
    },
    /// `select_fallback_rq()`: the CPU the task was on (or chosen for it) is offline;
    /// with `broke_affinity` none of its allowed CPUs was online, so its mask became
    /// every online CPU.
    Fallback {
        from: u32,
        broke_affinity: bool,
    },
    /// Wakeup or fork of a task allowed on one CPU only: `select_task_rq` is skipped
    /// (`nr_cpus_allowed == 1`).
    Pinned,
    /// Switch: the task used up its slice (seen at a tick).
    SliceExpired {
        ran_us: u32,
        slice_us: u32,
    },
    /// Switch: a woken task's vruntime was far enough behind to preempt.
    WakeupPreempt {
        woken_pid: u32,
    },
    /// Switch: the previous task blocked, slept or exited.
    PrevStopped,
    /// Switch: the task's cgroup ran out of CFS bandwidth quota.
    Throttled,
    /// Switch: the CPU had been idle and a task arrived.
    LeftIdle,
    /// SHARED_RUNQ pushed the task into a shard, from `site`.
    ShardPush {
        site: crate::policy::shared_runq::ShardSite,
    },
    /// The task left its shard, from `site` (it was picked or dequeued).
    ShardPop {
        site: crate::policy::shared_runq::ShardSite,
    },
    /// A CPU going idle pulled the task from shard `shard` of LLC `llc`; it was
    /// queued on CPU `src`.
    /// TurboSched packed a waking jitter task onto a busy core.
    TurboPack {
        core: u32,
        /// The core's utilisation, in percent of its SMT-aware capacity.
        util_pct: u32,
        domain: crate::policy::turbo_pack::TurboDomain,
        domain_id: u32,
    },
    /// The power model re-derived a socket's turbo frequency.
    FrequencyChange {
        /// Cores of the socket not in deep idle.
        not_deep: u32,
        socket: u32,
    },
    SharedRunqPull {
        shard: u32,
        llc: u32,
        src: u32,
    },
}

impl Reason {
    pub fn describe(&self, pid: u32, cpu: u32) -> String {
        match *self {
            Reason::None => String::new(),
            Reason::Wakeup {
                affine,
                step,
                prev,
                target,
                llc,
                scanned,
                limit,
            } => {
                let first = match affine {
                    Affine::NotTried => format!("target = previous CPU {prev}"),
                    Affine::WakeWide => format!("wake_wide (waker wakes many): target = previous CPU {prev}"),
                    Affine::SameCpu => format!("waker runs on previous CPU {prev}"),
                    Affine::KeptPrev => format!("wake_affine kept previous CPU {prev}"),
                    Affine::ChoseWaker => format!("wake_affine chose the waker's CPU {target} over previous CPU {prev}"),
                };
                let second = match step {
                    SisStep::TargetIdle => format!("CPU {cpu} was idle"),
                    SisStep::PrevIdle => format!("target busy, previous CPU {cpu} idle and shares its cache"),
                    SisStep::RecentUsed => format!("recently used CPU {cpu} was idle"),
                    SisStep::IdleCore => format!("found an idle core in LLC {llc} after inspecting {scanned} CPUs: CPU {cpu}"),
                    SisStep::IdleSibling => format!("idle SMT sibling CPU {cpu}"),
                    SisStep::PackageScan { first, last, found: true } => format!("no idle core or sibling; should_scan_idle let the package scan look at {scanned} CPUs of LLC {llc} ({first} to {last}): idle CPU {cpu}"),
                    SisStep::PackageScan { first, last, found: false } => format!("no idle core or sibling; the package scan looked at {scanned} CPUs of LLC {llc} ({first} to {last}), none idle: pid {pid} queues on CPU {cpu}"),
                    SisStep::IdleCpu => match limit {
                        Some(limit) => format!("bounded scan (limit {limit}) of LLC {llc} found idle CPU {cpu} after {scanned}"),
                        None => format!("scan of LLC {llc} found idle CPU {cpu} after {scanned}"),
                    },
                    SisStep::NoneIdle => match limit {
                        Some(0) => format!("no idle core, and LLC {llc} too busy to scan (limit 0): pid {pid} queues on CPU {cpu}"),
                        Some(limit) => format!("scanned {scanned} CPUs of LLC {llc} (limit {limit}), none idle: pid {pid} queues on CPU {cpu}"),
                        None => format!("scanned {scanned} CPUs of LLC {llc}, none idle: pid {pid} queues on CPU {cpu}"),
                    },
                    SisStep::AffinityFallback => format!("previous CPU not allowed: CPU {cpu}"),
                };
                format!("{first}; {second}")
            }
            Reason::ForkIdlest { level, idle } => format!(
                "find_idlest_cpu: new task pid {pid} to {} CPU {cpu}, chosen at the {} level",
                if idle { "idle" } else { "least loaded" },
                level.name()
            ),
            Reason::ForkNumaImbalance {
                level,
                local_running,
                allowance,
                imb_numa_nr,
            } => {
                let allowance = if allowance < imb_numa_nr {
                    format!("allowance {allowance} = allowed CPUs in the local node, below imb_numa_nr {imb_numa_nr}")
                } else {
                    format!("allowance {allowance}")
                };
                format!(
                    "find_idlest_group at {}: the NUMA rule keeps pid {pid} on the local node ({local_running} running + 1, {allowance}); CPU {cpu}",
                    level.name()
                )
            }
            Reason::Pull {
                src,
                src_nr_running,
                level,
                newidle,
            } => format!(
                "CPU {cpu} {} pulled pid {pid} from CPU {src} ({src_nr_running} runnable) at the {} level",
                if newidle { "went idle and in newidle_balance" } else { "in periodic load_balance" },
                level.name()
            ),
            Reason::Fallback { from, broke_affinity } => format!(
                "CPU {from} is offline: select_fallback_rq moved pid {pid} to CPU {cpu}{}",
                if broke_affinity { " (no allowed CPU was online: it may now run anywhere)" } else { "" }
            ),
            Reason::Pinned => format!("pid {pid} may run only on CPU {cpu}: no choice to make"),
            Reason::SliceExpired { ran_us, slice_us } => {
                format!("slice used up: ran {ran_us} us of a {slice_us} us slice")
            }
            Reason::WakeupPreempt { woken_pid } => {
                format!("woken pid {woken_pid} preempted: its vruntime is behind by more than the wakeup granularity")
            }
            Reason::PrevStopped => "the previous task blocked, slept or exited".to_string(),
            Reason::Throttled => "its cgroup used up its CFS bandwidth quota: throttled".to_string(),
            Reason::LeftIdle => format!("CPU {cpu} was idle; pid {pid} runs at once"),
            Reason::ShardPush { site } => {
                use crate::policy::shared_runq::ShardSite;
                let why = match site {
                    ShardSite::EnqueueTaskFair => "a wakeup that select_task_rq did not migrate",
                    _ => "every enqueue",
                };
                format!("{}: pid {pid} joins CPU {cpu}'s shard ({why})", site.name())
            }
            Reason::ShardPop { site } => format!(
                "{}: pid {pid} leaves its shard on CPU {cpu}",
                site.name()
            ),
            Reason::TurboPack {
                core,
                util_pct,
                domain,
                domain_id,
            } => format!(
                "TurboSched: jitter pid {pid} packed onto busy core {core} (util {util_pct} %) in {} {domain_id}, first fit: CPU {cpu}",
                domain.name()
            ),
            Reason::FrequencyChange { not_deep, socket } => format!(
                "socket {socket} has {not_deep} cores not in deep idle: its turbo table gives CPU {cpu} this frequency"
            ),
            Reason::SharedRunqPull { shard, llc, src } => format!(
                "CPU {cpu} pulled pid {pid} from shard {shard} of LLC {llc} in newidle_balance (it waited on CPU {src})"
            ),
        }
    }
}

/// One record, as pushed. Field meaning depends on `kind`:
/// - wakeups: `pid` woken, `arg0` target CPU;
/// - switch: `pid` prev (0 = idle), `arg0` next pid, `arg1` prev state code;
/// - migrate: `pid` moved, `arg0` orig CPU, `arg1` dest CPU;
/// - exit: `pid`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TraceRecord {
    pub time: SimTime,
    pub cpu: u32,
    /// The task current on `cpu` when the event fired (0 = idle).
    pub ctx_pid: u32,
    pub kind: TraceKind,
    pub pid: u32,
    pub arg0: u32,
    pub arg1: u32,
    pub reason: Reason,
}

/// `prev_state` codes stored in `arg1` of a switch.
pub const PREV_STATE_RUNNING: u32 = 0;
pub const PREV_STATE_SLEEPING: u32 = 1;
pub const PREV_STATE_DEAD: u32 = 2;

pub fn prev_state_letter(code: u32) -> &'static str {
    match code {
        PREV_STATE_RUNNING => "R+",
        PREV_STATE_SLEEPING => "S",
        _ => "X",
    }
}

/// What the renderer needs to know about a pid.
pub trait TaskNames {
    fn comm(&self, pid: u32) -> &str;
    fn prio(&self, pid: u32) -> i32;
    /// A cgroup's path, by index.
    fn cgroup_name(&self, group: u32) -> String {
        format!("#{group}")
    }
}

/// Column-oriented storage. Invariant: all columns have the same length, and times
/// never decrease from one record to the next.
#[derive(Clone, Debug, Default)]
pub struct Trace {
    pub time: Vec<u64>,
    pub cpu: Vec<u32>,
    pub ctx_pid: Vec<u32>,
    pub kind: Vec<TraceKind>,
    pub pid: Vec<u32>,
    pub arg0: Vec<u32>,
    pub arg1: Vec<u32>,
    pub reason: Vec<Reason>,
    /// Records are kept only while fewer than this many are stored; the hash and
    /// the count cover all of them.
    pub keep_limit: usize,
    pub total: u64,
    hash: u64,
}

/// Where a trace stood: its kept records, its count and its hash (`Trace::mark`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TraceMark {
    kept: usize,
    total: u64,
    hash: u64,
}

impl TraceMark {
    /// Records emitted before the mark (kept or not).
    pub fn total(&self) -> u64 {
        self.total
    }
}

const FNV_OFFSET: u64 = 0xcbf2_9ce4_8422_2325;
const FNV_PRIME: u64 = 0x0000_0100_0000_01b3;

impl Trace {
    pub fn new(keep_limit: usize) -> Self {
        Self {
            keep_limit,
            hash: FNV_OFFSET,
            ..Default::default()
        }
    }

    pub fn push(&mut self, record: TraceRecord) {
        debug_assert!(self.time.last().is_none_or(|last| *last <= record.time.0));
        self.mix(record.time.0);
        self.mix(record.cpu as u64);
        self.mix(record.ctx_pid as u64);
        self.mix(record.kind as u64);
        self.mix(record.pid as u64);
        self.mix(record.arg0 as u64);
        self.mix(record.arg1 as u64);
        self.total += 1;
        if self.time.len() < self.keep_limit {
            self.time.push(record.time.0);
            self.cpu.push(record.cpu);
            self.ctx_pid.push(record.ctx_pid);
            self.kind.push(record.kind);
            self.pid.push(record.pid);
            self.arg0.push(record.arg0);
            self.arg1.push(record.arg1);
            self.reason.push(record.reason);
        }
    }

    /// Where the trace stands now, to come back to with `rewind`.
    pub fn mark(&self) -> TraceMark {
        TraceMark {
            kept: self.len(),
            total: self.total,
            hash: self.hash,
        }
    }

    /// Back to `mark`, taken earlier on this trace: the records after it are
    /// dropped and the count and hash are as they were then.
    pub fn rewind(&mut self, mark: &TraceMark) {
        debug_assert!(mark.total <= self.total && mark.kept <= self.len());
        let kept = mark.kept.min(self.len());
        self.time.truncate(kept);
        self.cpu.truncate(kept);
        self.ctx_pid.truncate(kept);
        self.kind.truncate(kept);
        self.pid.truncate(kept);
        self.arg0.truncate(kept);
        self.arg1.truncate(kept);
        self.reason.truncate(kept);
        self.total = mark.total;
        self.hash = mark.hash;
    }

    fn mix(&mut self, value: u64) {
        for byte in value.to_le_bytes() {
            self.hash ^= byte as u64;
            self.hash = self.hash.wrapping_mul(FNV_PRIME);
        }
    }

    /// FNV-1a over every record's fields, as a 16-digit hex string.
    pub fn hash_hex(&self) -> String {
        format!("{:016x}", self.hash)
    }

    pub fn len(&self) -> usize {
        self.time.len()
    }

    pub fn is_empty(&self) -> bool {
        self.time.is_empty()
    }

    pub fn get(&self, idx: usize) -> TraceRecord {
        TraceRecord {
            time: SimTime(self.time[idx]),
            cpu: self.cpu[idx],
            ctx_pid: self.ctx_pid[idx],
            kind: self.kind[idx],
            pid: self.pid[idx],
            arg0: self.arg0[idx],
            arg1: self.arg1[idx],
            reason: self.reason[idx],
        }
    }

    /// The ftrace payload after `event: `.
    pub fn payload(&self, idx: usize, names: &dyn TaskNames) -> String {
        let record = self.get(idx);
        let pid = record.pid;
        match record.kind {
            TraceKind::SchedWaking | TraceKind::SchedWakeup | TraceKind::SchedWakeupNew => format!(
                "comm={} pid={} prio={} target_cpu={:03}",
                names.comm(pid),
                pid,
                names.prio(pid),
                record.arg0
            ),
            TraceKind::SchedSwitch => {
                let next = record.arg0;
                // The idle task is `swapper/N` and is never "preempted" (`R`, not `R+`).
                let comm_of = |pid: u32| {
                    if pid == 0 {
                        format!("swapper/{}", record.cpu)
                    } else {
                        names.comm(pid).to_string()
                    }
                };
                let prev_state = if pid == 0 {
                    "R"
                } else {
                    prev_state_letter(record.arg1)
                };
                format!(
                    "prev_comm={} prev_pid={} prev_prio={} prev_state={} ==> next_comm={} next_pid={} next_prio={}",
                    comm_of(pid),
                    pid,
                    names.prio(pid),
                    prev_state,
                    comm_of(next),
                    next,
                    names.prio(next)
                )
            }
            TraceKind::SchedMigrateTask => format!(
                "comm={} pid={} prio={} orig_cpu={} dest_cpu={}",
                names.comm(pid),
                pid,
                names.prio(pid),
                record.arg0,
                record.arg1
            ),
            TraceKind::SchedProcessExit => {
                format!(
                    "comm={} pid={} prio={}",
                    names.comm(pid),
                    pid,
                    names.prio(pid)
                )
            }
            TraceKind::CfsThrottle | TraceKind::CfsUnthrottle => format!(
                "cgroup={} tasks={}",
                names.cgroup_name(record.arg0),
                record.arg1
            ),
            TraceKind::CpuHotplug => format!(
                "cpu={} state={} tasks_moved={}",
                record.cpu,
                if record.arg0 == 1 {
                    "online"
                } else {
                    "offline"
                },
                record.arg1
            ),
            TraceKind::ShardPush | TraceKind::ShardPop => format!(
                "comm={} pid={} shard={} llc={}",
                names.comm(pid),
                pid,
                record.arg0,
                record.arg1
            ),
            TraceKind::CpuFrequency => format!("state={} cpu_id={}", record.arg0, record.cpu),
            TraceKind::ShardPull => {
                let src = match record.reason {
                    Reason::SharedRunqPull { src, .. } => src,
                    _ => record.cpu,
                };
                format!(
                    "comm={} pid={} shard={} llc={} orig_cpu={} dest_cpu={}",
                    names.comm(pid),
                    pid,
                    record.arg0,
                    record.arg1,
                    src,
                    record.cpu
                )
            }
        }
    }

    /// The header of the kernel's `trace` file for this trace, as `--trace-out` and
    /// the app's export write it.
    pub fn ftrace_header(&self, n_cpus: usize) -> String {
        format!(
            "# tracer: nop\n#\n# entries-in-buffer/entries-written: {}/{}   #P:{}\n#\n#           TASK-PID     CPU#  |||||  TIMESTAMP  FUNCTION\n#              | |         |   |||||     |         |\n",
            self.len(),
            self.total,
            n_cpus
        )
    }

    /// A `trace` line, with the model's reason appended as a `# ...` comment when
    /// `reasons` is set (for reading; leave it out of files meant for Perfetto).
    pub fn ftrace_line_with_reason(
        &self,
        idx: usize,
        names: &dyn TaskNames,
        reasons: bool,
    ) -> String {
        let mut line = self.ftrace_line(idx, names);
        if reasons {
            let reason = self.reason_text(idx);
            if !reason.is_empty() {
                line.push_str("  # ");
                line.push_str(&reason);
            }
        }
        line
    }

    /// A line in the layout of the kernel's `trace` file.
    pub fn ftrace_line(&self, idx: usize, names: &dyn TaskNames) -> String {
        let record = self.get(idx);
        let ctx_comm = if record.ctx_pid == 0 {
            "<idle>"
        } else {
            names.comm(record.ctx_pid)
        };
        let micros = record.time.0 / 1_000;
        format!(
            "{:>16}-{:<7} [{:03}] d..2. {:>5}.{:06}: {}: {}",
            ctx_comm,
            record.ctx_pid,
            record.cpu,
            micros / 1_000_000,
            micros % 1_000_000,
            record.kind.ftrace_name(),
            self.payload(idx, names)
        )
    }

    /// The affected pid and CPU that a reason sentence speaks of.
    pub fn reason_text(&self, idx: usize) -> String {
        let record = self.get(idx);
        let (pid, cpu) = match record.kind {
            TraceKind::SchedSwitch => (record.arg0, record.cpu),
            TraceKind::SchedMigrateTask => (record.pid, record.arg1),
            TraceKind::SchedWakeup | TraceKind::SchedWakeupNew => (record.pid, record.arg0),
            _ => (record.pid, record.cpu),
        };
        record.reason.describe(pid, cpu)
    }

    /// The compact rendering used by golden tests: time, CPU, event, payload, reason.
    pub fn compact(&self, names: &dyn TaskNames) -> String {
        let mut out = String::new();
        for idx in 0..self.len() {
            let reason = self.reason_text(idx);
            let _ = write!(
                out,
                "{} [{:03}] {}: {}",
                SimTime(self.time[idx]),
                self.cpu[idx],
                self.kind[idx].ftrace_name(),
                self.payload(idx, names)
            );
            if !reason.is_empty() {
                let _ = write!(out, "  # {reason}");
            }
            out.push('\n');
        }
        out
    }
}
