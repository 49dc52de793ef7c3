//! The `cfs_rq` / `sched_entity` struct reordering (seed 002, Zecheng Li, 2025,
//! against 6.15): a cache-line model of the two structures.
//!
//! Each structure is a list of fields with sizes and alignments
//! (`struct_layout_data`), laid out in order into 64-byte lines. Each operation the
//! simulator performs on a CPU (`StructOp`: enqueue, dequeue, pick, put, the
//! load-average update, runtime accounting, the throttle and unthrottle walks)
//! names the fields it reads and writes; the lines holding them go through a cache
//! model of the CPU doing it, and misses are counted per operation and per
//! structure, and charged at the machine's refill cost per line.
//!
//! The cache model (simplifications, also in docs/MODEL-STATUS.md):
//! - each CPU keeps the scheduler's lines in an LRU cache of
//!   [`CACHE_BYTES_PER_CPU`] (its share of a last-level cache); the age of a line
//!   is approximated by the lines touched on that CPU since (the kernel's own,
//!   repeats included, and the footprint of each task that starts running there,
//!   which pushes the kernel's lines out): a line hits while fewer than the capacity
//!   came after it;
//! - a line is held by the last CPU that touched it: an access from another CPU
//!   misses (a read takes the line as a write would) and is charged the cross-LLC
//!   refill cost;
//! - only the two structures are modelled: the task group, `cfs_bandwidth`, the
//!   runqueue and the rest of the kernel's data are not.

use crate::engine::Simulator;
use crate::policy::struct_layout_data::{self as data, FieldDef, LAYOUT_KERNEL};
use crate::task::TaskId;
use crate::topology::CpuId;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// The cache each CPU keeps the scheduler's lines in: a 1 MiB share of a
/// last-level cache (a 32 MiB L3 over 16 threads gives 2 MiB, a 1.375 MiB-per-core
/// L3 over 2 threads 0.69 MiB).
pub const CACHE_BYTES_PER_CPU: u64 = 1 << 20;

pub const LINE_BYTES: u32 = 64;

/// An operation on `sched_entity` and `cfs_rq` fields that the model counts.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum StructOp {
    /// `enqueue_entity()`, one level (its `update_load_avg()` is [`StructOp::UpdateLoadAvg`]).
    Enqueue,
    /// `dequeue_entity()`, one level.
    Dequeue,
    /// `set_next_entity()`, one level of the pick.
    SetNext,
    /// `put_prev_entity()`, one level.
    PutPrev,
    /// `entity_tick()`: `update_curr()`, one level.
    Tick,
    /// `update_load_avg()` of an entity and its cfs_rq (`__update_load_avg_se()`,
    /// `update_cfs_rq_load_avg()`, `propagate_entity_load_avg()`,
    /// `update_tg_load_avg()`), as enqueue, dequeue, the pick, put and the tick call
    /// it at each level.
    UpdateLoadAvg,
    /// `account_cfs_rq_runtime()` on a cfs_rq with a quota.
    AccountRuntime,
    /// `tg_throttle_down()` on one cfs_rq.
    TgThrottleDown,
    /// `tg_unthrottle_up()` on one cfs_rq.
    TgUnthrottleUp,
    /// `distribute_cfs_runtime()` on one throttled cfs_rq, from the period timer's
    /// CPU.
    DistributeRuntime,
    /// `update_blocked_averages()` → `__update_blocked_fair()` on one leaf cfs_rq
    /// and its group entity.
    BlockedAverages,
    /// The same, on the parent cfs_rq the group entity's load is propagated to.
    BlockedParent,
}

impl StructOp {
    pub const ALL: [StructOp; 12] = [
        StructOp::Enqueue,
        StructOp::Dequeue,
        StructOp::SetNext,
        StructOp::PutPrev,
        StructOp::Tick,
        StructOp::UpdateLoadAvg,
        StructOp::AccountRuntime,
        StructOp::TgThrottleDown,
        StructOp::TgUnthrottleUp,
        StructOp::DistributeRuntime,
        StructOp::BlockedAverages,
        StructOp::BlockedParent,
    ];

    /// The kernel function the operation stands for.
    pub fn name(self) -> &'static str {
        match self {
            StructOp::Enqueue => "enqueue_entity",
            StructOp::Dequeue => "dequeue_entity",
            StructOp::SetNext => "set_next_entity",
            StructOp::PutPrev => "put_prev_entity",
            StructOp::Tick => "entity_tick",
            StructOp::AccountRuntime => "account_cfs_rq_runtime",
            StructOp::TgThrottleDown => "tg_throttle_down",
            StructOp::TgUnthrottleUp => "tg_unthrottle_up",
            StructOp::DistributeRuntime => "distribute_cfs_runtime",
            StructOp::UpdateLoadAvg => "update_load_avg",
            StructOp::BlockedAverages | StructOp::BlockedParent => "update_blocked_averages",
        }
    }

    /// For an operation that calls `update_load_avg()` on its entity: whether it
    /// does so before its own work (enqueue, dequeue and the tick) or after it
    /// (`set_next_entity`, `put_prev_entity`).
    fn load_avg_first(self) -> Option<bool> {
        match self {
            StructOp::Enqueue | StructOp::Dequeue | StructOp::Tick => Some(true),
            StructOp::SetNext | StructOp::PutPrev => Some(false),
            _ => None,
        }
    }
}

/// Which `sched_entity` an operation touches.
#[derive(Clone, Copy, Debug)]
pub enum Se {
    /// A task's own entity.
    Task(TaskId),
    /// A group's entity on the CPU (`tg->se[cpu]`).
    Group(u32),
}

/// Which `cfs_rq` an operation touches, on the CPU.
#[derive(Clone, Copy, Debug)]
pub enum Rq {
    /// The CPU's root `rq->cfs`.
    Root,
    /// A group's `tg->cfs_rq[cpu]`.
    Group(u32),
}

impl Rq {
    pub fn of(group: Option<u32>) -> Rq {
        group.map_or(Rq::Root, Rq::Group)
    }
}

/// `policy.struct_layout`: the field order of both structures.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(untagged)]
pub enum StructLayoutSpec {
    /// `"original"` (6.15's declaration order) or `"reordered"` (the patch's).
    Named(LayoutName),
    /// An explicit order: every field of the structure, once each. A structure left
    /// out keeps its 6.15 order.
    Explicit {
        #[serde(default, skip_serializing_if = "Option::is_none")]
        cfs_rq: Option<Vec<String>>,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        sched_entity: Option<Vec<String>>,
    },
    #[default]
    #[serde(skip)]
    Unset,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum LayoutName {
    Original,
    Reordered,
}

/// One structure laid out: the line of each field, and how many lines it spans.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct StructLayout {
    pub name: &'static str,
    /// Fields in layout order with their offsets.
    pub fields: Vec<PlacedField>,
    pub size: u32,
    pub lines: u32,
}

#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct PlacedField {
    pub name: &'static str,
    pub offset: u32,
    pub size: u32,
}

impl StructLayout {
    /// Lays `order` out with natural alignment; `breaks` start a new 64-byte line
    /// (the patch's aligned cache groups). Errors name what is wrong.
    pub fn place(
        name: &'static str,
        defs: &[FieldDef],
        order: &[&str],
    ) -> Result<StructLayout, String> {
        let mut seen = vec![false; defs.len()];
        let mut fields = Vec::with_capacity(defs.len());
        let mut offset = 0u32;
        let mut max_align = 1u32;
        let mut line_break = false;
        for &field in order {
            if field == data::LINE_BREAK {
                line_break = true;
                continue;
            }
            let Some(idx) = defs.iter().position(|def| def.name == field) else {
                return Err(format!("{name} has no field `{field}`"));
            };
            if std::mem::replace(&mut seen[idx], true) {
                return Err(format!("{name}: field `{field}` is listed twice"));
            }
            let def = &defs[idx];
            let align = if line_break { LINE_BYTES } else { def.align };
            line_break = false;
            max_align = max_align.max(def.align);
            offset = offset.next_multiple_of(align);
            fields.push(PlacedField {
                name: def.name,
                offset,
                size: def.size,
            });
            offset += def.size;
        }
        if let Some(missing) = defs.iter().zip(&seen).find(|(_, seen)| !**seen) {
            return Err(format!("{name}: field `{}` is missing", missing.0.name));
        }
        let size = offset.next_multiple_of(max_align);
        Ok(StructLayout {
            name,
            fields,
            size,
            lines: size.div_ceil(LINE_BYTES),
        })
    }

    /// The lines (bit i = line i) holding any of `names`.
    fn line_mask(&self, names: &[&str]) -> u64 {
        let mut mask = 0u64;
        for field in &self.fields {
            if names.contains(&field.name) {
                let first = field.offset / LINE_BYTES;
                let last = (field.offset + field.size.max(1) - 1) / LINE_BYTES;
                for line in first..=last {
                    mask |= 1 << line;
                }
            }
        }
        mask
    }
}

/// The layouts a spec names, or what is wrong with it.
pub fn resolve_layouts(spec: &StructLayoutSpec) -> Result<(StructLayout, StructLayout), String> {
    let (se_order, rq_order): (Vec<&str>, Vec<&str>) = match spec {
        StructLayoutSpec::Unset | StructLayoutSpec::Named(LayoutName::Original) => (
            data::SCHED_ENTITY.iter().map(|f| f.name).collect(),
            data::CFS_RQ.iter().map(|f| f.name).collect(),
        ),
        StructLayoutSpec::Named(LayoutName::Reordered) => (
            data::SCHED_ENTITY_REORDERED.to_vec(),
            data::CFS_RQ_REORDERED.to_vec(),
        ),
        StructLayoutSpec::Explicit {
            cfs_rq,
            sched_entity,
        } => (
            match sched_entity {
                Some(order) => order.iter().map(|s| s.as_str()).collect(),
                None => data::SCHED_ENTITY.iter().map(|f| f.name).collect(),
            },
            match cfs_rq {
                Some(order) => order.iter().map(|s| s.as_str()).collect(),
                None => data::CFS_RQ.iter().map(|f| f.name).collect(),
            },
        ),
    };
    let se = StructLayout::place("sched_entity", data::SCHED_ENTITY, &se_order)?;
    let rq = StructLayout::place("cfs_rq", data::CFS_RQ, &rq_order)?;
    Ok((se, rq))
}

/// What the app's layout lab draws: both structures laid out, and the fields each
/// operation reads and writes.
#[derive(Clone, Debug, Serialize)]
pub struct LayoutReport {
    pub kernel: &'static str,
    pub sched_entity: StructLayout,
    pub cfs_rq: StructLayout,
    /// Every field with its size and alignment, in 6.15's order.
    pub defs: std::collections::BTreeMap<&'static str, Vec<FieldDefOut>>,
    pub operations: Vec<OpReport>,
}

#[derive(Clone, Debug, Serialize)]
pub struct FieldDefOut {
    pub name: &'static str,
    pub size: u32,
    pub align: u32,
}

#[derive(Clone, Debug, Serialize)]
pub struct OpReport {
    pub operation: &'static str,
    pub sched_entity: OpFieldsOut,
    pub cfs_rq: OpFieldsOut,
}

#[derive(Clone, Debug, Default, Serialize)]
pub struct OpFieldsOut {
    pub read: Vec<&'static str>,
    pub write: Vec<&'static str>,
}

fn merge(into: &mut Vec<&'static str>, from: &[&'static str]) {
    for name in from {
        if !into.contains(name) {
            into.push(name);
        }
    }
}

/// The layout report for a spec, or what is wrong with it.
pub fn layout_report(spec: &StructLayoutSpec) -> Result<LayoutReport, String> {
    let (sched_entity, cfs_rq) = resolve_layouts(spec)?;
    let mut operations: Vec<OpReport> = Vec::new();
    for op in StructOp::ALL {
        let row = match operations
            .iter_mut()
            .position(|row| row.operation == op.name())
        {
            Some(found) => &mut operations[found],
            None => {
                operations.push(OpReport {
                    operation: op.name(),
                    sched_entity: OpFieldsOut::default(),
                    cfs_rq: OpFieldsOut::default(),
                });
                operations.last_mut().expect("just pushed")
            }
        };
        for fields in data::op_fields(op) {
            merge(&mut row.sched_entity.read, fields.se_read);
            merge(&mut row.sched_entity.write, fields.se_write);
            merge(&mut row.cfs_rq.read, fields.rq_read);
            merge(&mut row.cfs_rq.write, fields.rq_write);
        }
    }
    let defs_of = |defs: &[FieldDef]| {
        defs.iter()
            .map(|def| FieldDefOut {
                name: def.name,
                size: def.size,
                align: def.align,
            })
            .collect()
    };
    let mut defs = std::collections::BTreeMap::new();
    defs.insert("sched_entity", defs_of(data::SCHED_ENTITY));
    defs.insert("cfs_rq", defs_of(data::CFS_RQ));
    Ok(LayoutReport {
        kernel: LAYOUT_KERNEL,
        sched_entity,
        cfs_rq,
        defs,
        operations,
    })
}

/// One part of a touch: the operation its misses count for, and the lines of each
/// structure it touches that an earlier part of the same touch did not.
#[derive(Clone, Copy, Debug, Default)]
struct TouchPart {
    slot: usize,
    se: u64,
    rq: u64,
}

/// What one operation touches, in the kernel's order: its own lines and
/// `update_load_avg()`'s, each line once (see `struct_layout_touch_slow`).
#[derive(Clone, Copy, Debug, Default)]
struct TouchPlan {
    parts: [TouchPart; 2],
    len: usize,
}

/// One operation's figures over a run.
#[derive(Clone, Debug, Default, Serialize, PartialEq, Eq)]
pub struct OpMisses {
    pub operation: String,
    /// Times performed (per level, per visited cfs_rq).
    pub calls: u64,
    pub sched_entity: u64,
    pub cfs_rq: u64,
}

/// Misses counted over a run.
#[derive(Clone, Debug, Default, Serialize, PartialEq, Eq)]
pub struct CacheMisses {
    pub total: u64,
    /// Misses by kernel function (the operations above).
    pub by_operation: std::collections::BTreeMap<String, u64>,
    /// Misses by structure: `sched_entity`, `cfs_rq`.
    pub by_struct: std::collections::BTreeMap<String, u64>,
    /// Per operation: calls, and misses in each structure.
    pub detail: Vec<OpMisses>,
    /// Line accesses, hits included.
    pub accesses: u64,
    /// Misses on a line another CPU held last (migrations, remote wakeups,
    /// balancing).
    pub remote: u64,
    /// The layout the run used: `original`, `reordered` or `explicit`.
    pub layout: String,
    /// Lines per structure in that layout.
    pub lines: std::collections::BTreeMap<String, u32>,
}

/// The per-run state of the model.
#[derive(Clone, Debug)]
pub struct LayoutModel {
    pub se: StructLayout,
    pub rq: StructLayout,
    layout_name: String,
    plans: [TouchPlan; StructOp::ALL.len()],
    capacity: u64,
    /// Each CPU's clock: lines touched there, and footprints run there.
    clocks: Vec<u64>,
    /// The lines of every task's entity: `(owner CPU + 1) << 48 | owner's clock when
    /// it last touched the line`; 0 for a line never touched.
    task_lines: Vec<u64>,
    /// Per CPU, the lines of its group entities and cfs_rqs, a block per group
    /// (entity lines, then cfs_rq lines) made when first touched, so that one CPU's
    /// lines lie together as its walks visit them.
    cpu_lines: Vec<Vec<u64>>,
    /// Per CPU, the block of each group (the root's first), or `NO_BLOCK`: CPU `c`'s
    /// slots start at `c * (groups + 1)`.
    cpu_blocks: Vec<u32>,
    slots_per_cpu: usize,
    se_stride: usize,
    rq_stride: usize,
    /// Misses per operation and structure (0: sched_entity, 1: cfs_rq).
    misses: [[u64; 2]; StructOp::ALL.len()],
    calls: [u64; StructOp::ALL.len()],
    /// Of those, lines last held by another CPU.
    remote: u64,
    accesses: u64,
}

const STAMP_BITS: u32 = 48;
const NO_BLOCK: u32 = u32::MAX;
const STAMP_MASK: u64 = (1 << STAMP_BITS) - 1;

impl LayoutModel {
    pub fn new(
        spec: &StructLayoutSpec,
        n_cpus: usize,
        n_tasks: usize,
        n_groups: usize,
    ) -> Result<LayoutModel, String> {
        let (se, rq) = resolve_layouts(spec)?;
        // Each operation's lines, read or written, per structure.
        let mut ops = [(0u64, 0u64); StructOp::ALL.len()];
        for (slot, op) in StructOp::ALL.iter().enumerate() {
            for part in data::op_fields(*op) {
                let lines = &mut ops[slot];
                lines.0 |= se.line_mask(part.se_read) | se.line_mask(part.se_write);
                lines.1 |= rq.line_mask(part.rq_read) | rq.line_mask(part.rq_write);
            }
        }
        let mut plans = [TouchPlan::default(); StructOp::ALL.len()];
        for (slot, op) in StructOp::ALL.iter().enumerate() {
            let order = match op.load_avg_first() {
                Some(true) => vec![StructOp::UpdateLoadAvg as usize, slot],
                Some(false) => vec![slot, StructOp::UpdateLoadAvg as usize],
                None => vec![slot],
            };
            let plan = &mut plans[slot];
            let (mut se_done, mut rq_done) = (0u64, 0u64);
            for part in order {
                let (se_lines, rq_lines) = ops[part];
                plan.parts[plan.len] = TouchPart {
                    slot: part,
                    se: se_lines & !se_done,
                    rq: rq_lines & !rq_done,
                };
                plan.len += 1;
                se_done |= se_lines;
                rq_done |= rq_lines;
            }
        }
        let layout_name = match spec {
            StructLayoutSpec::Unset | StructLayoutSpec::Named(LayoutName::Original) => "original",
            StructLayoutSpec::Named(LayoutName::Reordered) => "reordered",
            StructLayoutSpec::Explicit { .. } => "explicit",
        };
        let se_stride = se.lines as usize;
        let rq_stride = rq.lines as usize;
        Ok(LayoutModel {
            se,
            rq,
            layout_name: layout_name.into(),
            plans,
            capacity: CACHE_BYTES_PER_CPU / LINE_BYTES as u64,

            clocks: vec![0; n_cpus],
            task_lines: vec![0; n_tasks * se_stride],
            cpu_lines: vec![Vec::new(); n_cpus],
            cpu_blocks: vec![NO_BLOCK; n_cpus * (n_groups + 1)],
            slots_per_cpu: n_groups + 1,
            se_stride,
            rq_stride,
            misses: [[0; 2]; StructOp::ALL.len()],
            calls: [0; StructOp::ALL.len()],
            remote: 0,
            accesses: 0,
        })
    }

    /// The first line of group `slot`'s block on `cpu` (slot 0: the root cfs_rq),
    /// made if need be.
    #[inline]
    fn block(&mut self, cpu: CpuId, slot: usize) -> usize {
        let block = &mut self.cpu_blocks[cpu.0 as usize * self.slots_per_cpu + slot];
        if *block == NO_BLOCK {
            let lines = &mut self.cpu_lines[cpu.0 as usize];
            *block = (lines.len() / (self.se_stride + self.rq_stride)) as u32;
            lines.resize(lines.len() + self.se_stride + self.rq_stride, 0);
        }
        *block as usize * (self.se_stride + self.rq_stride)
    }

    /// `by` touches, for `op`, the entity `se` (if any) and the cfs_rq `rq` of
    /// `cpu`: returns the misses and, of those, the lines another CPU held last.
    #[inline]
    fn touch(&mut self, op: StructOp, by: CpuId, cpu: CpuId, se: Option<Se>, rq: Rq) -> (u64, u64) {
        let plan = self.plans[op as usize];
        let (se_len, rq_len) = (self.se_stride, self.rq_stride);
        let rq_slot = match rq {
            Rq::Root => 0,
            Rq::Group(group) => group as usize + 1,
        };
        let rq_base = self.block(cpu, rq_slot) + se_len;
        // A task's entity is in `task_lines`; a group's, beside its cfs_rq, in the CPU's.
        let se_at = match se {
            None => None,
            Some(Se::Task(task)) => Some((true, task.0 as usize * se_len)),
            Some(Se::Group(group)) => Some((false, self.block(cpu, group as usize + 1))),
        };
        let mut clock = CpuClock {
            owner: (by.0 as u64 + 1) << STAMP_BITS,
            clock: self.clocks[by.0 as usize],
            capacity: self.capacity,
        };
        let start = clock.clock;
        let (mut misses, mut remote) = (0, 0);
        let cpu_lines = &mut self.cpu_lines[cpu.0 as usize];
        for part in &plan.parts[..plan.len] {
            self.calls[part.slot] += 1;
            let counts = &mut self.misses[part.slot];
            if let Some((is_task, base)) = se_at {
                let lines = if is_task {
                    &mut self.task_lines[base..base + se_len]
                } else {
                    &mut cpu_lines[base..base + se_len]
                };
                let m = touch_lines(lines, part.se, &mut clock, &mut remote);
                counts[0] += m;
                misses += m;
            }
            let m = touch_lines(
                &mut cpu_lines[rq_base..rq_base + rq_len],
                part.rq,
                &mut clock,
                &mut remote,
            );
            counts[1] += m;
            misses += m;
        }
        self.accesses += clock.clock - start;
        self.clocks[by.0 as usize] = clock.clock;
        self.remote += remote;
        (misses, remote)
    }

    /// A task starts on `cpu`: its footprint pushes the kernel's lines towards
    /// eviction.
    pub fn pollute(&mut self, cpu: CpuId, footprint_kib: u64) {
        self.clocks[cpu.0 as usize] += footprint_kib * 1024 / LINE_BYTES as u64;
    }

    pub fn summary(&self) -> CacheMisses {
        let mut out = CacheMisses {
            accesses: self.accesses,
            remote: self.remote,
            layout: self.layout_name.clone(),
            ..CacheMisses::default()
        };
        out.lines.insert("sched_entity".into(), self.se.lines);
        out.lines.insert("cfs_rq".into(), self.rq.lines);
        let (mut se_total, mut rq_total) = (0, 0);
        for (slot, op) in StructOp::ALL.iter().enumerate() {
            let [se, rq] = self.misses[slot];
            se_total += se;
            rq_total += rq;
            *out.by_operation.entry(op.name().into()).or_insert(0) += se + rq;
            match out.detail.iter_mut().find(|row| row.operation == op.name()) {
                // update_blocked_averages: the parent cfs_rq's part joins its row.
                Some(row) => {
                    row.sched_entity += se;
                    row.cfs_rq += rq;
                }
                None => out.detail.push(OpMisses {
                    operation: op.name().into(),
                    calls: self.calls[slot],
                    sched_entity: se,
                    cfs_rq: rq,
                }),
            }
        }
        out.by_struct.insert("sched_entity".into(), se_total);
        out.by_struct.insert("cfs_rq".into(), rq_total);
        out.total = se_total + rq_total;
        out
    }
}

/// A CPU touches the lines in `mask` of `lines`, its clock counting each: returns
/// the misses, and adds to `remote` those on a line another CPU held last. A line is
/// held by the last CPU that touched it (a read by another CPU takes it, as a write
/// would), and hits while fewer than the capacity came after it there.
#[inline(always)]
fn touch_lines(lines: &mut [u64], mut mask: u64, cpu: &mut CpuClock, remote: &mut u64) -> u64 {
    let mut misses = 0;
    while mask != 0 {
        let line = mask.trailing_zeros() as usize;
        mask &= mask - 1;
        cpu.clock += 1;
        let slot = &mut lines[line];
        // One comparison for both tests: a line this CPU holds leaves its stamp, and
        // the clock less the stamp is how many lines came after it here; a line held
        // elsewhere (or never touched) leaves owner bits, and the difference wraps
        // to more than any capacity (clocks stay below 2^48).
        if cpu.clock.wrapping_sub(*slot ^ cpu.owner) > cpu.capacity {
            misses += 1;
            let held = *slot & !STAMP_MASK;
            *remote += u64::from(held != 0 && held != cpu.owner);
        }
        *slot = cpu.owner | (cpu.clock & STAMP_MASK);
    }
    misses
}

/// The touching CPU, as [`touch_lines`] needs it.
struct CpuClock {
    owner: u64,
    clock: u64,
    capacity: u64,
}

impl Simulator {
    /// `by` performs `op` on `cpu`'s structures: the entity `se` (if any) and the
    /// cfs_rq `rq`. Misses are counted and charged to `by` at the refill cost of a
    /// line from where it was (another CPU's write, or the LLC).
    #[inline]
    pub(crate) fn struct_layout_touch(
        &mut self,
        op: StructOp,
        by: CpuId,
        cpu: CpuId,
        se: Option<Se>,
        rq: Rq,
    ) {
        if self.layout_model.is_none() {
            return;
        }
        self.struct_layout_touch_slow(op, by, cpu, se, rq);
    }

    /// An operation that calls `update_load_avg()` touches the union of its lines
    /// and `update_load_avg()`'s once; a line's miss counts for whichever of the two
    /// touches it first in the kernel's order.
    fn struct_layout_touch_slow(
        &mut self,
        op: StructOp,
        by: CpuId,
        cpu: CpuId,
        se: Option<Se>,
        rq: Rq,
    ) {
        let Some(model) = self.layout_model.as_mut() else {
            return;
        };
        let (misses, remote) = model.touch(op, by, cpu, se, rq);
        if misses > 0 {
            let per_line = |ns_per_mib: u64| ns_per_mib * LINE_BYTES as u64 / (1 << 20);
            let ns = (misses - remote) * per_line(self.costs.refill_llc_ns_per_mib)
                + remote * per_line(self.costs.refill_cross_llc_ns_per_mib);
            self.charge_overhead(by, ns);
        }
    }

    /// A task starts running on `cpu` (see [`LayoutModel::pollute`]).
    #[inline]
    pub(crate) fn struct_layout_switch_in(&mut self, cpu: CpuId, task: TaskId) {
        if let Some(model) = self.layout_model.as_mut() {
            model.pollute(cpu, self.tasks[task.0 as usize].footprint_kib);
        }
    }
}
