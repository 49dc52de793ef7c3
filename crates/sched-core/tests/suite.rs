//! The integration tests of sched-core in one binary: one link instead of twenty.
//! (`allocations.rs` stays apart: its counting global allocator would count every test.)

mod common;

mod background;
mod baseline;
mod cfs;
mod determinism;
mod golden;
mod hotplug;
mod kcompile;
mod kernel_versions;
mod log_player;
mod numa_affinity;
mod programs;
mod properties;
mod replay;
mod shared_runq;
mod sis_scan;
mod struct_layout;
mod trace_store;
mod turbo_pack;
mod waiting;
mod wide_machines;
