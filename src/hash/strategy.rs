//! Index strategies: how one item's hash becomes k bit positions in `[0, m)`.
//!
//! Our own strategies (`double`, `enhanced-double`, `independent`) work in wrapping 64-bit
//! arithmetic and map each 64-bit value to `[0, m)` with Lemire's multiply-shift [`reduce`]
//! rather than `% m`: one multiplication instead of a 20–90 cycle division, for any `m` (not just
//! powers of two), with a bias of at most m/2⁶⁴. Because reduction takes the *high* bits of the
//! product it needs a hash whose high bits are good: every hasher here except `weak` qualifies.
//!
//! Working modulo 2⁶⁴ also disposes of the classic double-hashing pitfalls: with `h2` forced odd,
//! `h1 + i·h2` never repeats within 2⁶⁴ steps (no `h2 ≡ 0` degeneration, no short cycles when
//! `gcd(h2, m) > 1`, which is what breaks `(h1 + i·h2) mod m` for non-prime m).
//!
//! The two Guava strategies are reproduced bit for bit, flaws included, so they can be studied
//! and so Guava-written filters can be read (see [`crate::guava`]).

use super::{ItemHasher, StrategyId};
use std::fmt::Debug;

/// Map a uniform 64-bit value to `[0, m)` by multiply-shift (Lemire 2019, "Fast Random Integer
/// Generation in an Interval", ACM TOMACS 29(1)).
#[inline]
#[must_use]
pub fn reduce(h: u64, m: u64) -> u64 {
    ((u128::from(h) * u128::from(m)) >> 64) as u64
}

/// Derives the k bit positions of an item.
pub trait IndexStrategy: Clone + Copy + Send + Sync + Debug + Default + 'static {
    /// Which strategy this is.
    fn id(&self) -> StrategyId;

    /// The bit count a filter must really have when `m` bits are asked for. Guava rounds up to
    /// whole 64-bit words and indexes modulo the rounded size; our strategies use `m` as given.
    #[inline]
    fn round_bits(&self, m: u64) -> u64 {
        m
    }

    /// Call `f` with each of the k positions of `item` in `[0, m)`, in order, stopping as soon as
    /// `f` returns `false`. Returns `false` if it stopped early, `true` otherwise.
    fn for_each_index<H: ItemHasher, F: FnMut(u64) -> bool>(
        &self,
        hasher: &H,
        item: &[u8],
        k: u32,
        m: u64,
        f: F,
    ) -> bool;
}

/// Kirsch & Mitzenmacher (2006), "Less Hashing, Same Performance: Building a Better Bloom
/// Filter": `g_i = h1 + i·h2`, here mod 2⁶⁴ with `h2` odd, then reduced to `[0, m)`.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct DoubleHashing;

impl IndexStrategy for DoubleHashing {
    fn id(&self) -> StrategyId {
        StrategyId::Double
    }
    #[inline]
    fn for_each_index<H: ItemHasher, F: FnMut(u64) -> bool>(
        &self,
        hasher: &H,
        item: &[u8],
        k: u32,
        m: u64,
        mut f: F,
    ) -> bool {
        let h = hasher.hash128(item);
        let mut x = h.lo;
        let y = h.hi | 1;
        for _ in 0..k {
            if !f(reduce(x, m)) {
                return false;
            }
            x = x.wrapping_add(y);
        }
        true
    }
}

/// Dillinger & Manolios (2004), "Bloom Filters in Probabilistic Verification" (FMCAD):
/// enhanced double hashing `g_i = h1 + i·h2 + (i³ − i)/6`, computed incrementally.
/// The cubic term breaks the arithmetic-progression structure that makes plain double hashing
/// repeat positions when `h2` is small relative to the spacing of positions.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct EnhancedDoubleHashing;

impl IndexStrategy for EnhancedDoubleHashing {
    fn id(&self) -> StrategyId {
        StrategyId::EnhancedDouble
    }
    #[inline]
    fn for_each_index<H: ItemHasher, F: FnMut(u64) -> bool>(
        &self,
        hasher: &H,
        item: &[u8],
        k: u32,
        m: u64,
        mut f: F,
    ) -> bool {
        let h = hasher.hash128(item);
        let mut x = h.lo;
        let mut y = h.hi;
        for i in 0..u64::from(k) {
            if !f(reduce(x, m)) {
                return false;
            }
            x = x.wrapping_add(y);
            y = y.wrapping_add(i + 1);
        }
        true
    }
}

/// k independently seeded hash computations (seeds 0..k): the model the textbook formulas
/// assume, at k times the hashing cost. The baseline the cheaper strategies are measured against.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Independent;

impl IndexStrategy for Independent {
    fn id(&self) -> StrategyId {
        StrategyId::Independent
    }
    #[inline]
    fn for_each_index<H: ItemHasher, F: FnMut(u64) -> bool>(
        &self,
        hasher: &H,
        item: &[u8],
        k: u32,
        m: u64,
        mut f: F,
    ) -> bool {
        (0..u64::from(k)).all(|i| f(reduce(hasher.hash64_seeded(item, i), m)))
    }
}

/// Guava's `BloomFilterStrategies.MURMUR128_MITZ_32` (Guava 11–14's default), bit for bit:
/// the low 64 bits of the hash split into two *32-bit* halves, `combined = h1 + i·h2` in 32-bit
/// `int` arithmetic for i = 1..=k, bit-inverted when negative, then `% bitSize`.
///
/// Its flaws, kept on purpose: indices never exceed 2³¹−1, so in a filter of more than 2³¹ bits
/// the rest is never used; and only 64 of the 128 hash bits are used.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Guava32;

impl IndexStrategy for Guava32 {
    fn id(&self) -> StrategyId {
        StrategyId::Guava32
    }
    #[inline]
    fn round_bits(&self, m: u64) -> u64 {
        m.div_ceil(64) * 64
    }
    #[inline]
    fn for_each_index<H: ItemHasher, F: FnMut(u64) -> bool>(
        &self,
        hasher: &H,
        item: &[u8],
        k: u32,
        m: u64,
        mut f: F,
    ) -> bool {
        let hash64 = hasher.hash128(item).lo;
        let hash1 = hash64 as i32;
        let hash2 = (hash64 >> 32) as i32;
        for i in 1..=k as i32 {
            let mut combined = hash1.wrapping_add(i.wrapping_mul(hash2));
            if combined < 0 {
                combined = !combined;
            }
            if !f(combined as u64 % m) {
                return false;
            }
        }
        true
    }
}

/// Guava's `BloomFilterStrategies.MURMUR128_MITZ_64` (the default since Guava 15), bit for bit:
/// `h1`, `h2` are the two 64-bit halves of murmur3_128; `combined` starts at `h1` and adds `h2`
/// k times; each index is `(combined & Long.MAX_VALUE) % bitSize`.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Guava64;

impl IndexStrategy for Guava64 {
    fn id(&self) -> StrategyId {
        StrategyId::Guava64
    }
    #[inline]
    fn round_bits(&self, m: u64) -> u64 {
        m.div_ceil(64) * 64
    }
    #[inline]
    fn for_each_index<H: ItemHasher, F: FnMut(u64) -> bool>(
        &self,
        hasher: &H,
        item: &[u8],
        k: u32,
        m: u64,
        mut f: F,
    ) -> bool {
        let h = hasher.hash128(item);
        let mut combined = h.lo;
        for _ in 0..k {
            if !f((combined & (i64::MAX as u64)) % m) {
                return false;
            }
            combined = combined.wrapping_add(h.hi);
        }
        true
    }
}

/// Any strategy, chosen at run time.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct AnyStrategy(pub StrategyId);

impl Default for StrategyId {
    fn default() -> Self {
        StrategyId::EnhancedDouble
    }
}

impl IndexStrategy for AnyStrategy {
    fn id(&self) -> StrategyId {
        self.0
    }
    fn round_bits(&self, m: u64) -> u64 {
        match self.0 {
            StrategyId::Guava32 => Guava32.round_bits(m),
            StrategyId::Guava64 => Guava64.round_bits(m),
            _ => m,
        }
    }
    #[inline]
    fn for_each_index<H: ItemHasher, F: FnMut(u64) -> bool>(
        &self,
        hasher: &H,
        item: &[u8],
        k: u32,
        m: u64,
        f: F,
    ) -> bool {
        match self.0 {
            StrategyId::Double => DoubleHashing.for_each_index(hasher, item, k, m, f),
            StrategyId::EnhancedDouble => {
                EnhancedDoubleHashing.for_each_index(hasher, item, k, m, f)
            }
            StrategyId::Independent => Independent.for_each_index(hasher, item, k, m, f),
            StrategyId::Guava32 => Guava32.for_each_index(hasher, item, k, m, f),
            StrategyId::Guava64 => Guava64.for_each_index(hasher, item, k, m, f),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::hash::{AnyHasher, HashId};

    fn indices<S: IndexStrategy>(s: S, h: &AnyHasher, item: &[u8], k: u32, m: u64) -> Vec<u64> {
        let mut v = Vec::new();
        s.for_each_index(h, item, k, m, |i| {
            v.push(i);
            true
        });
        v
    }

    #[test]
    fn all_strategies_give_k_indices_in_range() {
        let h = AnyHasher::new(HashId::Xxh3, 0);
        for id in StrategyId::ALL {
            for m in [1u64, 7, 64, 1000, 1 << 40] {
                let v = indices(AnyStrategy(id), &h, b"x", 9, m);
                assert_eq!(v.len(), 9);
                assert!(v.iter().all(|&i| i < m), "{id} m={m}: {v:?}");
            }
        }
    }

    #[test]
    fn early_stop() {
        let h = AnyHasher::default();
        let mut calls = 0;
        let all = DoubleHashing.for_each_index(&h, b"x", 7, 100, |_| {
            calls += 1;
            calls < 3
        });
        assert!(!all);
        assert_eq!(calls, 3);
    }

    #[test]
    fn reduce_is_fair_over_the_range() {
        assert_eq!(reduce(0, 10), 0);
        assert_eq!(reduce(u64::MAX, 10), 9);
        assert_eq!(reduce(u64::MAX / 2, 10), 4);
    }

    #[test]
    fn guava32_never_indexes_past_2_pow_31() {
        let h = AnyHasher::new(HashId::Murmur3, 0);
        let m = 1u64 << 36;
        let max = (0u64..2000)
            .flat_map(|i| indices(Guava32, &h, &i.to_le_bytes(), 5, m))
            .max()
            .unwrap();
        assert!(max < 1 << 31);
        let max64 = (0u64..2000)
            .flat_map(|i| indices(Guava64, &h, &i.to_le_bytes(), 5, m))
            .max()
            .unwrap();
        assert!(max64 > 1 << 35, "guava64 uses the whole array");
    }
}
