//! A counting global allocator: heap bytes *measured*, not computed.
//!
//! [`CountingAlloc`] forwards every call to [`std::alloc::System`] and keeps running totals of the
//! bytes requested and currently live. A binary opts in with
//!
//! ```ignore
//! #[global_allocator]
//! static ALLOC: bloomlab::alloc_count::CountingAlloc = bloomlab::alloc_count::CountingAlloc;
//! ```
//!
//! (the `bloomlab` binary does). Code that wants a measurement takes a [`snapshot`] before and
//! after building a structure; [`installed`] tells whether the counters are live at all.
//!
//! Beside the requested bytes it keeps a second total, [`Snapshot::chunk_bytes`]: each request
//! rounded the way glibc's `malloc` lays out chunks on 64-bit Linux (8 bytes of size header,
//! rounded up to 16, at least 32 bytes; requests at or above the 128 KiB mmap threshold rounded
//! to whole 4 KiB pages plus 16 bytes). That is a *model* of the allocator's overhead, labelled
//! as such wherever it is reported; the requested bytes are the measurement.
//!
//! The counters are process-wide: allocations by other threads during a measurement are counted
//! too, so measure on a quiet process (the experiment runner is single-threaded).
//!
//! One of the crate's three `unsafe` sites (the others: the AVX2 split-block call in
//! `filters/avx2.rs` and the 4-wise binary fuse window read): implementing [`GlobalAlloc`]
//! requires `unsafe impl`.
//! Every method forwards its arguments unchanged to `System` and only adds atomic bookkeeping.
#![allow(unsafe_code)]

use std::alloc::{GlobalAlloc, Layout, System};
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};

static LIVE: AtomicUsize = AtomicUsize::new(0);
static LIVE_CHUNKS: AtomicUsize = AtomicUsize::new(0);
static ALLOCATIONS: AtomicU64 = AtomicU64::new(0);

/// The counting allocator (a unit struct: the totals are process-wide statics).
#[derive(Debug, Clone, Copy, Default)]
pub struct CountingAlloc;

/// glibc's chunk size for a request of `size` bytes on 64-bit Linux (see the module docs).
#[must_use]
pub fn glibc_chunk(size: usize) -> usize {
    const MMAP_THRESHOLD: usize = 128 * 1024;
    const PAGE: usize = 4096;
    if size >= MMAP_THRESHOLD {
        (size + 16).div_ceil(PAGE) * PAGE
    } else {
        ((size + 8).div_ceil(16) * 16).max(32)
    }
}

#[inline]
fn add(size: usize) {
    LIVE.fetch_add(size, Ordering::Relaxed);
    LIVE_CHUNKS.fetch_add(glibc_chunk(size), Ordering::Relaxed);
    ALLOCATIONS.fetch_add(1, Ordering::Relaxed);
}

#[inline]
fn sub(size: usize) {
    LIVE.fetch_sub(size, Ordering::Relaxed);
    LIVE_CHUNKS.fetch_sub(glibc_chunk(size), Ordering::Relaxed);
}

// SAFETY: every method calls the same method of `System` with the caller's arguments unchanged
// and returns its result unchanged, so `System`'s guarantees (alignment, size, validity of the
// returned memory) carry over. The bookkeeping touches only atomics (no allocation, no panics),
// so it cannot re-enter the allocator.
unsafe impl GlobalAlloc for CountingAlloc {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        // SAFETY: forwarded unchanged; the caller upholds `alloc`'s contract.
        let p = unsafe { System.alloc(layout) };
        if !p.is_null() {
            add(layout.size());
        }
        p
    }

    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        // SAFETY: forwarded unchanged; the caller upholds `alloc_zeroed`'s contract.
        let p = unsafe { System.alloc_zeroed(layout) };
        if !p.is_null() {
            add(layout.size());
        }
        p
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        // SAFETY: forwarded unchanged; `ptr` was allocated by this allocator (i.e. by `System`)
        // with `layout`, as the caller guarantees.
        unsafe { System.dealloc(ptr, layout) };
        sub(layout.size());
    }

    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        // SAFETY: forwarded unchanged; the caller upholds `realloc`'s contract.
        let p = unsafe { System.realloc(ptr, layout, new_size) };
        if !p.is_null() {
            sub(layout.size());
            add(new_size);
        }
        p
    }
}

/// The counters at one moment.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Snapshot {
    /// Heap bytes requested and not yet freed.
    pub live_bytes: usize,
    /// The same requests rounded to glibc chunk sizes (a model of malloc's overhead).
    pub chunk_bytes: usize,
    /// Allocations made so far (including reallocations).
    pub allocations: u64,
}

impl Snapshot {
    /// Bytes that became live between `earlier` and `self` (negative if freed).
    #[must_use]
    pub fn live_since(&self, earlier: &Snapshot) -> i64 {
        self.live_bytes as i64 - earlier.live_bytes as i64
    }

    /// Chunk bytes that became live between `earlier` and `self`.
    #[must_use]
    pub fn chunks_since(&self, earlier: &Snapshot) -> i64 {
        self.chunk_bytes as i64 - earlier.chunk_bytes as i64
    }
}

/// Read the counters.
#[must_use]
pub fn snapshot() -> Snapshot {
    Snapshot {
        live_bytes: LIVE.load(Ordering::Relaxed),
        chunk_bytes: LIVE_CHUNKS.load(Ordering::Relaxed),
        allocations: ALLOCATIONS.load(Ordering::Relaxed),
    }
}

/// True when [`CountingAlloc`] is this process's global allocator (checked by watching the
/// allocation counter move across a real allocation).
#[must_use]
pub fn installed() -> bool {
    let before = ALLOCATIONS.load(Ordering::Relaxed);
    let v: Vec<u8> = std::hint::black_box(Vec::with_capacity(64));
    let after = ALLOCATIONS.load(Ordering::Relaxed);
    drop(v);
    after > before
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn chunk_model() {
        assert_eq!(glibc_chunk(0), 32);
        assert_eq!(glibc_chunk(24), 32);
        assert_eq!(glibc_chunk(25), 48);
        assert_eq!(glibc_chunk(40), 48);
        assert_eq!(glibc_chunk(41), 64);
        assert_eq!(glibc_chunk(1 << 20), (1 << 20) + 4096);
    }

    #[test]
    fn not_installed_in_the_unit_test_binary() {
        // The library's own test binary does not install the allocator; the runner must notice.
        assert!(!installed());
    }
}
