//! The standard Bloom filter (Bloom 1970).

use crate::bits::BitVec;
use crate::error::{Error, Param, Result};
use crate::filter::{Filter, FilterKind};
use crate::filters::count::InsertCount;
use crate::hash::is_builtin;
use crate::hash::{
    EnhancedDoubleHashing, HashId, IndexStrategy, ItemHasher, Prehash, Sip24, StrategyId, Xxh3,
};
use crate::theory;
use crate::theory::estimate;
use std::num::NonZeroU32;

mod bulk;

/// The model rate of a standard filter of m bits, n items and k positions laid out by
/// `strategy`: the partitioned layout's slices have their own rate
/// ([`theory::fpr_partitioned`]), every other strategy spreads over all m bits
/// ([`theory::fpr_classic`]). One home for both the built filter and `FilterSpec::plan`.
pub fn model_fpr(strategy: StrategyId, m: u64, n: u64, k: u32) -> f64 {
    if strategy == StrategyId::Partitioned {
        theory::fpr_partitioned(m, n, k)
    } else {
        theory::fpr_classic(m, n, k)
    }
}

/// A Bloom filter: m bits, k positions per item derived from one hash by strategy `S`.
///
/// Generic over the hash function `H` (default [`Xxh3`]) and the index strategy `S` (default
/// [`EnhancedDoubleHashing`]), like `HashMap<K, V, S>`: the compiler inlines both, so there is no
/// dynamic dispatch and no allocation per operation.
///
/// Facing untrusted input (items an adversary chooses), build it with
/// [`StandardBloom::keyed`]: SipHash-2-4 under a secret key, so nobody can compute where an item
/// lands. With a public, unkeyed hash an attacker can pollute the filter or search for false
/// positives offline (`experiments/programs/adversarial.rs` measures both). Save and load with
/// [`StandardBloom::save`] / [`StandardBloom::load`] ([`crate::persist`]).
///
/// ```
/// use bloomlab::{Filter, StandardBloom};
/// let mut f = StandardBloom::with_rate(1_000_000, 0.01).unwrap();
/// assert_eq!((f.bits(), f.k()), (9_585_058, 7));        // Guava's sizing
/// assert!((f.bits() as f64 / 1e6 - 9.585).abs() < 1e-3); // 9.585 bits per key
/// f.insert(b"apple");
/// assert!(f.contains(b"apple"));
/// ```
#[derive(Debug, Clone)]
pub struct StandardBloom<H = Xxh3, S = EnhancedDoubleHashing> {
    bits: BitVec,
    /// Nonzero, so that the compiler knows the index loop runs at least once (2 instructions
    /// per operation less: no test for k = 0 before the first position).
    k: NonZeroU32,
    len: InsertCount,
    hasher: H,
    strategy: S,
}

/// `k` checked ([`theory::check_k`]) and held as nonzero.
fn nonzero_k(k: u32) -> Result<NonZeroU32> {
    theory::check_k(k)?;
    NonZeroU32::new(k).ok_or_else(|| Error::invalid(Param::K, k, "an integer from 1"))
}

impl StandardBloom<Xxh3, EnhancedDoubleHashing> {
    /// A filter for `n` items at false-positive rate `p`, with the default hash and strategy,
    /// sized as Guava and Redisson size it: `m = ⌊−n·ln p/(ln 2)²⌋`, `k = max(1, round(m/n·ln 2))`.
    ///
    /// # Errors
    /// Invalid `n` or `p`; [`Error::Allocation`] when m bits cannot be allocated.
    pub fn with_rate(n: u64, p: f64) -> Result<Self> {
        Self::with_rate_and(n, p, Xxh3::default(), EnhancedDoubleHashing)
    }

    /// A filter of `m` bits and `k` hash functions, with the default hash and strategy.
    ///
    /// # Errors
    /// Invalid `m` or `k`; [`Error::Allocation`].
    pub fn with_bits(m: u64, k: u32) -> Result<Self> {
        Self::with_bits_and(m, k, Xxh3::default(), EnhancedDoubleHashing)
    }
}

impl StandardBloom<Sip24, EnhancedDoubleHashing> {
    /// A filter for `n` items at rate `p` hashed with **SipHash-2-4 under a secret 128-bit
    /// key**: the choice for filters that face adversarial input. Without the key nobody can
    /// compute an item's bit positions, so nobody can pick items that pollute the filter or
    /// search for false positives offline (Gerbet, Kumar & Lauradoux 2015, "The Power of Evil
    /// Choices in Bloom Filters", DSN; measured in `experiments/programs/adversarial.rs`). Take the key from
    /// a CSPRNG and keep it secret; [`crate::persist`] withholds it from saved files by default.
    /// Costs about one SipHash per operation more than the default xxh3.
    ///
    /// ```
    /// use bloomlab::{Filter, StandardBloom};
    /// let key: [u8; 16] = *b"a secret 16B key"; // in real use: 16 bytes from a CSPRNG
    /// let mut f = StandardBloom::keyed(10_000, 0.01, key).unwrap();
    /// assert_eq!((f.bits(), f.k()), (95_850, 7));   // same sizing as with_rate
    /// f.insert(b"apple");
    /// assert!(f.contains(b"apple"));
    /// // Another key places the same item elsewhere:
    /// let g = StandardBloom::keyed(10_000, 0.01, *b"another key 16 B").unwrap();
    /// assert_ne!(f.positions(b"apple"), g.positions(b"apple"));
    /// ```
    ///
    /// # Errors
    /// Invalid `n` or `p`; [`Error::Allocation`].
    pub fn keyed(n: u64, p: f64, key: [u8; 16]) -> Result<Self> {
        Self::with_rate_and(n, p, Sip24::with_key(&key), EnhancedDoubleHashing)
    }
}

impl<H: ItemHasher, S: IndexStrategy> StandardBloom<H, S> {
    /// A filter for `n` items at rate `p` with the given hash and strategy.
    ///
    /// # Errors
    /// Invalid `n` or `p`; [`Error::Allocation`].
    pub fn with_rate_and(n: u64, p: f64, hasher: H, strategy: S) -> Result<Self> {
        let s = theory::size_for(n, p)?;
        Self::with_bits_and(s.m, s.k, hasher, strategy)
    }

    /// A filter of `m` bits (rounded up to whole 64-bit words for the Guava strategies, as Guava
    /// does) and `k` hash functions.
    ///
    /// # Errors
    /// Invalid `m` or `k`; [`Error::Allocation`].
    pub fn with_bits_and(m: u64, k: u32, hasher: H, strategy: S) -> Result<Self> {
        theory::check_m(m)?;
        let k = nonzero_k(k)?;
        let bits = BitVec::new(strategy.round_bits(m))?;
        Ok(Self {
            bits,
            k,
            len: InsertCount::default(),
            hasher,
            strategy,
        })
    }

    /// Rebuild from a bit array (used by loaders).
    ///
    /// # Errors
    /// Invalid `k`.
    pub fn from_bits(bits: BitVec, k: u32, len: u64, hasher: H, strategy: S) -> Result<Self> {
        let k = nonzero_k(k)?;
        theory::check_m(bits.len())?;
        Ok(Self {
            bits,
            k,
            len: InsertCount::new(len),
            hasher,
            strategy,
        })
    }

    // ANCHOR: insert_query
    /// Insert `item`; returns true if at least one bit changed (the item was certainly new).
    #[inline]
    pub fn insert_new(&mut self, item: &[u8]) -> bool {
        // Counted first, so the filter is not needed after the index loop (one callee-saved
        // register fewer: 4 instructions per insert less in the CI gate); one `inc`, saturating
        // when read ([`InsertCount`]).
        self.len.inc();
        let m = self.bits.len();
        let bits = &mut self.bits;
        let mut changed = false;
        // Two calls rather than one with the test inside the closure: that form (tried) cost the
        // registry's standard insert 229 -> 281 instructions in the CI gate, the index loop no
        // longer inlined into `AnyFilter::insert_many`.
        if is_builtin::<S>() {
            self.strategy
                .for_each_index(&self.hasher, item, self.k.get(), m, |i| {
                    // SAFETY: a built-in strategy hands out only positions below m, the bit
                    // count (`is_builtin`, tested for every strategy), and i < m fits the
                    // ⌈m/64⌉ words. 12 instructions a position instead of 14 (the CI gate).
                    #[allow(unsafe_code)]
                    let was_clear = unsafe { bits.set_unchecked(i) };
                    changed |= was_clear;
                    true
                });
            return changed;
        }
        self.strategy
            .for_each_index(&self.hasher, item, self.k.get(), m, |i| {
                changed |= bits.set(i);
                true
            });
        changed
    }

    /// Whether `item` may have been inserted. Bounds-checked even for the built-in strategies:
    /// unchecked, hits took 14% fewer instructions but 7% more time (results/bench/instructions.md).
    #[inline]
    #[must_use]
    pub fn contains_item(&self, item: &[u8]) -> bool {
        let bits = &self.bits;
        // The answer comes from a flag set on the clear probe, not from `for_each_index`'s
        // return value: returned directly, the compiler merged "all set" and "a probe clear" into
        // `masked word != 0`, which kept the masked word alive and tested each bit with
        // `mov $1; shl; and` instead of one `bt` (results/bench/standard-dram.md). Gate, registry
        // path: hits 253,536 -> 234,536 instructions, misses 101,589 -> 96,508; issue 44's harness
        // at 10^8: hits 1.25 -> 1.10 of fastbloom, misses 1.13 -> 1.03.
        let mut clear = false;
        self.strategy
            .for_each_index(&self.hasher, item, self.k.get(), bits.len(), |i| {
                if bits.get(i) {
                    true
                } else {
                    clear = true;
                    false
                }
            });
        !clear
    }
    // ANCHOR_END: insert_query

    /// Whether the item `pre` was made from (by this filter's strategy and hasher) may have been
    /// inserted: [`StandardBloom::contains_item`] without hashing again.
    #[inline]
    #[must_use]
    pub fn contains_prehashed(&self, pre: Prehash<'_>) -> bool {
        let bits = &self.bits;
        self.strategy
            .for_each_index_of(&self.hasher, pre, self.k.get(), bits.len(), |i| bits.get(i))
    }

    /// The bit array and the insert count, for a filter made of several standard ones that
    /// computes positions itself (the scalable filter's layers).
    #[inline]
    pub(crate) fn bits_and_len_mut(&mut self) -> (&mut BitVec, &mut InsertCount) {
        (&mut self.bits, &mut self.len)
    }

    /// The k bit positions of `item` (for teaching and debugging).
    #[must_use]
    pub fn positions(&self, item: &[u8]) -> Vec<u64> {
        let mut v = Vec::with_capacity(self.k.get() as usize);
        self.strategy
            .for_each_index(&self.hasher, item, self.k.get(), self.bits.len(), |i| {
                v.push(i);
                true
            });
        v
    }

    /// The bit array.
    #[must_use]
    pub fn bit_vec(&self) -> &BitVec {
        &self.bits
    }

    /// The bit array, taking the filter apart.
    #[must_use]
    pub fn into_bit_vec(self) -> BitVec {
        self.bits
    }

    /// The hasher.
    #[must_use]
    pub fn hasher(&self) -> &H {
        &self.hasher
    }

    /// The strategy.
    #[must_use]
    pub fn strategy(&self) -> S {
        self.strategy
    }

    /// Number of bits set.
    #[must_use]
    pub fn ones(&self) -> u64 {
        self.bits.count_ones()
    }

    /// Estimated number of distinct items from the set bits (Swamidass & Baldi 2007, as
    /// Redisson's `count()`): see [`theory::estimate_count`].
    ///
    /// ```
    /// use bloomlab::{Filter, StandardBloom};
    /// let mut f = StandardBloom::with_rate(10_000, 0.01).unwrap();
    /// for i in 0u64..5_000 { f.insert(&i.to_le_bytes()); f.insert(&i.to_le_bytes()); }
    /// assert_eq!(f.len(), 10_000);                        // inserts counted
    /// let est = f.estimated_count();                      // distinct items estimated
    /// assert!((est - 5_000.0).abs() < 100.0, "{est}");
    /// ```
    #[must_use]
    pub fn estimated_count(&self) -> f64 {
        theory::estimate_count(self.bits.len(), self.k.get(), self.ones())
    }

    /// OR another filter with identical parameters (m, k, hash, strategy) into this one: the
    /// result answers as if it had received both filters' items.
    ///
    /// # Errors
    /// [`Error::Incompatible`] when the parameters differ.
    pub fn union_with(&mut self, other: &Self) -> Result<()>
    where
        H: PartialEq,
    {
        self.check_compatible(other)?;
        self.bits.union_with(&other.bits)?;
        self.len = InsertCount::new(self.len.get().saturating_add(other.len.get()));
        Ok(())
    }

    /// Refuse another filter unless m, k, the hash function (with its seed) and the strategy
    /// are the same: only then do the same items set the same bits in both.
    ///
    /// # Errors
    /// [`Error::Incompatible`].
    pub fn check_compatible(&self, other: &Self) -> Result<()>
    where
        H: PartialEq,
    {
        if self.bits.len() != other.bits.len() {
            return Err(Error::Incompatible(format!(
                "bit lengths differ: {} vs {}",
                self.bits.len(),
                other.bits.len()
            )));
        }
        if self.k != other.k
            || self.hasher != other.hasher
            || self.strategy.id() != other.strategy.id()
        {
            return Err(Error::Incompatible(
                "k, hash function or strategy differ".to_string(),
            ));
        }
        Ok(())
    }

    /// AND another filter with identical parameters into this one. The result answers yes for
    /// every item of the intersection (no false negatives) and is never fuller than either
    /// filter, but it is **not** the filter of the intersection: a bit set in A by one item and
    /// in B by another stays set, so its count estimate is too high (use
    /// [`StandardBloom::estimate_intersection`]). `len` becomes the smaller of the two counts.
    ///
    /// # Errors
    /// [`Error::Incompatible`] when the parameters differ.
    pub fn intersect_with(&mut self, other: &Self) -> Result<()>
    where
        H: PartialEq,
    {
        self.check_compatible(other)?;
        self.bits.intersect_with(&other.bits)?;
        self.len = InsertCount::new(self.len.get().min(other.len.get()));
        Ok(())
    }

    /// The geometry the estimators need ([`estimate::Shape::standard`]).
    #[must_use]
    pub fn shape(&self) -> estimate::Shape {
        estimate::Shape::standard(self.bits.len(), self.k.get())
    }

    /// Estimated distinct items with a standard error ([`estimate::count`]; the value is
    /// [`StandardBloom::estimated_count`]'s).
    #[must_use]
    pub fn estimate(&self) -> estimate::Estimate {
        estimate::count(&self.shape(), self.ones())
    }

    /// Estimated size of the union of the two filters' sets, from their OR
    /// ([`estimate::union`]).
    ///
    /// # Errors
    /// [`Error::Incompatible`] when the parameters differ.
    pub fn estimate_union(&self, other: &Self) -> Result<estimate::Estimate>
    where
        H: PartialEq,
    {
        self.check_compatible(other)?;
        Ok(estimate::union(
            &self.shape(),
            self.bits.count_ones_or(&other.bits)?,
        ))
    }

    /// Estimated size of the intersection of the two filters' sets by inclusion–exclusion
    /// ([`estimate::intersection`]).
    ///
    /// ```
    /// use bloomlab::{Filter, StandardBloom};
    /// let mut a = StandardBloom::with_rate(10_000, 0.01).unwrap();
    /// let mut b = StandardBloom::with_rate(10_000, 0.01).unwrap();
    /// for i in 0u64..3_000 { a.insert(&i.to_le_bytes()); }
    /// for i in 2_000u64..5_000 { b.insert(&i.to_le_bytes()); }   // 1,000 in common
    /// let e = a.estimate_intersection(&b).unwrap();
    /// assert!((e.value - 1_000.0).abs() < 4.0 * e.std_err, "{e:?}");
    /// assert!(e.std_err > 5.0 && e.std_err < 40.0, "{e:?}");
    /// ```
    ///
    /// # Errors
    /// [`Error::Incompatible`] when the parameters differ.
    pub fn estimate_intersection(&self, other: &Self) -> Result<estimate::Estimate>
    where
        H: PartialEq,
    {
        self.check_compatible(other)?;
        Ok(estimate::intersection(
            &self.shape(),
            self.ones(),
            other.ones(),
            self.bits.count_ones_or(&other.bits)?,
        ))
    }

    /// The filter folded to half its bits: what a filter of m/2 bits with the same k, hash and
    /// strategy would hold after the same inserts, bit for bit — so it answers for every item
    /// inserted, at the higher FPR of m/2 bits, and can be united with filters of m/2 bits.
    /// (Folding by OR-ing the two halves is how Swamidass & Baldi 2007 compress fingerprints.)
    ///
    /// That works only when an item's positions in m/2 bits are a fixed function of its
    /// positions in m bits, which depends on the strategy's reduction to `[0, m)`:
    /// - `double`, `independent`, `rotate-add-64` reduce an m-independent 64-bit value by
    ///   multiply-shift, and
    ///   `⌊x·(m/2)/2⁶⁴⌋ = ⌊⌊x·m/2⁶⁴⌋/2⌋`: bits 2j and 2j+1 fold into j (m even);
    /// - `guava32`, `guava64` reduce an m-independent value `% m`, and `(x mod m) mod m/2 =
    ///   x mod m/2`: bits j and j + m/2 fold into j (m/2 must still be whole 64-bit words, so m
    ///   a multiple of 128);
    /// - `enhanced-double` reduces h1 and h2 to `[0, m)` first and adds modulo m,
    ///   `enhanced-double-64` steps by a unit that depends on ⌊log₂ m⌋ and `partitioned`'s
    ///   slices are ⌊m/k⌋ bits wide: their positions in m/2 bits are not a function of those in
    ///   m bits, and they do not fold.
    ///
    /// ```
    /// use bloomlab::{Filter, StandardBloom};
    /// use bloomlab::hash::{DoubleHashing, Xxh3};
    /// let mut f = StandardBloom::with_bits_and(20_000, 5, Xxh3::default(), DoubleHashing).unwrap();
    /// let mut g = StandardBloom::with_bits_and(10_000, 5, Xxh3::default(), DoubleHashing).unwrap();
    /// for i in 0u64..1_000 { f.insert(&i.to_le_bytes()); g.insert(&i.to_le_bytes()); }
    /// let h = f.fold().unwrap();
    /// assert_eq!(h.bit_vec(), g.bit_vec());                      // the same bits
    /// assert!(StandardBloom::with_rate(100, 0.01).unwrap().fold().is_err()); // enhanced-double
    /// ```
    ///
    /// # Errors
    /// [`Error::InvalidParameter`] for a strategy that does not fold or an m it cannot halve.
    pub fn fold(&self) -> Result<Self> {
        let m = self.bits.len();
        let pairs = match self.strategy.id() {
            StrategyId::Double | StrategyId::Independent | StrategyId::RotateAdd64 => true,
            StrategyId::Guava32 | StrategyId::Guava64 => false,
            id => {
                return Err(Error::invalid(
                    Param::Other("strategy"),
                    id.name(),
                    "a strategy whose positions fold: double, independent, rotate-add-64, guava32 or guava64",
                ));
            }
        };
        let half = m / 2;
        if !m.is_multiple_of(2) || half == 0 || self.strategy.round_bits(half) != half {
            return Err(Error::invalid(
                Param::M,
                m,
                "an even bit count of at least 2 (a multiple of 128 for the guava strategies)",
            ));
        }
        let mut bits = BitVec::new(half)?;
        for j in 0..half {
            let (a, b) = if pairs {
                (2 * j, 2 * j + 1)
            } else {
                (j, j + half)
            };
            if self.bits.get(a) || self.bits.get(b) {
                bits.set(j);
            }
        }
        Self::from_bits(
            bits,
            self.k.get(),
            self.len.get(),
            self.hasher.clone(),
            self.strategy,
        )
    }
}

impl<H: ItemHasher, S: IndexStrategy> Filter for StandardBloom<H, S> {
    #[inline]
    fn try_insert(&mut self, item: &[u8]) -> Result<()> {
        self.insert_new(item);
        Ok(())
    }
    #[inline]
    fn insert(&mut self, item: &[u8]) {
        self.insert_new(item);
    }
    #[inline]
    fn contains(&self, item: &[u8]) -> bool {
        self.contains_item(item)
    }
    /// Pipelined and prefetched in tables of 1 MiB and more, one item at a time below
    /// (`standard/bulk.rs`, [`StandardBloom::contains_batch_at`]).
    fn contains_batch(&self, items: &[&[u8]], out: &mut [bool]) {
        self.contains_batch_at(items, out, crate::filters::bulk::Depth::K_POSITIONS);
    }
    fn len(&self) -> u64 {
        self.len.get()
    }
    fn bits(&self) -> u64 {
        self.bits.len()
    }
    fn bytes(&self) -> usize {
        self.bits.heap_bytes()
    }
    fn k(&self) -> u32 {
        self.k.get()
    }
    fn expected_fpr(&self) -> f64 {
        model_fpr(
            self.strategy.id(),
            self.bits.len(),
            self.len.get(),
            self.k.get(),
        )
    }
    fn kind(&self) -> FilterKind {
        FilterKind::Standard
    }
    fn hash_id(&self) -> HashId {
        self.hasher.id()
    }
    fn strategy_id(&self) -> Option<StrategyId> {
        Some(self.strategy.id())
    }
    fn details(&self) -> Vec<(String, String)> {
        vec![
            ("bits set".into(), self.ones().to_string()),
            (
                "fill".into(),
                format!("{:.4}", self.ones() as f64 / self.bits.len() as f64),
            ),
            (
                "estimated count".into(),
                match self.estimated_count() {
                    c if c.is_finite() => format!("{c:.0}"),
                    // ln(0 zeros) diverges: no count follows from a saturated filter.
                    _ => "none: every bit is set (the filter is saturated)".into(),
                },
            ),
        ]
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::hash::{AnyHasher, AnyStrategy, RotateAdd64};

    /// A strategy of the user's own that computes rotate-add-64's positions: `is_builtin` does
    /// not trust it, so its inserts take the bounds-checked path, and must give the same filter.
    #[derive(Debug, Clone, Copy, Default)]
    struct Mine;
    impl IndexStrategy for Mine {
        fn id(&self) -> StrategyId {
            StrategyId::RotateAdd64
        }
        fn hash_item<H: ItemHasher>(&self, hasher: &H, item: &[u8]) -> crate::hash::Hash128 {
            RotateAdd64.hash_item(hasher, item)
        }
        fn for_each_hashed<F: FnMut(u64) -> bool>(
            &self,
            h: crate::hash::Hash128,
            k: u32,
            m: u64,
            f: F,
        ) -> bool {
            RotateAdd64.for_each_hashed(h, k, m, f)
        }
    }

    /// The unchecked path (built-in strategies, by type and through `AnyStrategy`) sets and
    /// reads exactly the bits the checked one does, and a strategy of one's own is not trusted.
    #[test]
    fn unchecked_path_equals_the_checked_one() {
        assert!(is_builtin::<RotateAdd64>() && is_builtin::<AnyStrategy>());
        assert!(
            !is_builtin::<Mine>(),
            "a user's strategy claiming a trusted id"
        );
        for m in [1u64, 63, 64, 65, 1000, 9_587] {
            let h = AnyHasher::new(HashId::Foldhash, 3);
            let mut fast =
                StandardBloom::from_bits(BitVec::new(m).unwrap(), 7, 0, h, RotateAdd64).unwrap();
            let mut any = StandardBloom::from_bits(
                BitVec::new(m).unwrap(),
                7,
                0,
                h,
                AnyStrategy(StrategyId::RotateAdd64),
            )
            .unwrap();
            let mut slow =
                StandardBloom::from_bits(BitVec::new(m).unwrap(), 7, 0, h, Mine).unwrap();
            for i in 0u64..(m / 10).max(3) {
                let key = i.to_le_bytes();
                let n = slow.insert_new(&key);
                assert_eq!(fast.insert_new(&key), n, "m={m} item {i}");
                assert_eq!(any.insert_new(&key), n, "m={m} item {i}");
            }
            assert_eq!(fast.bit_vec(), slow.bit_vec(), "m={m}");
            assert_eq!(any.bit_vec(), slow.bit_vec(), "m={m}");
            for i in 0u64..3_000 {
                let key = (i ^ 0x5555).to_le_bytes();
                let want = slow.contains_item(&key);
                assert_eq!(fast.contains_item(&key), want, "m={m} query {i}");
                assert_eq!(any.contains_item(&key), want, "m={m} query {i}");
            }
        }
    }

    #[test]
    fn no_false_negatives_every_hash_and_strategy() {
        for h in HashId::ALL {
            for s in StrategyId::ALL {
                let mut f =
                    StandardBloom::with_rate_and(2_000, 0.01, AnyHasher::new(h, 7), AnyStrategy(s))
                        .unwrap();
                for i in 0u64..2_000 {
                    f.insert(&i.to_le_bytes());
                }
                assert!(
                    (0u64..2_000).all(|i| f.contains(&i.to_le_bytes())),
                    "{h}/{s}"
                );
            }
        }
    }

    #[test]
    fn contains_batch_answers_as_contains() {
        // Every strategy, small and large k, an odd batch length, a fill that gives both
        // answers often.
        for s in StrategyId::ALL {
            for k in [1u32, 7, 16, 19] {
                let mut f = StandardBloom::with_bits_and(
                    4_000,
                    k,
                    AnyHasher::new(HashId::Xxh3, 1),
                    AnyStrategy(s),
                )
                .unwrap();
                for i in 0u64..300 {
                    f.insert(&i.to_le_bytes());
                }
                let keys: Vec<[u8; 8]> = (0u64..1_001).map(|i| (i * 7).to_le_bytes()).collect();
                let items: Vec<&[u8]> = keys.iter().map(|k| &k[..]).collect();
                let mut out = vec![false; items.len()];
                f.contains_batch(&items, &mut out);
                let want: Vec<bool> = items.iter().map(|it| f.contains(it)).collect();
                assert_eq!(out, want, "{s} k={k}");
                let (yes, no) = (want.iter().filter(|&&b| b).count(), want.len());
                assert!(yes >= 43 && yes < no, "{s} k={k}: {yes} of {no} positive");
                // A shorter output slice answers only that many items.
                let mut short = vec![true; 10];
                f.contains_batch(&items, &mut short);
                assert_eq!(short, want[..10]);
            }
        }
    }

    #[test]
    fn guava_strategies_round_bits_to_words() {
        let f = StandardBloom::with_rate_and(
            1_000_000,
            0.01,
            AnyHasher::new(HashId::Murmur3, 0),
            AnyStrategy(StrategyId::Guava64),
        )
        .unwrap();
        assert_eq!(f.bits(), 9_585_088);
        let g = StandardBloom::with_rate(1_000_000, 0.01).unwrap();
        assert_eq!(g.bits(), 9_585_058);
    }

    #[test]
    fn union_answers_for_both() {
        let mut a = StandardBloom::with_bits(10_000, 5).unwrap();
        let mut b = StandardBloom::with_bits(10_000, 5).unwrap();
        a.insert(b"a");
        b.insert(b"b");
        a.union_with(&b).unwrap();
        assert!(a.contains(b"a") && a.contains(b"b"));
        let c = StandardBloom::with_bits(10_000, 6).unwrap();
        assert!(a.union_with(&c).is_err());
        let d = StandardBloom::with_bits(10_001, 5).unwrap();
        assert!(a.union_with(&d).is_err());
    }

    #[test]
    fn constructors_refuse_bad_parameters() {
        assert!(StandardBloom::with_bits(0, 3).is_err());
        assert!(StandardBloom::with_bits(100, 0).is_err());
        assert!(StandardBloom::with_bits(100, 1000).is_err());
        assert!(matches!(
            StandardBloom::with_bits(u64::MAX, 3),
            Err(Error::Allocation { .. })
        ));
        assert!(StandardBloom::with_rate(0, 0.01).is_err());
        assert!(StandardBloom::with_rate(10, f64::NAN).is_err());
    }
}
