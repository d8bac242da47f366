//! Shared criterion settings and bench parameters (one place to change them).

#![allow(dead_code)]

use criterion::Criterion;
use std::time::Duration;

/// Keys per timed batch: one criterion "iteration" handles this many keys, so the timer's own
/// cost (two clock reads, ~40 ns) is spread over 1000 operations.
pub const BATCH: usize = 1000;

/// Target false-positive rate every filter is configured for.
pub const P: f64 = 0.01;

/// Key counts. `BLOOMLAB_BENCH_SIZES=10000,1000000` restricts them (quick runs).
pub fn sizes() -> Vec<u64> {
    match std::env::var("BLOOMLAB_BENCH_SIZES") {
        Ok(s) => s
            .split(',')
            .map(|x| {
                x.trim()
                    .parse()
                    .expect("BLOOMLAB_BENCH_SIZES: comma-separated integers")
            })
            .collect(),
        Err(_) => vec![10_000, 1_000_000, 100_000_000],
    }
}

/// Short warm-up and measurement: the full suite must finish in well under half an hour on a
/// noisy 2-core machine. Command-line flags (`--measurement-time` …) still override.
pub fn criterion() -> Criterion {
    register_font();
    Criterion::default()
        .warm_up_time(Duration::from_millis(500))
        .measurement_time(Duration::from_millis(1500))
        .sample_size(20)
        .noise_threshold(0.05)
        .configure_from_args()
}

/// The positional (filter) arguments given to the bench binary, if any.
pub fn filters() -> Vec<String> {
    let mut out = Vec::new();
    let mut args = std::env::args().skip(1);
    while let Some(a) = args.next() {
        if a.starts_with('-') {
            // Options that take a value: skip it.
            if matches!(
                a.as_str(),
                "--save-baseline"
                    | "--baseline"
                    | "--load-baseline"
                    | "--measurement-time"
                    | "--warm-up-time"
                    | "--sample-size"
                    | "--noise-threshold"
                    | "--significance-level"
                    | "--confidence-level"
                    | "--nresamples"
                    | "--profile-time"
                    | "--plotting-backend"
                    | "--output-format"
                    | "--color"
                    | "--format"
            ) {
                args.next();
            }
        } else {
            out.push(a);
        }
    }
    out
}

/// Whether a bench id may be selected by the command-line filter: used only to skip building
/// big filters nobody asked for (criterion still applies its own filter). A filter with regex
/// syntax in it selects everything here.
pub fn wanted(id: &str) -> bool {
    let f = filters();
    f.is_empty()
        || f.iter()
            .any(|f| f.chars().any(|c| "^$.*+?()[]{}|\\".contains(c)) || id.contains(f.as_str()))
}

/// Whether any bench whose id starts with one of `prefixes` may be selected.
pub fn any_wanted(ids: &[String]) -> bool {
    ids.iter().any(|i| wanted(i))
}

/// Criterion's output directory, as criterion finds it: `$CRITERION_HOME`, else
/// `$CARGO_TARGET_DIR/criterion`, else `target/criterion` of this package.
pub fn criterion_dir() -> std::path::PathBuf {
    if let Ok(h) = std::env::var("CRITERION_HOME") {
        return h.into();
    }
    std::env::var("CARGO_TARGET_DIR")
        .map(std::path::PathBuf::from)
        .unwrap_or_else(|_| std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("target"))
        .join("criterion")
}

/// The load average now (first three fields of /proc/loadavg).
pub fn loadavg() -> String {
    std::fs::read_to_string("/proc/loadavg")
        .map(|s| s.split_whitespace().take(3).collect::<Vec<_>>().join(" "))
        .unwrap_or_else(|_| "?".into())
}

/// The CPU's model name (from /proc/cpuinfo), for the reports.
pub fn cpu_model() -> String {
    std::fs::read_to_string("/proc/cpuinfo")
        .unwrap_or_default()
        .lines()
        .find(|l| l.starts_with("model name"))
        .and_then(|l| l.split(':').nth(1))
        .map_or("?".to_string(), |v| v.trim().to_string())
}

/// Register bloomlab's embedded DejaVu Sans as plotters' "sans-serif". The package enables
/// plotters' `ab_glyph` text rendering (for its own PNG plots), and through feature unification
/// criterion's plotters-drawn HTML reports then need a registered font too.
pub fn register_font() {
    bloomlab::plot::register_font();
}
