//! What the experiment code asks about a filter kind, one function per question, so each
//! question is answered in one place (to become capability methods on [`FilterKind`]).

use crate::filter::FilterKind;

/// Whether the kind sets k bit positions in one array of m that the hash-quality runner can
/// recompute from (hash, strategy, k, m) and bin.
pub(super) fn exposes_positions(kind: FilterKind) -> bool {
    matches!(kind, FilterKind::Standard | FilterKind::Counting)
}

/// Whether the kind is sized by m bits (or counters) and k: it takes `m`, `k` and
/// `bits_per_key` (cuckoo and scalable derive their own sizes from n and p).
pub(super) fn sized_by_bits(kind: FilterKind) -> bool {
    matches!(
        kind,
        FilterKind::Standard | FilterKind::Counting | FilterKind::Blocked | FilterKind::SplitBlock
    )
}

/// The only k the kind accepts, if it fixes one (split-block: one bit in each of 8 words).
pub(super) fn fixed_k(kind: FilterKind) -> Option<u32> {
    (kind == FilterKind::SplitBlock).then_some(8)
}

/// Whether the kind stores fingerprints (takes `fingerprint_bits`; sized by it without p) in
/// buckets of 4 slots (the fill runner's `load` counts slots).
pub(super) fn has_fingerprints(kind: FilterKind) -> bool {
    kind == FilterKind::Cuckoo
}

/// Whether the kind grows past n (takes `growth`, `tightening`, `nonscaling`).
pub(super) fn grows(kind: FilterKind) -> bool {
    kind == FilterKind::Scalable
}

/// Whether the kind supports remove.
pub(super) fn removable(kind: FilterKind) -> bool {
    matches!(kind, FilterKind::Counting | FilterKind::Cuckoo)
}
