//! Trade-offs: the workload, every candidate the chooser sizes for it (theory only), the
//! Pareto front over (bits/key, FPR, lookup ns) and the recommendation by expected cost.

use ratatui::Frame;
use ratatui::layout::{Constraint, Layout, Rect};
use ratatui::style::Style;
use ratatui::symbols::Marker;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Axis, Block, Chart, Dataset, GraphType, Paragraph, Wrap};

use super::{ACCENT, BAD, MARK, MEASURED, bold, selected};
use crate::tui::fmt;
use crate::tui::state::State;
use crate::tui::tradeoffs::{TradeField, Tradeoffs};

/// A duration in ns as `850 ns`, `10 µs`, `2.5 ms`, `1.2 s`.
pub(super) fn dur(ns: f64) -> String {
    let (v, unit) = if ns >= 1e9 {
        (ns / 1e9, "s")
    } else if ns >= 1e6 {
        (ns / 1e6, "ms")
    } else if ns >= 1e3 {
        (ns / 1e3, "µs")
    } else {
        (ns, "ns")
    };
    let v = if (v - v.round()).abs() < 0.05 {
        format!("{:.0}", v.round())
    } else {
        format!("{v:.1}")
    };
    format!("{v} {unit}")
}

fn field_text(t: &Tradeoffs, f: TradeField) -> String {
    let yes = |b: bool| if b { "yes" } else { "no" };
    match f {
        TradeField::N => format!("n {}", fmt::int(t.c.n)),
        TradeField::P => format!("p {}", fmt::prob(t.p)),
        TradeField::NegativeCost => format!("false positive costs {}", dur(t.c.negative_cost_ns)),
        TradeField::HitRatio => format!("hits {:.0}%", t.c.hit_ratio * 100.0),
        TradeField::Static => format!("static kinds {} (s)", yes(t.c.allow_static)),
        TradeField::Deletes => format!("deletes {} (d)", yes(t.c.deletes)),
    }
}

pub(super) fn draw(f: &mut Frame<'_>, s: &State, area: Rect) {
    let t = &s.tradeoffs;
    // The recommendation gets the rows its wrapped text needs (at most 8), the table the rest.
    let inner = usize::from(area.width.saturating_sub(2)).max(1);
    let rec_h = t.rec.as_ref().map_or(3, |r| {
        r.reason.chars().count().div_ceil(inner)
            + (r.command.chars().count() + 2).div_ceil(inner)
            + 2
    });
    let [head, mid, rec] = Layout::vertical([
        Constraint::Length(4),
        Constraint::Min(6),
        Constraint::Length(rec_h.min(8) as u16),
    ])
    .areas(area);
    let spans = |fields: &[TradeField]| {
        let mut v = Vec::new();
        for &fl in fields {
            let text = field_text(t, fl);
            if fl == t.field {
                v.push(Span::styled(format!("▸{text}"), selected()));
            } else {
                v.push(Span::styled(format!(" {text}"), bold()));
            }
            v.push(Span::raw("  "));
        }
        Line::from(v)
    };
    f.render_widget(
        Paragraph::new(vec![
            spans(&TradeField::ALL[..4]),
            spans(&TradeField::ALL[4..]),
        ])
        .block(Block::bordered().title(" Workload (theory only: no filter built) ")),
        head,
    );
    let all = match &t.est {
        Ok(all) if !all.is_empty() => all,
        Ok(_) => {
            f.render_widget(Paragraph::new("no candidate meets these constraints"), mid);
            return;
        }
        Err(e) => {
            f.render_widget(
                Paragraph::new(Span::styled(e.clone(), bold().fg(BAD)))
                    .wrap(Wrap { trim: false })
                    .block(Block::bordered().title(" Candidates ")),
                mid,
            );
            return;
        }
    };
    let best = t.rec.as_ref().map(|r| r.best);
    let table_w = 54.min(mid.width.saturating_sub(20)).max(20);
    let [table, chart] =
        Layout::horizontal([Constraint::Length(table_w), Constraint::Min(10)]).areas(mid);
    // Cheapest first.
    let mut order: Vec<usize> = (0..all.len()).collect();
    order.sort_by(|a, b| {
        all[*a]
            .expected_cost_ns
            .total_cmp(&all[*b].expected_cost_ns)
    });
    let mut lines = vec![Line::from(Span::styled(
        format!(
            "   {:<19} {:>5} {:>8} {:>5} {:>7}",
            "candidate", "b/key", "FPR", "look", "cost ns"
        ),
        bold(),
    ))];
    for i in order {
        let m = &all[i];
        // Two marks, so the cursor ▶ of the cheapest never hides its ★.
        let front = t.front.contains(&i);
        let mark = format!(
            "{}{}",
            if Some(i) == best { "▶" } else { " " },
            if front { "★" } else { " " }
        );
        let style = if Some(i) == best {
            bold().fg(MARK)
        } else if front {
            bold().fg(MEASURED)
        } else {
            Style::default()
        };
        let label: String = m.label.chars().take(19).collect();
        lines.push(Line::from(Span::styled(
            format!(
                "{mark} {label:<19} {:>5.2} {:>8} {:>5} {:>7}",
                m.bits_per_key,
                fmt::rate(m.fpr, s.one_in_n),
                fmt::ns(m.lookup_ns),
                cost(m.expected_cost_ns)
            ),
            style,
        )));
    }
    f.render_widget(
        Paragraph::new(lines).block(Block::bordered().title(format!(
            " {} candidates · ★ Pareto front: {} ",
            all.len(),
            t.front.len()
        ))),
        table,
    );
    draw_chart(f, t, chart);
    let text = match &t.rec {
        Some(r) => vec![
            Line::from(vec![
                Span::styled("▶ ", bold().fg(MARK)),
                Span::raw(r.reason.clone()),
            ]),
            Line::from(Span::styled(
                format!("$ {}", r.command),
                Style::default().fg(ACCENT),
            )),
        ],
        None => vec![Line::from("no recommendation")],
    };
    f.render_widget(
        Paragraph::new(text)
            .wrap(Wrap { trim: false })
            .block(Block::bordered().title(" Recommendation (lowest expected cost per query) ")),
        rec,
    );
}

/// An expected cost in ns for a 7-character cell: `123.4`, `12,345`, `1.23M`.
fn cost(ns: f64) -> String {
    if ns < 1e3 {
        format!("{ns:.1}")
    } else if ns < 1e6 {
        fmt::int(ns.round() as u64)
    } else {
        fmt::si(ns)
    }
}

/// FPR (log10) against bits per key: the front in green, the rest in cyan, the choice in
/// magenta.
fn draw_chart(f: &mut Frame<'_>, t: &Tradeoffs, area: Rect) {
    let Ok(all) = &t.est else {
        return;
    };
    let pt = |i: usize| (all[i].bits_per_key, all[i].fpr.max(1e-300).log10());
    let best = t.rec.as_ref().map(|r| r.best);
    let front: Vec<(f64, f64)> = t.front.iter().map(|&i| pt(i)).collect();
    let rest: Vec<(f64, f64)> = (0..all.len())
        .filter(|i| !t.front.contains(i))
        .map(pt)
        .collect();
    let chosen: Vec<(f64, f64)> = best.map(pt).into_iter().collect();
    let xs = all.iter().map(|m| m.bits_per_key);
    let (x0, x1) = xs.fold((f64::INFINITY, f64::NEG_INFINITY), |(a, b), x| {
        (a.min(x), b.max(x))
    });
    let (x0, x1) = (x0.floor().max(0.0), x1.ceil().max(x0.floor() + 1.0));
    let ys = all.iter().map(|m| m.fpr.max(1e-300).log10());
    let (y0, y1) = ys.fold((f64::INFINITY, f64::NEG_INFINITY), |(a, b), y| {
        (a.min(y), b.max(y))
    });
    let (y0, y1) = (y0.floor(), y1.ceil().max(y0.floor() + 1.0));
    let sets = vec![
        Dataset::default()
            .marker(Marker::Dot)
            .graph_type(GraphType::Scatter)
            .style(Style::default().fg(ACCENT))
            .data(&rest),
        Dataset::default()
            .marker(Marker::Dot)
            .graph_type(GraphType::Scatter)
            .style(bold().fg(MEASURED))
            .data(&front),
        Dataset::default()
            .marker(Marker::Block)
            .graph_type(GraphType::Scatter)
            .style(bold().fg(MARK))
            .data(&chosen),
    ];
    let chart = Chart::new(sets)
        .block(Block::bordered().title(Line::from(vec![
            Span::raw(" FPR vs bits/key "),
            Span::styled("★", bold().fg(MEASURED)),
            Span::styled("▶ ", bold().fg(MARK)),
        ])))
        .x_axis(
            Axis::default()
                .bounds([x0, x1])
                .labels([format!("{x0:.0}"), format!("{x1:.0}")]),
        )
        .y_axis(
            Axis::default()
                .bounds([y0, y1])
                .labels([format!("1e{y0:.0}"), format!("1e{y1:.0}")]),
        )
        .legend_position(None);
    f.render_widget(chart, area);
}

#[cfg(test)]
mod tests {
    use bloomlab::choose;

    use crate::tui::msg::Msg;
    use crate::tui::state::{State, Tab};
    use crate::tui::tradeoffs::TradeField;
    use crate::tui::update::{init, update};
    use crate::tui::view::render_text;
    use crate::tui::view::testkit::line_with;

    /// The screen's numbers are the chooser's (estimate, pareto, recommend for the same
    /// constraints), and moving the negative cost moves the recommendation: a cheap false
    /// positive favours the fastest lookup, an expensive one the lowest rate.
    #[test]
    fn the_recommendation_moves_with_the_cost_of_a_false_positive() {
        let mut s = State::new();
        init(&mut s);
        update(&mut s, Msg::Goto(Tab::Tradeoffs));
        let check = |s: &State| -> String {
            let t = render_text(s, 80, 24);
            let c = &s.tradeoffs.c;
            let all = choose::estimate(c).unwrap();
            let front = choose::pareto(&all);
            let rec = choose::recommend(&all, c).unwrap();
            let title = format!("{} candidates · ★ Pareto front: {}", all.len(), front.len());
            assert!(t.contains(&title), "{title}\n{t}");
            let b = &all[rec.best];
            // The cheapest keeps its ★ beside the ▶ when it is on the front.
            let star = if front.contains(&rec.best) {
                "★"
            } else {
                " "
            };
            let row =
                line_with(&t, &format!("▶{star} {}", b.label)).unwrap_or_else(|| panic!("{t}"));
            // Every front row on screen (the table shows what fits) keeps its ★.
            for &i in &front {
                let label: String = all[i].label.chars().take(19).collect();
                if let Some(r) = line_with(&t, &format!(" {label:<19} ")) {
                    assert!(r.contains(&format!("★ {label:<19} ")), "{r}\n{t}");
                }
            }
            assert!(row.contains(&format!("{:.2}", b.bits_per_key)), "{row}");
            assert!(row.contains(&super::cost(b.expected_cost_ns)), "{row}");
            // The reason starts on screen with the chooser's words.
            let start: String = rec.reason.chars().take(40).collect();
            assert!(t.contains(&start), "{start}\n{t}");
            b.label.clone()
        };
        let at_10us = check(&s);
        // Down twice to the negative cost; ← ten times: 10 µs / 2^10 ≈ 10 ns.
        update(&mut s, Msg::Down);
        update(&mut s, Msg::Down);
        assert_eq!(s.tradeoffs.field, TradeField::NegativeCost);
        for _ in 0..10 {
            update(&mut s, Msg::Left);
        }
        let t = render_text(&s, 80, 24);
        assert!(t.contains("false positive costs 9.8 ns"), "{t}");
        let cheap = check(&s);
        // PgUp ×2: ×2^6 twice from 9.8 ns ≈ 40 µs… then more: a millisecond-class miss.
        for _ in 0..4 {
            update(&mut s, Msg::BigUp);
        }
        let dear = check(&s);
        eprintln!("10 µs: {at_10us} · 9.8 ns: {cheap} · dear: {dear}");
        assert_ne!(cheap, dear, "the recommendation did not move");
        let all = choose::estimate(&s.tradeoffs.c).unwrap();
        let dear_fpr = all.iter().find(|m| m.label == dear).unwrap().fpr;
        let cheap_fpr = all.iter().find(|m| m.label == cheap).unwrap().fpr;
        assert!(
            dear_fpr < cheap_fpr,
            "{dear} {dear_fpr} vs {cheap} {cheap_fpr}"
        );
        // n and p move it too: n = 2·10^6 after → on n.
        update(&mut s, Msg::Up);
        update(&mut s, Msg::Up);
        update(&mut s, Msg::Right);
        assert_eq!(s.tradeoffs.c.n, 2_000_000);
        check(&s);
    }
}
