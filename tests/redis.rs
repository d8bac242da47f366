//! Filters in Redis, against real servers (never a mock).
//!
//! Run with `cargo test --features redis` after `eval "$(bash .ci/redis-up.sh)"`, which sets:
//! - `BLOOMLAB_REDIS_URL`       a server (with RedisBloom loaded when `BLOOMLAB_REDISBLOOM=1`)
//! - `BLOOMLAB_REDIS_CLUSTER`   comma-separated seed URLs of a Redis Cluster
//! - `BLOOMLAB_REDIS_AOF_URL`   a server with `appendonly yes, appendfsync always`, no module
//! - `BLOOMLAB_REDIS_AOF_START` a script that (re)starts that server
//!
//! The tests that need a server are `#[ignore = "needs Redis: .ci/redis-up.sh"]`: a plain
//! `cargo test --features redis` lists them as ignored instead of passing them unrun, and
//! `.ci/run` runs them with `--include-ignored`. Run explicitly, a test whose server is not
//! configured fails, naming the variable (it never passes without having talked to Redis).

/// Built without the feature there is nothing to run: listed as ignored, and failing when run.
#[cfg(not(feature = "redis"))]
#[test]
#[ignore = "needs --features redis and Redis: .ci/redis-up.sh"]
fn redis_tests_need_the_feature() {
    panic!(
        "Redis tests (bitmap filter, RedisBloom, cluster, AOF restart, connection loss): \
         built without feature `redis`; run `eval \"$(bash .ci/redis-up.sh)\"; cargo test \
         --features redis --test redis -- --include-ignored`"
    );
}

#[cfg(feature = "redis")]
mod live {
    use bloomlab::hash::{HashId, StrategyId};
    use bloomlab::redis::layout::{ShardLayout, bitvec_to_redis_bytes};
    use bloomlab::redis::module::{BfFilter, CfFilter};
    use bloomlab::redis::{BitmapBloom, BitmapOptions, RedisConn, Transport};
    use bloomlab::workload::{KeyGen, KeyKind};
    use bloomlab::{Error, Filter};
    use std::io::{Read, Write};
    use std::net::{Shutdown, TcpListener, TcpStream};
    use std::time::Duration;

    /// The server address in `var`; a test that needs it fails without it (it is `#[ignore]`d,
    /// so it runs only when asked for: with `--ignored`, after `.ci/redis-up.sh`).
    fn env(var: &str, test: &str) -> String {
        match std::env::var(var) {
            Ok(v) if !v.is_empty() => v,
            _ => panic!(
                "{test}: {var} not set: start the servers with eval \"$(bash .ci/redis-up.sh)\""
            ),
        }
    }

    /// Fails unless the main server has the RedisBloom module (`BLOOMLAB_REDISBLOOM=1`).
    fn need_redisbloom(test: &str) {
        assert_eq!(
            std::env::var("BLOOMLAB_REDISBLOOM").as_deref(),
            Ok("1"),
            "{test}: needs RedisBloom on BLOOMLAB_REDIS_URL (BLOOMLAB_REDISBLOOM=1, .ci/redis-up.sh)"
        );
    }

    fn name(test: &str) -> String {
        format!("bloomlab-test:{test}:{}", std::process::id())
    }

    fn keys(seed: u64, n: u64) -> Vec<Vec<u8>> {
        let g = KeyGen::new(KeyKind::String, seed);
        (0..n).map(|i| g.present_key(i)).collect()
    }

    fn absent(seed: u64, n: u64) -> Vec<Vec<u8>> {
        let g = KeyGen::new(KeyKind::String, seed);
        (0..n).map(|i| g.absent_key(i)).collect()
    }

    /// A fresh filter (deleted first) on `url`.
    fn fresh(url: &str, test: &str) -> BitmapBloom {
        let mut f = BitmapBloom::new(RedisConn::open(url).unwrap(), &name(test)).unwrap();
        f.delete().unwrap();
        f
    }

    fn opts(hash: HashId, strategy: StrategyId, shard_bits: u64) -> BitmapOptions {
        BitmapOptions {
            hash,
            strategy,
            seed: 7,
            shard_bits,
        }
    }

    /// The raw bytes of every shard, read with GETRANGE.
    fn raw_shards(f: &mut BitmapBloom) -> Vec<Vec<u8>> {
        let shards = ShardLayout::new(
            f.config().unwrap().m,
            f.config().unwrap().options.shard_bits,
        )
        .unwrap()
        .shards();
        (0..shards)
            .map(|s| {
                let key = f.shard_key(s);
                f.conn()
                    .query::<Vec<u8>>(redis::cmd("GETRANGE").arg(&key).arg(0).arg(-1), &key)
                    .unwrap()
            })
            .collect()
    }

    /// The Redis bitmap equals the local filter's bits byte for byte (MSB-first conversion).
    fn assert_bit_identical(
        f: &mut BitmapBloom,
        local: &bloomlab::StandardBloom<bloomlab::hash::AnyHasher, bloomlab::hash::AnyStrategy>,
    ) {
        let cfg = *f.config().unwrap();
        let layout = ShardLayout::new(cfg.m, cfg.options.shard_bits).unwrap();
        for (s, redis_bytes) in raw_shards(f).into_iter().enumerate() {
            let want = bitvec_to_redis_bytes(local.bit_vec(), &layout, s as u64, 0, u64::MAX / 2);
            // Redis' string ends at its last set byte; the rest must be zero locally.
            assert!(redis_bytes.len() <= want.len(), "shard {s} too long");
            assert_eq!(redis_bytes[..], want[..redis_bytes.len()], "shard {s}");
            assert!(
                want[redis_bytes.len()..].iter().all(|&b| b == 0),
                "shard {s} tail"
            );
        }
    }

    #[test]
    #[ignore = "needs Redis: .ci/redis-up.sh"]
    fn bitmap_is_bit_identical_to_local_standard_bloom() {
        let url = env("BLOOMLAB_REDIS_URL", "bit-identical");
        let combos = [
            (HashId::Xxh3, StrategyId::EnhancedDouble),
            (HashId::Murmur3, StrategyId::Guava64),
            (HashId::Murmur3, StrategyId::Guava32),
            (HashId::Sip24, StrategyId::Double),
            (HashId::Wyhash, StrategyId::Independent),
        ];
        let items = keys(1, 3000);
        for (ci, (h, s)) in combos.into_iter().enumerate() {
            for t in Transport::ALL {
                let mut f = fresh(&url, &format!("ident-{ci}-{t}"));
                f.set_transport(t);
                f.set_batch(700);
                // 4096-bit shards: the filter (~28,800 bits) spans 8 keys.
                assert!(f.try_init_with(3000, 0.01, opts(h, s, 4096)).unwrap());
                let new = f.add_many(&items).unwrap();
                match t {
                    // The bulk path does not read old bits; auto takes it for 700-item batches
                    // of a 3.6 KB filter (3.6 KB ≤ 64 B × 4,900 bit operations).
                    Transport::Bulk | Transport::Auto => assert_eq!(new, None, "{t}"),
                    _ => assert!(new.unwrap() > 2900, "{h}/{s}/{t}: {new:?} new"),
                }
                let mut local = f.local_empty().unwrap();
                for it in &items {
                    local.insert(it);
                    assert_eq!(f.positions(it).unwrap(), local.positions(it));
                }
                assert_bit_identical(&mut f, &local);
                assert_eq!(
                    f.export().unwrap().bit_vec(),
                    local.bit_vec(),
                    "{h}/{s}/{t}"
                );
                assert!(f.contains_many(&items).unwrap().iter().all(|&b| b));
                f.delete().unwrap();
            }
        }
    }

    #[test]
    #[ignore = "needs Redis: .ci/redis-up.sh"]
    fn setbit_order_is_msb_first_in_redis() {
        let url = env("BLOOMLAB_REDIS_URL", "bit order");
        let mut f = fresh(&url, "order");
        f.try_init_bits(1024, 3, BitmapOptions::default()).unwrap();
        f.add(b"apple").unwrap();
        let pos = f.positions(b"apple").unwrap();
        let raw = raw_shards(&mut f).remove(0);
        for &o in &pos {
            // Redis: bit o is bit 7 - o%8 of byte o/8.
            assert_ne!(raw[(o / 8) as usize] & (0x80 >> (o % 8)), 0, "bit {o}");
            let key = f.shard_key(0);
            let b: u8 = f
                .conn()
                .query(redis::cmd("GETBIT").arg(&key).arg(o), &key)
                .unwrap();
            assert_eq!(b, 1);
        }
        let ones: u32 = raw.iter().map(|b| b.count_ones()).sum();
        let mut distinct = pos.clone();
        distinct.sort_unstable();
        distinct.dedup();
        assert_eq!(ones as usize, distinct.len());
        f.delete().unwrap();
    }

    #[test]
    #[ignore = "needs Redis: .ci/redis-up.sh"]
    fn import_and_export_in_chunks() {
        let url = env("BLOOMLAB_REDIS_URL", "import/export");
        let mut f = fresh(&url, "import");
        let mut local = bloomlab::StandardBloom::with_rate_and(
            5000,
            0.01,
            bloomlab::hash::AnyHasher::new(HashId::Murmur3, 0),
            bloomlab::hash::AnyStrategy(StrategyId::Guava64),
        )
        .unwrap();
        let items = keys(2, 5000);
        for it in &items {
            local.insert(it);
        }
        f.set_transfer_chunk(100); // 48,000 bits = 6,000 bytes: 60 SETRANGEs over 3 shards
        let o = BitmapOptions {
            shard_bits: 16_384,
            ..BitmapOptions::default()
        };
        f.import(&local, o).unwrap();
        let cfg = *f.config().unwrap();
        assert_eq!((cfg.m, cfg.k), (local.bits(), local.k()));
        assert_eq!(cfg.options.hash, HashId::Murmur3);
        assert_bit_identical(&mut f, &local);
        assert!(f.contains_many(&items).unwrap().iter().all(|&b| b));
        f.set_transfer_chunk(37);
        let back = f.export().unwrap();
        assert_eq!(back.bit_vec(), local.bit_vec());
        // A local filter with other parameters is refused.
        let other = bloomlab::StandardBloom::with_rate_and(
            5000,
            0.001,
            bloomlab::hash::AnyHasher::new(HashId::Murmur3, 0),
            bloomlab::hash::AnyStrategy(StrategyId::Guava64),
        )
        .unwrap();
        assert!(matches!(f.import(&other, o), Err(Error::Incompatible(_))));
        f.delete().unwrap();
    }

    #[test]
    #[ignore = "needs Redis: .ci/redis-up.sh"]
    fn try_init_is_idempotent_and_refuses_other_parameters() {
        let url = env("BLOOMLAB_REDIS_URL", "try_init");
        let mut f = fresh(&url, "init");
        assert!(f.try_init(10_000, 0.01).unwrap());
        assert!(!f.try_init(10_000, 0.01).unwrap());
        f.add(b"x").unwrap();
        let err = f.try_init(10_000, 0.001).unwrap_err();
        let Error::Incompatible(msg) = &err else {
            panic!("{err:?}")
        };
        assert!(msg.contains("m 95850") && msg.contains("k 7"), "{msg}");
        // A second handle sees the stored parameters, nothing was overwritten.
        let mut g = BitmapBloom::new(RedisConn::open(&url).unwrap(), &name("init")).unwrap();
        assert_eq!(g.config().unwrap().m, 95_850);
        assert!(g.contains(b"x").unwrap());
        let other = BitmapOptions {
            seed: 99,
            ..BitmapOptions::default()
        };
        assert!(matches!(
            g.try_init_with(10_000, 0.01, other),
            Err(Error::Incompatible(m)) if m.contains("seed 0 (asked 99)")
        ));
        // Operations on a filter that does not exist say so.
        f.delete().unwrap();
        let e = f.add(b"y").unwrap_err();
        assert!(e.to_string().contains("try_init"), "{e}");
    }

    #[test]
    #[ignore = "needs Redis: .ci/redis-up.sh"]
    fn a_batch_is_one_round_trip() {
        let url = env("BLOOMLAB_REDIS_URL", "round trips");
        let items = keys(3, 1000);
        for t in Transport::ALL {
            let mut f = fresh(&url, &format!("rt-{t}"));
            f.try_init(1000, 0.01).unwrap();
            f.set_transport(t);
            f.set_batch(1000);
            let r0 = f.conn().round_trips();
            f.add_many(&items).unwrap();
            assert_eq!(f.conn().round_trips() - r0, 1, "{t} add");
            let r1 = f.conn().round_trips();
            assert!(f.contains_many(&items).unwrap().iter().all(|&b| b));
            assert_eq!(f.conn().round_trips() - r1, 1, "{t} query");
            // And the server saw as many bit operations as positions, no more.
            f.delete().unwrap();
        }
    }

    #[test]
    #[ignore = "needs Redis: .ci/redis-up.sh"]
    fn count_info_and_fpr() {
        let url = env("BLOOMLAB_REDIS_URL", "count/info/fpr");
        let mut f = fresh(&url, "count");
        f.try_init(20_000, 0.01).unwrap();
        let items = keys(4, 20_000);
        f.add_many(&items).unwrap();
        f.add_many(&items[..5000]).unwrap(); // repeats do not change the estimate
        let est = f.count().unwrap();
        assert!((est - 20_000.0).abs() < 400.0, "estimated {est}");
        let info = f.info().unwrap();
        assert_eq!((info.m, info.k), (191_701, 7));
        assert!(info.memory_bytes >= info.m / 8, "{info:?}");
        assert!(f.contains_many(&items).unwrap().iter().all(|&b| b));
        let fp = f
            .contains_many(&absent(4, 50_000))
            .unwrap()
            .iter()
            .filter(|&&b| b)
            .count();
        let fpr = fp as f64 / 50_000.0;
        // Expected ≈ fill^k ≈ 0.01; 50,000 queries give a standard error of 0.00045.
        assert!((0.0075..0.0125).contains(&fpr), "fpr {fpr}");
        assert!(
            (info.fpr_at_fill - fpr).abs() < 0.002,
            "{} vs {fpr}",
            info.fpr_at_fill
        );
        f.delete().unwrap();
    }

    #[test]
    #[ignore = "needs Redis: .ci/redis-up.sh"]
    fn concurrent_writers_leave_no_false_negatives() {
        let url = env("BLOOMLAB_REDIS_URL", "concurrent writers");
        let mut f = fresh(&url, "concurrent");
        f.try_init(40_000, 0.01).unwrap();
        let threads: Vec<_> = (0..4u64)
            .map(|t| {
                let url = url.clone();
                std::thread::spawn(move || {
                    let mut g =
                        BitmapBloom::new(RedisConn::open(&url).unwrap(), &name("concurrent"))
                            .unwrap();
                    // Each thread its own transport: SETBIT pipeline, BITFIELD, Lua, bulk OR.
                    g.set_transport(
                        [
                            Transport::Pipeline,
                            Transport::Bitfield,
                            Transport::Lua,
                            Transport::Bulk,
                        ][t as usize],
                    );
                    g.set_batch(100);
                    // Overlapping ranges: thread t adds keys 8000·t .. 8000·t + 12000.
                    let all = keys(5, 40_000);
                    let lo = (8000 * t) as usize;
                    g.add_many(&all[lo..(lo + 12_000).min(40_000)]).unwrap();
                })
            })
            .collect();
        for t in threads {
            t.join().unwrap();
        }
        let all = keys(5, 40_000);
        let found = f.contains_many(&all).unwrap();
        // Keys 0..36000 were added (by one or two threads): every one must be found.
        let lost = found[..36_000].iter().filter(|&&b| !b).count();
        assert_eq!(lost, 0, "false negatives after concurrent adds");
        // Keys 36000.. were never added: found only as false positives (fill 0.9 n → < 1 %).
        let fp = found[36_000..].iter().filter(|&&b| b).count();
        assert!(fp < 60, "{fp} of 4000 never-added keys found");
        f.delete().unwrap();
    }

    #[test]
    #[ignore = "needs Redis: .ci/redis-up.sh"]
    fn wrong_key_type_names_the_key() {
        let url = env("BLOOMLAB_REDIS_URL", "WRONGTYPE");
        let mut f = fresh(&url, "wrongtype");
        f.try_init_bits(
            8192,
            5,
            BitmapOptions {
                shard_bits: 4096,
                ..BitmapOptions::default()
            },
        )
        .unwrap();
        let key = f.shard_key(1);
        f.conn()
            .query::<()>(redis::cmd("LPUSH").arg(&key).arg("intruder"), &key)
            .unwrap();
        for t in Transport::ALL {
            f.set_transport(t);
            let e = f.add_many(&keys(6, 200)).unwrap_err();
            let text = e.to_string();
            assert!(
                matches!(
                    e,
                    Error::Redis {
                        connection: false,
                        ..
                    }
                ),
                "{t}: {e:?}"
            );
            assert!(
                text.contains(&key) && text.contains("WRONGTYPE"),
                "{t}: {text}"
            );
        }
        // try_init on a name whose shard is taken refuses to create the filter.
        let mut g = fresh(&url, "wrongtype2");
        let k2 = g.shard_key(0);
        g.conn()
            .query::<()>(redis::cmd("SADD").arg(&k2).arg("x"), &k2)
            .unwrap();
        let e = g.try_init(100, 0.01).unwrap_err().to_string();
        assert!(e.contains(&k2) && e.contains("WRONGTYPE"), "{e}");
        g.conn()
            .query::<()>(redis::cmd("DEL").arg(&k2), &k2)
            .unwrap();
        f.conn()
            .query::<()>(redis::cmd("DEL").arg(&key), &key)
            .unwrap();
        f.delete().unwrap();
        // The config key of another type.
        let mut h = fresh(&url, "wrongtype3");
        let ck = h.config_key();
        h.conn()
            .query::<()>(redis::cmd("SET").arg(&ck).arg("hello"), &ck)
            .unwrap();
        let e = BitmapBloom::new(RedisConn::open(&url).unwrap(), &name("wrongtype3"))
            .unwrap_err()
            .to_string();
        assert!(e.contains(&ck) && e.contains("WRONGTYPE"), "{e}");
        h.conn()
            .query::<()>(redis::cmd("DEL").arg(&ck), &ck)
            .unwrap();
    }

    #[test]
    fn unreachable_server_names_the_address() {
        // No server needed: nothing listens on port 1.
        let e = RedisConn::open("redis://127.0.0.1:1").unwrap_err();
        assert!(matches!(
            e,
            Error::Redis {
                connection: true,
                ..
            }
        ));
        assert!(e.to_string().contains("127.0.0.1:1"), "{e}");
    }

    #[test]
    #[ignore = "needs Redis: .ci/redis-up.sh"]
    fn missing_module_names_the_module() {
        // Any server without RedisBloom: the cluster nodes (never restarted by a test, unlike
        // the AOF instance), else the main server when it lacks the module.
        let url = match (
            std::env::var("BLOOMLAB_REDIS_CLUSTER"),
            std::env::var("BLOOMLAB_REDISBLOOM").as_deref(),
            std::env::var("BLOOMLAB_REDIS_URL"),
        ) {
            (Ok(u), _, _) if !u.is_empty() => u,
            (_, Ok("1"), _) | (_, _, Err(_)) => panic!(
                "missing module: needs a server without RedisBloom: BLOOMLAB_REDIS_CLUSTER \
                 (.ci/redis-up.sh), or BLOOMLAB_REDIS_URL without BLOOMLAB_REDISBLOOM=1"
            ),
            (_, _, Ok(u)) => u,
        };
        let e = BfFilter::reserve(
            RedisConn::open(&url).unwrap(),
            "bloomlab-test:nomod",
            0.01,
            100,
            false,
        )
        .unwrap_err();
        let text = e.to_string();
        assert!(
            text.contains("module RedisBloom") && text.contains("BF.RESERVE"),
            "{text}"
        );
        let e = CfFilter::reserve(RedisConn::open(&url).unwrap(), "bloomlab-test:nomod", 100)
            .unwrap_err();
        assert!(e.to_string().contains("module RedisBloom"), "{e}");
    }

    #[test]
    #[ignore = "needs Redis: .ci/redis-up.sh"]
    fn redisbloom_filters_side_by_side() {
        let url = env("BLOOMLAB_REDIS_URL", "RedisBloom");
        need_redisbloom("RedisBloom");
        let items = keys(7, 10_000);
        let none = absent(7, 20_000);
        let key = name("bf");
        let mut c = RedisConn::open(&url).unwrap();
        c.query::<()>(redis::cmd("DEL").arg(&key), &key).unwrap();
        let mut bf = BfFilter::reserve(c, &key, 0.01, 10_000, false).unwrap();
        // BF.MADD answers 0 for an item whose bits were all set already (a false positive at
        // insert time), so a few of the 10,000 may not count as new.
        let new = bf.add_many(&items).unwrap();
        assert!(new > 9_900, "{new}");
        assert!(bf.contains_many(&items).unwrap().iter().all(|&b| b));
        let fp = bf
            .contains_many(&none)
            .unwrap()
            .iter()
            .filter(|&&b| b)
            .count();
        assert!(fp < 400, "BF fpr {fp}/20000");
        assert!(bf.memory().unwrap() > 10_000);
        let info = bf.info().unwrap();
        assert!(
            info.iter()
                .any(|(k, v)| k == "Number of items inserted" && *v == new.to_string()),
            "{info:?}"
        );
        bf.delete().unwrap();
        let mut c = RedisConn::open(&url).unwrap();
        c.query::<()>(redis::cmd("DEL").arg(&key), &key).unwrap();
        let mut cf = CfFilter::reserve(c, &key, 10_000).unwrap();
        assert_eq!(cf.add_many(&items).unwrap(), 10_000);
        assert!(cf.contains_many(&items).unwrap().iter().all(|&b| b));
        cf.delete().unwrap();
    }

    /// `calc --rule redisbloom` (and `redisbloom-nonscaling`) against what the real module
    /// allocates: `BF.DEBUG`'s bytes, bits and hashes of the one filter, `BF.INFO`'s Capacity,
    /// Number of filters and Size (the bit array plus `sizeof(SBChain) + sizeof(SBLink)`), and
    /// `MEMORY USAGE` at least that.
    #[test]
    #[ignore = "needs Redis: .ci/redis-up.sh"]
    fn bf_reserve_allocates_what_the_redisbloom_rule_says() {
        use bloomlab::theory::rules::{REDISBLOOM_STRUCT_BYTES, Rule, allocate};
        let url = env("BLOOMLAB_REDIS_URL", "RedisBloom sizing rule");
        need_redisbloom("RedisBloom sizing rule");
        let key = name("bf-rule");
        for (n, p) in [
            (1_000_000, 0.01),
            (1000, 0.03),
            (12_345, 0.001),
            // (p above 0.25 is capped at 0.25 since RedisBloom 8 (`BF_ERROR_RATE_CAP`, which the
            // rule models); the 2.8 module .ci/redis-up.sh loads does not cap, so no such point.)
            (1, 0.2),
            (777, 1e-9),
        ] {
            for (rule, nonscaling) in [
                (Rule::Redisbloom, false),
                (Rule::RedisbloomNonscaling, true),
            ] {
                let want = allocate(rule, n, p).unwrap();
                let mut c = RedisConn::open(&url).unwrap();
                c.query::<()>(redis::cmd("DEL").arg(&key), &key).unwrap();
                let mut bf = BfFilter::reserve(c, &key, p, n, nonscaling).unwrap();
                let debug: Vec<String> = bf
                    .conn()
                    .query(redis::cmd("BF.DEBUG").arg(&key), &key)
                    .unwrap();
                let field = |f: &str| -> u64 {
                    debug[1]
                        .split_whitespace()
                        .find_map(|w| w.strip_prefix(&format!("{f}:")))
                        .unwrap_or_else(|| panic!("{f} in {debug:?}"))
                        .parse()
                        .unwrap()
                };
                let at = format!("n = {n}, p = {p}, {}: {debug:?}", rule.name());
                assert_eq!(debug.len(), 2, "{at}");
                assert_eq!(
                    (field("bytes"), field("bits"), field("hashes")),
                    (want.bytes, want.m_bits, u64::from(want.k)),
                    "{at}"
                );
                let info = bf.info().unwrap();
                let get = |k: &str| info.iter().find(|(n, _)| n == k).map(|(_, v)| v.clone());
                assert_eq!(get("Capacity"), Some(n.to_string()), "{at}: {info:?}");
                assert_eq!(get("Number of filters").as_deref(), Some("1"), "{at}");
                assert_eq!(
                    get("Size"),
                    Some((want.bytes + REDISBLOOM_STRUCT_BYTES).to_string()),
                    "{at}: {info:?}"
                );
                assert!(bf.memory().unwrap() >= want.bytes, "{at}");
                bf.delete().unwrap();
            }
        }
    }

    /// A loopback TCP proxy to `upstream` whose first connection forwards at most `cut_request`
    /// bytes towards the server and `cut_reply` bytes back, then closes both sockets; later
    /// connections are forwarded faithfully. Accepts at most 3 connections, then stops.
    fn cutting_proxy(upstream: String, cut_request: usize, cut_reply: usize) -> String {
        fn pump(mut from: TcpStream, mut to: TcpStream, limit: usize) {
            let mut sent = 0usize;
            let mut buf = [0u8; 8192];
            while let Ok(k) = from.read(&mut buf) {
                if k == 0 {
                    break;
                }
                let k = k.min(limit - sent);
                if to.write_all(&buf[..k]).is_err() {
                    break;
                }
                sent += k;
                if sent >= limit {
                    break;
                }
            }
            let _ = to.shutdown(Shutdown::Both);
            let _ = from.shutdown(Shutdown::Both);
        }
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        let addr = listener.local_addr().unwrap().to_string();
        std::thread::spawn(move || {
            for (n, client) in listener.incoming().take(3).enumerate() {
                let Ok(client) = client else { return };
                let Ok(server) = TcpStream::connect(&upstream) else {
                    return;
                };
                let (req, rep) = if n == 0 {
                    (cut_request, cut_reply)
                } else {
                    (usize::MAX, usize::MAX)
                };
                let (c2, s2) = (client.try_clone().unwrap(), server.try_clone().unwrap());
                std::thread::spawn(move || pump(c2, s2, req));
                std::thread::spawn(move || pump(server, client, rep));
            }
        });
        addr
    }

    #[test]
    #[ignore = "needs Redis: .ci/redis-up.sh"]
    fn connection_lost_mid_batch_is_an_error_and_rerunning_is_safe() {
        let url = env("BLOOMLAB_REDIS_URL", "connection lost");
        let upstream = url
            .trim_start_matches("redis://")
            .trim_end_matches('/')
            .to_string();
        let items = keys(8, 2000);
        // (what is cut, request bytes, reply bytes): the connection set-up and the config read
        // take a few hundred bytes each way; one batch of 2000 items is 14,000 positions.
        let cuts = [("request", 2000, usize::MAX), ("reply", usize::MAX, 1500)];
        for t in Transport::ALL {
            for (cut, req, rep) in cuts {
                let test = format!("lost-{t}-{cut}");
                let mut f = fresh(&url, &test);
                f.try_init(2000, 0.01).unwrap();
                let proxy = cutting_proxy(upstream.clone(), req, rep);
                let conn = RedisConn::open(&format!("redis://{proxy}")).unwrap();
                let mut g = BitmapBloom::new(conn, &name(&test)).unwrap();
                g.set_transport(t);
                g.set_batch(2000);
                let bulk_add = matches!(t, Transport::Bulk | Transport::Auto);
                if cut == "reply" && bulk_add {
                    // A bulk add is answered with a 5-byte "+OK": cut a bulk query's reply
                    // (the whole 2.4 KB shard) instead.
                    g.add_many(&items).unwrap();
                    let e = g.contains_many(&items).unwrap_err();
                    assert!(
                        matches!(
                            e,
                            Error::Redis {
                                connection: true,
                                ..
                            }
                        ),
                        "{t}/{cut}: {e:?}"
                    );
                    assert!(
                        g.contains_many(&items).unwrap().iter().all(|&b| b),
                        "{t}/{cut}"
                    );
                } else {
                    let e = g.add_many(&items).unwrap_err();
                    assert!(
                        matches!(
                            e,
                            Error::Redis {
                                connection: true,
                                ..
                            }
                        ),
                        "{t}/{cut}: {e:?}"
                    );
                    assert!(e.to_string().contains(&proxy), "{t}/{cut}: {e}");
                    // Re-running the batch (the handle reconnects) is safe and completes it.
                    g.add_many(&items).unwrap();
                }
                assert!(
                    f.contains_many(&items).unwrap().iter().all(|&b| b),
                    "{t}/{cut}"
                );
                let mut local = f.local_empty().unwrap();
                for it in &items {
                    local.insert(it);
                }
                assert_eq!(
                    f.export().unwrap().bit_vec(),
                    local.bit_vec(),
                    "{t}/{cut}: stray bits"
                );
                f.delete().unwrap();
            }
        }
    }

    #[test]
    #[ignore = "needs Redis: .ci/redis-up.sh"]
    fn cluster_sharded_filter() {
        let urls = env("BLOOMLAB_REDIS_CLUSTER", "cluster");
        let items = keys(9, 5000);
        for t in Transport::ALL {
            let conn = RedisConn::open(&urls).unwrap();
            assert!(conn.is_cluster());
            let mut f = BitmapBloom::new(conn, &name(&format!("cluster-{t}"))).unwrap();
            f.delete().unwrap();
            f.set_transport(t);
            // ~48,000 bits in 8,192-bit shards: 6 keys, one slot.
            f.try_init_with(
                5000,
                0.01,
                BitmapOptions {
                    shard_bits: 8192,
                    ..BitmapOptions::default()
                },
            )
            .unwrap();
            let r0 = f.conn().round_trips();
            f.add_many(&items).unwrap();
            assert_eq!(f.conn().round_trips() - r0, 5, "{t}: 5 batches of 1000");
            assert!(f.contains_many(&items).unwrap().iter().all(|&b| b));
            let slots: Vec<u64> = (0..6)
                .map(|s| {
                    let k = f.shard_key(s);
                    f.conn()
                        .query(redis::cmd("CLUSTER").arg("KEYSLOT").arg(&k), &k)
                        .unwrap()
                })
                .collect();
            assert!(slots.iter().all(|&s| s == slots[0]), "{slots:?}");
            let mut local = f.local_empty().unwrap();
            for it in &items {
                local.insert(it);
            }
            assert_bit_identical(&mut f, &local);
            assert!((f.count().unwrap() - 5000.0).abs() < 150.0);
            // MEMORY USAGE is routed to the node holding the keys.
            let info = f.info().unwrap();
            assert!(info.memory_bytes >= info.m / 8, "{t}: {info:?}");
            f.delete().unwrap();
        }
    }

    fn aof_pid(conn: &mut RedisConn) -> u32 {
        let info: String = conn
            .query(redis::cmd("INFO").arg("server"), "INFO")
            .unwrap();
        info.lines()
            .find_map(|l| l.strip_prefix("process_id:"))
            .unwrap()
            .trim()
            .parse()
            .unwrap()
    }

    fn wait_gone(pid: u32) {
        for _ in 0..200 {
            if !std::path::Path::new(&format!("/proc/{pid}")).exists() {
                return;
            }
            std::thread::sleep(Duration::from_millis(25));
        }
        panic!("redis pid {pid} did not exit");
    }

    fn start_aof(script: &str) {
        let st = std::process::Command::new("bash")
            .arg(script)
            .status()
            .unwrap();
        assert!(st.success(), "{script} failed");
    }

    #[test]
    #[ignore = "needs Redis: .ci/redis-up.sh"]
    fn aof_restart_keeps_every_acknowledged_add() {
        let url = env("BLOOMLAB_REDIS_AOF_URL", "AOF restart");
        let start = env("BLOOMLAB_REDIS_AOF_START", "AOF restart");
        start_aof(&start);
        let items = keys(10, 6000);
        let mut f = fresh(&url, "aof");
        f.try_init(6000, 0.01).unwrap();
        f.set_batch(500);
        // Round 1: SIGKILL right after the last acknowledged batch (no shutdown fsync).
        f.add_many(&items[..3000]).unwrap();
        let pid = aof_pid(f.conn());
        let st = std::process::Command::new("kill")
            .arg("-9")
            .arg(pid.to_string())
            .status()
            .unwrap();
        assert!(st.success());
        wait_gone(pid);
        start_aof(&start);
        let mut g = BitmapBloom::new(RedisConn::open(&url).unwrap(), &name("aof")).unwrap();
        assert!(g.config().is_some(), "config survived");
        assert!(
            g.contains_many(&items[..3000]).unwrap().iter().all(|&b| b),
            "after SIGKILL"
        );
        // Round 2: SHUTDOWN (graceful), through the handle that survived the kill (reconnects).
        g.add_many(&items[3000..]).unwrap();
        let pid = aof_pid(g.conn());
        let _ = g.conn().query::<()>(&redis::cmd("SHUTDOWN"), "SHUTDOWN");
        wait_gone(pid);
        // While the server is down: a typed connection error, no panic.
        let e = g.contains(&items[0]).unwrap_err();
        assert!(
            matches!(
                e,
                Error::Redis {
                    connection: true,
                    ..
                }
            ),
            "{e:?}"
        );
        start_aof(&start);
        assert!(
            g.contains_many(&items).unwrap().iter().all(|&b| b),
            "after SHUTDOWN"
        );
        let mut local = g.local_empty().unwrap();
        for it in &items {
            local.insert(it);
        }
        assert_eq!(g.export().unwrap().bit_vec(), local.bit_vec());
        g.delete().unwrap();
    }

    /// `bloomlab redis penetration ARGS` with `TMPDIR` set to `tmp`; (exit status, stdout, stderr).
    fn penetration_cli(args: &[&str], tmp: &std::path::Path) -> (Option<i32>, String, String) {
        let o = std::process::Command::new(env!("CARGO_BIN_EXE_bloomlab"))
            .args(["redis", "penetration"])
            .args(args)
            .env("TMPDIR", tmp)
            .stdin(std::process::Stdio::null())
            .output()
            .unwrap();
        (
            o.status.code(),
            String::from_utf8_lossy(&o.stdout).into_owned(),
            String::from_utf8_lossy(&o.stderr).into_owned(),
        )
    }

    fn product_names(path: &std::path::Path) -> Vec<String> {
        let c = rusqlite::Connection::open(path).unwrap();
        let mut st = c.prepare("SELECT name FROM products ORDER BY id").unwrap();
        st.query_map([], |r| r.get(0))
            .unwrap()
            .map(|r| r.unwrap())
            .collect()
    }

    /// The demo never deletes data it did not create: a user's database (a `products` table of
    /// 5 rows, no `bloomlab_demo` marker) is refused before anything connects, with a one-line
    /// error and exit status 2, and left as it was; `--overwrite` lets the demo run on it. No
    /// server is needed up to the last step (a closed port on 127.0.0.1 stands for one).
    /// A database of the user's own (five products) in `dir`.
    fn user_db(dir: &std::path::Path) -> std::path::PathBuf {
        let db = dir.join("userdb.sqlite");
        rusqlite::Connection::open(&db)
            .unwrap()
            .execute_batch(
                "CREATE TABLE products (id INTEGER PRIMARY KEY, name TEXT NOT NULL, \
                 price_cents INTEGER NOT NULL);
                 INSERT INTO products VALUES (1, 'mine 1', 1), (2, 'mine 2', 2), \
                 (3, 'mine 3', 3), (4, 'mine 4', 4), (5, 'mine 5', 5);",
            )
            .unwrap();
        db
    }

    /// No server needed: the refusal comes before connecting, and a closed port on 127.0.0.1
    /// is what the run with `--overwrite` meets.
    #[test]
    fn cli_penetration_refuses_a_database_it_did_not_create() {
        let dir = tempfile::tempdir().unwrap();
        let db = user_db(dir.path());
        let before = std::fs::read(&db).unwrap();
        let dbs = db.to_str().unwrap();
        let out = dir.path().join("pen.csv");
        let outs = out.to_str().unwrap();
        let closed = ["--url", "redis://127.0.0.1:1", "--db", dbs, "--out", outs];
        let (code, _, err) = penetration_cli(&closed, dir.path());
        assert_eq!(code, Some(2), "{err}");
        assert_eq!(err.trim_end().lines().count(), 1, "one line: {err}");
        assert!(
            err.contains("invalid db")
                && err.contains("userdb.sqlite")
                && err.contains("bloomlab_demo")
                && err.contains("--overwrite")
                && !err.contains("127.0.0.1:1")
                && !err.contains("panicked"),
            "refused before connecting: {err}"
        );
        assert_eq!(
            std::fs::read(&db).unwrap(),
            before,
            "the database was changed"
        );
        assert_eq!(product_names(&db).len(), 5);
        // With --overwrite the check passes and the demo goes on to connect (here: nothing
        // listens); it writes nothing before it is connected.
        let (code, _, err) = penetration_cli(&[&closed[..], &["--overwrite"]].concat(), dir.path());
        // An unreachable server is a runtime failure: exit status 3 (bad input is 2).
        assert_eq!(code, Some(3), "{err}");
        assert!(
            err.contains("127.0.0.1:1") && !err.contains("panicked"),
            "{err}"
        );
        assert_eq!(product_names(&db).len(), 5);
    }

    /// With a server, `--overwrite` makes the user's database the demo's; a second run then
    /// needs no `--overwrite`.
    #[test]
    #[ignore = "needs Redis: .ci/redis-up.sh"]
    fn cli_penetration_overwrite_takes_over_the_database() {
        let url = env(
            "BLOOMLAB_REDIS_URL",
            "bloomlab redis penetration --overwrite",
        );
        let dir = tempfile::tempdir().unwrap();
        let db = user_db(dir.path());
        let dbs = db.to_str().unwrap();
        let out = dir.path().join("pen.csv");
        let outs = out.to_str().unwrap();
        let run = [
            "--url",
            &url,
            "--db",
            dbs,
            "--out",
            outs,
            "--products",
            "300",
            "--requests",
            "600",
            "--overwrite",
        ];
        let (code, stdout, err) = penetration_cli(&run, dir.path());
        assert_eq!(code, Some(0), "{stdout}{err}");
        let names = product_names(&db);
        assert_eq!(names.len(), 300);
        assert!(names.iter().all(|n| n.starts_with("product ")), "{names:?}");
        assert!(std::fs::read_to_string(&out).unwrap().lines().count() == 3);
        // Now the database is the demo's: a second run needs no --overwrite.
        let (code, stdout, err) = penetration_cli(&run[..run.len() - 1], dir.path());
        assert_eq!(code, Some(0), "{stdout}{err}");
    }

    /// What is in `tmp` besides `pen.csv`.
    fn left_behind(tmp: &std::path::Path) -> Vec<String> {
        std::fs::read_dir(tmp)
            .unwrap()
            .map(|e| e.unwrap().file_name().into_string().unwrap())
            .filter(|n| n != "pen.csv")
            .collect()
    }

    /// Without `--db` the database lives in a private temporary directory that is gone
    /// afterwards when the run fails (closed port on 127.0.0.1; no server needed).
    #[test]
    fn cli_penetration_default_database_is_temporary() {
        let tmp = tempfile::tempdir().unwrap();
        let out = tmp.path().join("pen.csv");
        let outs = out.to_str().unwrap();
        let (code, _, err) =
            penetration_cli(&["--url", "redis://127.0.0.1:1", "--out", outs], tmp.path());
        assert_eq!(code, Some(3), "{err}");
        assert!(err.contains("127.0.0.1:1"), "{err}");
        assert_eq!(left_behind(tmp.path()), Vec::<String>::new(), "left behind");
    }

    /// … and when it succeeds, against a server.
    #[test]
    #[ignore = "needs Redis: .ci/redis-up.sh"]
    fn cli_penetration_default_database_is_temporary_after_a_run() {
        let url = env(
            "BLOOMLAB_REDIS_URL",
            "bloomlab redis penetration (default db)",
        );
        let tmp = tempfile::tempdir().unwrap();
        let out = tmp.path().join("pen.csv");
        let outs = out.to_str().unwrap();
        let (code, stdout, err) = penetration_cli(
            &[
                "--url",
                &url,
                "--out",
                outs,
                "--products",
                "200",
                "--requests",
                "400",
            ],
            tmp.path(),
        );
        assert_eq!(code, Some(0), "{stdout}{err}");
        assert!(stdout.contains("private temporary directory"), "{stdout}");
        assert_eq!(left_behind(tmp.path()), Vec::<String>::new(), "left behind");
    }

    #[test]
    #[ignore = "needs Redis: .ci/redis-up.sh"]
    fn cli_compare_writes_csv_and_names_an_unreachable_server() {
        let url = env("BLOOMLAB_REDIS_URL", "bloomlab redis compare");
        let bin = env!("CARGO_BIN_EXE_bloomlab");
        let dir = std::env::temp_dir().join(format!("bloomlab-cli-test-{}", std::process::id()));
        let out = dir.join("compare.csv");
        let mut cmd = std::process::Command::new(bin);
        cmd.args([
            "redis", "compare", "--url", &url, "--n", "3000", "--p", "1%", "--batch", "500",
        ])
        .arg("--out")
        .arg(&out);
        if std::env::var("BLOOMLAB_REDISBLOOM").as_deref() != Ok("1") {
            cmd.arg("--no-module");
        }
        let o = cmd.output().unwrap();
        let stdout = String::from_utf8_lossy(&o.stdout);
        assert!(
            o.status.success(),
            "{stdout}{}",
            String::from_utf8_lossy(&o.stderr)
        );
        assert!(
            stdout.contains("adds/s") && stdout.contains("bitmap"),
            "{stdout}"
        );
        let csv = std::fs::read_to_string(&out).unwrap();
        let rows: Vec<&str> = csv.lines().skip(1).collect();
        assert!(rows.len() >= Transport::ALL.len(), "{csv}");
        let header: Vec<&str> = csv.lines().next().unwrap().split(',').collect();
        let fneg = header.iter().position(|h| *h == "false_negatives").unwrap();
        assert!(
            rows.iter().all(|r| r.split(',').nth(fneg) == Some("0")),
            "{csv}"
        );
        std::fs::remove_dir_all(&dir).unwrap();
        let o = std::process::Command::new(bin)
            .args([
                "redis",
                "compare",
                "--url",
                "redis://127.0.0.1:1",
                "--n",
                "10",
            ])
            .output()
            .unwrap();
        // An unreachable server: exit status 3 (a runtime failure, not bad input).
        assert_eq!(o.status.code(), Some(3));
        let err = String::from_utf8_lossy(&o.stderr);
        assert!(
            err.contains("127.0.0.1:1") && !err.contains("panicked"),
            "{err}"
        );
    }

    /// A malformed `--url` is the command's fault: exit status 2 naming the flag, before any
    /// connection, and without the password it carried (no server needed).
    #[test]
    fn cli_malformed_url_is_bad_input() {
        let bin = env!("CARGO_BIN_EXE_bloomlab");
        for url in [
            "notaurl",
            "redis://:s3cret-pw@127.0.0.1:notaport",
            "redis://127.0.0.1:1,bad",
        ] {
            let o = std::process::Command::new(bin)
                .args(["redis", "compare", "--url", url, "--n", "10"])
                .output()
                .unwrap();
            let err = String::from_utf8_lossy(&o.stderr);
            assert_eq!(o.status.code(), Some(2), "{url}: {err}");
            assert!(err.contains("invalid url"), "{url}: {err}");
            assert!(!err.contains("s3cret-pw"), "{url}: {err}");
        }
    }
}
