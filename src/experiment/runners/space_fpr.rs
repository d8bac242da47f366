//! The `space-fpr` runner: every kind sized by its own rule for each target rate p of the
//! sweep that it can reach, built at its design n (static kinds from their whole key set),
//! measured with [`crate::measure::measure`]: bits per key against measured FPR.
//!
//! Kinds with a discrete width (cuckoo 4 to 32 bits, xor/binary fuse 8 or 16, ribbon 1 to 32,
//! quotient's remainder 1 to 32) give the same filter for many p (their
//! [`FilterSpec::plan`]'s width); each configuration is measured once (at the largest p that picks it,
//! the first in a descending sweep). A p the kind cannot reach (xor below 2^−16) is left out,
//! not an error. Queries per point: `⌈target/p⌉` so that about `target` false positives are
//! expected (`params.target_false_positives`, default 100), at least 10⁴ and at most the
//! spec's `queries`.

use super::sweep::{measure_with_progress, measurement_row, work_of};
use super::{RunOutput, apply_bpk};
use crate::error::Result;
use crate::experiment::{Experiment, Progress, SeriesDef};
use crate::filter::Width;
use crate::measure::MeasureConfig;
use crate::spec::FilterSpec;
use crate::theory;

/// Expected false positives per point when the spec does not say.
const DEFAULT_TARGET_FP: u64 = 100;
/// Fewest queries per point.
const MIN_QUERIES: u64 = 10_000;

/// The filter series `s` is built as for target rate `p`, or `None` when its kind cannot
/// reach `p` (fingerprint kinds below their widest fingerprint's rate).
///
/// # Errors
/// `bits_per_key × n` is not a bit count.
pub(super) fn point_spec(s: &SeriesDef, p: f64) -> Option<Result<FilterSpec>> {
    let mut fs = FilterSpec {
        p: Some(p),
        m: None,
        ..s.spec.clone()
    };
    if let Err(e) = apply_bpk(&mut fs, s.bits_per_key) {
        return Some(Err(e));
    }
    // A kind with a width reaches p when its plan can pick a width for it.
    let reachable =
        fs.fingerprint_bits != 0 || fs.kind.caps().width == Width::None || fs.plan().is_ok();
    reachable.then_some(Ok(fs))
}

/// What makes two points of one series the same filter: the width the kind's plan picks for p
/// (fingerprint, remainder or result bits: every p that picks it builds the same filter at
/// this n), else p itself.
fn configuration(fs: &FilterSpec) -> Option<u32> {
    fs.p?;
    match fs.kind.caps().width {
        Width::None => None,
        Width::BucketFingerprints | Width::Remainders | Width::Fingerprints | Width::Results => {
            fs.plan().ok().and_then(|plan| plan.widths.fingerprint_bits)
        }
    }
}

/// The points of series `s`: (p, spec), one per distinct filter.
pub(super) fn points(exp: &Experiment, s: &SeriesDef) -> Vec<(f64, Result<FilterSpec>)> {
    let mut seen: Vec<u32> = Vec::new();
    let mut out = Vec::new();
    for p in exp.sweep_values() {
        let Some(fs) = point_spec(s, p) else {
            continue;
        };
        if let Some(c) = fs.as_ref().ok().and_then(configuration) {
            if seen.contains(&c) {
                continue;
            }
            seen.push(c);
        }
        out.push((p, fs));
    }
    out
}

/// The rate the queries are planned for: a kind with a width is at the rate its width gives,
/// not the target p that picked it (its plan's model rate at n: xor/binary-fuse/ribbon `2^−f`,
/// quotient at its load; cuckoo at most `2b/2^f` = `8/2^f`, half of it taken, for a table
/// about half full or more); other kinds the target p.
fn expected_rate(fs: &FilterSpec, p: f64) -> f64 {
    match (fs.kind.caps().width, configuration(fs)) {
        (Width::BucketFingerprints, Some(f)) => 4.0 / 2f64.powi(f as i32),
        (Width::Remainders | Width::Fingerprints | Width::Results, Some(_)) => {
            fs.plan().map_or(p, |plan| plan.fpr())
        }
        _ => p,
    }
    .min(p)
}

/// Queries at expected rate `p`.
fn queries_for(exp: &Experiment, p: f64) -> u64 {
    let target = exp
        .spec
        .params
        .target_false_positives
        .unwrap_or(DEFAULT_TARGET_FP);
    let want = (target as f64 / p).ceil();
    let cap = exp.spec.queries.max(1);
    if want.is_finite() {
        (want as u64).clamp(MIN_QUERIES.min(cap), cap)
    } else {
        cap
    }
}

pub(super) fn run(exp: &Experiment, progress: &dyn Progress) -> Result<RunOutput> {
    let series = exp.series();
    let mut plan = Vec::new();
    for s in &series {
        let mut v = Vec::new();
        for (p, fs) in points(exp, s) {
            let fs_ok = fs?;
            v.push((
                p,
                MeasureConfig {
                    spec: fs_ok.clone(),
                    keys: s.keys,
                    inserted: None,
                    queries: queries_for(exp, expected_rate(&fs_ok, p)),
                    trials: exp.spec.trials,
                    seed: exp.spec.seed,
                    check_hits: true,
                },
            ));
        }
        plan.push(v);
    }
    progress.begin(plan.iter().flatten().map(|(_, c)| work_of(c)).sum());
    let mut out = RunOutput::default();
    for (s, points) in series.iter().zip(&plan) {
        progress.status(&s.label);
        for (p, cfg) in points {
            let m = measure_with_progress(cfg, work_of(cfg), progress)?;
            let mut r = measurement_row(s, cfg, &m);
            if let Some(g) = &exp.spec.filters[s.entry].get_ref().group {
                r.set("group", g.as_str());
            }
            r.set("var", "p").set("x", *p).set(
                "lower_bound_bits_per_key",
                theory::lower_bound_bits_per_key(*p),
            );
            out.table.push(r);
        }
    }
    Ok(out)
}
