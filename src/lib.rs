//! # bloomlab
//!
//! A workbench for Bloom filters and their relatives: build them over interchangeable hash
//! functions and index strategies, measure their false-positive rate against theory (with
//! confidence intervals), their memory and their speed.
//!
//! | module | what it holds |
//! |---|---|
//! | [`filter`] | the [`Filter`] trait (and its no-false-negative contract), [`Removable`], [`FilterKind`] |
//! | [`filters`] | one type per filter: [`StandardBloom`], … |
//! | [`persist`] | saving and loading filters: versioned, checksummed, atomic, keys withheld |
//! | [`guava`] | reading and writing Guava's serialized Bloom filters (`BloomFilter.writeTo`) |
//! | [`hash`] | hash functions ([`hash::ItemHasher`]) and index strategies ([`hash::IndexStrategy`]) |
//! | [`theory`] | the formulas, each cited: sizing, classic and exact FPR, bounds |
//! | [`design`] | one design's numbers (m, bytes, k, bits/key, FPRs, bound) from (n, p) or (m, k, n) |
//! | [`stats`] | binomial confidence intervals, uniformity tests |
//! | [`workload`] | seeded key generators with disjoint absent keys |
//! | [`spec`] | run-time filter descriptions ([`FilterSpec`]) → `Box<dyn Filter>` |
//! | [`measure`] | one measurement: FPR ± CI, false negatives, bytes, ns/op |
//! | [`bits`] | bit vectors and packed counters |
//! | [`experiment`] | experiment specs (`experiments/*.toml`), runners, CSV tables |
//! | [`plot`] | charts as SVG and PNG |
//! | [`alloc_count`] | a counting global allocator (measured heap bytes) |
//! | [`units`] | parsing and formatting counts, probabilities and sizes (`1Mb`, `1 in 1000`, `64KiB`) |
//! | [`error`] | typed errors |
//! | `redis` | (feature `redis`) filters in Redis bitmaps and the RedisBloom module (the cache-penetration demo built on them is the binary's `bloomlab redis penetration`) |
//!
//! ```
//! use bloomlab::{Filter, StandardBloom};
//! let mut f = StandardBloom::with_rate(1000, 0.01).unwrap();
//! f.insert(b"apple");
//! assert!(f.contains(b"apple"));      // never a false negative
//! assert_eq!(f.k(), 7);               // k = round(m/n · ln 2)
//! ```

pub mod alloc_count;
pub mod bits;
pub mod design;
pub mod error;
#[cfg(feature = "experiments")]
pub mod experiment;
pub mod filter;
pub mod filters;
pub mod guava;
pub mod hash;
pub mod measure;
pub mod persist;
#[cfg(feature = "experiments")]
pub mod plot;
#[cfg(feature = "redis")]
pub mod redis;
pub mod registry;
pub mod spec;
pub mod stats;
pub mod theory;
pub mod units;
pub mod walkthrough;
pub mod workload;

pub use error::{Error, Param, Result};
pub use filter::{Filter, FilterKind, Removable};
pub use filters::StandardBloom;
pub use registry::AnyFilter;
pub use spec::FilterSpec;
