//! Replayed logs as JSON: the parse report and replay metrics (`schedlab replay
//! --json`, the app's Replay panel), a machine preset by name, and the what-if
//! scenario a log's derived workload becomes (`--resimulate`, the app's
//! Re-simulate).

use sched_core::replay::{DerivedWorkload, ParseReport, ReplayMetrics};
use sched_core::scenario::HotplugSpec;
use sched_core::topology::{Topology, TopologySpec};
use sched_core::Scenario;
use serde_json::{json, Map, Value};

/// A machine preset by name, built; an unknown name says which exist.
pub fn preset_topology(preset: &str) -> Result<Topology, String> {
    let spec = TopologySpec {
        preset: Some(preset.to_string()),
        ..Default::default()
    };
    let shape = spec.resolve().map_err(|errors| {
        let messages: Vec<String> = errors.into_iter().map(|error| error.message).collect();
        messages.join("; ")
    })?;
    Ok(Topology::build(shape))
}

/// The scenario a log's workload is re-simulated in: the `preset` machine, or a
/// flat one with the CPUs the log shows; the model's own background threads off
/// (the log's kthreads are part of the derived workload); `source` names the log.
pub fn what_if_scenario(
    derived: &DerivedWorkload,
    metrics: &ReplayMetrics,
    preset: Option<&str>,
    seed: u64,
    source: &str,
) -> Scenario {
    let (topology, hotplug) = match preset {
        Some(preset) => (
            TopologySpec {
                preset: Some(preset.to_string()),
                ..Default::default()
            },
            Vec::new(),
        ),
        None => flat_machine(derived, metrics),
    };
    let background = sched_core::background::BackgroundSpec {
        enabled: false,
        ..Default::default()
    };
    Scenario {
        schema: None,
        title: format!("what if: {source}"),
        description: format!(
            "The workload of the ftrace log {source}: each task's CPU time between blocking points, its sleeps, and the wakeups between tasks, re-simulated."
        ),
        seed,
        duration_ms: derived.span_ns.div_ceil(1_000_000).max(1),
        topology,
        kernel: None,
        features: Default::default(),
        workloads: vec![sched_core::workload::WorkloadSpec::Tasks(
            derived.tasks.clone(),
        )],
        policy: Default::default(),
        knobs: Default::default(),
        costs: Default::default(),
        power: Default::default(),
        background,
        hotplug,
        cgroups: Vec::new(),
    }
}

/// The flat machine a log re-simulates on, and its CPUs offline from the start. Its
/// CPUs are numbered as in the log (a per-CPU kernel thread is pinned by its name's
/// number). Its size is the header's CPU count when the log has one (`#P:N`,
/// `cpus=N`); else up to the highest CPU the log shows, and a CPU below that the log
/// never shows (an excerpt, a log recorded with a CPU mask) is offline from time 0.
fn flat_machine(
    derived: &DerivedWorkload,
    metrics: &ReplayMetrics,
) -> (TopologySpec, Vec<HotplugSpec>) {
    let seen = metrics
        .cpus
        .iter()
        .map(|cpu| cpu.cpu + 1)
        .max()
        .unwrap_or(1);
    let (cpus, hidden) = match derived.machine_cpus {
        Some(header) => (header.max(seen), Vec::new()),
        None => {
            let shown: std::collections::BTreeSet<u32> =
                metrics.cpus.iter().map(|cpu| cpu.cpu).collect();
            let hidden = (0..seen)
                .filter(|cpu| !shown.contains(cpu))
                .map(|cpu| HotplugSpec {
                    at_ms: 0.0,
                    cpu,
                    online: false,
                })
                .collect();
            (seen, hidden)
        }
    };
    // A scenario's LLC has at most 128 cores: a larger flat machine is cut into equal
    // LLCs (moves between them then count as cross-LLC).
    let llcs = cpus.div_ceil(sched_core::topology::MAX_CORES_PER_LLC);
    let topology = TopologySpec {
        sockets: Some(1),
        numa_nodes_per_socket: Some(1),
        llcs_per_socket: Some(llcs),
        cores_per_llc: Some(cpus.div_ceil(llcs)),
        threads_per_core: Some(1),
        ..Default::default()
    };
    (topology, hidden)
}

fn seconds(value: Option<f64>) -> Value {
    value.map(Value::from).unwrap_or(Value::Null)
}

/// The report and metrics as JSON; the keys are documented in docs/replay.md.
pub fn report_json(report: &ParseReport, metrics: &ReplayMetrics) -> Value {
    let skipped: Map<String, Value> = report
        .skipped
        .iter()
        .map(|(reason, count)| {
            (
                reason.name().to_string(),
                json!({"count": count.count, "first_lines": count.first_lines, "label": reason.label()}),
            )
        })
        .collect();
    let warnings: Vec<Value> = report
        .warnings
        .iter()
        .map(|warning| json!({"line": warning.line, "message": warning.message}))
        .collect();
    let tasks: Map<String, Value> = report
        .tasks
        .iter()
        .map(|(pid, comm)| (pid.to_string(), Value::from(comm.as_str())))
        .collect();
    let cpus: Vec<u32> = report.cpus.iter().copied().collect();
    let per_cpu: Vec<Value> = metrics
        .cpus
        .iter()
        .map(|cpu| {
            json!({
                "cpu": cpu.cpu,
                "window_ns": cpu.window_ns,
                "busy_ns": cpu.busy_ns,
                "utilization": cpu.utilization,
                "switches": cpu.switches,
                "max_waiting": cpu.max_waiting,
                "mean_waiting": cpu.mean_waiting,
            })
        })
        .collect();
    let power: Vec<Value> = metrics
        .power
        .iter()
        .map(|cpu| {
            json!({
                "cpu": cpu.cpu,
                "frequency": cpu.frequency.as_ref().map(|frequency| json!({
                    "changes": frequency.changes,
                    "mean_mhz": frequency.mean_mhz,
                    "min_mhz": frequency.min_mhz,
                    "max_mhz": frequency.max_mhz,
                })),
                "idle": cpu.idle.as_ref().map(|idle| json!({
                    "entries": idle.entries,
                    "state_ns": idle.state_ns,
                    "active_ns": idle.active_ns,
                })),
            })
        })
        .collect();
    let stat = &metrics.stat_runtime;
    let stat_by_pid: Map<String, Value> = stat
        .by_pid
        .iter()
        .map(|(pid, ns)| (pid.to_string(), Value::from(*ns)))
        .collect();
    let migrations = &metrics.migrations;
    json!({
        "format": report.format(),
        "formats": report.formats,
        "wrappers": report.wrappers,
        "lines": report.lines,
        "events": report.events,
        "other_events": report.other_events,
        "skipped": skipped,
        "warnings": warnings,
        "warnings_dropped": report.warnings_dropped,
        "lost_events": report.lost_events,
        "out_of_order": report.out_of_order,
        "cpus": cpus,
        "machine_cpus": report.machine_cpus,
        "tasks": tasks,
        "first_ts": seconds(report.first_ts),
        "last_ts": seconds(report.last_ts),
        "span_ns": metrics.span_ns,
        "wakeups": metrics.wakeups,
        "wakeups_of_runnable": metrics.wakeups_of_runnable,
        "unmatched_wakeups": metrics.unmatched_wakeups,
        "wakeup_latency_us": metrics.wakeup_latency_us,
        "switches": metrics.switches,
        "migrations": {
            "smt": migrations.counts.smt,
            "llc": migrations.counts.llc,
            "cross_llc": migrations.counts.cross_llc,
            "cross_numa": migrations.counts.cross_numa,
            "unclassified": migrations.unclassified,
            "total": migrations.total(),
            "source": migrations.source.name(),
            "topology": metrics.topology_name,
        },
        "utilization": metrics.utilization,
        "per_cpu": per_cpu,
        "inconsistencies": metrics.inconsistencies,
        "inconsistent_lines": metrics.inconsistent_lines,
        "power": power,
        "stat_runtime": {
            "events": stat.events,
            "total_ns": stat.total_ns,
            "by_pid": stat_by_pid,
        },
    })
}
