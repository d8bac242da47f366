//! The CI gate: instruction counts (callgrind via gungraun) of the hot paths, compared with the
//! baseline committed under results/bench/gate-baseline/ by `.ci/bench-gate.sh`.
//!
//! Fixed and in-cache: n = 10^4 keys at p = 1% (12 KB of bits), the same keys every run; each
//! benchmark does [`OPS`] operations, so per-operation counts are the totals / 1000.
//!
//! Groups: `hot_paths`, `peers`, `static_sets` here, `dynamic_path` in `gate/dynamic_path.rs`.
//!
//! Adding a filter: write its constructor below (like [`standard`]) and add one
//! `#[bench::NAME(args = (NAME), setup = ...)]` line to each of the three functions.

use bloomlab::filters::{
    BinaryFuseFilter, BlockedBloom, CountingBloom, CuckooFilter, MultiblockBloom, PrefixFilter,
    QuotientFilter, RibbonFilter, ScalableBloom, SplitBlockBloom, XorFilter,
};
use bloomlab::hash::{
    DoubleHashing, EnhancedDouble64, Foldhash, ItemHasher, RotateAdd64, Sip13, Xxh3, mix64,
};
use bloomlab::theory::multiblock::Shape;
use bloomlab::{Filter, StandardBloom};
use gungraun::{library_benchmark, library_benchmark_group, main};
use std::hint::black_box;

#[path = "common/subjects.rs"]
mod subjects;
use subjects::LabHash;

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
/// The standard filter with plain double hashing: what the default's cubic term costs.
fn standard_double() -> Box<dyn Filter> {
    Box::new(StandardBloom::with_rate_and(N, P, Xxh3::default(), DoubleHashing).expect("standard"))
}
/// fastbloom's pairing: 64-bit SipHash-1-3, enhanced-double-64.
fn standard_sip13_64() -> Box<dyn Filter> {
    Box::new(
        StandardBloom::with_rate_and(N, P, Sip13::keyed(1, 2), EnhancedDouble64).expect("standard"),
    )
}
/// fastbloom-foldhash's pairing: foldhash, enhanced-double-64.
fn standard_foldhash_64() -> Box<dyn Filter> {
    Box::new(
        StandardBloom::with_rate_and(
            N,
            P,
            Foldhash::with_seed(0x0123_4567_89ab_cdef),
            EnhancedDouble64,
        )
        .expect("standard"),
    )
}
/// Started at N/1000 and filled (about ten layers at N).
fn scalable_grown() -> Box<dyn Filter> {
    Box::new(ScalableBloom::new(N / 1000, P).expect("scalable"))
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
/// Like for like with the `sbbf` peer (xxh3_64 of the 8 bytes).
fn split_block_xxh3() -> Box<dyn Filter> {
    Box::new(SplitBlockBloom::with_rate_and(N, P, Xxh3::default()).expect("split-block"))
}
/// Like for like with the `fastbloom09_foldhash` peer (`blocked` is xxh3, like `fastbloom09_xxh3`).
fn blocked_foldhash() -> Box<dyn Filter> {
    Box::new(BlockedBloom::with_rate_and(N, P, None, Foldhash::default()).expect("blocked"))
}
fn scalable() -> Box<dyn Filter> {
    Box::new(ScalableBloom::new(N, P).expect("scalable"))
}
fn cuckoo() -> Box<dyn Filter> {
    Box::new(CuckooFilter::with_rate(N, P).expect("cuckoo"))
}
fn quotient() -> Box<dyn Filter> {
    Box::new(QuotientFilter::with_rate(N, P).expect("quotient"))
}
fn prefix() -> Box<dyn Filter> {
    Box::new(PrefixFilter::with_capacity(N).expect("prefix"))
}

/// Static sets (ribbon) are built from their whole key set, `key(0..N)`; queries only.
type MakeRibbon = fn(&[[u8; 8]]) -> Box<dyn Filter>;
fn ribbon(keys: &[[u8; 8]]) -> Box<dyn Filter> {
    let r = bloomlab::theory::ribbon::result_bits_for(P).expect("ribbon result bits");
    Box::new(RibbonFilter::from_keys(keys, r).expect("ribbon"))
}
/// A static filter of `key(0..N)` and the keys `key(from..from + OPS)` to query.
fn ribbon_prepared(make: MakeRibbon, from: u64) -> (Box<dyn Filter>, Vec<[u8; 8]>) {
    let all: Vec<[u8; 8]> = (0..N).map(key).collect();
    (make(&all), (from..from + OPS).map(key).collect())
}
fn ribbon_for_hit(make: MakeRibbon) -> (Box<dyn Filter>, Vec<[u8; 8]>) {
    ribbon_prepared(make, 0)
}
fn ribbon_for_miss(make: MakeRibbon) -> (Box<dyn Filter>, Vec<[u8; 8]>) {
    ribbon_prepared(make, N)
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
#[bench::standard_double(args = (standard_double), setup = for_insert)]
#[bench::counting(args = (counting), setup = for_insert)]
#[bench::blocked(args = (blocked), setup = for_insert)]
#[bench::split_block(args = (split_block), setup = for_insert)]
#[bench::split_block_xxh3(args = (split_block_xxh3), setup = for_insert)]
#[bench::blocked_foldhash(args = (blocked_foldhash), setup = for_insert)]
#[bench::scalable(args = (scalable), setup = for_insert)]
#[bench::scalable_grown(args = (scalable_grown), setup = for_insert)]
#[bench::standard_sip13_64(args = (standard_sip13_64), setup = for_insert)]
#[bench::standard_foldhash_64(args = (standard_foldhash_64), setup = for_insert)]
#[bench::cuckoo(args = (cuckoo), setup = for_insert)]
#[bench::quotient(args = (quotient), setup = for_insert)]
#[bench::prefix(args = (prefix), setup = for_insert)]
fn insert(input: (Box<dyn Filter>, Vec<[u8; 8]>)) -> Box<dyn Filter> {
    let (mut f, keys) = input;
    for k in &keys {
        f.insert(black_box(k));
    }
    f
}

#[library_benchmark]
#[bench::standard(args = (standard), setup = for_hit)]
#[bench::standard_double(args = (standard_double), setup = for_hit)]
#[bench::counting(args = (counting), setup = for_hit)]
#[bench::blocked(args = (blocked), setup = for_hit)]
#[bench::split_block(args = (split_block), setup = for_hit)]
#[bench::split_block_xxh3(args = (split_block_xxh3), setup = for_hit)]
#[bench::blocked_foldhash(args = (blocked_foldhash), setup = for_hit)]
#[bench::scalable(args = (scalable), setup = for_hit)]
#[bench::scalable_grown(args = (scalable_grown), setup = for_hit)]
#[bench::standard_sip13_64(args = (standard_sip13_64), setup = for_hit)]
#[bench::standard_foldhash_64(args = (standard_foldhash_64), setup = for_hit)]
#[bench::cuckoo(args = (cuckoo), setup = for_hit)]
#[bench::ribbon(args = (ribbon), setup = ribbon_for_hit)]
#[bench::quotient(args = (quotient), setup = for_hit)]
#[bench::prefix(args = (prefix), setup = for_hit)]
fn query_hit(input: (Box<dyn Filter>, Vec<[u8; 8]>)) -> usize {
    let (f, keys) = input;
    keys.iter()
        .filter(|k| f.contains(black_box(&k[..])))
        .count()
}

#[library_benchmark]
#[bench::standard(args = (standard), setup = for_miss)]
#[bench::standard_double(args = (standard_double), setup = for_miss)]
#[bench::counting(args = (counting), setup = for_miss)]
#[bench::blocked(args = (blocked), setup = for_miss)]
#[bench::split_block(args = (split_block), setup = for_miss)]
#[bench::split_block_xxh3(args = (split_block_xxh3), setup = for_miss)]
#[bench::blocked_foldhash(args = (blocked_foldhash), setup = for_miss)]
#[bench::scalable(args = (scalable), setup = for_miss)]
#[bench::scalable_grown(args = (scalable_grown), setup = for_miss)]
#[bench::standard_sip13_64(args = (standard_sip13_64), setup = for_miss)]
#[bench::standard_foldhash_64(args = (standard_foldhash_64), setup = for_miss)]
#[bench::cuckoo(args = (cuckoo), setup = for_miss)]
#[bench::ribbon(args = (ribbon), setup = ribbon_for_miss)]
#[bench::quotient(args = (quotient), setup = for_miss)]
#[bench::prefix(args = (prefix), setup = for_miss)]
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

// ---- peers: the same three operations on the crates the criterion suite compares with ----
//
// Not a regression target (their code only changes with Cargo.lock) but the deterministic side
// of the speed comparison: instructions per operation do not drift with the machine's load, so
// `instructions(bloomlab) / instructions(peer)` at this in-cache size is a ratio the noisy
// wall-clock runs cannot blur. Each peer gets the same keys as the criterion suite gives it
// (`u64` through `Hash`, or `xxh3_64` of the 8 bytes for sbbf-rs-safe).

/// One peer behind a uniform interface (dynamic dispatch, like `Box<dyn Filter>` above).
trait Peer {
    fn ins(&mut self, k: u64);
    fn has(&self, k: u64) -> bool;
}

impl<S: std::hash::BuildHasher> Peer for fastbloom::BloomFilter<S> {
    fn ins(&mut self, k: u64) {
        self.insert(&k);
    }
    fn has(&self, k: u64) -> bool {
        self.contains(&k)
    }
}
impl<S: std::hash::BuildHasher> Peer for fastbloom09::BloomFilter<512, S> {
    fn ins(&mut self, k: u64) {
        self.insert(&k);
    }
    fn has(&self, k: u64) -> bool {
        self.contains(&k)
    }
}
impl Peer for sbbf_rs_safe::Filter {
    fn ins(&mut self, k: u64) {
        self.insert_hash(xxhash_rust::xxh3::xxh3_64(&k.to_le_bytes()));
    }
    fn has(&self, k: u64) -> bool {
        self.contains_hash(xxhash_rust::xxh3::xxh3_64(&k.to_le_bytes()))
    }
}
impl Peer for cuckoofilter::CuckooFilter<std::collections::hash_map::DefaultHasher> {
    fn ins(&mut self, k: u64) {
        let _ = self.add(&k);
    }
    fn has(&self, k: u64) -> bool {
        self.contains(&k)
    }
}
/// Fed the same hash bloomlab-quotient computes (xxh3_64 of the 8 LE bytes) as its fingerprint.
impl Peer for qfilter::Filter {
    fn ins(&mut self, k: u64) {
        let _ = self.insert_fingerprint(true, xxhash_rust::xxh3::xxh3_64(&k.to_le_bytes()));
    }
    fn has(&self, k: u64) -> bool {
        self.contains_fingerprint(xxhash_rust::xxh3::xxh3_64(&k.to_le_bytes()))
    }
}
impl Peer for growable_bloom_filter::GrowableBloom {
    fn ins(&mut self, k: u64) {
        self.insert(k);
    }
    fn has(&self, k: u64) -> bool {
        self.contains(k)
    }
}

/// A bloomlab filter behind the peers' interface: the same harness as its peer (a `u64` key, its
/// 8 bytes a known-length array, one dynamic call per operation), so the instruction ratio to the
/// peer compares the filters, not `Box<dyn Filter>` taking a slice of run-time length.
struct Lab<F>(F);
impl<F: Filter> Peer for Lab<F> {
    fn ins(&mut self, k: u64) {
        self.0.insert(&k.to_le_bytes());
    }
    fn has(&self, k: u64) -> bool {
        self.0.contains(&k.to_le_bytes())
    }
}
/// The split-block filter on its portable path even on an AVX2 CPU: beside `lab_split_block_xxh3`
/// (the run-time dispatched path) it shows what the one `unsafe` AVX2 call buys.
struct LabPortable(SplitBlockBloom<Xxh3>);
impl Peer for LabPortable {
    fn ins(&mut self, k: u64) {
        self.0.portable_insert(&k.to_le_bytes());
    }
    fn has(&self, k: u64) -> bool {
        self.0.portable_contains(&k.to_le_bytes())
    }
}
fn lab_split_block_xxh3() -> Box<dyn Peer> {
    Box::new(Lab(
        SplitBlockBloom::with_rate_and(N, P, Xxh3::default()).expect("split-block")
    ))
}
fn lab_split_block_xxh3_portable() -> Box<dyn Peer> {
    Box::new(LabPortable(
        SplitBlockBloom::with_rate_and(N, P, Xxh3::default()).expect("split-block"),
    ))
}
/// The multiblock kind (32, 8): the split-block layout, like for like with `sbbf`.
fn lab_multiblock_32x8() -> Box<dyn Peer> {
    Box::new(Lab(MultiblockBloom::with_rate(
        Shape::new(32, 8, None).expect("shape"),
        N,
        P,
    )
    .expect("multiblock")))
}
/// The same filter on its portable path even on an AVX2 CPU: what the AVX2 dispatch buys.
struct LabMbPortable(MultiblockBloom<Xxh3>);
impl Peer for LabMbPortable {
    /// Only its queries are gated (`peer_query_hit`, `peer_query_miss`): the setup's fill.
    fn ins(&mut self, k: u64) {
        self.0.insert(&k.to_le_bytes());
    }
    fn has(&self, k: u64) -> bool {
        self.0.portable_contains(&k.to_le_bytes())
    }
}
fn lab_multiblock_32x8_portable() -> Box<dyn Peer> {
    Box::new(LabMbPortable(
        MultiblockBloom::with_rate(Shape::new(32, 8, None).expect("shape"), N, P)
            .expect("multiblock"),
    ))
}
/// The multiblock kind (64, 8): one 512-bit line, like for like with `fastbloom09_xxh3`.
fn lab_multiblock_64x8() -> Box<dyn Peer> {
    Box::new(Lab(MultiblockBloom::with_rate(
        Shape::new(64, 8, None).expect("shape"),
        N,
        P,
    )
    .expect("multiblock")))
}
fn lab_blocked_xxh3() -> Box<dyn Peer> {
    Box::new(Lab(BlockedBloom::with_rate(N, P).expect("blocked")))
}
fn lab_blocked_foldhash() -> Box<dyn Peer> {
    Box::new(Lab(BlockedBloom::with_rate_and(
        N,
        P,
        None,
        Foldhash::default(),
    )
    .expect("blocked")))
}
/// fastbloom's pairing: 64-bit SipHash-1-3, strategy rotate-add-64 (fastbloom's form of index
/// derivation, two operations per index).
fn lab_standard_sip13_64() -> Box<dyn Peer> {
    Box::new(Lab(StandardBloom::with_rate_and(
        N,
        P,
        Sip13::keyed(1, 2),
        RotateAdd64,
    )
    .expect("standard")))
}
/// fastbloom-foldhash's pairing: foldhash, rotate-add-64.
fn lab_standard_foldhash_64() -> Box<dyn Peer> {
    Box::new(Lab(StandardBloom::with_rate_and(
        N,
        P,
        Foldhash::with_seed(0x0123_4567_89ab_cdef),
        RotateAdd64,
    )
    .expect("standard")))
}
/// `lab_standard_sip13_64` with strategy enhanced-double-64 (the pairing's strategy before
/// rotate-add-64): what the cubic term costs against fastbloom.
fn lab_standard_sip13_ed64() -> Box<dyn Peer> {
    Box::new(Lab(StandardBloom::with_rate_and(
        N,
        P,
        Sip13::keyed(1, 2),
        EnhancedDouble64,
    )
    .expect("standard")))
}
/// `lab_standard_foldhash_64` with strategy enhanced-double-64.
fn lab_standard_foldhash_ed64() -> Box<dyn Peer> {
    Box::new(Lab(StandardBloom::with_rate_and(
        N,
        P,
        Foldhash::with_seed(0x0123_4567_89ab_cdef),
        EnhancedDouble64,
    )
    .expect("standard")))
}
fn lab_scalable() -> Box<dyn Peer> {
    Box::new(Lab(ScalableBloom::new(N, P).expect("scalable")))
}
fn lab_scalable_grown() -> Box<dyn Peer> {
    Box::new(Lab(ScalableBloom::new(N / 1000, P).expect("scalable")))
}
fn lab_cuckoo() -> Box<dyn Peer> {
    Box::new(Lab(CuckooFilter::with_rate(N, P).expect("cuckoo")))
}

type MakePeer = fn() -> Box<dyn Peer>;
const PEER_SEED: u128 = 0x0123_4567_89ab_cdef_fedc_ba98_7654_3210;

fn fastbloom() -> Box<dyn Peer> {
    Box::new(
        fastbloom::BloomFilter::with_false_pos(P)
            .seed(&PEER_SEED)
            .expected_items(N as usize),
    )
}
fn fastbloom_foldhash() -> Box<dyn Peer> {
    Box::new(
        fastbloom::BloomFilter::with_false_pos(P)
            .hasher(foldhash::fast::FixedState::with_seed(PEER_SEED as u64))
            .expected_items(N as usize),
    )
}
/// fastbloom 0.9 `BloomFilter<512>` hashing exactly as bloomlab's `Xxh3`/`Foldhash` `hash64` of
/// the 8 bytes (subjects.rs, `LabHash`): the like-for-like peers of `blocked`/`blocked_foldhash`.
fn fastbloom09_xxh3() -> Box<dyn Peer> {
    Box::new(
        fastbloom09::BloomFilter::with_false_pos(P)
            .hasher(LabHash(Xxh3::default()))
            .expected_items(N as usize),
    )
}
fn fastbloom09_foldhash() -> Box<dyn Peer> {
    Box::new(
        fastbloom09::BloomFilter::with_false_pos(P)
            .hasher(LabHash(Foldhash::default()))
            .expected_items(N as usize),
    )
}
fn sbbf() -> Box<dyn Peer> {
    Box::new(sbbf_rs_safe::Filter::new(11, N as usize))
}
fn cuckoofilter() -> Box<dyn Peer> {
    Box::new(cuckoofilter::CuckooFilter::with_capacity(N as usize))
}
/// The same q and r as bloomlab-quotient at (N, P).
fn qfilter() -> Box<dyn Peer> {
    let (q, r) = bloomlab::theory::quotient::sizing(N, Some(P), 0, 0.95).expect("sizing");
    Box::new(qfilter::Filter::with_fingerprint_size(N, (q + r) as u8).expect("qfilter"))
}
fn growable() -> Box<dyn Peer> {
    Box::new(growable_bloom_filter::GrowableBloom::new(P, N as usize))
}
fn growable_grown() -> Box<dyn Peer> {
    Box::new(growable_bloom_filter::GrowableBloom::new(
        P,
        N as usize / 1000,
    ))
}

/// The peer holding the keys `0..fill` (as `u64`, the value whose bytes bloomlab gets) and the
/// keys to work on.
fn peer_prepared(make: MakePeer, fill: u64, from: u64) -> (Box<dyn Peer>, Vec<u64>) {
    let mut f = make();
    for i in 0..fill {
        f.ins(u64::from_le_bytes(key(i)));
    }
    (
        f,
        (from..from + OPS)
            .map(|i| u64::from_le_bytes(key(i)))
            .collect(),
    )
}
fn peer_for_insert(make: MakePeer) -> (Box<dyn Peer>, Vec<u64>) {
    peer_prepared(make, N / 2, N / 2)
}
fn peer_for_hit(make: MakePeer) -> (Box<dyn Peer>, Vec<u64>) {
    peer_prepared(make, N, 0)
}
fn peer_for_miss(make: MakePeer) -> (Box<dyn Peer>, Vec<u64>) {
    peer_prepared(make, N, N)
}

#[library_benchmark]
#[bench::fastbloom(args = (fastbloom), setup = peer_for_insert)]
#[bench::fastbloom_foldhash(args = (fastbloom_foldhash), setup = peer_for_insert)]
#[bench::sbbf(args = (sbbf), setup = peer_for_insert)]
#[bench::fastbloom09_xxh3(args = (fastbloom09_xxh3), setup = peer_for_insert)]
#[bench::fastbloom09_foldhash(args = (fastbloom09_foldhash), setup = peer_for_insert)]
#[bench::cuckoofilter(args = (cuckoofilter), setup = peer_for_insert)]
#[bench::qfilter(args = (qfilter), setup = peer_for_insert)]
#[bench::growable(args = (growable), setup = peer_for_insert)]
#[bench::growable_grown(args = (growable_grown), setup = peer_for_insert)]
#[bench::lab_split_block_xxh3(args = (lab_split_block_xxh3), setup = peer_for_insert)]
#[bench::lab_split_block_xxh3_portable(args = (lab_split_block_xxh3_portable), setup = peer_for_insert)]
#[bench::lab_blocked_xxh3(args = (lab_blocked_xxh3), setup = peer_for_insert)]
#[bench::lab_blocked_foldhash(args = (lab_blocked_foldhash), setup = peer_for_insert)]
#[bench::lab_standard_sip13_64(args = (lab_standard_sip13_64), setup = peer_for_insert)]
#[bench::lab_standard_foldhash_64(args = (lab_standard_foldhash_64), setup = peer_for_insert)]
#[bench::lab_standard_sip13_ed64(args = (lab_standard_sip13_ed64), setup = peer_for_insert)]
#[bench::lab_standard_foldhash_ed64(args = (lab_standard_foldhash_ed64), setup = peer_for_insert)]
#[bench::lab_scalable(args = (lab_scalable), setup = peer_for_insert)]
#[bench::lab_scalable_grown(args = (lab_scalable_grown), setup = peer_for_insert)]
#[bench::lab_cuckoo(args = (lab_cuckoo), setup = peer_for_insert)]
#[bench::lab_multiblock_32x8(args = (lab_multiblock_32x8), setup = peer_for_insert)]
#[bench::lab_multiblock_64x8(args = (lab_multiblock_64x8), setup = peer_for_insert)]
fn peer_insert(input: (Box<dyn Peer>, Vec<u64>)) -> Box<dyn Peer> {
    let (mut f, keys) = input;
    for &k in &keys {
        f.ins(black_box(k));
    }
    f
}

#[library_benchmark]
#[bench::fastbloom(args = (fastbloom), setup = peer_for_hit)]
#[bench::fastbloom_foldhash(args = (fastbloom_foldhash), setup = peer_for_hit)]
#[bench::sbbf(args = (sbbf), setup = peer_for_hit)]
#[bench::fastbloom09_xxh3(args = (fastbloom09_xxh3), setup = peer_for_hit)]
#[bench::fastbloom09_foldhash(args = (fastbloom09_foldhash), setup = peer_for_hit)]
#[bench::cuckoofilter(args = (cuckoofilter), setup = peer_for_hit)]
#[bench::qfilter(args = (qfilter), setup = peer_for_hit)]
#[bench::growable(args = (growable), setup = peer_for_hit)]
#[bench::growable_grown(args = (growable_grown), setup = peer_for_hit)]
#[bench::lab_split_block_xxh3(args = (lab_split_block_xxh3), setup = peer_for_hit)]
#[bench::lab_split_block_xxh3_portable(args = (lab_split_block_xxh3_portable), setup = peer_for_hit)]
#[bench::lab_blocked_xxh3(args = (lab_blocked_xxh3), setup = peer_for_hit)]
#[bench::lab_blocked_foldhash(args = (lab_blocked_foldhash), setup = peer_for_hit)]
#[bench::lab_standard_sip13_64(args = (lab_standard_sip13_64), setup = peer_for_hit)]
#[bench::lab_standard_foldhash_64(args = (lab_standard_foldhash_64), setup = peer_for_hit)]
#[bench::lab_standard_sip13_ed64(args = (lab_standard_sip13_ed64), setup = peer_for_hit)]
#[bench::lab_standard_foldhash_ed64(args = (lab_standard_foldhash_ed64), setup = peer_for_hit)]
#[bench::lab_scalable(args = (lab_scalable), setup = peer_for_hit)]
#[bench::lab_scalable_grown(args = (lab_scalable_grown), setup = peer_for_hit)]
#[bench::lab_cuckoo(args = (lab_cuckoo), setup = peer_for_hit)]
#[bench::lab_multiblock_32x8(args = (lab_multiblock_32x8), setup = peer_for_hit)]
#[bench::lab_multiblock_32x8_portable(args = (lab_multiblock_32x8_portable), setup = peer_for_hit)]
#[bench::lab_multiblock_64x8(args = (lab_multiblock_64x8), setup = peer_for_hit)]
fn peer_query_hit(input: (Box<dyn Peer>, Vec<u64>)) -> usize {
    let (f, keys) = input;
    keys.iter().filter(|&&k| f.has(black_box(k))).count()
}

#[library_benchmark]
#[bench::fastbloom(args = (fastbloom), setup = peer_for_miss)]
#[bench::fastbloom_foldhash(args = (fastbloom_foldhash), setup = peer_for_miss)]
#[bench::sbbf(args = (sbbf), setup = peer_for_miss)]
#[bench::fastbloom09_xxh3(args = (fastbloom09_xxh3), setup = peer_for_miss)]
#[bench::fastbloom09_foldhash(args = (fastbloom09_foldhash), setup = peer_for_miss)]
#[bench::cuckoofilter(args = (cuckoofilter), setup = peer_for_miss)]
#[bench::qfilter(args = (qfilter), setup = peer_for_miss)]
#[bench::growable(args = (growable), setup = peer_for_miss)]
#[bench::growable_grown(args = (growable_grown), setup = peer_for_miss)]
#[bench::lab_split_block_xxh3(args = (lab_split_block_xxh3), setup = peer_for_miss)]
#[bench::lab_split_block_xxh3_portable(args = (lab_split_block_xxh3_portable), setup = peer_for_miss)]
#[bench::lab_blocked_xxh3(args = (lab_blocked_xxh3), setup = peer_for_miss)]
#[bench::lab_blocked_foldhash(args = (lab_blocked_foldhash), setup = peer_for_miss)]
#[bench::lab_standard_sip13_64(args = (lab_standard_sip13_64), setup = peer_for_miss)]
#[bench::lab_standard_foldhash_64(args = (lab_standard_foldhash_64), setup = peer_for_miss)]
#[bench::lab_standard_sip13_ed64(args = (lab_standard_sip13_ed64), setup = peer_for_miss)]
#[bench::lab_standard_foldhash_ed64(args = (lab_standard_foldhash_ed64), setup = peer_for_miss)]
#[bench::lab_scalable(args = (lab_scalable), setup = peer_for_miss)]
#[bench::lab_scalable_grown(args = (lab_scalable_grown), setup = peer_for_miss)]
#[bench::lab_cuckoo(args = (lab_cuckoo), setup = peer_for_miss)]
#[bench::lab_multiblock_32x8(args = (lab_multiblock_32x8), setup = peer_for_miss)]
#[bench::lab_multiblock_32x8_portable(args = (lab_multiblock_32x8_portable), setup = peer_for_miss)]
#[bench::lab_multiblock_64x8(args = (lab_multiblock_64x8), setup = peer_for_miss)]
fn peer_query_miss(input: (Box<dyn Peer>, Vec<u64>)) -> usize {
    let (f, keys) = input;
    keys.iter().filter(|&&k| f.has(black_box(k))).count()
}

library_benchmark_group!(
    name = peers;
    benchmarks = peer_insert, peer_query_hit, peer_query_miss
);

// ---- static sets: construction from N keys and queries, bloomlab beside xorf ----
//
// Like for like: every filter here takes the `u64` key and mixes it once with its seed by a
// 64-bit finalizer (bloomlab's key-hash path `from_key_hashes`/`contains_key_hash`: splitmix64;
// xorf: murmur3's fmix64), so the ratios compare the filters, not two hash functions.

/// A static filter queried by `u64` key.
trait StaticSet {
    fn has(&self, k: u64) -> bool;
}
impl<H: ItemHasher> StaticSet for XorFilter<H> {
    fn has(&self, k: u64) -> bool {
        self.contains_key_hash(k)
    }
}
impl<H: ItemHasher> StaticSet for BinaryFuseFilter<H> {
    fn has(&self, k: u64) -> bool {
        self.contains_key_hash(k)
    }
}
impl<H: ItemHasher> StaticSet for RibbonFilter<H> {
    fn has(&self, k: u64) -> bool {
        self.contains_key_hash(k)
    }
}
macro_rules! xorf_set {
    ($($t:ty),*) => {$(
        impl StaticSet for $t {
            fn has(&self, k: u64) -> bool {
                xorf::Filter::contains(self, &k)
            }
        }
    )*};
}
xorf_set!(
    xorf::Xor8,
    xorf::Xor16,
    xorf::BinaryFuse8,
    xorf::BinaryFuse16
);

type MakeStatic = fn(&[u64]) -> Box<dyn StaticSet>;

fn lab_xor8(k: &[u64]) -> Box<dyn StaticSet> {
    Box::new(XorFilter::from_key_hashes(k, 8, Xxh3::default()).expect("xor"))
}
fn lab_xor16(k: &[u64]) -> Box<dyn StaticSet> {
    Box::new(XorFilter::from_key_hashes(k, 16, Xxh3::default()).expect("xor"))
}
fn lab_fuse8(k: &[u64]) -> Box<dyn StaticSet> {
    Box::new(BinaryFuseFilter::from_key_hashes(k, 8, 3, Xxh3::default()).expect("fuse"))
}
fn lab_fuse16(k: &[u64]) -> Box<dyn StaticSet> {
    Box::new(BinaryFuseFilter::from_key_hashes(k, 16, 3, Xxh3::default()).expect("fuse"))
}
fn lab_fuse4_8(k: &[u64]) -> Box<dyn StaticSet> {
    Box::new(BinaryFuseFilter::from_key_hashes(k, 8, 4, Xxh3::default()).expect("fuse"))
}
fn lab_fuse4_16(k: &[u64]) -> Box<dyn StaticSet> {
    Box::new(BinaryFuseFilter::from_key_hashes(k, 16, 4, Xxh3::default()).expect("fuse"))
}
fn lab_ribbon7(k: &[u64]) -> Box<dyn StaticSet> {
    Box::new(RibbonFilter::from_key_hashes(k, 7, Xxh3::default()).expect("ribbon"))
}
fn lab_ribbon10(k: &[u64]) -> Box<dyn StaticSet> {
    Box::new(RibbonFilter::from_key_hashes(k, 10, Xxh3::default()).expect("ribbon"))
}
fn xorf_xor8(k: &[u64]) -> Box<dyn StaticSet> {
    Box::new(xorf::Xor8::from(k))
}
fn xorf_xor16(k: &[u64]) -> Box<dyn StaticSet> {
    Box::new(xorf::Xor16::from(k))
}
fn xorf_fuse8(k: &[u64]) -> Box<dyn StaticSet> {
    Box::new(xorf::BinaryFuse8::try_from(k).expect("xorf"))
}
fn xorf_fuse16(k: &[u64]) -> Box<dyn StaticSet> {
    Box::new(xorf::BinaryFuse16::try_from(k).expect("xorf"))
}

/// The N keys (as `u64`) a static filter is built from.
fn static_keys() -> Vec<u64> {
    (0..N).map(|i| u64::from_le_bytes(key(i))).collect()
}
/// The constructor and the keys, for the construction benchmark.
fn static_for_build(make: MakeStatic) -> (MakeStatic, Vec<u64>) {
    (make, static_keys())
}
/// Built from the N keys; the keys queried are `from..from + OPS`.
fn static_prepared(make: MakeStatic, from: u64) -> (Box<dyn StaticSet>, Vec<u64>) {
    (
        make(&static_keys()),
        (from..from + OPS)
            .map(|i| u64::from_le_bytes(key(i)))
            .collect(),
    )
}
fn static_for_hit(make: MakeStatic) -> (Box<dyn StaticSet>, Vec<u64>) {
    static_prepared(make, 0)
}
fn static_for_miss(make: MakeStatic) -> (Box<dyn StaticSet>, Vec<u64>) {
    static_prepared(make, N)
}

// One construction from N = 10^4 keys (per-key counts: the total / 10^4).
#[library_benchmark]
#[bench::lab_xor8(args = (lab_xor8), setup = static_for_build)]
#[bench::lab_xor16(args = (lab_xor16), setup = static_for_build)]
#[bench::lab_fuse8(args = (lab_fuse8), setup = static_for_build)]
#[bench::lab_fuse16(args = (lab_fuse16), setup = static_for_build)]
#[bench::lab_fuse4_8(args = (lab_fuse4_8), setup = static_for_build)]
#[bench::lab_fuse4_16(args = (lab_fuse4_16), setup = static_for_build)]
#[bench::lab_ribbon7(args = (lab_ribbon7), setup = static_for_build)]
#[bench::lab_ribbon10(args = (lab_ribbon10), setup = static_for_build)]
#[bench::xorf_xor8(args = (xorf_xor8), setup = static_for_build)]
#[bench::xorf_xor16(args = (xorf_xor16), setup = static_for_build)]
#[bench::xorf_fuse8(args = (xorf_fuse8), setup = static_for_build)]
#[bench::xorf_fuse16(args = (xorf_fuse16), setup = static_for_build)]
fn static_build(input: (MakeStatic, Vec<u64>)) -> Box<dyn StaticSet> {
    let (make, keys) = input;
    make(black_box(&keys))
}

#[library_benchmark]
#[bench::lab_xor8(args = (lab_xor8), setup = static_for_hit)]
#[bench::lab_xor16(args = (lab_xor16), setup = static_for_hit)]
#[bench::lab_fuse8(args = (lab_fuse8), setup = static_for_hit)]
#[bench::lab_fuse16(args = (lab_fuse16), setup = static_for_hit)]
#[bench::lab_fuse4_8(args = (lab_fuse4_8), setup = static_for_hit)]
#[bench::lab_fuse4_16(args = (lab_fuse4_16), setup = static_for_hit)]
#[bench::lab_ribbon7(args = (lab_ribbon7), setup = static_for_hit)]
#[bench::lab_ribbon10(args = (lab_ribbon10), setup = static_for_hit)]
#[bench::xorf_xor8(args = (xorf_xor8), setup = static_for_hit)]
#[bench::xorf_xor16(args = (xorf_xor16), setup = static_for_hit)]
#[bench::xorf_fuse8(args = (xorf_fuse8), setup = static_for_hit)]
#[bench::xorf_fuse16(args = (xorf_fuse16), setup = static_for_hit)]
fn static_query_hit(input: (Box<dyn StaticSet>, Vec<u64>)) -> usize {
    let (f, keys) = input;
    keys.iter().filter(|&&k| f.has(black_box(k))).count()
}

#[library_benchmark]
#[bench::lab_xor8(args = (lab_xor8), setup = static_for_miss)]
#[bench::lab_xor16(args = (lab_xor16), setup = static_for_miss)]
#[bench::lab_fuse8(args = (lab_fuse8), setup = static_for_miss)]
#[bench::lab_fuse16(args = (lab_fuse16), setup = static_for_miss)]
#[bench::lab_fuse4_8(args = (lab_fuse4_8), setup = static_for_miss)]
#[bench::lab_fuse4_16(args = (lab_fuse4_16), setup = static_for_miss)]
#[bench::lab_ribbon7(args = (lab_ribbon7), setup = static_for_miss)]
#[bench::lab_ribbon10(args = (lab_ribbon10), setup = static_for_miss)]
#[bench::xorf_xor8(args = (xorf_xor8), setup = static_for_miss)]
#[bench::xorf_xor16(args = (xorf_xor16), setup = static_for_miss)]
#[bench::xorf_fuse8(args = (xorf_fuse8), setup = static_for_miss)]
#[bench::xorf_fuse16(args = (xorf_fuse16), setup = static_for_miss)]
fn static_query_miss(input: (Box<dyn StaticSet>, Vec<u64>)) -> usize {
    let (f, keys) = input;
    keys.iter().filter(|&&k| f.has(black_box(k))).count()
}

library_benchmark_group!(
    name = static_sets;
    benchmarks = static_build, static_query_hit, static_query_miss
);

#[path = "gate/dynamic_path.rs"]
mod gate_dynamic;
use gate_dynamic::dynamic_path;

main!(
    library_benchmark_groups = hot_paths,
    peers,
    static_sets,
    dynamic_path
);
