//! The exact false-positive rate of a Bloom filter with independent, uniform hash positions,
//! with a rigorous relative error bound.
//!
//! Bose, Guo, Kranakis, Maheshwari, Morin, Morrison, Smid & Tang (2008), "On the false-positive
//! rate of Bloom filters", IPL 108(4), showed that the classic `(1 − e^(−kn/m))^k` is only an
//! approximation (a *lower* bound). With t = k·n insertion probes the exact rate is
//! `P = E[(X/m)^k]`, X the number of set bits. Expanding `x^k` in falling factorials gives the
//! Stirling (moment) form, which Christensen, Roginsky & Jimeno (2010), "A new analysis of the
//! false positive rate of a Bloom filter", IPL 110(21), also derive:
//!
//! ```text
//! P = Σ_j π_j · q_j,   π_j = S(k,j)·(m)_j / m^k,   q_j = Σ_i (−1)^i C(j,i) (1 − i/m)^t
//! ```
//!
//! Read probabilistically: the query's k probes hit J distinct bits, `Pr[J = j] = π_j`, and
//! `q_j` is the probability that the t insertion probes cover a given set of j bits. Every term
//! `π_j q_j` is non-negative; the only cancellation is inside the alternating sum for `q_j`,
//! whose terms reach `C(j, j/2)` while `q_j` itself can be 10⁻⁶⁰⁰. (The previous implementation
//! expanded further and cancelled once k ≳ 25.) We therefore compute each factor stably:
//!
//! * `π_j` by the occupancy recurrence of the k query probes,
//!   `π ← π_j·j/m + π_{j−1}·(m−j+1)/m` (k² non-negative steps);
//! * `q_j` by inclusion–exclusion **only when a running error bound proves it accurate**
//!   (bound ≤ 2⁻⁴⁰·q_j; this holds for a full filter, t/m ≳ ln j, where the terms decay
//!   like `e^(−i·t/m)`), and otherwise by the positive *binomial mixture*
//!
//!   ```text
//!   q_j = Σ_{L ≥ j} Bin(L; t, j/m) · c_j(L),   c_j(L) = j!·S(L,j)/j^L,
//!   c_j(L) = c_j(L−1) + ((j−1)/j)^(L−1) · c_{j−1}(L−1)
//!   ```
//!
//!   (L of the t probes land in the j-set, uniformly; c_j(L) is the chance that L throws cover
//!   j bins). All terms are non-negative, the binomial weights are built by their ratio, and the
//!   sum stops past the mode when the geometric tail bound `b(L)·r/(1−r)` (r the next ratio,
//!   `c ≤ 1`) is below 2⁻⁶⁰ of the sum. It needs L only up to about `j·t/m + O(√(j·t/m)) + 45`,
//!   and is used only where `t/m ≲ ln j`, so the cost is O(k²·ln k).
//!
//! Numbers are kept as an f64 mantissa with a separate exponent (`Xf`), so nothing under- or
//! overflows: the rate at m = 10¹⁰, n = 5, k = 64 is 2.136·10⁻⁴⁸⁰, returned as `ln_value`
//! (its `value` underflows to 0).
//!
//! # The bound
//!
//! `rel_error` bounds `|computed − P| / P` for the real number carried in `Xf` (`value` is its
//! rounding to f64, within another 2⁻⁵³ unless it is subnormal or 0; use `ln_value` then). It is
//! a *running* error bound: every operation adds its rounding (1 ulp = ε = 2⁻⁵² per add, multiply
//! or divide; exp, ln and ln_1p are assumed within 1 ulp, as in glibc), an `exp(x)` carries the
//! inherited absolute error of x (≤ 4ε·|x|, from rounding `i/m` and `t`), binomials and powers
//! carry their step counts, and the truncated tail adds its bound; second-order terms are covered by
//! a factor 1.01. **Stated bound: `rel_error` ≤ 10⁻¹⁰ for k ≤ 64**, any m ≥ 1 and n ≥ 0. In every
//! case we tried (m from 1 to 2⁴⁰ and 10¹⁰, n from 0 to 100·m/k) it was below 1.4·10⁻¹²; on the
//! 687-point grid of `tests/reference/` it is at most 9.6·10⁻¹³, while the errors actually
//! observed there against 400-digit values are at most 3·10⁻¹⁴. `tests/exact_reference.rs`
//! asserts, at every grid point, error ≤ returned bound ≤ 10⁻¹⁰. The bound grows slowly with k
//! (≈ 6·10⁻¹² at k = 200, 6·10⁻¹¹ at k = 1000).
//!
//! The work is O(k² + k·L) steps with L ≲ k·ln k: about 1 ms at worst for k ≤ 64 in release,
//! 15 ms at k = 200, half a second at k = 1000. Beyond a work cap (k in the thousands)
//! [`fpr_exact_with_bound`] returns `None` rather than a number it cannot vouch for.

use serde::Serialize;

/// One ulp at 1: the rounding error we charge per floating-point operation (twice the unit
/// roundoff, which also covers 1-ulp transcendental functions).
const EPS: f64 = f64::EPSILON;
/// Inclusion–exclusion is used for `q_j` only when its error bound is at most this fraction.
const ALT_ACCEPT: f64 = 1.0 / (1u64 << 40) as f64;
/// The binomial mixture stops when its tail bound is at most this fraction of the sum.
const TAIL: f64 = 1.0 / (1u64 << 60) as f64;
/// Work cap (elementary steps) beyond which no value is returned.
const WORK_CAP: f64 = 2e7;

/// How [`fpr_exact_with_bound`] computed its answer.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum ExactMethod {
    /// A degenerate input (n = 0, k = 0 or m = 0) with a closed answer.
    Closed,
    /// Every `q_j` by inclusion–exclusion (proved accurate by its running error bound).
    InclusionExclusion,
    /// At least one `q_j` by the positive binomial mixture.
    Mixture,
}

/// The exact rate with its error bound (see the module docs).
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct ExactFpr {
    /// The rate as an f64 (0 or subnormal when it is below ~2.2·10⁻³⁰⁸; see `ln_value`).
    pub value: f64,
    /// Natural logarithm of the rate (−∞ when the rate is 0), valid far below f64's range.
    pub ln_value: f64,
    /// Rigorous bound on the relative error of the computed rate (before rounding to `value`).
    pub rel_error: f64,
    /// How the rate was computed.
    pub method: ExactMethod,
}

/// The exact FPR (see the module docs): [`fpr_exact_with_bound`]'s value, or NaN where that
/// cannot give one (k in the thousands).
///
/// At m = 256, n = 26, k = 7 the classic formula is about 3% low:
/// ```
/// use bloomlab::theory::{fpr_classic, fpr_exact};
/// let (e, c) = (fpr_exact(256, 26, 7), fpr_classic(256, 26, 7));
/// assert!((e - 0.009_134_646_528_774).abs() < 1e-15);
/// assert!(e > c && (e / c - 1.0) > 0.025 && (e / c - 1.0) < 0.04, "{e} {c}");
/// ```
#[must_use]
pub fn fpr_exact(m: u64, n: u64, k: u32) -> f64 {
    fpr_exact_with_bound(m, n, k).map_or(f64::NAN, |r| r.value)
}

/// The exact FPR with a rigorous relative error bound, or `None` if the work it needs exceeds
/// the cap (only for k in the thousands).
///
/// ```
/// use bloomlab::theory::fpr_exact_with_bound;
/// let r = fpr_exact_with_bound(1 << 19, 1000, 64).unwrap();
/// assert!((r.value / 7.321_999_970_076e-61 - 1.0).abs() < 1e-11 && r.rel_error < 1e-11);
/// let tiny = fpr_exact_with_bound(10_000_000_000, 5, 64).unwrap();
/// assert_eq!(tiny.value, 0.0); // 2.136e-480 is below f64's range; the logarithm is not
/// assert!((tiny.ln_value + 1_104.481_916_711_894).abs() < 1e-9); // ln(2.135_985_057e-480)
/// ```
#[must_use]
pub fn fpr_exact_with_bound(m: u64, n: u64, k: u32) -> Option<ExactFpr> {
    let closed = |v: f64| {
        Some(ExactFpr {
            value: v,
            ln_value: v.ln(),
            rel_error: 0.0,
            method: ExactMethod::Closed,
        })
    };
    if m == 0 || k == 0 {
        return closed(1.0);
    }
    if n == 0 {
        return closed(0.0);
    }
    let t = u64::from(k).saturating_mul(n);
    let jmax = u64::from(k).min(m);
    if (u64::from(k) * jmax) as f64 > WORK_CAP {
        return None;
    }
    let pi = distinct_probes(m, k);
    let pi_err = 2.5 * f64::from(k) * EPS;

    // q_j by inclusion–exclusion where provably accurate; the rest by the mixture.
    let mut q: Vec<(Xf, f64)> = vec![(Xf::ZERO, 0.0); jmax as usize + 1];
    let mut hard = Vec::new();
    for j in 1..=jmax {
        if j > t {
            continue; // fewer probes than bits to cover: q_j = 0 exactly
        }
        let (v, bound) = cover_alternating(j, m, t);
        if v > 0.0 && bound <= ALT_ACCEPT * v {
            q[j as usize] = (Xf::new(v), bound / v);
        } else {
            hard.push(j);
        }
    }
    let method = if hard.is_empty() {
        ExactMethod::InclusionExclusion
    } else {
        for (j, qj) in hard.iter().zip(cover_mixture(&hard, m, t)?) {
            q[*j as usize] = qj;
        }
        ExactMethod::Mixture
    };

    let mut p = Xf::ZERO;
    let mut worst: f64 = 0.0;
    for j in 1..=jmax as usize {
        let (qj, eq) = q[j];
        let term = pi[j].mul(qj);
        if term.is_zero() {
            continue;
        }
        p = p.add(term);
        worst = worst.max(pi_err + eq + EPS);
    }
    Some(ExactFpr {
        value: p.to_f64(),
        ln_value: p.ln(),
        rel_error: 1.01 * (worst + jmax as f64 * EPS / 2.0),
        method,
    })
}

/// `ln((m − i)/m)` to within 2ε relative (`ln_1p` for small i/m, where it matters).
fn ln_keep(i: u64, m: u64) -> f64 {
    if 2 * i <= m {
        (-(i as f64 / m as f64)).ln_1p()
    } else {
        ((m - i) as f64 / m as f64).ln()
    }
}

/// `π_j = Pr[k query probes hit exactly j distinct bits] = S(k,j)·(m)_j/m^k`, j = 0..=min(k, m),
/// by the occupancy recurrence (non-negative terms; relative error ≤ 2.5·k·ε: per step one
/// rounded coefficient, one product, one sum).
fn distinct_probes(m: u64, k: u32) -> Vec<Xf> {
    let jmax = u64::from(k).min(m) as usize;
    let mf = m as f64;
    let mut row = vec![Xf::ZERO; jmax + 1];
    row[0] = Xf::ONE;
    for r in 1..=k as usize {
        for j in (1..=r.min(jmax)).rev() {
            let stay = row[j].mul(Xf::new(j as f64 / mf));
            let grow = row[j - 1].mul(Xf::new((m - (j as u64 - 1)) as f64 / mf));
            row[j] = stay.add(grow);
        }
        row[0] = Xf::ZERO;
    }
    row
}

/// `q_j = Σ_i (−1)^i C(j,i) (1 − i/m)^t` in f64 with a running bound on its absolute error:
/// term i carries `C(j,i)` (i steps, ≤ i·ε), `exp(x_i)` (x_i = t·ln(1 − i/m) within 4ε·|x_i|,
/// plus ε), the product (ε), and the running sum adds ≤ j·ε/2 of the largest partial sum,
/// bounded by Σ|terms|. Terms that underflow lose at most `C(j,i)·2⁻¹⁰²²` each.
fn cover_alternating(j: u64, m: u64, t: u64) -> (f64, f64) {
    let tf = t as f64;
    let (mut binom, mut sum, mut err) = (1.0f64, 0.0f64, 0.0f64);
    for i in 0..=j.min(m - 1) {
        let x = tf * ln_keep(i, m);
        let term = binom * x.exp();
        sum += if i % 2 == 0 { term } else { -term };
        err += term * (i as f64 + 4.0 * x.abs() + 2.0 + j as f64 / 2.0) + binom * f64::MIN_POSITIVE;
        binom = binom * (j - i) as f64 / (i + 1) as f64;
    }
    (sum, 1.01 * EPS * err)
}

/// Per-j state of the binomial mixture.
#[derive(Debug, Clone, Copy)]
struct MixState {
    j: u64,
    /// Binomial weight `Bin(L; t, j/m)` at the current L, and its relative error bound.
    b: Xf,
    eb: f64,
    /// Partial sum, the largest relative error of its terms, and the number of terms.
    sum: Xf,
    worst: f64,
    terms: f64,
    /// Relative size of the dropped tail (bound), once done.
    tail: f64,
    done: bool,
}

/// `q_j` for every j in `js` (ascending, each ≤ t and ≤ m) by the binomial mixture of the
/// module docs, with relative error bounds; `None` past the work cap.
///
/// One pass over L updates the coverage row `c_i(L)`, i ≤ max j (with running relative error
/// bounds `ec_i`), and each j's binomial weight and sum. Weight `Bin(0; t, j/m) = e^(t·ln(1−j/m))`;
/// then `b(L) = b(L−1)·(t−L+1)·j / (L·(m−j))` (ε per step for the integer conversions, 2ε for
/// the ratio and product). For j = m every probe lands in the set: q_m = c_m(t).
// ANCHOR: recurrence
fn cover_mixture(js: &[u64], m: u64, t: u64) -> Option<Vec<(Xf, f64)>> {
    let jtop = *js.last()? as usize;
    // g_i = ln(1 − 1/i); the power ((i−1)/i)^(L−1) = exp((L−1)·g_i).
    let g: Vec<f64> = (0..=jtop)
        .map(|i| {
            if i < 2 {
                0.0
            } else {
                (-1.0 / i as f64).ln_1p()
            }
        })
        .collect();
    let mut c = vec![Xf::ZERO; jtop + 1];
    let mut ec = vec![0.0f64; jtop + 1];
    c[0] = Xf::ONE;
    let mut st: Vec<MixState> = js
        .iter()
        .map(|&j| {
            let (b, eb) = if j == m {
                (Xf::ZERO, 0.0)
            } else {
                let x = t as f64 * ln_keep(j, m);
                (Xf::exp(x), EPS * (2.0 + 4.0 * x.abs()))
            };
            MixState {
                j,
                b,
                eb,
                sum: Xf::ZERO,
                worst: 0.0,
                terms: 0.0,
                tail: 0.0,
                done: false,
            }
        })
        .collect();
    let mut work = 0.0;
    let mut l: u64 = 0;
    while st.iter().any(|s| !s.done) {
        l += 1;
        work += (jtop + st.len()) as f64;
        if work > WORK_CAP {
            return None;
        }
        // c_i(L) = c_i(L−1) + ((i−1)/i)^(L−1)·c_{i−1}(L−1), i descending so c_{i−1} is still old.
        for i in (1..=jtop.min(l as usize)).rev() {
            let (f, ef) = if i == 1 {
                (if l == 1 { Xf::ONE } else { Xf::ZERO }, 0.0)
            } else {
                let x = (l - 1) as f64 * g[i];
                (Xf::exp(x), EPS * (2.0 + 2.5 * x.abs()))
            };
            let add = f.mul(c[i - 1]);
            if add.is_zero() {
                continue;
            }
            let keep = if c[i].is_zero() { 0.0 } else { ec[i] };
            ec[i] = keep.max(ec[i - 1] + ef + EPS) + EPS;
            c[i] = c[i].add(add);
        }
        c[0] = Xf::ZERO;
        for s in st.iter_mut().filter(|s| !s.done) {
            let ju = s.j as usize;
            if s.j == m {
                if l == t {
                    (s.sum, s.worst, s.terms, s.done) = (c[ju], ec[ju], 1.0, true);
                }
                continue;
            }
            let ratio = ((t - l + 1) as f64 * s.j as f64) / (l as f64 * (m - s.j) as f64);
            s.b = s.b.mul(Xf::new(ratio));
            s.eb += 3.0 * EPS;
            if l >= s.j {
                s.sum = s.sum.add(s.b.mul(c[ju]));
                s.worst = s.worst.max(s.eb + ec[ju] + EPS);
                s.terms += 1.0;
            }
            if l == t {
                s.done = true;
            } else if l >= s.j {
                // Later ratios are smaller than r and c ≤ 1: the tail is below b·r/(1−r).
                let r = ((t - l) as f64 * s.j as f64) / ((l + 1) as f64 * (m - s.j) as f64);
                if r < 0.5 {
                    let tail = 2.0 * s.b.mul(Xf::new(r / (1.0 - r))).ratio(s.sum);
                    if tail <= TAIL {
                        (s.tail, s.done) = (tail, true);
                    }
                }
            }
        }
    }
    Some(
        st.iter()
            .map(|s| (s.sum, 1.01 * (s.worst + s.terms * EPS / 2.0 + s.tail)))
            .collect(),
    )
}
// ANCHOR_END: recurrence

/// A non-negative number `mant · 2^(512·e)` with `mant` = 0 or in [2⁻²⁵⁶, 2²⁵⁶): f64 precision,
/// unbounded range. Products and sums round once, like f64 (scaling by 2^±512 is exact); a
/// summand smaller than 2⁻⁵¹² of the other is dropped (far below one rounding).
#[derive(Debug, Clone, Copy, PartialEq)]
struct Xf {
    mant: f64,
    e: i64,
}

/// 2^512, 2^−512, 2^256, 2^−256.
const B: f64 = f64::from_bits((1023 + 512) << 52);
const IB: f64 = f64::from_bits((1023 - 512) << 52);
const HI: f64 = f64::from_bits((1023 + 256) << 52);
const LO: f64 = f64::from_bits((1023 - 256) << 52);
/// 512·ln 2 split so that `q·C_HI` is exact for |q| < 2²⁴.
const C_HI: f64 = 354.891_355_514_526_37;
const C_LO: f64 = 9.321_656_312_341_229e-7;

impl Xf {
    const ZERO: Xf = Xf { mant: 0.0, e: 0 };
    const ONE: Xf = Xf { mant: 1.0, e: 0 };

    fn new(v: f64) -> Xf {
        debug_assert!(v >= 0.0 && v.is_finite(), "{v}");
        Xf { mant: v, e: 0 }.norm()
    }

    fn norm(mut self) -> Xf {
        if self.mant == 0.0 {
            return Xf::ZERO;
        }
        while self.mant >= HI {
            self.mant *= IB;
            self.e += 1;
        }
        while self.mant < LO {
            self.mant *= B;
            self.e -= 1;
        }
        self
    }

    fn is_zero(self) -> bool {
        self.mant == 0.0
    }

    fn mul(self, o: Xf) -> Xf {
        Xf {
            mant: self.mant * o.mant,
            e: self.e + o.e,
        }
        .norm()
    }

    fn add(self, o: Xf) -> Xf {
        if self.is_zero() {
            return o;
        }
        if o.is_zero() {
            return self;
        }
        let (a, b) = if self.e >= o.e { (self, o) } else { (o, self) };
        let bm = match a.e - b.e {
            0 => b.mant,
            1 => b.mant * IB,
            _ => 0.0,
        };
        Xf {
            mant: a.mant + bm,
            e: a.e,
        }
        .norm()
    }

    /// e^x within 2ε for any x (−∞ gives 0).
    fn exp(x: f64) -> Xf {
        if x.abs() < 700.0 {
            return Xf::new(x.exp());
        }
        if x == f64::NEG_INFINITY {
            return Xf::ZERO;
        }
        let q = (x / (C_HI + C_LO)).round();
        let r = (x - q * C_HI) - q * C_LO;
        Xf {
            mant: r.exp(),
            e: q as i64,
        }
        .norm()
    }

    fn ln(self) -> f64 {
        if self.is_zero() {
            f64::NEG_INFINITY
        } else {
            self.mant.ln() + self.e as f64 * (C_HI + C_LO)
        }
    }

    fn to_f64(self) -> f64 {
        scale(self.mant, self.e)
    }

    /// self / o as an f64 (o ≠ 0).
    fn ratio(self, o: Xf) -> f64 {
        scale(self.mant / o.mant, self.e - o.e)
    }
}

/// v · 2^(512·e), saturating to 0 or ∞.
fn scale(mut v: f64, mut e: i64) -> f64 {
    while e > 0 && v.is_finite() {
        v *= B;
        e -= 1;
    }
    while e < 0 && v != 0.0 {
        v *= IB;
        e += 1;
    }
    v
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::theory::fpr_classic;

    /// Brute force: enumerate every assignment of k(n+1) probes (n inserts, one query).
    fn brute(m: u64, n: u64, k: u32) -> f64 {
        let probes = u64::from(k) * (n + 1);
        let total = m.pow(probes as u32);
        let mut hits = 0u64;
        for code in 0..total {
            let mut c = code;
            let mut set = vec![false; m as usize];
            for _ in 0..u64::from(k) * n {
                set[(c % m) as usize] = true;
                c /= m;
            }
            if (0..k).all(|_| {
                let b = set[(c % m) as usize];
                c /= m;
                b
            }) {
                hits += 1;
            }
        }
        hits as f64 / total as f64
    }

    /// The occupancy distribution by its one-probe recurrence (positive terms; slow: t·m).
    fn occupancy(m: u64, n: u64, k: u32) -> f64 {
        let mut d = vec![0.0f64; m as usize + 1];
        d[0] = 1.0;
        for _ in 0..u64::from(k) * n {
            for x in (0..=m as usize).rev() {
                let stay = d[x] * x as f64 / m as f64;
                let grow = if x > 0 {
                    d[x - 1] * (m as usize - x + 1) as f64 / m as f64
                } else {
                    0.0
                };
                d[x] = stay + grow;
            }
        }
        d.iter()
            .enumerate()
            .map(|(x, p)| p * (x as f64 / m as f64).powi(k as i32))
            .sum()
    }

    #[test]
    fn matches_brute_force() {
        for (m, n, k) in [
            (4u64, 1u64, 2u32),
            (5, 2, 2),
            (3, 2, 3),
            (6, 1, 3),
            (7, 3, 1),
            (2, 4, 2),
        ] {
            let b = brute(m, n, k);
            let r = fpr_exact_with_bound(m, n, k).unwrap();
            assert!(
                (r.value - b).abs() <= 1e-14 * b,
                "m={m} n={n} k={k}: {} vs {b}",
                r.value
            );
        }
    }

    #[test]
    fn both_ways_to_cover_a_set_agree_where_both_are_accurate() {
        // t/m = 5: inclusion–exclusion is well conditioned, the mixture is the other route.
        let (m, t) = (1000u64, 5000u64);
        let js: Vec<u64> = (1..=40).collect();
        let mix = cover_mixture(&js, m, t).unwrap();
        for (&j, (q, eq)) in js.iter().zip(mix) {
            let (a, ea) = cover_alternating(j, m, t);
            let q = q.to_f64();
            assert!(ea / a < 1e-12 && eq < 1e-11, "j={j}: {ea} {eq}");
            assert!((a - q).abs() <= ea + eq * q, "j={j}: {a} vs {q}");
        }
    }

    #[test]
    fn matches_the_occupancy_recurrence_with_a_small_bound() {
        for (m, n, k) in [
            (256u64, 26u64, 7u32),
            (64, 3, 200),
            (300, 2, 150),
            (64, 3, 64),
            (100, 40, 3),
            (512, 30, 16),
            (37, 200, 5),
        ] {
            let o = occupancy(m, n, k);
            let r = fpr_exact_with_bound(m, n, k).unwrap();
            assert!(r.rel_error < 1e-11, "{r:?}");
            assert!(
                (r.value - o).abs() <= (r.rel_error + 1e-12) * o,
                "m={m} n={n} k={k}: {r:?} vs {o}"
            );
        }
    }

    #[test]
    fn exact_exceeds_classic_and_converges_for_large_m() {
        assert!(fpr_exact(256, 26, 7) > fpr_classic(256, 26, 7));
        let (m, n, k) = (1u64 << 24, 1u64 << 20, 10u32);
        let e = fpr_exact(m, n, k);
        assert!((e / fpr_classic(m, n, k) - 1.0).abs() < 1e-4);
    }

    #[test]
    fn degenerate_inputs() {
        assert_eq!(fpr_exact(100, 0, 3), 0.0);
        assert_eq!(fpr_exact(0, 5, 3), 1.0);
        assert_eq!(fpr_exact(100, 5, 0), 1.0);
        let one = fpr_exact_with_bound(1, 1, 1).unwrap();
        assert!((one.value - 1.0).abs() < 1e-15, "{one:?}");
        // More probes needed than inserted: j > t terms vanish exactly.
        assert!((fpr_exact(1 << 30, 1, 1) - 1.0 / (1u64 << 30) as f64).abs() < 1e-24);
    }

    #[test]
    fn extremes_give_bounded_answers() {
        for (m, n, k) in [
            (u64::MAX / 2, 1u64, 64u32),
            (1 << 62, 1 << 40, 64),
            (8, 1_000_000_000_000_000, 64),
            (1, 1_000_000, 64),
            (2, 1, 64),
            (1 << 40, 1 << 34, 64),
            (65, 1, 64),
        ] {
            let r = fpr_exact_with_bound(m, n, k).unwrap();
            assert!(
                (0.0..=1.0).contains(&r.value) && r.rel_error <= 1e-10,
                "m={m} n={n}: {r:?}"
            );
        }
        // Two items in two bits with k = 64: the query misses only if one bit stayed empty.
        let two = fpr_exact(2, 1, 64);
        let miss = 2.0 * 0.5f64.powi(64); // insert probes all in one bit
        let want = (1.0 - miss) + miss * 0.5f64.powi(64);
        assert!((two - want).abs() < 1e-15 * want, "{two} vs {want}");
    }

    #[test]
    fn xf_arithmetic_is_exact_in_range() {
        let a = Xf::exp(-5000.0);
        assert!((a.ln() + 5000.0).abs() < 1e-11);
        assert_eq!(a.to_f64(), 0.0);
        let b = Xf::new(0.75).mul(Xf::new(2.0));
        assert_eq!(b.to_f64(), 1.5);
        assert_eq!(Xf::exp(-800.0).mul(Xf::exp(800.0)).to_f64(), 1.0);
        assert!((Xf::exp(-800.0).add(Xf::exp(-800.0)).ln() - (2f64.ln() - 800.0)).abs() < 1e-12);
        assert_eq!(Xf::new(1e-310).to_f64(), 1e-310);
    }
}
