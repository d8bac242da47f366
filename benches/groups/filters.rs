//! Group "filters": `insert`, `query_hit`, `query_miss` (and `build`, for static entries up to
//! 10^6 keys) for every entry of
//! [`crate::subjects::entries`] at every size, and the memory floor measured beside them:
//! `floor/random-cache-line/{n}` (one independent random 64-byte line per key from an array as
//! large as `bloomlab-standard`'s bit array) and `floor/7-random-cache-lines/{n}` (k = 7 of them,
//! what a standard-filter hit touches).
//!
//! Each (implementation, n) is built once, filled with `key(0..n)` untimed, queried, then
//! dropped before the next: at n = 10^8 only one big structure lives at a time.
//!
//! Timing: `iter_custom`, one iteration = one batch of [`BATCH`] keys; the keys of the next batch
//! are generated *outside* the timed region, so key generation costs nothing.
//! Insert: the filter holds n/2 keys, fresh keys `key(n/2..n)` are inserted, and when they run
//! out the filter is rebuilt and refilled to n/2 (untimed): every insert lands in a filter between
//! half and fully loaded, no `HashSet` resizes, no cuckoo overfill, and no first-touch page faults
//! of a freshly allocated array are timed.

use crate::keys::{Rng, fill_hits, fill_misses, key};
use crate::settings::{BATCH, P, any_wanted, sizes, wanted};
use crate::subjects::{Entry, Role, Subject, entries};
use bloomlab::hash::reduce;
use criterion::{BenchmarkId, Criterion, Throughput};
use std::hint::black_box;
use std::time::{Duration, Instant};

pub fn run(c: &mut Criterion) {
    let list: Vec<Entry> = entries()
        .into_iter()
        .filter(|e| e.role != Role::Audit)
        .collect();
    for n in sizes() {
        floor(c, n);
        for e in &list {
            let ids: Vec<String> = ["insert", "query_hit", "query_miss", "build"]
                .iter()
                .map(|op| format!("{op}/{}/{n}", e.name))
                .collect();
            if !any_wanted(&ids) {
                continue;
            }
            eprintln!("building {} for n = {n} …", e.name);
            let t = Instant::now();
            let mut s = build_filled(e, n, n);
            eprintln!("  built in {:.1} s", t.elapsed().as_secs_f64());
            query(c, "query_hit", e.name, n, s.as_ref(), fill_hits);
            query(c, "query_miss", e.name, n, s.as_ref(), fill_misses);
            if e.dynamic && wanted(&ids[0]) {
                insert(c, "insert", e.name, n, &mut s);
            }
            drop(s);
            // Static filters: construction from all n keys (up to 10^6 keys: one build a sample).
            if !e.dynamic && n <= 1_000_000 && wanted(&ids[3]) {
                build(c, e, n);
            }
        }
    }
}

/// Build `e` for n keys and insert `key(0..fill)`.
pub fn build_filled(e: &Entry, n: u64, fill: u64) -> Box<dyn Subject> {
    if e.dynamic {
        let mut s = (e.build)(n, P, &[]);
        fill_range(s.as_mut(), 0, fill);
        s
    } else {
        let all: Vec<u64> = (0..n).map(key).collect();
        (e.build)(n, P, &all)
    }
}

pub fn fill_range(s: &mut dyn Subject, from: u64, to: u64) {
    let mut buf = Vec::with_capacity(BATCH);
    let mut i = from;
    while i < to {
        buf.clear();
        buf.extend((i..to.min(i + BATCH as u64)).map(key));
        s.insert_batch(&buf);
        i += buf.len() as u64;
    }
}

pub fn query(
    c: &mut Criterion,
    op: &str,
    name: &str,
    n: u64,
    s: &dyn Subject,
    fill: fn(&mut [u64], u64, &mut Rng),
) {
    let mut g = c.benchmark_group(op);
    g.throughput(Throughput::Elements(BATCH as u64));
    let mut rng = Rng::new(0x9e3779b9 ^ n);
    let mut buf = vec![0u64; BATCH];
    g.bench_function(BenchmarkId::new(name, n), |b| {
        b.iter_custom(|iters| {
            let mut total = Duration::ZERO;
            for _ in 0..iters {
                fill(&mut buf, n, &mut rng);
                let t = Instant::now();
                let hits = s.count_hits(black_box(&buf));
                total += t.elapsed();
                black_box(hits);
            }
            total
        });
    });
    g.finish();
}

/// `build/{name}/{n}`: a static filter constructed from `key(0..n)` (the keys made untimed; the
/// filter's drop is timed too, as for every peer).
fn build(c: &mut Criterion, e: &Entry, n: u64) {
    let all: Vec<u64> = (0..n).map(key).collect();
    let mut g = c.benchmark_group("build");
    g.throughput(Throughput::Elements(n));
    g.bench_function(BenchmarkId::new(e.name, n), |b| {
        b.iter(|| black_box((e.build)(n, P, black_box(&all))));
    });
    g.finish();
}

/// The insert bench of `s` in criterion group `group` (`insert`, or `dynamic_insert`).
pub fn insert(c: &mut Criterion, group: &str, name: &str, n: u64, s: &mut Box<dyn Subject>) {
    let half = n / 2;
    s.reset();
    fill_range(s.as_mut(), 0, half);
    let mut next = half;
    let mut buf = vec![0u64; BATCH];
    let mut g = c.benchmark_group(group);
    g.throughput(Throughput::Elements(BATCH as u64));
    g.bench_function(BenchmarkId::new(name, n), |b| {
        b.iter_custom(|iters| {
            let mut total = Duration::ZERO;
            for _ in 0..iters {
                if next + BATCH as u64 > n {
                    s.reset();
                    fill_range(s.as_mut(), 0, half);
                    next = half;
                }
                for (j, k) in buf.iter_mut().enumerate() {
                    *k = key(next + j as u64);
                }
                next += BATCH as u64;
                let t = Instant::now();
                s.insert_batch(black_box(&buf));
                total += t.elapsed();
            }
            total
        });
    });
    g.finish();
}

/// The memory floor at size n: independent random 64-byte-line reads from an array of the
/// size of `bloomlab-standard`'s bit array for n keys at p.
fn floor(c: &mut Criterion, n: u64) {
    let ids = [
        format!("floor/random-cache-line/{n}"),
        format!("floor/7-random-cache-lines/{n}"),
    ];
    if !any_wanted(&ids) {
        return;
    }
    let m = bloomlab::theory::size_for(n, P).expect("sizing").m;
    let words: Vec<u64> = (0..m.div_ceil(64).max(8)).map(key).collect(); // touched, not zero pages
    let lines = words.len() as u64 / 8;
    let mut g = c.benchmark_group("floor");
    g.throughput(Throughput::Elements(BATCH as u64));
    let mut rng = Rng::new(42 ^ n);
    let mut buf = vec![0u64; BATCH];
    for (id, per_key) in [("random-cache-line", 1u64), ("7-random-cache-lines", 7)] {
        g.bench_function(BenchmarkId::new(id, n), |b| {
            b.iter_custom(|iters| {
                let mut total = Duration::ZERO;
                for _ in 0..iters {
                    for k in buf.iter_mut() {
                        *k = rng.next_u64();
                    }
                    let t = Instant::now();
                    let mut acc = 0u64;
                    for &k in black_box(&buf) {
                        // Independent loads: each address depends on the key only.
                        let mut x = k;
                        for _ in 0..per_key {
                            acc ^= words[(reduce(x, lines) * 8) as usize];
                            x = x.wrapping_add(0x9e37_79b9_7f4a_7c15);
                        }
                    }
                    total += t.elapsed();
                    black_box(acc);
                }
                total
            });
        });
    }
    g.finish();
}
