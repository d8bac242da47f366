//! Lessons: ↑↓ lesson, ←→ its setting, a b c the answer, PgUp/PgDn the reason's lines.

use crate::tui::msg::{Cmd, Msg};
use crate::tui::state::State;

pub(super) fn lessons_msg(s: &mut State, msg: Msg) -> Vec<Cmd> {
    let l = &mut s.lessons;
    match msg {
        Msg::Up => l.open(l.current as isize - 1),
        Msg::Down => l.open(l.current as isize + 1),
        Msg::Left | Msg::Minus => l.step(-1),
        Msg::Right | Msg::Plus => l.step(1),
        Msg::Answer(a) if a < 3 => l.answer(a),
        Msg::BigDown => l.scroll_by(1),
        Msg::BigUp => l.scroll_by(-1),
        _ => {}
    }
    Vec::new()
}
