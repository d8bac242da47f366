//! The Redis keys a run of `redis compare` or `redis penetration` owns, and their removal.
//!
//! * **Names**: every key a run creates starts with `PREFIX:COMMAND:RUN` (`--key-prefix`,
//!   default `bloomlab`; `RUN` is 64 random bits from the operating system, so two runs never
//!   share keys, also when they share a process id, as every container's first process does).
//! * **TTL**: every key gets a time to live (`--ttl`, default 3,600 s), so the keys of a run
//!   that could not clean up (killed by SIGKILL, the machine lost) expire.
//! * **Removal**: a [`Run`] is a guard: dropping it (a normal end or an error) removes the run's
//!   keys; on SIGINT, SIGTERM or SIGHUP the binary's signal thread calls [`on_signal`], which
//!   waits for the Redis operation in flight ([`gate`]), removes every live run's keys and
//!   private directories, and lets the process end. Removal deletes the filters and keys the
//!   run registered and, on a single server, every key matching the run's names (`SCAN`).

use bloomlab::redis::{BitmapBloom, RedisConn, ShardLayout};
use bloomlab::{Error, Param, Result};
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Mutex, MutexGuard, PoisonError};
use std::time::Duration;

/// Default `--ttl`: one hour.
pub const DEFAULT_TTL_SECS: u64 = 3600;
/// Longest `--ttl`: one week.
pub const MAX_TTL_SECS: u64 = 7 * 24 * 3600;

fn parse_ttl(s: &str) -> std::result::Result<u64, String> {
    super::super::parse_count_in(s, Param::Other("ttl"), 1..=MAX_TTL_SECS)
}

fn parse_prefix(s: &str) -> std::result::Result<String, String> {
    let ok = !s.is_empty()
        && s.len() <= 64
        && s.bytes()
            .all(|b| b.is_ascii_alphanumeric() || b"-_.:/".contains(&b));
    if ok {
        Ok(s.to_string())
    } else {
        Err(Error::invalid(
            Param::Other("key-prefix"),
            s,
            "1 to 64 characters from A-Z a-z 0-9 - _ . : /",
        )
        .to_string())
    }
}

/// The flags that name and bound a run's keys.
#[derive(Debug, Clone, clap::Args)]
pub struct KeyArgs {
    /// Prefix of every Redis key the run creates: PREFIX:COMMAND:RUN:… where RUN is 64 random
    /// bits, new for every run.
    #[arg(long, default_value = "bloomlab", value_parser = parse_prefix)]
    key_prefix: String,
    /// Time to live of every Redis key the run creates, seconds (1 to 604,800; default 3,600 =
    /// 1 h): keys of a run that could not remove them expire. A run removes its keys at its end,
    /// on an error and on SIGINT/SIGTERM.
    #[arg(long, default_value_t = DEFAULT_TTL_SECS, value_parser = parse_ttl)]
    ttl: u64,
}

/// What a live run registered for removal.
#[derive(Debug)]
struct Registered {
    id: u64,
    url: String,
    base: String,
    filters: Vec<String>,
    keys: Vec<String>,
    dirs: Vec<PathBuf>,
}

static RUNS: Mutex<Vec<Registered>> = Mutex::new(Vec::new());
static GATE: Mutex<()> = Mutex::new(());
static STOPPING: AtomicBool = AtomicBool::new(false);
static NEXT_ID: AtomicU64 = AtomicU64::new(1);

fn runs() -> MutexGuard<'static, Vec<Registered>> {
    RUNS.lock().unwrap_or_else(PoisonError::into_inner)
}

/// Hold this while talking to Redis: a signal waits for it, so the keys are removed after the
/// operation in flight, never under it. After a signal it answers [`Error::Cancelled`].
///
/// # Errors
/// [`Error::Cancelled`] once a signal arrived.
pub fn gate() -> Result<MutexGuard<'static, ()>> {
    let g = GATE.lock().unwrap_or_else(PoisonError::into_inner);
    if STOPPING.load(Ordering::SeqCst) {
        return Err(Error::Cancelled);
    }
    Ok(g)
}

/// A run's keys: names, TTL, and their removal when dropped.
#[derive(Debug)]
pub struct Run {
    id: u64,
    base: String,
    ttl: Duration,
}

impl Run {
    /// Start a run of `command` against `url`: a new random run id, registered for removal.
    #[must_use]
    pub fn start(keys: &KeyArgs, command: &str, url: &str) -> Self {
        let id = NEXT_ID.fetch_add(1, Ordering::Relaxed);
        let base = format!(
            "{}:{command}:{:016x}",
            keys.key_prefix,
            bloomlab::redis::random_u64()
        );
        runs().push(Registered {
            id,
            url: url.to_string(),
            base: base.clone(),
            filters: Vec::new(),
            keys: Vec::new(),
            dirs: Vec::new(),
        });
        Self {
            id,
            base,
            ttl: Duration::from_secs(keys.ttl),
        }
    }

    /// `PREFIX:COMMAND:RUN`: the start of every key name of this run.
    #[must_use]
    pub fn base(&self) -> &str {
        &self.base
    }

    /// The TTL every key gets.
    #[must_use]
    pub fn ttl(&self) -> Duration {
        self.ttl
    }

    fn with(&self, f: impl FnOnce(&mut Registered)) {
        if let Some(r) = runs().iter_mut().find(|r| r.id == self.id) {
            f(r);
        }
    }

    /// Register a bitmap filter (its config and shards) for removal.
    pub fn own_filter(&self, name: &str) {
        self.with(|r| r.filters.push(name.to_string()));
    }

    /// Register a plain key for removal.
    pub fn own_key(&self, key: &str) {
        self.with(|r| r.keys.push(key.to_string()));
    }

    /// Register a private directory or file (a lock file) for removal on a signal (its owner
    /// removes it otherwise).
    pub fn own_dir(&self, dir: PathBuf) {
        self.with(|r| r.dirs.push(dir));
    }
}

impl Drop for Run {
    fn drop(&mut self) {
        if crate::cli::out::signalled() {
            // A signal interrupted the run: its handler removes (and reports) the keys.
            return;
        }
        let _g = GATE.lock().unwrap_or_else(PoisonError::into_inner);
        let taken = {
            let mut all = runs();
            all.iter()
                .position(|r| r.id == self.id)
                .map(|i| all.swap_remove(i))
        };
        if let Some(r) = taken {
            // The directories are removed by their owners (a TempDir) on this path.
            let _ = remove_keys(&r);
        }
    }
}

/// Redis glob pattern matching `text` literally.
fn glob_literal(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        if matches!(c, '*' | '?' | '[' | ']' | '\\' | '{' | '}') {
            out.push('\\');
        }
        out.push(c);
    }
    out
}

/// Remove a run's registered filters and keys and, on a single server, every key whose name
/// starts with the run's base (plain, or inside a `{…}` hash tag). Answers how many keys went.
fn remove_keys(r: &Registered) -> Result<u64> {
    let mut conn = RedisConn::open(&r.url)?;
    let mut removed = 0;
    for name in &r.filters {
        // A config that cannot be read (corrupt) leaves its shards to the SCAN below and to
        // their TTL.
        if let Ok(mut f) = BitmapBloom::new(RedisConn::open(&r.url)?, name) {
            let keys = f.config().map_or(0, |c| {
                ShardLayout::new(c.m, c.options.shard_bits).map_or(0, |l| l.shards() + 1)
            });
            if f.delete()? {
                removed += keys;
            }
        }
    }
    for key in &r.keys {
        removed += conn.query::<u64>(redis::cmd("UNLINK").arg(key), key)?;
    }
    if !conn.is_cluster() {
        let base = glob_literal(&r.base);
        for pattern in [format!("{base}:*"), format!("\\{{{base}:*")] {
            let mut cursor = 0u64;
            loop {
                let (next, keys): (u64, Vec<String>) = conn.query(
                    redis::cmd("SCAN")
                        .arg(cursor)
                        .arg("MATCH")
                        .arg(&pattern)
                        .arg("COUNT")
                        .arg(1000),
                    "SCAN",
                )?;
                if !keys.is_empty() {
                    removed += conn.query::<u64>(redis::cmd("UNLINK").arg(&keys), "UNLINK")?;
                }
                if next == 0 {
                    break;
                }
                cursor = next;
            }
        }
    }
    Ok(removed)
}

/// On a signal: stop new Redis operations, wait for the one in flight, remove every live run's
/// keys and private directories. Answers a line for the user ("" when there was no run).
pub fn on_signal() -> String {
    STOPPING.store(true, Ordering::SeqCst);
    let _g = GATE.lock().unwrap_or_else(PoisonError::into_inner);
    let all: Vec<Registered> = runs().drain(..).collect();
    let mut lines = Vec::new();
    for r in &all {
        for d in &r.dirs {
            let _ = std::fs::remove_dir_all(d).or_else(|_| std::fs::remove_file(d));
        }
        match remove_keys(r) {
            Ok(n) => lines.push(format!("removed {n} Redis key(s) of run {}", r.base)),
            Err(e) => lines.push(format!(
                "could not remove the Redis keys of run {} ({e}); they expire by their TTL",
                r.base
            )),
        }
    }
    lines.join("; ")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn prefixes_and_patterns() {
        assert!(parse_prefix("bloomlab").is_ok());
        assert!(parse_prefix("team-a/bloom:x").is_ok());
        for bad in ["", "a b", "a*", "{x}", &"x".repeat(65)] {
            assert!(parse_prefix(bad).is_err(), "{bad}");
        }
        assert_eq!(glob_literal("a*b{c}"), "a\\*b\\{c\\}");
        assert!(parse_ttl("0").is_err());
        assert!(parse_ttl("3600").is_ok());
        assert!(parse_ttl("604801").is_err());
    }

    #[test]
    fn run_ids_are_random_not_the_process_id() {
        let keys = KeyArgs {
            key_prefix: "p".into(),
            ttl: 60,
        };
        let a = Run::start(&keys, "compare", "redis://127.0.0.1:1");
        let b = Run::start(&keys, "compare", "redis://127.0.0.1:1");
        assert_ne!(a.base(), b.base());
        assert!(a.base().starts_with("p:compare:"), "{}", a.base());
        assert_eq!(a.ttl(), Duration::from_secs(60));
        // Dropping with an unreachable server is not an error (the keys expire).
        drop(a);
        drop(b);
        assert!(runs().iter().all(|r| !r.url.ends_with(":1")));
    }
}
