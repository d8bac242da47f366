//! The hash functions. Each is a small `Copy` value holding its key or seed.

use super::murmur3::murmur3_x64_128;
use super::{Hash128, HashId, ItemHasher, mix64};
use std::hash::{BuildHasher, Hasher};

/// The default wyhash secret of the final3 reference implementation (`_wyp`).
const WY_SECRET: [u64; 4] = [
    0xa076_1d64_78bd_642f,
    0xe703_7ed1_a0b4_28db,
    0x8ebc_6af0_9c88_c6e3,
    0x5899_65cc_7537_4cc3,
];

/// Widen a 64-bit hash to 128 bits with a bijective mixer, for functions that only give 64.
#[inline]
fn widen(h: u64) -> Hash128 {
    Hash128 {
        lo: h,
        hi: mix64(h ^ 0x9e37_79b9_7f4a_7c15),
    }
}

/// SipHash with 128-bit output (the `siphasher` crate), keyed by `(k0, k1)`, with the rounds of
/// `R`: [`Sip13`] (SipHash-1-3) or [`Sip24`] (SipHash-2-4). The default key is zero; use
/// [`Sip::keyed`] with a secret key for untrusted input.
#[derive(Clone, Copy, Default, PartialEq, Eq)]
pub struct Sip<R: SipRounds> {
    k0: u64,
    k1: u64,
    rounds: std::marker::PhantomData<R>,
}

/// SipHash-1-3 with 128-bit output.
pub type Sip13 = Sip<Rounds13>;

/// SipHash-2-4 with 128-bit output: the conservative choice for filters facing adversarial
/// input, with a secret key.
pub type Sip24 = Sip<Rounds24>;

/// The SipHash-1-3 rounds (one compression, three finalization rounds).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Rounds13;

/// The SipHash-2-4 rounds (two compression, four finalization rounds).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Rounds24;

mod sealed {
    pub trait Sealed {}
    impl Sealed for super::Rounds13 {}
    impl Sealed for super::Rounds24 {}
}

/// The rounds of a SipHash variant: `siphasher`'s hasher types for them (sealed: [`Rounds13`]
/// and [`Rounds24`]).
pub trait SipRounds: sealed::Sealed + Copy + Default + Eq + Send + Sync + 'static {
    /// The variant's hash id.
    const ID: HashId;
    /// The type's name in `Debug` output.
    const NAME: &'static str;
    /// The 64-bit hasher.
    type H64: Hasher;
    /// A 64-bit hasher keyed with `(k0, k1)`.
    fn h64(k0: u64, k1: u64) -> Self::H64;
    /// The 128-bit hash of `bytes` under `(k0, k1)`.
    fn h128(k0: u64, k1: u64, bytes: &[u8]) -> siphasher::sip128::Hash128;
}

macro_rules! sip_rounds {
    ($($rounds:ident => $id:ident, $hasher:ident;)*) => {$(
        impl SipRounds for $rounds {
            const ID: HashId = HashId::$id;
            const NAME: &'static str = stringify!($id);
            type H64 = siphasher::sip::$hasher;
            #[inline(always)]
            fn h64(k0: u64, k1: u64) -> Self::H64 {
                siphasher::sip::$hasher::new_with_keys(k0, k1)
            }
            #[inline(always)]
            fn h128(k0: u64, k1: u64, bytes: &[u8]) -> siphasher::sip128::Hash128 {
                siphasher::sip128::$hasher::new_with_keys(k0, k1).hash(bytes)
            }
        }
    )*};
}
sip_rounds! {
    Rounds13 => Sip13, SipHasher13;
    Rounds24 => Sip24, SipHasher24;
}

/// Debug output never shows a secret key (a filter's `{:?}` may end up in logs): a zero key
/// prints as `0`, any other as `<secret>`.
impl<R: SipRounds> std::fmt::Debug for Sip<R> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let key = if self.k0 == 0 && self.k1 == 0 {
            "0"
        } else {
            "<secret>"
        };
        f.debug_struct(R::NAME).field("key", &key).finish()
    }
}

impl<R: SipRounds> Sip<R> {
    /// A SipHash keyed with a secret 128-bit key.
    #[must_use]
    pub fn keyed(k0: u64, k1: u64) -> Self {
        Self {
            k0,
            k1,
            rounds: std::marker::PhantomData,
        }
    }

    /// Keyed with 16 key bytes (`k0` = the first 8 little-endian, `k1` = the last 8, as
    /// `siphasher`'s `new_with_key` reads them).
    #[must_use]
    pub fn with_key(key: &[u8; 16]) -> Self {
        let (mut a, mut b) = ([0u8; 8], [0u8; 8]);
        a.copy_from_slice(&key[..8]);
        b.copy_from_slice(&key[8..]);
        Self::keyed(u64::from_le_bytes(a), u64::from_le_bytes(b))
    }

    /// The key `(k0, k1)` (needed to persist a filter; treat it as a secret).
    #[must_use]
    pub fn key(&self) -> (u64, u64) {
        (self.k0, self.k1)
    }
}

impl<R: SipRounds> ItemHasher for Sip<R> {
    fn id(&self) -> HashId {
        R::ID
    }
    #[inline]
    fn hash128(&self, bytes: &[u8]) -> Hash128 {
        let h = R::h128(self.k0, self.k1, bytes);
        Hash128 { lo: h.h1, hi: h.h2 }
    }
    #[inline]
    fn hash64(&self, bytes: &[u8]) -> u64 {
        let mut h = R::h64(self.k0, self.k1);
        // An 8-byte item (a u64 key) as one word: the same SipHash of the same bytes
        // (siphasher's `write_u64` writes the little-endian bytes), without the generic tail loop.
        if let Ok(w) = <[u8; 8]>::try_from(bytes) {
            h.write_u64(u64::from_le_bytes(w));
        } else {
            h.write(bytes);
        }
        h.finish()
    }
    #[inline]
    fn hash64_seeded(&self, bytes: &[u8], seed: u64) -> u64 {
        let mut h = R::h64(self.k0 ^ seed, self.k1);
        h.write(bytes);
        h.finish()
    }
}

/// wyhash (final3 version, the `wyhash` crate), 64-bit output widened to 128, seeded.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Wyhash {
    seed: u64,
}

impl Wyhash {
    /// wyhash with a seed.
    #[must_use]
    pub fn with_seed(seed: u64) -> Self {
        Self { seed }
    }

    /// The seed.
    #[must_use]
    pub fn seed(&self) -> u64 {
        self.seed
    }
}

impl ItemHasher for Wyhash {
    fn id(&self) -> HashId {
        HashId::Wyhash
    }
    #[inline]
    fn hash128(&self, bytes: &[u8]) -> Hash128 {
        widen(wyhash::final3::wyhash(bytes, self.seed, WY_SECRET))
    }
    #[inline]
    fn hash64(&self, bytes: &[u8]) -> u64 {
        wyhash::final3::wyhash(bytes, self.seed, WY_SECRET)
    }
    #[inline]
    fn hash64_seeded(&self, bytes: &[u8], seed: u64) -> u64 {
        wyhash::final3::wyhash(bytes, self.seed ^ mix64(seed), WY_SECRET)
    }
}

/// XXH3 with 128-bit output (the `xxhash-rust` crate), seeded.
#[derive(Clone, Copy, PartialEq, Eq)]
pub struct Xxh3 {
    seed: u64,
    /// The seed's term of the 4..=8-byte path, computed once from `seed` (see [`xxh3_64_4to8`]).
    bitflip_4to8: u64,
    /// The seed's term of the 128-bit 4..=8-byte path (see [`xxh3_128_4to8`]).
    flip128_4to8: u64,
}

impl Xxh3 {
    /// XXH3 with a seed.
    #[must_use]
    pub fn with_seed(seed: u64) -> Self {
        Self {
            seed,
            bitflip_4to8: bitflip_4to8(seed),
            flip128_4to8: flip128_4to8(seed),
        }
    }

    /// The seed.
    #[must_use]
    pub fn seed(&self) -> u64 {
        self.seed
    }
}

impl Default for Xxh3 {
    /// Seed 0 (XXH3's unseeded function).
    fn default() -> Self {
        Self::with_seed(0)
    }
}

impl std::fmt::Debug for Xxh3 {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Xxh3").field("seed", &self.seed).finish()
    }
}

impl ItemHasher for Xxh3 {
    fn id(&self) -> HashId {
        HashId::Xxh3
    }
    // Always inlined, as `hash64` below: an 8-byte key's 128-bit hash is ~20 instructions in
    // line, where the crate's entry point is a call with its length dispatch (the scalable
    // filter's and the enhanced-double standard filter's hot path).
    #[inline(always)]
    fn hash128(&self, bytes: &[u8]) -> Hash128 {
        if let 4..=8 = bytes.len() {
            return xxh3_128_4to8(bytes, self.flip128_4to8);
        }
        let h = xxhash_rust::xxh3::xxh3_128_with_seed(bytes, self.seed);
        Hash128 {
            lo: h as u64,
            hi: (h >> 64) as u64,
        }
    }
    // Always inlined: the 4..=8-byte path is a dozen instructions, and a call of it cost the
    // split-block query 17 of its 93 (callgrind, benches/gate.rs `lab_split_block_xxh3`).
    #[inline(always)]
    fn hash64(&self, bytes: &[u8]) -> u64 {
        if let 4..=8 = bytes.len() {
            return xxh3_64_4to8(bytes, self.bitflip_4to8);
        }
        xxhash_rust::xxh3::xxh3_64_with_seed(bytes, self.seed)
    }
    #[inline]
    fn hash64_seeded(&self, bytes: &[u8], seed: u64) -> u64 {
        xxhash_rust::xxh3::xxh3_64_with_seed(bytes, self.seed ^ mix64(seed))
    }
}

/// The seed's term of `XXH3_len_4to8_64b` (xxHash `doc/xxhash_spec.md`, "XXH3 algorithm",
/// inputs of 4 to 8 bytes): `(secret[8..16] ^ secret[16..24]) - (seed ^ (bswap32(seed) << 32))`,
/// with the default secret's little-endian words. It depends on the seed only, so [`Xxh3`]
/// keeps it: a hash of 4 to 8 bytes then loads one word instead of recomputing it (six
/// instructions per hash, callgrind, gate `lab_split_block_xxh3`).
fn bitflip_4to8(seed: u64) -> u64 {
    const SECRET_8: u64 = 0x1cad_21f7_2c81_017c;
    const SECRET_16: u64 = 0xdb97_9083_e96d_d4de;
    let seed = seed ^ (u64::from((seed as u32).swap_bytes()) << 32);
    (SECRET_8 ^ SECRET_16).wrapping_sub(seed)
}

/// The seed's term of `XXH3_len_4to8_128b` (xxHash `doc/xxhash_spec.md`, "XXH3 algorithm",
/// 128-bit, inputs of 4 to 8 bytes): `(secret[16..24] ^ secret[24..32]) + (seed ^ (bswap32(seed)
/// << 32))`, with the default secret's little-endian words; kept by [`Xxh3`] like
/// [`bitflip_4to8`].
fn flip128_4to8(seed: u64) -> u64 {
    const SECRET_16: u64 = 0xdb97_9083_e96d_d4de;
    const SECRET_24: u64 = 0x1f67_b3b7_a4a4_4072;
    let seed = seed ^ (u64::from((seed as u32).swap_bytes()) << 32);
    (SECRET_16 ^ SECRET_24).wrapping_add(seed)
}

/// XXH3-128 of 4 to 8 bytes, inline: the specification's `XXH3_len_4to8_128b`, given the seed's
/// term [`flip128_4to8`]. Equal to the crate for every length 4..=8 and seed (tested).
#[inline(always)]
fn xxh3_128_4to8(input: &[u8], flip: u64) -> Hash128 {
    const PRIME64_1: u64 = 0x9e37_79b1_85eb_ca87;
    const PRIME_MX2: u64 = 0x9fb2_1c65_1e98_df25;
    let len = input.len();
    let lo = u32::from_le_bytes([input[0], input[1], input[2], input[3]]);
    let hi = u32::from_le_bytes([
        input[len - 4],
        input[len - 3],
        input[len - 2],
        input[len - 1],
    ]);
    let keyed = u64::from(lo).wrapping_add(u64::from(hi) << 32) ^ flip;
    let p = u128::from(keyed) * u128::from(PRIME64_1.wrapping_add((len as u64) << 2));
    let (mut l, mut h) = (p as u64, (p >> 64) as u64);
    h = h.wrapping_add(l << 1);
    l ^= h >> 3;
    l ^= l >> 35;
    l = l.wrapping_mul(PRIME_MX2);
    l ^= l >> 28;
    h ^= h >> 37;
    h = h.wrapping_mul(0x1656_6791_9e37_79f9);
    h ^= h >> 32;
    Hash128 { lo: l, hi: h }
}

/// XXH3-64 of 4 to 8 bytes, inline: the specification's `XXH3_len_4to8_64b` (Collet, xxHash
/// `doc/xxhash_spec.md`, "XXH3 algorithm", inputs of 4 to 8 bytes), given the seed's term
/// [`bitflip_4to8`]. The crate's entry point handles every length and is too large to be inlined,
/// which cost an 8-byte key ~15 more instructions than the hash itself (callgrind, gate). Equal
/// to the crate for every length 4..=8 and seed (tested).
#[inline(always)]
fn xxh3_64_4to8(input: &[u8], bitflip: u64) -> u64 {
    const M: u64 = 0x9fb2_1c65_1e98_df25;
    let len = input.len();
    let lo = u32::from_le_bytes([input[0], input[1], input[2], input[3]]);
    let hi = u32::from_le_bytes([
        input[len - 4],
        input[len - 3],
        input[len - 2],
        input[len - 1],
    ]);
    let mut v = (u64::from(hi).wrapping_add(u64::from(lo) << 32)) ^ bitflip;
    v ^= v.rotate_left(49) ^ v.rotate_left(24);
    v = v.wrapping_mul(M);
    v ^= (v >> 35).wrapping_add(len as u64);
    v = v.wrapping_mul(M);
    v ^ (v >> 28)
}

/// XXH64 (the `xxhash-rust` crate), 64-bit output widened to 128, seeded. Apache Parquet's
/// split block Bloom filter prescribes XXH64 with seed 0.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Xxh64 {
    seed: u64,
}

impl Xxh64 {
    /// XXH64 with a seed.
    #[must_use]
    pub fn with_seed(seed: u64) -> Self {
        Self { seed }
    }

    /// The seed.
    #[must_use]
    pub fn seed(&self) -> u64 {
        self.seed
    }
}

impl ItemHasher for Xxh64 {
    fn id(&self) -> HashId {
        HashId::Xxh64
    }
    #[inline]
    fn hash128(&self, bytes: &[u8]) -> Hash128 {
        widen(xxhash_rust::xxh64::xxh64(bytes, self.seed))
    }
    #[inline]
    fn hash64(&self, bytes: &[u8]) -> u64 {
        xxhash_rust::xxh64::xxh64(bytes, self.seed)
    }
    #[inline]
    fn hash64_seeded(&self, bytes: &[u8], seed: u64) -> u64 {
        xxhash_rust::xxh64::xxh64(bytes, self.seed ^ mix64(seed))
    }
}

/// MurmurHash3 x64_128 with a 32-bit seed (Guava uses seed 0, the default).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Murmur3 {
    seed: u32,
}

impl Murmur3 {
    /// murmur3 with a seed (not a secret key: murmur3 is not a keyed PRF).
    #[must_use]
    pub fn with_seed(seed: u32) -> Self {
        Self { seed }
    }

    /// The seed.
    #[must_use]
    pub fn seed(&self) -> u32 {
        self.seed
    }
}

impl ItemHasher for Murmur3 {
    fn id(&self) -> HashId {
        HashId::Murmur3
    }
    #[inline]
    fn hash128(&self, bytes: &[u8]) -> Hash128 {
        let (lo, hi) = murmur3_x64_128(bytes, self.seed);
        Hash128 { lo, hi }
    }
    #[inline]
    fn hash64(&self, bytes: &[u8]) -> u64 {
        murmur3_x64_128(bytes, self.seed).0
    }
    #[inline]
    fn hash64_seeded(&self, bytes: &[u8], seed: u64) -> u64 {
        murmur3_x64_128(bytes, self.seed ^ (mix64(seed) as u32)).0
    }
}

/// FxHash (the `rustc-hash` crate, version 2): very fast, no avalanche guarantee.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Fx {
    seed: u64,
}

impl Fx {
    /// FxHash with a seed.
    #[must_use]
    pub fn with_seed(seed: u64) -> Self {
        Self { seed }
    }

    /// The seed.
    #[must_use]
    pub fn seed(&self) -> u64 {
        self.seed
    }
}

impl ItemHasher for Fx {
    fn id(&self) -> HashId {
        HashId::Fx
    }
    #[inline]
    fn hash128(&self, bytes: &[u8]) -> Hash128 {
        widen(self.hash64_seeded(bytes, 0))
    }
    #[inline]
    fn hash64(&self, bytes: &[u8]) -> u64 {
        self.hash64_seeded(bytes, 0)
    }
    #[inline]
    fn hash64_seeded(&self, bytes: &[u8], seed: u64) -> u64 {
        let mut h = rustc_hash::FxHasher::with_seed((self.seed ^ seed) as usize);
        h.write(bytes);
        h.finish()
    }
}

/// FNV-1a, 64-bit (Fowler, Noll, Vo): byte at a time, simple, slow on long keys.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Fnv1a {
    seed: u64,
}

impl Fnv1a {
    /// FNV-1a whose offset basis is perturbed by `seed`.
    #[must_use]
    pub fn with_seed(seed: u64) -> Self {
        Self { seed }
    }

    /// The seed.
    #[must_use]
    pub fn seed(&self) -> u64 {
        self.seed
    }
}

impl ItemHasher for Fnv1a {
    fn id(&self) -> HashId {
        HashId::Fnv1a
    }
    #[inline]
    fn hash128(&self, bytes: &[u8]) -> Hash128 {
        widen(self.hash64_seeded(bytes, 0))
    }
    #[inline]
    fn hash64(&self, bytes: &[u8]) -> u64 {
        self.hash64_seeded(bytes, 0)
    }
    #[inline]
    fn hash64_seeded(&self, bytes: &[u8], seed: u64) -> u64 {
        let mut h = 0xcbf2_9ce4_8422_2325u64 ^ self.seed ^ seed.wrapping_mul(0x9e37_79b9_7f4a_7c15);
        for &b in bytes {
            h ^= u64::from(b);
            h = h.wrapping_mul(0x0000_0100_0000_01b3);
        }
        h
    }
}

/// foldhash's fast hasher (the `foldhash` crate, the hash `hashbrown` defaults to) with a
/// **fixed** seed (foldhash's own default state is random per process; a filter that is saved or
/// compared across runs needs the same function every time). 64-bit, widened to 128.
///
/// An 8-byte item (a `u64` key, the commonest) is hashed here, not through the crate: the same
/// arithmetic as foldhash 0.2's `FixedState::with_seed(seed)` writing 8 bytes (a test compares
/// them for every length and many seeds), with the seed's part — `rotr(seed ^ ARBITRARY3, 8)` —
/// computed once in [`Foldhash::with_seed`] instead of on every hash (2 instructions of an
/// insert in the CI gate's `lab_standard_foldhash_64`). Other lengths go through the crate.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Foldhash {
    seed: u64,
    /// foldhash's accumulator after `write` rotated it for an 8-byte input.
    acc8: u64,
}

/// foldhash 0.2's `ARBITRARY3`, XORed into the per-hasher seed by `FixedState::with_seed`.
const FOLD_ARBITRARY3: u64 = 0x082e_fa98_ec4e_6c89;
/// foldhash 0.2's fixed shared `seeds[1]` (`ARBITRARY7`), the second multiplicand's key.
const FOLD_SEED1: u64 = 0x3f84_d5b5_b547_0917;

impl Default for Foldhash {
    fn default() -> Self {
        Self::with_seed(0)
    }
}

impl Foldhash {
    /// foldhash with a fixed seed.
    #[must_use]
    pub fn with_seed(seed: u64) -> Self {
        Self {
            seed,
            acc8: (seed ^ FOLD_ARBITRARY3).rotate_right(8),
        }
    }

    /// The seed.
    #[must_use]
    pub fn seed(&self) -> u64 {
        self.seed
    }
}

impl ItemHasher for Foldhash {
    fn id(&self) -> HashId {
        HashId::Foldhash
    }
    #[inline]
    fn hash128(&self, bytes: &[u8]) -> Hash128 {
        widen(self.hash64(bytes))
    }
    #[inline]
    fn hash64(&self, bytes: &[u8]) -> u64 {
        if let Ok(word) = <[u8; 8]>::try_from(bytes) {
            // foldhash's short path for 8 bytes: both halves read the same word.
            let x = u64::from_ne_bytes(word);
            let full = u128::from(self.acc8 ^ x) * u128::from(FOLD_SEED1 ^ x);
            return (full as u64) ^ ((full >> 64) as u64);
        }
        self.hash64_seeded(bytes, 0)
    }
    #[inline]
    fn hash64_seeded(&self, bytes: &[u8], seed: u64) -> u64 {
        let state = foldhash::fast::FixedState::with_seed(self.seed ^ mix64(seed) ^ mix64(0));
        let mut h = state.build_hasher();
        h.write(bytes);
        h.finish()
    }
}

/// **A deliberately poor hash, for teaching.** The Java `String.hashCode` recipe
/// (`h = 31·h + byte`) in 64-bit arithmetic, with no final mixing, and its "second half" is the
/// same value. Nearby keys get nearby hashes, the top bits barely move, and `h1`/`h2` are
/// correlated: everything a Bloom filter's analysis assumes away. Never use it for real data.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Weak {
    seed: u64,
}

impl Weak {
    /// The weak hash with a starting value.
    #[must_use]
    pub fn with_seed(seed: u64) -> Self {
        Self { seed }
    }

    /// The seed.
    #[must_use]
    pub fn seed(&self) -> u64 {
        self.seed
    }
}

impl ItemHasher for Weak {
    fn id(&self) -> HashId {
        HashId::Weak
    }
    #[inline]
    fn hash128(&self, bytes: &[u8]) -> Hash128 {
        let h = self.hash64_seeded(bytes, 0);
        Hash128 { lo: h, hi: h }
    }
    #[inline]
    fn hash64(&self, bytes: &[u8]) -> u64 {
        self.hash64_seeded(bytes, 0)
    }
    #[inline]
    fn hash64_seeded(&self, bytes: &[u8], seed: u64) -> u64 {
        bytes.iter().fold(self.seed ^ seed, |h, &b| {
            h.wrapping_mul(31).wrapping_add(u64::from(b))
        })
    }
}

/// Any of the hash functions, chosen at run time (one branch per call, well predicted).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum AnyHasher {
    /// [`Sip13`]
    Sip13(Sip13),
    /// [`Sip24`]
    Sip24(Sip24),
    /// [`Wyhash`]
    Wyhash(Wyhash),
    /// [`Xxh3`]
    Xxh3(Xxh3),
    /// [`Xxh64`]
    Xxh64(Xxh64),
    /// [`Murmur3`]
    Murmur3(Murmur3),
    /// [`Fx`]
    Fx(Fx),
    /// [`Fnv1a`]
    Fnv1a(Fnv1a),
    /// [`Weak`]
    Weak(Weak),
    /// [`Foldhash`]
    Foldhash(Foldhash),
}

impl AnyHasher {
    /// Refuse a seed wider than `id` takes: murmur3 (`murmur3_x64_128`) has a 32-bit seed, so
    /// [`AnyHasher::new`] uses the low 32 bits of the `u64` it is given. The command line and
    /// experiment specs call this first, so a seed a user gives is never cut silently (derived
    /// per-trial seeds are mixed 64-bit values and are meant to be cut).
    ///
    /// # Errors
    /// [`Error::InvalidParameter`] naming `seed`.
    pub fn check_seed(id: HashId, seed: u64) -> crate::error::Result<()> {
        if id == HashId::Murmur3 && u32::try_from(seed).is_err() {
            return Err(crate::error::Error::invalid(
                crate::error::Param::Other("seed"),
                seed,
                "0 to 4,294,967,295 for murmur3 (its seed is 32 bits wide)",
            ));
        }
        Ok(())
    }

    /// The hash `id` with a seed (for SipHash the seed becomes the key `(seed, !seed)`; pass a
    /// random secret seed for untrusted input). Murmur3 takes the low 32 bits (see
    /// [`AnyHasher::check_seed`]).
    #[must_use]
    pub fn new(id: HashId, seed: u64) -> Self {
        match id {
            HashId::Sip13 => AnyHasher::Sip13(if seed == 0 {
                Sip13::default()
            } else {
                Sip13::keyed(seed, !seed)
            }),
            HashId::Sip24 => AnyHasher::Sip24(if seed == 0 {
                Sip24::default()
            } else {
                Sip24::keyed(seed, !seed)
            }),
            HashId::Wyhash => AnyHasher::Wyhash(Wyhash::with_seed(seed)),
            HashId::Xxh3 => AnyHasher::Xxh3(Xxh3::with_seed(seed)),
            HashId::Xxh64 => AnyHasher::Xxh64(Xxh64::with_seed(seed)),
            HashId::Murmur3 => AnyHasher::Murmur3(Murmur3::with_seed(seed as u32)),
            HashId::Fx => AnyHasher::Fx(Fx::with_seed(seed)),
            HashId::Fnv1a => AnyHasher::Fnv1a(Fnv1a::with_seed(seed)),
            HashId::Weak => AnyHasher::Weak(Weak::with_seed(seed)),
            HashId::Foldhash => AnyHasher::Foldhash(Foldhash::with_seed(seed)),
        }
    }
}

impl Default for AnyHasher {
    fn default() -> Self {
        AnyHasher::Xxh3(Xxh3::default())
    }
}

macro_rules! dispatch {
    ($self:ident, $h:ident => $e:expr) => {
        match $self {
            AnyHasher::Sip13($h) => $e,
            AnyHasher::Sip24($h) => $e,
            AnyHasher::Wyhash($h) => $e,
            AnyHasher::Xxh3($h) => $e,
            AnyHasher::Xxh64($h) => $e,
            AnyHasher::Murmur3($h) => $e,
            AnyHasher::Fx($h) => $e,
            AnyHasher::Fnv1a($h) => $e,
            AnyHasher::Weak($h) => $e,
            AnyHasher::Foldhash($h) => $e,
        }
    };
}

impl ItemHasher for AnyHasher {
    fn id(&self) -> HashId {
        dispatch!(self, h => h.id())
    }
    // Always inlined, with `hash64`: the registry's filters hash through this enum, and left to
    // the inliner its ten-way match stayed a call (38 instructions a key against 19 inline), which
    // put the dynamic path 1.36-1.38x its concrete type for standard misses and split-block
    // queries in the gate's `dynamic_path` group; inlined, every cell there is at most 1.23x.
    #[inline(always)]
    fn hash128(&self, bytes: &[u8]) -> Hash128 {
        dispatch!(self, h => h.hash128(bytes))
    }
    #[inline(always)]
    fn hash64(&self, bytes: &[u8]) -> u64 {
        dispatch!(self, h => h.hash64(bytes))
    }
    #[inline]
    fn hash64_seeded(&self, bytes: &[u8], seed: u64) -> u64 {
        dispatch!(self, h => h.hash64_seeded(bytes, seed))
    }
}

/// A [`Hasher`] that collects the written bytes and hashes them with `H` on `finish`, so every
/// [`ItemHasher`] can also serve `std` collections as a [`BuildHasher`].
#[derive(Debug, Clone)]
pub struct BytesHasher<H> {
    inner: H,
    buf: Vec<u8>,
}

impl<H: ItemHasher> Hasher for BytesHasher<H> {
    fn write(&mut self, bytes: &[u8]) {
        self.buf.extend_from_slice(bytes);
    }
    fn finish(&self) -> u64 {
        self.inner.hash128(&self.buf).lo
    }
}

macro_rules! build_hasher {
    ($($t:ty),*) => {$(
        impl BuildHasher for $t {
            type Hasher = BytesHasher<$t>;
            fn build_hasher(&self) -> Self::Hasher {
                BytesHasher { inner: *self, buf: Vec::new() }
            }
        }
    )*};
}
build_hasher!(
    Sip13, Sip24, Wyhash, Xxh3, Xxh64, Murmur3, Fx, Fnv1a, Weak, Foldhash, AnyHasher
);

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::HashSet;

    /// The inline XXH3 paths for 4 to 8 bytes are the crate's XXH3-64 and XXH3-128.
    #[test]
    fn xxh3_short_path_is_the_crate() {
        let data: Vec<u8> = (0u8..64)
            .map(|i| i.wrapping_mul(151).wrapping_add(7))
            .collect();
        for seed in [0u64, 1, 0xdead_beef, u64::MAX, 0x0123_4567_89ab_cdef] {
            for len in 0..=24 {
                for off in [0, 3, 17] {
                    let b = &data[off..off + len];
                    assert_eq!(
                        Xxh3::with_seed(seed).hash64(b),
                        xxhash_rust::xxh3::xxh3_64_with_seed(b, seed),
                        "seed={seed} len={len}"
                    );
                    let h = xxhash_rust::xxh3::xxh3_128_with_seed(b, seed);
                    assert_eq!(
                        Xxh3::with_seed(seed).hash128(b),
                        Hash128 {
                            lo: h as u64,
                            hi: (h >> 64) as u64
                        },
                        "128-bit: seed={seed} len={len}"
                    );
                }
            }
        }
        assert_eq!(
            Xxh3::default().hash64(b"abcdefgh"),
            xxhash_rust::xxh3::xxh3_64(b"abcdefgh")
        );
    }

    /// `hash64` is each function's own 64-bit output, computed by its reference crate.
    #[test]
    fn hash64_is_the_native_64_bit_function() {
        let x = b"the quick brown fox";
        let mut sip13 = siphasher::sip::SipHasher13::new_with_keys(3, 4);
        sip13.write(x);
        assert_eq!(Sip13::keyed(3, 4).hash64(x), sip13.finish());
        let mut sip24 = siphasher::sip::SipHasher24::new_with_keys(3, 4);
        sip24.write(x);
        assert_eq!(Sip24::keyed(3, 4).hash64(x), sip24.finish());
        assert_eq!(
            Xxh3::with_seed(9).hash64(x),
            xxhash_rust::xxh3::xxh3_64_with_seed(x, 9)
        );
        assert_eq!(
            Xxh64::with_seed(9).hash64(x),
            xxhash_rust::xxh64::xxh64(x, 9)
        );
        assert_eq!(
            Wyhash::with_seed(9).hash64(x),
            wyhash::final3::wyhash(x, 9, WY_SECRET)
        );
        assert_eq!(Murmur3::with_seed(9).hash64(x), murmur3_x64_128(x, 9).0);
        // 8-byte items take the one-word path: the same SipHash of the same bytes.
        for len in [7usize, 8, 9] {
            let y = &x[..len];
            let mut a = siphasher::sip::SipHasher13::new_with_keys(3, 4);
            a.write(y);
            assert_eq!(Sip13::keyed(3, 4).hash64(y), a.finish(), "sip13 len {len}");
            let mut b = siphasher::sip::SipHasher24::new_with_keys(3, 4);
            b.write(y);
            assert_eq!(Sip24::keyed(3, 4).hash64(y), b.finish(), "sip24 len {len}");
        }
        // 64-bit functions: hash128 widens hash64.
        for h in [
            AnyHasher::new(HashId::Wyhash, 5),
            AnyHasher::new(HashId::Xxh64, 5),
            AnyHasher::new(HashId::Fx, 5),
            AnyHasher::new(HashId::Fnv1a, 5),
            AnyHasher::new(HashId::Foldhash, 5),
        ] {
            assert_eq!(h.hash128(x).lo, h.hash64(x), "{h:?}");
        }
        for id in HashId::ALL {
            let h = AnyHasher::new(id, 5);
            assert_eq!(h.id(), id);
            assert_eq!(h.hash64(x), h.hash64(x), "{id}");
        }
    }

    /// foldhash with a fixed seed: the same function in every process, and the seed matters.
    #[test]
    fn foldhash_is_fixed_by_its_seed() {
        let state = foldhash::fast::FixedState::with_seed(7 ^ mix64(0) ^ mix64(0));
        let mut h = state.build_hasher();
        h.write(b"apple");
        assert_eq!(Foldhash::with_seed(7).hash64(b"apple"), h.finish());
        assert_ne!(
            Foldhash::with_seed(7).hash64(b"apple"),
            Foldhash::with_seed(8).hash64(b"apple")
        );
    }

    /// The 8-byte path computed here gives the crate's value, and so does every other length
    /// (through the crate), for seeds with high, low and no bits set.
    #[test]
    fn foldhash_eight_byte_path_is_the_crates() {
        let data: Vec<u8> = (0u8..40).map(|b| b.wrapping_mul(37) ^ 0x5a).collect();
        for seed in [
            0,
            1,
            7,
            u64::MAX,
            0x8000_0000_0000_0000,
            0x0123_4567_89ab_cdef,
        ] {
            for len in 0..=data.len() {
                let state = foldhash::fast::FixedState::with_seed(seed);
                let mut h = state.build_hasher();
                h.write(&data[..len]);
                assert_eq!(
                    Foldhash::with_seed(seed).hash64(&data[..len]),
                    h.finish(),
                    "seed {seed:#x}, length {len}"
                );
            }
            for k in [0u64, 1, 42, u64::MAX] {
                let state = foldhash::fast::FixedState::with_seed(seed);
                let mut h = state.build_hasher();
                h.write(&k.to_le_bytes());
                assert_eq!(
                    Foldhash::with_seed(seed).hash64(&k.to_le_bytes()),
                    h.finish()
                );
            }
        }
        assert_eq!(Foldhash::default(), Foldhash::with_seed(0));
    }

    #[test]
    fn every_hasher_is_deterministic_and_seed_sensitive() {
        for id in HashId::ALL {
            let a = AnyHasher::new(id, 0);
            let b = AnyHasher::new(id, 12345);
            assert_eq!(a.id(), id);
            assert_eq!(a.hash128(b"apple"), a.hash128(b"apple"), "{id}");
            assert_ne!(a.hash128(b"apple"), a.hash128(b"apples"), "{id}");
            assert_ne!(
                a.hash128(b"apple"),
                b.hash128(b"apple"),
                "{id} ignores its seed"
            );
            assert_ne!(
                a.hash64_seeded(b"apple", 1),
                a.hash64_seeded(b"apple", 2),
                "{id} independent seeds collide"
            );
        }
    }

    #[test]
    fn good_hashes_spread_sequential_keys_weak_does_not() {
        // Top byte of lo over 4096 sequential u64 keys: a good hash uses (nearly) all 256 values.
        for id in HashId::ALL {
            let h = AnyHasher::new(id, 0);
            let tops: HashSet<u64> = (0u64..4096)
                .map(|i| h.hash128(&i.to_le_bytes()).lo >> 56)
                .collect();
            if id == HashId::Weak {
                assert!(
                    tops.len() < 64,
                    "weak should be visibly poor, got {}",
                    tops.len()
                );
            } else {
                assert!(tops.len() > 240, "{id}: only {} top bytes", tops.len());
            }
        }
    }

    #[test]
    fn debug_never_prints_a_secret_key() {
        let h = Sip24::keyed(0x0123_4567_89ab_cdef, 42);
        let f = crate::StandardBloom::keyed(10, 0.1, *b"0123456789abcdef").unwrap();
        for text in [
            format!("{h:?}"),
            format!("{f:?}"),
            format!("{:?}", Sip13::keyed(7, 7)),
        ] {
            assert!(text.contains("<secret>"), "{text}");
            assert!(
                !text.contains("81985529216486895") && !text.contains("k0"),
                "{text}"
            );
        }
        assert_eq!(format!("{:?}", Sip24::default()), "Sip24 { key: \"0\" }");
    }

    #[test]
    fn works_as_build_hasher() {
        let mut set: HashSet<&str, Xxh3> = HashSet::with_hasher(Xxh3::default());
        set.insert("a");
        assert!(set.contains("a"));
        assert_eq!(
            Xxh3::default().hash_one(7u64),
            Xxh3::default().hash_one(7u64)
        );
    }
}
