//! A standard Bloom filter that many threads insert into and query at once, through `&self`.

use crate::bits::AtomicBitVec;
use crate::error::Result;
use crate::filter::{Filter, FilterKind};
use crate::filters::StandardBloom;
use crate::hash::{EnhancedDoubleHashing, HashId, IndexStrategy, ItemHasher, StrategyId, Xxh3};
use crate::theory;
use std::sync::atomic::{AtomicU64, Ordering};

/// A standard Bloom filter whose bits are set with atomic `fetch_or`, so `insert` takes `&self`
/// and needs no lock: share it in an `Arc` (or by reference in scoped threads) and insert and
/// query from any number of threads. The same design as Guava's `LockFreeBitArray`, which makes
/// Guava's `BloomFilter.put` thread-safe since Guava 23.
///
/// Same bits, same positions and same false-positive rate as [`StandardBloom`] with the same
/// hash, strategy, m and k (it converts both ways, and saves in the same file format).
///
/// # Visibility
/// Bits only ever go from 0 to 1, so an item stays found once it is found. An insert is seen by
/// every query that *happens after* it returns: in the same thread, or in another thread that
/// synchronized with the inserting one afterwards (joined it, received a message from it over a
/// channel, or read with `Acquire` an atomic it wrote with `Release`). A query running at the same
/// time as an insert of the same item may see none, some or all of its k bits, and so may answer
/// either way; that insert has not returned yet, so no guarantee is broken.
///
/// ```
/// use bloomlab::filters::ConcurrentBloom;
/// let f = ConcurrentBloom::with_rate(10_000, 0.01).unwrap();
/// std::thread::scope(|s| {
///     for t in 0u64..4 {
///         let f = &f;
///         s.spawn(move || {
///             for i in 0..2_500u64 {
///                 f.insert(&(t * 2_500 + i).to_le_bytes());
///             }
///         });
///     }
/// });
/// assert_eq!(f.len(), 10_000);
/// assert!((0u64..10_000).all(|i| f.contains(&i.to_le_bytes())));
/// assert_eq!((f.bits(), f.k()), (95_850, 7));
/// ```
#[derive(Debug)]
pub struct ConcurrentBloom<H = Xxh3, S = EnhancedDoubleHashing> {
    bits: AtomicBitVec,
    k: u32,
    len: StripedCount,
    hasher: H,
    strategy: S,
}

/// Stripes of the insert count.
const STRIPES: usize = 16;

/// One counter on its own cache line.
#[derive(Debug, Default)]
#[repr(align(64))]
struct Padded(AtomicU64);

/// An insert count spread over [`STRIPES`] cache lines (like Java's `LongAdder`, which Guava's
/// `LockFreeBitArray` uses for its bit count): threads inserting different items mostly add to
/// different lines instead of all contending for one. `base` is the count a filter started
/// with (from a standard filter or a file; it may be `u64::MAX`, so the sum saturates).
#[derive(Debug, Default)]
struct StripedCount {
    base: u64,
    stripes: [Padded; STRIPES],
}

impl StripedCount {
    fn with(base: u64) -> Self {
        Self {
            base,
            ..Self::default()
        }
    }
    #[inline]
    fn add_one(&self, stripe: u64) {
        // 2^64 inserts into one stripe cannot happen; a plain add is a single `lock xadd`.
        self.stripes[(stripe as usize) % STRIPES]
            .0
            .fetch_add(1, Ordering::Relaxed);
    }
    fn get(&self) -> u64 {
        self.stripes.iter().fold(self.base, |a, p| {
            a.saturating_add(p.0.load(Ordering::Relaxed))
        })
    }
}

impl ConcurrentBloom<Xxh3, EnhancedDoubleHashing> {
    /// A filter for `n` items at rate `p` with the default hash and strategy, sized as
    /// [`StandardBloom::with_rate`].
    ///
    /// # Errors
    /// Invalid `n` or `p`; [`crate::Error::Allocation`].
    pub fn with_rate(n: u64, p: f64) -> Result<Self> {
        Self::with_rate_and(n, p, Xxh3::default(), EnhancedDoubleHashing)
    }
}

impl<H: ItemHasher, S: IndexStrategy> ConcurrentBloom<H, S> {
    /// A filter for `n` items at rate `p` with the given hash and strategy.
    ///
    /// # Errors
    /// Invalid `n` or `p`; [`crate::Error::Allocation`].
    pub fn with_rate_and(n: u64, p: f64, hasher: H, strategy: S) -> Result<Self> {
        let s = theory::size_for(n, p)?;
        Self::with_bits_and(s.m, s.k, hasher, strategy)
    }

    /// A filter of `m` bits (rounded as the strategy requires) and `k` hash functions.
    ///
    /// # Errors
    /// Invalid `m` or `k`; [`crate::Error::Allocation`].
    pub fn with_bits_and(m: u64, k: u32, hasher: H, strategy: S) -> Result<Self> {
        theory::check_m(m)?;
        theory::check_k(k)?;
        Ok(Self {
            bits: AtomicBitVec::new(strategy.round_bits(m))?,
            k,
            len: StripedCount::default(),
            hasher,
            strategy,
        })
    }

    /// Insert `item` from any thread. Returns true if this call changed at least one bit (the
    /// item was certainly not in the filter before).
    #[inline]
    pub fn insert(&self, item: &[u8]) -> bool {
        let bits = &self.bits;
        let mut changed = false;
        let mut first = None;
        self.strategy
            .for_each_index(&self.hasher, item, self.k, bits.len(), |i| {
                first.get_or_insert(i);
                changed |= bits.set(i);
                true
            });
        // The stripe follows the item's first position: different items, different stripes.
        // Saturating (a filter loaded from a file may already count u64::MAX).
        self.len.add_one(first.unwrap_or(0));
        changed
    }

    /// Whether `item` may have been inserted (see the type's docs for what "inserted" means
    /// across threads).
    #[inline]
    #[must_use]
    pub fn contains(&self, item: &[u8]) -> bool {
        let bits = &self.bits;
        self.strategy
            .for_each_index(&self.hasher, item, self.k, bits.len(), |i| bits.get(i))
    }

    /// Inserts so far (all threads).
    #[must_use]
    pub fn len(&self) -> u64 {
        self.len.get()
    }

    /// True when nothing was inserted.
    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Bits m.
    #[must_use]
    pub fn bits(&self) -> u64 {
        self.bits.len()
    }

    /// Hash functions k.
    #[must_use]
    pub fn k(&self) -> u32 {
        self.k
    }

    /// Bits set now.
    #[must_use]
    pub fn ones(&self) -> u64 {
        self.bits.count_ones()
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

    /// A single-threaded copy of the filter as it is now.
    ///
    /// # Errors
    /// [`crate::Error::Allocation`].
    pub fn snapshot(&self) -> Result<StandardBloom<H, S>> {
        StandardBloom::from_bits(
            self.bits.snapshot()?,
            self.k,
            self.len(),
            self.hasher.clone(),
            self.strategy,
        )
    }

    /// Turn a standard filter into a concurrent one (same bits, same answers).
    #[must_use]
    pub fn from_standard(f: StandardBloom<H, S>) -> Self {
        let k = Filter::k(&f);
        let len = Filter::len(&f);
        let hasher = f.hasher().clone();
        let strategy = f.strategy();
        Self {
            bits: AtomicBitVec::from_bit_vec(f.into_bit_vec()),
            k,
            len: StripedCount::with(len),
            hasher,
            strategy,
        }
    }
}

impl<H: ItemHasher, S: IndexStrategy> Filter for ConcurrentBloom<H, S> {
    fn try_insert(&mut self, item: &[u8]) -> Result<()> {
        ConcurrentBloom::insert(self, item);
        Ok(())
    }
    fn insert(&mut self, item: &[u8]) {
        ConcurrentBloom::insert(self, item);
    }
    fn contains(&self, item: &[u8]) -> bool {
        ConcurrentBloom::contains(self, item)
    }
    fn len(&self) -> u64 {
        ConcurrentBloom::len(self)
    }
    fn bits(&self) -> u64 {
        self.bits.len()
    }
    fn bytes(&self) -> usize {
        self.bits.heap_bytes()
    }
    fn k(&self) -> u32 {
        self.k
    }
    fn expected_fpr(&self) -> f64 {
        theory::fpr_classic(self.bits.len(), ConcurrentBloom::len(self), self.k)
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
        let ones = self.ones();
        vec![
            ("bits set".into(), ones.to_string()),
            (
                "fill".into(),
                format!("{:.4}", ones as f64 / self.bits.len() as f64),
            ),
            ("concurrent".into(), "lock-free atomic bits".into()),
        ]
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::hash::{AnyHasher, AnyStrategy};

    #[test]
    fn same_bits_as_the_standard_filter() {
        for s in StrategyId::ALL {
            let h = AnyHasher::new(HashId::Murmur3, 3);
            let mut a = StandardBloom::with_rate_and(1_000, 0.01, h, AnyStrategy(s)).unwrap();
            let b = ConcurrentBloom::with_rate_and(1_000, 0.01, h, AnyStrategy(s)).unwrap();
            for i in 0u64..1_000 {
                assert_eq!(a.insert_new(&i.to_le_bytes()), b.insert(&i.to_le_bytes()));
            }
            let snap = b.snapshot().unwrap();
            assert_eq!(snap.bit_vec(), a.bit_vec(), "{s}");
            assert_eq!(Filter::len(&snap), 1_000);
            let back = ConcurrentBloom::from_standard(snap);
            assert!((0u64..1_000).all(|i| back.contains(&i.to_le_bytes())));
            assert_eq!(back.ones(), a.ones());
        }
    }

    #[test]
    fn refuses_bad_parameters() {
        assert!(ConcurrentBloom::with_rate(0, 0.01).is_err());
        assert!(ConcurrentBloom::with_rate(10, 1.0).is_err());
        assert!(matches!(
            ConcurrentBloom::with_bits_and(u64::MAX, 3, Xxh3::default(), EnhancedDoubleHashing),
            Err(crate::Error::Allocation { .. })
        ));
    }
}
