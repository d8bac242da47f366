//! Each kind's theory at (n, p) without building it: the bits, memory and model rate a Compare
//! row shows when its measurement is refused (too big) or still pending. Every number comes
//! from the library's sizing rule and model for the kind, the same ones the filter's
//! constructor and [`bloomlab::Filter::expected_fpr`] use (the tests check them against built
//! filters).

use bloomlab::filters::ScalableBloom;
use bloomlab::hash::{AnyHasher, AnyStrategy, IndexStrategy};
use bloomlab::{FilterKind, FilterSpec, theory};

use super::sizing;

/// The model of one kind at the spec's n and p.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Model {
    /// Payload bits.
    pub bits: u64,
    /// Heap bytes of the payload (whole 64-bit words; the few bytes of a filter's own struct
    /// are not counted).
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

fn words_bytes(bits: u64) -> u64 {
    bits.div_ceil(64).saturating_mul(8)
}

/// The model of `spec` (sized from n and p, as Compare sizes every kind).
///
/// # Errors
/// The library's refusal of the parameters, as text.
pub fn model(spec: &FilterSpec) -> Result<Model, String> {
    let text = |e: bloomlab::Error| e.to_string();
    let n = theory::check_n(spec.n).map_err(text)?;
    let p = spec.p.ok_or("no target rate p")?;
    let strategy = AnyStrategy(spec.strategy);
    Ok(match spec.kind {
        FilterKind::Standard | FilterKind::Counting => {
            let s = spec.bloom_sizing().map_err(text)?;
            if spec.kind == FilterKind::Standard {
                let m = strategy.round_bits(s.m);
                Model {
                    bits: m,
                    bytes: words_bytes(m),
                    fpr: theory::fpr_classic(m, n, s.k),
                }
            } else {
                // Four-bit counters, two to a byte: m counters, 4m bits.
                let bits = s.m.saturating_mul(4);
                Model {
                    bits,
                    bytes: bits.div_ceil(8),
                    fpr: theory::counting::fpr_counting(s.m, n, s.k),
                }
            }
        }
        FilterKind::Blocked => {
            let s = theory::blocked::size_for(n, p, spec.k).map_err(text)?;
            Model {
                bits: s.m,
                bytes: s.m / 8,
                fpr: theory::blocked::fpr_blocked_exact(s.m, n, s.k, theory::blocked::BLOCK_BITS),
            }
        }
        FilterKind::SplitBlock => {
            let blocks = theory::split_block::blocks_for(n, p).map_err(text)?;
            let m = blocks.saturating_mul(256);
            Model {
                bits: m,
                bytes: m / 8,
                fpr: theory::split_block::fpr_split_block(m, n),
            }
        }
        FilterKind::Scalable => {
            // n items fill exactly the first layer (capacity n): its bits and its rule's rate.
            let params = bloomlab::filters::ScalableParams {
                initial_capacity: n,
                p,
                growth: spec.growth,
                tightening: spec.tightening,
                nonscaling: spec.nonscaling,
            };
            let rule = ScalableBloom::<AnyHasher, AnyStrategy>::rule(strategy);
            let (m, k, _) =
                ScalableBloom::<AnyHasher, AnyStrategy>::expected_layer(&params, strategy, 0, rule)
                    .map_err(text)?;
            Model {
                bits: m,
                bytes: words_bytes(m),
                fpr: rule.rate(m, n, k),
            }
        }
        FilterKind::Cuckoo => {
            let s = theory::cuckoo::sizing(n, p, spec.bucket_size, spec.fingerprint_bits)
                .map_err(text)?;
            let (f, b) = (s.fingerprint_bits, s.bucket_size);
            Model {
                bits: theory::cuckoo::table_bits(s.buckets, f, b).map_err(text)?,
                bytes: theory::cuckoo::table_bytes(s.buckets, f, b).map_err(text)?,
                fpr: s.fpr_at(n),
            }
        }
        FilterKind::Quotient => {
            let (q, r) = theory::quotient::sizing(
                n,
                Some(p),
                spec.fingerprint_bits,
                theory::quotient::DEFAULT_MAX_LOAD,
            )
            .map_err(text)?;
            let slots = 1u64 << q;
            let bits = slots.saturating_mul(u64::from(r + theory::quotient::METADATA_BITS));
            Model {
                bits,
                bytes: words_bytes(bits),
                fpr: theory::quotient::fpr_at_load(r, n as f64 / slots as f64),
            }
        }
        FilterKind::Xor | FilterKind::BinaryFuse | FilterKind::Ribbon => {
            let fp = sizing::footprint(spec, 0)?;
            let width = u32::try_from(fp.bits / table_slots(spec.kind, n)).unwrap_or(u32::MAX);
            let fpr = match spec.kind {
                FilterKind::Xor => theory::xor::fpr(width),
                FilterKind::BinaryFuse => theory::binary_fuse::fpr(width),
                _ => theory::ribbon::fpr(width),
            };
            Model {
                bits: fp.bits,
                bytes: fp.bytes,
                fpr,
            }
        }
    })
}

/// Slots of a static kind's table for n keys (as `sizing::footprint` lays it out).
fn table_slots(kind: FilterKind, n: u64) -> u64 {
    match kind {
        FilterKind::Xor => theory::xor::slots(n),
        FilterKind::BinaryFuse => theory::binary_fuse::layout(3, n).2,
        _ => theory::ribbon::slots(n),
    }
    .max(1)
}

#[cfg(test)]
mod tests {
    use super::*;
    use bloomlab::Filter;

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
                if kind == FilterKind::Scalable {
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
