//! Compare: every filter kind at the Explore n and p, and a HashSet baseline.

use bloomlab::FilterKind;
use ratatui::Frame;
use ratatui::layout::{Constraint, Direction, Layout, Rect};
use ratatui::style::Style;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Bar, BarChart, BarGroup, Block, LineGauge, Paragraph};

use super::{ACCENT, BAD, MEASURED, bold};
use crate::tui::fmt;
use crate::tui::results::{RowOutcome, RowState};
use crate::tui::state::{RunStatus, State, hashset_u64_bytes};

pub(super) fn draw(f: &mut Frame<'_>, s: &State, area: Rect) {
    let c = &s.compare;
    let p = &s.explore.params;
    let (n, pp) = c.key.as_ref().map_or((p.n, p.p), |k| (k.n, k.p));
    let table_h = (FilterKind::ALL.len() + 5) as u16;
    let [head, table, chart, gauge] = Layout::vertical([
        Constraint::Length(1),
        Constraint::Length(table_h),
        Constraint::Min(3),
        Constraint::Length(1),
    ])
    .areas(area);
    f.render_widget(
        Paragraph::new(Line::from(vec![
            Span::styled(
                format!(" n = {} · p = {}", fmt::int(n), fmt::prob(pp)),
                bold(),
            ),
            Span::raw(format!(
                " · {} · {} · {} keys · seed {}",
                p.hash, p.strategy, p.keys, c.seed
            )),
        ])),
        head,
    );
    let wide = area.width >= 110;
    // Fixed-width columns written as text, so a status message can span the row.
    let (bk_w, ci_w, th_w, ns_w) = if wide { (8, 17, 8, 6) } else { (6, 9, 7, 5) };
    let header = format!(
        "{:<12} {:>bk_w$} {:>9} {:>8} {:>ci_w$} {:>th_w$} {:>ns_w$} {:>ns_w$} {:>3} {:>4}",
        "filter",
        if wide { "bits/key" } else { "b/key" },
        "memory",
        "FPR",
        if wide { "95% interval" } else { "±95%" },
        "theory",
        if wide { "ns/ins" } else { "ns/i" },
        if wide { "ns/qry" } else { "ns/q" },
        "del",
        "grow"
    );
    let mut lines = vec![Line::from(Span::styled(header, bold()))];
    for (i, kind) in FilterKind::ALL.iter().enumerate() {
        let name = format!("{:<12} ", kind.name());
        let line = match &c.rows[i] {
            RowState::Pending => {
                let what = if c.status == RunStatus::Running {
                    "measuring…"
                } else {
                    "pending"
                };
                Line::from(format!("{name}{what}"))
            }
            RowState::Out(RowOutcome::Failed(e)) => Line::from(vec![
                Span::raw(name),
                Span::styled(format!("failed: {e}"), Style::default().fg(BAD)),
            ]),
            RowState::Out(RowOutcome::Done(r)) => {
                let m = &r.m;
                // The filter's own model (blocked, split-block, scalable and cuckoo are not described by
                // the textbook formula of their m and k).
                let theory = m.theory.model;
                let [lo, hi] = m.fpr_ci95;
                let ci = if wide {
                    format!("{}–{}", fmt::prob(lo), fmt::prob(hi))
                } else {
                    format!("±{}", fmt::prob((hi - m.fpr).max(m.fpr - lo)))
                };
                Line::from(vec![
                    Span::styled(name, bold()),
                    Span::raw(format!(
                        "{:>bk_w$.2} {:>9} ",
                        m.bits_per_key,
                        fmt::bytes(m.bytes as f64)
                    )),
                    Span::styled(format!("{:>8}", fmt::prob(m.fpr)), bold().fg(MEASURED)),
                    Span::raw(format!(
                        " {ci:>ci_w$} {:>th_w$} {:>ns_w$} {:>ns_w$} {:>3} {:>4}",
                        fmt::prob(theory),
                        fmt::ns(m.ns_per_insert),
                        fmt::ns(m.ns_per_query),
                        if r.removable { "yes" } else { "no" },
                        if kind.caps().grows { "yes" } else { "no" },
                    )),
                ])
            }
        };
        lines.push(line);
    }
    let hs = hashset_u64_bytes(n);
    lines.push(Line::from(Span::styled(
        format!(
            "{:<12} {:>bk_w$.1} {:>9} {:>8} {:>ci_w$} {:>th_w$} {:>ns_w$} {:>ns_w$} {:>3} {:>4}",
            "HashSet<u64>",
            hs as f64 * 8.0 / n as f64,
            format!("{}*", fmt::bytes(hs as f64)),
            "0",
            "exact",
            "",
            "",
            "",
            "yes",
            "yes"
        ),
        Style::default().fg(ACCENT),
    )));
    lines.push(Line::from(Span::styled(
        "each kind sized by its own rule; 95%: one filter of each (its queries)",
        Style::default().fg(ACCENT),
    )));
    f.render_widget(
        Paragraph::new(lines)
            .block(Block::bordered().title(" Every filter kind at the same n and p (* estimate) ")),
        table,
    );
    draw_bars(f, s, n, chart);
    let (ratio, label) = match &c.status {
        RunStatus::Running => (c.progress, format!("measuring {:.0}%", c.progress * 100.0)),
        RunStatus::Done => (1.0, "done".to_string()),
        RunStatus::Refused(w) => (0.0, format!("refused: {w}")),
        RunStatus::Stopped(w) | RunStatus::Failed(w) => (1.0, format!("stopped: {w}")),
        RunStatus::Idle => (0.0, "waiting".to_string()),
    };
    f.render_widget(
        LineGauge::default()
            .ratio(ratio.clamp(0.0, 1.0))
            .label(label)
            .filled_style(bold().fg(MEASURED)),
        gauge,
    );
}

fn draw_bars(f: &mut Frame<'_>, s: &State, n: u64, area: Rect) {
    let mut bars: Vec<Bar<'_>> = Vec::new();
    for (i, kind) in FilterKind::ALL.iter().enumerate() {
        if let Some(r) = s.compare.rows[i].done() {
            bars.push(
                Bar::default()
                    .label(Line::from(kind.name()))
                    .value(r.m.bytes as u64)
                    .text_value(fmt::bytes(r.m.bytes as f64))
                    .style(Style::default().fg(MEASURED)),
            );
        }
    }
    let hs = hashset_u64_bytes(n);
    bars.push(
        Bar::default()
            .label(Line::from("HashSet"))
            .value(hs)
            .text_value(format!("{} (estimate)", fmt::bytes(hs as f64)))
            .style(Style::default().fg(ACCENT)),
    );
    // Thicker bars when there is room.
    let rows = area.height.saturating_sub(2);
    let width = (rows / bars.len().max(1) as u16)
        .saturating_sub(1)
        .clamp(1, 3);
    let chart = BarChart::default()
        .block(Block::bordered().title(" Memory (bytes; HashSet<u64> estimated from its layout) "))
        .direction(Direction::Horizontal)
        .bar_width(width)
        .bar_gap(u16::from(width > 1))
        .value_style(bold())
        .data(BarGroup::default().bars(&bars));
    f.render_widget(chart, area);
}

#[cfg(test)]
mod tests {
    use bloomlab::FilterKind;
    use bloomlab::measure::{Control, MeasureConfig, measure};

    use crate::tui::msg::{Cmd, Msg, WorkerEvent};
    use crate::tui::results::{CompareResult, RowOutcome};
    use crate::tui::state::{Field, State, Tab};
    use crate::tui::update::{init, update};
    use crate::tui::view::render_text;
    use crate::tui::view::testkit::{line_with, type_into};

    #[test]
    fn rows_show_measurements_and_unavailable_kinds() {
        let mut s = State::new();
        init(&mut s);
        type_into(&mut s, Field::N, "1000");
        let cmds = update(&mut s, Msg::Goto(Tab::Compare));
        let job = cmds
            .iter()
            .find_map(|c| match c {
                Cmd::StartCompare(j) => Some(j.clone()),
                _ => None,
            })
            .unwrap();
        let t = render_text(&s, 80, 24);
        assert!(t.contains("standard     measuring…"), "{t}");
        // A real measurement of the standard row, as the worker would make it.
        let spec = bloomlab::FilterSpec {
            kind: FilterKind::Standard,
            ..job.base.clone()
        };
        let cfg = MeasureConfig {
            queries: 20_000,
            ..MeasureConfig::new(spec, job.keys)
        };
        let m = measure(&cfg, &Control::default()).unwrap();
        let fpr = m.fpr;
        update(
            &mut s,
            Msg::worker(WorkerEvent::CompareRow {
                job: job.job,
                idx: 0,
                outcome: RowOutcome::Done(CompareResult {
                    m,
                    removable: false,
                }),
            }),
        );
        for i in 1..FilterKind::ALL.len() {
            update(
                &mut s,
                Msg::worker(WorkerEvent::CompareRow {
                    job: job.job,
                    idx: i,
                    outcome: RowOutcome::Failed("out of memory".into()),
                }),
            );
        }
        for (w, h) in [(80, 24), (140, 40)] {
            let t = render_text(&s, w, h);
            assert!(t.contains("n = 1,000 · p = 1.000%"), "{t}");
            let std = line_with(&t, "standard ").unwrap();
            // 9,585 bits → 150 words = 1,200 bytes = 9.60 bits per key.
            assert!(std.contains("9.60") && std.contains("1.20 kB"), "{std}");
            assert!(std.contains(&crate::tui::fmt::prob(fpr)), "{std}");
            assert!(std.contains(" no   no"), "{std}");
            let failed = FilterKind::ALL.len() - 1;
            assert_eq!(t.matches("failed: out of memory").count(), failed, "{t}");
            let hs = line_with(&t, "HashSet<u64> ").unwrap();
            // 1,000 · 8/7 → 2,048 buckets × 9 + 16 = 18,448 bytes.
            assert!(hs.contains("18.45 kB*") && hs.contains("exact"), "{hs}");
            assert!(t.contains("Memory"), "{t}");
            assert!(t.contains("18.45 kB (estimate)"), "{t}");
        }
        let wide = render_text(&s, 140, 40);
        assert!(wide.contains("95% interval"), "{wide}");
        assert!(
            wide.contains("95%: one filter of each (its queries)"),
            "{wide}"
        );
        // Every kind by its own rule: the job's spec carries n and p, never the standard's m, k.
        assert_eq!((job.base.m, job.base.k), (None, None));
    }
}
