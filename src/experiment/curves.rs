//! Formulas the experiments draw as theory that [`crate::theory`] does not (yet) hold: counter
//! tails, the reach of Guava's 32-bit scheme, false negatives created by removing false
//! positives, and bits-per-item curves of cuckoo filters. Each is cited where it is defined.

use crate::experiment::CurveName;
use crate::hash::StrategyId;
use crate::theory;

/// `Pr[X ≥ j]` for `X ~ Binomial(t, p)`, summed term by term (stable for tiny tails).
///
/// A counting Bloom filter's counter after n inserts of k positions into m counters is
/// Binomial(kn, 1/m) (Fan, Cao, Almeida & Broder 2000, "Summary Cache", IEEE/ACM ToN 8(3)).
///
/// ```
/// use bloomlab::experiment::curves::binomial_tail;
/// assert!((binomial_tail(10, 0.5, 10) - 1.0 / 1024.0).abs() < 1e-15);
/// assert!((binomial_tail(10, 0.5, 0) - 1.0).abs() < 1e-15);
/// ```
#[must_use]
pub fn binomial_tail(t: u64, p: f64, j: u32) -> f64 {
    if j == 0 {
        return 1.0;
    }
    if u64::from(j) > t || p <= 0.0 {
        return 0.0;
    }
    if p >= 1.0 {
        return 1.0;
    }
    let tf = t as f64;
    let ratio = p / (1.0 - p);
    // Lower part Pr[X < j] by the forward recurrence from Pr[X = 0] = (1 − p)^t.
    let mut term = (tf * (-p).ln_1p()).exp();
    let mut lower = 0.0;
    for i in 0..j {
        lower += term;
        term *= (tf - f64::from(i)) / f64::from(i + 1) * ratio;
    }
    if lower < 0.5 {
        return (1.0 - lower).max(0.0);
    }
    // Upper tail directly, from Pr[X = j] computed in logs (no cancellation).
    let mut ln = f64::from(j) * p.ln() + (tf - f64::from(j)) * (-p).ln_1p()
        - statrs::function::gamma::ln_gamma(f64::from(j) + 1.0);
    for r in 0..j {
        ln += (tf - f64::from(r)).ln();
    }
    let mut term = ln.exp();
    let mut sum = 0.0;
    let mut i = u64::from(j);
    while i <= t {
        sum += term;
        if term < sum * 1e-17 {
            break;
        }
        term *= (tf - i as f64) / (i as f64 + 1.0) * ratio;
        i += 1;
    }
    sum.min(1.0)
}

/// Expected number of counters ≥ j after n inserts with k positions into m counters:
/// `m·Pr[Binomial(kn, 1/m) ≥ j]` (Fan et al. 2000's counter model).
#[must_use]
pub fn counters_at_least(m: u64, n: u64, k: u32, j: u32) -> f64 {
    if m == 0 {
        return 0.0;
    }
    m as f64 * binomial_tail(n.saturating_mul(u64::from(k)), 1.0 / m as f64, j)
}

/// Fan et al. (2000)'s bound `Pr[c ≥ j] ≤ C(nk, j)/m^j ≤ (e·nk/(j·m))^j`, times m: a bound on
/// the expected number of counters ≥ j (and, by the union bound, on the chance that any is).
#[must_use]
pub fn fan_bound(m: u64, n: u64, k: u32, j: u32) -> f64 {
    if m == 0 || j == 0 {
        return f64::INFINITY;
    }
    let jf = f64::from(j);
    let x = std::f64::consts::E * n as f64 * f64::from(k) / (jf * m as f64);
    m as f64 * x.powf(jf)
}

/// The classic formula when positions are not uniform over the m bits but over the part a
/// strategy can reach, with per-cell probabilities `w`: the expected fraction of set bits a
/// query position meets is `Σ w·(1 − e^(−w·kn))`, and the rate its k-th power (the classic
/// approximation of Bloom 1970 / Broder & Mitzenmacher 2004 with non-uniform cells).
///
/// For Guava's `MURMUR128_MITZ_32` (`BloomFilterStrategies.java`: `combined = hash1 + i·hash2`
/// in 32-bit ints, bit-inverted when negative, then `% bitSize`) the 2³¹ possible values of
/// `combined` fall on `min(m, 2³¹)` cells: when m > 2³¹ the bits above 2³¹ are never used; when
/// 2³⁰ < m < 2³¹ the first `2³¹ − m` cells are hit twice as often as the rest. Other
/// strategies reach all m cells uniformly and this is the classic formula.
///
/// ```
/// use bloomlab::experiment::curves::classic_reachable;
/// use bloomlab::hash::StrategyId;
/// let m = 3_000_000_000u64;
/// let full = bloomlab::theory::fpr_classic(m, 300_000_000, 7);
/// let half = bloomlab::theory::fpr_classic(1 << 31, 300_000_000, 7);
/// assert!((classic_reachable(StrategyId::Guava64, m, 300_000_000, 7) / full - 1.0).abs() < 1e-9);
/// assert!((classic_reachable(StrategyId::Guava32, m, 300_000_000, 7) / half - 1.0).abs() < 1e-9);
/// ```
#[must_use]
pub fn classic_reachable(strategy: StrategyId, m: u64, n: u64, k: u32) -> f64 {
    if strategy != StrategyId::Guava32 {
        return theory::fpr_classic(m, n, k);
    }
    const RANGE: u64 = 1 << 31;
    let kn = f64::from(k) * n as f64;
    // Cells hit by q + 1 values of `combined` (r of them) and by q values (the rest of min(m, 2^31)).
    let q = RANGE / m;
    let r = RANGE % m;
    let mut hit = 0.0;
    for (cells, weight) in [(r, (q + 1) as f64), (m - r, q as f64)] {
        if cells == 0 || weight == 0.0 {
            continue;
        }
        let w = weight / RANGE as f64;
        hit += cells as f64 * w * (-(-w * kn).exp_m1());
    }
    hit.powi(k as i32)
}

/// Expected false negatives created by removing one false positive.
///
/// Counting Bloom filter (m counters, k positions, n items): the false positive's k counters are
/// all ≥ 1; a counter at exactly 1 belongs to one inserted item, which loses it and becomes a
/// false negative. With counters Poisson(λ = kn/m) (Fan et al. 2000's model), a counter ≥ 1 is 1
/// with probability `λe^(−λ)/(1 − e^(−λ))`, so about `k·λe^(−λ)/(1 − e^(−λ))` items per removal
/// (≈ 4.85 at k = 7, λ = ln 2), ignoring overlaps. Cuckoo filter (`None`): the removal deletes
/// one stored fingerprint equal to the false positive's, i.e. one item: at most 1.
#[must_use]
pub fn false_negatives_per_removal(classic: Option<(u64, u32)>, n: u64) -> f64 {
    match classic {
        Some((m, k)) if m > 0 => {
            let lambda = f64::from(k) * n as f64 / m as f64;
            if lambda <= 0.0 {
                return 0.0;
            }
            f64::from(k) * lambda * (-lambda).exp() / (-(-lambda).exp_m1())
        }
        _ => 1.0,
    }
}

/// Cuckoo filter bits per item at rate ε, load α, b slots per bucket:
/// `(log2(1/ε) + log2(2b))/α`; with semi-sorted buckets one bit less per item (Fan, Andersen,
/// Kaminsky & Mitzenmacher 2014, "Cuckoo Filter: Practically Better Than Bloom", CoNEXT).
#[must_use]
pub fn cuckoo_bits_per_item(eps: f64, b: u32, alpha: f64, semisort: bool) -> f64 {
    let f = -eps.log2() + f64::from(2 * b).log2() - if semisort { 1.0 } else { 0.0 };
    f / alpha
}

/// The rate below which a cuckoo filter needs fewer bits per item than a Bloom filter at its
/// optimum (`log2(1/ε)/ln 2` bits): solves `L/ln 2 = (L + log2(2b) − s)/α` for `L = log2(1/ε)`.
///
/// ```
/// use bloomlab::experiment::curves::cuckoo_beats_bloom_below;
/// // Fan et al. 2014: "ε < 3%" — true with semi-sorting (2.5%), not without (0.41%).
/// assert!((cuckoo_beats_bloom_below(4, 0.955, true) - 0.0255).abs() < 0.001);
/// assert!((cuckoo_beats_bloom_below(4, 0.955, false) - 0.0041).abs() < 0.0002);
/// ```
#[must_use]
pub fn cuckoo_beats_bloom_below(b: u32, alpha: f64, semisort: bool) -> f64 {
    let c = f64::from(2 * b).log2() - if semisort { 1.0 } else { 0.0 };
    let l = (c / alpha) / (1.0 / std::f64::consts::LN_2 - 1.0 / alpha);
    2f64.powf(-l)
}

/// Evaluate a named reference curve at ε.
#[must_use]
pub fn curve(name: CurveName, eps: f64, alpha: f64, b: u32) -> f64 {
    match name {
        CurveName::BloomBitsPerKey => theory::bloom_bits_per_key(eps),
        CurveName::CuckooBitsPerKey => cuckoo_bits_per_item(eps, b, alpha, false),
        CurveName::CuckooSemisortBitsPerKey => cuckoo_bits_per_item(eps, b, alpha, true),
        CurveName::LowerBoundBitsPerKey => theory::lower_bound_bits_per_key(eps),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn binomial_tail_matches_poisson_limit_and_exact_sums() {
        // Exact small case: Pr[Bin(20, 0.3) >= 5] by direct summation.
        let direct: f64 = (5..=20u64)
            .map(|i| {
                let c = (0..i).fold(1.0, |acc, r| acc * (20 - r) as f64 / (r + 1) as f64);
                c * 0.3f64.powi(i as i32) * 0.7f64.powi(20 - i as i32)
            })
            .sum();
        assert!((binomial_tail(20, 0.3, 5) - direct).abs() < 1e-12);
        // Tiny tail: kn/m = ln 2, j = 16 (Fan et al.'s overflow): Poisson tail ≈ 6.8e-17·… per counter;
        // the bound (e ln2/16)^16 = 1.37e-15 must be above it.
        let m = 1_000_000u64;
        let n = (m as f64 * std::f64::consts::LN_2 / 7.0) as u64;
        let tail = binomial_tail(n * 7, 1.0 / m as f64, 16);
        let bound = fan_bound(m, n, 7, 16) / m as f64;
        assert!(tail > 0.0 && tail < bound, "{tail} {bound}");
        assert!((bound / 1.37e-15 - 1.0).abs() < 0.01, "{bound}");
    }

    #[test]
    fn false_negative_estimate_at_design_load() {
        let (m, n, k) = (9_585_058u64, 1_000_000u64, 7u32);
        let e = false_negatives_per_removal(Some((m, k)), n);
        assert!((e - 4.85).abs() < 0.1, "{e}");
        assert_eq!(false_negatives_per_removal(None, n), 1.0);
    }

    #[test]
    fn guava32_between_2_pow_30_and_31_is_biased() {
        // m = 1.5 * 2^30: the first 2^31 - m cells get double weight, so the rate is above the
        // uniform classic value.
        let m = 3u64 << 29;
        let n = m / 10;
        let uniform = theory::fpr_classic(m, n, 7);
        let g = classic_reachable(StrategyId::Guava32, m, n, 7);
        assert!(g > uniform * 1.05, "{g} {uniform}");
    }
}
