//! The spec types of the `literature` runner: published numbers (`[[points]]`) and the test
//! they are held to (`[literature]`). Running them is [`super::runners`]' `literature` module.

use super::entry::FilterEntry;
use crate::hash::StrategyId;
use serde::Deserialize;

/// What a published point states, and so what bloomlab's measurement is compared on.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Quantity {
    /// A false-positive rate (a binomial proportion: its noise enters the z-score).
    Fpr,
    /// Heap bits per inserted key (deterministic).
    BitsPerKey,
    /// A value of the filter's `details()` (`detail = "slots"`, `"rows"`, `"buckets"`).
    Detail,
    /// Bits the filter indexes.
    MBits,
    /// Hash functions (bits set per key).
    Hashes,
    /// Guava's false positives among its test's odd decimal strings (exact, from real Guava).
    GuavaFalsePositives,
    /// Guava's `create` sizing: bit size and hash functions (exact, from real Guava).
    GuavaSizing,
    /// Nothing bloomlab can build: the row says why ([`Expect::CannotConfigure`]).
    None,
}

/// The verdict a point is expected to get; a run fails when the data contradict it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Expect {
    /// bloomlab reproduces the figure.
    #[default]
    Agrees,
    /// The published figure is approximate or wrong; the row's `derive` or `note` says why, and
    /// the run checks the explanation (bloomlab's measurement against its own model).
    Differs,
    /// The figure belongs to a different design choice (the row's `derive` computes both).
    ByDesign,
    /// bloomlab has no filter of this configuration (`note` says which).
    CannotConfigure,
}

/// A computed explanation of a published figure, by library functions.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Derivation {
    /// RocksDB's 512-bit figures against the Poisson mixture with each inner formula.
    BlockedInner,
    /// The Parquet 2018 text: 11.54 bits per value under the classic k = 8 formula.
    ParquetText,
    /// The Parquet 2018 sizing formula `−8/ln(1 − p^(1/8))`, delivered rate / target.
    ParquetFormula,
    /// The counting quotient filter's bits per item from its block layout.
    CqfLayout,
}

/// A Guava point: which strategy and funnel, for the test's strings.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct GuavaPoint {
    /// `guava32` (`MURMUR128_MITZ_32`) or `guava64` (`MURMUR128_MITZ_64`).
    pub strategy: StrategyId,
    /// `unencoded_chars` (UTF-16LE) or `utf8`.
    #[serde(default = "default_funnel")]
    pub funnel: String,
    /// Expected insertions given to `create`.
    pub n: u64,
    /// fpp given to `create`.
    pub p: f64,
}

fn default_funnel() -> String {
    "unencoded_chars".into()
}

/// One `[[points]]` entry: a number a paper or an implementation published, and how bloomlab
/// is set up to reproduce it.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PublishedPoint {
    /// Row id (the notes' numbering: `13`, `26b`).
    pub id: String,
    /// The kind it belongs to (the table's grouping: `standard`, `guava`, `blocked`, …).
    pub kind: String,
    /// Where it was published: repository + path + commit, or paper + table.
    pub source: String,
    /// The configuration, in words.
    pub config: String,
    /// What is compared.
    pub quantity: Quantity,
    /// The published figure as printed (`"2.1519%"`, `"12.60"`, `"7,298,496"`); its number is
    /// parsed from this text and its last digit gives the rounding allowance (half a unit).
    /// Guava rows without a printed figure take it from the vectors (`"vector"`).
    pub published: String,
    /// The bloomlab filter (fields as in `[[filters]]`; `n` is the design capacity).
    #[serde(default)]
    pub filter: Option<FilterEntry>,
    /// Keys inserted (default: the filter's n), e.g. a cuckoo table built for a larger capacity.
    #[serde(default)]
    pub inserted: Option<u64>,
    /// Absent keys queried (default: the spec's `queries`; `--quick` caps it at the quick value).
    #[serde(default)]
    pub queries: Option<u64>,
    /// Independently seeded filters (default 1): small filters, whose own rate varies with the
    /// bits they happen to set, need several.
    #[serde(default)]
    pub trials: Option<u32>,
    /// Sizes are the source's exactly and not shrunk by `--quick` (sizing rows, small filters).
    #[serde(default)]
    pub fixed_size: bool,
    /// The figure is a target, exact as printed (`"1%"` means 1%): no rounding slack.
    #[serde(default)]
    pub target: bool,
    /// Split-block rows: the source gives the bits per key rounded to this (Parquet's table: 0.1);
    /// the rate may then differ by half the split-block model's change over ±half of it.
    #[serde(default)]
    pub bits_resolution: Option<f64>,
    /// Absent queries behind the published rate, when the source states them.
    #[serde(default)]
    pub sample: Option<u64>,
    /// `details()` key read by a `detail` quantity.
    #[serde(default)]
    pub detail: Option<String>,
    /// Allowed relative difference of a deterministic quantity beyond the published rounding,
    /// with `tolerance_why`.
    #[serde(default)]
    pub tolerance: Option<f64>,
    /// Why `tolerance` is allowed.
    #[serde(default)]
    pub tolerance_why: Option<String>,
    /// The expected verdict.
    #[serde(default)]
    pub expect: Expect,
    /// A computed explanation.
    #[serde(default)]
    pub derive: Option<Derivation>,
    /// Words for the row's explanation (differs, by design, cannot be configured).
    #[serde(default)]
    pub note: Option<String>,
    /// Guava points: strategy, funnel, n and p.
    #[serde(default)]
    pub guava: Option<GuavaPoint>,
}

/// `[literature]`: the test every point is held to.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct LiteratureParams {
    /// A statistical comparison agrees when `|z| ≤ z_max` (also the CI gate).
    pub z_max: f64,
    /// The Guava vectors written by real Guava (`tests/guava/GenVectors.java`), relative to
    /// the spec file's directory.
    pub guava_vectors: String,
}
