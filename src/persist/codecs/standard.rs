//! The standard filter's codec (kind 0), and the concurrent filter's, which is saved as the
//! standard filter it is. Layout: see the [`persist`](crate::persist) module documentation.

use super::{
    ParamReader, Payload, Persist, PersistHasher, PersistStrategy, read_bits, write_words_le,
};
use crate::error::{Error, Result};
use crate::filter::{Filter, FilterKind};
use crate::filters::{ConcurrentBloom, StandardBloom};
use crate::persist::Identity;
use std::io::{self, Write};

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
        Self::decode_from(id, params, &mut Payload::from_slice(payload))
    }

    fn decode_from(id: &Identity, params: &[u8], payload: &mut Payload<'_>) -> Result<Self> {
        let p = StandardParams::<H, S>::check(id, params)?;
        let m = p.m;
        let want = m.div_ceil(64) * 8;
        if payload.len() != want {
            return Err(Error::Corrupt(format!(
                "standard filter payload is {} bytes, but m = {m} bits needs {want}",
                payload.len()
            )));
        }
        let bits = read_bits("standard filter", m, payload)?;
        StandardBloom::from_bits(bits, p.k, p.len, p.hasher, p.strategy)
    }
}

/// A standard filter's params, checked against each other and the header.
struct StandardParams<H, S> {
    m: u64,
    k: u32,
    len: u64,
    hasher: H,
    strategy: S,
}

impl<H: PersistHasher, S: PersistStrategy> StandardParams<H, S> {
    fn check(id: &Identity, params: &[u8]) -> Result<Self> {
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
        Ok(Self {
            m,
            k,
            len,
            hasher,
            strategy,
        })
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
    fn decode_from(id: &Identity, params: &[u8], payload: &mut Payload<'_>) -> Result<Self> {
        StandardBloom::decode_from(id, params, payload).map(ConcurrentBloom::from_standard)
    }
}
