//! The articles' cache-penetration guard, run for real: a SQLite database of products, Redis as
//! the cache, and a [`BitmapBloom`] in front.
//!
//! Flow of one request for product `id` (as the articles draw it):
//! 1. with the filter: the filter says absent → answer "not found" at once;
//! 2. cache `GET`: a product → hit; the null marker → "not found" (a cached miss);
//! 3. database `SELECT`; cache the product (long TTL) or a null marker (short TTL), so repeated
//!    misses — including the filter's false positives — do not reach the database again.
//!
//! [`run`] plays the same request sequence without and with the filter and counts database
//! queries, cache hits and latencies.
//!
//! In Redis the demo writes only keys under its [`PenetrationConfig::prefix`] (by default one of
//! its own per process): the filter, which it creates fresh (an existing filter of that name is
//! refused, never deleted) and deletes at the end, and the cache entries, which it removes after
//! each mode.

use super::db::ProductDb;
use crate::cli::redis::owned::gate;
use bloomlab::hash::mix64;
use bloomlab::redis::{BitmapBloom, RedisConn};
use bloomlab::{Error, Param, Result};
use std::path::Path;
use std::time::Instant;

/// Most products (`--products`): the database is filled one row at a time and the filter is
/// built from every id held in memory.
pub const MAX_PRODUCTS: u64 = 10_000_000;
/// Most requests per mode (`--requests`): each is up to three round trips, and the request
/// sequence and its latencies are held in memory.
pub const MAX_REQUESTS: u64 = 10_000_000;
/// Most distinct missing ids (`--missing-pool`): 2^50, the pool the default draws from, so a
/// missing id (`products + 1 + pick % pool`) stays far below 2^63, SQLite's largest id.
pub const MAX_MISSING_POOL: u64 = 1 << 50;
/// Longest TTL of a cached null result (`--null-ttl`): one year, in seconds.
pub const MAX_TTL_SECS: u64 = 365 * 24 * 3600;

/// Parameters of the demo.
#[derive(Debug, Clone, PartialEq)]
pub struct PenetrationConfig {
    /// Products in the database (ids `1..=products`).
    pub products: u64,
    /// Requests played per mode.
    pub requests: u64,
    /// Share of requests for ids that do not exist (0..=1).
    pub missing_share: f64,
    /// Missing ids come from a pool of this many ids (`None`: practically never repeated, as
    /// in an attack with random ids).
    pub missing_pool: Option<u64>,
    /// The filter's target false-positive rate (the articles suggest 0.1 % for this scenario).
    pub p: f64,
    /// TTL of a cached null result, seconds.
    pub null_ttl_secs: u64,
    /// TTL of a cached product, seconds.
    pub value_ttl_secs: u64,
    /// Workload seed.
    pub seed: u64,
    /// Prefix of every Redis key the demo writes (default: `bloomlab:penetration:<random>`;
    /// the command line gives its run's own).
    pub prefix: String,
    /// Time to live of the filter's keys (`None`: none; the command line gives its `--ttl`).
    pub filter_ttl: Option<std::time::Duration>,
}

impl Default for PenetrationConfig {
    fn default() -> Self {
        Self {
            products: 100_000,
            requests: 100_000,
            missing_share: 0.5,
            missing_pool: None,
            p: 0.001,
            null_ttl_secs: 30,
            value_ttl_secs: 600,
            seed: 42,
            prefix: format!(
                "bloomlab:penetration:{:016x}",
                bloomlab::redis::random_u64()
            ),
            filter_ttl: None,
        }
    }
}

impl PenetrationConfig {
    /// Check the parameters.
    ///
    /// # Errors
    /// [`Error::InvalidParameter`] naming the bad one.
    pub fn check(&self) -> Result<()> {
        let count = |param: &'static str, v: u64, most: u64| {
            if (1..=most).contains(&v) {
                Ok(())
            } else {
                Err(Error::invalid(
                    Param::Other(param),
                    v,
                    format!(
                        "a whole number from 1 to {}",
                        bloomlab::units::thousands(most)
                    ),
                ))
            }
        };
        count("products", self.products, MAX_PRODUCTS)?;
        count("requests", self.requests, MAX_REQUESTS)?;
        count(
            "missing-pool",
            self.missing_pool.unwrap_or(1),
            MAX_MISSING_POOL,
        )?;
        count("null-ttl", self.null_ttl_secs, MAX_TTL_SECS)?;
        count("value-ttl", self.value_ttl_secs, MAX_TTL_SECS)?;
        if !(0.0..=1.0).contains(&self.missing_share) {
            return Err(Error::invalid(
                Param::Other("missing-share"),
                self.missing_share,
                "a share from 0 to 1",
            ));
        }
        bloomlab::theory::check_p(self.p)?;
        Ok(())
    }
}

/// The filter key of product `id` (its decimal digits).
#[must_use]
pub fn item(id: u64) -> Vec<u8> {
    id.to_string().into_bytes()
}

/// The request sequence: `(id, exists)`. Missing ids lie above `products`.
#[must_use]
pub fn workload(cfg: &PenetrationConfig) -> Vec<(u64, bool)> {
    let threshold = (cfg.missing_share * (u64::MAX as f64)) as u64;
    (0..cfg.requests)
        .map(|i| {
            let r = mix64(cfg.seed ^ mix64(i));
            let pick = mix64(r ^ 0x9e37_79b9_7f4a_7c15);
            if cfg.missing_share > 0.0 && r <= threshold {
                let pool = cfg.missing_pool.unwrap_or(MAX_MISSING_POOL);
                (cfg.products + 1 + pick % pool, false)
            } else {
                (1 + pick % cfg.products, true)
            }
        })
        .collect()
}

/// What one mode of the demo measured.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct ModeReport {
    /// `no-filter` or `filter`.
    pub mode: &'static str,
    /// Requests played.
    pub requests: u64,
    /// Requests answered with a product.
    pub found: u64,
    /// Database `SELECT`s.
    pub db_queries: u64,
    /// Requests answered from the cache with a product.
    pub cache_hits: u64,
    /// Requests answered from a cached null marker.
    pub null_hits: u64,
    /// Requests the filter answered "absent" (no cache, no database).
    pub filter_rejects: u64,
    /// Requests for missing ids that the filter let through (false positives).
    pub filter_false_positives: u64,
    /// Requests for existing ids the filter rejected: must be 0 (no false negatives).
    pub filter_false_negatives: u64,
    /// Latency percentiles of one request, microseconds: p50, p90, p99, max.
    pub latency_us: [f64; 4],
    /// Mean latency, microseconds.
    pub mean_us: f64,
}

fn percentile(sorted: &[u64], q: f64) -> f64 {
    if sorted.is_empty() {
        return 0.0;
    }
    let i = ((sorted.len() - 1) as f64 * q).round() as usize;
    sorted[i] as f64 / 1000.0
}

/// Play `requests` through cache (and filter, when given) and database.
///
/// # Errors
/// [`Error::Redis`], [`Error::Io`].
pub fn run_mode(
    cache: &mut RedisConn,
    mut filter: Option<&mut BitmapBloom>,
    db: &mut ProductDb,
    cfg: &PenetrationConfig,
    requests: &[(u64, bool)],
    key_prefix: &str,
) -> Result<ModeReport> {
    let mode = if filter.is_some() {
        "filter"
    } else {
        "no-filter"
    };
    let q0 = db.queries();
    let mut r = ModeReport {
        mode,
        requests: requests.len() as u64,
        found: 0,
        db_queries: 0,
        cache_hits: 0,
        null_hits: 0,
        filter_rejects: 0,
        filter_false_positives: 0,
        filter_false_negatives: 0,
        latency_us: [0.0; 4],
        mean_us: 0.0,
    };
    let mut lat = Vec::with_capacity(requests.len());
    let mut written: Vec<String> = Vec::new();
    for &(id, exists) in requests {
        // A signal waits for this request, then removes the run's keys.
        let _g = gate()?;
        let t = Instant::now();
        if let Some(f) = filter.as_deref_mut() {
            if !f.contains(&item(id))? {
                r.filter_rejects += 1;
                if exists {
                    r.filter_false_negatives += 1;
                }
                lat.push(t.elapsed().as_nanos() as u64);
                continue;
            }
            if !exists {
                r.filter_false_positives += 1;
            }
        }
        let key = format!("{key_prefix}:product:{id}");
        let cached: Option<String> = cache.query(redis::cmd("GET").arg(&key), &key)?;
        match cached {
            Some(v) if v.is_empty() => r.null_hits += 1,
            Some(_) => {
                r.cache_hits += 1;
                r.found += 1;
            }
            None => {
                let row = db.lookup(id)?;
                let (value, ttl) = match &row {
                    Some(v) => {
                        r.found += 1;
                        (v.as_str(), cfg.value_ttl_secs)
                    }
                    None => ("", cfg.null_ttl_secs),
                };
                cache.query::<()>(
                    redis::cmd("SET").arg(&key).arg(value).arg("EX").arg(ttl),
                    &key,
                )?;
                written.push(key);
            }
        }
        lat.push(t.elapsed().as_nanos() as u64);
    }
    r.db_queries = db.queries() - q0;
    lat.sort_unstable();
    r.latency_us = [
        percentile(&lat, 0.5),
        percentile(&lat, 0.9),
        percentile(&lat, 0.99),
        percentile(&lat, 1.0),
    ];
    r.mean_us = lat.iter().sum::<u64>() as f64 / lat.len().max(1) as f64 / 1000.0;
    // Remove what this run cached, so the next run starts cold too.
    let _g = gate()?;
    for chunk in written.chunks(1000) {
        let cmds = chunk
            .iter()
            .map(|k| {
                let mut c = redis::cmd("UNLINK");
                c.arg(k);
                c
            })
            .collect();
        cache.pipeline(cmds, key_prefix)?;
    }
    Ok(r)
}

/// The whole demo's result.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct PenetrationReport {
    /// Without the filter.
    pub without: ModeReport,
    /// With the filter.
    pub with: ModeReport,
    /// Seconds to build the filter from the database ids.
    pub filter_build_secs: f64,
    /// Filter bits and k.
    pub filter_m: u64,
    /// Filter positions per item.
    pub filter_k: u32,
}

/// Run the demo: open (or fill) the database ([`ProductDb::open`]: a database the demo did not
/// create is refused unless `overwrite`), build the filter from it, play the workload without
/// and with the filter. `filter_conn` and `cache` may point at the same server.
///
/// # Errors
/// Invalid parameters; a database the demo did not create; [`Error::Redis`] (also when the
/// filter's name is taken); [`Error::Io`].
pub fn run(
    cache: &mut RedisConn,
    filter_conn: RedisConn,
    db_path: &Path,
    cfg: &PenetrationConfig,
    overwrite: bool,
) -> Result<PenetrationReport> {
    cfg.check()?;
    let mut db = ProductDb::open(db_path, cfg.products, overwrite)?;
    let name = format!("{}:filter", cfg.prefix);
    let mut f = BitmapBloom::new(filter_conn, &name)?;
    f.set_ttl(cfg.filter_ttl);
    if f.config().is_some() {
        return Err(Error::Redis {
            target: format!("key {}", f.config_key()),
            message: format!(
                "a filter named '{name}' already exists; the demo deletes only what it created \
                 (use another prefix, or delete the filter yourself)"
            ),
            connection: false,
        });
    }
    let requests = workload(cfg);
    let without = run_mode(
        cache,
        None,
        &mut db,
        cfg,
        &requests,
        &format!("{}:nofilter", cfg.prefix),
    )?;
    let t = Instant::now();
    let created = {
        let _g = gate()?;
        f.try_init(cfg.products, cfg.p)?
    };
    if !created {
        return Err(Error::Redis {
            target: format!("key {}", f.config_key()),
            message: format!("filter '{name}' was created by someone else meanwhile; left alone"),
            connection: false,
        });
    }
    // From here on the filter is the demo's own: delete it whatever happens.
    let played = fill_and_play(&mut f, cache, &mut db, cfg, &requests, t);
    let deleted = gate().and_then(|_g| f.delete());
    let (with, filter_build_secs, c) = played?;
    deleted?;
    // Nothing is reported on a table that changed under the run.
    db.verify(cfg.products)?;
    Ok(PenetrationReport {
        without,
        with,
        filter_build_secs,
        filter_m: c.m,
        filter_k: c.k,
    })
}

/// Fill the (new) filter from the database's ids, then play the with-filter mode. Answers the
/// mode's report, the seconds from `start` to the filled filter, and the filter's config.
fn fill_and_play(
    f: &mut BitmapBloom,
    cache: &mut RedisConn,
    db: &mut ProductDb,
    cfg: &PenetrationConfig,
    requests: &[(u64, bool)],
    start: Instant,
) -> Result<(ModeReport, f64, bloomlab::redis::BitmapConfig)> {
    let ids: Vec<Vec<u8>> = db.ids()?.into_iter().map(item).collect();
    for chunk in ids.chunks(10_000) {
        let _g = gate()?;
        f.add_many(chunk)?;
    }
    let build_secs = start.elapsed().as_secs_f64();
    let c = f.config().copied().ok_or_else(|| Error::FilterLost {
        filter: f.name().to_string(),
        server: f.conn().addr().to_string(),
        reason: "the handle has no config".into(),
    })?;
    let prefix = format!("{}:withfilter", cfg.prefix);
    let with = run_mode(cache, Some(f), db, cfg, requests, &prefix)?;
    Ok((with, build_secs, c))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn workload_share_and_ranges() {
        let cfg = PenetrationConfig {
            products: 1000,
            requests: 20_000,
            missing_share: 0.3,
            ..PenetrationConfig::default()
        };
        let w = workload(&cfg);
        let missing = w.iter().filter(|r| !r.1).count() as f64 / w.len() as f64;
        assert!((missing - 0.3).abs() < 0.02, "{missing}");
        assert!(w.iter().all(|&(id, e)| if e {
            (1..=1000).contains(&id)
        } else {
            id > 1000
        }));
        let none = workload(&PenetrationConfig {
            missing_share: 0.0,
            ..cfg.clone()
        });
        assert!(none.iter().all(|r| r.1));
        assert!(
            PenetrationConfig {
                missing_share: 1.5,
                ..cfg
            }
            .check()
            .is_err()
        );
    }

    #[test]
    fn every_count_has_an_upper_bound() {
        let ok = PenetrationConfig::default();
        assert_eq!(ok.check(), Ok(()));
        let bad = [
            PenetrationConfig {
                products: MAX_PRODUCTS + 1,
                ..ok.clone()
            },
            PenetrationConfig {
                products: 0,
                ..ok.clone()
            },
            PenetrationConfig {
                requests: MAX_REQUESTS + 1,
                ..ok.clone()
            },
            PenetrationConfig {
                missing_pool: Some(MAX_MISSING_POOL + 1),
                ..ok.clone()
            },
            PenetrationConfig {
                missing_pool: Some(0),
                ..ok.clone()
            },
            PenetrationConfig {
                null_ttl_secs: 0,
                ..ok.clone()
            },
            PenetrationConfig {
                null_ttl_secs: MAX_TTL_SECS + 1,
                ..ok.clone()
            },
        ];
        for cfg in bad {
            assert!(
                matches!(cfg.check(), Err(Error::InvalidParameter { .. })),
                "{cfg:?}"
            );
        }
        // At the bounds the largest missing id stays a valid SQLite id.
        let top = PenetrationConfig {
            products: MAX_PRODUCTS,
            missing_pool: Some(MAX_MISSING_POOL),
            ..ok
        };
        assert_eq!(top.check(), Ok(()));
        assert!(MAX_PRODUCTS + MAX_MISSING_POOL < i64::MAX as u64);
    }

    /// `BLOOMLAB_REDIS_URL` (see `.ci/redis-up.sh`); the tests that call it are `#[ignore]`d
    /// and fail without it when asked for (`--ignored`).
    fn redis_url(test: &str) -> String {
        match std::env::var("BLOOMLAB_REDIS_URL") {
            Ok(u) if !u.is_empty() => u,
            _ => panic!(
                "{test}: BLOOMLAB_REDIS_URL not set: start the servers with \
                 eval \"$(bash .ci/redis-up.sh)\""
            ),
        }
    }

    /// The demo creates its filter fresh: one that exists under its name is refused, not
    /// deleted, and nothing else is written. Needs a server.
    #[test]
    #[ignore = "needs Redis: .ci/redis-up.sh"]
    fn an_existing_filter_of_the_demos_name_is_refused_and_left_alone() {
        let url = redis_url("penetration demo, filter name taken");
        let dir = tempfile::tempdir().unwrap();
        let cfg = PenetrationConfig {
            products: 50,
            requests: 50,
            prefix: format!("bloomlab-test:penetration-taken:{}", std::process::id()),
            ..PenetrationConfig::default()
        };
        let name = format!("{}:filter", cfg.prefix);
        let mut theirs = BitmapBloom::new(RedisConn::open(&url).unwrap(), &name).unwrap();
        theirs.delete().unwrap();
        theirs.try_init(10, 0.01).unwrap();
        theirs.add(b"their item").unwrap();
        let mut cache = RedisConn::open(&url).unwrap();
        let e = run(
            &mut cache,
            RedisConn::open(&url).unwrap(),
            &dir.path().join("db.sqlite"),
            &cfg,
            false,
        )
        .unwrap_err();
        assert!(e.to_string().contains("already exists"), "{e}");
        theirs.reload().unwrap();
        assert!(theirs.contains(b"their item").unwrap());
        let keys: Vec<String> = cache
            .query(redis::cmd("KEYS").arg(format!("*{}*", cfg.prefix)), "KEYS")
            .unwrap();
        assert_eq!(keys.len(), 2, "only their config and shard: {keys:?}");
        theirs.delete().unwrap();
    }

    /// Against a real server (`BLOOMLAB_REDIS_URL`, see `.ci/redis-up.sh`).
    #[test]
    #[ignore = "needs Redis: .ci/redis-up.sh"]
    fn penetration_demo_keeps_missing_ids_away_from_the_database() {
        let url = redis_url("penetration demo");
        let dir = tempfile::tempdir().unwrap();
        let cfg = PenetrationConfig {
            products: 2000,
            requests: 6000,
            missing_share: 0.5,
            prefix: format!("bloomlab-test:penetration:{}", std::process::id()),
            ..PenetrationConfig::default()
        };
        let mut cache = RedisConn::open(&url).unwrap();
        let r = run(
            &mut cache,
            RedisConn::open(&url).unwrap(),
            &dir.path().join("db.sqlite"),
            &cfg,
            false,
        )
        .unwrap();
        let w = workload(&cfg);
        let missing = w.iter().filter(|r| !r.1).count() as u64;
        let distinct_existing = w
            .iter()
            .filter(|r| r.1)
            .map(|r| r.0)
            .collect::<std::collections::HashSet<_>>()
            .len() as u64;
        // Without the filter every missing id (practically all distinct) and every first
        // request of an existing id reaches the database.
        assert_eq!(r.without.db_queries, missing + distinct_existing, "{r:?}");
        assert_eq!(r.without.found, 6000 - missing);
        // With it, only the filter's false positives (p = 0.1 %) of the missing ids do.
        assert_eq!(r.with.filter_false_negatives, 0);
        assert_eq!(r.with.found, 6000 - missing);
        assert_eq!(
            r.with.filter_rejects,
            missing - r.with.filter_false_positives
        );
        assert!(r.with.filter_false_positives < 15, "{r:?}");
        assert_eq!(
            r.with.db_queries,
            distinct_existing + r.with.filter_false_positives
        );
        // The demo left nothing behind in Redis: no filter, no cache entries.
        let left: Vec<String> = cache
            .query(redis::cmd("KEYS").arg(format!("*{}*", cfg.prefix)), "KEYS")
            .unwrap();
        assert!(left.is_empty(), "{left:?}");
    }
}
