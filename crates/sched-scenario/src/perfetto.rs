//! The run as Chrome trace-event JSON, which Perfetto and `chrome://tracing` open:
//! one track per CPU with a slice per task run, instant events for wakeups,
//! migrations, throttling, hotplug and SHARED_RUNQ's shard operations (each with
//! the model's reason), and a counter per CPU for `cpu_frequency`. The CLI's
//! `--trace-format perfetto-json` and the app's Export menu both write it.

use sched_core::topology::Topology;
use sched_core::trace::{TaskNames, Trace, TraceKind};
use sched_core::Simulator;
use serde_json::{json, Value};

/// The kept trace as one trace-event document.
pub fn perfetto_json(sim: &Simulator) -> Value {
    perfetto_json_of(
        &sim.title,
        &sim.topology,
        &sim.trace,
        sim,
        sim.now().as_ns(),
    )
}

/// A trace as one trace-event document: `title` names the process, runs still
/// going at `now_ns` end there. A played log's trace goes through here too.
pub fn perfetto_json_of(
    title: &str,
    topology: &Topology,
    trace: &Trace,
    names: &dyn TaskNames,
    now_ns: u64,
) -> Value {
    let us = |ns: u64| ns as f64 / 1000.0;
    let mut events = Vec::new();
    events.push(json!({"ph": "M", "pid": 1, "name": "process_name", "args": {"name": format!("{} ({})", title, topology.shape.name)}}));
    for cpu in 0..topology.n_cpus() {
        events.push(json!({"ph": "M", "pid": 1, "tid": cpu, "name": "thread_name", "args": {"name": format!("CPU {cpu}")}}));
        events.push(json!({"ph": "M", "pid": 1, "tid": cpu, "name": "thread_sort_index", "args": {"sort_index": cpu}}));
    }
    // Per CPU: who runs since when.
    let mut running: Vec<Option<(u32, u64)>> = vec![None; topology.n_cpus()];
    for idx in 0..trace.len() {
        let record = trace.get(idx);
        let cpu = record.cpu as usize;
        match record.kind {
            TraceKind::SchedSwitch => {
                if let Some((pid, since)) = running[cpu].take() {
                    events.push(json!({"ph": "X", "pid": 1, "tid": cpu, "ts": us(since), "dur": us(record.time.as_ns() - since),
                        "name": format!("{} {pid}", names.comm(pid)), "args": {"pid": pid}}));
                }
                if record.arg0 != 0 {
                    running[cpu] = Some((record.arg0, record.time.as_ns()));
                }
            }
            TraceKind::SchedWakeup
            | TraceKind::SchedWakeupNew
            | TraceKind::SchedMigrateTask
            | TraceKind::CfsThrottle
            | TraceKind::CfsUnthrottle
            | TraceKind::CpuHotplug
            | TraceKind::ShardPush
            | TraceKind::ShardPop
            | TraceKind::ShardPull => {
                events.push(json!({"ph": "i", "s": "t", "pid": 1, "tid": cpu, "ts": us(record.time.as_ns()),
                    "name": format!("{} {}", record.kind.ftrace_name(), record.pid),
                    "args": {"payload": trace.payload(idx, names), "reason": trace.reason_text(idx)}}));
            }
            TraceKind::CpuFrequency => {
                events.push(json!({"ph": "C", "pid": 1, "ts": us(record.time.as_ns()),
                    "name": format!("cpu_frequency cpu {cpu}"), "args": {"MHz": record.arg0 / 1000}}));
            }
            // A waking is followed by its wakeup; an exit by the switch away.
            TraceKind::SchedWaking | TraceKind::SchedProcessExit => {}
        }
    }
    for (cpu, slot) in running.iter().enumerate() {
        if let Some((pid, since)) = slot {
            events.push(json!({"ph": "X", "pid": 1, "tid": cpu, "ts": us(*since), "dur": us(now_ns.saturating_sub(*since)),
                "name": format!("{} {pid}", names.comm(*pid)), "args": {"pid": pid}}));
        }
    }
    json!({"traceEvents": events, "displayTimeUnit": "ns"})
}
