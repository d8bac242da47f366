//! The exact false-positive rate of a Bloom filter with independent, uniform hash positions.
//!
//! Bose, Guo, Kranakis, Maheshwari, Morin, Morrison, Smid & Tang (2008), "On the false-positive
//! rate of Bloom filters", IPL 108(4), showed that the classic `(1 − e^(−kn/m))^k` is only an
//! approximation (it is a *lower* bound for small m). The exact rate is
//!
//! ```text
//! P = Σ_x  Pr[X = x] · (x/m)^k
//! ```
//!
//! where X is the number of bits set after t = k·n uniform, independent probes into m bits
//! (k probes of a query land on set bits with probability (x/m)^k given X = x).
//! Bose et al. write Pr[X = x] with Stirling numbers of the second kind, which is numerically
//! hopeless in floating point for realistic m; Christensen, Roginsky & Jimeno (2010), "A new
//! analysis of the false positive rate of a Bloom filter", IPL 110(21), give a computation that
//! stays stable. We use the same idea in its simplest stable form: the occupancy distribution by
//! its one-probe recurrence
//!
//! ```text
//! Pr_{t+1}[X = x] = Pr_t[X = x]·x/m + Pr_t[X = x−1]·(m−x+1)/m
//! ```
//!
//! which adds only non-negative terms (no cancellation), truncating the negligible tails
//! (< 10⁻²⁴ each; the dropped mass is tracked and reported as the error bound). Cost is
//! t × (window width ≈ 20·σ of X): about 10⁸ steps at m = 2¹⁶, well under a second in release.
//!
//! Beyond a work budget (huge m) we switch to the equivalent moment form (inclusion–exclusion
//! over empty bins), `P = Σ_r C(k,r)(−1)^r E[(Y/m)^r]` with Y = m − X empty bits and
//! `E[(Y)_j] = (m)_j (1 − j/m)^t`. It is exact in exact arithmetic and O(k²), but alternating:
//! its floating-point error is bounded by `64·k·ε_mach·Σ_r C(k,r) E[(Y/m)^r]`, which we return
//! as the bound (≈10⁻¹³ relative at k = 7, growing like 3^k; at those sizes the classic formula's
//! own error, O(k/m), is far smaller than anything a measurement can resolve).

/// Work budget (probe × window cells) for the stable recurrence.
const DP_BUDGET: f64 = 4e8;
/// Tail cut-off for the recurrence.
const TAIL: f64 = 1e-24;

/// How [`fpr_exact_with_bound`] computed its answer.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum ExactMethod {
    /// The occupancy recurrence (stable, positive terms).
    Recurrence,
    /// The moment (inclusion–exclusion) form with a rounding-error bound.
    Moments,
}

/// The exact FPR (see the module docs). Equal to [`fpr_exact_with_bound`]'s value.
///
/// At m = 256, n = 26, k = 7 the classic formula is about 3% low:
/// ```
/// use bloomlab::theory::{fpr_classic, fpr_exact};
/// let (e, c) = (fpr_exact(256, 26, 7), fpr_classic(256, 26, 7));
/// assert!(e > c && (e / c - 1.0) > 0.025 && (e / c - 1.0) < 0.04, "{e} {c}");
/// ```
#[must_use]
pub fn fpr_exact(m: u64, n: u64, k: u32) -> f64 {
    fpr_exact_with_bound(m, n, k).0
}

/// The exact FPR, an absolute error bound, and the method used.
#[must_use]
pub fn fpr_exact_with_bound(m: u64, n: u64, k: u32) -> (f64, f64, ExactMethod) {
    if m == 0 {
        return (1.0, 0.0, ExactMethod::Recurrence);
    }
    if n == 0 || k == 0 {
        return (if k == 0 { 1.0 } else { 0.0 }, 0.0, ExactMethod::Recurrence);
    }
    let t = u64::from(k).saturating_mul(n);
    // Standard deviation of the occupancy is below sqrt(m); the window is ~ 24 sigma wide.
    let width = 24.0 * (m as f64).sqrt() + 16.0;
    if t as f64 * width.min(m as f64) <= DP_BUDGET {
        let (p, err) = recurrence(m, t, k);
        (p, err, ExactMethod::Recurrence)
    } else {
        let (p, err) = moments(m, t, k);
        (p, err, ExactMethod::Moments)
    }
}

/// The stable recurrence; returns (P, dropped mass bound).
// ANCHOR: recurrence
fn recurrence(m: u64, t: u64, k: u32) -> (f64, f64) {
    let mf = m as f64;
    // dist[j] = Pr[X = lo + j]
    let mut lo: u64 = 0;
    let mut dist: Vec<f64> = vec![1.0];
    let mut next: Vec<f64> = Vec::with_capacity(1024);
    let mut dropped = 0.0f64;
    for _ in 0..t {
        let hi = lo + dist.len() as u64 - 1;
        let new_hi = (hi + 1).min(m);
        next.clear();
        for x in lo..=new_hi {
            let stay = if x <= hi {
                dist[(x - lo) as usize] * (x as f64 / mf)
            } else {
                0.0
            };
            let grow = if x > lo {
                dist[(x - 1 - lo) as usize] * ((mf - (x - 1) as f64) / mf)
            } else {
                0.0
            };
            next.push(stay + grow);
        }
        // Trim negligible tails.
        let mut start = 0;
        while start + 1 < next.len() && next[start] < TAIL {
            dropped += next[start];
            start += 1;
        }
        let mut end = next.len();
        while end > start + 1 && next[end - 1] < TAIL {
            dropped += next[end - 1];
            end -= 1;
        }
        lo += start as u64;
        std::mem::swap(&mut dist, &mut next);
        dist.drain(..start);
        dist.truncate(end - start);
    }
    let p: f64 = dist
        .iter()
        .enumerate()
        .map(|(j, &pr)| pr * ((lo + j as u64) as f64 / mf).powi(k as i32))
        .sum();
    // Each dropped unit of mass could have contributed at most 1 to P; rounding adds ~t·ε.
    (
        p,
        dropped + (t as f64 + dist.len() as f64) * f64::EPSILON * p,
    )
}
// ANCHOR_END: recurrence

/// The moment form; returns (P, rounding-error bound).
fn moments(m: u64, t: u64, k: u32) -> (f64, f64) {
    let mf = m as f64;
    let tf = t as f64;
    let kk = k as usize;
    // Stirling numbers of the second kind S(r, j), r, j <= k.
    let mut s = vec![vec![0.0f64; kk + 1]; kk + 1];
    s[0][0] = 1.0;
    for r in 1..=kk {
        let (done, rest) = s.split_at_mut(r);
        let (prev, row) = (&done[r - 1], &mut rest[0]);
        for j in 1..=r {
            row[j] = j as f64 * prev[j] + prev[j - 1];
        }
    }
    // e[j] = E[(Y)_j] / m^j = Π_{i<j}(1 − i/m) · (1 − j/m)^t
    let mut e = vec![0.0f64; kk + 1];
    let mut falling = 1.0f64;
    for (j, ej) in e.iter_mut().enumerate() {
        let jf = j as f64;
        *ej = if jf >= mf {
            0.0
        } else {
            falling * (tf * (-jf / mf).ln_1p()).exp()
        };
        falling *= (1.0 - jf / mf).max(0.0);
    }
    let mut binom = 1.0f64;
    let mut p = 0.0f64;
    let mut abs = 0.0f64;
    for (r, srow) in s.iter().enumerate() {
        // E[(Y/m)^r] = Σ_j S(r,j) E[(Y)_j] / m^r = Σ_j S(r,j) e[j] m^{j−r}
        let mr: f64 = (0..=r)
            .map(|j| srow[j] * e[j] * mf.powi(j as i32 - r as i32))
            .sum();
        let term = binom * mr;
        p += if r % 2 == 0 { term } else { -term };
        abs += term;
        binom = binom * (kk - r) as f64 / (r + 1) as f64;
    }
    let bound = 64.0 * f64::from(k) * f64::EPSILON * abs;
    (p.clamp(0.0, 1.0), bound)
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

    #[test]
    fn recurrence_and_moments_match_brute_force() {
        for (m, n, k) in [
            (4u64, 1u64, 2u32),
            (5, 2, 2),
            (3, 2, 3),
            (6, 1, 3),
            (7, 3, 1),
        ] {
            let b = brute(m, n, k);
            let (r, _) = recurrence(m, u64::from(k) * n, k);
            let (mo, _) = moments(m, u64::from(k) * n, k);
            assert!((r - b).abs() < 1e-12, "rec m={m} n={n} k={k}: {r} vs {b}");
            assert!((mo - b).abs() < 1e-12, "mom m={m} n={n} k={k}: {mo} vs {b}");
        }
    }

    #[test]
    fn methods_agree_at_medium_size() {
        for (m, n, k) in [
            (256u64, 26u64, 7u32),
            (1024, 100, 7),
            (4096, 400, 5),
            (1000, 50, 14),
        ] {
            let (r, rb) = recurrence(m, u64::from(k) * n, k);
            let (mo, mb) = moments(m, u64::from(k) * n, k);
            assert!((r - mo).abs() <= rb + mb + 1e-15, "m={m}: {r} vs {mo}");
        }
    }

    #[test]
    fn exact_exceeds_classic_and_converges_for_large_m() {
        assert!(fpr_exact(256, 26, 7) > fpr_classic(256, 26, 7));
        let (m, n, k) = (1u64 << 24, 1u64 << 20, 10u32);
        let (e, bound, method) = fpr_exact_with_bound(m, n, k);
        assert_eq!(method, ExactMethod::Moments);
        assert!(bound < 1e-12 * e.max(1e-300) * 1e6, "bound {bound}");
        assert!((e / fpr_classic(m, n, k) - 1.0).abs() < 1e-4);
    }

    #[test]
    fn degenerate_inputs() {
        assert_eq!(fpr_exact(100, 0, 3), 0.0);
        assert_eq!(fpr_exact(0, 5, 3), 1.0);
        assert!((fpr_exact(1, 1, 1) - 1.0).abs() < 1e-15);
    }
}
