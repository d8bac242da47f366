//! bloomlab against real Guava (31.1): murmur3_128 hash vectors, Guava-written Bloom filters
//! (both strategies, string and long funnels), their query answers, bit arrays and sizes.
//!
//! The vectors in tests/guava/vectors/ were written by tests/guava/GenVectors.java; see
//! tests/guava/README.md for how to regenerate them.

use bloomlab::guava::{GuavaBloom, guava_approximate_element_count, load_guava, save_guava};
use bloomlab::hash::{Guava32, Guava64, IndexStrategy, Murmur3, StrategyId, murmur3};
use bloomlab::{Error, Filter, StandardBloom};
use proptest::prelude::*;
use std::path::{Path, PathBuf};

fn vectors_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/guava/vectors")
}

/// The generator's metadata for one filter (the `.json` beside each `.bin`).
#[derive(Debug, serde::Deserialize)]
struct Meta {
    name: String,
    strategy: String,
    strategy_ordinal: u8,
    funnel: String,
    expected_insertions: u64,
    fpp: f64,
    inserted: u64,
    lcg_seed: i64,
    bit_size: u64,
    bin_bytes: usize,
    num_hash_functions: u32,
    approximate_element_count: u64,
    expected_fpp: f64,
    absent_false_positives: usize,
    query_keys: Vec<serde_json::Value>,
    answers: String,
}

fn lcg_next(x: i64) -> i64 {
    x.wrapping_mul(6_364_136_223_846_793_005)
        .wrapping_add(1_442_695_040_888_963_407)
}

impl Meta {
    /// The bytes Guava's funnel writes for a query key.
    fn key_bytes(&self, v: &serde_json::Value) -> Vec<u8> {
        match self.funnel.as_str() {
            "string" => v.as_str().expect("string key").as_bytes().to_vec(),
            "long" => v.as_i64().expect("long key").to_le_bytes().to_vec(),
            f => panic!("unknown funnel {f}"),
        }
    }

    /// The keys the generator inserted, as funnel bytes.
    fn inserted_keys(&self) -> Vec<Vec<u8>> {
        let mut x = self.lcg_seed;
        (0..self.inserted)
            .map(|i| match self.funnel.as_str() {
                "string" => format!("key-{i}").into_bytes(),
                _ => {
                    x = lcg_next(x);
                    x.to_le_bytes().to_vec()
                }
            })
            .collect()
    }
}

fn filters() -> Vec<(Meta, Vec<u8>)> {
    let mut out = Vec::new();
    for entry in std::fs::read_dir(vectors_dir()).expect("vectors dir") {
        let path = entry.unwrap().path();
        if path.extension().is_some_and(|e| e == "json") {
            let meta: Meta =
                serde_json::from_slice(&std::fs::read(&path).unwrap()).expect("metadata");
            let bin = std::fs::read(path.with_extension("bin")).expect("bin file");
            out.push((meta, bin));
        }
    }
    out.sort_by(|a, b| a.0.name.cmp(&b.0.name));
    // 2 strategies × 2 funnels × 8 sizes, as GenVectors.java writes them.
    assert_eq!(
        out.len(),
        32,
        "expected 32 Guava filters in {:?}",
        vectors_dir()
    );
    out
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

fn unhex(s: &str) -> Vec<u8> {
    (0..s.len())
        .step_by(2)
        .map(|i| u8::from_str_radix(&s[i..i + 2], 16).unwrap())
        .collect()
}

#[test]
fn murmur3_matches_guava() {
    let text = std::fs::read_to_string(vectors_dir().join("murmur3.csv")).unwrap();
    let mut n = 0;
    let mut kinds = (0, 0);
    for line in text.lines().filter(|l| !l.starts_with('#')).skip(1) {
        let f: Vec<&str> = line.split(',').collect();
        assert_eq!(f.len(), 3, "{line}");
        let input = match f[0] {
            "string" => {
                kinds.0 += 1;
                unhex(f[1])
            }
            "long" => {
                kinds.1 += 1;
                f[1].parse::<i64>().unwrap().to_le_bytes().to_vec()
            }
            k => panic!("unknown kind {k}"),
        };
        let (h1, h2) = murmur3::murmur3_x64_128(&input, 0);
        let mut got = h1.to_le_bytes().to_vec();
        got.extend_from_slice(&h2.to_le_bytes());
        assert_eq!(hex(&got), f[2], "input {line}");
        n += 1;
    }
    // empty, "hello", 40 ASCII and 40 non-ASCII strings; 32 longs.
    assert_eq!(kinds, (82, 32));
    println!("murmur3: {n} Guava vectors matched");
}

#[test]
fn guava_files_load_and_answer_as_guava_did() {
    let mut queries = 0;
    let mut fps = 0;
    for (meta, bin) in filters() {
        let f: GuavaBloom = load_guava(&bin).unwrap_or_else(|e| panic!("{}: {e}", meta.name));
        let want_strategy = match meta.strategy_ordinal {
            0 => StrategyId::Guava32,
            _ => StrategyId::Guava64,
        };
        assert_eq!(f.strategy().id(), want_strategy, "{}", meta.name);
        assert_eq!(f.k(), meta.num_hash_functions, "{}", meta.name);
        assert_eq!(f.bits(), meta.bit_size, "{}", meta.name);
        assert_eq!(bin.len(), meta.bin_bytes, "{}", meta.name);

        // Every recorded query answered exactly as Guava's mightContain answered it.
        assert_eq!(meta.query_keys.len(), meta.answers.len());
        for (key, want) in meta.query_keys.iter().zip(meta.answers.chars()) {
            let got = f.contains(&meta.key_bytes(key));
            assert_eq!(got, want == '1', "{}: key {key}", meta.name);
        }
        queries += meta.query_keys.len();
        // The absent keys are the last ones; their positives are Guava's false positives.
        let absent_fp = meta.answers.chars().rev().take(1000).filter(|&c| c == '1');
        assert_eq!(
            absent_fp.count(),
            meta.absent_false_positives,
            "{}",
            meta.name
        );
        fps += meta.absent_false_positives;
        // And every inserted key is found (Guava checked the same before writing).
        assert!(
            meta.inserted_keys().iter().all(|k| f.contains(k)),
            "{}",
            meta.name
        );

        // Guava's approximateElementCount(): roundHalfUp(−ln(1 − X/m)·m/k).
        assert_eq!(
            guava_approximate_element_count(&f),
            Some(meta.approximate_element_count),
            "{}",
            meta.name
        );
        assert_eq!(f.len(), meta.approximate_element_count);
        let est = f.estimated_count();
        assert!(
            (est - meta.approximate_element_count as f64).abs() <= 0.5 + 1e-9,
            "{}: {est} vs {}",
            meta.name,
            meta.approximate_element_count
        );
        // Guava's expectedFpp() = (X/m)^k.
        let fill = f.ones() as f64 / f.bits() as f64;
        let fpp = fill.powi(f.k() as i32);
        assert!(
            (fpp - meta.expected_fpp).abs() <= 1e-12 * meta.expected_fpp.max(1e-300),
            "{}: {fpp} vs {}",
            meta.name,
            meta.expected_fpp
        );
    }
    println!(
        "guava files: 32 loaded, {queries} recorded queries answered identically ({fps} of them Guava false positives)"
    );
}

fn rebuild<S: IndexStrategy>(meta: &Meta, strategy: S) -> StandardBloom<Murmur3, S> {
    let mut f = StandardBloom::with_rate_and(
        meta.expected_insertions,
        meta.fpp,
        Murmur3::default(),
        strategy,
    )
    .unwrap();
    for k in meta.inserted_keys() {
        f.insert(&k);
    }
    f
}

#[test]
fn bloomlab_builds_the_identical_filter() {
    let mut identical = 0;
    for (meta, bin) in filters() {
        let guava = load_guava(&bin).unwrap();
        let (k, words, saved) = match meta.strategy.as_str() {
            "mitz32" => {
                let f = rebuild(&meta, Guava32);
                (f.k(), f.bit_vec().words().to_vec(), save_guava(&f).unwrap())
            }
            "mitz64" => {
                let f = rebuild(&meta, Guava64);
                (f.k(), f.bit_vec().words().to_vec(), save_guava(&f).unwrap())
            }
            s => panic!("unknown strategy {s}"),
        };
        assert_eq!(k, meta.num_hash_functions, "{}: k", meta.name);
        assert_eq!(words.len() as u64 * 64, meta.bit_size, "{}: m", meta.name);
        let differing = words
            .iter()
            .zip(guava.bit_vec().words())
            .filter(|(a, b)| a != b)
            .count();
        assert_eq!(differing, 0, "{}: {differing} words differ", meta.name);
        assert!(
            saved == bin,
            "{}: save_guava differs from Guava's file",
            meta.name
        );
        // Loading and saving Guava's own file is byte-identical too.
        assert!(save_guava(&guava).unwrap() == bin, "{}", meta.name);
        identical += 1;
    }
    assert_eq!(identical, 32);
    println!("rebuilt: {identical} of 32 filters bit-identical to Guava's, files byte-identical");
}

fn corrupt(bytes: &[u8]) -> String {
    match load_guava(bytes) {
        Err(Error::Corrupt(m)) => m,
        other => panic!("expected Error::Corrupt, got {other:?}"),
    }
}

#[test]
fn corrupt_guava_files_are_refused_clearly() {
    let bin =
        std::fs::read(vectors_dir().join("mitz64_string_n100_p0_01_i100.bin")).expect("vector");
    assert!(load_guava(&bin).is_ok());
    assert!(corrupt(&[]).contains("truncated"));
    assert!(corrupt(&bin[..5]).contains("header alone needs 6"));
    assert!(corrupt(&bin[..bin.len() - 1]).contains("truncated"));
    let mut b = bin.clone();
    b.push(0);
    assert!(corrupt(&b).contains("1 bytes after"));
    let mut b = bin.clone();
    b[0] = 7;
    assert!(corrupt(&b).contains("unknown Guava strategy ordinal 7"));
    let mut b = bin.clone();
    b[1] = 0;
    assert!(corrupt(&b).contains("0 hash functions"));
    let with_words = |w: i32| {
        let mut b = bin.clone();
        b[2..6].copy_from_slice(&w.to_be_bytes());
        corrupt(&b)
    };
    assert!(with_words(16).contains("announces 16 words"));
    assert!(with_words(14).contains("8 bytes after the 14 words"));
    assert!(with_words(0).contains("word count is 0"));
    assert!(with_words(i32::MIN).contains("word count is -2147483648"));
    // 16 GiB announced by 126 bytes: refused without allocating.
    assert!(with_words(i32::MAX).contains("truncated"));
}

fn small_guava_file() -> Vec<u8> {
    std::fs::read(vectors_dir().join("mitz32_long_n100_p0_03_i100.bin")).unwrap()
}

proptest! {
    // No failure persistence: proptest cannot locate a source dir for integration tests.
    #![proptest_config(ProptestConfig {
        cases: 512,
        failure_persistence: None,
        ..ProptestConfig::default()
    })]

    /// Arbitrary bytes: never a panic, only `Corrupt`; anything accepted saves back unchanged.
    #[test]
    fn random_bytes_never_panic(bytes in proptest::collection::vec(any::<u8>(), 0..256)) {
        match load_guava(&bytes) {
            Ok(f) => prop_assert_eq!(save_guava(&f).unwrap(), bytes),
            Err(e) => prop_assert!(matches!(e, Error::Corrupt(_)), "{e:?}"),
        }
    }

    /// A real Guava file with a few bytes overwritten, then cut or extended.
    #[test]
    fn mutated_guava_files_never_panic(
        edits in proptest::collection::vec((any::<prop::sample::Index>(), any::<u8>()), 1..6),
        cut in any::<prop::sample::Index>(),
        tail in proptest::collection::vec(any::<u8>(), 0..12),
        mode in 0u8..3,
    ) {
        let mut b = small_guava_file();
        for (i, v) in &edits {
            let i = i.index(b.len());
            b[i] = *v;
        }
        match mode {
            0 => b.truncate(cut.index(b.len() + 1)),
            1 => b.extend_from_slice(&tail),
            _ => {}
        }
        match load_guava(&b) {
            Ok(f) => prop_assert_eq!(save_guava(&f).unwrap(), b),
            Err(e) => prop_assert!(matches!(e, Error::Corrupt(_)), "{e:?}"),
        }
    }

    /// Every well-formed header with a body of the announced length loads and round-trips.
    #[test]
    fn well_formed_files_round_trip(
        ordinal in 0u8..2,
        k in 1u8..=64,
        body in proptest::collection::vec(any::<u64>(), 1..40),
    ) {
        let mut b = vec![ordinal, k];
        b.extend_from_slice(&(body.len() as i32).to_be_bytes());
        for w in &body {
            b.extend_from_slice(&w.to_be_bytes());
        }
        let f = load_guava(&b).unwrap();
        prop_assert_eq!(f.k(), u32::from(k));
        prop_assert_eq!(f.bit_vec().words(), &body[..]);
        prop_assert_eq!(save_guava(&f).unwrap(), b);
    }
}
