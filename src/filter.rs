//! The common interface of every filter.

use crate::error::Result;
use crate::hash::{HashId, StrategyId};
use std::fmt;

pub use crate::registry::{Capabilities, FilterKind, Sizing};

/// An approximate-membership filter over byte strings.
///
/// # The contract
/// **No false negatives**: after `try_insert(x)` has returned `Ok`, `contains(x)` returns `true`
/// for as long as the filter lives (for [`Removable`] filters: until `x` itself is removed as
/// many times as it was inserted). `contains(y)` for a `y` never inserted may return `true`: a
/// false positive, with a probability the filter's model ([`Filter::expected_fpr`]) predicts.
///
/// Items are byte strings; a `u64` key is hashed as its 8 little-endian bytes (as Guava's
/// `Funnels.longFunnel()` does), a string as its UTF-8 bytes.
pub trait Filter: Send + Sync + fmt::Debug {
    /// Insert `item`.
    ///
    /// # Errors
    /// [`Error::Full`] for filters with a hard capacity (cuckoo, non-scaling scalable); the
    /// filter is then unchanged and every earlier item is still found.
    fn try_insert(&mut self, item: &[u8]) -> Result<()>;

    /// Insert `item`.
    ///
    /// # Panics
    /// When [`Filter::try_insert`] fails (only filters with a hard capacity do).
    fn insert(&mut self, item: &[u8]) {
        if let Err(e) = self.try_insert(item) {
            panic!("insert failed: {e}");
        }
    }

    /// `false`: `item` was certainly never inserted. `true`: it probably was.
    fn contains(&self, item: &[u8]) -> bool;

    /// Answer many queries; `out[i] = contains(items[i])`. Filters may override this to overlap
    /// memory accesses (prefetch) across items.
    fn contains_batch(&self, items: &[&[u8]], out: &mut [bool]) {
        for (o, it) in out.iter_mut().zip(items) {
            *o = self.contains(it);
        }
    }

    /// Number of successful inserts (repeated items count each time).
    fn len(&self) -> u64;

    /// True when nothing was inserted.
    fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Bits of filter payload (m for Bloom filters; slots × fingerprint bits for cuckoo).
    fn bits(&self) -> u64;

    /// Heap bytes the filter holds (what a counting allocator would see).
    fn bytes(&self) -> usize;

    /// Number of hash positions probed per item (k; 2 buckets for cuckoo).
    fn k(&self) -> u32;

    /// `(m, k)` to evaluate the textbook formulas with (m in cells: bits, or counters for the
    /// counting filter), or `None` where they do not apply (cuckoo, scalable).
    fn classic_params(&self) -> Option<(u64, u32)> {
        Some((self.bits(), self.k()))
    }

    /// The false-positive probability the filter's own model predicts at its current fill.
    fn expected_fpr(&self) -> f64;

    /// Which filter this is.
    fn kind(&self) -> FilterKind;

    /// The hash function used.
    fn hash_id(&self) -> HashId;

    /// The index strategy used, where the filter has one.
    fn strategy_id(&self) -> Option<StrategyId>;

    /// Filter-specific facts for display (layers, saturated counters, load factor, …).
    fn details(&self) -> Vec<(String, String)> {
        Vec::new()
    }

    /// The filter as [`Removable`], when it supports deletion.
    fn as_removable(&mut self) -> Option<&mut dyn Removable> {
        None
    }
}

/// A filter that supports deletion (counting, cuckoo).
pub trait Removable: Filter {
    /// Remove one occurrence of `item`.
    ///
    /// Removing an item that was never inserted but tests positive (a false positive) is
    /// *accepted* by every counting-type filter and silently creates false negatives for other
    /// items: only remove what you inserted.
    ///
    /// # Errors
    /// [`Error::NotPresent`] when the filter can tell the item is absent; nothing changes then.
    fn remove(&mut self, item: &[u8]) -> Result<()>;
}
