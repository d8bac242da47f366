//! The cuckoo filter (Fan, Andersen, Kaminsky & Mitzenmacher 2014).

mod table;

use crate::error::{Error, Param, Result};
use crate::filter::{Filter, FilterKind, Removable};
use crate::filters::batch;
use crate::hash::{HashId, ItemHasher, StrategyId, Xxh3, mix64};
use crate::theory::cuckoo as model;
use table::Table;

const MAX_KICKS: usize = model::MAX_KICKS as usize;

/// The [`Error::Full`] reason when an item's two buckets hold nothing but its own fingerprint:
/// the same item was inserted `2b` times (`b` when its buckets coincide), the most a cuckoo
/// filter can store, however empty the rest of the table is.
pub const TOO_MANY_COPIES: &str = "the key repeats too often for a cuckoo filter: its two buckets already hold 2b copies of its fingerprint, the most a cuckoo filter stores of one key (dedupe the keys, or use a counting or standard Bloom filter)";

/// The multiplier that spreads a fingerprint over the table for the alternate bucket (2^64/φ).
const ALT_MUL: u64 = 0x9e37_79b9_7f4a_7c15;

/// A cuckoo filter: `f`-bit fingerprints (4 to 32) in buckets of `b` slots (2, 4 or 8), any
/// number of buckets, two candidate buckets per item; supports [`Removable::remove`] (Fan,
/// Andersen, Kaminsky & Mitzenmacher 2014, "Cuckoo Filter: Practically Better Than Bloom",
/// CoNEXT).
///
/// * **Layout**: bit-packed, bucket `i` is the `b·f` bits at bit `i·b·f` of a `u64` array,
///   slot `j` its bits `j·f ..`; a bucket of up to 64 bits is read with two aligned `u64` loads
///   and a branch-free funnel shift, a wider one (up to 256 bits at b = 8, f = 32) as one or two
///   128-bit groups of three loads each. The slots are compared all at once with the SWAR
///   "has a zero lane" test on `bucket ^ (fp · 0x…0001_0001)` (the `table` submodule's doc says
///   why it is exact). Memory: `⌈m·b·f/64⌉ + 2` words for `m` buckets.
/// * **Hashing** (the paper's partial-key cuckoo hashing): one 64-bit hash `h` per item
///   ([`ItemHasher::hash64`]). The primary bucket is `i1 = ⌊h·m / 2^64⌋` (Lemire's multiply-shift
///   "fastrange", no division, any `m`), which depends mostly on the high bits of `h`; the
///   fingerprint comes from the low 32 bits `r`: `fp = ⌊r·(2^f − 1) / 2^32⌋ + 1`, uniform on
///   `1 ..= 2^f − 1` (0 marks an empty slot; the model uses the match rate `1/(2^f − 1)`).
/// * **Alternate bucket** for any `m`: `i2 = (c(fp) − i1) mod m` with
///   `c(fp) = ⌊(fp·K mod 2^64)·m / 2^64⌋`, K = 2^64/φ. Since `i1 + i2 ≡ c(fp)`, the same map
///   sends `i2` back to `i1`: an involution for every `m`, so either bucket and the fingerprint
///   give the other without the item, which is what lets entries move, and every lookup reads
///   exactly two buckets. (The paper's `i1 ⊕ hash(fp)` needs a power-of-two `m`, which can
///   nearly halve the load; schemes that add an offset need a third bucket or a tag bit to
///   undo it.) The subtraction's wrap is a conditional add compiled without a branch. When
///   `2·i1 ≡ c(fp)` the two buckets coincide (probability about 1/m).
/// * **Insert** puts the fingerprint in a free slot of `i1` or `i2`; otherwise it looks one step
///   ahead (an entry of either bucket whose other bucket has a free slot moves there and the
///   fingerprint takes its place: one kick), and only if no entry can move does it evict a random
///   entry and carry it to *its* other bucket (the paper's random walk), looking ahead again at
///   every bucket it reaches, up to 500 kicks in all. From 47% to 94% load the look-ahead cuts
///   kicks per insert from 1.39 to 0.38 and the first refusal moves up (96.6% to 97.4% load at
///   b = 4).
/// * **Full, without losing anything.** The reference implementation keeps the last homeless
///   fingerprint in a one-entry *victim* slot, reports success and refuses every later insert;
///   the popular `cuckoofilter` crate returns `NotEnoughSpace` after dropping the last evicted
///   fingerprint, a silent false negative (documented in axiomhq/rust-cuckoofilter PR #26). We
///   record the slots of the eviction path and, when 500 kicks do not find a free slot, **undo
///   the path**: the insert returns [`Error::Full`] and the table is bit for bit what it was
///   (checked by the tests). So no victim slot is needed, a refused item is simply not stored,
///   and later inserts whose buckets have room still succeed.
/// * **Duplicates**: an item's copies can only live in its two buckets, so the same item can be
///   inserted at most `2b` times (`b` in the rare case that its two buckets coincide); the next
///   insert returns [`Error::Full`] (a limit the paper states).
/// * **Remove** deletes one copy of the fingerprint from either bucket, [`Error::NotPresent`]
///   if neither holds it. Removing an item that was never inserted but collides with a stored
///   fingerprint removes that fingerprint: a false negative for its owner. Only remove what you
///   inserted.
/// * **Sizing** from (n, p) ([`model::sizing`]): `f = ⌈log2(2b/p)⌉`, `m = ⌈n/(b·(α_b − 0.01))⌉`
///   with the paper's loads α_b = 84%, 95%, 98% for b = 2, 4, 8: 10.6 bits per key at p = 1%.
/// * **Tables of the first layout** (saved before this one: b = 4, f = 8/12/16, a power-of-two
///   `m`, a 128-bit hash, `i1 = h.lo mod m`, fp = the top `f` bits of `h.hi` with 0 mapped to 1,
///   `i2 = i1 ⊕ mix64(fp)`) load and keep working with that hashing ([`CuckooFilter::is_legacy`]);
///   their packed table is the same layout.
///
/// The model ([`Filter::expected_fpr`]) is the load-adjusted bound
/// `1 − (1 − 1/(2^f − 1))^(2b·α)` ([`model::fpr_at_load`]).
///
/// ```
/// use bloomlab::{Filter, Removable};
/// use bloomlab::filters::CuckooFilter;
/// use bloomlab::workload::{KeyGen, KeyKind};
/// let keys = KeyGen::new(KeyKind::U64, 1);
/// let mut f = CuckooFilter::with_buckets(4_000, 12).unwrap();
/// assert_eq!(f.bytes(), 24_000 + 16);             // 4,000 buckets · 4 slots · 12 bits / 8, + pad
/// let n = 15_200;                                 // 95% of 16,000 slots
/// for i in 0..n { f.try_insert(&keys.present_key(i)).unwrap(); }
/// assert!((f.load_factor() - 0.95).abs() < 1e-4);
/// assert!((0..n).all(|i| f.contains(&keys.present_key(i))));
/// let model = f.expected_fpr();                   // 1 − (1 − 1/4095)^(8·0.95)
/// assert!((model - 0.001_855).abs() < 1e-6);      // under the bound 2b/2^f = 0.195%
/// let fp = (0..200_000).filter(|&j| f.contains(&keys.absent_key(j))).count();
/// let fpr = fp as f64 / 200_000.0;                // σ ≈ 0.0096% at 200,000 queries
/// assert!((fpr - model).abs() < 0.0004, "{fpr}"); // agrees within 4σ
/// f.remove(&keys.present_key(0)).unwrap();
/// assert_eq!(f.len(), n - 1);
/// ```
#[derive(Debug, Clone)]
pub struct CuckooFilter<H = Xxh3> {
    table: Table,
    /// Buckets, m.
    m: u64,
    /// `2^f − 1`.
    fp_max: u64,
    /// The first layout's hashing (see the type's doc).
    legacy: bool,
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

/// The shape of a saved table, for [`CuckooFilter::from_parts`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct CuckooLayout {
    /// Buckets.
    pub buckets: u64,
    /// Fingerprint bits.
    pub fingerprint_bits: u32,
    /// Slots per bucket.
    pub bucket_size: u32,
    /// The first layout's hashing (b = 4, f 8/12/16, power-of-two buckets).
    pub legacy: bool,
}

/// How many items [`CuckooFilter::insert_batch`] and [`Filter::contains_batch`] hash (and
/// prefetch) before they touch the table.
pub const BATCH: usize = 16;

impl CuckooFilter<Xxh3> {
    /// A filter for `n` items at rate `p` with the default hash and buckets of 4.
    ///
    /// # Errors
    /// Invalid `n` or `p` (p below 8/2^32 ≈ 1.9·10⁻⁹ needs more than 32 bits);
    /// [`Error::Allocation`].
    pub fn with_rate(n: u64, p: f64) -> Result<Self> {
        Self::with_rate_and(n, p, Xxh3::default())
    }

    /// A filter of `buckets` buckets of 4 and `f`-bit fingerprints.
    ///
    /// # Errors
    /// `buckets` 0 or too many; `f` not 4 to 32; [`Error::Allocation`].
    pub fn with_buckets(buckets: u64, f: u32) -> Result<Self> {
        Self::with_buckets_and(buckets, f, Xxh3::default())
    }
}

impl<H: ItemHasher> CuckooFilter<H> {
    /// A filter for `n` items at rate `p` in buckets of 4 ([`model::sizing`]).
    ///
    /// # Errors
    /// Invalid `n` or `p`; [`Error::Allocation`].
    pub fn with_rate_and(n: u64, p: f64, hasher: H) -> Result<Self> {
        Self::with_sizing_and(model::sizing(n, p, model::BUCKET_SLOTS, 0)?, hasher)
    }

    /// A filter for `n` items with `f`-bit fingerprints in buckets of 4.
    ///
    /// # Errors
    /// Invalid `n`; `f` not 4 to 32; [`Error::Allocation`].
    pub fn with_capacity_and(n: u64, f: u32, hasher: H) -> Result<Self> {
        model::check_fingerprint_bits(f)?;
        Self::with_sizing_and(model::sizing(n, 0.5, model::BUCKET_SLOTS, f)?, hasher)
    }

    /// A filter of the shape `s` ([`model::sizing`]).
    ///
    /// # Errors
    /// As [`CuckooFilter::with_layout_and`].
    pub fn with_sizing_and(s: model::Sizing, hasher: H) -> Result<Self> {
        Self::with_layout_and(s.buckets, s.fingerprint_bits, s.bucket_size, hasher)
    }

    /// A filter of `buckets` buckets of 4 and `f`-bit fingerprints.
    ///
    /// # Errors
    /// As [`CuckooFilter::with_layout_and`].
    pub fn with_buckets_and(buckets: u64, f: u32, hasher: H) -> Result<Self> {
        Self::with_layout_and(buckets, f, model::BUCKET_SLOTS, hasher)
    }

    /// A filter of `buckets` buckets (any count from 1 to [`model::max_buckets`]) of `b` slots
    /// (2, 4 or 8; 0 = 4) of `f` bits (4 to 32).
    ///
    /// # Errors
    /// Invalid `buckets`, `b` or `f`; [`Error::Allocation`].
    pub fn with_layout_and(buckets: u64, f: u32, b: u32, hasher: H) -> Result<Self> {
        model::check_fingerprint_bits(f)?;
        let b = model::check_bucket_size(b)?;
        let max = model::max_buckets(f, b);
        if buckets == 0 || buckets > max {
            return Err(Error::invalid(
                Param::Other("buckets"),
                buckets,
                format!("from 1 to {max} at {f}-bit fingerprints in buckets of {b}"),
            ));
        }
        let table = Table::new(buckets, f, b)?;
        let rng = mix64(hasher.hash128(b"bloomlab/cuckoo/kicks").lo);
        Ok(Self::assemble(
            table,
            false,
            hasher,
            CuckooState {
                rng,
                kicks: 0,
                longest_chain: 0,
                refused: 0,
            },
        ))
    }

    fn assemble(table: Table, legacy: bool, hasher: H, state: CuckooState) -> Self {
        let f = table.fingerprint_bits();
        Self {
            m: table.buckets(),
            fp_max: (1u64 << f) - 1,
            table,
            legacy,
            len: 0,
            hasher,
            rng: state.rng,
            kicks: state.kicks,
            longest_chain: state.longest_chain,
            refused: state.refused,
        }
    }

    /// Rebuild from saved parts (see [`crate::persist`]): the packed table `words` (exactly
    /// [`model::table_words`] of them) of the shape `layout`, and the [`CuckooState`]. The count
    /// of stored fingerprints is the number of non-empty slots.
    ///
    /// # Errors
    /// [`Error::Corrupt`] when the shape is invalid (a legacy one: b ≠ 4, f not 8, 12 or 16,
    /// buckets not a power of two), `words` is not exactly the table's length, bits past the
    /// table are set, or the longest kick chain exceeds 500.
    pub fn from_parts(
        mut words: Vec<u64>,
        layout: CuckooLayout,
        hasher: H,
        state: CuckooState,
    ) -> Result<Self> {
        let CuckooLayout {
            buckets,
            fingerprint_bits: f,
            bucket_size: b,
            legacy,
        } = layout;
        model::check_fingerprint_bits(f).map_err(|_| {
            Error::Corrupt(format!(
                "cuckoo filter has {f}-bit fingerprints, not 4 to 32"
            ))
        })?;
        if !model::BUCKET_SIZES.contains(&b) {
            return Err(Error::Corrupt(format!(
                "cuckoo filter has buckets of {b}, not 2, 4 or 8"
            )));
        }
        if legacy
            && (b != 4
                || !model::LEGACY_FINGERPRINT_BITS.contains(&f)
                || !buckets.is_power_of_two())
        {
            return Err(Error::Corrupt(format!(
                "cuckoo filter of the first layout has {buckets} buckets of {b} {f}-bit slots (that layout is a power of two of buckets of four 8-, 12- or 16-bit slots)"
            )));
        }
        let max = model::max_buckets(f, b);
        if buckets == 0 || buckets > max {
            return Err(Error::Corrupt(format!(
                "cuckoo filter has {buckets} buckets, not 1 to {max} ({f}-bit fingerprints, buckets of {b})"
            )));
        }
        let table_bits = model::table_bits(buckets, f, b).map_err(|_| {
            Error::Corrupt(format!(
                "cuckoo table of {buckets} buckets of {b} {f}-bit slots exceeds 2^64 bits"
            ))
        })?;
        let want = table_bits.div_ceil(64);
        if words.len() as u64 != want {
            return Err(Error::Corrupt(format!(
                "cuckoo table is {} words, but {buckets} buckets of {b} {f}-bit slots need {want}",
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
        words
            .try_reserve_exact(model::PAD_WORDS as usize)
            .map_err(|_| Error::Allocation {
                bytes: u128::from(want + model::PAD_WORDS) * 8,
            })?;
        words.resize(words.len() + model::PAD_WORDS as usize, 0);
        let mut fl = Self::assemble(
            Table::from_words(words, buckets, f, b)?,
            legacy,
            hasher,
            state,
        );
        fl.len = fl.table.count_occupied();
        Ok(fl)
    }

    /// The shape of the table (for savers).
    #[must_use]
    pub fn layout(&self) -> CuckooLayout {
        CuckooLayout {
            buckets: self.m,
            fingerprint_bits: self.fingerprint_bits(),
            bucket_size: self.bucket_size(),
            legacy: self.legacy,
        }
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
        self.m
    }

    /// Slots per bucket, b.
    #[must_use]
    pub fn bucket_size(&self) -> u32 {
        self.table.bucket_size()
    }

    /// Fingerprint width in bits.
    #[must_use]
    pub fn fingerprint_bits(&self) -> u32 {
        self.table.fingerprint_bits()
    }

    /// Whether this table uses the first layout's hashing (loaded from an old file).
    #[must_use]
    pub fn is_legacy(&self) -> bool {
        self.legacy
    }

    /// Slots in use over all slots, α.
    #[must_use]
    pub fn load_factor(&self) -> f64 {
        self.len as f64 / (self.m as f64 * f64::from(self.bucket_size()))
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

    /// The packed table without its padding: slot `j` of bucket `i` is bits `(b·i + j)·f ..`
    /// (for tests and savers).
    #[must_use]
    pub fn table_words(&self) -> &[u64] {
        self.table.words()
    }

    /// The read-only view of where items go and what the slots hold, which the structure
    /// diagrams (and their tests) draw from.
    #[must_use]
    pub fn view(&self) -> CuckooView<'_, H> {
        CuckooView(self)
    }

    // ANCHOR: index_alt
    /// Bucket index and fingerprint of `item`, from one 64-bit hash.
    #[inline(always)]
    fn locate(&self, item: &[u8]) -> (u64, u64) {
        if self.legacy {
            let h = self.hasher.hash128(item);
            let fp = h.hi >> (64 - self.fingerprint_bits());
            return (h.lo & (self.m - 1), fp.max(1));
        }
        bucket_and_fp(self.hasher.hash64(item), self.m, self.fp_max)
    }

    /// The other bucket of fingerprint `fp` in bucket `i`: `(c(fp) − i) mod m`, an involution.
    #[inline(always)]
    fn alt(&self, i: u64, fp: u64) -> u64 {
        if self.legacy {
            return (i ^ mix64(fp)) & (self.m - 1);
        }
        alt_bucket(i, fp, self.m)
    }
    // ANCHOR_END: index_alt

    /// Insert every item of `items`; returns how many were refused ([`Error::Full`]: each
    /// refused item is simply not stored, everything else is). A chunk of [`BATCH`] items is
    /// hashed and both of each item's buckets prefetched (a chunk ahead, in a table larger than
    /// the caches: `filters/batch.rs`) first, then the items are placed in order, so a table in
    /// DRAM has the chunk's cache misses in flight at once.
    pub fn insert_batch(&mut self, items: &[&[u8]]) -> u64 {
        let warm = batch::prefetch_pays(self.table.bytes());
        batch::insert::<_, BATCH>(self, items, warm)
    }

    /// Store fingerprint `fp` whose primary bucket is `i1` (the insert after hashing).
    #[inline(always)]
    fn place(&mut self, i1: u64, fp: u64) -> Result<()> {
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

    fn next_random(&mut self) -> u64 {
        self.rng = self.rng.wrapping_add(0x9e37_79b9_7f4a_7c15);
        mix64(self.rng)
    }

    /// Put `fp` in a free slot of bucket `i`, if it has one.
    #[inline(always)]
    fn try_put(&mut self, i: u64, fp: u64) -> bool {
        self.table.put_free(i, fp)
    }

    // ANCHOR: kick
    /// Both buckets are full: relocate entries, at most [`model::MAX_KICKS`] moves, looking one
    /// step ahead before every random eviction; on failure undo every swap so the table is
    /// exactly as before.
    #[cold]
    #[inline(never)]
    fn kick(&mut self, i1: u64, i2: u64, fp: u64) -> Result<()> {
        // One move, if an entry of either bucket has room in its other bucket.
        if self.move_one(i1, fp) || self.move_one(i2, fp) {
            return self.placed(1);
        }
        // Else a random walk (Fan et al. 2014): evict a random entry, carry it to its other
        // bucket, and look ahead from there again.
        let r = self.next_random();
        let mut i = if r & 1 == 0 { i1 } else { i2 };
        let mut carry = fp;
        let lanes_shift = 64 - self.bucket_size().trailing_zeros();
        let mut path = [0u8; MAX_KICKS];
        for (n, step) in path.iter_mut().enumerate() {
            let j = (self.next_random() >> lanes_shift) as u32;
            *step = j as u8;
            carry = self.table.swap(self.table.slot_offset(i, j), carry);
            i = self.alt(i, carry);
            if self.try_put(i, carry) {
                return self.placed(n as u32 + 1);
            }
            // The look-ahead move is one more kick: not past the limit.
            if n + 1 < MAX_KICKS && self.move_one(i, carry) {
                return self.placed(n as u32 + 2);
            }
        }
        // Undo: step n swapped `carry_n` into slot path[n] of bucket b_n and moved on to
        // b_{n+1} = alt(b_n, carry_{n+1}); so b_n = alt(b_{n+1}, carry_{n+1}), walked backwards.
        // (A look-ahead that found nothing changed nothing.)
        for &j in path.iter().rev() {
            i = self.alt(i, carry);
            carry = self
                .table
                .swap(self.table.slot_offset(i, u32::from(j)), carry);
        }
        debug_assert_eq!(carry, fp);
        self.refused = self.refused.saturating_add(1);
        Err(Error::Full {
            len: self.len,
            reason: if self.only_copies_of(i1, i2, fp) {
                TOO_MANY_COPIES
            } else {
                "cuckoo table: no free slot within 500 kicks (table left unchanged)"
            },
        })
    }

    /// True when every slot of buckets `i1` and `i2` holds `fp`: the item's copies fill both
    /// of its buckets, so no number of kicks can make room (the `2b` limit, not a full table).
    fn only_copies_of(&self, i1: u64, i2: u64, fp: u64) -> bool {
        (0..self.bucket_size()).all(|j| {
            self.table.get(self.table.slot_offset(i1, j)) == fp
                && self.table.get(self.table.slot_offset(i2, j)) == fp
        })
    }

    /// The look-ahead (the breadth-first step of libcuckoo, Li et al. 2014): find the first
    /// entry of the full bucket `i` whose other bucket has a free slot, move it there and put
    /// `fp` in its place; changes nothing when no entry can move. A random eviction succeeds
    /// only when the one entry it picks has room, so at 90% load a walk takes several swaps
    /// (and may carry an entry straight back); checking all `b` candidates first takes one
    /// move in most cases.
    #[inline(always)]
    fn move_one(&mut self, i: u64, fp: u64) -> bool {
        // A narrow bucket is read once and its lanes taken by shifts.
        let word = self.table.narrow_bucket(i);
        let f = self.fingerprint_bits();
        for j in 0..self.bucket_size() {
            let v = match word {
                Some(w) => (w >> (j * f)) & self.fp_max,
                None => self.table.get(self.table.slot_offset(i, j)),
            };
            if self.try_put(self.alt(i, v), v) {
                self.table.set(self.table.slot_offset(i, j), fp);
                return true;
            }
        }
        false
    }

    /// Count a successful insert that took `chain` kicks.
    fn placed(&mut self, chain: u32) -> Result<()> {
        self.kicks = self.kicks.saturating_add(u64::from(chain));
        self.longest_chain = self.longest_chain.max(chain);
        self.len += 1;
        Ok(())
    }
    // ANCHOR_END: kick
}

/// The primary bucket and the fingerprint of an item whose 64-bit hash is `h`, in a table of
/// `m` buckets with fingerprints `1 ..= fp_max`: `⌊h·m / 2^64⌋` and `⌊(h mod 2^32)·fp_max /
/// 2^32⌋ + 1` (see [`CuckooFilter`]). The one derivation inserts, queries and the reachability
/// audit ([`crate::reach`]) use.
#[inline(always)]
#[must_use]
pub fn bucket_and_fp(h: u64, m: u64, fp_max: u64) -> (u64, u64) {
    let i = ((u128::from(h) * u128::from(m)) >> 64) as u64;
    let fp = (((h & 0xffff_ffff) * fp_max) >> 32) + 1;
    (i, fp)
}

/// `(c(fp) − i) mod m` with `c(fp) = ⌊(fp·K mod 2^64)·m / 2^64⌋`: the alternate bucket for any
/// bucket count `m` (see [`CuckooFilter`]). For `i < m` the result is below `m`, and applying it
/// twice gives `i` back.
#[inline(always)]
#[must_use]
pub fn alt_bucket(i: u64, fp: u64, m: u64) -> u64 {
    let c = ((u128::from(fp.wrapping_mul(ALT_MUL)) * u128::from(m)) >> 64) as u64;
    let (d, borrow) = c.overflowing_sub(i);
    d.wrapping_add(m & 0u64.wrapping_sub(u64::from(borrow)))
}

/// The halves of the batch operations (`filters/batch.rs`).
impl<H: ItemHasher> batch::Staged for CuckooFilter<H> {
    type Step = (u64, u64, u64);
    /// The first half of a batch operation for one item: its two buckets and fingerprint, and
    /// (when `warm`) both buckets prefetched (`filters/batch.rs`).
    #[inline(always)]
    fn stage(&self, item: &[u8], warm: bool) -> (u64, u64, u64) {
        let (i1, fp) = self.locate(item);
        let i2 = self.alt(i1, fp);
        if warm {
            self.table.prefetch_bucket(i1);
            self.table.prefetch_bucket(i2);
        }
        (i1, i2, fp)
    }
    #[inline(always)]
    fn probe_step(&self, (i1, i2, fp): (u64, u64, u64)) -> bool {
        self.table.either_has(i1, i2, fp)
    }
    #[inline(always)]
    fn store_step(&mut self, (i1, _, fp): (u64, u64, u64)) -> bool {
        self.place(i1, fp).is_ok()
    }
}

/// A read-only view of a [`CuckooFilter`]: an item's buckets and fingerprint, and what each
/// slot holds ([`CuckooFilter::view`]).
#[derive(Debug)]
pub struct CuckooView<'a, H>(&'a CuckooFilter<H>);

impl<H: ItemHasher> CuckooView<'_, H> {
    /// The primary bucket and fingerprint of `item`.
    #[must_use]
    pub fn bucket_and_fingerprint(&self, item: &[u8]) -> (u64, u64) {
        self.0.locate(item)
    }

    /// The other bucket of fingerprint `fp` stored in bucket `i`.
    #[must_use]
    pub fn other_bucket(&self, i: u64, fp: u64) -> u64 {
        self.0.alt(i, fp)
    }

    /// The fingerprint in slot `j` of bucket `i`, 0 when empty.
    #[must_use]
    pub fn slot(&self, i: u64, j: u32) -> u64 {
        self.0.table.get(self.0.table.slot_offset(i, j))
    }
}

impl<H: ItemHasher> Filter for CuckooFilter<H> {
    fn try_insert(&mut self, item: &[u8]) -> Result<()> {
        let (i1, fp) = self.locate(item);
        self.place(i1, fp)
    }

    /// Both buckets read and all `2b` slots compared without a branch on the data.
    #[inline]
    fn contains(&self, item: &[u8]) -> bool {
        let (i1, fp) = self.locate(item);
        self.table.either_has(i1, self.alt(i1, fp), fp)
    }

    /// A chunk of [`BATCH`] items is hashed (and, in a large table, both buckets of each
    /// prefetched a chunk ahead) first, then the chunk is probed (`filters/batch.rs`).
    fn contains_batch(&self, items: &[&[u8]], out: &mut [bool]) {
        batch::contains::<_, BATCH>(self, items, out, batch::prefetch_pays(self.table.bytes()));
    }

    /// Fingerprints stored: successful inserts minus removes.
    fn len(&self) -> u64 {
        self.len
    }

    /// Slots × fingerprint bits.
    fn bits(&self) -> u64 {
        // Every constructor checked that the table has fewer than 2^64 bits.
        model::table_bits(self.m, self.fingerprint_bits(), self.bucket_size()).unwrap_or(u64::MAX)
    }

    fn bytes(&self) -> usize {
        self.table.bytes()
    }

    /// Two buckets per item.
    fn k(&self) -> u32 {
        2
    }

    fn classic_params(&self) -> Option<(u64, u32)> {
        None
    }

    /// `1 − (1 − 1/(2^f − 1))^(2b·α)` at the current load α (Fan et al. 2014's bound,
    /// load-adjusted).
    fn expected_fpr(&self) -> f64 {
        let (f, b, a) = (
            self.fingerprint_bits(),
            self.bucket_size(),
            self.load_factor(),
        );
        if self.legacy {
            model::fpr_at_load_legacy(f, b, a)
        } else {
            model::fpr_at_load(f, b, a)
        }
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
        let (f, b) = (self.fingerprint_bits(), self.bucket_size());
        let mut d = vec![
            ("buckets".into(), self.buckets().to_string()),
            ("bucket size".into(), b.to_string()),
            ("fingerprint bits".into(), f.to_string()),
            ("load factor".into(), format!("{:.4}", self.load_factor())),
            (
                "fpr bound 2b/2^f".into(),
                format!("{:.6}", model::fpr_approx(f, b)),
            ),
            ("kicks".into(), self.kicks.to_string()),
            ("longest kick chain".into(), self.longest_chain.to_string()),
            ("refused inserts".into(), self.refused.to_string()),
        ];
        if self.legacy {
            d.push(("layout".into(), "1 (power-of-two table, xor)".into()));
        }
        d
    }

    fn as_removable(&mut self) -> Option<&mut dyn Removable> {
        Some(self)
    }
}

impl<H: ItemHasher> Removable for CuckooFilter<H> {
    fn remove(&mut self, item: &[u8]) -> Result<()> {
        let (i1, fp) = self.locate(item);
        let at = self
            .table
            .find(i1, fp)
            .or_else(|| self.table.find(self.alt(i1, fp), fp));
        match at {
            Some(off) => {
                self.table.set(off, 0);
                self.len -= 1;
                Ok(())
            }
            None => Err(Error::NotPresent),
        }
    }
}

#[cfg(test)]
mod tests;
