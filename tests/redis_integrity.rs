//! Filters in Redis after data loss, and untrusted configs, against real servers (never a mock).
//!
//! These tests are `#[ignore]`d unless asked for: run them with
//! `eval "$(bash .ci/redis-up.sh)"; cargo test --features redis --test redis_integrity -- --ignored`
//! (`.ci/run` does). They need `redis-server` on the PATH (each starts its own throwaway servers
//! without persistence on loopback ports 6398-6400, and kills them) and `BLOOMLAB_REDIS_URL` for
//! the rest; a missing server fails the test instead of skipping it.

#![cfg(feature = "redis")]

use bloomlab::Error;
use bloomlab::redis::{BitmapBloom, RedisConn, Transport};
use bloomlab::workload::{KeyGen, KeyKind};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

const NEEDS: &str = "needs Redis: .ci/redis-up.sh";

/// A `redis-server` without persistence on `port`, killed when dropped.
struct Throwaway {
    port: u16,
    dir: tempfile::TempDir,
    child: Child,
}

impl Throwaway {
    fn start(port: u16) -> Self {
        let dir = tempfile::tempdir().unwrap();
        let child = Self::spawn(port, dir.path(), None);
        Self { port, dir, child }
    }

    /// A server with `maxmemory` set (bytes).
    fn with_maxmemory(port: u16, bytes: u64) -> Self {
        let s = Self::start(port);
        let _: () = RedisConn::open(&s.url())
            .unwrap()
            .query(
                redis::cmd("CONFIG").arg("SET").arg("maxmemory").arg(bytes),
                "CONFIG SET",
            )
            .unwrap();
        s
    }

    /// A server that asks for `password` (`requirepass`).
    fn with_password(port: u16, password: &str) -> Self {
        let dir = tempfile::tempdir().unwrap();
        let child = Self::spawn(port, dir.path(), Some(password));
        Self { port, dir, child }
    }

    fn spawn(port: u16, dir: &std::path::Path, password: Option<&str>) -> Child {
        let mut cmd = Command::new("redis-server");
        cmd.args(["--bind", "127.0.0.1", "--port", &port.to_string()])
            .args(["--save", "", "--appendonly", "no"])
            .arg("--dir")
            .arg(dir);
        if let Some(pw) = password {
            cmd.args(["--requirepass", pw]);
        }
        let child = cmd
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .expect("redis-server on the PATH (.ci/redis-up.sh installs it)");
        let auth = password.map_or(String::new(), |pw| format!(":{pw}@"));
        let t = Instant::now();
        while RedisConn::open(&format!("redis://{auth}127.0.0.1:{port}"))
            .and_then(|mut c| c.query::<String>(&redis::cmd("PING"), "PING"))
            .is_err()
        {
            assert!(
                t.elapsed() < Duration::from_secs(10),
                "port {port} did not come up"
            );
            std::thread::sleep(Duration::from_millis(20));
        }
        child
    }

    fn url(&self) -> String {
        format!("redis://127.0.0.1:{}", self.port)
    }

    /// Kill the server (its data is gone: no persistence) and start an empty one on the port.
    fn restart(&mut self) {
        self.child.kill().unwrap();
        self.child.wait().unwrap();
        self.child = Self::spawn(self.port, self.dir.path(), None);
    }

    fn dbsize(&self) -> u64 {
        RedisConn::open(&self.url())
            .unwrap()
            .query(&redis::cmd("DBSIZE"), "DBSIZE")
            .unwrap()
    }

    fn dbsize_with(&self, password: &str) -> u64 {
        RedisConn::open(&format!("redis://:{password}@127.0.0.1:{}", self.port))
            .unwrap()
            .query(&redis::cmd("DBSIZE"), "DBSIZE")
            .unwrap()
    }
}

impl Drop for Throwaway {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn keys(n: u64) -> Vec<Vec<u8>> {
    let g = KeyGen::new(KeyKind::String, 46);
    (0..n).map(|i| g.present_key(i)).collect()
}

/// What the queries after a loss gave.
#[derive(Debug, Default)]
struct Tally {
    /// Keys asked about (every one was added before the loss).
    asked: u64,
    /// Calls that answered an error.
    errors: u64,
    /// Of those, `FilterLost`.
    lost: u64,
    /// Answers given (should be none).
    answers: u64,
    /// "Absent" answers for added keys.
    false_negatives: u64,
}

impl Tally {
    fn record(&mut self, asked: usize, r: bloomlab::Result<Vec<bool>>) {
        self.asked += asked as u64;
        match r {
            Ok(v) => {
                self.answers += v.len() as u64;
                self.false_negatives += v.iter().filter(|&&b| !b).count() as u64;
            }
            Err(e) => {
                self.errors += 1;
                if matches!(e, Error::FilterLost { .. }) {
                    self.lost += 1;
                }
            }
        }
    }
}

/// Ask `f` about every added key, 3 times by batches and 50 times one key at a time, and add
/// again once (which must fail too).
fn query_after_loss(f: &mut BitmapBloom, items: &[Vec<u8>], tally: &mut Tally) {
    for _ in 0..3 {
        let r = f.contains_many(items);
        tally.record(items.len(), r);
    }
    for it in &items[..50] {
        let r = f.contains(it).map(|b| vec![b]);
        tally.record(1, r);
    }
    let e = f.add_many(&items[..1000]).unwrap_err();
    assert!(
        matches!(e, Error::FilterLost { .. }),
        "add after loss: {e:?}"
    );
}

#[derive(Debug, Clone, Copy, PartialEq)]
enum Loss {
    Restart,
    Flushdb,
    DeletedConfig,
    Recreated,
}

fn lose(server: &mut Throwaway, f: &mut BitmapBloom, loss: Loss) {
    match loss {
        Loss::Restart => server.restart(),
        Loss::Flushdb => {
            let _: () = f.conn().query(&redis::cmd("FLUSHDB"), "FLUSHDB").unwrap();
        }
        Loss::DeletedConfig => {
            let key = f.config_key();
            let _: u64 = f.conn().query(redis::cmd("DEL").arg(&key), &key).unwrap();
        }
        Loss::Recreated => {
            // Another client deletes the filter and creates it again (same name, same
            // parameters, empty): its generation differs.
            let mut other =
                BitmapBloom::new(RedisConn::open(&server.url()).unwrap(), f.name()).unwrap();
            other.delete().unwrap();
            assert!(other.try_init(20_000, 0.01).unwrap());
        }
    }
}

/// Add 20,000 keys, lose the filter (a restart of a server without persistence, FLUSHDB, its
/// config deleted, or deleted and created again by another client), then query every key: by
/// every transport, every call is an error (after a restart the first one is the dropped
/// connection, the rest `FilterLost`) and no answer is given, so there is no false negative; an
/// add after the loss is refused and creates no shard key.
#[test]
#[ignore = "needs Redis: .ci/redis-up.sh"]
fn after_data_loss_every_query_is_an_error_never_a_false_negative() {
    let _ = NEEDS;
    let mut server = Throwaway::start(6398);
    let items = keys(20_000);
    let mut summary = Vec::new();
    for loss in [
        Loss::Restart,
        Loss::Flushdb,
        Loss::DeletedConfig,
        Loss::Recreated,
    ] {
        let mut tally = Tally::default();
        for t in Transport::ALL {
            let mut f = BitmapBloom::new(RedisConn::open(&server.url()).unwrap(), "loss").unwrap();
            f.delete().unwrap();
            assert!(f.try_init(20_000, 0.01).unwrap());
            f.set_transport(t);
            f.set_batch(1000);
            f.add_many(&items).unwrap();
            assert!(f.contains_many(&items).unwrap().iter().all(|&b| b));
            let before = server.dbsize();
            lose(&mut server, &mut f, loss);
            let after_loss = server.dbsize();
            query_after_loss(&mut f, &items, &mut tally);
            // No shard key written without its config (the restart and FLUSHDB leave an empty
            // server; a deleted config leaves the old shards alone). A re-created filter is the
            // other client's: the pipeline and BITFIELD paths, which check in the same round
            // trip but not atomically, have set bits in its shard (false positives for it,
            // never a false negative); the scripts wrote nothing.
            let pipelined = matches!(t, Transport::Pipeline | Transport::Bitfield);
            let written = server.dbsize() - after_loss;
            match loss {
                Loss::Recreated if pipelined => assert_eq!(written, 1, "{t}"),
                _ => assert_eq!(written, 0, "{loss:?}/{t}: keys written after the loss"),
            }
            assert!(after_loss < before || loss == Loss::Recreated, "{loss:?}");
            // Reload: the handle now sees what is there (nothing, or the new empty filter).
            f.reload().unwrap();
            f.delete().unwrap();
        }
        let calls_per_transport = 3 + 50;
        assert_eq!(tally.errors, calls_per_transport * 5, "{loss:?}: {tally:?}");
        assert_eq!(tally.answers, 0, "{loss:?}: {tally:?}");
        assert_eq!(tally.false_negatives, 0, "{loss:?}: {tally:?}");
        let dropped = if loss == Loss::Restart { 5 } else { 0 };
        assert!(tally.lost >= tally.errors - dropped, "{loss:?}: {tally:?}");
        summary.push(format!(
            "{loss:?}: {} keys asked in {} calls, {} errors ({} FilterLost), {} answers, {} false negatives",
            tally.asked, tally.errors, tally.errors, tally.lost, tally.answers, tally.false_negatives
        ));
    }
    eprintln!("{}", summary.join("\n"));
}

/// The planted config (m = 2^63 - 1 in shards of 64 bits) is refused as corrupt when a
/// handle opens it, instead of the client allocating until it is killed.
#[test]
#[ignore = "needs Redis: .ci/redis-up.sh"]
fn a_planted_config_is_corrupt_not_an_allocation() {
    let url = std::env::var("BLOOMLAB_REDIS_URL").expect("BLOOMLAB_REDIS_URL (.ci/redis-up.sh)");
    let name = format!(
        "bloomlab-test:planted:{:016x}",
        bloomlab::redis::random_u64()
    );
    let key = format!("{{{name}}}:config");
    let mut c = RedisConn::open(&url).unwrap();
    let _: () = c
        .query(
            redis::cmd("HSET").arg(&key).arg(&[
                ("format", "bloomlab-bitmap-1"),
                ("m", "9223372036854775807"),
                ("k", "7"),
                ("hash", "xxh3"),
                ("strategy", "enhanced-double"),
                ("seed", "0"),
                ("shard_bits", "64"),
                ("n", "0"),
                ("p", "0"),
            ]),
            &key,
        )
        .unwrap();
    let t = Instant::now();
    let e = BitmapBloom::new(RedisConn::open(&url).unwrap(), &name).unwrap_err();
    let _: u64 = c.query(redis::cmd("DEL").arg(&key), &key).unwrap();
    assert!(
        matches!(&e, Error::RedisCorrupt { key: k, .. } if *k == key),
        "{e:?}"
    );
    assert!(t.elapsed() < Duration::from_secs(5), "{:?}", t.elapsed());
    eprintln!("planted config refused in {:?}: {e}", t.elapsed());
}

/// `bloomlab ARGS` with `TMPDIR` set to `tmp`: (exit status, stdout + stderr).
fn bloomlab(args: &[&str], tmp: &std::path::Path) -> (Option<i32>, String) {
    let o = Command::new(env!("CARGO_BIN_EXE_bloomlab"))
        .args(args)
        .env("TMPDIR", tmp)
        .stdin(Stdio::null())
        .output()
        .unwrap();
    (
        o.status.code(),
        format!(
            "{}{}",
            String::from_utf8_lossy(&o.stdout),
            String::from_utf8_lossy(&o.stderr)
        ),
    )
}

/// No `bloomlab redis` command prints a password: each subcommand (read from `bloomlab redis
/// --help`, so a new one fails here until it has a case) runs against a server with
/// `requirepass`, with the right password (it succeeds), a wrong one and a closed port (they
/// fail), the password in the URL's user-info; neither password appears in stdout or stderr.
#[test]
#[ignore = "needs Redis: .ci/redis-up.sh"]
fn no_redis_command_prints_a_password() {
    const RIGHT: &str = "s3cret-pw-46";
    const WRONG: &str = "wr0ng-pw-46";
    let server = Throwaway::with_password(6399, RIGHT);
    let tmp = tempfile::tempdir().unwrap();
    let (code, help) = bloomlab(&["redis", "--help"], tmp.path());
    assert_eq!(code, Some(0), "{help}");
    let subcommands: Vec<String> = help
        .lines()
        .skip_while(|l| !l.starts_with("Commands:"))
        .skip(1)
        .take_while(|l| !l.trim().is_empty())
        .filter_map(|l| l.split_whitespace().next().map(str::to_string))
        .filter(|c| c != "help")
        .collect();
    assert!(subcommands.len() >= 2, "{help}");
    let dir = tmp.path().to_str().unwrap().to_string();
    let args = |sub: &str, url: &str| -> Vec<String> {
        let rest: Vec<String> = match sub {
            "compare" => vec!["--n".into(), "2000".into(), "--no-module".into()],
            "penetration" => vec![
                "--products".into(),
                "200".into(),
                "--requests".into(),
                "400".into(),
            ],
            other => panic!("no password case for `bloomlab redis {other}`: add one here"),
        };
        let mut v = vec!["redis".into(), sub.into(), "--url".into(), url.into()];
        v.extend(rest);
        v.extend(["--out".into(), format!("{dir}/{sub}.csv")]);
        v
    };
    let port = server.port;
    let mut runs = 0;
    for sub in &subcommands {
        for (url, ok) in [
            (format!("redis://:{RIGHT}@127.0.0.1:{port}"), true),
            (format!("redis://default:{RIGHT}@127.0.0.1:{port}/0"), true),
            (format!("redis://:{WRONG}@127.0.0.1:{port}"), false),
            (format!("redis://:{WRONG}@127.0.0.1:1"), false),
        ] {
            let a = args(sub, &url);
            let refs: Vec<&str> = a.iter().map(String::as_str).collect();
            let (code, text) = bloomlab(&refs, tmp.path());
            assert_eq!(code == Some(0), ok, "{sub} {url}: {code:?} {text}");
            assert!(
                !text.contains(RIGHT) && !text.contains(WRONG),
                "{sub} {url} printed a password: {text}"
            );
            // A failure names the server (without its password).
            assert!(
                ok || text.contains("127.0.0.1:"),
                "{sub}: names the server: {text}"
            );
            runs += 1;
        }
    }
    assert_eq!(server.dbsize_with(RIGHT), 0, "keys left behind");
    eprintln!("{runs} runs of {subcommands:?}: no password in any output");
}

/// `bloomlab redis compare` against a throwaway server: the checks before the first pass, the
/// exit statuses, and the keys it leaves (none: after a normal run, an error, and SIGINT).
#[test]
#[ignore = "needs Redis: .ci/redis-up.sh"]
fn compare_checks_up_front_and_leaves_no_keys() {
    let server = Throwaway::with_maxmemory(6400, 20_000_000);
    let url = server.url();
    let tmp = tempfile::tempdir().unwrap();
    let out = tmp.path().join("c.csv");
    let out = out.to_str().unwrap();
    let compare = |extra: &[&str]| {
        let mut a = vec!["redis", "compare", "--url", &url, "--out", out];
        a.extend_from_slice(extra);
        let t = Instant::now();
        let (code, text) = bloomlab(&a, tmp.path());
        (code, text, t.elapsed())
    };
    let mut report = Vec::new();
    // A normal run: exit 0, no key left.
    let (code, text, _) = compare(&["--n", "5000", "--no-module"]);
    assert_eq!(code, Some(0), "{text}");
    assert_eq!(server.dbsize(), 0, "after a normal run");
    report.push("normal run: exit 0, 0 keys".to_string());
    // The module, before the first pass (this server has none): exit 3 at once, nothing written.
    let (code, text, took) = compare(&["--n", "200000"]);
    assert_eq!(code, Some(3), "{text}");
    assert!(
        text.contains("RedisBloom") && text.contains("before the first pass"),
        "{text}"
    );
    assert!(took < Duration::from_secs(5), "{took:?}");
    assert_eq!(server.dbsize(), 0);
    // The smallest n of the cuckoo row: exit 2.
    let (code, text, _) = compare(&["--n", "1"]);
    assert_eq!(code, Some(2), "{text}");
    assert!(
        text.contains("invalid n: 1") && text.contains("--no-module"),
        "{text}"
    );
    // A design that does not fit maxmemory: refused with the numbers, exit 2, nothing written.
    let (code, text, took) = compare(&["--n", "1e9", "--p", "1e-300", "--no-module"]);
    assert_eq!(code, Some(2), "{text}");
    assert!(
        text.contains("GB in Redis") && text.contains("maxmemory 20.00 MB"),
        "{text}"
    );
    assert!(took < Duration::from_secs(5), "{took:?}");
    assert_eq!(server.dbsize(), 0);
    report.push(format!("preflight refusal: exit 2 in {took:?}, 0 keys"));
    // With --force the server refuses writes (OOM): one short line, exit 3, no key left.
    let (code, text, _) = compare(&[
        "--n",
        "1e9",
        "--p",
        "1e-300",
        "--no-module",
        "--transport",
        "bitfield",
        "--force",
    ]);
    assert_eq!(code, Some(3), "{text}");
    assert!(
        text.len() < 1000 && text.contains("commands of the batch failed"),
        "{text}"
    );
    assert_eq!(server.dbsize(), 0, "after an error");
    report.push(format!(
        "OOM under --force: exit 3, {} bytes of output, 0 keys",
        text.len()
    ));
    // SIGINT mid-run: exit 130, no key left.
    let child = Command::new(env!("CARGO_BIN_EXE_bloomlab"))
        .args(["redis", "compare", "--url", &url, "--out", out])
        .args(["--n", "2000000", "--no-module", "--transport", "lua"])
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let t = Instant::now();
    while server.dbsize() < 2 {
        assert!(
            t.elapsed() < Duration::from_secs(30),
            "the run wrote no shard"
        );
        std::thread::sleep(Duration::from_millis(20));
    }
    let during = server.dbsize();
    let killed = Command::new("kill")
        .args(["-INT", &child.id().to_string()])
        .status()
        .unwrap();
    assert!(killed.success());
    let o = child.wait_with_output().unwrap();
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(130), "{err}");
    assert!(err.contains("interrupted: removed"), "{err}");
    assert_eq!(server.dbsize(), 0, "after SIGINT");
    report.push(format!(
        "SIGINT: {during} keys during the run, exit 130, 0 keys after"
    ));
    eprintln!("{}", report.join("\n"));
}
