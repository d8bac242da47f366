//! The key material of a hash and its fingerprint, and rebuilding a hasher from them.
//!
//! A filter file ([`crate::persist`]) records the hash by its id, its key or seed as
//! [`KeyMaterial`], and a [`key_fingerprint`] that lets a loader check a supplied key without
//! the file holding it. Both belong to the hasher: which bits are a key, how wide a seed is,
//! and whether it is a secret are properties of the hash function.

use super::{
    AnyHasher, Fnv1a, Foldhash, Fx, HashId, ItemHasher, Murmur3, Sip13, Sip24, Weak, Wyhash, Xxh3,
    Xxh64,
};
use crate::error::{Error, Result};
use std::hash::Hasher as _;

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
    Fx => Fx, Fnv1a => Fnv1a, Weak => Weak, Foldhash => Foldhash);

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
            AnyHasher::Foldhash(h) => h.key_material(),
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
            HashId::Foldhash => AnyHasher::Foldhash(Foldhash::from_key_material(id, key)?),
        })
    }
}
