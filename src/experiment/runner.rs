//! The runners: each turns an [`Experiment`] into a [`Table`] (one row per series × point).
//!
//! Seeds: trial `t` of a point uses key seed `mix64(seed + t)` and hash seed
//! `filter seed ^ mix64(seed + t)` when there are several trials, and `seed` / the filter's own
//! seed for a single trial — the same rule as [`crate::measure::measure`], so a row can be
//! reproduced with `bloomlab measure --seed`.

use super::curves;
use super::table::{Row, Table};
use super::{
    Baseline, Experiment, Progress, RunnerKind, SeriesDef, SweepVar, TheoryName, pct_label,
};
use crate::alloc_count;
use crate::error::{Error, Param, Result};
use crate::filter::{Filter, FilterKind};
use crate::hash::{AnyHasher, AnyStrategy, mix64};
use crate::measure::{Control, MeasureConfig, Measurement, PositionHistogram, measure};
use crate::spec::FilterSpec;
use crate::stats;
use crate::theory;
use crate::workload::{KeyGen, KeyKind};
use std::collections::HashSet;
use std::sync::atomic::{AtomicU64, Ordering};

/// What a runner returns.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct RunOutput {
    /// The table.
    pub table: Table,
    /// Series that could not be built (label, reason).
    pub skipped: Vec<(String, String)>,
    /// A markdown rendering (scenarios).
    pub markdown: Option<String>,
    /// Summary lines.
    pub summary: Vec<String>,
    /// The error of the first skipped series (returned when nothing could run).
    pub skip_error: Option<Error>,
}

impl RunOutput {
    /// Record a series that cannot run in this build.
    fn skip(&mut self, label: &str, e: Error) {
        self.skipped.push((
            label.to_string(),
            format!("{e} — not built in this version"),
        ));
        self.skip_error.get_or_insert(e);
    }
}

/// Run an experiment's runner.
///
/// # Errors
/// Invalid parameters (a filter that cannot be built for a reason other than not being in this
/// build), allocation failures, a memory experiment without the counting allocator.
pub fn run(exp: &Experiment, progress: &dyn Progress) -> Result<RunOutput> {
    let mut out = match exp.spec.runner {
        RunnerKind::Sweep => run_sweep(exp, progress),
        RunnerKind::Fill => run_fill(exp, progress),
        RunnerKind::Memory => run_memory(exp, progress),
        RunnerKind::HashQuality => run_hash_quality(exp, progress),
        RunnerKind::RemoveFp => run_remove_fp(exp, progress),
        RunnerKind::Scenarios => run_scenarios(exp, progress),
    }?;
    add_curves(exp, &mut out.table);
    Ok(out)
}

/// Trial `t` of series `s`: its key seed and the filter spec to build (the trial's hash seed,
/// bits per key applied).
fn trial_spec(s: &SeriesDef, seed: u64, t: u32, trials: u32) -> (u64, FilterSpec) {
    let (key_seed, hash_seed) = trial_seeds(seed, s.spec.seed, t, trials);
    let mut fspec = FilterSpec {
        seed: hash_seed,
        ..s.spec.clone()
    };
    apply_bpk(&mut fspec, s.bits_per_key);
    (key_seed, fspec)
}

/// Seeds of trial `t`: (key seed, hash seed).
fn trial_seeds(seed: u64, filter_seed: u64, t: u32, trials: u32) -> (u64, u64) {
    if trials == 1 {
        (seed, filter_seed)
    } else {
        let ts = mix64(seed.wrapping_add(u64::from(t)));
        (ts, filter_seed ^ ts)
    }
}

/// A filter kind that this build does not have (the spec is fine; the filter is missing).
fn not_built(e: &Error) -> bool {
    matches!(e, Error::UnknownName { what: "filter", .. })
}

/// Apply a series' `bits_per_key` (m = bits_per_key × n) unless m is set.
fn apply_bpk(spec: &mut FilterSpec, bpk: Option<f64>) {
    if let (Some(b), None) = (bpk, spec.m) {
        spec.m = Some((b * spec.n as f64).round().max(1.0) as u64);
        spec.p = None;
    }
}

/// Build a filter; `Ok(None)` (with the reason recorded) when the kind is not in this build.
fn build(
    spec: &FilterSpec,
    label: &str,
    out: &mut RunOutput,
    progress: &dyn Progress,
) -> Result<Option<Box<dyn Filter>>> {
    match spec.build() {
        Ok(f) => Ok(Some(f)),
        Err(e) if not_built(&e) => {
            out.skip(label, e);
            Ok(None)
        }
        Err(e) => {
            progress.warn(&format!("series '{label}': {e}"));
            Err(e)
        }
    }
}

/// Build `spec` and throw it away (errors are reported by the real build that follows).
fn spec_warm_up(spec: &FilterSpec) -> Option<Box<dyn Filter>> {
    spec.build().ok()
}

/// Mean and 95% Student-t interval of values (for counts and other non-rates); the interval of
/// non-negative values is cut at 0.
fn mean_interval(v: &[f64]) -> (f64, f64, f64) {
    let (m, lo, hi) = mean_interval_raw(v);
    if v.iter().all(|&x| x >= 0.0) {
        (m, lo.max(0.0), hi)
    } else {
        (m, lo, hi)
    }
}

fn mean_interval_raw(v: &[f64]) -> (f64, f64, f64) {
    let n = v.len() as f64;
    if v.is_empty() {
        return (f64::NAN, f64::NAN, f64::NAN);
    }
    let mean = v.iter().sum::<f64>() / n;
    if v.len() < 2 {
        return (mean, mean, mean);
    }
    let var = v.iter().map(|x| (x - mean) * (x - mean)).sum::<f64>() / (n - 1.0);
    let half = stats::t95(n - 1.0) * (var / n).sqrt();
    (mean, mean - half, mean + half)
}

/// Widen a mean-of-trials (Student-t) interval to at least the Wilson interval of the pooled
/// counts (all-zero trials would otherwise give [0, 0]).
fn widen(lo: f64, hi: f64, fp: u64, queries: u64) -> (f64, f64) {
    let (wl, wh) = stats::wilson(fp, queries, stats::Z95);
    (lo.max(0.0).min(wl), hi.min(1.0).max(wh))
}

/// FPR with its 95% interval: over several trials, the mean of per-trial rates with a t
/// interval, widened to at least the pooled Wilson interval; for one trial, Wilson.
fn rate_interval(rates: &[f64], fp: u64, queries: u64) -> (f64, f64, f64, &'static str) {
    if rates.len() >= 2 {
        let (m, lo, hi) = stats::mean_ci95(rates);
        let (lo, hi) = widen(lo, hi, fp, queries);
        (m, lo, hi, "mean-of-trials-t+wilson")
    } else {
        let (lo, hi) = stats::wilson(fp, queries, stats::Z95);
        let p = if queries == 0 {
            0.0
        } else {
            fp as f64 / queries as f64
        };
        (p, lo, hi, "wilson")
    }
}

fn series_row(s: &SeriesDef, f: &dyn Filter) -> Row {
    let mut r = Row::new();
    r.set("series", s.label.as_str())
        .set("row_type", "measured")
        .set("filter", f.kind().name())
        .set("hash", f.hash_id().name())
        .set("strategy", f.strategy_id().map(|x| x.name().to_string()))
        .set("keys", s.keys.name());
    r
}

fn set_fpr(r: &mut Row, fpr: (f64, f64, f64, &'static str)) {
    r.set("fpr", fpr.0)
        .set("fpr_lo", fpr.1)
        .set("fpr_hi", fpr.2)
        .set("ci_method", fpr.3);
}

/// Classic and exact theory for (m, n, k).
fn set_classic(r: &mut Row, classic: Option<(u64, u32)>, n: u64) {
    if let Some((m, k)) = classic {
        r.set("theory_classic", theory::fpr_classic(m, n, k));
        r.set("theory_exact", theory::fpr_exact(m, n, k));
    }
}

/// Query `queries` absent keys; returns the false positives.
fn query_absent(f: &dyn Filter, keygen: &KeyGen, queries: u64, buf: &mut Vec<u8>) -> u64 {
    let mut fp = 0;
    for j in 0..queries {
        keygen.absent(j, buf);
        fp += u64::from(f.contains(buf));
    }
    fp
}

// ---------------------------------------------------------------------------------------------
// sweep

fn sweep_config(exp: &Experiment, s: &SeriesDef, var: SweepVar, x: f64) -> Result<MeasureConfig> {
    let mut spec = s.spec.clone();
    let mut inserted = None;
    match var {
        SweepVar::N => spec.n = x as u64,
        SweepVar::M => {
            spec.m = Some(x as u64);
            spec.p = None;
            if let Some(b) = s.bits_per_key {
                spec.n = (x / b).round().max(1.0) as u64;
            }
        }
        SweepVar::K => spec.k = Some(x as u32),
        SweepVar::BitsPerKey => {
            spec.m = Some((x * spec.n as f64).round().max(1.0) as u64);
            spec.p = None;
        }
        SweepVar::P => {
            spec.p = Some(x);
            spec.m = None;
        }
        SweepVar::Fill => inserted = Some((x * spec.n as f64).round() as u64),
        SweepVar::Inserted => inserted = Some(x as u64),
        SweepVar::Load | SweepVar::Removals => {
            return Err(Error::invalid(
                Param::Other("sweep.var"),
                var.name(),
                "n, m, k, bits-per-key, p, fill or inserted for the sweep runner",
            ));
        }
    }
    apply_bpk(&mut spec, s.bits_per_key);
    Ok(MeasureConfig {
        spec,
        keys: s.keys,
        inserted,
        queries: exp.spec.queries,
        trials: exp.spec.trials,
        seed: exp.spec.seed,
        check_hits: true,
    })
}

fn work_of(cfg: &MeasureConfig) -> u64 {
    let n = cfg.inserted.unwrap_or(cfg.spec.n);
    u64::from(cfg.trials) * (2 * n + cfg.queries)
}

/// Run one measurement, reporting progress in work units.
fn measure_with_progress(
    cfg: &MeasureConfig,
    work: u64,
    progress: &dyn Progress,
) -> Result<Measurement> {
    let reported = AtomicU64::new(0);
    let cb = |frac: f64| {
        let target = (frac.clamp(0.0, 1.0) * work as f64) as u64;
        let prev = reported.fetch_max(target, Ordering::Relaxed);
        if target > prev {
            progress.advance(target - prev);
        }
    };
    let ctl = Control {
        progress: Some(&cb),
        cancel: None,
    };
    let r = measure(cfg, &ctl);
    let prev = reported.load(Ordering::Relaxed);
    if work > prev {
        progress.advance(work - prev);
    }
    r
}

fn measurement_row(s: &SeriesDef, cfg: &MeasureConfig, m: &Measurement) -> Row {
    let mut r = Row::new();
    r.set("series", s.label.as_str())
        .set("row_type", "measured")
        .set("filter", m.filter.as_str())
        .set("hash", m.hash.as_str())
        .set("strategy", m.strategy.clone())
        .set("keys", m.keys.as_str())
        .set("n_design", cfg.spec.n)
        .set("p_design", cfg.spec.p)
        .set("inserted", m.n)
        .set("m_bits", m.m_bits)
        .set("k", m.k)
        .set("bytes", m.bytes)
        .set("bits_per_key", m.bits_per_key)
        .set("trials", m.trials)
        .set("queries", m.queries)
        .set("false_positives", m.false_positives)
        .set("fpr", m.fpr);
    if m.trials >= 2 {
        let (lo, hi) = widen(m.fpr_ci95[0], m.fpr_ci95[1], m.false_positives, m.queries);
        r.set("fpr_lo", lo)
            .set("fpr_hi", hi)
            .set("ci_method", "mean-of-trials-t+wilson");
    } else {
        r.set("fpr_lo", m.fpr_ci95[0])
            .set("fpr_hi", m.fpr_ci95[1])
            .set("ci_method", m.ci_method.as_str());
    }
    r.set("theory_classic", m.theory.classic)
        .set("theory_exact", m.theory.exact)
        .set("theory_model", m.theory.model)
        .set("false_negatives", m.false_negatives)
        .set("insert_failures", m.insert_failures)
        .set("ns_per_insert", m.ns_per_insert)
        .set("ns_per_query", m.ns_per_query);
    r
}

fn run_sweep(exp: &Experiment, progress: &dyn Progress) -> Result<RunOutput> {
    let var = exp
        .sweep_var()
        .ok_or_else(|| exp.err_key("", "sweep", "missing"))?;
    let xs = exp.sweep_values();
    let series = exp.series();
    let mut plan = Vec::new();
    for s in &series {
        let mut v = Vec::new();
        for &x in &xs {
            v.push((x, sweep_config(exp, s, var, x)?));
        }
        plan.push(v);
    }
    progress.begin(plan.iter().flatten().map(|(_, c)| work_of(c)).sum());
    let mut out = RunOutput::default();
    for (s, points) in series.iter().zip(&plan) {
        progress.status(&s.label);
        for (i, (x, cfg)) in points.iter().enumerate() {
            let work = work_of(cfg);
            let m = match measure_with_progress(cfg, work, progress) {
                Ok(m) => m,
                Err(e) if not_built(&e) => {
                    out.skip(&s.label, e);
                    progress.advance(points[i + 1..].iter().map(|(_, c)| work_of(c)).sum());
                    break;
                }
                Err(e) => {
                    progress.warn(&format!(
                        "series '{}' at {} = {x}: {e}",
                        s.label,
                        var.name()
                    ));
                    return Err(e);
                }
            };
            let mut r = measurement_row(s, cfg, &m);
            r.set("var", var.name()).set("x", *x);
            out.table.push(r);
        }
    }
    Ok(out)
}

// ---------------------------------------------------------------------------------------------
// fill

/// Column name for a details key: "saturated counters" → "saturated_counters".
fn detail_column(key: &str) -> String {
    let mut s: String = key
        .to_lowercase()
        .chars()
        .map(|c| if c.is_ascii_alphanumeric() { c } else { '_' })
        .collect();
    while s.contains("__") {
        s = s.replace("__", "_");
    }
    s.trim_matches('_').to_string()
}

/// The leading number of a details value ("0.9500", "1.37e-15", "12 (max 15)").
fn detail_number(v: &str) -> Option<f64> {
    let t = v.trim();
    let end = t
        .find(|c: char| !(c.is_ascii_digit() || "+-.eE".contains(c)))
        .unwrap_or(t.len());
    t[..end].parse().ok()
}

fn detail(f: &dyn Filter, key: &str) -> Option<String> {
    f.details()
        .into_iter()
        .find(|(k, _)| k == key)
        .map(|(_, v)| v)
}

/// Slots of a filter with buckets of 4 (cuckoo): `buckets` from its details × 4.
fn slots(f: &dyn Filter) -> Result<u64> {
    detail(f, "buckets")
        .and_then(|v| detail_number(&v))
        .map(|b| b as u64 * 4)
        .ok_or_else(|| {
            Error::invalid(
                Param::Other("sweep.var"),
                "load",
                format!(
                    "a filter that reports 'buckets' in details() (cuckoo); {} does not",
                    f.kind()
                ),
            )
        })
}

#[derive(Default, Clone)]
struct Acc {
    rates: Vec<f64>,
    fp: u64,
    queries: u64,
    model: Vec<f64>,
    len: Vec<f64>,
    bytes: Vec<f64>,
    failures: u64,
    details: Vec<Vec<f64>>,
    detail_text: Vec<Option<String>>,
    inserted: u64,
    false_negatives: Option<u64>,
    classic: Option<(u64, u32)>,
    strategy: Option<crate::hash::StrategyId>,
}

fn run_fill(exp: &Experiment, progress: &dyn Progress) -> Result<RunOutput> {
    let var = exp
        .sweep_var()
        .ok_or_else(|| exp.err_key("", "sweep", "missing"))?;
    let xs = exp.sweep_values();
    let series = exp.series();
    let spec = &exp.spec;
    let mut order: Vec<usize> = (0..xs.len()).collect();
    order.sort_by(|&a, &b| xs[a].total_cmp(&xs[b]));
    let max_x = xs.iter().copied().fold(0.0, f64::max);
    let est_items = |s: &SeriesDef| -> u64 {
        match var {
            SweepVar::Fill => (max_x * s.spec.n as f64) as u64,
            SweepVar::Inserted => max_x as u64,
            // slots ≈ n / 0.95 rounded up to a power of two: about 1.3 n on average
            _ => (max_x * s.spec.n as f64 * 1.3) as u64,
        }
    };
    let total: u64 = series
        .iter()
        .map(|s| u64::from(spec.trials) * (2 * est_items(s) + spec.queries * xs.len() as u64))
        .sum();
    progress.begin(total);
    let mut out = RunOutput::default();
    let detail_cols: Vec<String> = spec.details.iter().map(|k| detail_column(k)).collect();
    let mut warned_missing: HashSet<String> = HashSet::new();
    'series: for s in &series {
        progress.status(&s.label);
        let mut accs = vec![Acc::default(); xs.len()];
        for t in 0..spec.trials {
            let (key_seed, fspec) = trial_spec(s, spec.seed, t, spec.trials);
            let Some(mut f) = build(&fspec, &s.label, &mut out, progress)? else {
                progress.advance(u64::from(spec.trials - t) * (2 * est_items(s)));
                continue 'series;
            };
            let slot_count = if var == SweepVar::Load {
                Some(slots(f.as_ref())?)
            } else {
                None
            };
            let keygen = KeyGen::new(s.keys, key_seed);
            let mut buf = Vec::with_capacity(128);
            let mut next = 0u64;
            let mut failed: Vec<u64> = Vec::new();
            for &ci in &order {
                let x = xs[ci];
                let target = match var {
                    SweepVar::Fill => (x * fspec.n as f64).round() as u64,
                    SweepVar::Inserted => x as u64,
                    _ => (x * slot_count.unwrap_or(0) as f64).ceil() as u64,
                };
                KeyGen::check_n(target)?;
                let start = next;
                while next < target {
                    keygen.present(next, &mut buf);
                    if f.try_insert(&buf).is_err() {
                        failed.push(next);
                    }
                    next += 1;
                    if (next - start).is_multiple_of(1 << 16) {
                        progress.advance(1 << 16);
                    }
                }
                progress.advance((next - start) % (1 << 16));
                let fp = query_absent(f.as_ref(), &keygen, spec.queries, &mut buf);
                progress.advance(spec.queries);
                let a = &mut accs[ci];
                a.rates.push(fp as f64 / spec.queries as f64);
                a.fp += fp;
                a.queries += spec.queries;
                a.model.push(f.expected_fpr());
                a.len.push(f.len() as f64);
                a.bytes.push(f.bytes() as f64);
                a.inserted = target;
                a.classic = f.classic_params();
                a.strategy = f.strategy_id();
                // failures up to this checkpoint, summed over trials
                a.failures += failed.len() as u64;
                let details = f.details();
                if a.details.is_empty() {
                    a.details = vec![Vec::new(); spec.details.len()];
                    a.detail_text = vec![None; spec.details.len()];
                }
                for (di, key) in spec.details.iter().enumerate() {
                    match details.iter().find(|(k, _)| k == key) {
                        Some((_, v)) => match detail_number(v) {
                            Some(num) => a.details[di].push(num),
                            None => a.detail_text[di] = Some(v.clone()),
                        },
                        None => {
                            if warned_missing.insert(format!("{}/{key}", f.kind())) {
                                progress.warn(&format!(
                                    "{} reports no detail '{key}' (it has: {})",
                                    f.kind(),
                                    details
                                        .iter()
                                        .map(|(k, _)| k.as_str())
                                        .collect::<Vec<_>>()
                                        .join(", ")
                                ));
                            }
                        }
                    }
                }
            }
            // The contract: every key whose insert succeeded is found.
            failed.sort_unstable();
            let mut fneg = 0;
            for i in 0..next {
                if failed.binary_search(&i).is_ok() {
                    continue;
                }
                keygen.present(i, &mut buf);
                fneg += u64::from(!f.contains(&buf));
                if (i + 1).is_multiple_of(1 << 16) {
                    progress.advance(1 << 16);
                }
            }
            progress.advance(next % (1 << 16));
            if let Some(&last) = order.last() {
                *accs[last].false_negatives.get_or_insert(0) += fneg;
            }
        }
        for (ci, a) in accs.iter().enumerate() {
            if a.rates.is_empty() {
                continue;
            }
            let mut r = Row::new();
            r.set("series", s.label.as_str())
                .set("row_type", "measured")
                .set("filter", s.spec.kind.name())
                .set("hash", s.spec.hash.name())
                .set("strategy", a.strategy.map(|x| x.name().to_string()))
                .set("keys", s.keys.name())
                .set("var", var.name())
                .set("x", xs[ci])
                .set("n_design", s.spec.n)
                .set("p_design", s.spec.p)
                .set("inserted", a.inserted);
            let (len, _, _) = mean_interval(&a.len);
            let (bytes, _, _) = mean_interval(&a.bytes);
            r.set("len", len)
                .set("bytes", bytes)
                .set(
                    "bits_per_key",
                    if len > 0.0 {
                        bytes * 8.0 / len
                    } else {
                        f64::NAN
                    },
                )
                .set("trials", a.rates.len())
                .set("queries", a.queries)
                .set("false_positives", a.fp);
            set_fpr(&mut r, rate_interval(&a.rates, a.fp, a.queries));
            let n_eff = len.round() as u64;
            set_classic(&mut r, a.classic, n_eff);
            r.set("theory_model", mean_interval(&a.model).0);
            for t in &spec.theory {
                let v = match (t, a.classic) {
                    (TheoryName::CountersAtLeast15, Some((m, k))) => {
                        Some(curves::counters_at_least(m, n_eff, k, 15))
                    }
                    (TheoryName::FanBound15, Some((m, k))) => {
                        Some(curves::fan_bound(m, n_eff, k, 15))
                    }
                    (TheoryName::ClassicReachable, Some((m, k))) => a
                        .strategy
                        .map(|st| curves::classic_reachable(st, m, n_eff, k)),
                    _ => None,
                };
                r.set(t.column(), v);
            }
            r.set("insert_failures", a.failures)
                .set("false_negatives", a.false_negatives);
            for (di, col) in detail_cols.iter().enumerate() {
                let name = if r.get(col).is_some() {
                    format!("detail_{col}")
                } else {
                    col.clone()
                };
                if let Some(vals) = a.details.get(di).filter(|v| !v.is_empty()) {
                    let (m, lo, hi) = mean_interval(vals);
                    r.set(&name, m);
                    if vals.len() >= 2 {
                        r.set(&format!("{name}_lo"), lo)
                            .set(&format!("{name}_hi"), hi);
                    }
                } else if let Some(Some(text)) = a.detail_text.get(di) {
                    r.set(&name, text.as_str());
                }
            }
            out.table.push(r);
        }
    }
    Ok(out)
}

// ---------------------------------------------------------------------------------------------
// memory

pub use crate::measure::{hashset_buckets, hashset_table_bytes};

fn run_memory(exp: &Experiment, progress: &dyn Progress) -> Result<RunOutput> {
    if !alloc_count::installed() {
        return Err(Error::invalid(
            Param::Other("memory runner"),
            "no counting allocator",
            "a process whose #[global_allocator] is bloomlab::alloc_count::CountingAlloc \
             (the bloomlab binary installs it)",
        ));
    }
    let spec = &exp.spec;
    let mut ns = exp.sweep_values();
    ns.sort_by(f64::total_cmp);
    let series = exp.series();
    let string_cap = spec.params.string_cap.unwrap_or(u64::MAX);
    let string_keys = spec
        .keys
        .iter()
        .copied()
        .find(|k| matches!(k, KeyKind::String | KeyKind::Email | KeyKind::Url))
        .unwrap_or(KeyKind::Email);
    let mut total = 0u64;
    for &n in &ns {
        let n = n as u64;
        total += n * series.len() as u64;
        for b in &spec.baselines {
            if *b == Baseline::HashsetU64 || n <= string_cap {
                total += n;
            }
        }
    }
    progress.begin(total);
    let mut out = RunOutput::default();
    let mut dead: HashSet<String> = HashSet::new();
    // (n, mean string heap bytes, mean string chunk bytes) at the largest measured n
    let mut string_stats: Option<(u64, f64, f64)> = None;
    let mut buf = Vec::with_capacity(256);
    for &nf in &ns {
        let n = nf as u64;
        for s in &series {
            if dead.contains(&s.label) {
                continue;
            }
            progress.status(&format!("{} n={n}", s.label));
            let mut fspec = FilterSpec {
                n,
                ..s.spec.clone()
            };
            apply_bpk(&mut fspec, s.bits_per_key);
            let keygen = KeyGen::new(s.keys, spec.seed);
            // Build once untimed and unmeasured first: sizing may fill process-wide caches (the
            // blocked model memoises its occupancy sweep, ~78 KB at k = 6), which belong to no
            // filter and must not be counted as the first one's heap.
            drop(spec_warm_up(&fspec));
            let before = alloc_count::snapshot();
            let Some(mut f) = build(&fspec, &s.label, &mut out, progress)? else {
                dead.insert(s.label.clone());
                progress.advance(n);
                continue;
            };
            let mut failures = 0u64;
            for i in 0..n {
                keygen.present(i, &mut buf);
                failures += u64::from(f.try_insert(&buf).is_err());
                if (i + 1).is_multiple_of(1 << 20) {
                    progress.advance(1 << 20);
                }
            }
            let after = alloc_count::snapshot();
            progress.advance(n % (1 << 20));
            let bytes = after.live_since(&before);
            let mut r = series_row(s, f.as_ref());
            r.set("structure", s.label.as_str())
                .set("p", fspec.p)
                .set("n", n)
                .set("x", n)
                .set("bytes", bytes)
                .set("bytes_reported", f.bytes())
                .set("bytes_malloc_model", after.chunks_since(&before))
                .set("bytes_per_item", bytes as f64 / n as f64)
                .set("bits_per_key", bytes as f64 * 8.0 / n as f64)
                .set("m_bits", f.bits())
                .set("k", f.k())
                .set("insert_failures", failures);
            if let Some(p) = fspec.p {
                r.set(
                    "lower_bound_bits_per_key",
                    theory::lower_bound_bits_per_key(p),
                )
                .set("bloom_optimal_bits_per_key", theory::bloom_bits_per_key(p));
            }
            drop(f);
            out.table.push(r);
        }
        for b in &spec.baselines {
            match b {
                Baseline::HashsetU64 => {
                    progress.status(&format!("HashSet<u64> n={n}"));
                    let keygen = KeyGen::new(KeyKind::U64, spec.seed);
                    let before = alloc_count::snapshot();
                    let mut set: HashSet<u64> = HashSet::new();
                    for i in 0..n {
                        keygen.present(i, &mut buf);
                        let mut w = [0u8; 8];
                        w.copy_from_slice(&buf[..8]);
                        set.insert(u64::from_le_bytes(w));
                        if (i + 1).is_multiple_of(1 << 20) {
                            progress.advance(1 << 20);
                        }
                    }
                    let after = alloc_count::snapshot();
                    progress.advance(n % (1 << 20));
                    let bytes = after.live_since(&before);
                    let mut r = Row::new();
                    r.set("series", b.label())
                        .set("row_type", "measured")
                        .set("structure", b.label())
                        .set("keys", "u64")
                        .set("n", n)
                        .set("x", n)
                        .set("bytes", bytes)
                        .set("bytes_model", hashset_table_bytes(set.len() as u64, 8))
                        .set("bytes_malloc_model", after.chunks_since(&before))
                        .set("bytes_per_item", bytes as f64 / n as f64)
                        .set("bits_per_key", bytes as f64 * 8.0 / n as f64)
                        .set("buckets", hashset_buckets(n))
                        .set("key_bytes_mean", 8.0);
                    drop(set);
                    out.table.push(r);
                }
                Baseline::HashsetString => {
                    if n > string_cap {
                        continue;
                    }
                    progress.status(&format!("HashSet<String> n={n}"));
                    let keygen = KeyGen::new(string_keys, spec.seed);
                    let before = alloc_count::snapshot();
                    let mut set: HashSet<String> = HashSet::new();
                    let (mut key_bytes, mut key_chunks) = (0u64, 0u64);
                    for i in 0..n {
                        keygen.present(i, &mut buf);
                        // `to_vec` allocates exactly the key's length, as reading a string from
                        // a database or a file into its own String would.
                        let s = String::from_utf8(buf.to_vec()).map_err(|e| Error::Io {
                            path: "<key generator>".into(),
                            message: e.to_string(),
                        })?;
                        key_bytes += s.len() as u64;
                        key_chunks += alloc_count::glibc_chunk(s.len()) as u64;
                        set.insert(s);
                        if (i + 1).is_multiple_of(1 << 20) {
                            progress.advance(1 << 20);
                        }
                    }
                    let after = alloc_count::snapshot();
                    progress.advance(n % (1 << 20));
                    let bytes = after.live_since(&before);
                    let table = hashset_table_bytes(n, std::mem::size_of::<String>());
                    let mut r = Row::new();
                    r.set("series", b.label())
                        .set("row_type", "measured")
                        .set("structure", b.label())
                        .set("keys", string_keys.name())
                        .set("n", n)
                        .set("x", n)
                        .set("bytes", bytes)
                        .set("bytes_model", table + key_bytes)
                        .set("bytes_malloc_model", after.chunks_since(&before))
                        .set("bytes_per_item", bytes as f64 / n as f64)
                        .set("bits_per_key", bytes as f64 * 8.0 / n as f64)
                        .set("buckets", hashset_buckets(n))
                        .set("key_bytes_mean", key_bytes as f64 / n as f64);
                    string_stats =
                        Some((n, key_bytes as f64 / n as f64, key_chunks as f64 / n as f64));
                    drop(set);
                    out.table.push(r);
                }
            }
        }
    }
    // Extrapolate HashSet<String> past the cap: the table model (checked against the allocator
    // at every measured n) plus the measured mean heap bytes per string.
    if let Some((at, key_mean, chunk_mean)) = string_stats
        && spec.baselines.contains(&Baseline::HashsetString)
    {
        // From the last measured n (where model and measurement agree) onwards.
        let mut targets: Vec<f64> = ns.iter().copied().filter(|&n| n as u64 >= at).collect();
        targets.extend(spec.params.extrapolate_to.clone().unwrap_or_default());
        targets.sort_by(f64::total_cmp);
        targets.dedup();
        for nf in targets {
            let n = nf as u64;
            let table = hashset_table_bytes(n, std::mem::size_of::<String>());
            let bytes = table as f64 + n as f64 * key_mean;
            let label = format!(
                "{} (extrapolated from n={at})",
                Baseline::HashsetString.label()
            );
            let mut r = Row::new();
            r.set("series", label.as_str())
                .set("row_type", "extrapolated")
                .set("structure", Baseline::HashsetString.label())
                .set("keys", string_keys.name())
                .set("n", n)
                .set("x", n)
                .set("bytes", bytes)
                .set("bytes_model", bytes)
                .set(
                    "bytes_malloc_model",
                    alloc_count::glibc_chunk(table as usize) as f64 + n as f64 * chunk_mean,
                )
                .set("bytes_per_item", bytes / n as f64)
                .set("bits_per_key", bytes * 8.0 / n as f64)
                .set("buckets", hashset_buckets(n))
                .set("key_bytes_mean", key_mean);
            out.table.push(r);
        }
    }
    out.summary = memory_summary(&out.table);
    Ok(out)
}

/// Bytes per item of each structure at its largest measured n, and the articles' 10⁹-strings
/// claim checked against them.
fn memory_summary(t: &Table) -> Vec<String> {
    let mut best: Vec<(String, u64, f64, f64)> = Vec::new();
    for r in 0..t.rows.len() {
        if t.text(r, "row_type") != "measured" {
            continue;
        }
        let (Some(n), Some(bpi)) = (t.num(r, "n"), t.num(r, "bytes_per_item")) else {
            continue;
        };
        let chunk = t.num(r, "bytes_malloc_model").unwrap_or(f64::NAN) / n;
        let label = t.text(r, "series");
        match best.iter_mut().find(|b| b.0 == label) {
            Some(b) if (n as u64) > b.1 => *b = (label, n as u64, bpi, chunk),
            Some(_) => {}
            None => best.push((label, n as u64, bpi, chunk)),
        }
    }
    let mut lines: Vec<String> = best
        .iter()
        .map(|(l, n, bpi, chunk)| {
            format!("{l}: {bpi:.2} bytes/item at n={n} (with malloc chunk rounding: {chunk:.2})")
        })
        .collect();
    let string = best.iter().find(|b| b.0 == Baseline::HashsetString.label());
    let filter = best
        .iter()
        .find(|b| b.0.starts_with("standard") && b.0.contains("p=1%"));
    if let (Some(s), Some(f)) = (string, filter) {
        let set_bytes = hashset_table_bytes(1_000_000_000, std::mem::size_of::<String>()) as f64
            + 1e9 * (s.2 - hashset_table_bytes(s.1, 24) as f64 / s.1 as f64);
        let filt = f.2 * 1e9;
        lines.push(format!(
            "10^9 strings: HashSet<String> ≈ {:.1} GB (table model + measured string bytes), \
             standard filter at 1% ≈ {:.2} GB: ratio 1/{:.0} (articles: 40 GB vs 1.2 GB, 1/30)",
            set_bytes / 1e9,
            filt / 1e9,
            set_bytes / filt
        ));
    }
    lines
}

// ---------------------------------------------------------------------------------------------
// hash-quality

fn run_hash_quality(exp: &Experiment, progress: &dyn Progress) -> Result<RunOutput> {
    let spec = &exp.spec;
    let series = exp.series();
    let bins = spec.params.bins.unwrap_or(64).max(2);
    let total: u64 = series
        .iter()
        .map(|s| u64::from(spec.trials) * (s.spec.n + spec.queries))
        .sum();
    progress.begin(total);
    let mut out = RunOutput::default();
    'series: for s in &series {
        progress.status(&s.label);
        let mut counts = vec![0u64; bins as usize];
        let mut rates = Vec::new();
        let (mut fp, mut queries, mut fneg) = (0u64, 0u64, 0u64);
        let mut last: Option<Box<dyn Filter>> = None;
        let mut model = Vec::new();
        for t in 0..spec.trials {
            let (key_seed, fspec) = trial_spec(s, spec.seed, t, spec.trials);
            let Some(mut f) = build(&fspec, &s.label, &mut out, progress)? else {
                progress.advance(u64::from(spec.trials - t) * (s.spec.n + spec.queries));
                continue 'series;
            };
            let n = fspec.n;
            let sample = spec.params.position_sample.unwrap_or(n).min(n);
            let (m, k) = (f.bits(), f.k());
            let positions = matches!(f.kind(), FilterKind::Standard | FilterKind::Counting);
            let hasher = AnyHasher::new(fspec.hash, fspec.seed);
            let strategy = AnyStrategy(fspec.strategy);
            let keygen = KeyGen::new(s.keys, key_seed);
            let mut buf = Vec::with_capacity(128);
            let mut hist = PositionHistogram::new(m, bins as usize);
            for i in 0..n {
                keygen.present(i, &mut buf);
                f.insert(&buf);
                if positions && i < sample {
                    hist.add_item(&strategy, &hasher, &buf, k);
                }
                if (i + 1).is_multiple_of(1 << 20) {
                    progress.advance(1 << 20);
                }
            }
            progress.advance(n % (1 << 20));
            for (c, h) in counts.iter_mut().zip(hist.counts()) {
                *c += h;
            }
            let tfp = query_absent(f.as_ref(), &keygen, spec.queries, &mut buf);
            progress.advance(spec.queries);
            // No false negatives, checked on the sample whose positions were binned.
            for i in 0..sample {
                keygen.present(i, &mut buf);
                fneg += u64::from(!f.contains(&buf));
            }
            rates.push(tfp as f64 / spec.queries as f64);
            fp += tfp;
            queries += spec.queries;
            model.push(f.expected_fpr());
            last = Some(f);
        }
        let Some(f) = last else { continue };
        let mut r = series_row(s, f.as_ref());
        let n = s.spec.n;
        r.set("n", n)
            .set("m_bits", f.bits())
            .set("k", f.k())
            .set("bytes", f.bytes())
            .set("trials", rates.len())
            .set("queries", queries)
            .set("false_positives", fp);
        set_fpr(&mut r, rate_interval(&rates, fp, queries));
        let classic = f.classic_params();
        set_classic(&mut r, classic, n);
        r.set("theory_model", mean_interval(&model).0);
        if spec.theory.contains(&TheoryName::ClassicReachable)
            && let (Some((m, k)), Some(st)) = (classic, f.strategy_id())
        {
            r.set(
                TheoryName::ClassicReachable.column(),
                curves::classic_reachable(st, m, n, k),
            );
        }
        if let Some((m, k)) = classic {
            let c = theory::fpr_classic(m, n, k);
            r.set(
                "fpr_over_classic",
                rates.iter().sum::<f64>() / rates.len() as f64 / c,
            );
        }
        r.set("false_negatives", fneg);
        if counts.iter().any(|&c| c > 0) {
            let (chi2, p) = stats::chi_square_uniform(&counts);
            let df = f64::from(bins - 1);
            // The statistic uniform positions exceed with probability 0.001.
            let crit = statrs::distribution::ChiSquared::new(df)
                .map(|c| statrs::distribution::ContinuousCDF::inverse_cdf(&c, 0.999))
                .unwrap_or(f64::NAN);
            r.set("chi2_crit_per_df", crit / df);
            r.set("bins", bins)
                .set("positions", counts.iter().sum::<u64>())
                .set("chi2", chi2)
                .set("chi2_df", df)
                .set("chi2_per_df", chi2 / df)
                .set("chi2_p", p)
                .set("empty_bins", counts.iter().filter(|&&c| c == 0).count())
                .set(
                    "max_bin_over_mean",
                    *counts.iter().max().unwrap_or(&0) as f64
                        / (counts.iter().sum::<u64>() as f64 / f64::from(bins)),
                );
        }
        out.table.push(r);
    }
    Ok(out)
}

// ---------------------------------------------------------------------------------------------
// remove-fp

fn run_remove_fp(exp: &Experiment, progress: &dyn Progress) -> Result<RunOutput> {
    let spec = &exp.spec;
    let series = exp.series();
    let mut xs = exp.sweep_values();
    xs.sort_by(f64::total_cmp);
    let want = xs.last().copied().unwrap_or(0.0) as u64;
    let limit = spec.params.fp_search_limit.unwrap_or(10_000_000);
    let total: u64 = series
        .iter()
        .map(|s| u64::from(spec.trials) * s.spec.n * (2 + xs.len() as u64))
        .sum();
    progress.begin(total);
    let mut out = RunOutput::default();
    'series: for s in &series {
        progress.status(&s.label);
        let mut fn_counts: Vec<Vec<f64>> = vec![Vec::new(); xs.len()];
        let mut refused = vec![0u64; xs.len()];
        let mut found_fp = Vec::new();
        let mut theory_per = 0.0;
        let mut kind = None;
        for t in 0..spec.trials {
            let (key_seed, fspec) = trial_spec(s, spec.seed, t, spec.trials);
            let Some(mut f) = build(&fspec, &s.label, &mut out, progress)? else {
                progress.advance(u64::from(spec.trials - t) * s.spec.n * (2 + xs.len() as u64));
                continue 'series;
            };
            if f.as_removable().is_none() {
                let why = format!("{} does not support remove", f.kind());
                out.skipped.push((s.label.clone(), why));
                progress.advance(u64::from(spec.trials - t) * s.spec.n * (2 + xs.len() as u64));
                continue 'series;
            }
            kind = Some(f.kind());
            let n = fspec.n;
            let keygen = KeyGen::new(s.keys, key_seed);
            let mut buf = Vec::with_capacity(128);
            for i in 0..n {
                keygen.present(i, &mut buf);
                f.try_insert(&buf)?;
            }
            progress.advance(n);
            theory_per = curves::false_negatives_per_removal(f.classic_params(), n);
            // Find false positives among absent keys.
            let mut fps: Vec<Vec<u8>> = Vec::new();
            let mut j = 0;
            while (fps.len() as u64) < want && j < limit {
                keygen.absent(j, &mut buf);
                if f.contains(&buf) {
                    fps.push(buf.clone());
                }
                j += 1;
            }
            found_fp.push(fps.len() as f64);
            progress.advance(n);
            let mut removed = 0usize;
            for (ci, &x) in xs.iter().enumerate() {
                let upto = (x as usize).min(fps.len());
                let rem = f.as_removable().ok_or(Error::NotPresent)?;
                while removed < upto {
                    if rem.remove(&fps[removed]).is_err() {
                        refused[ci] += 1;
                    }
                    removed += 1;
                }
                let mut fneg = 0u64;
                for i in 0..n {
                    keygen.present(i, &mut buf);
                    fneg += u64::from(!f.contains(&buf));
                }
                progress.advance(n);
                fn_counts[ci].push(fneg as f64);
            }
        }
        let Some(kind) = kind else { continue };
        for (ci, &x) in xs.iter().enumerate() {
            let (mean, lo, hi) = mean_interval(&fn_counts[ci]);
            let mut r = Row::new();
            r.set("series", s.label.as_str())
                .set("row_type", "measured")
                .set("filter", kind.name())
                .set("keys", s.keys.name())
                .set("var", "removals")
                .set("x", x)
                .set("n", s.spec.n)
                .set("p_design", s.spec.p)
                .set("trials", fn_counts[ci].len())
                .set("false_positives_found", mean_interval(&found_fp).0)
                .set("removes_refused", refused[ci])
                .set("false_negatives", mean)
                .set("false_negatives_fraction", mean / s.spec.n as f64);
            if fn_counts[ci].len() >= 2 {
                r.set("false_negatives_lo", lo)
                    .set("false_negatives_hi", hi);
            }
            if spec
                .theory
                .contains(&TheoryName::FalseNegativesAfterRemovals)
            {
                r.set(
                    TheoryName::FalseNegativesAfterRemovals.column(),
                    theory_per * x,
                );
            }
            out.table.push(r);
        }
    }
    Ok(out)
}

// ---------------------------------------------------------------------------------------------
// scenarios

fn run_scenarios(exp: &Experiment, progress: &dyn Progress) -> Result<RunOutput> {
    let spec = &exp.spec;
    let series = exp.series();
    let mut plan = Vec::new();
    for sc in &spec.scenarios {
        let sc = sc.get_ref();
        for s in &series {
            let mut fs = FilterSpec {
                n: sc.n,
                p: Some(sc.p),
                m: None,
                ..s.spec.clone()
            };
            apply_bpk(&mut fs, s.bits_per_key);
            let cfg = MeasureConfig {
                spec: fs,
                keys: sc.keys,
                inserted: None,
                queries: spec.queries,
                trials: spec.trials,
                seed: spec.seed,
                check_hits: true,
            };
            plan.push((sc, s, cfg));
        }
    }
    progress.begin(plan.iter().map(|(_, _, c)| work_of(c)).sum());
    let mut out = RunOutput::default();
    let mut dead: HashSet<String> = HashSet::new();
    let mut md = String::from(
        "| scenario | n | target p | keys | filter | memory | bits/key | measured FPR (95% CI) | FPR / target |\n\
         |---|---:|---:|---|---|---:|---:|---|---:|\n",
    );
    for (sc, s, cfg) in &plan {
        let work = work_of(cfg);
        if dead.contains(&s.label) {
            progress.advance(work);
            continue;
        }
        progress.status(&format!("{} / {}", sc.name, s.label));
        let m = match measure_with_progress(cfg, work, progress) {
            Ok(m) => m,
            Err(e) if not_built(&e) => {
                out.skip(&s.label, e);
                dead.insert(s.label.clone());
                continue;
            }
            Err(e @ Error::InvalidParameter { .. }) => {
                // A filter that cannot meet this scenario (e.g. a rate below what 16-bit cuckoo
                // fingerprints reach) is a finding, not a failure: record it.
                progress.warn(&format!(
                    "scenario '{}', series '{}': {e}",
                    sc.name, s.label
                ));
                let mut r = Row::new();
                r.set("series", s.label.as_str())
                    .set("row_type", "not-possible")
                    .set("filter", cfg.spec.kind.name())
                    .set("scenario", sc.name.as_str())
                    .set("cost", sc.cost.as_str())
                    .set("x", sc.name.as_str())
                    .set("n_design", sc.n)
                    .set("p_design", sc.p)
                    .set("keys", sc.keys.name())
                    .set("note", e.to_string());
                out.table.push(r);
                md.push_str(&format!(
                    "| {} | {} | {} | {} | {} | — | — | not possible: {e} | — |\n",
                    sc.name,
                    thousands(sc.n),
                    pct_label(sc.p),
                    sc.keys.name(),
                    s.label,
                ));
                continue;
            }
            Err(e) => {
                progress.warn(&format!(
                    "scenario '{}', series '{}': {e}",
                    sc.name, s.label
                ));
                return Err(e);
            }
        };
        let mut r = measurement_row(s, cfg, &m);
        r.set("scenario", sc.name.as_str())
            .set("cost", sc.cost.as_str())
            .set("x", sc.name.as_str())
            .set("fpr_over_target", m.fpr / sc.p);
        out.table.push(r);
        md.push_str(&format!(
            "| {} | {} | {} | {} | {} | {} | {:.2} | {} [{}, {}] | {:.2} |\n",
            sc.name,
            thousands(sc.n),
            pct_label(sc.p),
            sc.keys.name(),
            s.label,
            crate::plot::format_value(m.bytes as f64, crate::plot::Format::Bytes),
            m.bits_per_key,
            pct4(m.fpr),
            pct4(m.fpr_ci95[0]),
            pct4(m.fpr_ci95[1]),
            m.fpr / sc.p
        ));
    }
    out.markdown = Some(md);
    Ok(out)
}

fn thousands(v: u64) -> String {
    let s = v.to_string();
    let mut out = String::new();
    for (i, c) in s.chars().enumerate() {
        if i > 0 && (s.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    out
}

fn pct4(p: f64) -> String {
    format!("{:.4}%", p * 100.0)
}

// ---------------------------------------------------------------------------------------------
// reference curves

fn add_curves(exp: &Experiment, table: &mut Table) {
    for c in &exp.spec.curves {
        for eps in c.range.values() {
            let mut r = Row::new();
            r.set("series", c.label.as_str())
                .set("row_type", "theory")
                .set(&c.x, eps)
                .set(&c.y, curves::curve(c.curve, eps, c.alpha, c.b));
            table.push(r);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn intervals_use_t_and_never_undercut_wilson() {
        // Five trials, no false positive at all: not [0, 0] but the pooled Wilson bound.
        let (lo, hi) = widen(0.0, 0.0, 0, 5_000);
        let (_, wh) = stats::wilson(0, 5_000, stats::Z95);
        assert_eq!((lo, hi), (0.0, wh));
        // With spread between trials the half-width is t(4 df) = 2.776 standard errors.
        let rates = [0.010, 0.012, 0.011, 0.009, 0.013];
        let (m, lo_t, hi_t) = stats::mean_ci95(&rates);
        let se = (rates.iter().map(|r| (r - m) * (r - m)).sum::<f64>() / 4.0 / 5.0).sqrt();
        assert!(((hi_t - m) / se - 2.776).abs() < 1e-3, "{hi_t} {se}");
        let (lo, hi) = widen(lo_t, hi_t, 55, 5_000);
        assert!(lo <= lo_t && hi >= hi_t && lo < m && hi > m);
    }

    #[test]
    fn details_parse() {
        assert_eq!(detail_column("saturated counters"), "saturated_counters");
        assert_eq!(
            detail_column("overflow bound (Fan et al., counter >= 16)"),
            "overflow_bound_fan_et_al_counter_16"
        );
        assert_eq!(detail_number("0.9500"), Some(0.95));
        assert_eq!(detail_number("1.37e-15"), Some(1.37e-15));
        assert_eq!(detail_number("12 (max)"), Some(12.0));
        assert_eq!(detail_number("n/a"), None);
    }
}
