//! Snapshots of a running simulation, so that going back in time is a restore
//! and a short run forward instead of a re-run from time 0. A snapshot is the
//! whole simulator state (queues, tasks, metrics, the random number generator)
//! except the trace's records, which stay in the live trace: restoring drops the
//! records after the snapshot's mark. The run is deterministic, so a snapshot
//! taken later than one restored stays valid: the same future comes again.

use super::Simulator;
use crate::trace::{Trace, TraceMark};

/// A simulator's state at one moment (`Simulator::snapshot`).
#[derive(Clone, Debug)]
pub struct Snapshot {
    /// The state, with an empty trace.
    state: Box<Simulator>,
    /// Where the live trace stood.
    trace: TraceMark,
}

impl Snapshot {
    /// The simulated time it was taken at, in nanoseconds.
    pub fn now_ns(&self) -> u64 {
        self.state.now().0
    }

    /// Events handled before it.
    pub fn events(&self) -> u64 {
        self.state.events()
    }

    /// Trace records emitted before it.
    pub fn trace_total(&self) -> u64 {
        self.trace.total()
    }
}

impl Simulator {
    /// The state now, without copying the trace's records.
    pub fn snapshot(&mut self) -> Snapshot {
        let live = std::mem::take(&mut self.trace);
        let mark = live.mark();
        let state = Box::new(self.clone());
        self.trace = live;
        Snapshot { state, trace: mark }
    }

    /// Back to `snapshot`, taken earlier in this same run: every field as it was
    /// then, and the trace rewound to its mark.
    pub fn restore(&mut self, snapshot: &Snapshot) {
        let mut live: Trace = std::mem::take(&mut self.trace);
        live.rewind(&snapshot.trace);
        *self = (*snapshot.state).clone();
        self.trace = live;
    }
}
