//! `bloomlab book-preprocess` (hidden): the book's mdBook preprocessor, one route for its
//! numbers. A measured number comes from the results file that holds it (`{{#value …}}`), a
//! computed one from `bloomlab calc`'s own report (`{{#calc …}}`); the syntax is in
//! [`directive`] and in the book's chapter "How this book is made".
//!
//! mdBook runs it twice: `bloomlab book-preprocess supports RENDERER` (exit 0: every renderer),
//! then with `[context, book]` as JSON on standard input, expecting the book on standard output.
//! A directive that does not parse or whose number is missing fails the build: every such
//! directive is named on standard error with its chapter and line, and the exit status is 2.

pub mod directive;
pub mod lookup;

use super::out::errln;
use bloomlab::{Error, Param, Result};
use std::io::Read as _;
use std::path::Path;

/// mdBook's preprocessor protocol (not for people: hidden from `--help`).
#[derive(Debug, clap::Args)]
pub struct Args {
    /// `supports RENDERER`: mdBook asks whether a renderer is supported (always yes).
    #[arg(num_args = 0..=2)]
    pub words: Vec<String>,
}

/// One directive that failed: where, and why.
#[derive(Debug, Clone, PartialEq)]
pub struct Failure {
    /// The chapter's source path (relative to the book's `src`).
    pub chapter: String,
    /// 1-based line.
    pub line: usize,
    /// The directive's text and what went wrong.
    pub message: String,
}

/// `content` with every directive replaced by its number; the failures otherwise.
///
/// # Errors
/// Every directive that does not parse or has no number.
pub fn expand(
    content: &str,
    chapter: &str,
    files: &mut lookup::Files,
) -> std::result::Result<(String, usize), Vec<Failure>> {
    let found = directive::find(content);
    let mut out = String::with_capacity(content.len());
    let mut failures = Vec::new();
    let mut at = 0;
    for f in &found {
        out.push_str(&directive::unescape(&content[at..f.range.start]));
        at = f.range.end;
        let text = &content[f.range.clone()];
        match f.parsed.as_ref().map_err(Clone::clone).and_then(|d| {
            files
                .evaluate(d)
                .map(|(v, written)| directive::render(v, written, &d.format))
        }) {
            Ok(number) => out.push_str(&number),
            Err(message) => failures.push(Failure {
                chapter: chapter.to_string(),
                line: f.line,
                message: format!("{text}: {message}"),
            }),
        }
    }
    out.push_str(&directive::unescape(&content[at..]));
    if failures.is_empty() {
        Ok((out, found.len()))
    } else {
        Err(failures)
    }
}

/// Expand every chapter of mdBook's `book` JSON in place (recursively through `sub_items`);
/// returns the number of directives.
fn walk(
    v: &mut serde_json::Value,
    files: &mut lookup::Files,
    failures: &mut Vec<Failure>,
) -> usize {
    let mut count = 0;
    match v {
        serde_json::Value::Object(o) => {
            if let Some(serde_json::Value::Object(ch)) = o.get_mut("Chapter") {
                let name = ch
                    .get("source_path")
                    .or_else(|| ch.get("path"))
                    .and_then(|p| p.as_str())
                    .unwrap_or("?")
                    .to_string();
                if let Some(serde_json::Value::String(content)) = ch.get_mut("content") {
                    match expand(content, &name, files) {
                        Ok((text, n)) => {
                            *content = text;
                            count += n;
                        }
                        Err(f) => failures.extend(f),
                    }
                }
            }
            for (_, child) in o.iter_mut() {
                count += walk(child, files, failures);
            }
        }
        serde_json::Value::Array(a) => {
            for child in a {
                count += walk(child, files, failures);
            }
        }
        _ => {}
    }
    count
}

/// mdBook's input `[context, book]` → the book with its numbers, and the directive count.
/// Results paths are relative to the book root's parent (the repository).
///
/// # Errors
/// Input that is not mdBook's JSON (as text), or the failed directives.
pub fn preprocess(input: &str) -> std::result::Result<(String, usize), Vec<Failure>> {
    let fail = |message: String| {
        vec![Failure {
            chapter: "(mdBook input)".into(),
            line: 0,
            message,
        }]
    };
    let parsed: serde_json::Value =
        serde_json::from_str(input).map_err(|e| fail(format!("not mdBook's JSON: {e}")))?;
    let serde_json::Value::Array(mut pair) = parsed else {
        return Err(fail("expected [context, book]".into()));
    };
    if pair.len() != 2 {
        return Err(fail("expected [context, book]".into()));
    }
    let root = pair[0]
        .get("root")
        .and_then(|r| r.as_str())
        .ok_or_else(|| fail("the context has no `root`".into()))?;
    let repo = Path::new(root)
        .parent()
        .ok_or_else(|| fail(format!("the book root {root} has no parent")))?;
    let mut files = lookup::Files::new(repo);
    let mut failures = Vec::new();
    let mut book = pair.pop().unwrap_or_default();
    let count = walk(&mut book, &mut files, &mut failures);
    if !failures.is_empty() {
        return Err(failures);
    }
    serde_json::to_string(&book)
        .map(|s| (s, count))
        .map_err(|e| fail(e.to_string()))
}

/// Run the command.
///
/// # Errors
/// Standard input unreadable, or a directive failed (exit status 2, each failure on its line).
pub fn run(a: &Args) -> Result<()> {
    match a.words.first().map(String::as_str) {
        Some("supports") => return Ok(()),
        Some(other) => {
            return Err(Error::invalid(
                Param::Other("book-preprocess"),
                other,
                "no argument (mdBook's JSON on standard input) or `supports RENDERER`",
            ));
        }
        None => {}
    }
    let mut input = String::new();
    std::io::stdin()
        .read_to_string(&mut input)
        .map_err(|e| Error::Io {
            path: "standard input".into(),
            message: e.to_string(),
        })?;
    match preprocess(&input) {
        Ok((book, count)) => {
            errln!("book-preprocess: {count} number directives expanded");
            super::out::outln!("{book}")
        }
        Err(failures) => {
            for f in &failures {
                errln!("book/src/{}:{}: {}", f.chapter, f.line, f.message);
            }
            Err(Error::invalid(
                Param::Other("book directives"),
                format!("{} failed", failures.len()),
                "every {{#value}} and {{#calc}} with a number (see the lines above)",
            ))
        }
    }
}
