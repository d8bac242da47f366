//! # bloomlab
//!
//! A workbench for Bloom filters and their relatives: build them over interchangeable hash
//! functions and index strategies, measure their false-positive rate against theory (with
//! confidence intervals), their memory and their speed.
//!
//! | module | what it holds |
//! |---|---|
//! | [`filter`] | the [`Filter`] trait (and its no-false-negative contract), [`Removable`], [`FilterKind`] with its capabilities and file-format code |
//! | [`filters`] | one type per filter: [`StandardBloom`], … |
//! | [`registry`] | [`AnyFilter`]: the closed enum over the concrete filters that specs build and files load; [`FilterSpec::plan`]: what a spec costs (bits, bytes, k, widths, model rate) before it is built |
//! | [`persist`] | saving and loading filters: versioned, checksummed, atomic, keys withheld; one codec per kind |
//! | [`guava`] | reading and writing Guava's serialized Bloom filters (`BloomFilter.writeTo`) |
//! | [`hash`] | hash functions ([`hash::ItemHasher`]), index strategies ([`hash::IndexStrategy`]), key material |
//! | [`theory`] | the formulas, each cited: sizing, classic and exact FPR, bounds |
//! | [`design`] | one design's numbers (m, bytes, k, bits/key, FPRs, bound) from (n, p) or (m, k, n) |
//! | [`stats`] | binomial confidence intervals, uniformity tests |
//! | [`workload`] | seeded key generators with disjoint absent keys |
//! | [`spec`] | run-time filter descriptions ([`FilterSpec`]); the registry builds them |
//! | [`measure`] | one measurement: FPR ± CI, false negatives, bytes, ns/op; the HashSet memory model |
//! | [`choose`] | which filter for a workload: candidates, measured or estimated, Pareto set, expected cost per query, recommendation |
//! | [`walkthrough`] | the m = 16, k = 3 teaching example, shared by the `walkthrough` command and the TUI |
//! | [`diagram`] | SVG pictures of a real filter's structure (`bloomlab diagram`, the book) |
//! | [`bits`] | bit vectors and packed counters |
//! | [`fsutil`] | atomic writes into regular files only (filters, CSV, charts), temporary files removed on a signal |
//! | [`units`] | parsing and formatting counts, probabilities and sizes (`1Mb`, `1 in 1000`, `64KiB`) |
//! | [`alloc_count`] | a counting global allocator (measured heap bytes) |
//! | [`error`] | typed errors |
//! | `experiment`, `plot` | (feature `experiments`) experiment specs, runners, CSV tables; charts as SVG and PNG |
//! | `redis` | (feature `redis`) filters in Redis bitmaps and the RedisBloom module (the cache-penetration demo built on them is the binary's `bloomlab redis penetration`) |
//!
//! # Architecture
//!
//! Layers, lowest first; a module uses only modules of its own or a lower layer, and no two
//! source files import each other, directly or through others (`.ci/module-cycles.py` checks
//! the whole import graph of the library and of the binary, in CI):
//!
//! | layer | modules | may use |
//! |---|---|---|
//! | 0 | `error`, `bits`, `units`, `stats`, `alloc_count`, `fsutil` | `error` |
//! | 1 | `hash`, `theory` | layer 0 |
//! | 2 | `filter` (the trait, [`FilterKind`], capabilities), `design` | layers 0–1 |
//! | 3 | `filters/*` (one concrete type each) | layers 0–2 |
//! | 4 | `persist` (container + one codec per kind), `guava`, `spec`, `walkthrough` | layers 0–3 |
//! | 5 | `registry` ([`AnyFilter`]: build, decode, save; defines `FilterSpec::build` and `FilterSpec::plan`), `diagram` (draws the filters and the walkthrough) | layers 0–4 |
//! | 6 | `workload`, `measure` | layers 0–5 |
//! | 7 | `choose`; `experiment`, `plot` (feature `experiments`), `redis` (feature `redis`) | layers 0–6 |
//! | app | the `bloomlab` binary: `cli/*`, `tui/*` (features `cli`, `tui`) | the library |
//!
//! The library builds without its application features (`cargo build --no-default-features`):
//! then it is the filters, hashes, theory, statistics, workloads, measurement and persistence,
//! with no terminal, command-line, plotting, CSV or TOML crate.
//!
//! Inside the crate every `match` over [`FilterKind`] and over [`AnyFilter`] is exhaustive (the
//! enums are not `#[non_exhaustive]`), and every front end asks a kind's
//! [`Capabilities`](filter::Capabilities) (removable, grows, static, has a strategy, exposes
//! positions, is a bit array, sized by bits or by rate, what its width means, its arities) or
//! a spec's [`FilterSpec::plan`] (its size and model rate) instead of naming kinds.
//!
//! ## Adding a filter kind
//!
//! 1. `src/filters/NAME.rs`: the type and its [`Filter`] impl (a `pub mod` line and a re-export
//!    in `filters/mod.rs`).
//! 2. `src/theory/NAME.rs`: its model — FPR, bits/key, sizing from (n, p) — each formula cited
//!    (a `pub mod` line in `theory/mod.rs`).
//! 3. `src/filter.rs`: the [`FilterKind`] variant — its public name, a new never-reused format
//!    code, its capabilities (what its width means, its arities, how it is sized).
//! 4. `src/registry/`: the [`AnyFilter`] variant and its arms (`mod.rs`: `each!`, `build_with`
//!    or `build_from_with`, `decode`), its sizing arm in `plan.rs` ([`FilterSpec::plan`]: the
//!    layout the registry builds and its model rate, from step 2) and its rows in `details.rs`.
//! 5. `src/persist/codecs/NAME.rs`: its [`persist::Persist`] impl (a `mod` line in
//!    `codecs/mod.rs`).
//!
//! Then `cargo build --all-targets --all-features` lists every other place that must handle
//! the kind: `choose`'s cost model (a lookup's measured in-cache time and cache lines, and the
//! kind's variants) and the persistence property test's sample files. `calc`, `choose`'s
//! sizes and rates, the TUI and the experiments ask the plan and the capabilities and need
//! nothing. Checked with a scratch copy of xor (2026-12-07): 3 new files, 10 edited (the 7
//! above, `choose/model.rs`, `choose/mod.rs`, `tests/persist_props.rs`), then the tests name
//! two more: the pinned format codes (`registry/mod.rs`) and the Compare table, whose eleventh
//! row no longer fits 80×24. `FilterKind` sits in `filter.rs`, below the filters,
//! and not in `registry/`, because each filter names its own kind: one file holding both the
//! kinds and the enum over the concrete types would import the filters that import it.
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
pub mod choose;
pub mod design;
pub mod diagram;
pub mod error;
#[cfg(feature = "experiments")]
pub mod experiment;
pub mod filter;
pub mod filters;
pub mod fsutil;
pub mod guava;
pub mod hash;
pub mod measure;
pub mod persist;
#[cfg(feature = "experiments")]
pub mod plot;
pub mod reach;
#[cfg(feature = "redis")]
pub mod redis;
pub mod registry;
pub mod spec;
pub mod stats;
pub mod theory;
pub mod units;
pub mod walkthrough;
pub mod workload;

pub use error::{Error, ErrorClass, Param, Result};
pub use filter::{Filter, FilterKind, Removable};
pub use filters::StandardBloom;
pub use registry::AnyFilter;
pub use spec::FilterSpec;
