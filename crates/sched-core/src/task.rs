//! Tasks: identity, weight, affinity, scheduling state and program position.

use crate::cpuset::CpuSet;
use crate::time::SimTime;
use crate::topology::CpuId;

/// A task's pid, as the trace prints it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Pid(pub u32);

/// Index of a task in the simulator's task table.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct TaskId(pub u32);

/// The kernel's `sched_prio_to_weight`: nice -20 ... 19. Each step is about 1.25x.
pub const NICE_TO_WEIGHT: [u32; 40] = [
    88761, 71755, 56483, 46273, 36291, 29154, 23254, 18705, 14949, 11916, 9548, 7620, 6100, 4904,
    3906, 3121, 2501, 1991, 1586, 1277, 1024, 820, 655, 526, 423, 335, 272, 215, 172, 137, 110, 87,
    70, 56, 45, 36, 29, 23, 18, 15,
];

/// Weight of a nice-0 task (`NICE_0_LOAD` without the fixed-point shift).
pub const NICE_0_LOAD: u64 = 1024;

pub fn nice_to_weight(nice: i32) -> u32 {
    NICE_TO_WEIGHT[(nice.clamp(-20, 19) + 20) as usize]
}

/// Where a task is. Invariant: a task is in exactly one of these, and a `Queued`
/// task is in exactly one runqueue's tree, a `Running` one is exactly one CPU's curr.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TaskState {
    /// Not forked yet.
    Unborn,
    Running(CpuId),
    Queued(CpuId),
    /// Woken onto this idle CPU's wake list (TTWU_QUEUE, `TASK_WAKING`): on no
    /// runqueue until the CPU leaves idle and runs `sched_ttwu_pending()`.
    Waking(CpuId),
    Sleeping,
    Blocked,
    /// Runnable, but its cgroup has used its CFS bandwidth quota for this period;
    /// parked on this CPU's throttled `cfs_rq` until the quota is refilled.
    Throttled(CpuId),
    Exited,
}

impl TaskState {
    /// The letter `sched_switch` prints for a task leaving the CPU in this state.
    pub fn prev_state_letter(self) -> &'static str {
        match self {
            TaskState::Running(_)
            | TaskState::Queued(_)
            | TaskState::Waking(_)
            | TaskState::Throttled(_) => "R+",
            TaskState::Sleeping | TaskState::Blocked => "S",
            TaskState::Exited => "X",
            TaskState::Unborn => "R",
        }
    }
}

/// The rest of a `WakeEach` walk: waiters in arrival order (woken from the end),
/// and when the walk began (the latency origin of everyone it wakes).
#[derive(Clone, Debug, PartialEq)]
pub struct WakeWalk {
    pub pending: Vec<TaskId>,
    pub started: SimTime,
}

/// A task's own wait word after an `Enlist` (schbench's per-thread futex word):
/// whether it is still on a channel's list, or a waker already took it off.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum WaitWord {
    /// Not enlisted (the word reads RUNNING): an `Await` goes straight on.
    Clear,
    /// On a channel's waiter list (the word reads BLOCKED), running or blocked.
    Listed,
    /// Taken off the list while it was still runnable, by a wake stamped at this
    /// time: its `Await` goes on without sleeping.
    Woken(SimTime),
}

/// One entry of a task's loop stack: where the loop starts and how many passes remain.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LoopFrame {
    pub start: usize,
    pub remaining: Option<u32>,
}

#[derive(Clone, Debug)]
pub struct Task {
    pub pid: Pid,
    pub tgid: Pid,
    pub comm: String,
    pub nice: i32,
    pub weight: u32,
    pub affinity: CpuSet,
    /// Index of the workload this task belongs to (its colour group in the UI).
    pub group: u32,
    pub program: usize,
    pub start_at: SimTime,
    pub record_latency: bool,

    pub state: TaskState,
    /// The CPU it runs on or last ran on (`task_cpu()`).
    pub cpu: CpuId,
    /// vruntime in ns, relative to the runqueue of `cpu` (re-based on migration).
    pub vruntime: u64,
    pub sum_exec_runtime: u64,
    /// `sum_exec_runtime` when this stint on the CPU began (for the slice check).
    pub prev_sum_exec_runtime: u64,
    /// When it last started running (`se.exec_start`, read by `task_hot`).
    pub last_ran: SimTime,
    /// `se.exec_start`: when the task last ran (its runtime last accounted); `None`
    /// after a migration, which makes it cache-cold for `task_hot`.
    pub exec_start: Option<SimTime>,
    /// Last time runtime was charged while running.
    pub charged_until: SimTime,
    /// When it was last woken, until it gets a CPU (for wakeup latency).
    pub woken_at: Option<SimTime>,

    pub pc: usize,
    pub loops: Vec<LoopFrame>,
    /// Its wait word, set by `Enlist` and read by `Await`.
    pub word: WaitWord,
    /// A `WakeEach` walk in progress: the waiters still to wake and the walk's start.
    pub wake_walk: Option<Box<WakeWalk>>,
    /// Work left in the current `Run`, in ns at full speed; `None` when not in a `Run`.
    pub remaining_work: Option<u64>,
    /// When the current `Spin` ends, whatever speed it ran at; `None` outside one.
    pub spin_until: Option<SimTime>,

    pub nr_switches: u64,
    pub nr_migrations: u64,

    /// The CPU before the last wakeup moved it (`p->recent_used_cpu`).
    pub recent_used_cpu: Option<CpuId>,
    /// `wake_wide()` bookkeeping: how often this task switched whom it wakes.
    pub wakee_flips: u32,
    pub last_wakee: Option<TaskId>,
    pub wakee_flips_decayed_at: SimTime,
    /// Utilisation (PELT), 0..1024.
    pub pelt: crate::pelt::Pelt,
    /// Where its data is warm: the CPU it last ran on.
    pub warm_cpu: Option<CpuId>,
    /// Cache refill still owed, added to its next burst of work (ns at full speed).
    pub refill_debt_ns: u64,
    /// The CPU that wrote the message a post woke it with, read when it next runs
    /// (only with `costs.message_lines`).
    pub message_from: Option<CpuId>,
    /// Data it keeps in cache, in KiB (from its workload).
    pub footprint_kib: u64,
    /// TurboSched's "jitter" class (short bursts that may be packed).
    pub jitter: bool,
    /// When it was forked (its load starts at its full weight then, and decays).
    pub forked_at: Option<crate::time::SimTime>,
    /// `uclamp_max`, if set (TurboSched v3 classes `<= 1` as jitter).
    pub uclamp_max: Option<u32>,
    /// Its current run is memory-bound (shares memory bandwidth).
    pub run_memory_bound: bool,
    /// Its cgroup (index into the simulator's task groups), if any.
    pub cgroup: Option<u32>,
    /// Its `se.avg.load_avg` over its weight: a PELT average of the time it was
    /// runnable (waiting or running), 0..1024, updated as it enqueues and dequeues.
    pub load: crate::pelt::Pelt,
    /// The runqueue its load is attached to (`cfs_rq_of(se)`): where it last was
    /// runnable, until it wakes elsewhere or exits (`crate::load_avg`).
    pub load_rq: Option<CpuId>,
}

impl Task {
    pub fn is_runnable(&self) -> bool {
        matches!(self.state, TaskState::Running(_) | TaskState::Queued(_))
    }

    /// The priority `sched_switch` prints (120 + nice).
    pub fn prio(&self) -> i32 {
        120 + self.nice
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn nice_zero_is_1024() {
        assert_eq!(nice_to_weight(0), 1024);
        assert_eq!(nice_to_weight(-20), 88761);
        assert_eq!(nice_to_weight(19), 15);
        assert_eq!(nice_to_weight(40), 15);
    }
}
