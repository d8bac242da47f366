//! The model of a scalable Bloom filter.
//!
//! Almeida, Baquero, Preguiça & Hutchison (2007), "Scalable Bloom Filters", Information
//! Processing Letters 101(6), 255–261. A scalable filter is a sequence of ordinary Bloom filters
//! ("layers"). Layer `i` (from 0) is built for
//!
//! ```text
//! capacity  n_i = n0 · s^i            (growth factor s)
//! rate      P_i = P0 · r^i            (tightening ratio r, 0 < r < 1)
//! ```
//!
//! Items go into the newest layer; a new layer is added when the newest one holds `n_i` items.
//! A query is positive when any layer answers positive, so with independent layers the compound
//! false-positive probability is
//!
//! ```text
//! P = 1 − Π_{i<l} (1 − P_i)  ≤  Σ_i P0·r^i  <  P0 / (1 − r)
//! ```
//!
//! (the paper's compound bound; the middle step is the union bound, which needs no
//! independence). Choosing `P0 = p·(1 − r)` makes the bound exactly `p` for any number of
//! layers — the price is that the first layer is built for a rate `1 − r` times tighter than `p`.
//!
//! Each layer must really be at most `P_i` at its capacity — by the rate of its integer (m, k)
//! under the index strategy used, not by the classic formula: see [`Rule`] for why the
//! difference decides the bound for filters that start small, and [`layer_fpr_bound`] for the
//! rate we size by.
//!
//! Space: a layer of capacity n at rate P needs `n·ln(1/P)/(ln 2)²` bits (Broder & Mitzenmacher
//! 2004, §2.1), so `l` layers need the geometric-type series of [`total_bits_geometric`].

use super::{Sizing, check_k, check_n, check_p, fpr_classic};
use crate::error::{Error, Param, Result};

/// Default growth factor s = 2: what RedisBloom uses (`EXPANSION 2`) and what the paper
/// recommends for slow growth (it suggests s = 4 for fast growth).
pub const DEFAULT_GROWTH: f64 = 2.0;

/// Default tightening ratio r = 0.5: RedisBloom's `ERROR_TIGHTENING_RATIO`. The paper finds
/// r ≈ 0.8–0.9 uses the least space once a filter has grown through several layers; r = 0.5 is
/// cheaper while it has at most three (it spends less of the budget `p` on the first layer). See
/// [`total_bits`] for the numbers.
pub const DEFAULT_TIGHTENING: f64 = 0.5;

/// The largest growth factor accepted (capacities overflow quickly beyond it anyway).
pub const MAX_GROWTH: f64 = 1024.0;

/// Check `1 <= s <= MAX_GROWTH` (finite).
///
/// # Errors
/// [`Error::InvalidParameter`] naming `growth`.
pub fn check_growth(s: f64) -> Result<f64> {
    if !(1.0..=MAX_GROWTH).contains(&s) {
        return Err(Error::invalid(
            Param::Growth,
            s,
            format!("a number from 1 to {MAX_GROWTH} (2 = slow growth, 4 = fast)"),
        ));
    }
    Ok(s)
}

/// Check `0 < r < 1`.
///
/// # Errors
/// [`Error::InvalidParameter`] naming `tightening`.
pub fn check_tightening(r: f64) -> Result<f64> {
    if r.is_nan() || r <= 0.0 || r >= 1.0 {
        return Err(Error::invalid(
            Param::Tightening,
            r,
            "a ratio strictly between 0 and 1 (0.5 as RedisBloom, 0.8–0.9 as the paper suggests)",
        ));
    }
    Ok(r)
}

/// The first layer's rate `P0 = p·(1 − r)`, which makes the compound bound `P0/(1 − r)` equal
/// `p` (Almeida et al. 2007).
///
/// ```
/// assert!((bloomlab::theory::scalable::first_layer_rate(0.01, 0.5) - 0.005).abs() < 1e-15);
/// ```
#[must_use]
pub fn first_layer_rate(p: f64, r: f64) -> f64 {
    p * (1.0 - r)
}

/// Layer `i`'s rate `P_i = p·(1 − r)·r^i`.
#[must_use]
pub fn layer_rate(p: f64, r: f64, i: u32) -> f64 {
    first_layer_rate(p, r) * r.powf(f64::from(i))
}

/// Layer `i`'s capacity `⌈n0·s^i⌉`, or `None` when it does not fit in a `u64`.
#[must_use]
pub fn layer_capacity(n0: u64, s: f64, i: u32) -> Option<u64> {
    let c = (n0 as f64 * s.powf(f64::from(i))).ceil();
    // 2^63: beyond it f64 → u64 saturates and nothing of that size can be allocated anyway.
    if c.is_finite() && c < (1u64 << 63) as f64 {
        Some((c as u64).max(1))
    } else {
        None
    }
}

/// The compound bound `P0/(1 − r)` (Almeida et al. 2007): no number of layers exceeds it.
///
/// ```
/// use bloomlab::theory::scalable::{compound_bound, first_layer_rate};
/// assert!((compound_bound(first_layer_rate(0.01, 0.5), 0.5) - 0.01).abs() < 1e-15);
/// ```
#[must_use]
pub fn compound_bound(p0: f64, r: f64) -> f64 {
    p0 / (1.0 - r)
}

/// The compound false-positive probability of independent layers with rates `P_i`:
/// `1 − Π(1 − P_i)` (Almeida et al. 2007).
///
/// ```
/// let p = bloomlab::theory::scalable::compound_fpr([0.005, 0.0025]);
/// assert!((p - (1.0 - 0.995 * 0.9975)).abs() < 1e-15);
/// ```
#[must_use]
pub fn compound_fpr(rates: impl IntoIterator<Item = f64>) -> f64 {
    // Π(1 − P_i) via logs: no loss of precision for tiny rates.
    let log_miss: f64 = rates.into_iter().map(|p| (-p).ln_1p()).sum();
    -log_miss.exp_m1()
}

/// How a layer's (m, k) is chosen for its capacity `n` and rate `P_i`.
///
/// Why the rule matters (numbers at p = 1%, s = 2, r = 0.5, grown 1000×, enhanced double
/// hashing; the first capacity n0 = 1 gives layers of 1, 2, 4, … items):
///
/// * **The classic formula is low at tiny m.** Layer 0 at n = 1 was sized m = 12, k = 7 because
///   `(1 − e^(−7/12))^7` = 0.329% ≤ 0.5%; the exact rate of 7 uniform probes (Bose et al. 2008)
///   is 0.647%. Layer 1 (n = 2, m = 25, k = 8): 0.249% classic, 0.384% exact against 0.25%.
///   The relative gap is O(k/m), so it fades as capacities grow (1% at n = 100, 0.1% at 1,000).
/// * **Double hashing has only m² patterns.** A query whose two hashes reduce to the same pair
///   (h1 mod m, h2 mod m) as one of the n inserted items is a false positive whatever the fill:
///   about n/m² more (measured 1.0–1.7·n/m² for enhanced double hashing, 2–4.3·n/m² for the
///   real-valued double hashing, 0 for independent hashes; 100,000 filters per point, m = 12 …
///   1,100). At m = 12, n = 1 that is 1/144 = 0.69% — more than the layer's whole 0.5%. With
///   r·s = 1 (the defaults) n_i/m_i² shrinks exactly as fast as P_i, so every layer of a filter
///   that starts small keeps the same relative excess: it does not fade with growth.
/// * The budget itself is sound: `Σ P_i = p(1 − r^l) < p`, and the compound `1 − Π(1 − P_i)` is
///   below the sum (union bound, no independence needed). Rounding of k is harmless as long as
///   each layer's rate is checked at its integer (m, k), which both rules do.
///
/// Measured with the classic rule (the `scalable-small-start` experiment's question): n0 = 1 →
/// 2.44%, 10 → 1.21%, 100 → 1.01% (20 filters each, 95% intervals [1.96, 2.93], [1.10, 1.31],
/// [0.97, 1.05]); with independent hashing n0 = 1 still gave 1.35%.
#[derive(Debug, Clone, Copy, PartialEq, serde::Serialize)]
pub enum Rule {
    /// The classic formula at capacity ≤ `P_i` ([`layer_sizing`]); how layers were sized before
    /// the bounded rule, kept so that files written then still load.
    Classic,
    /// [`layer_fpr_bound`] at capacity ≤ `P_i` ([`layer_sizing_bounded`]): a proven upper bound
    /// on the rate of independent hashing plus `excess · n/m²` for the index strategy's pattern
    /// collisions (0 for independent hashes; see the filter for each strategy's value).
    Bounded {
        /// The pattern-collision coefficient c in `c·n/m²`.
        excess: f64,
    },
}

impl Rule {
    /// The model's rate of a layer of `m` bits and `k` hashes holding `n` items under this rule:
    /// the classic formula, or [`layer_fpr_bound`].
    #[must_use]
    pub fn rate(self, m: u64, n: u64, k: u32) -> f64 {
        match self {
            Rule::Classic => fpr_classic(m, n, k),
            Rule::Bounded { excess } => layer_fpr_bound(m, n, k, excess),
        }
    }

    /// The (m, k) of a layer of capacity `n` at rate `p` under this rule.
    ///
    /// # Errors
    /// As [`layer_sizing`] / [`layer_sizing_bounded`].
    pub fn sizing(self, n: u64, p: f64) -> Result<Sizing> {
        match self {
            Rule::Classic => layer_sizing(n, p),
            Rule::Bounded { excess } => layer_sizing_bounded(n, p, excess),
        }
    }
}

/// Probes (k·n) up to which [`layer_fpr_bound`] computes the exact rate of independent hashing
/// instead of its upper bound (at most 200² steps of the recurrence: a layer is sized in well
/// under a millisecond in a release build).
const EXACT_PROBES: u64 = 200;

/// An upper bound on the false-positive rate of a layer of `m` bits and `k` hashes holding `n`
/// items, for an index strategy with pattern-collision coefficient `excess`:
///
/// ```text
/// B = F(m, n, k) + excess · n / m²
/// F = Σ_d Pr[D = d] · q^d,   q = 1 − (1 − 1/m)^(kn)
/// ```
///
/// `F` bounds the rate of k independent uniform probes: a query whose probes hit `d` distinct
/// bits (D, the distinct values among k uniform draws from m) is positive when those d bits are
/// all set, and bit occupancies after uniform throws are negatively associated (Dubhashi &
/// Ranjan 1998, "Balls and bins: a study in negative dependence", RSA 13(2)), so that chance is
/// at most `q^d`. `F` is within 0.3% of the exact rate at n = 1,000 and 2% at n = 100; for
/// tiny layers (kn ≤ 200, whatever m, so the bound stays decreasing in m) the exact rate itself is computed instead (the
/// occupancy distribution by its one-probe recurrence, Bose et al. 2008). Both are computed
/// here, self-contained, so a layer's size never changes with another module's numerics (files
/// check layer sizes against this rule). The second term is the double-hashing floor (see
/// [`Rule`]).
///
/// ```
/// use bloomlab::theory::{fpr_exact, scalable::layer_fpr_bound};
/// // m = 12, n = 1, k = 7: exact 0.647%; plus 2/144 for enhanced double hashing.
/// let b = layer_fpr_bound(12, 1, 7, 0.0);
/// assert!((b - fpr_exact(12, 1, 7)).abs() < 1e-12);
/// assert!((layer_fpr_bound(12, 1, 7, 2.0) - b - 2.0 / 144.0).abs() < 1e-12);
/// // Large layers: the bound, just above the exact rate.
/// let (e, f) = (fpr_exact(11_000, 1_000, 8), layer_fpr_bound(11_000, 1_000, 8, 0.0));
/// assert!(f >= e && f < e * 1.003, "{e} {f}");
/// ```
#[must_use]
pub fn layer_fpr_bound(m: u64, n: u64, k: u32, excess: f64) -> f64 {
    if m == 0 {
        return 1.0;
    }
    if n == 0 {
        return 0.0;
    }
    let mf = m as f64;
    let t = u64::from(k).saturating_mul(n);
    let base = if t <= EXACT_PROBES {
        exact_small(m, t, k)
    } else {
        distinct_bound(m, t, k)
    };
    (base + excess * n as f64 / (mf * mf)).min(1.0)
}

/// `Σ_x Pr[X = x]·(x/m)^k` with X the occupied bits after `t` uniform probes (full recurrence,
/// no truncation; only for small `t`).
fn exact_small(m: u64, t: u64, k: u32) -> f64 {
    let mf = m as f64;
    let top = t.min(m) as usize;
    let mut pr = vec![0.0f64; top + 1];
    pr[0] = 1.0;
    for step in 0..t as usize {
        for x in (0..=top.min(step + 1)).rev() {
            let stay = pr[x] * x as f64 / mf;
            let come = if x > 0 {
                pr[x - 1] * (mf - (x - 1) as f64) / mf
            } else {
                0.0
            };
            pr[x] = stay + come;
        }
    }
    pr.iter()
        .enumerate()
        .map(|(x, &w)| w * (x as f64 / mf).powi(k as i32))
        .sum()
}

/// `Σ_d Pr[D = d]·q^d` (see [`layer_fpr_bound`]).
fn distinct_bound(m: u64, t: u64, k: u32) -> f64 {
    let mf = m as f64;
    let q = -(t as f64 * (-1.0 / mf).ln_1p()).exp_m1();
    let top = (k as usize).min(m as usize);
    let mut pr = vec![0.0f64; top + 1];
    pr[0] = 1.0;
    for step in 0..k as usize {
        for d in (0..=top.min(step + 1)).rev() {
            let stay = pr[d] * d as f64 / mf;
            let come = if d > 0 {
                pr[d - 1] * (mf - (d - 1) as f64) / mf
            } else {
                0.0
            };
            pr[d] = stay + come;
        }
    }
    pr.iter()
        .enumerate()
        .map(|(d, &w)| w * q.powi(d as i32))
        .sum()
}

/// Stirling numbers of the second kind `S(k, d)`, d = 0 … k, as floats (k ≤ [`super::MAX_K`]):
/// `S(n, d) = d·S(n − 1, d) + S(n − 1, d − 1)`.
fn stirling_row(k: u32) -> [f64; super::MAX_K as usize + 1] {
    let mut row = [0.0; super::MAX_K as usize + 1];
    row[0] = 1.0;
    for n in 1..=k as usize {
        for d in (1..=n).rev() {
            row[d] = d as f64 * row[d] + row[d - 1];
        }
        row[0] = 0.0;
    }
    row
}

/// [`distinct_bound`] for `m ≥ k` by the closed form of the distinct count, `Pr[D = d] =
/// S(k, d)·m(m − 1)…(m − d + 1)/m^k` (`stirling` = [`stirling_row`] of k): O(k) operations
/// instead of the recurrence's O(k²) — the same sum of positive terms, rounded differently (both
/// within about 4·k·2⁻⁵³ of the true value, relatively). The terms go from d = k down, as
/// `c_d = q^d·m^(d−k)·Π_{j<d}(1 − j/m)` with `c_(d−1) = c_d / ((m − d + 1)·q)`, so nothing
/// underflows before it is negligible.
fn distinct_bound_closed(m: u64, t: u64, k: u32, stirling: &[f64]) -> f64 {
    let mf = m as f64;
    // As in `distinct_bound`, bit for bit.
    let q = -(t as f64 * (-1.0 / mf).ln_1p()).exp_m1();
    let k = k as usize;
    let mut c = q.powi(k as i32);
    for j in 1..k {
        c *= 1.0 - j as f64 / mf;
    }
    let mut sum = 0.0;
    for d in (1..=k).rev() {
        sum += stirling[d] * c;
        c /= (mf - (d - 1) as f64) * q;
    }
    sum
}

/// Relative distance from `p` within which [`bound_at_most`] does not trust the closed form: far
/// above the ~10⁻¹³ by which it and [`layer_fpr_bound`] can differ (k ≤ 64 roundings of
/// 2⁻⁵³ each, on either side).
const CLOSED_FORM_MARGIN: f64 = 1e-9;

/// Whether `layer_fpr_bound(m, n, k, excess) ≤ p` — always that function's answer, so that
/// layer sizes (which saved files are checked against) do not depend on this shortcut. Decided by
/// [`distinct_bound_closed`] when its value is clearly on one side of `p` (for `m ≥ 2k` and more
/// than [`EXACT_PROBES`] probes), by [`layer_fpr_bound`] itself otherwise.
fn bound_at_most(m: u64, n: u64, k: u32, excess: f64, p: f64, stirling: &[f64]) -> bool {
    let t = u64::from(k).saturating_mul(n);
    if n > 0 && t > EXACT_PROBES && m >= 2 * u64::from(k) {
        let mf = m as f64;
        let fast =
            (distinct_bound_closed(m, t, k, stirling) + excess * n as f64 / (mf * mf)).min(1.0);
        if fast.is_finite() && fast > 1e-290 {
            if fast > p * (1.0 + CLOSED_FORM_MARGIN) {
                return false;
            }
            if fast < p * (1.0 - CLOSED_FORM_MARGIN) {
                return true;
            }
        }
    }
    layer_fpr_bound(m, n, k, excess) <= p
}

/// The (m, k) of one layer under [`Rule::Bounded`]: the fewest bits (then the fewest hashes) for
/// which [`layer_fpr_bound`] at `n` items is at most `p`, over k from log2(1/p) − 2 to
/// log2(1/p) + 4 (the bound is decreasing in m, so each k's m is found by bisection).
///
/// ```
/// use bloomlab::theory::scalable::{layer_fpr_bound, layer_sizing_bounded};
/// let s = layer_sizing_bounded(1, 0.005, 2.0).unwrap();   // the old rule gave m = 12, k = 7
/// assert!(layer_fpr_bound(s.m, 1, s.k, 2.0) <= 0.005);
/// assert!(layer_fpr_bound(s.m - 1, 1, s.k, 2.0) > 0.005);
/// assert_eq!((s.m, s.k), (21, 6));
/// ```
///
/// # Errors
/// Invalid `n` or `p`; k beyond [`super::MAX_K`]; m beyond 2^63.
pub fn layer_sizing_bounded(n: u64, p: f64, excess: f64) -> Result<Sizing> {
    check_n(n)?;
    check_p(p)?;
    let k_real = -p.log2();
    let mid = k_real.floor().max(1.0) as u32;
    let mut best: Option<Sizing> = None;
    for k in mid.saturating_sub(2).max(1)..=mid + 4 {
        if check_k(k).is_err() {
            continue;
        }
        // `ok(m)`: the bound at m bits is at most p (decided as `layer_fpr_bound` decides it,
        // mostly in O(k) instead of O(k²)).
        let stirling = stirling_row(k);
        let ok = |m: u64| bound_at_most(m, n, k, excess, p, &stirling);
        // Start from the classic closed form (below the answer but close to it) and step up by
        // an eighth until the bound holds, then bisect: f(lo) > p >= f(hi).
        let kf = f64::from(k);
        let guess = (-kf * n as f64 / (-(p.powf(1.0 / kf))).ln_1p()).ceil();
        if !(guess.is_finite() && guess < 4.0e18) {
            continue;
        }
        let mut hi = (guess as u64).max(2);
        let mut lo = 0u64;
        let below = hi - hi / 8 - 1;
        if ok(hi) && below > 0 && !ok(below) {
            lo = below;
        }
        while !ok(hi) && hi < 1 << 62 {
            lo = hi;
            hi += hi / 8 + 1;
        }
        if !ok(hi) {
            continue;
        }
        while hi - lo > 1 {
            let mid = lo + (hi - lo) / 2;
            if ok(mid) {
                hi = mid;
            } else {
                lo = mid;
            }
        }
        if best.is_none_or(|b| hi < b.m) {
            best = Some(Sizing { m: hi, k });
        }
    }
    best.ok_or_else(|| {
        Error::invalid(
            Param::P,
            crate::units::format_number(p),
            format!(
                "a layer rate that needs at most {} hash functions and 2^63 bits",
                super::MAX_K
            ),
        )
    })
}

/// The **legacy** (m, k) of one layer ([`Rule::Classic`], how files written before the
/// bounded rule were sized): the fewest bits for which the classic rate at `n` items,
/// `(1 − e^(−kn/m))^k`, is **at most** `p`, over the two integers around the real optimum
/// k* = log2(1/p). New layers use [`layer_sizing_bounded`].
///
/// Guava's sizing (`m = ⌊−n ln p/(ln 2)²⌋`, k rounded) can miss `p` by about 1% once k is
/// rounded; a layer must not, or the compound bound `p` would not hold. Inverting the classic
/// formula (Broder & Mitzenmacher 2004, eq. (1)) for a fixed k gives `m = −k·n / ln(1 − p^(1/k))`.
///
/// The guarantee is for the classic formula only, and that is why this rule is retired: the
/// exact rate of independent uniform hashing (Bose et al. 2008, [`super::fpr_exact`]) is higher
/// by O(k/m) — 0.005004 against 0.004999 at n = 1,000, p = 0.005, but **twice** the target at
/// n = 1 (m = 12, k = 7: exact 0.647% against classic 0.329%) — and double hashing adds its
/// pattern collisions on top (see [`Rule::Bounded`]).
///
/// ```
/// use bloomlab::theory::{fpr_classic, scalable::layer_sizing};
/// let s = layer_sizing(1_000, 0.005).unwrap();
/// assert_eq!(s.k, 8);
/// assert!(fpr_classic(s.m, 1_000, s.k) <= 0.005);
/// assert!(fpr_classic(s.m - 1, 1_000, s.k) > 0.005); // and no bit more than needed
/// ```
///
/// # Errors
/// Invalid `n` or `p`; k beyond [`super::MAX_K`]; m beyond 64 bits.
pub fn layer_sizing(n: u64, p: f64) -> Result<Sizing> {
    check_n(n)?;
    check_p(p)?;
    let k_real = -p.log2();
    let lo = (k_real.floor() as u32).max(1);
    let mut best: Option<Sizing> = None;
    for k in [lo, lo + 1] {
        if check_k(k).is_err() {
            continue;
        }
        let kf = f64::from(k);
        // ln(1 − p^(1/k)) computed as ln_1p(−p^(1/k)).
        let m = (-kf * n as f64 / (-(p.powf(1.0 / kf))).ln_1p()).ceil();
        if !m.is_finite() || m >= 9.0e18 {
            continue;
        }
        let mut m = (m as u64).max(1);
        // Guard against rounding in the closed form: step until the classic rate is ≤ p.
        while fpr_classic(m, n, k) > p {
            m += 1;
        }
        while m > 1 && fpr_classic(m - 1, n, k) <= p {
            m -= 1;
        }
        if best.is_none_or(|b| m < b.m) {
            best = Some(Sizing { m, k });
        }
    }
    best.ok_or_else(|| {
        Error::invalid(
            Param::P,
            crate::units::format_number(p),
            format!(
                "a layer rate that needs at most {} hash functions and 2^63 bits",
                super::MAX_K
            ),
        )
    })
}

/// One layer of the model.
#[derive(Debug, Clone, Copy, PartialEq, serde::Serialize)]
pub struct Layer {
    /// Items the layer is built for.
    pub capacity: u64,
    /// The rate it is built for (`P_i`).
    pub rate: f64,
    /// Its bits and hash functions ([`Rule::sizing`]).
    pub sizing: Sizing,
}

/// Layer `i` of a filter with first capacity `n0`, overall rate `p`, growth `s`, tightening `r`,
/// sized by `rule`.
///
/// # Errors
/// Invalid parameters; capacity or k out of range.
pub fn layer(n0: u64, p: f64, s: f64, r: f64, i: u32, rule: Rule) -> Result<Layer> {
    check_n(n0)?;
    check_p(p)?;
    check_growth(s)?;
    check_tightening(r)?;
    let capacity = layer_capacity(n0, s, i).ok_or_else(|| {
        Error::invalid(
            Param::N,
            n0,
            format!("small enough that layer {i} (n0·s^{i}) fits in 64 bits"),
        )
    })?;
    let rate = layer_rate(p, r, i);
    let sizing = rule.sizing(capacity, rate)?;
    Ok(Layer {
        capacity,
        rate,
        sizing,
    })
}

/// A grown layer may cost at most this many times more bits, relative to an ideal filter for
/// its capacity and rate (`n·ln(1/P_i)/ln²2`, [`super::optimal_bits`]), than the first layer
/// does (or than an ideal filter, when the first layer is within ideal).
///
/// Why a cap: a strategy built from two hash values (enhanced double hashing) has a floor
/// `≈ c·n/m²` under its false-positive rate (Kirsch & Mitzenmacher 2008; the bounded rule sizes
/// for it), so reaching `P_i` needs `m ≳ sqrt(c·n/P_i)` however many hashes are used. With
/// slow growth and strong tightening `n·P_i` shrinks every layer, and each layer costs more
/// bits per item than the one before without end: growth 1, tightening 0.3 from `n0 = 20`
/// needed 72 MB for 500 items in 26 layers and ~20 GB a dozen layers later (measured). Past
/// this cap the layer is refused, so the filter reports `Full` instead of exhausting memory.
/// Default growth and tightening keep `n·P_i` constant, and with it the overhead: their layers
/// are never refused (a test checks first capacities from 1 to 10^6).
pub const MAX_LAYER_OVERHEAD: f64 = 8.0;

/// Bits of `l` over the ideal filter's for its capacity and rate (at least 1 ideal bit).
///
/// # Errors
/// A capacity or rate [`super::optimal_bits`] refuses.
pub fn layer_overhead(l: &Layer) -> Result<f64> {
    let ideal = super::optimal_bits(l.capacity, l.rate)? as f64;
    Ok(l.sizing.m as f64 / ideal.max(1.0))
}

/// `l`, layer `i ≥ 1` of a growing filter whose first layer's [`layer_overhead`] is `first`,
/// or the error that refuses it: its overhead exceeds [`MAX_LAYER_OVERHEAD`] times `first`
/// (taken as at least 1).
///
/// # Errors
/// [`Error::InvalidParameter`] for [`Param::P`] when the layer is too costly.
pub fn check_grown(l: Layer, i: u32, first: f64) -> Result<Layer> {
    let cap = MAX_LAYER_OVERHEAD * first.max(1.0);
    let here = layer_overhead(&l)?;
    if here > cap {
        return Err(Error::invalid(
            Param::P,
            l.rate,
            format!(
                "a layer rate reachable within {cap:.1}× an ideal filter's bits (layer {i}: \
                 {} items at rate {:.3e} need {} bits, {here:.1}× ideal)",
                l.capacity, l.rate, l.sizing.m
            ),
        ));
    }
    Ok(l)
}

/// Layer `i` as a growing filter builds it: [`layer`], and for `i ≥ 1` refused by
/// [`check_grown`] against the first layer's overhead. Loading a saved filter checks its
/// layers with [`layer`] alone, so no file written before the cap is refused.
///
/// # Errors
/// As [`layer`] and [`check_grown`].
pub fn grown_layer(n0: u64, p: f64, s: f64, r: f64, i: u32, rule: Rule) -> Result<Layer> {
    let l = layer(n0, p, s, r, i, rule)?;
    if i == 0 {
        return Ok(l);
    }
    check_grown(l, i, layer_overhead(&layer(n0, p, s, r, 0, rule)?)?)
}

/// The layers a filter has after `items` inserts (at least one), each with the number of items
/// it holds: all full except the last.
///
/// # Errors
/// Invalid parameters; a layer out of range.
pub fn layers_for(
    n0: u64,
    p: f64,
    s: f64,
    r: f64,
    items: u64,
    rule: Rule,
) -> Result<Vec<(Layer, u64)>> {
    let mut out = Vec::new();
    let mut left = items;
    let mut i = 0u32;
    loop {
        let l = layer(n0, p, s, r, i, rule)?;
        let here = left.min(l.capacity);
        out.push((l, here));
        left -= here;
        if left == 0 {
            return Ok(out);
        }
        i += 1;
    }
}

/// The compound rate after `items` inserts, each layer at its rule's rate ([`Rule::rate`]) for
/// the items it holds: `1 − Π(1 − R_i)`. Never above `p` (every full layer is at most `P_i` by
/// its sizing, and `Σ P_i < p`).
///
/// ```
/// use bloomlab::theory::scalable::{Rule, compound_at};
/// // 1,000 → 1,000,000 items at p = 1%: ten layers, the last 95.5% full.
/// let c = compound_at(1_000, 0.01, 2.0, 0.5, 1_000_000, Rule::Bounded { excess: 2.0 }).unwrap();
/// assert!(c <= 0.01 && c > 0.0099, "{c}");
/// ```
///
/// # Errors
/// As [`layers_for`].
pub fn compound_at(n0: u64, p: f64, s: f64, r: f64, items: u64, rule: Rule) -> Result<f64> {
    Ok(compound_fpr(
        layers_for(n0, p, s, r, items, rule)?
            .iter()
            .map(|(l, held)| rule.rate(l.sizing.m, *held, l.sizing.k)),
    ))
}

/// Total bits of the layers needed to hold `items` items (the sum of the layers' m).
///
/// With n0 = 1,000, p = 1% and s = 2 (computed with this function, enhanced double hashing's
/// rule):
///
/// | items | layers | r = 0.5 | r = 0.85 |
/// |---|---|---|---|
/// | 1,000 | 1 | 11,047 bits | 13,563 |
/// | 7,000 | 3 | 91,716 | 98,215 |
/// | 15,000 | 4 | 214,639 | 214,634 |
/// | 1,000,000 | 10 | 23,108,222 (23.1 bits/item) | 16,622,988 (16.6) |
///
/// r = 0.5 is cheaper for up to three layers, r = 0.85 from four on; a single standard filter
/// sized for 10⁶ items at 1% takes 9,585,058 bits (9.6 bits/item): growing 1000× costs 2.4×.
/// The bounded rule costs 0.01% more than the legacy classic one here (23,106,435 bits), 0.8%
/// from n0 = 10 and 10% from n0 = 1 (25.5 against 23.1 bits per item), where the pattern term
/// dominates the small layers.
///
/// ```
/// use bloomlab::theory::scalable::{Rule, total_bits};
/// let ed = Rule::Bounded { excess: 2.0 };
/// assert_eq!(total_bits(1_000, 0.01, 2.0, 0.5, 1_000_000, ed).unwrap(), 23_108_222);
/// assert_eq!(total_bits(1_000, 0.01, 2.0, 0.85, 1_000_000, ed).unwrap(), 16_622_988);
/// assert_eq!(total_bits(1_000, 0.01, 2.0, 0.5, 1_000_000, Rule::Classic).unwrap(), 23_106_435);
/// ```
///
/// # Errors
/// As [`layers_for`].
pub fn total_bits(n0: u64, p: f64, s: f64, r: f64, items: u64, rule: Rule) -> Result<u64> {
    Ok(layers_for(n0, p, s, r, items, rule)?
        .iter()
        .map(|(l, _)| l.sizing.m)
        .sum())
}

/// The closed form of the total bits of `l` layers with real (unrounded) optimal sizing
/// `m_i = n_i·ln(1/P_i)/(ln 2)²`:
///
/// ```text
/// M_l = n0/(ln 2)² · [ ln(1/P0) · Σ_{i<l} s^i  +  ln(1/r) · Σ_{i<l} i·s^i ]
/// Σ_{i<l} s^i = (s^l − 1)/(s − 1),   Σ_{i<l} i·s^i = s·(1 − l·s^(l−1) + (l−1)·s^l)/(1 − s)²
/// ```
///
/// (for s = 1: `l` and `l(l−1)/2`). The second sum is why the bits per item grow without limit
/// as layers are added: each layer pays `log2(1/r)` more hash functions (Almeida et al. 2007).
///
/// ```
/// use bloomlab::theory::scalable::{Rule, total_bits, total_bits_geometric};
/// let exact = total_bits(1_000, 0.01, 2.0, 0.5, 1_023_000, Rule::Classic).unwrap() as f64;
/// let closed = total_bits_geometric(1_000, 0.01, 2.0, 0.5, 10);
/// assert!((exact / closed - 1.0).abs() < 0.01, "{exact} {closed}");
/// ```
#[must_use]
pub fn total_bits_geometric(n0: u64, p: f64, s: f64, r: f64, l: u32) -> f64 {
    let ln2sq = std::f64::consts::LN_2 * std::f64::consts::LN_2;
    let lf = f64::from(l);
    let (sum_s, sum_is) = if (s - 1.0).abs() < 1e-12 {
        (lf, lf * (lf - 1.0) / 2.0)
    } else {
        (
            (s.powf(lf) - 1.0) / (s - 1.0),
            s * (1.0 - lf * s.powf(lf - 1.0) + (lf - 1.0) * s.powf(lf)) / ((1.0 - s) * (1.0 - s)),
        )
    };
    let p0 = first_layer_rate(p, r);
    n0 as f64 / ln2sq * ((1.0 / p0).ln() * sum_s + (1.0 / r).ln() * sum_is)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::theory::fpr_exact;

    /// Enhanced double hashing's coefficient (the filter's default strategy).
    const ED: Rule = Rule::Bounded { excess: 2.0 };

    /// Slow growth with strong tightening: the layers' cost per item climbs until growth
    /// refuses one, long before the hash count runs out, and every layer before it is within
    /// the cap.
    #[test]
    fn grown_layers_refuse_a_runaway_cost() {
        let (n0, s, r) = (20, 1.0, 0.3);
        let first_refused = (1..64)
            .find(|&i| grown_layer(n0, 0.01, s, r, i, ED).is_err())
            .unwrap();
        assert!(layer(n0, 0.01, s, r, first_refused, ED).is_ok());
        let bits: u64 = (0..first_refused)
            .map(|i| grown_layer(n0, 0.01, s, r, i, ED).unwrap().sizing.m)
            .sum();
        let last = layer(n0, 0.01, s, r, first_refused - 1, ED).unwrap();
        assert!(layer_overhead(&last).unwrap() <= MAX_LAYER_OVERHEAD);
        // Under 2 MB in all, where the uncapped layers reach 72 MB by layer 26.
        assert!(bits < 16_000_000, "{first_refused} layers, {bits} bits");
        assert!((5..26).contains(&first_refused), "{first_refused}");
    }

    /// Default growth and tightening keep n·P_i constant: no layer that exists is refused, for
    /// first capacities from 1 to 10^6 and rates from 10% to 10^-6 (up to 40 layers).
    #[test]
    fn default_growth_is_never_capped() {
        for n0 in [1, 3, 10, 100, 1_000, 100_000, 1_000_000] {
            for p in [0.1, 0.01, 1e-4, 1e-6] {
                for i in 0..40 {
                    let plain = layer(n0, p, DEFAULT_GROWTH, DEFAULT_TIGHTENING, i, ED);
                    let grown = grown_layer(n0, p, DEFAULT_GROWTH, DEFAULT_TIGHTENING, i, ED);
                    assert_eq!(plain.is_ok(), grown.is_ok(), "n0={n0} p={p} layer {i}");
                    if plain.is_err() {
                        break;
                    }
                }
            }
        }
    }

    /// `layer_sizing_bounded` as it was before the closed-form shortcut: every comparison by
    /// `layer_fpr_bound` itself.
    fn sizing_reference(n: u64, p: f64, excess: f64) -> Option<(u64, u32)> {
        let mid = (-p.log2()).floor().max(1.0) as u32;
        let f = |m: u64, k: u32| layer_fpr_bound(m, n, k, excess);
        let mut best: Option<(u64, u32)> = None;
        for k in mid.saturating_sub(2).max(1)..=mid + 4 {
            if check_k(k).is_err() {
                continue;
            }
            let kf = f64::from(k);
            let guess = (-kf * n as f64 / (-(p.powf(1.0 / kf))).ln_1p()).ceil();
            if !(guess.is_finite() && guess < 4.0e18) {
                continue;
            }
            let mut hi = (guess as u64).max(2);
            let mut lo = 0u64;
            let below = hi - hi / 8 - 1;
            if f(hi, k) <= p && below > 0 && f(below, k) > p {
                lo = below;
            }
            while f(hi, k) > p && hi < 1 << 62 {
                lo = hi;
                hi += hi / 8 + 1;
            }
            if f(hi, k) > p {
                continue;
            }
            while hi - lo > 1 {
                let mid = lo + (hi - lo) / 2;
                if f(mid, k) <= p {
                    hi = mid;
                } else {
                    lo = mid;
                }
            }
            if best.is_none_or(|b| hi < b.0) {
                best = Some((hi, k));
            }
        }
        best
    }

    /// The closed form agrees with the recurrence to 10⁻¹², three orders inside the margin the
    /// shortcut keeps, from m = 2k to 2^40 bits, k = 1 … 64 (where the value is not subnormal).
    #[test]
    fn closed_form_matches_the_recurrence() {
        for k in [1u32, 2, 5, 8, 13, 17, 20, 33, 64] {
            let st = stirling_row(k);
            for m in [
                2 * u64::from(k),
                3 * u64::from(k) + 1,
                100,
                1_000,
                95_851,
                1 << 20,
                1 << 40,
            ] {
                if m < 2 * u64::from(k) {
                    continue;
                }
                for t in [201u64, 1_000, 77_777, 1 << 30] {
                    let (a, b) = (distinct_bound(m, t, k), distinct_bound_closed(m, t, k, &st));
                    if a < 1e-280 {
                        // Underflowed on both sides; the shortcut does not use values below 1e-290.
                        assert!(b < 1e-270, "m {m} t {t} k {k}: {b}");
                        continue;
                    }
                    assert!((a - b).abs() <= 1e-12 * a, "m {m} t {t} k {k}: {a} vs {b}");
                }
            }
        }
    }

    /// The shortcut changes no layer size: the same (m, k) as every comparison made by
    /// `layer_fpr_bound`, for capacities 1 to 10⁶, rates 0.3 to 10⁻¹⁸, each strategy coefficient
    /// (the layers of every filter grown from these, so saved files keep loading).
    #[test]
    fn sizing_shortcut_gives_the_reference_sizes() {
        for excess in [0.0, 2.0, 6.0] {
            for n in [
                1u64, 2, 3, 7, 10, 29, 40, 100, 640, 1_000, 5_120, 12_345, 1_000_000,
            ] {
                for p in [0.3, 0.05, 0.01, 0.005, 0.001, 9.765625e-6, 1e-9, 1e-18] {
                    let new = layer_sizing_bounded(n, p, excess).ok().map(|s| (s.m, s.k));
                    assert_eq!(
                        new,
                        sizing_reference(n, p, excess),
                        "n {n} p {p} c {excess}"
                    );
                }
            }
        }
    }

    /// The layers a filter has after growing `times`× from `n0`, with the capacity they hold.
    fn grown(n0: u64, s: f64, r: f64, times: u64, rule: Rule) -> Vec<(Layer, u64)> {
        layers_for(n0, 0.01, s, r, n0 * times, rule).unwrap()
    }

    /// The compound bound, proved through the union bound: every layer's rate **at its full
    /// capacity** (an upper bound on its rate at any fill) summed over the layers is at most p,
    /// for first capacities 1 to 1,000 grown 1000× (and n0 = 1 grown 2^20×), growth 2 and 4,
    /// tightening 0.5 and 0.8, each strategy coefficient.
    #[test]
    fn sum_of_layer_rates_at_capacity_is_below_p() {
        for excess in [0.0, 2.0, 6.0] {
            let rule = Rule::Bounded { excess };
            for &(s, r) in &[(2.0, 0.5), (4.0, 0.5), (2.0, 0.8), (4.0, 0.8)] {
                for (n0, times) in [
                    (1u64, 1_000u64),
                    (1, 1 << 20),
                    (10, 1_000),
                    (100, 1_000),
                    (1_000, 1_000),
                ] {
                    let ls = grown(n0, s, r, times, rule);
                    let sum: f64 = ls
                        .iter()
                        .map(|(l, _)| rule.rate(l.sizing.m, l.capacity, l.sizing.k))
                        .sum();
                    assert!(sum <= 0.01, "c={excess} s={s} r={r} n0={n0}: Σ = {sum}");
                    for (l, _) in &ls {
                        let at_cap = rule.rate(l.sizing.m, l.capacity, l.sizing.k);
                        assert!(at_cap <= l.rate, "{l:?} {at_cap}");
                        // The bound is an upper bound of the exact rate of independent hashing.
                        if excess == 0.0 && l.capacity <= 500 {
                            let e = fpr_exact(l.sizing.m, l.capacity, l.sizing.k);
                            let b = layer_fpr_bound(l.sizing.m, l.capacity, l.sizing.k, 0.0);
                            assert!(e <= b * (1.0 + 1e-9), "{l:?} exact {e} bound {b}");
                        }
                    }
                }
            }
        }
    }

    /// The cause, in numbers: under the classic rule the first layers of a filter that starts at
    /// one item are over their share by the exact rate alone, and the sum over the layers is
    /// above p (1.28% with enhanced double hashing's pattern term).
    #[test]
    fn classic_rule_overshoots_small_first_layers() {
        let ls = grown(1, 2.0, 0.5, 1_000, Rule::Classic);
        let l0 = ls[0].0;
        assert_eq!((l0.sizing.m, l0.sizing.k), (12, 7));
        let exact = fpr_exact(12, 1, 7);
        assert!(exact > 0.0064 && exact > l0.rate, "{exact}");
        let sum_exact: f64 = ls
            .iter()
            .map(|(l, _)| fpr_exact(l.sizing.m, l.capacity, l.sizing.k))
            .sum();
        let sum_ed: f64 = ls
            .iter()
            .map(|(l, _)| ED.rate(l.sizing.m, l.capacity, l.sizing.k))
            .sum();
        println!("classic rule, n0 = 1: Σ exact {sum_exact:.5}, Σ with pattern term {sum_ed:.5}");
        assert!(sum_exact > 0.0105, "{sum_exact}");
        assert!(sum_ed > 0.02, "{sum_ed}");
    }

    #[test]
    fn bound_matches_exact_for_tiny_layers_and_is_decreasing_in_m() {
        for &(n, k) in &[(1u64, 7u32), (2, 8), (10, 7), (40, 9)] {
            let mut last = 1.0;
            for m in 1..400u64 {
                let b = layer_fpr_bound(m, n, k, 2.0);
                assert!(b <= last + 1e-15, "n={n} k={k} m={m}");
                last = b;
                if u64::from(k) * n <= EXACT_PROBES {
                    let e = fpr_exact(m, n, k) + 2.0 * n as f64 / (m * m) as f64;
                    assert!((b - e.min(1.0)).abs() < 1e-9, "n={n} k={k} m={m} {b} {e}");
                }
            }
        }
    }

    #[test]
    fn layer_sizing_meets_its_rate_for_many_rates() {
        for &n in &[1u64, 10, 1_000, 123_457] {
            for &p in &[0.3, 0.1, 0.01, 0.005, 1e-4, 3e-7] {
                let s = layer_sizing(n, p).unwrap();
                assert!(fpr_classic(s.m, n, s.k) <= p, "n={n} p={p} {s:?}");
                // Within a few percent of the real-k optimum n·ln(1/p)/(ln 2)².
                let opt = n as f64 * (1.0 / p).ln() / (std::f64::consts::LN_2.powi(2));
                assert!(
                    s.m as f64 <= opt * 1.03 + 2.0,
                    "n={n} p={p} {s:?} opt={opt}"
                );
            }
        }
    }

    #[test]
    fn compound_never_exceeds_bound() {
        for &(s, r) in &[(2.0, 0.5), (4.0, 0.5), (2.0, 0.9), (1.5, 0.8)] {
            for items in [1u64, 999, 1_000, 1_001, 50_000, 777_777] {
                let c = compound_at(1_000, 0.01, s, r, items, ED).unwrap();
                assert!(c <= 0.01, "s={s} r={r} items={items} c={c}");
            }
        }
        // s = 1: a layer of n0 per 1,000 items, k growing by log2(1/r) each time.
        assert!(compound_at(1_000, 0.01, 1.0, 0.8, 50_000, ED).unwrap() <= 0.01);
        // Rates form the series whose sum is the bound.
        let sum: f64 = (0..60).map(|i| layer_rate(0.01, 0.5, i)).sum();
        assert!((sum - 0.01).abs() < 1e-12);
    }

    #[test]
    fn layer_counts_and_capacities() {
        let ls = layers_for(1_000, 0.01, 2.0, 0.5, 1_000_000, ED).unwrap();
        assert_eq!(ls.len(), 10);
        assert_eq!(ls[9].0.capacity, 512_000);
        assert_eq!(ls[9].1, 1_000_000 - 511_000);
        assert_eq!(
            layers_for(1_000, 0.01, 2.0, 0.5, 1_000, ED).unwrap().len(),
            1
        );
        assert_eq!(
            layers_for(1_000, 0.01, 2.0, 0.5, 1_001, ED).unwrap().len(),
            2
        );
        // k grows by log2(1/r) = 1 per layer at r = 0.5.
        assert_eq!(ls[0].0.sizing.k + 9, ls[9].0.sizing.k);
        assert_eq!(layer_capacity(1, 2.0, 70), None);
    }

    #[test]
    fn refuses_bad_growth_and_tightening() {
        for s in [0.5, 0.0, -1.0, f64::NAN, f64::INFINITY, 2000.0] {
            assert!(matches!(
                check_growth(s),
                Err(Error::InvalidParameter {
                    param: Param::Growth,
                    ..
                })
            ));
        }
        for r in [0.0, 1.0, -0.5, 1.5, f64::NAN] {
            assert!(matches!(
                check_tightening(r),
                Err(Error::InvalidParameter {
                    param: Param::Tightening,
                    ..
                })
            ));
        }
    }

    #[test]
    fn geometric_closed_form_matches_sum_for_s_one() {
        let l = 5u32;
        let direct: f64 = (0..l)
            .map(|i| 1_000.0 * (1.0 / layer_rate(0.01, 0.8, i)).ln())
            .sum::<f64>()
            / std::f64::consts::LN_2.powi(2);
        let closed = total_bits_geometric(1_000, 0.01, 1.0, 0.8, l);
        assert!((direct / closed - 1.0).abs() < 1e-12);
        let direct4: f64 = (0..l)
            .map(|i| 1_000.0 * 4f64.powi(i as i32) * (1.0 / layer_rate(0.01, 0.8, i)).ln())
            .sum::<f64>()
            / std::f64::consts::LN_2.powi(2);
        let closed4 = total_bits_geometric(1_000, 0.01, 4.0, 0.8, l);
        assert!((direct4 / closed4 - 1.0).abs() < 1e-12);
    }
}
