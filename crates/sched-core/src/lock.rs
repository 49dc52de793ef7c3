//! Modelled spinlocks with Linux `lock_stat` figures.
//!
//! An acquisition at time `t` starts when the lock is free (first come, first served,
//! since events run in time order); the wait is spent spinning. Holding it costs the
//! hold time plus a cache-line bounce when another CPU held it last. Both the spin
//! and the hold are charged to the acquiring CPU as scheduler overhead.

use crate::cost::bounce_ns;
use crate::time::SimTime;
use crate::topology::{CpuId, Topology};
use serde::Serialize;

/// One row of `/proc/lock_stat`, times in nanoseconds.
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
}

impl LockStat {
    pub fn new(class: &str) -> Self {
        LockStat {
            class: class.to_string(),
            ..Default::default()
        }
    }

    fn record(&mut self, wait_ns: u64, hold_ns: u64, bounced: bool) {
        self.acquisitions += 1;
        if bounced {
            self.acq_bounces += 1;
        }
        if wait_ns > 0 {
            self.contentions += 1;
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
            self.waittime_avg_ns = self.waittime_total_ns / self.contentions;
        }
        self.holdtime_min_ns = if self.acquisitions == 1 {
            hold_ns
        } else {
            self.holdtime_min_ns.min(hold_ns)
        };
        self.holdtime_max_ns = self.holdtime_max_ns.max(hold_ns);
        self.holdtime_total_ns += hold_ns;
        self.holdtime_avg_ns = self.holdtime_total_ns / self.acquisitions;
    }
}

/// One lock instance.
#[derive(Clone, Debug, Default)]
pub struct SpinLock {
    pub free_at: SimTime,
    pub last_holder: Option<CpuId>,
}

impl SpinLock {
    /// Takes the lock at `now` on `cpu` for `hold_ns`; returns the CPU time this costs
    /// (spin plus hold) and records it in `stat`.
    pub fn acquire(
        &mut self,
        now: SimTime,
        cpu: CpuId,
        hold_ns: u64,
        topology: &Topology,
        stat: &mut LockStat,
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
        stat.record(wait, hold, bounce > 0);
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
        let first = lock.acquire(SimTime(0), CpuId(0), 100, &topology, &mut stat);
        assert_eq!(first, 100);
        // CPU 5 (the other LLC) arrives while CPU 0 holds it: spins 50, bounces.
        let second = lock.acquire(SimTime(50), CpuId(5), 100, &topology, &mut stat);
        assert_eq!(second, 50 + 100 + crate::cost::DEFAULT_BOUNCE_CROSS_LLC_NS);
        assert_eq!(stat.acquisitions, 2);
        assert_eq!(stat.contentions, 1);
        assert_eq!(stat.con_bounces, 1);
        assert_eq!(stat.acq_bounces, 1);
        assert_eq!(stat.waittime_max_ns, 50);
        assert!(format_lock_stat(&[stat]).contains("&rq->__lock:"));
    }

    #[test]
    fn a_cpu_taking_its_own_lock_twice_in_one_instant_does_not_contend() {
        let topology = teaching_small();
        let mut lock = SpinLock::default();
        let mut stat = LockStat::new("&rq->__lock");
        lock.acquire(SimTime(0), CpuId(2), 100, &topology, &mut stat);
        let again = lock.acquire(SimTime(0), CpuId(2), 100, &topology, &mut stat);
        assert_eq!(again, 100, "no spin on a lock this CPU itself just held");
        assert_eq!(stat.contentions, 0);
        // Another CPU arriving while it is held does contend, and bounces the line.
        lock.acquire(SimTime(0), CpuId(3), 100, &topology, &mut stat);
        assert_eq!(stat.contentions, 1);
        assert_eq!(stat.con_bounces, 1);
    }
}
