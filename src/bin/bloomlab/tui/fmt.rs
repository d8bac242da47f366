//! Number formatting for the screens and parsing of typed values: thin wrappers over
//! `bloomlab::units` (the same parsers and formats as the command line), plus the TUI's own
//! axis labels and 1-2-5 steps.

use bloomlab::units;
use bloomlab::{Error, Param};

/// `9585058` → `"9,585,058"`.
pub fn int(v: u64) -> String {
    units::thousands(v)
}

/// A probability, as everywhere: `0.010039` → `"1.004%"`, `1.23e-5` → `"1.230e-5"`.
pub fn prob(p: f64) -> String {
    units::format_prob(p)
}

/// `N` of "1 in N" for a rate `p` (0 < p < 1), three significant digits: `99.6`, `1,074`,
/// `10.7k`, `1.07M`, beyond 10^15 `1.2e15`.
pub fn one_in_n(p: f64) -> String {
    let n = 1.0 / p;
    if n < 100.0 {
        let digits = if n < 10.0 { 2 } else { 1 };
        format!("{n:.digits$}")
    } else if n < 1e4 {
        int(n.round() as u64)
    } else if n < 1e15 {
        let (div, suffix) = [(1e12, "T"), (1e9, "G"), (1e6, "M"), (1e3, "k")]
            .into_iter()
            .find(|(d, _)| n >= *d)
            .unwrap_or((1.0, ""));
        let x = n / div;
        let digits = if x < 10.0 {
            2
        } else if x < 100.0 {
            1
        } else {
            0
        };
        format!("{x:.digits$}{suffix}")
    } else {
        format!("{n:.1e}")
    }
}

/// A rate as a percentage ([`prob`]) or, when `one_in` is set (the `o` toggle), as "1 in N".
pub fn rate(p: f64, one_in: bool) -> String {
    if !one_in || p.is_nan() {
        prob(p)
    } else if p <= 0.0 {
        "0".into()
    } else if p >= 1.0 {
        "1 in 1".into()
    } else {
        format!("1 in {}", one_in_n(p))
    }
}

/// A measured rate `p` and its 95% interval `[lo, hi]` with the digits the interval supports
/// (the library's rule, [`bloomlab::stats::RateText`]): as percentages (scientific below
/// 10^-4) or, when `one_in` is set, as "1 in N" with N to the same significant digits.
/// Returns (rate, lo, hi).
pub fn measured(p: f64, lo: f64, hi: f64, one_in: bool) -> (String, String, String) {
    let t = bloomlab::stats::RateText::new(p, lo, hi);
    if !one_in || p.is_nan() {
        return (t.rate, t.lo, t.hi);
    }
    let d = t.digits;
    (one_in_sig(p, d), one_in_sig(lo, d), one_in_sig(hi, d))
}

/// "1 in N" with N to `d` significant digits (`0`, `1 in 1` at the ends).
fn one_in_sig(p: f64, d: usize) -> String {
    if p <= 0.0 {
        return "0".into();
    }
    if p >= 1.0 {
        return "1 in 1".into();
    }
    let n = 1.0 / p;
    // N rounded to d significant digits, then printed with no more digits than that.
    let e = n.log10().floor() as i32;
    let scale = 10f64.powi(e + 1 - d as i32);
    let r = (n / scale).round() * scale;
    let (x, suffix) = [(1e12, "T"), (1e9, "G"), (1e6, "M"), (1e3, "k")]
        .into_iter()
        .find(|(div, _)| r >= 1e4 && r >= *div)
        .map_or((r, ""), |(div, s)| (r / div, s));
    let decimals = (d as i32 - 1 - x.log10().floor() as i32).max(0) as usize;
    if suffix.is_empty() && decimals == 0 {
        format!("1 in {}", int(x.round() as u64))
    } else {
        format!("1 in {x:.decimals$}{suffix}")
    }
}

/// Decimal bytes for table cells: `1198133` → `"1.20 MB"`.
pub fn bytes(b: f64) -> String {
    units::format_bytes_short(b)
}

/// Short SI form for axis labels: `1000000` → `"1M"`, `25000` → `"25k"`.
pub fn si(v: f64) -> String {
    let (div, suffix) = if v >= 1e12 {
        (1e12, "T")
    } else if v >= 1e9 {
        (1e9, "G")
    } else if v >= 1e6 {
        (1e6, "M")
    } else if v >= 1e3 {
        (1e3, "k")
    } else {
        (1.0, "")
    };
    let x = v / div;
    if (x - x.round()).abs() < 0.05 {
        format!("{:.0}{suffix}", x.round())
    } else {
        format!("{x:.1}{suffix}")
    }
}

/// Nanoseconds per operation.
pub fn ns(v: f64) -> String {
    if v >= 100.0 {
        format!("{v:.0}")
    } else {
        format!("{v:.1}")
    }
}

/// A refusal as the status line shows it: the input and why, then the accepted forms (the
/// field's label is already in front of it).
fn why(e: Error) -> String {
    units::describe(&e)
}

/// Parse a count (n, k): `1000000`, `1,000,000`, `1_000_000`, `1e6`, `2^20`, `10k`, `1M`.
pub fn parse_count(s: &str) -> Result<u64, String> {
    units::parse_count(s, Param::N).map_err(why)
}

/// Parse m: a bare number is bits, `b`/`bit`/`bits` bits, `B`/`byte`/`bytes` bytes; SI and IEC
/// prefixes (`1Mb` = 10^6 bits, `1MB` = 8·10^6 bits, `64KiB`, `10Mbit`).
pub fn parse_bits(s: &str) -> Result<u64, String> {
    units::parse_bits(s, Param::M).map_err(why)
}

/// Parse a probability: `0.01`, `1%`, `1/100`, `1 in 100`, `1e-3`.
pub fn parse_prob(s: &str) -> Result<f64, String> {
    units::parse_prob(s, Param::P).map_err(why)
}

/// Parse a positive decimal (bits per key).
pub fn parse_f64(s: &str) -> Result<f64, String> {
    match units::parse_number(s, Param::Other("bits/key")).map_err(why)? {
        v if v > 0.0 => Ok(v),
        v => Err(format!("'{}' = {v} must be a positive number", s.trim())),
    }
}

/// The next value of the 1-2-5 series above `v` (`up`) or below it (`!up`).
pub fn step_125(v: f64, up: bool) -> f64 {
    let e = v.log10().floor();
    let base = 10f64.powf(e);
    let series = [1.0, 2.0, 5.0, 10.0, 20.0];
    let eps = 1e-9;
    if up {
        for s in series {
            let c = s * base;
            if c > v * (1.0 + eps) {
                return c;
            }
        }
        20.0 * base
    } else {
        let down = [5.0, 2.0, 1.0, 0.5, 0.2, 0.1];
        for s in down {
            let c = s * base;
            if c < v * (1.0 - eps) {
                return c;
            }
        }
        0.05 * base
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn formats() {
        assert_eq!(int(9_585_058), "9,585,058");
        assert_eq!(prob(0.010_039), "1.004%");
        assert_eq!(prob(0.000_012_3), "1.230e-5");
        assert_eq!(prob(0.5), "50.00%");
        assert_eq!(bytes(1_198_133.0), "1.20 MB");
        assert_eq!(si(1e6), "1M");
        assert_eq!(si(25_000.0), "25k");
    }

    #[test]
    fn parses() {
        assert_eq!(parse_count("2^16"), Ok(65_536));
        assert_eq!(parse_bits("1Mb"), Ok(1_000_000));
        assert_eq!(parse_bits("10Mbit"), Ok(10_000_000));
        assert_eq!(parse_prob("1 in 1000"), Ok(0.001));
        assert!(parse_f64("-1").is_err() && parse_f64("0").is_err());
        assert_eq!(parse_f64("9.6"), Ok(9.6));
        let e = parse_bits("1mb").unwrap_err();
        assert!(e.starts_with("'1mb' has an unknown unit"), "{e}");
    }

    #[test]
    fn steps_follow_the_125_series() {
        assert_eq!(step_125(1_000_000.0, true), 2_000_000.0);
        assert_eq!(step_125(2_000_000.0, true), 5_000_000.0);
        assert_eq!(step_125(5_000_000.0, true), 10_000_000.0);
        assert_eq!(step_125(1_000_000.0, false), 500_000.0);
        assert!((step_125(0.01, false) - 0.005).abs() < 1e-15);
        assert!((step_125(0.01, true) - 0.02).abs() < 1e-15);
        assert_eq!(step_125(3_000.0, true), 5_000.0);
        assert_eq!(step_125(3_000.0, false), 2_000.0);
    }

    #[test]
    fn one_in_n_reads_the_rate_the_other_way_up() {
        assert_eq!(rate(0.010_04, true), "1 in 99.6");
        assert_eq!(rate(0.010_04, false), "1.004%");
        assert_eq!(rate(0.4065, true), "1 in 2.46");
        assert_eq!(rate(0.000_931, true), "1 in 1,074");
        assert_eq!(rate(1.0 / 10_700.0, true), "1 in 10.7k");
        assert_eq!(rate(1.0 / 1_070_000.0, true), "1 in 1.07M");
        assert_eq!(rate(1e-16, true), "1 in 1.0e16");
        assert_eq!(
            (rate(0.0, true).as_str(), rate(1.0, true).as_str()),
            ("0", "1 in 1")
        );
        // Below 10^4 the text is a valid p for the typed fields, and means the same rate.
        let back = parse_prob(&rate(0.000_931, true).replace(',', "")).unwrap();
        assert!((back - 1.0 / 1074.0).abs() < 1e-12, "{back}");
    }

    #[test]
    fn measured_rates_keep_the_supported_digits_either_way_up() {
        // 4 of 50,000 (Wilson 3.1e-5 to 2.06e-4): one digit.
        let (lo, hi) = bloomlab::stats::wilson(4, 50_000, bloomlab::stats::Z95);
        assert_eq!(
            measured(8e-5, lo, hi, false),
            ("8e-5".into(), "3e-5".into(), "2e-4".into())
        );
        assert_eq!(
            measured(8e-5, lo, hi, true),
            ("1 in 10k".into(), "1 in 30k".into(), "1 in 5,000".into())
        );
        // 10,040 of 10^6: three digits.
        let (lo, hi) = bloomlab::stats::wilson(10_040, 1_000_000, bloomlab::stats::Z95);
        assert_eq!(measured(0.010_04, lo, hi, false).0, "1.00%");
        assert_eq!(measured(0.010_04, lo, hi, true).0, "1 in 99.6");
        assert_eq!(measured(0.0, 0.0, 7.7e-5, true).0, "0");
    }
}
