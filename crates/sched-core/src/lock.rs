//! Modelled spinlocks with Linux `lock_stat` figures.
//!
//! An acquisition at time `t` starts when the lock is free (first come, first served,
//! since events run in time order); the wait is spent spinning. Holding it costs the
//! hold time plus a cache-line bounce when another CPU held it last. Both the spin
//! and the hold are charged to the acquiring CPU as scheduler overhead.
//! Simplification: every acquisition of an event is requested at the event's instant
//! (not after the CPU's earlier holds in it), and a lock taken inside another does
//! not lengthen the outer one's hold.

use crate::cost::bounce_ns;
use crate::time::SimTime;
use crate::topology::{CpuId, Topology};
use serde::Serialize;
use std::collections::BTreeMap;

/// Where a lock is taken: the kernel function `/proc/lock_stat` names as a call site.
pub type LockSite = &'static str;

/// One row of `/proc/lock_stat`, times in nanoseconds. The averages and the call
/// sites are filled in by [`LockStat::report`]; while a run goes on they are counted
/// in cheaper forms (no division, no map per acquisition).
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
pub struct LockStat {
    pub class: String,
    pub con_bounces: u64,
    pub contentions: u64,
    pub waittime_min_ns: u64,
    pub waittime_max_ns: u64,
    pub waittime_total_ns: u64,
    pub waittime_avg_ns: u64,
    pub acq_bounces: u64,
    pub acquisitions: u64,
    pub holdtime_min_ns: u64,
    pub holdtime_max_ns: u64,
    pub holdtime_total_ns: u64,
    pub holdtime_avg_ns: u64,
    /// Contentions by the call site of the CPU that had to wait (the kernel's first
    /// block of call sites under a class).
    pub contention_points: BTreeMap<LockSite, u64>,
    /// Contentions by the call site of the CPU that held the lock meanwhile (the
    /// second block).
    pub contending_points: BTreeMap<LockSite, u64>,
    /// Contentions per (waiter's site, holder's site), as counted: a handful of
    /// pairs, found by a short scan.
    #[serde(skip)]
    site_pairs: Vec<((LockSite, LockSite), u64)>,
}

impl LockStat {
    pub fn new(class: &str) -> Self {
        LockStat {
            class: class.to_string(),
            ..Default::default()
        }
    }

    fn record(&mut self, wait_ns: u64, hold_ns: u64, bounced: bool, sites: (LockSite, LockSite)) {
        self.acquisitions += 1;
        if bounced {
            self.acq_bounces += 1;
        }
        if wait_ns > 0 {
            self.contentions += 1;
            match self.site_pairs.iter_mut().find(|(pair, _)| *pair == sites) {
                Some((_, count)) => *count += 1,
                None => self.site_pairs.push((sites, 1)),
            }
            if bounced {
                self.con_bounces += 1;
            }
            self.waittime_min_ns = if self.contentions == 1 {
                wait_ns
            } else {
                self.waittime_min_ns.min(wait_ns)
            };
            self.waittime_max_ns = self.waittime_max_ns.max(wait_ns);
            self.waittime_total_ns += wait_ns;
        }
        self.holdtime_min_ns = if self.acquisitions == 1 {
            hold_ns
        } else {
            self.holdtime_min_ns.min(hold_ns)
        };
        self.holdtime_max_ns = self.holdtime_max_ns.max(hold_ns);
        self.holdtime_total_ns += hold_ns;
    }

    /// The row as `/proc/lock_stat` shows it now: with its averages and its
    /// contentions by call site.
    pub fn report(&self) -> LockStat {
        let mut row = self.clone();
        row.waittime_avg_ns = row
            .waittime_total_ns
            .checked_div(row.contentions)
            .unwrap_or(0);
        row.holdtime_avg_ns = row
            .holdtime_total_ns
            .checked_div(row.acquisitions)
            .unwrap_or(0);
        for &((waiter, holder), count) in &self.site_pairs {
            *row.contention_points.entry(waiter).or_default() += count;
            *row.contending_points.entry(holder).or_default() += count;
        }
        row.site_pairs.clear();
        row
    }
}

/// One lock instance.
#[derive(Clone, Debug, Default)]
pub struct SpinLock {
    pub free_at: SimTime,
    pub last_holder: Option<CpuId>,
    /// Where the last holder took it.
    pub last_site: LockSite,
}

impl SpinLock {
    /// Takes the lock at `now` on `cpu` for `hold_ns`, from call site `site`; returns
    /// the CPU time this costs (spin plus hold) and records it in `stat`.
    pub fn acquire(
        &mut self,
        now: SimTime,
        cpu: CpuId,
        hold_ns: u64,
        topology: &Topology,
        stat: &mut LockStat,
        site: LockSite,
    ) -> u64 {
        // A CPU that took the lock earlier in the same instant is not contending with
        // itself: its acquisitions run one after the other in its own time, and only
        // another CPU's hold makes it spin.
        let same_cpu = self.last_holder == Some(cpu);
        let start = now.max(self.free_at);
        let wait = if same_cpu { 0 } else { (start - now).as_ns() };
        let bounce = match self.last_holder {
            Some(holder) if holder != cpu => bounce_ns(topology.distance(holder, cpu)),
            _ => 0,
        };
        let hold = hold_ns + bounce;
        self.free_at = start + SimTime(hold);
        self.last_holder = Some(cpu);
        let holder_site = std::mem::replace(&mut self.last_site, site);
        stat.record(wait, hold, bounce > 0, (site, holder_site));
        wait + hold
    }
}

/// `/proc/lock_stat` in the kernel's layout (times in microseconds).
pub fn format_lock_stat(rows: &[LockStat]) -> String {
    let us = |ns: u64| format!("{:.2}", ns as f64 / 1000.0);
    let rule = "-".repeat(222);
    let mut out = String::from("lock_stat version 0.4\n");
    out.push_str(&rule);
    out.push('\n');
    out.push_str(&format!(
        "{:>40} {:>14} {:>14} {:>14} {:>14} {:>14} {:>14} {:>14} {:>14} {:>14} {:>14} {:>14} {:>14}\n",
        "class name",
        "con-bounces",
        "contentions",
        "waittime-min",
        "waittime-max",
        "waittime-total",
        "waittime-avg",
        "acq-bounces",
        "acquisitions",
        "holdtime-min",
        "holdtime-max",
        "holdtime-total",
        "holdtime-avg"
    ));
    out.push_str(&rule);
    out.push('\n');
    for row in rows {
        out.push('\n');
        out.push_str(&format!(
            "{:>40} {:>14} {:>14} {:>14} {:>14} {:>14} {:>14} {:>14} {:>14} {:>14} {:>14} {:>14} {:>14}\n",
            format!("{}:", row.class),
            row.con_bounces,
            row.contentions,
            us(row.waittime_min_ns),
            us(row.waittime_max_ns),
            us(row.waittime_total_ns),
            us(row.waittime_avg_ns),
            row.acq_bounces,
            row.acquisitions,
            us(row.holdtime_min_ns),
            us(row.holdtime_max_ns),
            us(row.holdtime_total_ns),
            us(row.holdtime_avg_ns)
        ));
        // The call sites: where waiters spun, then where the holders were.
        for points in [&row.contention_points, &row.contending_points] {
            if points.is_empty() {
                continue;
            }
            out.push_str(&format!("{:>40}\n", "-".repeat(row.class.len())));
            for (site, count) in points.iter() {
                out.push_str(&format!("{:>40} {count:>14} {site}\n", row.class));
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::topology::TopologySpec;

    fn teaching_small() -> Topology {
        Topology::build(
            TopologySpec {
                preset: Some("teaching-small".into()),
                ..Default::default()
            }
            .resolve()
            .unwrap(),
        )
    }

    #[test]
    fn contention_and_bounces_are_counted() {
        let topology = teaching_small();
        let mut lock = SpinLock::default();
        let mut stat = LockStat::new("&rq->__lock");
        let first = lock.acquire(
            SimTime(0),
            CpuId(0),
            100,
            &topology,
            &mut stat,
            "__schedule",
        );
        assert_eq!(first, 100);
        // CPU 5 (the other LLC) arrives while CPU 0 holds it: spins 50, bounces.
        let second = lock.acquire(
            SimTime(50),
            CpuId(5),
            100,
            &topology,
            &mut stat,
            "task_rq_lock",
        );
        assert_eq!(second, 50 + 100 + crate::cost::DEFAULT_BOUNCE_CROSS_LLC_NS);
        assert_eq!(stat.acquisitions, 2);
        assert_eq!(stat.contentions, 1);
        assert_eq!(stat.con_bounces, 1);
        assert_eq!(stat.acq_bounces, 1);
        assert_eq!(stat.waittime_max_ns, 50);
        // The waiter came from task_rq_lock while __schedule held it: the report
        // gives the call sites and the averages.
        let row = stat.report();
        assert_eq!(row.contention_points.get("task_rq_lock"), Some(&1));
        assert_eq!(row.contending_points.get("__schedule"), Some(&1));
        assert_eq!(row.waittime_avg_ns, 50);
        assert_eq!(row.holdtime_avg_ns, row.holdtime_total_ns / 2);
        let text = format_lock_stat(&[row]);
        assert!(text.contains("&rq->__lock:"));
        assert!(text.contains("1 task_rq_lock"), "{text}");
    }

    #[test]
    fn a_cpu_taking_its_own_lock_twice_in_one_instant_does_not_contend() {
        let topology = teaching_small();
        let mut lock = SpinLock::default();
        let mut stat = LockStat::new("&rq->__lock");
        lock.acquire(
            SimTime(0),
            CpuId(2),
            100,
            &topology,
            &mut stat,
            "__schedule",
        );
        let again = lock.acquire(
            SimTime(0),
            CpuId(2),
            100,
            &topology,
            &mut stat,
            "__schedule",
        );
        assert_eq!(again, 100, "no spin on a lock this CPU itself just held");
        assert_eq!(stat.contentions, 0);
        // Another CPU arriving while it is held does contend, and bounces the line.
        lock.acquire(
            SimTime(0),
            CpuId(3),
            100,
            &topology,
            &mut stat,
            "task_rq_lock",
        );
        assert_eq!(stat.contentions, 1);
        assert_eq!(stat.con_bounces, 1);
    }
}
