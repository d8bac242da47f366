//! What the background jobs measure, as both the messages ([`super::msg`]) and the screens'
//! state ([`super::state`]) hold it. Depends on the library only.

use bloomlab::measure::{Measurement, TimingStats};

/// Bits set per region of the bit array.
#[derive(Debug, Clone, PartialEq)]
pub struct FillMap {
    /// Bits in the array.
    pub m: u64,
    /// (bits set, bits) of each region; regions split the array into near-equal parts.
    pub regions: Vec<(u64, u64)>,
    /// Bits set in total.
    pub ones: u64,
}

/// Outcome of one Compare row.
#[derive(Debug, Clone, PartialEq)]
pub enum RowOutcome<T> {
    /// Measured.
    Done(T),
    /// Something else failed (allocation, …).
    Failed(String),
}

/// One measured filter kind.
#[derive(Debug, Clone, PartialEq)]
pub struct CompareResult {
    /// The measurement.
    pub m: Measurement,
    /// Supports remove (probed via `as_removable`).
    pub removable: bool,
}

/// One measured hash × strategy.
#[derive(Debug, Clone, PartialEq)]
pub struct HashResult {
    /// The measurement.
    pub m: Measurement,
    /// Bit positions counted per bin (all k positions of each inserted key).
    pub histogram: Vec<u64>,
    /// Pearson chi-square statistic of the histogram against uniform.
    pub chi2: f64,
    /// Its p-value.
    pub chi2_p: f64,
}

/// A measured row (Compare) or cell (Hashes).
#[derive(Debug, Clone, PartialEq)]
pub enum RowState<T> {
    /// Not measured yet.
    Pending,
    /// Measured, unavailable or failed.
    Out(RowOutcome<T>),
}

impl<T> RowState<T> {
    /// The result, when measured.
    pub fn done(&self) -> Option<&T> {
        match self {
            RowState::Out(RowOutcome::Done(t)) => Some(t),
            _ => None,
        }
    }
}

/// Median, fastest and slowest of per-chunk times (ns per key), as `measure` reports them.
pub fn timing_stats(samples: &[f64]) -> Option<TimingStats> {
    if samples.is_empty() {
        return None;
    }
    let mut v = samples.to_vec();
    v.sort_by(f64::total_cmp);
    let n = v.len();
    let median = if n % 2 == 1 {
        v[n / 2]
    } else {
        f64::midpoint(v[n / 2 - 1], v[n / 2])
    };
    Some(TimingStats {
        median,
        min: v[0],
        max: v[n - 1],
        samples: n,
    })
}

/// The peer crates Compare can add (`e`), in display order: (name, the bloomlab kind it is
/// like). Measured by `peers::measure_peer` (feature `peers`).
pub const PEERS: [(&str, &str); 7] = [
    ("fastbloom", "blocked"),
    ("sbbf-rs-safe", "split-block"),
    ("growable-bloom", "scalable"),
    ("cuckoofilter", "cuckoo"),
    ("qfilter", "quotient"),
    ("xorf Xor8", "xor"),
    ("xorf BinaryFuse8", "binary-fuse"),
];

/// One peer measured.
#[derive(Debug, Clone, PartialEq)]
pub struct PeerResult {
    /// Heap bytes of its payload.
    pub bytes: u64,
    /// Absent keys queried.
    pub queries: u64,
    /// Of those answered "maybe present".
    pub false_positives: u64,
    /// Inserted keys answered "absent" (must be 0), not counting refused inserts.
    pub false_negatives: u64,
    /// Inserts the peer refused (cuckoofilter and qfilter when full).
    pub refused: u64,
    /// ns per insert (a static filter: its construction, per key, timed whole).
    pub insert: TimingStats,
    /// ns per query of an absent key.
    pub query: TimingStats,
}

impl PeerResult {
    /// The measured rate.
    pub fn fpr(&self) -> f64 {
        self.false_positives as f64 / self.queries.max(1) as f64
    }
}
