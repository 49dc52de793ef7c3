//! The data of the struct-layout model: `struct sched_entity` and `struct cfs_rq`
//! of Linux 6.15 (x86-64; `CONFIG_SMP`, `CONFIG_FAIR_GROUP_SCHED`,
//! `CONFIG_CFS_BANDWIDTH`; without `CONFIG_SCHED_CORE`) as lists of members, the
//! reordered layouts of the patch series, and the members each operation reads and
//! writes. Sources and scope: docs/policies/struct-layout.md.
//!
//! Members are top-level: a nested structure (`load`, `avg`, `removed`, the rb and
//! list nodes) is one member with its size and alignment. An access to
//! `se->avg.load_avg` counts as `avg`.

use crate::policy::struct_layout::StructOp;

/// The kernel whose structures these are.
pub const LAYOUT_KERNEL: &str = "6.15";

/// In a field order: the next field starts a new 64-byte line (the patch's
/// `__cacheline_group_begin_aligned`).
pub const LINE_BREAK: &str = "|";

/// One member of a structure: its size and alignment in bytes (x86-64).
#[derive(Clone, Copy, Debug)]
pub struct FieldDef {
    pub name: &'static str,
    pub size: u32,
    pub align: u32,
}

const fn f(name: &'static str, size: u32, align: u32) -> FieldDef {
    FieldDef { name, size, align }
}

/// `struct sched_entity` in 6.15's declaration order (256 bytes; `avg` is
/// `____cacheline_aligned`).
pub static SCHED_ENTITY: &[FieldDef] = &[
    f("load", 16, 8),
    f("run_node", 24, 8),
    f("deadline", 8, 8),
    f("min_vruntime", 8, 8),
    f("min_slice", 8, 8),
    f("group_node", 16, 8),
    f("on_rq", 1, 1),
    f("sched_delayed", 1, 1),
    f("rel_deadline", 1, 1),
    f("custom_slice", 1, 1),
    f("exec_start", 8, 8),
    f("sum_exec_runtime", 8, 8),
    f("prev_sum_exec_runtime", 8, 8),
    f("vruntime", 8, 8),
    f("vlag", 8, 8),
    f("slice", 8, 8),
    f("nr_migrations", 8, 8),
    f("depth", 4, 4),
    f("parent", 8, 8),
    f("cfs_rq", 8, 8),
    f("my_q", 8, 8),
    f("runnable_weight", 8, 8),
    f("avg", 64, 64),
];

/// `struct cfs_rq` in 6.15's declaration order (512 bytes; `avg` and `removed`
/// start lines).
pub static CFS_RQ: &[FieldDef] = &[
    f("load", 16, 8),
    f("nr_queued", 4, 4),
    f("h_nr_queued", 4, 4),
    f("h_nr_runnable", 4, 4),
    f("h_nr_idle", 4, 4),
    f("avg_vruntime", 8, 8),
    f("avg_load", 8, 8),
    f("min_vruntime", 8, 8),
    f("tasks_timeline", 16, 8),
    f("curr", 8, 8),
    f("next", 8, 8),
    f("avg", 64, 64),
    f("removed", 64, 64),
    f("last_update_tg_load_avg", 8, 8),
    f("tg_load_avg_contrib", 8, 8),
    f("propagate", 8, 8),
    f("prop_runnable_sum", 8, 8),
    f("h_load", 8, 8),
    f("last_h_load_update", 8, 8),
    f("h_load_next", 8, 8),
    f("rq", 8, 8),
    f("on_list", 4, 4),
    f("leaf_cfs_rq_list", 16, 8),
    f("tg", 8, 8),
    f("idle", 4, 4),
    f("runtime_enabled", 4, 4),
    f("runtime_remaining", 8, 8),
    f("throttled_pelt_idle", 8, 8),
    f("throttled_clock", 8, 8),
    f("throttled_clock_pelt", 8, 8),
    f("throttled_clock_pelt_time", 8, 8),
    f("throttled_clock_self", 8, 8),
    f("throttled_clock_self_time", 8, 8),
    f("throttled", 4, 4),
    f("throttle_count", 4, 4),
    f("throttled_list", 16, 8),
    f("throttled_csd_list", 16, 8),
];

/// "sched/fair: Reorder struct sched_entity" (v2 3/3): the hot group (the tree
/// links, `on_rq`, `load` and `vruntime`) fills the first line.
pub static SCHED_ENTITY_REORDERED: &[&str] = &[
    "|",
    "parent",
    "cfs_rq",
    "my_q",
    "runnable_weight",
    "depth",
    "on_rq",
    "sched_delayed",
    "rel_deadline",
    "custom_slice",
    "load",
    "vruntime",
    "|",
    "run_node",
    "deadline",
    "min_vruntime",
    "min_slice",
    "group_node",
    "exec_start",
    "sum_exec_runtime",
    "prev_sum_exec_runtime",
    "vlag",
    "slice",
    "nr_migrations",
    "avg",
];

/// "sched/fair: Reorder struct cfs_rq" (v2 2/3): a two-line hot group (counts,
/// `curr`, `rq`, `tg`, `throttle_count`, then the vruntime sums and the tree) and
/// an aligned throttle group (`throttled`, the leaf-list links and the throttle
/// clocks); 448 bytes.
pub static CFS_RQ_REORDERED: &[&str] = &[
    "|",
    "load",
    "nr_queued",
    "h_nr_queued",
    "h_nr_runnable",
    "h_nr_idle",
    "curr",
    "rq",
    "tg",
    "throttle_count",
    "runtime_enabled",
    "|",
    "idle",
    "propagate",
    "avg_vruntime",
    "avg_load",
    "min_vruntime",
    "tasks_timeline",
    "next",
    "|",
    "avg",
    "removed",
    "last_update_tg_load_avg",
    "tg_load_avg_contrib",
    "prop_runnable_sum",
    "h_load",
    "last_h_load_update",
    "h_load_next",
    "runtime_remaining",
    "throttled_pelt_idle",
    "|",
    "throttled",
    "on_list",
    "leaf_cfs_rq_list",
    "throttled_clock",
    "throttled_clock_pelt",
    "throttled_clock_pelt_time",
    "throttled_clock_self",
    "throttled_clock_self_time",
    "|",
    "throttled_list",
    "throttled_csd_list",
];

/// The members an operation reads and writes in each structure.
#[derive(Clone, Copy, Debug)]
pub struct OpFields {
    pub se_read: &'static [&'static str],
    pub se_write: &'static [&'static str],
    pub rq_read: &'static [&'static str],
    pub rq_write: &'static [&'static str],
}

/// `update_load_avg()` (fair.c: `__update_load_avg_se()`, `update_cfs_rq_load_avg()`, `propagate_entity_load_avg()`, `update_tg_load_avg()`), which enqueue, dequeue, pick, put and the tick call at each level.
const UPDATE_LOAD_AVG: OpFields = OpFields {
    se_read: &[
        "avg",
        "on_rq",
        "sched_delayed",
        "my_q",
        "runnable_weight",
        "load",
        "cfs_rq",
    ],
    se_write: &["avg"],
    rq_read: &[
        "throttle_count",
        "throttled_clock_pelt",
        "throttled_clock_pelt_time",
        "rq",
        "curr",
        "removed",
        "avg",
        "load",
        "h_nr_runnable",
        "propagate",
        "prop_runnable_sum",
        "tg",
        "last_update_tg_load_avg",
        "tg_load_avg_contrib",
    ],
    rq_write: &[
        "removed",
        "avg",
        "propagate",
        "prop_runnable_sum",
        "tg_load_avg_contrib",
        "last_update_tg_load_avg",
    ],
};

/// `enqueue_entity()` with `place_entity()`, `account_entity_enqueue()`, `__enqueue_entity()`, `check_enqueue_throttle()` and `list_add_leaf_cfs_rq()`.
const ENQUEUE_ENTITY: OpFields = OpFields {
    se_read: &[
        "custom_slice",
        "slice",
        "vlag",
        "rel_deadline",
        "deadline",
        "vruntime",
        "run_node",
        "min_vruntime",
        "min_slice",
    ],
    se_write: &[
        "slice",
        "vruntime",
        "deadline",
        "rel_deadline",
        "runnable_weight",
        "group_node",
        "exec_start",
        "min_vruntime",
        "min_slice",
        "run_node",
        "on_rq",
    ],
    rq_read: &[
        "avg_vruntime",
        "avg_load",
        "min_vruntime",
        "nr_queued",
        "tasks_timeline",
        "runtime_enabled",
        "runtime_remaining",
        "throttled",
        "on_list",
        "leaf_cfs_rq_list",
    ],
    rq_write: &[
        "load",
        "nr_queued",
        "avg_vruntime",
        "avg_load",
        "tasks_timeline",
        "runtime_remaining",
        "on_list",
        "leaf_cfs_rq_list",
    ],
};

/// `dequeue_entity()` with `clear_buddies()`, `update_entity_lag()`, `__dequeue_entity()`, `account_entity_dequeue()`, `return_cfs_rq_runtime()` and `update_min_vruntime()`.
const DEQUEUE_ENTITY: OpFields = OpFields {
    se_read: &[
        "vruntime",
        "deadline",
        "slice",
        "run_node",
        "group_node",
        "vlag",
        "parent",
    ],
    se_write: &[
        "sched_delayed",
        "vlag",
        "deadline",
        "rel_deadline",
        "runnable_weight",
        "run_node",
        "on_rq",
        "group_node",
    ],
    rq_read: &[
        "next",
        "avg_vruntime",
        "avg_load",
        "min_vruntime",
        "tasks_timeline",
        "nr_queued",
        "throttled",
        "runtime_enabled",
        "runtime_remaining",
    ],
    rq_write: &[
        "next",
        "h_nr_runnable",
        "tasks_timeline",
        "avg_vruntime",
        "avg_load",
        "load",
        "nr_queued",
        "runtime_remaining",
        "min_vruntime",
        "throttled_pelt_idle",
    ],
};

/// `set_next_entity()`: `__dequeue_entity()`, the stats of the new current entity.
const SET_NEXT_ENTITY: OpFields = OpFields {
    se_read: &[
        "run_node",
        "vruntime",
        "deadline",
        "sum_exec_runtime",
        "parent",
    ],
    se_write: &["run_node", "vlag", "exec_start", "prev_sum_exec_runtime"],
    rq_read: &[
        "next",
        "tasks_timeline",
        "min_vruntime",
        "avg_vruntime",
        "avg_load",
    ],
    rq_write: &["next", "tasks_timeline", "avg_vruntime", "avg_load", "curr"],
};

/// `put_prev_entity()`: `check_cfs_rq_runtime()` and `__enqueue_entity()`.
const PUT_PREV_ENTITY: OpFields = OpFields {
    se_read: &["vruntime", "slice", "deadline", "run_node"],
    se_write: &["min_vruntime", "min_slice", "run_node"],
    rq_read: &[
        "runtime_enabled",
        "runtime_remaining",
        "throttled",
        "min_vruntime",
        "avg_vruntime",
        "avg_load",
        "tasks_timeline",
    ],
    rq_write: &["avg_vruntime", "avg_load", "tasks_timeline", "curr"],
};

/// `entity_tick()`: `update_curr()` of the current entity.
const ENTITY_TICK: OpFields = OpFields {
    se_read: &[
        "exec_start",
        "sum_exec_runtime",
        "vruntime",
        "deadline",
        "slice",
        "prev_sum_exec_runtime",
    ],
    se_write: &[
        "exec_start",
        "sum_exec_runtime",
        "vruntime",
        "deadline",
        "slice",
    ],
    rq_read: &[
        "min_vruntime",
        "avg_vruntime",
        "avg_load",
        "tasks_timeline",
        "nr_queued",
    ],
    rq_write: &["min_vruntime"],
};

/// `account_cfs_rq_runtime()` → `__account_cfs_rq_runtime()` and `assign_cfs_rq_runtime()`.
const ACCOUNT_CFS_RQ_RUNTIME: OpFields = OpFields {
    se_read: &[],
    se_write: &[],
    rq_read: &[
        "runtime_enabled",
        "runtime_remaining",
        "throttled",
        "tg",
        "curr",
        "rq",
    ],
    rq_write: &["runtime_remaining"],
};

/// `tg_throttle_down()` on one cfs_rq, with `list_del_leaf_cfs_rq()`.
const TG_THROTTLE_DOWN: OpFields = OpFields {
    se_read: &[],
    se_write: &[],
    rq_read: &[
        "throttle_count",
        "on_list",
        "rq",
        "leaf_cfs_rq_list",
        "throttled_clock_self",
        "nr_queued",
    ],
    rq_write: &[
        "throttled_clock_pelt",
        "leaf_cfs_rq_list",
        "on_list",
        "throttled_clock_self",
        "throttle_count",
    ],
};

/// `tg_unthrottle_up()` on one cfs_rq, with `cfs_rq_is_decayed()` and `list_add_leaf_cfs_rq()`.
const TG_UNTHROTTLE_UP: OpFields = OpFields {
    se_read: &[],
    se_write: &[],
    rq_read: &[
        "throttle_count",
        "throttled_clock_pelt",
        "throttled_clock_pelt_time",
        "load",
        "avg",
        "on_list",
        "leaf_cfs_rq_list",
        "rq",
        "tg",
        "throttled_clock_self",
        "throttled_clock_self_time",
    ],
    rq_write: &[
        "throttle_count",
        "throttled_clock_pelt_time",
        "on_list",
        "leaf_cfs_rq_list",
        "throttled_clock_self",
        "throttled_clock_self_time",
    ],
};

/// `distribute_cfs_runtime()` on one throttled cfs_rq: the walk of `cfs_b->throttled_cfs_rq`, the checks, the runtime handed over, and `unthrottle_cfs_rq_async()`'s `list_add_tail()`.
const DISTRIBUTE_CFS_RUNTIME: OpFields = OpFields {
    se_read: &[],
    se_write: &[],
    rq_read: &[
        "throttled_list",
        "rq",
        "throttled",
        "throttled_csd_list",
        "runtime_remaining",
    ],
    rq_write: &["runtime_remaining", "throttled_csd_list"],
};

/// `__update_blocked_fair()` on one listed cfs_rq and its group entity.
const UPDATE_BLOCKED_FAIR: OpFields = OpFields {
    se_read: &[
        "my_q",
        "avg",
        "cfs_rq",
        "on_rq",
        "sched_delayed",
        "runnable_weight",
        "load",
    ],
    se_write: &["avg"],
    rq_read: &[
        "leaf_cfs_rq_list",
        "throttle_count",
        "throttled_clock_pelt",
        "throttled_clock_pelt_time",
        "rq",
        "removed",
        "avg",
        "load",
        "h_nr_runnable",
        "curr",
        "propagate",
        "prop_runnable_sum",
        "tg",
        "last_update_tg_load_avg",
        "tg_load_avg_contrib",
        "on_list",
    ],
    rq_write: &[
        "removed",
        "avg",
        "propagate",
        "prop_runnable_sum",
        "tg_load_avg_contrib",
        "last_update_tg_load_avg",
        "on_list",
        "leaf_cfs_rq_list",
    ],
};

/// Each operation's members, as the parts it is made of: the kernel function with
/// its inlined helpers. Accesses made only on
/// some paths (the throttle clocks read on a throttled hierarchy, `removed` when
/// load was removed) are counted every time.
pub fn op_fields(op: StructOp) -> &'static [OpFields] {
    match op {
        StructOp::Enqueue => &[ENQUEUE_ENTITY],
        StructOp::Dequeue => &[DEQUEUE_ENTITY],
        StructOp::SetNext => &[SET_NEXT_ENTITY],
        StructOp::PutPrev => &[PUT_PREV_ENTITY],
        StructOp::Tick => &[ENTITY_TICK],
        StructOp::UpdateLoadAvg => &[UPDATE_LOAD_AVG],
        StructOp::AccountRuntime => &[ACCOUNT_CFS_RQ_RUNTIME],
        StructOp::TgThrottleDown => &[TG_THROTTLE_DOWN],
        StructOp::TgUnthrottleUp => &[TG_UNTHROTTLE_UP],
        StructOp::DistributeRuntime => &[DISTRIBUTE_CFS_RUNTIME],
        StructOp::BlockedAverages => &[UPDATE_BLOCKED_FAIR],
        // `__update_blocked_fair()`'s `update_load_avg(cfs_rq_of(se), se, UPDATE_TG)`
        // on the parent cfs_rq (touched without an entity).
        StructOp::BlockedParent => &[UPDATE_LOAD_AVG],
    }
}
