//! Keys for the benches: `key(i)` is a bijection of the index `i`, so the present keys
//! `key(0..n)` and the absent keys `key(n..)` are disjoint by construction, and any present or
//! absent key can be made on the fly without storing 10^8 of them.

#![allow(dead_code)]

use bloomlab::hash::mix64;

/// Salt so that the keys are not the hashers' favourite small integers.
const SALT: u64 = 0x5eed_b100_f11e_0001;

/// The `i`-th key. Present keys are `key(0..n)`, absent ones `key(n + j)`.
#[inline]
pub fn key(i: u64) -> u64 {
    mix64(i ^ SALT)
}

/// A small, fast, seeded generator (SplitMix64) for choosing which keys to query.
#[derive(Debug, Clone)]
pub struct Rng(u64);

impl Rng {
    pub fn new(seed: u64) -> Self {
        Rng(seed)
    }
    #[inline]
    pub fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        mix64(self.0)
    }
    /// Uniform in `[0, n)` (multiply-shift).
    #[inline]
    pub fn below(&mut self, n: u64) -> u64 {
        ((u128::from(self.next_u64()) * u128::from(n)) >> 64) as u64
    }
}

/// Fill `buf` with random present keys (indices below `n`).
pub fn fill_hits(buf: &mut [u64], n: u64, rng: &mut Rng) {
    for b in buf {
        *b = key(rng.below(n));
    }
}

/// Fill `buf` with random absent keys (indices in `[n, n + 2^40)`).
pub fn fill_misses(buf: &mut [u64], n: u64, rng: &mut Rng) {
    for b in buf {
        *b = key(n + rng.below(1 << 40));
    }
}
