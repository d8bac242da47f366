//! Lessons: the open lesson (its chapter, the thing to do, live numbers, the question) and the
//! session's progress.

use ratatui::Frame;
use ratatui::layout::{Constraint, Layout, Rect};
use ratatui::style::Style;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Paragraph, Wrap};

use super::{ACCENT, BAD, MARK, MEASURED, bold, selected};
use crate::tui::lessons::LESSONS;
use crate::tui::state::State;

pub(super) fn draw(f: &mut Frame<'_>, s: &State, area: Rect) {
    let l = &s.lessons;
    let info = &LESSONS[l.current];
    let [head, task, numbers, question] = Layout::vertical([
        Constraint::Length(3),
        Constraint::Length(5),
        Constraint::Min(4),
        Constraint::Length(7),
    ])
    .areas(area);
    let done = l.done.iter().filter(|d| **d).count();
    let mut progress = vec![Span::raw("progress ")];
    for (i, d) in l.done.iter().enumerate() {
        let text = format!("{}{} ", i + 1, if *d { "✓" } else { "·" });
        let style = if i == l.current {
            selected()
        } else if *d {
            bold().fg(MEASURED)
        } else {
            Style::default()
        };
        progress.push(Span::styled(text, style));
    }
    progress.push(Span::raw(format!("({done} of {} done)", LESSONS.len())));
    f.render_widget(
        Paragraph::new(vec![
            Line::from(vec![
                Span::styled(
                    format!(
                        " Lesson {}/{}: {}",
                        l.current + 1,
                        LESSONS.len(),
                        info.title
                    ),
                    bold().fg(ACCENT),
                ),
                Span::raw(format!(" · book: {} ({})", info.chapter.0, info.chapter.1)),
            ]),
            Line::from(progress),
        ])
        .wrap(Wrap { trim: false }),
        head,
    );
    let mut setting = vec![Span::raw("←→ ")];
    for (i, label) in info.settings.iter().enumerate() {
        let style = if i == l.setting[l.current] {
            selected()
        } else {
            Style::default()
        };
        setting.push(Span::styled(format!(" {label} "), style));
        setting.push(Span::raw(" "));
    }
    f.render_widget(
        Paragraph::new(vec![Line::from(info.task), Line::from(setting)])
            .wrap(Wrap { trim: true })
            .block(Block::bordered().title(" Do ")),
        task,
    );
    let lines: Vec<Line<'_>> = l
        .live
        .lines
        .iter()
        .map(|t| Line::from(t.as_str()))
        .collect();
    f.render_widget(
        Paragraph::new(lines)
            .wrap(Wrap { trim: true })
            .block(Block::bordered().title(" Live (computed now by the library) ")),
        numbers,
    );
    let mut q = vec![Line::from(Span::styled(l.live.question.as_str(), bold()))];
    for (i, a) in l.live.answers.iter().enumerate() {
        let letter = (b'a' + i as u8) as char;
        let style = match l.answer {
            Some(x) if x == i && i == l.live.correct => bold().fg(MEASURED),
            Some(x) if x == i => bold().fg(BAD),
            _ => Style::default(),
        };
        q.push(Line::from(Span::styled(format!(" {letter}) {a}"), style)));
    }
    match l.answer {
        Some(a) if a == l.live.correct => q.push(Line::from(vec![
            Span::styled("Right: ", bold().fg(MEASURED)),
            Span::raw(l.live.because.as_str()),
        ])),
        Some(_) => q.push(Line::from(Span::styled(
            "Not this one: change the setting and look at the numbers, then try again.",
            bold().fg(MARK),
        ))),
        None => {}
    }
    f.render_widget(
        Paragraph::new(q)
            .wrap(Wrap { trim: true })
            .block(Block::bordered().title(" Question (a, b, c) ")),
        question,
    );
}

#[cfg(test)]
mod tests {
    use bloomlab::theory;

    use crate::tui::fmt;
    use crate::tui::lessons::LESSONS;
    use crate::tui::msg::Msg;
    use crate::tui::state::{State, Tab};
    use crate::tui::update::update;
    use crate::tui::view::render_text;

    #[test]
    fn every_lesson_draws_at_80x24_with_its_chapter_numbers_and_question() {
        let mut s = State::new();
        update(&mut s, Msg::Goto(Tab::Lessons));
        for (i, info) in LESSONS.iter().enumerate() {
            assert_eq!(s.lessons.current, i);
            for _ in 0..info.settings.len() {
                let t = render_text(&s, 80, 24);
                assert!(t.contains(&format!("Lesson {}/8", i + 1)), "{t}");
                assert!(t.contains(info.chapter.1), "{t}");
                assert!(t.contains(" c) "), "{t}");
                assert!(!s.lessons.live.lines.is_empty(), "{t}");
                if std::env::var_os("LESSON_DUMP").is_some() {
                    println!("{t}");
                }
                update(&mut s, Msg::Right);
            }
            update(&mut s, Msg::Down);
        }
        assert_eq!(s.lessons.current, 0, "wraps");
    }

    /// Lesson 1 at 150%: the theory on screen is `fpr_classic` for the filter's m and k at
    /// 15,000 items; the right answer marks it done, the wrong one does not.
    #[test]
    fn filling_lesson_numbers_and_progress() {
        let mut s = State::new();
        update(&mut s, Msg::Goto(Tab::Lessons));
        for _ in 0..3 {
            update(&mut s, Msg::Right);
        }
        let m = theory::optimal_bits(10_000, 0.01).unwrap();
        let k = theory::optimal_k(m, 10_000);
        let t = render_text(&s, 80, 24);
        let want = format!(
            "theory {} · fill",
            fmt::prob(theory::fpr_classic(m, 15_000, k))
        );
        assert!(t.contains(&want), "{want}\n{t}");
        assert!(
            t.contains("15,000 items inserted (150% of capacity)"),
            "{t}"
        );
        assert!(t.contains("measured "), "{t}");
        let right = s.lessons.live.correct;
        assert_eq!(right, 1, "theory at 150% is the answer");
        update(&mut s, Msg::Answer((right + 1) % 3));
        assert!(!s.lessons.done[0]);
        assert!(render_text(&s, 80, 24).contains("Not this one"));
        update(&mut s, Msg::Answer(right));
        assert!(s.lessons.done[0]);
        // Progress stays when the lesson is left and the screen changes.
        update(&mut s, Msg::Down);
        update(&mut s, Msg::Goto(Tab::Explore));
        update(&mut s, Msg::Goto(Tab::Lessons));
        let t = render_text(&s, 80, 24);
        assert!(t.contains("1✓") && t.contains("(1 of 8 done)"), "{t}");
    }

    /// The overfill lesson answers the articles' claim from theory: 10,000 → 1,000,000 is
    /// practically 100%, not 90%.
    #[test]
    fn overfill_lesson_checks_the_90_percent_claim() {
        let l = crate::tui::lessons::compute(3, 2);
        let m = theory::optimal_bits(10_000, 0.01).unwrap();
        let k = theory::optimal_k(m, 10_000);
        let claim = theory::fpr_classic(m, 1_000_000, k);
        assert!(claim > 0.99, "{claim}");
        assert_eq!(l.correct, 1);
        assert!(
            l.lines.iter().any(|x| x.contains(&fmt::prob(claim))),
            "{:?}",
            l.lines
        );
        // k = 1 and k = 20 lose to k = 7; removing false positives creates false negatives.
        assert_eq!(crate::tui::lessons::compute(1, 0).correct, 1);
        let del = crate::tui::lessons::compute(2, 4);
        assert!(!del.lines[1].contains("none"), "{:?}", del.lines);
        let weak = crate::tui::lessons::compute(4, 0);
        assert_eq!(weak.correct, 0, "{}", weak.because);
    }
}
