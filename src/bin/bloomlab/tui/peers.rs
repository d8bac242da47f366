//! The peer crates Compare can add (`e`): each built for the same n and p, filled with the
//! same u64 keys and queried with the same absent keys as the bloomlab rows, in the same
//! worker thread, so the times are comparable within one run (never across runs). The
//! configurations are the like-for-like ones of `benches/common/subjects.rs`.

use std::time::{Duration, Instant};

use bloomlab::measure::TimingStats;

pub use super::results::PeerResult;
use bloomlab::workload::{KeyChunk, KeyGen, KeyKind};

/// Keys per timed chunk.
const CHUNK: u64 = 16_384;

/// What a peer filter must do.
trait Peer {
    /// Insert `k`; false when the filter refused it (full).
    fn insert(&mut self, k: u64) -> bool;
    fn contains(&self, k: u64) -> bool;
    fn bytes(&self) -> u64;
}

fn xxh3(k: u64) -> u64 {
    xxhash_rust::xxh3::xxh3_64(&k.to_le_bytes())
}

/// fastbloom's 512-bit blocks, SipHash-1-3 keyed by a fixed seed.
const SEED: u128 = 0x0123_4567_89ab_cdef_fedc_ba98_7654_3210;

impl Peer for fastbloom::BloomFilter {
    fn insert(&mut self, k: u64) -> bool {
        fastbloom::BloomFilter::insert(self, &k);
        true
    }
    fn contains(&self, k: u64) -> bool {
        fastbloom::BloomFilter::contains(self, &k)
    }
    fn bytes(&self) -> u64 {
        self.num_bits() as u64 / 8
    }
}

impl Peer for sbbf_rs_safe::Filter {
    fn insert(&mut self, k: u64) -> bool {
        self.insert_hash(xxh3(k));
        true
    }
    fn contains(&self, k: u64) -> bool {
        self.contains_hash(xxh3(k))
    }
    fn bytes(&self) -> u64 {
        self.as_bytes().len() as u64
    }
}

impl Peer for growable_bloom_filter::GrowableBloom {
    fn insert(&mut self, k: u64) -> bool {
        growable_bloom_filter::GrowableBloom::insert(self, k);
        true
    }
    fn contains(&self, k: u64) -> bool {
        growable_bloom_filter::GrowableBloom::contains(self, k)
    }
    /// Its layers' bit buffers, read through serde (the crate has no size accessor).
    fn bytes(&self) -> u64 {
        let v = serde_json::to_value(self).unwrap_or_default();
        v["b"].as_array().map_or(0, |a| {
            a.iter()
                .map(|b| b["b"].as_array().map_or(0, |x| x.len() as u64))
                .sum()
        })
    }
}

type Cuckoo = cuckoofilter::CuckooFilter<std::collections::hash_map::DefaultHasher>;

impl Peer for Cuckoo {
    fn insert(&mut self, k: u64) -> bool {
        self.add(&k).is_ok()
    }
    fn contains(&self, k: u64) -> bool {
        Cuckoo::contains(self, &k)
    }
    fn bytes(&self) -> u64 {
        self.memory_usage() as u64
    }
}

impl Peer for qfilter::Filter {
    fn insert(&mut self, k: u64) -> bool {
        self.insert_fingerprint(true, xxh3(k)).is_ok()
    }
    fn contains(&self, k: u64) -> bool {
        self.contains_fingerprint(xxh3(k))
    }
    fn bytes(&self) -> u64 {
        self.memory_usage() as u64
    }
}

/// A static xorf filter (built from all keys at once).
struct Xorf<F>(F, u64);

impl<F: xorf::Filter<u64>> Peer for Xorf<F> {
    fn insert(&mut self, _: u64) -> bool {
        true
    }
    fn contains(&self, k: u64) -> bool {
        self.0.contains(&k)
    }
    fn bytes(&self) -> u64 {
        self.1
    }
}

fn stats(v: &[f64]) -> TimingStats {
    super::results::timing_stats(v).unwrap_or(TimingStats {
        median: 0.0,
        min: 0.0,
        max: 0.0,
        samples: 0,
    })
}

/// The first n u64 keys (present) or keys j.. (absent) of the generator, as integers.
fn keys(g: &KeyGen, from: u64, to: u64, absent: bool, chunk: &mut KeyChunk) -> Vec<u64> {
    chunk.fill(g, from, to, absent);
    chunk
        .iter()
        .map(|b| u64::from_le_bytes(b.try_into().unwrap_or([0; 8])))
        .collect()
}

/// Build peer `i` of [`PEERS`] for n items at rate p, fill it with the first n u64 keys of
/// `seed`, query `queries` absent keys. `cancelled` is asked between chunks.
///
/// # Errors
/// The peer's refusal (too small a rate for its fixed fingerprint, …) or `"cancelled"`.
pub fn measure_peer(
    i: usize,
    n: u64,
    p: f64,
    queries: u64,
    seed: u64,
    cancelled: &dyn Fn() -> bool,
) -> Result<PeerResult, String> {
    let g = KeyGen::new(KeyKind::U64, seed);
    let mut chunk = KeyChunk::default();
    let nu = usize::try_from(n).map_err(|e| e.to_string())?;
    let mut ins = Vec::new();
    let mut f: Box<dyn Peer> = match i {
        0 => Box::new(
            fastbloom::BloomFilter::with_false_pos(p)
                .seed(&SEED)
                .expected_items(nu),
        ),
        1 => {
            // Parquet's bits per key for p (as the benches size it).
            let bpk = bloomlab::theory::split_block::spec_bits_per_key(p).ceil() as usize;
            Box::new(sbbf_rs_safe::Filter::new(bpk.max(1), nu))
        }
        2 => Box::new(growable_bloom_filter::GrowableBloom::new(p, nu)),
        3 => Box::new(Cuckoo::with_capacity(nu)),
        4 => {
            let (q, r) = bloomlab::theory::quotient::sizing(n, Some(p), 0, 0.95)
                .map_err(|e| e.to_string())?;
            Box::new(
                qfilter::Filter::with_fingerprint_size(n, (q + r) as u8)
                    .map_err(|e| format!("{e:?}"))?,
            )
        }
        5 | 6 => {
            let all = keys(&g, 0, n, false, &mut chunk);
            let start = Instant::now();
            let built: Box<dyn Peer> = if i == 5 {
                let x = xorf::Xor8::from(all.as_slice());
                let b = x.fingerprints.len() as u64;
                Box::new(Xorf(x, b))
            } else {
                let x = xorf::BinaryFuse8::try_from(all.as_slice()).map_err(|e| e.to_string())?;
                let b = x.fingerprints.len() as u64;
                Box::new(Xorf(x, b))
            };
            ins.push(start.elapsed().as_nanos() as f64 / n.max(1) as f64);
            built
        }
        _ => return Err("no such peer".into()),
    };
    let mut present = Vec::new();
    let mut refused = 0u64;
    if i < 5 {
        let mut a = 0;
        while a < n {
            if cancelled() {
                return Err("cancelled".into());
            }
            let b = (a + CHUNK).min(n);
            let ks = keys(&g, a, b, false, &mut chunk);
            let start = Instant::now();
            for &k in &ks {
                refused += u64::from(!f.insert(k));
            }
            ins.push(start.elapsed().as_nanos() as f64 / (b - a) as f64);
            a = b;
        }
    }
    // False negatives over the inserted keys (up to the first 100,000), refused ones aside.
    present.extend(keys(&g, 0, n.min(100_000), false, &mut chunk));
    let missed = present.iter().filter(|&&k| !f.contains(k)).count() as u64;
    let false_negatives = missed.saturating_sub(refused);
    let (mut fp, mut qs, mut j) = (0u64, Vec::new(), 0u64);
    while j < queries {
        if cancelled() {
            return Err("cancelled".into());
        }
        let b = (j + CHUNK).min(queries);
        let ks = keys(&g, j, b, true, &mut chunk);
        let start = Instant::now();
        let mut hits = 0u64;
        for &k in &ks {
            hits += u64::from(f.contains(k));
        }
        let dt: Duration = start.elapsed();
        qs.push(dt.as_nanos() as f64 / (b - j) as f64);
        fp += hits;
        j = b;
    }
    Ok(PeerResult {
        bytes: f.bytes(),
        queries,
        false_positives: fp,
        false_negatives,
        refused,
        insert: stats(&ins),
        query: stats(&qs),
    })
}
