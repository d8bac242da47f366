//! Index strategies: how one item's hash becomes k bit positions in `[0, m)`.
//!
//! Our own strategies (`double`, `enhanced-double`, `independent`, and the 64-bit
//! `enhanced-double-64` and `rotate-add-64`) map 64-bit hash values to
//! `[0, m)` with Lemire's multiply-shift [`reduce`] rather than `% m`: one multiplication instead
//! of a 20–90 cycle division, for any `m` (not just powers of two), with a bias of at most
//! m/2⁶⁴. Because reduction takes the *high* bits of the product it needs a hash whose high bits
//! are good: every hasher here except `weak` qualifies.
//!
//! The two Guava strategies are reproduced bit for bit, flaws included, so they can be studied
//! and so Guava-written filters can be read (see [`crate::guava`]).

use super::{Hash128, ItemHasher, StrategyId, mix64};
use crate::error::{Error, Result};
use std::fmt::Debug;

/// Map a uniform 64-bit value to `[0, m)` by multiply-shift (Lemire 2019, "Fast Random Integer
/// Generation in an Interval", ACM TOMACS 29(1)).
#[inline]
#[must_use]
// ANCHOR: reduce
pub fn reduce(h: u64, m: u64) -> u64 {
    ((u128::from(h) * u128::from(m)) >> 64) as u64
}
// ANCHOR_END: reduce

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

    /// Hash `item` once, as this strategy needs it: its 128-bit hash for every strategy but
    /// `independent`, which hashes k times and keeps the item. Filters made of several arrays
    /// (the scalable filter's layers) hash a query once and probe every array with
    /// [`IndexStrategy::for_each_index_of`].
    #[inline]
    fn prehash<'a, H: ItemHasher>(&self, hasher: &H, item: &'a [u8]) -> Prehash<'a> {
        Prehash(Pre::Hash(self.hash_item(hasher, item)))
    }

    /// The one hash of `item` this strategy's positions are a function of: the 128-bit hash
    /// for most strategies; [`EnhancedDouble64`] needs only 64 bits and takes the hasher's
    /// native [`ItemHasher::hash64`] (in `lo`, `hi` = 0), which is cheaper for every 64-bit
    /// function and for SipHash (one finalisation instead of two).
    #[inline(always)]
    fn hash_item<H: ItemHasher>(&self, hasher: &H, item: &[u8]) -> Hash128 {
        hasher.hash128(item)
    }

    /// Call `f` with each of the k positions in `[0, m)` of the item `pre` was made from, in
    /// order, stopping as soon as `f` returns `false`. Returns `false` if it stopped early.
    #[inline]
    fn for_each_index_of<H: ItemHasher, F: FnMut(u64) -> bool>(
        &self,
        hasher: &H,
        pre: Prehash<'_>,
        k: u32,
        m: u64,
        f: F,
    ) -> bool {
        self.for_each_hashed(pre.hash(hasher), k, m, f)
    }

    /// The k positions derived from the item's 128-bit hash `h` (every strategy but
    /// `independent` is such a function of one hash).
    fn for_each_hashed<F: FnMut(u64) -> bool>(&self, h: Hash128, k: u32, m: u64, f: F) -> bool;

    /// Call `f` with each of the k positions of `item` in `[0, m)`, in order, stopping as soon as
    /// `f` returns `false`. Returns `false` if it stopped early, `true` otherwise.
    #[inline(always)]
    fn for_each_index<H: ItemHasher, F: FnMut(u64) -> bool>(
        &self,
        hasher: &H,
        item: &[u8],
        k: u32,
        m: u64,
        f: F,
    ) -> bool {
        self.for_each_hashed(self.hash_item(hasher, item), k, m, f)
    }
}

/// An item hashed once for an [`IndexStrategy`] ([`IndexStrategy::prehash`]): the only way to
/// make one, so a strategy always receives what its own `prehash` gives.
#[derive(Debug, Clone, Copy)]
pub struct Prehash<'a>(Pre<'a>);

#[derive(Debug, Clone, Copy)]
enum Pre<'a> {
    Hash(Hash128),
    Item(&'a [u8]),
}

impl Prehash<'_> {
    /// The item's 128-bit hash (computed here if the prehash kept the item).
    #[inline]
    fn hash<H: ItemHasher>(self, hasher: &H) -> Hash128 {
        match self.0 {
            Pre::Hash(h) => h,
            Pre::Item(item) => hasher.hash128(item),
        }
    }

    /// The hash the strategy's positions are [`IndexStrategy::for_each_hashed`] of, or `None`
    /// when the prehash kept the item (`independent`): what a batch query stages
    /// (`filters/bulk.rs`).
    #[inline(always)]
    pub(crate) fn hashed(self) -> Option<Hash128> {
        match self.0 {
            Pre::Hash(h) => Some(h),
            Pre::Item(_) => None,
        }
    }
}

/// `(a + b) mod m` for `a, b < m`, without a division (and without overflow for any m).
#[inline]
fn add_mod(a: u64, b: u64, m: u64) -> u64 {
    let (s, carry) = a.overflowing_add(b);
    if carry || s >= m {
        s.wrapping_sub(m)
    } else {
        s
    }
}

/// `s mod m` for `s < 2m`, branch-free.
#[inline(always)]
fn sub_if_ge(s: u64, m: u64) -> u64 {
    let t = s.wrapping_sub(m);
    if s >= m { t } else { s }
}

/// Kirsch & Mitzenmacher (2006), "Less Hashing, Same Performance: Building a Better Bloom
/// Filter" (ESA; RSA 33(2) 2008): `g_i = h1 + i·h2`, here in wrapping 64-bit arithmetic with
/// each `g_i` reduced to `[0, m)` by multiply-shift — the "real-valued" form, where the step is
/// `h2·m/2⁶⁴` cells, a real number, rather than an integer mod m.
///
/// Pitfalls: in the mod-m form a step `h2 ≡ 0` repeats one position k times and a step with
/// `gcd(h2, m) > 1` has a period of m/gcd, possibly below k. Here `h2` is forced odd, so
/// `h1 + i·h2` never repeats modulo 2⁶⁴ and no common factor with m exists. What remains is a
/// step within about one cell of a multiple of 2⁶⁴/j (probability ≈ k²/m), which folds the
/// positions onto few bits. Measured at m = 256, n = 26, k = 7 over 40,000 filters: 1.057%
/// against the exact 0.913% (independent hashing: 0.916%). A mod-m version with an odd step was
/// tried and measured worse (1.233%): odd steps leave only m/2 step values, so queries share
/// whole progressions with inserted items more often. At realistic m the difference vanishes.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct DoubleHashing;

// ANCHOR: double
impl IndexStrategy for DoubleHashing {
    fn id(&self) -> StrategyId {
        StrategyId::Double
    }
    #[inline]
    fn for_each_hashed<F: FnMut(u64) -> bool>(&self, h: Hash128, k: u32, m: u64, mut f: F) -> bool {
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
// ANCHOR_END: double

/// Dillinger & Manolios (2004), "Bloom Filters in Probabilistic Verification" (FMCAD), their
/// *enhanced double hashing*: `g_i = h1 + i·h2 + (i³ − i)/6 (mod m)`, computed incrementally as
/// `x += y; y += i` (mod m). The cubic term means that no step `h2` collapses the positions:
/// a zero step gives `x, x, x+1, x+4, x+10, …` (k − 1 distinct) where the mod-m form of plain
/// double hashing would give one position k times.
/// Done modulo m as in the paper: `h1` and `h2` are reduced to `[0, m)` by multiply-shift, the
/// steps by conditional subtraction; no division anywhere. The default strategy.
///
/// Measured at m = 256, n = 26, k = 7 over 40,000 filters: 0.948% against the exact 0.913%
/// (plain double 1.057%, independent 0.916%). The cubic term must live in cells: a version in
/// wrapping 64-bit arithmetic made it vanish below one cell and gave the same positions as plain
/// double hashing.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct EnhancedDoubleHashing;

// ANCHOR: enhanced_double
impl IndexStrategy for EnhancedDoubleHashing {
    fn id(&self) -> StrategyId {
        StrategyId::EnhancedDouble
    }
    #[inline]
    fn for_each_hashed<F: FnMut(u64) -> bool>(&self, h: Hash128, k: u32, m: u64, mut f: F) -> bool {
        let mut x = reduce(h.lo, m);
        let mut y = reduce(h.hi, m);
        let k = u64::from(k);
        if m > k && m <= 1 << 63 {
            // The usual case, and the same positions as the general loop below: x, y < m and
            // i < m, so no sum reaches 2^64 and the reduction is one compare and a conditional
            // subtraction the compiler turns into a `cmov` (measured: 31 → ~14 instructions per
            // position in the CI gate's query count).
            for i in 1..k + 1 {
                if !f(x) {
                    return false;
                }
                x = sub_if_ge(x + y, m);
                y = sub_if_ge(y + i, m);
            }
            return true;
        }
        for i in 1..k + 1 {
            if !f(x) {
                return false;
            }
            x = add_mod(x, y, m);
            // For a tiny m, reduce i first.
            y = add_mod(y, i % m, m);
        }
        true
    }
}
// ANCHOR_END: enhanced_double

/// Enhanced double hashing (Dillinger & Manolios 2004, FMCAD, §5: `g_i = h1 + i·h2 + (i³ − i)/6`)
/// carried out in wrapping 64-bit **fixed point** instead of modulo m, on the hasher's native
/// 64-bit hash: `x = h`, `y = h·φ` (φ = 0x9E37_79B9_7F4A_7C15, the golden-ratio multiplier, so
/// both come from one 64-bit value, as fastbloom derives its second hash), then per position
/// `reduce(x, m)`, `x += y`, `d += u`, `y += d` — three additions and one multiply-shift, no
/// compare, no branch. The cubic term advances in units `u = 2^(64 − ⌊log₂ m⌋)`, which is
/// between 1 and 2 cells (`u·m/2⁶⁴ ∈ [1, 2)`), so it does not vanish below one cell as a
/// plain `+i` in 64-bit arithmetic would (see [`EnhancedDoubleHashing`]); `u` is one
/// leading-zero count and a shift per query (a division by m, for exactly one cell, would cost
/// more than the whole loop). A zero step gives positions `x, x, x+u, x+4u, …` (k − 1
/// distinct), as in the mod-m form.
///
/// The positions are pinned (strategy code 5, name `enhanced-double-64`): they differ from
/// `enhanced-double`'s, which keeps its own code and answers as before.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct EnhancedDouble64;

/// The pre-hash of the strategies that read one 64-bit hash ([`EnhancedDouble64`],
/// [`RotateAdd64`]): the hasher's native `hash64` in `lo`, `hi` unused.
#[inline(always)]
fn hash64_item<H: ItemHasher>(hasher: &H, item: &[u8]) -> Hash128 {
    Hash128 {
        lo: hasher.hash64(item),
        hi: 0,
    }
}

/// The multiplier [`EnhancedDouble64`] derives its step from: ⌊2⁶⁴/φ⌋, odd.
const PHI64: u64 = 0x9E37_79B9_7F4A_7C15;

// ANCHOR: enhanced_double_64
impl IndexStrategy for EnhancedDouble64 {
    fn id(&self) -> StrategyId {
        StrategyId::EnhancedDouble64
    }
    #[inline(always)]
    fn hash_item<H: ItemHasher>(&self, hasher: &H, item: &[u8]) -> Hash128 {
        hash64_item(hasher, item)
    }
    /// Uses `h.lo` only (what [`Self::hash_item`] fills).
    #[inline(always)]
    fn for_each_hashed<F: FnMut(u64) -> bool>(&self, h: Hash128, k: u32, m: u64, mut f: F) -> bool {
        // The first position peeled off (as in `RotateAdd64`; the same positions): the step after
        // the last position is not computed, and the all-set exit is its own block. With the
        // first probe inside the loop, LLVM merged "all set" and "a probe clear" into `masked
        // word != 0` in some callers (the paired and gate harnesses' `filter().count()`), which
        // tests each bit with `mov $1; shl; and` instead of one `bt` (issue 44,
        // results/bench/standard-dram.md).
        let Some(mut rest) = k.checked_sub(1) else {
            return true;
        };
        let mut x = h.lo;
        if !f(reduce(x, m)) {
            return false;
        }
        let mut y = h.lo.wrapping_mul(PHI64);
        // 2^(64 - floor(log2 m)); for m = 1 the shift wraps to 1, and every position is 0 anyway.
        let u = 1u64.wrapping_shl(m.leading_zeros() + 1);
        let mut d = 0u64;
        while rest != 0 {
            x = x.wrapping_add(y);
            d = d.wrapping_add(u);
            y = y.wrapping_add(d);
            if !f(reduce(x, m)) {
                return false;
            }
            rest -= 1;
        }
        true
    }
}
// ANCHOR_END: enhanced_double_64

/// `enhanced-double-64`'s positions with every position inside one loop (the form before the
/// peel; the same positions, tested against the peeled loop): what the registry's
/// [`AnyStrategy`] dispatch runs. Given the peeled loop instead, LLVM stopped inlining the
/// dispatch into the registry's `_any` filters: gate `dynamic_path` standard_any hits 232,535 →
/// 253,326 instructions, misses 96,483 → 129,188 (`benches/compare.sh a535f4a 873b7a1`), though
/// standard_any does not even use this strategy.
#[inline(always)]
fn enhanced_double_64_looped<F: FnMut(u64) -> bool>(h: u64, k: u32, m: u64, mut f: F) -> bool {
    let mut x = h;
    let mut y = h.wrapping_mul(PHI64);
    let u = 1u64.wrapping_shl(m.leading_zeros() + 1);
    let mut d = 0u64;
    for _ in 0..k {
        if !f(reduce(x, m)) {
            return false;
        }
        x = x.wrapping_add(y);
        d = d.wrapping_add(u);
        y = y.wrapping_add(d);
    }
    true
}

/// Double hashing with a rotation, on the hasher's native 64-bit hash: `x₀ = h`, `y = h·φ`
/// (the golden-ratio multiplier of [`EnhancedDouble64`]), then per position `reduce(x, m)` and
/// `x ← rotl(x, 5) + y` in wrapping 64-bit arithmetic — two operations per position, the
/// cheapest recurrence we know that still moves the high bits multiply-shift reads.
///
/// What it is: a variant of Kirsch & Mitzenmacher's double hashing `g_i = h1 + i·h2` (ESA 2006,
/// "Less Hashing, Same Performance: Building a Better Bloom Filter"; RSA 33(2) 2008), the form
/// fastbloom uses. The rotation is not in their family, so their theorem (the asymptotic FPR
/// of double hashing equals that of independent hashing) does **not** carry over formally; its
/// quality is measured, not proved. Plain `x += y` in 64-bit arithmetic would step by the fixed
/// real amount `y·m/2⁶⁴` cells; rotating first brings bits from below the top `log₂ m` bits
/// into them at every step, so the increments differ from step to step, like the cubic term of
/// enhanced double hashing without its extra additions.
///
/// Weaknesses: all k positions are a function of one 64-bit value (two items with equal 64-bit
/// hashes collide on every position, as with `enhanced-double-64`); hashes whose top bits are
/// all zero and whose step is tiny give clustered positions — `h = 0` gives `x = y = 0` and
/// position 0 k times, one hash in 2⁶⁴; and the sequence, unlike `enhanced-double`'s mod-m form,
/// has no guarantee against short cycles (a random bijection of 2⁶⁴ states has one of length
/// ≤ k with probability about k/2⁶⁴). Because `x` does not depend on m and multiply-shift
/// gives `⌊x·(m/2)/2⁶⁴⌋ = ⌊⌊x·m/2⁶⁴⌋/2⌋`, the positions fold like `double`'s.
///
/// The positions are pinned (strategy code 6, name `rotate-add-64`).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct RotateAdd64;

/// The rotation of [`RotateAdd64`]: 5 bits, so the top ⌊log₂ m⌋ bits of a position come from
/// a band of the previous state 5 bits lower down.
const ROTATE: u32 = 5;

// ANCHOR: rotate_add_64
impl IndexStrategy for RotateAdd64 {
    fn id(&self) -> StrategyId {
        StrategyId::RotateAdd64
    }
    #[inline(always)]
    fn hash_item<H: ItemHasher>(&self, hasher: &H, item: &[u8]) -> Hash128 {
        hash64_item(hasher, item)
    }
    /// Uses `h.lo` only (what [`Self::hash_item`] fills).
    #[inline(always)]
    fn for_each_hashed<F: FnMut(u64) -> bool>(&self, h: Hash128, k: u32, m: u64, mut f: F) -> bool {
        // The first position peeled off, so that the step after the last one is not computed
        // (fastbloom's loop shape; measured 2 instructions per item less in the CI gate).
        let Some(mut rest) = k.checked_sub(1) else {
            return true;
        };
        let mut x = h.lo;
        let y = h.lo.wrapping_mul(PHI64);
        if !f(reduce(x, m)) {
            return false;
        }
        while rest != 0 {
            x = x.rotate_left(ROTATE).wrapping_add(y);
            if !f(reduce(x, m)) {
                return false;
            }
            rest -= 1;
        }
        true
    }
}
// ANCHOR_END: rotate_add_64

/// k independently seeded hash computations (seeds 0..k): the model the textbook formulas
/// assume, at k times the hashing cost. The baseline the cheaper strategies are measured against.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Independent;

impl IndexStrategy for Independent {
    fn id(&self) -> StrategyId {
        StrategyId::Independent
    }
    #[inline]
    fn prehash<'a, H: ItemHasher>(&self, _hasher: &H, item: &'a [u8]) -> Prehash<'a> {
        Prehash(Pre::Item(item))
    }
    #[inline]
    fn for_each_index_of<H: ItemHasher, F: FnMut(u64) -> bool>(
        &self,
        hasher: &H,
        pre: Prehash<'_>,
        k: u32,
        m: u64,
        f: F,
    ) -> bool {
        match pre.0 {
            Pre::Item(item) => self.for_each_index(hasher, item, k, m, f),
            Pre::Hash(h) => self.for_each_hashed(h, k, m, f),
        }
    }
    /// Not reached through `prehash` (which keeps the item): positions from the one hash with
    /// k seeds mixed in, for callers that only have a hash.
    #[inline]
    fn for_each_hashed<F: FnMut(u64) -> bool>(&self, h: Hash128, k: u32, m: u64, mut f: F) -> bool {
        (0..u64::from(k)).all(|i| f(reduce(mix64(h.lo ^ mix64(i)), m)))
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

/// The partitioned layout (Kirsch & Mitzenmacher 2008, RSA 33(2), §2 "partition schemes";
/// the slices of Almeida et al. 2007's scalable filters; Broder & Mitzenmacher 2004, §2.1):
/// the m bits are k slices of `s = ⌊m/k⌋` bits and position i lies in slice i,
/// `i·s + reduce(x_i, s)`, with `x_i = h1 + i·h2` in wrapping 64-bit arithmetic (`h2` odd, as
/// in [`DoubleHashing`]). An item always sets k distinct bits, and each slice is a one-hash
/// filter of s bits holding n items, so with independent positions the rate is exactly
/// `(1 − (1 − 1/s)^n)^k` ([`crate::theory::fpr_partitioned`]), slightly above the standard
/// layout's at the same m and k. The `m − k·s < k` bits past the last slice stay unused; for
/// `k > m` every slice is empty and every position is 0.
///
/// The positions are pinned (strategy code 7, name `partitioned`). They do not fold: the
/// slice width `⌊m/k⌋` of m/2 bits is not half of m's in general.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Partitioned;

// ANCHOR: partitioned
impl IndexStrategy for Partitioned {
    fn id(&self) -> StrategyId {
        StrategyId::Partitioned
    }
    /// [`DoubleHashing`]'s positions in `[0, s)`, the i-th moved into slice i.
    #[inline]
    fn for_each_hashed<F: FnMut(u64) -> bool>(&self, h: Hash128, k: u32, m: u64, mut f: F) -> bool {
        let s = m / u64::from(k.max(1));
        let mut start = 0u64;
        DoubleHashing.for_each_hashed(h, k, s, |p| {
            let go_on = f(start + p);
            start += s;
            go_on
        })
    }
}
// ANCHOR_END: partitioned

/// `m` rounded up to whole 64-bit words, as Guava sizes its bit array. Above 2⁶⁴ − 64 there is
/// no larger multiple of 64 in a `u64`; such sizes cannot be allocated anyway, so they round
/// *down* to the last one and the allocation then fails with a typed error (an overflow here
/// was a debug panic and, in release, a 0-bit filter; found by fuzzing the file loader).
#[inline]
fn round_up_to_words(m: u64) -> u64 {
    m.div_ceil(64).checked_mul(64).unwrap_or(!63u64)
}

/// Guava's `BloomFilterStrategies.MURMUR128_MITZ_32` (Guava 11–14's default), bit for bit:
/// the low 64 bits of the hash split into two *32-bit* halves, `combined = h1 + i·h2` in 32-bit
/// `int` arithmetic for i = 1..=k, bit-inverted when negative, then `% bitSize`.
///
/// Its flaws, kept on purpose: indices never exceed 2³¹−1, so in a filter of more than 2³¹ bits
/// the rest is never used; and only 64 of the 128 hash bits are used.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Guava32;

// ANCHOR: guava32
impl IndexStrategy for Guava32 {
    fn id(&self) -> StrategyId {
        StrategyId::Guava32
    }
    #[inline]
    fn round_bits(&self, m: u64) -> u64 {
        round_up_to_words(m)
    }
    #[inline]
    fn for_each_hashed<F: FnMut(u64) -> bool>(&self, h: Hash128, k: u32, m: u64, mut f: F) -> bool {
        let hash64 = h.lo;
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
// ANCHOR_END: guava32

/// Guava's `BloomFilterStrategies.MURMUR128_MITZ_64` (the default since Guava 15), bit for bit:
/// `h1`, `h2` are the two 64-bit halves of murmur3_128; `combined` starts at `h1` and adds `h2`
/// k times; each index is `(combined & Long.MAX_VALUE) % bitSize`.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Guava64;

// ANCHOR: guava64
impl IndexStrategy for Guava64 {
    fn id(&self) -> StrategyId {
        StrategyId::Guava64
    }
    #[inline]
    fn round_bits(&self, m: u64) -> u64 {
        round_up_to_words(m)
    }
    #[inline]
    fn for_each_hashed<F: FnMut(u64) -> bool>(&self, h: Hash128, k: u32, m: u64, mut f: F) -> bool {
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
// ANCHOR_END: guava64

/// Whether `S` is one of this module's strategies (as its concrete type or as [`AnyStrategy`],
/// which runs them), every one of which hands only positions below the `m` it is given to its
/// closure: multiply-shift `reduce(·, m)` (double, enhanced-double-64, rotate-add-64,
/// independent), a sum kept mod m (enhanced-double) or `% m` (Guava). The standard filter
/// indexes its bit array without a bounds check for these (`filters/standard.rs`), so that
/// property is a safety invariant: `unchecked_strategies_stay_below_m` tests it for every
/// strategy at every m up to 4096 and at the extremes of m and of the hash. The test is on the
/// *type*, not on [`IndexStrategy::id`], which any implementation can return: a strategy of the
/// user's own is never trusted. It folds to a constant in a monomorphic build.
#[inline(always)]
#[must_use]
pub(crate) fn is_builtin<S: IndexStrategy>() -> bool {
    use std::any::TypeId;
    let t = TypeId::of::<S>();
    [
        TypeId::of::<DoubleHashing>(),
        TypeId::of::<EnhancedDoubleHashing>(),
        TypeId::of::<EnhancedDouble64>(),
        TypeId::of::<RotateAdd64>(),
        TypeId::of::<Independent>(),
        TypeId::of::<Guava32>(),
        TypeId::of::<Guava64>(),
        TypeId::of::<Partitioned>(),
        TypeId::of::<AnyStrategy>(),
    ]
    .contains(&t)
}

/// Any strategy, chosen at run time.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct AnyStrategy(pub StrategyId);

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
    fn prehash<'a, H: ItemHasher>(&self, hasher: &H, item: &'a [u8]) -> Prehash<'a> {
        match self.0 {
            StrategyId::Independent => Independent.prehash(hasher, item),
            StrategyId::EnhancedDouble64 => EnhancedDouble64.prehash(hasher, item),
            StrategyId::RotateAdd64 => RotateAdd64.prehash(hasher, item),
            StrategyId::Double
            | StrategyId::EnhancedDouble
            | StrategyId::Guava32
            | StrategyId::Guava64
            | StrategyId::Partitioned => Prehash(Pre::Hash(hasher.hash128(item))),
        }
    }
    #[inline]
    fn for_each_index_of<H: ItemHasher, F: FnMut(u64) -> bool>(
        &self,
        hasher: &H,
        pre: Prehash<'_>,
        k: u32,
        m: u64,
        f: F,
    ) -> bool {
        match self.0 {
            StrategyId::Double => DoubleHashing.for_each_index_of(hasher, pre, k, m, f),
            StrategyId::EnhancedDouble => {
                EnhancedDoubleHashing.for_each_index_of(hasher, pre, k, m, f)
            }
            StrategyId::Independent => Independent.for_each_index_of(hasher, pre, k, m, f),
            StrategyId::EnhancedDouble64 => enhanced_double_64_looped(pre.hash(hasher).lo, k, m, f),
            StrategyId::RotateAdd64 => RotateAdd64.for_each_index_of(hasher, pre, k, m, f),
            StrategyId::Guava32 => Guava32.for_each_index_of(hasher, pre, k, m, f),
            StrategyId::Guava64 => Guava64.for_each_index_of(hasher, pre, k, m, f),
            StrategyId::Partitioned => partitioned_index_of(hasher, pre, k, m, f),
        }
    }
    #[inline]
    fn for_each_hashed<F: FnMut(u64) -> bool>(&self, h: Hash128, k: u32, m: u64, f: F) -> bool {
        match self.0 {
            StrategyId::Double => DoubleHashing.for_each_hashed(h, k, m, f),
            StrategyId::EnhancedDouble => EnhancedDoubleHashing.for_each_hashed(h, k, m, f),
            StrategyId::Independent => Independent.for_each_hashed(h, k, m, f),
            StrategyId::EnhancedDouble64 => enhanced_double_64_looped(h.lo, k, m, f),
            StrategyId::RotateAdd64 => RotateAdd64.for_each_hashed(h, k, m, f),
            StrategyId::Guava32 => Guava32.for_each_hashed(h, k, m, f),
            StrategyId::Guava64 => Guava64.for_each_hashed(h, k, m, f),
            StrategyId::Partitioned => partitioned_hashed(h, k, m, f),
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
            StrategyId::EnhancedDouble64 => {
                enhanced_double_64_looped(hash64_item(hasher, item).lo, k, m, f)
            }
            StrategyId::RotateAdd64 => RotateAdd64.for_each_index(hasher, item, k, m, f),
            StrategyId::Guava32 => Guava32.for_each_index(hasher, item, k, m, f),
            StrategyId::Guava64 => Guava64.for_each_index(hasher, item, k, m, f),
            StrategyId::Partitioned => partitioned_index(hasher, item, k, m, f),
        }
    }
}

// Partitioned's arms of the `AnyStrategy` dispatch, kept out of line: inlined, the eighth arm
// made LLVM stop inlining the dispatch into the registry's `_any` filters (+2% … +42%
// instructions in the gate's dynamic_path group, e.g. standard_any misses 96,508 → 137,184).
#[inline(never)]
fn partitioned_index_of<H: ItemHasher, F: FnMut(u64) -> bool>(
    hasher: &H,
    pre: Prehash<'_>,
    k: u32,
    m: u64,
    f: F,
) -> bool {
    Partitioned.for_each_index_of(hasher, pre, k, m, f)
}
#[inline(never)]
fn partitioned_hashed<F: FnMut(u64) -> bool>(h: Hash128, k: u32, m: u64, f: F) -> bool {
    Partitioned.for_each_hashed(h, k, m, f)
}
#[inline(never)]
fn partitioned_index<H: ItemHasher, F: FnMut(u64) -> bool>(
    hasher: &H,
    item: &[u8],
    k: u32,
    m: u64,
    f: F,
) -> bool {
    Partitioned.for_each_index(hasher, item, k, m, f)
}

/// An index strategy that can be rebuilt from the id in a file.
pub trait PersistStrategy: IndexStrategy {
    /// The strategy for `id`.
    ///
    /// # Errors
    /// [`Error::Mismatch`] when this type is a different strategy.
    fn from_id(id: StrategyId) -> Result<Self>;
}

macro_rules! persist_strategy {
    ($($t:ident),*) => {$(
        impl PersistStrategy for $t {
            fn from_id(id: StrategyId) -> Result<Self> {
                if id != $t.id() {
                    return Err(Error::Mismatch {
                        what: "strategy",
                        found: id.name().to_string(),
                        requested: $t.id().name().to_string(),
                    });
                }
                Ok($t)
            }
        }
    )*};
}
persist_strategy!(
    DoubleHashing,
    EnhancedDoubleHashing,
    EnhancedDouble64,
    Independent,
    Guava32,
    Guava64,
    RotateAdd64,
    Partitioned
);

impl PersistStrategy for AnyStrategy {
    fn from_id(id: StrategyId) -> Result<Self> {
        Ok(AnyStrategy(id))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::hash::{AnyHasher, HashId};

    const PINNED_A: [u64; 7] = [4_444, 53_572, 102_702, 151_836, 200_976, 250_123, 299_280];
    const PINNED_ZERO: [u64; 7] = [0, 0, 1, 4, 10, 20, 35];
    const PINNED_MAX: [u64; 7] = [
        9_585_057, 3_661_166, 7_322_333, 1_398_445, 5_059_618, 8_720_796, 2_796_922,
    ];

    fn indices<S: IndexStrategy, H: ItemHasher>(
        s: S,
        h: &H,
        item: &[u8],
        k: u32,
        m: u64,
    ) -> Vec<u64> {
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
    fn enhanced_double_hashing_survives_a_zero_step() {
        // A hasher whose second half is 0 (reduced step 0): enhanced double hashing still gives
        // k - 1 distinct positions thanks to the cubic term.
        #[derive(Debug, Clone, Copy)]
        struct ZeroStep;
        impl ItemHasher for ZeroStep {
            fn id(&self) -> HashId {
                HashId::Weak
            }
            fn hash128(&self, bytes: &[u8]) -> crate::hash::Hash128 {
                crate::hash::Hash128 {
                    lo: crate::hash::mix64(bytes.len() as u64),
                    hi: 0,
                }
            }
            fn hash64(&self, bytes: &[u8]) -> u64 {
                self.hash128(bytes).lo
            }
            fn hash64_seeded(&self, _: &[u8], seed: u64) -> u64 {
                seed
            }
        }
        for len in 0..50usize {
            let item = vec![0u8; len];
            let mut v = Vec::new();
            EnhancedDoubleHashing.for_each_index(&ZeroStep, &item, 7, 256, |i| {
                v.push(i);
                true
            });
            let mut d = v.clone();
            d.sort_unstable();
            d.dedup();
            assert_eq!(d.len(), 6, "{v:?}");
        }
        assert_eq!(add_mod(250, 10, 256), 4);
        assert_eq!(add_mod(u64::MAX - 1, u64::MAX - 1, u64::MAX), u64::MAX - 2);
    }

    /// A hasher returning a fixed 128-bit value.
    #[derive(Debug, Clone, Copy)]
    struct Fixed(u64, u64);
    impl ItemHasher for Fixed {
        fn id(&self) -> HashId {
            HashId::Weak
        }
        fn hash128(&self, _: &[u8]) -> crate::hash::Hash128 {
            crate::hash::Hash128 {
                lo: self.0,
                hi: self.1,
            }
        }
        fn hash64(&self, _: &[u8]) -> u64 {
            self.0
        }
        fn hash64_seeded(&self, _: &[u8], seed: u64) -> u64 {
            seed
        }
    }

    /// Enhanced double hashing as the paper states it, with the overflow-safe `add_mod` on
    /// every step: the reference the fast path must match position for position.
    fn enhanced_reference(lo: u64, hi: u64, k: u32, m: u64) -> Vec<u64> {
        let (mut x, mut y) = (reduce(lo, m), reduce(hi, m));
        let mut v = Vec::new();
        for i in 1..=u64::from(k) {
            v.push(x);
            x = add_mod(x, y, m);
            y = add_mod(y, i % m, m);
        }
        v
    }

    proptest::proptest! {
        #[test]
        fn enhanced_fast_path_equals_reference(
            lo: u64,
            hi: u64,
            k in 1u32..40,
            m in proptest::prop_oneof![
                1u64..100,
                100u64..1 << 40,
                (1u64 << 63) - 100..(1u64 << 63) + 100,
                u64::MAX - 100..=u64::MAX,
            ],
        ) {
            let got = indices(EnhancedDoubleHashing, &Fixed(lo, hi), b"", k, m);
            proptest::prop_assert_eq!(got, enhanced_reference(lo, hi, k, m));
        }
    }

    #[test]
    fn enhanced_fast_path_at_the_edges() {
        // The largest values the fast path sees: x, y = m - 1 with m = 2^63 (sums just below 2^64).
        for (lo, hi) in [(u64::MAX, u64::MAX), (0, u64::MAX), (u64::MAX, 0), (0, 0)] {
            for m in [1u64 << 63, (1 << 63) - 1, (1 << 63) + 1, 8, 7, 2] {
                assert_eq!(
                    indices(EnhancedDoubleHashing, &Fixed(lo, hi), b"", 9, m),
                    enhanced_reference(lo, hi, 9, m),
                    "lo={lo} hi={hi} m={m}"
                );
            }
        }
    }

    /// The positions of `enhanced-double-64` are a file format (strategy code 5): pinned as
    /// literals for fixed 64-bit hashes, so any change to the formulation fails here.
    #[test]
    fn enhanced_double_64_positions_are_pinned() {
        let cases: [(u64, u64, &[u64]); 3] = [
            (0x0123_4567_89ab_cdef, 1_000_003, &PINNED_A),
            (0, 256, &PINNED_ZERO),
            (u64::MAX, 9_585_058, &PINNED_MAX),
        ];
        for (h, m, want) in cases {
            let got = indices(EnhancedDouble64, &Fixed(h, 0xdead), b"", 7, m);
            assert_eq!(got, want, "h={h:#x} m={m}");
        }
    }

    /// `enhanced-double-64` in its one-loop form (what the registry's dispatch runs): the
    /// reference the peeled loop must match for every k and m.
    fn enhanced_double_64_reference(h: u64, k: u32, m: u64) -> Vec<u64> {
        let mut v = Vec::new();
        enhanced_double_64_looped(h, k, m, |j| {
            v.push(j);
            true
        });
        v
    }

    proptest::proptest! {
        #[test]
        fn enhanced_double_64_equals_reference(
            h: u64,
            k in 0u32..40,
            m in proptest::prop_oneof![1u64..100, 100u64..1 << 40, (1u64 << 63)..u64::MAX],
            stop in 0usize..40,
        ) {
            let want = enhanced_double_64_reference(h, k, m);
            proptest::prop_assert_eq!(
                indices(EnhancedDouble64, &Fixed(h, 0xdead), b"", k, m),
                want.clone()
            );
            // Stopping at the `stop`-th position: exactly the positions up to it are visited.
            let mut seen = Vec::new();
            let all = EnhancedDouble64.for_each_hashed(Hash128 { lo: h, hi: 0 }, k, m, |j| {
                seen.push(j);
                seen.len() <= stop
            });
            let visited = want.len().min(stop + 1);
            proptest::prop_assert_eq!(all, want.len() <= stop);
            proptest::prop_assert_eq!(&seen[..], &want[..visited]);
        }
    }

    #[test]
    fn enhanced_double_64_hashes_64_bits_on_every_path() {
        // Sip13's hash64 is SipHash-1-3 with 64-bit output, not a half of its 128-bit hash: the
        // strategy must see the same value whether reached directly, by id, or prehashed.
        let h = AnyHasher::new(HashId::Sip13, 3);
        for i in 0u64..200 {
            let item = i.to_le_bytes();
            let direct = indices(EnhancedDouble64, &h, &item, 7, 10_007);
            let any = indices(
                AnyStrategy(StrategyId::EnhancedDouble64),
                &h,
                &item,
                7,
                10_007,
            );
            let want: Vec<u64> = {
                let mut v = Vec::new();
                EnhancedDouble64.for_each_hashed(
                    Hash128 {
                        lo: h.hash64(&item),
                        hi: 0,
                    },
                    7,
                    10_007,
                    |j| {
                        v.push(j);
                        true
                    },
                );
                v
            };
            let mut pre = Vec::new();
            let p = AnyStrategy(StrategyId::EnhancedDouble64).prehash(&h, &item);
            EnhancedDouble64.for_each_index_of(&h, p, 7, 10_007, |j| {
                pre.push(j);
                true
            });
            assert_eq!(direct, want);
            assert_eq!(any, want);
            assert_eq!(pre, want);
        }
    }

    #[test]
    fn enhanced_double_64_positions_are_distinct_at_large_m() {
        // At m = 2^40 a repeated position among 7 has probability ~21/2^40 per item: over 20,000
        // items a repeat means the formulation collapses positions (e.g. a step not taken).
        let h = AnyHasher::new(HashId::Xxh3, 0);
        for i in 0u64..20_000 {
            let mut v = indices(EnhancedDouble64, &h, &i.to_le_bytes(), 7, 1 << 40);
            v.sort_unstable();
            v.dedup();
            assert_eq!(v.len(), 7, "item {i}");
        }
    }

    #[test]
    fn enhanced_double_64_survives_a_zero_step() {
        // h = 0 gives x = y = 0: only the cubic term moves the positions (k - 1 distinct).
        for m in [64u64, 256, 1000, 1 << 20] {
            let v = indices(EnhancedDouble64, &Fixed(0, 0), b"", 7, m);
            let mut d = v.clone();
            d.sort_unstable();
            d.dedup();
            assert_eq!(d.len(), 6, "m={m}: {v:?}");
        }
        // The cubic unit is 1 to 2 cells for every m.
        for m in [2u64, 3, 255, 256, 257, 1 << 40, (1 << 63) + 1, u64::MAX] {
            let u = 1u64.wrapping_shl(m.leading_zeros() + 1);
            let cells = u128::from(u) * u128::from(m);
            assert!((1 << 64..2 << 64).contains(&cells), "m={m}");
        }
    }

    /// The positions of `rotate-add-64` are a file format (strategy code 6). The expected values
    /// were computed outside Rust (Python, from the definition: `x₀ = h`, `y = h·φ mod 2⁶⁴`,
    /// `x ← rotl(x, 5) + y`, position `⌊x·m/2⁶⁴⌋`). By hand for h = 1, m = 1024: x₀ = 1 gives 0;
    /// x₁ = 32 + φ = 0x9E37_79B9_7F4A_7C35, whose top 10 bits 10_0111_1000 are 632.
    #[test]
    fn rotate_add_64_positions_are_pinned() {
        let cases: [(u64, u64, [u64; 7]); 4] = [
            (1, 1024, [0, 632, 404, 268, 1023, 622, 58]),
            (
                0x0123_4567_89ab_cdef,
                1_000_003,
                [4_444, 191_350, 172_336, 563_894, 93_687, 47_124, 557_096],
            ),
            (
                u64::MAX,
                9_585_058,
                [
                    9_585_057, 3_661_166, 5_797_794, 7_074_481, 3_168, 3_762_548, 9_042_026,
                ],
            ),
            (
                0x0123_4567_89ab_cdef,
                u64::MAX,
                [
                    81_985_529_216_486_894,
                    3_529_789_291_979_302_522,
                    3_179_045_258_132_092_928,
                    10_401_980_248_730_937_535,
                    1_728_226_989_669_793_964,
                    869_283_805_356_473_916,
                    10_276_590_054_749_335_611,
                ],
            ),
        ];
        for (h, m, want) in cases {
            assert_eq!(
                indices(RotateAdd64, &Fixed(h, 0xdead), b"", 7, m),
                want,
                "h={h:#x} m={m}"
            );
        }
        // The one documented collapse: h = 0 is position 0 k times.
        assert_eq!(indices(RotateAdd64, &Fixed(0, 1), b"", 7, 256), [0; 7]);
    }

    /// The positions of `partitioned` are a file format (strategy code 7). Expected values from
    /// Python, from the definition: `s = m // k`, `x = lo`, `y = hi | 1`, position
    /// `i·s + (x·s >> 64)`, `x += y mod 2⁶⁴`.
    #[test]
    fn partitioned_positions_are_pinned_one_per_slice() {
        let p = |lo, hi, k, m| indices(Partitioned, &Fixed(lo, hi), b"", k, m);
        assert_eq!(
            p(0x0123_4567_89ab_cdef, 0xdead, 7, 1_000_003),
            [634, 143_491, 286_348, 429_205, 572_062, 714_919, 857_776]
        );
        assert_eq!(
            p(u64::MAX, u64::MAX, 7, 9_585_058),
            [
                1_369_293, 2_738_587, 4_107_881, 5_477_175, 6_846_469, 8_215_763, 9_585_057
            ]
        );
        assert_eq!(p(1, 0, 3, 10), [0, 3, 6]);
        // More hashes than bits: empty slices, every position 0.
        assert_eq!(p(99, 5, 4, 3), [0; 4]);
        let h = AnyHasher::new(HashId::Xxh3, 5);
        for (k, m) in [(7u32, 1_000u64), (1, 64), (16, 4_099), (3, 3)] {
            let s = m / u64::from(k);
            for i in 0u64..2_000 {
                let v = indices(Partitioned, &h, &i.to_le_bytes(), k, m);
                for (j, x) in v.iter().enumerate() {
                    assert!(
                        (j as u64 * s..(j as u64 + 1) * s).contains(x),
                        "k={k} m={m} {v:?}"
                    );
                }
            }
        }
    }

    #[test]
    fn rotate_add_64_indices_in_range_at_every_m() {
        let h = AnyHasher::new(HashId::Xxh3, 5);
        let ms: Vec<u64> = [1, 2, 3, 63, 64, 65, 1000]
            .into_iter()
            .chain(LARGE_MS)
            .collect();
        for &m in &ms {
            for i in 0u64..2_000 {
                let v = indices(RotateAdd64, &h, &i.to_le_bytes(), 13, m);
                assert_eq!(v.len(), 13);
                assert!(v.iter().all(|&j| j < m), "m={m} item {i}: {v:?}");
            }
        }
        // The extreme hashes too (x = 2^64 - 1 is where multiply-shift gives m - 1).
        for &m in &ms {
            for hv in [0, 1, u64::MAX, u64::MAX - 1, 1 << 63] {
                let v = indices(RotateAdd64, &Fixed(hv, 0), b"", 40, m);
                assert!(v.iter().all(|&j| j < m), "m={m} h={hv:#x}: {v:?}");
            }
        }
    }

    /// Table sizes at the top of the range and around the powers of two where multiply-shift
    /// and the mod-m sums could overflow.
    const LARGE_MS: [u64; 7] = [
        95_851,
        (1 << 32) + 1,
        (1 << 63) - 1,
        1 << 63,
        (1 << 63) + 1,
        u64::MAX - 1,
        u64::MAX,
    ];

    /// Every strategy the standard filter's insert trusts to stay in range (`is_builtin`, whose
    /// bit array it then indexes unchecked): every position below m, for every m up to 4096 and
    /// the large ones, at the extremes of the hash, through `AnyStrategy`, which runs each
    /// concrete strategy's code. (A user's strategy is not trusted: `filters/standard.rs`.)
    #[test]
    fn unchecked_strategies_stay_below_m() {
        let h = AnyHasher::new(HashId::Xxh3, 9);
        let ms = (1u64..=4096).chain(LARGE_MS);
        let extremes = [0, 1, u64::MAX, u64::MAX - 1, 1 << 63];
        for m in ms {
            for id in StrategyId::ALL {
                let mut all = Vec::new();
                for i in 0u64..20 {
                    all.extend(indices(AnyStrategy(id), &h, &i.to_le_bytes(), 17, m));
                }
                for lo in extremes {
                    for hi in extremes {
                        all.extend(indices(AnyStrategy(id), &Fixed(lo, hi), b"", 17, m));
                    }
                }
                assert_eq!(all.len(), 17 * (20 + 25));
                assert!(all.iter().all(|&j| j < m), "{id} m={m}");
            }
        }
        // The concrete types are trusted as well as `AnyStrategy`.
        assert!(is_builtin::<AnyStrategy>() && is_builtin::<RotateAdd64>());
        assert!(is_builtin::<Guava64>() && is_builtin::<DoubleHashing>());
    }

    #[test]
    fn rotate_add_64_is_deterministic_on_every_path() {
        // Same positions twice, by type, by id and prehashed; from the 64-bit hash, not a half
        // of the 128-bit one (Sip13's hash64 is SipHash-1-3-64).
        let h = AnyHasher::new(HashId::Sip13, 3);
        let any = AnyStrategy(StrategyId::RotateAdd64);
        for i in 0u64..200 {
            let item = i.to_le_bytes();
            let want = indices(RotateAdd64, &Fixed(h.hash64(&item), 0), b"", 7, 10_007);
            assert_eq!(indices(RotateAdd64, &h, &item, 7, 10_007), want);
            assert_eq!(indices(RotateAdd64, &h, &item, 7, 10_007), want);
            assert_eq!(indices(any, &h, &item, 7, 10_007), want);
            let mut pre = Vec::new();
            any.for_each_index_of(&h, any.prehash(&h, &item), 7, 10_007, |j| {
                pre.push(j);
                true
            });
            assert_eq!(pre, want);
        }
    }

    #[test]
    fn rotate_add_64_positions_are_distinct_at_large_m() {
        // As for enhanced-double-64: a repeat among 7 positions in 2^40 bits over 20,000 items
        // would mean the recurrence collapses.
        let h = AnyHasher::new(HashId::Foldhash, 0);
        for i in 0u64..20_000 {
            let mut v = indices(RotateAdd64, &h, &i.to_le_bytes(), 7, 1 << 40);
            v.sort_unstable();
            v.dedup();
            assert_eq!(v.len(), 7, "item {i}");
        }
    }

    #[test]
    fn enhanced_differs_from_plain_double() {
        let h = AnyHasher::new(HashId::Xxh3, 0);
        let a = indices(DoubleHashing, &h, b"x", 7, 256);
        let b = indices(EnhancedDoubleHashing, &h, b"x", 7, 256);
        assert_eq!(a[0], b[0]);
        assert_ne!(a, b);
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
    fn word_rounding_never_overflows() {
        assert_eq!(Guava64.round_bits(1), 64);
        assert_eq!(Guava32.round_bits(128), 128);
        for m in [u64::MAX, u64::MAX - 60, u64::MAX - 63] {
            assert_eq!(Guava64.round_bits(m), u64::MAX - 63, "{m}");
            assert_eq!(
                AnyStrategy(StrategyId::Guava32).round_bits(m),
                u64::MAX - 63
            );
        }
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
