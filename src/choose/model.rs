//! The model side of `choose`: a candidate's bits and false-positive rate from theory alone
//! (no filter built, no key hashed), and a rough per-kind cost of one lookup from the cache
//! lines it touches. Cheap enough to recompute on every keystroke of a live screen.

use crate::error::Result;
use crate::filter::FilterKind;
use crate::spec::FilterSpec;
use crate::theory;

/// What theory says about one sized candidate.
#[derive(Debug, Clone, Copy, PartialEq, serde::Serialize)]
pub struct ModelPoint {
    /// Payload bits (table, bit array or counters × 4), without the struct's few words.
    pub bits: u64,
    /// `bits / n`.
    pub bits_per_key: f64,
    /// The kind's own model rate with n items stored.
    pub fpr: f64,
    /// Cache lines one query of a present key touches (model).
    pub lines_hit: f64,
    /// Cache lines one query of an absent key touches (model; Bloom kinds stop at the first 0).
    pub lines_miss: f64,
    /// The kind, for its in-cache cost ([`in_cache_ns`]).
    pub kind: FilterKind,
}

/// The model point of `spec` holding `spec.n` keys: its bits and model rate are the spec's
/// [`Plan`](crate::registry::Plan) (the kind's own formula, cited in its theory module, and the
/// sizing the registry builds); `choose` adds only the cache lines a lookup touches.
///
/// # Errors
/// The refusals of [`FilterSpec::plan`] (n, p, m, k, widths out of range).
pub fn model_point(spec: &FilterSpec) -> Result<ModelPoint> {
    let plan = spec.plan()?;
    let n = plan.n;
    // Share of the cells a Bloom query meets set: about 1/2 at the optimum, so an absent key
    // stops after 1/(1 − fill) probes on average.
    let bloom_miss = || {
        let fill = theory::expected_fill(plan.cells, n, plan.k).clamp(0.0, 0.999);
        (1.0 / (1.0 - fill)).min(f64::from(plan.k))
    };
    let (hit, miss) = match spec.kind {
        FilterKind::Standard | FilterKind::Counting | FilterKind::Scalable => {
            (f64::from(plan.k), bloom_miss())
        }
        FilterKind::Blocked | FilterKind::SplitBlock => (1.0, 1.0),
        // A hit finds its fingerprint in the first bucket about half the time.
        FilterKind::Cuckoo => (1.5, 2.0),
        FilterKind::Quotient => (1.2, 1.2),
        FilterKind::Xor => (3.0, 3.0),
        // Fuse slots of one key lie in consecutive segments: fewer distinct lines.
        FilterKind::BinaryFuse => {
            let lines = f64::from(plan.k) - 0.5;
            (lines, lines)
        }
        // Two adjacent 64-row blocks: one or two lines.
        FilterKind::Ribbon => (1.5, 1.5),
        // One line per 512 bits of block (blocks of 4, 8 or 16 words never straddle a line).
        FilterKind::Multiblock => {
            let lines = spec
                .multiblock_shape()?
                .map_or(1.0, |s| s.block_bits().div_ceil(512) as f64);
            (lines, lines)
        }
        // One 32-byte PD, and the spare for the ≈5% of queries above the PD's largest.
        FilterKind::Prefix => {
            let routed = theory::prefix::spare_query_share(
                n as f64 / (plan.cells as f64 / f64::from(theory::prefix::CAPACITY)),
            );
            (1.0 + routed, 1.0 + routed)
        }
    };
    Ok(ModelPoint {
        bits: plan.bits,
        bits_per_key: plan.bits_per_key(),
        fpr: plan.fpr(),
        lines_hit: hit,
        lines_miss: miss,
        kind: spec.kind,
    })
}

/// Nanoseconds of one lookup while the table sits in L1 (hashing, positions and the compare: the
/// part of a lookup no cache level changes), for a present (`hit`) or absent key.
///
/// Measured, not derived: `bloomlab measure --filter KIND --n 1000 --p 0.01 --queries 2000000`
/// (release, dynamic path batched 1000, median of the samples; tables of 1.0–4.8 KB) on the
/// project's 2-core x86-64 machine, 2026-12-02. What they show: ribbon's query is a GF(2) dot
/// product per result bit, so it costs 3.7× a binary fuse query although it touches fewer lines;
/// a standard filter computes k positions, a split-block filter one block mask.
#[must_use]
pub fn in_cache_ns(kind: FilterKind, hit: bool) -> f64 {
    let (h, m) = match kind {
        FilterKind::Standard => (15.8, 20.2),
        FilterKind::Counting => (20.9, 21.3),
        FilterKind::Blocked => (9.4, 8.0),
        FilterKind::SplitBlock => (4.0, 4.2),
        FilterKind::Scalable => (17.7, 21.3),
        FilterKind::Cuckoo => (8.4, 8.6),
        FilterKind::Xor => (7.4, 7.4),
        FilterKind::BinaryFuse => (6.1, 6.4),
        FilterKind::Ribbon => (22.6, 24.2),
        FilterKind::Quotient => (19.4, 18.9),
        // Shape (32, 8), measured 2026-12-07 at load average 22 beside split-block's 3.6/3.6.
        FilterKind::Multiblock => (6.2, 6.2),
        // Measured 2026-12-07 in the same way (3 runs: 13.0–13.1 / 14.2–14.3, beside blocked
        // 10.3 / 7.8–7.9 and cuckoo 8.4–8.6 / 8.4–11.9, so the rows above still hold).
        FilterKind::Prefix => (13.0, 14.3),
    };
    if hit { h } else { m }
}

/// Nanoseconds per cache line touched for a table of `bytes`: batched lookups overlap their
/// misses, so these are effective costs, well below the raw latencies (L1 ≈ 1 ns, L2 ≈ 4 ns,
/// L3 ≈ 15 ns, DRAM ≈ 80 ns). A model for ranking, not a measurement.
#[must_use]
pub fn line_ns(bytes: u64) -> f64 {
    match bytes {
        0..=32_768 => 0.5,
        32_769..=1_048_576 => 1.5,
        1_048_577..=16_777_216 => 5.0,
        _ => 15.0,
    }
}

/// Model nanoseconds of one lookup, present (`hit`) or absent: the kind's in-cache cost
/// ([`in_cache_ns`]) plus, for each line touched, what the table's cache level adds over L1.
#[must_use]
pub fn lookup_ns(point: &ModelPoint, hit: bool) -> f64 {
    let lines = if hit {
        point.lines_hit
    } else {
        point.lines_miss
    };
    in_cache_ns(point.kind, hit) + lines * (line_ns(point.bits / 8) - line_ns(0))
}

/// The kind's model curve for the FPR figure: `(bits/key, fpr)` of `base` re-sized at rates
/// from 0.3 down to 10⁻⁷ (points the kind refuses are skipped; repeated points dropped).
#[must_use]
pub fn model_curve(base: &FilterSpec) -> Vec<(f64, f64)> {
    let mut out: Vec<(f64, f64)> = Vec::new();
    let mut p = 0.3f64;
    while p > 1e-7 {
        let spec = FilterSpec {
            p: Some(p),
            m: None,
            k: None,
            fingerprint_bits: 0,
            ..base.clone()
        };
        if let Ok(pt) = model_point(&spec)
            && out.last() != Some(&(pt.bits_per_key, pt.fpr))
        {
            out.push((pt.bits_per_key, pt.fpr));
        }
        p /= 1.25;
    }
    out.sort_by(|a, b| a.0.total_cmp(&b.0));
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn model_points_agree_with_built_filters() {
        use crate::filter::Filter;
        for kind in FilterKind::ALL {
            let spec = FilterSpec::new(kind, 20_000, 0.01);
            let pt = model_point(&spec).unwrap();
            let f = spec
                .build_from((0..20_000u64).map(u64::to_le_bytes))
                .unwrap();
            let rel = (pt.bits as f64 / f.bits() as f64 - 1.0).abs();
            assert!(
                rel < 0.02,
                "{kind}: model {} bits, built {}",
                pt.bits,
                f.bits()
            );
            assert!(pt.fpr > 0.0 && pt.fpr <= 0.0101, "{kind}: {}", pt.fpr);
        }
    }

    #[test]
    fn lookups_cost_more_in_bigger_tables_and_with_more_lines() {
        let small = model_point(&FilterSpec::new(FilterKind::Standard, 1_000, 0.01)).unwrap();
        let big = model_point(&FilterSpec::new(FilterKind::Standard, 10_000_000, 0.01)).unwrap();
        assert!(lookup_ns(&big, true) > lookup_ns(&small, true));
        let blocked = model_point(&FilterSpec::new(FilterKind::Blocked, 10_000_000, 0.01)).unwrap();
        assert!(lookup_ns(&blocked, true) < lookup_ns(&big, true));
        // In cache the kind's own work decides: ribbon's dot products cost more than a binary
        // fuse filter's three reads, although ribbon touches fewer lines.
        let fuse = model_point(&FilterSpec::new(FilterKind::BinaryFuse, 1_000, 0.01)).unwrap();
        let ribbon = model_point(&FilterSpec::new(FilterKind::Ribbon, 1_000, 0.01)).unwrap();
        assert!(ribbon.lines_hit < fuse.lines_hit);
        assert!(lookup_ns(&ribbon, true) > 3.0 * lookup_ns(&fuse, true));
        let curve = model_curve(&FilterSpec::new(FilterKind::Standard, 100_000, 0.01));
        assert!(curve.len() > 20 && curve.windows(2).all(|w| w[0].1 >= w[1].1));
    }
}
