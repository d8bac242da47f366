//! The binary fuse filter, 3-wise and 4-wise (Graf & Lemire 2022).

use super::batch::{self, Probe};
use super::bulk::{self, Depth};
use super::prefetch::prefetch;
use super::static_set::{self, KeyHashes, Slot, Table};
use crate::error::{Error, Result};
use crate::filter::{Filter, FilterKind};
use crate::hash::{HashId, ItemHasher, StrategyId, Xxh3};
use crate::theory::binary_fuse as model;
use crate::theory::xor as xor_model;
use std::borrow::Cow;

/// Hashes (slots) per key of the default, 3-wise filter ([`model::check_arity`] lists the
/// arities built: 3 and 4).
pub const ARITY: u32 = 3;

/// A binary fuse filter: a static set of keys in about `1.125·n` slots of 8- or 16-bit
/// fingerprints, three slots per key in three consecutive short segments (Graf & Lemire 2022,
/// "Binary Fuse Filters: Fast and Smaller Than Xor Filters", ACM JEA 27), or, 4-wise
/// ([`BinaryFuseFilter::from_keys_arity_and`]), about `1.075·n` slots, four per key in four
/// consecutive segments (§3–4 of the paper: the 4-wise hypergraph peels at a lower space factor,
/// one more memory access per query).
///
/// * **Layout** ([`model::layout`]): segments of `L` slots (a power of two); a key's mixed
///   64-bit hash `h` picks the start `h0 = ⌊h · S·L / 2^64⌋` of its window among the first
///   `S·L` slots, then one slot in each of the next two segments at offsets taken from other
///   bits of `h`; its fingerprint is the low bits of `h ⊕ (h >> 32)`.
/// * **Query**: as for the [`XorFilter`](super::XorFilter): XOR of the three slots against the
///   fingerprint, rate `2^−f`, for `≈ 1.125·f` bits per key at large n (the paper's size factor
///   `max(1.125, 0.875 + 0.25·ln 10⁶/ln n)` is above 1.125 below 10⁶ keys).
/// * **Construction** from the whole set: the hashes are mixed with a seed and
///   counting-sorted by their top bits, which orders the keys by window, so the peeling walks
///   the table nearly in order (the locality the paper's construction relies on); repeats are
///   removed after a first failed attempt; at most [`static_set::MAX_ATTEMPTS`] seeds, then
///   [`Error::Construction`].
/// * **Static**: [`Filter::try_insert`] returns [`Error::Static`].
///
/// ```
/// use bloomlab::Filter;
/// use bloomlab::filters::BinaryFuseFilter;
/// let n = 1_000_000u64;
/// let f = BinaryFuseFilter::from_keys((0..n).map(u64::to_le_bytes), 8).unwrap();
/// assert!((0..n).step_by(97).all(|k| f.contains(&k.to_le_bytes())));
/// assert_eq!(f.bits(), 1_130_496 * 8);                      // 138 segments of 2^13 slots
/// let bpk = f.bytes() as f64 * 8.0 / n as f64;
/// assert!((bpk / (1.125 * 8.0) - 1.0).abs() < 0.02, "{bpk}"); // ≈ 1.125·f bits per key
/// let fp = (n..n + 200_000).filter(|k| f.contains(&k.to_le_bytes())).count();
/// let fpr = fp as f64 / 200_000.0;                          // model 2^−8
/// assert!((fpr - f.expected_fpr()).abs() < 0.0006, "{fpr}");
/// ```
#[derive(Debug, Clone)]
pub struct BinaryFuseFilter<H = Xxh3> {
    table: Table,
    /// Slots per segment, L (a power of two).
    segment: u32,
    /// Slots a window may start in: segment count S times L.
    starts: u32,
    /// Slots per key: 3 or 4.
    arity: u32,
    /// [`window_limit`] of the table: window starts below it read inside the table.
    limit: u32,
    seed: u64,
    len: u64,
    distinct: u64,
    attempts: u32,
    hasher: H,
}

/// The label the seeds of a binary fuse filter are derived from.
const SEED_LABEL: &[u8] = b"bloomlab/binary-fuse/seed";

/// The `A` (3 or 4) slots of mixed hash `h`, in tables of segments of `l` slots whose windows
/// start in `0..starts`: the window start `h0 = ⌊h · starts / 2^64⌋` from the high bits, then
/// slot `j` is `(h0 + j·l) ⊕ (x_j mod l)`, one slot in each of the next `A − 1` segments
/// (`l` a power of two: XOR with a value below `l` stays in the segment). The offsets `x_j`
/// are fields of `h`: 3-wise `h >> 18` and `h`, 4-wise `h`, `h >> 18` and `h >> 36`. One
/// definition for construction and query, so the two cannot drift apart; the sums wrap (they
/// never do for a table of the layout, below 2^32 slots).
#[inline(always)]
fn slots<const A: usize>(h: u64, l: u32, starts: u32) -> [u32; A] {
    let h0 = ((u128::from(h) * u128::from(starts)) >> 64) as u32;
    let mask = l.wrapping_sub(1);
    let x: [u32; 4] = if A == 4 {
        [0, h as u32, (h >> 18) as u32, (h >> 36) as u32]
    } else {
        [0, (h >> 18) as u32, h as u32, 0]
    };
    let mut p = [0u32; A];
    let mut base = h0;
    for (j, pj) in p.iter_mut().enumerate() {
        *pj = base ^ (x[j] & mask);
        base = base.wrapping_add(l);
    }
    p
}

/// The three slots of mixed hash `h` (3-wise, see `slots`; also driven by the reachability
/// audit, [`crate::reach`]).
#[inline]
#[must_use]
pub fn positions(h: u64, l: u32, starts: u32) -> [u32; 3] {
    slots::<3>(h, l, starts)
}

/// The four slots of mixed hash `h` (4-wise, see [`slots`]).
#[inline]
fn positions4(h: u64, l: u32, starts: u32) -> [u32; 4] {
    slots::<4>(h, l, starts)
}

/// The window starts whose slots all lie in a table of `len` slots, `arity` slots a key,
/// segments of `l` slots: every `h0 < window_limit(..)` has its [`slots`] below `len`. Slot
/// `j` is `b_j ⊕ y` with `b_j = h0 + j·l` (wrapped: at most the sum) and `y ≤ m = l − 1`
/// (wrapped), so it is at most `b_j | m`. For `l` a power of two, `x ↦ x | m` is monotone and
/// stays below any multiple of `l` above `x`, so `h0 + (arity − 1)·l < len − len mod l`
/// suffices; for any other `l` (no layout has one) `b_j | m ≤ b_j + m` gives a looser bound.
/// For a table of the layout, `len = starts + (arity − 1)·l`, this is `starts`, and every
/// `h0` is below `starts`: the check never refuses a key of a filter that was built or loaded.
fn window_limit(len: u64, arity: u32, l: u32) -> u32 {
    let span = u64::from(arity.saturating_sub(1)) * u64::from(l);
    let limit = if l.is_power_of_two() {
        (len & !(u64::from(l) - 1)).saturating_sub(span)
    } else {
        len.saturating_sub(span + u64::from(l.wrapping_sub(1)))
    };
    u32::try_from(limit).unwrap_or(u32::MAX)
}

/// The query of mixed hash `h` in table `t`: the XOR of its `A` slots against its
/// fingerprint. `limit` is `window_limit(t.len(), A, l)` (the filter keeps it beside its
/// table): one comparison of the window start `h0` against it puts all `A` slots in the
/// table, replacing `A` bounds checks (gate: see `benches/gate.rs`).
#[inline(always)]
fn probe<const A: usize, F: Slot>(t: &[F], h: u64, (l, starts, limit): (u32, u32, u32)) -> bool {
    debug_assert_eq!(limit, window_limit(t.len() as u64, A as u32, l));
    let p = slots::<A>(h, l, starts);
    if p[0] >= limit {
        // Never for a table of the filter's layout (see `window_limit`).
        return false;
    }
    let mut v = F::from_hash(h);
    for &i in &p {
        debug_assert!((i as usize) < t.len());
        // SAFETY: p[0] = h0 < limit = window_limit(t.len(), A, l), so i < t.len() (the bound
        // is proved in `window_limit`'s comment).
        #[allow(unsafe_code)]
        let s = unsafe { *t.get_unchecked(i as usize) };
        v = v ^ s;
    }
    v == F::default()
}

impl BinaryFuseFilter<Xxh3> {
    /// A binary fuse filter of `keys` with `f`-bit (8 or 16) fingerprints and the default hash.
    ///
    /// # Errors
    /// As [`BinaryFuseFilter::from_keys_and`].
    pub fn from_keys<I, K>(keys: I, f: u32) -> Result<Self>
    where
        I: IntoIterator<Item = K>,
        K: AsRef<[u8]>,
    {
        Self::from_keys_and(keys, f, Xxh3::default())
    }
}

impl<H: ItemHasher> BinaryFuseFilter<H> {
    /// A binary fuse filter of `keys` (repeats allowed) with `f`-bit fingerprints.
    ///
    /// # Errors
    /// `f` not 8 or 16; more than [`xor_model::MAX_KEYS`] distinct keys; [`Error::Allocation`];
    /// [`Error::Construction`] when [`static_set::MAX_ATTEMPTS`] seeds all fail to peel.
    pub fn from_keys_and<I, K>(keys: I, f: u32, hasher: H) -> Result<Self>
    where
        I: IntoIterator<Item = K>,
        K: AsRef<[u8]>,
    {
        Self::from_keys_arity_and(keys, f, ARITY, hasher)
    }

    /// A binary fuse filter of `keys` (repeats allowed) with `f`-bit fingerprints and `arity`
    /// (3 or 4) slots per key.
    ///
    /// # Errors
    /// As [`BinaryFuseFilter::from_keys_and`]; an arity other than 3 or 4
    /// ([`model::check_arity`]).
    pub fn from_keys_arity_and<I, K>(keys: I, f: u32, arity: u32, hasher: H) -> Result<Self>
    where
        I: IntoIterator<Item = K>,
        K: AsRef<[u8]>,
    {
        xor_model::check_fingerprint_bits(f)?;
        model::check_arity(arity)?;
        let KeyHashes { hashes, given } = static_set::key_hashes(&hasher, keys)?;
        Self::from_hashes(hashes.into(), given, f, arity, hasher)
    }

    /// A binary fuse filter of keys given by their 64-bit key hashes (repeats allowed), the
    /// value [`BinaryFuseFilter::contains_key_hash`] takes: for a key of bytes `b` that is
    /// `hasher.hash128(b).lo`, which is what [`Filter::contains`] computes; `u64` keys that are
    /// already well spread may be passed themselves (each is mixed with the seed by the
    /// splitmix64 finalizer, as xorf mixes its `u64` keys with murmur's).
    ///
    /// # Errors
    /// As [`BinaryFuseFilter::from_keys_arity_and`].
    pub fn from_key_hashes<'a>(
        hashes: impl Into<Cow<'a, [u64]>>,
        f: u32,
        arity: u32,
        hasher: H,
    ) -> Result<Self> {
        let hashes = hashes.into();
        xor_model::check_fingerprint_bits(f)?;
        model::check_arity(arity)?;
        let given = hashes.len() as u64;
        Self::from_hashes(hashes, given, f, arity, hasher)
    }

    fn from_hashes(
        mut hashes: Cow<'_, [u64]>,
        given: u64,
        f: u32,
        arity: u32,
        hasher: H,
    ) -> Result<Self> {
        if hashes.len() as u64 > xor_model::MAX_KEYS {
            static_set::dedup(hashes.to_mut());
        }
        xor_model::check_keys(hashes.len() as u64)?;
        // n ≤ 2^31 keeps every count below 2^32 (at most 1.2·2^31 + 2^19 slots).
        Self::construct(hashes, given, f, arity, hasher, move |n, a| {
            model::layout_for_attempt(arity, n, a)
        })
    }

    /// Peel the hashes, trying at most [`static_set::MAX_ATTEMPTS`] seeds; attempt `a` over
    /// `n` distinct hashes cuts the table's slots into `segments + arity − 1` segments of `l`
    /// slots, `(l, segments, slots) = layout(n, a)`.
    fn construct(
        hashes: Cow<'_, [u64]>,
        given: u64,
        f: u32,
        arity: u32,
        hasher: H,
        layout: impl Fn(u64, u32) -> (u64, u64, u64),
    ) -> Result<Self> {
        let cut = |n, a| {
            let (l, segments, slots) = layout(n, a);
            // Sorted by the top bits = ordered by window start: the peeling then walks the
            // table nearly in order. 2^bits ≥ segments buckets.
            let bits = 64 - (segments.max(2) - 1).leading_zeros();
            (l as u32, (segments * l) as u32, slots, bits)
        };
        let label = (FilterKind::BinaryFuse.name(), SEED_LABEL);
        let p = if arity == 4 {
            static_set::peel_attempts(label, hashes, f, &hasher, |n, a| {
                let (l, starts, slots, sort_bits) = cut(n, a);
                static_set::Cut {
                    slots,
                    sort_bits,
                    positions: move |h| positions4(h, l, starts),
                }
            })?
        } else {
            static_set::peel_attempts(label, hashes, f, &hasher, |n, a| {
                let (l, starts, slots, sort_bits) = cut(n, a);
                static_set::Cut {
                    slots,
                    sort_bits,
                    positions: move |h| positions(h, l, starts),
                }
            })?
        };
        let (segment, starts, _, _) = cut(p.distinct, p.attempt);
        Ok(Self {
            limit: window_limit(p.table.slots(), arity, segment),
            table: p.table,
            segment,
            starts,
            arity,
            seed: p.seed,
            len: given,
            distinct: p.distinct,
            attempts: p.attempt + 1,
            hasher,
        })
    }

    /// Rebuild from saved parts (see [`crate::persist`]); the caller checked that `table` is
    /// the layout of `distinct` keys.
    pub(crate) fn from_parts(
        table: Table,
        (arity, segment, segments): (u32, u32, u32),
        seed: u64,
        (len, distinct, attempts): (u64, u64, u32),
        hasher: H,
    ) -> Self {
        Self {
            limit: window_limit(table.slots(), arity, segment),
            table,
            segment,
            starts: segments * segment,
            arity,
            seed,
            len,
            distinct,
            attempts,
            hasher,
        }
    }

    /// The hasher.
    pub fn hasher(&self) -> &H {
        &self.hasher
    }

    /// The fingerprint table.
    #[must_use]
    pub fn table(&self) -> &Table {
        &self.table
    }

    /// The construction seed that peeled.
    #[must_use]
    pub fn seed(&self) -> u64 {
        self.seed
    }

    /// Distinct key hashes stored.
    #[must_use]
    pub fn distinct(&self) -> u64 {
        self.distinct
    }

    /// Seeds tried until one peeled (1 to [`static_set::MAX_ATTEMPTS`]).
    #[must_use]
    pub fn attempts(&self) -> u32 {
        self.attempts
    }

    /// Slots per key: 3 or 4.
    #[must_use]
    pub fn arity(&self) -> u32 {
        self.arity
    }

    /// Slots per segment.
    #[must_use]
    pub fn segment_length(&self) -> u32 {
        self.segment
    }

    /// The read-only view of an item's slots and fingerprint, which the structure diagrams
    /// (and their tests) draw from.
    #[must_use]
    pub fn view(&self) -> BinaryFuseView<'_, H> {
        BinaryFuseView(self)
    }

    /// Whether the key whose 64-bit key hash is `key_hash` may be in the set (see
    /// [`BinaryFuseFilter::from_key_hashes`]): the hash mixed with the seed once, the 3 or 4
    /// slots by multiply-shift and masks, their XOR against the fingerprint.
    #[inline]
    #[must_use]
    pub fn contains_key_hash(&self, key_hash: u64) -> bool {
        let h = static_set::mix(key_hash, self.seed);
        if self.arity == 4 {
            return self.contains4(h);
        }
        let w = (self.segment, self.starts, self.limit);
        match &self.table {
            Table::F8(t) => probe::<3, _>(t, h, w),
            Table::F16(t) => probe::<3, _>(t, h, w),
        }
    }

    /// The 4-wise query of mixed hash `h`, kept out of line: inlined beside the 3-wise one it
    /// made the shared prologue save two registers for every query (gate: 3-wise 59.6 → 53.6
    /// instructions a query, 4-wise 65.6 → 62.6).
    #[inline(never)]
    fn contains4(&self, h: u64) -> bool {
        let w = (self.segment, self.starts, self.limit);
        match &self.table {
            Table::F8(t) => probe::<4, _>(t, h, w),
            Table::F16(t) => probe::<4, _>(t, h, w),
        }
    }

    /// `out[i]` = whether `items[i]` may be in the set, for the first `min(items, out)` items:
    /// table width and arity resolved once for the batch, then one monomorphic loop.
    fn batch<const A: usize, F: Slot>(&self, t: &[F], items: &[&[u8]], out: &mut [bool]) {
        if batch::prefetch_pays(self.table.bytes()) {
            // Issue 38: in a table past the caches, the A slots of a chunk of items are
            // prefetched a chunk before they are read (`filters/bulk.rs`).
            let at = FuseSlots::<A, F, H> { t, f: self };
            return bulk::run(&at, items, out, Depth::XOR.chunk, true);
        }
        let (w, seed) = ((self.segment, self.starts, self.limit), self.seed);
        for (o, it) in out.iter_mut().zip(items) {
            let h = static_set::mix(self.hasher.hash128(it).lo, seed);
            *o = probe::<A, F>(t, h, w);
        }
    }
}

/// The batch query over a table of one fingerprint width and arity `A` (issue 38): each item
/// hashed and its `A` slots prefetched a chunk before their XOR is checked.
struct FuseSlots<'a, const A: usize, F, H> {
    t: &'a [F],
    f: &'a BinaryFuseFilter<H>,
}

impl<const A: usize, F: Slot, H: ItemHasher> Probe for FuseSlots<'_, A, F, H> {
    type Step = u64;
    #[inline(always)]
    fn stage(&self, item: &[u8], warm: bool) -> u64 {
        let f = self.f;
        let h = static_set::mix(f.hasher.hash128(item).lo, f.seed);
        if warm {
            for p in slots::<A>(h, f.segment, f.starts) {
                if let Some(s) = self.t.get(p as usize) {
                    prefetch(s);
                }
            }
        }
        h
    }
    #[inline(always)]
    fn probe_step(&self, h: u64) -> bool {
        let f = self.f;
        probe::<A, F>(self.t, h, (f.segment, f.starts, f.limit))
    }
}

/// A read-only view of a [`BinaryFuseFilter`]: the slots an item reads and its fingerprint
/// ([`BinaryFuseFilter::view`]).
#[derive(Debug)]
pub struct BinaryFuseView<'a, H>(&'a BinaryFuseFilter<H>);

impl<H: ItemHasher> BinaryFuseView<'_, H> {
    /// The 3 or 4 slots and the fingerprint of `item`.
    #[must_use]
    pub fn slots_and_fingerprint(&self, item: &[u8]) -> (Vec<u32>, u64) {
        let f = self.0;
        let h = static_set::mix(f.hasher.hash128(item).lo, f.seed);
        let (l, s) = (f.segment, f.starts);
        let slots = if f.arity == 4 {
            positions4(h, l, s).to_vec()
        } else {
            positions(h, l, s).to_vec()
        };
        (slots, static_set::fingerprint(&f.table, h))
    }
}

impl<H: ItemHasher> Filter for BinaryFuseFilter<H> {
    fn try_insert(&mut self, _item: &[u8]) -> Result<()> {
        Err(Error::Static {
            kind: FilterKind::BinaryFuse.name(),
        })
    }
    #[inline]
    fn contains(&self, item: &[u8]) -> bool {
        self.contains_key_hash(self.hasher.hash128(item).lo)
    }
    fn contains_batch(&self, items: &[&[u8]], out: &mut [bool]) {
        match (&self.table, self.arity == 4) {
            (Table::F8(t), false) => self.batch::<3, _>(t, items, out),
            (Table::F16(t), false) => self.batch::<3, _>(t, items, out),
            (Table::F8(t), true) => self.batch::<4, _>(t, items, out),
            (Table::F16(t), true) => self.batch::<4, _>(t, items, out),
        }
    }
    fn len(&self) -> u64 {
        self.len
    }
    fn bits(&self) -> u64 {
        self.table.slots() * u64::from(self.table.fingerprint_bits())
    }
    fn bytes(&self) -> usize {
        self.table.bytes()
    }
    fn k(&self) -> u32 {
        self.arity
    }
    fn classic_params(&self) -> Option<(u64, u32)> {
        None
    }
    fn expected_fpr(&self) -> f64 {
        model::fpr(self.table.fingerprint_bits())
    }
    fn kind(&self) -> FilterKind {
        FilterKind::BinaryFuse
    }
    fn hash_id(&self) -> HashId {
        self.hasher.id()
    }
    fn strategy_id(&self) -> Option<StrategyId> {
        None
    }
    fn details(&self) -> Vec<(String, String)> {
        let f = self.table.fingerprint_bits();
        vec![
            ("fingerprint bits".into(), f.to_string()),
            ("arity".into(), self.arity.to_string()),
            ("slots".into(), self.table.slots().to_string()),
            ("segment length".into(), self.segment.to_string()),
            ("distinct keys".into(), self.distinct.to_string()),
            (
                "bits per distinct key".into(),
                format!("{:.3}", model::bits_per_key(self.arity, self.distinct, f)),
            ),
            ("seeds tried".into(), self.attempts.to_string()),
        ]
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::filters::static_set::MAX_ATTEMPTS;
    use crate::hash::Weak;

    #[test]
    fn duplicates_build_and_are_found() {
        let keys: Vec<u64> = (0..100_000u64)
            .map(|i| if i % 10 == 9 { i - 9 } else { i })
            .collect();
        for f in [8, 16] {
            let x = BinaryFuseFilter::from_keys(keys.iter().map(|k| k.to_le_bytes()), f).unwrap();
            assert!(keys.iter().all(|k| x.contains(&k.to_le_bytes())), "f={f}");
            assert_eq!((x.len(), x.distinct()), (100_000, 90_000));
        }
    }

    #[test]
    fn keys_colliding_completely_under_weak_make_a_one_key_set() {
        let keys: Vec<Vec<u8>> = (0..100u32)
            .map(|i| {
                (0..7)
                    .flat_map(|b| if i >> b & 1 == 1 { *b"Aa" } else { *b"BB" })
                    .collect()
            })
            .collect();
        let x = BinaryFuseFilter::from_keys_and(&keys, 8, Weak::default()).unwrap();
        assert_eq!((x.len(), x.distinct()), (100, 1));
        assert!(keys.iter().all(|k| x.contains(k)));
    }

    /// Just after a segment-length step the formula's layout rarely peels (6 of 100 seeds at
    /// n = 12,345); the recut attempt builds it, and the saved filter reloads with that layout.
    #[test]
    fn sizes_just_after_a_segment_step_build_and_reload() {
        let keys: Vec<[u8; 8]> = (0..12_345u64).map(u64::to_le_bytes).collect();
        let f = BinaryFuseFilter::from_keys(&keys, 8).unwrap();
        assert!(f.attempts() <= 4, "{}", f.attempts());
        assert!(keys.iter().all(|k| f.contains(k)));
        let bytes = crate::persist::to_bytes(&f, &crate::persist::SaveOptions::default()).unwrap();
        let g: BinaryFuseFilter<Xxh3> =
            crate::persist::from_bytes(&bytes, &crate::persist::LoadOptions::new()).unwrap();
        assert_eq!(g.attempts(), f.attempts());
        assert!(keys.iter().all(|k| g.contains(k)));
        for i in 20_000u64..40_000 {
            assert_eq!(f.contains(&i.to_le_bytes()), g.contains(&i.to_le_bytes()));
        }
    }

    /// The slots are the ones files were built with: the formulas written out (3-wise
    /// `[h0, (h0 + l) ⊕ ((h >> 18) & m), (h0 + 2l) ⊕ (h & m)]`, 4-wise with `h`, `h >> 18`,
    /// `h >> 36`), for every hash.
    #[test]
    fn slots_are_the_formulas() {
        for (l, starts) in [(4u32, 4u32), (1 << 10, 7 << 10), (1 << 18, 300 << 18)] {
            let m = l - 1;
            for i in 0..10_000u64 {
                let h = crate::hash::mix64(i);
                let h0 = ((u128::from(h) * u128::from(starts)) >> 64) as u32;
                let (a, b, c) = (h as u32 & m, (h >> 18) as u32 & m, (h >> 36) as u32 & m);
                assert_eq!(
                    positions(h, l, starts),
                    [h0, (h0 + l) ^ b, (h0 + 2 * l) ^ a]
                );
                let want = [h0, (h0 + l) ^ a, (h0 + 2 * l) ^ b, (h0 + 3 * l) ^ c];
                assert_eq!(positions4(h, l, starts), want);
            }
        }
    }

    /// The query's one check keeps every read in the table whatever the parameters (segment
    /// lengths that are not powers of two, 0, tables shorter than the layout): the
    /// `debug_assert` beside the unchecked read fires if a slot passes the check outside. For
    /// the layouts themselves the limit is `starts` (no key is ever refused).
    #[test]
    fn probe_reads_inside_the_table_for_any_parameters() {
        let t = vec![0u8; 5000];
        let mut answered = 0;
        for l in [0u32, 1, 3, 4, 6, 64, 100, 1024, 1 << 20, u32::MAX] {
            for starts in [0u32, 1, 7, 1000, 4000, 4999, 5000, u32::MAX] {
                for len in [0usize, 1, 13, 2000, 4096, 5000] {
                    for i in 0..200u64 {
                        let h = crate::hash::mix64(i);
                        let t = &t[..len];
                        let w3 = (l, starts, window_limit(len as u64, 3, l));
                        let w4 = (l, starts, window_limit(len as u64, 4, l));
                        let a = probe::<3, u8>(t, h, w3);
                        let b = probe::<4, u8>(t, h, w4);
                        answered += usize::from(a) + usize::from(b);
                    }
                }
            }
        }
        assert!(answered > 0); // some reads passed the check (an all-zero table accepts)
        for arity in [3, 4] {
            for n in [0, 1, 100, 12_345, 1_000_000, 1 << 31] {
                for a in [0, 1] {
                    let (l, segments, slots) = model::layout_for_attempt(arity, n, a);
                    let lim = window_limit(slots, arity, l as u32);
                    assert_eq!(u64::from(lim), segments * l, "{arity} {n} {a}");
                }
            }
        }
    }

    #[test]
    fn small_sets_and_unpeelable_ones() {
        for n in [0u64, 1, 2, 3, 10, 100, 1000] {
            let keys: Vec<[u8; 8]> = (0..n).map(u64::to_le_bytes).collect();
            let x = BinaryFuseFilter::from_keys(&keys, 8).unwrap();
            assert!(keys.iter().all(|k| x.contains(k)), "{n}");
        }
        // 40 keys in a table of 12 slots (one window of three segments of 4) can never peel:
        // every seed fails, and construction stops after MAX_ATTEMPTS.
        let hashes: Vec<u64> = (1..=40).collect();
        let e = BinaryFuseFilter::construct(hashes.into(), 40, 8, 3, Xxh3::default(), |_, _| {
            (4, 1, 12)
        })
        .unwrap_err();
        assert_eq!(
            e,
            Error::Construction {
                kind: "binary-fuse",
                keys: 40,
                attempts: MAX_ATTEMPTS
            }
        );
        let mut x = BinaryFuseFilter::from_keys([b"a"], 16).unwrap();
        assert_eq!(
            x.try_insert(b"b"),
            Err(Error::Static {
                kind: "binary-fuse"
            })
        );
    }

    /// Answers and files pinned: a digest of the saved bytes and of 200,000 query answers
    /// (hits and misses) for each of the four table widths × arities, taken from the code of
    /// 2026-12-04, when tables of at most 2^16 slots came to be peeled first-in-first-out (a
    /// different, equally valid table: the digests before were of the stack order, whose files
    /// `tests/persist_props.rs` still loads and checks answer by answer). A query or
    /// construction change that moves any answer or any saved byte fails here.
    #[test]
    fn saved_bytes_and_answers_are_pinned() {
        let fold = |d: u64, x: u64| crate::hash::mix64(d ^ x);
        let mut got = Vec::new();
        for (arity, f) in [(3, 8), (3, 16), (4, 8), (4, 16)] {
            let n = 30_000u64;
            let keys = (0..n).map(|i| crate::hash::mix64(i).to_le_bytes());
            let x = BinaryFuseFilter::from_keys_arity_and(keys, f, arity, Xxh3::default()).unwrap();
            let b = crate::persist::to_bytes(&x, &crate::persist::SaveOptions::default()).unwrap();
            let bytes = b.iter().fold(b.len() as u64, |d, &c| fold(d, u64::from(c)));
            let g: BinaryFuseFilter<Xxh3> =
                crate::persist::from_bytes(&b, &crate::persist::LoadOptions::new()).unwrap();
            let answers = (0..200_000u64).fold(0, |d, i| {
                let k = crate::hash::mix64(i).to_le_bytes();
                fold(d, u64::from(g.contains(&k)) | i << 1)
            });
            let hashed = (0..200_000u64).fold(0, |d, i| {
                fold(
                    d,
                    u64::from(g.contains_key_hash(i.wrapping_mul(0x9e37_79b9_7f4a_7c15))) | i << 1,
                )
            });
            got.push((arity, f, bytes, answers, hashed));
        }
        let want = [
            (
                3,
                8,
                15056948743665497445,
                10283221284300589039,
                2770304469908033279,
            ),
            (
                3,
                16,
                16891454380642867561,
                7342297493043189405,
                6240733390404088072,
            ),
            (
                4,
                8,
                13423460918543988603,
                7463217340341801627,
                12820147296869895849,
            ),
            (
                4,
                16,
                17942107589835252739,
                7342297493043189405,
                9934726022220204091,
            ),
        ];
        assert_eq!(got, want);
    }
}
