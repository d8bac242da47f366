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
//! Tests against a real server run when `BLOOMLAB_REDIS_URL` is set (see `.ci/redis-up.sh`).

pub mod bitmap;
pub mod conn;
pub mod layout;
pub mod module;

pub use bitmap::{BitmapBloom, BitmapConfig, BitmapInfo, BitmapOptions, Transport};
pub use conn::RedisConn;
pub use layout::ShardLayout;
