//! The rank-select table of a quotient filter (Pandey, Bender, Johnson & Patro 2017, "A
//! General-Purpose Counting Filter: Making Every Bit Count", SIGMOD, §3).
//!
//! `N = 2^q` slots in blocks of 64. Per block: an `occupieds` word (bit `i`: quotient
//! `64b + i` has a run), a `runends` word (bit `i`: slot `64b + i` ends a run), 64 packed `r`-bit
//! remainders and an 8-bit *offset*: how many slots from the block's first slot on are taken
//! by runs of quotients before it (255 means "255 or more", computed from an earlier block when
//! needed). Runs are stored in quotient order, each sorted, every run at or after its quotient;
//! the table is a circle (a run reaching slot `N − 1` goes on at slot 0).
//!
//! **Finding a run** (`run_end`): the run of quotient `x` is the `d`-th run whose quotient lies
//! in `x`'s block at or before `x` (`d` = a popcount of `occupieds`), so it ends at the `d`-th
//! set `runends` bit from the block's offset on — one rank and one select, instead of the
//! classic layout's walk back to the cluster's start. Positions are *unwrapped*: a run end is
//! reported as a number `≥ x` that may pass `N` (callers reduce it modulo `N`).
//!
//! Tables of fewer than 64 slots (q < 6) keep one partly used block and find runs by a walk
//! ([`Table::scan`]); they exist for the diagrams and tests, where a run wraps after a few slots.
//!
//! Space: per 64 slots, `2·64 + 8` metadata bits: 2.125 bits a slot (against 3 in the classic
//! layout, see `legacy.rs`), plus the remainders.

use super::select;
use crate::bits::try_zeroed;
use crate::error::{Error, Result};
use std::collections::VecDeque;

/// Saturated offset: the real offset is this or more.
const SAT: u8 = u8::MAX;

/// Slots, blocks and the offsets.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct Table {
    /// Per block, `2 + r` words: occupieds, runends, then the remainders (slot `64b + i` at
    /// bits `i·r ..` of the block's remainder words); one zero word after the last block, so a
    /// remainder is always read from two words without a bounds case.
    pub(super) data: Vec<u64>,
    /// Per block, its offset (saturated at 255).
    pub(super) offs: Vec<u8>,
    /// Slots, `2^q`.
    n: u64,
    r: u32,
    /// Words per block, `2 + r`.
    stride: usize,
    /// Blocks − 1 (blocks are a power of two).
    bmask: u64,
    /// Whether select may use BMI2's `pdep` (not part of the table's value).
    bmi2: Bmi2,
}

/// Whether this CPU has BMI2: equal for every table (so it never makes two tables differ).
#[derive(Debug, Clone, Copy)]
struct Bmi2(bool);

impl PartialEq for Bmi2 {
    fn eq(&self, _: &Self) -> bool {
        true
    }
}
impl Eq for Bmi2 {}

/// [`Table::contains`] as a [`select::Op`].
struct Contains<'a>(&'a Table, u64, u64);

impl select::Op for Contains<'_> {
    type Out = bool;
    #[inline(always)]
    fn run(self, pdep: bool) -> bool {
        self.0.contains_k(self.1, self.2, pdep)
    }
}

/// [`Table::insert`] as a [`select::Op`].
struct Insert<'a>(&'a mut Table, u64, u64);

impl select::Op for Insert<'_> {
    type Out = ();
    #[inline(always)]
    fn run(self, pdep: bool) {
        self.0.insert_k(self.1, self.2, pdep);
    }
}

/// [`Table::remove`] as a [`select::Op`].
struct Remove<'a>(&'a mut Table, u64, u64);

impl select::Op for Remove<'_> {
    type Out = bool;
    #[inline(always)]
    fn run(self, pdep: bool) -> bool {
        self.0.remove_k(self.1, self.2, pdep)
    }
}

/// Blocks of 64 slots for `2^q` slots (one, partly used, below 64).
pub(super) fn blocks(q: u32) -> u64 {
    ((1u64 << q) / 64).max(1)
}

/// Words of block data (without the padding word) for `2^q` slots of `r` bits.
pub(super) fn data_words(q: u32, r: u32) -> u64 {
    blocks(q) * (2 + u64::from(r))
}

#[inline(always)]
fn below_incl(i: u64) -> u64 {
    u64::MAX >> (63 - i)
}

impl Table {
    pub(super) fn new(q: u32, r: u32) -> Result<Self> {
        let w = data_words(q, r) + 1;
        let too_big = |x: u64| Error::Allocation {
            bytes: u128::from(x) * 8,
        };
        let data = try_zeroed(usize::try_from(w).map_err(|_| too_big(w))?)?;
        let b = blocks(q);
        let offs = try_zeroed(usize::try_from(b).map_err(|_| too_big(b))?)?;
        Ok(Self::from_words(data, offs, q, r))
    }

    /// Wrap block words (with the padding word) and offsets of the right lengths (checked by
    /// the caller).
    pub(super) fn from_words(data: Vec<u64>, offs: Vec<u8>, q: u32, r: u32) -> Self {
        Self {
            data,
            offs,
            n: 1u64 << q,
            r,
            stride: 2 + r as usize,
            bmask: blocks(q) - 1,
            bmi2: Bmi2(select::bmi2_available()),
        }
    }

    pub(super) fn slots(&self) -> u64 {
        self.n
    }

    /// This table with the portable select and popcount (no BMI2), whatever the CPU has.
    #[cfg(test)]
    pub(super) fn portable(mut self) -> Self {
        self.bmi2 = Bmi2(false);
        self
    }

    /// Whether this table's operations run the BMI2 code.
    #[cfg(test)]
    pub(super) fn uses_bmi2(&self) -> bool {
        self.bmi2.0
    }

    /// Whether this table finds runs by rank and select (64 slots or more).
    #[inline(always)]
    fn ranked(&self) -> bool {
        self.n >= 64
    }

    #[inline(always)]
    fn wrap(&self, i: u64) -> u64 {
        i & (self.n - 1)
    }

    #[inline(always)]
    fn base(&self, b: u64) -> usize {
        (b & self.bmask) as usize * self.stride
    }

    #[inline(always)]
    fn occ_word(&self, b: u64) -> u64 {
        self.data[self.base(b)]
    }

    #[inline(always)]
    fn end_word(&self, b: u64) -> u64 {
        self.data[self.base(b) + 1]
    }

    #[inline(always)]
    pub(super) fn occupied(&self, x: u64) -> bool {
        let x = self.wrap(x);
        (self.occ_word(x >> 6) >> (x & 63)) & 1 == 1
    }

    #[inline(always)]
    pub(super) fn runend(&self, i: u64) -> bool {
        let i = self.wrap(i);
        (self.end_word(i >> 6) >> (i & 63)) & 1 == 1
    }

    #[inline(always)]
    fn put(&mut self, word: usize, i: u64, v: bool) {
        let i = self.wrap(i);
        let at = self.base(i >> 6) + word;
        let w = &mut self.data[at];
        let bit = 1u64 << (i & 63);
        if v {
            *w |= bit;
        } else {
            *w &= !bit;
        }
    }

    #[inline(always)]
    fn set_occupied(&mut self, x: u64, v: bool) {
        self.put(0, x, v);
    }

    #[inline(always)]
    fn set_runend(&mut self, i: u64, v: bool) {
        self.put(1, i, v);
    }

    #[inline(always)]
    pub(super) fn rem(&self, i: u64) -> u64 {
        let i = self.wrap(i);
        let bit = (i & 63) * u64::from(self.r);
        let w = self.base(i >> 6) + 2 + (bit >> 6) as usize;
        let two = u128::from(self.data[w]) | (u128::from(self.data[w + 1]) << 64);
        ((two >> (bit & 63)) as u64) & ((1u64 << self.r) - 1)
    }

    #[inline(always)]
    pub(super) fn set_rem(&mut self, i: u64, v: u64) {
        let i = self.wrap(i);
        let bit = (i & 63) * u64::from(self.r);
        let w = self.base(i >> 6) + 2 + (bit >> 6) as usize;
        let sh = bit & 63;
        let mask = ((1u128 << self.r) - 1) << sh;
        let two = u128::from(self.data[w]) | (u128::from(self.data[w + 1]) << 64);
        let two = (two & !mask) | (u128::from(v) << sh);
        self.data[w] = two as u64;
        if sh + u64::from(self.r) > 64 {
            self.data[w + 1] = (two >> 64) as u64;
        }
    }

    /// Write remainder `v` into slot `i`, which holds 0 (the bulk layout into a zeroed table).
    #[inline(always)]
    fn or_rem(&mut self, i: u64, v: u64) {
        let i = self.wrap(i);
        let bit = (i & 63) * u64::from(self.r);
        let w = self.base(i >> 6) + 2 + (bit >> 6) as usize;
        let sh = bit & 63;
        self.data[w] |= v << sh;
        if sh + u64::from(self.r) > 64 {
            self.data[w + 1] |= v >> (64 - sh);
        }
    }

    /// Block `b`'s offset, computed from an earlier block when its byte is saturated.
    #[inline(always)]
    fn offset(&self, b: u64) -> u64 {
        let o = self.offs[(b & self.bmask) as usize];
        if o == SAT {
            self.offset_slow(b & self.bmask)
        } else {
            u64::from(o)
        }
    }

    /// A saturated offset: back to the nearest block whose predecessor's byte is exact (one
    /// exists: the block holding an empty slot has an offset below 64), then forward one
    /// block at a time, each offset from the previous block's last run end.
    #[cold]
    fn offset_slow(&self, b: u64) -> u64 {
        let m = self.bmask;
        let mut c = b;
        while self.offs[(c.wrapping_sub(1) & m) as usize] == SAT {
            c = c.wrapping_sub(1) & m;
        }
        let p = c.wrapping_sub(1) & m;
        let mut off =
            self.run_end_with(p, 63, u64::from(self.offs[p as usize]), false) + 1 - 64 * (p + 1);
        while c != b {
            off = self.run_end_with(c, 63, off, false) + 1 - 64 * (c + 1);
            c = (c + 1) & m;
        }
        off
    }

    /// The end (unwrapped, `≥ x`) of the run of the last occupied quotient at or before `x`
    /// in its cluster, or `x` when no run reaches `x`. For an occupied `x` that is its own
    /// run's last slot; for any `x`, the slot after it is where a new run of quotient `x + 1`
    /// would begin.
    #[cfg(test)]
    pub(super) fn run_end(&self, x: u64) -> u64 {
        self.run_end_k(x, false)
    }

    /// [`Table::run_end`], selecting with `pdep` when `pdep` ([`select::select`]).
    #[inline(always)]
    fn run_end_k(&self, x: u64, pdep: bool) -> u64 {
        if self.ranked() {
            let b = x >> 6;
            self.run_end_with(b, x & 63, self.offset(b), pdep)
        } else {
            self.run_end_walk(x)
        }
    }

    /// [`Table::run_end`] of slot `64b + i` given block `b`'s offset.
    #[inline(always)]
    fn run_end_with(&self, b: u64, i: u64, off: u64, pdep: bool) -> u64 {
        let x = b * 64 + i;
        let d = (self.occ_word(b) & below_incl(i)).count_ones();
        if d == 0 {
            return if off <= i { x } else { b * 64 + off - 1 };
        }
        let (mut blk, mut skip, mut k) = (b + off / 64, off & 63, d - 1);
        loop {
            let w = self.end_word(blk) & (u64::MAX << skip);
            let c = w.count_ones();
            if k < c {
                return (blk * 64 + u64::from(select::select(w, k, pdep))).max(x);
            }
            k -= c;
            blk += 1;
            skip = 0;
        }
    }

    /// The first empty slot at or after `j` (unwrapped). Each step jumps by a count of runs
    /// that must still end at or after the slot looked at, a lower bound on the distance.
    #[inline(always)]
    pub(super) fn first_empty(&self, mut j: u64) -> u64 {
        if !self.ranked() {
            return self.first_empty_walk(j);
        }
        loop {
            let (b, i) = (j >> 6, j & 63);
            let off = self.offset(b);
            let occ = u64::from((self.occ_word(b) & below_incl(i)).count_ones());
            let jump = if off > i {
                off + occ - i
            } else {
                let ends = self.end_word(b) & below_incl(i) & !(below_incl(off) >> 1);
                let ends = ends & !(1u64 << i);
                occ - u64::from(ends.count_ones())
            };
            if jump == 0 {
                return j;
            }
            j += jump;
        }
    }

    /// Whether remainder `fr` is in the run of `fq`: back from the run's end over remainders
    /// in descending order.
    #[inline]
    pub(super) fn contains(&self, fq: u64, fr: u64) -> bool {
        select::dispatch(self.bmi2.0, Contains(self, fq, fr))
    }

    #[inline(always)]
    fn contains_k(&self, fq: u64, fr: u64, pdep: bool) -> bool {
        if !self.occupied(fq) {
            return false;
        }
        let mut i = self.run_end_k(fq, pdep);
        loop {
            let v = self.rem(i);
            if v <= fr {
                return v == fr;
            }
            if i == fq || self.runend(i - 1) {
                return false;
            }
            i -= 1;
        }
    }

    /// Add `1` (or take `1`, `up = false`) to the offsets of the blocks whose first slot lies
    /// in `(from, to]` (unwrapped); taking from a saturated one is redone once the rest is.
    fn adjust_offsets(&mut self, from: u64, to: u64, up: bool) {
        if !self.ranked() {
            return;
        }
        let mut redo = Vec::new();
        for blk in (from >> 6) + 1..=(to >> 6) {
            let k = (blk & self.bmask) as usize;
            let o = self.offs[k];
            if up {
                self.offs[k] = o.saturating_add(1);
            } else if o == SAT {
                redo.push(blk);
            } else {
                self.offs[k] = o - 1;
            }
        }
        for blk in redo {
            let v = self.offset_slow(blk & self.bmask);
            self.offs[(blk & self.bmask) as usize] = v.min(u64::from(SAT)) as u8;
        }
    }

    /// Insert remainder `fr` into the run of `fq` at its sorted place, shifting what follows up
    /// to the next empty slot one slot on. The caller keeps one slot empty.
    pub(super) fn insert(&mut self, fq: u64, fr: u64) {
        select::dispatch(self.bmi2.0, Insert(self, fq, fr));
    }

    #[inline(always)]
    fn insert_k(&mut self, fq: u64, fr: u64, pdep: bool) {
        let was = self.occupied(fq);
        // Unoccupied: the new run goes at the first empty slot from fq on (every slot from fq
        // to the run end before it is taken).
        let free = if was {
            None
        } else {
            Some(self.first_empty(fq))
        };
        if free == Some(fq) {
            self.set_occupied(fq, true);
            self.set_runend(fq, true);
            self.set_rem(fq, fr);
            return;
        }
        let e = self.run_end_k(fq, pdep);
        let mut pos = e + 1;
        if was {
            let mut i = e;
            loop {
                if self.rem(i) <= fr {
                    break;
                }
                pos = i;
                if i == fq || self.runend(i - 1) {
                    break;
                }
                i -= 1;
            }
        }
        let empty = free.unwrap_or_else(|| self.first_empty(pos));
        self.shift_up(pos, empty);
        self.set_rem(pos, fr);
        let ends = pos == e + 1;
        if was && ends {
            self.set_runend(e, false);
        }
        self.set_runend(pos, ends);
        self.set_occupied(fq, true);
        self.adjust_offsets(fq, empty, true);
    }

    /// Remove one copy of remainder `fr` from the run of `fq`; `false` (nothing changed) when
    /// the run does not hold it.
    pub(super) fn remove(&mut self, fq: u64, fr: u64) -> bool {
        select::dispatch(self.bmi2.0, Remove(self, fq, fr))
    }

    #[inline(always)]
    fn remove_k(&mut self, fq: u64, fr: u64, pdep: bool) -> bool {
        if !self.occupied(fq) {
            return false;
        }
        let e = self.run_end_k(fq, pdep);
        let mut i = e;
        let found = loop {
            let v = self.rem(i);
            if v == fr {
                break i;
            }
            if v < fr || i == fq || self.runend(i - 1) {
                return false;
            }
            i -= 1;
        };
        let alone = found == e && (found == fq || self.runend(found - 1));
        // The last slot to move back: follow run ends until one has no run after it that
        // began before it (every slot in between holds a shifted remainder).
        let mut h = e;
        loop {
            let base = h - self.wrap(h);
            let next = base + self.run_end_k(self.wrap(h), pdep);
            if next == h {
                break;
            }
            h = next;
        }
        if alone {
            self.set_occupied(fq, false);
        } else if found == e {
            self.set_runend(e - 1, true);
        }
        self.shift_down(found, h);
        self.adjust_offsets(fq, h, false);
        true
    }

    /// Move slots `[from, to)` (unwrapped) one slot on, to `[from + 1, to]`.
    fn shift_up(&mut self, from: u64, to: u64) {
        let mut j = to;
        while j > from {
            let (v, e) = (self.rem(j - 1), self.runend(j - 1));
            self.set_rem(j, v);
            self.set_runend(j, e);
            j -= 1;
        }
    }

    /// Move slots `(from, to]` (unwrapped) one slot back, to `[from, to)`, and empty `to`.
    fn shift_down(&mut self, from: u64, to: u64) {
        for j in from..to {
            let (v, e) = (self.rem(j + 1), self.runend(j + 1));
            self.set_rem(j, v);
            self.set_runend(j, e);
        }
        self.set_rem(to, 0);
        self.set_runend(to, false);
    }

    /// Slot by slot from just after an empty slot (the cluster boundary where the running
    /// count of occupieds minus runends is least): visit `(slot, its run's quotient)` for every
    /// used slot, in table order, checking every invariant on the way (the decoder's check:
    /// runs owned by occupied quotients in order, sorted, empty slots zero, an empty slot at
    /// least, every offset exact). Returns the number of stored remainders.
    pub(super) fn scan(&self, mut visit: impl FnMut(u64, u64)) -> std::result::Result<u64, String> {
        let n = self.n;
        let (mut sum, mut least, mut at) = (0i64, i64::MAX, 0u64);
        for j in 0..n {
            sum += i64::from(self.occupied(j)) - i64::from(self.runend(j));
            if sum < least {
                (least, at) = (sum, j);
            }
        }
        if sum != 0 {
            return Err(format!(
                "{} occupied quotients but {} run ends",
                (0..n).filter(|&j| self.occupied(j)).count(),
                (0..n).filter(|&j| self.runend(j)).count()
            ));
        }
        let a = self.wrap(at + 1);
        // Walk positions from a: quotient x is at t = (x − a) mod n.
        let t_of = |x: u64| self.wrap(x.wrapping_sub(a));
        let mut pending: VecDeque<u64> = VecDeque::new();
        // Offsets still being counted: (block, walk position of its first slot, count).
        let mut open: VecDeque<(u64, u64, u64)> = VecDeque::new();
        let mut want = vec![0u64; self.offs.len()];
        let (mut count, mut empties) = (0u64, 0u64);
        // The previous used slot's run quotient and remainder (runs must be sorted).
        let mut prev: Option<(u64, u64)> = None;
        for t in 0..n {
            let j = self.wrap(a + t);
            if self.ranked() && j & 63 == 0 {
                open.push_back((j >> 6, t, 0));
            }
            if self.occupied(j) {
                pending.push_back(j);
            }
            let rem = self.rem(j);
            let Some(&x) = pending.front() else {
                if self.runend(j) || rem != 0 {
                    return Err(format!("empty slot {j} holds a run end or remainder {rem}"));
                }
                empties += 1;
                prev = None;
                while let Some((b, _, c)) = open.pop_front() {
                    want[b as usize] = c;
                }
                continue;
            };
            let tx = t_of(x);
            while let Some(&(b, ts, c)) = open.front() {
                if tx < ts {
                    open.front_mut().expect("just seen").2 = c + 1;
                    break;
                }
                want[b as usize] = c;
                open.pop_front();
            }
            for o in open.iter_mut().skip(1) {
                if tx < o.1 {
                    o.2 += 1;
                }
            }
            if prev.is_some_and(|(px, pr)| px == x && rem < pr) {
                return Err(format!("the remainders of a run are out of order at {j}"));
            }
            visit(j, x);
            prev = Some((x, rem));
            count += 1;
            if self.runend(j) {
                pending.pop_front();
            }
        }
        if empties == 0 {
            return Err("no empty slot (a quotient filter always keeps one)".into());
        }
        if let Some(x) = pending.front() {
            return Err(format!(
                "quotient {x} is marked occupied but its run never ends"
            ));
        }
        while let Some((b, _, c)) = open.pop_front() {
            want[b as usize] = c;
        }
        if self.ranked() {
            for (b, (&have, &w)) in self.offs.iter().zip(&want).enumerate() {
                if u64::from(have) != w.min(u64::from(SAT)) {
                    return Err(format!("block {b}'s offset is {have}, its runs say {w}"));
                }
            }
        } else if self.offs.iter().any(|&o| o != 0) {
            return Err("a table under 64 slots keeps no offset".into());
        }
        Ok(count)
    }

    /// Every used slot's run quotient (`None` when empty), for the walks of small tables and
    /// the view. The table's invariants hold (every constructor and the decoder checked them).
    pub(super) fn owners(&self) -> Vec<Option<u64>> {
        let mut o = vec![None; self.n as usize];
        let _ = self.scan(|j, x| o[j as usize] = Some(x));
        o
    }

    /// [`Table::run_end`] by a walk (tables under 64 slots): forward from `x` over the slots
    /// whose run's quotient is at or before `x` (a used slot's quotient is `d` slots behind it
    /// for some `d ≥ 0`; it is at or before `x` when `d` reaches back to `x` or further).
    pub(super) fn run_end_walk(&self, x: u64) -> u64 {
        self.run_end_in(&self.owners(), x)
    }

    /// [`Table::run_end_walk`] given the table's [`Table::owners`].
    pub(super) fn run_end_in(&self, o: &[Option<u64>], x: u64) -> u64 {
        let x0 = self.wrap(x);
        let mut s = 0;
        while let Some(y) = o[self.wrap(x0 + s) as usize] {
            if self.wrap((x0 + s).wrapping_sub(y)) < s {
                break;
            }
            s += 1;
        }
        x + s.saturating_sub(1)
    }

    pub(super) fn first_empty_walk(&self, j: u64) -> u64 {
        self.first_empty_in(&self.owners(), j)
    }

    /// [`Table::first_empty_walk`] given the table's [`Table::owners`].
    pub(super) fn first_empty_in(&self, o: &[Option<u64>], j: u64) -> u64 {
        let mut k = j;
        while o[self.wrap(k) as usize].is_some() {
            k += 1;
        }
        k
    }

    /// Every stored fingerprint `quotient << r | remainder`, ascending (repeats kept).
    pub(super) fn fingerprints(&self) -> Vec<u64> {
        let mut v = Vec::new();
        let r = self.r;
        // The table's invariants hold (every constructor and the decoder checked them).
        let _ = self.scan(|j, x| v.push((x << r) | self.rem(j)));
        v.sort_unstable();
        v
    }

    /// Lay out ascending fingerprints (fewer than the slots) into this empty table: each at
    /// the first free slot at or after its quotient, wrapping past the end, in one pass left
    /// to right (the bulk build, merge and resize). The spill of the last cluster past slot
    /// `2^q − 1` is what the first elements must leave free; it is a fixed point of "place
    /// everything from this start", reached in at most two passes (see the module tests).
    /// Offsets are set from the unwrapped positions: a slot at `p` holding quotient `x < s`
    /// for a block's first slot `s ≤ p` is one of that block's offset slots.
    pub(super) fn place_sorted(&mut self, fps: &[u64]) {
        let n = self.n;
        let r = self.r;
        let spill = |start: u64| {
            let mut next = start;
            for &fp in fps {
                next = next.max(fp >> r) + 1;
            }
            next.saturating_sub(n)
        };
        let mut carry = 0;
        loop {
            let out = spill(carry);
            if out <= carry {
                break;
            }
            carry = out;
        }
        let mut next = carry;
        let low = (1u64 << r) - 1;
        for (k, &fp) in fps.iter().enumerate() {
            let fq = fp >> r;
            let pos = next.max(fq);
            next = pos + 1;
            self.set_occupied(fq, true);
            self.or_rem(pos, fp & low);
            if fps.get(k + 1).is_none_or(|&g| g >> r != fq) {
                self.set_runend(pos, true);
            }
            if self.ranked() {
                for blk in (fq >> 6) + 1..=(pos >> 6) {
                    let o = (pos - blk * 64 + 1).min(u64::from(SAT)) as u8;
                    let slot = &mut self.offs[(blk & self.bmask) as usize];
                    *slot = (*slot).max(o);
                }
            }
        }
    }
}
