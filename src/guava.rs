//! Reading and writing Guava's serialized Bloom filters (`BloomFilter.writeTo` / `readFrom`).
//!
//! # The format
//!
//! Guava (`com.google.common.hash.BloomFilter.writeTo`, unchanged since Guava 11) writes, through a
//! `java.io.DataOutputStream`, so every multi-byte number is **big-endian**:
//!
//! | offset | size | field |
//! |---|---|---|
//! | 0 | 1 | strategy ordinal, a *signed* byte: `0` = `MURMUR128_MITZ_32`, `1` = `MURMUR128_MITZ_64` |
//! | 1 | 1 | number of hash functions k, an *unsigned* byte (Guava allows 1..=255) |
//! | 2 | 4 | number of 64-bit words w, a signed `int` (Guava needs w ≥ 1) |
//! | 6 | 8·w | the words of the bit array (`LockFreeBitArray.data`), each a big-endian `long` |
//!
//! Bit `i` of the filter is bit `i % 64` of word `i / 64`, the layout of bloomlab's
//! [`BitVec`], and the filter has exactly `m = 64·w` bits: Guava rounds the bit count it computes
//! up to whole words and indexes modulo the rounded size, as bloomlab's [`Guava32`] and
//! [`Guava64`] strategies do. The hash is `Hashing.murmur3_128()` with seed 0
//! ([`Murmur3::default()`]) over the bytes the funnel writes: `Funnels.stringFunnel(UTF_8)` writes
//! the UTF-8 bytes of the string, `Funnels.longFunnel()` the 8 little-endian bytes of the `long`.
//! The funnel itself is **not** stored: the reader must hash items the way the writer did.
//!
//! Guava's `readFrom` ignores whatever follows the last word in its stream; [`load_guava`] takes a
//! whole byte slice and refuses trailing bytes, since in a file they mean the length is wrong.
//!
//! ```
//! use bloomlab::guava::{load_guava, save_guava};
//! use bloomlab::hash::{Guava64, Murmur3};
//! use bloomlab::{Filter, StandardBloom};
//! let mut f = StandardBloom::with_rate_and(100, 0.01, Murmur3::default(), Guava64).unwrap();
//! f.insert(b"key-0");
//! let bytes = save_guava(&f).unwrap();
//! assert_eq!(bytes.len(), 6 + 15 * 8);        // 958 bits rounded up to 15 words
//! assert_eq!(&bytes[..6], &[1, 7, 0, 0, 0, 15]); // MITZ_64, k = 7, 15 words
//! let g = load_guava(&bytes).unwrap();
//! assert!(g.contains(b"key-0"));
//! assert_eq!(save_guava(&g).unwrap(), bytes);   // byte-identical round trip
//! ```
//!
//! [`BitVec`]: crate::bits::BitVec
//! [`Guava32`]: crate::hash::Guava32
//! [`Guava64`]: crate::hash::Guava64

use crate::bits::BitVec;
use crate::error::{Error, Result};
use crate::filter::Filter;
use crate::filters::StandardBloom;
use crate::hash::{AnyStrategy, IndexStrategy, Murmur3, StrategyId};
use crate::theory::MAX_K;

/// A filter as Guava builds it: murmur3_128 (seed 0) and one of the two Guava strategies.
pub type GuavaBloom = StandardBloom<Murmur3, AnyStrategy>;

/// Bytes before the first word: strategy ordinal, k, word count.
pub const HEADER_LEN: usize = 6;

/// Guava's ordinal of `BloomFilterStrategies.MURMUR128_MITZ_32`.
pub const MITZ_32_ORDINAL: i8 = 0;

/// Guava's ordinal of `BloomFilterStrategies.MURMUR128_MITZ_64`.
pub const MITZ_64_ORDINAL: i8 = 1;

/// Guava's strategy ordinal for a bloomlab strategy, or `None` when Guava has no such strategy.
#[must_use]
pub fn strategy_ordinal(id: StrategyId) -> Option<i8> {
    match id {
        StrategyId::Guava32 => Some(MITZ_32_ORDINAL),
        StrategyId::Guava64 => Some(MITZ_64_ORDINAL),
        _ => None,
    }
}

/// Decode a filter written by Guava's `BloomFilter.writeTo` (the whole of `bytes`).
///
/// Guava does not record how many items were inserted; the loaded filter's `len()` is set to
/// Guava's own estimate, [`guava_approximate_element_count`] (saturating at `u64::MAX` when every
/// bit is set, where Guava's `approximateElementCount()` throws).
///
/// Never allocates more than the input justifies: the bit array is allocated only after the
/// word count has been checked against the length of `bytes`.
///
/// # Errors
/// [`Error::Corrupt`], saying what is wrong, when the input is shorter than the header, names a
/// strategy Guava does not have, has k = 0 (or a k above bloomlab's limit of
/// [`MAX_K`], which Guava would accept up to 255), a word count that is not
/// positive, or a length that disagrees with the word count.
pub fn load_guava(bytes: &[u8]) -> Result<GuavaBloom> {
    let Some((header, body)) = bytes.split_first_chunk::<HEADER_LEN>() else {
        return Err(Error::Corrupt(format!(
            "Guava filter truncated: {} bytes, the header alone needs {HEADER_LEN}",
            bytes.len()
        )));
    };
    let ordinal = header[0] as i8;
    let strategy = match ordinal {
        MITZ_32_ORDINAL => StrategyId::Guava32,
        MITZ_64_ORDINAL => StrategyId::Guava64,
        other => {
            return Err(Error::Corrupt(format!(
                "unknown Guava strategy ordinal {other} (Guava knows 0 = MURMUR128_MITZ_32 and \
                 1 = MURMUR128_MITZ_64)"
            )));
        }
    };
    let k = u32::from(header[1]);
    if k == 0 {
        return Err(Error::Corrupt(
            "Guava filter has 0 hash functions (must be at least 1)".to_string(),
        ));
    }
    if k > MAX_K {
        return Err(Error::Corrupt(format!(
            "Guava filter has k = {k} hash functions; bloomlab supports at most {MAX_K}"
        )));
    }
    let words = i32::from_be_bytes([header[2], header[3], header[4], header[5]]);
    if words <= 0 {
        return Err(Error::Corrupt(format!(
            "Guava filter word count is {words} (must be at least 1)"
        )));
    }
    let words = words as u64; // 1..=i32::MAX
    let have = body.len() as u64;
    let need = words * 8; // at most 2^34: no overflow
    if have != need {
        let total = HEADER_LEN as u64 + need;
        return Err(Error::Corrupt(if have < need {
            format!(
                "Guava filter truncated: header announces {words} words ({total} bytes in all) \
                 but the input has {} bytes",
                bytes.len()
            )
        } else {
            format!(
                "Guava filter has {} bytes after the {words} words its header announces \
                 ({total} bytes expected, {} given)",
                have - need,
                bytes.len()
            )
        }));
    }
    let mut data = Vec::new();
    data.try_reserve_exact(words as usize)
        .map_err(|_| Error::Allocation {
            bytes: u128::from(need),
        })?;
    data.extend(
        body.chunks_exact(8)
            .map(|c| u64::from_be_bytes(c.try_into().expect("chunks_exact(8)"))),
    );
    let bits = BitVec::from_words(data, words * 64)?;
    let len = approximate_count(bits.len(), k, bits.count_ones()).unwrap_or(u64::MAX);
    StandardBloom::from_bits(bits, k, len, Murmur3::default(), AnyStrategy(strategy))
}

/// Encode a filter in Guava's `BloomFilter.writeTo` format; Guava's `readFrom` (with the funnel
/// matching how the items were turned into bytes) reads it back as the same filter.
///
/// # Errors
/// [`Error::Incompatible`] when Guava could not read the filter the same way: a strategy other
/// than `guava32`/`guava64`, a seeded murmur3 (Guava uses seed 0), a bit count that is not a whole
/// number of 64-bit words, or more than 2³¹−1 words.
pub fn save_guava<S: IndexStrategy>(f: &StandardBloom<Murmur3, S>) -> Result<Vec<u8>> {
    let id = f.strategy().id();
    let ordinal = strategy_ordinal(id).ok_or_else(|| {
        Error::Incompatible(format!(
            "Guava only has the guava32 and guava64 strategies; this filter uses {id}"
        ))
    })?;
    if *f.hasher() != Murmur3::default() {
        return Err(Error::Incompatible(
            "Guava hashes with murmur3 seed 0; this filter's murmur3 is seeded".to_string(),
        ));
    }
    let m = f.bit_vec().len();
    if !m.is_multiple_of(64) {
        return Err(Error::Incompatible(format!(
            "Guava filters have a whole number of 64-bit words; this one has {m} bits"
        )));
    }
    let words = f.bit_vec().words();
    let count = i32::try_from(words.len()).map_err(|_| {
        Error::Incompatible(format!(
            "Guava filters hold at most {} words; this one has {}",
            i32::MAX,
            words.len()
        ))
    })?;
    let k = u8::try_from(f.k())
        .map_err(|_| Error::Incompatible(format!("Guava allows k <= 255, not {}", f.k())))?;
    let mut out = Vec::new();
    out.try_reserve_exact(HEADER_LEN + words.len() * 8)
        .map_err(|_| Error::Allocation {
            bytes: (HEADER_LEN + words.len() * 8) as u128,
        })?;
    out.push(ordinal as u8);
    out.push(k);
    out.extend_from_slice(&count.to_be_bytes());
    for w in words {
        out.extend_from_slice(&w.to_be_bytes());
    }
    Ok(out)
}

/// Guava's `BloomFilter.approximateElementCount()`, computed in Guava's order of operations:
/// `roundHalfUp(−log1p(−X/m) · m / k)` with X the number of set bits, m the bit size. This is
/// the Swamidass & Baldi (2007) estimator, "Mathematical correction for fingerprint similarity
/// measures to improve chemical retrieval", J. Chem. Inf. Model. 47(3), the same one
/// [`StandardBloom::estimated_count`] evaluates without rounding.
///
/// `None` when every bit is set: the estimate is infinite and Guava throws `ArithmeticException`.
#[must_use]
pub fn guava_approximate_element_count<S: IndexStrategy>(
    f: &StandardBloom<Murmur3, S>,
) -> Option<u64> {
    approximate_count(f.bit_vec().len(), f.k(), f.ones())
}

fn approximate_count(m: u64, k: u32, ones: u64) -> Option<u64> {
    let m = m as f64;
    let est = -(-(ones as f64 / m)).ln_1p() * m / f64::from(k);
    // Rust's `round` is half away from zero, which for est >= 0 is Guava's RoundingMode.HALF_UP.
    est.is_finite().then(|| est.round() as u64)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::hash::{EnhancedDoubleHashing, Guava32, Guava64};

    fn header(ord: u8, k: u8, words: i32) -> Vec<u8> {
        let mut v = vec![ord, k];
        v.extend_from_slice(&words.to_be_bytes());
        v
    }

    #[test]
    fn round_trip_both_strategies() {
        let mut a = StandardBloom::with_rate_and(500, 0.02, Murmur3::default(), Guava32).unwrap();
        let mut b = StandardBloom::with_rate_and(500, 0.02, Murmur3::default(), Guava64).unwrap();
        for i in 0u64..500 {
            a.insert(&i.to_le_bytes());
            b.insert(&i.to_le_bytes());
        }
        for (f, ord) in [(save_guava(&a).unwrap(), 0u8), (save_guava(&b).unwrap(), 1)] {
            assert_eq!(f[0], ord);
            let g = load_guava(&f).unwrap();
            assert!((0u64..500).all(|i| g.contains(&i.to_le_bytes())));
            assert_eq!(save_guava(&g).unwrap(), f);
        }
        // Words are written big-endian: the first word's most significant byte comes first.
        let bytes = save_guava(&b).unwrap();
        assert_eq!(
            u64::from_be_bytes(bytes[6..14].try_into().unwrap()),
            b.bit_vec().words()[0]
        );
    }

    #[test]
    fn refuses_what_guava_cannot_read() {
        let f = StandardBloom::with_rate_and(100, 0.01, Murmur3::default(), EnhancedDoubleHashing)
            .unwrap();
        assert!(matches!(save_guava(&f), Err(Error::Incompatible(_))));
        let f = StandardBloom::with_rate_and(100, 0.01, Murmur3::with_seed(9), Guava64).unwrap();
        assert!(matches!(save_guava(&f), Err(Error::Incompatible(_))));
        let odd =
            StandardBloom::from_bits(BitVec::new(100).unwrap(), 3, 0, Murmur3::default(), Guava64)
                .unwrap();
        assert!(matches!(save_guava(&odd), Err(Error::Incompatible(_))));
    }

    #[test]
    fn corrupt_headers() {
        let msg = |b: &[u8]| match load_guava(b) {
            Err(Error::Corrupt(m)) => m,
            other => panic!("expected Corrupt, got {other:?}"),
        };
        assert!(msg(&[]).contains("truncated"));
        assert!(msg(&[1, 3, 0, 0, 0]).contains("truncated"));
        let mut ok = header(1, 3, 1);
        ok.extend_from_slice(&[0; 8]);
        assert!(load_guava(&ok).is_ok());
        let mut bad = ok.clone();
        bad[0] = 2;
        assert!(msg(&bad).contains("ordinal 2"));
        bad[0] = 0xff;
        assert!(msg(&bad).contains("ordinal -1"));
        let mut bad = ok.clone();
        bad[1] = 0;
        assert!(msg(&bad).contains("0 hash functions"));
        bad[1] = 200;
        assert!(msg(&bad).contains("k = 200"));
        assert!(msg(&header(1, 3, 0)).contains("word count is 0"));
        assert!(msg(&header(1, 3, -5)).contains("word count is -5"));
        // An absurd word count with a short body: refused before any allocation.
        assert!(msg(&header(1, 3, i32::MAX)).contains("truncated"));
        let mut long = ok.clone();
        long.push(0);
        assert!(msg(&long).contains("1 bytes after"));
        assert!(msg(&ok[..13]).contains("truncated"));
    }

    #[test]
    fn len_is_guavas_estimate() {
        let mut f = StandardBloom::with_rate_and(1000, 0.01, Murmur3::default(), Guava64).unwrap();
        for i in 0u64..700 {
            f.insert(&i.to_le_bytes());
        }
        let g = load_guava(&save_guava(&f).unwrap()).unwrap();
        let est = guava_approximate_element_count(&f).unwrap();
        assert_eq!(g.len(), est);
        assert!(est.abs_diff(700) < 30, "{est}");
        // Every bit set: Guava's estimate is infinite (it throws); len saturates.
        let mut full = header(1, 2, 1);
        full.extend_from_slice(&[0xff; 8]);
        let g = load_guava(&full).unwrap();
        assert_eq!(guava_approximate_element_count(&g), None);
        assert_eq!(g.len(), u64::MAX);
        assert_eq!(g.expected_fpr(), 1.0);
    }
}
