//! Walkthrough: the articles' m = 16, k = 3 filter, one word at a time.

use ratatui::Frame;
use ratatui::layout::{Constraint, Layout, Rect};
use ratatui::style::Style;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Paragraph, Wrap};

use super::{ACCENT, BAD, MARK, MEASURED, bold, selected};
use bloomlab::theory;
use bloomlab::walkthrough::{self, HASH, Outcome, STRATEGY};

use crate::tui::fmt;
use crate::tui::state::{State, WALK_QUERIES};

/// Positions with separators: `9, 10, 11` (never `91011`).
fn list(ps: &[u64]) -> String {
    ps.iter().map(u64::to_string).collect::<Vec<_>>().join(", ")
}

/// The rates beside the bits: the fill now and expected, the classic and exact FPR for this m,
/// k and n (the numbers `bloomlab calc --m M --n N --k K` prints), and the rate measured over
/// [`WALK_QUERIES`] absent words.
pub(super) fn rate_lines(w: &crate::tui::state::Walk) -> Vec<Line<'static>> {
    let (m, k, n) = (w.session.m(), w.session.k(), w.n());
    let exact = theory::fpr_exact_with_bound(m, n, k).map_or_else(
        || "n/a".to_string(),
        |e| bloomlab::units::format_prob_bounded(e.ln_value, e.rel_error),
    );
    vec![
        Line::from(vec![
            Span::raw(format!("n = {n} · fill now ")),
            Span::styled(
                format!("{:.1}%", w.session.ones() as f64 * 100.0 / m as f64),
                bold().fg(MEASURED),
            ),
            Span::raw(format!(
                " ({} of {m} bits) · expected {:.1}%",
                w.session.ones(),
                theory::expected_fill(m, n, k) * 100.0
            )),
        ]),
        Line::from(vec![
            Span::raw(format!(
                "FPR classic {} · exact {exact} · measured ",
                fmt::prob(theory::fpr_classic(m, n, k))
            )),
            // The digits its 95% interval supports.
            Span::styled(
                bloomlab::stats::RateText::wilson(w.measured_fp, WALK_QUERIES).rate,
                bold().fg(MEASURED),
            ),
            Span::raw(format!(
                " ({}/{})",
                fmt::int(w.measured_fp),
                fmt::int(WALK_QUERIES)
            )),
        ]),
    ]
}

pub(super) fn draw(f: &mut Frame<'_>, s: &State, area: Rect) {
    let w = &s.walk;
    let m = w.session.m();
    // Cells wide enough for the largest index; as many per row as the width holds.
    let cell = if m > 10 { 4usize } else { 3 };
    let cell = if m > 16 { 3 } else { cell };
    let per_row = (usize::from(area.width.saturating_sub(2)).saturating_sub(5) / cell).max(1);
    let groups = (m as usize).div_ceil(per_row);
    let [bits, word, result, words] = Layout::vertical([
        Constraint::Length(groups as u16 * 3 + 4),
        Constraint::Length(3),
        Constraint::Min(3),
        Constraint::Length(if groups <= 2 { 4 } else { 3 }),
    ])
    .areas(area);

    // The array: index row, value row, marks under the current word's positions.
    let current = if w.input.is_empty() {
        Vec::new()
    } else {
        w.session.positions(&w.input)
    };
    let counting = w.session.counting();
    let mut rows = Vec::new();
    for g in 0..groups {
        let mut idx = vec![Span::raw(" bit ")];
        let mut val = vec![Span::raw(if counting { " cnt " } else { " val " })];
        let mut mark = vec![Span::raw("     ")];
        let lo = (g * per_row) as u64;
        for i in lo..(lo + per_row as u64).min(m) {
            let here = current.contains(&i);
            idx.push(Span::raw(format!("{i:>cell$}")));
            let c = w.session.counter(i);
            let v = if counting {
                c.to_string()
            } else {
                u8::from(c > 0).to_string()
            };
            let style = match (here, c > 0) {
                (true, _) => selected(),
                (false, true) => bold().fg(ACCENT),
                (false, false) => Style::default(),
            };
            val.push(Span::raw(" ".repeat(cell.saturating_sub(v.len() + 1))));
            val.push(Span::styled(format!(" {v}"), style));
            mark.push(Span::styled(
                format!("{:>cell$}", if here { "▲" } else { "" }),
                bold().fg(MARK),
            ));
        }
        rows.extend([Line::from(idx), Line::from(val), Line::from(mark)]);
    }
    rows.extend(rate_lines(w));
    let mode = if counting {
        "counting (4-bit)"
    } else {
        "bit mode"
    };
    f.render_widget(
        Paragraph::new(rows).block(Block::bordered().title(format!(
            " m = {m} bits, k = {} · {HASH} seed {}, {STRATEGY} · {mode} ",
            w.session.k(),
            w.session.seed()
        ))),
        bits,
    );

    let cursor = if w.editing { "▏" } else { "" };
    let pos = if current.is_empty() {
        String::new()
    } else {
        format!("  → positions {}", list(&current))
    };
    let word_style = if w.editing { selected() } else { bold() };
    f.render_widget(
        Paragraph::new(Line::from(vec![
            Span::raw("word: "),
            Span::styled(format!("{}{cursor}", w.input), word_style),
            Span::styled(pos, bold().fg(MARK)),
        ]))
        .block(Block::bordered().title(if w.editing {
            " typing: Enter when done "
        } else {
            " a insert · c check · d delete · m counting · x clear · p reload "
        })),
        word,
    );

    // Newest first; older actions follow while there is room.
    let mut lines = Vec::new();
    if w.log.is_empty() {
        lines.push(Line::from(opening_hint(w)));
    }
    for (i, (word, out)) in w.log.iter().rev().enumerate() {
        if i == 1 {
            lines.push(Line::from(Span::styled("earlier:", bold())));
        }
        lines.extend(explain(word, out));
    }
    f.render_widget(
        Paragraph::new(lines)
            .wrap(Wrap { trim: true })
            .block(Block::bordered().title(" What happened ")),
        result,
    );

    let inserted = if w.session.words().is_empty() {
        "nothing inserted".to_string()
    } else {
        w.session
            .words()
            .iter()
            .map(|(w, ps)| format!("{w} {{{}}}", list(ps)))
            .collect::<Vec<_>>()
            .join(" · ")
    };
    f.render_widget(
        Paragraph::new(inserted)
            .wrap(Wrap { trim: true })
            .block(Block::bordered().title(" Inserted ")),
        words,
    );
}

/// What to do next, true in the state shown: which words are in, and what the box holds.
fn opening_hint(w: &crate::tui::state::Walk) -> String {
    let words = w.session.words();
    let mut names: Vec<&str> = Vec::new();
    for (x, _) in words {
        if !names.contains(&x.as_str()) {
            names.push(x);
        }
    }
    let inserted = match names.len() {
        0 => "The filter is empty.".to_string(),
        1 => format!("{} is inserted.", names[0]),
        2 => format!("{} and {} are inserted.", names[0], names[1]),
        k => format!("{k} words are inserted."),
    };
    let next = if w.editing {
        "Type a word, then Enter.".to_string()
    } else if w.input.is_empty() {
        "Press Enter to type a word (p reloads apple and banana).".to_string()
    } else if words.is_empty() {
        format!(
            "Press a to insert '{}', c to check it, or Enter to type another word.",
            w.input
        )
    } else {
        format!(
            "Press c to check '{}', a to insert it, or Enter to type another word.",
            w.input
        )
    };
    format!("{inserted} {next}")
}

fn setters_text(setters: &[(u64, Vec<String>)]) -> String {
    setters
        .iter()
        .map(|(p, ws)| {
            if ws.is_empty() {
                format!("bit {p} by no inserted word")
            } else {
                format!("bit {p} by {}", ws.join(" and "))
            }
        })
        .collect::<Vec<_>>()
        .join("; ")
}

fn times(r: usize) -> String {
    if r == 2 {
        "twice".into()
    } else {
        format!("{r} times")
    }
}

/// The note for a word whose probes hit one bit more than once (with how its counters changed,
/// for insert and remove).
fn repeat_note(word: &str, out: &Outcome) -> Option<Line<'static>> {
    let positions = out.positions();
    let reps = walkthrough::repeats(positions);
    if reps.is_empty() {
        return None;
    }
    let sign = match out {
        Outcome::Inserted { .. } => Some("up"),
        Outcome::Removed { .. } => Some("down"),
        _ => None,
    };
    let hits = reps
        .iter()
        .map(|&(p, r)| {
            let change = sign.map_or(String::new(), |s| format!(": its counter went {s} by {r}"));
            format!("bit {p} {}{change}", times(r))
        })
        .collect::<Vec<_>>()
        .join("; ");
    let mut distinct = positions.to_vec();
    distinct.sort_unstable();
    distinct.dedup();
    Some(Line::from(Span::styled(
        format!(
            "'{word}' hits {hits} ({} probes, {} distinct bits).",
            positions.len(),
            distinct.len()
        ),
        bold().fg(MARK),
    )))
}

fn explain(word: &str, out: &Outcome) -> Vec<Line<'static>> {
    let mut v = explain_outcome(word, out);
    if let Some(note) = repeat_note(word, out) {
        v.insert(1.min(v.len()), note);
    }
    v
}

fn explain_outcome(word: &str, out: &Outcome) -> Vec<Line<'static>> {
    match out {
        Outcome::Inserted {
            positions,
            collisions,
            saturated,
        } => {
            let mut v = vec![Line::from(vec![
                Span::styled(format!("inserted '{word}'"), bold().fg(MEASURED)),
                Span::raw(format!(": bits {} set.", list(positions))),
            ])];
            for (p, ws) in collisions {
                v.push(Line::from(format!(
                    "bit {p} was already set by {}: a collision. Bits are shared, so a plain filter cannot delete.",
                    ws.join(" and ")
                )));
            }
            if !saturated.is_empty() {
                v.push(Line::from(Span::styled(
                    format!(
                        "counters at {} reached 15 and stay stuck there (an increment was lost).",
                        list(saturated)
                    ),
                    bold().fg(BAD),
                )));
            }
            v
        }
        Outcome::Absent { positions, zeros } => vec![
            Line::from(vec![
                Span::styled(
                    format!("'{word}' is definitely absent"),
                    bold().fg(MEASURED),
                ),
                Span::raw(format!(
                    ": its bits are {}, and {} {} 0.",
                    list(positions),
                    if zeros.len() == 1 { "bit" } else { "bits" },
                    if zeros.len() == 1 {
                        format!("{} is", list(zeros))
                    } else {
                        format!("{} are", list(zeros))
                    }
                )),
            ]),
            Line::from("A 0 bit can only mean it was never inserted: no false negatives."),
        ],
        Outcome::MaybePresent {
            positions,
            false_positive: true,
            setters,
        } => vec![
            Line::from(vec![
                Span::styled(
                    format!("'{word}' → maybe present: a FALSE POSITIVE"),
                    bold().fg(BAD),
                ),
                Span::raw(format!(
                    ". It was never inserted, yet bits {} are all set:",
                    list(positions)
                )),
            ]),
            Line::from(format!("{}.", setters_text(setters))),
        ],
        Outcome::MaybePresent {
            positions,
            false_positive: false,
            setters,
        } => vec![
            Line::from(vec![
                Span::styled(format!("'{word}' → maybe present"), bold().fg(MEASURED)),
                Span::raw(format!(
                    " (it was inserted): bits {} are set; {}.",
                    list(positions),
                    setters_text(setters)
                )),
            ]),
            Line::from("The filter cannot tell this from a false positive; it only says 'maybe'."),
        ],
        Outcome::Removed {
            positions,
            was_inserted: true,
            now_missing,
        } => {
            let mut v = vec![Line::from(vec![
                Span::styled(format!("removed '{word}'"), bold().fg(MEASURED)),
                Span::raw(format!(": counters {} decremented.", list(positions))),
            ])];
            if !now_missing.is_empty() {
                v.push(Line::from(format!(
                    "now absent: {} (saturated counters?)",
                    now_missing.join(", ")
                )));
            }
            v
        }
        Outcome::Removed {
            positions,
            was_inserted: false,
            now_missing,
        } => {
            let mut v = vec![Line::from(vec![
                Span::styled(
                    format!("removed '{word}', which was never inserted"),
                    bold().fg(BAD),
                ),
                Span::raw(format!(
                    ": it tested positive (a false positive), so counters {} were decremented.",
                    list(positions)
                )),
            ])];
            if now_missing.is_empty() {
                v.push(Line::from("No inserted word lost its bits — this time."));
            } else {
                v.push(Line::from(Span::styled(
                    format!(
                        "Now {} test absent: FALSE NEGATIVES. Only remove what you inserted.",
                        now_missing.join(" and ")
                    ),
                    bold().fg(BAD),
                )));
            }
            v
        }
        Outcome::RemoveRefused(why) => vec![Line::from(vec![
            Span::styled("remove refused: ", bold().fg(MARK)),
            Span::raw(why.clone()),
        ])],
    }
}

#[cfg(test)]
mod tests {
    use crate::tui::msg::Msg;
    use crate::tui::state::{State, Tab};
    use crate::tui::update::update;
    use crate::tui::view::render_text;
    use crate::tui::view::testkit::line_with;

    fn type_word(s: &mut State, w: &str) {
        update(s, Msg::StartEdit);
        for c in w.chars() {
            update(s, Msg::Input(c));
        }
        update(s, Msg::Submit);
    }

    #[test]
    fn the_articles_story() {
        let mut s = State::new();
        update(&mut s, Msg::Goto(Tab::Walkthrough));
        let t = render_text(&s, 80, 24);
        let vals = line_with(&t, " val ").unwrap();
        // apple {5, 4, 3} and banana {15, 4, 10}: bits 3, 4, 5, 10, 15 set.
        let bits: Vec<&str> = vals.trim_matches('│').split_whitespace().skip(1).collect();
        assert_eq!(
            bits,
            [
                "0", "0", "0", "1", "1", "1", "0", "0", "0", "0", "1", "0", "0", "0", "0", "1"
            ],
            "{vals}"
        );
        assert!(t.contains("apple {5, 4, 3} · banana {15, 4, 10}"), "{t}");
        assert!(t.contains("word: cherry  → positions 10, 5, 15"), "{t}");

        update(&mut s, Msg::WalkQuery);
        let t = render_text(&s, 80, 24);
        assert!(
            t.contains("'cherry' → maybe present: a FALSE POSITIVE"),
            "{t}"
        );
        assert!(
            t.contains("bit 10 by banana; bit 5 by apple; bit 15 by banana"),
            "{t}"
        );

        type_word(&mut s, "grape");
        update(&mut s, Msg::WalkQuery);
        let t = render_text(&s, 80, 24);
        assert!(t.contains("'grape' is definitely absent"), "{t}");
        assert!(t.contains("and bits 0, 8 are 0."), "{t}");

        type_word(&mut s, "grape");
        update(&mut s, Msg::WalkInsert);
        let t = render_text(&s, 80, 24);
        assert!(t.contains("inserted 'grape': bits 0, 8, 15 set."), "{t}");
        assert!(
            t.contains("bit 15 was already set by banana: a collision"),
            "{t}"
        );

        // Counting mode shows counters: bit 15 is now 2 (banana, grape), bit 4 is 2 (apple, banana).
        update(&mut s, Msg::WalkToggleCounting);
        let t = render_text(&s, 80, 24);
        let cnt = line_with(&t, " cnt ").unwrap();
        let c: Vec<&str> = cnt.trim_matches('│').split_whitespace().skip(1).collect();
        assert_eq!(c[4], "2", "{cnt}");
        assert_eq!(c[15], "2", "{cnt}");
        assert!(t.contains("counting mode"), "{t}");
        // Earlier actions stay listed below the newest while there is room.
        let tall = render_text(&s, 100, 40);
        let newest = tall.find("inserted 'grape'").unwrap();
        let earlier = tall.find("earlier:").unwrap();
        let older = tall.find("'grape' is definitely absent").unwrap();
        assert!(newest < earlier && earlier < older, "{tall}");
    }

    #[test]
    fn remove_needs_counting_mode_and_a_false_positive_removal_hurts() {
        let mut s = State::new();
        update(&mut s, Msg::Goto(Tab::Walkthrough));
        update(&mut s, Msg::WalkRemove);
        let t = render_text(&s, 120, 30);
        assert!(
            t.contains("remove refused: a plain Bloom filter cannot delete"),
            "{t}"
        );
        update(&mut s, Msg::WalkToggleCounting);
        update(&mut s, Msg::WalkRemove);
        let t = render_text(&s, 120, 30);
        assert!(
            t.contains("removed 'cherry', which was never inserted"),
            "{t}"
        );
        assert!(
            t.contains("Now apple and banana test absent: FALSE NEGATIVES"),
            "{t}"
        );
    }

    fn counters(t: &str) -> Vec<String> {
        let cnt = line_with(t, " cnt ").unwrap();
        cnt.trim_matches('│')
            .split_whitespace()
            .skip(1)
            .map(String::from)
            .collect()
    }

    #[test]
    fn a_word_that_hits_the_same_bit_twice() {
        let mut s = State::new();
        update(&mut s, Msg::Goto(Tab::Walkthrough));
        update(&mut s, Msg::WalkClear);
        update(&mut s, Msg::WalkToggleCounting);
        type_word(&mut s, "zebra");
        update(&mut s, Msg::WalkInsert);
        let t = render_text(&s, 120, 30);
        assert!(t.contains("word: zebra  → positions 5, 13, 5"), "{t}");
        assert!(
            t.contains(
                "'zebra' hits bit 5 twice: its counter went up by 2 (3 probes, 2 distinct bits)."
            ),
            "{t}"
        );
        let c = counters(&t);
        assert_eq!((c[5].as_str(), c[13].as_str()), ("2", "1"), "{c:?}");
        update(&mut s, Msg::WalkRemove);
        let t = render_text(&s, 120, 30);
        assert!(
            t.contains("'zebra' hits bit 5 twice: its counter went down by 2"),
            "{t}"
        );
        assert!(counters(&t).iter().all(|c| c == "0"), "{t}");
        // apple sets bit 5 once and lemon bit 13: zebra tests present, but its two decrements
        // of bit 5 would take that counter below 0. Refused; the counter stays 1.
        for w in ["apple", "lemon"] {
            type_word(&mut s, w);
            update(&mut s, Msg::WalkInsert);
        }
        type_word(&mut s, "zebra");
        update(&mut s, Msg::WalkRemove);
        let t = render_text(&s, 120, 30);
        assert!(
            t.contains("remove refused: 'zebra' hits bit 5 2 times but its counter is 1"),
            "{t}"
        );
        let c = counters(&t);
        assert_eq!((c[5].as_str(), c[13].as_str()), ("1", "1"), "{c:?}");
    }

    /// m = 32, k = 4 (two steps right, one up), five words typed: the fill and the rates on
    /// screen are the library's theory for (32, 5, 4) and the measured rate is the session's own.
    #[test]
    fn adjustable_m_and_k_with_rates() {
        use bloomlab::theory;
        let mut s = State::new();
        update(&mut s, Msg::Goto(Tab::Walkthrough));
        update(&mut s, Msg::WalkClear);
        update(&mut s, Msg::Right);
        update(&mut s, Msg::Right);
        update(&mut s, Msg::Up);
        assert_eq!((s.walk.session.m(), s.walk.session.k()), (32, 4));
        for w in ["alpha", "bravo", "charlie", "delta", "echo"] {
            type_word(&mut s, w);
            update(&mut s, Msg::WalkInsert);
        }
        let t = render_text(&s, 80, 24);
        assert!(t.contains(" m = 32 bits, k = 4 "), "{t}");
        let fill = format!("expected {:.1}%", theory::expected_fill(32, 5, 4) * 100.0);
        assert_eq!(fill, "expected 47.0%");
        assert!(t.contains(&fill), "{t}");
        let ones = s.walk.session.ones();
        let now = format!(
            "n = 5 · fill now {:.1}% ({ones} of 32 bits)",
            ones as f64 * 100.0 / 32.0
        );
        assert!(t.contains(&now), "{t}");
        let classic = crate::tui::fmt::prob(theory::fpr_classic(32, 5, 4));
        assert_eq!(classic, "4.665%");
        let e = theory::fpr_exact_with_bound(32, 5, 4).unwrap();
        let exact = bloomlab::units::format_prob_bounded(e.ln_value, e.rel_error);
        assert_eq!(exact, "5.170%");
        assert!(
            t.contains(&format!(
                "FPR classic {classic} · exact {exact} · measured "
            )),
            "{t}"
        );
        let fp = s.walk.session.measured_false_positives(4096);
        assert!(t.contains(&format!("({fp}/4,096)")), "{t}");
        // The bit indices are separated, even two-digit ones.
        let idx = line_with(&t, "│ bit ").unwrap();
        assert!(idx.contains(" 9 10 11 12 13"), "{t}");
        assert!(!t.contains("9101112"), "{t}");
        // Everything fits at 80×24: the last inserted word and the hints are shown.
        assert!(t.contains("echo {"), "{t}");
        // m stops at 8 and 64, k at 1 and 8.
        for _ in 0..10 {
            update(&mut s, Msg::Right);
            update(&mut s, Msg::Up);
        }
        assert_eq!((s.walk.session.m(), s.walk.session.k()), (64, 8));
        assert_eq!(s.walk.n(), 5, "the words are inserted again");
        let t = render_text(&s, 80, 24);
        assert!(t.contains("· measured "), "64 bits fit at 80×24: {t}");
        assert!(t.contains("Inserted") && t.contains("alpha {"), "{t}");
        assert!(t.contains(" 63"), "{t}");
        for _ in 0..10 {
            update(&mut s, Msg::Left);
            update(&mut s, Msg::Down);
        }
        assert_eq!((s.walk.session.m(), s.walk.session.k()), (8, 1));
    }

    /// The opening hint is true in the state it is shown in.
    #[test]
    fn hints_are_true() {
        let mut s = State::new();
        update(&mut s, Msg::Goto(Tab::Walkthrough));
        let t = render_text(&s, 80, 24);
        assert!(
            t.contains("apple and banana are inserted. Press c to check 'cherry'"),
            "{t}"
        );
        // Enter then Esc keeps the word, so c still checks cherry.
        update(&mut s, Msg::StartEdit);
        update(&mut s, Msg::CancelEdit);
        update(&mut s, Msg::WalkQuery);
        assert!(render_text(&s, 80, 24).contains("'cherry' → maybe present"));
        update(&mut s, Msg::WalkClear);
        let t = render_text(&s, 80, 24);
        assert!(!t.contains("apple and banana are inserted"), "{t}");
        assert!(
            t.contains("The filter is empty. Press a to insert 'cherry'"),
            "{t}"
        );
        update(&mut s, Msg::StartEdit);
        update(&mut s, Msg::Backspace);
        let t = render_text(&s, 80, 24);
        assert!(t.contains("Type a word, then Enter."), "{t}");
        update(&mut s, Msg::WalkPreload);
        let t = render_text(&s, 80, 24);
        assert!(t.contains("apple and banana are inserted."), "{t}");
    }
}
