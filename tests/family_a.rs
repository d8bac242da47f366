//! Integration tests for the counting, blocked and split-block filters.

use bloomlab::filters::split_block::{SALT, mask};
use bloomlab::filters::{BlockedBloom, CountingBloom, SplitBlockBloom, StandardBloom};
use bloomlab::stats::{Z95, wilson};
use bloomlab::theory;
use bloomlab::workload::{KeyGen, KeyKind};
use bloomlab::{AnyFilter, Error, Filter, FilterKind, FilterSpec, Removable};
use proptest::prelude::*;
use std::collections::HashSet;

fn key(i: u64) -> [u8; 8] {
    i.to_le_bytes()
}

// ---------------------------------------------------------------- no false negatives

proptest! {
    #![proptest_config(ProptestConfig::with_cases(48))]

    #[test]
    fn no_false_negatives(items in prop::collection::vec(prop::collection::vec(any::<u8>(), 0..24), 1..300),
                          n in 1u64..400, p in 0.0001f64..0.5) {
        let mut filters: Vec<Box<dyn Filter>> = vec![
            Box::new(CountingBloom::with_rate(n, p).unwrap()),
            Box::new(BlockedBloom::with_rate(n, p).unwrap()),
            Box::new(SplitBlockBloom::with_rate(n, p).unwrap()),
        ];
        for f in &mut filters {
            for it in &items {
                f.insert(it);
            }
            for it in &items {
                prop_assert!(f.contains(it), "{} lost {:?}", f.kind(), it);
            }
        }
    }

    /// Removing inserted items never hides the others (counting filter, small m so counters
    /// collide and some saturate).
    #[test]
    fn counting_remove_keeps_the_rest(keep in prop::collection::hash_set(any::<u32>(), 1..200),
                                      drop in prop::collection::hash_set(any::<u32>(), 1..200),
                                      m in 16u64..2_000, k in 1u32..10) {
        let drop: HashSet<u32> = drop.difference(&keep).copied().collect();
        let mut f = CountingBloom::with_counters(m, k).unwrap();
        for x in keep.iter().chain(&drop) {
            f.insert(&x.to_le_bytes());
        }
        for x in &drop {
            prop_assert_eq!(f.remove(&x.to_le_bytes()), Ok(()));
        }
        for x in &keep {
            prop_assert!(f.contains(&x.to_le_bytes()));
        }
        prop_assert_eq!(f.len(), keep.len() as u64);
    }
}

// ---------------------------------------------------------------- counting

#[test]
fn counting_remove_of_absent_is_refused_and_changes_nothing() {
    let mut f = CountingBloom::with_rate(1_000, 0.01).unwrap();
    for i in 0..1_000 {
        f.insert(&key(i));
    }
    let before = f.counter_array().clone();
    let (len, sat) = (f.len(), f.saturated());
    let mut refused = 0;
    for j in 1_000_000..1_010_000u64 {
        if !f.contains(&key(j)) {
            assert_eq!(f.remove(&key(j)), Err(Error::NotPresent));
            refused += 1;
        }
    }
    assert!(refused > 9_000, "{refused}");
    assert_eq!(
        f.counter_array(),
        &before,
        "a refused remove changed a counter"
    );
    assert_eq!((f.len(), f.saturated()), (len, sat));
    assert!((0..1_000).all(|i| f.contains(&key(i))));
}

#[test]
fn counting_memory_is_half_a_byte_per_counter() {
    for m in [1u64, 2, 3, 1_000, 9_585_058] {
        let f = CountingBloom::with_counters(m, 3).unwrap();
        assert_eq!(f.bytes() as u64, m.div_ceil(2), "m={m}");
        assert_eq!(f.classic_params(), Some((m, 3)));
        assert_eq!(f.bits(), 4 * m);
    }
    // Same m as the standard filter for the same (n, p): 4x its memory.
    let c = CountingBloom::with_rate(100_000, 0.01).unwrap();
    let s = StandardBloom::with_rate(100_000, 0.01).unwrap();
    assert_eq!(c.classic_params(), s.classic_params());
    assert!((c.bytes() as f64 / s.bytes() as f64 - 4.0).abs() < 1e-3);
}

#[test]
fn counting_saturation_is_counted_and_matches_the_binomial_tail() {
    // Far past design load: m = 1000 counters, k = 3, n = 4000, λ = 12 per counter.
    // Pr[c ≥ 15] = 0.228 → about 228 saturated counters expected.
    let (m, k, n) = (1_000u64, 3u32, 4_000u64);
    let mut f = CountingBloom::with_counters(m, k).unwrap();
    for i in 0..n {
        f.insert(&key(i));
    }
    let direct = (0..m).filter(|&i| f.counter(i) == 15).count() as u64;
    assert_eq!(f.saturated(), direct);
    let expected = theory::counting::expected_counters_at_least(m, n, k, 15);
    // Counter values are not independent (they sum to nk), but their variance is below the
    // binomial one; 4 binomial standard deviations is a loose, fair band.
    let q = expected / m as f64;
    let sd = (m as f64 * q * (1.0 - q)).sqrt();
    assert!(
        (direct as f64 - expected).abs() < 4.0 * sd,
        "saturated {direct}, expected {expected:.1} ± {sd:.1}"
    );
    assert!(
        f.details()
            .iter()
            .any(|(k, v)| k == "saturated counters" && *v == direct.to_string())
    );
    // Removing everything leaves exactly the saturated counters non-zero.
    for i in 0..n {
        f.remove(&key(i)).unwrap();
    }
    assert_eq!(f.nonzero(), direct);
    assert_eq!(f.len(), 0);
    assert_eq!(f.saturated(), direct);
}

// ---------------------------------------------------------------- split-block vs the spec

/// The spec's algorithm evaluated by hand (Python, from the formulas in parquet-format
/// BloomFilter.md), not through the filter's code:
/// - XXH64("", seed 0) = 17241709254077376921 = 0xef46db37_51d8e999 (value published in arrow-rs).
///   With z = 1000 blocks: block = (0xef46db37 · 1000) >> 32 = 934; bits per word
///   (0x51d8e999 · SALT[i] mod 2³²) >> 27 = [29, 0, 25, 28, 14, 22, 29, 30].
/// - XXH64("abc", seed 0) = 0x44bc2cf5_ad770999 (xxHash's reference value). z = 1000: block 268;
///   z = 7: block 1; bits [13, 11, 23, 21, 6, 14, 29, 29].
#[test]
fn split_block_matches_the_spec_worked_by_hand() {
    // (item, XXH64, [(blocks, expected block)], expected bit in each word)
    type Case = (&'static [u8], u64, [(u64, usize); 2], [u32; 8]);
    let cases: [Case; 2] = [
        (
            b"",
            0xef46_db37_51d8_e999,
            [(1000, 934), (1, 0)],
            [29, 0, 25, 28, 14, 22, 29, 30],
        ),
        (
            b"abc",
            0x44bc_2cf5_ad77_0999,
            [(1000, 268), (7, 1)],
            [13, 11, 23, 21, 6, 14, 29, 29],
        ),
    ];
    for (item, hash, blocks, bits) in cases {
        assert_eq!(xxhash_rust::xxh64::xxh64(item, 0), hash);
        for (z, block) in blocks {
            let mut f = SplitBlockBloom::with_bits(z * 256).unwrap();
            assert_eq!(f.hash(item), hash);
            f.insert(item);
            for (b, blk) in f.block_slice().iter().enumerate() {
                if b == block {
                    for (w, bit) in blk.0.iter().zip(bits) {
                        assert_eq!(*w, 1u32 << bit, "item {item:?} z={z}");
                    }
                } else {
                    assert_eq!(
                        blk.0, [0; 8],
                        "item {item:?} z={z}: stray bits in block {b}"
                    );
                }
            }
            assert!(f.contains(item));
        }
        // The public mask function agrees with the hand values too.
        let m = mask(hash as u32);
        assert_eq!(m.map(u32::trailing_zeros), bits);
    }
    assert_eq!(SALT[0], 0x47b6_137b);
    assert_eq!(SALT[7], 0x5c6b_fb31);
}

/// A bitset written by parquet-mr/Spark, published as a fixture in arrow-rs
/// (`parquet/src/bloom_filter/mod.rs`, `test_with_fixture`): one 32-byte block holding the
/// strings "a0" … "a9". Inserting the same strings into an empty one-block filter must give
/// the same bytes, bit for bit.
#[test]
fn split_block_reproduces_the_parquet_mr_fixture() {
    let fixture: [u8; 32] = [
        200, 1, 80, 20, 64, 68, 8, 109, 6, 37, 4, 67, 144, 80, 96, 32, 8, 132, 43, 33, 0, 5, 99,
        65, 2, 0, 224, 44, 64, 78, 96, 4,
    ];
    let mut f = SplitBlockBloom::with_bits(256).unwrap();
    for a in 0..10 {
        f.insert(format!("a{a}").as_bytes());
    }
    assert_eq!(f.to_parquet_bytes(), fixture);
    let g = SplitBlockBloom::from_parquet_bytes(&fixture).unwrap();
    assert!((0..10).all(|a| g.contains(format!("a{a}").as_bytes())));
    assert_eq!(g.to_parquet_bytes(), fixture);
}

#[test]
fn split_block_spec_sizing_undershoots() {
    // The spec's bits-per-key rule is the standard k = 8 formula; the split-block model needs more.
    for p in [0.1, 0.01, 0.001] {
        let u = theory::split_block::parquet_undershoot(1_000_000, p).unwrap();
        assert!(u.fpr_at_spec_size > 1.1 * p, "{u:?}");
    }
    // Realised: a filter built at exactly the rule's raw size (a power of two, so no rounding)
    // has a measured FPR well above the target.
    let p = 0.01;
    let c = theory::split_block::spec_bits_per_key(p);
    let n = ((8192.0 * 8.0) / c).floor() as u64; // raw size 8192 bytes = 256 blocks
    assert_eq!(theory::split_block::parquet_bytes(n, p).unwrap(), 8192);
    let mut f = SplitBlockBloom::with_parquet_sizing(n, p).unwrap();
    let fpr = measure_fpr(&mut f, n, 200_000, 11);
    let (lo, _) = wilson(fpr.0, fpr.1, Z95);
    assert!(lo > p, "measured {}/{}, target {p}", fpr.0, fpr.1);
}

// ---------------------------------------------------------------- FPR at 10 bits per key

/// Insert keys 0..n of a seeded generator, query `queries` absent keys: (false positives, queries).
fn measure_fpr(f: &mut dyn Filter, n: u64, queries: u64, seed: u64) -> (u64, u64) {
    let g = KeyGen::new(KeyKind::U64, seed);
    let mut buf = Vec::new();
    for i in 0..n {
        g.present(i, &mut buf);
        f.insert(&buf);
    }
    let mut fp = 0;
    for j in 0..queries {
        g.absent(j, &mut buf);
        fp += u64::from(f.contains(&buf));
    }
    (fp, queries)
}

fn ten_bits_per_key(kind: FilterKind, n: u64) -> AnyFilter {
    FilterSpec {
        kind,
        n,
        m: Some(10 * n),
        p: None,
        ..FilterSpec::default()
    }
    .build()
    .unwrap()
}

/// At m = 10n the blocked and split-block filters have a higher FPR than the standard filter, as
/// their Poisson-mixture models say and the classic formula does not. Five independently seeded
/// trials of n = 20,000 keys and 200,000 absent queries each (10⁶ queries per filter), pooled;
/// one 95% Wilson interval per filter. (A single trial of 2·10⁵ queries has a 5% chance per
/// filter of missing the model by chance: seed 42 alone put split-block 2.1σ above it, while
/// the mean of 40 seeds is 1.250% ± 0.004% against the model's 1.259%.)
#[test]
fn blocked_and_split_block_at_ten_bits_per_key_follow_their_models() {
    let (n, q, trials) = (20_000u64, 200_000u64, 1..=5u64);
    let run = |kind: FilterKind| -> (u64, u64, f64, AnyFilter) {
        let (mut fp, mut total, mut model) = (0, 0, 0.0);
        let mut last = None;
        for seed in trials.clone() {
            let mut f = ten_bits_per_key(kind, n);
            let (x, t) = measure_fpr(&mut f, n, q, seed);
            fp += x;
            total += t;
            model += f.expected_fpr();
            last = Some(f);
        }
        let count = trials.clone().count() as f64;
        (fp, total, model / count, last.unwrap())
    };
    let (std_fp, std_q, std_model, _) = run(FilterKind::Standard);
    let std_hi = wilson(std_fp, std_q, Z95).1;
    assert!(std_model < std_hi && std_model > wilson(std_fp, std_q, Z95).0);
    for kind in [FilterKind::Blocked, FilterKind::SplitBlock] {
        let (fp, total, model, f) = run(kind);
        let (lo, hi) = wilson(fp, total, Z95);
        let (m, k) = f.classic_params().unwrap();
        let classic = theory::fpr_classic(m, n, k);
        eprintln!(
            "{kind}: m={m} k={k} measured {:.5} [{lo:.5}, {hi:.5}], model {model:.5}, \
             classic {classic:.5}, standard measured {:.5}",
            fp as f64 / total as f64,
            std_fp as f64 / std_q as f64
        );
        // Above the standard filter's interval, not just its point estimate.
        assert!(lo > std_hi, "{kind} not separated from standard");
        assert!(
            lo <= model && model <= hi,
            "{kind}: model {model} outside [{lo}, {hi}]"
        );
        assert!(
            !(lo <= classic && classic <= hi),
            "{kind}: classic {classic} inside [{lo}, {hi}]"
        );
    }
}
