//! The quotient filter against qfilter 0.3.1 (a rank-select quotient filter, Pandey et al. 2017's
//! layout): bits per key at the delivered false-positive rate, measured on absent keys with a 95%
//! Wilson interval. Both are fed the same 64-bit hash (xxh3_64 of the key's 8 LE bytes; qfilter
//! through `insert_fingerprint`/`contains_fingerprint`), so at the same q and r they hold the
//! same fingerprints and must deliver the same rate.
//!
//! Two tables: (1) the same shape, 2^20 slots at the 95% load limit, r = 4 … 16; (2) each sized
//! by its own rule for (n, p) (bloomlab: `QuotientFilter::with_rate`, r = ⌈log2(α/p)⌉ at the
//! design load α; qfilter: `Filter::new(n, p)`, r = ⌈log2(1/p)⌉), n = 10^6.
//!
//! Run in release: `nice cargo run --release --example quotient_space` (about a minute). Writes
//! `results/quotient-space.md`.

use bloomlab::Filter;
use bloomlab::filters::QuotientFilter;
use bloomlab::stats::{Z95, wilson};
use std::fmt::Write as _;

/// Absent keys queried per row.
const QUERIES: u64 = 4_000_000;

fn hash(i: u64) -> u64 {
    xxhash_rust::xxh3::xxh3_64(&i.to_le_bytes())
}

/// Absent keys are `1 << 40` and up; present ones `0 .. n`.
const ABSENT: u64 = 1 << 40;

struct Side {
    bits: u64,
    fp: u64,
    r: u32,
}

fn ours(f: &mut QuotientFilter, n: u64) -> Side {
    for i in 0..n {
        f.try_insert(&i.to_le_bytes())
            .expect("under the load limit");
    }
    assert!(
        (0..n).all(|i| f.contains(&i.to_le_bytes())),
        "a false negative"
    );
    let fp = (ABSENT..ABSENT + QUERIES)
        .filter(|i| f.contains(&i.to_le_bytes()))
        .count() as u64;
    Side {
        bits: f.bytes() as u64 * 8,
        fp,
        r: f.r(),
    }
}

fn theirs(f: &mut qfilter::Filter, n: u64) -> Side {
    for i in 0..n {
        f.insert_fingerprint(true, hash(i)).expect("under capacity");
    }
    assert!(
        (0..n).all(|i| f.contains_fingerprint(hash(i))),
        "a false negative"
    );
    let fp = (ABSENT..ABSENT + QUERIES)
        .filter(|&i| f.contains_fingerprint(hash(i)))
        .count() as u64;
    let qbits = (f.capacity() * 20 / 19)
        .next_power_of_two()
        .trailing_zeros();
    Side {
        bits: f.memory_usage() as u64 * 8,
        fp,
        r: u32::from(f.fingerprint_size()) - qbits,
    }
}

fn row(md: &mut String, what: &str, n: u64, s: &Side) {
    let (lo, hi) = wilson(s.fp, QUERIES, Z95);
    let rate = s.fp as f64 / QUERIES as f64;
    let _ = writeln!(
        md,
        "| {what} | {} | {n} | {:.5}% [{:.5}%, {:.5}%] | {:.3} |",
        s.r,
        rate * 100.0,
        lo * 100.0,
        hi * 100.0,
        s.bits as f64 / n as f64
    );
}

fn main() {
    let mut md = String::from(
        "# Quotient filter space at the delivered rate: bloomlab against qfilter 0.3.1\n\n\
         Written by `cargo run --release --example quotient_space` \
         (experiments/programs/quotient_space.rs). Both sides get xxh3_64 of the key's 8 LE \
         bytes; the rate is measured on 4,000,000 absent keys (95% Wilson interval); bits/key \
         is each side's allocated memory (bloomlab `Filter::bytes`, qfilter `memory_usage`) \
         over n.\n\n## 1. The same shape: 2^20 slots, n = 996,147 (95% load), r = 4 … 16\n\n\
         | filter | r | n | delivered FPR [95%] | bits/key |\n|---|---:|---:|---|---:|\n",
    );
    let q = 20u32;
    let n = (0.95 * f64::from(1u32 << q)).floor() as u64;
    for r in [4u32, 6, 8, 10, 12, 16] {
        let mut a = QuotientFilter::with_qr(q, r).expect("q, r");
        let s = ours(&mut a, n);
        row(&mut md, "bloomlab quotient", n, &s);
        let mut b = qfilter::Filter::with_fingerprint_size(n, (q + r) as u8).expect("qfilter");
        let t = theirs(&mut b, n);
        assert_eq!(t.r, r, "qfilter's shape");
        row(&mut md, "qfilter", n, &t);
        eprintln!("r = {r}: {} vs {} false positives", s.fp, t.fp);
    }
    let n = 1_000_000u64;
    let _ = writeln!(
        md,
        "\n## 2. Each sized by its own rule for (n, p), n = 10^6\n\n\
         | filter | r | n | delivered FPR [95%] | bits/key | target p |\n|---|---:|---:|---|---:|---:|"
    );
    for p in [0.05, 0.01, 0.001, 0.0001] {
        let mut a = QuotientFilter::with_rate(n, p).expect("with_rate");
        let s = ours(&mut a, n);
        row(&mut md, "bloomlab quotient", n, &s);
        md.pop();
        let _ = writeln!(md, " {p} |");
        let mut b = qfilter::Filter::new(n, p).expect("qfilter");
        let t = theirs(&mut b, n);
        row(&mut md, "qfilter", n, &t);
        md.pop();
        let _ = writeln!(md, " {p} |");
        eprintln!("p = {p}: r {} vs {}", s.r, t.r);
    }
    std::fs::write("results/quotient-space.md", &md).expect("write results/quotient-space.md");
    print!("{md}");
}
