//! Construction time of bloomlab's static filters against xorf's, interleaved in one process.
//!
//! `cargo run --release --example static_build -- [--n N] [--reps R] [--only NAME]`
//!
//! Each repetition builds every subject once, in a rotating order, from the same `n` keys
//! (`mix64(i ^ SALT)`, the criterion suite's keys): a load spike then hits all subjects
//! alike instead of one. Prints ns per key (minimum and median over the repetitions) and the
//! ratios bloomlab / xorf of the same design, and bloomlab's ribbon (r = 7, 10) / xorf
//! BinaryFuse8. Both sides borrow the keys (`from_key_hashes(&keys,
//! …)`, xorf's `try_from(&keys)`), as the criterion suite's `build` group does; what a copy of
//! the keys would cost is a row of its own.

use bloomlab::filters::{BinaryFuseFilter, RibbonFilter, XorFilter};
use bloomlab::hash::{Xxh3, mix64};
use std::hint::black_box;
use std::time::Instant;

type Build = Box<dyn Fn(&[u64])>;

fn arg(name: &str, default: u64) -> u64 {
    let args: Vec<String> = std::env::args().collect();
    args.iter()
        .position(|a| a == name)
        .and_then(|i| args.get(i + 1))
        .map_or(default, |v| v.parse().unwrap_or(default))
}

fn median(v: &mut [f64]) -> f64 {
    v.sort_by(f64::total_cmp);
    v[v.len() / 2]
}

fn main() {
    let n = arg("--n", 1_000_000);
    let reps = arg("--reps", 15) as usize;
    let keys: Vec<u64> = (0..n).map(|i| mix64(i ^ 0x5eed_b100_f11e_0001)).collect();
    let subjects: Vec<(&str, Build)> = vec![
        (
            "bloomlab-fuse8",
            Box::new(|k: &[u64]| {
                black_box(BinaryFuseFilter::from_key_hashes(k, 8, 3, Xxh3::default()).ok());
            }),
        ),
        (
            "xorf-fuse8",
            Box::new(|k: &[u64]| {
                black_box(xorf::BinaryFuse8::try_from(k).ok());
            }),
        ),
        (
            "bloomlab-fuse16",
            Box::new(|k: &[u64]| {
                black_box(BinaryFuseFilter::from_key_hashes(k, 16, 3, Xxh3::default()).ok());
            }),
        ),
        (
            "xorf-fuse16",
            Box::new(|k: &[u64]| {
                black_box(xorf::BinaryFuse16::try_from(k).ok());
            }),
        ),
        (
            "bloomlab-xor8",
            Box::new(|k: &[u64]| {
                black_box(XorFilter::from_key_hashes(k, 8, Xxh3::default()).ok());
            }),
        ),
        (
            "xorf-xor8",
            Box::new(|k: &[u64]| {
                black_box(xorf::Xor8::from(k));
            }),
        ),
        (
            "bloomlab-ribbon7",
            Box::new(|k: &[u64]| {
                black_box(RibbonFilter::from_key_hashes(k, 7, Xxh3::default()).ok());
            }),
        ),
        (
            "bloomlab-ribbon10",
            Box::new(|k: &[u64]| {
                black_box(RibbonFilter::from_key_hashes(k, 10, Xxh3::default()).ok());
            }),
        ),
        (
            "copy of the keys (to_vec)",
            Box::new(|k: &[u64]| {
                black_box(k.to_vec());
            }),
        ),
    ];
    // `--only NAME`: build just the subjects whose name contains NAME, `reps` times, and print each
    // build's time (the first build of a process is the one `bloomlab build` pays).
    let args: Vec<String> = std::env::args().collect();
    if let Some(only) = args
        .iter()
        .position(|a| a == "--only")
        .and_then(|i| args.get(i + 1))
    {
        for (name, build) in &subjects {
            if name.contains(only.as_str()) {
                for r in 0..reps {
                    let t = Instant::now();
                    build(&keys);
                    let ns = t.elapsed().as_secs_f64() * 1e9 / n as f64;
                    println!("{name} build {r}: {ns:.2} ns/key");
                }
            }
        }
        return;
    }
    let mut times: Vec<Vec<f64>> = vec![Vec::new(); subjects.len()];
    for r in 0..reps {
        for j in 0..subjects.len() {
            let s = (j + r) % subjects.len();
            let t = Instant::now();
            (subjects[s].1)(&keys);
            times[s].push(t.elapsed().as_secs_f64() * 1e9 / n as f64);
        }
    }
    println!("n = {n}, {reps} repetitions; ns per key");
    println!("{:<28} {:>8} {:>8}", "subject", "min", "median");
    let mut med = Vec::new();
    for ((name, _), t) in subjects.iter().zip(&mut times) {
        let min = t.iter().copied().fold(f64::INFINITY, f64::min);
        let m = median(t);
        med.push((min, m));
        println!("{name:<28} {min:>8.2} {m:>8.2}");
    }
    // Ribbon (r = 7, 10) against xorf's BinaryFuse8, the reference peer.
    for (a, b) in [(0, 1), (2, 3), (4, 5), (6, 1), (7, 1)] {
        println!(
            "{} / {}: min {:.3}, median {:.3}",
            subjects[a].0,
            subjects[b].0,
            med[a].0 / med[b].0,
            med[a].1 / med[b].1
        );
    }
}
