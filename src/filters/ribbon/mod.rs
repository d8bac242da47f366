//! The standard ribbon filter (Dillinger & Walzer 2021), width 64.
//!
//! **Why w = 64.** A coefficient row is one machine word: elimination is a XOR, a
//! trailing-zero count and a shift of `u64`s, and a query reads one 64-bit word in each of two
//! adjacent blocks per result bit and takes one popcount of their AND with the row. At
//! `w = 128` every one of those becomes a two-word `u128` operation and the window spans three
//! words, for a smaller overhead: RocksDB's measurements (Dillinger, `util/ribbon_config.cc`)
//! give `m/n ≈ 1.094` at 2^17 rows for w = 64 against `≈ 1.036` for w = 128, each doubling
//! of the rows adding 0.0083 (w = 64) or 0.0038 (w = 128). This crate takes the simpler and
//! faster width: `ε ≈ 11.8%` at 10⁶ keys, about a binary fuse filter's 12.5%, with any result
//! width from 1 to 32 bits instead of 8 or 16 ([`crate::theory::ribbon`]).

mod build;
mod kernel;

use super::avx2::{Avx2, Kernel, dispatch_with};
use super::batch;
use super::prefetch::prefetch;
use super::static_set::{self, KeyHashes};
use crate::error::{Error, Result};
use crate::filter::{Filter, FilterKind};
use crate::hash::{HashId, ItemHasher, StrategyId, Xxh3, mix64};
use crate::theory::ribbon as model;
use kernel::{window, window_popcnt, with_width};
use std::borrow::Cow;

/// The ribbon width `w` (bits of a coefficient row).
pub const WIDTH: u32 = model::WIDTH;

/// A standard ribbon filter: a static set of keys as the solution of a banded linear system
/// over GF(2), `(1 + ε)·n` rows of `r` bits, any `r` from 1 to 32 (Dillinger & Walzer 2021,
/// "Ribbon filter: practically smaller than Bloom and Xor", arXiv:2103.02515).
///
/// * **Hashing**: a key hashes once to 64 bits, mixed with the filter's seed into `h`; its
///   start row is `s = ⌊h·(m − 63) / 2^64⌋` (fastrange), its coefficient row `c` is
///   `mix64(h ⊕ K) | 1` (64 bits, the first forced to 1: the key's own column `s`), and its
///   fingerprint the low `r` bits of `h`.
/// * **Query**: bit `j` of the result is the parity of `c AND` bits `j` of the rows
///   `s .. s+64` of the solution; the key is reported present when the `r` result bits equal
///   its fingerprint. Every key of the set does; any other key with probability `2^−r`
///   ([`model::fpr`]).
/// * **Layout**: the solution is *interleaved* (the paper's interleaved solution storage): block `b` of 64 rows is `r`
///   words, word `j` holding bit `j` of each of the block's rows, so a query reads word `j` of
///   two adjacent blocks.
/// * **Construction** from the whole set ([`RibbonFilter::from_keys_and`],
///   [`RibbonFilter::from_key_hashes`]): per seed, the hashes are mixed with it, counting-sorted
///   by their top bits (so by start row) and deduplicated in one linear pass (`ribbon/build.rs`),
///   then each row is banded in on the fly: while the row's leading column already holds a row,
///   XOR that row in and shift to the next set bit; a row that reduces to 0 with fingerprint 0
///   was implied by the others, one that reduces to 0 with a non-zero fingerprint makes the
///   system unsolvable, and the next seed is tried, at most [`static_set::MAX_ATTEMPTS`] times,
///   then [`Error::Construction`]. Back-substitution from the last row fills the solution (rows
///   left empty are free and set to 0).
/// * **Query speed**: the `r` parities are `r` POPCNTs on CPUs with AVX2 and POPCNT (run-time
///   test, `filters/avx2.rs`), else eight words folded together at a time
///   (`ribbon/kernel.rs`); one monomorphic query per result width; [`Filter::contains_batch`]
///   prefetches the windows of large filters a chunk ahead (`filters/batch.rs`).
/// * **Static**: [`Filter::try_insert`] returns [`Error::Static`].
///
/// ```
/// use bloomlab::Filter;
/// use bloomlab::filters::RibbonFilter;
/// let keys: Vec<u64> = (0..100_000).collect();
/// let f = RibbonFilter::from_keys(keys.iter().map(|k| k.to_le_bytes()), 7).unwrap();
/// assert!(keys.iter().all(|k| f.contains(&k.to_le_bytes())));     // no false negatives
/// let bpk = f.bits() as f64 / 100_000.0;
/// assert!((bpk / 7.0 - 1.0) < 0.12, "{bpk}");                      // ≈ (1 + ε)·r bits per key
/// let fp = (100_000..300_000u64).filter(|k| f.contains(&k.to_le_bytes())).count();
/// let fpr = fp as f64 / 200_000.0;                                // model 2^−7 = 0.78%
/// assert!((fpr - f.expected_fpr()).abs() < 0.0008, "{fpr}");      // σ ≈ 0.02%: within 4σ
/// ```
#[derive(Debug, Clone)]
pub struct RibbonFilter<H = Xxh3> {
    /// The interleaved solution: word `b·r + j` holds bit `j` of rows `64·b .. 64·b + 64`.
    solution: Vec<u64>,
    /// Rows m (a multiple of 64, at least 128).
    slots: u64,
    /// Result bits r (1 to 32).
    r: u32,
    seed: u64,
    len: u64,
    distinct: u64,
    attempts: u32,
    hasher: H,
    /// `Some` on CPUs with AVX2 and POPCNT: the query's parities are one `popcnt` a word.
    cpu: Option<Avx2>,
}

/// The label the seeds of a ribbon filter are derived from.
const SEED_LABEL: &[u8] = b"bloomlab/ribbon/seed";

/// Mixed into `h` before the coefficient row is drawn from it.
const COEFF_KEY: u64 = 0x2545_f491_4f6c_dd1d;

/// A key's equation: start row, coefficient row, fingerprint (`h` mixed with the seed; `starts`
/// = m − 63 possible starts; `mask` the low `r` bits).
#[inline]
pub(super) fn equation(h: u64, starts: u64, mask: u32) -> (u64, u64, u32) {
    let c = mix64(h ^ COEFF_KEY) | 1;
    (start_row(h, starts), c, h as u32 & mask)
}

/// The first row of the 64-row window of mixed hash `h` among `starts` possible starts:
/// `⌊h·starts / 2^64⌋` (also driven by the reachability audit, [`crate::reach`]).
#[inline]
#[must_use]
pub fn start_row(h: u64, starts: u64) -> u64 {
    ((u128::from(h) * u128::from(starts)) >> 64) as u64
}

/// The low `r` bits.
pub(super) fn mask_of(r: u32) -> u32 {
    if r >= 32 { u32::MAX } else { (1 << r) - 1 }
}

impl RibbonFilter<Xxh3> {
    /// A ribbon filter of `keys` with `r`-bit results (1 to 32) and the default hash.
    ///
    /// # Errors
    /// As [`RibbonFilter::from_keys_and`].
    pub fn from_keys<I, K>(keys: I, r: u32) -> Result<Self>
    where
        I: IntoIterator<Item = K>,
        K: AsRef<[u8]>,
    {
        Self::from_keys_and(keys, r, Xxh3::default())
    }
}

impl<H: ItemHasher> RibbonFilter<H> {
    /// A ribbon filter of `keys` (repeats allowed) with `r`-bit results.
    ///
    /// # Errors
    /// `r` not 1 to 32; more than [`model::MAX_KEYS`] distinct keys; [`Error::Allocation`];
    /// [`Error::Construction`] when [`static_set::MAX_ATTEMPTS`] seeds all give an unsolvable
    /// system.
    pub fn from_keys_and<I, K>(keys: I, r: u32, hasher: H) -> Result<Self>
    where
        I: IntoIterator<Item = K>,
        K: AsRef<[u8]>,
    {
        model::check_result_bits(r)?;
        let KeyHashes { hashes, given } = static_set::key_hashes(&hasher, keys)?;
        Self::construct(&hashes, given, r, None, hasher)
    }

    /// A ribbon filter of `r`-bit results over key hashes (repeats allowed): the values
    /// [`RibbonFilter::contains_key_hash`] takes. For a key of bytes `b` that is
    /// `hasher.hash128(b).lo`, which is what [`Filter::contains`] computes; `u64` keys that are
    /// already well spread may be passed themselves (each is mixed with the seed by the
    /// splitmix64 finalizer, as for [`super::BinaryFuseFilter::from_key_hashes`]).
    ///
    /// # Errors
    /// As [`RibbonFilter::from_keys_and`].
    pub fn from_key_hashes<'a>(
        hashes: impl Into<Cow<'a, [u64]>>,
        r: u32,
        hasher: H,
    ) -> Result<Self> {
        model::check_result_bits(r)?;
        let hashes = hashes.into();
        Self::construct(&hashes, hashes.len() as u64, r, None, hasher)
    }

    /// Sort, band and solve the hashes (repeats allowed) in `slots` rows (a multiple of 64, at
    /// least 128; `None`: [`model::slots`] of the distinct hashes), trying at most
    /// [`static_set::MAX_ATTEMPTS`] seeds.
    fn construct(
        hashes: &[u64],
        given: u64,
        r: u32,
        slots: Option<u64>,
        hasher: H,
    ) -> Result<Self> {
        let done = build::construct(
            (FilterKind::Ribbon.name(), SEED_LABEL),
            hashes,
            r,
            &hasher,
            |distinct| Ok(slots.unwrap_or(model::slots(model::check_keys(distinct)?))),
        )?;
        Ok(Self {
            solution: done.solution,
            slots: done.slots,
            r,
            seed: done.seed,
            len: given,
            distinct: done.distinct,
            attempts: done.attempts,
            hasher,
            cpu: Avx2::hot(),
        })
    }

    /// Rebuild from saved parts (see [`crate::persist`]); the caller checked that `solution`
    /// holds `slots/64·r` words and `slots` is the sizing of `distinct` keys.
    pub(crate) fn from_parts(
        solution: Vec<u64>,
        (slots, r): (u64, u32),
        seed: u64,
        (len, distinct, attempts): (u64, u64, u32),
        hasher: H,
    ) -> Self {
        Self {
            solution,
            slots,
            r,
            seed,
            len,
            distinct,
            attempts,
            hasher,
            cpu: Avx2::hot(),
        }
    }

    /// The hasher.
    pub fn hasher(&self) -> &H {
        &self.hasher
    }

    /// The interleaved solution words.
    #[must_use]
    pub fn solution(&self) -> &[u64] {
        &self.solution
    }

    /// Rows m.
    #[must_use]
    pub fn slots(&self) -> u64 {
        self.slots
    }

    /// Result (fingerprint) bits r.
    #[must_use]
    pub fn result_bits(&self) -> u32 {
        self.r
    }

    /// The construction seed that solved.
    #[must_use]
    pub fn seed(&self) -> u64 {
        self.seed
    }

    /// Distinct key hashes stored.
    #[must_use]
    pub fn distinct(&self) -> u64 {
        self.distinct
    }

    /// Seeds tried until one solved (1 to [`static_set::MAX_ATTEMPTS`]).
    #[must_use]
    pub fn attempts(&self) -> u32 {
        self.attempts
    }

    /// The read-only view of an item's equation and the solution's rows, which the structure
    /// diagram (and its tests) draw from.
    #[must_use]
    pub fn view(&self) -> RibbonView<'_, H> {
        RibbonView(self)
    }

    /// Whether the key of hash `key_hash` (see [`RibbonFilter::from_key_hashes`]) may be in the
    /// set: mixed with the seed once, its window's `r` parities against its fingerprint.
    #[inline]
    #[must_use]
    pub fn contains_key_hash(&self, key_hash: u64) -> bool {
        self.check(static_set::mix(key_hash, self.seed))
    }

    /// Whether the key of mixed hash `h` may be in the set.
    #[inline(always)]
    fn check(&self, h: u64) -> bool {
        if self.cpu.is_some() {
            return dispatch_with(self.cpu, Popcnt(self, h));
        }
        let (s, c, f) = equation(h, self.slots - u64::from(WIDTH - 1), mask_of(self.r));
        // The last block (m/64 − 1: a shift, not a division by r).
        let last = (self.slots / 64) as usize - 1;
        with_width!(self.r, window(&self.solution, last, s, c)) == f
    }
}

/// The query of a mixed hash by [`window_popcnt`], run by [`dispatch_with`] in the code compiled
/// with AVX2 and POPCNT (two words: passed in registers).
struct Popcnt<'a, H>(&'a RibbonFilter<H>, u64);

impl<H> Kernel for Popcnt<'_, H> {
    type Out = bool;
    #[inline(always)]
    fn run(self) -> bool {
        let (f, h) = (self.0, self.1);
        let (s, c, want) = equation(h, f.slots - u64::from(WIDTH - 1), mask_of(f.r));
        let last = (f.slots / 64) as usize - 1;
        with_width!(f.r, window_popcnt(&f.solution, last, s, c)) == want
    }
}

/// Queries per chunk of a batch (the blocked filter's depth, `filters/batch.rs`).
const BATCH: usize = 16;

impl<H: ItemHasher> batch::Staged for RibbonFilter<H> {
    type Step = u64;
    /// An item's mixed hash, and (when `warm`) the lines of its window prefetched: the `2r`
    /// words of its block and the next, one prefetch per 64 bytes and one for the last word.
    #[inline(always)]
    fn stage(&self, item: &[u8], warm: bool) -> u64 {
        let h = static_set::mix(self.hasher.hash128(item).lo, self.seed);
        if warm {
            let s = start_row(h, self.slots - u64::from(WIDTH - 1));
            let r = self.r as usize;
            let first = (s / 64) as usize * r;
            let end = (first + 2 * r).min(self.solution.len());
            for w in (first..end).step_by(8) {
                prefetch(&self.solution[w]);
            }
            prefetch(&self.solution[end - 1]);
        }
        h
    }
    #[inline(always)]
    fn probe_step(&self, h: u64) -> bool {
        self.check(h)
    }
    /// A ribbon filter is static: nothing is ever stored (refused).
    #[inline(always)]
    fn store_step(&mut self, _: u64) -> bool {
        false
    }
}

/// A read-only view of a [`RibbonFilter`]: an item's equation and the rows of the solution
/// ([`RibbonFilter::view`]).
#[derive(Debug)]
pub struct RibbonView<'a, H>(&'a RibbonFilter<H>);

impl<H: ItemHasher> RibbonView<'_, H> {
    /// The equation of `item`: its start row `s`, its 64 coefficient bits `c` (bit `t` is row
    /// `s + t`) and its `r`-bit fingerprint. A query XORs the rows `s + t` where bit `t` of `c`
    /// is set and compares the result with the fingerprint.
    #[must_use]
    pub fn equation_of(&self, item: &[u8]) -> (u64, u64, u32) {
        let f = self.0;
        let h = static_set::mix(f.hasher.hash128(item).lo, f.seed);
        equation(h, f.slots - u64::from(WIDTH - 1), mask_of(f.r))
    }

    /// The `r` result bits stored in row `i` of the solution (bit `j` from word `j` of the
    /// row's block).
    #[must_use]
    pub fn row(&self, i: u64) -> u32 {
        let r = self.0.r as usize;
        let (block, bit) = ((i / 64) as usize, i % 64);
        self.0.solution[block * r..block * r + r]
            .iter()
            .enumerate()
            .fold(0, |acc, (j, w)| acc | (((w >> bit) & 1) as u32) << j)
    }
}

impl<H: ItemHasher> Filter for RibbonFilter<H> {
    fn try_insert(&mut self, _item: &[u8]) -> Result<()> {
        Err(Error::Static {
            kind: FilterKind::Ribbon.name(),
        })
    }
    #[inline]
    fn contains(&self, item: &[u8]) -> bool {
        self.contains_key_hash(self.hasher.hash128(item).lo)
    }
    /// Hash every item and prefetch its window a chunk ahead, then answer the chunk: the cache
    /// misses of a large filter overlap (`filters/batch.rs`); in cache, no prefetch.
    fn contains_batch(&self, items: &[&[u8]], out: &mut [bool]) {
        batch::contains::<_, BATCH>(self, items, out, batch::prefetch_pays(self.bytes()));
    }
    fn len(&self) -> u64 {
        self.len
    }
    fn bits(&self) -> u64 {
        self.slots * u64::from(self.r)
    }
    fn bytes(&self) -> usize {
        self.solution.capacity() * 8
    }
    fn k(&self) -> u32 {
        2
    }
    fn classic_params(&self) -> Option<(u64, u32)> {
        None
    }
    fn expected_fpr(&self) -> f64 {
        model::fpr(self.r)
    }
    fn kind(&self) -> FilterKind {
        FilterKind::Ribbon
    }
    fn hash_id(&self) -> HashId {
        self.hasher.id()
    }
    fn strategy_id(&self) -> Option<StrategyId> {
        None
    }
    fn details(&self) -> Vec<(String, String)> {
        let bpk = if self.distinct == 0 {
            f64::INFINITY
        } else {
            self.bits() as f64 / self.distinct as f64
        };
        vec![
            ("result bits".into(), self.r.to_string()),
            ("rows".into(), self.slots.to_string()),
            ("ribbon width".into(), WIDTH.to_string()),
            ("distinct keys".into(), self.distinct.to_string()),
            ("bits per distinct key".into(), format!("{bpk:.3}")),
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
    fn every_result_width_finds_its_keys_at_its_rate() {
        let keys: Vec<[u8; 8]> = (0..20_000u64).map(u64::to_le_bytes).collect();
        for r in model::RESULT_BITS {
            let f = RibbonFilter::from_keys(&keys, r).unwrap();
            assert!(keys.iter().all(|k| f.contains(k)), "r={r}");
            assert_eq!(f.bits(), model::slots(20_000) * u64::from(r));
            assert_eq!(f.bytes() as u64 * 8, f.bits());
            if r <= 10 {
                // 100,000 absent keys: the rate within 5σ of 2^−r.
                let q = 100_000u64;
                let fp = (1u64 << 40..(1 << 40) + q)
                    .filter(|k| f.contains(&k.to_le_bytes()))
                    .count() as f64;
                let p = model::fpr(r);
                let sigma = (q as f64 * p * (1.0 - p)).sqrt();
                assert!((fp - q as f64 * p).abs() < 5.0 * sigma, "r={r}: {fp}");
            }
        }
    }

    #[test]
    fn duplicates_build_and_are_found() {
        let keys: Vec<u64> = (0..100_000u64)
            .map(|i| if i % 10 == 9 { i - 9 } else { i })
            .collect();
        let f = RibbonFilter::from_keys(keys.iter().map(|k| k.to_le_bytes()), 8).unwrap();
        assert!(keys.iter().all(|k| f.contains(&k.to_le_bytes())));
        assert_eq!((f.len(), f.distinct()), (100_000, 90_000));
        assert_eq!(f.slots(), model::slots(90_000));
    }

    /// 100 distinct keys that are one hash under the weak hash ("Aa" and "BB" blocks): one
    /// equation after deduplication, solved at once.
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
        let f = RibbonFilter::from_keys_and(&keys, 7, h).unwrap();
        assert_eq!((f.len(), f.distinct(), f.attempts()), (100, 1, 1));
        assert!(keys.iter().all(|k| f.contains(k)));
    }

    /// 300 equations in 128 rows can never all hold: every seed fails, and construction stops
    /// after MAX_ATTEMPTS with a typed error.
    #[test]
    fn an_unsolvable_system_stops_with_a_typed_error() {
        let hashes: Vec<u64> = (1..=300).collect();
        let e = RibbonFilter::construct(&hashes, 300, 8, Some(128), Xxh3::default()).unwrap_err();
        assert_eq!(
            e,
            Error::Construction {
                kind: "ribbon",
                keys: 300,
                attempts: MAX_ATTEMPTS
            }
        );
        // 100 equations in 128 rows usually solve.
        let hashes: Vec<u64> = (1..=100).collect();
        assert!(RibbonFilter::construct(&hashes, 100, 8, Some(128), Xxh3::default()).is_ok());
    }

    /// The batch answers what single queries answer, in cache (no prefetch) and past
    /// `PREFETCH_MIN_BYTES` (r = 32: 4 bytes a row, so 250,000 keys make about 1.1 MB).
    #[test]
    fn batch_queries_answer_like_single_ones() {
        for (n, r) in [(5_000u64, 7), (250_000, 32)] {
            let f = RibbonFilter::from_keys((0..n).map(u64::to_le_bytes), r).unwrap();
            assert_eq!(
                batch::prefetch_pays(f.bytes()),
                r == 32,
                "{} bytes",
                f.bytes()
            );
            // Members, then absent keys (about 2^-r of them answer yes).
            let keys: Vec<[u8; 8]> = (n - 1000..n + 3000).map(u64::to_le_bytes).collect();
            let items: Vec<&[u8]> = keys.iter().map(|k| &k[..]).collect();
            let mut out = vec![false; items.len()];
            f.contains_batch(&items, &mut out);
            let single: Vec<bool> = items.iter().map(|k| f.contains(k)).collect();
            assert_eq!(out, single, "n={n}");
            assert!(out[..1000].iter().all(|&b| b));
        }
    }

    /// The POPCNT path (where this CPU has it) and the portable fold answer alike, for every
    /// width, members and absent keys.
    #[test]
    fn popcnt_and_portable_paths_answer_alike() {
        let keys: Vec<[u8; 8]> = (0..2000u64).map(u64::to_le_bytes).collect();
        for r in model::RESULT_BITS {
            let fast = RibbonFilter::from_keys(&keys, r).unwrap();
            let mut portable = fast.clone();
            portable.cpu = None;
            let mut yes = 0;
            for k in 0..20_000u64 {
                let k = k.to_le_bytes();
                assert_eq!(fast.contains(&k), portable.contains(&k), "r={r}");
                yes += usize::from(portable.contains(&k));
            }
            assert!(yes >= 2000, "r={r}: {yes}");
        }
    }

    #[test]
    fn from_key_hashes_is_from_keys_of_the_same_hashes() {
        let keys: Vec<[u8; 8]> = (0..3000u64).map(u64::to_le_bytes).collect();
        let h = Xxh3::default();
        let hashes: Vec<u64> = keys.iter().map(|k| h.hash128(k).lo).collect();
        let a = RibbonFilter::from_keys(&keys, 9).unwrap();
        let b = RibbonFilter::from_key_hashes(&hashes, 9, h).unwrap();
        assert_eq!((a.solution(), a.seed()), (b.solution(), b.seed()));
        assert!(hashes.iter().all(|&k| b.contains_key_hash(k)));
    }

    #[test]
    fn small_sets_empty_sets_and_static_inserts() {
        for n in [0u64, 1, 2, 63, 64, 65, 127, 128, 1000] {
            let keys: Vec<[u8; 8]> = (0..n).map(u64::to_le_bytes).collect();
            for r in [1, 7, 32] {
                let f = RibbonFilter::from_keys(&keys, r).unwrap();
                assert!(keys.iter().all(|k| f.contains(k)), "{n} {r}");
            }
        }
        let mut f = RibbonFilter::from_keys([b"a"], 7).unwrap();
        assert_eq!(f.try_insert(b"b"), Err(Error::Static { kind: "ribbon" }));
        for r in [0, 33] {
            assert!(matches!(
                RibbonFilter::from_keys([b"a"], r),
                Err(Error::InvalidParameter { .. })
            ));
        }
    }
}
