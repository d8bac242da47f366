//! Construction robustness of the static-set kinds (xor, binary fuse 3-wise and 4-wise): key
//! sets with many repeats, and a set whose hashes are all equal under a deliberately weak
//! hasher. Construction must finish with every key present (or a typed error); the bound is
//! the attempt count ([`bloomlab::filters::static_set::MAX_ATTEMPTS`]), never a timer.
//!
//! The unit tests in `src/filters/{xor,binary_fuse}.rs` cover 10^5 keys and the weak hash per
//! filter at arity 3; this file runs the three filters side by side at 10^6 keys.

use bloomlab::Filter;
use bloomlab::filters::static_set::MAX_ATTEMPTS;
use bloomlab::filters::{BinaryFuseFilter, XorFilter};
use bloomlab::hash::{ItemHasher, Weak, Xxh3};

/// The three filters of `keys`: name, filter, distinct hashes held, seeds tried.
fn build_all<H: ItemHasher>(
    keys: &[Vec<u8>],
    hasher: &H,
) -> Vec<(&'static str, Box<dyn Filter>, u64, u32)> {
    let xor = XorFilter::from_keys_and(keys, 8, hasher.clone()).expect("xor");
    let f3 = BinaryFuseFilter::from_keys_arity_and(keys, 8, 3, hasher.clone()).expect("fuse-3");
    let f4 = BinaryFuseFilter::from_keys_arity_and(keys, 8, 4, hasher.clone()).expect("fuse-4");
    vec![
        (
            "xor",
            xor.distinct(),
            xor.attempts(),
            Box::new(xor) as Box<dyn Filter>,
        ),
        ("fuse-3", f3.distinct(), f3.attempts(), Box::new(f3)),
        ("fuse-4", f4.distinct(), f4.attempts(), Box::new(f4)),
    ]
    .into_iter()
    .map(|(name, d, a, f)| (name, f, d, a))
    .collect()
}

/// 10^6 keys of which 10% repeat an earlier key: 900,000 distinct, every key found.
#[test]
fn a_million_keys_with_ten_percent_repeats() {
    let keys: Vec<Vec<u8>> = (0..1_000_000u64)
        .map(|i| if i % 10 == 9 { i - 9 } else { i })
        .map(|k| k.to_le_bytes().to_vec())
        .collect();
    for (name, f, distinct, attempts) in build_all(&keys, &Xxh3::default()) {
        assert_eq!((f.len(), distinct), (1_000_000, 900_000), "{name}");
        // The first attempt sees the repeats and fails; the distinct set then peels.
        assert!((2..=MAX_ATTEMPTS).contains(&attempts), "{name}: {attempts}");
        assert!(
            keys.iter().all(|k| f.contains(k)),
            "{name}: a key is missing"
        );
    }
}

/// 100 distinct keys whose weak hashes are all equal (strings of "Aa" and "BB" blocks:
/// 31·'A' + 'a' = 31·'B' + 'B'): one hash after deduplication, so a one-key filter that holds
/// all 100.
#[test]
fn a_hundred_keys_with_one_hash() {
    let keys: Vec<Vec<u8>> = (0..100u32)
        .map(|i| {
            (0..7)
                .flat_map(|b| if i >> b & 1 == 1 { *b"Aa" } else { *b"BB" })
                .collect()
        })
        .collect();
    let weak = Weak::default();
    assert!(
        keys.iter()
            .all(|k| weak.hash128(k) == weak.hash128(&keys[0]))
    );
    for (name, f, distinct, attempts) in build_all(&keys, &weak) {
        assert_eq!((f.len(), distinct), (100, 1), "{name}");
        assert!(attempts <= MAX_ATTEMPTS, "{name}: {attempts}");
        assert!(
            keys.iter().all(|k| f.contains(k)),
            "{name}: a key is missing"
        );
    }
}
