//! Where a spec path (`filters[1].p`, `quick.sweep.values`) is in the TOML text, and which path
//! a byte offset belongs to — both from the spans the `toml` parser records
//! ([`toml::de::DeTable`], whose keys and values are [`toml::Spanned`]), not from scanning lines.

use std::ops::Range;
use toml::Spanned;
use toml::de::{DeTable, DeValue};

/// A position in the source: 1-based line and column (in characters).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Pos {
    /// Line.
    pub line: usize,
    /// Column.
    pub column: usize,
}

/// The position of byte offset `at` in `src`.
pub(crate) fn pos_of(src: &str, at: usize) -> Pos {
    let mut at = at.min(src.len());
    while !src.is_char_boundary(at) {
        at -= 1;
    }
    let before = &src[..at];
    let line_start = before.rfind('\n').map_or(0, |i| i + 1);
    Pos {
        line: before.matches('\n').count() + 1,
        column: before[line_start..].chars().count() + 1,
    }
}

/// One step of a path: a key or an array index.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Seg<'a> {
    Key(&'a str),
    Index(usize),
}

/// `filters[1].p` → `filters`, `[1]`, `p` (`""` is the document itself).
fn segments(path: &str) -> Vec<Seg<'_>> {
    let mut out = Vec::new();
    for part in path.split('.').filter(|p| !p.is_empty()) {
        let (name, mut rest) = part.split_once('[').map_or((part, ""), |(n, r)| (n, r));
        out.push(Seg::Key(name));
        while let Some((idx, tail)) = rest.split_once(']') {
            if let Ok(i) = idx.parse() {
                out.push(Seg::Index(i));
            }
            rest = tail.strip_prefix('[').unwrap_or("");
        }
    }
    out
}

/// The parsed document, for looking spans up.
pub(crate) struct Doc<'i>(Spanned<DeTable<'i>>);

impl<'i> Doc<'i> {
    /// Parse `src`; after a syntax error, as much of it as the parser recovered.
    pub(crate) fn parse(src: &'i str) -> Self {
        Doc(DeTable::parse_recoverable(src).0)
    }

    /// The span of the value at `path` (for a table: where the table is defined), if present.
    pub(crate) fn span(&self, path: &str) -> Option<Range<usize>> {
        let segs = segments(path);
        let Some((first, rest)) = segs.split_first() else {
            return Some(self.0.span());
        };
        let Seg::Key(k) = first else { return None };
        let mut cur = self.0.get_ref().get(*k)?;
        for s in rest {
            cur = match (s, cur.get_ref()) {
                (Seg::Key(k), DeValue::Table(t)) => t.get(*k)?,
                (Seg::Index(i), DeValue::Array(a)) => a.get(*i)?,
                _ => return None,
            };
        }
        Some(cur.span())
    }

    /// The dotted path of the innermost key or array element whose key or value contains byte
    /// offset `at` (`""`: the top level).
    pub(crate) fn path_at(&self, at: usize) -> String {
        let mut path = String::new();
        let mut table = self.0.get_ref();
        loop {
            let Some((k, v)) = table
                .iter()
                .find(|(k, v)| contains(&k.span(), at) || holds(v, at))
            else {
                return path;
            };
            if !path.is_empty() {
                path.push('.');
            }
            path.push_str(k.get_ref());
            let mut v = v;
            loop {
                match v.get_ref() {
                    DeValue::Table(t) => {
                        table = t;
                        break;
                    }
                    DeValue::Array(a) => match a.iter().position(|e| holds(e, at)) {
                        Some(i) => {
                            path.push_str(&format!("[{i}]"));
                            v = &a[i];
                        }
                        None => return path,
                    },
                    _ => return path,
                }
            }
        }
    }
}

/// Whether offset `at` is inside value `v`: its span, or (an array of tables, whose span the
/// parser does not stretch over the tables) one of its elements or entries.
fn holds(v: &Spanned<DeValue<'_>>, at: usize) -> bool {
    contains(&v.span(), at)
        || match v.get_ref() {
            DeValue::Array(a) => a.iter().any(|e| holds(e, at)),
            DeValue::Table(t) => t
                .iter()
                .any(|(k, v)| contains(&k.span(), at) || holds(v, at)),
            _ => false,
        }
}

fn contains(r: &Range<usize>, at: usize) -> bool {
    r.start <= at && (at < r.end || (r.start == r.end && at == r.start))
}

#[cfg(test)]
mod tests {
    use super::*;

    const SRC: &str = "name = \"x\"\n\n[[filters]]\nkind = \"standard\"\n\n[[filters]]\nkind = \"cuckoo\"\np = 0.5\n\n[sweep]\nvar = \"n\"\nrange = { from = 1, to = 2, points = 2 }\n";

    #[test]
    fn paths_and_spans_agree() {
        let d = Doc::parse(SRC);
        for (path, line) in [
            ("name", 1),
            ("filters[1].p", 8),
            ("filters[1].kind", 7),
            ("sweep.var", 11),
            ("sweep.range.points", 12),
        ] {
            let s = d.span(path).unwrap_or_else(|| panic!("{path}"));
            assert_eq!(pos_of(SRC, s.start).line, line, "{path}");
            assert_eq!(d.path_at(s.start), path);
        }
        assert_eq!(d.span("filters[2]"), None);
        assert_eq!(d.span("sweep.values"), None);
        let p = d.span("filters[1].p").unwrap();
        assert_eq!(pos_of(SRC, p.start), Pos { line: 8, column: 5 });
    }
}
