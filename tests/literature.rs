//! The `literature` runner: published numbers reproduced, and a run that no longer reproduces
//! one fails with exit status 4 (what `.ci/experiments-quick.sh` relies on).

mod common;
use common::{run, tmp};

use bloomlab::experiment::Experiment;
use std::path::Path;

fn root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

/// A two-point spec: a standard filter's bit count (exact) and its rate at 10 bits/key, k = 7
/// (classic 0.819%), with the published figures given.
fn spec(bits: &str, rate: &str) -> String {
    format!(
        r#"
name = "lit"
question = "reproduced?"
runner = "literature"
queries = 200_000
[literature]
z_max = 4.5
guava_vectors = "{}"
[[points]]
id = "a"
kind = "standard"
source = "test"
config = "m = 200,000"
quantity = "m-bits"
published = "{bits}"
filter = {{ kind = "standard", n = 20_000, m = 200_000, k = 7 }}
[[points]]
id = "b"
kind = "standard"
source = "test"
config = "10 bits/key, k = 7"
quantity = "fpr"
published = "{rate}"
filter = {{ kind = "standard", n = 20_000, m = 200_000, k = 7 }}
[plot]
[[plot.panels]]
x = "row"
y = "ratio"
x_label = "row"
y_label = "ratio"
"#,
        root().join("tests/guava/vectors/literature.csv").display()
    )
}

#[test]
fn reproduced_numbers_pass_and_a_wrong_one_exits_4_naming_the_row() {
    let dir = tmp("lit-gate");
    let good = dir.join("good.toml");
    std::fs::write(&good, spec("200,000", "0.82%")).unwrap();
    let out = dir.join("out");
    let o = run(&[
        "run",
        good.to_str().unwrap(),
        "--out",
        out.to_str().unwrap(),
    ]);
    let stdout = String::from_utf8_lossy(&o.stdout);
    assert_eq!(
        o.status.code(),
        Some(0),
        "{stdout}\n{}",
        String::from_utf8_lossy(&o.stderr)
    );
    assert!(stdout.contains("2 agree"), "{stdout}");
    let md = std::fs::read_to_string(out.join("lit.md")).unwrap();
    assert!(md.contains("| a |") && md.contains("agrees"), "{md}");

    // An off-by-64 bit count and a rate far from the filter's: both rows fail, the files are
    // still written, the status is 4.
    let bad = dir.join("bad.toml");
    std::fs::write(&bad, spec("200,064", "1.5%")).unwrap();
    let o = run(&["run", bad.to_str().unwrap(), "--out", out.to_str().unwrap()]);
    let stderr = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(4), "{stderr}");
    assert!(
        stderr.contains("row a (standard)") && stderr.contains("200,064"),
        "{stderr}"
    );
    assert!(
        stderr.contains("row b (standard)") && stderr.contains("z = "),
        "{stderr}"
    );
    let csv = std::fs::read_to_string(out.join("lit.csv")).unwrap();
    assert_eq!(csv.matches(",FAIL").count(), 2, "{csv}");
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn the_committed_spec_validates_and_its_results_cover_every_point() {
    let exp = Experiment::load(&root().join("experiments/literature.toml")).expect("valid spec");
    let _quick = exp.quick();
    let ids: Vec<String> = exp
        .spec
        .points
        .iter()
        .map(|p| p.get_ref().id.clone())
        .collect();
    assert!(ids.len() >= 39, "{}", ids.len());
    // Every kind the issue names has its points.
    for kind in [
        "standard",
        "guava",
        "blocked",
        "split-block",
        "cuckoo",
        "xor",
        "binary-fuse",
        "ribbon",
        "quotient",
    ] {
        assert!(
            exp.spec.points.iter().any(|p| p.get_ref().kind == kind),
            "no {kind} point"
        );
    }
    // The committed full run is of this spec: same rows, none failed.
    let table = bloomlab::experiment::Table::read_csv(&root().join("results/literature.csv"))
        .expect("results/literature.csv (bloomlab run experiments/literature.toml)");
    let got: Vec<String> = (0..table.rows.len()).map(|r| table.text(r, "id")).collect();
    assert_eq!(
        got, ids,
        "results/literature.csv is stale: re-run the experiment"
    );
    for r in 0..table.rows.len() {
        assert_eq!(table.text(r, "check"), "ok", "row {}", table.text(r, "id"));
    }
}

#[test]
fn a_point_without_its_table_or_with_a_stray_field_is_refused_with_its_line() {
    let src = spec("200,000", "0.82%");
    let no_table = src.replace("[literature]\nz_max = 4.5\n", "");
    let e = Experiment::parse("x.toml", &no_table)
        .unwrap_err()
        .to_string();
    assert!(
        e.contains("literature") || e.contains("guava_vectors"),
        "{e}"
    );
    let stray = src.replace(
        "quantity = \"m-bits\"",
        "quantity = \"m-bits\"\nbits_resolution = 0.1",
    );
    let e = Experiment::parse("x.toml", &stray).unwrap_err().to_string();
    assert!(
        e.contains("points[0].bits_resolution") && e.contains("split-block"),
        "{e}"
    );
    let no_number = src.replace("published = \"0.82%\"", "published = \"about half\"");
    let e = Experiment::parse("x.toml", &no_number)
        .unwrap_err()
        .to_string();
    assert!(e.contains("points[1].published"), "{e}");
}
