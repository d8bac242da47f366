//! The filters, one file each.

pub(crate) mod avx2;
pub(crate) mod batch;
pub mod binary_fuse;
pub mod blocked;
pub mod bulk;
pub mod concurrent;
pub(crate) mod count;
pub mod counting;
pub mod cuckoo;
pub mod multiblock;
pub(crate) mod prefetch;
pub mod prefix;
pub mod quotient;
pub mod ribbon;
pub mod scalable;
pub mod split_block;
pub mod standard;
pub mod static_set;
pub mod xor;

pub use binary_fuse::BinaryFuseFilter;
pub use blocked::BlockedBloom;
pub use concurrent::ConcurrentBloom;
pub use counting::CountingBloom;
pub use cuckoo::CuckooFilter;
pub use multiblock::MultiblockBloom;
pub use prefix::PrefixFilter;
pub use quotient::QuotientFilter;
pub use ribbon::RibbonFilter;
pub use scalable::{ScalableBloom, ScalableParams};
pub use split_block::SplitBlockBloom;
pub use standard::StandardBloom;
pub use xor::XorFilter;
