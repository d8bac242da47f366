//! One `[[filters]]` entry of a spec (also the `filter` of a literature point): its own file so
//! that [`super::spec`] and [`super::published`] both use it without importing each other.

use crate::filter::FilterKind;
use crate::hash::{HashId, StrategyId};
use crate::spec::FilterSpec;
use serde::Deserialize;

/// One `[[filters]]` entry: a filter description; unset fields take [`FilterSpec`]'s defaults.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct FilterEntry {
    /// Legend label (default: built from what differs between series).
    #[serde(default)]
    pub label: Option<String>,
    /// Filter kind.
    pub kind: FilterKind,
    /// Hash (default: the spec's `hashes`, else xxh3).
    #[serde(default)]
    pub hash: Option<HashId>,
    /// Strategy (default: the spec's `strategies`, else enhanced-double).
    #[serde(default)]
    pub strategy: Option<StrategyId>,
    /// Hash seed.
    #[serde(default)]
    pub seed: Option<u64>,
    /// Design capacity.
    #[serde(default)]
    pub n: Option<u64>,
    /// Target false-positive rate.
    #[serde(default)]
    pub p: Option<f64>,
    /// Bits (counters for `counting`).
    #[serde(default)]
    pub m: Option<u64>,
    /// Hash functions.
    #[serde(default)]
    pub k: Option<u32>,
    /// m = bits_per_key × n (instead of p or m).
    #[serde(default)]
    pub bits_per_key: Option<f64>,
    /// Cuckoo fingerprint bits.
    #[serde(default)]
    pub fingerprint_bits: Option<u32>,
    /// Scalable growth factor s.
    #[serde(default)]
    pub growth: Option<f64>,
    /// Scalable tightening ratio r.
    #[serde(default)]
    pub tightening: Option<f64>,
    /// Scalable: refuse to grow.
    #[serde(default)]
    pub nonscaling: Option<bool>,
    /// Binary fuse: slots per key, 3 (default) or 4.
    #[serde(default)]
    pub arity: Option<u32>,
    /// Multiblock: bits per word, 32 or 64.
    #[serde(default)]
    pub word_bits: Option<u32>,
    /// Multiblock: words per block K, 1 to 16.
    #[serde(default)]
    pub words: Option<u32>,
    /// space-fpr: a text written to the rows' `group` column, for panels to select on
    /// (`filter = { group = "…" }`).
    #[serde(default)]
    pub group: Option<String>,
}

impl FilterEntry {
    /// Set what this entry gives on `spec` (hash and strategy stay the caller's: a spec's lists
    /// may cross them): seed, n, p, m, k, fingerprint bits, growth, tightening, nonscaling, arity, word bits, words.
    pub(crate) fn apply_to(&self, spec: &mut FilterSpec) {
        if let Some(seed) = self.seed {
            spec.seed = seed;
        }
        if let Some(n) = self.n {
            spec.n = n;
        }
        spec.p = self.p;
        spec.m = self.m;
        spec.k = self.k;
        if let Some(f) = self.fingerprint_bits {
            spec.fingerprint_bits = f;
        }
        if let Some(g) = self.growth {
            spec.growth = g;
        }
        if let Some(t) = self.tightening {
            spec.tightening = t;
        }
        if let Some(ns) = self.nonscaling {
            spec.nonscaling = ns;
        }
        if let Some(a) = self.arity {
            spec.arity = a;
        }
        if let Some(w) = self.word_bits {
            spec.word_bits = w;
        }
        if let Some(k) = self.words {
            spec.words = k;
        }
    }
}
