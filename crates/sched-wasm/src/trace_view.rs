//! What the page reads from a trace store, shared by the simulator's handle and a
//! played log's: context switches, task moves, waiting counts, text lines, the
//! event log's search, the `trace` file export, and the latency figures.

use sched_core::metrics::LatencyPercentiles;
use sched_core::trace::{TaskNames, Trace, TraceKind};
use sched_core::waiting::WaitLog;

fn range(len: usize, from: u32, to: u32) -> std::ops::Range<usize> {
    let end = (to as usize).min(len);
    (from as usize).min(end)..end
}

/// The context switches among records `[from, to)`: `[time_ns, cpu, next_pid, ...]`.
pub fn switches(trace: &Trace, from: u32, to: u32) -> Vec<f64> {
    let mut out = Vec::new();
    for idx in range(trace.len(), from, to) {
        if trace.kind(idx) == TraceKind::SchedSwitch {
            out.extend([
                trace.time(idx).as_ns() as f64,
                trace.cpu(idx) as f64,
                trace.arg0(idx) as f64,
            ]);
        }
    }
    out
}

/// Wait-log entries `[from, to)`: `[time_ns, cpu, waiting, ...]`, from the first
/// one the log still keeps (`WaitLog::forget_before`).
pub fn waits(log: &WaitLog, from: u32, to: u32) -> Vec<f64> {
    let range = range(log.len(), from.max(log.first_kept() as u32), to);
    let mut out = Vec::with_capacity(range.len() * 3);
    for idx in range {
        let entry = log.get(idx);
        out.extend([entry.time as f64, entry.cpu as f64, entry.waiting as f64]);
    }
    out
}

/// Records `[from, to)` as the kernel's `trace` file (the header when `from` is 0).
pub fn ftrace_text(
    trace: &Trace,
    names: &dyn TaskNames,
    n_cpus: usize,
    from: u32,
    to: u32,
    reasons: bool,
) -> String {
    let range = range(trace.len(), from, to);
    let mut out = if range.start == 0 {
        trace.ftrace_header(n_cpus)
    } else {
        String::new()
    };
    for idx in range {
        out.push_str(&trace.ftrace_line_with_reason(idx, names, reasons));
        out.push('\n');
    }
    out
}

/// One record as `time|cpu|event|payload|reason`.
fn line(trace: &Trace, names: &dyn TaskNames, idx: usize) -> String {
    let record = trace.get(idx);
    format!(
        "{}|{}|{}|{}|{}\n",
        record.time.as_ns(),
        record.cpu,
        record.kind.ftrace_name(),
        trace.payload(idx, names),
        trace.reason_text(idx)
    )
}

/// Records `[from, from + count)` as text lines.
pub fn lines(trace: &Trace, names: &dyn TaskNames, from: u32, count: u32) -> String {
    let start = (from as usize).min(trace.len());
    let end = (start + count as usize).min(trace.len());
    (start..end).map(|idx| line(trace, names, idx)).collect()
}

/// The event log's search: up to `count` records before `before`, newest first,
/// matching every filter given, as `index|time|cpu|event|payload|reason` lines,
/// looking at most `max_scan` records.
#[allow(clippy::too_many_arguments)]
pub fn search(
    trace: &Trace,
    names: &dyn TaskNames,
    before: u32,
    count: u32,
    event: &str,
    cpu: i32,
    pid: i64,
    max_scan: u32,
) -> String {
    let mut out = String::new();
    let mut found = 0;
    let mut idx = (before as usize).min(trace.len());
    let stop = idx.saturating_sub(max_scan as usize);
    while idx > stop && found < count {
        idx -= 1;
        let kind = trace.kind(idx);
        if !event.is_empty() && kind.ftrace_name() != event {
            continue;
        }
        if cpu >= 0 && trace.cpu(idx) != cpu as u32 {
            continue;
        }
        if pid >= 0 {
            let pid = pid as u32;
            let next = kind == TraceKind::SchedSwitch && trace.arg0(idx) == pid;
            if trace.pid(idx) != pid && !next {
                continue;
            }
        }
        out.push_str(&format!("{idx}|{}", line(trace, names, idx)));
        found += 1;
    }
    out
}

/// `[p50, p75, p90, p95, p99, p99.5, p99.9, min, max, samples]`, microseconds.
pub fn latency(percentiles: &LatencyPercentiles) -> Vec<f64> {
    let mut out = percentiles.ordered().to_vec();
    out.extend([percentiles.min, percentiles.max, percentiles.samples as f64]);
    out
}

/// `[upper_us, count, ...]` from `(upper_ns, count)` buckets.
pub fn latency_histogram(buckets: Vec<(u64, u64)>) -> Vec<f64> {
    buckets
        .into_iter()
        .flat_map(|(upper_ns, count)| [upper_ns as f64 / 1_000.0, count as f64])
        .collect()
}

/// Snapshots kept while playing, by index (`snapshot`, `forget`, `restore` of
/// both handles); a forgotten one leaves its slot empty, so indices stay valid.
pub struct Snapshots<T> {
    slots: Vec<Option<T>>,
}

impl<T> Default for Snapshots<T> {
    fn default() -> Self {
        Self { slots: Vec::new() }
    }
}

impl<T> Snapshots<T> {
    /// Keeps `snapshot`; its index.
    pub fn keep(&mut self, snapshot: T) -> u32 {
        self.slots.push(Some(snapshot));
        (self.slots.len() - 1) as u32
    }

    /// Frees snapshot `index`.
    pub fn forget(&mut self, index: u32) {
        if let Some(slot) = self.slots.get_mut(index as usize) {
            *slot = None;
        }
    }

    /// Snapshot `index` if it is kept and was taken at or before `trace_total`
    /// records (not ahead of the state now).
    pub fn before(&self, index: u32, trace_total: u64, total_of: impl Fn(&T) -> u64) -> Option<&T> {
        self.slots
            .get(index as usize)
            .and_then(Option::as_ref)
            .filter(|snapshot| total_of(snapshot) <= trace_total)
    }
}
