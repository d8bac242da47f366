//! The `bloomlab` command: a thin shell over the library (argument parsing, dispatch, exit codes).

mod cli;
mod tui;

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
#[command(name = "bloomlab", version, about, long_about = None, after_help = cli::GUIDE)]
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
    /// Filters in Redis: compare with RedisBloom; the cache-penetration demo.
    #[cfg(feature = "redis")]
    Redis(cli::redis::Args),
    /// Build a filter from a file of keys (one per line) and save it.
    Build(cli::build::Args),
    /// Ask a saved filter about keys (exit 0: some maybe present, 1: all absent, 2: error).
    Query(cli::query::Args),
    /// Run experiment specs (TOML) into CSV, SVG and PNG.
    Run(cli::run::Args),
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
    let result = match cli.cmd {
        Some(Cmd::Calc(a)) => cli::calc::run(&a),
        Some(Cmd::Measure(a)) => cli::measure::run(&a),
        Some(Cmd::Walkthrough(a)) => cli::walkthrough::run(&a),
        #[cfg(feature = "redis")]
        Some(Cmd::Redis(a)) => cli::redis::run(&a),
        Some(Cmd::Build(a)) => cli::build::run(&a),
        Some(Cmd::Query(a)) => return cli::query::run(&a),
        Some(Cmd::Run(a)) => return cli::run::run(&a),
        None => {
            if std::io::stdout().is_terminal() && std::io::stdin().is_terminal() {
                tui::run()
            } else {
                cli::out::outln!("{}", cli::GUIDE)
            }
        }
    };
    cli::out::finish(result)
}
