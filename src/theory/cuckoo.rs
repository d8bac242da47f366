//! The model of a cuckoo filter.
//!
//! Fan, Andersen, Kaminsky & Mitzenmacher (2014), "Cuckoo Filter: Practically Better Than
//! Bloom", CoNEXT. A table of buckets with `b` slots each stores `f`-bit fingerprints; every
//! item has two candidate buckets (partial-key cuckoo hashing). A query for an absent item
//! compares its fingerprint with the fingerprints in its two buckets: at most `2b` of them.
//!
//! The paper's false-positive analysis: each comparison matches with probability `1/2^f`, so
//!
//! ```text
//! ε ≤ 1 − (1 − 1/2^f)^(2b)  ≈  2b/2^f                    (full table)
//! f ≥ ⌈log2(2b/ε)⌉ = ⌈log2(1/ε) + log2(2b)⌉
//! bits per item  C = f/α  ≈  (log2(1/ε) + log2(2b))/α     (load factor α)
//! ```
//!
//! At load α the two buckets hold `2b·α` fingerprints on average, which gives the load-adjusted
//! rate `1 − (1 − 1/2^f)^(2bα) ≈ 2bα/2^f` the filters use as their model.
//!
//! With b = 4 (the paper's choice: the bucket size that reaches about 95% load with the
//! fewest bits per item at the usual rates) the
//! bound is `8/2^f`: 3.1% at f = 8, 0.195% at f = 12, 0.0122% at f = 16.

use crate::error::{Error, Param, Result};

/// Slots per bucket, b.
pub const BUCKET_SLOTS: u32 = 4;

/// Kicks (relocations) tried before an insert is declared failed (the paper's `MaxNumKicks`,
/// 500 in the reference implementation).
pub const MAX_KICKS: u32 = 500;

/// The load factor a table of b = 4 buckets is sized for (the paper reaches about 95%).
pub const TARGET_LOAD: f64 = 0.95;

/// The fingerprint widths supported.
pub const FINGERPRINT_BITS: [u32; 3] = [8, 12, 16];

/// Check that `f` is 8, 12 or 16.
///
/// # Errors
/// [`Error::InvalidParameter`] naming `fingerprint-bits` and the valid set.
pub fn check_fingerprint_bits(f: u32) -> Result<u32> {
    if FINGERPRINT_BITS.contains(&f) {
        Ok(f)
    } else {
        Err(Error::invalid(Param::FingerprintBits, f, "8, 12 or 16"))
    }
}

/// The paper's bound for a full table, `1 − (1 − 1/2^f)^(2b)` (Fan et al. 2014).
///
/// ```
/// let e = bloomlab::theory::cuckoo::fpr_upper_bound(12, 4);
/// assert!((e - 0.001_951).abs() < 1e-6, "{e}"); // ≈ 2b/2^f = 8/4096
/// ```
#[must_use]
pub fn fpr_upper_bound(f: u32, b: u32) -> f64 {
    fpr_at_load(f, b, 1.0)
}

/// The approximation `2b/2^f` of [`fpr_upper_bound`].
#[must_use]
pub fn fpr_approx(f: u32, b: u32) -> f64 {
    2.0 * f64::from(b) / 2f64.powi(f as i32)
}

/// The load-adjusted rate `1 − (1 − 1/2^f)^(2bα)`: an absent item's two buckets hold `2bα`
/// fingerprints on average, each matching with probability `1/2^f` (Fan et al. 2014's bound with
/// the occupancy at load α instead of a full table).
///
/// ```
/// let e = bloomlab::theory::cuckoo::fpr_at_load(12, 4, 0.95);
/// assert!((e - 0.001_854).abs() < 1e-6, "{e}");
/// ```
#[must_use]
pub fn fpr_at_load(f: u32, b: u32, alpha: f64) -> f64 {
    let q = 2f64.powi(-(f as i32));
    let slots = 2.0 * f64::from(b) * alpha.clamp(0.0, 1.0);
    -(slots * (-q).ln_1p()).exp_m1()
}

/// The real-valued minimum fingerprint width for rate ε: `log2(2b/ε)` (Fan et al. 2014).
#[must_use]
pub fn min_fingerprint_bits(eps: f64, b: u32) -> f64 {
    (2.0 * f64::from(b) / eps).log2()
}

/// The supported fingerprint width (8, 12 or 16) for target rate `p` with b = 4: the smallest
/// one with `f ≥ log2(2b/p)`.
///
/// ```
/// use bloomlab::theory::cuckoo::fingerprint_bits_for;
/// assert_eq!(fingerprint_bits_for(0.03).unwrap(), 12); // log2(8/0.03) = 8.06
/// assert_eq!(fingerprint_bits_for(0.01).unwrap(), 12); // 9.64
/// assert_eq!(fingerprint_bits_for(0.001).unwrap(), 16); // 12.97
/// assert!(fingerprint_bits_for(1e-5).is_err()); // needs 19.6 bits
/// ```
///
/// # Errors
/// Invalid `p`; `p` below `8/2^16 ≈ 1.22·10⁻⁴` (16-bit fingerprints cannot reach it).
pub fn fingerprint_bits_for(p: f64) -> Result<u32> {
    super::check_p(p)?;
    let need = min_fingerprint_bits(p, BUCKET_SLOTS);
    FINGERPRINT_BITS
        .iter()
        .copied()
        .find(|&f| f64::from(f) >= need - 1e-9)
        .ok_or_else(|| {
            Error::invalid(
                Param::P,
                p,
                format!(
                    "at least {:.3e} for a cuckoo filter (16-bit fingerprints give at best 2b/2^16)",
                    fpr_approx(16, BUCKET_SLOTS)
                ),
            )
        })
}

/// Bits per item at rate ε and load α: `(log2(1/ε) + log2(2b))/α` (Fan et al. 2014); `(log2(1/ε) + 3)/α`
/// for b = 4.
///
/// ```
/// let c = bloomlab::theory::cuckoo::bits_per_item(0.001_953_125, 4, 0.95);
/// assert!((c - 12.0 / 0.95).abs() < 1e-9); // log2(1/ε) = 9, + 3, / 0.95
/// ```
#[must_use]
pub fn bits_per_item(eps: f64, b: u32, alpha: f64) -> f64 {
    (-(eps.log2()) + f64::from(2 * b).log2()) / alpha
}

/// Buckets for `n` items: the next power of two ≥ `n/(b·0.95)` (at least 1). A power of two
/// lets the alternate bucket `i ⊕ hash(fp)` stay inside the table (Fan et al. 2014).
///
/// ```
/// assert_eq!(bloomlab::theory::cuckoo::buckets_for(10_000).unwrap(), 4_096);
/// assert_eq!(bloomlab::theory::cuckoo::buckets_for(1_000_000).unwrap(), 524_288);
/// ```
///
/// # Errors
/// Invalid `n`; a table too large for 64-bit indexes.
pub fn buckets_for(n: u64) -> Result<u64> {
    super::check_n(n)?;
    let need = (n as f64 / (f64::from(BUCKET_SLOTS) * TARGET_LOAD)).ceil() as u64;
    need.max(1)
        .checked_next_power_of_two()
        .filter(|&b| b <= 1 << 58)
        .ok_or_else(|| Error::invalid(Param::N, n, "at most 2^60 items for a cuckoo filter"))
}

/// The most buckets a table of `f`-bit fingerprints may have: the largest power of two, at most
/// 2^58 (the cap of [`buckets_for`]), whose table of `buckets·b·f` bits stays below 2^64 bits, so
/// that bit offsets into it fit in a `u64`: 2^58 for f = 8 and 12, 2^57 for f = 16.
///
/// ```
/// use bloomlab::theory::cuckoo::max_buckets;
/// assert_eq!((max_buckets(8), max_buckets(12), max_buckets(16)), (1 << 58, 1 << 58, 1 << 57));
/// ```
#[must_use]
pub fn max_buckets(f: u32) -> u64 {
    let fit = u64::MAX / (u64::from(BUCKET_SLOTS) * u64::from(f.max(1)));
    1 << fit.ilog2().min(58)
}

/// Bits of the packed table, `buckets·b·f`.
///
/// # Errors
/// [`Error::Allocation`] when that is 2^64 bits or more.
pub fn table_bits(buckets: u64, f: u32) -> Result<u64> {
    buckets
        .checked_mul(u64::from(BUCKET_SLOTS) * u64::from(f))
        .ok_or(Error::Allocation {
            bytes: u128::from(buckets) * u128::from(BUCKET_SLOTS) * u128::from(f) / 8,
        })
}

/// Bytes of the packed table: `buckets·b·f/8`, rounded up to whole 64-bit words.
///
/// # Errors
/// [`Error::Allocation`] when the table has 2^64 bits or more ([`table_bits`]).
pub fn table_bytes(buckets: u64, f: u32) -> Result<u64> {
    Ok(table_bits(buckets, f)?.div_ceil(64) * 8)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bounds_match_the_paper() {
        // ≈ 2b/2^f, and the exact form is a little below the approximation.
        for f in FINGERPRINT_BITS {
            let (e, a) = (fpr_upper_bound(f, 4), fpr_approx(f, 4));
            assert!(e < a && e > a * 0.98, "f={f} {e} {a}");
        }
        assert!((fpr_approx(12, 4) - 0.001_953_125).abs() < 1e-12);
        assert!(fpr_at_load(12, 4, 0.5) < fpr_at_load(12, 4, 0.95));
        assert_eq!(fpr_at_load(12, 4, 0.0), 0.0);
    }

    #[test]
    fn fingerprint_choice() {
        // Boundary: 2b/2^8 = 0.03125 is exactly reachable with 8 bits.
        assert_eq!(fingerprint_bits_for(0.031_25).unwrap(), 8);
        assert_eq!(fingerprint_bits_for(0.031).unwrap(), 12);
        assert_eq!(fingerprint_bits_for(0.000_122_070_312_5).unwrap(), 16);
        assert!(matches!(
            fingerprint_bits_for(1e-6),
            Err(Error::InvalidParameter {
                param: Param::P,
                ..
            })
        ));
        for f in [0, 4, 7, 9, 13, 32] {
            let e = check_fingerprint_bits(f).unwrap_err();
            let msg = e.to_string();
            assert!(
                msg.contains("fingerprint-bits") && msg.contains("8, 12 or 16"),
                "{msg}"
            );
        }
    }

    #[test]
    fn buckets_are_powers_of_two_at_most_95_percent_loaded() {
        for n in [1u64, 3, 4, 100, 1_000, 65_536, 1_000_000, 123_456_789] {
            let b = buckets_for(n).unwrap();
            assert!(b.is_power_of_two());
            assert!(n as f64 / (4.0 * b as f64) <= 0.95, "n={n} b={b}");
            assert!(
                b == 1 || n as f64 / (4.0 * (b / 2) as f64) > 0.95,
                "n={n} b={b}"
            );
        }
        assert!(buckets_for(0).is_err());
        assert!(buckets_for(u64::MAX).is_err());
        assert_eq!(table_bytes(4_096, 12).unwrap(), 24_576);
    }

    #[test]
    fn table_size_is_checked_against_64_bits() {
        // 2^58 buckets · 4 slots · 16 bits = 2^64 bits: one past the largest u64.
        assert_eq!(
            table_bits(1 << 58, 16),
            Err(Error::Allocation { bytes: 1 << 61 })
        );
        assert_eq!(table_bits(1 << 57, 16).unwrap(), 1 << 63);
        assert_eq!(table_bits(1 << 58, 12).unwrap(), 3 << 62);
        assert!(table_bytes(u64::MAX, 8).is_err());
        for f in FINGERPRINT_BITS {
            let max = max_buckets(f);
            assert!(max.is_power_of_two() && max <= 1 << 58);
            assert!(table_bits(max, f).is_ok(), "f={f}");
            assert!(max == 1 << 58 || table_bits(2 * max, f).is_err(), "f={f}");
        }
    }
}
