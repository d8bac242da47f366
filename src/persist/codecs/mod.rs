//! What every kind's codec shares: the [`Persist`] trait, a params reader, and word and bit
//! helpers. One file per kind holds its [`Persist`] implementation and its layout. The hash and
//! strategy of a file are rebuilt by [`PersistHasher`] and [`PersistStrategy`], which live with
//! the hashes ([`crate::hash`]).

mod binary_fuse;
mod blocked;
mod counting;
mod cuckoo;
mod multiblock;
mod payload;
mod prefix;
mod quotient;
mod ribbon;
mod scalable;
mod split_block;
mod standard;
mod xor;

pub use payload::Payload;

use super::container::Identity;
use crate::bits::{BitVec, try_zeroed, words_for};
use crate::error::{Error, Result};
use crate::filter::FilterKind;
use crate::filters::static_set::Table;
use crate::hash::{PersistHasher, PersistStrategy};
use std::io::{self, Write};

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
    /// [`Persist::decode`] reading the payload as it goes, from memory or from a file whose
    /// checksum the caller compares afterwards ([`crate::persist::stream`]): the same checks,
    /// in the same order, reading the payload only into the filter's own arrays. The default
    /// reads the whole payload into memory and calls [`Persist::decode`]; every kind of this
    /// crate does better.
    ///
    /// # Errors
    /// As [`Persist::decode`]; [`Error::Io`] from the file.
    fn decode_from(id: &Identity, params: &[u8], payload: &mut Payload<'_>) -> Result<Self> {
        let n = usize::try_from(payload.len()).map_err(|_| Error::Allocation {
            bytes: u128::from(payload.len()),
        })?;
        let mut bytes: Vec<u8> = try_zeroed(n)?;
        payload.read_bytes(&mut bytes)?;
        Self::decode(id, params, &bytes)
    }
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

/// The bit array of `m` bits read from its `⌈m/64⌉` little-endian words (the payload's length
/// was checked by the caller), refusing bits set past `m`.
pub(super) fn read_bits(what: &str, m: u64, payload: &mut Payload<'_>) -> Result<BitVec> {
    let mut words: Vec<u64> = try_zeroed(words_for(m)?)?;
    payload.read_words(&mut words)?;
    bits_from_words(what, m, words)
}

/// A static-set table of `f`-bit slots (8 or 16) filling the whole payload (its length was
/// checked by the caller).
pub(super) fn read_table(f: u32, payload: &mut Payload<'_>) -> Result<Table> {
    let bytes = usize::try_from(payload.remaining()).map_err(|_| Error::Allocation {
        bytes: u128::from(payload.remaining()),
    })?;
    Ok(if f == 16 {
        let mut v: Vec<u16> = try_zeroed(bytes / 2)?;
        payload.read_into(&mut v, 2, |c| u16::from_le_bytes([c[0], c[1]]))?;
        Table::F16(v)
    } else {
        let mut v: Vec<u8> = try_zeroed(bytes)?;
        payload.read_bytes(&mut v)?;
        Table::F8(v)
    })
}

/// The bit array of `m` bits from its `⌈m/64⌉` words (length checked by the caller), refusing
/// bits set past `m`.
pub(super) fn bits_from_words(what: &str, m: u64, words: Vec<u64>) -> Result<BitVec> {
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

/// The construction record every static kind's params end with (xor, binary fuse, ribbon):
/// `seed: u64` (the construction seed that worked), `len: u64` (keys given), `distinct: u64`
/// (distinct key hashes), 24 bytes; and the seeds tried (`attempts: u32`), which each layout
/// stores at its own place before.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) struct StaticBuild {
    pub seed: u64,
    pub len: u64,
    pub distinct: u64,
    pub attempts: u32,
}

impl StaticBuild {
    /// Appends the tail `seed, len, distinct` to the params `p`.
    pub(super) fn write_tail(p: &mut Vec<u8>, seed: u64, len: u64, distinct: u64) {
        for v in [seed, len, distinct] {
            p.extend_from_slice(&v.to_le_bytes());
        }
    }

    /// Reads the tail written by [`StaticBuild::write_tail`], with `attempts` read before.
    pub(super) fn read_tail(r: &mut ParamReader<'_>, attempts: u32) -> Result<Self> {
        Ok(Self {
            seed: r.u64("seed")?,
            len: r.u64("len")?,
            distinct: r.u64("distinct")?,
            attempts,
        })
    }

    /// 1 to `MAX_ATTEMPTS` seeds tried, and a distinct-key count no larger than the keys given
    /// or than the kind's limit `max_keys` (`what` names the kind in the message).
    pub(super) fn check(&self, what: &str, max_keys: u64) -> Result<()> {
        use crate::filters::static_set::MAX_ATTEMPTS;
        use crate::persist::container::corrupt;
        let Self {
            len,
            distinct,
            attempts,
            ..
        } = *self;
        if !(1..=MAX_ATTEMPTS).contains(&attempts) {
            return Err(corrupt(format!(
                "{what} says {attempts} seeds were tried, not 1 to {MAX_ATTEMPTS}"
            )));
        }
        if distinct > max_keys || distinct > len {
            return Err(corrupt(format!(
                "{what} holds {distinct} distinct keys of {len} given (at most {max_keys})"
            )));
        }
        Ok(())
    }
}

/// The checks the fingerprint-table static kinds' params need (xor, binary fuse; `what` names
/// the kind in the message): 8- or 16-bit fingerprints and [`StaticBuild::check`].
pub(super) fn check_static_params(what: &str, f: u32, build: &StaticBuild) -> Result<()> {
    use crate::persist::container::corrupt;
    use crate::theory::xor as model;
    model::check_fingerprint_bits(f)
        .map_err(|_| corrupt(format!("{what} has {f}-bit fingerprints, not 8 or 16")))?;
    build.check(what, model::MAX_KEYS)
}

/// The identity of a file of a kind without an index strategy: its hash and key material.
pub(super) fn plain_identity<H: PersistHasher>(hasher: &H) -> Identity {
    Identity {
        hash: hasher.id(),
        key: hasher.key_material(),
        strategy: None,
    }
}

/// The hasher of a file of a kind without an index strategy (one named is corrupt).
pub(super) fn plain_hasher<H: PersistHasher>(kind: FilterKind, id: &Identity) -> Result<H> {
    no_strategy(kind, id)?;
    H::from_key_material(id.hash, id.key)
}

pub(super) fn strategy_of<S: PersistStrategy>(kind: FilterKind, id: &Identity) -> Result<S> {
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

pub(super) fn reserved_zero(kind: FilterKind, v: u32) -> Result<()> {
    if v == 0 {
        Ok(())
    } else {
        Err(Error::Corrupt(format!(
            "{kind} filter reserved field is {v}, must be 0"
        )))
    }
}
