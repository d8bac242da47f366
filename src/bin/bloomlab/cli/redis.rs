//! `bloomlab redis …`: filters in Redis (feature `redis`).
//!
//! - `compare`: our client-hashed bitmap filter (each transport) against RedisBloom's `BF.*`
//!   and `CF.*` on the same keys: adds/s, queries/s, measured FPR, server memory.
//! - `penetration`: the articles' cache-penetration guard with SQLite behind Redis (an
//!   application of the library: [`super::penetration`]).
//!
//! The count flags of `compare` have upper bounds, checked while the flags are parsed (exit
//! status 2), so no run starts that cannot finish: `--n` and `--queries` 1 to [`MAX_ITEMS`]
//! (10^9), `--batch` 1 to [`MAX_BATCH`] (100,000). Keys are generated chunk by chunk
//! ([`CHUNK_ITEMS`] at a time), so the client's memory does not grow with n.
//!
//! Before the first pass, `compare` checks what would otherwise fail at the end or hurt the
//! server: the RedisBloom module (unless `--no-module`), each row's smallest n, the shard
//! layout, and the server's memory ([`preflight`]: the largest pass must fit under `maxmemory`,
//! or the machine's memory, minus what the server holds; `--force` skips this). Its keys are
//! the run's own ([`owned`]: random run id, `--key-prefix`, `--ttl`, removed at the end, on an
//! error and on a signal).

pub mod owned;

use super::out::outln;
use super::out_path::{self, Rules};
use super::{parse_count_in, parse_p};
use bloomlab::hash::{AnyStrategy, IndexStrategy};
use bloomlab::redis::conn::display_addr;
use bloomlab::redis::memory::ServerMemory;
use bloomlab::redis::module::{BfFilter, CfFilter, has_redisbloom};
use bloomlab::redis::{BitmapBloom, BitmapOptions, RedisConn, ShardLayout, Transport};
use bloomlab::theory::rules::{Rule, allocate};
use bloomlab::workload::{KeyGen, KeyKind};
use bloomlab::{Error, Param, Result, stats, theory};
use indicatif::{ProgressBar, ProgressStyle};
use std::path::PathBuf;
use std::time::Instant;

/// Most items (`--n`) and most absent-key queries (`--queries`) of `compare`: 10^9. Each item
/// is one bit-operation group on the server per transport and filter, so a run of this size
/// takes hours on loopback already.
pub const MAX_ITEMS: u64 = 1_000_000_000;
/// Most items per round trip (`--batch`): 100,000 items are 700,000 bit operations at k = 7,
/// one command of some megabytes, well inside Redis' request limits.
pub const MAX_BATCH: u64 = 100_000;
/// Keys generated (and progress shown) per step: memory stays near this many keys whatever n.
pub const CHUNK_ITEMS: usize = 100_000;

fn parse_items(s: &str) -> std::result::Result<u64, String> {
    parse_count_in(s, Param::N, 1..=MAX_ITEMS)
}

fn parse_queries(s: &str) -> std::result::Result<u64, String> {
    parse_count_in(s, Param::Queries, 1..=MAX_ITEMS)
}

fn parse_batch(s: &str) -> std::result::Result<usize, String> {
    parse_count_in(s, Param::Other("batch"), 1..=MAX_BATCH).map(|b| b as usize)
}

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
    Penetration(super::penetration::Args),
}

/// Arguments of `bloomlab redis compare`.
#[derive(Debug, clap::Args)]
pub struct CompareArgs {
    /// Redis URL (comma-separated seed URLs for a cluster).
    #[arg(long)]
    url: String,
    /// Items to insert (1 to 1,000,000,000).
    #[arg(long, default_value_t = 1_000_000, value_parser = parse_items)]
    n: u64,
    /// Target false-positive rate (0.01, 1%, 1/100).
    #[arg(long, default_value = "0.01", value_parser = parse_p)]
    p: f64,
    /// Absent keys to query, 1 to 1,000,000,000 (default: n).
    #[arg(long, value_parser = parse_queries)]
    queries: Option<u64>,
    /// Items per round trip (1 to 100,000).
    #[arg(long, default_value_t = 1000, value_parser = parse_batch)]
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
    /// CSV output (replaced atomically; its directory created if missing). Checked before
    /// connecting: a directory, device, FIFO, symbolic link, read-only file or a file that is
    /// not text is refused.
    #[arg(long, default_value = "results/redis/compare.csv")]
    out: PathBuf,
    /// Write through a symbolic link at --out to the file it points to (the link stays).
    #[arg(long)]
    follow_symlinks: bool,
    /// Skip the memory preflight: run even when the largest pass does not fit in the server's
    /// free memory (maxmemory, or the machine's memory, minus what it holds).
    #[arg(long)]
    force: bool,
    #[command(flatten)]
    key_args: owned::KeyArgs,
}

/// The smallest n of the RedisBloom cuckoo row: `CF.RESERVE` needs a capacity of at least twice
/// its bucket size (2).
pub const CF_MIN_N: u64 = 4;

/// Run `bloomlab redis …`.
///
/// # Errors
/// Bad flags, Redis or file errors.
pub fn run(a: &Args) -> Result<()> {
    match &a.cmd {
        Sub::Compare(c) => compare(c),
        Sub::Penetration(p) => super::penetration::run(p),
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

/// Keys per step for batches of `batch`: whole batches, about [`CHUNK_ITEMS`] keys.
///
/// # Errors
/// [`Error::InvalidParameter`] if the product overflows (it cannot for `batch <= MAX_BATCH`).
fn chunk_items(batch: usize) -> Result<usize> {
    let batches = (CHUNK_ITEMS / batch.max(1)).max(1);
    batch
        .checked_mul(batches)
        .ok_or_else(|| Error::invalid(Param::Other("batch"), batch, "at most 100,000"))
}

/// One timed pass: items sent, how many were answered "yes", seconds spent in the operation.
struct Pass {
    items: u64,
    yes: u64,
    secs: f64,
}

/// Run `op` over the keys `key(0)`, …, `key(count - 1)`, generated `chunk` at a time (so memory
/// does not grow with `count`), with a progress bar; only `op` is timed. `op` answers how many
/// of its keys got "yes".
fn timed<K, F>(count: u64, chunk: usize, what: &str, key: K, mut op: F) -> Result<Pass>
where
    K: Fn(u64) -> Vec<u8>,
    F: FnMut(&[Vec<u8>]) -> Result<u64>,
{
    let pb = bar(count, what);
    let mut pass = Pass {
        items: count,
        yes: 0,
        secs: 0.0,
    };
    let mut keys = Vec::with_capacity(chunk);
    let mut start = 0u64;
    while start < count {
        let end = start.saturating_add(chunk as u64).min(count);
        keys.clear();
        keys.extend((start..end).map(&key));
        let gate = owned::gate()?;
        let t = Instant::now();
        pass.yes += op(&keys)?;
        pass.secs += t.elapsed().as_secs_f64();
        drop(gate);
        pb.inc(end - start);
        start = end;
    }
    pb.finish_and_clear();
    Ok(pass)
}

/// How many answers are `true`.
fn yes(answers: &[bool]) -> u64 {
    answers.iter().filter(|&&b| b).count() as u64
}

struct Measured {
    adds: Pass,
    hits: Pass,
    misses: Pass,
    memory: u64,
    round_trips: u64,
}

fn row(name: &str, transport: &str, a: &CompareArgs, m: &Measured) -> Row {
    let fp = m.misses.yes;
    let q = m.misses.items;
    let (lo, hi) = stats::wilson(fp, q, 1.96);
    Row {
        filter: name.into(),
        transport: transport.into(),
        n: a.n,
        p: a.p,
        batch: a.batch,
        adds_per_s: m.adds.items as f64 / m.adds.secs,
        hit_queries_per_s: m.hits.items as f64 / m.hits.secs,
        miss_queries_per_s: q as f64 / m.misses.secs,
        queries: q,
        false_positives: fp,
        fpr: fp as f64 / q as f64,
        fpr_lo: lo,
        fpr_hi: hi,
        false_negatives: m.hits.items - m.hits.yes,
        memory_bytes: m.memory,
        bits_per_key: m.memory as f64 * 8.0 / a.n as f64,
        round_trips: m.round_trips,
    }
}

/// Bytes the largest pass of `compare` needs in Redis, and which pass that is.
fn largest_pass(a: &CompareArgs, transports: &[Transport]) -> Result<(u64, &'static str)> {
    let s = theory::size_for(a.n, a.p)?;
    let m = AnyStrategy(BitmapOptions::default().strategy).round_bits(s.m);
    // The layout's limits (shard count) before anything is created.
    let layout = ShardLayout::new(m, ShardLayout::DEFAULT_SHARD_BITS)?;
    let mut bitmap = m.div_ceil(8);
    if transports
        .iter()
        .any(|t| matches!(t, Transport::Bulk | Transport::Auto))
    {
        // A bulk add holds one shard-sized scratch key for the length of its script.
        bitmap += layout.shard_len_bytes(0);
    }
    let mut passes = vec![(bitmap, "the bitmap filter")];
    if !a.no_module {
        let bf = allocate(Rule::Redisbloom, a.n, a.p)?
            .bytes
            .max(allocate(Rule::RedisbloomNonscaling, a.n, a.p)?.bytes);
        // CF.RESERVE: a power of two of buckets of 2 one-byte fingerprints.
        let cf =
            a.n.div_ceil(2)
                .checked_next_power_of_two()
                .unwrap_or(u64::MAX)
                .saturating_mul(2);
        passes.push((bf, "RedisBloom's BF"));
        passes.push((cf, "RedisBloom's CF"));
    }
    Ok(passes.into_iter().max_by_key(|p| p.0).unwrap_or((0, "")))
}

/// The checks before the first pass: the module (unless `--no-module`), each row's smallest n,
/// the layout and the server's memory (unless `--force`).
///
/// # Errors
/// [`Error::InvalidParameter`] naming n (with the numbers) or [`Error::Redis`] naming the module.
fn preflight(conn: &mut RedisConn, a: &CompareArgs, transports: &[Transport]) -> Result<()> {
    let server = conn.addr().to_string();
    if !a.no_module {
        if a.n < CF_MIN_N {
            return Err(Error::invalid(
                Param::N,
                a.n,
                format!(
                    "at least {CF_MIN_N} for the RedisBloom cuckoo row (CF.RESERVE needs a \
                     capacity of twice its bucket size), or --no-module"
                ),
            ));
        }
        if !has_redisbloom(conn)? {
            return Err(Error::Redis {
                target: format!("module RedisBloom on {server}"),
                message: "not loaded (checked before the first pass): start redis-server with \
                          --loadmodule /path/to/redisbloom.so, or pass --no-module for the \
                          bitmap rows alone"
                    .into(),
                connection: false,
            });
        }
    }
    let (need, which) = largest_pass(a, transports)?;
    if a.force {
        return Ok(());
    }
    let mem = ServerMemory::read(conn)?;
    if !mem.fits(need) {
        return Err(Error::invalid(
            Param::N,
            format!(
                "{} at p = {}: {which} needs {} in Redis",
                bloomlab::units::thousands(a.n),
                bloomlab::units::format_prob(a.p),
                bloomlab::units::format_bytes_short(need as f64)
            ),
            format!(
                "a filter that fits the server {server} ({}); lower --n, raise --p, or pass \
                 --force",
                mem.describe()
            ),
        ));
    }
    Ok(())
}

fn compare(a: &CompareArgs) -> Result<()> {
    let out = out_path::check_with(&a.out, Rules::csv(&[], a.follow_symlinks))?;
    theory::check_n(a.n)?;
    KeyGen::check_n(a.n)?;
    let chunk = chunk_items(a.batch)?;
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
    let present = |i| g.present_key(i);
    let absent = |j| g.absent_key(j);
    // Hit queries on (up to) the first q present keys.
    let hits_n = q.min(a.n);
    let mut rows = Vec::new();
    {
        let _g = owned::gate()?;
        preflight(&mut RedisConn::open(&a.url)?, a, &transports)?;
    }
    // Every key below is the run's own: removed when `run` is dropped (also on an error) or on
    // a signal, and expiring after --ttl whatever happens.
    let run = owned::Run::start(&a.key_args, "compare", &a.url);
    let prefix = run.base().to_string();
    let ttl_ms = run.ttl().as_millis() as u64;

    for t in &transports {
        let name = format!("{prefix}:bitmap");
        run.own_filter(&name);
        let mut f = {
            let _g = owned::gate()?;
            let mut f = BitmapBloom::new(RedisConn::open(&a.url)?, &name)?;
            f.set_ttl(Some(run.ttl()));
            f.delete()?;
            f.try_init(a.n, a.p)?;
            f
        };
        f.set_transport(*t);
        f.set_batch(a.batch);
        let r0 = f.conn().round_trips();
        let adds = timed(a.n, chunk, &format!("bitmap/{t} add"), present, |c| {
            f.add_many(c).map(|_| 0)
        })?;
        let round_trips = f.conn().round_trips() - r0;
        let hits = timed(
            hits_n,
            chunk,
            &format!("bitmap/{t} query hit"),
            present,
            |c| f.contains_many(c).map(|v| yes(&v)),
        )?;
        let misses = timed(q, chunk, &format!("bitmap/{t} query miss"), absent, |c| {
            f.contains_many(c).map(|v| yes(&v))
        })?;
        let memory = {
            let _g = owned::gate()?;
            let memory = f.info()?.memory_bytes;
            f.delete()?;
            memory
        };
        rows.push(row(
            "bitmap",
            t.name(),
            a,
            &Measured {
                adds,
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
            run.own_key(&key);
            let mut bf = {
                let _g = owned::gate()?;
                let mut c = RedisConn::open(&a.url)?;
                c.query::<()>(redis::cmd("DEL").arg(&key), &key)?;
                let mut bf = BfFilter::reserve(c, &key, a.p, a.n, nonscaling)?;
                bf.conn()
                    .query::<u64>(redis::cmd("PEXPIRE").arg(&key).arg(ttl_ms), &key)?;
                bf
            };
            bf.set_batch(a.batch);
            let r0 = bf.conn().round_trips();
            let adds = timed(a.n, chunk, "redisbloom BF.MADD", present, |c| {
                bf.add_many(c).map(|_| 0)
            })?;
            let round_trips = bf.conn().round_trips() - r0;
            let hits = timed(hits_n, chunk, "redisbloom BF.MEXISTS hit", present, |c| {
                bf.contains_many(c).map(|v| yes(&v))
            })?;
            let misses = timed(q, chunk, "redisbloom BF.MEXISTS miss", absent, |c| {
                bf.contains_many(c).map(|v| yes(&v))
            })?;
            let (memory, info) = {
                let _g = owned::gate()?;
                let memory = bf.memory()?;
                let info = bf.info()?;
                bf.delete()?;
                (memory, info)
            };
            let mut r = row(
                if nonscaling {
                    "redisbloom-bf-nonscaling"
                } else {
                    "redisbloom-bf"
                },
                "BF.MADD/BF.MEXISTS",
                a,
                &Measured {
                    adds,
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
        run.own_key(&key);
        let mut cf = {
            let _g = owned::gate()?;
            let mut c = RedisConn::open(&a.url)?;
            c.query::<()>(redis::cmd("DEL").arg(&key), &key)?;
            let mut cf = CfFilter::reserve(c, &key, a.n)?;
            cf.conn()
                .query::<u64>(redis::cmd("PEXPIRE").arg(&key).arg(ttl_ms), &key)?;
            cf
        };
        cf.set_batch(a.batch);
        let r0 = cf.conn().round_trips();
        let adds = timed(a.n, chunk, "redisbloom CF.ADD", present, |c| {
            cf.add_many(c).map(|_| 0)
        })?;
        let round_trips = cf.conn().round_trips() - r0;
        let hits = timed(hits_n, chunk, "redisbloom CF.MEXISTS hit", present, |c| {
            cf.contains_many(c).map(|v| yes(&v))
        })?;
        let misses = timed(q, chunk, "redisbloom CF.MEXISTS miss", absent, |c| {
            cf.contains_many(c).map(|v| yes(&v))
        })?;
        let memory = {
            let _g = owned::gate()?;
            let memory = cf.memory()?;
            cf.delete()?;
            memory
        };
        rows.push(row(
            "redisbloom-cf",
            "CF.ADD(pipelined)/CF.MEXISTS",
            a,
            &Measured {
                adds,
                hits,
                misses,
                memory,
                round_trips,
            },
        ));
    }
    drop(run);

    print_compare(a, &rows)?;
    out.write_csv(&rows)?;
    outln!("wrote {}", a.out.display())?;
    false_negatives(&rows)
}

/// A row with a false negative fails the run (exit status 4): no filter here may miss a key it
/// holds, so the table says something went wrong under it.
///
/// # Errors
/// [`Error::Correctness`] naming the rows.
fn false_negatives(rows: &[Row]) -> Result<()> {
    let bad: Vec<String> = rows
        .iter()
        .filter(|r| r.false_negatives > 0)
        .map(|r| {
            format!(
                "{}/{} {} of {} added keys answered absent",
                r.filter,
                r.transport.split(' ').next().unwrap_or(""),
                bloomlab::units::thousands(r.false_negatives),
                bloomlab::units::thousands(r.n)
            )
        })
        .collect();
    if bad.is_empty() {
        return Ok(());
    }
    Err(Error::Correctness(format!(
        "false negatives in {} row(s): {}; a filter never misses a key it holds, so its keys \
         were changed under the run (another client, FLUSHDB, eviction, a restart) or the filter \
         is broken: the table is not to be trusted",
        bad.len(),
        bad.join("; ")
    )))
}

fn print_compare(a: &CompareArgs, rows: &[Row]) -> Result<()> {
    outln!(
        "n = {}, p = {}, keys = {}, batch = {} items per round trip, server {}",
        a.n,
        a.p,
        a.keys,
        a.batch,
        display_addr(&a.url)
    )?;
    outln!(
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
    )?;
    for r in rows {
        // The digits the interval supports.
        let rate = stats::RateText::new(r.fpr, r.fpr_lo, r.fpr_hi);
        outln!(
            "{:<14} {:<34} {:>11.0} {:>11.0} {:>11.0} {:>8} [{}, {}] {:>4} {:>10} {:>6.2} {:>7}",
            r.filter,
            r.transport,
            r.adds_per_s,
            r.hit_queries_per_s,
            r.miss_queries_per_s,
            rate.rate,
            rate.lo,
            rate.hi,
            r.false_negatives,
            r.memory_bytes,
            r.bits_per_key,
            r.round_trips
        )?;
    }
    for bf in rows
        .iter()
        .filter(|r| r.filter.starts_with("redisbloom-bf"))
    {
        for r in rows.iter().filter(|r| r.filter == "bitmap") {
            outln!(
                "bitmap/{:<9} vs {:<24}: adds {:.2}x, hit queries {:.2}x, miss queries {:.2}x, memory {:.2}x",
                r.transport,
                bf.filter,
                r.adds_per_s / bf.adds_per_s,
                r.hit_queries_per_s / bf.hit_queries_per_s,
                r.miss_queries_per_s / bf.miss_queries_per_s,
                r.memory_bytes as f64 / bf.memory_bytes as f64
            )?;
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn row_with(filter: &str, false_negatives: u64) -> Row {
        Row {
            filter: filter.into(),
            transport: "lua".into(),
            n: 1000,
            p: 0.01,
            batch: 100,
            adds_per_s: 1.0,
            hit_queries_per_s: 1.0,
            miss_queries_per_s: 1.0,
            queries: 1000,
            false_positives: 10,
            fpr: 0.01,
            fpr_lo: 0.005,
            fpr_hi: 0.02,
            false_negatives,
            memory_bytes: 1200,
            bits_per_key: 9.6,
            round_trips: 10,
        }
    }

    #[test]
    fn a_false_negative_fails_the_run_with_status_4() {
        assert_eq!(false_negatives(&[row_with("bitmap", 0)]), Ok(()));
        let e =
            false_negatives(&[row_with("bitmap", 0), row_with("redisbloom-bf", 37)]).unwrap_err();
        assert_eq!(e.class().exit_status(), 4, "{e}");
        let text = e.to_string();
        assert!(
            text.contains("redisbloom-bf/lua 37 of 1,000") && text.contains("1 row(s)"),
            "{text}"
        );
    }
}
