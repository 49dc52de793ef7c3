//! Replaying real scheduler traces: [`parse`] reads ftrace text as users paste it
//! (the `trace` file, `trace-cmd report`, `perf script`, `ftrace_dump`, systrace,
//! mail quoting) into [`Event`]s and a [`ParseReport`]; [`replay`] rebuilds each
//! CPU's running task and runqueue from them and measures wakeup latency,
//! migrations and utilisation. No I/O and no JSON here: the CLI reads files and
//! prints. See `docs/replay.md`.

pub mod metrics;
pub mod parse;
pub mod player;
pub mod workload;

pub use metrics::{
    flat_topology, replay, CpuReplay, MigrationSource, ReplayMetrics, ReplayMigrations,
};
pub use parse::{
    parse, Event, EventData, EventKind, ParseReport, ParsedTrace, Parser, PrevState, SkipCount,
    SkipReason, Warning, MAX_LINE_BYTES,
};
pub use player::{LogMove, LogPlayer, LogSnapshot};
pub use workload::{derive_workload, DerivedWorkload};
