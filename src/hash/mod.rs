//! Hash functions and index strategies.
//!
//! A filter hashes each item **once** with an [`ItemHasher`] to a 128-bit [`Hash128`], and an
//! [`IndexStrategy`] derives the k bit positions from it (except `independent`, the textbook
//! baseline, which hashes k times with k seeds).
//!
//! Every hasher is also a [`std::hash::BuildHasher`], so it can serve a `HashMap` too.
//!
//! Hashers hash the item's **bytes** (not its `std::hash::Hash` encoding), which is what makes
//! `murmur3` byte-identical to Guava's `Hashing.murmur3_128()` and lets the same filter live in
//! Redis or on disk. A `u64` key is hashed as its 8 little-endian bytes (Guava's `Funnels.longFunnel()`).

mod functions;
mod key;
pub mod murmur3;
mod strategy;

pub use functions::{
    AnyHasher, BytesHasher, Fnv1a, Foldhash, Fx, Murmur3, Rounds13, Rounds24, Sip, Sip13, Sip24,
    SipRounds, Weak, Wyhash, Xxh3, Xxh64,
};
pub use key::{KeyMaterial, PersistHasher, key_fingerprint, key_material};
pub(crate) use strategy::is_builtin;
pub use strategy::{
    AnyStrategy, DoubleHashing, EnhancedDouble64, EnhancedDoubleHashing, Guava32, Guava64,
    Independent, IndexStrategy, Partitioned, PersistStrategy, Prehash, RotateAdd64, reduce,
};

use crate::error::{Error, Result};
use std::fmt;
use std::str::FromStr;

/// A 128-bit hash value as two 64-bit halves.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub struct Hash128 {
    /// The first (low) half; Guava's `asLong()` for murmur3.
    pub lo: u64,
    /// The second (high) half.
    pub hi: u64,
}

/// A hash function over byte strings, possibly keyed or seeded.
///
/// Implementations must be deterministic for a given key/seed: the no-false-negative guarantee of
/// every filter rests on inserting and querying an item hashing to the same value.
pub trait ItemHasher: Clone + Send + Sync + fmt::Debug + 'static {
    /// Which function this is.
    fn id(&self) -> HashId;
    /// The 128-bit hash of `bytes` (64-bit functions widen their output with a fixed mixer).
    fn hash128(&self, bytes: &[u8]) -> Hash128;
    /// The function's native 64-bit hash of `bytes` (for 128-bit functions, one half of
    /// [`ItemHasher::hash128`]): what a filter that needs at most 64 bits should call, and what
    /// a peer crate using the same function computes.
    fn hash64(&self, bytes: &[u8]) -> u64;
    /// A 64-bit hash of `bytes` under an extra `seed`; used by the `independent` strategy to get
    /// k different functions from one algorithm.
    fn hash64_seeded(&self, bytes: &[u8], seed: u64) -> u64;
}

/// The names of the hash functions (public surface: CLI, specs, JSON).
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, serde::Serialize, serde::Deserialize,
)]
#[serde(rename_all = "kebab-case")]
#[non_exhaustive]
pub enum HashId {
    /// SipHash-1-3, 128-bit output, keyed.
    Sip13,
    /// SipHash-2-4, 128-bit output, keyed.
    Sip24,
    /// wyhash (final3), 64-bit, seeded.
    Wyhash,
    /// XXH3, 128-bit, seeded.
    Xxh3,
    /// XXH64, 64-bit, seeded (the hash the Parquet split-block filter prescribes).
    Xxh64,
    /// MurmurHash3 x64_128 as Guava computes it.
    Murmur3,
    /// FxHash (rustc), 64-bit: fast, weak on some inputs.
    Fx,
    /// FNV-1a 64-bit.
    Fnv1a,
    /// A deliberately poor hash for teaching (Java `hashCode`-style polynomial, no mixing).
    Weak,
    /// foldhash (fast variant) with a fixed seed, 64-bit.
    Foldhash,
}

impl HashId {
    /// All hash functions, in display order.
    pub const ALL: [HashId; 10] = [
        HashId::Sip13,
        HashId::Sip24,
        HashId::Wyhash,
        HashId::Xxh3,
        HashId::Xxh64,
        HashId::Murmur3,
        HashId::Fx,
        HashId::Fnv1a,
        HashId::Weak,
        HashId::Foldhash,
    ];

    /// The public name.
    #[must_use]
    pub fn name(self) -> &'static str {
        match self {
            HashId::Sip13 => "sip13",
            HashId::Sip24 => "sip24",
            HashId::Wyhash => "wyhash",
            HashId::Xxh3 => "xxh3",
            HashId::Xxh64 => "xxh64",
            HashId::Murmur3 => "murmur3",
            HashId::Fx => "fx",
            HashId::Fnv1a => "fnv1a",
            HashId::Weak => "weak",
            HashId::Foldhash => "foldhash",
        }
    }

    /// The known names.
    #[must_use]
    pub fn names() -> Vec<&'static str> {
        Self::ALL.iter().map(|h| h.name()).collect()
    }

    /// A stable one-byte id, written into every saved filter ([`crate::persist`]): never change
    /// or reuse a number (a new hash takes the next free one). 0 is unused.
    #[must_use]
    pub fn code(self) -> u8 {
        match self {
            HashId::Sip13 => 1,
            HashId::Sip24 => 2,
            HashId::Wyhash => 3,
            HashId::Xxh3 => 4,
            HashId::Murmur3 => 5,
            HashId::Fx => 6,
            HashId::Fnv1a => 7,
            HashId::Weak => 8,
            HashId::Xxh64 => 9,
            HashId::Foldhash => 10,
        }
    }

    /// The id for a code written by [`HashId::code`] (the same table, read backwards); `None`
    /// for a number no hash has.
    #[must_use]
    pub fn from_code(c: u8) -> Option<Self> {
        Some(match c {
            1 => HashId::Sip13,
            2 => HashId::Sip24,
            3 => HashId::Wyhash,
            4 => HashId::Xxh3,
            5 => HashId::Murmur3,
            6 => HashId::Fx,
            7 => HashId::Fnv1a,
            8 => HashId::Weak,
            9 => HashId::Xxh64,
            10 => HashId::Foldhash,
            _ => return None,
        })
    }
}

impl fmt::Display for HashId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl FromStr for HashId {
    type Err = Error;
    fn from_str(s: &str) -> Result<Self> {
        Self::ALL
            .iter()
            .copied()
            .find(|h| h.name().eq_ignore_ascii_case(s))
            .ok_or_else(|| Error::unknown("hash", s, &Self::names()))
    }
}

/// The names of the index strategies (public surface).
#[derive(
    Debug,
    Clone,
    Copy,
    Default,
    PartialEq,
    Eq,
    Hash,
    PartialOrd,
    Ord,
    serde::Serialize,
    serde::Deserialize,
)]
#[serde(rename_all = "kebab-case")]
#[non_exhaustive]
pub enum StrategyId {
    /// Kirsch–Mitzenmacher double hashing `h1 + i·h2`.
    Double,
    /// Dillinger–Manolios enhanced double hashing `h1 + i·h2 + (i³−i)/6` (the default).
    #[default]
    EnhancedDouble,
    /// k independently seeded hashes (the textbook model; k times the hashing cost).
    Independent,
    /// Guava's `MURMUR128_MITZ_32`.
    Guava32,
    /// Guava's `MURMUR128_MITZ_64` (Guava's default since 2013).
    Guava64,
    /// Enhanced double hashing in 64-bit fixed point on one 64-bit hash (branch-free).
    #[serde(rename = "enhanced-double-64")]
    EnhancedDouble64,
    /// Double hashing with a rotation, `x ← rotl(x, 5) + y`, on one 64-bit hash (two operations
    /// per position; fastbloom's form).
    #[serde(rename = "rotate-add-64")]
    RotateAdd64,
    /// Partitioned: k slices of ⌊m/k⌋ bits, position i in slice i (always k distinct bits).
    Partitioned,
}

impl StrategyId {
    /// All strategies, in display order.
    pub const ALL: [StrategyId; 8] = [
        StrategyId::Double,
        StrategyId::EnhancedDouble,
        StrategyId::EnhancedDouble64,
        StrategyId::Independent,
        StrategyId::Guava32,
        StrategyId::Guava64,
        StrategyId::RotateAdd64,
        StrategyId::Partitioned,
    ];

    /// The public name.
    #[must_use]
    pub fn name(self) -> &'static str {
        match self {
            StrategyId::Double => "double",
            StrategyId::EnhancedDouble => "enhanced-double",
            StrategyId::Independent => "independent",
            StrategyId::Guava32 => "guava32",
            StrategyId::Guava64 => "guava64",
            StrategyId::EnhancedDouble64 => "enhanced-double-64",
            StrategyId::RotateAdd64 => "rotate-add-64",
            StrategyId::Partitioned => "partitioned",
        }
    }

    /// The known names.
    #[must_use]
    pub fn names() -> Vec<&'static str> {
        Self::ALL.iter().map(|h| h.name()).collect()
    }

    /// A stable one-byte id, written into every saved filter ([`crate::persist`]): never change
    /// or reuse a number (a new strategy takes the next free one). `0xFF` is reserved for "no
    /// strategy" ([`crate::persist::NO_STRATEGY`]).
    #[must_use]
    pub fn code(self) -> u8 {
        match self {
            StrategyId::Double => 0,
            StrategyId::EnhancedDouble => 1,
            StrategyId::Independent => 2,
            StrategyId::Guava32 => 3,
            StrategyId::Guava64 => 4,
            StrategyId::EnhancedDouble64 => 5,
            StrategyId::RotateAdd64 => 6,
            StrategyId::Partitioned => 7,
        }
    }

    /// The id for a code written by [`StrategyId::code`] (the same table, read backwards);
    /// `None` for a number no strategy has.
    #[must_use]
    pub fn from_code(c: u8) -> Option<Self> {
        Some(match c {
            0 => StrategyId::Double,
            1 => StrategyId::EnhancedDouble,
            2 => StrategyId::Independent,
            3 => StrategyId::Guava32,
            4 => StrategyId::Guava64,
            5 => StrategyId::EnhancedDouble64,
            6 => StrategyId::RotateAdd64,
            7 => StrategyId::Partitioned,
            _ => return None,
        })
    }
}

impl fmt::Display for StrategyId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl FromStr for StrategyId {
    type Err = Error;
    fn from_str(s: &str) -> Result<Self> {
        Self::ALL
            .iter()
            .copied()
            .find(|h| h.name().eq_ignore_ascii_case(s))
            .ok_or_else(|| Error::unknown("strategy", s, &Self::names()))
    }
}

/// SplitMix64's finalizer: a bijective 64-bit mixer (Steele, Lea & Flood 2014).
#[inline]
#[must_use]
pub fn mix64(mut z: u64) -> u64 {
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^ (z >> 31)
}

#[cfg(test)]
mod tests {
    use super::*;

    // The codes are a file format: these tables are written out as literals on purpose, so that
    // renumbering an id (or deriving codes from declaration order) fails here instead of
    // silently misreading every saved filter.

    #[test]
    fn hash_codes_are_the_numbers_files_hold() {
        let table = [
            (HashId::Sip13, 1),
            (HashId::Sip24, 2),
            (HashId::Wyhash, 3),
            (HashId::Xxh3, 4),
            (HashId::Murmur3, 5),
            (HashId::Fx, 6),
            (HashId::Fnv1a, 7),
            (HashId::Weak, 8),
            (HashId::Foldhash, 10),
            (HashId::Xxh64, 9),
        ];
        assert_eq!(table.len(), HashId::ALL.len(), "every hash has a row");
        for (id, code) in table {
            assert_eq!(id.code(), code, "{id}");
            assert_eq!(HashId::from_code(code), Some(id), "{code}");
        }
    }

    #[test]
    fn strategy_codes_are_the_numbers_files_hold() {
        let table = [
            (StrategyId::Double, 0),
            (StrategyId::EnhancedDouble, 1),
            (StrategyId::Independent, 2),
            (StrategyId::Guava32, 3),
            (StrategyId::Guava64, 4),
            (StrategyId::EnhancedDouble64, 5),
            (StrategyId::RotateAdd64, 6),
            (StrategyId::Partitioned, 7),
        ];
        assert_eq!(
            table.len(),
            StrategyId::ALL.len(),
            "every strategy has a row"
        );
        for (id, code) in table {
            assert_eq!(id.code(), code, "{id}");
            assert_eq!(StrategyId::from_code(code), Some(id), "{code}");
        }
        assert_eq!(StrategyId::from_code(0xFF), None, "0xFF means no strategy");
        #[cfg(feature = "cli")]
        for id in StrategyId::ALL {
            let json = serde_json::to_string(&id).unwrap();
            assert_eq!(json, format!("\"{}\"", id.name()), "serde and name() agree");
        }
    }

    /// Every byte decodes to nothing or to an id that encodes back to it, and every id is reached
    /// (so no two ids share a number).
    #[test]
    fn from_code_of_every_byte_round_trips_or_is_none() {
        let mut hashes = Vec::new();
        let mut strategies = Vec::new();
        for c in 0..=255u8 {
            if let Some(h) = HashId::from_code(c) {
                assert_eq!(h.code(), c, "hash {h}");
                hashes.push(h);
            }
            if let Some(s) = StrategyId::from_code(c) {
                assert_eq!(s.code(), c, "strategy {s}");
                strategies.push(s);
            }
        }
        hashes.sort();
        strategies.sort();
        let (mut all_h, mut all_s) = (HashId::ALL.to_vec(), StrategyId::ALL.to_vec());
        all_h.sort();
        all_s.sort();
        assert_eq!(hashes, all_h);
        assert_eq!(strategies, all_s);
    }
}
