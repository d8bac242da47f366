//! Bit vectors and packed counters: the words of the bit-array filters (standard, counting,
//! scalable, the concurrent standard) and fallible zeroed allocation (`try_zeroed`) for the
//! fingerprint tables, which keep their own words (cuckoo, quotient, ribbon, xor, binary fuse)
//! as do the block layouts (blocked, split-block).
//!
//! Allocation is fallible: an absurd size returns [`Error::Allocation`] instead of aborting.

use crate::error::{Error, Result};
use std::sync::atomic::{AtomicU64, Ordering};

/// Allocate a zeroed `Vec<T>` of `len` elements, failing with a typed error instead of aborting.
pub(crate) fn try_zeroed<T: Clone + Default>(len: usize) -> Result<Vec<T>> {
    let mut v: Vec<T> = Vec::new();
    v.try_reserve_exact(len).map_err(|_| Error::Allocation {
        bytes: (len as u128) * (std::mem::size_of::<T>() as u128),
    })?;
    v.resize(len, T::default());
    Ok(v)
}

/// Number of 64-bit words needed for `bits` bits, checked against the address space.
pub(crate) fn words_for(bits: u64) -> Result<usize> {
    let words = bits.div_ceil(64);
    usize::try_from(words)
        .ok()
        .filter(|w| w.checked_mul(8).is_some_and(|b| b <= isize::MAX as usize))
        .ok_or(Error::Allocation {
            bytes: u128::from(words) * 8,
        })
}

/// A fixed-size vector of bits stored in 64-bit words (bit `i` is bit `i % 64` of word `i / 64`,
/// the same layout as Guava's `LockFreeBitArray`).
#[derive(Clone, PartialEq, Eq)]
pub struct BitVec {
    words: Vec<u64>,
    bits: u64,
}

impl std::fmt::Debug for BitVec {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("BitVec")
            .field("bits", &self.bits)
            .field("ones", &self.count_ones())
            .finish()
    }
}

impl BitVec {
    /// A vector of `bits` zero bits.
    ///
    /// # Errors
    /// [`Error::Allocation`] if the memory cannot be had.
    pub fn new(bits: u64) -> Result<Self> {
        let words = try_zeroed(words_for(bits)?)?;
        Ok(Self { words, bits })
    }

    /// Build from raw words; `bits` must fit in them.
    ///
    /// # Errors
    /// [`Error::Corrupt`] when `bits` does not fit the words given.
    pub fn from_words(words: Vec<u64>, bits: u64) -> Result<Self> {
        if bits.div_ceil(64) != words.len() as u64 {
            return Err(Error::Corrupt(format!(
                "{bits} bits do not fit {} words",
                words.len()
            )));
        }
        Ok(Self { words, bits })
    }

    /// Number of bits.
    #[inline]
    #[must_use]
    pub fn len(&self) -> u64 {
        self.bits
    }

    /// True when the vector has no bits at all.
    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.bits == 0
    }

    /// Set bit `i`; returns true if it was 0 before.
    #[inline]
    pub fn set(&mut self, i: u64) -> bool {
        debug_assert!(i < self.bits);
        let w = &mut self.words[(i >> 6) as usize];
        let mask = 1u64 << (i & 63);
        let was = *w & mask;
        *w |= mask;
        was == 0
    }

    /// Read bit `i`.
    #[inline]
    #[must_use]
    pub fn get(&self, i: u64) -> bool {
        debug_assert!(i < self.bits);
        self.words[(i >> 6) as usize] & (1u64 << (i & 63)) != 0
    }

    /// Set bit `i` without the bounds check of [`BitVec::set`]; returns true if it was 0 before.
    ///
    /// # Safety
    /// `i / 64` must be below the word count, ⌈len/64⌉ (every `i < self.len()` is).
    #[allow(unsafe_code)]
    #[inline(always)]
    pub(crate) unsafe fn set_unchecked(&mut self, i: u64) -> bool {
        debug_assert!(i < self.bits);
        // SAFETY: the caller promises i / 64 < self.words.len().
        let w = unsafe { self.words.get_unchecked_mut((i >> 6) as usize) };
        let mask = 1u64 << (i & 63);
        let was = *w & mask;
        *w |= mask;
        was == 0
    }

    /// Number of bits set to 1.
    #[must_use]
    pub fn count_ones(&self) -> u64 {
        self.words.iter().map(|w| u64::from(w.count_ones())).sum()
    }

    /// The words, bit `i` at `words[i / 64] >> (i % 64)`.
    #[must_use]
    pub fn words(&self) -> &[u64] {
        &self.words
    }

    /// Mutable access to the words (used by block-oriented filters).
    pub fn words_mut(&mut self) -> &mut [u64] {
        &mut self.words
    }

    /// Bitwise OR with another vector of the same length.
    ///
    /// # Errors
    /// [`Error::Incompatible`] when the lengths differ.
    pub fn union_with(&mut self, other: &BitVec) -> Result<()> {
        if self.bits != other.bits {
            return Err(Error::Incompatible(format!(
                "bit lengths differ: {} vs {}",
                self.bits, other.bits
            )));
        }
        for (a, b) in self.words.iter_mut().zip(&other.words) {
            *a |= *b;
        }
        Ok(())
    }

    /// Bitwise AND with another vector of the same length.
    ///
    /// # Errors
    /// [`Error::Incompatible`] when the lengths differ.
    pub fn intersect_with(&mut self, other: &BitVec) -> Result<()> {
        if self.bits != other.bits {
            return Err(Error::Incompatible(format!(
                "bit lengths differ: {} vs {}",
                self.bits, other.bits
            )));
        }
        for (a, b) in self.words.iter_mut().zip(&other.words) {
            *a &= *b;
        }
        Ok(())
    }

    /// Bits set in `self | other`, without building it (vectors of the same length).
    ///
    /// # Errors
    /// [`Error::Incompatible`] when the lengths differ.
    pub fn count_ones_or(&self, other: &BitVec) -> Result<u64> {
        if self.bits != other.bits {
            return Err(Error::Incompatible(format!(
                "bit lengths differ: {} vs {}",
                self.bits, other.bits
            )));
        }
        Ok(self
            .words
            .iter()
            .zip(&other.words)
            .map(|(a, b)| u64::from((a | b).count_ones()))
            .sum())
    }

    /// Heap bytes held.
    #[must_use]
    pub fn heap_bytes(&self) -> usize {
        self.words.capacity() * 8
    }

    /// Clear every bit.
    pub fn clear(&mut self) {
        self.words.fill(0);
    }
}

/// 4-bit saturating counters, two per byte (counter `i` is the low nibble of byte `i / 2` when
/// `i` is even, the high nibble when odd).
#[derive(Clone, PartialEq, Eq)]
pub struct Counters4 {
    bytes: Vec<u8>,
    len: u64,
}

impl std::fmt::Debug for Counters4 {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Counters4").field("len", &self.len).finish()
    }
}

impl Counters4 {
    /// The largest value a counter holds; a counter that reaches it stays there.
    pub const MAX: u8 = 15;

    /// `len` counters, all zero.
    ///
    /// # Errors
    /// [`Error::Allocation`] if the memory cannot be had.
    pub fn new(len: u64) -> Result<Self> {
        let n = usize::try_from(len.div_ceil(2)).map_err(|_| Error::Allocation {
            bytes: u128::from(len.div_ceil(2)),
        })?;
        Ok(Self {
            bytes: try_zeroed(n)?,
            len,
        })
    }

    /// Number of counters.
    #[must_use]
    pub fn len(&self) -> u64 {
        self.len
    }

    /// True when there are no counters.
    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// Value of counter `i`.
    #[inline]
    #[must_use]
    pub fn get(&self, i: u64) -> u8 {
        let b = self.bytes[(i >> 1) as usize];
        if i & 1 == 0 { b & 0x0f } else { b >> 4 }
    }

    /// Set counter `i` to `v` (`v <= 15`).
    #[inline]
    pub fn put(&mut self, i: u64, v: u8) {
        debug_assert!(v <= Self::MAX);
        let b = &mut self.bytes[(i >> 1) as usize];
        if i & 1 == 0 {
            *b = (*b & 0xf0) | v;
        } else {
            *b = (*b & 0x0f) | (v << 4);
        }
    }

    /// The raw bytes.
    #[must_use]
    pub fn as_bytes(&self) -> &[u8] {
        &self.bytes
    }

    /// Heap bytes held.
    #[must_use]
    pub fn heap_bytes(&self) -> usize {
        self.bytes.capacity()
    }

    /// The raw bytes, for a loader filling them from a file (an odd count leaves the last
    /// byte's high nibble for the caller to check).
    pub(crate) fn bytes_mut(&mut self) -> &mut [u8] {
        &mut self.bytes
    }
}

/// A bit vector whose bits can be set through `&self` from many threads at once
/// (lock-free, like Guava's `LockFreeBitArray`).
#[derive(Debug)]
pub struct AtomicBitVec {
    words: Vec<AtomicU64>,
    bits: u64,
}

impl AtomicBitVec {
    /// A vector of `bits` zero bits.
    ///
    /// # Errors
    /// [`Error::Allocation`] if the memory cannot be had.
    pub fn new(bits: u64) -> Result<Self> {
        let n = words_for(bits)?;
        let mut words = Vec::new();
        words.try_reserve_exact(n).map_err(|_| Error::Allocation {
            bytes: n as u128 * 8,
        })?;
        words.extend((0..n).map(|_| AtomicU64::new(0)));
        Ok(Self { words, bits })
    }

    /// Number of bits.
    #[must_use]
    pub fn len(&self) -> u64 {
        self.bits
    }

    /// True when the vector has no bits at all.
    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.bits == 0
    }

    /// Set bit `i`; returns true if this call changed it from 0 to 1.
    #[inline]
    pub fn set(&self, i: u64) -> bool {
        let mask = 1u64 << (i & 63);
        let w = &self.words[(i >> 6) as usize];
        // Skip the read-modify-write when the bit is already set (the common case in a full filter).
        if w.load(Ordering::Relaxed) & mask != 0 {
            return false;
        }
        w.fetch_or(mask, Ordering::Release) & mask == 0
    }

    /// Read bit `i`.
    #[inline]
    #[must_use]
    pub fn get(&self, i: u64) -> bool {
        self.words[(i >> 6) as usize].load(Ordering::Acquire) & (1u64 << (i & 63)) != 0
    }

    /// Number of bits set.
    #[must_use]
    pub fn count_ones(&self) -> u64 {
        self.words
            .iter()
            .map(|w| u64::from(w.load(Ordering::Relaxed).count_ones()))
            .sum()
    }

    /// Heap bytes held.
    #[must_use]
    pub fn heap_bytes(&self) -> usize {
        self.words.capacity() * 8
    }

    /// A plain copy of the bits as they are now (each word read atomically; words written
    /// concurrently may or may not be included).
    ///
    /// # Errors
    /// [`Error::Allocation`].
    pub fn snapshot(&self) -> Result<BitVec> {
        let mut words: Vec<u64> = try_zeroed(self.words.len())?;
        for (d, w) in words.iter_mut().zip(&self.words) {
            *d = w.load(Ordering::Acquire);
        }
        BitVec::from_words(words, self.bits)
    }

    /// Take over a plain bit vector (the standard library reuses its allocation in place).
    #[must_use]
    pub fn from_bit_vec(b: BitVec) -> Self {
        let bits = b.len();
        let words = b.words.into_iter().map(AtomicU64::new).collect();
        Self { words, bits }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn set_get_count() {
        let mut b = BitVec::new(130).unwrap();
        assert!(b.set(0));
        assert!(b.set(129));
        assert!(!b.set(129));
        assert!(b.get(0) && b.get(129) && !b.get(64));
        assert_eq!(b.count_ones(), 2);
        assert_eq!(b.words().len(), 3);
    }

    #[test]
    fn absurd_size_is_an_error_not_an_abort() {
        assert!(matches!(
            BitVec::new(u64::MAX),
            Err(Error::Allocation { .. })
        ));
        assert!(matches!(
            Counters4::new(u64::MAX),
            Err(Error::Allocation { .. })
        ));
    }

    #[test]
    fn counters_pack_two_per_byte() {
        let mut c = Counters4::new(5).unwrap();
        assert_eq!(c.as_bytes().len(), 3);
        c.put(3, 15);
        c.put(2, 7);
        assert_eq!((c.get(2), c.get(3), c.get(4)), (7, 15, 0));
    }

    #[test]
    fn atomic_bits() {
        let b = AtomicBitVec::new(100).unwrap();
        assert!(b.set(99));
        assert!(!b.set(99));
        assert!(b.get(99));
        assert_eq!(b.count_ones(), 1);
    }
}
