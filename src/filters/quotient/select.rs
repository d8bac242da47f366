//! Select in a 64-bit word: the position of its `k`-th set bit (from 0).
//!
//! The portable version is a broadword select (Vigna 2008, "Broadword Implementation of
//! Rank/Select Queries"): byte-wise popcounts summed into a running count per byte by one
//! multiply, the byte holding the bit found by a borrow-free byte compare, and the bit within the
//! byte from a 2 KiB table. With BMI2 it is `pdep(1 << k, x)` then `tzcnt` (Pandey et al. 2017,
//! §3.2), the counting quotient filter's own select; both answer the same (a test checks every
//! `k` of many words against a bit-by-bit reference).

const L8: u64 = 0x0101_0101_0101_0101;
const H8: u64 = 0x8080_8080_8080_8080;

/// `IN_BYTE[b][k]`: the position of the `k`-th set bit of byte `b` (8 when there is none).
const IN_BYTE: [[u8; 8]; 256] = {
    let mut t = [[8u8; 8]; 256];
    let mut b = 0;
    while b < 256 {
        let (mut k, mut bit) = (0, 0);
        while bit < 8 {
            if (b >> bit) & 1 == 1 {
                t[b][k] = bit as u8;
                k += 1;
            }
            bit += 1;
        }
        b += 1;
    }
    t
};

/// The position of the `k`-th set bit of `x` (from 0); 64 or more when `x` has at most `k`
/// set bits.
#[inline(always)]
#[must_use]
pub(crate) fn portable(x: u64, k: u32) -> u32 {
    if k >= x.count_ones() {
        return 64;
    }
    let mut s = x - ((x >> 1) & 0x5555_5555_5555_5555);
    s = (s & 0x3333_3333_3333_3333) + ((s >> 2) & 0x3333_3333_3333_3333);
    s = (s + (s >> 4)) & 0x0F0F_0F0F_0F0F_0F0F;
    // Byte j of `cum`: the set bits in bytes 0..=j (at most 64, so no byte overflows).
    let cum = s.wrapping_mul(L8);
    // Bytes whose running count is at most k: the k-th bit lies in the byte after them.
    let kk = u64::from(k) * L8;
    let before = (((kk | H8) - cum) & H8).count_ones();
    let shift = before * 8;
    let below = if before == 0 {
        0
    } else {
        ((cum >> (shift - 8)) & 0xFF) as u32
    };
    let byte = ((x >> shift) & 0xFF) as usize;
    shift + u32::from(IN_BYTE[byte][(k - below) as usize])
}

/// Whether this CPU has BMI2 and POPCNT (tested once per table, kept in it): then
/// [`dispatch`] runs an operation compiled with both (`pdep` for select, one `popcnt` per
/// rank; at the default x86-64 target a popcount is a dozen instructions).
#[must_use]
pub(crate) fn bmi2_available() -> bool {
    #[cfg(target_arch = "x86_64")]
    {
        std::arch::is_x86_feature_detected!("bmi2") && std::arch::is_x86_feature_detected!("popcnt")
    }
    #[cfg(not(target_arch = "x86_64"))]
    {
        false
    }
}

/// A table operation written once, run with or without BMI2 by [`dispatch`]: `run(pdep)` must
/// be `#[inline(always)]` (and so must what it calls on its hot path), so that its body is
/// compiled into [`run_bmi2`] with `pdep = true` and BMI2 and POPCNT enabled.
pub(crate) trait Op {
    /// What the operation returns.
    type Out;
    /// The operation; `pdep` may be `true` only inside [`run_bmi2`].
    fn run(self, pdep: bool) -> Self::Out;
}

/// Run `op` compiled with BMI2 and POPCNT when `bmi2` (from [`bmi2_available`]), else the
/// portable code.
#[inline(always)]
pub(crate) fn dispatch<O: Op>(bmi2: bool, op: O) -> O::Out {
    #[cfg(target_arch = "x86_64")]
    {
        if bmi2 {
            // SAFETY: `run_bmi2` is safe Rust compiled with BMI2 and POPCNT enabled; its only
            // requirement is that the CPU has both, which `bmi2` says: every table takes it from
            // `bmi2_available` (the CPU test) and nothing else sets it.
            #[allow(unsafe_code)]
            return unsafe { run_bmi2(op) };
        }
        run_portable(op)
    }
    #[cfg(not(target_arch = "x86_64"))]
    {
        let _ = bmi2;
        op.run(false)
    }
}

/// `op.run(false)` out of line: the fallback of [`dispatch`].
#[cfg(target_arch = "x86_64")]
#[inline(never)]
fn run_portable<O: Op>(op: O) -> O::Out {
    op.run(false)
}

/// `op.run(true)`, compiled with BMI2 and POPCNT (the caller checked the CPU has them).
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "bmi2,popcnt")]
fn run_bmi2<O: Op>(op: O) -> O::Out {
    op.run(true)
}

/// [`portable`], or `pdep(1 << k, x)` and `tzcnt` when `pdep` (inside [`run_bmi2`] only).
#[inline(always)]
#[must_use]
pub(crate) fn select(x: u64, k: u32, pdep: bool) -> u32 {
    #[cfg(target_arch = "x86_64")]
    if pdep {
        // SAFETY: `pdep` is true only in an operation run by `run_bmi2`, which runs only on a
        // CPU with BMI2 (see `dispatch`); `_pdep_u64` has no other requirement.
        #[allow(unsafe_code)]
        let d = unsafe { core::arch::x86_64::_pdep_u64(1u64 << k, x) };
        return d.trailing_zeros();
    }
    let _ = pdep;
    portable(x, k)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Both selects against a bit-by-bit reference, every k of many words.
    #[test]
    fn select_finds_the_kth_set_bit() {
        let bmi2 = bmi2_available();
        for s in 0..2000u64 {
            let x = crate::hash::mix64(s) & crate::hash::mix64(s + 7777) | (s & 1) << 63;
            let ones: Vec<u32> = (0..64).filter(|&b| (x >> b) & 1 == 1).collect();
            for k in 0..64u32 {
                let want = ones.get(k as usize).copied();
                let got = portable(x, k);
                assert_eq!(want.unwrap_or(64).min(64), got.min(64), "x {x:#x} k {k}");
                if let (true, Some(want)) = (bmi2, want) {
                    struct Sel(u64, u32);
                    impl Op for Sel {
                        type Out = u32;
                        #[inline(always)]
                        fn run(self, pdep: bool) -> u32 {
                            select(self.0, self.1, pdep)
                        }
                    }
                    assert_eq!(dispatch(true, Sel(x, k)), want, "pdep x {x:#x} k {k}");
                }
            }
        }
    }
}
