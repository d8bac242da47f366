//! The insert count the dynamic filters keep, at one instruction per insert.

/// How many items a filter was told to insert: the count it was made or loaded with (`base`)
/// plus the inserts since (`added`), reported saturating at `u64::MAX`.
///
/// A loaded file may already count `u64::MAX` (Guava's estimate when every bit is set, or a
/// crafted file), so a plain `len += 1` can overflow, and `saturating_add` costs five
/// instructions per insert (load, compare, branch, add, store; callgrind, CI gate) where
/// fastbloom, which keeps no count, spends none. Here an insert is one `inc` of `added`, which
/// starts at 0 in every process and cannot wrap in practice (2^64 inserts at one per nanosecond
/// take 584 years); the saturation happens when the count is read.
///
/// ```
/// # extern crate bloomlab;
/// use bloomlab::{Filter, StandardBloom};
/// let mut f = StandardBloom::with_rate(100, 0.01).unwrap();
/// f.insert(b"a");
/// f.insert(b"a");
/// assert_eq!(f.len(), 2); // inserts, not distinct items
/// ```
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub(crate) struct InsertCount {
    base: u64,
    added: u64,
}

impl InsertCount {
    /// A count starting at `n`.
    #[inline]
    pub(crate) fn new(n: u64) -> Self {
        Self { base: n, added: 0 }
    }

    /// One more insert.
    #[inline(always)]
    pub(crate) fn inc(&mut self) {
        self.added = self.added.wrapping_add(1);
    }

    /// `n` more inserts (a batch).
    #[inline]
    pub(crate) fn add(&mut self, n: u64) {
        self.added = self.added.wrapping_add(n);
    }

    /// The count, saturating at `u64::MAX`.
    #[inline]
    pub(crate) fn get(self) -> u64 {
        self.base.saturating_add(self.added)
    }
}

#[cfg(test)]
mod tests {
    use super::InsertCount;

    #[test]
    fn counts_and_saturates() {
        let mut c = InsertCount::default();
        c.inc();
        c.inc();
        assert_eq!(c.get(), 2);
        let mut s = InsertCount::new(u64::MAX - 1);
        s.inc();
        assert_eq!(s.get(), u64::MAX);
        s.inc();
        s.inc();
        assert_eq!(s.get(), u64::MAX);
        assert_eq!(InsertCount::new(u64::MAX).get(), u64::MAX);
    }
}
