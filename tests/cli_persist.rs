//! `bloomlab build --filter F` for every kind, and `bloomlab query` on the files it writes.

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

/// Write 300 keys, build a `kind` filter with `extra` flags, then query 300 present keys (all
/// answered maybe-present, exit 0) and 2,000 absent keys (mostly absent, each line answered).
fn build_and_query(kind: &str, extra: &[&str]) -> String {
    let dir = tempfile::tempdir().unwrap();
    let keys: String = (0..300).map(|i| format!("present-{i}\n")).collect();
    std::fs::write(dir.path().join("keys.txt"), &keys).unwrap();
    let absent: String = (0..2_000).map(|i| format!("absent-{i}\n")).collect();
    std::fs::write(dir.path().join("absent.txt"), &absent).unwrap();
    let mut args = vec![
        "build", "--keys", "keys.txt", "--filter", kind, "--out", "f.bloom",
    ];
    args.extend_from_slice(extra);
    let o = run(dir.path(), &args);
    assert!(o.status.success(), "{kind}: {}", text(&o.stderr));
    let built = text(&o.stdout);
    assert!(
        built.contains(&format!("built a {kind} filter: 300 keys")),
        "{built}"
    );

    let o = run(dir.path(), &["query", "f.bloom", "--keys", "keys.txt"]);
    assert_eq!(o.status.code(), Some(0), "{kind}: {}", text(&o.stderr));
    let out = text(&o.stdout);
    assert_eq!(out.lines().count(), 300);
    assert!(
        out.lines()
            .all(|l| l.starts_with("maybe-present\tpresent-")),
        "{kind}"
    );

    let o = run(dir.path(), &["query", "f.bloom", "--keys", "absent.txt"]);
    let out = text(&o.stdout);
    assert_eq!(out.lines().count(), 2_000, "{kind}: {}", text(&o.stderr));
    let hits = out
        .lines()
        .filter(|l| l.starts_with("maybe-present"))
        .count();
    // Built for p = 1% (cuckoo: f = 12 bits): far fewer than 5% false positives.
    assert!(
        hits < 100,
        "{kind}: {hits} of 2,000 absent keys answered maybe-present"
    );
    built
}

#[test]
fn cuckoo_builds_and_queries() {
    let built = build_and_query("cuckoo", &["--p", "0.01"]);
    assert!(built.contains("strategy none"), "{built}");
}

#[test]
fn scalable_builds_past_its_first_layer_and_queries() {
    // First layer for 50 keys: 300 keys need more layers.
    let built = build_and_query("scalable", &["--p", "0.01", "--n", "50"]);
    assert!(built.contains("strategy enhanced-double"), "{built}");
}

#[test]
fn every_other_kind_builds_and_queries() {
    for kind in ["standard", "counting", "blocked", "split-block"] {
        build_and_query(kind, &["--p", "0.01"]);
    }
}

#[test]
fn a_keyed_cuckoo_file_needs_its_key() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("keys.txt"), "a\nb\nc\n").unwrap();
    std::fs::write(
        dir.path().join("k.hex"),
        "000102030405060708090a0b0c0d0e0f\n",
    )
    .unwrap();
    let o = run(
        dir.path(),
        &[
            "build",
            "--keys",
            "keys.txt",
            "--filter",
            "cuckoo",
            "--p",
            "0.01",
            "--hash",
            "sip24",
            "--key-file",
            "k.hex",
            "--out",
            "f.bloom",
        ],
    );
    assert!(o.status.success(), "{}", text(&o.stderr));
    let o = run(dir.path(), &["query", "f.bloom", "a"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(text(&o.stderr).contains("key"), "{}", text(&o.stderr));
    let o = run(
        dir.path(),
        &["query", "f.bloom", "a", "b", "--key-file", "k.hex"],
    );
    assert_eq!(o.status.code(), Some(0), "{}", text(&o.stderr));
    assert_eq!(text(&o.stdout), "maybe-present\ta\nmaybe-present\tb\n");
}

#[test]
fn a_full_filter_refuses_and_writes_nothing() {
    // A non-scaling filter for 10 keys given 50: refused with a message, no file.
    let dir = tempfile::tempdir().unwrap();
    let keys: String = (0..50).map(|i| format!("k{i}\n")).collect();
    std::fs::write(dir.path().join("keys.txt"), keys).unwrap();
    let o = run(
        dir.path(),
        &[
            "build",
            "--keys",
            "keys.txt",
            "--filter",
            "scalable",
            "--p",
            "0.01",
            "--n",
            "10",
            "--nonscaling",
            "--out",
            "f.bloom",
        ],
    );
    assert_eq!(o.status.code(), Some(2));
    let e = text(&o.stderr);
    assert!(
        e.contains("refused a key after 10") && e.contains("nothing was written"),
        "{e}"
    );
    assert!(!dir.path().join("f.bloom").exists());
    // The same keys into a cuckoo filter: the 9th copy of one key cannot be stored.
    std::fs::write(dir.path().join("dups.txt"), "same\n".repeat(9)).unwrap();
    let o = run(
        dir.path(),
        &[
            "build", "--keys", "dups.txt", "--filter", "cuckoo", "--p", "0.01", "--out", "f.bloom",
        ],
    );
    assert_eq!(o.status.code(), Some(2));
    // Named as the cuckoo filter's 2b limit, not as a full table (issue 40).
    let e = text(&o.stderr);
    assert!(
        e.contains("after 8 keys one key came once more")
            && e.contains("the key repeats too often for a cuckoo filter")
            && !e.contains("larger --n"),
        "{e}"
    );
    assert!(!dir.path().join("f.bloom").exists());
}
