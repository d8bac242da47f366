//! The `sweep` runner: fresh filters per point, measured with [`crate::measure::measure`] (as
//! `bloomlab measure`).

use super::{RunOutput, apply_bpk, bits_of, widen};
use crate::error::{Error, Param, Result};
use crate::experiment::table::Row;
use crate::experiment::{Experiment, Progress, SeriesDef, SweepVar};
use crate::measure::{Control, MeasureConfig, Measurement, measure};
use std::sync::atomic::{AtomicU64, Ordering};

/// The measurement of series `s` at `var = x`.
///
/// # Errors
/// A variable this runner does not sweep; a computed m that is not a bit count.
pub(super) fn config(
    exp: &Experiment,
    s: &SeriesDef,
    var: SweepVar,
    x: f64,
) -> Result<MeasureConfig> {
    let mut spec = s.spec.clone();
    let mut inserted = None;
    match var {
        SweepVar::N => spec.n = x as u64,
        SweepVar::M => {
            spec.m = Some(bits_of(x)?);
            spec.p = None;
            if let Some(b) = s.bits_per_key {
                spec.n = (x / b).round().max(1.0) as u64;
            }
        }
        SweepVar::K => spec.k = Some(x as u32),
        SweepVar::BitsPerKey => {
            spec.m = Some(bits_of(x * spec.n as f64)?);
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
    apply_bpk(&mut spec, s.bits_per_key)?;
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

pub(super) fn work_of(cfg: &MeasureConfig) -> u64 {
    let n = cfg.inserted.unwrap_or(cfg.spec.n);
    u64::from(cfg.trials) * (2 * n + cfg.queries)
}

/// Run one measurement, reporting progress in work units.
pub(super) fn measure_with_progress(
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

pub(super) fn measurement_row(s: &SeriesDef, cfg: &MeasureConfig, m: &Measurement) -> Row {
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

pub(super) fn run(exp: &Experiment, progress: &dyn Progress) -> Result<RunOutput> {
    let var = exp
        .sweep_var()
        .ok_or_else(|| exp.err_at("sweep", "missing"))?;
    let xs = exp.sweep_values();
    let series = exp.series();
    let mut plan = Vec::new();
    for s in &series {
        let mut v = Vec::new();
        for &x in &xs {
            v.push((x, config(exp, s, var, x)?));
        }
        plan.push(v);
    }
    progress.begin(plan.iter().flatten().map(|(_, c)| work_of(c)).sum());
    let mut out = RunOutput::default();
    for (s, points) in series.iter().zip(&plan) {
        progress.status(&s.label);
        for (x, cfg) in points {
            let work = work_of(cfg);
            // An error is reported once, by the caller of the run.
            let m = measure_with_progress(cfg, work, progress)?;
            let mut r = measurement_row(s, cfg, &m);
            r.set("var", var.name()).set("x", *x);
            out.table.push(r);
        }
    }
    Ok(out)
}
