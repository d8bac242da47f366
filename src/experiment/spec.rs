//! The spec types: what an `experiments/*.toml` file deserialises into. Checking the values is
//! [`super::validate`]'s job; running them is [`super::runners`]'.

pub use super::entry::FilterEntry;
use super::published::{LiteratureParams, PublishedPoint};
use crate::hash::{HashId, StrategyId};
use crate::plot::{Format, Legend, Scale};
use crate::spec::FilterSpec;
use crate::workload::KeyKind;
use serde::Deserialize;
use std::collections::BTreeMap;
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
    /// Space against rate: each kind sized by its own rule for every target p it can reach
    /// (static kinds built from their keys), its bits per key and measured FPR.
    SpaceFpr,
    /// Count, union and intersection estimates against the truth at several fills.
    Estimators,
    /// `bloomlab choose` for each `[[workloads]]` entry: candidates measured, ranked by
    /// expected cost per query ([`crate::choose`]).
    Choose,
    /// Published numbers (`[[points]]`), each reproduced and tested ([`super::published`]).
    Literature,
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
            RunnerKind::SpaceFpr => "space-fpr",
            RunnerKind::Estimators => "estimators",
            RunnerKind::Choose => "choose",
            RunnerKind::Literature => "literature",
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
            RunnerKind::SpaceFpr => &[V::P],
            RunnerKind::Estimators => &[V::Fill],
            RunnerKind::HashQuality
            | RunnerKind::Scenarios
            | RunnerKind::Choose
            | RunnerKind::Literature => &[],
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
    pub(super) fn is_size(self) -> bool {
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

/// A workload for the `choose` runner: the constraints of `bloomlab choose`.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Workload {
    /// Short name (the CSV's `workload` and `x` columns).
    pub name: String,
    /// What it stands for, in words.
    #[serde(default)]
    pub description: String,
    /// Keys the filter holds (shrunk by `quick.n_scale`).
    pub n: u64,
    /// Target rate (or give `bits_per_key`).
    #[serde(default)]
    pub p: Option<f64>,
    /// Space per key instead of `p`.
    #[serde(default)]
    pub bits_per_key: Option<f64>,
    /// Work a true negative saves: `50ns`, `10us`, `1ms`.
    pub negative_cost: String,
    /// Share of queries for present keys.
    #[serde(default = "default_hit_ratio")]
    pub hit_ratio: f64,
    /// Keys are deleted.
    #[serde(default)]
    pub deletes: bool,
    /// The set grows past n.
    #[serde(default)]
    pub grows: bool,
    /// Static kinds allowed.
    #[serde(default, rename = "static")]
    pub allow_static: bool,
    /// Key kind.
    #[serde(default = "default_keys")]
    pub keys: KeyKind,
}

fn default_hit_ratio() -> f64 {
    0.1
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
    /// space-fpr: queries per point are chosen so that this many false positives are expected
    /// at the target p (`⌈target/p⌉`), at least 10⁴ and at most the spec's `queries`
    /// (default 100).
    #[serde(default)]
    pub target_false_positives: Option<u64>,
}

impl Params {
    pub(super) fn overlay(&mut self, o: &Params) {
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
        if o.target_false_positives.is_some() {
            self.target_false_positives = o.target_false_positives;
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

/// A panel filter's value: one text, or a list of texts any of which matches.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(untagged)]
pub enum FilterValue {
    /// Exactly this text.
    One(String),
    /// Any of these texts.
    Any(Vec<String>),
}

impl FilterValue {
    /// Whether `text` matches.
    #[must_use]
    pub fn matches(&self, text: &str) -> bool {
        match self {
            Self::One(v) => v == text,
            Self::Any(v) => v.iter().any(|v| v == text),
        }
    }
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
    /// Only rows whose columns have these (text) values, one or a list of alternatives
    /// (`[[curves]]` rows are in every panel).
    #[serde(default)]
    pub filter: BTreeMap<String, FilterValue>,
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
    /// `book` (the default): panels stacked, [`crate::plot::BOOK_WIDTH`] px wide, legends
    /// under the plots; `grid`: `columns` panels of `width` × `height` per row.
    #[serde(default)]
    pub layout: crate::plot::Layout,
    /// Panels per row in the grid layout (default 2, or 1 for a single panel).
    #[serde(default)]
    pub columns: Option<usize>,
    /// Pixel width of one panel in the grid layout (default 1000).
    #[serde(default)]
    pub width: Option<u32>,
    /// Pixel height of one panel (grid default 640; book: of its plot area, default
    /// [`crate::plot::BOOK_PLOT_HEIGHT`]).
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
    /// Workloads (choose runner).
    #[serde(default)]
    pub workloads: Vec<Spanned<Workload>>,
    /// Reference curves.
    #[serde(default)]
    pub curves: Vec<CurveSpec>,
    /// Published points (literature runner).
    #[serde(default)]
    pub points: Vec<Spanned<PublishedPoint>>,
    /// The literature runner's test.
    #[serde(default)]
    pub literature: Option<LiteratureParams>,
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
