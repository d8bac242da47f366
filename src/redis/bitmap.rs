//! A Bloom filter whose bits live in Redis strings (a bitmap), driven from the client like
//! Redisson's `RBloomFilter`: the client hashes, Redis only stores bits.
//!
//! Keys for a filter called `users`:
//!
//! | key | type | holds |
//! |---|---|---|
//! | `{users}:config` | hash | `m`, `k`, `hash`, `strategy`, `seed`, `shard_bits`, `n`, `p`, `format` |
//! | `{users}:bits:0`, `{users}:bits:1`, … | string | the bits, [`ShardLayout`] |
//!
//! Bit positions come from [`IndexStrategy::for_each_index`] with the configured hash and
//! strategy over the whole m, exactly as [`StandardBloom`] computes them, so a Redis filter and a
//! local filter built from the same keys hold the same bits ([`BitmapBloom::export`],
//! [`BitmapBloom::import`]).

use super::conn::RedisConn;
use super::layout::{ShardLayout, bitvec_to_redis_bytes, redis_bytes_into_words};
use crate::bits::BitVec;
use crate::error::{Error, Param, Result};
use crate::filters::StandardBloom;
use crate::hash::{AnyHasher, AnyStrategy, HashId, IndexStrategy, StrategyId};
use crate::theory;
use redis::{Cmd, Value};
use std::collections::HashMap;
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
    fn fields(&self) -> Vec<(&'static str, String)> {
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

    fn parse(key: &str, map: &HashMap<String, String>) -> Result<Self> {
        let corrupt = |field: &str| {
            Error::Corrupt(format!(
                "config hash {key}: field '{field}' missing or invalid (not a bloomlab filter?)"
            ))
        };
        let get = |f: &str| map.get(f).ok_or_else(|| corrupt(f));
        if get("format")? != FORMAT {
            return Err(corrupt("format"));
        }
        let num = |f: &str| get(f)?.parse::<u64>().map_err(|_| corrupt(f));
        Ok(Self {
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
        })
    }

    /// The parameters that decide bit positions, with names, for mismatch messages.
    fn identity(&self) -> [(&'static str, String); 6] {
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

/// What [`BitmapBloom::info`] reports.
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

const ADD_OR_QUERY: &str = r"
-- KEYS: shard keys. ARGV[1]: 'a' (SETBIT, answer old bits) or 'q' (GETBIT).
-- ARGV[i+1]: offsets in KEYS[i], each a 4-byte big-endian unsigned integer.
local set = ARGV[1] == 'a'
local out = {}
local n = 0
for i = 1, #KEYS do
  local key = KEYS[i]
  local s = ARGV[i + 1]
  for p = 1, #s, 4 do
    local a, b, c, d = string.byte(s, p, p + 3)
    local off = ((a * 256 + b) * 256 + c) * 256 + d
    local v
    if set then v = redis.call('SETBIT', key, off, 1) else v = redis.call('GETBIT', key, off) end
    n = n + 1
    out[n] = v
  end
end
return table.concat(out)
";

const BULK_OR: &str = r"
-- KEYS[1]: scratch key; KEYS[i+1]: a shard; ARGV[i]: the batch's bits for KEYS[i+1] (Redis
-- bit order). OR each delta into its shard; atomic, so concurrent writers lose nothing.
for i = 2, #KEYS do
  redis.call('SET', KEYS[1], ARGV[i - 1])
  redis.call('BITOP', 'OR', KEYS[i], KEYS[i], KEYS[1])
end
redis.call('DEL', KEYS[1])
return redis.status_reply('OK')
";

const INIT: &str = r"
-- KEYS[1]: config hash; KEYS[2..]: shard keys. ARGV: field, value, field, value, ...
-- Creates the config unless it exists; answers the existing config (or 'created').
if redis.call('EXISTS', KEYS[1]) == 1 then
  return redis.call('HGETALL', KEYS[1])
end
for i = 2, #KEYS do
  local t = redis.call('TYPE', KEYS[i]).ok
  if t ~= 'none' and t ~= 'string' then
    return redis.error_reply('WRONGTYPE key ' .. KEYS[i] .. ' holds a ' .. t .. ', not a bitmap string')
  end
end
redis.call('HSET', KEYS[1], unpack(ARGV))
return 'created'
";

/// Items per round trip by default (a batch of 1000 items at k = 7 is 7000 bit operations).
pub const DEFAULT_BATCH: usize = 1000;

/// A Bloom filter stored in Redis bitmaps, hashed on the client.
///
/// ```no_run
/// use bloomlab::redis::{BitmapBloom, RedisConn};
/// let conn = RedisConn::open("redis://127.0.0.1:6379")?;
/// let mut f = BitmapBloom::new(conn, "users")?;
/// f.try_init(1_000_000, 0.01)?;               // idempotent; parameters stored in {users}:config
/// f.add(b"ana@example.org")?;
/// assert!(f.contains(b"ana@example.org")?);
/// let found = f.contains_many(&[b"x".as_slice(), b"y".as_slice()])?; // one round trip
/// # Ok::<(), bloomlab::Error>(())
/// ```
pub struct BitmapBloom {
    conn: RedisConn,
    name: String,
    config: Option<Loaded>,
    transport: Transport,
    batch: usize,
    transfer_chunk: u64,
    script: redis::Script,
}

#[derive(Debug, Clone)]
struct Loaded {
    cfg: BitmapConfig,
    layout: ShardLayout,
    hasher: AnyHasher,
    strategy: AnyStrategy,
}

impl fmt::Debug for BitmapBloom {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("BitmapBloom")
            .field("name", &self.name)
            .field("conn", &self.conn)
            .field("config", &self.config.as_ref().map(|l| l.cfg))
            .field("transport", &self.transport)
            .finish()
    }
}

impl BitmapBloom {
    /// A handle on the filter `name`, loading its config if the filter exists (it need not:
    /// call [`BitmapBloom::try_init`] to create it).
    ///
    /// # Errors
    /// A name with `{` or `}` (the hash tag is added here); [`Error::Redis`] when the server
    /// fails; [`Error::Corrupt`] when `{name}:config` is not a bloomlab config.
    pub fn new(conn: RedisConn, name: &str) -> Result<Self> {
        if name.is_empty() || name.contains(['{', '}']) {
            return Err(Error::invalid(
                Param::Other("name"),
                name,
                "a non-empty filter name without '{' or '}'",
            ));
        }
        let mut f = Self {
            conn,
            name: name.to_string(),
            config: None,
            transport: Transport::default(),
            batch: DEFAULT_BATCH,
            transfer_chunk: 1 << 20,
            script: redis::Script::new(ADD_OR_QUERY),
        };
        f.reload()?;
        Ok(f)
    }

    /// Re-read the config from Redis (after another client created or deleted the filter).
    ///
    /// # Errors
    /// As [`BitmapBloom::new`].
    pub fn reload(&mut self) -> Result<()> {
        let key = self.config_key();
        let map: HashMap<String, String> = self
            .conn
            .query(redis::cmd("HGETALL").arg(&key), &format!("key {key}"))?;
        self.config = if map.is_empty() {
            None
        } else {
            Some(Self::loaded(BitmapConfig::parse(&key, &map)?)?)
        };
        Ok(())
    }

    fn loaded(cfg: BitmapConfig) -> Result<Loaded> {
        theory::check_k(cfg.k)?;
        Ok(Loaded {
            layout: ShardLayout::new(cfg.m, cfg.options.shard_bits)?,
            hasher: AnyHasher::new(cfg.options.hash, cfg.options.seed),
            strategy: AnyStrategy(cfg.options.strategy),
            cfg,
        })
    }

    /// The filter's name.
    #[must_use]
    pub fn name(&self) -> &str {
        &self.name
    }

    /// `{name}:config`.
    #[must_use]
    pub fn config_key(&self) -> String {
        format!("{{{}}}:config", self.name)
    }

    /// `{name}:bits:<s>`.
    #[must_use]
    pub fn shard_key(&self, s: u64) -> String {
        format!("{{{}}}:bits:{s}", self.name)
    }

    /// The stored config, once created or loaded.
    #[must_use]
    pub fn config(&self) -> Option<&BitmapConfig> {
        self.config.as_ref().map(|l| &l.cfg)
    }

    /// The connection (for round-trip counts or other commands).
    pub fn conn(&mut self) -> &mut RedisConn {
        &mut self.conn
    }

    /// Give the connection back.
    #[must_use]
    pub fn into_conn(self) -> RedisConn {
        self.conn
    }

    /// The transport batches use.
    #[must_use]
    pub fn transport(&self) -> Transport {
        self.transport
    }

    /// Choose how batches travel ([`Transport`]).
    pub fn set_transport(&mut self, t: Transport) {
        self.transport = t;
    }

    /// Items per round trip in [`BitmapBloom::add_many`] / [`BitmapBloom::contains_many`]
    /// (at least 1).
    pub fn set_batch(&mut self, items: usize) {
        self.batch = items.max(1);
    }

    /// Bytes per `GETRANGE`/`SETRANGE` in export and import (at least 1; default 1 MiB).
    pub fn set_transfer_chunk(&mut self, bytes: u64) {
        self.transfer_chunk = bytes.max(1);
    }

    /// Create the filter for `n` expected items at false-positive rate `p` with default
    /// options, sized as Redisson and Guava do (`m = ⌊−n·ln p/(ln 2)²⌋`, `k = round(m/n·ln 2)`).
    ///
    /// Idempotent: `Ok(true)` when this call created it, `Ok(false)` when it already existed
    /// with the same parameters.
    ///
    /// # Errors
    /// [`Error::Incompatible`] when the filter exists with other parameters (nothing is
    /// overwritten); invalid `n`/`p`; [`Error::Redis`].
    pub fn try_init(&mut self, n: u64, p: f64) -> Result<bool> {
        self.try_init_with(n, p, BitmapOptions::default())
    }

    /// [`BitmapBloom::try_init`] with a chosen hash, strategy, seed and shard size.
    ///
    /// # Errors
    /// As [`BitmapBloom::try_init`].
    pub fn try_init_with(&mut self, n: u64, p: f64, options: BitmapOptions) -> Result<bool> {
        let s = theory::size_for(n, p)?;
        let m = AnyStrategy(options.strategy).round_bits(s.m);
        self.init(BitmapConfig {
            m,
            k: s.k,
            options,
            n,
            p,
        })
    }

    /// Create the filter with exactly `m` bits and `k` positions per item (m rounded up to
    /// whole words for the Guava strategies).
    ///
    /// # Errors
    /// As [`BitmapBloom::try_init`].
    pub fn try_init_bits(&mut self, m: u64, k: u32, options: BitmapOptions) -> Result<bool> {
        theory::check_m(m)?;
        let m = AnyStrategy(options.strategy).round_bits(m);
        self.init(BitmapConfig {
            m,
            k,
            options,
            n: 0,
            p: 0.0,
        })
    }

    fn init(&mut self, cfg: BitmapConfig) -> Result<bool> {
        let loaded = Self::loaded(cfg)?;
        let key = self.config_key();
        let script = redis::Script::new(INIT);
        let mut call = script.prepare_invoke();
        call.key(&key);
        for s in 0..loaded.layout.shards() {
            call.key(self.shard_key(s));
        }
        for (f, v) in cfg.fields() {
            call.arg(f).arg(v);
        }
        let r: std::result::Result<Value, _> = {
            let con = self.conn.raw()?;
            call.invoke::<Value>(con)
        };
        let r = r.map_err(|e| self.conn.error(&e, &format!("filter {}", self.name)));
        match r? {
            Value::SimpleString(s) if s == "created" => {
                self.config = Some(loaded);
                Ok(true)
            }
            Value::BulkString(s) if s == b"created" => {
                self.config = Some(loaded);
                Ok(true)
            }
            v => {
                let map: HashMap<String, String> = redis::from_redis_value(v).map_err(|e| {
                    Error::Corrupt(format!("config hash {key}: unexpected reply ({e})"))
                })?;
                let existing = BitmapConfig::parse(&key, &map)?;
                let diffs: Vec<String> = existing
                    .identity()
                    .iter()
                    .zip(cfg.identity().iter())
                    .filter(|(a, b)| a.1 != b.1)
                    .map(|(a, b)| format!("{} {} (asked {})", a.0, a.1, b.1))
                    .collect();
                if diffs.is_empty() {
                    self.config = Some(Self::loaded(existing)?);
                    Ok(false)
                } else {
                    Err(Error::Incompatible(format!(
                        "filter '{}' already exists in Redis with other parameters: {}; \
                         delete it or open it with its own parameters",
                        self.name,
                        diffs.join(", ")
                    )))
                }
            }
        }
    }

    fn need(&self) -> Result<&Loaded> {
        self.config.as_ref().ok_or_else(|| Error::Redis {
            target: format!("key {}", self.config_key()),
            message: format!(
                "filter '{}' does not exist (no config); call try_init first",
                self.name
            ),
            connection: false,
        })
    }

    /// The k global bit positions of `item` (the same as a local [`StandardBloom`] with the
    /// same parameters computes).
    ///
    /// # Errors
    /// The filter does not exist.
    pub fn positions(&self, item: &[u8]) -> Result<Vec<u64>> {
        let l = self.need()?;
        let mut v = Vec::with_capacity(l.cfg.k as usize);
        l.strategy
            .for_each_index(&l.hasher, item, l.cfg.k, l.cfg.m, |i| {
                v.push(i);
                true
            });
        Ok(v)
    }

    /// Add one item; `Ok(true)` if at least one of its bits was 0 (it was certainly new).
    ///
    /// # Errors
    /// [`Error::Redis`] (the add may or may not have happened; adding again is harmless).
    pub fn add(&mut self, item: &[u8]) -> Result<bool> {
        let refs = [item];
        let (ops, groups) = self.plan(&refs)?;
        let t = match self.transport {
            Transport::Bulk | Transport::Auto => Transport::Bitfield,
            t => t,
        };
        let bits = self.bit_ops(t, &ops, &groups, true)?;
        Ok(bits.iter().any(|&b| !b))
    }

    /// Add many items, [`BitmapBloom::set_batch`] items per round trip. Returns how many were
    /// certainly new (some bit was 0), or `None` when a batch went by [`Transport::Bulk`], which
    /// does not read the old bits.
    ///
    /// # Errors
    /// [`Error::Redis`]: earlier batches are stored; re-running the whole call is safe.
    pub fn add_many<T: AsRef<[u8]>>(&mut self, items: &[T]) -> Result<Option<u64>> {
        let mut new = Some(0);
        for chunk in items.chunks(self.batch) {
            let refs: Vec<&[u8]> = chunk.iter().map(AsRef::as_ref).collect();
            new = match (new, self.run(&refs, true)?) {
                (Some(n), Some(flags)) => Some(n + flags.iter().filter(|&&b| b).count() as u64),
                _ => None,
            };
        }
        Ok(new)
    }

    /// Whether `item` may have been added.
    ///
    /// # Errors
    /// [`Error::Redis`].
    pub fn contains(&mut self, item: &[u8]) -> Result<bool> {
        let refs = [item];
        let (ops, groups) = self.plan(&refs)?;
        let t = match self.transport {
            Transport::Bulk | Transport::Auto => Transport::Bitfield,
            t => t,
        };
        Ok(self.bit_ops(t, &ops, &groups, false)?.iter().all(|&b| b))
    }

    /// Query many items, [`BitmapBloom::set_batch`] items per round trip.
    ///
    /// # Errors
    /// [`Error::Redis`].
    pub fn contains_many<T: AsRef<[u8]>>(&mut self, items: &[T]) -> Result<Vec<bool>> {
        let mut out = Vec::with_capacity(items.len());
        for chunk in items.chunks(self.batch) {
            let refs: Vec<&[u8]> = chunk.iter().map(AsRef::as_ref).collect();
            out.extend(self.run(&refs, false)?.unwrap_or_default());
        }
        Ok(out)
    }

    /// `(shard, offset, item)` for every position of `items`, grouped by shard (stable: item
    /// order kept within a shard), and the groups as `(shard, start, end)` ranges.
    #[allow(clippy::type_complexity)]
    fn plan(&self, items: &[&[u8]]) -> Result<(Vec<(u64, u32, u32)>, Vec<(u64, usize, usize)>)> {
        let l = self.need()?;
        let (k, m) = (l.cfg.k, l.cfg.m);
        let mut ops: Vec<(u64, u32, u32)> = Vec::with_capacity(items.len() * k as usize);
        for (j, item) in items.iter().enumerate() {
            l.strategy.for_each_index(&l.hasher, item, k, m, |i| {
                let (s, o) = l.layout.locate(i);
                // o < shard_bits <= 2^32.
                ops.push((s, o as u32, j as u32));
                true
            });
        }
        if l.layout.shards() > 1 {
            ops.sort_by_key(|op| op.0);
        }
        let mut groups = Vec::new();
        let mut start = 0;
        while start < ops.len() {
            let s = ops[start].0;
            let mut end = start;
            while end < ops.len() && ops[end].0 == s {
                end += 1;
            }
            groups.push((s, start, end));
            start = end;
        }
        Ok((ops, groups))
    }

    /// One round trip: set (`add`) or read the bits of `items`. For adds, answers per item "some
    /// bit was 0" (`None` by the bulk path); for queries, "every bit was 1".
    fn run(&mut self, items: &[&[u8]], add: bool) -> Result<Option<Vec<bool>>> {
        let (ops, groups) = self.plan(items)?;
        let layout = self.need()?.layout;
        let t = match self.transport {
            Transport::Auto => {
                let bytes: u64 = groups.iter().map(|g| layout.shard_len_bytes(g.0)).sum();
                let per_bit = if add {
                    BULK_ADD_BYTES_PER_BIT
                } else {
                    BULK_QUERY_BYTES_PER_BIT
                };
                if bytes <= per_bit * ops.len() as u64 {
                    Transport::Bulk
                } else {
                    Transport::Bitfield
                }
            }
            t => t,
        };
        if t == Transport::Bulk {
            return if add {
                self.bulk_add(&ops, &groups).map(|()| None)
            } else {
                self.bulk_query(&ops, &groups, items.len()).map(Some)
            };
        }
        let bits = self.bit_ops(t, &ops, &groups, add)?;
        let mut out = vec![!add; items.len()];
        for (op, bit) in ops.iter().zip(bits) {
            let o = &mut out[op.2 as usize];
            if add {
                *o |= !bit;
            } else {
                *o &= bit;
            }
        }
        Ok(Some(out))
    }

    /// Adds by the bulk path: OR a locally built delta into each touched shard, atomically.
    fn bulk_add(&mut self, ops: &[(u64, u32, u32)], groups: &[(u64, usize, usize)]) -> Result<()> {
        if ops.is_empty() {
            return Ok(());
        }
        let script = redis::Script::new(BULK_OR);
        let mut inv = script.prepare_invoke();
        inv.key(format!("{{{}}}:delta", self.name));
        for &(s, start, end) in groups {
            let top = ops[start..end].iter().map(|op| op.1).max().unwrap_or(0);
            let mut delta = vec![0u8; top as usize / 8 + 1];
            for op in &ops[start..end] {
                delta[(op.1 / 8) as usize] |= 0x80 >> (op.1 % 8);
            }
            inv.key(self.shard_key(s));
            inv.arg(delta);
        }
        let what = format!("filter {} (keys {{{}}}:bits:*)", self.name, self.name);
        let r: std::result::Result<(), _> = {
            let con = self.conn.raw()?;
            inv.invoke(con)
        };
        match r {
            Ok(()) => Ok(()),
            Err(e) => {
                let err = self.conn.error(&e, &what);
                Err(self.diagnose(err, groups))
            }
        }
    }

    /// Queries by the bulk path: read every touched shard whole, test the bits locally.
    fn bulk_query(
        &mut self,
        ops: &[(u64, u32, u32)],
        groups: &[(u64, usize, usize)],
        items: usize,
    ) -> Result<Vec<bool>> {
        let cmds = groups
            .iter()
            .map(|&(s, _, _)| {
                let mut c = redis::cmd("GETRANGE");
                c.arg(self.shard_key(s)).arg(0).arg(-1);
                c
            })
            .collect();
        let what = format!("filter {} (keys {{{}}}:bits:*)", self.name, self.name);
        let replies = self.pipeline_checked(cmds, groups, &what)?;
        let mut out = vec![true; items];
        for (&(_, start, end), reply) in groups.iter().zip(&replies) {
            let bytes: &[u8] = match reply {
                Value::BulkString(b) => b,
                _ => &[],
            };
            for op in &ops[start..end] {
                let set = bytes
                    .get((op.1 / 8) as usize)
                    .is_some_and(|b| b & (0x80 >> (op.1 % 8)) != 0);
                out[op.2 as usize] &= set;
            }
        }
        Ok(out)
    }

    /// One round trip of bit operations by a per-bit transport; the old (adds) or current
    /// (queries) value of each position, in `ops` order.
    fn bit_ops(
        &mut self,
        transport: Transport,
        ops: &[(u64, u32, u32)],
        groups: &[(u64, usize, usize)],
        add: bool,
    ) -> Result<Vec<bool>> {
        let what = format!("filter {} (keys {{{}}}:bits:*)", self.name, self.name);
        let bits: Vec<bool> = match transport {
            Transport::Pipeline => {
                let mut cmds = Vec::with_capacity(ops.len());
                for &(s, start, end) in groups {
                    let key = self.shard_key(s);
                    for op in &ops[start..end] {
                        let mut c = redis::cmd(if add { "SETBIT" } else { "GETBIT" });
                        c.arg(&key).arg(op.1);
                        if add {
                            c.arg(1);
                        }
                        cmds.push(c);
                    }
                }
                let replies = self.pipeline_checked(cmds, groups, &what)?;
                replies.iter().map(|v| matches!(v, Value::Int(1))).collect()
            }
            Transport::Bitfield => {
                let mut cmds = Vec::with_capacity(groups.len());
                for &(s, start, end) in groups {
                    let mut c = redis::cmd(if add { "BITFIELD" } else { "BITFIELD_RO" });
                    c.arg(self.shard_key(s));
                    for op in &ops[start..end] {
                        if add {
                            c.arg("SET").arg("u1").arg(op.1).arg(1);
                        } else {
                            c.arg("GET").arg("u1").arg(op.1);
                        }
                    }
                    cmds.push(c);
                }
                let replies = self.pipeline_checked(cmds, groups, &what)?;
                let mut bits = Vec::with_capacity(ops.len());
                for r in replies {
                    match r {
                        Value::Array(vs) => {
                            bits.extend(vs.iter().map(|v| matches!(v, Value::Int(1))))
                        }
                        other => {
                            return Err(Error::Redis {
                                target: what,
                                message: format!("unexpected BITFIELD reply {other:?}"),
                                connection: false,
                            });
                        }
                    }
                }
                bits
            }
            Transport::Bulk | Transport::Auto | Transport::Lua => {
                let mut inv = self.script.prepare_invoke();
                inv.arg(if add { "a" } else { "q" });
                for &(s, _, _) in groups {
                    inv.key(self.shard_key(s));
                }
                for &(_, start, end) in groups {
                    let packed: Vec<u8> = ops[start..end]
                        .iter()
                        .flat_map(|op| op.1.to_be_bytes())
                        .collect();
                    inv.arg(packed);
                }
                let r: std::result::Result<Vec<u8>, _> = {
                    let con = self.conn.raw()?;
                    inv.invoke(con)
                };
                match r {
                    Ok(s) => s.iter().map(|&b| b == b'1').collect(),
                    Err(e) => {
                        let err = self.conn.error(&e, &what);
                        return Err(self.diagnose(err, groups));
                    }
                }
            }
        };
        if bits.len() != ops.len() {
            return Err(Error::Redis {
                target: what,
                message: format!("expected {} bit replies, got {}", ops.len(), bits.len()),
                connection: false,
            });
        }
        Ok(bits)
    }

    fn pipeline_checked(
        &mut self,
        cmds: Vec<Cmd>,
        groups: &[(u64, usize, usize)],
        what: &str,
    ) -> Result<Vec<Value>> {
        match self.conn.pipeline(cmds, what) {
            Ok(v) => Ok(v),
            Err(e) => Err(self.diagnose(e, groups)),
        }
    }

    /// A server error on a batch: if it was WRONGTYPE, find and name the key.
    fn diagnose(&mut self, e: Error, groups: &[(u64, usize, usize)]) -> Error {
        let Error::Redis {
            message,
            connection: false,
            ..
        } = &e
        else {
            return e;
        };
        if !message.contains("WRONGTYPE") {
            return e;
        }
        for &(s, _, _) in groups {
            let key = self.shard_key(s);
            if let Ok(t) = self
                .conn
                .query::<String>(redis::cmd("TYPE").arg(&key), &key)
                && t != "string"
                && t != "none"
            {
                return Error::Redis {
                    target: format!("key {key} on {}", self.conn.addr()),
                    message: format!(
                        "WRONGTYPE: the key holds a {t}, not a bitmap string (another program \
                         uses this name?)"
                    ),
                    connection: false,
                };
            }
        }
        e
    }

    /// Bits set in Redis (`BITCOUNT` over every shard, one round trip).
    ///
    /// # Errors
    /// [`Error::Redis`].
    pub fn ones(&mut self) -> Result<u64> {
        let shards = self.need()?.layout.shards();
        let cmds = (0..shards)
            .map(|s| {
                let mut c = redis::cmd("BITCOUNT");
                c.arg(self.shard_key(s));
                c
            })
            .collect();
        let what = format!("filter {}", self.name);
        let replies = self.conn.pipeline(cmds, &what)?;
        Ok(replies
            .iter()
            .map(|v| match v {
                Value::Int(i) => *i as u64,
                _ => 0,
            })
            .sum())
    }

    /// Estimated number of distinct items added, from the bits set (Swamidass & Baldi 2007,
    /// as Redisson's `count()`: [`theory::estimate_count`]).
    ///
    /// # Errors
    /// [`Error::Redis`].
    pub fn count(&mut self) -> Result<f64> {
        let ones = self.ones()?;
        let c = self.need()?.cfg;
        Ok(theory::estimate_count(c.m, c.k, ones))
    }

    /// Parameters, fill, estimated count and server memory.
    ///
    /// # Errors
    /// [`Error::Redis`].
    pub fn info(&mut self) -> Result<BitmapInfo> {
        let ones = self.ones()?;
        let l = self.need()?.clone();
        let mut keys = vec![self.config_key()];
        keys.extend((0..l.layout.shards()).map(|s| self.shard_key(s)));
        let cmds = keys
            .iter()
            .map(|k| {
                let mut c = redis::cmd("MEMORY");
                c.arg("USAGE").arg(k).arg("SAMPLES").arg(0);
                c
            })
            .collect();
        let mem = self.conn.pipeline(cmds, &format!("filter {}", self.name))?;
        let c = l.cfg;
        Ok(BitmapInfo {
            name: self.name.clone(),
            m: c.m,
            k: c.k,
            hash: c.options.hash.name().into(),
            strategy: c.options.strategy.name().into(),
            seed: c.options.seed,
            shard_bits: c.options.shard_bits,
            shards: l.layout.shards(),
            n: c.n,
            p: c.p,
            ones,
            estimated_count: theory::estimate_count(c.m, c.k, ones),
            fpr_at_fill: (ones as f64 / c.m as f64).powi(c.k as i32),
            memory_bytes: mem
                .iter()
                .map(|v| match v {
                    Value::Int(i) => *i as u64,
                    _ => 0,
                })
                .sum(),
        })
    }

    /// Delete the filter (config and every shard; `UNLINK`, so big shards are freed in the
    /// background). `Ok(true)` if anything was deleted.
    ///
    /// # Errors
    /// [`Error::Redis`].
    pub fn delete(&mut self) -> Result<bool> {
        let shards = self.config.as_ref().map_or(0, |l| l.layout.shards());
        let mut c = redis::cmd("UNLINK");
        c.arg(self.config_key());
        for s in 0..shards {
            c.arg(self.shard_key(s));
        }
        let what = format!("filter {}", self.name);
        let n: u64 = self.conn.query(&c, &what)?;
        self.config = None;
        Ok(n > 0)
    }

    /// An empty local filter with this filter's parameters (same m, k, hash, seed, strategy).
    ///
    /// # Errors
    /// The filter does not exist; [`Error::Allocation`].
    pub fn local_empty(&self) -> Result<StandardBloom<AnyHasher, AnyStrategy>> {
        let l = self.need()?;
        StandardBloom::with_bits_and(l.cfg.m, l.cfg.k, l.hasher, l.strategy)
    }

    /// Copy the Redis bits into a local filter, `GETRANGE` chunk by chunk (the local filter's
    /// insert count is set to the estimated count, since Redis keeps no exact one).
    ///
    /// # Errors
    /// [`Error::Redis`]; [`Error::Allocation`].
    pub fn export(&mut self) -> Result<StandardBloom<AnyHasher, AnyStrategy>> {
        let l = self.need()?.clone();
        let mut words = vec![0u64; l.cfg.m.div_ceil(64) as usize];
        for s in 0..l.layout.shards() {
            let key = self.shard_key(s);
            let len = l.layout.shard_len_bytes(s);
            let mut start = 0;
            while start < len {
                let end = (start + self.transfer_chunk).min(len) - 1;
                let bytes: Vec<u8> = self.conn.query(
                    redis::cmd("GETRANGE").arg(&key).arg(start).arg(end),
                    &format!("key {key}"),
                )?;
                redis_bytes_into_words(&bytes, &l.layout, s, start, &mut words);
                if (bytes.len() as u64) < end + 1 - start {
                    break; // the string ends here; the rest is zero
                }
                start = end + 1;
            }
        }
        let bits = BitVec::from_words(words, l.cfg.m)?;
        let ones = bits.count_ones();
        let est = theory::estimate_count(l.cfg.m, l.cfg.k, ones);
        let len = if est.is_finite() {
            est.round() as u64
        } else {
            0
        };
        StandardBloom::from_bits(bits, l.cfg.k, len, l.hasher, l.strategy)
    }

    /// Write a local filter's bits into Redis, `SETRANGE` chunk by chunk, **replacing** the
    /// Redis bits (import into a fresh filter, or while writers pause — e.g. the articles'
    /// scheduled rebuild from the database). Creates the filter with the local filter's
    /// parameters if it does not exist.
    ///
    /// # Errors
    /// [`Error::Incompatible`] when the parameters (m, k, hash, seed, strategy) differ;
    /// [`Error::Redis`].
    pub fn import(
        &mut self,
        local: &StandardBloom<AnyHasher, AnyStrategy>,
        options: BitmapOptions,
    ) -> Result<()> {
        use crate::filter::Filter;
        let options = BitmapOptions {
            hash: local.hash_id(),
            strategy: local.strategy().0,
            ..options
        };
        if self.config.is_none() {
            self.try_init_bits(local.bits(), local.k(), options)?;
        }
        let l = self.need()?.clone();
        if l.cfg.m != local.bits()
            || l.cfg.k != local.k()
            || l.hasher != *local.hasher()
            || l.strategy != local.strategy()
        {
            return Err(Error::Incompatible(format!(
                "local filter (m {}, k {}, {} / {}) differs from Redis filter '{}' \
                 (m {}, k {}, {} / {}, seed {})",
                local.bits(),
                local.k(),
                local.hash_id(),
                local.strategy().0,
                self.name,
                l.cfg.m,
                l.cfg.k,
                l.cfg.options.hash,
                l.cfg.options.strategy,
                l.cfg.options.seed
            )));
        }
        for s in 0..l.layout.shards() {
            let key = self.shard_key(s);
            let len = l.layout.shard_len_bytes(s);
            let mut start = 0;
            while start < len {
                let bytes = bitvec_to_redis_bytes(
                    local.bit_vec(),
                    &l.layout,
                    s,
                    start,
                    self.transfer_chunk,
                );
                let _: u64 = self.conn.query(
                    redis::cmd("SETRANGE").arg(&key).arg(start).arg(&bytes),
                    &format!("key {key}"),
                )?;
                start += bytes.len() as u64;
            }
        }
        Ok(())
    }
}
