//! The model of a binary fuse filter.
//!
//! Graf & Lemire (2022), "Binary Fuse Filters: Fast and Smaller Than Xor Filters", ACM Journal
//! of Experimental Algorithmics 27. Like an xor filter ([`crate::theory::xor`]), a table of
//! `f`-bit fingerprints where the XOR of a key's slots is its fingerprint, built by peeling.
//! The table is cut into many short segments whose length is a power of two; a key picks a
//! window of `a` (arity: 3 or 4) consecutive segments at random and one slot in each. Such
//! *spatially coupled* hypergraphs peel at a much lower space factor than the xor filter's
//! 1.23, and the window keeps a key's slots close together in memory.
//!
//! The paper's sizing (§4; the constants of the authors' reference implementation), for `n`
//! keys:
//!
//! ```text
//! segment length L = 2^⌊ln n / ln 3.33 + 2.25⌋   (3-wise), 2^⌊ln n / ln 2.91 − 0.5⌋ (4-wise), at most 2^18
//! size factor    s = max(1.125, 0.875 + 0.25·ln 10⁶ / ln n)      (3-wise)
//!                s = max(1.075, 0.77 + 0.305·ln 600000 / ln n)    (4-wise)
//! segments         = max(⌈round(s·n)/L⌉ − (a − 1), 1);   slots = (segments + a − 1)·L
//! ε = 2^−f;        bits per key ≈ s·f → 1.125·f (3-wise), 1.075·f (4-wise)
//! ```
//!
//! The rate is the xor filter's: an absent key XORs `a` slots set for other keys, a uniform
//! `f`-bit value, which matches its fingerprint with probability `2^−f`. Against the lower
//! bound `log2(1/ε) = f` bits per key (Carter et al. 1978) a 3-wise filter spends 12.5%, a
//! 4-wise one 7.5% (the paper's §4, Table 3: 4-wise filters are smaller, and slower by one
//! memory access per query and a slower construction).
//!
//! A 4-wise key's slots: the window start `h0 = ⌊h·S·L/2^64⌋` and one slot in each of the
//! next three segments, `(h0 + j·L) ⊕ (field_j(h) mod L)` for three 18-bit fields of `h`.

use crate::error::{Error, Param, Result};

/// The arities built: 3 (the default) and 4.
pub const ARITIES: [u32; 2] = [3, 4];

/// Check an arity: 3 or 4.
///
/// # Errors
/// [`Error::InvalidParameter`] naming `arity`.
pub fn check_arity(arity: u32) -> Result<u32> {
    if ARITIES.contains(&arity) {
        Ok(arity)
    } else {
        Err(Error::invalid(
            Param::Other("arity"),
            arity,
            "a binary fuse filter is 3-wise or 4-wise (arity 3 or 4)",
        ))
    }
}

/// The largest segment length (the reference implementation's cap, 2^18).
pub const MAX_SEGMENT_LENGTH: u64 = 1 << 18;

/// The model FPR of `f`-bit fingerprints: `2^−f`, as for xor filters.
#[must_use]
pub fn fpr(f: u32) -> f64 {
    crate::theory::xor::fpr(f)
}

/// The segment length for `n` keys at arity 3 or 4 (a power of two, from 4 up to
/// [`MAX_SEGMENT_LENGTH`]; 4 for `n ≤ 1`).
#[must_use]
pub fn segment_length(arity: u32, n: u64) -> u64 {
    if n <= 1 {
        return 4;
    }
    let ln = (n as f64).ln();
    let e = if arity == 4 {
        ln / 2.91f64.ln() - 0.5
    } else {
        ln / 3.33f64.ln() + 2.25
    };
    let e = e.floor().clamp(2.0, 18.0) as u32;
    1u64 << e
}

/// The size factor `s` (slots per key before rounding to whole segments) for `n` keys.
#[must_use]
pub fn size_factor(arity: u32, n: u64) -> f64 {
    if n <= 1 {
        return 0.0;
    }
    let ln = (n as f64).ln();
    if arity == 4 {
        (0.77 + 0.305 * 600_000f64.ln() / ln).max(1.075)
    } else {
        (0.875 + 0.25 * 1e6f64.ln() / ln).max(1.125)
    }
}

/// `(segment length, segment count, slots)` for `n` keys at arity 3 or 4: a key's window
/// starts in one of the `segment count` first segments and spans `arity` of them.
///
/// ```
/// let (l, segs, slots) = bloomlab::theory::binary_fuse::layout(3, 1_000_000);
/// assert_eq!((l, segs, slots), (1 << 13, 136, 1_130_496));
/// ```
#[must_use]
pub fn layout(arity: u32, n: u64) -> (u64, u64, u64) {
    let l = segment_length(arity, n);
    let capacity = (n as f64 * size_factor(arity, n)).round() as u64;
    let segments = capacity
        .div_ceil(l)
        .saturating_sub(u64::from(arity) - 1)
        .max(1);
    (l, segments, (segments + u64::from(arity) - 1) * l)
}

/// The layout construction attempt `attempt` (0-based) uses: [`layout`], except that for
/// 4 < n < 10⁶ attempts 1, 5, 9, … recut the same slots into twice as many segments of half the
/// length. The empirical segment-length formula is too large just after a power-of-two step,
/// where peeling then rarely succeeds: at n = 12,345 (segments of 1,024) 6 of 100 seeds peel.
/// FastFilter/xorfilter (pull request 50) and xorf 0.13 recut the same way; the attempt number
/// is stored with the filter, so the layout of a saved filter follows from it.
#[must_use]
pub fn layout_for_attempt(arity: u32, n: u64, attempt: u32) -> (u64, u64, u64) {
    let (l, segments, slots) = layout(arity, n);
    if n > 4 && n < 1_000_000 && l > 4 && attempt % 4 == 1 {
        let half = l / 2;
        let more = 2 * segments + u64::from(arity) - 1;
        return (half, more, (more + u64::from(arity) - 1) * half);
    }
    (l, segments, slots)
}

/// Bits per key of a binary fuse filter of `n` keys: `f · slots/n`.
///
/// ```
/// // The size factor reaches 1.125 at n = 10⁶ (at 10⁵ it is 0.875 + 0.25·ln 10⁶/ln 10⁵ = 1.175).
/// let b = bloomlab::theory::binary_fuse::bits_per_key(3, 1_000_000, 8);
/// assert!((b - 1.125 * 8.0).abs() / (1.125 * 8.0) < 0.02, "{b}");
/// ```
#[must_use]
pub fn bits_per_key(arity: u32, n: u64, f: u32) -> f64 {
    if n == 0 {
        return f64::INFINITY;
    }
    (layout(arity, n).2 * u64::from(f)) as f64 / n as f64
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn layouts() {
        assert_eq!(layout(3, 0), (4, 1, 12));
        // The recut layout keeps the slots.
        for n in [5u64, 100, 12_345, 999_999] {
            for attempt in 0..8 {
                assert_eq!(
                    layout_for_attempt(3, n, attempt).2,
                    layout(3, n).2,
                    "{n} {attempt}"
                );
            }
            assert_eq!(layout_for_attempt(3, n, 1).0 * 2, layout(3, n).0, "{n}");
        }
        assert_eq!(layout_for_attempt(3, 1_000_000, 1), layout(3, 1_000_000));
        assert_eq!(layout(3, 1), (4, 1, 12));
        for n in [2u64, 10, 1_000, 100_000, 10_000_000] {
            let (l, segs, slots) = layout(3, n);
            assert!(l.is_power_of_two() && segs >= 1 && slots >= n, "{n}");
            let (l, segs, slots) = layout(4, n);
            assert!(l.is_power_of_two() && segs >= 1 && slots >= n, "{n}");
        }
        assert!((bits_per_key(3, 10_000_000, 8) / 8.0 - 1.125).abs() < 0.01);
        assert!((bits_per_key(4, 10_000_000, 8) / 8.0 - 1.075).abs() < 0.01);
        // 4-wise at 10^6: segments of 2^⌊ln 10^6/ln 2.91 − 0.5⌋ = 2^12; the factor is at its
        // floor 1.075 (0.77 + 0.305·ln 600000/ln 10^6 = 1.064); at 10^5 it is 1.1225.
        let (l, segs, slots) = layout(4, 1_000_000);
        assert_eq!(l, 1 << 12);
        assert_eq!(slots, (segs + 3) * l);
        assert_eq!(size_factor(4, 1_000_000), 1.075);
        let s = size_factor(4, 100_000);
        assert!((s - (0.77 + 0.305 * 600_000f64.ln() / 1e5f64.ln())).abs() < 1e-12);
        assert!((bits_per_key(4, 1_000_000, 8) / 8.0 - 1.075).abs() < 0.01);
        for n in [5u64, 100, 12_345, 999_999] {
            assert_eq!(layout_for_attempt(4, n, 1).2, layout(4, n).2, "{n}");
        }
    }

    #[test]
    fn arities() {
        assert_eq!(check_arity(3), Ok(3));
        assert_eq!(check_arity(4), Ok(4));
        for a in [0, 2, 5] {
            let e = check_arity(a).unwrap_err();
            assert!(e.to_string().contains("arity"), "{e}");
        }
    }
}
