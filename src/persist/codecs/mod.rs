//! What every kind's codec shares: the [`Persist`] trait, the hasher and strategy traits that
//! rebuild a filter's hash and index strategy from a file, a params reader, and word and bit
//! helpers. One file per kind holds its [`Persist`] implementation and its layout.

mod blocked;
mod counting;
mod cuckoo;
mod scalable;
mod split_block;
mod standard;

use super::container::Identity;
use crate::bits::{BitVec, try_zeroed};
use crate::error::{Error, Result};
use crate::filter::FilterKind;
use crate::hash::{
    AnyHasher, AnyStrategy, DoubleHashing, EnhancedDoubleHashing, Fnv1a, Fx, Guava32, Guava64,
    HashId, Independent, IndexStrategy, ItemHasher, Murmur3, Sip13, Sip24, StrategyId, Weak,
    Wyhash, Xxh3, Xxh64,
};
use std::hash::Hasher as _;
use std::io::{self, Write};

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
    /// The kind-specific parameters (at most [`MAX_PARAMS_LEN`](crate::persist::MAX_PARAMS_LEN) bytes).
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
pub(super) fn bits_from_le(what: &str, m: u64, payload: &[u8]) -> Result<BitVec> {
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

pub(super) fn strategy_of<S: PersistStrategy>(kind: FilterKind, id: &Identity) -> Result<S> {
    let Some(sid) = id.strategy else {
        return Err(Error::Corrupt(format!(
            "{kind} filter file names no index strategy"
        )));
    };
    S::from_id(sid)
}

pub(super) fn no_strategy(kind: FilterKind, id: &Identity) -> Result<()> {
    match id.strategy {
        None => Ok(()),
        Some(s) => Err(Error::Corrupt(format!(
            "{kind} filter has no index strategy, but the file names '{s}'"
        ))),
    }
}

pub(super) fn reserved_zero(kind: FilterKind, v: u32) -> Result<()> {
    if v == 0 {
        Ok(())
    } else {
        Err(Error::Corrupt(format!(
            "{kind} filter reserved field is {v}, must be 0"
        )))
    }
}
