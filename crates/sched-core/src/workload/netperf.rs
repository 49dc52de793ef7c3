//! netperf UDP_RR/TCP_RR and tbench: client/server request-response ping-pongs.

use super::{forever, plan, post, run_exp, wait, Expansion};
use crate::behaviour::Op;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// netperf's request/response tests.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum NetperfMode {
    UdpRr,
    TcpRr,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct NetperfSpec {
    pub mode: NetperfMode,
    /// Client/server pairs running at once (`for i in $(seq N); do netperf ... & done`).
    #[schemars(range(min = 1, max = 4096))]
    pub pairs: u32,
    /// Data each task keeps warm, in KiB (default 16).
    #[serde(default = "sixteen")]
    #[schemars(range(max = 1048576))]
    pub footprint_kib: u64,
}

fn sixteen() -> u64 {
    16
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct TbenchSpec {
    /// Client processes (`tbench N`), each with its own server thread.
    #[schemars(range(min = 1, max = 4096))]
    pub clients: u32,
    /// Data each task keeps warm, in KiB (default 128).
    #[serde(default = "one_twenty_eight")]
    #[schemars(range(max = 1048576))]
    pub footprint_kib: u64,
}

fn one_twenty_eight() -> u64 {
    128
}

impl NetperfSpec {
    pub(crate) fn label(&self) -> String {
        format!(
            "{} x netperf -t {}",
            self.pairs,
            match self.mode {
                NetperfMode::UdpRr => "UDP_RR",
                NetperfMode::TcpRr => "TCP_RR",
            }
        )
    }

    pub(crate) fn check(&self) -> Vec<(String, String)> {
        let mut errors = Vec::new();
        super::at_least_one(&mut errors, "pairs", self.pairs as u64);
        errors
    }

    pub(crate) fn task_count(&self) -> u64 {
        2 * self.pairs as u64
    }

    pub(crate) fn expand(&self) -> Expansion {
        let mut expansion = Expansion::rate("transactions/s");
        // UDP_RR and TCP_RR differ in per-transaction stack work, in microseconds.
        let (client_us, server_us) = match self.mode {
            NetperfMode::UdpRr => (4.0, 4.0),
            NetperfMode::TcpRr => (5.0, 5.5),
        };
        let pair = PingPong {
            client_comm: "netperf",
            server_comm: "netserver",
            client_us,
            server_us,
            footprint_kib: self.footprint_kib,
        };
        for index in 0..self.pairs {
            add_ping_pong(&mut expansion, &format!("p{index}"), &pair);
        }
        expansion
    }
}

impl TbenchSpec {
    pub(crate) fn label(&self) -> String {
        format!("tbench {}", self.clients)
    }

    pub(crate) fn check(&self) -> Vec<(String, String)> {
        let mut errors = Vec::new();
        super::at_least_one(&mut errors, "clients", self.clients as u64);
        errors
    }

    pub(crate) fn task_count(&self) -> u64 {
        2 * self.clients as u64
    }

    pub(crate) fn expand(&self) -> Expansion {
        let mut expansion = Expansion::rate("transactions/s");
        let pair = PingPong {
            client_comm: "tbench",
            server_comm: "tbench_srv",
            client_us: 25.0,
            server_us: 15.0,
            footprint_kib: self.footprint_kib,
        };
        for index in 0..self.clients {
            add_ping_pong(&mut expansion, &format!("c{index}"), &pair);
        }
        expansion
    }
}

/// A client/server request-response pair (netperf's RR tests, tbench): the client
/// works, posts a request and waits for the response; the server waits, works, replies.
struct PingPong<'a> {
    client_comm: &'a str,
    server_comm: &'a str,
    client_us: f64,
    server_us: f64,
    footprint_kib: u64,
}

fn add_ping_pong(expansion: &mut Expansion, name: &str, pair: &PingPong<'_>) {
    let request = format!("{name}.request");
    let response = format!("{name}.response");
    let client = expansion.program(&forever(vec![
        run_exp(pair.client_us),
        post(&request, true),
        wait(&response),
        Op::Complete,
    ]));
    let server = expansion.program(&forever(vec![
        wait(&request),
        run_exp(pair.server_us),
        post(&response, true),
    ]));
    let leader = expansion.tasks.len();
    for (comm, program, own_leader) in [
        (pair.client_comm, client, leader),
        (pair.server_comm, server, leader + 1),
    ] {
        let mut template = plan(comm, program, own_leader, pair.footprint_kib);
        template.record_latency = true;
        expansion.spawn(1, template);
    }
}
