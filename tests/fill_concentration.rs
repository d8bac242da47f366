//! Why one filter's fill is close to its mean, measured: the number of set bits over many
//! independently seeded filters has the spread `theory::fill::set_bits_variance` gives, and
//! its tail stays under the bounded-differences bound `theory::fill::empty_bits_tail_bound`.
//! (The book's "Why the fill concentrates" section, in the mathematics chapter.)

use bloomlab::hash::{AnyHasher, AnyStrategy, HashId, StrategyId};
use bloomlab::theory::{self, fill};
use bloomlab::{Filter, StandardBloom};
use statrs::distribution::{ChiSquared, ContinuousCDF};

/// The set-bit counts of `filters` filters of m bits and k positions per item, n items each,
/// every filter with its own hash seed.
fn set_bits(m: u64, n: u64, k: u32, strategy: StrategyId, filters: u64) -> Vec<f64> {
    (0..filters)
        .map(|seed| {
            let mut f = StandardBloom::with_bits_and(
                m,
                k,
                AnyHasher::new(HashId::Xxh3, seed),
                AnyStrategy(strategy),
            )
            .unwrap();
            for i in 0..n {
                f.insert(&(seed * 1_000_003 + i).to_le_bytes());
            }
            f.ones() as f64
        })
        .collect()
}

/// The sample variance of the set-bit counts lies in the 99.9% interval that the exact variance
/// implies for that many filters ((N − 1)·s²/σ² is close to χ² with N − 1 degrees of freedom:
/// the count is a sum of many weakly dependent indicators, near normal), and their mean in its
/// 99.9% interval around `m · expected_fill`. Independent positions (the model's), and the
/// default enhanced double hashing.
#[test]
fn set_bits_spread_is_the_exact_variance() {
    let (m, n, k, filters) = (1_024u64, 100u64, 7u32, 4_000u64);
    let var = fill::set_bits_variance(m, n, k);
    let mean = m as f64 * theory::expected_fill(m, n, k);
    let chi = ChiSquared::new((filters - 1) as f64).unwrap();
    let (lo, hi) = (chi.inverse_cdf(0.0005), chi.inverse_cdf(0.9995));
    let df = (filters - 1) as f64;
    for strategy in [StrategyId::Independent, StrategyId::EnhancedDouble] {
        let x = set_bits(m, n, k, strategy, filters);
        let xm = x.iter().sum::<f64>() / filters as f64;
        let s2 = x.iter().map(|v| (v - xm).powi(2)).sum::<f64>() / df;
        let (v_lo, v_hi) = (df * s2 / hi, df * s2 / lo);
        eprintln!(
            "{strategy}: m={m} n={n} k={k}, {filters} filters: mean set bits {xm:.2} (model \
             {mean:.2}), sd {:.3} (exact {:.3}; 99.9% interval for the variance [{v_lo:.1}, \
             {v_hi:.1}] holds {var:.1})",
            s2.sqrt(),
            var.sqrt()
        );
        assert!(
            v_lo <= var && var <= v_hi,
            "{strategy}: exact variance {var} outside [{v_lo}, {v_hi}]"
        );
        let se = (var / filters as f64).sqrt();
        assert!(
            (xm - mean).abs() < 3.29 * se,
            "{strategy}: mean {xm} vs {mean} ± {}",
            3.29 * se
        );
        // The tail: how often a filter strays 3 sd from the mean, against the bound.
        let t = 3.0 * var.sqrt();
        let share = x.iter().filter(|v| (*v - mean).abs() >= t).count() as f64 / filters as f64;
        let bound = fill::empty_bits_tail_bound(n, k, t);
        eprintln!("{strategy}: |X − E X| ≥ {t:.1} bits in {share:.4} of filters; bound {bound:.4}");
        assert!(share <= bound, "{share} > {bound}");
    }
}

/// The same filter much larger: the spread grows like √m while the mean grows like m, so the
/// fill's relative spread shrinks as 1/√m (the reason the formula describes one filter).
#[test]
fn relative_spread_shrinks_like_one_over_root_m() {
    let ratios: Vec<f64> = [1_000u64, 100_000, 10_000_000]
        .iter()
        .map(|&m| {
            let n = m / 10;
            let k = 7;
            fill::set_bits_variance(m, n, k).sqrt() / (m as f64 * theory::expected_fill(m, n, k))
        })
        .collect();
    for w in ratios.windows(2) {
        // 100× the bits: 1/10 the relative spread (to the third digit).
        assert!((w[0] / w[1] / 10.0 - 1.0).abs() < 1e-3, "{ratios:?}");
    }
}
