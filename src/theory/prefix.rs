//! The prefix filter's model: Even, Even & Morrison, "Prefix Filter: Practically and
//! Theoretically Better Than Bloom", PVLDB 15(7), 2022 (arXiv:2203.17139), §4–§5.
//!
//! **The structure.** `pds` pocket dictionaries (PDs) of 32 bytes, each holding at most
//! [`CAPACITY`] = 25 fingerprints `(q, r)` with a quotient `q < 25` and an 8-bit remainder `r`:
//! [`FINGERPRINTS`] = 6,400 values, the authors' `pd256` configuration (their code:
//! `min_pd::QUOTS = MAX_CAP0 = 25`, `fixed_reduce(h) = h·6400 >> 16`). An item hashes to one PD
//! and one fingerprint. A PD that already holds 25 keeps the 25 *smallest* fingerprints it was
//! given (the "prefix"), and the larger ones go to the *spare*, a second filter keyed by
//! `(pd, fingerprint)`; here the spare is a [blocked Bloom filter](super::blocked) (the paper's
//! `PF[BBF-Flex]` variant). A query asks the spare only when its fingerprint is larger than the
//! largest its PD kept, so most queries read one PD, half a cache line.
//!
//! **Balls into bins.** With `n` items over `pds` PDs the load of one PD is, to a very good
//! approximation for many PDs, `X ~ Poisson(λ)`, `λ = n/pds`. Then:
//! - the expected number of items one PD passes to the spare is `E[(X − 25)⁺]`
//!   ([`overflow_per_pd`]); the spare's share of the items is `E[(X − 25)⁺]/λ`
//!   ([`spare_share`]). The authors' code sizes its spare with the constant 0.0586 at the
//!   first-level load 0.95 (`expected_items95` in `Tests/wrappers.hpp`), 0.0795 at load 1.0
//!   and 0.1031 at 1.05; the tests check this formula against those three numbers;
//! - a query whose PD received `x > 25` items is routed to the spare when its fingerprint is
//!   above the 25th smallest of x uniform fingerprints, with probability `(x − 24)/(x + 1)`
//!   (the order statistic's mean `25/(x + 1)`); [`spare_query_share`] averages that;
//! - the false-positive rate: a query for an absent item is positive when one of the `X`
//!   items of its PD has its fingerprint (wherever that item is kept, PD or spare: the spare
//!   stores the exact `(pd, fingerprint)` key), probability `1 − E[(1 − 1/F)^X] =
//!   1 − e^(−λ/F)` for `F = 6400`, or else when it is routed to the spare and the spare gives a
//!   false positive ([`fpr`]). At the paper's load 0.95 the first term is 0.37%, the paper's
//!   "≈ 2^−8 · α" (§5).
//!
//! **Sizing.** `pds = ⌈n / (25 · LOAD)⌉` with the paper's [`LOAD`] = 0.95 (the authors'
//! `FilterAPI<Prefix_Filter>::ConstructFromAddCount`), or more PDs (a lower load) when a target
//! rate below the ≈0.37% that load delivers is asked for ([`sizing`]), and a spare sized for
//! [`spare_capacity`] items at [`SPARE_RATE`]. A filter refuses an insert (`Error::Full`, like
//! cuckoo) only when its spare holds that many, which within the design `n` has a probability
//! below 10⁻¹⁵ (eight standard deviations above the mean).

use crate::error::{Error, Param, Result};

/// Quotients (buckets) per pocket dictionary.
pub const QUOTIENTS: u32 = 25;
/// Fingerprints one pocket dictionary holds.
pub const CAPACITY: u32 = 25;
/// Bits of a remainder.
pub const REMAINDER_BITS: u32 = 8;
/// Distinct fingerprints `(q, r)`: `25 · 2^8`.
pub const FINGERPRINTS: u32 = QUOTIENTS << REMAINDER_BITS;
/// Bytes of one pocket dictionary (7 bytes of header and status, 25 remainders).
pub const PD_BYTES: u64 = 32;
/// The first level's design load: items per PD over its capacity (the paper's 0.95).
pub const LOAD: f64 = 0.95;
/// The spare's design false-positive rate: it is asked by about 5% of the queries at the
/// design load ([`spare_query_share`]), so it adds ≈ 0.05 · 0.002 = 10⁻⁴ to the rate (3% of
/// the first level's 0.37%) for ≈ 0.8 bits per key.
pub const SPARE_RATE: f64 = 0.002;

/// Above this many items per PD the tails are computed from their complement (below).
const DIRECT_MAX: f64 = 1000.0;

/// `Σ_{x > 25} P(X = x) · f(x)` for `X ~ Poisson(λ)` (0 for `λ ≤ 0`), where `mean(λ)` is
/// `E[f(X)]` in closed form.
///
/// Up to [`DIRECT_MAX`] items per PD the tail is summed term by term to λ + 12√λ + 60 (the
/// terms past it are below 10⁻¹⁸). Above, it is `E[f(X)] − Σ_{x ≤ 25} P(X = x) · f(x)`: 26
/// terms, exact, and with nearly all of the mass in the tail no cancellation hurts. So the cost
/// is bounded whatever λ is — a file may declare 2^64 items (a fuzzed file did: summing the
/// tail of λ ≈ 10^15 asked for a 2·10^15-byte vector).
fn over_capacity(lambda: f64, f: impl Fn(f64) -> f64, mean: impl Fn(f64) -> f64) -> f64 {
    over_capacity_by(lambda, f, mean, lambda <= DIRECT_MAX)
}

/// [`over_capacity`] term by term (`direct`) or from the complement.
fn over_capacity_by(
    lambda: f64,
    f: impl Fn(f64) -> f64,
    mean: impl Fn(f64) -> f64,
    direct: bool,
) -> f64 {
    if lambda <= 0.0 {
        return 0.0;
    }
    let cap = CAPACITY as usize;
    let top = if direct {
        (lambda + 12.0 * lambda.sqrt() + 60.0).ceil() as usize
    } else {
        cap
    };
    // ln P(x) = −λ + x ln λ − ln x!
    let (mut ln_p, mut tail, mut head) = (-lambda, 0.0, 0.0);
    for x in 0..=top {
        if x > 0 {
            ln_p += lambda.ln() - (x as f64).ln();
        }
        let term = ln_p.exp() * f(x as f64);
        if x > cap {
            tail += term;
        } else {
            head += term;
        }
    }
    if direct { tail } else { mean(lambda) - head }
}

/// `E[(X − 25)⁺]` for `X ~ Poisson(λ)`: the items one PD passes to the spare.
#[must_use]
pub fn overflow_per_pd(lambda: f64) -> f64 {
    let c = f64::from(CAPACITY);
    over_capacity(lambda, |x| x - c, |l| l - c)
}

/// The variance of `(X − 25)⁺` for `X ~ Poisson(λ)`.
#[must_use]
pub fn overflow_variance(lambda: f64) -> f64 {
    let c = f64::from(CAPACITY);
    // E[(X − c)²] = Var X + (E X − c)² = λ + (λ − c)².
    let second = over_capacity(lambda, |x| (x - c).powi(2), |l| l + (l - c).powi(2));
    (second - overflow_per_pd(lambda).powi(2)).max(0.0)
}

/// The spare's share of the items at first-level load `load` (items per PD / 25).
#[must_use]
pub fn spare_share(load: f64) -> f64 {
    let lambda = load * f64::from(CAPACITY);
    if lambda <= 0.0 {
        return 0.0;
    }
    overflow_per_pd(lambda) / lambda
}

/// The share of negative queries routed to the spare, `Σ_{x>25} P(X = x) · (x − 24)/(x + 1)`.
#[must_use]
pub fn spare_query_share(lambda: f64) -> f64 {
    // (x − 24)/(x + 1) = 1 − 25/(x + 1), and E[1/(X + 1)] = (1 − e^(−λ))/λ.
    let c = f64::from(CAPACITY);
    over_capacity(
        lambda,
        |x| (x - (c - 1.0)) / (x + 1.0),
        |l| 1.0 + c * (-l).exp_m1() / l,
    )
}

/// The first level's rate: `1 − e^(−λ/F)`, the chance one of the PD's items has the query's
/// fingerprint.
#[must_use]
pub fn first_level_fpr(lambda: f64) -> f64 {
    -(-lambda / f64::from(FINGERPRINTS)).exp_m1()
}

/// The model false-positive rate holding `n` items in `pds` PDs, with a spare answering
/// false positives at `spare_fpr`.
#[must_use]
pub fn fpr(pds: u64, n: u64, spare_fpr: f64) -> f64 {
    if pds == 0 {
        return 1.0;
    }
    let lambda = n as f64 / pds as f64;
    let routed = spare_query_share(lambda);
    (first_level_fpr(lambda) + routed * spare_fpr).min(1.0)
}

/// The model rate of `pds` PDs holding `n` items with a blocked spare of `spare_m` bits and
/// `spare_k` probes holding its expected share, `pds · E[(X − 25)⁺]` items: what the plan and
/// the built filter (at its insert count) both report.
#[must_use]
pub fn fpr_with_spare(pds: u64, n: u64, spare_m: u64, spare_k: u32) -> f64 {
    if pds == 0 {
        return 1.0;
    }
    let spare_n = (pds as f64 * overflow_per_pd(n as f64 / pds as f64)).round() as u64;
    let spare_fpr =
        super::blocked::fpr_blocked_exact(spare_m, spare_n, spare_k, super::blocked::BLOCK_BITS);
    fpr(pds, n, spare_fpr)
}

/// How a prefix filter is sized.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Sizing {
    /// The items it is sized for.
    pub n: u64,
    /// Pocket dictionaries.
    pub pds: u64,
    /// Items the spare takes before inserts are refused.
    pub spare_capacity: u64,
    /// The spare's blocked Bloom filter.
    pub spare: super::blocked::BlockedSizing,
}

impl Sizing {
    /// The expected number of items in the spare holding `n` items.
    #[must_use]
    pub fn spare_items_at(&self, n: u64) -> f64 {
        self.pds as f64 * overflow_per_pd(n as f64 / self.pds as f64)
    }

    /// The model rate holding `n` items ([`fpr_with_spare`]).
    #[must_use]
    pub fn fpr_at(&self, n: u64) -> f64 {
        fpr_with_spare(self.pds, n, self.spare.m, self.spare.k)
    }

    /// Payload bits: the PDs and the spare's blocks.
    #[must_use]
    pub fn bits(&self) -> u64 {
        self.pds * PD_BYTES * 8 + self.spare.m
    }

    /// Heap bytes.
    #[must_use]
    pub fn bytes(&self) -> u64 {
        self.pds * PD_BYTES + self.spare.blocks * 64
    }
}

/// The spare's capacity for `pds` PDs holding `n` items: the expected overflow plus eight
/// standard deviations plus 64.
#[must_use]
pub fn spare_capacity(pds: u64, n: u64) -> u64 {
    let lambda = n as f64 / pds.max(1) as f64;
    let mean = pds as f64 * overflow_per_pd(lambda);
    let sd = (pds as f64 * overflow_variance(lambda)).sqrt();
    (mean + 8.0 * sd + 64.0).ceil() as u64
}

/// The labelled facts of a prefix filter of `pds` PDs holding `n` items with a spare of
/// `spare_capacity` (what the plan and the built filter both show).
#[must_use]
pub fn detail_rows(pds: u64, n: u64, spare_capacity: u64) -> Vec<(String, String)> {
    let lambda = n as f64 / pds.max(1) as f64;
    let load = lambda / f64::from(CAPACITY);
    vec![
        (
            "pocket dictionaries (32 B, 25 slots)".into(),
            pds.to_string(),
        ),
        ("items per PD (mean)".into(), format!("{lambda:.2}")),
        ("spare share (model)".into(), share_text(spare_share(load))),
        ("spare capacity".into(), spare_capacity.to_string()),
        (
            "queries routed to the spare (model)".into(),
            share_text(spare_query_share(lambda)),
        ),
        (
            "first-level rate 1-e^(-lambda/6400)".into(),
            format!("{:.6}", first_level_fpr(lambda)),
        ),
    ]
}

/// A share to four decimals, or in scientific notation when that would print 0.0000 (a filter
/// sized below its design load for a small p routes almost nothing to its spare).
fn share_text(x: f64) -> String {
    if x >= 5e-5 || x == 0.0 {
        format!("{x:.4}")
    } else {
        format!("{x:.2e}")
    }
}

/// PDs for `n` items at the design load.
#[must_use]
pub fn pds_for(n: u64) -> u64 {
    ((n as f64 / (f64::from(CAPACITY) * LOAD)).ceil() as u64).max(1)
}

/// The sizing with `pds` PDs for `n` items.
fn with_pds(n: u64, pds: u64) -> Result<Sizing> {
    if pds > u64::from(u32::MAX) {
        return Err(Error::invalid(
            Param::N,
            n,
            "a prefix filter indexes at most 2^32 pocket dictionaries (about 10^11 items at its design load, fewer at rates below 0.4%)",
        ));
    }
    let spare_capacity = spare_capacity(pds, n);
    let spare = super::blocked::size_for(spare_capacity, SPARE_RATE, None)?;
    Ok(Sizing {
        n,
        pds,
        spare_capacity,
        spare,
    })
}

/// Size a prefix filter for `n` items at rate `p`: the paper's load 0.95 (25 · 0.95 items per
/// PD) when that meets `p` (about 0.37%, fixed by the 8-bit remainders), and otherwise the
/// fewest PDs whose model rate ([`Sizing::fpr_at`]) is at most `p`, which lowers the load: the
/// first-level rate is `1 − e^(−λ/6400)`, so a rate ten times lower needs about ten times the
/// PDs. Without `p`, the design load.
///
/// # Errors
/// [`Error::InvalidParameter`] for `n = 0`, `p` outside (0, 1), or more PDs than 2³².
pub fn sizing(n: u64, p: Option<f64>) -> Result<Sizing> {
    super::check_n(n)?;
    let at_load = with_pds(n, pds_for(n))?;
    let Some(p) = p else {
        return Ok(at_load);
    };
    super::check_p(p)?;
    if at_load.fpr_at(n) <= p {
        return Ok(at_load);
    }
    // The first level alone at rate p: λ = −6400 · ln(1 − p); then up in 0.5% steps while the
    // spare's share keeps the rate above p (a few steps: the spare adds about 3%).
    let lambda = -f64::from(FINGERPRINTS) * (-p).ln_1p();
    let mut pds = ((n as f64 / lambda).ceil() as u64).max(at_load.pds);
    loop {
        let s = with_pds(n, pds)?;
        if s.fpr_at(n) <= p {
            return Ok(s);
        }
        pds += (pds / 200).max(1);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Poisson(λ) probabilities `P(X = x)` for `x` from 0 up to well past λ (until the tail is
    /// below 10⁻¹⁸), in a numerically safe recurrence.
    fn poisson(lambda: f64) -> Vec<f64> {
        let top = (lambda + 12.0 * lambda.sqrt() + 60.0).ceil() as usize;
        // ln P(x) = −λ + x ln λ − ln x!
        let mut out = Vec::with_capacity(top + 1);
        let mut ln_p = -lambda;
        for x in 0..=top {
            if x > 0 {
                ln_p += lambda.ln() - (x as f64).ln();
            }
            out.push(ln_p.exp());
        }
        out
    }

    #[test]
    fn spare_share_matches_the_authors_constants() {
        // Tests/wrappers.hpp, get_l2_slots<Impala512>: expected_items95 = 0.0586,
        // expected_items100 = 0.07952, expected_items105 = 0.1031 (items reaching the spare
        // per item, at first-level loads 0.95, 1.0 and 1.05).
        for (load, theirs) in [(0.95, 0.0586), (1.0, 0.07952), (1.05, 0.1031)] {
            let ours = spare_share(load);
            assert!(
                (ours - theirs).abs() / theirs < 0.01,
                "load {load}: {ours} vs {theirs}"
            );
        }
    }

    #[test]
    fn poisson_sums_to_one_and_first_level_rate_is_load_over_256() {
        for lambda in [1.0, 23.75, 25.0, 200.0] {
            let s: f64 = poisson(lambda).iter().sum();
            assert!((s - 1.0).abs() < 1e-12, "{lambda}: {s}");
        }
        // 1 − e^(−23.75/6400) = 0.0037043…; the paper's α·2^−8 = 0.0037109.
        let f = first_level_fpr(23.75);
        assert!((f - 0.003_704_3).abs() < 1e-6, "{f}");
        assert!((f - 0.95 / 256.0).abs() / f < 0.002);
    }

    #[test]
    fn spare_query_share_is_a_probability_below_the_spare_share() {
        let q = spare_query_share(23.75);
        assert!(q > 0.0 && q < spare_share(0.95), "{q}");
        // Hand check of one term: x = 30 routes (30 − 24)/31 of the queries.
        let only30 = poisson(23.75)[30] * 6.0 / 31.0;
        assert!(only30 < q);
    }

    #[test]
    fn sizing_meets_p_at_the_design_load_or_below_it() {
        let s = sizing(1_000_000, None).unwrap();
        assert_eq!(s.pds, 42_106);
        let f = s.fpr_at(1_000_000);
        assert!(f > 0.0037 && f < 0.0040, "{f}");
        let bits = s.bits() as f64 / 1e6;
        assert!(bits > 11.0 && bits < 12.0, "{bits}");
        assert_eq!(sizing(1_000_000, Some(0.01)).unwrap(), s);
        // Below its rate at load 0.95: more PDs, the fewest that meet p.
        for p in [0.003, 0.001, 1e-4] {
            let t = sizing(1_000_000, Some(p)).unwrap();
            assert!(t.fpr_at(1_000_000) <= p, "{p}");
            let fewer = with_pds(1_000_000, t.pds - t.pds / 200 - 1).unwrap();
            assert!(fewer.fpr_at(1_000_000) > p, "{p}: not the fewest");
        }
        // λ = 6400 · 0.001 ≈ 6.4 items per PD: about 40 bits per key.
        let t = sizing(1_000_000, Some(0.001)).unwrap();
        let bits = t.bits() as f64 / 1e6;
        assert!(bits > 38.0 && bits < 42.0, "{bits}");
        assert!(sizing(0, None).is_err());
        assert!(sizing(1_000, Some(0.0)).is_err());
        let e = sizing(10_000_000_000, Some(1e-9)).unwrap_err().to_string();
        assert!(e.contains("2^32"), "{e}");
    }
    #[test]
    fn both_ways_of_summing_a_tail_agree_and_a_huge_load_costs_26_terms() {
        let c = f64::from(CAPACITY);
        for lambda in [30.0, 200.0, 600.0, 1000.0] {
            for (f, mean) in [
                (
                    &(|x: f64| x - c) as &dyn Fn(f64) -> f64,
                    &(|l: f64| l - c) as &dyn Fn(f64) -> f64,
                ),
                (&|x: f64| (x - c).powi(2), &|l: f64| l + (l - c).powi(2)),
                (&|x: f64| (x - (c - 1.0)) / (x + 1.0), &|l: f64| {
                    1.0 + c * (-l).exp_m1() / l
                }),
            ] {
                let a = over_capacity_by(lambda, f, mean, true);
                let b = over_capacity_by(lambda, f, mean, false);
                assert!((a - b).abs() <= 1e-9 * a.abs(), "{lambda}: {a} vs {b}");
            }
        }
        // A file may declare 2^64 items in one PD (a fuzzed one did): finite, at once.
        let lambda = 2f64.powi(64);
        assert_eq!(overflow_per_pd(lambda), lambda - c);
        assert!(spare_share(lambda / c) <= 1.0 && spare_share(lambda / c) > 0.999);
        let q = spare_query_share(lambda);
        assert!(q > 0.999 && q <= 1.0, "{q}");
        assert!(overflow_variance(lambda).is_finite());
    }
}
