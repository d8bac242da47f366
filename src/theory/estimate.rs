//! Estimating how many items a filter holds, and the sizes of the union and the intersection of
//! two filters' sets, from their bits alone — each estimate with a standard error.
//!
//! **The estimators.** A bit is still 0 after n items with probability `P(n) ≈ e^(−n·c)`, where
//! `c` is the chance that one item sets that bit. Inverting the observed fraction of zeros
//! `Z/M` gives `n̂ = −ln(Z/M)/c`. For the standard filter `c = k/m` and this is the estimator of
//! Swamidass & Baldi (2007), "Mathematical correction for fingerprint similarity measures to
//! improve chemical retrieval", J. Chem. Inf. Model. 47(3):952–964, eq. for the expected number
//! of bits set, solved for n: `n̂ = −(m/k)·ln(1 − X/m)` with X bits set (also
//! [`super::estimate_count`], Redisson's `count()`). The union of two same-shaped filters is the
//! bitwise OR, so `|A ∪ B|` is the count estimate of the OR; the intersection follows by
//! inclusion–exclusion, `|A ∩ B| ≈ n̂(A) + n̂(B) − n̂(A ∪ B)` (Papapetrou, Siberski & Nejdl 2010,
//! "Cardinality estimation and dynamic length adaptation for Bloom filters", Distributed and
//! Parallel Databases 28(2–3):119–156, §5). The AND of two filters is *not* the filter of the
//! intersection (a bit can be set in A by one item and in B by another), so its count
//! overestimates; inclusion–exclusion avoids that.
//!
//! **The blocked filter (derived here).** An item picks one of B blocks uniformly and sets k
//! lanes, each uniform over the block's s = 512 bits and (in the model) independent, so a lane
//! may repeat. A given bit of a given block is set by one item with probability
//! `c = q/B`, `q = 1 − (1 − 1/s)^k` (the item must land in the block, then hit the bit with one
//! of its k lanes). Items are independent, so `P(bit still 0) = (1 − q/B)^n ≈ e^(−n·q/B)`,
//! **whatever the block loads are**: the expected fill of a blocked filter is that of a standard
//! filter of m = B·s bits with k replaced by `k_eff = s·q` (5.971 for k = 6, 6.959 for k = 7),
//! the expected number of distinct bits an item sets in its block. The estimator is therefore
//! `n̂ = −(m/k_eff)·ln(1 − X/m)`. Using k instead of `k_eff` underestimates by `1 − k_eff/k`
//! (0.49% at k = 6) — small, but a bias, not noise. What the blocks change is the *spread*: the
//! loads vary from block to block (Poisson with mean n/B), and bits of one block move together,
//! so the variance is larger than the standard filter's. The variance below takes that into
//! account.
//!
//! **The error bars (delta method, derived here; checked by simulation in the tests and in
//! `experiments/estimators.toml`).** Each estimate is a smooth function `g(Z_1, …)` of zero
//! counts, so `Var ĝ ≈ ∇g·Cov(Z)·∇g` (the delta method). `Cov(Z)` is computed by
//! *Poissonization*: let each group of items (A only, B only, both) have a Poisson number of
//! items in each block, so blocks are independent and per-block moments have closed forms
//! (`E[y^N] = e^(−λ(1 − y))` for N ~ Poisson(λ)); then condition on the true group sizes by
//! removing the part of the variance explained by each group's total (`Var(S | T) ≈ Var S −
//! Cov(S, T)²/Var T`). For the standard filter (one "block" of m bits) this reproduces the
//! known occupancy result `Var n̂ ≈ (m/k²)·(e^θ − 1 − θ)`, θ = kn/m; without the conditioning
//! (treating the bits as independent) one would get `(m/k²)·(e^θ − 1)`, over three times too
//! large at θ = ln 2.

use super::MAX_K;

/// Bits in one block of the blocked filter (one cache line).
pub const BLOCK_BITS: u64 = 512;

/// The geometry an estimate needs: B blocks of s bits, k positions per item in its block, and
/// whether the k positions are distinct (double hashing in a standard or counting filter) or
/// independent and possibly repeated (the blocked filter's lanes).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Shape {
    /// Blocks (1 for a standard or counting filter).
    pub blocks: u64,
    /// Bits (or counters) per block.
    pub block_bits: u64,
    /// Positions per item.
    pub k: u32,
    /// The k positions of an item are distinct (else independent, possibly equal).
    pub distinct: bool,
}

impl Shape {
    /// A standard Bloom filter (or the non-zero counters of a counting filter): m bits, k
    /// distinct positions.
    #[must_use]
    pub fn standard(m: u64, k: u32) -> Self {
        Self {
            blocks: 1,
            block_bits: m.max(1),
            k: k.clamp(1, MAX_K),
            distinct: true,
        }
    }

    /// A blocked Bloom filter: `blocks` blocks of 512 bits, k independent lanes per item.
    #[must_use]
    pub fn blocked(blocks: u64, k: u32) -> Self {
        Self {
            blocks: blocks.max(1),
            block_bits: BLOCK_BITS,
            k: k.clamp(1, MAX_K),
            distinct: false,
        }
    }

    /// Total bits M = B·s.
    #[must_use]
    pub fn bits(&self) -> u64 {
        self.blocks.saturating_mul(self.block_bits)
    }

    /// q: the chance that an item which lands in a block sets one given bit of it.
    fn q1(&self) -> f64 {
        let s = self.block_bits as f64;
        let k = f64::from(self.k);
        if self.distinct {
            (k / s).min(1.0)
        } else {
            -(k * (-1.0 / s).ln_1p()).exp_m1()
        }
    }

    /// `D = P(item avoids two given bits) − 1 + 2q`: how much two bits of one block share an
    /// item (0 when k = 1). Computed without cancellation.
    fn pair_excess(&self) -> f64 {
        let s = self.block_bits as f64;
        let k = f64::from(self.k);
        if s < 2.0 {
            return 0.0;
        }
        if self.distinct {
            // 1 − 2k/s + k(k−1)/(s(s−1)) − 1 + 2k/s
            k * (k - 1.0) / (s * (s - 1.0))
        } else {
            // (1 − 1/s)^{2k} − (1 − 2/s)^k = c^k·expm1(k·ln(1 + 1/(s² − 2s))), c = 1 − 2/s
            let q = self.q1();
            let ck = (k * (-2.0 / s).ln_1p()).exp();
            q * q - ck * (k * (1.0 / (s * s - 2.0 * s)).ln_1p()).exp_m1()
        }
    }

    /// Expected distinct bits one item sets: k for distinct positions, `s·(1 − (1 − 1/s)^k)`
    /// for the blocked filter's lanes.
    ///
    /// ```
    /// use bloomlab::theory::estimate::Shape;
    /// assert_eq!(Shape::standard(1000, 7).k_eff(), 7.0);
    /// let k6 = Shape::blocked(100, 6).k_eff();
    /// assert!((k6 - 5.970_779).abs() < 1e-6, "{k6}");
    /// ```
    #[must_use]
    pub fn k_eff(&self) -> f64 {
        self.q1() * self.block_bits as f64
    }

    /// The per-item rate c = q/B: `P(a bit is still 0 after n items) ≈ e^(−n·c)`.
    fn rate(&self) -> f64 {
        self.q1() / self.blocks as f64
    }

    /// Expected bits set after n items: `M·(1 − e^(−n·c))`.
    #[must_use]
    pub fn expected_ones(&self, n: f64) -> f64 {
        -(self.bits() as f64) * (-n * self.rate()).exp_m1()
    }
}

/// An estimate with its standard error (from the delta method; see the module docs).
#[derive(Debug, Clone, Copy, PartialEq, serde::Serialize)]
pub struct Estimate {
    /// The estimated number of items.
    pub value: f64,
    /// Its standard error (model standard deviation at the estimated sizes).
    pub std_err: f64,
}

impl Estimate {
    /// The normal-approximation 95% interval `value ± 1.96·std_err` (cut at 0).
    #[must_use]
    pub fn ci95(&self) -> (f64, f64) {
        let h = 1.959_964 * self.std_err;
        ((self.value - h).max(0.0), self.value + h)
    }
}

/// `n̂ = −ln(Z/M)/c` for Z zeros (infinite when Z = 0).
fn invert(shape: &Shape, zeros: f64) -> f64 {
    let m = shape.bits() as f64;
    if zeros <= 0.0 {
        return f64::INFINITY;
    }
    (-(zeros / m).ln() / shape.rate()).max(0.0)
}

/// One statistic: the zeros of the filter made of the groups in `mask`, with gradient weight w.
#[derive(Clone, Copy)]
struct Stat {
    mask: u8,
    weight: f64,
}

/// The delta-method variance of `Σ wᵢ·Zᵢ` under Poissonized block loads, conditioned on the
/// group sizes `n[g]` (see the module docs). `Zᵢ` counts bits that no item of the groups in
/// `maskᵢ` set.
fn delta_variance(shape: &Shape, n: &[f64], stats: &[Stat]) -> f64 {
    let b = shape.blocks as f64;
    let s = shape.block_bits as f64;
    let q = shape.q1();
    let d = shape.pair_excess();
    let lam: Vec<f64> = n.iter().map(|&x| x.max(0.0) / b).collect();
    let load = |mask: u8| -> f64 {
        (0..lam.len())
            .filter(|g| mask & (1 << g) != 0)
            .map(|g| lam[g])
            .sum()
    };
    let p = |mask: u8| (-q * load(mask)).exp();
    let mut var = 0.0;
    for a in stats {
        for c in stats {
            let (pa, pc) = (p(a.mask), p(c.mask));
            let shared = load(a.mask & c.mask);
            // Per block: s·P(a ∪ c) + s(s−1)·Pa·Pc·e^{shared·D} − s²·Pa·Pc
            let cov = s * p(a.mask | c.mask) - s * pa * pc * (shared * d).exp()
                + s * s * pa * pc * (shared * d).exp_m1();
            var += a.weight * c.weight * cov;
        }
    }
    var *= b;
    for (g, &l) in lam.iter().enumerate() {
        // Cov(Zᵢ per block, N_g per block) = −s·λ_g·q·Pᵢ when g is in maskᵢ.
        let proj: f64 = stats
            .iter()
            .filter(|st| st.mask & (1 << g) != 0)
            .map(|st| st.weight * s * q * p(st.mask))
            .sum();
        var -= b * l * proj * proj;
    }
    var.max(0.0)
}

/// Gradient weight of `−ln(Z/M)/c` at the expected zeros of `mask`'s filter.
fn weight(shape: &Shape, n: &[f64], mask: u8, sign: f64) -> f64 {
    let total: f64 = (0..n.len())
        .filter(|g| mask & (1 << g) != 0)
        .map(|g| n[g].max(0.0))
        .sum();
    let ez = shape.bits() as f64 * (-total * shape.rate()).exp();
    -sign / (shape.rate() * ez)
}

/// Model standard deviation of the count estimate of a filter holding `n` distinct items.
///
/// For the standard filter this is `sqrt((m/k²)·(e^θ − 1 − θ))`, θ = kn/m, to O(1/m):
/// ```
/// use bloomlab::theory::estimate::{Shape, count_std_err};
/// let (m, k, n) = (100_000u64, 7u32, 10_000.0);
/// let t = f64::from(k) * n / m as f64;
/// let closed = (m as f64 / 49.0 * (t.exp() - 1.0 - t)).sqrt();
/// let sd = count_std_err(&Shape::standard(m, k), n);
/// assert!((sd / closed - 1.0).abs() < 1e-3, "{sd} {closed}");
/// ```
#[must_use]
pub fn count_std_err(shape: &Shape, n: f64) -> f64 {
    let w = weight(shape, &[n], 1, 1.0);
    delta_variance(shape, &[n], &[Stat { mask: 1, weight: w }]).sqrt()
}

/// Estimated distinct items from the number of bits set, with its standard error.
///
/// ```
/// use bloomlab::theory::estimate::{Shape, count};
/// // Swamidass & Baldi: m = 1000, k = 5, 400 bits set → −200·ln 0.6 = 102.16
/// let e = count(&Shape::standard(1000, 5), 400);
/// assert!((e.value - 102.165_1).abs() < 1e-4, "{}", e.value);
/// assert!(e.std_err > 0.0 && e.std_err < 10.0);
/// ```
#[must_use]
pub fn count(shape: &Shape, ones: u64) -> Estimate {
    let zeros = shape.bits().saturating_sub(ones) as f64;
    let value = invert(shape, zeros);
    let std_err = if value.is_finite() {
        count_std_err(shape, value)
    } else {
        f64::INFINITY
    };
    Estimate { value, std_err }
}

/// Estimated size of the union from the bits set in the OR of two same-shaped filters.
#[must_use]
pub fn union(shape: &Shape, ones_or: u64) -> Estimate {
    count(shape, ones_or)
}

/// Model standard deviation of the inclusion–exclusion intersection estimate for sets with
/// `a_only`, `b_only` and `both` items.
#[must_use]
pub fn intersection_std_err(shape: &Shape, a_only: f64, b_only: f64, both: f64) -> f64 {
    // Groups: bit 0 = A only, bit 1 = B only, bit 2 = both.
    let n = [a_only, b_only, both];
    let stats = [
        Stat {
            mask: 0b101,
            weight: weight(shape, &n, 0b101, 1.0),
        },
        Stat {
            mask: 0b110,
            weight: weight(shape, &n, 0b110, 1.0),
        },
        Stat {
            mask: 0b111,
            weight: weight(shape, &n, 0b111, -1.0),
        },
    ];
    delta_variance(shape, &n, &stats).sqrt()
}

/// Estimated size of the intersection by inclusion–exclusion, `n̂(A) + n̂(B) − n̂(A ∪ B)`, from
/// the bits set in A, in B and in their OR. The value can be negative by chance when the sets
/// are (nearly) disjoint; it is reported as it is, so averages stay unbiased.
///
/// ```
/// use bloomlab::theory::estimate::{Shape, intersection};
/// let sh = Shape::standard(10_000, 4);
/// // A and B equal: the OR has the same bits, the intersection is the count.
/// let e = intersection(&sh, 3_000, 3_000, 3_000);
/// assert!((e.value - (-2_500.0 * (0.7f64).ln())).abs() < 1e-6);
/// ```
#[must_use]
pub fn intersection(shape: &Shape, ones_a: u64, ones_b: u64, ones_or: u64) -> Estimate {
    let m = shape.bits();
    let na = invert(shape, m.saturating_sub(ones_a) as f64);
    let nb = invert(shape, m.saturating_sub(ones_b) as f64);
    let nu = invert(shape, m.saturating_sub(ones_or) as f64);
    if !(na.is_finite() && nb.is_finite() && nu.is_finite()) {
        return Estimate {
            value: f64::NAN,
            std_err: f64::INFINITY,
        };
    }
    let value = na + nb - nu;
    let both = value.clamp(0.0, na.min(nb));
    let std_err = intersection_std_err(shape, (na - both).max(0.0), (nb - both).max(0.0), both);
    Estimate { value, std_err }
}

/// The counting filter's other count: the sum of all counters divided by k. Every insert adds k
/// and every remove takes k, so below saturation it is exactly inserts − removes (duplicates
/// counted each time), with no error; each counter stuck at 15 may hide increments, so with
/// saturated counters the value is a lower bound.
#[must_use]
pub fn count_from_counter_sum(sum: u64, k: u32) -> f64 {
    sum as f64 / f64::from(k.max(1))
}

#[cfg(test)]
mod tests;
