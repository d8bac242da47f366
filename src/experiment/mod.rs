//! Experiments: one TOML file per question (`experiments/*.toml`), run into a CSV table and a
//! chart (SVG + PNG).
//!
//! A spec names the question, the filters (crossed with lists of hashes, strategies and key
//! kinds), the variable swept and its values, trials, queries, the seed, and how to plot the
//! table. `runner` picks the Rust code that interprets it:
//!
//! | runner | what one point is | sweep variables |
//! |---|---|---|
//! | `sweep` | [`crate::measure::measure`] on fresh filters (as `bloomlab measure`) | `n`, `m`, `k`, `bits-per-key`, `p`, `fill`, `inserted` |
//! | `fill` | one filter per trial filled step by step, queried at each checkpoint | `fill`, `inserted`, `load` |
//! | `memory` | heap bytes (counting allocator) of a filter or a `HashSet` holding n keys | `n` |
//! | `hash-quality` | FPR and χ² uniformity of bit positions, per hash × strategy × keys | — |
//! | `remove-fp` | false negatives after removing r false positives | `removals` |
//! | `scenarios` | each `[[scenarios]]` (n, p, keys) × each filter, measured | — |
//!
//! Errors in a spec name the file, the line and the field (`experiments/x.toml:12: sweep.var:
//! unknown variant ...`). The format is documented, with an annotated example, in
//! `experiments/README.md`.

mod chart;
pub mod curves;
pub mod runner;
pub mod table;

pub use table::{Cell, Table};

use crate::error::{Error, Result};
use crate::filter::FilterKind;
use crate::hash::{HashId, StrategyId};
use crate::plot::{Format, Legend, Scale};
use crate::spec::FilterSpec;
use crate::workload::KeyKind;
use serde::Deserialize;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use toml::Spanned;

/// Which runner interprets a spec.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum RunnerKind {
    /// Fresh filters per point, measured with [`crate::measure::measure`].
    #[default]
    Sweep,
    /// One filter per trial, filled incrementally and queried at checkpoints.
    Fill,
    /// Heap bytes vs n, filters against `HashSet` baselines.
    Memory,
    /// FPR and position uniformity for each hash × strategy × key kind.
    HashQuality,
    /// Removing false positives from a removable filter.
    RemoveFp,
    /// The articles' scenarios, each × each filter.
    Scenarios,
}

impl RunnerKind {
    /// The name used in specs.
    #[must_use]
    pub fn name(self) -> &'static str {
        match self {
            RunnerKind::Sweep => "sweep",
            RunnerKind::Fill => "fill",
            RunnerKind::Memory => "memory",
            RunnerKind::HashQuality => "hash-quality",
            RunnerKind::RemoveFp => "remove-fp",
            RunnerKind::Scenarios => "scenarios",
        }
    }

    /// The sweep variables this runner understands (empty: it takes no sweep).
    #[must_use]
    pub fn vars(self) -> &'static [SweepVar] {
        use SweepVar as V;
        match self {
            RunnerKind::Sweep => &[V::N, V::M, V::K, V::BitsPerKey, V::P, V::Fill, V::Inserted],
            RunnerKind::Fill => &[V::Fill, V::Inserted, V::Load],
            RunnerKind::Memory => &[V::N],
            RunnerKind::RemoveFp => &[V::Removals],
            RunnerKind::HashQuality | RunnerKind::Scenarios => &[],
        }
    }
}

/// The variable a sweep varies.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum SweepVar {
    /// Design capacity n (and items inserted).
    N,
    /// Bits m (with `bits_per_key` on a filter, n follows as m / bits_per_key).
    M,
    /// Hash functions k.
    K,
    /// m/n.
    BitsPerKey,
    /// Target false-positive rate.
    P,
    /// Items inserted as a fraction of the design capacity n.
    Fill,
    /// Items inserted (absolute).
    Inserted,
    /// Items inserted as a fraction of the slots (cuckoo: buckets × 4).
    Load,
    /// False positives removed.
    Removals,
}

impl SweepVar {
    /// The name used in specs and in the CSV's `var` column.
    #[must_use]
    pub fn name(self) -> &'static str {
        match self {
            SweepVar::N => "n",
            SweepVar::M => "m",
            SweepVar::K => "k",
            SweepVar::BitsPerKey => "bits-per-key",
            SweepVar::P => "p",
            SweepVar::Fill => "fill",
            SweepVar::Inserted => "inserted",
            SweepVar::Load => "load",
            SweepVar::Removals => "removals",
        }
    }

    /// Whether values are whole numbers (rounded and de-duplicated).
    #[must_use]
    pub fn is_integer(self) -> bool {
        matches!(
            self,
            SweepVar::N | SweepVar::M | SweepVar::K | SweepVar::Inserted | SweepVar::Removals
        )
    }

    /// Whether the values scale with the size of the experiment (shrunk by `quick.n_scale`).
    fn is_size(self) -> bool {
        matches!(self, SweepVar::N | SweepVar::Inserted)
    }
}

/// Values from `from` to `to`, evenly spaced on a linear or log scale.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Range {
    /// First value.
    pub from: f64,
    /// Last value.
    pub to: f64,
    /// Number of values (≥ 1).
    pub points: u32,
    /// `linear` (default) or `log`.
    #[serde(default)]
    pub scale: Scale,
}

impl Range {
    /// The values.
    #[must_use]
    pub fn values(&self) -> Vec<f64> {
        let n = self.points.max(1);
        if n == 1 {
            return vec![self.from];
        }
        (0..n)
            .map(|i| {
                let t = f64::from(i) / f64::from(n - 1);
                let v = match self.scale {
                    Scale::Linear => self.from + (self.to - self.from) * t,
                    Scale::Log => (self.from.ln() + (self.to.ln() - self.from.ln()) * t).exp(),
                };
                round_sig(v, 12)
            })
            .collect()
    }
}

/// `v` rounded to `digits` significant digits (so 0.1·8 reads 0.8, not 0.7999999999999999).
fn round_sig(v: f64, digits: i32) -> f64 {
    if v == 0.0 || !v.is_finite() {
        return v;
    }
    let scale = 10f64.powi(digits - 1 - v.abs().log10().floor() as i32);
    (v * scale).round() / scale
}

/// What is swept: a variable and its values (a list or a range).
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Sweep {
    /// The variable.
    pub var: SweepVar,
    /// Explicit values.
    #[serde(default)]
    pub values: Option<Vec<f64>>,
    /// Or a range.
    #[serde(default)]
    pub range: Option<Range>,
}

impl Sweep {
    /// The values, rounded and de-duplicated for integer variables, in the order given.
    #[must_use]
    pub fn values(&self) -> Vec<f64> {
        let raw = match (&self.values, &self.range) {
            (Some(v), _) => v.clone(),
            (None, Some(r)) => r.values(),
            (None, None) => Vec::new(),
        };
        if !self.var.is_integer() {
            return raw;
        }
        let mut out: Vec<f64> = Vec::with_capacity(raw.len());
        for v in raw {
            let r = v.round();
            if !out.contains(&r) {
                out.push(r);
            }
        }
        out
    }
}

/// One `[[filters]]` entry: a filter description; unset fields take [`FilterSpec`]'s defaults.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct FilterEntry {
    /// Legend label (default: built from what differs between series).
    #[serde(default)]
    pub label: Option<String>,
    /// Filter kind.
    pub kind: FilterKind,
    /// Hash (default: the spec's `hashes`, else xxh3).
    #[serde(default)]
    pub hash: Option<HashId>,
    /// Strategy (default: the spec's `strategies`, else enhanced-double).
    #[serde(default)]
    pub strategy: Option<StrategyId>,
    /// Hash seed.
    #[serde(default)]
    pub seed: Option<u64>,
    /// Design capacity.
    #[serde(default)]
    pub n: Option<u64>,
    /// Target false-positive rate.
    #[serde(default)]
    pub p: Option<f64>,
    /// Bits (counters for `counting`).
    #[serde(default)]
    pub m: Option<u64>,
    /// Hash functions.
    #[serde(default)]
    pub k: Option<u32>,
    /// m = bits_per_key × n (instead of p or m).
    #[serde(default)]
    pub bits_per_key: Option<f64>,
    /// Cuckoo fingerprint bits.
    #[serde(default)]
    pub fingerprint_bits: Option<u32>,
    /// Scalable growth factor s.
    #[serde(default)]
    pub growth: Option<f64>,
    /// Scalable tightening ratio r.
    #[serde(default)]
    pub tightening: Option<f64>,
    /// Scalable: refuse to grow.
    #[serde(default)]
    pub nonscaling: Option<bool>,
}

/// Reference structures for the memory runner.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Baseline {
    /// `std::collections::HashSet<u64>`.
    HashsetU64,
    /// `std::collections::HashSet<String>` of the spec's string keys (each String's heap counts).
    HashsetString,
}

impl Baseline {
    /// Legend name.
    #[must_use]
    pub fn label(self) -> &'static str {
        match self {
            Baseline::HashsetU64 => "HashSet<u64>",
            Baseline::HashsetString => "HashSet<String>",
        }
    }
}

/// Extra theory columns (beside `classic`, `exact` and `model`, which runners add anyway).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum TheoryName {
    /// Expected number of counters ≥ 15: `m·Pr[Binomial(kn, 1/m) ≥ 15]`.
    #[serde(rename = "counters-at-least-15")]
    CountersAtLeast15,
    /// Fan et al.'s bound on it, `m·(e·kn/(15·m))^15`.
    #[serde(rename = "fan-bound-15")]
    FanBound15,
    /// Classic formula with m replaced by the part of the array a strategy can reach
    /// (Guava's 32-bit scheme: min(m, 2³¹)).
    ClassicReachable,
    /// Expected false negatives after removing r false positives.
    FalseNegativesAfterRemovals,
}

impl TheoryName {
    /// Column name in the table.
    #[must_use]
    pub fn column(self) -> &'static str {
        match self {
            TheoryName::CountersAtLeast15 => "theory_counters_ge15",
            TheoryName::FanBound15 => "theory_fan_bound_ge15",
            TheoryName::ClassicReachable => "theory_classic_reachable",
            TheoryName::FalseNegativesAfterRemovals => "theory_false_negatives",
        }
    }
}

/// One of the articles' scenarios.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Scenario {
    /// Name (table row and x-axis category).
    pub name: String,
    /// Items.
    pub n: u64,
    /// Target false-positive rate.
    pub p: f64,
    /// Key kind.
    #[serde(default = "default_keys")]
    pub keys: KeyKind,
    /// What a false positive costs (text for the table).
    #[serde(default)]
    pub cost: String,
}

fn default_keys() -> KeyKind {
    KeyKind::U64
}

/// Reference curves drawn from formulas over a range (rows with `row_type = theory`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum CurveName {
    /// Bits per key a Bloom filter needs for rate ε at the optimal k: `log2(1/ε)/ln 2`.
    BloomBitsPerKey,
    /// Cuckoo filter bits per item: `(log2(1/ε) + log2(2b))/α`.
    CuckooBitsPerKey,
    /// The same with semi-sorted buckets (one bit less per item).
    CuckooSemisortBitsPerKey,
    /// The information-theoretic lower bound `log2(1/ε)`.
    LowerBoundBitsPerKey,
}

/// A `[[curves]]` entry.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CurveSpec {
    /// Which formula.
    pub curve: CurveName,
    /// Legend label.
    pub label: String,
    /// x values (ε).
    pub range: Range,
    /// Column the x values go to.
    #[serde(default = "default_curve_x")]
    pub x: String,
    /// Column the y values go to.
    #[serde(default = "default_curve_y")]
    pub y: String,
    /// Load factor α (cuckoo curves).
    #[serde(default = "default_alpha")]
    pub alpha: f64,
    /// Slots per bucket b (cuckoo curves).
    #[serde(default = "default_b")]
    pub b: u32,
}

fn default_curve_x() -> String {
    "fpr".into()
}
fn default_curve_y() -> String {
    "bits_per_key".into()
}
fn default_alpha() -> f64 {
    0.955
}
fn default_b() -> u32 {
    4
}

/// Runner-specific parameters.
#[derive(Debug, Clone, PartialEq, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Params {
    /// hash-quality: bins of the position histogram (default 64).
    #[serde(default)]
    pub bins: Option<u32>,
    /// hash-quality: positions of at most this many inserted keys go into the histogram
    /// (default: all).
    #[serde(default)]
    pub position_sample: Option<u64>,
    /// memory: largest n for which `HashSet<String>` is built (beyond it: extrapolated).
    #[serde(default)]
    pub string_cap: Option<u64>,
    /// memory: extra n values at which the `HashSet<String>` model is extrapolated.
    #[serde(default)]
    pub extrapolate_to: Option<Vec<f64>>,
    /// remove-fp: absent keys scanned at most to find false positives (default 10⁷).
    #[serde(default)]
    pub fp_search_limit: Option<u64>,
}

impl Params {
    fn overlay(&mut self, o: &Params) {
        if o.bins.is_some() {
            self.bins = o.bins;
        }
        if o.position_sample.is_some() {
            self.position_sample = o.position_sample;
        }
        if o.string_cap.is_some() {
            self.string_cap = o.string_cap;
        }
        if o.extrapolate_to.is_some() {
            self.extrapolate_to.clone_from(&o.extrapolate_to);
        }
        if o.fp_search_limit.is_some() {
            self.fp_search_limit = o.fp_search_limit;
        }
    }
}

/// What `--quick` changes (for CI: fewer points, trials, queries, smaller sizes).
#[derive(Debug, Clone, PartialEq, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Quick {
    /// Trials.
    #[serde(default)]
    pub trials: Option<u32>,
    /// Queries.
    #[serde(default)]
    pub queries: Option<u64>,
    /// A replacement sweep.
    #[serde(default)]
    pub sweep: Option<Sweep>,
    /// Multiply every filter's and scenario's n (and n/inserted sweep values, unless `sweep` is
    /// replaced) by this factor.
    #[serde(default)]
    pub n_scale: Option<f64>,
    /// Skip the experiment in quick mode, for this reason.
    #[serde(default)]
    pub skip: Option<String>,
    /// Parameter overrides.
    #[serde(default)]
    pub params: Option<Params>,
}

/// A line drawn from a column of the measured rows.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct LineSpec {
    /// Column (or `a/b`); give this or `value`.
    #[serde(default)]
    pub column: Option<String>,
    /// A constant (a horizontal reference line across the panel's x range).
    #[serde(default)]
    pub value: Option<f64>,
    /// Legend label.
    pub label: String,
    /// `dashed` (default), `line` or `points`.
    #[serde(default)]
    pub style: LineStyle,
}

/// How a [`LineSpec`] is drawn.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum LineStyle {
    /// Dashed line.
    #[default]
    Dashed,
    /// Solid line.
    Line,
    /// Markers.
    Points,
}

/// One panel of the chart.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PanelSpec {
    /// Caption.
    #[serde(default)]
    pub title: String,
    /// x column (default `x`); a text column gives a categorical axis.
    #[serde(default = "default_x")]
    pub x: String,
    /// y column, or `a/b` for a ratio of two columns.
    pub y: String,
    /// x axis label, with units.
    pub x_label: String,
    /// y axis label, with units.
    pub y_label: String,
    /// x scale.
    #[serde(default)]
    pub x_scale: Scale,
    /// y scale.
    #[serde(default)]
    pub y_scale: Scale,
    /// x tick format.
    #[serde(default)]
    pub x_format: Format,
    /// y tick format.
    #[serde(default)]
    pub y_format: Format,
    /// x range.
    #[serde(default)]
    pub x_range: Option<[f64; 2]>,
    /// y range.
    #[serde(default)]
    pub y_range: Option<[f64; 2]>,
    /// Column that names the series (default `series`).
    #[serde(default = "default_series")]
    pub series: String,
    /// Only rows whose columns have these (text) values.
    #[serde(default)]
    pub filter: BTreeMap<String, String>,
    /// Lines from other columns of the measured rows (theory).
    #[serde(default)]
    pub lines: Vec<LineSpec>,
    /// Draw `{y}_lo`..`{y}_hi` as error bars when present (default true).
    #[serde(default = "default_true")]
    pub error_bars: bool,
    /// Join measured points with a thin line.
    #[serde(default)]
    pub connect: bool,
    /// Legend position.
    #[serde(default)]
    pub legend: Legend,
}

fn default_x() -> String {
    "x".into()
}
fn default_series() -> String {
    "series".into()
}
fn default_true() -> bool {
    true
}

/// The chart.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PlotSpec {
    /// Title over the figure (default: the question).
    #[serde(default)]
    pub title: Option<String>,
    /// Panels per row (default 2, or 1 for a single panel).
    #[serde(default)]
    pub columns: Option<usize>,
    /// Pixel width of one panel (default 1000).
    #[serde(default)]
    pub width: Option<u32>,
    /// Pixel height of one panel (default 640).
    #[serde(default)]
    pub height: Option<u32>,
    /// Panels.
    pub panels: Vec<Spanned<PanelSpec>>,
}

fn one_or_many<'de, D, T>(d: D) -> std::result::Result<Vec<T>, D::Error>
where
    D: serde::Deserializer<'de>,
    T: Deserialize<'de>,
{
    struct V<T>(std::marker::PhantomData<T>);
    impl<'de, T: Deserialize<'de>> serde::de::Visitor<'de> for V<T> {
        type Value = Vec<T>;
        fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
            f.write_str("a name or a list of names")
        }
        fn visit_str<E: serde::de::Error>(self, s: &str) -> std::result::Result<Vec<T>, E> {
            use serde::de::IntoDeserializer;
            T::deserialize(s.into_deserializer()).map(|v| vec![v])
        }
        fn visit_seq<A: serde::de::SeqAccess<'de>>(
            self,
            mut seq: A,
        ) -> std::result::Result<Vec<T>, A::Error> {
            let mut v = Vec::new();
            while let Some(x) = seq.next_element()? {
                v.push(x);
            }
            Ok(v)
        }
    }
    d.deserialize_any(V(std::marker::PhantomData))
}

fn default_key_list() -> Vec<KeyKind> {
    vec![KeyKind::U64]
}
fn default_trials() -> u32 {
    1
}
fn default_queries() -> u64 {
    100_000
}
fn default_seed() -> u64 {
    1
}

/// A whole spec file.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ExperimentSpec {
    /// Short name: the output files are `<name>.csv`, `.svg`, `.png`.
    pub name: String,
    /// The question the experiment answers.
    pub question: String,
    /// Which runner.
    #[serde(default)]
    pub runner: RunnerKind,
    /// Key kind(s): one name or a list (crossed with the filters).
    #[serde(default = "default_key_list", deserialize_with = "one_or_many")]
    pub keys: Vec<KeyKind>,
    /// Hashes crossed with filters that do not name one.
    #[serde(default)]
    pub hashes: Vec<HashId>,
    /// Strategies crossed with filters that do not name one.
    #[serde(default)]
    pub strategies: Vec<StrategyId>,
    /// The filters.
    #[serde(default)]
    pub filters: Vec<Spanned<FilterEntry>>,
    /// Memory runner: reference structures.
    #[serde(default)]
    pub baselines: Vec<Baseline>,
    /// What is swept.
    #[serde(default)]
    pub sweep: Option<Spanned<Sweep>>,
    /// Independently seeded repetitions per point.
    #[serde(default = "default_trials")]
    pub trials: u32,
    /// Absent keys queried per trial.
    #[serde(default = "default_queries")]
    pub queries: u64,
    /// Master seed.
    #[serde(default = "default_seed")]
    pub seed: u64,
    /// Extra theory columns.
    #[serde(default)]
    pub theory: Vec<TheoryName>,
    /// Keys of [`crate::Filter::details`] to record as columns (fill runner).
    #[serde(default)]
    pub details: Vec<String>,
    /// Runner parameters.
    #[serde(default)]
    pub params: Params,
    /// Scenarios (scenarios runner).
    #[serde(default)]
    pub scenarios: Vec<Spanned<Scenario>>,
    /// Reference curves.
    #[serde(default)]
    pub curves: Vec<CurveSpec>,
    /// `--quick` overrides.
    #[serde(default)]
    pub quick: Option<Quick>,
    /// The chart.
    pub plot: PlotSpec,
}

/// One series: a filter spec with its key kind and label.
#[derive(Debug, Clone, PartialEq)]
pub struct SeriesDef {
    /// Legend label.
    pub label: String,
    /// Index of the `[[filters]]` entry.
    pub entry: usize,
    /// The filter (n, m, p as given; sweeps override).
    pub spec: FilterSpec,
    /// Keys.
    pub keys: KeyKind,
    /// `bits_per_key` of the entry.
    pub bits_per_key: Option<f64>,
}

/// A loaded, validated experiment.
#[derive(Debug, Clone, PartialEq)]
pub struct Experiment {
    /// The file it came from (as given).
    pub file: String,
    /// The spec.
    pub spec: ExperimentSpec,
    /// Whether `--quick` overrides were applied.
    pub quick: bool,
    src: String,
}

/// 1-based line of byte offset `at`.
fn line_of(src: &str, at: usize) -> usize {
    src[..at.min(src.len())].matches('\n').count() + 1
}

/// The table path a line belongs to (`sweep`, `filters[2]`, `quick.params`; empty at top level).
fn table_at(src: &str, line: usize) -> String {
    let mut current = String::new();
    let mut counts: BTreeMap<String, usize> = BTreeMap::new();
    for (i, l) in src.lines().enumerate() {
        if i + 1 > line {
            break;
        }
        let t = l.trim();
        if let Some(inner) = t.strip_prefix("[[").and_then(|r| r.split("]]").next()) {
            let name = inner.trim().to_string();
            let c = counts.entry(name.clone()).or_insert(0);
            current = format!("{name}[{c}]");
            *c += 1;
        } else if let Some(inner) = t.strip_prefix('[').and_then(|r| r.split(']').next()) {
            current = inner.trim().to_string();
        }
    }
    current
}

/// The key defined on a line (`key = …`), if any.
fn key_on_line(src: &str, line: usize) -> Option<String> {
    let l = src.lines().nth(line.checked_sub(1)?)?;
    let (k, _) = l.split_once('=')?;
    let k = k.trim().trim_matches('"');
    (!k.is_empty() && k.chars().all(|c| c.is_alphanumeric() || "_-.".contains(c)))
        .then(|| k.to_string())
}

fn join_field(table: &str, key: Option<&str>) -> String {
    match (table.is_empty(), key) {
        (true, Some(k)) => k.to_string(),
        (false, Some(k)) => format!("{table}.{k}"),
        (true, None) => "(top level)".to_string(),
        (false, None) => table.to_string(),
    }
}

/// Line of `key` inside table `table` (dotted path, `""` = top level), if present.
fn find_key_line(src: &str, table: &str, key: &str) -> Option<usize> {
    let mut current = String::new();
    let mut counts: BTreeMap<String, usize> = BTreeMap::new();
    for (i, l) in src.lines().enumerate() {
        let t = l.trim();
        if let Some(inner) = t.strip_prefix("[[").and_then(|r| r.split("]]").next()) {
            let name = inner.trim().to_string();
            let c = counts.entry(name.clone()).or_insert(0);
            current = format!("{name}[{c}]");
            *c += 1;
            continue;
        }
        if let Some(inner) = t.strip_prefix('[').and_then(|r| r.split(']').next()) {
            current = inner.trim().to_string();
            continue;
        }
        if current == table
            && let Some((k, _)) = t.split_once('=')
            && k.trim().trim_matches('"') == key
        {
            return Some(i + 1);
        }
    }
    None
}

impl Experiment {
    /// Read and validate a spec file.
    ///
    /// # Errors
    /// [`Error::Io`] if it cannot be read; [`Error::Spec`] naming line and field otherwise.
    pub fn load(path: &Path) -> Result<Self> {
        let src = std::fs::read_to_string(path).map_err(|e| Error::Io {
            path: path.display().to_string(),
            message: e.to_string(),
        })?;
        Self::parse(&path.display().to_string(), &src)
    }

    /// Parse and validate spec text; `file` is used in error messages.
    ///
    /// ```
    /// use bloomlab::experiment::Experiment;
    /// let err = Experiment::parse("x.toml", "name = \"x\"\nquestion = \"?\"\ntrials = \"many\"\n")
    ///     .unwrap_err()
    ///     .to_string();
    /// assert!(err.starts_with("x.toml:3: trials:"), "{err}");
    /// ```
    ///
    /// # Errors
    /// [`Error::Spec`] naming line and field.
    pub fn parse(file: &str, src: &str) -> Result<Self> {
        let spec: ExperimentSpec = toml::from_str(src).map_err(|e| {
            let (line, field) = match e.span() {
                Some(s) if !(s.start == 0 && s.end >= src.len()) => {
                    let line = line_of(src, s.start);
                    let table = table_at(src, line);
                    let key = key_on_line(src, line);
                    // A span that starts at a table header means "something about this table".
                    let header = src
                        .lines()
                        .nth(line - 1)
                        .is_some_and(|l| l.trim_start().starts_with('['));
                    let field = if header {
                        join_field(&table, None)
                    } else {
                        join_field(&table, key.as_deref())
                    };
                    (line, field)
                }
                _ => (1, "(top level)".to_string()),
            };
            Error::Spec {
                file: file.to_string(),
                line,
                field,
                message: e.message().trim().to_string(),
            }
        })?;
        let exp = Self {
            file: file.to_string(),
            spec,
            quick: false,
            src: src.to_string(),
        };
        exp.validate()?;
        Ok(exp)
    }

    /// An error located at `line`.
    pub(crate) fn err_line(&self, line: usize, field: &str, message: impl Into<String>) -> Error {
        Error::Spec {
            file: self.file.clone(),
            line,
            field: field.to_string(),
            message: message.into(),
        }
    }

    /// An error about `key` in `table` (line found in the source; 1 if absent).
    pub(crate) fn err_key(&self, table: &str, key: &str, message: impl Into<String>) -> Error {
        let line = find_key_line(&self.src, table, key)
            .or_else(|| {
                // A key overridden in [quick] is reported there when it came from there.
                self.quick
                    .then(|| find_key_line(&self.src, &format!("quick.{table}"), key))
                    .flatten()
            })
            .unwrap_or(1);
        self.err_line(line, &join_field(table, Some(key)), message)
    }

    fn span_line<T>(&self, s: &Spanned<T>) -> usize {
        line_of(&self.src, s.span().start)
    }

    fn validate(&self) -> Result<()> {
        let s = &self.spec;
        if s.name.is_empty()
            || !s
                .name
                .chars()
                .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '-')
        {
            return Err(self.err_key(
                "",
                "name",
                "use lowercase letters, digits and '-' (it names the output files)",
            ));
        }
        if s.trials == 0 || s.trials > 10_000_000 {
            return Err(self.err_key("", "trials", "an integer from 1 to 10000000"));
        }
        if s.queries == 0 && s.runner != RunnerKind::Memory {
            return Err(self.err_key("", "queries", "an integer >= 1"));
        }
        if s.keys.is_empty() {
            return Err(self.err_key("", "keys", "at least one key kind"));
        }
        if let Some(q) = &s.quick {
            if q.trials == Some(0) {
                return Err(self.err_key("quick", "trials", "an integer >= 1"));
            }
            if q.queries == Some(0) {
                return Err(self.err_key("quick", "queries", "an integer >= 1"));
            }
            if let Some(f) = q.n_scale
                && !(f > 0.0 && f <= 1.0)
            {
                return Err(self.err_key("quick", "n_scale", "a factor in (0, 1]"));
            }
            if let Some(sw) = &q.sweep {
                self.check_sweep(sw, "quick.sweep")?;
            }
        }
        let vars = s.runner.vars();
        match (&s.sweep, vars.is_empty()) {
            (Some(sw), true) => {
                return Err(self.err_line(
                    self.span_line(sw),
                    "sweep",
                    format!("the {} runner takes no sweep", s.runner.name()),
                ));
            }
            (None, false) => {
                return Err(self.err_key(
                    "",
                    "runner",
                    format!(
                        "the {} runner needs a [sweep] over one of: {}",
                        s.runner.name(),
                        vars.iter().map(|v| v.name()).collect::<Vec<_>>().join(", ")
                    ),
                ));
            }
            (Some(sw), false) => self.check_sweep(sw.get_ref(), "sweep")?,
            (None, true) => {}
        }
        let baselines_only = s.runner == RunnerKind::Memory && !s.baselines.is_empty();
        if s.filters.is_empty() && !baselines_only {
            return Err(self.err_line(1, "filters", "give at least one [[filters]] entry"));
        }
        if !s.baselines.is_empty() && s.runner != RunnerKind::Memory {
            return Err(self.err_key("", "baselines", "only the memory runner uses baselines"));
        }
        if s.runner == RunnerKind::Scenarios && s.scenarios.is_empty() {
            return Err(self.err_line(1, "scenarios", "give at least one [[scenarios]] entry"));
        }
        for (i, f) in s.filters.iter().enumerate() {
            self.check_entry(i, f)?;
        }
        for (i, sc) in s.scenarios.iter().enumerate() {
            let v = sc.get_ref();
            if v.n == 0 || !(v.p > 0.0 && v.p < 1.0) {
                return Err(self.err_line(
                    self.span_line(sc),
                    &format!("scenarios[{i}]"),
                    "n must be >= 1 and p strictly between 0 and 1",
                ));
            }
        }
        for t in &s.theory {
            let ok = match t {
                TheoryName::CountersAtLeast15 | TheoryName::FanBound15 => {
                    s.runner == RunnerKind::Fill
                }
                TheoryName::ClassicReachable => {
                    matches!(s.runner, RunnerKind::HashQuality | RunnerKind::Fill)
                }
                TheoryName::FalseNegativesAfterRemovals => s.runner == RunnerKind::RemoveFp,
            };
            if !ok {
                return Err(self.err_key(
                    "",
                    "theory",
                    format!(
                        "'{}' is not computed by the {} runner",
                        t.column(),
                        s.runner.name()
                    ),
                ));
            }
        }
        if !s.details.is_empty() && s.runner != RunnerKind::Fill {
            return Err(self.err_key("", "details", "only the fill runner records details"));
        }
        for (i, c) in s.curves.iter().enumerate() {
            if !(c.range.from > 0.0 && c.range.to < 1.0 && c.range.from < c.range.to) {
                return Err(self.err_line(
                    find_key_line(&self.src, &format!("curves[{i}]"), "range").unwrap_or(1),
                    &format!("curves[{i}].range"),
                    "ε from/to strictly between 0 and 1, from < to",
                ));
            }
        }
        if s.plot.panels.is_empty() {
            return Err(self.err_key("plot", "panels", "at least one [[plot.panels]]"));
        }
        Ok(())
    }

    fn check_sweep(&self, sw: &Sweep, table: &str) -> Result<()> {
        let runner = self.spec.runner;
        if !runner.vars().contains(&sw.var) {
            return Err(self.err_key(
                table,
                "var",
                format!(
                    "the {} runner sweeps one of: {}",
                    runner.name(),
                    runner
                        .vars()
                        .iter()
                        .map(|v| v.name())
                        .collect::<Vec<_>>()
                        .join(", ")
                ),
            ));
        }
        match (&sw.values, &sw.range) {
            (Some(_), Some(_)) | (None, None) => {
                return Err(self.err_key(
                    table,
                    "var",
                    "give exactly one of `values = [...]` or `range = { from, to, points, scale }`",
                ));
            }
            (Some(v), None) if v.is_empty() => {
                return Err(self.err_key(table, "values", "at least one value"));
            }
            (None, Some(r)) => {
                let bad = r.points == 0
                    || !r.from.is_finite()
                    || !r.to.is_finite()
                    || (r.scale == Scale::Log && (r.from <= 0.0 || r.to <= 0.0));
                if bad {
                    return Err(self.err_key(
                        table,
                        "range",
                        "finite from/to (positive for a log scale) and points >= 1",
                    ));
                }
            }
            _ => {}
        }
        for v in sw.values() {
            let ok = match sw.var {
                SweepVar::P => v > 0.0 && v < 1.0,
                SweepVar::K => (1.0..=f64::from(crate::theory::MAX_K)).contains(&v),
                SweepVar::Removals => v >= 0.0,
                _ => v > 0.0 && v.is_finite(),
            };
            if !ok {
                let key = if sw.values.is_some() {
                    "values"
                } else {
                    "range"
                };
                return Err(self.err_key(
                    table,
                    key,
                    format!("{v} is not a valid value of {}", sw.var.name()),
                ));
            }
        }
        Ok(())
    }

    fn check_entry(&self, i: usize, f: &Spanned<FilterEntry>) -> Result<()> {
        let e = f.get_ref();
        let line = self.span_line(f);
        let field = |k: &str| format!("filters[{i}].{k}");
        let table = format!("filters[{i}]");
        let at = |k: &str| find_key_line(&self.src, &table, k).unwrap_or(line);
        let var = self.spec.sweep.as_ref().map(|s| s.get_ref().var);
        if let Some(p) = e.p
            && !(p > 0.0 && p < 1.0)
        {
            return Err(self.err_line(at("p"), &field("p"), "strictly between 0 and 1"));
        }
        if let Some(b) = e.bits_per_key
            && !(b > 0.0 && b.is_finite())
        {
            return Err(self.err_line(at("bits_per_key"), &field("bits_per_key"), "> 0"));
        }
        if e.n == Some(0) {
            return Err(self.err_line(at("n"), &field("n"), "an integer >= 1"));
        }
        let n_from_sweep = matches!(var, Some(SweepVar::N))
            || (matches!(var, Some(SweepVar::M)) && e.bits_per_key.is_some())
            || self.spec.runner == RunnerKind::Scenarios;
        if e.n.is_none() && !n_from_sweep {
            return Err(self.err_line(line, &table, "give n (the design capacity)"));
        }
        let sized = e.p.is_some()
            || e.m.is_some()
            || e.bits_per_key.is_some()
            || matches!(var, Some(SweepVar::P | SweepVar::M | SweepVar::BitsPerKey))
            || self.spec.runner == RunnerKind::Scenarios
            || (e.kind == FilterKind::Cuckoo && e.fingerprint_bits.is_some());
        if !sized {
            return Err(self.err_line(line, &table, "give p, m or bits_per_key"));
        }
        if e.m.is_some() && e.bits_per_key.is_some() {
            return Err(self.err_line(
                at("bits_per_key"),
                &field("bits_per_key"),
                "give m or bits_per_key, not both",
            ));
        }
        Ok(())
    }

    /// The experiment with its `[quick]` overrides applied (itself when there are none).
    #[must_use]
    pub fn quick(&self) -> Self {
        let mut e = self.clone();
        e.quick = true;
        let Some(q) = self.spec.quick.clone() else {
            return e;
        };
        let s = &mut e.spec;
        if let Some(t) = q.trials {
            s.trials = t;
        }
        if let Some(qn) = q.queries {
            s.queries = qn;
        }
        if let Some(p) = &q.params {
            s.params.overlay(p);
        }
        let scale = q.n_scale.unwrap_or(1.0);
        let shrink = |n: u64| ((n as f64 * scale).round() as u64).max(1);
        if scale != 1.0 {
            for f in &mut s.filters {
                let v = f.get_mut();
                v.n = v.n.map(shrink);
                v.m = v.m.map(shrink);
            }
            for sc in &mut s.scenarios {
                let v = sc.get_mut();
                v.n = shrink(v.n);
            }
        }
        match (q.sweep, &mut s.sweep) {
            (Some(new), Some(old)) => *old.get_mut() = new,
            (None, Some(old)) if scale != 1.0 && old.get_ref().var.is_size() => {
                let sw = old.get_mut();
                let vals: Vec<f64> = sw.values().iter().map(|v| (v * scale).max(1.0)).collect();
                sw.values = Some(vals);
                sw.range = None;
            }
            _ => {}
        }
        e
    }

    /// Why `--quick` skips this experiment, if it does.
    #[must_use]
    pub fn quick_skip(&self) -> Option<&str> {
        self.spec.quick.as_ref().and_then(|q| q.skip.as_deref())
    }

    /// The sweep values (empty for runners without a sweep).
    #[must_use]
    pub fn sweep_values(&self) -> Vec<f64> {
        self.spec
            .sweep
            .as_ref()
            .map(|s| s.get_ref().values())
            .unwrap_or_default()
    }

    /// The swept variable.
    #[must_use]
    pub fn sweep_var(&self) -> Option<SweepVar> {
        self.spec.sweep.as_ref().map(|s| s.get_ref().var)
    }

    /// The series: each filter entry × hashes × strategies × key kinds, labelled.
    #[must_use]
    pub fn series(&self) -> Vec<SeriesDef> {
        let s = &self.spec;
        let mut out = Vec::new();
        for (i, f) in s.filters.iter().enumerate() {
            let e = f.get_ref();
            let hashes: Vec<Option<HashId>> = match (e.hash, s.hashes.is_empty()) {
                (Some(h), _) => vec![Some(h)],
                (None, true) => vec![None],
                (None, false) => s.hashes.iter().copied().map(Some).collect(),
            };
            let strategies: Vec<Option<StrategyId>> = match (e.strategy, s.strategies.is_empty()) {
                (Some(x), _) => vec![Some(x)],
                (None, true) => vec![None],
                (None, false) => s.strategies.iter().copied().map(Some).collect(),
            };
            for h in &hashes {
                for st in &strategies {
                    for &keys in &s.keys {
                        let mut spec = FilterSpec {
                            kind: e.kind,
                            ..FilterSpec::default()
                        };
                        if let Some(h) = h {
                            spec.hash = *h;
                        }
                        if let Some(st) = st {
                            spec.strategy = *st;
                        }
                        if let Some(seed) = e.seed {
                            spec.seed = seed;
                        }
                        if let Some(n) = e.n {
                            spec.n = n;
                        }
                        spec.p = e.p;
                        spec.m = e.m;
                        spec.k = e.k;
                        if let Some(f) = e.fingerprint_bits {
                            spec.fingerprint_bits = f;
                        }
                        if let Some(g) = e.growth {
                            spec.growth = g;
                        }
                        if let Some(t) = e.tightening {
                            spec.tightening = t;
                        }
                        if let Some(ns) = e.nonscaling {
                            spec.nonscaling = ns;
                        }
                        out.push(SeriesDef {
                            label: e.label.clone().unwrap_or_default(),
                            entry: i,
                            spec,
                            keys,
                            bits_per_key: e.bits_per_key,
                        });
                    }
                }
            }
        }
        label_series(&mut out);
        out
    }

    /// Where the output files of this experiment go in `dir`.
    #[must_use]
    pub fn outputs(&self, dir: &Path) -> Outputs {
        let base = dir.join(&self.spec.name);
        Outputs {
            csv: base.with_extension("csv"),
            svg: base.with_extension("svg"),
            png: base.with_extension("png"),
            md: (self.spec.runner == RunnerKind::Scenarios).then(|| base.with_extension("md")),
        }
    }

    /// Run the experiment and write its CSV, SVG and PNG (and a markdown table for scenarios)
    /// into `dir`.
    ///
    /// # Errors
    /// Run errors (with the series and point named), I/O errors, plot columns that the table
    /// does not have ([`Error::Spec`]).
    pub fn run(&self, dir: &Path, progress: &dyn Progress) -> Result<RunReport> {
        let out = runner::run(self, progress)?;
        if out.table.rows.iter().all(|r| {
            let i = out.table.col("row_type");
            i.is_none_or(|i| r[i].text() != "measured")
        }) {
            // Nothing measured: say why (typically: a filter kind not in this build).
            return Err(out.skip_error.unwrap_or_else(|| {
                Error::invalid(
                    crate::error::Param::Other("experiment"),
                    &self.spec.name,
                    "at least one series that can run",
                )
            }));
        }
        let chart = chart::build(self, &out.table)?;
        std::fs::create_dir_all(dir).map_err(|e| Error::Io {
            path: dir.display().to_string(),
            message: e.to_string(),
        })?;
        let files = self.outputs(dir);
        out.table.write_csv(&files.csv)?;
        chart.save_svg(&files.svg)?;
        chart.save_png(&files.png)?;
        if let (Some(md), Some(text)) = (&files.md, &out.markdown) {
            std::fs::write(md, text).map_err(|e| Error::Io {
                path: md.display().to_string(),
                message: e.to_string(),
            })?;
        }
        Ok(RunReport {
            files,
            rows: out.table.rows.len(),
            skipped: out.skipped,
            summary: out.summary,
        })
    }
}

impl Experiment {
    /// Redraw the chart (SVG and PNG) from the CSV an earlier run left in `dir`, without
    /// measuring anything: for changing a plot of a long experiment.
    ///
    /// # Errors
    /// The CSV cannot be read; plot columns it does not have ([`Error::Spec`]).
    pub fn replot(&self, dir: &Path) -> Result<Outputs> {
        let files = self.outputs(dir);
        let table = Table::read_csv(&files.csv)?;
        let chart = chart::build(self, &table)?;
        chart.save_svg(&files.svg)?;
        chart.save_png(&files.png)?;
        Ok(files)
    }
}

/// Output paths of one experiment.
#[derive(Debug, Clone, PartialEq)]
pub struct Outputs {
    /// The table.
    pub csv: PathBuf,
    /// The chart as SVG.
    pub svg: PathBuf,
    /// The chart as PNG.
    pub png: PathBuf,
    /// A markdown table (scenarios).
    pub md: Option<PathBuf>,
}

/// What a run produced.
#[derive(Debug, Clone, PartialEq)]
pub struct RunReport {
    /// Files written.
    pub files: Outputs,
    /// Rows in the CSV.
    pub rows: usize,
    /// Series that could not be built, with the reason (e.g. a filter kind not in this build).
    pub skipped: Vec<(String, String)>,
    /// Lines summarising the result.
    pub summary: Vec<String>,
}

/// Progress reporting (the CLI shows a bar with ETA; the library calls these).
pub trait Progress: Sync {
    /// A new phase with `total` units of work.
    fn begin(&self, total: u64);
    /// `delta` units done.
    fn advance(&self, delta: u64);
    /// A short status (the series being run).
    fn status(&self, msg: &str);
    /// A warning to show the user.
    fn warn(&self, msg: &str);
}

/// No progress output (warnings go to standard error).
#[derive(Debug, Clone, Copy, Default)]
pub struct NoProgress;

impl Progress for NoProgress {
    fn begin(&self, _: u64) {}
    fn advance(&self, _: u64) {}
    fn status(&self, _: &str) {}
    fn warn(&self, msg: &str) {
        eprintln!("warning: {msg}");
    }
}

/// Percent text for labels: 0.01 → "1%", 0.0001 → "0.01%".
#[must_use]
pub fn pct_label(p: f64) -> String {
    crate::plot::format_value(p, Format::Percent)
}

/// Give every series a label: its own, or one built from what differs between series.
fn label_series(series: &mut [SeriesDef]) {
    let attrs = |s: &SeriesDef| -> Vec<(&'static str, String)> {
        let spec = &s.spec;
        vec![
            ("kind", spec.kind.name().to_string()),
            ("hash", spec.hash.name().to_string()),
            ("strategy", spec.strategy.name().to_string()),
            ("keys", format!("{} keys", s.keys.name())),
            (
                "p",
                spec.p
                    .map(|p| format!("p={}", pct_label(p)))
                    .unwrap_or_default(),
            ),
            (
                "m/n",
                s.bits_per_key
                    .map(|b| format!("m/n={}", crate::plot::format_value(b, Format::Auto)))
                    .unwrap_or_default(),
            ),
            (
                "n",
                format!(
                    "n={}",
                    crate::plot::format_value(spec.n as f64, Format::Auto)
                ),
            ),
            ("f", format!("f={}", spec.fingerprint_bits)),
            ("s", format!("s={}", spec.growth)),
            ("r", format!("r={}", spec.tightening)),
        ]
    };
    let all: Vec<Vec<(&'static str, String)>> = series.iter().map(attrs).collect();
    for (i, s) in series.iter_mut().enumerate() {
        if !s.label.is_empty() {
            continue;
        }
        let mut parts = Vec::new();
        for (j, (name, value)) in all[i].iter().enumerate() {
            let varies = all.iter().any(|a| a[j].1 != *value);
            let kind_specific = match *name {
                "f" => s.spec.kind == FilterKind::Cuckoo,
                "s" | "r" => s.spec.kind == FilterKind::Scalable,
                "hash" | "strategy" => true,
                _ => true,
            };
            if (*name == "kind" || varies) && kind_specific && !value.is_empty() {
                parts.push(value.clone());
            }
        }
        s.label = parts.join(" ");
    }
}

#[cfg(test)]
mod tests;
