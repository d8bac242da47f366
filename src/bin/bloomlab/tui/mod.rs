//! The terminal workbench (ratatui, Elm style): `event` turns keys into [`msg::Msg`]s, `update`
//! changes the [`state::State`] and returns commands, the [`worker::Runtime`] runs them in
//! background threads whose reports come back as messages, and `view` draws the state.

mod event;
mod fmt;
mod msg;
mod state;
mod update;
mod view;
mod worker;

use std::sync::mpsc::channel;
use std::time::{Duration, Instant};

use crossterm::event as cte;
use ratatui::DefaultTerminal;

use msg::Msg;
use state::State;
use worker::Runtime;

/// How long to wait for a key before looking at worker reports again.
const POLL: Duration = Duration::from_millis(25);
/// Redraw at least this often while a job runs (progress), even without input.
const REFRESH: Duration = Duration::from_millis(100);

fn io_err(e: std::io::Error) -> bloomlab::Error {
    bloomlab::Error::Io {
        path: "terminal".into(),
        message: e.to_string(),
    }
}

/// Open the terminal UI; the terminal is restored on quit, on error and on panic (ratatui's
/// `try_init` installs a panic hook that restores it before the panic message is printed).
///
/// # Errors
/// Terminal I/O failures.
pub fn run() -> bloomlab::Result<()> {
    let mut terminal = ratatui::try_init().map_err(io_err)?;
    let result = run_app(&mut terminal);
    ratatui::restore();
    result
}

fn run_app(terminal: &mut DefaultTerminal) -> bloomlab::Result<()> {
    let (tx, rx) = channel();
    let mut rt = Runtime::new(tx);
    let mut s = State::new();
    rt.exec(update::init(&mut s));
    let mut dirty = true;
    let mut last_draw = Instant::now();
    while !s.quit {
        if dirty || last_draw.elapsed() >= REFRESH {
            terminal.draw(|f| view::draw(f, &s)).map_err(io_err)?;
            last_draw = Instant::now();
            dirty = false;
        }
        if cte::poll(POLL).map_err(io_err)? {
            // Handle every event already queued (key repeat) before drawing again.
            loop {
                let ev = cte::read().map_err(io_err)?;
                if matches!(ev, cte::Event::Resize(..)) {
                    dirty = true;
                }
                if let Some(m) = event::to_msg(&ev, &s) {
                    rt.exec(update::update(&mut s, m));
                    dirty = true;
                }
                if s.quit || !cte::poll(Duration::ZERO).map_err(io_err)? {
                    break;
                }
            }
        }
        while let Ok(ev) = rx.try_recv() {
            rt.exec(update::update(&mut s, Msg::worker(ev)));
            dirty = true;
        }
    }
    rt.shutdown();
    Ok(())
}
