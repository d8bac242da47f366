//! Explore: controls, theory numbers, FPR charts, the bit array and the live measurement.

use bloomlab::measure::TimingStats;
use bloomlab::theory;
use ratatui::Frame;
use ratatui::layout::{Constraint, Layout, Rect};
use ratatui::style::{Modifier, Style};
use ratatui::symbols::Marker;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Axis, Block, Chart, Dataset, GraphType, LineGauge, Paragraph, Wrap};

use super::{ACCENT, BAD, MARK, MEASURED, bold, selected};
use crate::tui::fmt;
use crate::tui::state::{ChartView, Design, Explore, ExploreRun, Field, RunStatus, State};

pub(super) fn draw(f: &mut Frame<'_>, s: &State, area: Rect) {
    let e = &s.explore;
    let design = e.params.design();
    let left_w = if area.width >= 120 { 46 } else { 40 };
    let [left, right] =
        Layout::horizontal([Constraint::Length(left_w), Constraint::Min(20)]).areas(area);
    let [controls, numbers] =
        Layout::vertical([Constraint::Length(11), Constraint::Min(3)]).areas(left);
    draw_controls(f, e, design.as_ref().ok(), controls);
    match &design {
        Ok(d) => draw_numbers(f, e, d, s.one_in_n, numbers),
        Err(msg) => f.render_widget(
            Paragraph::new(Line::from(Span::styled(msg.clone(), bold().fg(BAD))))
                .block(Block::bordered().title(" Numbers ")),
            numbers,
        ),
    }
    let Ok(d) = design else {
        return;
    };
    let tall = right.height >= 30;
    let pic_h = if tall { 9 } else { 6 };
    let [charts, picture, gauge] = Layout::vertical([
        Constraint::Min(6),
        Constraint::Length(pic_h),
        Constraint::Length(1),
    ])
    .areas(right);
    if e.chart == ChartView::Details {
        // The details take the picture's rows too: at 80×24 a blocked filter's seven lines
        // (two of them wrapped) need them.
        let [top, _, _] = Layout::vertical([
            Constraint::Min(6),
            Constraint::Length(0),
            Constraint::Length(1),
        ])
        .areas(right);
        draw_details(f, e, top);
        draw_gauge(f, e, gauge);
        return;
    } else if tall {
        let [a, b] = Layout::vertical([Constraint::Percentage(50), Constraint::Percentage(50)])
            .areas(charts);
        chart_k(f, e, &d, a);
        chart_n(f, e, &d, b);
    } else if right.width >= 100 {
        let [a, b] = Layout::horizontal([Constraint::Percentage(50), Constraint::Percentage(50)])
            .areas(charts);
        chart_k(f, e, &d, a);
        chart_n(f, e, &d, b);
    } else {
        match e.chart {
            ChartView::FprVsN => chart_n(f, e, &d, charts),
            _ => chart_k(f, e, &d, charts),
        }
    }
    draw_picture(f, e, &d, picture);
    draw_gauge(f, e, gauge);
}

fn field_value(e: &Explore, d: Option<&Design>, field: Field) -> (String, &'static str) {
    let p = &e.params;
    match field {
        Field::N => (fmt::int(p.n), ""),
        Field::P => (
            fmt::prob(p.p),
            if p.m_pin.is_some() {
                "unused: m set"
            } else {
                ""
            },
        ),
        Field::M => (
            d.map_or("-".into(), |d| fmt::int(d.m)),
            match (p.m_pin, p.spec().m) {
                (Some(_), None) => "unused: own sizing",
                (Some(_), Some(_)) => "pinned",
                (None, _) => "auto",
            },
        ),
        Field::BitsPerKey => (
            d.map_or("-".into(), |d| format!("{:.3}", d.m as f64 / d.n as f64)),
            "",
        ),
        Field::K => (
            d.map_or("-".into(), |d| d.k.to_string()),
            match (p.k_pin, p.spec().k) {
                (Some(_), None) => "unused: own sizing",
                (Some(_), Some(_)) => "pinned",
                (None, _) => "auto",
            },
        ),
        Field::Kind => (p.kind.name().into(), ""),
        Field::Hash => (p.hash.name().into(), ""),
        Field::Strategy => (p.strategy.name().into(), ""),
        Field::Keys => (p.keys.name().into(), ""),
    }
}

fn draw_controls(f: &mut Frame<'_>, e: &Explore, d: Option<&Design>, area: Rect) {
    let lines: Vec<Line<'_>> = Field::ALL
        .iter()
        .map(|&field| {
            let sel = field == e.field;
            let (value, note) = field_value(e, d, field);
            let value = match (&e.edit, sel) {
                (Some(buf), true) => format!("{buf}▏"),
                _ => value,
            };
            let marker = if sel { "▸ " } else { "  " };
            let label = format!("{marker}{:<11}", field.label());
            let mut spans = vec![
                Span::styled(label, if sel { bold() } else { Style::default() }),
                Span::styled(format!(" {value} "), if sel { selected() } else { bold() }),
            ];
            if !note.is_empty() {
                spans.push(Span::styled(
                    format!(" {note}"),
                    Style::default().fg(ACCENT),
                ));
            }
            Line::from(spans)
        })
        .collect();
    f.render_widget(
        Paragraph::new(lines).block(Block::bordered().title(" Settings ")),
        area,
    );
}

/// The memory lines: the standard filter's design, or the chosen kind's own footprint.
fn memory_lines(e: &Explore, d: &Design, lines: &mut Vec<Line<'_>>) -> Option<u64> {
    let kind = e.params.kind;
    let m_note = if d.m_actual != d.m {
        format!(" ({} rounded up to words)", fmt::int(d.m))
    } else if d.m_pinned {
        " (pinned)".into()
    } else {
        " (from n, p)".into()
    };
    // A plain bit array: the standard design is its own.
    if kind.caps().bit_array {
        lines.push(Line::from(vec![
            Span::styled(format!("m = {} bits", fmt::int(d.m_actual)), bold()),
            Span::raw(m_note),
        ]));
        lines.push(Line::from(format!(
            "  = {} bytes ({})",
            fmt::int(d.bytes),
            fmt::bytes(d.bytes as f64)
        )));
        return Some(d.bytes);
    }
    match e.footprint() {
        Some(Ok(fp)) => {
            lines.push(Line::from(vec![
                Span::styled(format!("{kind} {} bits", fmt::int(fp.bits)), bold()),
                Span::raw(format!(" k {}", fp.k)),
            ]));
            lines.push(Line::from(format!(
                "  = {} bytes ({})",
                fmt::int(fp.bytes),
                fmt::bytes(fp.bytes as f64)
            )));
            Some(fp.bytes)
        }
        Some(Err(why)) => {
            lines.push(Line::from(Span::styled(
                format!("{kind}: {why}"),
                bold().fg(BAD),
            )));
            None
        }
        None => {
            lines.push(Line::from(format!("{kind}: sizing…")));
            None
        }
    }
}

fn draw_numbers(f: &mut Frame<'_>, e: &Explore, d: &Design, one_in: bool, area: Rect) {
    let rate = |p| fmt::rate(p, one_in);
    let r = &e.run;
    let mut lines = Vec::new();
    let bytes = memory_lines(e, d, &mut lines);
    let standard = e.params.kind.caps().bit_array;
    if !standard {
        lines.push(Line::from(Span::styled(
            format!(
                "FPR theory: standard, m {} k {}",
                fmt::si(d.m_actual as f64),
                d.k
            ),
            Style::default().fg(ACCENT),
        )));
    }
    let k_note = if d.k_pinned {
        format!(" (pinned; optimal {})", d.k_opt)
    } else if d.k_real > f64::from(bloomlab::theory::MAX_K) {
        // The optimum is past the largest k a filter takes: k is the cap, not the optimum.
        format!(
            " (capped at {}; k* = {:.1})",
            bloomlab::theory::MAX_K,
            d.k_real
        )
    } else {
        format!(" (optimal; k* = {:.2})", d.k_real)
    };
    lines.push(Line::from(vec![
        Span::styled(format!("k = {}", d.k), bold().fg(MARK)),
        Span::raw(k_note),
    ]));
    // Bits per key of what is allocated (the kind's bytes, as `measure` counts them).
    let bpk = if standard {
        Some(d.bits_per_key)
    } else {
        bytes.map(|b| b as f64 * 8.0 / d.n as f64)
    };
    if let Some(bpk) = bpk {
        let over = if d.lower_bound > 0.0 {
            format!("+{:.0}%", (bpk / d.lower_bound - 1.0) * 100.0)
        } else {
            "n/a".into()
        };
        lines.push(Line::from(format!(
            "bits/key {:.3}  bound {:.2} ({over})",
            bpk, d.lower_bound
        )));
    }
    lines.push(Line::from(vec![
        Span::raw("FPR classic  "),
        Span::styled(rate(d.classic), bold().fg(ACCENT)),
    ]));
    let exact = match e.exact_for(d) {
        Some(v) => Span::styled(rate(v), bold().fg(ACCENT)),
        None => Span::raw("computing…"),
    };
    lines.push(Line::from(vec![Span::raw("FPR exact    "), exact]));
    measured_lines(r, one_in, &mut lines);
    lines.push(Line::from(format!(
        "past capacity: 2n {} · 10n {}",
        rate(theory::fpr_classic(d.m_actual, d.n.saturating_mul(2), d.k)),
        rate(theory::fpr_classic(d.m_actual, d.n.saturating_mul(10), d.k)),
    )));
    lines.push(Line::from(format!(
        "HashSet<u64> ≈ {} (estimate)",
        fmt::bytes(d.hashset_bytes as f64)
    )));
    if let Some(b) = bytes {
        lines.push(Line::from(format!(
            "  = {:.1}× the filter",
            d.hashset_bytes as f64 / b.max(1) as f64
        )));
    }
    if let Some(model) = r.model_fpr
        && !e.params.kind.caps().bit_array
    {
        lines.push(Line::from(format!(
            "model ({})  {}",
            e.params.kind.name(),
            rate(model)
        )));
    }
    if let Some(ins) = r.ns_insert {
        lines.push(Line::from(timing_line(
            "ns/insert",
            ins,
            r.insert_timing.as_ref(),
        )));
    }
    if let Some(q) = r.ns_query {
        lines.push(Line::from(timing_line(
            "ns/query ",
            q,
            r.query_timing.as_ref(),
        )));
    }
    for (k, v) in &r.details {
        lines.push(Line::from(format!("{k}: {v}")));
    }
    // Long lines (the filters' details) wrap instead of running past the border.
    f.render_widget(
        Paragraph::new(lines)
            .wrap(Wrap { trim: false })
            .block(Block::bordered().title(" Numbers ")),
        area,
    );
}

/// `label median (min–max)` over the timed chunks, or the mean alone before any chunk (or for
/// a static set, whose construction is timed whole).
fn timing_line(label: &str, mean: f64, t: Option<&TimingStats>) -> String {
    match t {
        Some(t) if t.samples > 1 => format!(
            "{label} {} ({}–{})",
            fmt::ns(t.median),
            fmt::ns(t.min),
            fmt::ns(t.max)
        ),
        Some(t) => format!("{label} {}", fmt::ns(t.median)),
        None => format!("{label} {}", fmt::ns(mean)),
    }
}

/// `v`'s third view: the timings with their spread and the filter's own details, wrapped.
fn draw_details(f: &mut Frame<'_>, e: &Explore, area: Rect) {
    let r = &e.run;
    let mut lines = vec![Line::from(Span::styled(
        "ns per key: median (fastest–slowest) of chunks of 16,384 keys",
        Style::default().fg(ACCENT),
    ))];
    for (what, mean, t) in [
        ("insert", r.ns_insert, r.insert_timing.as_ref()),
        ("query ", r.ns_query, r.query_timing.as_ref()),
    ] {
        let text = match (t, mean) {
            (Some(t), _) => format!(
                "{what} {} ({}–{}) over {} chunks",
                fmt::ns(t.median),
                fmt::ns(t.min),
                fmt::ns(t.max),
                fmt::int(t.samples as u64)
            ),
            (None, Some(m)) if e.params.kind.caps().static_set && what == "insert" => {
                format!("{what} {} (built whole: one time)", fmt::ns(m))
            }
            (None, Some(m)) => format!("{what} {}", fmt::ns(m)),
            (None, None) => format!("{what} …"),
        };
        lines.push(Line::from(Span::styled(text, bold())));
    }
    if r.details.is_empty() {
        lines.push(Line::from("details: once the filter is built"));
    }
    for (k, v) in &r.details {
        lines.push(Line::from(vec![
            Span::styled(format!("{k}: "), bold()),
            Span::raw(v.clone()),
        ]));
    }
    f.render_widget(
        Paragraph::new(lines)
            .wrap(Wrap { trim: false })
            .block(Block::bordered().title(" Timings and details (v: charts) ")),
        area,
    );
}

/// The measured rate and what its 95% interval covers: one filter's queries (Wilson), or the
/// design over several independently seeded filters (Student's t over their rates).
fn measured_lines(r: &ExploreRun, one_in: bool, lines: &mut Vec<Line<'_>>) {
    let t = r.instances;
    match (r.fpr(), &r.status) {
        (Some((fpr, lo, hi)), _) => {
            // The digits the interval supports.
            let (fpr, lo, hi) = fmt::measured(fpr, lo, hi, one_in);
            let what = if t > 1 {
                format!(" over {t} filters")
            } else {
                format!(" of {} q", fmt::si(r.queries as f64))
            };
            lines.push(Line::from(vec![
                Span::raw("measured     "),
                Span::styled(fpr, bold().fg(MEASURED)),
                Span::raw(what),
            ]));
            let covers = if t > 1 {
                format!(" {} q", fmt::si(r.queries as f64))
            } else {
                " one filter".into()
            };
            lines.push(Line::from(format!("  95% [{lo}, {hi}]{covers}")));
        }
        (None, RunStatus::Refused(_)) => lines.push(Line::from(Span::styled(
            "measured     refused (see status)",
            Style::default().fg(MARK),
        ))),
        (None, RunStatus::Failed(why)) => lines.push(Line::from(Span::styled(
            format!("measured     failed: {why}"),
            Style::default().fg(BAD),
        ))),
        (None, _) if t > 1 => lines.push(Line::from(format!(
            "measured     … {} of {t} filters",
            r.rates.len()
        ))),
        (None, _) => lines.push(Line::from("measured     …")),
    }
}

fn log10c(p: f64, floor: f64) -> f64 {
    if p > 0.0 { p.log10().max(floor) } else { floor }
}

/// Decade labels at both ends and the middle of `[lo, hi]` (evenly spaced, as the chart places them).
fn decade_labels(lo: f64, hi: f64) -> Vec<Span<'static>> {
    let lab = |v: f64| {
        if v >= -0.01 {
            "1".to_string()
        } else {
            format!("1e{}", v.round() as i64)
        }
    };
    vec![
        Span::raw(lab(lo)),
        Span::raw(lab((lo + hi) / 2.0)),
        Span::raw(lab(hi)),
    ]
}

/// Integer decade bounds around `values`, spanning an even number of decades (so the middle
/// label is a decade), at most `max_span` decades down from the top.
fn y_bounds(values: &[f64], max_span: f64) -> (f64, f64) {
    let hi = values
        .iter()
        .copied()
        .fold(f64::NEG_INFINITY, f64::max)
        .ceil()
        .min(0.0);
    let lo = values
        .iter()
        .copied()
        .fold(f64::INFINITY, f64::min)
        .floor()
        .max(hi - max_span);
    let mut lo = lo.min(hi - 2.0);
    if ((hi - lo) as i64) % 2 != 0 {
        lo -= 1.0;
    }
    (lo, hi)
}

/// Chart points.
type Points = Vec<(f64, f64)>;

/// The measured point and its 95% interval as a vertical segment, at `x` (log10 units).
fn measured_marks(e: &Explore, x: f64, floor: f64) -> (Points, Points) {
    match e.run.fpr() {
        Some((fpr, lo, hi)) => (
            vec![(x, log10c(fpr, floor))],
            vec![(x, log10c(lo, floor)), (x, log10c(hi, floor))],
        ),
        None => (Vec::new(), Vec::new()),
    }
}

/// A vertical segment at `x` from `lo` to `hi` (log10 units).
fn vline(x: f64, lo: f64, hi: f64) -> Vec<(f64, f64)> {
    vec![(x, lo), (x, hi)]
}

/// The chart title doubles as its legend (a legend box would hide the curve on small screens).
fn title<'a>(name: &'a str, items: Vec<(String, Style)>) -> Line<'a> {
    let mut spans = vec![Span::styled(format!(" {name} "), bold())];
    for (t, st) in items {
        spans.push(Span::styled(format!("{t} "), st));
    }
    Line::from(spans)
}

fn measured_sets<'a>(mpt: &'a [(f64, f64)], ci: &'a [(f64, f64)], sets: &mut Vec<Dataset<'a>>) {
    if mpt.is_empty() {
        return;
    }
    sets.push(
        Dataset::default()
            .marker(Marker::Braille)
            .graph_type(GraphType::Line)
            .style(bold().fg(MEASURED))
            .data(ci),
    );
    sets.push(
        Dataset::default()
            .marker(Marker::Dot)
            .graph_type(GraphType::Scatter)
            .style(bold().fg(MEASURED))
            .data(mpt),
    );
}

fn chart_k(f: &mut Frame<'_>, e: &Explore, d: &Design, area: Rect) {
    let kmax = (d.k_opt * 2).max(d.k + 2).clamp(8, theory::MAX_K);
    let curve_raw: Vec<(f64, f64)> = (1..=kmax)
        .map(|k| (f64::from(k), theory::fpr_classic(d.m_actual, d.n, k)))
        .collect();
    let best = curve_raw
        .iter()
        .copied()
        .min_by(|a, b| a.1.total_cmp(&b.1))
        .unwrap_or((1.0, 1.0));
    let mut ys: Vec<f64> = curve_raw.iter().map(|p| log10c(p.1, -300.0)).collect();
    if let Some((_, lo, _)) = e.run.fpr()
        && lo > 0.0
    {
        ys.push(lo.log10());
    }
    let (ylo, yhi) = y_bounds(&ys, 12.0);
    let curve: Vec<(f64, f64)> = curve_raw
        .iter()
        .filter(|p| p.1 > 0.0 && p.1.log10() >= ylo)
        .map(|&(k, p)| (k, p.log10()))
        .collect();
    let opt = [(best.0, log10c(best.1, ylo))];
    let now_y = log10c(theory::fpr_classic(d.m_actual, d.n, d.k), ylo);
    let now = vline(f64::from(d.k), ylo, now_y);
    let (mpt, ci) = measured_marks(e, f64::from(d.k), ylo);
    let mut sets = vec![
        Dataset::default()
            .marker(Marker::Braille)
            .graph_type(GraphType::Line)
            .style(Style::default().fg(MARK))
            .data(&now),
        Dataset::default()
            .marker(Marker::Braille)
            .graph_type(GraphType::Line)
            .style(Style::default().fg(ACCENT))
            .data(&curve),
        Dataset::default()
            .marker(Marker::Dot)
            .graph_type(GraphType::Scatter)
            .style(bold().fg(ACCENT))
            .data(&opt),
    ];
    measured_sets(&mpt, &ci, &mut sets);
    let mid = (1.0 + f64::from(kmax)) / 2.0;
    let mut items = vec![
        ("─ classic".to_string(), Style::default().fg(ACCENT)),
        (format!("• best k={}", best.0), bold().fg(ACCENT)),
        (format!("│ now k={}", d.k), bold().fg(MARK)),
    ];
    if !mpt.is_empty() {
        items.push(("┃ measured".to_string(), bold().fg(MEASURED)));
    }
    let chart = Chart::new(sets)
        .block(Block::bordered().title(title("FPR vs k", items)))
        .x_axis(
            Axis::default()
                .title("k")
                .bounds([1.0, f64::from(kmax)])
                .labels([
                    "1".to_string(),
                    format!("{mid:.1}").trim_end_matches(".0").to_string(),
                    kmax.to_string(),
                ]),
        )
        .y_axis(
            Axis::default()
                .bounds([ylo, yhi])
                .labels(decade_labels(ylo, yhi)),
        )
        .legend_position(None);
    f.render_widget(chart, area);
}

fn chart_n(f: &mut Frame<'_>, e: &Explore, d: &Design, area: Rect) {
    let x0 = (d.n as f64).log10();
    let (xlo, xhi) = ((x0 - 2.0).max(0.0), x0 + 2.0);
    let pts = 160;
    let design = theory::fpr_classic(d.m_actual, d.n, d.k);
    let ylo_want = (design.log10() - 6.0).floor();
    let (ylo, yhi) = y_bounds(&[ylo_want, 0.0], 14.0);
    let curve: Vec<(f64, f64)> = (0..=pts)
        .map(|i| {
            let x = xlo + (xhi - xlo) * f64::from(i) / f64::from(pts);
            let n = 10f64.powf(x).round().max(1.0) as u64;
            (x, theory::fpr_classic(d.m_actual, n, d.k))
        })
        .filter(|p| p.1 > 0.0 && p.1.log10() >= ylo)
        .map(|(x, p)| (x, p.log10()))
        .collect();
    let point = vline(x0, ylo, log10c(design, ylo));
    let target = [
        (xlo, log10c(e.params.p, ylo)),
        (xhi, log10c(e.params.p, ylo)),
    ];
    let (mpt, ci) = measured_marks(e, x0, ylo);
    let mut sets = vec![
        Dataset::default()
            .marker(Marker::Braille)
            .graph_type(GraphType::Line)
            .style(Style::default().fg(MARK))
            .data(&target),
        Dataset::default()
            .marker(Marker::Braille)
            .graph_type(GraphType::Line)
            .style(bold().fg(MARK))
            .data(&point),
        Dataset::default()
            .marker(Marker::Braille)
            .graph_type(GraphType::Line)
            .style(Style::default().fg(ACCENT))
            .data(&curve),
    ];
    measured_sets(&mpt, &ci, &mut sets);
    let mut items = vec![
        ("─ classic".to_string(), Style::default().fg(ACCENT)),
        (format!("│ n={}", fmt::si(d.n as f64)), bold().fg(MARK)),
        (
            format!("─ p={}", fmt::prob(e.params.p)),
            Style::default().fg(MARK),
        ),
    ];
    if !mpt.is_empty() {
        items.push(("┃ measured".to_string(), bold().fg(MEASURED)));
    }
    let chart = Chart::new(sets)
        .block(Block::bordered().title(title("FPR vs n", items)))
        .x_axis(Axis::default().title("n").bounds([xlo, xhi]).labels([
            fmt::si(10f64.powf(xlo)),
            fmt::si(10f64.powf((xlo + xhi) / 2.0)),
            fmt::si(10f64.powf(xhi)),
        ]))
        .y_axis(
            Axis::default()
                .bounds([ylo, yhi])
                .labels(decade_labels(ylo, yhi)),
        )
        .legend_position(None);
    f.render_widget(chart, area);
}

const SHADES: [&str; 5] = [" ", "░", "▒", "▓", "█"];

fn draw_picture(f: &mut Frame<'_>, e: &Explore, d: &Design, area: Rect) {
    let block = Block::bordered().title(" Bit array ");
    let inner = block.inner(area);
    f.render_widget(block, area);
    if inner.height == 0 || inner.width == 0 {
        return;
    }
    let [text, grid] = Layout::vertical([Constraint::Length(1), Constraint::Min(0)]).areas(inner);
    let Some(fill) = &e.run.fill else {
        let msg = if e.params.kind.caps().bit_array {
            format!("expected fill {:.4} · building…", d.fill)
        } else {
            "picture: standard filter only".to_string()
        };
        f.render_widget(Paragraph::new(msg), text);
        return;
    };
    let measured = fill.ones as f64 / fill.m.max(1) as f64;
    let expected = e
        .run
        .design
        .map_or(d.fill, |(m, n, k)| theory::expected_fill(m, n, k));
    let cols = usize::from(grid.width);
    let rows = usize::from(grid.height);
    let cells_avail = cols * rows;
    let per_bit = fill.m as usize <= cells_avail && fill.regions.len() as u64 == fill.m;
    let cells = if per_bit {
        fill.regions.len()
    } else {
        cells_avail.min(fill.regions.len())
    };
    // Each cell: fraction of its bits set, and whether it lies beyond ±4σ of the expected fill
    // (binomial σ for the cell's own bit count; the true occupancy variance is a little smaller).
    let mut values = Vec::with_capacity(cells);
    let mut outliers = 0;
    for c in 0..cells {
        let a = c * fill.regions.len() / cells.max(1);
        let b = ((c + 1) * fill.regions.len() / cells.max(1)).max(a + 1);
        let (ones, bits) = fill.regions[a..b]
            .iter()
            .fold((0u64, 0u64), |(o, n), r| (o + r.0, n + r.1));
        let v = ones as f64 / bits.max(1) as f64;
        let sigma = (expected * (1.0 - expected) / bits.max(1) as f64).sqrt();
        let out = !per_bit && (v - expected).abs() > 4.0 * sigma;
        outliers += usize::from(out);
        values.push((v, out));
    }
    let summary = if per_bit {
        format!(
            "{} of {} bits set · 1−e^(−kn/m) = {expected:.4}",
            fmt::int(fill.ones),
            fmt::int(fill.m)
        )
    } else {
        let base = if measured < 0.001 && fill.ones > 0 {
            // A broken hash may set only a handful of bits: count them.
            format!(
                "{} bits set · 1−e^(−kn/m) {expected:.4}",
                fmt::int(fill.ones)
            )
        } else {
            format!("fill {measured:.4} · 1−e^(−kn/m) {expected:.4}")
        };
        let more = format!(" · {outliers} of {cells} cells off >4σ");
        let short = format!("{base} · {outliers} off");
        let width = usize::from(text.width);
        if base.chars().count() + more.chars().count() <= width {
            base + &more
        } else if short.chars().count() <= width {
            short
        } else {
            base
        }
    };
    f.render_widget(Paragraph::new(summary), text);
    let mut lines = Vec::new();
    for r in 0..rows {
        let mut spans = Vec::new();
        for c in 0..cols {
            let i = r * cols + c;
            let Some(&(v, out)) = values.get(i) else {
                break;
            };
            let (sym, style) = if per_bit {
                if v > 0.5 {
                    ("█", Style::default().fg(ACCENT))
                } else {
                    ("·", Style::default())
                }
            } else {
                let level = ((v * 4.0).round() as usize).min(4);
                (
                    SHADES[level],
                    if out {
                        bold().fg(BAD)
                    } else {
                        Style::default().fg(ACCENT)
                    },
                )
            };
            spans.push(Span::styled(sym, style));
        }
        lines.push(Line::from(spans));
    }
    f.render_widget(Paragraph::new(lines), grid);
}

fn draw_gauge(f: &mut Frame<'_>, e: &Explore, area: Rect) {
    let r = &e.run;
    let (ratio, label, style) = match &r.status {
        RunStatus::Running => (
            r.progress,
            format!(
                "{} {:.0}%  ({}/{} queries)",
                r.phase,
                r.progress * 100.0,
                fmt::si(r.queries as f64),
                fmt::si(r.target as f64)
            ),
            Style::default().fg(MEASURED),
        ),
        RunStatus::Done => (
            1.0,
            format!("done: {} absent keys queried", fmt::int(r.queries)),
            Style::default().fg(MEASURED),
        ),
        RunStatus::Stopped(why) => (1.0, format!("stopped: {why}"), Style::default().fg(MARK)),
        RunStatus::Refused(why) => (0.0, format!("refused: {why}"), Style::default().fg(MARK)),
        RunStatus::Failed(why) => (0.0, format!("failed: {why}"), Style::default().fg(BAD)),
        RunStatus::Idle => (0.0, "waiting".into(), Style::default()),
    };
    f.render_widget(
        LineGauge::default()
            .ratio(ratio.clamp(0.0, 1.0))
            .label(label)
            .filled_style(style.add_modifier(Modifier::BOLD)),
        area,
    );
}

#[cfg(test)]
mod tests {
    use crate::tui::msg::{Msg, WorkerEvent};
    use crate::tui::results::FillMap;
    use crate::tui::state::{Field, State};
    use crate::tui::update::{init, update};
    use crate::tui::view::render_text;
    use crate::tui::view::testkit::{line_with, type_into};

    fn has(text: &str, needle: &str) {
        assert!(text.contains(needle), "missing {needle:?} in\n{text}");
    }

    /// Past k* = 64 the screen says k is capped, not optimal.
    #[test]
    fn k_past_its_cap_is_called_capped_not_optimal() {
        let mut s = State::new();
        init(&mut s);
        // k* = (m/n)·ln 2 = 153.356 · 0.6931 = 106.3.
        type_into(&mut s, Field::N, "1000");
        type_into(&mut s, Field::M, "153356");
        let t = render_text(&s, 120, 40);
        has(&t, "k = 64 (capped at 64; k* = 106.3)");
        assert!(!t.contains("(optimal"), "{t}");
    }

    #[test]
    fn typed_n_and_p_show_the_articles_sizing() {
        let mut s = State::new();
        init(&mut s);
        type_into(&mut s, Field::N, "1000");
        type_into(&mut s, Field::P, "5%");
        let before = render_text(&s, 80, 24);
        assert!(!before.contains("9,585,058"), "{before}");
        has(&before, "m = 6,235 bits");
        type_into(&mut s, Field::N, "1,000,000");
        type_into(&mut s, Field::P, "1%");
        for (w, h) in [(80, 24), (120, 40)] {
            let t = render_text(&s, w, h);
            has(&t, "m = 9,585,058 bits");
            has(&t, "k = 7 (optimal; k* = 6.64)");
            has(&t, "1,198,136 bytes (1.20 MB)");
            has(&t, "bits/key 9.585");
            has(&t, "bound 6.64 (+44%)");
            has(&t, "FPR classic  1.004%");
            // m = 9.6M takes the exact moment form: computed at once, equal to classic at 4 digits.
            has(&t, "FPR exact    1.004%");
            has(&t, "HashSet<u64> ≈ 18.87 MB (estimate)");
            has(&t, "n (items)   1,000,000");
            has(&t, "p (target)  1.000%");
        }
        // 120 columns fit both charts, each titled with its legend.
        let wide = render_text(&s, 120, 40);
        has(&wide, "FPR vs k");
        has(&wide, "best k=7");
        has(&wide, "FPR vs n");
        // At 80 columns only one chart fits; v switches it.
        let small = render_text(&s, 80, 24);
        has(&small, "FPR vs k");
        assert!(!small.contains("FPR vs n"));
        update(&mut s, Msg::CycleView);
        has(&render_text(&s, 80, 24), "FPR vs n");
    }

    #[test]
    fn pinned_k_and_typing_are_visible() {
        let mut s = State::new();
        init(&mut s);
        type_into(&mut s, Field::K, "5");
        let t = render_text(&s, 80, 24);
        has(&t, "k = 5 (pinned; optimal 7)");
        // (1 − e^(−5/9.585))^5 = 0.4065^5 = 1.109%
        has(&t, "FPR classic  1.109%");
        let line = line_with(&t, "k (hashes)").unwrap();
        assert!(line.contains("5  pinned"), "{line}");
        s.explore.field = Field::N;
        update(&mut s, Msg::StartEdit);
        update(&mut s, Msg::Input('4'));
        update(&mut s, Msg::Input('2'));
        let t = render_text(&s, 80, 24);
        has(&t, "42▏");
        has(&t, "Enter apply");
    }

    #[test]
    fn measurement_and_fill_are_drawn() {
        let mut s = State::new();
        init(&mut s);
        let job = s.explore.run.job;
        let t = render_text(&s, 80, 24);
        has(&t, "building…");
        has(&t, "measured     …");
        update(
            &mut s,
            Msg::worker(WorkerEvent::ExploreBuilt {
                job,
                bits: 9_585_058,
                bytes: 1_198_136,
                fill: Some(FillMap {
                    m: 9_585_058,
                    regions: vec![(2_425, 4_680); 2048],
                    ones: 4_967_000,
                }),
                ns_insert: 40.0,
                model_fpr: 0.010_039,
                details: Vec::new(),
            }),
        );
        update(
            &mut s,
            Msg::worker(WorkerEvent::ExplorePartial {
                job,
                queries: 1_000_000,
                false_positives: 10_040,
                ns_query: 30.0,
            }),
        );
        let stats = |median, min, max, samples| bloomlab::measure::TimingStats {
            median,
            min,
            max,
            samples,
        };
        update(
            &mut s,
            Msg::worker(WorkerEvent::ExploreTiming {
                job,
                insert: Some(stats(40.0, 38.125, 52.0, 62)),
                query: Some(stats(30.0, 28.0, 141.0, 58)),
            }),
        );
        let t = render_text(&s, 120, 40);
        // 10,040 of 10^6 (Wilson 0.9846% to 1.024%): three digits.
        has(&t, "measured     1.00% of 1M q");
        // Wilson 95% interval for 10,040 of 1,000,000.
        has(&t, "95% [0.985%, 1.02%] one filter");
        // 4,967,000 / 9,585,058 = 0.5182 against 1 − e^(−7/9.585) = 0.5182; no cell is off.
        has(&t, "fill 0.5182 · 1−e^(−kn/m) 0.5182");
        has(&t, "· 0 of 432 cells off >4σ");
        // Timings: the median with the range of the timed chunks, not one number.
        has(&t, "ns/insert 40.0 (38.1–52.0)");
        has(&t, "ns/query  30.0 (28.0–141)");
        // At 80×24 the Numbers pane has no room for them: v twice shows them in place of the
        // chart, with the chunk counts.
        update(&mut s, Msg::CycleView);
        update(&mut s, Msg::CycleView);
        let small = render_text(&s, 80, 24);
        has(&small, "insert 40.0 (38.1–52.0) over 62 chunks");
        has(&small, "query  30.0 (28.0–141) over 58 chunks");
        update(&mut s, Msg::CycleView);
        assert!(!render_text(&s, 80, 24).contains("over 62 chunks"));
        // o: every rate as "1 in N" (10,040 of 10^6 = 1 in 99.6; classic 1.004% = 1 in 99.6),
        // the key named in the footer; o again: percentages.
        let t = render_text(&s, 80, 24);
        assert!(t.lines().last().unwrap().contains("o 1-in-N"), "{t}");
        update(&mut s, Msg::ToggleOneIn);
        let t = render_text(&s, 120, 40);
        has(&t, "FPR classic  1 in 99.6");
        has(&t, "measured     1 in 99.6 of 1M q");
        // Wilson interval [0.9846%, 1.024%] the other way up.
        has(&t, "95% [1 in 102, 1 in 97.7] one filter");
        has(&t, "past capacity: 2n 1 in 6.35 · 10n 1 in 1.00");
        update(&mut s, Msg::ToggleOneIn);
        has(&render_text(&s, 120, 40), "FPR classic  1.004%");
        has(&t, "measured");
        // Finished: the gauge says so.
        update(
            &mut s,
            Msg::worker(WorkerEvent::Finished {
                slot: crate::tui::msg::Slot::Explore,
                job,
                stopped: None,
            }),
        );
        has(
            &render_text(&s, 80, 24),
            "done: 1,000,000 absent keys queried",
        );
    }

    /// The text inside the bordered pane titled `title`: its rows, trimmed, joined by spaces
    /// (a wrapped line reads as one again).
    fn pane(screen: &str, title: &str) -> String {
        let rows: Vec<Vec<char>> = screen.lines().map(|l| l.chars().collect()).collect();
        let (top, x0) = rows
            .iter()
            .enumerate()
            .find_map(|(y, r)| {
                let line: String = r.iter().collect();
                let at = line.find(title)?;
                let col = line[..at].chars().count();
                let left = r[..col].iter().rposition(|&c| c == '┌')?;
                Some((y, left))
            })
            .unwrap_or_else(|| panic!("no pane {title:?} in\n{screen}"));
        let x1 = x0
            + rows[top][x0..]
                .iter()
                .position(|&c| c == '┐')
                .expect("corner");
        let mut out = Vec::new();
        for r in &rows[top + 1..] {
            if r[x0] == '└' {
                break;
            }
            out.push(r[x0 + 1..x1].iter().collect::<String>().trim().to_string());
        }
        out.join(" ")
            .split_whitespace()
            .collect::<Vec<_>>()
            .join(" ")
    }

    /// A blocked filter's details (the longest: "model fpr, classic inner (Putze et al. as
    /// published)") are shown whole at 80, 120 and 200 columns: wrapped, never cut.
    #[test]
    fn details_wrap_instead_of_being_cut() {
        use bloomlab::{Filter, FilterKind, FilterSpec};
        let mut s = State::new();
        init(&mut s);
        s.explore.field = Field::Kind;
        while s.explore.params.kind != FilterKind::Blocked {
            update(&mut s, Msg::Right);
        }
        let job = s.explore.run.job;
        let mut f = FilterSpec::new(FilterKind::Blocked, 1_000_000, 0.01)
            .build()
            .unwrap();
        for i in 0..1_000_000u64 {
            f.insert(&i.to_le_bytes());
        }
        let details = f.details();
        assert!(
            details
                .iter()
                .any(|(k, _)| k.contains("Putze et al. as published"))
        );
        update(
            &mut s,
            Msg::worker(WorkerEvent::ExploreBuilt {
                job,
                bits: f.bits(),
                bytes: f.bytes(),
                fill: None,
                ns_insert: 40.0,
                model_fpr: f.expected_fpr(),
                details: details.clone(),
            }),
        );
        let whole = |text: &str| {
            for (k, v) in &details {
                let want = format!("{k}: {v}");
                let want = want.split_whitespace().collect::<Vec<_>>().join(" ");
                assert!(text.contains(&want), "{want:?} not whole in {text:?}");
            }
        };
        // Numbers holds them where it is tall enough.
        for (w, h) in [(120, 40), (200, 50)] {
            whole(&pane(&render_text(&s, w, h), "Numbers"));
        }
        // v twice: the details view, at every size, 80×24 included.
        update(&mut s, Msg::CycleView);
        update(&mut s, Msg::CycleView);
        for (w, h) in [(80, 24), (120, 40), (200, 50)] {
            whole(&pane(&render_text(&s, w, h), "Timings and details"));
        }
    }

    #[test]
    fn small_arrays_are_drawn_bit_by_bit() {
        let mut s = State::new();
        init(&mut s);
        type_into(&mut s, Field::N, "5");
        type_into(&mut s, Field::M, "64");
        let job = s.explore.run.job;
        let regions: Vec<(u64, u64)> = (0..64).map(|i| (u64::from(i % 8 == 0), 1)).collect();
        update(
            &mut s,
            Msg::worker(WorkerEvent::ExploreBuilt {
                job,
                bits: 64,
                bytes: 8,
                fill: Some(FillMap {
                    m: 64,
                    regions,
                    ones: 8,
                }),
                ns_insert: 40.0,
                model_fpr: 0.0,
                details: Vec::new(),
            }),
        );
        let t = render_text(&s, 120, 40);
        has(&t, "8 of 64 bits set");
        let picture_start = t.find("8 of 64 bits set").unwrap();
        let blocks = t[picture_start..].matches('█').count();
        assert_eq!(blocks, 8, "{t}");
    }

    #[test]
    fn every_units_example_through_the_typed_fields() {
        // The one table of `bloomlab::units`, typed into n, p and m as a user would; the
        // integration test `tests/units_cli.rs` runs the same rows through `bloomlab calc`.
        use crate::tui::state::{Level, MAX_M, MAX_N, MIN_P};
        use bloomlab::units::{EXAMPLES, Expected, Kind};
        for e in EXAMPLES {
            let mut s = State::new();
            init(&mut s);
            // Away from the defaults, so an accepted 1e6 or 0.01 is seen to change something.
            s.explore.params.n = 7;
            s.explore.params.p = 0.25;
            let before = s.explore.params.clone();
            let field = match e.kind {
                Kind::Count => Field::N,
                Kind::Prob => Field::P,
                Kind::Size => Field::M,
            };
            type_into(&mut s, field, e.input);
            let p = &s.explore.params;
            let within = match (e.kind, e.expected) {
                (Kind::Count, Expected::Int(v)) => (1..=MAX_N).contains(&v),
                (Kind::Size, Expected::Int(v)) => (1..=MAX_M).contains(&v),
                (Kind::Prob, Expected::Real(v)) => v >= MIN_P,
                _ => false,
            };
            if within {
                assert!(s.explore.edit.is_none(), "{e:?}: refused: {:?}", s.status);
                let got = match e.kind {
                    Kind::Count => Expected::Int(p.n),
                    Kind::Prob => Expected::Real(p.p),
                    Kind::Size => p.m_pin.map_or(Expected::Refused, Expected::Int),
                };
                assert_eq!(got, e.expected, "{e:?}");
            } else {
                assert_eq!(*p, before, "{e:?}");
                assert!(s.explore.edit.is_some(), "{e:?}: accepted");
                let (level, text) = s.status.clone().unwrap();
                assert_eq!(level, Level::Error, "{e:?}: {text}");
                if e.expected == Expected::Refused {
                    // The refusal quotes the input and the accepted forms.
                    assert!(text.contains(&format!("'{}'", e.input.trim())), "{text}");
                    assert!(text.contains("valid:"), "{text}");
                }
            }
        }
    }

    #[test]
    fn explore_and_calc_agree_on_1mb_10mbit_and_1_in_1000() {
        use crate::cli::calc::{Args, Solution, solve};
        use clap::Parser;
        #[derive(Parser)]
        struct Calc {
            #[command(flatten)]
            a: Args,
        }
        let calc = |args: &[&str]| -> Solution {
            let c = Calc::try_parse_from(std::iter::once("calc").chain(args.iter().copied()));
            solve(&c.unwrap_or_else(|e| panic!("{args:?}: {e}")).a).unwrap()
        };
        let same = |s: &State, c: &Solution| {
            let d = s.explore.params.design().unwrap();
            assert_eq!(
                (Some(d.n), Some(d.m_actual), d.k, Some(d.bytes)),
                (c.n, c.m_bits, c.k, c.bytes)
            );
            assert_eq!(
                (d.classic, d.bits_per_key, d.lower_bound, d.overhead),
                (
                    c.fpr_classic,
                    c.bits_per_key,
                    c.lower_bound_bits_per_key,
                    c.overhead_vs_lower_bound
                )
            );
        };
        let mut s = State::new();
        init(&mut s);
        type_into(&mut s, Field::N, "1000");
        type_into(&mut s, Field::M, "1Mb");
        let c = calc(&["--m", "1Mb", "--n", "1000"]);
        assert_eq!(c.m_bits, Some(1_000_000));
        same(&s, &c);
        has(&render_text(&s, 80, 24), "m = 1,000,000 bits");
        type_into(&mut s, Field::M, "10Mbit");
        let c = calc(&["--m", "10Mbit", "--n", "1000"]);
        assert_eq!(c.m_bits, Some(10_000_000));
        same(&s, &c);
        has(&render_text(&s, 80, 24), "m = 10,000,000 bits");
        // Typing p lets m follow p again.
        type_into(&mut s, Field::P, "1 in 1000");
        let c = calc(&["--n", "1000", "--p", "1 in 1000"]);
        assert_eq!((c.p, s.explore.params.p), (Some(0.001), 0.001));
        same(&s, &c);
        has(&render_text(&s, 80, 24), "p (target)  0.1000%");
    }

    #[test]
    fn every_kind_shows_the_memory_measure_reports() {
        // At n = 10^6, p = 1%, the memory Explore shows for each kind equals the `bytes` that
        // `bloomlab measure --filter K --n 1000000 --p 0.01` reports (its library call,
        // `measure` of `FilterSpec::new(kind, n, p)`).
        use bloomlab::measure::{Control, MeasureConfig, measure};
        use bloomlab::workload::KeyKind;
        use bloomlab::{FilterKind, FilterSpec};
        let mut s = State::new();
        init(&mut s);
        s.explore.field = Field::Kind;
        for (i, kind) in FilterKind::ALL.into_iter().enumerate() {
            if i > 0 {
                update(&mut s, Msg::Right);
            }
            assert_eq!(s.explore.params.kind, kind);
            let cfg = MeasureConfig {
                queries: 1_000,
                ..MeasureConfig::new(FilterSpec::new(kind, 1_000_000, 0.01), KeyKind::U64)
            };
            let m = measure(&cfg, &Control::default()).unwrap();
            let t = render_text(&s, 80, 24);
            let shown = format!("= {} bytes", crate::tui::fmt::int(m.bytes as u64));
            has(&t, &shown);
            let bpk = format!("bits/key {:.3}", m.bytes as f64 * 8.0 / 1e6);
            has(&t, &bpk);
            assert!(!t.contains("invalid"), "{kind}: {t}");
            if kind != FilterKind::Standard {
                // The FPR lines are a standard filter's, and say so.
                has(&t, "FPR theory: standard, m 9.6M k 7");
            }
            eprintln!("{kind}: shown {shown} · measure bytes {}", m.bytes);
        }
    }

    #[test]
    fn split_block_with_a_pinned_k_is_sized_by_its_own_rule() {
        let mut s = State::new();
        init(&mut s);
        type_into(&mut s, Field::K, "7");
        s.explore.field = Field::Kind;
        while s.explore.params.kind != bloomlab::FilterKind::SplitBlock {
            update(&mut s, Msg::Right);
        }
        let t = render_text(&s, 80, 24);
        assert!(!t.contains("invalid k"), "{t}");
        let line = line_with(&t, "k (hashes)").unwrap();
        assert!(line.contains("unused: own sizing"), "{line}");
        // 1,316,160 bytes: Parquet's blocks for n = 10^6, p = 1%, k fixed at 8.
        has(&t, "split-block 10,529,280 bits k 8");
        has(&t, "= 1,316,160 bytes");
    }

    #[test]
    fn small_m_interval_is_over_sixteen_filters() {
        use crate::tui::sizing::SMALL_INSTANCES;
        let mut s = State::new();
        init(&mut s);
        type_into(&mut s, Field::N, "1");
        type_into(&mut s, Field::M, "8");
        let job = s.explore.run.job;
        assert_eq!(s.explore.run.instances, SMALL_INSTANCES);
        has(&render_text(&s, 80, 24), "measured     … 0 of 16 filters");
        // Instance rates of n = 1, m = 8, k = 6: (j/8)^6 for the j distinct bits set.
        let rates = [
            0.0178, 0.0178, 0.0625, 0.0178, 0.0625, 0.0178, 0.1780, 0.0625, 0.0178, 0.0625, 0.0178,
            0.0625, 0.0178, 0.0625, 0.0178, 0.0625,
        ];
        for (i, rate) in rates.into_iter().enumerate() {
            update(
                &mut s,
                Msg::worker(WorkerEvent::ExploreInstance { job, rate }),
            );
            update(
                &mut s,
                Msg::worker(WorkerEvent::ExplorePartial {
                    job,
                    queries: 10_000 * (i as u64 + 1),
                    false_positives: 0,
                    ns_query: 30.0,
                }),
            );
        }
        let (mean, lo, hi) = bloomlab::stats::mean_ci95(&rates);
        // Mean (8·0.0178 + 7·0.0625 + 0.178)/16 = 0.04737; t(15) = 2.131 standard errors.
        assert!((mean - 0.047_369).abs() < 1e-5, "{mean}");
        let t = render_text(&s, 80, 24);
        let (mean, lo, hi) = crate::tui::fmt::measured(mean, lo, hi, false);
        has(&t, &format!("measured     {mean} over 16 filters"));
        has(&t, &format!("95% [{lo}, {hi}] 160k q"));
        assert!(!t.contains("one filter"), "{t}");
        eprintln!("mean {mean} [{lo}, {hi}]");
    }

    #[test]
    fn exact_rate_at_one_gib_is_the_library_value() {
        // m = 2^33 bits (1 GiB), n = 10^8, k = 30: the exact rate is ~1e-16 (the old moment form
        // cancelled to "100%" at such m); the screen shows the library's value in its format.
        let mut s = State::new();
        init(&mut s);
        type_into(&mut s, Field::N, "1e8");
        type_into(&mut s, Field::M, "1GiB");
        type_into(&mut s, Field::K, "30");
        let want = bloomlab::theory::fpr_exact_with_bound(1 << 33, 100_000_000, 30).expect("bound");
        assert!(want.value > 1e-18 && want.value < 1e-14, "{want:?}");
        let t = render_text(&s, 120, 40);
        has(&t, "m = 8,589,934,592 bits");
        has(
            &t,
            &format!("FPR exact    {}", crate::tui::fmt::prob(want.value)),
        );
        assert!(!t.contains("100.0"), "{t}");
    }

    #[test]
    fn refused_measurement_says_why() {
        let mut s = State::new();
        init(&mut s);
        type_into(&mut s, Field::N, "1e9");
        let t = render_text(&s, 120, 40);
        has(
            &t,
            "refused: explore not measured: 9,585,058,377 bits is over 2^33 bits",
        );
        has(&t, "measured     refused");
    }
}
