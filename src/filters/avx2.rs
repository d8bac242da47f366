//! Run-time AVX2 selection for the split-block filter's hot paths.
//!
//! The split-block kernels ([`crate::filters::split_block`]) are plain safe Rust: a fixed
//! `[u32; 8]` multiply-shift mask and a branch-free test. Compiled with AVX2 enabled, LLVM turns
//! each into the hand-written kernel of sbbf-rs (`vpmulld`, `vpsrld`, `vpsllvd`, `vptest`); at the
//! default x86-64 target (SSE2) it stays eight scalar multiplies and shifts. So a hot path is
//! written once as a [`Kernel`] and [`dispatch_with`] runs it either inside [`run_avx2`] (compiled with
//! AVX2, chosen when the CPU has it) or as is (the portable fallback, every other CPU and
//! architecture). The two compile from the same source, and a test inserts with one and queries
//! with the other (`split_block::tests::avx2_and_portable_paths_set_the_same_bits`).
//!
//! **Why one hand-written `unsafe` call and not the `multiversion` crate.** Both do the same
//! thing at run time: test the CPU once per call site (std caches `is_x86_feature_detected!` in
//! an atomic) and call a function compiled for AVX2. multiversion 0.8 (the version in the offline
//! cargo cache) adds a proc-macro dependency to the library for what is here ten lines, and its
//! default dispatcher calls through a function pointer kept in a static, which costs the same
//! indirect call that sbbf-rs pays; the hand-written dispatcher is an inlined feature test and
//! one direct call.
//!
//! **Why it pays** (`results/bench/instructions.md`): the gate rows `lab_split_block_xxh3` and
//! `lab_split_block_xxh3_portable` run the two paths on the same filter and keys in one process
//! (`SplitBlockBloom::portable_contains` and friends reach the portable one on any CPU).

/// A hot path written once, run with or without AVX2 by [`dispatch_with`]. `run` must be
/// `#[inline(always)]` (and so must what it calls in the hot path), so that its body is compiled
/// into [`run_avx2`] with AVX2 enabled.
pub(crate) trait Kernel {
    /// What the operation returns.
    type Out;
    /// The operation.
    fn run(self) -> Self::Out;
}

/// Proof that this CPU has AVX2: on x86-64 only [`Avx2::detect`] makes one (and [`Avx2::hot`],
/// through it), after the CPU test. A filter keeps the `Option<Avx2>` it was built with, so its
/// hot path tests one byte of its own instead of std's feature cache (five instructions per
/// operation, callgrind), and [`dispatch_with`] may call the AVX2 code whenever it is given one.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Avx2(());

impl Avx2 {
    /// `Some` when this CPU has AVX2.
    #[must_use]
    pub(crate) fn detect() -> Option<Self> {
        avx2_available().then_some(Self(()))
    }

    /// The token of a filter's one-test hot path: `Some` where [`dispatch_with`] given it runs the
    /// best code this CPU has. On x86-64 that is [`Avx2::detect`]; elsewhere it is always `Some`,
    /// because there [`dispatch_with`] ignores the token and runs the portable code in line (no
    /// `unsafe` code exists there for the token to guard).
    #[must_use]
    pub(crate) fn hot() -> Option<Self> {
        #[cfg(target_arch = "x86_64")]
        {
            Self::detect()
        }
        #[cfg(not(target_arch = "x86_64"))]
        {
            Some(Self(()))
        }
    }
}

/// Run `k` with AVX2 code when this CPU has AVX2, else the portable code (the CPU tested on
/// every call; the tests' entry point).
#[cfg(test)]
#[inline]
pub(crate) fn dispatch<K: Kernel>(k: K) -> K::Out {
    dispatch_with(Avx2::detect(), k)
}

/// Run `k` with AVX2 code when `cpu` is `Some` (this CPU has AVX2), else the portable code.
/// Small enough to inline into a filter's `contains`, so that the hash before it is computed in
/// the caller's code (where a known key length folds); the portable code is a call of its own on
/// x86-64, so that this stays small.
#[inline(always)]
pub(crate) fn dispatch_with<K: Kernel>(cpu: Option<Avx2>, k: K) -> K::Out {
    #[cfg(target_arch = "x86_64")]
    {
        if cpu.is_some() {
            // SAFETY: `run_avx2` is safe Rust compiled with AVX2 and POPCNT enabled; its only
            // requirement is that the CPU supports both. An `Avx2` value exists only where
            // `Avx2::detect` has checked that (its field is private to this module).
            #[allow(unsafe_code)]
            return unsafe { run_avx2(k) };
        }
        run_portable(k)
    }
    #[cfg(not(target_arch = "x86_64"))]
    {
        let _ = cpu;
        k.run()
    }
}

/// `k.run()` out of line: the fallback of [`dispatch_with`] on an x86-64 CPU without AVX2.
#[cfg(target_arch = "x86_64")]
#[inline(never)]
fn run_portable<K: Kernel>(k: K) -> K::Out {
    k.run()
}

/// `k.run()`, compiled with AVX2 and POPCNT enabled (the caller must have checked the CPU has
/// both; every AVX2 CPU has POPCNT, but [`avx2_available`] tests it too). POPCNT makes
/// `count_ones` one instruction (the ribbon filter's parities).
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2,popcnt")]
pub(crate) fn run_avx2<K: Kernel>(k: K) -> K::Out {
    k.run()
}

/// Whether [`dispatch_with`] takes the AVX2 path on this CPU.
#[must_use]
pub fn avx2_available() -> bool {
    #[cfg(target_arch = "x86_64")]
    {
        std::arch::is_x86_feature_detected!("avx2") && std::arch::is_x86_feature_detected!("popcnt")
    }
    #[cfg(not(target_arch = "x86_64"))]
    {
        false
    }
}
