//! NUMA imbalance with CPU affinity (seed 004): how many tasks fork placement lets
//! pile up on the local node before spreading.
//!
//! Hook: `numa_imbalance_allowance`, called from `baseline::fork` in the 5.18 NUMA
//! rule (`local.sum_nr_running + 1 <= allowance`). The baseline allowance is the
//! domain's `imb_numa_nr`; the patch's switch (an allowance limited to the CPUs the
//! task may use in the local group) is not modelled yet. 6.0's merged form is the
//! baseline `NumaForkRule::AffinityAware`.

use crate::domains::SchedDomain;
use crate::engine::Simulator;
use crate::task::TaskId;
use crate::topology::CpuId;

impl Simulator {
    /// The allowed NUMA imbalance, in tasks, for a task forking on `this_cpu`.
    pub(crate) fn numa_imbalance_allowance(
        &self,
        sd: &SchedDomain,
        _task_id: TaskId,
        _this_cpu: CpuId,
    ) -> u32 {
        sd.imb_numa_nr
    }
}
