//! Lessons: the open lesson (its chapter, the thing to do, live numbers, the question) and the
//! session's progress.
//!
//! Every box is as tall as its text wrapped to the screen's width (the words are wrapped here,
//! not by the widget, so the heights are exact): the Live box keeps the lines it needs, the
//! question box takes the rest, and what is left over goes to the Live box. Where even that
//! cannot hold the question, its answers and the reason, the reason scrolls (PgUp/PgDn) and
//! the box's bottom border says how many lines are below or above.

use ratatui::Frame;
use ratatui::layout::{Constraint, Layout, Rect};
use ratatui::style::Style;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Paragraph};

use super::{ACCENT, BAD, MARK, MEASURED, bold, selected};
use crate::tui::lessons::{LESSONS, Lessons};
use crate::tui::state::State;

/// Paragraphs of styled text: each a list of (words, style).
type Paras = Vec<Vec<(String, Style)>>;

/// The words of `text`, each with the spaces before it (a run of spaces aligns columns).
fn words(text: &str) -> Vec<(usize, String)> {
    let mut out: Vec<(usize, String)> = Vec::new();
    let mut gap = 0;
    for part in text.split(' ') {
        if part.is_empty() {
            gap += 1;
        } else {
            out.push((gap + 1, part.to_string()));
            gap = 0;
        }
    }
    out
}

/// Words with their style, wrapped greedily into lines of at most `width` columns (a word
/// longer than a line is cut; the spaces before a word are kept inside a line and dropped at
/// its start). Each entry of `paras` starts a new line.
fn wrap(paras: &[Vec<(String, Style)>], width: usize) -> Vec<Line<'static>> {
    let width = width.max(1);
    let mut out = Vec::new();
    for para in paras {
        let mut line: Vec<Span<'static>> = Vec::new();
        let mut used = 0usize;
        for (text, style) in para {
            for (spaces, word) in words(text) {
                let mut word = word;
                loop {
                    let w = Span::raw(word.as_str()).width();
                    let gap = if used > 0 { spaces } else { 0 };
                    if used + gap + w <= width {
                        if gap > 0 {
                            line.push(Span::raw(" ".repeat(gap)));
                        }
                        // A no-break space keeps a label ("remove 8") on one line.
                        line.push(Span::styled(word.replace('\u{a0}', " "), *style));
                        used += gap + w;
                        break;
                    }
                    if used > 0 {
                        out.push(Line::from(std::mem::take(&mut line)));
                        used = 0;
                        continue;
                    }
                    // Longer than a whole line: cut it at the width.
                    let mut cut = String::new();
                    let mut rest = word.chars();
                    for c in rest.by_ref() {
                        cut.push(c);
                        if Span::raw(cut.as_str()).width() >= width {
                            break;
                        }
                    }
                    out.push(Line::from(Span::styled(cut, *style)));
                    word = rest.collect();
                    if word.is_empty() {
                        break;
                    }
                }
            }
        }
        if !line.is_empty() || para.is_empty() {
            out.push(Line::from(line));
        }
    }
    out
}

fn plain(text: &str) -> Vec<(String, Style)> {
    vec![(text.to_string(), Style::default())]
}

/// The question, its three answers and, once answered, the reason or the hint: (the fixed
/// part, the reason's part).
fn question_paras(l: &Lessons) -> (Paras, Paras) {
    let mut q = vec![vec![(l.live.question.clone(), bold())]];
    for (i, a) in l.live.answers.iter().enumerate() {
        let letter = (b'a' + i as u8) as char;
        let style = match l.answer {
            Some(x) if x == i && i == l.live.correct => bold().fg(MEASURED),
            Some(x) if x == i => bold().fg(BAD),
            _ => Style::default(),
        };
        q.push(vec![(format!("{letter}) {a}"), style)]);
    }
    let why = match l.answer {
        Some(a) if a == l.live.correct => vec![vec![
            ("Right:".to_string(), bold().fg(MEASURED)),
            (l.live.because.clone(), Style::default()),
        ]],
        Some(_) => vec![vec![
            ("Not this one:".to_string(), bold().fg(MARK)),
            (l.live.hint.clone(), Style::default()),
        ]],
        None => Vec::new(),
    };
    (q, why)
}

pub(super) fn draw(f: &mut Frame<'_>, s: &State, area: Rect) {
    let l = &s.lessons;
    let info = &LESSONS[l.current];
    let w = usize::from(area.width);
    let inner = w.saturating_sub(2);
    let done = l.done.iter().filter(|d| **d).count();
    let mut progress = vec![("progress".to_string(), Style::default())];
    for (i, d) in l.done.iter().enumerate() {
        let style = if i == l.current {
            selected()
        } else if *d {
            bold().fg(MEASURED)
        } else {
            Style::default()
        };
        progress.push((format!("{}{}", i + 1, if *d { "✓" } else { "·" }), style));
    }
    progress.push((
        format!("({done} of {} done)", LESSONS.len()),
        Style::default(),
    ));
    let title = format!("Lesson {}/{}: {}", l.current + 1, LESSONS.len(), info.title);
    let head = wrap(
        &[
            vec![
                (title.clone(), bold().fg(ACCENT)),
                (
                    // The chapter's file alone where its title would take a line of its own.
                    if title.chars().count()
                        + info.chapter.0.chars().count()
                        + 12
                        + info.chapter.1.chars().count()
                        <= w
                    {
                        format!("· book: {} ({})", info.chapter.0, info.chapter.1)
                    } else {
                        format!("· book: {}", info.chapter.1)
                    },
                    Style::default(),
                ),
            ],
            progress,
        ],
        w,
    );
    let mut setting = vec![("←→".to_string(), Style::default())];
    for (i, label) in info.settings.iter().enumerate() {
        let style = if i == l.setting[l.current] {
            selected()
        } else {
            Style::default()
        };
        // A label keeps its inner space ("remove 8") on one line.
        setting.push((
            format!("\u{a0}{}\u{a0}", label.replace(' ', "\u{a0}")),
            style,
        ));
    }
    let task = wrap(&[plain(info.task), setting], inner);
    let live_paras: Vec<_> = l.live.lines.iter().map(|t| plain(t)).collect();
    let live = wrap(&live_paras, inner);
    let (q_paras, why_paras) = question_paras(l);
    let mut question = wrap(&q_paras, inner);
    let why = wrap(&why_paras, inner);

    let h = usize::from(area.height);
    let head_h = head.len();
    let task_h = task.len() + 2;
    let rest = h.saturating_sub(head_h + task_h);
    let live_need = live.len() + 2;
    let q_need = question.len() + why.len() + 2;
    // The question box takes what the Live box does not need, and at least the question, the
    // answers and one line of the reason; the rest of the reason scrolls.
    let q_min = question.len() + 2 + why.len().min(1);
    let q_h = q_need
        .min(rest.saturating_sub(live_need).max(q_min))
        .min(rest);
    let shown = q_h.saturating_sub(2 + question.len());
    let hidden = why.len().saturating_sub(shown);
    let from = usize::from(l.scroll).min(hidden);
    // PgDn stops at the last line as drawn.
    l.scroll_max.set(u16::try_from(hidden).unwrap_or(u16::MAX));
    question.extend(why.iter().skip(from).take(shown).cloned());
    let mut q_block = Block::bordered().title(" Question (a, b, c) ");
    if hidden > 0 {
        let below = hidden - from;
        q_block = q_block.title_bottom(format!(
            " the reason scrolls: {from} line(s) above, {below} below · PgUp/PgDn "
        ));
    }
    let [head_a, task_a, numbers_a, question_a] = Layout::vertical([
        Constraint::Length(head_h as u16),
        Constraint::Length(task_h as u16),
        Constraint::Min(0),
        Constraint::Length(q_h as u16),
    ])
    .areas(area);
    f.render_widget(Paragraph::new(head), head_a);
    f.render_widget(
        Paragraph::new(task).block(Block::bordered().title(" Do ")),
        task_a,
    );
    f.render_widget(
        Paragraph::new(live).block(Block::bordered().title(" Live (computed now by the library) ")),
        numbers_a,
    );
    f.render_widget(Paragraph::new(question).block(q_block), question_a);
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

    #[test]
    fn wrapping_keeps_columns_and_cuts_only_overlong_words() {
        use ratatui::style::Style;
        let text = |l: &ratatui::text::Line<'_>| l.to_string();
        let p = |t: &str| vec![(t.to_string(), Style::default())];
        let w = super::wrap(&[p("standard       9.59 bits/key  ·  a b")], 30);
        assert_eq!(
            w.iter().map(text).collect::<Vec<_>>(),
            ["standard       9.59 bits/key", "·  a b"]
        );
        let w = super::wrap(&[p("abcdefghij xy"), Vec::new()], 4);
        assert_eq!(
            w.iter().map(text).collect::<Vec<_>>(),
            ["abcd", "efgh", "ij", "xy", ""]
        );
    }

    /// The screen's text with the box borders taken off and the rows joined by spaces, its
    /// whitespace collapsed: a wrapped sentence reads as one.
    fn joined(screen: &str) -> String {
        screen
            .lines()
            .map(|l| l.trim_matches(|c| c == '│' || c == ' '))
            .collect::<Vec<_>>()
            .join(" ")
            .split_whitespace()
            .collect::<Vec<_>>()
            .join(" ")
    }

    /// Every lesson × setting × answer at 80×24 and 120×40: the whole reason after "Right:"
    /// and the whole hint after "Not this one:" are on screen, word for word in order, with no
    /// scrolling. Returns the number of lesson × setting × answer combinations.
    fn every_answer_readable(sizes: &[(u16, u16)]) -> usize {
        let mut s = State::new();
        update(&mut s, Msg::Goto(Tab::Lessons));
        let mut combos = 0;
        for (i, info) in LESSONS.iter().enumerate() {
            for setting in 0..info.settings.len() {
                s.lessons.current = i;
                s.lessons.setting[i] = setting;
                s.lessons.refresh();
                for a in 0..3 {
                    update(&mut s, Msg::Answer(a));
                    let l = &s.lessons.live;
                    let want = if a == l.correct {
                        format!("Right: {}", l.because)
                    } else {
                        format!("Not this one: {}", l.hint)
                    };
                    let want = want.split_whitespace().collect::<Vec<_>>().join(" ");
                    for &(w, h) in sizes {
                        let t = render_text(&s, w, h);
                        assert!(
                            joined(&t).contains(&want),
                            "lesson {} setting {} answer {a} at {w}x{h}: not all of\n{want}\n{t}",
                            i + 1,
                            info.settings[setting]
                        );
                        assert!(!t.contains("the reason scrolls"), "{t}");
                        if std::env::var_os("LESSON_DUMP").is_some() && a == l.correct {
                            println!("{t}");
                        }
                    }
                    combos += 1;
                }
            }
        }
        combos
    }

    #[test]
    fn every_reason_and_hint_is_whole_at_80x24_and_120x40() {
        let combos = every_answer_readable(&[(80, 24), (120, 40)]);
        assert_eq!(combos, 93, "31 settings × 3 answers");
    }

    /// Where the reason truly cannot fit (80×16), it scrolls and the border says so; PgDn
    /// reaches its last line.
    #[test]
    fn a_reason_that_cannot_fit_scrolls_and_says_so() {
        let mut s = State::new();
        update(&mut s, Msg::Goto(Tab::Lessons));
        for _ in 0..7 {
            update(&mut s, Msg::Down);
        }
        let right = s.lessons.live.correct;
        update(&mut s, Msg::Answer(right));
        let t = render_text(&s, 80, 16);
        assert!(t.contains("the reason scrolls: 0 line(s) above"), "{t}");
        let because = s.lessons.live.because.clone();
        let words: Vec<&str> = because.split_whitespace().collect();
        let tail = words[words.len() - 6..].join(" ");
        assert!(!joined(&t).contains(&tail), "{tail}\n{t}");
        for _ in 0..30 {
            update(&mut s, Msg::BigDown);
        }
        let t = render_text(&s, 80, 16);
        assert!(t.contains(" 0 below"), "{t}");
        assert!(joined(&t).contains(&tail), "{tail}\n{t}");
        update(&mut s, Msg::BigUp);
        assert!(render_text(&s, 80, 16).contains(" 1 below"));
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
