//! Construction of a ribbon filter: sort the mixed hashes, band them in on the fly, solve.
//!
//! **Sorted by start row, without a comparison sort.** Banding in start order walks the rows
//! nearly in sequence, so the 12 bytes a row of scratch stay in cache (the BuRR paper, Dillinger
//! et al. 2022, sorts for the same reason). The start row is the top bits of the mixed hash, so
//! a counting sort by the top `⌊log2 n⌋ − 1` bits (about two keys a bucket) followed by one
//! insertion-sort pass (each key moves only within its bucket) sorts completely, in three
//! linear passes; equal hashes are then adjacent and the same pass drops them. The comparison
//! sort it replaces (`sort_unstable`, twice: once to deduplicate, once per seed) was most of the
//! construction time.

use super::kernel::{back_substitute, with_width};
use crate::bits::try_zeroed;
use crate::error::{Error, Result};
use crate::filters::static_set;
use crate::hash::ItemHasher;

/// Sets smaller than this are sorted by `sort_unstable` (in cache, a histogram costs more).
const COUNTING_SORT_FROM: usize = 1 << 12;

/// Scratch of the construction, kept across seeds.
#[derive(Debug, Default)]
pub(super) struct Scratch {
    /// The mixed hashes of this seed, sorted and distinct.
    pub(super) sorted: Vec<u64>,
    hist: Vec<u32>,
    coeff: Vec<u64>,
    result: Vec<u32>,
}

impl Scratch {
    /// `sorted` = the `hashes` mixed with `seed`, sorted ascending, repeats removed.
    pub(super) fn sort_mixed(&mut self, hashes: &[u64], seed: u64) -> Result<()> {
        let n = hashes.len();
        if self.sorted.len() != n {
            self.sorted = try_zeroed(n)?;
        }
        if n < COUNTING_SORT_FROM {
            for (o, &k) in self.sorted.iter_mut().zip(hashes) {
                *o = static_set::mix(k, seed);
            }
            self.sorted.sort_unstable();
        } else {
            let bits = n.ilog2() - 1;
            let shift = 64 - bits;
            if self.hist.len() != 1 << bits {
                self.hist = try_zeroed(1 << bits)?;
            } else {
                self.hist.fill(0);
            }
            for &k in hashes {
                self.hist[(static_set::mix(k, seed) >> shift) as usize] += 1;
            }
            let mut at = 0u32;
            for c in &mut self.hist {
                let here = *c;
                *c = at;
                at += here;
            }
            for &k in hashes {
                let h = static_set::mix(k, seed);
                let b = &mut self.hist[(h >> shift) as usize];
                self.sorted[*b as usize] = h;
                *b += 1;
            }
            insertion_sort(&mut self.sorted);
        }
        self.sorted.dedup();
        Ok(())
    }

    /// Band the sorted hashes into `slots` rows of `r`-bit results and, when the system is
    /// solvable, back-substitute: the interleaved solution, or `None` when some equation reduced
    /// to `0 = f` with `f ≠ 0` (no solution under this seed).
    pub(super) fn solve(&mut self, slots: usize, r: u32) -> Result<Option<Vec<u64>>> {
        if self.coeff.len() == slots {
            self.coeff.fill(0);
            self.result.fill(0);
        } else {
            self.coeff = Vec::new();
            self.result = Vec::new();
            self.coeff = try_zeroed(slots)?;
            self.result = try_zeroed(slots)?;
        }
        let (starts, mask) = (
            slots as u64 - u64::from(super::WIDTH - 1),
            super::mask_of(r),
        );
        for &h in &self.sorted {
            let (s, c, f) = super::equation(h, starts, mask);
            if !band(&mut self.coeff, &mut self.result, s as usize, c, f) {
                return Ok(None);
            }
        }
        let mut solution: Vec<u64> = try_zeroed(slots / 64 * r as usize)?;
        let (coeff, result) = (&self.coeff[..], &self.result[..]);
        with_width!(r, back_substitute(coeff, result, &mut solution));
        Ok(Some(solution))
    }
}

/// Band the equation `(i, c, f)` in: while row `i` is taken, XOR that row in and move to the
/// next set bit. False when it reduces to `0 = f` with `f ≠ 0`; a `0 = 0` was implied.
#[inline]
fn band(coeff: &mut [u64], result: &mut [u32], mut i: usize, mut c: u64, mut f: u32) -> bool {
    loop {
        // Row i's columns are i .. i+64 and bit 0 of c is column i: the row's nonzero columns
        // never pass those of the rows it came from, so i < m.
        let e = coeff[i];
        if e == 0 {
            coeff[i] = c;
            result[i] = f;
            return true;
        }
        c ^= e;
        f ^= result[i];
        if c == 0 {
            return f == 0;
        }
        let t = c.trailing_zeros();
        c >>= t;
        i += t as usize;
    }
}

/// Sort `v`, which is in order except within short runs (one pass; each element moves only
/// past the larger ones before it).
fn insertion_sort(v: &mut [u64]) {
    for i in 1..v.len() {
        let x = v[i];
        let mut j = i;
        while j > 0 && v[j - 1] > x {
            v[j] = v[j - 1];
            j -= 1;
        }
        v[j] = x;
    }
}

/// What a successful construction gives.
pub(super) struct Solved {
    pub(super) solution: Vec<u64>,
    pub(super) slots: u64,
    pub(super) seed: u64,
    pub(super) attempts: u32,
    pub(super) distinct: u64,
}

/// Try at most [`static_set::MAX_ATTEMPTS`] seeds: each mixes, sorts and deduplicates the
/// `hashes` (repeats allowed), sizes the rows with `slots(distinct)` (the distinct count does
/// not depend on the seed), bands and solves.
///
/// # Errors
/// What `slots` returns; [`Error::Allocation`]; [`Error::Construction`] when every seed fails.
pub(super) fn construct<H: ItemHasher>(
    (kind, label): (&'static str, &[u8]),
    hashes: &[u64],
    r: u32,
    hasher: &H,
    slots: impl Fn(u64) -> Result<u64>,
) -> Result<Solved> {
    let mut scratch = Scratch::default();
    let mut rows = None;
    for attempt in 0..static_set::MAX_ATTEMPTS {
        let seed = static_set::attempt_seed(hasher, label, attempt);
        scratch.sort_mixed(hashes, seed)?;
        let distinct = scratch.sorted.len() as u64;
        let m = match rows {
            Some(m) => m,
            None => *rows.insert(slots(distinct)?),
        };
        let m_usize = usize::try_from(m).map_err(|_| Error::Allocation {
            bytes: u128::from(m) * 12,
        })?;
        if let Some(solution) = scratch.solve(m_usize, r)? {
            return Ok(Solved {
                solution,
                slots: m,
                seed,
                attempts: attempt + 1,
                distinct,
            });
        }
    }
    Err(Error::Construction {
        kind,
        keys: scratch.sorted.len() as u64,
        attempts: static_set::MAX_ATTEMPTS,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::hash::mix64;

    #[test]
    fn the_counting_sort_sorts_and_deduplicates_like_sort_unstable() {
        for n in [0usize, 1, 5, 4095, 4096, 10_000, 100_003] {
            // Every fifth hash repeats an earlier one.
            let hashes: Vec<u64> = (0..n as u64)
                .map(|i| mix64(if i % 5 == 4 { i / 2 } else { i }))
                .collect();
            let mut s = Scratch::default();
            s.sort_mixed(&hashes, 42).unwrap();
            let mut want: Vec<u64> = hashes.iter().map(|&k| static_set::mix(k, 42)).collect();
            want.sort_unstable();
            want.dedup();
            assert_eq!(s.sorted, want, "n={n}");
        }
    }
}
