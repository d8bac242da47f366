//! A plan's labelled details: the facts a filter of this layout shows
//! ([`crate::Filter::details`]) as they read holding the n items it is sized for, computed from
//! the kind's formulas (nothing is built or inserted). Rows that record inserts as they happened
//! (cuckoo kicks and refusals, the largest counter, saturated counters) have no value before
//! any insert and are not here.

use super::plan::Layout;
use crate::filters::SplitBlockBloom;
use crate::spec::FilterSpec;
use crate::theory;
use crate::theory::estimate::Shape;
use crate::units::thousands;

type Rows = Vec<(String, String)>;

fn row(label: &str, value: impl ToString) -> (String, String) {
    (label.to_string(), value.to_string())
}

fn rate(p: f64) -> String {
    format!("{p:.6}")
}

/// The details of `layout` (of `bits` payload bits, model rate `fpr` at `n`) holding `n` items.
pub(super) fn at_n(spec: &FilterSpec, layout: &Layout, bits: u64, n: u64, fpr: f64) -> Rows {
    let nf = n as f64;
    let per_block = |blocks: u64| format!("{:.2}", nf / blocks.max(1) as f64);
    match layout {
        Layout::Standard { m, k, .. } => {
            let ones = Shape::standard(*m, *k).expected_ones(nf);
            vec![
                row("bits set", format!("{ones:.0}")),
                row("fill", format!("{:.4}", ones / *m as f64)),
            ]
        }
        Layout::Counting { cells, k } => vec![
            row("counters", cells),
            row(
                "fill",
                format!("{:.4}", theory::expected_fill(*cells, n, *k)),
            ),
            row(
                "expected saturated (binomial tail, counter >= 15)",
                format!(
                    "{:.3e}",
                    theory::counting::expected_counters_at_least(*cells, n, *k, 15)
                ),
            ),
            row(
                "overflow bound (Fan et al., counter >= 16)",
                format!(
                    "{:.3e}",
                    theory::counting::overflow_bound(*cells, n, *k, 16)
                ),
            ),
        ],
        Layout::Blocked { blocks, k, sized } => {
            let bb = theory::blocked::BLOCK_BITS;
            let ones = Shape::blocked(*blocks, *k).expected_ones(nf);
            let mut d = vec![
                row("blocks", blocks),
                row("items per block (mean)", per_block(*blocks)),
                row("fill", format!("{:.4}", ones / bits as f64)),
                row(
                    "model fpr, classic inner (Putze et al. as published)",
                    rate(theory::blocked::fpr_blocked(bits, n, *k, bb)),
                ),
                row(
                    "classic fpr at same m,k (standard filter)",
                    rate(theory::fpr_classic(bits, n, *k)),
                ),
            ];
            if let Some(s) = sized {
                d.push(row("standard-formula bits", s.m_standard));
                d.push(row(
                    "extra bits for blocking",
                    format!("{} ({:+.2}%)", s.extra_bits, 100.0 * s.extra_fraction()),
                ));
            }
            d
        }
        Layout::SplitBlock { blocks } => vec![
            row("blocks", blocks),
            row("items per block (mean)", per_block(*blocks)),
            row(
                "fill",
                format!("{:.4}", theory::split_block::expected_fill(bits, n)),
            ),
            row(
                "parquet-compatible (xxh64, seed 0)",
                if SplitBlockBloom::parquet_hasher(&spec.hasher()) {
                    "yes"
                } else {
                    "no"
                },
            ),
            row(
                "hot path",
                if crate::filters::avx2::avx2_available() {
                    "avx2 (detected at run time)"
                } else {
                    "portable"
                },
            ),
            row(
                "classic fpr at same m, k=8 (standard filter)",
                rate(theory::fpr_classic(bits, n, theory::split_block::WORDS)),
            ),
        ],
        Layout::Scalable { params, k, .. } => {
            let (p, r) = (params.p, params.tightening);
            let p0 = theory::scalable::first_layer_rate(p, r);
            let cap = params.initial_capacity;
            vec![
                row("layers", 1),
                row("capacity", cap),
                row("compound expected fpr", rate(fpr)),
                row(
                    "compound bound",
                    rate(theory::scalable::compound_bound(p0, r)),
                ),
                row("growth", params.growth),
                row("tightening", params.tightening),
                row("nonscaling", params.nonscaling),
                row("probes per absent query", k),
                row(
                    "layers (items/capacity, k, rate)",
                    format!("{}/{cap} k={k} P={p0:.3e}", n.min(cap)),
                ),
            ]
        }
        Layout::Cuckoo(s) => {
            let (f, b) = (s.fingerprint_bits, s.bucket_size);
            vec![
                row("buckets", s.buckets),
                row("bucket size", b),
                row("fingerprint bits", f),
                row("load factor", format!("{:.4}", s.load(n))),
                row("fpr bound 2b/2^f", rate(theory::cuckoo::fpr_approx(f, b))),
            ]
        }
        Layout::Quotient { q, r } => {
            let slots = 1u64 << q;
            let load = nf / slots as f64;
            vec![
                row("slots", slots),
                row("quotient bits", q),
                row("remainder bits", r),
                row("load factor", format!("{load:.4}")),
                row(
                    "load limit",
                    format!("{:.4}", theory::quotient::DEFAULT_MAX_LOAD),
                ),
                row(
                    "bits per item",
                    format!("{:.3}", theory::quotient::bits_per_key(*r, load)),
                ),
            ]
        }
        Layout::Prefix(s) => theory::prefix::detail_rows(s.pds, n, s.spare_capacity),
        Layout::Xor { f } => vec![
            row("fingerprint bits", f),
            row("slots", thousands(theory::xor::slots(n))),
        ],
        Layout::BinaryFuse { f, arity } => vec![
            row("fingerprint bits", f),
            row("arity", arity),
            row("slots", thousands(theory::binary_fuse::layout(*arity, n).2)),
        ],
        Layout::Ribbon { r } => vec![
            row("result bits", r),
            row("rows", thousands(theory::ribbon::slots(n))),
            row(
                "overhead",
                format!("{:.1}%", 100.0 * theory::ribbon::overhead(n)),
            ),
        ],
        Layout::Multiblock { shape, blocks } => {
            let mut d = crate::filters::multiblock::shape_details(*shape, *blocks, n);
            let fill = theory::multiblock::expected_fill(*shape, *blocks, n);
            d.push(row("fill", format!("{fill:.4}")));
            d
        }
    }
}

#[cfg(test)]
mod tests {
    use crate::{Filter, FilterKind, FilterSpec};

    /// The first number in a detail's value (`"3478 (+3.63%)"` → 3478), if it has one.
    fn first_number(v: &str) -> Option<f64> {
        let start = v.find(|c: char| c.is_ascii_digit() || c == '-')?;
        let tok: String = v[start..]
            .chars()
            .take_while(|c| c.is_ascii_alphanumeric() || matches!(c, '.' | '-' | '+'))
            .collect();
        tok.parse().ok()
    }

    /// Every kind's plan details at several (n, p): no NaN anywhere, and no zero where a filter
    /// holding n items cannot have one (an empty filter's zeros were printed for blocked:
    /// `items per block (mean) 0.00`, `fill 0.0000`, two rates `0.000000`).
    #[test]
    fn every_kinds_details_at_n_have_no_zero_or_nan() {
        // Rows that may be 0 for a filled filter: none today; a row added here says why.
        let may_be_zero: [&str; 0] = [];
        let mut rows = 0;
        for kind in FilterKind::ALL {
            for (n, p) in [
                (10_000u64, 0.01),
                (1_000, 0.001),
                (1_000_000, 0.05),
                (37, 0.2),
            ] {
                let plan = FilterSpec::new(kind, n, p).plan().unwrap();
                assert!(!plan.details.is_empty(), "{kind}");
                for (key, value) in &plan.details {
                    let what = format!("{kind} n={n} p={p}: {key} = {value}");
                    assert!(!value.to_lowercase().contains("nan"), "{what}");
                    assert!(!value.contains("inf"), "{what}");
                    if let Some(x) = first_number(value) {
                        assert!(x.is_finite(), "{what}");
                        assert!(x != 0.0 || may_be_zero.contains(&key.as_str()), "{what}");
                    }
                    rows += 1;
                }
            }
        }
        assert!(rows > 150, "{rows}");
    }

    #[test]
    fn blocked_details_are_computed_at_n() {
        let plan = FilterSpec::new(FilterKind::Blocked, 10_000, 0.01)
            .plan()
            .unwrap();
        let get = |k: &str| {
            plan.details
                .iter()
                .find(|(key, _)| key == k)
                .map(|(_, v)| v.clone())
                .unwrap()
        };
        let blocks: f64 = get("blocks").parse().unwrap();
        assert_eq!(
            get("items per block (mean)"),
            format!("{:.2}", 10_000.0 / blocks)
        );
        // Fill near the standard filter's 1 − e^(−kn/m) (blocks fill a little less: repeats).
        let fill: f64 = get("fill").parse().unwrap();
        let std_fill = crate::theory::expected_fill(plan.bits, 10_000, plan.k);
        assert!(
            (fill - std_fill).abs() < 0.01 && fill <= std_fill,
            "{fill} {std_fill}"
        );
        let classic: f64 = get("model fpr, classic inner (Putze et al. as published)")
            .parse()
            .unwrap();
        assert!((classic - 0.0098).abs() < 0.001, "{classic}");
    }

    /// The rows a filled filter shows, the plan shows with the same labels (less the rows that
    /// record inserts as they happen), and the layout rows with the same values.
    #[test]
    fn plan_rows_are_a_filled_filters_rows() {
        let history = [
            "saturated counters",
            "max counter",
            "kicks",
            "longest kick chain",
            "refused inserts",
            "estimated count",
        ];
        for kind in FilterKind::ALL {
            let n = 5_000u64;
            let spec = FilterSpec::new(kind, n, 0.01);
            let plan = spec.plan().unwrap();
            let f = spec.build_from((0..n).map(u64::to_le_bytes)).unwrap();
            let built: Vec<_> = f
                .details()
                .into_iter()
                .filter(|(k, _)| !history.contains(&k.as_str()))
                .collect();
            if kind.caps().static_set || kind.caps().bit_array {
                continue; // Their plan rows are the layout's (the filter shows the peeling).
            }
            let labels = |d: &[(String, String)]| d.iter().map(|r| r.0.clone()).collect::<Vec<_>>();
            assert_eq!(labels(&plan.details), labels(&built), "{kind}");
            for ((label, planned), (_, got)) in plan.details.iter().zip(&built) {
                let layout = !matches!(label.as_str(), "fill" | "compound expected fpr");
                if layout {
                    assert_eq!(planned, got, "{kind}: {label}");
                }
            }
        }
    }
}
