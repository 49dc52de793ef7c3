//! PELT-style utilisation: an exponentially decaying average of running time with a
//! 32 ms half-life, as the kernel's per-entity load tracking gives (`util_avg`).
//!
//! Simplification of `___update_load_avg()`: the kernel sums 1024 us segments with
//! `y^32 = 1/2`; this is the continuous form of the same average, updated at events.
//! Values are on the kernel's scale: 0 (never runs) to 1024 (always runs).

use crate::time::SimTime;

/// The half-life of the average, in nanoseconds.
pub const PELT_HALF_LIFE_NS: f64 = 32_000_000.0;
/// Full utilisation (`SCHED_CAPACITY_SCALE`).
pub const CAPACITY_SCALE: f64 = 1024.0;

/// The decay is split at fixed epochs of this length, so that many averages can be
/// brought to one time with one `exp2` per epoch instead of one each (see
/// [`DecayCache`]). 16 half-lives keep both factors well inside `f64`'s range.
const EPOCH_NS: u64 = 16 * PELT_HALF_LIFE_NS as u64;

#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Pelt {
    pub util_avg: f64,
    pub updated_at: SimTime,
    /// `2^((updated_at - epoch start) / half-life)`: how far into its epoch the
    /// record was taken, as a growth factor (kept by [`Pelt::update_tracked`]).
    growth: f64,
}

impl Default for Pelt {
    fn default() -> Self {
        Pelt {
            util_avg: 0.0,
            updated_at: SimTime::ZERO,
            growth: 1.0,
        }
    }
}

impl Pelt {
    pub fn new(util_avg: f64, updated_at: SimTime) -> Pelt {
        Pelt {
            util_avg,
            updated_at,
            growth: growth_in_epoch(updated_at),
        }
    }

    /// Accounts the time since the last update, during which the entity was
    /// `running` (or not) the whole time.
    pub fn update(&mut self, now: SimTime, running: bool) {
        let elapsed = (now - self.updated_at).as_ns() as f64;
        if elapsed <= 0.0 {
            return;
        }
        let keep = libm::exp2(-elapsed / PELT_HALF_LIFE_NS);
        let target = if running { CAPACITY_SCALE } else { 0.0 };
        self.util_avg = self.util_avg * keep + target * (1.0 - keep);
        self.updated_at = now;
    }

    /// [`Pelt::update`], keeping what [`DecayCache`] reads up to date: every update
    /// of an average that a `DecayCache` reads (a task's) goes through here.
    pub fn update_tracked(&mut self, now: SimTime, running: bool) {
        if now <= self.updated_at {
            return;
        }
        self.update(now, running);
        self.growth = growth_in_epoch(now);
    }

    /// The value at `now` without changing the record (`running` as above).
    pub fn peek(&self, now: SimTime, running: bool) -> f64 {
        let mut copy = *self;
        copy.update(now, running);
        copy.util_avg
    }
}

fn epoch_start(at: SimTime) -> u64 {
    at.as_ns() / EPOCH_NS * EPOCH_NS
}

fn growth_in_epoch(at: SimTime) -> f64 {
    libm::exp2((at.as_ns() - epoch_start(at)) as f64 / PELT_HALF_LIFE_NS)
}

/// Brings many averages to one time, each as [`Pelt::peek`] with `running` would:
/// the decay from a record to `now` is the decay from the record's epoch start to
/// `now` (one `exp2` per epoch, remembered for the last two epochs seen) times the
/// record's growth within its epoch. Equal to `peek` up to the last bits of
/// the floating-point result.
pub struct DecayCache {
    now: SimTime,
    epochs: [(u64, f64); 2],
}

impl DecayCache {
    pub fn new(now: SimTime) -> DecayCache {
        DecayCache {
            now,
            epochs: [(u64::MAX, 0.0); 2],
        }
    }

    /// `pelt.peek(now, true)`.
    pub fn runnable(&mut self, pelt: &Pelt) -> f64 {
        if pelt.updated_at >= self.now {
            return pelt.util_avg;
        }
        let start = epoch_start(pelt.updated_at);
        let from_start = match self.epochs {
            [(epoch, decay), _] if epoch == start => decay,
            [_, (epoch, decay)] if epoch == start => decay,
            _ => {
                let decay = libm::exp2(-((self.now.as_ns() - start) as f64) / PELT_HALF_LIFE_NS);
                self.epochs = [(start, decay), self.epochs[0]];
                decay
            }
        };
        let keep = from_start * pelt.growth;
        pelt.util_avg * keep + CAPACITY_SCALE * (1.0 - keep)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

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
    fn the_decay_cache_agrees_with_peek() {
        let mut pelts = Vec::new();
        let mut pelt = Pelt::default();
        // Records across several epochs, running and not.
        for step in 1..400u64 {
            pelt.update_tracked(SimTime(step * 7_777_777), step % 3 != 0);
            pelts.push(pelt);
        }
        for now_ms in [3_100u64, 3_104, 9_000] {
            let now = SimTime::from_ms(now_ms);
            let mut cache = DecayCache::new(now);
            for pelt in pelts.iter().filter(|pelt| pelt.updated_at <= now) {
                let exact = pelt.peek(now, true);
                let cached = cache.runnable(pelt);
                assert!(
                    (exact - cached).abs() < 1e-9,
                    "{exact} vs {cached}: {pelt:?} at {now:?}"
                );
            }
        }
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
