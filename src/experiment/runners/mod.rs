//! The runners: each turns an [`Experiment`] into a [`Table`] (one row per series × point).
//!
//! Seeds: trial `t` of a point uses key seed `mix64(seed + t)` and hash seed
//! `filter seed ^ mix64(seed + t)` when there are several trials, and `seed` / the filter's own
//! seed for a single trial — the same rule as [`crate::measure::measure`], so a row can be
//! reproduced with `bloomlab measure --seed`.

pub(crate) mod choose;
mod estimators;
mod fill;
mod hash_quality;
mod literature;
mod literature_explain;
mod memory;
mod remove_fp;
mod scenarios;
mod space_fpr;
mod sweep;

pub(crate) use literature::point_config as literature_config;
pub(crate) use literature_explain::parse_published;
pub use memory::{hashset_buckets, hashset_table_bytes};

use super::curves;
use super::table::{Row, Table};
use super::{Experiment, Progress, RunnerKind, SeriesDef};
use crate::error::{Error, Result};
use crate::filter::Filter;
use crate::hash::mix64;
use crate::registry::AnyFilter;
use crate::spec::FilterSpec;
use crate::stats;
use crate::theory;
use crate::workload::KeyGen;

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
    /// Failed checks (see [`super::RunReport::failures`]).
    pub failures: Vec<String>,
}

/// Run an experiment's runner.
///
/// # Errors
/// Invalid parameters, allocation failures, a memory experiment without the counting allocator.
pub fn run(exp: &Experiment, progress: &dyn Progress) -> Result<RunOutput> {
    let mut out = match exp.spec.runner {
        RunnerKind::Sweep => sweep::run(exp, progress),
        RunnerKind::Fill => fill::run(exp, progress),
        RunnerKind::Memory => memory::run(exp, progress),
        RunnerKind::HashQuality => hash_quality::run(exp, progress),
        RunnerKind::RemoveFp => remove_fp::run(exp, progress),
        RunnerKind::Scenarios => scenarios::run(exp, progress),
        RunnerKind::SpaceFpr => space_fpr::run(exp, progress),
        RunnerKind::Estimators => estimators::run(exp, progress),
        RunnerKind::Choose => choose::run(exp, progress),
        RunnerKind::Literature => literature::run(exp, progress),
    }?;
    add_curves(exp, &mut out.table);
    Ok(out)
}

/// A filter a run will build (one per series × point; trials differ only in seeds): what
/// validation checks before anything runs.
#[derive(Debug)]
pub(crate) struct Planned {
    /// Index of the `[[filters]]` entry.
    pub entry: usize,
    /// Series label.
    pub label: String,
    /// The sweep value, if any.
    pub x: Option<f64>,
    /// Index of the scenario (scenarios runner).
    pub scenario: Option<usize>,
    /// The spec the runner would build, or why it cannot form one.
    pub spec: Result<FilterSpec>,
    /// Keys inserted into it (at most).
    pub inserted: u64,
}

/// Every filter the runner of `exp` would build, with the spec computed by the same functions
/// the runner uses.
pub(crate) fn plan(exp: &Experiment) -> Vec<Planned> {
    let xs = exp.sweep_values();
    let var = exp.sweep_var();
    let mut out = Vec::new();
    for s in &exp.series() {
        let mut push =
            |x: Option<f64>, scenario, spec: Result<FilterSpec>, inserted: Option<u64>| {
                let inserted = inserted
                    .or_else(|| spec.as_ref().ok().map(|f| f.n))
                    .unwrap_or(0);
                out.push(Planned {
                    entry: s.entry,
                    label: s.label.clone(),
                    x,
                    scenario,
                    spec,
                    inserted,
                });
            };
        match (exp.spec.runner, var) {
            (RunnerKind::Sweep, Some(var)) => {
                for &x in &xs {
                    match sweep::config(exp, s, var, x) {
                        Ok(c) => push(Some(x), None, Ok(c.spec), c.inserted),
                        Err(e) => push(Some(x), None, Err(e), None),
                    }
                }
            }
            (RunnerKind::Fill, Some(var)) => {
                let spec = trial_spec(s, exp.spec.seed, 0, 1).map(|t| t.1);
                for &x in &xs {
                    let target = spec.as_ref().ok().map(|f| fill::planned_target(f, var, x));
                    push(Some(x), None, spec.clone(), target);
                }
            }
            (RunnerKind::SpaceFpr, _) => {
                for (p, fs) in space_fpr::points(exp, s) {
                    push(Some(p), None, fs, None);
                }
            }
            (RunnerKind::Memory, _) => {
                for &x in &xs {
                    push(Some(x), None, memory::point_spec(s, x as u64), None);
                }
            }
            (RunnerKind::Scenarios, _) => {
                for (j, sc) in exp.spec.scenarios.iter().enumerate() {
                    push(None, Some(j), scenarios::point_spec(s, sc.get_ref()), None);
                }
            }
            _ => push(
                None,
                None,
                trial_spec(s, exp.spec.seed, 0, 1).map(|t| t.1),
                None,
            ),
        }
    }
    out
}

/// Trial `t` of series `s`: its key seed and the filter spec to build (the trial's hash seed,
/// bits per key applied).
///
/// # Errors
/// `bits_per_key × n` is not a bit count.
pub(super) fn trial_spec(
    s: &SeriesDef,
    seed: u64,
    t: u32,
    trials: u32,
) -> Result<(u64, FilterSpec)> {
    let (key_seed, hash_seed) = trial_seeds(seed, s.spec.seed, t, trials);
    let mut fspec = FilterSpec {
        seed: hash_seed,
        ..s.spec.clone()
    };
    apply_bpk(&mut fspec, s.bits_per_key)?;
    Ok((key_seed, fspec))
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

/// Apply a series' `bits_per_key` (m = bits_per_key × n) unless m is set.
///
/// # Errors
/// The product is not a bit count (see [`bits_of`]).
pub(super) fn apply_bpk(spec: &mut FilterSpec, bpk: Option<f64>) -> Result<()> {
    if let (Some(b), None) = (bpk, spec.m) {
        spec.m = Some(bits_of(b * spec.n as f64)?);
        spec.p = None;
    }
    Ok(())
}

/// A computed bit count `m` (from bits per key × n), rounded: refused when it is not finite or
/// does not fit in 63 bits (rather than saturating into a filter nobody asked for).
///
/// # Errors
/// [`Error::InvalidParameter`] naming m.
pub(super) fn bits_of(m: f64) -> Result<u64> {
    if !(m.is_finite() && m < 9_223_372_036_854_775_808.0) {
        return Err(Error::invalid(
            crate::error::Param::M,
            format!("{m:.3e}"),
            "bits_per_key × n: a bit count below 2^63",
        ));
    }
    Ok(m.round().max(1.0) as u64)
}

/// Insert keys `from..to` of `keygen` with `try_insert`: a refused key (a full cuckoo table,
/// a non-scaling filter at capacity) is recorded in `refused`, never a panic. Progress is
/// reported every 2¹⁶ keys.
pub(super) fn insert_keys(
    f: &mut dyn Filter,
    keygen: &KeyGen,
    keys: std::ops::Range<u64>,
    refused: &mut Vec<u64>,
    progress: &dyn Progress,
) {
    let mut buf = Vec::with_capacity(128);
    let start = keys.start;
    for i in keys.clone() {
        keygen.present(i, &mut buf);
        if f.try_insert(&buf).is_err() {
            refused.push(i);
        }
        if (i + 1 - start).is_multiple_of(1 << 16) {
            progress.advance(1 << 16);
        }
    }
    progress.advance((keys.end.saturating_sub(start)) % (1 << 16));
}

/// Inserted keys (`0..inserted`, except the `refused` ones, sorted) that `f` does not find:
/// false negatives, which the contract says never happen.
pub(super) fn missing_keys(f: &dyn Filter, keygen: &KeyGen, inserted: u64, refused: &[u64]) -> u64 {
    let mut buf = Vec::with_capacity(128);
    let mut fneg = 0;
    for i in 0..inserted {
        if refused.binary_search(&i).is_ok() {
            continue;
        }
        keygen.present(i, &mut buf);
        fneg += u64::from(!f.contains(&buf));
    }
    fneg
}

/// Build a filter (errors are reported once, by the caller of the run).
pub(super) fn build(spec: &FilterSpec) -> Result<AnyFilter> {
    spec.build()
}

/// Build `spec` and throw it away (errors are reported by the real build that follows).
pub(super) fn spec_warm_up(spec: &FilterSpec) -> Option<AnyFilter> {
    spec.build().ok()
}

/// Mean and 95% Student-t interval of values (for counts and other non-rates); the interval of
/// non-negative values is cut at 0.
pub(super) fn mean_interval(v: &[f64]) -> (f64, f64, f64) {
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
pub(super) fn widen(lo: f64, hi: f64, fp: u64, queries: u64) -> (f64, f64) {
    let (wl, wh) = stats::wilson(fp, queries, stats::Z95);
    (lo.max(0.0).min(wl), hi.min(1.0).max(wh))
}

/// FPR with its 95% interval: over several trials, the mean of per-trial rates with a t
/// interval, widened to at least the pooled Wilson interval; for one trial, Wilson.
pub(super) fn rate_interval(rates: &[f64], fp: u64, queries: u64) -> (f64, f64, f64, &'static str) {
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

pub(super) fn series_row(s: &SeriesDef, f: &dyn Filter) -> Row {
    let mut r = Row::new();
    r.set("series", s.label.as_str())
        .set("row_type", "measured")
        .set("filter", f.kind().name())
        .set("hash", f.hash_id().name())
        .set("strategy", f.strategy_id().map(|x| x.name().to_string()))
        .set("keys", s.keys.name());
    r
}

pub(super) fn set_fpr(r: &mut Row, fpr: (f64, f64, f64, &'static str)) {
    r.set("fpr", fpr.0)
        .set("fpr_lo", fpr.1)
        .set("fpr_hi", fpr.2)
        .set("ci_method", fpr.3);
}

/// Classic and exact theory for (m, n, k).
pub(super) fn set_classic(r: &mut Row, classic: Option<(u64, u32)>, n: u64) {
    if let Some((m, k)) = classic {
        r.set("theory_classic", theory::fpr_classic(m, n, k));
        r.set("theory_exact", theory::fpr_exact(m, n, k));
    }
}

/// Query `queries` absent keys; returns the false positives.
pub(super) fn query_absent(
    f: &dyn Filter,
    keygen: &KeyGen,
    queries: u64,
    buf: &mut Vec<u8>,
) -> u64 {
    let mut fp = 0;
    for j in 0..queries {
        keygen.absent(j, buf);
        fp += u64::from(f.contains(buf));
    }
    fp
}

/// The `[[curves]]` rows: formulas over a range.
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
}
