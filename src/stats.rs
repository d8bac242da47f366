//! Binomial confidence intervals and uniformity tests.

use statrs::distribution::{Beta, Binomial, ChiSquared, ContinuousCDF, DiscreteCDF, StudentsT};

/// z for a two-sided 95% interval.
pub const Z95: f64 = 1.959_963_984_540_054;

/// Wilson score interval for `successes` out of `trials` at normal quantile `z`
/// (Wilson 1927, "Probable inference, the law of succession, and statistical inference", JASA
/// 22(158)). Good coverage even for proportions near 0, unlike the Wald interval.
///
/// ```
/// let (lo, hi) = bloomlab::stats::wilson(100, 10_000, bloomlab::stats::Z95);
/// assert!((lo - 0.00823).abs() < 1e-4 && (hi - 0.01215).abs() < 1e-4);
/// ```
#[must_use]
pub fn wilson(successes: u64, trials: u64, z: f64) -> (f64, f64) {
    if trials == 0 {
        return (0.0, 1.0);
    }
    let n = trials as f64;
    let p = successes as f64 / n;
    let z2 = z * z;
    let denom = 1.0 + z2 / n;
    let centre = (p + z2 / (2.0 * n)) / denom;
    let half = z * (p * (1.0 - p) / n + z2 / (4.0 * n * n)).sqrt() / denom;
    let lo = if successes == 0 {
        0.0
    } else {
        (centre - half).max(0.0)
    };
    let hi = if successes >= trials {
        1.0
    } else {
        (centre + half).min(1.0)
    };
    (lo, hi)
}

/// Clopper–Pearson "exact" interval at confidence `1 − alpha` (Clopper & Pearson 1934,
/// Biometrika 26(4)), from Beta quantiles: conservative (coverage ≥ nominal).
///
/// ```
/// let (lo, hi) = bloomlab::stats::clopper_pearson(0, 1000, 0.05);
/// assert_eq!(lo, 0.0);
/// assert!((hi - 0.003682).abs() < 1e-5); // the "rule of three" gives ≈ 3/1000
/// ```
#[must_use]
pub fn clopper_pearson(successes: u64, trials: u64, alpha: f64) -> (f64, f64) {
    if trials == 0 {
        return (0.0, 1.0);
    }
    let x = successes as f64;
    let n = trials as f64;
    let lo = if successes == 0 {
        0.0
    } else {
        Beta::new(x, n - x + 1.0).map_or(0.0, |b| b.inverse_cdf(alpha / 2.0))
    };
    let hi = if successes == trials {
        1.0
    } else {
        Beta::new(x + 1.0, n - x).map_or(1.0, |b| b.inverse_cdf(1.0 - alpha / 2.0))
    };
    (lo, hi)
}

/// The two-sided 95% quantile of Student's t with `df` degrees of freedom (2.776 for 4, → 1.96).
///
/// ```
/// assert!((bloomlab::stats::t95(4.0) - 2.776).abs() < 1e-3);
/// assert!((bloomlab::stats::t95(1e6) - 1.960).abs() < 1e-3);
/// ```
#[must_use]
pub fn t95(df: f64) -> f64 {
    StudentsT::new(0.0, 1.0, df).map_or(Z95, |t| t.inverse_cdf(0.975))
}

/// Mean and a 95% Student-t interval for the mean of independent per-trial rates. Use this
/// when several independently built filters are measured: each filter's own FPR varies (it
/// depends on how many bits that instance happened to set), so pooling all queries into one
/// binomial would understate the uncertainty of the average. With few trials t matters: for
/// 5 trials the half-width is 2.776 standard errors, not 1.96.
#[must_use]
pub fn mean_ci95(rates: &[f64]) -> (f64, f64, f64) {
    let t = rates.len() as f64;
    if rates.is_empty() {
        return (0.0, 0.0, 1.0);
    }
    let mean = rates.iter().sum::<f64>() / t;
    if rates.len() < 2 {
        return (mean, 0.0, 1.0);
    }
    let var = rates.iter().map(|r| (r - mean) * (r - mean)).sum::<f64>() / (t - 1.0);
    let half = t95(t - 1.0) * (var / t).sqrt();
    (mean, (mean - half).max(0.0), (mean + half).min(1.0))
}

/// Median and a distribution-free 95% interval for it: the order statistics `x_(j)` and
/// `x_(r+1-j)` of r sorted values, with j the largest rank whose binomial tail
/// P(Bin(r, 1/2) < j) stays at or below 2.5% (Conover, *Practical Nonparametric Statistics*,
/// 3rd ed., §3.2). For r < 6 no such rank exists and the interval is the whole range; an empty
/// input gives NaN.
///
/// ```
/// // 31 values: the interval is [x_(10), x_(22)].
/// let x: Vec<f64> = (1..=31).map(f64::from).collect();
/// assert_eq!(bloomlab::stats::median_ci95(x), (16.0, 10.0, 22.0));
/// ```
#[must_use]
pub fn median_ci95(mut x: Vec<f64>) -> (f64, f64, f64) {
    x.sort_by(f64::total_cmp);
    let r = x.len();
    if r == 0 {
        return (f64::NAN, f64::NAN, f64::NAN);
    }
    let median = if r % 2 == 1 {
        x[r / 2]
    } else {
        (x[r / 2 - 1] + x[r / 2]) / 2.0
    };
    // P(Bin(r, 1/2) = i) for i = 0, 1, …, accumulated until the tail passes 2.5%; in logs, so
    // that 2^-r does not underflow for many values.
    let (mut ln_p, mut tail, mut j) = (-(r as f64) * std::f64::consts::LN_2, 0.0, 0usize);
    while j < r / 2 {
        let p = ln_p.exp();
        if tail + p > 0.025 {
            break;
        }
        tail += p;
        ln_p += ((r - j) as f64 / (j + 1) as f64).ln();
        j += 1;
    }
    let j = j.max(1);
    (median, x[j - 1], x[r - j])
}

/// Pearson's chi-square statistic of `counts` against a uniform expectation, and its p-value
/// (probability of a statistic at least this large if the counts were uniform).
///
/// ```
/// let (_, p) = bloomlab::stats::chi_square_uniform(&[100, 100, 100, 100]);
/// assert!(p > 0.99);
/// let (_, p) = bloomlab::stats::chi_square_uniform(&[400, 0, 0, 0]);
/// assert!(p < 1e-10);
/// ```
#[must_use]
pub fn chi_square_uniform(counts: &[u64]) -> (f64, f64) {
    let total: u64 = counts.iter().sum();
    if counts.len() < 2 || total == 0 {
        return (0.0, 1.0);
    }
    let expected = total as f64 / counts.len() as f64;
    let stat: f64 = counts
        .iter()
        .map(|&c| {
            let d = c as f64 - expected;
            d * d / expected
        })
        .sum();
    let df = (counts.len() - 1) as f64;
    let p = ChiSquared::new(df).map_or(f64::NAN, |c| 1.0 - c.cdf(stat));
    (stat, p)
}

/// `P(|Z| > z)` for a standard normal Z: `erfc(|z|/√2)`.
///
/// ```
/// let p = bloomlab::stats::normal_two_sided(1.959_963_984_540_054);
/// assert!((p - 0.05).abs() < 1e-9);
/// ```
#[must_use]
pub fn normal_two_sided(z: f64) -> f64 {
    statrs::function::erf::erfc(z.abs() / std::f64::consts::SQRT_2)
}

/// The chance that at least one of `tests` independent comparisons, each accepted at
/// `|z| ≤ z_max`, fails when nothing is wrong: `1 − (1 − P(|Z| > z_max))^tests`.
///
/// ```
/// let p = bloomlab::stats::family_false_alarm(3.0, 10);
/// assert!((p - 0.02666).abs() < 1e-4, "{p}");
/// ```
#[must_use]
pub fn family_false_alarm(z_max: f64, tests: u32) -> f64 {
    any_fails(normal_two_sided(z_max), tests)
}

/// The chance that at least one of `tests` independent checks fails, each with probability
/// `each`: `1 − (1 − each)^tests`, without cancellation for tiny `each`.
///
/// ```
/// // 51 checks at 99.99% each: 0.51% for the family.
/// let p = bloomlab::stats::any_fails(1e-4, 51);
/// assert!((p - 0.005087).abs() < 1e-6, "{p}");
/// ```
#[must_use]
pub fn any_fails(each: f64, tests: u32) -> f64 {
    -(f64::from(tests) * (-each).ln_1p()).exp_m1()
}

/// How many of `tests` independent checks, each failing with probability `each` when nothing
/// is wrong (a 95% interval missing its true value: 0.05), may fail together before the
/// family is called wrong at false-failure rate `budget`: the smallest `c` with
/// `P(Bin(tests, each) > c) ≤ budget`, and that probability. `None` when `each` is not a
/// probability.
///
/// ```
/// // 51 intervals at 95%: up to 7 misses (P(8 or more) = 0.36%); allowing 4 would fail a
/// // correct suite 11% of the time.
/// let (c, p) = bloomlab::stats::allowed_failures(51, 0.05, 0.01).unwrap();
/// assert_eq!(c, 7);
/// assert!((p - 0.003618).abs() < 1e-6, "{p}");
/// ```
#[must_use]
pub fn allowed_failures(tests: u64, each: f64, budget: f64) -> Option<(u64, f64)> {
    let b = Binomial::new(each, tests).ok()?;
    // The tail shrinks as c grows and is 0 at c = tests, so the first c within the budget
    // is found by walking up.
    (0..=tests)
        .map(|c| (c, if c == tests { 0.0 } else { b.sf(c) }))
        .find(|&(_, tail)| tail <= budget)
}

/// A measured rate printed with the digits its 95% interval supports: the one rule the CLI and
/// the workbench use for every measured rate (`measure`, the lessons, Explore, Compare).
///
/// The last digit printed is the one in the place of the leading digit of the interval's
/// larger half-width `max(hi − rate, rate − lo)`, so a digit is shown only where the interval
/// does not already span several units of it: at least 1 and at most 4 significant digits
/// (the rate's rounded value, as [`crate::units::format_prob_sig`] prints it). The bounds get
/// the same number of significant digits as the rate, and all three the rate's notation: a
/// percentage from 10^-4 up, scientific below (decided by the upper bound when the rate is 0).
///
/// ```
/// use bloomlab::stats::RateText;
/// // 4 of 50,000: Wilson's 95% interval is 3.1e-5 to 2.06e-4, wider than the rate itself.
/// assert_eq!(RateText::wilson(4, 50_000).to_string(), "8e-5 (4 of 50,000; 95% 3e-5–2e-4)");
/// assert_eq!(RateText::wilson(4_000, 1_000_000).rate, "0.40%");
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RateText {
    /// The rate.
    pub rate: String,
    /// The interval's lower bound.
    pub lo: String,
    /// Its upper bound.
    pub hi: String,
    /// Significant digits of each (1 to 4).
    pub digits: usize,
    /// `events of trials` (thousands separated) when the rate is a count, else empty.
    pub count: String,
}

impl RateText {
    /// `rate` with its 95% interval `[lo, hi]` (any method: Wilson, Student's t over trials).
    #[must_use]
    pub fn new(rate: f64, lo: f64, hi: f64) -> Self {
        let digits = supported_digits(rate, lo, hi);
        let top = if rate > 0.0 { rate } else { hi };
        let sci = top.abs() < 1e-4;
        let f = |x: f64| crate::units::format_prob_sig(x, digits, sci);
        Self {
            rate: f(rate),
            lo: f(lo),
            hi: f(hi),
            digits,
            count: String::new(),
        }
    }

    /// `events` of `trials`, with Wilson's 95% interval ([`wilson`] at [`Z95`]).
    #[must_use]
    pub fn wilson(events: u64, trials: u64) -> Self {
        let rate = if trials == 0 {
            f64::NAN
        } else {
            events as f64 / trials as f64
        };
        let (lo, hi) = wilson(events, trials, Z95);
        Self {
            count: format!(
                "{} of {}",
                crate::units::thousands(events),
                crate::units::thousands(trials)
            ),
            ..Self::new(rate, lo, hi)
        }
    }

    /// `95% lo–hi`.
    #[must_use]
    pub fn interval(&self) -> String {
        format!("95% {}–{}", self.lo, self.hi)
    }
}

impl std::fmt::Display for RateText {
    /// `8e-5 (4 of 50,000; 95% 3e-5–2e-4)`, or `8e-5 (95% 3e-5–2e-4)` without a count.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        if self.count.is_empty() {
            write!(f, "{} ({})", self.rate, self.interval())
        } else {
            write!(f, "{} ({}; {})", self.rate, self.count, self.interval())
        }
    }
}

/// Significant digits (1 to 4) that the interval `[lo, hi]` supports for `rate`: down to the
/// place of the leading digit of the larger half-width ([`RateText`]'s rule). 1 for a rate of
/// 0 or an interval wider than the rate; 4 for an empty interval or non-finite input.
#[must_use]
pub fn supported_digits(rate: f64, lo: f64, hi: f64) -> usize {
    let half = (hi - rate).max(rate - lo);
    if !(rate.is_finite() && half.is_finite()) || half <= 0.0 {
        return 4;
    }
    if rate <= 0.0 {
        return 1;
    }
    let places = rate.log10().floor() - half.log10().floor() + 1.0;
    places.clamp(1.0, 4.0) as usize
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn intervals_contain_the_estimate_and_nest() {
        for (x, n) in [(0u64, 10u64), (1, 10), (5, 10), (10, 10), (37, 100_000)] {
            let p = x as f64 / n as f64;
            let (wl, wh) = wilson(x, n, Z95);
            let (cl, ch) = clopper_pearson(x, n, 0.05);
            assert!(wl <= p && p <= wh, "wilson {x}/{n}");
            assert!(cl <= p && p <= ch, "cp {x}/{n}");
            // Clopper-Pearson is the more conservative of the two.
            assert!(
                cl <= wl + 1e-12 && ch + 1e-12 >= wh,
                "{x}/{n}: cp ({cl},{ch}) wilson ({wl},{wh})"
            );
        }
    }

    #[test]
    fn mean_interval() {
        let (m, lo, hi) = mean_ci95(&[0.1, 0.2, 0.3]);
        assert!((m - 0.2).abs() < 1e-12 && lo < 0.2 && hi > 0.2);
        // sd 0.1, 3 trials: half-width t(2 df) = 4.303 standard errors (z would give 1.96).
        assert!(
            (hi - 0.2 - 4.302_652_7 * 0.1 / 3f64.sqrt()).abs() < 1e-7,
            "{hi}"
        );
    }

    #[test]
    fn median_interval_ranks_match_the_binomial_tail() {
        // Reference tails from exact binomial sums (Python's math.comb): for r = 31,
        // P(Bin <= 9) = 0.01472 and P(Bin <= 10) = 0.03538, so the ranks are 10 and 22; for
        // r = 11, P(<= 1) = 0.00586, P(<= 2) = 0.03271: ranks 2 and 10; for r = 51,
        // P(<= 18) = 0.02444, P(<= 19) = 0.04596: ranks 19 and 33.
        let ranks = |r: u32| median_ci95((1..=r).rev().map(f64::from).collect());
        assert_eq!(ranks(31), (16.0, 10.0, 22.0));
        assert_eq!(ranks(11), (6.0, 2.0, 10.0));
        assert_eq!(ranks(51), (26.0, 19.0, 33.0));
        assert_eq!(ranks(4), (2.5, 1.0, 4.0));
        // 2000 values, where 2^-2000 underflows: exact rational sums give P(Bin <= 955) =
        // 0.02328 and ranks 956 and 1045.
        assert_eq!(ranks(2000), (1000.5, 956.0, 1045.0));
        assert_eq!(median_ci95(vec![3.0, 1.0, 2.0]), (2.0, 1.0, 3.0));
        assert!(median_ci95(Vec::new()).0.is_nan());
    }

    /// The printing rule at 0, 1, 4, 40, 400 and 4000 events (Wilson's intervals, computed
    /// independently in Python: 4 of 50,000 → [3.111e-5, 2.057e-4]; 40 → [5.876e-4, 1.089e-3];
    /// 4000 of 50,000 → [7.765%, 8.241%]; 4000 of 10^6 → [0.3878%, 0.4126%]).
    #[test]
    fn measured_rates_print_the_digits_their_interval_supports() {
        let t = |x, n| RateText::wilson(x, n).to_string();
        assert_eq!(t(0, 50_000), "0 (0 of 50,000; 95% 0–8e-5)");
        assert_eq!(t(1, 50_000), "2e-5 (1 of 50,000; 95% 4e-6–1e-4)");
        assert_eq!(t(4, 50_000), "8e-5 (4 of 50,000; 95% 3e-5–2e-4)");
        assert_eq!(t(3, 50_000), "6e-5 (3 of 50,000; 95% 2e-5–2e-4)");
        assert_eq!(t(40, 50_000), "0.08% (40 of 50,000; 95% 0.06%–0.1%)");
        assert_eq!(t(400, 50_000), "0.80% (400 of 50,000; 95% 0.73%–0.88%)");
        assert_eq!(t(4_000, 50_000), "8.0% (4,000 of 50,000; 95% 7.8%–8.2%)");
        assert_eq!(
            t(4_000, 1_000_000),
            "0.40% (4,000 of 1,000,000; 95% 0.39%–0.41%)"
        );
        assert_eq!(
            t(10_040, 1_000_000),
            "1.00% (10,040 of 1,000,000; 95% 0.985%–1.02%)"
        );
        assert_eq!(RateText::wilson(50_000, 50_000).rate, "100.0%");
        assert_eq!(RateText::wilson(0, 0).rate, "n/a");
        // Without a count (an interval over several filters' rates).
        assert_eq!(
            RateText::new(0.0101, 0.0099, 0.0103).to_string(),
            "1.01% (95% 0.990%–1.03%)"
        );
    }

    /// Against exact binomial sums (Python's `math.comb`): P(Bin(24, 0.05) > 4) = 0.005975,
    /// P(> 3) = 0.02978; P(Bin(51, 0.05) > 7) = 0.003618, P(> 6) = 0.01309.
    #[test]
    fn allowed_failures_is_the_first_count_within_the_budget() {
        let (c, p) = allowed_failures(24, 0.05, 0.01).unwrap();
        assert_eq!(c, 4);
        assert!((p - 0.005_975).abs() < 1e-6, "{p}");
        assert_eq!(allowed_failures(51, 0.05, 0.01).unwrap().0, 7);
        assert_eq!(allowed_failures(51, 0.05, 0.02).unwrap().0, 6);
        assert_eq!(allowed_failures(10, 0.0, 0.01), Some((0, 0.0)));
        assert_eq!(allowed_failures(10, 1.0, 0.01), Some((10, 0.0)));
        assert_eq!(allowed_failures(10, 0.5, 0.0), Some((10, 0.0)));
        assert_eq!(allowed_failures(10, 1.5, 0.01), None);
        assert_eq!(allowed_failures(10, f64::NAN, 0.01), None);
    }

    #[test]
    fn supported_digits_follow_the_half_width() {
        assert_eq!(supported_digits(8e-5, 3.1e-5, 2.06e-4), 1);
        assert_eq!(supported_digits(0.01, 0.0098, 0.0102), 3);
        assert_eq!(supported_digits(0.01, 0.01 - 1e-9, 0.01 + 1e-9), 4);
        assert_eq!(supported_digits(0.0, 0.0, 7.7e-5), 1);
        assert_eq!(supported_digits(0.5, 0.5, 0.5), 4);
        assert_eq!(supported_digits(f64::NAN, 0.0, 1.0), 4);
    }
}
