//! Loading a file without holding it twice. [`super::read_file`] then decoding needs the file's
//! bytes and the filter built from them at the same time: a peak of twice the file. For a
//! standard filter (the kind `bloomlab build` writes by default) [`load_file`] reads the bit
//! array straight into the filter's words, 64 KiB at a time, hashing as it goes: the peak is the
//! filter plus that buffer. The checksum is compared before the header is interpreted, as
//! [`super::from_bytes`] does, so a damaged file gets the same errors. Other kinds, and files
//! whose length is not the one the header declares (truncated or with trailing bytes: the
//! ordinary path names what is wrong), are read whole.

use super::container::{
    CHECKSUM_LEN, HEADER_LEN, check_sum, declared_len, expect, le_u64, parse_header,
};
use super::{Identity, LoadOptions, read_from};
use crate::bits::try_zeroed;
use crate::error::{Error, Result};
use crate::filter::FilterKind;
use crate::filters::StandardBloom;
use crate::hash::{AnyHasher, AnyStrategy};
use std::io::{self, Read};
use std::path::Path;

/// What [`load_file`] read.
#[derive(Debug)]
pub enum Loaded {
    /// A standard filter, decoded while it was read.
    Standard(StandardBloom<AnyHasher, AnyStrategy>),
    /// The whole file, for [`crate::registry::AnyFilter::from_bytes`].
    Bytes(Vec<u8>),
}

/// Read the filter file at `path` (see the module docs).
///
/// # Errors
/// [`Error::Io`], and everything [`super::from_bytes`] returns for a standard filter.
pub fn load_file(path: &Path, opts: &LoadOptions) -> Result<Loaded> {
    let name = path.display().to_string();
    let ioe = |e: io::Error| Error::Io {
        path: name.clone(),
        message: e.to_string(),
    };
    let mut file = std::fs::File::open(path).map_err(ioe)?;
    let size = file
        .metadata()
        .ok()
        .filter(std::fs::Metadata::is_file)
        .map(|m| m.len());
    let mut head = Vec::with_capacity(HEADER_LEN);
    (&mut file)
        .take(HEADER_LEN as u64)
        .read_to_end(&mut head)
        .map_err(ioe)?;
    let streamable = head.len() == HEADER_LEN
        && declared_len(&head).ok().is_some_and(|t| Some(t) == size)
        && head[10] == FilterKind::Standard.code()
        && le_u64(&head, 44).is_multiple_of(8);
    if !streamable {
        let total = declared_len(&head).ok().filter(|&t| Some(t) == size);
        let Some(total) = total.and_then(|t| usize::try_from(t).ok()) else {
            // Truncated, trailing bytes or not a file: the buffer grows only as bytes arrive.
            return read_from(&mut (&head[..]).chain(file), &name).map(Loaded::Bytes);
        };
        // The length is right: one allocation of exactly the file (no growth doubling it).
        let mut all = Vec::new();
        all.try_reserve_exact(total)
            .map_err(|_| Error::Allocation {
                bytes: total as u128,
            })?;
        all.extend_from_slice(&head);
        file.take((total - head.len()) as u64 + 1)
            .read_to_end(&mut all)
            .map_err(ioe)?;
        return Ok(Loaded::Bytes(all));
    }
    let params_len = u32::from_le_bytes([head[40], head[41], head[42], head[43]]) as usize;
    let payload_len = le_u64(&head, 44);
    let mut hasher = xxhash_rust::xxh3::Xxh3Default::new();
    let mut params = vec![0u8; params_len];
    file.read_exact(&mut params).map_err(ioe)?;
    hasher.update(&head);
    hasher.update(&params);
    let words_len = usize::try_from(payload_len / 8).map_err(|_| Error::Allocation {
        bytes: u128::from(payload_len),
    })?;
    let mut words: Vec<u64> = try_zeroed(words_len)?;
    let mut buf = vec![0u8; 64 * 1024];
    for chunk in words.chunks_mut(buf.len() / 8) {
        let bytes = &mut buf[..chunk.len() * 8];
        file.read_exact(bytes).map_err(ioe)?;
        hasher.update(bytes);
        for (w, b) in chunk.iter_mut().zip(bytes.chunks_exact(8)) {
            *w = le_u64(b, 0);
        }
    }
    let mut sum = [0u8; CHECKSUM_LEN];
    file.read_exact(&mut sum).map_err(ioe)?;
    if file.read(&mut [0u8; 1]).map_err(ioe)? != 0 {
        return Err(Error::Corrupt(
            "trailing bytes after the checksum (the file grew while it was read)".into(),
        ));
    }
    check_sum(u64::from_le_bytes(sum), hasher.digest())?;
    let (info, stored_key) = parse_header(&head)?;
    let key = expect(&info, stored_key, opts)?;
    let id = Identity {
        hash: info.hash,
        key,
        strategy: info.strategy,
    };
    let f = super::codecs::StandardParams::<AnyHasher, AnyStrategy>::check(&id, &params)?
        .with_words(words)?;
    Ok(Loaded::Standard(f))
}
