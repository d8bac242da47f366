//! The edges issue 40 found by adversarial trial, each run end to end through the binary: a
//! static build past the memory limit, a cuckoo filter fed one key too often, an output that is
//! standard input, `choose` without a rate, `query --keys`'s summary line.

mod common;

use common::tmp;
use std::process::{Command, Output, Stdio};

fn bin() -> Command {
    Command::new(env!("CARGO_BIN_EXE_bloomlab"))
}

fn text(o: &Output) -> (Option<i32>, String, String) {
    (
        o.status.code(),
        String::from_utf8_lossy(&o.stdout).into_owned(),
        String::from_utf8_lossy(&o.stderr).into_owned(),
    )
}

/// `bloomlab ARGS` in `dir`, standard input from `stdin` (a file) or nothing.
fn run_in(dir: &std::path::Path, args: &str, stdin: Option<&str>) -> (Option<i32>, String, String) {
    let mut c = bin();
    c.current_dir(dir).args(args.split_whitespace());
    match stdin {
        Some(f) => c.stdin(std::fs::File::open(dir.join(f)).unwrap()),
        None => c.stdin(Stdio::null()),
    };
    text(&c.output().expect("binary runs"))
}

/// The static kinds' builds under an address-space limit of 1.5 GB (`prlimit --as`): 10^9 and
/// 2^32 keys need 8 and 34 GB for their key arrays alone, so the first large allocation is
/// refused by the kernel (nothing big is ever allocated) and the run must say so (exit 2), not
/// abort with SIGABRT (exit 134) as it did.
#[test]
fn static_builds_past_the_memory_limit_exit_2_with_cannot_allocate() {
    for kind in ["xor", "ribbon", "binary-fuse"] {
        for n in ["1e9", "4294967296"] {
            let o = Command::new("prlimit")
                .arg("--as=1500000000")
                .arg(env!("CARGO_BIN_EXE_bloomlab"))
                .args(["measure", "--filter", kind, "--n", n, "--p", "0.01"])
                .args(["--queries", "1000", "--trials", "1"])
                .stdin(Stdio::null())
                .output()
                .expect("prlimit (util-linux) runs");
            let (code, _, err) = text(&o);
            assert_eq!(code, Some(2), "{kind} n = {n}: {err}");
            assert!(
                err.starts_with("error: cannot allocate ")
                    && err.contains("(choose a smaller m or a larger p)")
                    && err.lines().count() == 1,
                "{kind} n = {n}: {err}"
            );
        }
    }
}

/// Nine copies of one key into a cuckoo filter of b = 4: the ninth is refused for what it is,
/// a key repeated more than 2b times (not "give a larger --n"), and nothing is written.
#[test]
fn a_cuckoo_key_repeated_past_2b_names_the_repeat_limit() {
    let d = tmp("edges-cuckoo");
    std::fs::write(d.join("k.txt"), "samekey\n".repeat(9)).unwrap();
    let (code, _, err) = run_in(
        &d,
        "build --keys k.txt --filter cuckoo --n 1000 --p 0.01 --out c.bloom",
        None,
    );
    assert_eq!(code, Some(2), "{err}");
    assert!(
        err.contains("keys that repeat at most 2b = 8 times")
            && err.contains("the key repeats too often for a cuckoo filter")
            && err.contains("dedupe the keys, or use a counting or standard Bloom filter")
            && !err.contains("larger --n"),
        "{err}"
    );
    assert!(!d.join("c.bloom").exists());
    let _ = std::fs::remove_dir_all(&d);
}

/// `build --keys - --out F < F`, F an existing filter file: standard input is the output, found
/// by device and inode before anything is read or written; F is left as it was.
#[test]
fn an_output_that_is_standard_input_is_refused_before_writing() {
    let d = tmp("edges-stdin");
    std::fs::write(d.join("keys.txt"), "a\nb\nc\n").unwrap();
    let (code, _, err) = run_in(&d, "build --keys keys.txt --p 0.01 --out f.bloom", None);
    assert_eq!(code, Some(0), "{err}");
    let before = std::fs::read(d.join("f.bloom")).unwrap();
    std::os::unix::fs::symlink("f.bloom", d.join("link.bloom")).unwrap();
    for out in ["f.bloom", "./f.bloom", "link.bloom --follow-symlinks"] {
        let args = format!("build --keys - --n 10 --p 0.01 --out {out}");
        let (code, _, err) = run_in(&d, &args, Some("f.bloom"));
        assert_eq!(code, Some(2), "{args}: {err}");
        assert!(
            err.contains("standard input is this file: writing it would destroy the input"),
            "{args}: {err}"
        );
        assert_eq!(std::fs::read(d.join("f.bloom")).unwrap(), before, "{args}");
    }
    // Standard input from another file: built as before.
    let (code, _, err) = run_in(
        &d,
        "build --keys - --n 10 --p 0.01 --out g.bloom",
        Some("keys.txt"),
    );
    assert_eq!(code, Some(0), "{err}");
    let _ = std::fs::remove_dir_all(&d);
}

/// `choose` without a rate: no cost given names all three targets (exit 2); a negative cost
/// alone picks the rate from the cost model and says which and why.
#[test]
fn choose_without_a_rate_names_the_alternatives_or_picks_one_from_the_cost() {
    let d = tmp("edges-choose");
    let (code, out, err) = run_in(&d, "choose --n 1e6", None);
    assert_eq!(code, Some(2), "{err}");
    assert!(out.is_empty());
    for flag in ["--p", "--bits-per-key", "--memory", "--negative-cost"] {
        assert!(err.contains(flag), "{flag} missing: {err}");
    }
    let mut picked = Vec::new();
    for cost in ["20ns", "1ms"] {
        let args = format!("choose --n 2000 --negative-cost {cost} --quick --json");
        let (code, out, err) = run_in(&d, &args, None);
        assert_eq!(code, Some(0), "{args}: {err}");
        assert!(
            err.starts_with("no --p: chose p = ") && err.contains("Lang et al., PVLDB 2019"),
            "{args}: {err}"
        );
        let v: serde_json::Value = serde_json::from_str(&out).unwrap();
        let p = v["constraints"]["target"]["value"].as_f64().unwrap();
        assert_eq!(v["constraints"]["target"]["by"], "fpr", "{v}");
        picked.push(p);
    }
    // A false positive that costs more buys a lower rate.
    assert!(picked[1] < picked[0] / 10.0, "{picked:?}");
    let _ = std::fs::remove_dir_all(&d);
}

/// `query --keys FILE` ends with one summary line on standard error; standard output keeps one
/// line per key.
#[test]
fn query_with_a_key_file_ends_with_a_summary() {
    let d = tmp("edges-query");
    let keys: String = (0..50).map(|i| format!("k{i}\n")).collect();
    std::fs::write(d.join("keys.txt"), &keys).unwrap();
    let (code, _, err) = run_in(&d, "build --keys keys.txt --p 0.0001 --out f.bloom", None);
    assert_eq!(code, Some(0), "{err}");
    let asked: String = (0..50)
        .chain(1000..1030)
        .map(|i| format!("k{i}\n"))
        .collect();
    std::fs::write(d.join("ask.txt"), asked).unwrap();
    let (code, out, err) = run_in(&d, "query f.bloom --keys ask.txt", None);
    assert_eq!(code, Some(0), "{err}");
    let maybe = out
        .lines()
        .filter(|l| l.starts_with("maybe-present\t"))
        .count();
    assert_eq!(out.lines().count(), 80);
    assert!(maybe >= 50);
    assert_eq!(
        err,
        format!("80 keys, {maybe} maybe present, {} absent\n", 80 - maybe)
    );
    let (code, _, err) = run_in(&d, "query f.bloom --keys -", Some("ask.txt"));
    assert_eq!((code, err.lines().count()), (Some(0), 1), "{err}");
    // Keys on the command line: one answer each, no summary.
    let (code, _, err) = run_in(&d, "query f.bloom k1 k2", None);
    assert_eq!((code, err.as_str()), (Some(0), ""));
    let _ = std::fs::remove_dir_all(&d);
}
