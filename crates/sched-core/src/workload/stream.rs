//! STREAM: pinned, memory-bandwidth-bound threads running four kernels with a barrier after each.

use super::{plan, Expansion, ThroughputKind};
use crate::behaviour::{Dist, Op};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct StreamSpec {
    /// OpenMP threads (`OMP_NUM_THREADS`).
    #[schemars(range(min = 1, max = 4096))]
    pub threads: u32,
    /// CPUs the threads may use (`numactl -C LIST`); all CPUs when absent.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cpus: Option<String>,
    /// Elements per array (`STREAM_ARRAY_SIZE`, 8-byte doubles; default 10,000,000).
    #[serde(default = "stream_array")]
    #[schemars(range(min = 1000, max = 10000000000u64))]
    pub array_size: u64,
    /// Times each kernel runs (`NTIMES`, default 10).
    #[serde(default = "ten")]
    #[schemars(range(min = 1, max = 10000))]
    pub ntimes: u32,
}

fn stream_array() -> u64 {
    10_000_000
}
fn ten() -> u32 {
    10
}

/// Bytes one STREAM kernel moves per element: Copy and Scale touch two arrays,
/// Add and Triad three.
const STREAM_KERNELS: [(&str, u64); 4] = [("Copy", 16), ("Scale", 16), ("Add", 24), ("Triad", 24)];

/// The bandwidth a STREAM run's work is sized at, in bytes per microsecond (12 GB/s):
/// a run takes its bytes over this at speed 1000; the speed model scales it by the
/// rate the machine gives (`engine::speed`, `topology::memory_figures`).
pub const STREAM_THREAD_BYTES_PER_US: f64 = 12_000.0;

impl StreamSpec {
    pub(crate) fn label(&self) -> String {
        match &self.cpus {
            Some(cpus) => format!("numactl -C {cpus} stream ({} threads)", self.threads),
            None => format!("stream ({} threads)", self.threads),
        }
    }

    pub(crate) fn check(&self) -> Vec<(String, String)> {
        let mut errors = Vec::new();
        super::at_least_one(&mut errors, "threads", self.threads as u64);
        super::at_least_one(&mut errors, "ntimes", self.ntimes as u64);
        if self.array_size < 1000 {
            errors.push((
                "array_size".into(),
                format!("must be at least 1000, got {}", self.array_size),
            ));
        }
        errors
    }

    pub(crate) fn task_count(&self) -> u64 {
        self.threads as u64
    }

    pub(crate) fn expand(&self) -> Expansion {
        let bytes_per_phase = STREAM_KERNELS
            .iter()
            .map(|(name, per_element)| (name.to_string(), per_element * self.array_size))
            .collect();
        let mut expansion = Expansion::new(ThroughputKind::StreamPhases { bytes_per_phase });
        // Each thread handles an equal slice of the arrays, then meets the others at the
        // OpenMP barrier that ends the kernel.
        let mut body = Vec::new();
        for (name, per_element) in STREAM_KERNELS {
            let slice_bytes = (per_element * self.array_size) as f64 / self.threads as f64;
            body.push(Op::Run {
                duration: Dist::fixed_us(slice_bytes / STREAM_THREAD_BYTES_PER_US),
                memory_bound: true,
            });
            body.push(Op::Barrier {
                channel: "omp.barrier".into(),
                parties: self.threads,
                label: name.into(),
            });
        }
        let program = expansion.program(&[Op::Loop {
            count: Some(self.ntimes),
            body,
        }]);
        let mut template = plan("stream", program, 0, 0);
        template.cpus = self.cpus.clone();
        expansion.spawn(self.threads, template);
        expansion
    }

    pub(crate) fn cpu_lists(&self) -> Vec<(String, String)> {
        self.cpus
            .iter()
            .map(|list| ("cpus".to_string(), list.clone()))
            .collect()
    }
}
