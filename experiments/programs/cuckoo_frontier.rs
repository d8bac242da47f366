//! The cuckoo filter at its memory frontier: bits per key of the built filter at p = 1%, 0.1%
//! and 0.01% for n = 10^3 … 10^8 against the design formula, the measured false-positive rate
//! with its 95% interval against the model, and the layout it replaced (8/12/16-bit
//! fingerprints, a power-of-two table). Writes `results/cuckoo-frontier.csv` and prints the
//! markdown table of `results/cuckoo-frontier.md`.
//!
//! Run in release: `nice cargo run --release --example cuckoo_frontier` (a few minutes; the
//! 10^8 rows hold about 140 MB).

use bloomlab::filters::CuckooFilter;
use bloomlab::stats::wilson;
use bloomlab::theory::cuckoo as ct;
use bloomlab::workload::{KeyGen, KeyKind};
use bloomlab::{Filter, Result};
use std::fmt::Write as _;

/// Bits per key of the first layout: f the smallest of 8, 12, 16 with f ≥ log2(8/p), buckets
/// the next power of two ≥ n/(4·0.95).
fn old_bits_per_key(n: u64, p: f64) -> Option<f64> {
    let need = (8.0 / p).log2();
    let f = [8u32, 12, 16]
        .into_iter()
        .find(|&f| f64::from(f) >= need - 1e-9)?;
    let buckets = ((n as f64 / 3.8).ceil() as u64).next_power_of_two();
    Some((buckets * 4 * u64::from(f)) as f64 / n as f64)
}

fn main() -> Result<()> {
    let mut csv = String::from(
        "p,n,f,buckets,load,bits_per_key,design_bits_per_key,paper_bits_per_key,old_bits_per_key,queries,false_positives,fpr,fpr_lo95,fpr_hi95,model_fpr,refused\n",
    );
    println!(
        "| p | n | f | buckets | load | bits/key (built) | design ⌈log2(8/p)⌉/0.94 | paper (log2(1/p)+3)/0.95 | old layout | FPR measured [95%] | model |"
    );
    println!("|---|---:|---:|---:|---:|---:|---:|---:|---:|---|---:|");
    for p in [0.01, 0.001, 0.0001] {
        for e in 3..=8 {
            let n = 10u64.pow(e);
            if p < 0.001 && n > 10_000_000 {
                continue;
            }
            let keys = KeyGen::new(KeyKind::U64, 0x5eed + u64::from(e));
            let mut f = CuckooFilter::with_rate(n, p)?;
            let mut buf = Vec::new();
            let mut refused = 0u64;
            for i in 0..n {
                keys.present(i, &mut buf);
                refused += u64::from(f.try_insert(&buf).is_err());
            }
            let queries = 10_000_000u64;
            let mut fp = 0u64;
            for j in 0..queries {
                keys.absent(j, &mut buf);
                fp += u64::from(f.contains(&buf));
            }
            let (lo, hi) = wilson(fp, queries, 1.96);
            let fpr = fp as f64 / queries as f64;
            let bpk = f.bytes() as f64 * 8.0 / n as f64;
            let fb = f.fingerprint_bits();
            let design = f64::from(fb) / ct::design_load(4);
            let paper = ct::bits_per_item(p, 4, ct::TARGET_LOAD);
            let old = old_bits_per_key(n, p);
            let old_s = old.map_or("—".to_string(), |o| format!("{o:.2}"));
            println!(
                "| {p} | {n} | {fb} | {} | {:.4} | {bpk:.2} | {design:.2} | {paper:.2} | {old_s} | {fpr:.3e} [{lo:.3e}, {hi:.3e}] | {:.3e} |",
                f.buckets(),
                f.load_factor(),
                f.expected_fpr(),
            );
            writeln!(
                csv,
                "{p},{n},{fb},{},{:.6},{bpk:.4},{design:.4},{paper:.4},{},{queries},{fp},{fpr:.6e},{lo:.6e},{hi:.6e},{:.6e},{refused}",
                f.buckets(),
                f.load_factor(),
                old.map_or(String::new(), |o| format!("{o:.4}")),
                f.expected_fpr(),
            )
            .expect("string");
            assert_eq!(refused, 0, "n={n} p={p}: {refused} inserts refused");
        }
    }
    println!();
    for b in ct::BUCKET_SIZES {
        let pmin = ct::fpr_approx(32, b);
        let s = ct::sizing(1_000_000, pmin, b, 0)?;
        println!(
            "smallest p at f = 32, b = {b}: 2b/2^32 = {pmin:.3e}; at n = 10^6 the table is {:.2} bits/key, model FPR {:.3e} at load {:.3}",
            s.bits_per_key(1_000_000),
            s.fpr_at(1_000_000),
            s.load(1_000_000),
        );
    }
    std::fs::write("results/cuckoo-frontier.csv", csv).expect("write results/cuckoo-frontier.csv");
    Ok(())
}
