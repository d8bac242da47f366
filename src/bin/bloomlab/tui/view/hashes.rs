//! Hashes: every hash × strategy on one key kind; the FPR, throughput and uniformity of bit
//! positions of each, and the histogram of the selected one.

use bloomlab::hash::{HashId, StrategyId};
use bloomlab::theory;
use ratatui::Frame;
use ratatui::layout::{Constraint, Layout, Rect};
use ratatui::style::Style;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Cell, LineGauge, Paragraph, Row, Sparkline, Table};

use super::{ACCENT, BAD, MARK, MEASURED, bold, selected};
use crate::tui::fmt;
use crate::tui::results::{HashResult, RowOutcome, RowState};
use crate::tui::state::{HashMetric, Hashes, RunStatus, State};

/// p-value below which the bit positions are flagged as non-uniform.
const NON_UNIFORM: f64 = 1e-3;

/// Short strategy names for the matrix header.
fn short(s: StrategyId) -> &'static str {
    match s {
        StrategyId::Double => "double",
        StrategyId::EnhancedDouble => "enh-dbl",
        StrategyId::Independent => "indep",
        StrategyId::Guava32 => "guava32",
        StrategyId::Guava64 => "guava64",
        StrategyId::EnhancedDouble64 => "edbl-64",
        StrategyId::RotateAdd64 => "rota-64",
        StrategyId::Partitioned => "partit",
        _ => "?",
    }
}

/// Whether the measured 95% interval lies entirely outside [exact/1.5, 1.5·exact]: the positions
/// are not behaving like independent uniform ones (too many false positives, or — with
/// structured keys and a structured hash — too few, because absent keys land in the gaps that
/// present keys leave).
fn fpr_bad(r: &HashResult) -> bool {
    r.m.theory
        .exact
        .is_some_and(|e| r.m.fpr_ci95[0] > 1.5 * e || r.m.fpr_ci95[1] < e / 1.5)
}

/// A cell's text for a column `width` characters wide: the FPR and its ratio to the exact rate,
/// or (too narrow for both, as at 80 columns) the ratio alone — the detail pane shows the FPR.
fn cell_text(r: &HashResult, metric: HashMetric, width: usize) -> (String, bool) {
    match metric {
        HashMetric::Fpr => {
            let ratio = r.m.theory.exact.map_or(f64::NAN, |e| r.m.fpr / e);
            let [lo, hi] = r.m.fpr_ci95;
            let both = format!("{} ×{ratio:.2}", fmt::measured(r.m.fpr, lo, hi, false).0);
            let text = if both.chars().count() <= width {
                both
            } else {
                format!("×{ratio:.2}")
            };
            (text, fpr_bad(r))
        }
        HashMetric::Uniformity => {
            let text = if r.chi2_p < 1e-12 {
                "p<1e-12".to_string()
            } else {
                format!("p={:.3}", r.chi2_p)
            };
            (text, r.chi2_p < NON_UNIFORM)
        }
        HashMetric::Throughput => {
            let mq = 1e3 / r.m.ns_per_query.max(1e-9);
            let long = format!("{mq:.1} Mq/s");
            let text = if long.chars().count() <= width {
                long
            } else {
                format!("{mq:.0}M/s")
            };
            (text, false)
        }
    }
}

pub(super) fn draw(f: &mut Frame<'_>, s: &State, area: Rect) {
    let h = &s.hashes;
    let sizing = theory::size_for(h.n, h.p).ok();
    let metric = match h.metric {
        HashMetric::Fpr => "FPR ×exact",
        HashMetric::Uniformity => "χ² p-value",
        HashMetric::Throughput => "queries/s",
    };
    let [head, matrix, bottom, gauge] = Layout::vertical([
        Constraint::Length(1),
        Constraint::Length(HashId::ALL.len() as u16 + 3),
        Constraint::Min(4),
        Constraint::Length(1),
    ])
    .areas(area);
    let size = sizing.map_or(String::new(), |z| {
        format!(" · m = {} · k = {}", fmt::int(z.m), z.k)
    });
    f.render_widget(
        Paragraph::new(Line::from(vec![
            Span::styled(format!(" keys {}", h.keys), bold().fg(MARK)),
            Span::raw(format!(
                " · n = {} · p = {}{size} · ",
                fmt::int(h.n),
                fmt::prob(h.p)
            )),
            Span::styled(metric, bold()),
        ])),
        head,
    );
    // Strategy columns share what the bordered table leaves after the 8-wide hash column and
    // one space between columns (Constraint::Min(7) below: eight strategies fit in 80 columns).
    let strategies = StrategyId::ALL.len();
    let col_w = (usize::from(area.width).saturating_sub(2 + 8 + strategies) / strategies).max(7);
    let mut header = vec![Cell::from("hash")];
    header.extend(StrategyId::ALL.iter().map(|s| Cell::from(short(*s))));
    let mut rows = Vec::new();
    for (r, hash) in HashId::ALL.iter().enumerate() {
        let mut cells = vec![Cell::from(hash.name()).style(bold())];
        for c in 0..StrategyId::ALL.len() {
            let idx = Hashes::cell_index(r, c);
            let (text, style) = match &h.cells[idx] {
                RowState::Pending => ("·".to_string(), Style::default()),
                RowState::Out(RowOutcome::Failed(_)) => ("failed".into(), bold().fg(BAD)),
                RowState::Out(RowOutcome::Done(res)) => {
                    let (t, bad) = cell_text(res, h.metric, col_w);
                    (
                        t,
                        if bad {
                            bold().fg(BAD)
                        } else {
                            Style::default().fg(MEASURED)
                        },
                    )
                }
            };
            let style = if r == h.row && c == h.col {
                selected()
            } else {
                style
            };
            cells.push(Cell::from(text).style(style));
        }
        rows.push(Row::new(cells));
    }
    let mut widths = vec![Constraint::Length(8)];
    widths.extend(std::iter::repeat_n(
        // Eight strategy columns fit 80 columns at 7 each.
        Constraint::Min(7),
        StrategyId::ALL.len(),
    ));
    f.render_widget(
        Table::new(rows, widths)
            .header(Row::new(header).style(bold()))
            .column_spacing(1)
            .block(Block::bordered().title(" hash × strategy (red: positions non-uniform, or FPR off the exact rate by >1.5×) ")),
        matrix,
    );
    draw_detail(f, h, bottom);
    let (ratio, label) = match &h.status {
        RunStatus::Running => (h.progress, format!("measuring {:.0}%", h.progress * 100.0)),
        RunStatus::Done => (
            1.0,
            format!(
                "done: all {} measured",
                HashId::ALL.len() * StrategyId::ALL.len()
            ),
        ),
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

/// The measured fill (share of bits set) and the theory's, when the measured one is below half
/// of it: the keys' k positions pile onto few bits. A low or zero FPR then says nothing good.
fn fill_far_below_theory(r: &HashResult) -> Option<(f64, f64)> {
    let fill: f64 =
        r.m.details
            .iter()
            .find(|(k, _)| k == "fill")
            .and_then(|(_, v)| v.parse().ok())?;
    let expected = theory::expected_fill(r.m.m_bits, r.m.n, r.m.k);
    (fill < 0.5 * expected).then_some((fill, expected))
}

fn draw_detail(f: &mut Frame<'_>, h: &Hashes, area: Rect) {
    let hash = HashId::ALL[h.row.min(HashId::ALL.len() - 1)];
    let strat = StrategyId::ALL[h.col.min(StrategyId::ALL.len() - 1)];
    let [text, hist] =
        Layout::horizontal([Constraint::Percentage(50), Constraint::Percentage(50)]).areas(area);
    let title = format!(" {hash} × {strat} on {} keys ", h.keys);
    let cell = &h.cells[Hashes::cell_index(h.row, h.col)];
    let Some(r) = cell.done() else {
        let msg = match cell {
            RowState::Out(RowOutcome::Failed(e)) => format!("failed: {e}"),
            _ => "not measured yet".to_string(),
        };
        f.render_widget(
            Paragraph::new(msg).block(Block::bordered().title(title)),
            text,
        );
        f.render_widget(Block::bordered().title(" bit positions "), hist);
        return;
    };
    let m = &r.m;
    let exact = m.theory.exact.unwrap_or(f64::NAN);
    let uniform = r.chi2_p >= NON_UNIFORM;
    let spread = fill_far_below_theory(r);
    let (fpr, lo, hi) = fmt::measured(m.fpr, m.fpr_ci95[0], m.fpr_ci95[1], false);
    let lines = vec![
        Line::from(vec![
            Span::raw("FPR "),
            Span::styled(fpr, bold().fg(if fpr_bad(r) { BAD } else { MEASURED })),
            Span::raw(format!(" [{lo}, {hi}]")),
        ]),
        Line::from(format!(
            "exact {} · ratio {:.2}",
            fmt::prob(exact),
            m.fpr / exact
        )),
        // A hash that does not spread piles every key onto a few bits: the fill says so, in
        // place of the timings (the pane has five lines at 80×24).
        match spread {
            Some((fill, expected)) => Line::from(Span::styled(
                format!("fill {fill:.4} ≪ {expected:.4}: no spread"),
                bold().fg(BAD),
            )),
            None => Line::from(format!(
                "ns/insert {} · ns/query {}",
                fmt::ns(m.ns_per_insert),
                fmt::ns(m.ns_per_query)
            )),
        },
        Line::from(vec![
            Span::raw(format!("χ² = {:.0} ({} bins) ", r.chi2, r.histogram.len())),
            Span::styled(
                if r.chi2_p < 1e-12 {
                    "p < 1e-12".to_string()
                } else {
                    format!("p = {:.3}", r.chi2_p)
                },
                bold().fg(if uniform { MEASURED } else { BAD }),
            ),
        ]),
        Line::from(if spread.is_some() {
            "NOT uniform: even an FPR of 0 is luck"
        } else if uniform {
            "positions look uniform"
        } else {
            "positions are NOT uniform"
        }),
    ];
    f.render_widget(
        Paragraph::new(lines).block(Block::bordered().title(title)),
        text,
    );
    // Every column of the pane: bins are merged (narrow pane) or widened (wide pane).
    let block = Block::bordered().title(" bit positions, 0 → m ");
    let inner = block.inner(hist);
    let data = resample(&r.histogram, usize::from(inner.width));
    f.render_widget(
        Sparkline::default()
            .block(block)
            .data(&data)
            .style(Style::default().fg(if uniform { ACCENT } else { BAD })),
        hist,
    );
}

/// `bins` spread over exactly `width` columns: column j averages the bins whose range starts in
/// its share `[j·len/width, (j+1)·len/width)` (at least one bin), so no column is left empty
/// and merged columns stay comparable (an average, ×1000 to keep the integer precision).
pub(super) fn resample(bins: &[u64], width: usize) -> Vec<u64> {
    let len = bins.len();
    if len == 0 || width == 0 {
        return Vec::new();
    }
    (0..width)
        .map(|j| {
            let lo = (j * len / width).min(len - 1);
            let hi = ((j + 1) * len / width).clamp(lo + 1, len);
            bins[lo..hi].iter().sum::<u64>() * 1000 / (hi - lo) as u64
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use std::sync::atomic::AtomicBool;

    use bloomlab::hash::{HashId, StrategyId};
    use bloomlab::measure::{Control, MeasureConfig, measure};
    use bloomlab::workload::KeyGen;
    use bloomlab::{FilterKind, FilterSpec, stats};

    use crate::tui::msg::{Cmd, Msg, WorkerEvent};
    use crate::tui::results::{HashResult, RowOutcome};
    use crate::tui::state::{Hashes, State, Tab};
    use crate::tui::update::{init, update};
    use crate::tui::view::render_text;
    use crate::tui::view::testkit::line_with;
    use crate::tui::worker::histogram;

    fn real(hash: HashId, strategy: StrategyId, n: u64) -> HashResult {
        let spec = FilterSpec {
            kind: FilterKind::Standard,
            hash,
            strategy,
            n,
            ..FilterSpec::default()
        };
        let cfg = MeasureConfig {
            queries: 20_000,
            check_hits: false,
            ..MeasureConfig::new(spec.clone(), bloomlab::workload::KeyKind::Seq)
        };
        let m = measure(&cfg, &Control::default()).unwrap();
        let keygen = KeyGen::new(bloomlab::workload::KeyKind::Seq, cfg.seed);
        let hist = histogram(&spec, &keygen, 64, &AtomicBool::new(false)).unwrap();
        let (chi2, chi2_p) = stats::chi_square_uniform(&hist);
        HashResult {
            m,
            histogram: hist,
            chi2,
            chi2_p,
        }
    }

    #[test]
    fn the_histogram_fills_its_pane() {
        // 64 bins into 56 columns (the 80×24 pane) and into 120: every column used.
        let bins: Vec<u64> = (1..=64).collect();
        for w in [56, 120, 64, 7] {
            let r = super::resample(&bins, w);
            assert_eq!(r.len(), w);
            assert!(r.iter().all(|&v| v > 0), "{w}: {r:?}");
            assert!(r[0] >= 1000, "{w}");
            assert!(r.windows(2).all(|p| p[0] <= p[1]), "{w}: {r:?}");
        }
        assert_eq!(*super::resample(&bins, 64).last().unwrap(), 64_000);
    }

    #[test]
    fn weak_hash_on_sequential_keys_is_flagged() {
        let mut s = State::new();
        init(&mut s);
        s.hashes.n = 2_000;
        let cmds = update(&mut s, Msg::Goto(Tab::Hashes));
        let job = cmds
            .iter()
            .find_map(|c| match c {
                Cmd::StartHashes(j) => Some(j.job),
                _ => None,
            })
            .unwrap();
        let weak_row = HashId::ALL.iter().position(|h| *h == HashId::Weak).unwrap();
        let xxh3_row = HashId::ALL.iter().position(|h| *h == HashId::Xxh3).unwrap();
        for (row, hash) in [(weak_row, HashId::Weak), (xxh3_row, HashId::Xxh3)] {
            update(
                &mut s,
                Msg::worker(WorkerEvent::HashRow {
                    job,
                    idx: Hashes::cell_index(row, 0),
                    outcome: RowOutcome::Done(real(hash, StrategyId::Double, 2_000)),
                }),
            );
        }
        // The weak × double cell is selected at start.
        let t = render_text(&s, 80, 24);
        assert!(t.contains("keys seq"), "{t}");
        assert!(t.contains("weak × double on seq keys"), "{t}");
        assert!(t.contains("p < 1e-12"), "{t}");
        // Its keys pile onto one bit: the pane says the fill is far below theory and that a
        // low FPR would mean nothing.
        assert!(t.contains("fill 0.0001 ≪ 0.5182: no spread"), "{t}");
        assert!(t.contains("NOT uniform: even an FPR of 0 is luck"), "{t}");
        let weak = line_with(&t, "weak ").unwrap();
        let xxh3 = line_with(&t, "xxh3 ").unwrap();
        // The weak hash's FPR is many times the exact rate; xxh3's is about 1×.
        let ratio = |line: &str| -> f64 {
            let i = line.find('×').unwrap();
            let token = line[i + '×'.len_utf8()..]
                .split_whitespace()
                .next()
                .unwrap();
            // The whole ratio is shown (two decimals), never cut by the column.
            assert_eq!(token.split('.').nth(1).map(str::len), Some(2), "{line}");
            token.parse().unwrap()
        };
        assert!(ratio(weak) > 3.0, "{weak}");
        assert!((0.7..1.4).contains(&ratio(xxh3)), "{xxh3}");
        // Uniformity metric, and the xxh3 cell's detail.
        update(&mut s, Msg::CycleView);
        s.hashes.row = xxh3_row;
        let t = render_text(&s, 80, 24);
        assert!(t.contains("χ² p-value"), "{t}");
        assert!(t.contains("positions look uniform"), "{t}");
        assert!(!t.contains("≪"), "{t}");
        let weak = line_with(&t, "weak ").unwrap();
        assert!(weak.contains("p<1e-12"), "{weak}");
    }
}
