//! Moving a whole filter between Redis and this process: [`export`] reads the shards into a local
//! [`StandardBloom`] and [`import`] writes a local filter's bits into the shards, both chunk by
//! chunk (`GETRANGE`/`SETRANGE`), so no reply or command is larger than the chunk.

use super::config::{Loaded, shard_key};
use crate::bits::BitVec;
use crate::error::{Error, Result};
use crate::filters::StandardBloom;
use crate::hash::{AnyHasher, AnyStrategy};
use crate::redis::conn::RedisConn;
use crate::redis::layout::{bitvec_to_redis_bytes, redis_bytes_into_words};
use crate::theory;

/// Read the bits of filter `name` into a local filter, `chunk` bytes per `GETRANGE` (the local
/// filter's insert count is set to the estimated count, since Redis keeps no exact one).
///
/// # Errors
/// [`Error::Redis`]; [`Error::Allocation`].
pub(super) fn export(
    conn: &mut RedisConn,
    name: &str,
    l: &Loaded,
    chunk: u64,
) -> Result<StandardBloom<AnyHasher, AnyStrategy>> {
    let mut words = vec![0u64; l.cfg.m.div_ceil(64) as usize];
    for s in 0..l.layout.shards() {
        let key = shard_key(name, s);
        let len = l.layout.shard_len_bytes(s);
        let mut start = 0;
        while start < len {
            let end = start.saturating_add(chunk).min(len) - 1;
            let bytes: Vec<u8> = conn.query(
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

/// Write `local`'s bits over the shards of filter `name`, `chunk` bytes per `SETRANGE`
/// (replacing what they hold).
///
/// # Errors
/// [`Error::Incompatible`] when the parameters (m, k, hash, seed, strategy) differ;
/// [`Error::Redis`].
pub(super) fn import(
    conn: &mut RedisConn,
    name: &str,
    l: &Loaded,
    local: &StandardBloom<AnyHasher, AnyStrategy>,
    chunk: u64,
) -> Result<()> {
    use crate::filter::Filter;
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
            name,
            l.cfg.m,
            l.cfg.k,
            l.cfg.options.hash,
            l.cfg.options.strategy,
            l.cfg.options.seed
        )));
    }
    for s in 0..l.layout.shards() {
        let key = shard_key(name, s);
        let len = l.layout.shard_len_bytes(s);
        let mut start = 0;
        while start < len {
            let bytes = bitvec_to_redis_bytes(local.bit_vec(), &l.layout, s, start, chunk);
            let _: u64 = conn.query(
                redis::cmd("SETRANGE").arg(&key).arg(start).arg(&bytes),
                &format!("key {key}"),
            )?;
            start += bytes.len() as u64;
        }
    }
    Ok(())
}
