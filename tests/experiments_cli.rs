//! `bloomlab run`: specs in, CSV + SVG + PNG out; bad specs refused with file, line and field.

mod common;
use common::{run, tmp};

use bloomlab::experiment::Table;
use std::path::Path;

fn write(dir: &Path, name: &str, text: &str) -> String {
    let p = dir.join(name);
    std::fs::write(&p, text).unwrap();
    p.display().to_string()
}

const MEMORY: &str = r#"
name = "mem"
question = "bytes?"
runner = "memory"
keys = "email"
baselines = ["hashset-u64", "hashset-string"]
[params]
string_cap = 2000
extrapolate_to = [1e6]
[[filters]]
kind = "standard"
p = 0.01
[[filters]]
kind = "blocked"
p = 0.01
[sweep]
var = "n"
values = [1000, 2000, 5000]
[plot]
[[plot.panels]]
y = "bytes"
x_label = "n"
y_label = "bytes"
x_scale = "log"
y_scale = "log"
"#;

#[test]
fn memory_experiment_measures_bytes_with_the_counting_allocator() {
    let dir = tmp("run-mem");
    let spec = write(&dir, "mem.toml", MEMORY);
    let out = dir.join("out");
    let o = run(&["run", &spec, "--out", out.to_str().unwrap()]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let t = Table::read_csv(&out.join("mem.csv")).unwrap();
    let mut seen = [false; 3];
    for r in 0..t.rows.len() {
        let series = t.text(r, "series");
        let measured = t.text(r, "row_type") == "measured";
        if series.starts_with("standard") || series.starts_with("blocked") {
            // The allocator sees the filter's own byte count plus the boxed filter struct
            // (a few dozen bytes: Box<dyn Filter> lives on the heap too). For blocked, not the
            // blocked model's process-wide memo that sizing fills on first use (≈78 KB at
            // n = 1000 before the runner's warm-up build).
            let extra = t.num(r, "bytes").unwrap() - t.num(r, "bytes_reported").unwrap();
            assert!((0.0..256.0).contains(&extra), "row {r}: {extra}");
            seen[0] = true;
        } else if measured && series.starts_with("HashSet") {
            // hashbrown's layout model is exact.
            assert_eq!(
                t.num(r, "bytes"),
                t.num(r, "bytes_model"),
                "{series} row {r}"
            );
            seen[1] = true;
        } else if t.text(r, "row_type") == "extrapolated" {
            assert!(t.num(r, "n").unwrap() >= 2000.0);
            seen[2] = true;
        }
    }
    assert_eq!(seen, [true; 3]);
    // The HashSet<String> is not built past string_cap.
    assert!((0..t.rows.len()).all(|r| !(t.text(r, "series") == "HashSet<String>"
        && t.num(r, "n").unwrap() > 2000.0)));
    for ext in ["svg", "png"] {
        assert!(out.join(format!("mem.{ext}")).exists());
    }
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn a_bad_spec_names_file_line_and_field_and_exits_2() {
    let dir = tmp("run-bad");
    let spec = write(
        &dir,
        "bad.toml",
        &MEMORY.replace("var = \"n\"", "var = \"nn\""),
    );
    let o = run(&["run", &spec, "--out", dir.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(2));
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(
        err.contains(&format!("{spec}:17:7: sweep.var: unknown variant `nn`")),
        "{err}"
    );
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn quick_shrinks_and_all_runs_a_directory() {
    let dir = tmp("run-all");
    let sweep = r#"
name = "tiny"
question = "?"
trials = 3
queries = 100000
[[filters]]
kind = "standard"
n = 100000
p = 0.01
[sweep]
var = "fill"
values = [0.5, 1.0]
[quick]
trials = 1
queries = 500
n_scale = 0.01
[plot]
[[plot.panels]]
y = "fpr"
x_label = "fill"
y_label = "FPR"
"#;
    write(&dir, "tiny.toml", sweep);
    let out = dir.join("out");
    let o = run(&[
        "run",
        "--all",
        "--quick",
        "--dir",
        dir.to_str().unwrap(),
        "--out",
        out.to_str().unwrap(),
    ]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let t = Table::read_csv(&out.join("tiny.csv")).unwrap();
    assert_eq!(t.rows.len(), 2);
    assert_eq!(t.num(0, "queries"), Some(500.0));
    assert_eq!(t.num(1, "inserted"), Some(1000.0)); // n 100,000 × 0.01, fill 1.0
    std::fs::remove_dir_all(&dir).unwrap();
}
