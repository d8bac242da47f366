//! The batch pipeline: one round trip of bit operations for a batch of items. [`plan`] turns the
//! items into `(shard, offset, item)` operations grouped by shard; [`Batch::run`] sends them by
//! the chosen [`Transport`] (per bit by `SETBIT`/`GETBIT`, `BITFIELD` or a Lua script, or
//! word-parallel by the bulk path) and folds the replies into one answer per item. A server
//! error that is WRONGTYPE on a shard is turned into one that names the key.
//!
//! Every round trip also checks the filter's generation id (`HGET {name}:config gen`, inside
//! the script for the Lua and bulk-add paths, as the pipeline's first command otherwise): a
//! filter that vanished or was replaced gives [`Error::FilterLost`], never answers. The scripts
//! check before they write; a pipeline or `BITFIELD` add that finds the config gone removes the
//! shard keys it created, in a script that does so only while the config is still missing.

use super::config::{GENERATION, Loaded, config_key, delta_key, shard_key};
use super::transport::Transport;
use crate::error::{Error, Result};
use crate::hash::IndexStrategy;
use crate::redis::conn::RedisConn;
use redis::{Cmd, Value};

/// The error code the scripts answer when the generation check fails.
const LOST: &str = "BLOOMLABLOST";

const ADD_OR_QUERY: &str = r"
-- KEYS[1]: config hash; KEYS[2..]: shard keys. ARGV[1]: 'a' (SETBIT, answer old bits) or 'q'
-- (GETBIT). ARGV[2]: the generation id the client opened. ARGV[3]: TTL in ms of a shard an add
-- writes (0: none). ARGV[i+2]: offsets in KEYS[i] (i >= 2), each a 4-byte big-endian unsigned
-- integer.
local g = redis.call('HGET', KEYS[1], 'gen')
if g ~= ARGV[2] then
  return redis.error_reply('BLOOMLABLOST ' .. (g or 'none'))
end
local set = ARGV[1] == 'a'
local ttl = tonumber(ARGV[3])
local out = {}
local n = 0
for i = 2, #KEYS do
  local key = KEYS[i]
  local s = ARGV[i + 2]
  for p = 1, #s, 4 do
    local a, b, c, d = string.byte(s, p, p + 3)
    local off = ((a * 256 + b) * 256 + c) * 256 + d
    local v
    if set then v = redis.call('SETBIT', key, off, 1) else v = redis.call('GETBIT', key, off) end
    n = n + 1
    out[n] = v
  end
  if set and ttl > 0 then
    redis.call('PEXPIRE', key, ttl, 'NX')
  end
end
return table.concat(out)
";

const BULK_OR: &str = r"
-- KEYS[1]: config hash; KEYS[2]: scratch key; KEYS[i] (i >= 3): a shard; ARGV[1]: the
-- generation id; ARGV[2]: TTL in ms of a shard written (0: none); ARGV[i]: the batch's bits for
-- KEYS[i] (Redis bit order). OR each delta into its shard; atomic, so concurrent writers lose
-- nothing.
local g = redis.call('HGET', KEYS[1], 'gen')
if g ~= ARGV[1] then
  return redis.error_reply('BLOOMLABLOST ' .. (g or 'none'))
end
local ttl = tonumber(ARGV[2])
for i = 3, #KEYS do
  redis.call('SET', KEYS[2], ARGV[i])
  local r = redis.pcall('BITOP', 'OR', KEYS[i], KEYS[i], KEYS[2])
  if type(r) == 'table' and r.err then
    redis.call('DEL', KEYS[2]) -- no scratch key left behind (e.g. a shard of another type)
    return r
  end
  if ttl > 0 then
    redis.call('PEXPIRE', KEYS[i], ttl, 'NX')
  end
end
redis.call('DEL', KEYS[2])
return redis.status_reply('OK')
";

const REMOVE_ORPHANS: &str = r"
-- KEYS[1]: config hash; KEYS[2..]: shard keys a failed batch created. Removes them only while
-- the config is missing (a shard without its config is garbage nobody can read).
if redis.call('EXISTS', KEYS[1]) == 1 then
  return 0
end
return redis.call('UNLINK', unpack(KEYS, 2))
";

/// The Lua script of the per-bit [`Transport::Lua`] path (kept by the filter, so its SHA is
/// computed once).
#[must_use]
pub(super) fn add_or_query_script() -> redis::Script {
    redis::Script::new(ADD_OR_QUERY)
}

/// One bit operation: `(shard, offset in the shard, index of the item in the batch)`.
type Op = (u64, u32, u32);

/// The operations on one shard: `(shard, start, end)`, a range of [`Plan::ops`].
type Group = (u64, usize, usize);

/// A batch's bit operations, grouped by shard.
#[derive(Debug)]
pub(super) struct Plan {
    /// Every position of every item, sorted by shard (stable: item order kept within a shard).
    ops: Vec<Op>,
    /// The shard runs of `ops`.
    groups: Vec<Group>,
    /// Items in the batch.
    items: usize,
}

/// The plan for `items` (at most 2^32 of them: the item index travels as a `u32`).
#[must_use]
pub(super) fn plan(l: &Loaded, items: &[&[u8]]) -> Plan {
    let (k, m) = (l.cfg.k, l.cfg.m);
    let mut ops: Vec<Op> = Vec::with_capacity(items.len().saturating_mul(k as usize));
    for (j, item) in items.iter().enumerate() {
        l.strategy.for_each_index(&l.hasher, item, k, m, |i| {
            let (s, o) = l.layout.locate(i);
            // o < shard_bits <= 2^32; j < 2^32 (the filter caps its batch size).
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
    Plan {
        ops,
        groups,
        items: items.len(),
    }
}

/// What one round trip needs: the connection, the filter's name (for key names) and config,
/// and the Lua script.
pub(super) struct Batch<'a> {
    pub(super) conn: &'a mut RedisConn,
    pub(super) name: &'a str,
    pub(super) loaded: &'a Loaded,
    pub(super) script: &'a redis::Script,
    /// TTL in ms a shard gets when an add first writes it (0: none).
    pub(super) ttl_ms: u64,
}

/// `HGET {name}:config gen`: the generation check a pipeline starts with.
pub(super) fn generation_cmd(name: &str) -> Cmd {
    let mut c = redis::cmd("HGET");
    c.arg(config_key(name)).arg(GENERATION);
    c
}

/// The generation a `HGET … gen` reply holds (`None`: no config).
pub(super) fn generation_of(reply: &Value) -> Option<String> {
    match reply {
        Value::BulkString(b) => Some(String::from_utf8_lossy(b).into_owned()),
        Value::SimpleString(s) => Some(s.clone()),
        _ => None,
    }
}

/// [`Error::FilterLost`] for filter `name` opened at generation `opened`, now `found`.
pub(super) fn lost(conn: &RedisConn, name: &str, opened: &str, found: Option<&str>) -> Error {
    Error::FilterLost {
        filter: name.to_string(),
        server: conn.addr().to_string(),
        reason: match found {
            None => format!(
                "its config {} is gone (deleted, flushed, evicted, expired, or lost by a restart \
                 or failover)",
                config_key(name)
            ),
            Some(g) => format!(
                "its config {} now holds generation {g}, not {opened} (the filter was deleted \
                 and created again)",
                config_key(name)
            ),
        },
    }
}

/// `Ok(())` when a generation check's reply is `opened`, else [`Error::FilterLost`].
pub(super) fn check_generation(
    conn: &RedisConn,
    name: &str,
    opened: &str,
    reply: &Value,
) -> Result<()> {
    match generation_of(reply) {
        Some(g) if g == opened => Ok(()),
        found => Err(lost(conn, name, opened, found.as_deref())),
    }
}

impl Batch<'_> {
    /// One round trip: set (`add`) or read the bits of `plan`'s items by `transport`
    /// ([`Transport::Auto`] resolved per batch; `single`: one item, never the bulk path). For
    /// adds, answers per item "some bit was 0" (`None` by the bulk path); for queries, "every
    /// bit was 1".
    ///
    /// # Errors
    /// [`Error::Redis`], naming the key when a shard holds another type.
    pub(super) fn run(
        &mut self,
        plan: &Plan,
        add: bool,
        transport: Transport,
        single: bool,
    ) -> Result<Option<Vec<bool>>> {
        let (ops, groups) = (&plan.ops[..], &plan.groups[..]);
        let layout = self.loaded.layout;
        let bytes: u64 = groups.iter().map(|g| layout.shard_len_bytes(g.0)).sum();
        let t = transport.resolve(add, bytes, ops.len() as u64, single);
        if t == Transport::Bulk {
            return if add {
                self.bulk_add(ops, groups).map(|()| None)
            } else {
                self.bulk_query(ops, groups, plan.items).map(Some)
            };
        }
        let bits = self.bit_ops(t, ops, groups, add)?;
        let mut out = vec![!add; plan.items];
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

    fn shard_key(&self, s: u64) -> String {
        shard_key(self.name, s)
    }

    fn generation(&self) -> &str {
        &self.loaded.generation
    }

    /// A script's error: the generation check's own code becomes [`Error::FilterLost`].
    fn script_error(&mut self, e: &redis::RedisError, groups: &[Group]) -> Error {
        if e.code() == Some(LOST) {
            let found = e
                .detail()
                .and_then(|d| d.split_whitespace().next())
                .filter(|g| *g != "none")
                .map(str::to_string);
            return lost(self.conn, self.name, self.generation(), found.as_deref());
        }
        let what = self.what();
        let err = self.conn.error(e, &what);
        self.diagnose(err, groups)
    }

    fn what(&self) -> String {
        format!("filter {} (keys {{{}}}:bits:*)", self.name, self.name)
    }

    fn bulk_add(&mut self, ops: &[Op], groups: &[Group]) -> Result<()> {
        if ops.is_empty() {
            return Ok(());
        }
        let script = redis::Script::new(BULK_OR);
        let mut inv = script.prepare_invoke();
        inv.key(config_key(self.name));
        inv.key(delta_key(self.name));
        inv.arg(self.generation()).arg(self.ttl_ms);
        for &(s, start, end) in groups {
            let top = ops[start..end].iter().map(|op| op.1).max().unwrap_or(0);
            let mut delta = vec![0u8; top as usize / 8 + 1];
            for op in &ops[start..end] {
                delta[(op.1 / 8) as usize] |= 0x80 >> (op.1 % 8);
            }
            inv.key(self.shard_key(s));
            inv.arg(delta);
        }
        let r: std::result::Result<(), _> = {
            let con = self.conn.raw()?;
            inv.invoke(con)
        };
        r.map_err(|e| self.script_error(&e, groups))
    }

    /// Queries by the bulk path: read every touched shard whole, test the bits locally.
    fn bulk_query(&mut self, ops: &[Op], groups: &[Group], items: usize) -> Result<Vec<bool>> {
        let mut cmds = vec![generation_cmd(self.name)];
        cmds.extend(groups.iter().map(|&(s, _, _)| {
            let mut c = redis::cmd("GETRANGE");
            c.arg(self.shard_key(s)).arg(0).arg(-1);
            c
        }));
        let what = self.what();
        let replies = self.checked(cmds, groups, &what, false)?;
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
        ops: &[Op],
        groups: &[Group],
        add: bool,
    ) -> Result<Vec<bool>> {
        let what = self.what();
        let bits: Vec<bool> = match transport {
            Transport::Pipeline => {
                let mut cmds = Vec::with_capacity(ops.len() + 1 + groups.len());
                cmds.push(generation_cmd(self.name));
                if add {
                    cmds.extend(self.exists_cmds(groups));
                }
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
                cmds.extend(self.expire_cmds(groups, add));
                let replies = self.checked(cmds, groups, &what, add)?;
                replies.iter().map(|v| matches!(v, Value::Int(1))).collect()
            }
            Transport::Bitfield => {
                let mut cmds = Vec::with_capacity(1 + 2 * groups.len());
                cmds.push(generation_cmd(self.name));
                if add {
                    cmds.extend(self.exists_cmds(groups));
                }
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
                cmds.extend(self.expire_cmds(groups, add));
                let replies = self.checked(cmds, groups, &what, add)?;
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
                inv.arg(self.generation()).arg(self.ttl_ms);
                inv.key(config_key(self.name));
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
                    Err(e) => return Err(self.script_error(&e, groups)),
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

    /// `EXISTS shard` for each shard of an add batch: which shard keys the batch creates.
    fn exists_cmds(&self, groups: &[Group]) -> Vec<Cmd> {
        groups
            .iter()
            .map(|&(s, _, _)| {
                let mut c = redis::cmd("EXISTS");
                c.arg(self.shard_key(s));
                c
            })
            .collect()
    }

    /// `PEXPIRE shard ttl NX` for each shard of an add batch when the filter has a TTL (none
    /// otherwise): a shard gets the TTL when it is first written.
    fn expire_cmds(&self, groups: &[Group], add: bool) -> Vec<Cmd> {
        if !add || self.ttl_ms == 0 {
            return Vec::new();
        }
        groups
            .iter()
            .map(|&(s, _, _)| {
                let mut c = redis::cmd("PEXPIRE");
                c.arg(self.shard_key(s)).arg(self.ttl_ms).arg("NX");
                c
            })
            .collect()
    }

    /// Send a pipeline that starts with the generation check (and, for an add by the pipeline
    /// or `BITFIELD` path, one `EXISTS` per shard, and ends, with a TTL, with one `PEXPIRE` per
    /// shard), check the generation, and answer the replies of the commands in between. A failed check is [`Error::FilterLost`]; an add that
    /// failed it removes the shard keys it created while the config is still missing.
    fn checked(
        &mut self,
        cmds: Vec<Cmd>,
        groups: &[Group],
        what: &str,
        add: bool,
    ) -> Result<Vec<Value>> {
        let mut replies = match self.conn.pipeline(cmds, what) {
            Ok(v) => v,
            Err(e) => return Err(self.diagnose(e, groups)),
        };
        let head = if add { 1 + groups.len() } else { 1 };
        if replies.len() < head {
            return Err(Error::Redis {
                target: what.to_string(),
                message: format!("expected at least {head} replies, got {}", replies.len()),
                connection: false,
            });
        }
        let mut rest = replies.split_off(head);
        rest.truncate(rest.len() - self.expire_cmds(groups, add).len().min(rest.len()));
        if let Err(lost) = check_generation(self.conn, self.name, self.generation(), &replies[0]) {
            if add {
                let created: Vec<String> = groups
                    .iter()
                    .zip(&replies[1..])
                    .filter(|(_, existed)| matches!(existed, Value::Int(0)))
                    .map(|(&(s, _, _), _)| self.shard_key(s))
                    .collect();
                self.remove_orphans(&created);
            }
            return Err(lost);
        }
        Ok(rest)
    }

    /// Remove `shards` (keys a failed add created) if the config is still missing. Best effort:
    /// the caller reports the loss whatever happens here.
    fn remove_orphans(&mut self, shards: &[String]) {
        if shards.is_empty() {
            return;
        }
        let script = redis::Script::new(REMOVE_ORPHANS);
        let mut inv = script.prepare_invoke();
        inv.key(config_key(self.name));
        for k in shards {
            inv.key(k);
        }
        if let Ok(con) = self.conn.raw() {
            let _: std::result::Result<Value, _> = inv.invoke(con);
        }
    }

    /// A server error on a batch: if it was WRONGTYPE, find and name the key.
    fn diagnose(&mut self, e: Error, groups: &[Group]) -> Error {
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
}
