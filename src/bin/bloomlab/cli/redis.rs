//! `bloomlab redis …`: filters in Redis (feature `redis`).
//!
//! - `compare`: our client-hashed bitmap filter (each transport) against RedisBloom's `BF.*`
//!   and `CF.*` on the same keys: adds/s, queries/s, measured FPR, server memory.
//! - `penetration`: the articles' cache-penetration guard with SQLite behind Redis.

use super::{parse_n, parse_p};
use bloomlab::redis::module::{BfFilter, CfFilter};
use bloomlab::redis::penetration::{self, PenetrationConfig};
use bloomlab::redis::{BitmapBloom, RedisConn, Transport};
use bloomlab::workload::{KeyGen, KeyKind};
use bloomlab::{Error, Param, Result, stats, theory};
use indicatif::{ProgressBar, ProgressStyle};
use std::path::{Path, PathBuf};
use std::time::Instant;

/// Arguments of `bloomlab redis`.
#[derive(Debug, clap::Args)]
pub struct Args {
    #[command(subcommand)]
    cmd: Sub,
}

#[derive(Debug, clap::Subcommand)]
enum Sub {
    /// Our bitmap filter vs RedisBloom (BF.* and CF.*) on the same keys.
    Compare(CompareArgs),
    /// Cache-penetration demo: filter → Redis cache → SQLite, with and without the filter.
    Penetration(PenetrationArgs),
}

/// Arguments of `bloomlab redis compare`.
#[derive(Debug, clap::Args)]
pub struct CompareArgs {
    /// Redis URL (comma-separated seed URLs for a cluster).
    #[arg(long)]
    url: String,
    /// Items to insert.
    #[arg(long, default_value_t = 1_000_000, value_parser = parse_n)]
    n: u64,
    /// Target false-positive rate (0.01, 1%, 1/100).
    #[arg(long, default_value = "0.01", value_parser = parse_p)]
    p: f64,
    /// Absent keys to query (default: n).
    #[arg(long, value_parser = parse_n)]
    queries: Option<u64>,
    /// Items per round trip.
    #[arg(long, default_value_t = 1000)]
    batch: usize,
    /// Transports of our filter to run: all, pipeline, lua, bitfield.
    #[arg(long, default_value = "all")]
    transport: String,
    /// Key kind: u64, seq, string, email, url.
    #[arg(long, default_value = "string")]
    keys: String,
    /// Workload seed.
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// Skip RedisBloom (a server without the module).
    #[arg(long)]
    no_module: bool,
    /// CSV output.
    #[arg(long, default_value = "results/redis/compare.csv")]
    out: PathBuf,
}

/// Arguments of `bloomlab redis penetration`.
#[derive(Debug, clap::Args)]
pub struct PenetrationArgs {
    /// Redis URL (comma-separated seed URLs for a cluster).
    #[arg(long)]
    url: String,
    /// Products in the database.
    #[arg(long, default_value_t = 100_000, value_parser = parse_n)]
    products: u64,
    /// Requests per mode.
    #[arg(long, default_value_t = 100_000, value_parser = parse_n)]
    requests: u64,
    /// Share of requests for ids that do not exist.
    #[arg(long, default_value_t = 0.5)]
    missing_share: f64,
    /// Draw missing ids from a pool of this many (default: practically never repeated).
    #[arg(long, value_parser = parse_n)]
    missing_pool: Option<u64>,
    /// Filter false-positive rate.
    #[arg(long, default_value = "0.001", value_parser = parse_p)]
    p: f64,
    /// TTL of cached null results, seconds.
    #[arg(long, default_value_t = 30)]
    null_ttl: u64,
    /// SQLite database file (created and filled when needed).
    #[arg(long)]
    db: Option<PathBuf>,
    /// Workload seed.
    #[arg(long, default_value_t = 42)]
    seed: u64,
    /// CSV output.
    #[arg(long, default_value = "results/redis/penetration.csv")]
    out: PathBuf,
}

/// Run `bloomlab redis …`.
///
/// # Errors
/// Bad flags, Redis or file errors.
pub fn run(a: &Args) -> Result<()> {
    match &a.cmd {
        Sub::Compare(c) => compare(c),
        Sub::Penetration(p) => penetration(p),
    }
}

/// One row of `compare.csv`.
#[derive(Debug, serde::Serialize)]
struct Row {
    filter: String,
    transport: String,
    n: u64,
    p: f64,
    batch: usize,
    adds_per_s: f64,
    hit_queries_per_s: f64,
    miss_queries_per_s: f64,
    queries: u64,
    false_positives: u64,
    fpr: f64,
    fpr_lo: f64,
    fpr_hi: f64,
    false_negatives: u64,
    memory_bytes: u64,
    bits_per_key: f64,
    round_trips: u64,
}

fn bar(len: u64, what: &str) -> ProgressBar {
    let pb = ProgressBar::new(len);
    if let Ok(style) =
        ProgressStyle::with_template("{msg:28} [{bar:40}] {pos}/{len} {per_sec} eta {eta}")
    {
        pb.set_style(style.progress_chars("=> "));
    }
    pb.set_message(what.to_string());
    pb
}

/// Run `op` over `items` in chunks of `batch`, with a progress bar; returns the answers and the
/// seconds spent.
fn timed<F>(items: &[Vec<u8>], batch: usize, what: &str, mut op: F) -> Result<(Vec<bool>, f64)>
where
    F: FnMut(&[Vec<u8>]) -> Result<Vec<bool>>,
{
    let pb = bar(items.len() as u64, what);
    let mut out = Vec::with_capacity(items.len());
    let t = Instant::now();
    // Progress in steps of ~100 batches (so the bar costs nothing measurable).
    for chunk in items.chunks(batch * 100) {
        out.extend(op(chunk)?);
        pb.inc(chunk.len() as u64);
    }
    let secs = t.elapsed().as_secs_f64();
    pb.finish_and_clear();
    Ok((out, secs))
}

struct Measured {
    adds_s: f64,
    hits: (Vec<bool>, f64),
    misses: (Vec<bool>, f64),
    memory: u64,
    round_trips: u64,
}

fn row(name: &str, transport: &str, a: &CompareArgs, m: &Measured) -> Row {
    let fp = m.misses.0.iter().filter(|&&b| b).count() as u64;
    let q = m.misses.0.len() as u64;
    let (lo, hi) = stats::wilson(fp, q, 1.96);
    Row {
        filter: name.into(),
        transport: transport.into(),
        n: a.n,
        p: a.p,
        batch: a.batch,
        adds_per_s: a.n as f64 / m.adds_s,
        hit_queries_per_s: m.hits.0.len() as f64 / m.hits.1,
        miss_queries_per_s: q as f64 / m.misses.1,
        queries: q,
        false_positives: fp,
        fpr: fp as f64 / q as f64,
        fpr_lo: lo,
        fpr_hi: hi,
        false_negatives: m.hits.0.iter().filter(|&&b| !b).count() as u64,
        memory_bytes: m.memory,
        bits_per_key: m.memory as f64 * 8.0 / a.n as f64,
        round_trips: m.round_trips,
    }
}

fn compare(a: &CompareArgs) -> Result<()> {
    theory::check_n(a.n)?;
    KeyGen::check_n(a.n)?;
    if a.batch == 0 {
        return Err(Error::invalid(Param::Other("batch"), 0, "at least 1"));
    }
    let kind: KeyKind = a.keys.parse()?;
    let transports: Vec<Transport> = if a.transport.eq_ignore_ascii_case("all") {
        Transport::ALL.to_vec()
    } else {
        a.transport
            .split(',')
            .map(str::parse)
            .collect::<Result<_>>()?
    };
    let q = a.queries.unwrap_or(a.n);
    let g = KeyGen::new(kind, a.seed);
    let present: Vec<Vec<u8>> = (0..a.n).map(|i| g.present_key(i)).collect();
    let absent: Vec<Vec<u8>> = (0..q).map(|j| g.absent_key(j)).collect();
    // Hit queries on (up to) the first q present keys.
    let hits_n = q.min(a.n) as usize;
    let mut rows = Vec::new();
    let prefix = format!("bloomlab:compare:{}", std::process::id());

    for t in &transports {
        let mut f = BitmapBloom::new(RedisConn::open(&a.url)?, &format!("{prefix}:bitmap"))?;
        f.delete()?;
        f.try_init(a.n, a.p)?;
        f.set_transport(*t);
        f.set_batch(a.batch);
        let r0 = f.conn().round_trips();
        let (_, adds_s) = timed(&present, a.batch, &format!("bitmap/{t} add"), |c| {
            f.add_many(c).map(|_| Vec::new())
        })?;
        let round_trips = f.conn().round_trips() - r0;
        let hits = timed(
            &present[..hits_n],
            a.batch,
            &format!("bitmap/{t} query hit"),
            |c| f.contains_many(c),
        )?;
        let misses = timed(&absent, a.batch, &format!("bitmap/{t} query miss"), |c| {
            f.contains_many(c)
        })?;
        let memory = f.info()?.memory_bytes;
        f.delete()?;
        rows.push(row(
            "bitmap",
            t.name(),
            a,
            &Measured {
                adds_s,
                hits,
                misses,
                memory,
                round_trips,
            },
        ));
    }

    if !a.no_module {
        // RedisBloom's default (scaling) filter gives its first layer half the asked rate so the
        // whole series stays under p; NONSCALING uses p itself — both are shown.
        for nonscaling in [false, true] {
            let key = format!("{prefix}:bf");
            let mut c = RedisConn::open(&a.url)?;
            c.query::<()>(redis::cmd("DEL").arg(&key), &key)?;
            let mut bf = BfFilter::reserve(c, &key, a.p, a.n, nonscaling)?;
            bf.set_batch(a.batch);
            let r0 = bf.conn().round_trips();
            let (_, adds_s) = timed(&present, a.batch, "redisbloom BF.MADD", |c| {
                bf.add_many(c).map(|_| Vec::new())
            })?;
            let round_trips = bf.conn().round_trips() - r0;
            let hits = timed(
                &present[..hits_n],
                a.batch,
                "redisbloom BF.MEXISTS hit",
                |c| bf.contains_many(c),
            )?;
            let misses = timed(&absent, a.batch, "redisbloom BF.MEXISTS miss", |c| {
                bf.contains_many(c)
            })?;
            let memory = bf.memory()?;
            let info = bf.info()?;
            bf.delete()?;
            let mut r = row(
                if nonscaling {
                    "redisbloom-bf-nonscaling"
                } else {
                    "redisbloom-bf"
                },
                "BF.MADD/BF.MEXISTS",
                a,
                &Measured {
                    adds_s,
                    hits,
                    misses,
                    memory,
                    round_trips,
                },
            );
            r.transport = format!(
                "{} ({})",
                r.transport,
                info.iter()
                    .filter(|(k, _)| k == "Size" || k == "Number of filters")
                    .map(|(k, v)| format!("{k} {v}"))
                    .collect::<Vec<_>>()
                    .join("; ")
            );
            rows.push(r);
        }

        let key = format!("{prefix}:cf");
        let mut c = RedisConn::open(&a.url)?;
        c.query::<()>(redis::cmd("DEL").arg(&key), &key)?;
        let mut cf = CfFilter::reserve(c, &key, a.n)?;
        cf.set_batch(a.batch);
        let r0 = cf.conn().round_trips();
        let (_, adds_s) = timed(&present, a.batch, "redisbloom CF.ADD", |c| {
            cf.add_many(c).map(|_| Vec::new())
        })?;
        let round_trips = cf.conn().round_trips() - r0;
        let hits = timed(
            &present[..hits_n],
            a.batch,
            "redisbloom CF.MEXISTS hit",
            |c| cf.contains_many(c),
        )?;
        let misses = timed(&absent, a.batch, "redisbloom CF.MEXISTS miss", |c| {
            cf.contains_many(c)
        })?;
        let memory = cf.memory()?;
        cf.delete()?;
        rows.push(row(
            "redisbloom-cf",
            "CF.ADD(pipelined)/CF.MEXISTS",
            a,
            &Measured {
                adds_s,
                hits,
                misses,
                memory,
                round_trips,
            },
        ));
    }

    print_compare(a, &rows);
    write_csv(&a.out, &rows)?;
    println!("wrote {}", a.out.display());
    Ok(())
}

fn print_compare(a: &CompareArgs, rows: &[Row]) {
    println!(
        "n = {}, p = {}, keys = {}, batch = {} items per round trip, server {}",
        a.n, a.p, a.keys, a.batch, a.url
    );
    println!(
        "{:<14} {:<34} {:>11} {:>11} {:>11} {:>8} {:>19} {:>4} {:>10} {:>6} {:>7}",
        "filter",
        "transport",
        "adds/s",
        "hits/s",
        "misses/s",
        "fpr",
        "fpr 95% CI",
        "FN",
        "memory B",
        "bits/n",
        "trips"
    );
    for r in rows {
        println!(
            "{:<14} {:<34} {:>11.0} {:>11.0} {:>11.0} {:>8.5} [{:.5}, {:.5}] {:>4} {:>10} {:>6.2} {:>7}",
            r.filter,
            r.transport,
            r.adds_per_s,
            r.hit_queries_per_s,
            r.miss_queries_per_s,
            r.fpr,
            r.fpr_lo,
            r.fpr_hi,
            r.false_negatives,
            r.memory_bytes,
            r.bits_per_key,
            r.round_trips
        );
    }
    for bf in rows
        .iter()
        .filter(|r| r.filter.starts_with("redisbloom-bf"))
    {
        for r in rows.iter().filter(|r| r.filter == "bitmap") {
            println!(
                "bitmap/{:<9} vs {:<24}: adds {:.2}x, hit queries {:.2}x, miss queries {:.2}x, memory {:.2}x",
                r.transport,
                bf.filter,
                r.adds_per_s / bf.adds_per_s,
                r.hit_queries_per_s / bf.hit_queries_per_s,
                r.miss_queries_per_s / bf.miss_queries_per_s,
                r.memory_bytes as f64 / bf.memory_bytes as f64
            );
        }
    }
}

fn write_csv<T: serde::Serialize>(path: &Path, rows: &[T]) -> Result<()> {
    let io = |e: &dyn std::fmt::Display| Error::Io {
        path: path.display().to_string(),
        message: e.to_string(),
    };
    if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
        std::fs::create_dir_all(dir).map_err(|e| io(&e))?;
    }
    let mut w = csv::Writer::from_path(path).map_err(|e| io(&e))?;
    for r in rows {
        w.serialize(r).map_err(|e| io(&e))?;
    }
    w.flush().map_err(|e| io(&e))?;
    Ok(())
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

fn penetration(a: &PenetrationArgs) -> Result<()> {
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
    let db =
        a.db.clone()
            .unwrap_or_else(|| std::env::temp_dir().join("bloomlab-penetration.sqlite"));
    let mut cache = RedisConn::open(&a.url)?;
    let filter_conn = RedisConn::open(&a.url)?;
    let pb = ProgressBar::new_spinner();
    pb.set_message("playing the workload without, then with the filter");
    pb.enable_steady_tick(std::time::Duration::from_millis(200));
    let r = penetration::run(&mut cache, filter_conn, &db, &cfg);
    pb.finish_and_clear();
    let r = r?;
    println!(
        "{} products in {} (SQLite), {} requests per mode, {:.0}% for missing ids{}; filter m = {}, k = {}, p = {}, built from the database in {:.2} s",
        a.products,
        db.display(),
        a.requests,
        a.missing_share * 100.0,
        a.missing_pool
            .map_or(String::new(), |k| format!(" (from a pool of {k})")),
        r.filter_m,
        r.filter_k,
        a.p,
        r.filter_build_secs
    );
    println!(
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
    );
    let mut rows = Vec::new();
    for m in [&r.without, &r.with] {
        println!(
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
        );
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
    println!(
        "database queries avoided by the filter: {avoided} of {} ({:.1}%)",
        r.without.db_queries,
        100.0 * avoided as f64 / r.without.db_queries.max(1) as f64
    );
    write_csv(&a.out, &rows)?;
    println!("wrote {}", a.out.display());
    Ok(())
}
