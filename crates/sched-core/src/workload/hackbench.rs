//! hackbench: groups of senders and receivers passing messages through bounded socket buffers.

use super::{plan, post, run, wait, Expansion, ThroughputKind};
use crate::behaviour::Op;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct HackbenchSpec {
    /// `-g`: groups, each of `fds` senders and `fds` receivers.
    #[schemars(range(min = 1, max = 256))]
    pub groups: u32,
    /// `-l`: messages each sender sends to each receiver of its group.
    #[schemars(range(min = 1, max = 1000000))]
    pub loops: u32,
    /// `-f`: senders (and receivers) per group (default 20).
    #[serde(default = "twenty")]
    #[schemars(range(min = 1, max = 64))]
    pub fds: u32,
    /// Messages a receiver's socket buffer holds before senders block (default 64).
    #[serde(default = "sixty_four")]
    #[schemars(range(min = 1, max = 100000))]
    pub buffer_messages: u32,
    /// CPU time to write one message, in microseconds (default 1.5).
    // Simplified: a message costs the same wherever its writer and reader run (no
    // cache lines cross LLCs with it, no IPI for a wakeup across LLCs).
    // docs/MODEL-STATUS.md.
    #[serde(default = "hackbench_write_us")]
    pub write_us: f64,
    /// CPU time to read one message, in microseconds (default 1.0).
    #[serde(default = "hackbench_read_us")]
    pub read_us: f64,
    /// Data each task keeps warm, in KiB (default 32: small).
    #[serde(default = "thirty_two")]
    #[schemars(range(max = 1048576))]
    pub footprint_kib: u64,
}

fn twenty() -> u32 {
    20
}
fn sixty_four() -> u32 {
    64
}
fn thirty_two() -> u64 {
    32
}
fn hackbench_write_us() -> f64 {
    1.5
}
fn hackbench_read_us() -> f64 {
    1.0
}

impl HackbenchSpec {
    pub(crate) fn label(&self) -> String {
        format!(
            "hackbench -g {} -f {} -l {}",
            self.groups, self.fds, self.loops
        )
    }

    pub(crate) fn check(&self) -> Vec<(String, String)> {
        let mut errors = Vec::new();
        super::at_least_one(&mut errors, "groups", self.groups as u64);
        super::at_least_one(&mut errors, "loops", self.loops as u64);
        super::at_least_one(&mut errors, "fds", self.fds as u64);
        super::at_least_one(&mut errors, "buffer_messages", self.buffer_messages as u64);
        for (field, value) in [("write_us", self.write_us), ("read_us", self.read_us)] {
            if !(value.is_finite() && value > 0.0) {
                errors.push((
                    field.into(),
                    format!("must be a positive number of microseconds, got {value}"),
                ));
            }
        }
        errors
    }

    pub(crate) fn task_count(&self) -> u64 {
        self.groups as u64 * 2 * self.fds as u64
    }

    pub(crate) fn expand(&self) -> Expansion {
        let mut expansion = Expansion::new(ThroughputKind::CompletionTime {
            fallback_unit: "messages/s".into(),
        });
        for group in 0..self.groups {
            // Each receiver's socket: `data` holds sent messages, `space` its free slots.
            for receiver in 0..self.fds {
                expansion.channels.with_tokens(
                    &format!("g{group}.r{receiver}.space"),
                    self.buffer_messages as u64,
                );
            }
            let mut sender_body = Vec::new();
            for receiver in 0..self.fds {
                sender_body.push(wait(&format!("g{group}.r{receiver}.space")));
                sender_body.push(run(self.write_us));
                sender_body.push(post(&format!("g{group}.r{receiver}.data"), true));
            }
            let sender = expansion.program(&[Op::Loop {
                count: Some(self.loops),
                body: sender_body,
            }]);
            let leader = expansion.tasks.len();
            for receiver in 0..self.fds {
                let receiver_program = expansion.program(&[Op::Loop {
                    count: Some(self.loops * self.fds),
                    body: vec![
                        wait(&format!("g{group}.r{receiver}.data")),
                        run(self.read_us),
                        post(&format!("g{group}.r{receiver}.space"), true),
                        Op::Complete,
                    ],
                }]);
                let mut template = plan("hackbench", receiver_program, leader, self.footprint_kib);
                template.record_latency = true;
                expansion.spawn(1, template);
            }
            expansion.spawn(
                self.fds,
                plan("hackbench", sender, leader, self.footprint_kib),
            );
        }
        expansion
    }
}
