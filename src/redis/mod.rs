//! Filters shared through Redis (feature `redis`): several processes see one filter, and it
//! survives their restarts.
//!
//! | type | where the hashing happens | Redis side |
//! |---|---|---|
//! | [`BitmapBloom`] | in this process ([`crate::hash`], same positions as [`crate::StandardBloom`]) | plain string keys (bitmaps), sharded, any Redis ≥ 6.2 or Cluster |
//! | [`module::BfFilter`], [`module::CfFilter`] | on the server | the RedisBloom module (`BF.*`, `CF.*`) |
//!
//! Every batch operation costs one round trip ([`Transport`] says how the bit operations
//! travel: per bit by `SETBIT`/`BITFIELD`/Lua, or word-parallel by a delta bitmap and
//! `BITOP OR` for big batches), never k round trips per item. Failures are [`crate::Error::Redis`], naming the server,
//! the key or the module.
//!
//! The articles' cache-penetration guard (filter → cache → database) is an application of these
//! types, not part of the library: the binary's `bloomlab redis penetration` runs it against a
//! SQLite database (`src/bin/bloomlab/cli/penetration/`).
//!
//! **After data loss.** A [`BitmapBloom`] never answers for a filter that is not the one it
//! opened. Every batch checks the filter's generation id (a random id stored in its config when
//! it is created) in the same round trip as its bit operations. After a reconnect, a server
//! restart without persistence, a failover to an empty replica, `FLUSHDB`, eviction, expiry, a
//! deleted config or a filter re-created under the same name, every call answers
//! [`crate::Error::FilterLost`] — never a "not present" that could be a false negative — until
//! the caller rebuilds the filter and calls [`BitmapBloom::reload`]. Adds never leave a shard
//! without its config: the Lua and bulk paths check before writing (atomically), the pipeline
//! and `BITFIELD` paths remove, in one script that runs only if the config is still missing,
//! the shard keys the failed batch created.
//!
//! **Untrusted configs.** A config read from Redis is input: its fields are bounded before
//! anything is allocated from it ([`crate::Error::RedisCorrupt`] otherwise).
//!
//! Tests against a real server (`tests/redis.rs`, `tests/redis_integrity.rs`, the penetration
//! demo's) are `#[ignore = "needs Redis: .ci/redis-up.sh"]`d: they run with `--include-ignored`
//! after `.ci/redis-up.sh`, as `.ci/run` does, and fail if their server is not configured.

pub mod bitmap;
pub mod conn;
pub mod layout;
pub mod memory;
pub mod module;

pub use bitmap::{BitmapBloom, BitmapConfig, BitmapInfo, BitmapOptions, Transport};
pub use conn::RedisConn;
pub use layout::ShardLayout;

/// 64 random bits from the operating system (`/dev/urandom`), or, where that cannot be read,
/// from the standard library's randomly keyed hasher over the time and a counter: the generation
/// ids of filters and the run ids of the command line, unique across hosts and containers
/// (unlike a process id).
#[must_use]
pub fn random_u64() -> u64 {
    use std::hash::BuildHasher;
    use std::io::Read;
    use std::sync::atomic::{AtomicU64, Ordering};
    let mut buf = [0u8; 8];
    if std::fs::File::open("/dev/urandom")
        .and_then(|mut f| f.read_exact(&mut buf))
        .is_ok()
    {
        return u64::from_le_bytes(buf);
    }
    static COUNTER: AtomicU64 = AtomicU64::new(0);
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_nanos());
    std::collections::hash_map::RandomState::new().hash_one((
        nanos,
        COUNTER.fetch_add(1, Ordering::Relaxed),
        std::process::id(),
    ))
}
