//! The counting Bloom filter (Fan, Cao, Almeida & Broder 2000, "Summary Cache").

use crate::bits::Counters4;
use crate::error::{Error, Result};
use crate::filter::{Filter, FilterKind, Removable};
use crate::filters::batch::Probe;
use crate::filters::bulk::{self, At, Depth};
use crate::hash::{
    EnhancedDoubleHashing, Hash128, HashId, IndexStrategy, ItemHasher, StrategyId, Xxh3,
};
use crate::theory;

/// A counting Bloom filter: m 4-bit counters (two per byte), k positions per item derived from one
/// hash by strategy `S`, exactly as [`crate::StandardBloom`] derives its bit positions.
///
/// Insert increments the item's k counters, [`Removable::remove`] decrements them, a query asks
/// whether all k are non-zero. A counter that reaches 15 **saturates**: it stays at 15 forever
/// (it is neither incremented nor decremented again), because after an overflow its true count is
/// unknown and decrementing it could create false negatives. [`CountingBloom::saturated`] says
/// how many counters saturated; the odds of it happening at all are in
/// [`theory::counting`] (Fan et al.'s `m·(e·ln 2/j)^j` bound and the exact tail).
///
/// Memory is `⌈m/2⌉` bytes: 4× a standard filter with the same m.
///
/// ```
/// use bloomlab::{Filter, Removable};
/// use bloomlab::filters::CountingBloom;
/// let mut f = CountingBloom::with_rate(1_000_000, 0.01).unwrap();
/// assert_eq!(f.classic_params(), Some((9_585_058, 7)));   // m counters, k: Guava's sizing
/// assert_eq!(f.bytes(), 4_792_529);                        // m/2 bytes: 4 bits a counter
/// f.insert(b"apple");
/// f.remove(b"apple").unwrap();
/// assert!(!f.contains(b"apple"));
/// assert!(f.remove(b"apple").is_err());                    // refused: not present, nothing changed
/// ```
#[derive(Debug, Clone)]
pub struct CountingBloom<H = Xxh3, S = EnhancedDoubleHashing> {
    counters: Counters4,
    k: u32,
    len: u64,
    saturated: u64,
    hasher: H,
    strategy: S,
}

impl CountingBloom<Xxh3, EnhancedDoubleHashing> {
    /// A filter for `n` items at rate `p`, sized like the standard filter (Guava's formula, m
    /// counters): `m = ⌊−n·ln p/(ln 2)²⌋`, `k = max(1, round(m/n·ln 2))`.
    ///
    /// # Errors
    /// Invalid `n` or `p`; [`Error::Allocation`].
    pub fn with_rate(n: u64, p: f64) -> Result<Self> {
        Self::with_rate_and(n, p, Xxh3::default(), EnhancedDoubleHashing)
    }

    /// A filter of `m` counters and `k` hash functions.
    ///
    /// # Errors
    /// Invalid `m` or `k`; [`Error::Allocation`].
    pub fn with_counters(m: u64, k: u32) -> Result<Self> {
        Self::with_counters_and(m, k, Xxh3::default(), EnhancedDoubleHashing)
    }
}

impl<H: ItemHasher, S: IndexStrategy> CountingBloom<H, S> {
    /// A filter for `n` items at rate `p` with the given hash and strategy.
    ///
    /// # Errors
    /// Invalid `n` or `p`; [`Error::Allocation`].
    pub fn with_rate_and(n: u64, p: f64, hasher: H, strategy: S) -> Result<Self> {
        let s = theory::size_for(n, p)?;
        Self::with_counters_and(s.m, s.k, hasher, strategy)
    }

    /// A filter of `m` counters (rounded up to whole 64-counter groups for the Guava strategies,
    /// as the standard filter rounds bits) and `k` hash functions.
    ///
    /// # Errors
    /// Invalid `m` or `k`; [`Error::Allocation`].
    pub fn with_counters_and(m: u64, k: u32, hasher: H, strategy: S) -> Result<Self> {
        theory::check_m(m)?;
        theory::check_k(k)?;
        let counters = Counters4::new(strategy.round_bits(m))?;
        Ok(Self {
            counters,
            k,
            len: 0,
            saturated: 0,
            hasher,
            strategy,
        })
    }

    /// Rebuild from saved parts (see [`crate::persist`]): `counters`, `k`, the count `len`;
    /// the saturated count is recomputed (a counter at 15 is stuck there).
    ///
    /// # Errors
    /// [`Error::Corrupt`] for no counters, `k` outside `1..=64`, or a number of counters the
    /// strategy cannot have (the Guava strategies need a multiple of 64).
    pub fn from_parts(
        counters: Counters4,
        k: u32,
        len: u64,
        hasher: H,
        strategy: S,
    ) -> Result<Self> {
        let m = counters.len();
        if m == 0 {
            return Err(Error::Corrupt("counting filter has 0 counters".into()));
        }
        if k == 0 || k > theory::MAX_K {
            return Err(Error::Corrupt(format!(
                "counting filter has k = {k}, outside 1..={}",
                theory::MAX_K
            )));
        }
        if strategy.round_bits(m) != m {
            return Err(Error::Corrupt(format!(
                "counting filter has {m} counters, but strategy {} needs a multiple of 64",
                strategy.id()
            )));
        }
        let saturated = counters
            .as_bytes()
            .iter()
            .map(|b| u64::from(b & 0x0f == 0x0f) + u64::from(b >> 4 == 0x0f))
            .sum();
        Ok(Self {
            counters,
            k,
            len,
            saturated,
            hasher,
            strategy,
        })
    }

    /// The hash function.
    #[must_use]
    pub fn hasher(&self) -> &H {
        &self.hasher
    }

    /// The index strategy.
    #[must_use]
    pub fn strategy(&self) -> S {
        self.strategy
    }

    /// Number of counters (m).
    #[must_use]
    pub fn counters(&self) -> u64 {
        self.counters.len()
    }

    /// Value of counter `i` (`i < m`), 0..=15.
    ///
    /// # Panics
    /// If `i >= m`.
    #[must_use]
    pub fn counter(&self, i: u64) -> u8 {
        assert!(i < self.counters.len(), "counter {i} out of range");
        self.counters.get(i)
    }

    /// The packed counters.
    #[must_use]
    pub fn counter_array(&self) -> &Counters4 {
        &self.counters
    }

    /// Number of counters that reached 15 and are stuck there.
    #[must_use]
    pub fn saturated(&self) -> u64 {
        self.saturated
    }

    /// The k counter positions of `item`, in probe order (repeats possible).
    #[must_use]
    pub fn positions(&self, item: &[u8]) -> Vec<u64> {
        let mut v = Vec::with_capacity(self.k as usize);
        self.strategy
            .for_each_index(&self.hasher, item, self.k, self.counters.len(), |i| {
                v.push(i);
                true
            });
        v
    }

    /// Fill `buf` with the positions of `item`; returns how many (k).
    #[inline]
    fn positions_into(&self, item: &[u8], buf: &mut [u64; theory::MAX_K as usize]) -> usize {
        let mut n = 0;
        self.strategy
            .for_each_index(&self.hasher, item, self.k, self.counters.len(), |i| {
                buf[n] = i;
                n += 1;
                true
            });
        n
    }

    // ANCHOR: insert_remove
    /// Insert `item`.
    #[inline]
    pub fn insert_item(&mut self, item: &[u8]) {
        let m = self.counters.len();
        let counters = &mut self.counters;
        let saturated = &mut self.saturated;
        self.strategy
            .for_each_index(&self.hasher, item, self.k, m, |i| {
                let c = counters.get(i);
                if c < Counters4::MAX {
                    counters.put(i, c + 1);
                    if c + 1 == Counters4::MAX {
                        *saturated += 1;
                    }
                }
                true
            });
        self.len = self.len.saturating_add(1);
    }

    /// Whether `item` may be present: all k counters non-zero.
    #[inline]
    #[must_use]
    pub fn contains_item(&self, item: &[u8]) -> bool {
        let c = &self.counters;
        self.strategy
            .for_each_index(&self.hasher, item, self.k, c.len(), |i| c.get(i) != 0)
    }

    /// Remove one occurrence of `item` (see [`Removable::remove`]).
    ///
    /// The item is refused, with nothing changed, unless each of its positions can take its
    /// decrements: a position probed r times (repeats happen) needs a counter ≥ r or saturated.
    /// Every inserted item passes this; an absent item usually fails it.
    ///
    /// # Errors
    /// [`Error::NotPresent`].
    pub fn remove_item(&mut self, item: &[u8]) -> Result<()> {
        let mut buf = [0u64; theory::MAX_K as usize];
        let n = self.positions_into(item, &mut buf);
        let pos = &buf[..n];
        // Check first, change nothing unless every decrement is possible.
        for (j, &i) in pos.iter().enumerate() {
            let c = self.counters.get(i);
            if c == Counters4::MAX {
                continue;
            }
            // Count each distinct position once, at its first occurrence.
            if pos[..j].contains(&i) {
                continue;
            }
            let r = pos.iter().filter(|&&x| x == i).count();
            if usize::from(c) < r {
                return Err(Error::NotPresent);
            }
        }
        for &i in pos {
            let c = self.counters.get(i);
            if c != Counters4::MAX {
                self.counters.put(i, c - 1);
            }
        }
        self.len = self.len.saturating_sub(1);
        Ok(())
    }
    // ANCHOR_END: insert_remove

    /// The largest counter value.
    #[must_use]
    pub fn max_counter(&self) -> u8 {
        self.counters
            .as_bytes()
            .iter()
            .map(|b| (b & 0x0f).max(b >> 4))
            .max()
            .unwrap_or(0)
    }

    /// Number of non-zero counters.
    #[must_use]
    pub fn nonzero(&self) -> u64 {
        (0..self.counters.len())
            .filter(|&i| self.counters.get(i) != 0)
            .count() as u64
    }

    /// Sum of all counters (a saturated counter counts 15).
    #[must_use]
    pub fn counter_sum(&self) -> u64 {
        self.counters
            .as_bytes()
            .iter()
            .map(|b| u64::from(b & 0x0f) + u64::from(b >> 4))
            .sum()
    }

    /// Refuse another filter unless the counters, k, the hash function (with its seed) and the
    /// strategy are the same.
    ///
    /// # Errors
    /// [`Error::Incompatible`].
    pub fn check_compatible(&self, other: &Self) -> Result<()>
    where
        H: PartialEq,
    {
        if self.counters.len() != other.counters.len()
            || self.k != other.k
            || self.hasher != other.hasher
            || self.strategy.id() != other.strategy.id()
        {
            return Err(Error::Incompatible(
                "counters, k, hash function or strategy differ".to_string(),
            ));
        }
        Ok(())
    }

    /// Add another filter's counters into this one (saturating at 15): the filter of the
    /// multiset union, exactly what inserting both filters' items would give while no counter
    /// saturates; its items can still be removed one by one.
    ///
    /// # Errors
    /// [`Error::Incompatible`] when the parameters differ.
    pub fn union_with(&mut self, other: &Self) -> Result<()>
    where
        H: PartialEq,
    {
        self.check_compatible(other)?;
        let mut saturated = 0;
        for i in 0..self.counters.len() {
            let v = (self.counters.get(i) + other.counters.get(i)).min(Counters4::MAX);
            saturated += u64::from(v == Counters4::MAX);
            self.counters.put(i, v);
        }
        self.saturated = saturated;
        self.len = self.len.saturating_add(other.len);
        Ok(())
    }

    /// The geometry the estimators need: the non-zero counters behave as a standard filter's
    /// bits ([`theory::estimate::Shape::standard`]).
    #[must_use]
    pub fn shape(&self) -> theory::estimate::Shape {
        theory::estimate::Shape::standard(self.counters.len(), self.k)
    }

    /// Estimated *distinct* items from the non-zero counters, with a standard error (the
    /// standard filter's estimator). Compare [`CountingBloom::estimate_from_counter_sum`].
    #[must_use]
    pub fn estimate(&self) -> theory::estimate::Estimate {
        theory::estimate::count(&self.shape(), self.nonzero())
    }

    /// Inserts minus removes from the counter sum, `Σ counters / k`
    /// ([`theory::estimate::count_from_counter_sum`]): exact while no counter is saturated
    /// (then it equals [`Filter::len`] of this filter), a lower bound once one is, and it counts
    /// a duplicate insert twice where [`CountingBloom::estimate`] counts it once.
    ///
    /// ```
    /// use bloomlab::{Filter, Removable};
    /// use bloomlab::filters::CountingBloom;
    /// let mut f = CountingBloom::with_rate(10_000, 0.01).unwrap();
    /// for i in 0u64..4_000 { f.insert(&i.to_le_bytes()); }
    /// for i in 0u64..1_000 { f.insert(&i.to_le_bytes()); }    // 1,000 duplicates
    /// f.remove(&0u64.to_le_bytes()).unwrap();
    /// assert_eq!(f.estimate_from_counter_sum(), 4_999.0);     // inserts − removes, exactly
    /// let e = f.estimate();                                    // distinct items
    /// assert!((e.value - 4_000.0).abs() < 4.0 * e.std_err, "{e:?}");
    /// ```
    #[must_use]
    pub fn estimate_from_counter_sum(&self) -> f64 {
        theory::estimate::count_from_counter_sum(self.counter_sum(), self.k)
    }

    /// Non-zero counters in either filter.
    fn nonzero_or(&self, other: &Self) -> u64 {
        (0..self.counters.len())
            .filter(|&i| self.counters.get(i) != 0 || other.counters.get(i) != 0)
            .count() as u64
    }

    /// Estimated size of the union of the two filters' (distinct) sets.
    ///
    /// # Errors
    /// [`Error::Incompatible`] when the parameters differ.
    pub fn estimate_union(&self, other: &Self) -> Result<theory::estimate::Estimate>
    where
        H: PartialEq,
    {
        self.check_compatible(other)?;
        Ok(theory::estimate::union(
            &self.shape(),
            self.nonzero_or(other),
        ))
    }

    /// Estimated size of the intersection of the two filters' sets by inclusion–exclusion on
    /// the non-zero counters.
    ///
    /// # Errors
    /// [`Error::Incompatible`] when the parameters differ.
    pub fn estimate_intersection(&self, other: &Self) -> Result<theory::estimate::Estimate>
    where
        H: PartialEq,
    {
        self.check_compatible(other)?;
        Ok(theory::estimate::intersection(
            &self.shape(),
            self.nonzero(),
            other.nonzero(),
            self.nonzero_or(other),
        ))
    }
}

impl<H: ItemHasher, S: IndexStrategy> Filter for CountingBloom<H, S> {
    #[inline]
    fn try_insert(&mut self, item: &[u8]) -> Result<()> {
        self.insert_item(item);
        Ok(())
    }
    #[inline]
    fn insert(&mut self, item: &[u8]) {
        self.insert_item(item);
    }
    #[inline]
    fn contains(&self, item: &[u8]) -> bool {
        self.contains_item(item)
    }
    fn contains_batch(&self, items: &[&[u8]], out: &mut [bool]) {
        self.contains_batch_at(items, out, Depth::K_POSITIONS);
    }
    /// Inserts minus successful removes.
    fn len(&self) -> u64 {
        self.len
    }
    /// `4·m`: four bits per counter.
    fn bits(&self) -> u64 {
        self.counters.len() * 4
    }
    fn bytes(&self) -> usize {
        self.counters.heap_bytes()
    }
    fn k(&self) -> u32 {
        self.k
    }
    /// `(m counters, k)`: the classic formulas apply with counters in place of bits.
    fn classic_params(&self) -> Option<(u64, u32)> {
        Some((self.counters.len(), self.k))
    }
    fn expected_fpr(&self) -> f64 {
        theory::counting::fpr_counting(self.counters.len(), self.len, self.k)
    }
    fn kind(&self) -> FilterKind {
        FilterKind::Counting
    }
    fn hash_id(&self) -> HashId {
        self.hasher.id()
    }
    fn strategy_id(&self) -> Option<StrategyId> {
        Some(self.strategy.id())
    }
    fn details(&self) -> Vec<(String, String)> {
        let m = self.counters.len();
        vec![
            ("counters".into(), m.to_string()),
            ("saturated counters".into(), self.saturated.to_string()),
            ("max counter".into(), self.max_counter().to_string()),
            (
                "fill".into(),
                format!("{:.4}", self.nonzero() as f64 / m as f64),
            ),
            (
                "expected saturated (binomial tail, counter >= 15)".into(),
                format!(
                    "{:.3e}",
                    theory::counting::expected_counters_at_least(m, self.len, self.k, 15)
                ),
            ),
            (
                "overflow bound (Fan et al., counter >= 16)".into(),
                format!(
                    "{:.3e}",
                    theory::counting::overflow_bound(m, self.len, self.k, 16)
                ),
            ),
        ]
    }
    fn as_removable(&mut self) -> Option<&mut dyn Removable> {
        Some(self)
    }
}

impl<H: ItemHasher, S: IndexStrategy> Removable for CountingBloom<H, S> {
    fn remove(&mut self, item: &[u8]) -> Result<()> {
        self.remove_item(item)
    }
}

/// The counting filter's batch query (issue 38, `filters/bulk.rs`): each item hashed once, the
/// bytes of its first [`Depth::lines`] counters prefetched a chunk before its probes.
impl<H: ItemHasher, S: IndexStrategy> Probe for At<'_, CountingBloom<H, S>> {
    type Step = Hash128;
    #[inline(always)]
    fn stage(&self, item: &[u8], warm: bool) -> Hash128 {
        let f = self.f;
        let h = bulk::stage_hash(&f.strategy, &f.hasher, item);
        if warm {
            let (km, bytes) = ((f.k, f.counters.len()), f.counters.as_bytes());
            bulk::prefetch_positions(&f.strategy, h, km, self.lines, bytes, 1);
        }
        h
    }
    #[inline(always)]
    fn probe_step(&self, h: Hash128) -> bool {
        let c = &self.f.counters;
        self.f
            .strategy
            .for_each_hashed(h, self.f.k, c.len(), |i| c.get(i) != 0)
    }
}

impl<H: ItemHasher, S: IndexStrategy> CountingBloom<H, S> {
    /// [`Filter::contains_batch`] at an explicit pipeline depth (the default is
    /// [`Depth::K_POSITIONS`]); under 1 MiB of counters, or with `independent`, one item at a
    /// time (as [`crate::StandardBloom::contains_batch_at`]).
    pub fn contains_batch_at(&self, items: &[&[u8]], out: &mut [bool], depth: Depth) {
        let table = (self.counters.heap_bytes(), &self.strategy);
        bulk::k_positions(self, table, (items, out), depth, |it| {
            self.contains_item(it)
        });
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::hash::{AnyHasher, AnyStrategy};

    #[test]
    fn insert_remove_roundtrip_every_strategy() {
        for s in StrategyId::ALL {
            let mut f = CountingBloom::with_rate_and(
                500,
                0.01,
                AnyHasher::new(HashId::Xxh3, 3),
                AnyStrategy(s),
            )
            .unwrap();
            for i in 0u64..500 {
                f.insert(&i.to_le_bytes());
            }
            for i in 0u64..250 {
                f.remove(&i.to_le_bytes()).unwrap();
            }
            assert!((250u64..500).all(|i| f.contains(&i.to_le_bytes())), "{s}");
            assert_eq!(f.len(), 250);
        }
    }

    #[test]
    fn refused_remove_changes_nothing() {
        let mut f = CountingBloom::with_counters(64, 3).unwrap();
        f.insert(b"a");
        let before = f.counter_array().clone();
        // Find an item that is not present.
        let absent = (0u64..)
            .map(|i| i.to_le_bytes())
            .find(|x| !f.contains(x))
            .unwrap();
        assert_eq!(f.remove(&absent), Err(Error::NotPresent));
        assert_eq!(f.counter_array(), &before);
        assert_eq!(f.len(), 1);
    }

    #[test]
    fn repeated_position_needs_enough_count() {
        // k = 2 over one counter: every item probes counter 0 twice.
        let mut f = CountingBloom::with_counters(1, 2).unwrap();
        f.insert(b"x");
        assert_eq!(f.counter(0), 2);
        f.remove(b"y").unwrap(); // indistinguishable from x: accepted, as documented
        assert_eq!(f.counter(0), 0);
        // Counter at 1 cannot take two decrements: refused, unchanged.
        let mut g = CountingBloom::with_counters(1, 2).unwrap();
        g.counters.put(0, 1);
        assert_eq!(g.remove(b"z"), Err(Error::NotPresent));
        assert_eq!(g.counter(0), 1);
    }

    #[test]
    fn saturation_sticks() {
        let mut f = CountingBloom::with_counters(1000, 4).unwrap();
        for _ in 0..20 {
            f.insert(b"hot");
        }
        let distinct = {
            let mut p = f.positions(b"hot");
            p.sort_unstable();
            p.dedup();
            p.len() as u64
        };
        assert_eq!(f.saturated(), distinct);
        assert_eq!(f.max_counter(), 15);
        for _ in 0..20 {
            f.remove(b"hot").unwrap();
        }
        // Saturated counters never come down: the item stays "present", no false negative possible.
        assert!(f.contains(b"hot"));
        assert!(f.positions(b"hot").iter().all(|&i| f.counter(i) == 15));
    }
}
