//! Scheduling domains, built per CPU from the topology, lowest level first.
//!
//! Levels, as `build_sched_domains()` makes them: SMT (the core's threads), MC (the
//! LLC), PKG (the NUMA node, which the kernel's `cpu_cpu_mask` spans), then one NUMA
//! level per distinct node distance. A level whose span equals its child's is
//! degenerate and dropped, as the kernel does. Groups are the child level's spans.

use crate::cpuset::CpuSet;
use crate::topology::{CpuId, Topology};

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DomainLevel {
    Smt,
    Mc,
    Pkg,
    /// A NUMA level, covering the nodes within this SLIT distance.
    Numa(u32),
}

impl DomainLevel {
    pub fn tag(self) -> crate::trace::LevelTag {
        crate::trace::LevelTag(match self {
            DomainLevel::Smt => 0,
            DomainLevel::Mc => 1,
            DomainLevel::Pkg => 2,
            DomainLevel::Numa(distance) => 100 + distance,
        })
    }

    pub fn name(self) -> String {
        match self {
            DomainLevel::Smt => "SMT".into(),
            DomainLevel::Mc => "MC".into(),
            DomainLevel::Pkg => "PKG".into(),
            DomainLevel::Numa(distance) => format!("NUMA({distance})"),
        }
    }
}

/// The `SD_*` flags the model reads.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct DomainFlags {
    pub share_cpucapacity: bool,
    pub share_llc: bool,
    pub numa: bool,
    pub wake_affine: bool,
    pub balance_newidle: bool,
    pub balance_fork: bool,
    pub balance_exec: bool,
}

#[derive(Clone, Debug)]
pub struct SchedDomain {
    pub level: DomainLevel,
    pub span: CpuSet,
    pub groups: Vec<CpuSet>,
    pub flags: DomainFlags,
    /// Balance interval bounds in milliseconds: the kernel's `span_weight` and `2 * span_weight`.
    pub min_interval_ms: u64,
    pub max_interval_ms: u64,
    /// Allowed NUMA imbalance, in tasks, for domains above the LLC (after Mel Gorman's
    /// "Adjust NUMA imbalance for multiple LLCs"); 0 below the LLC.
    pub imb_numa_nr: u32,
    /// How much busier a group must be before balancing acts, in percent (117; 110 for SMT).
    pub imbalance_pct: u32,
    /// Failed balance attempts tolerated before cache-hot tasks may move.
    pub cache_nice_tries: u32,
    /// Per group, its running sums' index (`engine/group_sums.rs`) when the domain is
    /// wide; empty otherwise.
    pub sums: Vec<u32>,
}

/// The distance beyond which NUMA domains lose fork/exec/wake-affine balancing.
/// The kernel's default is 30; x86 sets 32 on AMD Zen, whose remote SLIT distance
/// is 32, and the presets follow that so fork placement spans sockets as in the NUMA-imbalance affinity fix's traces.
pub const NODE_RECLAIM_DISTANCE: u32 = 32;

/// Every CPU's domains, lowest first.
#[derive(Clone, Debug)]
pub struct Domains {
    pub per_cpu: Vec<Vec<SchedDomain>>,
}

impl Domains {
    /// Each of `cpu_idx`'s domains' `min_interval` (ms): where its balance interval
    /// starts (`sd_init()`).
    pub fn min_intervals(&self, cpu_idx: usize) -> Vec<u64> {
        self.per_cpu[cpu_idx]
            .iter()
            .map(|sd| sd.min_interval_ms)
            .collect()
    }

    pub fn build(topology: &Topology) -> Domains {
        let per_cpu = (0..topology.n_cpus())
            .map(|cpu_idx| build_for_cpu(topology, CpuId(cpu_idx as u32)))
            .collect();
        Domains { per_cpu }
    }

    /// The domains with only the online CPUs, as `partition_sched_domains()`
    /// rebuilds them after a CPU goes offline or comes back: spans and groups lose
    /// the offline CPUs, empty groups go, and a level no wider than its child is
    /// dropped. An offline CPU has no domains. `imb_numa_nr` keeps its value from
    /// the whole machine (a simplification).
    pub fn build_online(topology: &Topology, online: &CpuSet) -> Domains {
        let per_cpu = (0..topology.n_cpus())
            .map(|cpu_idx| {
                let cpu = CpuId(cpu_idx as u32);
                if !online.contains(cpu) {
                    return Vec::new();
                }
                let mut kept: Vec<SchedDomain> = Vec::new();
                for mut domain in build_for_cpu(topology, cpu) {
                    domain.span = domain.span.and(online);
                    domain.groups = domain
                        .groups
                        .iter()
                        .map(|group| group.and(online))
                        .filter(|group| !group.is_empty())
                        .collect();
                    let child_len = kept.last().map_or(1, |child| child.span.len());
                    if domain.span.len() <= child_len || domain.groups.len() < 2 {
                        continue;
                    }
                    kept.push(domain);
                }
                kept
            })
            .collect();
        Domains { per_cpu }
    }

    pub fn of(&self, cpu: CpuId) -> &[SchedDomain] {
        &self.per_cpu[cpu.0 as usize]
    }
}

/// The level of `sd_llc`: the highest domain of a CPU whose CPUs share its cache.
pub fn llc_level(domains: &[SchedDomain]) -> Option<usize> {
    domains.iter().rposition(|domain| domain.flags.share_llc)
}

fn build_for_cpu(topology: &Topology, cpu: CpuId) -> Vec<SchedDomain> {
    let info = topology.info(cpu);
    let n_cpus = topology.n_cpus();
    let mut candidates: Vec<(DomainLevel, CpuSet)> = vec![
        (
            DomainLevel::Smt,
            topology.core_cpus[info.core.0 as usize].clone(),
        ),
        (
            DomainLevel::Mc,
            topology.llc_cpus[info.llc.0 as usize].clone(),
        ),
        (
            DomainLevel::Pkg,
            topology.node_cpus[info.node.0 as usize].clone(),
        ),
    ];
    let own_node = info.node.0 as usize;
    let mut distances: Vec<u32> = topology.node_distance[own_node]
        .iter()
        .copied()
        .filter(|distance| *distance > crate::topology::LOCAL_DISTANCE)
        .collect();
    distances.sort_unstable();
    distances.dedup();
    for distance in distances {
        let mut span = CpuSet::empty(n_cpus);
        for (node_idx, node_span) in topology.node_cpus.iter().enumerate() {
            if topology.node_distance[own_node][node_idx] <= distance {
                for member in node_span.iter() {
                    span.insert(member);
                }
            }
        }
        candidates.push((DomainLevel::Numa(distance), span));
    }

    let mut domains: Vec<SchedDomain> = Vec::new();
    let mut child_span = CpuSet::from_cpus(n_cpus, [cpu]);
    for (level, span) in candidates {
        // Degenerate: no wider than the level below it.
        if span.len() <= child_span.len() {
            continue;
        }
        let groups = groups_of(topology, &span, &domains);
        let numa_distance = match level {
            DomainLevel::Numa(distance) => Some(distance),
            _ => None,
        };
        let far = numa_distance.is_some_and(|distance| distance > NODE_RECLAIM_DISTANCE);
        let flags = DomainFlags {
            share_cpucapacity: level == DomainLevel::Smt,
            share_llc: matches!(level, DomainLevel::Smt | DomainLevel::Mc),
            numa: numa_distance.is_some(),
            wake_affine: !far,
            balance_newidle: true,
            balance_fork: !far,
            balance_exec: !far,
        };
        let weight = span.len() as u64;
        domains.push(SchedDomain {
            level,
            span: span.clone(),
            groups,
            flags,
            min_interval_ms: weight,
            max_interval_ms: 2 * weight,
            imb_numa_nr: 0,
            imbalance_pct: if level == DomainLevel::Smt { 110 } else { 117 },
            cache_nice_tries: if numa_distance.is_some() { 2 } else { 1 },
            sums: Vec::new(),
        });
        child_span = span;
    }
    assign_imb_numa_nr(&mut domains);
    domains
}

/// Groups of a domain: the spans of the child level's domains that cover it, in CPU order.
fn groups_of(topology: &Topology, span: &CpuSet, lower: &[SchedDomain]) -> Vec<CpuSet> {
    let n_cpus = topology.n_cpus();
    let child_level = lower.last().map(|domain| domain.level);
    let mut groups: Vec<CpuSet> = Vec::new();
    let mut covered = CpuSet::empty(n_cpus);
    for member in span.iter() {
        if covered.contains(member) {
            continue;
        }
        let info = topology.info(member);
        let group = match child_level {
            None => CpuSet::from_cpus(n_cpus, [member]),
            Some(DomainLevel::Smt) => topology.core_cpus[info.core.0 as usize].clone(),
            Some(DomainLevel::Mc) => topology.llc_cpus[info.llc.0 as usize].clone(),
            Some(DomainLevel::Pkg) => topology.node_cpus[info.node.0 as usize].clone(),
            Some(DomainLevel::Numa(_)) => {
                // The child NUMA level around `member` is the set of nodes near it.
                let child_distance = match lower.last().map(|d| d.level) {
                    Some(DomainLevel::Numa(distance)) => distance,
                    _ => unreachable!("matched above"),
                };
                let mut set = CpuSet::empty(n_cpus);
                let node = info.node.0 as usize;
                for (node_idx, node_span) in topology.node_cpus.iter().enumerate() {
                    if topology.node_distance[node][node_idx] <= child_distance {
                        for cpu in node_span.iter() {
                            set.insert(cpu);
                        }
                    }
                }
                set
            }
        };
        for cpu in group.iter() {
            covered.insert(cpu);
        }
        groups.push(group);
    }
    groups
}

/// The first domain above the LLC allows an imbalance of one task per LLC it spans
/// (an eighth of its span when it holds a single LLC); higher domains scale that by
/// how many times wider they are than the first NUMA domain.
fn assign_imb_numa_nr(domains: &mut [SchedDomain]) {
    let Some(llc_idx) = llc_level(domains) else {
        return;
    };
    let llc_weight = domains[llc_idx].span.len() as u32;
    if llc_idx + 1 >= domains.len() {
        return;
    }
    let first = llc_idx + 1;
    let first_weight = domains[first].span.len() as u32;
    let nr_llcs = first_weight / llc_weight.max(1);
    let base = if nr_llcs == 1 {
        (first_weight >> 3).max(1)
    } else {
        nr_llcs.max(1)
    };
    let imb_span = domains[first..]
        .iter()
        .find(|domain| domain.flags.numa)
        .map(|domain| domain.span.len() as u32)
        .unwrap_or(first_weight);
    domains[first].imb_numa_nr = base;
    for domain in &mut domains[first + 1..] {
        let factor = (domain.span.len() as u32 / imb_span.max(1)).max(1);
        domain.imb_numa_nr = base * factor;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::topology::TopologySpec;

    fn domains_for(preset: &str) -> (Topology, Domains) {
        let spec = TopologySpec {
            preset: Some(preset.into()),
            ..Default::default()
        };
        let topology = Topology::build(spec.resolve().unwrap());
        let domains = Domains::build(&topology);
        (topology, domains)
    }

    fn level_names(domains: &[SchedDomain]) -> Vec<String> {
        domains.iter().map(|domain| domain.level.name()).collect()
    }

    #[test]
    fn xeon_has_smt_mc_numa() {
        let (_, domains) = domains_for("xeon-2s10c");
        let levels = domains.of(CpuId(0));
        assert_eq!(level_names(levels), vec!["SMT", "MC", "NUMA(32)"]);
        assert_eq!(levels[0].span.to_list_string(), "0,20");
        assert_eq!(levels[1].span.len(), 20);
        assert_eq!(levels[1].groups.len(), 10);
        assert_eq!(levels[2].groups.len(), 2);
    }

    #[test]
    fn zen3_pkg_spans_the_ccxs_and_numa_allows_one_task_per_llc() {
        let (_, domains) = domains_for("zen3-2s64c");
        let levels = domains.of(CpuId(0));
        assert_eq!(level_names(levels), vec!["SMT", "MC", "PKG", "NUMA(32)"]);
        assert_eq!(levels[2].groups.len(), 8);
        assert_eq!(levels[2].imb_numa_nr, 8);
        assert_eq!(levels[3].imb_numa_nr, 8);
    }

    #[test]
    fn single_llc_machine_has_no_pkg_level() {
        let (_, domains) = domains_for("skylake-18c");
        assert_eq!(level_names(domains.of(CpuId(5))), vec!["SMT", "MC"]);
    }
}
