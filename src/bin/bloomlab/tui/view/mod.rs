//! `view`: draws the state; never changes it.
//!
//! Colours: mid-tone ANSI colours only (cyan, magenta, green, red) on the terminal's own
//! background, never a fixed white or black text colour; selection is reverse video + bold, so
//! every screen reads on dark and light themes.

mod compare;
mod explore;
mod hashes;
mod help;
mod lessons;
mod tradeoffs;
mod walkthrough;

use ratatui::Frame;
use ratatui::layout::{Constraint, Layout, Rect};
use ratatui::style::{Color, Modifier, Style};
use ratatui::text::{Line, Span};
use ratatui::widgets::{Paragraph, Tabs, Wrap};

use super::state::{Level, RunStatus, State, Tab};

/// Curves and highlights.
pub(super) const ACCENT: Color = Color::Cyan;
/// The current setting (k now, the design point).
pub(super) const MARK: Color = Color::Magenta;
/// Measured values.
pub(super) const MEASURED: Color = Color::Green;
/// Errors, failures, non-uniform results.
pub(super) const BAD: Color = Color::Red;

/// Reverse video + bold: the selection.
pub(super) fn selected() -> Style {
    Style::default().add_modifier(Modifier::REVERSED | Modifier::BOLD)
}

/// Bold.
pub(super) fn bold() -> Style {
    Style::default().add_modifier(Modifier::BOLD)
}

/// Draw everything.
pub fn draw(f: &mut Frame<'_>, s: &State) {
    // A long status message (a command line from y) wraps onto more lines.
    let width = usize::from(f.area().width).max(1);
    let status_h =
        s.status
            .as_ref()
            .map_or(1, |(_, t)| t.chars().count().div_ceil(width).clamp(1, 4)) as u16;
    let [top, main, bottom] = Layout::vertical([
        Constraint::Length(1),
        Constraint::Min(0),
        Constraint::Length(status_h),
    ])
    .areas(f.area());
    draw_tabs(f, s, top);
    match s.tab {
        Tab::Explore => explore::draw(f, s, main),
        Tab::Compare => compare::draw(f, s, main),
        Tab::Hashes => hashes::draw(f, s, main),
        Tab::Walkthrough => walkthrough::draw(f, s, main),
        Tab::Lessons => lessons::draw(f, s, main),
        Tab::Tradeoffs => tradeoffs::draw(f, s, main),
        Tab::Help => help::draw(f, s, main),
    }
    draw_status(f, s, bottom);
}

fn draw_tabs(f: &mut Frame<'_>, s: &State, area: Rect) {
    let titles: Vec<String> = Tab::ALL
        .iter()
        .enumerate()
        .map(|(i, t)| {
            if *t == Tab::Help {
                format!("? {}", t.title())
            } else if *t == Tab::Walkthrough && area.width < 90 {
                // Seven tabs and the activity label fit in 80 columns.
                format!("{} Walk", i + 1)
            } else if *t == Tab::Tradeoffs && area.width < 90 {
                format!("{} Trade", i + 1)
            } else {
                format!("{} {}", i + 1, t.title())
            }
        })
        .collect();
    let busy = activity(s);
    // At 80 columns the seven tabs leave no room to spare: the label starts with its gap.
    let busy = if busy.is_empty() {
        busy
    } else {
        format!(" {busy}")
    };
    let [left, right] = Layout::horizontal([
        Constraint::Min(0),
        Constraint::Length(busy.chars().count() as u16),
    ])
    .areas(area);
    f.render_widget(
        Tabs::new(titles)
            .select(s.tab.index())
            .highlight_style(selected())
            .divider("│")
            .padding(" ", if area.width < 90 { "" } else { " " }),
        left,
    );
    f.render_widget(Paragraph::new(Span::styled(busy, bold().fg(ACCENT))), right);
}

/// "measuring …" when a job runs.
fn activity(s: &State) -> String {
    if s.explore.run.status == RunStatus::Running {
        format!("explore {:>3.0}%", s.explore.run.progress * 100.0)
    } else if s.compare.status == RunStatus::Running {
        format!("compare {:>3.0}%", s.compare.progress * 100.0)
    } else if s.hashes.status == RunStatus::Running {
        format!("hashes {:>3.0}%", s.hashes.progress * 100.0)
    } else {
        String::new()
    }
}

/// Key hints for the status line: (wide, narrow ≤ 80 columns).
fn hints(s: &State) -> (&'static str, &'static str) {
    match s.tab {
        Tab::Explore if s.explore.edit.is_some() => (
            "type a value (1e6, 10k, 1%, 1/100, 64KiB, 2^16) · Enter apply · Esc cancel",
            "type a value (1e6, 1%, 1/100, 64KiB, 2^16) · Enter apply · Esc cancel",
        ),
        Tab::Explore => (
            "↑↓ field  ←→/+- change  PgUp/PgDn ×10  Enter type  a auto  v chart/timings  o 1 in N  r remeasure  y command  g run anyway  Tab screen  ? help  q quit",
            "↑↓ field ←→ change Enter type a auto v view o 1-in-N r again y cmd g go q quit",
        ),
        Tab::Compare => (
            "r remeasure with fresh keys · v rates/timings · o rates as 1 in N · e peer crates · y command · g run anyway · n, p, hash, strategy and keys come from Explore · ? help · q quit",
            "r again · v timings · o 1-in-N · e peers · y cmd · g go · ? help · q quit",
        ),
        Tab::Hashes => (
            "↑↓←→ cell  k/K key kind  +/- n  v metric  r remeasure  Tab screen  ? help  q quit",
            "↑↓←→ cell  k/K keys  +/- n  v metric  r remeasure  Tab screen  ? help  q quit",
        ),
        Tab::Walkthrough if s.walk.editing => (
            "type a word · Enter or Esc when done",
            "type a word · Enter or Esc when done",
        ),
        Tab::Walkthrough => (
            "Enter/i type  a insert  c check  d delete  ←→ m ±8  +- m ±1  ↑↓ k  m counting  x clear  p reload  Tab screen  q quit",
            "Enter type a ins c chk d del ←→ m±8 +- m±1 ↑↓ k m cnt x clr p load q quit",
        ),
        Tab::Lessons => (
            "↑↓ lesson  ←→ change the setting  a b c answer  PgUp/PgDn reason  Tab screen  ? help  q quit",
            "↑↓ lesson  ←→ setting  a b c answer  PgDn reason  ? help  q quit",
        ),
        Tab::Tradeoffs => (
            "↑↓ setting  ←→/+- change  PgUp/PgDn ×8 or ×10³  s static kinds  d deletes  o 1 in N  Tab screen  ? help  q quit",
            "↑↓ setting ←→ change PgUp/PgDn big s static d deletes o 1-in-N ? help q quit",
        ),
        Tab::Help => (
            "↑↓ PgUp/PgDn scroll · 1-6 or Tab for a screen · q quit",
            "↑↓ PgUp/PgDn scroll · 1-6 or Tab for a screen · q quit",
        ),
    }
}

fn draw_status(f: &mut Frame<'_>, s: &State, area: Rect) {
    let line = match &s.status {
        Some((level, text)) => {
            let style = match level {
                Level::Info => bold().fg(ACCENT),
                Level::Warn => bold().fg(MARK),
                Level::Error => bold().fg(BAD),
            };
            Line::from(Span::styled(text.clone(), style))
        }
        None => {
            let (wide, narrow) = hints(s);
            Line::from(if wide.chars().count() <= usize::from(area.width) {
                wide
            } else {
                narrow
            })
        }
    };
    f.render_widget(Paragraph::new(line).wrap(Wrap { trim: false }), area);
}

/// Render the state into a text buffer of `w`×`h` (for tests).
#[cfg(test)]
pub fn render_text(s: &State, w: u16, h: u16) -> String {
    use ratatui::Terminal;
    use ratatui::backend::TestBackend;
    let mut t = Terminal::new(TestBackend::new(w, h)).expect("test backend");
    t.draw(|f| draw(f, s)).expect("draw");
    let buf = t.backend().buffer();
    let mut out = String::new();
    for y in 0..h {
        for x in 0..w {
            out.push_str(buf[(x, y)].symbol());
        }
        out.push('\n');
    }
    out
}

/// Test helpers shared by the screens' tests.
#[cfg(test)]
pub mod testkit {
    use crate::tui::msg::Msg;
    use crate::tui::state::{Field, State};
    use crate::tui::update::update;

    /// Select `field`, press Enter, type `text`, press Enter.
    pub fn type_into(s: &mut State, field: Field, text: &str) {
        s.explore.field = field;
        update(s, Msg::StartEdit);
        for c in text.chars() {
            update(s, Msg::Input(c));
        }
        update(s, Msg::Submit);
    }

    /// The line of `screen` containing `needle`, for error messages.
    pub fn line_with<'a>(screen: &'a str, needle: &str) -> Option<&'a str> {
        screen.lines().find(|l| l.contains(needle))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tui::msg::Msg;
    use crate::tui::update::{init, update};

    #[test]
    fn every_screen_draws_at_80x24_and_large() {
        let mut s = State::new();
        init(&mut s);
        for t in Tab::ALL {
            update(&mut s, Msg::Goto(t));
            for (w, h) in [(80, 24), (120, 40), (200, 60), (40, 12)] {
                let text = render_text(&s, w, h);
                if w >= 80 {
                    for title in [
                        "1 Explore",
                        "2 Compare",
                        "3 Hashes",
                        "4 Walk",
                        "5 Lessons",
                        "6 Trade",
                        "? Help",
                    ] {
                        assert!(text.contains(title), "{t:?} {w}x{h}: tab bar\n{text}");
                    }
                    // The last line holds the key hints, and q quits everywhere.
                    let last = text.lines().last().unwrap();
                    assert!(last.contains("q quit"), "{t:?} {w}x{h}: {last}");
                }
            }
        }
    }

    #[test]
    fn status_line_shows_refusals_instead_of_hints() {
        let mut s = State::new();
        init(&mut s);
        testkit::type_into(&mut s, crate::tui::state::Field::N, "1e9");
        let text = render_text(&s, 120, 40);
        let last = text.lines().last().unwrap();
        assert!(
            last.contains("not measured") && last.contains("2^33"),
            "{last}"
        );
        // The theory still answers: the articles' 1e9 row.
        assert!(text.contains("m = 9,585,058,377 bits"), "{text}");
        assert!(text.contains("(1.20 GB)"), "{text}");
    }
}
