use super::container::le_u64;
use super::*;
use crate::filter::{Filter, Removable};
use crate::filters::{BlockedBloom, CountingBloom, CuckooFilter, ScalableBloom, SplitBlockBloom};
use crate::filters::{ConcurrentBloom, ScalableParams};
use crate::hash::{
    AnyHasher, AnyStrategy, EnhancedDoubleHashing, Guava32, Guava64, Murmur3, Sip24, Xxh3,
};
use crate::registry::AnyFilter;

fn sample() -> StandardBloom {
    let mut f = StandardBloom::with_rate(500, 0.01).unwrap();
    for i in 0u64..300 {
        f.insert(&i.to_le_bytes());
    }
    f
}

use super::reseal;

fn corrupt_msg<T: std::fmt::Debug>(r: Result<T>) -> String {
    match r {
        Err(Error::Corrupt(m)) => m,
        other => panic!("expected Corrupt, got {other:?}"),
    }
}

#[test]
fn round_trip_every_hash_and_strategy() {
    for h in HashId::ALL {
        for s in StrategyId::ALL {
            let mut f =
                StandardBloom::with_rate_and(300, 0.02, AnyHasher::new(h, 99), AnyStrategy(s))
                    .unwrap();
            for i in 0u64..300 {
                f.insert(&i.to_le_bytes());
            }
            let opts = SaveOptions::default().key_policy(KeyPolicy::Store);
            let b = to_bytes(&f, &opts).unwrap();
            let g: StandardBloom<AnyHasher, AnyStrategy> =
                from_bytes(&b, &LoadOptions::default()).unwrap();
            assert_eq!(g.bit_vec(), f.bit_vec(), "{h}/{s}");
            assert_eq!(g.hasher(), f.hasher(), "{h}/{s}");
            assert_eq!((g.k(), g.len()), (f.k(), f.len()));
            assert!((0u64..300).all(|i| g.contains(&i.to_le_bytes())));
            assert_eq!(to_bytes(&g, &opts).unwrap(), b, "byte-identical re-save");
        }
    }
}

/// A filter of the typed `rotate-add-64` strategy (code 6) loads back as that type and by id,
/// answers the same, and refuses to load as another strategy.
#[test]
fn rotate_add_64_round_trips_typed_and_by_id() {
    use crate::hash::{EnhancedDouble64, RotateAdd64};
    let mut f = StandardBloom::with_rate_and(500, 0.01, Xxh3::default(), RotateAdd64).unwrap();
    for i in 0u64..500 {
        f.insert(&i.to_le_bytes());
    }
    let b = to_bytes(&f, &SaveOptions::default()).unwrap();
    let g: StandardBloom<Xxh3, RotateAdd64> = from_bytes(&b, &LoadOptions::default()).unwrap();
    let a: StandardBloom<AnyHasher, AnyStrategy> = from_bytes(&b, &LoadOptions::default()).unwrap();
    assert_eq!(g.bit_vec(), f.bit_vec());
    assert_eq!(a.strategy().0, StrategyId::RotateAdd64);
    for i in 0u64..5_000 {
        let item = i.to_le_bytes();
        assert_eq!(g.contains(&item), f.contains(&item), "{i}");
        assert_eq!(a.contains(&item), f.contains(&item), "{i}");
    }
    assert_eq!(to_bytes(&g, &SaveOptions::default()).unwrap(), b);
    let wrong: Result<StandardBloom<Xxh3, EnhancedDouble64>> =
        from_bytes(&b, &LoadOptions::default());
    assert!(
        matches!(
            wrong,
            Err(Error::Mismatch {
                what: "strategy",
                ..
            })
        ),
        "{wrong:?}"
    );
}

/// Items 0.. as keys; absent keys from a disjoint range.
fn key(i: u64) -> [u8; 8] {
    i.to_le_bytes()
}
fn absent(i: u64) -> [u8; 8] {
    (i | 1 << 63).to_le_bytes()
}

/// Save `f`, load it back as `F` and as `dyn Filter`; both answer exactly as `f` on 400
/// present and 20,000 absent keys (some of which are false positives) and agree on len,
/// bits, bytes, k, kind; re-saving gives the same bytes.
fn check_round_trip<F: Persist + Filter>(f: &F, present: u64) -> F {
    let opts = SaveOptions::default();
    let b = to_bytes(f, &opts).unwrap();
    let g: F = from_bytes(&b, &LoadOptions::new()).unwrap();
    let d = AnyFilter::from_bytes(&b, &LoadOptions::new()).unwrap();
    for h in [&g as &dyn Filter, &d] {
        assert_eq!(
            (h.len(), h.bits(), h.bytes(), h.k(), h.kind()),
            (f.len(), f.bits(), f.bytes(), f.k(), f.kind())
        );
        assert_eq!(
            (h.hash_id(), h.strategy_id()),
            (f.hash_id(), f.strategy_id())
        );
        assert!((0..present).all(|i| h.contains(&key(i))));
        let mut fp = 0;
        for i in 0..20_000 {
            let a = f.contains(&absent(i));
            assert_eq!(h.contains(&absent(i)), a, "absent key {i}");
            fp += u32::from(a);
        }
        assert!(fp > 0, "the test needs some false positives to compare");
        assert!(h.expected_fpr() == f.expected_fpr());
    }
    assert_eq!(to_bytes(&g, &opts).unwrap(), b, "byte-identical re-save");
    g
}

#[test]
fn counting_round_trip_keeps_counters_and_removes() {
    let mut f = CountingBloom::with_rate_and(
        400,
        0.05,
        AnyHasher::new(HashId::Murmur3, 3),
        AnyStrategy(StrategyId::Guava64),
    )
    .unwrap();
    for i in 0..400 {
        f.insert(&key(i));
    }
    for _ in 0..20 {
        f.insert(b"hot"); // saturates its counters
    }
    let mut g = check_round_trip(&f, 400);
    assert_eq!(g.counter_array(), f.counter_array());
    assert!(f.saturated() > 0);
    assert_eq!(g.saturated(), f.saturated());
    for i in 0..200 {
        g.remove(&key(i)).unwrap();
    }
    assert!((200..400).all(|i| g.contains(&key(i))));
    // A counter past an odd m is refused.
    let h = CountingBloom::with_counters(101, 3).unwrap();
    let mut b = to_bytes(&h, &SaveOptions::default()).unwrap();
    let last = b.len() - 9;
    b[last] |= 0x10;
    reseal(&mut b);
    assert!(corrupt_msg(AnyFilter::from_bytes(&b, &LoadOptions::new())).contains("past m"));
}

#[test]
fn blocked_round_trip() {
    let mut f =
        BlockedBloom::with_rate_and(400, 0.05, None, AnyHasher::new(HashId::Wyhash, 8)).unwrap();
    for i in 0..400 {
        f.insert(&key(i));
    }
    let g = check_round_trip(&f, 400);
    assert_eq!(g.block_slice(), f.block_slice());
    assert_eq!(g.sizing(), None, "the sizing report is not saved");
}

#[test]
fn split_block_round_trip_stays_parquet_compatible() {
    let mut f =
        SplitBlockBloom::with_rate_and(400, 0.05, AnyHasher::new(HashId::Xxh64, 0)).unwrap();
    for i in 0..400 {
        f.insert(&key(i));
    }
    let g = check_round_trip(&f, 400);
    assert!(g.parquet_compatible());
    assert_eq!(g.to_parquet_bytes(), f.to_parquet_bytes());
}

#[test]
fn cuckoo_round_trip_behaves_identically_afterwards() {
    let mut f = CuckooFilter::with_buckets_and(64, 12, AnyHasher::new(HashId::Xxh3, 1)).unwrap();
    for i in 0..230 {
        f.try_insert(&key(i)).unwrap(); // 230/256 = 0.9 load: evictions happen
    }
    assert!(f.kicks() > 0);
    let mut g = check_round_trip(&f, 230);
    assert_eq!(g.table_words(), f.table_words());
    assert_eq!(g.state(), f.state());
    // Same eviction choices from here on: inserting into both until full gives the same
    // tables, statistics and refusals.
    for i in 230..300 {
        let a = f.try_insert(&key(i)).is_ok();
        let b = g.try_insert(&key(i)).is_ok();
        assert_eq!(a, b, "insert {i}");
    }
    assert!(f.refused() > 0);
    assert_eq!(g.table_words(), f.table_words());
    assert_eq!((g.state(), g.len()), (f.state(), f.len()));
    g.remove(&key(0)).unwrap();
    assert_eq!(g.len(), f.len() - 1);
    // A count that disagrees with the table is refused.
    let mut b = to_bytes(&f, &SaveOptions::default()).unwrap();
    let at = 52 + 24; // layout 2: layout, b, buckets, f, longest chain, then len
    let n = le_u64(&b, at);
    b[at..at + 8].copy_from_slice(&(n + 1).to_le_bytes());
    reseal(&mut b);
    assert!(corrupt_msg(AnyFilter::from_bytes(&b, &LoadOptions::new())).contains("table holds"));
    // Fingerprint bits outside 4 to 32 are refused, and so are bucket sizes other than 2, 4, 8.
    let mut b = to_bytes(&f, &SaveOptions::default()).unwrap();
    b[68..72].copy_from_slice(&33u32.to_le_bytes());
    reseal(&mut b);
    assert!(corrupt_msg(AnyFilter::from_bytes(&b, &LoadOptions::new())).contains("33-bit"));
    let mut b = to_bytes(&f, &SaveOptions::default()).unwrap();
    b[56..60].copy_from_slice(&3u32.to_le_bytes());
    reseal(&mut b);
    assert!(corrupt_msg(AnyFilter::from_bytes(&b, &LoadOptions::new())).contains("buckets of 3"));
}

#[test]
fn scalable_round_trip_keeps_layers_and_grows_alike() {
    let mut f = ScalableBloom::with_params_and(
        ScalableParams::new(100, 0.02),
        AnyHasher::new(HashId::Sip24, 0),
        AnyStrategy(StrategyId::Guava32),
    )
    .unwrap();
    for i in 0..400 {
        f.insert(&key(i));
    }
    assert_eq!(f.layer_count(), 3);
    let mut g = check_round_trip(&f, 400);
    assert_eq!(g.layer_targets(), f.layer_targets());
    assert_eq!(g.params(), f.params());
    for (a, b) in g.layers().zip(f.layers()) {
        assert_eq!((a.bit_vec(), a.len()), (b.bit_vec(), b.len()));
    }
    for i in 400..1_000 {
        f.insert(&key(i));
        g.insert(&key(i));
    }
    assert_eq!(
        (g.layer_count(), g.len(), g.bits()),
        (f.layer_count(), f.len(), f.bits())
    );
    // A layer whose m is not what the params give is refused (m of layer 0 at 52 + 40).
    let mut b = to_bytes(&f, &SaveOptions::default()).unwrap();
    let m = le_u64(&b, 92);
    b[92..100].copy_from_slice(&(m + 64).to_le_bytes());
    reseal(&mut b);
    assert!(corrupt_msg(AnyFilter::from_bytes(&b, &LoadOptions::new())).contains("params give"));
    // So is a tightening ratio out of range.
    let mut b = to_bytes(&f, &SaveOptions::default()).unwrap();
    b[76..84].copy_from_slice(&1.5f64.to_le_bytes());
    reseal(&mut b);
    assert!(corrupt_msg(AnyFilter::from_bytes(&b, &LoadOptions::new())).contains("scalable"));
}

#[test]
fn a_blocked_file_counting_u64_scale_items_answers_its_model_at_once() {
    // Fuzzing found this: len ≈ 1.1·10^19 in a blocked file made expected_fpr() walk a
    // Poisson window billions of terms wide.
    let f = BlockedBloom::with_bits(512, 13).unwrap();
    let mut b = to_bytes(&f, &SaveOptions::default()).unwrap();
    b[68..76].copy_from_slice(&10_898_148_156_873_113_620u64.to_le_bytes());
    reseal(&mut b);
    let g = AnyFilter::from_bytes(&b, &LoadOptions::new()).unwrap();
    assert_eq!(g.expected_fpr(), 1.0);
    assert!(!g.details().is_empty());
}

#[test]
fn a_saved_kind_is_refused_as_another() {
    let f = CuckooFilter::with_buckets(16, 8).unwrap();
    let b = to_bytes(&f, &SaveOptions::default()).unwrap();
    let e = from_bytes::<StandardBloom>(&b, &LoadOptions::new()).unwrap_err();
    assert!(
        matches!(
            e,
            Error::Mismatch {
                what: "filter kind",
                ..
            }
        ),
        "{e}"
    );
    // A kind without a strategy whose file names one is corrupt.
    let mut b = b.clone();
    b[12] = StrategyId::Guava32.code();
    reseal(&mut b);
    assert!(
        corrupt_msg(AnyFilter::from_bytes(&b, &LoadOptions::new())).contains("no index strategy")
    );
}

#[test]
fn header_layout_is_as_documented() {
    let f = sample();
    let b = to_bytes(&f, &SaveOptions::default()).unwrap();
    assert_eq!(&b[..8], b"\x89BLMLAB\n");
    assert_eq!(u16::from_le_bytes([b[8], b[9]]), 1);
    // Literal numbers, not `FilterKind::Standard.code()`: the test must fail if a code changes.
    assert_eq!(b[10], 0, "kind: standard");
    assert_eq!(b[11], 4, "hash: xxh3");
    assert_eq!(b[12], 1, "strategy: enhanced-double");
    assert_eq!(b[13], 0, "xxh3 seed stored");
    assert_eq!(le_u64(&b, 40) & 0xffff_ffff, 24);
    assert_eq!(le_u64(&b, 44), f.bit_vec().words().len() as u64 * 8);
    assert_eq!(le_u64(&b, 52), f.bits());
    assert_eq!(b.len(), 52 + 24 + f.bit_vec().words().len() * 8 + 8);
}

#[test]
fn refuses_each_kind_of_damage() {
    let good = to_bytes(&sample(), &SaveOptions::default()).unwrap();
    let o = LoadOptions::default();
    let load = |b: &[u8]| from_bytes::<StandardBloom>(b, &o);
    assert!(load(&good).is_ok());

    let mut b = good.clone();
    b[0] = b'X';
    assert!(corrupt_msg(load(&b)).contains("magic"));
    assert!(corrupt_msg(load(b"\x89BLM")).contains("truncated"));
    assert!(corrupt_msg(load(&good[..good.len() - 1])).contains("truncated"));
    assert!(corrupt_msg(load(&good[..40])).contains("truncated"));
    let mut b = good.clone();
    b.push(0);
    assert!(corrupt_msg(load(&b)).contains("trailing"));

    let mut b = good.clone();
    b[8] = 2;
    assert_eq!(
        load(&b).unwrap_err(),
        Error::UnsupportedVersion {
            found: 2,
            supported: 1
        }
    );

    let mut b = good.clone();
    b[100] ^= 1;
    assert!(corrupt_msg(load(&b)).contains("checksum"));

    let mut b = good.clone();
    b[11] = 200;
    reseal(&mut b);
    assert!(corrupt_msg(load(&b)).contains("unknown hash"));
    let mut b = good.clone();
    b[12] = 77;
    reseal(&mut b);
    assert!(corrupt_msg(load(&b)).contains("unknown strategy"));
    let mut b = good.clone();
    b[10] = 99;
    reseal(&mut b);
    assert!(corrupt_msg(load(&b)).contains("unknown filter kind"));

    // k out of range
    let mut b = good.clone();
    b[60..64].copy_from_slice(&65u32.to_le_bytes());
    reseal(&mut b);
    assert!(corrupt_msg(load(&b)).contains("k = 65"));
    // m disagreeing with the payload length
    let mut b = good.clone();
    let m = le_u64(&b, 52);
    b[52..60].copy_from_slice(&(m + 64).to_le_bytes());
    reseal(&mut b);
    assert!(corrupt_msg(load(&b)).contains("payload"));
    // bits set past m
    let mut b = good.clone();
    let last = b.len() - 9;
    b[last] |= 0x80;
    reseal(&mut b);
    assert!(corrupt_msg(load(&b)).contains("past m"));
}

#[test]
fn refuses_a_different_hash_strategy_or_kind() {
    let good = to_bytes(&sample(), &SaveOptions::default()).unwrap();
    let e = from_bytes::<StandardBloom<AnyHasher, AnyStrategy>>(
        &good,
        &LoadOptions::new().hash(HashId::Murmur3),
    )
    .unwrap_err();
    assert!(matches!(e, Error::Mismatch { what: "hash", .. }), "{e}");
    assert!(e.to_string().contains("'xxh3'") && e.to_string().contains("'murmur3'"));
    // The type itself asks for a hash.
    let e =
        from_bytes::<StandardBloom<Murmur3, EnhancedDoubleHashing>>(&good, &LoadOptions::default())
            .unwrap_err();
    assert!(matches!(e, Error::Mismatch { what: "hash", .. }), "{e}");
    let e = from_bytes::<StandardBloom<Xxh3, Guava64>>(&good, &LoadOptions::default()).unwrap_err();
    assert!(
        matches!(
            e,
            Error::Mismatch {
                what: "strategy",
                ..
            }
        ),
        "{e}"
    );
    let e = AnyFilter::from_bytes(&good, &LoadOptions::new().kind(FilterKind::Cuckoo)).unwrap_err();
    assert!(
        matches!(
            e,
            Error::Mismatch {
                what: "filter kind",
                ..
            }
        ),
        "{e}"
    );
}

#[test]
fn secret_key_is_withheld_by_default_and_required_at_load() {
    let key = *b"0123456789abcdef";
    let mut f = StandardBloom::keyed(200, 0.01, key).unwrap();
    f.insert(b"secret item");
    let b = to_bytes(&f, &SaveOptions::default()).unwrap();
    assert_eq!(b[13], KEY_MODE_TAGGED, "withheld, with a MAC");
    assert_eq!(&b[16..32], &[0u8; 16], "no key bytes in the file");
    assert!(
        !b.windows(8).any(|w| w == &key[..8] || w == &key[8..]),
        "key bytes nowhere in the file"
    );
    let e = from_bytes::<StandardBloom<Sip24>>(&b, &LoadOptions::default()).unwrap_err();
    assert!(matches!(e, Error::KeyRequired { .. }), "{e}");
    let e = from_bytes::<StandardBloom<Sip24>>(&b, &LoadOptions::new().key(*b"0123456789abcdeX"))
        .unwrap_err();
    assert!(matches!(e, Error::WrongKey { .. }), "{e}");
    let g: StandardBloom<Sip24> = from_bytes(&b, &LoadOptions::new().key(key)).unwrap();
    assert!(g.contains(b"secret item"));
    assert_eq!(g.hasher(), f.hasher());

    // Opt-in: stored in the clear, then loadable without the key (and a wrong key refused).
    let b = to_bytes(&f, &SaveOptions::default().key_policy(KeyPolicy::Store)).unwrap();
    assert_eq!(b[13], 0);
    assert_eq!(&b[16..32], &key);
    let g: StandardBloom<Sip24> = from_bytes(&b, &LoadOptions::default()).unwrap();
    assert!(g.contains(b"secret item"));
    let e = from_bytes::<StandardBloom<Sip24>>(&b, &LoadOptions::new().key([0; 16])).unwrap_err();
    assert!(matches!(e, Error::WrongKey { .. }), "{e}");
}

#[test]
fn seed_wider_than_the_hash_is_corrupt() {
    let f = StandardBloom::with_rate_and(100, 0.01, Murmur3::with_seed(7), Guava64).unwrap();
    let mut b = to_bytes(&f, &SaveOptions::default()).unwrap();
    b[20] = 1; // k0 = 7 + 2^32
    let fp = key_fingerprint([le_u64(&b, 16), 0]);
    b[32..40].copy_from_slice(&fp.to_le_bytes());
    reseal(&mut b);
    let m = corrupt_msg(from_bytes::<StandardBloom<Murmur3, Guava64>>(
        &b,
        &LoadOptions::default(),
    ));
    assert!(m.contains("seed"), "{m}");
}

#[test]
fn a_loaded_filter_counting_u64_max_takes_inserts() {
    // Fuzzing found this: len = u64::MAX in a file, then an insert overflowed the count.
    let mut b = to_bytes(&sample(), &SaveOptions::default()).unwrap();
    b[68..76].copy_from_slice(&u64::MAX.to_le_bytes());
    reseal(&mut b);
    let mut f: StandardBloom = from_bytes(&b, &LoadOptions::new()).unwrap();
    f.insert(b"one more");
    assert_eq!(f.len(), u64::MAX);
    let mut g = f.clone();
    g.union_with(&f).unwrap();
    assert_eq!(g.len(), u64::MAX);
    let c: ConcurrentBloom = from_bytes(&b, &LoadOptions::new()).unwrap();
    c.insert(b"one more");
    assert_eq!(c.len(), u64::MAX);
    let mut d = AnyFilter::from_bytes(&b, &LoadOptions::new()).unwrap();
    d.insert(b"x");
    assert!(d.contains(b"x"));
}

#[test]
fn guava_m_near_u64_max_is_corrupt_not_a_panic() {
    // Fuzzing found this: m = 2^64 - 60 with a Guava strategy overflowed the word rounding.
    let f = StandardBloom::with_rate_and(100, 0.01, Murmur3::default(), Guava32).unwrap();
    let mut b = to_bytes(&f, &SaveOptions::default()).unwrap();
    b[52..60].copy_from_slice(&(u64::MAX - 59).to_le_bytes());
    reseal(&mut b);
    let m = corrupt_msg(AnyFilter::from_bytes(&b, &LoadOptions::new()));
    assert!(m.contains("multiple of 64"), "{m}");
}

/// A writer that fails after `left` bytes, as a full disk or a killed process would.
struct FailAfter<'a> {
    inner: &'a mut dyn Write,
    left: usize,
}
impl Write for FailAfter<'_> {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        if self.left == 0 {
            return Err(io::Error::other("injected failure"));
        }
        let n = buf.len().min(self.left);
        self.left -= n;
        self.inner.write(&buf[..n])
    }
    fn flush(&mut self) -> io::Result<()> {
        self.inner.flush()
    }
}

#[test]
fn interrupted_save_leaves_the_old_file_intact() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("f.bloom");
    let old = sample();
    old.save(&path).unwrap();
    let old_bytes = std::fs::read(&path).unwrap();

    let mut new = StandardBloom::with_rate(5_000, 0.001).unwrap();
    new.insert(b"new");
    let half = to_bytes(&new, &SaveOptions::default()).unwrap().len() / 2;
    let r = write_atomic(&path, false, |w| {
        let mut fw = FailAfter {
            inner: w,
            left: half,
        };
        write_to(&new, &mut fw, &SaveOptions::default())
    });
    let e = r.unwrap_err();
    assert!(e.to_string().contains("injected failure"), "{e}");
    assert_eq!(std::fs::read(&path).unwrap(), old_bytes, "old file intact");
    let back =
        StandardBloom::<Xxh3, EnhancedDoubleHashing>::load(&path, &LoadOptions::new()).unwrap();
    assert!((0u64..300).all(|i| back.contains(&i.to_le_bytes())));
    let leftovers: Vec<_> = std::fs::read_dir(dir.path())
        .unwrap()
        .map(|e| e.unwrap().file_name())
        .collect();
    assert_eq!(leftovers.len(), 1, "temporary file removed: {leftovers:?}");

    // A complete save replaces it.
    new.save(&path).unwrap();
    let back: StandardBloom = load(&path, &LoadOptions::new()).unwrap();
    assert!(back.contains(b"new"));
}

#[cfg(unix)]
#[test]
fn a_stored_secret_key_makes_the_file_private() {
    use std::os::unix::fs::PermissionsExt;
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("k.bloom");
    let f = StandardBloom::keyed(100, 0.01, [7; 16]).unwrap();
    save(
        &f,
        &path,
        &SaveOptions::default().key_policy(KeyPolicy::Store),
    )
    .unwrap();
    let mode = std::fs::metadata(&path).unwrap().permissions().mode();
    assert_eq!(mode & 0o077, 0, "mode {mode:o}");
}

#[test]
fn read_from_does_not_trust_declared_lengths() {
    // A header declaring 2^60 payload bytes over a 60-byte stream: refused as truncated.
    let mut b = to_bytes(&sample(), &SaveOptions::default()).unwrap();
    b[44..52].copy_from_slice(&(1u64 << 60).to_le_bytes());
    b.truncate(120);
    let got = read_from(&mut &b[..], "mem").unwrap();
    assert_eq!(got.len(), 120);
    assert!(
        corrupt_msg(from_bytes::<StandardBloom>(&got, &LoadOptions::new())).contains("truncated")
    );
    // Trailing bytes in a stream are refused while reading.
    let mut b = to_bytes(&sample(), &SaveOptions::default()).unwrap();
    b.extend_from_slice(&[0; 3]);
    assert!(corrupt_msg(read_from(&mut &b[..], "mem")).contains("trailing"));
}

#[test]
fn load_streams_each_kind_and_checks_the_kind_and_the_checksum() {
    let dir = std::env::temp_dir().join(format!("bloomlab-stream-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("c.bloom");
    let mut c = CountingBloom::with_rate(300, 0.01).unwrap();
    for i in 0u64..100 {
        c.insert(&i.to_le_bytes());
    }
    save(&c, &path, &SaveOptions::default()).unwrap();
    let g: CountingBloom = load(&path, &LoadOptions::new()).unwrap();
    assert_eq!(g.counter_array().as_bytes(), c.counter_array().as_bytes());
    assert_eq!(g.len(), 100);
    let e = load::<StandardBloom>(&path, &LoadOptions::new()).unwrap_err();
    assert!(
        matches!(
            e,
            Error::Mismatch {
                what: "filter kind",
                ..
            }
        ),
        "{e}"
    );
    // A flipped payload bit: the decoder succeeds, the checksum (compared last) refuses.
    let mut b = std::fs::read(&path).unwrap();
    b[HEADER_LEN + 24 + 3] ^= 0x10;
    std::fs::write(&path, &b).unwrap();
    assert!(corrupt_msg(load::<CountingBloom>(&path, &LoadOptions::new())).contains("checksum"));
    // The default decode_from (for kinds outside the crate) reads the payload whole.
    let good = to_bytes(&c, &SaveOptions::default()).unwrap();
    let v = open_verified(&good, &LoadOptions::new()).unwrap();
    struct Whole(usize);
    impl Persist for Whole {
        const KIND: FilterKind = FilterKind::Counting;
        fn identity(&self) -> Identity {
            unreachable!()
        }
        fn params(&self) -> Vec<u8> {
            unreachable!()
        }
        fn payload_len(&self) -> u64 {
            unreachable!()
        }
        fn write_payload(&self, _: &mut dyn Write) -> io::Result<()> {
            unreachable!()
        }
        fn decode(_: &Identity, _: &[u8], payload: &[u8]) -> Result<Self> {
            Ok(Whole(payload.len()))
        }
    }
    let w = Whole::decode_from(&v.identity, v.params, &mut Payload::from_slice(v.payload));
    assert_eq!(w.unwrap().0, v.payload.len());
    let _ = std::fs::remove_dir_all(&dir);
}
