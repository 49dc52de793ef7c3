//! How the trace keeps its records: sealed chunks of [`CHUNK`] records, each field a
//! column of bit-packed offsets from the chunk's smallest value, and each record's
//! [`Reason`] as a small tag column plus a byte stream.
//!
//! Why this shape. A record is eight fields (time, CPU, context pid, kind, pid, two
//! arguments, reason) whose values vary little from one record to the next: within
//! 1,024 records of tbench on 72 CPUs the times span about 170 us (18 bits above the
//! chunk's first), CPUs need 7 bits, pids 8 to 11, kinds 2 or 3, a switch's
//! `prev_state` 1 or 2. Storing each field at full width (the plain columns took 69
//! bytes a record) wastes most of it; frame-of-reference packing per chunk keeps
//! 6 to 8 bytes for the plain fields while leaving every field one or two word reads
//! away, so `get(idx)` and the single-field accessors stay O(1).
//!
//! Reasons are the other half. Most records carry `Reason::None` (a `sched_waking`)
//! or a reason without fields (`PrevStopped`, `LeftIdle`, `Pinned`); the rest carry a
//! few small numbers (CPUs, counts, a pid, microseconds). A reason is stored as its
//! tag in a bit-packed column (common tags get the small numbers, so a chunk's tags
//! usually fit in 2 or 3 bits) and its fields as LEB128 varints in the chunk's byte
//! stream (a typical wakeup placement takes 5 or 6 bytes, a field-less reason none).
//! Every [`ANCHOR`]th record has the byte offset of its payload in an anchor column,
//! so a reason is decoded after skipping at most `ANCHOR - 1` payloads: O(1), and
//! the anchors cost under one bit a record.
//!
//! Records are sealed a whole chunk at a time: the trace keeps the newest records
//! (fewer than a chunk) as plain [`TraceRecord`]s and packs them once the chunk is
//! complete, which needs the chunk's minimum and maximum of each field. Each sealed
//! chunk is one exactly sized allocation of packed words plus one of payload bytes.

use super::{Affine, LevelTag, Reason, SisStep, TraceKind, TraceRecord};
use crate::packed::{bit_width, read_bits, BitWriter};
use crate::policy::shared_runq::ShardSite;
use crate::policy::turbo_pack::TurboDomain;
use crate::time::SimTime;

/// Records per sealed chunk. Larger chunks need wider time offsets (about 2 bits more
/// each time the chunk grows fourfold) and smaller ones more per-chunk overhead; at
/// 1,024 the overhead (one `Chunk` entry and two allocations) is a fraction of a
/// byte a record.
pub(super) const CHUNK: usize = 1024;

/// A reason payload's byte offset is stored for every this many records.
const ANCHOR: usize = 16;

const COL_TIME: usize = 0;
const COL_CPU: usize = 1;
const COL_CTX_PID: usize = 2;
const COL_KIND: usize = 3;
const COL_PID: usize = 4;
const COL_ARG0: usize = 5;
const COL_ARG1: usize = 6;
const COL_TAG: usize = 7;
const COL_ANCHOR: usize = 8;
const N_COLS: usize = 9;

/// The fields of a chunk's records, each a column of bit-packed offsets from the
/// column's smallest value.
#[derive(Clone, Debug)]
pub(super) struct Chunk {
    /// Each column's smallest value.
    base: [u64; N_COLS],
    /// Each column's width in bits; 0 when every value equals the base.
    width: [u8; N_COLS],
    /// Each column's first bit in `words`.
    start: [u32; N_COLS],
    words: Box<[u64]>,
    /// The reasons' fields, record after record (see [`encode_reason`]).
    payload: Box<[u8]>,
}

impl Chunk {
    /// Packs `records` (at most [`CHUNK`]; the trace seals only whole chunks).
    /// `scratch` is reused between calls for the reason payload.
    pub(super) fn seal(records: &[TraceRecord], scratch: &mut Vec<u8>) -> Chunk {
        let n = records.len();
        assert!(n > 0 && n <= CHUNK, "a chunk holds 1 to {CHUNK} records");
        scratch.clear();
        let mut tags = [0u8; CHUNK];
        let mut anchors = [0u32; CHUNK / ANCHOR];
        // One pass: the reasons' bytes, and each column's smallest and largest value.
        let mut min = [u64::MAX; COL_ANCHOR];
        let mut max = [0u64; COL_ANCHOR];
        for (idx, record) in records.iter().enumerate() {
            if idx % ANCHOR == 0 {
                anchors[idx / ANCHOR] = scratch.len() as u32;
            }
            let tag = encode_reason(&record.reason, scratch);
            tags[idx] = tag;
            let values = [
                record.time.0,
                record.cpu as u64,
                record.ctx_pid as u64,
                record.kind as u64,
                record.pid as u64,
                record.arg0 as u64,
                record.arg1 as u64,
                tag as u64,
            ];
            for col in 0..COL_ANCHOR {
                min[col] = min[col].min(values[col]);
                max[col] = max[col].max(values[col]);
            }
        }
        let n_anchors = n.div_ceil(ANCHOR);
        let mut plans = [(0u64, 0u8); N_COLS];
        for col in 0..COL_ANCHOR {
            plans[col] = (min[col], bit_width(max[col] - min[col]));
        }
        // Anchors only grow, from 0.
        plans[COL_ANCHOR] = (0, bit_width(anchors[n_anchors - 1] as u64));
        let mut start = [0u32; N_COLS];
        let mut bits = 0usize;
        for (col, (_, width)) in plans.iter().enumerate() {
            start[col] = bits as u32;
            let len = if col == COL_ANCHOR { n_anchors } else { n };
            bits += len * *width as usize;
        }
        let mut words = vec![0u64; bits.div_ceil(64)].into_boxed_slice();
        // The columns lie one after the other, in order: one writer fills them all.
        let mut out = BitWriter::new(&mut words);
        out.column(plans[COL_TIME], n, |i| records[i].time.0);
        out.column(plans[COL_CPU], n, |i| records[i].cpu as u64);
        out.column(plans[COL_CTX_PID], n, |i| records[i].ctx_pid as u64);
        out.column(plans[COL_KIND], n, |i| records[i].kind as u64);
        out.column(plans[COL_PID], n, |i| records[i].pid as u64);
        out.column(plans[COL_ARG0], n, |i| records[i].arg0 as u64);
        out.column(plans[COL_ARG1], n, |i| records[i].arg1 as u64);
        out.column(plans[COL_TAG], n, |i| tags[i] as u64);
        out.column(plans[COL_ANCHOR], n_anchors, |i| anchors[i] as u64);
        out.finish();
        Chunk {
            base: plans.map(|(base, _)| base),
            width: plans.map(|(_, width)| width),
            start,
            words,
            payload: scratch.as_slice().into(),
        }
    }

    /// Bytes of the chunk's two allocations.
    pub(super) fn heap_bytes(&self) -> usize {
        self.words.len() * std::mem::size_of::<u64>() + self.payload.len()
    }

    #[inline]
    fn read(&self, col: usize, i: usize) -> u64 {
        let width = self.width[col] as u32;
        if width == 0 {
            return self.base[col];
        }
        self.base[col]
            + read_bits(
                &self.words,
                self.start[col] as usize + i * width as usize,
                width,
            )
    }

    #[inline]
    pub(super) fn time(&self, i: usize) -> SimTime {
        SimTime(self.read(COL_TIME, i))
    }

    #[inline]
    pub(super) fn cpu(&self, i: usize) -> u32 {
        self.read(COL_CPU, i) as u32
    }

    #[inline]
    pub(super) fn ctx_pid(&self, i: usize) -> u32 {
        self.read(COL_CTX_PID, i) as u32
    }

    #[inline]
    pub(super) fn kind(&self, i: usize) -> TraceKind {
        TraceKind::from_code(self.read(COL_KIND, i) as u8)
    }

    #[inline]
    pub(super) fn pid(&self, i: usize) -> u32 {
        self.read(COL_PID, i) as u32
    }

    #[inline]
    pub(super) fn arg0(&self, i: usize) -> u32 {
        self.read(COL_ARG0, i) as u32
    }

    #[inline]
    pub(super) fn arg1(&self, i: usize) -> u32 {
        self.read(COL_ARG1, i) as u32
    }

    /// Record `i`'s reason: decoded from its anchor, skipping the payloads of the
    /// records between.
    pub(super) fn reason(&self, i: usize) -> Reason {
        let tag = self.read(COL_TAG, i) as u8;
        if !has_payload(tag) {
            return decode_reason(tag, &self.payload, &mut 0);
        }
        let first = i - i % ANCHOR;
        let mut pos = self.read(COL_ANCHOR, i / ANCHOR) as usize;
        for j in first..i {
            let skipped = self.read(COL_TAG, j) as u8;
            if has_payload(skipped) {
                decode_reason(skipped, &self.payload, &mut pos);
            }
        }
        decode_reason(tag, &self.payload, &mut pos)
    }

    pub(super) fn record(&self, i: usize) -> TraceRecord {
        TraceRecord {
            time: self.time(i),
            cpu: self.cpu(i),
            ctx_pid: self.ctx_pid(i),
            kind: self.kind(i),
            pid: self.pid(i),
            arg0: self.arg0(i),
            arg1: self.arg1(i),
            reason: self.reason(i),
        }
    }
}

// Reason tags, the most frequent first so that a chunk's tags need few bits.
const TAG_NONE: u8 = 0;
const TAG_WAKEUP: u8 = 1;
const TAG_PREV_STOPPED: u8 = 2;
const TAG_WAKEUP_PREEMPT: u8 = 3;
const TAG_LEFT_IDLE: u8 = 4;
const TAG_SLICE_EXPIRED: u8 = 5;
const TAG_PINNED: u8 = 6;
const TAG_PULL: u8 = 7;
const TAG_FORK_IDLEST: u8 = 8;
const TAG_FORK_NUMA_IMBALANCE: u8 = 9;
const TAG_FALLBACK: u8 = 10;
const TAG_THROTTLED: u8 = 11;
const TAG_SHARD_PUSH: u8 = 12;
const TAG_SHARD_POP: u8 = 13;
const TAG_SHARED_RUNQ_PULL: u8 = 14;
const TAG_TURBO_PACK: u8 = 15;
const TAG_FREQUENCY_CHANGE: u8 = 16;
const TAG_LAST_BUDDY: u8 = 17;

fn has_payload(tag: u8) -> bool {
    !matches!(
        tag,
        TAG_NONE | TAG_PREV_STOPPED | TAG_LEFT_IDLE | TAG_PINNED | TAG_THROTTLED
    )
}

fn put(out: &mut Vec<u8>, mut value: u64) {
    while value >= 0x80 {
        out.push(value as u8 | 0x80);
        value >>= 7;
    }
    out.push(value as u8);
}

fn take(bytes: &[u8], pos: &mut usize) -> u64 {
    let mut value = 0u64;
    let mut shift = 0;
    loop {
        let byte = bytes[*pos];
        *pos += 1;
        value |= ((byte & 0x7f) as u64) << shift;
        if byte < 0x80 {
            return value;
        }
        shift += 7;
    }
}

fn take_u32(bytes: &[u8], pos: &mut usize) -> u32 {
    take(bytes, pos) as u32
}

const AFFINES: [Affine; 5] = [
    Affine::NotTried,
    Affine::WakeWide,
    Affine::SameCpu,
    Affine::KeptPrev,
    Affine::ChoseWaker,
];

const SHARD_SITES: [ShardSite; 6] = [
    ShardSite::EnqueueTaskFair,
    ShardSite::PickNextTaskFair,
    ShardSite::DequeueTaskFair,
    ShardSite::EnqueueEntity,
    ShardSite::DequeueEntity,
    ShardSite::NewidleBalance,
];

const TURBO_DOMAINS: [TurboDomain; 3] = [TurboDomain::Llc, TurboDomain::Socket, TurboDomain::Node];

fn shard_site_code(site: ShardSite) -> u64 {
    match site {
        ShardSite::EnqueueTaskFair => 0,
        ShardSite::PickNextTaskFair => 1,
        ShardSite::DequeueTaskFair => 2,
        ShardSite::EnqueueEntity => 3,
        ShardSite::DequeueEntity => 4,
        ShardSite::NewidleBalance => 5,
    }
}

fn turbo_domain_code(domain: TurboDomain) -> u64 {
    match domain {
        TurboDomain::Llc => 0,
        TurboDomain::Socket => 1,
        TurboDomain::Node => 2,
    }
}

/// Appends the reason's fields to `out` and returns its tag. A wakeup placement
/// writes one byte (the `wake_affine` outcome in bits 0-2, the
/// `select_idle_sibling` step in bits 3-6, whether a scan limit follows in bit 7),
/// then its CPUs and counts; a flag that goes with a number is folded into it
/// (`2 * number + flag`).
pub(super) fn encode_reason(reason: &Reason, out: &mut Vec<u8>) -> u8 {
    match *reason {
        Reason::None => TAG_NONE,
        Reason::Wakeup {
            affine,
            step,
            prev,
            target,
            llc,
            scanned,
            limit,
        } => {
            let affine_code = match affine {
                Affine::NotTried => 0,
                Affine::WakeWide => 1,
                Affine::SameCpu => 2,
                Affine::KeptPrev => 3,
                Affine::ChoseWaker => 4,
            };
            let (step_code, scan) = match step {
                SisStep::TargetIdle => (0, None),
                SisStep::PrevIdle => (1, None),
                SisStep::RecentUsed => (2, None),
                SisStep::IdleCore => (3, None),
                SisStep::IdleCpu => (4, None),
                SisStep::IdleSibling => (5, None),
                SisStep::PackageScan { first, last, found } => {
                    (if found { 7 } else { 6 }, Some((first, last)))
                }
                SisStep::NoneIdle => (8, None),
                SisStep::AffinityFallback => (9, None),
            };
            out.push(affine_code | step_code << 3 | (limit.is_some() as u8) << 7);
            for value in [prev, target, llc, scanned] {
                put(out, value as u64);
            }
            if let Some(limit) = limit {
                put(out, limit as u64);
            }
            if let Some((first, last)) = scan {
                put(out, first as u64);
                put(out, last as u64);
            }
            TAG_WAKEUP
        }
        Reason::ForkIdlest { level, idle } => {
            put(out, 2 * level.0 as u64 + idle as u64);
            TAG_FORK_IDLEST
        }
        Reason::ForkNumaImbalance {
            level,
            local_running,
            allowance,
            imb_numa_nr,
        } => {
            for value in [level.0, local_running, allowance, imb_numa_nr] {
                put(out, value as u64);
            }
            TAG_FORK_NUMA_IMBALANCE
        }
        Reason::Pull {
            src,
            src_nr_running,
            level,
            newidle,
        } => {
            put(out, src as u64);
            put(out, src_nr_running as u64);
            put(out, 2 * level.0 as u64 + newidle as u64);
            TAG_PULL
        }
        Reason::Fallback {
            from,
            broke_affinity,
        } => {
            put(out, 2 * from as u64 + broke_affinity as u64);
            TAG_FALLBACK
        }
        Reason::Pinned => TAG_PINNED,
        Reason::SliceExpired { ran_us, slice_us } => {
            put(out, ran_us as u64);
            put(out, slice_us as u64);
            TAG_SLICE_EXPIRED
        }
        Reason::WakeupPreempt { woken_pid } => {
            put(out, woken_pid as u64);
            TAG_WAKEUP_PREEMPT
        }
        Reason::PrevStopped => TAG_PREV_STOPPED,
        Reason::LastBuddy { pid } => {
            put(out, pid as u64);
            TAG_LAST_BUDDY
        }
        Reason::Throttled => TAG_THROTTLED,
        Reason::LeftIdle => TAG_LEFT_IDLE,
        Reason::ShardPush { site } => {
            put(out, shard_site_code(site));
            TAG_SHARD_PUSH
        }
        Reason::ShardPop { site } => {
            put(out, shard_site_code(site));
            TAG_SHARD_POP
        }
        Reason::TurboPack {
            core,
            util_pct,
            domain,
            domain_id,
        } => {
            put(out, core as u64);
            put(out, util_pct as u64);
            put(out, 3 * domain_id as u64 + turbo_domain_code(domain));
            TAG_TURBO_PACK
        }
        Reason::FrequencyChange { not_deep, socket } => {
            put(out, not_deep as u64);
            put(out, socket as u64);
            TAG_FREQUENCY_CHANGE
        }
        Reason::SharedRunqPull { shard, llc, src } => {
            for value in [shard, llc, src] {
                put(out, value as u64);
            }
            TAG_SHARED_RUNQ_PULL
        }
    }
}

/// The reason [`encode_reason`] wrote as `tag` and the bytes from `pos`; moves `pos`
/// past them.
pub(super) fn decode_reason(tag: u8, bytes: &[u8], pos: &mut usize) -> Reason {
    match tag {
        TAG_NONE => Reason::None,
        TAG_WAKEUP => {
            let head = bytes[*pos];
            *pos += 1;
            let affine = AFFINES[(head & 0x7) as usize];
            let prev = take_u32(bytes, pos);
            let target = take_u32(bytes, pos);
            let llc = take_u32(bytes, pos);
            let scanned = take_u32(bytes, pos);
            let limit = (head & 0x80 != 0).then(|| take_u32(bytes, pos));
            let step = match (head >> 3) & 0xf {
                0 => SisStep::TargetIdle,
                1 => SisStep::PrevIdle,
                2 => SisStep::RecentUsed,
                3 => SisStep::IdleCore,
                4 => SisStep::IdleCpu,
                5 => SisStep::IdleSibling,
                code @ (6 | 7) => SisStep::PackageScan {
                    first: take_u32(bytes, pos),
                    last: take_u32(bytes, pos),
                    found: code == 7,
                },
                8 => SisStep::NoneIdle,
                9 => SisStep::AffinityFallback,
                code => unreachable!("no select_idle_sibling step has code {code}"),
            };
            Reason::Wakeup {
                affine,
                step,
                prev,
                target,
                llc,
                scanned,
                limit,
            }
        }
        TAG_FORK_IDLEST => {
            let packed = take(bytes, pos);
            Reason::ForkIdlest {
                level: LevelTag((packed / 2) as u32),
                idle: packed % 2 == 1,
            }
        }
        TAG_FORK_NUMA_IMBALANCE => Reason::ForkNumaImbalance {
            level: LevelTag(take_u32(bytes, pos)),
            local_running: take_u32(bytes, pos),
            allowance: take_u32(bytes, pos),
            imb_numa_nr: take_u32(bytes, pos),
        },
        TAG_PULL => {
            let src = take_u32(bytes, pos);
            let src_nr_running = take_u32(bytes, pos);
            let packed = take(bytes, pos);
            Reason::Pull {
                src,
                src_nr_running,
                level: LevelTag((packed / 2) as u32),
                newidle: packed % 2 == 1,
            }
        }
        TAG_FALLBACK => {
            let packed = take(bytes, pos);
            Reason::Fallback {
                from: (packed / 2) as u32,
                broke_affinity: packed % 2 == 1,
            }
        }
        TAG_PINNED => Reason::Pinned,
        TAG_SLICE_EXPIRED => Reason::SliceExpired {
            ran_us: take_u32(bytes, pos),
            slice_us: take_u32(bytes, pos),
        },
        TAG_WAKEUP_PREEMPT => Reason::WakeupPreempt {
            woken_pid: take_u32(bytes, pos),
        },
        TAG_PREV_STOPPED => Reason::PrevStopped,
        TAG_LAST_BUDDY => Reason::LastBuddy {
            pid: take_u32(bytes, pos),
        },
        TAG_THROTTLED => Reason::Throttled,
        TAG_LEFT_IDLE => Reason::LeftIdle,
        TAG_SHARD_PUSH => Reason::ShardPush {
            site: SHARD_SITES[take(bytes, pos) as usize],
        },
        TAG_SHARD_POP => Reason::ShardPop {
            site: SHARD_SITES[take(bytes, pos) as usize],
        },
        TAG_TURBO_PACK => {
            let core = take_u32(bytes, pos);
            let util_pct = take_u32(bytes, pos);
            let packed = take(bytes, pos);
            Reason::TurboPack {
                core,
                util_pct,
                domain: TURBO_DOMAINS[(packed % 3) as usize],
                domain_id: (packed / 3) as u32,
            }
        }
        TAG_FREQUENCY_CHANGE => Reason::FrequencyChange {
            not_deep: take_u32(bytes, pos),
            socket: take_u32(bytes, pos),
        },
        TAG_SHARED_RUNQ_PULL => Reason::SharedRunqPull {
            shard: take_u32(bytes, pos),
            llc: take_u32(bytes, pos),
            src: take_u32(bytes, pos),
        },
        tag => unreachable!("no reason has tag {tag}"),
    }
}
