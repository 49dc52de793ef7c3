//! Costs the model charges. Each is a named parameter with a documented default.
//!
//! First model: the context switch itself, and the delay before an idle CPU runs
//! a task woken onto it (the reschedule IPI plus leaving the idle state).

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// Default cost of one context switch, charged to the CPU before the next task runs.
pub const DEFAULT_CONTEXT_SWITCH_NS: u64 = 2_000;
/// Default delay from waking a task onto an idle CPU to that CPU scheduling it.
pub const DEFAULT_IDLE_EXIT_LATENCY_NS: u64 = 10_000;

#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct CostsSpec {
    /// Time a CPU spends switching tasks, in ns (default 2000).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(range(max = 1000000))]
    pub context_switch_ns: Option<u64>,
    /// Time an idle CPU takes to start running a task woken onto it (IPI and idle-state
    /// exit), in ns (default 10000).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(range(max = 10000000))]
    pub idle_exit_latency_ns: Option<u64>,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Costs {
    pub context_switch_ns: u64,
    pub idle_exit_latency_ns: u64,
}

impl CostsSpec {
    pub fn resolve(&self) -> Costs {
        Costs {
            context_switch_ns: self.context_switch_ns.unwrap_or(DEFAULT_CONTEXT_SWITCH_NS),
            idle_exit_latency_ns: self
                .idle_exit_latency_ns
                .unwrap_or(DEFAULT_IDLE_EXIT_LATENCY_NS),
        }
    }
}
