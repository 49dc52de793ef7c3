//! The load of each runqueue's root cfs_rq as the kernel keeps it: a running sum
//! of its entities' `load_avg`, updated as they attach, detach, sleep and wake
//! (`enqueue_load_avg()`, `dequeue_load_avg()`, `attach_entity_load_avg()`,
//! `remove_entity_load_avg()`), never recomputed from the tasks.
//!
//! A task's own `load_avg` is its weight times a PELT average of the time it was
//! runnable (waiting or running): it grows towards the weight while on a runqueue and
//! decays while it sleeps. The cfs_rq keeps two sums of those:
//! - `runnable_load_avg` (before 5.7): the tasks on the runqueue only;
//! - `load_avg`: the same plus the decaying load of the tasks that sleep while
//!   attached to it (blocked load), until they wake elsewhere or exit.
//!
//! Both sums move with time in closed form: each runnable term approaches its
//! weight, each blocked term decays, all with the same factor. So the runqueue keeps
//! the summed weight of its runnable tasks (`weight`), what the runnable terms still
//! lack of it (`deficit`) and the blocked terms (`blocked`); the last two decay by
//! one factor per update. Simplification: the kernel sums 1024 us segments
//! (`___update_load_avg()`); this is the continuous form, as [`crate::pelt`] is.

use crate::pelt::CAPACITY_SCALE;
use crate::time::SimTime;

/// One root cfs_rq's load sums (see the module's text).
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct RqLoadAvg {
    /// The summed weight of the runnable tasks.
    weight: u64,
    /// `weight` minus the runnable tasks' `load_avg` sum, as of `at`.
    deficit: f64,
    /// The blocked tasks' `load_avg` sum, as of `at`.
    blocked: f64,
    /// Tasks contributing (runnable or blocked); both sums are reset to exactly 0
    /// when none is left, so rounding never accumulates on an empty runqueue.
    members: u32,
    at: SimTime,
}

/// `load_avg` of an entity of `weight` whose runnable average is `runnable` (0..1024).
fn share(weight: u32, runnable: f64) -> f64 {
    weight as f64 * runnable / CAPACITY_SCALE
}

impl RqLoadAvg {
    fn decay_to(&mut self, now: SimTime) {
        if now <= self.at {
            return;
        }
        let keep = self.keep(now);
        self.deficit *= keep;
        self.blocked *= keep;
        self.at = now;
    }

    fn leave(&mut self) {
        self.members -= 1;
        if self.members == 0 {
            *self = RqLoadAvg {
                at: self.at,
                ..RqLoadAvg::default()
            };
        }
    }

    /// `enqueue_load_avg()`: a task of `weight`, runnable average `runnable` now,
    /// becomes runnable here. `was_blocked_here`: it slept attached to this
    /// runqueue, so its blocked load becomes runnable load.
    pub fn enqueue(&mut self, now: SimTime, weight: u32, runnable: f64, was_blocked_here: bool) {
        self.decay_to(now);
        if was_blocked_here {
            self.blocked -= share(weight, runnable);
        } else {
            self.members += 1;
        }
        self.weight += weight as u64;
        self.deficit += weight as f64 - share(weight, runnable);
    }

    /// `dequeue_load_avg()`: a runnable task leaves the runqueue; with `stays` it
    /// sleeps (or waits to move) attached here, its load now blocked load.
    pub fn dequeue(&mut self, now: SimTime, weight: u32, runnable: f64, stays: bool) {
        self.decay_to(now);
        self.weight -= weight as u64;
        self.deficit -= weight as f64 - share(weight, runnable);
        if stays {
            self.blocked += share(weight, runnable);
        } else {
            self.leave();
        }
    }

    /// `remove_entity_load_avg()`: a task that slept attached here wakes on
    /// another CPU, or exits; its blocked load (`runnable` now) goes.
    pub fn remove_blocked(&mut self, now: SimTime, weight: u32, runnable: f64) {
        self.decay_to(now);
        self.blocked -= share(weight, runnable);
        self.leave();
    }

    /// `cfs_rq->runnable_load_avg` (before 5.7) at `now`, an integer as the kernel's.
    pub fn runnable_load_avg(&self, now: SimTime) -> u64 {
        let keep = self.keep(now);
        (self.weight as f64 - self.deficit * keep).max(0.0) as u64
    }

    /// `cfs_rq->avg.load_avg` at `now`: runnable and blocked load.
    pub fn load_avg(&self, now: SimTime) -> u64 {
        let keep = self.keep(now);
        (self.weight as f64 + (self.blocked - self.deficit) * keep).max(0.0) as u64
    }

    fn keep(&self, now: SimTime) -> f64 {
        if now <= self.at {
            1.0
        } else {
            crate::pelt::decay((now - self.at).as_ns() as f64)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::pelt::Pelt;

    /// A task's `load_avg` computed from its own record, for comparison.
    fn own(weight: u32, pelt: &Pelt, now: SimTime, runnable: bool) -> f64 {
        share(weight, pelt.peek(now, runnable))
    }

    #[test]
    fn the_sums_follow_their_tasks_own_averages() {
        // Two tasks: one runnable throughout, one that sleeps at 10 ms.
        let (w1, w2) = (1024u32, 335u32);
        let (mut p1, mut p2) = (
            Pelt::new(200.0, SimTime::ZERO),
            Pelt::new(900.0, SimTime::ZERO),
        );
        let mut rq = RqLoadAvg::default();
        rq.enqueue(SimTime::ZERO, w1, p1.util_avg, false);
        rq.enqueue(SimTime::ZERO, w2, p2.util_avg, false);
        let t10 = SimTime::from_ms(10);
        p2.update(t10, true);
        rq.dequeue(t10, w2, p2.util_avg, true);
        let t50 = SimTime::from_ms(50);
        let runnable = own(w1, &p1, t50, true);
        let blocked = own(w2, &p2, t50, false);
        assert_eq!(rq.runnable_load_avg(t50), runnable as u64);
        assert_eq!(rq.load_avg(t50), (runnable + blocked) as u64);
        // It wakes here again: nothing is added, its blocked load is runnable again.
        p2.update(t50, false);
        let before = rq.load_avg(t50);
        rq.enqueue(t50, w2, p2.util_avg, true);
        assert!(rq.load_avg(t50).abs_diff(before) <= 1);
        p1.update(t50, true);
        let t90 = SimTime::from_ms(90);
        let both = own(w1, &p1, t90, true) + own(w2, &p2, t90, true);
        assert!((rq.runnable_load_avg(t90) as f64 - both).abs() <= 1.0);
    }

    #[test]
    fn a_task_waking_elsewhere_takes_its_blocked_load_along() {
        let mut pelt = Pelt::new(1024.0, SimTime::ZERO);
        let (mut a, mut b) = (RqLoadAvg::default(), RqLoadAvg::default());
        a.enqueue(SimTime::ZERO, 1024, pelt.util_avg, false);
        let t = SimTime::from_ms(5);
        pelt.update(t, true);
        a.dequeue(t, 1024, pelt.util_avg, true);
        assert_eq!(a.runnable_load_avg(t), 0);
        assert_eq!(a.load_avg(t), 1024);
        let later = SimTime::from_ms(37);
        pelt.update(later, false);
        a.remove_blocked(later, 1024, pelt.util_avg);
        b.enqueue(later, 1024, pelt.util_avg, false);
        // Emptied exactly, and the half-life's decay moved to the new runqueue.
        assert_eq!(
            a,
            RqLoadAvg {
                at: later,
                ..RqLoadAvg::default()
            }
        );
        assert_eq!(b.load_avg(later), 512);
    }
}
