//! Apache Parquet's split block Bloom filter (SBBF): its false-positive rate, the sizing rule of
//! the Parquet specification, and how far that rule misses its own target.
//!
//! The filter (parquet-format `BloomFilter.md`) combines the blocked filter of Putze, Sanders &
//! Singler (2007, "Cache-, Hash- and Space-Efficient Bloom Filters") with the "split" filter of
//! Broder & Mitzenmacher (2004, "Network Applications of Bloom Filters: A Survey", §2.1): blocks
//! of B = 256 bits, each cut into eight 32-bit words, every item setting exactly one bit in each
//! word of its block. A block holding i items has each word's bit set with probability
//! `1 − (1 − 1/32)^i`, so a query of a non-member in that block succeeds with probability
//! `(1 − (1 − 1/32)^i)^8`, and with Poisson(λ = 256·n/m) items per block (Putze et al.'s mixture)
//!
//! ```text
//! FPR_sbbf(m, n) = Σ_i Poisson(i; 256·n/m) · (1 − (31/32)^i)^8
//! ```
//!
//! This is the model Impala and Kudu (where the design comes from) use to size their filters.
//! The Parquet specification instead sizes with the *standard* filter's formula at k = 8,
//! `m = −8·n / ln(1 − p^(1/8))`, which ignores both the block-load variance and the split into
//! words; before the power-of-two rounding the rule applies, that undershoots: see
//! [`parquet_undershoot`].

use super::blocked::poisson_mixture;
use crate::error::{Error, Param, Result};

/// Bits per block.
pub const BLOCK_BITS: u64 = 256;
/// Words per block (= bits set per item, k).
pub const WORDS: u32 = 8;
/// Bits per word.
pub const WORD_BITS: u32 = 32;
/// Smallest bitset the Parquet writers produce (one block), in bytes.
pub const PARQUET_MIN_BYTES: u64 = 32;
/// Largest bitset the Parquet writers produce (128 MiB), in bytes.
pub const PARQUET_MAX_BYTES: u64 = 128 * 1024 * 1024;

/// FPR of one block holding `i` items: `(1 − (1 − 1/32)^i)^8`.
#[must_use]
pub fn fpr_inner(i: u64) -> f64 {
    let empty = (i as f64 * (-1.0 / f64::from(WORD_BITS)).ln_1p()).exp();
    (1.0 - empty).powi(WORDS as i32)
}

/// Expected fraction of the m bits (a multiple of 256) set after n items. An item picks one of
/// the m/256 blocks and one of the 32 bits of each of its eight words, so a given bit is set by
/// an item with probability 8/m and stays 0 after n items with `(1 − 8/m)^n`:
/// `fill = 1 − (1 − 8/m)^n` (the module's model, without the Poisson approximation).
///
/// ```
/// let f = bloomlab::theory::split_block::expected_fill(256_000, 100);
/// assert!((f - (1.0 - (1.0 - 8.0 / 256_000.0f64).powi(100))).abs() < 1e-12, "{f}");
/// // Each item sets 8 of the m bits, so the first items fill about n·8/m.
/// assert!((f - 100.0 * 8.0 / 256_000.0).abs() < 1e-5, "{f}");
/// ```
#[must_use]
pub fn expected_fill(m: u64, n: u64) -> f64 {
    if m < u64::from(WORDS) {
        return 1.0;
    }
    -(n as f64 * (-f64::from(WORDS) / m as f64).ln_1p()).exp_m1()
}

/// The split-block FPR for m bits (a multiple of 256) and n items (see the module docs).
///
/// At 10 bits per key it is 1.26%, against the standard filter's 0.82%:
/// ```
/// let p = bloomlab::theory::split_block::fpr_split_block(10_000_000, 1_000_000);
/// assert!((p - 0.0126).abs() < 1e-4, "{p}");
/// ```
#[must_use]
pub fn fpr_split_block(m: u64, n: u64) -> f64 {
    if m == 0 {
        return 1.0;
    }
    let lambda = n as f64 * BLOCK_BITS as f64 / m as f64;
    // Beyond a million items per 256-bit block every word is full to f64 precision
    // ((31/32)^1e6 underflows); summing the mixture there would take ~λ terms (a fuzzed file
    // declaring ~10^16 items made it hang).
    if lambda > 1e6 {
        return 1.0;
    }
    poisson_mixture(lambda, fpr_inner)
}

#[cfg(test)]
mod huge_fill_tests {
    #[test]
    fn a_hugely_overfilled_filter_is_answered_at_once() {
        assert_eq!(super::fpr_split_block(256, 11_000_000_000_000_000), 1.0);
        assert_eq!(super::fpr_split_block(256 * 10, u64::MAX), 1.0);
    }
}

/// Largest number of blocks: the block index `((h >> 32)·blocks) >> 32` reaches at most 2³².
pub const MAX_BLOCKS: u64 = 1 << 32;

/// The smallest number of 256-bit blocks whose model FPR ([`fpr_split_block`]) is at most `p`.
///
/// ```
/// let b = bloomlab::theory::split_block::blocks_for(1_000_000, 0.01).unwrap();
/// assert_eq!(b, 41_130); // 10.53 bits per key
/// ```
///
/// # Errors
/// Invalid `n` or `p`; [`Error::InvalidParameter`] naming `p` when more than 2³² blocks are needed.
pub fn blocks_for(n: u64, p: f64) -> Result<u64> {
    super::check_n(n)?;
    super::check_p(p)?;
    let start = spec_bits_per_key(p) * n as f64 / BLOCK_BITS as f64;
    super::multiblock::fewest_blocks(start, MAX_BLOCKS, |b| {
        fpr_split_block(b * BLOCK_BITS, n) <= p
    })
    .ok_or_else(|| {
        Error::invalid(
            Param::P,
            crate::units::format_number(p),
            format!("a rate a split-block filter for {n} items reaches with at most 2^32 blocks"),
        )
    })
}

/// Bits per distinct value by the Parquet specification's rule, `c = −8 / ln(1 − p^(1/8))`
/// (parquet-format `BloomFilter.md`, "Build a Bloom filter"): the standard filter's formula
/// solved for m at k = 8.
///
/// The spec says 8 bits per lookup are "most space efficient" at "about 0.5%", "about 11.54 bits
/// for every distinct value". 11.54 is 8/ln 2, where k = 8 is the standard optimum, and there the
/// formula's rate is 2⁻⁸ = 0.39%; at 0.5% the formula gives 11.03 bits:
/// ```
/// use bloomlab::theory::split_block::{spec_bits_per_key, fpr_split_block};
/// assert!((spec_bits_per_key(2f64.powi(-8)) - 8.0 / std::f64::consts::LN_2).abs() < 1e-9);
/// assert!((spec_bits_per_key(0.005) - 11.03).abs() < 0.01);
/// // Under the split-block model 11.54 bits per key give 0.65%, not 0.39%.
/// let p = fpr_split_block(11_541_560, 1_000_000);
/// assert!((p - 0.00652).abs() < 1e-5, "{p}");
/// ```
#[must_use]
pub fn spec_bits_per_key(p: f64) -> f64 {
    -8.0 / (-(p.powf(1.0 / 8.0))).ln_1p()
}

/// The bitset size in bytes the Parquet writers choose for n distinct values at rate p, as
/// arrow-rs (`parquet/src/bloom_filter/mod.rs`: `num_of_bits_from_ndv_fpp`, then
/// `optimal_num_of_bytes`) computes it: `bits = ⌊−8n/ln(1 − p^(1/8))⌋`, `bytes = bits/8`
/// (integer division), clamped to [32 B, 128 MiB], then rounded up to a power of two.
/// (parquet-java's `optimalNumOfBits` also rounds bits to whole blocks first, with a mask
/// `~BITS_PER_BLOCK` that clears only bit 8; after the power-of-two rounding the result is the
/// same for all but a handful of sizes.)
///
/// ```
/// use bloomlab::theory::split_block::parquet_bytes;
/// // arrow-rs's own vectors: 9,681,526 bits for (10⁶, 1%) → 1,210,190 bytes → 2 MiB.
/// assert_eq!(parquet_bytes(1_000_000, 0.01).unwrap(), 2 * 1024 * 1024);
/// ```
///
/// # Errors
/// Invalid `n` or `p`.
pub fn parquet_bytes(n: u64, p: f64) -> Result<u64> {
    Ok(parquet_raw_bytes(n, p)?
        .clamp(PARQUET_MIN_BYTES, PARQUET_MAX_BYTES)
        .next_power_of_two())
}

/// The Parquet rule before clamping and power-of-two rounding: `⌊⌊−8n/ln(1 − p^(1/8))⌋ / 8⌋`.
///
/// # Errors
/// Invalid `n` or `p`.
pub fn parquet_raw_bytes(n: u64, p: f64) -> Result<u64> {
    super::check_n(n)?;
    super::check_p(p)?;
    let bits = spec_bits_per_key(p) * n as f64;
    if !bits.is_finite() || bits >= u64::MAX as f64 {
        return Err(Error::invalid(
            Param::N,
            n,
            "small enough that m fits in 64 bits",
        ));
    }
    Ok(bits as u64 / 8)
}

/// How the Parquet sizing rule fares under the split-block model.
#[derive(Debug, Clone, Copy, PartialEq, serde::Serialize)]
pub struct Undershoot {
    /// Target rate.
    pub target: f64,
    /// Bits per key the rule asks for (before rounding).
    pub spec_bits_per_key: f64,
    /// Model FPR at exactly that many bits per key: what the rule delivers whenever its raw size
    /// is already a power of two, and in the limit for any size without rounding.
    pub fpr_at_spec_size: f64,
    /// `fpr_at_spec_size / target`.
    pub ratio: f64,
    /// Bits per key the model needs for the target (n → ∞, no rounding).
    pub needed_bits_per_key: f64,
    /// Bytes the Parquet writers would allocate for this n (power of two).
    pub parquet_bytes: u64,
    /// Model FPR at those bytes for this n.
    pub fpr_at_parquet_bytes: f64,
}

/// Evaluate the Parquet sizing rule for (n, p) under the split-block model: the FPR the rule's
/// own bits-per-key gives (always above `p` — the rule undershoots), and what the power-of-two
/// rounding of the writers turns it into for this particular n (anything from that value, when
/// the raw size happens to be a power of two, down to far below `p`).
///
/// ```
/// let u = bloomlab::theory::split_block::parquet_undershoot(1_000_000, 0.01).unwrap();
/// assert!((u.spec_bits_per_key - 9.68).abs() < 0.01);
/// assert!((u.fpr_at_spec_size - 0.01463).abs() < 1e-5, "{u:?}"); // 1.46% for a 1% target
/// assert!((u.needed_bits_per_key - 10.53).abs() < 0.01);          // not 9.68
/// assert_eq!(u.parquet_bytes, 2 << 20);                           // but 2 MiB (16.8 bits/key)
/// assert!(u.fpr_at_parquet_bytes < 0.0011);                       // rescues this n
/// ```
///
/// # Errors
/// Invalid `n` or `p`.
pub fn parquet_undershoot(n: u64, p: f64) -> Result<Undershoot> {
    let c = spec_bits_per_key(p);
    let bytes = parquet_bytes(n, p)?;
    // Per-key quantities at n → ∞: λ = 256/c items per block.
    let big_n = 1u64 << 40;
    let m_at = |bpk: f64| (bpk * big_n as f64) as u64;
    let fpr_at_spec_size = fpr_split_block(m_at(c), big_n);
    // Bits per key the model needs: bisect on c (FPR decreases in c).
    let (mut lo, mut hi) = (c, c * 4.0);
    for _ in 0..100 {
        let mid = 0.5 * (lo + hi);
        if fpr_split_block(m_at(mid), big_n) <= p {
            hi = mid;
        } else {
            lo = mid;
        }
    }
    Ok(Undershoot {
        target: p,
        spec_bits_per_key: c,
        fpr_at_spec_size,
        ratio: fpr_at_spec_size / p,
        needed_bits_per_key: hi,
        parquet_bytes: bytes,
        fpr_at_parquet_bytes: fpr_split_block(bytes * 8, n),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::theory::fpr_classic;

    #[test]
    fn arrow_rs_bits_vectors() {
        // arrow-rs parquet/src/bloom_filter/mod.rs, test_num_of_bits_from_ndv_fpp.
        for (p, n, bits) in [
            (0.1, 10u64, 57u64),
            (0.01, 10, 96),
            (0.001, 10, 146),
            (0.01, 1000, 9681),
            (0.001, 100_000, 1_460_769),
            (0.1, 1_000_000, 5_772_541),
            (0.01, 1_000_000, 9_681_526),
            (0.001, 1_000_000, 14_607_697),
        ] {
            assert_eq!((spec_bits_per_key(p) * n as f64) as u64, bits, "{p} {n}");
        }
        // ... and its optimal_num_of_bytes vectors (via raw byte counts that produce them).
        assert_eq!(parquet_bytes(1, 0.5).unwrap(), 32);
        assert_eq!(parquet_bytes(10, 0.01).unwrap(), 32); // 96 bits = 12 bytes -> 32
        assert_eq!(parquet_bytes(1_000, 0.01).unwrap(), 2048); // 1210 bytes -> 2048
    }

    #[test]
    fn spec_rule_is_the_standard_formula_at_k8() {
        // At the rule's size the *standard* k = 8 formula gives exactly p ...
        for p in [0.1, 0.01, 0.005, 0.001] {
            let c = spec_bits_per_key(p);
            let n = 1_000_000u64;
            let m = (c * n as f64) as u64;
            assert!((fpr_classic(m, n, 8) / p - 1.0).abs() < 1e-4, "{p}");
        }
    }

    #[test]
    fn spec_rule_undershoots_under_the_split_block_model() {
        // ... but the split-block model gives more, for every target.
        for p in [0.1, 0.05, 0.01, 0.005, 0.001, 1e-4] {
            let u = parquet_undershoot(1_000_000, p).unwrap();
            assert!(u.fpr_at_spec_size > p * 1.05, "{u:?}");
            assert!(u.needed_bits_per_key > u.spec_bits_per_key, "{u:?}");
        }
        // The undershoot grows as the target shrinks (more items per bit set, more variance).
        let a = parquet_undershoot(1_000_000, 0.01).unwrap().ratio;
        let b = parquet_undershoot(1_000_000, 0.0001).unwrap().ratio;
        assert!(b > a, "{a} {b}");
    }

    #[test]
    fn undershoot_realised_when_raw_size_is_a_power_of_two() {
        // Pick n so the rule's raw byte count is exactly 2^16: no rounding rescues it.
        let p = 0.01;
        let c = spec_bits_per_key(p);
        let n = ((65_536.0 * 8.0 + 7.0) / c).floor() as u64;
        assert_eq!(parquet_raw_bytes(n, p).unwrap(), 65_536);
        let u = parquet_undershoot(n, p).unwrap();
        assert_eq!(u.parquet_bytes, 65_536);
        assert!(u.fpr_at_parquet_bytes > 0.0130, "{u:?}");
    }

    #[test]
    fn inner_by_hand() {
        assert_eq!(fpr_inner(0), 0.0);
        assert!((fpr_inner(1) - (1.0f64 / 32.0).powi(8)).abs() < 1e-25);
        let q = 1.0 - (31.0f64 / 32.0).powi(10);
        assert!((fpr_inner(10) - q.powi(8)).abs() < 1e-15);
    }

    #[test]
    fn sizing_is_minimal() {
        for (n, p) in [
            (1u64, 0.5),
            (1_000, 0.01),
            (1_000_000, 0.01),
            (50_000, 1e-6),
        ] {
            let b = blocks_for(n, p).unwrap();
            assert!(fpr_split_block(b * 256, n) <= p);
            if b > 1 {
                assert!(fpr_split_block((b - 1) * 256, n) > p);
            }
        }
        assert!(blocks_for(0, 0.01).is_err());
    }
}
