//! Where a filter's bits live in Redis: shards (string keys) and the bit order inside them.
//!
//! **Sharding.** A Redis string holds at most 512 MiB = 2³² bits, and a single huge key hurts
//! replication, persistence and deletion, so a filter of m bits is cut into shards of
//! `shard_bits` bits each (default 2³¹ = 256 MiB): global bit `i` is bit `i % shard_bits` of shard
//! `i / shard_bits`. Shard keys are `{name}:bits:<shard>`; the `{name}` hash tag puts every shard
//! and the config in one Redis Cluster slot, so a batch (pipeline or script) touches one node.
//!
//! **Bit order.** Redis `SETBIT key o 1` sets bit `7 − o % 8` of byte `o / 8` (most significant
//! bit first), while [`BitVec`] keeps bit `i` at bit `i % 64` of the little-endian word `i / 64`
//! (least significant first). So byte `b` of a shard, read with `GETRANGE`, is the
//! *bit-reversed* byte `b % 8` (little-endian) of word `b / 8`:
//!
//! ```
//! use bloomlab::redis::layout::{bitvec_to_redis_bytes, redis_bytes_into_words, ShardLayout};
//! let layout = ShardLayout::new(128, 64).unwrap();          // two shards of 64 bits
//! let mut bits = bloomlab::bits::BitVec::new(128).unwrap();
//! bits.set(0);                                               // SETBIT {f}:bits:0 0 1
//! bits.set(9);                                               // SETBIT {f}:bits:0 9 1
//! bits.set(64 + 7);                                          // SETBIT {f}:bits:1 7 1
//! assert_eq!(bitvec_to_redis_bytes(&bits, &layout, 0, 0, 2), vec![0b1000_0000, 0b0100_0000]);
//! assert_eq!(bitvec_to_redis_bytes(&bits, &layout, 1, 0, 1), vec![0b0000_0001]);
//! let mut words = vec![0u64; 2];
//! redis_bytes_into_words(&[0b1000_0000, 0b0100_0000], &layout, 0, 0, &mut words);
//! assert_eq!(words[0], 1 | 1 << 9);
//! ```

use crate::bits::BitVec;
use crate::error::{Error, Param, Result};

/// How m bits are cut into Redis string keys.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ShardLayout {
    m: u64,
    shard_bits: u64,
}

impl ShardLayout {
    /// Default shard size: 2³¹ bits (256 MiB), half of Redis' 512 MiB string limit.
    pub const DEFAULT_SHARD_BITS: u64 = 1 << 31;
    /// Largest shard: 2³² bits, the Redis string limit (`proto-max-bulk-len` 512 MiB).
    pub const MAX_SHARD_BITS: u64 = 1 << 32;
    /// Most shard keys of one filter: 65,536 (a filter of default shards up to 2⁴⁷ bits, 16 TiB).
    /// Every key of a filter travels in one `UNLINK` and one creation script, and a config read
    /// from Redis is untrusted: this bound keeps what is sized from it small.
    pub const MAX_SHARDS: u64 = 1 << 16;

    /// A layout of `m` bits in shards of `shard_bits` bits (a multiple of 64, at most 2³²).
    ///
    /// ```
    /// use bloomlab::redis::layout::ShardLayout;
    /// // A 10-billion-bit filter (1.2 GB, the articles' n = 10⁹ at 1 %) needs 5 default shards.
    /// let l = ShardLayout::new(9_585_058_378, ShardLayout::DEFAULT_SHARD_BITS).unwrap();
    /// assert_eq!(l.shards(), 5);
    /// assert_eq!(l.locate(9_585_058_377), (4, 9_585_058_377 - 4 * (1 << 31)));
    /// ```
    ///
    /// # Errors
    /// [`Error::InvalidParameter`] for `m = 0`, a bad shard size, or more than
    /// [`ShardLayout::MAX_SHARDS`] shards.
    pub fn new(m: u64, shard_bits: u64) -> Result<Self> {
        crate::theory::check_m(m)?;
        if shard_bits == 0 || !shard_bits.is_multiple_of(64) || shard_bits > Self::MAX_SHARD_BITS {
            return Err(Error::invalid(
                Param::Other("shard-bits"),
                shard_bits,
                "a multiple of 64 from 64 to 2^32 (Redis strings hold at most 2^32 bits)",
            ));
        }
        if m.div_ceil(shard_bits) > Self::MAX_SHARDS {
            return Err(Error::invalid(
                Param::M,
                m,
                format!(
                    "at most {} shards of {shard_bits} bits ({} bits); use larger shards or a \
                     smaller filter",
                    Self::MAX_SHARDS,
                    Self::MAX_SHARDS * shard_bits
                ),
            ));
        }
        Ok(Self { m, shard_bits })
    }

    /// Total bits m.
    #[must_use]
    pub fn m(&self) -> u64 {
        self.m
    }

    /// Bits per shard (the last shard may be shorter).
    #[must_use]
    pub fn shard_bits(&self) -> u64 {
        self.shard_bits
    }

    /// Number of shards.
    #[must_use]
    pub fn shards(&self) -> u64 {
        self.m.div_ceil(self.shard_bits)
    }

    /// `(shard, offset within the shard)` of global bit `i`.
    #[inline]
    #[must_use]
    pub fn locate(&self, i: u64) -> (u64, u64) {
        (i / self.shard_bits, i % self.shard_bits)
    }

    /// Bits in shard `s`.
    #[must_use]
    pub fn shard_len_bits(&self, s: u64) -> u64 {
        let start = s * self.shard_bits;
        (self.m - start.min(self.m)).min(self.shard_bits)
    }

    /// Bytes of the Redis string that holds shard `s` once its last bit is set.
    #[must_use]
    pub fn shard_len_bytes(&self, s: u64) -> u64 {
        self.shard_len_bits(s).div_ceil(8)
    }

    /// Index of the first 64-bit word of shard `s` in the whole filter's [`BitVec`].
    fn first_word(&self, s: u64) -> u64 {
        s * self.shard_bits / 64
    }
}

/// `len` bytes of shard `s` from byte `start` on, in Redis' order (what `GETRANGE` would return
/// for a Redis bitmap holding the same bits). Bytes past the shard's end are not produced.
#[must_use]
pub fn bitvec_to_redis_bytes(
    bits: &BitVec,
    layout: &ShardLayout,
    s: u64,
    start: u64,
    len: u64,
) -> Vec<u8> {
    let end = (start + len).min(layout.shard_len_bytes(s));
    let words = bits.words();
    let w0 = layout.first_word(s);
    (start..end)
        .map(|b| {
            let w = words[(w0 + b / 8) as usize];
            ((w >> (8 * (b % 8))) as u8).reverse_bits()
        })
        .collect()
}

/// Write Redis-ordered `bytes` (shard `s`, from byte `start` on) into the whole filter's words
/// (overwriting those bytes). Bytes past the shard's end are ignored.
pub fn redis_bytes_into_words(
    bytes: &[u8],
    layout: &ShardLayout,
    s: u64,
    start: u64,
    words: &mut [u64],
) {
    let w0 = layout.first_word(s);
    let limit = layout.shard_len_bytes(s);
    for (j, &byte) in bytes.iter().enumerate() {
        let b = start + j as u64;
        if b >= limit {
            break;
        }
        let w = &mut words[(w0 + b / 8) as usize];
        let shift = 8 * (b % 8);
        *w = (*w & !(0xffu64 << shift)) | (u64::from(byte.reverse_bits()) << shift);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    /// What Redis does on `SETBIT key o 1`, written independently of the code above.
    fn setbit(redis: &mut Vec<u8>, o: u64) {
        let byte = (o / 8) as usize;
        if redis.len() <= byte {
            redis.resize(byte + 1, 0);
        }
        redis[byte] |= 0x80 >> (o % 8);
    }

    #[test]
    fn layout_arithmetic() {
        let l = ShardLayout::new(1000, 256).unwrap();
        assert_eq!(l.shards(), 4);
        assert_eq!(l.shard_len_bits(3), 1000 - 768);
        assert_eq!(l.shard_len_bytes(3), 29);
        assert_eq!(l.locate(300), (1, 44));
        assert!(ShardLayout::new(1000, 100).is_err());
        assert!(ShardLayout::new(1000, 0).is_err());
        assert!(ShardLayout::new(0, 64).is_err());
        assert!(ShardLayout::new(1000, (1 << 32) + 64).is_err());
        // At most MAX_SHARDS shards.
        assert!(ShardLayout::new(64 << 16, 64).is_ok());
        assert!(ShardLayout::new((64 << 16) + 1, 64).is_err());
        assert!(ShardLayout::new(u64::MAX, 64).is_err());
        // More than 2^32 bits: representable, every offset fits a Redis string.
        let big = ShardLayout::new(1 << 34, ShardLayout::DEFAULT_SHARD_BITS).unwrap();
        assert_eq!(big.shards(), 8);
        assert_eq!(big.locate((1 << 34) - 1), (7, (1 << 31) - 1));
        let max = ShardLayout::new(1 << 36, ShardLayout::MAX_SHARD_BITS).unwrap();
        assert_eq!(max.locate((1 << 36) - 1), (15, (1 << 32) - 1));
    }

    proptest! {
        #[test]
        fn conversion_matches_setbit_and_round_trips(
            m in 1u64..3000,
            shard_words in 1u64..8,
            idx in proptest::collection::vec(any::<u64>(), 0..200),
        ) {
            let layout = ShardLayout::new(m, shard_words * 64).unwrap();
            let mut bits = BitVec::new(m).unwrap();
            let mut redis: Vec<Vec<u8>> = vec![Vec::new(); layout.shards() as usize];
            for i in idx.iter().map(|x| x % m) {
                bits.set(i);
                let (s, o) = layout.locate(i);
                setbit(&mut redis[s as usize], o);
            }
            let mut back = vec![0u64; bits.words().len()];
            for s in 0..layout.shards() {
                let full = bitvec_to_redis_bytes(&bits, &layout, s, 0, u64::MAX / 2);
                prop_assert_eq!(full.len() as u64, layout.shard_len_bytes(s));
                // Redis' string is as long as its highest set bit needs; the rest reads as 0.
                let r = &redis[s as usize];
                prop_assert_eq!(&full[..r.len()], &r[..]);
                prop_assert!(full[r.len()..].iter().all(|&b| b == 0));
                // Chunked read back (chunks of 3 bytes) restores the words exactly.
                let mut start = 0;
                while start < full.len() as u64 {
                    let chunk = bitvec_to_redis_bytes(&bits, &layout, s, start, 3);
                    redis_bytes_into_words(&chunk, &layout, s, start, &mut back);
                    start += 3;
                }
            }
            prop_assert_eq!(&back[..], bits.words());
        }
    }
}
