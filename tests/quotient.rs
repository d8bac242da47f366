//! The quotient filter through the public API: its rate against its model at three loads, the
//! load limit, and what resize and merge do to the answers.

use bloomlab::filters::QuotientFilter;
use bloomlab::stats::wilson;
use bloomlab::theory::quotient as model;
use bloomlab::workload::{KeyGen, KeyKind};
use bloomlab::{Error, Filter, FilterKind, FilterSpec, Removable};

/// z of a two-sided 99.9% interval: three fixed-seed checks, each must hold.
const Z999: f64 = 3.290_526_731_491_926;

/// At loads 50%, 75% and 95% of 2^14 slots with 7-bit remainders, the measured rate of 200,000
/// absent keys lies in the 99.9% Wilson interval around the model `1 − e^(−α/2^r)`; and the
/// model of one bit more or less would not (the check can tell a wrong model).
#[test]
fn measured_fpr_matches_the_model_at_three_loads() {
    let (q, r, queries) = (14u32, 7u32, 200_000u64);
    for (i, alpha) in [0.5, 0.75, 0.95].into_iter().enumerate() {
        let keys = KeyGen::new(KeyKind::U64, 11 + i as u64);
        let mut f = QuotientFilter::with_qr(q, r).unwrap();
        let n = (alpha * f64::from(1u32 << q)).floor() as u64;
        for k in 0..n {
            f.try_insert(&keys.present_key(k)).unwrap();
        }
        let mut buf = Vec::new();
        let mut fp = 0u64;
        for j in 0..queries {
            keys.absent(j, &mut buf);
            fp += u64::from(f.contains(&buf));
        }
        let (lo, hi) = wilson(fp, queries, Z999);
        let m = f.expected_fpr();
        assert!((m - model::fpr_at_load(r, n as f64 / 16_384.0)).abs() < 1e-15);
        eprintln!(
            "load {alpha}: measured {} in [{lo:.5}, {hi:.5}], model {m:.5}",
            fp as f64 / queries as f64
        );
        assert!(
            lo <= m && m <= hi,
            "load {alpha}: model {m} outside [{lo}, {hi}]"
        );
        for wrong in [r - 1, r + 1] {
            let w = model::fpr_at_load(wrong, f.load_factor());
            assert!(w < lo || w > hi, "r = {wrong} would pass too");
        }
    }
}

/// A filter built from a spec refuses inserts past 95% of its slots with `Error::Full`,
/// keeps everything it took, and still removes and answers.
#[test]
fn the_load_limit_refuses_without_losing_anything() {
    let spec = FilterSpec::new(FilterKind::Quotient, 1_000, 0.01);
    let mut f = spec.build().unwrap();
    let mut stored = 0u64;
    let e = loop {
        match f.try_insert(&stored.to_le_bytes()) {
            Ok(()) => stored += 1,
            Err(e) => break e,
        }
    };
    assert!(matches!(e, Error::Full { .. }), "{e}");
    assert_eq!(stored, 1_945); // ⌊0.95 · 2048⌋
    assert_eq!(f.len(), stored);
    assert!((0..stored).all(|i| f.contains(&i.to_le_bytes())));
    f.remove(&0u64.to_le_bytes()).unwrap();
    f.try_insert(b"room again").unwrap();
    assert!((1..stored).all(|i| f.contains(&i.to_le_bytes())));
}

/// Resize keeps every fingerprint, so every query, present or absent, answers exactly as before;
/// filled to the same load again, the model rate doubles (one remainder bit fewer).
#[test]
fn resize_changes_no_answer_and_doubles_the_rate_at_equal_load() {
    let keys = KeyGen::new(KeyKind::U64, 5);
    let mut f = QuotientFilter::with_qr(12, 9).unwrap();
    let n = 3_800;
    for k in 0..n {
        f.insert(&keys.present_key(k));
    }
    let before: Vec<bool> = (0..50_000)
        .map(|j| f.contains(&keys.absent_key(j)))
        .collect();
    let (m0, a0) = (f.expected_fpr(), f.load_factor());
    f.resize().unwrap();
    let after: Vec<bool> = (0..50_000)
        .map(|j| f.contains(&keys.absent_key(j)))
        .collect();
    assert_eq!(before, after);
    assert!(before.iter().any(|&b| b)); // some false positives to compare
    assert!((0..n).all(|k| f.contains(&keys.present_key(k))));
    assert!((f.expected_fpr() - m0).abs() < 1e-6 * m0);
    for k in n..2 * n {
        f.insert(&keys.present_key(k));
    }
    assert!((f.load_factor() - a0).abs() < 1e-12);
    let ratio = f.expected_fpr() / m0;
    assert!((ratio - 2.0).abs() < 0.01, "{ratio}");
}

/// Merging filters built from the same spec works; another seed or shape is a typed error.
#[test]
fn merge_needs_the_same_shape_and_hash() {
    let spec = FilterSpec::new(FilterKind::Quotient, 1_000, 0.01);
    let (mut a, mut b) = (
        QuotientFilter::with_rate(1_000, 0.01).unwrap(),
        QuotientFilter::with_rate(1_000, 0.01).unwrap(),
    );
    for i in 0u64..500 {
        a.insert(&i.to_le_bytes());
        b.insert(&(i + 500).to_le_bytes());
    }
    a.merge(&b).unwrap();
    assert!((0u64..1_000).all(|i| a.contains(&i.to_le_bytes())));
    let other = QuotientFilter::with_rate(1_000, 0.001).unwrap();
    assert!(matches!(a.merge(&other), Err(Error::Incompatible(_))));
    // Removing what was merged in works like removing what was inserted.
    for i in 500u64..1_000 {
        a.remove(&i.to_le_bytes()).unwrap();
    }
    assert!((0u64..500).all(|i| a.contains(&i.to_le_bytes())));
    assert_eq!(a.len(), 500);
    assert_eq!(spec.build().unwrap().kind(), FilterKind::Quotient);
}
