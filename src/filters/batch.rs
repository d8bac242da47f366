//! The loop every batch operation shares (blocked, split-block, cuckoo; and, queries only, the
//! kinds of [`super::bulk`]): each item of a chunk is *staged* (hashed, its block found, the
//! block prefetched), then the chunk is *finished* (probed or written).
//!
//! **Pipelined.** A prefetch issued just before its line is needed hides little: staging 16
//! items takes a few tens of nanoseconds, one DRAM miss over a hundred. So when the table is
//! large the loop stages chunk *c + 1* before it finishes chunk *c*: each prefetch then has a
//! whole chunk's work to arrive in. Measured at n = 10^8 on the Intel Xeon this was tuned on
//! (`experiments/programs/batch_probe.rs`, `results/bench/batch-probe.md`, one process, median
//! ns per key, hit / miss): the blocked filter's batch 24.2 / 24.1 against a floor of one
//! random line 17.4 / 16.7 (1.39 / 1.44×); without any prefetch 86.7 / 72.9. (The
//! stage-then-probe batch this replaced measured 1.78 / 1.47× the floor, on an AMD EPYC in an
//! earlier run: not the same machine, so not a ratio to claim.)
//!
//! **Only for large tables.** In cache a prefetch is an extra load-port instruction per item
//! for nothing: the blocked batch at n = 10^4 took 13.1 ns per key with it and 9.7 without on
//! the AMD EPYC, 11.4–12.1 against 10.7–11.0 on the Intel Xeon; at 2·10^6 and 3·10^6 keys
//! (2.4–3.6 MB, past one core's 2 MiB L2) the prefetch was clearly faster (12–15.5 against
//! 30–35 ns at 3·10^6), at 10^6 (1.2 MB) the two were within noise. Below
//! [`PREFETCH_MIN_BYTES`] of table the loop neither prefetches nor pipelines.

/// Tables smaller than this are not prefetched by the batch operations: they sit in L2 or L3,
/// where the prefetch costs more than it hides (module doc: the crossover `batch_probe`
/// measured at N from 10^4 to 3·10^6, about one core's L2).
pub(crate) const PREFETCH_MIN_BYTES: usize = 1 << 20;

/// Whether a batch over a table of `bytes` should prefetch (and pipeline).
#[inline(always)]
pub(crate) fn prefetch_pays(bytes: usize) -> bool {
    bytes >= PREFETCH_MIN_BYTES
}

/// What a filter gives the batch operations ([`contains`], [`insert`]): how to stage one item
/// (hash it, find its block or buckets, prefetch them when `warm`), and how to answer or store
/// an item once staged.
///
/// Traits, not closures: implementations mark all three methods `#[inline(always)]` and the
/// compiler inlines them into the loop. Closures handed to the loop were compiled as functions
/// of their own, called once per chunk; in split-block that put the block test outside the
/// AVX2 code of `avx2::run_avx2`, so a batch query probed its block with scalar code: 119
/// instructions a query in cache against 60 for a single `contains` (callgrind, n = 10^4).
pub(crate) trait Staged {
    /// What staging one item produces (block index and key, buckets and fingerprint, ...).
    type Step: Copy + Default;
    /// Stage one item, prefetching what it will touch when `warm`.
    fn stage(&self, item: &[u8], warm: bool) -> Self::Step;
    /// Whether the staged item may be present.
    fn probe_step(&self, step: Self::Step) -> bool;
    /// Store the staged item; `false` when it was refused (a full cuckoo table).
    fn store_step(&mut self, step: Self::Step) -> bool;
}

/// The query half of [`Staged`], alone: what a kind that only answers batches in this loop
/// implements (standard, counting, scalable, xor); every [`Staged`] kind is one too.
pub(crate) trait Probe {
    /// What staging one item produces (its hash, its slots, ...).
    type Step: Copy + Default;
    /// Stage one item, prefetching what it will touch when `warm`.
    fn stage(&self, item: &[u8], warm: bool) -> Self::Step;
    /// Whether the staged item may be present.
    fn probe_step(&self, step: Self::Step) -> bool;
}

impl<F: Staged> Probe for F {
    type Step = F::Step;
    #[inline(always)]
    fn stage(&self, item: &[u8], warm: bool) -> F::Step {
        Staged::stage(self, item, warm)
    }
    #[inline(always)]
    fn probe_step(&self, step: F::Step) -> bool {
        Staged::probe_step(self, step)
    }
}

/// Answer `items` into `out` (as many as both hold), in chunks of `B` ([`pipelined`]).
#[inline(always)]
pub(crate) fn contains<F: Probe, const B: usize>(
    f: &F,
    items: &[&[u8]],
    out: &mut [bool],
    warm: bool,
) {
    let n = items.len().min(out.len());
    pipelined::<_, B>(&mut Query { f, out }, &items[..n], warm);
}

/// Store `items` in order, in chunks of `B` ([`pipelined`]); returns how many were refused.
#[inline(always)]
pub(crate) fn insert<F: Staged, const B: usize>(f: &mut F, items: &[&[u8]], warm: bool) -> u64 {
    let mut s = Store { f, refused: 0 };
    pipelined::<_, B>(&mut s, items, warm);
    s.refused
}

/// A batch query: the filter and where the answers go.
struct Query<'a, 'o, F> {
    f: &'a F,
    out: &'o mut [bool],
}
impl<F: Probe> Batch for Query<'_, '_, F> {
    type Step = F::Step;
    #[inline(always)]
    fn stage(&self, item: &[u8], warm: bool) -> F::Step {
        self.f.stage(item, warm)
    }
    #[inline(always)]
    fn finish(&mut self, start: usize, steps: &[F::Step]) {
        for (o, &s) in self.out[start..start + steps.len()].iter_mut().zip(steps) {
            *o = self.f.probe_step(s);
        }
    }
}

/// A batch insert, counting the refused items.
struct Store<'a, F> {
    f: &'a mut F,
    refused: u64,
}
impl<F: Staged> Batch for Store<'_, F> {
    type Step = F::Step;
    #[inline(always)]
    fn stage(&self, item: &[u8], warm: bool) -> F::Step {
        Staged::stage(self.f, item, warm)
    }
    #[inline(always)]
    fn finish(&mut self, _: usize, steps: &[F::Step]) {
        for &s in steps {
            self.refused += u64::from(!self.f.store_step(s));
        }
    }
}

/// The two halves of the loop [`pipelined`] runs: `stage` gives an item's step, `finish`
/// completes the chunk whose first item is `items[start]`.
trait Batch {
    /// What staging one item produces (block index, key, ...).
    type Step: Copy + Default;
    /// Stage one item (hash it, find its block, prefetch it when `warm`).
    fn stage(&self, item: &[u8], warm: bool) -> Self::Step;
    /// Finish the chunk whose first item is `items[start]`.
    fn finish(&mut self, start: usize, steps: &[Self::Step]);
}

#[inline(always)]
fn fill<C: Batch, const B: usize>(ctx: &C, chunk: &[&[u8]], into: &mut [C::Step; B], warm: bool) {
    for (t, it) in into.iter_mut().zip(chunk) {
        *t = ctx.stage(it, warm);
    }
}

/// Run a batch over `items` in chunks of `B`. With `warm`, chunk c + 1 is staged before chunk c
/// is finished (module doc); without, each chunk is staged then finished. Either way every
/// chunk is finished in order, so a batch insert stores what single inserts in the same order
/// would.
#[inline(always)]
fn pipelined<C: Batch, const B: usize>(ctx: &mut C, items: &[&[u8]], warm: bool) {
    let mut buf = [[C::Step::default(); B]; 2];
    if !warm {
        for (c, chunk) in items.chunks(B).enumerate() {
            fill(ctx, chunk, &mut buf[0], false);
            ctx.finish(c * B, &buf[0][..chunk.len()]);
        }
        return;
    }
    let mut chunks = items.chunks(B);
    let Some(mut cur) = chunks.next() else {
        return;
    };
    fill(ctx, cur, &mut buf[0], true);
    let (mut start, mut side) = (0, 0);
    loop {
        let next = chunks.next();
        if let Some(nx) = next {
            fill(ctx, nx, &mut buf[side ^ 1], true);
        }
        ctx.finish(start, &buf[side][..cur.len()]);
        let Some(nx) = next else { break };
        start += cur.len();
        cur = nx;
        side ^= 1;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Records what the loop does: every staged item and every finished step.
    struct Seen {
        warm: bool,
        seen: Vec<(usize, u16)>,
    }
    impl Batch for Seen {
        type Step = u16;
        fn stage(&self, it: &[u8], w: bool) -> u16 {
            assert_eq!(w, self.warm);
            u16::from_le_bytes([it[0], it[1]])
        }
        fn finish(&mut self, start: usize, steps: &[u16]) {
            self.seen
                .extend(steps.iter().enumerate().map(|(j, &s)| (start + j, s)));
        }
    }

    /// Every item is staged once and finished once, in order, with its own step, whether the
    /// loop pipelines or not, for lengths around the chunk size.
    #[test]
    fn every_item_staged_and_finished_in_order() {
        let keys: Vec<[u8; 2]> = (0..70u16).map(u16::to_le_bytes).collect();
        for len in [0, 1, 7, 8, 9, 16, 17, 70] {
            let items: Vec<&[u8]> = keys[..len].iter().map(|k| &k[..]).collect();
            for warm in [false, true] {
                let mut s = Seen {
                    warm,
                    seen: Vec::new(),
                };
                pipelined::<_, 8>(&mut s, &items, warm);
                let want: Vec<(usize, u16)> = (0..len).map(|i| (i, i as u16)).collect();
                assert_eq!(s.seen, want, "len {len}, warm {warm}");
            }
        }
    }
}
