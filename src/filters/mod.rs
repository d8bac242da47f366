//! The filters, one file each.

pub mod cuckoo;
pub mod scalable;
pub mod standard;

pub use cuckoo::CuckooFilter;
pub use scalable::{ScalableBloom, ScalableParams};
pub use standard::StandardBloom;
