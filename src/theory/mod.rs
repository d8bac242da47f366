//! Pure formulas, each cited to where it comes from. No filter code here: filters call these.
//!
//! Notation: `m` bits, `n` items inserted, `k` hash functions, `p` (or ε) false-positive rate.

use crate::error::{Error, Param, Result};

/// The largest k accepted anywhere in the crate.
pub const MAX_K: u32 = 64;

/// Check `n >= 1`.
///
/// # Errors
/// [`Error::InvalidParameter`] naming `n`.
pub fn check_n(n: u64) -> Result<u64> {
    if n == 0 {
        return Err(Error::invalid(Param::N, n, "an integer >= 1"));
    }
    Ok(n)
}

/// Check `0 < p < 1` (and not NaN).
///
/// # Errors
/// [`Error::InvalidParameter`] naming `p`.
pub fn check_p(p: f64) -> Result<f64> {
    if p.is_nan() || p <= 0.0 || p >= 1.0 {
        return Err(Error::invalid(
            Param::P,
            crate::units::format_number(p),
            "a probability strictly between 0 and 1",
        ));
    }
    Ok(p)
}

/// Check `m >= 1`.
///
/// # Errors
/// [`Error::InvalidParameter`] naming `m`.
pub fn check_m(m: u64) -> Result<u64> {
    if m == 0 {
        return Err(Error::invalid(Param::M, m, "a bit count >= 1"));
    }
    Ok(m)
}

/// Check `1 <= k <= MAX_K`.
///
/// # Errors
/// [`Error::InvalidParameter`] naming `k`.
pub fn check_k(k: u32) -> Result<u32> {
    if k == 0 || k > MAX_K {
        return Err(Error::invalid(
            Param::K,
            k,
            format!("an integer from 1 to {MAX_K}"),
        ));
    }
    Ok(k)
}

/// Filter dimensions.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
pub struct Sizing {
    /// Bits.
    pub m: u64,
    /// Hash functions.
    pub k: u32,
}

/// Bits for `n` items at rate `p`, exactly as Guava's `BloomFilter.optimalNumOfBits` and
/// Redisson compute it: `m = ⌊−n·ln p / (ln 2)²⌋` (at least 1).
///
/// The formula is the classic optimum (Bloom 1970; see Broder & Mitzenmacher 2004, "Network
/// Applications of Bloom Filters: A Survey", §2.1), where k = (m/n)·ln 2 makes the FPR 2^(−k).
///
/// ```
/// assert_eq!(bloomlab::theory::optimal_bits(1_000_000, 0.01).unwrap(), 9_585_058);
/// ```
///
/// # Errors
/// Invalid `n` or `p`.
// ANCHOR: optimal_bits
pub fn optimal_bits(n: u64, p: f64) -> Result<u64> {
    check_n(n)?;
    check_p(p)?;
    let ln2 = std::f64::consts::LN_2;
    let m = (-(n as f64) * p.ln() / (ln2 * ln2)).floor();
    if !m.is_finite() || m >= u64::MAX as f64 {
        return Err(Error::invalid(
            Param::N,
            n,
            "small enough that m fits in 64 bits",
        ));
    }
    Ok((m as u64).max(1))
}
// ANCHOR_END: optimal_bits

/// Hash functions for `m` bits and `n` items, as Guava's `optimalNumOfHashFunctions`:
/// `max(1, round(m/n · ln 2))`, capped at [`MAX_K`].
///
/// ```
/// assert_eq!(bloomlab::theory::optimal_k(9_585_058, 1_000_000), 7);
/// ```
#[must_use]
// ANCHOR: optimal_k
pub fn optimal_k(m: u64, n: u64) -> u32 {
    let k = (m as f64 / n.max(1) as f64 * std::f64::consts::LN_2).round();
    (k as u32).clamp(1, MAX_K)
}
// ANCHOR_END: optimal_k

/// The real-valued optimum k* = (m/n)·ln 2 (Broder & Mitzenmacher 2004, §2.1).
#[must_use]
pub fn optimal_k_real(m: u64, n: u64) -> f64 {
    m as f64 / n.max(1) as f64 * std::f64::consts::LN_2
}

/// Size a filter for `n` items at rate `p`, the Guava/Redisson way.
///
/// ```
/// let s = bloomlab::theory::size_for(1_000_000, 0.01).unwrap();
/// assert_eq!((s.m, s.k), (9_585_058, 7));
/// ```
///
/// # Errors
/// Invalid `n` or `p`.
pub fn size_for(n: u64, p: f64) -> Result<Sizing> {
    let m = optimal_bits(n, p)?;
    Ok(Sizing {
        m,
        k: optimal_k(m, n),
    })
}

/// The classic approximation `(1 − e^(−kn/m))^k`, the exponential form of [`fpr_bloom`]
/// popularised by Broder & Mitzenmacher 2004, eq. (1). It assumes independent, uniform hash positions and replaces
/// the fill by its expectation; it is slightly *low* for small m (see [`fpr_exact`]).
///
/// ```
/// let p = bloomlab::theory::fpr_classic(9_585_058, 1_000_000, 7);
/// assert!((p - 0.01).abs() < 0.0005);
/// ```
#[must_use]
// ANCHOR: fpr_classic
pub fn fpr_classic(m: u64, n: u64, k: u32) -> f64 {
    if m == 0 {
        return 1.0;
    }
    let x = -(f64::from(k) * n as f64 / m as f64);
    (-x.exp_m1()).powi(k as i32)
}
// ANCHOR_END: fpr_classic

/// The rate of a partitioned Bloom filter (k slices of `s = ⌊m/k⌋` bits, one position per
/// slice; [`crate::hash::Partitioned`]), exact for independent uniform positions:
/// `(1 − (1 − 1/s)^n)^k` — each slice holds n positions, and the k slices' fills are
/// independent (Kirsch & Mitzenmacher 2008, RSA 33(2), §2; Broder & Mitzenmacher 2004, §2.1,
/// note that it is slightly above the standard layout's rate at the same m and k, since
/// `(1 − 1/s)^n ≤ (1 − 1/m)^(kn)`).
///
/// ```
/// use bloomlab::theory::{fpr_classic, fpr_partitioned};
/// let (m, n, k) = (9_585_059, 1_000_000, 7);
/// // mpmath at 40 digits: 0.010039236958021148527.
/// assert!((fpr_partitioned(m, n, k) / 0.010_039_236_958_021_148_527 - 1.0).abs() < 1e-12);
/// assert!(fpr_partitioned(m, n, k) > fpr_classic(m, n, k));
/// ```
#[must_use]
// ANCHOR: fpr_partitioned
pub fn fpr_partitioned(m: u64, n: u64, k: u32) -> f64 {
    let s = m / u64::from(k.max(1));
    if s == 0 {
        return 1.0;
    }
    let empty = (n as f64 * (-1.0 / s as f64).ln_1p()).exp();
    (1.0 - empty).powi(k as i32)
}
// ANCHOR_END: fpr_partitioned

/// The natural logarithm of [`fpr_classic`], `k·ln(1 − e^(−kn/m))`: the same formula, valid far
/// below f64's range (m = 10¹⁰, n = 5, k = 64 gives about 10^−479.7, where `fpr_classic` is 0).
///
/// ```
/// let ln = bloomlab::theory::fpr_classic_ln(10_000_000_000, 5, 64);
/// assert!((ln / std::f64::consts::LN_10 + 479.67).abs() < 0.01, "{ln}");
/// let (m, n, k) = (9_585_058, 1_000_000, 7);
/// assert!((bloomlab::theory::fpr_classic_ln(m, n, k).exp() / bloomlab::theory::fpr_classic(m, n, k) - 1.0).abs() < 1e-12);
/// ```
#[must_use]
pub fn fpr_classic_ln(m: u64, n: u64, k: u32) -> f64 {
    if m == 0 {
        return 0.0;
    }
    let x = -(f64::from(k) * n as f64 / m as f64);
    f64::from(k) * (-x.exp_m1()).ln()
}

/// The binomial-fill form `(1 − (1 − 1/m)^(kn))^k`: the expected fill of kn independent,
/// uniform probes (each item's k positions may repeat) is exact, but treating the k probes of a
/// query as independent of the fill is not. It is often credited to Bloom (1970), whose own
/// formula assumes k *distinct* addresses per item: that one is [`fpr_bloom_1970`]. This form is
/// the one behind the occupancy analysis of Broder & Mitzenmacher 2004, §2.1, before the
/// exponential approximation; [`blocked`] applies it to one 512-bit block.
#[must_use]
pub fn fpr_bloom(m: u64, n: u64, k: u32) -> f64 {
    if m == 0 {
        return 1.0;
    }
    let kn = f64::from(k) * n as f64;
    let empty = (kn * (-1.0 / m as f64).ln_1p()).exp();
    (1.0 - empty).powi(k as i32)
}

/// Bloom's own formula `(1 − (1 − k/m)^n)^k` (B. H. Bloom, "Space/Time Trade-offs in Hash Coding
/// with Allowable Errors", CACM 13(7), 1970, the analysis of his second method): each item sets
/// k *distinct* bits of the m, so one item leaves a given bit 0 with probability 1 − k/m, and a
/// query is a false positive when its k bits are all set. Distinct addresses fill the array a
/// little faster than k independent probes, so this is slightly *above* [`fpr_bloom`]:
/// 0.943% against 0.891% at m = 256, n = 26, k = 7. Returns 1 when k ≥ m (one item sets every
/// bit).
///
/// ```
/// let p = bloomlab::theory::fpr_bloom_1970(256, 26, 7);
/// assert!((p - 0.009434).abs() < 1e-6, "{p}");
/// ```
#[must_use]
pub fn fpr_bloom_1970(m: u64, n: u64, k: u32) -> f64 {
    if m == 0 || u64::from(k) >= m {
        return 1.0;
    }
    let zero = (n as f64 * (-(f64::from(k)) / m as f64).ln_1p()).exp();
    (1.0 - zero).powi(k as i32)
}

/// Expected fraction of bits set after n inserts: `1 − (1 − 1/m)^(kn)` ≈ `1 − e^(−kn/m)`.
#[must_use]
pub fn expected_fill(m: u64, n: u64, k: u32) -> f64 {
    if m == 0 {
        return 1.0;
    }
    let kn = f64::from(k) * n as f64;
    1.0 - (kn * (-1.0 / m as f64).ln_1p()).exp()
}

/// The information-theoretic minimum bits per item for an approximate-membership structure
/// with false-positive rate ε: `log2(1/ε)` (Carter, Floyd, Gill, Markowsky & Wegman 1978,
/// "Exact and Approximate Membership Testers", STOC). A Bloom filter at its optimum needs
/// `log2(1/ε)/ln 2 ≈ 1.44·log2(1/ε)`: 44% more.
///
/// ```
/// assert_eq!(bloomlab::theory::lower_bound_bits_per_key(1.0 / 1024.0), 10.0);
/// ```
#[must_use]
pub fn lower_bound_bits_per_key(eps: f64) -> f64 {
    -eps.log2()
}

/// Bits per item a Bloom filter at the optimal (real) k needs for rate ε: `−ln ε / (ln 2)²`.
#[must_use]
pub fn bloom_bits_per_key(eps: f64) -> f64 {
    let ln2 = std::f64::consts::LN_2;
    -eps.ln() / (ln2 * ln2)
}

/// The density n/U above which a plain bitmap (one bit per possible key of a universe of U
/// integers, exact) is smaller than a Bloom filter at rate ε for the n keys present: the bitmap
/// takes U bits, the filter n·[`bloom_bits_per_key`]`(ε)`, so the break-even is
/// `1 / bloom_bits_per_key(ε) = (ln 2)² / ln(1/ε)` — 10.4% at ε = 1%, 7.0% at 0.1%.
///
/// ```
/// let d = bloomlab::theory::bitmap_break_even_density(0.01);
/// assert!((d - 0.104_33).abs() < 1e-5, "{d}");
/// assert!((bloomlab::theory::bitmap_break_even_density(0.001) - 0.069_55).abs() < 1e-5);
/// ```
#[must_use]
pub fn bitmap_break_even_density(eps: f64) -> f64 {
    1.0 / bloom_bits_per_key(eps)
}

/// Estimated number of distinct items from the number of set bits `x` (Swamidass & Baldi 2007,
/// "Mathematical correction for fingerprint similarity measures to improve chemical retrieval",
/// J. Chem. Inf. Model. 47(3)): `n* = −(m/k)·ln(1 − x/m)`. Redisson's `count()` uses it.
/// Returns `f64::INFINITY` for a full filter.
#[must_use]
pub fn estimate_count(m: u64, k: u32, ones: u64) -> f64 {
    if ones >= m {
        return f64::INFINITY;
    }
    -(m as f64 / f64::from(k)) * (-(ones as f64) / m as f64).ln_1p()
}

/// Largest n for which m bits and k hashes still give FPR ≤ p under the classic formula.
#[must_use]
pub fn capacity_for(m: u64, k: u32, p: f64) -> u64 {
    // (1 − e^(−kn/m))^k = p  ⇔  n = −(m/k)·ln(1 − p^(1/k))
    let n = -(m as f64 / f64::from(k)) * (-(p.powf(1.0 / f64::from(k)))).ln_1p();
    if n.is_finite() && n > 0.0 {
        n.floor() as u64
    } else {
        0
    }
}

pub mod blocked;
pub mod counting;
pub mod estimate;
mod exact;
pub mod fill;
pub mod multiblock;
pub mod split_block;
pub use exact::{ExactFpr, ExactMethod, fpr_exact, fpr_exact_with_bound};
pub mod binary_fuse;
pub mod cuckoo;
pub mod prefix;
pub mod quotient;
pub mod ribbon;
pub mod rules;
pub mod scalable;
pub mod xor;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn digest_sizing_table() {
        // The articles' table: (n, p) -> (m bits, k).
        let rows = [
            (1_000_000u64, 0.01, 9_585_058u64, 7u32),
            (1_000_000, 0.001, 14_377_587, 10),
            (10_000_000, 0.01, 95_850_583, 7),
            (100_000_000, 0.01, 958_505_837, 7),
            (1_000_000_000, 0.01, 9_585_058_377, 7),
            // The articles say 143,775,874; the formula gives 143,775,875.66, floored to ...875.
            (10_000_000, 0.001, 143_775_875, 10),
        ];
        for (n, p, m, k) in rows {
            let s = size_for(n, p).unwrap();
            assert_eq!((s.m, s.k), (m, k), "n={n} p={p}");
        }
    }

    #[test]
    fn invalid_inputs_are_typed_errors() {
        assert!(matches!(
            size_for(0, 0.01),
            Err(Error::InvalidParameter {
                param: Param::N,
                ..
            })
        ));
        for p in [0.0, 1.0, 1.5, -0.1, f64::NAN] {
            assert!(matches!(
                size_for(10, p),
                Err(Error::InvalidParameter {
                    param: Param::P,
                    ..
                })
            ));
        }
        assert!(check_k(0).is_err() && check_k(1000).is_err() && check_k(7).is_ok());
    }

    #[test]
    fn classic_at_optimum_is_two_to_minus_k() {
        // With k = (m/n) ln 2 exactly, (1 - e^{-k n/m})^k = 2^{-k}.
        let (m, n) = (1_000_000u64, 100_000u64);
        let k = 7u32;
        let n_opt = (m as f64 * std::f64::consts::LN_2 / f64::from(k)) as u64;
        let p = fpr_classic(m, n_opt, k);
        assert!((p / 2f64.powi(-7) - 1.0).abs() < 1e-4, "{p}");
        assert!(fpr_bloom(m, n, k) > 0.0);
    }

    #[test]
    fn bloom_1970_is_the_distinct_address_formula() {
        // Reference from python3: (1 - (1 - 7/256)**26)**7 = 0.009434179729261936, and the
        // binomial-fill form (1 - (1 - 1/256)**(7*26))**7 = 0.008912681181830417.
        let p = fpr_bloom_1970(256, 26, 7);
        assert!((p - 0.009_434_179_729_261_936).abs() < 1e-15, "{p}");
        let q = fpr_bloom(256, 26, 7);
        assert!((q - 0.008_912_681_181_830_417).abs() < 1e-15, "{q}");
        // k = 1: distinct addresses and independent probes are the same thing.
        assert!((fpr_bloom_1970(1000, 50, 1) - fpr_bloom(1000, 50, 1)).abs() < 1e-15);
        assert_eq!(fpr_bloom_1970(4, 1, 4), 1.0);
        assert_eq!(fpr_bloom_1970(0, 1, 1), 1.0);
    }

    #[test]
    fn count_estimate_inverts_expected_fill() {
        let (m, k, n) = (100_000u64, 5u32, 8_000u64);
        let ones = (expected_fill(m, n, k) * m as f64).round() as u64;
        let est = estimate_count(m, k, ones);
        assert!((est - n as f64).abs() < 5.0, "{est}");
    }

    #[test]
    fn capacity_inverts_classic() {
        let n = capacity_for(9_585_058, 7, 0.01);
        assert!((n as i64 - 1_000_000).abs() < 2_000, "{n}");
    }
}
