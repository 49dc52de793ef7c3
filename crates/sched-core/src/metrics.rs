//! What a run reports: wakeup latency percentiles (as schbench prints them),
//! throughput, utilisation, switches and migrations by distance.

use crate::topology::MigrationDistance;
use hdrhistogram::Histogram;
use serde::Serialize;

/// The percentiles schbench prints, in microseconds; `*99.0th` is the headline.
pub const PERCENTILES: [(&str, f64); 7] = [
    ("50.0th", 50.0),
    ("75.0th", 75.0),
    ("90.0th", 90.0),
    ("95.0th", 95.0),
    ("*99.0th", 99.0),
    ("99.5th", 99.5),
    ("99.9th", 99.9),
];

#[derive(Clone, Debug)]
pub struct Metrics {
    /// Wakeup-to-run latency of tasks that record it, in nanoseconds.
    pub wakeup_latency: Histogram<u64>,
    pub context_switches: u64,
    pub wakeups: u64,
    pub migrations: MigrationCounts,
    /// Completed units of work, per workload.
    pub completed: Vec<u64>,
    /// Busy nanoseconds per CPU (closed intervals only; see `Simulator::busy_ns`).
    pub busy_ns: Vec<u64>,
    /// Time spent refilling caches after migrations.
    pub cache_refill_ns: u64,
    /// CPU time spent in scheduler paths (idle scans, balancing, lock spinning).
    pub sched_overhead_ns: u64,
    /// CPU time idle while tasks waited on a runqueue of the same LLC, and anywhere.
    pub idle_while_runnable_llc_ns: u64,
    pub idle_while_runnable_machine_ns: u64,
}

#[derive(Clone, Debug, Default, Serialize, PartialEq, Eq)]
pub struct MigrationCounts {
    pub smt: u64,
    pub llc: u64,
    pub cross_llc: u64,
    pub cross_numa: u64,
}

impl MigrationCounts {
    pub fn count(&mut self, distance: MigrationDistance) {
        match distance {
            MigrationDistance::SameCpu => {}
            MigrationDistance::Smt => self.smt += 1,
            MigrationDistance::Llc => self.llc += 1,
            MigrationDistance::CrossLlc => self.cross_llc += 1,
            MigrationDistance::CrossNuma => self.cross_numa += 1,
        }
    }

    pub fn total(&self) -> u64 {
        self.smt + self.llc + self.cross_llc + self.cross_numa
    }
}

impl Metrics {
    pub fn new(n_cpus: usize, n_workloads: usize) -> Self {
        Self {
            wakeup_latency: Self::new_latency_histogram(),
            context_switches: 0,
            wakeups: 0,
            migrations: MigrationCounts::default(),
            completed: vec![0; n_workloads],
            busy_ns: vec![0; n_cpus],
            cache_refill_ns: 0,
            sched_overhead_ns: 0,
            idle_while_runnable_llc_ns: 0,
            idle_while_runnable_machine_ns: 0,
        }
    }

    /// An empty latency histogram with the bounds every run uses.
    fn new_latency_histogram() -> Histogram<u64> {
        // 1 ns to one simulated hour at 3 significant figures; larger values saturate.
        Histogram::new_with_bounds(1, 3_600_000_000_000, 3).expect("valid histogram bounds")
    }

    /// Takes the latency histogram out, leaving an empty one that has allocated
    /// almost nothing (a snapshot clones the rest of the state without it).
    pub(crate) fn detach_latency(&mut self) -> Histogram<u64> {
        let placeholder = Histogram::new(1).expect("an empty auto-resizing histogram");
        std::mem::replace(&mut self.wakeup_latency, placeholder)
    }

    /// A latency histogram's recorded buckets, each its highest equivalent value and
    /// its count: a few hundred pairs where the histogram holds 32,768 counters.
    pub(crate) fn latency_buckets(histogram: &Histogram<u64>) -> Vec<(u64, u64)> {
        histogram
            .iter_recorded()
            .map(|bucket| (bucket.value_iterated_to(), bucket.count_at_value()))
            .collect()
    }

    /// The latency histogram again from `latency_buckets`: the same counts in the
    /// same buckets, so every percentile, the minimum and the maximum read as before.
    pub(crate) fn restore_latency_buckets(&mut self, buckets: &[(u64, u64)]) {
        let mut histogram = Self::new_latency_histogram();
        for &(value, count) in buckets {
            histogram.saturating_record_n(value, count);
        }
        self.wakeup_latency = histogram;
    }

    pub fn record_latency(&mut self, latency_ns: u64) {
        self.wakeup_latency.saturating_record(latency_ns);
    }

    /// The wakeup latencies as a histogram in powers of two from 1 us: per bucket its
    /// upper bound in ns and its count, up to the highest non-empty bucket.
    pub fn latency_histogram(&self) -> Vec<(u64, u64)> {
        let histogram = &self.wakeup_latency;
        if histogram.is_empty() {
            return Vec::new();
        }
        histogram
            .iter_log(1_000, 2.0)
            .map(|bucket| {
                (
                    bucket.value_iterated_to(),
                    bucket.count_since_last_iteration(),
                )
            })
            .collect()
    }

    pub fn latency_percentiles(&self) -> LatencyPercentiles {
        let histogram = &self.wakeup_latency;
        let at = |quantile: f64| {
            if histogram.is_empty() {
                0.0
            } else {
                histogram.value_at_quantile(quantile) as f64 / 1_000.0
            }
        };
        LatencyPercentiles {
            p50: at(0.50),
            p75: at(0.75),
            p90: at(0.90),
            p95: at(0.95),
            p99: at(0.99),
            p99_5: at(0.995),
            p99_9: at(0.999),
            min: if histogram.is_empty() {
                0.0
            } else {
                histogram.min() as f64 / 1_000.0
            },
            max: if histogram.is_empty() {
                0.0
            } else {
                histogram.max() as f64 / 1_000.0
            },
            samples: histogram.len(),
        }
    }
}

/// Wakeup latency percentiles in microseconds.
#[derive(Clone, Debug, Default, Serialize, PartialEq)]
pub struct LatencyPercentiles {
    pub p50: f64,
    pub p75: f64,
    pub p90: f64,
    pub p95: f64,
    pub p99: f64,
    pub p99_5: f64,
    pub p99_9: f64,
    pub min: f64,
    pub max: f64,
    pub samples: u64,
}

impl LatencyPercentiles {
    /// The values in the order of [`PERCENTILES`].
    pub fn ordered(&self) -> [f64; 7] {
        [
            self.p50, self.p75, self.p90, self.p95, self.p99, self.p99_5, self.p99_9,
        ]
    }
}

/// Throughput in the benchmark's own unit.
#[derive(Clone, Debug, Serialize, PartialEq)]
pub struct Throughput {
    pub unit: String,
    pub value: f64,
}

/// Throughput of one workload (STREAM has one figure per kernel).
#[derive(Clone, Debug, Serialize, PartialEq)]
pub struct WorkloadThroughput {
    pub workload: String,
    pub values: Vec<Throughput>,
}

/// The work-conservation gap: CPU time idle while a task waited on another
/// runqueue of the same LLC (`llc`) or of the machine (`machine`).
#[derive(Clone, Debug, Default, Serialize, PartialEq, Eq)]
pub struct IdleWhileRunnable {
    pub llc: u64,
    pub machine: u64,
}

/// The summary of a run (also what the CLI prints with `--json`).
#[derive(Clone, Debug, Serialize, PartialEq)]
pub struct RunSummary {
    pub scenario: String,
    pub seed: u64,
    /// The kernel version whose baseline paths ran, and every path's resolved variant.
    pub kernel: String,
    pub features: crate::kernel::Features,
    pub sim_time_ns: u64,
    pub events: u64,
    pub trace_events: u64,
    pub trace_hash: String,
    pub wakeup_latency_us: LatencyPercentiles,
    /// The first workload's headline figure.
    pub throughput: Throughput,
    pub throughput_by_workload: Vec<WorkloadThroughput>,
    pub utilization: f64,
    pub idle_while_runnable_ns: IdleWhileRunnable,
    pub context_switches: u64,
    pub wakeups: u64,
    pub migrations: MigrationCounts,
    pub locks: Vec<crate::lock::LockStat>,
    /// The clock averaged over busy CPU time: with the power model, as turbostat's
    /// Bzy_MHz; without it, the fixed clock.
    pub avg_freq_mhz: f64,
    /// The power model's figures, when it runs (`power.enabled`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub power: Option<crate::power::PowerSummary>,
    pub cache_refill_ns: u64,
    pub sched_overhead_ns: u64,
    pub bandwidth: crate::bandwidth::BandwidthStats,
    /// The struct-layout cache-line model's misses, when it runs.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub cache_misses: Option<crate::policy::struct_layout::CacheMisses>,
}

impl RunSummary {
    /// The latency table in schbench's layout.
    pub fn latency_table(&self) -> String {
        let mut out = String::from("Latency percentiles (usec)\n");
        for ((label, _), value) in PERCENTILES
            .iter()
            .zip(self.wakeup_latency_us.ordered().iter())
        {
            out.push_str(&format!("\t{label}: {}\n", value.round() as u64));
        }
        out.push_str(&format!(
            "\tmin={}, max={}\n",
            self.wakeup_latency_us.min.round() as u64,
            self.wakeup_latency_us.max.round() as u64
        ));
        out
    }
}

#[cfg(test)]
mod tests {
    use super::Metrics;

    #[test]
    fn the_latency_histogram_counts_every_wakeup_in_powers_of_two_from_one_microsecond() {
        let mut metrics = Metrics::new(1, 1);
        assert!(metrics.latency_histogram().is_empty());
        for latency_ns in [500, 900, 1_500, 3_000, 3_500, 70_000] {
            metrics.record_latency(latency_ns);
        }
        let buckets = metrics.latency_histogram();
        // Every sample in exactly one bucket, the bounds doubling from 1 us.
        assert_eq!(buckets.iter().map(|&(_, count)| count).sum::<u64>(), 6);
        assert!(buckets.windows(2).all(|pair| pair[1].0 > pair[0].0));
        let count_up_to = |bound_ns: u64| {
            buckets
                .iter()
                .filter(|&&(upper, _)| upper <= bound_ns + bound_ns / 100)
                .map(|&(_, count)| count)
                .sum::<u64>()
        };
        assert_eq!(count_up_to(1_000), 2);
        assert_eq!(count_up_to(4_000), 5);
        assert!(buckets.last().is_some_and(|&(upper, _)| upper >= 70_000));
    }
}
