//! Apache Parquet's split block Bloom filter (parquet-format `BloomFilter.md`).
//!
//! **Hot paths.** One 64-bit hash per item ([`ItemHasher::hash64`]); the block from its high 32
//! bits by multiply-shift, the eight in-block bits from its low 32 bits by the eight salted
//! multiply-shift lanes ([`mask`]). The insert ORs the mask into the block; the query tests
//! `mask & !block == 0` over the eight words without a branch (an early-exit `.all()` costs a
//! mispredicted branch on most misses: 23 ns against 12 ns per hit, measured at n = 10⁶ before
//! this layout). Written once in safe Rust and run through [`crate::filters::avx2::dispatch_with`],
//! which compiles the same code with AVX2 when the CPU has it (the eight lanes become one
//! `vpmulld`/`vpsllvd`/`vptest` sequence, what sbbf-rs writes by hand) and keeps the portable
//! code otherwise. The module doc of `avx2.rs` says why this is one hand-written `unsafe` call
//! rather than the `multiversion` crate.
//!
//! **Batches.** [`SplitBlockBloom::contains_batch`](Filter::contains_batch) and
//! [`SplitBlockBloom::insert_batch`] hash a chunk of [`BATCH`] items and compute their block
//! indices first, prefetching each block (a chunk ahead, in a table larger than the caches:
//! `filters/batch.rs`), then probe: the chunk's cache
//! misses overlap, so a filter in DRAM has many in flight instead of one per hash computation
//! (why a prefetch and not just the independent loads: `filters/prefetch.rs`).

use crate::error::{Error, Param, Result};
use crate::filter::{Filter, FilterKind};
use crate::filters::avx2::{Avx2, Kernel, dispatch_with};
use crate::filters::batch;
use crate::filters::count::InsertCount;
use crate::filters::prefetch::prefetch;
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

/// How many items the batch operations hash before they probe.
pub const BATCH: usize = 16;

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
#[inline(always)]
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
/// With another hash (its [`ItemHasher::hash64`] is used as h) it is the same algorithm but not
/// file-compatible. (Files saved before layout 1 of the split-block params took
/// `hasher.hash128(item).lo`, which differs from `hash64` for xxh3 and SipHash; such a filter
/// keeps using it, see [`SplitBlockBloom::legacy_hash128`].) The FPR model is [`theory::split_block::fpr_split_block`] (Putze et al.'s
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
    len: InsertCount,
    hasher: H,
    parquet_hash: bool,
    /// Hash with `hash128(item).lo` instead of `hash64(item)` (files written before the
    /// 64-bit layout; the same value for every hash but xxh3, sip13 and sip24).
    legacy_hash128: bool,
    /// Whether this CPU has AVX2 (tested once, when the filter is made).
    cpu: Option<Avx2>,
    /// The one byte `insert` and `contains` test: `Some` when they may hash with `hash64` and run
    /// the AVX2 kernel with no further test (`cpu` is `Some` and `legacy_hash128` is false; on
    /// other architectures whenever `legacy_hash128` is false), else `None`, and they call the
    /// out-of-line path that tests both. Set with them, in [`SplitBlockBloom::new_from`] and
    /// [`SplitBlockBloom::with_legacy_hash128`].
    fast: Option<Avx2>,
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
        Ok(Self::new_from(v, 0, hasher))
    }

    /// Whether `hasher` hashes as Parquet's split block filters do (xxh64, seed 0): then a
    /// filter's bits are Parquet's.
    #[must_use]
    pub fn parquet_hasher(hasher: &H) -> bool {
        hasher.id() == HashId::Xxh64 && hasher.hash128(b"").lo == XXH64_EMPTY_SEED0
    }

    /// The filter of these parts, hashing with `hash64` (the blocks are 1 ..= 2³²).
    fn new_from(blocks: Vec<SbBlock>, len: u64, hasher: H) -> Self {
        let parquet_hash = Self::parquet_hasher(&hasher);
        Self {
            blocks,
            len: InsertCount::new(len),
            hasher,
            parquet_hash,
            legacy_hash128: false,
            cpu: Avx2::detect(),
            fast: Avx2::hot(),
        }
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
        Ok(Self::new_from(blocks, len, hasher))
    }

    /// Hash items as files written before the 64-bit layout did (`hash128(item).lo`): what the
    /// codec sets for such a file, so that it answers as it did. Only xxh3, sip13 and sip24
    /// differ; for the others `hash64` is `hash128().lo`.
    #[must_use]
    pub fn with_legacy_hash128(mut self, legacy: bool) -> Self {
        self.legacy_hash128 = legacy;
        self.fast = if legacy { None } else { Avx2::hot() };
        self
    }

    /// Whether items are hashed as before the 64-bit layout (see
    /// [`SplitBlockBloom::with_legacy_hash128`]).
    #[must_use]
    pub fn legacy_hash128(&self) -> bool {
        self.legacy_hash128
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

    /// The 64-bit hash of `item` (XXH64 seed 0 by default): [`ItemHasher::hash64`].
    #[inline(always)]
    #[must_use]
    pub fn hash(&self, item: &[u8]) -> u64 {
        if self.legacy_hash128 {
            self.hasher.hash128(item).lo
        } else {
            self.hasher.hash64(item)
        }
    }

    /// The block a 64-bit hash selects: `((h >> 32) · z) >> 32`.
    #[inline(always)]
    #[must_use]
    pub fn block_index(&self, h: u64) -> usize {
        block_of(h, self.blocks.len() as u64) as usize
    }

    /// Insert by hash (as the spec's `insertHash`).
    #[inline]
    pub fn insert_hash(&mut self, h: u64) {
        dispatch_with(self.cpu, self.insert_kernel(h));
    }

    /// Query by hash (as the spec's `findHash`).
    #[inline]
    #[must_use]
    pub fn contains_hash(&self, h: u64) -> bool {
        dispatch_with(self.cpu, ContainsHash { f: self, h })
    }

    /// [`Filter::insert`] for a legacy file or a CPU without AVX2 (out of line, see `insert`).
    #[inline(never)]
    fn insert_slow(&mut self, item: &[u8]) {
        let h = self.hash(item);
        dispatch_with(self.cpu, self.insert_kernel(h));
    }

    /// [`Filter::contains`] for a legacy file or a CPU without AVX2 (out of line).
    #[inline(never)]
    fn contains_slow(&self, item: &[u8]) -> bool {
        dispatch_with(
            self.cpu,
            ContainsHash {
                f: self,
                h: self.hash(item),
            },
        )
    }

    /// Insert every item of `items`: a chunk of [`BATCH`] items is hashed first, then its blocks
    /// are written.
    pub fn insert_batch(&mut self, items: &[&[u8]]) {
        dispatch_with(self.cpu, InsertBatch { f: self, items });
    }

    // The portable hot paths: `#[inline(always)]`, so that `avx2::run_avx2` compiles them with
    // AVX2 (see the module doc).

    #[inline(always)]
    fn insert_hash_portable(&mut self, h: u64) {
        self.insert_kernel(h).run();
    }

    /// The insert of hash `h` as a kernel (its block found here, in the caller).
    #[inline(always)]
    fn insert_kernel(&mut self, h: u64) -> InsertHash<'_> {
        let i = self.block_index(h);
        debug_assert!(i < self.blocks.len());
        // SAFETY: see `contains_hash_portable`: `block_index` is below `blocks.len()`.
        #[allow(unsafe_code)]
        let block = unsafe { self.blocks.get_unchecked_mut(i) };
        InsertHash {
            block,
            key: h as u32,
        }
    }

    #[inline(always)]
    fn contains_hash_portable(&self, h: u64) -> bool {
        let i = self.block_index(h);
        debug_assert!(i < self.blocks.len());
        // SAFETY: `block_index` is `((h >> 32) · z) >> 32` with z = `blocks.len()`, and every
        // constructor (`new_from`, behind `with_blocks_and` and `from_parts`) makes z at least 1
        // (and at most 2^32; the vector never changes length after). With a = h >> 32 < 2^32:
        // if a·z fits in 64 bits, (a·z) >> 32 < (2^32·z) >> 32 = z; if it wraps (z > 2^32, which
        // the constructors refuse anyway) the result is below 2^32 < z. So i < z. The bounds
        // check it replaces is 2 of the 52 instructions of an in-cache insert or query (the CI
        // gate's `lab_split_block_xxh3`, the same as sbbf-rs's hand-written AVX2 kernel's 52).
        #[allow(unsafe_code)]
        let block = unsafe { self.blocks.get_unchecked(i) };
        block_has(block, h as u32)
    }

    #[inline(always)]
    fn insert_batch_portable(&mut self, items: &[&[u8]]) {
        let warm = batch::prefetch_pays(self.bytes());
        batch::insert::<_, BATCH>(self, items, warm);
        self.len.add(items.len() as u64);
    }

    #[inline(always)]
    fn contains_batch_portable(&self, items: &[&[u8]], out: &mut [bool]) {
        batch::contains::<_, BATCH>(self, items, out, batch::prefetch_pays(self.bytes()));
    }

    /// [`Filter::contains`] on the portable path even where the CPU has AVX2: for the benchmarks
    /// that measure what the AVX2 kernel gains (benches/gate.rs, benches/common/subjects.rs).
    #[doc(hidden)]
    #[inline]
    #[must_use]
    pub fn portable_contains(&self, item: &[u8]) -> bool {
        self.contains_hash_portable(self.hash(item))
    }

    /// [`Filter::insert`] on the portable path (see [`SplitBlockBloom::portable_contains`]).
    #[doc(hidden)]
    #[inline]
    pub fn portable_insert(&mut self, item: &[u8]) {
        self.len.inc();
        let h = self.hash(item);
        self.insert_hash_portable(h);
    }

    /// [`Filter::contains_batch`] on the portable path (see
    /// [`SplitBlockBloom::portable_contains`]).
    #[doc(hidden)]
    pub fn portable_contains_batch(&self, items: &[&[u8]], out: &mut [bool]) {
        self.contains_batch_portable(items, out);
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
    // One test of one byte (`fast`) chooses the path: the hash is computed here, in the caller's
    // code (where it inlines, and a known key length folds), and only the block work runs in the
    // AVX2 function, a tail call (the hash call did not inline into it: callgrind, 32
    // instructions per 8-byte key against 23 inline). Legacy files and CPUs without AVX2 take
    // the out-of-line path, which tests `legacy_hash128` and `cpu` (gate, per operation: 5
    // instructions for the two tests in line, 2 for this one).
    #[inline]
    fn insert(&mut self, item: &[u8]) {
        // Before the kernel, so that the kernel is a tail call (nothing is left after it).
        // One `inc` against five instructions for `saturating_add` (callgrind, gate); the count
        // saturates when read ([`InsertCount`]), so a loaded count of u64::MAX stays there.
        self.len.inc();
        match self.fast {
            Some(cpu) => {
                let h = self.hasher.hash64(item);
                dispatch_with(Some(cpu), self.insert_kernel(h));
            }
            None => with_local_copy(item, |item| self.insert_slow(item)),
        }
    }
    #[inline]
    fn contains(&self, item: &[u8]) -> bool {
        match self.fast {
            Some(cpu) => dispatch_with(
                Some(cpu),
                ContainsHash {
                    f: self,
                    h: self.hasher.hash64(item),
                },
            ),
            None => with_local_copy(item, |item| self.contains_slow(item)),
        }
    }
    /// Hash a chunk of [`BATCH`] items and find their blocks first, then probe them (see the
    /// module doc).
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
        theory::split_block::fpr_split_block(self.bits(), self.len.get())
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
                format!("{:.2}", self.len.get() as f64 / self.blocks.len() as f64),
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
                "hot path".into(),
                if crate::filters::avx2::avx2_available() {
                    "avx2 (detected at run time)"
                } else {
                    "portable"
                }
                .into(),
            ),
            (
                "classic fpr at same m, k=8 (standard filter)".into(),
                format!(
                    "{:.6}",
                    theory::fpr_classic(self.bits(), self.len.get(), WORDS)
                ),
            ),
        ]
    }
}

/// `f(item)`, with an 8-byte `item` first copied into this frame: the out-of-line arm of
/// `insert` and `contains` calls it. A caller whose key is a register (`&k.to_le_bytes()`) must
/// otherwise store the key in its frame before the `fast` test, which keeps a frame on the AVX2
/// path too (push, store, pop: 3 instructions per operation, gate); with the copy, the compiler
/// forwards the key and makes the frame in the out-of-line arm only. Other lengths are passed
/// as they are (for a length known at compile time the test folds).
#[inline(always)]
fn with_local_copy<R>(item: &[u8], f: impl FnOnce(&[u8]) -> R) -> R {
    match <[u8; 8]>::try_from(item) {
        Ok(copy) => f(&copy),
        Err(_) => f(item),
    }
}

// ---- the kernels [`dispatch`] runs (each `run` inlines a portable hot path) ----

/// The insert kernel: set the mask of `key` (a hash's low 32 bits) in `block`.
///
/// It takes the one block, not the filter: the kernel call then cannot see the filter's
/// `len`, so the compiler need not store `len` before every call, and the two words travel in
/// registers. The store cost 7% of an insert into a filter in DRAM (n = 10^8: 27.4 against
/// 25.6 ns per key without it, `experiments/programs/batch_probe.rs`; sbbf-rs-safe, which
/// counts nothing, 24.1–24.9); passing the block slice and the hash instead (three words, so
/// through the stack) cost 8 instructions an insert (`benches/gate.rs`).
/// Whether every bit of `key`'s mask is set in `block`: branch-free over the eight words.
#[inline(always)]
fn block_has(block: &SbBlock, key: u32) -> bool {
    block
        .0
        .iter()
        .zip(mask(key))
        .fold(0, |a, (w, x)| a | (x & !w))
        == 0
}

/// The halves of the batch operations (`filters/batch.rs`).
impl<H: ItemHasher> batch::Staged for SplitBlockBloom<H> {
    type Step = (usize, u32);
    /// The first half of a batch operation for one item: its block index and 32-bit key, and
    /// (when `warm`) the block prefetched (`filters/batch.rs`).
    #[inline(always)]
    fn stage(&self, item: &[u8], warm: bool) -> (usize, u32) {
        let h = self.hash(item);
        let p = (self.block_index(h), h as u32);
        if warm {
            prefetch(&self.blocks[p.0]);
        }
        p
    }
    #[inline(always)]
    fn probe_step(&self, (b, key): (usize, u32)) -> bool {
        block_has(&self.blocks[b], key)
    }
    #[inline(always)]
    fn store_step(&mut self, (b, key): (usize, u32)) -> bool {
        InsertHash {
            block: &mut self.blocks[b],
            key,
        }
        .run();
        true
    }
}

struct InsertHash<'a> {
    block: &'a mut SbBlock,
    key: u32,
}
impl Kernel for InsertHash<'_> {
    type Out = ();
    #[inline(always)]
    fn run(self) {
        for (w, x) in self.block.0.iter_mut().zip(mask(self.key)) {
            *w |= x;
        }
    }
}

struct ContainsHash<'a, H> {
    f: &'a SplitBlockBloom<H>,
    h: u64,
}
impl<H: ItemHasher> Kernel for ContainsHash<'_, H> {
    type Out = bool;
    #[inline(always)]
    fn run(self) -> bool {
        self.f.contains_hash_portable(self.h)
    }
}

struct InsertBatch<'a, 'b, H> {
    f: &'a mut SplitBlockBloom<H>,
    items: &'a [&'b [u8]],
}
impl<H: ItemHasher> Kernel for InsertBatch<'_, '_, H> {
    type Out = ();
    #[inline(always)]
    fn run(self) {
        self.f.insert_batch_portable(self.items);
    }
}

struct ContainsBatch<'a, 'b, H> {
    f: &'a SplitBlockBloom<H>,
    items: &'a [&'b [u8]],
    out: &'a mut [bool],
}
impl<H: ItemHasher> Kernel for ContainsBatch<'_, '_, H> {
    type Out = ();
    #[inline(always)]
    fn run(self) {
        self.f.contains_batch_portable(self.items, self.out);
    }
}

/// The block of `blocks` (at most 2^32) a 64-bit hash selects: `((h >> 32) · blocks) >> 32`,
/// as the Parquet spec's `insertHash`; what [`SplitBlockBloom::block_index`] and the
/// reachability audit ([`crate::reach`]) use.
#[inline(always)]
#[must_use]
pub fn block_of(h: u64, blocks: u64) -> u64 {
    ((h >> 32) * blocks) >> 32
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::filters::avx2::dispatch;
    use crate::hash::Xxh3;

    /// The unchecked block access rests on `block_index(h) < blocks` for every hash: checked at
    /// the extremes of h (the top half all ones is the largest index) and for block counts from
    /// one to a large odd one, and a one-block filter takes inserts and queries of any hash.
    #[test]
    fn block_index_is_below_the_block_count_for_every_hash() {
        for z in [1u64, 2, 3, 1000, 3_907, (1 << 20) + 7] {
            let f = SplitBlockBloom::with_blocks_and(z, Xxh3::default()).unwrap();
            for h in [
                0,
                u64::MAX,
                0xffff_ffff_0000_0000,
                0x0000_0000_ffff_ffff,
                1 << 63,
            ] {
                assert!((f.block_index(h) as u64) < z, "z {z} h {h:#x}");
            }
            assert_eq!(f.block_index(u64::MAX) as u64, z - 1);
        }
        let mut one = SplitBlockBloom::with_blocks_and(1, Xxh3::default()).unwrap();
        for h in [0, u64::MAX, 12_345] {
            one.insert_hash(h);
            assert!(one.contains_hash(h));
        }
    }

    #[test]
    fn a_count_of_u64_max_stays_there() {
        // Found in review: a wrapping count turned a loaded u64::MAX into 0 on the next insert.
        let f = SplitBlockBloom::with_rate_and(100, 0.01, Xxh3::default()).unwrap();
        let mut g =
            SplitBlockBloom::from_parts(f.blocks.clone(), u64::MAX, Xxh3::default()).unwrap();
        g.insert(b"x");
        g.insert_batch(&[b"y".as_slice(), b"z".as_slice()]);
        assert_eq!(g.len(), u64::MAX);
        let mut h = SplitBlockBloom::from_parts(f.blocks, 5, Xxh3::default()).unwrap();
        h.insert(b"x");
        assert_eq!(h.len(), 6);
    }

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

    fn filled(n: u64, portable: bool) -> SplitBlockBloom<Xxh3> {
        let mut f = SplitBlockBloom::with_rate_and(n, 0.01, Xxh3::default()).unwrap();
        for i in 0..n {
            let h = f.hash(&(i * 3).to_le_bytes());
            if portable {
                f.insert_kernel(h).run();
            } else {
                dispatch(f.insert_kernel(h));
            }
        }
        f
    }

    /// The AVX2 path (taken by `dispatch` on a CPU with AVX2) and the portable path set the same
    /// bits and answer the same: insert with one, compare the raw words, query with the other.
    #[test]
    fn avx2_and_portable_paths_set_the_same_bits() {
        if !crate::filters::avx2::avx2_available() {
            eprintln!("no AVX2 on this CPU: both paths are the portable one");
        }
        let (a, p) = (filled(3_000, false), filled(3_000, true));
        assert_eq!(a.block_slice(), p.block_slice(), "raw words differ");
        assert!(a.ones() > 0);
        for i in 0u64..9_000 {
            let item = i.to_le_bytes();
            let h = p.hash(&item);
            let on_p_by_avx2 = dispatch(ContainsHash { f: &p, h });
            let on_a_portable = ContainsHash { f: &a, h }.run();
            assert_eq!(on_p_by_avx2, on_a_portable, "item {i}");
            assert_eq!(on_p_by_avx2, p.contains_hash_portable(p.hash(&item)));
        }
    }

    /// The benchmarks' portable entry points (`portable_insert`, `portable_contains`,
    /// `portable_contains_batch`) set and answer what the filter's own (AVX2 where available)
    /// operations do.
    #[test]
    fn portable_entry_points_match_the_dispatched_ones() {
        let keys: Vec<[u8; 8]> = (0u64..3_000).map(|i| (i * 5).to_le_bytes()).collect();
        let items: Vec<&[u8]> = keys.iter().map(|k| &k[..]).collect();
        // Sized for 1,000 keys (cached) and for 2·10^6 (2.4 MB: the pipelined batch path).
        for n in [1_000, 2_000_000] {
            let mut d = SplitBlockBloom::with_rate_and(n, 0.01, Xxh3::default()).unwrap();
            assert_eq!(batch::prefetch_pays(d.bytes()), n > 1_000);
            let mut p = d.clone();
            for it in &items[..1_000] {
                d.insert(it);
                p.portable_insert(it);
            }
            assert_eq!(d.block_slice(), p.block_slice(), "raw words differ, n={n}");
            assert_eq!(d.len(), p.len());
            let mut out = vec![false; items.len()];
            p.portable_contains_batch(&items, &mut out);
            for (it, o) in items.iter().zip(&out) {
                assert_eq!(d.contains(it), p.portable_contains(it));
                assert_eq!(d.contains(it), *o, "n={n}");
            }
            assert!(out[..1_000].iter().all(|&x| x) && out.iter().any(|&x| !x));
        }
    }

    /// Batch answers are the single answers; a batch insert sets the bits single inserts set.
    #[test]
    fn batches_match_single_operations() {
        let keys: Vec<[u8; 8]> = (0u64..1_000).map(|i| (i * 7).to_le_bytes()).collect();
        let items: Vec<&[u8]> = keys.iter().map(|k| &k[..]).collect();
        // A cached table, and one of 2 MiB that takes the pipelined path (`filters/batch.rs`).
        for m in [4_096, 1 << 24] {
            let mut single = SplitBlockBloom::with_bits_and(m, Xxh3::default()).unwrap();
            assert_eq!(batch::prefetch_pays(single.bytes()), m == 1 << 24);
            let mut batched = single.clone();
            for it in &items[..333] {
                single.insert(it);
            }
            batched.insert_batch(&items[..333]);
            assert_eq!(single.block_slice(), batched.block_slice(), "m={m}");
            assert_eq!(single.len(), batched.len());
            let mut out = vec![false; items.len()];
            batched.contains_batch(&items, &mut out);
            for (it, o) in items.iter().zip(&out) {
                assert_eq!(single.contains(it), *o, "m={m}");
            }
            assert!(out[..333].iter().all(|&x| x) && out.iter().any(|&x| !x));
        }
    }

    /// XXH64 is the default and `hash64` is XXH64 itself: the Parquet layout of the spec.
    #[test]
    fn default_hash_is_parquet_xxh64() {
        let f = SplitBlockBloom::with_bits(1_000).unwrap();
        assert_eq!(f.hash(b"abc"), xxhash_rust::xxh64::xxh64(b"abc", 0));
        let g = SplitBlockBloom::with_bits_and(1_000, Xxh3::default()).unwrap();
        assert_eq!(g.hash(b"abc"), xxhash_rust::xxh3::xxh3_64(b"abc"));
        let g = g.with_legacy_hash128(true);
        assert_eq!(g.hash(b"abc"), xxhash_rust::xxh3::xxh3_128(b"abc") as u64);
    }

    #[test]
    fn bad_inputs() {
        assert!(SplitBlockBloom::from_parquet_bytes(&[0u8; 33]).is_err());
        assert!(SplitBlockBloom::from_parquet_bytes(&[]).is_err());
        assert!(SplitBlockBloom::with_bits(0).is_err());
        assert!(SplitBlockBloom::with_blocks_and(MAX_BLOCKS + 1, Xxh64::default()).is_err());
    }
}
