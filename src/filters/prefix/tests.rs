use super::*;
use proptest::prelude::*;

fn key(i: u64) -> [u8; 8] {
    i.to_le_bytes()
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    /// No false negatives, at any fill up to the design n and a little past it (every PD full
    /// and overflowing), for any seed of keys.
    #[test]
    fn no_false_negatives(n in 1u64..3_000, seed in any::<u64>(), over in 0u64..200) {
        let mut f = PrefixFilter::with_capacity(n).unwrap();
        let total = n + over.min(n / 10);
        for i in 0..total {
            f.insert(&key(seed.wrapping_add(i)));
        }
        for i in 0..total {
            prop_assert!(f.contains(&key(seed.wrapping_add(i))), "{i}");
        }
        prop_assert_eq!(f.len(), total);
        prop_assert_eq!(f.first_level_items() + f.spare().len(), total);
        for pd in f.pd_slice() {
            prop_assert!(pd.check().is_ok());
        }
    }
}

/// The measured rate and spare share at n = 2·10^5 against the model (simulation).
#[test]
fn rate_and_spare_share_match_the_model() {
    let n = 200_000u64;
    let mut f = PrefixFilter::with_capacity(n).unwrap();
    for i in 0..n {
        f.insert(&key(i));
    }
    let lambda = n as f64 / f.pds() as f64;
    let share = f.spare().len() as f64 / n as f64;
    let model_share = theory::prefix::spare_share(lambda / 25.0);
    // 8,421 PDs: the spare count's standard deviation is ≈ sqrt(8421 · 3.2) ≈ 164 of ≈ 11,700
    // items, 1.4%; 5% is more than three of them.
    assert!(
        (share - model_share).abs() / model_share < 0.05,
        "{share} vs {model_share}"
    );
    let queries = 2_000_000u64;
    let fp = (n..n + queries).filter(|&i| f.contains(&key(i))).count() as f64;
    let measured = fp / queries as f64;
    let model = f.expected_fpr();
    // ≈ 7,500 expected false positives: the binomial standard deviation is ≈ 1.2%; the model
    // must sit within 5% (four of them).
    assert!(
        (measured - model).abs() / model < 0.05,
        "measured {measured} vs model {model}"
    );
    assert!(model > 0.0036 && model < 0.0040, "{model}");
}

/// Past its design: the spare fills and the filter refuses with `Full`, unchanged, every
/// earlier item still found.
#[test]
fn a_full_filter_refuses_with_a_typed_error() {
    let n = 2_000u64;
    let mut f = PrefixFilter::with_capacity(n).unwrap();
    let mut stored = 0u64;
    let err = loop {
        match f.try_insert(&key(stored)) {
            Ok(()) => stored += 1,
            Err(e) => break e,
        }
        assert!(stored < 20 * n, "never refused");
    };
    assert!(matches!(err, Error::Full { .. }), "{err:?}");
    assert!(stored > n, "refused at {stored}, before its design n");
    assert_eq!(f.len(), stored);
    assert_eq!(f.spare().len(), f.spare_capacity());
    for i in 0..stored {
        assert!(f.contains(&key(i)));
    }
}

#[test]
fn batch_answers_as_single_queries() {
    let n = 50_000u64;
    let mut f = PrefixFilter::with_capacity(n).unwrap();
    for i in 0..n {
        f.insert(&key(i * 2));
    }
    let keys: Vec<[u8; 8]> = (0..3 * n).map(key).collect();
    let items: Vec<&[u8]> = keys.iter().map(|k| &k[..]).collect();
    let mut out = vec![false; items.len()];
    f.contains_batch(&items, &mut out);
    for (it, o) in items.iter().zip(&out) {
        assert_eq!(f.contains(it), *o);
    }
}

#[test]
fn from_parts_refuses_a_broken_pd() {
    let f = PrefixFilter::with_capacity(100).unwrap();
    let mut pds = f.pd_slice().to_vec();
    pds[0].0[0] ^= 1;
    let e = PrefixFilter::from_parts(pds, f.spare().clone(), 10, 0, Xxh3::default()).unwrap_err();
    assert!(e.to_string().contains("pocket dictionary 0"), "{e}");
}
