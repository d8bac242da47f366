//! `bloomlab book-preprocess`, mdBook's preprocessor for the book's numbers, run as mdBook runs
//! it: `supports html`, then `[context, book]` on standard input.

mod common;

use std::io::Write as _;
use std::process::{Command, Stdio};

fn preprocess(input: &str) -> std::process::Output {
    let mut child = Command::new(env!("CARGO_BIN_EXE_bloomlab"))
        .arg("book-preprocess")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("binary runs");
    child
        .stdin
        .take()
        .unwrap()
        .write_all(input.as_bytes())
        .unwrap();
    child.wait_with_output().unwrap()
}

/// mdBook 0.5's JSON for a book at `root` with one chapter and one sub-chapter.
fn book(root: &std::path::Path, a: &str, b: &str) -> String {
    let chapter = |name: &str, path: &str, content: &str, sub: serde_json::Value| {
        serde_json::json!({"Chapter": {"name": name, "content": content, "number": [1],
            "sub_items": sub, "path": path, "source_path": path, "parent_names": []}})
    };
    let sub = chapter("B", "b.md", b, serde_json::json!([]));
    serde_json::json!([
        {"root": root.join("book"), "config": {}, "renderer": "html", "mdbook_version": "0.5.4"},
        {"items": [chapter("A", "a.md", a, serde_json::json!([sub])), "Separator"]}
    ])
    .to_string()
}

#[test]
fn supports_every_renderer() {
    let out = common::run(&["book-preprocess", "supports", "html"]);
    assert_eq!(out.status.code(), Some(0));
    let out = common::run(&["book-preprocess", "bogus"]);
    assert_eq!(out.status.code(), Some(2));
}

#[test]
fn expands_measured_and_computed_numbers_in_every_chapter() {
    let dir = common::tmp("book-numbers");
    std::fs::create_dir_all(dir.join("results")).unwrap();
    std::fs::write(
        dir.join("results/s.md"),
        "## query_hit\n\n| impl | n=100 |\n|---|---:|\n| standard | 159 (×3.76 peer) |\n",
    )
    .unwrap();
    std::fs::write(dir.join("results/r.csv"), "kind,fpr\nxor,0.0039\n").unwrap();
    let a = "Hits take {{#value results/s.md n=100 section=query_hit impl=standard unit=ns}}.\n\
             Literal: \\{{#calc k}} and {{#include x.md}}";
    let b = "m = {{#calc m_bits n=1e6 p=1%}} bits, k = {{#calc k n=1e6 p=1%}},\n\
             xor {{#value results/r.csv fpr kind=xor pct dp=2}}";
    let out = preprocess(&book(&dir, a, b));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(0), "{stderr}");
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).expect("a book on stdout");
    let first = &v["items"][0]["Chapter"];
    assert_eq!(
        first["content"],
        "Hits take 159 ns.\nLiteral: {{#calc k}} and {{#include x.md}}"
    );
    assert_eq!(
        first["sub_items"][0]["Chapter"]["content"],
        "m = 9,585,058 bits, k = 7,\nxor 0.39%"
    );
    assert_eq!(v["items"][1], "Separator");
    assert!(stderr.contains("4 number directives"), "{stderr}");
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn a_missing_key_or_a_parse_error_fails_naming_chapter_and_line() {
    let dir = common::tmp("book-numbers-bad");
    std::fs::create_dir_all(dir.join("results")).unwrap();
    std::fs::write(dir.join("results/r.csv"), "kind,fpr\nxor,0.0039\n").unwrap();
    let a = "fine {{#calc k n=1e6 p=1%}}\n\nbad {{#value results/r.csv fpr kind=ribbon}}";
    let b = "one\ntwo {{#calc k n=1e6 p=1% junk}}\nthree {{#calc nope n=1e6 p=1%}}";
    let out = preprocess(&book(&dir, a, b));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    assert!(out.stdout.is_empty(), "no book on a failure");
    for want in [
        "book/src/a.md:3: {{#value results/r.csv fpr kind=ribbon}}: results/r.csv: no row where kind=ribbon",
        "book/src/b.md:2: {{#calc k n=1e6 p=1% junk}}: `junk`: expected KEY=VALUE",
        "book/src/b.md:3: {{#calc nope n=1e6 p=1%}}: calc --n 1e6 --p 1% --json: no key `nope`",
    ] {
        assert!(stderr.contains(want), "missing {want:?} in {stderr}");
    }
    assert!(!stderr.contains("a.md:1"), "{stderr}");
    std::fs::remove_dir_all(&dir).unwrap();
}
