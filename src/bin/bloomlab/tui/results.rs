//! What the background jobs measure, as both the messages ([`super::msg`]) and the screens'
//! state ([`super::state`]) hold it. Depends on the library only.

use bloomlab::measure::Measurement;

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
