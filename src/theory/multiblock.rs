//! The multiblock family (Boost.Bloom, 2025: `block<Word, K>`, `multiblock<Word, K>`,
//! `fast_multiblock32/64<K>`): its false-positive rate and a sizing that honours it.
//!
//! **The layouts, as one shape (w, K, b).** The filter is an array of blocks of K words of
//! w ∈ {32, 64} bits; an item picks one block and sets b bits in each of its K words, k = K·b
//! bits in all, each bit position drawn independently (with replacement) from the item's hash.
//! Boost's types map onto it as
//!
//! | Boost (`filter<T, 1, …>`, stride = block size) | (w, K, b) |
//! |---|---|
//! | `multiblock<uint64_t, K>`, `fast_multiblock64<K>` | (64, K, 1) |
//! | `multiblock<uint32_t, K>`, `fast_multiblock32<K>` | (32, K, 1) |
//! | `block<uint64_t, K>` (register blocking: all bits in one word) | (64, 1, K) |
//! | `block<uint32_t, K>` | (32, 1, K) |
//!
//! and Apache Parquet's split-block filter is (32, 8, 1) ([`crate::theory::split_block`]).
//!
//! **The model.** A block receives Binomial(n, B/m) ≈ Poisson(λ = n·B/m) items (B = K·w bits),
//! the mixture of Putze, Sanders & Singler (2007) that [`crate::theory::blocked`] and
//! [`crate::theory::split_block`] use ([`poisson_mixture`]). Given a block holding i items,
//! every item has set b uniform bits in *each* of its K words, independently from word to
//! word, so the words are independent and a non-member's query succeeds with probability
//! `q(i)^K`, where `q(i)` is the per-word inner rate: the chance that b uniform positions of a
//! w-bit word holding b·i uniform probes are all set. That is the exact rate of a w-bit
//! standard filter with i items and b hashes (Bose et al. 2008), `E[(X/w)^b]` for X the number
//! of set bits after b·i probes, computed with the occupancy recurrence
//! `Pr_{t+1}[x] = Pr_t[x]·x/w + Pr_t[x−1]·(w−x+1)/w`; for b = 1 it is `1 − (1 − 1/w)^i`. So
//!
//! ```text
//! FPR(w, K, b; m, n) = Σ_i Poisson(i; n·K·w/m) · q_{w,b}(i)^K
//! ```
//!
//! Checked against independent values (mpmath at 40 digits: `tests/data/multiblock_reference.py`),
//! against simulation (`tests` below) and against Boost's measured table
//! (`boostorg/bloom` `doc/bloom/benchmarks.adoc`, `experiments/multiblock.toml`).

use super::blocked::poisson_mixture;
use crate::error::{Error, Param, Result};

/// The word widths the family takes.
pub const WORD_BITS: [u32; 2] = [32, 64];
/// Most words per block.
pub const MAX_WORDS: u32 = 16;
/// Most bits per item (K·b): the salts the filter has.
pub const MAX_BITS: u32 = 32;
/// Largest number of blocks: the block index `((h >> 32)·blocks) >> 32` reaches at most 2³².
pub const MAX_BLOCKS: u64 = 1 << 32;

/// One multiblock layout: w-bit words, K words per block, b bits per word (k = K·b per item).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, serde::Serialize)]
pub struct Shape {
    /// Bits per word: 32 or 64.
    pub word_bits: u32,
    /// Words per block, K: 1 to 16.
    pub words: u32,
    /// Bits set in each word, b (k = K·b ≤ 32).
    pub bits_per_word: u32,
}

impl Shape {
    /// The default shape: Parquet's split-block layout, (32, 8, 1).
    pub const DEFAULT: Shape = Shape {
        word_bits: 32,
        words: 8,
        bits_per_word: 1,
    };

    /// A checked shape from word bits, words and k (bits per item; `None` = one per word).
    ///
    /// ```
    /// use bloomlab::theory::multiblock::Shape;
    /// let s = Shape::new(64, 1, Some(5)).unwrap();               // Boost's block<uint64_t, 5>
    /// assert_eq!((s.block_bits(), s.k()), (64, 5));
    /// assert!(Shape::new(64, 3, Some(4)).is_err());             // 4 bits over 3 words
    /// assert!(Shape::new(16, 8, None).is_err());
    /// ```
    ///
    /// # Errors
    /// [`Error::InvalidParameter`] naming the word bits, the words or k.
    pub fn new(word_bits: u32, words: u32, k: Option<u32>) -> Result<Self> {
        if !WORD_BITS.contains(&word_bits) {
            return Err(Error::invalid(
                Param::Other("word-bits"),
                word_bits,
                "32 or 64",
            ));
        }
        if !(1..=MAX_WORDS).contains(&words) {
            return Err(Error::invalid(
                Param::Other("words"),
                words,
                "1 to 16 words per block",
            ));
        }
        let k = k.unwrap_or(words);
        if k == 0 || k > MAX_BITS || !k.is_multiple_of(words) {
            return Err(Error::invalid(
                Param::K,
                k,
                format!(
                    "a multiple of the {words} words per block, at most {MAX_BITS} (b bits in each word)"
                ),
            ));
        }
        Ok(Self {
            word_bits,
            words,
            bits_per_word: k / words,
        })
    }

    /// Bits per item, k = K·b.
    #[must_use]
    pub fn k(self) -> u32 {
        self.words * self.bits_per_word
    }

    /// Bits per block, K·w.
    #[must_use]
    pub fn block_bits(self) -> u64 {
        u64::from(self.words) * u64::from(self.word_bits)
    }

    /// Boost.Bloom's name of this layout (`multiblock<uint64_t,8>`, `block<uint64_t,5>`), or
    /// the general (w, K, b) when Boost has no single type for it.
    #[must_use]
    pub fn boost_name(self) -> String {
        match (self.words, self.bits_per_word) {
            (_, 1) => format!("multiblock<uint{}_t,{}>", self.word_bits, self.words),
            (1, b) => format!("block<uint{}_t,{b}>", self.word_bits),
            (k, b) => format!("(w {}, K {k}, b {b})", self.word_bits),
        }
    }
}

/// Per-word loads from which on [`word_rate`] is 1 to f64 precision: the chance that a bit of
/// the word is still 0, `(1 − 1/w)^(b·i)`, is below e⁻⁴⁰ ≈ 4·10⁻¹⁸ once b·i ≥ 40·w.
fn saturated(shape: Shape, i: u64) -> bool {
    i.saturating_mul(u64::from(shape.bits_per_word)) >= 40 * u64::from(shape.word_bits)
}

/// The per-word inner rates `q(i)` for every load `i ∈ 0..=imax`: the probability that b
/// uniform positions of a w-bit word all hit set bits after i items set b uniform bits each
/// (see the module docs). One run of the occupancy recurrence serves every load.
///
/// ```
/// use bloomlab::theory::multiblock::{Shape, word_rates};
/// let q = word_rates(Shape::new(32, 8, None).unwrap(), 3);
/// assert!((q[2] - (1.0 - (31.0f64 / 32.0).powi(2))).abs() < 1e-15);
/// ```
#[must_use]
pub fn word_rates(shape: Shape, imax: u64) -> Vec<f64> {
    let w = shape.word_bits as usize;
    let b = shape.bits_per_word;
    let wf = w as f64;
    let mut out = Vec::with_capacity(imax.min(1 << 20) as usize + 1);
    if b == 1 {
        let l = (-1.0 / wf).ln_1p();
        for i in 0..=imax {
            out.push(if saturated(shape, i) {
                1.0
            } else {
                -(i as f64 * l).exp_m1()
            });
        }
        return out;
    }
    let pow: Vec<f64> = (0..=w).map(|x| (x as f64 / wf).powi(b as i32)).collect();
    let mut dist = vec![0.0f64; w + 1];
    dist[0] = 1.0;
    let mut next = vec![0.0f64; w + 1];
    for i in 0..=imax {
        if saturated(shape, i) {
            out.push(1.0);
            continue;
        }
        out.push(dist.iter().zip(&pow).map(|(d, p)| d * p).sum());
        for _ in 0..b {
            next[0] = 0.0;
            for x in 1..=w {
                next[x] = dist[x] * x as f64 / wf + dist[x - 1] * (w - x + 1) as f64 / wf;
            }
            std::mem::swap(&mut dist, &mut next);
        }
    }
    out
}

/// The model FPR of one block holding `i` items: `q(i)^K`.
#[must_use]
pub fn fpr_inner(shape: Shape, i: u64) -> f64 {
    word_rates(shape, i)[i as usize].powi(shape.words as i32)
}

/// The multiblock FPR for m bits (a multiple of the block) and n items (the module's model).
///
/// At 8 bits per key, Boost's `multiblock<uint64_t,5>` (λ = 40 items per 320-bit block):
/// ```
/// use bloomlab::theory::multiblock::{Shape, fpr_multiblock};
/// let p = fpr_multiblock(Shape::new(64, 5, None).unwrap(), 8_000_000 / 320 * 320, 1_000_000);
/// assert!((p - 0.02451).abs() < 1e-5, "{p}");   // Boost measured 2.4510%
/// ```
#[must_use]
pub fn fpr_multiblock(shape: Shape, m: u64, n: u64) -> f64 {
    if m == 0 {
        return 1.0;
    }
    let lambda = n as f64 * shape.block_bits() as f64 / m as f64;
    if !lambda.is_finite() || lambda > 1e6 {
        // Every word full to f64 precision long before (see `saturated`); summing the mixture
        // would take ~λ terms.
        return 1.0;
    }
    if lambda <= 0.0 {
        return 0.0;
    }
    let (_, hi) = super::blocked::poisson_window(lambda);
    let cap = 40 * u64::from(shape.word_bits) / u64::from(shape.bits_per_word) + 1;
    let q = word_rates(shape, hi.min(cap));
    let k = shape.words as i32;
    poisson_mixture(lambda, |i| q.get(i as usize).map_or(1.0, |r| r.powi(k)))
}

/// Expected fraction of set bits after n items in `blocks` blocks: an item sets a given bit with
/// probability `(1 − (1 − 1/w)^b) / blocks` (its block, then one of its b draws in that word), so
/// `fill = 1 − (1 − (1 − (1 − 1/w)^b)/blocks)^n`.
///
/// ```
/// use bloomlab::theory::multiblock::{Shape, expected_fill};
/// let f = expected_fill(Shape::new(32, 8, None).unwrap(), 1000, 100);
/// assert!((f - bloomlab::theory::split_block::expected_fill(256_000, 100)).abs() < 1e-12);
/// ```
#[must_use]
pub fn expected_fill(shape: Shape, blocks: u64, n: u64) -> f64 {
    let w = f64::from(shape.word_bits);
    let per_word = -(f64::from(shape.bits_per_word) * (-1.0 / w).ln_1p()).exp_m1();
    -(n as f64 * (-per_word / blocks.max(1) as f64).ln_1p()).exp_m1()
}

/// The fewest blocks `b ∈ 1..=max` with `ok(b)`, for a predicate that is monotone in b,
/// searched from a first guess `start` by doubling and bisection. `None` when even `max` fails.
pub fn fewest_blocks(start: f64, max: u64, ok: impl Fn(u64) -> bool) -> Option<u64> {
    let mut hi = if start.is_finite() && start >= 1.0 {
        (start as u64).min(max)
    } else {
        1
    };
    let mut lo = 0u64;
    while !ok(hi) {
        if hi >= max {
            return None;
        }
        lo = hi;
        hi = (hi * 2).min(max);
    }
    if lo == 0 {
        lo = hi / 2;
        while lo > 0 && ok(lo) {
            hi = lo;
            lo /= 2;
        }
    }
    while hi - lo > 1 {
        let mid = lo + (hi - lo) / 2;
        if ok(mid) {
            hi = mid;
        } else {
            lo = mid;
        }
    }
    Some(hi)
}

/// The smallest number of blocks whose model FPR ([`fpr_multiblock`]) is at most `p`.
///
/// ```
/// use bloomlab::theory::multiblock::{Shape, blocks_for};
/// // (32, 8, 1) is the split-block layout: the same sizing.
/// let s = Shape::new(32, 8, None).unwrap();
/// assert_eq!(blocks_for(s, 1_000_000, 0.01).unwrap(), 41_130);
/// ```
///
/// # Errors
/// Invalid `n` or `p`; [`Error::InvalidParameter`] naming `p` when more than 2³² blocks are
/// needed.
pub fn blocks_for(shape: Shape, n: u64, p: f64) -> Result<u64> {
    super::check_n(n)?;
    super::check_p(p)?;
    let bb = shape.block_bits();
    let start = super::size_for(n, p).map_or(1.0, |s| s.m as f64 / bb as f64);
    fewest_blocks(start, MAX_BLOCKS, |b| fpr_multiblock(shape, b * bb, n) <= p).ok_or_else(|| {
        Error::invalid(
            Param::P,
            crate::units::format_number(p),
            format!(
                "a rate a {} filter for {n} items reaches with at most 2^32 blocks",
                shape.boost_name()
            ),
        )
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// mpmath at 40 digits, from the combinatorial formula (`experiments/programs/
    /// multiblock_reference.py`): (w, K, b, bits per key, FPR).
    const REFERENCE: [(u32, u32, u32, u64, f64); 16] = [
        (32, 8, 1, 8, 0.033_211_863_708_753_064),
        (32, 8, 1, 12, 0.005_419_635_800_521_905),
        (32, 8, 1, 16, 0.001_315_573_402_850_645_2),
        (64, 8, 1, 8, 0.029_310_783_092_151_84),
        (64, 8, 1, 12, 0.004_222_491_031_148_122),
        (64, 8, 1, 16, 0.000_908_876_919_588_276_9),
        (64, 1, 1, 8, 0.117_503_097_415_404_6),
        (64, 1, 1, 12, 0.079_955_585_370_676_75),
        (64, 1, 1, 16, 0.060_586_937_186_524_21),
        (32, 16, 1, 8, 0.115_349_625_927_136_36),
        (32, 16, 1, 12, 0.012_758_458_195_439_252),
        (32, 16, 1, 16, 0.001_752_134_840_020_616_7),
        (64, 1, 4, 8, 0.033_540_788_051_960_7),
        (64, 1, 6, 16, 0.004_052_263_933_248_209),
        (32, 1, 3, 10, 0.028_433_135_337_434_728),
        (64, 2, 3, 12, 0.006_933_037_195_652_371),
    ];

    #[test]
    fn model_matches_the_mpmath_reference() {
        for (w, kw, b, c, want) in REFERENCE {
            let s = Shape::new(w, kw, Some(kw * b)).unwrap();
            // n large, m = c·n exactly a whole number of blocks: λ = K·w/c.
            let n = s.block_bits() * 1_000_000;
            let got = fpr_multiblock(s, c * n, n);
            assert!(
                (got / want - 1.0).abs() < 1e-11,
                "{s:?} c={c}: {got} vs {want}"
            );
        }
    }

    #[test]
    fn split_block_is_the_32_8_shape() {
        let s = Shape::new(32, 8, None).unwrap();
        for (m, n) in [
            (10_000_000u64, 1_000_000u64),
            (256 * 41_130, 1_000_000),
            (2_560, 97),
        ] {
            let (a, b) = (
                fpr_multiblock(s, m, n),
                super::super::split_block::fpr_split_block(m, n),
            );
            assert!((a / b - 1.0).abs() < 1e-13, "{m} {n}: {a} {b}");
        }
    }

    #[test]
    fn shapes_are_checked() {
        assert!(Shape::new(32, 0, None).is_err());
        assert!(Shape::new(32, 17, None).is_err());
        assert!(Shape::new(48, 8, None).is_err());
        assert!(Shape::new(64, 8, Some(12)).is_err());
        assert!(Shape::new(64, 16, Some(48)).is_err());
        assert_eq!(Shape::new(64, 16, Some(32)).unwrap().bits_per_word, 2);
        assert_eq!(
            Shape::new(64, 1, Some(5)).unwrap().boost_name(),
            "block<uint64_t,5>"
        );
        assert_eq!(
            Shape::new(32, 8, None).unwrap().boost_name(),
            "multiblock<uint32_t,8>"
        );
    }

    #[test]
    fn recurrence_rates_match_the_closed_form_and_saturate() {
        // b = 1 by the recurrence path: a shape with b = 2 over one probe per item is not b = 1,
        // so compare b = 2 against the direct two-bit formula E[(X/w)^2] at i = 1:
        // X = 1 w.p. 1/w, 2 otherwise: (1/w)·(1/w)² + (1 − 1/w)·(2/w)².
        let s = Shape::new(32, 1, Some(2)).unwrap();
        let q = word_rates(s, 2000);
        let w = 32.0f64;
        let want = (1.0 / w).powi(3) + (1.0 - 1.0 / w) * (2.0 / w).powi(2);
        assert!((q[1] - want).abs() < 1e-15, "{} {want}", q[1]);
        assert_eq!(q[0], 0.0);
        assert!(q.windows(2).all(|p| p[0] <= p[1] + 1e-15));
        assert_eq!(q[2000], 1.0);
        // Hugely overfilled: answered at once.
        assert_eq!(fpr_multiblock(s, 64, u64::MAX), 1.0);
        assert_eq!(fpr_multiblock(s, 0, 10), 1.0);
    }

    #[test]
    fn sizing_is_minimal() {
        for (w, kw, k) in [
            (32, 8, None),
            (64, 8, None),
            (64, 1, Some(5)),
            (32, 16, None),
        ] {
            let s = Shape::new(w, kw, k).unwrap();
            for (n, p) in [(1u64, 0.5), (1_000, 0.01), (100_000, 0.001)] {
                let b = blocks_for(s, n, p).unwrap();
                assert!(fpr_multiblock(s, b * s.block_bits(), n) <= p);
                if b > 1 {
                    assert!(
                        fpr_multiblock(s, (b - 1) * s.block_bits(), n) > p,
                        "{s:?} {n} {p}"
                    );
                }
            }
        }
        // One bit per item in a 64-bit word cannot reach 10^-6 for many items.
        let s = Shape::new(64, 1, None).unwrap();
        assert!(blocks_for(s, 1_000_000_000, 1e-9).is_err());
    }

    /// The model against a simulation of the layout with ideal random positions: n items in
    /// z blocks, queries of fresh random positions, at 8 and 16 bits per key.
    #[test]
    fn model_matches_simulation() {
        let mut x = 0x1234_5678_9abc_def0u64;
        let mut next = move || {
            x = x.wrapping_add(0x9e37_79b9_7f4a_7c15);
            let mut z = x;
            z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
            z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
            z ^ (z >> 31)
        };
        for (w, kw, k, c) in [(32u32, 8u32, 8u32, 8u64), (64, 1, 5, 12), (64, 4, 4, 16)] {
            let s = Shape::new(w, kw, Some(k)).unwrap();
            let z = 2_000u64;
            let m = z * s.block_bits();
            let n = m / c;
            let words = (z * u64::from(kw)) as usize;
            let mut bits = vec![0u64; words];
            let pos = |r: u64, t: u32| ((r >> (6 * (t % 10))) & 63) % u64::from(w);
            let probe = |set: bool, bits: &mut Vec<u64>, next: &mut dyn FnMut() -> u64| {
                let blk = (next() % z) as usize;
                let mut all = true;
                for i in 0..kw as usize {
                    let mut r = next();
                    for t in 0..s.bits_per_word {
                        if t == 10 {
                            r = next();
                        }
                        let bit = 1u64 << pos(r, t);
                        let word = &mut bits[blk * kw as usize + i];
                        all &= *word & bit != 0;
                        if set {
                            *word |= bit;
                        }
                    }
                }
                all
            };
            for _ in 0..n {
                probe(true, &mut bits, &mut next);
            }
            let q = 400_000u64;
            let fp = (0..q)
                .filter(|_| probe(false, &mut bits, &mut next))
                .count() as f64;
            let model = fpr_multiblock(s, m, n);
            let sd = (q as f64 * model * (1.0 - model)).sqrt();
            assert!(
                (fp - q as f64 * model).abs() < 5.0 * sd,
                "{s:?} c={c}: {fp} false positives, model {}",
                q as f64 * model
            );
        }
    }
}
