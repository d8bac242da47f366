//! The numbers of one Bloom filter design, computed once for every front end.
//!
//! `bloomlab calc` and the TUI's Explore screen both show m, bytes, k, bits per key, the
//! classic and exact false-positive rates and the lower bound; [`Design`] is where they come
//! from, so the same (n, p) or (m, k, n) gives the same numbers in both.
//!
//! **Bytes** are counted as the filter allocates them: whole 64-bit words, `⌈m/64⌉·8`. That is
//! what [`StandardBloom::bytes`](crate::Filter::bytes) reports for its bit array (a
//! `Vec<u64>`), and what Guava allocates (a `long[]`). For the articles' n = 10^6, p = 1% that
//! is 1,198,136 bytes; `⌈m/8⌉` would say 1,198,133.
//!
//! ```
//! use bloomlab::design::Design;
//! let d = Design::for_rate(1_000_000, 0.01).unwrap();
//! assert_eq!((d.m, d.k, d.bytes), (9_585_058, 7, 1_198_136));
//! assert!((d.overhead_vs_lower_bound - 0.443).abs() < 1e-3); // 9.585 / log2(100) − 1
//! let same = Design::for_bits(9_585_058, 7, 1_000_000).unwrap();
//! assert_eq!(same.fpr_classic, d.fpr_classic);
//! ```

use crate::error::Result;
use crate::theory;

/// One design: a filter of `m` bits and `k` hash functions holding `n` items.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct Design {
    /// Items.
    pub n: u64,
    /// Bits.
    pub m: u64,
    /// Hash functions.
    pub k: u32,
    /// Heap bytes of the bit array: whole 64-bit words, `⌈m/64⌉·8` (see the module docs).
    pub bytes: u64,
    /// `m / n`.
    pub bits_per_key: f64,
    /// The real-valued optimum `k* = (m/n)·ln 2`.
    pub k_optimal: f64,
    /// `(1 − e^(−kn/m))^k`.
    pub fpr_classic: f64,
    /// Its natural logarithm ([`theory::fpr_classic_ln`]), valid below f64's range.
    #[serde(skip)]
    pub fpr_classic_ln: f64,
    /// The exact rate (Bose et al. 2008), once [`Design::with_exact`] computed it (`None`
    /// also where the bounded method cannot give one; 0 below f64's range: see `exact`).
    pub fpr_exact: Option<f64>,
    /// The exact rate with its logarithm and its relative error bound.
    #[serde(skip)]
    pub exact: Option<theory::ExactFpr>,
    /// The rate the design was asked for, if any.
    pub target: Option<f64>,
    /// `log2(1/p)` bits per item: no structure answering with false-positive rate p can use
    /// fewer (Carter et al. 1978). p is the target when one was given, else the classic rate.
    pub lower_bound_bits_per_key: f64,
    /// `bits_per_key / lower_bound − 1` (infinite when the bound is 0).
    pub overhead_vs_lower_bound: f64,
    /// Expected fraction of bits set after n items, `1 − (1 − 1/m)^(kn)`.
    pub expected_fill: f64,
}

impl Design {
    /// The design for `n` items at rate `p`: m and k the Guava/Redisson way
    /// ([`theory::size_for`]), the bound against `p`.
    ///
    /// # Errors
    /// Invalid `n` or `p`, or an m beyond 64 bits.
    pub fn for_rate(n: u64, p: f64) -> Result<Self> {
        let s = theory::size_for(n, p)?;
        Self::compute(s.m, s.k, n, Some(p))
    }

    /// The design of `m` bits and `k` hashes holding `n` items, the bound against its own
    /// classic rate.
    ///
    /// # Errors
    /// Invalid `m`, `k` or `n`.
    pub fn for_bits(m: u64, k: u32, n: u64) -> Result<Self> {
        Self::compute(m, k, n, None)
    }

    /// The one function behind both: every number from (m, k, n), the bound against `target`
    /// when given, else against the classic rate.
    ///
    /// # Errors
    /// Invalid `m`, `k`, `n` or `target`.
    pub fn compute(m: u64, k: u32, n: u64, target: Option<f64>) -> Result<Self> {
        theory::check_n(n)?;
        theory::check_m(m)?;
        theory::check_k(k)?;
        if let Some(p) = target {
            theory::check_p(p)?;
        }
        let fpr_classic = theory::fpr_classic(m, n, k);
        let fpr_classic_ln = theory::fpr_classic_ln(m, n, k);
        let bits_per_key = m as f64 / n as f64;
        // log2(1/p), from the logarithm so that a classic rate below f64's range still has one.
        let lower_bound = target.map_or(
            -fpr_classic_ln / std::f64::consts::LN_2,
            theory::lower_bound_bits_per_key,
        );
        // A rate that rounds to 1 (m = 1 bit for 1000 keys) has the bound 0, not -0.
        let lower_bound = if lower_bound > 0.0 { lower_bound } else { 0.0 };
        Ok(Self {
            n,
            m,
            k,
            bytes: m.div_ceil(64).saturating_mul(8),
            bits_per_key,
            k_optimal: theory::optimal_k_real(m, n),
            fpr_classic,
            fpr_classic_ln,
            fpr_exact: None,
            exact: None,
            target,
            lower_bound_bits_per_key: lower_bound,
            overhead_vs_lower_bound: if lower_bound > 0.0 {
                bits_per_key / lower_bound - 1.0
            } else {
                f64::INFINITY
            },
            expected_fill: theory::expected_fill(m, n, k),
        })
    }

    /// With the exact rate computed ([`theory::fpr_exact`]: up to a second for large m in a
    /// debug build; the TUI computes it in the background instead).
    #[must_use]
    pub fn with_exact(mut self) -> Self {
        self.exact = theory::fpr_exact_with_bound(self.m, self.n, self.k);
        self.fpr_exact = self.exact.map(|e| e.value);
        self
    }

    /// The exact rate as text: as many digits as its error bound supports, valid below f64's
    /// range (from its logarithm), or why there is none.
    #[must_use]
    pub fn exact_text(&self) -> String {
        match self.exact {
            Some(e) => crate::units::format_prob_bounded(e.ln_value, e.rel_error),
            None => "n/a (beyond the bounded method's reach)".into(),
        }
    }

    /// The classic rate at `factor` times the design's n (past capacity).
    #[must_use]
    pub fn fpr_at(&self, factor: u64) -> f64 {
        theory::fpr_classic(self.m, self.n.saturating_mul(factor), self.k)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rate_and_bits_agree() {
        let d = Design::for_rate(1_000_000, 0.001).unwrap();
        assert_eq!((d.m, d.k), (14_377_587, 10));
        assert_eq!(d.bytes, 14_377_587u64.div_ceil(64) * 8);
        let e = Design::for_bits(d.m, d.k, d.n).unwrap();
        assert_eq!(
            (e.fpr_classic, e.bytes, e.expected_fill),
            (d.fpr_classic, d.bytes, d.expected_fill)
        );
        // The bound is against the target when given, the classic rate otherwise.
        assert_eq!(d.lower_bound_bits_per_key, -0.001f64.log2());
        assert_eq!(e.lower_bound_bits_per_key, -e.fpr_classic.log2());
    }

    #[test]
    fn bytes_are_whole_words() {
        assert_eq!(Design::for_bits(1, 1, 1).unwrap().bytes, 8);
        assert_eq!(Design::for_bits(64, 1, 1).unwrap().bytes, 8);
        assert_eq!(Design::for_bits(65, 1, 1).unwrap().bytes, 16);
        let f = crate::StandardBloom::with_rate(1_000_000, 0.01).unwrap();
        let d = Design::for_rate(1_000_000, 0.01).unwrap();
        assert_eq!(d.bytes, crate::Filter::bytes(&f) as u64);
    }

    #[test]
    fn exact_and_refusals() {
        let d = Design::for_bits(256, 7, 26).unwrap().with_exact();
        assert!(d.fpr_exact.unwrap() > d.fpr_classic);
        assert!(Design::for_bits(0, 7, 26).is_err());
        assert!(Design::for_bits(256, 0, 26).is_err());
        assert!(Design::for_bits(256, 7, 0).is_err());
        assert!(Design::compute(256, 7, 26, Some(1.5)).is_err());
    }
}
