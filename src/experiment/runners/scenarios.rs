//! The `scenarios` runner: each `[[scenarios]]` entry × each filter, measured.

use super::sweep::{measure_with_progress, measurement_row, work_of};
use super::{RunOutput, apply_bpk};
use crate::error::{Error, Result};
use crate::experiment::table::Row;
use crate::experiment::{Experiment, Progress, Scenario, SeriesDef, pct_label};
use crate::measure::MeasureConfig;
use crate::spec::FilterSpec;

/// The filter series `s` is built as for scenario `sc`.
///
/// # Errors
/// `bits_per_key × n` is not a bit count.
pub(super) fn point_spec(s: &SeriesDef, sc: &Scenario) -> Result<FilterSpec> {
    let mut fs = FilterSpec {
        n: sc.n,
        p: Some(sc.p),
        m: None,
        ..s.spec.clone()
    };
    apply_bpk(&mut fs, s.bits_per_key)?;
    Ok(fs)
}

pub(super) fn run(exp: &Experiment, progress: &dyn Progress) -> Result<RunOutput> {
    let spec = &exp.spec;
    let series = exp.series();
    let mut plan = Vec::new();
    for sc in &spec.scenarios {
        let sc = sc.get_ref();
        for s in &series {
            let cfg = MeasureConfig {
                spec: point_spec(s, sc)?,
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
    let mut md = String::from(
        "| scenario | n | target p | keys | filter | memory | bits/key | measured FPR (95% CI) | FPR / target |\n\
         |---|---:|---:|---|---|---:|---:|---|---:|\n",
    );
    for (sc, s, cfg) in &plan {
        let work = work_of(cfg);
        progress.status(&format!("{} / {}", sc.name, s.label));
        let m = match measure_with_progress(cfg, work, progress) {
            Ok(m) => m,
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
            // Reported once, by the caller of the run.
            Err(e) => return Err(e),
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

/// A count with thousands separators: 1234567 → "1,234,567".
pub(super) fn thousands(v: u64) -> String {
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
