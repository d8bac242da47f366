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

use super::bitmap::BitmapBloom;
use super::conn::RedisConn;
use crate::error::{Error, Param, Result};
use crate::hash::mix64;
use std::path::Path;
use std::time::Instant;

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
    /// Prefix of every Redis key the demo writes.
    pub prefix: String,
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
            prefix: "bloomlab:penetration".into(),
        }
    }
}

impl PenetrationConfig {
    /// Check the parameters.
    ///
    /// # Errors
    /// [`Error::InvalidParameter`] naming the bad one.
    pub fn check(&self) -> Result<()> {
        if self.products == 0 || self.products > 1 << 40 {
            return Err(Error::invalid(
                Param::Other("products"),
                self.products,
                "1 to 2^40",
            ));
        }
        if self.requests == 0 {
            return Err(Error::invalid(Param::Other("requests"), 0, "at least 1"));
        }
        if !(0.0..=1.0).contains(&self.missing_share) {
            return Err(Error::invalid(
                Param::Other("missing-share"),
                self.missing_share,
                "a share from 0 to 1",
            ));
        }
        if self.missing_pool == Some(0) {
            return Err(Error::invalid(
                Param::Other("missing-pool"),
                0,
                "at least 1",
            ));
        }
        crate::theory::check_p(self.p)?;
        Ok(())
    }
}

/// The product database (a SQLite file).
#[derive(Debug)]
pub struct ProductDb {
    conn: rusqlite::Connection,
    path: String,
    queries: u64,
}

fn db_err(path: &str, e: &rusqlite::Error) -> Error {
    Error::Io {
        path: path.to_string(),
        message: format!("sqlite: {e}"),
    }
}

impl ProductDb {
    /// Open `path`, creating or refilling it so that it holds exactly `products` products.
    ///
    /// # Errors
    /// [`Error::Io`] naming the file.
    pub fn open(path: &Path, products: u64) -> Result<Self> {
        let p = path.display().to_string();
        let conn = rusqlite::Connection::open(path).map_err(|e| db_err(&p, &e))?;
        conn.execute_batch(
            "CREATE TABLE IF NOT EXISTS products (
                 id INTEGER PRIMARY KEY, name TEXT NOT NULL, price_cents INTEGER NOT NULL)",
        )
        .map_err(|e| db_err(&p, &e))?;
        let (count, max): (i64, i64) = conn
            .query_row(
                "SELECT COUNT(*), COALESCE(MAX(id), 0) FROM products",
                [],
                |r| Ok((r.get(0)?, r.get(1)?)),
            )
            .map_err(|e| db_err(&p, &e))?;
        let want = i64::try_from(products).unwrap_or(i64::MAX);
        if count != want || max != want {
            conn.execute_batch("DELETE FROM products; BEGIN;")
                .map_err(|e| db_err(&p, &e))?;
            {
                let mut st = conn
                    .prepare("INSERT INTO products (id, name, price_cents) VALUES (?1, ?2, ?3)")
                    .map_err(|e| db_err(&p, &e))?;
                for id in 1..=want {
                    st.execute(rusqlite::params![
                        id,
                        format!("product {id}"),
                        (mix64(id as u64) % 100_000) as i64
                    ])
                    .map_err(|e| db_err(&p, &e))?;
                }
            }
            conn.execute_batch("COMMIT;").map_err(|e| db_err(&p, &e))?;
        }
        Ok(Self {
            conn,
            path: p,
            queries: 0,
        })
    }

    /// `SELECT` one product; counts a database query.
    ///
    /// # Errors
    /// [`Error::Io`].
    pub fn lookup(&mut self, id: u64) -> Result<Option<String>> {
        self.queries += 1;
        let mut st = self
            .conn
            .prepare_cached("SELECT name, price_cents FROM products WHERE id = ?1")
            .map_err(|e| db_err(&self.path, &e))?;
        let mut rows = st
            .query([i64::try_from(id).unwrap_or(i64::MAX)])
            .map_err(|e| db_err(&self.path, &e))?;
        match rows.next().map_err(|e| db_err(&self.path, &e))? {
            Some(r) => {
                let name: String = r.get(0).map_err(|e| db_err(&self.path, &e))?;
                let price: i64 = r.get(1).map_err(|e| db_err(&self.path, &e))?;
                Ok(Some(format!("{name}|{price}")))
            }
            None => Ok(None),
        }
    }

    /// Every product id, ascending (for building the filter from the database).
    ///
    /// # Errors
    /// [`Error::Io`].
    pub fn ids(&self) -> Result<Vec<u64>> {
        let mut st = self
            .conn
            .prepare("SELECT id FROM products ORDER BY id")
            .map_err(|e| db_err(&self.path, &e))?;
        let ids = st
            .query_map([], |r| r.get::<_, i64>(0))
            .map_err(|e| db_err(&self.path, &e))?
            .map(|r| r.map(|v| v as u64).map_err(|e| db_err(&self.path, &e)))
            .collect::<Result<Vec<_>>>()?;
        Ok(ids)
    }

    /// Queries made so far.
    #[must_use]
    pub fn queries(&self) -> u64 {
        self.queries
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
                let pool = cfg.missing_pool.unwrap_or(1 << 50);
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

/// Run the demo: open (or fill) the database, build the filter from it, play the workload
/// without and with the filter. `filter_conn` and `cache` may point at the same server.
///
/// # Errors
/// Invalid parameters; [`Error::Redis`]; [`Error::Io`].
pub fn run(
    cache: &mut RedisConn,
    filter_conn: RedisConn,
    db_path: &Path,
    cfg: &PenetrationConfig,
) -> Result<PenetrationReport> {
    cfg.check()?;
    let mut db = ProductDb::open(db_path, cfg.products)?;
    let requests = workload(cfg);
    let without = run_mode(
        cache,
        None,
        &mut db,
        cfg,
        &requests,
        &format!("{}:nofilter", cfg.prefix),
    )?;
    let mut f = BitmapBloom::new(filter_conn, &format!("{}:filter", cfg.prefix))?;
    f.delete()?;
    let t = Instant::now();
    f.try_init(cfg.products, cfg.p)?;
    let ids: Vec<Vec<u8>> = db.ids()?.into_iter().map(item).collect();
    f.add_many(&ids)?;
    let filter_build_secs = t.elapsed().as_secs_f64();
    let with = run_mode(
        cache,
        Some(&mut f),
        &mut db,
        cfg,
        &requests,
        &format!("{}:withfilter", cfg.prefix),
    )?;
    let c = f
        .config()
        .copied()
        .ok_or_else(|| Error::Corrupt("filter vanished".into()))?;
    f.delete()?;
    Ok(PenetrationReport {
        without,
        with,
        filter_build_secs,
        filter_m: c.m,
        filter_k: c.k,
    })
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
    fn sqlite_database_holds_the_products() {
        let dir = std::env::temp_dir().join(format!("bloomlab-pen-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("p.sqlite");
        let mut db = ProductDb::open(&path, 50).unwrap();
        assert!(db.lookup(50).unwrap().unwrap().starts_with("product 50|"));
        assert_eq!(db.lookup(51).unwrap(), None);
        assert_eq!(db.queries(), 2);
        assert_eq!(db.ids().unwrap().len(), 50);
        drop(db);
        // Reopening with another size refills.
        let db = ProductDb::open(&path, 20).unwrap();
        assert_eq!(db.ids().unwrap(), (1..=20).collect::<Vec<_>>());
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
