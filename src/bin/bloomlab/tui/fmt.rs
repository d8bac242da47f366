//! Number formatting for the screens and parsing of typed values.

/// `9585058` → `"9,585,058"`.
pub fn int(v: u64) -> String {
    let s = v.to_string();
    let mut out = String::with_capacity(s.len() + s.len() / 3);
    for (i, c) in s.chars().enumerate() {
        if i > 0 && (s.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    out
}

/// A probability: `0.010039` → `"1.004%"`, `0.0000123` → `"1.23e-5"`, with 4 significant digits.
pub fn prob(p: f64) -> String {
    if p.is_nan() {
        return "n/a".into();
    }
    if p == 0.0 {
        return "0".into();
    }
    if p >= 1e-3 {
        let pct = p * 100.0;
        let decimals = if pct >= 10.0 {
            2
        } else if pct >= 1.0 {
            3
        } else {
            4
        };
        format!("{pct:.decimals$}%")
    } else {
        sci(p)
    }
}

/// Scientific notation with 3 significant digits: `1.23e-5`.
pub fn sci(v: f64) -> String {
    if v == 0.0 || !v.is_finite() {
        return format!("{v}");
    }
    let e = v.abs().log10().floor() as i32;
    let mant = v / 10f64.powi(e);
    // 9.999 may round up to 10.00
    let (mant, e) = if mant.abs() >= 9.995 {
        (mant / 10.0, e + 1)
    } else {
        (mant, e)
    };
    format!("{mant:.2}e{e}")
}

/// Decimal bytes: `1198133` → `"1.20 MB"` (decimal units, as the articles' table uses).
pub fn bytes(b: f64) -> String {
    const UNITS: [&str; 6] = ["B", "kB", "MB", "GB", "TB", "PB"];
    let mut v = b;
    let mut u = 0;
    while v >= 1000.0 && u + 1 < UNITS.len() {
        v /= 1000.0;
        u += 1;
    }
    if u == 0 {
        format!("{v:.0} B")
    } else {
        format!("{v:.2} {}", UNITS[u])
    }
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

/// Parse a count: `1000000`, `1,000,000`, `1_000_000`, `1e6`, `2^20`, `10k`, `1M`, `1G`.
pub fn parse_count(s: &str) -> Result<u64, String> {
    let t: String = s
        .trim()
        .chars()
        .filter(|c| *c != ',' && *c != '_' && !c.is_whitespace())
        .collect();
    if t.is_empty() {
        return Err("empty".into());
    }
    if let Some((b, e)) = t.split_once('^') {
        let b: u64 = b.parse().map_err(|_| format!("'{s}' is not a number"))?;
        let e: u32 = e.parse().map_err(|_| format!("'{s}' is not a number"))?;
        return b
            .checked_pow(e)
            .ok_or_else(|| format!("'{s}' is too large"));
    }
    let lower = t.to_ascii_lowercase();
    let (num, mult) = match lower.chars().last() {
        Some('k') => (&lower[..lower.len() - 1], 1e3),
        Some('m') => (&lower[..lower.len() - 1], 1e6),
        Some('g') => (&lower[..lower.len() - 1], 1e9),
        Some('t') => (&lower[..lower.len() - 1], 1e12),
        _ => (lower.as_str(), 1.0),
    };
    let v: f64 = num.parse().map_err(|_| format!("'{s}' is not a number"))?;
    let v = v * mult;
    if !v.is_finite() || v < 0.0 {
        return Err(format!("'{s}' is not a count"));
    }
    if v >= u64::MAX as f64 {
        return Err(format!("'{s}' is too large"));
    }
    if (v - v.round()).abs() > 1e-9 * v.max(1.0) {
        return Err(format!("'{s}' is not a whole number"));
    }
    Ok(v.round() as u64)
}

/// Parse a bit count with optional byte units: `9585058`, `2^16`, `64KiB`, `1.2MB`, `1GB`
/// (units ending in `B` are bytes and multiplied by 8; plain numbers are bits).
pub fn parse_bits(s: &str) -> Result<u64, String> {
    let t: String = s
        .trim()
        .chars()
        .filter(|c| *c != ',' && *c != '_' && !c.is_whitespace())
        .collect();
    let units: [(&str, f64); 8] = [
        ("kib", 1024.0),
        ("mib", 1024.0 * 1024.0),
        ("gib", 1024.0 * 1024.0 * 1024.0),
        ("kb", 1e3),
        ("mb", 1e6),
        ("gb", 1e9),
        ("b", 1.0),
        ("bits", -1.0),
    ];
    let lower = t.to_ascii_lowercase();
    for (u, mult) in units {
        if let Some(num) = lower.strip_suffix(u) {
            if mult < 0.0 {
                return parse_count(num);
            }
            let v: f64 = num.parse().map_err(|_| format!("'{s}' is not a size"))?;
            let bits = v * mult * 8.0;
            if !bits.is_finite() || bits < 0.0 || bits >= u64::MAX as f64 {
                return Err(format!("'{s}' is out of range"));
            }
            return Ok(bits.round() as u64);
        }
    }
    parse_count(&t)
}

/// Parse a probability: `0.01`, `1%`, `1/100`, `1e-3`.
pub fn parse_prob(s: &str) -> Result<f64, String> {
    let t = s.trim().replace(' ', "");
    let v = if let Some(pct) = t.strip_suffix('%') {
        pct.parse::<f64>()
            .map(|v| v / 100.0)
            .map_err(|_| format!("'{s}' is not a probability"))?
    } else if let Some((a, b)) = t.split_once('/') {
        let a: f64 = a.parse().map_err(|_| format!("'{s}' is not a fraction"))?;
        let b: f64 = b.parse().map_err(|_| format!("'{s}' is not a fraction"))?;
        a / b
    } else {
        t.parse::<f64>()
            .map_err(|_| format!("'{s}' is not a probability"))?
    };
    if v.is_nan() || v <= 0.0 || v >= 1.0 {
        return Err(format!("'{s}' must be strictly between 0 and 1"));
    }
    Ok(v)
}

/// Parse a positive decimal (bits per key).
pub fn parse_f64(s: &str) -> Result<f64, String> {
    let v: f64 = s
        .trim()
        .parse()
        .map_err(|_| format!("'{s}' is not a number"))?;
    if !v.is_finite() || v <= 0.0 {
        return Err(format!("'{s}' must be a positive number"));
    }
    Ok(v)
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
        assert_eq!(int(0), "0");
        assert_eq!(int(100), "100");
        assert_eq!(int(1000), "1,000");
        assert_eq!(prob(0.010_039), "1.004%");
        assert_eq!(prob(0.000_012_3), "1.23e-5");
        assert_eq!(prob(0.5), "50.00%");
        assert_eq!(bytes(1_198_133.0), "1.20 MB");
        assert_eq!(bytes(512.0), "512 B");
        assert_eq!(si(1e6), "1M");
        assert_eq!(si(25_000.0), "25k");
        assert_eq!(sci(9.999e-5), "1.00e-4");
    }

    #[test]
    fn parses() {
        assert_eq!(parse_count("1,000,000"), Ok(1_000_000));
        assert_eq!(parse_count("1e6"), Ok(1_000_000));
        assert_eq!(parse_count("2^16"), Ok(65_536));
        assert_eq!(parse_count("10k"), Ok(10_000));
        assert_eq!(parse_count("1M"), Ok(1_000_000));
        assert!(parse_count("abc").is_err());
        assert!(parse_count("1.5").is_err());
        assert!(parse_count("-3").is_err());
        assert!(parse_count("2^99").is_err());
        assert_eq!(parse_bits("64KiB"), Ok(64 * 1024 * 8));
        assert_eq!(parse_bits("1.2MB"), Ok(9_600_000));
        assert_eq!(parse_bits("9585058"), Ok(9_585_058));
        assert_eq!(parse_bits("2^16"), Ok(65_536));
        assert_eq!(parse_prob("1%"), Ok(0.01));
        assert_eq!(parse_prob("1/100"), Ok(0.01));
        assert_eq!(parse_prob("0.001"), Ok(0.001));
        assert!(parse_prob("1.5").is_err());
        assert!(parse_prob("0").is_err());
        assert!(parse_prob("x").is_err());
        assert!(parse_f64("-1").is_err());
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
}
