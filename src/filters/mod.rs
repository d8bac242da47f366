//! The filters, one file each.

pub mod concurrent;
pub mod standard;

pub use concurrent::ConcurrentBloom;
pub use standard::StandardBloom;
