//! A cgroup tree whose every leaf runs a schbench under a CFS bandwidth quota.

use super::{Expansion, GroupPlan, SchbenchSpec};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct CgroupTreeSpec {
    #[schemars(range(min = 1, max = 8))]
    pub depth: u32,
    #[schemars(range(min = 1, max = 64))]
    pub width: u32,
    /// The leaves' combined quota, in percent of the whole machine (default 80).
    #[serde(default = "eighty")]
    #[schemars(range(min = 1, max = 100))]
    pub quota_pct: u32,
    /// The bandwidth period (`cpu.cfs_period_us`, default 10000).
    #[serde(default = "ten_thousand")]
    #[schemars(range(min = 1000, max = 1000000))]
    pub period_us: u64,
    /// The schbench each leaf runs (`-m`, `-t`, `-c`, `-s`).
    pub leaf: LeafSchbench,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct LeafSchbench {
    #[schemars(range(min = 1, max = 64))]
    pub message_threads: u32,
    #[schemars(range(min = 1, max = 256))]
    pub worker_threads: u32,
    #[schemars(range(min = 0, max = 10000000))]
    pub cputime_us: u64,
    #[schemars(range(min = 0, max = 10000000))]
    pub sleeptime_us: u64,
}

fn eighty() -> u32 {
    80
}
fn ten_thousand() -> u64 {
    10_000
}

impl CgroupTreeSpec {
    pub(crate) fn label(&self) -> String {
        format!(
            "cgroup tree d{} w{} ({} leaves at {} %), schbench -m {} -t {} per leaf",
            self.depth,
            self.width,
            self.width.pow(self.depth),
            self.quota_pct,
            self.leaf.message_threads,
            self.leaf.worker_threads
        )
    }

    pub(crate) fn check(&self) -> Vec<(String, String)> {
        let mut errors = Vec::new();
        super::at_least_one(&mut errors, "depth", self.depth as u64);
        super::at_least_one(&mut errors, "width", self.width as u64);
        let leaves = (self.width as u64).saturating_pow(self.depth);
        if leaves > 4096 {
            errors.push((
                "width".into(),
                format!("width^depth makes {leaves} leaf cgroups; at most 4096 are modelled"),
            ));
        }
        if self.leaf.cputime_us == 0 && self.leaf.sleeptime_us == 0 {
            errors.push((
                "leaf.cputime_us".into(),
                "cputime_us and sleeptime_us cannot both be 0".into(),
            ));
        }
        errors
    }

    pub(crate) fn task_count(&self) -> u64 {
        (self.width as u64)
            .saturating_pow(self.depth)
            .saturating_mul(self.leaf.message_threads as u64)
            .saturating_mul(1 + self.leaf.worker_threads as u64)
    }

    pub(crate) fn expand(&self) -> Expansion {
        let mut expansion = Expansion::rate("requests/s");
        let leaves = self.width.pow(self.depth);
        let leaf_fraction = self.quota_pct as f64 / 100.0 / leaves as f64;
        // Breadth-first: level by level, each node with `width` children.
        let mut level: Vec<usize> = Vec::new();
        for depth in 1..=self.depth {
            let parents: Vec<Option<usize>> = if depth == 1 {
                vec![None]
            } else {
                level.iter().copied().map(Some).collect()
            };
            let mut next = Vec::new();
            for parent in parents {
                for child in 0..self.width {
                    let name = match parent {
                        Some(parent) => format!("{}/{child}", expansion.groups[parent].name),
                        None => format!("/{child}"),
                    };
                    let is_leaf = depth == self.depth;
                    expansion.groups.push(GroupPlan {
                        name,
                        parent,
                        quota_machine_fraction: is_leaf.then_some(leaf_fraction),
                        period_us: self.period_us,
                    });
                    next.push(expansion.groups.len() - 1);
                }
            }
            level = next;
        }
        let leaf = SchbenchSpec {
            message_threads: self.leaf.message_threads,
            worker_threads: self.leaf.worker_threads,
            cputime_us: self.leaf.cputime_us,
            sleeptime_us: self.leaf.sleeptime_us,
            pipe_bytes: None,
            cpus: None,
            nice: 0,
            footprint_kib: 64,
        };
        for (leaf_idx, group) in level.into_iter().enumerate() {
            leaf.add(&mut expansion, &format!("l{leaf_idx}."), Some(group));
        }
        expansion
    }
}
