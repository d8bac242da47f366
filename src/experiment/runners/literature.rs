//! The `literature` runner: every `[[points]]` entry of the spec is a number a paper or a
//! trusted implementation published; bloomlab builds the same configuration, measures it, and
//! tests the published number against the measurement.
//!
//! - A false-positive rate is a binomial proportion: `z = (measured − published) / σ`, with
//!   `σ² = p(1−p)/q_bloomlab + p(1−p)/q_published` at the published p when the source states its
//!   query count (`sample`); otherwise only bloomlab's noise counts, the published figure is
//!   given half a unit of its last digit of slack, and the row says so. With several trials σ
//!   comes from the measurement's own interval.
//! - A size (bits per key, slots, rows, bits, hash functions) is deterministic: it agrees when it
//!   is within half a unit of the last published digit (plus a stated `tolerance`).
//! - Guava's rows are exact: bloomlab's Guava-compatible filter against the counts and sizes that
//!   real Guava 31.1 wrote (`tests/guava/vectors/literature.csv`) and that Guava's test publishes.
//!
//! A row expected to agree fails the run when `|z| > z_max`; a row whose published figure is
//! known to be wrong (`expect = "differs"`) fails it when bloomlab's measurement leaves
//! bloomlab's own model (`|z_model| > z_max`), i.e. when the explanation stops holding.

use super::RunOutput;
use super::literature_explain::{self as explain, Outcome, published_value};
use super::sweep::{measure_with_progress, work_of};
use crate::error::{Error, Param, Result};
use crate::experiment::published::{Expect, LiteratureParams, PublishedPoint, Quantity};
use crate::experiment::table::Row;
use crate::experiment::{Experiment, Progress};
use crate::measure::{MeasureConfig, Measurement};
use crate::spec::FilterSpec;
use crate::stats;
use crate::workload::KeyKind;
use std::collections::HashMap;

/// The measurement a point asks for (`None`: a Guava or a cannot-be-configured row), with the
/// `--quick` size (n, m and inserted keys times `quick.n_scale` unless `fixed_size`) and query
/// count (at most the quick `queries`).
///
/// # Errors
/// A point without a filter where its quantity needs one.
pub(crate) fn point_config(exp: &Experiment, pt: &PublishedPoint) -> Result<Option<MeasureConfig>> {
    if matches!(
        pt.quantity,
        Quantity::None | Quantity::GuavaFalsePositives | Quantity::GuavaSizing
    ) {
        return Ok(None);
    }
    let Some(e) = &pt.filter else {
        return Err(Error::invalid(
            Param::Other("points.filter"),
            &pt.id,
            "a filter = { kind = ..., ... } for a measured quantity",
        ));
    };
    let scale = match (&exp.spec.quick, exp.quick && !pt.fixed_size) {
        (Some(q), true) => q.n_scale.unwrap_or(1.0),
        _ => 1.0,
    };
    let shrink = |n: u64| ((n as f64 * scale).round() as u64).max(1);
    let mut spec = FilterSpec {
        kind: e.kind,
        ..FilterSpec::default()
    };
    e.apply_to(&mut spec);
    spec.n = shrink(spec.n);
    spec.m = spec.m.map(shrink);
    if let Some(h) = e.hash {
        spec.hash = h;
    }
    if let Some(s) = e.strategy {
        spec.strategy = s;
    }
    let full = pt.queries.unwrap_or(exp.spec.queries);
    let queries = if exp.quick {
        full.min(exp.spec.queries)
    } else {
        full
    };
    Ok(Some(MeasureConfig {
        spec,
        keys: KeyKind::U64,
        inserted: pt.inserted.map(shrink),
        queries,
        trials: pt.trials.unwrap_or(1),
        seed: exp.spec.seed,
        check_hits: true,
    }))
}

pub(super) fn run(exp: &Experiment, progress: &dyn Progress) -> Result<RunOutput> {
    let lit = params(exp)?;
    let vectors = explain::GuavaVectors::load(exp, lit)?;
    let points: Vec<&PublishedPoint> = exp.spec.points.iter().map(|p| p.get_ref()).collect();
    let configs = points
        .iter()
        .map(|p| point_config(exp, p))
        .collect::<Result<Vec<_>>>()?;
    // Points that share a configuration share one measurement.
    let mut planned: Vec<String> = Vec::new();
    let mut work = 0;
    for c in configs.iter().flatten() {
        let key = format!("{c:?}");
        if !planned.contains(&key) {
            work += work_of(c);
            planned.push(key);
        }
    }
    let guava_work = points
        .iter()
        .filter(|p| p.quantity == Quantity::GuavaFalsePositives)
        .map(|p| p.guava.as_ref().map_or(0, |g| 3 * g.n))
        .sum::<u64>();
    progress.begin(work + guava_work);
    let mut done: HashMap<String, Measurement> = HashMap::new();
    let mut out = RunOutput::default();
    let mut outcomes = Vec::new();
    for (pt, cfg) in points.iter().zip(&configs) {
        progress.status(&format!("row {} ({})", pt.id, pt.kind));
        let outcome = match (pt.quantity, cfg) {
            (Quantity::GuavaFalsePositives | Quantity::GuavaSizing, _) => {
                explain::guava(pt, &vectors, progress)?
            }
            (_, None) => explain::cannot_configure(pt),
            (_, Some(cfg)) => {
                let key = format!("{cfg:?}");
                if !done.contains_key(&key) {
                    let m = measure_with_progress(cfg, work_of(cfg), progress)
                        .map_err(|e| row_error(pt, &e))?;
                    done.insert(key.clone(), m);
                }
                let m = &done[&key];
                compare(pt, cfg, m, lit.z_max)?
            }
        };
        if let Some(f) = &outcome.failure {
            out.failures
                .push(format!("row {} ({}): {f}", pt.id, pt.kind));
        }
        let mut row = row_of(pt, cfg.as_ref(), &outcome);
        row.set("row", outcomes.len() + 1);
        out.table.push(row);
        outcomes.push(outcome);
    }
    let tests = outcomes.iter().filter(|o| o.statistical).count() as u32;
    let alarm = stats::family_false_alarm(lit.z_max, tests);
    out.markdown = Some(explain::markdown(
        exp, &points, &outcomes, lit.z_max, tests, alarm,
    ));
    out.summary = explain::summary(&points, &outcomes, lit.z_max, tests, alarm);
    Ok(out)
}

fn params(exp: &Experiment) -> Result<&LiteratureParams> {
    exp.spec.literature.as_ref().ok_or_else(|| {
        Error::invalid(
            Param::Other("literature"),
            "none",
            "a [literature] table with z_max and guava_vectors",
        )
    })
}

fn row_error(pt: &PublishedPoint, e: &Error) -> Error {
    Error::invalid(
        Param::Other("points"),
        &pt.id,
        format!("a configuration bloomlab can build and measure ({e})"),
    )
}

/// Compare a measured point with its published figure.
fn compare(
    pt: &PublishedPoint,
    cfg: &MeasureConfig,
    m: &Measurement,
    z_max: f64,
) -> Result<Outcome> {
    let (published, unit) = published_value(pt)?;
    let mut o = Outcome {
        published,
        false_negatives: m.false_negatives,
        ..Outcome::default()
    };
    if m.false_negatives > 0 {
        o.failure = Some(format!("{} false negatives", m.false_negatives));
    }
    match pt.quantity {
        Quantity::Fpr => fpr_outcome(pt, cfg, m, published, unit, z_max, &mut o),
        _ => {
            let v = deterministic_value(pt, m)?;
            o.measured = v;
            o.lo = v;
            o.hi = v;
            let allow = unit / 2.0 + pt.tolerance.unwrap_or(0.0) * published.abs();
            let same = (v - published).abs() <= allow * (1.0 + 1e-12);
            o.basis = match pt.tolerance {
                Some(t) => format!(
                    "exact; within half a unit of the last digit and {} ({})",
                    explain::pct_short(t),
                    pt.tolerance_why.as_deref().unwrap_or("")
                ),
                None => "exact; within half a unit of the last published digit".into(),
            };
            match pt.expect {
                Expect::ByDesign => {
                    o.verdict = "by design".into();
                }
                _ if same => o.verdict = "agrees".into(),
                Expect::Differs => o.verdict = "differs".into(),
                _ => {
                    o.verdict = "differs".into();
                    o.failure.get_or_insert(format!(
                        "bloomlab's {} is {}, the source's {}",
                        quantity_name(pt),
                        explain::plain(v),
                        pt.published
                    ));
                }
            }
        }
    }
    explain::derive(pt, cfg, m, z_max, &mut o)?;
    Ok(o)
}

fn quantity_name(pt: &PublishedPoint) -> String {
    match pt.quantity {
        Quantity::Fpr => "false-positive rate".into(),
        Quantity::BitsPerKey => "bits per key".into(),
        Quantity::Detail => pt.detail.clone().unwrap_or_default(),
        Quantity::MBits => "bit count".into(),
        Quantity::Hashes => "number of hash functions".into(),
        Quantity::GuavaFalsePositives => "false positives".into(),
        Quantity::GuavaSizing => "bit size".into(),
        Quantity::None => String::new(),
    }
}

/// A deterministic quantity of the measured filter.
fn deterministic_value(pt: &PublishedPoint, m: &Measurement) -> Result<f64> {
    Ok(match pt.quantity {
        Quantity::BitsPerKey => m.bits_per_key,
        Quantity::MBits => m.m_bits as f64,
        Quantity::Hashes => f64::from(m.k),
        _ => {
            let key = pt.detail.as_deref().unwrap_or("");
            m.details
                .iter()
                .find(|(k, _)| k == key)
                .and_then(|(_, v)| v.parse::<f64>().ok())
                .ok_or_else(|| {
                    Error::invalid(
                        Param::Other("points.detail"),
                        key,
                        format!("a numeric detail the {} filter reports", m.filter),
                    )
                })?
        }
    })
}

fn fpr_outcome(
    pt: &PublishedPoint,
    cfg: &MeasureConfig,
    m: &Measurement,
    published: f64,
    unit: f64,
    z_max: f64,
    o: &mut Outcome,
) {
    o.statistical = true;
    o.measured = m.fpr;
    o.lo = m.fpr_ci95[0];
    o.hi = m.fpr_ci95[1];
    o.model = Some(m.theory.model);
    let se_b = explain::measured_se(m, cfg, published);
    let se_p = pt
        .sample
        .map_or(0.0, |s| (published * (1.0 - published) / s as f64).sqrt());
    let sigma = (se_b * se_b + se_p * se_p).sqrt();
    let d = m.fpr - published;
    let digits = if pt.sample.is_some() || pt.target {
        0.0
    } else {
        unit / 2.0
    };
    let slack = digits + explain::bits_rounding_slack(pt, m);
    // `+ 0.0` turns the −0 of a difference inside the slack into 0.
    let z = d.signum() * (d.abs() - slack).max(0.0) / sigma + 0.0;
    o.z = Some(z);
    let ours = if cfg.trials > 1 {
        format!(
            "bloomlab's spread over {} filters of {} queries",
            cfg.trials,
            explain::thousands(cfg.queries)
        )
    } else {
        format!(
            "bloomlab's binomial noise ({} queries)",
            explain::thousands(m.queries)
        )
    };
    o.basis = match (pt.sample, pt.target) {
        (Some(s), _) => format!(
            "{ours} and the source's ({} queries)",
            explain::thousands(s)
        ),
        (None, true) => format!("{ours}; the figure is a target, exact as printed"),
        (None, false) => format!(
            "{ours} + half a unit of the last published digit (the source states no sample size)"
        ),
    };
    if pt.bits_resolution.is_some() {
        o.basis.push_str(&format!(
            " + the rate's change over the rounding of the bits per key (±{})",
            explain::pct(explain::bits_rounding_slack(pt, m))
        ));
    }
    let model = m.theory.model;
    let z_model = (m.fpr - model) / explain::measured_se(m, cfg, model);
    o.z_model = Some(z_model);
    let agrees = z.abs() <= z_max;
    match pt.expect {
        Expect::Differs => {
            o.verdict = if agrees {
                "not resolved at this sample size".into()
            } else {
                "differs".into()
            };
            if z_model.abs() > z_max {
                o.failure.get_or_insert(format!(
                    "bloomlab's measurement {} is z = {z_model:.2} from its own model {}: the row's explanation no longer holds",
                    explain::pct(m.fpr),
                    explain::pct(model)
                ));
            }
        }
        Expect::ByDesign => o.verdict = "by design".into(),
        Expect::Agrees | Expect::CannotConfigure => {
            o.verdict = if agrees { "agrees" } else { "differs" }.into();
            if !agrees {
                o.failure.get_or_insert(format!(
                    "measured {} [{}, {}] against the published {}: z = {z:.2} (|z| > {z_max})",
                    explain::pct(m.fpr),
                    explain::pct(o.lo),
                    explain::pct(o.hi),
                    pt.published
                ));
            }
        }
    }
}

/// One CSV row.
fn row_of(pt: &PublishedPoint, cfg: Option<&MeasureConfig>, o: &Outcome) -> Row {
    let mut r = Row::new();
    let ratio = |v: f64| {
        if o.published == 0.0 {
            f64::NAN
        } else {
            v / o.published
        }
    };
    r.set("series", pt.kind.as_str())
        .set(
            "row_type",
            if pt.expect == Expect::CannotConfigure {
                "not-possible"
            } else {
                "measured"
            },
        )
        .set("x", pt.id.as_str())
        .set("id", pt.id.as_str())
        .set("kind", pt.kind.as_str())
        .set("source", pt.source.as_str())
        .set("config", pt.config.as_str())
        .set("quantity", quantity_name(pt))
        .set("published", pt.published.as_str())
        .set("published_value", o.published)
        .set("sample", pt.sample)
        .set(
            "command",
            cfg.map(explain::command_line).or(o.command.clone()),
        )
        .set("n", cfg.map(|c| c.inserted.unwrap_or(c.spec.n)))
        .set("queries", cfg.map(|c| c.queries * u64::from(c.trials)))
        .set("measured", o.measured)
        .set("measured_lo", o.lo)
        .set("measured_hi", o.hi)
        .set("model", o.model)
        .set("z", o.z)
        .set("z_basis", o.basis.as_str())
        .set("z_model", o.z_model)
        .set("ratio", ratio(o.measured))
        .set("ratio_lo", ratio(o.lo))
        .set("ratio_hi", ratio(o.hi))
        .set("expect", explain::expect_name(pt.expect))
        .set("verdict", o.verdict.as_str())
        .set("explanation", o.explanation.as_str())
        .set("false_negatives", o.false_negatives)
        .set("check", if o.failure.is_some() { "FAIL" } else { "ok" });
    r
}
