//! Group "hash": every bloomlab hash function on 8-, 16-, 64- and 256-byte keys (ids
//! `hash/{name}/{len}`, throughput in bytes), and every index strategy's cost for k = 7 per
//! item: `index/{strategy}+xxh3/k7` (hash included) and `index/{strategy}/k7` (hash excluded:
//! the items *are* precomputed 128-bit hashes, read by the [`Prehashed`] hasher).

use crate::keys::Rng;
use crate::settings::{BATCH, P, wanted};
use bloomlab::hash::{
    AnyStrategy, Fnv1a, Foldhash, Fx, Hash128, HashId, IndexStrategy, ItemHasher, Murmur3, Sip13,
    Sip24, StrategyId, Weak, Wyhash, Xxh3, Xxh64, mix64,
};
use criterion::{BenchmarkId, Criterion, Throughput};
use std::hint::black_box;

/// Key lengths of the hash group.
const LENS: [usize; 4] = [8, 16, 64, 256];

pub fn run(c: &mut Criterion) {
    hashes(c);
    strategies(c);
}

fn random_bytes(len: usize, seed: u64) -> Vec<u8> {
    let mut r = Rng::new(seed);
    (0..len).map(|_| r.next_u64() as u8).collect()
}

fn one_hash<H: ItemHasher>(c: &mut Criterion, h: H, seen: &mut Vec<HashId>) {
    let id = h.id();
    seen.push(id);
    let mut g = c.benchmark_group("hash");
    for len in LENS {
        if !wanted(&format!("hash/{id}/{len}")) {
            continue;
        }
        let data = random_bytes(BATCH * len, len as u64);
        g.throughput(Throughput::Bytes((BATCH * len) as u64));
        g.bench_function(BenchmarkId::new(id.name(), len), |b| {
            b.iter(|| {
                let mut acc = 0u64;
                for item in black_box(&data).chunks_exact(len) {
                    let x = h.hash128(item);
                    acc ^= x.lo ^ x.hi;
                }
                acc
            });
        });
    }
    g.finish();
}

/// Every hash function, by its concrete type (no run-time dispatch).
fn hashes(c: &mut Criterion) {
    let mut seen = Vec::new();
    one_hash(c, Sip13::keyed(1, 2), &mut seen);
    one_hash(c, Sip24::keyed(1, 2), &mut seen);
    one_hash(c, Wyhash::with_seed(1), &mut seen);
    one_hash(c, Xxh3::with_seed(1), &mut seen);
    one_hash(c, Xxh64::with_seed(1), &mut seen);
    one_hash(c, Murmur3::with_seed(1), &mut seen);
    one_hash(c, Fx::with_seed(1), &mut seen);
    one_hash(c, Fnv1a::with_seed(1), &mut seen);
    one_hash(c, Weak::with_seed(1), &mut seen);
    one_hash(c, Foldhash::with_seed(1), &mut seen);
    let missing: Vec<_> = HashId::ALL.iter().filter(|h| !seen.contains(h)).collect();
    assert!(
        missing.is_empty(),
        "hash group misses {missing:?}: add them above"
    );
}

/// A hasher for items that already are a 128-bit hash (16 bytes: lo, hi little-endian): the
/// strategy's own cost, without hashing. For `independent` (k seeded hashes by definition) its
/// seeded hash is one SplitMix64 finalizer.
#[derive(Debug, Clone, Copy)]
struct Prehashed;

impl ItemHasher for Prehashed {
    fn id(&self) -> HashId {
        HashId::Xxh3
    }
    #[inline]
    fn hash128(&self, b: &[u8]) -> Hash128 {
        let lo = u64::from_le_bytes(b[..8].try_into().expect("16-byte item"));
        let hi = u64::from_le_bytes(b[8..16].try_into().expect("16-byte item"));
        Hash128 { lo, hi }
    }
    #[inline]
    fn hash64(&self, b: &[u8]) -> u64 {
        self.hash128(b).lo
    }
    #[inline]
    fn hash64_seeded(&self, b: &[u8], seed: u64) -> u64 {
        mix64(self.hash128(b).lo ^ seed.wrapping_mul(0x9e37_79b9_7f4a_7c15))
    }
}

fn one_strategy<S: IndexStrategy>(c: &mut Criterion, s: S, m: u64) {
    let name = s.id().name();
    let keys = random_bytes(BATCH * 8, 8);
    let hashed: Vec<u8> = keys
        .chunks_exact(8)
        .flat_map(|k| {
            let h = Xxh3::default().hash128(k);
            let mut v = h.lo.to_le_bytes().to_vec();
            v.extend_from_slice(&h.hi.to_le_bytes());
            v
        })
        .collect();
    let mut g = c.benchmark_group("index");
    g.throughput(Throughput::Elements(BATCH as u64));
    if wanted(&format!("index/{name}+xxh3/k7")) {
        g.bench_function(BenchmarkId::new(format!("{name}+xxh3"), "k7"), |b| {
            b.iter(|| run_strategy(s, &Xxh3::default(), black_box(&keys), 8, m));
        });
    }
    if wanted(&format!("index/{name}/k7")) {
        g.bench_function(BenchmarkId::new(name, "k7"), |b| {
            b.iter(|| run_strategy(s, &Prehashed, black_box(&hashed), 16, m));
        });
    }
    g.finish();
}

#[inline]
fn run_strategy<S: IndexStrategy, H: ItemHasher>(
    s: S,
    h: &H,
    data: &[u8],
    len: usize,
    m: u64,
) -> u64 {
    let mut acc = 0u64;
    for item in data.chunks_exact(len) {
        s.for_each_index(h, item, 7, m, |i| {
            acc = acc.wrapping_add(i);
            true
        });
    }
    acc
}

/// Every index strategy, by its concrete type; m is the standard filter's for 10^6 keys at p.
fn strategies(c: &mut Criterion) {
    use bloomlab::hash::{
        DoubleHashing, EnhancedDouble64, EnhancedDoubleHashing, Guava32, Guava64, Independent,
        RotateAdd64,
    };
    let m = bloomlab::theory::size_for(1_000_000, P).expect("sizing").m;
    for id in StrategyId::ALL {
        match id {
            StrategyId::Double => one_strategy(c, DoubleHashing, m),
            StrategyId::EnhancedDouble => one_strategy(c, EnhancedDoubleHashing, m),
            StrategyId::Independent => one_strategy(c, Independent, m),
            StrategyId::Guava32 => one_strategy(c, Guava32, Guava32.round_bits(m)),
            StrategyId::Guava64 => one_strategy(c, Guava64, Guava64.round_bits(m)),
            StrategyId::EnhancedDouble64 => one_strategy(c, EnhancedDouble64, m),
            StrategyId::RotateAdd64 => one_strategy(c, RotateAdd64, m),
            // A strategy added later is measured through run-time dispatch until it gets a line.
            other => one_strategy(c, AnyStrategy(other), m),
        }
    }
}
