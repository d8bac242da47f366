//! `calc --filter F`: the kind's own details as they read holding n items. `calc` builds the
//! filter empty (its layout is what the kind's sizing rule chose) and inserts nothing, so the
//! rows that describe what a filter holds (items per block, fill, rates at its load) are
//! computed from the library's formulas at n, and the rows that record inserts as they
//! happened (cuckoo kicks and refusals, the largest counter) are left out.

use bloomlab::{AnyFilter, Filter, theory};

/// The details of `built` (sized for `n` items, empty) as they read at `n` items.
#[must_use]
pub fn at_n(built: &AnyFilter, n: u64) -> Vec<(String, String)> {
    let (m, k, nf) = (built.bits(), built.k(), n as f64);
    let per_block = |blocks: u64| format!("{:.2}", nf / blocks.max(1) as f64);
    let rate = |p: f64| format!("{p:.6}");
    let (set, leave_out): (Vec<(&str, String)>, &[&str]) = match built {
        AnyFilter::Standard(f) => {
            let ones = f.shape().expected_ones(nf);
            (
                vec![
                    ("bits set", format!("{ones:.0}")),
                    ("fill", format!("{:.4}", ones / m as f64)),
                ],
                // An estimate of n from the bits set: n itself here.
                &["estimated count"],
            )
        }
        AnyFilter::Counting(f) => {
            let (cells, k) = f.classic_params().unwrap_or((m / 4, k));
            (
                vec![
                    ("fill", format!("{:.4}", theory::expected_fill(cells, n, k))),
                    (
                        "expected saturated (binomial tail, counter >= 15)",
                        format!(
                            "{:.3e}",
                            theory::counting::expected_counters_at_least(cells, n, k, 15)
                        ),
                    ),
                    (
                        "overflow bound (Fan et al., counter >= 16)",
                        format!("{:.3e}", theory::counting::overflow_bound(cells, n, k, 16)),
                    ),
                ],
                &["saturated counters", "max counter"],
            )
        }
        AnyFilter::Blocked(f) => (
            vec![
                ("items per block (mean)", per_block(f.blocks())),
                (
                    "fill",
                    format!("{:.4}", f.shape().expected_ones(nf) / m as f64),
                ),
                (
                    "model fpr, classic inner (Putze et al. as published)",
                    rate(theory::blocked::fpr_blocked(
                        m,
                        n,
                        k,
                        theory::blocked::BLOCK_BITS,
                    )),
                ),
                (
                    "classic fpr at same m,k (standard filter)",
                    rate(theory::fpr_classic(m, n, k)),
                ),
            ],
            &[],
        ),
        AnyFilter::SplitBlock(f) => (
            vec![
                ("items per block (mean)", per_block(f.blocks())),
                (
                    "fill",
                    format!("{:.4}", theory::split_block::expected_fill(m, n)),
                ),
                (
                    "classic fpr at same m, k=8 (standard filter)",
                    rate(theory::fpr_classic(m, n, theory::split_block::WORDS)),
                ),
            ],
            &[],
        ),
        AnyFilter::Scalable(f) => {
            // calc sizes the first layer for n: it holds them all.
            let layer = f.layers().next();
            let (bits, k1) = layer.map_or((m, k), |l| (l.bits(), l.k()));
            let layers = f
                .layer_targets()
                .first()
                .map(|&(cap, p)| format!("{}/{cap} k={k1} P={p:.3e}", n.min(cap)))
                .unwrap_or_default();
            (
                vec![
                    (
                        "compound expected fpr",
                        rate(theory::fpr_classic(bits, n, k1)),
                    ),
                    ("layers (items/capacity, k, rate)", layers),
                ],
                &[],
            )
        }
        AnyFilter::Cuckoo(f) => {
            let slots = f.buckets() * u64::from(f.bucket_size());
            (
                vec![("load factor", format!("{:.4}", nf / slots.max(1) as f64))],
                &["kicks", "longest kick chain", "refused inserts"],
            )
        }
        AnyFilter::Quotient(f) => {
            let load = nf / f.slots().max(1) as f64;
            (
                vec![
                    ("load factor", format!("{load:.4}")),
                    (
                        "bits per item",
                        format!("{:.3}", theory::quotient::bits_per_key(f.r(), load)),
                    ),
                ],
                &[],
            )
        }
        AnyFilter::Xor(_) | AnyFilter::BinaryFuse(_) | AnyFilter::Ribbon(_) => (vec![], &[]),
    };
    let mut d = built.details();
    d.retain(|(key, _)| !leave_out.contains(&key.as_str()));
    for (key, value) in set {
        match d.iter_mut().find(|(k, _)| k == key) {
            Some((_, v)) => *v = value,
            // A row the kind no longer names is added, not lost (the test below sees it).
            None => d.push((key.to_string(), value)),
        }
    }
    d
}

#[cfg(test)]
mod tests {
    use super::super::calc::kind_sizing;
    use bloomlab::FilterKind;

    /// The first number in a detail's value (`"3478 (+3.63%)"` → 3478), if it has one.
    fn first_number(v: &str) -> Option<f64> {
        let start = v.find(|c: char| c.is_ascii_digit() || c == '-')?;
        let tok: String = v[start..]
            .chars()
            .take_while(|c| c.is_ascii_alphanumeric() || matches!(c, '.' | '-' | '+'))
            .collect();
        tok.parse().ok()
    }

    /// Every kind's `calc --filter` details at several (n, p): no NaN anywhere, and no zero
    /// where a filter holding n items cannot have one (an empty filter's zeros were printed for
    /// blocked: `items per block (mean) 0.00`, `fill 0.0000`, two rates `0.000000`).
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
                let s = kind_sizing(kind, n, Some(p), 0, 0).unwrap();
                assert!(!s.details.is_empty(), "{kind}");
                for (key, value) in &s.details {
                    let what = format!("{kind} n={n} p={p}: {key} = {value}");
                    assert!(!value.to_lowercase().contains("nan"), "{what}");
                    assert!(!value.contains("inf"), "{what}");
                    if let Some(x) = first_number(value) {
                        assert!(x.is_finite(), "{what}");
                        assert!(x != 0.0 || may_be_zero.contains(&key.as_str()), "{what}");
                    }
                    rows += 1;
                }
                assert!(
                    s.fpr_model > 0.0 && s.fpr_model < 1.0,
                    "{kind}: {}",
                    s.fpr_model
                );
            }
        }
        assert!(rows > 150, "{rows}");
    }

    #[test]
    fn blocked_details_are_computed_at_n() {
        let s = kind_sizing(FilterKind::Blocked, 10_000, Some(0.01), 0, 0).unwrap();
        let get = |k: &str| {
            s.details
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
        let std_fill = bloomlab::theory::expected_fill(s.m_bits, 10_000, s.k);
        assert!(
            (fill - std_fill).abs() < 0.01 && fill <= std_fill,
            "{fill} {std_fill}"
        );
        let classic: f64 = get("model fpr, classic inner (Putze et al. as published)")
            .parse()
            .unwrap();
        assert!((classic - 0.0098).abs() < 0.001, "{classic}");
    }
}
