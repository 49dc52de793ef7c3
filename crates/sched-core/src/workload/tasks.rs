//! Tasks written by hand, each with a behaviour program.

use super::{plan, Expansion};
use crate::behaviour::{check_program, Op};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct TasksSpec {
    /// What one completed unit of work is called (for the throughput figure).
    #[serde(default = "default_unit")]
    pub unit: String,
    #[schemars(length(min = 1))]
    pub tasks: Vec<TaskTemplate>,
}

fn default_unit() -> String {
    "ops".to_string()
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct TaskTemplate {
    /// The task's name (`comm`), at most 15 characters as in the kernel.
    #[schemars(length(min = 1, max = 15))]
    pub comm: String,
    /// How many identical tasks to start.
    #[serde(default = "one")]
    #[schemars(range(min = 1, max = 4096))]
    pub count: u32,
    #[serde(default)]
    #[schemars(range(min = -20, max = 19))]
    pub nice: i32,
    /// Affinity as a CPU list (`0-3,8`); all CPUs when absent.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cpus: Option<String>,
    /// When the tasks fork, in microseconds from the start.
    #[serde(default)]
    #[schemars(range(min = 0))]
    pub start_us: u64,
    /// Whether this task's wakeup latency counts in the latency table.
    #[serde(default)]
    pub record_latency: bool,
    /// Data it keeps warm in cache, in KiB; refilled when it runs elsewhere.
    #[serde(default)]
    #[schemars(range(max = 1048576))]
    pub footprint_kib: u64,
    /// TurboSched's jitter class, as `sched_setattr` sets it (default false).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub jitter: bool,
    /// `uclamp_max` (0-1024), as `sched_setattr` sets it; TurboSched v3 classes
    /// tasks with `uclamp_max <= 1` as jitter.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(range(max = 1024))]
    pub uclamp_max: Option<u32>,
    pub program: Vec<Op>,
}

fn one() -> u32 {
    1
}

impl TasksSpec {
    /// `tasks: a, b ×2`: each comm once, in order of first appearance, with how many
    /// entries share it when more than one does (a log's two tasks of one name).
    pub(crate) fn label(&self) -> String {
        let mut names: Vec<(&str, usize)> = Vec::new();
        for task in &self.tasks {
            match names.iter_mut().find(|(name, _)| *name == task.comm) {
                Some((_, entries)) => *entries += 1,
                None => names.push((task.comm.as_str(), 1)),
            }
        }
        let named: Vec<String> = names
            .iter()
            .map(|(name, entries)| match entries {
                1 => (*name).to_string(),
                _ => format!("{name} ×{entries}"),
            })
            .collect();
        format!("tasks: {}", named.join(", "))
    }

    pub(crate) fn check(&self) -> Vec<(String, String)> {
        let mut errors = Vec::new();
        if self.tasks.is_empty() {
            errors.push(("tasks".into(), "must list at least one task".into()));
        }
        for (idx, task) in self.tasks.iter().enumerate() {
            if task.count == 0 {
                errors.push((
                    format!("tasks.{idx}.count"),
                    "must be at least 1, got 0".into(),
                ));
            }
            if task.comm.is_empty() || task.comm.len() > 15 {
                errors.push((
                    format!("tasks.{idx}.comm"),
                    format!("must be 1 to 15 characters, got {}", task.comm.len()),
                ));
            }
            for (path, message) in check_program(&task.program) {
                errors.push((format!("tasks.{idx}.program.{path}"), message));
            }
        }
        errors
    }

    pub(crate) fn task_count(&self) -> u64 {
        self.tasks.iter().map(|task| task.count as u64).sum()
    }

    pub(crate) fn expand(&self) -> Expansion {
        let mut expansion = Expansion::rate(&format!("{}/s", self.unit));
        for task in &self.tasks {
            let program = expansion.program(&task.program);
            let leader = expansion.tasks.len();
            let mut template = plan(&task.comm, program, leader, task.footprint_kib);
            template.nice = task.nice;
            template.cpus = task.cpus.clone();
            template.start_us = task.start_us;
            template.record_latency = task.record_latency;
            template.jitter = task.jitter;
            template.uclamp_max = task.uclamp_max;
            expansion.spawn(task.count, template);
        }
        expansion
    }

    pub(crate) fn cpu_lists(&self) -> Vec<(String, String)> {
        self.tasks
            .iter()
            .enumerate()
            .filter_map(|(idx, task)| {
                task.cpus
                    .as_ref()
                    .map(|list| (format!("tasks.{idx}.cpus"), list.clone()))
            })
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::TasksSpec;

    #[test]
    fn the_label_names_each_comm_once_with_how_many_entries_share_it() {
        let spec: TasksSpec = serde_json::from_str(
            r#"{"tasks": [
                {"comm": "kworker", "program": []},
                {"comm": "a:b c-d", "program": []},
                {"comm": "Web Content", "count": 3, "program": []},
                {"comm": "a:b c-d", "program": []}
            ]}"#,
        )
        .expect("a tasks workload");
        assert_eq!(spec.label(), "tasks: kworker, a:b c-d ×2, Web Content");
    }
}
