//! The xor filter (Graf & Lemire 2020).

use super::batch::{self, Probe};
use super::bulk::{self, Depth};
use super::prefetch::prefetch;
use super::static_set::{self, KeyHashes, Slot, Table};
use crate::error::{Error, Result};
use crate::filter::{Filter, FilterKind};
use crate::hash::{HashId, ItemHasher, StrategyId, Xxh3};
use crate::theory::xor as model;
use std::borrow::Cow;

/// An xor filter: a static set of keys in `1.23·n + 32` slots of 8- or 16-bit fingerprints,
/// three slots per key (Graf & Lemire 2020, "Xor Filters: Faster and Smaller Than Bloom and
/// Cuckoo Filters", ACM JEA 25).
///
/// * **Layout**: the table is three segments of `L` slots; a key hashes (once, to 64 bits,
///   then mixed with the filter's seed) to one slot in each segment, by a 32-bit multiply-shift
///   of three rotations of the hash, and to an `f`-bit fingerprint, the low bits of
///   `h ⊕ (h >> 32)`.
/// * **Query**: the XOR of the three slots equals the key's fingerprint for every key of the
///   set; for any other key it does with probability `2^−f` ([`model::fpr`]): 0.39% at f = 8,
///   0.0015% at f = 16, for `1.23·f` bits per key ([`model::bits_per_key`]).
/// * **Construction** from the whole key set ([`XorFilter::from_keys_and`]): hashes peeled
///   (see [`static_set`]; repeats removed after a first failed attempt); a seed whose hypergraph does not peel
///   is replaced, at most [`static_set::MAX_ATTEMPTS`] times, then [`Error::Construction`].
/// * **Static**: [`Filter::try_insert`] returns [`Error::Static`]; build a new filter from the
///   new set instead.
///
/// ```
/// use bloomlab::Filter;
/// use bloomlab::filters::XorFilter;
/// let keys: Vec<u64> = (0..100_000).collect();
/// let f = XorFilter::from_keys(keys.iter().map(|k| k.to_le_bytes()), 8).unwrap();
/// assert!(keys.iter().all(|k| f.contains(&k.to_le_bytes())));    // no false negatives
/// assert_eq!(f.bits(), 123_033 * 8);                              // 3·⌈(123,000 + 32)/3⌉ slots
/// let bpk = f.bytes() as f64 * 8.0 / 100_000.0;
/// assert!((bpk / (1.23 * 8.0) - 1.0).abs() < 0.02, "{bpk}");     // ≈ 1.23·f bits per key
/// let fp = (100_000..300_000u64).filter(|k| f.contains(&k.to_le_bytes())).count();
/// let fpr = fp as f64 / 200_000.0;                               // model 2^−8 = 0.390625%
/// assert!((fpr - f.expected_fpr()).abs() < 0.0006, "{fpr}");     // σ ≈ 0.014%: within 4σ
/// ```
#[derive(Debug, Clone)]
pub struct XorFilter<H = Xxh3> {
    table: Table,
    /// Slots per segment, L (the table holds 3·L).
    segment: u32,
    seed: u64,
    len: u64,
    distinct: u64,
    attempts: u32,
    hasher: H,
}

/// The label the seeds of an xor filter are derived from.
const SEED_LABEL: &[u8] = b"bloomlab/xor/seed";

/// The three slots of mixed hash `h` in a table of segments of `l` slots (also driven by the
/// reachability audit, [`crate::reach`]).
#[inline]
#[must_use]
pub fn positions(h: u64, l: u32) -> [u32; 3] {
    let r = |x: u64| ((u64::from(x as u32) * u64::from(l)) >> 32) as u32;
    [r(h), l + r(h.rotate_left(21)), 2 * l + r(h.rotate_left(42))]
}

impl XorFilter<Xxh3> {
    /// An xor filter of `keys` with `f`-bit (8 or 16) fingerprints and the default hash.
    ///
    /// # Errors
    /// As [`XorFilter::from_keys_and`].
    pub fn from_keys<I, K>(keys: I, f: u32) -> Result<Self>
    where
        I: IntoIterator<Item = K>,
        K: AsRef<[u8]>,
    {
        Self::from_keys_and(keys, f, Xxh3::default())
    }
}

impl<H: ItemHasher> XorFilter<H> {
    /// An xor filter of `keys` (repeats allowed) with `f`-bit fingerprints.
    ///
    /// # Errors
    /// `f` not 8 or 16; more than [`model::MAX_KEYS`] distinct keys; [`Error::Allocation`];
    /// [`Error::Construction`] when [`static_set::MAX_ATTEMPTS`] seeds all fail to peel.
    pub fn from_keys_and<I, K>(keys: I, f: u32, hasher: H) -> Result<Self>
    where
        I: IntoIterator<Item = K>,
        K: AsRef<[u8]>,
    {
        model::check_fingerprint_bits(f)?;
        let KeyHashes { hashes, given } = static_set::key_hashes(&hasher, keys)?;
        Self::from_hashes(hashes.into(), given, f, hasher)
    }

    /// An xor filter of keys given by their 64-bit key hashes (repeats allowed), the value
    /// [`XorFilter::contains_key_hash`] takes: for a key of bytes `b` that is
    /// `hasher.hash128(b).lo`, which is what [`Filter::contains`] computes; a caller holding
    /// `u64` keys that are already well spread may pass the keys themselves (the filter mixes
    /// every hash with its seed by the splitmix64 finalizer), as xorf does with its murmur
    /// finalizer.
    ///
    /// # Errors
    /// As [`XorFilter::from_keys_and`].
    pub fn from_key_hashes<'a>(
        hashes: impl Into<Cow<'a, [u64]>>,
        f: u32,
        hasher: H,
    ) -> Result<Self> {
        let hashes = hashes.into();
        model::check_fingerprint_bits(f)?;
        let given = hashes.len() as u64;
        Self::from_hashes(hashes, given, f, hasher)
    }

    fn from_hashes(mut hashes: Cow<'_, [u64]>, given: u64, f: u32, hasher: H) -> Result<Self> {
        if hashes.len() as u64 > model::MAX_KEYS {
            static_set::dedup(hashes.to_mut());
        }
        model::check_keys(hashes.len() as u64)?;
        // n ≤ 2^31 keeps 3·L = 3·⌈(1.23·n + 32)/3⌉ below 2^32.
        Self::construct(hashes, given, f, hasher, |n| {
            model::segment_length(n) as u32
        })
    }

    /// Peel the hashes into a table of segments of `segment(n)` slots for `n` distinct keys,
    /// trying at most [`static_set::MAX_ATTEMPTS`] seeds.
    fn construct(
        hashes: Cow<'_, [u64]>,
        given: u64,
        f: u32,
        hasher: H,
        segment: impl Fn(u64) -> u32,
    ) -> Result<Self> {
        let p = static_set::peel_attempts(
            (FilterKind::Xor.name(), SEED_LABEL),
            hashes,
            f,
            &hasher,
            |n, _| {
                let l = segment(n);
                static_set::Cut {
                    slots: 3 * u64::from(l),
                    sort_bits: 0,
                    positions: move |h| positions(h, l),
                }
            },
        )?;
        Ok(Self {
            segment: (p.table.slots() / 3) as u32,
            table: p.table,
            seed: p.seed,
            len: given,
            distinct: p.distinct,
            attempts: p.attempt + 1,
            hasher,
        })
    }

    /// Rebuild from saved parts (see [`crate::persist`]); the caller checked `table` holds
    /// `3·segment` slots and `segment` fits `distinct` keys.
    pub(crate) fn from_parts(
        table: Table,
        segment: u32,
        seed: u64,
        (len, distinct, attempts): (u64, u64, u32),
        hasher: H,
    ) -> Self {
        Self {
            table,
            segment,
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

    /// Slots per segment.
    #[must_use]
    pub fn segment_length(&self) -> u32 {
        self.segment
    }

    /// The construction seed that peeled.
    #[must_use]
    pub fn seed(&self) -> u64 {
        self.seed
    }

    /// Distinct key hashes stored (keys given minus repeats and complete hash collisions).
    #[must_use]
    pub fn distinct(&self) -> u64 {
        self.distinct
    }

    /// Seeds tried until one peeled (1 to [`static_set::MAX_ATTEMPTS`]).
    #[must_use]
    pub fn attempts(&self) -> u32 {
        self.attempts
    }

    /// The read-only view of an item's slots and fingerprint, which the structure diagrams
    /// (and their tests) draw from.
    #[must_use]
    pub fn view(&self) -> XorView<'_, H> {
        XorView(self)
    }

    /// Whether the key whose 64-bit key hash is `key_hash` may be in the set (see
    /// [`XorFilter::from_key_hashes`]): the hash mixed with the seed once, three slots by
    /// multiply-shift, their XOR against the fingerprint.
    #[inline]
    #[must_use]
    pub fn contains_key_hash(&self, key_hash: u64) -> bool {
        let h = static_set::mix(key_hash, self.seed);
        match &self.table {
            Table::F8(t) => static_set::matches(t, h, positions(h, self.segment)),
            Table::F16(t) => static_set::matches(t, h, positions(h, self.segment)),
        }
    }
}

/// A read-only view of an [`XorFilter`]: the slots an item reads and its fingerprint
/// ([`XorFilter::view`]).
#[derive(Debug)]
pub struct XorView<'a, H>(&'a XorFilter<H>);

impl<H: ItemHasher> XorView<'_, H> {
    /// The three slots and the fingerprint of `item`.
    #[must_use]
    pub fn slots_and_fingerprint(&self, item: &[u8]) -> ([u32; 3], u64) {
        let f = self.0;
        let h = static_set::mix(f.hasher.hash128(item).lo, f.seed);
        (
            positions(h, f.segment),
            static_set::fingerprint(&f.table, h),
        )
    }
}

impl<H: ItemHasher> Filter for XorFilter<H> {
    fn try_insert(&mut self, _item: &[u8]) -> Result<()> {
        Err(Error::Static {
            kind: FilterKind::Xor.name(),
        })
    }
    #[inline]
    fn contains(&self, item: &[u8]) -> bool {
        self.contains_key_hash(self.hasher.hash128(item).lo)
    }
    fn contains_batch(&self, items: &[&[u8]], out: &mut [bool]) {
        self.contains_batch_at(items, out, Depth::XOR);
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
        model::ARITY
    }
    fn classic_params(&self) -> Option<(u64, u32)> {
        None
    }
    fn expected_fpr(&self) -> f64 {
        model::fpr(self.table.fingerprint_bits())
    }
    fn kind(&self) -> FilterKind {
        FilterKind::Xor
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
            ("slots".into(), self.table.slots().to_string()),
            ("distinct keys".into(), self.distinct.to_string()),
            (
                "bits per distinct key".into(),
                format!("{:.3}", model::bits_per_key(self.distinct, f)),
            ),
            ("seeds tried".into(), self.attempts.to_string()),
        ]
    }
}

/// The xor filter's batch query (issue 38, `filters/bulk.rs`) over a table of one fingerprint
/// width: each item hashed and its three slots prefetched a chunk before their XOR is checked.
struct Slots<'a, F, H> {
    t: &'a [F],
    f: &'a XorFilter<H>,
}

impl<F: Slot, H: ItemHasher> Probe for Slots<'_, F, H> {
    type Step = u64;
    #[inline(always)]
    fn stage(&self, item: &[u8], warm: bool) -> u64 {
        let h = static_set::mix(self.f.hasher.hash128(item).lo, self.f.seed);
        if warm {
            for p in positions(h, self.f.segment) {
                if let Some(s) = self.t.get(p as usize) {
                    prefetch(s);
                }
            }
        }
        h
    }
    #[inline(always)]
    fn probe_step(&self, h: u64) -> bool {
        static_set::matches(self.t, h, positions(h, self.f.segment))
    }
}

impl<H: ItemHasher> XorFilter<H> {
    /// [`Filter::contains_batch`] at an explicit pipeline depth (the default is
    /// [`Depth::XOR`]; the three slots are always prefetched, `depth.lines` is not used); a
    /// table under 1 MiB is answered one item at a time.
    pub fn contains_batch_at(&self, items: &[&[u8]], out: &mut [bool], depth: Depth) {
        if !batch::prefetch_pays(self.table.bytes()) {
            for (o, it) in out.iter_mut().zip(items) {
                *o = self.contains(it);
            }
            return;
        }
        match &self.table {
            Table::F8(t) => bulk::run(&Slots { t, f: self }, items, out, depth.chunk, true),
            Table::F16(t) => bulk::run(&Slots { t, f: self }, items, out, depth.chunk, true),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::filters::static_set::MAX_ATTEMPTS;
    use crate::hash::Weak;

    #[test]
    fn duplicates_build_and_are_found() {
        // 10^5 keys, 10% of them repeats of earlier keys.
        let keys: Vec<u64> = (0..100_000u64)
            .map(|i| if i % 10 == 9 { i - 9 } else { i })
            .collect();
        for f in [8, 16] {
            let x = XorFilter::from_keys(keys.iter().map(|k| k.to_le_bytes()), f).unwrap();
            assert!(keys.iter().all(|k| x.contains(&k.to_le_bytes())), "f={f}");
            assert_eq!(x.len(), 100_000);
            assert_eq!(x.distinct(), 90_000);
            let bpk = model::bits_per_key(90_000, f);
            assert!((bpk / (1.23 * f64::from(f)) - 1.0).abs() < 0.02, "{bpk}");
        }
    }

    /// Strings of "Aa" and "BB" blocks all hash alike under the weak hash (31·'A' + 'a' =
    /// 31·'B' + 'B'), so 100 distinct keys are one hash: a 1-key set after deduplication.
    #[test]
    fn keys_colliding_completely_under_weak_make_a_one_key_set() {
        let keys: Vec<Vec<u8>> = (0..100u32)
            .map(|i| {
                (0..7)
                    .flat_map(|b| if i >> b & 1 == 1 { *b"Aa" } else { *b"BB" })
                    .collect()
            })
            .collect();
        let h = Weak::default();
        assert!(keys.iter().all(|k| h.hash128(k) == h.hash128(&keys[0])));
        let x = XorFilter::from_keys_and(&keys, 8, h).unwrap();
        assert_eq!((x.len(), x.distinct()), (100, 1));
        assert!(keys.iter().all(|k| x.contains(k)));
    }

    /// Five keys in a table of three slots can never peel: every seed fails, and after
    /// `MAX_ATTEMPTS` of them construction stops with a typed error (a loop bound, no timer).
    #[test]
    fn construction_that_cannot_peel_stops_with_a_typed_error() {
        let e = XorFilter::construct(vec![1, 2, 3, 4, 5].into(), 5, 8, Xxh3::default(), |_| 1)
            .unwrap_err();
        assert_eq!(
            e,
            Error::Construction {
                kind: "xor",
                keys: 5,
                attempts: MAX_ATTEMPTS
            }
        );
        // One key always peels, even in three slots.
        let x = XorFilter::construct(vec![7].into(), 1, 8, Xxh3::default(), |_| 1).unwrap();
        assert_eq!(x.attempts(), 1);
    }

    #[test]
    fn empty_set_and_static_inserts() {
        let mut x = XorFilter::from_keys(std::iter::empty::<&[u8]>(), 16).unwrap();
        assert_eq!((x.len(), x.bits()), (0, 33 * 16));
        assert_eq!(x.try_insert(b"a"), Err(Error::Static { kind: "xor" }));
        assert!(XorFilter::from_keys([b"a"], 12).is_err());
    }
}
