//! Group "dynamic": every filter kind through the registry's [`AnyFilter`] (run-time kind, hash
//! and strategy; batched [`AnyFilter::count_present`] / [`AnyFilter::insert_many`], one dispatch
//! per batch of 1000 keys, as `measure`, the TUI and the experiments use it) against the same
//! kind as a monomorphic type (compile-time hash and strategy, `contains` / `try_insert` per key).
//!
//! Ids: `dynamic_{insert,query_hit,query_miss}/{kind}-any/{n}` and `…/{kind}-mono/{n}`; the
//! summary reports any / mono per kind (target ≤ 1.3). Both sides get the keys as the same
//! on-stack byte arrays (the conversion is timed in both). Parameters: n keys at p = 1%, both
//! sides with the registry's default hash (xxh3) and strategy (enhanced double hashing).

use crate::filters::{build_filled, insert, query};
use crate::keys::{fill_hits, fill_misses};
use crate::settings::{BATCH, any_wanted, sizes, wanted};
use crate::subjects::{Entry, Role, dynamic, fixed};
use bloomlab::filters::{
    BinaryFuseFilter, BlockedBloom, CountingBloom, CuckooFilter, ScalableBloom, SplitBlockBloom,
    XorFilter,
};
use bloomlab::hash::Xxh3;
use bloomlab::registry::AnyFilter;
use bloomlab::spec::FilterSpec;
use bloomlab::{Filter, FilterKind, StandardBloom};
use criterion::Criterion;
use std::time::Instant;

/// `keys` as 8-byte little-endian arrays on the stack, and `f` called with their slices.
#[inline(always)]
fn with_items<R>(keys: &[u64], f: impl FnOnce(&[&[u8]]) -> R) -> R {
    let bytes: [[u8; 8]; BATCH] =
        std::array::from_fn(|i| keys.get(i).map_or([0; 8], |k| k.to_le_bytes()));
    let items: [&[u8]; BATCH] = std::array::from_fn(|i| &bytes[i][..]);
    f(&items[..keys.len().min(BATCH)])
}

fn meta<F: Filter>(f: &mut F) -> (u64, String) {
    (
        f.bits(),
        format!(
            "m={} k={} hash={} strategy={}",
            f.bits(),
            f.k(),
            f.hash_id(),
            f.strategy_id().map_or("-".to_string(), |s| s.to_string())
        ),
    )
}

/// The registry path for `kind`.
fn any(name: &'static str, kind: FilterKind) -> Entry {
    if kind.caps().static_set {
        return fixed(
            name,
            "8 LE bytes, AnyFilter batched",
            Role::Bench,
            move |all: &[u64]| {
                let spec = FilterSpec::new(kind, all.len() as u64, crate::settings::P);
                let bytes: Vec<[u8; 8]> = all.iter().map(|k| k.to_le_bytes()).collect();
                spec.build_from(bytes.iter().map(|b| &b[..]))
                    .expect("static build")
            },
            |f: &AnyFilter, keys: &[u64]| with_items(keys, |it| f.count_present(it) as usize),
            meta,
        );
    }
    dynamic(
        name,
        "8 LE bytes, AnyFilter batched",
        Role::Bench,
        move |n, p| FilterSpec::new(kind, n, p).build().expect("build"),
        |f: &mut AnyFilter, keys: &[u64]| {
            with_items(keys, |it| f.insert_many(it));
        },
        |f: &AnyFilter, keys: &[u64]| with_items(keys, |it| f.count_present(it) as usize),
        meta,
    )
}

/// The monomorphic path: `make` builds the concrete type.
fn mono<T: Filter + 'static>(name: &'static str, make: fn(u64, f64) -> T) -> Entry {
    dynamic(
        name,
        "8 LE bytes, concrete type per key",
        Role::Bench,
        make,
        |f: &mut T, keys: &[u64]| {
            with_items(keys, |it| {
                for i in it {
                    let _ = f.try_insert(i);
                }
            });
        },
        |f: &T, keys: &[u64]| with_items(keys, |it| it.iter().filter(|i| f.contains(i)).count()),
        meta,
    )
}

fn mono_static<T: Filter + 'static>(name: &'static str, make: fn(&[[u8; 8]]) -> T) -> Entry {
    fixed(
        name,
        "8 LE bytes, concrete type per key",
        Role::Bench,
        move |all: &[u64]| {
            let bytes: Vec<[u8; 8]> = all.iter().map(|k| k.to_le_bytes()).collect();
            make(&bytes)
        },
        |f: &T, keys: &[u64]| with_items(keys, |it| it.iter().filter(|i| f.contains(i)).count()),
        meta,
    )
}

/// (any, mono) per kind.
pub fn pairs() -> Vec<(Entry, Entry)> {
    vec![
        (
            any("standard-any", FilterKind::Standard),
            mono("standard-mono", |n, p| {
                StandardBloom::with_rate(n, p).expect("standard")
            }),
        ),
        (
            any("counting-any", FilterKind::Counting),
            mono("counting-mono", |n, p| {
                CountingBloom::with_rate(n, p).expect("counting")
            }),
        ),
        (
            any("blocked-any", FilterKind::Blocked),
            mono("blocked-mono", |n, p| {
                BlockedBloom::with_rate(n, p).expect("blocked")
            }),
        ),
        (
            any("split-block-any", FilterKind::SplitBlock),
            // xxh3, the registry's default hash (the type's own default is XXH64; before
            // 2026-12-04 this side used it, so the committed summary's split-block rows compare
            // xxh3 through AnyFilter with XXH64 here).
            mono("split-block-mono", |n, p| {
                SplitBlockBloom::with_rate_and(n, p, Xxh3::default()).expect("split-block")
            }),
        ),
        (
            any("scalable-any", FilterKind::Scalable),
            mono("scalable-mono", |n, p| {
                ScalableBloom::new(n, p).expect("scalable")
            }),
        ),
        (
            any("cuckoo-any", FilterKind::Cuckoo),
            mono("cuckoo-mono", |n, p| {
                CuckooFilter::with_rate(n, p).expect("cuckoo")
            }),
        ),
        (
            any("xor-any", FilterKind::Xor),
            mono_static("xor-mono", |b| {
                XorFilter::from_keys(b.iter().map(|k| &k[..]), 8).expect("xor")
            }),
        ),
        (
            any("binary-fuse-any", FilterKind::BinaryFuse),
            mono_static("binary-fuse-mono", |b| {
                BinaryFuseFilter::from_keys(b.iter().map(|k| &k[..]), 8).expect("binary fuse")
            }),
        ),
    ]
}

pub fn run(c: &mut Criterion) {
    for n in sizes() {
        for (a, m) in pairs() {
            for e in [a, m] {
                let ids: Vec<String> = ["insert", "query_hit", "query_miss"]
                    .iter()
                    .map(|op| format!("dynamic_{op}/{}/{n}", e.name))
                    .collect();
                if !any_wanted(&ids) {
                    continue;
                }
                eprintln!("building {} for n = {n} …", e.name);
                let t = Instant::now();
                let mut s = build_filled(&e, n, n);
                eprintln!("  built in {:.1} s", t.elapsed().as_secs_f64());
                query(c, "dynamic_query_hit", e.name, n, s.as_ref(), fill_hits);
                query(c, "dynamic_query_miss", e.name, n, s.as_ref(), fill_misses);
                if e.dynamic && wanted(&ids[0]) {
                    insert(c, "dynamic_insert", e.name, n, &mut s);
                }
            }
        }
    }
}
