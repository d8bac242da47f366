//! The counting Bloom filter: its false-positive rate and the chance that a 4-bit counter
//! overflows.
//!
//! A counting Bloom filter (Fan, Cao, Almeida & Broder 2000, "Summary Cache: A Scalable Wide-Area
//! Web Cache Sharing Protocol", IEEE/ACM ToN 8(3), §V) replaces each bit by a small counter:
//! insert increments the k counters of an item, remove decrements them, a query asks whether all
//! k are non-zero. A counter is non-zero exactly when the corresponding bit of a standard filter
//! holding the same items would be set, so the false-positive rate is the standard one
//! ([`fpr_counting`]).
//!
//! What is new is **overflow**. After n inserts with k positions each into m counters, one
//! counter's value is Binomial(nk, 1/m) (≈ Poisson(nk/m)). Fan et al. bound the tail by
//! `Pr[c ≥ j] ≤ C(nk, j)/m^j ≤ (e·n·k/(j·m))^j` and, at the optimal `k = (m/n)·ln 2`,
//! `Pr[max counter ≥ j] ≤ m·(e·ln 2/j)^j` ([`overflow_bound_optimal`]); for j = 16 that is
//! `1.37·10⁻¹⁵·m`, which is why 4 bits suffice. [`counter_tail_binomial`] and
//! [`counter_tail_poisson`] give the per-counter tail itself for any (m, n, k), so the bound can
//! be compared with what it bounds, including far past the design load where it stops being tiny.

use statrs::function::gamma::ln_gamma;

/// The false-positive rate of a counting Bloom filter with m counters, n items and k hashes:
/// the classic `(1 − e^(−kn/m))^k` of the standard filter (Fan et al. 2000, §V: a counter is
/// non-zero iff the standard filter's bit would be set). Saturated counters (which are never
/// decremented) can only keep a counter non-zero after removes, so after removes the true rate is
/// at least this; with 4-bit counters at design load saturation is too rare to matter.
///
/// ```
/// let p = bloomlab::theory::counting::fpr_counting(9_585_058, 1_000_000, 7);
/// assert!((p - 0.01).abs() < 5e-4);
/// ```
#[must_use]
pub fn fpr_counting(m: u64, n: u64, k: u32) -> f64 {
    super::fpr_classic(m, n, k)
}

/// Fan et al.'s (2000, §V.C) bound on the chance that *any* of m counters reaches `j` at the
/// optimal number of hash functions `k = (m/n)·ln 2`: `Pr[max c ≥ j] ≤ m·(e·ln 2/j)^j`.
///
/// ```
/// use bloomlab::theory::counting::overflow_bound_optimal;
/// // "1.37e-15 × m" for a counter reaching 16 (Fan et al.'s number).
/// let per_counter = overflow_bound_optimal(1, 16);
/// assert!((per_counter / 1.37e-15 - 1.0).abs() < 0.01, "{per_counter}");
/// ```
#[must_use]
pub fn overflow_bound_optimal(m: u64, j: u32) -> f64 {
    if j == 0 {
        return 1.0;
    }
    let jf = f64::from(j);
    let per = (std::f64::consts::E * std::f64::consts::LN_2 / jf).powf(jf);
    (m as f64 * per).min(1.0)
}

/// Fan et al.'s bound for arbitrary (m, n, k): `Pr[max c ≥ j] ≤ m·(e·n·k/(j·m))^j` (the step
/// before substituting the optimal k), capped at 1.
#[must_use]
pub fn overflow_bound(m: u64, n: u64, k: u32, j: u32) -> f64 {
    if j == 0 || m == 0 {
        return 1.0;
    }
    let jf = f64::from(j);
    let x = std::f64::consts::E * n as f64 * f64::from(k) / (jf * m as f64);
    (m as f64 * x.powf(jf)).min(1.0)
}

/// `ln C(t, i)`.
fn ln_choose(t: f64, i: f64) -> f64 {
    ln_gamma(t + 1.0) - ln_gamma(i + 1.0) - ln_gamma(t - i + 1.0)
}

/// `Pr[c ≥ j]` for one counter, exactly: c ~ Binomial(t = n·k, q = 1/m) when the nk positions
/// are independent and uniform (the model behind every formula here).
///
/// Summed term by term in log space, from `j` upwards when `j` is above the mean (so tails of
/// 10⁻³⁰⁰ keep their relative precision), as `1 − Pr[c < j]` otherwise.
///
/// ```
/// use bloomlab::theory::counting::counter_tail_binomial;
/// // 10 items × 1 hash into 10 counters: Pr[c ≥ 1] = 1 − 0.9^10.
/// let p = counter_tail_binomial(10, 10, 1, 1);
/// assert!((p - (1.0 - 0.9f64.powi(10))).abs() < 1e-12);
/// ```
#[must_use]
pub fn counter_tail_binomial(m: u64, n: u64, k: u32, j: u32) -> f64 {
    if j == 0 {
        return 1.0;
    }
    if m == 0 {
        return 0.0;
    }
    let t = n as f64 * f64::from(k);
    let jf = f64::from(j);
    if jf > t {
        return 0.0;
    }
    if m == 1 {
        return 1.0; // every probe hits the one counter: c = t ≥ j
    }
    let q = 1.0 / m as f64;
    let (lq, lp) = (q.ln(), (-q).ln_1p());
    let term = |i: f64| (ln_choose(t, i) + i * lq + (t - i) * lp).exp();
    let mean = t * q;
    if jf > mean {
        let mut sum = 0.0;
        let mut i = jf;
        while i <= t {
            let x = term(i);
            sum += x;
            if x <= sum * 1e-18 || x == 0.0 {
                break;
            }
            i += 1.0;
        }
        sum.min(1.0)
    } else {
        let below: f64 = (0..j).map(|i| term(f64::from(i))).sum();
        (1.0 - below).clamp(0.0, 1.0)
    }
}

/// `Pr[c ≥ j]` for one counter under the Poisson approximation c ~ Poisson(λ = n·k/m), the
/// approximation Fan et al. (2000, §V.C) start from.
#[must_use]
pub fn counter_tail_poisson(m: u64, n: u64, k: u32, j: u32) -> f64 {
    if j == 0 {
        return 1.0;
    }
    if m == 0 {
        return 0.0;
    }
    let lambda = n as f64 * f64::from(k) / m as f64;
    if lambda == 0.0 {
        return 0.0;
    }
    let ll = lambda.ln();
    let term = |i: f64| (i * ll - lambda - ln_gamma(i + 1.0)).exp();
    let jf = f64::from(j);
    if jf > lambda {
        let mut sum = 0.0;
        let mut i = jf;
        loop {
            let x = term(i);
            sum += x;
            if x <= sum * 1e-18 || x == 0.0 {
                break;
            }
            i += 1.0;
        }
        sum.min(1.0)
    } else {
        let below: f64 = (0..j).map(|i| term(f64::from(i))).sum();
        (1.0 - below).clamp(0.0, 1.0)
    }
}

/// Expected number of counters at or above `j` after n inserts: `m·Pr[c ≥ j]` (exact binomial).
/// With j = 15 this is the expected number of *saturated* 4-bit counters.
#[must_use]
pub fn expected_counters_at_least(m: u64, n: u64, k: u32, j: u32) -> f64 {
    m as f64 * counter_tail_binomial(m, n, k, j)
}

/// `Pr[max counter ≥ j]` two ways: `(estimate, bound)`, where the estimate treats the m counters
/// as independent, `1 − (1 − Pr[c ≥ j])^m`, and the bound is the union bound `min(1, m·Pr[c ≥ j])`
/// (the counters are negatively associated, so the estimate is itself an upper bound too).
#[must_use]
pub fn max_counter_tail(m: u64, n: u64, k: u32, j: u32) -> (f64, f64) {
    let tail = counter_tail_binomial(m, n, k, j);
    let est = -((m as f64) * (-tail).ln_1p()).exp_m1();
    (est.clamp(0.0, 1.0), (m as f64 * tail).min(1.0))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fan_number_for_sixteen() {
        // (e ln2 / 16)^16 = 1.37e-15 (Fan et al. 2000, §V.C).
        let b = overflow_bound_optimal(1, 16);
        assert!((b - 1.37e-15).abs() < 0.01e-15, "{b}");
        // The general bound at the optimal k equals the optimal-k bound.
        let (m, n) = (1_000_000u64, 100_000u64);
        let k_real = m as f64 / n as f64 * std::f64::consts::LN_2; // 6.93
        let x = std::f64::consts::E * n as f64 * k_real / (16.0 * m as f64);
        assert!((m as f64 * x.powi(16) / overflow_bound_optimal(m, 16) - 1.0).abs() < 1e-9);
    }

    #[test]
    fn bound_dominates_exact_tail() {
        for (m, n, k) in [
            (1_000u64, 100u64, 7u32),
            (10_000, 1_000, 7),
            (1_000, 1_000, 4),
        ] {
            for j in [2u32, 4, 8, 15, 16] {
                let exact = counter_tail_binomial(m, n, k, j);
                // Fan et al.'s per-counter bound (e·n·k/(j·m))^j, uncapped.
                let x = std::f64::consts::E * n as f64 * f64::from(k) / (f64::from(j) * m as f64);
                let bound = x.powi(j as i32);
                // The capped union bound over m counters is at least the per-counter tail.
                assert!(overflow_bound(m, n, k, j) >= exact);
                assert!(exact <= bound * (1.0 + 1e-9), "m={m} n={n} k={k} j={j}");
            }
        }
        // At the design load the bound is loose by orders of magnitude but the tail is tiny either way.
        let exact = counter_tail_binomial(9_585_058, 1_000_000, 7, 16);
        assert!(exact < 1e-15 && exact > 1e-20, "{exact}");
    }

    #[test]
    fn binomial_and_poisson_agree_for_large_m() {
        let (m, n, k) = (1_000_000u64, 1_500_000u64, 8u32); // λ = 12
        for j in [1u32, 5, 12, 15, 20, 30] {
            let b = counter_tail_binomial(m, n, k, j);
            let p = counter_tail_poisson(m, n, k, j);
            assert!((b / p - 1.0).abs() < 1e-3, "j={j}: {b} vs {p}");
        }
    }

    #[test]
    fn binomial_tail_small_case_by_hand() {
        // t = 3 probes into m = 2 counters: Pr[c ≥ 2] = (3 + 1)/8.
        assert!((counter_tail_binomial(2, 3, 1, 2) - 0.5).abs() < 1e-12);
        assert!((counter_tail_binomial(2, 3, 1, 3) - 0.125).abs() < 1e-12);
        assert_eq!(counter_tail_binomial(2, 3, 1, 4), 0.0);
        assert_eq!(counter_tail_binomial(1, 3, 1, 3), 1.0);
    }

    #[test]
    fn max_tail_estimate_below_union_bound() {
        let (e, b) = max_counter_tail(1_000, 4_000, 3, 15);
        assert!(e <= b && e > 0.99, "{e} {b}");
        let (e, b) = max_counter_tail(9_585_058, 1_000_000, 7, 16);
        assert!(e <= b && b < 1e-8, "{e} {b}");
    }
}
