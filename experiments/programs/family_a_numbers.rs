//! Numbers for the counting, blocked and split-block filters, measured against their models.
//! Run in release: `cargo run --release --example family_a_numbers` (about a minute).

use bloomlab::filters::SplitBlockBloom;
use bloomlab::measure::{Control, MeasureConfig, measure};
use bloomlab::theory::{self, blocked, split_block};
use bloomlab::workload::{KeyGen, KeyKind};
use bloomlab::{Filter, FilterKind, FilterSpec};

fn main() -> bloomlab::Result<()> {
    let n = 1_000_000u64;
    println!("# FPR at 10 bits per key (m = 10n, n = {n}), 3 trials x 3,000,000 absent queries\n");
    println!(
        "{:<12} {:>9} {:>3} {:>9} {:>21} {:>9} {:>9} {:>9}",
        "filter", "m", "k", "fpr", "95% (mean of trials)", "model", "classic", "exact"
    );
    for kind in [
        FilterKind::Standard,
        FilterKind::Counting,
        FilterKind::Blocked,
        FilterKind::SplitBlock,
    ] {
        let spec = FilterSpec {
            kind,
            n,
            m: Some(10 * n),
            p: None,
            ..FilterSpec::default()
        };
        let mut cfg = MeasureConfig::new(spec, KeyKind::U64);
        cfg.queries = 3_000_000;
        cfg.trials = 3;
        let r = measure(&cfg, &Control::default())?;
        println!(
            "{:<12} {:>9} {:>3} {:>9.5} [{:.5}, {:.5}] {:>9.5} {:>9.5} {:>9.5}",
            r.filter,
            r.m_bits,
            r.k,
            r.fpr,
            r.fpr_ci95[0],
            r.fpr_ci95[1],
            r.theory.model,
            r.theory.classic.unwrap_or(f64::NAN),
            r.theory.exact.unwrap_or(f64::NAN)
        );
        if kind == FilterKind::Blocked {
            println!(
                "{:<12} Putze et al. with the classic inner formula: {:.5}",
                "",
                blocked::fpr_blocked(r.m_bits, n, r.k, 512)
            );
        }
    }

    println!("\n# Blocked sizing under the blocked model (exact inner) vs Guava's m, n = {n}\n");
    println!(
        "{:>8} {:>12} {:>12} {:>3} {:>12} {:>8}",
        "p", "m standard", "m blocked", "k", "extra bits", "extra %"
    );
    for p in [0.1, 0.01, 0.001, 1e-4, 1e-5] {
        let s = blocked::size_for(n, p, None)?;
        println!(
            "{p:>8} {:>12} {:>12} {:>3} {:>12} {:>7.2}%",
            s.m_standard,
            s.m,
            s.k,
            s.extra_bits,
            100.0 * s.extra_fraction()
        );
    }

    println!("\n# Parquet's sizing rule under the split-block model\n");
    println!(
        "{:>8} {:>10} {:>12} {:>8} {:>12} {:>14} {:>12}",
        "target", "spec b/key", "model fpr", "ratio", "needed b/key", "parquet bytes", "fpr there"
    );
    for p in [0.1, 0.05, 0.01, 0.005, 0.001, 1e-4] {
        let u = split_block::parquet_undershoot(n, p)?;
        println!(
            "{p:>8} {:>10.3} {:>12.6} {:>8.3} {:>12.3} {:>14} {:>12.6}",
            u.spec_bits_per_key,
            u.fpr_at_spec_size,
            u.ratio,
            u.needed_bits_per_key,
            u.parquet_bytes,
            u.fpr_at_parquet_bytes
        );
    }

    // Realised: n chosen so the rule's raw size is exactly 1 MiB (no power-of-two rounding).
    let p = 0.01;
    let nn = ((1u64 << 20) as f64 * 8.0 / split_block::spec_bits_per_key(p)).floor() as u64;
    let mut f = SplitBlockBloom::with_parquet_sizing(nn, p)?;
    let g = KeyGen::new(KeyKind::U64, 7);
    let mut buf = Vec::new();
    for i in 0..nn {
        g.present(i, &mut buf);
        f.insert(&buf);
    }
    let q = 5_000_000u64;
    let mut fp = 0u64;
    for j in 0..q {
        g.absent(j, &mut buf);
        fp += u64::from(f.contains(&buf));
    }
    let (lo, hi) = bloomlab::stats::wilson(fp, q, bloomlab::stats::Z95);
    println!(
        "\nParquet-sized filter for n = {nn} at p = {p}: {} bytes, measured FPR {:.5} [{lo:.5}, {hi:.5}], model {:.5}, standard k=8 formula {:.5}",
        f.bytes(),
        fp as f64 / q as f64,
        f.expected_fpr(),
        theory::fpr_classic(f.bits(), nn, 8)
    );
    Ok(())
}
