//! The quotient filter against its model and against `qfilter` (a rank-select quotient filter),
//! in one run. Run in release: `nice cargo run --release --example quotient_numbers`.
//!
//! Both filters get 2^20 slots and 8-bit remainders and the same keys (`KeyGen` U64, seed 1),
//! hashed the same way: bloomlab's `Xxh3` computes `xxh3_64` of the key bytes, and qfilter is
//! handed that same `xxh3_64` as its fingerprint (`insert_fingerprint`), so both cut the same
//! 28-bit fingerprints and must give the same answer to every query (checked). Loads 50%, 75%
//! and 95% (n = 524,288, 786,432 and 996,147 keys, about 10^6 at 95%). Times are the best of
//! three rounds, per key, wall clock on a shared machine: read the ratios, not the
//! nanoseconds. Writes `results/quotient.csv`.

use bloomlab::filters::QuotientFilter;
use bloomlab::stats::{Z95, wilson};
use bloomlab::theory::quotient as model;
use bloomlab::workload::{KeyGen, KeyKind};
use bloomlab::{Filter, Removable};
use std::hint::black_box;
use std::io::Write;
use std::time::Instant;

const Q: u32 = 20;
const R: u32 = 8;
const QUERIES: u64 = 2_000_000;
const ROUNDS: usize = 3;

/// Per-key nanoseconds of the best of `ROUNDS` runs of `f` (which does `n` operations).
fn best(n: u64, mut f: impl FnMut() -> u64) -> (f64, u64) {
    let mut best = f64::INFINITY;
    let mut out = 0;
    for _ in 0..ROUNDS {
        let t = Instant::now();
        out = black_box(f());
        best = best.min(t.elapsed().as_nanos() as f64 / n as f64);
    }
    (best, out)
}

fn xxh(k: &[u8]) -> u64 {
    xxhash_rust::xxh3::xxh3_64(k)
}

fn main() -> std::io::Result<()> {
    let keys = KeyGen::new(KeyKind::U64, 1);
    let slots = 1u64 << Q;
    let absent: Vec<Vec<u8>> = (0..QUERIES).map(|j| keys.absent_key(j)).collect();
    let mut csv = String::from(
        "impl,load,n,bits_per_key,fpr,fpr_lo95,fpr_hi95,model,insert_ns,hit_ns,miss_ns,remove_ns\n",
    );
    println!(
        "| impl | load | n | bits/key | FPR [95%] | model | insert ns | hit ns | miss ns | remove ns |"
    );
    println!("|---|---|---|---|---|---|---|---|---|---|");
    for alpha in [0.50, 0.75, 0.95] {
        let n = (alpha * slots as f64).floor() as u64;
        let present: Vec<Vec<u8>> = (0..n).map(|i| keys.present_key(i)).collect();
        let removed = n / 10;

        // ---- bloomlab ----
        let mut ours = QuotientFilter::with_qr(Q, R).expect("filter");
        let (ins, _) = best(n, || {
            ours = QuotientFilter::with_qr(Q, R).expect("filter");
            for k in &present {
                ours.try_insert(k).expect("under the load limit");
            }
            ours.len()
        });
        let (hit, h) = best(n, || {
            present.iter().filter(|k| ours.contains(k)).count() as u64
        });
        assert_eq!(h, n, "false negatives");
        let (miss, fp) = best(QUERIES, || {
            absent.iter().filter(|k| ours.contains(k)).count() as u64
        });
        let model_fpr = ours.expected_fpr();
        let bits = ours.bytes() as f64 * 8.0 / n as f64;
        let answers: Vec<bool> = absent.iter().map(|k| ours.contains(k)).collect();
        let (rem, _) = best(removed, || {
            // A fresh copy each round (its memcpy is timed too, for both filters alike).
            let mut g = ours.clone();
            for k in &present[..removed as usize] {
                g.remove(k).expect("inserted");
            }
            g.len()
        });

        // ---- qfilter ----
        let mk = || qfilter::Filter::with_fingerprint_size(n, (Q + R) as u8).expect("qfilter");
        let mut peer = mk();
        let (pins, _) = best(n, || {
            peer = mk();
            for k in &present {
                peer.insert_fingerprint(true, xxh(k))
                    .expect("under capacity");
            }
            peer.len()
        });
        let (phit, ph) = best(n, || {
            present
                .iter()
                .filter(|k| peer.contains_fingerprint(xxh(k)))
                .count() as u64
        });
        assert_eq!(ph, n, "qfilter false negatives");
        let (pmiss, pfp) = best(QUERIES, || {
            absent
                .iter()
                .filter(|k| peer.contains_fingerprint(xxh(k)))
                .count() as u64
        });
        let same = absent
            .iter()
            .zip(&answers)
            .all(|(k, &a)| peer.contains_fingerprint(xxh(k)) == a);
        let pbits = peer.memory_usage() as f64 * 8.0 / n as f64;
        let (prem, _) = best(removed, || {
            let mut g = peer.clone();
            for k in &present[..removed as usize] {
                assert!(g.remove_fingerprint(xxh(k)));
            }
            g.len()
        });

        for (name, bits, fp, ins, hit, miss, rem, m) in [
            (
                "bloomlab-quotient",
                bits,
                fp,
                ins,
                hit,
                miss,
                rem,
                model_fpr,
            ),
            (
                "qfilter",
                pbits,
                pfp,
                pins,
                phit,
                pmiss,
                prem,
                peer.current_error_ratio(),
            ),
        ] {
            let (lo, hi) = wilson(fp, QUERIES, Z95);
            let rate = fp as f64 / QUERIES as f64;
            println!(
                "| {name} | {alpha:.2} | {n} | {bits:.2} | {rate:.5} [{lo:.5}, {hi:.5}] | {m:.5} | {ins:.1} | {hit:.1} | {miss:.1} | {rem:.1} |"
            );
            csv.push_str(&format!(
                "{name},{alpha},{n},{bits:.4},{rate:.6},{lo:.6},{hi:.6},{m:.6},{ins:.2},{hit:.2},{miss:.2},{rem:.2}\n"
            ));
        }
        println!(
            "| ratio bloomlab/qfilter | {alpha:.2} | | {:.3} | {:.3} | | {:.2} | {:.2} | {:.2} | {:.2} |",
            bits / pbits,
            fp as f64 / pfp.max(1) as f64,
            ins / pins,
            hit / phit,
            miss / pmiss,
            rem / prem
        );
        println!(
            "|  | {alpha:.2} | same answers to all {QUERIES} absent queries: {same}; model 1-e^(-a/2^r) = {:.5}, bits/key (r+3)/a = {:.2}, lower bound log2(1/fpr) = {:.2} | | | | | | | |",
            model::fpr_at_load(R, alpha),
            model::bits_per_key(R, n as f64 / slots as f64),
            model::lower_bound_bits(model_fpr)
        );
    }
    std::fs::create_dir_all("results")?;
    std::fs::File::create("results/quotient.csv")?.write_all(csv.as_bytes())?;
    Ok(())
}
