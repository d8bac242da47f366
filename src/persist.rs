//! Saving and loading filters in bloomlab's own versioned, checksummed binary format.
//!
//! (Guava's format, for filters Guava wrote or will read, is in [`crate::guava`].)
//!
//! # The format (version 1)
//!
//! One container for every filter kind: a fixed header naming the kind, hash, strategy and
//! key, then a kind-specific *params* block, then the kind-specific *payload*, then a checksum.
//! All integers are **little-endian**.
//!
//! | offset | size | field |
//! |---|---|---|
//! | 0 | 8 | magic `89 42 4C 4D 4C 41 42 0A` (`\x89BLMLAB\n`: the high byte and the newline catch 7-bit and text-mode transfers, as PNG's do) |
//! | 8 | 2 | format version, `u16` = [`FORMAT_VERSION`] |
//! | 10 | 1 | filter kind, [`FilterKind::code`] |
//! | 11 | 1 | hash function, [`HashId::code`] |
//! | 12 | 1 | index strategy, [`StrategyId::code`], or `0xFF` for a kind without one |
//! | 13 | 1 | key mode: `0` = key material stored below, `1` = withheld (the loader must supply it) |
//! | 14 | 2 | reserved, must be 0 |
//! | 16 | 16 | key material `k0`, `k1` (`u64` each): the hash's seed (`k0`) or SipHash key; all zero when withheld |
//! | 32 | 8 | key fingerprint: SipHash-2-4 under `(k0, k1)` of `"bloomlab key fingerprint v1"` |
//! | 40 | 4 | params length P, `u32`, at most [`MAX_PARAMS_LEN`] |
//! | 44 | 8 | payload length L, `u64` |
//! | 52 | P | params (per kind) |
//! | 52+P | L | payload (per kind) |
//! | 52+P+L | 8 | checksum: XXH3-64 (seed 0) of every byte before it |
//!
//! The file is exactly `60 + P + L` bytes; anything shorter is truncated, anything longer is
//! refused (trailing bytes mean a length is wrong).
//!
//! **Standard filter** (kind 0): params = `m: u64, k: u32, reserved: u32 = 0, len: u64`
//! (24 bytes); payload = the `⌈m/64⌉` words of the bit array (bit `i` is bit `i % 64` of word
//! `i / 64`), so `L = 8·⌈m/64⌉`, and the bits past `m` in the last word are 0.
//!
//! The other kinds (counting, blocked, split-block, scalable, cuckoo) are laid out in the doc
//! comments of their [`Persist`] implementations below; all of them are loadable by
//! [`from_bytes_any`].
//!
//! Adding a kind means implementing [`Persist`] (its params, its payload, and a decoder that
//! checks them) and one arm in [`from_bytes_any`]; the container, the checksum, the key policy
//! and the atomic save are shared.
//!
//! # Keys
//!
//! SipHash (`sip13`, `sip24`) is a keyed pseudo-random function: with a secret key an attacker
//! cannot compute an item's bit positions, which is what protects a filter facing adversarial
//! input (see `experiments/programs/adversarial.rs`). Writing that key into the file next to the filter would
//! hand it to anyone who can read the file, so by default ([`KeyPolicy::Auto`]) **a nonzero
//! SipHash key is withheld**: the file stores only a fingerprint of it (SipHash-2-4 under the key
//! of a fixed string, which reveals nothing about a 128-bit key), and [`LoadOptions::key`] must
//! supply the key to load the file ([`Error::KeyRequired`]; a different key gets
//! [`Error::WrongKey`]). [`KeyPolicy::Store`] writes the key in the clear on explicit opt-in
//! (the file is then created with mode `0600` on Unix).
//!
//! Seeds of the other hashes (xxh3, murmur3, …) are stored in the clear: these functions are not
//! pseudo-random functions, so their seeds are parameters, not secrets. [`KeyPolicy::Withhold`]
//! withholds them too if asked, but a 32- or 64-bit seed behind a fingerprint can be
//! brute-forced; only a 128-bit SipHash key is a real secret.
//!
//! The checksum detects damage, not tampering: anyone who can write the file can also fix up the
//! checksum.
//!
//! # Safety of loading
//!
//! Loading checks everything and refuses with a typed error: wrong magic, a newer version
//! ([`Error::UnsupportedVersion`]), truncation, trailing bytes, checksum mismatch, unknown ids,
//! inconsistent parameters ([`Error::Corrupt`] with a message saying which); a hash, strategy or
//! kind other than the caller asked for ([`Error::Mismatch`]). It never allocates more than the
//! input justifies: lengths are checked against the bytes present before anything is allocated,
//! and [`read_from`] grows its buffer only as data actually arrives.
//!
//! ```
//! use bloomlab::persist::{self, LoadOptions, SaveOptions};
//! use bloomlab::{Filter, StandardBloom};
//! let mut f = StandardBloom::with_rate(1_000, 0.01).unwrap();
//! f.insert(b"apple");
//! let bytes = persist::to_bytes(&f, &SaveOptions::default()).unwrap();
//! assert_eq!(bytes.len(), 52 + 24 + 8 * 150 + 8); // m = 9585 bits = 150 words
//! let g: StandardBloom = persist::from_bytes(&bytes, &LoadOptions::default()).unwrap();
//! assert!(g.contains(b"apple"));
//! assert_eq!((g.bits(), g.k(), g.len()), (9_585, 7, 1));
//! ```

use crate::bits::{BitVec, Counters4, try_zeroed};
use crate::error::{Error, Result};
use crate::filter::{Filter, FilterKind};
use crate::filters::blocked::Block;
use crate::filters::cuckoo::CuckooState;
use crate::filters::split_block::SbBlock;
use crate::filters::{
    BlockedBloom, ConcurrentBloom, CountingBloom, CuckooFilter, ScalableBloom, ScalableParams,
    SplitBlockBloom, StandardBloom,
};
use crate::hash::{
    AnyHasher, AnyStrategy, DoubleHashing, EnhancedDoubleHashing, Fnv1a, Fx, Guava32, Guava64,
    HashId, Independent, IndexStrategy, ItemHasher, Murmur3, Sip13, Sip24, StrategyId, Weak,
    Wyhash, Xxh3, Xxh64,
};
use crate::registry::AnyFilter;
use std::hash::Hasher as _;
use std::io::{self, Read, Write};
use std::path::Path;

/// The magic bytes every file starts with.
pub const MAGIC: [u8; 8] = *b"\x89BLMLAB\n";
/// The format version this build writes and the newest it reads.
pub const FORMAT_VERSION: u16 = 1;
/// Bytes before the params block.
pub const HEADER_LEN: usize = 52;
/// Bytes of the trailing checksum.
pub const CHECKSUM_LEN: usize = 8;
/// The largest params block accepted (a kind's params are a few numbers, never data).
pub const MAX_PARAMS_LEN: u32 = 4096;
/// The strategy byte of a kind without an index strategy.
pub const NO_STRATEGY: u8 = 0xFF;
const FINGERPRINT_DOMAIN: &[u8] = b"bloomlab key fingerprint v1";

/// The key material of a hash: `[k0, k1]` (a seed is `[seed, 0]`).
pub type KeyMaterial = [u64; 2];

/// The 16 bytes of a key as key material (`k0` = first 8 bytes little-endian, as `siphasher`).
#[must_use]
pub fn key_material(key: &[u8; 16]) -> KeyMaterial {
    let (mut a, mut b) = ([0u8; 8], [0u8; 8]);
    a.copy_from_slice(&key[..8]);
    b.copy_from_slice(&key[8..]);
    [u64::from_le_bytes(a), u64::from_le_bytes(b)]
}

/// The fingerprint the file stores for a key: SipHash-2-4 under the key of a fixed string. A
/// pseudo-random function's output under a secret key says nothing about the key.
#[must_use]
pub fn key_fingerprint(key: KeyMaterial) -> u64 {
    let mut h = siphasher::sip::SipHasher24::new_with_keys(key[0], key[1]);
    h.write(FINGERPRINT_DOMAIN);
    h.finish()
}

/// How a file records the hash key.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum KeyMode {
    /// The key material is in the file.
    Stored,
    /// Only the key's fingerprint is in the file; the loader must supply the key.
    Withheld,
}

/// Whether [`save`] writes the hash key into the file.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum KeyPolicy {
    /// Withhold a nonzero SipHash key (a secret); store every other seed (a parameter).
    #[default]
    Auto,
    /// Store the key in the clear, even a secret SipHash key (explicit opt-in).
    Store,
    /// Withhold the key whatever the hash; loading then needs it.
    Withhold,
}

/// Options for [`save`] and [`to_bytes`].
#[derive(Debug, Clone, Copy, Default)]
pub struct SaveOptions {
    /// Whether the hash key goes into the file.
    pub key_policy: KeyPolicy,
}

impl SaveOptions {
    /// Options with this key policy.
    #[must_use]
    pub fn key_policy(mut self, p: KeyPolicy) -> Self {
        self.key_policy = p;
        self
    }
}

/// What the caller expects of a file. Every `Some` is checked; `None` accepts what the file says.
#[derive(Clone, Default, PartialEq, Eq)]
pub struct LoadOptions {
    /// Refuse the file unless it holds this filter kind.
    pub kind: Option<FilterKind>,
    /// Refuse the file unless it was built with this hash.
    pub hash: Option<HashId>,
    /// Refuse the file unless it was built with this strategy.
    pub strategy: Option<StrategyId>,
    /// The hash key (required when the file withholds it; checked against it when stored).
    pub key: Option<[u8; 16]>,
}

impl std::fmt::Debug for LoadOptions {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("LoadOptions")
            .field("kind", &self.kind)
            .field("hash", &self.hash)
            .field("strategy", &self.strategy)
            .field("key", &self.key.map(|_| "<secret>"))
            .finish()
    }
}

impl LoadOptions {
    /// No expectations.
    #[must_use]
    pub fn new() -> Self {
        Self::default()
    }
    /// Expect this hash.
    #[must_use]
    pub fn hash(mut self, h: HashId) -> Self {
        self.hash = Some(h);
        self
    }
    /// Expect this strategy.
    #[must_use]
    pub fn strategy(mut self, s: StrategyId) -> Self {
        self.strategy = Some(s);
        self
    }
    /// Expect this kind.
    #[must_use]
    pub fn kind(mut self, k: FilterKind) -> Self {
        self.kind = Some(k);
        self
    }
    /// Supply the key.
    #[must_use]
    pub fn key(mut self, key: [u8; 16]) -> Self {
        self.key = Some(key);
        self
    }
}

/// Hash, key and strategy of a filter: what the header records besides the kind.
#[derive(Clone, Copy, PartialEq, Eq)]
pub struct Identity {
    /// The hash function.
    pub hash: HashId,
    /// Its key material (when loading: the key from the file or the one the caller supplied).
    pub key: KeyMaterial,
    /// The index strategy, for kinds that have one.
    pub strategy: Option<StrategyId>,
}

impl std::fmt::Debug for Identity {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Identity")
            .field("hash", &self.hash)
            .field(
                "key_fingerprint",
                &format!("{:016x}", key_fingerprint(self.key)),
            )
            .field("strategy", &self.strategy)
            .finish()
    }
}

/// What a file's header says, readable without the key ([`read_info`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct FileInfo {
    /// Format version.
    pub version: u16,
    /// Filter kind.
    pub kind: FilterKind,
    /// Hash function.
    pub hash: HashId,
    /// Index strategy.
    pub strategy: Option<StrategyId>,
    /// Whether the key is stored or withheld.
    pub key_mode: KeyMode,
    /// The key's fingerprint.
    pub key_fingerprint: u64,
    /// Params bytes.
    pub params_len: u32,
    /// Payload bytes.
    pub payload_len: u64,
}

/// A hash function whose key material can be written and read back.
pub trait PersistHasher: ItemHasher {
    /// The key or seed, as `[k0, k1]`.
    fn key_material(&self) -> KeyMaterial;
    /// Rebuild from the hash named in a file and its key material.
    ///
    /// # Errors
    /// [`Error::Mismatch`] when this type is a different hash than `id`; [`Error::Corrupt`]
    /// when the key material does not fit the hash (a seed wider than the hash takes).
    fn from_key_material(id: HashId, key: KeyMaterial) -> Result<Self>;
}

/// An index strategy that can be rebuilt from the id in a file.
pub trait PersistStrategy: IndexStrategy {
    /// The strategy for `id`.
    ///
    /// # Errors
    /// [`Error::Mismatch`] when this type is a different strategy.
    fn from_id(id: StrategyId) -> Result<Self>;
}

fn hash_mismatch(found: HashId, requested: HashId) -> Error {
    Error::Mismatch {
        what: "hash",
        found: found.name().to_string(),
        requested: requested.name().to_string(),
    }
}

fn seed64(id: HashId, key: KeyMaterial) -> Result<u64> {
    if key[1] != 0 {
        return Err(Error::Corrupt(format!(
            "{id} takes a 64-bit seed but the file's key material has a nonzero second half"
        )));
    }
    Ok(key[0])
}

macro_rules! persist_seeded {
    ($($t:ident => $id:ident),*) => {$(
        impl PersistHasher for $t {
            fn key_material(&self) -> KeyMaterial {
                [u64::from(self.seed()), 0]
            }
            fn from_key_material(id: HashId, key: KeyMaterial) -> Result<Self> {
                if id != HashId::$id {
                    return Err(hash_mismatch(id, HashId::$id));
                }
                let seed = seed64(id, key)?;
                let seed = seed.try_into().map_err(|_| {
                    Error::Corrupt(format!("{id} seed {seed} does not fit its seed width"))
                })?;
                Ok($t::with_seed(seed))
            }
        }
    )*};
}
persist_seeded!(Wyhash => Wyhash, Xxh3 => Xxh3, Xxh64 => Xxh64, Murmur3 => Murmur3,
    Fx => Fx, Fnv1a => Fnv1a, Weak => Weak);

macro_rules! persist_keyed {
    ($($t:ident => $id:ident),*) => {$(
        impl PersistHasher for $t {
            fn key_material(&self) -> KeyMaterial {
                let (a, b) = self.key();
                [a, b]
            }
            fn from_key_material(id: HashId, key: KeyMaterial) -> Result<Self> {
                if id != HashId::$id {
                    return Err(hash_mismatch(id, HashId::$id));
                }
                Ok($t::keyed(key[0], key[1]))
            }
        }
    )*};
}
persist_keyed!(Sip13 => Sip13, Sip24 => Sip24);

impl PersistHasher for AnyHasher {
    fn key_material(&self) -> KeyMaterial {
        match self {
            AnyHasher::Sip13(h) => h.key_material(),
            AnyHasher::Sip24(h) => h.key_material(),
            AnyHasher::Wyhash(h) => h.key_material(),
            AnyHasher::Xxh3(h) => h.key_material(),
            AnyHasher::Xxh64(h) => h.key_material(),
            AnyHasher::Murmur3(h) => h.key_material(),
            AnyHasher::Fx(h) => h.key_material(),
            AnyHasher::Fnv1a(h) => h.key_material(),
            AnyHasher::Weak(h) => h.key_material(),
        }
    }
    fn from_key_material(id: HashId, key: KeyMaterial) -> Result<Self> {
        Ok(match id {
            HashId::Sip13 => AnyHasher::Sip13(Sip13::from_key_material(id, key)?),
            HashId::Sip24 => AnyHasher::Sip24(Sip24::from_key_material(id, key)?),
            HashId::Wyhash => AnyHasher::Wyhash(Wyhash::from_key_material(id, key)?),
            HashId::Xxh3 => AnyHasher::Xxh3(Xxh3::from_key_material(id, key)?),
            HashId::Xxh64 => AnyHasher::Xxh64(Xxh64::from_key_material(id, key)?),
            HashId::Murmur3 => AnyHasher::Murmur3(Murmur3::from_key_material(id, key)?),
            HashId::Fx => AnyHasher::Fx(Fx::from_key_material(id, key)?),
            HashId::Fnv1a => AnyHasher::Fnv1a(Fnv1a::from_key_material(id, key)?),
            HashId::Weak => AnyHasher::Weak(Weak::from_key_material(id, key)?),
        })
    }
}

macro_rules! persist_strategy {
    ($($t:ident),*) => {$(
        impl PersistStrategy for $t {
            fn from_id(id: StrategyId) -> Result<Self> {
                if id != $t.id() {
                    return Err(Error::Mismatch {
                        what: "strategy",
                        found: id.name().to_string(),
                        requested: $t.id().name().to_string(),
                    });
                }
                Ok($t)
            }
        }
    )*};
}
persist_strategy!(
    DoubleHashing,
    EnhancedDoubleHashing,
    Independent,
    Guava32,
    Guava64
);

impl PersistStrategy for AnyStrategy {
    fn from_id(id: StrategyId) -> Result<Self> {
        Ok(AnyStrategy(id))
    }
}

/// A filter that can be saved in this format. One implementation per kind.
pub trait Persist: Sized {
    /// The kind byte written to the header.
    const KIND: FilterKind;
    /// Hash, key material and strategy.
    fn identity(&self) -> Identity;
    /// The kind-specific parameters (at most [`MAX_PARAMS_LEN`] bytes).
    fn params(&self) -> Vec<u8>;
    /// The exact number of payload bytes [`Persist::write_payload`] writes.
    fn payload_len(&self) -> u64;
    /// Write the payload.
    ///
    /// # Errors
    /// What the writer returns.
    fn write_payload(&self, w: &mut dyn Write) -> io::Result<()>;
    /// Rebuild from a container whose checksum, ids and key have been verified. Must check
    /// every parameter against the others and the payload length, and allocate only after.
    ///
    /// # Errors
    /// [`Error::Corrupt`] naming the inconsistency; [`Error::Mismatch`] from the hasher or
    /// strategy types.
    fn decode(id: &Identity, params: &[u8], payload: &[u8]) -> Result<Self>;
}

/// A little-endian cursor over a params block that refuses to read past its end.
#[derive(Debug)]
pub struct ParamReader<'a> {
    bytes: &'a [u8],
    kind: FilterKind,
}

impl<'a> ParamReader<'a> {
    /// A reader over `bytes`, the params of a `kind` filter (named in errors).
    #[must_use]
    pub fn new(bytes: &'a [u8], kind: FilterKind) -> Self {
        Self { bytes, kind }
    }
    fn take<const N: usize>(&mut self, what: &str) -> Result<[u8; N]> {
        let Some((head, rest)) = self.bytes.split_first_chunk::<N>() else {
            return Err(Error::Corrupt(format!(
                "{} filter params end before {what}",
                self.kind
            )));
        };
        self.bytes = rest;
        Ok(*head)
    }
    /// Read a `u64`.
    ///
    /// # Errors
    /// [`Error::Corrupt`] when the params end first.
    pub fn u64(&mut self, what: &str) -> Result<u64> {
        self.take::<8>(what).map(u64::from_le_bytes)
    }
    /// Read a `u32`.
    ///
    /// # Errors
    /// [`Error::Corrupt`] when the params end first.
    pub fn u32(&mut self, what: &str) -> Result<u32> {
        self.take::<4>(what).map(u32::from_le_bytes)
    }
    /// Read an `f64`.
    ///
    /// # Errors
    /// [`Error::Corrupt`] when the params end first.
    pub fn f64(&mut self, what: &str) -> Result<f64> {
        self.take::<8>(what).map(f64::from_le_bytes)
    }
    /// Check that every byte was read.
    ///
    /// # Errors
    /// [`Error::Corrupt`] when bytes are left over.
    pub fn finish(self) -> Result<()> {
        if self.bytes.is_empty() {
            Ok(())
        } else {
            Err(Error::Corrupt(format!(
                "{} filter params have {} unexpected trailing bytes",
                self.kind,
                self.bytes.len()
            )))
        }
    }
}

/// Decode payload bytes (length a multiple of 8, already checked against the parameters) into
/// words, allocating exactly as many words as the bytes hold.
///
/// # Errors
/// [`Error::Corrupt`] when the length is not a multiple of 8; [`Error::Allocation`].
pub fn words_from_le(payload: &[u8]) -> Result<Vec<u64>> {
    if !payload.len().is_multiple_of(8) {
        return Err(Error::Corrupt(format!(
            "payload of {} bytes is not a whole number of 64-bit words",
            payload.len()
        )));
    }
    let mut words: Vec<u64> = try_zeroed(payload.len() / 8)?;
    for (w, c) in words.iter_mut().zip(payload.chunks_exact(8)) {
        let mut b = [0u8; 8];
        b.copy_from_slice(c);
        *w = u64::from_le_bytes(b);
    }
    Ok(words)
}

/// Write words little-endian through a small buffer.
///
/// # Errors
/// What the writer returns.
pub fn write_words_le(words: &[u64], w: &mut dyn Write) -> io::Result<()> {
    let mut buf = [0u8; 4096];
    for chunk in words.chunks(buf.len() / 8) {
        for (dst, word) in buf.chunks_exact_mut(8).zip(chunk) {
            dst.copy_from_slice(&word.to_le_bytes());
        }
        w.write_all(&buf[..chunk.len() * 8])?;
    }
    Ok(())
}

/// Decode the bit array of `m` bits from exactly its `⌈m/64⌉` little-endian words, refusing a
/// wrong length and bits set past `m`.
fn bits_from_le(what: &str, m: u64, payload: &[u8]) -> Result<BitVec> {
    let want = m.div_ceil(64) * 8;
    if payload.len() as u64 != want {
        return Err(Error::Corrupt(format!(
            "{what} payload is {} bytes, but m = {m} bits needs {want}",
            payload.len()
        )));
    }
    let words = words_from_le(payload)?;
    if !m.is_multiple_of(64) {
        let last = words.last().copied().unwrap_or(0);
        if last >> (m % 64) != 0 {
            return Err(Error::Corrupt(format!(
                "{what} has bits set past m = {m} in its last word"
            )));
        }
    }
    BitVec::from_words(words, m)
}

fn strategy_of<S: PersistStrategy>(kind: FilterKind, id: &Identity) -> Result<S> {
    let Some(sid) = id.strategy else {
        return Err(Error::Corrupt(format!(
            "{kind} filter file names no index strategy"
        )));
    };
    S::from_id(sid)
}

fn no_strategy(kind: FilterKind, id: &Identity) -> Result<()> {
    match id.strategy {
        None => Ok(()),
        Some(s) => Err(Error::Corrupt(format!(
            "{kind} filter has no index strategy, but the file names '{s}'"
        ))),
    }
}

fn reserved_zero(kind: FilterKind, v: u32) -> Result<()> {
    if v == 0 {
        Ok(())
    } else {
        Err(Error::Corrupt(format!(
            "{kind} filter reserved field is {v}, must be 0"
        )))
    }
}

impl<H: PersistHasher, S: PersistStrategy> Persist for StandardBloom<H, S> {
    const KIND: FilterKind = FilterKind::Standard;

    fn identity(&self) -> Identity {
        Identity {
            hash: self.hasher().id(),
            key: self.hasher().key_material(),
            strategy: Some(self.strategy().id()),
        }
    }

    fn params(&self) -> Vec<u8> {
        let mut p = Vec::with_capacity(24);
        p.extend_from_slice(&self.bit_vec().len().to_le_bytes());
        p.extend_from_slice(&Filter::k(self).to_le_bytes());
        p.extend_from_slice(&0u32.to_le_bytes());
        p.extend_from_slice(&Filter::len(self).to_le_bytes());
        p
    }

    fn payload_len(&self) -> u64 {
        self.bit_vec().words().len() as u64 * 8
    }

    fn write_payload(&self, w: &mut dyn Write) -> io::Result<()> {
        write_words_le(self.bit_vec().words(), w)
    }

    fn decode(id: &Identity, params: &[u8], payload: &[u8]) -> Result<Self> {
        let mut r = ParamReader::new(params, FilterKind::Standard);
        let m = r.u64("m")?;
        let k = r.u32("k")?;
        let reserved = r.u32("reserved")?;
        let len = r.u64("len")?;
        r.finish()?;
        if reserved != 0 {
            return Err(Error::Corrupt(format!(
                "standard filter reserved field is {reserved}, must be 0"
            )));
        }
        let Some(sid) = id.strategy else {
            return Err(Error::Corrupt(
                "standard filter file names no index strategy".to_string(),
            ));
        };
        let strategy = S::from_id(sid)?;
        let hasher = H::from_key_material(id.hash, id.key)?;
        if k == 0 || k > crate::theory::MAX_K {
            return Err(Error::Corrupt(format!(
                "standard filter has k = {k}, outside 1..={}",
                crate::theory::MAX_K
            )));
        }
        if m == 0 {
            return Err(Error::Corrupt("standard filter has m = 0 bits".to_string()));
        }
        if strategy.round_bits(m) != m {
            return Err(Error::Corrupt(format!(
                "standard filter has m = {m} bits, but strategy {sid} needs a multiple of 64"
            )));
        }
        let bits = bits_from_le("standard filter", m, payload)?;
        StandardBloom::from_bits(bits, k, len, hasher, strategy)
    }
}

/// A concurrent filter is saved as the standard filter it is (same kind byte, same payload), so
/// either type loads the other's files.
impl<H: PersistHasher, S: PersistStrategy> Persist for ConcurrentBloom<H, S> {
    const KIND: FilterKind = FilterKind::Standard;
    fn identity(&self) -> Identity {
        Identity {
            hash: self.hasher().id(),
            key: self.hasher().key_material(),
            strategy: Some(self.strategy().id()),
        }
    }
    fn params(&self) -> Vec<u8> {
        let mut p = Vec::with_capacity(24);
        p.extend_from_slice(&self.bits().to_le_bytes());
        p.extend_from_slice(&self.k().to_le_bytes());
        p.extend_from_slice(&0u32.to_le_bytes());
        p.extend_from_slice(&self.len().to_le_bytes());
        p
    }
    fn payload_len(&self) -> u64 {
        self.bits().div_ceil(64) * 8
    }
    fn write_payload(&self, w: &mut dyn Write) -> io::Result<()> {
        let snap = self
            .snapshot()
            .map_err(|e| io::Error::new(io::ErrorKind::OutOfMemory, e.to_string()))?;
        write_words_le(snap.bit_vec().words(), w)
    }
    fn decode(id: &Identity, params: &[u8], payload: &[u8]) -> Result<Self> {
        StandardBloom::decode(id, params, payload).map(ConcurrentBloom::from_standard)
    }
}

/// **Counting filter** (kind 1): params = `m: u64` (counters), `k: u32`, `reserved: u32 = 0`,
/// `len: u64` (24 bytes); payload = the `⌈m/2⌉` counter bytes (counter `i` is the low nibble of
/// byte `i/2` when `i` is even, the high nibble when odd; the unused high nibble of an odd m is
/// 0). The saturated count is recomputed from the counters at 15.
impl<H: PersistHasher, S: PersistStrategy> Persist for CountingBloom<H, S> {
    const KIND: FilterKind = FilterKind::Counting;
    fn identity(&self) -> Identity {
        Identity {
            hash: self.hasher().id(),
            key: self.hasher().key_material(),
            strategy: Some(self.strategy().id()),
        }
    }
    fn params(&self) -> Vec<u8> {
        let mut p = Vec::with_capacity(24);
        p.extend_from_slice(&self.counters().to_le_bytes());
        p.extend_from_slice(&Filter::k(self).to_le_bytes());
        p.extend_from_slice(&0u32.to_le_bytes());
        p.extend_from_slice(&Filter::len(self).to_le_bytes());
        p
    }
    fn payload_len(&self) -> u64 {
        self.counter_array().as_bytes().len() as u64
    }
    fn write_payload(&self, w: &mut dyn Write) -> io::Result<()> {
        w.write_all(self.counter_array().as_bytes())
    }
    fn decode(id: &Identity, params: &[u8], payload: &[u8]) -> Result<Self> {
        let kind = FilterKind::Counting;
        let mut r = ParamReader::new(params, kind);
        let m = r.u64("m")?;
        let k = r.u32("k")?;
        reserved_zero(kind, r.u32("reserved")?)?;
        let len = r.u64("len")?;
        r.finish()?;
        let strategy: S = strategy_of(kind, id)?;
        let hasher = H::from_key_material(id.hash, id.key)?;
        if m == 0 {
            return Err(corrupt("counting filter has 0 counters"));
        }
        let want = m.div_ceil(2);
        if payload.len() as u64 != want {
            return Err(corrupt(format!(
                "counting filter payload is {} bytes, but m = {m} counters need {want}",
                payload.len()
            )));
        }
        if m % 2 == 1 && payload.last().is_some_and(|b| b >> 4 != 0) {
            return Err(corrupt(format!(
                "counting filter has a counter set past m = {m}"
            )));
        }
        let mut counters = Counters4::new(m)?;
        for (i, b) in payload.iter().enumerate() {
            let i = i as u64 * 2;
            counters.put(i, b & 0x0f);
            if i + 1 < m {
                counters.put(i + 1, b >> 4);
            }
        }
        CountingBloom::from_parts(counters, k, len, hasher, strategy)
    }
}

/// **Blocked filter** (kind 2, no strategy): params = `blocks: u64`, `k: u32`,
/// `reserved: u32 = 0`, `len: u64` (24 bytes); payload = the blocks, 8 little-endian words each
/// (`64·blocks` bytes). The (n, p) sizing report is not saved.
impl<H: PersistHasher> Persist for BlockedBloom<H> {
    const KIND: FilterKind = FilterKind::Blocked;
    fn identity(&self) -> Identity {
        Identity {
            hash: self.hasher().id(),
            key: self.hasher().key_material(),
            strategy: None,
        }
    }
    fn params(&self) -> Vec<u8> {
        let mut p = Vec::with_capacity(24);
        p.extend_from_slice(&self.blocks().to_le_bytes());
        p.extend_from_slice(&Filter::k(self).to_le_bytes());
        p.extend_from_slice(&0u32.to_le_bytes());
        p.extend_from_slice(&Filter::len(self).to_le_bytes());
        p
    }
    fn payload_len(&self) -> u64 {
        self.blocks() * 64
    }
    fn write_payload(&self, w: &mut dyn Write) -> io::Result<()> {
        for b in self.block_slice() {
            write_words_le(&b.0, w)?;
        }
        Ok(())
    }
    fn decode(id: &Identity, params: &[u8], payload: &[u8]) -> Result<Self> {
        let kind = FilterKind::Blocked;
        let mut r = ParamReader::new(params, kind);
        let blocks = r.u64("blocks")?;
        let k = r.u32("k")?;
        reserved_zero(kind, r.u32("reserved")?)?;
        let len = r.u64("len")?;
        r.finish()?;
        no_strategy(kind, id)?;
        let hasher = H::from_key_material(id.hash, id.key)?;
        if blocks.checked_mul(64) != Some(payload.len() as u64) {
            return Err(corrupt(format!(
                "blocked filter payload is {} bytes, but {blocks} blocks need 64 each",
                payload.len()
            )));
        }
        let mut v: Vec<Block> = Vec::new();
        v.try_reserve_exact(payload.len() / 64)
            .map_err(|_| Error::Allocation {
                bytes: payload.len() as u128,
            })?;
        for chunk in payload.chunks_exact(64) {
            let mut b = Block::default();
            for (w, c) in b.0.iter_mut().zip(chunk.chunks_exact(8)) {
                *w = le_u64(c, 0);
            }
            v.push(b);
        }
        BlockedBloom::from_parts(v, k, len, hasher)
    }
}

/// **Split-block filter** (kind 3, no strategy): params = `blocks: u64`, `len: u64` (16 bytes);
/// payload = the blocks as Parquet stores them (8 little-endian `u32` words each, `32·blocks`
/// bytes).
impl<H: PersistHasher> Persist for SplitBlockBloom<H> {
    const KIND: FilterKind = FilterKind::SplitBlock;
    fn identity(&self) -> Identity {
        Identity {
            hash: self.hasher().id(),
            key: self.hasher().key_material(),
            strategy: None,
        }
    }
    fn params(&self) -> Vec<u8> {
        let mut p = Vec::with_capacity(16);
        p.extend_from_slice(&self.blocks().to_le_bytes());
        p.extend_from_slice(&Filter::len(self).to_le_bytes());
        p
    }
    fn payload_len(&self) -> u64 {
        self.blocks() * 32
    }
    fn write_payload(&self, w: &mut dyn Write) -> io::Result<()> {
        let mut buf = [0u8; 32];
        for b in self.block_slice() {
            for (d, x) in buf.chunks_exact_mut(4).zip(b.0) {
                d.copy_from_slice(&x.to_le_bytes());
            }
            w.write_all(&buf)?;
        }
        Ok(())
    }
    fn decode(id: &Identity, params: &[u8], payload: &[u8]) -> Result<Self> {
        let kind = FilterKind::SplitBlock;
        let mut r = ParamReader::new(params, kind);
        let blocks = r.u64("blocks")?;
        let len = r.u64("len")?;
        r.finish()?;
        no_strategy(kind, id)?;
        let hasher = H::from_key_material(id.hash, id.key)?;
        if blocks.checked_mul(32) != Some(payload.len() as u64) {
            return Err(corrupt(format!(
                "split-block filter payload is {} bytes, but {blocks} blocks need 32 each",
                payload.len()
            )));
        }
        if blocks == 0 || blocks > crate::theory::split_block::MAX_BLOCKS {
            return Err(corrupt(format!(
                "split-block filter has {blocks} blocks, outside 1..=2^32"
            )));
        }
        let mut v: Vec<SbBlock> = Vec::new();
        v.try_reserve_exact(payload.len() / 32)
            .map_err(|_| Error::Allocation {
                bytes: payload.len() as u128,
            })?;
        for chunk in payload.chunks_exact(32) {
            let mut b = SbBlock::default();
            for (w, c) in b.0.iter_mut().zip(chunk.chunks_exact(4)) {
                *w = u32::from_le_bytes([c[0], c[1], c[2], c[3]]);
            }
            v.push(b);
        }
        SplitBlockBloom::from_parts(v, len, hasher)
    }
}

/// **Cuckoo filter** (kind 5, no strategy): params = `buckets: u64`, `f: u32` (fingerprint
/// bits), `longest_chain: u32`, `len: u64`, `rng: u64`, `kicks: u64`, `refused: u64`
/// (48 bytes); payload = the packed table, `⌈4·f·buckets/64⌉` little-endian words (slot `j` of
/// bucket `i` at bits `(4i + j)·f ..`). `len` must equal the number of non-empty slots; `rng`
/// makes a loaded filter evict exactly as the saved one would have.
impl<H: PersistHasher> Persist for CuckooFilter<H> {
    const KIND: FilterKind = FilterKind::Cuckoo;
    fn identity(&self) -> Identity {
        Identity {
            hash: self.hasher().id(),
            key: self.hasher().key_material(),
            strategy: None,
        }
    }
    fn params(&self) -> Vec<u8> {
        let s = self.state();
        let mut p = Vec::with_capacity(48);
        p.extend_from_slice(&self.buckets().to_le_bytes());
        p.extend_from_slice(&self.fingerprint_bits().to_le_bytes());
        p.extend_from_slice(&s.longest_chain.to_le_bytes());
        p.extend_from_slice(&Filter::len(self).to_le_bytes());
        p.extend_from_slice(&s.rng.to_le_bytes());
        p.extend_from_slice(&s.kicks.to_le_bytes());
        p.extend_from_slice(&s.refused.to_le_bytes());
        p
    }
    fn payload_len(&self) -> u64 {
        self.table_words().len() as u64 * 8
    }
    fn write_payload(&self, w: &mut dyn Write) -> io::Result<()> {
        write_words_le(self.table_words(), w)
    }
    fn decode(id: &Identity, params: &[u8], payload: &[u8]) -> Result<Self> {
        let kind = FilterKind::Cuckoo;
        let mut r = ParamReader::new(params, kind);
        let buckets = r.u64("buckets")?;
        let f = r.u32("fingerprint bits")?;
        let longest_chain = r.u32("longest kick chain")?;
        let len = r.u64("len")?;
        let rng = r.u64("rng")?;
        let kicks = r.u64("kicks")?;
        let refused = r.u64("refused")?;
        r.finish()?;
        no_strategy(kind, id)?;
        let hasher = H::from_key_material(id.hash, id.key)?;
        crate::theory::cuckoo::check_fingerprint_bits(f).map_err(|_| {
            corrupt(format!(
                "cuckoo filter has {f}-bit fingerprints, not 8, 12 or 16"
            ))
        })?;
        let want = buckets
            .checked_mul(4 * u64::from(f))
            .map(|b| b.div_ceil(64) * 8);
        if want != Some(payload.len() as u64) {
            return Err(corrupt(format!(
                "cuckoo filter payload is {} bytes, which does not fit {buckets} buckets of four {f}-bit slots",
                payload.len()
            )));
        }
        let words = words_from_le(payload)?;
        let state = CuckooState {
            rng,
            kicks,
            longest_chain,
            refused,
        };
        let g = CuckooFilter::from_parts(words, buckets, f, hasher, state)?;
        if g.len() != len {
            return Err(corrupt(format!(
                "cuckoo filter says it holds {len} fingerprints, but its table holds {}",
                g.len()
            )));
        }
        Ok(g)
    }
}

/// **Scalable filter** (kind 4): params = `n0: u64`, `p: f64`, `growth: f64`,
/// `tightening: f64`, `nonscaling: u32` (0 or 1), `layers: u32`, then per layer (oldest first)
/// `m: u64`, `k: u32`, `reserved: u32 = 0`, `len: u64` (40 + 24·layers bytes, so at most 169
/// layers); payload = each layer's bit array as a standard filter's, one after the other. Every
/// layer's m and k must be the ones the params give it.
impl<H: PersistHasher, S: PersistStrategy> Persist for ScalableBloom<H, S> {
    const KIND: FilterKind = FilterKind::Scalable;
    fn identity(&self) -> Identity {
        Identity {
            hash: self.hasher().id(),
            key: self.hasher().key_material(),
            strategy: Some(self.strategy().id()),
        }
    }
    fn params(&self) -> Vec<u8> {
        let q = self.params();
        let mut p = Vec::with_capacity(40 + 24 * self.layer_count());
        p.extend_from_slice(&q.initial_capacity.to_le_bytes());
        p.extend_from_slice(&q.p.to_le_bytes());
        p.extend_from_slice(&q.growth.to_le_bytes());
        p.extend_from_slice(&q.tightening.to_le_bytes());
        p.extend_from_slice(&u32::from(q.nonscaling).to_le_bytes());
        p.extend_from_slice(&(self.layer_count() as u32).to_le_bytes());
        for l in self.layers() {
            p.extend_from_slice(&l.bit_vec().len().to_le_bytes());
            p.extend_from_slice(&Filter::k(l).to_le_bytes());
            p.extend_from_slice(&0u32.to_le_bytes());
            p.extend_from_slice(&Filter::len(l).to_le_bytes());
        }
        p
    }
    fn payload_len(&self) -> u64 {
        self.layers()
            .map(|l| l.bit_vec().words().len() as u64 * 8)
            .sum()
    }
    fn write_payload(&self, w: &mut dyn Write) -> io::Result<()> {
        for l in self.layers() {
            write_words_le(l.bit_vec().words(), w)?;
        }
        Ok(())
    }
    fn decode(id: &Identity, params: &[u8], payload: &[u8]) -> Result<Self> {
        let kind = FilterKind::Scalable;
        let mut r = ParamReader::new(params, kind);
        let initial_capacity = r.u64("n0")?;
        let p = r.f64("p")?;
        let growth = r.f64("growth")?;
        let tightening = r.f64("tightening")?;
        let nonscaling = match r.u32("nonscaling")? {
            0 => false,
            1 => true,
            v => {
                return Err(corrupt(format!(
                    "scalable filter nonscaling flag is {v}, not 0 or 1"
                )));
            }
        };
        let count = r.u32("layer count")?;
        // Each layer takes 24 params bytes: the params length bounds the count.
        if count == 0 || count as usize > (MAX_PARAMS_LEN as usize - 40) / 24 {
            return Err(corrupt(format!("scalable filter has {count} layers")));
        }
        let mut heads = Vec::with_capacity(count as usize);
        for _ in 0..count {
            let m = r.u64("layer m")?;
            let k = r.u32("layer k")?;
            reserved_zero(kind, r.u32("layer reserved")?)?;
            let len = r.u64("layer len")?;
            heads.push((m, k, len));
        }
        r.finish()?;
        let strategy: S = strategy_of(kind, id)?;
        let hasher = H::from_key_material(id.hash, id.key)?;
        let params = ScalableParams {
            initial_capacity,
            p,
            growth,
            tightening,
            nonscaling,
        };
        // Check every layer's size against the params and the payload before allocating.
        let mut total = 0u64;
        for (i, &(m, k, _)) in heads.iter().enumerate() {
            let (em, ek, _) = ScalableBloom::<H, S>::expected_layer(&params, strategy, i)?;
            if (m, k) != (em, ek) {
                return Err(corrupt(format!(
                    "scalable layer {i} has m = {m}, k = {k}, but its params give m = {em}, k = {ek}"
                )));
            }
            total = total
                .checked_add(m.div_ceil(64) * 8)
                .ok_or_else(|| corrupt("scalable layers are impossibly large"))?;
        }
        if total != payload.len() as u64 {
            return Err(corrupt(format!(
                "scalable filter payload is {} bytes, but its layers need {total}",
                payload.len()
            )));
        }
        let mut layers = Vec::with_capacity(heads.len());
        let mut at = 0usize;
        for (i, &(m, k, len)) in heads.iter().enumerate() {
            let n = (m.div_ceil(64) * 8) as usize;
            let bits = bits_from_le(&format!("scalable layer {i}"), m, &payload[at..at + n])?;
            at += n;
            layers.push((bits, k, len));
        }
        ScalableBloom::from_parts(params, layers, hasher, strategy)
    }
}

fn resolve_key_mode(id: &Identity, policy: KeyPolicy) -> KeyMode {
    match policy {
        KeyPolicy::Store => KeyMode::Stored,
        KeyPolicy::Withhold => KeyMode::Withheld,
        KeyPolicy::Auto => {
            if matches!(id.hash, HashId::Sip13 | HashId::Sip24) && id.key != [0, 0] {
                KeyMode::Withheld
            } else {
                KeyMode::Stored
            }
        }
    }
}

/// Whether saving `f` with `opts` writes a secret key in the clear (then [`save`] makes the
/// file private to its owner).
fn stores_secret<F: Persist>(f: &F, opts: &SaveOptions) -> bool {
    let id = f.identity();
    resolve_key_mode(&id, opts.key_policy) == KeyMode::Stored
        && matches!(id.hash, HashId::Sip13 | HashId::Sip24)
        && id.key != [0, 0]
}

/// A writer that hashes everything written through it.
struct ChecksumWriter<'a> {
    inner: &'a mut dyn Write,
    hasher: xxhash_rust::xxh3::Xxh3Default,
    written: u64,
}

impl Write for ChecksumWriter<'_> {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        let n = self.inner.write(buf)?;
        self.hasher.update(&buf[..n]);
        self.written += n as u64;
        Ok(n)
    }
    fn flush(&mut self) -> io::Result<()> {
        self.inner.flush()
    }
}

fn build_header<F: Persist>(f: &F, opts: &SaveOptions, params_len: u32) -> [u8; HEADER_LEN] {
    let id = f.identity();
    let mode = resolve_key_mode(&id, opts.key_policy);
    let mut h = [0u8; HEADER_LEN];
    h[0..8].copy_from_slice(&MAGIC);
    h[8..10].copy_from_slice(&FORMAT_VERSION.to_le_bytes());
    h[10] = F::KIND.code();
    h[11] = id.hash.code();
    h[12] = id.strategy.map_or(NO_STRATEGY, StrategyId::code);
    h[13] = match mode {
        KeyMode::Stored => 0,
        KeyMode::Withheld => 1,
    };
    if mode == KeyMode::Stored {
        h[16..24].copy_from_slice(&id.key[0].to_le_bytes());
        h[24..32].copy_from_slice(&id.key[1].to_le_bytes());
    }
    h[32..40].copy_from_slice(&key_fingerprint(id.key).to_le_bytes());
    h[40..44].copy_from_slice(&params_len.to_le_bytes());
    h[44..52].copy_from_slice(&f.payload_len().to_le_bytes());
    h
}

/// Write `f` to `w` in this format (streaming; nothing is buffered but the header).
///
/// # Errors
/// What the writer returns; `InvalidData` when a [`Persist`] implementation's params are too
/// long or its payload is not the length it announced.
pub fn write_to<F: Persist>(f: &F, w: &mut dyn Write, opts: &SaveOptions) -> io::Result<()> {
    let params = f.params();
    let params_len = u32::try_from(params.len())
        .ok()
        .filter(|&p| p <= MAX_PARAMS_LEN)
        .ok_or_else(|| {
            io::Error::new(
                io::ErrorKind::InvalidData,
                format!("params of {} bytes exceed {MAX_PARAMS_LEN}", params.len()),
            )
        })?;
    let header = build_header(f, opts, params_len);
    let mut cw = ChecksumWriter {
        inner: w,
        hasher: xxhash_rust::xxh3::Xxh3Default::new(),
        written: 0,
    };
    cw.write_all(&header)?;
    cw.write_all(&params)?;
    let before = cw.written;
    f.write_payload(&mut cw)?;
    if cw.written - before != f.payload_len() {
        return Err(io::Error::new(
            io::ErrorKind::InvalidData,
            format!(
                "payload wrote {} bytes but announced {}",
                cw.written - before,
                f.payload_len()
            ),
        ));
    }
    let sum = cw.hasher.digest();
    cw.inner.write_all(&sum.to_le_bytes())?;
    cw.inner.flush()
}

/// The encoded file as bytes.
///
/// # Errors
/// [`Error::Allocation`] when the buffer cannot be had.
pub fn to_bytes<F: Persist>(f: &F, opts: &SaveOptions) -> Result<Vec<u8>> {
    let total = (HEADER_LEN + CHECKSUM_LEN) as u64 + f.params().len() as u64 + f.payload_len();
    let cap = usize::try_from(total).map_err(|_| Error::Allocation {
        bytes: u128::from(total),
    })?;
    let mut v = Vec::new();
    v.try_reserve_exact(cap).map_err(|_| Error::Allocation {
        bytes: u128::from(total),
    })?;
    write_to(f, &mut v, opts).map_err(|e| Error::Corrupt(e.to_string()))?;
    Ok(v)
}

fn io_err(path: &Path, e: &io::Error) -> Error {
    Error::Io {
        path: path.display().to_string(),
        message: e.to_string(),
    }
}

/// Write `path` atomically: the bytes go to a temporary file in the same directory, which is
/// flushed, `fsync`ed and renamed over `path` (and on Unix the directory is `fsync`ed too). If
/// anything fails before the rename — including a crash — `path` keeps its old contents; on an
/// error the temporary file is removed (after a crash it may remain, named
/// `.NAME.PID.NANOS.tmp`, and can be deleted).
///
/// `private` creates the file with mode `0600` on Unix (for files holding a secret key).
///
/// # Errors
/// [`Error::Io`] naming the path.
pub fn write_atomic(
    path: &Path,
    private: bool,
    write: impl FnOnce(&mut dyn Write) -> io::Result<()>,
) -> Result<()> {
    let name = path
        .file_name()
        .ok_or_else(|| io_err(path, &io::Error::other("not a file name")))?;
    let dir = match path.parent() {
        Some(d) if !d.as_os_str().is_empty() => d.to_path_buf(),
        _ => std::path::PathBuf::from("."),
    };
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.subsec_nanos());
    let tmp = dir.join(format!(
        ".{}.{}.{nanos}.tmp",
        name.to_string_lossy(),
        std::process::id()
    ));
    let mut oo = std::fs::OpenOptions::new();
    oo.write(true).create_new(true);
    #[cfg(unix)]
    if private {
        use std::os::unix::fs::OpenOptionsExt;
        oo.mode(0o600);
    }
    #[cfg(not(unix))]
    let _ = private;
    let file = oo.open(&tmp).map_err(|e| {
        let why = format!("cannot create a temporary file in {}: {e}", dir.display());
        io_err(path, &io::Error::new(e.kind(), why))
    })?;
    let result = (|| -> io::Result<()> {
        let mut bw = io::BufWriter::with_capacity(1 << 16, file);
        write(&mut bw)?;
        bw.flush()?;
        let file = bw.into_inner().map_err(io::IntoInnerError::into_error)?;
        file.sync_all()?;
        drop(file);
        std::fs::rename(&tmp, path)
    })();
    if let Err(e) = result {
        let _ = std::fs::remove_file(&tmp);
        return Err(io_err(path, &e));
    }
    #[cfg(unix)]
    if let Ok(d) = std::fs::File::open(&dir) {
        // Make the rename itself durable; failure here leaves a complete file in place.
        let _ = d.sync_all();
    }
    Ok(())
}

/// Save `f` to `path` atomically (see [`write_atomic`]).
///
/// # Errors
/// [`Error::Io`].
pub fn save<F: Persist>(f: &F, path: impl AsRef<Path>, opts: &SaveOptions) -> Result<()> {
    write_atomic(path.as_ref(), stores_secret(f, opts), |w| {
        write_to(f, w, opts)
    })
}

fn corrupt(msg: impl Into<String>) -> Error {
    Error::Corrupt(msg.into())
}

fn le_u64(b: &[u8], at: usize) -> u64 {
    let mut a = [0u8; 8];
    a.copy_from_slice(&b[at..at + 8]);
    u64::from_le_bytes(a)
}

/// The total file length the header declares, after checking magic and version.
fn declared_len(head: &[u8]) -> Result<u64> {
    if head.len() < MAGIC.len() {
        if MAGIC.starts_with(head) {
            return Err(corrupt(format!(
                "truncated: {} bytes, the header alone needs {HEADER_LEN}",
                head.len()
            )));
        }
        return Err(corrupt("not a bloomlab filter file (wrong magic bytes)"));
    }
    if head[..8] != MAGIC {
        return Err(corrupt(
            "not a bloomlab filter file (wrong magic bytes; a Guava filter loads with bloomlab::guava::load_guava)",
        ));
    }
    if head.len() < HEADER_LEN {
        return Err(corrupt(format!(
            "truncated: {} bytes, the header alone needs {HEADER_LEN}",
            head.len()
        )));
    }
    let version = u16::from_le_bytes([head[8], head[9]]);
    if version == 0 {
        return Err(corrupt("format version 0 does not exist"));
    }
    if version > FORMAT_VERSION {
        return Err(Error::UnsupportedVersion {
            found: version,
            supported: FORMAT_VERSION,
        });
    }
    let params_len = u32::from_le_bytes([head[40], head[41], head[42], head[43]]);
    if params_len > MAX_PARAMS_LEN {
        return Err(corrupt(format!(
            "params length {params_len} exceeds the maximum of {MAX_PARAMS_LEN}"
        )));
    }
    let payload_len = le_u64(head, 44);
    (HEADER_LEN as u64 + CHECKSUM_LEN as u64 + u64::from(params_len))
        .checked_add(payload_len)
        .ok_or_else(|| corrupt(format!("payload length {payload_len} is impossibly large")))
}

/// A container split into its parts.
struct Parts<'a> {
    info: FileInfo,
    /// The key material as stored (zero when withheld) or, after [`verify`], as resolved.
    key: KeyMaterial,
    params: &'a [u8],
    payload: &'a [u8],
}

/// Split and verify the container: magic, version, lengths, checksum, ids.
fn open(bytes: &[u8]) -> Result<Parts<'_>> {
    let total = declared_len(bytes)?;
    let have = bytes.len() as u64;
    if have < total {
        return Err(corrupt(format!(
            "truncated: {have} bytes, the header declares {total}"
        )));
    }
    if have > total {
        return Err(corrupt(format!(
            "{} trailing bytes after the checksum (the header declares {total} bytes)",
            have - total
        )));
    }
    let body_len = bytes.len() - CHECKSUM_LEN;
    let stored = le_u64(bytes, body_len);
    let computed = xxhash_rust::xxh3::xxh3_64(&bytes[..body_len]);
    if stored != computed {
        return Err(corrupt(format!(
            "checksum mismatch (stored {stored:016x}, computed {computed:016x}): the file is damaged"
        )));
    }
    let kind = FilterKind::from_code(bytes[10])
        .ok_or_else(|| corrupt(format!("unknown filter kind code {}", bytes[10])))?;
    let hash = HashId::from_code(bytes[11])
        .ok_or_else(|| corrupt(format!("unknown hash id code {}", bytes[11])))?;
    let strategy = match bytes[12] {
        NO_STRATEGY => None,
        c => Some(
            StrategyId::from_code(c)
                .ok_or_else(|| corrupt(format!("unknown strategy id code {c}")))?,
        ),
    };
    let key_mode = match bytes[13] {
        0 => KeyMode::Stored,
        1 => KeyMode::Withheld,
        c => return Err(corrupt(format!("unknown key mode {c}"))),
    };
    if bytes[14] != 0 || bytes[15] != 0 {
        return Err(corrupt("reserved header bytes 14..16 are not zero"));
    }
    let key = [le_u64(bytes, 16), le_u64(bytes, 24)];
    if key_mode == KeyMode::Withheld && key != [0, 0] {
        return Err(corrupt(
            "the key is marked withheld but key bytes are present",
        ));
    }
    let key_fingerprint = le_u64(bytes, 32);
    let params_len = u32::from_le_bytes([bytes[40], bytes[41], bytes[42], bytes[43]]);
    let payload_len = le_u64(bytes, 44);
    let p_end = HEADER_LEN + params_len as usize;
    let info = FileInfo {
        version: u16::from_le_bytes([bytes[8], bytes[9]]),
        kind,
        hash,
        strategy,
        key_mode,
        key_fingerprint,
        params_len,
        payload_len,
    };
    Ok(Parts {
        info,
        key,
        params: &bytes[HEADER_LEN..p_end],
        payload: &bytes[p_end..body_len],
    })
}

/// The header of an encoded filter, fully verified (checksum included) but not decoded, and
/// readable without its key.
///
/// # Errors
/// As [`from_bytes`], except for key and kind-specific checks.
pub fn read_info(bytes: &[u8]) -> Result<FileInfo> {
    open(bytes).map(|p| p.info)
}

/// Verify the container against what the caller expects, resolve the key.
fn verify<'a>(bytes: &'a [u8], opts: &LoadOptions) -> Result<Parts<'a>> {
    let Parts {
        info,
        key: stored_key,
        params,
        payload,
    } = open(bytes)?;
    let mismatch = |what, found: &str, requested: &str| Error::Mismatch {
        what,
        found: found.to_string(),
        requested: requested.to_string(),
    };
    if let Some(k) = opts.kind
        && k != info.kind
    {
        return Err(mismatch("filter kind", info.kind.name(), k.name()));
    }
    if let Some(h) = opts.hash
        && h != info.hash
    {
        return Err(mismatch("hash", info.hash.name(), h.name()));
    }
    if let Some(s) = opts.strategy
        && Some(s) != info.strategy
    {
        return Err(mismatch(
            "strategy",
            info.strategy.map_or("none", StrategyId::name),
            s.name(),
        ));
    }
    let key = match (info.key_mode, opts.key) {
        (KeyMode::Withheld, None) => {
            return Err(Error::KeyRequired {
                hash: info.hash.name().to_string(),
                fingerprint: info.key_fingerprint,
            });
        }
        (KeyMode::Withheld, Some(k)) => {
            let km = key_material(&k);
            let given = key_fingerprint(km);
            if given != info.key_fingerprint {
                return Err(Error::WrongKey {
                    expected: info.key_fingerprint,
                    given,
                });
            }
            km
        }
        (KeyMode::Stored, given) => {
            if key_fingerprint(stored_key) != info.key_fingerprint {
                return Err(corrupt(
                    "the stored key does not match the stored key fingerprint",
                ));
            }
            if let Some(k) = given {
                let km = key_material(&k);
                if km != stored_key {
                    return Err(Error::WrongKey {
                        expected: info.key_fingerprint,
                        given: key_fingerprint(km),
                    });
                }
            }
            stored_key
        }
    };
    Ok(Parts {
        info,
        key,
        params,
        payload,
    })
}

fn identity(p: &Parts<'_>) -> Identity {
    Identity {
        hash: p.info.hash,
        key: p.key,
        strategy: p.info.strategy,
    }
}

/// Decode a filter of type `F` from the whole of `bytes`.
///
/// # Errors
/// [`Error::Corrupt`] (what is wrong, in words), [`Error::UnsupportedVersion`],
/// [`Error::Mismatch`] (the file's kind, hash or strategy is not `F`'s or not what `opts` asks
/// for), [`Error::KeyRequired`], [`Error::WrongKey`], [`Error::Allocation`].
pub fn from_bytes<F: Persist>(bytes: &[u8], opts: &LoadOptions) -> Result<F> {
    let p = verify(bytes, opts)?;
    if p.info.kind != F::KIND {
        return Err(Error::Mismatch {
            what: "filter kind",
            found: p.info.kind.name().to_string(),
            requested: F::KIND.name().to_string(),
        });
    }
    F::decode(&identity(&p), p.params, p.payload)
}

/// Decode whatever filter `bytes` holds, with run-time hash and strategy.
///
/// # Errors
/// As [`from_bytes`].
pub fn from_bytes_any(bytes: &[u8], opts: &LoadOptions) -> Result<AnyFilter> {
    let p = verify(bytes, opts)?;
    AnyFilter::decode(p.info.kind, &identity(&p), p.params, p.payload)
}

/// Read one encoded filter from `r`: the header first, then exactly the bytes it declares (and
/// a check that nothing follows). The buffer grows only as bytes actually arrive, so a header
/// declaring a huge length over a short stream costs nothing.
///
/// # Errors
/// [`Error::Io`], and the header errors of [`from_bytes`] (magic, version, truncation).
pub fn read_from(r: &mut dyn Read, name: &str) -> Result<Vec<u8>> {
    let ioe = |e: io::Error| Error::Io {
        path: name.to_string(),
        message: e.to_string(),
    };
    let mut head = Vec::with_capacity(HEADER_LEN);
    (&mut *r)
        .take(HEADER_LEN as u64)
        .read_to_end(&mut head)
        .map_err(ioe)?;
    let total = declared_len(&head)?;
    let mut buf = head;
    let mut chunk = [0u8; 64 * 1024];
    loop {
        let n = r.read(&mut chunk).map_err(ioe)?;
        if n == 0 {
            break;
        }
        if buf.len() as u64 + n as u64 > total {
            return Err(corrupt(format!(
                "trailing bytes after the checksum (the header declares {total} bytes)"
            )));
        }
        buf.try_reserve(n).map_err(|_| Error::Allocation {
            bytes: (buf.len() + n) as u128,
        })?;
        buf.extend_from_slice(&chunk[..n]);
    }
    Ok(buf)
}

/// Load a filter of type `F` from `path`.
///
/// # Errors
/// [`Error::Io`] and everything [`from_bytes`] returns.
pub fn load<F: Persist>(path: impl AsRef<Path>, opts: &LoadOptions) -> Result<F> {
    let path = path.as_ref();
    let mut file = std::fs::File::open(path).map_err(|e| io_err(path, &e))?;
    let bytes = read_from(&mut file, &path.display().to_string())?;
    from_bytes(&bytes, opts)
}

/// Load whatever filter `path` holds.
///
/// # Errors
/// [`Error::Io`] and everything [`from_bytes_any`] returns.
pub fn load_any(path: impl AsRef<Path>, opts: &LoadOptions) -> Result<AnyFilter> {
    let path = path.as_ref();
    let mut file = std::fs::File::open(path).map_err(|e| io_err(path, &e))?;
    let bytes = read_from(&mut file, &path.display().to_string())?;
    from_bytes_any(&bytes, opts)
}

impl<H: PersistHasher, S: PersistStrategy> StandardBloom<H, S> {
    /// Save to `path` atomically in bloomlab's format ([`crate::persist`]), withholding a
    /// secret SipHash key (see [`KeyPolicy::Auto`]).
    ///
    /// # Errors
    /// [`Error::Io`].
    pub fn save(&self, path: impl AsRef<Path>) -> Result<()> {
        save(self, path, &SaveOptions::default())
    }

    /// Load from `path`; the file must hold a standard filter with this type's hash and
    /// strategy (or any, for [`AnyHasher`] / [`AnyStrategy`]) and pass every check of
    /// [`from_bytes`].
    ///
    /// # Errors
    /// As [`load`].
    pub fn load(path: impl AsRef<Path>, opts: &LoadOptions) -> Result<Self> {
        load(path, opts)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::filter::Removable;

    fn sample() -> StandardBloom {
        let mut f = StandardBloom::with_rate(500, 0.01).unwrap();
        for i in 0u64..300 {
            f.insert(&i.to_le_bytes());
        }
        f
    }

    /// Re-seal a modified file with a correct checksum, so checks behind the checksum are hit.
    fn reseal(b: &mut [u8]) {
        let n = b.len() - 8;
        let s = xxhash_rust::xxh3::xxh3_64(&b[..n]);
        b[n..].copy_from_slice(&s.to_le_bytes());
    }

    fn corrupt_msg<T: std::fmt::Debug>(r: Result<T>) -> String {
        match r {
            Err(Error::Corrupt(m)) => m,
            other => panic!("expected Corrupt, got {other:?}"),
        }
    }

    #[test]
    fn round_trip_every_hash_and_strategy() {
        for h in HashId::ALL {
            for s in StrategyId::ALL {
                let mut f =
                    StandardBloom::with_rate_and(300, 0.02, AnyHasher::new(h, 99), AnyStrategy(s))
                        .unwrap();
                for i in 0u64..300 {
                    f.insert(&i.to_le_bytes());
                }
                let opts = SaveOptions::default().key_policy(KeyPolicy::Store);
                let b = to_bytes(&f, &opts).unwrap();
                let g: StandardBloom<AnyHasher, AnyStrategy> =
                    from_bytes(&b, &LoadOptions::default()).unwrap();
                assert_eq!(g.bit_vec(), f.bit_vec(), "{h}/{s}");
                assert_eq!(g.hasher(), f.hasher(), "{h}/{s}");
                assert_eq!((g.k(), g.len()), (f.k(), f.len()));
                assert!((0u64..300).all(|i| g.contains(&i.to_le_bytes())));
                assert_eq!(to_bytes(&g, &opts).unwrap(), b, "byte-identical re-save");
            }
        }
    }

    /// Items 0.. as keys; absent keys from a disjoint range.
    fn key(i: u64) -> [u8; 8] {
        i.to_le_bytes()
    }
    fn absent(i: u64) -> [u8; 8] {
        (i | 1 << 63).to_le_bytes()
    }

    /// Save `f`, load it back as `F` and as `dyn Filter`; both answer exactly as `f` on 400
    /// present and 20,000 absent keys (some of which are false positives) and agree on len,
    /// bits, bytes, k, kind; re-saving gives the same bytes.
    fn check_round_trip<F: Persist + Filter>(f: &F, present: u64) -> F {
        let opts = SaveOptions::default();
        let b = to_bytes(f, &opts).unwrap();
        let g: F = from_bytes(&b, &LoadOptions::new()).unwrap();
        let d = from_bytes_any(&b, &LoadOptions::new()).unwrap();
        for h in [&g as &dyn Filter, &d] {
            assert_eq!(
                (h.len(), h.bits(), h.bytes(), h.k(), h.kind()),
                (f.len(), f.bits(), f.bytes(), f.k(), f.kind())
            );
            assert_eq!(
                (h.hash_id(), h.strategy_id()),
                (f.hash_id(), f.strategy_id())
            );
            assert!((0..present).all(|i| h.contains(&key(i))));
            let mut fp = 0;
            for i in 0..20_000 {
                let a = f.contains(&absent(i));
                assert_eq!(h.contains(&absent(i)), a, "absent key {i}");
                fp += u32::from(a);
            }
            assert!(fp > 0, "the test needs some false positives to compare");
            assert!(h.expected_fpr() == f.expected_fpr());
        }
        assert_eq!(to_bytes(&g, &opts).unwrap(), b, "byte-identical re-save");
        g
    }

    #[test]
    fn counting_round_trip_keeps_counters_and_removes() {
        let mut f = CountingBloom::with_rate_and(
            400,
            0.05,
            AnyHasher::new(HashId::Murmur3, 3),
            AnyStrategy(StrategyId::Guava64),
        )
        .unwrap();
        for i in 0..400 {
            f.insert(&key(i));
        }
        for _ in 0..20 {
            f.insert(b"hot"); // saturates its counters
        }
        let mut g = check_round_trip(&f, 400);
        assert_eq!(g.counter_array(), f.counter_array());
        assert!(f.saturated() > 0);
        assert_eq!(g.saturated(), f.saturated());
        for i in 0..200 {
            g.remove(&key(i)).unwrap();
        }
        assert!((200..400).all(|i| g.contains(&key(i))));
        // A counter past an odd m is refused.
        let h = CountingBloom::with_counters(101, 3).unwrap();
        let mut b = to_bytes(&h, &SaveOptions::default()).unwrap();
        let last = b.len() - 9;
        b[last] |= 0x10;
        reseal(&mut b);
        assert!(corrupt_msg(from_bytes_any(&b, &LoadOptions::new())).contains("past m"));
    }

    #[test]
    fn blocked_round_trip() {
        let mut f = BlockedBloom::with_rate_and(400, 0.05, None, AnyHasher::new(HashId::Wyhash, 8))
            .unwrap();
        for i in 0..400 {
            f.insert(&key(i));
        }
        let g = check_round_trip(&f, 400);
        assert_eq!(g.block_slice(), f.block_slice());
        assert_eq!(g.sizing(), None, "the sizing report is not saved");
    }

    #[test]
    fn split_block_round_trip_stays_parquet_compatible() {
        let mut f =
            SplitBlockBloom::with_rate_and(400, 0.05, AnyHasher::new(HashId::Xxh64, 0)).unwrap();
        for i in 0..400 {
            f.insert(&key(i));
        }
        let g = check_round_trip(&f, 400);
        assert!(g.parquet_compatible());
        assert_eq!(g.to_parquet_bytes(), f.to_parquet_bytes());
    }

    #[test]
    fn cuckoo_round_trip_behaves_identically_afterwards() {
        let mut f =
            CuckooFilter::with_buckets_and(64, 12, AnyHasher::new(HashId::Xxh3, 1)).unwrap();
        for i in 0..230 {
            f.try_insert(&key(i)).unwrap(); // 230/256 = 0.9 load: evictions happen
        }
        assert!(f.kicks() > 0);
        let mut g = check_round_trip(&f, 230);
        assert_eq!(g.table_words(), f.table_words());
        assert_eq!(g.state(), f.state());
        // Same eviction choices from here on: inserting into both until full gives the same
        // tables, statistics and refusals.
        for i in 230..300 {
            let a = f.try_insert(&key(i)).is_ok();
            let b = g.try_insert(&key(i)).is_ok();
            assert_eq!(a, b, "insert {i}");
        }
        assert!(f.refused() > 0);
        assert_eq!(g.table_words(), f.table_words());
        assert_eq!((g.state(), g.len()), (f.state(), f.len()));
        g.remove(&key(0)).unwrap();
        assert_eq!(g.len(), f.len() - 1);
        // A count that disagrees with the table is refused.
        let mut b = to_bytes(&f, &SaveOptions::default()).unwrap();
        let at = 52 + 16;
        let n = le_u64(&b, at);
        b[at..at + 8].copy_from_slice(&(n + 1).to_le_bytes());
        reseal(&mut b);
        assert!(corrupt_msg(from_bytes_any(&b, &LoadOptions::new())).contains("table holds"));
        // Fingerprint bits other than 8, 12, 16 are refused.
        let mut b = to_bytes(&f, &SaveOptions::default()).unwrap();
        b[60..64].copy_from_slice(&10u32.to_le_bytes());
        reseal(&mut b);
        assert!(corrupt_msg(from_bytes_any(&b, &LoadOptions::new())).contains("10-bit"));
    }

    #[test]
    fn scalable_round_trip_keeps_layers_and_grows_alike() {
        let mut f = ScalableBloom::with_params_and(
            ScalableParams::new(100, 0.02),
            AnyHasher::new(HashId::Sip24, 0),
            AnyStrategy(StrategyId::Guava32),
        )
        .unwrap();
        for i in 0..400 {
            f.insert(&key(i));
        }
        assert_eq!(f.layer_count(), 3);
        let mut g = check_round_trip(&f, 400);
        assert_eq!(g.layer_targets(), f.layer_targets());
        assert_eq!(g.params(), f.params());
        for (a, b) in g.layers().zip(f.layers()) {
            assert_eq!((a.bit_vec(), a.len()), (b.bit_vec(), b.len()));
        }
        for i in 400..1_000 {
            f.insert(&key(i));
            g.insert(&key(i));
        }
        assert_eq!(
            (g.layer_count(), g.len(), g.bits()),
            (f.layer_count(), f.len(), f.bits())
        );
        // A layer whose m is not what the params give is refused (m of layer 0 at 52 + 40).
        let mut b = to_bytes(&f, &SaveOptions::default()).unwrap();
        let m = le_u64(&b, 92);
        b[92..100].copy_from_slice(&(m + 64).to_le_bytes());
        reseal(&mut b);
        assert!(corrupt_msg(from_bytes_any(&b, &LoadOptions::new())).contains("params give"));
        // So is a tightening ratio out of range.
        let mut b = to_bytes(&f, &SaveOptions::default()).unwrap();
        b[76..84].copy_from_slice(&1.5f64.to_le_bytes());
        reseal(&mut b);
        assert!(corrupt_msg(from_bytes_any(&b, &LoadOptions::new())).contains("scalable"));
    }

    #[test]
    fn a_blocked_file_counting_u64_scale_items_answers_its_model_at_once() {
        // Fuzzing found this: len ≈ 1.1·10^19 in a blocked file made expected_fpr() walk a
        // Poisson window billions of terms wide.
        let f = BlockedBloom::with_bits(512, 13).unwrap();
        let mut b = to_bytes(&f, &SaveOptions::default()).unwrap();
        b[68..76].copy_from_slice(&10_898_148_156_873_113_620u64.to_le_bytes());
        reseal(&mut b);
        let g = from_bytes_any(&b, &LoadOptions::new()).unwrap();
        assert_eq!(g.expected_fpr(), 1.0);
        assert!(!g.details().is_empty());
    }

    #[test]
    fn a_saved_kind_is_refused_as_another() {
        let f = CuckooFilter::with_buckets(16, 8).unwrap();
        let b = to_bytes(&f, &SaveOptions::default()).unwrap();
        let e = from_bytes::<StandardBloom>(&b, &LoadOptions::new()).unwrap_err();
        assert!(
            matches!(
                e,
                Error::Mismatch {
                    what: "filter kind",
                    ..
                }
            ),
            "{e}"
        );
        // A kind without a strategy whose file names one is corrupt.
        let mut b = b.clone();
        b[12] = StrategyId::Guava32.code();
        reseal(&mut b);
        assert!(corrupt_msg(from_bytes_any(&b, &LoadOptions::new())).contains("no index strategy"));
    }

    #[test]
    fn header_layout_is_as_documented() {
        let f = sample();
        let b = to_bytes(&f, &SaveOptions::default()).unwrap();
        assert_eq!(&b[..8], b"\x89BLMLAB\n");
        assert_eq!(u16::from_le_bytes([b[8], b[9]]), 1);
        assert_eq!(b[10], FilterKind::Standard.code());
        assert_eq!(b[11], HashId::Xxh3.code());
        assert_eq!(b[12], StrategyId::EnhancedDouble.code());
        assert_eq!(b[13], 0, "xxh3 seed stored");
        assert_eq!(le_u64(&b, 40) & 0xffff_ffff, 24);
        assert_eq!(le_u64(&b, 44), f.bit_vec().words().len() as u64 * 8);
        assert_eq!(le_u64(&b, 52), f.bits());
        assert_eq!(b.len(), 52 + 24 + f.bit_vec().words().len() * 8 + 8);
    }

    #[test]
    fn refuses_each_kind_of_damage() {
        let good = to_bytes(&sample(), &SaveOptions::default()).unwrap();
        let o = LoadOptions::default();
        let load = |b: &[u8]| from_bytes::<StandardBloom>(b, &o);
        assert!(load(&good).is_ok());

        let mut b = good.clone();
        b[0] = b'X';
        assert!(corrupt_msg(load(&b)).contains("magic"));
        assert!(corrupt_msg(load(b"\x89BLM")).contains("truncated"));
        assert!(corrupt_msg(load(&good[..good.len() - 1])).contains("truncated"));
        assert!(corrupt_msg(load(&good[..40])).contains("truncated"));
        let mut b = good.clone();
        b.push(0);
        assert!(corrupt_msg(load(&b)).contains("trailing"));

        let mut b = good.clone();
        b[8] = 2;
        assert_eq!(
            load(&b).unwrap_err(),
            Error::UnsupportedVersion {
                found: 2,
                supported: 1
            }
        );

        let mut b = good.clone();
        b[100] ^= 1;
        assert!(corrupt_msg(load(&b)).contains("checksum"));

        let mut b = good.clone();
        b[11] = 200;
        reseal(&mut b);
        assert!(corrupt_msg(load(&b)).contains("unknown hash"));
        let mut b = good.clone();
        b[12] = 77;
        reseal(&mut b);
        assert!(corrupt_msg(load(&b)).contains("unknown strategy"));
        let mut b = good.clone();
        b[10] = 99;
        reseal(&mut b);
        assert!(corrupt_msg(load(&b)).contains("unknown filter kind"));

        // k out of range
        let mut b = good.clone();
        b[60..64].copy_from_slice(&65u32.to_le_bytes());
        reseal(&mut b);
        assert!(corrupt_msg(load(&b)).contains("k = 65"));
        // m disagreeing with the payload length
        let mut b = good.clone();
        let m = le_u64(&b, 52);
        b[52..60].copy_from_slice(&(m + 64).to_le_bytes());
        reseal(&mut b);
        assert!(corrupt_msg(load(&b)).contains("payload"));
        // bits set past m
        let mut b = good.clone();
        let last = b.len() - 9;
        b[last] |= 0x80;
        reseal(&mut b);
        assert!(corrupt_msg(load(&b)).contains("past m"));
    }

    #[test]
    fn refuses_a_different_hash_strategy_or_kind() {
        let good = to_bytes(&sample(), &SaveOptions::default()).unwrap();
        let e = from_bytes::<StandardBloom<AnyHasher, AnyStrategy>>(
            &good,
            &LoadOptions::new().hash(HashId::Murmur3),
        )
        .unwrap_err();
        assert!(matches!(e, Error::Mismatch { what: "hash", .. }), "{e}");
        assert!(e.to_string().contains("'xxh3'") && e.to_string().contains("'murmur3'"));
        // The type itself asks for a hash.
        let e = from_bytes::<StandardBloom<Murmur3, EnhancedDoubleHashing>>(
            &good,
            &LoadOptions::default(),
        )
        .unwrap_err();
        assert!(matches!(e, Error::Mismatch { what: "hash", .. }), "{e}");
        let e =
            from_bytes::<StandardBloom<Xxh3, Guava64>>(&good, &LoadOptions::default()).unwrap_err();
        assert!(
            matches!(
                e,
                Error::Mismatch {
                    what: "strategy",
                    ..
                }
            ),
            "{e}"
        );
        let e = from_bytes_any(&good, &LoadOptions::new().kind(FilterKind::Cuckoo)).unwrap_err();
        assert!(
            matches!(
                e,
                Error::Mismatch {
                    what: "filter kind",
                    ..
                }
            ),
            "{e}"
        );
    }

    #[test]
    fn secret_key_is_withheld_by_default_and_required_at_load() {
        let key = *b"0123456789abcdef";
        let mut f = StandardBloom::keyed(200, 0.01, key).unwrap();
        f.insert(b"secret item");
        let b = to_bytes(&f, &SaveOptions::default()).unwrap();
        assert_eq!(b[13], 1, "withheld");
        assert_eq!(&b[16..32], &[0u8; 16], "no key bytes in the file");
        assert!(
            !b.windows(8).any(|w| w == &key[..8] || w == &key[8..]),
            "key bytes nowhere in the file"
        );
        let e = from_bytes::<StandardBloom<Sip24>>(&b, &LoadOptions::default()).unwrap_err();
        assert!(matches!(e, Error::KeyRequired { .. }), "{e}");
        let e =
            from_bytes::<StandardBloom<Sip24>>(&b, &LoadOptions::new().key(*b"0123456789abcdeX"))
                .unwrap_err();
        assert!(matches!(e, Error::WrongKey { .. }), "{e}");
        let g: StandardBloom<Sip24> = from_bytes(&b, &LoadOptions::new().key(key)).unwrap();
        assert!(g.contains(b"secret item"));
        assert_eq!(g.hasher(), f.hasher());

        // Opt-in: stored in the clear, then loadable without the key (and a wrong key refused).
        let b = to_bytes(&f, &SaveOptions::default().key_policy(KeyPolicy::Store)).unwrap();
        assert_eq!(b[13], 0);
        assert_eq!(&b[16..32], &key);
        let g: StandardBloom<Sip24> = from_bytes(&b, &LoadOptions::default()).unwrap();
        assert!(g.contains(b"secret item"));
        let e =
            from_bytes::<StandardBloom<Sip24>>(&b, &LoadOptions::new().key([0; 16])).unwrap_err();
        assert!(matches!(e, Error::WrongKey { .. }), "{e}");
    }

    #[test]
    fn seed_wider_than_the_hash_is_corrupt() {
        let f = StandardBloom::with_rate_and(100, 0.01, Murmur3::with_seed(7), Guava64).unwrap();
        let mut b = to_bytes(&f, &SaveOptions::default()).unwrap();
        b[20] = 1; // k0 = 7 + 2^32
        let fp = key_fingerprint([le_u64(&b, 16), 0]);
        b[32..40].copy_from_slice(&fp.to_le_bytes());
        reseal(&mut b);
        let m = corrupt_msg(from_bytes::<StandardBloom<Murmur3, Guava64>>(
            &b,
            &LoadOptions::default(),
        ));
        assert!(m.contains("seed"), "{m}");
    }

    #[test]
    fn a_loaded_filter_counting_u64_max_takes_inserts() {
        // Fuzzing found this: len = u64::MAX in a file, then an insert overflowed the count.
        let mut b = to_bytes(&sample(), &SaveOptions::default()).unwrap();
        b[68..76].copy_from_slice(&u64::MAX.to_le_bytes());
        reseal(&mut b);
        let mut f: StandardBloom = from_bytes(&b, &LoadOptions::new()).unwrap();
        f.insert(b"one more");
        assert_eq!(f.len(), u64::MAX);
        let mut g = f.clone();
        g.union_with(&f).unwrap();
        assert_eq!(g.len(), u64::MAX);
        let c: ConcurrentBloom = from_bytes(&b, &LoadOptions::new()).unwrap();
        c.insert(b"one more");
        assert_eq!(c.len(), u64::MAX);
        let mut d = from_bytes_any(&b, &LoadOptions::new()).unwrap();
        d.insert(b"x");
        assert!(d.contains(b"x"));
    }

    #[test]
    fn guava_m_near_u64_max_is_corrupt_not_a_panic() {
        // Fuzzing found this: m = 2^64 - 60 with a Guava strategy overflowed the word rounding.
        let f = StandardBloom::with_rate_and(100, 0.01, Murmur3::default(), Guava32).unwrap();
        let mut b = to_bytes(&f, &SaveOptions::default()).unwrap();
        b[52..60].copy_from_slice(&(u64::MAX - 59).to_le_bytes());
        reseal(&mut b);
        let m = corrupt_msg(from_bytes_any(&b, &LoadOptions::new()));
        assert!(m.contains("multiple of 64"), "{m}");
    }

    /// A writer that fails after `left` bytes, as a full disk or a killed process would.
    struct FailAfter<'a> {
        inner: &'a mut dyn Write,
        left: usize,
    }
    impl Write for FailAfter<'_> {
        fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
            if self.left == 0 {
                return Err(io::Error::other("injected failure"));
            }
            let n = buf.len().min(self.left);
            self.left -= n;
            self.inner.write(&buf[..n])
        }
        fn flush(&mut self) -> io::Result<()> {
            self.inner.flush()
        }
    }

    #[test]
    fn interrupted_save_leaves_the_old_file_intact() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("f.bloom");
        let old = sample();
        old.save(&path).unwrap();
        let old_bytes = std::fs::read(&path).unwrap();

        let mut new = StandardBloom::with_rate(5_000, 0.001).unwrap();
        new.insert(b"new");
        let half = to_bytes(&new, &SaveOptions::default()).unwrap().len() / 2;
        let r = write_atomic(&path, false, |w| {
            let mut fw = FailAfter {
                inner: w,
                left: half,
            };
            write_to(&new, &mut fw, &SaveOptions::default())
        });
        let e = r.unwrap_err();
        assert!(e.to_string().contains("injected failure"), "{e}");
        assert_eq!(std::fs::read(&path).unwrap(), old_bytes, "old file intact");
        let back =
            StandardBloom::<Xxh3, EnhancedDoubleHashing>::load(&path, &LoadOptions::new()).unwrap();
        assert!((0u64..300).all(|i| back.contains(&i.to_le_bytes())));
        let leftovers: Vec<_> = std::fs::read_dir(dir.path())
            .unwrap()
            .map(|e| e.unwrap().file_name())
            .collect();
        assert_eq!(leftovers.len(), 1, "temporary file removed: {leftovers:?}");

        // A complete save replaces it.
        new.save(&path).unwrap();
        let back: StandardBloom = load(&path, &LoadOptions::new()).unwrap();
        assert!(back.contains(b"new"));
    }

    #[cfg(unix)]
    #[test]
    fn a_stored_secret_key_makes_the_file_private() {
        use std::os::unix::fs::PermissionsExt;
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("k.bloom");
        let f = StandardBloom::keyed(100, 0.01, [7; 16]).unwrap();
        save(
            &f,
            &path,
            &SaveOptions::default().key_policy(KeyPolicy::Store),
        )
        .unwrap();
        let mode = std::fs::metadata(&path).unwrap().permissions().mode();
        assert_eq!(mode & 0o077, 0, "mode {mode:o}");
    }

    #[test]
    fn read_from_does_not_trust_declared_lengths() {
        // A header declaring 2^60 payload bytes over a 60-byte stream: refused as truncated.
        let mut b = to_bytes(&sample(), &SaveOptions::default()).unwrap();
        b[44..52].copy_from_slice(&(1u64 << 60).to_le_bytes());
        b.truncate(120);
        let got = read_from(&mut &b[..], "mem").unwrap();
        assert_eq!(got.len(), 120);
        assert!(
            corrupt_msg(from_bytes::<StandardBloom>(&got, &LoadOptions::new()))
                .contains("truncated")
        );
        // Trailing bytes in a stream are refused while reading.
        let mut b = to_bytes(&sample(), &SaveOptions::default()).unwrap();
        b.extend_from_slice(&[0; 3]);
        assert!(corrupt_msg(read_from(&mut &b[..], "mem")).contains("trailing"));
    }
}
