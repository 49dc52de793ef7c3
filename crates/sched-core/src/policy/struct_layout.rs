//! The `cfs_rq` / `sched_entity` struct reordering (seed 002, Zecheng Li, 2025,
//! on 6.15): its hook places.
//!
//! The patches group the fields that the throttle, unthrottle and load-average paths
//! touch together into fewer cache lines. Modelling it needs the structures as lists
//! of fields laid out in 64-byte lines and a per-CPU cache model, which the simulator
//! does not have yet (see `docs/MODEL-STATUS.md`). The places where those operations
//! happen are wired and count nothing until then:
//! - `struct_layout_touch(StructOp::TgWalk, ...)`: each throttle or unthrottle walk
//!   of the task-group tree (`bandwidth`, `finish_tree_walk`);
//! - `struct_layout_touch(StructOp::LoadAvg, ...)`: a task's or a CPU's load-average
//!   update (`engine::schedule`).

use crate::engine::Simulator;
use crate::topology::CpuId;

/// An operation on `cfs_rq` and `sched_entity` fields that the layout model counts.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum StructOp {
    /// `tg_throttle_down` / `tg_unthrottle_up` over `groups` task groups.
    TgWalk { groups: u64 },
    /// `update_load_avg()` of an entity and its `cfs_rq`.
    LoadAvg,
}

impl Simulator {
    /// `cpu` performed `op`. Without the cache-line model there is nothing to count.
    #[inline]
    pub(crate) fn struct_layout_touch(&mut self, _op: StructOp, _cpu: CpuId) {}
}
