//! The `fill` runner: one filter per trial, filled step by step and queried at each checkpoint.

use super::{
    RunOutput, build, insert_keys, mean_interval, query_absent, rate_interval, set_classic,
    set_fpr, trial_spec,
};
use crate::error::{Error, Param, Result};
use crate::experiment::curves;
use crate::experiment::table::Row;
use crate::experiment::{Experiment, Progress, SeriesDef, SweepVar, TheoryName};
use crate::filter::Filter;
use crate::spec::FilterSpec;
use crate::workload::KeyGen;
use std::collections::HashSet;

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

/// Slots of a fingerprint filter: `buckets` from its details × 4 (cuckoo), or `slots`
/// (quotient).
fn slots(f: &dyn Filter) -> Result<u64> {
    detail(f, "buckets")
        .and_then(|v| detail_number(&v))
        .map(|b| b as u64 * 4)
        .or_else(|| {
            detail(f, "slots")
                .and_then(|v| detail_number(&v))
                .map(|s| s as u64)
        })
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

/// Keys inserted by the checkpoint at `var = x` for a filter of capacity `n` (and `slots`
/// slots, for `load`).
fn checkpoint(var: SweepVar, x: f64, n: u64, slots: u64) -> u64 {
    match var {
        SweepVar::Fill => (x * n as f64).round() as u64,
        SweepVar::Inserted => x as u64,
        _ => (x * slots as f64).ceil() as u64,
    }
}

/// [`checkpoint`] before the filter is built: slots from the kind's plan
/// ([`FilterSpec::plan`]'s cells: what validation checks against the key generator).
pub(super) fn planned_target(fspec: &FilterSpec, var: SweepVar, x: f64) -> u64 {
    let slots = if var == SweepVar::Load {
        fspec.plan().map_or(0, |p| p.cells)
    } else {
        0
    };
    checkpoint(var, x, fspec.n, slots)
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

pub(super) fn run(exp: &Experiment, progress: &dyn Progress) -> Result<RunOutput> {
    let var = exp
        .sweep_var()
        .ok_or_else(|| exp.err_at("sweep", "missing"))?;
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
    for s in &series {
        progress.status(&s.label);
        let mut accs = vec![Acc::default(); xs.len()];
        for t in 0..spec.trials {
            let (key_seed, fspec) = trial_spec(s, spec.seed, t, spec.trials)?;
            let mut f = build(&fspec)?;
            let slot_count = if var == SweepVar::Load {
                Some(slots(&f)?)
            } else {
                None
            };
            let keygen = KeyGen::new(s.keys, key_seed);
            let mut buf = Vec::with_capacity(128);
            let mut next = 0u64;
            let mut failed: Vec<u64> = Vec::new();
            for &ci in &order {
                let x = xs[ci];
                let target = checkpoint(var, x, fspec.n, slot_count.unwrap_or(0));
                KeyGen::check_n(target)?;
                if target > next {
                    insert_keys(&mut f, &keygen, next..target, &mut failed, progress);
                    next = target;
                }
                let fp = query_absent(&f, &keygen, spec.queries, &mut buf);
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

#[cfg(test)]
mod tests {
    use super::*;

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
