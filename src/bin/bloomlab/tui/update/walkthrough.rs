//! Walkthrough: the word box and the steps of the library's example session.

use super::info;
use crate::tui::msg::{Cmd, Msg};
use crate::tui::state::{Level, State};

pub(super) fn walk_msg(s: &mut State, msg: Msg) -> Vec<Cmd> {
    let w = &mut s.walk;
    match msg {
        Msg::StartEdit => {
            w.editing = true;
            w.before_edit = Some(std::mem::take(&mut w.input));
        }
        Msg::Input(c) if w.input.chars().count() < 24 && !c.is_control() => {
            w.input.push(c);
        }
        Msg::Backspace => {
            w.input.pop();
        }
        // Esc, or Enter on an empty box, keeps the word there was.
        Msg::CancelEdit | Msg::Submit if w.editing => {
            let before = w.before_edit.take();
            if msg == Msg::CancelEdit || w.input.is_empty() {
                w.input = before.unwrap_or_default();
            }
            w.editing = false;
        }
        Msg::Left | Msg::Right | Msg::Plus | Msg::Minus | Msg::Up | Msg::Down => {
            let (m, k) = (w.session.m(), w.session.k());
            let (m, k) = match msg {
                Msg::Left => (m.saturating_sub(8), k),
                Msg::Right => (m + 8, k),
                Msg::Minus => (m.saturating_sub(1), k),
                Msg::Plus => (m + 1, k),
                Msg::Down => (m, k.saturating_sub(1)),
                _ => (m, k + 1),
            };
            w.resize(m, k);
            let (m, k) = (w.session.m(), w.session.k());
            let n = w.n();
            info(
                s,
                Level::Info,
                format!("m = {m}, k = {k}: the {n} words inserted again"),
            );
        }
        Msg::WalkInsert | Msg::WalkQuery | Msg::WalkRemove => {
            let word = w.input.clone();
            if word.is_empty() {
                info(
                    s,
                    Level::Info,
                    "the box is empty: press Enter (or i) and type a word",
                );
                return Vec::new();
            }
            let out = match msg {
                Msg::WalkInsert => w.session.insert(&word),
                Msg::WalkQuery => w.session.query(&word),
                _ => w.session.remove(&word),
            };
            w.record(word, out);
        }
        Msg::WalkToggleCounting => {
            w.session.set_counting(!w.session.counting());
            let text = if w.session.counting() {
                "counting mode: each cell is a 4-bit counter; d removes"
            } else {
                "bit mode: a cell is 1 when its counter is above 0; no remove"
            };
            info(s, Level::Info, text);
        }
        Msg::WalkClear => w.clear(),
        Msg::WalkPreload => w.preload(),
        _ => {}
    }
    Vec::new()
}
