//! The model of an xor filter.
//!
//! Graf & Lemire (2020), "Xor Filters: Faster and Smaller Than Bloom and Cuckoo Filters",
//! ACM Journal of Experimental Algorithmics 25. A table of `c` slots of `f`-bit fingerprints,
//! cut into three segments of `c/3` slots; every key has one slot in each segment, and the
//! table is filled so that the XOR of a key's three slots is the key's fingerprint. The table
//! is built from the whole key set at once by *peeling* the 3-hypergraph of keys over slots
//! (which succeeds with high probability when `c ≥ 1.23·n + 32`, the paper's sizing).
//!
//! A query for an absent key XORs three slots that were set for other keys: the result is a
//! uniformly random `f`-bit value, so it equals the key's fingerprint with probability
//!
//! ```text
//! ε = 2^−f                         (the paper, §3)
//! bits per key = f · c/n ≈ 1.23·f   (c = 1.23·n + 32)
//! ```
//!
//! The information-theoretic lower bound for any structure answering membership with rate ε
//! is `log2(1/ε)` bits per key (Carter, Floyd, Gill, Markowsky & Wegman 1978, "Exact and
//! Approximate Membership Testers", STOC; [`crate::theory::lower_bound_bits_per_key`]): at
//! `ε = 2^−f` that is `f` bits, so an xor filter spends 23% over the bound, against the 44% of
//! a Bloom filter.

use crate::error::{Error, Param, Result};

/// The fingerprint widths supported (bits).
pub const FINGERPRINT_BITS: [u32; 2] = [8, 16];

/// The paper's space factor: `c = ⌈1.23·n⌉ + 32` slots.
pub const SPACE_FACTOR: f64 = 1.23;

/// The paper's additive slack in slots.
pub const SLACK_SLOTS: u64 = 32;

/// Hashes (slots) per key.
pub const ARITY: u32 = 3;

/// The largest key set, 2^31 distinct keys: slots are numbered with 32 bits (an xor table of
/// 2^31 keys has `1.23·2^31 + 33 < 2^32` slots, a binary fuse table fewer).
pub const MAX_KEYS: u64 = 1 << 31;

/// The model FPR of `f`-bit fingerprints: `2^−f` (Graf & Lemire 2020).
///
/// ```
/// assert_eq!(bloomlab::theory::xor::fpr(8), 1.0 / 256.0);
/// ```
#[must_use]
pub fn fpr(f: u32) -> f64 {
    2f64.powi(-(f as i32))
}

/// Check that `f` is 8 or 16.
///
/// # Errors
/// [`Error::InvalidParameter`] naming `fingerprint-bits`.
pub fn check_fingerprint_bits(f: u32) -> Result<u32> {
    if FINGERPRINT_BITS.contains(&f) {
        Ok(f)
    } else {
        Err(Error::invalid(
            Param::FingerprintBits,
            f,
            "8 or 16 (xor and binary fuse filters)",
        ))
    }
}

/// The fingerprint width for target rate `p`: the smallest `f` of 8 and 16 with `2^−f ≤ p`
/// (8 for `p ≥ 2^−8 ≈ 0.0039`, 16 for `p ≥ 2^−16 ≈ 1.53·10⁻⁵`).
///
/// ```
/// use bloomlab::theory::xor::fingerprint_bits_for;
/// assert_eq!(fingerprint_bits_for(0.004).unwrap(), 8);
/// assert_eq!(fingerprint_bits_for(0.001).unwrap(), 16);
/// assert!(fingerprint_bits_for(1e-6).is_err());
/// ```
///
/// # Errors
/// [`Error::InvalidParameter`] naming `p` when it is not a probability or below `2^−16`.
pub fn fingerprint_bits_for(p: f64) -> Result<u32> {
    crate::theory::check_p(p)?;
    FINGERPRINT_BITS
        .iter()
        .copied()
        .find(|&f| fpr(f) <= p)
        .ok_or_else(|| {
            Error::invalid(
                Param::P,
                crate::units::format_number(p),
                format!(
                    "p >= 2^-16 = {:.3e}: 16-bit fingerprints are the widest (rate 2^-f)",
                    fpr(16)
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
            format!("at most {MAX_KEYS} distinct keys for an xor or binary fuse filter"),
        ));
    }
    Ok(n)
}

/// Slots per segment for `n` keys: `⌈(⌈1.23·n⌉ + 32)/3⌉` (the paper's capacity, rounded up
/// to three equal segments).
#[must_use]
pub fn segment_length(n: u64) -> u64 {
    let c = (SPACE_FACTOR * n as f64).ceil() as u64 + SLACK_SLOTS;
    c.div_ceil(u64::from(ARITY))
}

/// Table slots for `n` keys: `3 ·` [`segment_length`].
///
/// ```
/// assert_eq!(bloomlab::theory::xor::slots(100_000), 123_033);
/// ```
#[must_use]
pub fn slots(n: u64) -> u64 {
    u64::from(ARITY) * segment_length(n)
}

/// Bits per key of an xor filter of `n` keys with `f`-bit fingerprints: `f·c/n`, which tends
/// to `1.23·f`.
///
/// ```
/// let b = bloomlab::theory::xor::bits_per_key(100_000, 8);
/// assert!((b - 1.23 * 8.0).abs() / (1.23 * 8.0) < 0.02, "{b}");
/// ```
#[must_use]
pub fn bits_per_key(n: u64, f: u32) -> f64 {
    if n == 0 {
        return f64::INFINITY;
    }
    (slots(n) * u64::from(f)) as f64 / n as f64
}

/// The space over the lower bound `log2(1/ε)` at `ε = 2^−f`: `bits_per_key / f`, → 1.23.
#[must_use]
pub fn overhead_over_lower_bound(n: u64, f: u32) -> f64 {
    bits_per_key(n, f) / crate::theory::lower_bound_bits_per_key(fpr(f))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sizing_and_rules() {
        assert_eq!(slots(0), 33);
        assert_eq!(segment_length(1_000_000), 410_011);
        assert!((overhead_over_lower_bound(10_000_000, 16) - 1.23).abs() < 1e-3);
        assert_eq!(fingerprint_bits_for(fpr(8)).unwrap(), 8);
        assert_eq!(fingerprint_bits_for(fpr(8) * 0.999).unwrap(), 16);
        let e = fingerprint_bits_for(fpr(16) * 0.5).unwrap_err();
        assert!(
            matches!(
                e,
                Error::InvalidParameter {
                    param: Param::P,
                    ..
                }
            ),
            "{e}"
        );
        assert!(check_fingerprint_bits(12).is_err());
        assert!(check_keys(MAX_KEYS + 1).is_err());
    }
}
