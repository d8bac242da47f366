//! Command implementations and shared argument parsers.

pub mod build;
pub mod calc;
pub mod measure;
pub mod query;
#[cfg(feature = "redis")]
pub mod redis;
pub mod run;
pub mod walkthrough;

use bloomlab::theory::MAX_K;

/// Printed when `bloomlab` runs without a terminal, and after `--help`.
pub const GUIDE: &str = "\
bloomlab — a workbench for Bloom filters and their relatives

  bloomlab                       open the interactive explorer (needs a terminal)
  bloomlab calc --n 1000000 --p 1%          size a filter (any subset of n, p, m, k)
  bloomlab measure --filter standard --n 100000 --p 0.01
                                 build, insert, query absent keys, compare with theory
  bloomlab walkthrough           the m = 16, k = 3 example, step by step
  bloomlab build --keys keys.txt --p 1% --out f.bloom
                                 build a filter from a file of keys and save it
  bloomlab query f.bloom KEY…    ask a saved filter (exit 0: maybe present, 1: all absent)
  bloomlab run experiments/fpr-vs-fill.toml [--quick] [--out DIR]   (or --all)
                                 run experiment specs into results/<name>.csv, .svg, .png
  bloomlab <command> --help      flags and ranges of a command";

/// `n`: an integer >= 1 (underscores and commas allowed: `1_000_000`, `1,000,000`, `1e6`).
pub fn parse_n(s: &str) -> Result<u64, String> {
    let t: String = s.chars().filter(|c| *c != '_' && *c != ',').collect();
    let v = if let Ok(v) = t.parse::<u64>() {
        v
    } else {
        match t.parse::<f64>() {
            Ok(f) if f.is_finite() && f >= 0.0 && f.fract() == 0.0 && f < 1.8e19 => f as u64,
            _ => return Err("expected an integer >= 1, e.g. 1000000 or 1e6".into()),
        }
    };
    if v == 0 {
        return Err("n must be an integer >= 1".into());
    }
    Ok(v)
}

/// `p`: a probability strictly between 0 and 1: `0.01`, `1%`, `1/100`, `1e-3`.
pub fn parse_p(s: &str) -> Result<f64, String> {
    let t = s.trim();
    let v = if let Some(pct) = t.strip_suffix('%') {
        pct.trim().parse::<f64>().map(|v| v / 100.0)
    } else if let Some((a, b)) = t.split_once('/') {
        match (a.trim().parse::<f64>(), b.trim().parse::<f64>()) {
            (Ok(a), Ok(b)) => Ok(a / b),
            (Err(e), _) | (_, Err(e)) => Err(e),
        }
    } else {
        t.parse::<f64>()
    }
    .map_err(|_| "expected a probability like 0.01, 1% or 1/100".to_string())?;
    if v.is_nan() || v <= 0.0 || v >= 1.0 {
        return Err("p must be strictly between 0 and 1 (e.g. 0.01, 1%, 1/100)".into());
    }
    Ok(v)
}

/// `m`: bits. A plain number is bits; units: `b`/`bit`/`bits` (bits), `B` (bytes), with decimal
/// (`k`, `K`, `M`, `G`, `T`) or binary (`Ki`, `Mi`, `Gi`, `Ti`) prefixes: `64KiB`, `1.2MB`, `10Mbit`.
pub fn parse_m(s: &str) -> Result<u64, String> {
    let t = s.trim().replace(['_', ','], "");
    let split = t
        .find(|c: char| !(c.is_ascii_digit() || c == '.' || c == 'e' || c == 'E'))
        .unwrap_or(t.len());
    // "1e6" is a number; "1EiB" is not supported, so 'e'/'E' only belong to the number when
    // followed by a digit.
    let (num, unit) = t.split_at(split);
    let unit = unit.trim();
    let value: f64 = num
        .parse()
        .map_err(|_| format!("cannot read '{s}' as a size; try 9585058, 64KiB, 1.2MB or 10Mbit"))?;
    let (prefix, rest) = match unit {
        u if u.starts_with("Ki") => (1024f64, &u[2..]),
        u if u.starts_with("Mi") => (1024f64.powi(2), &u[2..]),
        u if u.starts_with("Gi") => (1024f64.powi(3), &u[2..]),
        u if u.starts_with("Ti") => (1024f64.powi(4), &u[2..]),
        u if u.starts_with('k') || u.starts_with('K') => (1e3, &u[1..]),
        u if u.starts_with('M') => (1e6, &u[1..]),
        u if u.starts_with('G') => (1e9, &u[1..]),
        u if u.starts_with('T') => (1e12, &u[1..]),
        u => (1.0, u),
    };
    let per_unit = match rest {
        "" | "b" | "bit" | "bits" => 1.0,
        "B" | "byte" | "bytes" => 8.0,
        _ => {
            return Err(format!(
                "unknown unit in '{s}': use bits (b, bit, bits) or bytes (B) with k/M/G/T or Ki/Mi/Gi/Ti"
            ));
        }
    };
    let bits = (value * prefix * per_unit).round();
    if !bits.is_finite() || bits < 1.0 {
        return Err("m must be at least 1 bit".into());
    }
    if bits >= u64::MAX as f64 {
        return Err("m must be below 2^64 bits".into());
    }
    Ok(bits as u64)
}

/// A filter name (`standard`, `counting`, …).
pub fn parse_filter(s: &str) -> Result<bloomlab::FilterKind, String> {
    s.parse().map_err(|e: bloomlab::Error| e.to_string())
}

/// A hash function name (`xxh3`, `murmur3`, …).
pub fn parse_hash(s: &str) -> Result<bloomlab::hash::HashId, String> {
    s.parse().map_err(|e: bloomlab::Error| e.to_string())
}

/// An index strategy name (`double`, `enhanced-double`, …).
pub fn parse_strategy(s: &str) -> Result<bloomlab::hash::StrategyId, String> {
    s.parse().map_err(|e: bloomlab::Error| e.to_string())
}

/// Cuckoo fingerprint bits: 8, 12 or 16, or 0 (chosen from p).
pub fn parse_fp_bits(s: &str) -> Result<u32, String> {
    match s.parse::<u32>() {
        Ok(f @ (0 | 8 | 12 | 16)) => Ok(f),
        _ => Err("fingerprint-bits must be 8, 12 or 16 (or 0: chosen from p)".into()),
    }
}

/// Scalable growth factor: a number > 1 and <= 16.
pub fn parse_growth(s: &str) -> Result<f64, String> {
    match s.parse::<f64>() {
        Ok(g) if g.is_finite() && g > 1.0 && g <= 16.0 => Ok(g),
        _ => Err("growth must be a number > 1 and <= 16 (e.g. 2)".into()),
    }
}

/// Scalable tightening ratio: strictly between 0 and 1.
pub fn parse_tightening(s: &str) -> Result<f64, String> {
    match s.parse::<f64>() {
        Ok(r) if r > 0.0 && r < 1.0 => Ok(r),
        _ => Err("tightening must be strictly between 0 and 1 (e.g. 0.5)".into()),
    }
}

/// `k`: an integer from 1 to 64.
pub fn parse_k(s: &str) -> Result<u32, String> {
    match s.trim().parse::<u32>() {
        Ok(k) if (1..=MAX_K).contains(&k) => Ok(k),
        _ => Err(format!("k must be an integer from 1 to {MAX_K}")),
    }
}

/// Group digits: 9585058 -> "9,585,058".
pub fn thousands(v: u64) -> String {
    let s = v.to_string();
    let mut out = String::new();
    for (i, c) in s.chars().enumerate() {
        if i > 0 && (s.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    out
}

/// Bytes as "1.198 MB = 1.143 MiB" (both, because the articles mix them up).
pub fn human_bytes(bytes: f64) -> String {
    let units = [("kB", "KiB"), ("MB", "MiB"), ("GB", "GiB"), ("TB", "TiB")];
    let mut dec = String::from("");
    let mut bin = String::from("");
    for (i, (d, b)) in units.iter().enumerate().rev() {
        let p = (i + 1) as i32;
        if dec.is_empty() && bytes >= 1000f64.powi(p) {
            dec = format!("{:.3} {d}", bytes / 1000f64.powi(p));
        }
        if bin.is_empty() && bytes >= 1024f64.powi(p) {
            bin = format!("{:.3} {b}", bytes / 1024f64.powi(p));
        }
    }
    if dec.is_empty() {
        return format!("{bytes:.0} B");
    }
    if bin.is_empty() {
        bin = format!("{bytes:.0} B");
    }
    format!("{dec} = {bin}")
}

/// A probability as a percentage with sensible digits.
pub fn pct(p: f64) -> String {
    if p == 0.0 {
        "0%".into()
    } else if p >= 0.001 {
        format!("{:.4}%", p * 100.0)
    } else {
        format!("{:.3e}", p)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn m_units() {
        assert_eq!(parse_m("9585058"), Ok(9_585_058));
        assert_eq!(parse_m("64KiB"), Ok(64 * 1024 * 8));
        assert_eq!(parse_m("1.2MB"), Ok(9_600_000));
        assert_eq!(parse_m("10Mbit"), Ok(10_000_000));
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
        for bad in ["0", "1", "1.5", "NaN", "-1%", "abc", "1/0"] {
            assert!(parse_p(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn n_and_k() {
        assert_eq!(parse_n("1,000,000"), Ok(1_000_000));
        assert_eq!(parse_n("1e6"), Ok(1_000_000));
        assert!(parse_n("0").is_err() && parse_n("-5").is_err() && parse_n("2.5").is_err());
        assert_eq!(parse_k("7"), Ok(7));
        assert!(parse_k("0").is_err() && parse_k("1000").is_err());
    }

    #[test]
    fn formatting() {
        assert_eq!(thousands(9_585_058), "9,585,058");
        assert_eq!(human_bytes(1_198_133.0), "1.198 MB = 1.143 MiB");
    }
}
