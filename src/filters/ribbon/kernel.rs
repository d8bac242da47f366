//! The ribbon filter's word kernels: `r` parities at once, the query over the interleaved
//! solution, and the per-width dispatch.
//!
//! **Parities eight at a time.** The default x86-64 target has no `popcnt` instruction, so a
//! parity is a fold of the word onto itself. Folding each of eight words to one bit separately
//! costs three shift-XORs a word before the bits can be gathered. [`parity8`] instead folds two
//! words into one at every step (a butterfly): word `a`'s 64 bits fold onto its low 32, word
//! `b`'s onto its high 32, and the two halves are one word again; then 32 → 16 and 16 → 8 bits
//! the same way, so that after three steps byte `i` of one word has the parity of word `i`. The
//! first step works on four independent pairs and the second on two: the compiler keeps them in
//! vector registers (SSE2 lanes). The last step folds the eight bytes together and a multiply
//! gathers their bits (the products' exponents are distinct, so nothing carries).
//!
//! **One monomorphic query per width.** With `R` a constant the block's `R` words are a
//! fixed-length slice (one bounds check), the loops unroll, and words past `R` in the last group
//! of eight are constant zeros the compiler drops. [`with_width`] picks the instance for a run-time
//! `r` (a jump table, one predictable branch per query).

/// Bit `i` = the parity of `x[i]`.
#[inline(always)]
#[must_use]
pub(super) fn parity8(x: [u64; 8]) -> u32 {
    const LO32: u64 = 0x0000_0000_ffff_ffff;
    const LO16: u64 = 0x0000_ffff_0000_ffff;
    const LO8: u64 = 0x00ff_00ff_00ff_00ff;
    // Fold every 2s-bit field of `a` onto its low s bits and of `b` onto its high s bits: each
    // field keeps its word's parity.
    #[inline(always)]
    fn fold(a: u64, b: u64, s: u32, lo: u64) -> u64 {
        ((a ^ (a >> s)) & lo) | ((b ^ (b << s)) & !lo)
    }
    // Byte i of `v` ends up holding word i: pairing i with i + 4, then i with i + 2, then 0
    // with 1 puts word 4h + 2d + e in byte 4h + 2d + e.
    let y = [
        fold(x[0], x[4], 32, LO32),
        fold(x[1], x[5], 32, LO32),
        fold(x[2], x[6], 32, LO32),
        fold(x[3], x[7], 32, LO32),
    ];
    let z = [fold(y[0], y[2], 16, LO16), fold(y[1], y[3], 16, LO16)];
    let mut v = fold(z[0], z[1], 8, LO8);
    v ^= v >> 4;
    v ^= v >> 2;
    v ^= v >> 1;
    // Bit 8i moves to bit 56 + i.
    ((v & 0x0101_0101_0101_0101).wrapping_mul(0x0102_0408_1020_4080) >> 56) as u32
}

/// Bit `j` (`j < R`) = the parity of `f(j)`, eight words at a time.
#[inline(always)]
#[must_use]
pub(super) fn parities<const R: usize>(f: impl Fn(usize) -> u64) -> u32 {
    let mut out = 0u32;
    let mut g = 0;
    while g < R {
        let mut x = [0u64; 8];
        for (i, w) in x.iter_mut().enumerate() {
            if g + i < R {
                *w = f(g + i);
            }
        }
        out |= parity8(x) << g;
        g += 8;
    }
    out
}

/// The two blocks of the window starting at row `s` with coefficients `c`, over the interleaved
/// `solution` of `last + 1` blocks (block `b` = words `b·R .. b·R + R`, word `j` holding bit `j`
/// of the block's 64 rows), and the coefficients' halves that pick from each.
#[inline(always)]
fn blocks<const R: usize>(solution: &[u64], last: usize, s: u64, c: u64) -> [(&[u64], u64); 2] {
    let block = (s / 64) as usize;
    let off = (s % 64) as u32;
    // Rows s .. s+64: `lo` from this block, `hi` from the next (none when the window starts a
    // block, which the last start does: then `c_hi` is 0 and the last block is read twice).
    let c_lo = c << off;
    let c_hi = (c >> 1) >> (63 - off);
    let next = (block + 1).min(last);
    [
        (&solution[block * R..block * R + R], c_lo),
        (&solution[next * R..next * R + R], c_hi),
    ]
}

/// The `R` result bits of the window starting at row `s` with coefficients `c` ([`blocks`]):
/// bit `j` the parity of the window's column `j` under `c`.
#[inline(always)]
#[must_use]
pub(super) fn window<const R: usize>(solution: &[u64], last: usize, s: u64, c: u64) -> u32 {
    let [(lo, c_lo), (hi, c_hi)] = blocks::<R>(solution, last, s, c);
    parities::<R>(|j| (lo[j] & c_lo) ^ (hi[j] & c_hi))
}

/// [`window`] with one `count_ones` a word: the hot path of CPUs with POPCNT (compiled into
/// `avx2::run_avx2`, where it is one instruction; without POPCNT the fold of [`parities`] is
/// shorter).
#[inline(always)]
#[must_use]
pub(super) fn window_popcnt<const R: usize>(solution: &[u64], last: usize, s: u64, c: u64) -> u32 {
    let [(lo, c_lo), (hi, c_hi)] = blocks::<R>(solution, last, s, c);
    let mut out = 0u32;
    for j in (0..R).rev() {
        out = (out << 1) | (((lo[j] & c_lo) ^ (hi[j] & c_hi)).count_ones() & 1);
    }
    out
}

/// Back-substitute the banded rows (`coeff[i]` with its own column at bit 0, `result[i]`) from
/// the last row up into the interleaved solution of `R`-bit rows (`solution` holds
/// `coeff.len() / 64 · R` words; rows left empty are free and get 0).
pub(super) fn back_substitute<const R: usize>(coeff: &[u64], result: &[u32], solution: &mut [u64]) {
    // state[j] bit k = bit j of the solution at row i + k (the rows after i, shifted in).
    let mut state = [0u64; R];
    for (b, block) in solution.chunks_exact_mut(R).enumerate().rev() {
        let rows = b * 64..b * 64 + 64;
        for (&c, &f) in coeff[rows.clone()].iter().zip(&result[rows]).rev() {
            for w in &mut state {
                *w <<= 1;
            }
            // c's bit 0 is this row's own column: the rest select rows i+1 .. i+64, now at
            // bits 1.. of the shifted state.
            let bits = parities::<R>(|j| state[j] & c) ^ f;
            for (j, w) in state.iter_mut().enumerate() {
                *w |= u64::from((bits >> j) & 1);
            }
        }
        block.copy_from_slice(&state);
    }
}

/// Call `$f::<R>($args)` for the run-time width `$r` (1 to 32).
macro_rules! with_width {
    ($r:expr, $f:ident($($arg:expr),*)) => {
        match $r {
            1 => $f::<1>($($arg),*),
            2 => $f::<2>($($arg),*),
            3 => $f::<3>($($arg),*),
            4 => $f::<4>($($arg),*),
            5 => $f::<5>($($arg),*),
            6 => $f::<6>($($arg),*),
            7 => $f::<7>($($arg),*),
            8 => $f::<8>($($arg),*),
            9 => $f::<9>($($arg),*),
            10 => $f::<10>($($arg),*),
            11 => $f::<11>($($arg),*),
            12 => $f::<12>($($arg),*),
            13 => $f::<13>($($arg),*),
            14 => $f::<14>($($arg),*),
            15 => $f::<15>($($arg),*),
            16 => $f::<16>($($arg),*),
            17 => $f::<17>($($arg),*),
            18 => $f::<18>($($arg),*),
            19 => $f::<19>($($arg),*),
            20 => $f::<20>($($arg),*),
            21 => $f::<21>($($arg),*),
            22 => $f::<22>($($arg),*),
            23 => $f::<23>($($arg),*),
            24 => $f::<24>($($arg),*),
            25 => $f::<25>($($arg),*),
            26 => $f::<26>($($arg),*),
            27 => $f::<27>($($arg),*),
            28 => $f::<28>($($arg),*),
            29 => $f::<29>($($arg),*),
            30 => $f::<30>($($arg),*),
            31 => $f::<31>($($arg),*),
            _ => $f::<32>($($arg),*),
        }
    };
}
pub(super) use with_width;

#[cfg(test)]
mod tests {
    use super::*;
    use crate::hash::mix64;

    #[test]
    fn parity8_is_each_words_parity_in_its_own_bit() {
        for t in 0..2000u64 {
            let x: [u64; 8] = std::array::from_fn(|i| {
                let w = mix64(t * 8 + i as u64);
                // Sparse words too, so both parities are common at every position.
                if t % 3 == 0 {
                    w & mix64(w) & mix64(!w)
                } else {
                    w
                }
            });
            let want = x
                .iter()
                .enumerate()
                .fold(0u32, |acc, (i, w)| acc | (w.count_ones() & 1) << i);
            assert_eq!(parity8(x), want, "{x:x?}");
        }
        // One bit anywhere in any word is seen, and only in that word's bit.
        for i in 0..8 {
            for b in 0..64 {
                let mut x = [0u64; 8];
                x[i] = 1 << b;
                assert_eq!(parity8(x), 1 << i, "word {i} bit {b}");
            }
        }
    }

    #[test]
    fn parities_of_every_width_match_popcount() {
        fn check<const R: usize>(seed: u64) {
            let words: Vec<u64> = (0..R as u64).map(|j| mix64(seed ^ j)).collect();
            let want = words
                .iter()
                .enumerate()
                .fold(0u32, |acc, (j, w)| acc | (w.count_ones() & 1) << j);
            assert_eq!(parities::<R>(|j| words[j]), want, "R={R}");
        }
        for seed in 0..200 {
            for r in 1..=32u32 {
                with_width!(r, check(seed));
            }
        }
    }
}
