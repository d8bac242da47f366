//! The payload as a decoder reads it: either bytes already in memory or a file being read. A
//! decoder checks its parameters against [`Payload::len`], allocates the filter's own arrays,
//! and fills them from the payload in order; reading from a file goes through a 64 KiB buffer
//! and feeds every byte to the checksum, so the file's bytes are never held next to the filter
//! ([`crate::persist::stream`] compares the checksum once the payload has been read).

use crate::error::{Error, Result};
use crate::persist::container::corrupt;
use std::io::Read;
use xxhash_rust::xxh3::Xxh3Default;

/// Bytes read from a file at a time.
const CHUNK: usize = 64 * 1024;

/// The payload of a verified (in memory) or being-verified (streamed) container.
pub struct Payload<'a> {
    src: Source<'a>,
    len: u64,
    left: u64,
}

enum Source<'a> {
    Bytes(&'a [u8]),
    Stream {
        r: &'a mut dyn Read,
        hasher: &'a mut Xxh3Default,
        name: &'a str,
        buf: Vec<u8>,
    },
}

impl std::fmt::Debug for Payload<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Payload")
            .field("len", &self.len)
            .field("left", &self.left)
            .finish_non_exhaustive()
    }
}

impl<'a> Payload<'a> {
    /// A payload held in memory.
    #[must_use]
    pub fn from_slice(bytes: &'a [u8]) -> Self {
        Self {
            src: Source::Bytes(bytes),
            len: bytes.len() as u64,
            left: bytes.len() as u64,
        }
    }

    /// The next `len` bytes of `r`, each fed to `hasher` as it is read (`name` names the file in
    /// i/o errors).
    pub(crate) fn from_reader(
        r: &'a mut dyn Read,
        hasher: &'a mut Xxh3Default,
        name: &'a str,
        len: u64,
    ) -> Self {
        Self {
            src: Source::Stream {
                r,
                hasher,
                name,
                buf: Vec::new(),
            },
            len,
            left: len,
        }
    }

    /// The payload's length in bytes (all of it, read or not).
    #[must_use]
    pub fn len(&self) -> u64 {
        self.len
    }

    /// True for an empty payload.
    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// Bytes not read yet.
    #[must_use]
    pub fn remaining(&self) -> u64 {
        self.left
    }

    fn take(&mut self, need: u64) -> Result<()> {
        if need > self.left {
            return Err(corrupt(format!(
                "payload of {} bytes ends before the {need} bytes the decoder reads next",
                self.len
            )));
        }
        self.left -= need;
        Ok(())
    }

    /// Fill `dst` from the next `dst.len() · size` bytes, element `i` decoded by `decode` from
    /// its `size` bytes (`size` from 1 to 64).
    ///
    /// # Errors
    /// [`Error::Corrupt`] when the payload is shorter (a decoder checks the length first, so
    /// this is a bug guard); [`Error::Io`] from the file.
    pub fn read_into<T>(
        &mut self,
        dst: &mut [T],
        size: usize,
        decode: impl Fn(&[u8]) -> T,
    ) -> Result<()> {
        assert!((1..=64).contains(&size), "element size {size}");
        self.take(dst.len() as u64 * size as u64)?;
        match &mut self.src {
            Source::Bytes(b) => {
                let (head, rest) = b.split_at(dst.len() * size);
                for (d, c) in dst.iter_mut().zip(head.chunks_exact(size)) {
                    *d = decode(c);
                }
                *b = rest;
            }
            Source::Stream {
                r,
                hasher,
                name,
                buf,
            } => {
                buf.resize(CHUNK, 0);
                for part in dst.chunks_mut(CHUNK / size) {
                    let bytes = &mut buf[..part.len() * size];
                    r.read_exact(bytes).map_err(|e| io_error(name, &e))?;
                    hasher.update(bytes);
                    for (d, c) in part.iter_mut().zip(bytes.chunks_exact(size)) {
                        *d = decode(c);
                    }
                }
            }
        }
        Ok(())
    }

    /// Fill `dst` with the next `8 · dst.len()` bytes as little-endian words.
    ///
    /// # Errors
    /// As [`Payload::read_into`].
    pub fn read_words(&mut self, dst: &mut [u64]) -> Result<()> {
        self.read_into(dst, 8, |c| {
            u64::from_le_bytes([c[0], c[1], c[2], c[3], c[4], c[5], c[6], c[7]])
        })
    }

    /// Fill `dst` with the next `dst.len()` bytes (read from a file straight into `dst`).
    ///
    /// # Errors
    /// As [`Payload::read_into`].
    pub fn read_bytes(&mut self, dst: &mut [u8]) -> Result<()> {
        self.take(dst.len() as u64)?;
        match &mut self.src {
            Source::Bytes(b) => {
                let (head, rest) = b.split_at(dst.len());
                dst.copy_from_slice(head);
                *b = rest;
            }
            Source::Stream {
                r, hasher, name, ..
            } => {
                for part in dst.chunks_mut(CHUNK) {
                    r.read_exact(part).map_err(|e| io_error(name, &e))?;
                    hasher.update(part);
                }
            }
        }
        Ok(())
    }

    /// Read (and hash) whatever the decoder left unread, a buffer at a time: after a decoder's
    /// error, the checksum still covers the whole file.
    pub(crate) fn drain(&mut self) -> Result<()> {
        let mut scratch = [0u8; 4096];
        while self.left > 0 {
            let n = self.left.min(scratch.len() as u64) as usize;
            self.read_bytes(&mut scratch[..n])?;
        }
        Ok(())
    }
}

fn io_error(name: &str, e: &std::io::Error) -> Error {
    Error::Io {
        path: name.to_string(),
        message: e.to_string(),
    }
}
