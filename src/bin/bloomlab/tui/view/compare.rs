//! Compare: every filter kind at the Explore n and p, and a HashSet baseline.

use bloomlab::FilterKind;
use bloomlab::measure::TimingStats;
use ratatui::Frame;
use ratatui::layout::{Constraint, Layout, Rect};
use ratatui::style::Style;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, LineGauge, Paragraph};

use super::{ACCENT, BAD, MEASURED, bold};
use crate::tui::fmt;
use crate::tui::results::{PEERS, RowOutcome, RowState};
use crate::tui::state::{RunStatus, State, hashset_u64_bytes};

/// `p` as everywhere when it fits in `w` characters, else with fewer digits (a table cell
/// never pushes its row past the border).
fn fit(p: f64, w: usize, one_in: bool) -> String {
    if one_in {
        let full = fmt::rate(p, true);
        if full.chars().count() <= w {
            return full;
        }
        let short = format!("1/{}", full.trim_start_matches("1 in "));
        if short.chars().count() <= w {
            return short;
        }
        return format!("{p:.0e}");
    }
    let full = fmt::prob(p);
    if full.chars().count() <= w {
        return full;
    }
    let short = if p >= 1e-4 {
        let pct = p * 100.0;
        let digits = (2 - pct.log10().floor() as i32).clamp(0, 6) as usize;
        format!("{pct:.digits$}%")
    } else {
        format!("{p:.1e}")
    };
    if short.chars().count() <= w {
        short
    } else {
        format!("{p:.0e}")
    }
}

/// A peer row's measured rate in its 8 columns, with the digits its interval supports.
fn peer_rate(p: f64, lo: f64, hi: f64, one_in: bool) -> String {
    fit_text_or(fmt::measured(p, lo, hi, one_in).0, 8, || fit(p, 8, one_in))
}

/// `t`, or `short()` when `t` is wider than `w`.
fn fit_text_or(t: String, w: usize, short: impl FnOnce() -> String) -> String {
    if t.chars().count() <= w { t } else { short() }
}

/// The larger half of a 95% interval around `p`, to one significant digit (`0.06%`, `3e-5`).
fn half_width(p: f64, lo: f64, hi: f64) -> String {
    let h = f64::max(hi - p, p - lo);
    bloomlab::units::format_prob_sig(h, 1, h < 1e-4)
}

/// `t` or, when it is wider than `w`, `>` and the largest power of ten that fits (ns cells).
fn fit_text(t: String, w: usize) -> String {
    if t.len() <= w {
        t
    } else {
        format!(">{}", "9".repeat(w - 1))
    }
}

pub(super) fn draw(f: &mut Frame<'_>, s: &State, area: Rect) {
    let c = &s.compare;
    let c1 = s.one_in_n;
    let p = &s.explore.params;
    let (n, pp) = c.key.as_ref().map_or((p.n, p.p), |k| (k.n, k.p));
    // At 24 lines the table gives up its spare line so the memory bars get four rows (three
    // columns wide enough for `binary-fuse 1.13 kB █`; see `draw_bars`).
    // Below 26 lines the table leaves HashSet's row to the memory pane's title (twelve kinds at
    // 80×24: the pane then gets four rows, three columns of bars).
    let spare = u16::from(area.height >= 26);
    let table_h = (FilterKind::ALL.len() + 3) as u16 + 2 * spare;
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
    let (bk_w, ci_w, th_w, ns_w) = if wide { (8, 21, 10, 6) } else { (6, 9, 7, 5) };
    // "1 in 99.6" is nine characters: wide tables have room for it.
    let fp_w = if wide { 10 } else { 8 };
    let header = if c.timings {
        format!(
            "{:<12} {:>7} {:>17} {:>7} {:>17} {:>7}",
            "filter", "ns/ins", "ins min–max", "ns/qry", "qry min–max", "chunks"
        )
    } else {
        format!(
            "{:<12} {:>bk_w$} {:>9} {:>fp_w$} {:>ci_w$} {:>th_w$} {:>ns_w$} {:>ns_w$} {:>3} {:>4}",
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
        )
    };
    let header = if c.peers {
        format!(
            "{:<16} {:<11} {:>5} {:>9} {:>8} {:>9} {:>5} {:>5}",
            "peer crate", "like", "b/key", "memory", "FPR", "±95%", "ns/i", "ns/q"
        )
    } else {
        header
    };
    let mut lines = vec![Line::from(Span::styled(header, bold()))];
    if c.peers {
        peer_rows(s, &mut lines);
    } else if c.timings {
        timing_rows(s, &mut lines);
    }
    for (i, kind) in FilterKind::ALL.iter().enumerate() {
        if c.timings || c.peers {
            break;
        }
        let name = format!("{:<12} ", kind.name());
        let line = match &c.rows[i] {
            RowState::Pending => {
                let what = match c.status {
                    RunStatus::Running => "measuring…",
                    RunStatus::Refused(_) => "refused",
                    _ => "pending",
                };
                match c.models.get(i) {
                    // The kind's theory while its measurement is pending or refused.
                    Some(Ok(md)) => Line::from(vec![
                        Span::styled(name, bold()),
                        Span::styled(
                            format!(
                                "{:>bk_w$.2} {:>9} {:>fp_w$} {what:>ci_w$} {:>th_w$} {:>ns_w$} {:>ns_w$} {:>3} {:>4}",
                                md.bits_per_key(n),
                                fmt::bytes(md.bytes as f64),
                                "-",
                                fit(md.fpr, th_w, c1),
                                "",
                                "",
                                if kind.caps().removable { "yes" } else { "no" },
                                if kind.caps().grows { "yes" } else { "no" },
                            ),
                            Style::default().fg(ACCENT),
                        ),
                    ]),
                    Some(Err(e)) => Line::from(vec![
                        Span::raw(name),
                        Span::styled(format!("{what}; no model: {e}"), Style::default().fg(BAD)),
                    ]),
                    None => Line::from(format!("{name}{what}")),
                }
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
                // The digits the interval supports; the half-width to one digit.
                let (rate, lo_t, hi_t) = fmt::measured(m.fpr, lo, hi, c1);
                let ci = if wide {
                    format!("{lo_t}–{hi_t}")
                } else {
                    format!("±{}", half_width(m.fpr, lo, hi))
                };
                Line::from(vec![
                    Span::styled(name, bold()),
                    Span::raw(format!(
                        "{:>bk_w$.2} {:>9} ",
                        m.bits_per_key,
                        fmt::bytes(m.bytes as f64)
                    )),
                    Span::styled(
                        format!(
                            "{:>fp_w$}",
                            fit_text_or(rate, fp_w, || fit(m.fpr, fp_w, c1))
                        ),
                        bold().fg(MEASURED),
                    ),
                    Span::raw(format!(
                        " {ci:>ci_w$} {:>th_w$} {:>ns_w$} {:>ns_w$} {:>3} {:>4}",
                        fit(theory, th_w, c1),
                        fit_text(
                            fmt::ns(median(m.timing.insert.as_ref(), m.ns_per_insert)),
                            ns_w
                        ),
                        fit_text(
                            fmt::ns(median(m.timing.query.as_ref(), m.ns_per_query)),
                            ns_w
                        ),
                        if r.removable { "yes" } else { "no" },
                        if kind.caps().grows { "yes" } else { "no" },
                    )),
                ])
            }
        };
        lines.push(line);
    }
    let hs = hashset_u64_bytes(n);
    if !c.timings && !c.peers && spare == 1 {
        lines.push(Line::from(Span::styled(
        format!(
            "{:<12} {:>bk_w$.1} {:>9} {:>fp_w$} {:>ci_w$} {:>th_w$} {:>ns_w$} {:>ns_w$} {:>3} {:>4}",
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
    }
    let legend = Line::from(Span::styled(
        if c.peers {
            "peers: same n, p, u64 keys and queries, same worker; ns medians · e: kinds"
        } else if c.timings {
            "ns per key: median (fastest–slowest) of timed chunks · v: rates"
        } else if wide {
            "each kind sized by its own rule; 95%: one filter of each (its queries); ns: medians (v: ranges)"
        } else {
            "each kind sized by its own rule; 95%: one filter; ns: medians; v: ranges"
        },
        Style::default().fg(ACCENT),
    ));
    f.render_widget(
        Paragraph::new(lines).block(
            Block::bordered()
                .title(" Every filter kind at the same n and p (* estimate) ")
                .title_bottom(legend),
        ),
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

/// The median of the timed chunks, else the mean (a static set's construction, timed whole).
fn median(t: Option<&TimingStats>, mean: f64) -> f64 {
    t.map_or(mean, |t| t.median)
}

/// `min–max` of the timed chunks, or why there is none.
fn range(t: Option<&TimingStats>) -> String {
    t.map_or("built whole".into(), |t| {
        format!("{}–{}", fmt::ns(t.min), fmt::ns(t.max))
    })
}

/// `e`: one row per peer crate, measured like the kinds (same keys, same queries, same worker).
fn peer_rows(s: &State, lines: &mut Vec<Line<'_>>) {
    let n = s.compare.key.as_ref().map_or(s.explore.params.n, |k| k.n);
    for (i, (name, like)) in PEERS.iter().enumerate() {
        let head = format!("{name:<16} {like:<11} ");
        let line = match &s.compare.peer_rows[i] {
            RowState::Out(RowOutcome::Done(r)) => {
                let (lo, hi) =
                    bloomlab::stats::wilson(r.false_positives, r.queries, bloomlab::stats::Z95);
                let fpr = r.fpr();
                Line::from(vec![
                    Span::styled(head, bold()),
                    Span::raw(format!(
                        "{:>5.2} {:>9} ",
                        r.bytes as f64 * 8.0 / n.max(1) as f64,
                        fmt::bytes(r.bytes as f64)
                    )),
                    Span::styled(
                        format!("{:>8}", peer_rate(fpr, lo, hi, s.one_in_n)),
                        bold().fg(MEASURED),
                    ),
                    Span::raw(format!(
                        " {:>9} {:>5} {:>5}",
                        format!("±{}", half_width(fpr, lo, hi)),
                        fit_text(fmt::ns(r.insert.median), 5),
                        fit_text(fmt::ns(r.query.median), 5),
                    )),
                    Span::styled(
                        if r.refused > 0 {
                            format!(" {} full", fmt::si(r.refused as f64))
                        } else {
                            String::new()
                        },
                        Style::default().fg(BAD),
                    ),
                ])
            }
            RowState::Out(RowOutcome::Failed(e)) => Line::from(vec![
                Span::raw(head),
                Span::styled(format!("failed: {e}"), Style::default().fg(BAD)),
            ]),
            RowState::Pending => Line::from(format!(
                "{head}{}",
                if s.compare.status == RunStatus::Running {
                    "measuring…"
                } else {
                    "pending"
                }
            )),
        };
        lines.push(line);
    }
}

/// `v`: one row per kind with the medians and ranges of its insert and query times.
fn timing_rows(s: &State, lines: &mut Vec<Line<'_>>) {
    for (i, kind) in FilterKind::ALL.iter().enumerate() {
        let name = format!("{:<12} ", kind.name());
        let line = match s.compare.rows[i].done() {
            Some(r) => {
                let t = &r.m.timing;
                let chunks = t.query.as_ref().map_or(0, |q| q.samples);
                Line::from(vec![
                    Span::styled(name, bold()),
                    Span::raw(format!(
                        "{:>7} {:>17} ",
                        fmt::ns(median(t.insert.as_ref(), r.m.ns_per_insert)),
                        range(t.insert.as_ref())
                    )),
                    Span::styled(
                        format!("{:>7}", fmt::ns(median(t.query.as_ref(), r.m.ns_per_query))),
                        bold().fg(MEASURED),
                    ),
                    Span::raw(format!(" {:>17} {:>7}", range(t.query.as_ref()), chunks)),
                ])
            }
            None => Line::from(format!("{name}not measured")),
        };
        lines.push(line);
    }
}

/// The memory bars as text: `label value ███`, the value always left of its bar (never drawn
/// over it), in as many side-by-side columns as the pane's height needs to show every kind.
fn draw_bars(f: &mut Frame<'_>, s: &State, n: u64, area: Rect) {
    let mut bars: Vec<(String, u64, String, Style)> = Vec::new();
    for (i, kind) in FilterKind::ALL.iter().enumerate() {
        if let Some(r) = s.compare.rows[i].done() {
            let b = r.m.bytes as u64;
            bars.push((
                kind.name().to_string(),
                b,
                fmt::bytes(b as f64),
                Style::default().fg(MEASURED),
            ));
        }
    }
    let hs = hashset_u64_bytes(n);
    bars.push((
        "HashSet".into(),
        hs,
        format!("{}*", fmt::bytes(hs as f64)),
        Style::default().fg(ACCENT),
    ));
    // A short pane (80×24) keeps only its top border; when even then the kinds and HashSet need
    // more than three columns (twelve kinds: 13 bars in 4 rows), HashSet moves into the title,
    // so every bar keeps a column wide enough for `binary-fuse 1.13 kB █`.
    let short = area.height < 7;
    let rows = usize::from(area.height.saturating_sub(if short { 1 } else { 2 })).max(1);
    let title = if bars.len() > 3 * rows {
        let (_, _, text, _) = bars.pop().expect("HashSet was pushed last");
        format!(" Memory (bytes) · HashSet<u64> {text} estimated from its layout ")
    } else {
        " Memory (bytes; * HashSet<u64> estimated from its layout) ".to_string()
    };
    let block = if short {
        Block::new().borders(ratatui::widgets::Borders::TOP)
    } else {
        Block::bordered()
    }
    .title(title);
    let inner = block.inner(area);
    f.render_widget(block, area);
    let rows = usize::from(inner.height).max(1);
    let cols = bars.len().div_ceil(rows).max(1);
    let col_w = usize::from(inner.width) / cols;
    let label_w = bars.iter().map(|b| b.0.len()).max().unwrap_or(0);
    let value_w = bars.iter().map(|b| b.2.len()).max().unwrap_or(0);
    let bar_w = col_w.saturating_sub(label_w + value_w + 3);
    let max = bars.iter().map(|b| b.1).max().unwrap_or(1).max(1);
    let mut lines: Vec<Line<'_>> = vec![Line::default(); rows.min(bars.len())];
    for (i, (label, v, text, style)) in bars.into_iter().enumerate() {
        let len = ((v as f64 / max as f64) * bar_w as f64).round() as usize;
        let len = len.max(usize::from(v > 0)).min(bar_w);
        let line = &mut lines[i % rows];
        line.spans.push(Span::raw(format!("{label:<label_w$} ")));
        line.spans
            .push(Span::styled(format!("{text:>value_w$} "), bold()));
        line.spans.push(Span::styled("█".repeat(len), style));
        line.spans.push(Span::raw(
            " ".repeat(col_w.saturating_sub(label_w + value_w + 2 + len)),
        ));
    }
    f.render_widget(Paragraph::new(lines), inner);
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
        // Measuring: the row shows the standard filter's theory meanwhile (9,585 bits, 1.004%).
        let row = line_with(&t, "standard ").unwrap();
        assert!(
            row.contains("measuring…") && row.contains("9.60") && row.contains("1.004%"),
            "{row}"
        );
        // A real measurement of the standard row, as the worker would make it.
        let spec = bloomlab::FilterSpec {
            kind: FilterKind::Standard,
            ..job.base.clone()
        };
        let cfg = MeasureConfig {
            queries: 20_000,
            ..MeasureConfig::new(spec, job.keys)
        };
        let mut m = measure(&cfg, &Control::default()).unwrap();
        // The rate as the row prints it: the digits its interval supports.
        let [lo, hi] = m.fpr_ci95;
        let raw = m.fpr;
        let fpr = crate::tui::fmt::measured(raw, lo, hi, false).0;
        // Timings as the shared machine gives them: a mean pulled up by one slow chunk; the
        // table shows the median, and v the range.
        m.ns_per_query = 77.0;
        m.timing.query = Some(bloomlab::measure::TimingStats {
            median: 31.5,
            min: 29.25,
            max: 412.0,
            samples: 7,
        });
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
            assert!(std.contains(&format!(" {fpr} ")), "{fpr}: {std}");
            assert!(std.contains(" no   no"), "{std}");
            let failed = FilterKind::ALL.len() - 1;
            assert_eq!(t.matches("failed: out of memory").count(), failed, "{t}");
            let hs = line_with(&t, "HashSet<u64> ").unwrap();
            // 1,000 · 8/7 → 2,048 buckets × 9 + 16 = 18,448 bytes. Below 26 lines HashSet's
            // row is left to the memory pane's title (twelve kinds at 80×24).
            if h >= 26 {
                assert!(hs.contains("18.45 kB*") && hs.contains("exact"), "{hs}");
            } else {
                assert!(hs.contains("Memory") && !hs.contains("exact"), "{hs}");
            }
            assert!(t.contains("Memory"), "{t}");
            assert!(t.contains("18.45 kB*"), "{t}");
        }
        s.one_in_n = true;
        let t = render_text(&s, 80, 24);
        let std = line_with(&t, "standard ").unwrap();
        // The measured rate and the theory (1.004%) as 1 in N, "1/N" where "1 in" is too wide.
        let one = super::fit_text_or(crate::tui::fmt::measured(raw, lo, hi, true).0, 8, || {
            super::fit(raw, 8, true)
        });
        assert!(std.contains(&one), "{one}: {std}");
        assert!(std.contains("1/99.6"), "{std}");
        let wide = render_text(&s, 140, 40);
        let row = line_with(&wide, "standard ").unwrap();
        let one = crate::tui::fmt::measured(raw, lo, hi, true).0;
        assert!(row.contains(&one), "{one}: {row}");
        s.one_in_n = false;
        let t = render_text(&s, 80, 24);
        let std = line_with(&t, "standard ").unwrap();
        assert!(std.contains(" 31.5 ") && !std.contains("77.0"), "{std}");
        update(&mut s, Msg::CycleView);
        for (w, h) in [(80, 24), (140, 40)] {
            let t = render_text(&s, w, h);
            let std = line_with(&t, "standard ").unwrap();
            let cells: Vec<&str> = std.trim_matches('│').split_whitespace().collect();
            assert_eq!(cells[3..], ["31.5", "29.2–412", "7"], "{w}x{h}: {std}");
            assert!(t.contains("median (fastest–slowest)"), "{t}");
        }
        update(&mut s, Msg::CycleView);
        let wide = render_text(&s, 140, 40);
        assert!(wide.contains("95% interval"), "{wide}");
        assert!(
            wide.contains("95%: one filter of each (its queries)"),
            "{wide}"
        );
        // Every kind by its own rule: the job's spec carries n and p, never the standard's m, k.
        assert_eq!((job.base.m, job.base.k), (None, None));
    }

    /// e: the peer crates' rows, measured in the same worker job after the kinds (the job
    /// asks for all seven), drawn with their memory and rate at 80×24; e again: the kinds.
    #[cfg(feature = "peers")]
    #[test]
    fn peers_rows_show_their_measurements() {
        use crate::tui::results::PEERS;
        let mut s = State::new();
        init(&mut s);
        type_into(&mut s, Field::N, "1000");
        update(&mut s, Msg::Goto(Tab::Compare));
        let cmds = update(&mut s, Msg::TogglePeers);
        // The kinds' job was running: e waits for it (no second job) …
        assert!(cmds.is_empty(), "{cmds:?}");
        // … and once it has finished, asks for the peers.
        let job = s.compare.job;
        let cmds = update(
            &mut s,
            Msg::worker(WorkerEvent::Finished {
                slot: crate::tui::msg::Slot::Compare,
                job,
                stopped: None,
            }),
        );
        let job = cmds
            .iter()
            .find_map(|c| match c {
                Cmd::StartCompare(j) => Some(j.clone()),
                _ => None,
            })
            .unwrap();
        assert_eq!(job.peers, (0..PEERS.len()).collect::<Vec<_>>());
        let mut results = Vec::new();
        for i in 0..PEERS.len() {
            let r = crate::tui::peers::measure_peer(i, 1_000, 0.01, 20_000, 1, &|| false).unwrap();
            results.push(r.clone());
            update(
                &mut s,
                Msg::worker(WorkerEvent::PeerRow {
                    job: job.job,
                    idx: i,
                    outcome: RowOutcome::Done(r),
                }),
            );
        }
        let t = render_text(&s, 80, 24);
        for (i, (name, like)) in PEERS.iter().enumerate() {
            let row =
                line_with(&t, &format!("│{name:<16} {like:<11} ")).unwrap_or_else(|| panic!("{t}"));
            let r = &results[i];
            assert!(
                row.contains(&crate::tui::fmt::bytes(r.bytes as f64)),
                "{row}"
            );
            let (lo, hi) =
                bloomlab::stats::wilson(r.false_positives, r.queries, bloomlab::stats::Z95);
            let rate = super::peer_rate(r.fpr(), lo, hi, false);
            assert!(row.contains(&rate), "{row}");
            assert!(row.ends_with('│'), "{row}");
        }
        // fastbloom at 1%: about 10 bits per key.
        let fb = results[0].bytes as f64 * 8.0 / 1_000.0;
        assert!((8.0..14.0).contains(&fb), "{fb}");
        update(&mut s, Msg::TogglePeers);
        let t = render_text(&s, 80, 24);
        assert!(line_with(&t, "fastbloom ").is_none(), "{t}");
        assert!(line_with(&t, "standard ").is_some(), "{t}");
    }

    /// At n = 10^9 the table is refused (over 2^33 bits), yet every row shows its kind's
    /// theory: bits/key, memory and model rate, not "pending" alone.
    #[test]
    fn refused_rows_show_theory() {
        let mut s = State::new();
        init(&mut s);
        type_into(&mut s, Field::N, "1e9");
        update(&mut s, Msg::Goto(Tab::Compare));
        assert!(matches!(
            s.compare.status,
            crate::tui::state::RunStatus::Refused(_)
        ));
        for (w, h) in [(80, 24), (140, 40)] {
            let t = render_text(&s, w, h);
            // 9,585,058,377 bits in whole words: 1,198,132,304 bytes, 9.59 bits per key, 1.004%.
            let std = line_with(&t, "standard ").unwrap();
            assert!(
                std.contains("9.59") && std.contains("1.20 GB") && std.contains("refused"),
                "{std}"
            );
            assert!(std.contains("1.004%") || std.contains("1.00%"), "{std}");
            assert!(std.contains(" no   no"), "{std}");
            for kind in FilterKind::ALL {
                let row = line_with(&t, &format!("│{:<12} ", kind.name())).unwrap();
                assert!(
                    row.contains("refused") && row.contains('%'),
                    "{kind}: {row}"
                );
                assert!(row.contains(" GB") || row.contains(" MB"), "{kind}: {row}");
            }
            let cuckoo = line_with(&t, "cuckoo ").unwrap();
            let m = crate::tui::model::model(&bloomlab::FilterSpec::new(
                FilterKind::Cuckoo,
                1_000_000_000,
                0.01,
            ))
            .unwrap();
            assert!(
                cuckoo.contains(&crate::tui::fmt::bytes(m.bytes as f64)),
                "{cuckoo}"
            );
        }
    }

    /// Every row at 80×24 ends inside its border (the cuckoo row at n = 10^6, theory 0.09310%,
    /// used to push it one column too far), and every memory bar is shown with its
    /// value beside, never over, the bar.
    #[test]
    fn everything_fits_at_80x24() {
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
        for (i, kind) in FilterKind::ALL.iter().enumerate() {
            let spec = bloomlab::FilterSpec {
                kind: *kind,
                ..job.base.clone()
            };
            let cfg = MeasureConfig {
                queries: 2_000,
                ..MeasureConfig::new(spec, job.keys)
            };
            let mut m = measure(&cfg, &Control::default()).unwrap();
            if *kind == FilterKind::Cuckoo {
                m.fpr = 0.000_893;
                m.fpr_ci95 = [m.fpr - 0.000_060_49, m.fpr + 0.000_060_49];
                m.theory.model = 0.000_931;
                m.ns_per_insert = 12_345.0;
            }
            update(
                &mut s,
                Msg::worker(WorkerEvent::CompareRow {
                    job: job.job,
                    idx: i,
                    outcome: RowOutcome::Done(CompareResult {
                        m,
                        removable: false,
                    }),
                }),
            );
        }
        let t = render_text(&s, 80, 24);
        let mem = t.find("Memory").unwrap();
        let (table, bars) = t.split_at(mem);
        for kind in FilterKind::ALL {
            let row = line_with(table, &format!("│{:<12} ", kind.name())).unwrap();
            assert!(
                row.ends_with(" no   no │") || row.ends_with(" no  yes │"),
                "{kind}: {row}"
            );
            // The bar: name, value, then the blocks.
            let i = bars
                .find(&format!("{} ", kind.name()))
                .unwrap_or_else(|| panic!("{kind}"));
            let after = &bars[i..];
            let line = after.lines().next().unwrap();
            let v = line
                .find(" kB ")
                .or_else(|| line.find(" B "))
                .unwrap_or_else(|| panic!("{line}"));
            let b = line.find('█').unwrap_or_else(|| panic!("{line}"));
            assert!(v < b, "{line}");
        }
        let cuckoo = line_with(table, "cuckoo ").unwrap();
        // 0.0893% ± 0.00605%: two digits, the half-width to one.
        assert!(
            cuckoo.contains(" 0.089% ") && cuckoo.contains(" ±6e-5 0.0931% "),
            "{cuckoo}"
        );
        assert!(
            bars.contains("HashSet") && bars.contains("18.45 kB*"),
            "{t}"
        );
    }
}
