//! The scalable Bloom filter (Almeida, Baquero, Preguiça & Hutchison 2007).

use crate::bits::BitVec;
use crate::error::{Error, Result};
use crate::filter::{Filter, FilterKind};
use crate::filters::StandardBloom;
use crate::filters::batch::Probe;
use crate::filters::bulk::{self, At, Depth};
use crate::hash::{
    EnhancedDoubleHashing, Hash128, HashId, IndexStrategy, ItemHasher, StrategyId, Xxh3, reduce,
};
use crate::theory;
use crate::theory::scalable as model;
use std::hint::{cold_path, select_unpredictable};

/// What a [`ScalableBloom`] is built from.
#[derive(Debug, Clone, Copy, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct ScalableParams {
    /// Capacity of the first layer, `n0`.
    pub initial_capacity: u64,
    /// The compound false-positive bound `p` the filter keeps however far it grows.
    pub p: f64,
    /// Growth factor `s`: layer `i` holds `n0·s^i` items.
    pub growth: f64,
    /// Tightening ratio `r`: layer `i` is built for rate `p·(1 − r)·r^i`.
    pub tightening: f64,
    /// Refuse inserts past the first layer's capacity ([`Error::Full`]) instead of growing,
    /// like RedisBloom's `NONSCALING`.
    pub nonscaling: bool,
}

impl ScalableParams {
    /// `n0` and `p` with the default growth 2 and tightening 0.5, scaling.
    #[must_use]
    pub fn new(initial_capacity: u64, p: f64) -> Self {
        Self {
            initial_capacity,
            p,
            growth: model::DEFAULT_GROWTH,
            tightening: model::DEFAULT_TIGHTENING,
            nonscaling: false,
        }
    }
}

#[derive(Debug, Clone)]
struct Layer<H, S> {
    filter: StandardBloom<H, S>,
    capacity: u64,
    rate: f64,
}

/// A Bloom filter that grows: a sequence of [`StandardBloom`] layers of growing capacity and
/// tightening rate, so that the false-positive rate stays below `p` however many items arrive
/// (Almeida, Baquero, Preguiça & Hutchison 2007, "Scalable Bloom Filters", IPL 101(6)).
///
/// * Layer `i` is built for `n0·s^i` items at rate `P_i = P0·r^i` with `P0 = p·(1 − r)`, so the
///   compound rate `1 − Π(1 − P_i)` stays below `Σ P_i < P0/(1 − r) = p`, the paper's bound
///   ([`theory::scalable`]). Each layer gets the fewest bits for which an upper bound on its
///   rate at capacity — the exact rate of independent hashing plus the strategy's pattern term
///   `c·n/m²` ([`Self::pattern_excess`], [`theory::scalable::layer_fpr_bound`]) — is at most
///   `P_i`. (The classic formula alone let filters that start small exceed p: 2.44% measured
///   from n0 = 1, see [`theory::scalable::Rule`]. The paper's layers are partitioned filters,
///   ours are standard ones — the bound only needs each layer ≤ `P_i`.)
/// * Every insert is counted against the newest layer's capacity; when that layer is full a new
///   one is added. Repeated items are **not** skipped: RedisBloom's `BF.ADD` first queries every
///   layer and does not count an item already reported present; we keep an insert to one layer
///   and let [`Filter::len`] count inserts, as the trait defines it. Feeding many duplicates
///   therefore grows the filter sooner than RedisBloom would (never less accurate: a duplicate
///   is a fresh item as far as the bound is concerned).
/// * A query checks every layer, newest first: a negative query costs the sum of the layers' k.
/// * Non-scaling mode ([`ScalableParams::nonscaling`]) refuses the insert after `n0` with
///   [`Error::Full`] and leaves the filter unchanged.
///
/// **Defaults** s = 2 and r = 0.5 are RedisBloom's (`EXPANSION 2`, `ERROR_TIGHTENING_RATIO
/// 0.5`); the paper recommends s = 2 for slow and s = 4 for fast growth, and r = 0.8–0.9 for the
/// least space. Which r is cheaper depends on how far the filter grows (computed with
/// [`theory::scalable::total_bits`], n0 = 1,000, p = 1%): r = 0.5 uses fewer bits while there are
/// at most three layers (11,047 vs 13,563 bits with one), the two tie at four (214,639 vs
/// 214,634 bits; with real-valued sizing 0.5 is ahead by 0.002 bits per item), and r = 0.85 wins
/// from five on (23.1 vs 16.6 bits per item at 10⁶ items, ten layers). We keep 0.5: a filter whose `n0` was estimated well
/// stays within a few layers, and the numbers then match RedisBloom's.
///
/// ```
/// use bloomlab::Filter;
/// use bloomlab::filters::ScalableBloom;
/// use bloomlab::workload::{KeyGen, KeyKind};
/// let keys = KeyGen::new(KeyKind::U64, 1);
/// let mut f = ScalableBloom::new(1_000, 0.01).unwrap();
/// for i in 0..10_000 { f.insert(&keys.present_key(i)); }
/// assert_eq!(f.layer_count(), 4);        // 1,000 + 2,000 + 4,000 + 8,000 ≥ 10,000
/// assert_eq!(f.capacity(), 15_000);
/// assert_eq!(f.bits(), 214_639);         // = theory::scalable::total_bits(1000, 0.01, 2, 0.5, 10_000, …)
/// assert!((0..10_000).all(|i| f.contains(&keys.present_key(i))));
/// let fp = (0..50_000).filter(|&j| f.contains(&keys.absent_key(j))).count();
/// let fpr = fp as f64 / 50_000.0;
/// assert!(fpr < 0.01, "{fpr}");                       // under the bound p
/// assert!((fpr - f.expected_fpr()).abs() < 0.0015);  // and where the model puts it (≈ 0.0087)
/// ```
#[derive(Debug, Clone)]
pub struct ScalableBloom<H = Xxh3, S = EnhancedDoubleHashing> {
    layers: Vec<Layer<H, S>>,
    params: ScalableParams,
    hasher: H,
    strategy: S,
    /// Whether every layer takes the written-out enhanced-double path ([`ed_direct`]): the
    /// strategy is enhanced double hashing and every layer has m > k, m ≤ 2^63. Kept by
    /// [`Self::push_layer`], the one place layers are added.
    direct: bool,
    /// Whether queries test each layer's first probes as a group ([`ed_contains`]): the layers
    /// hold at most [`GROUP_MAX_BITS`] in all. Kept by [`Self::push_layer`].
    grouped: bool,
    /// The first layer's bits over an ideal filter's, against which growth caps each new
    /// layer's ([`model::check_grown`]); set by [`Self::push_layer`] from the first layer.
    first_overhead: f64,
}

impl ScalableBloom<Xxh3, EnhancedDoubleHashing> {
    /// A filter whose first layer holds `n0` items and whose compound rate stays below `p`,
    /// with growth 2, tightening 0.5, the default hash and strategy.
    ///
    /// # Errors
    /// Invalid `n0` or `p`; [`Error::Allocation`].
    pub fn new(n0: u64, p: f64) -> Result<Self> {
        Self::with_params_and(
            ScalableParams::new(n0, p),
            Xxh3::default(),
            EnhancedDoubleHashing,
        )
    }
}

impl<H: ItemHasher, S: IndexStrategy> ScalableBloom<H, S> {
    /// Room for layers a new filter reserves in its list (as many as the first push of a
    /// `Vec` makes room for).
    const FIRST_LAYER_SLOTS: usize = 4;

    /// Heap bytes of a new filter's list of layers: what [`Filter::bytes`] adds to the first
    /// layer's bits before the filter grows.
    #[must_use]
    pub fn new_list_bytes() -> usize {
        Self::FIRST_LAYER_SLOTS * std::mem::size_of::<Layer<H, S>>()
    }

    /// A filter from `params` with the given hash and strategy (shared by all layers).
    ///
    /// # Errors
    /// Invalid `initial_capacity`, `p`, `growth` or `tightening`; [`Error::Allocation`].
    pub fn with_params_and(params: ScalableParams, hasher: H, strategy: S) -> Result<Self> {
        theory::check_n(params.initial_capacity)?;
        theory::check_p(params.p)?;
        model::check_growth(params.growth)?;
        model::check_tightening(params.tightening)?;
        let mut f = Self {
            layers: Vec::with_capacity(Self::FIRST_LAYER_SLOTS),
            params,
            hasher,
            strategy,
            direct: true,
            grouped: true,
            first_overhead: 1.0,
        };
        let first = f.build_layer(0)?;
        f.push_layer(first);
        Ok(f)
    }

    /// Layer `l`'s bits over an ideal filter's for its capacity and rate (as
    /// [`model::layer_overhead`], from the built layer: no second sizing).
    fn overhead_of(l: &Layer<H, S>) -> f64 {
        let ideal = theory::optimal_bits(l.capacity, l.rate).unwrap_or(1).max(1);
        l.filter.bits() as f64 / ideal as f64
    }

    /// Add `layer` as the newest one, keeping [`Self::direct`] up to date.
    fn push_layer(&mut self, layer: Layer<H, S>) {
        if self.layers.is_empty() {
            self.first_overhead = Self::overhead_of(&layer);
        }
        self.direct &=
            self.is_enhanced_double() && ed_direct(layer.filter.bits(), layer.filter.k());
        self.layers.push(layer);
        self.grouped = self.bits() <= GROUP_MAX_BITS;
    }

    fn build_layer(&self, i: u32) -> Result<Layer<H, S>> {
        let p = &self.params;
        let rule = Self::rule(self.strategy);
        let l = model::layer(p.initial_capacity, p.p, p.growth, p.tightening, i, rule)?;
        let l = if i == 0 {
            l
        } else {
            model::check_grown(l, i, self.first_overhead)?
        };
        Ok(Layer {
            filter: StandardBloom::with_bits_and(
                l.sizing.m,
                l.sizing.k,
                self.hasher.clone(),
                self.strategy,
            )?,
            capacity: l.capacity,
            rate: l.rate,
        })
    }

    /// Rebuild from saved parts (see [`crate::persist`]): `params` and, for each layer oldest
    /// first, its bits and its insert count. Each layer's size and k must be what `params` give
    /// that layer under the current rule or the legacy one ([`Self::check_layer`]), so capacity
    /// and rate are recomputed.
    ///
    /// # Errors
    /// [`Error::Corrupt`] for invalid params, no layers, a layer whose bits or k differ from
    /// both rules', or counts whose sum exceeds `u64::MAX`.
    pub fn from_parts(
        params: ScalableParams,
        layers: Vec<(crate::bits::BitVec, u32, u64)>,
        hasher: H,
        strategy: S,
    ) -> Result<Self> {
        let bad = |e: Error| Error::Corrupt(format!("scalable filter params: {e}"));
        theory::check_n(params.initial_capacity).map_err(bad)?;
        theory::check_p(params.p).map_err(bad)?;
        model::check_growth(params.growth).map_err(bad)?;
        model::check_tightening(params.tightening).map_err(bad)?;
        if layers.is_empty() {
            return Err(Error::Corrupt("scalable filter has no layers".into()));
        }
        let mut total = 0u64;
        // Grown one layer at a time, as a filter grows (amortized doubling), so a rebuilt filter
        // holds (and `bytes()` reports) the same capacity as the one that was saved.
        let mut f = Self {
            layers: Vec::new(),
            params,
            hasher,
            strategy,
            direct: true,
            grouped: true,
            first_overhead: 1.0,
        };
        for (i, (bits, k, len)) in layers.into_iter().enumerate() {
            let l = Self::check_layer(&params, strategy, i, bits.len(), k)?;
            total = total.checked_add(len).ok_or_else(|| {
                Error::Corrupt("scalable layer counts add up to more than 2^64".into())
            })?;
            f.layers.try_reserve(1).map_err(|_| Error::Allocation {
                bytes: (f.layers.len() as u128 + 1) * std::mem::size_of::<Layer<H, S>>() as u128,
            })?;
            let filter = StandardBloom::from_bits(bits, k, len, f.hasher.clone(), strategy)?;
            f.push_layer(Layer {
                filter,
                capacity: l.capacity,
                rate: l.rate,
            });
        }
        Ok(f)
    }

    /// The pattern-collision coefficient c of a strategy: double hashing has only m² position
    /// patterns, so a query shares an inserted item's whole pattern with probability about
    /// n/m² — a false positive whatever the fill ([`model::Rule`]). Measured over 100,000
    /// filters per point at m = 12 … 1,100 (n/m² from 0.0069 down to 0.00008), as the excess over
    /// the exact rate of independent hashing in units of n/m²: enhanced double 0.7–1.7 (the
    /// exact match, plus partial matches when m has small factors), the real-valued double
    /// hashing 2.1–4.3, independent 0.0 ± 0.2. The values here are above every measurement. The
    /// Guava strategies (mod-m double hashing on whole 64-bit words) are given double hashing's
    /// value; their tiny layers are 64 bits at least and were not measured separately.
    #[must_use]
    pub fn pattern_excess(strategy: StrategyId) -> f64 {
        match strategy {
            StrategyId::Independent => 0.0,
            // enhanced-double-64 measured at m = 64, n = 6, k = 7 (classic-vs-exact, 40,000
            // filters): 0.15 units of n/m² over the exact rate, below enhanced double's 0.87.
            // rotate-add-64 measured at m = 64 … 4096, n = m/10, k = 7 (classic-vs-exact with
            // the 64-bit strategies added, 40,000 filters per point): −0.13 to 0.23 units, as
            // independent hashing's −0.01 to 0.88 in the same run; given enhanced double's bound.
            StrategyId::EnhancedDouble | StrategyId::EnhancedDouble64 | StrategyId::RotateAdd64 => {
                2.0
            }
            // partitioned: double hashing's positions, one per slice; given its bound, not
            // measured separately on tiny layers.
            StrategyId::Double
            | StrategyId::Guava32
            | StrategyId::Guava64
            | StrategyId::Partitioned => 6.0,
        }
    }

    /// The model's estimate of that coefficient (for [`Filter::expected_fpr`], not for sizing):
    /// the whole-pattern match alone, 1 for enhanced double hashing (whose cubic term rules out
    /// shifted matches), the measured middle 3.5 for double hashing and the Guava strategies, 0
    /// for independent hashes.
    #[must_use]
    pub fn pattern_estimate(strategy: StrategyId) -> f64 {
        match strategy {
            StrategyId::Independent => 0.0,
            StrategyId::EnhancedDouble | StrategyId::EnhancedDouble64 | StrategyId::RotateAdd64 => {
                1.0
            }
            StrategyId::Double
            | StrategyId::Guava32
            | StrategyId::Guava64
            | StrategyId::Partitioned => 3.5,
        }
    }

    /// The rule new layers are sized by: [`model::Rule::Bounded`] with the strategy's
    /// [`Self::pattern_excess`].
    #[must_use]
    pub fn rule(strategy: S) -> model::Rule {
        model::Rule::Bounded {
            excess: Self::pattern_excess(strategy.id()),
        }
    }

    /// `(bits, k, model layer)` of layer `i` of a filter with `params` under `rule` (bits as
    /// the strategy rounds them).
    ///
    /// # Errors
    /// [`Error::Corrupt`] when the layer cannot exist.
    pub fn expected_layer(
        params: &ScalableParams,
        strategy: S,
        i: usize,
        rule: model::Rule,
    ) -> Result<(u64, u32, model::Layer)> {
        let l = u32::try_from(i)
            .map_err(|_| Error::Corrupt(format!("scalable layer {i} out of range")))
            .and_then(|i| {
                model::layer(
                    params.initial_capacity,
                    params.p,
                    params.growth,
                    params.tightening,
                    i,
                    rule,
                )
                .map_err(|e| Error::Corrupt(format!("scalable layer {i} cannot exist: {e}")))
            })?;
        let m = strategy.round_bits(l.sizing.m);
        Ok((m, l.sizing.k, l))
    }

    /// Check a saved layer `i` of `m` bits and `k` hashes against `params`: it must be what the
    /// current rule ([`Self::rule`]) gives, or what the legacy [`model::Rule::Classic`] gave
    /// (files written before the bounded rule). A filter loaded from such a file keeps its old
    /// layers and grows new ones by the current rule.
    ///
    /// # Errors
    /// [`Error::Corrupt`] when the layer cannot exist or matches neither rule.
    pub fn check_layer(
        params: &ScalableParams,
        strategy: S,
        i: usize,
        m: u64,
        k: u32,
    ) -> Result<model::Layer> {
        let (em, ek, l) = Self::expected_layer(params, strategy, i, Self::rule(strategy))?;
        if (m, k) == (em, ek) {
            return Ok(l);
        }
        let (om, ok, old) = Self::expected_layer(params, strategy, i, model::Rule::Classic)?;
        if (m, k) == (om, ok) {
            return Ok(old);
        }
        Err(Error::Corrupt(format!(
            "scalable layer {i} has m = {m}, k = {k}, but its params give m = {em}, k = {ek} \
             (or m = {om}, k = {ok} by the legacy rule)"
        )))
    }

    /// The hash function.
    #[must_use]
    pub fn hasher(&self) -> &H {
        &self.hasher
    }

    /// The index strategy.
    #[must_use]
    pub fn strategy(&self) -> S {
        self.strategy
    }

    /// The parameters.
    #[must_use]
    pub fn params(&self) -> &ScalableParams {
        &self.params
    }

    /// Number of layers.
    #[must_use]
    pub fn layer_count(&self) -> usize {
        self.layers.len()
    }

    /// The layers, oldest first.
    pub fn layers(&self) -> impl Iterator<Item = &StandardBloom<H, S>> {
        self.layers.iter().map(|l| &l.filter)
    }

    /// `(capacity, rate P_i)` of each layer, oldest first.
    #[must_use]
    pub fn layer_targets(&self) -> Vec<(u64, f64)> {
        self.layers.iter().map(|l| (l.capacity, l.rate)).collect()
    }

    /// Items the existing layers are built for, together.
    #[must_use]
    pub fn capacity(&self) -> u64 {
        self.layers.iter().map(|l| l.capacity).sum()
    }

    /// The bound `P0/(1 − r) = p` the compound rate never exceeds (Almeida et al. 2007).
    #[must_use]
    pub fn compound_bound(&self) -> f64 {
        model::compound_bound(
            model::first_layer_rate(self.params.p, self.params.tightening),
            self.params.tightening,
        )
    }

    /// Each layer's false-positive probability given its bits: `(ones/m)^k`, the chance that k
    /// uniform probes all land on set bits, plus the strategy's pattern term `c·len/m²`
    /// ([`Self::pattern_estimate`]).
    #[must_use]
    pub fn layer_fprs(&self) -> Vec<f64> {
        let c = Self::pattern_estimate(self.strategy.id());
        self.layers
            .iter()
            .map(|l| {
                let f = &l.filter;
                let m = f.bits() as f64;
                let fill = (f.ones() as f64 / m).powi(f.k() as i32);
                (fill + c * f.len() as f64 / (m * m)).min(1.0)
            })
            .collect()
    }

    fn newest(&self) -> &Layer<H, S> {
        // The constructor pushes layer 0 and layers are never removed.
        &self.layers[self.layers.len() - 1]
    }
}

/// Whether enhanced double hashing's positions in `[0, m)` may be computed by [`ed_walk`]: the
/// usual case of [`EnhancedDoubleHashing`] (`m > k`, `m ≤ 2^63`, so no sum overflows and one
/// conditional subtraction reduces), which gives the same positions as its general loop.
#[inline(always)]
fn ed_direct(m: u64, k: u32) -> bool {
    m > u64::from(k) && m <= 1 << 63
}

/// How many of a layer's probes a query tests before it branches on them ([`ed_contains`]).
const GROUP: u64 = 4;

/// The largest filter, in bits over all layers (4 MiB), whose queries test each layer's first
/// probes as a group ([`ed_contains`]); a larger one's are tested one by one. Paired bench,
/// ratios to `growable-bloom-filter` with the probe-by-probe walk → the group, both builds run
/// the same day: at n = 10^6 (1.2 MB in one layer) misses 0.47 → 0.30 and hits 0.35 → 0.34,
/// grown from n/1000 misses 0.70 → 0.46 and hits 0.32 → 0.34; at 10^7 (12 MB) one-layer misses
/// 0.44 → 0.41 but hits 0.46 → 0.55, grown hits 0.60 → 0.73; at 10^8 grown misses 0.78 → 0.85
/// (0.88 with only the layers under 4 MiB grouped: the small layers are not in cache either once
/// the large ones' lines stream through). In DRAM a branch mispredicted now and then costs little
/// beside the misses, and the group's extra loads and instructions leave fewer queries' loads in
/// flight.
const GROUP_MAX_BITS: u64 = 1 << 25;

/// Enhanced double hashing's k positions of the hash `h` in `[0, m)` (Dillinger & Manolios
/// 2004, FMCAD: `x += y; y += i`, mod m), exactly as [`EnhancedDoubleHashing`] computes them
/// (a test compares them), handed to `f` until it returns false. Written out here so that a
/// layer costs one multiply before its first probe and the second only when that probe passes
/// (most layers answer a negative query at the first zero bit). The step is kept as `ym = y − m`
/// (wrapping): for `x, y < m` the sum `x + y` reaches m exactly when `x + ym` carries — then
/// `x + ym` is the reduced sum, else `x + ym + m` is — which is an addition and a conditional
/// move (it happens about half the time, so a branch would be mispredicted). `y + i` reaches m
/// only when y lies within k of m, so `ym + i` carries rarely: a branch the predictor gets right,
/// marked cold so that the compiler keeps it a branch (as a conditional move it cost 3 more
/// instructions a probe). 16 instructions a probe, 18 before (objdump of the gate's
/// `lab_scalable_grown` query).
#[inline(always)]
fn ed_walk(h: Hash128, k: u32, m: u64, mut f: impl FnMut(u64) -> bool) -> bool {
    let mut x = reduce(h.lo, m);
    if !f(x) {
        return false;
    }
    let mut ym = reduce(h.hi, m).wrapping_sub(m);
    for i in 1..u64::from(k) {
        x = ed_add(x, ym, m);
        if !f(x) {
            return false;
        }
        ym = ed_bump(ym, i, m);
    }
    true
}

/// The walk's next position: `x + y` mod m for `x, y < m`, with y kept as `ym = y − m` (see
/// [`ed_walk`]): an addition and a conditional move.
#[inline(always)]
fn ed_add(x: u64, ym: u64, m: u64) -> u64 {
    let (t, wrapped) = x.overflowing_add(ym);
    select_unpredictable(wrapped, t, t.wrapping_add(m))
}

/// The walk's next step, `y + i` mod m kept as `y − m` (see [`ed_walk`]): it wraps only when y
/// lies within i of m, a cold branch. Needs `i < m`.
#[inline(always)]
fn ed_bump(ym: u64, i: u64, m: u64) -> u64 {
    let (u, wrapped) = ym.overflowing_add(i);
    if wrapped {
        cold_path();
        return u.wrapping_sub(m);
    }
    u
}

/// Whether every one of `h`'s positions is set in the layer `bits` with `k` hashes: the
/// positions of [`ed_walk`], the first [`GROUP`] of them tested with one branch.
///
/// A query that misses a layer stops at the layer's first clear bit, and in a layer near
/// capacity about half the bits are set, so where that bit lies is a coin toss: testing probe by
/// probe, the loop's exit branch is mispredicted about once a layer, and a grown filter's miss
/// visits every layer (about ten). Testing the first four probes without a branch and then
/// branching once on all four is mispredicted only when all four are set (1 in 16 in a half-full
/// layer), and the four loads are independent, so a layer larger than the caches has them in
/// flight together. The probes after the first four are tested one by one with an early exit,
/// as before: a query gets there almost only in the layer that holds its item, where every
/// probe passes and the branches are predicted (testing all k in groups cost hits 60% more
/// time: more instructions, nothing mispredicted to save). A layer with k < 4, and every layer
/// of a filter larger than [`GROUP_MAX_BITS`] (`grouped` false), is tested probe by probe
/// ([`ed_walk`]). Paired bench, n = 10^4, against probe by probe: a grown filter's
/// miss 108 → 54 ns, a one-layer miss 17.0 → 10.5 ns; the price is paid by hits, which compute
/// the group's four positions and both reductions before their first branch: 12.7 → 15.7 ns
/// (one layer), 32.3 → 37.4 ns (grown).
#[inline(always)]
fn ed_contains(bits: &BitVec, k32: u32, h: Hash128, grouped: bool) -> bool {
    let (words, m) = (bits.words(), bits.len());
    debug_assert_eq!(words.len() as u64, m.div_ceil(64));
    debug_assert!(ed_direct(m, k32));
    let k = u64::from(k32);
    // SAFETY: every x handed to `bit` is a walk position in [0, m) (the first is `reduce(·, m)`,
    // each next one a sum of two values below m reduced by one conditional subtraction; the
    // walk's step stays below m while its index is below m, and it is below k < m, see
    // `ed_direct`), and a `BitVec` of m bits holds ⌈m/64⌉ words (`BitVec::new` /
    // `from_words` check it), so x/64 is in bounds. Skipping the check saves 2 of the ~16
    // instructions of a probe, where a grown filter's query spends nearly all its time (the
    // gate's `lab_scalable_grown` rows).
    #[allow(unsafe_code)]
    let bit = |x: u64| (unsafe { *words.get_unchecked((x >> 6) as usize) } >> (x & 63)) & 1;
    if k < GROUP || !grouped {
        // A layer built for a rate above about 6% (too few probes to group), or a filter
        // larger than the caches (see `GROUP_MAX_BITS`).
        return ed_walk(h, k32, m, |x| bit(x) != 0);
    }
    let mut x = reduce(h.lo, m);
    let mut ym = reduce(h.hi, m).wrapping_sub(m);
    // Position i is tested, then the walk moves on to position i + 1.
    let mut set = 1u64;
    for i in 0..GROUP {
        debug_assert!(x < m);
        set &= bit(x);
        x = ed_add(x, ym, m);
        ym = ed_bump(ym, i + 1, m);
    }
    if set == 0 {
        return false;
    }
    for i in GROUP..k {
        debug_assert!(x < m);
        if bit(x) == 0 {
            return false;
        }
        x = ed_add(x, ym, m);
        ym = ed_bump(ym, i + 1, m);
    }
    true
}

impl<H: ItemHasher, S: IndexStrategy> ScalableBloom<H, S> {
    /// Whether this filter's strategy is enhanced double hashing (a constant for the concrete
    /// strategy types, so the test folds away).
    #[inline(always)]
    fn is_enhanced_double(&self) -> bool {
        self.strategy.id() == StrategyId::EnhancedDouble
    }
}

impl<H: ItemHasher, S: IndexStrategy> Filter for ScalableBloom<H, S> {
    fn try_insert(&mut self, item: &[u8]) -> Result<()> {
        let newest = self.newest();
        if newest.filter.len() >= newest.capacity {
            if self.params.nonscaling {
                return Err(Error::Full {
                    len: self.len(),
                    reason: "non-scaling filter at capacity",
                });
            }
            let i = u32::try_from(self.layers.len()).unwrap_or(u32::MAX);
            let layer = self.build_layer(i).map_err(|e| match e {
                Error::InvalidParameter { .. } => Error::Full {
                    len: self.len(),
                    reason: "the next layer's capacity, hash count or size is out of range",
                },
                other => other,
            })?;
            self.push_layer(layer);
        }
        let direct = self.direct;
        let Self { layers, hasher, .. } = self;
        let last = layers.len() - 1;
        let filter = &mut layers[last].filter;
        let k = filter.k();
        let (bits, len) = filter.bits_and_len_mut();
        let m = bits.len();
        if direct {
            let h = hasher.hash128(item);
            let words = bits.words_mut();
            ed_walk(h, k, m, |i| {
                words[(i >> 6) as usize] |= 1u64 << (i & 63);
                true
            });
            // As the standard filter counts: one `inc`, saturating when read.
            len.inc();
        } else {
            filter.insert_new(item);
        }
        Ok(())
    }

    /// Hashes `item` once and probes every layer with that hash, newest first (the layers share
    /// the hasher and strategy, so each layer's positions are the ones its own `contains` would
    /// compute).
    fn contains(&self, item: &[u8]) -> bool {
        if self.direct {
            let h = self.hasher.hash128(item);
            return self
                .layers
                .iter()
                .rev()
                .any(|l| ed_contains(l.filter.bit_vec(), l.filter.k(), h, self.grouped));
        }
        let pre = self.strategy.prehash(&self.hasher, item);
        self.layers
            .iter()
            .rev()
            .any(|l| l.filter.contains_prehashed(pre))
    }
    /// One layer: as the standard filter ([`Depth::K_POSITIONS`]). Grown: one item at a time,
    /// because at n = 10^8 over ten layers even the best depth ([`Depth::SCALABLE`]) answered
    /// hits at 0.90 [0.87, 0.93] of the single queries' speed and misses at 0.98 [0.95, 1.05]
    /// (`results/bench/bulk-probe.md`); `contains_batch_at` still takes a depth.
    fn contains_batch(&self, items: &[&[u8]], out: &mut [bool]) {
        if self.layers.len() == 1 {
            self.contains_batch_at(items, out, Depth::K_POSITIONS);
        } else {
            for (o, it) in out.iter_mut().zip(items) {
                *o = self.contains(it);
            }
        }
    }

    /// Inserts over all layers (saturating at `u64::MAX`).
    fn len(&self) -> u64 {
        self.layers
            .iter()
            .fold(0u64, |a, l| a.saturating_add(l.filter.len()))
    }

    fn bits(&self) -> u64 {
        self.layers.iter().map(|l| l.filter.bits()).sum()
    }

    fn bytes(&self) -> usize {
        self.layers.iter().map(|l| l.filter.bytes()).sum::<usize>()
            + self.layers.capacity() * std::mem::size_of::<Layer<H, S>>()
    }

    /// The newest layer's k (the positions an insert sets); a negative query probes the sum of
    /// all layers' k (reported in [`Filter::details`]).
    fn k(&self) -> u32 {
        self.newest().filter.k()
    }

    fn classic_params(&self) -> Option<(u64, u32)> {
        None
    }

    /// The compound rate `1 − Π(1 − P_i)` with each layer's `P_i = (ones/m)^k` from its actual
    /// fill (Almeida et al. 2007).
    fn expected_fpr(&self) -> f64 {
        model::compound_fpr(self.layer_fprs())
    }

    fn kind(&self) -> FilterKind {
        FilterKind::Scalable
    }

    fn hash_id(&self) -> HashId {
        self.hasher.id()
    }

    fn strategy_id(&self) -> Option<StrategyId> {
        Some(self.strategy.id())
    }

    fn details(&self) -> Vec<(String, String)> {
        let probes: u32 = self.layers.iter().map(|l| l.filter.k()).sum();
        let layers = self
            .layers
            .iter()
            .map(|l| {
                format!(
                    "{}/{} k={} P={:.3e}",
                    l.filter.len(),
                    l.capacity,
                    l.filter.k(),
                    l.rate
                )
            })
            .collect::<Vec<_>>()
            .join(", ");
        vec![
            ("layers".into(), self.layers.len().to_string()),
            ("capacity".into(), self.capacity().to_string()),
            (
                "compound expected fpr".into(),
                format!("{:.6}", self.expected_fpr()),
            ),
            (
                "compound bound".into(),
                format!("{:.6}", self.compound_bound()),
            ),
            ("growth".into(), self.params.growth.to_string()),
            ("tightening".into(), self.params.tightening.to_string()),
            ("nonscaling".into(), self.params.nonscaling.to_string()),
            ("probes per absent query".into(), probes.to_string()),
            ("layers (items/capacity, k, rate)".into(), layers),
        ]
    }
}

/// The scalable filter's batch query (issue 38, `filters/bulk.rs`): each item hashed once, the
/// words of its first [`Depth::lines`] positions in every layer prefetched a chunk before the
/// layers are probed, newest first, as [`Filter::contains`] probes them.
impl<H: ItemHasher, S: IndexStrategy> Probe for At<'_, ScalableBloom<H, S>> {
    type Step = Hash128;
    #[inline(always)]
    fn stage(&self, item: &[u8], warm: bool) -> Hash128 {
        let f = self.f;
        let h = bulk::stage_hash(&f.strategy, &f.hasher, item);
        if warm {
            for l in f.layers.iter().rev() {
                let (bits, k) = (l.filter.bit_vec(), l.filter.k());
                bulk::prefetch_positions(
                    &f.strategy,
                    h,
                    (k, bits.len()),
                    self.lines,
                    bits.words(),
                    6,
                );
            }
        }
        h
    }
    #[inline(always)]
    fn probe_step(&self, h: Hash128) -> bool {
        let f = self.f;
        if f.direct {
            return f
                .layers
                .iter()
                .rev()
                .any(|l| ed_contains(l.filter.bit_vec(), l.filter.k(), h, f.grouped));
        }
        f.layers.iter().rev().any(|l| {
            let bits = l.filter.bit_vec();
            f.strategy
                .for_each_hashed(h, l.filter.k(), bits.len(), |i| bits.get(i))
        })
    }
}

impl<H: ItemHasher, S: IndexStrategy> ScalableBloom<H, S> {
    /// [`Filter::contains_batch`] at an explicit pipeline depth (the default is
    /// [`Depth::K_POSITIONS`] for one layer, [`Depth::SCALABLE`] for more); under 1 MiB in all layers, or with `independent`, one item at a
    /// time (as [`crate::StandardBloom::contains_batch_at`]).
    pub fn contains_batch_at(&self, items: &[&[u8]], out: &mut [bool], depth: Depth) {
        let table = (self.bytes(), &self.strategy);
        bulk::k_positions(self, table, (items, out), depth, |it| self.contains(it));
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::hash::{AnyHasher, AnyStrategy, Independent};

    /// One hash per query for all layers answers exactly as each layer's own `contains_item`,
    /// for every strategy (independent keeps the item and hashes per position).
    #[test]
    fn hashing_once_answers_as_every_layer_would() {
        for s in StrategyId::ALL {
            let params = ScalableParams::new(50, 0.01);
            let mut f =
                ScalableBloom::with_params_and(params, AnyHasher::default(), AnyStrategy(s))
                    .unwrap();
            for i in 0u64..800 {
                f.insert(&i.to_le_bytes());
            }
            assert!(f.layer_count() >= 4, "{s}");
            let mut hits = 0;
            for i in 0u64..20_000 {
                let x = i.to_le_bytes();
                let per_layer = f.layers().any(|l| l.contains_item(&x));
                assert_eq!(f.contains(&x), per_layer, "{s} {i}");
                hits += u32::from(per_layer);
            }
            assert!(hits >= 800, "{s}");
        }
    }

    /// A splitmix64 stream from `seed`, for the walk tests.
    fn rng(mut seed: u64) -> impl FnMut() -> u64 {
        move || {
            seed = crate::hash::mix64(seed.wrapping_add(0x9E37_79B9_7F4A_7C15));
            seed
        }
    }

    /// The written-out walk gives enhanced double hashing's positions, in order, wherever it
    /// is used (m > k), from tiny layers to m = 2^63, and stops where `f` says.
    #[test]
    fn ed_walk_matches_enhanced_double_hashing() {
        let mut next = rng(0x1234_5678_9abc_def0);
        let ms = [
            2u64,
            3,
            7,
            12,
            21,
            64,
            65,
            1000,
            95_851,
            1 << 40,
            (1 << 63) - 1,
            1 << 63,
        ];
        for &m in &ms {
            for k in [1u32, 2, 7, 17, 64] {
                if !ed_direct(m, k) {
                    continue;
                }
                for _ in 0..200 {
                    let h = Hash128 {
                        lo: next(),
                        hi: next(),
                    };
                    let (mut a, mut b) = (Vec::new(), Vec::new());
                    EnhancedDoubleHashing.for_each_hashed(h, k, m, |i| {
                        a.push(i);
                        true
                    });
                    assert!(ed_walk(h, k, m, |i| {
                        b.push(i);
                        true
                    }));
                    assert_eq!(a, b, "m = {m}, k = {k}");
                    let stop = (next() % u64::from(k)) as usize;
                    let mut c = 0;
                    assert!(!ed_walk(h, k, m, |_| {
                        c += 1;
                        c <= stop
                    }));
                    assert_eq!(c, stop + 1);
                }
            }
        }
        assert!(!ed_direct(7, 7) && !ed_direct((1 << 63) + 1, 7) && ed_direct(8, 7));
    }

    /// Queries group their probes while the whole filter fits in GROUP_MAX_BITS, and stop once
    /// a layer takes it past (the flag is kept where layers are added).
    #[test]
    fn grouping_follows_the_filter_size() {
        assert!(ScalableBloom::new(10_000, 0.01).unwrap().grouped);
        assert!(!ScalableBloom::new(5_000_000, 0.01).unwrap().grouped);
        let mut f = ScalableBloom::new(1_000_000, 0.01).unwrap();
        assert!(f.grouped && f.bits() <= GROUP_MAX_BITS);
        let mut i = 0u64;
        while f.bits() <= GROUP_MAX_BITS {
            f.insert(&i.to_le_bytes());
            i += 1;
        }
        assert!(!f.grouped, "{} bits after {i} inserts", f.bits());
    }

    /// The grouped test answers exactly as testing enhanced double hashing's k positions one by
    /// one, on layers from the smallest direct one up, with bits set at densities from sparse
    /// to nearly full (so every group position decides some answers), for k below, at and not
    /// a multiple of the group, and on both paths (`grouped` true and false).
    #[test]
    fn grouped_contains_matches_probe_by_probe() {
        let mut next = rng(0x0fed_cba9_8765_4321);
        let (mut yes, mut no) = (0u32, 0u32);
        for m in [5u64, 8, 13, 64, 65, 200, 1000, 95_851] {
            for k in [1u32, 2, 3, 4, 5, 7, 8, 9, 17] {
                if !ed_direct(m, k) {
                    continue;
                }
                for density in [1u64, 4, 8, 15] {
                    // Each bit set with probability density/16.
                    let words = (0..m.div_ceil(64))
                        .map(|w| {
                            let (a, b, c, d) = (next(), next(), next(), next());
                            let word = match density {
                                1 => a & b & c & d,
                                4 => a & b,
                                8 => a,
                                _ => a | b | c | d,
                            };
                            let used = m - 64 * w;
                            if used < 64 {
                                word & ((1 << used) - 1)
                            } else {
                                word
                            }
                        })
                        .collect();
                    let bits = BitVec::from_words(words, m).unwrap();
                    for _ in 0..300 {
                        let h = Hash128 {
                            lo: next(),
                            hi: next(),
                        };
                        let mut want = true;
                        EnhancedDoubleHashing.for_each_hashed(h, k, m, |i| {
                            want &= bits.get(i);
                            true
                        });
                        for grouped in [true, false] {
                            let got = ed_contains(&bits, k, h, grouped);
                            assert_eq!(got, want, "m {m} k {k} d {density} {grouped}");
                        }
                        if want { yes += 1 } else { no += 1 }
                    }
                }
            }
        }
        assert!(yes > 1000 && no > 1000, "{yes} present, {no} absent");
    }

    /// Inserts set in each layer exactly the bits a standard filter of that layer's m and k
    /// sets for the items that went there (the layers fill in order, oldest first), for every
    /// strategy: the written-out insert of enhanced double hashing and the general one.
    #[test]
    fn inserts_set_the_bits_a_standard_layer_sets() {
        for s in StrategyId::ALL {
            let params = ScalableParams::new(20, 0.01);
            let mut f =
                ScalableBloom::with_params_and(params, AnyHasher::default(), AnyStrategy(s))
                    .unwrap();
            let items = 0u64..700;
            for i in items.clone() {
                f.insert(&i.to_le_bytes());
            }
            assert!(f.layer_count() >= 5, "{s}");
            let mut next = items.start;
            for layer in f.layers() {
                let mut want = StandardBloom::with_bits_and(
                    layer.bits(),
                    layer.k(),
                    AnyHasher::default(),
                    AnyStrategy(s),
                )
                .unwrap();
                for i in next..next + layer.len() {
                    want.insert(&i.to_le_bytes());
                }
                next += layer.len();
                assert_eq!(layer.bit_vec(), want.bit_vec(), "{s}");
            }
            assert_eq!(next, items.end);
        }
    }

    #[test]
    fn grows_by_layers_with_tightening_rates() {
        let mut f = ScalableBloom::new(10, 0.01).unwrap();
        assert_eq!(f.layer_count(), 1);
        for i in 0u32..10 {
            f.insert(&i.to_le_bytes());
        }
        assert_eq!(f.layer_count(), 1);
        f.insert(b"eleventh");
        assert_eq!(f.layer_count(), 2);
        for i in 0u32..60 {
            f.insert(&(i + 100).to_le_bytes());
        }
        // 10 + 20 + 40 = 70 < 71 items: four layers.
        assert_eq!(f.layer_count(), 4);
        assert_eq!(f.capacity(), 150);
        let t = f.layer_targets();
        assert_eq!(t[0], (10, 0.005));
        assert!((t[3].1 - 0.005 / 8.0).abs() < 1e-15);
        assert_eq!(f.len(), 71);
        // The fill-based model of so small a filter (m ≈ 110 bits in layer 0) fluctuates around
        // the count-based one; only the latter is guaranteed below the bound.
        let rule = ScalableBloom::<Xxh3, EnhancedDoubleHashing>::rule(EnhancedDoubleHashing);
        let by_count = model::compound_at(10, 0.01, 2.0, 0.5, 71, rule).unwrap();
        assert!(by_count < f.compound_bound(), "{by_count}");
        assert_eq!(f.classic_params(), None);
        let d = f.details();
        assert!(d.iter().any(|(k, v)| k == "layers" && v == "4"));
    }

    #[test]
    fn nonscaling_refuses_past_capacity() {
        let mut p = ScalableParams::new(5, 0.01);
        p.nonscaling = true;
        let mut f =
            ScalableBloom::with_params_and(p, Xxh3::default(), EnhancedDoubleHashing).unwrap();
        for i in 0u8..5 {
            f.try_insert(&[i]).unwrap();
        }
        let err = f.try_insert(b"x").unwrap_err();
        assert!(matches!(err, Error::Full { len: 5, .. }), "{err}");
        assert_eq!((f.len(), f.layer_count()), (5, 1));
    }

    #[test]
    fn refuses_bad_params() {
        for (s, r) in [(0.5, 0.5), (2.0, 1.0), (2.0, 0.0), (f64::NAN, 0.5)] {
            let mut p = ScalableParams::new(100, 0.01);
            p.growth = s;
            p.tightening = r;
            assert!(
                ScalableBloom::with_params_and(p, Xxh3::default(), EnhancedDoubleHashing).is_err()
            );
        }
        assert!(ScalableBloom::new(0, 0.01).is_err());
        assert!(ScalableBloom::new(10, 1.0).is_err());
    }

    /// Independent hashes have no pattern floor, so only the hash count stops growth here.
    #[test]
    fn runs_out_of_layers_with_full_and_stays_unchanged() {
        // P_i = 1e-15·0.99·0.01^i needs k = 50, 57, 63, 70 > MAX_K: a fourth layer cannot exist.
        let mut p = ScalableParams::new(1, 1e-15);
        p.growth = 1.0;
        p.tightening = 0.01;
        let mut f = ScalableBloom::with_params_and(p, Xxh3::default(), Independent).unwrap();
        for i in 0u8..3 {
            f.try_insert(&[i]).unwrap();
        }
        assert_eq!(f.layer_count(), 3);
        let err = f.try_insert(b"four").unwrap_err();
        assert!(matches!(err, Error::Full { len: 3, .. }), "{err}");
        assert_eq!((f.len(), f.layer_count()), (3, 3));
        assert!((0u8..3).all(|i| f.contains(&[i])));
    }

    /// With enhanced double hashing the same parameters stop a layer earlier: the second layer
    /// would need ~10× the first's bits for one item (the pattern floor, `MAX_LAYER_OVERHEAD`),
    /// so growth refuses it, with `Full`, and the filter is unchanged.
    #[test]
    fn a_runaway_layer_is_refused_with_full() {
        let mut p = ScalableParams::new(1, 1e-15);
        p.growth = 1.0;
        p.tightening = 0.01;
        let mut f =
            ScalableBloom::with_params_and(p, Xxh3::default(), EnhancedDoubleHashing).unwrap();
        f.try_insert(b"one").unwrap();
        let bytes = f.bytes();
        let err = f.try_insert(b"two").unwrap_err();
        assert!(matches!(err, Error::Full { len: 1, .. }), "{err}");
        assert_eq!((f.len(), f.layer_count(), f.bytes()), (1, 1, bytes));
        assert!(f.contains(b"one"));
    }
}
