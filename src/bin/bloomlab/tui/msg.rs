//! Messages (what happened), commands (what the runtime must do) and the jobs the worker runs.

use bloomlab::hash::{HashId, StrategyId};
use bloomlab::measure::TimingStats;
use bloomlab::workload::KeyKind;
use bloomlab::{FilterKind, FilterSpec};

use super::sizing::Footprint;
use std::time::Duration;

use super::results::{CompareResult, FillMap, HashResult, PeerResult, RowOutcome};
use super::state::Tab;

/// Everything `update` reacts to: keys (already translated by `event`) and worker reports.
#[derive(Debug, Clone, PartialEq)]
pub enum Msg {
    /// Leave the program.
    Quit,
    /// Show a screen.
    Goto(Tab),
    /// Next screen.
    NextTab,
    /// Previous screen.
    PrevTab,
    /// Cursor up (previous field or row).
    Up,
    /// Cursor down.
    Down,
    /// Left arrow (decrease the field, previous column).
    Left,
    /// Right arrow.
    Right,
    /// `+`: increase.
    Plus,
    /// `-`: decrease.
    Minus,
    /// PageUp: big increase.
    BigUp,
    /// PageDown: big decrease.
    BigDown,
    /// Enter: start typing a value (or a word).
    StartEdit,
    /// A character typed while editing.
    Input(char),
    /// Backspace while editing.
    Backspace,
    /// Enter while editing: apply.
    Submit,
    /// Esc while editing: discard.
    CancelEdit,
    /// `g`: run the refused measurement anyway (past the time estimate).
    RunAnyway,
    /// `o`: rates as "1 in N" / as percentages (Explore and Compare).
    ToggleOneIn,
    /// Compare `e`: show (and measure) the peer crates' rows / the kinds' rows.
    TogglePeers,
    /// `y`: show the command line that reproduces the screen.
    CopyCommand,
    /// Lessons `a`, `b`, `c`: answer the question.
    Answer(usize),
    /// Esc with no text box open: nothing to leave (never quits).
    Escape,
    /// `a`: back to automatic (k optimal, m from p).
    Auto,
    /// `v`: next chart / next metric.
    CycleView,
    /// `r`: measure again with fresh keys (Explore, Compare, Hashes).
    Remeasure,
    /// `k` / `K` on Hashes: next / previous key kind.
    NextKeys(bool),
    /// Walkthrough `a`: insert the word.
    WalkInsert,
    /// Walkthrough `c`: query (check) the word.
    WalkQuery,
    /// Walkthrough `d`: delete the word (counting mode only).
    WalkRemove,
    /// Walkthrough `m`: toggle bits / counters.
    WalkToggleCounting,
    /// Walkthrough `x`: clear the filter.
    WalkClear,
    /// Walkthrough `p`: reload apple and banana.
    WalkPreload,
    /// A report from a background job (boxed: reports are much larger than keys).
    Worker(Box<WorkerEvent>),
}

impl Msg {
    /// Wrap a worker report.
    pub fn worker(ev: WorkerEvent) -> Self {
        Msg::Worker(Box::new(ev))
    }
}

/// Which background job a report belongs to.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Slot {
    /// The Explore measurement.
    Explore,
    /// The Compare table.
    Compare,
    /// The Hashes matrix.
    Hashes,
}

/// Reports from the background threads.
#[derive(Debug, Clone, PartialEq)]
pub enum WorkerEvent {
    /// Fraction of a job done.
    Progress {
        /// Which job.
        slot: Slot,
        /// Its generation.
        job: u64,
        /// 0..=1.
        frac: f64,
        /// What it is doing.
        phase: &'static str,
    },
    /// The Explore filter is built and filled.
    ExploreBuilt {
        /// Generation.
        job: u64,
        /// Bits of the built filter (Guava strategies round up to words).
        bits: u64,
        /// Heap bytes.
        bytes: usize,
        /// Fill picture (standard filter only).
        fill: Option<FillMap>,
        /// ns per insert.
        ns_insert: f64,
        /// The filter's own model FPR at its fill.
        model_fpr: f64,
        /// Details reported by the filter.
        details: Vec<(String, String)>,
    },
    /// Cumulative query counts so far.
    ExplorePartial {
        /// Generation.
        job: u64,
        /// Absent keys queried.
        queries: u64,
        /// Of those answered "maybe present".
        false_positives: u64,
        /// ns per query so far.
        ns_query: f64,
    },
    /// The spread of the Explore timings so far: per chunk of keys, ns per key.
    ExploreTiming {
        /// Generation.
        job: u64,
        /// Inserts (none for a static set, built whole).
        insert: Option<TimingStats>,
        /// Queries of absent keys.
        query: Option<TimingStats>,
    },
    /// One of several Explore instances finished its queries.
    ExploreInstance {
        /// Generation.
        job: u64,
        /// That instance's false-positive rate.
        rate: f64,
    },
    /// A Compare row.
    CompareRow {
        /// Generation.
        job: u64,
        /// Index into `FilterKind::ALL`.
        idx: usize,
        /// Result.
        outcome: RowOutcome<CompareResult>,
    },
    /// A peer crate's row of Compare.
    PeerRow {
        /// Generation.
        job: u64,
        /// Index into `results::PEERS`.
        idx: usize,
        /// Result.
        outcome: RowOutcome<PeerResult>,
    },
    /// A Hashes cell.
    HashRow {
        /// Generation.
        job: u64,
        /// Index into the hash × strategy list.
        idx: usize,
        /// Result.
        outcome: RowOutcome<HashResult>,
    },
    /// A job finished (normally or with an error).
    Finished {
        /// Which job.
        slot: Slot,
        /// Generation.
        job: u64,
        /// `None` when complete, else why it stopped.
        stopped: Option<String>,
    },
    /// The exact FPR for (m, n, k).
    Exact {
        /// Bits.
        m: u64,
        /// Items.
        n: u64,
        /// Hashes.
        k: u32,
        /// Value.
        value: f64,
    },
    /// The memory of a spec, sized off the UI thread (large filters).
    Footprint {
        /// The spec sized.
        spec: FilterSpec,
        /// Its memory, or why it is not known.
        footprint: Result<Footprint, String>,
    },
}

/// Measure the Explore settings.
#[derive(Debug, Clone, PartialEq)]
pub struct ExploreJob {
    /// Generation.
    pub job: u64,
    /// The filter, sized by its kind's own rule (m and k only where the user set them).
    pub spec: FilterSpec,
    /// Independently seeded filters to build and query (`target_queries` split among them).
    pub instances: u32,
    /// Key kind.
    pub keys: KeyKind,
    /// Seed of the key generator.
    pub key_seed: u64,
    /// Stop querying after this many absent keys.
    pub target_queries: u64,
    /// Stop querying after this long.
    pub time_budget: Duration,
    /// Regions in the fill map.
    pub regions: usize,
}

/// Measure every filter kind.
#[derive(Debug, Clone, PartialEq)]
pub struct CompareJob {
    /// Generation.
    pub job: u64,
    /// Base spec (n, p, hash, strategy); `kind` is replaced per row.
    pub base: FilterSpec,
    /// Rows still to measure: (index into `FilterKind::ALL`, kind).
    pub rows: Vec<(usize, FilterKind)>,
    /// Key kind.
    pub keys: KeyKind,
    /// Absent keys per kind.
    pub queries: u64,
    /// Key seed.
    pub key_seed: u64,
    /// Peer rows still to measure (indices into `results::PEERS`), after the kinds.
    pub peers: Vec<usize>,
}

/// Measure every hash × strategy on one key kind.
#[derive(Debug, Clone, PartialEq)]
pub struct HashesJob {
    /// Generation.
    pub job: u64,
    /// Items.
    pub n: u64,
    /// Target rate (sizes the filter).
    pub p: f64,
    /// Key kind.
    pub keys: KeyKind,
    /// Cells still to measure: (index, hash, strategy).
    pub cells: Vec<(usize, HashId, StrategyId)>,
    /// Absent keys per cell.
    pub queries: u64,
    /// Histogram bins.
    pub bins: usize,
    /// Key seed.
    pub key_seed: u64,
}

/// What `update` asks the runtime to do.
#[derive(Debug, Clone, PartialEq)]
pub enum Cmd {
    /// Start (replacing any running one) the Explore measurement.
    StartExplore(ExploreJob),
    /// Start the Compare measurements.
    StartCompare(CompareJob),
    /// Start the Hashes measurements.
    StartHashes(HashesJob),
    /// Stop a job.
    Cancel(Slot),
    /// Size a spec (build it empty) in the background.
    Footprint(FilterSpec),
    /// Compute the exact FPR in the background.
    Exact {
        /// Bits.
        m: u64,
        /// Items.
        n: u64,
        /// Hashes.
        k: u32,
    },
}
