//! Costs the model charges. Each is a named parameter with a documented default,
//! overridable from a scenario's `costs` object.
//!
//! - The context switch itself, and the delay before an idle CPU runs a task woken
//!   onto it (the reschedule IPI plus leaving the idle state).
//! - SMT: when both threads of a core are busy, each runs at `smt_speed_pct` of its
//!   solo speed (default 60 %: the core does about 1.2 threads' worth of work).
//! - Cache refill: a task's data is warm where it last ran; running elsewhere first
//!   re-reads its footprint, at a cost per MiB that grows with distance.
//! - Scheduler path costs: every CPU an idle scan or a balance pass inspects, and
//!   every balance attempt, costs CPU time, paid before the CPU's next task runs.

use crate::topology::MigrationDistance;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

pub const DEFAULT_CONTEXT_SWITCH_NS: u64 = 2_000;
pub const DEFAULT_SMT_SPEED_PCT: u32 = 60;
/// Refilling 1 MiB from the shared L3 into a core's private caches.
pub const DEFAULT_REFILL_LLC_NS_PER_MIB: u64 = 20_000;
/// Refilling 1 MiB from another LLC or DRAM on the same node.
pub const DEFAULT_REFILL_CROSS_LLC_NS_PER_MIB: u64 = 60_000;
/// Refilling 1 MiB from another NUMA node's memory.
pub const DEFAULT_REFILL_CROSS_NUMA_NS_PER_MIB: u64 = 120_000;
pub const DEFAULT_SCAN_PER_CPU_NS: u64 = 25;
pub const DEFAULT_BALANCE_ATTEMPT_NS: u64 = 400;
// Memory bandwidth figures are per machine preset: `topology::memory_figures`.
/// Runqueue lock hold time per acquisition, before any cache-line bounce.
pub const DEFAULT_RQ_LOCK_HOLD_NS: u64 = 150;
/// A shared-runqueue shard lock's hold time: one list insertion or deletion.
pub const DEFAULT_SHARD_LOCK_HOLD_NS: u64 = 60;
/// Extra hold time when the lock's cache line comes from another CPU of the LLC,
/// another LLC, or another node.
pub const DEFAULT_BOUNCE_LLC_NS: u64 = 40;
pub const DEFAULT_BOUNCE_CROSS_LLC_NS: u64 = 120;
pub const DEFAULT_BOUNCE_CROSS_NUMA_NS: u64 = 250;

#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct CostsSpec {
    /// Time a CPU spends switching tasks, in ns (default 2000).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(range(max = 1000000))]
    pub context_switch_ns: Option<u64>,
    /// Time an idle CPU takes to start running a task woken onto it (IPI and idle-state
    /// exit), in ns (default: the exit latency of the machine's shallow idle state in
    /// its cpuidle table, 10000 for Intel's C1E and POWER9's stop2, 1000 for AMD's C1).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(range(max = 10000000))]
    pub idle_exit_latency_ns: Option<u64>,
    /// Time from a woken task's enqueue on the idle CPU it was queued to
    /// (`sched_ttwu_pending()`) to that CPU's pick in `__schedule()`, in ns (default 0:
    /// the same instant). In that window the task waits queued where another CPU
    /// may pull it (a newidle balance, or a SHARED_RUNQ pull from its shard).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(range(max = 1000000))]
    pub idle_pick_delay_ns: Option<u64>,
    /// Speed of each thread, in percent, while its SMT sibling is busy (default 60).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(range(min = 10, max = 100))]
    pub smt_speed_pct: Option<u32>,
    /// Cache refill cost per MiB of footprint when a task moves within its LLC (default 20000 ns).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(range(max = 100000000))]
    pub refill_llc_ns_per_mib: Option<u64>,
    /// ... when it moves to another LLC of the same node (default 60000 ns).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(range(max = 100000000))]
    pub refill_cross_llc_ns_per_mib: Option<u64>,
    /// ... when it moves to another NUMA node (default 120000 ns).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(range(max = 100000000))]
    pub refill_cross_numa_ns_per_mib: Option<u64>,
    /// CPU time per CPU inspected by an idle scan or a balance pass (default 25 ns).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(range(max = 100000))]
    pub scan_per_cpu_ns: Option<u64>,
    /// CPU time per load-balance attempt, on top of the CPUs it inspects (default 400 ns).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(range(max = 1000000))]
    pub balance_attempt_ns: Option<u64>,
    /// Memory bandwidth one core can pull alone, in GB/s (default: the machine
    /// preset's figure, 12 for a hand-written machine).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(range(min = 1, max = 10000))]
    pub memory_core_gbps: Option<u32>,
    /// Memory bandwidth one LLC can draw, in GB/s (default: the preset's, 40 for a
    /// hand-written machine).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(range(min = 1, max = 10000))]
    pub memory_llc_gbps: Option<u32>,
    /// Memory bandwidth of one NUMA node, in GB/s (default: the preset's, 120 for a
    /// hand-written machine).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(range(min = 1, max = 10000))]
    pub memory_node_gbps: Option<u32>,
    /// Runqueue lock hold time per acquisition, in ns (default 150).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(range(max = 100000))]
    pub rq_lock_hold_ns: Option<u64>,
    /// SHARED_RUNQ shard lock hold time per acquisition, in ns (default 60).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(range(max = 100000))]
    pub shard_lock_hold_ns: Option<u64>,
    /// Cache lines a message moves from the CPU that wrote it to the CPU that reads
    /// it (a channel token: a socket's buffer and queue, a pipe's); each costs the
    /// reader a lock line's bounce over the same distance, nothing between SMT
    /// siblings (default 0: messages are free).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(range(max = 1024))]
    pub message_lines: Option<u32>,
    /// The cores' clock, in MHz (default: the machine's nominal frequency). Work runs
    /// at `frequency_mhz / nominal`: half the clock, twice the time.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(range(min = 100, max = 10000))]
    pub frequency_mhz: Option<u32>,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Costs {
    pub context_switch_ns: u64,
    pub idle_exit_latency_ns: u64,
    pub idle_pick_delay_ns: u64,
    pub smt_speed_permille: u32,
    pub refill_llc_ns_per_mib: u64,
    pub refill_cross_llc_ns_per_mib: u64,
    pub refill_cross_numa_ns_per_mib: u64,
    pub scan_per_cpu_ns: u64,
    pub balance_attempt_ns: u64,
    pub memory_core_gbps: u32,
    pub memory_llc_gbps: u32,
    pub memory_node_gbps: u32,
    pub rq_lock_hold_ns: u64,
    pub shard_lock_hold_ns: u64,
    pub message_lines: u32,
    /// Clock relative to nominal, in permille (1000 = nominal).
    pub frequency_permille: u32,
    pub frequency_mhz: u32,
}

impl CostsSpec {
    /// Resolves against the machine's nominal frequency, memory figures and the exit
    /// latency of its shallow idle state.
    pub fn resolve(
        &self,
        nominal_mhz: u32,
        memory: crate::topology::MemoryFigures,
        shallow_idle_exit_ns: u64,
    ) -> Costs {
        let frequency_mhz = self.frequency_mhz.unwrap_or(nominal_mhz);
        Costs {
            frequency_mhz,
            frequency_permille: (frequency_mhz as u64 * 1000 / nominal_mhz.max(1) as u64) as u32,
            context_switch_ns: self.context_switch_ns.unwrap_or(DEFAULT_CONTEXT_SWITCH_NS),
            // Simplification: the IPI and the idle loop's exit are not counted apart
            // from the idle state's own exit latency.
            idle_exit_latency_ns: self.idle_exit_latency_ns.unwrap_or(shallow_idle_exit_ns),
            idle_pick_delay_ns: self.idle_pick_delay_ns.unwrap_or(0),
            smt_speed_permille: self.smt_speed_pct.unwrap_or(DEFAULT_SMT_SPEED_PCT) * 10,
            refill_llc_ns_per_mib: self
                .refill_llc_ns_per_mib
                .unwrap_or(DEFAULT_REFILL_LLC_NS_PER_MIB),
            refill_cross_llc_ns_per_mib: self
                .refill_cross_llc_ns_per_mib
                .unwrap_or(DEFAULT_REFILL_CROSS_LLC_NS_PER_MIB),
            refill_cross_numa_ns_per_mib: self
                .refill_cross_numa_ns_per_mib
                .unwrap_or(DEFAULT_REFILL_CROSS_NUMA_NS_PER_MIB),
            scan_per_cpu_ns: self.scan_per_cpu_ns.unwrap_or(DEFAULT_SCAN_PER_CPU_NS),
            balance_attempt_ns: self
                .balance_attempt_ns
                .unwrap_or(DEFAULT_BALANCE_ATTEMPT_NS),
            memory_core_gbps: self.memory_core_gbps.unwrap_or(memory.core_gbps),
            memory_llc_gbps: self.memory_llc_gbps.unwrap_or(memory.llc_gbps),
            memory_node_gbps: self.memory_node_gbps.unwrap_or(memory.node_gbps),
            rq_lock_hold_ns: self.rq_lock_hold_ns.unwrap_or(DEFAULT_RQ_LOCK_HOLD_NS),
            shard_lock_hold_ns: self
                .shard_lock_hold_ns
                .unwrap_or(DEFAULT_SHARD_LOCK_HOLD_NS),
            message_lines: self.message_lines.unwrap_or(0),
        }
    }
}

impl Costs {
    /// Time to refill `footprint_kib` of data moved over `distance`.
    pub fn refill_ns(&self, footprint_kib: u64, distance: MigrationDistance) -> u64 {
        let per_mib = match distance {
            MigrationDistance::SameCpu | MigrationDistance::Smt => 0,
            MigrationDistance::Llc => self.refill_llc_ns_per_mib,
            MigrationDistance::CrossLlc => self.refill_cross_llc_ns_per_mib,
            MigrationDistance::CrossNuma => self.refill_cross_numa_ns_per_mib,
        };
        footprint_kib * per_mib / 1024
    }

    /// What reading a message written on a CPU `distance` away costs the reader.
    /// Simplification: the same number of lines for every message, whatever its size.
    pub fn message_ns(&self, distance: MigrationDistance) -> u64 {
        match distance {
            MigrationDistance::SameCpu | MigrationDistance::Smt => 0,
            distance => self.message_lines as u64 * bounce_ns(distance),
        }
    }
}

/// Extra lock hold time when the lock's cache line was last held `distance` away.
pub fn bounce_ns(distance: MigrationDistance) -> u64 {
    match distance {
        MigrationDistance::SameCpu => 0,
        MigrationDistance::Smt | MigrationDistance::Llc => DEFAULT_BOUNCE_LLC_NS,
        MigrationDistance::CrossLlc => DEFAULT_BOUNCE_CROSS_LLC_NS,
        MigrationDistance::CrossNuma => DEFAULT_BOUNCE_CROSS_NUMA_NS,
    }
}

/// Each thread's speed, in permille, while `busy_siblings` other threads of its core
/// run too. `two_thread_permille` is the speed with one busy sibling (default 600:
/// the core does 1.2 threads' work); each further busy thread adds the same
/// `2 * two_thread - 1` of one thread's work to the core (SMT4 with all four busy:
/// 1.6, so 400 each). Simplification: one linear gain per thread, not a measured
/// per-core table.
pub fn smt_thread_permille(two_thread_permille: u32, busy_siblings: u64) -> u64 {
    if busy_siblings == 0 {
        return 1000;
    }
    let threads = busy_siblings + 1;
    let gain_per_thread = (2 * two_thread_permille as u64).saturating_sub(1000);
    (1000 + busy_siblings * gain_per_thread) / threads
}

/// Wall time to do `work_ns` of full-speed work at `speed_permille`, rounded up.
pub fn wall_time_for(work_ns: u64, speed_permille: u32) -> u64 {
    let speed = speed_permille.max(1) as u64;
    (work_ns * 1000).div_ceil(speed)
}

/// Work done in `wall_ns` at `speed_permille`.
pub fn work_done_in(wall_ns: u64, speed_permille: u32) -> u64 {
    wall_ns * speed_permille as u64 / 1000
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn refill_grows_with_distance() {
        let costs =
            CostsSpec::default().resolve(2000, crate::topology::memory_figures("custom"), 10_000);
        let llc = costs.refill_ns(1024, MigrationDistance::Llc);
        let cross = costs.refill_ns(1024, MigrationDistance::CrossLlc);
        let numa = costs.refill_ns(1024, MigrationDistance::CrossNuma);
        assert_eq!(costs.refill_ns(1024, MigrationDistance::Smt), 0);
        assert!(llc < cross && cross < numa);
    }

    #[test]
    fn smt_speed_falls_with_each_busy_sibling() {
        assert_eq!(smt_thread_permille(600, 0), 1000);
        assert_eq!(smt_thread_permille(600, 1), 600);
        assert_eq!(smt_thread_permille(600, 2), 466);
        assert_eq!(smt_thread_permille(600, 3), 400);
    }

    #[test]
    fn speed_conversions_round_trip() {
        assert_eq!(wall_time_for(600, 600), 1000);
        assert_eq!(work_done_in(1000, 600), 600);
        assert_eq!(wall_time_for(1, 600), 2);
    }
}
