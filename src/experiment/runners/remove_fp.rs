//! The `remove-fp` runner: false negatives after removing false positives.

use super::{RunOutput, build, insert_keys, mean_interval, missing_keys, trial_spec};
use crate::error::{Error, Result};
use crate::experiment::curves;
use crate::experiment::table::Row;
use crate::experiment::{Experiment, Progress, TheoryName};
use crate::filter::Filter;
use crate::workload::KeyGen;

pub(super) fn run(exp: &Experiment, progress: &dyn Progress) -> Result<RunOutput> {
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
        let mut insert_failures = 0u64;
        for t in 0..spec.trials {
            let (key_seed, fspec) = trial_spec(s, spec.seed, t, spec.trials)?;
            let mut f = build(&fspec)?;
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
            let mut not_in = Vec::new();
            insert_keys(&mut f, &keygen, 0..n, &mut not_in, progress);
            insert_failures += not_in.len() as u64;
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
                // Keys whose insert was refused were never in: not false negatives.
                let fneg = missing_keys(&f, &keygen, n, &not_in);
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
                .set("insert_failures", insert_failures)
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
