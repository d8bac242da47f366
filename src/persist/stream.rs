//! Loading a file without holding it twice. [`super::read_file`] then decoding needs the file's
//! bytes and the filter built from them at the same time: a peak of twice the file.
//! [`load_with`] instead reads the header and params (small), then hands the rest of the file to
//! the kind's decoder as a [`Payload`] that reads it 64 KiB at a time straight into the filter's
//! own arrays (bit words, counters, blocks, cuckoo table, fingerprints, every scalable layer),
//! hashing as it goes: the peak is the filter plus that buffer.
//!
//! The in-memory path ([`super::from_bytes`]) compares the checksum before it interprets
//! anything; here the header is interpreted first, so every outcome waits for the checksum: on
//! success and on any error alike, the rest of the payload is read (and hashed), the stored
//! checksum compared, and a mismatch reported in place of whatever the decoder said. A file
//! with the right checksum reaches the same checks in the same order as in memory, so every
//! file gets the same error (tested on every bit flip and truncation in `tests/validation.rs`).
//! Allocation stays bounded by the file: the declared lengths are checked against the file's
//! size before any params are read, and each decoder allocates only what its payload length
//! justifies. Files whose length is not the one the header declares (truncated or with
//! trailing bytes, or not a regular file) take the ordinary path, which names what is wrong.

use super::codecs::Payload;
use super::container::{
    CHECKSUM_LEN, FileInfo, HEADER_LEN, KEY_MODE_TAGGED, check_sum, corrupt, declared_len, expect,
    identity, le_u64, parse_header, verify,
};
use super::mac::{self, MAC_LEN, Mac, MacReader};
use super::{Identity, LoadOptions, read_from};
use crate::error::{Error, Result};
use std::io::{self, Read};
use std::path::Path;

/// Read the filter file at `path` and decode it with `decode`, given the verified header, the
/// resolved identity, the params and the payload (see the module docs).
///
/// # Errors
/// [`Error::Io`], everything [`super::from_bytes`] returns, and whatever `decode` returns.
pub fn load_with<T>(
    path: &Path,
    opts: &LoadOptions,
    decode: impl FnOnce(&FileInfo, &Identity, &[u8], &mut Payload<'_>) -> Result<T>,
) -> Result<T> {
    let name = path.display().to_string();
    let ioe = |e: io::Error| Error::Io {
        path: name.clone(),
        message: e.to_string(),
    };
    let mut file = std::fs::File::open(path).map_err(|e| Error::opening(&name, &e))?;
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
    if declared_len(&head).ok().is_none_or(|t| Some(t) != size) {
        // Truncated, trailing bytes or not a file: the buffer grows only as bytes arrive, and
        // the in-memory checks name what is wrong.
        let bytes = read_from(&mut (&head[..]).chain(file), &name)?;
        let p = verify(&bytes, opts)?;
        return decode(
            &p.info,
            &identity(&p),
            p.params,
            &mut Payload::from_slice(p.payload),
        );
    }
    let params_len = u32::from_le_bytes([head[40], head[41], head[42], head[43]]) as usize;
    let payload_len = le_u64(&head, 44);
    let mut hasher = xxhash_rust::xxh3::Xxh3Default::new();
    let mut params = vec![0u8; params_len];
    file.read_exact(&mut params).map_err(ioe)?;
    hasher.update(&head);
    hasher.update(&params);
    // A tagged file loaded with a key: the MAC over header, params and payload, computed as the
    // payload is read (checked after the checksum, below). Without a key, `expect` refuses.
    let tagged = head[13] == KEY_MODE_TAGGED;
    let mut mac = opts
        .key
        .filter(|_| tagged)
        .map(|k| Mac::new(crate::hash::key_material(&k)));
    if let Some(m) = &mut mac {
        m.update(&head);
        m.update(&params);
    }
    let mut reader = MacReader {
        inner: &mut file,
        mac: mac.as_mut(),
    };
    let mut payload = Payload::from_reader(&mut reader, &mut hasher, &name, payload_len);
    let expected = parse_header(&head)
        .and_then(|(info, stored_key)| Ok((info, expect(&info, stored_key, opts)?)));
    let decoded = match &expected {
        Ok((info, key)) => {
            let id = Identity {
                hash: info.hash,
                key: *key,
                strategy: info.strategy,
            };
            decode(info, &id, &params, &mut payload)
        }
        Err(_) => Err(corrupt("not decoded")),
    };
    let unread = payload.remaining();
    payload.drain()?;
    drop(payload);
    let mut tag = [0u8; MAC_LEN];
    if tagged {
        file.read_exact(&mut tag).map_err(ioe)?;
        hasher.update(&tag);
    }
    let mut sum = [0u8; CHECKSUM_LEN];
    file.read_exact(&mut sum).map_err(ioe)?;
    if file.read(&mut [0u8; 1]).map_err(ioe)? != 0 {
        return Err(corrupt(
            "trailing bytes after the checksum (the file grew while it was read)",
        ));
    }
    check_sum(u64::from_le_bytes(sum), hasher.digest())?;
    // In the in-memory order: the header's checks and the key, then the MAC, then whatever the
    // (possibly forged) contents made the decoder say.
    expected?;
    if let Some(m) = &mac {
        mac::check(&tag, &m.tag())?;
    }
    let value = decoded?;
    if unread != 0 {
        return Err(corrupt(format!(
            "the decoder left {unread} of {payload_len} payload bytes unread"
        )));
    }
    Ok(value)
}
