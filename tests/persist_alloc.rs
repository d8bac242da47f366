//! The loader never allocates more than its input justifies.
//!
//! This test binary runs under a capped global allocator (the `cap` crate). Before each decode
//! the cap is set to what is allocated now plus a budget of `3 × input length + 256 KiB`, the
//! most a legitimate decode needs (the filter's words are at most the input's length). A decoder
//! that trusted a declared length and allocated more would either abort the process (an
//! infallible allocation over the cap) or return `Error::Allocation` (a fallible one): both fail
//! this test. One `#[test]` only, so no other thread allocates while the cap is low.

use bloomlab::persist::{self, LoadOptions, SaveOptions};
use bloomlab::{AnyFilter, Error, Filter, StandardBloom};
use cap::Cap;
use proptest::prelude::*;
use proptest::test_runner::{Config, TestRunner};
use std::alloc;

#[global_allocator]
static ALLOCATOR: Cap<alloc::System> = Cap::new(alloc::System, usize::MAX);

fn decode_capped(bytes: &[u8]) -> Result<AnyFilter, Error> {
    let budget = 3 * bytes.len() + (256 << 10);
    ALLOCATOR
        .set_limit(ALLOCATOR.allocated() + budget)
        .expect("cap above current use");
    let r = AnyFilter::from_bytes(bytes, &LoadOptions::new());
    let r2 = persist::read_from(&mut &bytes[..], "mem");
    ALLOCATOR.set_limit(usize::MAX).expect("uncap");
    assert!(
        !matches!(r2, Err(Error::Allocation { .. })),
        "read_from wanted more than {budget} bytes for a {}-byte input",
        bytes.len()
    );
    r
}

fn seal(mut b: Vec<u8>) -> Vec<u8> {
    let n = b.len() - 8;
    let s = xxhash_rust::xxh3::xxh3_64(&b[..n]);
    b[n..].copy_from_slice(&s.to_le_bytes());
    b
}

#[test]
fn loader_allocations_are_bounded_by_the_input() {
    // The cap works: an allocation over it is refused (so the checks below can fail).
    ALLOCATOR
        .set_limit(ALLOCATOR.allocated() + (1 << 20))
        .unwrap();
    let mut v: Vec<u8> = Vec::new();
    assert!(v.try_reserve_exact(4 << 20).is_err(), "cap not enforced");
    ALLOCATOR.set_limit(usize::MAX).unwrap();

    // A valid file decodes within the budget.
    let mut f = StandardBloom::with_rate(20_000, 0.01).unwrap();
    for i in 0u64..20_000 {
        f.insert(&i.to_le_bytes());
    }
    let good = persist::to_bytes(&f, &SaveOptions::default()).unwrap();
    let g = decode_capped(&good).expect("valid file loads under the cap");
    assert!((0u64..20_000).all(|i| g.contains(&i.to_le_bytes())));

    // Headers declaring huge sizes over small bodies, checksum fixed up.
    let mut hostile = Vec::new();
    for (m, payload_len) in [
        (u64::MAX, 64u64),
        (1 << 40, 64),
        (64, 1 << 40),
        (1 << 40, u64::MAX - 100),
        (64 * 8, 64), // the one consistent pair: must load
    ] {
        let mut b = good[..52].to_vec();
        b[44..52].copy_from_slice(&payload_len.to_le_bytes());
        b.extend_from_slice(&m.to_le_bytes());
        b.extend_from_slice(&7u32.to_le_bytes());
        b.extend_from_slice(&0u32.to_le_bytes());
        b.extend_from_slice(&5u64.to_le_bytes());
        b.extend_from_slice(&[0xAA; 64]);
        b.extend_from_slice(&[0; 8]);
        hostile.push(seal(b));
    }
    let consistent = hostile.pop().unwrap();
    assert_eq!(decode_capped(&consistent).unwrap().bits(), 512);
    for b in &hostile {
        match decode_capped(b) {
            Err(Error::Corrupt(_)) => {}
            other => panic!("hostile header: {other:?}"),
        }
    }

    // Mutations and random bytes.
    let mut runner = TestRunner::new(Config {
        cases: 256,
        ..Config::default()
    });
    let small = {
        let mut f = StandardBloom::with_rate(300, 0.05).unwrap();
        f.insert(b"x");
        persist::to_bytes(&f, &SaveOptions::default()).unwrap()
    };
    // Also start from the fuzz seeds: small valid files of every kind.
    let mut bases = vec![small];
    let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fuzz/seeds/load_filter");
    for e in std::fs::read_dir(dir).unwrap() {
        bases.push(std::fs::read(e.unwrap().path()).unwrap());
    }
    assert!(bases.len() >= 7);
    // A cuckoo header declaring 2^58 buckets of 16 bits over 64 payload bytes.
    let mut b = good[..52].to_vec();
    b[10] = bloomlab::FilterKind::Cuckoo.code();
    b[12] = persist::NO_STRATEGY;
    b[40..44].copy_from_slice(&48u32.to_le_bytes());
    b[44..52].copy_from_slice(&64u64.to_le_bytes());
    b.extend_from_slice(&(1u64 << 58).to_le_bytes());
    b.extend_from_slice(&16u32.to_le_bytes());
    b.extend_from_slice(&[0; 4 + 8 * 4]);
    b.extend_from_slice(&[0x11; 64]);
    b.extend_from_slice(&[0; 8]);
    match decode_capped(&seal(b)) {
        Err(Error::Corrupt(m)) => assert!(m.contains("does not fit"), "{m}"),
        other => panic!("hostile cuckoo header: {other:?}"),
    }
    let strat = (
        any::<prop::sample::Index>(),
        prop::collection::vec((any::<prop::sample::Index>(), any::<u8>()), 0..6),
        any::<bool>(),
        prop::collection::vec(any::<u8>(), 0..200),
    );
    runner
        .run(&strat, |(base, edits, resealed, random)| {
            let mut b = bases[base.index(bases.len())].clone();
            for (i, v) in &edits {
                let at = i.index(b.len());
                b[at] = *v;
            }
            if resealed {
                b = seal(b);
            }
            let r = decode_capped(&b);
            prop_assert!(!matches!(r, Err(Error::Allocation { .. })), "{r:?}");
            let r = decode_capped(&random);
            prop_assert!(!matches!(r, Err(Error::Allocation { .. })), "{r:?}");
            Ok(())
        })
        .unwrap();
}
