//! The CI gate: instruction counts (callgrind via gungraun) of the hot paths, compared with the
//! baseline committed under results/bench/gate-baseline/ by `.ci/bench-gate.sh`.
//!
//! Fixed and in-cache: n = 10^4 keys at p = 1% (12 KB of bits), the same keys every run; each
//! benchmark does [`OPS`] operations, so per-operation counts are the totals / 1000.
//!
//! Adding a filter: write its constructor below (like [`standard`]) and add one
//! `#[bench::NAME(args = (NAME), setup = ...)]` line to each of the three functions.

use bloomlab::filters::{
    BlockedBloom, CountingBloom, CuckooFilter, ScalableBloom, SplitBlockBloom,
};
use bloomlab::hash::mix64;
use bloomlab::{Filter, StandardBloom};
use gungraun::{library_benchmark, library_benchmark_group, main};
use std::hint::black_box;

/// Design capacity of the gated filters.
const N: u64 = 10_000;
/// Target rate.
const P: f64 = 0.01;
/// Operations per benchmark.
const OPS: u64 = 1_000;

/// The keys of the criterion bench (benches/common/keys.rs), as 8 little-endian bytes.
fn key(i: u64) -> [u8; 8] {
    mix64(i ^ 0x5eed_b100_f11e_0001).to_le_bytes()
}

type Make = fn() -> Box<dyn Filter>;

// ---- the gated filters: one constructor each ----
fn standard() -> Box<dyn Filter> {
    Box::new(StandardBloom::with_rate(N, P).expect("standard"))
}
fn counting() -> Box<dyn Filter> {
    Box::new(CountingBloom::with_rate(N, P).expect("counting"))
}
fn blocked() -> Box<dyn Filter> {
    Box::new(BlockedBloom::with_rate(N, P).expect("blocked"))
}
fn split_block() -> Box<dyn Filter> {
    Box::new(SplitBlockBloom::with_rate(N, P).expect("split-block"))
}
fn scalable() -> Box<dyn Filter> {
    Box::new(ScalableBloom::new(N, P).expect("scalable"))
}
fn cuckoo() -> Box<dyn Filter> {
    Box::new(CuckooFilter::with_rate(N, P).expect("cuckoo"))
}

/// A filter holding `key(0..fill)` and the keys `key(from..from + OPS)` to work on.
fn prepared(make: Make, fill: u64, from: u64) -> (Box<dyn Filter>, Vec<[u8; 8]>) {
    let mut f = make();
    for i in 0..fill {
        f.insert(&key(i));
    }
    (f, (from..from + OPS).map(key).collect())
}

/// Half full; the keys are new ones.
fn for_insert(make: Make) -> (Box<dyn Filter>, Vec<[u8; 8]>) {
    prepared(make, N / 2, N / 2)
}
/// Full; the keys were inserted.
fn for_hit(make: Make) -> (Box<dyn Filter>, Vec<[u8; 8]>) {
    prepared(make, N, 0)
}
/// Full; the keys were not inserted.
fn for_miss(make: Make) -> (Box<dyn Filter>, Vec<[u8; 8]>) {
    prepared(make, N, N)
}

#[library_benchmark]
#[bench::standard(args = (standard), setup = for_insert)]
#[bench::counting(args = (counting), setup = for_insert)]
#[bench::blocked(args = (blocked), setup = for_insert)]
#[bench::split_block(args = (split_block), setup = for_insert)]
#[bench::scalable(args = (scalable), setup = for_insert)]
#[bench::cuckoo(args = (cuckoo), setup = for_insert)]
fn insert(input: (Box<dyn Filter>, Vec<[u8; 8]>)) -> Box<dyn Filter> {
    let (mut f, keys) = input;
    for k in &keys {
        f.insert(black_box(k));
    }
    f
}

#[library_benchmark]
#[bench::standard(args = (standard), setup = for_hit)]
#[bench::counting(args = (counting), setup = for_hit)]
#[bench::blocked(args = (blocked), setup = for_hit)]
#[bench::split_block(args = (split_block), setup = for_hit)]
#[bench::scalable(args = (scalable), setup = for_hit)]
#[bench::cuckoo(args = (cuckoo), setup = for_hit)]
fn query_hit(input: (Box<dyn Filter>, Vec<[u8; 8]>)) -> usize {
    let (f, keys) = input;
    keys.iter()
        .filter(|k| f.contains(black_box(&k[..])))
        .count()
}

#[library_benchmark]
#[bench::standard(args = (standard), setup = for_miss)]
#[bench::counting(args = (counting), setup = for_miss)]
#[bench::blocked(args = (blocked), setup = for_miss)]
#[bench::split_block(args = (split_block), setup = for_miss)]
#[bench::scalable(args = (scalable), setup = for_miss)]
#[bench::cuckoo(args = (cuckoo), setup = for_miss)]
fn query_miss(input: (Box<dyn Filter>, Vec<[u8; 8]>)) -> usize {
    let (f, keys) = input;
    keys.iter()
        .filter(|k| f.contains(black_box(&k[..])))
        .count()
}

library_benchmark_group!(
    name = hot_paths;
    benchmarks = insert, query_hit, query_miss
);

main!(library_benchmark_groups = hot_paths);
