//! The model of a quotient filter.
//!
//! Bender, Farach-Colton, Johnson, Kraner, Kuszmaul, Medjedovic, Montes, Shetty, Spillane & Zadok
//! (2012), "Don't Thrash: How to Cache Your Hash on Flash", PVLDB 5(11), the quotient-filter
//! analysis; Pandey, Bender, Johnson & Patro (2017), "A General-Purpose Counting Filter: Making
//! Every Bit Count", SIGMOD, §2 (the same structure with rank-select metadata).
//!
//! Each item gets a `p = q + r`-bit fingerprint; its top `q` bits (the *quotient*) name one of
//! `2^q` slots, the low `r` bits (the *remainder*) are stored. A query for an absent item is
//! positive exactly when some stored item has the same full fingerprint. With `n = α·2^q`
//! stored fingerprints, each equal to the query's with probability `2^−(q+r)`:
//!
//! ```text
//! ε = 1 − (1 − 2^−(q+r))^n  ≈  1 − e^(−α/2^r)  ≤  α·2^−r  ≤  2^−r
//! bits per item  = (r + 2.125)/α    (rank-select metadata: 136 bits per 64 slots)
//! lower bound    = log2(1/ε)         (any filter with rate ε; Carter et al. 1978)
//! ```
//!
//! Sizing from `(n, p)`: `q = ⌈log2(n/α_max)⌉` (so `n` items stay under the load limit
//! `α_max`, 95% by default), then at the design load `α = n/2^q`, the smallest
//! `r = ⌈log2(α/p)⌉` with `α·2^−r ≤ p`.
//!
//! Doubling (`q + 1`, `r − 1`) keeps every fingerprint, so the *same* `n` items have the same
//! rate afterwards (`α` halves, `2^−r` doubles); filled again to the same load the rate is
//! twice what it was: every resize costs one remainder bit.

use crate::error::{Error, Param, Result};

/// Metadata bits per slot in the classic layout (is_occupied, is_continuation, is_shifted;
/// Bender et al. 2012), which files of layout version 1 hold.
pub const CLASSIC_METADATA_BITS: u32 = 3;

/// Metadata bits per block of 64 slots in the rank-select layout (Pandey et al. 2017, §3): an
/// occupieds word, a runends word and an 8-bit offset, 2.125 bits a slot.
pub const METADATA_BITS_PER_BLOCK: u64 = 136;

/// Blocks of 64 slots for `2^q` slots (one, partly used, under 64 slots).
#[must_use]
pub fn blocks(q: u32) -> u64 {
    ((1u64 << q) / 64).max(1)
}

/// Bits of a rank-select table of `2^q` slots with `r`-bit remainders: per block of 64 slots,
/// 64 remainders and [`METADATA_BITS_PER_BLOCK`]. At `q ≥ 6` that is `(r + 2.125)·2^q`.
///
/// ```
/// use bloomlab::theory::quotient::table_bits;
/// assert_eq!(table_bits(20, 8), (1 << 20) * 81 / 8); // (8 + 2.125) bits a slot
/// ```
#[must_use]
pub fn table_bits(q: u32, r: u32) -> u64 {
    blocks(q) * (64 * u64::from(r) + METADATA_BITS_PER_BLOCK)
}

/// Bytes the table allocates: per block `2 + r` words and an offset byte, plus one zero word
/// after the last block (a remainder is always read from two words).
#[must_use]
pub fn table_bytes(q: u32, r: u32) -> u64 {
    blocks(q) * (8 * (2 + u64::from(r)) + 1) + 8
}

/// The load past which inserts are refused, unless the filter is given another.
pub const DEFAULT_MAX_LOAD: f64 = 0.95;

/// The narrowest remainder.
pub const MIN_REMAINDER_BITS: u32 = 1;

/// The widest remainder (a remainder never spans more than two 64-bit words).
pub const MAX_REMAINDER_BITS: u32 = 32;

/// The largest quotient: 2^48 slots are far beyond any memory, so this only bounds the
/// arithmetic (`q + r ≤ 64` holds at every allowed pair but q = 48 with r > 16).
pub const MAX_QUOTIENT_BITS: u32 = 48;

/// Check a remainder width.
///
/// # Errors
/// [`Error::InvalidParameter`] on `fingerprint-bits` (the remainder is what a quotient filter
/// takes as its fingerprint width) when `r` is outside 1 to 32.
pub fn check_remainder_bits(r: u32) -> Result<u32> {
    if (MIN_REMAINDER_BITS..=MAX_REMAINDER_BITS).contains(&r) {
        Ok(r)
    } else {
        Err(Error::invalid(
            Param::FingerprintBits,
            r,
            "1 to 32 remainder bits for a quotient filter",
        ))
    }
}

/// Check a quotient width together with its remainder.
///
/// # Errors
/// [`Error::InvalidParameter`] on `q` outside 1 to 48 or `q + r > 64` (the fingerprint is cut
/// from one 64-bit hash).
pub fn check_quotient_bits(q: u32, r: u32) -> Result<u32> {
    if !(1..=MAX_QUOTIENT_BITS).contains(&q) {
        return Err(Error::invalid(
            Param::Other("q"),
            q,
            "1 to 48 quotient bits (2 to 2^48 slots)",
        ));
    }
    if q + r > 64 {
        return Err(Error::invalid(
            Param::Other("q"),
            q,
            format!("q + r at most 64 (one 64-bit hash); r = {r}"),
        ));
    }
    Ok(q)
}

/// Check a load limit: strictly between 0 and 1 (one slot must stay empty).
///
/// # Errors
/// [`Error::InvalidParameter`] on `max-load`.
pub fn check_max_load(a: f64) -> Result<f64> {
    if a.is_finite() && a > 0.0 && a < 1.0 {
        Ok(a)
    } else {
        Err(Error::invalid(
            Param::Other("max-load"),
            a,
            "a load strictly between 0 and 1",
        ))
    }
}

/// The rate at load α with `r`-bit remainders, `1 − e^(−α/2^r)` (Bender et al. 2012).
///
/// ```
/// use bloomlab::theory::quotient::fpr_at_load;
/// let e = fpr_at_load(8, 0.95);
/// assert!((e - 0.003_704).abs() < 1e-6, "{e}"); // ≈ α·2^−r = 0.95/256
/// ```
#[must_use]
pub fn fpr_at_load(r: u32, alpha: f64) -> f64 {
    -(-alpha.max(0.0) * 2f64.powi(-(r as i32))).exp_m1()
}

/// The exact rate with `n` stored fingerprints of `q + r` bits: `1 − (1 − 2^−(q+r))^n`.
#[must_use]
pub fn fpr_exact(q: u32, r: u32, n: u64) -> f64 {
    let per = 2f64.powi(-((q + r) as i32));
    -(n as f64 * (-per).ln_1p()).exp_m1()
}

/// Bits per stored item at load α in a table of 64 slots or more: `(r + 2.125)/α`.
#[must_use]
pub fn bits_per_key(r: u32, alpha: f64) -> f64 {
    (f64::from(r) + METADATA_BITS_PER_BLOCK as f64 / 64.0) / alpha
}

/// Bytes of a counting quotient filter (Pandey et al. 2017, §3–4) with `2^q` nominal slots and
/// r-bit remainders, as its reference code allocates them (`splatlab/cqf` and FastFilter's copy,
/// `FastFilter/fastfilter_cpp` `src/gqf.c` `qf_init` and `src/gqf_int.h` at commit
/// `1ab293dc673f9d3086b24ba69a8819e27e1940da`): `2^q + 10·√(2^q)` slots rounded up to blocks of
/// 64, each block an 8-bit offset, 64 occupieds bits, 64 runends bits and 64 remainders. That is
/// `2.125 + r` bits per slot, as this crate's table ([`table_bits`]) but for the extra slots.
///
/// ```
/// use bloomlab::theory::quotient::cqf_bytes;
/// // FastFilter's CQF row: 2^24 slots, r = 8: 262,784 blocks of 81 bytes = 17.03 bits per item
/// // at n = 10^7.
/// assert_eq!(cqf_bytes(24, 8), 21_285_504);
/// assert!((cqf_bytes(24, 8) as f64 * 8.0 / 1e7 - 17.03).abs() < 0.005);
/// ```
#[must_use]
pub fn cqf_bytes(q: u32, r: u32) -> u64 {
    let nslots = 1u64 << q.min(MAX_QUOTIENT_BITS);
    let xnslots = nslots + (10.0 * (nslots as f64).sqrt()) as u64;
    let blocks = xnslots.div_ceil(64);
    blocks * (1 + 8 + 8 + 8 * u64::from(r))
}

/// The information-theoretic lower bound, `log2(1/ε)` bits per item.
#[must_use]
pub fn lower_bound_bits(eps: f64) -> f64 {
    -eps.log2()
}

/// `q = ⌈log2(n/α_max)⌉`, at least 1: the fewest slots that keep `n` items under `α_max`.
///
/// ```
/// use bloomlab::theory::quotient::quotient_bits_for;
/// assert_eq!(quotient_bits_for(1_000_000, 0.95).unwrap(), 21); // 10^6/0.95 ≤ 2^21
/// assert_eq!(quotient_bits_for(996_147, 0.95).unwrap(), 20);   // = 0.95·2^20
/// ```
///
/// # Errors
/// Invalid `n` or `α_max`; more than 2^48 slots needed.
pub fn quotient_bits_for(n: u64, max_load: f64) -> Result<u32> {
    super::check_n(n)?;
    check_max_load(max_load)?;
    let mut q = 1u32;
    while q <= MAX_QUOTIENT_BITS && (max_load * 2f64.powi(q as i32)).floor() < n as f64 {
        q += 1;
    }
    if q > MAX_QUOTIENT_BITS {
        return Err(Error::invalid(
            Param::N,
            n,
            "at most 0.95·2^48 items for a quotient filter",
        ));
    }
    Ok(q)
}

/// `r = ⌈log2(α/p)⌉` (at least 1): the narrowest remainder with `α·2^−r ≤ p` at load α.
///
/// ```
/// use bloomlab::theory::quotient::remainder_bits_for;
/// assert_eq!(remainder_bits_for(0.01, 0.95).unwrap(), 7);  // log2(95) = 6.57
/// assert_eq!(remainder_bits_for(0.01, 0.477).unwrap(), 6); // log2(47.7) = 5.58
/// assert!(remainder_bits_for(1e-12, 0.95).is_err());       // needs 40 bits
/// ```
///
/// # Errors
/// Invalid `p`; more than 32 bits needed.
pub fn remainder_bits_for(p: f64, alpha: f64) -> Result<u32> {
    super::check_p(p)?;
    let need = (alpha / p).log2().ceil().max(1.0);
    if need > f64::from(MAX_REMAINDER_BITS) {
        return Err(Error::invalid(
            Param::P,
            crate::units::format_number(p),
            format!(
                "at least {:.3e} for a quotient filter (32-bit remainders at load {alpha:.3})",
                alpha * 2f64.powi(-32)
            ),
        ));
    }
    Ok(need as u32)
}

/// `(q, r)` for `n` items at rate `p` (or with `r` given, when not 0), load limit `α_max`.
///
/// # Errors
/// As [`quotient_bits_for`], [`remainder_bits_for`], [`check_remainder_bits`],
/// [`check_quotient_bits`].
pub fn sizing(n: u64, p: Option<f64>, r: u32, max_load: f64) -> Result<(u32, u32)> {
    let q = quotient_bits_for(n, max_load)?;
    let alpha = n as f64 / 2f64.powi(q as i32);
    let r = match (r, p) {
        (0, Some(p)) => remainder_bits_for(p, alpha)?,
        (0, None) => {
            return Err(Error::invalid(
                Param::P,
                "none",
                "give p or fingerprint-bits (quotient: remainder bits, 1 to 32)",
            ));
        }
        (r, _) => check_remainder_bits(r)?,
    };
    check_quotient_bits(q, r)?;
    Ok((q, r))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sizing_meets_the_target_at_the_design_load() {
        for n in [1u64, 10, 1000, 123_457, 1_000_000] {
            for p in [0.5, 0.1, 0.01, 1e-4, 1e-7] {
                let (q, r) = sizing(n, Some(p), 0, DEFAULT_MAX_LOAD).unwrap();
                let slots = 2f64.powi(q as i32);
                assert!(n as f64 <= (0.95 * slots).floor(), "{n} {q}");
                assert!(q == 1 || n as f64 > (0.95 * slots / 2.0).floor(), "{n} {q}");
                let alpha = n as f64 / slots;
                assert!(fpr_exact(q, r, n) <= p * (1.0 + 1e-12), "{n} {p} {q} {r}");
                // One bit fewer would miss the target (unless r is already 1).
                assert!(r == 1 || alpha * 2f64.powi(1 - r as i32) > p, "{n} {p} {r}");
            }
        }
    }

    #[test]
    fn parameters_out_of_range_are_typed_errors() {
        assert!(check_remainder_bits(0).is_err());
        assert!(check_remainder_bits(33).is_err());
        assert!(check_quotient_bits(0, 8).is_err());
        assert!(check_quotient_bits(49, 8).is_err());
        assert!(check_quotient_bits(40, 25).is_err());
        assert!(check_max_load(1.0).is_err());
        assert!(check_max_load(0.0).is_err());
        assert!(check_max_load(f64::NAN).is_err());
        assert!(sizing(1000, None, 0, 0.95).is_err());
        assert_eq!(sizing(1000, None, 12, 0.95).unwrap(), (11, 12));
        assert!((bits_per_key(8, 0.5) - 20.25).abs() < 1e-12); // (8 + 2.125)/0.5
        assert!((lower_bound_bits(0.01) - 6.643_856).abs() < 1e-6);
    }
}
