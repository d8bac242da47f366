//! Command implementations and shared argument parsers.

pub mod out;
pub mod out_path;

pub mod book_numbers;
pub mod build;
pub mod calc;
pub mod choose;
pub mod diagram;
pub mod keys;
pub mod measure;
#[cfg(feature = "redis")]
pub mod penetration;
pub mod query;
#[cfg(feature = "redis")]
pub mod redis;
pub mod run;
pub mod walkthrough;

use bloomlab::theory::MAX_K;
use bloomlab::units;
use bloomlab::{Error, Param, Result};

/// The text of [`GUIDE`] (a macro, so that [`AFTER_HELP`] can join it to the exit statuses).
macro_rules! guide {
    () => {
        "\
bloomlab — a workbench for Bloom filters and their relatives

  bloomlab                       open the interactive explorer (needs a terminal)
  bloomlab calc --n 1000000 --p 1%          size a filter (any subset of n, p, m, k)
  bloomlab measure --filter standard --n 100000 --p 0.01
                                 build, insert, query absent keys, compare with theory
  bloomlab walkthrough           the m = 16, k = 3 example, step by step
  bloomlab diagram cuckoo --out cuckoo.svg   a real filter's structure as SVG (--list, --all)
  bloomlab build --keys keys.txt --p 1% --out f.bloom
                                 build a filter from a file of keys and save it
  bloomlab query f.bloom KEY…    ask a saved filter (exit 0: maybe present, 1: all absent)
  bloomlab choose --n 1e6 --p 1% --negative-cost 10us [--deletes|--grows|--static]
                                 which filter for this workload: measured, ranked by cost
  bloomlab run experiments/fpr-vs-fill.toml [--quick] [--out DIR]   (or --all)
                                 run experiment specs into results/<name>.csv, .svg, .png
  bloomlab <command> --help      flags and ranges of a command"
    };
}

/// The exit status of every command (the README says the same: a test checks it).
macro_rules! exit_status {
    () => {
        "\
Exit status:
  0  success
  1  query: every key absent
  2  bad input or usage: a flag, value, name, file or path given (fix the command)
  3  runtime or server failure: I/O on this machine (a full disk), Redis unreachable, timed
     out or out of memory, a filter lost on the server (retry later)
  4  a run completed but found a correctness failure (a false negative in `redis`, a
     failed check in `run`, e.g. a published number no longer reproduced)"
    };
}

/// Printed when `bloomlab` runs without a terminal.
pub const GUIDE: &str = guide!();

/// After `bloomlab --help`: the guide and the exit statuses.
pub const AFTER_HELP: &str = concat!(guide!(), "\n\n", exit_status!());

// The numeric flags are thin wrappers over `bloomlab::units` (the same parser as the TUI's
// fields): the forms are tabled in that module's docs. clap prints the refusal after the flag
// and the value, so it is shown without the parameter's name ([`units::describe`]).

/// A flag's value, or its refusal as clap shows it.
type Flag<T> = std::result::Result<T, String>;

fn flag<T>(r: Result<T>) -> Flag<T> {
    r.map_err(|e| units::describe(&e))
}

/// `n`: a count >= 1 (`1000000`, `1,000,000`, `1_000_000`, `1e6`, `2^20`, `10k`).
pub fn parse_n(s: &str) -> Flag<u64> {
    flag(units::parse_n(s))
}

/// `p`: a probability strictly between 0 and 1: `0.01`, `1%`, `1/100`, `1 in 100`, `1e-3`.
pub fn parse_p(s: &str) -> Flag<f64> {
    flag(units::parse_p(s))
}

/// `m`: bits. A bare number is bits; units: `b`/`bit`/`bits` (bits), `B`/`byte`/`bytes`
/// (bytes), with SI (`k`, `K`, `M`, `G`, `T`) or IEC (`Ki`, `Mi`, `Gi`, `Ti`) prefixes:
/// `64KiB`, `1.2MB`, `10Mbit`, `1Mb` (= 10^6 bits).
pub fn parse_m(s: &str) -> Flag<u64> {
    flag(units::parse_m(s))
}

/// A filter name (`standard`, `counting`, …).
pub fn parse_filter(s: &str) -> Result<bloomlab::FilterKind, String> {
    s.parse().map_err(|e: bloomlab::Error| e.to_string())
}

/// `--filter`'s help: the kinds, listed from [`bloomlab::FilterKind::names`].
pub fn filter_help() -> String {
    format!("Filter kind: {}.", bloomlab::FilterKind::names().join(", "))
}

/// `--hash`'s help: the functions, listed from [`bloomlab::hash::HashId::names`].
pub fn hash_help() -> String {
    format!("Hash: {}.", bloomlab::hash::HashId::names().join(", "))
}

/// `--strategy`'s help: the strategies, listed from [`bloomlab::hash::StrategyId::names`].
pub fn strategy_help() -> String {
    format!(
        "Index strategy: {}.",
        bloomlab::hash::StrategyId::names().join(", ")
    )
}

/// A hash function name (`xxh3`, `murmur3`, …).
pub fn parse_hash(s: &str) -> Result<bloomlab::hash::HashId, String> {
    s.parse().map_err(|e: bloomlab::Error| e.to_string())
}

/// An index strategy name (`double`, `enhanced-double`, …).
pub fn parse_strategy(s: &str) -> Result<bloomlab::hash::StrategyId, String> {
    s.parse().map_err(|e: bloomlab::Error| e.to_string())
}

/// `--arity`: binary fuse slots per key, 3 or 4 (0: the default, 3).
pub fn parse_arity(s: &str) -> Flag<u32> {
    const VALID: &str = "3 or 4 (or 0: the default, 3)";
    flag(match units::parse_count(s, Param::Other("arity")) {
        Ok(a @ (0 | 3 | 4)) => Ok(a as u32),
        Ok(_) => Err(Error::invalid(
            Param::Other("arity"),
            format!("'{s}' is not an arity"),
            VALID,
        )),
        Err(e) => Err(e),
    })
}

/// Fingerprint (result) bits, 0 to 32; each kind checks its own widths when built (cuckoo 4 to
/// 32; xor and binary-fuse 8 or 16; ribbon results and quotient remainders 1 to 32), 0 = chosen
/// from p.
pub fn parse_fp_bits(s: &str) -> Flag<u32> {
    const VALID: &str = "4 to 32 for cuckoo, 8 or 16 for xor and binary-fuse, 1 to 32 for ribbon and quotient (or 0: chosen from p)";
    flag(match units::parse_count(s, Param::FingerprintBits) {
        Ok(f @ 0..=32) => Ok(f as u32),
        Ok(_) => Err(Error::invalid(
            Param::FingerprintBits,
            format!("'{s}' is not a fingerprint width"),
            VALID,
        )),
        Err(e) => Err(e),
    })
}

/// Cuckoo slots per bucket: 2, 4 or 8, or 0 (the default, 4).
pub fn parse_bucket_size(s: &str) -> Flag<u32> {
    let p = Param::Other("bucket-size");
    flag(match units::parse_count(s, p) {
        Ok(b @ (0 | 2 | 4 | 8)) => Ok(b as u32),
        Ok(_) => Err(Error::invalid(
            p,
            format!("'{s}' is not a bucket size"),
            "2, 4 or 8 (or 0: the default, 4)",
        )),
        Err(e) => Err(e),
    })
}

/// Multiblock word width: 32 or 64, or 0 (the default, 32).
pub fn parse_word_bits(s: &str) -> Flag<u32> {
    let p = Param::Other("word-bits");
    flag(match units::parse_count(s, p) {
        Ok(b @ (0 | 32 | 64)) => Ok(b as u32),
        Ok(_) => Err(Error::invalid(
            p,
            format!("'{s}' is not a word width"),
            "32 or 64",
        )),
        Err(e) => Err(e),
    })
}

/// Multiblock words per block K: 1 to 16, or 0 (the default, 8).
pub fn parse_words(s: &str) -> Flag<u32> {
    let p = Param::Other("words");
    flag(match units::parse_count(s, p) {
        Ok(k @ 0..=16) => Ok(k as u32),
        Ok(_) => Err(Error::invalid(
            p,
            format!("'{s}' words"),
            "1 to 16 words per block",
        )),
        Err(e) => Err(e),
    })
}

/// Scalable growth factor: a number > 1 and <= 16.
pub fn parse_growth(s: &str) -> Flag<f64> {
    flag(match units::parse_number(s, Param::Growth) {
        Ok(g) if g > 1.0 && g <= 16.0 => Ok(g),
        Ok(_) => Err(Error::invalid(
            Param::Growth,
            format!("'{s}' is out of range"),
            "a number > 1 and <= 16 (e.g. 2)",
        )),
        Err(e) => Err(e),
    })
}

/// Scalable tightening ratio: strictly between 0 and 1 (`0.5`, `50%`, `1/2`).
pub fn parse_tightening(s: &str) -> Flag<f64> {
    flag(units::parse_prob(s, Param::Tightening))
}

/// `k`: an integer from 1 to 64.
pub fn parse_k(s: &str) -> Flag<u32> {
    flag(units::parse_count_in(s, Param::K, 1..=u64::from(MAX_K)).map(|k| k as u32))
}

/// A count in `range` for the flag about `param` (trials, queries, …).
pub fn parse_count_in(s: &str, param: Param, range: std::ops::RangeInclusive<u64>) -> Flag<u64> {
    flag(units::parse_count_in(s, param, range))
}

/// Digits grouped by three, bytes as MB and MiB, probabilities: the one format of each.
pub use bloomlab::units::{format_bytes as human_bytes, format_prob as pct, thousands};

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn m_units() {
        assert_eq!(parse_m("9585058"), Ok(9_585_058));
        assert_eq!(parse_m("64KiB"), Ok(64 * 1024 * 8));
        assert_eq!(parse_m("1.2MB"), Ok(9_600_000));
        assert_eq!(parse_m("10Mbit"), Ok(10_000_000));
        assert_eq!(parse_m("1Mb"), Ok(1_000_000));
        assert_eq!(parse_m("1e6"), Ok(1_000_000));
        assert_eq!(parse_m("2Gb"), Ok(2_000_000_000));
        assert!(parse_m("0").is_err());
        assert!(parse_m("12 parsecs").is_err());
        assert!(parse_m("1e30").is_err());
    }

    #[test]
    fn p_forms() {
        assert_eq!(parse_p("0.01"), Ok(0.01));
        assert_eq!(parse_p("1%"), Ok(0.01));
        assert_eq!(parse_p("1/100"), Ok(0.01));
        assert_eq!(parse_p("1 in 1000"), Ok(0.001));
        for bad in ["0", "1", "1.5", "NaN", "-1%", "abc", "1/0"] {
            assert!(parse_p(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn n_k_and_the_scalable_and_cuckoo_flags() {
        assert_eq!(parse_n("1,000,000"), Ok(1_000_000));
        assert_eq!(parse_n("1e6"), Ok(1_000_000));
        assert!(parse_n("0").is_err() && parse_n("-5").is_err() && parse_n("2.5").is_err());
        assert_eq!(parse_k("7"), Ok(7));
        assert!(parse_k("0").is_err() && parse_k("1000").is_err());
        assert_eq!(parse_fp_bits("12"), Ok(12));
        // 0 to 32 pass (each kind checks its own widths: ribbon takes 10); 33 and words do not.
        assert_eq!(parse_fp_bits("10"), Ok(10));
        assert!(parse_fp_bits("33").is_err() && parse_fp_bits("x").is_err());
        assert_eq!(parse_bucket_size("8"), Ok(8));
        assert_eq!(parse_bucket_size("0"), Ok(0));
        for bad in ["3", "16", "1", "x", "-2"] {
            assert!(parse_bucket_size(bad).is_err(), "{bad}");
        }
        assert_eq!((parse_arity("4"), parse_arity("0")), (Ok(4), Ok(0)));
        assert!(parse_arity("5").is_err() && parse_arity("2").is_err());
        assert_eq!(parse_growth("2"), Ok(2.0));
        assert!(parse_growth("1").is_err() && parse_growth("17").is_err());
        assert_eq!(parse_tightening("1/2"), Ok(0.5));
        assert!(parse_tightening("1").is_err());
    }

    /// `bloomlab --help` and the README's "Exit status" table say the same, for every status.
    #[test]
    fn the_readme_states_the_exit_statuses_of_the_help() {
        let readme = include_str!("../../../../README.md");
        let mut rows = Vec::new();
        for line in exit_status!().lines().skip(1) {
            match line.trim().split_once("  ") {
                Some((code, what)) if code.parse::<u8>().is_ok() => {
                    rows.push((code, what.to_string()))
                }
                _ => rows.last_mut().expect("a status first").1 += &format!(" {}", line.trim()),
            }
        }
        assert_eq!(rows.len(), 5, "{rows:?}");
        for (code, what) in rows {
            let row = format!("| {code} | {what} |");
            assert!(readme.contains(&row), "README lacks {row}");
        }
        assert!(AFTER_HELP.ends_with(exit_status!()));
        // The statuses the library's classes map to are the ones stated.
        use bloomlab::ErrorClass;
        let codes = [
            ErrorClass::Input,
            ErrorClass::Runtime,
            ErrorClass::Correctness,
        ]
        .map(ErrorClass::exit_status);
        assert_eq!(codes, [2, 3, 4]);
    }

    #[test]
    fn formatting() {
        assert_eq!(thousands(9_585_058), "9,585,058");
        assert_eq!(human_bytes(1_198_133.0), "1.198 MB = 1.143 MiB");
        assert_eq!(pct(0.01), "1.000%");
    }
}
