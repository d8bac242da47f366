//! What the batch queries' prefetch buys in DRAM: ns per query at one large n (default 10^8,
//! p = 1%) for the blocked, split-block and cuckoo filters one at a time and batched, next to
//! the memory floor (one independent random 64-byte line per query from an array as large as
//! the standard filter) and, for the blocked filter, the same batch without the prefetch (the
//! hash-16-then-probe loop written here over the public block API) and with a plain load of
//! each block instead of a prefetch ("touch").
//!
//! ```text
//! prlimit --as=6000000000 cargo run --release --example batch_probe -- [N] [REPS] \
//!     > results/bench/batch-probe.md
//! ```
//! Each timed pass answers 1000 random keys (hits: inserted keys; misses: never inserted), as
//! the criterion suite's iterations do; the page on stdout gives the median and the 10th
//! percentile of REPS (default 3000) passes, ns per key, and the ratio to the floor (progress
//! on stderr). About a minute for n = 10^8; run it with nothing else busy.

use bloomlab::Filter;
use bloomlab::filters::blocked::{BlockedBloom, lane};
use bloomlab::filters::{CuckooFilter, SplitBlockBloom};
use bloomlab::hash::{Xxh3, mix64, reduce};
use std::hint::black_box;
use std::time::Instant;

const PASS: usize = 1000;
const P: f64 = 0.01;

fn key(i: u64) -> u64 {
    mix64(i ^ 0x5eed)
}

/// One measured row: what, hit or miss, median and 10th percentile (ns per key), share found.
struct Row {
    name: &'static str,
    hit: bool,
    median: f64,
    p10: f64,
    found: f64,
}

/// Time `f` over `reps` passes of `PASS` keys into `rows` (progress on stderr).
fn time(
    rows: &mut Vec<Row>,
    (name, n, reps, hit): (&'static str, u64, usize, bool),
    mut f: impl FnMut(&[u64]) -> usize,
) {
    let mut s = 0x1234u64;
    let mut buf = vec![0u64; PASS];
    let mut ns = Vec::with_capacity(reps);
    let mut found = 0usize;
    for _ in 0..reps {
        for k in &mut buf {
            s = mix64(s.wrapping_add(1));
            *k = if hit { key(s % n) } else { key(n + s % n) };
        }
        let t = Instant::now();
        found += f(black_box(&buf));
        ns.push(t.elapsed().as_nanos() as f64 / PASS as f64);
    }
    ns.sort_by(f64::total_cmp);
    let r = Row {
        name,
        hit,
        median: ns[reps / 2],
        p10: ns[reps / 10],
        found: found as f64 / (reps * PASS) as f64,
    };
    eprintln!(
        "{name:42} {} {:7.2} ns/key (p10 {:6.2})  found {:.4}",
        if hit { "hit " } else { "miss" },
        r.median,
        r.p10,
        r.found
    );
    rows.push(r);
}

/// The rows as a markdown page: hit and miss side by side, and their ratio to the floor.
fn print_page(rows: &[Row], n: u64, reps: usize) {
    let floor = |hit| {
        rows.iter()
            .find(|r| r.name == FLOOR && r.hit == hit)
            .map_or(f64::NAN, |r| r.median)
    };
    println!("# Batched queries in DRAM: what the prefetch buys\n");
    println!(
        "Written by `cargo run --release --example batch_probe` \
         (`experiments/programs/batch_probe.rs`): n = {n} keys at p = {P}, each filter filled with \
         n keys, then {reps} timed passes of {PASS} random keys (hits: inserted keys; misses: keys \
         never inserted). ns per key: the median pass (the 10th percentile in brackets); ×floor: \
         the median over the floor's median (one random 64-byte line per key from an array as \
         large as the standard filter). Inserts are of keys already present (the filter does not \
         change between passes).\n"
    );
    println!("| what | hit ns/key | miss ns/key | hit ×floor | miss ×floor |");
    println!("|---|---:|---:|---:|---:|");
    let mut names: Vec<&str> = Vec::new();
    for r in rows {
        if !names.contains(&r.name) {
            names.push(r.name);
        }
    }
    for name in names {
        let cell = |hit| rows.iter().find(|r| r.name == name && r.hit == hit);
        let ns = |hit| {
            cell(hit).map_or("–".to_string(), |r| {
                format!("{:.1} ({:.1})", r.median, r.p10)
            })
        };
        let x = |hit| {
            cell(hit).map_or("–".to_string(), |r| {
                format!("{:.2}", r.median / floor(hit))
            })
        };
        println!(
            "| {name} | {} | {} | {} | {} |",
            ns(true),
            ns(false),
            x(true),
            x(false)
        );
    }
}

const FLOOR: &str = "floor: 1 random line";

/// Query `ks` through `contains_batch`, 64 keys a call (as the criterion suite does).
fn batch<F: Filter>(f: &F, ks: &[u64]) -> usize {
    let mut hits = 0;
    for c in ks.chunks(64) {
        let bytes: [[u8; 8]; 64] =
            std::array::from_fn(|i| c.get(i).map_or([0; 8], |k| k.to_le_bytes()));
        let items: [&[u8]; 64] = std::array::from_fn(|i| &bytes[i][..]);
        let mut out = [false; 64];
        f.contains_batch(&items[..c.len()], &mut out[..c.len()]);
        hits += out[..c.len()].iter().filter(|&&b| b).count();
    }
    hits
}

/// The blocked batch without a prefetch: hash 16, then probe 16 (`touch`: load one word of
/// each block while hashing, a demand load in place of the prefetch).
fn blocked_no_prefetch(f: &BlockedBloom, ks: &[u64], touch: bool) -> usize {
    let (blocks, k) = (f.block_slice(), f.k() as usize);
    let mut hits = 0;
    let mut sink = 0u64;
    for c in ks.chunks(16) {
        let mut p = [(0usize, 0u32); 16];
        for (p, key) in p.iter_mut().zip(c) {
            *p = f.block_and_lanes(&key.to_le_bytes());
            if touch {
                sink ^= blocks[p.0].0[0];
            }
        }
        for &(b, x) in &p[..c.len()] {
            let w = &blocks[b].0;
            let mut all = u64::MAX;
            for j in 0..k {
                let q = lane(x, j);
                all &= w[(q >> 6) as usize] >> (q & 63);
            }
            hits += (all & 1) as usize;
        }
    }
    black_box(sink);
    hits
}

/// A whole-number argument of at least `min` (`default` when absent); anything else ends the
/// program with a message and exit status 2.
fn arg<T: std::str::FromStr + PartialOrd + std::fmt::Display + Copy>(
    given: Option<String>,
    name: &str,
    default: T,
    min: T,
) -> T {
    let Some(s) = given else { return default };
    match s.parse::<T>() {
        Ok(v) if v >= min => v,
        _ => {
            eprintln!(
                "batch_probe: {name} must be a whole number of at least {min}, not {s:?}\n\
                 usage: batch_probe [N] [REPS]   (N keys, REPS timed passes)"
            );
            std::process::exit(2);
        }
    }
}

fn main() {
    let mut args = std::env::args().skip(1);
    let n: u64 = arg(args.next(), "N", 100_000_000, 1000);
    let reps: usize = arg(args.next(), "REPS", 3000, 10);
    let m = bloomlab::theory::size_for(n, P).expect("sizing").m;
    let words: Vec<u64> = (0..m.div_ceil(64).max(8)).map(key).collect();
    let lines = words.len() as u64 / 8;
    let mut rows = Vec::new();
    for hit in [true, false] {
        time(&mut rows, (FLOOR, n, reps, hit), |ks| {
            let acc = ks
                .iter()
                .fold(0u64, |a, &k| a ^ words[(reduce(k, lines) * 8) as usize]);
            usize::from(acc & 1 == 1)
        });
    }
    drop(words);
    let mut f = BlockedBloom::with_rate(n, P).expect("blocked");
    (0..n).for_each(|i| f.insert_item(&key(i).to_le_bytes()));
    for hit in [true, false] {
        time(&mut rows, ("blocked, one at a time", n, reps, hit), |ks| {
            ks.iter()
                .filter(|k| f.contains_item(&k.to_le_bytes()))
                .count()
        });
        time(
            &mut rows,
            ("blocked, batch without prefetch", n, reps, hit),
            |ks| blocked_no_prefetch(&f, ks, false),
        );
        time(
            &mut rows,
            ("blocked, batch with a touch load", n, reps, hit),
            |ks| blocked_no_prefetch(&f, ks, true),
        );
        time(
            &mut rows,
            ("blocked, contains_batch (prefetch)", n, reps, hit),
            |ks| batch(&f, ks),
        );
    }
    drop(f);
    let mut f = SplitBlockBloom::with_rate_and(n, P, Xxh3::default()).expect("split-block");
    (0..n).for_each(|i| f.insert(&key(i).to_le_bytes()));
    for hit in [true, false] {
        time(
            &mut rows,
            ("split-block xxh3, one at a time", n, reps, hit),
            |ks| ks.iter().filter(|k| f.contains(&k.to_le_bytes())).count(),
        );
        time(
            &mut rows,
            ("split-block xxh3, contains_batch", n, reps, hit),
            |ks| batch(&f, ks),
        );
    }
    let mut sb = sbbf_rs_safe::Filter::new(11, n as usize);
    for i in 0..n {
        let _ = sb.insert_hash(xxhash_rust::xxh3::xxh3_64(&key(i).to_le_bytes()));
    }
    for hit in [true, false] {
        time(&mut rows, ("sbbf-rs-safe (xxh3_64)", n, reps, hit), |ks| {
            ks.iter()
                .filter(|k| sb.contains_hash(xxhash_rust::xxh3::xxh3_64(&k.to_le_bytes())))
                .count()
        });
    }
    // Inserts of keys already present (the filter does not change: every pass is alike).
    time(
        &mut rows,
        ("insert: split-block xxh3, one at a time", n, reps, true),
        |ks| {
            ks.iter().for_each(|k| f.insert(&k.to_le_bytes()));
            0
        },
    );
    time(&mut rows, ("insert: sbbf-rs-safe", n, reps, true), |ks| {
        ks.iter()
            .filter(|k| sb.insert_hash(xxhash_rust::xxh3::xxh3_64(&k.to_le_bytes())))
            .count()
    });
    drop((f, sb));
    let mut f = CuckooFilter::with_rate(n, P).expect("cuckoo");
    (0..n).for_each(|i| drop(f.try_insert(&key(i).to_le_bytes())));
    for hit in [true, false] {
        time(&mut rows, ("cuckoo, one at a time", n, reps, hit), |ks| {
            ks.iter().filter(|k| f.contains(&k.to_le_bytes())).count()
        });
        time(
            &mut rows,
            ("cuckoo, contains_batch (prefetch)", n, reps, hit),
            |ks| batch(&f, ks),
        );
    }
    print_page(&rows, n, reps);
}
