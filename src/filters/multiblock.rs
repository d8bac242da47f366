//! The multiblock family of Boost.Bloom (Joaquín M López Muñoz, 2025, `boostorg/bloom`:
//! `block<Word, K>`, `multiblock<Word, K>`, `fast_multiblock32/64<K>`) as one kind: blocks of K
//! words of w ∈ {32, 64} bits, an item setting b bits in each word of one block (k = K·b). The
//! shapes, how Boost's types map onto them and the model are in [`crate::theory::multiblock`].
//!
//! **Layout.** The words are kept in 64-byte lines (`Line`: sixteen `u32` or eight `u64`,
//! cache-line aligned), word j of the filter at line `j / N`, slot `j % N`; block z holds words
//! `z·K .. z·K + K`, so a block of 4, 8 or 16 words never straddles a line (other K may, as in
//! Boost with stride = block size). A file stores the words in order, little-endian.
//!
//! **Hash to bits.** One 64-bit hash h per item ([`ItemHasher::hash64`]); the block is
//! `((h >> 32)·blocks) >> 32` ([`block_of`], Parquet's rule), and bit t ∈ 0..k of the item, in
//! word `t / b`, is `(key·SALT32[t]) >> 27` for 32-bit words or `(key·SALT64[t]) >> 58` for 64-bit
//! words, key = the low 32 bits of h, with odd salts (multiply-shift, Dietzfelbinger et al.
//! 1997). The first eight 32-bit salts are Parquet's ([`crate::filters::split_block::SALT`]), so
//! shape (32, 8, 1) sets exactly the bits a split-block filter sets for the same hash (tested).
//!
//! **Hot paths.** Written once in safe Rust; blocks of 4, 8 or 16 words within one line and one
//! bit per word take a path with K known at compile time (`has_fixed`: a fixed-size mask and a
//! branch-free test), every other shape a loop over the K words (`has_any`). Both run through
//! [`crate::filters::avx2::dispatch_with`], which compiles them with AVX2 where the CPU has it
//! (the split-block pattern: `filters/avx2.rs`). Batches stage a chunk of hashes and prefetch their
//! blocks first (`filters/batch.rs`).

use crate::error::{Error, Result};
use crate::filter::{Filter, FilterKind};
use crate::filters::avx2::{Avx2, Kernel, dispatch_with};
use crate::filters::batch;
use crate::filters::count::InsertCount;
use crate::filters::prefetch::prefetch;
pub use crate::filters::split_block::block_of;
use crate::hash::{HashId, ItemHasher, StrategyId, Xxh3};
use crate::theory::multiblock::{MAX_BLOCKS, Shape, fpr_multiblock};
use std::ops::{BitAnd, BitOr, BitOrAssign, Not};

/// The odd multipliers of the bits of 32-bit words: Parquet's eight
/// ([`crate::filters::split_block::SALT`]), then 24 from SplitMix64 seeded with `"multiblk"`
/// (`0x6d75_6c74_6962_6c6b`, the high half of each output, made odd).
pub const SALT32: [u32; 32] = [
    0x47b6_137b,
    0x4497_4d91,
    0x8824_ad5b,
    0xa2b7_289d,
    0x7054_95c7,
    0x2df1_424b,
    0x9efc_4947,
    0x5c6b_fb31,
    0x809f_01f9,
    0xcafe_0e43,
    0xac71_fcab,
    0x2ef6_ae4b,
    0x4e98_0067,
    0xa1be_3cc5,
    0xa3b1_a3ef,
    0xd788_419b,
    0xdc2b_48ef,
    0x1f9a_4ee7,
    0xe459_ba09,
    0xc4af_bf6b,
    0x5b63_5aff,
    0x4060_fb15,
    0xf87f_7ba5,
    0xf888_e8ad,
    0x0de9_b1ef,
    0xbf30_717b,
    0xa3ba_c2fd,
    0xdf91_2e9f,
    0xad7e_b72d,
    0x97a9_cefd,
    0xa675_9bf3,
    0xef81_e46b,
];

/// The odd multipliers of the bits of 64-bit words: the same SplitMix64 sequence, whole
/// outputs made odd.
pub const SALT64: [u64; 32] = [
    0x809f_01f9_045d_fe2d,
    0xcafe_0e43_d8e1_a293,
    0xac71_fcab_a550_fdef,
    0x2ef6_ae4a_2f9a_3a41,
    0x4e98_0066_0434_a9fb,
    0xa1be_3cc4_a9e3_c377,
    0xa3b1_a3ef_27fa_05d5,
    0xd788_419a_3501_a8d5,
    0xdc2b_48ef_3da4_a405,
    0x1f9a_4ee6_44f9_a49f,
    0xe459_ba08_08dd_526d,
    0xc4af_bf6b_f94e_069f,
    0x5b63_5aff_7850_79df,
    0x4060_fb15_7061_b03f,
    0xf87f_7ba5_bc13_c2df,
    0xf888_e8ac_b116_5ba1,
    0x0de9_b1ee_0b06_f57b,
    0xbf30_717a_f8ca_87f7,
    0xa3ba_c2fd_299b_24df,
    0xdf91_2e9f_ba95_1609,
    0xad7e_b72d_0f75_19cf,
    0x97a9_cefd_2331_176b,
    0xa675_9bf2_c6b4_7d1d,
    0xef81_e46a_2872_6a67,
    0x4de0_1d85_ed34_49f9,
    0x5e44_772f_f75b_66e5,
    0x3564_a44d_8cb8_21b1,
    0xce3d_0e09_6bc2_7b15,
    0x57eb_cb86_3f83_ce93,
    0x5dcb_b917_7fc7_2699,
    0xc704_87bd_b557_428f,
    0xa3db_c751_56d9_1ec5,
];

/// How many items the batch operations hash before they probe.
pub const BATCH: usize = 16;

/// A word of the filter: `u32` or `u64`.
pub trait Word:
    Copy
    + Default
    + Eq
    + std::fmt::Debug
    + BitOr<Output = Self>
    + BitAnd<Output = Self>
    + Not<Output = Self>
    + BitOrAssign
{
    /// Bits per word.
    const BITS: u32;
    /// The word with no bit set.
    const ZERO: Self;
    /// The one-bit mask of bit t (0..32) of an item whose hash has low half `key`.
    fn bit(key: u32, t: usize) -> Self;
    /// Set bits.
    fn ones(self) -> u32;
    /// Append the little-endian bytes.
    fn put(self, out: &mut Vec<u8>);
    /// Read from little-endian bytes (exactly `BITS / 8` of them).
    fn get(b: &[u8]) -> Self;
}

impl Word for u32 {
    const BITS: u32 = 32;
    const ZERO: Self = 0;
    #[inline(always)]
    fn bit(key: u32, t: usize) -> Self {
        1 << (key.wrapping_mul(SALT32[t]) >> 27)
    }
    fn ones(self) -> u32 {
        self.count_ones()
    }
    fn put(self, out: &mut Vec<u8>) {
        out.extend_from_slice(&self.to_le_bytes());
    }
    fn get(b: &[u8]) -> Self {
        u32::from_le_bytes([b[0], b[1], b[2], b[3]])
    }
}

impl Word for u64 {
    const BITS: u32 = 64;
    const ZERO: Self = 0;
    #[inline(always)]
    fn bit(key: u32, t: usize) -> Self {
        1 << (u64::from(key).wrapping_mul(SALT64[t]) >> 58)
    }
    fn ones(self) -> u32 {
        self.count_ones()
    }
    fn put(self, out: &mut Vec<u8>) {
        out.extend_from_slice(&self.to_le_bytes());
    }
    fn get(b: &[u8]) -> Self {
        let mut a = [0u8; 8];
        a.copy_from_slice(&b[..8]);
        u64::from_le_bytes(a)
    }
}

/// One 64-byte line of N words (16 of 32 bits or 8 of 64 bits), cache-line aligned.
#[repr(align(64))]
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Line<W, const N: usize>(pub [W; N]);

impl<W: Word, const N: usize> Default for Line<W, N> {
    fn default() -> Self {
        Self([W::ZERO; N])
    }
}

/// The lines of a filter, by word width.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Lines {
    /// 32-bit words, sixteen a line.
    W32(Vec<Line<u32, 16>>),
    /// 64-bit words, eight a line.
    W64(Vec<Line<u64, 8>>),
}

/// The multiblock filter: see the module docs and [`crate::theory::multiblock`].
///
/// ```
/// use bloomlab::Filter;
/// use bloomlab::filters::MultiblockBloom;
/// use bloomlab::theory::multiblock::Shape;
/// let shape = Shape::new(64, 8, None).unwrap();                    // multiblock<uint64_t,8>
/// let mut f = MultiblockBloom::with_rate(shape, 100_000, 0.01).unwrap();
/// for i in 0u64..100_000 { f.insert(&i.to_le_bytes()); }
/// assert!((0u64..100_000).all(|i| f.contains(&i.to_le_bytes())));
/// assert!(f.expected_fpr() <= 0.01 && f.k() == 8);
/// ```
#[derive(Debug, Clone)]
pub struct MultiblockBloom<H = Xxh3> {
    lines: Lines,
    blocks: u64,
    shape: Shape,
    len: InsertCount,
    hasher: H,
    /// Whether this CPU has AVX2 (tested once, when the filter is made).
    cpu: Option<Avx2>,
}

impl MultiblockBloom<Xxh3> {
    /// A filter of `shape` for `n` items at rate `p` under the model, hashing with XXH3.
    ///
    /// # Errors
    /// Invalid `n` or `p`; [`Error::Allocation`].
    pub fn with_rate(shape: Shape, n: u64, p: f64) -> Result<Self> {
        Self::with_blocks_and(
            shape,
            crate::theory::multiblock::blocks_for(shape, n, p)?,
            Xxh3::default(),
        )
    }
}

impl<H: ItemHasher> MultiblockBloom<H> {
    /// A filter of `blocks` blocks of `shape` (1 ..= 2³²).
    ///
    /// # Errors
    /// [`Error::InvalidParameter`] naming m for 0 or more than 2³² blocks; [`Error::Allocation`].
    pub fn with_blocks_and(shape: Shape, blocks: u64, hasher: H) -> Result<Self> {
        if blocks == 0 || blocks > MAX_BLOCKS {
            return Err(Error::invalid(
                crate::error::Param::M,
                blocks.saturating_mul(shape.block_bits()),
                format!(
                    "from {} bits (one block) to 2^32 blocks of {}",
                    shape.block_bits(),
                    shape.block_bits()
                ),
            ));
        }
        let words = blocks * u64::from(shape.words);
        let lines = match shape.word_bits {
            32 => Lines::W32(crate::bits::try_zeroed(line_count(words, 16)?)?),
            _ => Lines::W64(crate::bits::try_zeroed(line_count(words, 8)?)?),
        };
        Ok(Self::new_from(shape, blocks, lines, 0, hasher))
    }

    fn new_from(shape: Shape, blocks: u64, lines: Lines, len: u64, hasher: H) -> Self {
        Self {
            lines,
            blocks,
            shape,
            len: InsertCount::new(len),
            hasher,
            cpu: Avx2::detect(),
        }
    }

    /// Rebuild from saved words (see [`crate::persist`]): `blocks·K` words of the shape's width,
    /// as [`MultiblockBloom::words_le`] wrote them.
    ///
    /// # Errors
    /// [`Error::Corrupt`] for 0 or more than 2³² blocks or a length that is not `blocks·K`
    /// words; [`Error::Allocation`].
    pub fn from_words_le(
        shape: Shape,
        blocks: u64,
        len: u64,
        bytes: &[u8],
        hasher: H,
    ) -> Result<Self> {
        let wb = (shape.word_bits / 8) as usize;
        if blocks == 0 || blocks > MAX_BLOCKS {
            return Err(Error::Corrupt(format!(
                "multiblock filter has {blocks} blocks, outside 1..=2^32"
            )));
        }
        let words = blocks * u64::from(shape.words);
        if Some(bytes.len() as u64) != words.checked_mul(wb as u64) {
            return Err(Error::Corrupt(format!(
                "multiblock filter payload is {} bytes, but {blocks} blocks of {} {}-bit words need {}",
                bytes.len(),
                shape.words,
                shape.word_bits,
                words.saturating_mul(wb as u64)
            )));
        }
        let mut f = Self::with_blocks_and(shape, blocks, hasher)?;
        match &mut f.lines {
            Lines::W32(l) => fill(l, bytes),
            Lines::W64(l) => fill(l, bytes),
        }
        f.len = InsertCount::new(len);
        Ok(f)
    }

    /// Rebuild from saved lines (see [`crate::persist`]): as many as `blocks·K` words need,
    /// the words past them zero.
    ///
    /// # Errors
    /// [`Error::Corrupt`] for 0 or more than 2³² blocks, lines of the other width or another
    /// count, or a bit set past the last block.
    pub fn from_parts(
        shape: Shape,
        blocks: u64,
        lines: Lines,
        len: u64,
        hasher: H,
    ) -> Result<Self> {
        if blocks == 0 || blocks > MAX_BLOCKS {
            return Err(Error::Corrupt(format!(
                "multiblock filter has {blocks} blocks, outside 1..=2^32"
            )));
        }
        let words = blocks * u64::from(shape.words);
        let ok = match (&lines, shape.word_bits) {
            (Lines::W32(l), 32) => tail_ok(l, words),
            (Lines::W64(l), 64) => tail_ok(l, words),
            _ => false,
        };
        if !ok {
            return Err(Error::Corrupt(format!(
                "multiblock filter's words do not match {blocks} blocks of {} {}-bit words",
                shape.words, shape.word_bits
            )));
        }
        Ok(Self::new_from(shape, blocks, lines, len, hasher))
    }

    /// The words in order, little-endian (`blocks·K·w/8` bytes): the file payload.
    #[must_use]
    pub fn words_le(&self) -> Vec<u8> {
        let words = (self.blocks * u64::from(self.shape.words)) as usize;
        let mut out = Vec::with_capacity(words * (self.shape.word_bits / 8) as usize);
        match &self.lines {
            Lines::W32(l) => l
                .iter()
                .flat_map(|x| x.0)
                .take(words)
                .for_each(|w| w.put(&mut out)),
            Lines::W64(l) => l
                .iter()
                .flat_map(|x| x.0)
                .take(words)
                .for_each(|w| w.put(&mut out)),
        }
        out
    }

    /// The shape.
    #[must_use]
    pub fn shape(&self) -> Shape {
        self.shape
    }

    /// The hash function.
    #[must_use]
    pub fn hasher(&self) -> &H {
        &self.hasher
    }

    /// Number of blocks.
    #[must_use]
    pub fn blocks(&self) -> u64 {
        self.blocks
    }

    /// The lines (for tests and the split-block comparison).
    #[must_use]
    pub fn lines(&self) -> &Lines {
        &self.lines
    }

    /// Number of bits set.
    #[must_use]
    pub fn ones(&self) -> u64 {
        match &self.lines {
            Lines::W32(l) => l
                .iter()
                .flat_map(|x| x.0)
                .map(|w| u64::from(w.ones()))
                .sum(),
            Lines::W64(l) => l
                .iter()
                .flat_map(|x| x.0)
                .map(|w| u64::from(w.ones()))
                .sum(),
        }
    }

    /// Insert by 64-bit hash.
    #[inline]
    pub fn insert_hash(&mut self, h: u64) {
        let b = block_of(h, self.blocks);
        let shape = self.shape;
        dispatch_with(
            self.cpu,
            Insert {
                lines: &mut self.lines,
                shape,
                block: b,
                key: h as u32,
            },
        );
    }

    /// Query by 64-bit hash.
    #[inline]
    #[must_use]
    pub fn contains_hash(&self, h: u64) -> bool {
        dispatch_with(
            self.cpu,
            Probe {
                f: self,
                block: block_of(h, self.blocks),
                key: h as u32,
            },
        )
    }

    /// [`Filter::contains`] on the portable path even where the CPU has AVX2 (the benchmarks
    /// that measure what AVX2 gains).
    #[doc(hidden)]
    #[must_use]
    pub fn portable_contains(&self, item: &[u8]) -> bool {
        let h = self.hasher.hash64(item);
        Probe {
            f: self,
            block: block_of(h, self.blocks),
            key: h as u32,
        }
        .run()
    }

    /// Insert every item of `items`: a chunk of [`BATCH`] items is hashed first, then written.
    pub fn insert_batch(&mut self, items: &[&[u8]]) {
        dispatch_with(self.cpu, InsertBatch { f: self, items });
    }

    #[inline(always)]
    fn probe(&self, block: u64, key: u32) -> bool {
        match &self.lines {
            Lines::W32(l) => has(l, self.shape, block, key),
            Lines::W64(l) => has(l, self.shape, block, key),
        }
    }
}

/// Lines for `words` words at `n` a line, checked against the address space.
fn line_count(words: u64, n: u64) -> Result<usize> {
    usize::try_from(words.div_ceil(n)).map_err(|_| Error::Allocation {
        bytes: u128::from(words) * 8,
    })
}

/// Whether `lines` is exactly the lines `words` words need, with nothing set past them.
fn tail_ok<W: Word, const N: usize>(lines: &[Line<W, N>], words: u64) -> bool {
    let n = N as u64;
    lines.len() as u64 == words.div_ceil(n)
        && lines.last().is_none_or(|l| {
            words.is_multiple_of(n) || l.0[(words % n) as usize..].iter().all(|&w| w == W::ZERO)
        })
}

/// Copy little-endian words into lines.
fn fill<W: Word, const N: usize>(lines: &mut [Line<W, N>], bytes: &[u8]) {
    let wb = (W::BITS / 8) as usize;
    for (j, c) in bytes.chunks_exact(wb).enumerate() {
        lines[j / N].0[j % N] = W::get(c);
    }
}

/// The mask of word i of an item: its b bits in that word.
#[inline(always)]
fn word_mask<W: Word>(key: u32, i: usize, b: usize) -> W {
    let mut m = W::ZERO;
    for j in 0..b {
        m |= W::bit(key, i * b + j);
    }
    m
}

/// Whether the item of `key` in block `block` may be present: the fixed path for blocks of 4,
/// 8 or 16 words in one line with one bit per word, else the general loop.
#[inline(always)]
fn has<W: Word, const N: usize>(lines: &[Line<W, N>], s: Shape, block: u64, key: u32) -> bool {
    match (s.words, s.bits_per_word) {
        (4, 1) if N >= 4 => has_fixed::<W, N, 4>(lines, block, key),
        (8, 1) if N >= 8 => has_fixed::<W, N, 8>(lines, block, key),
        (16, 1) if N >= 16 => has_fixed::<W, N, 16>(lines, block, key),
        _ => has_any(lines, s, block, key),
    }
}

/// The K words of `block` when K divides the line (so the block lies in one line).
#[inline(always)]
fn block_words<W: Word, const N: usize, const K: usize>(l: &[Line<W, N>], block: u64) -> &[W; K] {
    let per = (N / K) as u64;
    let (chunks, _) = l[(block / per) as usize].0.as_chunks::<K>();
    &chunks[(block % per) as usize]
}

#[inline(always)]
fn has_fixed<W: Word, const N: usize, const K: usize>(
    lines: &[Line<W, N>],
    block: u64,
    key: u32,
) -> bool {
    let words = block_words::<W, N, K>(lines, block);
    let mut acc = W::ZERO;
    for (i, w) in words.iter().enumerate() {
        acc |= W::bit(key, i) & !*w;
    }
    acc == W::ZERO
}

#[inline(always)]
fn has_any<W: Word, const N: usize>(lines: &[Line<W, N>], s: Shape, block: u64, key: u32) -> bool {
    let (kw, b) = (s.words as usize, s.bits_per_word as usize);
    let first = block as usize * kw;
    let mut acc = W::ZERO;
    for i in 0..kw {
        let j = first + i;
        let m = word_mask::<W>(key, i, b);
        acc |= m & !lines[j / N].0[j % N];
    }
    acc == W::ZERO
}

#[inline(always)]
fn set<W: Word, const N: usize>(lines: &mut [Line<W, N>], s: Shape, block: u64, key: u32) {
    let (kw, b) = (s.words as usize, s.bits_per_word as usize);
    if b == 1 && kw == 8 && N >= 8 {
        let per = (N / 8) as u64;
        let (chunks, _) = lines[(block / per) as usize].0.as_chunks_mut::<8>();
        for (i, w) in chunks[(block % per) as usize].iter_mut().enumerate() {
            *w |= W::bit(key, i);
        }
        return;
    }
    let first = block as usize * kw;
    for i in 0..kw {
        let j = first + i;
        lines[j / N].0[j % N] |= word_mask::<W>(key, i, b);
    }
}

impl<H: ItemHasher> Filter for MultiblockBloom<H> {
    #[inline]
    fn try_insert(&mut self, item: &[u8]) -> Result<()> {
        self.insert(item);
        Ok(())
    }
    #[inline]
    fn insert(&mut self, item: &[u8]) {
        self.len.inc();
        let h = self.hasher.hash64(item);
        self.insert_hash(h);
    }
    #[inline]
    fn contains(&self, item: &[u8]) -> bool {
        self.contains_hash(self.hasher.hash64(item))
    }
    /// Hash a chunk of [`BATCH`] items and find their blocks first, then probe them.
    fn contains_batch(&self, items: &[&[u8]], out: &mut [bool]) {
        dispatch_with(
            self.cpu,
            ContainsBatch {
                f: self,
                items,
                out,
            },
        );
    }
    fn len(&self) -> u64 {
        self.len.get()
    }
    fn bits(&self) -> u64 {
        self.blocks * self.shape.block_bits()
    }
    fn bytes(&self) -> usize {
        match &self.lines {
            Lines::W32(l) => l.capacity() * 64,
            Lines::W64(l) => l.capacity() * 64,
        }
    }
    fn k(&self) -> u32 {
        self.shape.k()
    }
    /// [`crate::theory::multiblock::fpr_multiblock`].
    fn expected_fpr(&self) -> f64 {
        fpr_multiblock(self.shape, self.bits(), self.len.get())
    }
    fn kind(&self) -> FilterKind {
        FilterKind::Multiblock
    }
    fn hash_id(&self) -> HashId {
        self.hasher.id()
    }
    fn strategy_id(&self) -> Option<StrategyId> {
        None
    }
    fn details(&self) -> Vec<(String, String)> {
        let mut d = shape_details(self.shape, self.blocks, self.len.get());
        d.push((
            "fill".into(),
            format!("{:.4}", self.ones() as f64 / self.bits() as f64),
        ));
        d
    }
}

/// The labelled facts of a multiblock layout holding n items (the filter's and the plan's).
#[must_use]
pub fn shape_details(s: Shape, blocks: u64, n: u64) -> Vec<(String, String)> {
    let path = if s.bits_per_word == 1 && [4, 8, 16].contains(&s.words) {
        "fixed K"
    } else {
        "loop over K"
    };
    let simd = if crate::filters::avx2::avx2_available() {
        "avx2 (detected at run time)"
    } else {
        "portable"
    };
    vec![
        (
            "shape (word bits, words K, bits per word b)".into(),
            format!("({}, {}, {})", s.word_bits, s.words, s.bits_per_word),
        ),
        ("Boost.Bloom equivalent".into(), s.boost_name()),
        ("blocks".into(), blocks.to_string()),
        ("block bits".into(), s.block_bits().to_string()),
        (
            "items per block (mean)".into(),
            format!("{:.2}", n as f64 / blocks.max(1) as f64),
        ),
        ("hot path".into(), format!("{path}, {simd}")),
    ]
}

/// The halves of the batch operations (`filters/batch.rs`).
impl<H: ItemHasher> batch::Staged for MultiblockBloom<H> {
    type Step = (u64, u32);
    #[inline(always)]
    fn stage(&self, item: &[u8], warm: bool) -> (u64, u32) {
        let h = self.hasher.hash64(item);
        let b = block_of(h, self.blocks);
        if warm {
            let j = (b * u64::from(self.shape.words)) as usize;
            match &self.lines {
                Lines::W32(l) => prefetch(&l[j / 16]),
                Lines::W64(l) => prefetch(&l[j / 8]),
            }
        }
        (b, h as u32)
    }
    #[inline(always)]
    fn probe_step(&self, (b, key): (u64, u32)) -> bool {
        self.probe(b, key)
    }
    #[inline(always)]
    fn store_step(&mut self, (b, key): (u64, u32)) -> bool {
        let shape = self.shape;
        match &mut self.lines {
            Lines::W32(l) => set(l, shape, b, key),
            Lines::W64(l) => set(l, shape, b, key),
        }
        true
    }
}

// ---- the kernels `dispatch_with` runs ----

struct Probe<'a, H> {
    f: &'a MultiblockBloom<H>,
    block: u64,
    key: u32,
}
impl<H: ItemHasher> Kernel for Probe<'_, H> {
    type Out = bool;
    #[inline(always)]
    fn run(self) -> bool {
        self.f.probe(self.block, self.key)
    }
}

struct Insert<'a> {
    lines: &'a mut Lines,
    shape: Shape,
    block: u64,
    key: u32,
}
impl Kernel for Insert<'_> {
    type Out = ();
    #[inline(always)]
    fn run(self) {
        match self.lines {
            Lines::W32(l) => set(l, self.shape, self.block, self.key),
            Lines::W64(l) => set(l, self.shape, self.block, self.key),
        }
    }
}

struct InsertBatch<'a, 'b, H> {
    f: &'a mut MultiblockBloom<H>,
    items: &'a [&'b [u8]],
}
impl<H: ItemHasher> Kernel for InsertBatch<'_, '_, H> {
    type Out = ();
    #[inline(always)]
    fn run(self) {
        let warm = batch::prefetch_pays(self.f.bytes());
        batch::insert::<_, BATCH>(self.f, self.items, warm);
        self.f.len.add(self.items.len() as u64);
    }
}

struct ContainsBatch<'a, 'b, H> {
    f: &'a MultiblockBloom<H>,
    items: &'a [&'b [u8]],
    out: &'a mut [bool],
}
impl<H: ItemHasher> Kernel for ContainsBatch<'_, '_, H> {
    type Out = ();
    #[inline(always)]
    fn run(self) {
        let warm = batch::prefetch_pays(self.f.bytes());
        batch::contains::<_, BATCH>(self.f, self.items, self.out, warm);
    }
}

#[cfg(test)]
mod tests;
