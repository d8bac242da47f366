//! Each kind's theory at (n, p) without building it: the bits, memory and model rate a Compare
//! row shows when its measurement is refused (too big) or still pending. Every number comes
//! from the library's sizing rule and model for the kind, the same ones the filter's
//! constructor and [`bloomlab::Filter::expected_fpr`] use (the tests check them against built
//! filters).

use bloomlab::FilterSpec;

/// The model of one kind at the spec's n and p.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Model {
    /// Payload bits.
    pub bits: u64,
    /// Heap bytes as built ([`bloomlab::Filter::bytes`] of the empty filter).
    pub bytes: u64,
    /// The kind's model false-positive rate holding n items.
    pub fpr: f64,
}

impl Model {
    /// Heap bits per item.
    pub fn bits_per_key(&self, n: u64) -> f64 {
        self.bytes as f64 * 8.0 / n.max(1) as f64
    }
}

/// The model of `spec` (sized from n and p, as Compare sizes every kind): its
/// [`FilterSpec::plan`], the sizing the registry builds.
///
/// # Errors
/// The library's refusal of the parameters, as text.
pub fn model(spec: &FilterSpec) -> Result<Model, String> {
    spec.p.ok_or("no target rate p")?;
    let plan = spec.plan().map_err(|e| e.to_string())?;
    Ok(Model {
        bits: plan.bits,
        bytes: plan.bytes,
        fpr: plan.fpr(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use bloomlab::{Filter, FilterKind};

    /// The model of every kind against a filter built and filled with n keys: the same bits,
    /// the memory within the struct's few bytes, the same model rate (scalable: its rule's
    /// bound at capacity, which the filled filter's fill-based estimate stays under).
    #[test]
    fn every_kind_matches_a_built_filter() {
        for kind in FilterKind::ALL {
            for (n, p) in [(10_000u64, 0.01), (50_000, 0.001)] {
                let spec = FilterSpec::new(kind, n, p);
                let want = model(&spec).unwrap_or_else(|e| panic!("{kind}: {e}"));
                let keys = (0..n).map(u64::to_le_bytes);
                let f = if kind.caps().static_set {
                    spec.build_from(keys).unwrap()
                } else {
                    let mut f = spec.build().unwrap();
                    for k in keys {
                        f.try_insert(&k).unwrap();
                    }
                    f
                };
                assert_eq!(want.bits, f.bits(), "{kind} n {n}");
                let bytes = f.bytes() as u64;
                assert!(
                    want.bytes <= bytes && bytes <= want.bytes + 512,
                    "{kind} n {n}: model {} built {bytes}",
                    want.bytes
                );
                let got = f.expected_fpr();
                if kind.caps().grows {
                    assert!(
                        got <= want.fpr * 1.02,
                        "{kind}: {got} vs bound {}",
                        want.fpr
                    );
                    assert!(got >= want.fpr * 0.5, "{kind}: {got} vs bound {}", want.fpr);
                } else {
                    let rel = (got - want.fpr).abs() / want.fpr;
                    assert!(rel < 1e-9, "{kind} n {n}: model {} built {got}", want.fpr);
                }
            }
        }
    }

    /// The Compare model and Explore's footprint report the plan's bits and rate for every
    /// kind at n ∈ {10^3, 10^5, 10^7} and p ∈ {1%, 0.1%}, and so does `calc --filter`
    /// (`tests/plan_agreement.rs` checks calc and choose through the command, and built
    /// filters).
    #[test]
    fn the_tui_model_is_the_plan_for_every_kind_n_and_p() {
        use crate::tui::sizing;
        for kind in FilterKind::ALL {
            for n in [1_000u64, 100_000, 10_000_000] {
                for p in [0.01, 0.001] {
                    let spec = FilterSpec::new(kind, n, p);
                    let plan = spec.plan().unwrap();
                    let m = model(&spec).unwrap();
                    let what = format!("{kind} n {n} p {p}");
                    assert_eq!((m.bits, m.fpr), (plan.bits, plan.fpr()), "{what}");
                    let fp = sizing::footprint(&spec, sizing::MAX_BUILD_BITS).unwrap();
                    assert_eq!((fp.bits, fp.fpr()), (plan.bits, plan.fpr()), "{what}");
                    let c = crate::cli::calc::kind_sizing(kind, n, Some(p), 0, 0).unwrap();
                    assert_eq!((c.m_bits, c.fpr_model), (plan.bits, plan.fpr()), "{what}");
                }
            }
        }
    }

    /// At n = 10^9 nothing is built (2^33 bits is the most the workbench allocates), yet
    /// every kind has its theory: the standard filter is the articles' 9,585,058,377 bits.
    #[test]
    fn a_billion_items_have_theory_for_every_kind() {
        for kind in FilterKind::ALL {
            let m = model(&FilterSpec::new(kind, 1_000_000_000, 0.01))
                .unwrap_or_else(|e| panic!("{kind}: {e}"));
            assert!(m.fpr > 0.0 && m.fpr <= 0.0101, "{kind}: {}", m.fpr);
            assert!(m.bits_per_key(1_000_000_000) > 6.0, "{kind}");
        }
        let s = model(&FilterSpec::new(FilterKind::Standard, 1_000_000_000, 0.01)).unwrap();
        assert_eq!(s.bits, 9_585_058_377);
        assert_eq!(s.bytes, 1_198_132_304);
    }
}
