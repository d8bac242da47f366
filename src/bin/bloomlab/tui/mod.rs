//! The terminal workbench (ratatui, Elm style): `event` turns keys into [`msg::Msg`]s, `update`
//! changes the [`state::State`] and returns commands, the [`worker::Runtime`] runs them in
//! background threads whose reports come back as messages, and `view` draws the state.
//!
//! Module dependencies (non-test code) form an acyclic order; each uses only modules above it:
//!
//! | module | uses (besides the library) |
//! |---|---|
//! | `results` | — (what the jobs measure: [`results::RowOutcome`], [`results::RowState`], …) |
//! | `fmt` | — |
//! | `sizing` | `fmt` (each kind's memory by its own rule) |
//! | `lessons` | `fmt` (the lessons' numbers, from the library) |
//! | `model` | `sizing` (each kind's theory at n, p without building it) |
//! | `tradeoffs` | — (the chooser's answer, from the library) |
//! | `state` | `lessons`, `model`, `results`, `sizing`, `tradeoffs` |
//! | `msg` | `results`, `sizing`, `state` (for `Tab`) |
//! | `event` | `msg`, `state` |
//! | `peers` | `results` (the peer crates, measured; feature `peers`) |
//! | `worker` | `msg`, `peers`, `results`, `sizing` |
//! | `update` | `fmt`, `model`, `msg`, `results`, `sizing`, `state` |
//! | `view` | `fmt`, `results`, `sizing`, `state` |

mod event;
mod fmt;
mod lessons;
mod model;
mod msg;
#[cfg(feature = "peers")]
mod peers;
mod results;
mod sizing;
mod state;
mod tradeoffs;
mod update;
mod view;
mod worker;

use std::io::Write;
use std::sync::mpsc::channel;
use std::time::{Duration, Instant};

use crossterm::event as cte;
use ratatui::DefaultTerminal;

use msg::Msg;
use state::State;
use worker::Runtime;

/// When set to a file path, the time from reading each key to the end of the frame that shows
/// it is appended there in microseconds (used by `.ci/tui-e2e.sh`).
const LATENCY_LOG: &str = "BLOOMLAB_TUI_LATENCY_LOG";

/// How long to wait for a key before looking at worker reports again.
const POLL: Duration = Duration::from_millis(25);

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
    // A panic in a measurement thread is caught there and shown as a failed measurement; only
    // panics elsewhere go to ratatui's hook (restore the terminal, then print the message).
    let restore_and_report = std::panic::take_hook();
    std::panic::set_hook(Box::new(move |info| {
        if std::thread::current().name() != Some(worker::WORKER_THREAD) {
            restore_and_report(info);
        }
    }));
    let result = run_app(&mut terminal);
    ratatui::restore();
    result
}

fn run_app(terminal: &mut DefaultTerminal) -> bloomlab::Result<()> {
    let (tx, rx) = channel();
    let mut rt = Runtime::new(tx);
    let mut s = State::new();
    rt.exec(update::init(&mut s));
    // Redraw after every key, resize or worker report (progress reports are throttled by
    // the worker), never otherwise: an idle workbench costs nothing.
    let mut dirty = true;
    let mut latency_log = std::env::var_os(LATENCY_LOG).and_then(|p| {
        std::fs::OpenOptions::new()
            .create(true)
            .append(true)
            .open(p)
            .ok()
    });
    let mut key_at: Option<Instant> = None;
    while !s.quit {
        if dirty {
            terminal.draw(|f| view::draw(f, &s)).map_err(io_err)?;
            dirty = false;
            if let (Some(t), Some(log)) = (key_at.take(), latency_log.as_mut()) {
                let _ = writeln!(log, "{}", t.elapsed().as_micros());
            }
        }
        if cte::poll(POLL).map_err(io_err)? {
            // Handle every event already queued (key repeat) before drawing again.
            loop {
                let ev = cte::read().map_err(io_err)?;
                if matches!(ev, cte::Event::Resize(..)) {
                    dirty = true;
                }
                if let Some(m) = event::to_msg(&ev, &s) {
                    key_at.get_or_insert_with(Instant::now);
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
