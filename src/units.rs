//! The numbers people type and read: counts, probabilities and sizes, parsed and formatted one
//! way for every front end.
//!
//! `bloomlab calc`, `measure`, `build`, `redis` and the TUI's fields all read their numbers
//! through this module, so `1Mb` is 10^6 bits everywhere and a refusal names the input and the
//! forms that would have been accepted (an [`Error::InvalidParameter`] naming the parameter).
//!
//! # Accepted forms
//!
//! | kind | form | examples | value |
//! |---|---|---|---|
//! | count | integer | `1000` | 1,000 |
//! | count | `_` between digits | `1_000_000` | 1,000,000 |
//! | count | `,` as thousands separator (groups of exactly three) | `1,000,000` | 1,000,000 |
//! | count | scientific, when the value is whole | `1e6`, `2.5e3` | 1,000,000; 2,500 |
//! | count | power of integers | `2^20` | 1,048,576 |
//! | count | SI suffix `k` or `K`, `M`, `G`, `T` (10^3, 10^6, 10^9, 10^12) | `10k`, `1.5M` | 10,000; 1,500,000 |
//! | count | IEC suffix `Ki`, `Mi`, `Gi`, `Ti` (2^10, 2^20, 2^30, 2^40) | `4Ki` | 4,096 |
//! | probability | decimal or scientific | `0.01`, `1e-30` | 0.01; 10^-30 |
//! | probability | percent | `1%`, `0.1 %` | 0.01; 0.001 |
//! | probability | fraction | `1/100` | 0.01 |
//! | probability | one in N | `1 in 100`, `1 in 1,000` | 0.01; 0.001 |
//! | size | bare number (any count form): bits | `9585058`, `2^20`, `1M` | 9,585,058; 1,048,576; 10^6 bits |
//! | size | `b`, `bit`, `bits`: bits | `1Mb`, `10Mbit`, `512 bits` | 10^6; 10^7; 512 bits |
//! | size | `B`, `byte`, `bytes`: bytes of 8 bits | `1MB`, `1.2MB`, `64KiB` | 8·10^6; 9.6·10^6; 524,288 bits |
//! | size | prefixes as for counts, before the unit | `1kB`, `1KB`, `3Kibit`, `1 GiB` | 8,000; 8,000; 3,072; 2^33 bits |
//!
//! Rules, the same for every form:
//! - Whitespace around the input and between a number and its suffix or unit is ignored; none
//!   is allowed inside a number.
//! - Counts and sizes must come out whole: `2.5`, `1.5b` and `0.3KiB` (2,457.6 bits) are
//!   refused, never rounded. The arithmetic is exact (`1.2MB` is 9,600,000 bits, not a float).
//! - Case matters in sizes: `b` is a bit and `B` a byte; `m` is not a prefix, so `1mb` is
//!   refused (with a hint) rather than guessed. `K` is `k` = 1000; 1024 is written `Ki`.
//! - A comma only separates thousands: `1,000,000` is a million, `1,5` is refused (a decimal
//!   comma would be ambiguous), and `1,00` is refused.
//! - Negative values, NaN, infinity and integers above 2^64 − 1 are refused. A probability must
//!   be strictly between 0 and 1; one that underflows to 0 (`1e-400`) is refused.
//!
//! Every row above is in [`EXAMPLES`], which the unit tests, the TUI's field tests and the
//! `bloomlab calc` integration test all run: one table, every front end.
//!
//! # Formatting
//!
//! | what | function | example |
//! |---|---|---|
//! | count | [`thousands`] | `9,585,058` |
//! | probability | [`format_prob`]: percent with 4 significant digits from 10^-4 up, scientific below | `1.004%`, `0.01000%`, `1.007e-18` |
//! | probability | [`format_one_in`] | `1 in 100`, `1 in 9.930e17` |
//! | bits | [`format_bits`] | `9,585,058 bits` |
//! | bytes | [`format_bytes`]: decimal and binary units side by side | `1.198 MB = 1.143 MiB` |
//! | bytes, short | [`format_bytes_short`]: decimal units, for table cells | `1.20 MB` |
//!
//! ```
//! use bloomlab::units::{parse_bits, parse_count, parse_prob, format_prob};
//! use bloomlab::Param;
//! assert_eq!(parse_bits("1Mb", Param::M).unwrap(), 1_000_000);
//! assert_eq!(parse_bits("1MB", Param::M).unwrap(), 8_000_000);
//! assert_eq!(parse_count("2^20", Param::N).unwrap(), 1 << 20);
//! assert_eq!(parse_prob("1 in 1000", Param::P).unwrap(), 0.001);
//! assert_eq!(format_prob(1.0074e-18), "1.007e-18");
//! assert!(parse_bits("1mb", Param::M).is_err());
//! ```

use crate::error::{Error, Param, Result};
use std::ops::RangeInclusive;

macro_rules! count_examples {
    () => {
        "1000, 1_000_000, 1,000,000, 1e6, 2^20, 10k, 1.5M (k M G T) or 4Ki (Ki Mi Gi Ti)"
    };
}
/// The count forms, as named in refusals.
pub const COUNT_FORMS: &str = concat!("a whole number: ", count_examples!());
/// The probability forms, as named in refusals.
pub const PROB_FORMS: &str =
    "a probability strictly between 0 and 1: 0.01, 1%, 1/100, 1 in 100 or 1e-30";
/// The size forms, as named in refusals.
pub const SIZE_FORMS: &str = "a whole number of bits: 9585058, 2^20, 1Mb, 10Mbit (b/bit/bits), or of bytes: \
     1.2MB, 64KiB (B/byte/bytes); prefixes k M G T (10^3..) and Ki Mi Gi Ti (2^10..), case-sensitive";
/// The plain-number forms, as named in refusals.
pub const NUMBER_FORMS: &str = "a non-negative number: 2, 0.5, 1e-3";

// ---------------------------------------------------------------------------------------------
// The number grammar

/// Why a number was refused (the words after the quoted input).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Why {
    Empty,
    NotNumber,
    Negative,
    Separators,
    TooLarge,
    NotWhole,
    TooManyDigits,
    ZeroDenominator,
    FloatRange,
}

impl Why {
    fn words(self) -> &'static str {
        match self {
            Why::Empty => "is empty",
            Why::NotNumber => "is not a number",
            Why::Negative => "is negative",
            Why::Separators => {
                "has misplaced separators (commas group digits by three: 1,000,000; or 1_000_000)"
            }
            Why::TooLarge => "is too large (above 2^64 - 1)",
            Why::NotWhole => "is not a whole number",
            Why::TooManyDigits => "has more than 38 significant digits",
            Why::ZeroDenominator => "divides by zero",
            Why::FloatRange => "is outside the range of a 64-bit float",
        }
    }
}

/// An exact decimal `digits · 10^exp`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Decimal {
    digits: u128,
    exp: i64,
}

impl Decimal {
    /// `self · mult` as an integer, when it is one.
    fn times(self, mult: u128) -> std::result::Result<u128, Why> {
        if self.digits == 0 {
            return Ok(0);
        }
        let v = self.digits.checked_mul(mult).ok_or(Why::TooLarge)?;
        let e = u32::try_from(self.exp.unsigned_abs()).unwrap_or(u32::MAX);
        if self.exp >= 0 {
            let scale = 10u128.checked_pow(e).ok_or(Why::TooLarge)?;
            v.checked_mul(scale).ok_or(Why::TooLarge)
        } else {
            // v < 2^128 < 10^39: a larger divisor never divides it.
            match 10u128.checked_pow(e) {
                Some(d) if v % d == 0 => Ok(v / d),
                _ => Err(Why::NotWhole),
            }
        }
    }

    /// The nearest `f64` (correctly rounded by the standard library's parser).
    fn to_f64(self) -> f64 {
        format!("{}e{}", self.digits, self.exp)
            .parse()
            .unwrap_or(f64::NAN)
    }
}

/// Split `t` into the number at its start and the rest (a suffix or unit). `e`/`E` belong to
/// the number only when an exponent follows (`1e6`), so `1EiB` is a number and a unit.
fn split_number(t: &str) -> (&str, &str) {
    let b = t.as_bytes();
    let digit = |i: usize| b.get(i).is_some_and(u8::is_ascii_digit);
    let mut i = 0;
    while i < b.len() {
        match b[i] {
            c if c.is_ascii_digit() => {}
            b'_' | b',' | b'.' | b'^' => {}
            b'e' | b'E' if digit(i + 1) => {}
            b'e' | b'E' if matches!(b.get(i + 1), Some(b'+' | b'-')) && digit(i + 2) => i += 1,
            _ => break,
        }
        i += 1;
    }
    t.split_at(i)
}

/// Digits with `_` only between two digits; `_` removed.
fn plain_digits(s: &str) -> std::result::Result<String, Why> {
    let b = s.as_bytes();
    for (i, &c) in b.iter().enumerate() {
        let ok = c.is_ascii_digit()
            || (c == b'_'
                && i > 0
                && b[i - 1].is_ascii_digit()
                && b.get(i + 1).is_some_and(u8::is_ascii_digit));
        if !ok {
            return Err(if c == b'_' || c == b',' {
                Why::Separators
            } else {
                Why::NotNumber
            });
        }
    }
    Ok(s.replace('_', ""))
}

/// The integer part of a number: plain digits, or comma-grouped by three (`1,000,000`).
fn integer_digits(s: &str) -> std::result::Result<String, Why> {
    if !s.contains(',') {
        return plain_digits(s);
    }
    if s.contains('_') {
        return Err(Why::Separators);
    }
    let mut groups = s.split(',');
    let first = groups.next().unwrap_or("");
    if first.is_empty() || first.len() > 3 {
        return Err(Why::Separators);
    }
    let mut out = plain_digits(first)?;
    for g in groups {
        if g.len() != 3 {
            return Err(Why::Separators);
        }
        out.push_str(&plain_digits(g)?);
    }
    Ok(out)
}

/// Parse a number (no suffix): `1000`, `1_000`, `1,000`, `2.5`, `.5`, `1e6`, `2^20`.
fn parse_decimal(num: &str) -> std::result::Result<Decimal, Why> {
    if num.is_empty() {
        return Err(Why::Empty);
    }
    if let Some((base, exp)) = num.split_once('^') {
        let base: u128 = plain_digits(base)?.parse().map_err(|_| Why::NotNumber)?;
        let exp: u32 = plain_digits(exp)?.parse().map_err(|_| Why::NotNumber)?;
        let v = base.checked_pow(exp).ok_or(Why::TooLarge)?;
        return Ok(Decimal { digits: v, exp: 0 });
    }
    let (mant, exp) = match num.find(['e', 'E']) {
        Some(i) => (&num[..i], Some(&num[i + 1..])),
        None => (num, None),
    };
    let mut exp10: i64 = match exp {
        None => 0,
        Some(e) => {
            let (neg, digits) = match e.as_bytes().first() {
                Some(b'-') => (true, &e[1..]),
                Some(b'+') => (false, &e[1..]),
                _ => (false, e),
            };
            let d = plain_digits(digits)?;
            if d.is_empty() {
                return Err(Why::NotNumber);
            }
            // Saturate: 1e99999999999 is simply too large, 1e-99999999999 not whole.
            let v: i64 = d.parse().unwrap_or(1 << 40).min(1 << 40);
            if neg { -v } else { v }
        }
    };
    let (int, frac) = mant.split_once('.').unwrap_or((mant, ""));
    if frac.contains('.') || (int.is_empty() && frac.is_empty()) {
        return Err(Why::NotNumber);
    }
    let mut digits = if int.is_empty() {
        String::new()
    } else {
        integer_digits(int)?
    };
    if !frac.is_empty() {
        if frac.contains(',') {
            return Err(Why::Separators);
        }
        let f = plain_digits(frac)?;
        exp10 -= f.len() as i64;
        digits.push_str(&f);
    }
    let trimmed = digits.trim_start_matches('0');
    let sig = trimmed.trim_end_matches('0');
    exp10 += (trimmed.len() - sig.len()) as i64;
    if sig.is_empty() {
        return Ok(Decimal { digits: 0, exp: 0 });
    }
    if sig.len() > 38 {
        return Err(Why::TooManyDigits);
    }
    let digits = sig.parse().map_err(|_| Why::NotNumber)?;
    Ok(Decimal { digits, exp: exp10 })
}

/// The prefixes of counts and sizes, longest first where one begins another.
const PREFIXES: [(&str, u128); 9] = [
    ("Ki", 1 << 10),
    ("Mi", 1 << 20),
    ("Gi", 1 << 30),
    ("Ti", 1 << 40),
    ("k", 1_000),
    ("K", 1_000),
    ("M", 1_000_000),
    ("G", 1_000_000_000),
    ("T", 1_000_000_000_000),
];

/// Strip a prefix from the start of a unit: (multiplier, rest).
fn split_prefix(u: &str) -> (u128, &str) {
    PREFIXES
        .iter()
        .find_map(|(p, v)| u.strip_prefix(p).map(|rest| (*v, rest)))
        .unwrap_or((1, u))
}

fn refuse(param: Param, s: &str, why: impl std::fmt::Display, forms: &str) -> Error {
    Error::invalid(param, format!("'{}' {why}", s.trim()), forms)
}

/// The number and the suffix of `s`, with a leading minus refused as negative.
fn number_and_suffix(s: &str) -> std::result::Result<(Decimal, &str), Why> {
    let t = s.trim();
    if t.is_empty() {
        return Err(Why::Empty);
    }
    if t.starts_with('-') {
        return Err(Why::Negative);
    }
    let (num, rest) = split_number(t);
    if num.is_empty() {
        return Err(Why::NotNumber);
    }
    Ok((parse_decimal(num)?, rest.trim()))
}

fn to_u64(v: u128) -> std::result::Result<u64, Why> {
    u64::try_from(v).map_err(|_| Why::TooLarge)
}

// ---------------------------------------------------------------------------------------------
// Parsing

/// A count (see the [module docs](self) for the forms), any value from 0 to 2^64 − 1.
///
/// # Errors
/// [`Error::InvalidParameter`] naming `param`, the input and [`COUNT_FORMS`].
pub fn parse_count(s: &str, param: Param) -> Result<u64> {
    let bad = |why: Why| refuse(param, s, why.words(), COUNT_FORMS);
    let (d, suffix) = number_and_suffix(s).map_err(bad)?;
    let (mult, rest) = split_prefix(suffix);
    if !rest.is_empty() {
        return Err(refuse(
            param,
            s,
            format_args!("has an unknown suffix '{suffix}'"),
            COUNT_FORMS,
        ));
    }
    d.times(mult).and_then(to_u64).map_err(bad)
}

/// A count in `range` (e.g. `1..=u64::MAX` for n).
///
/// # Errors
/// As [`parse_count`], and when the value is outside the range.
pub fn parse_count_in(s: &str, param: Param, range: RangeInclusive<u64>) -> Result<u64> {
    let v = parse_count(s, param)?;
    let (lo, hi) = (*range.start(), *range.end());
    let why = if v < lo {
        format!("is below {}", thousands(lo))
    } else if v > hi {
        format!("is above {}", thousands(hi))
    } else {
        return Ok(v);
    };
    let forms = if hi == u64::MAX {
        format!("a whole number >= {}: {}", thousands(lo), count_examples!())
    } else {
        format!("a whole number from {} to {}", thousands(lo), thousands(hi))
    };
    Err(refuse(param, s, why, &forms))
}

/// A size in bits (see the [module docs](self)): a bare number is bits, `b`/`bit`/`bits` are
/// bits, `B`/`byte`/`bytes` are 8 bits; SI and IEC prefixes; case-sensitive.
///
/// # Errors
/// [`Error::InvalidParameter`] naming `param`, the input and [`SIZE_FORMS`].
pub fn parse_bits(s: &str, param: Param) -> Result<u64> {
    let bad = |why: Why| {
        let why = if why == Why::NotWhole {
            "is not a whole number of bits"
        } else {
            why.words()
        };
        refuse(param, s, why, SIZE_FORMS)
    };
    let (d, unit) = number_and_suffix(s).map_err(bad)?;
    let (prefix, rest) = split_prefix(unit);
    let per_unit = match rest {
        "" | "b" | "bit" | "bits" => 1,
        "B" | "byte" | "bytes" => 8,
        _ => {
            let hint = match unit.chars().next() {
                Some('m' | 'g' | 't') => {
                    " (prefixes are case-sensitive: M, G, T; and b = bit, B = byte)"
                }
                _ => "",
            };
            return Err(refuse(
                param,
                s,
                format_args!("has an unknown unit '{unit}'{hint}"),
                SIZE_FORMS,
            ));
        }
    };
    d.times(prefix * per_unit).and_then(to_u64).map_err(bad)
}

/// A plain non-negative real number: `2`, `0.5`, `1e-3`, `1_000.5` (no suffix, no NaN or
/// infinity).
///
/// # Errors
/// [`Error::InvalidParameter`] naming `param`, the input and [`NUMBER_FORMS`].
pub fn parse_number(s: &str, param: Param) -> Result<f64> {
    real(s).map_err(|why| refuse(param, s, why.words(), NUMBER_FORMS))
}

/// A real with no suffix.
fn real(s: &str) -> std::result::Result<f64, Why> {
    let (d, rest) = number_and_suffix(s)?;
    if !rest.is_empty() {
        return Err(Why::NotNumber);
    }
    finite(d)
}

/// The `f64` of `d`, refused when it overflows or underflows to 0.
fn finite(d: Decimal) -> std::result::Result<f64, Why> {
    let v = d.to_f64();
    if !v.is_finite() || (v == 0.0 && d.digits != 0) {
        return Err(Why::FloatRange);
    }
    Ok(v)
}

/// A probability strictly between 0 and 1: `0.01`, `1e-30`, `1%`, `1/100`, `1 in 100`.
///
/// # Errors
/// [`Error::InvalidParameter`] naming `param`, the input and [`PROB_FORMS`].
pub fn parse_prob(s: &str, param: Param) -> Result<f64> {
    let bad = |why: &str| refuse(param, s, why, PROB_FORMS);
    let t = s.trim();
    let lower = t.to_ascii_lowercase();
    let v = if let Some((a, b)) = one_in(&lower) {
        ratio(a, b).map_err(|w| bad(w.words()))?
    } else if let Some((a, b)) = t.split_once('/') {
        ratio(a, b).map_err(|w| bad(w.words()))?
    } else if let Some(pct) = t.strip_suffix('%') {
        let (d, rest) = number_and_suffix(pct).map_err(|w| bad(w.words()))?;
        if !rest.is_empty() {
            return Err(bad(Why::NotNumber.words()));
        }
        finite(Decimal {
            exp: d.exp - 2,
            ..d
        })
        .map_err(|w| bad(w.words()))?
    } else {
        real(t).map_err(|w| bad(w.words()))?
    };
    if v.is_nan() || v <= 0.0 || v >= 1.0 {
        // "'150%' = 1.5 is not …", but "'0' is not …".
        let shown = if t.parse::<f64>() == Ok(v) {
            String::new()
        } else {
            format!("= {} ", format_number(v))
        };
        return Err(bad(&format!("{shown}is not strictly between 0 and 1")));
    }
    Ok(v)
}

/// The two sides of "a in b" ("in" as a word of its own, so `inf` is not "in" + "f").
fn one_in(t: &str) -> Option<(&str, &str)> {
    let (a, b) = t.split_once("in")?;
    let word = |c: Option<char>| c.is_none_or(|c| !c.is_ascii_alphabetic());
    (word(a.chars().next_back()) && word(b.chars().next())).then_some((a, b))
}

/// `a / b` for "a/b" and "a in b".
fn ratio(a: &str, b: &str) -> std::result::Result<f64, Why> {
    let (a, b) = (real(a)?, real(b)?);
    if b == 0.0 {
        return Err(Why::ZeroDenominator);
    }
    let v = a / b;
    if v == 0.0 && a != 0.0 {
        return Err(Why::FloatRange);
    }
    Ok(v)
}

/// `n`: a count >= 1.
///
/// # Errors
/// As [`parse_count_in`], naming [`Param::N`].
pub fn parse_n(s: &str) -> Result<u64> {
    parse_count_in(s, Param::N, 1..=u64::MAX)
}

/// `p`: a probability strictly between 0 and 1.
///
/// # Errors
/// As [`parse_prob`], naming [`Param::P`].
pub fn parse_p(s: &str) -> Result<f64> {
    parse_prob(s, Param::P)
}

/// `m`: a size of at least 1 bit.
///
/// # Errors
/// As [`parse_bits`], naming [`Param::M`]; also for 0.
pub fn parse_m(s: &str) -> Result<u64> {
    match parse_bits(s, Param::M)? {
        0 => Err(refuse(Param::M, s, "is below 1 bit", SIZE_FORMS)),
        m => Ok(m),
    }
}

/// A refusal as a front end shows it beside the flag or field it is about (which already
/// names the parameter): `'1mb' has an unknown unit 'mb' … (valid: …)`. Other errors as they
/// display.
#[must_use]
pub fn describe(e: &Error) -> String {
    match e {
        Error::InvalidParameter { value, valid, .. } => format!("{value} (valid: {valid})"),
        e => e.to_string(),
    }
}

// ---------------------------------------------------------------------------------------------
// Formatting

/// Group digits by three: `9585058` → `"9,585,058"`.
#[must_use]
pub fn thousands(v: u64) -> String {
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

/// A probability, the one way it is printed everywhere: a percentage with 4 significant
/// digits from 10^-4 up (`1.004%`, `0.01000%`, `50.00%`), scientific with 4 significant digits
/// below (`1.007e-18`); `0` and `n/a` (NaN) as such.
#[must_use]
pub fn format_prob(p: f64) -> String {
    format_prob_sig(p, 4, p.abs() < 1e-4)
}

/// A probability with `digits` significant digits (at least 1), as a percentage
/// (`format_prob_sig(0.0008, 1, false)` → `0.08%`) or, when `scientific`, as `8e-4`; `0` and
/// `n/a` (NaN) as such. [`format_prob`] is this with 4 digits and the notation chosen at 10^-4;
/// a measured rate picks its digits from its interval ([`crate::stats::RateText`]).
#[must_use]
pub fn format_prob_sig(p: f64, digits: usize, scientific: bool) -> String {
    if p.is_nan() {
        return "n/a".into();
    }
    if p == 0.0 || !p.is_finite() {
        return format!("{p}");
    }
    let d = digits.max(1) - 1;
    if scientific {
        return format!("{p:.d$e}");
    }
    let pct = p * 100.0;
    // The exponent after rounding to `digits` significant digits (9.9996 rounds to 1.000e1).
    let rounded = format!("{pct:.d$e}");
    let e: i64 = rounded
        .split_once('e')
        .and_then(|(_, e)| e.parse().ok())
        .unwrap_or(0);
    let decimals = (d as i64 - e).max(0) as usize;
    format!("{pct:.decimals$}%")
}

/// A probability given by its natural logarithm, printed as [`format_prob`] does but valid far
/// below f64's range (`ln p = −1104.48` → `2.136e-480`): what the exact FPR gives for
/// over-provisioned filters. `−∞` prints as `0`.
#[must_use]
pub fn format_prob_ln(ln_p: f64) -> String {
    if ln_p.is_nan() {
        return "n/a".into();
    }
    if ln_p == f64::NEG_INFINITY {
        return "0".into();
    }
    let p = ln_p.exp();
    if p >= 1e-300 {
        return format_prob(p);
    }
    let log10 = ln_p / std::f64::consts::LN_10;
    let mut e = log10.floor();
    let mut mant = 10f64.powf(log10 - e);
    // 9.9996 rounds to 10.000: carry into the exponent.
    if format!("{mant:.3}").starts_with("10") {
        mant /= 10.0;
        e += 1.0;
    }
    format!("{mant:.3}e{e}")
}

/// An exact rate with its computed error bound: printed with as many digits as the bound
/// supports (at most 4 significant), or "n/a" (with the reason in `what`) where no bound could
/// be given. `rel_error` is the relative error bound of the value.
#[must_use]
pub fn format_prob_bounded(ln_p: f64, rel_error: f64) -> String {
    if !(rel_error.is_finite() && rel_error < 5e-5) {
        // Four significant digits need a relative error below half a unit in the last digit.
        return "n/a (no error bound small enough to print)".into();
    }
    format_prob_ln(ln_p)
}

/// A probability as "1 in N": `0.01` → `"1 in 100"`, `0.3` → `"1 in 3.3"`, below 10^-12
/// scientific (`"1 in 9.930e17"`).
#[must_use]
pub fn format_one_in(p: f64) -> String {
    if p.is_nan() {
        return "n/a".into();
    }
    if p <= 0.0 {
        return "never".into();
    }
    let n = 1.0 / p;
    if n >= 1e12 {
        format!("1 in {n:.3e}")
    } else if n >= 100.0 || (n - n.round()).abs() < 1e-9 * n {
        format!("1 in {}", thousands(n.round() as u64))
    } else {
        format!("1 in {n:.1}")
    }
}

/// "1 in N" for a probability given by its natural logarithm ([`format_one_in`] where `p` is in
/// f64's range; `ln p = −1104.48` → `"1 in 4.687e479"`).
#[must_use]
pub fn format_one_in_ln(ln_p: f64) -> String {
    if ln_p.is_nan() {
        return "n/a".into();
    }
    if ln_p == f64::NEG_INFINITY {
        return "never".into();
    }
    if ln_p > -690.0 {
        return format_one_in(ln_p.exp());
    }
    // 1/p = 10^(−log10 p); print it like format_prob_ln prints p.
    let log10 = -ln_p / std::f64::consts::LN_10;
    let mut e = log10.floor();
    let mut mant = 10f64.powf(log10 - e);
    if format!("{mant:.3}").starts_with("10") {
        mant /= 10.0;
        e += 1.0;
    }
    format!("1 in {mant:.3}e{e}")
}

/// A number as an error message shows a value: the plain decimal when it is at most 16
/// characters (`0.000001`, `2.5`, `1000000`), else scientific (`1e-300`, `1.5e300`); both the
/// shortest that reads back as `x`. Never the 300 digits of `1e-300` in plain form.
#[must_use]
pub fn format_number(x: f64) -> String {
    let plain = format!("{x}");
    if plain.len() <= 16 || !x.is_finite() {
        plain
    } else {
        format!("{x:e}")
    }
}

/// How far `bits_per_key` is above the lower bound `log2(1/p)`: `+44.3%`; `n/a` when the bound
/// is 0 bits (a rate of 100%: any structure meets it, so no ratio means anything).
#[must_use]
pub fn format_overhead(bits_per_key: f64, lower_bound: f64) -> String {
    if lower_bound > 0.0 && bits_per_key.is_finite() {
        format!("{:+.1}%", (bits_per_key / lower_bound - 1.0) * 100.0)
    } else {
        "n/a (FPR 100%: the bound is 0 bits)".into()
    }
}

/// Bits with thousands separators: `"9,585,058 bits"`.
#[must_use]
pub fn format_bits(bits: u64) -> String {
    format!("{} bits", thousands(bits))
}

/// Bytes in decimal and binary units side by side, `"1.198 MB = 1.143 MiB"` (quoted sizes
/// often mix the two); below 1 kB just `"512 B"`.
#[must_use]
pub fn format_bytes(bytes: f64) -> String {
    let units = [("kB", "KiB"), ("MB", "MiB"), ("GB", "GiB"), ("TB", "TiB")];
    let mut dec = String::new();
    let mut bin = String::new();
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

/// Bytes in decimal units with 3 significant digits, for table cells: `"1.20 MB"`, `"512 B"`.
#[must_use]
pub fn format_bytes_short(bytes: f64) -> String {
    const UNITS: [&str; 6] = ["B", "kB", "MB", "GB", "TB", "PB"];
    let mut v = bytes;
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

// ---------------------------------------------------------------------------------------------
// The example table

/// What an [`Example`] is parsed as, and which front-end field takes it: counts are `n`
/// (`--n`, the TUI's n), probabilities `p`, sizes `m`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    /// [`parse_count`] (`n`).
    Count,
    /// [`parse_prob`] (`p`).
    Prob,
    /// [`parse_bits`] (`m`).
    Size,
}

/// What an [`Example`] must parse to.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Expected {
    /// A count, or a size in bits.
    Int(u64),
    /// A probability (exactly this `f64`).
    Real(f64),
    /// Refused with an error.
    Refused,
}

/// One row of [`EXAMPLES`].
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Example {
    /// The text as typed.
    pub input: &'static str,
    /// How it is parsed.
    pub kind: Kind,
    /// The value it must give.
    pub expected: Expected,
}

impl Example {
    /// Parse the input as its kind: `Int` or `Real` on success, the error otherwise.
    ///
    /// # Errors
    /// As the parser of the kind.
    pub fn parse(&self) -> Result<Expected> {
        match self.kind {
            Kind::Count => parse_count(self.input, Param::N).map(Expected::Int),
            Kind::Prob => parse_prob(self.input, Param::P).map(Expected::Real),
            Kind::Size => parse_bits(self.input, Param::M).map(Expected::Int),
        }
    }
}

const fn ex(input: &'static str, kind: Kind, expected: Expected) -> Example {
    Example {
        input,
        kind,
        expected,
    }
}

use Expected::{Int, Real, Refused};
use Kind::{Count, Prob, Size};

/// Inputs and the values they must give, for every front end's tests. All accepted values are
/// valid `n`, `p` or `m` for `bloomlab calc` (n and m at least 1); the TUI refuses those outside
/// its own limits (p below 10^-15), which its test checks.
pub const EXAMPLES: &[Example] = &[
    ex("1000", Count, Int(1000)),
    ex("10k", Count, Int(10_000)),
    ex("1e6", Count, Int(1_000_000)),
    ex("2.5e3", Count, Int(2_500)),
    ex("2^20", Count, Int(1_048_576)),
    ex("1_000_000", Count, Int(1_000_000)),
    ex("1,000,000", Count, Int(1_000_000)),
    ex("1.5M", Count, Int(1_500_000)),
    ex("10 k", Count, Int(10_000)),
    ex("4Ki", Count, Int(4_096)),
    ex(" 42 ", Count, Int(42)),
    ex("2.5", Count, Refused),
    ex("-5", Count, Refused),
    ex("1,00", Count, Refused),
    ex("1,5", Count, Refused),
    ex("1__0", Count, Refused),
    ex("abc", Count, Refused),
    ex("NaN", Count, Refused),
    ex("inf", Count, Refused),
    ex("1e30", Count, Refused),
    ex("2^99", Count, Refused),
    ex("10x", Count, Refused),
    ex("1kB", Count, Refused),
    ex("0.01", Prob, Real(0.01)),
    ex("1%", Prob, Real(0.01)),
    ex("1/100", Prob, Real(0.01)),
    ex("1 in 100", Prob, Real(0.01)),
    ex("1 in 1000", Prob, Real(0.001)),
    ex("1 in 1,000", Prob, Real(0.001)),
    ex("0.1%", Prob, Real(0.001)),
    ex("0.5 %", Prob, Real(0.005)),
    ex("1e-3", Prob, Real(0.001)),
    ex("1e-30", Prob, Real(1e-30)),
    ex("0", Prob, Refused),
    ex("1", Prob, Refused),
    ex("1.5", Prob, Refused),
    ex("150%", Prob, Refused),
    ex("NaN", Prob, Refused),
    ex("inf", Prob, Refused),
    ex("-1%", Prob, Refused),
    ex("1/0", Prob, Refused),
    ex("2 in 1", Prob, Refused),
    ex("1e-400", Prob, Refused),
    ex("abc", Prob, Refused),
    ex("9585058", Size, Int(9_585_058)),
    ex("1Mb", Size, Int(1_000_000)),
    ex("1MB", Size, Int(8_000_000)),
    ex("64KiB", Size, Int(524_288)),
    ex("10Mbit", Size, Int(10_000_000)),
    ex("1.2MB", Size, Int(9_600_000)),
    ex("2^20", Size, Int(1_048_576)),
    ex("1M", Size, Int(1_000_000)),
    ex("1e6", Size, Int(1_000_000)),
    ex("1 GB", Size, Int(8_000_000_000)),
    ex("1Gib", Size, Int(1 << 30)),
    ex("512 bytes", Size, Int(4_096)),
    ex("1kB", Size, Int(8_000)),
    ex("1KB", Size, Int(8_000)),
    ex("3 Kibit", Size, Int(3_072)),
    ex("100B", Size, Int(800)),
    ex("1mb", Size, Refused),
    ex("12 parsecs", Size, Refused),
    ex("1.5b", Size, Refused),
    ex("0.3KiB", Size, Refused),
    ex("-1KiB", Size, Refused),
    ex("1e30", Size, Refused),
    ex("1EiB", Size, Refused),
    ex("MB", Size, Refused),
    ex("1,5MB", Size, Refused),
];

#[cfg(test)]
mod tests {

    #[test]
    fn numbers_in_messages_are_short() {
        assert_eq!(format_number(1e-300), "1e-300");
        assert_eq!(format_number(1e300), "1e300");
        assert_eq!(format_number(1.5e300), "1.5e300");
        assert_eq!(format_number(0.000001), "0.000001");
        assert_eq!(format_number(2.5), "2.5");
        assert_eq!(format_number(1e15), "1000000000000000");
        assert_eq!(format_number(f64::INFINITY), "inf");
        assert!(format_number(1.0 / 3.0).len() <= 22);
        assert_eq!(format_overhead(9.585_058, 6.643_856), "+44.3%");
        assert_eq!(
            format_overhead(0.001, 0.0),
            "n/a (FPR 100%: the bound is 0 bits)"
        );
    }

    use super::*;

    #[test]
    fn tiny_probabilities_print_from_their_logarithm() {
        assert_eq!(format_prob_ln(-1_104.481_916_711_89), "2.136e-480");
        assert_eq!(format_prob_ln((7.322e-61f64).ln()), "7.322e-61");
        assert_eq!(format_prob_ln((0.01f64).ln()), "1.000%");
        assert_eq!(format_prob_ln(f64::NEG_INFINITY), "0");
        assert_eq!(format_prob_ln(-(10f64.ln()) * 500.0), "1.000e-500");
        assert!(format_prob_bounded(-3.0, 1e-3).starts_with("n/a"));
        assert_eq!(format_prob_bounded((1.007e-18f64).ln(), 1e-12), "1.007e-18");
        assert_eq!(format_one_in_ln(-1_104.481_916_711_89), "1 in 4.682e479");
        assert_eq!(format_one_in_ln((0.01f64).ln()), "1 in 100");
        assert_eq!(format_one_in_ln(f64::NEG_INFINITY), "never");
    }

    #[test]
    fn every_example_parses_to_its_value() {
        for e in EXAMPLES {
            match (e.expected, e.parse()) {
                (Refused, Err(_)) => {}
                (want, Ok(got)) => assert_eq!(got, want, "{e:?}"),
                (want, Err(err)) => panic!("{e:?}: wanted {want:?}, got {err}"),
            }
        }
    }

    #[test]
    fn the_table_covers_every_kind_and_refusal() {
        for k in [Count, Prob, Size] {
            assert!(
                EXAMPLES
                    .iter()
                    .any(|e| e.kind == k && e.expected == Refused)
            );
            assert!(
                EXAMPLES
                    .iter()
                    .any(|e| e.kind == k && e.expected != Refused)
            );
        }
    }

    #[test]
    fn refusals_name_the_input_the_parameter_and_the_forms() {
        let e = parse_bits("1mb", Param::M).unwrap_err();
        let text = e.to_string();
        assert!(
            text.starts_with("invalid m: '1mb' has an unknown unit 'mb'"),
            "{text}"
        );
        assert!(text.contains("case-sensitive"), "{text}");
        assert!(text.contains("64KiB"), "{text}");
        let text = parse_count("2.5", Param::Trials).unwrap_err().to_string();
        assert!(
            text.contains("invalid trials: '2.5' is not a whole number"),
            "{text}"
        );
        assert!(text.contains("2^20"), "{text}");
        let text = parse_prob("150%", Param::P).unwrap_err().to_string();
        assert!(
            text.contains("= 1.5 is not strictly between 0 and 1"),
            "{text}"
        );
        let text = parse_prob("1e-400", Param::P).unwrap_err().to_string();
        assert!(
            text.contains("outside the range of a 64-bit float"),
            "{text}"
        );
        let text = parse_prob("1/0", Param::P).unwrap_err().to_string();
        assert!(text.contains("divides by zero"), "{text}");
        let text = parse_count("1e30", Param::N).unwrap_err().to_string();
        assert!(text.contains("too large"), "{text}");
        let text = parse_count_in("0", Param::N, 1..=10)
            .unwrap_err()
            .to_string();
        assert!(
            text.contains("is below 1") && text.contains("from 1 to 10"),
            "{text}"
        );
        let e = parse_bits("1mb", Param::M).unwrap_err();
        assert!(describe(&e).starts_with("'1mb' has an unknown unit"), "{e}");
        assert!(matches!(
            parse_m("0"),
            Err(Error::InvalidParameter {
                param: Param::M,
                ..
            })
        ));
    }

    #[test]
    fn exact_arithmetic_and_limits() {
        assert_eq!(parse_count("18446744073709551615", Param::N), Ok(u64::MAX));
        assert!(parse_count("18446744073709551616", Param::N).is_err());
        assert_eq!(
            parse_count("1.8e19", Param::N),
            Ok(18_000_000_000_000_000_000)
        );
        assert_eq!(parse_count("0.5e1", Param::N), Ok(5));
        assert_eq!(parse_count(".5k", Param::N), Ok(500));
        assert_eq!(parse_count("1E3", Param::N), Ok(1000));
        assert_eq!(parse_count("1e+3", Param::N), Ok(1000));
        assert_eq!(parse_count("0e99999", Param::N), Ok(0));
        assert!(parse_count("1e99999999999999", Param::N).is_err());
        assert!(parse_count("1e-99999999999999", Param::N).is_err());
        assert_eq!(parse_bits("1.198MB", Param::M), Ok(9_584_000));
        assert_eq!(parse_bits("0.5KiB", Param::M), Ok(4_096));
        assert_eq!(parse_bits("2^10B", Param::M), Ok(8_192));
        assert_eq!(parse_bits("1 TiB", Param::M), Ok(1 << 43));
        assert!(parse_bits("1000000000TiB", Param::M).is_err()); // 8.8e21 bits
        assert_eq!(parse_prob("3/1000", Param::P), Ok(0.003));
        assert_eq!(parse_prob("1 IN 8", Param::P), Ok(0.125));
        assert_eq!(parse_prob("1in8", Param::P), Ok(0.125));
        let text = parse_prob("inf", Param::P).unwrap_err().to_string();
        assert!(text.contains("'inf' is not a number"), "{text}");
        assert_eq!(parse_number("1_000.5", Param::Growth), Ok(1000.5));
        assert!(parse_number("1.5x", Param::Growth).is_err());
        assert!(parse_number("", Param::Growth).is_err());
        assert_eq!(parse_n("1e6"), Ok(1_000_000));
        assert!(parse_n("0").is_err());
        assert_eq!(parse_p("1 in 1000"), Ok(0.001));
        assert_eq!(parse_m("10Mbit"), Ok(10_000_000));
    }

    #[test]
    fn formats() {
        assert_eq!(thousands(0), "0");
        assert_eq!(thousands(100), "100");
        assert_eq!(thousands(1000), "1,000");
        assert_eq!(thousands(9_585_058), "9,585,058");
        assert_eq!(format_prob(0.010_039), "1.004%");
        assert_eq!(format_prob(0.01), "1.000%");
        assert_eq!(format_prob(0.5), "50.00%");
        assert_eq!(format_prob(0.099_996), "10.00%");
        assert_eq!(format_prob(0.009_846), "0.9846%");
        assert_eq!(format_prob(1e-4), "0.01000%");
        assert_eq!(format_prob(9.999e-5), "9.999e-5");
        assert_eq!(format_prob(1.0074e-18), "1.007e-18");
        assert_eq!(format_prob(0.0), "0");
        assert_eq!(format_prob(f64::NAN), "n/a");
        assert_eq!(format_one_in(0.01), "1 in 100");
        assert_eq!(format_one_in(0.001), "1 in 1,000");
        assert_eq!(format_one_in(0.5), "1 in 2");
        assert_eq!(format_one_in(0.3), "1 in 3.3");
        assert_eq!(format_one_in(1.007e-18), "1 in 9.930e17");
        assert_eq!(format_one_in(0.0), "never");
        assert_eq!(format_bits(9_585_058), "9,585,058 bits");
        assert_eq!(format_bytes(1_198_133.0), "1.198 MB = 1.143 MiB");
        assert_eq!(format_bytes(512.0), "512 B");
        assert_eq!(format_bytes(1_000.0), "1.000 kB = 1000 B");
        assert_eq!(format_bytes_short(1_198_133.0), "1.20 MB");
        assert_eq!(format_bytes_short(512.0), "512 B");
    }

    #[test]
    fn formatted_values_parse_back() {
        for p in [0.01, 0.001, 0.5, 1e-6] {
            let text = format_one_in(p);
            assert_eq!(parse_prob(&text, Param::P), Ok(p), "{text}");
        }
        for v in [1u64, 999, 1000, 9_585_058, u64::MAX] {
            assert_eq!(parse_count(&thousands(v), Param::N), Ok(v));
        }
    }
}
