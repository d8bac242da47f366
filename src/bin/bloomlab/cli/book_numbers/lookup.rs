//! Where a directive's number comes from: a results file (JSON, CSV or a Markdown table) or
//! `bloomlab calc`'s own JSON report.

use super::directive::{Directive, Kind};
use clap::Parser;
use std::collections::HashMap;
use std::path::{Path, PathBuf};

/// Results files read once per book build.
#[derive(Debug, Default)]
pub struct Files {
    root: PathBuf,
    cache: HashMap<String, String>,
}

impl Files {
    /// Files relative to `root` (the repository).
    #[must_use]
    pub fn new(root: &Path) -> Self {
        Self {
            root: root.to_path_buf(),
            cache: HashMap::new(),
        }
    }

    fn text(&mut self, rel: &str) -> Result<&str, String> {
        if !self.cache.contains_key(rel) {
            let path = self.root.join(rel);
            let text = std::fs::read_to_string(&path)
                .map_err(|e| format!("cannot read {}: {e}", path.display()))?;
            self.cache.insert(rel.to_string(), text);
        }
        Ok(&self.cache[rel])
    }

    /// The directive's number, and its decimals as the results file wrote it (a table or CSV
    /// cell: printed with the same digits unless the directive asks otherwise).
    ///
    /// # Errors
    /// The file, key, row or field is missing or ambiguous, or holds no number (the message says
    /// which).
    pub fn evaluate(&mut self, d: &Directive) -> Result<(f64, Option<usize>), String> {
        match d.kind {
            Kind::Calc => calc(d).map(|v| (v, None)),
            Kind::Value => {
                let nth = d.format.nth;
                let text = self.text(&d.target)?;
                let ext = Path::new(&d.target)
                    .extension()
                    .and_then(|e| e.to_str())
                    .unwrap_or("");
                match ext {
                    "json" => {
                        if !d.args.is_empty() {
                            return Err("a JSON value takes no row selectors".into());
                        }
                        let v: serde_json::Value = serde_json::from_str(text)
                            .map_err(|e| format!("{}: not JSON: {e}", d.target))?;
                        json_number(&v, &d.key).map(|v| (v, None))
                    }
                    "csv" => table_value(&csv_rows(text), &d.key, &d.args, nth),
                    "md" => table_value(&table_rows(text), &d.key, &d.args, nth),
                    _ => Err(format!(
                        "{}: a results file is .json, .csv or .md (a Markdown table)",
                        d.target
                    )),
                }
                .map_err(|e| format!("{}: {e}", d.target))
            }
        }
    }
}

fn no_number(cell: &str, nth: usize) -> String {
    format!("the cell `{cell}` has no number {nth}")
}

/// A number at a dotted path (`a.b.0.c`); a string is read for its first number.
fn json_number(v: &serde_json::Value, path: &str) -> Result<f64, String> {
    let mut at = v;
    for part in path.split('.') {
        at = match at {
            serde_json::Value::Object(o) => o.get(part),
            serde_json::Value::Array(a) => part.parse::<usize>().ok().and_then(|i| a.get(i)),
            _ => None,
        }
        .ok_or_else(|| format!("no key `{part}` (of `{path}`)"))?;
    }
    match at {
        serde_json::Value::Number(n) => n.as_f64().ok_or_else(|| format!("`{path}`: {n}")),
        serde_json::Value::String(s) => nth_number(s, 1).ok_or_else(|| no_number(s, 1)),
        other => Err(format!("`{path}` is not a number: {other}")),
    }
}

/// One row: column name → cell, and the Markdown heading it sits under.
type Row = (String, Vec<(String, String)>);

/// A CSV file's rows (double-quoted fields may hold commas).
fn csv_rows(text: &str) -> Vec<Row> {
    let split = |line: &str| {
        let (mut out, mut cur, mut quoted) = (Vec::new(), String::new(), false);
        for c in line.chars() {
            match c {
                '"' => quoted = !quoted,
                ',' if !quoted => out.push(std::mem::take(&mut cur)),
                c => cur.push(c),
            }
        }
        out.push(cur);
        out
    };
    let mut lines = text.lines().filter(|l| !l.trim().is_empty());
    let header = lines.next().map(split).unwrap_or_default();
    lines
        .map(|l| {
            let cells = header.iter().cloned().zip(split(l)).collect();
            (String::new(), cells)
        })
        .collect()
}

/// The rows of every Markdown table of `text`, each with the heading above it.
fn table_rows(text: &str) -> Vec<Row> {
    let split = |line: &str| -> Vec<String> {
        let inner = line.trim().trim_start_matches('|').trim_end_matches('|');
        inner.split('|').map(|c| clean(c.trim())).collect()
    };
    let (mut rows, mut heading, mut header): (Vec<Row>, String, Option<Vec<String>>) =
        (Vec::new(), String::new(), None);
    let mut lines = text.lines().peekable();
    while let Some(line) = lines.next() {
        let t = line.trim();
        if let Some(h) = t.strip_prefix('#') {
            heading = h.trim_start_matches('#').trim().to_string();
            header = None;
        } else if !t.starts_with('|') {
            header = None;
        } else if let Some(h) = &header {
            rows.push((heading.clone(), h.iter().cloned().zip(split(t)).collect()));
        } else if lines.peek().is_some_and(|n| is_rule(n)) {
            header = Some(split(t));
            lines.next(); // the |---| line
        }
    }
    rows
}

/// A table's `|---|:--:|` line.
fn is_rule(line: &str) -> bool {
    let t = line.trim();
    t.starts_with('|') && t.contains('-') && t.chars().all(|c| matches!(c, '|' | '-' | ':' | ' '))
}

/// Three digits and then no fourth: what follows a thousands separator.
fn thousands_group(rest: &[u8]) -> bool {
    rest.len() >= 3
        && rest[..3].iter().all(u8::is_ascii_digit)
        && !rest.get(3).is_some_and(u8::is_ascii_digit)
}

/// A cell without Markdown emphasis or code marks.
fn clean(cell: &str) -> String {
    cell.replace("**", "").replace('`', "").trim().to_string()
}

/// The cell in column `key` of the one row every selector matches (`section=` names the heading).
/// The number in column `key` of the one row every selector matches (`section=` names the
/// heading above a Markdown table); `row=N` picks the N-th of several matching rows where no
/// column tells them apart, `agg=min` or `agg=max` the least or greatest over all of them (cells
/// without a number, such as `–`, left out). `rel=COLUMN` makes each row's number its relative
/// difference from that column of the same row, `key / COLUMN − 1` (signed; before `agg`), and
/// `absrel=COLUMN` its size `|key / COLUMN − 1|` (for prose that states the sign in words).
fn table_value(
    rows: &[Row],
    key: &str,
    args: &[(String, String)],
    nth: usize,
) -> Result<(f64, Option<usize>), String> {
    let reserved = |k: &str| matches!(k, "row" | "agg" | "rel" | "absrel");
    let get = |name: &str| {
        args.iter()
            .find(|(k, _)| k == name)
            .map(|(_, v)| v.as_str())
    };
    let selectors: Vec<&(String, String)> = args.iter().filter(|(k, _)| !reserved(k)).collect();
    let matching: Vec<&Row> = rows
        .iter()
        .filter(|(heading, cells)| {
            selectors.iter().all(|(k, v)| {
                if k == "section" {
                    heading == v
                } else {
                    cells.iter().any(|(c, x)| c == k && x == v)
                }
            }) && cells.iter().any(|(c, _)| c == key)
        })
        .collect();
    let what = selectors
        .iter()
        .map(|(k, v)| format!("{k}={v}"))
        .collect::<Vec<_>>()
        .join(" ");
    let cell = |row: &Row, col: &str| {
        let c = row
            .1
            .iter()
            .find(|(c, _)| c == col)
            .map(|(_, x)| x.as_str())
            .unwrap_or_default();
        written_number(c, nth).ok_or_else(|| no_number(c, nth))
    };
    // The row's number and the decimals it was written with (none for a relative difference).
    let number = |row: &Row| -> Result<(f64, Option<usize>), String> {
        let (v, dp) = cell(row, key)?;
        let (name, col) = match (get("rel"), get("absrel")) {
            (None, None) => return Ok((v, Some(dp))),
            (Some(_), Some(_)) => return Err("rel= and absrel= together: one of them".into()),
            (Some(c), None) => ("rel", c),
            (None, Some(c)) => ("absrel", c),
        };
        let (o, _) = cell(row, col).map_err(|e| format!("{name}={col}: {e}"))?;
        if o == 0.0 {
            return Err(format!("{name}={col}: the column is 0 in a matching row"));
        }
        let r = v / o - 1.0;
        Ok((if name == "absrel" { r.abs() } else { r }, None))
    };
    if matching.is_empty() {
        return Err(format!(
            "no row where {} has a column `{key}`",
            if what.is_empty() { "any row" } else { &what }
        ));
    }
    match (get("row"), get("agg")) {
        (Some(_), Some(_)) => Err("row= and agg= together: one of them".into()),
        (Some(v), None) => {
            let r = v
                .parse::<usize>()
                .ok()
                .filter(|&r| r >= 1)
                .ok_or_else(|| format!("row={v}: expected a whole number from 1"))?;
            let row = matching
                .get(r - 1)
                .ok_or_else(|| format!("row={r}, but {} rows match", matching.len()))?;
            number(row)
        }
        (None, Some(agg)) => {
            // A cell without a number (`–`: not applicable) is left out; none at all is an error.
            let all: Vec<(f64, Option<usize>)> =
                matching.iter().filter_map(|r| number(r).ok()).collect();
            if all.is_empty() {
                return Err(format!(
                    "agg={agg}: no row where {what} has a number in `{key}`"
                ));
            }
            let pick = match agg {
                "min" => all.iter().min_by(|a, b| a.0.total_cmp(&b.0)),
                "max" => all.iter().max_by(|a, b| a.0.total_cmp(&b.0)),
                other => return Err(format!("agg={other}: expected agg=min or agg=max")),
            };
            Ok(pick.copied().unwrap_or((f64::NAN, None)))
        }
        (None, None) => match matching.as_slice() {
            [one] => number(one),
            many => Err(format!(
                "{} rows where {what} (add a selector, or row=N or agg=min|max)",
                many.len()
            )),
        },
    }
}

/// The `nth` number written in `s` (1-based): `1,198,136` is one number, `[0.98%, 1.00%]` two;
/// `−` is a minus.
#[must_use]
pub fn nth_number(s: &str, nth: usize) -> Option<f64> {
    written_number(s, nth).map(|(v, _)| v)
}

/// [`nth_number`] and the decimals it was written with (a CSV's `0.005074` has 6; with an
/// exponent, 3 significant digits' worth is not known: 6).
fn written_number(s: &str, nth: usize) -> Option<(f64, usize)> {
    let s = s.replace('−', "-");
    let b = s.as_bytes();
    let mut found = 0;
    let mut i = 0;
    while i < b.len() {
        if b[i].is_ascii_digit() {
            let neg = i > 0 && b[i - 1] == b'-';
            let mut j = i;
            let mut text = String::new();
            while j < b.len() {
                let c = b[j];
                if c.is_ascii_digit() || c == b'.' && b.get(j + 1).is_some_and(u8::is_ascii_digit) {
                    text.push(c as char);
                } else if c == b',' && thousands_group(&b[j + 1..]) {
                    // a thousands separator: skipped
                } else if (c == b'e' || c == b'E')
                    && b.get(j + 1)
                        .is_some_and(|&d| d.is_ascii_digit() || d == b'-' || d == b'+')
                {
                    text.push('e');
                    if matches!(b[j + 1], b'-' | b'+') {
                        j += 1;
                        text.push(b[j] as char);
                    }
                } else {
                    break;
                }
                j += 1;
            }
            found += 1;
            if found == nth {
                let v: f64 = text.parse().ok()?;
                let decimals = match (text.find('.'), text.contains('e')) {
                    (_, true) => 6,
                    (Some(dot), false) => text.len() - dot - 1,
                    (None, false) => 0,
                };
                return Some((if neg { -v } else { v }, decimals));
            }
            i = j;
        } else {
            i += 1;
        }
    }
    None
}

/// `bloomlab calc` with the directive's flags, exactly as on the command line; wraps its
/// arguments so that clap parses them the same way.
#[derive(Debug, Parser)]
#[command(name = "calc", no_binary_name = true)]
struct CalcLine {
    #[command(flatten)]
    args: crate::cli::calc::Args,
}

/// The field `d.target` of calc's JSON report for `d.args` (`n=1e6` is `--n 1e6`).
fn calc(d: &Directive) -> Result<f64, String> {
    let mut argv = Vec::new();
    for (k, v) in &d.args {
        argv.push(format!("--{k}"));
        argv.push(v.clone());
    }
    argv.push("--json".into());
    let line = CalcLine::try_parse_from(&argv).map_err(|e| {
        let text = e.render().to_string();
        format!(
            "calc {}: {}",
            argv.join(" "),
            text.lines().next().unwrap_or("invalid arguments")
        )
    })?;
    let report =
        crate::cli::calc::json(&line.args).map_err(|e| format!("calc {}: {e}", argv.join(" ")))?;
    json_number(&report, &d.target).map_err(|e| format!("calc {}: {e}", argv.join(" ")))
}

#[cfg(test)]
mod tests {
    use super::super::directive::{Kind, parse};
    use super::*;

    const TABLES: &str = "# T\n\n## query_hit\n\nns per key\n\n| impl | n=10000 | n=100000000 |\n|---|---:|---:|\n| bloomlab-standard | 27.4 (×6.53 peer) | 159 (×3.76 peer, ×9.5 floor) |\n| **xorf-fuse8** | 4.2 | 112 |\n\n## query_miss\n\n| impl | n=10000 | n=100000000 |\n|---|---:|---:|\n| bloomlab-standard | 20.1 | 1,198,136 |\n";

    fn eval(files: &mut Files, body: &str) -> Result<f64, String> {
        files
            .evaluate(&parse(Kind::Value, body).unwrap())
            .map(|(v, _)| v)
    }

    #[test]
    fn numbers_in_cells() {
        assert_eq!(nth_number("159 (×3.76 peer, ×9.5 floor)", 1), Some(159.0));
        assert_eq!(nth_number("159 (×3.76 peer, ×9.5 floor)", 2), Some(3.76));
        assert_eq!(nth_number("0.9969% [0.9882%, 1.0057%]", 3), Some(1.0057));
        assert_eq!(nth_number("1,198,136 bytes", 1), Some(1_198_136.0));
        assert_eq!(nth_number("−7.5%", 1), Some(-7.5));
        assert_eq!(nth_number("1.5e-3", 1), Some(0.0015));
        assert_eq!(nth_number("n/a", 1), None);
        assert_eq!(written_number("+7.7%", 1), Some((7.7, 1)));
        assert_eq!(written_number("0.005074", 1), Some((0.005074, 6)));
        assert_eq!(written_number("159 (×3.76)", 1), Some((159.0, 0)));
    }

    #[test]
    fn markdown_tables_by_section_row_and_column() {
        let dir = std::env::temp_dir().join(format!("bloomlab-booknum-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        std::fs::write(dir.join("s.md"), TABLES).unwrap();
        std::fs::write(
            dir.join("r.csv"),
            "kind,n,ns\nstandard,10,\"1,5\"\nxor,10,4.5\nxor,20,5.5\n",
        )
        .unwrap();
        std::fs::write(
            dir.join("j.json"),
            r#"{"a": {"b": [1, {"c": 2.5}]}, "s": "7.4%"}"#,
        )
        .unwrap();
        let mut f = Files::new(&dir);
        let hit = "s.md n=100000000 section=query_hit impl=bloomlab-standard";
        assert_eq!(eval(&mut f, hit), Ok(159.0));
        assert_eq!(eval(&mut f, &format!("{hit} nth=2")), Ok(3.76));
        assert_eq!(
            eval(&mut f, "s.md n=100000000 section=query_hit impl=xorf-fuse8"),
            Ok(112.0)
        );
        assert_eq!(
            eval(
                &mut f,
                "s.md n=100000000 section=query_miss impl=bloomlab-standard"
            ),
            Ok(1_198_136.0)
        );
        let two = eval(&mut f, "s.md n=10000 impl=bloomlab-standard").unwrap_err();
        assert!(two.contains("2 rows"), "{two}");
        let none = eval(&mut f, "s.md n=10000 impl=nope").unwrap_err();
        assert!(
            none.contains("no row") && none.contains("impl=nope"),
            "{none}"
        );
        assert!(
            eval(&mut f, "s.md n=7 impl=xorf-fuse8")
                .unwrap_err()
                .contains("`n=7`")
        );
        assert_eq!(eval(&mut f, "r.csv ns kind=xor n=20"), Ok(5.5));
        assert!(
            eval(&mut f, "r.csv ns kind=xor")
                .unwrap_err()
                .contains("2 rows")
        );
        assert_eq!(eval(&mut f, "r.csv ns kind=xor row=2"), Ok(5.5));
        let three = eval(&mut f, "r.csv ns kind=xor row=3").unwrap_err();
        assert!(three.contains("2 rows match"), "{three}");
        assert_eq!(eval(&mut f, "r.csv ns kind=xor agg=max"), Ok(5.5));
        // rel=: a relative difference within each row, signed, taken before agg=
        std::fs::write(
            dir.join("rel.csv"),
            "s,m,fpr,exact\nd,64,0.012,0.008\nd,256,0.0099,0.011\ne,64,1,0\n",
        )
        .unwrap();
        let close = |got: Result<f64, String>, want: f64| {
            let g = got.unwrap();
            assert!((g - want).abs() < 1e-12, "{g} != {want}");
        };
        close(eval(&mut f, "rel.csv fpr s=d m=64 rel=exact"), 0.5);
        close(eval(&mut f, "rel.csv fpr s=d m=256 rel=exact"), -0.1);
        close(eval(&mut f, "rel.csv fpr s=d rel=exact agg=min"), -0.1);
        close(eval(&mut f, "rel.csv fpr s=d rel=exact agg=max"), 0.5);
        close(eval(&mut f, "rel.csv fpr s=d m=256 absrel=exact"), 0.1);
        close(
            eval(&mut f, "rel.csv exact s=d absrel=fpr agg=max"),
            1.0 / 3.0,
        );
        assert!(
            eval(&mut f, "rel.csv fpr s=d m=64 rel=exact absrel=exact")
                .unwrap_err()
                .contains("one of them")
        );
        let zero = eval(&mut f, "rel.csv fpr s=e rel=exact").unwrap_err();
        assert!(
            zero.contains("rel=exact") && zero.contains("is 0"),
            "{zero}"
        );
        let missing = eval(&mut f, "rel.csv fpr s=d m=64 rel=nope").unwrap_err();
        assert!(missing.contains("rel=nope"), "{missing}");
        std::fs::write(dir.join("dash.csv"), "kind,ns\nxor,–\nribbon,7.5\nbloom,\n").unwrap();
        assert_eq!(eval(&mut f, "dash.csv ns agg=min"), Ok(7.5));
        let none = eval(&mut f, "dash.csv ns kind=xor agg=max").unwrap_err();
        assert!(
            none.contains("no row where kind=xor has a number"),
            "{none}"
        );
        // "1,5" is 1 and a stray 5 (a comma before fewer than three digits is no separator)
        assert_eq!(eval(&mut f, "r.csv ns agg=min"), Ok(1.0));
        assert!(
            eval(&mut f, "r.csv ns agg=mean")
                .unwrap_err()
                .contains("agg=min")
        );
        assert!(
            eval(&mut f, "r.csv ns row=1 agg=min")
                .unwrap_err()
                .contains("one of them")
        );
        assert_eq!(eval(&mut f, "j.json a.b.1.c"), Ok(2.5));
        assert_eq!(eval(&mut f, "j.json s"), Ok(7.4));
        assert!(
            eval(&mut f, "j.json a.x")
                .unwrap_err()
                .contains("no key `x`")
        );
        assert!(
            eval(&mut f, "missing.json a")
                .unwrap_err()
                .contains("cannot read")
        );
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn calc_directive_reads_calcs_own_report() {
        let c = |body: &str| {
            Files::default()
                .evaluate(&parse(Kind::Calc, body).unwrap())
                .map(|(v, _)| v)
        };
        assert_eq!(c("m_bits n=1e6 p=1%"), Ok(9_585_058.0));
        assert_eq!(c("k n=1e6 p=1%"), Ok(7.0));
        let fpr = c("fpr_classic n=1e6 m=9585059 k=7").unwrap();
        assert!((fpr - bloomlab::theory::fpr_classic(9_585_059, 1_000_000, 7)).abs() < 1e-15);
        let sb = c("bits_per_key filter=split-block n=1e6 p=0.1%").unwrap();
        let direct = crate::cli::calc::kind_sizing(
            bloomlab::FilterKind::SplitBlock,
            1_000_000,
            Some(0.001),
            0,
            0,
        )
        .unwrap();
        assert_eq!(sb, direct.bits_per_key);
        assert!(c("nope n=1e6 p=1%").unwrap_err().contains("no key `nope`"));
        assert!(c("k n=1e6 p=2").unwrap_err().contains("calc --n 1e6 --p 2"));
        assert!(c("k n=1e6 bogus=3").unwrap_err().contains("bogus"));
    }
}
