//! [`FilterSpec::plan`]: what a spec costs before anything is built — its bits, bytes, k, the
//! widths it chose and its model rate at any fill — from one exhaustive `match` over the kinds
//! whose arms call the kind's own [`theory`] module. The same sizing is what
//! [`AnyFilter::build_with`](super::AnyFilter::build_with) constructs (it reads the plan's
//! layout), so `calc`, `choose`, the TUI and the experiments cannot disagree with a built filter.
//!
//! The width rules (a static kind's fingerprint width, ribbon's result width, binary fuse's
//! arity, which kinds take m and k) live here too, once.

use crate::error::{Error, Param, Result};
use crate::filter::{FilterKind, Sizing, Width};
use crate::filters::{ScalableBloom, ScalableParams};
use crate::hash::{AnyHasher, AnyStrategy, IndexStrategy};
use crate::spec::FilterSpec;
use crate::theory;

/// The widths a plan chose (each `None` where the kind has no such width).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, serde::Serialize)]
pub struct Widths {
    /// Bits per stored entry, meaning what the kind's [`Width`] says: a cuckoo or static
    /// fingerprint, a quotient remainder, a ribbon result.
    pub fingerprint_bits: Option<u32>,
    /// Slots per key of a binary fuse filter (3 or 4).
    pub arity: Option<u32>,
    /// Slots per cuckoo bucket (2, 4 or 8).
    pub bucket_size: Option<u32>,
}

/// What one spec costs, from theory alone: see the module docs.
#[derive(Debug, Clone, PartialEq)]
pub struct Plan {
    /// The kind.
    pub kind: FilterKind,
    /// The items it is sized for (`spec.n`).
    pub n: u64,
    /// Payload bits, as [`crate::Filter::bits`] reports them once built (scalable: its first
    /// layer, which holds the n items).
    pub bits: u64,
    /// Heap bytes, as [`crate::Filter::bytes`] reports them once built (empty; scalable: its
    /// first layer and its list of layers).
    pub bytes: u64,
    /// Positions probed per item ([`crate::Filter::k`]).
    pub k: u32,
    /// Cells the positions index: bits (standard, blocked, split-block, scalable's first
    /// layer), counters (counting), slots (cuckoo, quotient, static tables).
    pub cells: u64,
    /// The widths chosen.
    pub widths: Widths,
    /// Labelled facts for display, as a filter of this layout reads holding n items
    /// (`calc --filter` prints them).
    pub details: Vec<(String, String)>,
    pub(super) layout: Layout,
}

/// What the registry constructs: the kind's own sizing result.
#[derive(Debug, Clone, PartialEq)]
pub(super) enum Layout {
    Standard {
        m: u64,
        k: u32,
        strategy: AnyStrategy,
    },
    Counting {
        cells: u64,
        k: u32,
    },
    Blocked {
        blocks: u64,
        k: u32,
        /// From (n, p): the search's result, which the filter keeps for its details.
        sized: Option<theory::blocked::BlockedSizing>,
    },
    SplitBlock {
        blocks: u64,
    },
    Scalable {
        params: ScalableParams,
        m: u64,
        k: u32,
        rule: theory::scalable::Rule,
        strategy: AnyStrategy,
    },
    Cuckoo(theory::cuckoo::Sizing),
    Quotient {
        q: u32,
        r: u32,
    },
    Xor {
        f: u32,
    },
    BinaryFuse {
        f: u32,
        arity: u32,
    },
    Ribbon {
        r: u32,
    },
    Multiblock {
        shape: theory::multiblock::Shape,
        blocks: u64,
    },
    Prefix(theory::prefix::Sizing),
}

impl Plan {
    /// The kind's own model false-positive rate holding `n` items (the formula the built
    /// filter's [`crate::Filter::expected_fpr`] uses; scalable: its layers' rule rates,
    /// compounded, as it grows past its first capacity; static kinds: `2^−f` at any n).
    #[must_use]
    pub fn fpr_at(&self, n: u64) -> f64 {
        match &self.layout {
            Layout::Standard { m, k, strategy } => {
                crate::filters::standard::model_fpr(strategy.id(), *m, n, *k)
            }
            Layout::Counting { cells, k } => theory::counting::fpr_counting(*cells, n, *k),
            Layout::Blocked { k, .. } => {
                theory::blocked::fpr_blocked_exact(self.bits, n, *k, theory::blocked::BLOCK_BITS)
            }
            Layout::SplitBlock { .. } => theory::split_block::fpr_split_block(self.bits, n),
            Layout::Scalable {
                params,
                m,
                k,
                rule,
                strategy,
            } => scalable_fpr(params, (*m, *k), *rule, *strategy, n),
            Layout::Cuckoo(s) => s.fpr_at(n),
            Layout::Quotient { r, .. } => {
                theory::quotient::fpr_at_load(*r, n as f64 / self.cells.max(1) as f64)
            }
            Layout::Xor { f } => theory::xor::fpr(*f),
            Layout::BinaryFuse { f, .. } => theory::binary_fuse::fpr(*f),
            Layout::Ribbon { r } => theory::ribbon::fpr(*r),
            Layout::Multiblock { shape, .. } => {
                theory::multiblock::fpr_multiblock(*shape, self.bits, n)
            }
            Layout::Prefix(s) => s.fpr_at(n),
        }
    }

    /// The model rate at the design n: `fpr_at(n)`.
    #[must_use]
    pub fn fpr(&self) -> f64 {
        self.fpr_at(self.n)
    }

    /// `log2(1/ε)` bits per key at the design rate ε = [`Plan::fpr`]: no filter of that rate
    /// can use fewer (Carter et al. 1978).
    #[must_use]
    pub fn lower_bound_bits_per_key(&self) -> f64 {
        theory::lower_bound_bits_per_key(self.fpr())
    }

    /// Payload bits per design item, `bits / n`.
    #[must_use]
    pub fn bits_per_key(&self) -> f64 {
        self.bits as f64 / self.n.max(1) as f64
    }
}

/// A scalable filter's model at `n` items: the first layer (m, k) holds up to its capacity,
/// each later layer its own; each layer's rate is the sizing rule's, compounded.
fn scalable_fpr(
    params: &ScalableParams,
    (m, k): (u64, u32),
    rule: theory::scalable::Rule,
    strategy: AnyStrategy,
    n: u64,
) -> f64 {
    let cap = params.initial_capacity;
    if n <= cap || params.nonscaling {
        return rule.rate(m, n, k);
    }
    let mut rates = vec![rule.rate(m, cap, k)];
    let mut left = n - cap;
    for i in 1..64 {
        let Ok((m, k, l)) =
            ScalableBloom::<AnyHasher, AnyStrategy>::expected_layer(params, strategy, i, rule)
        else {
            return 1.0;
        };
        let here = left.min(l.capacity);
        rates.push(rule.rate(m, here, k));
        left -= here;
        if left == 0 {
            break;
        }
    }
    theory::scalable::compound_fpr(rates)
}

fn words_bytes(bits: u64) -> u64 {
    bits.div_ceil(64).saturating_mul(8)
}

impl FilterSpec {
    /// Size this spec by its kind's own rule, without building anything: see [`Plan`].
    ///
    /// # Errors
    /// Exactly what building refuses: invalid n, p, m, k or widths for the kind, m or k given
    /// to a kind sized by rate, an arity to any kind but binary fuse, a table past the kind's
    /// limits.
    pub fn plan(&self) -> Result<Plan> {
        let n = theory::check_n(self.n)?;
        let arity = spec_arity(self)?;
        let shape = self.multiblock_shape()?;
        if self.kind.caps().sizing == Sizing::Rate {
            refuse_m_k(self)?;
        }
        let strategy = AnyStrategy(self.strategy);
        let mut widths = Widths::default();
        let (layout, bits, bytes, k, cells) = match self.kind {
            FilterKind::Standard => {
                let s = self.bloom_sizing()?;
                let m = strategy.round_bits(s.m);
                (
                    Layout::Standard {
                        m,
                        k: s.k,
                        strategy,
                    },
                    m,
                    words_bytes(m),
                    s.k,
                    m,
                )
            }
            FilterKind::Counting => {
                let s = self.bloom_sizing()?;
                let cells = strategy.round_bits(s.m);
                // Four-bit counters, two to a byte; refused (not wrapped) past 2^64 bits.
                let bits = cells.checked_mul(4).ok_or(Error::Allocation {
                    bytes: u128::from(cells) / 2,
                })?;
                let layout = Layout::Counting { cells, k: s.k };
                (layout, bits, cells.div_ceil(2), s.k, cells)
            }
            FilterKind::Blocked => {
                let (blocks, k, sized) = blocked_layout(self, n)?;
                let m = blocks * theory::blocked::BLOCK_BITS;
                let layout = Layout::Blocked { blocks, k, sized };
                (layout, m, blocks * 64, k, m)
            }
            FilterKind::SplitBlock => {
                let blocks = split_block_layout(self, n)?;
                let m = blocks * theory::split_block::BLOCK_BITS;
                let k = theory::split_block::WORDS;
                (Layout::SplitBlock { blocks }, m, blocks * 32, k, m)
            }
            FilterKind::Scalable => {
                let p = self.p.ok_or_else(|| {
                    Error::invalid(Param::P, "none", "give p: the bound scalable layers keep")
                })?;
                let params = ScalableParams {
                    initial_capacity: n,
                    p,
                    growth: self.growth,
                    tightening: self.tightening,
                    nonscaling: self.nonscaling,
                };
                theory::check_p(p)?;
                theory::scalable::check_growth(params.growth)?;
                theory::scalable::check_tightening(params.tightening)?;
                let rule = ScalableBloom::<AnyHasher, AnyStrategy>::rule(strategy);
                let (m, k, _) = ScalableBloom::<AnyHasher, AnyStrategy>::expected_layer(
                    &params, strategy, 0, rule,
                )?;
                let layout = Layout::Scalable {
                    params,
                    m,
                    k,
                    rule,
                    strategy,
                };
                let list = ScalableBloom::<AnyHasher, AnyStrategy>::new_list_bytes() as u64;
                (layout, m, words_bytes(m) + list, k, m)
            }
            FilterKind::Cuckoo => {
                let p = match (self.fingerprint_bits, self.p) {
                    (0, None) => {
                        return Err(Error::invalid(
                            Param::P,
                            "none",
                            "give p or fingerprint-bits (4 to 32)",
                        ));
                    }
                    (_, p) => p.unwrap_or(0.5),
                };
                let s = theory::cuckoo::sizing(n, p, self.bucket_size, self.fingerprint_bits)?;
                let (f, b) = (s.fingerprint_bits, s.bucket_size);
                widths.fingerprint_bits = Some(f);
                widths.bucket_size = Some(b);
                let bits = theory::cuckoo::table_bits(s.buckets, f, b)?;
                let bytes = theory::cuckoo::table_bytes(s.buckets, f, b)?;
                let cells = s.buckets * u64::from(b);
                (Layout::Cuckoo(s), bits, bytes, 2, cells)
            }
            FilterKind::Quotient => {
                let (q, r) = theory::quotient::sizing(
                    n,
                    self.p,
                    self.fingerprint_bits,
                    theory::quotient::DEFAULT_MAX_LOAD,
                )?;
                widths.fingerprint_bits = Some(r);
                let slots = 1u64 << q;
                let bits = theory::quotient::table_bits(q, r);
                let bytes = theory::quotient::table_bytes(q, r);
                (Layout::Quotient { q, r }, bits, bytes, 1, slots)
            }
            FilterKind::Xor => {
                theory::xor::check_keys(n)?;
                let f = static_width(self)?;
                widths.fingerprint_bits = Some(f);
                let slots = theory::xor::slots(n);
                let bytes = slots * u64::from(f / 8);
                let k = theory::xor::ARITY;
                (Layout::Xor { f }, slots * u64::from(f), bytes, k, slots)
            }
            FilterKind::BinaryFuse => {
                theory::xor::check_keys(n)?;
                let f = static_width(self)?;
                widths.fingerprint_bits = Some(f);
                widths.arity = Some(arity);
                let slots = theory::binary_fuse::layout(arity, n).2;
                let bytes = slots * u64::from(f / 8);
                let layout = Layout::BinaryFuse { f, arity };
                (layout, slots * u64::from(f), bytes, arity, slots)
            }
            FilterKind::Ribbon => {
                let n = theory::ribbon::check_keys(n)?;
                let r = static_width(self)?;
                widths.fingerprint_bits = Some(r);
                let slots = theory::ribbon::slots(n);
                let bits = slots * u64::from(r);
                (Layout::Ribbon { r }, bits, bits / 8, 2, slots)
            }
            FilterKind::Multiblock => {
                let shape = shape.unwrap_or(theory::multiblock::Shape::DEFAULT);
                let blocks = multiblock_blocks(self, shape, n)?;
                let m = blocks * shape.block_bits();
                let bytes = m.div_ceil(512) * 64;
                (Layout::Multiblock { shape, blocks }, m, bytes, shape.k(), m)
            }
            FilterKind::Prefix => {
                let s = theory::prefix::sizing(n, self.p)?;
                let slots = s.pds * u64::from(theory::prefix::CAPACITY);
                (Layout::Prefix(s), s.bits(), s.bytes(), 1, slots)
            }
        };
        let mut plan = Plan {
            kind: self.kind,
            n,
            bits,
            bytes,
            k,
            cells,
            widths,
            details: Vec::new(),
            layout,
        };
        plan.details = super::details::at_n(self, &plan.layout, bits, n, plan.fpr());
        Ok(plan)
    }
}

/// A blocked filter's `(blocks, k, search result)` from `(m[, k])` (m rounded up to whole
/// blocks) or `(n, p[, k])`.
fn blocked_layout(
    spec: &FilterSpec,
    n: u64,
) -> Result<(u64, u32, Option<theory::blocked::BlockedSizing>)> {
    match (spec.m, spec.p) {
        (Some(m), _) => {
            theory::check_m(m)?;
            let blocks = m.div_ceil(theory::blocked::BLOCK_BITS);
            let k = match spec.k {
                Some(k) => theory::check_k(k)?,
                None => theory::blocked::optimal_k_blocked(blocks, n).0,
            };
            Ok((blocks, k, None))
        }
        (None, Some(p)) => {
            let s = theory::blocked::size_for(n, p, spec.k)?;
            Ok((s.blocks, s.k, Some(s)))
        }
        (None, None) => Err(Error::invalid(Param::P, "none", "give p (or m)")),
    }
}

/// A split-block filter's blocks from `m` or `(n, p)`; k is fixed at 8 (one bit per word).
fn split_block_layout(spec: &FilterSpec, n: u64) -> Result<u64> {
    let words = theory::split_block::WORDS;
    if let Some(k) = spec.k
        && k != words
    {
        return Err(Error::invalid(
            Param::K,
            k,
            "8 (the split-block filter sets one bit in each of its 8 words)",
        ));
    }
    let blocks = match (spec.m, spec.p) {
        (Some(m), _) => theory::check_m(m)?.div_ceil(theory::split_block::BLOCK_BITS),
        (None, Some(p)) => theory::split_block::blocks_for(n, p)?,
        (None, None) => return Err(Error::invalid(Param::P, "none", "give p (or m)")),
    };
    if blocks == 0 || blocks > theory::split_block::MAX_BLOCKS {
        return Err(Error::invalid(
            Param::M,
            blocks.saturating_mul(theory::split_block::BLOCK_BITS),
            "from 256 bits (one block) to 2^32 blocks of 256 bits",
        ));
    }
    Ok(blocks)
}

impl FilterSpec {
    /// A multiblock spec's shape (word bits 0 = 32, words 0 = 8, k = K·b, default K); `None`
    /// for the other kinds, which refuse word bits and words.
    ///
    /// # Errors
    /// [`Error::InvalidParameter`] naming word-bits, words or k.
    pub fn multiblock_shape(&self) -> Result<Option<theory::multiblock::Shape>> {
        spec_shape(self)
    }
}

fn spec_shape(spec: &FilterSpec) -> Result<Option<theory::multiblock::Shape>> {
    if spec.kind == FilterKind::Multiblock {
        let w = if spec.word_bits == 0 {
            32
        } else {
            spec.word_bits
        };
        let kw = if spec.words == 0 { 8 } else { spec.words };
        return theory::multiblock::Shape::new(w, kw, spec.k).map(Some);
    }
    for (name, v) in [("word-bits", spec.word_bits), ("words", spec.words)] {
        if v != 0 {
            let why = format!("not used by {}: only multiblock takes {name}", spec.kind);
            return Err(Error::invalid(Param::Other(name), v, why));
        }
    }
    Ok(None)
}

/// A multiblock filter's blocks from `m` (rounded up to whole blocks) or `(n, p)`.
fn multiblock_blocks(spec: &FilterSpec, shape: theory::multiblock::Shape, n: u64) -> Result<u64> {
    let bb = shape.block_bits();
    let blocks = match (spec.m, spec.p) {
        (Some(m), _) => theory::check_m(m)?.div_ceil(bb),
        (None, Some(p)) => theory::multiblock::blocks_for(shape, n, p)?,
        (None, None) => return Err(Error::invalid(Param::P, "none", "give p (or m)")),
    };
    if blocks > theory::multiblock::MAX_BLOCKS {
        let why = format!("from {bb} bits (one block) to 2^32 blocks of {bb} bits");
        return Err(Error::invalid(Param::M, blocks.saturating_mul(bb), why));
    }
    Ok(blocks)
}

/// The width of a static-set kind's entries, as its [`Width`] means it (fingerprint bits for
/// xor and binary fuse, result bits for ribbon): `fingerprint_bits` if given (checked against
/// the kind's range), else from `p` ([`theory::xor::fingerprint_bits_for`],
/// [`theory::ribbon::result_bits_for`]). The one width rule of the plan and of the static
/// constructors.
pub(super) fn static_width(spec: &FilterSpec) -> Result<u32> {
    let width = spec.kind.caps().width;
    match (spec.fingerprint_bits, spec.p) {
        (0, Some(p)) => match width {
            Width::Results => theory::ribbon::result_bits_for(p),
            Width::Fingerprints | Width::None | Width::BucketFingerprints | Width::Remainders => {
                theory::xor::fingerprint_bits_for(p)
            }
        },
        (0, None) => Err(Error::invalid(
            Param::P,
            "none",
            format!("give p or fingerprint-bits ({})", width.range()),
        )),
        (f, _) => width.check(f),
    }
}

/// The arity a spec asks for: binary fuse 3 (the default, `arity` 0) or 4; any other kind
/// takes none (0).
pub(super) fn spec_arity(spec: &FilterSpec) -> Result<u32> {
    match (spec.kind.caps().arities, spec.arity) {
        ([], 0) => Ok(0),
        ([default, ..], 0) => Ok(*default),
        (arities, a) if arities.contains(&a) => Ok(a),
        ([_, ..], a) => theory::binary_fuse::check_arity(a),
        ([], a) => Err(Error::invalid(
            Param::Other("arity"),
            a,
            format!(
                "not used by {}: only binary-fuse takes an arity (3 or 4)",
                spec.kind
            ),
        )),
    }
}

/// Refuse `m` and `k` for a kind sized by rate, saying how it is sized.
pub(super) fn refuse_m_k(spec: &FilterSpec) -> Result<()> {
    let why = match spec.kind {
        FilterKind::Scalable => "scalable: layers are sized from n (first layer) and p",
        FilterKind::Cuckoo => "cuckoo: sized from n and p (or fingerprint-bits)",
        FilterKind::Xor => "xor: sized from its keys and p (or fingerprint-bits)",
        FilterKind::BinaryFuse => "binary-fuse: sized from its keys and p (or fingerprint-bits)",
        FilterKind::Ribbon => "ribbon: sized from its keys and p (or fingerprint-bits)",
        FilterKind::Quotient => "quotient: sized from n and p (or fingerprint-bits as r)",
        FilterKind::Prefix => "prefix: sized from n and p (8-bit remainders; load 0.95 or lower)",
        FilterKind::Standard
        | FilterKind::Counting
        | FilterKind::Blocked
        | FilterKind::SplitBlock
        | FilterKind::Multiblock => "this kind",
    };
    if let Some(m) = spec.m {
        return Err(Error::invalid(Param::M, m, format!("not used by {why}")));
    }
    if let Some(k) = spec.k {
        return Err(Error::invalid(Param::K, k, format!("not used by {why}")));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use crate::error::Error;
    use crate::{Filter, FilterKind, FilterSpec};

    /// The plan refuses exactly what building refuses, with the same error, for every kind and
    /// a spread of bad and good parameters (static kinds: built from one key).
    #[test]
    fn the_plan_refuses_what_building_refuses() {
        let specs = |kind| {
            let base = FilterSpec::new(kind, 1_000, 0.01);
            vec![
                base.clone(),
                FilterSpec {
                    n: 0,
                    ..base.clone()
                },
                FilterSpec {
                    p: None,
                    ..base.clone()
                },
                FilterSpec {
                    p: Some(1e-12),
                    ..base.clone()
                },
                FilterSpec {
                    m: Some(10_000),
                    ..base.clone()
                },
                FilterSpec {
                    k: Some(3),
                    ..base.clone()
                },
                FilterSpec {
                    k: Some(99),
                    ..base.clone()
                },
                FilterSpec {
                    arity: 4,
                    ..base.clone()
                },
                FilterSpec {
                    arity: 5,
                    ..base.clone()
                },
                FilterSpec {
                    fingerprint_bits: 12,
                    ..base.clone()
                },
                FilterSpec {
                    fingerprint_bits: 16,
                    p: None,
                    ..base.clone()
                },
                FilterSpec {
                    bucket_size: 3,
                    ..base.clone()
                },
                FilterSpec {
                    growth: 0.5,
                    ..base.clone()
                },
            ]
        };
        let mut refused = 0;
        for kind in FilterKind::ALL {
            for spec in specs(kind) {
                let built = if kind.caps().static_set {
                    spec.build_from([b"key"]).map(|f| f.bits())
                } else {
                    spec.build().map(|f| f.bits())
                };
                let plan = spec.plan();
                match (&plan, &built) {
                    (Ok(plan), Ok(bits)) if !kind.caps().static_set => {
                        assert_eq!(plan.bits, *bits, "{spec:?}");
                    }
                    (Ok(_), Ok(_)) => {}
                    (Err(a), Err(b)) => {
                        assert_eq!(a, b, "{spec:?}");
                        refused += 1;
                    }
                    // A static kind's table follows from its keys, not n: n = 0 plans nothing
                    // but builds from one key.
                    (Err(Error::InvalidParameter { .. }), Ok(_))
                        if kind.caps().static_set && spec.n == 0 => {}
                    _ => panic!("{spec:?}: plan {plan:?}, build {built:?}"),
                }
            }
        }
        assert!(refused > 40, "{refused}");
    }

    /// A scalable plan's rate past its first capacity compounds its later layers' rates: above
    /// the first layer's, below the bound p.
    #[test]
    fn a_scalable_plan_grows_past_its_capacity() {
        let plan = FilterSpec::new(FilterKind::Scalable, 1_000, 0.01)
            .plan()
            .unwrap();
        let at = |n| plan.fpr_at(n);
        assert!(
            at(1_000) < at(3_000) && at(3_000) < at(100_000),
            "{}",
            at(3_000)
        );
        assert!(at(1_000_000) <= 0.01, "{}", at(1_000_000));
    }

    #[test]
    fn every_standard_strategy_plans_the_rate_its_filter_reports() {
        for strategy in crate::hash::StrategyId::ALL {
            let spec = FilterSpec {
                strategy,
                ..FilterSpec::new(FilterKind::Standard, 1_000, 0.01)
            };
            let mut f = spec.build().unwrap();
            for i in 0..1_000u64 {
                f.insert(&i.to_le_bytes());
            }
            let planned = spec.plan().unwrap().fpr_at(1_000);
            assert_eq!(planned, f.expected_fpr(), "{strategy:?}");
        }
    }
}
