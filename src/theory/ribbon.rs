//! The model of a standard ribbon filter.
//!
//! Dillinger & Walzer (2021), "Ribbon filter: practically smaller than Bloom and Xor",
//! arXiv:2103.02515. A ribbon filter stores a solution `Z` (`m` rows of `r` bits) of a linear
//! system over GF(2): every key `x` contributes one equation `⟨c(x), Z[s(x) .. s(x)+w]⟩ = f(x)`,
//! where `s(x)` is a start row in `0..=m−w`, `c(x)` a random `w`-bit coefficient row (its first
//! bit set) and `f(x)` the key's `r`-bit fingerprint. The rows of the system form a *band* of width
//! `w` (the "ribbon"), which is what lets Gaussian elimination run in `O(n·w)` word operations
//! on the fly (the paper's "Rapid Incremental Boolean Banding ON the fly").
//!
//! A query for an absent key computes the same inner product over a solution that was fixed by
//! other keys; its fingerprint is independent of the window, so it matches with probability
//!
//! ```text
//! FPR = 2^−r                           (a retrieval structure of r-bit values)
//! bits per key = r·m/n = (1 + ε)·r     (m = (1 + ε)·n rows)
//! lower bound  = log2(1/FPR) = r       (Carter et al. 1978), so the overhead is ε
//! ```
//!
//! **How much ε.** The system is solvable with high probability when `m = (1 + ε)·n` and the
//! width `w` grows like `log(n)/ε` (Dietzfelbinger & Walzer 2019, "Efficient Gauss elimination
//! for near-quadratic matrices with one short random block per row", ESA; the ribbon paper's
//! analysis of standard Ribbon): at a fixed width the overhead needed grows with
//! `log n`. The constants here are the measured ones Dillinger published with RocksDB's
//! implementation of this paper (`util/ribbon_config.cc`, data from `FindOccupancy`, standard
//! Ribbon, 64-bit coefficients, no "smash", construction failure 1 in 20 per seed): at
//! `2^17` rows 119,813 keys fit (`ε = 9.4%`), and every doubling of the rows adds `0.0083` to
//! `m/n`. From 2^11 rows down the table is flat near `ε ≈ 5%`. This module uses
//!
//! ```text
//! ε(n) = max(0.05, 0.094 + 0.0083·log2(n / 2^17))      (w = 64)
//! m    = max(128, 64·⌈(1 + ε(n))·n / 64⌉)              (whole 64-row blocks, at least two)
//! ```
//!
//! which is `ε ≈ 11.8%` at `n = 10⁶` and `ε ≈ 5%` at `n = 10⁴`: against the 23% of an xor
//! filter and the 12.5% of a 3-wise binary fuse filter. A seed fails with probability about
//! [`FAILURE_PER_ATTEMPT`] (measured: `experiments/programs/ribbon_space.rs`); construction
//! tries [`crate::filters::static_set::MAX_ATTEMPTS`] seeds, so it fails for random hashes
//! with probability about `0.05^32`.

use crate::error::{Error, Param, Result};

/// The ribbon width `w`: the bits of a coefficient row, and the rows a key's window covers.
pub const WIDTH: u32 = 64;

/// The result (fingerprint) widths supported: 1 to 32 bits.
pub const RESULT_BITS: std::ops::RangeInclusive<u32> = 1..=32;

/// The largest key set, 2^31 distinct keys (as for the xor-type filters).
pub const MAX_KEYS: u64 = 1 << 31;

/// The failure probability of one construction attempt the sizing aims at: 1 in 20 (the
/// `kOneIn20` data of RocksDB's `ribbon_config.cc`, Dillinger 2021).
pub const FAILURE_PER_ATTEMPT: f64 = 0.05;

/// The fewest rows: two 64-row blocks.
pub const MIN_SLOTS: u64 = 2 * WIDTH as u64;

/// The model FPR of `r`-bit results: `2^−r`.
///
/// ```
/// assert_eq!(bloomlab::theory::ribbon::fpr(7), 1.0 / 128.0);
/// ```
#[must_use]
pub fn fpr(r: u32) -> f64 {
    2f64.powi(-(r as i32))
}

/// The space overhead `ε(n)` for `n` keys at width 64 (see the module docs).
///
/// ```
/// let e = bloomlab::theory::ribbon::overhead(1_000_000);
/// assert!((e - 0.1182).abs() < 1e-3, "{e}");
/// ```
#[must_use]
pub fn overhead(n: u64) -> f64 {
    if n == 0 {
        return 0.05;
    }
    (0.094 + 0.0083 * (n as f64 / 131_072.0).log2()).max(0.05)
}

/// Rows (slots) of a ribbon filter of `n` keys: `(1 + ε(n))·n` rounded up to whole 64-row
/// blocks, at least [`MIN_SLOTS`].
///
/// ```
/// assert_eq!(bloomlab::theory::ribbon::slots(0), 128);
/// assert_eq!(bloomlab::theory::ribbon::slots(1_000_000) % 64, 0);
/// ```
#[must_use]
pub fn slots(n: u64) -> u64 {
    let want = ((1.0 + overhead(n)) * n as f64).ceil() as u64;
    want.div_ceil(u64::from(WIDTH))
        .saturating_mul(u64::from(WIDTH))
        .max(MIN_SLOTS)
}

/// Bits per key of a ribbon filter of `n` keys with `r`-bit results: `r·m/n`, about
/// `(1 + ε)·r`.
#[must_use]
pub fn bits_per_key(n: u64, r: u32) -> f64 {
    if n == 0 {
        return f64::INFINITY;
    }
    (slots(n) * u64::from(r)) as f64 / n as f64
}

/// The space over the lower bound `log2(1/FPR) = r`: `bits_per_key / r` (→ `1 + ε`).
#[must_use]
pub fn overhead_over_lower_bound(n: u64, r: u32) -> f64 {
    bits_per_key(n, r) / crate::theory::lower_bound_bits_per_key(fpr(r))
}

/// The probability that all `attempts` seeds fail, at [`FAILURE_PER_ATTEMPT`] each
/// (independent seeds).
#[must_use]
pub fn failure_probability(attempts: u32) -> f64 {
    FAILURE_PER_ATTEMPT.powi(attempts as i32)
}

/// Check that `r` is 1 to 32.
///
/// # Errors
/// [`Error::InvalidParameter`] naming `fingerprint-bits`.
pub fn check_result_bits(r: u32) -> Result<u32> {
    if RESULT_BITS.contains(&r) {
        Ok(r)
    } else {
        Err(Error::invalid(
            Param::FingerprintBits,
            r,
            "1 to 32 (ribbon filter result bits)",
        ))
    }
}

/// The result width for target rate `p`: the smallest `r` with `2^−r ≤ p`, that is
/// `⌈log2(1/p)⌉`, at least 1.
///
/// ```
/// use bloomlab::theory::ribbon::result_bits_for;
/// assert_eq!(result_bits_for(0.01).unwrap(), 7);
/// assert_eq!(result_bits_for(1.0 / 1024.0).unwrap(), 10);
/// assert_eq!(result_bits_for(0.9).unwrap(), 1);
/// assert!(result_bits_for(1e-10).is_err());
/// ```
///
/// # Errors
/// [`Error::InvalidParameter`] naming `p` when it is not a probability or below `2^−32` (the
/// widest result; a narrower one would miss the target).
pub fn result_bits_for(p: f64) -> Result<u32> {
    crate::theory::check_p(p)?;
    RESULT_BITS.clone().find(|&r| fpr(r) <= p).ok_or_else(|| {
        Error::invalid(
            Param::P,
            crate::units::format_number(p),
            format!(
                "p >= 2^-32 = {:.3e}: 32-bit results are the widest (rate 2^-r)",
                fpr(32)
            ),
        )
    })
}

/// Check the number of distinct keys against [`MAX_KEYS`].
///
/// # Errors
/// [`Error::InvalidParameter`] naming `n`.
pub fn check_keys(n: u64) -> Result<u64> {
    if n > MAX_KEYS {
        return Err(Error::invalid(
            Param::N,
            n,
            format!("at most {MAX_KEYS} distinct keys for a ribbon filter"),
        ));
    }
    Ok(n)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sizing_and_rules() {
        // The RocksDB data point the formula is anchored at: 2^17 rows for 119,813 keys.
        assert!((overhead(119_813) - 0.0929).abs() < 1e-3);
        assert_eq!(overhead(1000), 0.05);
        for n in [0u64, 1, 63, 1000, 123_457, 10_000_000] {
            let m = slots(n);
            assert!(m.is_multiple_of(64) && m >= MIN_SLOTS && m as f64 >= 1.05 * n as f64);
        }
        let o = overhead_over_lower_bound(1_000_000, 7);
        assert!((o - 1.118).abs() < 0.002, "{o}");
        assert_eq!(result_bits_for(fpr(7)).unwrap(), 7);
        assert_eq!(result_bits_for(fpr(7) * 0.999).unwrap(), 8);
        assert_eq!(result_bits_for(fpr(32)).unwrap(), 32);
        assert!(matches!(
            result_bits_for(fpr(32) * 0.5),
            Err(Error::InvalidParameter {
                param: Param::P,
                ..
            })
        ));
        assert!(check_result_bits(0).is_err() && check_result_bits(33).is_err());
        assert_eq!(check_result_bits(13).unwrap(), 13);
        assert!(check_keys(MAX_KEYS + 1).is_err());
        assert!(failure_probability(32) < 1e-40);
    }
}
