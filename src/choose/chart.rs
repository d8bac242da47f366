//! The two figures of `bloomlab choose` (feature `experiments`, which holds the plotting):
//! FPR against bits/key with each kind's model curve, the measured points and the lower bound
//! `log2(1/ε)`; expected cost per query against the negative cost, with the crossovers.

use super::{Choice, model_curve};
use crate::filter::FilterKind;
use crate::plot::{Axis, Chart, Format, Legend, Panel, Point, Series, Style};

/// Palette index of candidate `i`: its colour and marker in both figures (a model curve takes
/// the colour of its kind's first variant).
fn colour(i: usize) -> usize {
    i
}

/// FPR (log) against heap bits per key: measured points with their 95% intervals, each
/// admitted kind's model curve (dashed) and the lower bound `ε = 2^−b` (Carter, Floyd, Gill,
/// Markowsky & Wegman 1978: no structure does better than log2(1/ε) bits per key).
#[must_use]
pub fn fpr_chart(ch: &Choice) -> Chart {
    let mut series = Vec::new();
    let mut kinds: Vec<FilterKind> = Vec::new();
    for m in &ch.candidates {
        if !kinds.contains(&m.spec.kind) {
            kinds.push(m.spec.kind);
        }
    }
    let data_bpk = ch
        .candidates
        .iter()
        .map(|m| m.bits_per_key)
        .fold(4.0f64, f64::max)
        * 1.1;
    // The right third stays free of data: the legend goes there.
    let max_bpk = data_bpk * 1.5;
    let min_fpr = ch
        .candidates
        .iter()
        .map(|m| m.fpr_ci95[0].max(m.fpr_model))
        .filter(|&f| f > 0.0)
        .fold(1e-2f64, f64::min)
        / 8.0;
    for &kind in &kinds {
        let first = ch.candidates.iter().position(|m| m.spec.kind == kind);
        if let Some(i) = first {
            let pts: Vec<Point> = model_curve(&ch.candidates[i].spec)
                .into_iter()
                .filter(|&(b, f)| b <= data_bpk && f >= min_fpr)
                .map(|(b, f)| Point::new(b, f))
                .collect();
            if pts.len() >= 2 {
                // Unlabelled: the legend names the markers; the title says dashed = model.
                series.push(Series::new("", Style::Dashed, colour(i)).with_points(pts));
            }
        }
    }
    for (i, m) in ch.candidates.iter().enumerate() {
        let mut label = m.label.clone();
        if i == ch.recommendation.best {
            label.push_str(" (chosen)");
        }
        let y = m.fpr.max(min_fpr);
        series.push(
            Series::new(&label, Style::Points, colour(i)).with_points(vec![Point::with_interval(
                m.bits_per_key,
                y,
                m.fpr_ci95[0].max(min_fpr),
                m.fpr_ci95[1].max(min_fpr),
            )]),
        );
    }
    let steps = 60;
    let bound: Vec<Point> = (0..=steps)
        .map(|i| 1.0 + (data_bpk - 1.0) * f64::from(i) / f64::from(steps))
        .map(|b| Point::new(b, 2f64.powf(-b)))
        .filter(|p| p.y >= min_fpr)
        .collect();
    let mut lb = Series::new("lower bound log2(1/ε)", Style::Line, 0).with_points(bound);
    lb.color = None;
    series.push(lb);
    let mut y = Axis::log("false-positive rate");
    y.format = Format::Percent;
    y.range = Some((min_fpr, 0.6));
    let mut x = Axis::linear("heap bits per key");
    x.range = Some((0.0, max_bpk));
    let mut chart = Chart::single(Panel {
        title: format!(
            "FPR vs space, {}: measured (95% CI), dashed: model",
            ch.constraints.describe()
        ),
        x,
        y,
        series,
        legend: Legend::UpperRight,
    });
    chart.panel_size = (1000, 720);
    chart
}

/// Expected cost per query against the negative cost (log–log) for every candidate, with the
/// negative costs where the cheapest candidate changes marked.
#[must_use]
pub fn cost_chart(ch: &Choice) -> Chart {
    let h = ch.constraints.hit_ratio;
    let (lo, hi) = (1.0f64, 1e7f64);
    let xs: Vec<f64> = (0..=70)
        .map(|i| lo * 10f64.powf(f64::from(i) / 10.0))
        .collect();
    let mut series = Vec::new();
    for (i, m) in ch.candidates.iter().enumerate() {
        let mut label = m.label.clone();
        if i == ch.recommendation.best {
            label.push_str(" (chosen)");
        }
        let style = if ch.pareto.contains(&i) {
            Style::Line
        } else {
            Style::Dashed
        };
        series.push(
            Series::new(&label, style, colour(i))
                .with_points(xs.iter().map(|&c| Point::new(c, m.cost_at(c, h))).collect()),
        );
    }
    let cross: Vec<Point> = ch
        .crossovers
        .iter()
        .map(|x| {
            let m = &ch.candidates[x.to];
            Point::new(x.negative_cost_ns, m.cost_at(x.negative_cost_ns, h))
        })
        .collect();
    if !cross.is_empty() {
        let mut s =
            Series::new("crossover: the cheapest changes", Style::Points, 0).with_points(cross);
        s.color = None;
        series.push(s);
    }
    let now = ch.constraints.negative_cost_ns;
    if now > 0.0 {
        let best = &ch.candidates[ch.recommendation.best];
        let mut s = Series::new(
            &format!("this workload ({})", super::format_ns(now)),
            Style::Points,
            0,
        )
        .with_points(vec![Point::new(now, best.cost_at(now, h))]);
        s.color = Some(ch.recommendation.best);
        series.push(s);
    }
    let mut x = Axis::log("negative cost: work a true negative saves (ns)");
    x.range = Some((lo, hi));
    let y = Axis::log("expected cost per query (ns)");
    let mut chart = Chart::single(Panel {
        title: format!("Cost = lookup + (1 − {h})·FPR·negative cost (solid: Pareto set)"),
        x,
        y,
        series,
        legend: Legend::UpperLeft,
    });
    chart.panel_size = (1000, 720);
    chart
}
