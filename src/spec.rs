//! A run-time description of a filter, so the CLI, TUI, experiments and benches can choose
//! filters by name. Plain data: the registry ([`crate::registry`]) builds an `AnyFilter` from it
//! (`FilterSpec::build`, defined there so this module depends on no filter).

use crate::error::{Error, Param, Result};
use crate::filter::FilterKind;
use crate::hash::{AnyHasher, HashId, StrategyId};
use crate::theory;

/// Everything needed to build a filter.
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct FilterSpec {
    /// Which filter.
    pub kind: FilterKind,
    /// Hash function.
    pub hash: HashId,
    /// Index strategy (Bloom-type filters).
    pub strategy: StrategyId,
    /// Hash seed or key (0 = the function's default, e.g. Guava's murmur3 seed 0).
    pub seed: u64,
    /// Design capacity (items).
    pub n: u64,
    /// Target false-positive rate (used when `m` is not given).
    pub p: Option<f64>,
    /// Bits (or counters, for `counting`), instead of `p`.
    pub m: Option<u64>,
    /// Hash functions (default: optimal for m and n).
    pub k: Option<u32>,
    /// Cuckoo fingerprint bits: 4 to 32, used as given (then `p` does not matter for
    /// cuckoo); 0 (the default) = `⌈log2(2b/p)⌉`.
    pub fingerprint_bits: u32,
    /// Cuckoo slots per bucket: 2, 4 or 8; 0 (the default) = 4.
    pub bucket_size: u32,
    /// Scalable growth factor s (each layer s times the previous capacity).
    pub growth: f64,
    /// Scalable tightening ratio r (each layer's rate r times the previous).
    pub tightening: f64,
    /// Scalable: refuse inserts past the first layer's capacity instead of growing.
    pub nonscaling: bool,
    /// Binary fuse slots per key: 3 or 4 (0, the default, = 3); other kinds take none.
    pub arity: u32,
    /// Multiblock word width: 32 or 64 bits (0, the default, = 32); other kinds take none.
    pub word_bits: u32,
    /// Multiblock words per block K: 1 to 16 (0, the default, = 8); other kinds take none.
    pub words: u32,
}

impl Default for FilterSpec {
    fn default() -> Self {
        Self {
            kind: FilterKind::Standard,
            hash: HashId::Xxh3,
            strategy: StrategyId::EnhancedDouble,
            seed: 0,
            n: 1_000_000,
            p: Some(0.01),
            m: None,
            k: None,
            fingerprint_bits: 0,
            bucket_size: 0,
            growth: 2.0,
            tightening: 0.5,
            nonscaling: false,
            arity: 0,
            word_bits: 0,
            words: 0,
        }
    }
}

impl FilterSpec {
    /// A spec for `kind` at capacity `n` and rate `p` with default hash and strategy.
    #[must_use]
    pub fn new(kind: FilterKind, n: u64, p: f64) -> Self {
        Self {
            kind,
            n,
            p: Some(p),
            ..Self::default()
        }
    }

    /// `(m, k)` for Bloom-type filters from either `(n, p)` or `(m[, k])`, checked.
    ///
    /// # Errors
    /// Invalid n, p, m or k; neither p nor m given.
    pub fn bloom_sizing(&self) -> Result<theory::Sizing> {
        theory::check_n(self.n)?;
        let s = match (self.m, self.p) {
            (Some(m), _) => {
                theory::check_m(m)?;
                theory::Sizing {
                    m,
                    k: theory::optimal_k(m, self.n),
                }
            }
            (None, Some(p)) => theory::size_for(self.n, p)?,
            (None, None) => {
                return Err(Error::invalid(Param::P, "none", "give p (or m)"));
            }
        };
        let k = match self.k {
            Some(k) => theory::check_k(k)?,
            None => s.k,
        };
        Ok(theory::Sizing { m: s.m, k })
    }

    /// The hasher this spec asks for.
    #[must_use]
    pub fn hasher(&self) -> AnyHasher {
        AnyHasher::new(self.hash, self.seed)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::filter::Filter;

    #[test]
    fn builds_standard_from_n_p_and_from_m_k() {
        let f = FilterSpec::new(FilterKind::Standard, 1_000_000, 0.01)
            .build()
            .unwrap();
        assert_eq!((f.bits(), f.k()), (9_585_058, 7));
        let spec = FilterSpec {
            m: Some(256),
            k: Some(7),
            n: 26,
            ..FilterSpec::default()
        };
        let f = spec.build().unwrap();
        assert_eq!((f.bits(), f.k()), (256, 7));
    }

    #[test]
    fn refuses_bad_values() {
        let bad = [
            FilterSpec {
                n: 0,
                ..FilterSpec::default()
            },
            FilterSpec {
                p: Some(1.5),
                ..FilterSpec::default()
            },
            FilterSpec {
                m: Some(0),
                ..FilterSpec::default()
            },
            FilterSpec {
                k: Some(0),
                ..FilterSpec::default()
            },
            FilterSpec {
                k: Some(1000),
                ..FilterSpec::default()
            },
        ];
        for s in bad {
            assert!(
                matches!(s.build(), Err(Error::InvalidParameter { .. })),
                "{s:?}"
            );
        }
    }
}
