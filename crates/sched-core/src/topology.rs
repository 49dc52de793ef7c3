//! The machine: sockets > NUMA nodes > LLCs > cores > SMT threads (the CPUs).
//!
//! A scenario describes a machine with a [`TopologySpec`] (a preset name, optionally
//! with fields overridden, or every field by hand). [`Topology::build`] turns it into
//! lookup tables the rest of the model uses: which core, LLC, node and socket a CPU
//! belongs to, and the CPU sets of each. CPU numbering is part of the machine,
//! because the kernel threads' experiments (`numactl -C 0,16,...`) depend on it.

use crate::cpuset::CpuSet;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use std::fmt;

/// A logical CPU number, as Linux numbers it (an SMT hardware thread).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct CpuId(pub u32);

/// A physical core, numbered machine-wide in hardware order.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct CoreId(pub u32);

/// A last-level cache domain (a CCX on AMD), numbered machine-wide.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct LlcId(pub u32);

/// A NUMA node, numbered machine-wide.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct NodeId(pub u32);

/// A socket (package).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct SocketId(pub u32);

impl fmt::Display for CpuId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.0)
    }
}

/// How hardware threads get their CPU numbers.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum Numbering {
    /// SMT siblings are `2k, 2k+1` (AMD client parts, POWER, most teaching diagrams).
    Adjacent,
    /// SMT siblings are `k` and `k + N` where N is the number of cores (Intel servers, AMD EPYC).
    Split,
    /// `cpu_ids` gives the CPU number of every hardware thread, listed socket by socket,
    /// node by node, LLC by LLC, core by core, thread by thread.
    Explicit,
}

/// The most cores a scenario's LLC may have (`cores_per_llc`'s bound in the schema).
pub const MAX_CORES_PER_LLC: u32 = 128;

/// A machine as a scenario writes it: a preset, or every field by hand, or a preset
/// with some fields overridden.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct TopologySpec {
    /// A preset machine (see `schedlab list`); the fields below override it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub preset: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(range(min = 1, max = 8))]
    pub sockets: Option<u32>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(range(min = 1, max = 8))]
    pub numa_nodes_per_socket: Option<u32>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(range(min = 1, max = 64))]
    pub llcs_per_socket: Option<u32>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(range(min = 1, max = 128))]
    pub cores_per_llc: Option<u32>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(range(min = 1, max = 8))]
    pub threads_per_core: Option<u32>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub numbering: Option<Numbering>,
    /// With `numbering: explicit`: the CPU number of each hardware thread, in hardware order.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cpu_ids: Option<Vec<u32>>,
}

/// A fully resolved machine description.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct MachineShape {
    pub name: String,
    pub sockets: u32,
    pub numa_nodes_per_socket: u32,
    pub llcs_per_socket: u32,
    pub cores_per_llc: u32,
    pub threads_per_core: u32,
    pub numbering: Numbering,
    pub cpu_ids: Option<Vec<u32>>,
}

/// A preset machine and where it comes from.
pub struct Preset {
    pub name: &'static str,
    pub summary: &'static str,
    pub shape: fn() -> MachineShape,
}

fn shape(
    name: &str,
    sockets: u32,
    numa_nodes_per_socket: u32,
    llcs_per_socket: u32,
    cores_per_llc: u32,
    threads_per_core: u32,
    numbering: Numbering,
) -> MachineShape {
    MachineShape {
        name: name.to_string(),
        sockets,
        numa_nodes_per_socket,
        llcs_per_socket,
        cores_per_llc,
        threads_per_core,
        numbering,
        cpu_ids: None,
    }
}

/// IceLake 2 x 32 x 2 with NUMA node 0 on the even CPUs and node 1 on the odd ones
/// (from the NUMA-imbalance affinity fix): socket s, core c, thread t is CPU `2c + s + 64t`.
fn icelake_even_odd() -> MachineShape {
    let mut machine = shape("icelake-2s32c", 2, 1, 1, 32, 2, Numbering::Explicit);
    let mut ids = Vec::new();
    for socket in 0..2u32 {
        for core in 0..32u32 {
            for thread in 0..2u32 {
                ids.push(2 * core + socket + 64 * thread);
            }
        }
    }
    machine.cpu_ids = Some(ids);
    machine
}

/// The machines of the kernel patch threads, and small ones that fit on a projector.
pub const PRESETS: &[Preset] = &[
    Preset {
        name: "teaching-small",
        summary: "1 socket, 2 LLCs x 2 cores x SMT2, 8 CPUs, adjacent numbering: fits on a projector",
        shape: || shape("teaching-small", 1, 1, 2, 2, 2, Numbering::Adjacent),
    },
    Preset {
        name: "teaching-numa",
        summary: "2 sockets, 1 LLC x 2 cores x SMT2 each, 8 CPUs, adjacent numbering: the smallest NUMA machine",
        shape: || shape("teaching-numa", 2, 1, 1, 2, 2, Numbering::Adjacent),
    },
    Preset {
        name: "xeon-2s10c",
        summary: "2 sockets x 10 cores x HT, one LLC per socket, 40 CPUs, split numbering (Chris Mason's schbench box, from his select_idle_sibling patch)",
        shape: || shape("xeon-2s10c", 2, 1, 1, 10, 2, Numbering::Split),
    },
    Preset {
        name: "skylake-18c",
        summary: "1 socket Intel Skylake, 18 cores / 36 threads, one LLC, split numbering (SHARED_RUNQ series)",
        shape: || shape("skylake-18c", 1, 1, 1, 18, 2, Numbering::Split),
    },
    Preset {
        name: "ryzen-7950x",
        summary: "1 socket AMD 7950X Zen4, 16 cores / 32 threads, 2 CCX of 8 cores, split numbering (SHARED_RUNQ series)",
        shape: || shape("ryzen-7950x", 1, 1, 2, 8, 2, Numbering::Split),
    },
    Preset {
        name: "milan-72",
        summary: "1 socket AMD Milan, 72 CPUs in 6 LLCs (6 cores x SMT2 each), split numbering (SHARED_RUNQ series)",
        shape: || shape("milan-72", 1, 1, 6, 6, 2, Numbering::Split),
    },
    Preset {
        name: "zen3-2s64c",
        summary: "2 sockets x 64 cores x 2 threads AMD Zen3, 8 cores per CCX, NPS1, 256 CPUs; socket 0 = CPUs 0-63,128-191 (SHARED_RUNQ series, NUMA affinity fix)",
        shape: || shape("zen3-2s64c", 2, 1, 8, 8, 2, Numbering::Split),
    },
    Preset {
        name: "zen4-2s128c",
        summary: "2 sockets x 128 cores x 2 threads AMD Zen4, 8 cores per CCX, NPS1, 512 CPUs, split numbering (SHARED_RUNQ series)",
        shape: || shape("zen4-2s128c", 2, 1, 16, 8, 2, Numbering::Split),
    },
    Preset {
        name: "icelake-2s32c",
        summary: "2 sockets x 32 cores x 2 threads Intel IceLake, NUMA node 0 = even CPUs, node 1 = odd CPUs, 128 CPUs (NUMA affinity fix)",
        shape: icelake_even_odd,
    },
    Preset {
        name: "power9-smt4",
        summary: "1 socket IBM POWER9-like, 22 SMT4 cores, L3 shared by core pairs (11 LLCs), 88 CPUs, adjacent numbering (TurboSched series)",
        shape: || shape("power9-smt4", 1, 1, 11, 2, 4, Numbering::Adjacent),
    },
];

/// Nominal (base) frequency of each preset, in MHz; 2000 for a custom machine.
pub fn nominal_mhz(name: &str) -> u32 {
    match name {
        "xeon-2s10c" => 2200,
        "skylake-18c" => 2500,
        "ryzen-7950x" => 4500,
        "milan-72" | "zen3-2s64c" => 2450,
        "zen4-2s128c" => 2250,
        "icelake-2s32c" => 2400,
        "power9-smt4" => 3200,
        _ => 2000,
    }
}

/// A machine's memory bandwidth, in GB/s, as far as memory-bound runs see it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct MemoryFigures {
    /// What one core can pull on its own: its outstanding cache misses over the
    /// memory latency (Little's law), whatever the channels could give.
    pub core_gbps: u32,
    /// What one LLC can draw: on AMD a CCX's Infinity Fabric link to the I/O die; on
    /// a one-LLC-per-socket machine the node's figure.
    pub llc_gbps: u32,
    /// What one NUMA node's memory channels sustain under STREAM: about 60 % of the
    /// channels' peak (channels x transfer rate x 8 bytes).
    pub node_gbps: u32,
}

/// Memory bandwidth of each preset (illustrative; see docs/MODEL-STATUS.md):
/// - Zen3 (`zen3-2s64c`, `milan-72`): 8 channels of DDR4-3200 per socket, 204.8 GB/s
///   peak, so about 120 sustained; a CCX's link reads 32 bytes per fabric clock at
///   1.6 GHz, 51 GB/s; a core keeps about 64 misses in flight at about 160 ns, 25 GB/s.
/// - Zen4 (`zen4-2s128c`): 12 channels of DDR5-4800, 460.8 GB/s peak, about 280
///   sustained; a CCX link about 64 GB/s at a 2 GHz fabric clock; a core about 30.
/// - `ryzen-7950x`: 2 channels of DDR5-5200, 83.2 GB/s peak, about 55 sustained; CCX
///   link 64 GB/s; a core about 30.
/// - IceLake-SP (`icelake-2s32c`): 8 channels of DDR4-3200 per socket, about 130
///   sustained; one LLC per socket; a core about 15.
/// - Skylake-SP (`skylake-18c`): 6 channels of DDR4-2666, 128 GB/s peak, about 80.
/// - The 2016 Xeon (`xeon-2s10c`): 4 channels of DDR4-2133 per socket, 68 GB/s peak,
///   about 45; a core about 10.
/// - POWER9 (`power9-smt4`): 8 channels of DDR4-2666, 170 GB/s peak, about 110; an L3
///   region of a core pair about 50; a core about 15.
/// - The teaching machines and hand-written ones: 12 / 40 / 120.
pub fn memory_figures(name: &str) -> MemoryFigures {
    let (core_gbps, llc_gbps, node_gbps) = match name {
        "zen3-2s64c" | "milan-72" => (25, 51, 120),
        "zen4-2s128c" => (30, 64, 280),
        "ryzen-7950x" => (30, 64, 55),
        "icelake-2s32c" => (15, 130, 130),
        "skylake-18c" => (13, 80, 80),
        "xeon-2s10c" => (10, 45, 45),
        "power9-smt4" => (15, 50, 110),
        _ => (12, 40, 120),
    };
    MemoryFigures {
        core_gbps,
        llc_gbps,
        node_gbps,
    }
}

pub fn find_preset(name: &str) -> Option<&'static Preset> {
    PRESETS.iter().find(|preset| preset.name == name)
}

/// A problem in a topology description, with the field it concerns.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TopologyError {
    /// The field, relative to the topology object (`llcs_per_socket`).
    pub field: String,
    pub message: String,
}

impl TopologySpec {
    /// Fills the spec from its preset and checks that the result is a machine.
    pub fn resolve(&self) -> Result<MachineShape, Vec<TopologyError>> {
        let mut errors = Vec::new();
        let base = match &self.preset {
            Some(name) => match find_preset(name) {
                Some(preset) => Some((preset.shape)()),
                None => {
                    let names: Vec<&str> = PRESETS.iter().map(|preset| preset.name).collect();
                    errors.push(TopologyError {
                        field: "preset".into(),
                        message: format!(
                            "unknown preset `{name}`; presets are: {}",
                            names.join(", ")
                        ),
                    });
                    return Err(errors);
                }
            },
            None => None,
        };
        let mut field = |name: &str, value: Option<u32>, preset_value: Option<u32>| -> u32 {
            match value.or(preset_value) {
                Some(0) => {
                    errors.push(TopologyError {
                        field: name.into(),
                        message: "must be at least 1, got 0".into(),
                    });
                    1
                }
                Some(count) => count,
                None => {
                    errors.push(TopologyError {
                        field: name.into(),
                        message: "is required when no preset is given".into(),
                    });
                    1
                }
            }
        };
        let sockets = field("sockets", self.sockets, base.as_ref().map(|m| m.sockets));
        let numa_nodes_per_socket = field(
            "numa_nodes_per_socket",
            self.numa_nodes_per_socket,
            base.as_ref().map(|m| m.numa_nodes_per_socket).or(Some(1)),
        );
        let llcs_per_socket = field(
            "llcs_per_socket",
            self.llcs_per_socket,
            base.as_ref().map(|m| m.llcs_per_socket),
        );
        let cores_per_llc = field(
            "cores_per_llc",
            self.cores_per_llc,
            base.as_ref().map(|m| m.cores_per_llc),
        );
        let threads_per_core = field(
            "threads_per_core",
            self.threads_per_core,
            base.as_ref().map(|m| m.threads_per_core),
        );
        let numbering = self
            .numbering
            .or(base.as_ref().map(|m| m.numbering))
            .unwrap_or(Numbering::Adjacent);
        if llcs_per_socket % numa_nodes_per_socket != 0 {
            errors.push(TopologyError {
                field: "llcs_per_socket".into(),
                message: format!(
                    "must be a multiple of numa_nodes_per_socket ({numa_nodes_per_socket}), got {llcs_per_socket}"
                ),
            });
        }
        let n_cpus = sockets as u64
            * llcs_per_socket as u64
            * cores_per_llc as u64
            * threads_per_core as u64;
        if n_cpus > 4096 {
            errors.push(TopologyError {
                field: "sockets".into(),
                message: format!("the machine would have {n_cpus} CPUs; at most 4096 are modelled"),
            });
        }
        let cpu_ids = match numbering {
            Numbering::Explicit => {
                // A preset's own list stays valid only while its shape is unchanged.
                let shape_unchanged = base.as_ref().is_some_and(|m| {
                    m.sockets == sockets
                        && m.llcs_per_socket == llcs_per_socket
                        && m.cores_per_llc == cores_per_llc
                        && m.threads_per_core == threads_per_core
                });
                let ids = self.cpu_ids.clone().or_else(|| {
                    if shape_unchanged {
                        base.as_ref().and_then(|m| m.cpu_ids.clone())
                    } else {
                        None
                    }
                });
                match ids {
                    None => {
                        errors.push(TopologyError {
                            field: "cpu_ids".into(),
                            message: "is required with numbering `explicit`".into(),
                        });
                        None
                    }
                    Some(ids) => {
                        if let Some(message) = check_permutation(&ids, n_cpus as usize) {
                            errors.push(TopologyError {
                                field: "cpu_ids".into(),
                                message,
                            });
                        }
                        Some(ids)
                    }
                }
            }
            _ => {
                if self.cpu_ids.is_some() {
                    errors.push(TopologyError {
                        field: "cpu_ids".into(),
                        message: "is only used with numbering `explicit`".into(),
                    });
                }
                None
            }
        };
        if !errors.is_empty() {
            return Err(errors);
        }
        Ok(MachineShape {
            name: base.map(|m| m.name).unwrap_or_else(|| "custom".to_string()),
            sockets,
            numa_nodes_per_socket,
            llcs_per_socket,
            cores_per_llc,
            threads_per_core,
            numbering,
            cpu_ids,
        })
    }
}

fn check_permutation(ids: &[u32], n_cpus: usize) -> Option<String> {
    if ids.len() != n_cpus {
        return Some(format!(
            "must list exactly {n_cpus} CPU numbers (one per hardware thread), got {}",
            ids.len()
        ));
    }
    let mut seen = vec![false; n_cpus];
    for (position, id) in ids.iter().enumerate() {
        let idx = *id as usize;
        if idx >= n_cpus {
            return Some(format!(
                "entry {position} is CPU {id}, but CPUs are numbered 0 to {}",
                n_cpus - 1
            ));
        }
        if seen[idx] {
            return Some(format!("entry {position} repeats CPU {id}"));
        }
        seen[idx] = true;
    }
    None
}

/// Per-CPU facts, indexed by CPU number.
#[derive(Clone, Debug)]
pub struct CpuInfo {
    pub core: CoreId,
    pub llc: LlcId,
    pub node: NodeId,
    pub socket: SocketId,
    /// The SMT thread index within its core (0 for the first thread).
    pub thread: u32,
}

/// Lookup tables for a built machine. Immutable for the whole run.
#[derive(Clone, Debug)]
pub struct Topology {
    pub shape: MachineShape,
    pub cpus: Vec<CpuInfo>,
    pub core_cpus: Vec<CpuSet>,
    pub llc_cpus: Vec<CpuSet>,
    /// Each LLC's CPUs in ascending order, for the wakeup path's wrapping scans.
    pub llc_cpu_list: Vec<Vec<CpuId>>,
    /// Each LLC's cores, in the order of their lowest CPU (the LLC domain's groups
    /// on an SMT machine), for `select_idle_sibling()`'s walk of them.
    pub llc_core_list: Vec<Vec<CoreId>>,
    pub node_cpus: Vec<CpuSet>,
    pub socket_cpus: Vec<CpuSet>,
    /// `node_distance[a][b]`, as in the ACPI SLIT: 10 local, 12 same socket, 32 other socket.
    pub node_distance: Vec<Vec<u32>>,
}

/// SLIT-style distances the model uses between NUMA nodes.
pub const LOCAL_DISTANCE: u32 = 10;
pub const SAME_SOCKET_DISTANCE: u32 = 12;
pub const REMOTE_SOCKET_DISTANCE: u32 = 32;

impl Topology {
    pub fn build(shape: MachineShape) -> Topology {
        let n_cores = shape.sockets * shape.llcs_per_socket * shape.cores_per_llc;
        let n_cpus = (n_cores * shape.threads_per_core) as usize;
        let n_llcs = (shape.sockets * shape.llcs_per_socket) as usize;
        let n_nodes = (shape.sockets * shape.numa_nodes_per_socket) as usize;
        let llcs_per_node = shape.llcs_per_socket / shape.numa_nodes_per_socket;
        let mut cpus: Vec<Option<CpuInfo>> = vec![None; n_cpus];
        let mut core_cpus = vec![CpuSet::empty(n_cpus); n_cores as usize];
        let mut llc_cpus = vec![CpuSet::empty(n_cpus); n_llcs];
        let mut node_cpus = vec![CpuSet::empty(n_cpus); n_nodes];
        let mut socket_cpus = vec![CpuSet::empty(n_cpus); shape.sockets as usize];
        let mut hw_index = 0usize;
        for socket in 0..shape.sockets {
            for llc_in_socket in 0..shape.llcs_per_socket {
                let llc = socket * shape.llcs_per_socket + llc_in_socket;
                let node = socket * shape.numa_nodes_per_socket + llc_in_socket / llcs_per_node;
                for core_in_llc in 0..shape.cores_per_llc {
                    let core = llc * shape.cores_per_llc + core_in_llc;
                    for thread in 0..shape.threads_per_core {
                        let cpu = match shape.numbering {
                            Numbering::Adjacent => core * shape.threads_per_core + thread,
                            Numbering::Split => thread * n_cores + core,
                            Numbering::Explicit => shape
                                .cpu_ids
                                .as_ref()
                                .map(|ids| ids[hw_index])
                                .unwrap_or(hw_index as u32),
                        };
                        hw_index += 1;
                        let cpu_id = CpuId(cpu);
                        cpus[cpu as usize] = Some(CpuInfo {
                            core: CoreId(core),
                            llc: LlcId(llc),
                            node: NodeId(node),
                            socket: SocketId(socket),
                            thread,
                        });
                        core_cpus[core as usize].insert(cpu_id);
                        llc_cpus[llc as usize].insert(cpu_id);
                        node_cpus[node as usize].insert(cpu_id);
                        socket_cpus[socket as usize].insert(cpu_id);
                    }
                }
            }
        }
        let node_distance = (0..n_nodes)
            .map(|from| {
                (0..n_nodes)
                    .map(|to| {
                        let same_socket = from as u32 / shape.numa_nodes_per_socket
                            == to as u32 / shape.numa_nodes_per_socket;
                        if from == to {
                            LOCAL_DISTANCE
                        } else if same_socket {
                            SAME_SOCKET_DISTANCE
                        } else {
                            REMOTE_SOCKET_DISTANCE
                        }
                    })
                    .collect()
            })
            .collect();
        let cpus: Vec<CpuInfo> = cpus
            .into_iter()
            .map(|info| info.expect("numbering is a permutation (checked by resolve)"))
            .collect();
        let llc_core_list = llc_cpus
            .iter()
            .map(|llc| {
                let mut cores: Vec<CoreId> = Vec::new();
                for cpu in llc.iter() {
                    let core = cpus[cpu.0 as usize].core;
                    if !cores.contains(&core) {
                        cores.push(core);
                    }
                }
                cores
            })
            .collect();
        Topology {
            cpus,
            llc_core_list,
            shape,
            core_cpus,
            llc_cpu_list: llc_cpus.iter().map(|cpus| cpus.iter().collect()).collect(),
            llc_cpus,
            node_cpus,
            socket_cpus,
            node_distance,
        }
    }

    pub fn n_cpus(&self) -> usize {
        self.cpus.len()
    }

    pub fn info(&self, cpu: CpuId) -> &CpuInfo {
        &self.cpus[cpu.0 as usize]
    }

    pub fn llc_of(&self, cpu: CpuId) -> LlcId {
        self.cpus[cpu.0 as usize].llc
    }

    pub fn core_of(&self, cpu: CpuId) -> CoreId {
        self.cpus[cpu.0 as usize].core
    }

    /// The other hardware threads of `cpu`'s core.
    pub fn siblings(&self, cpu: CpuId) -> impl Iterator<Item = CpuId> + '_ {
        self.core_cpus[self.core_of(cpu).0 as usize]
            .iter()
            .filter(move |other| *other != cpu)
    }

    pub fn all_cpus(&self) -> CpuSet {
        CpuSet::full(self.n_cpus())
    }

    /// How far a task moves between two CPUs, as the migration statistics count it.
    pub fn distance(&self, from: CpuId, to: CpuId) -> MigrationDistance {
        let a = self.info(from);
        let b = self.info(to);
        if from == to {
            MigrationDistance::SameCpu
        } else if a.core == b.core {
            MigrationDistance::Smt
        } else if a.llc == b.llc {
            MigrationDistance::Llc
        } else if a.node == b.node {
            MigrationDistance::CrossLlc
        } else {
            MigrationDistance::CrossNuma
        }
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum MigrationDistance {
    SameCpu,
    Smt,
    Llc,
    CrossLlc,
    CrossNuma,
}

#[cfg(test)]
mod tests {
    use super::*;

    fn preset(name: &str) -> Topology {
        let spec = TopologySpec {
            preset: Some(name.into()),
            ..Default::default()
        };
        Topology::build(spec.resolve().unwrap())
    }

    #[test]
    fn every_preset_builds() {
        for preset_entry in PRESETS {
            let topology = preset(preset_entry.name);
            assert!(topology.n_cpus() > 0, "{}", preset_entry.name);
        }
    }

    #[test]
    fn zen3_socket0_holds_0_63_and_128_191() {
        let topology = preset("zen3-2s64c");
        assert_eq!(topology.n_cpus(), 256);
        assert_eq!(topology.socket_cpus[0].to_list_string(), "0-63,128-191");
        assert_eq!(topology.llc_cpus.len(), 16);
        assert_eq!(topology.llc_cpus[0].to_list_string(), "0-7,128-135");
    }

    #[test]
    fn icelake_nodes_are_even_and_odd() {
        let topology = preset("icelake-2s32c");
        assert!(topology.node_cpus[0].iter().all(|cpu| cpu.0 % 2 == 0));
        assert!(topology.node_cpus[1].iter().all(|cpu| cpu.0 % 2 == 1));
        assert_eq!(
            topology.siblings(CpuId(0)).collect::<Vec<_>>(),
            vec![CpuId(64)]
        );
    }

    #[test]
    fn adjacent_and_split_siblings() {
        let small = preset("teaching-small");
        assert_eq!(small.siblings(CpuId(2)).collect::<Vec<_>>(), vec![CpuId(3)]);
        let xeon = preset("xeon-2s10c");
        assert_eq!(xeon.siblings(CpuId(3)).collect::<Vec<_>>(), vec![CpuId(23)]);
        assert_eq!(xeon.socket_cpus[1].to_list_string(), "10-19,30-39");
    }

    #[test]
    fn zero_llcs_is_a_clear_error() {
        let spec = TopologySpec {
            preset: Some("teaching-small".into()),
            llcs_per_socket: Some(0),
            ..Default::default()
        };
        let errors = spec.resolve().unwrap_err();
        assert_eq!(errors[0].field, "llcs_per_socket");
        assert_eq!(errors[0].message, "must be at least 1, got 0");
    }

    #[test]
    fn explicit_numbering_must_be_a_permutation() {
        let spec = TopologySpec {
            sockets: Some(1),
            llcs_per_socket: Some(1),
            cores_per_llc: Some(2),
            threads_per_core: Some(1),
            numbering: Some(Numbering::Explicit),
            cpu_ids: Some(vec![0, 0]),
            ..Default::default()
        };
        let errors = spec.resolve().unwrap_err();
        assert_eq!(errors[0].field, "cpu_ids");
        assert!(errors[0].message.contains("repeats CPU 0"));
    }
}
