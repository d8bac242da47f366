//! A filter's parameters as stored in its `{name}:config` hash ([`BitmapConfig`], with the
//! creation choices [`BitmapOptions`]), the key names, what [`super::BitmapBloom::info`]
//! reports, and [`Loaded`]: a config made ready for hashing.

use crate::error::{Error, Result};
use crate::hash::{AnyHasher, AnyStrategy, HashId, StrategyId};
use crate::redis::layout::ShardLayout;
use crate::theory;
use std::collections::HashMap;

/// Choices made when a filter is created (the hash, strategy, seed and shard size are stored in
/// the config and must match when the filter is opened again).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct BitmapOptions {
    /// Hash function.
    pub hash: HashId,
    /// Index strategy.
    pub strategy: StrategyId,
    /// Hash seed.
    pub seed: u64,
    /// Bits per shard key (multiple of 64, at most 2³²).
    pub shard_bits: u64,
}

impl Default for BitmapOptions {
    fn default() -> Self {
        Self {
            hash: HashId::Xxh3,
            strategy: StrategyId::EnhancedDouble,
            seed: 0,
            shard_bits: ShardLayout::DEFAULT_SHARD_BITS,
        }
    }
}

/// A filter's stored parameters (the config hash).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct BitmapConfig {
    /// Bits.
    pub m: u64,
    /// Positions per item.
    pub k: u32,
    /// Hash function, strategy, seed and shard size.
    pub options: BitmapOptions,
    /// Expected insertions given to `try_init` (0 when created from m and k).
    pub n: u64,
    /// Target false-positive rate given to `try_init` (0 when created from m and k).
    pub p: f64,
}

/// The value of the `format` field in the config hash.
pub const FORMAT: &str = "bloomlab-bitmap-1";

impl BitmapConfig {
    pub(super) fn fields(&self) -> Vec<(&'static str, String)> {
        vec![
            ("format", FORMAT.to_string()),
            ("m", self.m.to_string()),
            ("k", self.k.to_string()),
            ("hash", self.options.hash.name().to_string()),
            ("strategy", self.options.strategy.name().to_string()),
            ("seed", self.options.seed.to_string()),
            ("shard_bits", self.options.shard_bits.to_string()),
            ("n", self.n.to_string()),
            ("p", self.p.to_string()),
        ]
    }

    /// The config in `map` (the fields of `{name}:config`), read as untrusted input: every
    /// field is parsed and bounded (k from 1 to 64, a valid shard size, at most
    /// [`ShardLayout::MAX_SHARDS`] shards, p a probability) before anything is allocated from it.
    ///
    /// # Errors
    /// [`Error::RedisCorrupt`] naming the key and the field.
    pub(super) fn parse(key: &str, map: &HashMap<String, String>) -> Result<Self> {
        let corrupt = |field: &str| Error::RedisCorrupt {
            key: key.to_string(),
            reason: format!("field '{field}' missing or invalid (not a bloomlab filter?)"),
        };
        let get = |f: &str| map.get(f).ok_or_else(|| corrupt(f));
        if get("format")? != FORMAT {
            return Err(corrupt("format"));
        }
        let num = |f: &str| get(f)?.parse::<u64>().map_err(|_| corrupt(f));
        let cfg = Self {
            m: num("m")?,
            k: u32::try_from(num("k")?).map_err(|_| corrupt("k"))?,
            options: BitmapOptions {
                hash: get("hash")?.parse().map_err(|_| corrupt("hash"))?,
                strategy: get("strategy")?.parse().map_err(|_| corrupt("strategy"))?,
                seed: num("seed")?,
                shard_bits: num("shard_bits")?,
            },
            n: num("n")?,
            p: get("p")?.parse::<f64>().map_err(|_| corrupt("p"))?,
        };
        if !(0.0..1.0).contains(&cfg.p) {
            return Err(corrupt("p"));
        }
        cfg.check().map_err(|e| Error::RedisCorrupt {
            key: key.to_string(),
            reason: e.to_string(),
        })?;
        Ok(cfg)
    }

    /// k in range and a shard layout within bounds.
    fn check(&self) -> Result<ShardLayout> {
        theory::check_k(self.k)?;
        ShardLayout::new(self.m, self.options.shard_bits)
    }

    /// The parameters that decide bit positions, with names, for mismatch messages.
    pub(super) fn identity(&self) -> [(&'static str, String); 6] {
        [
            ("m", self.m.to_string()),
            ("k", self.k.to_string()),
            ("hash", self.options.hash.name().to_string()),
            ("strategy", self.options.strategy.name().to_string()),
            ("seed", self.options.seed.to_string()),
            ("shard_bits", self.options.shard_bits.to_string()),
        ]
    }
}

/// What [`BitmapBloom::info`](super::BitmapBloom::info) reports.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct BitmapInfo {
    /// Filter name.
    pub name: String,
    /// Bits.
    pub m: u64,
    /// Positions per item.
    pub k: u32,
    /// Hash function name.
    pub hash: String,
    /// Strategy name.
    pub strategy: String,
    /// Hash seed.
    pub seed: u64,
    /// Bits per shard.
    pub shard_bits: u64,
    /// Shard keys.
    pub shards: u64,
    /// Expected insertions given at creation.
    pub n: u64,
    /// Target rate given at creation.
    pub p: f64,
    /// Bits set (sum of `BITCOUNT` over the shards).
    pub ones: u64,
    /// Estimated distinct items ([`theory::estimate_count`]).
    pub estimated_count: f64,
    /// The false-positive rate the current fill gives: `(ones/m)^k`.
    pub fpr_at_fill: f64,
    /// Server memory of all the filter's keys (`MEMORY USAGE`), bytes.
    pub memory_bytes: u64,
}

/// `{name}:config`: the hash holding the parameters. The braces are Redis Cluster's hash tag,
/// so every key of one filter lands in one slot.
#[must_use]
pub(super) fn config_key(name: &str) -> String {
    format!("{{{name}}}:config")
}

/// `{name}:bits:<s>`: shard `s`.
#[must_use]
pub(super) fn shard_key(name: &str, s: u64) -> String {
    format!("{{{name}}}:bits:{s}")
}

/// `{name}:delta`: the scratch key of a bulk add.
#[must_use]
pub(super) fn delta_key(name: &str) -> String {
    format!("{{{name}}}:delta")
}

/// The field of the config hash that holds the filter's generation id.
pub(super) const GENERATION: &str = "gen";

/// A config made ready for use: its shard layout, hasher and strategy, and the generation id
/// every batch checks.
#[derive(Debug, Clone)]
pub(super) struct Loaded {
    pub(super) cfg: BitmapConfig,
    /// The generation id (16 hex digits, random, written once when the filter is created): a
    /// filter deleted and created again under the same name has another.
    pub(super) generation: String,
    pub(super) layout: ShardLayout,
    pub(super) hasher: AnyHasher,
    pub(super) strategy: AnyStrategy,
}

impl Loaded {
    /// Check `cfg` (k in range, a valid shard layout) and build its hasher and strategy.
    ///
    /// # Errors
    /// [`Error::InvalidParameter`] for k or the shard size.
    pub(super) fn new(cfg: BitmapConfig, generation: String) -> Result<Self> {
        Ok(Self {
            layout: cfg.check()?,
            generation,
            hasher: AnyHasher::new(cfg.options.hash, cfg.options.seed),
            strategy: AnyStrategy(cfg.options.strategy),
            cfg,
        })
    }
}

/// A new generation id: 64 random bits as 16 hex digits.
#[must_use]
pub(super) fn new_generation() -> String {
    format!("{:016x}", crate::redis::random_u64())
}

/// The error for an operation on a filter that has no config (not created yet, or deleted).
#[must_use]
pub(super) fn not_created(name: &str) -> Error {
    Error::Redis {
        target: format!("key {}", config_key(name)),
        message: format!("filter '{name}' does not exist (no config); call try_init first"),
        connection: false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn valid() -> HashMap<String, String> {
        let cfg = BitmapConfig {
            m: 95_851,
            k: 7,
            options: BitmapOptions::default(),
            n: 10_000,
            p: 0.01,
        };
        cfg.fields()
            .into_iter()
            .map(|(f, v)| (f.to_string(), v))
            .collect()
    }

    #[test]
    fn a_planted_huge_config_is_corrupt_not_an_allocation() {
        // The case: m = 2^63 - 1 in shards of 64 bits (2^57 shard keys).
        let mut map = valid();
        map.insert("m".into(), (i64::MAX as u64).to_string());
        map.insert("shard_bits".into(), "64".into());
        let e = BitmapConfig::parse("{x}:config", &map).unwrap_err();
        assert!(
            matches!(&e, Error::RedisCorrupt { key, .. } if key == "{x}:config"),
            "{e}"
        );
        assert!(BitmapConfig::parse("{x}:config", &valid()).is_ok());
        for (field, bad) in [
            ("k", "0"),
            ("k", "65"),
            ("shard_bits", "100"),
            ("p", "NaN"),
            ("p", "1"),
        ] {
            let mut map = valid();
            map.insert(field.into(), bad.into());
            assert!(
                matches!(
                    BitmapConfig::parse("{x}:config", &map),
                    Err(Error::RedisCorrupt { .. })
                ),
                "{field} = {bad}"
            );
        }
    }

    /// A field value: a valid one, a number anywhere in u64, or arbitrary text.
    fn value(valid: String) -> impl Strategy<Value = Option<String>> {
        prop_oneof![
            2 => Just(Some(valid)),
            2 => any::<u64>().prop_map(|v| Some(v.to_string())),
            1 => (0u32..70).prop_map(|v| Some(v.to_string())),
            1 => (0u32..40).prop_map(|b| Some((1u64 << b).to_string())),
            1 => ".{0,12}".prop_map(Some),
            1 => Just(None),
        ]
    }

    proptest! {
        /// Whatever the stored fields hold, parsing either refuses with `Corrupt` or gives a
        /// config whose layout is bounded (so nothing sized from it can be huge).
        #[test]
        fn any_stored_config_is_refused_or_bounded(
            fields in valid()
                .into_iter()
                .collect::<Vec<_>>()
                .into_iter()
                .map(|(f, v)| value(v).prop_map(move |x| (f.clone(), x)))
                .collect::<Vec<_>>()
        ) {
            let map: HashMap<String, String> =
                fields.into_iter().filter_map(|(f, v)| v.map(|v| (f, v))).collect();
            match BitmapConfig::parse("{p}:config", &map) {
                Ok(cfg) => {
                    let l = Loaded::new(cfg, "0".into()).unwrap();
                    prop_assert!(l.layout.shards() <= ShardLayout::MAX_SHARDS);
                    prop_assert!((1..=theory::MAX_K).contains(&cfg.k));
                    prop_assert!((0.0..1.0).contains(&cfg.p));
                }
                Err(e) => prop_assert!(matches!(e, Error::RedisCorrupt { .. }), "{e:?}"),
            }
        }
    }
}
