//! One peer row of the extreme-scale experiment (issue 40): a peer crate configured for `n`
//! keys at p = 1% (or what it allows), filled with the same keys as bloomlab's rows
//! (`KeyGen::new(KeyKind::U64, seed)`, generated on the fly), asked about every inserted key
//! (false negatives: must be 0) and about `queries` absent keys (measured rate, Wilson 95%
//! interval), against the rate its own configuration predicts. Prints one JSON object with the
//! fields `bloomlab measure --json` uses (experiments/programs/extreme_scale_table.py reads
//! both), and a progress line with an ETA on standard error.
//!
//! ```sh
//! cargo build --release --example extreme_scale_peers
//! target/release/examples/extreme_scale_peers fastbloom 100000000 10000000 20261207
//! ```
//!
//! Peers: `fastbloom` (0.17, 64-bit positions by a 128-bit multiply, SipHash-1-3 seeded),
//! `fastbloom09-512` (0.9's `BloomFilter<512>`), `sbbf-rs-safe` (given xxh3_64 of the key's 8
//! LE bytes, 11 bits per key), `cuckoofilter` (0.5, 8-bit fingerprints, buckets of 4, a
//! power-of-two table), `xorf-xor8`, `xorf-fuse8` (static, 2^-8), `qfilter` (0.3, rank-select
//! quotient filter). The static ones hold all `n` keys as a `Vec<u64>` while building.
//!
//! Models: fastbloom 0.17 and 0.9 the standard formula `(1 − e^(−kn/m))^k` on their own m and k
//! (0.9 re-derives the block for each probe, so its k bits fall in up to k blocks: the standard
//! formula, not the blocked one); sbbf-rs-safe the split-block model on its m; cuckoofilter
//! `1 − (1 − 1/255)^(8α)` (its fingerprint byte never takes the empty marker 100, so 255 values;
//! α = n / slots); xorf 2^-8; qfilter `1 − (1 − 2^−(q+r))^n` with its `fingerprint_size` q + r.

use bloomlab::stats;
use bloomlab::theory;
use bloomlab::workload::{KeyGen, KeyKind};
use std::collections::hash_map::DefaultHasher;
use std::io::IsTerminal as _;
use std::time::Instant;

/// The seed of the seeded peers (the accuracy audit's).
const SEED: u128 = 0x0123_4567_89ab_cdef_fedc_ba98_7654_3210;
/// The target rate.
const P: f64 = 0.01;

/// The operations a row needs: insert one key (false when refused), ask about one key.
trait Peer {
    fn insert(&mut self, k: u64) -> bool;
    fn contains(&self, k: u64) -> bool;
    /// Table bytes and the model rate after `n` inserts.
    fn size_and_model(&self, n: u64) -> (u64, f64, String);
}

/// A fastbloom filter (0.17 or 0.9): the same API, the standard formula on its own m and k.
macro_rules! fastbloom_peer {
    ($name:ident, $t:ty, $what:expr) => {
        struct $name($t);
        impl Peer for $name {
            fn insert(&mut self, k: u64) -> bool {
                self.0.insert(&k);
                true
            }
            fn contains(&self, k: u64) -> bool {
                self.0.contains(&k)
            }
            fn size_and_model(&self, n: u64) -> (u64, f64, String) {
                let (m, k) = (self.0.num_bits() as u64, self.0.num_hashes());
                let what = format!("m={m} k={k}{}", $what);
                (m / 8, theory::fpr_classic(m, n, k), what)
            }
        }
    };
}
fastbloom_peer!(FastBloom, fastbloom::BloomFilter, "");
fastbloom_peer!(
    FastBloom09,
    fastbloom09::BloomFilter<512>,
    " (BloomFilter<512>)"
);

struct Sbbf(sbbf_rs_safe::Filter);
fn xxh3(k: u64) -> u64 {
    xxhash_rust::xxh3::xxh3_64(&k.to_le_bytes())
}
impl Peer for Sbbf {
    fn insert(&mut self, k: u64) -> bool {
        self.0.insert_hash(xxh3(k));
        true
    }
    fn contains(&self, k: u64) -> bool {
        self.0.contains_hash(xxh3(k))
    }
    fn size_and_model(&self, n: u64) -> (u64, f64, String) {
        let bytes = self.0.as_bytes().len() as u64;
        let what = format!("11 bits/key requested, m={}", bytes * 8);
        (
            bytes,
            theory::split_block::fpr_split_block(bytes * 8, n),
            what,
        )
    }
}

struct Cuckoo(cuckoofilter::CuckooFilter<DefaultHasher>, u64);
impl Peer for Cuckoo {
    fn insert(&mut self, k: u64) -> bool {
        self.0.add(&k).is_ok()
    }
    fn contains(&self, k: u64) -> bool {
        self.0.contains(&k)
    }
    fn size_and_model(&self, _n: u64) -> (u64, f64, String) {
        let slots = self.1;
        let alpha = self.0.len() as f64 / slots as f64;
        let what = format!("{} buckets of 4 x 8-bit, load {alpha:.4}", slots / 4);
        (slots, theory::cuckoo::fpr_at_load(8, 4, alpha), what)
    }
}

struct Qf(qfilter::Filter);
impl Peer for Qf {
    fn insert(&mut self, k: u64) -> bool {
        self.0.insert_duplicated(k).is_ok()
    }
    fn contains(&self, k: u64) -> bool {
        self.0.contains(k)
    }
    fn size_and_model(&self, n: u64) -> (u64, f64, String) {
        let fp = u32::from(self.0.fingerprint_size());
        let what = format!("q+r={fp} bits, capacity {}", self.0.capacity());
        // 1 − (1 − 2^−(q+r))^n, the exact rate of n stored fingerprints of q + r bits.
        let model = theory::quotient::fpr_exact(fp, 0, n);
        (self.0.memory_usage() as u64, model, what)
    }
}

struct Xorf<F>(F, &'static str, u64);
impl<F: xorf::Filter<u64>> Peer for Xorf<F> {
    fn insert(&mut self, _: u64) -> bool {
        true
    }
    fn contains(&self, k: u64) -> bool {
        self.0.contains(&k)
    }
    fn size_and_model(&self, _n: u64) -> (u64, f64, String) {
        (self.2, 2f64.powi(-8), self.1.to_string())
    }
}

/// Progress on standard error: a rewritten line on a terminal, else a line every 10%.
struct Progress {
    start: Instant,
    total: u64,
    tty: bool,
    shown: u64,
}
impl Progress {
    fn tick(&mut self, done: u64) {
        let pct = done * 100 / self.total.max(1);
        let step = if self.tty { 1 } else { 10 };
        if pct < self.shown + step && done < self.total {
            return;
        }
        self.shown = pct;
        let el = self.start.elapsed().as_secs_f64();
        let eta = el / (done.max(1) as f64) * (self.total - done) as f64;
        let line = format!("{pct:3}% {el:.0} s elapsed, eta {eta:.0} s");
        if self.tty {
            eprint!("\r{line}");
        } else {
            eprintln!("{line}");
        }
    }
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let usage = "usage: extreme_scale_peers PEER N QUERIES SEED";
    let [peer, n, q, seed] = args.as_slice() else {
        eprintln!("{usage}");
        std::process::exit(2);
    };
    let parse = |s: &str| {
        s.parse::<u64>().unwrap_or_else(|_| {
            eprintln!("not a whole number: {s:?} ({usage})");
            std::process::exit(2);
        })
    };
    let (n, queries, seed) = (parse(n), parse(q), parse(seed));
    let keygen = KeyGen::new(KeyKind::U64, seed);
    let mut buf = Vec::with_capacity(8);
    let mut key = |i: u64, absent: bool| -> u64 {
        if absent {
            keygen.absent(i, &mut buf);
        } else {
            keygen.present(i, &mut buf);
        }
        u64::from_le_bytes(buf[..8].try_into().expect("u64 keys are 8 bytes"))
    };
    let mut prog = Progress {
        start: Instant::now(),
        total: 2 * n + queries,
        tty: std::io::stderr().is_terminal(),
        shown: 0,
    };
    let all = |key: &mut dyn FnMut(u64, bool) -> u64| (0..n).map(|i| key(i, false)).collect();
    let start = Instant::now();
    let mut f: Box<dyn Peer> = match peer.as_str() {
        "fastbloom" => Box::new(FastBloom(
            fastbloom::BloomFilter::with_false_pos(P)
                .seed(&SEED)
                .expected_items(n as usize),
        )),
        "fastbloom09-512" => Box::new(FastBloom09(
            fastbloom09::BloomFilter::with_false_pos(P)
                .seed(&SEED)
                .expected_items(n as usize),
        )),
        "sbbf-rs-safe" => Box::new(Sbbf(sbbf_rs_safe::Filter::new(11, n as usize))),
        "cuckoofilter" => {
            let slots = (n.next_power_of_two() / 4).max(1) * 4;
            Box::new(Cuckoo(
                cuckoofilter::CuckooFilter::with_capacity(n as usize),
                slots,
            ))
        }
        "qfilter" => Box::new(Qf(qfilter::Filter::new(n, P).unwrap_or_else(|e| {
            eprintln!("qfilter: {e:?}");
            std::process::exit(2);
        }))),
        "xorf-xor8" => {
            let keys: Vec<u64> = all(&mut key);
            let x = xorf::Xor8::from(&keys[..]);
            let bytes = x.fingerprints.len() as u64;
            Box::new(Xorf(x, "Xor8 (fixed 2^-8)", bytes))
        }
        "xorf-fuse8" => {
            let keys: Vec<u64> = all(&mut key);
            match xorf::BinaryFuse8::try_from(&keys[..]) {
                Ok(x) => {
                    let bytes = x.fingerprints.len() as u64;
                    Box::new(Xorf(x, "BinaryFuse8 (fixed 2^-8)", bytes))
                }
                Err(e) => {
                    eprintln!("xorf BinaryFuse8 construction failed: {e}");
                    std::process::exit(3);
                }
            }
        }
        other => {
            eprintln!("unknown peer {other:?} ({usage})");
            std::process::exit(2);
        }
    };
    let mut failures = 0u64;
    for i in 0..n {
        if !f.insert(key(i, false)) {
            failures += 1;
        }
        if i % (1 << 20) == 0 {
            prog.tick(i);
        }
    }
    let build_s = start.elapsed().as_secs_f64();
    let mut found = 0u64;
    for i in 0..n {
        found += u64::from(f.contains(key(i, false)));
        if i % (1 << 20) == 0 {
            prog.tick(n + i);
        }
    }
    let t_q = Instant::now();
    let mut fp = 0u64;
    for j in 0..queries {
        fp += u64::from(f.contains(key(j, true)));
        if j % (1 << 20) == 0 {
            prog.tick(2 * n + j);
        }
    }
    let query_s = t_q.elapsed().as_secs_f64();
    prog.tick(2 * n + queries);
    if prog.tty {
        eprintln!();
    }
    let (bytes, model, what) = f.size_and_model(n);
    let (lo, hi) = stats::wilson(fp, queries, stats::Z95);
    // Refused inserts are not expected to be found.
    let fneg = (n - found).saturating_sub(failures);
    let json = serde_json::json!({
        "filter": peer,
        "n": n,
        "bytes": bytes,
        "bits_per_key": bytes as f64 * 8.0 / n.max(1) as f64,
        "config": what,
        "queries": queries,
        "false_positives": fp,
        "fpr": fp as f64 / queries.max(1) as f64,
        "fpr_ci95": [lo, hi],
        "ci_method": "wilson",
        "theory": { "model": model },
        "false_negatives": fneg,
        "insert_failures": failures,
        "build_s": build_s,
        "ns_per_query": query_s * 1e9 / queries.max(1) as f64,
        "seed": seed,
    });
    println!("{}", serde_json::to_string_pretty(&json).expect("JSON"));
    if fneg > 0 {
        std::process::exit(4);
    }
}
