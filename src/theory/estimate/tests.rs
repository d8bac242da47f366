//! Reference values (computed independently with Python's mpmath, 30 digits) and Monte Carlo
//! checks of the delta-method variances against the model they are derived from.

use super::*;
use crate::hash::{mix64, reduce};

/// Reference values from mpmath: `-(m/k)·ln(1 − X/m)` and `512·(1 − (511/512)^k)`.
#[test]
fn reference_values() {
    let e = count(&Shape::standard(1000, 5), 400);
    assert!((e.value - 102.165_124_753_198).abs() < 1e-9, "{}", e.value);
    let e = count(&Shape::standard(10_000, 4), 3_000);
    assert!((e.value - 891.687_359_846_831).abs() < 1e-9, "{}", e.value);
    for (k, want) in [
        (6, 5.970_779_307_273_89),
        (7, 6.959_117_628_939_37),
        (8, 7.945_525_602_320_34),
    ] {
        let got = Shape::blocked(1, k).k_eff();
        assert!((got - want).abs() < 1e-12, "k={k}: {got}");
    }
    // Blocked, B = 100, k = 6, 20,000 of 51,200 bits set: −(B/q)·ln(1 − X/M) = 4247.428397710495
    let e = count(&Shape::blocked(100, 6), 20_000);
    assert!((e.value - 4_247.428_397_710_49).abs() < 1e-8, "{}", e.value);
    // It agrees with the standard formula with k replaced by k_eff.
    let sb = crate::theory::estimate_count(51_200, 6, 20_000) * 6.0 / 5.970_779_307_273_89;
    assert!((e.value / sb - 1.0).abs() < 1e-12);
    // Empty and full.
    assert_eq!(count(&Shape::standard(100, 3), 0).value, 0.0);
    assert!(count(&Shape::standard(100, 3), 100).value.is_infinite());
    assert!(
        intersection(&Shape::standard(100, 3), 100, 5, 100)
            .value
            .is_nan()
    );
}

#[test]
fn standard_variance_is_the_occupancy_variance_not_the_binomial_one() {
    // Var n̂ ≈ (m/k²)(e^θ − 1 − θ) (occupancy); with independent bits it would be (m/k²)(e^θ − 1).
    let (m, k) = (1_000_000u64, 7u32);
    for n in [10_000.0, 100_000.0, 200_000.0] {
        let t = f64::from(k) * n / m as f64;
        let occ = (m as f64 / 49.0 * (t.exp() - 1.0 - t)).sqrt();
        let sd = count_std_err(&Shape::standard(m, k), n);
        assert!((sd / occ - 1.0).abs() < 1e-4, "n={n}: {sd} vs {occ}");
    }
    // k = 1 has no pair term.
    assert_eq!(Shape::standard(100, 1).pair_excess(), 0.0);
    assert!(Shape::blocked(1, 1).pair_excess().abs() < 1e-18);
}

#[test]
fn intersection_spread_at_the_limits() {
    // Sets equal (a = b = 0): the three zero counts are one and the same, the estimate is the
    // count estimate n̂(A) + n̂(A) − n̂(A) = n̂(A), with its spread.
    let sh = Shape::standard(100_000, 5);
    let same = intersection_std_err(&sh, 0.0, 0.0, 5_000.0);
    assert!(
        (same / count_std_err(&sh, 5_000.0) - 1.0).abs() < 1e-9,
        "{same}"
    );
    // Disjoint and one set empty: the estimate n̂(A) + n̂(∅) − n̂(A) is exactly 0 as well.
    assert!(intersection_std_err(&sh, 5_000.0, 0.0, 0.0) < 1e-6);
    // Two disjoint non-empty sets: positive spread.
    assert!(intersection_std_err(&sh, 5_000.0, 5_000.0, 0.0) > 10.0);
}

/// SplitMix-style stream.
struct Rng(u64);
impl Rng {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        mix64(self.0)
    }
}

/// Insert `n` model items (distinct positions for a standard shape, independent lanes for a
/// blocked one) into `bits`.
fn insert_model(sh: &Shape, bits: &mut [bool], n: u64, rng: &mut Rng) {
    let s = sh.block_bits;
    for _ in 0..n {
        let base = reduce(rng.next(), sh.blocks) * s;
        let mut pos = [u64::MAX; 64];
        for j in 0..sh.k as usize {
            let mut p = reduce(rng.next(), s);
            while sh.distinct && pos[..j].contains(&p) {
                p = reduce(rng.next(), s);
            }
            pos[j] = p;
            bits[(base + p) as usize] = true;
        }
    }
}

fn ones(b: &[bool]) -> u64 {
    b.iter().filter(|&&x| x).count() as u64
}

fn mean_sd(v: &[f64]) -> (f64, f64) {
    let n = v.len() as f64;
    let m = v.iter().sum::<f64>() / n;
    (
        m,
        (v.iter().map(|x| (x - m) * (x - m)).sum::<f64>() / (n - 1.0)).sqrt(),
    )
}

/// The model standard deviation matches the spread of simulated estimates within 4 standard
/// errors of a sample SD (≈ 1/√(2T) relative), and the mean is within 4 standard errors of the
/// truth. Fixed seeds: the numbers are the same on every run.
#[test]
fn count_spread_matches_simulation_standard_and_blocked() {
    const T: usize = 300;
    let tol = 4.0 / (2.0 * T as f64).sqrt();
    for (sh, n) in [
        (Shape::standard(20_000, 5), 2_800u64),
        (Shape::blocked(40, 6), 3_000),
        (Shape::blocked(40, 8), 6_000),
    ] {
        let mut rng = Rng(0x5eed ^ n);
        let mut est = Vec::new();
        for _ in 0..T {
            let mut bits = vec![false; sh.bits() as usize];
            insert_model(&sh, &mut bits, n, &mut rng);
            est.push(count(&sh, ones(&bits)).value);
        }
        let (mean, sd) = mean_sd(&est);
        let pred = count_std_err(&sh, n as f64);
        assert!(
            (sd / pred - 1.0).abs() < tol,
            "{sh:?} n={n}: sd {sd} vs model {pred}"
        );
        assert!(
            (mean - n as f64).abs() < 4.0 * pred / (T as f64).sqrt(),
            "{sh:?}: mean {mean}"
        );
    }
}

#[test]
fn blocked_spread_exceeds_the_standard_filters() {
    // The same m, n and k: the blocked estimate is noisier (block loads vary), but only a
    // little: at 100 items a block the loads vary by ±10%, and most of that is averaged away.
    let (b, k, n) = (200u64, 6u32, 20_000.0);
    let blocked = count_std_err(&Shape::blocked(b, k), n);
    let standard = count_std_err(&Shape::standard(b * 512, k), n);
    let r = blocked / standard;
    assert!(r > 1.0 && r < 1.05, "{blocked} vs {standard}");
}

#[test]
fn intersection_spread_matches_simulation() {
    const T: usize = 300;
    let tol = 4.0 / (2.0 * T as f64).sqrt();
    for (sh, a, b, c) in [
        (Shape::standard(30_000, 5), 1_000u64, 1_500u64, 1_000u64),
        (Shape::blocked(60, 6), 1_000, 1_500, 1_000),
    ] {
        let mut rng = Rng(0xface ^ a ^ sh.blocks);
        let (mut inter, mut uni) = (Vec::new(), Vec::new());
        for _ in 0..T {
            let m = sh.bits() as usize;
            let (mut fa, mut fb, mut fc) = (vec![false; m], vec![false; m], vec![false; m]);
            insert_model(&sh, &mut fa, a, &mut rng);
            insert_model(&sh, &mut fb, b, &mut rng);
            insert_model(&sh, &mut fc, c, &mut rng);
            let a_bits: Vec<bool> = fa.iter().zip(&fc).map(|(x, y)| *x || *y).collect();
            let b_bits: Vec<bool> = fb.iter().zip(&fc).map(|(x, y)| *x || *y).collect();
            let or: Vec<bool> = a_bits.iter().zip(&b_bits).map(|(x, y)| *x || *y).collect();
            inter.push(intersection(&sh, ones(&a_bits), ones(&b_bits), ones(&or)).value);
            uni.push(union(&sh, ones(&or)).value);
        }
        let (mean, sd) = mean_sd(&inter);
        let pred = intersection_std_err(&sh, a as f64, b as f64, c as f64);
        assert!(
            (sd / pred - 1.0).abs() < tol,
            "{sh:?}: sd {sd} vs model {pred}"
        );
        assert!(
            (mean - c as f64).abs() < 4.0 * pred / (T as f64).sqrt(),
            "mean {mean}"
        );
        let (umean, usd) = mean_sd(&uni);
        let upred = count_std_err(&sh, (a + b + c) as f64);
        assert!(
            (usd / upred - 1.0).abs() < tol,
            "{sh:?}: union sd {usd} vs {upred}"
        );
        assert!((umean - (a + b + c) as f64).abs() < 4.0 * upred / (T as f64).sqrt());
    }
}
