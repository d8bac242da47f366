//! One measurement: build a filter, insert n keys, query absent keys, report FPR with its 95%
//! interval against theory, false negatives, bytes and time per operation.

use crate::error::{Error, Param, Result};
use crate::filter::Filter;
use crate::hash::{IndexStrategy, ItemHasher, mix64};
use crate::registry::AnyFilter;
use crate::spec::FilterSpec;
use crate::stats;
use crate::theory;
use crate::workload::{KeyChunk, KeyGen, KeyKind};
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

/// Keys are generated in chunks of this many, outside the timed region.
const CHUNK: u64 = 16_384;

/// Keys per timed batch: each batch is one call of [`AnyFilter::count_present`] or
/// [`AnyFilter::insert_many`], dispatched once on the kind and looping inside the concrete type.
pub const TIMING_BATCH: usize = 1_000;

/// The fewest timing samples a query pass gives: when a trial has fewer chunks, the first
/// trial's query chunks are timed again (same keys, same answers) until it has this many.
pub const TIMING_REPEATS: u32 = 5;

/// Which code path [`measure`] times (reported as [`Timing::path`]).
pub const TIMING_PATH: &str = "dynamic (AnyFilter), batched 1000";

/// Time per key of one operation over its timing samples (one sample = one chunk of up to
/// 16,384 keys, in batches of [`TIMING_BATCH`]).
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct TimingStats {
    /// Median ns per key.
    pub median: f64,
    /// Fastest sample, ns per key.
    pub min: f64,
    /// Slowest sample, ns per key.
    pub max: f64,
    /// How many samples.
    pub samples: usize,
}

impl TimingStats {
    fn of(mut v: Vec<f64>) -> Option<Self> {
        if v.is_empty() {
            return None;
        }
        v.sort_by(f64::total_cmp);
        let n = v.len();
        let median = if n % 2 == 1 {
            v[n / 2]
        } else {
            f64::midpoint(v[n / 2 - 1], v[n / 2])
        };
        Some(Self {
            median,
            min: v[0],
            max: v[n - 1],
            samples: n,
        })
    }
}

/// How the times were taken, and their spread.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct Timing {
    /// The code path timed: [`TIMING_PATH`].
    pub path: String,
    /// Keys per timed call.
    pub batch: usize,
    /// Inserts (absent for a static-set kind, whose construction is timed whole).
    pub insert: Option<TimingStats>,
    /// Queries of absent keys.
    pub query: Option<TimingStats>,
    /// Queries of present keys, when checked.
    pub query_hit: Option<TimingStats>,
    /// Queries of absent keys through the bulk query (`contains_many`), first trial.
    pub query_bulk: Option<TimingStats>,
    /// Queries of present keys through the bulk query, when checked; first trial.
    pub query_hit_bulk: Option<TimingStats>,
}

/// Time the bulk query, [`AnyFilter::contains_many_into`], over `items` in batches of
/// [`TIMING_BATCH`] (into `out`); returns (elapsed, how many answered maybe-present).
fn timed_bulk(f: &AnyFilter, items: &[&[u8]], out: &mut Vec<bool>) -> (Duration, u64) {
    out.clear();
    out.resize(TIMING_BATCH, false);
    let start = Instant::now();
    let mut c = 0u64;
    for b in items.chunks(TIMING_BATCH) {
        let o = &mut out[..b.len()];
        f.contains_many_into(b, o);
        c += o.iter().map(|&x| u64::from(x)).sum::<u64>();
    }
    (start.elapsed(), c)
}

/// Time `count_present` over `items` in batches; returns (elapsed, count).
fn timed_count(f: &AnyFilter, items: &[&[u8]]) -> (Duration, u64) {
    let start = Instant::now();
    let mut c = 0u64;
    for b in items.chunks(TIMING_BATCH) {
        c += f.count_present(b);
    }
    (start.elapsed(), c)
}

fn per_key(d: Duration, keys: usize) -> f64 {
    d.as_nanos() as f64 / keys.max(1) as f64
}

/// What to measure.
#[derive(Debug, Clone, PartialEq)]
pub struct MeasureConfig {
    /// The filter.
    pub spec: FilterSpec,
    /// Key kind.
    pub keys: KeyKind,
    /// Items to insert (default: the spec's capacity `n`).
    pub inserted: Option<u64>,
    /// Absent keys to query per trial.
    pub queries: u64,
    /// Independently seeded filters to average over.
    pub trials: u32,
    /// Master seed: keys and hash seeds of every trial derive from it.
    pub seed: u64,
    /// Check every inserted key afterwards (counts false negatives, times hits).
    pub check_hits: bool,
}

/// The most absent keys one trial queries: 10^10 (minutes at tens of nanoseconds a query).
pub const MAX_QUERIES: u64 = 10_000_000_000;

/// The most key operations one measurement does, `trials × (inserts + queries + hit checks)`,
/// computed in checked arithmetic: 10^11 (about an hour at tens of nanoseconds each).
pub const MAX_WORK: u64 = 100_000_000_000;

impl MeasureConfig {
    /// Refuse a measurement too large to finish ([`MAX_QUERIES`], [`MAX_WORK`]) before any work.
    ///
    /// # Errors
    /// [`Error::InvalidParameter`] naming queries or trials.
    pub fn check_work(&self) -> Result<u64> {
        if self.queries > MAX_QUERIES {
            return Err(Error::invalid(
                Param::Queries,
                self.queries,
                "at most 10^10 absent keys per trial",
            ));
        }
        let n = self.inserted.unwrap_or(self.spec.n);
        let hits = if self.check_hits { n } else { 0 };
        n.checked_add(self.queries)
            .and_then(|w| w.checked_add(hits))
            .and_then(|w| w.checked_mul(u64::from(self.trials)))
            .filter(|&w| w <= MAX_WORK)
            .ok_or_else(|| {
                Error::invalid(
                    Param::Trials,
                    format!(
                        "{} trials × ({n} inserts + {} queries{})",
                        self.trials,
                        self.queries,
                        if self.check_hits {
                            " + as many hit checks"
                        } else {
                            ""
                        }
                    ),
                    "at most 10^11 key operations in all (fewer trials, queries or keys)",
                )
            })
    }

    /// A config with 100,000 queries, 1 trial, seed 1, hits checked.
    #[must_use]
    pub fn new(spec: FilterSpec, keys: KeyKind) -> Self {
        Self {
            spec,
            keys,
            inserted: None,
            queries: 100_000,
            trials: 1,
            seed: 1,
            check_hits: true,
        }
    }
}

/// Theory numbers reported beside a measurement.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct TheoryNumbers {
    /// `(1 − e^(−kn/m))^k`, where the filter has a single (m, k).
    pub classic: Option<f64>,
    /// The exact rate (Bose et al. 2008), where the filter has a single (m, k).
    pub exact: Option<f64>,
    /// The filter's own model ([`Filter::expected_fpr`]), averaged over trials.
    pub model: f64,
}

/// The result (the fields of `bloomlab measure --json`).
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct Measurement {
    /// Filter name.
    pub filter: String,
    /// Hash name.
    pub hash: String,
    /// Strategy name (null where the filter has none).
    pub strategy: Option<String>,
    /// Key kind.
    pub keys: String,
    /// Items inserted per trial.
    pub n: u64,
    /// Filter payload bits.
    pub m_bits: u64,
    /// Hash positions per item.
    pub k: u32,
    /// Heap bytes of one filter.
    pub bytes: usize,
    /// Bits of heap per inserted item.
    pub bits_per_key: f64,
    /// Absent keys queried in total (all trials).
    pub queries: u64,
    /// Of those, answered "maybe present".
    pub false_positives: u64,
    /// Mean false-positive rate.
    pub fpr: f64,
    /// 95% interval for the FPR.
    pub fpr_ci95: [f64; 2],
    /// How the interval was computed: `wilson` (one trial) or `mean-of-trials-t` (several: Student's t over the per-trial rates).
    pub ci_method: String,
    /// Theory.
    pub theory: TheoryNumbers,
    /// Inserted keys answered "absent" (must be 0).
    pub false_negatives: u64,
    /// Mean time per insert (ns), including hashing; for a static-set kind (xor), the
    /// construction from the whole key set, per key.
    pub ns_per_insert: f64,
    /// Mean time per query of an absent key (ns).
    pub ns_per_query: f64,
    /// Mean time per query of a present key (ns), when checked.
    pub ns_per_query_hit: Option<f64>,
    /// Mean time per query of an absent key through the bulk query
    /// ([`AnyFilter::contains_many`]: hashed a chunk ahead, lines prefetched, in filters of 1 MiB
    /// and more), over the first trial's queries (ns).
    pub ns_per_query_bulk: f64,
    /// The same for present keys, when checked (ns).
    pub ns_per_query_hit_bulk: Option<f64>,
    /// Chunks of keys (first trial) whose bulk answers counted differently from the single
    /// queries' (must be 0).
    pub bulk_disagreements: u64,
    /// Trials.
    pub trials: u32,
    /// Master seed.
    pub seed: u64,
    /// Inserts refused (cuckoo or non-scaling filters that filled up), all trials.
    pub insert_failures: u64,
    /// Filter-specific facts of the last trial.
    pub details: Vec<(String, String)>,
    /// The path timed and the spread of the times (median, min–max).
    pub timing: Timing,
}

/// Progress and cancellation hooks.
#[derive(Default)]
pub struct Control<'a> {
    /// Called with the fraction done, 0..=1.
    pub progress: Option<&'a (dyn Fn(f64) + Sync)>,
    /// When set to true, the measurement stops with [`Error::Cancelled`].
    pub cancel: Option<&'a AtomicBool>,
}

impl std::fmt::Debug for Control<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Control").finish_non_exhaustive()
    }
}

impl Control<'_> {
    fn check(&self, done: f64) -> Result<()> {
        if let Some(p) = self.progress {
            p(done);
        }
        if self.cancel.is_some_and(|c| c.load(Ordering::Relaxed)) {
            return Err(Error::Cancelled);
        }
        Ok(())
    }
}

/// Run a measurement.
///
/// # Errors
/// Invalid parameters; allocation failure; [`Error::Cancelled`].
pub fn measure(cfg: &MeasureConfig, ctl: &Control<'_>) -> Result<Measurement> {
    if cfg.trials == 0 {
        return Err(Error::invalid(Param::Trials, 0, "an integer >= 1"));
    }
    let n = cfg.inserted.unwrap_or(cfg.spec.n);
    KeyGen::check_n(n)?;
    let trials = u64::from(cfg.trials);
    let total_work = cfg.check_work()?.max(1) as f64;
    let mut done = 0u64;

    let mut rates = Vec::with_capacity(cfg.trials as usize);
    let (mut fp, mut fneg, mut fails) = (0u64, 0u64, 0u64);
    let (mut t_ins, mut t_q, mut t_hit) = (Duration::ZERO, Duration::ZERO, Duration::ZERO);
    let mut model_sum = 0.0;
    let mut last: Option<AnyFilter> = None;
    let mut chunk = KeyChunk::default();
    let (mut s_ins, mut s_q, mut s_hit) = (Vec::new(), Vec::new(), Vec::new());
    // The bulk query, timed on the first trial's chunks beside the single queries.
    let (mut s_qb, mut s_hitb, mut answers) = (Vec::new(), Vec::new(), Vec::new());
    let (mut t_qb, mut t_hitb, mut n_qb, mut n_hitb) = (Duration::ZERO, Duration::ZERO, 0u64, 0u64);
    let mut disagree = 0u64;
    // Re-timings of each query chunk in the first trial, for at least TIMING_REPEATS samples.
    let reps_for = |count: u64| -> u32 {
        let chunks = u32::try_from(count.div_ceil(CHUNK))
            .unwrap_or(u32::MAX)
            .max(1);
        TIMING_REPEATS.div_ceil(chunks).max(1)
    };

    for t in 0..trials {
        let tseed = if trials == 1 {
            cfg.seed
        } else {
            mix64(cfg.seed.wrapping_add(t))
        };
        let spec = FilterSpec {
            seed: if trials == 1 {
                cfg.spec.seed
            } else {
                cfg.spec.seed ^ tseed
            },
            ..cfg.spec.clone()
        };
        let keygen = KeyGen::new(cfg.keys, tseed);
        // A static set (xor) is built from all its keys at once: they are generated first,
        // untimed, and the construction is timed as the inserts.
        let is_static = spec.kind.caps().static_set;
        let mut f = if is_static {
            chunk.try_fill(&keygen, 0, n, false)?;
            let start = Instant::now();
            let f = spec.build_from(chunk.iter())?;
            t_ins += start.elapsed();
            done += n;
            ctl.check(done as f64 / total_work)?;
            f
        } else {
            spec.build()?
        };

        let mut i = if is_static { n } else { 0 };
        while i < n {
            let end = (i + CHUNK).min(n);
            chunk.fill(&keygen, i, end, false);
            let items: Vec<&[u8]> = chunk.iter().collect();
            let start = Instant::now();
            for b in items.chunks(TIMING_BATCH) {
                fails += f.insert_many(b);
            }
            let d = start.elapsed();
            t_ins += d;
            s_ins.push(per_key(d, items.len()));
            done += end - i;
            i = end;
            ctl.check(done as f64 / total_work)?;
        }

        let mut trial_fp = 0u64;
        let mut j = 0;
        while j < cfg.queries {
            let end = (j + CHUNK).min(cfg.queries);
            chunk.fill(&keygen, j, end, true);
            let items: Vec<&[u8]> = chunk.iter().collect();
            let (d, hits) = timed_count(&f, &items);
            t_q += d;
            s_q.push(per_key(d, items.len()));
            if t == 0 {
                for _ in 1..reps_for(cfg.queries) {
                    s_q.push(per_key(timed_count(&f, &items).0, items.len()));
                }
                for _ in 0..reps_for(cfg.queries) {
                    let (d, c) = timed_bulk(&f, &items, &mut answers);
                    s_qb.push(per_key(d, items.len()));
                    (t_qb, n_qb) = (t_qb + d, n_qb + items.len() as u64);
                    disagree += u64::from(c != hits);
                }
            }
            trial_fp += hits;
            done += end - j;
            j = end;
            ctl.check(done as f64 / total_work)?;
        }
        fp += trial_fp;
        if cfg.queries > 0 {
            rates.push(trial_fp as f64 / cfg.queries as f64);
        }

        if cfg.check_hits {
            let mut i = 0;
            while i < n {
                let end = (i + CHUNK).min(n);
                chunk.fill(&keygen, i, end, false);
                let items: Vec<&[u8]> = chunk.iter().collect();
                let (d, found) = timed_count(&f, &items);
                t_hit += d;
                s_hit.push(per_key(d, items.len()));
                if t == 0 {
                    for _ in 1..reps_for(n) {
                        s_hit.push(per_key(timed_count(&f, &items).0, items.len()));
                    }
                    for _ in 0..reps_for(n) {
                        let (d, c) = timed_bulk(&f, &items, &mut answers);
                        s_hitb.push(per_key(d, items.len()));
                        (t_hitb, n_hitb) = (t_hitb + d, n_hitb + items.len() as u64);
                        disagree += u64::from(c != found);
                    }
                }
                // Keys whose insert was refused (a full filter) are not expected to be found.
                fneg += (end - i) - found.min(end - i);
                done += end - i;
                i = end;
                ctl.check(done as f64 / total_work)?;
            }
        }
        model_sum += f.expected_fpr();
        last = Some(f);
    }
    // Refused inserts are reported separately; do not count them as false negatives.
    let fneg = fneg.saturating_sub(fails);

    let f = last.ok_or(Error::invalid(Param::Trials, 0, "an integer >= 1"))?;
    let total_q = trials * cfg.queries;
    let fpr = if total_q == 0 {
        0.0
    } else {
        fp as f64 / total_q as f64
    };
    let (ci, method) = if trials >= 2 {
        let (_, lo, hi) = stats::mean_ci95(&rates);
        ([lo, hi], "mean-of-trials-t")
    } else {
        let (lo, hi) = stats::wilson(fp, total_q, stats::Z95);
        ([lo, hi], "wilson")
    };
    let (classic, exact) = match f.classic_params() {
        Some((m, k)) => (
            Some(theory::fpr_classic(m, n, k)),
            Some(theory::fpr_exact(m, n, k)),
        ),
        None => (None, None),
    };
    let per = |d: Duration, count: u64| {
        if count == 0 {
            0.0
        } else {
            d.as_nanos() as f64 / count as f64
        }
    };
    Ok(Measurement {
        filter: f.kind().name().to_string(),
        hash: f.hash_id().name().to_string(),
        strategy: f.strategy_id().map(|s| s.name().to_string()),
        keys: cfg.keys.name().to_string(),
        n,
        m_bits: f.bits(),
        k: f.k(),
        bytes: f.bytes(),
        bits_per_key: if n == 0 {
            0.0
        } else {
            f.bytes() as f64 * 8.0 / n as f64
        },
        queries: total_q,
        false_positives: fp,
        fpr,
        fpr_ci95: ci,
        ci_method: method.to_string(),
        theory: TheoryNumbers {
            classic,
            exact,
            model: model_sum / trials as f64,
        },
        false_negatives: fneg,
        ns_per_insert: per(t_ins, trials * n),
        ns_per_query: per(t_q, total_q),
        ns_per_query_hit: cfg.check_hits.then(|| per(t_hit, trials * n)),
        ns_per_query_bulk: per(t_qb, n_qb),
        ns_per_query_hit_bulk: cfg.check_hits.then(|| per(t_hitb, n_hitb)),
        bulk_disagreements: disagree,
        trials: cfg.trials,
        seed: cfg.seed,
        insert_failures: fails,
        details: f.details(),
        timing: Timing {
            path: TIMING_PATH.to_string(),
            batch: TIMING_BATCH,
            insert: TimingStats::of(s_ins),
            query: TimingStats::of(s_q),
            query_hit: TimingStats::of(s_hit),
            query_bulk: TimingStats::of(s_qb),
            query_hit_bulk: TimingStats::of(s_hitb),
        },
    })
}

// ---------------------------------------------------------------------------------------------
// Baselines and position statistics shared by the experiments, the CLI and the TUI

/// Group width of std's hash table (hashbrown): 16 with SSE2 (x86, x86-64), 8 elsewhere.
const GROUP_WIDTH: usize = if cfg!(any(target_arch = "x86", target_arch = "x86_64")) {
    16
} else {
    8
};

/// Buckets of a `HashSet` grown by inserting `n` items one at a time: the smallest power of two
/// (≥ 4) whose capacity (b − 1 up to 8 buckets, 7/8·b above) holds n (hashbrown's
/// `capacity_to_buckets` / `bucket_mask_to_capacity`).
#[must_use]
pub fn hashset_buckets(n: u64) -> u64 {
    if n == 0 {
        return 0;
    }
    let mut b = 4u64;
    loop {
        let cap = if b <= 8 { b - 1 } else { b / 8 * 7 };
        if cap >= n {
            return b;
        }
        b *= 2;
    }
}

/// Heap bytes of the table of a `HashSet<T>` with `size_of::<T>() = size` holding n items:
/// `round_up(b·size, GROUP_WIDTH) + b + GROUP_WIDTH` (hashbrown's `TableLayout`: data, then one
/// control byte per bucket plus one trailing group). A model; the memory experiment checks it
/// against the counting allocator (`tests/alloc_count.rs` too). A `HashSet<u64>` is
/// `hashset_table_bytes(n, 8)`.
#[must_use]
pub fn hashset_table_bytes(n: u64, size: usize) -> u64 {
    let b = hashset_buckets(n) as usize;
    if b == 0 {
        return 0;
    }
    let align = GROUP_WIDTH.max(8);
    ((b * size).div_ceil(align) * align + b + GROUP_WIDTH) as u64
}

/// Counts of hash positions in `bins` equal ranges of `[0, m)`: the picture behind the
/// uniformity test ([`stats::chi_square_uniform`] of [`PositionHistogram::counts`]). Position
/// `x` falls in bin `⌊x·bins/m⌋`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PositionHistogram {
    m: u64,
    counts: Vec<u64>,
}

impl PositionHistogram {
    /// Empty, for positions in `[0, m)` (`bins` and `m` at least 1).
    #[must_use]
    pub fn new(m: u64, bins: usize) -> Self {
        Self {
            m: m.max(1),
            counts: vec![0; bins.max(1)],
        }
    }

    /// Count one position (a position ≥ m goes in the last bin).
    pub fn add(&mut self, x: u64) {
        let last = self.counts.len() - 1;
        let bin = (u128::from(x) * self.counts.len() as u128 / u128::from(self.m)) as usize;
        self.counts[bin.min(last)] += 1;
    }

    /// Count the k positions `strategy` gives `item`.
    pub fn add_item<S: IndexStrategy, H: ItemHasher>(
        &mut self,
        strategy: &S,
        hasher: &H,
        item: &[u8],
        k: u32,
    ) {
        strategy.for_each_index(hasher, item, k, self.m, |x| {
            self.add(x);
            true
        });
    }

    /// The counts, bin 0 first.
    #[must_use]
    pub fn counts(&self) -> &[u64] {
        &self.counts
    }

    /// The counts, by value.
    #[must_use]
    pub fn into_counts(self) -> Vec<u64> {
        self.counts
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::filter::FilterKind;

    #[test]
    fn model_inside_interval_and_no_false_negatives() {
        let spec = FilterSpec::new(FilterKind::Standard, 20_000, 0.01);
        let mut cfg = MeasureConfig::new(spec, KeyKind::U64);
        cfg.queries = 200_000;
        let r = measure(&cfg, &Control::default()).unwrap();
        assert_eq!(r.false_negatives, 0);
        assert!(
            r.fpr_ci95[0] <= r.theory.model && r.theory.model <= r.fpr_ci95[1],
            "{r:?}"
        );
        assert_eq!(r.queries, 200_000);
    }

    /// The bulk query is timed beside the single one, on the first trial's keys, and counts
    /// what they count: in cache (10^3 keys) and past 1 MiB (a counting filter of 3·10^5
    /// keys, 1.4 MB of counters: the prefetched path).
    #[test]
    fn bulk_queries_are_timed_and_agree() {
        for (kind, n) in [
            (FilterKind::Standard, 1_000),
            (FilterKind::Counting, 300_000),
        ] {
            let mut cfg = MeasureConfig::new(FilterSpec::new(kind, n, 0.01), KeyKind::U64);
            (cfg.queries, cfg.trials, cfg.check_hits) = (40_000, 2, true);
            let r = measure(&cfg, &Control::default()).unwrap();
            assert!(
                kind == FilterKind::Standard || r.bytes >= 1 << 20,
                "{}",
                r.bytes
            );
            assert_eq!(r.bulk_disagreements, 0, "{kind}");
            assert!(r.ns_per_query_bulk > 0.0, "{kind}");
            assert!(r.ns_per_query_hit_bulk.is_some_and(|t| t > 0.0), "{kind}");
            let (q, h) = (
                r.timing.query_bulk.unwrap(),
                r.timing.query_hit_bulk.unwrap(),
            );
            assert!(q.samples >= TIMING_REPEATS as usize, "{kind}: {q:?}");
            assert!(h.samples >= TIMING_REPEATS as usize, "{kind}: {h:?}");
            assert!(q.min <= q.median && q.median <= q.max, "{kind}: {q:?}");
        }
    }

    #[test]
    fn timing_reports_its_path_and_a_spread() {
        let spec = FilterSpec::new(FilterKind::Standard, 1_000, 0.01);
        let mut cfg = MeasureConfig::new(spec, KeyKind::U64);
        cfg.queries = 40_000; // 3 chunks: re-timed to reach 5 samples or more
        let r = measure(&cfg, &Control::default()).unwrap();
        let t = &r.timing;
        assert_eq!((t.path.as_str(), t.batch), (TIMING_PATH, TIMING_BATCH));
        let q = t.query.as_ref().unwrap();
        assert_eq!(q.samples, 6, "3 chunks timed twice each");
        assert!(q.min <= q.median && q.median <= q.max, "{q:?}");
        let h = t.query_hit.as_ref().unwrap();
        assert_eq!(h.samples, TIMING_REPEATS as usize, "1 chunk timed 5 times");
        assert_eq!(t.insert.as_ref().unwrap().samples, 1);
        assert_eq!(r.false_negatives, 0);
        let s = TimingStats::of(vec![3.0, 1.0, 2.0, 10.0]).unwrap();
        assert_eq!((s.median, s.min, s.max, s.samples), (2.5, 1.0, 10.0, 4));
        assert_eq!(TimingStats::of(Vec::new()), None);
    }

    #[test]
    fn static_kinds_are_built_from_their_keys() {
        let spec = FilterSpec::new(FilterKind::Xor, 20_000, 0.004);
        let mut cfg = MeasureConfig::new(spec, KeyKind::U64);
        cfg.queries = 200_000;
        let r = measure(&cfg, &Control::default()).unwrap();
        assert_eq!((r.false_negatives, r.insert_failures, r.k), (0, 0, 3));
        assert_eq!(r.theory.model, 1.0 / 256.0);
        assert!(
            r.fpr_ci95[0] <= r.theory.model && r.theory.model <= r.fpr_ci95[1],
            "{r:?}"
        );
        assert!((r.bits_per_key / (1.23 * 8.0) - 1.0).abs() < 0.02, "{r:?}");
    }

    #[test]
    fn cancel_stops() {
        let cancel = AtomicBool::new(true);
        let cfg = MeasureConfig::new(
            FilterSpec::new(FilterKind::Standard, 10_000, 0.01),
            KeyKind::U64,
        );
        let ctl = Control {
            progress: None,
            cancel: Some(&cancel),
        };
        assert_eq!(measure(&cfg, &ctl).unwrap_err(), Error::Cancelled);
    }

    #[test]
    fn hashset_bucket_model() {
        assert_eq!(hashset_buckets(0), 0);
        assert_eq!(hashset_buckets(3), 4);
        assert_eq!(hashset_buckets(4), 8);
        assert_eq!(hashset_buckets(7), 8);
        assert_eq!(hashset_buckets(8), 16);
        assert_eq!(hashset_buckets(14), 16);
        assert_eq!(hashset_buckets(15), 32);
        assert_eq!(hashset_buckets(1_000_000), 1 << 21);
        assert_eq!(hashset_buckets(917_504), 1 << 20); // exactly 7/8 of 2^20
        // 2^21 buckets of an 8-byte slot and a control byte, plus one trailing group.
        assert_eq!(
            hashset_table_bytes(1_000_000, 8),
            (1 << 21) * 9 + GROUP_WIDTH as u64
        );
        assert_eq!(hashset_table_bytes(0, 8), 0);
    }

    #[test]
    fn positions_fall_in_their_bins() {
        let mut h = PositionHistogram::new(100, 4);
        for x in [0, 24, 25, 49, 50, 99, 100, 1000] {
            h.add(x);
        }
        assert_eq!(h.counts(), &[2, 2, 1, 3]);
        let mut h = PositionHistogram::new(1 << 20, 16);
        let hasher = crate::hash::AnyHasher::new(crate::hash::HashId::Xxh3, 1);
        let strategy = crate::hash::AnyStrategy(crate::hash::StrategyId::EnhancedDouble);
        for i in 0u64..1000 {
            h.add_item(&strategy, &hasher, &i.to_le_bytes(), 7);
        }
        assert_eq!(h.counts().iter().sum::<u64>(), 7000);
        let (_, p) = stats::chi_square_uniform(h.counts());
        assert!(p > 1e-4, "{:?}", h.counts());
    }

    #[test]
    fn zero_trials_refused() {
        let mut cfg = MeasureConfig::new(FilterSpec::default(), KeyKind::U64);
        cfg.trials = 0;
        assert!(measure(&cfg, &Control::default()).is_err());
    }
}
