//! Walkthrough: the articles' m = 16, k = 3 filter, one word at a time.

use ratatui::Frame;
use ratatui::layout::{Constraint, Layout, Rect};
use ratatui::style::Style;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Paragraph, Wrap};

use super::{ACCENT, BAD, MARK, MEASURED, bold, selected};
use crate::tui::state::{State, WALK_HASH, WALK_K, WALK_M, WALK_SEED, WALK_STRATEGY, WalkOutcome};

fn list(ps: &[u64]) -> String {
    ps.iter().map(u64::to_string).collect::<Vec<_>>().join(", ")
}

pub(super) fn draw(f: &mut Frame<'_>, s: &State, area: Rect) {
    let w = &s.walk;
    let [bits, word, result, words] = Layout::vertical([
        Constraint::Length(5),
        Constraint::Length(3),
        Constraint::Min(4),
        Constraint::Length(4),
    ])
    .areas(area);

    // The array: index row, value row, marks under the current word's positions.
    let current = if w.input.is_empty() {
        Vec::new()
    } else {
        w.positions(&w.input)
    };
    let cell = 4usize;
    let mut idx = vec![Span::raw(" bit ")];
    let mut val = vec![Span::raw(if w.counting { " cnt " } else { " val " })];
    let mut mark = vec![Span::raw("     ")];
    for i in 0..WALK_M {
        let here = current.contains(&i);
        idx.push(Span::raw(format!("{i:>cell$}")));
        let c = w.counters[i as usize];
        let v = if w.counting {
            c.to_string()
        } else {
            u8::from(c > 0).to_string()
        };
        let style = match (here, c > 0) {
            (true, _) => selected(),
            (false, true) => bold().fg(ACCENT),
            (false, false) => Style::default(),
        };
        val.push(Span::raw(" ".repeat(cell - v.len() - 1)));
        val.push(Span::styled(format!(" {v}"), style));
        mark.push(Span::styled(
            format!("{:>cell$}", if here { "▲" } else { "" }),
            bold().fg(MARK),
        ));
    }
    let mode = if w.counting {
        "counting mode (4-bit counters)"
    } else {
        "bit mode"
    };
    f.render_widget(
        Paragraph::new(vec![Line::from(idx), Line::from(val), Line::from(mark)]).block(
            Block::bordered().title(format!(
                " m = {WALK_M} bits, k = {WALK_K} · {WALK_HASH} seed {WALK_SEED}, {WALK_STRATEGY} hashing · {mode} "
            )),
        ),
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
        lines.push(Line::from(
            "apple and banana are inserted. Press c to check 'cherry', or Enter to type another word.",
        ));
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

    let inserted = if w.words.is_empty() {
        "nothing inserted".to_string()
    } else {
        w.words
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

fn explain(word: &str, out: &WalkOutcome) -> Vec<Line<'static>> {
    match out {
        WalkOutcome::Inserted {
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
                        "counters at {} were already 15 and stay stuck there.",
                        list(saturated)
                    ),
                    bold().fg(BAD),
                )));
            }
            v
        }
        WalkOutcome::Absent { positions, zeros } => vec![
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
        WalkOutcome::MaybePresent {
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
        WalkOutcome::MaybePresent {
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
        WalkOutcome::Removed {
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
        WalkOutcome::Removed {
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
        WalkOutcome::RemoveRefused(why) => vec![Line::from(vec![
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
        let t = render_text(&s, 100, 30);
        assert!(
            t.contains("remove refused: a plain Bloom filter cannot delete"),
            "{t}"
        );
        update(&mut s, Msg::WalkToggleCounting);
        update(&mut s, Msg::WalkRemove);
        let t = render_text(&s, 100, 30);
        assert!(
            t.contains("removed 'cherry', which was never inserted"),
            "{t}"
        );
        assert!(
            t.contains("Now apple and banana test absent: FALSE NEGATIVES"),
            "{t}"
        );
    }
}
