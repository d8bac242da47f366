//! The cache cliff: ns per query against the filter's size for five representative filters
//! (standard, blocked, split-block, cuckoo, binary-fuse), each sized for n keys at p = 1% with
//! n = 10^3 … 10^8 (three sizes per decade, 16 points), next to a memory floor: one random
//! 64-byte line read per query from an array as large as the standard filter.
//!
//! ```text
//! nice cargo run --release --example cache_cliff -- [OUT_DIR]           # measure, write, plot
//! cargo run --example cache_cliff -- --replot [OUT_DIR]                 # redraw from the CSV
//! nice cargo run --release --example cache_cliff -- --from N [OUT_DIR]  # resume at size N
//! ```
//! writes `OUT_DIR/cache-cliff.csv` (one row per filter × n × operation; rows with
//! `filter = cache` hold the machine's cache sizes read from sysfs) and
//! `OUT_DIR/cache-cliff.{svg,png}`. Default `results/bench`. The largest point holds about
//! 2.5 GB (10^8 keys for the static build, the filter, the floor array); run it under
//! `prlimit --as=12000000000`.
//!
//! Timing: every point queries 2^15 prepared keys (hits: inserted keys in random order;
//! misses: keys never inserted) in each of 21 rounds; a round times every filter, both
//! operations and the floor once, so a burst of load from other programs falls on one round of
//! every series. A pass is timed in chunks of 2048 queries; a chunk during which the thread
//! lost its CPU (the context-switch count of `/proc/thread-self/schedstat` moved) measured
//! someone else's time too and is left out. The plotted value is the fastest pass with clean
//! chunks (the fastest of all if none had one; the CSV says how many passes had), next to the
//! median of all passes. Other programs still evict the caches, which
//! only ever adds time. The shape (where the cost steps up, the ratio to the floor) is the
//! result, not the third digit.

use bloomlab::plot::{Axis, Chart, Format, Legend, Panel, Point, Series, Style};
use bloomlab::workload::{KeyGen, KeyKind};
use bloomlab::{AnyFilter, Filter, FilterKind, FilterSpec};
use std::fmt::Write as _;
use std::hint::black_box;
use std::path::{Path, PathBuf};
use std::time::Instant;

const P: f64 = 0.01;
const QUERIES: usize = 1 << 15;
const ROUNDS: usize = 21;
const KINDS: [FilterKind; 5] = [
    FilterKind::Standard,
    FilterKind::Blocked,
    FilterKind::SplitBlock,
    FilterKind::Cuckoo,
    FilterKind::BinaryFuse,
];
const FLOOR: &str = "floor: 1 random line";

/// n = 10^3 … 10^8, three per decade (1, 2.15, 4.64 × 10^e), rounded.
fn sizes() -> Vec<u64> {
    let mut v = Vec::new();
    for e in 3..=8 {
        for f in [1.0, 10f64.powf(1.0 / 3.0), 10f64.powf(2.0 / 3.0)] {
            let n = (f * 10f64.powi(e)).round() as u64;
            if n <= 100_000_000 {
                v.push(n);
            }
        }
    }
    v
}

/// How many times this thread has been put on a CPU (`/proc/thread-self/schedstat`, third
/// field); `None` where the file is missing.
fn switches() -> Option<u64> {
    std::fs::read_to_string("/proc/thread-self/schedstat")
        .ok()?
        .split_whitespace()
        .nth(2)?
        .parse()
        .ok()
}

/// Queries per timed chunk: short enough (about 2 ms at 1 µs per query) that most chunks run
/// without losing the CPU on a loaded machine.
const CHUNK: usize = 2048;

/// Wall-clock ns per query of one pass of `query` over `qs`, timed in chunks of [`CHUNK`]:
/// only chunks during which the thread kept its CPU (no context switch: the time is the
/// pass's own) count, or all of them if none did. Also returns whether any chunk was clean.
fn time(qs: &[[u8; 8]], query: impl Fn(&[u8; 8]) -> u64) -> (f64, bool) {
    let (mut clean_ns, mut clean_q, mut all_ns) = (0u128, 0usize, 0u128);
    for chunk in qs.chunks(CHUNK) {
        let before = switches();
        let s = Instant::now();
        black_box(chunk.iter().map(&query).fold(0, u64::wrapping_add));
        let ns = s.elapsed().as_nanos();
        all_ns += ns;
        if before.is_some() && switches() == before {
            clean_ns += ns;
            clean_q += chunk.len();
        }
    }
    if clean_q > 0 {
        (clean_ns as f64 / clean_q as f64, true)
    } else {
        (all_ns as f64 / qs.len() as f64, false)
    }
}

fn mix(mut x: u64) -> u64 {
    x ^= x >> 31;
    x = x.wrapping_mul(0x7fb5_d329_728e_a185);
    x ^= x >> 27;
    x = x.wrapping_mul(0x81da_def4_bc2d_d44d);
    x ^ (x >> 33)
}

/// Cache sizes from sysfs: (name, bytes) for data and unified caches of cpu0.
fn caches() -> Vec<(String, u64)> {
    let mut out = Vec::new();
    for i in 0..8 {
        let d = format!("/sys/devices/system/cpu/cpu0/cache/index{i}");
        let read =
            |f: &str| std::fs::read_to_string(format!("{d}/{f}")).map(|s| s.trim().to_string());
        let (Ok(level), Ok(ty), Ok(size)) = (read("level"), read("type"), read("size")) else {
            continue;
        };
        if ty == "Instruction" {
            continue;
        }
        let (num, unit) = size.split_at(
            size.find(|c: char| !c.is_ascii_digit())
                .unwrap_or(size.len()),
        );
        let Ok(num) = num.parse::<u64>() else {
            continue;
        };
        let bytes = num
            * match unit {
                "K" => 1 << 10,
                "M" => 1 << 20,
                "G" => 1 << 30,
                _ => 1,
            };
        let name = if ty == "Data" {
            format!("L{level}d")
        } else {
            format!("L{level}")
        };
        out.push((name, bytes));
    }
    out
}

/// Measure every size from `from` on; rows of smaller sizes are kept from the CSV already in
/// `csv_path` (`--from N`: resume an interrupted run).
fn measure(csv_path: &Path, from: u64) -> Result<(), Box<dyn std::error::Error>> {
    let mut csv = String::from(
        "filter,n,bytes,bits_per_key,op,ns_per_query,ns_median,clean_passes,queries,passes\n",
    );
    if from > 0 {
        let old = std::fs::read_to_string(csv_path)?;
        for line in old.lines().skip(1) {
            let n: u64 = line
                .split(',')
                .nth(1)
                .and_then(|v| v.parse().ok())
                .unwrap_or(0);
            if n < from {
                let _ = writeln!(csv, "{line}");
            }
        }
    } else {
        for (name, bytes) in caches() {
            let _ = writeln!(csv, "cache,0,{bytes},,{name},,,,,");
        }
    }
    let keys = KeyGen::new(KeyKind::U64, 0xcac4e);
    let mut buf = Vec::new();
    let key8 = |buf: &Vec<u8>| -> [u8; 8] { buf.as_slice().try_into().unwrap_or([0; 8]) };
    let misses: Vec<[u8; 8]> = (0..QUERIES as u64)
        .map(|j| {
            keys.absent(j, &mut buf);
            key8(&buf)
        })
        .collect();
    for n in sizes().into_iter().filter(|&n| n >= from) {
        let hits: Vec<[u8; 8]> = (0..QUERIES as u64)
            .map(|j| {
                keys.present(mix(j ^ n) % n, &mut buf);
                key8(&buf)
            })
            .collect();
        let mut filters = Vec::new();
        for kind in KINDS {
            let spec = FilterSpec::new(kind, n, P);
            let built = Instant::now();
            let f = AnyFilter::build_from(
                &spec,
                (0..n).map(|i| {
                    let mut b = Vec::with_capacity(8);
                    keys.present(i, &mut b);
                    key8(&b)
                }),
            )?;
            eprintln!(
                "{:>12} n={n:>9} {:>10} B built in {:.1} s",
                kind.name(),
                f.bytes(),
                built.elapsed().as_secs_f64()
            );
            filters.push(f);
        }
        // The floor: one random 64-byte line per query from an array of the standard filter's
        // size (independent loads, the index taken from the query key).
        let std_bytes = filters[0].bytes();
        let lines = (std_bytes / 64).max(1);
        let arr: Vec<u64> = (0..lines * 8).map(|i| i as u64).collect();
        // Rounds: every (filter, op) and the floor once per round, so that a burst of load on
        // the machine hits one round of every series rather than all rounds of one.
        let mut t: Vec<Vec<(f64, bool)>> = vec![Vec::new(); KINDS.len() * 2 + 1];
        for _ in 0..ROUNDS {
            for (fi, f) in filters.iter().enumerate() {
                for (oi, qs) in [&hits, &misses].into_iter().enumerate() {
                    t[fi * 2 + oi].push(time(qs, |k| u64::from(f.contains(k))));
                }
            }
            t[KINDS.len() * 2].push(time(&misses, |k| {
                arr[(mix(u64::from_le_bytes(*k)) % lines as u64) as usize * 8]
            }));
        }
        // (fastest clean pass or fastest pass, median of all, clean passes)
        let stats = |v: &Vec<(f64, bool)>| {
            let mut all: Vec<f64> = v.iter().map(|p| p.0).collect();
            all.sort_by(f64::total_cmp);
            let clean: Vec<f64> = v.iter().filter(|p| p.1).map(|p| p.0).collect();
            let best = clean.iter().copied().fold(f64::INFINITY, f64::min);
            let best = if best.is_finite() { best } else { all[0] };
            (best, all[all.len() / 2], clean.len())
        };
        for (fi, f) in filters.iter().enumerate() {
            for (oi, op) in ["query_hit", "query_miss"].into_iter().enumerate() {
                let (lo, med, clean) = stats(&t[fi * 2 + oi]);
                let _ = writeln!(
                    csv,
                    "{},{n},{},{:.3},{op},{lo:.3},{med:.3},{clean},{QUERIES},{ROUNDS}",
                    KINDS[fi].name(),
                    f.bytes(),
                    f.bytes() as f64 * 8.0 / n as f64
                );
                eprintln!(
                    "{:>12} n={n:>9} {op:<10} {lo:7.2} ns (median {med:.2}, {clean} clean)",
                    KINDS[fi].name()
                );
            }
        }
        let (lo, med, clean) = stats(&t[KINDS.len() * 2]);
        let _ = writeln!(
            csv,
            "{FLOOR},{n},{std_bytes},,floor,{lo:.3},{med:.3},{clean},{QUERIES},{ROUNDS}"
        );
        eprintln!("{FLOOR:>12} n={n:>9} {lo:7.2} ns (median {med:.2}, {clean} clean)");
        std::fs::write(csv_path, &csv)?; // after every size, so an interrupted run keeps its rows
    }
    Ok(())
}

struct Row {
    filter: String,
    n: f64,
    bytes: f64,
    op: String,
    ns: f64,
}

fn read(csv_path: &Path) -> Result<Vec<Row>, Box<dyn std::error::Error>> {
    let text = std::fs::read_to_string(csv_path)?;
    let mut rows = Vec::new();
    for line in text.lines().skip(1) {
        let c: Vec<&str> = line.split(',').collect();
        if c.len() < 8 {
            return Err(format!("{}: short row '{line}'", csv_path.display()).into());
        }
        let num = |s: &str| s.parse::<f64>().unwrap_or(f64::NAN);
        rows.push(Row {
            filter: c[0].to_string(),
            n: num(c[1]),
            bytes: num(c[2]),
            op: c[4].to_string(),
            ns: num(c[5]),
        });
    }
    Ok(rows)
}

/// A cache size in the units the hardware uses (KiB, MiB).
fn binary(bytes: f64) -> String {
    if bytes >= f64::from(1u32 << 20) {
        format!("{} MiB", bytes / f64::from(1u32 << 20))
    } else {
        format!("{} KiB", bytes / 1024.0)
    }
}

fn chart(rows: &[Row]) -> Chart {
    let floor_rows: Vec<&Row> = rows.iter().filter(|r| r.filter == FLOOR).collect();
    let (ymin, ymax) = rows
        .iter()
        .filter(|r| r.ns.is_finite())
        .fold((f64::INFINITY, 0f64), |(a, b), r| {
            (a.min(r.ns), b.max(r.ns))
        });
    let panel = |op: &str, title: &str| {
        let mut series = Vec::new();
        // Cache sizes as vertical lines (L1d and L2; L3 only if the data reaches it).
        let xmax = rows
            .iter()
            .filter(|r| r.filter != "cache")
            .map(|r| r.bytes)
            .fold(0.0, f64::max);
        for (i, r) in rows
            .iter()
            .filter(|r| r.filter == "cache" && r.bytes <= xmax)
            .enumerate()
        {
            series.push(Series {
                label: format!("{} cache ({})", r.op, binary(r.bytes)),
                style: if i == 0 { Style::Dashed } else { Style::Line },
                color: Some(7 + i.min(2)),
                points: vec![
                    Point::new(r.bytes, ymin * 0.9),
                    Point::new(r.bytes, ymax * 1.1),
                ],
            });
        }
        series.push(Series {
            label: FLOOR.into(),
            style: Style::Line,
            color: None,
            points: floor_rows
                .iter()
                .map(|r| Point::new(r.bytes, r.ns))
                .collect(),
        });
        for (ci, kind) in KINDS.iter().enumerate() {
            let pts: Vec<Point> = rows
                .iter()
                .filter(|r| r.filter == kind.name() && r.op == op)
                .map(|r| Point::new(r.bytes, r.ns))
                .collect();
            series.push(Series::new(kind.name(), Style::PointsLine, ci).with_points(pts));
        }
        Panel {
            title: title.into(),
            x: Axis {
                format: Format::Bytes,
                ..Axis::log(&format!(
                    "filter size (heap bytes); n = 1000 … {} keys at p = 1%",
                    bloomlab::plot::format_value(
                        rows.iter().map(|r| r.n).fold(0.0, f64::max),
                        Format::Auto
                    )
                ))
            },
            y: Axis {
                range: Some((ymin * 0.9, ymax * 1.1)),
                ..Axis::log("ns per query (fastest of 21 passes)")
            },
            series,
            legend: Legend::default(),
        }
    };
    Chart::book(
        "The cache cliff: ns per query against filter size",
        vec![
            panel("query_hit", "queries for inserted keys (hits)"),
            panel("query_miss", "queries for keys never inserted (misses)"),
        ],
    )
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let mut replot = false;
    let mut from = 0u64;
    let mut out = PathBuf::from("results/bench");
    let mut args = std::env::args().skip(1);
    while let Some(a) = args.next() {
        match a.as_str() {
            "--replot" => replot = true,
            "--from" => from = args.next().and_then(|v| v.parse().ok()).ok_or("--from N")?,
            _ => out = PathBuf::from(a),
        }
    }
    std::fs::create_dir_all(&out)?;
    let csv = out.join("cache-cliff.csv");
    if !replot {
        measure(&csv, from)?;
    }
    let c = chart(&read(&csv)?);
    c.save_svg(&out.join("cache-cliff.svg"))?;
    c.save_png(&out.join("cache-cliff.png"))?;
    eprintln!("wrote {}, cache-cliff.svg, cache-cliff.png", csv.display());
    Ok(())
}
