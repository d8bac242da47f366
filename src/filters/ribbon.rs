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

use super::static_set::{self, KeyHashes};
use crate::bits::try_zeroed;
use crate::error::{Error, Result};
use crate::filter::{Filter, FilterKind};
use crate::hash::{HashId, ItemHasher, StrategyId, Xxh3, mix64};
use crate::theory::ribbon as model;

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
/// * **Construction** from the whole set ([`RibbonFilter::from_keys_and`]): hashes are
///   deduplicated, mixed with a seed and sorted (so by start row), then each row is banded in
///   on the fly: while the row's leading column already holds a row, XOR that row in and shift
///   to the next set bit; a row that reduces to 0 with fingerprint 0 was implied by the others,
///   one that reduces to 0 with a non-zero fingerprint makes the system unsolvable, and the
///   next seed is tried, at most [`static_set::MAX_ATTEMPTS`] times, then
///   [`Error::Construction`]. Back-substitution from the last row fills the solution (rows
///   left empty are free and set to 0).
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
}

/// The label the seeds of a ribbon filter are derived from.
const SEED_LABEL: &[u8] = b"bloomlab/ribbon/seed";

/// Mixed into `h` before the coefficient row is drawn from it.
const COEFF_KEY: u64 = 0x2545_f491_4f6c_dd1d;

/// A key's equation: start row, coefficient row, fingerprint (`h` mixed with the seed; `starts`
/// = m − 63 possible starts; `mask` the low `r` bits).
#[inline]
fn equation(h: u64, starts: u64, mask: u32) -> (u64, u64, u32) {
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
fn mask_of(r: u32) -> u32 {
    if r >= 32 { u32::MAX } else { (1 << r) - 1 }
}

/// Scratch rows of the banding, kept across attempts.
#[derive(Debug)]
struct Banding {
    coeff: Vec<u64>,
    result: Vec<u32>,
}

impl Banding {
    fn new(slots: usize) -> Result<Self> {
        Ok(Self {
            coeff: try_zeroed(slots)?,
            result: try_zeroed(slots)?,
        })
    }

    /// Band the equations of the mixed hashes `hashes` in, one by one. False when one reduces
    /// to `0 = f` with `f ≠ 0` (no solution under this seed).
    fn add_all(&mut self, hashes: &[u64], mask: u32) -> bool {
        self.coeff.fill(0);
        self.result.fill(0);
        let starts = self.coeff.len() as u64 - u64::from(WIDTH - 1);
        for &h in hashes {
            let (s, mut c, mut f) = equation(h, starts, mask);
            let mut i = s as usize;
            loop {
                // Row i's columns are i .. i+64 and bit 0 of c is column i: the row's nonzero
                // columns never pass those of the rows it came from, so i < m.
                let e = self.coeff[i];
                if e == 0 {
                    self.coeff[i] = c;
                    self.result[i] = f;
                    break;
                }
                c ^= e;
                f ^= self.result[i];
                if c == 0 {
                    if f != 0 {
                        return false;
                    }
                    break;
                }
                let t = c.trailing_zeros();
                c >>= t;
                i += t as usize;
            }
        }
        true
    }

    /// Back-substitute from the last row into the interleaved solution of `r`-bit rows.
    fn solve(&self, r: u32) -> Result<Vec<u64>> {
        let r = r as usize;
        let mut solution: Vec<u64> = try_zeroed(self.coeff.len() / 64 * r)?;
        // state[j] bit k = bit j of the solution at row i + k (the rows after i, shifted in).
        let mut state = [0u64; 32];
        for i in (0..self.coeff.len()).rev() {
            let (c, f) = (self.coeff[i], self.result[i]);
            for (j, w) in state[..r].iter_mut().enumerate() {
                let shifted = *w << 1;
                // c's bit 0 is this row's own column: the rest select rows i+1 .. i+64.
                let bit = ((shifted & c).count_ones() ^ (f >> j)) & 1;
                *w = shifted | u64::from(bit);
            }
            if i % 64 == 0 {
                let b = i / 64;
                solution[b * r..(b + 1) * r].copy_from_slice(&state[..r]);
            }
        }
        Ok(solution)
    }
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
        let KeyHashes {
            hashes: mut distinct,
            given,
        } = static_set::key_hashes(&hasher, keys)?;
        // The banding needs distinct hashes (two equal rows with one seed are one equation).
        static_set::dedup(&mut distinct);
        let n = model::check_keys(distinct.len() as u64)?;
        Self::construct(&distinct, given, r, model::slots(n), hasher)
    }

    /// Band and solve the distinct hashes in `slots` rows (a multiple of 64, at least 128),
    /// trying at most [`static_set::MAX_ATTEMPTS`] seeds.
    fn construct(distinct: &[u64], given: u64, r: u32, slots: u64, hasher: H) -> Result<Self> {
        let rows = usize::try_from(slots).map_err(|_| Error::Allocation {
            bytes: u128::from(slots) * 12,
        })?;
        let mut banding = Banding::new(rows)?;
        let mask = mask_of(r);
        let done = static_set::seed_attempts(
            (FilterKind::Ribbon.name(), SEED_LABEL),
            distinct,
            &hasher,
            true,
            |_, mixed| Ok(banding.add_all(mixed, mask)),
        )?;
        let solution = banding.solve(r)?;
        Ok(Self {
            solution,
            slots,
            r,
            seed: done.seed,
            len: given,
            distinct: distinct.len() as u64,
            attempts: done.attempt + 1,
            hasher,
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

    /// The `r` result bits of mixed hash `h`, and its fingerprint.
    #[inline]
    fn query(&self, h: u64) -> (u32, u32) {
        let r = self.r as usize;
        let (s, c, f) = equation(h, self.slots - u64::from(WIDTH - 1), mask_of(self.r));
        let block = (s / 64) as usize;
        let off = (s % 64) as u32;
        // The window's rows s .. s+64: `lo` from this block, `hi` from the next (none when the
        // window starts a block, which the last start does).
        let c_lo = c << off;
        let c_hi = (c >> 1) >> (63 - off);
        // The last block (m/64 − 1: a shift, not a division by r).
        let last = (self.slots / 64) as usize - 1;
        let lo = &self.solution[block * r..block * r + r];
        let next = (block + 1).min(last);
        let hi = &self.solution[next * r..next * r + r];
        // Parities eight at a time (the baseline x86-64 target has no popcount instruction):
        // fold each word's 64 bits to a byte of the same parity, pack eight bytes in a word,
        // fold each byte to its bit 0, and gather those bits with one multiply.
        let mut out = 0u32;
        for (g, (la, hb)) in lo.chunks(8).zip(hi.chunks(8)).enumerate() {
            let mut packed = 0u64;
            for (i, (a, b)) in la.iter().zip(hb).enumerate() {
                let mut v = (a & c_lo) ^ (b & c_hi);
                v ^= v >> 32;
                v ^= v >> 16;
                v ^= v >> 8;
                packed |= (v & 0xff) << (8 * i);
            }
            packed ^= packed >> 4;
            packed ^= packed >> 2;
            packed ^= packed >> 1;
            // Bit 8i moves to bit 56 + i (the products' exponents are distinct: no carries).
            let bits = (packed & 0x0101_0101_0101_0101).wrapping_mul(0x0102_0408_1020_4080) >> 56;
            out |= (bits as u32) << (8 * g);
        }
        (out, f)
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
        let h = static_set::mix(self.hasher.hash128(item).lo, self.seed);
        let (got, want) = self.query(h);
        got == want
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
        let e = RibbonFilter::construct(&hashes, 300, 8, 128, Xxh3::default()).unwrap_err();
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
        assert!(RibbonFilter::construct(&hashes, 100, 8, 128, Xxh3::default()).is_ok());
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
