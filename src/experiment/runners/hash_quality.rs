//! The `hash-quality` runner: FPR and χ² uniformity of bit positions per hash × strategy × keys.

use super::{
    RunOutput, build, insert_keys, mean_interval, missing_keys, query_absent, rate_interval,
    series_row, set_classic, set_fpr, trial_spec,
};
use crate::error::Result;
use crate::experiment::curves;
use crate::experiment::{Experiment, Progress, TheoryName};
use crate::filter::Filter;
use crate::hash::{AnyHasher, AnyStrategy};
use crate::measure::PositionHistogram;
use crate::registry::AnyFilter;
use crate::spec::FilterSpec;
use crate::stats;
use crate::theory;
use crate::workload::KeyGen;

/// Add the bit positions of keys `0..sample` (as `fspec`'s hash and strategy compute them for
/// k indexes into m) to the histogram `counts` of equal bins of `[0, m)`.
fn bin_positions(
    fspec: &FilterSpec,
    keygen: &KeyGen,
    sample: u64,
    k: u32,
    m: u64,
    counts: &mut [u64],
) {
    let hasher = AnyHasher::new(fspec.hash, fspec.seed);
    let strategy = AnyStrategy(fspec.strategy);
    let mut hist = PositionHistogram::new(m, counts.len());
    let mut buf = Vec::with_capacity(128);
    for i in 0..sample {
        keygen.present(i, &mut buf);
        hist.add_item(&strategy, &hasher, &buf, k);
    }
    for (c, h) in counts.iter_mut().zip(hist.counts()) {
        *c += h;
    }
}

pub(super) fn run(exp: &Experiment, progress: &dyn Progress) -> Result<RunOutput> {
    let spec = &exp.spec;
    let series = exp.series();
    let bins = spec.params.bins.unwrap_or(64).max(2);
    let total: u64 = series
        .iter()
        .map(|s| u64::from(spec.trials) * (s.spec.n + spec.queries))
        .sum();
    progress.begin(total);
    let mut out = RunOutput::default();
    for s in &series {
        progress.status(&s.label);
        let mut counts = vec![0u64; bins as usize];
        let mut rates = Vec::new();
        let (mut fp, mut queries, mut fneg, mut refusals) = (0u64, 0u64, 0u64, 0u64);
        let mut last: Option<AnyFilter> = None;
        let mut model = Vec::new();
        for t in 0..spec.trials {
            let (key_seed, fspec) = trial_spec(s, spec.seed, t, spec.trials)?;
            let mut f = build(&fspec)?;
            let n = fspec.n;
            let sample = spec.params.position_sample.unwrap_or(n).min(n);
            let keygen = KeyGen::new(s.keys, key_seed);
            // A refused insert (a cuckoo table that a weak hash fills early) is counted, not fatal.
            let mut refused = Vec::new();
            insert_keys(&mut f, &keygen, 0..n, &mut refused, progress);
            refusals += refused.len() as u64;
            if f.kind().caps().exposes_positions {
                let (m, k) = (f.bits(), f.k());
                bin_positions(&fspec, &keygen, sample, k, m, &mut counts);
            }
            let mut buf = Vec::with_capacity(128);
            let tfp = query_absent(&f, &keygen, spec.queries, &mut buf);
            progress.advance(spec.queries);
            // No false negatives, checked on the sample whose positions were binned.
            fneg += missing_keys(&f, &keygen, sample, &refused);
            rates.push(tfp as f64 / spec.queries as f64);
            fp += tfp;
            queries += spec.queries;
            model.push(f.expected_fpr());
            last = Some(f);
        }
        let Some(f) = last else { continue };
        let mut r = series_row(s, &f);
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
        r.set("false_negatives", fneg)
            .set("insert_failures", refusals);
        if refusals > 0 {
            out.summary.push(format!(
                "{}: {refusals} of {} inserts refused (filter full), over {} trial(s)",
                s.label,
                u64::from(spec.trials) * n,
                rates.len()
            ));
        }
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
