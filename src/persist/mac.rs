//! The keyed MAC of a file whose key is withheld (key mode 2).
//!
//! The trailing XXH3 checksum detects accidents, not tampering: XXH3 has no key, so whoever can
//! write a file can recompute it, and a forged payload (bits cleared, fingerprints replaced)
//! then loads and answers "absent" for keys the filter holds. When the hash key is withheld
//! (`--key-file`: the file stores only the key's fingerprint), the writer has a secret the
//! forger lacks, so the file also carries a tag over its header, params and payload that only
//! the key's holder can compute, verified on loading whenever the key is supplied.
//!
//! The tag is two SipHash-2-4 outputs (128 bits) under two keys derived from the file's key
//! material `(k0, k1)`: `K_a = (S(a0), S(a1))`, `K_b = (S(b0), S(b1))` with `S(x)` SipHash-2-4
//! under `(k0, k1)` of the domain string `x` ([`DOMAINS`]). SipHash-2-4 is a pseudo-random
//! function for inputs of any length (Aumasson and Bernstein, "SipHash: a fast short-input PRF",
//! INDOCRYPT 2012, §2 and §6: designed as a MAC, 128-bit key, 64-bit tag), so each half is a MAC
//! on its own; two halves under independent keys give a 128-bit tag. The derived keys separate
//! the MAC from the item hash (the same key material hashes items) and from the key fingerprint
//! stored in the clear (another domain string). No new dependency: `siphasher` is already the
//! crate's SipHash. The tag is as secret as the key: a 128-bit SipHash key from a key file is a
//! real secret, a withheld 64-bit seed of a non-keyed hash is not (see the module docs of
//! [`crate::persist`]).

use crate::error::{Error, Result};
use crate::hash::KeyMaterial;
use siphasher::sip::SipHasher24;
use std::hash::Hasher;
use std::io::{self, Read};

/// Bytes of the tag, after the payload and before the checksum.
pub const MAC_LEN: usize = 16;

/// The domain strings of the two derived keys (two words each).
pub const DOMAINS: [&[u8]; 4] = [
    b"bloomlab file mac v1 a0",
    b"bloomlab file mac v1 a1",
    b"bloomlab file mac v1 b0",
    b"bloomlab file mac v1 b1",
];

/// A MAC being computed over the bytes fed to it, in order (chunking does not matter:
/// `SipHasher24::write` appends bytes to one stream).
#[derive(Clone)]
pub struct Mac {
    a: SipHasher24,
    b: SipHasher24,
}

impl std::fmt::Debug for Mac {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Mac(<keyed>)")
    }
}

impl Mac {
    /// A MAC keyed from the file's key material.
    #[must_use]
    pub fn new(key: KeyMaterial) -> Self {
        let derive = |d: &[u8]| {
            let mut h = SipHasher24::new_with_keys(key[0], key[1]);
            h.write(d);
            h.finish()
        };
        let [a0, a1, b0, b1] = DOMAINS.map(derive);
        Self {
            a: SipHasher24::new_with_keys(a0, a1),
            b: SipHasher24::new_with_keys(b0, b1),
        }
    }

    /// Feed bytes.
    pub fn update(&mut self, bytes: &[u8]) {
        self.a.write(bytes);
        self.b.write(bytes);
    }

    /// The tag of everything fed so far.
    #[must_use]
    pub fn tag(&self) -> [u8; MAC_LEN] {
        let mut t = [0u8; MAC_LEN];
        t[..8].copy_from_slice(&self.a.finish().to_le_bytes());
        t[8..].copy_from_slice(&self.b.finish().to_le_bytes());
        t
    }
}

/// The tag of `bytes` under `key`.
#[must_use]
pub fn tag(key: KeyMaterial, bytes: &[u8]) -> [u8; MAC_LEN] {
    let mut m = Mac::new(key);
    m.update(bytes);
    m.tag()
}

/// Compare a stored tag with the computed one (every byte, whatever the first difference).
///
/// # Errors
/// [`Error::AuthenticationFailed`] when they differ.
pub fn check(stored: &[u8], computed: &[u8; MAC_LEN]) -> Result<()> {
    let diff = stored
        .iter()
        .zip(computed)
        .fold(u8::from(stored.len() != MAC_LEN), |acc, (a, b)| {
            acc | (a ^ b)
        });
    if diff == 0 {
        Ok(())
    } else {
        Err(Error::AuthenticationFailed(
            "the file's MAC does not match its contents under the supplied key: the header, \
             params or payload were changed after it was written (its checksum is consistent, \
             so this is not accidental damage)"
                .into(),
        ))
    }
}

/// The refusal of a withheld-key file without a tag (key mode 1: written before tags existed,
/// or a tagged file whose tag was stripped and mode rewritten, which looks the same).
#[must_use]
pub fn untagged() -> Error {
    Error::AuthenticationFailed(
        "the file withholds its key but carries no MAC (key mode 1: written by an older \
         bloomlab, or its MAC was stripped): its contents cannot be authenticated; rebuild it \
         with --key-file"
            .into(),
    )
}

/// A reader that feeds every byte it reads to a [`Mac`].
pub(super) struct MacReader<'a> {
    pub(super) inner: &'a mut dyn Read,
    pub(super) mac: Option<&'a mut Mac>,
}

impl Read for MacReader<'_> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        let n = self.inner.read(buf)?;
        if let Some(m) = self.mac.as_deref_mut() {
            m.update(&buf[..n]);
        }
        Ok(n)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn chunking_does_not_change_the_tag() {
        let data: Vec<u8> = (0..10_000u32).map(|i| (i * 31 % 251) as u8).collect();
        let whole = tag([1, 2], &data);
        let mut m = Mac::new([1, 2]);
        for c in data.chunks(7) {
            m.update(c);
        }
        assert_eq!(m.tag(), whole);
        let mut read = Vec::new();
        let mut m2 = Mac::new([1, 2]);
        MacReader {
            inner: &mut &data[..],
            mac: Some(&mut m2),
        }
        .read_to_end(&mut read)
        .unwrap();
        assert_eq!((read, m2.tag()), (data, whole));
    }

    #[test]
    fn the_tag_depends_on_key_and_every_byte() {
        let data = b"header params payload".to_vec();
        let t = tag([1, 2], &data);
        assert_ne!(t, tag([1, 3], &data), "key");
        assert_ne!(t, tag([3, 2], &data), "key");
        for i in 0..data.len() {
            let mut d = data.clone();
            d[i] ^= 1;
            assert_ne!(t, tag([1, 2], &d), "byte {i}");
        }
        // The halves are different functions (two derived keys), not one repeated.
        assert_ne!(t[..8], t[8..]);
        assert!(check(&t, &t).is_ok());
        let mut bad = t;
        bad[15] ^= 0x80;
        assert!(matches!(
            check(&bad, &t),
            Err(Error::AuthenticationFailed(_))
        ));
        assert!(check(&t[..8], &t).is_err(), "a short tag");
    }
}
