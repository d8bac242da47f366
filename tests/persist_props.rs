//! Decoder hardening: filters round-trip through the file format, and mutated, truncated and
//! random bytes given to the loader give a typed error or a usable filter, never a panic.
//! (Allocation bounds are checked in `tests/persist_alloc.rs`, which needs its own allocator.)

use bloomlab::filters::{
    BinaryFuseFilter, BlockedBloom, CountingBloom, CuckooFilter, MultiblockBloom, PrefixFilter,
    QuotientFilter, RibbonFilter, ScalableBloom, ScalableParams, SplitBlockBloom, XorFilter,
};
use bloomlab::hash::{AnyHasher, AnyStrategy, HashId, StrategyId};
use bloomlab::persist::{self, KeyPolicy, LoadOptions, SaveOptions};
use bloomlab::spec::FilterSpec;
use bloomlab::{AnyFilter, Error, Filter, FilterKind, StandardBloom};
use proptest::prelude::*;

type Dyn = StandardBloom<AnyHasher, AnyStrategy>;

fn build(h: usize, s: usize, seed: u64, n: u64, p: f64, items: u64) -> Dyn {
    let mut f = StandardBloom::with_rate_and(
        n,
        p,
        AnyHasher::new(HashId::ALL[h], seed),
        AnyStrategy(StrategyId::ALL[s]),
    )
    .expect("valid parameters");
    for i in 0..items {
        f.insert(&i.to_le_bytes());
    }
    f
}

fn reseal(b: &mut [u8]) {
    if b.len() >= 8 {
        let n = b.len() - 8;
        let s = xxhash_rust::xxh3::xxh3_64(&b[..n]);
        b[n..].copy_from_slice(&s.to_le_bytes());
    }
}

/// Whatever the loader returns must be usable: a filter answers queries and takes inserts
/// without panicking, and an error is one of the loader's typed errors.
fn check_outcome(r: Result<AnyFilter, Error>) {
    match r {
        Ok(mut f) => {
            assert!(f.bits() >= 1 && (1..=64).contains(&f.k()));
            for i in 0u64..16 {
                let _ = f.contains(&i.to_le_bytes());
            }
            // A filter with a hard capacity (cuckoo, non-scaling) may refuse: with Full only;
            // a static-set filter (xor, binary fuse) refuses every insert, with Static only.
            match f.try_insert(b"probe") {
                Ok(()) => assert!(f.contains(b"probe")),
                Err(Error::Full { .. }) => {}
                Err(Error::Static { kind }) => {
                    assert!(f.kind().caps().static_set, "{kind}");
                    assert_eq!(kind, f.kind().name());
                }
                Err(e) => panic!("insert into a loaded filter failed: {e:?}"),
            }
            let _ = f.expected_fpr();
            let _ = f.details();
        }
        Err(
            Error::Corrupt(_)
            | Error::UnsupportedVersion { .. }
            | Error::Mismatch { .. }
            | Error::KeyRequired { .. }
            | Error::WrongKey { .. },
        ) => {}
        Err(e) => panic!("unexpected error class: {e:?}"),
    }
}

fn arb_filter() -> impl Strategy<Value = (Dyn, KeyPolicy)> {
    (
        0..HashId::ALL.len(),
        0..StrategyId::ALL.len(),
        any::<u64>(),
        1u64..3_000,
        0.001f64..0.5,
        0u64..500,
        prop_oneof![
            Just(KeyPolicy::Auto),
            Just(KeyPolicy::Store),
            Just(KeyPolicy::Withhold)
        ],
    )
        .prop_map(|(h, s, seed, n, p, items, kp)| (build(h, s, seed, n, p, items), kp))
}

/// A small file of `kind` with `items` inserted, hash `h`, strategy `s` (where the kind has one).
fn file_of_kind(kind: usize, h: usize, s: usize, seed: u64, items: u64, kp: KeyPolicy) -> Vec<u8> {
    let hasher = AnyHasher::new(HashId::ALL[h], seed);
    let strategy = AnyStrategy(StrategyId::ALL[s]);
    let opts = SaveOptions::default().key_policy(kp);
    let keys = (0..items).map(u64::to_le_bytes);
    match FilterKind::ALL[kind] {
        FilterKind::Standard => persist::to_bytes(&build(h, s, seed, 200, 0.05, items), &opts),
        FilterKind::Counting => {
            let mut f = CountingBloom::with_rate_and(200, 0.05, hasher, strategy).unwrap();
            keys.for_each(|k| f.insert(&k));
            persist::to_bytes(&f, &opts)
        }
        FilterKind::Blocked => {
            let mut f = BlockedBloom::with_rate_and(200, 0.05, None, hasher).unwrap();
            keys.for_each(|k| f.insert(&k));
            persist::to_bytes(&f, &opts)
        }
        FilterKind::SplitBlock => {
            let mut f = SplitBlockBloom::with_rate_and(200, 0.05, hasher).unwrap();
            keys.for_each(|k| f.insert(&k));
            persist::to_bytes(&f, &opts)
        }
        FilterKind::Scalable => {
            let mut p = ScalableParams::new(50, 0.05);
            p.nonscaling = seed.is_multiple_of(4);
            let mut f = ScalableBloom::with_params_and(p, hasher, strategy).unwrap();
            keys.for_each(|k| {
                let _ = f.try_insert(&k);
            });
            persist::to_bytes(&f, &opts)
        }
        FilterKind::Cuckoo => {
            let mut f = CuckooFilter::with_buckets_and(32, [8, 12, 16][s % 3], hasher).unwrap();
            keys.for_each(|k| {
                let _ = f.try_insert(&k);
            });
            persist::to_bytes(&f, &opts)
        }
        FilterKind::Xor => {
            let f = XorFilter::from_keys_and(keys, [8, 16][s % 2], hasher).unwrap();
            persist::to_bytes(&f, &opts)
        }
        FilterKind::BinaryFuse => {
            let f = BinaryFuseFilter::from_keys_and(keys, [8, 16][s % 2], hasher).unwrap();
            persist::to_bytes(&f, &opts)
        }
        FilterKind::Ribbon => {
            let f = RibbonFilter::from_keys_and(keys, [1, 7, 13, 32][s % 4], hasher).unwrap();
            persist::to_bytes(&f, &opts)
        }
        FilterKind::Quotient => {
            let mut f = QuotientFilter::with_qr_and(9, [1, 7, 19, 32][s % 4], hasher).unwrap();
            keys.for_each(|k| {
                let _ = f.try_insert(&k);
            });
            persist::to_bytes(&f, &opts)
        }
        FilterKind::Multiblock => {
            // Shapes with whole and partial last lines: (32, 8), (64, 5, b = 1), (64, 1, b = 5),
            // (32, 3, b = 2).
            let shape = [(32, 8, 8), (64, 5, 5), (64, 1, 5), (32, 3, 6)][s % 4];
            let shape = bloomlab::theory::multiblock::Shape::new(shape.0, shape.1, Some(shape.2));
            let mut f = MultiblockBloom::with_blocks_and(shape.unwrap(), 37, hasher).unwrap();
            keys.for_each(|k| f.insert(&k));
            persist::to_bytes(&f, &opts)
        }
        FilterKind::Prefix => {
            // Sized below, at and above the items: empty, overflowing and full PDs, a spare
            // that is empty, filling or refusing.
            let sizing = bloomlab::theory::prefix::sizing([40, 150, 400][s % 3], None).unwrap();
            let mut f = PrefixFilter::with_sizing_and(sizing, hasher).unwrap();
            keys.for_each(|k| {
                let _ = f.try_insert(&k);
            });
            persist::to_bytes(&f, &opts)
        }
    }
    .unwrap()
}

fn arb_file() -> impl Strategy<Value = Vec<u8>> {
    (
        0..FilterKind::ALL.len(),
        0..HashId::ALL.len(),
        0..StrategyId::ALL.len(),
        any::<u64>(),
        0u64..300,
        prop_oneof![
            Just(KeyPolicy::Auto),
            Just(KeyPolicy::Store),
            Just(KeyPolicy::Withhold)
        ],
    )
        .prop_map(|(k, h, s, seed, items, kp)| file_of_kind(k, h, s, seed, items, kp))
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 128, ..ProptestConfig::default() })]

    #[test]
    fn mutated_files_of_every_kind_never_panic(
        b in arb_file(),
        edits in prop::collection::vec((any::<prop::sample::Index>(), any::<u8>()), 1..8),
        cut in prop::option::of(any::<prop::sample::Index>()),
        resealed in any::<bool>(),
    ) {
        let original = b.clone();
        let mut b = b;
        // Every kind's file loads as given (with the key, when it was withheld).
        check_outcome(AnyFilter::from_bytes(&b, &LoadOptions::new()));
        for (i, v) in &edits {
            let at = i.index(b.len());
            b[at] = *v;
        }
        if let Some(c) = cut {
            b.truncate(c.index(b.len()));
        }
        if resealed {
            reseal(&mut b);
        }
        let r = AnyFilter::from_bytes(&b, &LoadOptions::new());
        if !resealed && b != original {
            prop_assert!(r.is_err());
        }
        check_outcome(r);
        check_outcome(AnyFilter::from_bytes(&b, &LoadOptions::new().key([7; 16])));
    }

    #[test]
    fn files_of_every_kind_round_trip(b in arb_file()) {
        let info = persist::read_info(&b).unwrap();
        if info.key_mode == persist::KeyMode::Stored {
            let f = AnyFilter::from_bytes(&b, &LoadOptions::new()).unwrap();
            prop_assert_eq!(f.kind(), info.kind);
            prop_assert_eq!(f.hash_id(), info.hash);
            prop_assert_eq!(f.strategy_id(), info.strategy);
        } else {
            let e = AnyFilter::from_bytes(&b, &LoadOptions::new()).unwrap_err();
            let is_required = matches!(e, Error::KeyRequired { .. });
            prop_assert!(is_required, "{e}");
        }
    }

    #[test]
    fn round_trip((f, kp) in arb_filter(), seed_bytes in any::<[u8; 16]>()) {
        let opts = SaveOptions::default().key_policy(kp);
        let b = persist::to_bytes(&f, &opts).unwrap();
        // Supply the filter's own key when it was withheld.
        let own = {
            let km = persist::PersistHasher::key_material(f.hasher());
            let mut k = [0u8; 16];
            k[..8].copy_from_slice(&km[0].to_le_bytes());
            k[8..].copy_from_slice(&km[1].to_le_bytes());
            k
        };
        let info = persist::read_info(&b).unwrap();
        let lo = if info.key_mode == persist::KeyMode::Withheld {
            LoadOptions::new().key(own)
        } else {
            LoadOptions::new()
        };
        let g: Dyn = persist::from_bytes(&b, &lo).unwrap();
        prop_assert_eq!(g.bit_vec(), f.bit_vec());
        prop_assert_eq!(g.hasher(), f.hasher());
        prop_assert_eq!((g.k(), g.len(), g.strategy()), (f.k(), f.len(), f.strategy()));
        prop_assert_eq!(persist::to_bytes(&g, &opts).unwrap(), b.clone());
        // Asking for a different hash is always refused.
        let other = HashId::ALL.iter().copied().find(|h| *h != Filter::hash_id(&f)).unwrap();
        let e = persist::from_bytes::<Dyn>(&b, &lo.clone().hash(other)).unwrap_err();
        let is_mismatch = matches!(e, Error::Mismatch { what: "hash", .. });
        prop_assert!(is_mismatch, "{e}");
        // A random key is refused when the key was withheld (unless it is the key).
        if info.key_mode == persist::KeyMode::Withheld && seed_bytes != own {
            let e = persist::from_bytes::<Dyn>(&b, &LoadOptions::new().key(seed_bytes)).unwrap_err();
            let is_wrong = matches!(e, Error::WrongKey { .. });
            prop_assert!(is_wrong, "{e}");
        }
    }

    #[test]
    fn mutated_files_never_panic(
        (f, kp) in arb_filter(),
        edits in prop::collection::vec((any::<prop::sample::Index>(), any::<u8>()), 1..8),
        cut in prop::option::of(any::<prop::sample::Index>()),
        resealed in any::<bool>(),
    ) {
        let mut b = persist::to_bytes(&f, &SaveOptions::default().key_policy(kp)).unwrap();
        let original = b.clone();
        for (i, v) in &edits {
            let at = i.index(b.len());
            b[at] = *v;
        }
        if let Some(c) = cut {
            b.truncate(c.index(b.len()));
        }
        if resealed {
            reseal(&mut b);
        }
        let r = AnyFilter::from_bytes(&b, &LoadOptions::new());
        if !resealed && b != original {
            // Without a fixed-up checksum, any change to a file must be caught.
            prop_assert!(r.is_err());
        }
        check_outcome(r);
        check_outcome(AnyFilter::from_bytes(&b, &LoadOptions::new().key([7; 16])));
    }

    #[test]
    fn random_bytes_never_panic(bytes in prop::collection::vec(any::<u8>(), 0..400)) {
        check_outcome(AnyFilter::from_bytes(&bytes, &LoadOptions::new()));
    }

    #[test]
    fn random_bodies_behind_a_valid_header_never_panic(
        head in prop::collection::vec(any::<u8>(), 44),
        params in prop::collection::vec(any::<u8>(), 0..64),
        payload in prop::collection::vec(any::<u8>(), 0..512),
        small_codes in any::<bool>(),
    ) {
        // Magic and version right, lengths consistent, checksum right: everything else random,
        // so the decoder's own checks (ids, key, params, payload) are what stands.
        let mut b = Vec::new();
        b.extend_from_slice(&persist::MAGIC);
        b.extend_from_slice(&1u16.to_le_bytes());
        b.extend_from_slice(&head[..30]);
        if small_codes {
            b[10] %= FilterKind::ALL.len() as u8 + 1; b[11] %= 10; b[12] %= 6; b[13] %= 2; b[14] = 0; b[15] = 0;
        }
        b.extend_from_slice(&(params.len() as u32).to_le_bytes());
        b.extend_from_slice(&(payload.len() as u64).to_le_bytes());
        b.extend_from_slice(&params);
        b.extend_from_slice(&payload);
        b.extend_from_slice(&[0; 8]);
        reseal(&mut b);
        check_outcome(AnyFilter::from_bytes(&b, &LoadOptions::new()));
    }

    #[test]
    fn well_formed_standard_params_with_random_values_never_panic(
        m in prop_oneof![1u64..2_000, any::<u64>()],
        k in prop_oneof![0u32..70, any::<u32>()],
        len in any::<u64>(),
        strategy in 0u8..5,
        payload_words in 0usize..40,
        fill in any::<u64>(),
    ) {
        let f = build(3, 1, 0, 10, 0.1, 0);
        let mut b = persist::to_bytes(&f, &SaveOptions::default()).unwrap();
        b.truncate(52);
        b[12] = strategy;
        b[44..52].copy_from_slice(&(payload_words as u64 * 8).to_le_bytes());
        b.extend_from_slice(&m.to_le_bytes());
        b.extend_from_slice(&k.to_le_bytes());
        b.extend_from_slice(&0u32.to_le_bytes());
        b.extend_from_slice(&len.to_le_bytes());
        for _ in 0..payload_words {
            b.extend_from_slice(&fill.to_le_bytes());
        }
        b.extend_from_slice(&[0; 8]);
        reseal(&mut b);
        let r = AnyFilter::from_bytes(&b, &LoadOptions::new());
        let consistent = m >= 1
            && (1..=64).contains(&k)
            && m.div_ceil(64) == payload_words as u64
            && (strategy < 3 || m % 64 == 0)
            && (m % 64 == 0 || fill >> (m % 64) == 0 || payload_words == 0);
        prop_assert_eq!(r.is_ok(), consistent, "m={} k={} words={} s={}", m, k, payload_words, strategy);
        check_outcome(r);
    }
}

#[test]
fn every_byte_of_a_valid_file_matters() {
    // Flip each bit of a small file in turn: every single-bit change is refused (the checksum
    // covers every byte, and a flipped checksum no longer matches).
    let f = build(3, 1, 5, 50, 0.05, 20);
    let b = persist::to_bytes(&f, &SaveOptions::default()).unwrap();
    for i in 0..b.len() {
        for bit in 0..8 {
            let mut c = b.clone();
            c[i] ^= 1 << bit;
            let r = AnyFilter::from_bytes(&c, &LoadOptions::new());
            assert!(r.is_err(), "flip of byte {i} bit {bit} accepted");
        }
    }
}

#[test]
fn the_fuzz_seeds_are_valid_files_of_every_kind() {
    // tests/fuzz/seeds/load_filter/seed-*: one small valid file per kind and more (withheld keys are
    // [0x5a; 16], the key the fuzz target tries).
    let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fuzz/seeds/load_filter");
    let mut kinds = std::collections::BTreeSet::new();
    for e in std::fs::read_dir(dir).unwrap() {
        let path = e.unwrap().path();
        let name = path.file_name().unwrap().to_string_lossy().into_owned();
        if !name.starts_with("seed-") {
            continue;
        }
        let b = std::fs::read(&path).unwrap();
        let info = persist::read_info(&b).unwrap_or_else(|e| panic!("{name}: {e}"));
        let r = match info.key_mode {
            persist::KeyMode::Withheld => {
                AnyFilter::from_bytes(&b, &LoadOptions::new().key([0x5a; 16]))
            }
            persist::KeyMode::Stored => AnyFilter::from_bytes(&b, &LoadOptions::new()),
        };
        match r {
            Ok(f) => {
                assert_eq!(f.kind(), info.kind, "{name}");
                kinds.insert(f.kind().name());
            }
            // A file withholding another key than the fuzzer's: valid, loads with its key.
            Err(Error::WrongKey { .. }) if info.key_mode == persist::KeyMode::Withheld => {}
            Err(e) => panic!("{name}: {e}"),
        }
    }
    assert_eq!(kinds.len(), FilterKind::ALL.len(), "{kinds:?}");
}

#[test]
fn fuzz_regressions_load_or_refuse_and_answer_at_once() {
    // tests/fuzz/seeds/load_filter/regress-*: inputs that once crashed or hung the fuzz target (which
    // loads, then calls expected_fpr, details and contains). Each must now load or be refused,
    // and a loaded filter must answer without hanging (the split-block one declared ~10^16 items
    // and made the Poisson mixture sum ~10^13 terms).
    let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fuzz/seeds/load_filter");
    let (mut seen, mut loaded) = (0, 0);
    for e in std::fs::read_dir(dir).unwrap() {
        let path = e.unwrap().path();
        let name = path.file_name().unwrap().to_string_lossy().into_owned();
        if !name.starts_with("regress-") {
            continue;
        }
        seen += 1;
        let raw = std::fs::read(&path).unwrap();
        // As the fuzz target does: also with the checksum corrected, to reach what lies behind it.
        let mut sealed = raw.clone();
        if sealed.len() >= 8 {
            let n = sealed.len() - 8;
            let sum = xxhash_rust::xxh3::xxh3_64(&sealed[..n]);
            sealed[n..].copy_from_slice(&sum.to_le_bytes());
        }
        for b in [raw, sealed] {
            for opts in [LoadOptions::new(), LoadOptions::new().key([0x5a; 16])] {
                if let Ok(f) = AnyFilter::from_bytes(&b, &opts) {
                    loaded += 1;
                    let p = f.expected_fpr();
                    assert!((0.0..=1.0).contains(&p), "{name}: {p}");
                    let _ = f.details();
                    let _ = f.contains(b"probe");
                }
            }
        }
    }
    assert!(
        loaded >= 2,
        "the regressions should load once their checksum is right: {loaded}"
    );
    assert!(seen >= 4, "regression seeds missing: {seen}");
}

/// A file of `tests/data` (see its README) and the absent keys its writer answered
/// maybe-present (`NAME.positives.txt`, one per line).
fn data_file(name: &str) -> (Vec<u8>, std::collections::BTreeSet<String>) {
    let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/data");
    let b = std::fs::read(format!("{dir}/{name}.bloom")).unwrap();
    let positives = std::fs::read_to_string(format!("{dir}/{name}.positives.txt"))
        .unwrap()
        .lines()
        .map(str::to_owned)
        .collect();
    (b, positives)
}

/// Which of `absent-0` … `absent-{count - 1}` `f` answers maybe-present.
fn absent_positives(f: &AnyFilter, count: u32) -> std::collections::BTreeSet<String> {
    (0..count)
        .map(|j| format!("absent-{j}"))
        .filter(|a| f.contains(a.as_bytes()))
        .collect()
}

/// A scalable filter written before the bounded layer rule (tests/data/README.md) still loads,
/// answers exactly as the build that wrote it, keeps its legacy layers, grows new ones by the
/// current rule, and round-trips with both kinds of layer.
#[test]
fn legacy_scalable_file_loads_and_answers_the_same() {
    let (b, positives) = data_file("scalable-legacy-n0-1");
    assert_eq!(positives.len(), 154);
    let mut f = AnyFilter::from_bytes(&b, &LoadOptions::new()).unwrap();
    let answers = |f: &AnyFilter| absent_positives(f, 5_000);
    assert!((0..100).all(|i| f.contains(format!("key-{i}").as_bytes())));
    assert_eq!(answers(&f), positives);
    let AnyFilter::Scalable(s) = &f else {
        panic!("{:?}", f.kind())
    };
    assert_eq!(s.layer_count(), 7);
    let first = s.layers().next().unwrap();
    assert_eq!((first.bits(), first.k()), (12, 7), "the legacy first layer");
    let strategy = s.strategy();
    let params = *s.params();
    // Grow past the saved layers: the new ones follow the current rule.
    for i in 100..300 {
        f.insert(format!("key-{i}").as_bytes());
    }
    let AnyFilter::Scalable(s) = &f else {
        unreachable!()
    };
    assert_eq!(s.layer_count(), 9);
    let rule = ScalableBloom::<AnyHasher, AnyStrategy>::rule(strategy);
    let (m, k, _) =
        ScalableBloom::<AnyHasher, AnyStrategy>::expected_layer(&params, strategy, 8, rule)
            .unwrap();
    let newest = s.layers().last().unwrap();
    assert_eq!((newest.bits(), newest.k()), (m, k));
    let again = AnyFilter::from_bytes(
        &f.to_bytes(&SaveOptions::default()).unwrap(),
        &LoadOptions::new(),
    )
    .unwrap();
    assert!((0..300).all(|i| again.contains(format!("key-{i}").as_bytes())));
    assert_eq!(answers(&again), answers(&f));
    // A layer that matches neither rule is refused.
    let AnyFilter::Scalable(s) = &again else {
        unreachable!()
    };
    let err = ScalableBloom::<AnyHasher, AnyStrategy>::check_layer(&params, strategy, 0, 13, 7)
        .unwrap_err();
    assert!(matches!(err, Error::Corrupt(_)), "{err}");
    assert_eq!(s.len(), 300);
}

/// A cuckoo filter written in the first layout (tests/data/README.md: b = 4, 12-bit
/// fingerprints, a power-of-two table, xor alternate bucket) still loads, answers exactly as the
/// build that wrote it, keeps working (insert, remove), and saves again in its own layout.
#[test]
fn legacy_cuckoo_file_loads_and_answers_the_same() {
    let (b, positives) = data_file("cuckoo-v1-n1000");
    assert_eq!(positives.len(), 12);
    let mut f = AnyFilter::from_bytes(&b, &LoadOptions::new()).unwrap();
    assert_eq!(f.len(), 999);
    assert!((1..1000).all(|i| f.contains(format!("key-{i}").as_bytes())));
    assert_eq!(absent_positives(&f, 20_000), positives);
    {
        let AnyFilter::Cuckoo(c) = &f else {
            panic!("{:?}", f.kind())
        };
        assert!(c.is_legacy());
        assert_eq!(
            (c.buckets(), c.fingerprint_bits(), c.bucket_size()),
            (512, 12, 4)
        );
    }
    // Saved again, it is the same file (layout 1).
    assert_eq!(AnyFilter::to_bytes(&f, &SaveOptions::default()).unwrap(), b);
    // It keeps working with its own mapping.
    for i in 1000..1500 {
        f.try_insert(format!("key-{i}").as_bytes()).unwrap();
    }
    assert!((1..1500).all(|i| f.contains(format!("key-{i}").as_bytes())));
    f.as_removable().unwrap().remove(b"key-7").unwrap();
    let g = AnyFilter::from_bytes(
        &AnyFilter::to_bytes(&f, &SaveOptions::default()).unwrap(),
        &LoadOptions::new(),
    )
    .unwrap();
    assert_eq!(g.len(), 1498);
    assert!((1000..1500).all(|i| g.contains(format!("key-{i}").as_bytes())));
}

/// Blocked and split-block files written before the 64-bit hot paths (tests/data/README.md)
/// load in their old layout and answer exactly as the build that wrote them; saved again they
/// keep it; a filter built today uses the new layout and round-trips in it.
#[test]
fn legacy_blocked_and_split_block_files_answer_the_same() {
    let answers = |f: &AnyFilter| absent_positives(f, 5_000);
    for name in [
        "blocked-legacy-xxh3",
        "blocked-legacy-murmur3",
        "split-block-legacy-xxh3",
        "split-block-legacy-sip13",
    ] {
        let (b, positives) = data_file(name);
        assert!(positives.len() > 20, "{name}");
        let f = AnyFilter::from_bytes(&b, &LoadOptions::new()).unwrap();
        assert!(
            (0..200).all(|i| f.contains(format!("key-{i}").as_bytes())),
            "{name}"
        );
        assert_eq!(answers(&f), positives, "{name}");
        match &f {
            AnyFilter::Blocked(x) => assert_eq!(x.layout(), 0, "{name}"),
            AnyFilter::SplitBlock(x) => assert!(x.legacy_hash128(), "{name}"),
            other => panic!("{name}: {:?}", other.kind()),
        }
        let again = AnyFilter::from_bytes(
            &f.to_bytes(&SaveOptions::default()).unwrap(),
            &LoadOptions::new(),
        )
        .unwrap();
        assert_eq!(answers(&again), positives, "{name} saved again");
    }
    let mut now = SplitBlockBloom::with_bits_and(1_024, AnyHasher::new(HashId::Xxh3, 0)).unwrap();
    let mut blocked = BlockedBloom::with_bits_and(2_048, 6, AnyHasher::default()).unwrap();
    for i in 0..200 {
        now.insert(format!("key-{i}").as_bytes());
        blocked.insert(format!("key-{i}").as_bytes());
    }
    for f in [AnyFilter::SplitBlock(now), AnyFilter::Blocked(blocked)] {
        let g = AnyFilter::from_bytes(
            &f.to_bytes(&SaveOptions::default()).unwrap(),
            &LoadOptions::new(),
        )
        .unwrap();
        match &g {
            AnyFilter::Blocked(x) => assert_eq!(x.layout(), 1),
            AnyFilter::SplitBlock(x) => assert!(!x.legacy_hash128()),
            _ => unreachable!(),
        }
        assert_eq!(answers(&g), answers(&f));
        assert!((0..200).all(|i| g.contains(format!("key-{i}").as_bytes())));
    }
}

/// Xor and binary fuse files whose tables were peeled in the earlier last-in-first-out order
/// (tests/data/README.md) load and answer exactly as the build that wrote them, while a build
/// of the same keys today (first-in-first-out for these small tables) makes a different table
/// that answers for every key as well.
#[test]
fn static_files_of_the_stack_peeling_answer_the_same() {
    let keys: Vec<String> = (0..1_000).map(|i| format!("key-{i}")).collect();
    for (name, kind, arity) in [
        ("xor-8-stack-peel", FilterKind::Xor, 0),
        ("binary-fuse-8-a3-stack-peel", FilterKind::BinaryFuse, 3),
        ("binary-fuse-8-a4-stack-peel", FilterKind::BinaryFuse, 4),
    ] {
        let (b, positives) = data_file(name);
        assert!(positives.len() > 40, "{name}");
        let f = AnyFilter::from_bytes(&b, &LoadOptions::new()).unwrap();
        assert_eq!(f.kind(), kind, "{name}");
        assert!(keys.iter().all(|k| f.contains(k.as_bytes())), "{name}");
        assert_eq!(absent_positives(&f, 20_000), positives, "{name}");
        let spec = FilterSpec {
            fingerprint_bits: 8,
            arity,
            ..FilterSpec::new(kind, 1_000, 0.004)
        };
        let today = AnyFilter::build_from(&spec, keys.iter().map(String::as_bytes)).unwrap();
        assert!(keys.iter().all(|k| today.contains(k.as_bytes())), "{name}");
        assert!(
            today.to_bytes(&SaveOptions::default()).unwrap() != b,
            "{name}: today's table is the stack order's"
        );
    }
}

/// Quotient filters written in the classic three-bit layout (file layout 1, before the
/// rank-select table; tests/data/README.md) still load, answer exactly as the build that wrote
/// them, keep working, and save again in layout 2, which loads to the same filter.
#[test]
fn classic_quotient_files_load_and_answer_the_same() {
    for (name, n, count) in [
        ("quotient-v1-n1000", 1000, 164),
        ("quotient-v1-n20", 20, 787),
    ] {
        let (b, positives) = data_file(name);
        assert_eq!(positives.len(), count, "{name}");
        assert_eq!(
            b[bloomlab::persist::HEADER_LEN],
            1,
            "{name} is not layout 1"
        );
        let mut f = AnyFilter::from_bytes(&b, &LoadOptions::new()).unwrap();
        assert_eq!(f.len(), n);
        assert!((0..n).all(|i| f.contains(format!("key-{i}").as_bytes())));
        assert_eq!(absent_positives(&f, 20_000), positives, "{name}");
        let again = AnyFilter::to_bytes(&f, &SaveOptions::default()).unwrap();
        assert_eq!(
            again[bloomlab::persist::HEADER_LEN],
            2,
            "{name} saved in layout 2"
        );
        let g = AnyFilter::from_bytes(&again, &LoadOptions::new()).unwrap();
        assert_eq!(absent_positives(&g, 20_000), positives, "{name}");
        f.as_removable().unwrap().remove(b"key-0").unwrap();
        assert!(!f.contains(b"key-0") || positives.contains("key-0"));
        assert_eq!(f.len(), n - 1);
    }
}
