//! The model of a cuckoo filter.
//!
//! Fan, Andersen, Kaminsky & Mitzenmacher (2014), "Cuckoo Filter: Practically Better Than
//! Bloom", CoNEXT. A table of `m` buckets with `b` slots each stores `f`-bit fingerprints; every
//! item has two candidate buckets (partial-key cuckoo hashing). A query for an absent item
//! compares its fingerprint with the fingerprints in its two buckets: at most `2b` of them.
//!
//! The paper's false-positive analysis (§4, "Asymptotic behavior" and eq. (6) of §5.1): each
//! comparison matches with probability `1/2^f`, so
//!
//! ```text
//! ε ≤ 1 − (1 − 1/2^f)^(2b)  ≈  2b/2^f                    (full table)
//! f ≥ ⌈log2(2b/ε)⌉ = ⌈log2(1/ε) + log2(2b)⌉
//! bits per item  C = f/α  ≈  (log2(1/ε) + log2(2b))/α     (load factor α)
//! ```
//!
//! Here fingerprint 0 marks an empty slot, so a fingerprint is uniform on `1 ..= 2^f − 1` and a
//! comparison matches with probability `q = 1/(2^f − 1)` (6.7% above `2^−f` at f = 4, 0.1% at
//! f = 10). At load α the two buckets hold `2bα` fingerprints on average, which gives the
//! load-adjusted model the filters report: `1 − (1 − q)^(2bα) ≈ 2bα/(2^f − 1)`.
//!
//! **Bucket sizes and loads.** The paper's Table 2 / Figure 3 (§5.1): with two candidate buckets
//! a table fills to about **84%** at b = 2, **95%** at b = 4 and **98%** at b = 8 before an
//! insert fails. b = 4 has the fewest bits per item at the usual rates: b = 8 gains 3% in load
//! but needs one more fingerprint bit (`log2(2b)`), b = 2 saves a bit but loses 11% of load.
//!
//! **Sizing** ([`sizing`]): `f = ⌈log2(2b/p)⌉` (at least 4, at most 32) and
//! `buckets = ⌈n / (b · (α_b − 0.01))⌉`. The margin of one percentage point below the paper's
//! load: those loads are where the *first* insert fails in large tables; near them the kick
//! chains grow steeply (the mean number of kicks per insert explodes in the last percent) and a
//! small table's first-failure load varies by a few tenths of a percent around them (the tests
//! of `tests/family_b.rs` see 95.0–99% at 2^14 buckets). One point keeps a table sized for `n`
//! out of that region at every n from 1 to 10^8 and costs 1.1% of memory. Any bucket count is
//! allowed (no power-of-two rounding; see [`crate::filters::cuckoo`] for the alternate-bucket
//! map that makes this possible), so the table is within one bucket of that size: at p = 1%,
//! b = 4 that is `10/0.94 = 10.64` bits per key (plus 16 bytes of padding per table).

use crate::error::{Error, Param, Result};

/// Slots per bucket by default, b = 4.
pub const BUCKET_SLOTS: u32 = 4;

/// The bucket sizes supported.
pub const BUCKET_SIZES: [u32; 3] = [2, 4, 8];

/// Kicks (relocations) tried before an insert is declared failed (the paper's `MaxNumKicks`,
/// 500 in the reference implementation).
pub const MAX_KICKS: u32 = 500;

/// The load factor the paper reaches with b = 4 (about 95%).
pub const TARGET_LOAD: f64 = 0.95;

/// The margin below the paper's load that [`sizing`] keeps (see the module doc).
pub const LOAD_MARGIN: f64 = 0.01;

/// The narrowest fingerprint.
pub const MIN_FINGERPRINT_BITS: u32 = 4;
/// The widest fingerprint.
pub const MAX_FINGERPRINT_BITS: u32 = 32;

/// The fingerprint widths supported: 4 to 32 bits.
pub const FINGERPRINT_BITS: std::ops::RangeInclusive<u32> =
    MIN_FINGERPRINT_BITS..=MAX_FINGERPRINT_BITS;

/// The widths of the first table layout (format layout 1: b = 4, a power-of-two table).
pub const LEGACY_FINGERPRINT_BITS: [u32; 3] = [8, 12, 16];

/// Padding words after the packed table, so that a bucket read may always load the words just
/// past it (branch-free reads, see [`crate::filters::cuckoo`]).
pub const PAD_WORDS: u64 = 2;

/// Check that `f` is 4 to 32.
///
/// # Errors
/// [`Error::InvalidParameter`] naming `fingerprint-bits` and the valid range.
pub fn check_fingerprint_bits(f: u32) -> Result<u32> {
    if FINGERPRINT_BITS.contains(&f) {
        Ok(f)
    } else {
        Err(Error::invalid(
            Param::FingerprintBits,
            f,
            "an integer from 4 to 32",
        ))
    }
}

/// Check a bucket size: 2, 4 or 8; 0 means the default, 4.
///
/// # Errors
/// [`Error::InvalidParameter`] naming `bucket-size`.
pub fn check_bucket_size(b: u32) -> Result<u32> {
    match b {
        0 => Ok(BUCKET_SLOTS),
        2 | 4 | 8 => Ok(b),
        _ => Err(Error::invalid(
            Param::Other("bucket-size"),
            b,
            "2, 4 or 8 (0: the default, 4)",
        )),
    }
}

/// The load at which the paper's tables of bucket size `b` fill up (§5.1): 84%, 95%, 98%.
#[must_use]
pub fn max_load(b: u32) -> f64 {
    match b {
        2 => 0.84,
        8 => 0.98,
        _ => TARGET_LOAD,
    }
}

/// The load [`sizing`] plans for: [`max_load`] minus [`LOAD_MARGIN`].
#[must_use]
pub fn design_load(b: u32) -> f64 {
    max_load(b) - LOAD_MARGIN
}

/// Probability that one stored fingerprint equals an absent item's: `1/(2^f − 1)`
/// (fingerprints are uniform on `1 ..= 2^f − 1`).
#[must_use]
pub fn match_probability(f: u32) -> f64 {
    1.0 / (2f64.powi(f as i32) - 1.0)
}

/// The paper's bound for a full table, `1 − (1 − q)^(2b)` with `q` = [`match_probability`]
/// (Fan et al. 2014, §5.1).
///
/// ```
/// let e = bloomlab::theory::cuckoo::fpr_upper_bound(12, 4);
/// assert!((e - 0.001_952).abs() < 1e-6, "{e}"); // ≈ 2b/(2^f − 1) = 8/4095
/// ```
#[must_use]
pub fn fpr_upper_bound(f: u32, b: u32) -> f64 {
    fpr_at_load(f, b, 1.0)
}

/// The approximation `2b/2^f` of [`fpr_upper_bound`] (the paper's).
#[must_use]
pub fn fpr_approx(f: u32, b: u32) -> f64 {
    2.0 * f64::from(b) / 2f64.powi(f as i32)
}

/// The load-adjusted rate `1 − (1 − q)^(2bα)`, `q = 1/(2^f − 1)`: an absent item's two
/// buckets hold `2bα` fingerprints on average, each matching with probability `q` (Fan et al.
/// 2014's bound with the occupancy at load α instead of a full table).
///
/// ```
/// let e = bloomlab::theory::cuckoo::fpr_at_load(12, 4, 0.95);
/// assert!((e - 0.001_855).abs() < 1e-6, "{e}");
/// ```
#[must_use]
pub fn fpr_at_load(f: u32, b: u32, alpha: f64) -> f64 {
    rate(match_probability(f), b, alpha)
}

/// [`fpr_at_load`] for a table of the first layout, whose fingerprint 0 was mapped to 1: the
/// match rate is `(2^f + 2)/4^f` there.
#[must_use]
pub fn fpr_at_load_legacy(f: u32, b: u32, alpha: f64) -> f64 {
    let t = 2f64.powi(f as i32);
    rate((t + 2.0) / (t * t), b, alpha)
}

fn rate(q: f64, b: u32, alpha: f64) -> f64 {
    let slots = 2.0 * f64::from(b) * alpha.clamp(0.0, 1.0);
    -(slots * (-q).ln_1p()).exp_m1()
}

/// The real-valued minimum fingerprint width for rate ε: `log2(2b/ε)` (Fan et al. 2014).
#[must_use]
pub fn min_fingerprint_bits(eps: f64, b: u32) -> f64 {
    (2.0 * f64::from(b) / eps).log2()
}

/// The fingerprint width for target rate `p` with b = 4: [`fingerprint_bits_for_bucket`].
///
/// ```
/// use bloomlab::theory::cuckoo::fingerprint_bits_for;
/// assert_eq!(fingerprint_bits_for(0.03).unwrap(), 9); // log2(8/0.03) = 8.06
/// assert_eq!(fingerprint_bits_for(0.01).unwrap(), 10); // 9.64
/// assert_eq!(fingerprint_bits_for(0.001).unwrap(), 13); // 12.97
/// assert_eq!(fingerprint_bits_for(1e-5).unwrap(), 20); // 19.6
/// assert!(fingerprint_bits_for(1e-10).is_err()); // needs 36.2 bits
/// ```
///
/// # Errors
/// As [`fingerprint_bits_for_bucket`].
pub fn fingerprint_bits_for(p: f64) -> Result<u32> {
    fingerprint_bits_for_bucket(p, BUCKET_SLOTS)
}

/// The fingerprint width for target rate `p` at bucket size `b`: `f = ⌈log2(2b/p)⌉` (Fan et al.
/// 2014, §4), at least 4. The full-table rate `1 − (1 − 1/(2^f − 1))^(2b)` is then at most `p`
/// (the `−1` of `2^f − 1` costs less than the second-order term `(2b choose 2)·q²` gains).
///
/// # Errors
/// Invalid `p` or `b`; `p` below `2b/2^32` (32-bit fingerprints cannot reach it).
pub fn fingerprint_bits_for_bucket(p: f64, b: u32) -> Result<u32> {
    super::check_p(p)?;
    let b = check_bucket_size(b)?;
    let need = min_fingerprint_bits(p, b);
    let f = (need - 1e-9).ceil().max(f64::from(MIN_FINGERPRINT_BITS));
    if f > f64::from(MAX_FINGERPRINT_BITS) {
        return Err(Error::invalid(
            Param::P,
            crate::units::format_number(p),
            format!(
                "at least {:.3e} for a cuckoo filter with buckets of {b} (32-bit fingerprints give at best 2b/2^32)",
                fpr_approx(MAX_FINGERPRINT_BITS, b)
            ),
        ));
    }
    Ok(f as u32)
}

/// Bits per item at rate ε and load α: `(log2(1/ε) + log2(2b))/α` (Fan et al. 2014, §5.1,
/// eq. (7)); `(log2(1/ε) + 3)/α` for b = 4.
///
/// ```
/// let c = bloomlab::theory::cuckoo::bits_per_item(0.001_953_125, 4, 0.95);
/// assert!((c - 12.0 / 0.95).abs() < 1e-9); // log2(1/ε) = 9, + 3, / 0.95
/// ```
#[must_use]
pub fn bits_per_item(eps: f64, b: u32, alpha: f64) -> f64 {
    (-(eps.log2()) + f64::from(2 * b).log2()) / alpha
}

/// Buckets for `n` items at b = 4: [`buckets_for_bucket`].
///
/// ```
/// assert_eq!(bloomlab::theory::cuckoo::buckets_for(10_000).unwrap(), 2_660);
/// assert_eq!(bloomlab::theory::cuckoo::buckets_for(1_000_000).unwrap(), 265_958);
/// ```
///
/// # Errors
/// As [`buckets_for_bucket`].
pub fn buckets_for(n: u64) -> Result<u64> {
    buckets_for_bucket(n, BUCKET_SLOTS)
}

/// Buckets for `n` items in buckets of `b`: `⌈n / (b · design_load(b))⌉`, at least 1 (the
/// module doc says why the margin).
///
/// # Errors
/// Invalid `n` or `b`; more than 2^58 buckets.
pub fn buckets_for_bucket(n: u64, b: u32) -> Result<u64> {
    super::check_n(n)?;
    let b = check_bucket_size(b)?;
    let need = (n as f64 / (f64::from(b) * design_load(b))).ceil().max(1.0);
    if need > (1u64 << 58) as f64 {
        return Err(Error::invalid(
            Param::N,
            n,
            "at most about 2^60 items for a cuckoo filter",
        ));
    }
    Ok(need as u64)
}

/// A table sized for `n` items at rate `p` ([`sizing`]).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Sizing {
    /// Slots per bucket.
    pub bucket_size: u32,
    /// Fingerprint bits.
    pub fingerprint_bits: u32,
    /// Buckets.
    pub buckets: u64,
}

impl Sizing {
    /// Load at `n` items.
    #[must_use]
    pub fn load(&self, n: u64) -> f64 {
        n as f64 / (self.buckets as f64 * f64::from(self.bucket_size))
    }
    /// The model rate with `n` items stored ([`fpr_at_load`]).
    #[must_use]
    pub fn fpr_at(&self, n: u64) -> f64 {
        fpr_at_load(self.fingerprint_bits, self.bucket_size, self.load(n))
    }
    /// Table bits per item at `n` items, `buckets·b·f/n` (without the padding words).
    #[must_use]
    pub fn bits_per_key(&self, n: u64) -> f64 {
        self.buckets as f64 * f64::from(self.bucket_size) * f64::from(self.fingerprint_bits)
            / n as f64
    }
}

/// The smallest table that meets `p` at `n` with buckets of `b` (0 = 4):
/// `f = ⌈log2(2b/p)⌉` ([`fingerprint_bits_for_bucket`]), or `f_override` when nonzero (4 to
/// 32), and `buckets = ⌈n / (b·(α_b − 0.01))⌉` ([`buckets_for_bucket`]).
///
/// ```
/// let s = bloomlab::theory::cuckoo::sizing(1_000_000, 0.01, 4, 0).unwrap();
/// assert_eq!((s.fingerprint_bits, s.buckets), (10, 265_958));
/// assert!((s.bits_per_key(1_000_000) - 10.64).abs() < 0.01);
/// assert!(s.fpr_at(1_000_000) < 0.01);
/// ```
///
/// # Errors
/// Invalid `n`, `p`, `b` or `f_override`; a table over 2^64 bits.
pub fn sizing(n: u64, p: f64, b: u32, f_override: u32) -> Result<Sizing> {
    let b = check_bucket_size(b)?;
    let f = if f_override == 0 {
        fingerprint_bits_for_bucket(p, b)?
    } else {
        check_fingerprint_bits(f_override)?
    };
    let buckets = buckets_for_bucket(n, b)?;
    if buckets > max_buckets(f, b) {
        return Err(Error::invalid(
            Param::N,
            n,
            format!(
                "at most about {:.2e} items for a cuckoo filter with {f}-bit fingerprints in buckets of {b} (its table must stay under 2^64 bits)",
                max_buckets(f, b) as f64 * f64::from(b) * design_load(b),
            ),
        ));
    }
    Ok(Sizing {
        bucket_size: b,
        fingerprint_bits: f,
        buckets,
    })
}

/// The most buckets a table of `f`-bit fingerprints in buckets of `b` may have: at most 2^58,
/// and few enough that `buckets·b·f` plus the padding stays below 2^64 bits (bit offsets fit a
/// `u64`).
///
/// ```
/// use bloomlab::theory::cuckoo::max_buckets;
/// assert_eq!(max_buckets(8, 4), 1 << 58);
/// assert_eq!(max_buckets(32, 4), (u64::MAX - 128) / 128);
/// ```
#[must_use]
pub fn max_buckets(f: u32, b: u32) -> u64 {
    let fit = (u64::MAX - 64 * PAD_WORDS) / (u64::from(b.max(1)) * u64::from(f.max(1)));
    fit.min(1 << 58)
}

/// Bits of the packed table, `buckets·b·f`.
///
/// # Errors
/// [`Error::Allocation`] when that (with the padding) is 2^64 bits or more.
pub fn table_bits(buckets: u64, f: u32, b: u32) -> Result<u64> {
    let w = u64::from(b) * u64::from(f);
    buckets
        .checked_mul(w)
        .filter(|&t| t.checked_add(64 * PAD_WORDS).is_some())
        .ok_or(Error::Allocation {
            bytes: u128::from(buckets) * u128::from(w) / 8,
        })
}

/// 64-bit words of the packed table as saved, `⌈buckets·b·f/64⌉` (without the padding).
///
/// # Errors
/// As [`table_bits`].
pub fn table_words(buckets: u64, f: u32, b: u32) -> Result<u64> {
    Ok(table_bits(buckets, f, b)?.div_ceil(64))
}

/// Bytes of the filter's table in memory: [`table_words`] plus [`PAD_WORDS`], 8 bytes each.
///
/// # Errors
/// As [`table_bits`].
pub fn table_bytes(buckets: u64, f: u32, b: u32) -> Result<u64> {
    Ok((table_words(buckets, f, b)? + PAD_WORDS) * 8)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bounds_match_the_paper() {
        // ≈ 2b/2^f; the exact form is within 2% of the approximation (above it by the
        // 1/(2^f − 1) only where f is small).
        for f in [8, 10, 12, 16, 20, 32] {
            let (e, a) = (fpr_upper_bound(f, 4), fpr_approx(f, 4));
            assert!((e / a - 1.0).abs() < 0.02, "f={f} {e} {a}");
        }
        assert!((fpr_approx(12, 4) - 0.001_953_125).abs() < 1e-12);
        assert!(fpr_at_load(12, 4, 0.5) < fpr_at_load(12, 4, 0.95));
        assert_eq!(fpr_at_load(12, 4, 0.0), 0.0);
        assert!((match_probability(4) - 1.0 / 15.0).abs() < 1e-15);
    }

    #[test]
    fn fingerprint_choice() {
        // Boundary: 2b/2^8 = 0.03125 is exactly reachable with 8 bits.
        assert_eq!(fingerprint_bits_for(0.031_25).unwrap(), 8);
        assert_eq!(fingerprint_bits_for(0.031).unwrap(), 9);
        assert_eq!(fingerprint_bits_for(0.000_122_070_312_5).unwrap(), 16);
        assert_eq!(fingerprint_bits_for(0.5).unwrap(), 4);
        assert_eq!(fingerprint_bits_for_bucket(0.01, 2).unwrap(), 9);
        assert_eq!(fingerprint_bits_for_bucket(0.01, 8).unwrap(), 11);
        assert_eq!(fingerprint_bits_for(8.0 / 2f64.powi(32)).unwrap(), 32);
        // Whatever f is chosen, the model meets p at a full table.
        for p in [0.3, 0.1, 0.03, 0.01, 1e-3, 1e-4, 1e-6, 1e-8] {
            for b in BUCKET_SIZES {
                let f = fingerprint_bits_for_bucket(p, b).unwrap();
                assert!(fpr_upper_bound(f, b) <= p, "p={p} b={b} f={f}");
                assert!(f == 4 || fpr_upper_bound(f - 1, b) > p, "p={p} b={b} f={f}");
            }
        }
        assert!(matches!(
            fingerprint_bits_for(1e-10),
            Err(Error::InvalidParameter {
                param: Param::P,
                ..
            })
        ));
        for f in [0, 3, 33, 64] {
            let msg = check_fingerprint_bits(f).unwrap_err().to_string();
            assert!(
                msg.contains("fingerprint-bits") && msg.contains("4 to 32"),
                "{msg}"
            );
        }
        for f in FINGERPRINT_BITS {
            assert_eq!(check_fingerprint_bits(f).unwrap(), f);
        }
        for b in [1, 3, 5, 16] {
            let msg = check_bucket_size(b).unwrap_err().to_string();
            assert!(msg.contains("bucket-size"), "{msg}");
        }
        assert_eq!(check_bucket_size(0).unwrap(), 4);
    }

    #[test]
    fn buckets_meet_the_design_load_with_one_bucket_to_spare_at_most() {
        for b in BUCKET_SIZES {
            let a = design_load(b);
            for n in [1u64, 3, 4, 100, 1_000, 65_536, 1_000_000, 123_456_789] {
                let m = buckets_for_bucket(n, b).unwrap();
                assert!(
                    n as f64 / (f64::from(b) * m as f64) <= a + 1e-12,
                    "n={n} m={m}"
                );
                assert!(
                    m == 1 || n as f64 / (f64::from(b) * (m - 1) as f64) > a,
                    "n={n} m={m}"
                );
            }
        }
        assert!(buckets_for(0).is_err());
        assert!(buckets_for(u64::MAX).is_err());
        assert!(buckets_for_bucket(10, 3).is_err());
        assert_eq!(table_bytes(4_096, 12, 4).unwrap(), 24_576 + 16);
    }

    #[test]
    fn bits_per_key_at_one_percent_is_under_eleven() {
        for n in [1_000u64, 10_000, 100_000, 1_000_000, 100_000_000] {
            let s = sizing(n, 0.01, 4, 0).unwrap();
            assert_eq!(s.fingerprint_bits, 10);
            let bpk = s.bits_per_key(n);
            assert!(bpk < 10.0 / 0.94 + 0.05, "n={n} {bpk}");
            assert!(s.fpr_at(n) <= 0.01);
        }
    }

    #[test]
    fn table_size_is_checked_against_64_bits() {
        assert!(table_bits(1 << 58, 64, 4).is_err());
        assert_eq!(table_bits(1 << 57, 16, 4).unwrap(), 1 << 63);
        assert!(table_bytes(u64::MAX, 8, 4).is_err());
        for f in [4, 8, 16, 32] {
            for b in BUCKET_SIZES {
                let max = max_buckets(f, b);
                assert!(max <= 1 << 58);
                assert!(table_bits(max, f, b).is_ok(), "f={f}");
                assert!(
                    max == 1 << 58 || table_bits(max + 1, f, b).is_err(),
                    "f={f} b={b}"
                );
            }
        }
        assert!(sizing(1 << 62, 0.01, 4, 0).is_err());
    }
}
