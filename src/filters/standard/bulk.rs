//! The standard filter's batch query (issue 38): each item of a chunk is hashed once and the
//! words of its first [`Depth::lines`] positions are prefetched a chunk before its k probes
//! run (`filters/bulk.rs`). Kept apart from `standard.rs`, whose `contains`/`insert` it does
//! not touch.

use super::StandardBloom;
use crate::filters::batch::Probe;
use crate::filters::bulk::{self, At, Depth};
use crate::hash::{Hash128, IndexStrategy, ItemHasher};

impl<H: ItemHasher, S: IndexStrategy> Probe for At<'_, StandardBloom<H, S>> {
    type Step = Hash128;
    #[inline(always)]
    fn stage(&self, item: &[u8], warm: bool) -> Hash128 {
        let f = self.f;
        let h = bulk::stage_hash(&f.strategy, &f.hasher, item);
        if warm {
            let km = (f.k.get(), f.bits.len());
            bulk::prefetch_positions(&f.strategy, h, km, self.lines, f.bits.words(), 6);
        }
        h
    }
    #[inline(always)]
    fn probe_step(&self, h: Hash128) -> bool {
        let bits = &self.f.bits;
        // A flag set on the clear probe, as `contains_item` does (see there).
        let mut clear = false;
        self.f
            .strategy
            .for_each_hashed(h, self.f.k.get(), bits.len(), |i| {
                if bits.get(i) {
                    true
                } else {
                    clear = true;
                    false
                }
            });
        !clear
    }
}

impl<H: ItemHasher, S: IndexStrategy> StandardBloom<H, S> {
    /// [`Filter::contains_batch`](crate::Filter::contains_batch) at an explicit pipeline
    /// depth (the default is [`Depth::K_POSITIONS`]): `out[i]` = whether `items[i]` may be
    /// present, for the first `min(items, out)` items. A filter under 1 MiB, or one indexed by
    /// `independent` (k hashes, no one hash to stage), is answered one item at a time.
    ///
    /// ```
    /// use bloomlab::filters::bulk::Depth;
    /// use bloomlab::StandardBloom;
    /// let mut f = StandardBloom::with_rate(2_000_000, 0.01).unwrap(); // 2.4 MB: prefetched
    /// f.insert_new(b"apple");
    /// let mut out = [false; 2];
    /// f.contains_batch_at(&[b"apple".as_slice(), b"pear"], &mut out, Depth { chunk: 8, lines: 2 });
    /// assert_eq!(out, [true, false]);
    /// ```
    pub fn contains_batch_at(&self, items: &[&[u8]], out: &mut [bool], depth: Depth) {
        let table = (self.bits.heap_bytes(), &self.strategy);
        bulk::k_positions(self, table, (items, out), depth, |it| {
            self.contains_item(it)
        });
    }
}
