//! Background measurement. One thread per running job (at most one measurement at a time, see
//! `update::pause_others`) plus one thread for exact-FPR computations. Jobs check their cancel
//! flag every chunk of keys and report through a channel; the UI never waits for them.

use std::collections::HashMap;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::{Receiver, Sender, channel};
use std::sync::{Arc, Mutex};
use std::thread;
use std::time::{Duration, Instant};

use bloomlab::bits::BitVec;
use bloomlab::hash::AnyStrategy;
use bloomlab::measure::{Control, MeasureConfig, PositionHistogram, measure};
use bloomlab::workload::{KeyChunk, KeyGen};
use bloomlab::{AnyFilter, Error, Filter, FilterKind, FilterSpec, stats, theory};

use super::msg::{Cmd, CompareJob, ExploreJob, HashesJob, Slot, WorkerEvent};
use super::results::{CompareResult, FillMap, HashResult, RowOutcome, timing_stats};
use super::sizing::{self, MAX_BUILD_BITS};

/// Keys per chunk (generated outside the timed loops, as `measure` does).
const CHUNK: u64 = 16_384;
/// Least time between two progress reports of one job.
const REPORT_EVERY: Duration = Duration::from_millis(40);
/// A new Explore job waits this long before working, so holding a key down does not start
/// (and cancel) dozens of filters.
const DEBOUNCE: Duration = Duration::from_millis(120);

/// Name of the measurement threads (the panic hook leaves the terminal alone for them: their
/// panics are caught and reported on screen).
pub const WORKER_THREAD: &str = "bloomlab-worker";

/// Runs the commands `update` returns.
#[derive(Debug)]
pub struct Runtime {
    tx: Sender<WorkerEvent>,
    cancels: HashMap<Slot, Arc<AtomicBool>>,
    exact_tx: Sender<(u64, u64, u32)>,
}

impl Runtime {
    /// A runtime reporting to `tx`.
    pub fn new(tx: Sender<WorkerEvent>) -> Self {
        let (exact_tx, exact_rx) = channel::<(u64, u64, u32)>();
        let etx = tx.clone();
        thread::spawn(move || exact_thread(&exact_rx, &etx));
        Self {
            tx,
            cancels: HashMap::new(),
            exact_tx,
        }
    }

    /// Run commands.
    pub fn exec(&mut self, cmds: Vec<Cmd>) {
        for c in cmds {
            match c {
                Cmd::Cancel(slot) => self.cancel(slot),
                Cmd::Exact { m, n, k } => {
                    // The exact thread only ends when the runtime is dropped.
                    let _ = self.exact_tx.send((m, n, k));
                }
                Cmd::Footprint(spec) => {
                    let tx = self.tx.clone();
                    // One short-lived thread per large spec; stale answers are ignored by update.
                    thread::spawn(move || {
                        let footprint = sizing::footprint(&spec, MAX_BUILD_BITS);
                        let _ = tx.send(WorkerEvent::Footprint { spec, footprint });
                    });
                }
                Cmd::StartExplore(job) => {
                    let id = job.job;
                    self.spawn(Slot::Explore, id, move |cancel, tx| {
                        run_explore(&job, cancel, tx)
                    });
                }
                Cmd::StartCompare(job) => {
                    let id = job.job;
                    self.spawn(Slot::Compare, id, move |cancel, tx| {
                        run_compare(&job, cancel, tx)
                    });
                }
                Cmd::StartHashes(job) => {
                    let id = job.job;
                    self.spawn(Slot::Hashes, id, move |cancel, tx| {
                        run_hashes(&job, cancel, tx)
                    });
                }
            }
        }
    }

    fn cancel(&mut self, slot: Slot) {
        if let Some(c) = self.cancels.remove(&slot) {
            c.store(true, Ordering::Relaxed);
        }
    }

    fn spawn<F>(&mut self, slot: Slot, job: u64, f: F)
    where
        F: FnOnce(&AtomicBool, &Sender<WorkerEvent>) -> Result<Option<String>, Error>
            + Send
            + 'static,
    {
        self.cancel(slot);
        let cancel = Arc::new(AtomicBool::new(false));
        self.cancels.insert(slot, cancel.clone());
        let tx = self.tx.clone();
        let spawned = thread::Builder::new()
            .name(WORKER_THREAD.into())
            .spawn(move || {
                let run =
                    std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| f(&cancel, &tx)));
                let run = run.unwrap_or_else(|p| {
                    let what = p
                        .downcast_ref::<&str>()
                        .map(|s| (*s).to_string())
                        .or_else(|| p.downcast_ref::<String>().cloned())
                        .unwrap_or_default();
                    Ok(Some(format!("internal error (worker panicked: {what})")))
                });
                let stopped = match run {
                    Ok(why) => why,
                    Err(Error::Cancelled) => return,
                    Err(e) => Some(e.to_string()),
                };
                let _ = tx.send(WorkerEvent::Finished { slot, job, stopped });
            });
        if let Err(e) = spawned {
            let _ = self.tx.send(WorkerEvent::Finished {
                slot,
                job,
                stopped: Some(format!("cannot start a thread: {e}")),
            });
        }
    }

    /// Cancel every job (at quit).
    pub fn shutdown(&mut self) {
        for slot in [Slot::Explore, Slot::Compare, Slot::Hashes] {
            self.cancel(slot);
        }
    }
}

fn exact_thread(rx: &Receiver<(u64, u64, u32)>, tx: &Sender<WorkerEvent>) {
    while let Ok(mut req) = rx.recv() {
        // Only the latest request matters.
        while let Ok(r) = rx.try_recv() {
            req = r;
        }
        let (m, n, k) = req;
        let value = theory::fpr_exact(m, n, k);
        if tx.send(WorkerEvent::Exact { m, n, k, value }).is_err() {
            return;
        }
    }
}

/// Sends throttled progress reports.
struct Reporter<'a> {
    tx: &'a Sender<WorkerEvent>,
    slot: Slot,
    job: u64,
    last: Mutex<Option<Instant>>,
    /// Per-chunk ns per key of the inserts and of the queries so far (Explore's timings).
    samples: Mutex<(Vec<f64>, Vec<f64>)>,
}

impl<'a> Reporter<'a> {
    fn new(tx: &'a Sender<WorkerEvent>, slot: Slot, job: u64) -> Self {
        Self {
            tx,
            slot,
            job,
            last: Mutex::new(None),
            samples: Mutex::new((Vec::new(), Vec::new())),
        }
    }

    /// Record one timed chunk of `keys` operations (`query`: a query chunk, else inserts).
    fn sample(&self, query: bool, took: Duration, keys: u64) {
        if let Ok(mut s) = self.samples.lock() {
            let v = if query { &mut s.1 } else { &mut s.0 };
            v.push(took.as_nanos() as f64 / keys.max(1) as f64);
        }
    }

    /// Report the timings so far (median and range of the chunks).
    fn timing(&self) {
        let Ok(s) = self.samples.lock() else {
            return;
        };
        let _ = self.tx.send(WorkerEvent::ExploreTiming {
            job: self.job,
            insert: timing_stats(&s.0),
            query: timing_stats(&s.1),
        });
    }

    fn progress(&self, frac: f64, phase: &'static str) {
        let Ok(mut last) = self.last.lock() else {
            return;
        };
        if last.is_some_and(|t| t.elapsed() < REPORT_EVERY) {
            return;
        }
        *last = Some(Instant::now());
        let _ = self.tx.send(WorkerEvent::Progress {
            slot: self.slot,
            job: self.job,
            frac: frac.clamp(0.0, 1.0),
            phase,
        });
    }

    fn due(&self) -> bool {
        self.last
            .lock()
            .map(|l| l.is_none_or(|t| t.elapsed() >= REPORT_EVERY))
            .unwrap_or(true)
    }
}

fn check(cancel: &AtomicBool) -> Result<(), Error> {
    if cancel.load(Ordering::Relaxed) {
        Err(Error::Cancelled)
    } else {
        Ok(())
    }
}

/// Fraction of set bits in `regions` equal parts of `bits` (word-aligned parts when every part
/// spans at least one word, else bit by bit).
pub fn fill_map(bits: &BitVec, regions: usize) -> FillMap {
    let m = bits.len();
    let r = (regions as u64).clamp(1, m.max(1));
    let mut out = Vec::with_capacity(r as usize);
    let words = bits.words();
    let w = words.len() as u64;
    if m >= 64 * r {
        for i in 0..r {
            let (a, b) = (i * w / r, (i + 1) * w / r);
            let ones: u64 = words[a as usize..b as usize]
                .iter()
                .map(|x| u64::from(x.count_ones()))
                .sum();
            let span = (b * 64).min(m) - a * 64;
            out.push((ones, span));
        }
    } else {
        for i in 0..r {
            let (a, b) = (i * m / r, (i + 1) * m / r);
            let ones = (a..b).filter(|&j| bits.get(j)).count() as u64;
            out.push((ones, b - a));
        }
    }
    FillMap {
        m,
        regions: out,
        ones: bits.count_ones(),
    }
}

fn insert_all<F: Filter + ?Sized>(
    f: &mut F,
    keygen: &KeyGen,
    n: u64,
    total: f64,
    rep: &Reporter<'_>,
    cancel: &AtomicBool,
) -> Result<f64, Error> {
    let mut chunk = KeyChunk::default();
    let mut t = Duration::ZERO;
    let mut i = 0;
    while i < n {
        check(cancel)?;
        let end = (i + CHUNK).min(n);
        chunk.fill(keygen, i, end, false);
        let start = Instant::now();
        for key in chunk.iter() {
            f.try_insert(key)?;
        }
        let dt = start.elapsed();
        t += dt;
        rep.sample(false, dt, end - i);
        i = end;
        rep.progress(i as f64 / total, "inserting");
    }
    Ok(t.as_nanos() as f64 / n.max(1) as f64)
}

/// Query absent keys in chunks until `target` or the time budget, reporting cumulative counts.
fn query_loop<F: Filter + ?Sized>(
    f: &F,
    job: &ExploreJob,
    target: u64,
    keygen: &KeyGen,
    rep: &Reporter<'_>,
    cancel: &AtomicBool,
    tx: &Sender<WorkerEvent>,
) -> Result<Option<String>, Error> {
    let mut counts = (0, 0);
    query_counted(f, job, target, &mut counts, keygen, rep, cancel, tx)
}

/// [`query_loop`] adding to `counts` (queries, false positives) of earlier instances.
#[allow(
    clippy::too_many_arguments,
    reason = "the query loop's inputs; grouping them would only rename them"
)]
fn query_counted<F: Filter + ?Sized>(
    f: &F,
    job: &ExploreJob,
    target: u64,
    counts: &mut (u64, u64),
    keygen: &KeyGen,
    rep: &Reporter<'_>,
    cancel: &AtomicBool,
    tx: &Sender<WorkerEvent>,
) -> Result<Option<String>, Error> {
    let n = job.spec.n;
    let instances = u64::from(job.instances.max(1));
    let total = (n * instances + job.target_queries) as f64;
    let done_before = (counts.0 / target.max(1)) * n + n;
    let mut chunk = KeyChunk::default();
    let (q0, fp0) = *counts;
    let (mut q, mut fp) = (0u64, 0u64);
    let mut t = Duration::ZERO;
    let began = Instant::now();
    let send = |q: u64, fp: u64, t: Duration| {
        let _ = tx.send(WorkerEvent::ExplorePartial {
            job: job.job,
            queries: q0 + q,
            false_positives: fp0 + fp,
            ns_query: t.as_nanos() as f64 / q.max(1) as f64,
        });
    };
    while q < target {
        check(cancel)?;
        if began.elapsed() > job.time_budget {
            send(q, fp, t);
            rep.timing();
            *counts = (q0 + q, fp0 + fp);
            return Ok(Some(format!(
                "time budget of {} s reached before {} queries",
                job.time_budget.as_secs(),
                job.target_queries
            )));
        }
        let end = (q + CHUNK).min(target);
        chunk.fill(keygen, q, end, true);
        let start = Instant::now();
        let mut hits = 0u64;
        for key in chunk.iter() {
            hits += u64::from(f.contains(key));
        }
        let dt = start.elapsed();
        t += dt;
        rep.sample(true, dt, end - q);
        fp += hits;
        q = end;
        if rep.due() {
            send(q, fp, t);
            rep.timing();
        }
        rep.progress((done_before + q0 + q) as f64 / total, "querying");
    }
    send(q, fp, t);
    rep.timing();
    *counts = (q0 + q, fp0 + fp);
    Ok(None)
}

fn run_explore(
    job: &ExploreJob,
    cancel: &AtomicBool,
    tx: &Sender<WorkerEvent>,
) -> Result<Option<String>, Error> {
    let began = Instant::now();
    while began.elapsed() < DEBOUNCE {
        check(cancel)?;
        thread::sleep(Duration::from_millis(10));
    }
    let rep = Reporter::new(tx, Slot::Explore, job.job);
    rep.progress(0.0, "allocating");
    let keygen = KeyGen::new(job.keys, job.key_seed);
    let n = job.spec.n;
    KeyGen::check_n(n)?;
    let total = (n + job.target_queries) as f64;
    let built = |(f, ns): &(AnyFilter, f64)| {
        let _ = tx.send(WorkerEvent::ExploreBuilt {
            job: job.job,
            bits: f.bits(),
            bytes: f.bytes(),
            fill: f.bit_vec().map(|b| fill_map(b, job.regions)),
            ns_insert: *ns,
            model_fpr: f.expected_fpr(),
            details: f.details(),
        });
        rep.timing();
    };
    let instances = u64::from(job.instances.max(1));
    if instances == 1 {
        let f = build_instance(&job.spec, &keygen, total, &rep, cancel)?;
        built(&f);
        return query_loop(&f.0, job, job.target_queries, &keygen, &rep, cancel, tx);
    }
    // Several independently seeded filters (hash seed and keys), the queries split among
    // them; each instance's rate is reported, the counts are cumulative.
    let per = job.target_queries.div_ceil(instances);
    let (mut q, mut fp) = (0u64, 0u64);
    for t in 0..instances {
        let seed = bloomlab::hash::mix64(job.key_seed.wrapping_add(t));
        let spec = FilterSpec {
            seed: job.spec.seed ^ seed,
            ..job.spec.clone()
        };
        let keygen = KeyGen::new(job.keys, seed);
        let f = build_instance(&spec, &keygen, total, &rep, cancel)?;
        if t == 0 {
            built(&f);
        }
        let mut counts = (q, fp);
        let stopped = query_counted(&f.0, job, per, &mut counts, &keygen, &rep, cancel, tx)?;
        let rate = (counts.1 - fp) as f64 / (counts.0 - q).max(1) as f64;
        (q, fp) = counts;
        let _ = tx.send(WorkerEvent::ExploreInstance { job: job.job, rate });
        if stopped.is_some() {
            return Ok(stopped);
        }
    }
    Ok(None)
}

/// Build one filter of `spec` holding the first n keys of `keygen`, and its ns per insert.
fn build_instance(
    spec: &FilterSpec,
    keygen: &KeyGen,
    total: f64,
    rep: &Reporter<'_>,
    cancel: &AtomicBool,
) -> Result<(AnyFilter, f64), Error> {
    let n = spec.n;
    if spec.kind.caps().static_set {
        // A static set (xor) is built from all its keys at once.
        let mut keys = KeyChunk::default();
        keys.fill(keygen, 0, n, false);
        rep.progress(0.0, "building");
        let start = Instant::now();
        let f = spec.build_from(keys.iter())?;
        Ok((f, start.elapsed().as_nanos() as f64 / n.max(1) as f64))
    } else {
        let mut f = spec.build()?;
        let ns = insert_all(&mut f, keygen, n, total, rep, cancel)?;
        Ok((f, ns))
    }
}

fn outcome_of<T>(e: Error) -> Result<RowOutcome<T>, Error> {
    match e {
        Error::Cancelled => Err(Error::Cancelled),
        e => Ok(RowOutcome::Failed(e.to_string())),
    }
}

fn run_compare(
    job: &CompareJob,
    cancel: &AtomicBool,
    tx: &Sender<WorkerEvent>,
) -> Result<Option<String>, Error> {
    let rep = Reporter::new(tx, Slot::Compare, job.job);
    let rows = job.rows.len().max(1) as f64;
    for (i, (idx, kind)) in job.rows.iter().enumerate() {
        check(cancel)?;
        let spec = FilterSpec {
            kind: *kind,
            ..job.base.clone()
        };
        let cfg = MeasureConfig {
            queries: job.queries,
            seed: job.key_seed,
            ..MeasureConfig::new(spec.clone(), job.keys)
        };
        let progress = |f: f64| rep.progress((i as f64 + f) / rows, "measuring");
        let ctl = Control {
            progress: Some(&progress),
            cancel: Some(cancel),
        };
        let outcome = match measure(&cfg, &ctl) {
            Ok(m) => {
                let removable = FilterSpec { n: 64, ..spec }
                    .build()
                    .map(|mut f| f.as_removable().is_some())
                    .unwrap_or(false);
                RowOutcome::Done(CompareResult { m, removable })
            }
            Err(e) => outcome_of(e)?,
        };
        let _ = tx.send(WorkerEvent::CompareRow {
            job: job.job,
            idx: *idx,
            outcome,
        });
    }
    // The peer crates, in the same thread: the same keys (u64, this seed), the same queries.
    let n = job.base.n;
    let p = job.base.p.unwrap_or(0.01);
    for (j, &idx) in job.peers.iter().enumerate() {
        check(cancel)?;
        rep.progress(
            1.0 - (job.peers.len() - j) as f64 / (rows + job.peers.len() as f64),
            "peers",
        );
        #[cfg(feature = "peers")]
        let outcome =
            match super::peers::measure_peer(idx, n, p, job.queries, job.key_seed, &|| {
                cancel.load(Ordering::Relaxed)
            }) {
                Ok(r) => RowOutcome::Done(r),
                Err(_) if cancel.load(Ordering::Relaxed) => return Err(Error::Cancelled),
                Err(e) => RowOutcome::Failed(e),
            };
        #[cfg(not(feature = "peers"))]
        let outcome = {
            let _ = (n, p);
            RowOutcome::Failed("built without the peer crates (feature peers)".into())
        };
        let _ = tx.send(WorkerEvent::PeerRow {
            job: job.job,
            idx,
            outcome,
        });
    }
    Ok(None)
}

/// Count the k positions of the first `n` inserted keys in `bins` equal ranges of `[0, m)`.
pub(super) fn histogram(
    spec: &FilterSpec,
    keygen: &KeyGen,
    bins: usize,
    cancel: &AtomicBool,
) -> Result<Vec<u64>, Error> {
    // The plan sizes it, as the filter `measure` builds is sized (its cells are the bits).
    let plan = spec.plan()?;
    let strat = AnyStrategy(spec.strategy);
    let hasher = spec.hasher();
    let mut hist = PositionHistogram::new(plan.cells, bins);
    let mut buf = Vec::with_capacity(64);
    for i in 0..spec.n {
        if i % CHUNK == 0 {
            check(cancel)?;
        }
        keygen.present(i, &mut buf);
        hist.add_item(&strat, &hasher, &buf, plan.k);
    }
    Ok(hist.into_counts())
}

fn run_hashes(
    job: &HashesJob,
    cancel: &AtomicBool,
    tx: &Sender<WorkerEvent>,
) -> Result<Option<String>, Error> {
    let rep = Reporter::new(tx, Slot::Hashes, job.job);
    let cells = job.cells.len().max(1) as f64;
    // `measure` with one trial uses the master seed for the keys: the histogram sees the same keys.
    let keygen = KeyGen::new(job.keys, job.key_seed);
    for (i, (idx, hash, strategy)) in job.cells.iter().enumerate() {
        check(cancel)?;
        let spec = FilterSpec {
            kind: FilterKind::Standard,
            hash: *hash,
            strategy: *strategy,
            n: job.n,
            p: Some(job.p),
            ..FilterSpec::default()
        };
        let cfg = MeasureConfig {
            queries: job.queries,
            seed: job.key_seed,
            check_hits: false,
            ..MeasureConfig::new(spec.clone(), job.keys)
        };
        let progress = |f: f64| rep.progress((i as f64 + 0.8 * f) / cells, "measuring");
        let ctl = Control {
            progress: Some(&progress),
            cancel: Some(cancel),
        };
        let outcome = match measure(&cfg, &ctl).and_then(|m| {
            let hist = histogram(&spec, &keygen, job.bins, cancel)?;
            Ok((m, hist))
        }) {
            Ok((m, histogram)) => {
                let (chi2, chi2_p) = stats::chi_square_uniform(&histogram);
                RowOutcome::Done(HashResult {
                    m,
                    histogram,
                    chi2,
                    chi2_p,
                })
            }
            Err(e) => outcome_of(e)?,
        };
        let _ = tx.send(WorkerEvent::HashRow {
            job: job.job,
            idx: *idx,
            outcome,
        });
    }
    Ok(None)
}

#[cfg(test)]
mod tests {
    use super::*;
    use bloomlab::hash::{HashId, StrategyId};
    use bloomlab::workload::KeyKind;

    #[test]
    fn timing_stats_are_median_and_range() {
        assert_eq!(timing_stats(&[]), None);
        let t = timing_stats(&[5.0, 1.0, 9.0, 3.0]).unwrap();
        assert_eq!((t.median, t.min, t.max, t.samples), (4.0, 1.0, 9.0, 4));
        let t = timing_stats(&[2.0, 7.0, 3.0]).unwrap();
        assert_eq!((t.median, t.min, t.max), (3.0, 2.0, 7.0));
    }

    #[test]
    fn fill_map_counts_bits_per_region() {
        let mut b = BitVec::new(16).unwrap();
        for i in [0, 1, 2, 3, 8] {
            b.set(i);
        }
        let f = fill_map(&b, 4);
        assert_eq!(f.regions, vec![(4, 4), (0, 4), (1, 4), (0, 4)]);
        assert_eq!(f.ones, 5);
        let mut b = BitVec::new(64 * 8 + 10).unwrap();
        for i in 0..64 {
            b.set(i);
        }
        let f = fill_map(&b, 4);
        // 9 words in 4 regions of 2, 2, 2, 3 words (the last word holds only 10 bits).
        assert_eq!(f.regions[0], (64, 128));
        assert_eq!(f.regions[1..], [(0, 128), (0, 128), (0, 138)]);
    }

    fn collect(rx: &Receiver<WorkerEvent>, until: Duration) -> Vec<WorkerEvent> {
        let mut v = Vec::new();
        let end = Instant::now() + until;
        while let Ok(ev) = rx.recv_timeout(end.saturating_duration_since(Instant::now())) {
            let fin = matches!(ev, WorkerEvent::Finished { .. });
            v.push(ev);
            if fin {
                break;
            }
        }
        v
    }

    #[test]
    fn explore_job_reports_fill_partials_and_finishes() {
        let (tx, rx) = channel();
        let mut rt = Runtime::new(tx);
        let spec = FilterSpec {
            n: 2_000,
            m: Some(19_171),
            k: Some(7),
            ..FilterSpec::default()
        };
        rt.exec(vec![Cmd::StartExplore(ExploreJob {
            job: 5,
            instances: 1,
            spec,
            keys: KeyKind::U64,
            key_seed: 1,
            target_queries: 50_000,
            time_budget: Duration::from_secs(30),
            regions: 64,
        })]);
        let evs = collect(&rx, Duration::from_secs(60));
        let fill = evs.iter().find_map(|e| match e {
            WorkerEvent::ExploreBuilt { fill, bits, .. } => Some((fill.clone(), *bits)),
            _ => None,
        });
        let (Some(fill), bits) = fill.expect("built") else {
            panic!("no fill map")
        };
        assert_eq!(bits, 19_171);
        assert_eq!(fill.regions.len(), 64);
        // 2,000 keys × 7 bits into 19,171: expected fill 1 − e^(−kn/m) ≈ 0.518.
        let frac = fill.ones as f64 / 19_171.0;
        assert!(
            (frac - theory::expected_fill(19_171, 2_000, 7)).abs() < 0.02,
            "{frac}"
        );
        let last = evs
            .iter()
            .filter_map(|e| match e {
                WorkerEvent::ExplorePartial {
                    queries,
                    false_positives,
                    ..
                } => Some((*queries, *false_positives)),
                _ => None,
            })
            .next_back()
            .expect("partials");
        assert_eq!(last.0, 50_000);
        // The timings' spread: one insert chunk (2,000 keys), four query chunks of ≤ 16,384.
        let timing = evs
            .iter()
            .filter_map(|e| match e {
                WorkerEvent::ExploreTiming { insert, query, .. } => {
                    Some((insert.clone(), query.clone()))
                }
                _ => None,
            })
            .next_back()
            .expect("timings");
        let (ins, q) = (timing.0.expect("insert"), timing.1.expect("query"));
        assert_eq!((ins.samples, q.samples), (1, 4));
        assert!(q.min <= q.median && q.median <= q.max, "{q:?}");
        assert!(matches!(
            evs.last(),
            Some(WorkerEvent::Finished {
                slot: Slot::Explore,
                job: 5,
                stopped: None
            })
        ));
        // The measured rate is within its interval's reach of the exact rate (10^-2 scale).
        let (lo, hi) = stats::wilson(last.1, last.0, 3.5);
        let exact = theory::fpr_exact(19_171, 2_000, 7);
        assert!(lo <= exact && exact <= hi, "{lo} {exact} {hi}");
    }

    #[test]
    fn small_filters_are_measured_over_independent_instances() {
        // n = 1, m = 8, k = 6 (optimal): the exact rate 4.344% is a property of the design;
        // one instance's rate is 0, or (j/8)^6 for the j bits its one key set.
        let (tx, rx) = channel();
        let mut rt = Runtime::new(tx);
        let spec = FilterSpec {
            n: 1,
            m: Some(8),
            ..FilterSpec::default()
        };
        rt.exec(vec![Cmd::StartExplore(ExploreJob {
            job: 9,
            instances: 16,
            spec,
            keys: KeyKind::U64,
            key_seed: 1,
            target_queries: 160_000,
            time_budget: Duration::from_secs(30),
            regions: 64,
        })]);
        let evs = collect(&rx, Duration::from_secs(60));
        let rates: Vec<f64> = evs
            .iter()
            .filter_map(|e| match e {
                WorkerEvent::ExploreInstance { job: 9, rate } => Some(*rate),
                _ => None,
            })
            .collect();
        assert_eq!(rates.len(), 16);
        // Independently seeded: not one filter measured 16 times.
        let distinct = rates
            .iter()
            .map(|r| (r * 1e6).round() as u64)
            .collect::<std::collections::BTreeSet<_>>();
        assert!(distinct.len() >= 3, "{rates:?}");
        let last = evs.iter().rev().find_map(|e| match e {
            WorkerEvent::ExplorePartial { queries, .. } => Some(*queries),
            _ => None,
        });
        assert_eq!(last, Some(160_000));
        let (_, lo, hi) = stats::mean_ci95(&rates);
        let exact = theory::fpr_exact(8, 1, 6);
        assert!(lo <= exact && exact <= hi, "{lo} {exact} {hi} {rates:?}");
    }

    #[test]
    fn explore_measures_a_cuckoo_filter_without_a_fill_picture() {
        let (tx, rx) = channel();
        let mut rt = Runtime::new(tx);
        let spec = FilterSpec {
            kind: FilterKind::Cuckoo,
            n: 1_000,
            p: Some(0.01),
            ..FilterSpec::default()
        };
        rt.exec(vec![Cmd::StartExplore(ExploreJob {
            job: 9,
            instances: 1,
            spec,
            keys: KeyKind::U64,
            key_seed: 1,
            target_queries: 10_000,
            time_budget: Duration::from_secs(30),
            regions: 64,
        })]);
        let evs = collect(&rx, Duration::from_secs(60));
        assert!(
            matches!(
                evs.last(),
                Some(WorkerEvent::Finished {
                    slot: Slot::Explore,
                    job: 9,
                    stopped: None
                })
            ),
            "{:?}",
            evs.last()
        );
        let built = evs.iter().find_map(|e| match e {
            WorkerEvent::ExploreBuilt { fill, details, .. } => {
                Some((fill.clone(), details.clone()))
            }
            _ => None,
        });
        let (fill, details) = built.expect("built");
        assert_eq!(
            fill, None,
            "the fill picture is for the standard filter only"
        );
        assert!(!details.is_empty());
        let last = evs.iter().rev().find_map(|e| match e {
            WorkerEvent::ExplorePartial { queries, .. } => Some(*queries),
            _ => None,
        });
        assert_eq!(last, Some(10_000));
    }

    #[test]
    fn explore_builds_a_static_set_from_its_keys() {
        for kind in FilterKind::ALL.into_iter().filter(|k| k.caps().static_set) {
            let (tx, rx) = channel();
            let mut rt = Runtime::new(tx);
            let spec = FilterSpec {
                kind,
                n: 1_000,
                p: Some(0.004),
                ..FilterSpec::default()
            };
            rt.exec(vec![Cmd::StartExplore(ExploreJob {
                job: 4,
                instances: 1,
                spec,
                keys: KeyKind::U64,
                key_seed: 1,
                target_queries: 10_000,
                time_budget: Duration::from_secs(30),
                regions: 64,
            })]);
            let evs = collect(&rx, Duration::from_secs(60));
            let model = evs.iter().find_map(|e| match e {
                WorkerEvent::ExploreBuilt { model_fpr, .. } => Some(*model_fpr),
                _ => None,
            });
            assert_eq!(model, Some(1.0 / 256.0), "{kind}: {:?}", evs.last());
            assert!(
                matches!(
                    evs.last(),
                    Some(WorkerEvent::Finished { stopped: None, .. })
                ),
                "{kind}: {:?}",
                evs.last()
            );
        }
    }

    #[test]
    fn a_panicking_job_is_reported_not_propagated() {
        let (tx, rx) = channel();
        let mut rt = Runtime::new(tx);
        rt.spawn(Slot::Compare, 3, |_, _| panic!("boom"));
        let evs = collect(&rx, Duration::from_secs(10));
        match evs.last() {
            Some(WorkerEvent::Finished {
                slot: Slot::Compare,
                job: 3,
                stopped: Some(why),
            }) => assert!(why.contains("worker panicked: boom"), "{why}"),
            other => panic!("{other:?}"),
        }
    }

    /// Every report until the runtime and all its threads are gone: the channel disconnects
    /// only after the last worker thread ended, so nothing can arrive later (no timer).
    fn all_reports(rt: Runtime, rx: &Receiver<WorkerEvent>) -> Vec<WorkerEvent> {
        drop(rt);
        rx.iter().collect()
    }

    /// A job that waits for `gate`, then finishes normally unless its cancel flag is set.
    fn gated(
        gate: Receiver<()>,
    ) -> impl FnOnce(&AtomicBool, &Sender<WorkerEvent>) -> Result<Option<String>, Error> + Send + 'static
    {
        move |cancel, _| {
            let _ = gate.recv();
            check(cancel)?;
            Ok(None)
        }
    }

    #[test]
    fn cancelled_jobs_stay_silent() {
        // Not cancelled, the gated job reports that it finished…
        let (tx, rx) = channel();
        let mut rt = Runtime::new(tx);
        let (open, gate) = channel();
        rt.spawn(Slot::Explore, 1, gated(gate));
        open.send(()).unwrap();
        let evs = all_reports(rt, &rx);
        assert_eq!(
            evs,
            [WorkerEvent::Finished {
                slot: Slot::Explore,
                job: 1,
                stopped: None
            }]
        );
        // …cancelled before it runs on, the same job says nothing.
        let (tx, rx) = channel();
        let mut rt = Runtime::new(tx);
        let (open, gate) = channel();
        rt.spawn(Slot::Explore, 2, gated(gate));
        rt.exec(vec![Cmd::Cancel(Slot::Explore)]);
        open.send(()).unwrap();
        assert_eq!(all_reports(rt, &rx), []);
        // A real measurement (small: it finishes in well under a second when left alone, see
        // `explore_job_reports_fill_partials_and_finishes`) cancelled at once: no report at all.
        let (tx, rx) = channel();
        let mut rt = Runtime::new(tx);
        rt.exec(vec![Cmd::StartExplore(ExploreJob {
            job: 3,
            instances: 1,
            spec: FilterSpec {
                n: 2_000,
                m: Some(19_171),
                k: Some(7),
                ..FilterSpec::default()
            },
            keys: KeyKind::U64,
            key_seed: 1,
            target_queries: 50_000,
            time_budget: Duration::from_secs(30),
            regions: 64,
        })]);
        rt.exec(vec![Cmd::Cancel(Slot::Explore)]);
        let evs = all_reports(rt, &rx);
        assert!(
            !evs.iter()
                .any(|e| matches!(e, WorkerEvent::Finished { .. })),
            "{evs:?}"
        );
    }

    #[test]
    fn compare_measures_every_kind() {
        let (tx, rx) = channel();
        let mut rt = Runtime::new(tx);
        rt.exec(vec![Cmd::StartCompare(CompareJob {
            job: 2,
            base: FilterSpec {
                n: 1_000,
                ..FilterSpec::default()
            },
            rows: FilterKind::ALL.iter().copied().enumerate().collect(),
            keys: KeyKind::U64,
            queries: 10_000,
            key_seed: 1,
            peers: (0..crate::tui::results::PEERS.len()).collect(),
        })]);
        let evs = collect(&rx, Duration::from_secs(60));
        // The peer crates, after the kinds, in the same job.
        let peers: Vec<_> = evs
            .iter()
            .filter_map(|e| match e {
                WorkerEvent::PeerRow { idx, outcome, .. } => Some((*idx, outcome.clone())),
                _ => None,
            })
            .collect();
        assert_eq!(peers.len(), crate::tui::results::PEERS.len());
        for (i, o) in &peers {
            let name = crate::tui::results::PEERS[*i].0;
            let RowOutcome::Done(r) = o else {
                panic!("{name}: {o:?}")
            };
            assert_eq!((r.queries, r.false_negatives), (10_000, 0), "{name}");
            // cuckoofilter rounds its capacity to 1,024 slots: at 1,000 keys it refuses a
            // few; the others take every key.
            if name != "cuckoofilter" {
                assert_eq!(r.refused, 0, "{name}");
            }
            // Sized for 1% (xorf's 8-bit fingerprints: 1/256): every rate well under 5%.
            assert!(r.fpr() < 0.05, "{name}: {}", r.fpr());
            assert!(
                r.bytes > 500 && r.bytes < 8_000,
                "{name}: {} bytes",
                r.bytes
            );
        }
        let rows: Vec<_> = evs
            .iter()
            .filter_map(|e| match e {
                WorkerEvent::CompareRow { idx, outcome, .. } => Some((*idx, outcome.clone())),
                _ => None,
            })
            .collect();
        assert_eq!(rows.len(), FilterKind::ALL.len());
        for (i, o) in &rows {
            let kind = FilterKind::ALL[*i];
            let RowOutcome::Done(r) = o else {
                panic!("{kind}: {o:?}")
            };
            assert_eq!(r.m.filter, kind.name());
            assert_eq!(r.m.false_negatives, 0, "{kind}");
            assert_eq!(r.m.queries, 10_000, "{kind}");
            let removable = kind.caps().removable;
            assert_eq!(r.removable, removable, "{kind}");
        }
        assert!(matches!(
            evs.last(),
            Some(WorkerEvent::Finished {
                slot: Slot::Compare,
                job: 2,
                stopped: None
            })
        ));
    }

    #[test]
    fn weak_hash_on_sequential_keys_is_not_uniform() {
        let spec = |hash| FilterSpec {
            hash,
            strategy: StrategyId::Double,
            n: 5_000,
            ..FilterSpec::default()
        };
        let keygen = KeyGen::new(KeyKind::Seq, 1);
        let never = AtomicBool::new(false);
        let weak = histogram(&spec(HashId::Weak), &keygen, 64, &never).unwrap();
        let good = histogram(&spec(HashId::Xxh3), &keygen, 64, &never).unwrap();
        assert_eq!(weak.iter().sum::<u64>(), 5_000 * 7);
        let (_, p_weak) = stats::chi_square_uniform(&weak);
        let (_, p_good) = stats::chi_square_uniform(&good);
        assert!(p_weak < 1e-6, "weak p = {p_weak}");
        assert!(p_good > 1e-4, "xxh3 p = {p_good}");
    }
}
