//! Bulk construction: hash every key, sort the fingerprints by quotient (a counting sort: the
//! quotients are the table's own slot numbers), and lay the runs out left to right in one pass
//! ([`Table::place_sorted`]) — no shifting, no run search.

use super::{QuotientFilter, Table, max_items};
use crate::bits::try_zeroed;
use crate::error::{Error, Result};
use crate::filter::Filter;
use crate::hash::ItemHasher;

/// Sort fingerprints of `q + r` bits ascending: a counting sort on the quotient (`2^q`
/// buckets), then each bucket (about one fingerprint at the design load) sorted on its own.
///
/// # Errors
/// [`Error::Allocation`] for the counts or the output.
pub(super) fn sort_fingerprints(fps: &[u64], q: u32, r: u32) -> Result<Vec<u64>> {
    let slots = 1usize << q;
    let mut start: Vec<u32> = try_zeroed(slots + 1)?;
    let wide = fps.len() >= u32::MAX as usize;
    if wide {
        // Beyond u32 counts (4·10^9 fingerprints): the general sort.
        let mut v = fps.to_vec();
        v.sort_unstable();
        return Ok(v);
    }
    for &fp in fps {
        start[(fp >> r) as usize + 1] += 1;
    }
    for i in 0..slots {
        start[i + 1] += start[i];
    }
    let mut out: Vec<u64> = try_zeroed(fps.len())?;
    for &fp in fps {
        let s = &mut start[(fp >> r) as usize];
        out[*s as usize] = fp;
        *s += 1;
    }
    // `start[x]` is now the end of bucket x (the start of x + 1): sort each bucket of two or
    // more.
    let mut from = 0usize;
    for &end in &start[..slots] {
        let end = end as usize;
        if end - from > 1 {
            out[from..end].sort_unstable();
        }
        from = end;
    }
    Ok(out)
}

impl<H: ItemHasher> QuotientFilter<H> {
    /// Insert every key at once: the table this filter's items and `keys` would give by
    /// inserting them one by one (runs are sorted, so the layout is a function of the
    /// fingerprints), built by sorting the fingerprints and laying them out left to right —
    /// the build path of `bloomlab build` and [`crate::FilterSpec::build_from`].
    ///
    /// # Errors
    /// [`Error::Full`] when the keys would take the filter past its load limit;
    /// [`Error::Allocation`]. Either way the filter is unchanged.
    pub fn insert_all<I, K>(&mut self, keys: I) -> Result<()>
    where
        I: IntoIterator<Item = K>,
        K: AsRef<[u8]>,
    {
        let (q, r) = (self.q, self.r);
        let mask = u64::MAX >> (64 - q - r);
        let mut fps = if self.len == 0 {
            Vec::new()
        } else {
            self.fingerprints()
        };
        let held = fps.len();
        let keys = keys.into_iter();
        fps.try_reserve(keys.size_hint().0)
            .map_err(|_| Error::Allocation {
                bytes: keys.size_hint().0 as u128 * 8,
            })?;
        for k in keys {
            fps.push(self.hasher.hash64(k.as_ref()) & mask);
            if fps.len() as u64 > self.max_items {
                return Err(Error::Full {
                    len: self.len,
                    reason: "quotient filter: the keys would exceed the load limit (nothing changed)",
                });
            }
        }
        if fps.len() == held {
            return Ok(());
        }
        let sorted = sort_fingerprints(&fps, q, r)?;
        drop(fps);
        if held == 0 {
            // Empty: lay out into the zeroed table it has.
            self.table.place_sorted(&sorted);
        } else {
            let mut table = Table::new(q, r)?;
            table.place_sorted(&sorted);
            self.table = table;
        }
        self.len = sorted.len() as u64;
        debug_assert!(self.len <= max_items(q, self.max_load));
        debug_assert_eq!(Filter::len(self), self.len);
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    proptest! {
        /// The bulk build gives bit for bit the table of one-by-one inserts, also on top of
        /// items already held; past the load limit it refuses and changes nothing.
        #[test]
        fn bulk_equals_one_by_one(
            q in 3u32..11,
            r in 1u32..12,
            keys in proptest::collection::vec(any::<u64>(), 0..900),
            split in any::<prop::sample::Index>(),
        ) {
            let mut one = QuotientFilter::with_qr(q, r).unwrap();
            let mut bulk = QuotientFilter::with_qr(q, r).unwrap();
            let at = if keys.is_empty() { 0 } else { split.index(keys.len()) };
            let cap = one.capacity() as usize;
            for k in keys.iter().take(cap) {
                one.insert(&k.to_le_bytes());
            }
            for k in keys.iter().take(at.min(cap)) {
                bulk.insert(&k.to_le_bytes());
            }
            let rest = keys[at.min(cap)..].iter().map(|k| k.to_le_bytes());
            if keys.len() <= cap {
                bulk.insert_all(rest).unwrap();
                prop_assert_eq!(&bulk.table, &one.table);
                prop_assert_eq!(bulk.len(), keys.len() as u64);
            } else {
                let before = bulk.table.clone();
                let refused = matches!(bulk.insert_all(rest), Err(Error::Full { .. }));
                prop_assert!(refused);
                prop_assert_eq!(&bulk.table, &before);
            }
        }
    }

    #[test]
    fn sorting_matches_the_general_sort() {
        let (q, r) = (12, 9);
        let fps: Vec<u64> = (0..3900u64)
            .map(|i| crate::hash::mix64(i) >> (64 - q - r))
            .collect();
        let mut want = fps.clone();
        want.sort_unstable();
        assert_eq!(sort_fingerprints(&fps, q, r).unwrap(), want);
    }
}
