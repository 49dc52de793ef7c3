//! Running sums behind the group statistics of wide domains.
//!
//! The kernel's `update_sg_lb_stats()` walks every CPU of every group of a domain on
//! each balance pass, and so did the model: on a 512-CPU machine a newidle pass at the
//! NUMA level read 512 CPUs and computed 512 PELT decays, and on a 72-CPU Milan a
//! newidle pass of schbench's pipe mode read 86. For domains wider than
//! [`WIDE_SPAN`] CPUs the simulator instead keeps each group's sums, so a pass costs
//! one read per group. A CPU whose state changes is only noted
//! ([`Simulator::note_group_sums`]); the next reader folds each noted CPU's new part
//! in once ([`Simulator::flush_group_sums`]), however often it changed in between. A CPU's utilisation decays
//! continuously (`pelt.rs`): `u(now) = T + (u0 - T) * 2^(-(now - t0) / H)` with `T` 1024
//! when it runs and 0 when not. A group's sum is therefore
//! `sum(T) + 2^(-(now - E) / H) * sum((u0 - T) * 2^((t0 - E) / H))` for an epoch `E`,
//! which moves forward every few half-lives. The figures equal the CPU-by-CPU sums up
//! to floating-point rounding (checked in test builds); the walk's simulated cost is
//! charged as before. Narrower domains (a core's SMT threads, a small LLC) keep the
//! CPU-by-CPU walk, which costs less than keeping their sums.

use super::Simulator;
use crate::baseline::groups::GroupStats;
use crate::cpuset::CpuSet;
use crate::pelt::{CAPACITY_SCALE, PELT_HALF_LIFE_NS};
use crate::time::SimTime;
use crate::topology::CpuId;
use std::collections::HashMap;

/// Domains spanning more CPUs than this keep running sums for their groups. Moving
/// it from 128 to 8 left the trace of every doc sweep and shipped scenario as it was
/// (docs/PERFORMANCE.md, "Group sums from nine CPUs up").
pub const WIDE_SPAN: usize = 8;
/// How far the epoch may fall behind before every sum is rebuilt from its CPUs
/// (four PELT half-lives): this bounds the scale factors and any rounding drift.
const REBASE_NS: u64 = 4 * PELT_HALF_LIFE_NS as u64;

/// One CPU's part in the sums of each group it belongs to.
#[derive(Clone, Copy, Debug, Default)]
struct Part {
    nr_running: u32,
    load: u64,
    idle: bool,
    /// Utilisation: `T`, and `(u0 - T) * 2^((t0 - E) / H)`.
    util_target: f64,
    util_scaled: f64,
    /// The runnable average: the same, times `max(nr_running, 1)`.
    runnable_target: f64,
    runnable_scaled: f64,
}

impl Part {
    /// The same counts, and the same scaled averages up to rounding.
    fn matches(&self, other: &Part) -> bool {
        let close = |a: f64, b: f64| (a - b).abs() <= 1e-9 * (1.0 + a.abs().max(b.abs()));
        (self.nr_running, self.load, self.idle) == (other.nr_running, other.load, other.idle)
            && self.util_target == other.util_target
            && self.runnable_target == other.runnable_target
            && close(self.util_scaled, other.util_scaled)
            && close(self.runnable_scaled, other.runnable_scaled)
    }
}

#[derive(Clone, Copy, Debug, Default)]
struct Sums {
    nr_running: u32,
    load: u64,
    idle_cpus: u32,
    weight: u32,
    util_target: f64,
    util_scaled: f64,
    runnable_target: f64,
    runnable_scaled: f64,
}

impl Sums {
    fn add(&mut self, part: &Part, sign: f64) {
        if sign > 0.0 {
            self.nr_running += part.nr_running;
            self.load += part.load;
            self.idle_cpus += part.idle as u32;
        } else {
            self.nr_running -= part.nr_running;
            self.load -= part.load;
            self.idle_cpus -= part.idle as u32;
        }
        self.util_target += sign * part.util_target;
        self.util_scaled += sign * part.util_scaled;
        self.runnable_target += sign * part.runnable_target;
        self.runnable_scaled += sign * part.runnable_scaled;
    }
}

/// The groups of wide domains, each with its sums, and each CPU's part in them.
#[derive(Clone, Debug, Default)]
pub struct GroupSums {
    sums: Vec<Sums>,
    members: Vec<Vec<CpuId>>,
    /// Per CPU: the groups (indices in `sums`) it belongs to; empty when none.
    of_cpu: Vec<Vec<u32>>,
    parts: Vec<Part>,
    epoch: SimTime,
    /// CPUs whose state changed since their parts were last summed, each once
    /// (`stale`): their parts are brought up to date when a balance or a fork next
    /// reads the sums ([`Simulator::flush_group_sums`]), so a CPU that changes many
    /// times between two reads costs one update.
    dirty: Vec<CpuId>,
    stale: Vec<bool>,
}

impl GroupSums {
    /// Group `group`'s sums afresh: its CPUs' parts as last folded in, added up.
    fn parts_sum(&self, group: usize) -> Sums {
        let members = &self.members[group];
        let mut total = Sums {
            weight: members.len() as u32,
            ..Sums::default()
        };
        for cpu in members {
            total.add(&self.parts[cpu.0 as usize], 1.0);
        }
        total
    }

    /// The groups of every domain wider than [`WIDE_SPAN`], each counted once however
    /// many CPUs' domains share it; writes each group's index into its domain.
    pub fn assign(domains: &mut crate::domains::Domains, n_cpus: usize) -> GroupSums {
        let mut index: HashMap<CpuSet, u32> = HashMap::new();
        let mut sums = GroupSums {
            of_cpu: vec![Vec::new(); n_cpus],
            parts: vec![Part::default(); n_cpus],
            stale: vec![false; n_cpus],
            ..GroupSums::default()
        };
        for cpu_domains in &mut domains.per_cpu {
            for sd in cpu_domains.iter_mut() {
                sd.sums.clear();
                if sd.span.len() <= WIDE_SPAN {
                    continue;
                }
                for group in &sd.groups {
                    let next = index.len() as u32;
                    let id = *index.entry(group.clone()).or_insert_with(|| {
                        let members: Vec<CpuId> = group.iter().collect();
                        for cpu in &members {
                            sums.of_cpu[cpu.0 as usize].push(next);
                        }
                        sums.members.push(members);
                        next
                    });
                    sd.sums.push(id);
                }
            }
        }
        sums.sums = vec![Sums::default(); sums.members.len()];
        sums
    }
}

impl Simulator {
    /// Rebuilds the group sums from the domains and every CPU's present state.
    pub(crate) fn rebuild_group_sums(&mut self) {
        self.group_sums = GroupSums::assign(&mut self.domains, self.topology.n_cpus());
        self.rebase_group_sums();
    }

    /// Moves the epoch to now and sums every group afresh, CPU by CPU.
    fn rebase_group_sums(&mut self) {
        self.group_sums.epoch = self.now;
        let sums = &mut self.group_sums;
        for cpu in sums.dirty.drain(..) {
            sums.stale[cpu.0 as usize] = false;
        }
        for cpu_idx in 0..self.group_sums.parts.len() {
            if !self.group_sums.of_cpu[cpu_idx].is_empty() {
                self.group_sums.parts[cpu_idx] = self.group_part(CpuId(cpu_idx as u32));
            }
        }
        let sums = &mut self.group_sums;
        for group in 0..sums.members.len() {
            sums.sums[group] = sums.parts_sum(group);
        }
    }

    /// `cpu`'s part as of now, against the current epoch.
    fn group_part(&self, cpu: CpuId) -> Part {
        let rq = &self.rqs[cpu.0 as usize];
        let pelt = &self.cpus[cpu.0 as usize].pelt;
        let target = if rq.curr.is_some() {
            CAPACITY_SCALE
        } else {
            0.0
        };
        // `Pelt::update` does nothing for a time at or before its last update.
        let since_epoch = pelt.updated_at.as_ns() as f64 - self.group_sums.epoch.as_ns() as f64;
        let scaled = (pelt.util_avg - target) * crate::pelt::group_growth(since_epoch);
        let runnable = rq.nr_running.max(1) as f64;
        Part {
            nr_running: rq.nr_running,
            load: self.cfs_load(cpu),
            idle: self.cpu_is_idle(cpu),
            util_target: target,
            util_scaled: scaled,
            runnable_target: target * runnable,
            runnable_scaled: scaled * runnable,
        }
    }

    /// Notes that `cpu`'s part in its groups' sums may have changed. Nothing to do on
    /// a machine without wide domains.
    #[inline]
    pub(crate) fn note_group_sums(&mut self, cpu: CpuId) {
        let cpu_idx = cpu.0 as usize;
        let sums = &mut self.group_sums;
        if sums.of_cpu[cpu_idx].is_empty() || sums.stale[cpu_idx] {
            return;
        }
        sums.stale[cpu_idx] = true;
        sums.dirty.push(cpu);
    }

    /// Brings the parts of the CPUs noted since the last flush up to date in their
    /// groups' sums; every reader of the sums calls this first.
    pub(crate) fn flush_group_sums(&mut self) {
        if self.group_sums.dirty.is_empty() {
            return;
        }
        if (self.now - self.group_sums.epoch).as_ns() > REBASE_NS {
            self.rebase_group_sums();
            return;
        }
        let dirty = std::mem::take(&mut self.group_sums.dirty);
        for &cpu in &dirty {
            let cpu_idx = cpu.0 as usize;
            let part = self.group_part(cpu);
            let sums = &mut self.group_sums;
            sums.stale[cpu_idx] = false;
            let old = std::mem::replace(&mut sums.parts[cpu_idx], part);
            for &group in &sums.of_cpu[cpu_idx] {
                let group = &mut sums.sums[group as usize];
                group.add(&old, -1.0);
                group.add(&part, 1.0);
            }
        }
        super::give_back(&mut self.group_sums.dirty, dirty);
    }

    /// The sums against the CPUs (for `check_invariants`): each group's sums equal
    /// the parts of its CPUs as last folded in, the part of every CPU not noted since
    /// equals its present state, and a group with no noted CPU equals a walk over its
    /// CPUs. Together these say the next flush leaves every sum equal to the walk.
    pub(super) fn group_sums_problem(&self) -> Result<(), String> {
        let sums = &self.group_sums;
        let n_cpus = self.topology.n_cpus();
        for (cpu_idx, groups) in sums.of_cpu.iter().enumerate() {
            if groups.is_empty() || sums.stale[cpu_idx] {
                continue;
            }
            let stored = &sums.parts[cpu_idx];
            let present = self.group_part(CpuId(cpu_idx as u32));
            if !stored.matches(&present) {
                return Err(format!(
                    "CPU {cpu_idx} changed without being noted: its part {stored:?}, its state {present:?}"
                ));
            }
        }
        for (group, members) in sums.members.iter().enumerate() {
            let parts = sums.parts_sum(group);
            let set = || CpuSet::from_cpus(n_cpus, members.iter().copied()).to_list_string();
            let summed = self.stats_of(&sums.sums[group]);
            let from_parts = self.stats_of(&parts);
            if !summed.matches(&from_parts) {
                return Err(format!(
                    "group {} sums {summed:?}, its CPUs' parts {from_parts:?}",
                    set()
                ));
            }
            if members.iter().any(|cpu| sums.stale[cpu.0 as usize]) {
                continue;
            }
            let walked =
                self.group_stats_by_cpu(&CpuSet::from_cpus(n_cpus, members.iter().copied()));
            if !summed.matches(&walked) {
                return Err(format!(
                    "group {} sums {summed:?}, its CPUs {walked:?}",
                    set()
                ));
            }
        }
        Ok(())
    }

    /// A wide domain's group's statistics from its sums.
    pub(crate) fn summed_group_stats(&self, group: u32) -> GroupStats {
        debug_assert!(
            self.group_sums.dirty.is_empty(),
            "group sums read before flush_group_sums()"
        );
        self.sums_as_stats(group)
    }

    fn sums_as_stats(&self, group: u32) -> GroupStats {
        self.stats_of(&self.group_sums.sums[group as usize])
    }

    /// Sums (against the current epoch) as a group's statistics now.
    fn stats_of(&self, sums: &Sums) -> GroupStats {
        let since_epoch = (self.now - self.group_sums.epoch).as_ns() as f64;
        let decay = crate::pelt::group_decay(since_epoch);
        GroupStats {
            idle_cpus: sums.idle_cpus,
            sum_nr_running: sums.nr_running,
            load: sums.load,
            util: (sums.util_target + decay * sums.util_scaled).max(0.0),
            runnable: (sums.runnable_target + decay * sums.runnable_scaled).max(0.0),
            weight: sums.weight,
            imbalanced: false,
        }
    }
}
