use super::*;
use crate::plot::Scale;
// `runners::run` directly: the table, without writing files.
use super::runners;

const GOOD: &str = r#"
name = "demo"
question = "Does it work?"
runner = "sweep"
keys = "u64"
trials = 2
queries = 1000
seed = 7

[[filters]]
kind = "standard"
n = 1000
p = 0.01

[[filters]]
kind = "standard"
n = 1000
p = 0.001

[sweep]
var = "fill"
range = { from = 0.5, to = 1.5, points = 3 }

[quick]
trials = 1
queries = 100
n_scale = 0.1

[plot]
title = "demo"
[[plot.panels]]
y = "fpr"
x_label = "fill"
y_label = "FPR"
y_scale = "log"
lines = [{ column = "theory_classic", label = "classic" }]
"#;

fn err(src: &str) -> String {
    Experiment::parse("e.toml", src).unwrap_err().to_string()
}

#[test]
fn parses_and_expands_series() {
    let e = Experiment::parse("e.toml", GOOD).unwrap();
    assert_eq!(e.sweep_values(), vec![0.5, 1.0, 1.5]);
    let s = e.series();
    assert_eq!(s.len(), 2);
    assert_eq!(s[0].label, "standard p=1%");
    assert_eq!(s[1].label, "standard p=0.1%");
    let q = e.quick();
    assert_eq!((q.spec.trials, q.spec.queries), (1, 100));
    assert_eq!(q.series()[0].spec.n, 100);
}

#[test]
fn syntax_and_type_errors_name_file_line_and_field() {
    let bad = GOOD.replace("trials = 2", "trials = \"two\"");
    assert!(
        err(&bad).starts_with("e.toml:6:10: trials:"),
        "{}",
        err(&bad)
    );
    let bad = GOOD.replace("var = \"fill\"", "var = \"fil\"");
    let e = err(&bad);
    assert!(e.starts_with("e.toml:21:7: sweep.var:"), "{e}");
    assert!(e.contains("fill"), "lists the valid names: {e}");
    let bad = GOOD.replace(
        "kind = \"standard\"\nn = 1000\np = 0.001",
        "kind = \"bloomy\"\nn = 1000\np = 0.001",
    );
    let e = err(&bad);
    assert!(e.starts_with("e.toml:16:8: filters[1].kind:"), "{e}");
    let bad = GOOD.replace("seed = 7", "seed = 7\ncolour = \"red\"");
    let e = err(&bad);
    assert!(
        e.starts_with("e.toml:9:1: colour:") && e.contains("unknown field"),
        "{e}"
    );
}

#[test]
fn semantic_errors_name_line_and_field() {
    let bad = GOOD.replace("p = 0.001", "p = 1.5");
    assert!(
        err(&bad).starts_with("e.toml:18:5: filters[1].p:"),
        "{}",
        err(&bad)
    );
    let bad = GOOD.replace("var = \"fill\"", "var = \"load\"");
    let e = err(&bad);
    assert!(
        e.starts_with("e.toml:21:7: sweep.var: the sweep runner sweeps one of"),
        "{e}"
    );
    let bad = GOOD.replace(
        "range = { from = 0.5, to = 1.5, points = 3 }",
        "values = []",
    );
    assert!(
        err(&bad).starts_with("e.toml:22:10: sweep.values:"),
        "{}",
        err(&bad)
    );
    let bad = GOOD.replace("trials = 2", "trials = 0");
    assert!(
        err(&bad).starts_with("e.toml:6:10: trials:"),
        "{}",
        err(&bad)
    );
    let bad = GOOD.replace("n = 1000\np = 0.01\n", "p = 0.01\n");
    assert!(
        err(&bad).starts_with("e.toml:10:1: filters[0]: give n"),
        "{}",
        err(&bad)
    );
    let bad = GOOD.replace("n_scale = 0.1", "n_scale = 2");
    assert!(
        err(&bad).starts_with("e.toml:27:11: quick.n_scale:"),
        "{}",
        err(&bad)
    );
}

#[test]
fn log_ranges_and_integer_sweeps() {
    let r = Range {
        from: 1e3,
        to: 1e6,
        points: 4,
        scale: Scale::Log,
    };
    let v = r.values();
    assert!(
        (v[1] - 1e4).abs() < 1e-6 && (v[3] - 1e6).abs() < 1e-3,
        "{v:?}"
    );
    let s = Sweep {
        var: SweepVar::K,
        values: Some(vec![1.2, 1.4, 2.0, 2.6]),
        range: None,
    };
    assert_eq!(s.values(), vec![1.0, 2.0, 3.0]);
}

#[test]
fn runs_a_small_sweep_into_csv_and_charts() {
    let e = Experiment::parse("e.toml", GOOD).unwrap().quick();
    let dir = std::env::temp_dir().join(format!("bloomlab-exp-{}", std::process::id()));
    let report = e.run(&dir, &NoProgress).unwrap();
    assert_eq!(report.rows, 6);
    let t = Table::read_csv(&report.files.csv).unwrap();
    for c in [
        "series",
        "x",
        "fpr",
        "fpr_lo",
        "fpr_hi",
        "theory_classic",
        "theory_exact",
    ] {
        assert!(t.col(c).is_some(), "missing {c}");
    }
    // No false negatives, ever.
    assert!((0..t.rows.len()).all(|r| t.num(r, "false_negatives") == Some(0.0)));
    let svg = std::fs::read_to_string(&report.files.svg).unwrap();
    assert!(svg.contains("classic") && svg.contains("standard p=1%"));
    assert!(std::fs::metadata(&report.files.png).unwrap().len() > 1000);
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn a_plot_column_that_does_not_exist_is_a_spec_error() {
    let bad = GOOD.replace("y = \"fpr\"", "y = \"fpr_typo\"");
    let e = Experiment::parse("e.toml", &bad).unwrap().quick();
    let dir = std::env::temp_dir().join(format!("bloomlab-exp2-{}", std::process::id()));
    let msg = e.run(&dir, &NoProgress).unwrap_err().to_string();
    assert!(
        msg.starts_with("e.toml:32:5: plot.panels[0].y: no column 'fpr_typo'"),
        "{msg}"
    );
    let _ = std::fs::remove_dir_all(&dir);
}

/// A valid hash-quality spec whose cuckoo table a weak hash on sequential keys fills early.
const CUCKOO_WEAK_SEQ: &str = r#"
name = "cuckoo-weak-seq"
question = "Does a weak hash on sequential keys fill a cuckoo table?"
runner = "hash-quality"
keys = "seq"
hashes = ["weak"]
queries = 100000
[[filters]]
kind = "cuckoo"
n = 200000
p = 0.01
[quick]
queries = 1000
n_scale = 0.25
[plot]
[[plot.panels]]
x = "hash"
y = "fpr"
x_label = "hash"
y_label = "FPR"
"#;

#[test]
fn refused_inserts_are_counted_not_a_panic() {
    let e = Experiment::parse("e.toml", CUCKOO_WEAK_SEQ)
        .unwrap()
        .quick();
    let out = runners::run(&e, &NoProgress).expect("the run returns Ok");
    let t = &out.table;
    let refused = t
        .num(0, "insert_failures")
        .expect("an insert_failures column");
    assert!(refused > 0.0, "the weak hash fills the table: {refused}");
    // Keys that were refused are not counted as false negatives.
    assert_eq!(t.num(0, "false_negatives"), Some(0.0));
    assert!(out.summary.iter().any(|l| l.contains("inserts refused")));
}

#[test]
fn what_a_run_would_refuse_is_refused_at_validation() {
    let cases = [
        // More keys than the generator keeps apart from the absent ones (2^39).
        (
            GOOD.replace("n = 1000\np = 0.01", "n = 600000000000\np = 0.01"),
            "e.toml:12:5: filters[0].n: invalid n",
        ),
        (
            GOOD.replace("n = 1000\np = 0.01", "n = 1000\nm = 0"),
            "e.toml:13:5: filters[0].m: a bit count",
        ),
        (
            GOOD.replace("n = 1000\np = 0.01", "n = 1000\nbits_per_key = 1e300"),
            "e.toml:13:16: filters[0].bits_per_key: invalid m",
        ),
        (
            GOOD.replace(
                "var = \"fill\"\nrange = { from = 0.5, to = 1.5, points = 3 }",
                "var = \"k\"\nvalues = [2, 2.5]",
            ),
            "e.toml:22:10: sweep.values: 2.5: k takes whole numbers",
        ),
        (
            GOOD.replace("p = 0.001", "p = 0.001\nk = 65"),
            "e.toml:19:5: filters[1].k: an integer from 1 to 64",
        ),
        (
            GOOD.replace(
                "range = { from = 0.5, to = 1.5, points = 3 }",
                "values = [1e9]",
            ),
            "e.toml:22:10: sweep.values: invalid n",
        ),
        // Only the --quick form is wrong: its replacement sweep inserts too many keys.
        (
            GOOD.replace(
                "n_scale = 0.1",
                "sweep = { var = \"inserted\", values = [1e12] }",
            )
            .replace("var = \"fill\"", "var = \"inserted\"")
            .replace("from = 0.5, to = 1.5", "from = 500, to = 1500"),
            "e.toml:27:38: quick.sweep.values: invalid n",
        ),
    ];
    for (src, want) in cases {
        let e = err(&src);
        assert!(e.starts_with(want), "want {want}\n got {e}");
    }
    // A fill sweep inserts past n into a filter built empty: a static set is refused, naming
    // the kind and what the runner needs.
    let e = err(&GOOD.replacen("kind = \"standard\"", "kind = \"xor\"", 1));
    assert!(
        e.contains("filters[0].kind")
            && e.contains("xor is static")
            && e.contains("sweep over fill"),
        "{e}"
    );
    let fill = GOOD
        .replace("runner = \"sweep\"", "runner = \"fill\"")
        .replacen("kind = \"standard\"", "kind = \"binary-fuse\"", 1);
    let e = err(&fill);
    assert!(
        e.contains("binary-fuse is static") && e.contains("the fill runner"),
        "{e}"
    );
    // An arity only for binary fuse, and only 3 or 4.
    let e = err(&GOOD.replacen("p = 0.01", "p = 0.01\narity = 4", 1));
    assert!(
        e.contains("filters[0].arity") && e.contains("only binary-fuse"),
        "{e}"
    );
    let p_sweep = GOOD
        .replace("var = \"fill\"", "var = \"p\"")
        .replace("from = 0.5, to = 1.5", "from = 0.01, to = 0.001")
        .replacen(
            "kind = \"standard\"",
            "kind = \"binary-fuse\"\narity = 5",
            1,
        );
    let e = err(&p_sweep);
    assert!(
        e.contains("filters[0].arity") && e.contains("3 or 4"),
        "{e}"
    );
}

/// A sweep over p builds static kinds from their keys at n; so does the space-fpr runner,
/// which measures each distinct configuration once and leaves out rates a kind cannot reach.
#[test]
fn static_kinds_run_in_p_sweeps_and_space_fpr() {
    let p_sweep = GOOD
        .replace("var = \"fill\"", "var = \"p\"")
        .replace("from = 0.5, to = 1.5", "from = 0.01, to = 0.001")
        .replacen("kind = \"standard\"", "kind = \"xor\"", 1)
        .replacen(
            "kind = \"standard\"",
            "kind = \"binary-fuse\"\narity = 4",
            1,
        );
    let e = Experiment::parse("e.toml", &p_sweep).unwrap();
    let out = runners::run(&e, &NoProgress).unwrap();
    assert_eq!(out.table.num(0, "false_negatives"), Some(0.0));
    assert_eq!(out.table.text(0, "filter"), "xor");
    assert_eq!(out.table.num(3, "k"), Some(4.0));
    let space = p_sweep
        .replace("runner = \"sweep\"", "runner = \"space-fpr\"")
        .replace(
            "from = 0.01, to = 0.001, points = 3",
            "from = 0.1, to = 1e-6, points = 7, scale = \"log\"",
        )
        .replacen("kind = \"xor\"", "kind = \"standard\"", 1);
    let e = Experiment::parse("e.toml", &space).unwrap();
    let out = runners::run(&e, &NoProgress).unwrap();
    let rows: Vec<(String, f64)> = (0..out.table.rows.len())
        .map(|r| {
            (
                out.table.text(r, "filter"),
                out.table.num(r, "bits_per_key").unwrap(),
            )
        })
        .collect();
    // standard: all 7 rates; 4-wise binary fuse: f = 8 (p ≥ 2^-8) and f = 16 once each, and
    // nothing below 2^-16.
    assert_eq!(
        rows.iter().filter(|r| r.0 == "standard").count(),
        7,
        "{rows:?}"
    );
    let fuse: Vec<f64> = rows
        .iter()
        .filter(|r| r.0 == "binary-fuse")
        .map(|r| r.1)
        .collect();
    assert_eq!(fuse.len(), 2, "{rows:?}");
    assert!(fuse[1] > 1.9 * fuse[0], "{fuse:?}");
}
