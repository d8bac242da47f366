//! `bloomlab query`: ask a saved filter about keys.
//!
//! Prints one line per key, `maybe-present<TAB>KEY` or `absent<TAB>KEY`, in input order.
//! Exit status: **0** if at least one key is maybe present, **1** if every key is absent (also
//! for no keys at all), **2** on an error (unreadable or corrupt file, wrong hash or key,
//! invalid arguments), like `grep`.

use super::build::read_key_file;
use bloomlab::AnyFilter;
use bloomlab::hash::HashId;
use bloomlab::persist::LoadOptions;
use bloomlab::{Error, Filter, Result};
use std::io::{BufRead, BufReader, BufWriter, Write};
use std::path::PathBuf;
use std::process::ExitCode;

fn parse_hash(s: &str) -> std::result::Result<HashId, String> {
    s.parse().map_err(|e: Error| e.to_string())
}

/// Ask a saved filter about keys. Exit status 0 if any key is maybe present, 1 if all are
/// absent, 2 on error.
#[derive(Debug, clap::Args)]
pub struct Args {
    /// The filter file (written by `bloomlab build`).
    pub filter: PathBuf,
    /// Keys to look up.
    #[arg(required_unless_present = "keys", conflicts_with = "keys")]
    pub key: Vec<String>,
    /// File of keys, one per line (`-` for standard input); empty lines are skipped.
    #[arg(long)]
    pub keys: Option<PathBuf>,
    /// Refuse the file unless it was built with this hash.
    #[arg(long, value_parser = parse_hash)]
    pub hash: Option<HashId>,
    /// File holding the secret SipHash key (32 hex digits), for files built with --key-file.
    #[arg(long)]
    pub key_file: Option<PathBuf>,
}

fn io_err(path: &str, e: &std::io::Error) -> Error {
    Error::Io {
        path: path.to_string(),
        message: e.to_string(),
    }
}

fn answer(a: &Args) -> Result<bool> {
    let mut opts = LoadOptions::new();
    opts.hash = a.hash;
    if let Some(p) = &a.key_file {
        opts.key = Some(read_key_file(p)?);
    }
    let f = AnyFilter::load(&a.filter, &opts)?;
    let stdout = std::io::stdout();
    let mut out = BufWriter::new(stdout.lock());
    let mut any = false;
    let mut emit = |key: &[u8]| -> std::io::Result<()> {
        let hit = f.contains(key);
        any |= hit;
        out.write_all(if hit { b"maybe-present\t" } else { b"absent\t" })?;
        out.write_all(key)?;
        out.write_all(b"\n")
    };
    let result = match &a.keys {
        None => a.key.iter().try_for_each(|k| emit(k.as_bytes())),
        Some(path) => {
            let name = path.display().to_string();
            let r: Box<dyn std::io::Read> = if path.as_os_str() == "-" {
                Box::new(std::io::stdin().lock())
            } else {
                Box::new(std::fs::File::open(path).map_err(|e| io_err(&name, &e))?)
            };
            let mut r = BufReader::with_capacity(1 << 16, r);
            let mut line = Vec::new();
            loop {
                line.clear();
                match r.read_until(b'\n', &mut line) {
                    Ok(0) => break Ok(()),
                    Ok(_) => {}
                    Err(e) => return Err(io_err(&name, &e)),
                }
                let mut key = line.as_slice();
                key = key.strip_suffix(b"\n").unwrap_or(key);
                key = key.strip_suffix(b"\r").unwrap_or(key);
                if !key.is_empty()
                    && let Err(e) = emit(key)
                {
                    break Err(e);
                }
            }
        }
    };
    let result = result.and_then(|()| out.flush());
    match result {
        Ok(()) => Ok(any),
        // `bloomlab query … | head`: the reader left; what was answered stands.
        Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => Ok(any),
        Err(e) => Err(super::out::stdout_error(&e)),
    }
}

/// Run the command; the exit status carries the answer (see the module docs).
#[must_use]
pub fn run(a: &Args) -> ExitCode {
    match answer(a) {
        Ok(true) => ExitCode::SUCCESS,
        Ok(false) => ExitCode::from(1),
        Err(e) => {
            super::out::errln!("error: {e}");
            ExitCode::from(2)
        }
    }
}
