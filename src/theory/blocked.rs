//! The blocked Bloom filter: its false-positive rate and a sizing that honours it.
//!
//! Putze, Sanders & Singler (2007), "Cache-, Hash- and Space-Efficient Bloom Filters" (WEA 2007,
//! LNCS 4525; journal version ACM JEA 14, 2009), §3: a blocked filter is m/B independent standard
//! filters of B bits (one cache line, B = 512); an item picks one block and sets its k bits there.
//! A block receives a Binomial(n, B/m) ≈ Poisson(λ = n·B/m) number of items, so
//!
//! ```text
//! FPR_blocked(m, n, k, B) = Σ_i Poisson(i; n·B/m) · f_inner(B, i, k)
//! ```
//!
//! where `f_inner(B, i, k)` is the FPR of a B-bit standard filter holding i items. Because the
//! FPR is convex in the load, the uneven load of the blocks costs more than it saves: at equal m
//! a blocked filter has a *higher* FPR than a standard one, increasingly so as bits per key grow,
//! and needs extra bits to reach the same target ([`size_for`] finds how many).
//!
//! `f_inner` is the classic `(1 − e^(−ik/B))^k` in [`fpr_blocked`] ([`Inner::Classic`]: Putze et
//! al.'s formula as published) and the exact rate of Bose et al. (2008) ([`crate::theory::fpr_exact`])
//! in [`fpr_blocked_exact`] ([`Inner::Exact`]). For B = 512 the classic inner formula is low: at
//! 10 bits per key and k = 7 the mixture is 0.953% with it and 0.968% with the exact one, and
//! measurements (10⁷ queries, n = 10⁶: 0.964–0.971% over three seeds) side with the exact one.
//! So the blocked filter's own model ([`crate::filters::BlockedBloom`]'s `expected_fpr`) and the
//! sizing search ([`size_for`]) use the exact inner rate. For B = 512 it comes from a per-k table
//! of all block loads ([`exact_inner_512`]), filled by one run of the occupancy recurrence that
//! `fpr_exact` uses and extended on demand, so a model evaluation costs a few hundred look-ups
//! instead of ~10⁷ recurrence steps.

use crate::error::{Error, Param, Result};
use std::sync::Mutex;

/// Bits in one block of the blocked filter: one 64-byte cache line.
pub const BLOCK_BITS: u64 = 512;

/// Which inner (per-block) formula to use.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Inner {
    /// `(1 − e^(−ik/B))^k`.
    Classic,
    /// The exact rate of a B-bit filter with i items (Bose et al. 2008), see [`crate::theory::fpr_exact`].
    Exact,
    /// The binomial-fill form `(1 − (1 − 1/B)^(ik))^k` ([`crate::theory::fpr_bloom`]): exact
    /// expected fill, probes treated as independent of it. Between the other two for B = 512;
    /// kept to show which inner formula a published figure used (RocksDB's, see
    /// `experiments/literature.toml`).
    Bloom,
}

/// The loads `[lo, hi]` that [`poisson_mixture`] sums over for mean λ.
#[must_use]
pub fn poisson_window(lambda: f64) -> (u64, u64) {
    if lambda.is_nan() || lambda <= 0.0 || !lambda.is_finite() {
        return (0, 0);
    }
    let sd = lambda.sqrt();
    let lo = (lambda - 10.0 * sd - 10.0).max(0.0).floor() as u64;
    let hi = (lambda + 10.0 * sd + 30.0).ceil() as u64;
    (lo, hi)
}

/// `Σ_i Poisson(i; λ)·f(i)`, summed over `i ∈ [λ − 10√λ − 10, λ + 10√λ + 30]` (the mass left
/// out is below 10⁻²⁰; `f` is a probability so the error is too). The Poisson weights are built
/// outwards from the mode by the ratios `p(i+1)/p(i) = λ/(i+1)` and normalised over the window,
/// which stays accurate to ~10⁻¹⁴ for any λ from 0 to 10⁹ (evaluating `i·ln λ − λ − ln Γ(i+1)`
/// directly loses seven digits at λ = 10⁸ to cancellation).
///
/// ```
/// use bloomlab::theory::blocked::poisson_mixture;
/// // E[i] for i ~ Poisson(3.5) is 3.5.
/// assert!((poisson_mixture(3.5, |i| i as f64) - 3.5).abs() < 1e-12);
/// ```
pub fn poisson_mixture(lambda: f64, mut f: impl FnMut(u64) -> f64) -> f64 {
    if lambda.is_nan() || lambda <= 0.0 || !lambda.is_finite() {
        return f(0);
    }
    let (lo, hi) = poisson_window(lambda);
    let mode = (lambda.floor() as u64).clamp(lo, hi);
    let (mut wsum, mut sum) = (1.0, f(mode));
    let mut w = 1.0;
    for i in mode + 1..=hi {
        w *= lambda / i as f64;
        wsum += w;
        sum += w * f(i);
    }
    w = 1.0;
    for i in (lo..mode).rev() {
        w *= (i + 1) as f64 / lambda;
        wsum += w;
        sum += w * f(i);
    }
    sum / wsum
}

/// The classic FPR of a `bits`-bit standard filter holding `i` items with k hashes.
fn inner_classic(bits: u64, i: u64, k: u32) -> f64 {
    super::fpr_classic(bits, i, k)
}

/// Block loads from which on the exact mixture uses Bloom's form `(1 − (1 − 1/B)^(ik))^k`
/// instead of the exact rate (8 items per bit: the block is all but full and the two agree to
/// < 10⁻⁶, tested).
pub const EXACT_MAX_ITEMS: u64 = 4096;

/// The occupancy recurrence for one k, run as far as anyone asked, with its results so far.
struct Sweep {
    /// `values[i]` = exact FPR of a 512-bit filter holding i items.
    values: Vec<f64>,
    /// Pr[X = x] after `k·(values.len() − 1)` probes.
    dist: Vec<f64>,
    /// Pr[X = x] is zero outside `[lo, hi]`.
    lo: usize,
    hi: usize,
    /// `(x/512)^k`.
    pow: Vec<f64>,
}

impl Sweep {
    fn new(k: u32) -> Self {
        let b = BLOCK_BITS as usize;
        let mut dist = vec![0.0; b + 1];
        dist[0] = 1.0;
        Self {
            values: vec![0.0],
            dist,
            lo: 0,
            hi: 0,
            pow: (0..=b)
                .map(|x| (x as f64 / b as f64).powi(k as i32))
                .collect(),
        }
    }

    /// Extend to loads `0..=imax` with `Pr_{t+1}[x] = Pr_t[x]·x/B + Pr_t[x−1]·(B−x+1)/B`.
    fn extend(&mut self, k: u32, imax: u64) {
        const B: usize = BLOCK_BITS as usize;
        let bf = B as f64;
        let mut next = vec![0.0f64; B + 1];
        while (self.values.len() as u64) <= imax {
            for _ in 0..k {
                let (p, lo, hi) = (&self.dist, self.lo, self.hi);
                let new_hi = (hi + 1).min(B);
                next.fill(0.0);
                for x in lo.max(1)..=new_hi {
                    let stay = if x <= hi { p[x] * x as f64 / bf } else { 0.0 };
                    let grow = if x > lo {
                        p[x - 1] * (B - x + 1) as f64 / bf
                    } else {
                        0.0
                    };
                    let v = stay + grow;
                    // Flush what can never matter (keeps subnormals out of the loop).
                    next[x] = if v < 1e-300 { 0.0 } else { v };
                }
                std::mem::swap(&mut self.dist, &mut next);
                self.hi = new_hi;
                while self.lo < self.hi && self.dist[self.lo] == 0.0 {
                    self.lo += 1;
                }
            }
            let v = (self.lo..=self.hi)
                .map(|x| self.dist[x] * self.pow[x])
                .sum();
            self.values.push(v);
        }
    }
}

static SWEEPS: [Mutex<Option<Sweep>>; super::MAX_K as usize] =
    [const { Mutex::new(None) }; super::MAX_K as usize];

/// Run `f` on `[fpr_exact(512, i, k) for i in 0..=imax]` (`imax ≤ EXACT_MAX_ITEMS`), computing
/// only what no earlier call computed.
fn with_exact_512<R>(k: u32, imax: u64, f: impl FnOnce(&[f64]) -> R) -> R {
    debug_assert!((1..=super::MAX_K).contains(&k) && imax <= EXACT_MAX_ITEMS);
    let mut guard = SWEEPS[(k - 1) as usize]
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner);
    let sweep = guard.get_or_insert_with(|| Sweep::new(k));
    sweep.extend(k, imax);
    f(&sweep.values[..=imax as usize])
}

/// The exact FPR (Bose et al. 2008) of a 512-bit standard filter holding `i` items with k
/// independent uniform positions each: `Σ_x Pr[X = x]·(x/512)^k`, X the number of set bits after
/// `k·i` probes. Equal to [`crate::theory::fpr_exact`]`(512, i, k)` (tested to 10⁻¹³), but
/// computed for all loads up to i in one run of the occupancy recurrence that `fpr_exact` uses,
/// `Pr_{t+1}[x] = Pr_t[x]·x/B + Pr_t[x−1]·(B−x+1)/B`, and kept per k for later calls (≈ 10⁶
/// steps for i ≤ 256 at k = 7; i > 4096 is handed to `fpr_exact`).
///
/// ```
/// use bloomlab::theory::{fpr_classic, fpr_exact, blocked::exact_inner_512};
/// let (e, c) = (exact_inner_512(51, 7), fpr_classic(512, 51, 7));
/// assert!((e - fpr_exact(512, 51, 7)).abs() < 1e-14);
/// assert!(e / c > 1.015, "{e} {c}");   // the classic formula is 1.7% low here
/// ```
#[must_use]
pub fn exact_inner_512(i: u64, k: u32) -> f64 {
    if k == 0 || k > super::MAX_K || i > EXACT_MAX_ITEMS {
        return super::fpr_exact(BLOCK_BITS, i, k);
    }
    with_exact_512(k, i, |v| v[i as usize])
}

/// Putze et al.'s blocked-filter FPR with the classic inner formula, as published, for m bits in
/// blocks of `block_bits`, n items, k hashes (see the module docs; slightly low for B = 512,
/// see [`fpr_blocked_exact`]).
///
/// At 10 bits per key (m = 10n, k = 7) the blocked filter's 0.95% compares with the standard
/// filter's 0.82%:
/// ```
/// use bloomlab::theory::{fpr_classic, blocked::fpr_blocked};
/// let (m, n) = (10_000_000u64, 1_000_000u64);
/// let b = fpr_blocked(m, n, 7, 512);
/// assert!((fpr_classic(m, n, 7) - 0.00819).abs() < 1e-5);
/// assert!((b - 0.00953).abs() < 1e-5, "{b}");
/// ```
#[must_use]
pub fn fpr_blocked(m: u64, n: u64, k: u32, block_bits: u64) -> f64 {
    fpr_blocked_with(m, n, k, block_bits, Inner::Classic)
}

/// Like [`fpr_blocked`] with the exact inner rate of Bose et al. (2008) for each block load:
/// the model for independent, uniform positions inside a block (which
/// [`crate::filters::BlockedBloom`] has), and that filter's `expected_fpr`. For B = 512 it reads
/// [`exact_inner_512`]; for other B it calls [`crate::theory::fpr_exact`] per load (slow:
/// ~`k·B·Σi` steps).
///
/// ```
/// use bloomlab::theory::blocked::{fpr_blocked, fpr_blocked_exact};
/// let (m, n) = (10_000_000u64, 1_000_000u64);
/// assert!((fpr_blocked_exact(m, n, 7, 512) - 0.00968).abs() < 1e-5);   // vs 0.00953 classic
/// ```
#[must_use]
pub fn fpr_blocked_exact(m: u64, n: u64, k: u32, block_bits: u64) -> f64 {
    fpr_blocked_with(m, n, k, block_bits, Inner::Exact)
}

/// [`fpr_blocked`] with a choice of inner formula.
#[must_use]
pub fn fpr_blocked_with(m: u64, n: u64, k: u32, block_bits: u64, inner: Inner) -> f64 {
    if m == 0 || block_bits == 0 {
        return 1.0;
    }
    let lambda = n as f64 * block_bits as f64 / m as f64;
    // Past 10^6 items per block (a filter file may say so) every block a query can land in
    // holds, to f64 precision, so many items that all its bits are set: the rate is 1.0, and the
    // Poisson window would be billions of terms wide (a hang found by fuzzing the loader).
    if lambda > 1e6 && block_bits <= 4096 {
        return 1.0;
    }
    match inner {
        Inner::Classic => poisson_mixture(lambda, |i| inner_classic(block_bits, i, k)),
        Inner::Bloom => poisson_mixture(lambda, |i| super::fpr_bloom(block_bits, i, k)),
        Inner::Exact if block_bits == BLOCK_BITS && (1..=super::MAX_K).contains(&k) => {
            let (lo, hi) = poisson_window(lambda);
            if lo > EXACT_MAX_ITEMS {
                return poisson_mixture(lambda, |i| super::fpr_bloom(BLOCK_BITS, i, k));
            }
            with_exact_512(k, hi.min(EXACT_MAX_ITEMS), |v| {
                poisson_mixture(lambda, |i| match v.get(i as usize) {
                    Some(&x) => x,
                    None => super::fpr_bloom(BLOCK_BITS, i, k),
                })
            })
        }
        Inner::Exact => poisson_mixture(lambda, |i| super::fpr_exact(block_bits, i, k)),
    }
}

/// The k in `1..=MAX_K` that minimises the blocked model (exact inner, [`fpr_blocked_exact`])
/// for `blocks` blocks of 512 bits and n items, with that FPR. (The blocked optimum is at or
/// below the standard `(m/n)·ln 2`.)
///
/// Found by scanning k with the cheap classic-inner mixture, then walking from that k to the
/// exact model's own minimum (both are unimodal in k and their minima differ by at most one or
/// two), so only a few exact evaluations — and exact tables — are needed.
#[must_use]
pub fn optimal_k_blocked(blocks: u64, n: u64) -> (u32, f64) {
    let m = blocks.saturating_mul(BLOCK_BITS);
    let classic = |k: u32| fpr_blocked(m, n, k, BLOCK_BITS);
    let mut kc = 1u32;
    let mut best = classic(1);
    for k in 2..=super::MAX_K {
        let p = classic(k);
        if p < best {
            (kc, best) = (k, p);
        } else {
            break; // unimodal in k
        }
    }
    let exact = |k: u32| fpr_blocked_exact(m, n, k, BLOCK_BITS);
    let mut cur = (kc, exact(kc));
    for step in [-1i64, 1] {
        loop {
            let next = i64::from(cur.0) + step;
            if next < 1 || next > i64::from(super::MAX_K) {
                break;
            }
            let p = exact(next as u32);
            if p < cur.1 {
                cur = (next as u32, p);
            } else {
                break;
            }
        }
    }
    cur
}

/// Result of [`size_for`]: a blocked filter that meets the target under the blocked model.
#[derive(Debug, Clone, Copy, PartialEq, serde::Serialize)]
pub struct BlockedSizing {
    /// Number of 512-bit blocks.
    pub blocks: u64,
    /// Bits (`blocks · 512`).
    pub m: u64,
    /// Hash positions per item.
    pub k: u32,
    /// The model's FPR at (m, n, k) (≤ the target).
    pub fpr: f64,
    /// What the standard (Guava) formula asks for: `⌊−n·ln p/(ln 2)²⌋`.
    pub m_standard: u64,
    /// `m − m_standard`: the price of cache locality, in bits.
    pub extra_bits: i64,
}

impl BlockedSizing {
    /// Extra bits relative to the standard formula, as a fraction of it.
    #[must_use]
    pub fn extra_fraction(&self) -> f64 {
        self.extra_bits as f64 / self.m_standard as f64
    }
}

/// Largest number of blocks the sizing search will consider (2⁵⁰ blocks = 2⁵⁹ bits).
const MAX_BLOCKS: u64 = 1 << 50;

/// The smallest number of 512-bit blocks (with the best k for each) whose blocked-model FPR
/// (Putze et al. 2007 with the exact inner rate, [`fpr_blocked_exact`]) is at most `p` for n
/// items; `k = Some(k)` fixes k instead.
///
/// At 1% the blocked filter needs 3.5% more bits than the standard formula (and k = 6, not 7):
/// ```
/// let s = bloomlab::theory::blocked::size_for(1_000_000, 0.01, None).unwrap();
/// assert!(s.fpr <= 0.01 && s.k == 6);
/// assert_eq!((s.blocks, s.extra_bits), (19_372, 333_406));
/// assert!((s.extra_fraction() - 0.0348).abs() < 1e-4, "{}", s.extra_fraction());
/// ```
///
/// # Errors
/// Invalid `n`, `p` or `k`; [`Error::InvalidParameter`] naming `p` when no filter of at most
/// 2⁵⁹ bits reaches `p`.
pub fn size_for(n: u64, p: f64, k: Option<u32>) -> Result<BlockedSizing> {
    super::check_n(n)?;
    super::check_p(p)?;
    if let Some(k) = k {
        super::check_k(k)?;
    }
    let m_standard = super::optimal_bits(n, p)?;
    let eval = |blocks: u64| -> (u32, f64) {
        match k {
            Some(k) => (k, fpr_blocked_exact(blocks * BLOCK_BITS, n, k, BLOCK_BITS)),
            None => optimal_k_blocked(blocks, n),
        }
    };
    // Double from (about) the standard size until the model meets p, then bisect.
    let mut hi = m_standard.div_ceil(BLOCK_BITS).max(1);
    let mut lo = 0u64; // invariant: lo fails (or is 0), hi passes once found
    loop {
        if eval(hi).1 <= p {
            break;
        }
        lo = hi;
        if hi >= MAX_BLOCKS {
            return Err(Error::invalid(
                Param::P,
                crate::units::format_number(p),
                format!("a rate a blocked filter for {n} items reaches with at most 2^59 bits"),
            ));
        }
        hi = (hi * 2).min(MAX_BLOCKS);
    }
    // If the start passed, the answer may be smaller: bisect down from it.
    if lo == 0 {
        lo = hi / 2;
        while lo > 0 && eval(lo).1 <= p {
            hi = lo;
            lo /= 2;
        }
    }
    while hi - lo > 1 {
        let mid = lo + (hi - lo) / 2;
        if eval(mid).1 <= p {
            hi = mid;
        } else {
            lo = mid;
        }
    }
    let (k, fpr) = eval(hi);
    let m = hi * BLOCK_BITS;
    Ok(BlockedSizing {
        blocks: hi,
        m,
        k,
        fpr,
        m_standard,
        extra_bits: m as i64 - m_standard as i64,
    })
}

/// Extra bits a blocked filter needs over the standard formula to honour `p` under the blocked
/// model: `size_for(n, p, None)?.extra_bits`.
///
/// # Errors
/// As [`size_for`].
pub fn extra_bits(n: u64, p: f64) -> Result<i64> {
    Ok(size_for(n, p, None)?.extra_bits)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::theory::{fpr_bloom, fpr_classic, fpr_exact};

    #[test]
    fn mixture_sums_to_one_and_has_the_right_variance() {
        for lambda in [1e-3, 0.7, 25.6, 51.2, 1e4, 1e8] {
            let s = poisson_mixture(lambda, |_| 1.0);
            assert!((s - 1.0).abs() < 1e-9, "λ={lambda}: {s}");
            let var = poisson_mixture(lambda, |i| (i as f64 - lambda).powi(2));
            assert!((var / lambda - 1.0).abs() < 1e-6, "λ={lambda}: {var}");
        }
        assert_eq!(poisson_mixture(0.0, |i| i as f64 + 0.25), 0.25);
    }

    #[test]
    fn blocked_is_above_standard_and_converges_to_it_for_big_blocks() {
        let (m, n, k) = (10_000_000u64, 1_000_000u64, 7u32);
        let std = fpr_classic(m, n, k);
        let b512 = fpr_blocked(m, n, k, 512);
        let b64k = fpr_blocked(m, n, k, 1 << 16);
        assert!(b512 > std * 1.15, "{b512} vs {std}");
        assert!(b64k > std && b64k < std * 1.01, "{b64k} vs {std}");
    }

    #[test]
    fn one_block_is_a_poisson_average_of_standard() {
        // With m = B there is one block; the mixture averages the inner FPR over Poisson(n).
        let p = fpr_blocked(512, 40, 5, 512);
        let direct = poisson_mixture(40.0, |i| fpr_classic(512, i, 5));
        assert!((p - direct).abs() < 1e-15);
    }

    #[test]
    fn exact_inner_is_higher_than_classic() {
        let (m, n, k) = (51_200u64, 2_000u64, 5u32); // λ = 20 items per block
        let c = fpr_blocked(m, n, k, 512);
        let e = fpr_blocked_exact(m, n, k, 512);
        assert!(e > c && e / c - 1.0 < 0.05, "{e} {c}");
        // The tabulated mixture equals the mixture of fpr_exact itself (the reference path).
        let direct = poisson_mixture(20.0, |i| fpr_exact(512, i, k));
        assert!(
            (e - direct).abs() < 1e-14 * e.max(1e-300) + 1e-17,
            "{e} {direct}"
        );
    }

    #[test]
    fn table_equals_fpr_exact() {
        let cases = [1u32, 2, 7, 13]
            .into_iter()
            .flat_map(|k| [0u64, 1, 2, 10, 51, 100, 256, 257, 300].map(|i| (k, i)))
            .chain([(64, 0), (64, 1), (64, 10)]);
        for (k, i) in cases {
            {
                let t = exact_inner_512(i, k);
                let r = fpr_exact(512, i, k);
                assert!(
                    (t - r).abs() <= 1e-13 * r + 1e-300,
                    "k={k} i={i}: {t} vs {r}"
                );
            }
        }
    }

    #[test]
    fn heavy_loads_sweep_once_and_agree_with_fpr_exact() {
        // λ = 130 items per block: loads up to 274.
        let (m, n, k) = (5_120u64, 1_300u64, 1u32);
        assert!(poisson_window(130.0).1 > 256);
        let e = fpr_blocked_exact(m, n, k, 512);
        let direct = poisson_mixture(130.0, |i| fpr_exact(512, i, k));
        assert!((e - direct).abs() < 1e-13, "{e} {direct}");
        // From EXACT_MAX_ITEMS on Bloom's form stands in for the exact rate.
        for k in [1u32, 2, 4] {
            let (e, b) = (
                fpr_exact(512, EXACT_MAX_ITEMS + 1, k),
                fpr_bloom(512, EXACT_MAX_ITEMS + 1, k),
            );
            assert!((e - b).abs() < 1e-6 * e, "k={k}: {e} {b}");
        }
    }

    #[test]
    fn optimal_k_walk_equals_full_scan() {
        // (Scanning k up to 14 only: a table costs k·256·513 steps, slow in debug builds.)
        for (blocks, n) in [
            (391u64, 20_000u64),
            (40, 1_000),
            (100, 20_000),
            (700, 20_000),
        ] {
            let m = blocks * BLOCK_BITS;
            let scan = (1..=14)
                .map(|k| (k, fpr_blocked_exact(m, n, k, BLOCK_BITS)))
                .min_by(|a, b| a.1.total_cmp(&b.1))
                .unwrap();
            assert_eq!(optimal_k_blocked(blocks, n), scan, "blocks={blocks} n={n}");
        }
    }

    #[test]
    fn other_block_sizes_use_fpr_exact() {
        let e = fpr_blocked_exact(2_560, 50, 4, 256); // λ = 5
        let direct = poisson_mixture(5.0, |i| fpr_exact(256, i, 4));
        assert!((e - direct).abs() < 1e-15);
    }

    #[test]
    fn sizing_meets_target_and_is_minimal() {
        for (n, p) in [
            (1_000u64, 0.01),
            (20_000, 0.01),
            (1_000_000, 0.001),
            (100, 0.2),
        ] {
            let s = size_for(n, p, None).unwrap();
            assert!(s.fpr <= p, "{n} {p}: {s:?}");
            assert_eq!(s.m, s.blocks * BLOCK_BITS);
            if s.blocks > 1 {
                let (_, worse) = optimal_k_blocked(s.blocks - 1, n);
                assert!(worse > p, "{n} {p}: one block fewer still meets p");
            }
            // Blocking never costs less than the standard formula.
            assert!(s.extra_bits > -(BLOCK_BITS as i64), "{s:?}");
        }
        // Fixing k: never better than choosing it.
        let free = size_for(50_000, 0.001, None).unwrap();
        let fixed = size_for(50_000, 0.001, Some(12)).unwrap();
        assert!(fixed.blocks >= free.blocks && fixed.k == 12);
    }

    #[test]
    fn extra_bits_grow_as_p_shrinks() {
        let a = size_for(1_000_000, 0.01, None).unwrap().extra_fraction();
        let b = size_for(1_000_000, 0.001, None).unwrap().extra_fraction();
        let c = size_for(1_000_000, 0.0001, None).unwrap().extra_fraction();
        assert!(a > 0.0 && b > a && c > b, "{a} {b} {c}");
        assert_eq!(
            extra_bits(1_000_000, 0.01).unwrap(),
            size_for(1_000_000, 0.01, None).unwrap().extra_bits
        );
    }

    #[test]
    fn bad_inputs() {
        assert!(size_for(0, 0.01, None).is_err());
        assert!(size_for(10, 1.0, None).is_err());
        assert!(size_for(10, 0.01, Some(0)).is_err());
    }
}
