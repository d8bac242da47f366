//! Apache Parquet's split block Bloom filter (parquet-format `BloomFilter.md`).

use crate::error::{Error, Param, Result};
use crate::filter::{Filter, FilterKind};
use crate::hash::{HashId, ItemHasher, StrategyId, Xxh64};
use crate::theory;
use crate::theory::split_block::{BLOCK_BITS, MAX_BLOCKS, WORDS};

/// The eight odd salt constants of the Parquet specification.
pub const SALT: [u32; 8] = [
    0x47b6_137b,
    0x4497_4d91,
    0x8824_ad5b,
    0xa2b7_289d,
    0x7054_95c7,
    0x2df1_424b,
    0x9efc_4947,
    0x5c6b_fb31,
];

/// XXH64 of the empty input with seed 0 (published in arrow-rs's tests): used to recognise a
/// hasher that is Parquet's XXH64 with seed 0.
const XXH64_EMPTY_SEED0: u64 = 17_241_709_254_077_376_921;

/// One 256-bit block: eight 32-bit words (32-byte aligned, the AVX2 register the design targets).
#[repr(align(32))]
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct SbBlock(pub [u32; 8]);

// ANCHOR: mask
/// The eight one-bit masks of a block for the low 32 bits of an item's hash: word i gets bit
/// `(key · SALT[i]) >> 27` (32-bit wrapping multiply), as `Mask()` in the specification.
#[inline]
#[must_use]
pub fn mask(key: u32) -> [u32; 8] {
    let mut m = [0u32; 8];
    for (w, s) in m.iter_mut().zip(SALT) {
        *w = 1u32 << (key.wrapping_mul(s) >> 27);
    }
    m
}
// ANCHOR_END: mask

/// Apache Parquet's split block Bloom filter (SBBF), bit-compatible with the specification
/// (parquet-format `BloomFilter.md`) when the hasher is XXH64 with seed 0 (the default):
///
/// - the filter is z blocks of 256 bits, each eight little-endian 32-bit words;
/// - an item's 64-bit hash `h` (XXH64 of its plain-encoded bytes, seed 0) picks block
///   `((h >> 32) · z) >> 32`;
/// - in that block, word i gets bit `(lower32(h) · SALT[i]) >> 27`: eight bits, one per word, so
///   k = 8 always.
///
/// With another hash (`hasher.hash128(item).lo` is used as h) it is the same algorithm but not
/// file-compatible. The FPR model is [`theory::split_block::fpr_split_block`] (Putze et al.'s
/// Poisson mixture, one bit per 32-bit word). Built from (n, p), the filter takes the fewest
/// blocks that meet p *under that model* ([`theory::split_block::blocks_for`]); the spec's own
/// rule ([`SplitBlockBloom::with_parquet_sizing`]) under-sizes before its power-of-two rounding.
///
/// ```
/// use bloomlab::Filter;
/// use bloomlab::filters::SplitBlockBloom;
/// let mut f = SplitBlockBloom::with_bits(1_000_000).unwrap();       // 10 bits per key for 10⁵
/// assert_eq!((f.blocks(), f.k(), f.bytes()), (3_907, 8, 125_024));
/// for i in 0u64..100_000 { f.insert(&i.to_le_bytes()); }
/// assert!((f.expected_fpr() - 0.0126).abs() < 1e-4);               // vs 0.82% for standard
/// ```
#[derive(Debug, Clone)]
pub struct SplitBlockBloom<H = Xxh64> {
    blocks: Vec<SbBlock>,
    len: u64,
    hasher: H,
    parquet_hash: bool,
}

impl SplitBlockBloom<Xxh64> {
    /// A filter for `n` items at rate `p` under the split-block model, hashing with XXH64 seed 0.
    ///
    /// # Errors
    /// Invalid `n` or `p`; [`Error::Allocation`].
    pub fn with_rate(n: u64, p: f64) -> Result<Self> {
        Self::with_rate_and(n, p, Xxh64::default())
    }

    /// A filter of `⌈m/256⌉` blocks, hashing with XXH64 seed 0.
    ///
    /// # Errors
    /// Invalid `m`; [`Error::Allocation`].
    pub fn with_bits(m: u64) -> Result<Self> {
        Self::with_bits_and(m, Xxh64::default())
    }

    /// A filter sized as the Parquet writers size it:
    /// [`theory::split_block::parquet_bytes`] (the spec's `−8n/ln(1 − p^(1/8))` bits, a power of
    /// two number of bytes between 32 B and 128 MiB).
    ///
    /// # Errors
    /// Invalid `n` or `p`; [`Error::Allocation`].
    pub fn with_parquet_sizing(n: u64, p: f64) -> Result<Self> {
        let bytes = theory::split_block::parquet_bytes(n, p)?;
        Self::with_blocks_and(bytes / 32, Xxh64::default())
    }

    /// Read a Parquet bitset (the bytes after the filter header): a multiple of 32 bytes.
    ///
    /// # Errors
    /// [`Error::Corrupt`] when the length is zero or not a multiple of 32.
    pub fn from_parquet_bytes(bitset: &[u8]) -> Result<Self> {
        if bitset.is_empty() || !bitset.len().is_multiple_of(32) {
            return Err(Error::Corrupt(format!(
                "a split-block bitset is a non-zero multiple of 32 bytes, got {}",
                bitset.len()
            )));
        }
        let mut f = Self::with_blocks_and(bitset.len() as u64 / 32, Xxh64::default())?;
        for (b, chunk) in f.blocks.iter_mut().zip(bitset.chunks_exact(32)) {
            for (w, c) in b.0.iter_mut().zip(chunk.chunks_exact(4)) {
                *w = u32::from_le_bytes([c[0], c[1], c[2], c[3]]);
            }
        }
        Ok(f)
    }
}

impl<H: ItemHasher> SplitBlockBloom<H> {
    /// A filter for `n` items at rate `p`: the fewest blocks whose model FPR is at most `p`.
    ///
    /// # Errors
    /// Invalid `n` or `p`; [`Error::Allocation`].
    pub fn with_rate_and(n: u64, p: f64, hasher: H) -> Result<Self> {
        Self::with_blocks_and(theory::split_block::blocks_for(n, p)?, hasher)
    }

    /// A filter of `⌈m/256⌉` blocks.
    ///
    /// # Errors
    /// Invalid `m`; [`Error::Allocation`].
    pub fn with_bits_and(m: u64, hasher: H) -> Result<Self> {
        theory::check_m(m)?;
        Self::with_blocks_and(m.div_ceil(BLOCK_BITS), hasher)
    }

    /// A filter of `blocks` blocks (1 ..= 2³²).
    ///
    /// # Errors
    /// [`Error::InvalidParameter`] naming m for 0 or more than 2³² blocks; [`Error::Allocation`].
    pub fn with_blocks_and(blocks: u64, hasher: H) -> Result<Self> {
        if blocks == 0 || blocks > MAX_BLOCKS {
            return Err(Error::invalid(
                Param::M,
                blocks.saturating_mul(BLOCK_BITS),
                "from 256 bits (one block) to 2^32 blocks of 256 bits",
            ));
        }
        let alloc_err = || Error::Allocation {
            bytes: u128::from(blocks) * 32,
        };
        let count = usize::try_from(blocks).map_err(|_| alloc_err())?;
        let mut v: Vec<SbBlock> = Vec::new();
        v.try_reserve_exact(count).map_err(|_| alloc_err())?;
        v.resize(count, SbBlock::default());
        let parquet_hash =
            hasher.id() == HashId::Xxh64 && hasher.hash128(b"").lo == XXH64_EMPTY_SEED0;
        Ok(Self {
            blocks: v,
            len: 0,
            hasher,
            parquet_hash,
        })
    }

    /// Rebuild from saved parts (see [`crate::persist`]).
    ///
    /// # Errors
    /// [`Error::Corrupt`] for 0 or more than 2³² blocks.
    pub fn from_parts(blocks: Vec<SbBlock>, len: u64, hasher: H) -> Result<Self> {
        if blocks.is_empty() || blocks.len() as u64 > MAX_BLOCKS {
            return Err(Error::Corrupt(format!(
                "split-block filter has {} blocks, outside 1..=2^32",
                blocks.len()
            )));
        }
        let parquet_hash =
            hasher.id() == HashId::Xxh64 && hasher.hash128(b"").lo == XXH64_EMPTY_SEED0;
        Ok(Self {
            blocks,
            len,
            hasher,
            parquet_hash,
        })
    }

    /// The hash function.
    #[must_use]
    pub fn hasher(&self) -> &H {
        &self.hasher
    }

    /// Number of 256-bit blocks.
    #[must_use]
    pub fn blocks(&self) -> u64 {
        self.blocks.len() as u64
    }

    /// The blocks.
    #[must_use]
    pub fn block_slice(&self) -> &[SbBlock] {
        &self.blocks
    }

    /// True when the filter is bit-compatible with Parquet (hash XXH64 with seed 0).
    #[must_use]
    pub fn parquet_compatible(&self) -> bool {
        self.parquet_hash
    }

    /// The 64-bit hash of `item` (XXH64 seed 0 by default).
    #[inline]
    #[must_use]
    pub fn hash(&self, item: &[u8]) -> u64 {
        self.hasher.hash128(item).lo
    }

    /// The block a 64-bit hash selects: `((h >> 32) · z) >> 32`.
    #[inline]
    #[must_use]
    pub fn block_index(&self, h: u64) -> usize {
        (((h >> 32) * self.blocks.len() as u64) >> 32) as usize
    }

    /// Insert by hash (as the spec's `insertHash`).
    #[inline]
    pub fn insert_hash(&mut self, h: u64) {
        let i = self.block_index(h);
        let m = mask(h as u32);
        for (w, x) in self.blocks[i].0.iter_mut().zip(m) {
            *w |= x;
        }
    }

    /// Query by hash (as the spec's `findHash`).
    #[inline]
    #[must_use]
    pub fn contains_hash(&self, h: u64) -> bool {
        let m = mask(h as u32);
        self.blocks[self.block_index(h)]
            .0
            .iter()
            .zip(m)
            .all(|(w, x)| w & x != 0)
    }

    /// The bitset as Parquet stores it: blocks in order, words little-endian.
    #[must_use]
    pub fn to_parquet_bytes(&self) -> Vec<u8> {
        self.blocks
            .iter()
            .flat_map(|b| b.0)
            .flat_map(u32::to_le_bytes)
            .collect()
    }

    /// Number of bits set.
    #[must_use]
    pub fn ones(&self) -> u64 {
        self.blocks
            .iter()
            .flat_map(|b| b.0)
            .map(|w| u64::from(w.count_ones()))
            .sum()
    }
}

impl<H: ItemHasher> Filter for SplitBlockBloom<H> {
    #[inline]
    fn try_insert(&mut self, item: &[u8]) -> Result<()> {
        self.insert(item);
        Ok(())
    }
    #[inline]
    fn insert(&mut self, item: &[u8]) {
        self.insert_hash(self.hash(item));
        self.len = self.len.saturating_add(1);
    }
    #[inline]
    fn contains(&self, item: &[u8]) -> bool {
        self.contains_hash(self.hash(item))
    }
    fn len(&self) -> u64 {
        self.len
    }
    fn bits(&self) -> u64 {
        self.blocks.len() as u64 * BLOCK_BITS
    }
    fn bytes(&self) -> usize {
        self.blocks.capacity() * std::mem::size_of::<SbBlock>()
    }
    fn k(&self) -> u32 {
        WORDS
    }
    /// [`theory::split_block::fpr_split_block`]: Poisson mixture over block loads, one bit per
    /// 32-bit word.
    fn expected_fpr(&self) -> f64 {
        theory::split_block::fpr_split_block(self.bits(), self.len)
    }
    fn kind(&self) -> FilterKind {
        FilterKind::SplitBlock
    }
    fn hash_id(&self) -> HashId {
        self.hasher.id()
    }
    fn strategy_id(&self) -> Option<StrategyId> {
        None
    }
    fn details(&self) -> Vec<(String, String)> {
        vec![
            ("blocks".into(), self.blocks.len().to_string()),
            (
                "items per block (mean)".into(),
                format!("{:.2}", self.len as f64 / self.blocks.len() as f64),
            ),
            (
                "fill".into(),
                format!("{:.4}", self.ones() as f64 / self.bits() as f64),
            ),
            (
                "parquet-compatible (xxh64, seed 0)".into(),
                if self.parquet_hash { "yes" } else { "no" }.into(),
            ),
            (
                "classic fpr at same m, k=8 (standard filter)".into(),
                format!("{:.6}", theory::fpr_classic(self.bits(), self.len, WORDS)),
            ),
        ]
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn block_layout() {
        assert_eq!(std::mem::size_of::<SbBlock>(), 32);
        let f = SplitBlockBloom::with_bits(1_000).unwrap();
        assert_eq!((f.blocks(), f.bits(), f.bytes()), (4, 1_024, 128));
        assert!(f.parquet_compatible());
        let g = SplitBlockBloom::with_bits_and(1_000, Xxh64::with_seed(1)).unwrap();
        assert!(!g.parquet_compatible());
    }

    #[test]
    fn every_mask_has_one_bit_per_word() {
        for key in (0u32..100_000).map(|i| i.wrapping_mul(0x9e37_79b9)) {
            assert!(mask(key).iter().all(|w| w.count_ones() == 1));
        }
    }

    #[test]
    fn parquet_sizing_is_a_power_of_two() {
        let f = SplitBlockBloom::with_parquet_sizing(1_000_000, 0.01).unwrap();
        assert_eq!(f.bytes(), 2 * 1024 * 1024);
        let g = SplitBlockBloom::with_parquet_sizing(1, 0.5).unwrap();
        assert_eq!(g.bytes(), 32);
    }

    #[test]
    fn bad_inputs() {
        assert!(SplitBlockBloom::from_parquet_bytes(&[0u8; 33]).is_err());
        assert!(SplitBlockBloom::from_parquet_bytes(&[]).is_err());
        assert!(SplitBlockBloom::with_bits(0).is_err());
        assert!(SplitBlockBloom::with_blocks_and(MAX_BLOCKS + 1, Xxh64::default()).is_err());
    }
}
