//! The policies of the five patch series, one file each, each holding its state and
//! its hooks. A hook is called from exactly one named place in the baseline paths
//! (no dynamic dispatch on the hot path):
//!
//! | hook place | called from | policy |
//! | --- | --- | --- |
//! | NUMA imbalance allowance | `baseline::fork`, `numa_fork_keeps_local` (5.18 rule) | `numa_affinity` |
//! | `select_task_rq` after SIS | `baseline::sis`, end of the 4.6 variant | `sis_scan` |
//! | enqueue (`__enqueue_entity`; a wakeup's `enqueue_task_fair`) | `engine::enqueue` `enqueue_task`, `engine::schedule` put-prev; `engine::ttwu` | `shared_runq` |
//! | dequeue and pick (`__dequeue_entity`, `dequeue_task_fair`, `pick_next_task_fair`) | `engine::enqueue` `dequeue_queued`, `move_queued_task`; `engine::schedule` pick | `shared_runq` |
//! | head of `newidle_balance` | `baseline::balance` | `shared_runq` |
//! | `select_task_rq` before SIS | `baseline::wakeup`, `select_task_rq_wake` | `turbo_pack` |
//! | a core's busy change | `engine::speed`, `refresh_core_speed` | `turbo_pack` |
//! | an operation on `sched_entity` / `cfs_rq` fields | `bandwidth` (`walk_group_entities`, the throttle, distribution and unthrottle walks, `update_blocked_averages`, runtime accounting) | `struct_layout` |
//! | a task starts on a CPU (its footprint ages the cache) | `engine::schedule`, the pick | `struct_layout` |

pub mod numa_affinity;
pub mod shared_runq;
pub mod sis_scan;
pub mod struct_layout;
pub mod struct_layout_data;
pub mod turbo_pack;
