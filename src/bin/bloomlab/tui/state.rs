//! Everything the screens show, and the pure computations derived from it. `update` is the only
//! writer; `view` only reads.

use bloomlab::hash::{AnyStrategy, HashId, IndexStrategy, StrategyId};
use bloomlab::walkthrough::{self, Outcome, Walkthrough};
use bloomlab::workload::KeyKind;
use bloomlab::{FilterKind, FilterSpec, theory};

use super::results::{CompareResult, FillMap, HashResult, RowState};
use super::sizing::Footprint;

/// Walkthrough actions kept for display.
pub const WALK_LOG: usize = 12;

/// Largest bit array the workbench will allocate for a measurement (2^33 bits = 1 GiB).
pub const MAX_MEASURE_BITS: u64 = 1 << 33;
/// Longest measurement the workbench will start (estimated), in seconds.
pub const MAX_MEASURE_SECS: f64 = 60.0;
/// Largest n accepted by the controls (theory only beyond what can be measured).
pub const MAX_N: u64 = 1_000_000_000_000;
/// Largest m accepted by the controls.
pub const MAX_M: u64 = 1 << 46;
/// Smallest target p accepted.
pub const MIN_P: f64 = 1e-15;
/// Absent keys every measurement queries at least.
pub const MIN_QUERIES: u64 = 100_000;
/// Regions of the fill picture computed by the worker.
pub const FILL_REGIONS: usize = 2048;

/// The screens.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Tab {
    /// Parameters, theory, charts, the live measurement.
    Explore,
    /// Every filter kind at the same n and p.
    Compare,
    /// Every hash × strategy.
    Hashes,
    /// The m = 16, k = 3 example.
    Walkthrough,
    /// Short interactive lessons.
    Lessons,
    /// The chooser: move n, p and the cost of a false positive, see the Pareto front and the
    /// recommendation move.
    Tradeoffs,
    /// Keys and what to look at.
    Help,
}

impl Tab {
    /// Display order.
    pub const ALL: [Tab; 7] = [
        Tab::Explore,
        Tab::Compare,
        Tab::Hashes,
        Tab::Walkthrough,
        Tab::Lessons,
        Tab::Tradeoffs,
        Tab::Help,
    ];

    /// Title in the tab bar.
    pub fn title(self) -> &'static str {
        match self {
            Tab::Explore => "Explore",
            Tab::Compare => "Compare",
            Tab::Hashes => "Hashes",
            Tab::Walkthrough => "Walkthrough",
            Tab::Lessons => "Lessons",
            Tab::Tradeoffs => "Trade-offs",
            Tab::Help => "Help",
        }
    }

    /// Position in [`Tab::ALL`].
    pub fn index(self) -> usize {
        Tab::ALL.iter().position(|t| *t == self).unwrap_or(0)
    }
}

/// The Explore controls.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Field {
    /// Items.
    N,
    /// Target false-positive rate.
    P,
    /// Bits.
    M,
    /// Bits per key.
    BitsPerKey,
    /// Hash functions.
    K,
    /// Filter kind.
    Kind,
    /// Hash function.
    Hash,
    /// Index strategy.
    Strategy,
    /// Key kind.
    Keys,
}

impl Field {
    /// Display order.
    pub const ALL: [Field; 9] = [
        Field::N,
        Field::P,
        Field::M,
        Field::BitsPerKey,
        Field::K,
        Field::Kind,
        Field::Hash,
        Field::Strategy,
        Field::Keys,
    ];

    /// Label.
    pub fn label(self) -> &'static str {
        match self {
            Field::N => "n (items)",
            Field::P => "p (target)",
            Field::M => "m (bits)",
            Field::BitsPerKey => "bits/key",
            Field::K => "k (hashes)",
            Field::Kind => "filter",
            Field::Hash => "hash",
            Field::Strategy => "strategy",
            Field::Keys => "keys",
        }
    }

    /// Whether Enter lets you type a value.
    pub fn typed(self) -> bool {
        matches!(
            self,
            Field::N | Field::P | Field::M | Field::BitsPerKey | Field::K
        )
    }

    /// Position in [`Field::ALL`].
    pub fn index(self) -> usize {
        Field::ALL.iter().position(|f| *f == self).unwrap_or(0)
    }
}

/// The Explore parameters.
#[derive(Debug, Clone, PartialEq)]
pub struct Params {
    /// Items.
    pub n: u64,
    /// Target false-positive rate (sizes m unless m is pinned).
    pub p: f64,
    /// m set by hand (or via bits/key); `None` = from n and p.
    pub m_pin: Option<u64>,
    /// k set by hand; `None` = optimal for m and n.
    pub k_pin: Option<u32>,
    /// Filter kind.
    pub kind: FilterKind,
    /// Hash function.
    pub hash: HashId,
    /// Index strategy.
    pub strategy: StrategyId,
    /// Key kind.
    pub keys: KeyKind,
}

impl Default for Params {
    /// The library's default filter ([`FilterSpec::default`]: n = 10⁶, p = 1%, standard, xxh3,
    /// enhanced double hashing) on `u64` keys.
    fn default() -> Self {
        let spec = FilterSpec::default();
        Self {
            n: spec.n,
            p: spec.p.unwrap_or(0.01),
            m_pin: None,
            k_pin: None,
            kind: spec.kind,
            hash: spec.hash,
            strategy: spec.strategy,
            keys: KeyKind::U64,
        }
    }
}

/// Numbers derived from [`Params`] (pure theory; cheap).
#[derive(Debug, Clone, PartialEq)]
pub struct Design {
    /// Items.
    pub n: u64,
    /// Bits asked for.
    pub m: u64,
    /// Bits the filter really has (the Guava strategies round up to whole words).
    pub m_actual: u64,
    /// Hash functions used.
    pub k: u32,
    /// `round(m/n · ln 2)`.
    pub k_opt: u32,
    /// `m/n · ln 2`.
    pub k_real: f64,
    /// Whether k is pinned.
    pub k_pinned: bool,
    /// Whether m is pinned (not from p).
    pub m_pinned: bool,
    /// `m_actual / n`.
    pub bits_per_key: f64,
    /// Heap bytes of the bit array (whole 64-bit words).
    pub bytes: u64,
    /// `(1 − e^(−kn/m))^k`.
    pub classic: f64,
    /// `log2(1/p)`: the fewest bits per key any structure needs for rate p (the target p when m
    /// comes from p, else the classic rate).
    pub lower_bound: f64,
    /// `bits_per_key / lower_bound − 1`.
    pub overhead: f64,
    /// `1 − (1 − 1/m)^(kn)`.
    pub fill: f64,
    /// Estimated heap bytes of a `HashSet<u64>` holding n keys.
    pub hashset_bytes: u64,
}

/// Estimated heap bytes of a `std::collections::HashSet<u64>` with `n` items: the library's
/// hashbrown layout model ([`bloomlab::measure::hashset_table_bytes`]), which the memory
/// experiment checks against a counting allocator.
pub fn hashset_u64_bytes(n: u64) -> u64 {
    bloomlab::measure::hashset_table_bytes(n, 8)
}

impl Params {
    /// The spec Explore measures and sizes its memory line by: `kind`, `n`, `p`, hash and
    /// strategy, and m or k only where the kind is sized by bits and the user set them (the
    /// kind's own rule otherwise; a kind that fixes k never gets one).
    pub fn spec(&self) -> FilterSpec {
        let caps = self.kind.caps();
        let by_bits = caps.sizing == bloomlab::filter::Sizing::Bits;
        FilterSpec {
            kind: self.kind,
            hash: self.hash,
            strategy: self.strategy,
            n: self.n,
            p: Some(self.p),
            m: self.m_pin.filter(|_| by_bits),
            k: self.k_pin.filter(|_| by_bits && caps.fixed_k.is_none()),
            ..FilterSpec::default()
        }
    }

    /// Derive the design numbers.
    ///
    /// # Errors
    /// A message naming the invalid value.
    pub fn design(&self) -> Result<Design, String> {
        theory::check_n(self.n).map_err(|e| e.to_string())?;
        let m = match self.m_pin {
            Some(m) => theory::check_m(m).map_err(|e| e.to_string())?,
            None => theory::optimal_bits(self.n, self.p).map_err(|e| e.to_string())?,
        };
        let k_opt = theory::optimal_k(m, self.n);
        let k = match self.k_pin {
            Some(k) => theory::check_k(k).map_err(|e| e.to_string())?,
            None => k_opt,
        };
        let m_actual = AnyStrategy(self.strategy).round_bits(m);
        // The numbers `bloomlab calc` prints, from the same function; the bound is against p
        // when m comes from p, else against the filter's own classic rate.
        let target = self.m_pin.is_none().then_some(self.p);
        let d = bloomlab::design::Design::compute(m_actual, k, self.n, target)
            .map_err(|e| e.to_string())?;
        Ok(Design {
            n: self.n,
            m,
            m_actual,
            k,
            k_opt,
            k_real: theory::optimal_k_real(m, self.n),
            k_pinned: self.k_pin.is_some(),
            m_pinned: self.m_pin.is_some(),
            bits_per_key: d.bits_per_key,
            bytes: d.bytes,
            classic: d.fpr_classic,
            lower_bound: d.lower_bound_bits_per_key,
            overhead: d.overhead_vs_lower_bound,
            fill: d.expected_fill,
            hashset_bytes: hashset_u64_bytes(self.n),
        })
    }
}

/// Which chart Explore shows when there is room for only one.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ChartView {
    /// FPR against k.
    FprVsK,
    /// FPR against n.
    FprVsN,
    /// The timings and the filter's own details, wrapped, in place of the charts.
    Details,
}

/// Lifecycle of a background job as the screens see it.
#[derive(Debug, Clone, PartialEq)]
pub enum RunStatus {
    /// Not started (or paused because another screen measures).
    Idle,
    /// Running.
    Running,
    /// Finished.
    Done,
    /// Stopped before its target (time budget); the numbers so far stand.
    Stopped(String),
    /// Not started: too big or too slow.
    Refused(String),
    /// Failed.
    Failed(String),
}

/// The Explore measurement.
#[derive(Debug, Clone, PartialEq)]
pub struct ExploreRun {
    /// Generation of the job (reports of older jobs are ignored).
    pub job: u64,
    /// Status.
    pub status: RunStatus,
    /// 0..=1.
    pub progress: f64,
    /// What the worker is doing.
    pub phase: &'static str,
    /// (m, n, k) measured.
    pub design: Option<(u64, u64, u32)>,
    /// Bits of the built filter.
    pub bits: Option<u64>,
    /// Heap bytes of the built filter.
    pub bytes: Option<usize>,
    /// Fill picture.
    pub fill: Option<FillMap>,
    /// ns per insert.
    pub ns_insert: Option<f64>,
    /// ns per query.
    pub ns_query: Option<f64>,
    /// Median and range of the insert chunks' ns per key.
    pub insert_timing: Option<bloomlab::measure::TimingStats>,
    /// Median and range of the query chunks' ns per key.
    pub query_timing: Option<bloomlab::measure::TimingStats>,
    /// The filter's own model FPR.
    pub model_fpr: Option<f64>,
    /// Details from the filter.
    pub details: Vec<(String, String)>,
    /// Absent keys queried.
    pub queries: u64,
    /// False positives among them.
    pub false_positives: u64,
    /// Query target.
    pub target: u64,
    /// Independently seeded filters measured (1, or more at small m).
    pub instances: u32,
    /// FPR of each instance measured so far (when `instances > 1`).
    pub rates: Vec<f64>,
}

impl Default for ExploreRun {
    fn default() -> Self {
        Self {
            job: 0,
            status: RunStatus::Idle,
            progress: 0.0,
            phase: "",
            design: None,
            bits: None,
            bytes: None,
            fill: None,
            ns_insert: None,
            ns_query: None,
            insert_timing: None,
            query_timing: None,
            model_fpr: None,
            details: Vec::new(),
            queries: 0,
            false_positives: 0,
            target: 0,
            instances: 1,
            rates: Vec::new(),
        }
    }
}

impl ExploreRun {
    /// Measured FPR and its 95% interval, once queries were made: over one filter, Wilson's
    /// interval of its queries; over several, Student's t over the instances' rates (what
    /// `measure --trials` reports), once two have finished.
    pub fn fpr(&self) -> Option<(f64, f64, f64)> {
        if self.instances > 1 {
            if self.rates.len() < 2 {
                return None;
            }
            return Some(bloomlab::stats::mean_ci95(&self.rates));
        }
        if self.queries == 0 {
            return None;
        }
        let (lo, hi) =
            bloomlab::stats::wilson(self.false_positives, self.queries, bloomlab::stats::Z95);
        Some((self.false_positives as f64 / self.queries as f64, lo, hi))
    }
}

/// The Explore screen.
#[derive(Debug, Clone, PartialEq)]
pub struct Explore {
    /// Parameters.
    pub params: Params,
    /// Selected control.
    pub field: Field,
    /// Text being typed into the selected control.
    pub edit: Option<String>,
    /// Chart shown on small terminals.
    pub chart: ChartView,
    /// The measurement.
    pub run: ExploreRun,
    /// Key seed of the next measurement (`r` moves it on: a fresh filter instance).
    pub key_seed: u64,
    /// Exact FPR for (m, n, k), when known.
    pub exact: Option<((u64, u64, u32), f64)>,
    /// Exact FPR being computed for (m, n, k).
    pub exact_pending: Option<(u64, u64, u32)>,
    /// The memory of the spec (`Params::spec`) it was computed for, or why it is not known.
    pub footprint: Option<(FilterSpec, Result<Footprint, String>)>,
    /// The spec being sized in the background.
    pub footprint_pending: Option<FilterSpec>,
}

impl Explore {
    /// The memory of the current spec, if computed.
    pub fn footprint(&self) -> Option<&Result<Footprint, String>> {
        match &self.footprint {
            Some((spec, f)) if *spec == self.params.spec() => Some(f),
            _ => None,
        }
    }

    /// The exact FPR for the current design, if computed.
    pub fn exact_for(&self, d: &Design) -> Option<f64> {
        match self.exact {
            Some((key, v)) if key == (d.m_actual, d.n, d.k) => Some(v),
            _ => None,
        }
    }
}

/// What a Compare table was measured for.
#[derive(Debug, Clone, PartialEq)]
pub struct CompareKey {
    /// Items.
    pub n: u64,
    /// Target rate.
    pub p: f64,
    /// Hash.
    pub hash: HashId,
    /// Strategy.
    pub strategy: StrategyId,
    /// Keys.
    pub keys: KeyKind,
    /// Key seed.
    pub seed: u64,
}

/// The Compare screen.
#[derive(Debug, Clone, PartialEq)]
pub struct Compare {
    /// What the rows were (are being) measured for.
    pub key: Option<CompareKey>,
    /// Generation.
    pub job: u64,
    /// One row per `FilterKind::ALL`.
    pub rows: Vec<RowState<CompareResult>>,
    /// Status.
    pub status: RunStatus,
    /// 0..=1 over all rows.
    pub progress: f64,
    /// Key seed (`r` moves it on).
    pub seed: u64,
    /// Each kind's theory at the key's n and p (shown while a row is pending or refused), one
    /// per `FilterKind::ALL`; empty until a table is keyed.
    pub models: Vec<Result<super::model::Model, String>>,
    /// `v`: the table shows the timings' medians and ranges instead of the rates.
    pub timings: bool,
    /// `e`: the table shows the peer crates' rows.
    pub peers: bool,
    /// One per `results::PEERS`, measured in the same worker after the kinds.
    pub peer_rows: Vec<RowState<super::results::PeerResult>>,
}

/// Metric shown in the Hashes matrix.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum HashMetric {
    /// Measured FPR against the exact rate.
    Fpr,
    /// Chi-square p-value of the bit positions.
    Uniformity,
    /// Million queries per second.
    Throughput,
}

/// What a Hashes matrix was measured for.
#[derive(Debug, Clone, PartialEq)]
pub struct HashesKey {
    /// Items.
    pub n: u64,
    /// Keys.
    pub keys: KeyKind,
    /// Key seed.
    pub seed: u64,
}

/// The Hashes screen.
#[derive(Debug, Clone, PartialEq)]
pub struct Hashes {
    /// Items per filter.
    pub n: u64,
    /// Target rate (fixed at 1%).
    pub p: f64,
    /// Key kind.
    pub keys: KeyKind,
    /// Selected hash (row).
    pub row: usize,
    /// Selected strategy (column).
    pub col: usize,
    /// Metric in the matrix.
    pub metric: HashMetric,
    /// What the cells were measured for.
    pub key: Option<HashesKey>,
    /// Generation.
    pub job: u64,
    /// `HashId::ALL.len() × StrategyId::ALL.len()` cells, row-major.
    pub cells: Vec<RowState<HashResult>>,
    /// Status.
    pub status: RunStatus,
    /// 0..=1 over all cells.
    pub progress: f64,
    /// Key seed.
    pub seed: u64,
}

impl Hashes {
    /// Index of the cell for (hash row, strategy column).
    pub fn cell_index(row: usize, col: usize) -> usize {
        row * StrategyId::ALL.len() + col
    }
}

/// Absent words the Walkthrough queries for its measured rate.
pub const WALK_QUERIES: u64 = 4096;
/// Walkthrough filter sizes offered.
pub const WALK_M: std::ops::RangeInclusive<u64> = 8..=64;
/// Walkthrough hash counts offered.
pub const WALK_K: std::ops::RangeInclusive<u32> = 1..=8;

/// The Walkthrough screen: the library's example session ([`Walkthrough`]: the filter, its
/// words, bit or counting mode) and what the screen adds (the word box, the log, the rates).
#[derive(Debug, Clone, PartialEq)]
pub struct Walk {
    /// The filter (m = 16, k = 3 at first; m and k adjustable).
    pub session: Walkthrough,
    /// The word in the box.
    pub input: String,
    /// The word before typing began (Esc, or Enter on an empty box, brings it back).
    pub before_edit: Option<String>,
    /// Typing into the box.
    pub editing: bool,
    /// Actions so far (word, what happened), oldest first, at most [`WALK_LOG`].
    pub log: Vec<(String, Outcome)>,
    /// False positives among [`WALK_QUERIES`] absent words, for the filter as it is now.
    pub measured_fp: u64,
}

impl Walk {
    /// The articles' starting point (apple and banana inserted), the box holding "cherry".
    pub fn new() -> Self {
        let mut w = Self {
            session: Walkthrough::story(walkthrough::SEED),
            input: "cherry".into(),
            before_edit: None,
            editing: false,
            log: Vec::new(),
            measured_fp: 0,
        };
        w.remeasure();
        w
    }

    /// Query the absent words again (after any change of the filter).
    pub fn remeasure(&mut self) {
        self.measured_fp = self.session.measured_false_positives(WALK_QUERIES);
    }

    /// Items inserted (with repeats).
    pub fn n(&self) -> u64 {
        self.session.words().len() as u64
    }

    /// Rebuild with `m` bits and `k` hashes (clamped to [`WALK_M`], [`WALK_K`]), inserting the
    /// same words again in the same order; the mode stays, the log is cleared.
    pub fn resize(&mut self, m: u64, k: u32) {
        let m = m.clamp(*WALK_M.start(), *WALK_M.end());
        let k = k.clamp(*WALK_K.start(), *WALK_K.end());
        let Ok(mut fresh) = Walkthrough::with_size(self.session.seed(), m, k) else {
            return;
        };
        fresh.set_counting(self.session.counting());
        for (w, _) in self.session.words() {
            let _ = fresh.insert(w);
        }
        self.session = fresh;
        self.log.clear();
        self.remeasure();
    }

    /// The last action and its outcome.
    #[cfg(test)]
    pub fn last(&self) -> Option<&(String, Outcome)> {
        self.log.last()
    }

    /// Record an action.
    pub fn record(&mut self, word: String, out: Outcome) {
        if self.log.len() >= WALK_LOG {
            self.log.remove(0);
        }
        self.log.push((word, out));
        self.remeasure();
    }

    /// Empty the filter and the log.
    pub fn clear(&mut self) {
        self.session.clear();
        self.log.clear();
        self.remeasure();
    }

    /// Empty the log, reload apple and banana.
    pub fn preload(&mut self) {
        self.session.preload();
        self.log.clear();
        self.remeasure();
    }
}

/// Severity of the status line.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Level {
    /// Information.
    Info,
    /// Something was refused.
    Warn,
    /// Invalid input or a failure.
    Error,
}

/// Time per operation used to estimate how long a measurement would take (updated from what
/// the worker measures).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Speed {
    /// ns per insert.
    pub ns_insert: f64,
    /// ns per query.
    pub ns_query: f64,
}

impl Speed {
    /// Seconds for `inserts` inserts and `queries` queries.
    pub fn secs(&self, inserts: u64, queries: u64) -> f64 {
        (inserts as f64 * self.ns_insert + queries as f64 * self.ns_query) * 1e-9
    }
}

/// The whole application state.
#[derive(Debug, Clone, PartialEq)]
pub struct State {
    /// Current screen.
    pub tab: Tab,
    /// Set when the user quits.
    pub quit: bool,
    /// Status line: message and severity.
    pub status: Option<(Level, String)>,
    /// Explore.
    pub explore: Explore,
    /// Compare.
    pub compare: Compare,
    /// Hashes.
    pub hashes: Hashes,
    /// Walkthrough.
    pub walk: Walk,
    /// Lessons and the session's progress.
    pub lessons: super::lessons::Lessons,
    /// The Trade-offs screen.
    pub tradeoffs: super::tradeoffs::Tradeoffs,
    /// Help scroll offset.
    pub help_scroll: u16,
    /// Next job generation.
    pub next_job: u64,
    /// Operation costs for estimates before a kind has been measured.
    pub speed: Speed,
    /// Operation costs measured per kind (the estimate for a kind uses only its own).
    pub speeds: Vec<(FilterKind, Speed)>,
    /// Set for one start by `g`: run even when the time estimate is over the limit.
    pub run_anyway: bool,
    /// `o`: Explore and Compare show rates as "1 in N" instead of percentages.
    pub one_in_n: bool,
}

impl Default for State {
    fn default() -> Self {
        Self::new()
    }
}

impl State {
    /// The initial state (nothing measured yet).
    pub fn new() -> Self {
        Self {
            tab: Tab::Explore,
            quit: false,
            status: None,
            explore: Explore {
                params: Params::default(),
                field: Field::N,
                edit: None,
                chart: ChartView::FprVsK,
                run: ExploreRun::default(),
                key_seed: 1,
                exact: None,
                exact_pending: None,
                footprint: None,
                footprint_pending: None,
            },
            compare: Compare {
                key: None,
                job: 0,
                rows: vec![RowState::Pending; FilterKind::ALL.len()],
                status: RunStatus::Idle,
                progress: 0.0,
                seed: 1,
                models: Vec::new(),
                timings: false,
                peers: false,
                peer_rows: vec![RowState::Pending; super::results::PEERS.len()],
            },
            hashes: Hashes {
                n: 100_000,
                p: 0.01,
                keys: KeyKind::Seq,
                // Start on the weak hash: the row the screen exists to show.
                row: HashId::ALL
                    .iter()
                    .position(|&h| h == HashId::Weak)
                    .unwrap_or(0),
                col: 0,
                metric: HashMetric::Fpr,
                key: None,
                job: 0,
                cells: vec![RowState::Pending; HashId::ALL.len() * StrategyId::ALL.len()],
                status: RunStatus::Idle,
                progress: 0.0,
                seed: 1,
            },
            walk: Walk::new(),
            lessons: super::lessons::Lessons::new(),
            tradeoffs: super::tradeoffs::Tradeoffs::new(),
            help_scroll: 0,
            next_job: 1,
            // Conservative release-build figures; replaced by measured ones as jobs run.
            speed: Speed {
                ns_insert: 150.0,
                ns_query: 120.0,
            },
            speeds: Vec::new(),
            run_anyway: false,
            one_in_n: false,
        }
    }

    /// The operation costs to estimate `kind` by: its own measured ones, else the defaults.
    pub fn speed_of(&self, kind: FilterKind) -> Speed {
        self.speeds
            .iter()
            .find(|(k, _)| *k == kind)
            .map_or(self.speed, |(_, sp)| *sp)
    }

    /// Record what a measurement of `kind` took (a zero keeps the old figure).
    pub fn record_speed(&mut self, kind: FilterKind, ns_insert: f64, ns_query: f64) {
        let mut sp = self.speed_of(kind);
        if ns_insert > 0.0 {
            sp.ns_insert = ns_insert;
        }
        if ns_query > 0.0 {
            sp.ns_query = ns_query;
        }
        match self.speeds.iter_mut().find(|(k, _)| *k == kind) {
            Some(e) => e.1 = sp,
            None => self.speeds.push((kind, sp)),
        }
    }

    /// Whether keys go into a text box (digits and letters are text, not commands).
    pub fn typing(&self) -> bool {
        match self.tab {
            Tab::Explore => self.explore.edit.is_some(),
            Tab::Walkthrough => self.walk.editing,
            _ => false,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn design_matches_the_articles_table() {
        let d = Params::default().design().unwrap();
        assert_eq!((d.m, d.k), (9_585_058, 7));
        assert_eq!(d.bytes, 1_198_136);
        assert!((d.overhead - 0.44).abs() < 0.01, "{}", d.overhead);
        let p = Params {
            n: 1_000_000,
            p: 0.001,
            ..Params::default()
        };
        let d = p.design().unwrap();
        assert_eq!((d.m, d.k), (14_377_587, 10));
    }

    #[test]
    fn guava_strategies_round_m_up() {
        let p = Params {
            strategy: StrategyId::Guava64,
            ..Params::default()
        };
        let d = p.design().unwrap();
        assert_eq!((d.m, d.m_actual), (9_585_058, 9_585_088));
    }

    #[test]
    fn hashset_estimate() {
        // 1,000,000 · 8/7 = 1,142,857 → 2^21 buckets of 9 bytes.
        assert_eq!(hashset_u64_bytes(1_000_000), (1 << 21) * 9 + 16);
        assert_eq!(hashset_u64_bytes(3), 4 * 9 + 16);
        assert_eq!(hashset_u64_bytes(7), 8 * 9 + 16);
    }
}
