//! Where the paired bench's split-block query ratio of 1.02 against sbbf-rs-safe (n = 10^4,
//! `results/bench/paired.md`) comes from: the whole query, the kernel and the hash, each side
//! timed on its own, in one loop of this program instead of the bench's subject harness.
//!
//! Six subjects over the same 10^4 present keys, interleaved slice by slice in a rotating order
//! for 301 rounds: bloomlab's `contains` on the 8 bytes and sbbf-rs-safe's `contains_hash` of
//! `xxh3_64` of them (the bench's pairing); both `contains_hash` on the same precomputed hashes
//! (kernel and call only); bloomlab's `Xxh3::hash64` and the crate's `xxh3_64` alone (the same
//! function, checked equal on every key). Each round gives a ratio per pair; medians with a
//! distribution-free 95% interval (`stats::median_ci95`).
//!
//! Run in release: `cargo run --release --example split_block_probe` (a few seconds); writes
//! `results/bench/split-block-probe.md`.

use bloomlab::Filter;
use bloomlab::filters::SplitBlockBloom;
use bloomlab::hash::{ItemHasher, Xxh3, mix64};
use bloomlab::stats::median_ci95;
use std::fmt::Write as _;
use std::hint::black_box;
use std::time::Instant;

const N: usize = 10_000;
const ROUNDS: usize = 301;
/// Passes over the keys per slice (a slice is then about 0.2 ms).
const PASSES: usize = 10;

const NAMES: [&str; 6] = [
    "bloomlab `contains(&k.to_le_bytes())`",
    "sbbf-rs-safe `contains_hash(xxh3_64(&k.to_le_bytes()))`",
    "bloomlab `contains_hash(h)`",
    "sbbf-rs-safe `contains_hash(h)`",
    "bloomlab `Xxh3::hash64` alone",
    "xxhash-rust `xxh3_64` alone",
];

fn main() -> std::io::Result<()> {
    let keys: Vec<u64> = (0..N as u64).map(mix64).collect();
    let hx = Xxh3::default();
    let mut ours = SplitBlockBloom::with_rate_and(N as u64, 0.01, hx).expect("split-block");
    // 11 bits a key: sbbf-rs-safe's whole-bits sizing for p = 1% (benches/common/subjects.rs).
    let mut peer = sbbf_rs_safe::Filter::new(11, N);
    for &k in &keys {
        ours.insert(&k.to_le_bytes());
        peer.insert_hash(xxhash_rust::xxh3::xxh3_64(&k.to_le_bytes()));
    }
    let hashes: Vec<u64> = keys.iter().map(|k| hx.hash64(&k.to_le_bytes())).collect();
    assert!(
        hashes
            .iter()
            .zip(&keys)
            .all(|(h, k)| *h == xxhash_rust::xxh3::xxh3_64(&k.to_le_bytes())),
        "the two hashes must be the same function"
    );
    let mut ns = vec![Vec::with_capacity(ROUNDS); NAMES.len()];
    for round in 0..ROUNDS {
        for j in 0..NAMES.len() {
            let s = (j + round) % NAMES.len();
            let start = Instant::now();
            let mut c = 0u64;
            for _ in 0..PASSES {
                match s {
                    0 => keys
                        .iter()
                        .for_each(|k| c += u64::from(ours.contains(&k.to_le_bytes()))),
                    1 => keys.iter().for_each(|k| {
                        c += u64::from(
                            peer.contains_hash(xxhash_rust::xxh3::xxh3_64(&k.to_le_bytes())),
                        );
                    }),
                    2 => hashes
                        .iter()
                        .for_each(|&h| c += u64::from(ours.contains_hash(h))),
                    3 => hashes
                        .iter()
                        .for_each(|&h| c += u64::from(peer.contains_hash(h))),
                    4 => keys.iter().for_each(|k| c ^= hx.hash64(&k.to_le_bytes())),
                    _ => keys
                        .iter()
                        .for_each(|k| c ^= xxhash_rust::xxh3::xxh3_64(&k.to_le_bytes())),
                }
            }
            black_box(c);
            ns[s].push(start.elapsed().as_nanos() as f64 / (PASSES * N) as f64);
        }
    }
    let mut md = format!(
        "# Split-block queries against sbbf-rs-safe, piece by piece (`cargo run --release --example split_block_probe`)\n\n\
         n = {N} present keys (in cache), {ROUNDS} rounds of the six subjects interleaved in a rotating \
         order, {PASSES} passes over the keys a slice; medians with a distribution-free 95% interval. \
         The two hashes are the same function (checked on every key).\n\n\
         | subject | ns / key (median) |\n|---|---:|\n"
    );
    for (name, v) in NAMES.iter().zip(&ns) {
        let (m, _, _) = median_ci95(v.clone());
        let _ = writeln!(md, "| {name} | {m:.3} |");
    }
    let _ = write!(
        md,
        "\n| ratio (bloomlab / sbbf-rs-safe) | median [95% interval] over the rounds |\n|---|---|\n"
    );
    for (a, b, what) in [
        (
            0,
            1,
            "whole query, hash included (the paired bench's pairing)",
        ),
        (2, 3, "kernel and call, the same precomputed hashes"),
        (4, 5, "the hash alone"),
    ] {
        let r: Vec<f64> = ns[a].iter().zip(&ns[b]).map(|(x, y)| x / y).collect();
        let (m, lo, hi) = median_ci95(r);
        let _ = writeln!(md, "| {what} | **{m:.3}** [{lo:.3}, {hi:.3}] |");
    }
    print!("{md}");
    let path =
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("results/bench/split-block-probe.md");
    std::fs::write(&path, md)?;
    eprintln!("wrote {}", path.display());
    Ok(())
}
