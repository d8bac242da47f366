//! The filters, one file each.

pub mod standard;

pub use standard::StandardBloom;
