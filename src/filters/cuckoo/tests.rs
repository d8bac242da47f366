use super::*;
use proptest::prelude::*;

/// Every (f, b): write a distinct pattern into every slot, read it all back, and find each
/// value with the SWAR search.
#[test]
fn packing_round_trips_for_every_width_and_bucket_size() {
    for b in model::BUCKET_SIZES {
        for f in model::FINGERPRINT_BITS {
            let m = 37;
            let mut c = CuckooFilter::with_layout_and(m, f, b, Xxh3::default()).unwrap();
            let fm = (1u64 << f) - 1;
            let val = |i: u64, j: u32| (mix64(i * 8 + u64::from(j) + u64::from(f)) & fm).max(1);
            for i in 0..m {
                for j in 0..b {
                    c.table.set(c.table.slot_offset(i, j), val(i, j));
                }
            }
            for i in 0..m {
                for j in 0..b {
                    let v = val(i, j);
                    assert_eq!(
                        c.table.get(c.table.slot_offset(i, j)),
                        v,
                        "f={f} b={b} {i} {j}"
                    );
                    let at = c.table.find(i, v).unwrap();
                    assert_eq!(c.table.get(at), v, "f={f} b={b}");
                    assert!(at <= c.table.slot_offset(i, j));
                    assert!(c.table.either_has(i, (i + 1) % m, v));
                }
                assert_eq!(c.table.find(i, 0), None, "f={f} b={b}: full bucket");
            }
            let bits = m * u64::from(b * f);
            assert_eq!(c.table_words().len() as u64, bits.div_ceil(64));
            assert_eq!(c.bytes() as u64, model::table_bytes(m, f, b).unwrap());
            assert_eq!(c.bits(), bits);
            // The padding stays zero.
            assert_eq!(c.table.count_occupied(), m * u64::from(b));
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    /// alt(alt(i)) = i and alt(i) < m for random bucket counts, buckets and fingerprints.
    #[test]
    fn alt_is_an_involution_for_any_bucket_count(
        m in 1u64..=(1u64 << 58),
        i in any::<u64>(),
        fp in 1u64..=u64::from(u32::MAX),
    ) {
        let i = i % m;
        let j = alt_bucket(i, fp, m);
        prop_assert!(j < m);
        prop_assert_eq!(alt_bucket(j, fp, m), i);
    }

    /// The SWAR search agrees with a slot-by-slot one on random tables.
    #[test]
    fn swar_search_agrees_with_slot_by_slot(
        fi in 0usize..29, bi in 0usize..3, m in 1u64..40, seed in any::<u64>(),
        probe in any::<u64>(),
    ) {
        let (f, b) = (4 + fi as u32, model::BUCKET_SIZES[bi]);
        let mut c = CuckooFilter::with_layout_and(m, f, b, Xxh3::default()).unwrap();
        let fm = (1u64 << f) - 1;
        // Mostly small values, so that matches and empty slots are common, and some of full
        // width (top bit set, where a lane's borrow shows).
        for i in 0..m {
            for j in 0..b {
                let r = mix64(seed ^ (i * 8 + u64::from(j)));
                let v = if r >> 62 == 0 { r & fm } else { r & 3 };
                c.table.set(c.table.slot_offset(i, j), v);
            }
        }
        let fp = (probe & 3).max(1);
        for i in 0..m {
            let slots: Vec<u64> = (0..b).map(|j| c.table.get(c.table.slot_offset(i, j))).collect();
            let first = slots.iter().position(|&v| v == fp);
            let found = c.table.find(i, fp).map(|off| (off - c.table.slot_offset(i, 0)) / u64::from(f));
            prop_assert_eq!(found, first.map(|x| x as u64));
            let free = slots.iter().position(|&v| v == 0);
            let found = c.table.find(i, 0).map(|off| (off - c.table.slot_offset(i, 0)) / u64::from(f));
            prop_assert_eq!(found, free.map(|x| x as u64));
            let i2 = (i * 7 + 3) % m;
            let naive = first.is_some() || c.table.find(i2, fp).is_some();
            prop_assert_eq!(c.table.either_has(i, i2, fp), naive);
        }
    }
}

#[test]
fn fingerprints_are_never_zero_and_indexes_in_range() {
    for f in [4, 7, 10, 32] {
        let c = CuckooFilter::with_layout_and(1_001, f, 4, Xxh3::default()).unwrap();
        for k in 0u64..20_000 {
            let (i, fp) = c.locate(&k.to_le_bytes());
            assert!(i < 1_001 && fp >= 1 && fp < 1 << f, "f={f} {i} {fp}");
        }
    }
}

#[test]
fn failed_insert_leaves_table_exactly_as_before() {
    for (m, f, b) in [(16, 8, 4), (13, 5, 2), (7, 20, 8), (9, 32, 4)] {
        let mut c = CuckooFilter::with_layout_and(m, f, b, Xxh3::default()).unwrap();
        let mut stored = Vec::new();
        let mut fulls = 0;
        for i in 0u64..200 {
            let before = (c.table_words().to_vec(), c.len());
            match c.try_insert(&i.to_le_bytes()) {
                Ok(()) => stored.push(i),
                Err(Error::Full { .. }) => {
                    fulls += 1;
                    assert_eq!((c.table_words().to_vec(), c.len()), before, "insert {i}");
                }
                Err(e) => panic!("{e}"),
            }
        }
        assert!(fulls > 0 && stored.len() as u64 == c.len());
        assert!(stored.iter().all(|i| c.contains(&i.to_le_bytes())));
        assert_eq!(c.refused(), fulls);
    }
}

/// One key inserted over and over fills its two buckets after 2b copies (b when they
/// coincide): the refusal names the repeat limit, not a full table; a table that is really
/// full names the kicks.
#[test]
fn a_key_past_2b_copies_is_refused_as_a_repeat_not_as_a_full_table() {
    for b in [2, 4, 8] {
        let mut c = CuckooFilter::with_layout_and(1 << 10, 12, b, Xxh3::default()).unwrap();
        let mut copies = 0;
        let e = loop {
            match c.try_insert(b"the same key") {
                Ok(()) => copies += 1,
                Err(e) => break e,
            }
        };
        assert!(copies == 2 * b || copies == b, "b = {b}: {copies} copies");
        assert!(
            matches!(e, Error::Full { reason, .. } if reason == TOO_MANY_COPIES),
            "b = {b}: {e}"
        );
        // Other keys still go in: the table is nearly empty.
        assert!(c.try_insert(b"another key").is_ok());
    }
    let mut full = CuckooFilter::with_layout_and(8, 8, 4, Xxh3::default()).unwrap();
    let e = (0u64..1000)
        .find_map(|i| full.try_insert(&i.to_le_bytes()).err())
        .unwrap();
    assert!(
        matches!(e, Error::Full { reason, .. } if reason != TOO_MANY_COPIES),
        "{e}"
    );
}

#[test]
fn refuses_bad_shapes() {
    assert!(CuckooFilter::with_buckets(3, 8).is_ok());
    assert!(CuckooFilter::with_buckets(0, 8).is_err());
    for f in [0, 3, 33] {
        assert!(matches!(
            CuckooFilter::with_buckets(16, f),
            Err(Error::InvalidParameter {
                param: Param::FingerprintBits,
                ..
            })
        ));
    }
    for b in [1, 3, 16] {
        let e = CuckooFilter::with_layout_and(16, 8, b, Xxh3::default()).unwrap_err();
        assert!(e.to_string().contains("bucket-size"), "{e}");
    }
    assert!(CuckooFilter::with_rate(10, 1e-10).is_err());
}

/// `build --filter cuckoo --n 1e18 --p 0.00013` once exited 101 (a 2^64-bit table wrapped to 0
/// words). Every way to ask for a table over 2^64 bits is a typed error.
#[test]
fn a_table_of_2_pow_64_bits_is_an_error_not_a_panic() {
    let n = 1_000_000_000_000_000_000u64; // 2.7·10^17 buckets: under 2^58, but 2^65 bits at f = 32
    let e = CuckooFilter::with_capacity_and(n, 32, Xxh3::default()).unwrap_err();
    assert!(
        matches!(
            e,
            Error::InvalidParameter {
                param: Param::N,
                ..
            }
        ),
        "{e}"
    );
    assert!(e.to_string().contains("32-bit fingerprints"), "{e}");
    // Narrow fingerprints fit: too large to allocate, but not an overflow.
    assert!(matches!(
        CuckooFilter::with_capacity_and(500_000_000_000_000_000, 16, Xxh3::default()),
        Err(Error::Allocation { .. })
    ));
    let e = CuckooFilter::with_layout_and(1 << 58, 32, 8, Xxh3::default()).unwrap_err();
    assert!(
        matches!(
            e,
            Error::InvalidParameter {
                param: Param::Other("buckets"),
                ..
            }
        ),
        "{e}"
    );
    let state = CuckooState {
        rng: 0,
        kicks: 0,
        longest_chain: 0,
        refused: 0,
    };
    let layout = CuckooLayout {
        buckets: 1 << 58,
        fingerprint_bits: 32,
        bucket_size: 8,
        legacy: false,
    };
    let e = CuckooFilter::from_parts(Vec::new(), layout, Xxh3::default(), state).unwrap_err();
    assert!(matches!(e, Error::Corrupt(_)), "{e}");
    assert!(model::table_bytes(1 << 58, 32, 8).is_err());
}

/// The batch operations are the single ones reordered: the same table bit for bit (kicks,
/// refusals and counters included, filled past capacity so that some inserts are refused) and
/// the same answers, for every bucket size and a wide (two-group) layout.
#[test]
fn batch_insert_and_query_match_single() {
    for (b, f) in [(2, 12), (4, 10), (8, 20)] {
        let m = 301;
        let keys: Vec<[u8; 8]> = (0u64..u64::from(b) * m * 11 / 10)
            .map(|i| mix64(i).to_le_bytes())
            .collect();
        let items: Vec<&[u8]> = keys.iter().map(|k| &k[..]).collect();
        let mut single = CuckooFilter::with_layout_and(m, f, b, Xxh3::default()).unwrap();
        let mut refused_single = 0;
        for it in &items {
            refused_single += u64::from(single.try_insert(it).is_err());
        }
        let mut batched = CuckooFilter::with_layout_and(m, f, b, Xxh3::default()).unwrap();
        let refused = batched.insert_batch(&items[..37]) + batched.insert_batch(&items[37..]);
        assert!(
            refused_single > 0,
            "b={b}: the fill must overflow the table"
        );
        assert_eq!(refused, refused_single, "b={b}");
        assert_eq!(batched.table_words(), single.table_words(), "b={b}");
        assert_eq!(
            (batched.len(), batched.kicks()),
            (single.len(), single.kicks())
        );
        let probes: Vec<[u8; 8]> = (0u64..2000)
            .map(|i| mix64(i ^ 0xabc).to_le_bytes())
            .collect();
        let probe_items: Vec<&[u8]> = items
            .iter()
            .copied()
            .chain(probes.iter().map(|k| &k[..]))
            .collect();
        let mut out = vec![false; probe_items.len()];
        batched.contains_batch(&probe_items, &mut out);
        let expect: Vec<bool> = probe_items.iter().map(|it| single.contains(it)).collect();
        assert_eq!(out, expect, "b={b}");
        assert!(
            out.iter().any(|&x| !x),
            "b={b}: some absent keys are answered no"
        );
    }
}

/// In a table larger than [`crate::filters::batch::PREFETCH_MIN_BYTES`] the batches take the
/// pipelined path (the next chunk staged before this one is finished): still the single
/// operations' table and answers.
#[test]
fn pipelined_batches_match_single() {
    let m = 1 << 18;
    let mut single = CuckooFilter::with_layout_and(m, 16, 4, Xxh3::default()).unwrap();
    assert!(crate::filters::batch::prefetch_pays(single.bytes()));
    let keys: Vec<[u8; 8]> = (0u64..5_000).map(|i| mix64(i).to_le_bytes()).collect();
    let items: Vec<&[u8]> = keys.iter().map(|k| &k[..]).collect();
    let mut batched = single.clone();
    for it in &items[..2_500] {
        single.try_insert(it).unwrap();
    }
    assert_eq!(batched.insert_batch(&items[..2_500]), 0);
    assert_eq!(batched.table_words(), single.table_words());
    let mut out = vec![false; items.len()];
    batched.contains_batch(&items, &mut out);
    let expect: Vec<bool> = items.iter().map(|it| single.contains(it)).collect();
    assert_eq!(out, expect);
    assert!(out[..2_500].iter().all(|&x| x) && out[2_500..].iter().any(|&x| !x));
}

/// The slots of every bucket, for comparing tables.
fn slots(c: &CuckooFilter) -> Vec<Vec<u64>> {
    (0..c.buckets())
        .map(|i| (0..c.bucket_size()).map(|j| c.view().slot(i, j)).collect())
        .collect()
}

/// Both buckets full but an entry of one can move to its free other bucket: the insert is that
/// one move (one kick, no random draw), the new fingerprint takes the entry's slot, and every
/// stored entry is still in one of its two buckets.
#[test]
fn lookahead_moves_one_entry_when_its_other_bucket_has_room() {
    for (b, f) in [(2, 12), (4, 8), (4, 16), (8, 20)] {
        let m = 101;
        let mut c = CuckooFilter::with_layout_and(m, f, b, Xxh3::default()).unwrap();
        // A key whose two buckets differ; fill them with fingerprints whose other buckets are
        // neither of the two (so a move is possible and lands in an empty bucket).
        let key = (0u64..)
            .map(u64::to_le_bytes)
            .find(|k| {
                let (i1, fp) = c.locate(k);
                c.alt(i1, fp) != i1
            })
            .unwrap();
        let (i1, fp) = c.locate(&key);
        let i2 = c.alt(i1, fp);
        let mut v = 1u64;
        for i in [i1, i2] {
            for j in 0..b {
                while v == fp || [i1, i2].contains(&c.alt(i, v)) {
                    v += 1;
                }
                c.table.set(c.table.slot_offset(i, j), v);
                v += 1;
            }
        }
        c.len = u64::from(2 * b);
        let before = slots(&c);
        let (rng, kicks) = (c.state().rng, c.kicks());
        c.try_insert(&key).unwrap();
        assert_eq!(c.kicks(), kicks + 1, "b={b} f={f}: one move");
        assert_eq!(c.longest_kick_chain(), 1);
        assert_eq!(c.state().rng, rng, "b={b} f={f}: no random walk");
        assert!(c.contains(&key) && c.len() == u64::from(2 * b) + 1);
        let after = slots(&c);
        let changed: Vec<(u64, u32)> = (0..m)
            .flat_map(|i| (0..b).map(move |j| (i, j)))
            .filter(|&(i, j)| before[i as usize][j as usize] != after[i as usize][j as usize])
            .collect();
        // The first entry of i1 moved to its (empty) other bucket, fp took its slot.
        assert_eq!(changed.len(), 2, "b={b} f={f}: {changed:?}");
        let victim = before[i1 as usize][0];
        assert!(
            changed.contains(&(i1, 0)) && c.view().slot(i1, 0) == fp,
            "b={b} f={f}"
        );
        let home = c.alt(i1, victim);
        assert_eq!(after[home as usize], {
            let mut v = vec![0; b as usize];
            v[0] = victim;
            v
        });
        for i in 0..m {
            for j in 0..b {
                let v = after[i as usize][j as usize];
                assert!(v == 0 || c.table.either_has(i, c.alt(i, v), v));
            }
        }
    }
}

/// Kicks count moved fingerprints: an insert that reports one kick changed exactly two slots
/// (the new fingerprint where the victim was, the victim in a free slot of its other bucket),
/// and over a fill to 97% load most kicking inserts are such single moves (181 against 75
/// walks here).
#[test]
fn a_one_kick_insert_changes_two_slots() {
    let m = 500;
    let mut c = CuckooFilter::with_layout_and(m, 12, 4, Xxh3::default()).unwrap();
    let (mut single, mut walks) = (0, 0);
    for i in 0u64..(m * 4 * 97 / 100) {
        let before = slots(&c);
        let kicks = c.kicks();
        c.try_insert(&mix64(i).to_le_bytes()).unwrap();
        let changed = before
            .iter()
            .flatten()
            .zip(slots(&c).iter().flatten())
            .filter(|(x, y)| x != y)
            .count() as u64;
        match c.kicks() - kicks {
            0 => assert_eq!(changed, 1),
            1 => {
                assert_eq!(changed, 2, "insert {i}");
                single += 1;
            }
            k => {
                assert!((2..=k + 1).contains(&changed), "insert {i}: {k} kicks");
                walks += 1;
            }
        }
    }
    assert!(
        single > 2 * walks && walks > 0,
        "{single} single moves, {walks} walks"
    );
}
