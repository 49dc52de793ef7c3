//! The WebAssembly bridge: the only code that knows wasm-bindgen.
//!
//! The simulator lives in wasm memory behind an opaque [`SimHandle`]. Commands go
//! in (`step`, `run_until`, `run_events`); small results come back. Per-frame state
//! crosses as typed arrays (`Uint32Array`, `Float64Array`); JSON is used only for
//! one-off descriptions (machine layout, task list, run summary), for scenario
//! errors, and for the small per-workload throughput list (a few `{unit, value}`
//! pairs, the very figures the CLI's `run --json` prints). `explain` re-runs the
//! loaded scenario on demand to explain one decision; it is never called per frame.

use sched_core::metrics::WorkloadThroughput;
use sched_core::trace::TaskNames;
use sched_core::workload::ThroughputKind;
use sched_core::{SimTime, Simulator};
use sched_scenario::{parse_json, scenario_from_value};
use serde_json::json;
use wasm_bindgen::prelude::*;

fn errors_to_js(errors: &[sched_core::ScenarioError]) -> JsValue {
    let list: Vec<_> = errors
        .iter()
        .map(|error| json!({ "path": error.path, "message": error.message }))
        .collect();
    JsValue::from_str(&serde_json::Value::Array(list).to_string())
}

thread_local! {
    /// The message of the last panic, kept by [`start`]'s hook: a panic traps the
    /// module, and the page can only say what went wrong if it can read this.
    static LAST_PANIC: std::cell::RefCell<Option<String>> = const { std::cell::RefCell::new(None) };
}

/// Runs when the module is instantiated: panics keep their message for [`last_panic`].
#[wasm_bindgen(start)]
pub fn start() {
    std::panic::set_hook(Box::new(|info| {
        let message = info.to_string();
        LAST_PANIC.with(|last| *last.borrow_mut() = Some(message));
    }));
}

/// The message of the panic that stopped the module, if one did ("panicked at
/// FILE:LINE:COL:" and the panic's text).
#[wasm_bindgen]
pub fn last_panic() -> Option<String> {
    LAST_PANIC.with(|last| last.borrow().clone())
}

/// Checks scenario text beyond its schema (the machine, CPU lists, programs).
/// Returns a JSON array of `{path, message}`; empty when the scenario is good.
#[wasm_bindgen]
pub fn check_scenario(text: &str) -> String {
    let errors = match parse_json(text).and_then(|value| scenario_from_value(&value)) {
        Ok(_) => Vec::new(),
        Err(errors) => errors,
    };
    let list: Vec<_> = errors
        .iter()
        .map(|error| json!({ "path": error.path, "message": error.message }))
        .collect();
    serde_json::Value::Array(list).to_string()
}

/// Plans a sweep as `schedlab sweep` does: `vary` is a JSON list of `PATH=VALUES`
/// strings (the CLI's `--vary` grammar, the first varying slowest), `seeds` its
/// `--seeds` (`1..5`, `1,7,9`). A sweep of more than `max_runs` runs is refused before
/// any point is built; otherwise every point is built and checked before anything
/// runs. Returns `{"seeds": [...], "points": [{"index", "set": {path: value}, "label",
/// "scenario": {...}}]}`, each point's scenario as JSON ready for [`run_summary`] (a
/// point the model refuses also has `"refused"`, its message); throws one message
/// naming each problem.
#[wasm_bindgen]
pub fn sweep_plan(
    scenario_text: &str,
    vary: &str,
    seeds: &str,
    max_runs: f64,
) -> Result<String, JsValue> {
    use sched_scenario::sweep;
    let fail = |message: String| JsValue::from_str(&message);
    let flags: Vec<String> = serde_json::from_str(vary).map_err(|err| {
        fail(format!(
            "the vary list is not a JSON list of strings: {err}"
        ))
    })?;
    // Every problem at once: the vary lines' and the seeds', then the points'.
    let mut problems: Vec<String> = Vec::new();
    let flags: Vec<_> = flags
        .iter()
        .filter_map(|flag| {
            sweep::parse_vary(flag)
                .map_err(|message| problems.push(format!("vary `{flag}`: {message}")))
                .ok()
        })
        .collect();
    for empty in flags.iter().filter(|flag| flag.values.is_empty()) {
        problems.push(format!("vary {} lists no value", empty.path));
    }
    if problems.is_empty() {
        if let Err(message) = sweep::check_vary_list(&flags) {
            problems.push(format!("vary: {message}"));
        }
    }
    let vary_ok = problems.is_empty();
    let seeds = match sweep::parse_seeds(seeds) {
        Ok(parsed) if parsed.0.is_empty() => {
            problems.push("seeds: no seed is listed".into());
            Vec::new()
        }
        Ok(parsed) => parsed.0,
        Err(message) => {
            problems.push(format!("seeds: {message}"));
            Vec::new()
        }
    };
    let base = parse_json(scenario_text)
        .and_then(|value| scenario_from_value(&value))
        .map_err(|errors| fail(sched_scenario::format_errors(&errors)))?;
    let base = serde_json::to_value(&base).map_err(|err| fail(err.to_string()))?;
    // The points can be checked only when every vary line could be read.
    if !vary_ok {
        return Err(fail(problems.join("\n")));
    }
    // The limit first: a sweep of a hundred thousand points is refused at once, not
    // after each point was built and checked.
    let count = sweep::point_count(&flags);
    let runs = count.map(|count| count.saturating_mul(seeds.len().max(1) as u64));
    let limit = max_runs.clamp(0.0, sweep::MAX_RUNS as f64) as u64;
    match (count, runs) {
        (Some(count), Some(runs)) if runs <= limit => {
            plan_points(&base, &flags, count, &seeds, problems).map_err(fail)
        }
        (Some(count), Some(runs)) => {
            let plural = |n: u64, word: &str| format!("{n} {word}{}", if n == 1 { "" } else { "s" });
            Err(fail(format!(
                "the sweep has {runs} runs ({} x {}); the app runs at most {limit}: use schedlab sweep for more",
                plural(count, "point"),
                plural(seeds.len() as u64, "seed")
            )))
        }
        _ => Err(fail(format!(
            "the sweep has more than {} points; the app runs at most {limit} runs: use schedlab sweep for more",
            sweep::MAX_RUNS
        ))),
    }
}

/// Builds each point of a sweep within the limit. A point whose settings make a
/// scenario the model refuses keeps its unchecked JSON and the model's message
/// (`"refused"`): the sweep worker checks it against the schema, whose message is
/// the CLI's (`must be at least 1, got -5`), and says the model's otherwise.
fn plan_points(
    base: &serde_json::Value,
    flags: &[sched_scenario::sweep::Vary],
    count: u64,
    seeds: &[u64],
    mut problems: Vec<String>,
) -> Result<String, String> {
    use sched_scenario::sweep;
    let mut points = Vec::new();
    for index in 0..count {
        let point = match sweep::point_value(base, flags, index) {
            Ok(point) => point,
            Err(message) => {
                for line in message.lines() {
                    if !problems.iter().any(|seen| seen == line) {
                        problems.push(line.to_string());
                    }
                }
                continue;
            }
        };
        // How the CLI names the point in a problem (the schema check is the sweep
        // worker's: this build has no JSON Schema validator).
        let label = point.label();
        match sweep::check_point(&point, index) {
            Ok(scenario) => {
                let set: serde_json::Map<String, serde_json::Value> =
                    point.typed.into_iter().collect();
                let scenario = serde_json::to_value(&scenario).map_err(|err| err.to_string())?;
                points.push(json!({ "index": index, "set": set, "label": label, "scenario": scenario }));
            }
            Err(refused) => points.push(
                json!({ "index": index, "set": {}, "label": label, "scenario": point.value, "refused": refused }),
            ),
        }
    }
    if !problems.is_empty() {
        return Err(problems.join("\n"));
    }
    Ok(json!({ "seeds": seeds, "points": points }).to_string())
}

/// Runs scenario JSON to its end with `seed`, keeping no trace, and returns its
/// summary as `schedlab run --json` prints it (one run of a sweep).
#[wasm_bindgen]
pub fn run_summary(scenario_text: &str, name: &str, seed: f64) -> Result<String, JsValue> {
    let mut scenario = parse_json(scenario_text)
        .and_then(|value| scenario_from_value(&value))
        .map_err(|errors| errors_to_js(&errors))?;
    scenario.seed = seed as u64;
    let mut sim =
        Simulator::with_trace_limit(&scenario, 0).map_err(|errors| errors_to_js(&errors))?;
    sim.run_to_end();
    Ok(serde_json::to_string(&sim.summary(name)).expect("a summary serialises"))
}

/// One timed run as `schedlab bench` times it, for the wasm/native speed figures:
/// built from scenario JSON with no trace kept (only its hash), then `run` goes to
/// the end. The page times `run` alone, as the CLI times `run_to_end`.
#[wasm_bindgen]
pub struct BenchRun {
    sim: Simulator,
}

#[wasm_bindgen]
impl BenchRun {
    /// Throws a JSON array of `{path, message}` for a bad scenario.
    #[wasm_bindgen(constructor)]
    pub fn new(scenario_text: &str) -> Result<BenchRun, JsValue> {
        let scenario = parse_json(scenario_text)
            .and_then(|value| scenario_from_value(&value))
            .map_err(|errors| errors_to_js(&errors))?;
        let sim =
            Simulator::with_trace_limit(&scenario, 0).map_err(|errors| errors_to_js(&errors))?;
        Ok(BenchRun { sim })
    }

    /// Runs to the end; the events handled.
    pub fn run(&mut self) -> f64 {
        self.sim.run_to_end();
        self.sim.events() as f64
    }

    pub fn n_cpus(&self) -> u32 {
        self.sim.topology.n_cpus() as u32
    }

    /// The trace hash, equal to the native build's for the same scenario and seed.
    pub fn trace_hash(&self) -> String {
        self.sim.trace.hash_hex()
    }
}

/// The median, min and max over runs, field by field (`schedlab sweep --json`'s
/// per-point figures): `runs` is a JSON list of summaries; returns
/// `{"median", "min", "max"}`.
/// The struct-layout lab's data for a `policy.struct_layout` value (JSON text; empty
/// for the original layout): both structures laid out and the fields each operation
/// touches. Throws the reason when the order is not a valid layout.
#[wasm_bindgen]
pub fn struct_layout_json(spec_text: &str) -> Result<String, JsValue> {
    use sched_core::policy::struct_layout::{layout_report, StructLayoutSpec};
    let spec: StructLayoutSpec = if spec_text.trim().is_empty() {
        StructLayoutSpec::Unset
    } else {
        serde_json::from_str(spec_text).map_err(|err| JsValue::from_str(&err.to_string()))?
    };
    let report = layout_report(&spec).map_err(|err| JsValue::from_str(&err))?;
    serde_json::to_string(&report).map_err(|err| JsValue::from_str(&err.to_string()))
}

#[wasm_bindgen]
pub fn spread_json(runs: &str) -> Result<String, JsValue> {
    let runs: Vec<serde_json::Value> =
        serde_json::from_str(runs).map_err(|err| JsValue::from_str(&err.to_string()))?;
    let spread = sched_scenario::spread::spread(&runs);
    Ok(json!({ "median": spread.median, "min": spread.min, "max": spread.max }).to_string())
}

/// Reads a pasted ftrace log as `schedlab replay` does: returns `{"report": ...}`
/// (the parse report and replay metrics, the keys of `replay --json`), and, when
/// the log shows tasks running, `"scenario"`: the what-if scenario its derived
/// workload becomes (`replay --resimulate`), on the `preset` machine or, with an
/// empty `preset`, a flat one with the CPUs seen; `"derived"` counts its tasks
/// and wakeups. Throws a message for an unknown preset.
#[wasm_bindgen]
pub fn replay_log(text: &str, preset: &str, source: &str) -> Result<String, JsValue> {
    let machine = preset_machine(preset)?;
    let parsed = sched_core::replay::parse(text);
    Ok(replay_value(&parsed, machine.as_ref(), preset, source, true).to_string())
}

/// The `preset` machine, or `None` for an empty name; a message for an unknown one.
fn preset_machine(preset: &str) -> Result<Option<sched_core::topology::Topology>, JsValue> {
    if preset.is_empty() {
        return Ok(None);
    }
    sched_scenario::replay::preset_topology(preset)
        .map(Some)
        .map_err(|message| JsValue::from_str(&format!("topology: {message}")))
}

/// What `replay_log` answers for a parsed log; `"scenario"` is null without
/// `with_scenario` (a large log's what-if scenario is large: `LogHandle` makes it
/// only when asked, with `what_if_json`).
fn replay_value(
    parsed: &sched_core::replay::ParsedTrace,
    machine: Option<&sched_core::topology::Topology>,
    preset: &str,
    source: &str,
    with_scenario: bool,
) -> serde_json::Value {
    use sched_core::replay::{derive_workload, replay};
    let metrics = replay(parsed, machine);
    let report = sched_scenario::replay::report_json(&parsed.report, &metrics);
    let derived = derive_workload(parsed);
    let scenario = if derived.tasks.tasks.is_empty() || !with_scenario {
        serde_json::Value::Null
    } else {
        serde_json::to_value(what_if(&derived, &metrics, preset, source))
            .expect("a scenario serialises")
    };
    json!({
        "report": report,
        "scenario": scenario,
        "derived": {
            "tasks": derived.tasks.tasks.len(),
            "task_wakeups": derived.task_wakeups,
            "timer_wakeups": derived.timer_wakeups,
        },
    })
}

/// The what-if scenario of a derived workload, on `preset` (empty: the flat machine).
fn what_if(
    derived: &sched_core::replay::DerivedWorkload,
    metrics: &sched_core::replay::ReplayMetrics,
    preset: &str,
    source: &str,
) -> sched_core::Scenario {
    let preset = (!preset.is_empty()).then_some(preset);
    sched_scenario::replay::what_if_scenario(derived, metrics, preset, 1, source)
}

/// The machine's layout: shape and, per CPU, its core, LLC, node and socket.
fn machine_json(topology: &sched_core::topology::Topology, frequency_mhz: u32) -> String {
    let cpus: Vec<_> = topology
        .cpus
        .iter()
        .map(|info| {
            json!({
                "core": info.core.0, "llc": info.llc.0, "node": info.node.0,
                "socket": info.socket.0, "thread": info.thread
            })
        })
        .collect();
    json!({
        "name": topology.shape.name,
        "sockets": topology.shape.sockets,
        "llcs": topology.llc_cpus.len(),
        "cores": topology.core_cpus.len(),
        "nodes": topology.node_cpus.len(),
        "threads_per_core": topology.shape.threads_per_core,
        "frequency_mhz": frequency_mhz,
        "cpus": cpus,
    })
    .to_string()
}

mod log;
mod trace_view;

pub use log::{LogHandle, LogReader};

#[wasm_bindgen]
pub struct SimHandle {
    sim: Simulator,
    /// The scenario the simulator was built from: `explain` re-runs it.
    scenario: sched_core::Scenario,
    name: String,
    running_pid: Vec<u32>,
    nr_running: Vec<u32>,
    /// Snapshots taken while playing, by index (`snapshot`, `restore`).
    /// `None` once forgotten.
    snapshots: trace_view::Snapshots<sched_core::Snapshot>,
}

#[wasm_bindgen]
impl SimHandle {
    /// Builds a simulator from scenario JSON. On error, throws a JSON array of
    /// `{path, message}`.
    #[wasm_bindgen(constructor)]
    pub fn new(scenario_text: &str, name: &str) -> Result<SimHandle, JsValue> {
        let value = parse_json(scenario_text).map_err(|errors| errors_to_js(&errors))?;
        let scenario = scenario_from_value(&value).map_err(|errors| errors_to_js(&errors))?;
        let mut sim = Simulator::new(&scenario).map_err(|errors| errors_to_js(&errors))?;
        // The timeline shades where tasks wait: keep each runqueue's count, change by change.
        sim.keep_wait_log();
        let n_cpus = sim.topology.n_cpus();
        Ok(SimHandle {
            sim,
            scenario,
            name: name.to_string(),
            running_pid: vec![0; n_cpus],
            nr_running: vec![0; n_cpus],
            snapshots: Default::default(),
        })
    }

    /// Handles one event; false once the run is over.
    pub fn step(&mut self) -> bool {
        self.sim.step() == sched_core::StepOutcome::Handled
    }

    /// Runs every event up to `until_ns` (simulated nanoseconds).
    pub fn run_until(&mut self, until_ns: f64) {
        self.sim.run_until(SimTime(until_ns.max(0.0) as u64));
    }

    /// Keeps the state now as a snapshot; returns its index for `restore`.
    pub fn snapshot(&mut self) -> u32 {
        self.snapshots.keep(self.sim.snapshot())
    }

    /// Frees snapshot `index` (the memory of a whole simulator state).
    pub fn forget(&mut self, index: u32) {
        self.snapshots.forget(index);
    }

    /// Goes back to snapshot `index`, taken earlier in this run than the state
    /// now: false (and nothing changes) when there is no such snapshot, or when
    /// it lies ahead of the state now.
    pub fn restore(&mut self, index: u32) -> bool {
        let total = self.sim.trace.total();
        match self
            .snapshots
            .before(index, total, |snapshot| snapshot.trace_total())
        {
            Some(snapshot) => {
                self.sim.restore(snapshot);
                true
            }
            None => false,
        }
    }

    /// Runs events up to `until_ns`, at most `max_events` of them; true when it got there.
    pub fn run_until_bounded(&mut self, until_ns: f64, max_events: u32) -> bool {
        self.sim
            .run_until_bounded(SimTime(until_ns.max(0.0) as u64), max_events as u64)
    }

    /// Runs at most `max_events` events; returns how many ran.
    pub fn run_events(&mut self, max_events: u32) -> u32 {
        self.sim.run_events(max_events as u64) as u32
    }

    /// Handles events until the next decision of a kind, at most `max_events`:
    /// `0` a wakeup or fork placement of a task that may use more than one CPU,
    /// `1` any task move (`sched_migrate_task`), `2` a load-balancer pull. Returns
    /// the trace index of that decision's record (`sched_wakeup`,
    /// `sched_wakeup_new` or `sched_migrate_task`), or -1 when none came (the run
    /// ended, the budget ran out, or the trace store is full).
    pub fn run_to_next(&mut self, kind: u32, max_events: u32) -> f64 {
        use sched_core::trace::{Reason, TraceKind};
        let mut scanned = self.sim.trace.len();
        for _ in 0..max_events {
            if self.sim.step() != sched_core::StepOutcome::Handled {
                break;
            }
            let trace = &self.sim.trace;
            for idx in scanned..trace.len() {
                let found = match (kind, trace.kind(idx)) {
                    (0, TraceKind::SchedWakeup | TraceKind::SchedWakeupNew) => {
                        let pid = trace.pid(idx);
                        let task = self.sim.tasks.iter().find(|task| task.pid.0 == pid);
                        task.is_some_and(|task| task.affinity.len() > 1)
                    }
                    (1, TraceKind::SchedMigrateTask) => true,
                    (2, TraceKind::SchedMigrateTask) => {
                        matches!(trace.reason(idx), Reason::Pull { .. })
                    }
                    _ => false,
                };
                if found {
                    return idx as f64;
                }
            }
            scanned = trace.len();
        }
        -1.0
    }

    pub fn run_to_end(&mut self) {
        self.sim.run_to_end();
    }

    pub fn now_ns(&self) -> f64 {
        self.sim.now().as_ns() as f64
    }

    pub fn end_ns(&self) -> f64 {
        self.sim.end_time().as_ns() as f64
    }

    pub fn events(&self) -> f64 {
        self.sim.events() as f64
    }

    pub fn finished(&self) -> bool {
        self.sim.is_finished()
    }

    pub fn n_cpus(&self) -> u32 {
        self.sim.topology.n_cpus() as u32
    }

    /// Per CPU: the running pid (0 = idle). A fresh `Uint32Array` each call.
    pub fn frame_running(&mut self) -> Vec<u32> {
        self.sim
            .cpu_frame(&mut self.running_pid, &mut self.nr_running);
        self.running_pid.clone()
    }

    /// Per CPU, the queued tasks, the next to run first: `[n, pid, ...]` with at most
    /// `max_each` pids a CPU (the machine view draws them on small machines).
    pub fn frame_queues(&self, max_each: u32) -> Vec<u32> {
        let mut out = Vec::new();
        for cpu in 0..self.sim.topology.n_cpus() {
            let start = out.len();
            out.push(0);
            out.extend(self.sim.cpu_queue(cpu, max_each as usize));
            out[start] = (out.len() - start - 1) as u32;
        }
        out
    }

    /// Per CPU: runnable tasks, including the running one (as of the last `frame_running`).
    pub fn frame_nr_running(&self) -> Vec<u32> {
        self.nr_running.clone()
    }

    /// The CPUs offline now (hotplug), lowest first; empty on most machines.
    pub fn frame_offline(&self) -> Vec<u32> {
        let n_cpus = self.sim.topology.n_cpus() as u32;
        (0..n_cpus)
            .filter(|&cpu| !self.sim.online.contains(sched_core::topology::CpuId(cpu)))
            .collect()
    }

    /// Per CPU: busy nanoseconds so far.
    pub fn frame_busy_ns(&self) -> Vec<f64> {
        self.sim.busy_ns().into_iter().map(|ns| ns as f64).collect()
    }

    /// The wakeup latencies in powers of two from 1 us: `[upper_us, count, ...]`.
    pub fn latency_histogram(&self) -> Vec<f64> {
        trace_view::latency_histogram(self.sim.metrics.latency_histogram())
    }

    /// `[p50, p75, p90, p95, p99, p99.5, p99.9, min, max, samples]`, microseconds.
    pub fn latency(&self) -> Vec<f64> {
        trace_view::latency(&self.sim.metrics.latency_percentiles())
    }

    /// `[context switches, wakeups, migrations smt, llc, cross-llc, cross-numa,
    /// idle-while-runnable ns (LLC), (machine), rq lock contentions,
    /// rq lock acquisitions, rq lock wait ns, cache refill ns, scheduler overhead ns,
    /// offline CPU time ns (hotplug)]`.
    pub fn counters(&self) -> Vec<f64> {
        let metrics = &self.sim.metrics;
        let lock = &self.sim.rq_lock_stat;
        let (gap_llc, gap_machine) = self.sim.idle_while_runnable_now();
        vec![
            metrics.context_switches as f64,
            metrics.wakeups as f64,
            metrics.migrations.smt as f64,
            metrics.migrations.llc as f64,
            metrics.migrations.cross_llc as f64,
            metrics.migrations.cross_numa as f64,
            gap_llc as f64,
            gap_machine as f64,
            lock.contentions as f64,
            lock.acquisitions as f64,
            lock.waittime_total_ns as f64,
            metrics.cache_refill_ns as f64,
            metrics.sched_overhead_ns as f64,
            self.sim.offline_time_ns() as f64,
        ]
    }

    /// The machine's layout (one-off): shape and, per CPU, its core, LLC, node, socket.
    pub fn topology_json(&self) -> String {
        machine_json(&self.sim.topology, self.sim.costs.frequency_mhz)
    }

    /// The task list (one-off): pid, comm, workload group and the CPUs the task
    /// may run on when it starts (`cpus`, a list of CPU numbers).
    pub fn tasks_json(&self) -> String {
        let tasks: Vec<_> = self
            .sim
            .tasks
            .iter()
            .enumerate()
            .map(|(idx, task)| {
                let cpus: Vec<u32> = task.affinity.iter().map(|cpu| cpu.0).collect();
                json!({ "pid": task.pid.0, "comm": task.comm, "group": task.group, "cpus": cpus,
                        "jitter": self.sim.is_jitter(sched_core::task::TaskId(idx as u32)),
                        "records_latency": task.record_latency })
            })
            .collect();
        let workloads: Vec<_> = self
            .sim
            .workloads
            .iter()
            .map(|workload| {
                let kind = match workload.throughput {
                    ThroughputKind::Rate { .. } => "rate",
                    ThroughputKind::CompletionTime { .. } => "completion_time",
                    ThroughputKind::StreamPhases { .. } => "stream",
                };
                json!({ "label": workload.label, "throughput": kind })
            })
            .collect();
        json!({ "tasks": tasks, "workloads": workloads }).to_string()
    }

    /// Each workload's throughput so far, from the core's `Simulator::throughputs`:
    /// a JSON array of `{workload, values: [{unit, value}]}`, exactly the CLI's
    /// `run --json` `throughput_by_workload` (a rate; a completion time in `s` once
    /// every task of hackbench or a compile has exited; MB/s per STREAM kernel).
    /// Small: one entry per workload, so the UI reads it with every frame.
    pub fn throughputs_json(&self) -> String {
        let list: Vec<WorkloadThroughput> = self
            .sim
            .throughputs()
            .into_iter()
            .map(|(workload, values)| WorkloadThroughput { workload, values })
            .collect();
        serde_json::to_string(&list).expect("throughputs serialise")
    }

    /// The run summary, as the CLI's `--json` prints it.
    pub fn summary_json(&self) -> String {
        serde_json::to_string(&self.sim.summary(&self.name)).expect("a summary serialises")
    }

    /// Explains the wakeup or fork behind trace record `record_index` (the index the
    /// trace lines carry): re-runs the loaded scenario from the start with the
    /// core's recorder armed for that record (`Simulator::explain_record`) and
    /// returns the decision as JSON. Throws a message for a record that is not a
    /// placement decision or does not exist. On demand only: it costs a re-run.
    pub fn explain(&self, record_index: f64) -> Result<String, JsValue> {
        let decision = Simulator::explain_record(&self.scenario, record_index.max(0.0) as u64)
            .map_err(|message| JsValue::from_str(&message))?;
        Ok(serde_json::to_string(&decision).expect("a decision serialises"))
    }

    /// The power model (one-off): `{enabled, cores_per_socket, budget_w_by_socket,
    /// turbo_mhz_by_active_cores, nominal_mhz, shallow, deep}` (the idle states' names,
    /// exit latencies and residencies); `{enabled: false}` when it does not run.
    pub fn power_json(&self) -> String {
        let power = &self.sim.power;
        if !power.enabled {
            return json!({ "enabled": false }).to_string();
        }
        let figures = &power.figures;
        let cores = power.socket_cores.first().copied().unwrap_or(1);
        let table: Vec<u32> = (1..=cores)
            .map(|active| figures.turbo_mhz(active, cores))
            .collect();
        let budgets: Vec<f64> = power
            .socket_cores
            .iter()
            .map(|cores| figures.budget_w(*cores))
            .collect();
        json!({
            "enabled": true,
            "nominal_mhz": figures.nominal_mhz,
            "cores_per_socket": power.socket_cores,
            "budget_w_by_socket": budgets,
            "turbo_mhz_by_active_cores": table,
            "shallow": figures.shallow,
            "deep": figures.deep,
        })
        .to_string()
    }

    /// The power model's state now: per core its idle state (0 active, 1 shallow
    /// idle, 2 deep idle), then per socket its frequency in MHz and its power draw in
    /// watts: `[core0, core1, ..., mhz0, watts0, mhz1, watts1, ...]`. Empty when the
    /// model does not run.
    pub fn frame_power(&self) -> Vec<f64> {
        let power = &self.sim.power;
        if !power.enabled {
            return Vec::new();
        }
        let mut out: Vec<f64> = power
            .core_idle
            .iter()
            .map(|state| match state {
                sched_core::power::CoreIdle::Active => 0.0,
                sched_core::power::CoreIdle::Shallow => 1.0,
                sched_core::power::CoreIdle::Deep => 2.0,
            })
            .collect();
        for socket in 0..power.socket_mhz.len() {
            out.push(power.socket_mhz[socket] as f64);
            out.push(power.socket_power_w(socket));
        }
        out
    }

    /// The cgroups (one-off): a JSON array, one entry per group in the order
    /// `frame_cgroups` uses, of `{name, parent, depth, quota_us, period_us, tasks}`
    /// (`parent` an index or null; `quota_us` null without a limit).
    pub fn cgroups_json(&self) -> String {
        let groups: Vec<_> = self
            .sim
            .groups
            .iter()
            .map(|tg| {
                json!({
                    "name": tg.name,
                    "parent": tg.parent,
                    "depth": tg.depth,
                    "quota_us": tg.quota_ns.map(|ns| ns / 1_000),
                    "period_us": tg.period_ns / 1_000,
                    "cpu_weight": tg.cpu_weight,
                    "tasks": tg.tasks.len(),
                })
            })
            .collect();
        serde_json::Value::Array(groups).to_string()
    }

    /// Per cgroup, in `cgroups_json` order, now: how many of its cfs_rqs are
    /// throttled (the CPUs it waits on), then its runnable tasks over all CPUs:
    /// `[throttled0, runnable0, throttled1, runnable1, ...]`.
    pub fn frame_cgroups(&self) -> Vec<u32> {
        let n_cpus = self.sim.topology.n_cpus() as u32;
        let mut out = Vec::with_capacity(self.sim.groups.len() * 2);
        for (group, tg) in self.sim.groups.iter().enumerate() {
            out.push(tg.throttled_cpus.len() as u32);
            let runnable: u32 = (0..n_cpus)
                .map(|cpu| {
                    self.sim
                        .group_rq(group as u32, sched_core::topology::CpuId(cpu))
                        .h_nr_running
                })
                .sum();
            out.push(runnable);
        }
        out
    }

    /// SHARED_RUNQ's shards (one-off): a JSON array, one entry per shard, of
    /// `{llc, index, cpus}` (the shard's index within its LLC and the CPUs that push
    /// into it); empty when `policy.shared_runq.mode` is `off`.
    pub fn shards_json(&self) -> String {
        let runq = &self.sim.shared_runq;
        if !runq.enabled() {
            return "[]".into();
        }
        let shards: Vec<_> = (0..runq.n_shards() as u32)
            .map(|shard| {
                let (index, llc) = runq.shard_in_llc(shard);
                let cpus: Vec<u32> = (0..self.sim.topology.n_cpus() as u32)
                    .filter(|&cpu| runq.shard_of_cpu(sched_core::topology::CpuId(cpu)) == shard)
                    .collect();
                json!({ "llc": llc, "index": index, "cpus": cpus })
            })
            .collect();
        serde_json::Value::Array(shards).to_string()
    }

    /// Per shard, in `shards_json` order: its length, then the pids queued in it,
    /// head (oldest) first: `[len0, pid, pid, ..., len1, pid, ...]`. Empty when off.
    pub fn frame_shards(&self) -> Vec<u32> {
        let runq = &self.sim.shared_runq;
        let mut out = Vec::new();
        if !runq.enabled() {
            return out;
        }
        for shard in 0..runq.n_shards() as u32 {
            let tasks = runq.shard_tasks(shard);
            out.push(tasks.len() as u32);
            out.extend(
                tasks
                    .iter()
                    .map(|task| self.sim.tasks[task.0 as usize].pid.0),
            );
        }
        out
    }

    /// Per shard, in `shards_json` order: its lock's acquisitions and contentions so
    /// far, `[acq0, cont0, acq1, cont1, ...]`. Empty when off.
    pub fn frame_shard_locks(&self) -> Vec<f64> {
        let runq = &self.sim.shared_runq;
        if !runq.enabled() {
            return Vec::new();
        }
        runq.shard_acquisitions
            .iter()
            .zip(&runq.shard_contentions)
            .flat_map(|(acq, cont)| [*acq as f64, *cont as f64])
            .collect()
    }

    /// Per shard, in `shards_json` order, the CPUs that spun on its lock after
    /// `since_ns` (the previous frame's time): `[n, cpu, ..., n, cpu, ...]`, newest
    /// first, at most `SPINS_KEPT` each. Empty when off.
    pub fn frame_shard_spinners(&self, since_ns: f64) -> Vec<u32> {
        let runq = &self.sim.shared_runq;
        if !runq.enabled() {
            return Vec::new();
        }
        let since = SimTime(since_ns.max(0.0) as u64);
        let mut out = Vec::new();
        for shard in 0..runq.n_shards() as u32 {
            let cpus = runq.spinners_since(shard, since);
            out.push(cpus.len() as u32);
            out.extend(cpus.iter().map(|cpu| cpu.0));
        }
        out
    }

    /// `lock_stat` rows so far, as the CLI's `run --json` `locks` prints them: per
    /// class (`&rq->__lock`, and `&shard->lock` when SHARED_RUNQ is on) the kernel's
    /// columns in nanoseconds and `contention_points` / `contending_points` by call
    /// site. Small (two rows); read it at most once per frame.
    pub fn lock_stat_json(&self) -> String {
        serde_json::to_string(&self.sim.lock_stat_rows()).expect("lock_stat serialises")
    }

    pub fn trace_hash(&self) -> String {
        self.sim.trace.hash_hex()
    }

    /// Records stored so far (the UI reads them from a cursor).
    pub fn trace_len(&self) -> u32 {
        self.sim.trace.len() as u32
    }

    /// Whether the trace store is full: it keeps records `0..trace_len()` and no
    /// later one, as its memory budget (`DEFAULT_TRACE_KEEP_BYTES`) is spent. The
    /// run, its counters and the trace hash go on.
    pub fn trace_full(&self) -> bool {
        self.sim.trace.is_full()
    }

    /// Records the run has emitted, kept or not (`trace_events` in the summary).
    pub fn trace_total(&self) -> f64 {
        self.sim.trace.total() as f64
    }

    /// Bytes the trace store holds, as allocated.
    pub fn trace_heap_bytes(&self) -> f64 {
        self.sim.trace.heap_bytes() as f64
    }

    /// The context switches among trace records `[from, to)`, as flat triples
    /// `[time_ns, cpu, next_pid, ...]` (`next_pid` 0: the CPU went idle). The UI keeps
    /// `to` (`trace_len()`) as its cursor and builds per-CPU run slices from them.
    pub fn switches(&self, from: u32, to: u32) -> Vec<f64> {
        trace_view::switches(&self.sim.trace, from, to)
    }

    /// Entries in the wait log so far (the UI reads them from a cursor, as it reads
    /// the trace). It stops growing when the trace does.
    pub fn waits_len(&self) -> u32 {
        self.sim.wait_log.as_ref().map_or(0, |log| log.len() as u32)
    }

    /// The changes of each CPU's waiting count (tasks runnable on its runqueue but
    /// not running: `nr_running` less the running task) among wait-log entries
    /// `[from, to)`, as flat triples `[time_ns, cpu, waiting, ...]` in time order.
    /// Exact: the core logs every change of a runqueue as it happens, not samples.
    /// The UI keeps `to` (`waits_len()`) as its cursor and shades the timeline's lanes.
    pub fn waits(&self, from: u32, to: u32) -> Vec<f64> {
        self.sim
            .wait_log
            .as_ref()
            .map_or_else(Vec::new, |log| trace_view::waits(log, from, to))
    }

    /// Lets the core forget the wait-log entries before `idx` that the UI has
    /// copied out (its cursor): their sealed chunks are freed, so a long run does
    /// not keep the log twice. `waits` answers from the first entry kept; rewinding
    /// to a snapshot still works (the log goes on from the snapshot's mark).
    pub fn forget_waits_before(&mut self, idx: u32) {
        if let Some(log) = &mut self.sim.wait_log {
            log.forget_before(idx as usize);
        }
    }

    /// The task moves among trace records `[from, to)` (every `sched_migrate_task`,
    /// uncapped), as flat quintuples `[time_ns, pid, orig_cpu, dest_cpu, cause, ...]`;
    /// `cause` is 0 for a wakeup's placement (TurboSched's packing included), 1 for
    /// a load-balancer pull, 2 for anything else (hotplug's fallback, NUMA moves).
    /// The machine view animates them.
    pub fn migrations(&self, from: u32, to: u32) -> Vec<f64> {
        use sched_core::trace::{Reason, TraceKind};
        let trace = &self.sim.trace;
        let end = (to as usize).min(trace.len());
        let start = (from as usize).min(end);
        let mut out = Vec::new();
        for idx in start..end {
            if trace.kind(idx) == TraceKind::SchedMigrateTask {
                let cause = match trace.reason(idx) {
                    Reason::Wakeup { .. } | Reason::TurboPack { .. } => 0.0,
                    Reason::Pull { .. } => 1.0,
                    _ => 2.0,
                };
                out.extend([
                    trace.time(idx).as_ns() as f64,
                    trace.pid(idx) as f64,
                    trace.arg0(idx) as f64,
                    trace.arg1(idx) as f64,
                    cause,
                ]);
            }
        }
        out
    }

    /// The trace as the kernel's `trace` file, for export: the header when `from` is
    /// 0, then records `[from, to)`, each with the model's reason as a `# ...`
    /// comment when `reasons` is set. The UI asks for it in chunks and joins them.
    pub fn ftrace_text(&self, from: u32, to: u32, reasons: bool) -> String {
        let names: &dyn TaskNames = &self.sim;
        trace_view::ftrace_text(
            &self.sim.trace,
            names,
            self.sim.topology.n_cpus(),
            from,
            to,
            reasons,
        )
    }

    /// The kept trace as Chrome trace-event JSON (Perfetto opens it), as the CLI's
    /// `--trace-format perfetto-json` writes it.
    pub fn perfetto_json(&self) -> String {
        sched_scenario::perfetto::perfetto_json(&self.sim).to_string()
    }

    /// The event log's search: up to `count` records before record `before`, newest
    /// first, that match every filter given (`event` an ftrace event name or empty;
    /// `cpu` and `pid` -1 for any; a pid matches the record's task, and a switch's
    /// next task too). Lines are `index|time|cpu|event|payload|reason`. The scan
    /// looks at most `max_scan` records, so a filter matching nothing answers quickly.
    pub fn trace_search(
        &self,
        before: u32,
        count: u32,
        event: &str,
        cpu: i32,
        pid: i64,
        max_scan: u32,
    ) -> String {
        trace_view::search(
            &self.sim.trace,
            &self.sim,
            before,
            count,
            event,
            cpu,
            pid,
            max_scan,
        )
    }

    /// Records `[from, from + count)` as text lines: `time|cpu|event|payload|reason`.
    pub fn trace_lines(&self, from: u32, count: u32) -> String {
        trace_view::lines(&self.sim.trace, &self.sim, from, count)
    }
}

#[cfg(test)]
mod tests {
    use super::SimHandle;

    /// Replays the bridge's `waits` as the UI does (per CPU, the last count at or
    /// before the instant) and compares them with the machine view's figures:
    /// `frame_nr_running` less the running task of `frame_running`.
    #[test]
    fn waits_agree_with_nr_running_at_many_instants_of_teaching_small() {
        let text = include_str!("../../../scenarios/teaching-small.json");
        let Ok(mut handle) = SimHandle::new(text, "teaching-small") else {
            panic!("teaching-small loads");
        };
        let n_cpus = handle.n_cpus() as usize;
        let mut counts = vec![0u32; n_cpus];
        let mut cursor = 0;
        let mut instants_with_waits = 0;
        let mut most = 0;
        // Uneven steps, so the instants fall anywhere in the tasks' cycles.
        let mut at_ns = 0.0;
        for step in 0..400 {
            at_ns += 97_000.0 + (step % 7) as f64 * 131_000.0;
            handle.run_until(at_ns);
            let len = handle.waits_len();
            let flat = handle.waits(cursor, len);
            cursor = len;
            for entry in flat.chunks_exact(3) {
                assert!(entry[0] <= handle.now_ns(), "a change from the future");
                counts[entry[1] as usize] = entry[2] as u32;
            }
            let running = handle.frame_running();
            let nr_running = handle.frame_nr_running();
            for cpu in 0..n_cpus {
                let expected = nr_running[cpu] - u32::from(running[cpu] != 0);
                assert_eq!(counts[cpu], expected, "CPU {cpu} at {at_ns} ns");
                most = most.max(expected);
            }
            if counts.iter().any(|count| *count > 0) {
                instants_with_waits += 1;
            }
        }
        assert!(
            instants_with_waits >= 10,
            "tasks waited at {instants_with_waits} instants only"
        );
        assert!(most >= 1);
    }
}
