//! The policies of the five patch series, one file each, each holding its state and
//! its hooks. A hook is called from exactly one named place in the baseline paths
//! (no dynamic dispatch on the hot path):
//!
//! | hook place | called from | policy |
//! | --- | --- | --- |
//! | NUMA imbalance allowance | `baseline::fork`, `numa_fork_keeps_local` (5.18 rule) | `numa_affinity` |
//! | `select_task_rq` after SIS | `baseline::sis`, end of the 4.6 variant | `sis_scan` |
//!
//! The places the coming policies hook into: enqueue and dequeue (`engine::enqueue`),
//! pick (`engine::schedule`), `select_task_rq` before and after SIS
//! (`baseline::wakeup`), the head of `newidle_balance` (`baseline::balance`), a
//! core's busy change (`engine::speed`), the load-average update (`pelt`), and the
//! task-group walk (`bandwidth`). SHARED_RUNQ, TurboSched packing and the
//! struct-layout model are not modelled yet (see
//! `docs/MODEL-STATUS.md`); each will be one file here.

pub mod numa_affinity;
pub mod sis_scan;
