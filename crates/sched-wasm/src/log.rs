//! A real machine's ftrace log in the page: read in chunks as the file streams in
//! (`LogReader`), then played in the views a simulation plays in (`LogHandle`,
//! which answers the calls the engine worker makes of a `SimHandle`).

use crate::trace_view;
use sched_core::replay::{LogPlayer, LogSnapshot, Parser};
use sched_core::trace::{TaskNames, TraceKind};
use sched_core::SimTime;
use serde_json::json;
use wasm_bindgen::prelude::*;

/// The streaming parser: `feed` the log's bytes in chunks split anywhere (the
/// page reads a `File` in pieces, gzip decompressed on the way), then hand it to
/// `LogHandle`. The text is never held whole.
#[wasm_bindgen]
pub struct LogReader {
    parser: Parser,
    bytes: f64,
}

impl Default for LogReader {
    fn default() -> Self {
        Self::new()
    }
}

#[wasm_bindgen]
impl LogReader {
    #[wasm_bindgen(constructor)]
    pub fn new() -> LogReader {
        LogReader {
            parser: Parser::new(),
            bytes: 0.0,
        }
    }

    pub fn feed(&mut self, chunk: &[u8]) {
        self.bytes += chunk.len() as f64;
        self.parser.feed_bytes(chunk);
    }

    /// Bytes fed so far.
    pub fn bytes(&self) -> f64 {
        self.bytes
    }
}

#[wasm_bindgen]
pub struct LogHandle {
    player: LogPlayer,
    source: String,
    preset: String,
    /// What `replay_log` answers for the log (report, what-if scenario, derived counts).
    replay_json: String,
    running_pid: Vec<u32>,
    snapshots: trace_view::Snapshots<LogSnapshot>,
}

#[wasm_bindgen]
impl LogHandle {
    /// Finishes `reader`'s parse and makes the log playable on the `preset` machine
    /// (empty: a flat machine of the CPUs the log names). Throws a message for an
    /// unknown preset, a log without a scheduler event, or a machine without a CPU
    /// the log names.
    #[wasm_bindgen(constructor)]
    pub fn new(reader: LogReader, preset: &str, source: &str) -> Result<LogHandle, JsValue> {
        let machine = crate::preset_machine(preset)?;
        let parsed = reader.parser.finish();
        if let Some(why) = parsed.report.nothing_to_replay(source) {
            return Err(JsValue::from_str(&why));
        }
        let replay_json =
            crate::replay_value(&parsed, machine.as_ref(), preset, source, false).to_string();
        let player =
            LogPlayer::new(parsed, machine).map_err(|message| JsValue::from_str(&message))?;
        let n_cpus = player.topology.n_cpus();
        Ok(LogHandle {
            player,
            source: source.to_string(),
            preset: preset.to_string(),
            replay_json,
            running_pid: vec![0; n_cpus],
            snapshots: Default::default(),
        })
    }

    /// The parse report and what the log says, and its derived workload's counts:
    /// the JSON `replay_log` gives, with `"scenario": null` (see `what_if_json`).
    pub fn replay_json(&self) -> String {
        self.replay_json.clone()
    }

    /// The what-if scenario the log's workload becomes (`replay --resimulate`), as
    /// indented JSON text: made on demand, as it holds a step for every run and
    /// wakeup of the log (for a log of a million events, hundreds of megabytes).
    pub fn what_if_json(&self) -> String {
        use sched_core::replay::{derive_workload, replay};
        let parsed = self.player.parsed();
        let metrics = replay(parsed, Some(&self.player.topology));
        let derived = derive_workload(parsed);
        let scenario = crate::what_if(&derived, &metrics, &self.preset, &self.source);
        serde_json::to_string_pretty(&scenario).expect("a scenario serialises")
    }

    pub fn step(&mut self) -> bool {
        self.player.step()
    }

    pub fn run_until(&mut self, until_ns: f64) {
        self.player.run_until(SimTime(until_ns.max(0.0) as u64));
    }

    pub fn snapshot(&mut self) -> u32 {
        self.snapshots.keep(self.player.snapshot())
    }

    pub fn forget(&mut self, index: u32) {
        self.snapshots.forget(index);
    }

    pub fn restore(&mut self, index: u32) -> bool {
        let total = self.player.trace.total();
        match self
            .snapshots
            .before(index, total, |snapshot| snapshot.trace_total())
        {
            Some(snapshot) => {
                self.player.restore(snapshot);
                true
            }
            None => false,
        }
    }

    pub fn run_until_bounded(&mut self, until_ns: f64, max_events: u32) -> bool {
        self.player
            .run_until_bounded(SimTime(until_ns.max(0.0) as u64), max_events as u64)
    }

    pub fn run_events(&mut self, max_events: u32) -> u32 {
        self.player.run_events(max_events as u64) as u32
    }

    /// Plays on to the next line of a kind, at most `max_events`: `0` a wakeup
    /// (`sched_wakeup`, `sched_wakeup_new`), `1` a `sched_migrate_task`; a log has
    /// no balancer pulls to tell apart (`2` finds none). The record's index, or -1.
    pub fn run_to_next(&mut self, kind: u32, max_events: u32) -> f64 {
        let mut scanned = self.player.trace.len();
        for _ in 0..max_events {
            if !self.player.step() {
                break;
            }
            let trace = &self.player.trace;
            for idx in scanned..trace.len() {
                let found = matches!(
                    (kind, trace.kind(idx)),
                    (0, TraceKind::SchedWakeup | TraceKind::SchedWakeupNew)
                        | (1, TraceKind::SchedMigrateTask)
                );
                if found {
                    return idx as f64;
                }
            }
            scanned = trace.len();
        }
        -1.0
    }

    pub fn now_ns(&self) -> f64 {
        self.player.now().as_ns() as f64
    }

    pub fn end_ns(&self) -> f64 {
        self.player.end_time().as_ns() as f64
    }

    pub fn events(&self) -> f64 {
        self.player.events() as f64
    }

    pub fn finished(&self) -> bool {
        self.player.is_finished()
    }

    pub fn n_cpus(&self) -> u32 {
        self.player.topology.n_cpus() as u32
    }

    /// Per CPU: the running pid (0 = idle, or not known yet).
    pub fn frame_running(&mut self) -> Vec<u32> {
        self.running_pid = self.player.running();
        self.running_pid.clone()
    }

    /// Per CPU, the waiting tasks, first to wait first: `[n, pid, ...]`.
    pub fn frame_queues(&self, max_each: u32) -> Vec<u32> {
        let mut out = Vec::new();
        for cpu in 0..self.player.topology.n_cpus() {
            let queue = self.player.queue(cpu, max_each as usize);
            out.push(queue.len() as u32);
            out.extend_from_slice(queue);
        }
        out
    }

    pub fn frame_nr_running(&self) -> Vec<u32> {
        self.player.nr_running()
    }

    pub fn frame_busy_ns(&self) -> Vec<f64> {
        self.player
            .busy_ns()
            .into_iter()
            .map(|ns| ns as f64)
            .collect()
    }

    pub fn latency_histogram(&self) -> Vec<f64> {
        trace_view::latency_histogram(self.player.latency_histogram())
    }

    pub fn latency(&self) -> Vec<f64> {
        trace_view::latency(&self.player.latency_percentiles())
    }

    /// The `SimHandle::counters` layout: what a log tells (switches, wakeups,
    /// migrations by distance) and zero for the model's own figures (lock waits,
    /// cache refills, scheduler time), which a log does not have.
    pub fn counters(&self) -> Vec<f64> {
        let migrations = self.player.migrations();
        let mut out = vec![
            self.player.switches() as f64,
            self.player.wakeups() as f64,
            migrations.smt as f64,
            migrations.llc as f64,
            migrations.cross_llc as f64,
            migrations.cross_numa as f64,
        ];
        out.resize(13, 0.0);
        out
    }

    pub fn topology_json(&self) -> String {
        crate::machine_json(&self.player.topology, 0)
    }

    /// The tasks the log shows: pid and comm; each a group of its own by comm
    /// (threads of one program share a colour family); any CPU allowed.
    pub fn tasks_json(&self) -> String {
        let cpus: Vec<u32> = (0..self.player.topology.n_cpus() as u32).collect();
        let mut groups: Vec<&str> = Vec::new();
        let tasks: Vec<_> = self
            .player
            .tasks()
            .into_iter()
            .map(|(pid, comm)| {
                let family = comm_family(comm);
                let group = groups
                    .iter()
                    .position(|known| *known == family)
                    .unwrap_or_else(|| {
                        groups.push(family);
                        groups.len() - 1
                    });
                json!({ "pid": pid, "comm": comm, "group": group, "cpus": cpus, "jitter": false })
            })
            .collect();
        let workloads: Vec<_> = groups
            .iter()
            .map(|family| json!({ "label": family, "throughput": "none" }))
            .collect();
        json!({ "tasks": tasks, "workloads": workloads }).to_string()
    }

    pub fn throughputs_json(&self) -> String {
        "[]".into()
    }

    /// The log's figures in the keys of `run --json`'s summary that a log has
    /// (the page sets a log against a simulation with them).
    pub fn summary_json(&self) -> String {
        let migrations = self.player.migrations();
        let busy: u64 = self.player.busy_ns().iter().sum();
        let span = self.player.now().as_ns() * self.player.topology.n_cpus() as u64;
        let percentiles = self.player.latency_percentiles();
        json!({
            "scenario": self.source,
            "kind": "log",
            "simulated_ns": self.player.now().as_ns(),
            "events": self.player.events(),
            "context_switches": self.player.switches(),
            "wakeups": self.player.wakeups(),
            "wakeup_latency_us": percentiles,
            "migrations": migrations,
            "migration_source": self.player.migration_source().name(),
            "utilization": if span == 0 { 0.0 } else { busy as f64 / span as f64 },
        })
        .to_string()
    }

    /// A log holds what the scheduler did, never why: nothing to explain.
    pub fn explain(&self, _record_index: f64) -> Result<String, JsValue> {
        Err(JsValue::from_str(
            "a real machine's log says where a task went, not which path chose it: re-simulate the log to see the decisions",
        ))
    }

    pub fn power_json(&self) -> String {
        json!({ "enabled": false }).to_string()
    }

    pub fn frame_power(&self) -> Vec<f64> {
        Vec::new()
    }

    pub fn shards_json(&self) -> String {
        "[]".into()
    }

    pub fn frame_shards(&self) -> Vec<u32> {
        Vec::new()
    }

    pub fn frame_shard_locks(&self) -> Vec<f64> {
        Vec::new()
    }

    pub fn frame_shard_spinners(&self, _since_ns: f64) -> Vec<u32> {
        Vec::new()
    }

    pub fn lock_stat_json(&self) -> String {
        "[]".into()
    }

    pub fn trace_hash(&self) -> String {
        self.player.trace.hash_hex()
    }

    pub fn trace_len(&self) -> u32 {
        self.player.trace.len() as u32
    }

    pub fn trace_full(&self) -> bool {
        self.player.trace.is_full()
    }

    pub fn trace_total(&self) -> f64 {
        self.player.trace.total() as f64
    }

    pub fn trace_heap_bytes(&self) -> f64 {
        self.player.trace.heap_bytes() as f64
    }

    pub fn switches(&self, from: u32, to: u32) -> Vec<f64> {
        trace_view::switches(&self.player.trace, from, to)
    }

    pub fn waits_len(&self) -> u32 {
        self.player.wait_log.len() as u32
    }

    pub fn waits(&self, from: u32, to: u32) -> Vec<f64> {
        trace_view::waits(&self.player.wait_log, from, to)
    }

    /// As `SimHandle::forget_waits_before`.
    pub fn forget_waits_before(&mut self, idx: u32) {
        self.player.wait_log.forget_before(idx as usize);
    }

    /// The moves among trace records `[from, to)`, as `SimHandle::migrations`
    /// gives them (`[time_ns, pid, orig_cpu, dest_cpu, cause, ...]`, cause 2: the
    /// log does not say why). Inferred moves (a log without `sched_migrate_task`)
    /// come with the switch-in that shows them.
    pub fn migrations(&self, from: u32, to: u32) -> Vec<f64> {
        let moves = self.player.moves();
        let first = moves.partition_point(|entry| entry.record < u64::from(from));
        let mut out = Vec::new();
        for entry in moves[first..]
            .iter()
            .take_while(|entry| entry.record < u64::from(to))
        {
            out.extend([
                entry.time.as_ns() as f64,
                entry.pid as f64,
                entry.from as f64,
                entry.to as f64,
                2.0,
            ]);
        }
        out
    }

    pub fn ftrace_text(&self, from: u32, to: u32, reasons: bool) -> String {
        let names: &dyn TaskNames = &self.player.names;
        trace_view::ftrace_text(
            &self.player.trace,
            names,
            self.player.topology.n_cpus(),
            from,
            to,
            reasons,
        )
    }

    pub fn perfetto_json(&self) -> String {
        sched_scenario::perfetto::perfetto_json_of(
            &self.source,
            &self.player.topology,
            &self.player.trace,
            &self.player.names,
            self.player.now().as_ns(),
        )
        .to_string()
    }

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
            &self.player.trace,
            &self.player.names,
            before,
            count,
            event,
            cpu,
            pid,
            max_scan,
        )
    }

    pub fn trace_lines(&self, from: u32, count: u32) -> String {
        trace_view::lines(&self.player.trace, &self.player.names, from, count)
    }
}

/// A comm without its per-CPU or per-thread number (`kworker/3:1` -> `kworker`,
/// `schbench-12` stays): threads of one program share a group and a colour family.
fn comm_family(comm: &str) -> &str {
    comm.split('/').next().unwrap_or(comm)
}
