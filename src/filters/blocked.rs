//! The blocked Bloom filter (Putze, Sanders & Singler 2007): all k bits of an item in one
//! 512-bit, cache-line-aligned block.

use crate::error::{Error, Param, Result};
use crate::filter::{Filter, FilterKind};
use crate::filters::batch;
use crate::filters::count::InsertCount;
use crate::filters::prefetch::prefetch;
use crate::hash::{HashId, ItemHasher, StrategyId, Xxh3, mix64, reduce};
use crate::theory;
use crate::theory::blocked::{BLOCK_BITS, BlockedSizing};

/// One 512-bit block, aligned to (and exactly filling) a 64-byte cache line.
#[repr(align(64))]
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Block(pub [u64; 8]);

/// How many items [`Filter::contains_batch`] and [`BlockedBloom::insert_batch`] hash before
/// they probe.
pub const BATCH: usize = 16;

/// The odd 32-bit multipliers of the position lanes (layout 1): lane j of an item with low hash
/// bits `x` is the bit `(x · LANE_SALT[j] mod 2³²) >> 23` of its block. Fixed forever (files
/// depend on them): the high halves of the SplitMix64 sequence from 0 (Steele, Lea & Flood,
/// "Fast splittable pseudorandom number generators", OOPSLA 2014), made odd.
pub const LANE_SALT: [u32; theory::MAX_K as usize] = {
    let mut s = [0u32; theory::MAX_K as usize];
    let mut state = 0u64;
    let mut j = 0;
    while j < s.len() {
        state = state.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = state;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^= z >> 31;
        s[j] = ((z >> 32) as u32) | 1;
        j += 1;
    }
    s
};

/// Bit position (0..512) of lane `j` for the low hash bits `x` (layout 1).
#[inline(always)]
#[must_use]
pub fn lane(x: u32, j: usize) -> u32 {
    x.wrapping_mul(LANE_SALT[j]) >> 23
}

/// Whether the k lanes of `x` are all set in `w` (layout 1): the tested bits ANDed, no branch.
#[inline(always)]
fn test_lanes<const K: usize>(w: &[u64; 8], x: u32) -> bool {
    let mut all = u64::MAX;
    for j in 0..K {
        let p = lane(x, j);
        all &= w[(p >> 6) as usize] >> (p & 63);
    }
    all & 1 == 1
}

/// [`test_lanes`] with one branch after the first 3 lanes (a query of one item; see
/// [`BlockedBloom::contains_item`]).
#[inline(always)]
fn test_lanes_staged<const K: usize>(w: &[u64; 8], x: u32) -> bool {
    let mut all = u64::MAX;
    for j in 0..3 {
        let p = lane(x, j);
        all &= w[(p >> 6) as usize] >> (p & 63);
    }
    if all & 1 == 0 {
        return false;
    }
    for j in 3..K {
        let p = lane(x, j);
        all &= w[(p >> 6) as usize] >> (p & 63);
    }
    all & 1 == 1
}

/// [`test_lanes`] for a k known only at run time.
#[inline(always)]
fn test_lanes_any(w: &[u64; 8], x: u32, k: u32) -> bool {
    let mut all = u64::MAX;
    for j in 0..k as usize {
        let p = lane(x, j);
        all &= w[(p >> 6) as usize] >> (p & 63);
    }
    all & 1 == 1
}

/// Set the k lanes of `x` in `w` (layout 1).
#[inline(always)]
fn set_lanes<const K: usize>(w: &mut [u64; 8], x: u32) {
    for j in 0..K {
        let p = lane(x, j);
        w[(p >> 6) as usize] |= 1u64 << (p & 63);
    }
}

/// [`set_lanes`] for a k known only at run time.
#[inline(always)]
fn set_lanes_any(w: &mut [u64; 8], x: u32, k: u32) {
    for j in 0..k as usize {
        let p = lane(x, j);
        w[(p >> 6) as usize] |= 1u64 << (p & 63);
    }
}

/// `$f::<K>(args)` for the usual k (unrolled, immediate multipliers), `$any(args, k)` otherwise.
macro_rules! by_k {
    ($k:expr, $f:ident, $any:ident, $($a:expr),*) => {
        match $k {
            4 => $f::<4>($($a),*),
            5 => $f::<5>($($a),*),
            6 => $f::<6>($($a),*),
            7 => $f::<7>($($a),*),
            8 => $f::<8>($($a),*),
            9 => $f::<9>($($a),*),
            10 => $f::<10>($($a),*),
            k => $any($($a),*, k),
        }
    };
}

/// A blocked Bloom filter: `blocks` blocks of 512 bits; an item's hash picks one block and all k
/// bit positions inside it, so an insert or query touches one cache line instead of k.
///
/// **Hashing (layout 1, the default).** One 64-bit hash per item ([`ItemHasher::hash64`]). Its
/// high bits pick the block by multiply-shift ([`reduce`]: `⌊h·blocks/2⁶⁴⌋`); its low 32 bits
/// `x` give the k bit positions by k salted multiply-shift lanes, position j =
/// `(x · S_j mod 2³²) >> 23` (0..512) with fixed odd 32-bit multipliers `S_j` ([`LANE_SALT`]) —
/// the scheme of Parquet's split-block filter (one lane per position, 9 bits instead of 5).
/// Each position is uniform over the block when `x` is, which is what the model
/// ([`theory::blocked`]) assumes. The k positions are computed without a branch and the query
/// ANDs the k tested bits, so a miss costs no mispredicted branch; the insert ORs the k bits
/// into the block.
///
/// **Layout 0** (files written before layout 1, see `persist/codecs/blocked.rs`): one 128-bit
/// hash; the low half picks the block, the high half is cut into 9-bit fields, further words for
/// k > 7 from a SplitMix64 stream seeded with it ([`mix64`]). Such a filter keeps it and answers
/// as before ([`BlockedBloom::with_layout`]).
///
/// **Cost.** At equal memory the FPR is higher than a standard filter's (the load of the blocks
/// varies; Putze et al.'s Poisson mixture predicts by how much). Sized from (n, p) the filter
/// therefore takes more bits than the standard formula, found by search under the blocked model:
/// see [`theory::blocked::size_for`] and [`BlockedBloom::sizing`].
///
/// ```
/// use bloomlab::Filter;
/// use bloomlab::filters::BlockedBloom;
/// let f = BlockedBloom::with_rate(1_000_000, 0.01).unwrap();
/// assert_eq!((f.blocks(), f.k()), (19_372, 6));
/// assert_eq!(f.bytes(), 19_372 * 64);                 // 9.92 bits per key, not 9.59
/// let s = f.sizing().unwrap();
/// assert_eq!(s.extra_bits, 333_406);                  // 3.5% more than Guava's m
/// assert!(s.fpr <= 0.01);
/// ```
#[derive(Debug, Clone)]
pub struct BlockedBloom<H = Xxh3> {
    blocks: Vec<Block>,
    k: u32,
    len: InsertCount,
    hasher: H,
    sizing: Option<BlockedSizing>,
    /// 0: the layout of files written before layout 1 (128-bit hash, 9-bit fields); 1: the
    /// 64-bit hash and multiply-shift lanes.
    layout: u32,
}

/// The layout new filters use (see [`BlockedBloom`]).
pub const LAYOUT: u32 = 1;

impl BlockedBloom<Xxh3> {
    /// A filter for `n` items at rate `p` under the blocked model (see
    /// [`theory::blocked::size_for`]), default hash.
    ///
    /// # Errors
    /// Invalid `n` or `p`; [`Error::Allocation`].
    pub fn with_rate(n: u64, p: f64) -> Result<Self> {
        Self::with_rate_and(n, p, None, Xxh3::default())
    }

    /// A filter of at least `m` bits (rounded up to whole 512-bit blocks) and `k` hashes.
    ///
    /// # Errors
    /// Invalid `m` or `k`; [`Error::Allocation`].
    pub fn with_bits(m: u64, k: u32) -> Result<Self> {
        Self::with_bits_and(m, k, Xxh3::default())
    }
}

impl<H: ItemHasher> BlockedBloom<H> {
    /// A filter for `n` items at rate `p`: the fewest blocks (with the best k, or with `k` when
    /// given) whose blocked-model FPR is at most `p`.
    ///
    /// # Errors
    /// Invalid `n`, `p` or `k`; [`Error::Allocation`].
    pub fn with_rate_and(n: u64, p: f64, k: Option<u32>, hasher: H) -> Result<Self> {
        Self::with_sizing_and(theory::blocked::size_for(n, p, k)?, hasher)
    }

    /// A filter as [`theory::blocked::size_for`] sized it (which it keeps for its details).
    ///
    /// # Errors
    /// As [`Self::with_blocks_and`].
    pub fn with_sizing_and(s: theory::blocked::BlockedSizing, hasher: H) -> Result<Self> {
        let mut f = Self::with_blocks_and(s.blocks, s.k, hasher)?;
        f.sizing = Some(s);
        Ok(f)
    }

    /// A filter of `⌈m/512⌉` blocks and `k` hashes.
    ///
    /// # Errors
    /// Invalid `m` or `k`; [`Error::Allocation`].
    pub fn with_bits_and(m: u64, k: u32, hasher: H) -> Result<Self> {
        theory::check_m(m)?;
        Self::with_blocks_and(m.div_ceil(BLOCK_BITS), k, hasher)
    }

    /// A filter of `blocks` blocks and `k` hashes.
    ///
    /// # Errors
    /// Invalid `k`, zero blocks; [`Error::Allocation`].
    pub fn with_blocks_and(blocks: u64, k: u32, hasher: H) -> Result<Self> {
        theory::check_k(k)?;
        if blocks == 0 {
            return Err(Error::invalid(Param::M, 0, "at least one 512-bit block"));
        }
        let alloc_err = || Error::Allocation {
            bytes: u128::from(blocks) * 64,
        };
        let count = usize::try_from(blocks).map_err(|_| alloc_err())?;
        let mut v: Vec<Block> = Vec::new();
        v.try_reserve_exact(count).map_err(|_| alloc_err())?;
        v.resize(count, Block::default());
        Ok(Self {
            blocks: v,
            k,
            len: InsertCount::default(),
            hasher,
            sizing: None,
            layout: LAYOUT,
        })
    }

    /// Rebuild from saved parts (see [`crate::persist`]). The (n, p) sizing report
    /// ([`BlockedBloom::sizing`]) is not part of them and is `None` afterwards.
    ///
    /// # Errors
    /// [`Error::Corrupt`] for no blocks or `k` outside `1..=64`.
    pub fn from_parts(blocks: Vec<Block>, k: u32, len: u64, hasher: H) -> Result<Self> {
        if blocks.is_empty() {
            return Err(Error::Corrupt("blocked filter has 0 blocks".into()));
        }
        if k == 0 || k > theory::MAX_K {
            return Err(Error::Corrupt(format!(
                "blocked filter has k = {k}, outside 1..={}",
                theory::MAX_K
            )));
        }
        Ok(Self {
            blocks,
            k,
            len: InsertCount::new(len),
            hasher,
            sizing: None,
            layout: LAYOUT,
        })
    }

    /// The hash function.
    #[must_use]
    pub fn hasher(&self) -> &H {
        &self.hasher
    }

    /// Number of 512-bit blocks.
    #[must_use]
    pub fn blocks(&self) -> u64 {
        self.blocks.len() as u64
    }

    /// The blocks.
    #[must_use]
    pub fn block_slice(&self) -> &[Block] {
        &self.blocks
    }

    /// How the filter was sized when built from (n, p): blocks, k, model FPR, and the extra bits
    /// over the standard formula. `None` when built from (m, k).
    #[must_use]
    pub fn sizing(&self) -> Option<BlockedSizing> {
        self.sizing
    }

    /// Use the in-block layout `layout` (0: files written before layout 1; 1: the current one).
    ///
    /// # Errors
    /// [`Error::Corrupt`] for another number.
    pub fn with_layout(mut self, layout: u32) -> Result<Self> {
        if layout > LAYOUT {
            return Err(Error::Corrupt(format!(
                "blocked filter has layout {layout}, this build knows 0 and 1"
            )));
        }
        self.layout = layout;
        Ok(self)
    }

    /// The in-block layout (see [`BlockedBloom::with_layout`]).
    #[must_use]
    pub fn layout(&self) -> u32 {
        self.layout
    }

    // ANCHOR: block_and_mask
    /// The block index and low 32 hash bits of `item` (layout 1): `⌊h·blocks/2⁶⁴⌋` and `h mod 2³²`
    /// of its 64-bit hash h.
    #[inline(always)]
    #[must_use]
    pub fn block_and_lanes(&self, item: &[u8]) -> (usize, u32) {
        let h = self.hasher.hash64(item);
        (block_of(h, self.blocks.len() as u64) as usize, h as u32)
    }
    // ANCHOR_END: block_and_mask

    /// The block index and 512-bit mask of `item`, in this filter's layout.
    #[must_use]
    pub fn block_and_mask(&self, item: &[u8]) -> (usize, [u64; 8]) {
        if self.layout == 0 {
            return self.block_and_mask_v0(item);
        }
        let (b, x) = self.block_and_lanes(item);
        let mut mask = [0u64; 8];
        set_lanes_any(&mut mask, x, self.k);
        (b, mask)
    }

    /// Layout 0: block from `hash128.lo`, 9-bit fields of `hash128.hi`.
    #[inline]
    fn block_and_mask_v0(&self, item: &[u8]) -> (usize, [u64; 8]) {
        let h = self.hasher.hash128(item);
        let block = reduce(h.lo, self.blocks.len() as u64) as usize;
        if self.k > 7 {
            return (block, mask_any_k(h.hi, self.k));
        }
        // The usual case (k = 6 or 7 up to p ≈ 0.5%): one 64-bit word holds all k 9-bit offsets,
        // so the loop needs no refill. The same bits as `mask_any_k` (tested).
        let mut mask = [0u64; 8];
        let mut word = h.hi;
        for _ in 0..self.k {
            let bit = (word & 511) as usize;
            mask[bit >> 6] |= 1u64 << (bit & 63);
            word >>= 9;
        }
        (block, mask)
    }

    #[inline]
    fn probe_mask(&self, block: usize, mask: &[u64; 8]) -> bool {
        let b = &self.blocks[block].0;
        // Branch-free over the 8 words (the compiler vectorises it): any mask bit missing?
        b.iter().zip(mask).fold(0, |acc, (w, m)| acc | (m & !w)) == 0
    }

    /// Layout 1: are the k lanes of `x` set in block `b`? (No branch: the batch query.)
    #[inline(always)]
    fn probe(&self, b: usize, x: u32) -> bool {
        let w = &self.blocks[b].0;
        by_k!(self.k, test_lanes, test_lanes_any, w, x)
    }

    /// [`BlockedBloom::probe`] with one branch after 3 lanes (the single query).
    #[inline(always)]
    fn probe_staged(&self, b: usize, x: u32) -> bool {
        let w = &self.blocks[b].0;
        by_k!(self.k, test_lanes_staged, test_lanes_any, w, x)
    }

    /// Layout 0 query, out of the hot path's frame.
    #[inline(never)]
    fn contains_v0(&self, item: &[u8]) -> bool {
        let (b, m) = self.block_and_mask_v0(item);
        self.probe_mask(b, &m)
    }

    /// Layout 0 insert, out of the hot path's frame.
    #[inline(never)]
    fn insert_v0(&mut self, item: &[u8]) {
        let (b, m) = self.block_and_mask_v0(item);
        for (w, x) in self.blocks[b].0.iter_mut().zip(m) {
            *w |= x;
        }
    }

    /// Layout 1: set the k lanes of `x` in block `b`.
    #[inline(always)]
    fn set(&mut self, b: usize, x: u32) {
        let k = self.k;
        let w = &mut self.blocks[b].0;
        by_k!(k, set_lanes, set_lanes_any, w, x);
    }

    /// Whether `item` may have been inserted.
    ///
    /// One branch, after the first 3 of the k lanes: a miss in a half-full filter stops there
    /// 7 times in 8, which halves its instructions (fastbloom exits at every probe; a fully
    /// branch-free test cost 1.25× its instructions on misses, `benches/gate.rs`), at the price
    /// of a mispredicted branch when hits and misses alternate. The batch query
    /// ([`Filter::contains_batch`]) has no branch at all.
    #[inline]
    #[must_use]
    pub fn contains_item(&self, item: &[u8]) -> bool {
        if self.layout == 0 {
            return self.contains_v0(item);
        }
        let (b, x) = self.block_and_lanes(item);
        self.probe_staged(b, x)
    }

    /// Insert `item`.
    #[inline]
    pub fn insert_item(&mut self, item: &[u8]) {
        if self.layout == 0 {
            self.insert_v0(item);
        } else {
            let (b, x) = self.block_and_lanes(item);
            self.set(b, x);
        }
        self.len.inc();
    }

    /// Insert every item of `items`: a chunk of [`BATCH`] items is hashed (and, in a large
    /// table, each block prefetched a chunk ahead) first, then its blocks are written
    /// (`filters/batch.rs`).
    pub fn insert_batch(&mut self, items: &[&[u8]]) {
        if self.layout == 0 {
            for it in items {
                self.insert_item(it);
            }
            return;
        }
        let warm = batch::prefetch_pays(self.bytes());
        batch::insert::<_, BATCH>(self, items, warm);
        self.len.add(items.len() as u64);
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

    /// Refuse another filter unless the blocks, k, the hash function (with its seed) and the
    /// layout are the same.
    ///
    /// # Errors
    /// [`Error::Incompatible`].
    pub fn check_compatible(&self, other: &Self) -> Result<()>
    where
        H: PartialEq,
    {
        if self.blocks.len() != other.blocks.len()
            || self.k != other.k
            || self.hasher != other.hasher
            || self.layout != other.layout
        {
            return Err(Error::Incompatible(
                "blocks, k, hash function or layout differ".to_string(),
            ));
        }
        Ok(())
    }

    /// OR another filter with identical parameters into this one: the filter of the union.
    ///
    /// # Errors
    /// [`Error::Incompatible`] when the parameters differ.
    pub fn union_with(&mut self, other: &Self) -> Result<()>
    where
        H: PartialEq,
    {
        self.combine(other, |x, y| *x |= y)?;
        self.len = InsertCount::new(self.len.get().saturating_add(other.len.get()));
        Ok(())
    }

    /// AND another filter with identical parameters into this one: no false negatives for the
    /// intersection, but not its filter (see [`crate::StandardBloom::intersect_with`]). `len`
    /// becomes the smaller count.
    ///
    /// # Errors
    /// [`Error::Incompatible`] when the parameters differ.
    pub fn intersect_with(&mut self, other: &Self) -> Result<()>
    where
        H: PartialEq,
    {
        self.combine(other, |x, y| *x &= y)?;
        self.len = InsertCount::new(self.len.get().min(other.len.get()));
        Ok(())
    }

    /// Apply `op` word by word to this filter and a compatible `other` (union and intersection).
    fn combine(&mut self, other: &Self, op: impl Fn(&mut u64, u64)) -> Result<()>
    where
        H: PartialEq,
    {
        self.check_compatible(other)?;
        for (a, b) in self.blocks.iter_mut().zip(&other.blocks) {
            for (x, y) in a.0.iter_mut().zip(b.0) {
                op(x, y);
            }
        }
        Ok(())
    }

    /// The filter folded to half its blocks, bit for bit what a filter of `blocks/2` blocks
    /// would hold after the same inserts: the block is chosen by multiply-shift,
    /// `⌊h·(B/2)/2⁶⁴⌋ = ⌊⌊h·B/2⁶⁴⌋/2⌋`, so blocks 2j and 2j+1 fold (OR) into block j, and the
    /// lanes inside a block do not depend on B.
    ///
    /// # Errors
    /// [`Error::InvalidParameter`] for an odd number of blocks.
    pub fn fold(&self) -> Result<Self> {
        let b = self.blocks.len();
        if !b.is_multiple_of(2) {
            return Err(Error::invalid(
                Param::M,
                b as u64 * BLOCK_BITS,
                "an even number of 512-bit blocks",
            ));
        }
        let folded: Vec<Block> = self
            .blocks
            .chunks_exact(2)
            .map(|p| Block(std::array::from_fn(|i| p[0].0[i] | p[1].0[i])))
            .collect();
        Self::from_parts(folded, self.k, self.len.get(), self.hasher.clone())?
            .with_layout(self.layout)
    }

    /// The geometry the estimators need ([`theory::estimate::Shape::blocked`]).
    #[must_use]
    pub fn shape(&self) -> theory::estimate::Shape {
        theory::estimate::Shape::blocked(self.blocks.len() as u64, self.k)
    }

    /// Estimated distinct items with a standard error: the standard formula with k replaced by
    /// the expected distinct bits an item sets in its block, `k_eff = 512·(1 − (511/512)^k)`
    /// (see [`theory::estimate`]).
    ///
    /// ```
    /// use bloomlab::Filter;
    /// use bloomlab::filters::BlockedBloom;
    /// let mut f = BlockedBloom::with_rate(10_000, 0.01).unwrap();
    /// for i in 0u64..6_000 { f.insert(&i.to_le_bytes()); }
    /// let e = f.estimate();
    /// assert!((e.value - 6_000.0).abs() < 4.0 * e.std_err, "{e:?}");
    /// ```
    #[must_use]
    pub fn estimate(&self) -> theory::estimate::Estimate {
        theory::estimate::count(&self.shape(), self.ones())
    }

    /// Bits set in the OR of two filters.
    fn ones_or(&self, other: &Self) -> u64 {
        self.blocks
            .iter()
            .zip(&other.blocks)
            .flat_map(|(a, b)| (0..8).map(move |i| u64::from((a.0[i] | b.0[i]).count_ones())))
            .sum()
    }

    /// Estimated size of the union of the two filters' sets, from their OR.
    ///
    /// # Errors
    /// [`Error::Incompatible`] when the parameters differ.
    pub fn estimate_union(&self, other: &Self) -> Result<theory::estimate::Estimate>
    where
        H: PartialEq,
    {
        self.check_compatible(other)?;
        Ok(theory::estimate::union(&self.shape(), self.ones_or(other)))
    }

    /// Estimated size of the intersection of the two filters' sets by inclusion–exclusion.
    ///
    /// # Errors
    /// [`Error::Incompatible`] when the parameters differ.
    pub fn estimate_intersection(&self, other: &Self) -> Result<theory::estimate::Estimate>
    where
        H: PartialEq,
    {
        self.check_compatible(other)?;
        Ok(theory::estimate::intersection(
            &self.shape(),
            self.ones(),
            other.ones(),
            self.ones_or(other),
        ))
    }
}

/// The halves of the batch operations (`filters/batch.rs`).
impl<H: ItemHasher> batch::Staged for BlockedBloom<H> {
    type Step = (usize, u32);
    /// The first half of a batch operation for one item: its block and lanes, and (when `warm`)
    /// the block prefetched (`filters/batch.rs`).
    #[inline(always)]
    fn stage(&self, item: &[u8], warm: bool) -> (usize, u32) {
        let p = self.block_and_lanes(item);
        if warm {
            prefetch(&self.blocks[p.0]);
        }
        p
    }
    #[inline(always)]
    fn probe_step(&self, (b, x): (usize, u32)) -> bool {
        self.probe(b, x)
    }
    #[inline(always)]
    fn store_step(&mut self, (b, x): (usize, u32)) -> bool {
        self.set(b, x);
        true
    }
}

impl<H: ItemHasher> Filter for BlockedBloom<H> {
    #[inline]
    fn try_insert(&mut self, item: &[u8]) -> Result<()> {
        self.insert_item(item);
        Ok(())
    }
    #[inline]
    fn insert(&mut self, item: &[u8]) {
        self.insert_item(item);
    }
    #[inline]
    fn contains(&self, item: &[u8]) -> bool {
        self.contains_item(item)
    }
    /// Hash a group of 16 items and, in a table larger than the caches, prefetch each one's
    /// block a chunk ahead, then probe the blocks: the cache misses overlap instead of filling
    /// the reorder buffer one probe at a time (`filters/prefetch.rs`, `filters/batch.rs`).
    fn contains_batch(&self, items: &[&[u8]], out: &mut [bool]) {
        if self.layout == 0 {
            for (o, it) in out.iter_mut().zip(items) {
                *o = self.contains_item(it);
            }
            return;
        }
        batch::contains::<_, BATCH>(self, items, out, batch::prefetch_pays(self.bytes()));
    }
    fn len(&self) -> u64 {
        self.len.get()
    }
    fn bits(&self) -> u64 {
        self.blocks.len() as u64 * BLOCK_BITS
    }
    fn bytes(&self) -> usize {
        self.blocks.capacity() * std::mem::size_of::<Block>()
    }
    fn k(&self) -> u32 {
        self.k
    }
    /// Putze et al.'s Poisson mixture with the exact inner rate,
    /// [`theory::blocked::fpr_blocked_exact`] (the classic inner formula is ~1.6% low at
    /// 10 bits per key, measurably so).
    fn expected_fpr(&self) -> f64 {
        theory::blocked::fpr_blocked_exact(self.bits(), self.len.get(), self.k, BLOCK_BITS)
    }
    fn kind(&self) -> FilterKind {
        FilterKind::Blocked
    }
    fn hash_id(&self) -> HashId {
        self.hasher.id()
    }
    fn strategy_id(&self) -> Option<StrategyId> {
        None
    }
    fn details(&self) -> Vec<(String, String)> {
        let mut d = vec![
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
                "model fpr, classic inner (Putze et al. as published)".into(),
                format!(
                    "{:.6}",
                    theory::blocked::fpr_blocked(self.bits(), self.len.get(), self.k, BLOCK_BITS)
                ),
            ),
            (
                "classic fpr at same m,k (standard filter)".into(),
                format!(
                    "{:.6}",
                    theory::fpr_classic(self.bits(), self.len.get(), self.k)
                ),
            ),
        ];
        if let Some(s) = self.sizing {
            d.push(("standard-formula bits".into(), s.m_standard.to_string()));
            d.push((
                "extra bits for blocking".into(),
                format!("{} ({:+.2}%)", s.extra_bits, 100.0 * s.extra_fraction()),
            ));
        }
        d
    }
}

/// The 512-bit mask of k 9-bit offsets taken from `hi`, for any k: 7 offsets per 64-bit word,
/// then the next word from a SplitMix64 stream seeded by `hi`.
fn mask_any_k(hi: u64, k: u32) -> [u64; 8] {
    let mut mask = [0u64; 8];
    let (mut word, mut left, mut stream) = (hi, 7u32, hi);
    for _ in 0..k {
        if left == 0 {
            stream = stream.wrapping_add(0x9e37_79b9_7f4a_7c15);
            word = mix64(stream);
            left = 7;
        }
        let bit = (word & 511) as usize;
        mask[bit >> 6] |= 1u64 << (bit & 63);
        word >>= 9;
        left -= 1;
    }
    mask
}

/// The block of `blocks` a 64-bit hash selects (layout 1): `⌊h·blocks / 2^64⌋`
/// ([`reduce`]); what inserts, queries and the reachability audit ([`crate::reach`]) use.
#[inline(always)]
#[must_use]
pub fn block_of(h: u64, blocks: u64) -> u64 {
    reduce(h, blocks)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::hash::AnyHasher;

    #[test]
    fn mask_fast_path_equals_general_loop() {
        let h = AnyHasher::default();
        for k in 1..=16 {
            let f = BlockedBloom::with_bits_and(1 << 16, k, h)
                .unwrap()
                .with_layout(0)
                .unwrap();
            for i in 0u64..2_000 {
                let item = i.to_le_bytes();
                let (_, m) = f.block_and_mask(&item);
                assert_eq!(m, mask_any_k(h.hash128(&item).hi, k), "k={k} i={i}");
            }
        }
    }

    #[test]
    fn block_is_a_cache_line() {
        assert_eq!(std::mem::size_of::<Block>(), 64);
        assert_eq!(std::mem::align_of::<Block>(), 64);
        let f = BlockedBloom::with_bits(5_000, 7).unwrap();
        assert_eq!(f.blocks(), 10);
        assert_eq!(f.block_slice().as_ptr() as usize % 64, 0);
        assert_eq!(f.bytes(), 640);
    }

    #[test]
    fn masks_have_k_bits_at_most_and_positions_are_uniform() {
        let f = BlockedBloom::with_bits(512, 12).unwrap();
        let mut counts = [0u64; 512];
        for i in 0u64..20_000 {
            let (b, m) = f.block_and_mask(&i.to_le_bytes());
            assert_eq!(b, 0);
            let ones: u32 = m.iter().map(|w| w.count_ones()).sum();
            assert!((1..=12).contains(&ones));
            for (w, x) in m.iter().enumerate() {
                for bit in 0..64 {
                    if x >> bit & 1 == 1 {
                        counts[w * 64 + bit] += 1;
                    }
                }
            }
        }
        let (_, pval) = crate::stats::chi_square_uniform(&counts);
        assert!(pval > 1e-4, "positions not uniform: p = {pval}");
    }

    #[test]
    fn no_false_negatives_every_hash() {
        for h in HashId::ALL {
            let mut f =
                BlockedBloom::with_rate_and(3_000, 0.01, None, AnyHasher::new(h, 5)).unwrap();
            for i in 0u64..3_000 {
                f.insert(&i.to_le_bytes());
            }
            assert!((0u64..3_000).all(|i| f.contains(&i.to_le_bytes())), "{h}");
        }
    }

    /// Batch answers are single answers, in a cached table and in one large enough to take
    /// the prefetching, pipelined path (`filters/batch.rs`).
    #[test]
    fn batch_matches_single() {
        for m in [4_096, BIG_TABLE_BITS] {
            let mut f = BlockedBloom::with_bits(m, 6).unwrap();
            assert_eq!(batch::prefetch_pays(f.bytes()), m == BIG_TABLE_BITS);
            for i in 0u64..600 {
                f.insert(&i.to_le_bytes());
            }
            let keys: Vec<[u8; 8]> = (0u64..1_000).map(|i| (i * 7).to_le_bytes()).collect();
            let items: Vec<&[u8]> = keys.iter().map(|k| &k[..]).collect();
            let mut out = vec![false; items.len()];
            f.contains_batch(&items, &mut out);
            for (it, o) in items.iter().zip(&out) {
                assert_eq!(f.contains(it), *o, "m={m}");
            }
            assert!(out.iter().any(|&x| x) && out.iter().any(|&x| !x));
        }
    }

    /// A table of 2 MiB: above [`batch::PREFETCH_MIN_BYTES`], so batches pipeline.
    const BIG_TABLE_BITS: u64 = 1 << 24;

    /// A batch insert sets the bits single inserts set, in both layouts; batch answers are the
    /// single answers.
    #[test]
    fn insert_batch_matches_single() {
        let keys: Vec<[u8; 8]> = (0u64..1_000).map(|i| (i * 7).to_le_bytes()).collect();
        let items: Vec<&[u8]> = keys.iter().map(|k| &k[..]).collect();
        for (layout, k, m) in [
            (1, 6, 4_096),
            (1, 7, 4_096),
            (1, 13, 4_096),
            (0, 6, 4_096),
            (0, 9, 4_096),
            (1, 7, BIG_TABLE_BITS),
            (0, 6, BIG_TABLE_BITS),
        ] {
            let mut single = BlockedBloom::with_bits(m, k)
                .unwrap()
                .with_layout(layout)
                .unwrap();
            let mut batched = single.clone();
            for it in &items[..333] {
                single.insert(it);
            }
            batched.insert_batch(&items[..333]);
            assert_eq!(single.block_slice(), batched.block_slice(), "k={k}");
            assert_eq!(single.len(), batched.len());
            let mut out = vec![false; items.len()];
            batched.contains_batch(&items, &mut out);
            for (it, o) in items.iter().zip(&out) {
                assert_eq!(single.contains(it), *o, "k={k} layout={layout}");
            }
            assert!(out[..333].iter().all(|&x| x) && out.iter().any(|&x| !x));
        }
    }

    /// The unrolled kernels (k = 4..=10) and the run-time-k loop set and test the same bits.
    #[test]
    fn unrolled_lanes_equal_the_general_loop() {
        for x in (0u32..5_000).map(|i| i.wrapping_mul(0x9e37_79b9)) {
            let (mut a, mut b) = ([0u64; 8], [0u64; 8]);
            set_lanes::<7>(&mut a, x);
            set_lanes_any(&mut b, x, 7);
            assert_eq!(a, b);
            let mut c = [0u64; 8];
            by_k!(6u32, set_lanes, set_lanes_any, &mut c, x);
            assert!(test_lanes::<6>(&c, x) && test_lanes_any(&c, x, 6));
            assert_eq!(test_lanes::<7>(&c, x), test_lanes_any(&c, x, 7));
            assert_eq!(test_lanes::<7>(&c, x), test_lanes_staged::<7>(&c, x));
            let mut d = c;
            d[(lane(x, 4) >> 6) as usize] &= !(1 << (lane(x, 4) & 63));
            assert!(!test_lanes_staged::<6>(&d, x) && !test_lanes::<6>(&d, x));
        }
    }

    /// Layout 1 is a file format: the lanes of one item are pinned (a change to the salts, the
    /// shift or the block rule fails here, not in users' files).
    #[test]
    fn layout_1_positions_are_pinned() {
        assert_eq!(LANE_SALT[..3], [0xe220_a839, 0x6e78_9e6b, 0x06c4_5d19]);
        let f = BlockedBloom::with_blocks_and(1_000, 6, Xxh3::default()).unwrap();
        let (b, m) = f.block_and_mask(b"pinned");
        let h = xxhash_rust::xxh3::xxh3_64(b"pinned");
        assert_eq!(b as u64, reduce(h, 1_000));
        let mut want = [0u64; 8];
        for s in &LANE_SALT[..6] {
            let p = (h as u32).wrapping_mul(*s) >> 23;
            want[p as usize / 64] |= 1 << (p % 64);
        }
        assert_eq!(m, want);
    }

    #[test]
    fn zero_blocks_refused() {
        assert!(BlockedBloom::with_blocks_and(0, 3, Xxh3::default()).is_err());
        assert!(BlockedBloom::with_bits(0, 3).is_err());
        assert!(BlockedBloom::with_bits(512, 0).is_err());
    }
}
