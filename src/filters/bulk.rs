//! Bulk queries for the kinds whose batch was the per-item default until issue 38: the
//! standard and counting filters (k positions anywhere in the array), the scalable filter (k
//! positions in each layer), the xor filter (three slots in three segments) and the binary fuse
//! filter (three or four slots in consecutive segments; it had a batch loop, not prefetched,
//! and takes [`Depth::XOR`]'s chunk). They run the
//! same pipelined loop as the blocked, split-block and cuckoo filters ([`super::batch`]): chunk
//! c + 1 is hashed and its lines prefetched before chunk c is probed, in tables of at least
//! [`super::batch::PREFETCH_MIN_BYTES`]; smaller tables are answered one item at a time (in
//! cache a prefetch costs more than it hides, and the per-item loop is what single queries
//! run).
//!
//! A [`Depth`] says how deep the pipeline runs: `chunk` items per chunk (one of
//! [`Depth::CHUNKS`]) and, for the k-position kinds, how many of an item's first probes are
//! prefetched (`lines`). Each kind's default was measured at n = 10^8
//! (`experiments/programs/bulk_probe.rs`, `results/bench/bulk-probe.md`); every kind also takes
//! an explicit depth (`contains_batch_at`), which is how that program swept them.

use super::batch::{self, Probe};
use super::prefetch::prefetch;
use crate::hash::{Hash128, IndexStrategy, ItemHasher, StrategyId};

/// How deep a batch query's pipeline runs: `chunk` items are staged (hashed, and their lines
/// prefetched) a chunk ahead of the probes, and of each item's probes the first `lines` are
/// prefetched (the k-position kinds; the xor filter always prefetches its three slots).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Depth {
    /// Items per chunk: one of [`Depth::CHUNKS`] (others are rounded down to one of them).
    pub chunk: usize,
    /// How many of an item's k positions are prefetched (at least 1; at most k are).
    pub lines: u32,
}

impl Depth {
    /// The chunk sizes the loop is compiled for.
    pub const CHUNKS: [usize; 5] = [4, 8, 16, 32, 64];

    /// The standard and counting filters' default, and a one-layer scalable filter's: 16 items
    /// a chunk, every probe prefetched. Swept at n = 10^8 (`bulk_probe … sweep`,
    /// `results/bench/bulk-depth.md`): with every probe prefetched, 4 to 64 items a chunk were
    /// within ±8% of each other on hits and misses; prefetching only the first 1 to 3 probes
    /// made hits 1.1–1.7× slower (the probes not prefetched wait for DRAM one by one) and misses
    /// 0.6–1.1× (most misses stop at the first or second clear bit, and fewer prefetches leave
    /// the line-fill buffers to the next items). No depth is best for both: a caller whose
    /// queries are mostly misses can pass `Depth { chunk: 64, lines: 2 }` to
    /// `contains_batch_at`.
    pub const K_POSITIONS: Depth = Depth {
        chunk: 16,
        lines: 64,
    };
    /// A grown scalable filter's default (more than one layer): 16 items a chunk, the first 2
    /// probes of every layer prefetched. Swept at n = 10^8 started at n/1000 (10 layers):
    /// against every probe of every layer (70 prefetches an item, far more than the line-fill
    /// buffers hold), 2 probes a layer took 0.40 [0.38, 0.42] of the time on hits and 0.40
    /// [0.38, 0.43] on misses; 1 and 3 probes were within 0.34–0.48 too.
    pub const SCALABLE: Depth = Depth {
        chunk: 16,
        lines: 2,
    };
    /// The xor and binary fuse filters' default: 16 items a chunk, the slots prefetched (the
    /// sweep at n = 10^8 could not tell 4 to 64 items apart: every interval spanned 1.00).
    pub const XOR: Depth = Depth {
        chunk: 16,
        lines: 3,
    };
}

/// A filter with the number of probes a batch prefetches per item: what the k-position kinds
/// implement [`Probe`] for.
pub(crate) struct At<'a, F> {
    pub(crate) f: &'a F,
    pub(crate) lines: u32,
}

/// Run the pipelined query loop over `f` with `d.chunk` items a chunk (rounded down to one of
/// [`Depth::CHUNKS`]; below 8, 4). `warm`: prefetch and pipeline.
#[inline(always)]
pub(crate) fn run<F: Probe>(f: &F, items: &[&[u8]], out: &mut [bool], chunk: usize, warm: bool) {
    match chunk {
        64.. => batch::contains::<F, 64>(f, items, out, warm),
        32..64 => batch::contains::<F, 32>(f, items, out, warm),
        16..32 => batch::contains::<F, 16>(f, items, out, warm),
        8..16 => batch::contains::<F, 8>(f, items, out, warm),
        _ => batch::contains::<F, 4>(f, items, out, warm),
    }
}

/// Answer `items` into `out` the way the k-position kinds do: one item at a time with
/// `single` unless the table has `bytes` of at least 1 MiB and the strategy hashes an item once
/// (not `independent`); then through the pipelined loop over `f` with `depth`.
#[inline(always)]
pub(crate) fn k_positions<'a, F, S: IndexStrategy>(
    f: &'a F,
    (bytes, strategy): (usize, &S),
    (items, out): (&[&[u8]], &mut [bool]),
    depth: Depth,
    single: impl Fn(&[u8]) -> bool,
) where
    At<'a, F>: Probe,
{
    if !batch::prefetch_pays(bytes) || strategy.id() == StrategyId::Independent {
        for (o, it) in out.iter_mut().zip(items) {
            *o = single(it);
        }
        return;
    }
    let at = At {
        f,
        lines: depth.lines,
    };
    run(&at, items, out, depth.chunk, true);
}

/// The one hash a k-position kind stages for `item`: what `strategy`'s positions are
/// [`IndexStrategy::for_each_hashed`] of. Never called for `independent` ([`k_positions`]
/// answers it one item at a time), for which it would give the default hash.
#[inline(always)]
pub(crate) fn stage_hash<S: IndexStrategy, H: ItemHasher>(s: &S, h: &H, item: &[u8]) -> Hash128 {
    s.prehash(h, item).hashed().unwrap_or_default()
}

/// Prefetch the cells that hold the first `lines` of the k positions `s` derives from hash `h`
/// in an array of `m` cells, cell i living in `store[i >> shift]` (64-bit words: 6; bytes of
/// two 4-bit counters: 1).
#[inline(always)]
pub(crate) fn prefetch_positions<S: IndexStrategy, T>(
    s: &S,
    h: Hash128,
    (k, m): (u32, u64),
    lines: u32,
    store: &[T],
    shift: u32,
) {
    let mut left = lines.max(1);
    s.for_each_hashed(h, k, m, |i| {
        if let Some(c) = store.get((i >> shift) as usize) {
            prefetch(c);
        }
        left -= 1;
        left > 0
    });
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Filter;
    use crate::filters::{
        BinaryFuseFilter, CountingBloom, ScalableBloom, ScalableParams, StandardBloom, XorFilter,
    };
    use crate::hash::{AnyHasher, AnyStrategy, HashId, StrategyId, mix64};

    /// A filter's `contains_batch_at`.
    type BatchAt<'a> = dyn Fn(&[&[u8]], &mut [bool], Depth) + 'a;

    /// The depths the tests run: every chunk size, 1 to all probes prefetched.
    const DEPTHS: [Depth; 6] = [
        Depth { chunk: 4, lines: 1 },
        Depth { chunk: 8, lines: 2 },
        Depth {
            chunk: 16,
            lines: 64,
        },
        Depth {
            chunk: 33,
            lines: 3,
        },
        Depth {
            chunk: 64,
            lines: 7,
        },
        Depth { chunk: 0, lines: 0 },
    ];

    fn keys(from: u64, n: u64) -> Vec<[u8; 8]> {
        (from..from + n).map(|i| mix64(i).to_le_bytes()).collect()
    }

    /// Present and absent keys interleaved (`n` of each), the present ones first in `.0`.
    fn probe_set(n: u64) -> (Vec<[u8; 8]>, Vec<[u8; 8]>) {
        let (present, absent) = (keys(0, n), keys(1 << 40, n));
        let mixed = present
            .iter()
            .zip(&absent)
            .flat_map(|(a, b)| [*a, *b])
            .collect();
        (present, mixed)
    }

    /// The batched answers equal the single queries item by item at every depth and for
    /// lengths around the chunk sizes; the set holds hits (all reported) and true misses.
    fn check(name: &str, mixed: &[[u8; 8]], f: &dyn Filter, at: &BatchAt<'_>) {
        let items: Vec<&[u8]> = mixed.iter().map(|k| &k[..]).collect();
        let want: Vec<bool> = items.iter().map(|it| f.contains(it)).collect();
        assert!(
            want.iter().step_by(2).all(|&b| b),
            "{name}: a false negative"
        );
        assert!(
            want.iter().skip(1).step_by(2).any(|&b| !b),
            "{name}: no miss"
        );
        let first_wrong = |out: &[bool]| out.iter().zip(&want).position(|(a, b)| a != b);
        let mut out = vec![false; items.len()];
        f.contains_batch(&items, &mut out);
        assert_eq!(first_wrong(&out), None, "{name}: contains_batch");
        for d in DEPTHS {
            for len in [0, 1, 5, 17, 64, 65, items.len()] {
                let mut out = vec![true; len];
                out.iter_mut().step_by(3).for_each(|o| *o = false);
                at(&items[..len], &mut out, d);
                assert_eq!(first_wrong(&out), None, "{name}, {d:?}, {len} items");
            }
        }
    }

    /// Standard and counting filters, every strategy through the registry's `AnyStrategy` and
    /// two hashes, on both sides of the prefetch threshold (2^16 bits: one item at a time; 2^23
    /// bits = 1 MiB, and 2^23 four-bit counters: pipelined).
    #[test]
    fn standard_and_counting_batches_answer_as_single_queries() {
        let (present, mixed) = probe_set(2000);
        for strategy in StrategyId::ALL {
            for hash in [HashId::Xxh3, HashId::Murmur3] {
                let (h, s) = (AnyHasher::new(hash, 0), AnyStrategy(strategy));
                for m in [1 << 16, 1 << 23] {
                    let name = format!("{strategy:?} {hash:?} m {m}");
                    let mut f = StandardBloom::with_bits_and(m, 7, h, s).unwrap();
                    present.iter().for_each(|k| f.insert(k));
                    check(&name, &mixed, &f, &|i, o, d| f.contains_batch_at(i, o, d));
                    let mut c = CountingBloom::with_counters_and(m, 7, h, s).unwrap();
                    present.iter().for_each(|k| c.insert(k));
                    check(&name, &mixed, &c, &|i, o, d| c.contains_batch_at(i, o, d));
                }
            }
        }
        // The monomorphic default type too (its own hash_item / strategy, no dispatch).
        let mut f = StandardBloom::with_bits(1 << 23, 7).unwrap();
        present.iter().for_each(|k| f.insert(k));
        check("standard default", &mixed, &f, &|i, o, d| {
            f.contains_batch_at(i, o, d)
        });
    }

    /// Scalable filters with one layer and grown to several, pipelined (over 1 MiB in all) and
    /// not, on the written-out enhanced-double path and through another strategy.
    #[test]
    fn scalable_batches_answer_as_single_queries() {
        let (present, mixed) = probe_set(2000);
        for strategy in [
            StrategyId::EnhancedDouble,
            StrategyId::Double,
            StrategyId::Independent,
        ] {
            // n0 = 2^20 at 1%: 1.2 MB; n0 = 200 grown over 2000 keys: several small layers.
            for n0 in [1 << 20, 200] {
                let (h, s) = (AnyHasher::new(HashId::Xxh3, 0), AnyStrategy(strategy));
                let mut f =
                    ScalableBloom::with_params_and(ScalableParams::new(n0, 0.01), h, s).unwrap();
                present.iter().for_each(|k| f.insert(k));
                let name = format!("scalable {strategy:?} n0 {n0}");
                check(&name, &mixed, &f, &|i, o, d| f.contains_batch_at(i, o, d));
            }
        }
        // Grown past 1 MiB: 2^18 first, 7·10^5 keys (layers of 2^18 and 2^19 keys).
        let mut f = ScalableBloom::new(1 << 18, 0.01).unwrap();
        (0..700_000u64).for_each(|i| f.insert(&mix64(i).to_le_bytes()));
        assert!(f.bytes() >= batch::PREFETCH_MIN_BYTES);
        check("scalable grown", &mixed, &f, &|i, o, d| {
            f.contains_batch_at(i, o, d)
        });
    }

    /// Xor filters of both fingerprint widths, under and over 1 MiB of table.
    #[test]
    fn xor_batches_answer_as_single_queries() {
        for (n, bits) in [(2000, 8), (900_000, 8), (2000, 16), (500_000, 16)] {
            let (present, _) = probe_set(n);
            let (_, mixed) = probe_set(2000);
            let f = XorFilter::from_keys(present.iter(), bits).unwrap();
            let name = format!("xor {bits}-bit, {n} keys, {} bytes", f.bytes());
            check(&name, &mixed, &f, &|i, o, d| f.contains_batch_at(i, o, d));
        }
    }

    /// Binary fuse filters, both widths and arities, under and over 1 MiB of table (its batch
    /// has the xor filter's fixed depth: `contains_batch` is checked, the depth sweep is not).
    #[test]
    fn binary_fuse_batches_answer_as_single_queries() {
        for (n, bits, arity) in [
            (2000, 8, 3),
            (1 << 20, 8, 3),
            (1 << 20, 8, 4),
            (600_000, 16, 3),
            (600_000, 16, 4),
        ] {
            let (present, _) = probe_set(n);
            let (_, mixed) = probe_set(2000);
            let f = BinaryFuseFilter::from_keys_arity_and(
                present.iter(),
                bits,
                arity,
                crate::hash::Xxh3::default(),
            )
            .unwrap();
            assert_eq!(f.bytes() >= batch::PREFETCH_MIN_BYTES, n > 2000);
            let name = format!(
                "fuse {bits}-bit {arity}-wise, {n} keys, {} bytes",
                f.bytes()
            );
            check(&name, &mixed, &f, &|i, o, _| f.contains_batch(i, o));
        }
    }
}
