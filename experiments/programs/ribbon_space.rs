//! The standard ribbon filter (width 64) at n = 10^6 keys, r = 7 and r = 10: space against the
//! lower bound and against the overhead the sizing expects, measured FPR against 2^-r, build
//! and query time, and the failure rate of one construction attempt. Peers in the same run:
//! the xor and binary fuse filters with 8-bit fingerprints.
//!
//! Run in release: `nice cargo run --release --example ribbon_space` (a few minutes). Writes
//! `results/ribbon-space.csv`; `results/ribbon-space.md` discusses a run.

use bloomlab::Filter;
use bloomlab::filters::{BinaryFuseFilter, RibbonFilter, XorFilter};
use bloomlab::hash::{AnyHasher, HashId};
use bloomlab::stats::{Z95, wilson};
use bloomlab::theory::ribbon as model;
use std::hint::black_box;
use std::io::Write;
use std::time::Instant;

const N: u64 = 1_000_000;
/// Absent keys queried for the FPR.
const QUERIES: u64 = 20_000_000;
/// Builds timed (the median is reported).
const BUILDS: usize = 5;

fn key(i: u64) -> [u8; 8] {
    i.to_le_bytes()
}

/// Median of `xs`.
fn median(mut xs: Vec<f64>) -> f64 {
    xs.sort_by(f64::total_cmp);
    xs[xs.len() / 2]
}

struct Row {
    filter: String,
    r: u32,
    bits_per_key: f64,
    fp: u64,
    build_ns: f64,
    miss_ns: f64,
    hit_ns: f64,
}

/// Build `BUILDS` times (median ns/key), then query every key (hit) and `QUERIES` absent keys.
fn run<F: Filter>(
    filter: String,
    r: u32,
    keys: &[[u8; 8]],
    build: impl Fn(&[[u8; 8]]) -> F,
) -> Row {
    let mut times = Vec::new();
    let mut f = None;
    for _ in 0..BUILDS {
        let t = Instant::now();
        let g = black_box(build(keys));
        times.push(t.elapsed().as_nanos() as f64 / keys.len() as f64);
        f = Some(g);
    }
    let f = f.expect("built");
    let t = Instant::now();
    let hits = keys
        .iter()
        .filter(|k| f.contains(black_box(&k[..])))
        .count();
    let hit_ns = t.elapsed().as_nanos() as f64 / keys.len() as f64;
    assert_eq!(hits, keys.len(), "{filter}: false negatives");
    let t = Instant::now();
    let fp = (0..QUERIES)
        .filter(|&i| f.contains(black_box(&key((1 << 40) + i))))
        .count() as u64;
    let miss_ns = t.elapsed().as_nanos() as f64 / QUERIES as f64;
    Row {
        filter,
        r,
        bits_per_key: f.bits() as f64 / keys.len() as f64,
        fp,
        build_ns: median(times),
        miss_ns,
        hit_ns,
    }
}

/// Construction attempts at `n` keys over `builds` hash seeds: (attempts, failed attempts).
fn attempts(n: u64, r: u32, builds: u64) -> (u64, u64) {
    let keys: Vec<[u8; 8]> = (0..n).map(key).collect();
    let (mut all, mut failed) = (0, 0);
    for s in 0..builds {
        let hasher = AnyHasher::new(HashId::Xxh3, 0x9e37_79b9 + s);
        let f = RibbonFilter::from_keys_and(&keys, r, hasher).expect("ribbon");
        all += u64::from(f.attempts());
        failed += u64::from(f.attempts() - 1);
    }
    (all, failed)
}

fn main() -> std::io::Result<()> {
    let keys: Vec<[u8; 8]> = (0..N).map(key).collect();
    let mut rows = Vec::new();
    for r in [7u32, 10] {
        rows.push(run(format!("ribbon r={r}"), r, &keys, |k| {
            RibbonFilter::from_keys(k, r).expect("ribbon")
        }));
    }
    rows.push(run("binary-fuse f=8".into(), 8, &keys, |k| {
        BinaryFuseFilter::from_keys(k, 8).expect("binary fuse")
    }));
    rows.push(run("xor f=8".into(), 8, &keys, |k| {
        XorFilter::from_keys(k, 8).expect("xor")
    }));

    let rows_m = model::slots(N);
    // RocksDB's formula for large sizes at width 64 (1 failure in 20 per seed), at these rows.
    let rocksdb = 1.093_97 + 0.0083 * ((rows_m as f64).log2() - 17.0);
    println!(
        "# n = {N}, rows m = {rows_m} (sizing ε = {:.2}%; RocksDB's m/n at these rows {:.4}), {QUERIES} absent queries\n",
        100.0 * model::overhead(N),
        rocksdb
    );
    let mut csv = std::fs::File::create("results/ribbon-space.csv")?;
    writeln!(
        csv,
        "filter,r,n,bits_per_key,lower_bound_bits,overhead_pct,overhead_bits,fpr,fpr_lo95,fpr_hi95,fpr_model,build_ns_per_key,query_miss_ns,query_hit_ns"
    )?;
    println!(
        "| filter | bits/key | bound | overhead | over (bits) | FPR (95% Wilson) | 2^-r | build ns/key | miss ns | hit ns |"
    );
    println!("|---|---|---|---|---|---|---|---|---|---|");
    for w in &rows {
        let (lo, hi) = wilson(w.fp, QUERIES, Z95);
        let fpr = w.fp as f64 / QUERIES as f64;
        let bound = f64::from(w.r);
        let over = w.bits_per_key / bound - 1.0;
        println!(
            "| {} | {:.3} | {} | {:.2}% | {:.3} | {:.5}% [{:.5}, {:.5}] | {:.5}% | {:.1} | {:.1} | {:.1} |",
            w.filter,
            w.bits_per_key,
            w.r,
            100.0 * over,
            w.bits_per_key - bound,
            100.0 * fpr,
            100.0 * lo,
            100.0 * hi,
            100.0 * model::fpr(w.r),
            w.build_ns,
            w.miss_ns,
            w.hit_ns
        );
        writeln!(
            csv,
            "{},{},{N},{:.4},{},{:.4},{:.4},{:.7},{:.7},{:.7},{:.7},{:.2},{:.2},{:.2}",
            w.filter,
            w.r,
            w.bits_per_key,
            w.r,
            100.0 * over,
            w.bits_per_key - bound,
            fpr,
            lo,
            hi,
            model::fpr(w.r),
            w.build_ns,
            w.miss_ns,
            w.hit_ns
        )?;
    }

    println!("\n# Failed construction attempts (one seed each), over many hash seeds\n");
    println!("| n | r | builds | attempts | failed | failure rate per attempt (95% Wilson) |");
    println!("|---|---|---|---|---|---|");
    for (n, builds) in [
        (1_000u64, 2000u64),
        (10_000, 500),
        (100_000, 100),
        (1_000_000, 20),
    ] {
        let (all, failed) = attempts(n, 7, builds);
        let (lo, hi) = wilson(failed, all, Z95);
        println!(
            "| {n} | 7 | {builds} | {all} | {failed} | {:.3} [{:.3}, {:.3}] |",
            failed as f64 / all as f64,
            lo,
            hi
        );
        writeln!(
            csv,
            "attempts n={n},7,{n},,,,,{:.5},{lo:.5},{hi:.5},{},,,",
            failed as f64 / all as f64,
            model::FAILURE_PER_ATTEMPT
        )?;
    }
    Ok(())
}
