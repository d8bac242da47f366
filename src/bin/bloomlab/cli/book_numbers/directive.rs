//! The book's two number directives, found in a chapter, parsed and formatted.
//!
//! ```text
//! {{#value PATH KEY [COL=VALUE ...] [FORMAT ...]}}   a measured number from a results file
//! {{#calc FIELD [FLAG=VALUE ...] [FORMAT ...]}}      a field of `bloomlab calc --json`
//! FORMAT: dp=N (decimals) | sig=N (significant digits) | pct (×100, then %) | unit=U | nth=N
//! ```
//!
//! A token may be double-quoted to hold spaces or `=` (`"n=100000000"`). `\{{#value` is left in
//! the page as the literal text `{{#value` (how the book shows the syntax itself).

use std::fmt::Write as _;

/// Which directive.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    /// `{{#value …}}`: a number read from a results file.
    Value,
    /// `{{#calc …}}`: a number computed by `bloomlab calc`.
    Calc,
}

/// How a number is printed.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Format {
    /// Fixed decimals.
    pub dp: Option<usize>,
    /// Significant digits (default: integers as they are, others 3).
    pub sig: Option<usize>,
    /// Multiply by 100 and print a `%`.
    pub pct: bool,
    /// Text after the number: `%`, `×` and `x` follow it directly, anything else after a space.
    pub unit: Option<String>,
    /// The n-th number of a table cell (1-based; `159 (×3.76 peer)` has two).
    pub nth: usize,
}

/// One directive as written in a chapter.
#[derive(Debug, Clone, PartialEq)]
pub struct Directive {
    /// `value` or `calc`.
    pub kind: Kind,
    /// `value`: the results file (relative to the repository); `calc`: the report's field.
    pub target: String,
    /// `value`: the JSON path (dotted) or the table/CSV column; `calc`: unused (empty).
    pub key: String,
    /// `value`: the row's selectors (`col=value`, `section=heading`); `calc`: its flags.
    pub args: Vec<(String, String)>,
    /// How to print it.
    pub format: Format,
}

/// A directive's place in its chapter and its text.
#[derive(Debug, Clone, PartialEq)]
pub struct Found {
    /// Byte range of `{{#…}}` in the chapter.
    pub range: std::ops::Range<usize>,
    /// 1-based line of its start.
    pub line: usize,
    /// The parsed directive, or why it does not parse.
    pub parsed: Result<Directive, String>,
}

const OPENERS: [(&str, Kind); 2] = [("{{#value", Kind::Value), ("{{#calc", Kind::Calc)];

/// Every directive of `text`, in order. An escaped one (`\{{#value`) is not returned.
#[must_use]
pub fn find(text: &str) -> Vec<Found> {
    let mut out = Vec::new();
    let mut at = 0;
    while let Some(rel) = text[at..].find("{{#") {
        let start = at + rel;
        at = start + 3;
        let Some((open, kind)) = OPENERS
            .iter()
            .find(|(o, _)| text[start..].starts_with(o))
            .copied()
        else {
            continue; // {{#include}} and the like: mdBook's own
        };
        let after = &text[start + open.len()..];
        if !after.starts_with([' ', '\t', '\n', '}']) || text[..start].ends_with('\\') {
            continue;
        }
        let line = text[..start].matches('\n').count() + 1;
        let (end, parsed) = match after.find("}}") {
            Some(close) => (start + open.len() + close + 2, parse(kind, &after[..close])),
            None => (text.len(), Err(format!("`{open}` has no closing `}}}}`"))),
        };
        out.push(Found {
            range: start..end,
            line,
            parsed,
        });
        at = end;
    }
    out
}

/// `text` with every escaped opener `\{{#value` / `\{{#calc` unescaped.
#[must_use]
pub fn unescape(text: &str) -> String {
    text.replace("\\{{#value", "{{#value")
        .replace("\\{{#calc", "{{#calc")
}

/// Split on whitespace; double quotes group (and are removed).
fn tokens(body: &str) -> Result<Vec<String>, String> {
    let mut out = Vec::new();
    let mut cur = String::new();
    let (mut quoted, mut any) = (false, false);
    for c in body.chars() {
        match c {
            '"' => (quoted, any) = (!quoted, true),
            c if c.is_whitespace() && !quoted => {
                if any {
                    out.push(std::mem::take(&mut cur));
                    any = false;
                }
            }
            c => {
                cur.push(c);
                any = true;
            }
        }
    }
    if quoted {
        return Err("a double quote is not closed".into());
    }
    if any {
        out.push(cur);
    }
    Ok(out)
}

fn number<T: std::str::FromStr>(key: &str, v: &str) -> Result<T, String> {
    v.parse()
        .map_err(|_| format!("{key}={v}: expected a whole number"))
}

/// Parse a directive's body (the text between `{{#value` or `{{#calc` and `}}`).
///
/// # Errors
/// No target (or no key for `value`), an unclosed quote, a bad format value, a bare word where
/// `KEY=VALUE` is expected.
pub fn parse(kind: Kind, body: &str) -> Result<Directive, String> {
    let mut words = tokens(body)?.into_iter();
    let what = match kind {
        Kind::Value => "a results file (PATH KEY ...)",
        Kind::Calc => "a field of calc's JSON report (FIELD FLAG=VALUE ...)",
    };
    let target = words.next().ok_or_else(|| format!("expected {what}"))?;
    let key = match kind {
        Kind::Value => words.next().ok_or_else(|| {
            format!("{target}: expected a key (a JSON path or a column) after it")
        })?,
        Kind::Calc => String::new(),
    };
    let mut format = Format {
        nth: 1,
        ..Format::default()
    };
    let mut args = Vec::new();
    for w in words {
        if w == "pct" {
            format.pct = true;
            continue;
        }
        let Some((k, v)) = w.split_once('=') else {
            return Err(format!(
                "`{w}`: expected KEY=VALUE (or `pct`); quote a word that holds spaces or `=`"
            ));
        };
        match k {
            "dp" => format.dp = Some(number(k, v)?),
            "sig" => format.sig = Some(number::<usize>(k, v)?.clamp(1, 17)),
            "unit" => format.unit = Some(v.to_string()),
            "nth" if kind == Kind::Value => format.nth = number::<usize>(k, v)?.max(1),
            _ => args.push((k.to_string(), v.to_string())),
        }
    }
    Ok(Directive {
        kind,
        target,
        key,
        args,
        format,
    })
}

/// `v` rounded to `sig` significant digits, printed without an exponent.
fn significant(v: f64, sig: usize) -> String {
    if v == 0.0 || !v.is_finite() {
        return format!("{v}");
    }
    let mag = v.abs().log10().floor() as i64;
    let decimals = (sig as i64 - 1 - mag).max(0) as usize;
    let scale = 10f64.powi((sig as i64 - 1 - mag) as i32);
    let rounded = (v * scale).round() / scale;
    format!("{rounded:.decimals$}")
}

/// Digits of the integer part grouped by three with commas (from 1,000 up), and a true minus.
fn group(text: &str) -> String {
    let (neg, body) = text
        .strip_prefix('-')
        .map_or((false, text), |rest| (true, rest));
    let (int, frac) = body.split_at(body.find('.').unwrap_or(body.len()));
    let mut out = String::from(if neg { "−" } else { "" });
    if int.len() > 3 && int.bytes().all(|b| b.is_ascii_digit()) {
        for (i, c) in int.chars().enumerate() {
            if i > 0 && (int.len() - i).is_multiple_of(3) {
                out.push(',');
            }
            out.push(c);
        }
    } else {
        out.push_str(int);
    }
    out.push_str(frac);
    out
}

/// The number as the page prints it; `written`: the decimals a results file wrote it with, used
/// when the directive asks for no precision (and does not scale it with `pct`).
#[must_use]
pub fn render(v: f64, written: Option<usize>, f: &Format) -> String {
    let v = if f.pct { v * 100.0 } else { v };
    let dp = f.dp.or(written.filter(|_| f.sig.is_none() && !f.pct));
    let text = match (dp, f.sig) {
        (Some(d), _) => format!("{v:.d$}"),
        (None, Some(s)) => significant(v, s),
        (None, None) if v.fract() == 0.0 && v.abs() < 1e15 => format!("{v:.0}"),
        (None, None) => significant(v, 3),
    };
    let mut out = group(&text);
    let unit = f.unit.as_deref().or(f.pct.then_some("%"));
    if let Some(u) = unit {
        if !matches!(u, "%" | "×" | "x") {
            out.push(' ');
        }
        let _ = write!(out, "{u}");
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn finds_both_directives_with_their_lines_and_skips_others() {
        let text = "a {{#include x.md}}\nb {{#value r/s.json a.b dp=1}} c\n\\{{#calc fpr_classic}}\nd {{#calc bits_per_key p=1%}}";
        let found = find(text);
        assert_eq!(found.len(), 2, "{found:?}");
        assert_eq!(found[0].line, 2);
        assert_eq!(
            &text[found[0].range.clone()],
            "{{#value r/s.json a.b dp=1}}"
        );
        assert_eq!(found[1].line, 4);
        let d = found[1].parsed.as_ref().unwrap();
        assert_eq!((d.kind, d.target.as_str()), (Kind::Calc, "bits_per_key"));
        assert_eq!(d.args, vec![("p".to_string(), "1%".to_string())]);
        assert_eq!(
            unescape("\\{{#calc x}} and \\{{#value y}}"),
            "{{#calc x}} and {{#value y}}"
        );
    }

    #[test]
    fn parses_selectors_quotes_and_formats() {
        let d = parse(
            Kind::Value,
            r#" results/bench/summary.md "n=100000000" impl=bloomlab-standard section=query_hit sig=3 unit=ns nth=2 pct"#,
        )
        .unwrap();
        assert_eq!(d.target, "results/bench/summary.md");
        assert_eq!(d.key, "n=100000000");
        assert_eq!(
            d.args,
            vec![
                ("impl".into(), "bloomlab-standard".into()),
                ("section".into(), "query_hit".into())
            ]
        );
        assert_eq!(
            d.format,
            Format {
                dp: None,
                sig: Some(3),
                pct: true,
                unit: Some("ns".into()),
                nth: 2
            }
        );
    }

    #[test]
    fn refuses_what_it_cannot_read() {
        assert!(parse(Kind::Value, "").unwrap_err().contains("results file"));
        assert!(parse(Kind::Value, "a.json").unwrap_err().contains("key"));
        assert!(
            parse(Kind::Calc, "fpr n=1 junk")
                .unwrap_err()
                .contains("`junk`")
        );
        assert!(
            parse(Kind::Calc, "fpr dp=two")
                .unwrap_err()
                .contains("dp=two")
        );
        assert!(
            parse(Kind::Calc, "fpr \"n=1")
                .unwrap_err()
                .contains("quote")
        );
        let unclosed = find("x {{#calc fpr n=1\nmore");
        assert_eq!(unclosed.len(), 1);
        assert!(unclosed[0].parsed.as_ref().unwrap_err().contains("closing"));
    }

    #[test]
    fn renders_digits_groups_and_units() {
        let f = |dp, sig, pct, unit: Option<&str>| Format {
            dp,
            sig,
            pct,
            unit: unit.map(str::to_string),
            nth: 1,
        };
        assert_eq!(
            render(9_585_059.0, None, &f(None, None, false, None)),
            "9,585,059"
        );
        assert_eq!(
            render(159.4, None, &f(None, None, false, Some("ns"))),
            "159 ns"
        );
        assert_eq!(render(43.27, None, &f(None, None, false, None)), "43.3");
        assert_eq!(
            render(0.010_039, None, &f(None, Some(3), true, None)),
            "1.00%"
        );
        assert_eq!(
            render(2.834, None, &f(Some(2), None, false, Some("×"))),
            "2.83×"
        );
        assert_eq!(render(-0.25, None, &f(Some(2), None, false, None)), "−0.25");
        assert_eq!(
            render(7.7, Some(1), &f(None, None, false, Some("%"))),
            "7.7%"
        );
        assert_eq!(
            render(0.0047, Some(4), &f(None, None, true, None)),
            "0.470%"
        );
        assert_eq!(
            render(1234.5, None, &f(None, Some(3), false, None)),
            "1,230"
        );
        assert_eq!(
            render(0.003_906_25, None, &f(None, Some(2), false, None)),
            "0.0039"
        );
    }
}
