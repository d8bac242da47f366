//! The packed bucket table of a cuckoo filter and its branch-free bucket operations.
//!
//! Bucket `i` is the `W = b·f` bits at bit offset `i·W` of a `u64` array, slot `j` its bits
//! `j·f ..` (slot 0 lowest): no padding between slots or buckets. Two zero words follow the
//! table so a read may always load the words past the bucket.
//!
//! * **Narrow buckets** (`W ≤ 64`: b = 4 up to f = 16, b = 2 up to 32, b = 8 up to 8) are read
//!   with two aligned `u64` loads and a funnel shift, `(w0 >> s) | ((w1 << 1) << (63 − s))`,
//!   which is branch-free at every shift `s` (the split `<< 1 << (63 − s)` avoids the undefined
//!   shift by 64 at `s = 0`).
//! * **Wide buckets** (`64 < W`) are read as one or two *groups* of at most 128 bits (a group is
//!   the whole bucket when `W ≤ 128`, else half of a b = 8 bucket), each with three `u64` loads
//!   combined into a `u128` the same way.
//!
//! A bucket (group) is then searched all at once, SWAR-style: with `ones` the word with bit 0 of
//! every lane set and `highs` with the top bit of every lane, `x = bucket ^ (fp · ones)` has a
//! zero lane exactly where a slot holds `fp`, and `(x − ones) & !x & highs` is non-zero iff some
//! lane of `x` is zero, its lowest set bit marking the *first* such lane (a borrow only runs
//! upward from a zero lane, and lanes below the first zero one are non-zero, so they borrow
//! nothing). `fp = 0` finds a free slot. A query ORs this over both buckets, with no branch on
//! the data. Single slots (at most 32 bits) are read and written with the same two-word funnel.

use crate::bits::try_zeroed;
use crate::error::Result;
use crate::filters::prefetch::prefetch;
use crate::theory::cuckoo as model;

/// The packed table.
#[derive(Debug, Clone)]
pub(super) struct Table {
    /// The table words, then [`model::PAD_WORDS`] zero words.
    words: Vec<u64>,
    buckets: u64,
    b: u32,
    f: u32,
    /// Bits per bucket, `b·f`.
    width: u32,
    /// Groups per bucket (1, or 2 for b = 8 above 16 bits).
    groups: u32,
    /// Bits per group.
    gbits: u32,
    /// Bit 0 of every lane of a group.
    ones: u128,
    /// The top bit of every lane of a group.
    highs: u128,
    /// `gbits` ones.
    gmask: u128,
    /// `f` ones.
    fmask: u64,
}

/// Two-word funnel read of the `u64` at bit offset `sh < 64` of `s[0], s[1]`.
#[inline(always)]
fn funnel64(s0: u64, s1: u64, sh: u32) -> u64 {
    (s0 >> sh) | ((s1 << 1) << (63 - sh))
}

impl Table {
    /// A zeroed table of `buckets` buckets of `b` slots of `f` bits (checked by the caller).
    pub(super) fn new(buckets: u64, f: u32, b: u32) -> Result<Self> {
        let n = model::table_words(buckets, f, b)? + model::PAD_WORDS;
        let n = usize::try_from(n).map_err(|_| crate::error::Error::Allocation {
            bytes: u128::from(n) * 8,
        })?;
        Self::from_words(try_zeroed(n)?, buckets, f, b)
    }

    /// A table around `words` (the table words followed by the padding).
    pub(super) fn from_words(words: Vec<u64>, buckets: u64, f: u32, b: u32) -> Result<Self> {
        let width = b * f;
        let groups = if width > 128 { 2 } else { 1 };
        let gbits = width / groups;
        let lanes = b / groups;
        let ones = (0..lanes).fold(0u128, |a, j| a | (1u128 << (j * f)));
        let gmask = if gbits == 128 {
            u128::MAX
        } else {
            (1u128 << gbits) - 1
        };
        Ok(Self {
            words,
            buckets,
            b,
            f,
            width,
            groups,
            gbits,
            ones,
            highs: ones << (f - 1),
            gmask,
            fmask: (1u64 << f) - 1,
        })
    }

    pub(super) fn buckets(&self) -> u64 {
        self.buckets
    }

    pub(super) fn bucket_size(&self) -> u32 {
        self.b
    }

    pub(super) fn fingerprint_bits(&self) -> u32 {
        self.f
    }

    /// The table words without the padding.
    pub(super) fn words(&self) -> &[u64] {
        &self.words[..self.words.len() - model::PAD_WORDS as usize]
    }

    /// Bytes allocated.
    pub(super) fn bytes(&self) -> usize {
        self.words.capacity() * 8
    }

    #[inline(always)]
    fn offset(&self, i: u64) -> u64 {
        i * u64::from(self.width)
    }

    /// The narrow bucket `i` (`W ≤ 64`).
    #[inline(always)]
    fn read64(&self, i: u64) -> u64 {
        let off = self.offset(i);
        let s = &self.words[(off >> 6) as usize..][..2];
        funnel64(s[0], s[1], (off & 63) as u32) & (self.gmask as u64)
    }

    /// Bucket `i` as one word when it is narrow (`W ≤ 64`), slot `j` at bit `j·f`.
    #[inline(always)]
    pub(super) fn narrow_bucket(&self, i: u64) -> Option<u64> {
        (self.width <= 64).then(|| self.read64(i))
    }

    /// The group of `gbits ≤ 128` bits at bit offset `off`.
    #[inline(always)]
    fn read128(&self, off: u64) -> u128 {
        let s = &self.words[(off >> 6) as usize..][..3];
        let sh = (off & 63) as u32;
        let lo = (u128::from(s[0]) | (u128::from(s[1]) << 64)) >> sh;
        let hi = (u128::from(s[2]) << 1) << (127 - sh);
        (lo | hi) & self.gmask
    }

    /// Lanes of `x` that are zero, as their top bits (exact for the lowest one).
    #[inline(always)]
    fn zero_lanes64(&self, x: u64) -> u64 {
        x.wrapping_sub(self.ones as u64) & !x & (self.highs as u64)
    }

    #[inline(always)]
    fn zero_lanes128(&self, x: u128) -> u128 {
        x.wrapping_sub(self.ones) & !x & self.highs
    }

    /// Start loading the cache line(s) of bucket `i` (a hint for the batch operations).
    #[inline(always)]
    pub(super) fn prefetch_bucket(&self, i: u64) {
        let off = self.offset(i);
        prefetch(&self.words[(off >> 6) as usize]);
        prefetch(&self.words[((off + u64::from(self.width) - 1) >> 6) as usize]);
    }

    /// Whether bucket `i1` or `i2` holds `fp`: both buckets read, all slots compared at once,
    /// no branch on the data.
    #[inline(always)]
    pub(super) fn either_has(&self, i1: u64, i2: u64, fp: u64) -> bool {
        if self.width <= 64 {
            let bc = fp * (self.ones as u64);
            let x1 = self.read64(i1) ^ bc;
            let x2 = self.read64(i2) ^ bc;
            (self.zero_lanes64(x1) | self.zero_lanes64(x2)) != 0
        } else {
            let bc = u128::from(fp) * self.ones;
            let mut z = 0u128;
            for g in 0..u64::from(self.groups) {
                let go = g * u64::from(self.gbits);
                z |= self.zero_lanes128(self.read128(self.offset(i1) + go) ^ bc);
                z |= self.zero_lanes128(self.read128(self.offset(i2) + go) ^ bc);
            }
            z != 0
        }
    }

    /// Bit offset of the first slot of bucket `i` holding `fp` (0: a free slot).
    #[inline]
    pub(super) fn find(&self, i: u64, fp: u64) -> Option<u64> {
        let f = u64::from(self.f);
        if self.width <= 64 {
            let z = self.zero_lanes64(self.read64(i) ^ (fp * (self.ones as u64)));
            (z != 0).then(|| self.offset(i) + u64::from(z.trailing_zeros()) + 1 - f)
        } else {
            let bc = u128::from(fp) * self.ones;
            (0..u64::from(self.groups)).find_map(|g| {
                let off = self.offset(i) + g * u64::from(self.gbits);
                let z = self.zero_lanes128(self.read128(off) ^ bc);
                (z != 0).then(|| off + u64::from(z.trailing_zeros()) + 1 - f)
            })
        }
    }

    /// Put `fp` into the first free slot of bucket `i`, if it has one. A narrow bucket is read
    /// once and the fingerprint ORed into its (zero) slot in place.
    #[inline(always)]
    pub(super) fn put_free(&mut self, i: u64, fp: u64) -> bool {
        if self.width <= 64 {
            let off = self.offset(i);
            let sh = (off & 63) as u32;
            let (ones, highs, mask, f) = (
                self.ones as u64,
                self.highs as u64,
                self.gmask as u64,
                self.f,
            );
            let s = &mut self.words[(off >> 6) as usize..][..2];
            let v = funnel64(s[0], s[1], sh) & mask;
            let z = v.wrapping_sub(ones) & !v & highs;
            if z == 0 {
                return false;
            }
            let x = fp << (z.trailing_zeros() + 1 - f);
            s[0] |= x << sh;
            s[1] |= (x >> 1) >> (63 - sh);
            true
        } else {
            match self.find(i, 0) {
                Some(off) => {
                    self.set(off, fp);
                    true
                }
                None => false,
            }
        }
    }

    /// Bit offset of slot `j` of bucket `i`.
    #[inline]
    pub(super) fn slot_offset(&self, i: u64, j: u32) -> u64 {
        self.offset(i) + u64::from(j * self.f)
    }

    /// The slot at bit offset `off`.
    #[inline]
    pub(super) fn get(&self, off: u64) -> u64 {
        let s = &self.words[(off >> 6) as usize..][..2];
        funnel64(s[0], s[1], (off & 63) as u32) & self.fmask
    }

    /// Write `v` (below 2^f) into the slot at bit offset `off`.
    #[inline]
    pub(super) fn set(&mut self, off: u64, v: u64) {
        let sh = (off & 63) as u32;
        let m = self.fmask;
        let s = &mut self.words[(off >> 6) as usize..][..2];
        s[0] = (s[0] & !(m << sh)) | (v << sh);
        // The bits past the first word: v >> (64 − sh), written as two shifts (0 at sh = 0).
        s[1] = (s[1] & !((m >> 1) >> (63 - sh))) | ((v >> 1) >> (63 - sh));
    }

    /// Replace the slot at `off` with `v`; returns what was there.
    #[inline]
    pub(super) fn swap(&mut self, off: u64, v: u64) -> u64 {
        let old = self.get(off);
        self.set(off, v);
        old
    }

    /// Non-empty slots in the whole table.
    pub(super) fn count_occupied(&self) -> u64 {
        let mut n = 0;
        for i in 0..self.buckets {
            for j in 0..self.b {
                n += u64::from(self.get(self.slot_offset(i, j)) != 0);
            }
        }
        n
    }
}
