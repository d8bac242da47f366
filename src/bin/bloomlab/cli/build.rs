//! `bloomlab build`: build a filter from a file of keys (one per line) and save it.
//!
//! Keys are the bytes of each line without its line ending (`\n` or `\r\n`); empty lines are
//! skipped. The file is read streaming (a line at a time), so its size is not limited by memory.
//! Without `--n` the keys are counted first, in a streaming pass of their own, and the filter is
//! sized for that count: two reads of the file, and no `--n` possible for standard input (`-`).
//! A static-set kind (xor, binary-fuse, ribbon) is built from the whole key set at once: its keys are read into
//! memory, one pass, and `--n` is not needed.

use super::out::{errln, outln};
use super::{
    human_bytes, parse_arity, parse_bucket_size, parse_filter, parse_fp_bits, parse_growth,
    parse_hash, parse_k, parse_m, parse_n, parse_p, parse_strategy, parse_tightening,
    parse_word_bits, parse_words, pct, thousands,
};
use bloomlab::filter::FilterKind;
use bloomlab::filters::cuckoo::TOO_MANY_COPIES;
use bloomlab::hash::{AnyHasher, HashId, StrategyId};
use bloomlab::persist::{KeyPolicy, SaveOptions};
use bloomlab::spec::FilterSpec;
use bloomlab::{AnyFilter, Error, Filter, Param, Result};
use indicatif::{ProgressBar, ProgressStyle};
use std::io::{BufReader, IsTerminal, Read};
use std::path::{Path, PathBuf};

/// Build a filter from a file of keys, one per line, and save it (atomically) to --out.
#[derive(Debug, clap::Args)]
pub struct Args {
    /// File of keys, one per line (`-` for standard input, which then needs --n).
    #[arg(long)]
    pub keys: PathBuf,
    #[arg(long, value_parser = parse_filter, default_value = "standard", help = super::filter_help())]
    pub filter: FilterKind,
    /// Target false-positive rate, strictly between 0 and 1 (0.01, 1%, 1/100); not needed with
    /// --m or --fingerprint-bits (the width sets the rate).
    #[arg(long, allow_hyphen_values = true, value_parser = parse_p, required_unless_present_any = ["m", "fingerprint_bits"])]
    pub p: Option<f64>,
    /// Bits (or a size with units: 64KiB, 1.2MB) instead of --p.
    #[arg(long, allow_hyphen_values = true, value_parser = parse_m, conflicts_with = "p")]
    pub m: Option<u64>,
    /// Hash functions, 1 to 64 (default: optimal for m and n).
    #[arg(long, allow_hyphen_values = true, value_parser = parse_k)]
    pub k: Option<u32>,
    /// Design capacity (default: the number of non-empty lines, counted in a first pass).
    #[arg(long, allow_hyphen_values = true, value_parser = parse_n)]
    pub n: Option<u64>,
    #[arg(long, value_parser = parse_hash, default_value = "xxh3", help = super::hash_help())]
    pub hash: HashId,
    #[arg(long, value_parser = parse_strategy, default_value = "enhanced-double", help = super::strategy_help())]
    pub strategy: StrategyId,
    /// Hash seed (stored in the file; not a secret: give --key-file for a secret SipHash key).
    /// murmur3 takes 0 to 2^32 - 1.
    #[arg(
        long,
        allow_hyphen_values = true,
        default_value_t = 0,
        conflicts_with = "key_file"
    )]
    pub seed: u64,
    /// File holding a secret 128-bit SipHash key as 32 hex digits (needs --hash sip24 or sip13).
    /// The key is withheld from the output file unless --store-key is given.
    #[arg(long)]
    pub key_file: Option<PathBuf>,
    /// Write the secret key into the output file in the clear (the file is made private to you).
    #[arg(long, requires = "key_file")]
    pub store_key: bool,
    /// Fingerprint bits: 4 to 32 for cuckoo, 8 or 16 for xor and binary-fuse, 1 to 32 for ribbon's
    /// results and quotient's remainders (0: the smallest that meets p).
    #[arg(long, allow_hyphen_values = true, value_parser = parse_fp_bits, default_value = "0")]
    pub fingerprint_bits: u32,
    /// Cuckoo slots per bucket: 2, 4 or 8 (tables fill to about 84%, 95%, 98%; 0: the default,
    /// 4).
    #[arg(long, allow_hyphen_values = true, value_parser = parse_bucket_size, default_value = "0")]
    pub bucket_size: u32,
    /// Binary fuse slots per key: 3 or 4 (4-wise: ≈1.075·f bits/key instead of 1.125·f, one
    /// more memory access per query); 0 = the default, 3. Only binary-fuse takes it.
    #[arg(long, allow_hyphen_values = true, value_parser = parse_arity, default_value = "0")]
    pub arity: u32,
    /// Multiblock: bits per word, 32 or 64 (0: the default, 32). Only multiblock takes it.
    #[arg(long, allow_hyphen_values = true, value_parser = parse_word_bits, default_value = "0")]
    pub word_bits: u32,
    /// Multiblock: words per block K, 1 to 16 (0: the default, 8); k is then the bits per item,
    /// a multiple of K (default K: one bit per word; --words 1 --k 5 is Boost's
    /// block<uint64_t,5> with --word-bits 64). Only multiblock takes it.
    #[arg(long, allow_hyphen_values = true, value_parser = parse_words, default_value = "0")]
    pub words: u32,
    /// Scalable growth factor (> 1).
    #[arg(long, allow_hyphen_values = true, value_parser = parse_growth, default_value = "2")]
    pub growth: f64,
    /// Scalable tightening ratio (0 < r < 1).
    #[arg(long, allow_hyphen_values = true, value_parser = parse_tightening, default_value = "0.5")]
    pub tightening: f64,
    /// Scalable: refuse keys beyond the first layer's capacity instead of growing.
    #[arg(long)]
    pub nonscaling: bool,
    /// Output file (replaced atomically; a directory, device, FIFO, read-only file, an input
    /// file or a symbolic link is refused).
    #[arg(long)]
    pub out: PathBuf,
    /// Write through a symbolic link at --out to the file it points to (the link stays).
    #[arg(long)]
    pub follow_symlinks: bool,
}

/// Refuse an output that cannot be written or that is one of the inputs, before any work
/// ([`super::out_path`]).
fn check_out(a: &Args) -> Result<super::out_path::CheckedOut> {
    let mut inputs = vec![("--keys", a.keys.as_path())];
    inputs.extend(a.key_file.iter().map(|k| ("--key-file", k.as_path())));
    super::out_path::check(
        &a.out,
        super::out_path::Format::Filter,
        &inputs,
        a.follow_symlinks,
    )
}

pub use super::keys::read_key_file;

/// Open a key source: a file, or standard input for `-`. Returns its size when known.
fn open_keys(path: &Path) -> Result<(Box<dyn Read>, Option<u64>)> {
    if path.as_os_str() == "-" {
        return Ok((Box::new(std::io::stdin().lock()), None));
    }
    let f = std::fs::File::open(path).map_err(|e| Error::opening(path.display(), &e))?;
    let len = f.metadata().ok().map(|m| m.len());
    Ok((Box::new(f), len))
}

/// A reader that counts the bytes it passes (for the progress bar).
struct Counted {
    inner: Box<dyn Read>,
    read: std::rc::Rc<std::cell::Cell<u64>>,
}

impl Read for Counted {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        let n = self.inner.read(buf)?;
        self.read.set(self.read.get() + n as u64);
        Ok(n)
    }
}

/// Call `f` with every non-empty line of `path` (without its line ending; at most
/// [`super::keys::MAX_KEY_LEN`] bytes), streaming; a progress bar on a terminal for files over
/// 16 MiB.
fn for_each_key(path: &Path, what: &str, mut f: impl FnMut(&[u8])) -> Result<u64> {
    let (r, len) = open_keys(path)?;
    let bar = (len.is_some_and(|l| l > 16 << 20) && std::io::stderr().is_terminal()).then(|| {
        let b = ProgressBar::new(len.unwrap_or(0));
        b.set_style(
            ProgressStyle::with_template(&format!(
                "{{spinner}} {what} [{{bar:40}}] {{bytes}}/{{total_bytes}} eta {{eta}}"
            ))
            .unwrap_or_else(|_| ProgressStyle::default_bar()),
        );
        b
    });
    let read = std::rc::Rc::new(std::cell::Cell::new(0u64));
    let counted = Counted {
        inner: r,
        read: std::rc::Rc::clone(&read),
    };
    let mut r = BufReader::with_capacity(1 << 16, counted);
    let name = path.display().to_string();
    let count = super::keys::for_each_line(&mut r, &name, "keys", |key, _| {
        f(key);
        if let Some(b) = &bar
            && read.get() % (1 << 20) < (1 << 16)
        {
            b.set_position(read.get());
        }
        Ok(())
    })?;
    if let Some(b) = bar {
        b.finish_and_clear();
    }
    Ok(count)
}

/// Run the command.
///
/// # Errors
/// Invalid parameters, unreadable keys, an unwritable output, allocation failure.
pub fn run(a: &Args) -> Result<()> {
    check_out(a)?;
    AnyHasher::check_seed(a.hash, a.seed)?;
    let key = match &a.key_file {
        Some(p) => {
            if !matches!(a.hash, HashId::Sip13 | HashId::Sip24) {
                return Err(Error::invalid(
                    Param::Other("key-file"),
                    a.hash,
                    "a secret key needs a keyed hash: --hash sip24 or --hash sip13",
                ));
            }
            Some(read_key_file(p)?)
        }
        None => None,
    };
    let n = match a.n {
        Some(n) => n,
        // A static set is sized from the keys it is built from: counted as they are read.
        None if a.filter.caps().static_set => 1,
        None => {
            if a.keys.as_os_str() == "-" {
                return Err(Error::invalid(
                    Param::N,
                    "none",
                    "give --n when keys come from standard input (they cannot be counted first)",
                ));
            }
            let c = for_each_key(&a.keys, "counting keys", |_| {})?;
            if c == 0 {
                return Err(no_keys(a));
            }
            c
        }
    };
    let spec = FilterSpec {
        kind: a.filter,
        hash: a.hash,
        strategy: a.strategy,
        seed: a.seed,
        n,
        p: a.p,
        m: a.m,
        k: a.k,
        ..FilterSpec::default()
    };
    let hasher = match key {
        Some(k) => match a.hash {
            HashId::Sip13 => AnyHasher::Sip13(bloomlab::hash::Sip13::with_key(&k)),
            _ => AnyHasher::Sip24(bloomlab::hash::Sip24::with_key(&k)),
        },
        None => spec.hasher(),
    };
    let spec = FilterSpec {
        fingerprint_bits: a.fingerprint_bits,
        bucket_size: a.bucket_size,
        arity: a.arity,
        word_bits: a.word_bits,
        words: a.words,
        growth: a.growth,
        tightening: a.tightening,
        nonscaling: a.nonscaling,
        ..spec
    };
    if a.filter.caps().static_set {
        // Every parameter is checked (an empty set builds) before the keys are read.
        AnyFilter::build_from_with(&spec, hasher, std::iter::empty::<&[u8]>())?;
        // One buffer for all keys, not a Vec per key (measured, 40 M short keys into xor16: peak
        // RSS 4.16 GB with a Vec per key, 2.58 GB with one buffer).
        let (mut bytes, mut ends) = (Vec::new(), Vec::new());
        for_each_key(&a.keys, "reading keys", |k| {
            bytes.extend_from_slice(k);
            ends.push(bytes.len());
        })?;
        let keys = ends.iter().scan(0, |start, &end| {
            Some(&bytes[std::mem::replace(start, end)..end])
        });
        if ends.is_empty() {
            return Err(no_keys(a));
        }
        let f = AnyFilter::build_from_with(&spec, hasher, keys)?;
        let out = Built {
            n: ends.len() as u64,
            keyed: key.is_some(),
        };
        return out.save(a, &f, out.n);
    }
    let out = Built {
        n,
        keyed: key.is_some(),
    };
    out.fill_and_save(a, AnyFilter::build_with(&spec, hasher)?)
}

/// The one rule for an empty key set, every kind alike (static kinds accepted one before): it
/// is refused, with `--n` too. A filter of no keys answers "absent" for every key, a false
/// negative for each key the user meant to put in; the input is almost surely wrong (an empty
/// file, a pipeline that produced nothing). It is the rule n >= 1 of `--n` and of every
/// design, applied to the keys.
fn no_keys(a: &Args) -> Error {
    Error::invalid(
        Param::Other("keys"),
        a.keys.display(),
        "a file with at least one non-empty line (a filter of no keys would answer 'absent' for every key)",
    )
}

/// What `run` knows before the filter exists.
struct Built {
    n: u64,
    keyed: bool,
}

impl Built {
    /// Insert every key (stopping at the first refusal of a filter with a hard capacity: a
    /// filter missing keys would give false negatives), save, report.
    fn fill_and_save(&self, a: &Args, mut f: AnyFilter) -> Result<()> {
        let mut failed = None;
        let inserted = for_each_key(&a.keys, "inserting", |k| {
            if failed.is_none()
                && let Err(e) = f.try_insert(k)
            {
                failed = Some(e);
            }
        })?;
        if inserted == 0 {
            return Err(no_keys(a));
        }
        if let Some(e) = failed {
            if matches!(e, Error::Full { reason, .. } if reason == TOO_MANY_COPIES) {
                let b = match &f {
                    AnyFilter::Cuckoo(c) => c.bucket_size(),
                    _ => 4,
                };
                return Err(Error::invalid(
                    Param::Other("keys"),
                    a.keys.display(),
                    format!(
                        "keys that repeat at most 2b = {} times: after {} keys one key came once \
                         more, and {TOO_MANY_COPIES}; nothing was written",
                        2 * b,
                        thousands(f.len()),
                    ),
                ));
            }
            return Err(Error::invalid(
                Param::Other("keys"),
                a.keys.display(),
                format!(
                    "keys that all fit: the {} filter refused a key after {} ({e}); \
                     nothing was written — give a larger --n{}",
                    a.filter,
                    thousands(f.len()),
                    if a.filter.caps().grows {
                        " or drop --nonscaling"
                    } else {
                        ""
                    }
                ),
            ));
        }
        self.save(a, &f, inserted)
    }

    /// Save `f`, holding `inserted` keys, and report.
    fn save(&self, a: &Args, f: &AnyFilter, inserted: u64) -> Result<()> {
        let n = self.n;
        let key = self.keyed.then_some(());
        // A --seed is a parameter given in the clear: stored, so `query` opens the file
        // without it (for sip13/sip24 too, whose nonzero keys are otherwise withheld). Only a
        // --key-file key is withheld, unless --store-key.
        let opts = SaveOptions::default()
            .key_policy(if a.store_key || !self.keyed {
                KeyPolicy::Store
            } else {
                KeyPolicy::Auto
            })
            .follow_symlinks(a.follow_symlinks);
        // Checked again: the file system may have changed while the keys were read.
        check_out(a)?.recheck()?;
        f.save(&a.out, &opts)?;
        let size = std::fs::metadata(&a.out).map_or(0, |m| m.len());
        outln!(
            "built a {} filter: {} keys, m = {} bits, k = {}, hash {}, strategy {}",
            a.filter,
            thousands(inserted),
            thousands(f.bits()),
            f.k(),
            a.hash,
            f.strategy_id().map_or("none", StrategyId::name)
        )?;
        outln!(
            "  expected FPR {} at {} keys (designed for {})",
            pct(f.expected_fpr()),
            thousands(inserted),
            thousands(n)
        )?;
        outln!(
            "  wrote {} ({} bytes = {})",
            a.out.display(),
            thousands(size),
            human_bytes(size as f64)
        )?;
        if key.is_some() {
            if a.store_key {
                outln!(
                    "  the secret key is stored IN THE FILE (--store-key); keep the file private"
                )?;
            } else {
                outln!(
                    "  the secret key is NOT in the file: query with --key-file (the file is authenticated by a keyed MAC)"
                )?;
            }
        }
        // A scalable filter grows to keep its bound; the others lose accuracy past n.
        if inserted > n && !a.filter.caps().grows {
            errln!(
                "warning: {} keys inserted into a filter designed for {}: its FPR is above the target",
                thousands(inserted),
                thousands(n)
            );
        }
        Ok(())
    }
}
