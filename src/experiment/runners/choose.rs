//! The `choose` runner: each `[[workloads]]` entry as `bloomlab choose` ([`crate::choose::run`]).
//!
//! Rows: `measured` (one per candidate: bits/key, FPR with its interval, build, hit and miss
//! ns with min–max as `_lo`/`_hi`, lookup and expected cost, its role), `model` (each admitted
//! kind's model curve of FPR against bits/key, and the lower bound `ε = 2^−b`), `cost-model`
//! (each candidate's expected cost against the negative cost, 1 ns to 10 ms). The markdown has
//! one table per workload and the recommendation with its reason.

use super::RunOutput;
use crate::choose::{self, Choice, Constraints, Target};
use crate::error::Result;
use crate::experiment::table::Row;
use crate::experiment::{Experiment, Progress, Workload};
use crate::measure::Control;
use std::sync::atomic::{AtomicU64, Ordering};

/// The constraints of workload `w` (`quick`: `bloomlab choose --quick`).
///
/// # Errors
/// An unreadable negative cost; [`Constraints::check`]'s refusals.
pub(crate) fn constraints(w: &Workload, quick: bool) -> Result<Constraints> {
    let target = match (w.p, w.bits_per_key) {
        (Some(p), None) => Target::Fpr(p),
        (None, Some(b)) => Target::BitsPerKey(b),
        _ => {
            return Err(crate::Error::invalid(
                crate::Param::P,
                "p and bits_per_key",
                "exactly one of p and bits_per_key",
            ));
        }
    };
    let c = Constraints {
        keys: w.keys,
        negative_cost_ns: choose::parse_duration_ns(&w.negative_cost)?,
        hit_ratio: w.hit_ratio,
        deletes: w.deletes,
        grows: w.grows,
        allow_static: w.allow_static,
        quick,
        ..Constraints::new(w.n, target)
    };
    c.check()?;
    Ok(c)
}

const UNITS: u64 = 1000;

pub(super) fn run(exp: &Experiment, progress: &dyn Progress) -> Result<RunOutput> {
    let workloads: Vec<&Workload> = exp.spec.workloads.iter().map(|w| w.get_ref()).collect();
    progress.begin(UNITS * workloads.len() as u64);
    let mut out = RunOutput::default();
    let mut md = String::new();
    for (wi, w) in workloads.iter().enumerate() {
        let mut c = constraints(w, exp.quick)?;
        c.seed = exp.spec.seed;
        progress.status(&w.name);
        let reported = AtomicU64::new(0);
        let cb = |f: f64| {
            let target = (f.clamp(0.0, 1.0) * UNITS as f64) as u64;
            let prev = reported.fetch_max(target, Ordering::Relaxed);
            if target > prev {
                progress.advance(target - prev);
            }
        };
        let ch = choose::run(
            &c,
            &Control {
                progress: Some(&cb),
                cancel: None,
            },
        )?;
        progress.advance(UNITS.saturating_sub(reported.load(Ordering::Relaxed)));
        for (label, why) in &ch.left_out {
            progress.warn(&format!("workload '{}': {label} left out: {why}", w.name));
        }
        rows(&mut out, w, &ch);
        md.push_str(&markdown(w, &ch));
        let r = &ch.recommendation;
        out.summary
            .push(format!("{} (workload {}): {}", w.name, wi + 1, r.reason));
    }
    out.markdown = Some(md);
    Ok(out)
}

fn rows(out: &mut RunOutput, w: &Workload, ch: &Choice) {
    let c = &ch.constraints;
    let r = &ch.recommendation;
    let best_cost = ch.candidates[r.best].expected_cost_ns;
    for (i, m) in ch.candidates.iter().enumerate() {
        let role = if i == r.best {
            "chosen"
        } else if Some(i) == r.runner_up {
            "runner-up"
        } else {
            ""
        };
        let mut row = Row::new();
        row.set("series", m.label.as_str())
            .set("row_type", "measured")
            .set("x", w.name.as_str())
            .set("workload", w.name.as_str())
            .set("filter", m.spec.kind.name())
            .set("n", c.n)
            .set("keys", c.keys.name())
            .set("negative_cost_ns", c.negative_cost_ns)
            .set("hit_ratio", c.hit_ratio)
            .set("bytes", m.bytes)
            .set("bits_per_key", m.bits_per_key)
            .set("fpr", m.fpr)
            .set("fpr_lo", m.fpr_ci95[0])
            .set("fpr_hi", m.fpr_ci95[1])
            .set("fpr_model", m.fpr_model)
            .set("queries", m.queries)
            .set("build_ns_per_key", m.build_ns_per_key.unwrap_or(f64::NAN))
            .set("hit_ns", m.hit_ns.median)
            .set("hit_ns_lo", m.hit_ns.min)
            .set("hit_ns_hi", m.hit_ns.max)
            .set("miss_ns", m.miss_ns.median)
            .set("miss_ns_lo", m.miss_ns.min)
            .set("miss_ns_hi", m.miss_ns.max)
            .set("lookup_ns", m.lookup_ns)
            .set("expected_cost_ns", m.expected_cost_ns)
            .set("cost_ns", m.expected_cost_ns)
            .set("cost_over_best", m.expected_cost_ns / best_cost)
            .set("pareto", if ch.pareto.contains(&i) { "yes" } else { "no" })
            .set("role", role);
        out.table.push(row);
    }
    // Model curves: one per admitted kind (its first variant), and the lower bound.
    let mut seen = Vec::new();
    let max_bpk = ch
        .candidates
        .iter()
        .map(|m| m.bits_per_key)
        .fold(0.0f64, f64::max)
        * 1.1;
    for m in &ch.candidates {
        if seen.contains(&m.spec.kind) {
            continue;
        }
        seen.push(m.spec.kind);
        for (b, f) in choose::model_curve(&m.spec) {
            if b <= max_bpk && f >= 1e-6 {
                let mut row = Row::new();
                row.set("series", format!("{} model", m.spec.kind))
                    .set("row_type", "model")
                    .set("workload", w.name.as_str())
                    .set("bits_per_key", b)
                    .set("fpr", f);
                out.table.push(row);
            }
        }
    }
    for i in 0..=40 {
        let b = 1.0 + (max_bpk - 1.0) * f64::from(i) / 40.0;
        let mut row = Row::new();
        row.set("series", "lower bound log2(1/ε)")
            .set("row_type", "model")
            .set("workload", w.name.as_str())
            .set("bits_per_key", b)
            .set("fpr", 2f64.powf(-b));
        out.table.push(row);
    }
    for m in &ch.candidates {
        for j in 0..=28 {
            let neg = 10f64.powf(f64::from(j) / 4.0);
            let mut row = Row::new();
            row.set("series", m.label.as_str())
                .set("row_type", "cost-model")
                .set("workload", w.name.as_str())
                .set("negative_cost_ns", neg)
                .set("cost_ns", m.cost_at(neg, c.hit_ratio));
            out.table.push(row);
        }
    }
}

fn markdown(w: &Workload, ch: &Choice) -> String {
    let c = &ch.constraints;
    let r = &ch.recommendation;
    let mut s = format!(
        "### {}: {}\n\n{}, {} keys, negative cost {}, hit ratio {}.\n\n\
         | candidate | bits/key | FPR [95% CI] | build ns/key | hit ns median [min–max] | miss ns median [min–max] | expected ns/query | × best | |\n\
         |---|---:|---|---:|---|---|---:|---:|---|\n",
        w.name,
        w.description,
        c.describe(),
        c.keys,
        choose::format_ns(c.negative_cost_ns),
        c.hit_ratio
    );
    let best = ch.candidates[r.best].expected_cost_ns;
    let p = crate::units::format_prob;
    for (i, m) in ch.candidates.iter().enumerate() {
        let mut role = Vec::new();
        if i == r.best {
            role.push("**chosen**");
        }
        if Some(i) == r.runner_up {
            role.push("runner-up");
        }
        if ch.pareto.contains(&i) {
            role.push("Pareto");
        }
        s.push_str(&format!(
            "| {} | {:.2} | {} [{}, {}] | {:.1} | {:.1} [{:.1}–{:.1}] | {:.1} [{:.1}–{:.1}] | {:.1} | {:.2} | {} |\n",
            m.label,
            m.bits_per_key,
            p(m.fpr),
            p(m.fpr_ci95[0]),
            p(m.fpr_ci95[1]),
            m.build_ns_per_key.unwrap_or(f64::NAN),
            m.hit_ns.median,
            m.hit_ns.min,
            m.hit_ns.max,
            m.miss_ns.median,
            m.miss_ns.min,
            m.miss_ns.max,
            m.expected_cost_ns,
            m.expected_cost_ns / best,
            role.join(", ")
        ));
    }
    s.push_str(&format!(
        "\n**Recommendation: {}.** {}\n\nRebuild: `{}`\n",
        ch.candidates[r.best].label, r.reason, r.command
    ));
    if !ch.crossovers.is_empty() {
        s.push_str("\nWhere the cheapest changes with the negative cost: ");
        let parts: Vec<String> = ch
            .crossovers
            .iter()
            .map(|x| {
                format!(
                    "{} → {} at {}",
                    ch.candidates[x.from].label,
                    ch.candidates[x.to].label,
                    choose::format_ns(x.negative_cost_ns)
                )
            })
            .collect();
        s.push_str(&parts.join("; "));
        s.push_str(".\n");
    }
    s.push('\n');
    s
}
