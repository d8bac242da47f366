//! Walkthrough: the word box and the steps of the library's example session.

use super::info;
use crate::tui::msg::{Cmd, Msg};
use crate::tui::state::{Level, State};

pub(super) fn walk_msg(s: &mut State, msg: Msg) -> Vec<Cmd> {
    let w = &mut s.walk;
    match msg {
        Msg::StartEdit => {
            w.editing = true;
            w.input.clear();
        }
        Msg::Input(c) if w.input.chars().count() < 24 && !c.is_control() => {
            w.input.push(c);
        }
        Msg::Backspace => {
            w.input.pop();
        }
        Msg::Submit | Msg::CancelEdit => w.editing = false,
        Msg::WalkInsert | Msg::WalkQuery | Msg::WalkRemove => {
            let word = w.input.clone();
            if word.is_empty() {
                info(s, Level::Info, "type a word first: press Enter (or i)");
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
