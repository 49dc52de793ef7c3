//! The event trace: an append-only log with ftrace names and fields, kept compactly
//! (see `store.rs` for the encoding).
//!
//! Every record also carries a [`Reason`]: why the model did what it did, rendered as
//! a sentence a student can read. The trace hash covers every record ever pushed,
//! byte for byte, so two runs agree on the hash exactly when they agree on the trace.

mod store;

use crate::time::SimTime;
use std::fmt::Write as _;
use store::{Chunk, CHUNK};

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
    /// Every kind, indexed by its code (`kind as u8`).
    const ALL: [TraceKind; 13] = [
        TraceKind::SchedWaking,
        TraceKind::SchedWakeup,
        TraceKind::SchedWakeupNew,
        TraceKind::SchedSwitch,
        TraceKind::SchedMigrateTask,
        TraceKind::SchedProcessExit,
        TraceKind::CfsThrottle,
        TraceKind::CfsUnthrottle,
        TraceKind::CpuHotplug,
        TraceKind::ShardPush,
        TraceKind::ShardPop,
        TraceKind::ShardPull,
        TraceKind::CpuFrequency,
    ];

    /// The kind whose code (`kind as u8`) is `code`.
    fn from_code(code: u8) -> TraceKind {
        Self::ALL[code as usize]
    }

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
    /// Switch: the next task is the runqueue's last buddy, `pid`, which a wakeup had
    /// preempted (LAST_BUDDY), picked ahead of the leftmost.
    LastBuddy {
        pid: u32,
    },
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
                    SisStep::PackageScan { first, last, found: true } => format!("no idle core or sibling; should_scan_idle let the package scan of LLC {llc} run ({first} to {last}): idle CPU {cpu}, {scanned} CPUs inspected with the 4.6 walk's"),
                    SisStep::PackageScan { first, last, found: false } => format!("no idle core or sibling; the package scan of LLC {llc} ({first} to {last}) found none idle, {scanned} CPUs inspected with the 4.6 walk's: pid {pid} queues on CPU {cpu}"),
                    // `scanned` counts every scan of the wakeup (idle core, idle CPU, sibling), as its cost does.
                    SisStep::IdleCpu => match limit {
                        Some(limit) => format!("bounded scan (limit {limit}) of LLC {llc} found idle CPU {cpu}; {scanned} CPU{} scanned in all", crate::explain::plural(scanned)),
                        None => format!("scan of LLC {llc} found idle CPU {cpu}; {scanned} CPU{} scanned in all", crate::explain::plural(scanned)),
                    },
                    SisStep::NoneIdle => match limit {
                        Some(0) => format!("no idle core, and LLC {llc} too busy to scan (limit 0): pid {pid} queues on CPU {cpu}"),
                        Some(limit) => format!("no idle CPU in LLC {llc} (scan limit {limit}; {scanned} CPU{} scanned in all): pid {pid} queues on CPU {cpu}", crate::explain::plural(scanned)),
                        None => format!("no idle CPU in LLC {llc} ({scanned} CPU{} scanned in all): pid {pid} queues on CPU {cpu}", crate::explain::plural(scanned)),
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
            Reason::LastBuddy { pid: buddy } => format!(
                "pid {buddy}, which a wakeup preempted, gets CPU {cpu} back ahead of the leftmost task (LAST_BUDDY)"
            ),
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

/// The trace store: every record pushed is counted and hashed; records are kept
/// while their bytes stay within a budget.
///
/// Invariants:
/// - Records `0..len()` are kept; they are the first `len()` of the `total()` pushed
///   (the kept records are a prefix, never a sample). Times never decrease.
/// - Records `0..CHUNK * n` sit in `n` sealed chunks of [`CHUNK`] records; the newest
///   (fewer than a chunk) sit unpacked in `open`.
/// - Whether the next chunk is kept is decided when it starts: it is when the sealed
///   chunks' bytes plus a full `open` buffer fit in the budget. Once one is refused
///   the store is full (`is_full()`): no later record is kept, though the count and
///   the hash go on. The decision depends only on the records pushed, so a run and its
///   rewound-and-replayed twin keep the same records.
#[derive(Clone, Debug)]
pub struct Trace {
    chunks: Vec<Chunk>,
    /// The newest kept records, not yet a whole chunk.
    open: Vec<TraceRecord>,
    /// The budget for kept records, in bytes (see [`Trace::kept_bytes`]).
    keep_bytes: usize,
    /// The sealed chunks' bytes, each with its entry in `chunks`.
    sealed_bytes: usize,
    full: bool,
    total: u64,
    hash: u64,
    /// The reason payload of the chunk being sealed, reused.
    scratch: Vec<u8>,
}

/// Where a trace stood: enough to put it back there with [`Trace::rewind`] (the
/// hash cannot be rewound by itself, so the mark carries it).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TraceMark {
    len: usize,
    total: u64,
    hash: u64,
    full: bool,
}

impl TraceMark {
    /// Records emitted before the mark (kept or not).
    pub fn total(&self) -> u64 {
        self.total
    }
}

/// The hash's starting state.
const HASH_SEED: u64 = 0xcbf2_9ce4_8422_2325;
/// Its multiplier (2^64 over the golden ratio, odd): each step is a bijection of
/// the state for a given word and of the word for a given state, so one changed
/// field always changes the hash.
const HASH_K: u64 = 0x9e37_79b9_7f4a_7c15;

/// Bytes of a full `open` buffer.
const OPEN_BYTES: usize = CHUNK * std::mem::size_of::<TraceRecord>();

impl Default for Trace {
    /// A trace that keeps nothing.
    fn default() -> Self {
        Self::new(0)
    }
}

impl Trace {
    /// A trace that keeps records while they take at most about `keep_bytes` (see
    /// [`Trace::kept_bytes`]); 0 keeps none, only the count and the hash.
    pub fn new(keep_bytes: usize) -> Self {
        Self {
            chunks: Vec::new(),
            open: Vec::new(),
            keep_bytes,
            sealed_bytes: 0,
            full: false,
            total: 0,
            hash: HASH_SEED,
            scratch: Vec::new(),
        }
    }

    pub fn push(&mut self, record: TraceRecord) {
        debug_assert!(self.is_empty() || self.time(self.len() - 1) <= record.time);
        // Every field, packed without loss into four words.
        self.mix(record.time.0);
        self.mix(record.cpu as u64 | (record.ctx_pid as u64) << 32);
        self.mix(record.kind as u64 | (record.pid as u64) << 32);
        self.mix(record.arg0 as u64 | (record.arg1 as u64) << 32);
        self.total += 1;
        if self.full || (self.open.is_empty() && !self.start_chunk()) {
            return;
        }
        self.open.push(record);
        if self.open.len() == CHUNK {
            self.seal();
        }
    }

    /// A chunk starts: keeps it if it fits in the budget, or else marks the store full.
    #[inline(never)]
    fn start_chunk(&mut self) -> bool {
        if self.sealed_bytes + OPEN_BYTES > self.keep_bytes {
            self.full = true;
            self.open = Vec::new();
            self.scratch = Vec::new();
            return false;
        }
        self.open.reserve_exact(CHUNK);
        true
    }

    #[inline(never)]
    fn seal(&mut self) {
        let chunk = Chunk::seal(&self.open, &mut self.scratch);
        self.sealed_bytes += chunk.heap_bytes() + std::mem::size_of::<Chunk>();
        self.chunks.push(chunk);
        self.open.clear();
    }

    /// One word into the running hash: rotate, xor, multiply (a multiply per word,
    /// where a byte-wise hash such as FNV-1a takes one per byte).
    #[inline]
    fn mix(&mut self, word: u64) {
        self.hash = (self.hash.rotate_left(23) ^ word).wrapping_mul(HASH_K);
    }

    /// The hash over every record's fields, as a 16-digit hex string.
    pub fn hash_hex(&self) -> String {
        format!("{:016x}", self.hash)
    }

    /// Records pushed, kept or not.
    pub fn total(&self) -> u64 {
        self.total
    }

    /// Records kept: the first `len()` pushed.
    pub fn len(&self) -> usize {
        self.chunks.len() * CHUNK + self.open.len()
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The store has refused a chunk: records from `len()` on are not kept.
    pub fn is_full(&self) -> bool {
        self.full
    }

    /// The budget given to [`Trace::new`].
    pub fn keep_bytes(&self) -> usize {
        self.keep_bytes
    }

    /// What the budget counts: the sealed chunks (their packed words and reason bytes,
    /// and each one's entry in the chunk list) and, while records are kept, a full
    /// `open` buffer. It exceeds the budget by at most one chunk's packed bytes.
    pub fn kept_bytes(&self) -> usize {
        self.sealed_bytes + if self.full { 0 } else { OPEN_BYTES }
    }

    /// The store's heap memory as allocated (capacities, not lengths; the
    /// allocator's own headers not counted): the sealed chunks, the chunk list's
    /// spare capacity, the `open` buffer and the encoding scratch buffer.
    pub fn heap_bytes(&self) -> usize {
        let entry = std::mem::size_of::<Chunk>();
        self.sealed_bytes
            + (self.chunks.capacity() - self.chunks.len()) * entry
            + self.open.capacity() * std::mem::size_of::<TraceRecord>()
            + self.scratch.capacity()
    }

    /// Drops the kept records at index `len` and above (nothing when `len >= len()`).
    /// The count, the hash and the full state stay as they are: the hash cannot be
    /// rewound, so this is for a caller that restores them from a saved copy, as
    /// [`Trace::rewind`] does with a [`TraceMark`].
    pub fn truncate(&mut self, len: usize) {
        if len >= self.len() {
            return;
        }
        let (chunk, within) = (len / CHUNK, len % CHUNK);
        if chunk < self.chunks.len() {
            self.open.clear();
            if within > 0 {
                self.open.reserve_exact(CHUNK);
                let reopened = &self.chunks[chunk];
                self.open.extend((0..within).map(|i| reopened.record(i)));
            }
            for dropped in self.chunks.drain(chunk..) {
                self.sealed_bytes -= dropped.heap_bytes() + std::mem::size_of::<Chunk>();
            }
        } else {
            self.open.truncate(within);
        }
    }

    /// Where the trace stands now, for [`Trace::rewind`].
    pub fn mark(&self) -> TraceMark {
        TraceMark {
            len: self.len(),
            total: self.total,
            hash: self.hash,
            full: self.full,
        }
    }

    /// Puts the trace back where it stood at `mark` (taken from this trace, no later
    /// than now): drops the records kept since and restores the count, the hash and
    /// the full state. Pushing the same records again then gives the same trace as
    /// pushing them the first time.
    pub fn rewind(&mut self, mark: TraceMark) {
        assert!(
            mark.len <= self.len() && mark.total <= self.total,
            "a trace mark from ahead of the trace ({} kept of {}, the trace {} of {})",
            mark.len,
            mark.total,
            self.len(),
            self.total
        );
        self.truncate(mark.len);
        self.total = mark.total;
        self.hash = mark.hash;
        self.full = mark.full;
    }

    /// Where record `idx` is: its chunk, or `None` for the `open` buffer, and its
    /// index there. Panics past the kept records.
    #[inline]
    fn locate(&self, idx: usize) -> (Option<&Chunk>, usize) {
        let (chunk, within) = (idx / CHUNK, idx % CHUNK);
        match self.chunks.get(chunk) {
            Some(chunk) => (Some(chunk), within),
            None => {
                assert!(
                    chunk == self.chunks.len() && within < self.open.len(),
                    "trace record {idx} is not kept ({} are)",
                    self.len()
                );
                (None, within)
            }
        }
    }

    #[inline]
    pub fn time(&self, idx: usize) -> SimTime {
        match self.locate(idx) {
            (Some(chunk), i) => chunk.time(i),
            (None, i) => self.open[i].time,
        }
    }

    #[inline]
    pub fn cpu(&self, idx: usize) -> u32 {
        match self.locate(idx) {
            (Some(chunk), i) => chunk.cpu(i),
            (None, i) => self.open[i].cpu,
        }
    }

    /// The task current on the record's CPU when it fired (0 = idle).
    #[inline]
    pub fn ctx_pid(&self, idx: usize) -> u32 {
        match self.locate(idx) {
            (Some(chunk), i) => chunk.ctx_pid(i),
            (None, i) => self.open[i].ctx_pid,
        }
    }

    #[inline]
    pub fn kind(&self, idx: usize) -> TraceKind {
        match self.locate(idx) {
            (Some(chunk), i) => chunk.kind(i),
            (None, i) => self.open[i].kind,
        }
    }

    #[inline]
    pub fn pid(&self, idx: usize) -> u32 {
        match self.locate(idx) {
            (Some(chunk), i) => chunk.pid(i),
            (None, i) => self.open[i].pid,
        }
    }

    #[inline]
    pub fn arg0(&self, idx: usize) -> u32 {
        match self.locate(idx) {
            (Some(chunk), i) => chunk.arg0(i),
            (None, i) => self.open[i].arg0,
        }
    }

    #[inline]
    pub fn arg1(&self, idx: usize) -> u32 {
        match self.locate(idx) {
            (Some(chunk), i) => chunk.arg1(i),
            (None, i) => self.open[i].arg1,
        }
    }

    pub fn reason(&self, idx: usize) -> Reason {
        match self.locate(idx) {
            (Some(chunk), i) => chunk.reason(i),
            (None, i) => self.open[i].reason,
        }
    }

    /// Record `idx`, whole. Panics past the kept records.
    pub fn get(&self, idx: usize) -> TraceRecord {
        match self.locate(idx) {
            (Some(chunk), i) => chunk.record(i),
            (None, i) => self.open[i],
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
            let record = self.get(idx);
            let _ = write!(
                out,
                "{} [{:03}] {}: {}",
                record.time,
                record.cpu,
                record.kind.ftrace_name(),
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::policy::shared_runq::ShardSite;
    use crate::policy::turbo_pack::TurboDomain;

    /// A small deterministic generator (xorshift64*).
    struct Gen(u64);

    impl Gen {
        fn next(&mut self) -> u64 {
            self.0 ^= self.0 >> 12;
            self.0 ^= self.0 << 25;
            self.0 ^= self.0 >> 27;
            self.0.wrapping_mul(0x2545_f491_4f6c_dd1d)
        }

        fn below(&mut self, n: u64) -> u64 {
            self.next() % n
        }

        /// Mostly small numbers, sometimes any u32 (every varint length).
        fn field(&mut self) -> u32 {
            match self.below(4) {
                0 => self.next() as u32,
                1 => self.below(1 << 16) as u32,
                _ => self.below(80) as u32,
            }
        }

        fn flag(&mut self) -> bool {
            self.below(2) == 1
        }
    }

    fn any_reason(gen: &mut Gen) -> Reason {
        let affines = [
            Affine::NotTried,
            Affine::WakeWide,
            Affine::SameCpu,
            Affine::KeptPrev,
            Affine::ChoseWaker,
        ];
        let sites = [
            ShardSite::EnqueueTaskFair,
            ShardSite::PickNextTaskFair,
            ShardSite::DequeueTaskFair,
            ShardSite::EnqueueEntity,
            ShardSite::DequeueEntity,
            ShardSite::NewidleBalance,
        ];
        let domains = [TurboDomain::Llc, TurboDomain::Socket, TurboDomain::Node];
        match gen.below(18) {
            0..=3 => Reason::None,
            4 => {
                let step = match gen.below(10) {
                    0 => SisStep::TargetIdle,
                    1 => SisStep::PrevIdle,
                    2 => SisStep::RecentUsed,
                    3 => SisStep::IdleCore,
                    4 => SisStep::IdleCpu,
                    5 => SisStep::IdleSibling,
                    6 => SisStep::PackageScan {
                        first: gen.field(),
                        last: gen.field(),
                        found: gen.flag(),
                    },
                    7 => SisStep::NoneIdle,
                    _ => SisStep::AffinityFallback,
                };
                Reason::Wakeup {
                    affine: affines[gen.below(5) as usize],
                    step,
                    prev: gen.field(),
                    target: gen.field(),
                    llc: gen.field(),
                    scanned: gen.field(),
                    limit: gen.flag().then(|| gen.field()),
                }
            }
            5 => Reason::ForkIdlest {
                level: LevelTag(gen.field()),
                idle: gen.flag(),
            },
            6 => Reason::ForkNumaImbalance {
                level: LevelTag(gen.field()),
                local_running: gen.field(),
                allowance: gen.field(),
                imb_numa_nr: gen.field(),
            },
            7 => Reason::Pull {
                src: gen.field(),
                src_nr_running: gen.field(),
                level: LevelTag(gen.field()),
                newidle: gen.flag(),
            },
            8 => Reason::Fallback {
                from: gen.field(),
                broke_affinity: gen.flag(),
            },
            9 => [
                Reason::Pinned,
                Reason::PrevStopped,
                Reason::Throttled,
                Reason::LeftIdle,
            ][gen.below(4) as usize],
            10 => Reason::SliceExpired {
                ran_us: gen.field(),
                slice_us: gen.field(),
            },
            11 => Reason::WakeupPreempt {
                woken_pid: gen.field(),
            },
            12 => Reason::ShardPush {
                site: sites[gen.below(6) as usize],
            },
            13 => Reason::ShardPop {
                site: sites[gen.below(6) as usize],
            },
            14 => Reason::TurboPack {
                core: gen.field(),
                util_pct: gen.field(),
                domain: domains[gen.below(3) as usize],
                domain_id: gen.field(),
            },
            15 => Reason::FrequencyChange {
                not_deep: gen.field(),
                socket: gen.field(),
            },
            16 => Reason::LastBuddy { pid: gen.field() },
            _ => Reason::SharedRunqPull {
                shard: gen.field(),
                llc: gen.field(),
                src: gen.field(),
            },
        }
    }

    /// `n` records with times that mostly creep and sometimes jump far (up to the
    /// full 64 bits' range over the run), and fields of every size.
    fn records(seed: u64, n: usize) -> Vec<TraceRecord> {
        let mut gen = Gen(seed);
        let mut time = 0u64;
        (0..n)
            .map(|_| {
                time += match gen.below(100) {
                    0 => gen.next() >> 8,
                    1..=40 => 0,
                    _ => gen.below(2_000),
                };
                TraceRecord {
                    time: SimTime(time),
                    cpu: gen.field(),
                    ctx_pid: gen.field(),
                    kind: TraceKind::from_code(gen.below(13) as u8),
                    pid: gen.field(),
                    arg0: gen.field(),
                    arg1: gen.field(),
                    reason: any_reason(&mut gen),
                }
            })
            .collect()
    }

    fn filled(records: &[TraceRecord], keep_bytes: usize) -> Trace {
        let mut trace = Trace::new(keep_bytes);
        for record in records {
            trace.push(*record);
        }
        trace
    }

    fn assert_kept(trace: &Trace, records: &[TraceRecord]) {
        assert_eq!(trace.len(), records.len());
        for (idx, record) in records.iter().enumerate() {
            assert_eq!(trace.get(idx), *record, "record {idx}");
            assert_eq!(trace.time(idx), record.time);
            assert_eq!(trace.cpu(idx), record.cpu);
            assert_eq!(trace.ctx_pid(idx), record.ctx_pid);
            assert_eq!(trace.kind(idx), record.kind);
            assert_eq!(trace.pid(idx), record.pid);
            assert_eq!(trace.arg0(idx), record.arg0);
            assert_eq!(trace.arg1(idx), record.arg1);
            assert_eq!(trace.reason(idx), record.reason);
        }
    }

    #[test]
    fn every_record_reads_back_as_pushed() {
        let records = records(7, 5 * CHUNK + 321);
        let trace = filled(&records, usize::MAX);
        assert_kept(&trace, &records);
        assert_eq!(trace.total(), records.len() as u64);
        assert!(!trace.is_full());
    }

    #[test]
    fn a_budget_keeps_a_prefix_and_the_hash_covers_everything() {
        let records = records(11, 8 * CHUNK + 5);
        let whole = filled(&records, usize::MAX);
        let none = filled(&records, 0);
        assert_eq!(none.len(), 0);
        assert!(none.is_full());
        assert_eq!(none.heap_bytes(), 0);
        assert_eq!(none.total(), whole.total());
        assert_eq!(none.hash_hex(), whole.hash_hex());
        // Room for the open buffer and a few chunks: a whole number of chunks is kept.
        let budget = OPEN_BYTES + 3 * (whole.sealed_bytes / 8);
        let some = filled(&records, budget);
        assert!(some.is_full());
        assert!(!some.is_empty() && some.len() < records.len());
        assert_eq!(some.len() % CHUNK, 0);
        assert!(some.kept_bytes() <= budget);
        assert_eq!(some.hash_hex(), whole.hash_hex());
        assert_kept(&some, &records[..some.len()]);
    }

    #[test]
    fn truncate_drops_the_newest_records() {
        let records = records(3, 4 * CHUNK + 100);
        for len in [
            0,
            1,
            CHUNK - 1,
            CHUNK,
            CHUNK + 17,
            3 * CHUNK,
            4 * CHUNK + 50,
            records.len(),
        ] {
            let mut trace = filled(&records, usize::MAX);
            trace.truncate(len);
            assert_kept(&trace, &records[..len]);
            // It goes on from there like a trace that only ever had those records.
            for record in &records[len..] {
                trace.push(*record);
            }
            assert_kept(&trace, &records);
        }
    }

    #[test]
    fn rewinding_to_a_mark_and_pushing_again_matches_a_straight_run() {
        let records = records(5, 6 * CHUNK + 200);
        for budget in [usize::MAX, OPEN_BYTES + 20_000, 0] {
            let straight = filled(&records, budget);
            for at in [0, 10, CHUNK, 2 * CHUNK + 300, 5 * CHUNK + 1] {
                let mut trace = filled(&records[..at], budget);
                let mark = trace.mark();
                // Run on (past the budget when there is one), then go back.
                for record in &records[at..] {
                    trace.push(*record);
                }
                trace.rewind(mark);
                assert_eq!(trace.mark(), mark);
                assert_eq!(trace.total(), at as u64);
                for record in &records[at..] {
                    trace.push(*record);
                }
                assert_eq!(trace.hash_hex(), straight.hash_hex(), "mark at {at}");
                assert_eq!(trace.total(), straight.total());
                assert_eq!(trace.is_full(), straight.is_full());
                assert_eq!(trace.kept_bytes(), straight.kept_bytes());
                let kept: Vec<TraceRecord> = (0..straight.len()).map(|i| straight.get(i)).collect();
                assert_kept(&trace, &kept);
            }
        }
    }

    #[test]
    fn the_hash_changes_with_any_one_field_and_follows_its_formula() {
        let mut gen = Gen(9);
        let words = |r: &TraceRecord| {
            [
                r.time.0,
                r.cpu as u64 | (r.ctx_pid as u64) << 32,
                r.kind as u64 | (r.pid as u64) << 32,
                r.arg0 as u64 | (r.arg1 as u64) << 32,
            ]
        };
        let base = records(3, 200);
        let hash_of = |list: &[TraceRecord]| {
            let mut trace = Trace::new(0);
            for record in list {
                trace.push(*record);
            }
            trace.hash
        };
        // The formula, written out.
        let mut expected = HASH_SEED;
        for record in &base {
            for word in words(record) {
                expected = (expected.rotate_left(23) ^ word).wrapping_mul(HASH_K);
            }
        }
        assert_eq!(hash_of(&base), expected);
        // One field of one record changed, whichever: another hash.
        for _ in 0..2_000 {
            let mut changed = base.clone();
            let at = gen.below(changed.len() as u64) as usize;
            let record = &mut changed[at];
            let flip = 1u32 << gen.below(32);
            match gen.below(6) {
                0 => record.time = SimTime(record.time.0 ^ (1 << gen.below(20))),
                1 => record.cpu ^= flip,
                2 => record.ctx_pid ^= flip,
                3 => record.pid ^= flip,
                4 => record.arg0 ^= flip,
                _ => record.arg1 ^= flip,
            }
            let record = changed[at];
            assert_ne!(hash_of(&changed), hash_of(&base), "record {at}: {record:?}");
        }
    }

    #[test]
    #[should_panic(expected = "not kept")]
    fn reading_past_the_kept_records_panics() {
        let trace = filled(&records(1, CHUNK + 3), usize::MAX);
        trace.get(CHUNK + 3);
    }
}
