//! `bloomlab query`: ask a saved filter about keys.
//!
//! Prints one line per key, `maybe-present<TAB>KEY` or `absent<TAB>KEY`, in input order; a key
//! holding a backslash, tab, line ending or other control byte is printed escaped (`\\`, `\t`,
//! `\n`, `\r`, `\xHH`), so every line is one key's answer. Keys are at most 64 KiB. With
//! `--keys FILE`, one summary line follows on standard error: `N keys, M maybe present, A absent`.
//! Keys are answered in groups of 1024 through the filter's bulk query
//! ([`AnyFilter::contains_many_into`]: prefetched a chunk ahead in a filter of 1 MiB or more),
//! with the same answers and order as one at a time (`tests/cli_bulk_query.rs`).
//! Exit status: **0** if at least one key is maybe present, **1** if every key is absent (also
//! for no keys at all), **2** on bad input (a missing, unreadable or corrupt file, wrong hash or
//! key, invalid arguments), like `grep`; **3** on a runtime failure (an I/O error reading, standard
//! output full).

use super::keys::MAX_KEY_LEN;
use super::keys::{for_each_line, read_key_file};
use bloomlab::AnyFilter;
use bloomlab::hash::HashId;
use bloomlab::persist::LoadOptions;
use bloomlab::{Error, Filter, Param, Result};
use std::io::{BufReader, BufWriter, Write};
use std::path::PathBuf;
use std::process::ExitCode;

fn parse_hash(s: &str) -> std::result::Result<HashId, String> {
    s.parse().map_err(|e: Error| e.to_string())
}

/// Ask a saved filter about keys. Exit status 0 if any key is maybe present, 1 if all are
/// absent, 2 on bad input, 3 on a runtime failure.
///
/// The file's checksum (XXH3) detects accidents (a flipped bit, a cut-off copy), not tampering:
/// whoever can write the file can change it and recompute the checksum, and a forged filter
/// answers "absent" for keys it holds. A file built with --key-file is authenticated: it
/// withholds the key and carries a keyed MAC (SipHash-2-4) over header, params and payload,
/// checked when queried with --key-file ("authentication failed" if the file was changed
/// without the key; "corrupt" for accidental damage). Without a key (or with --store-key) there
/// is no MAC: keep such files where only you can write them.
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
    /// The file's format: `bloomlab` (written by `bloomlab build`) or `guava` (written by
    /// Guava's `BloomFilter.writeTo`; keys are looked up as Guava's `Funnels.stringFunnel(UTF_8)`
    /// puts them).
    #[arg(long, value_enum, default_value = "bloomlab")]
    pub format: Format,
}

/// A filter file format `query` reads.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum Format {
    /// bloomlab's own format.
    Bloomlab,
    /// Guava's `BloomFilter.writeTo` format (murmur3, strategy MURMUR128_MITZ_32 or _64).
    Guava,
}

/// A loaded filter of either format.
enum Loaded {
    Own(AnyFilter),
    Guava(bloomlab::guava::GuavaBloom),
}

impl Loaded {
    /// `out[i]` = whether `items[i]` may be present: bloomlab's own filters answer in one
    /// batch ([`AnyFilter::contains_many_into`]), Guava's one key at a time.
    fn contains_many(&self, items: &[&[u8]], out: &mut [bool]) {
        match self {
            Loaded::Own(f) => f.contains_many_into(items, out),
            Loaded::Guava(f) => {
                for (o, key) in out.iter_mut().zip(items) {
                    *o = f.contains(key);
                }
            }
        }
    }
}

fn load(a: &Args) -> Result<Loaded> {
    if a.format == Format::Bloomlab {
        let mut opts = LoadOptions::new();
        opts.hash = a.hash;
        if let Some(p) = &a.key_file {
            opts.key = Some(read_key_file(p)?);
        }
        return AnyFilter::load(&a.filter, &opts).map(Loaded::Own);
    }
    if a.key_file.is_some() {
        return Err(Error::invalid(
            Param::Other("key-file"),
            "given",
            "no key file with --format guava (Guava's murmur3 has no key)",
        ));
    }
    if let Some(h) = a.hash.filter(|&h| h != HashId::Murmur3) {
        return Err(Error::Mismatch {
            what: "hash",
            found: HashId::Murmur3.name().to_string(),
            requested: h.name().to_string(),
        });
    }
    // Read no more than the header declares (and one byte, so trailing bytes are seen).
    use std::io::Read;
    let name = a.filter.display().to_string();
    let mut file = std::fs::File::open(&a.filter).map_err(|e| Error::opening(&name, &e))?;
    let header_len = bloomlab::guava::HEADER_LEN;
    let mut bytes = Vec::with_capacity(header_len);
    (&mut file)
        .take(header_len as u64)
        .read_to_end(&mut bytes)
        .map_err(|e| io_err(&name, &e))?;
    if let Some(h) = bytes.get(2..6) {
        let words = u64::from(i32::from_be_bytes([h[0], h[1], h[2], h[3]]).unsigned_abs());
        file.take(words * 8 + 1)
            .read_to_end(&mut bytes)
            .map_err(|e| io_err(&name, &e))?;
    }
    bloomlab::guava::load_guava(&bytes).map(Loaded::Guava)
}

fn io_err(path: &str, e: &std::io::Error) -> Error {
    Error::Io {
        path: path.to_string(),
        message: e.to_string(),
    }
}

/// Write `key` so that it stays one field of one line: a backslash, a tab, a line ending or
/// another control byte is escaped (`\\`, `\t`, `\n`, `\r`, `\xHH`), so a key holding a newline
/// cannot print a line that reads as the answer for another key. Other bytes (UTF-8 text
/// included) are written as they are.
fn write_escaped(w: &mut dyn Write, key: &[u8]) -> std::io::Result<()> {
    let plain = |b: u8| b >= 0x20 && b != 0x7f && b != b'\\';
    if key.iter().all(|&b| plain(b)) {
        return w.write_all(key);
    }
    for &b in key {
        match b {
            b'\\' => w.write_all(b"\\\\")?,
            b'\t' => w.write_all(b"\\t")?,
            b'\n' => w.write_all(b"\\n")?,
            b'\r' => w.write_all(b"\\r")?,
            b if plain(b) => w.write_all(&[b])?,
            b => write!(w, "\\x{b:02x}")?,
        }
    }
    Ok(())
}

/// Keys answered per [`AnyFilter::contains_many_into`] call: the key file is read in groups
/// of this many, each answered in one batch (prefetched a chunk ahead in a large filter) and
/// printed in input order.
const QUERY_GROUP: usize = 1024;

/// The keys read and not yet answered, and the tallies of those answered.
struct Answers<'a, W: Write> {
    f: &'a Loaded,
    out: W,
    /// The pending keys, end to end; key i ends at `ends[i]`.
    buf: Vec<u8>,
    ends: Vec<usize>,
    found: Vec<bool>,
    any: bool,
    asked: u64,
    maybe: u64,
}

impl<W: Write> Answers<'_, W> {
    /// Queue one key; a full group is answered at once.
    fn push(&mut self, key: &[u8]) -> Result<()> {
        self.buf.extend_from_slice(key);
        self.ends.push(self.buf.len());
        if self.ends.len() >= QUERY_GROUP {
            self.flush()?;
        }
        Ok(())
    }

    /// Answer the queued keys in one batch and print their lines in order.
    fn flush(&mut self) -> Result<()> {
        let mut items: Vec<&[u8]> = Vec::with_capacity(self.ends.len());
        let mut start = 0;
        for &end in &self.ends {
            items.push(&self.buf[start..end]);
            start = end;
        }
        self.found.clear();
        self.found.resize(items.len(), false);
        self.f.contains_many(&items, &mut self.found);
        for (key, &hit) in items.iter().zip(&self.found) {
            self.any |= hit;
            self.asked += 1;
            self.maybe += u64::from(hit);
            let out = &mut self.out;
            (|| {
                out.write_all(if hit { b"maybe-present\t" } else { b"absent\t" })?;
                write_escaped(out, key)?;
                out.write_all(b"\n")
            })()
            .map_err(|e| super::out::stdout_error(&e))?;
        }
        self.buf.clear();
        self.ends.clear();
        Ok(())
    }
}

fn answer(a: &Args) -> Result<bool> {
    let f = load(a)?;
    let stdout = std::io::stdout();
    let mut ans = Answers {
        f: &f,
        out: BufWriter::new(stdout.lock()),
        buf: Vec::new(),
        ends: Vec::with_capacity(QUERY_GROUP),
        found: Vec::with_capacity(QUERY_GROUP),
        any: false,
        asked: 0,
        maybe: 0,
    };
    let result = match &a.keys {
        None => a.key.iter().try_for_each(|k| {
            if k.len() > MAX_KEY_LEN {
                return Err(Error::invalid(
                    Param::Other("key"),
                    format!("a key of {} bytes", k.len()),
                    "keys of at most 65,536 bytes",
                ));
            }
            ans.push(k.as_bytes())
        }),
        Some(path) => {
            let name = path.display().to_string();
            let r: Box<dyn std::io::Read> = if path.as_os_str() == "-" {
                Box::new(std::io::stdin().lock())
            } else {
                Box::new(std::fs::File::open(path).map_err(|e| Error::opening(&name, &e))?)
            };
            let mut r = BufReader::with_capacity(1 << 16, r);
            for_each_line(&mut r, &name, "keys", |key, _| ans.push(key)).map(drop)
        }
    };
    // The keys read before a bad line are answered before the error is reported, as they were
    // when each key was answered as it was read.
    let result = match (result, ans.flush()) {
        (Err(e), _) | (Ok(()), Err(e)) => Err(e),
        (Ok(()), Ok(())) => Ok(()),
    };
    let Answers {
        mut out,
        any,
        asked,
        maybe,
        ..
    } = ans;
    let result = result.and_then(|()| out.flush().map_err(|e| super::out::stdout_error(&e)));
    match result {
        Ok(()) => {
            // A key file's answers end with one summary line, on standard error so that
            // standard output stays one line per key.
            if a.keys.is_some() {
                let t = bloomlab::units::thousands;
                super::out::errln!(
                    "{} keys, {} maybe present, {} absent",
                    t(asked),
                    t(maybe),
                    t(asked - maybe)
                );
            }
            Ok(any)
        }
        // `bloomlab query … | head`: the reader left; what was answered stands.
        Err(_) if super::out::pipe_closed() => Ok(any),
        Err(e) => Err(e),
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
            ExitCode::from(super::out::status(&e))
        }
    }
}
