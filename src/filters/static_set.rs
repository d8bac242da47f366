//! What the static-set filters ([`XorFilter`](super::XorFilter),
//! [`BinaryFuseFilter`](super::BinaryFuseFilter), [`RibbonFilter`](super::RibbonFilter)) share:
//! the key hashes, the seeds of the attempts ([`attempt_seed`], [`mix`]) and, for the first two, a
//! bounded seed loop ([`peel_attempts`]) with their fingerprint table and the peeling (ribbon's
//! loop is its own, `ribbon/build.rs`).
//!
//! Both filters store one `f`-bit fingerprint per slot and answer a query by XORing the
//! key's slots (Graf & Lemire 2020, 2022). Construction is by *peeling*: a slot that exactly one
//! remaining key maps to can be set last for that key, so remove the key and repeat; when every
//! key was removed, assign the slots in the reverse order. A key set whose hypergraph does not
//! peel (a 2-core remains) is retried with another seed.
//!
//! **Construction** follows the papers' reference code in its shape (our own implementation):
//! per attempt, the hashes mixed with the seed are counting-sorted by their top bits (binary
//! fuse: window order), one pass counts keys and XORs their hashes per slot, a stack of the
//! slots whose count is 1 drives the peeling, and the peeled keys are kept in the buffer the
//! mixed hashes came in; every buffer is kept across attempts.
//!
//! **Termination.** Keys are hashed once to 64 bits. Equal hashes (repeated keys, or keys whose
//! hashes collide completely) are equal hyperedges, which can never be peeled: the first
//! attempt over a set with repeats fails, after which the hashes are sorted and deduplicated
//! (equal hashes become one entry) and later attempts use the distinct set. Each attempt mixes
//! the hashes with a fresh seed (a bijection, so the deduplicated set stays distinct) and tries
//! to peel; after [`MAX_ATTEMPTS`] failed seeds construction returns [`Error::Construction`].
//! The loop bound is this constant, not a timer.

use crate::error::{Error, Result};
use crate::hash::{ItemHasher, mix64};
use std::borrow::Cow;
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
    /// 64-bit key hashes, in the keys' order, repeats included.
    pub hashes: Vec<u64>,
    /// Keys given, repeats included.
    pub given: u64,
}

/// Hash every key once (the low half of its 128-bit hash). Repeats are kept: construction
/// removes them only when a first attempt fails (see [`peel_attempts`]).
///
/// # Errors
/// [`Error::Allocation`] when the hashes (8 bytes a key) do not fit in memory.
pub(crate) fn key_hashes<H: ItemHasher, I, K>(hasher: &H, keys: I) -> Result<KeyHashes>
where
    I: IntoIterator<Item = K>,
    K: AsRef<[u8]>,
{
    let keys = keys.into_iter();
    let mut hashes: Vec<u64> = Vec::new();
    hashes
        .try_reserve_exact(keys.size_hint().0)
        .map_err(|_| alloc_err(keys.size_hint().0, 8))?;
    for k in keys {
        if hashes.len() == hashes.capacity() {
            let more = hashes.len().max(1024);
            hashes
                .try_reserve(more)
                .map_err(|_| alloc_err(hashes.len() + more, 8))?;
        }
        hashes.push(hasher.hash128(k.as_ref()).lo);
    }
    let given = hashes.len() as u64;
    Ok(KeyHashes { hashes, given })
}

/// Sort and deduplicate key hashes in place.
pub(crate) fn dedup(hashes: &mut Vec<u64>) {
    hashes.sort_unstable();
    hashes.dedup();
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

/// The fingerprint of mixed hash `h` at the width of `table` (for the structure diagrams).
pub(crate) fn fingerprint(table: &Table, h: u64) -> u64 {
    match table {
        Table::F8(_) => u64::from(u8::from_hash(h)),
        Table::F16(_) => u64::from(u16::from_hash(h)),
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
            Table::F16(fresh_zeroed(n)?)
        } else {
            Table::F8(fresh_zeroed(n)?)
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

/// A table that peeled: the seed of the attempt that succeeded, its number (0-based) and the
/// distinct key hashes it holds.
#[derive(Debug)]
pub(crate) struct Peeled {
    pub(crate) table: Table,
    pub(crate) seed: u64,
    pub(crate) attempt: u32,
    pub(crate) distinct: u64,
}

/// How attempt `a` over `n` distinct keys places them: the table's slots, the bits of the
/// mixed hash to counting-sort the keys by first (0: no sort), and the key's slots.
pub(crate) struct Cut<P> {
    pub(crate) slots: u64,
    pub(crate) sort_bits: u32,
    pub(crate) positions: P,
}

/// Build the fingerprint table of the key hashes `hashes` (repeats allowed) with `f`-bit
/// slots, trying at most [`MAX_ATTEMPTS`] seeds: attempt `a` mixes the hashes with its seed,
/// orders them by their top `sort_bits` bits (a counting sort: the keys then come in window
/// order, so the peeling walks the table nearly in order) and places each at
/// `cut(n, a).positions(h)`. The same loop for every static kind; they differ in `cut`.
///
/// Repeats are not removed up front (that is a sort of every hash, as costly as a peeling):
/// two equal hashes are two equal edges of the hypergraph, whose slots are never down to one
/// key, so an attempt over a set with repeats always fails. After the first failed attempt the
/// hashes are sorted and deduplicated once, and the remaining attempts use the distinct set
/// (sized for it). A success is therefore always over distinct hashes.
///
/// # Errors
/// [`Error::Allocation`]; [`Error::Construction`] (naming `kind`) when every seed fails.
pub(crate) fn peel_attempts<H: ItemHasher, const A: usize, P: Fn(u64) -> [u32; A]>(
    (kind, label): (&'static str, &[u8]),
    mut hashes: Cow<'_, [u64]>,
    f: u32,
    hasher: &H,
    cut: impl Fn(u64, u32) -> Cut<P>,
) -> Result<Peeled> {
    let mut table = Table::zeroed(f, 0)?;
    let mut peeler = Peeler::default();
    let mut mixed: Vec<u64> = Vec::new();
    let mut deduped = false;
    for attempt in 0..MAX_ATTEMPTS {
        let n = hashes.len() as u64;
        let c = cut(n, attempt);
        if table.slots() != c.slots {
            drop(std::mem::replace(&mut table, Table::zeroed(f, 0)?)); // freed first
            table = Table::zeroed(f, c.slots)?;
        }
        let seed = attempt_seed(hasher, label, attempt);
        let bits = if c.slots > SORT_FROM_SLOTS {
            c.sort_bits
        } else {
            0
        };
        fill_mixed(&mut mixed, &hashes, seed, bits, &mut peeler.hist)?;
        // Keys in random order (no window sort) are peeled as a queue (see `Peeler::peel`).
        let queue = bits == 0;
        let keys = &mut mixed[..hashes.len()];
        let ok = match &mut table {
            Table::F8(t) if queue => peeler.peel::<true, A, _>(keys, t, c.positions)?,
            Table::F8(t) => peeler.peel::<false, A, _>(keys, t, c.positions)?,
            Table::F16(t) if queue => peeler.peel::<true, A, _>(keys, t, c.positions)?,
            Table::F16(t) => peeler.peel::<false, A, _>(keys, t, c.positions)?,
        };
        if ok {
            return Ok(Peeled {
                table,
                seed,
                attempt,
                distinct: n,
            });
        }
        if !deduped {
            deduped = true;
            let owned = hashes.to_mut(); // a copy only when the keys were lent
            dedup(owned);
            owned.shrink_to_fit();
        }
    }
    Err(Error::Construction {
        kind,
        keys: hashes.len() as u64,
        attempts: MAX_ATTEMPTS,
    })
}

/// Tables up to this many slots are peeled in key order: their counts and XORs (12 bytes a
/// slot) stay in cache, so ordering the keys by window would cost more than it saves.
const SORT_FROM_SLOTS: u64 = 1 << 16;

/// `mixed` = the hashes mixed with `seed`, ordered by their top `bits` bits (in input order
/// when `bits` is 0), followed by one entry that is not part of the result. The order only
/// serves locality: the peeling's result does not depend on it (see [`Peeler::peel`]).
///
/// One pass, as in Graf & Lemire's reference code (JEA 2022): bucket `b` of the `2^bits`
/// starts writing at its expected place `b·n/2^bits`; a key whose bucket's next place is
/// taken goes to the next bucket's. It terminates: a bucket's next place only moves past a
/// place it filled, so some bucket's next place is always a free one, and the keys try every
/// bucket in turn; the extra entry at `n` (never 0) stops a bucket at the end. A free place
/// is a 0, so a mixed hash of 0 (one chance in 2^64 a key) makes the attempt fall back to an
/// exact counting sort ([`sort_mixed_exact`]).
fn fill_mixed(
    mixed: &mut Vec<u64>,
    hashes: &[u64],
    seed: u64,
    bits: u32,
    hist: &mut Vec<u32>,
) -> Result<()> {
    let n = hashes.len();
    if bits == 0 {
        mixed.clear();
        mixed
            .try_reserve_exact(n + 1)
            .map_err(|_| alloc_err(n + 1, 8))?;
        mixed.extend(hashes.iter().map(|&k| mix(k, seed)));
        mixed.push(1);
        return Ok(());
    }
    zeroed_scratch(mixed, n + 1)?;
    mixed[n] = 1;
    let buckets = 1usize << bits;
    let shift = 64 - bits;
    hist.clear();
    hist.extend((0..buckets as u64).map(|b| ((b * n as u64) >> bits) as u32));
    let mut zero = false;
    for &k in hashes {
        let h = mix(k, seed);
        zero |= h == 0;
        let mut b = (h >> shift) as usize;
        while mixed[hist[b] as usize] != 0 {
            b = (b + 1) & (buckets - 1);
        }
        mixed[hist[b] as usize] = h;
        hist[b] += 1;
    }
    if zero {
        sort_mixed_exact(mixed, hashes, seed, bits, hist);
    }
    Ok(())
}

/// `mixed[..n]` = the hashes mixed with `seed`, counting-sorted by their top `bits` bits (two
/// passes: one counts, one scatters); `mixed` has `n + 1` entries.
fn sort_mixed_exact(mixed: &mut [u64], hashes: &[u64], seed: u64, bits: u32, hist: &mut Vec<u32>) {
    let shift = 64 - bits;
    hist.clear();
    hist.resize(1 << bits, 0);
    for &k in hashes {
        hist[(mix(k, seed) >> shift) as usize] += 1;
    }
    let mut at = 0u32;
    for c in hist.iter_mut() {
        let here = *c;
        *c = at;
        at += here;
    }
    for &k in hashes {
        let h = mix(k, seed);
        let b = &mut hist[(h >> shift) as usize];
        mixed[*b as usize] = h;
        *b += 1;
    }
}

/// The element types of the construction's scratch vectors: integers, for which all-zero
/// bytes are the value 0 (what [`fresh_zeroed`] relies on).
trait Zeroable: Copy + Default {}
impl Zeroable for u8 {}
impl Zeroable for u16 {}
impl Zeroable for u32 {}
impl Zeroable for u64 {}

/// A zeroed vector of `n` elements straight from the allocator's zeroed memory
/// (`alloc_zeroed`: for a large block that is fresh pages, so there is no pass of writes before
/// the first use), or [`Error::Allocation`] when the allocator refuses it.
///
/// Safe Rust has no fallible zeroed allocation: `vec![0; n]` aborts when memory runs out, and
/// the earlier way round it (reserve `n` fallibly, give it back, then `vec!`) made the
/// allocator hand back a used block, which it must then clear: 24 MB of `memset` in a build of
/// 10⁶ keys, 286 against 259 million instructions for the whole build (cachegrind), and a
/// one-shot build 0.94× xorf's time instead of 1.01× (medians of 15 fresh processes each,
/// `experiments/programs/static_build.rs --reps 1`).
fn fresh_zeroed<T: Zeroable>(n: usize) -> Result<Vec<T>> {
    let size = std::mem::size_of::<T>();
    let layout = std::alloc::Layout::array::<T>(n).map_err(|_| alloc_err(n, size as u128))?;
    if layout.size() == 0 {
        return Ok(Vec::new());
    }
    // SAFETY: `layout` has a non-zero size (checked above), as `alloc_zeroed` requires.
    #[allow(unsafe_code)]
    let p = unsafe { std::alloc::alloc_zeroed(layout) }.cast::<T>();
    if p.is_null() {
        return Err(alloc_err(n, size as u128));
    }
    // SAFETY: `p` was allocated by the global allocator with `Layout::array::<T>(n)`, the
    // layout a `Vec<T>` of capacity `n` owns (same size and alignment), so the `Vec` may free
    // it; its `n` elements are initialised, because every byte is zero and the all-zero bytes
    // are a valid `T` for each `Zeroable` type (unsigned integers: the value 0).
    #[allow(unsafe_code)]
    Ok(unsafe { Vec::from_raw_parts(p, n, n) })
}

/// A per-slot record of the peeling: the number of keys still at the slot, shifted left by two,
/// XOR the indices (0 to `A` − 1) of the slot among each such key's slots. Once one key is
/// left, the low two bits say which of its slots this is, so the peeling need not remember the
/// slot it peeled a key from (the trick of Graf & Lemire's reference code, JEA 2022, §4): one
/// byte a key instead of a four-byte slot number. `u8` first (a byte a slot: the counts and
/// XORs of a large table are 9 bytes a slot, not 12), `u32` when a slot holds more than 63 keys.
trait Count: Zeroable + Eq {
    /// Add a key whose `j`-th slot this is.
    fn add(self, j: u32) -> Self;
    /// Remove a key whose `j`-th slot this is.
    fn remove(self, j: u32) -> Self;
    /// Keys at the slot (modulo the type's range: a wrap is caught by the sum check).
    fn keys(self) -> u64;
    /// With one key left: which of its slots this is.
    fn which(self) -> u8;
}

/// The per-slot records: one byte (as xorf keeps them) or, after a byte wrapped, four.
macro_rules! impl_count {
    ($($t:ty),*) => {$(
        impl Count for $t {
            #[inline]
            fn add(self, j: u32) -> Self {
                self.wrapping_add(4) ^ (j as $t)
            }
            #[inline]
            fn remove(self, j: u32) -> Self {
                self.wrapping_sub(4) ^ (j as $t)
            }
            #[inline]
            fn keys(self) -> u64 {
                u64::from(self >> 2)
            }
            #[inline]
            fn which(self) -> u8 {
                (self & 3) as u8
            }
        }
    )*};
}
impl_count!(u8, u32);

/// A zeroed scratch vector of `n` elements: cleared in place when it already has `n` (a retry),
/// else allocated zeroed.
fn zeroed_scratch<T: Zeroable>(v: &mut Vec<T>, n: usize) -> Result<()> {
    if v.len() == n {
        v.fill(T::default());
    } else {
        drop(std::mem::take(v));
        *v = fresh_zeroed(n)?;
    }
    Ok(())
}

/// Scratch space of one peeling, kept across attempts.
#[derive(Debug, Default)]
pub(crate) struct Peeler {
    /// Keys at each slot still in the hypergraph (bytes; see [`Count`]).
    count8: Vec<u8>,
    /// The same at 32 bits, used only when a slot held more than 255 keys.
    count32: Vec<u32>,
    /// XOR of the hashes of those keys (the key itself once the count is 1).
    xors: Vec<u64>,
    /// Slots whose count reached 1, taken as a queue or as a stack (see [`Peeler::peel`]).
    alone: Vec<u32>,
    /// For each peeled key, in peeling order, which of its slots it was peeled from.
    which: Vec<u8>,
    /// Counting-sort buckets.
    hist: Vec<u32>,
}

impl Peeler {
    /// Peel the keys `hashes` (mixed) over the slots of `table` (all zero), each key at the `A`
    /// distinct slots `pos(h)`, and on success fill `table` so that the XOR of a key's slots is
    /// its fingerprint; on failure `table` is left zero. Returns false when a 2-core remains
    /// (try another seed). `hashes` is reused for the peeling order (its contents are gone
    /// after the call).
    ///
    /// The slots whose count reached 1 are taken first in, first out when `QUEUE`, else last in,
    /// first out. A queue's next entry was written long before it is read, and its head moves by
    /// one a key, so consecutive peelings do not wait for each other: when the keys come in
    /// random order (every xor filter, and binary fuse tables of at most [`SORT_FROM_SLOTS`]
    /// slots) the out-of-order core overlaps them. An xor build of 10⁴ keys took 9.6 ns a key
    /// this way against 15.7 with the stack, whose next pop is usually the entry just pushed and
    /// so waits for that key's count test (`xorf` 9.2–9.5 in the same process, freed memory
    /// reused). When the keys come in window order (larger binary fuse tables) the stack's
    /// depth-first order keeps the peeling inside the window in cache, and the queue's
    /// breadth-first sweeps cost more: at 10⁶ keys 35.2 against 31.6 ns, at 10⁷ 61.1 against
    /// 48.8. The order is a compile-time parameter: passed at run time, it cost the 8-bit
    /// binary fuse build 9 instructions a key (2,353,482 against 2,270,720 for 10⁴ keys in the
    /// gate).
    ///
    /// The result depends on the key *set* (and on `QUEUE`) only, not on the order of `hashes`:
    /// the counts and XORs are sums, the queue or stack starts from a scan of the slots in
    /// order, and the peeling then reads only counts and XORs.
    pub(crate) fn peel<const QUEUE: bool, const A: usize, F: Slot>(
        &mut self,
        hashes: &mut [u64],
        table: &mut [F],
        pos: impl Fn(u64) -> [u32; A],
    ) -> Result<bool> {
        let mut count8 = std::mem::take(&mut self.count8);
        let r = match self.peel_with::<QUEUE, A, F, u8>(&mut count8, hashes, table, &pos)? {
            Some(ok) => Ok(ok),
            None => {
                // A slot held 256 or more keys (its byte wrapped): count again at 32 bits.
                let mut count32 = std::mem::take(&mut self.count32);
                let r = self.peel_with::<QUEUE, A, F, u32>(&mut count32, hashes, table, &pos)?;
                self.count32 = count32;
                Ok(r.unwrap_or(false))
            }
        };
        self.count8 = count8;
        r
    }

    /// [`Peeler::peel`] with counts of type `C`: `None` when a count wrapped (the stored counts
    /// sum to less than `A` a key), before anything but the scratch space was written.
    fn peel_with<const QUEUE: bool, const A: usize, F: Slot, C: Count>(
        &mut self,
        count: &mut Vec<C>,
        hashes: &mut [u64],
        table: &mut [F],
        pos: &impl Fn(u64) -> [u32; A],
    ) -> Result<Option<bool>> {
        let slots = table.len();
        let n = hashes.len();
        zeroed_scratch(count, slots)?;
        zeroed_scratch(&mut self.xors, slots)?;
        // Written before read (see the scan below): zeroed only when new.
        if self.alone.len() != slots + 1 {
            drop(std::mem::take(&mut self.alone));
            self.alone = fresh_zeroed(slots + 1)?;
        }
        if self.which.len() != n {
            // Written before read (one entry a peeled key): zeroed only when new.
            drop(std::mem::take(&mut self.which));
            self.which = fresh_zeroed(n)?;
        }
        let (count, xors, alone) = (&mut count[..], &mut self.xors[..], &mut self.alone[..]);
        let which = &mut self.which[..];
        for &h in hashes.iter() {
            for (j, p) in (0u32..).zip(pos(h)) {
                let p = p as usize;
                count[p] = count[p].add(j);
                xors[p] ^= h;
            }
        }
        // Every slot with one key, in slot order (written always, kept when the count is 1).
        let mut top = 0usize;
        let mut sum = 0u64;
        for (i, &c) in count.iter().enumerate() {
            alone[top] = i as u32;
            top += usize::from(c.keys() == 1);
            sum += c.keys();
        }
        if sum != (A as u64) * (n as u64) {
            return Ok(None);
        }
        let done = peel_loop::<QUEUE, A, C>(count, xors, alone, which, hashes, pos, top);
        if done != n {
            return Ok(Some(false));
        }
        debug_assert!(table.iter().all(|&v| v == F::default()));
        for (&h, &w) in hashes.iter().zip(which.iter()).rev() {
            let ps = pos(h);
            let mut v = F::from_hash(h);
            for p in ps {
                v = v ^ table[p as usize];
            }
            // The key's slot `w` was 0 when XORed in above (no key peeled later uses it), so
            // the key's slots now XOR to its fingerprint.
            table[ps[usize::from(w)] as usize] = v;
        }
        Ok(Some(true))
    }
}

/// The peeling proper, over the slots `alone[..end]` that start with one key: take a slot
/// (from the front when `QUEUE`, else from the back), record its key in `hashes` and `which`,
/// remove the key from its other slots and add those whose count reaches 1. Returns the number
/// of keys peeled. A slot reaches a count of 1 at most once (counts only fall), so at most
/// `slots` entries are ever added and `alone` (of `slots + 1`) never overflows; the front of
/// the queue only passes entries already read.
#[inline]
fn peel_loop<const QUEUE: bool, const A: usize, C: Count>(
    count: &mut [C],
    xors: &mut [u64],
    alone: &mut [u32],
    which: &mut [u8],
    hashes: &mut [u64],
    pos: &impl Fn(u64) -> [u32; A],
    mut end: usize,
) -> usize {
    let mut done = 0usize;
    let mut head = 0usize;
    loop {
        let i = if QUEUE {
            if head == end {
                break;
            }
            head += 1;
            alone[head - 1] as usize
        } else {
            if end == 0 {
                break;
            }
            end -= 1;
            alone[end] as usize
        };
        let c = count[i];
        if c.keys() != 1 {
            continue;
        }
        let h = xors[i];
        // The counting pass read every hash: the slots are free for the order.
        hashes[done] = h;
        let w = c.which();
        which[done] = w;
        done += 1;
        // The key's other `A` − 1 slots (slot i keeps its record: nothing reads it again).
        let ps = pos(h);
        let w = usize::from(w);
        for t in 1..A {
            // The slots other than w in increasing order (the order of the additions, hence
            // the table built, is the same as when every slot is visited).
            let j = t - 1 + usize::from(t > w);
            let p = ps[j] as usize;
            // The new count from a register, not read back from memory: with the stack, the
            // next pop waits for this test.
            let c = count[p].remove(j as u32);
            count[p] = c;
            xors[p] ^= h;
            alone[end] = p as u32;
            end += usize::from(c.keys() == 1);
        }
    }
    done
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

#[cfg(test)]
mod tests {
    use super::*;

    /// The one-pass bucket fill gives back every mixed hash exactly once, also when one of
    /// them mixes to 0 (a 0 marks a free place, so that attempt falls back to the exact
    /// counting sort, whose output is ordered by the top bits).
    #[test]
    fn the_one_pass_order_keeps_every_hash() {
        let seed = 0x1234_5678_9abc_def0u64;
        for with_zero in [false, true] {
            let mut hashes: Vec<u64> = (0..50_000u64).map(mix64).collect();
            if with_zero {
                // mix64(0) = 0, so this key mixes to 0.
                hashes[777] = 0u64.wrapping_sub(seed);
                assert_eq!(mix(hashes[777], seed), 0);
            }
            let (mut mixed, mut hist) = (Vec::new(), Vec::new());
            fill_mixed(&mut mixed, &hashes, seed, 8, &mut hist).expect("fill");
            assert_eq!(mixed.len(), hashes.len() + 1);
            let order = mixed[..hashes.len()].to_vec();
            let mut got = order.clone();
            got.sort_unstable();
            let mut want: Vec<u64> = hashes.iter().map(|&k| mix(k, seed)).collect();
            want.sort_unstable();
            assert_eq!(got, want, "with_zero = {with_zero}");
            if with_zero {
                assert!(order.windows(2).all(|w| w[0] >> 56 <= w[1] >> 56));
            }
        }
    }

    /// A slot shared by more keys than a byte counts (a byte holds 63 keys beside the two
    /// index bits; at 65 it wraps to one key, which would look alone) still peels, through the
    /// 32-bit counts, to a table every key matches.
    #[test]
    fn a_slot_of_more_than_63_keys_peels_exactly() {
        for n in [63u32, 64, 65, 255, 256, 257, 600] {
            // Key k: slot 0 (shared by all) and two slots of its own.
            let pos = |h: u64| {
                let k = (h >> 32) as u32;
                [0, 1 + 2 * k, 2 + 2 * k]
            };
            let keys: Vec<u64> = (0..n).map(|k| (u64::from(k) << 32) | 0x5a5a).collect();
            for queue in [true, false] {
                let mut hashes = keys.clone();
                let mut table = vec![0u8; 1 + 2 * n as usize];
                let mut p = Peeler::default();
                let ok = if queue {
                    p.peel::<true, 3, u8>(&mut hashes, &mut table, pos)
                } else {
                    p.peel::<false, 3, u8>(&mut hashes, &mut table, pos)
                }
                .expect("peel");
                assert!(ok, "n = {n}, queue {queue}");
                for &h in &keys {
                    assert!(
                        matches(&table, h, pos(h)),
                        "n = {n}, queue {queue}, key {h:#x}"
                    );
                }
            }
        }
    }
}
