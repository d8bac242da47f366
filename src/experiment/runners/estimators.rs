//! The `estimators` runner: how far the count, union and intersection estimates
//! ([`crate::theory::estimate`]) fall from the truth, against the error bars they report.
//!
//! At each point x (the fill: items in each filter as a fraction of its design capacity n), a
//! trial builds two filters of the series' spec with the same hash seed, A with keys
//! `0..x·n` and B with keys `x·n/2 .. 3x·n/2`, so `|A| = |B| = x·n`, `|A ∩ B| = x·n/2` and
//! `|A ∪ B| = 1.5·x·n`. It records each estimate's relative error and its reported standard
//! error. Standard, counting and blocked filters are estimated; other kinds are skipped.

use super::{RunOutput, build, mean_interval, trial_spec};
use crate::error::Result;
use crate::experiment::table::Row;
use crate::experiment::{Experiment, Progress};
use crate::filter::Filter;
use crate::registry::AnyFilter;
use crate::theory::estimate::Estimate;
use crate::workload::KeyGen;

/// The three estimates of one trial, and the counting filter's counter-sum count.
struct Trial {
    est: [Estimate; 3],
    counter_sum: Option<f64>,
    naive_count: Option<f64>,
}

fn estimates(a: &AnyFilter, b: &AnyFilter) -> Result<Option<Trial>> {
    Ok(Some(match (a, b) {
        (AnyFilter::Standard(a), AnyFilter::Standard(b)) => Trial {
            est: [
                a.estimate(),
                a.estimate_union(b)?,
                a.estimate_intersection(b)?,
            ],
            counter_sum: None,
            naive_count: None,
        },
        (AnyFilter::Counting(a), AnyFilter::Counting(b)) => Trial {
            est: [
                a.estimate(),
                a.estimate_union(b)?,
                a.estimate_intersection(b)?,
            ],
            counter_sum: Some(a.estimate_from_counter_sum()),
            naive_count: None,
        },
        (AnyFilter::Blocked(a), AnyFilter::Blocked(b)) => Trial {
            est: [
                a.estimate(),
                a.estimate_union(b)?,
                a.estimate_intersection(b)?,
            ],
            counter_sum: None,
            // The standard formula with k (not k_eff) on the blocked filter's bits.
            naive_count: Some(crate::theory::estimate_count(a.bits(), a.k(), a.ones())),
        },
        _ => return Ok(None),
    }))
}

const NAMES: [&str; 3] = ["count", "union", "intersection"];

pub(super) fn run(exp: &Experiment, progress: &dyn Progress) -> Result<RunOutput> {
    let spec = &exp.spec;
    let series = exp.series();
    let xs = exp.sweep_values();
    let total: u64 = series
        .iter()
        .map(|s| {
            let per: f64 = xs.iter().map(|x| 2.0 * x * s.spec.n as f64).sum();
            u64::from(spec.trials) * per as u64
        })
        .sum();
    progress.begin(total);
    let mut out = RunOutput::default();
    let mut buf = Vec::with_capacity(64);
    'series: for s in &series {
        progress.status(&s.label);
        for &x in &xs {
            let a_n = (x * s.spec.n as f64).round().max(2.0) as u64;
            let truth = [a_n as f64, (a_n + a_n / 2) as f64, (a_n - a_n / 2) as f64];
            let mut rel: [Vec<f64>; 3] = Default::default();
            let mut pred: [Vec<f64>; 3] = Default::default();
            let mut covered = [0u32; 3];
            let (mut sums, mut naive) = (Vec::new(), Vec::new());
            let mut kind = None;
            for t in 0..spec.trials {
                let (key_seed, fspec) = trial_spec(s, spec.seed, t, spec.trials)?;
                let keygen = KeyGen::new(s.keys, key_seed);
                let (mut a, mut b) = (build(&fspec)?, build(&fspec)?);
                for i in 0..a_n {
                    keygen.present(i, &mut buf);
                    a.insert(&buf);
                    keygen.present(i + a_n / 2, &mut buf);
                    b.insert(&buf);
                }
                progress.advance(2 * a_n);
                let Some(tr) = estimates(&a, &b)? else {
                    let why = format!("{} has no estimator", a.kind());
                    out.skipped.push((s.label.clone(), why));
                    continue 'series;
                };
                kind = Some(a.kind());
                for q in 0..3 {
                    let e = tr.est[q];
                    rel[q].push((e.value - truth[q]) / truth[q]);
                    pred[q].push(e.std_err / truth[q]);
                    let (lo, hi) = e.ci95();
                    covered[q] += u32::from(lo <= truth[q] && truth[q] <= hi);
                }
                if let Some(c) = tr.counter_sum {
                    sums.push((c - truth[0]) / truth[0]);
                }
                if let Some(c) = tr.naive_count {
                    naive.push((c - truth[0]) / truth[0]);
                }
            }
            let Some(kind) = kind else { continue };
            let mut r = Row::new();
            r.set("series", s.label.as_str())
                .set("row_type", "measured")
                .set("filter", kind.name())
                .set("keys", s.keys.name())
                .set("var", "fill")
                .set("x", x)
                .set("n_design", s.spec.n)
                .set("p_design", s.spec.p)
                .set("items_each", a_n)
                .set("trials", spec.trials);
            for q in 0..3 {
                let name = NAMES[q];
                let (m, lo, hi) = mean_interval(&rel[q]);
                let rms = (rel[q].iter().map(|e| e * e).sum::<f64>() / rel[q].len() as f64).sqrt();
                r.set(&format!("{name}_truth"), truth[q])
                    .set(&format!("{name}_bias"), m)
                    .set(&format!("{name}_bias_lo"), lo)
                    .set(&format!("{name}_bias_hi"), hi)
                    .set(&format!("{name}_rms_rel_err"), rms)
                    .set(&format!("{name}_model_rel_err"), mean_interval(&pred[q]).0)
                    .set(
                        &format!("{name}_ci95_coverage"),
                        f64::from(covered[q]) / f64::from(spec.trials),
                    );
            }
            if !sums.is_empty() {
                r.set("counter_sum_bias", mean_interval(&sums).0);
            }
            if !naive.is_empty() {
                r.set("count_with_k_bias", mean_interval(&naive).0);
            }
            out.table.push(r);
        }
    }
    Ok(out)
}
