//! The one output layer of every command: text goes to standard output through [`outln!`] and
//! [`out!`], which return a [`Result`] instead of panicking as `println!` does when the write
//! fails (a full disk, `> /dev/full`, a closed pipe). Messages go to standard error through
//! [`errln!`], which drops a failed write: there is nowhere left to report it.
//!
//! A failed write on standard output becomes [`Error::Io`] naming "standard output", which the
//! command returns like any other error: one line on standard error, exit status 3 (a runtime
//! failure: the machine could not take the output; see [`finish`]).
//!
//! **A closed pipe is not an error.** `bloomlab walkthrough | head -1` closes the pipe after one
//! line; the command then stops writing and exits **0**, silently, as `head` users expect (the
//! reader asked for less, nothing failed). This is the choice of tools such as ripgrep rather
//! than the 141 (128 + SIGPIPE) of a process killed by the signal: a pipeline under
//! `set -o pipefail` would otherwise fail because its reader stopped early. [`stdout_error`]
//! remembers the closed pipe; [`finish`] turns it into success.

use bloomlab::Error;
use std::fmt;
use std::io::{self, Write};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

/// Set once a write to standard output failed because the reader went away.
static PIPE_CLOSED: AtomicBool = AtomicBool::new(false);

/// Set inside the signal handler when SIGINT, SIGTERM or SIGHUP arrived (`main` registers it
/// beside its handler thread, which then cleans up and ends the process).
static SIGNALLED: std::sync::LazyLock<Arc<AtomicBool>> = std::sync::LazyLock::new(Default::default);

/// The flag a signal handler sets ([`signalled`]).
pub fn signal_flag() -> Arc<AtomicBool> {
    Arc::clone(&SIGNALLED)
}

/// Whether SIGINT, SIGTERM or SIGHUP arrived: the command's own outcome (often an EINTR from
/// the interrupted call) is then not reported, the signal's handler thread owns the exit.
pub fn signalled() -> bool {
    SIGNALLED.load(Ordering::SeqCst)
}

/// The name errors on standard output carry.
pub const STDOUT: &str = "standard output";

/// The crate's error for a failed write on standard output (a closed pipe is remembered, see
/// the module docs).
pub fn stdout_error(e: &io::Error) -> Error {
    if e.kind() == io::ErrorKind::BrokenPipe {
        PIPE_CLOSED.store(true, Ordering::Relaxed);
    }
    Error::Io {
        path: STDOUT.to_string(),
        message: e.to_string(),
    }
}

/// Whether a write to standard output found the pipe closed.
pub fn pipe_closed() -> bool {
    PIPE_CLOSED.load(Ordering::Relaxed)
}

/// Write formatted text to standard output (used by [`out!`] and [`outln!`]).
///
/// # Errors
/// [`Error::Io`] naming standard output.
pub fn write(args: fmt::Arguments<'_>, newline: bool) -> bloomlab::Result<()> {
    let mut w = io::stdout().lock();
    w.write_fmt(args)
        .and_then(|()| if newline { w.write_all(b"\n") } else { Ok(()) })
        .map_err(|e| stdout_error(&e))
}

/// Flush standard output (its buffer may hold the end of a line written with [`out!`]).
///
/// # Errors
/// [`Error::Io`] naming standard output.
pub fn flush() -> bloomlab::Result<()> {
    io::stdout().lock().flush().map_err(|e| stdout_error(&e))
}

/// Write a line to standard error, ignoring a failure (used by [`errln!`]).
pub fn write_err(args: fmt::Arguments<'_>) {
    let mut w = io::stderr().lock();
    let _ = w.write_fmt(args).and_then(|()| w.write_all(b"\n"));
}

/// The end of a command: flush standard output, then map the result to an exit status: 0 on
/// success (or when the reader closed the pipe); otherwise one line on standard error and the
/// error's status ([`status`]).
pub fn finish(result: bloomlab::Result<()>) -> std::process::ExitCode {
    std::process::ExitCode::from(finish_status(result))
}

/// [`finish`] as a number.
pub fn finish_status(result: bloomlab::Result<()>) -> u8 {
    match result.and_then(|()| flush()) {
        Ok(()) => 0,
        Err(_) if pipe_closed() => 0,
        Err(e) => {
            write_err(format_args!("error: {e}"));
            status(&e)
        }
    }
}

/// The exit status of a command that failed with `e` (the table is [`super::EXIT_STATUS`]): 2
/// bad input or usage, 3 a runtime or server failure, 4 a completed run that found a
/// correctness failure ([`bloomlab::Error::class`], one exhaustive match in the library).
#[must_use]
pub fn status(e: &Error) -> u8 {
    e.class().exit_status()
}

/// `print!` that returns `bloomlab::Result<()>` instead of panicking.
macro_rules! out {
    ($($t:tt)*) => { $crate::cli::out::write(format_args!($($t)*), false) };
}

/// `println!` that returns `bloomlab::Result<()>` instead of panicking.
macro_rules! outln {
    () => { $crate::cli::out::write(format_args!(""), true) };
    ($($t:tt)*) => { $crate::cli::out::write(format_args!($($t)*), true) };
}

/// `eprintln!` that never panics (a failed write to standard error is dropped).
macro_rules! errln {
    ($($t:tt)*) => { $crate::cli::out::write_err(format_args!($($t)*)) };
}

pub(crate) use {errln, out, outln};
