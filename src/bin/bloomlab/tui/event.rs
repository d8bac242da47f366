//! Terminal events → messages. Pure: depends only on the key, the screen and whether a text box
//! has focus.

use crossterm::event::{Event, KeyCode, KeyEvent, KeyEventKind, KeyModifiers};

use super::msg::Msg;
use super::state::{State, Tab};

/// The message for a terminal event, if it means anything in the current state.
pub fn to_msg(ev: &Event, state: &State) -> Option<Msg> {
    match ev {
        Event::Key(k) if k.kind != KeyEventKind::Release => {
            key_to_msg(*k, state.tab, state.typing())
        }
        _ => None,
    }
}

/// The message for a key on screen `tab`; `typing` when a text box has focus.
pub fn key_to_msg(key: KeyEvent, tab: Tab, typing: bool) -> Option<Msg> {
    let ctrl = key.modifiers.contains(KeyModifiers::CONTROL);
    if ctrl && matches!(key.code, KeyCode::Char('c' | 'q')) {
        return Some(Msg::Quit);
    }
    if typing {
        return match key.code {
            KeyCode::Enter => Some(Msg::Submit),
            KeyCode::Esc => Some(Msg::CancelEdit),
            KeyCode::Backspace => Some(Msg::Backspace),
            KeyCode::Char(c) if !ctrl => Some(Msg::Input(c)),
            _ => None,
        };
    }
    let msg = match key.code {
        KeyCode::Char('q') => Msg::Quit,
        // Esc only ever leaves something (a text box, above); outside one it never quits.
        KeyCode::Esc => Msg::Escape,
        KeyCode::Tab => Msg::NextTab,
        KeyCode::BackTab => Msg::PrevTab,
        KeyCode::Char('?') | KeyCode::F(1) => Msg::Goto(Tab::Help),
        KeyCode::Char(c @ '1'..='6') => Msg::Goto(Tab::ALL[(c as u8 - b'1') as usize]),
        KeyCode::Up => Msg::Up,
        KeyCode::Down => Msg::Down,
        KeyCode::Left => Msg::Left,
        KeyCode::Right => Msg::Right,
        KeyCode::Char('+' | '=') => Msg::Plus,
        KeyCode::Char('-' | '_') => Msg::Minus,
        KeyCode::PageUp => Msg::BigUp,
        KeyCode::PageDown => Msg::BigDown,
        KeyCode::Enter => Msg::StartEdit,
        KeyCode::Char('v') => Msg::CycleView,
        KeyCode::Char('r') => Msg::Remeasure,
        KeyCode::Char(c) => return letter(c, tab),
        _ => return None,
    };
    Some(msg)
}

/// Letters whose meaning depends on the screen.
fn letter(c: char, tab: Tab) -> Option<Msg> {
    match (tab, c) {
        (Tab::Explore, 'a') => Some(Msg::Auto),
        (Tab::Explore | Tab::Compare | Tab::Hashes, 'g') => Some(Msg::RunAnyway),
        (Tab::Explore | Tab::Compare, 'y') => Some(Msg::CopyCommand),
        (Tab::Explore | Tab::Compare | Tab::Tradeoffs, 'o') => Some(Msg::ToggleOneIn),
        (Tab::Compare, 'e') => Some(Msg::TogglePeers),
        (Tab::Hashes, 'k') => Some(Msg::NextKeys(true)),
        (Tab::Hashes, 'K') => Some(Msg::NextKeys(false)),
        (Tab::Tradeoffs, 's') => Some(Msg::Answer(0)),
        (Tab::Tradeoffs, 'd') => Some(Msg::Answer(1)),
        (Tab::Lessons, c @ 'a'..='c') => Some(Msg::Answer((c as u8 - b'a') as usize)),
        (Tab::Walkthrough, 'i') => Some(Msg::StartEdit),
        (Tab::Walkthrough, 'a') => Some(Msg::WalkInsert),
        (Tab::Walkthrough, 'c') => Some(Msg::WalkQuery),
        (Tab::Walkthrough, 'd') => Some(Msg::WalkRemove),
        (Tab::Walkthrough, 'm') => Some(Msg::WalkToggleCounting),
        (Tab::Walkthrough, 'x') => Some(Msg::WalkClear),
        (Tab::Walkthrough, 'p') => Some(Msg::WalkPreload),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn key(c: KeyCode) -> KeyEvent {
        KeyEvent::new(c, KeyModifiers::NONE)
    }

    #[test]
    fn global_keys() {
        for tab in Tab::ALL {
            assert_eq!(
                key_to_msg(key(KeyCode::Char('q')), tab, false),
                Some(Msg::Quit)
            );
            // Esc never quits: outside a text box it only says how to quit.
            assert_eq!(key_to_msg(key(KeyCode::Esc), tab, false), Some(Msg::Escape));
            assert_eq!(
                key_to_msg(key(KeyCode::Esc), tab, true),
                Some(Msg::CancelEdit)
            );
            assert_eq!(
                key_to_msg(key(KeyCode::Tab), tab, false),
                Some(Msg::NextTab)
            );
            assert_eq!(
                key_to_msg(key(KeyCode::Char('3')), tab, false),
                Some(Msg::Goto(Tab::Hashes))
            );
            assert_eq!(
                key_to_msg(key(KeyCode::Char('?')), tab, false),
                Some(Msg::Goto(Tab::Help))
            );
        }
        let ctrl_c = KeyEvent::new(KeyCode::Char('c'), KeyModifiers::CONTROL);
        assert_eq!(key_to_msg(ctrl_c, Tab::Walkthrough, true), Some(Msg::Quit));
    }

    #[test]
    fn typing_captures_letters_digits_and_q() {
        for c in ['q', '1', '?', 'a'] {
            assert_eq!(
                key_to_msg(key(KeyCode::Char(c)), Tab::Walkthrough, true),
                Some(Msg::Input(c))
            );
        }
        assert_eq!(
            key_to_msg(key(KeyCode::Esc), Tab::Explore, true),
            Some(Msg::CancelEdit)
        );
        assert_eq!(
            key_to_msg(key(KeyCode::Enter), Tab::Explore, true),
            Some(Msg::Submit)
        );
    }

    #[test]
    fn screen_letters() {
        assert_eq!(
            key_to_msg(key(KeyCode::Char('a')), Tab::Explore, false),
            Some(Msg::Auto)
        );
        assert_eq!(
            key_to_msg(key(KeyCode::Char('a')), Tab::Walkthrough, false),
            Some(Msg::WalkInsert)
        );
        assert_eq!(
            key_to_msg(key(KeyCode::Char('c')), Tab::Walkthrough, false),
            Some(Msg::WalkQuery)
        );
        assert_eq!(
            key_to_msg(key(KeyCode::Char('c')), Tab::Explore, false),
            None
        );
        assert_eq!(
            key_to_msg(key(KeyCode::Char('k')), Tab::Hashes, false),
            Some(Msg::NextKeys(true))
        );
    }

    #[test]
    fn releases_are_ignored() {
        let mut k = key(KeyCode::Char('q'));
        k.kind = KeyEventKind::Release;
        assert_eq!(to_msg(&Event::Key(k), &State::new()), None);
        assert_eq!(
            to_msg(&Event::Key(key(KeyCode::Char('q'))), &State::new()),
            Some(Msg::Quit)
        );
    }
}
