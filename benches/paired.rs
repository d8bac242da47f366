//! Interleaved paired timing of the headline ratios (not criterion): for every ratio of
//! `common/ratios.rs` that has a target, both sides and a second instance of the numerator (the
//! noise witness: the same code, built again) are timed in short slices that take turns, round
//! after round, so that whatever else loads the machine falls on all three alike. Each round gives
//! one ratio (numerator / denominator) and one witness ratio (second instance / first); the table
//! reports the median over the rounds with a distribution-free 95% interval for it (order
//! statistics of the binomial), and calls a target met / missed only when the whole interval is
//! on one side of it and the witness is within 10% of 1.00.
//!
//! Run: `cargo bench --bench paired` (n = 10^4 and 10^6; `BLOOMLAB_BENCH_SIZES` as for the
//! criterion bench, `BLOOMLAB_PAIRED_ROUNDS` rounds, default 31). Positional arguments keep only
//! the ratios whose label contains one of them (and add a ratio without a target, reported
//! without a verdict, when one of them is its numerator's exact name); a run without them writes
//! `results/bench/paired.md` and its figure `paired.svg` (n = 10^4), and any run writes
//! `$BLOOMLAB_PAIRED_OUT` if that is set. `BLOOMLAB_PAIRED_REPLOT=1` redraws the figure from the
//! committed `paired.md` without measuring (and a PNG copy too, at `$BLOOMLAB_PAIRED_PNG`).
//!
//! A static build allocates scratch arrays, and with glibc's default *dynamic* mmap threshold
//! whether they come fresh from the kernel (page faults) or from memory freed earlier depends on
//! what ran before: `xorf`'s 16-bit xor build at 10^4 took 57 ns a key run alone and 9 after the
//! 8-bit rows. The header records `GLIBC_TUNABLES`; fix it for builds, e.g.
//! `glibc.malloc.mmap_threshold=131072` (every large array fresh: a first build in a process) or
//! `glibc.malloc.mmap_threshold=33554432:glibc.malloc.trim_threshold=4294967295` (reused).

#[allow(
    dead_code,
    reason = "only the (any, mono) pairs are used here, not the criterion group"
)]
#[path = "groups/dynamic.rs"]
mod dynamic;
#[allow(
    dead_code,
    reason = "the criterion group functions are not used here, only build_filled and fill_range"
)]
#[path = "groups/filters.rs"]
mod filters;
#[path = "common/keys.rs"]
mod keys;
#[path = "common/ratios.rs"]
mod ratios;
#[path = "common/settings.rs"]
mod settings;
#[path = "common/subjects.rs"]
mod subjects;

use bloomlab::stats::median_ci95;
use keys::{Rng, fill_hits, fill_misses, key};
use ratios::{Target, headline_ratios};
use settings::{BATCH, P};
use std::collections::HashMap;
use std::fmt::Write as _;
use std::hint::black_box;
use std::time::{Duration, Instant};
use subjects::{Entry, Subject};

/// How long one slice of one subject should take: long enough that two clock reads are noise,
/// short enough that the three subjects of a round see the same machine.
const SLICE: Duration = Duration::from_millis(3);

/// One ratio to measure.
struct Row {
    label: String,
    op: &'static str,
    a: &'static str,
    b: &'static str,
    /// None for a reference row (timed only when named on the command line).
    target: Option<Target>,
}

/// The ratios with a target, without the memory-floor rows (the floor is not a filter); a
/// ratio without a target too when one of `keep` names its numerator exactly (a reference row,
/// reported without a verdict).
fn rows(keep: &[String]) -> Vec<Row> {
    headline_ratios()
        .into_iter()
        .chain(ratios::bulk_ratios())
        .filter_map(|(label, (op, a), (opb, b), target)| {
            let named = keep.iter().any(|k| k == a);
            let kept = keep.is_empty() || keep.iter().any(|k| label.contains(k.as_str()));
            (op == opb && kept && (target.is_some() || named)).then_some(Row {
                label,
                op,
                a,
                b,
                target,
            })
        })
        .collect()
}

/// The operation a row times, without the `dynamic_` prefix of the registry group.
fn base_op(op: &str) -> &str {
    op.strip_prefix("dynamic_").unwrap_or(op)
}

/// Time `batches` batches of `op` on subject `s` (keys from `seed`), in ns per key. A build
/// constructs `e` from `all` (the n present keys); an insert adds fresh keys from `next` on, and
/// refills the filter to n/2 (untimed) when they run out, so that it holds between n/2 and n keys
/// as in the criterion bench.
#[allow(
    clippy::too_many_arguments,
    reason = "the subject, its insert position and the key set vary per call; a struct of them would be built once"
)]
fn slice(
    op: &str,
    e: &Entry,
    s: &mut Box<dyn Subject>,
    next: &mut u64,
    all: &[u64],
    n: u64,
    seed: u64,
    batches: usize,
) -> f64 {
    let mut total = Duration::ZERO;
    match op {
        "build" => {
            for _ in 0..batches {
                let t = Instant::now();
                black_box((e.build)(n, P, black_box(all)));
                total += t.elapsed();
            }
            return total.as_nanos() as f64 / (batches as f64 * n as f64);
        }
        "insert" => {
            let half = n / 2;
            let mut buf = vec![0u64; BATCH];
            for _ in 0..batches {
                if *next + BATCH as u64 > n {
                    s.reset();
                    filters::fill_range(s.as_mut(), 0, half);
                    *next = half;
                }
                for (j, k) in buf.iter_mut().enumerate() {
                    *k = key(*next + j as u64);
                }
                *next += BATCH as u64;
                let t = Instant::now();
                s.insert_batch(black_box(&buf));
                total += t.elapsed();
            }
        }
        _ => {
            let fill = if op == "query_hit" {
                fill_hits
            } else {
                fill_misses
            };
            let mut rng = Rng::new(seed);
            let mut buf = vec![0u64; BATCH];
            for _ in 0..batches {
                fill(&mut buf, n, &mut rng);
                let t = Instant::now();
                let hits = s.count_hits(black_box(&buf));
                total += t.elapsed();
                // Every key of a hit batch is present: a filter must report all of them.
                assert!(
                    op != "query_hit" || hits == buf.len(),
                    "{}: {hits} of {} present keys reported at n = {n}",
                    e.name,
                    buf.len()
                );
            }
        }
    }
    total.as_nanos() as f64 / (batches as f64 * BATCH as f64)
}

/// The six orders of three subjects, used in turn so that no subject always runs first.
const ORDERS: [[usize; 3]; 6] = [
    [0, 1, 2],
    [1, 2, 0],
    [2, 0, 1],
    [0, 2, 1],
    [2, 1, 0],
    [1, 0, 2],
];

/// One measured row.
struct Measured {
    a_ns: f64,
    b_ns: f64,
    ratio: (f64, f64, f64),
    witness: (f64, f64, f64),
}

/// Build the two sides and the witness for n keys, and time `ops` in interleaved rounds.
fn measure_pair(a: &Entry, b: &Entry, n: u64, ops: &[&str], rounds: usize) -> Vec<Measured> {
    let sides = [a, b, a];
    let mut subjects: Vec<Box<dyn Subject>> = sides
        .iter()
        .map(|e| filters::build_filled(e, n, n))
        .collect();
    let all: Vec<u64> = if ops.contains(&"build") {
        (0..n).map(key).collect()
    } else {
        Vec::new()
    };
    let mut out = Vec::new();
    for &op in ops {
        let mut next = [n; 3];
        // Warm up every side once (an insert's first slice also refills the filter to n/2),
        // then size the slice from the slowest side's second one-batch slice.
        let per_batch = (0..3)
            .map(|i| {
                slice(op, sides[i], &mut subjects[i], &mut next[i], &all, n, 1, 1);
                let t = Instant::now();
                slice(op, sides[i], &mut subjects[i], &mut next[i], &all, n, 2, 1);
                t.elapsed()
            })
            .max()
            .unwrap_or(SLICE);
        let batches = (SLICE.as_nanos() / per_batch.as_nanos().max(1)).clamp(1, 100_000) as usize;
        let mut t = [const { Vec::new() }; 3];
        for round in 0..rounds {
            let seed = 0x5eed ^ (round as u64) << 20 ^ n;
            for &i in &ORDERS[round % ORDERS.len()] {
                let ns = slice(
                    op,
                    sides[i],
                    &mut subjects[i],
                    &mut next[i],
                    &all,
                    n,
                    seed,
                    batches,
                );
                t[i].push(ns);
            }
        }
        let ratios = (0..rounds).map(|r| t[0][r] / t[1][r]).collect();
        let witness = (0..rounds).map(|r| t[2][r] / t[0][r]).collect();
        out.push(Measured {
            a_ns: median_ci95(t[0].clone()).0,
            b_ns: median_ci95(t[1].clone()).0,
            ratio: median_ci95(ratios),
            witness: median_ci95(witness),
        });
    }
    out
}

/// What a ratio's interval says against its target, given the witness: (0 met, 1 missed, 2 not
/// decided — the index of the tally — and the table's words).
fn verdict(m: &Measured, max: f64) -> (usize, &'static str) {
    let (_, lo, hi) = m.ratio;
    if (m.witness.0 - 1.0).abs() > 0.10 {
        (2, "not decided (witness off by > 10%)")
    } else if hi <= max {
        (0, "✓ met")
    } else if lo > max {
        (1, "✗ missed")
    } else {
        (2, "not decided (interval spans the target)")
    }
}

/// A measured ratio, for the figure.
struct Plotted {
    n: u64,
    a: &'static str,
    op: &'static str,
    ratio: (f64, f64, f64),
    target: f64,
}

/// The panels of the figure: (title, the numerators shown, their category names).
const PANELS: [(&str, &[(&str, &str)]); 4] = [
    (
        "Bloom filters against fastbloom and sbbf-rs-safe (same hash)",
        &[
            ("bloomlab-standard-sip13-64", "standard SipHash"),
            ("bloomlab-standard-foldhash-64", "standard foldhash"),
            ("bloomlab-standard-foldhash-ed64", "standard foldhash ed64"),
            ("bloomlab-split-block-xxh3", "split-block xxh3"),
            ("bloomlab-blocked", "blocked xxh3"),
            ("bloomlab-blocked-foldhash", "blocked foldhash"),
        ],
    ),
    (
        "cuckoo against cuckoofilter, scalable against growable-bloom-filter (target 0.5)",
        &[
            ("bloomlab-cuckoo", "cuckoo"),
            ("bloomlab-cuckoo-peershape", "cuckoo, peer's table"),
            ("bloomlab-scalable", "scalable, one layer"),
            ("bloomlab-scalable-grown", "scalable, grown"),
        ],
    ),
    (
        "static sets against xorf (same keys)",
        &[
            ("bloomlab-fuse8", "fuse 8-bit"),
            ("bloomlab-fuse16", "fuse 16-bit"),
            ("bloomlab-xor8", "xor 8-bit"),
            ("bloomlab-xor16", "xor 16-bit"),
        ],
    ),
    (
        "the registry's AnyFilter against the concrete type (target 1.3)",
        &[
            ("standard-any", "standard"),
            ("counting-any", "counting"),
            ("blocked-any", "blocked"),
            ("split-block-any", "split-block"),
            ("scalable-any", "scalable"),
            ("cuckoo-any", "cuckoo"),
            ("xor-any", "xor"),
            ("binary-fuse-any", "binary fuse"),
        ],
    ),
];

/// Every ratio at `n` over its target (1 = the target: at or below it is met), with its 95%
/// interval, one panel per family, inserts (or builds), hits and misses side by side.
fn figure(rows: &[Plotted], n: u64) -> bloomlab::plot::Chart {
    use bloomlab::plot::{Axis, Chart, Legend, Panel, Point, Series, Style};
    let panels = PANELS
        .iter()
        .map(|(title, members)| {
            let mut series = Vec::new();
            for (c, (op, name, dx)) in [
                ("insert", "insert or build", -0.2),
                ("query_hit", "hit", 0.0),
                ("query_miss", "miss", 0.2),
            ]
            .into_iter()
            .enumerate()
            {
                let points = members
                    .iter()
                    .enumerate()
                    .filter_map(|(i, (a, _))| {
                        let r = rows.iter().find(|r| {
                            r.n == n
                                && r.a == *a
                                && (r.op == op || (op == "insert" && r.op == "build"))
                        })?;
                        let (m, lo, hi) = r.ratio;
                        let t = r.target;
                        Some(Point::with_interval(i as f64 + dx, m / t, lo / t, hi / t))
                    })
                    .collect();
                series.push(Series::new(name, Style::Points, c).with_points(points));
            }
            let last = members.len() as f64 - 1.0;
            series.push(Series {
                label: "the target".into(),
                style: Style::Dashed,
                color: None,
                points: vec![Point::new(-0.4, 1.0), Point::new(last + 0.4, 1.0)],
            });
            Panel {
                title: (*title).to_string(),
                x: Axis {
                    categories: Some(members.iter().map(|(_, c)| (*c).to_string()).collect()),
                    ..Axis::linear("")
                },
                y: Axis {
                    range: Some((0.0, 1.6)),
                    ..Axis::linear("ratio / target (median, 95% interval)")
                },
                series,
                legend: Legend::UpperLeft,
            }
        })
        .collect();
    Chart::book(
        &format!("Paired ratios at n = {n}, each over its target: at or below 1 is met"),
        panels,
    )
}

/// The commit measured, with a mark when tracked files differ from it.
fn git_head() -> String {
    let git = |args: &[&str]| {
        std::process::Command::new("git")
            .args(args)
            .current_dir(env!("CARGO_MANIFEST_DIR"))
            .output()
            .map(|o| String::from_utf8_lossy(&o.stdout).trim().to_string())
            .unwrap_or_else(|_| "?".into())
    };
    let head = git(&["rev-parse", "--short", "HEAD"]);
    if git(&["status", "--porcelain", "--untracked-files=no"]).is_empty() {
        head
    } else {
        format!("{head} with uncommitted changes")
    }
}

/// The measured rows of a written table (`paired.md`), read back for the figure: each table
/// row's label is matched to its ratio, and its median and interval parsed.
fn read_back(text: &str, rows: &[Row]) -> Vec<Plotted> {
    let mut n = 0u64;
    let mut out = Vec::new();
    for line in text.lines() {
        if let Some(v) = line.strip_prefix("## n = ") {
            n = v.trim().parse().unwrap_or(0);
            continue;
        }
        let cells: Vec<&str> = line.trim_matches('|').split('|').map(str::trim).collect();
        let (Some(label), Some(ratio)) = (cells.first(), cells.get(3)) else {
            continue;
        };
        let Some(r) = rows.iter().find(|r| r.label == *label) else {
            continue;
        };
        let nums: Vec<f64> = ratio
            .split(|c: char| !(c.is_ascii_digit() || c == '.'))
            .filter_map(|x| x.parse().ok())
            .collect();
        if let ([m, lo, hi], Some(t)) = (&nums[..], r.target) {
            out.push(Plotted {
                n,
                a: r.a,
                op: base_op(r.op),
                ratio: (*m, *lo, *hi),
                target: t.max,
            });
        }
    }
    out
}

/// The 1-line floor as a subject ([`ratios::FLOOR_SUBJECT`]): one independent random 64-byte
/// line per key read from an array as large as `bloomlab-standard`'s bits at n, as criterion's
/// `floor/random-cache-line` (benches/groups/filters.rs). Inserts do nothing; a query reports
/// every key present (so the hit rows' check that all present keys are found holds).
fn floor_entry() -> Entry {
    subjects::dynamic(
        ratios::FLOOR_SUBJECT,
        "u64: one random line per key",
        subjects::Role::Bench,
        |n, p| {
            let m = bloomlab::theory::size_for(n, p).expect("sizing").m;
            // Touched, not zero pages.
            (0..m.div_ceil(64).max(8)).map(key).collect::<Vec<u64>>()
        },
        |_, _| {},
        |words, keys| {
            let lines = words.len() as u64 / 8;
            let acc = keys.iter().fold(0u64, |a, &k| {
                a ^ words[(bloomlab::hash::reduce(k, lines) * 8) as usize]
            });
            black_box(acc);
            keys.len()
        },
        |w| (w.len() as u64 * 64, "one random line per key".into()),
    )
}

fn main() {
    let keep = settings::filters();
    // Redraw the figure from the committed table, without measuring.
    if std::env::var_os("BLOOMLAB_PAIRED_REPLOT").is_some() {
        let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("results/bench");
        let text = std::fs::read_to_string(dir.join("paired.md")).unwrap_or_default();
        let got = read_back(&text, &rows(&[]));
        let Some(n) = got.iter().map(|p| p.n).min() else {
            eprintln!("paired: no rows in {}", dir.join("paired.md").display());
            std::process::exit(2);
        };
        let chart = figure(&got, n);
        let png = std::env::var_os("BLOOMLAB_PAIRED_PNG").map(std::path::PathBuf::from);
        if let Err(e) = chart
            .save_svg(&dir.join("paired.svg"))
            .and_then(|()| png.map_or(Ok(()), |p| chart.save_png(&p)))
        {
            eprintln!("paired: cannot write the figure: {e}");
            std::process::exit(2);
        }
        eprintln!(
            "wrote {} ({} rows)",
            dir.join("paired.svg").display(),
            got.len()
        );
        return;
    }
    let rounds: usize = std::env::var("BLOOMLAB_PAIRED_ROUNDS")
        .ok()
        .and_then(|s| s.parse().ok())
        .filter(|&r| r >= 1)
        .unwrap_or(31);
    let sizes = if std::env::var("BLOOMLAB_BENCH_SIZES").is_ok() {
        settings::sizes()
    } else {
        vec![10_000, 1_000_000]
    };
    let all = rows(&keep);
    let mut entries: HashMap<&'static str, Entry> = subjects::entries()
        .into_iter()
        .map(|e| (e.name, e))
        .collect();
    for (x, y) in dynamic::pairs() {
        entries.insert(x.name, x);
        entries.insert(y.name, y);
    }
    // The DRAM floor as a subject: the bulk rows (`ratios::bulk_ratios`) divide by it.
    entries.insert(ratios::FLOOR_SUBJECT, floor_entry());
    // The rows of one pair share its three built filters.
    let mut pairs: Vec<(&'static str, &'static str)> = Vec::new();
    for r in &all {
        if !pairs.contains(&(r.a, r.b)) {
            pairs.push((r.a, r.b));
        }
    }
    let start = Instant::now();
    let load0 = settings::loadavg();
    let mut md = String::new();
    let mut counts = [0usize; 3];
    for &n in &sizes {
        let _ = writeln!(
            md,
            "\n## n = {n}\n\n| ratio | bloomlab ns/key | peer ns/key | ratio: median [95% interval] | witness: median [95% interval] | target | verdict |\n|---|---:|---:|---|---|---|---|"
        );
        for (i, &(a, b)) in pairs.iter().enumerate() {
            let (Some(ea), Some(eb)) = (entries.get(a), entries.get(b)) else {
                eprintln!("paired: no subject named {a} or {b}; skipped");
                continue;
            };
            let mut mine: Vec<&Row> = all
                .iter()
                .filter(|r| (r.a, r.b) == (a, b))
                .filter(|r| r.target.is_none_or(|t| t.at.is_none_or(|at| at == n)))
                .filter(|r| match base_op(r.op) {
                    "insert" => ea.dynamic && eb.dynamic,
                    "build" => !ea.dynamic && n <= 1_000_000,
                    _ => true,
                })
                .collect();
            if mine.is_empty() {
                continue;
            }
            // Queries first: the insert measurement refills the filters to between n/2 and n
            // keys, after which `key(0..n)` would no longer all be present.
            mine.sort_by_key(|r| base_op(r.op) == "insert");
            eprintln!(
                "[{}/{}] n = {n}: {a} / {b} ({} ops, {:.0} s so far)",
                i + 1,
                pairs.len(),
                mine.len(),
                start.elapsed().as_secs_f64()
            );
            let ops: Vec<&str> = mine.iter().map(|r| base_op(r.op)).collect();
            for (r, m) in mine.iter().zip(measure_pair(ea, eb, n, &ops, rounds)) {
                let (target, v) = match r.target {
                    Some(t) => {
                        let (tally, v) = verdict(&m, t.max);
                        counts[tally] += 1;
                        (format!("≤ {}", t.max), v)
                    }
                    None => ("–".to_string(), "reference (no target)"),
                };
                let (rm, rl, rh) = m.ratio;
                let (wm, wl, wh) = m.witness;
                let _ = writeln!(
                    md,
                    "| {} | {:.2} | {:.2} | **{rm:.2}** [{rl:.2}, {rh:.2}] | {wm:.2} [{wl:.2}, {wh:.2}] | {target} | {v} |",
                    r.label, m.a_ns, m.b_ns
                );
            }
        }
    }
    let tunables = std::env::var("GLIBC_TUNABLES").map_or_else(
        |_| "unset (glibc's dynamic mmap threshold)".to_string(),
        |t| format!("`{t}`"),
    );
    let head = format!(
        "# Interleaved paired ratios (`cargo bench --bench paired{}`)\n\n\
         Commit {}, {rounds} rounds of {} ms slices per subject, n = {:?}, p = {P}; \
         {:.0} s; load average at start {load0}, at end {}; {}; GLIBC_TUNABLES {}.\n\n\
         Each round times the numerator, the denominator and a second instance of the numerator \
         (the noise witness: the same code, built again) one slice each, in one of the six \
         orders in turn, on the same keys; the ratio of a round is numerator / denominator and \
         its witness second instance / first. Medians over the rounds, with a distribution-free \
         95% interval (binomial order statistics). A target is met (✓) when the whole interval \
         is at or below it, missed (✗) when the whole interval is above it, and otherwise not \
         decided; and not decided whenever the witness's median is more than 10% from 1.00.\n\n\
         **{} met, {} missed, {} not decided.**\n",
        if keep.is_empty() {
            String::new()
        } else {
            format!(" -- {}", keep.join(" "))
        },
        git_head(),
        SLICE.as_millis(),
        sizes,
        start.elapsed().as_secs_f64(),
        settings::loadavg(),
        settings::cpu_model(),
        tunables,
        counts[0],
        counts[1],
        counts[2],
    );
    let text = head + &md;
    if keep.is_empty() && std::env::var_os("BLOOMLAB_PAIRED_OUT").is_none() {
        let svg = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("results/bench/paired.svg");
        // Drawn from the table just written, as `BLOOMLAB_PAIRED_REPLOT` draws it.
        match figure(&read_back(&text, &all), sizes[0]).save_svg(&svg) {
            Ok(()) => eprintln!("wrote {}", svg.display()),
            Err(e) => {
                eprintln!("paired: cannot write {}: {e}", svg.display());
                std::process::exit(2);
            }
        }
    }
    print!("{text}");
    let out = std::env::var_os("BLOOMLAB_PAIRED_OUT").map(std::path::PathBuf::from);
    if let Some(path) = out.or_else(|| {
        keep.is_empty().then(|| {
            std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("results/bench/paired.md")
        })
    }) {
        match std::fs::write(&path, &text) {
            Ok(()) => eprintln!("wrote {}", path.display()),
            Err(e) => {
                eprintln!("paired: cannot write {}: {e}", path.display());
                std::process::exit(2);
            }
        }
    }
}
