//! Why the cuckoo insert misses its 0.5 target at n = 10^4: the cost of an insert by the load
//! the table is at. The paired bench times inserts while a filter holds between n/2 and n keys
//! (`benches/paired.rs`), which is 47–94% load for bloomlab's default table (sized near the
//! design's 95%, `theory::cuckoo`) and 30–61% for cuckoofilter's (2^⌈log2 n⌉ slots). This
//! program fills each filter to n/2 and times the next n/2 inserts in five bands of n/10,
//! reporting per band the load reached, ns per insert and (for bloomlab) fingerprints moved per
//! insert; also bloomlab on cuckoofilter's table shape (the bench's `bloomlab-cuckoo-peershape`).
//! Each band is timed as one batch of n/10 inserts, interleaved across the three subjects trial
//! by trial; medians over the trials.
//!
//! Run in release: `cargo run --release --example cuckoo_insert_bands` (about a minute);
//! writes `results/bench/cuckoo-insert-bands.md`.

use bloomlab::Filter;
use bloomlab::filters::CuckooFilter;
use bloomlab::hash::{Xxh3, mix64};
use std::collections::hash_map::DefaultHasher;
use std::fmt::Write as _;
use std::hint::black_box;
use std::time::Instant;

const N: u64 = 10_000;
const BANDS: usize = 5;
const TRIALS: usize = 301;

/// One band's numbers for one trial: ns per insert, load at its end, moves per insert.
type Band = (f64, f64, f64);

/// Fill `f` to n/2 with keys from `first`, then time the next n/2 in bands.
fn bloomlab_bands(mut f: CuckooFilter<Xxh3>, first: u64) -> [Band; BANDS] {
    let per = N / 2 / BANDS as u64;
    for i in 0..N / 2 {
        let _ = f.try_insert(&mix64(first + i).to_le_bytes());
    }
    let mut out = [(0.0, 0.0, 0.0); BANDS];
    for (b, slot) in out.iter_mut().enumerate() {
        let keys: Vec<[u8; 8]> = (0..per)
            .map(|i| mix64(first + N / 2 + b as u64 * per + i).to_le_bytes())
            .collect();
        let kicks = f.kicks();
        let t = Instant::now();
        for k in &keys {
            let _ = black_box(f.try_insert(k));
        }
        let ns = t.elapsed().as_nanos() as f64 / per as f64;
        *slot = (ns, f.load_factor(), (f.kicks() - kicks) as f64 / per as f64);
    }
    out
}

fn peer_bands(first: u64) -> [Band; BANDS] {
    let per = N / 2 / BANDS as u64;
    let mut f = cuckoofilter::CuckooFilter::<DefaultHasher>::with_capacity(N as usize);
    for i in 0..N / 2 {
        let _ = f.add(&mix64(first + i));
    }
    // cuckoofilter's table: 2^⌈log2 n⌉ / 4 buckets of four slots (benches/common/subjects.rs).
    let slots = N.next_power_of_two() as f64;
    let mut out = [(0.0, 0.0, f64::NAN); BANDS];
    for (b, slot) in out.iter_mut().enumerate() {
        let keys: Vec<u64> = (0..per)
            .map(|i| mix64(first + N / 2 + b as u64 * per + i))
            .collect();
        let t = Instant::now();
        for k in &keys {
            let _ = black_box(f.add(k));
        }
        let ns = t.elapsed().as_nanos() as f64 / per as f64;
        *slot = (ns, f.len() as f64 / slots, f64::NAN);
    }
    out
}

fn median(v: &mut [f64]) -> f64 {
    v.sort_by(f64::total_cmp);
    v[v.len() / 2]
}

fn main() -> std::io::Result<()> {
    let names = [
        "bloomlab-cuckoo (default table)",
        "bloomlab-cuckoo-peershape",
        "cuckoofilter",
    ];
    let mut all: Vec<Vec<[Band; BANDS]>> = vec![Vec::new(); 3];
    for t in 0..TRIALS {
        let first = (t as u64) << 32;
        all[0].push(bloomlab_bands(
            CuckooFilter::with_rate(N, 0.01).expect("cuckoo"),
            first,
        ));
        all[1].push(bloomlab_bands(
            CuckooFilter::with_layout_and(N.next_power_of_two() / 4, 8, 4, Xxh3::default())
                .expect("cuckoo"),
            first,
        ));
        all[2].push(peer_bands(first));
    }
    let mut md = format!(
        "# Cuckoo insert cost by load (`cargo run --release --example cuckoo_insert_bands`)\n\n\
         n = {N}: each filter filled to n/2, then the next n/2 inserts timed in {BANDS} bands of \
         n/10 (the window the paired bench's insert rows time); median over {TRIALS} trials, the \
         three subjects interleaved trial by trial. *load* is the table's load at the end of the \
         band; *moves* the fingerprints a kick moved, per insert of the band. One process, \
         {}.\n\n| subject | band (keys held) | load at end | ns / insert | moves / insert |\n|---|---|---:|---:|---:|\n",
        std::env::var("BLOOMLAB_HOST").unwrap_or_else(|_| "this machine".into())
    );
    let mut means = [0.0f64; 3];
    for (s, name) in names.iter().enumerate() {
        for b in 0..BANDS {
            let mut ns: Vec<f64> = all[s].iter().map(|t| t[b].0).collect();
            let mut load: Vec<f64> = all[s].iter().map(|t| t[b].1).collect();
            let mut moves: Vec<f64> = all[s].iter().map(|t| t[b].2).collect();
            let ns = median(&mut ns);
            means[s] += ns / BANDS as f64;
            let moves = if s == 2 {
                "–".to_string()
            } else {
                format!("{:.3}", median(&mut moves))
            };
            let lo = 50 + b * 10;
            let _ = writeln!(
                md,
                "| {name} | {lo}–{}% of n | {:.1}% | {ns:.1} | {moves} |",
                lo + 10,
                100.0 * median(&mut load)
            );
        }
    }
    let _ = write!(
        md,
        "\nMean over the bands (the paired bench's window): bloomlab default {:.1} ns, peershape \
         {:.1}, cuckoofilter {:.1}; default / cuckoofilter = **{:.2}**, peershape / cuckoofilter = \
         **{:.2}**.\n",
        means[0],
        means[1],
        means[2],
        means[0] / means[2],
        means[1] / means[2]
    );
    print!("{md}");
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("results/bench/cuckoo-insert-bands.md");
    std::fs::write(&path, md)?;
    eprintln!("wrote {}", path.display());
    Ok(())
}
