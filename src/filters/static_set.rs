//! What the static-set filters ([`XorFilter`](super::XorFilter),
//! [`BinaryFuseFilter`](super::BinaryFuseFilter), [`RibbonFilter`](super::RibbonFilter)) share:
//! the key hashes (sorted and deduplicated) and the bounded seed loop ([`seed_attempts`]); the
//! first two also the fingerprint table and the peeling construction.
//!
//! Both filters store one `f`-bit fingerprint per slot and answer a query by XORing the
//! key's slots (Graf & Lemire 2020, 2022). Construction is by *peeling*: a slot that exactly one
//! remaining key maps to can be set last for that key, so remove the key and repeat; when every
//! key was removed, assign the slots in the reverse order. A key set whose hypergraph does not
//! peel (a 2-core remains) is retried with another seed.
//!
//! **Termination.** Keys are hashed once to 64 bits; the hashes are sorted and deduplicated
//! (equal keys, and keys whose hashes collide completely, become one entry, which is what
//! makes construction terminate on duplicates: two identical hashes can never be peeled). Each
//! attempt mixes the hashes with a fresh seed (a bijection, so the deduplicated set stays
//! distinct) and tries to peel; after [`MAX_ATTEMPTS`] failed seeds construction returns
//! [`Error::Construction`]. The loop bound is this constant, not a timer.

use crate::bits::try_zeroed;
use crate::error::{Error, Result};
use crate::hash::{ItemHasher, mix64};
use std::io::{self, Write};
use std::ops::BitXor;

/// Seeds tried before construction gives up with [`Error::Construction`]. One attempt fails
/// with probability well under 1/2 at the papers' sizes (about 0.2 for small xor filters and
/// lower for large ones), so 32 failures in a row mean the hashes are not random (a broken
/// hash), not bad luck (probability below 2^−32).
pub const MAX_ATTEMPTS: u32 = 32;

/// The hashes of a key set, ready to build from.
#[derive(Debug)]
pub(crate) struct KeyHashes {
    /// 64-bit key hashes, sorted, without repeats.
    pub distinct: Vec<u64>,
    /// Keys given, repeats included.
    pub given: u64,
}

/// Hash every key once (the low half of its 128-bit hash), sort and deduplicate.
pub(crate) fn key_hashes<H: ItemHasher, I, K>(hasher: &H, keys: I) -> KeyHashes
where
    I: IntoIterator<Item = K>,
    K: AsRef<[u8]>,
{
    let mut v: Vec<u64> = keys
        .into_iter()
        .map(|k| hasher.hash128(k.as_ref()).lo)
        .collect();
    let given = v.len() as u64;
    v.sort_unstable();
    v.dedup();
    v.shrink_to_fit();
    KeyHashes { distinct: v, given }
}

/// The seed of attempt `i` of a filter hashed by `hasher`: deterministic, so the same keys give
/// the same filter.
pub(crate) fn attempt_seed<H: ItemHasher>(hasher: &H, label: &[u8], i: u32) -> u64 {
    mix64(hasher.hash128(label).lo ^ u64::from(i).wrapping_mul(0x9e37_79b9_7f4a_7c15))
}

/// A key hash under an attempt's seed (the splitmix64 finalizer of `h + seed`: a bijection of
/// `h`, so distinct hashes stay distinct).
#[inline]
#[must_use]
pub(crate) fn mix(key_hash: u64, seed: u64) -> u64 {
    mix64(key_hash.wrapping_add(seed))
}

/// A fingerprint slot: 8 or 16 bits.
pub trait Slot: Copy + Default + Eq + BitXor<Output = Self> + Send + Sync + 'static {
    /// Bits per slot.
    const BITS: u32;
    /// The fingerprint of a mixed hash: the low bits of `h ⊕ (h >> 32)` (the papers' choice).
    fn from_hash(h: u64) -> Self;
}

impl Slot for u8 {
    const BITS: u32 = 8;
    #[inline]
    fn from_hash(h: u64) -> Self {
        (h ^ (h >> 32)) as u8
    }
}

impl Slot for u16 {
    const BITS: u32 = 16;
    #[inline]
    fn from_hash(h: u64) -> Self {
        (h ^ (h >> 32)) as u16
    }
}

/// The fingerprint table: one slot per cell, 8 or 16 bits wide.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Table {
    /// 8-bit fingerprints.
    F8(Vec<u8>),
    /// 16-bit fingerprints.
    F16(Vec<u16>),
}

impl Table {
    /// A table of `slots` zero slots of `f` (8 or 16) bits.
    pub(crate) fn zeroed(f: u32, slots: u64) -> Result<Self> {
        let n = usize::try_from(slots).map_err(|_| Error::Allocation {
            bytes: u128::from(slots) * u128::from(f / 8),
        })?;
        Ok(if f == 16 {
            Table::F16(try_zeroed(n)?)
        } else {
            Table::F8(try_zeroed(n)?)
        })
    }

    /// Write the slots little-endian.
    pub(crate) fn write_le(&self, w: &mut dyn Write) -> io::Result<()> {
        match self {
            Table::F8(v) => w.write_all(v),
            Table::F16(v) => {
                let mut buf = [0u8; 4096];
                for chunk in v.chunks(buf.len() / 2) {
                    for (d, s) in buf.chunks_exact_mut(2).zip(chunk) {
                        d.copy_from_slice(&s.to_le_bytes());
                    }
                    w.write_all(&buf[..chunk.len() * 2])?;
                }
                Ok(())
            }
        }
    }

    /// Bits per slot.
    #[must_use]
    pub fn fingerprint_bits(&self) -> u32 {
        match self {
            Table::F8(_) => 8,
            Table::F16(_) => 16,
        }
    }

    /// Slots.
    #[must_use]
    pub fn slots(&self) -> u64 {
        match self {
            Table::F8(v) => v.len() as u64,
            Table::F16(v) => v.len() as u64,
        }
    }

    /// Heap bytes (the slots: the vectors are allocated exactly).
    #[must_use]
    pub fn bytes(&self) -> usize {
        match self {
            Table::F8(v) => v.capacity(),
            Table::F16(v) => v.capacity() * 2,
        }
    }
}

/// A table that peeled: the seed of the attempt that succeeded and its number (0-based).
#[derive(Debug)]
pub(crate) struct Peeled {
    pub(crate) table: Table,
    pub(crate) seed: u64,
    pub(crate) attempt: u32,
}

/// The attempt of [`seed_attempts`] that succeeded: its seed and its number (0-based).
#[derive(Debug, Clone, Copy)]
pub(crate) struct Attempted {
    pub(crate) seed: u64,
    pub(crate) attempt: u32,
}

/// The bounded seed loop every static kind shares: attempt `a` (0 to [`MAX_ATTEMPTS`] − 1)
/// mixes the `distinct` hashes with its seed (sorted first when `sort`) and hands them to
/// `build(a, mixed)`, which returns true on success (keeping what it built) and false to try
/// the next seed.
///
/// # Errors
/// What `build` returns; [`Error::Construction`] (naming `kind`) when every seed fails.
pub(crate) fn seed_attempts<H: ItemHasher>(
    (kind, label): (&'static str, &[u8]),
    distinct: &[u64],
    hasher: &H,
    sort: bool,
    mut build: impl FnMut(u32, &[u64]) -> Result<bool>,
) -> Result<Attempted> {
    let mut mixed: Vec<u64> = Vec::new();
    mixed
        .try_reserve_exact(distinct.len())
        .map_err(|_| alloc_err(distinct.len(), 8))?;
    for attempt in 0..MAX_ATTEMPTS {
        let seed = attempt_seed(hasher, label, attempt);
        mixed.clear();
        mixed.extend(distinct.iter().map(|&k| mix(k, seed)));
        if sort {
            mixed.sort_unstable();
        }
        if build(attempt, &mixed)? {
            return Ok(Attempted { seed, attempt });
        }
    }
    Err(Error::Construction {
        kind,
        keys: distinct.len() as u64,
        attempts: MAX_ATTEMPTS,
    })
}

/// Build the fingerprint table of `distinct` key hashes over `slots` slots of `f` bits,
/// trying at most [`MAX_ATTEMPTS`] seeds ([`seed_attempts`]): attempt `a` places each key at
/// `positions(a)(h)`. The same loop for the peeled kinds; they differ in `positions`.
///
/// # Errors
/// [`Error::Allocation`]; [`Error::Construction`] (naming `kind`) when every seed fails.
pub(crate) fn peel_attempts<H: ItemHasher, const A: usize, P: Fn(u64) -> [u32; A]>(
    kind_label: (&'static str, &[u8]),
    distinct: &[u64],
    (f, slots): (u32, u64),
    hasher: &H,
    sort: bool,
    positions: impl Fn(u32) -> P,
) -> Result<Peeled> {
    let mut table = Table::zeroed(f, slots)?;
    let mut peeler = Peeler::default();
    let done = seed_attempts(kind_label, distinct, hasher, sort, |attempt, mixed| {
        let pos = positions(attempt);
        match &mut table {
            Table::F8(t) => peeler.peel(mixed, t, pos),
            Table::F16(t) => peeler.peel(mixed, t, pos),
        }
    })?;
    Ok(Peeled {
        table,
        seed: done.seed,
        attempt: done.attempt,
    })
}

/// Scratch space of one peeling, kept across attempts.
#[derive(Debug, Default)]
pub(crate) struct Peeler {
    count: Vec<u32>,
    xors: Vec<u64>,
    queue: Vec<u32>,
    order: Vec<(u64, u32)>,
}

impl Peeler {
    /// Peel the keys `hashes` (mixed, distinct) over `slots` slots, each key at the `A`
    /// distinct slots `pos(h)`, and on success fill `table` so that the XOR of a key's slots is
    /// its fingerprint. Returns false when a 2-core remains (try another seed).
    pub(crate) fn peel<const A: usize, F: Slot>(
        &mut self,
        hashes: &[u64],
        table: &mut [F],
        pos: impl Fn(u64) -> [u32; A],
    ) -> Result<bool> {
        let slots = table.len();
        self.count.clear();
        self.xors.clear();
        self.queue.clear();
        self.order.clear();
        self.queue
            .try_reserve(slots)
            .map_err(|_| alloc_err(slots, 4))?;
        self.count
            .try_reserve_exact(slots)
            .map_err(|_| alloc_err(slots, 4))?;
        self.xors
            .try_reserve_exact(slots)
            .map_err(|_| alloc_err(slots, 8))?;
        self.order
            .try_reserve_exact(hashes.len())
            .map_err(|_| alloc_err(hashes.len(), 16))?;
        self.count.resize(slots, 0);
        self.xors.resize(slots, 0);
        for &h in hashes {
            for p in pos(h) {
                let p = p as usize;
                self.count[p] += 1;
                self.xors[p] ^= h;
            }
        }
        self.queue
            .extend((0..slots as u32).filter(|&i| self.count[i as usize] == 1));
        while let Some(i) = self.queue.pop() {
            if self.count[i as usize] != 1 {
                continue;
            }
            let h = self.xors[i as usize];
            self.order.push((h, i));
            for p in pos(h) {
                let p = p as usize;
                self.count[p] -= 1;
                self.xors[p] ^= h;
                if self.count[p] == 1 {
                    self.queue.push(p as u32);
                }
            }
        }
        if self.order.len() != hashes.len() {
            return Ok(false);
        }
        table.fill(F::default());
        for &(h, i) in self.order.iter().rev() {
            let mut v = F::from_hash(h);
            for p in pos(h) {
                v = v ^ table[p as usize];
            }
            // table[i] was 0 when XORed in above, so the key's slots now XOR to its fingerprint.
            table[i as usize] = v;
        }
        Ok(true)
    }
}

fn alloc_err(n: usize, size: u128) -> Error {
    Error::Allocation {
        bytes: n as u128 * size,
    }
}

/// The check of a query: the XOR of the key's slots against its fingerprint.
#[inline]
pub(crate) fn matches<const A: usize, F: Slot>(table: &[F], h: u64, pos: [u32; A]) -> bool {
    let mut v = F::from_hash(h);
    for p in pos {
        v = v ^ table[p as usize];
    }
    v == F::default()
}
