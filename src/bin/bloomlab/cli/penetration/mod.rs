//! `bloomlab redis penetration` (feature `redis`): the articles' cache-penetration guard, run
//! for real — a SQLite database of products, Redis as the cache, a filter in front. An
//! application of the library, not part of it: [`demo`] plays the requests, [`db`] is the
//! database and the rule that keeps the demo away from data it did not create.
//!
//! Safety: the database is checked before anything connects or writes ([`db::check`]) and
//! locked for the run ([`db::lock`]: a second demo on it is refused), and its table is verified
//! before the report; the default database lives in a private temporary directory (mode 0700),
//! removed at the end (also on a signal); in Redis the demo writes only keys of its own run
//! (random run id, `--key-prefix`, `--ttl`; removed at the end, on an error and on a signal:
//! [`crate::cli::redis::owned`]), after a memory preflight (`--force` skips it).
//!
//! Every count flag has an upper bound, checked while the flags are parsed (exit status 2):
//!
//! | flag | range |
//! |---|---|
//! | `--products` | 1 to [`demo::MAX_PRODUCTS`] (10,000,000) |
//! | `--requests` | 1 to [`demo::MAX_REQUESTS`] (10,000,000) |
//! | `--missing-pool` | 1 to [`demo::MAX_MISSING_POOL`] (2^50) |
//! | `--null-ttl` | 1 to [`demo::MAX_TTL_SECS`] (a year, in seconds) |

pub mod db;
pub mod demo;

use super::out_path::{self, Rules};
use super::redis::owned::{KeyArgs, Run};
use super::{parse_count_in, parse_p};
use crate::cli::out::outln;
use bloomlab::redis::RedisConn;
use bloomlab::redis::memory::ServerMemory;
use bloomlab::{Error, Param, Result};
use demo::{MAX_MISSING_POOL, MAX_PRODUCTS, MAX_REQUESTS, MAX_TTL_SECS, PenetrationConfig};
use indicatif::ProgressBar;
use std::path::PathBuf;

fn parse_products(s: &str) -> std::result::Result<u64, String> {
    parse_count_in(s, Param::Other("products"), 1..=MAX_PRODUCTS)
}

fn parse_requests(s: &str) -> std::result::Result<u64, String> {
    parse_count_in(s, Param::Other("requests"), 1..=MAX_REQUESTS)
}

fn parse_missing_pool(s: &str) -> std::result::Result<u64, String> {
    parse_count_in(s, Param::Other("missing-pool"), 1..=MAX_MISSING_POOL)
}

fn parse_null_ttl(s: &str) -> std::result::Result<u64, String> {
    parse_count_in(s, Param::Other("null-ttl"), 1..=MAX_TTL_SECS)
}

/// A new directory only this user can enter (mode 0700 on Unix), under the system's temporary
/// directory; removed when the value is dropped.
///
/// # Errors
/// [`Error::Io`].
pub fn private_dir() -> Result<tempfile::TempDir> {
    let mut b = tempfile::Builder::new();
    b.prefix("bloomlab-penetration-");
    #[cfg(unix)]
    let mode = {
        use std::os::unix::fs::PermissionsExt;
        std::fs::Permissions::from_mode(0o700)
    };
    #[cfg(unix)]
    b.permissions(mode);
    b.tempdir().map_err(|e| Error::Io {
        path: std::env::temp_dir().display().to_string(),
        message: format!("cannot create a private temporary directory: {e}"),
    })
}

/// Arguments of `bloomlab redis penetration`.
#[derive(Debug, clap::Args)]
pub struct Args {
    /// Redis URL (comma-separated seed URLs for a cluster).
    #[arg(long)]
    url: String,
    /// Products in the database (1 to 10,000,000).
    #[arg(long, default_value_t = 100_000, value_parser = parse_products)]
    products: u64,
    /// Requests per mode (1 to 10,000,000).
    #[arg(long, default_value_t = 100_000, value_parser = parse_requests)]
    requests: u64,
    /// Share of requests for ids that do not exist.
    #[arg(long, default_value_t = 0.5)]
    missing_share: f64,
    /// Draw missing ids from a pool of this many, 1 to 2^50 (default: 2^50, practically never
    /// repeated).
    #[arg(long, value_parser = parse_missing_pool)]
    missing_pool: Option<u64>,
    /// Filter false-positive rate.
    #[arg(long, default_value = "0.001", value_parser = parse_p)]
    p: f64,
    /// TTL of cached null results, seconds (1 to 31,536,000: a year).
    #[arg(long, default_value_t = 30, value_parser = parse_null_ttl)]
    null_ttl: u64,
    /// SQLite database file. A new file is created and marked as the demo's (table
    /// bloomlab_demo); an existing one must be the demo's, else it is refused (see
    /// --overwrite). Default: a private temporary directory, removed afterwards.
    #[arg(long)]
    db: Option<PathBuf>,
    /// Let the demo replace the products table of an existing database it did not create
    /// (its other tables are left alone).
    #[arg(long)]
    overwrite: bool,
    /// Workload seed.
    #[arg(long, default_value_t = 42)]
    seed: u64,
    /// CSV output (replaced atomically; its directory created if missing). Checked with
    /// --db before connecting: a directory, device, FIFO, symbolic link, read-only file, a file
    /// that is not text or the --db itself is refused.
    #[arg(long, default_value = "results/redis/penetration.csv")]
    out: PathBuf,
    /// Write through symbolic links at --out and --db to the files they point to.
    #[arg(long)]
    follow_symlinks: bool,
    /// Skip the memory preflight: run even when the filter and the cache entries do not fit in
    /// the server's free memory.
    #[arg(long)]
    force: bool,
    #[command(flatten)]
    key_args: KeyArgs,
}

/// Bytes a cached entry takes in Redis, for the preflight (a key of some 40 bytes, a value of
/// some 20, and Redis' per-key overhead): an estimate, on the high side.
const CACHE_ENTRY_BYTES: u64 = 128;

/// Refuse a run whose filter and cache entries (one mode's: the first mode's are removed before
/// the second) do not fit in the server's free memory.
///
/// # Errors
/// [`Error::InvalidParameter`] naming products with the numbers; [`Error::Redis`].
fn preflight(conn: &mut RedisConn, cfg: &PenetrationConfig) -> Result<()> {
    let s = bloomlab::theory::size_for(cfg.products, cfg.p)?;
    let need = s.m.div_ceil(8) + cfg.requests.saturating_mul(CACHE_ENTRY_BYTES);
    let mem = ServerMemory::read(conn)?;
    if mem.fits(need) {
        return Ok(());
    }
    Err(Error::invalid(
        Param::Other("products"),
        format!(
            "{} products and {} requests at p = {} need about {} in Redis",
            bloomlab::units::thousands(cfg.products),
            bloomlab::units::thousands(cfg.requests),
            bloomlab::units::format_prob(cfg.p),
            bloomlab::units::format_bytes_short(need as f64)
        ),
        format!(
            "a run that fits the server {} ({}); fewer products or requests, or --force",
            conn.addr(),
            mem.describe()
        ),
    ))
}

/// One row of `penetration.csv`.
#[derive(Debug, serde::Serialize)]
struct PenRow {
    mode: &'static str,
    products: u64,
    requests: u64,
    missing_share: f64,
    filter_p: f64,
    found: u64,
    db_queries: u64,
    cache_hits: u64,
    null_hits: u64,
    filter_rejects: u64,
    filter_false_positives: u64,
    filter_false_negatives: u64,
    p50_us: f64,
    p90_us: f64,
    p99_us: f64,
    max_us: f64,
    mean_us: f64,
}

/// Run `bloomlab redis penetration`: check the database first (before any connection), then
/// connect, play, print and write the CSV.
///
/// # Errors
/// Bad flags; a database the demo did not create (without `--overwrite`); Redis or file errors.
pub fn run(a: &Args) -> Result<()> {
    let cfg = PenetrationConfig {
        products: a.products,
        requests: a.requests,
        missing_share: a.missing_share,
        missing_pool: a.missing_pool,
        p: a.p,
        null_ttl_secs: a.null_ttl,
        seed: a.seed,
        ..PenetrationConfig::default()
    };
    cfg.check()?;
    // The output and the database first: a refusal must come before any connection or write.
    let db_arg = a.db.as_deref().map(|d| ("--db", d));
    let out = out_path::check_with(&a.out, Rules::csv(db_arg.as_slice(), a.follow_symlinks))?;
    let (db, _private, _lock) = match &a.db {
        Some(path) => {
            out_path::check_with(path, Rules::db(&[("--out", &a.out)], a.follow_symlinks))?;
            let lock = db::lock(path)?;
            db::check(path, a.overwrite)?;
            (path.clone(), None, Some(lock))
        }
        None => {
            let dir = private_dir()?;
            (dir.path().join("products.sqlite"), Some(dir), None)
        }
    };
    // From here on the run's keys are its own: removed when `run` is dropped (an error too)
    // or on a signal, with the private directory; every key expires after --ttl.
    let run = Run::start(&a.key_args, "penetration", &a.url);
    if let Some(dir) = &_private {
        run.own_dir(dir.path().to_path_buf());
    }
    if let Some(lock) = &_lock {
        run.own_dir(lock.path().to_path_buf());
    }
    let ttl = run.ttl().as_secs();
    let cfg = PenetrationConfig {
        prefix: run.base().to_string(),
        filter_ttl: Some(run.ttl()),
        null_ttl_secs: cfg.null_ttl_secs.min(ttl),
        value_ttl_secs: cfg.value_ttl_secs.min(ttl),
        ..cfg
    };
    run.own_filter(&format!("{}:filter", cfg.prefix));
    let mut cache = RedisConn::open(&a.url)?;
    if !a.force {
        preflight(&mut cache, &cfg)?;
    }
    let filter_conn = RedisConn::open(&a.url)?;
    let pb = ProgressBar::new_spinner();
    pb.set_message("playing the workload without, then with the filter");
    pb.enable_steady_tick(std::time::Duration::from_millis(200));
    let r = demo::run(&mut cache, filter_conn, &db, &cfg, a.overwrite);
    pb.finish_and_clear();
    let r = r?;
    drop(run);
    let place = if a.db.is_some() {
        db.display().to_string()
    } else {
        "a private temporary directory, removed afterwards".to_string()
    };
    outln!(
        "{} products in {} (SQLite), {} requests per mode, {:.0}% for missing ids{}; filter m = {}, k = {}, p = {}, built from the database in {:.2} s",
        a.products,
        place,
        a.requests,
        a.missing_share * 100.0,
        a.missing_pool
            .map_or(String::new(), |k| format!(" (from a pool of {k})")),
        r.filter_m,
        r.filter_k,
        a.p,
        r.filter_build_secs
    )?;
    outln!(
        "{:<10} {:>10} {:>10} {:>10} {:>10} {:>10} {:>8} {:>4} {:>9} {:>9} {:>9} {:>9}",
        "mode",
        "db queries",
        "cache hits",
        "null hits",
        "rejected",
        "found",
        "FP",
        "FN",
        "p50 µs",
        "p90 µs",
        "p99 µs",
        "mean µs"
    )?;
    let mut rows = Vec::new();
    for m in [&r.without, &r.with] {
        outln!(
            "{:<10} {:>10} {:>10} {:>10} {:>10} {:>10} {:>8} {:>4} {:>9.1} {:>9.1} {:>9.1} {:>9.1}",
            m.mode,
            m.db_queries,
            m.cache_hits,
            m.null_hits,
            m.filter_rejects,
            m.found,
            m.filter_false_positives,
            m.filter_false_negatives,
            m.latency_us[0],
            m.latency_us[1],
            m.latency_us[2],
            m.mean_us
        )?;
        rows.push(PenRow {
            mode: m.mode,
            products: a.products,
            requests: a.requests,
            missing_share: a.missing_share,
            filter_p: a.p,
            found: m.found,
            db_queries: m.db_queries,
            cache_hits: m.cache_hits,
            null_hits: m.null_hits,
            filter_rejects: m.filter_rejects,
            filter_false_positives: m.filter_false_positives,
            filter_false_negatives: m.filter_false_negatives,
            p50_us: m.latency_us[0],
            p90_us: m.latency_us[1],
            p99_us: m.latency_us[2],
            max_us: m.latency_us[3],
            mean_us: m.mean_us,
        });
    }
    let avoided = r.without.db_queries.saturating_sub(r.with.db_queries);
    outln!(
        "database queries avoided by the filter: {avoided} of {} ({:.1}%)",
        r.without.db_queries,
        100.0 * avoided as f64 / r.without.db_queries.max(1) as f64
    )?;
    out.write_csv(&rows)?;
    outln!("wrote {}", a.out.display())?;
    if r.with.filter_false_negatives > 0 {
        // Exit status 4: the guard turned away real products.
        return Err(Error::Correctness(format!(
            "the filter answered absent for {} request(s) of existing products: a Bloom filter \
             never does, so its keys were changed under the run; the table is not to be trusted",
            bloomlab::units::thousands(r.with.filter_false_negatives)
        )));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_default_database_directory_is_private_and_removed() {
        let dir = private_dir().unwrap();
        let path = dir.path().to_path_buf();
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            let mode = std::fs::metadata(&path).unwrap().permissions().mode();
            assert_eq!(mode & 0o777, 0o700, "{mode:o}");
        }
        std::fs::write(path.join("products.sqlite"), b"x").unwrap();
        drop(dir);
        assert!(!path.exists());
    }
}
