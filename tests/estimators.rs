//! Union, intersection, folding and the count estimators on real filters (standard, counting,
//! blocked): set operations checked bit for bit against filters built directly, incompatible
//! filters refused with typed errors, and the estimates' error bars checked statistically.
//!
//! Statistical checks use fixed seeds (every run gives the same numbers) and allow 4 standard
//! errors, as `tests/family_b.rs` does: over T filters the z-scores `(estimate − truth)/std_err`
//! must have a mean within 4/√T of 0 and a standard deviation within 4/√(2T) of 1, so an error
//! bar off by a third, or a bias of a third of one, fails.

use bloomlab::filters::{BlockedBloom, CountingBloom};
use bloomlab::hash::{AnyHasher, AnyStrategy, HashId, StrategyId};
use bloomlab::theory::estimate::Estimate;
use bloomlab::{Error, Filter, Param, StandardBloom};

type Std = StandardBloom<AnyHasher, AnyStrategy>;
type Cnt = CountingBloom<AnyHasher, AnyStrategy>;
type Blk = BlockedBloom<AnyHasher>;

fn std_f(m: u64, k: u32, s: StrategyId, seed: u64) -> Std {
    Std::with_bits_and(m, k, AnyHasher::new(HashId::Xxh3, seed), AnyStrategy(s)).unwrap()
}
fn blk_f(blocks: u64, k: u32, seed: u64) -> Blk {
    Blk::with_blocks_and(blocks, k, AnyHasher::new(HashId::Xxh3, seed)).unwrap()
}
fn cnt_f(m: u64, k: u32, seed: u64) -> Cnt {
    Cnt::with_counters_and(
        m,
        k,
        AnyHasher::new(HashId::Xxh3, seed),
        AnyStrategy(StrategyId::EnhancedDouble),
    )
    .unwrap()
}

fn key(i: u64) -> [u8; 8] {
    i.to_le_bytes()
}

fn fill(f: &mut dyn Filter, keys: std::ops::Range<u64>) {
    for i in keys {
        f.insert(&key(i));
    }
}

#[test]
fn fold_equals_the_filter_of_half_the_bits() {
    for s in [
        StrategyId::Double,
        StrategyId::Independent,
        StrategyId::Guava32,
        StrategyId::Guava64,
        StrategyId::RotateAdd64,
    ] {
        let (mut big, mut half) = (std_f(25_600, 5, s, 7), std_f(12_800, 5, s, 7));
        fill(&mut big, 0..2_000);
        fill(&mut half, 0..2_000);
        let folded = big.fold().unwrap();
        assert_eq!(folded.bit_vec(), half.bit_vec(), "{s:?}");
        assert_eq!((folded.bits(), folded.len()), (12_800, 2_000));
        assert!((0..2_000).all(|i| folded.contains(&key(i))));
        // Twice.
        let quarter = folded.fold().unwrap();
        let mut direct = std_f(6_400, 5, s, 7);
        fill(&mut direct, 0..2_000);
        assert_eq!(quarter.bit_vec(), direct.bit_vec(), "{s:?}");
    }
    let (mut big, mut half) = (blk_f(64, 6, 3), blk_f(32, 6, 3));
    fill(&mut big, 0..3_000);
    fill(&mut half, 0..3_000);
    assert_eq!(big.fold().unwrap().block_slice(), half.block_slice());
}

#[test]
fn fold_refuses_what_it_cannot_halve() {
    for s in [StrategyId::EnhancedDouble, StrategyId::EnhancedDouble64] {
        let e = std_f(10_000, 5, s, 0).fold().unwrap_err();
        assert!(
            matches!(
                e,
                Error::InvalidParameter {
                    param: Param::Other("strategy"),
                    ..
                }
            ),
            "{e}"
        );
    }
    let e = std_f(10_001, 5, StrategyId::Double, 0).fold().unwrap_err();
    assert!(
        matches!(
            e,
            Error::InvalidParameter {
                param: Param::M,
                ..
            }
        ),
        "{e}"
    );
    // Guava: 64·3 bits halve to 96, not whole words.
    let e = std_f(192, 5, StrategyId::Guava64, 0).fold().unwrap_err();
    assert!(
        matches!(
            e,
            Error::InvalidParameter {
                param: Param::M,
                ..
            }
        ),
        "{e}"
    );
    let e = blk_f(3, 6, 0).fold().unwrap_err();
    assert!(
        matches!(
            e,
            Error::InvalidParameter {
                param: Param::M,
                ..
            }
        ),
        "{e}"
    );
}

#[test]
fn union_is_the_filter_of_the_union() {
    let s = StrategyId::EnhancedDouble;
    let (mut a, mut b, mut u) = (
        std_f(20_000, 5, s, 1),
        std_f(20_000, 5, s, 1),
        std_f(20_000, 5, s, 1),
    );
    fill(&mut a, 0..1_000);
    fill(&mut b, 500..2_000);
    fill(&mut u, 0..2_000);
    a.union_with(&b).unwrap();
    assert_eq!(a.bit_vec(), u.bit_vec());
    let (mut a, mut b, mut u) = (blk_f(40, 6, 1), blk_f(40, 6, 1), blk_f(40, 6, 1));
    fill(&mut a, 0..1_000);
    fill(&mut b, 500..2_000);
    fill(&mut u, 0..2_000);
    a.union_with(&b).unwrap();
    assert_eq!(a.block_slice(), u.block_slice());
    // Counting: the sum of counters is the filter of the multiset union (here no saturation).
    let (mut a, mut b, mut u) = (
        cnt_f(20_000, 5, 1),
        cnt_f(20_000, 5, 1),
        cnt_f(20_000, 5, 1),
    );
    fill(&mut a, 0..1_000);
    fill(&mut b, 500..2_000);
    fill(&mut u, 0..1_000);
    fill(&mut u, 500..2_000);
    a.union_with(&b).unwrap();
    assert_eq!(a.counter_array(), u.counter_array());
    assert_eq!(a.len(), 2_500);
}

#[test]
fn intersect_keeps_the_common_items_and_is_fuller_than_their_filter() {
    let s = StrategyId::EnhancedDouble;
    let (mut a, mut b, mut c) = (
        std_f(20_000, 5, s, 2),
        std_f(20_000, 5, s, 2),
        std_f(20_000, 5, s, 2),
    );
    fill(&mut a, 0..2_000);
    fill(&mut b, 1_000..3_000);
    fill(&mut c, 1_000..2_000);
    a.intersect_with(&b).unwrap();
    assert!((1_000..2_000).all(|i| a.contains(&key(i))));
    // Every bit of the intersection's own filter is set in the AND, and more besides.
    let (and, own) = (a.bit_vec().words(), c.bit_vec().words());
    assert!(and.iter().zip(own).all(|(x, y)| x & y == *y));
    assert!(a.ones() > c.ones());
    let (mut a, mut b) = (blk_f(40, 6, 2), blk_f(40, 6, 2));
    fill(&mut a, 0..2_000);
    fill(&mut b, 1_000..3_000);
    a.intersect_with(&b).unwrap();
    assert!((1_000..2_000).all(|i| a.contains(&key(i))));
}

#[test]
fn incompatible_filters_are_refused() {
    let d = StrategyId::Double;
    let mut a = std_f(10_000, 5, d, 1);
    for other in [
        std_f(10_000, 5, d, 2),                       // seed
        std_f(10_000, 6, d, 1),                       // k
        std_f(10_064, 5, d, 1),                       // m
        std_f(10_000, 5, StrategyId::Independent, 1), // strategy
    ] {
        assert!(matches!(a.union_with(&other), Err(Error::Incompatible(_))));
        assert!(matches!(
            a.intersect_with(&other),
            Err(Error::Incompatible(_))
        ));
        assert!(matches!(
            a.estimate_union(&other),
            Err(Error::Incompatible(_))
        ));
        assert!(matches!(
            a.estimate_intersection(&other),
            Err(Error::Incompatible(_))
        ));
    }
    let other =
        Std::with_bits_and(10_000, 5, AnyHasher::new(HashId::Wyhash, 1), AnyStrategy(d)).unwrap();
    assert!(matches!(a.union_with(&other), Err(Error::Incompatible(_))));
    let mut b = blk_f(40, 6, 1);
    for other in [
        blk_f(40, 6, 2),
        blk_f(40, 7, 1),
        blk_f(41, 6, 1),
        blk_f(40, 6, 1).with_layout(0).unwrap(),
    ] {
        assert!(matches!(b.union_with(&other), Err(Error::Incompatible(_))));
        assert!(matches!(
            b.intersect_with(&other),
            Err(Error::Incompatible(_))
        ));
        assert!(matches!(
            b.estimate_intersection(&other),
            Err(Error::Incompatible(_))
        ));
    }
    let mut c = cnt_f(10_000, 5, 1);
    for other in [
        cnt_f(10_000, 5, 2),
        cnt_f(10_000, 4, 1),
        cnt_f(10_002, 5, 1),
    ] {
        assert!(matches!(c.union_with(&other), Err(Error::Incompatible(_))));
        assert!(matches!(
            c.estimate_union(&other),
            Err(Error::Incompatible(_))
        ));
    }
}

/// Mean and standard deviation of the z-scores, asserted against N(0, 1) at 4 standard errors.
fn assert_calibrated(what: &str, z: &[f64]) {
    let t = z.len() as f64;
    let mean = z.iter().sum::<f64>() / t;
    let sd = (z.iter().map(|x| (x - mean) * (x - mean)).sum::<f64>() / (t - 1.0)).sqrt();
    assert!(
        mean.abs() < 4.0 / t.sqrt(),
        "{what}: mean z = {mean:.3} (sd {sd:.3})"
    );
    assert!(
        (sd - 1.0).abs() < 4.0 / (2.0 * t).sqrt(),
        "{what}: sd z = {sd:.3} (mean {mean:.3})"
    );
}

fn z(e: Estimate, truth: f64) -> f64 {
    (e.value - truth) / e.std_err
}

/// T filters of each kind (hash seeds 1..=T) at about 60% fill of its bits: A = keys 0..3000,
/// B = keys 1800..4200 (1200 in common).
#[test]
fn error_bars_are_calibrated_on_real_filters() {
    const T: u64 = 120;
    let (na, nu, ni) = (3_000.0, 4_200.0, 1_200.0);
    let mut zs: [Vec<f64>; 9] = Default::default();
    for seed in 1..=T {
        let (mut a, mut b) = (
            std_f(25_000, 5, StrategyId::EnhancedDouble, seed),
            std_f(25_000, 5, StrategyId::EnhancedDouble, seed),
        );
        fill(&mut a, 0..3_000);
        fill(&mut b, 1_800..4_200);
        zs[0].push(z(a.estimate(), na));
        zs[1].push(z(a.estimate_union(&b).unwrap(), nu));
        zs[2].push(z(a.estimate_intersection(&b).unwrap(), ni));
        let (mut a, mut b) = (cnt_f(25_000, 5, seed), cnt_f(25_000, 5, seed));
        fill(&mut a, 0..3_000);
        fill(&mut b, 1_800..4_200);
        zs[3].push(z(a.estimate(), na));
        zs[4].push(z(a.estimate_union(&b).unwrap(), nu));
        zs[5].push(z(a.estimate_intersection(&b).unwrap(), ni));
        assert_eq!(a.estimate_from_counter_sum(), na);
        let (mut a, mut b) = (blk_f(48, 6, seed), blk_f(48, 6, seed));
        fill(&mut a, 0..3_000);
        fill(&mut b, 1_800..4_200);
        zs[6].push(z(a.estimate(), na));
        zs[7].push(z(a.estimate_union(&b).unwrap(), nu));
        zs[8].push(z(a.estimate_intersection(&b).unwrap(), ni));
    }
    let names = [
        "standard count",
        "standard union",
        "standard intersection",
        "counting count",
        "counting union",
        "counting intersection",
        "blocked count",
        "blocked union",
        "blocked intersection",
    ];
    for (n, z) in names.iter().zip(&zs) {
        assert_calibrated(n, z);
    }
}

/// The blocked correction matters: with k instead of k_eff the blocked count is biased low by
/// 1 − k_eff/k = 0.49% (k = 6), about 2.5 of its standard errors at this size, which the
/// z-score test sees.
#[test]
fn blocked_filter_needs_k_eff() {
    const T: u64 = 60;
    let n = 60_000.0;
    let mut z_keff = Vec::new();
    let mut z_k = Vec::new();
    for seed in 1..=T {
        let mut f = blk_f(1_000, 6, seed);
        fill(&mut f, 0..60_000);
        let e = f.estimate();
        z_keff.push(z(e, n));
        let naive = bloomlab::theory::estimate_count(f.bits(), 6, f.ones());
        z_k.push((naive - n) / e.std_err);
    }
    assert_calibrated("blocked with k_eff", &z_keff);
    let mean_k = z_k.iter().sum::<f64>() / T as f64;
    assert!(mean_k < -1.5, "with k: mean z {mean_k}");
}
