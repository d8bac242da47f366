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

/// The (m, k) of one layer: the fewest bits for which the classic rate at `n` items,
/// `(1 − e^(−kn/m))^k`, is **at most** `p`, over the two integers around the real optimum
/// k* = log2(1/p).
///
/// Guava's sizing (`m = ⌊−n ln p/(ln 2)²⌋`, k rounded) can miss `p` by about 1% once k is
/// rounded; a layer must not, or the compound bound `p` would not hold. Inverting the classic
/// formula (Broder & Mitzenmacher 2004, eq. (1)) for a fixed k gives `m = −k·n / ln(1 − p^(1/k))`.
///
/// The guarantee is for the classic formula. The exact rate of independent uniform hashing
/// (Bose et al. 2008, [`super::fpr_exact`]) is higher by O(k/m): at n = 1,000, p = 0.005 (the
/// first layer of the default filter at n0 = 1,000, p = 1%) it is 0.005004 against 0.004999, so
/// a compound of full layers can exceed `p` by about 0.1% of `p` — far below what a measurement
/// can resolve, but not zero.
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
            p,
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
    /// Its bits and hash functions ([`layer_sizing`]).
    pub sizing: Sizing,
}

/// Layer `i` of a filter with first capacity `n0`, overall rate `p`, growth `s`, tightening `r`.
///
/// # Errors
/// Invalid parameters; capacity or k out of range.
pub fn layer(n0: u64, p: f64, s: f64, r: f64, i: u32) -> Result<Layer> {
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
    let sizing = layer_sizing(capacity, rate)?;
    Ok(Layer {
        capacity,
        rate,
        sizing,
    })
}

/// The layers a filter has after `items` inserts (at least one), each with the number of items
/// it holds: all full except the last.
///
/// # Errors
/// Invalid parameters; a layer out of range.
pub fn layers_for(n0: u64, p: f64, s: f64, r: f64, items: u64) -> Result<Vec<(Layer, u64)>> {
    let mut out = Vec::new();
    let mut left = items;
    let mut i = 0u32;
    loop {
        let l = layer(n0, p, s, r, i)?;
        let here = left.min(l.capacity);
        out.push((l, here));
        left -= here;
        if left == 0 {
            return Ok(out);
        }
        i += 1;
    }
}

/// The compound rate after `items` inserts, each layer at its classic rate for the items it
/// holds: `1 − Π(1 − (1 − e^(−k_i n_i/m_i))^(k_i))`. Never above `p` (every full layer is at most
/// `P_i`, see [`layer_sizing`]).
///
/// ```
/// use bloomlab::theory::scalable::compound_at;
/// // 1,000 → 1,000,000 items at p = 1%: ten layers, the last 95.5% full.
/// let c = compound_at(1_000, 0.01, 2.0, 0.5, 1_000_000).unwrap();
/// assert!(c <= 0.01 && c > 0.0099, "{c}");
/// ```
///
/// # Errors
/// As [`layers_for`].
pub fn compound_at(n0: u64, p: f64, s: f64, r: f64, items: u64) -> Result<f64> {
    Ok(compound_fpr(layers_for(n0, p, s, r, items)?.iter().map(
        |(l, held)| fpr_classic(l.sizing.m, *held, l.sizing.k),
    )))
}

/// Total bits of the layers needed to hold `items` items (the sum of the layers' m).
///
/// With n0 = 1,000, p = 1% and s = 2 (computed with this function):
///
/// | items | layers | r = 0.5 | r = 0.85 |
/// |---|---|---|---|
/// | 1,000 | 1 | 11,035 bits | 13,541 |
/// | 7,000 | 3 | 91,664 | 98,143 |
/// | 15,000 | 4 | 214,552 | 214,534 |
/// | 1,000,000 | 10 | 23,106,435 (23.1 bits/item) | 16,622,646 (16.6) |
///
/// r = 0.5 is cheaper for up to three layers, r = 0.85 from four on; a single standard filter
/// sized for 10⁶ items at 1% takes 9,585,058 bits (9.6 bits/item): growing 1000× costs 2.4×.
///
/// ```
/// use bloomlab::theory::scalable::total_bits;
/// assert_eq!(total_bits(1_000, 0.01, 2.0, 0.5, 1_000_000).unwrap(), 23_106_435);
/// assert_eq!(total_bits(1_000, 0.01, 2.0, 0.85, 1_000_000).unwrap(), 16_622_646);
/// ```
///
/// # Errors
/// As [`layers_for`].
pub fn total_bits(n0: u64, p: f64, s: f64, r: f64, items: u64) -> Result<u64> {
    Ok(layers_for(n0, p, s, r, items)?
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
/// use bloomlab::theory::scalable::{total_bits, total_bits_geometric};
/// let exact = total_bits(1_000, 0.01, 2.0, 0.5, 1_023_000).unwrap() as f64;
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
                let c = compound_at(1_000, 0.01, s, r, items).unwrap();
                assert!(c <= 0.01, "s={s} r={r} items={items} c={c}");
            }
        }
        // s = 1: a layer of n0 per 1,000 items, k growing by log2(1/r) each time.
        assert!(compound_at(1_000, 0.01, 1.0, 0.8, 50_000).unwrap() <= 0.01);
        // Rates form the series whose sum is the bound.
        let sum: f64 = (0..60).map(|i| layer_rate(0.01, 0.5, i)).sum();
        assert!((sum - 0.01).abs() < 1e-12);
    }

    #[test]
    fn layer_counts_and_capacities() {
        let ls = layers_for(1_000, 0.01, 2.0, 0.5, 1_000_000).unwrap();
        assert_eq!(ls.len(), 10);
        assert_eq!(ls[9].0.capacity, 512_000);
        assert_eq!(ls[9].1, 1_000_000 - 511_000);
        assert_eq!(layers_for(1_000, 0.01, 2.0, 0.5, 1_000).unwrap().len(), 1);
        assert_eq!(layers_for(1_000, 0.01, 2.0, 0.5, 1_001).unwrap().len(), 2);
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
