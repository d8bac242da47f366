//! The classic slot table of a quotient filter: `2^q` slots in a circle, each with three
//! metadata bits and an `r`-bit remainder — the layout of file version 1, kept to read those
//! files (checked by [`Table::scan`], then laid out again in the rank-select table) and, in
//! tests, to write them (its insert, as it was).
//!
//! Terms (Bender et al. 2012): the *run* of quotient `x` is the consecutive slots holding the
//! remainders whose quotient is `x`, kept in ascending order; runs appear in quotient order; a
//! *cluster* is a maximal sequence of non-empty slots, and it starts with a remainder in its
//! canonical slot. Per slot:
//!
//! * `occupied`: some stored item has this slot as its quotient (describes the slot's *index*,
//!   not its contents);
//! * `continuation`: the remainder here belongs to the same run as the one in the slot before;
//! * `shifted`: the remainder here is not in its canonical slot.
//!
//! A slot is empty exactly when all three are 0 (an occupied slot always holds something: its
//! run's head or an earlier run shifted onto it). The table is never full (one slot at least
//! stays empty), which is what bounds every backward and forward walk.

#[cfg(test)]
use crate::bits::try_zeroed;
#[cfg(test)]
use crate::error::{Error, Result};
use std::collections::VecDeque;

const OCC: usize = 0;
const CONT: usize = 1;
const SHF: usize = 2;

/// Slots, metadata words and packed remainders.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct Table {
    /// Per block of 64 slots, three words: occupied, continuation, shifted.
    pub(super) meta: Vec<u64>,
    /// Remainder of slot `i` at bits `i·r ..` (little-endian words).
    pub(super) rems: Vec<u64>,
    /// Slots − 1.
    mask: u64,
    r: u32,
}

/// Words of metadata and of remainders for `2^q` slots of `r` bits.
pub(super) fn words(q: u32, r: u32) -> (u64, u64) {
    let slots = 1u64 << q;
    (3 * slots.div_ceil(64), (slots * u64::from(r)).div_ceil(64))
}

impl Table {
    #[cfg(test)]
    pub(super) fn new(q: u32, r: u32) -> Result<Self> {
        let (m, w) = words(q, r);
        let too_big = |x: u64| Error::Allocation {
            bytes: u128::from(x) * 8,
        };
        let meta = try_zeroed(usize::try_from(m).map_err(|_| too_big(m))?)?;
        let rems = try_zeroed(usize::try_from(w).map_err(|_| too_big(w))?)?;
        Ok(Self::from_words(meta, rems, q, r))
    }

    /// Wrap words of the right lengths (checked by the caller).
    pub(super) fn from_words(meta: Vec<u64>, rems: Vec<u64>, q: u32, r: u32) -> Self {
        Self {
            meta,
            rems,
            mask: (1u64 << q) - 1,
            r,
        }
    }

    pub(super) fn slots(&self) -> u64 {
        self.mask + 1
    }

    #[inline]
    fn bit(&self, which: usize, i: u64) -> bool {
        (self.meta[3 * (i >> 6) as usize + which] >> (i & 63)) & 1 == 1
    }

    #[cfg(test)]
    #[inline]
    fn put_bit(&mut self, which: usize, i: u64, v: bool) {
        let w = &mut self.meta[3 * (i >> 6) as usize + which];
        let b = 1u64 << (i & 63);
        if v {
            *w |= b;
        } else {
            *w &= !b;
        }
    }

    #[inline]
    pub(super) fn occupied(&self, i: u64) -> bool {
        self.bit(OCC, i)
    }

    #[inline]
    pub(super) fn continuation(&self, i: u64) -> bool {
        self.bit(CONT, i)
    }

    #[inline]
    pub(super) fn shifted(&self, i: u64) -> bool {
        self.bit(SHF, i)
    }

    #[inline]
    fn is_empty_slot(&self, i: u64) -> bool {
        let w = 3 * (i >> 6) as usize;
        let m = self.meta[w] | self.meta[w + 1] | self.meta[w + 2];
        (m >> (i & 63)) & 1 == 0
    }

    #[cfg(test)]
    #[inline]
    fn next(&self, i: u64) -> u64 {
        (i + 1) & self.mask
    }

    #[cfg(test)]
    #[inline]
    fn prev(&self, i: u64) -> u64 {
        i.wrapping_sub(1) & self.mask
    }

    #[inline]
    pub(super) fn rem(&self, i: u64) -> u64 {
        let r = self.r;
        let off = i * u64::from(r);
        let w = (off >> 6) as usize;
        let sh = (off & 63) as u32;
        let mut v = self.rems[w] >> sh;
        if sh + r > 64 {
            v |= self.rems[w + 1] << (64 - sh);
        }
        v & ((1u64 << r) - 1)
    }

    #[cfg(test)]
    #[inline]
    pub(super) fn set_rem(&mut self, i: u64, v: u64) {
        let r = self.r;
        let full = (1u64 << r) - 1;
        let off = i * u64::from(r);
        let w = (off >> 6) as usize;
        let sh = (off & 63) as u32;
        self.rems[w] = (self.rems[w] & !(full << sh)) | (v << sh);
        if sh + r > 64 {
            let hi = (1u64 << (sh + r - 64)) - 1;
            self.rems[w + 1] = (self.rems[w + 1] & !hi) | (v >> (64 - sh));
        }
    }

    #[cfg(test)]
    /// Write a slot's contents (its `occupied` bit, which belongs to the index, is kept).
    #[inline]
    fn write(&mut self, i: u64, rem: u64, cont: bool, shf: bool) {
        self.set_rem(i, rem);
        self.put_bit(CONT, i, cont);
        self.put_bit(SHF, i, shf);
    }

    #[cfg(test)]
    /// The first slot of the run of quotient `fq` (which must be occupied), or the slot where
    /// that run would begin. Tables of 64 slots or more use whole words
    /// ([`Table::run_start_words`]); smaller ones walk slot by slot.
    #[inline]
    fn run_start(&self, fq: u64) -> u64 {
        if self.mask >= 63 {
            self.run_start_words(fq)
        } else {
            self.run_start_slots(fq)
        }
    }

    #[cfg(test)]
    /// [`Table::run_start`] a word at a time: the cluster's start `b` is the last slot at or
    /// before `fq` that is not shifted; the runs between `b` and `fq` belong to the `k`
    /// occupied quotients in `[b, fq)`, and every slot of a cluster that is not a continuation
    /// starts a run, so `fq`'s run starts at the `k`-th (from 0) non-continuation slot from `b`
    /// (the slot after the cluster when `fq`'s run is new). The table's words hold whole
    /// blocks of 64 slots here, so wrapping at the end is wrapping at a word boundary.
    pub(super) fn run_start_words(&self, fq: u64) -> u64 {
        let words = self.meta.len() / 3;
        let word = |which: usize, w: usize| self.meta[3 * w + which];
        // 1. Back to the last unshifted slot at or before fq.
        let (mut w, bit) = ((fq >> 6) as usize, fq & 63);
        let keep = if bit == 63 {
            u64::MAX
        } else {
            (1u64 << (bit + 1)) - 1
        };
        let mut z = !word(SHF, w) & keep;
        while z == 0 {
            w = if w == 0 { words - 1 } else { w - 1 };
            z = !word(SHF, w);
        }
        let b = (w as u64) * 64 + 63 - u64::from(z.leading_zeros());
        // 2. Occupied quotients in [b, fq), circularly.
        let mut k = 0u64;
        let (mut x, end) = (b, fq);
        while x != end {
            let (xw, xb) = ((x >> 6) as usize, x & 63);
            let same_word = (end >> 6) as usize == xw && end >= x;
            let hi = if same_word { end & 63 } else { 64 };
            let m = (u64::MAX >> (64 - (hi - xb))) << xb;
            k += u64::from((word(OCC, xw) & m).count_ones());
            x = if same_word {
                end
            } else {
                ((xw as u64 + 1) * 64) & self.mask
            };
        }
        // 3. The k-th non-continuation slot from b.
        let (mut w, mut from) = ((b >> 6) as usize, b & 63);
        loop {
            let mut z = !word(CONT, w) & (u64::MAX << from);
            let c = u64::from(z.count_ones());
            if c > k {
                for _ in 0..k {
                    z &= z - 1;
                }
                return (w as u64) * 64 + u64::from(z.trailing_zeros());
            }
            k -= c;
            w = if w + 1 == words { 0 } else { w + 1 };
            from = 0;
        }
    }

    #[cfg(test)]
    /// [`Table::run_start`] slot by slot: walk back to the cluster's start, then forward one
    /// run per occupied quotient until `fq`.
    pub(super) fn run_start_slots(&self, fq: u64) -> u64 {
        let mut b = fq;
        while self.shifted(b) {
            b = self.prev(b);
        }
        let mut s = b;
        while b != fq {
            loop {
                s = self.next(s);
                if !self.continuation(s) {
                    break;
                }
            }
            loop {
                b = self.next(b);
                if self.occupied(b) {
                    break;
                }
            }
        }
        s
    }

    #[cfg(test)]
    /// Insert remainder `fr` into the run of `fq` at its sorted place, shifting what follows
    /// up to the next empty slot one slot forward. The caller keeps one slot empty.
    pub(super) fn insert(&mut self, fq: u64, fr: u64) {
        if self.is_empty_slot(fq) {
            self.put_bit(OCC, fq, true);
            self.write(fq, fr, false, false);
            return;
        }
        let was_occupied = self.occupied(fq);
        self.put_bit(OCC, fq, true);
        let s = self.run_start(fq);
        let mut pos = s;
        if was_occupied {
            loop {
                if self.rem(pos) >= fr {
                    break;
                }
                pos = self.next(pos);
                if !self.continuation(pos) {
                    break;
                }
            }
        }
        // The new remainder heads its run when it goes first; the old head then continues it.
        let new_head = pos == s;
        let (mut rem, mut cont, mut shf) = (fr, !new_head, pos != fq);
        let mut demote = was_occupied && new_head;
        let mut i = pos;
        loop {
            if self.is_empty_slot(i) {
                self.write(i, rem, cont, shf);
                return;
            }
            let (r0, c0) = (self.rem(i), self.continuation(i));
            self.write(i, rem, cont, shf);
            (rem, cont, shf) = (r0, c0 || demote, true);
            demote = false;
            i = self.next(i);
        }
    }

    /// Every stored `(quotient, remainder)` in table order from just after an empty slot,
    /// checking every invariant on the way (the decoder's check, and the walk
    /// [`Table::fingerprints`] uses). Returns the number of stored remainders.
    pub(super) fn scan(&self, mut visit: impl FnMut(u64, u64)) -> std::result::Result<u64, String> {
        let n = self.slots();
        let Some(e) = (0..n).find(|&i| self.is_empty_slot(i)) else {
            return Err("no empty slot (a quotient filter always keeps one)".into());
        };
        let mut pending: VecDeque<u64> = VecDeque::new();
        let mut quot: Option<u64> = None;
        let mut last = 0u64;
        let mut count = 0u64;
        for t in 1..=n {
            let j = (e + t) & self.mask;
            if self.occupied(j) {
                pending.push_back(j);
            }
            let rem = self.rem(j);
            if self.is_empty_slot(j) {
                if rem != 0 {
                    return Err(format!("empty slot {j} holds remainder {rem}"));
                }
                if let Some(x) = pending.front() {
                    return Err(format!("quotient {x} is marked occupied but has no run"));
                }
                quot = None;
                continue;
            }
            if self.continuation(j) {
                if quot.is_none() {
                    return Err(format!("slot {j} continues a run but starts a cluster"));
                }
                if !self.shifted(j) {
                    return Err(format!("slot {j} continues a run but is not shifted"));
                }
                if rem < last {
                    return Err(format!("the remainders of a run are out of order at {j}"));
                }
            } else {
                let Some(x) = pending.pop_front() else {
                    return Err(format!("slot {j} starts a run no occupied quotient owns"));
                };
                if self.shifted(j) != (x != j) {
                    return Err(format!("slot {j}'s shifted bit is wrong"));
                }
                quot = Some(x);
            }
            last = rem;
            count += 1;
            if let Some(x) = quot {
                visit(x, rem);
            }
        }
        Ok(count)
    }

    /// Every stored fingerprint `quotient << r | remainder`, ascending (repeats kept).
    pub(super) fn fingerprints(&self) -> Vec<u64> {
        let mut v = Vec::new();
        let r = self.r;
        // The table's invariants hold (every constructor and the decoder checked them).
        let _ = self.scan(|x, rem| v.push((x << r) | rem));
        v.sort_unstable();
        v
    }
}
