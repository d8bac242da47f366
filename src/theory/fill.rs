//! Why the fill concentrates: the spread of the number of set bits of a standard Bloom filter.
//!
//! Model: the kn positions of n items are independent and uniform on the m bits (the model of
//! [`super::fpr_classic`]). The number of empty bits Z (and so the number of set bits m − Z) is
//! a sum of m dependent indicators; its mean is `m·a` with `a = (1 − 1/m)^(kn)`
//! ([`super::expected_fill`]), and two tools say how far it strays from that:
//! - its exact variance ([`set_bits_variance`]): the indicator sum's variances and covariances
//!   (the classical occupancy moments; Mitzenmacher & Upfal 2005, §5.3–5.4, treat the same
//!   balls-and-bins model and its Poisson approximation `m·e^(−λ)(1 − (1 + λ)e^(−λ))`,
//!   λ = kn/m, which this tends to);
//! - a tail bound ([`empty_bits_tail_bound`]): moving one of the kn positions changes Z by at
//!   most 1, so by the bounded-differences (Azuma–Hoeffding / McDiarmid) inequality
//!   `P(|Z − E Z| ≥ t) ≤ 2·exp(−2t²/(kn))` (Mitzenmacher & Upfal 2005, §12.5, balls and bins;
//!   Broder & Mitzenmacher 2004, §2.1, use it to replace the fill by its mean).
//!
//! Either way the standard deviation is O(√m) against a mean of order m: the fraction of set
//! bits is within O(1/√m) of its mean, which is why one filter's rate is close to the formula.

/// The exact variance of the number of set bits (equally, of empty bits) after n items with k
/// independent uniform positions each in m bits:
/// `Var Z = m·a·(1 − a) + m(m − 1)·(b − a²)`, `a = (1 − 1/m)^T`, `b = (1 − 2/m)^T`, T = kn —
/// one bit is empty with probability a, two given bits both with probability b. Computed as
/// `m·a·(1 − (1 − 1/(m−1))^T) − m²·a²·(1 − (1 − 1/(m−1)²)^T)` with `ln_1p`/`exp_m1`, which
/// is the same expression without the cancellation of its three large terms.
///
/// ```
/// use bloomlab::theory::fill::set_bits_variance;
/// // m = 1024, n = 100, k = 7 (reference value from mpmath at 40 digits: 77.6066332068822).
/// assert!((set_bits_variance(1024, 100, 7) / 77.606_633_206_882_19 - 1.0).abs() < 1e-12);
/// ```
#[must_use]
pub fn set_bits_variance(m: u64, n: u64, k: u32) -> f64 {
    let t = f64::from(k) * n as f64;
    if m <= 1 || t == 0.0 {
        return 0.0;
    }
    let mf = m as f64;
    let a = (t * (-1.0 / mf).ln_1p()).exp();
    let d = mf - 1.0;
    let first = -mf * a * (t * (-1.0 / d).ln_1p()).exp_m1();
    let second = mf * mf * a * a * (t * (-1.0 / (d * d)).ln_1p()).exp_m1();
    (first + second).max(0.0)
}

/// The bounded-differences bound on the number of empty (equally, set) bits straying from its
/// mean by `t` or more: `2·exp(−2t²/(kn))`, capped at 1 (see the module notes).
///
/// ```
/// use bloomlab::theory::fill::empty_bits_tail_bound;
/// // m = 9,585,059, n = 10^6, k = 7: 10,000 bits from the mean (0.1% of m) has probability
/// // below 2·e^(−28.6).
/// assert!(empty_bits_tail_bound(1_000_000, 7, 10_000.0) < 1e-12);
/// assert_eq!(empty_bits_tail_bound(1_000_000, 7, 0.0), 1.0);
/// ```
#[must_use]
pub fn empty_bits_tail_bound(n: u64, k: u32, t: f64) -> f64 {
    let kn = f64::from(k) * n as f64;
    if kn == 0.0 {
        return if t > 0.0 { 0.0 } else { 1.0 };
    }
    (2.0 * (-2.0 * t * t / kn).exp()).min(1.0)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Reference values from mpmath at 40 significant digits (written to f64's precision), from the defining form
    /// `m·a + m(m−1)·b − m²·a²`:
    /// `mp.dps = 40; T = k*n; m*(1-1/m)**T + m*(m-1)*(1-2/m)**T - m*m*(1-1/m)**(2*T)`.
    #[test]
    fn variance_matches_mpmath() {
        for (m, n, k, want) in [
            (1024u64, 100u64, 7u32, 77.606_633_206_882_2),
            (9_585_059, 1_000_000, 7, 768_408.659_172_79),
            (64, 12, 3, 3.994_206_550_980_257),
            (100, 10, 1, 0.389_619_715_285_953_5),
        ] {
            let got = set_bits_variance(m, n, k);
            assert!(
                (got / want - 1.0).abs() < 1e-10,
                "m={m} n={n} k={k}: {got} vs {want}"
            );
        }
    }

    /// Small cases by enumeration of every placement: m = 3 bits, T = 2 or 3 balls.
    #[test]
    fn variance_matches_enumeration() {
        for (m, t) in [(3u64, 2u32), (3, 3), (4, 3), (2, 5)] {
            let (mut s1, mut s2, mut count) = (0.0, 0.0, 0.0);
            for code in 0..m.pow(t) {
                let mut used = vec![false; m as usize];
                let mut c = code;
                for _ in 0..t {
                    used[(c % m) as usize] = true;
                    c /= m;
                }
                let z = used.iter().filter(|u| !**u).count() as f64;
                s1 += z;
                s2 += z * z;
                count += 1.0;
            }
            let var = s2 / count - (s1 / count).powi(2);
            let got = set_bits_variance(m, u64::from(t), 1);
            assert!((got - var).abs() < 1e-12, "m={m} T={t}: {got} vs {var}");
        }
        assert_eq!(set_bits_variance(1, 10, 3), 0.0);
        assert_eq!(set_bits_variance(100, 0, 3), 0.0);
    }

    #[test]
    fn tail_bound_is_the_formula() {
        let b = empty_bits_tail_bound(100, 7, 30.0);
        assert!((b - 2.0 * (-2.0 * 900.0 / 700.0f64).exp()).abs() < 1e-15);
        assert_eq!(empty_bits_tail_bound(100, 7, 1.0), 1.0, "capped");
    }
}
