//! The run's single seeded random source (PCG, portable and bit-exact everywhere).
//!
//! Floating-point draws use `libm` rather than the platform's maths library, so that
//! the same seed gives the same trace natively and in WebAssembly.

use rand_core::{Rng, SeedableRng};
use rand_pcg::Pcg64Mcg;

#[derive(Clone, Debug)]
pub struct SimRng {
    inner: Pcg64Mcg,
}

impl SimRng {
    pub fn new(seed: u64) -> Self {
        Self {
            inner: Pcg64Mcg::seed_from_u64(seed),
        }
    }

    pub fn next_u64(&mut self) -> u64 {
        self.inner.next_u64()
    }

    /// Uniform in `[0, 1)`, with 53 random bits.
    pub fn next_f64(&mut self) -> f64 {
        (self.next_u64() >> 11) as f64 * (1.0 / (1u64 << 53) as f64)
    }

    /// Uniform in `[0, bound)`; `bound` must be positive. Unbiased (rejection sampling).
    pub fn below(&mut self, bound: u64) -> u64 {
        let zone = u64::MAX - (u64::MAX % bound);
        loop {
            let value = self.next_u64();
            if value < zone {
                return value % bound;
            }
        }
    }

    /// A standard normal draw (Box-Muller).
    pub fn next_standard_normal(&mut self) -> f64 {
        let u1 = 1.0 - self.next_f64();
        let u2 = self.next_f64();
        libm::sqrt(-2.0 * libm::log(u1)) * libm::cos(2.0 * core::f64::consts::PI * u2)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn same_seed_same_stream() {
        let mut first = SimRng::new(42);
        let mut second = SimRng::new(42);
        for _ in 0..100 {
            assert_eq!(first.next_u64(), second.next_u64());
        }
    }

    #[test]
    fn floats_stay_in_range() {
        let mut rng = SimRng::new(7);
        for _ in 0..1000 {
            let value = rng.next_f64();
            assert!((0.0..1.0).contains(&value));
            assert!(rng.below(10) < 10);
        }
    }
}
