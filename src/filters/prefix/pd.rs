//! The pocket dictionary (PD): 25 fingerprints `(q, r)`, `q < 25`, `r` 8 bits, in 32 bytes
//! (after the authors' `min_pd256`, written anew with portable word operations).
//!
//! Byte layout, little-endian:
//! - bits 0..50 of the first word: the **header**, 25 ones and (up to) 25 zeros. Reading up
//!   from bit 0, quotient q's items are the zeros between the (q−1)-th and the q-th one; an
//!   empty PD is 25 ones. The item stored in body slot `i` is the i-th zero, so its quotient is
//!   the number of ones below it and its header position is `i + q`;
//! - bits 50..55: the last non-empty quotient `qL`, valid once the PD has overflowed;
//! - bit 55: overflowed (the PD has passed at least one item to the spare);
//! - bytes 7..32: the 25 remainders, in header order (by quotient; within a quotient in
//!   insertion order, except the last quotient of an overflowed PD, which is kept sorted so
//!   that byte 31 is the PD's largest remainder of its largest quotient).
//!
//! A query for `(q, r)` finds the body slots holding `r` with a SWAR byte compare over the four
//! words and accepts a slot `i` when header bit `i + q` is a zero with exactly q ones below it
//! (one popcount); no select on the query path. An insert finds the end of quotient q's run
//! with a broadword select ([`select1`]), inserts a zero there and shifts the body up by one.

use crate::theory::prefix::{CAPACITY, QUOTIENTS};

const HEADER_BITS: u32 = QUOTIENTS + CAPACITY;
const HEADER_MASK: u64 = (1 << HEADER_BITS) - 1;
/// Set when the 25th one reached the top of the header: 25 zeros (items) below it.
const FULL_BIT: u64 = 1 << (HEADER_BITS - 1);
const QL_SHIFT: u32 = HEADER_BITS;
const OVERFLOWED: u64 = 1 << 55;
const BODY: usize = 7;
const EMPTY: u64 = (1 << QUOTIENTS) - 1;
const L8: u64 = 0x0101_0101_0101_0101;
const H8: u64 = 0x8080_8080_8080_8080;
const LOW7: u64 = 0x7f7f_7f7f_7f7f_7f7f;

/// One pocket dictionary, aligned so that it never straddles a cache line.
#[repr(C, align(32))]
#[derive(Clone, Copy, PartialEq, Eq)]
pub struct Pd(pub [u8; 32]);

impl Default for Pd {
    fn default() -> Self {
        let mut b = [0u8; 32];
        b[..8].copy_from_slice(&EMPTY.to_le_bytes());
        Pd(b)
    }
}

impl std::fmt::Debug for Pd {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "Pd({} items, header {:#015x})",
            self.len(),
            self.header()
        )
    }
}

/// `select_in_byte[b·8 + j]`: the position of the j-th set bit of byte b (8 when none).
const SELECT_IN_BYTE: [u8; 2048] = {
    let mut t = [8u8; 2048];
    let mut b = 0;
    while b < 256 {
        let mut seen = 0;
        let mut bit = 0;
        while bit < 8 {
            if b >> bit & 1 == 1 {
                t[b * 8 + seen] = bit as u8;
                seen += 1;
            }
            bit += 1;
        }
        b += 1;
    }
    t
};

/// The position of the j-th (from 0) set bit of `x`; `x` must have more than j set bits.
/// Broadword (Vigna, "Broadword implementation of rank/select queries", WEA 2008): byte
/// popcounts, their prefix sums by one multiply, a compare of all eight bytes at once, and a
/// table for the last byte.
#[inline(always)]
#[must_use]
pub fn select1(x: u64, j: u32) -> u32 {
    let mut s = x - ((x >> 1) & 0x5555_5555_5555_5555);
    s = (s & 0x3333_3333_3333_3333) + ((s >> 2) & 0x3333_3333_3333_3333);
    s = (s + (s >> 4)) & 0x0f0f_0f0f_0f0f_0f0f;
    let cum = s.wrapping_mul(L8);
    // Bytes whose running count is ≤ j: no borrow crosses a byte (counts ≤ 64 < 0x80).
    let le = (((u64::from(j) * L8) | H8) - cum) & H8;
    let place = le.count_ones() * 8;
    let before = ((cum << 8) >> place) & 0xff;
    let byte = (x >> place) & 0xff;
    place + u32::from(SELECT_IN_BYTE[(byte as usize) << 3 | (u64::from(j) - before) as usize])
}

/// 0x80 in each byte of `w` that equals the byte broadcast in `pattern`, 0 elsewhere (exact:
/// no carry crosses a byte).
#[inline(always)]
fn eq_bytes(w: u64, pattern: u64) -> u64 {
    let x = w ^ pattern;
    !((((x & LOW7) + LOW7) | x) | LOW7)
}

/// The high bits of the eight bytes of `z` (as [`eq_bytes`] leaves them) as an 8-bit mask.
#[inline(always)]
fn gather(z: u64) -> u64 {
    (z >> 7).wrapping_mul(0x0102_0408_1020_4080) >> 56
}

impl Pd {
    #[inline(always)]
    fn word(&self, i: usize) -> u64 {
        let mut w = [0u8; 8];
        w.copy_from_slice(&self.0[i * 8..i * 8 + 8]);
        u64::from_le_bytes(w)
    }

    /// The first word: header, status and the first remainder.
    #[inline(always)]
    fn w0(&self) -> u64 {
        self.word(0)
    }

    /// Write header and status (the low 7 bytes), keeping the first remainder.
    #[inline(always)]
    fn set_head(&mut self, head: u64) {
        self.0[..7].copy_from_slice(&head.to_le_bytes()[..7]);
    }

    /// The 50-bit header.
    #[inline(always)]
    #[must_use]
    pub fn header(&self) -> u64 {
        self.w0() & HEADER_MASK
    }

    /// Items held (0..=25).
    #[must_use]
    pub fn len(&self) -> u32 {
        let h = self.header();
        63 - h.leading_zeros() - (QUOTIENTS - 1)
    }

    /// Whether it holds no item.
    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.header() == EMPTY
    }

    /// Whether it holds 25 items.
    #[inline(always)]
    #[must_use]
    pub fn is_full(&self) -> bool {
        self.w0() & FULL_BIT != 0
    }

    /// Whether it has passed items to the spare.
    #[must_use]
    pub fn overflowed(&self) -> bool {
        self.w0() & OVERFLOWED != 0
    }

    /// The largest fingerprint `q·256 + r` it keeps, when it has overflowed: a query with a
    /// larger fingerprint is the spare's.
    #[inline(always)]
    #[must_use]
    pub fn spare_threshold(&self) -> Option<u32> {
        let w0 = self.w0();
        if w0 & OVERFLOWED == 0 {
            return None;
        }
        let ql = ((w0 >> QL_SHIFT) & 31) as u32;
        Some(ql << 8 | u32::from(self.0[31]))
    }

    /// Whether it holds fingerprint `(q, r)`. Most absent fingerprints match no remainder
    /// byte (about 91% at 24 items), and leave after the four compares; a match is checked
    /// without a loop when it is the only one.
    #[inline(always)]
    #[must_use]
    pub fn find(&self, q: u32, r: u8) -> bool {
        let pattern = u64::from(r) * L8;
        let w0 = self.w0();
        // Only byte 7 of the first word is a remainder.
        let z0 = eq_bytes(w0, pattern) & (1 << 63);
        let (z1, z2, z3) = (
            eq_bytes(self.word(1), pattern),
            eq_bytes(self.word(2), pattern),
            eq_bytes(self.word(3), pattern),
        );
        if z0 | z1 | z2 | z3 == 0 {
            return false;
        }
        let v = gather(z0) >> BODY | gather(z1) << 1 | gather(z2) << 9 | gather(z3) << 17;
        let h = w0 & HEADER_MASK;
        // Slot i is quotient q's when its zero sits at i + q with q ones below it.
        let owns = |i: u32| {
            let p = i + q;
            (h >> p) & 1 == 0 && (h & ((1u64 << p) - 1)).count_ones() == q
        };
        if owns(v.trailing_zeros()) {
            return true;
        }
        let mut rest = v & (v - 1);
        while rest != 0 {
            if owns(rest.trailing_zeros()) {
                return true;
            }
            rest &= rest - 1;
        }
        false
    }

    /// Insert into a PD that is not full.
    #[inline(always)]
    fn insert_not_full(&mut self, q: u32, r: u8) {
        let w0 = self.w0();
        let h = w0 & HEADER_MASK;
        let end = select1(h, q);
        let low = (1u64 << end) - 1;
        let new_h = (h & low) | ((h & !low) << 1);
        let slot = BODY + (end - q) as usize;
        self.0.copy_within(slot..31, slot + 1);
        self.0[slot] = r;
        self.set_head((w0 & !HEADER_MASK) | new_h);
    }

    /// The last non-empty quotient of a full PD and the length of its run.
    fn last_run(h: u64) -> (u32, u32) {
        let z = 63 - (!h & HEADER_MASK).leading_zeros();
        let run = (h << (63 - z)).leading_zeros().min(CAPACITY);
        (z - (CAPACITY - 1), run)
    }

    /// Sort the last run of a full PD and record its quotient with the overflow bit.
    fn seal(&mut self) {
        let h = self.header();
        let (ql, run) = Self::last_run(h);
        self.0[32 - run as usize..].sort_unstable();
        let w0 = self.w0() & !(31 << QL_SHIFT);
        self.set_head(w0 | OVERFLOWED | u64::from(ql) << QL_SHIFT);
    }

    /// Insert `(q, r)`; returns the fingerprint passed to the spare, if any (the largest of the
    /// 26 when the PD was full: the new one, or the one it evicts).
    #[inline]
    pub fn insert(&mut self, q: u32, r: u8) -> Option<u32> {
        debug_assert!(q < QUOTIENTS);
        if !self.is_full() {
            self.insert_not_full(q, r);
            return None;
        }
        self.insert_full(q, r)
    }

    #[cold]
    fn insert_full(&mut self, q: u32, r: u8) -> Option<u32> {
        if !self.overflowed() {
            self.seal();
        }
        let max = self.spare_threshold().unwrap_or(u32::MAX);
        let fp = q << 8 | u32::from(r);
        if fp >= max {
            return Some(fp);
        }
        // Evict the largest: body slot 24, the last zero of the header at 24 + qL.
        let w0 = self.w0();
        let h = w0 & HEADER_MASK;
        let z = (CAPACITY - 1) + (max >> 8);
        let low = (1u64 << z) - 1;
        let new_h = (h & low) | ((h >> (z + 1)) << z);
        self.0[31] = 0;
        self.set_head((w0 & !HEADER_MASK) | new_h);
        self.insert_not_full(q, r);
        self.seal();
        Some(max)
    }

    /// Every fingerprint it holds, `(q, r)` in body order (tests, details).
    #[must_use]
    pub fn items(&self) -> Vec<(u32, u8)> {
        let h = self.header();
        let mut out = Vec::new();
        let (mut q, mut slot) = (0u32, 0usize);
        for pos in 0..HEADER_BITS {
            if h >> pos & 1 == 1 {
                q += 1;
                if q == QUOTIENTS {
                    break;
                }
            } else {
                out.push((q, self.0[BODY + slot]));
                slot += 1;
            }
        }
        out
    }

    /// Check the invariants a loaded PD must keep: 25 ones in the header, nothing above them,
    /// a consistent overflow status.
    ///
    /// # Errors
    /// A description of the first broken one.
    pub fn check(&self) -> std::result::Result<(), String> {
        let w0 = self.w0();
        let h = w0 & HEADER_MASK;
        if h.count_ones() != QUOTIENTS {
            return Err(format!("header has {} ones, not 25", h.count_ones()));
        }
        let n = self.len() as usize;
        if self.0[BODY + n..].iter().any(|&b| b != 0) {
            return Err("bytes past the last item are not zero".into());
        }
        if w0 & OVERFLOWED != 0 {
            if !self.is_full() {
                return Err("overflowed but not full".into());
            }
            let (ql, run) = Self::last_run(h);
            if ((w0 >> QL_SHIFT) & 31) as u32 != ql {
                return Err("last quotient does not match the header".into());
            }
            if !self.0[32 - run as usize..].is_sorted() {
                return Err("last run not sorted".into());
            }
        } else if (w0 >> QL_SHIFT) & 31 != 0 {
            return Err("status bits set without an overflow".into());
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn select_naive(x: u64, j: u32) -> u32 {
        (0..64)
            .filter(|&i| x >> i & 1 == 1)
            .nth(j as usize)
            .unwrap()
    }

    #[test]
    fn select1_matches_a_scan() {
        let mut s = 0x1234_5678_9abc_def0u64;
        for _ in 0..20_000 {
            s = crate::hash::mix64(s);
            let x = s & (s >> 7) | 1;
            for j in 0..x.count_ones() {
                assert_eq!(select1(x, j), select_naive(x, j), "{x:#x} {j}");
            }
        }
        assert_eq!(select1(u64::MAX, 63), 63);
        assert_eq!(select1(1 << 63, 0), 63);
    }

    #[test]
    fn eq_bytes_is_exact() {
        for r in [0u8, 1, 0x7f, 0x80, 0xff] {
            let w = u64::from_le_bytes([r, 0, r ^ 1, r, 0x80, 0x7f, r, 0xff]);
            let got = gather(eq_bytes(w, u64::from(r) * L8));
            let want = w
                .to_le_bytes()
                .iter()
                .enumerate()
                .filter(|(_, b)| **b == r)
                .fold(0, |a, (i, _)| a | 1 << i);
            assert_eq!(got, want, "{r}");
        }
    }

    #[test]
    fn holds_25_then_keeps_the_smallest_and_passes_the_rest() {
        let mut pd = Pd::default();
        assert_eq!(pd.len(), 0);
        assert!(pd.is_empty());
        let mut all: Vec<u32> = Vec::new();
        let mut passed = Vec::new();
        let mut s = 7u64;
        for i in 0..60 {
            s = crate::hash::mix64(s);
            let fp = (s % 6400) as u32;
            let (q, r) = (fp >> 8, fp as u8);
            all.push(fp);
            if let Some(x) = pd.insert(q, r) {
                passed.push(x);
            }
            pd.check().unwrap();
            assert_eq!(pd.len() as usize, (i + 1).min(25));
            assert!(!pd.is_empty());
            assert!(pd.find(q, r) || passed.contains(&fp));
        }
        // The PD keeps exactly the 25 smallest fingerprints; the spare got the other 35.
        all.sort_unstable();
        let mut kept: Vec<u32> = pd
            .items()
            .iter()
            .map(|&(q, r)| q << 8 | u32::from(r))
            .collect();
        kept.sort_unstable();
        assert_eq!(kept, all[..25]);
        passed.sort_unstable();
        assert_eq!(passed, all[25..]);
        assert_eq!(pd.spare_threshold(), Some(all[24]));
        for &fp in &all[..25] {
            assert!(pd.find(fp >> 8, fp as u8));
        }
    }

    #[test]
    fn finds_exactly_what_it_holds() {
        let mut pd = Pd::default();
        let fps = [(0, 0u8), (3, 0), (3, 7), (24, 255), (24, 0), (10, 0)];
        for &(q, r) in &fps {
            assert_eq!(pd.insert(q, r), None);
        }
        for q in 0..25 {
            for r in 0..=255u8 {
                assert_eq!(pd.find(q, r), fps.contains(&(q, r)), "{q} {r}");
            }
        }
    }
}
