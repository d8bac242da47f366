//! Summary writer (not a timing bench): reads criterion's `new/estimates.json` and
//! `new/benchmark.json` of the last `cargo bench --bench bench` run and writes
//! results/bench/summary.md (ns/op tables, ratios to the best peer and to the memory floor, the
//! machine). The cache-cliff figure is not drawn here (three sizes cannot resolve it): see
//! `experiments/programs/cache_cliff.rs`.
//!
//! Run: `cargo bench --bench summary`. Criterion's directory: `$CRITERION_HOME`, else
//! `$CARGO_TARGET_DIR/criterion`, else `target/criterion`.

#[path = "common/ratios.rs"]
mod ratios;
#[path = "common/settings.rs"]
mod settings;

use ratios::headline_ratios;

use serde_json::Value;
use std::collections::{BTreeMap, BTreeSet};
use std::fmt::Write as _;
use std::path::Path;

/// One criterion result: ns per element (or per byte for the hash group: then `per_byte`).
#[derive(Debug, Clone)]
struct Est {
    /// Median time of one iteration, ns.
    median_ns: f64,
    /// Elements (or bytes) per iteration.
    per_iter: f64,
    bytes: bool,
}

impl Est {
    fn ns_per_elem(&self) -> f64 {
        self.median_ns / self.per_iter
    }
}

type Results = BTreeMap<(String, String, String), Est>;

/// The noise witness's ratio for the operation of criterion group `g` (`insert`, `query_hit`,
/// `query_miss`, or their `dynamic_` forms) at n.
fn witness_op(g: &str) -> &str {
    g.strip_prefix("dynamic_").unwrap_or(g)
}

/// Throughput of the lock-free filter against a mutex-wrapped one (group `concurrent`).
fn concurrent_table(res: &Results, md: &mut String) {
    let get = |f: &str, t: &str| {
        res.get(&("concurrent".into(), f.into(), t.into()))
            .map(|e| 1e3 / e.ns_per_elem())
    };
    if get("atomic-insert", "1t").is_none() {
        return;
    }
    let _ = writeln!(
        md,
        "\n## Concurrent filter\n\nMillion keys per second (all threads together), `ConcurrentBloom` \
         (atomic bit setting through `&self`) against `Mutex<StandardBloom>` with the same hash, \
         strategy and size (10⁶ keys at 1%, half full; queries half present). \
         `cargo bench --bench bench -- concurrent`.\n\n\
         | op | threads | atomic Mkeys/s | mutex Mkeys/s | atomic / mutex |\n|---|---:|---:|---:|---:|"
    );
    for op in ["insert", "query"] {
        for t in ["1t", "2t"] {
            let (a, m) = (
                get(&format!("atomic-{op}"), t),
                get(&format!("mutex-{op}"), t),
            );
            let f = |x: Option<f64>| x.map_or("–".into(), |x| format!("{x:.1}"));
            let r = match (a, m) {
                (Some(a), Some(m)) => format!("{:.2}", a / m),
                _ => "–".into(),
            };
            let _ = writeln!(md, "| {op} | {} | {} | {} | {r} |", &t[..1], f(a), f(m));
        }
    }
}

fn walk(dir: &Path, out: &mut Results) {
    let Ok(rd) = std::fs::read_dir(dir) else {
        return;
    };
    for e in rd.flatten() {
        let p = e.path();
        if p.is_dir() {
            if p.file_name().is_some_and(|n| n == "new") {
                read_one(&p, out);
            } else if p.file_name().is_none_or(|n| n != "report" && n != "base") {
                walk(&p, out);
            }
        }
    }
}

fn read_json(p: &Path) -> Option<Value> {
    serde_json::from_str(&std::fs::read_to_string(p).ok()?).ok()
}

fn read_one(dir: &Path, out: &mut Results) {
    let (Some(b), Some(e)) = (
        read_json(&dir.join("benchmark.json")),
        read_json(&dir.join("estimates.json")),
    ) else {
        return;
    };
    let s = |v: &Value| v.as_str().unwrap_or("").to_string();
    let (group, func, value) = (s(&b["group_id"]), s(&b["function_id"]), s(&b["value_str"]));
    let (per_iter, bytes) = match &b["throughput"] {
        Value::Object(t) if t.contains_key("Elements") => {
            (t["Elements"].as_f64().unwrap_or(1.0), false)
        }
        Value::Object(t) if t.contains_key("Bytes") => (t["Bytes"].as_f64().unwrap_or(1.0), true),
        _ => (1.0, false),
    };
    let Some(median_ns) = e["median"]["point_estimate"].as_f64() else {
        return;
    };
    out.insert(
        (group, func, value),
        Est {
            median_ns,
            per_iter,
            bytes,
        },
    );
}

fn machine() -> String {
    let cpu = std::fs::read_to_string("/proc/cpuinfo").unwrap_or_default();
    let cpus = cpu.lines().filter(|l| l.starts_with("processor")).count();
    let mut caches = Vec::new();
    for i in 0..5 {
        let d = format!("/sys/devices/system/cpu/cpu0/cache/index{i}");
        let r = |f: &str| std::fs::read_to_string(format!("{d}/{f}")).map(|s| s.trim().to_string());
        if let (Ok(l), Ok(t), Ok(sz)) = (r("level"), r("type"), r("size")) {
            caches.push(format!(
                "L{l} {} {sz}",
                if t == "Unified" { "" } else { &t[..1] }
            ));
        }
    }
    let rustc = std::process::Command::new("rustc")
        .arg("-V")
        .output()
        .map(|o| String::from_utf8_lossy(&o.stdout).trim().to_string())
        .unwrap_or_else(|_| "?".into());
    let kernel = std::fs::read_to_string("/proc/sys/kernel/osrelease").unwrap_or_default();
    let mem = std::fs::read_to_string("/proc/meminfo")
        .unwrap_or_default()
        .lines()
        .next()
        .unwrap_or("")
        .to_string();
    let run = std::fs::read_to_string(settings::criterion_dir().join("bloomlab-run.txt"))
        .unwrap_or_default();
    format!(
        "- CPU: {} ({cpus} logical CPUs visible), caches: {}\n- {}\n- kernel {}, {}\n- {}\n",
        settings::cpu_model(),
        caches.join(", "),
        mem.split_whitespace().collect::<Vec<_>>().join(" "),
        kernel.trim(),
        rustc,
        run.trim().replace('\n', "\n- ")
    )
}

fn fmt_ns(x: f64) -> String {
    if x >= 100.0 {
        format!("{x:.0}")
    } else if x >= 10.0 {
        format!("{x:.1}")
    } else {
        format!("{x:.2}")
    }
}

fn is_lab(name: &str) -> bool {
    name.starts_with("bloomlab")
}

/// Filter peers (not bloomlab, not the exact `hashset`).
fn is_filter_peer(name: &str) -> bool {
    !is_lab(name) && name != "hashset"
}

fn main() {
    let dir = settings::criterion_dir();
    let mut res = Results::new();
    walk(&dir, &mut res);
    if res.is_empty() {
        eprintln!(
            "no criterion results under {} — run `cargo bench --bench bench` first",
            dir.display()
        );
        std::process::exit(1);
    }
    let get = |g: &str, f: &str, v: &str| {
        res.get(&(g.into(), f.into(), v.into()))
            .map(Est::ns_per_elem)
    };
    let sizes: BTreeSet<u64> = res
        .keys()
        .filter(|k| k.0 == "query_hit" || k.0 == "floor")
        .filter_map(|k| k.2.parse().ok())
        .collect();
    let impls: BTreeSet<String> = res
        .keys()
        .filter(|k| ["insert", "query_hit", "query_miss"].contains(&k.0.as_str()))
        .map(|k| k.1.clone())
        .collect();
    // bloomlab first, then peers alphabetically, hashset last.
    let mut order: Vec<String> = impls.iter().filter(|i| is_lab(i)).cloned().collect();
    order.extend(impls.iter().filter(|i| is_filter_peer(i)).cloned());
    order.extend(impls.iter().filter(|i| i.as_str() == "hashset").cloned());

    let mut md = String::new();
    let _ = writeln!(
        md,
        "# Benchmark summary\n\nWritten by `cargo bench --bench summary` from the criterion results of one \
         `cargo bench --bench bench` run (median of the samples; one timed iteration = a batch of {} random \
         keys, so every number is ns per key). Every filter is configured for n keys at p = 1% (or the \
         nearest it allows: see *Configurations*). Ratios compare implementations measured in the same run. \
         The machine is shared and noisy: the noise witness in *Headline ratios* says how far any ratio of the run can be off.\n\n## Machine\n\n{}",
        settings::BATCH,
        machine()
    );

    let floor = |n: u64| get("floor", "random-cache-line", &n.to_string());
    let floor7 = |n: u64| get("floor", "7-random-cache-lines", &n.to_string());
    let _ = writeln!(
        md,
        "## The memory floor\n\n`floor/random-cache-line/{{n}}`: one random 64-byte line per key read from an \
         array as large as `bloomlab-standard`'s bits for n keys (independent loads, no hashing); \
         `floor/7-random-cache-lines`: seven per key, what a standard-filter hit (k = 7) touches.\n\n\
         | n | filter bytes | 1 line ns/key | 7 lines ns/key |\n|---:|---:|---:|---:|"
    );
    for &n in &sizes {
        let m = bloomlab::theory::size_for(n, settings::P)
            .map(|s| s.m / 8)
            .unwrap_or(0);
        let _ = writeln!(
            md,
            "| {n} | {m} | {} | {} |",
            floor(n).map_or("–".into(), fmt_ns),
            floor7(n).map_or("–".into(), fmt_ns)
        );
    }

    for op in ["query_hit", "query_miss", "insert"] {
        let _ = writeln!(
            md,
            "\n## {op}\n\nns per key; in brackets: ×best filter peer at that n (below 1 = faster), \
             and ×floor (the 1-line floor at that n).\n"
        );
        let mut head = "| impl |".to_string();
        let mut sep = "|---|".to_string();
        for n in &sizes {
            let _ = write!(head, " n={n} |");
            sep.push_str("---:|");
        }
        let _ = writeln!(md, "{head}\n{sep}");
        for i in &order {
            let mut row = format!("| {i} |");
            for &n in &sizes {
                let ns = n.to_string();
                let Some(t) = get(op, i, &ns) else {
                    row.push_str(" – |");
                    continue;
                };
                let best = order
                    .iter()
                    .filter(|p| is_filter_peer(p))
                    .filter_map(|p| get(op, p, &ns))
                    .fold(f64::INFINITY, f64::min);
                let mut cell = fmt_ns(t);
                let mut notes = Vec::new();
                if best.is_finite() {
                    notes.push(format!("×{:.2} peer", t / best));
                }
                if let Some(f) = floor(n) {
                    notes.push(format!("×{:.1} floor", t / f));
                }
                if !notes.is_empty() {
                    let _ = write!(cell, " ({})", notes.join(", "));
                }
                let _ = write!(row, " {cell} |");
            }
            let _ = writeln!(md, "{row}");
        }
    }

    // Headline ratios.
    let _ = writeln!(
        md,
        "\n## Headline ratios\n\nThe first line measures the same code twice (`insert` is identical in \
         `bloomlab-standard` and `bloomlab-standard-batch`): how far it is from 1.00 is how far any ratio \
         of this run can be off because of other load on the machine. ✓ / ✗: the ratio meets / misses \
         the performance target set for it (≤ target; the floor target only at n = 10⁸). \
         `(w r)` beside a ratio: the noise witness's ratio for the same operation and n \
         (`bloomlab-standard-witness / bloomlab-standard`, the same code under two names): a ratio \
         within the witness's distance from 1.00 of its target is not decided by this run.\n"
    );
    let _ = writeln!(
        md,
        "| ratio | {} | target |\n|---|{}---|",
        sizes
            .iter()
            .map(|n| format!("n={n}"))
            .collect::<Vec<_>>()
            .join(" | "),
        sizes.iter().map(|_| "---:|").collect::<String>()
    );
    for (label, (ga, ia), (gb, ib), target) in headline_ratios() {
        let cells: Vec<String> = sizes
            .iter()
            .map(|&n| {
                // The batched-blocked floor target is stated for n = 10^8 only.
                let t = target.filter(|t| t.at.is_none_or(|at| at == n));
                let ns = n.to_string();
                let op = witness_op(ga);
                // Construction has its own witness (the standard filter has no `build`).
                let (wa, wb) = if op == "build" {
                    ("bloomlab-fuse8-witness", "bloomlab-fuse8")
                } else {
                    ("bloomlab-standard-witness", "bloomlab-standard")
                };
                let w = match (get(op, wa, &ns), get(op, wb, &ns)) {
                    (Some(a), Some(b)) if ia != wa => {
                        format!(" (w {:.2})", a / b)
                    }
                    _ => String::new(),
                };
                match (get(ga, ia, &ns), get(gb, ib, &ns)) {
                    (Some(a), Some(b)) => {
                        let r = a / b;
                        let mark = t.map_or("", |t| if r <= t.max { " ✓" } else { " ✗" });
                        format!("{r:.2}{mark}{w}")
                    }
                    _ => "–".into(),
                }
            })
            .collect();
        let goal = target.map_or(String::new(), |t| match t.at {
            Some(at) => format!("≤ {} at n={at}", t.max),
            None => format!("≤ {}", t.max),
        });
        let _ = writeln!(md, "| {label} | {} | {goal} |", cells.join(" | "));
    }
    concurrent_table(&res, &mut md);

    instruction_table(&mut md);
    hash_tables(&res, &mut md);
    configurations(&mut md);

    let out = Path::new(env!("CARGO_MANIFEST_DIR")).join("results/bench");
    std::fs::create_dir_all(&out).expect("results/bench");
    let _ = writeln!(
        md,
        "\n## The cache cliff\n\nThe three sizes above do not resolve it: `cache-cliff.csv` and its \
         figure `cache-cliff.svg` / `cache-cliff.png` (16 sizes from 10^3 to 10^8 keys, five filters and \
         the one-line floor) are written by `cargo run --release --example cache_cliff` \
         (experiments/programs/cache_cliff.rs)."
    );
    std::fs::write(out.join("summary.md"), &md).expect("summary.md");
    println!("{md}");
    eprintln!("wrote {}", out.join("summary.md").display());
}

fn hash_tables(res: &Results, md: &mut String) {
    let hashes: BTreeSet<&str> = res
        .keys()
        .filter(|k| k.0 == "hash")
        .map(|k| k.1.as_str())
        .collect();
    if !hashes.is_empty() {
        let lens = [8, 16, 64, 256];
        let _ = writeln!(
            md,
            "\n## Hash functions\n\nGB/s (ns per key in brackets), `hash128` of keys of each length.\n\n| hash | {} |\n|---|{}",
            lens.map(|l| format!("{l} B")).join(" | "),
            "---:|".repeat(lens.len())
        );
        for h in hashes {
            let cells: Vec<String> = lens
                .iter()
                .map(|l| {
                    res.get(&("hash".into(), h.into(), l.to_string()))
                        .map_or("–".into(), |e| {
                            let ns_per_byte = e.ns_per_elem();
                            debug_assert!(e.bytes);
                            format!(
                                "{:.2} ({})",
                                1.0 / ns_per_byte,
                                fmt_ns(ns_per_byte * f64::from(*l))
                            )
                        })
                })
                .collect();
            let _ = writeln!(md, "| {h} | {} |", cells.join(" | "));
        }
    }
    let strategies: BTreeSet<String> = res
        .keys()
        .filter(|k| k.0 == "index" && !k.1.ends_with("+xxh3"))
        .map(|k| k.1.clone())
        .collect();
    if !strategies.is_empty() {
        let _ = writeln!(
            md,
            "\n## Index strategies (k = 7, m for 10⁶ keys at 1%)\n\nns per item, all 7 positions.\n\n\
             | strategy | positions only | xxh3 + positions |\n|---|---:|---:|"
        );
        for s in strategies {
            let a = res
                .get(&("index".into(), s.clone(), "k7".into()))
                .map(Est::ns_per_elem);
            let b = res
                .get(&("index".into(), format!("{s}+xxh3"), "k7".into()))
                .map(Est::ns_per_elem);
            let _ = writeln!(
                md,
                "| {s} | {} | {} |",
                a.map_or("–".into(), fmt_ns),
                b.map_or("–".into(), fmt_ns)
            );
        }
    }
}

/// Instructions per operation from the committed gate baseline (callgrind, n = 10^4 in cache):
/// the noise-free side of the comparison.
fn instruction_table(md: &mut String) {
    let base =
        Path::new(env!("CARGO_MANIFEST_DIR")).join("results/bench/gate-baseline/bloomlab/gate");
    // Ir per operation: first field of the `summary:` line, over the 1000 operations of a bench.
    let ir = |group: &str, op: &str, name: &str| -> Option<f64> {
        let f = base
            .join(group)
            .join(format!("{op}.{name}"))
            .join(format!("callgrind.{op}.{name}.out.base@committed"));
        let text = std::fs::read_to_string(f).ok()?;
        let line = text.lines().find(|l| l.starts_with("summary:"))?;
        line.split_whitespace()
            .nth(1)?
            .parse::<f64>()
            .ok()
            .map(|x| x / 1000.0)
    };
    let lab = [
        "standard",
        "standard_double",
        "counting",
        "blocked",
        "split_block",
        "scalable",
        "scalable_grown",
        "standard_sip13_64",
        "standard_foldhash_64",
        "cuckoo",
    ];
    let peers = [
        "fastbloom",
        "fastbloom_foldhash",
        "sbbf",
        "cuckoofilter",
        "growable",
        "growable_grown",
    ];
    if ir("hot_paths", "query_hit", "standard").is_none() {
        return;
    }
    let _ = writeln!(
        md,
        "\n## Instructions per operation (callgrind, deterministic)\n\n\
         From the CI gate's committed baseline (`results/bench/gate-baseline/`, `benches/gate.rs`): \
         n = 10⁴ at p = 1% (every structure in L1/L2), 1000 operations, instructions / 1000. \
         Unlike the wall-clock tables these do not move with the machine's load; they say nothing \
         about cache misses, so they stand for the small-n column only. The table lists the `hot_paths` \
         rows (`Box<dyn Filter>`, a key of run-time length, as the CLI sees one); the ratios with a \
         target use the `lab_*` rows, the bloomlab filter behind the peers' own harness (like for \
         like; `results/bench/instructions.md` has every pair).\n\n\
         | impl | insert | query_hit | query_miss |\n|---|---:|---:|---:|"
    );
    let cell = |x: Option<f64>| x.map_or("–".into(), |x| format!("{x:.0}"));
    for (group, names, prefix, op_prefix) in [
        ("hot_paths", &lab[..], "bloomlab-", ""),
        ("peers", &peers[..], "", "peer_"),
    ] {
        for n in names {
            let _ = writeln!(
                md,
                "| {prefix}{} | {} | {} | {} |",
                n.replace('_', "-"),
                cell(ir(group, &format!("{op_prefix}insert"), n)),
                cell(ir(group, &format!("{op_prefix}query_hit"), n)),
                cell(ir(group, &format!("{op_prefix}query_miss"), n)),
            );
        }
    }
    let _ = writeln!(
        md,
        "\n| instruction ratio | insert | query_hit | query_miss | target |\n|---|---:|---:|---:|---|"
    );
    for (label, a, b, target) in [
        (
            "bloomlab-standard (xxh3) / fastbloom (sip13)",
            "standard",
            "fastbloom",
            None,
        ),
        (
            "bloomlab-standard (xxh3) / fastbloom-foldhash",
            "standard",
            "fastbloom_foldhash",
            None,
        ),
        (
            "bloomlab-standard-double (xxh3, plain double hashing) / fastbloom (sip13)",
            "standard_double",
            "fastbloom",
            None,
        ),
        (
            "bloomlab-blocked / sbbf-rs-safe (cross-design, different hash: no target)",
            "blocked",
            "sbbf",
            None,
        ),
        (
            "bloomlab-split-block (xxh64) / sbbf-rs-safe (xxh3: not the same hash, no target)",
            "split_block",
            "sbbf",
            None,
        ),
        (
            "bloomlab-split-block-xxh3 / sbbf-rs-safe (both xxh3_64)",
            "lab_split_block_xxh3",
            "sbbf",
            Some(1.0),
        ),
        (
            "bloomlab-blocked / fastbloom09 BloomFilter<512> (both xxh3_64)",
            "lab_blocked_xxh3",
            "fastbloom09_xxh3",
            Some(1.0),
        ),
        (
            "bloomlab-blocked-foldhash / fastbloom09 BloomFilter<512> (both foldhash)",
            "lab_blocked_foldhash",
            "fastbloom09_foldhash",
            Some(1.0),
        ),
        (
            "bloomlab-cuckoo / cuckoofilter",
            "lab_cuckoo",
            "cuckoofilter",
            Some(0.5),
        ),
        (
            "bloomlab-standard-sip13-64 / fastbloom (both 64-bit SipHash-1-3; rotate-add-64)",
            "lab_standard_sip13_64",
            "fastbloom",
            Some(1.0),
        ),
        (
            "bloomlab-standard-foldhash-64 / fastbloom-foldhash (both foldhash; rotate-add-64)",
            "lab_standard_foldhash_64",
            "fastbloom_foldhash",
            Some(1.0),
        ),
        (
            "bloomlab-scalable / growable-bloom-filter (one layer)",
            "lab_scalable",
            "growable",
            Some(0.5),
        ),
        (
            "bloomlab-scalable / growable-bloom-filter (started at n/1000)",
            "lab_scalable_grown",
            "growable_grown",
            Some(0.5),
        ),
    ] {
        let cells: Vec<String> = ["insert", "query_hit", "query_miss"]
            .iter()
            .map(|op| {
                // `lab_*`: the bloomlab filter behind the peers' own harness (like for like);
                // otherwise the `hot_paths` row (`Box<dyn Filter>`, a key of run-time length).
                let x = if a.starts_with("lab_") {
                    ir("peers", &format!("peer_{op}"), a)
                } else {
                    ir("hot_paths", op, a)
                };
                match (x, ir("peers", &format!("peer_{op}"), b)) {
                    (Some(x), Some(y)) => {
                        let r = x / y;
                        let mark = target.map_or("", |t| if r <= t { " ✓" } else { " ✗" });
                        format!("{r:.2}{mark}")
                    }
                    _ => "–".into(),
                }
            })
            .collect();
        let goal = target.map_or(String::new(), |t| format!("≤ {t}"));
        let _ = writeln!(md, "| {label} | {} | {goal} |", cells.join(" | "));
    }
}

/// The configurations, from the accuracy audit's CSV (same construction as the bench).
fn configurations(md: &mut String) {
    let p = Path::new(env!("CARGO_MANIFEST_DIR")).join("results/bench/accuracy.csv");
    let Ok(mut r) = csv::Reader::from_path(&p) else {
        let _ = writeln!(
            md,
            "\n## Configurations\n\n(run `cargo bench --bench audit` for this table)"
        );
        return;
    };
    let _ = writeln!(
        md,
        "\n## Configurations\n\nHow each implementation was configured for p = 1% (at n = 10⁶, from \
         `accuracy.csv` of `cargo bench --bench audit`, built by the same code as the bench), what it \
         reached, and how keys reach it. See `accuracy.md` for every size.\n\n\
         | impl | keys as | configured | bits/key | measured FPR % | verdict |\n|---|---|---|---:|---:|---|"
    );
    for rec in r.records().flatten() {
        if rec.get(1) != Some("1000000") {
            continue;
        }
        let g = |i: usize| rec.get(i).unwrap_or("");
        let fpr: f64 = g(9).parse().unwrap_or(f64::NAN);
        let _ = writeln!(
            md,
            "| {} | {} | {} | {} | {:.3} | {} |",
            g(0),
            g(3),
            g(4),
            g(5),
            100.0 * fpr,
            g(12)
        );
    }
}
