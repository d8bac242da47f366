//! A software prefetch: the one way a batch of queries keeps many cache misses in flight.
//!
//! A demand load that misses every cache holds its instruction in the reorder buffer until the
//! line arrives, so a batch that hashes 16 keys and then loads their 16 blocks stalls once the
//! buffer is full of waiting probes: measured at n = 10^8 (`experiments/programs/batch_probe.rs`,
//! 120 MB filters, 4 KiB pages), the blocked filter's batch query took 52 ns per key against a
//! floor of 17 ns for one independent random line. A prefetch retires at once and only occupies
//! a line-fill buffer, so the same batch with a prefetch of each block as its index is known
//! took 19 ns (1.1× the floor). There is no safe way to emit the instruction on stable Rust
//! (`core::intrinsics::prefetch_read_data` is unstable and `_mm_prefetch` takes a raw pointer),
//! hence the one `unsafe` call below.

/// Ask the CPU to start loading the cache line that holds `*r` into all cache levels.
///
/// Only a hint: no effect on any value, and a no-op on targets other than x86-64.
#[inline(always)]
pub(crate) fn prefetch<T>(r: &T) {
    #[cfg(target_arch = "x86_64")]
    // SAFETY: `prefetcht0` reads no memory architecturally and cannot fault (it is dropped for
    // any address that does not translate); the pointer comes from a live reference anyway. SSE,
    // which defines the instruction, is part of the x86-64 baseline, so every x86-64 CPU has it.
    #[allow(unsafe_code)]
    unsafe {
        use core::arch::x86_64::{_MM_HINT_T0, _mm_prefetch};
        _mm_prefetch::<_MM_HINT_T0>(std::ptr::from_ref(r).cast::<i8>());
    }
    #[cfg(not(target_arch = "x86_64"))]
    let _ = r;
}
