//! Simulated time: an integer count of nanoseconds, never a float.

use std::fmt;
use std::ops::{Add, AddAssign, Sub};

/// A point in simulated time, in nanoseconds since the start of the run.
///
/// Durations use the same type: the model never mixes wall-clock time in.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct SimTime(pub u64);

impl SimTime {
    pub const ZERO: SimTime = SimTime(0);
    pub const MAX: SimTime = SimTime(u64::MAX);

    pub const fn from_ns(ns: u64) -> Self {
        SimTime(ns)
    }
    /// Saturating: a time past `u64::MAX` ns is [`SimTime::MAX`], never.
    pub const fn from_us(us: u64) -> Self {
        SimTime(us.saturating_mul(1_000))
    }
    /// Saturating, as [`SimTime::from_us`].
    pub const fn from_ms(ms: u64) -> Self {
        SimTime(ms.saturating_mul(1_000_000))
    }
    pub const fn as_ns(self) -> u64 {
        self.0
    }
    pub fn as_us_f64(self) -> f64 {
        self.0 as f64 / 1_000.0
    }
    pub fn saturating_sub(self, other: SimTime) -> SimTime {
        SimTime(self.0.saturating_sub(other.0))
    }
}

impl Add for SimTime {
    type Output = SimTime;
    fn add(self, rhs: SimTime) -> SimTime {
        SimTime(self.0.saturating_add(rhs.0))
    }
}

impl AddAssign for SimTime {
    fn add_assign(&mut self, rhs: SimTime) {
        self.0 = self.0.saturating_add(rhs.0);
    }
}

impl Sub for SimTime {
    type Output = SimTime;
    /// Saturates at zero: a duration is never negative.
    fn sub(self, rhs: SimTime) -> SimTime {
        SimTime(self.0.saturating_sub(rhs.0))
    }
}

impl fmt::Display for SimTime {
    /// Formats like ftrace's timestamp column: seconds with six decimals.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let micros = self.0 / 1_000;
        write!(f, "{}.{:06}", micros / 1_000_000, micros % 1_000_000)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn displays_like_ftrace() {
        assert_eq!(SimTime::from_us(1_234_567).to_string(), "1.234567");
        assert_eq!(SimTime::from_ns(999).to_string(), "0.000000");
    }

    #[test]
    fn subtraction_saturates() {
        assert_eq!(SimTime(5) - SimTime(9), SimTime::ZERO);
    }
}
