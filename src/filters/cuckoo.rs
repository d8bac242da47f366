//! The cuckoo filter (Fan, Andersen, Kaminsky & Mitzenmacher 2014).

use crate::bits::{try_zeroed, words_for};
use crate::error::{Error, Param, Result};
use crate::filter::{Filter, FilterKind, Removable};
use crate::hash::{HashId, ItemHasher, StrategyId, Xxh3, mix64};
use crate::theory::cuckoo as model;

const B: u32 = model::BUCKET_SLOTS;
const MAX_KICKS: usize = model::MAX_KICKS as usize;

/// A cuckoo filter: `f`-bit fingerprints in buckets of 4, two candidate buckets per item;
/// supports [`Removable::remove`] (Fan, Andersen, Kaminsky & Mitzenmacher 2014, "Cuckoo Filter:
/// Practically Better Than Bloom", CoNEXT).
///
/// * **Hashing** (the paper's partial-key cuckoo hashing): one 128-bit hash per item; its low half
///   picks bucket `i1`, its top `f` bits are the fingerprint (0 is reserved for an empty slot and
///   mapped to 1, as in the reference implementation, which makes fingerprint 1 twice as likely:
///   the per-slot match rate is `(2^f + 2)/4^f` instead of `1/2^f`, +0.8% at f = 8). The other
///   bucket is `i2 = i1 ⊕ hash(fingerprint)`, so either bucket and the fingerprint give the other
///   one without the item: that is what lets entries move. The table has a power-of-two number
///   of buckets so the XOR stays inside it.
/// * **Insert** puts the fingerprint in a free slot of `i1` or `i2`; otherwise it evicts a random
///   entry of one of them and moves that entry to *its* other bucket, up to 500 times.
/// * **Full, without losing anything.** The reference implementation keeps the last homeless
///   fingerprint in a one-entry *victim* slot, reports success and refuses every later insert;
///   the popular `cuckoofilter` crate returns `NotEnoughSpace` after dropping the last evicted
///   fingerprint, a silent false negative (documented in axiomhq/rust-cuckoofilter PR #26). We record the slots of the eviction path and, when 500 kicks do not find a
///   free slot, **undo the path**: the insert returns [`Error::Full`] and the table is bit for
///   bit what it was (checked by the tests). So no victim slot is needed, a refused item is simply
///   not stored, and later inserts whose buckets have room still succeed.
/// * **Duplicates**: an item's copies can only live in its two buckets, so the same item can be
///   inserted at most `2b = 8` times (`b = 4` in the rare case, probability 1/buckets, that its
///   two buckets coincide); the 9th insert returns [`Error::Full`] (a limit the paper
///   states).
/// * **Remove** deletes one copy of the fingerprint from either bucket, [`Error::NotPresent`]
///   if neither holds it. Removing an item that was never inserted but collides with a stored
///   fingerprint removes that fingerprint: a false negative for its owner. Only remove what you
///   inserted.
/// * **Memory**: fingerprints are packed, 4·f bits per bucket (f = 12: 48 bits), in 64-bit
///   words: `buckets·4·f/8` bytes.
/// * **Sizing** from (n, p): `f` is the smallest of 8, 12, 16 with `f ≥ log2(2b/p)` (the paper),
///   buckets the next power of two ≥ `n/(4·0.95)` ([`model::buckets_for`]). The power-of-two
///   rounding can halve the load: 10⁶ items get 2¹⁹ buckets (load 0.48) where 2¹⁸ would be 95.4%
///   full.
///
/// The model ([`Filter::expected_fpr`]) is the load-adjusted bound
/// `1 − (1 − 2^−f)^(2b·α)` ([`model::fpr_at_load`]).
///
/// ```
/// use bloomlab::{Filter, Removable};
/// use bloomlab::filters::CuckooFilter;
/// use bloomlab::workload::{KeyGen, KeyKind};
/// let keys = KeyGen::new(KeyKind::U64, 1);
/// let mut f = CuckooFilter::with_buckets(4_096, 12).unwrap();
/// assert_eq!(f.bytes(), 24_576);                 // 4,096 buckets · 4 slots · 12 bits / 8
/// let n = 15_564;                                 // 95% of 16,384 slots
/// for i in 0..n { f.try_insert(&keys.present_key(i)).unwrap(); }
/// assert!((f.load_factor() - 0.95).abs() < 1e-4);
/// assert!((0..n).all(|i| f.contains(&keys.present_key(i))));
/// let model = f.expected_fpr();                   // 1 − (1 − 2^−12)^(8·0.95)
/// assert!((model - 0.001_854).abs() < 1e-6);      // under the bound 2b/2^f = 0.195%
/// let fp = (0..200_000).filter(|&j| f.contains(&keys.absent_key(j))).count();
/// let fpr = fp as f64 / 200_000.0;                // σ ≈ 0.0096% at 200,000 queries
/// assert!((fpr - model).abs() < 0.0004, "{fpr}"); // agrees within 4σ
/// f.remove(&keys.present_key(0)).unwrap();
/// assert_eq!(f.len(), n - 1);
/// ```
#[derive(Debug, Clone)]
pub struct CuckooFilter<H = Xxh3> {
    words: Vec<u64>,
    /// buckets − 1 (buckets is a power of two).
    mask: u64,
    fp_bits: u32,
    len: u64,
    hasher: H,
    rng: u64,
    kicks: u64,
    longest_chain: u32,
    refused: u64,
}

/// The run-time state of a [`CuckooFilter`] besides its table: the eviction random stream (so a
/// reloaded filter makes the same choices as the original would) and the statistics it reports.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct CuckooState {
    /// The eviction random-number generator's state.
    pub rng: u64,
    /// Evictions performed by successful inserts.
    pub kicks: u64,
    /// The most evictions one successful insert needed.
    pub longest_chain: u32,
    /// Inserts refused with [`Error::Full`].
    pub refused: u64,
}

impl CuckooFilter<Xxh3> {
    /// A filter for `n` items at rate `p` with the default hash: f from p, buckets from n.
    ///
    /// # Errors
    /// Invalid `n` or `p` (p below 1.22·10⁻⁴ needs more than 16 bits); [`Error::Allocation`].
    pub fn with_rate(n: u64, p: f64) -> Result<Self> {
        Self::with_rate_and(n, p, Xxh3::default())
    }

    /// A filter of `buckets` buckets (a power of two) and `f`-bit fingerprints.
    ///
    /// # Errors
    /// `buckets` not a power of two; `f` not 8, 12 or 16; [`Error::Allocation`].
    pub fn with_buckets(buckets: u64, f: u32) -> Result<Self> {
        Self::with_buckets_and(buckets, f, Xxh3::default())
    }
}

impl<H: ItemHasher> CuckooFilter<H> {
    /// A filter for `n` items at rate `p`: `f` = the smallest of 8, 12, 16 with
    /// `f ≥ log2(2b/p)` ([`model::fingerprint_bits_for`]), buckets from `n`
    /// ([`model::buckets_for`]).
    ///
    /// # Errors
    /// Invalid `n` or `p`; [`Error::Allocation`].
    pub fn with_rate_and(n: u64, p: f64, hasher: H) -> Result<Self> {
        let f = model::fingerprint_bits_for(p)?;
        Self::with_capacity_and(n, f, hasher)
    }

    /// A filter for `n` items with `f`-bit fingerprints.
    ///
    /// # Errors
    /// Invalid `n`; `f` not 8, 12 or 16; [`Error::Allocation`].
    pub fn with_capacity_and(n: u64, f: u32, hasher: H) -> Result<Self> {
        model::check_fingerprint_bits(f)?;
        let buckets = model::buckets_for(n)?;
        let max = model::max_buckets(f);
        if buckets > max {
            // Only f = 16 gets here (2^58 buckets of 64 bits are 2^64 bits); narrower
            // fingerprints, from a larger p, fit twice the buckets.
            let narrower = f - 4;
            return Err(Error::invalid(
                Param::N,
                n,
                format!(
                    "at most about {:.2e} items for a cuckoo filter with {f}-bit fingerprints (its table must stay under 2^64 bits); p >= {:.3e} gives {narrower}-bit fingerprints",
                    max as f64 * f64::from(B) * model::TARGET_LOAD,
                    model::fpr_approx(narrower, B),
                ),
            ));
        }
        Self::with_buckets_and(buckets, f, hasher)
    }

    /// A filter of `buckets` buckets (a power of two, at most [`model::max_buckets`]: 2⁵⁸, or
    /// 2⁵⁷ at f = 16) and `f`-bit fingerprints.
    ///
    /// # Errors
    /// `buckets` not a power of two or too many; `f` not 8, 12 or 16; [`Error::Allocation`].
    pub fn with_buckets_and(buckets: u64, f: u32, hasher: H) -> Result<Self> {
        model::check_fingerprint_bits(f)?;
        let max = model::max_buckets(f);
        if !buckets.is_power_of_two() || buckets > max {
            return Err(Error::invalid(
                Param::Other("buckets"),
                buckets,
                format!(
                    "a power of two from 1 to 2^{} at {f}-bit fingerprints",
                    max.ilog2()
                ),
            ));
        }
        let words = try_zeroed(words_for(model::table_bits(buckets, f)?)?)?;
        let rng = mix64(hasher.hash128(b"bloomlab/cuckoo/kicks").lo);
        Ok(Self {
            words,
            mask: buckets - 1,
            fp_bits: f,
            len: 0,
            hasher,
            rng,
            kicks: 0,
            longest_chain: 0,
            refused: 0,
        })
    }

    /// Rebuild from saved parts (see [`crate::persist`]): the packed table `words` of `buckets`
    /// buckets of four `f`-bit slots, and the [`CuckooState`]. The count of stored fingerprints
    /// is the number of non-empty slots.
    ///
    /// # Errors
    /// [`Error::Corrupt`] when `f` is not 8, 12 or 16, `buckets` is not a power of two up to
    /// [`model::max_buckets`], `words` is not exactly the table's length, bits past the table
    /// are set, or the longest kick chain exceeds 500.
    pub fn from_parts(
        words: Vec<u64>,
        buckets: u64,
        f: u32,
        hasher: H,
        state: CuckooState,
    ) -> Result<Self> {
        model::check_fingerprint_bits(f).map_err(|_| {
            Error::Corrupt(format!(
                "cuckoo filter has {f}-bit fingerprints, not 8, 12 or 16"
            ))
        })?;
        let max = model::max_buckets(f);
        if !buckets.is_power_of_two() || buckets > max {
            return Err(Error::Corrupt(format!(
                "cuckoo filter has {buckets} buckets, not a power of two from 1 to 2^{} ({f}-bit fingerprints)",
                max.ilog2()
            )));
        }
        let table_bits = model::table_bits(buckets, f).map_err(|_| {
            Error::Corrupt(format!(
                "cuckoo table of {buckets} buckets of four {f}-bit slots exceeds 2^64 bits"
            ))
        })?;
        let want = table_bits.div_ceil(64);
        if words.len() as u64 != want {
            return Err(Error::Corrupt(format!(
                "cuckoo table is {} words, but {buckets} buckets of {f}-bit slots need {want}",
                words.len()
            )));
        }
        if !table_bits.is_multiple_of(64)
            && words.last().is_some_and(|w| w >> (table_bits % 64) != 0)
        {
            return Err(Error::Corrupt(
                "cuckoo table has bits set past its last bucket".into(),
            ));
        }
        if state.longest_chain > model::MAX_KICKS {
            return Err(Error::Corrupt(format!(
                "cuckoo filter reports a kick chain of {}, more than the {} allowed",
                state.longest_chain,
                model::MAX_KICKS
            )));
        }
        let mut fl = Self {
            words,
            mask: buckets - 1,
            fp_bits: f,
            len: 0,
            hasher,
            rng: state.rng,
            kicks: state.kicks,
            longest_chain: state.longest_chain,
            refused: state.refused,
        };
        let mut len = 0u64;
        for i in 0..buckets {
            let b = fl.read_bucket(i);
            len += (0..B).filter(|&j| fl.slot(b, j) != 0).count() as u64;
        }
        fl.len = len;
        Ok(fl)
    }

    /// The state besides the table (for savers).
    #[must_use]
    pub fn state(&self) -> CuckooState {
        CuckooState {
            rng: self.rng,
            kicks: self.kicks,
            longest_chain: self.longest_chain,
            refused: self.refused,
        }
    }

    /// The hash function.
    #[must_use]
    pub fn hasher(&self) -> &H {
        &self.hasher
    }

    /// Number of buckets.
    #[must_use]
    pub fn buckets(&self) -> u64 {
        self.mask + 1
    }

    /// Fingerprint width in bits.
    #[must_use]
    pub fn fingerprint_bits(&self) -> u32 {
        self.fp_bits
    }

    /// Slots in use over all slots, α.
    #[must_use]
    pub fn load_factor(&self) -> f64 {
        self.len as f64 / (self.buckets() * u64::from(B)) as f64
    }

    /// Evictions performed by successful inserts, in total.
    #[must_use]
    pub fn kicks(&self) -> u64 {
        self.kicks
    }

    /// The most evictions one successful insert needed.
    #[must_use]
    pub fn longest_kick_chain(&self) -> u32 {
        self.longest_chain
    }

    /// Inserts refused with [`Error::Full`].
    #[must_use]
    pub fn refused(&self) -> u64 {
        self.refused
    }

    /// The packed table: slot `j` of bucket `i` is bits `(4i + j)·f ..` (for tests and loaders).
    #[must_use]
    pub fn table_words(&self) -> &[u64] {
        &self.words
    }

    // ANCHOR: index_alt
    /// Bucket index and fingerprint of `item`.
    #[inline]
    fn locate(&self, item: &[u8]) -> (u64, u64) {
        let h = self.hasher.hash128(item);
        let fp = h.hi >> (64 - self.fp_bits);
        (h.lo & self.mask, fp.max(1))
    }

    /// The other bucket of fingerprint `fp` in bucket `i`: `i ⊕ hash(fp)` (an involution).
    #[inline]
    fn alt(&self, i: u64, fp: u64) -> u64 {
        (i ^ mix64(fp)) & self.mask
    }
    // ANCHOR_END: index_alt

    #[inline]
    fn bucket_width(&self) -> u32 {
        B * self.fp_bits
    }

    #[inline]
    fn fp_mask(&self) -> u64 {
        (1u64 << self.fp_bits) - 1
    }

    /// The 4·f bits of bucket `i`, slot 0 lowest.
    #[inline]
    fn read_bucket(&self, i: u64) -> u64 {
        let width = self.bucket_width();
        let off = i * u64::from(width);
        let w = (off >> 6) as usize;
        let sh = (off & 63) as u32;
        let mut v = self.words[w] >> sh;
        if sh + width > 64 {
            v |= self.words[w + 1] << (64 - sh);
        }
        if width == 64 {
            v
        } else {
            v & ((1u64 << width) - 1)
        }
    }

    #[inline]
    fn write_bucket(&mut self, i: u64, v: u64) {
        let width = self.bucket_width();
        let off = i * u64::from(width);
        let w = (off >> 6) as usize;
        let sh = (off & 63) as u32;
        let full = if width == 64 {
            u64::MAX
        } else {
            (1u64 << width) - 1
        };
        self.words[w] = (self.words[w] & !(full << sh)) | (v << sh);
        if sh + width > 64 {
            let hi_bits = sh + width - 64;
            let hi_mask = (1u64 << hi_bits) - 1;
            self.words[w + 1] = (self.words[w + 1] & !hi_mask) | (v >> (64 - sh));
        }
    }

    #[inline]
    fn slot(&self, bucket: u64, j: u32) -> u64 {
        (bucket >> (j * self.fp_bits)) & self.fp_mask()
    }

    #[inline]
    fn bucket_has(&self, i: u64, fp: u64) -> bool {
        let b = self.read_bucket(i);
        (0..B).any(|j| self.slot(b, j) == fp)
    }

    /// Put `fp` in a free slot of bucket `i`, if it has one.
    #[inline]
    fn try_put(&mut self, i: u64, fp: u64) -> bool {
        let b = self.read_bucket(i);
        for j in 0..B {
            if self.slot(b, j) == 0 {
                self.write_bucket(i, b | (fp << (j * self.fp_bits)));
                return true;
            }
        }
        false
    }

    /// Replace slot `j` of bucket `i` with `fp`; returns what was there.
    #[inline]
    fn swap_slot(&mut self, i: u64, j: u32, fp: u64) -> u64 {
        let b = self.read_bucket(i);
        let sh = j * self.fp_bits;
        let old = (b >> sh) & self.fp_mask();
        self.write_bucket(i, (b & !(self.fp_mask() << sh)) | (fp << sh));
        old
    }

    /// Remove one copy of `fp` from bucket `i`.
    fn take(&mut self, i: u64, fp: u64) -> bool {
        let b = self.read_bucket(i);
        for j in 0..B {
            if self.slot(b, j) == fp {
                let sh = j * self.fp_bits;
                self.write_bucket(i, b & !(self.fp_mask() << sh));
                return true;
            }
        }
        false
    }

    fn next_random(&mut self) -> u64 {
        self.rng = self.rng.wrapping_add(0x9e37_79b9_7f4a_7c15);
        mix64(self.rng)
    }

    // ANCHOR: kick
    /// Evict and relocate, at most [`model::MAX_KICKS`] times; on failure undo every swap so the
    /// table is exactly as before.
    fn kick(&mut self, i1: u64, i2: u64, fp: u64) -> Result<()> {
        let r = self.next_random();
        let mut i = if r & 1 == 0 { i1 } else { i2 };
        let mut carry = fp;
        let mut path = [0u8; MAX_KICKS];
        for (n, step) in path.iter_mut().enumerate() {
            let j = ((self.next_random() >> 62) & 3) as u32;
            *step = j as u8;
            carry = self.swap_slot(i, j, carry);
            i = self.alt(i, carry);
            if self.try_put(i, carry) {
                let chain = n as u32 + 1;
                self.kicks = self.kicks.saturating_add(u64::from(chain));
                self.longest_chain = self.longest_chain.max(chain);
                self.len += 1;
                return Ok(());
            }
        }
        // Undo: step n swapped `carry_n` into slot path[n] of bucket b_n and moved on to
        // b_{n+1} = alt(b_n, carry_{n+1}); so b_n = alt(b_{n+1}, carry_{n+1}), walked backwards.
        for &j in path.iter().rev() {
            i = self.alt(i, carry);
            carry = self.swap_slot(i, u32::from(j), carry);
        }
        debug_assert_eq!(carry, fp);
        self.refused = self.refused.saturating_add(1);
        Err(Error::Full {
            len: self.len,
            reason: "cuckoo table: no free slot within 500 kicks (table left unchanged)",
        })
    }
    // ANCHOR_END: kick
}

impl<H: ItemHasher> Filter for CuckooFilter<H> {
    fn try_insert(&mut self, item: &[u8]) -> Result<()> {
        let (i1, fp) = self.locate(item);
        if self.try_put(i1, fp) {
            self.len += 1;
            return Ok(());
        }
        let i2 = self.alt(i1, fp);
        if self.try_put(i2, fp) {
            self.len += 1;
            return Ok(());
        }
        self.kick(i1, i2, fp)
    }

    #[inline]
    fn contains(&self, item: &[u8]) -> bool {
        let (i1, fp) = self.locate(item);
        self.bucket_has(i1, fp) || self.bucket_has(self.alt(i1, fp), fp)
    }

    /// Fingerprints stored: successful inserts minus removes.
    fn len(&self) -> u64 {
        self.len
    }

    /// Slots × fingerprint bits.
    fn bits(&self) -> u64 {
        // Every constructor checked that the table has fewer than 2^64 bits.
        model::table_bits(self.buckets(), self.fp_bits).unwrap_or(u64::MAX)
    }

    fn bytes(&self) -> usize {
        self.words.capacity() * 8
    }

    /// Two buckets per item.
    fn k(&self) -> u32 {
        2
    }

    fn classic_params(&self) -> Option<(u64, u32)> {
        None
    }

    /// `1 − (1 − 2^−f)^(2b·α)` at the current load α (Fan et al. 2014's bound, load-adjusted).
    fn expected_fpr(&self) -> f64 {
        model::fpr_at_load(self.fp_bits, B, self.load_factor())
    }

    fn kind(&self) -> FilterKind {
        FilterKind::Cuckoo
    }

    fn hash_id(&self) -> HashId {
        self.hasher.id()
    }

    fn strategy_id(&self) -> Option<StrategyId> {
        None
    }

    fn details(&self) -> Vec<(String, String)> {
        vec![
            ("buckets".into(), self.buckets().to_string()),
            ("fingerprint bits".into(), self.fp_bits.to_string()),
            ("load factor".into(), format!("{:.4}", self.load_factor())),
            (
                "fpr bound 2b/2^f".into(),
                format!("{:.6}", model::fpr_approx(self.fp_bits, B)),
            ),
            ("kicks".into(), self.kicks.to_string()),
            ("longest kick chain".into(), self.longest_chain.to_string()),
            ("refused inserts".into(), self.refused.to_string()),
        ]
    }

    fn as_removable(&mut self) -> Option<&mut dyn Removable> {
        Some(self)
    }
}

impl<H: ItemHasher> Removable for CuckooFilter<H> {
    fn remove(&mut self, item: &[u8]) -> Result<()> {
        let (i1, fp) = self.locate(item);
        if self.take(i1, fp) || self.take(self.alt(i1, fp), fp) {
            self.len -= 1;
            Ok(())
        } else {
            Err(Error::NotPresent)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn packing_round_trips_for_every_width() {
        for f in model::FINGERPRINT_BITS {
            let mut c = CuckooFilter::with_buckets(64, f).unwrap();
            let fm = (1u64 << f) - 1;
            // Write a distinct pattern into every slot, read it all back.
            for i in 0..64u64 {
                for j in 0..B {
                    let v = (mix64(i * 4 + u64::from(j)) & fm).max(1);
                    c.swap_slot(i, j, v);
                }
            }
            for i in 0..64u64 {
                let b = c.read_bucket(i);
                for j in 0..B {
                    let v = (mix64(i * 4 + u64::from(j)) & fm).max(1);
                    assert_eq!(c.slot(b, j), v, "f={f} bucket {i} slot {j}");
                }
            }
            assert_eq!(c.bytes() as u64, 64 * 4 * u64::from(f) / 8);
        }
    }

    #[test]
    fn failed_insert_leaves_table_exactly_as_before() {
        let mut c = CuckooFilter::with_buckets(16, 8).unwrap();
        let mut stored = Vec::new();
        let mut fulls = 0;
        for i in 0u64..200 {
            let before = (c.table_words().to_vec(), c.len());
            match c.try_insert(&i.to_le_bytes()) {
                Ok(()) => stored.push(i),
                Err(Error::Full { .. }) => {
                    fulls += 1;
                    assert_eq!((c.table_words().to_vec(), c.len()), before, "insert {i}");
                }
                Err(e) => panic!("{e}"),
            }
        }
        assert!(fulls > 0 && stored.len() as u64 == c.len());
        assert!(stored.iter().all(|i| c.contains(&i.to_le_bytes())));
        assert_eq!(c.refused(), fulls);
    }

    #[test]
    fn alt_is_an_involution() {
        let c = CuckooFilter::with_buckets(1 << 10, 12).unwrap();
        for i in 0..1024u64 {
            for fp in [1u64, 2, 77, 4095] {
                assert_eq!(c.alt(c.alt(i, fp), fp), i);
            }
        }
    }

    #[test]
    fn refuses_bad_shapes() {
        assert!(CuckooFilter::with_buckets(3, 8).is_err());
        assert!(CuckooFilter::with_buckets(0, 8).is_err());
        assert!(matches!(
            CuckooFilter::with_buckets(16, 10),
            Err(Error::InvalidParameter {
                param: Param::FingerprintBits,
                ..
            })
        ));
        assert!(CuckooFilter::with_rate(10, 1e-6).is_err());
    }

    /// `build --filter cuckoo --n 1e18 --p 0.00013` exited 101: 10^18 items get 2^58 buckets,
    /// and at 16-bit fingerprints 2^58 · 4 · 16 = 2^64 bits wrapped to a 0-word table. Every
    /// way to ask for that table is a typed error now.
    #[test]
    fn a_table_of_2_pow_64_bits_is_an_error_not_a_panic() {
        let n = 1_000_000_000_000_000_000u64;
        assert_eq!(model::buckets_for(n).unwrap(), 1 << 58);
        let e = CuckooFilter::with_rate(n, 0.000_13).unwrap_err(); // p → 16-bit fingerprints
        assert!(
            matches!(
                e,
                Error::InvalidParameter {
                    param: Param::N,
                    ..
                }
            ),
            "{e}"
        );
        let msg = e.to_string();
        assert!(msg.contains("invalid n: 1000000000000000000"), "{msg}");
        assert!(msg.contains("16-bit fingerprints"), "{msg}");
        let e = CuckooFilter::with_capacity_and(n, 16, Xxh3::default()).unwrap_err();
        assert!(
            matches!(
                e,
                Error::InvalidParameter {
                    param: Param::N,
                    ..
                }
            ),
            "{e}"
        );
        // The largest table that fits at f = 16 has 2^57 buckets: n just under 4·0.95·2^57 is
        // refused only for want of memory, not for its size.
        assert!(matches!(
            CuckooFilter::with_capacity_and(500_000_000_000_000_000, 16, Xxh3::default()),
            Err(Error::Allocation { .. })
        ));
        // Narrower fingerprints fit 2^58 buckets: too large to allocate, but not an overflow.
        assert!(matches!(
            CuckooFilter::with_capacity_and(n, 12, Xxh3::default()),
            Err(Error::Allocation { .. })
        ));
        let e = CuckooFilter::with_buckets(1 << 58, 16).unwrap_err();
        assert!(
            matches!(
                e,
                Error::InvalidParameter {
                    param: Param::Other("buckets"),
                    ..
                }
            ),
            "{e}"
        );
        let state = CuckooState {
            rng: 0,
            kicks: 0,
            longest_chain: 0,
            refused: 0,
        };
        let e =
            CuckooFilter::from_parts(Vec::new(), 1 << 58, 16, Xxh3::default(), state).unwrap_err();
        assert!(matches!(e, Error::Corrupt(_)), "{e}");
        assert!(model::table_bytes(1 << 58, 16).is_err());
        assert_eq!(model::table_bytes(1 << 57, 16).unwrap(), 1 << 60);
    }
}
