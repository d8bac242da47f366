//! The `bloomlab` command: a thin shell over the library (argument parsing, dispatch, exit codes).

mod cli;
mod tui;
// After the application's modules: .ci/module-cycles.py stops reading a file at its first
// `#[cfg(test)] mod`.
#[cfg(test)]
mod output_paths;

use clap::{Parser, Subcommand};
use std::io::IsTerminal;
use std::process::ExitCode;

/// Heap bytes are measured, not computed: the memory experiments read this allocator's counters.
#[global_allocator]
static ALLOC: bloomlab::alloc_count::CountingAlloc = bloomlab::alloc_count::CountingAlloc;

/// A workbench for Bloom filters and their relatives.
///
/// Without a command, opens the interactive explorer on a terminal.
#[derive(Debug, Parser)]
#[command(name = "bloomlab", version, about, long_about = None, after_help = cli::AFTER_HELP)]
struct Cli {
    #[command(subcommand)]
    cmd: Option<Cmd>,
}

#[derive(Debug, Subcommand)]
enum Cmd {
    /// Size a filter: any sensible subset of n, p, m, k solves for the rest.
    Calc(cli::calc::Args),
    /// Build a filter, insert n keys, query absent keys, report FPR against theory.
    Measure(cli::measure::Args),
    /// The articles' m = 16, k = 3 example (apple, banana, grape, cherry), step by step.
    Walkthrough(cli::walkthrough::Args),
    /// Draw a real filter's structure as SVG (bits, blocks, counters, buckets, slots).
    Diagram(cli::diagram::Args),
    /// Filters in Redis: compare with RedisBloom; the cache-penetration demo.
    #[cfg(feature = "redis")]
    Redis(cli::redis::Args),
    /// Build a filter from a file of keys (one per line) and save it.
    Build(cli::build::Args),
    /// Ask a saved filter about keys (exit 0: some maybe present, 1: all absent, 2: bad input).
    Query(cli::query::Args),
    /// Run experiment specs (TOML) into CSV, SVG and PNG.
    Run(cli::run::Args),
    /// Which filter for a workload: candidates measured, ranked by expected cost per query.
    Choose(cli::choose::Args),
    /// The book's mdBook preprocessor: `{{#value}}` and `{{#calc}}` numbers (run by book.toml).
    #[command(hide = true, name = "book-preprocess")]
    BookPreprocess(cli::book_numbers::Args),
}

/// On SIGINT, SIGTERM or SIGHUP: remove the temporary file of any save in flight, then end
/// with the status a shell gives a process the signal killed (128 + the signal). A handler
/// thread does it (signal-hook's iterator: no code runs in the signal handler itself).
fn remove_temp_files_on_signals() {
    use signal_hook::consts::{SIGHUP, SIGINT, SIGTERM};
    let Ok(mut signals) = signal_hook::iterator::Signals::new([SIGINT, SIGTERM, SIGHUP]) else {
        return; // no handler: a signal ends the process as before, a crash's temp file is removed by the next save
    };
    // A blocking call the signal interrupts (a socket read with a timeout is not restarted)
    // can fail the command with EINTR before the handler thread has woken: the flag, set in
    // the signal handler itself, tells `main` to leave the exit to that thread.
    for sig in [SIGINT, SIGTERM, SIGHUP] {
        let _ = signal_hook::flag::register(sig, cli::out::signal_flag());
    }
    // The thread is waiting before the command starts: the memory experiments count every
    // allocation in the process, and a thread still starting up would add its own.
    let (ready, started) = std::sync::mpsc::sync_channel(0);
    std::thread::spawn(move || {
        let mut forever = signals.forever();
        let _ = ready.send(());
        if let Some(sig) = forever.next() {
            let removed = bloomlab::persist::remove_pending_temp_files();
            if removed > 0 {
                cli::out::errln!("interrupted: removed {removed} unfinished temporary file(s)");
            }
            // The Redis commands' keys and private directories (after the operation in flight).
            #[cfg(feature = "redis")]
            {
                let removed = cli::redis::owned::on_signal();
                if !removed.is_empty() {
                    cli::out::errln!("interrupted: {removed}");
                }
            }
            std::process::exit(128 + sig);
        }
    });
    let _ = started.recv();
}

fn main() -> ExitCode {
    let cli = match Cli::try_parse() {
        Ok(c) => c,
        Err(e) if e.use_stderr() => {
            // One line that names the flag and the valid range; exit status 2.
            let text = e.render().to_string();
            let mut lines = text.lines().filter(|l| !l.trim().is_empty());
            let first = lines.next().unwrap_or("error: invalid arguments");
            // "the following required arguments were not provided:" names them on the next line.
            match lines.next().filter(|_| first.ends_with(':')) {
                Some(what) => cli::out::errln!("{first} {}", what.trim()),
                None => cli::out::errln!("{first}"),
            }
            return ExitCode::from(2);
        }
        Err(e) => {
            // --help and --version (a closed pipe is fine, a full disk is not)
            let printed = std::io::Write::write_all(
                &mut std::io::stdout().lock(),
                e.render().to_string().as_bytes(),
            )
            .map_err(|e| cli::out::stdout_error(&e));
            return cli::out::finish(printed);
        }
    };
    if cli.cmd.is_some() {
        // The TUI reads Ctrl-C as a key; its own exit restores the terminal.
        remove_temp_files_on_signals();
    }
    let result = match cli.cmd {
        Some(Cmd::Calc(a)) => cli::calc::run(&a),
        Some(Cmd::Measure(a)) => cli::measure::run(&a),
        Some(Cmd::Walkthrough(a)) => cli::walkthrough::run(&a),
        Some(Cmd::Diagram(a)) => cli::diagram::run(&a),
        #[cfg(feature = "redis")]
        Some(Cmd::Redis(a)) => cli::redis::run(&a),
        Some(Cmd::Build(a)) => cli::build::run(&a),
        Some(Cmd::Query(a)) => return cli::query::run(&a),
        Some(Cmd::Run(a)) => return cli::run::run(&a),
        Some(Cmd::Choose(a)) => cli::choose::run(&a),
        Some(Cmd::BookPreprocess(a)) => cli::book_numbers::run(&a),
        None => {
            if std::io::stdout().is_terminal() && std::io::stdin().is_terminal() {
                tui::run()
            } else {
                cli::out::outln!("{}", cli::GUIDE)
            }
        }
    };
    if cli::out::signalled() {
        // The handler thread cleans up and exits with 128 + the signal.
        loop {
            std::thread::park();
        }
    }
    cli::out::finish(result)
}
