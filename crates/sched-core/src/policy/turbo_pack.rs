//! TurboSched task packing (seed 003, Parth Shah, 2019, on 5.2): its hook places.
//!
//! The policy packs small "jitter" tasks onto cores that are already busy, so that
//! idle cores reach deep idle and give their power budget to the busy ones' turbo
//! frequency. It needs a power and frequency model the simulator does not have yet
//! (see `docs/MODEL-STATUS.md`: one fixed clock per run), so no scenario can switch
//! it on. The two places it acts are wired and do nothing until then:
//! - `turbo_pack_select`: `select_task_rq_fair()` before `select_idle_sibling()`
//!   (`baseline::wakeup`), where the patch's `turbosched_select_idle_sibling()`
//!   places a waking jitter task on the first busy core with room;
//! - `turbo_core_busy_changed`: a core's busy state changes (`engine::speed`,
//!   `refresh_core_speed`), where the power model will move the core between
//!   active, shallow and deep idle and re-derive the socket's turbo frequency.

use crate::engine::Simulator;
use crate::task::TaskId;
use crate::topology::CpuId;

impl Simulator {
    /// The packing decision for a waking task, before `select_idle_sibling`: a CPU
    /// to take instead of searching, or `None` for the default path. No task is
    /// classified as jitter in the model yet, so it is always `None`.
    #[inline]
    pub(crate) fn turbo_pack_select(&self, _task: TaskId, _target: CpuId) -> Option<CpuId> {
        None
    }

    /// A core's busy state changed (one of its threads started or stopped running).
    /// Without a power model there is nothing to update yet.
    #[inline]
    pub(crate) fn turbo_core_busy_changed(&mut self, _cpu: CpuId) {}
}
