//! PELT-style utilisation: an exponentially decaying average of running time with a
//! 32 ms half-life, as the kernel's per-entity load tracking gives (`util_avg`).
//!
//! Simplification of `___update_load_avg()`: the kernel sums 1024 us segments with
//! `y^32 = 1/2`; this is the continuous form of the same average, updated at events.
//! Values are on the kernel's scale: 0 (never runs) to 1024 (always runs).

use crate::time::SimTime;
use std::cell::Cell;
use std::thread::LocalKey;

/// The half-life of the average, in nanoseconds.
pub const PELT_HALF_LIFE_NS: f64 = 32_000_000.0;
/// Full utilisation (`SCHED_CAPACITY_SCALE`).
pub const CAPACITY_SCALE: f64 = 1024.0;

/// What an average keeps of its value over `elapsed_ns`: `2^(-elapsed / half-life)`.
pub fn decay(elapsed_ns: f64) -> f64 {
    libm::exp2(-elapsed_ns / PELT_HALF_LIFE_NS)
}

/// `f(x)`, remembering the last argument and its result in `last`. A memo of a pure
/// function: the result is the same bits. Each call site that repeats its argument
/// has its own, so that sites do not evict each other.
fn remembered(last: &'static LocalKey<Cell<(u64, f64)>>, x: f64, f: impl Fn(f64) -> f64) -> f64 {
    let bits = x.to_bits();
    last.with(|last| {
        let (key, value) = last.get();
        if key == bits {
            return value;
        }
        let value = f(x);
        last.set((bits, value));
        value
    })
}

thread_local! {
    // u64::MAX is a NaN, whose powers are NaN: an empty memo is already right.
    static LAST_UPDATE: Cell<(u64, f64)> = const { Cell::new((u64::MAX, f64::NAN)) };
    static LAST_GROUP_DECAY: Cell<(u64, f64)> = const { Cell::new((u64::MAX, f64::NAN)) };
    static LAST_GROUP_PART: Cell<(u64, f64)> = const { Cell::new((u64::MAX, f64::NAN)) };
}

/// [`decay`] for `Pelt::update`. Entities updated together are updated together
/// again (a CPU and the task it runs, at each switch), so the same elapsed time
/// comes twice in a row: on netperf three updates in four repeat the one before,
/// and `exp2` was a tenth of the run time.
fn decay_repeating(elapsed_ns: f64) -> f64 {
    remembered(&LAST_UPDATE, elapsed_ns, decay)
}

/// [`decay`] since the wide groups' epoch, for their sums: every group of a domain
/// is read at the same instant in one balance.
pub fn group_decay(since_epoch_ns: f64) -> f64 {
    remembered(&LAST_GROUP_DECAY, since_epoch_ns, decay)
}

/// `2^(since / half-life)`: a CPU's part in the wide groups' sums, scaled to the
/// epoch. CPUs whose averages were updated at one instant share it.
pub fn group_growth(since_epoch_ns: f64) -> f64 {
    remembered(&LAST_GROUP_PART, since_epoch_ns, |x| {
        libm::exp2(x / PELT_HALF_LIFE_NS)
    })
}

#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Pelt {
    pub util_avg: f64,
    pub updated_at: SimTime,
}

impl Default for Pelt {
    fn default() -> Self {
        Pelt {
            util_avg: 0.0,
            updated_at: SimTime::ZERO,
        }
    }
}

impl Pelt {
    pub fn new(util_avg: f64, updated_at: SimTime) -> Pelt {
        Pelt {
            util_avg,
            updated_at,
        }
    }

    /// Accounts the time since the last update, during which the entity was
    /// `running` (or not) the whole time.
    pub fn update(&mut self, now: SimTime, running: bool) {
        let elapsed = (now - self.updated_at).as_ns() as f64;
        if elapsed <= 0.0 {
            return;
        }
        let keep = decay_repeating(elapsed);
        let target = if running { CAPACITY_SCALE } else { 0.0 };
        self.util_avg = self.util_avg * keep + target * (1.0 - keep);
        self.updated_at = now;
    }

    /// The value at `now` without changing the record (`running` as above).
    pub fn peek(&self, now: SimTime, running: bool) -> f64 {
        let mut copy = *self;
        copy.update(now, running);
        copy.util_avg
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_memo_gives_libms_bits() {
        // Repeats, alternations and new values: every answer is libm's.
        let args: Vec<f64> = (0..4000)
            .map(|i| ((i / 3) * 7919 % 613) as f64 * 1e5)
            .chain([0.0, -0.0, 1.5e9, 3.4e10, f64::INFINITY])
            .collect();
        for &x in args.iter().chain(args.iter().rev()) {
            let want = libm::exp2(-x / PELT_HALF_LIFE_NS);
            assert_eq!(decay_repeating(x).to_bits(), want.to_bits(), "decay({x})");
            assert_eq!(
                decay_repeating(x).to_bits(),
                want.to_bits(),
                "decay({x}) again"
            );
        }
        for &x in &args {
            let grows = libm::exp2(x / PELT_HALF_LIFE_NS);
            assert_eq!(group_growth(x).to_bits(), grows.to_bits(), "growth({x})");
            assert_eq!(
                group_decay(x).to_bits(),
                decay(x).to_bits(),
                "group decay({x})"
            );
        }
        assert!(decay_repeating(f64::NAN).is_nan());
        assert_eq!(decay(PELT_HALF_LIFE_NS), 0.5);
    }

    #[test]
    fn half_life_is_32ms() {
        let mut pelt = Pelt::new(1024.0, SimTime::ZERO);
        pelt.update(SimTime::from_ms(32), false);
        assert!((pelt.util_avg - 512.0).abs() < 1e-6);
    }

    #[test]
    fn peek_does_not_change_the_record() {
        let pelt = Pelt::new(100.0, SimTime::ZERO);
        let later = pelt.peek(SimTime::from_ms(32), true);
        assert!((later - 562.0).abs() < 1e-6);
        assert_eq!(pelt.util_avg, 100.0);
    }

    #[test]
    fn always_running_converges_to_full() {
        let mut pelt = Pelt::default();
        for ms in 1..=400 {
            pelt.update(SimTime::from_ms(ms), true);
        }
        assert!(pelt.util_avg > 1000.0);
    }
}
