//! How a batch of bit operations travels to Redis ([`Transport`]), and the rule by which
//! [`Transport::Auto`] picks a path per batch.

use crate::error::{Error, Result};
use std::fmt;
use std::str::FromStr;

/// How a batch of bit operations travels to Redis. Every transport sends one batch in **one
/// round trip**; they differ in how much work the server does per bit.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum Transport {
    /// One `SETBIT`/`GETBIT` command per bit position, all in one pipeline.
    Pipeline,
    /// One `EVALSHA` per batch: a Lua script receives the positions packed as 4-byte integers and
    /// calls `SETBIT`/`GETBIT` itself, answering with one string of `0`/`1`. Atomic.
    Lua,
    /// One `BITFIELD key SET u1 o 1 …` (adds) or `BITFIELD_RO key GET u1 o …` (queries) per
    /// shard, all in one pipeline.
    Bitfield,
    /// Word-parallel, for big batches: adds build the batch's bits locally as a *delta* bitmap
    /// and a Lua script ORs it in (`SET {name}:delta`, `BITOP OR shard shard delta`, `UNLINK`)
    /// — atomic, so concurrent writers lose nothing; queries read the touched shards whole
    /// (`GETRANGE`) and test the bits locally. Costs m/8 bytes per batch (network, and AOF /
    /// replication volume for adds) instead of server work per bit; adds report no "new" count.
    Bulk,
    /// Per batch, [`Transport::Bulk`] when the shard bytes it would move are at most
    /// [`BULK_ADD_BYTES_PER_BIT`] (adds) or [`BULK_QUERY_BYTES_PER_BIT`] (queries) per bit
    /// operation, else [`Transport::Bitfield`].
    Auto,
}

/// [`Transport::Auto`] adds by the bulk path when it moves at most this many bitmap bytes per
/// bit operation. On loopback, at 170 bytes per bit (n = 10⁶, batches of 1000) bulk adds ran
/// at 0.73–0.90× of bitfield's rate, at 17 bytes per bit 21× faster (results/redis/README.md);
/// 64 leaves room for a slower network and for the AOF/replication volume a bulk add writes.
pub const BULK_ADD_BYTES_PER_BIT: u64 = 64;

/// [`Transport::Auto`] queries by the bulk path when it reads at most this many bitmap bytes
/// per bit looked up. On loopback bulk queries were still 2.8–4.4× faster than bitfield's at
/// 170 bytes per bit (results/redis/README.md); 256 is a conservative crossover.
pub const BULK_QUERY_BYTES_PER_BIT: u64 = 256;

impl Transport {
    /// Every transport.
    pub const ALL: [Transport; 5] = [
        Transport::Pipeline,
        Transport::Lua,
        Transport::Bitfield,
        Transport::Bulk,
        Transport::Auto,
    ];

    /// The public name.
    #[must_use]
    pub fn name(self) -> &'static str {
        match self {
            Transport::Pipeline => "pipeline",
            Transport::Lua => "lua",
            Transport::Bitfield => "bitfield",
            Transport::Bulk => "bulk",
            Transport::Auto => "auto",
        }
    }
}

impl Default for Transport {
    /// [`Transport::Auto`]: bit operations for small batches, bulk for big ones.
    fn default() -> Self {
        Transport::Auto
    }
}

impl fmt::Display for Transport {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl FromStr for Transport {
    type Err = Error;
    fn from_str(s: &str) -> Result<Self> {
        Self::ALL
            .iter()
            .copied()
            .find(|t| t.name().eq_ignore_ascii_case(s))
            .ok_or_else(|| Error::unknown("transport", s, &Self::ALL.map(Transport::name)))
    }
}

impl Transport {
    /// The transport a batch of `bit_ops` bit operations touching `shard_bytes` bytes of
    /// bitmap actually goes by: [`Transport::Auto`] resolved by the byte thresholds above,
    /// every other transport itself. The single-item calls (`add`, `contains`) pass
    /// `single = true`: they never go by [`Transport::Bulk`], which would move whole shards
    /// for k bits.
    #[must_use]
    pub(super) fn resolve(self, add: bool, shard_bytes: u64, bit_ops: u64, single: bool) -> Self {
        match self {
            Transport::Bulk | Transport::Auto if single => Transport::Bitfield,
            Transport::Auto => {
                let per_bit = if add {
                    BULK_ADD_BYTES_PER_BIT
                } else {
                    BULK_QUERY_BYTES_PER_BIT
                };
                if shard_bytes <= per_bit.saturating_mul(bit_ops) {
                    Transport::Bulk
                } else {
                    Transport::Bitfield
                }
            }
            t => t,
        }
    }
}
