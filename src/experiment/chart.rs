//! From a result table and the spec's `[plot]` to a [`crate::plot::Chart`].
//!
//! Rows with `row_type = measured` become markers (with `{y}_lo`..`{y}_hi` as error bars), one
//! series per value of the panel's series column; rows of other types (`theory`, `extrapolated`)
//! become dashed lines. `lines` draw other columns of the measured rows: once, in black, when
//! every series has the same values within 0.1% (e.g. the classic formula for filters of the
//! same m and k),
//! else once per series in its colour.

use super::{Experiment, LineStyle, PanelSpec, Table};
use crate::error::Result;
use crate::plot::{Axis, Chart, Layout, Panel, Point, Series, Style};

/// Value of `expr` (a column or `a/b`) in row `r`.
fn eval(t: &Table, r: usize, expr: &str) -> Option<f64> {
    match expr.split_once('/') {
        Some((a, b)) => {
            let (a, b) = (t.num(r, a.trim())?, t.num(r, b.trim())?);
            (b != 0.0).then(|| a / b)
        }
        None => t.num(r, expr.trim()),
    }
}

/// Interval of `expr` in row `r`, from `{a}_lo`/`{a}_hi` (divided by b for `a/b`).
fn interval(t: &Table, r: usize, expr: &str) -> Option<(f64, f64)> {
    let (a, b) = match expr.split_once('/') {
        Some((a, b)) => (a.trim(), Some(b.trim())),
        None => (expr.trim(), None),
    };
    let lo = t.num(r, &format!("{a}_lo"))?;
    let hi = t.num(r, &format!("{a}_hi"))?;
    match b {
        Some(b) => {
            let d = t.num(r, b)?;
            (d != 0.0).then(|| (lo / d, hi / d))
        }
        None => Some((lo, hi)),
    }
}

fn columns_of(expr: &str) -> Vec<&str> {
    expr.split('/').map(str::trim).collect()
}

/// Build the chart.
///
/// # Errors
/// [`crate::Error::Spec`] when a panel names a column the table does not have.
pub(super) fn build(exp: &Experiment, t: &Table) -> Result<Chart> {
    let plot = &exp.spec.plot;
    // One colour per series label, in order of first appearance over the whole table, so a
    // series keeps its colour in every panel.
    let mut labels: Vec<String> = Vec::new();
    let series_cols: Vec<&str> = plot
        .panels
        .iter()
        .map(|p| p.get_ref().series.as_str())
        .collect();
    for r in 0..t.rows.len() {
        for c in &series_cols {
            let l = t.text(r, c);
            if !l.is_empty() && !labels.contains(&l) {
                labels.push(l);
            }
        }
    }
    // More labels than colours: each panel numbers its own series instead (each book panel
    // has its own legend), so that no two series of a panel share a colour.
    let per_panel = labels.len() > crate::plot::PALETTE_SIZE;
    let mut panels = Vec::new();
    for (pi, ps) in plot.panels.iter().enumerate() {
        let p: &PanelSpec = ps.get_ref();
        let field = |k: &str| format!("plot.panels[{pi}].{k}");
        let need = |expr: &str, key: &str| -> Result<()> {
            for c in columns_of(expr) {
                if t.col(c).is_none() {
                    return Err(exp.err_at(
                        &field(key),
                        format!(
                            "no column '{c}' in the table of this run (columns: {})",
                            t.columns.join(", ")
                        ),
                    ));
                }
            }
            Ok(())
        };
        need(&p.x, "x")?;
        need(&p.y, "y")?;
        need(&p.series, "series")?;
        for k in p.filter.keys() {
            need(k, "filter")?;
        }
        for l in &p.lines {
            match (&l.column, l.value) {
                (Some(c), None) => need(c, "lines")?,
                (None, Some(_)) => {}
                _ => {
                    return Err(exp.err_at(
                        &field("lines"),
                        format!("line '{}': give exactly one of column or value", l.label),
                    ));
                }
            }
        }
        let rows: Vec<usize> = (0..t.rows.len())
            // `[[curves]]` rows (formulas, no measured columns) are in every panel.
            .filter(|&r| {
                t.text(r, "row_type") == "theory"
                    || p.filter.iter().all(|(k, v)| v.matches(&t.text(r, k)))
            })
            .filter(|&r| eval(t, r, &p.y).is_some() || interval(t, r, &p.y).is_some())
            .filter(|&r| !t.text(r, &p.x).is_empty())
            .collect();
        let local: Vec<String> = if per_panel {
            let mut v: Vec<String> = Vec::new();
            for &r in &rows {
                let l = t.text(r, &p.series);
                if !l.is_empty() && !v.contains(&l) {
                    v.push(l);
                }
            }
            v
        } else {
            labels.clone()
        };
        let colour = |l: &str| local.iter().position(|x| x == l);
        // Categorical x when the x column holds text.
        let categorical = rows
            .iter()
            .any(|&r| !t.text(r, &p.x).is_empty() && t.num(r, &p.x).is_none());
        let mut cats: Vec<String> = Vec::new();
        if categorical {
            for &r in &rows {
                let c = t.text(r, &p.x);
                if !cats.contains(&c) {
                    cats.push(c);
                }
            }
        }
        let xval = |r: usize| -> Option<f64> {
            if categorical {
                let c = t.text(r, &p.x);
                cats.iter().position(|x| *x == c).map(|i| i as f64)
            } else {
                t.num(r, &p.x)
            }
        };
        // Group rows by series, measured first.
        let mut groups: Vec<(String, bool, Vec<usize>)> = Vec::new();
        for &r in &rows {
            let label = t.text(r, &p.series);
            let rt = t.text(r, "row_type");
            let measured = rt.is_empty() || rt == "measured";
            match groups.iter_mut().find(|g| g.0 == label && g.1 == measured) {
                Some(g) => g.2.push(r),
                None => groups.push((label, measured, vec![r])),
            }
        }
        let measured_groups: Vec<&(String, bool, Vec<usize>)> =
            groups.iter().filter(|g| g.1).collect();
        let dodge = |gi: usize| -> f64 {
            if categorical && measured_groups.len() > 1 {
                let w = 0.7 / measured_groups.len() as f64;
                (gi as f64 - (measured_groups.len() as f64 - 1.0) / 2.0) * w
            } else {
                0.0
            }
        };
        let mut series = Vec::new();
        // Theory lines from columns first (drawn under the markers).
        let mut shared = 0usize;
        let mut points_lines = 0usize;
        let (xmin, xmax) = rows
            .iter()
            .filter_map(|&r| xval(r))
            .fold((f64::INFINITY, f64::NEG_INFINITY), |(a, b), x| {
                (a.min(x), b.max(x))
            });
        for l in &p.lines {
            let Some(column) = &l.column else {
                let v = l.value.unwrap_or(f64::NAN);
                if xmin.is_finite() {
                    let color = (shared > 0).then(|| local.len() + shared - 1);
                    shared += 1;
                    series.push(Series {
                        label: l.label.clone(),
                        style: match l.style {
                            LineStyle::Line => Style::Line,
                            _ => Style::Dashed,
                        },
                        color,
                        points: vec![Point::new(xmin, v), Point::new(xmax, v)],
                    });
                }
                continue;
            };
            // Theory sits at the category centres (no dodge).
            let per_group: Vec<(usize, Vec<Point>)> = measured_groups
                .iter()
                .enumerate()
                .map(|(gi, g)| {
                    let mut pts: Vec<Point> =
                        g.2.iter()
                            .filter_map(|&r| Some(Point::new(xval(r)?, eval(t, r, column)?)))
                            .collect();
                    pts.sort_by(|a, b| a.x.total_cmp(&b.x));
                    (gi, pts)
                })
                .collect();
            let same = per_group.windows(2).all(|w| {
                w[0].1.len() == w[1].1.len()
                    && w[0].1.iter().zip(&w[1].1).all(|(a, b)| {
                        a.x == b.x && (a.y - b.y).abs() <= 1e-3 * a.y.abs().max(1e-300)
                    })
            });
            let style = match l.style {
                LineStyle::Dashed => Style::Dashed,
                LineStyle::Line => Style::Line,
                LineStyle::Points => Style::Points,
            };
            if same && !per_group.is_empty() {
                // Shared lines: the first in black, further ones in colours no series uses.
                let color = (shared > 0).then(|| local.len() + shared - 1);
                shared += 1;
                let mut points = per_group[0].1.clone();
                if categorical && style == Style::Points {
                    // Theory markers beside the measured ones, not hidden under them.
                    points_lines += 1;
                    for p in &mut points {
                        p.x += 0.12 * points_lines as f64;
                    }
                }
                series.push(Series {
                    label: l.label.clone(),
                    style,
                    color,
                    points,
                });
            } else {
                for (gi, pts) in per_group.into_iter().filter(|(_, p)| !p.is_empty()) {
                    let g = measured_groups[gi];
                    series.push(Series {
                        label: format!("{}: {}", g.0, l.label),
                        style,
                        color: colour(&g.0),
                        points: pts,
                    });
                }
            }
        }
        for g in groups.iter().filter(|g| !g.1 && !g.0.is_empty()) {
            let mut pts: Vec<Point> =
                g.2.iter()
                    .filter_map(|&r| Some(Point::new(xval(r)?, eval(t, r, &p.y)?)))
                    .collect();
            pts.sort_by(|a, b| a.x.total_cmp(&b.x));
            let extrapolated = g.2.iter().any(|&r| t.text(r, "row_type") == "extrapolated");
            series.push(Series {
                label: g.0.clone(),
                style: if extrapolated {
                    Style::DashedPoints
                } else {
                    Style::Dashed
                },
                color: colour(&g.0),
                points: pts,
            });
        }
        for (gi, g) in measured_groups.iter().enumerate() {
            let mut pts: Vec<Point> =
                g.2.iter()
                    .filter_map(|&r| {
                        let x = xval(r)? + dodge(gi);
                        let y = eval(t, r, &p.y).unwrap_or(f64::NAN);
                        let iv = if p.error_bars {
                            interval(t, r, &p.y)
                        } else {
                            None
                        };
                        Some(match iv {
                            Some((lo, hi)) => Point::with_interval(x, y, lo, hi),
                            None => Point::new(x, y),
                        })
                    })
                    .collect();
            pts.sort_by(|a, b| a.x.total_cmp(&b.x));
            series.push(Series {
                label: g.0.clone(),
                style: if p.connect {
                    Style::PointsLine
                } else {
                    Style::Points
                },
                color: colour(&g.0),
                points: pts,
            });
        }
        panels.push(Panel {
            title: p.title.clone(),
            x: Axis {
                label: p.x_label.clone(),
                scale: if categorical {
                    crate::plot::Scale::Linear
                } else {
                    p.x_scale
                },
                format: p.x_format,
                range: p.x_range.map(|[a, b]| (a, b)),
                categories: categorical.then_some(cats),
            },
            y: Axis {
                label: p.y_label.clone(),
                scale: p.y_scale,
                format: p.y_format,
                range: p.y_range.map(|[a, b]| (a, b)),
                categories: None,
            },
            series,
            // A panel without a legend relies on the colours of another: not when they differ.
            legend: if per_panel && p.legend == crate::plot::Legend::None {
                crate::plot::Legend::default()
            } else {
                p.legend
            },
        });
    }
    let n = panels.len();
    let title = plot
        .title
        .clone()
        .unwrap_or_else(|| exp.spec.question.clone());
    Ok(match plot.layout {
        Layout::Book => {
            let mut c = Chart::book(&title, panels);
            if let Some(h) = plot.height {
                c.panel_size.1 = h;
            }
            c
        }
        Layout::Grid => Chart {
            title,
            panels,
            columns: plot.columns.unwrap_or(if n == 1 { 1 } else { 2 }),
            panel_size: (plot.width.unwrap_or(1000), plot.height.unwrap_or(640)),
            layout: Layout::Grid,
        },
    })
}
