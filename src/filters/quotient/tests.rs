use super::*;
use proptest::prelude::*;
use std::collections::BTreeMap;

/// Insert raw fingerprints (bypassing the hash) so collisions and wrap-around can be forced.
fn table_with(q: u32, r: u32, fps: &[u64]) -> Table {
    let mut t = Table::new(q, r).unwrap();
    for &fp in fps {
        t.insert(fp >> r, fp & ((1 << r) - 1));
    }
    t
}

/// The multiset as a sorted list, from a reference map.
fn sorted(m: &BTreeMap<u64, u32>) -> Vec<u64> {
    m.iter()
        .flat_map(|(&k, &c)| std::iter::repeat_n(k, c as usize))
        .collect()
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(200))]

    /// Against a reference multiset: random inserts and removes of raw fingerprints in a tiny
    /// table (so runs collide, clusters wrap and shift): after every step the table's
    /// invariants hold, it holds exactly the reference multiset, and every stored fingerprint
    /// answers true. Its layout is the one sorted placement gives (canonical form). Tables of
    /// 4 to 32 slots find runs slot by slot, of 64 and 128 slots a word at a time: the word
    /// walk must find the same slot as the slot walk, which is checked for every quotient.
    #[test]
    fn table_matches_a_reference_multiset(
        q in 2u32..9,
        r in 1u32..6,
        ops in proptest::collection::vec((any::<bool>(), any::<u64>()), 1..120),
    ) {
        let mut t = Table::new(q, r).unwrap();
        let mut reference: BTreeMap<u64, u32> = BTreeMap::new();
        let cap = max_items(q, 0.95);
        let mask = (1u64 << (q + r)) - 1;
        for (ins, x) in ops {
            let fp = x & mask;
            let (fq, fr) = (fp >> r, fp & ((1 << r) - 1));
            let total: u32 = reference.values().sum();
            if ins && u64::from(total) < cap {
                t.insert(fq, fr);
                *reference.entry(fp).or_default() += 1;
            } else {
                // Remove either a stored fingerprint (picked by x) or a random one.
                let pick = if reference.is_empty() || x & 1 == 0 {
                    fp
                } else {
                    *reference.keys().nth((x >> 1) as usize % reference.len()).unwrap()
                };
                let had = reference.get(&pick).copied().unwrap_or(0) > 0;
                prop_assert_eq!(t.remove(pick >> r, pick & ((1 << r) - 1)), had);
                if had {
                    let c = reference.get_mut(&pick).unwrap();
                    *c -= 1;
                    if *c == 0 {
                        reference.remove(&pick);
                    }
                }
            }
            let count = t.scan(|_, _| ()).map_err(TestCaseError::fail)?;
            prop_assert_eq!(count, u64::from(reference.values().sum::<u32>()));
            prop_assert_eq!(t.fingerprints(), sorted(&reference));
            for &k in reference.keys() {
                prop_assert!(t.contains(k >> r, k & ((1 << r) - 1)));
            }
            // Rank-select (64 slots or more) finds the same run ends and empty slots as the
            // walk over the scanned table.
            let owners = t.owners();
            for x in 0..(1u64 << q) {
                prop_assert_eq!(t.run_end(x), t.run_end_in(&owners, x), "quotient {}", x);
                prop_assert_eq!(t.first_empty(x), t.first_empty_in(&owners, x), "slot {}", x);
            }
        }
        let mut placed = Table::new(q, r).unwrap();
        placed.place_sorted(&sorted(&reference));
        prop_assert_eq!(&placed, &t);
    }

    /// Runs far longer than a block (every fingerprint in a few quotients), so offsets pass
    /// 64 and saturate at 255 and are then computed from an earlier block: after every insert
    /// and remove the scan's offsets (from the positions) equal the stored ones, rank-select
    /// agrees with the walk, and the table is the sorted placement's.
    #[test]
    fn long_runs_saturate_offsets_and_stay_exact(
        quots in proptest::collection::vec(0u64..6, 420..480),
        rems in proptest::collection::vec(any::<u64>(), 480),
        base in 0u64..512,
        drops in proptest::collection::vec(any::<u16>(), 0..60),
    ) {
        let (q, r) = (9u32, 4u32);
        let mut t = Table::new(q, r).unwrap();
        let mut reference: BTreeMap<u64, u32> = BTreeMap::new();
        for (k, &x) in quots.iter().enumerate() {
            let fq = (base + x * 3) & 511;
            let fp = (fq << r) | (rems[k] & 15);
            t.insert(fq, fp & 15);
            *reference.entry(fp).or_default() += 1;
        }
        prop_assert!(t.offs.contains(&255), "no saturated offset: {:?}", t.offs);
        for d in drops {
            let all = sorted(&reference);
            let fp = all[usize::from(d) % all.len()];
            prop_assert!(t.remove(fp >> r, fp & 15));
            let c = reference.get_mut(&fp).unwrap();
            *c -= 1;
            if *c == 0 {
                reference.remove(&fp);
            }
            prop_assert_eq!(t.scan(|_, _| ()).map_err(TestCaseError::fail)?, all.len() as u64 - 1);
        }
        prop_assert_eq!(t.fingerprints(), sorted(&reference));
        for x in 0..512 {
            prop_assert_eq!(t.run_end(x), t.run_end_walk(x), "quotient {}", x);
        }
        let mut placed = Table::new(q, r).unwrap();
        placed.place_sorted(&sorted(&reference));
        prop_assert_eq!(&placed, &t);
    }

    /// No false negatives after random inserts; after removing a random subset, every
    /// remaining key still answers true and the removed count is exact.
    #[test]
    fn no_false_negatives_after_inserts_and_removes(
        keys in proptest::collection::vec(any::<u64>(), 1..700),
        drop_mask in any::<u64>(),
    ) {
        let mut f = QuotientFilter::with_qr(10, 6).unwrap();
        for k in &keys {
            f.try_insert(&k.to_le_bytes()).unwrap();
        }
        prop_assert!(keys.iter().all(|k| f.contains(&k.to_le_bytes())));
        let (gone, kept): (Vec<_>, Vec<_>) = keys
            .iter()
            .enumerate()
            .partition(|(i, _)| (drop_mask >> (i % 64)) & 1 == 1);
        for (_, k) in &gone {
            f.remove(&k.to_le_bytes()).unwrap();
        }
        prop_assert_eq!(f.len(), kept.len() as u64);
        for (_, k) in &kept {
            prop_assert!(f.contains(&k.to_le_bytes()), "{} lost", k);
        }
    }

    /// After a merge every key of both filters answers true, and the table is the one that
    /// inserting all keys into one filter gives.
    #[test]
    fn merge_keeps_every_key_of_both(
        a in proptest::collection::vec(any::<u64>(), 0..400),
        b in proptest::collection::vec(any::<u64>(), 0..400),
    ) {
        let (mut fa, mut fb, mut both) = (
            QuotientFilter::with_qr(10, 7).unwrap(),
            QuotientFilter::with_qr(10, 7).unwrap(),
            QuotientFilter::with_qr(10, 7).unwrap(),
        );
        for k in &a {
            fa.insert(&k.to_le_bytes());
            both.insert(&k.to_le_bytes());
        }
        for k in &b {
            fb.insert(&k.to_le_bytes());
            both.insert(&k.to_le_bytes());
        }
        fa.merge(&fb).unwrap();
        prop_assert_eq!(fa.len(), (a.len() + b.len()) as u64);
        prop_assert!(a.iter().chain(&b).all(|k| fa.contains(&k.to_le_bytes())));
        prop_assert_eq!(&fa.table, &both.table);
    }

    /// After a resize every key still answers true, and the table is the one a filter of the
    /// new shape gets from the same keys.
    #[test]
    fn resize_keeps_every_key(keys in proptest::collection::vec(any::<u64>(), 0..900)) {
        let mut f = QuotientFilter::with_qr(10, 5).unwrap();
        let mut g = QuotientFilter::with_qr(11, 4).unwrap();
        for k in &keys {
            f.insert(&k.to_le_bytes());
            g.insert(&k.to_le_bytes());
        }
        f.resize().unwrap();
        prop_assert_eq!((f.q(), f.r(), f.len()), (11, 4, keys.len() as u64));
        prop_assert!(keys.iter().all(|k| f.contains(&k.to_le_bytes())));
        prop_assert_eq!(&f.table, &g.table);
    }
}

#[test]
fn clusters_wrap_around_the_end_of_the_table() {
    // Quotient 7 (the last of 8 slots) five times: the run spills into slots 0..4, and a
    // quotient-0 item lands after it.
    let r = 4;
    let fps: Vec<u64> = [1u64, 2, 3, 4, 5].iter().map(|&x| (7 << r) | x).collect();
    let mut t = table_with(3, r, &fps);
    t.insert(0, 9);
    assert_eq!(t.scan(|_, _| ()).unwrap(), 6);
    assert!(fps.iter().all(|&fp| t.contains(7, fp & 15)));
    assert!(t.contains(0, 9) && !t.contains(0, 8) && !t.contains(6, 1));
    let mut all = fps.clone();
    all.push(9);
    all.sort_unstable();
    assert_eq!(t.fingerprints(), all);
    let mut placed = Table::new(3, r).unwrap();
    placed.place_sorted(&all);
    assert_eq!(placed, t);
    // Remove the run's head: everything after it moves back, the quotient-0 item with it.
    assert!(t.remove(7, 1));
    assert!(t.contains(0, 9) && (2..=5).all(|x| t.contains(7, x)));
    assert_eq!(t.scan(|_, _| ()).unwrap(), 5);
}

#[test]
fn the_load_limit_refuses_and_loses_nothing() {
    let mut f = QuotientFilter::with_qr(8, 6).unwrap();
    let cap = f.capacity();
    assert_eq!(cap, 243); // ⌊0.95·256⌋
    for i in 0..cap {
        f.try_insert(&i.to_le_bytes()).unwrap();
    }
    let before = (f.table.clone(), f.len());
    for i in cap..cap + 50 {
        assert!(matches!(
            f.try_insert(&i.to_le_bytes()),
            Err(Error::Full { .. })
        ));
    }
    assert_eq!((f.table.clone(), f.len()), before);
    assert!((0..cap).all(|i| f.contains(&i.to_le_bytes())));
    // A higher limit takes more; below the current load is refused.
    assert!(f.set_max_load(0.5).is_err());
    f.set_max_load(0.99).unwrap();
    f.try_insert(b"more").unwrap();
    assert!(f.set_max_load(1.0).is_err());
}

#[test]
fn removing_an_absent_item_is_refused_and_changes_nothing() {
    let mut f = QuotientFilter::with_qr(8, 8).unwrap();
    for i in 0u64..200 {
        f.insert(&i.to_le_bytes());
    }
    let before = f.table.clone();
    let mut refused = 0;
    for i in 1000u64..3000 {
        let x = i.to_le_bytes();
        if !f.contains(&x) {
            assert_eq!(f.remove(&x), Err(Error::NotPresent));
            refused += 1;
        }
    }
    assert!(refused > 1000);
    assert_eq!(f.table, before);
    assert_eq!(f.len(), 200);
}

#[test]
fn merge_and_resize_refuse_what_they_cannot_do() {
    let mut a = QuotientFilter::with_qr(8, 8).unwrap();
    for (q, r) in [(9, 8), (8, 7)] {
        let b = QuotientFilter::with_qr(q, r).unwrap();
        assert!(matches!(a.merge(&b), Err(Error::Incompatible(_))));
    }
    let seeded = QuotientFilter::with_qr_and(8, 8, Xxh3::with_seed(7)).unwrap();
    assert!(matches!(a.merge(&seeded), Err(Error::Incompatible(_))));
    let mut b = QuotientFilter::with_qr(8, 8).unwrap();
    for i in 0u64..200 {
        a.insert(&i.to_le_bytes());
        b.insert(&(i + 1000).to_le_bytes());
    }
    let before = a.table.clone();
    assert!(matches!(a.merge(&b), Err(Error::Full { .. })));
    assert_eq!(a.table, before);
    let mut one = QuotientFilter::with_qr(8, 1).unwrap();
    assert!(one.resize().is_err());
    let mut top = QuotientFilter::with_qr(48, 16).unwrap_or_else(|_| {
        // 2^48 slots cannot be allocated here; the check comes before any allocation anyway.
        QuotientFilter::with_qr(8, 16).unwrap()
    });
    if top.q() == 48 {
        assert!(top.resize().is_err());
    }
}

#[test]
fn every_remainder_width_round_trips_its_packing() {
    for r in 1..=32u32 {
        let q = 7;
        let mut t = Table::new(q, r).unwrap();
        let m = (1u64 << r) - 1;
        for i in 0..128u64 {
            t.set_rem(i, crate::hash::mix64(i) & m);
        }
        for i in 0..128u64 {
            assert_eq!(t.rem(i), crate::hash::mix64(i) & m, "r = {r}, slot {i}");
        }
    }
    assert!(QuotientFilter::with_qr(8, 33).is_err());
    assert!(QuotientFilter::with_qr(8, 0).is_err());
    assert!(QuotientFilter::with_qr(0, 8).is_err());
    assert!(QuotientFilter::with_qr(40, 32).is_err()); // q + r > 64
}

#[test]
fn corrupt_tables_are_refused_by_from_parts() {
    for q in [5, 7] {
        let mut f = QuotientFilter::with_qr(q, 8).unwrap();
        for i in 0u64..(1 << q) * 3 / 4 {
            f.insert(&i.to_le_bytes());
        }
        let (data, offs) = (f.block_words().to_vec(), f.offset_bytes().to_vec());
        let parts = |d: Vec<u64>, o: Vec<u8>, q: u32| {
            QuotientFilter::from_parts(d, o, q, 8, 0.95, Xxh3::default())
        };
        assert_eq!(parts(data.clone(), offs.clone(), q).unwrap().len(), f.len());
        // Every single flipped metadata bit (occupieds, runends of every block) and offset bit is
        // either refused or gives a table whose invariants hold: no flip may make a later walk
        // loop or panic.
        let stride = 10;
        let mut refused = 0;
        for blk in 0..data.len() / stride {
            for bit in 0..128 {
                let mut d = data.clone();
                d[blk * stride + bit / 64] ^= 1 << (bit % 64);
                match parts(d, offs.clone(), q) {
                    Ok(g) => {
                        let _ = g.contains(b"x");
                        assert!(g.fingerprints().len() as u64 == g.len());
                    }
                    Err(_) => refused += 1,
                }
            }
        }
        assert!(refused > 100, "q = {q}: only {refused} flips refused");
        for b in 0..offs.len() * 8 {
            let mut o = offs.clone();
            o[b / 8] ^= 1 << (b % 8);
            assert!(parts(data.clone(), o, q).is_err(), "offset bit {b}");
        }
        let mut all = data.clone();
        all.iter_mut().for_each(|w| *w = u64::MAX);
        assert!(parts(all, offs.clone(), q).is_err());
        assert!(parts(data.clone(), offs.clone(), q + 1).is_err());
        assert!(QuotientFilter::from_parts(data, offs, q, 8, 1.5, Xxh3::default()).is_err());
    }
}

/// A table of the classic layout (its own insert, as it was before the rank-select table)
/// converts to exactly the table that inserting the same fingerprints here gives.
#[test]
fn classic_tables_convert_to_the_same_filter() {
    for (q, r, n) in [(3u32, 4u32, 7u64), (5, 6, 30), (8, 7, 243), (10, 3, 900)] {
        let mut old = legacy::Table::new(q, r).unwrap();
        let mut new = QuotientFilter::with_qr(q, r).unwrap();
        for i in 0..n {
            let (fq, fr) = split_hash(Xxh3::default().hash64(&i.to_le_bytes()), q, r);
            old.insert(fq, fr);
            new.insert(&i.to_le_bytes());
        }
        let g = QuotientFilter::from_classic_parts(
            old.meta.clone(),
            old.rems.clone(),
            q,
            r,
            0.95,
            Xxh3::default(),
        )
        .unwrap();
        assert_eq!(g.table, new.table, "q {q} r {r}");
        assert_eq!(g.len(), n);
    }
}

/// The BMI2 path (where this CPU has it) and the portable one build the same table and answer
/// the same, through inserts, removes and queries at 90% load with long clusters.
#[test]
fn bmi2_and_portable_paths_agree() {
    let (q, r) = (12u32, 5u32);
    let mut fast = Table::new(q, r).unwrap();
    let mut slow = Table::new(q, r).unwrap().portable();
    assert!(!slow.uses_bmi2());
    let fp = |i: u64| crate::hash::mix64(i) >> (64 - q - r);
    for i in 0..3686u64 {
        fast.insert(fp(i) >> r, fp(i) & 31);
        slow.insert(fp(i) >> r, fp(i) & 31);
    }
    for i in (0..3686u64).step_by(3) {
        assert_eq!(
            fast.remove(fp(i) >> r, fp(i) & 31),
            slow.remove(fp(i) >> r, fp(i) & 31)
        );
    }
    assert_eq!(fast.data, slow.data);
    assert_eq!(fast.offs, slow.offs);
    for i in 0..20_000u64 {
        assert_eq!(
            fast.contains(fp(i) >> r, fp(i) & 31),
            slow.contains(fp(i) >> r, fp(i) & 31)
        );
    }
    assert_eq!(slow.scan(|_, _| ()).unwrap(), 3686 - 1229);
}
