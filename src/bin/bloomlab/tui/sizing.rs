//! Each filter kind sized by its own rule: the memory Explore shows before measuring, and how
//! many instances the measurement averages. (The spec itself: `state::Params::spec`.)

use bloomlab::{Filter, FilterKind, FilterSpec, theory};

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

/// What the chosen kind allocates for the Explore parameters, before anything is inserted.
#[derive(Debug, Clone, PartialEq)]
pub struct Footprint {
    /// Bits of payload ([`Filter::bits`]).
    pub bits: u64,
    /// Heap bytes ([`Filter::bytes`]): what `bloomlab measure` reports as `bytes`.
    pub bytes: u64,
    /// Positions probed per item ([`Filter::k`]).
    pub k: u32,
}

/// A generous upper bound of the bits `spec` allocates, to refuse building huge filters.
pub fn bits_estimate(spec: &FilterSpec) -> u64 {
    let cell = if spec.kind == FilterKind::Counting {
        4
    } else {
        2
    };
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

/// The memory of `spec` as built: non-static kinds are built empty (`FilterSpec::build`
/// allocates exactly what the filter will use at n items); static kinds (xor, binary fuse,
/// ribbon), which have no empty build, from their table layout in `theory::xor`,
/// `theory::binary_fuse` and `theory::ribbon`.
///
/// # Errors
/// The library's refusal of the parameters, or a filter of more than `max_bits` (estimated),
/// not built here.
pub fn footprint(spec: &FilterSpec, max_bits: u64) -> Result<Footprint, String> {
    let text = |e: bloomlab::Error| e.to_string();
    if spec.kind == FilterKind::Ribbon {
        let n = theory::ribbon::check_keys(theory::check_n(spec.n).map_err(text)?).map_err(text)?;
        let r = match (spec.fingerprint_bits, spec.p) {
            (0, Some(p)) => theory::ribbon::result_bits_for(p).map_err(text)?,
            (r, _) => theory::ribbon::check_result_bits(r).map_err(text)?,
        };
        let bits = theory::ribbon::slots(n) * u64::from(r);
        return Ok(Footprint {
            bits,
            bytes: bits / 8,
            k: 2,
        });
    }
    if spec.kind.caps().static_set {
        let n = theory::xor::check_keys(theory::check_n(spec.n).map_err(text)?).map_err(text)?;
        let f = match (spec.fingerprint_bits, spec.p) {
            (0, Some(p)) => theory::xor::fingerprint_bits_for(p).map_err(text)?,
            (f, _) => theory::xor::check_fingerprint_bits(f).map_err(text)?,
        };
        let slots = if spec.kind == FilterKind::Xor {
            theory::xor::slots(n)
        } else {
            theory::binary_fuse::layout(3, n).2
        };
        return Ok(Footprint {
            bits: slots * u64::from(f),
            bytes: slots * u64::from(f / 8),
            k: 3,
        });
    }
    let est = bits_estimate(spec);
    if est > max_bits {
        return Err(format!(
            "up to {} bits: over {} bits, not built here",
            super::fmt::int(est),
            super::fmt::int(max_bits)
        ));
    }
    let f = spec.build().map_err(text)?;
    Ok(Footprint {
        bits: f.bits(),
        bytes: f.bytes() as u64,
        k: f.k(),
    })
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
