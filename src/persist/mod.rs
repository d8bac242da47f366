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
//! | 13 | 1 | key mode: `0` = key material stored below, `2` = withheld (the loader must supply it) with a keyed MAC after the payload ([`mac`]); `1` = withheld without a MAC (older files: refused when the key is supplied, [`Error::AuthenticationFailed`]) |
//! | 14 | 2 | reserved, must be 0 |
//! | 16 | 16 | key material `k0`, `k1` (`u64` each): the hash's seed (`k0`) or SipHash key; all zero when withheld |
//! | 32 | 8 | key fingerprint: SipHash-2-4 under `(k0, k1)` of `"bloomlab key fingerprint v1"` |
//! | 40 | 4 | params length P, `u32`, at most [`MAX_PARAMS_LEN`] |
//! | 44 | 8 | payload length L, `u64` |
//! | 52 | P | params (per kind) |
//! | 52+P | L | payload (per kind) |
//! | 52+P+L | 16 | key mode 2 only: the MAC, two SipHash-2-4 tags of bytes `0..52+P+L` under keys derived from the key ([`mac`]) |
//! | 52+P+L(+16) | 8 | checksum: XXH3-64 (seed 0) of every byte before it |
//!
//! The file is exactly `60 + P + L` bytes (`76 + P + L` in key mode 2); anything shorter is
//! truncated, anything longer is refused (trailing bytes mean a length is wrong).
//!
//! **Standard filter** (kind 0): params = `m: u64, k: u32, reserved: u32 = 0, len: u64`
//! (24 bytes); payload = the `⌈m/64⌉` words of the bit array (bit `i` is bit `i % 64` of word
//! `i / 64`), so `L = 8·⌈m/64⌉`, and the bits past `m` in the last word are 0.
//!
//! The other kinds are laid out in the doc comments of their [`Persist`] implementations (one
//! file per kind under `persist/codecs/`); all of them are loadable by
//! [`crate::registry::AnyFilter::from_bytes`]:
//!
//! | kind | code | params (bytes) | payload |
//! |---|---|---|---|
//! | counting | 1 | see `codecs/counting.rs` | packed 4-bit counters |
//! | blocked | 2 | see `codecs/blocked.rs` | 512-bit blocks |
//! | split-block | 3 | see `codecs/split_block.rs` | 256-bit blocks |
//! | scalable | 4 | see `codecs/scalable.rs` | the layers |
//! | cuckoo | 5 | layout 2: `layout: u32 = 2, b: u32, buckets: u64, f: u32, longest_chain: u32, len, rng, kicks, refused: u64` (56); layout 1 (older files, still read): the same without `layout` and `b` (48, b = 4) | `⌈b·f·buckets/64⌉` words |
//! | xor | 6 | `f: u32, attempts: u32, segment_length L: u64, seed: u64, len: u64, distinct: u64` (40) | `3·L` slots of `f/8` bytes, little-endian |
//! | binary-fuse | 7 | `f: u32, attempts: u32, arity: u32 = 3, reserved: u32 = 0, seed: u64, len: u64, distinct: u64` (40) | the slots of [`crate::theory::binary_fuse::layout`]`(3, distinct)`, `f/8` bytes each, little-endian |
//! | ribbon | 8 | layout version 1: `version: u32 = 1, r: u32, attempts: u32, width: u32 = 64, slots m: u64, seed: u64, len: u64, distinct: u64` (48) | the interleaved solution: `m/64 · r` words, little-endian (see `codecs/ribbon.rs`) |
//! | quotient | 9 | `layout: u32 = 1, q: u32, r: u32, reserved: u32 = 0, len: u64, max_load: f64` (32; layout version 1, see `codecs/quotient.rs`) | `3·⌈2^q/64⌉` metadata words, then `⌈2^q·r/64⌉` remainder words |
//!
//! A static-set file (xor, binary fuse, ribbon) is checked against its own sizing rule: the layout must be what
//! `distinct` keys get, `f` 8 or 16 (ribbon: `r` 1 to 32, width 64, version 1), `attempts` 1 to 32, `distinct ≤ len`, the payload exactly
//! the table.
//!
//! Adding a kind means implementing [`Persist`] (its params, its payload, and a decoder that
//! checks them; [`Persist::decode_from`] reads the payload from a [`Payload`], so one decoder
//! serves bytes in memory and a file being read) and one arm in the registry's decode dispatch;
//! the container (`persist/container.rs`: the header, the checksum, the checks on loading), the
//! key policy and the atomic save are shared. Loading a file ([`load`],
//! [`crate::registry::AnyFilter::load`]) decodes it while reading it ([`stream`]): the peak is
//! the filter plus a 64 KiB buffer, not the file and the filter.
//!
//! # Saving
//!
//! [`save`] writes atomically into a regular file ([`atomic`]): the old file stays intact until
//! the new one is complete; a directory, device, FIFO, socket, read-only file or (unless
//! [`SaveOptions::follow_symlinks`]) symbolic link at the path is refused before anything is
//! written; a replaced file keeps its permissions.
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
//! checksum, and a forged payload (bits cleared) with a recomputed checksum loads and answers
//! "absent" for keys the filter holds. A file whose key is withheld (a SipHash key from
//! `--key-file`) is **authenticated** as well: a keyed MAC over header, params and payload
//! ([`mac`]) that only the key's holder can compute, checked on every load that supplies the key
//! ([`Error::AuthenticationFailed`], distinct from [`Error::Corrupt`]: damage fails the checksum
//! first). A file with its key stored in the clear, or loaded without supplying a key, is not
//! authenticated (whoever can write it can rewrite the key too).
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

/// The atomic writer, which lives in [`crate::fsutil`] (the charts and tables use it too).
pub use crate::fsutil as atomic;
mod codecs;
mod container;
pub mod mac;
pub mod stream;
/// Tests: re-seal a modified file with a correct checksum, so the checks behind it are hit.
#[cfg(test)]
pub(crate) fn reseal(b: &mut [u8]) {
    let n = b.len() - 8;
    let sum = xxhash_rust::xxh3::xxh3_64(&b[..n]);
    b[n..].copy_from_slice(&sum.to_le_bytes());
}

/// Tests: `b` with its params bytes at `at` (from the params' start) replaced by `v`, re-sealed,
/// then loaded as `F`.
#[cfg(test)]
pub(crate) fn load_with_params<F: Persist>(b: &[u8], at: usize, v: &[u8]) -> Result<F> {
    let mut b = b.to_vec();
    let start = HEADER_LEN + at;
    b[start..start + v.len()].copy_from_slice(v);
    reseal(&mut b);
    from_bytes(&b, &LoadOptions::new())
}

#[cfg(test)]
mod tests;

pub use crate::fsutil::{
    WriteOptions, check_target, remove_pending_temp_files, same_file, write_atomic_path,
    write_atomic_with,
};
pub use codecs::{ParamReader, Payload, Persist, words_from_le, write_words_le};
// Key material, its fingerprint and rebuilding a hasher or strategy from a file belong to the
// hashes (`crate::hash::key`, `crate::hash::strategy`); re-exported here under their old paths.
pub use crate::hash::{KeyMaterial, PersistHasher, PersistStrategy, key_fingerprint, key_material};
pub use container::{
    CHECKSUM_LEN, FORMAT_VERSION, FileInfo, HEADER_LEN, Identity, KEY_MODE_TAGGED, KeyMode, MAGIC,
    MAX_PARAMS_LEN, NO_STRATEGY, read_info,
};

use crate::error::{Error, Result};
use crate::filter::FilterKind;
use crate::filters::StandardBloom;
use crate::hash::{HashId, StrategyId};
use container::{
    ChecksumWriter, build_header, corrupt, declared_len, identity, resolve_key_mode, verify,
};
use std::io::{self, Read, Write};
use std::path::Path;

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
    /// [`save`] writes through a symbolic link at the path instead of refusing it
    /// ([`WriteOptions::follow_symlinks`]).
    pub follow_symlinks: bool,
}

impl SaveOptions {
    /// Options with this key policy.
    #[must_use]
    pub fn key_policy(mut self, p: KeyPolicy) -> Self {
        self.key_policy = p;
        self
    }
    /// Write through a symbolic link at the path ([`SaveOptions::follow_symlinks`]).
    #[must_use]
    pub fn follow_symlinks(mut self, follow: bool) -> Self {
        self.follow_symlinks = follow;
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

/// Whether saving `f` with `opts` writes a secret key in the clear (then [`save`] makes the
/// file private to its owner).
fn stores_secret<F: Persist>(f: &F, opts: &SaveOptions) -> bool {
    let id = f.identity();
    resolve_key_mode(&id, opts.key_policy) == KeyMode::Stored
        && matches!(id.hash, HashId::Sip13 | HashId::Sip24)
        && id.key != [0, 0]
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
    let tagged = header[13] == KEY_MODE_TAGGED;
    let mut cw = ChecksumWriter {
        inner: w,
        hasher: xxhash_rust::xxh3::Xxh3Default::new(),
        mac: tagged.then(|| mac::Mac::new(f.identity().key)),
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
    if let Some(m) = cw.mac.take() {
        cw.write_all(&m.tag())?;
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
    let total = (HEADER_LEN + CHECKSUM_LEN + mac::MAC_LEN) as u64
        + f.params().len() as u64
        + f.payload_len();
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

/// Write `path` atomically (see [`atomic`] and [`write_atomic_with`], which this calls without
/// following symbolic links): `private` creates the file with mode `0600` on Unix (for files
/// holding a secret key).
///
/// # Errors
/// [`Error::Io`] naming the path.
pub fn write_atomic(
    path: &Path,
    private: bool,
    write: impl FnOnce(&mut dyn Write) -> io::Result<()>,
) -> Result<()> {
    let opts = WriteOptions {
        private,
        follow_symlinks: false,
    };
    write_atomic_with(path, opts, write)
}

/// Save `f` to `path` atomically (see [`write_atomic`]).
///
/// # Errors
/// [`Error::Io`].
pub fn save<F: Persist>(f: &F, path: impl AsRef<Path>, opts: &SaveOptions) -> Result<()> {
    let wo = WriteOptions {
        private: stores_secret(f, opts),
        follow_symlinks: opts.follow_symlinks,
    };
    write_atomic_with(path.as_ref(), wo, |w| write_to(f, w, opts))
}

/// Decode a filter of type `F` from the whole of `bytes`.
///
/// # Errors
/// [`Error::Corrupt`] (what is wrong, in words), [`Error::UnsupportedVersion`],
/// [`Error::Mismatch`] (the file's kind, hash or strategy is not `F`'s or not what `opts` asks
/// for), [`Error::KeyRequired`], [`Error::WrongKey`], [`Error::Allocation`].
pub fn from_bytes<F: Persist>(bytes: &[u8], opts: &LoadOptions) -> Result<F> {
    let p = verify(bytes, opts)?;
    kind_is::<F>(&p.info)?;
    F::decode(&identity(&p), p.params, p.payload)
}

fn kind_is<F: Persist>(info: &FileInfo) -> Result<()> {
    if info.kind == F::KIND {
        Ok(())
    } else {
        Err(Error::Mismatch {
            what: "filter kind",
            found: info.kind.name().to_string(),
            requested: F::KIND.name().to_string(),
        })
    }
}

/// A container whose checksum, ids and key have been verified: what a decoder for its kind
/// needs. [`crate::registry::AnyFilter::from_bytes`] dispatches it to the kind's codec.
#[derive(Debug)]
pub struct Verified<'a> {
    /// The kind the header names.
    pub kind: FilterKind,
    /// Hash, resolved key material and strategy.
    pub identity: Identity,
    /// The kind-specific parameters.
    pub params: &'a [u8],
    /// The payload.
    pub payload: &'a [u8],
}

/// Check the container in `bytes` (magic, version, lengths, checksum, ids, key) without
/// decoding its payload.
///
/// # Errors
/// As [`from_bytes`], less the kind-specific checks.
pub fn open_verified<'a>(bytes: &'a [u8], opts: &LoadOptions) -> Result<Verified<'a>> {
    let p = verify(bytes, opts)?;
    Ok(Verified {
        kind: p.info.kind,
        identity: identity(&p),
        params: p.params,
        payload: p.payload,
    })
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

/// Load a filter of type `F` from `path`, decoding it as it is read ([`stream::load_with`]:
/// the file's bytes are never held next to the filter).
///
/// # Errors
/// [`Error::Io`] and everything [`from_bytes`] returns.
pub fn load<F: Persist>(path: impl AsRef<Path>, opts: &LoadOptions) -> Result<F> {
    stream::load_with(path.as_ref(), opts, |info, id, params, payload| {
        kind_is::<F>(info)?;
        F::decode_from(id, params, payload)
    })
}

/// Read the whole of the file at `path` (as [`read_from`] does: no more than its header declares).
///
/// # Errors
/// [`Error::Io`], and the header errors of [`from_bytes`].
pub fn read_file(path: impl AsRef<Path>) -> Result<Vec<u8>> {
    let path = path.as_ref();
    let mut file = std::fs::File::open(path).map_err(|e| Error::opening(path.display(), &e))?;
    read_from(&mut file, &path.display().to_string())
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
    /// strategy (or any, for [`crate::hash::AnyHasher`] / [`crate::hash::AnyStrategy`]) and pass every check of
    /// [`from_bytes`].
    ///
    /// # Errors
    /// As [`load`].
    pub fn load(path: impl AsRef<Path>, opts: &LoadOptions) -> Result<Self> {
        load(path, opts)
    }
}
