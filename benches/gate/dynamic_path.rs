//! The gate's `dynamic_path` group (a module of `benches/gate.rs`, which runs it): the registry's
//! `AnyFilter` against each kind's concrete type, in instructions.

use super::{N, OPS, P, key};
use bloomlab::filters::{
    BinaryFuseFilter, BlockedBloom, CountingBloom, CuckooFilter, ScalableBloom, SplitBlockBloom,
    XorFilter,
};
use bloomlab::hash::Xxh3;
use bloomlab::{AnyFilter, Filter, FilterKind, FilterSpec, StandardBloom};
use gungraun::{library_benchmark, library_benchmark_group};
use std::hint::black_box;

// ---- dynamic_path: the registry's AnyFilter against the concrete type ----
//
// What `measure`, the TUI and the experiments run: one `AnyFilter` call per batch of OPS keys
// (`insert_many`, `count_present`; the hasher and strategy matched at run time), against the
// same kind as its concrete type, `try_insert` / `contains` per key. Both sides sit behind one
// virtual call per batch (`Box<dyn Case>`), so the ratio any / mono is what the registry costs;
// criterion's `dynamic` group times the same pairs (target ≤ 1.3).

/// One side of a pair.
trait Case {
    fn insert_all(&mut self, items: &[&[u8]]);
    fn count(&self, items: &[&[u8]]) -> usize;
}
struct Any(AnyFilter);
impl Case for Any {
    fn insert_all(&mut self, items: &[&[u8]]) {
        self.0.insert_many(items);
    }
    fn count(&self, items: &[&[u8]]) -> usize {
        self.0.count_present(items) as usize
    }
}
/// The registry's bulk query (issue 38: `AnyFilter::contains_many_into`, the path `query
/// --keys` takes) on the same filter as [`Any`]: in cache, as here, each kind's batch answers
/// one item at a time (or, for blocked, split-block and cuckoo, stages without prefetching), so
/// `_bulk` against `_any` is what the bulk route costs where it cannot gain.
struct Bulk(AnyFilter);
impl Case for Bulk {
    fn insert_all(&mut self, items: &[&[u8]]) {
        self.0.insert_many(items);
    }
    fn count(&self, items: &[&[u8]]) -> usize {
        let mut out = [false; OPS as usize];
        let out = &mut out[..items.len().min(OPS as usize)];
        self.0.contains_many_into(items, out);
        out.iter().filter(|&&b| b).count()
    }
}
fn bulk_of(kind: FilterKind, keys: &[&[u8]]) -> Box<dyn Case> {
    Box::new(Bulk(built(kind, keys)))
}
fn standard_bulk(k: &[&[u8]]) -> Box<dyn Case> {
    bulk_of(FilterKind::Standard, k)
}
fn counting_bulk(k: &[&[u8]]) -> Box<dyn Case> {
    bulk_of(FilterKind::Counting, k)
}
fn blocked_bulk(k: &[&[u8]]) -> Box<dyn Case> {
    bulk_of(FilterKind::Blocked, k)
}
fn split_block_bulk(k: &[&[u8]]) -> Box<dyn Case> {
    bulk_of(FilterKind::SplitBlock, k)
}
fn scalable_bulk(k: &[&[u8]]) -> Box<dyn Case> {
    bulk_of(FilterKind::Scalable, k)
}
fn cuckoo_bulk(k: &[&[u8]]) -> Box<dyn Case> {
    bulk_of(FilterKind::Cuckoo, k)
}
fn xor_bulk(k: &[&[u8]]) -> Box<dyn Case> {
    bulk_of(FilterKind::Xor, k)
}
fn binary_fuse_bulk(k: &[&[u8]]) -> Box<dyn Case> {
    bulk_of(FilterKind::BinaryFuse, k)
}

struct Mono<T>(T);
impl<T: Filter> Case for Mono<T> {
    fn insert_all(&mut self, items: &[&[u8]]) {
        for it in items {
            let _ = self.0.try_insert(it);
        }
    }
    fn count(&self, items: &[&[u8]]) -> usize {
        items.iter().filter(|it| self.0.contains(it)).count()
    }
}

/// A constructor, given the keys the filter holds.
type MakeCase = fn(&[&[u8]]) -> Box<dyn Case>;
fn any_of(kind: FilterKind, keys: &[&[u8]]) -> Box<dyn Case> {
    Box::new(Any(built(kind, keys)))
}
/// The registry's filter of `kind` holding `keys`.
fn built(kind: FilterKind, keys: &[&[u8]]) -> AnyFilter {
    let spec = FilterSpec::new(kind, N, P);
    if kind.caps().static_set {
        spec.build_from(keys).expect("static build")
    } else {
        let mut f = spec.build().expect("build");
        f.insert_many(keys);
        f
    }
}
fn mono_of<T: Filter + 'static>(mut f: T, keys: &[&[u8]]) -> Box<dyn Case> {
    for k in keys {
        f.try_insert(k).expect("insert");
    }
    Box::new(Mono(f))
}
fn standard_any(k: &[&[u8]]) -> Box<dyn Case> {
    any_of(FilterKind::Standard, k)
}
fn standard_mono(k: &[&[u8]]) -> Box<dyn Case> {
    mono_of(StandardBloom::with_rate(N, P).expect("standard"), k)
}
fn counting_any(k: &[&[u8]]) -> Box<dyn Case> {
    any_of(FilterKind::Counting, k)
}
fn counting_mono(k: &[&[u8]]) -> Box<dyn Case> {
    mono_of(CountingBloom::with_rate(N, P).expect("counting"), k)
}
fn blocked_any(k: &[&[u8]]) -> Box<dyn Case> {
    any_of(FilterKind::Blocked, k)
}
fn blocked_mono(k: &[&[u8]]) -> Box<dyn Case> {
    mono_of(BlockedBloom::with_rate(N, P).expect("blocked"), k)
}
fn split_block_any(k: &[&[u8]]) -> Box<dyn Case> {
    any_of(FilterKind::SplitBlock, k)
}
fn split_block_mono(k: &[&[u8]]) -> Box<dyn Case> {
    // xxh3, the registry's hash: the type's own default is XXH64.
    mono_of(
        SplitBlockBloom::with_rate_and(N, P, Xxh3::default()).expect("split-block"),
        k,
    )
}
fn scalable_any(k: &[&[u8]]) -> Box<dyn Case> {
    any_of(FilterKind::Scalable, k)
}
fn scalable_mono(k: &[&[u8]]) -> Box<dyn Case> {
    mono_of(ScalableBloom::new(N, P).expect("scalable"), k)
}
fn cuckoo_any(k: &[&[u8]]) -> Box<dyn Case> {
    any_of(FilterKind::Cuckoo, k)
}
fn cuckoo_mono(k: &[&[u8]]) -> Box<dyn Case> {
    mono_of(CuckooFilter::with_rate(N, P).expect("cuckoo"), k)
}
fn xor_any(k: &[&[u8]]) -> Box<dyn Case> {
    any_of(FilterKind::Xor, k)
}
fn xor_mono(k: &[&[u8]]) -> Box<dyn Case> {
    Box::new(Mono(
        XorFilter::from_keys(k.iter().copied(), 8).expect("xor"),
    ))
}
fn binary_fuse_any(k: &[&[u8]]) -> Box<dyn Case> {
    any_of(FilterKind::BinaryFuse, k)
}
fn binary_fuse_mono(k: &[&[u8]]) -> Box<dyn Case> {
    Box::new(Mono(
        BinaryFuseFilter::from_keys(k.iter().copied(), 8).expect("binary fuse"),
    ))
}

/// `key(from..to)` as slices that live as long as the bench process (leaked: setup only).
fn key_slices(from: u64, to: u64) -> &'static [&'static [u8]] {
    let owned: &'static [[u8; 8]] = Vec::leak((from..to).map(key).collect());
    Vec::leak(owned.iter().map(|k| &k[..]).collect())
}
/// Built holding `key(0..fill)`; the keys worked on are `key(from..from + OPS)`.
fn case(make: MakeCase, fill: u64, from: u64) -> (Box<dyn Case>, &'static [&'static [u8]]) {
    (make(key_slices(0, fill)), key_slices(from, from + OPS))
}
fn case_for_insert(make: MakeCase) -> (Box<dyn Case>, &'static [&'static [u8]]) {
    case(make, N / 2, N / 2)
}
fn case_for_hit(make: MakeCase) -> (Box<dyn Case>, &'static [&'static [u8]]) {
    case(make, N, 0)
}
fn case_for_miss(make: MakeCase) -> (Box<dyn Case>, &'static [&'static [u8]]) {
    case(make, N, N)
}

#[library_benchmark]
#[bench::standard_any(args = (standard_any), setup = case_for_insert)]
#[bench::standard_mono(args = (standard_mono), setup = case_for_insert)]
#[bench::counting_any(args = (counting_any), setup = case_for_insert)]
#[bench::counting_mono(args = (counting_mono), setup = case_for_insert)]
#[bench::blocked_any(args = (blocked_any), setup = case_for_insert)]
#[bench::blocked_mono(args = (blocked_mono), setup = case_for_insert)]
#[bench::split_block_any(args = (split_block_any), setup = case_for_insert)]
#[bench::split_block_mono(args = (split_block_mono), setup = case_for_insert)]
#[bench::scalable_any(args = (scalable_any), setup = case_for_insert)]
#[bench::scalable_mono(args = (scalable_mono), setup = case_for_insert)]
#[bench::cuckoo_any(args = (cuckoo_any), setup = case_for_insert)]
#[bench::cuckoo_mono(args = (cuckoo_mono), setup = case_for_insert)]
fn dynamic_insert(input: (Box<dyn Case>, &'static [&'static [u8]])) -> Box<dyn Case> {
    let (mut f, items) = input;
    f.insert_all(black_box(items));
    f
}

#[library_benchmark]
#[bench::standard_any(args = (standard_any), setup = case_for_hit)]
#[bench::standard_mono(args = (standard_mono), setup = case_for_hit)]
#[bench::counting_any(args = (counting_any), setup = case_for_hit)]
#[bench::counting_mono(args = (counting_mono), setup = case_for_hit)]
#[bench::blocked_any(args = (blocked_any), setup = case_for_hit)]
#[bench::blocked_mono(args = (blocked_mono), setup = case_for_hit)]
#[bench::split_block_any(args = (split_block_any), setup = case_for_hit)]
#[bench::split_block_mono(args = (split_block_mono), setup = case_for_hit)]
#[bench::scalable_any(args = (scalable_any), setup = case_for_hit)]
#[bench::scalable_mono(args = (scalable_mono), setup = case_for_hit)]
#[bench::cuckoo_any(args = (cuckoo_any), setup = case_for_hit)]
#[bench::cuckoo_mono(args = (cuckoo_mono), setup = case_for_hit)]
#[bench::xor_any(args = (xor_any), setup = case_for_hit)]
#[bench::xor_mono(args = (xor_mono), setup = case_for_hit)]
#[bench::binary_fuse_any(args = (binary_fuse_any), setup = case_for_hit)]
#[bench::binary_fuse_mono(args = (binary_fuse_mono), setup = case_for_hit)]
#[bench::standard_bulk(args = (standard_bulk), setup = case_for_hit)]
#[bench::counting_bulk(args = (counting_bulk), setup = case_for_hit)]
#[bench::blocked_bulk(args = (blocked_bulk), setup = case_for_hit)]
#[bench::split_block_bulk(args = (split_block_bulk), setup = case_for_hit)]
#[bench::scalable_bulk(args = (scalable_bulk), setup = case_for_hit)]
#[bench::cuckoo_bulk(args = (cuckoo_bulk), setup = case_for_hit)]
#[bench::xor_bulk(args = (xor_bulk), setup = case_for_hit)]
#[bench::binary_fuse_bulk(args = (binary_fuse_bulk), setup = case_for_hit)]
fn dynamic_query_hit(input: (Box<dyn Case>, &'static [&'static [u8]])) -> usize {
    let (f, items) = input;
    f.count(black_box(items))
}

#[library_benchmark]
#[bench::standard_any(args = (standard_any), setup = case_for_miss)]
#[bench::standard_mono(args = (standard_mono), setup = case_for_miss)]
#[bench::counting_any(args = (counting_any), setup = case_for_miss)]
#[bench::counting_mono(args = (counting_mono), setup = case_for_miss)]
#[bench::blocked_any(args = (blocked_any), setup = case_for_miss)]
#[bench::blocked_mono(args = (blocked_mono), setup = case_for_miss)]
#[bench::split_block_any(args = (split_block_any), setup = case_for_miss)]
#[bench::split_block_mono(args = (split_block_mono), setup = case_for_miss)]
#[bench::scalable_any(args = (scalable_any), setup = case_for_miss)]
#[bench::scalable_mono(args = (scalable_mono), setup = case_for_miss)]
#[bench::cuckoo_any(args = (cuckoo_any), setup = case_for_miss)]
#[bench::cuckoo_mono(args = (cuckoo_mono), setup = case_for_miss)]
#[bench::xor_any(args = (xor_any), setup = case_for_miss)]
#[bench::xor_mono(args = (xor_mono), setup = case_for_miss)]
#[bench::binary_fuse_any(args = (binary_fuse_any), setup = case_for_miss)]
#[bench::binary_fuse_mono(args = (binary_fuse_mono), setup = case_for_miss)]
#[bench::standard_bulk(args = (standard_bulk), setup = case_for_miss)]
#[bench::counting_bulk(args = (counting_bulk), setup = case_for_miss)]
#[bench::blocked_bulk(args = (blocked_bulk), setup = case_for_miss)]
#[bench::split_block_bulk(args = (split_block_bulk), setup = case_for_miss)]
#[bench::scalable_bulk(args = (scalable_bulk), setup = case_for_miss)]
#[bench::cuckoo_bulk(args = (cuckoo_bulk), setup = case_for_miss)]
#[bench::xor_bulk(args = (xor_bulk), setup = case_for_miss)]
#[bench::binary_fuse_bulk(args = (binary_fuse_bulk), setup = case_for_miss)]
fn dynamic_query_miss(input: (Box<dyn Case>, &'static [&'static [u8]])) -> usize {
    let (f, items) = input;
    f.count(black_box(items))
}

library_benchmark_group!(
    name = dynamic_path;
    benchmarks = dynamic_insert, dynamic_query_hit, dynamic_query_miss
);
