//! `bloomlab query --keys` answers in batches (`AnyFilter::contains_many_into`, groups of 1024
//! keys): its lines must be exactly what single queries of the same file give, in input order,
//! for every kind, with filters large enough (over 1 MiB) for the batch to take its prefetch
//! path and small enough to be answered one key at a time.

use bloomlab::persist::LoadOptions;
use bloomlab::{AnyFilter, Filter};
use std::path::Path;
use std::process::{Command, Output, Stdio};

fn run(dir: &Path, args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_bloomlab"))
        .args(args)
        .current_dir(dir)
        .stdin(Stdio::null())
        .output()
        .expect("binary runs")
}

fn text(b: &[u8]) -> String {
    String::from_utf8_lossy(b).into_owned()
}

/// What `query` prints for `key`, from one single `contains` of the loaded file (keys here
/// hold no byte that `query` escapes).
fn expected(f: &AnyFilter, keys: &[String]) -> String {
    keys.iter()
        .map(|k| {
            let a = if f.contains(k.as_bytes()) {
                "maybe-present"
            } else {
                "absent"
            };
            format!("{a}\t{k}\n")
        })
        .collect()
}

/// Build `kind` from `inserted` keys (with `extra` flags), then query 3,001 keys, present and
/// absent interleaved (3,001: two full groups of 1024 and a partial one), through `--keys`:
/// the output is the single queries' answers line for line, the summary counts them, and the
/// file is on the side of the 1 MiB prefetch threshold it was meant to be (`large`, if given).
fn check(kind: &str, inserted: u64, extra: &[&str], large: Option<bool>) {
    let dir = tempfile::tempdir().unwrap();
    let keys: String = (0..inserted).map(|i| format!("present-{i}\n")).collect();
    std::fs::write(dir.path().join("keys.txt"), &keys).unwrap();
    let probe: Vec<String> = (0..3_001u64)
        .map(|i| {
            if i % 2 == 0 {
                format!("present-{}", i * 7 % inserted)
            } else {
                format!("absent-{i}")
            }
        })
        .collect();
    let lines: String = probe.iter().map(|k| format!("{k}\n")).collect();
    std::fs::write(dir.path().join("probe.txt"), lines).unwrap();
    let mut args = vec![
        "build", "--keys", "keys.txt", "--filter", kind, "--out", "f.bloom",
    ];
    args.extend_from_slice(extra);
    let o = run(dir.path(), &args);
    assert!(o.status.success(), "{kind}: {}", text(&o.stderr));

    let f = AnyFilter::load(dir.path().join("f.bloom"), &LoadOptions::new()).unwrap();
    if let Some(large) = large {
        assert_eq!(f.bytes() >= 1 << 20, large, "{kind}: {} bytes", f.bytes());
    }
    let want = expected(&f, &probe);
    let maybe = want.lines().filter(|l| l.starts_with("maybe")).count();
    assert!(
        (1_501..3_001).contains(&maybe),
        "{kind}: {maybe} maybe-present"
    );

    let o = run(dir.path(), &["query", "f.bloom", "--keys", "probe.txt"]);
    assert_eq!(o.status.code(), Some(0), "{kind}: {}", text(&o.stderr));
    assert!(text(&o.stdout) == want, "{kind}: --keys answers differ");
    let summary = format!(
        "3,001 keys, {} maybe present, {} absent",
        bloomlab::units::thousands(maybe as u64),
        bloomlab::units::thousands(3_001 - maybe as u64)
    );
    assert!(text(&o.stderr).contains(&summary), "{}", text(&o.stderr));

    // Keys on the command line take the same path.
    let mut args = vec!["query", "f.bloom"];
    args.extend(probe[..40].iter().map(String::as_str));
    let o = run(dir.path(), &args);
    assert!(
        text(&o.stdout) == expected(&f, &probe[..40]),
        "{kind}: arguments"
    );
}

#[test]
fn batched_answers_equal_single_queries_for_every_dynamic_kind() {
    for kind in [
        "standard",
        "counting",
        "blocked",
        "split-block",
        "cuckoo",
        "quotient",
    ] {
        // Sized for 10^6 keys (1.2 MB and more) but holding 5,000: the prefetch path.
        check(kind, 5_000, &["--p", "0.01", "--n", "1000000"], Some(true));
        check(kind, 5_000, &["--p", "0.01"], Some(false));
    }
    // Grown over several layers; then one layer of 10^6.
    check(
        "scalable",
        5_000,
        &["--p", "0.01", "--n", "100"],
        Some(false),
    );
    check(
        "scalable",
        5_000,
        &["--p", "0.01", "--n", "1000000"],
        Some(true),
    );
}

#[test]
fn batched_answers_equal_single_queries_for_static_kinds() {
    // 2^20 keys: 8-bit xor and binary fuse tables of 1.1-1.3 MB (the prefetch path for xor).
    for kind in ["xor", "binary-fuse", "ribbon"] {
        let large = (kind != "ribbon").then_some(true);
        check(kind, 1 << 20, &["--p", "0.004"], large);
        check(kind, 5_000, &["--p", "0.004"], Some(false));
    }
}

/// A key file that turns bad part-way (a line over 64 KiB): the keys before it are answered,
/// in order, exactly as before batching, and the run ends with status 2 naming the line.
#[test]
fn keys_before_a_bad_line_are_answered() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("keys.txt"), "a\nb\n").unwrap();
    let o = run(
        dir.path(),
        &[
            "build", "--keys", "keys.txt", "--p", "0.01", "--out", "f.bloom",
        ],
    );
    assert!(o.status.success(), "{}", text(&o.stderr));
    let mut probe = String::from("a\nzz\nb\n");
    probe.push_str(&"x".repeat(70_000));
    probe.push_str("\nc\n");
    std::fs::write(dir.path().join("probe.txt"), probe).unwrap();
    let o = run(dir.path(), &["query", "f.bloom", "--keys", "probe.txt"]);
    assert_eq!(o.status.code(), Some(2), "{}", text(&o.stderr));
    assert_eq!(
        text(&o.stdout),
        "maybe-present\ta\nabsent\tzz\nmaybe-present\tb\n"
    );
    assert!(text(&o.stderr).contains("line 4"), "{}", text(&o.stderr));
}
