//! Each filter kind sized by its own rule: the memory Explore shows before measuring, and how
//! many instances the measurement averages. (The spec itself: `state::Params::spec`.)

use bloomlab::{FilterSpec, theory};

/// Below this many bits one filter instance is a poor sample of the design (its rate depends
/// on where its few bits fell), so Explore measures [`SMALL_INSTANCES`] of them.
pub const SMALL_M_BITS: u64 = 4096;
/// Independently seeded filters Explore averages when the filter has fewer than
/// [`SMALL_M_BITS`] bits.
pub const SMALL_INSTANCES: u32 = 16;

/// The largest filter (estimated bits) sized by building it: 2^33 bits (1 GiB), the most the
/// workbench builds for a measurement.
pub const MAX_BUILD_BITS: u64 = 1 << 33;
/// The largest filter (estimated bits) sized on the UI thread; larger ones are built empty in
/// the background (zeroing them takes a visible moment).
pub const INLINE_BUILD_BITS: u64 = 1 << 27;

/// What the chosen kind allocates for the Explore parameters, before anything is inserted:
/// the spec's [`bloomlab::registry::Plan`] (bits, bytes as built, k, widths, model rate at any
/// fill), the one sizing the registry builds. Explore caches it in its state.
pub type Footprint = bloomlab::registry::Plan;

/// A generous upper bound of the bits `spec` allocates, to refuse building huge filters.
pub fn bits_estimate(spec: &FilterSpec) -> u64 {
    let cell = if spec.kind.caps().cell_bits > 1 { 4 } else { 2 };
    match spec.m {
        Some(m) => m.saturating_mul(cell),
        None => {
            let bloom = spec
                .p
                .and_then(|p| theory::optimal_bits(spec.n, p).ok())
                .unwrap_or(u64::MAX);
            bloom.saturating_mul(4).max(spec.n.saturating_mul(64))
        }
    }
}

/// The plan of `spec` ([`FilterSpec::plan`]: theory only, nothing is built).
///
/// # Errors
/// The library's refusal of the parameters; a kind that is measured by building it empty
/// (neither a plain bit array nor a static set) over `max_bits` bits, not measured here.
pub fn footprint(spec: &FilterSpec, max_bits: u64) -> Result<Footprint, String> {
    let plan = spec.plan().map_err(|e| e.to_string())?;
    let caps = spec.kind.caps();
    if !caps.bit_array && !caps.static_set && plan.bits > max_bits {
        return Err(format!(
            "{} bits: over {} bits, not built here",
            super::fmt::int(plan.bits),
            super::fmt::int(max_bits)
        ));
    }
    Ok(plan)
}

/// Filters the Explore measurement averages for a filter of `bits` bits.
pub fn instances_for(bits: u64) -> u32 {
    if bits < SMALL_M_BITS {
        SMALL_INSTANCES
    } else {
        1
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tui::state::Params;
    use bloomlab::{Filter, FilterKind};
    const MAX_MEASURE_BITS: u64 = MAX_BUILD_BITS;

    #[test]
    fn unpinned_specs_are_the_librarys_and_static_layouts_match_a_build() {
        for kind in FilterKind::ALL {
            let params = Params {
                kind,
                ..Params::default()
            };
            assert_eq!(
                params.spec(),
                FilterSpec::new(kind, 1_000_000, 0.01),
                "{kind}"
            );
        }
        // Static kinds have no empty build: their layout from theory against a real build.
        for kind in [FilterKind::Xor, FilterKind::BinaryFuse, FilterKind::Ribbon] {
            for (n, p) in [(1_000, 0.01), (10_000, 1e-4), (100_000, 0.01)] {
                let spec = FilterSpec::new(kind, n, p);
                let shown = footprint(&spec, MAX_MEASURE_BITS).unwrap();
                let keys = (0..n).map(u64::to_le_bytes);
                let f = spec.build_from(keys).unwrap();
                assert_eq!(
                    (shown.bits, shown.bytes),
                    (f.bits(), f.bytes() as u64),
                    "{kind}"
                );
            }
        }
    }

    #[test]
    fn pins_pass_only_to_kinds_sized_by_bits() {
        let pinned = |kind| Params {
            kind,
            m_pin: Some(1 << 20),
            k_pin: Some(5),
            ..Params::default()
        };
        let s = pinned(FilterKind::Counting).spec();
        assert_eq!((s.m, s.k), (Some(1 << 20), Some(5)));
        // Split-block fixes k = 8: a pinned k is not passed (it would be refused).
        let s = pinned(FilterKind::SplitBlock).spec();
        assert_eq!((s.m, s.k), (Some(1 << 20), None));
        assert!(footprint(&s, MAX_MEASURE_BITS).is_ok());
        for kind in [
            FilterKind::Cuckoo,
            FilterKind::Scalable,
            FilterKind::Xor,
            FilterKind::Quotient,
        ] {
            let s = pinned(kind).spec();
            assert_eq!((s.m, s.k), (None, None), "{kind}");
        }
    }

    #[test]
    fn small_filters_are_averaged() {
        assert_eq!(instances_for(4095), SMALL_INSTANCES);
        assert_eq!(instances_for(4096), 1);
    }
}
