//! `theory::fpr_exact_with_bound` against 400-digit reference values.
//!
//! tests/reference/exact_fpr.csv is written by tests/reference/exact_fpr.py (mpmath, the
//! Stirling form of Bose et al. 2008 with adaptive precision, itself checked against brute-force
//! enumeration and exact rational arithmetic). At every point the library's relative error must
//! be within the bound it returns, and that bound within the documented 10⁻¹⁰.

use bloomlab::theory::{ExactMethod, fpr_exact, fpr_exact_with_bound};

/// The bound stated in `src/theory/exact.rs` for k ≤ 64.
const STATED: f64 = 1e-10;

#[derive(Debug, serde::Deserialize)]
struct Row {
    m: u64,
    n: u64,
    k: u32,
    fpr: String,
    ln_fpr: String,
    label: String,
}

#[test]
fn exact_fpr_matches_high_precision_reference() {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/reference/exact_fpr.csv");
    let mut rdr = csv::Reader::from_path(path).expect("reference CSV");
    let (mut points, mut max_rel, mut max_bound) = (0usize, 0.0f64, 0.0f64);
    let mut worst = String::new();
    let mut methods = [0usize; 3];
    for row in rdr.deserialize::<Row>() {
        let row = row.expect("row");
        let (m, n, k) = (row.m, row.n, row.k);
        let r = fpr_exact_with_bound(m, n, k).unwrap_or_else(|| panic!("no value at {row:?}"));
        assert_eq!(r.value.to_bits(), fpr_exact(m, n, k).to_bits());
        methods[r.method as usize] += 1;
        points += 1;
        let reference: f64 = row.fpr.parse().expect("fpr");
        if row.fpr == "0" {
            assert_eq!(r.value, 0.0, "{row:?}: {r:?}");
            continue;
        }
        // Compare the f64 values where the rate is a normal f64, else the logarithms (both carry
        // ~2⁻⁵³·|ln P| of their own rounding, which is allowed for on top of the bound).
        let (rel, slack) = if reference >= 1e-300 {
            ((r.value - reference).abs() / reference, 2.0 * f64::EPSILON)
        } else {
            let ln_ref: f64 = row.ln_fpr.parse().expect("ln_fpr");
            (
                (r.ln_value - ln_ref).exp_m1().abs(),
                2.0 * f64::EPSILON * ln_ref.abs(),
            )
        };
        assert!(
            rel <= r.rel_error + slack,
            "{row:?}: relative error {rel:e} exceeds the returned bound {:e} ({r:?})",
            r.rel_error
        );
        assert!(
            r.rel_error <= STATED,
            "{row:?}: bound {:e} above {STATED:e}",
            r.rel_error
        );
        if rel > max_rel {
            max_rel = rel;
            worst = format!("m={m} n={n} k={k} ({})", row.label);
        }
        max_bound = max_bound.max(r.rel_error);
    }
    assert!(points >= 300, "only {points} reference points");
    println!(
        "{points} points: max relative error {max_rel:.3e} at {worst}; max returned bound {max_bound:.3e}; \
         closed/inclusion-exclusion/mixture = {methods:?}"
    );
    // The grid exercises both ways of computing the coverage probabilities.
    assert!(
        methods[ExactMethod::InclusionExclusion as usize] > 0
            && methods[ExactMethod::Mixture as usize] > 0
    );
}
