//! The implementations under test, in ONE list shared by the criterion bench (`bench.rs`) and
//! the accuracy audit (`audit.rs`). Adding a filter is one line in [`entries`], e.g.
//!
//! ```text
//! lab!("bloomlab-blocked", Both, |n, p| BlockedBloom::with_rate(n, p)),
//! lab_batch!("bloomlab-blocked-batch", Bench, |n, p| BlockedBloom::with_rate(n, p)),
//! ```
//!
//! Every subject works on `u64` keys. bloomlab filters take `&[u8]` and get the key's 8
//! little-endian bytes; peers whose API takes `T: Hash` get the `u64` itself (so `std`'s
//! `Hash for u64` writes the same 8 bytes to their hasher); peers that take a precomputed hash
//! (sbbf) get `xxh3_64` of the 8 bytes. Per-key work is monomorphised (closures, not function
//! pointers): the only dynamic call is one per batch.

#![allow(dead_code)]
// The `|n, p| Type::with_rate(n, p)` closures are the documented one-line pattern.
#![allow(clippy::redundant_closure)]

use bloomlab::filters::MultiblockBloom;
use bloomlab::filters::{
    BinaryFuseFilter, BlockedBloom, CountingBloom, CuckooFilter, PrefixFilter, QuotientFilter,
    RibbonFilter, ScalableBloom, SplitBlockBloom, XorFilter,
};
use bloomlab::hash::{
    EnhancedDouble64, EnhancedDoubleHashing, Foldhash, ItemHasher, RotateAdd64, Sip13, Xxh3,
};
use bloomlab::theory::multiblock::Shape;
use bloomlab::{Filter, StandardBloom};
use std::collections::HashSet;

/// One implementation, built for `n` keys at target rate `p`.
pub trait Subject {
    /// Insert every key of the batch.
    fn insert_batch(&mut self, keys: &[u64]);
    /// How many keys of the batch the filter reports present.
    fn count_hits(&self, keys: &[u64]) -> usize;
    /// Make it empty again (same configuration), for the insert bench to start over.
    fn reset(&mut self);
    /// Payload bits (for bits/key).
    fn bits(&mut self) -> u64;
    /// How it is configured (parameters it chose), for the tables.
    fn describe(&mut self) -> String;
}

/// Where an entry runs: criterion bench, accuracy audit, or both.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Role {
    Both,
    Bench,
    Audit,
}

type Build = Box<dyn Fn(u64, f64, &[u64]) -> Box<dyn Subject>>;

/// A named implementation and how to build it.
pub struct Entry {
    pub name: &'static str,
    /// How keys reach it ("8 LE bytes", "u64 via Hash", …).
    pub keys: &'static str,
    /// `false` for static filters (built from all keys at once; query benches only).
    pub dynamic: bool,
    pub role: Role,
    /// `(n, p, keys)`: `keys` holds `key(0..n)` for static entries and is empty otherwise.
    pub build: Build,
}

struct Dyn<T, M, I, Q> {
    inner: T,
    n: u64,
    p: f64,
    make: M,
    ins: I,
    has: Q,
    meta: fn(&mut T) -> (u64, String),
}

impl<T, M, I, Q> Subject for Dyn<T, M, I, Q>
where
    M: Fn(u64, f64) -> T,
    I: Fn(&mut T, &[u64]),
    Q: Fn(&T, &[u64]) -> usize,
{
    #[inline]
    fn insert_batch(&mut self, keys: &[u64]) {
        (self.ins)(&mut self.inner, keys);
    }
    #[inline]
    fn count_hits(&self, keys: &[u64]) -> usize {
        (self.has)(&self.inner, keys)
    }
    fn reset(&mut self) {
        self.inner = (self.make)(self.n, self.p);
    }
    fn bits(&mut self) -> u64 {
        (self.meta)(&mut self.inner).0
    }
    fn describe(&mut self) -> String {
        (self.meta)(&mut self.inner).1
    }
}

/// A dynamic (insertable) implementation from closures over whole batches.
pub fn dynamic<T, M, I, Q>(
    name: &'static str,
    keys: &'static str,
    role: Role,
    make: M,
    ins: I,
    has: Q,
    meta: fn(&mut T) -> (u64, String),
) -> Entry
where
    T: 'static,
    M: Fn(u64, f64) -> T + Copy + 'static,
    I: Fn(&mut T, &[u64]) + Copy + 'static,
    Q: Fn(&T, &[u64]) -> usize + Copy + 'static,
{
    Entry {
        name,
        keys,
        dynamic: true,
        role,
        build: Box::new(move |n, p, _| {
            Box::new(Dyn {
                inner: make(n, p),
                n,
                p,
                make,
                ins,
                has,
                meta,
            })
        }),
    }
}

struct Static<T, Q> {
    inner: T,
    has: Q,
    meta: fn(&mut T) -> (u64, String),
}

impl<T, Q: Fn(&T, &[u64]) -> usize> Subject for Static<T, Q> {
    fn insert_batch(&mut self, _: &[u64]) {
        panic!("a static filter cannot insert");
    }
    #[inline]
    fn count_hits(&self, keys: &[u64]) -> usize {
        (self.has)(&self.inner, keys)
    }
    fn reset(&mut self) {}
    fn bits(&mut self) -> u64 {
        (self.meta)(&mut self.inner).0
    }
    fn describe(&mut self) -> String {
        (self.meta)(&mut self.inner).1
    }
}

/// The quotient filter built from the whole key set (n keys, rate p, 8 LE bytes each, as
/// bloomlab-quotient): by the sorted bulk build (`bulk`) or by one insert after another, so
/// that a `build` ratio of the two is the bulk build's speed-up.
fn quotient_build(name: &'static str, bulk: bool) -> Entry {
    Entry {
        name,
        keys: "8 LE bytes",
        dynamic: false,
        role: Role::Bench,
        build: Box::new(move |n, p, all| {
            let mut f = QuotientFilter::with_rate(n, p).expect("quotient");
            if bulk {
                f.insert_all(all.iter().map(|k| k.to_le_bytes()))
                    .expect("quotient bulk build");
            } else {
                for k in all {
                    f.try_insert(&k.to_le_bytes()).expect("quotient insert");
                }
            }
            Box::new(Static {
                inner: f,
                has: |f: &QuotientFilter, keys: &[u64]| {
                    count(f, keys, |f, k| Filter::contains(f, &k.to_le_bytes()))
                },
                meta: lab_meta,
            })
        }),
    }
}

/// A static implementation, built from the full key set.
pub fn fixed<T, M, Q>(
    name: &'static str,
    keys: &'static str,
    role: Role,
    make: M,
    has: Q,
    meta: fn(&mut T) -> (u64, String),
) -> Entry
where
    T: 'static,
    M: Fn(&[u64]) -> T + 'static,
    Q: Fn(&T, &[u64]) -> usize + Copy + 'static,
{
    Entry {
        name,
        keys,
        dynamic: false,
        role,
        build: Box::new(move |_, _, all| {
            Box::new(Static {
                inner: make(all),
                has,
                meta,
            })
        }),
    }
}

/// Count the keys `has` accepts (the per-key query loop every single-query subject uses).
#[inline(always)]
fn count<T>(t: &T, keys: &[u64], has: impl Fn(&T, u64) -> bool) -> usize {
    keys.iter().filter(|&&k| has(t, k)).count()
}

/// What a bloomlab [`Filter`] reports about itself.
fn lab_meta<F: Filter>(f: &mut F) -> (u64, String) {
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

/// A bloomlab filter, one query at a time: `lab!(name, role, |n, p| -> Result<F>)`.
/// The rate a prefix filter for `n` keys delivers (its model at n): what the cuckoo and blocked
/// subjects it is compared with are sized for.
fn prefix_rate(n: u64) -> f64 {
    bloomlab::theory::prefix::sizing(n, None)
        .expect("prefix sizing")
        .fpr_at(n)
}

macro_rules! lab {
    ($name:expr, $role:ident, $make:expr) => {
        dynamic(
            $name,
            "8 LE bytes",
            Role::$role,
            move |n, p| ($make)(n, p).expect("bloomlab filter"),
            |f, keys| {
                for &k in keys {
                    // A full cuckoo table (rare below 95% load) is counted by the audit, not fatal.
                    let _ = Filter::try_insert(f, &k.to_le_bytes());
                }
            },
            |f, keys| count(f, keys, |f, k| Filter::contains(f, &k.to_le_bytes())),
            lab_meta,
        )
    };
}

/// A bloomlab filter queried through [`Filter::contains_batch`] (64 keys per call).
macro_rules! lab_batch {
    ($name:expr, $role:ident, $make:expr) => {
        dynamic(
            $name,
            "8 LE bytes, contains_batch",
            Role::$role,
            move |n, p| ($make)(n, p).expect("bloomlab filter"),
            |f, keys| {
                for &k in keys {
                    // A full cuckoo table (rare below 95% load) is counted by the audit, not fatal.
                    let _ = Filter::try_insert(f, &k.to_le_bytes());
                }
            },
            |f, keys| batch_count(f, keys),
            lab_meta,
        )
    };
}

/// Call `f` on `keys` as byte strings, 64 at a time (byte arrays and slices on the stack): how
/// the batch subjects hand keys to the batch APIs.
#[inline(always)]
fn in_item_chunks(keys: &[u64], mut f: impl FnMut(&[&[u8]])) {
    const B: usize = 64;
    for chunk in keys.chunks(B) {
        let bytes: [[u8; 8]; B] =
            std::array::from_fn(|i| chunk.get(i).map_or([0; 8], |k| k.to_le_bytes()));
        let items: [&[u8]; B] = std::array::from_fn(|i| &bytes[i][..]);
        f(&items[..chunk.len()]);
    }
}

/// How many of `keys` `query` (a batch query writing one answer per item) reports present.
#[inline(always)]
fn count_batched(keys: &[u64], query: impl Fn(&[&[u8]], &mut [bool])) -> usize {
    let mut hits = 0;
    in_item_chunks(keys, |items| {
        let mut out = [false; 64];
        query(items, &mut out[..items.len()]);
        hits += out[..items.len()].iter().filter(|&&b| b).count();
    });
    hits
}

/// Query `keys` through `contains_batch`, 64 at a time.
#[inline]
fn batch_count<F: Filter>(f: &F, keys: &[u64]) -> usize {
    count_batched(keys, |items, out| f.contains_batch(items, out))
}

/// [`batch_count`] through the split-block filter's portable batch path.
fn portable_batch_count(f: &SplitBlockBloom<Xxh3>, keys: &[u64]) -> usize {
    count_batched(keys, |items, out| f.portable_contains_batch(items, out))
}

/// fastbloom with the hasher `make` configures (`keys` names it in the tables).
fn fastbloom_entry<S: std::hash::BuildHasher + 'static>(
    name: &'static str,
    keys: &'static str,
    make: fn(u64, f64) -> fastbloom::BloomFilter<S>,
) -> Entry {
    dynamic(
        name,
        keys,
        Role::Both,
        make,
        |f: &mut fastbloom::BloomFilter<S>, keys: &[u64]| {
            for k in keys {
                f.insert(k);
            }
        },
        |f: &fastbloom::BloomFilter<S>, keys: &[u64]| count(f, keys, |f, k| f.contains(&k)),
        |f| {
            (
                f.num_bits() as u64,
                format!("m={} k={}", f.num_bits(), f.num_hashes()),
            )
        },
    )
}

/// A `BuildHasher` whose hash of a `u64` is bloomlab's `H::hash64` of its 8 little-endian
/// bytes: what a peer with a `T: Hash` API (fastbloom) needs to hash exactly as a bloomlab filter
/// does (`Hash for u64` makes one `write_u64` call).
#[derive(Clone, Copy, Default)]
pub struct LabHash<H>(pub H);

/// The [`std::hash::Hasher`] of [`LabHash`].
pub struct LabHasher<H> {
    h: H,
    out: u64,
}

impl<H: ItemHasher + Copy> std::hash::BuildHasher for LabHash<H> {
    type Hasher = LabHasher<H>;
    #[inline]
    fn build_hasher(&self) -> LabHasher<H> {
        LabHasher { h: self.0, out: 0 }
    }
}

impl<H: ItemHasher> std::hash::Hasher for LabHasher<H> {
    #[inline]
    fn write(&mut self, bytes: &[u8]) {
        self.out = self.h.hash64(bytes);
    }
    #[inline]
    fn write_u64(&mut self, k: u64) {
        self.out = self.h.hash64(&k.to_le_bytes());
    }
    #[inline]
    fn finish(&self) -> u64 {
        self.out
    }
}

/// fastbloom 0.9's `BloomFilter<512>` (512-bit blocks) hashing as bloomlab's `H` does.
///
/// Its layout, read from its source (lib.rs, `insert`/`contains`): one 64-bit hash h1, and
/// h2 = (h1 >> 32) · 0x517c_c1b7_2722_0a95; each of the k probes takes the block from the high 32
/// bits of the current h1 (`((h1 >> 32) · blocks) >> 32`), then steps h1 = rotl(h1 + h2, 5) and
/// takes the bit (0..512) from its low 9 bits. The block is re-derived per probe from the stepped
/// h1, so the k bits of an item fall in up to k different blocks; at p = 1% (k = 7, no
/// "sparse hash" rounds: those start at ≥ 8 bits per u64) it touches up to 7 cache lines, like a
/// standard filter, with the standard formula's m (9.59 bits per key). The query exits at the
/// first clear bit.
fn fastbloom09_entry<H: ItemHasher + Copy + Default>(
    name: &'static str,
    keys: &'static str,
) -> Entry {
    dynamic(
        name,
        keys,
        Role::Both,
        |n, p| {
            fastbloom09::BloomFilter::with_false_pos(p)
                .hasher(LabHash(H::default()))
                .expected_items(n as usize)
        },
        |f: &mut fastbloom09::BloomFilter<512, LabHash<H>>, keys: &[u64]| {
            for k in keys {
                f.insert(k);
            }
        },
        |f: &fastbloom09::BloomFilter<512, LabHash<H>>, keys: &[u64]| {
            count(f, keys, |f, k| f.contains(&k))
        },
        |f| {
            (
                f.num_bits() as u64,
                format!("m={} k={} (BloomFilter<512>)", f.num_bits(), f.num_hashes()),
            )
        },
    )
}

/// sbbf-rs-safe given `xxh3_64` of the key's 8 bytes (the hash bloomlab's `Xxh3::hash64` is).
fn sbbf_entry(name: &'static str, role: Role) -> Entry {
    dynamic(
        name,
        "xxh3_64 of 8 LE bytes",
        role,
        |n, p| sbbf_rs_safe::Filter::new(sbbf_bits_per_key(p), n as usize),
        |f, keys| {
            for &k in keys {
                f.insert_hash(xxhash_rust::xxh3::xxh3_64(&k.to_le_bytes()));
            }
        },
        |f, keys| {
            count(f, keys, |f, k| {
                f.contains_hash(xxhash_rust::xxh3::xxh3_64(&k.to_le_bytes()))
            })
        },
        |f| {
            let b = f.as_bytes().len() as u64 * 8;
            (
                b,
                format!("11 bits/key requested (Parquet: 10.5 for 1%), {b} bits"),
            )
        },
    )
}

/// The key of the fastbloom seed and of the other seeded peers.
const SEED: u128 = 0x0123_4567_89ab_cdef_fedc_ba98_7654_3210;

/// bloomfilter's 32-byte seed keys its two SipHashes with bytes 0..16 and 16..32: the halves
/// must differ, or both hashes are equal and double hashing degenerates to `h·(1 + i)`
/// (measured: 3.7% FPR at a 1% target with a constant seed).
const BLOOMFILTER_SEED: [u8; 32] = {
    let mut s = [0u8; 32];
    let mut i = 0;
    while i < 32 {
        s[i] = (i as u8).wrapping_mul(37).wrapping_add(11);
        i += 1;
    }
    s
};

/// Payload bytes of a growable-bloom-filter (its layers' bit buffers), read through serde
/// since the crate exposes no size accessor.
fn growable_bytes(g: &growable_bloom_filter::GrowableBloom) -> u64 {
    let v = serde_json::to_value(g).expect("serialize");
    v["b"].as_array().map_or(0, |a| {
        a.iter()
            .map(|b| b["b"].as_array().map_or(0, |x| x.len() as u64))
            .sum()
    })
}

/// Heap bytes of a `HashSet<u64>` (hashbrown: power-of-two buckets of 8 bytes + 1 control byte
/// each + one 16-byte group of trailing control bytes; capacity = 7/8 of the buckets).
fn hashset_bytes(s: &HashSet<u64>) -> u64 {
    let cap = s.capacity() as u64;
    if cap == 0 {
        return 0;
    }
    let buckets = if cap < 8 {
        (cap + 1).next_power_of_two()
    } else {
        (cap * 8 / 7).next_power_of_two()
    };
    buckets * 9 + 16
}

/// Parquet's table (BloomFilter.md, "Sizing an SBBF"): 10.5 bits per distinct value for 1%;
/// sbbf-rs-safe takes whole bits per key, so 11 for p ≥ 1%, more below.
fn sbbf_bits_per_key(p: f64) -> usize {
    // Split-block FPR with 8 words per 256-bit block is ≈ the Poisson mixture; the integer
    // bits-per-key values that reach each rate, from Parquet's table, rounded up.
    match p {
        p if p >= 0.1 => 6,
        p if p >= 0.01 => 11,
        p if p >= 0.001 => 17,
        p if p >= 0.0001 => 27,
        _ => 41,
    }
}

/// bloom2 has no (n, p) constructor: its `FilterSize` fixes m = 2^(8·s) bits and takes the
/// 64-bit hash in s-byte chunks (k = ⌈8/s⌉ positions). Pick the smallest s whose classic FPR
/// `(1 − e^(−kn/m))^k` reaches p — what a user would read off its documentation.
pub fn bloom2_size(n: u64, p: f64) -> (bloom2::FilterSize, u32) {
    use bloom2::FilterSize::*;
    for (fs, s) in [
        (KeyBytes1, 1u32),
        (KeyBytes2, 2),
        (KeyBytes3, 3),
        (KeyBytes4, 4),
    ] {
        let m = 2f64.powi(8 * s as i32);
        let k = f64::from(8u32.div_ceil(s));
        if (1.0 - (-k * n as f64 / m).exp()).powf(k) <= p {
            return (fs, s);
        }
    }
    (KeyBytes5, 5)
}

/// How the static subjects (bloomlab xor / binary fuse and xorf) hash a key: each takes the
/// `u64` itself and mixes it once with its seed by a 64-bit finalizer (bloomlab: splitmix64's,
/// xorf: murmur3's fmix64; three xor-shifts and two multiplies each), so the per-key hashing
/// cost is the same on both sides.
const STATIC_KEYS_LAB: &str = "u64 as key hash (splitmix64 fmix, seeded)";
const STATIC_KEYS_XORF: &str = "u64 (xorf: murmur3 fmix64, seeded)";

/// A bloomlab xor (`arity` 0) or binary fuse filter of `f`-bit fingerprints over the `u64`
/// keys given as their key hashes (`from_key_hashes` / `contains_key_hash`).
macro_rules! lab_static {
    ($name:expr, xor, $f:expr) => {
        fixed(
            $name,
            STATIC_KEYS_LAB,
            Role::Both,
            |all: &[u64]| XorFilter::from_key_hashes(all, $f, Xxh3::default()).expect("xor"),
            |f, keys| count(f, keys, |f, k| f.contains_key_hash(k)),
            |f| {
                let b = f.bits();
                (b, format!("xor f={} (fixed 2^-{}), {b} bits", $f, $f))
            },
        )
    };
    ($name:expr, fuse, $arity:expr, $f:expr) => {
        lab_static!($name, fuse, $arity, $f, Both)
    };
    ($name:expr, fuse, $arity:expr, $f:expr, $role:ident) => {
        fixed(
            $name,
            STATIC_KEYS_LAB,
            Role::$role,
            |all: &[u64]| {
                BinaryFuseFilter::from_key_hashes(all, $f, $arity, Xxh3::default())
                    .expect("binary fuse")
            },
            |f, keys| count(f, keys, |f, k| f.contains_key_hash(k)),
            |f| {
                let b = f.bits();
                (
                    b,
                    format!(
                        "binary-fuse {}-wise f={} (fixed 2^-{}), {b} bits",
                        $arity, $f, $f
                    ),
                )
            },
        )
    };
}

/// A bloomlab ribbon filter of `r`-bit results over the `u64` keys given as their key hashes.
macro_rules! lab_ribbon {
    ($name:expr, $r:expr) => {
        fixed(
            $name,
            STATIC_KEYS_LAB,
            Role::Both,
            |all: &[u64]| RibbonFilter::from_key_hashes(all, $r, Xxh3::default()).expect("ribbon"),
            |f, keys| count(f, keys, |f, k| f.contains_key_hash(k)),
            |f| {
                let b = f.bits();
                (
                    b,
                    format!("ribbon w=64 r={} (fixed 2^-{}), {b} bits", $r, $r),
                )
            },
        )
    };
}

/// pleat's homogeneous ribbon filter (w = 64, `R` result bits, pleated construction) over the
/// `u64` keys (mixed with its seed by murmur3's fmix64-style finalizer: the same per-key cost).
macro_rules! pleat_ribbon {
    ($name:expr, $r:literal) => {
        fixed(
            $name,
            "u64 (pleat: fmix64-style finalizer, seeded)",
            Role::Both,
            |all: &[u64]| pleat::filter::Ribbon::<$r>::from_keys_pleated(all),
            |f, keys| count(f, keys, |f, k| f.contains(k)),
            |f| {
                let b = f.size_bytes() as u64 * 8;
                (
                    b,
                    format!(
                        "pleat homogeneous ribbon w=64 r={} (~2^-{}), {b} bits",
                        $r, $r
                    ),
                )
            },
        )
    };
}

/// An xorf filter of type `$t` (fingerprints of `$bits` bits) over the `u64` keys.
macro_rules! xorf_static {
    ($name:expr, $t:ty, $bits:expr, $what:expr) => {
        fixed(
            $name,
            STATIC_KEYS_XORF,
            Role::Both,
            |all: &[u64]| <$t>::try_from(all).expect("xorf construction"),
            |f, keys| count(f, keys, |f, k| xorf::Filter::contains(f, &k)),
            |f| {
                let b = f.fingerprints.len() as u64 * $bits;
                (b, format!("{} (fixed 2^-{}), {b} bits", $what, $bits))
            },
        )
    };
}

/// The implementations. One line (or one call) each.
pub fn entries() -> Vec<Entry> {
    vec![
        // ---- bloomlab (default hash xxh3, enhanced double hashing) ----
        lab!("bloomlab-standard", Both, |n, p| StandardBloom::with_rate(
            n, p
        )),
        lab_batch!("bloomlab-standard-batch", Bench, |n, p| {
            StandardBloom::with_rate(n, p)
        }),
        // Same hash family as fastbloom's default (SipHash-1-3, see benches/README.md).
        lab!("bloomlab-standard-sip13", Both, |n, p| {
            StandardBloom::with_rate_and(n, p, Sip13::keyed(1, 2), EnhancedDoubleHashing)
        }),
        // The same code as `bloomlab-standard` under another name: the noise witness (its
        // ratio to `bloomlab-standard` is how far any ratio of the run can be off).
        lab!("bloomlab-standard-witness", Bench, |n, p| {
            StandardBloom::with_rate(n, p)
        }),
        // fastbloom's pairing: SipHash-1-3 with 64-bit output (what fastbloom's default hasher
        // computes) and the 64-bit strategy rotate-add-64 (fastbloom's form of index derivation;
        // enhanced-double-64 before, kept as gate rows `lab_standard_*_ed64`).
        lab!("bloomlab-standard-sip13-64", Both, |n, p| {
            StandardBloom::with_rate_and(n, p, Sip13::keyed(1, 2), RotateAdd64)
        }),
        // fastbloom-foldhash's pairing: foldhash (fast, fixed seed), 64-bit, rotate-add-64.
        lab!("bloomlab-standard-foldhash-64", Both, |n, p| {
            StandardBloom::with_rate_and(n, p, Foldhash::with_seed(SEED as u64), RotateAdd64)
        }),
        // Issue 44's configuration: foldhash with enhanced-double-64 (the strategy the issue's
        // independent run used), against fastbloom-foldhash as well.
        lab!("bloomlab-standard-foldhash-ed64", Both, |n, p| {
            StandardBloom::with_rate_and(n, p, Foldhash::with_seed(SEED as u64), EnhancedDouble64)
        }),
        // The default hash (xxh3, its 64-bit form) with enhanced-double-64.
        lab!("bloomlab-standard-xxh3-64", Both, |n, p| {
            StandardBloom::with_rate_and(n, p, Xxh3::default(), EnhancedDouble64)
        }),
        lab!("bloomlab-counting", Both, |n, p| CountingBloom::with_rate(
            n, p
        )),
        lab!("bloomlab-blocked", Both, |n, p| BlockedBloom::with_rate(
            n, p
        )),
        lab_batch!("bloomlab-blocked-batch", Bench, |n, p| {
            BlockedBloom::with_rate(n, p)
        }),
        lab!("bloomlab-split-block", Both, |n, p| {
            SplitBlockBloom::with_rate(n, p)
        }),
        // Like for like with sbbf-rs-safe (given xxh3_64 too): the same hash, the same layout.
        lab!("bloomlab-split-block-xxh3", Both, |n, p| {
            SplitBlockBloom::with_rate_and(n, p, Xxh3::default())
        }),
        lab_batch!("bloomlab-split-block-xxh3-batch", Bench, |n, p| {
            SplitBlockBloom::with_rate_and(n, p, Xxh3::default())
        }),
        // The same filter on its portable path even on an AVX2 CPU: against
        // `bloomlab-split-block-xxh3` (and `-batch`) it shows what the AVX2 kernel buys.
        dynamic(
            "bloomlab-split-block-xxh3-portable",
            "8 LE bytes, portable path",
            Role::Bench,
            |n, p| SplitBlockBloom::with_rate_and(n, p, Xxh3::default()).expect("split-block"),
            |f, keys| {
                for &k in keys {
                    f.portable_insert(&k.to_le_bytes());
                }
            },
            |f, keys| count(f, keys, |f, k| f.portable_contains(&k.to_le_bytes())),
            lab_meta,
        ),
        dynamic(
            "bloomlab-split-block-xxh3-batch-portable",
            "8 LE bytes, contains_batch, portable path",
            Role::Bench,
            |n, p| SplitBlockBloom::with_rate_and(n, p, Xxh3::default()).expect("split-block"),
            |f, keys| {
                for &k in keys {
                    f.portable_insert(&k.to_le_bytes());
                }
            },
            |f, keys| portable_batch_count(f, keys),
            lab_meta,
        ),
        // Like for like with fastbloom09-512-foldhash (bloomlab-blocked is xxh3).
        lab!("bloomlab-blocked-foldhash", Both, |n, p| {
            BlockedBloom::with_rate_and(n, p, None, Foldhash::default())
        }),
        lab!("bloomlab-scalable", Both, |n, p| ScalableBloom::new(n, p)),
        // Started at n/1000 and filled to n (about ten layers), like growable-bloom-filter-grown.
        lab!("bloomlab-scalable-grown", Bench, |n: u64, p| {
            ScalableBloom::new((n / 1000).max(1), p)
        }),
        lab!("bloomlab-cuckoo", Both, |n, p| CuckooFilter::with_rate(
            n, p
        )),
        // cuckoofilter's table shape: 2^⌈log2 n⌉ / 4 buckets of four 8-bit slots, so the same
        // memory and the same load as the peer at every n (30–61% during the insert bench at
        // 10^4, 47–95% at 10^6, 37–75% at 10^8; bloomlab-cuckoo runs 47–94% at every n).
        lab!("bloomlab-cuckoo-peershape", Bench, |n: u64, _| {
            CuckooFilter::with_layout_and((n.next_power_of_two() / 4).max(1), 8, 4, Xxh3::default())
        }),
        // The batch API: `insert_batch` and `contains_batch` (hash and prefetch 16, then probe).
        dynamic(
            "bloomlab-cuckoo-batch",
            "8 LE bytes, insert_batch / contains_batch",
            Role::Bench,
            |n, p| CuckooFilter::with_rate(n, p).expect("bloomlab filter"),
            |f, keys| {
                // A refused item (full table, rare below 95% load) is counted by the audit.
                in_item_chunks(keys, |items| {
                    let _ = f.insert_batch(items);
                });
            },
            |f, keys| batch_count(f, keys),
            lab_meta,
        ),
        // Static: built from all keys; r = 7 bits (the smallest with 2^-r <= 1%, the suites' p).
        fixed(
            "bloomlab-ribbon",
            "8 LE bytes",
            Role::Both,
            |all: &[u64]| {
                RibbonFilter::from_keys(all.iter().map(|k| k.to_le_bytes()), 7).expect("ribbon")
            },
            |f, keys| count(f, keys, |f, k| Filter::contains(f, &k.to_le_bytes())),
            lab_meta,
        ),
        lab!("bloomlab-quotient", Both, |n, p| QuotientFilter::with_rate(
            n, p
        )),
        quotient_build("bloomlab-quotient-bulk", true),
        quotient_build("bloomlab-quotient-bulk-witness", true),
        quotient_build("bloomlab-quotient-inserts", false),
        // Issue 38 item 5: the prefix filter (its rate is fixed by its 8-bit remainders: the
        // suite's p does not size it), its batch
        // query, and cuckoo and blocked sized for the rate it delivers at n.
        lab!(
            "bloomlab-prefix",
            Both,
            |n, _p| PrefixFilter::with_capacity(n)
        ),
        lab_batch!("bloomlab-prefix-batch", Bench, |n, _p| {
            PrefixFilter::with_capacity(n)
        }),
        lab!("bloomlab-cuckoo-at-prefix-rate", Both, |n, _p| {
            CuckooFilter::with_rate(n, prefix_rate(n))
        }),
        lab!("bloomlab-blocked-at-prefix-rate", Both, |n, _p| {
            BlockedBloom::with_rate(n, prefix_rate(n))
        }),
        // ---- bulk queries (issue 38): each kind's contains_batch beside its single query ----
        lab_batch!("bloomlab-counting-batch", Bench, |n, p| {
            CountingBloom::with_rate(n, p)
        }),
        lab_batch!("bloomlab-scalable-batch", Bench, |n, p| ScalableBloom::new(
            n, p
        )),
        lab_batch!("bloomlab-scalable-grown-batch", Bench, |n: u64, p| {
            ScalableBloom::new((n / 1000).max(1), p)
        }),
        // The xor filter through its byte-string API (hashing the 8 bytes, as the batch does),
        // one at a time and batched: `bloomlab-xor8` takes the key as its hash instead.
        fixed(
            "bloomlab-xor8-bytes",
            "8 LE bytes",
            Role::Bench,
            |all: &[u64]| {
                XorFilter::from_keys(all.iter().map(|k| k.to_le_bytes()), 8).expect("xor")
            },
            |f, keys| count(f, keys, |f, k| Filter::contains(f, &k.to_le_bytes())),
            lab_meta,
        ),
        fixed(
            "bloomlab-xor8-batch",
            "8 LE bytes, contains_batch",
            Role::Bench,
            |all: &[u64]| {
                XorFilter::from_keys(all.iter().map(|k| k.to_le_bytes()), 8).expect("xor")
            },
            |f, keys| batch_count(f, keys),
            lab_meta,
        ),
        // ---- peers ----
        fastbloom_entry("fastbloom", "u64 via Hash (SipHash-1-3)", |n, p| {
            fastbloom::BloomFilter::with_false_pos(p)
                .seed(&SEED)
                .expected_items(n as usize)
        }),
        // fastbloom with foldhash (the issue's reference numbers were taken with it): its
        // fastest configuration, so the "best peer" column is not flattered by SipHash.
        fastbloom_entry("fastbloom-foldhash", "u64 via Hash (foldhash)", |n, p| {
            fastbloom::BloomFilter::with_false_pos(p)
                .hasher(foldhash::fast::FixedState::with_seed(SEED as u64))
                .expected_items(n as usize)
        }),
        dynamic(
            "bloomfilter",
            "u64 via Hash",
            Role::Both,
            |n, p| {
                bloomfilter::Bloom::<u64>::new_for_fp_rate_with_seed(
                    n as usize,
                    p,
                    &BLOOMFILTER_SEED,
                )
                .expect("bloomfilter")
            },
            |f, keys| {
                for k in keys {
                    f.set(k);
                }
            },
            |f, keys| count(f, keys, |f, k| f.check(&k)),
            |f| {
                (
                    f.len(),
                    format!(
                        "m={} k={} hash=2x sip13",
                        f.len(),
                        f.number_of_hash_functions()
                    ),
                )
            },
        ),
        dynamic(
            "growable-bloom-filter",
            "u64 via Hash",
            Role::Both,
            |n, p| growable_bloom_filter::GrowableBloom::new(p, n as usize),
            |f, keys| {
                for &k in keys {
                    f.insert(k);
                }
            },
            |f, keys| count(f, keys, |f, k| f.contains(k)),
            |f| {
                let b = growable_bytes(f) * 8;
                (
                    b,
                    format!(
                        "partitioned, est_insertions=n, tightening 0.8515625 (default), {b} bits"
                    ),
                )
            },
        ),
        dynamic(
            "growable-bloom-filter-grown",
            "u64 via Hash",
            Role::Bench,
            |n, p| growable_bloom_filter::GrowableBloom::new(p, (n as usize / 1000).max(1)),
            |f, keys| {
                for &k in keys {
                    f.insert(k);
                }
            },
            |f, keys| count(f, keys, |f, k| f.contains(k)),
            |f| {
                let b = growable_bytes(f) * 8;
                (
                    b,
                    format!("est_insertions=n/1000, filled to n, tightening 0.8515625, {b} bits"),
                )
            },
        ),
        dynamic(
            "cuckoofilter",
            "u64 via Hash",
            Role::Both,
            |n, _| {
                cuckoofilter::CuckooFilter::<std::collections::hash_map::DefaultHasher>::with_capacity(
                    n as usize,
                )
            },
            |f, keys| {
                for k in keys {
                    // Full (rare below 95% load): the bench keeps going, the audit counts.
                    let _ = f.add(k);
                }
            },
            |f, keys| count(f, keys, |f, k| f.contains(&k)),
            |f| {
                let b = f.memory_usage() as u64 * 8;
                (
                    b,
                    format!(
                        "capacity=n (rounded to 2^k slots), 8-bit fingerprints, buckets of 4, {b} bits"
                    ),
                )
            },
        ),
        // The same keys hashed the same way as bloomlab-quotient (xxh3_64 of the 8 LE bytes, fed
        // as a fingerprint), at the same q and r: both store the same fingerprints.
        dynamic(
            "qfilter",
            "xxh3_64 of 8 LE bytes",
            Role::Both,
            |n, p| {
                let (q, r) = bloomlab::theory::quotient::sizing(n, Some(p), 0, 0.95)
                    .expect("quotient sizing");
                qfilter::Filter::with_fingerprint_size(n, (q + r) as u8).expect("qfilter")
            },
            |f, keys| {
                for &k in keys {
                    // Full (past 95% load): the bench keeps going, the audit counts.
                    let _ =
                        f.insert_fingerprint(true, xxhash_rust::xxh3::xxh3_64(&k.to_le_bytes()));
                }
            },
            |f, keys| {
                count(f, keys, |f, k| {
                    f.contains_fingerprint(xxhash_rust::xxh3::xxh3_64(&k.to_le_bytes()))
                })
            },
            |f| {
                let b = f.memory_usage() as u64 * 8;
                (
                    b,
                    format!(
                        "rank-select, {}-bit fingerprints, capacity {}, {b} bits",
                        f.fingerprint_size(),
                        f.capacity()
                    ),
                )
            },
        ),
        // ---- static sets: bloomlab beside xorf, the same per-key hashing (see STATIC_KEYS_LAB) ----
        lab_static!("bloomlab-xor8", xor, 8),
        lab_static!("bloomlab-xor16", xor, 16),
        lab_static!("bloomlab-fuse8", fuse, 3, 8),
        // The noise witness of the static rows: the same code as bloomlab-fuse8.
        lab_static!("bloomlab-fuse8-witness", fuse, 3, 8, Bench),
        lab_static!("bloomlab-fuse16", fuse, 3, 16),
        lab_static!("bloomlab-fuse4-8", fuse, 4, 8),
        lab_static!("bloomlab-fuse4-16", fuse, 4, 16),
        // Ribbon (r = 7 and 10 bits) over the same u64 keys as the static rows above
        // (`from_key_hashes` / `contains_key_hash`): the peer of its ratios is xorf BinaryFuse8.
        lab_ribbon!("bloomlab-ribbon7", 7),
        lab_ribbon!("bloomlab-ribbon10", 10),
        xorf_static!("xorf", xorf::BinaryFuse8, 8, "BinaryFuse8"),
        pleat_ribbon!("pleat-ribbon7", 7),
        pleat_ribbon!("pleat-ribbon10", 10),
        xorf_static!("xorf-fuse16", xorf::BinaryFuse16, 16, "BinaryFuse16"),
        xorf_static!("xorf-xor8", xorf::Xor8, 8, "Xor8"),
        xorf_static!("xorf-xor16", xorf::Xor16, 16, "Xor16"),
        sbbf_entry("sbbf-rs-safe", Role::Both),
        // The noise witness: the same code as sbbf-rs-safe under another name. Their ratio in
        // one run is the run's noise (it should be 1).
        sbbf_entry("sbbf-rs-safe-xxh3-witness", Role::Bench),
        // fastbloom 0.9 `BloomFilter<512>`, hashing exactly as bloomlab (xxh3 / foldhash
        // hash64 of the 8 bytes): the like-for-like peers of bloomlab-blocked(-foldhash).
        fastbloom09_entry::<Xxh3>("fastbloom09-512-xxh3", "xxh3_64 of 8 LE bytes (LabHash)"),
        fastbloom09_entry::<Foldhash>(
            "fastbloom09-512-foldhash",
            "bloomlab foldhash of 8 LE bytes (LabHash)",
        ),
        // ---- the multiblock kind (H38M): like for like with sbbf-rs-safe and fastbloom 0.9 ----
        // (32, 8): the split-block layout, xxh3_64 as sbbf-rs-safe is given it.
        lab!("bloomlab-multiblock-32x8", Both, |n, p| {
            MultiblockBloom::with_rate(Shape::new(32, 8, None).expect("shape"), n, p)
        }),
        // (64, 8): eight 64-bit words = one 512-bit line, xxh3_64 as fastbloom09-512-xxh3.
        lab!("bloomlab-multiblock-64x8", Both, |n, p| {
            MultiblockBloom::with_rate(Shape::new(64, 8, None).expect("shape"), n, p)
        }),
        // (64, 1, b = 5): Boost's block<uint64_t,5>, register blocking.
        lab!("bloomlab-multiblock-64x1-b5", Bench, |n, p| {
            MultiblockBloom::with_rate(Shape::new(64, 1, Some(5)).expect("shape"), n, p)
        }),
        lab_batch!("bloomlab-multiblock-64x8-batch", Bench, |n, p| {
            MultiblockBloom::with_rate(Shape::new(64, 8, None).expect("shape"), n, p)
        }),
        dynamic(
            "hashset",
            "u64 via Hash",
            Role::Both,
            |n, _| HashSet::<u64>::with_capacity(n as usize),
            |f, keys| {
                for &k in keys {
                    f.insert(k);
                }
            },
            |f, keys| count(f, keys, |f, k| f.contains(&k)),
            |f| {
                let b = hashset_bytes(f) * 8;
                (
                    b,
                    format!("std HashSet<u64> (SipHash-1-3, random keys), exact, {b} bits"),
                )
            },
        ),
        // ---- audit only: known to miss their targets ----
        dynamic(
            "bloom",
            "u64 via Hash",
            Role::Audit,
            |n, p| bloom::BloomFilter::with_rate(p as f32, n as u32),
            |f, keys| {
                for k in keys {
                    bloom::ASMS::insert(f, k);
                }
            },
            |f, keys| count(f, keys, |f, k| bloom::ASMS::contains(f, &k)),
            |f| {
                (
                    f.num_bits() as u64,
                    format!("m={} k={} (with_rate, f32)", f.num_bits(), f.num_hashes()),
                )
            },
        ),
        dynamic(
            "bloom2",
            "u64 via Hash",
            Role::Audit,
            |n, p| {
                bloom2::BloomFilterBuilder::default()
                    .size(bloom2_size(n, p).0)
                    .build::<u64>()
            },
            |f, keys| {
                for k in keys {
                    f.insert(k);
                }
            },
            |f, keys| count(f, keys, |f, k| f.contains(&k)),
            |f| {
                let b = f.byte_size() as u64 * 8;
                (
                    b,
                    format!(
                        "FilterSize picked by classic formula (see audit), compressed bitmap, {b} bits"
                    ),
                )
            },
        ),
    ]
}

/// Compile-time use of the default hasher type, so the list's comment stays true.
const _: fn() -> Xxh3 = Xxh3::default;
