use super::*;
use crate::filters::SplitBlockBloom;
use crate::hash::Xxh3;

fn shapes() -> Vec<Shape> {
    [
        (32, 8, None),
        (64, 8, None),
        (64, 1, Some(5)),
        (32, 16, None),
        (64, 16, None),
        (32, 4, None),
        (64, 4, None),
        (32, 5, None),
        (64, 3, Some(6)),
        (32, 1, Some(1)),
    ]
    .into_iter()
    .map(|(w, k, b)| Shape::new(w, k, b).unwrap())
    .collect()
}

fn keys(n: u64, mul: u64) -> Vec<[u8; 8]> {
    (0..n).map(|i| (i * mul).to_le_bytes()).collect()
}

/// Shape (32, 8, 1) sets exactly the bits Parquet's split-block filter sets for the same hash.
#[test]
fn shape_32_8_is_split_block_bit_for_bit() {
    let s = Shape::new(32, 8, None).unwrap();
    let mut m = MultiblockBloom::with_blocks_and(s, 1_001, Xxh3::default()).unwrap();
    let mut sb = SplitBlockBloom::with_blocks_and(1_001, Xxh3::default()).unwrap();
    for k in keys(20_000, 3) {
        m.insert(&k);
        sb.insert(&k);
    }
    assert_eq!(m.words_le(), sb.to_parquet_bytes());
    assert_eq!(m.expected_fpr(), sb.expected_fpr());
    for k in keys(50_000, 7) {
        assert_eq!(m.contains(&k), sb.contains(&k));
    }
}

/// No false negatives, for single and batch operations, on every path.
#[test]
fn no_false_negatives_and_batches_match_single_operations() {
    let ks = keys(3_000, 5);
    let items: Vec<&[u8]> = ks.iter().map(|k| &k[..]).collect();
    for s in shapes() {
        // A cached table and one of > 1 MiB that takes the prefetching batch path.
        for blocks in [97u64, (1 << 21) / s.block_bits() * 8] {
            let mut single = MultiblockBloom::with_blocks_and(s, blocks, Xxh3::default()).unwrap();
            let mut batched = single.clone();
            for it in &items[..1_000] {
                single.insert(it);
            }
            batched.insert_batch(&items[..1_000]);
            assert_eq!(single.words_le(), batched.words_le(), "{s:?}");
            assert_eq!(single.len(), 1_000);
            assert_eq!(batched.len(), 1_000);
            let mut out = vec![false; items.len()];
            batched.contains_batch(&items, &mut out);
            for (it, o) in items.iter().zip(&out) {
                assert_eq!(single.contains(it), *o, "{s:?}");
                assert_eq!(single.portable_contains(it), *o, "{s:?}");
            }
            assert!(out[..1_000].iter().all(|&x| x), "{s:?}: a false negative");
            assert!(out.iter().any(|&x| !x), "{s:?}");
            assert!(single.ones() <= 1_000 * u64::from(s.k()) && single.ones() > 0);
        }
    }
}

/// Every bit an item sets lies in its own block, b in each of its K words.
#[test]
fn an_item_sets_b_bits_in_each_word_of_its_block() {
    for s in shapes() {
        let mut f = MultiblockBloom::with_blocks_and(s, 13, Xxh3::default()).unwrap();
        let h = 0x1234_5678_9abc_def1u64;
        f.insert_hash(h);
        let b = block_of(h, 13) as usize;
        let wb = (s.word_bits / 8) as usize;
        let kw = s.words as usize;
        let bytes = f.words_le();
        for (j, w) in bytes.chunks_exact(wb).enumerate() {
            let ones: u32 = w.iter().map(|x| x.count_ones()).sum();
            if j / kw == b {
                assert!(ones >= 1 && ones <= s.bits_per_word, "{s:?} word {j}");
            } else {
                assert_eq!(ones, 0, "{s:?} word {j}");
            }
        }
        assert!(f.contains_hash(h));
    }
}

#[test]
fn words_round_trip_and_bad_inputs_are_refused() {
    for s in shapes() {
        let mut f = MultiblockBloom::with_blocks_and(s, 31, Xxh3::default()).unwrap();
        for k in keys(200, 11) {
            f.insert(&k);
        }
        let bytes = f.words_le();
        assert_eq!(bytes.len() as u64 * 8, f.bits());
        let g = MultiblockBloom::from_words_le(s, 31, 200, &bytes, Xxh3::default()).unwrap();
        assert_eq!(g.words_le(), bytes);
        assert_eq!(g.len(), 200);
        assert!(keys(200, 11).iter().all(|k| g.contains(k)));
        assert!(MultiblockBloom::from_words_le(s, 30, 200, &bytes, Xxh3::default()).is_err());
        assert!(MultiblockBloom::from_words_le(s, 0, 0, &[], Xxh3::default()).is_err());
    }
    let s = Shape::DEFAULT;
    assert!(MultiblockBloom::with_blocks_and(s, 0, Xxh3::default()).is_err());
    assert!(MultiblockBloom::with_blocks_and(s, MAX_BLOCKS + 1, Xxh3::default()).is_err());
}

/// The measured rate against the model, at 10 bits per key (debug build: 2·10^5 queries).
#[test]
fn measured_rate_matches_the_model() {
    for s in [
        Shape::new(32, 8, None).unwrap(),
        Shape::new(64, 8, None).unwrap(),
        Shape::new(64, 1, Some(5)).unwrap(),
        Shape::new(32, 16, None).unwrap(),
    ] {
        let n = 20_000u64;
        let blocks = (n * 10).div_ceil(s.block_bits());
        let mut f = MultiblockBloom::with_blocks_and(s, blocks, Xxh3::default()).unwrap();
        for i in 0..n {
            f.insert(&i.to_le_bytes());
        }
        let q = 200_000u64;
        let fp = (n..n + q).filter(|i| f.contains(&i.to_le_bytes())).count() as f64;
        let p = f.expected_fpr();
        let sd = (q as f64 * p * (1.0 - p)).sqrt();
        assert!(
            (fp - q as f64 * p).abs() < 5.0 * sd,
            "{s:?}: {fp} false positives, model {}",
            q as f64 * p
        );
    }
}
