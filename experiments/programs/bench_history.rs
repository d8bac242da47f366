//! Draw `results/bench/history.csv` (written by `benches/history.sh`): one panel per benchmark
//! group of the gate, instructions per commit, each benchmark a line; the largest steps of each
//! panel are marked and named (commit, benchmark, change) in its legend.
//!
//! ```sh
//! cargo run --example bench_history -- results/bench/history.csv results/bench/history
//! ```
//! writes `results/bench/history.svg` and `.png`.

use bloomlab::plot::{Axis, Chart, Legend, Panel, Point, Series, Style};
use std::collections::BTreeMap;
use std::path::Path;
use std::process::ExitCode;

/// Steps marked per panel.
const STEPS: usize = 3;
/// Smallest step (percent) that is marked.
const MIN_STEP_PERCENT: f64 = 1.0;
/// About this many commits are named under the x axis (every k-th; more would overlap).
const X_LABELS: usize = 9;

struct Row {
    commit: String,
    benchmark: String,
    value: f64,
}

fn read(path: &Path) -> Result<Vec<Row>, String> {
    let mut reader =
        csv::Reader::from_path(path).map_err(|e| format!("{}: {e}", path.display()))?;
    let headers = reader.headers().map_err(|e| e.to_string())?.clone();
    let col = |name: &str| {
        headers
            .iter()
            .position(|h| h == name)
            .ok_or_else(|| format!("{}: no column '{name}'", path.display()))
    };
    let (c, b, m, v) = (
        col("commit")?,
        col("benchmark")?,
        col("metric")?,
        col("value")?,
    );
    let mut rows = Vec::new();
    for (line, record) in reader.records().enumerate() {
        let r = record.map_err(|e| e.to_string())?;
        if &r[m] != "instructions" {
            continue;
        }
        let value = r[v].parse().map_err(|_| {
            format!(
                "{}: row {}: value '{}' is not a number",
                path.display(),
                line + 2,
                &r[v]
            )
        })?;
        rows.push(Row {
            commit: r[c].to_string(),
            benchmark: r[b].to_string(),
            value,
        });
    }
    Ok(rows)
}

/// One panel: every benchmark of `group` over the commits (x = the commit's index).
fn panel(group: &str, rows: &[&Row], commits: &[String]) -> Panel {
    let index: BTreeMap<&str, usize> = commits
        .iter()
        .enumerate()
        .map(|(i, c)| (c.as_str(), i))
        .collect();
    let mut by_bench: BTreeMap<&str, Vec<(usize, f64)>> = BTreeMap::new();
    for r in rows {
        by_bench
            .entry(r.benchmark.as_str())
            .or_default()
            .push((index[r.commit.as_str()], r.value));
    }
    let mut series = Vec::new();
    // (|change|, change, x, y, benchmark, commit)
    let mut steps: Vec<(f64, f64, usize, f64, &str)> = Vec::new();
    for (i, (bench, points)) in by_bench.iter_mut().enumerate() {
        points.sort_by_key(|p| p.0);
        for w in points.windows(2) {
            let change = (w[1].1 / w[0].1 - 1.0) * 100.0;
            steps.push((change.abs(), change, w[1].0, w[1].1, bench));
        }
        series.push(
            Series::new("", Style::PointsLine, i).with_points(
                points
                    .iter()
                    .map(|&(x, y)| Point::new(x as f64, y))
                    .collect(),
            ),
        );
    }
    steps.sort_by(|a, b| b.0.total_cmp(&a.0));
    // Only moves beyond the gate's default threshold (benches/thresholds.toml) are named.
    let moved = steps.iter().filter(|s| s.0 > MIN_STEP_PERCENT).take(STEPS);
    for (k, &(_, change, x, y, bench)) in moved.enumerate() {
        let name = bench.split_once('/').map_or(bench, |(_, n)| n);
        let label = format!(
            "{}: {name} {change:+.1}%",
            &commits[x][..7.min(commits[x].len())]
        );
        let mut s = Series::new(&label, Style::Points, k);
        s.color = None;
        series.push(s.with_points(vec![Point::new(x as f64, y)]));
    }
    let mut x = Axis::linear("commit (oldest left; the marked steps are named in the legend)");
    let every = commits.len().div_ceil(X_LABELS).max(1);
    x.categories = Some(
        commits
            .iter()
            .enumerate()
            .map(|(i, c)| {
                let last = commits.len() - 1;
                // every k-th, and the last (without a neighbour closer than k to it)
                if (i % every == 0 && last - i >= every) || i == last {
                    c[..7.min(c.len())].to_string()
                } else {
                    String::new()
                }
            })
            .collect(),
    );
    Panel {
        title: format!(
            "{group}: instructions per benchmark run (callgrind), {} benchmarks",
            by_bench.len()
        ),
        x,
        y: Axis::log("instructions"),
        series,
        legend: Legend::UpperLeft,
    }
}

fn run(csv_path: &Path, out: &Path) -> Result<(), String> {
    let rows = read(csv_path)?;
    if rows.is_empty() {
        return Err(format!("{}: no instruction rows", csv_path.display()));
    }
    // The CSV is sorted by date: commits in order of first appearance.
    let mut commits: Vec<String> = Vec::new();
    for r in &rows {
        if commits.last() != Some(&r.commit) && !commits.contains(&r.commit) {
            commits.push(r.commit.clone());
        }
    }
    let mut groups: BTreeMap<&str, Vec<&Row>> = BTreeMap::new();
    for r in &rows {
        let group = r.benchmark.split_once('/').map_or("", |(g, _)| g);
        groups.entry(group).or_default().push(r);
    }
    let panels = groups
        .iter()
        .map(|(g, rs)| panel(g, rs, &commits))
        .collect();
    let chart = Chart::book(
        &format!(
            "Gate instruction counts over {} commits (benches/history.sh)",
            commits.len()
        ),
        panels,
    );
    let svg = out.with_extension("svg");
    let png = out.with_extension("png");
    chart
        .save_svg(&svg)
        .map_err(|e| format!("{}: {e}", svg.display()))?;
    chart
        .save_png(&png)
        .map_err(|e| format!("{}: {e}", png.display()))?;
    println!("wrote {} and {}", svg.display(), png.display());
    Ok(())
}

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let [csv_path, out] = args.as_slice() else {
        eprintln!("usage: bench_history HISTORY.csv OUT (writes OUT.svg and OUT.png)");
        return ExitCode::from(2);
    };
    match run(Path::new(csv_path), Path::new(out)) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("bench_history: {e}");
            ExitCode::from(2)
        }
    }
}
