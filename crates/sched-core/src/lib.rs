//! schedlab's model: a deterministic discrete-event simulation of the Linux CFS
//! scheduler placing tasks on a modelled machine.
//!
//! Start at [`engine::Simulator`]: build one from a [`scenario::Scenario`], then
//! `step`, `run_until` or `run_to_end`, and read [`engine::Simulator::summary`] and
//! the [`trace::Trace`]. Nothing here knows about JSON, WebAssembly or the browser.

pub mod background;
pub mod bandwidth;
pub mod baseline;
pub mod behaviour;
pub mod cfs;
pub mod cost;
pub mod cpuset;
pub mod domains;
pub mod engine;
pub mod event_queue;
pub mod explain;
pub mod group_sched;
pub mod group_table;
pub mod kernel;
pub mod load_avg;
pub mod lock;
pub mod metrics;
mod packed;
pub mod pelt;
pub mod policy;
pub mod power;
pub mod replay;
pub mod rng;
pub mod runqueue;
pub mod scenario;
pub mod task;
pub mod task_list;
pub mod time;
pub mod topology;
pub mod trace;
pub mod waiting;
pub mod workload;

pub use engine::{Simulator, Snapshot, StepOutcome};
pub use scenario::{Scenario, ScenarioError};
pub use time::SimTime;
