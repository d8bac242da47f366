//! A Bloom filter whose bits live in Redis strings (a bitmap), driven from the client like
//! Redisson's `RBloomFilter`: the client hashes, Redis only stores bits.
//!
//! Keys for a filter called `users`:
//!
//! | key | type | holds |
//! |---|---|---|
//! | `{users}:config` | hash | `m`, `k`, `hash`, `strategy`, `seed`, `shard_bits`, `n`, `p`, `format`, `gen` (the generation id) |
//! | `{users}:bits:0`, `{users}:bits:1`, … | string | the bits, [`ShardLayout`](crate::redis::layout::ShardLayout) |
//!
//! Bit positions come from [`IndexStrategy::for_each_index`] with the configured hash and
//! strategy over the whole m, exactly as [`StandardBloom`] computes them, so a Redis filter and a
//! local filter built from the same keys hold the same bits ([`BitmapBloom::export`],
//! [`BitmapBloom::import`]).
//!
//! **After a reconnect** (or at any time) a handle whose filter vanished or was replaced answers
//! [`Error::FilterLost`], not answers: each batch checks the generation id in the config in the
//! same round trip (the [`crate::redis`] module docs state the whole contract).
//!
//! This file is the filter itself; the rest is in its submodules:
//!
//! | file | what |
//! |---|---|
//! | `config.rs` | the stored parameters ([`BitmapConfig`], [`BitmapOptions`]), key names, [`BitmapInfo`] |
//! | `transport.rs` | [`Transport`] and the rule by which [`Transport::Auto`] chooses a path |
//! | `batch.rs` | the batch pipeline: items → bit operations grouped by shard → one round trip |
//! | `transfer.rs` | export and import of the whole bitmap, chunk by chunk |

mod batch;
mod config;
mod transfer;
mod transport;

pub use config::{BitmapConfig, BitmapInfo, BitmapOptions, FORMAT};
pub use transport::{BULK_ADD_BYTES_PER_BIT, BULK_QUERY_BYTES_PER_BIT, Transport};

use super::conn::RedisConn;
use crate::error::{Error, Param, Result};
use crate::filters::StandardBloom;
use crate::hash::{AnyHasher, AnyStrategy, IndexStrategy};
use crate::theory;
use batch::{Batch, add_or_query_script, plan};
use config::{GENERATION, Loaded, config_key, new_generation, shard_key};
use redis::Value;
use std::collections::HashMap;
use std::fmt;
use std::time::Duration;

const INIT: &str = r"
-- KEYS[1]: config hash; KEYS[2..]: shard keys. ARGV[1]: TTL in ms (0: none); ARGV[2]: a new
-- generation id; ARGV[3..]: field, value, field, value, ...
-- Creates the config unless it exists; answers the existing config (or 'created'). With a TTL
-- the config expires after it (each shard gets it when a batch first writes it). An existing
-- config without a generation id (made by an older bloomlab) gets one.
if redis.call('EXISTS', KEYS[1]) == 1 then
  redis.call('HSETNX', KEYS[1], 'gen', ARGV[2])
  return redis.call('HGETALL', KEYS[1])
end
for i = 2, #KEYS do
  local t = redis.call('TYPE', KEYS[i]).ok
  if t ~= 'none' and t ~= 'string' then
    return redis.error_reply('WRONGTYPE key ' .. KEYS[i] .. ' holds a ' .. t .. ', not a bitmap string')
  end
end
redis.call('HSET', KEYS[1], 'gen', ARGV[2], unpack(ARGV, 3))
if tonumber(ARGV[1]) > 0 then
  redis.call('PEXPIRE', KEYS[1], ARGV[1])
end
return 'created'
";

const UPGRADE: &str = r"
-- KEYS[1]: config hash. ARGV[1]: a new generation id, for a config made by an older bloomlab.
if redis.call('EXISTS', KEYS[1]) == 1 then
  redis.call('HSETNX', KEYS[1], 'gen', ARGV[1])
end
return redis.call('HGETALL', KEYS[1])
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
    ttl: Option<Duration>,
    script: redis::Script,
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
    /// fails; [`Error::RedisCorrupt`] when `{name}:config` is not a valid bloomlab config.
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
            ttl: None,
            script: add_or_query_script(),
        };
        f.reload()?;
        Ok(f)
    }

    /// Re-read the config from Redis (after another client created or deleted the filter, or
    /// after [`Error::FilterLost`], once the filter has been rebuilt).
    ///
    /// # Errors
    /// As [`BitmapBloom::new`].
    pub fn reload(&mut self) -> Result<()> {
        let key = self.config_key();
        let mut map: HashMap<String, String> = self
            .conn
            .query(redis::cmd("HGETALL").arg(&key), &format!("key {key}"))?;
        if !map.is_empty() && !map.contains_key(GENERATION) {
            let script = redis::Script::new(UPGRADE);
            let mut call = script.prepare_invoke();
            call.key(&key).arg(new_generation());
            let r = {
                let con = self.conn.raw()?;
                call.invoke::<HashMap<String, String>>(con)
            };
            map = r.map_err(|e| self.conn.error(&e, &format!("key {key}")))?;
        }
        self.config = if map.is_empty() {
            None
        } else {
            Some(Self::loaded(&key, &map)?)
        };
        Ok(())
    }

    /// A config read from Redis, checked (untrusted input: [`Error::RedisCorrupt`]).
    fn loaded(key: &str, map: &HashMap<String, String>) -> Result<Loaded> {
        let cfg = BitmapConfig::parse(key, map)?;
        let generation = map
            .get(GENERATION)
            .filter(|g| !g.is_empty() && g.len() <= 64)
            .ok_or_else(|| Error::RedisCorrupt {
                key: key.to_string(),
                reason: format!("field '{GENERATION}' missing or invalid"),
            })?;
        Loaded::new(cfg, generation.clone())
    }

    /// The filter's generation id (16 hex digits), once created or loaded: a filter deleted and
    /// created again under the same name has another one.
    #[must_use]
    pub fn generation(&self) -> Option<&str> {
        self.config.as_ref().map(|l| l.generation.as_str())
    }

    /// Give every key of the filter this handle creates a time to live (`None`, the default:
    /// they live until deleted): the config when [`BitmapBloom::try_init`] creates it, each
    /// shard when an add first writes it (`PEXPIRE … NX` in the same round trip: Redis ≥ 7.0).
    /// A filter that expires while in use answers [`Error::FilterLost`].
    pub fn set_ttl(&mut self, ttl: Option<Duration>) {
        self.ttl = ttl.filter(|d| !d.is_zero());
    }

    /// The TTL in milliseconds, 0 for none.
    fn ttl_ms(&self) -> u64 {
        self.ttl
            .map_or(0, |d| d.as_millis().clamp(1, u128::from(u64::MAX)) as u64)
    }

    /// The filter's name.
    #[must_use]
    pub fn name(&self) -> &str {
        &self.name
    }

    /// `{name}:config`.
    #[must_use]
    pub fn config_key(&self) -> String {
        config_key(&self.name)
    }

    /// `{name}:bits:<s>`.
    #[must_use]
    pub fn shard_key(&self, s: u64) -> String {
        shard_key(&self.name, s)
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
    /// (at least 1, at most 2^32 − 1: larger values are taken as that).
    pub fn set_batch(&mut self, items: usize) {
        let most = usize::try_from(u32::MAX).unwrap_or(usize::MAX);
        self.batch = items.clamp(1, most);
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
        let loaded = Loaded::new(cfg, new_generation())?;
        let key = self.config_key();
        let script = redis::Script::new(INIT);
        let mut call = script.prepare_invoke();
        call.key(&key);
        for s in 0..loaded.layout.shards() {
            call.key(self.shard_key(s));
        }
        call.arg(self.ttl_ms()).arg(&loaded.generation);
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
                let map: HashMap<String, String> =
                    redis::from_redis_value(v).map_err(|e| Error::RedisCorrupt {
                        key: key.clone(),
                        reason: format!("unexpected reply ({e})"),
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
                    self.config = Some(Self::loaded(&key, &map)?);
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
        self.config
            .as_ref()
            .ok_or_else(|| config::not_created(&self.name))
    }

    /// One round trip for `items` (see [`Batch::run`]).
    fn run(&mut self, items: &[&[u8]], add: bool, single: bool) -> Result<Option<Vec<bool>>> {
        let loaded = self
            .config
            .as_ref()
            .ok_or_else(|| config::not_created(&self.name))?;
        let plan = plan(loaded, items);
        let ttl_ms = self.ttl_ms();
        Batch {
            conn: &mut self.conn,
            name: &self.name,
            loaded,
            script: &self.script,
            ttl_ms,
        }
        .run(&plan, add, self.transport, single)
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
        let new = self.run(&[item], true, true)?;
        Ok(new.is_some_and(|v| v.iter().any(|&b| b)))
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
            new = match (new, self.run(&refs, true, false)?) {
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
        let found = self.run(&[item], false, true)?;
        Ok(found.is_some_and(|v| v.iter().all(|&b| b)))
    }

    /// Query many items, [`BitmapBloom::set_batch`] items per round trip.
    ///
    /// # Errors
    /// [`Error::Redis`].
    pub fn contains_many<T: AsRef<[u8]>>(&mut self, items: &[T]) -> Result<Vec<bool>> {
        let mut out = Vec::with_capacity(items.len());
        for chunk in items.chunks(self.batch) {
            let refs: Vec<&[u8]> = chunk.iter().map(AsRef::as_ref).collect();
            out.extend(self.run(&refs, false, false)?.unwrap_or_default());
        }
        Ok(out)
    }

    /// Bits set in Redis (`BITCOUNT` over every shard, one round trip).
    ///
    /// # Errors
    /// [`Error::Redis`].
    pub fn ones(&mut self) -> Result<u64> {
        let shards = self.need()?.layout.shards();
        let mut cmds = vec![batch::generation_cmd(&self.name)];
        cmds.extend((0..shards).map(|s| {
            let mut c = redis::cmd("BITCOUNT");
            c.arg(self.shard_key(s));
            c
        }));
        let what = format!("filter {}", self.name);
        let replies = self.conn.pipeline(cmds, &what)?;
        let opened = self.need()?.generation.clone();
        batch::check_generation(&self.conn, &self.name, &opened, &replies[0])?;
        Ok(replies[1..]
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
        self.check_generation()?;
        let local = transfer::export(&mut self.conn, &self.name, &l, self.transfer_chunk)?;
        // Lost while it was read: the copy may miss bits.
        self.check_generation()?;
        Ok(local)
    }

    /// One round trip: is the filter in Redis still the one this handle opened?
    ///
    /// # Errors
    /// [`Error::FilterLost`]; the filter does not exist here; [`Error::Redis`].
    pub fn check_generation(&mut self) -> Result<()> {
        let opened = self.need()?.generation.clone();
        let what = format!("filter {}", self.name);
        let reply = self
            .conn
            .pipeline(vec![batch::generation_cmd(&self.name)], &what)?;
        batch::check_generation(&self.conn, &self.name, &opened, &reply[0])
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
        self.check_generation()?;
        transfer::import(&mut self.conn, &self.name, &l, local, self.transfer_chunk)?;
        self.check_generation()
    }
}
