//! The container every filter kind shares: the fixed header (layout in the [module
//! documentation](super)), the keyed MAC of a withheld-key file ([`super::mac`]), the trailing
//! XXH3 checksum, and the checks a file passes before any kind-specific decoding: magic,
//! version, lengths, checksum, ids, key, MAC.

use super::mac::{self, MAC_LEN, Mac};
use super::{KeyPolicy, LoadOptions, Persist, SaveOptions};
use crate::error::{Error, Result};
use crate::filter::FilterKind;
use crate::hash::{HashId, StrategyId};
use crate::hash::{KeyMaterial, key_fingerprint, key_material};
use std::io::{self, Write};

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
/// The key-mode byte of a withheld key with a keyed MAC after the payload (every withheld-key
/// file this build writes); `1` is a withheld key without one (older files, refused when the
/// key is supplied: [`mac::untagged`]).
pub const KEY_MODE_TAGGED: u8 = 2;
/// The strategy byte of a kind without an index strategy.
pub const NO_STRATEGY: u8 = 0xFF;

/// How a file records the hash key.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum KeyMode {
    /// The key material is in the file.
    Stored,
    /// Only the key's fingerprint is in the file; the loader must supply the key.
    Withheld,
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
    /// Whether a keyed MAC follows the payload (key mode 2, [`super::mac`]).
    pub tagged: bool,
    /// Params bytes.
    pub params_len: u32,
    /// Payload bytes.
    pub payload_len: u64,
}

pub(super) fn resolve_key_mode(id: &Identity, policy: KeyPolicy) -> KeyMode {
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

/// A writer that hashes everything written through it (and MACs it, for a tagged file).
pub(super) struct ChecksumWriter<'a> {
    pub(super) inner: &'a mut dyn Write,
    pub(super) hasher: xxhash_rust::xxh3::Xxh3Default,
    pub(super) mac: Option<Mac>,
    pub(super) written: u64,
}

impl Write for ChecksumWriter<'_> {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        let n = self.inner.write(buf)?;
        self.hasher.update(&buf[..n]);
        if let Some(m) = &mut self.mac {
            m.update(&buf[..n]);
        }
        self.written += n as u64;
        Ok(n)
    }
    fn flush(&mut self) -> io::Result<()> {
        self.inner.flush()
    }
}

pub(super) fn build_header<F: Persist>(
    f: &F,
    opts: &SaveOptions,
    params_len: u32,
) -> [u8; HEADER_LEN] {
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
        KeyMode::Withheld => KEY_MODE_TAGGED,
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

pub(super) fn corrupt(msg: impl Into<String>) -> Error {
    Error::Corrupt(msg.into())
}

pub(super) fn le_u64(b: &[u8], at: usize) -> u64 {
    let mut a = [0u8; 8];
    a.copy_from_slice(&b[at..at + 8]);
    u64::from_le_bytes(a)
}

/// The total file length the header declares, after checking magic and version.
pub(super) fn declared_len(head: &[u8]) -> Result<u64> {
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
            "not a bloomlab filter file (wrong magic bytes; a Guava filter: `bloomlab query --format guava`, or bloomlab::guava::load_guava)",
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
    let tag = if head[13] == KEY_MODE_TAGGED {
        MAC_LEN as u64
    } else {
        0
    };
    (HEADER_LEN as u64 + CHECKSUM_LEN as u64 + tag + u64::from(params_len))
        .checked_add(payload_len)
        .ok_or_else(|| corrupt(format!("payload length {payload_len} is impossibly large")))
}

/// A container split into its parts.
pub(super) struct Parts<'a> {
    pub(super) info: FileInfo,
    /// The key material as stored (zero when withheld) or, after [`verify`], as resolved.
    pub(super) key: KeyMaterial,
    pub(super) params: &'a [u8],
    pub(super) payload: &'a [u8],
    /// Header, params and payload: what the MAC covers.
    pub(super) body: &'a [u8],
    /// The stored MAC (empty for an untagged file).
    pub(super) tag: &'a [u8],
}

/// Split and verify the container: magic, version, lengths, checksum, ids (not the MAC: that
/// needs the key, [`verify`]).
pub(super) fn open(bytes: &[u8]) -> Result<Parts<'_>> {
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
    check_sum(stored, computed)?;
    let (info, key) = parse_header(bytes)?;
    let p_end = HEADER_LEN + info.params_len as usize;
    let tag_len = if info.tagged { MAC_LEN } else { 0 };
    let payload_end = body_len - tag_len;
    Ok(Parts {
        info,
        key,
        params: &bytes[HEADER_LEN..p_end],
        payload: &bytes[p_end..payload_end],
        body: &bytes[..payload_end],
        tag: &bytes[payload_end..body_len],
    })
}

pub(super) fn check_sum(stored: u64, computed: u64) -> Result<()> {
    if stored == computed {
        Ok(())
    } else {
        Err(corrupt(format!(
            "checksum mismatch (stored {stored:016x}, computed {computed:016x}): the file is damaged"
        )))
    }
}

/// The ids, key mode and lengths of a header whose checksum has been verified (`bytes` holds at
/// least the [`HEADER_LEN`] header bytes).
pub(super) fn parse_header(bytes: &[u8]) -> Result<(FileInfo, KeyMaterial)> {
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
        1 | KEY_MODE_TAGGED => KeyMode::Withheld,
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
    let info = FileInfo {
        version: u16::from_le_bytes([bytes[8], bytes[9]]),
        kind,
        hash,
        strategy,
        key_mode,
        key_fingerprint,
        tagged: bytes[13] == KEY_MODE_TAGGED,
        params_len,
        payload_len,
    };
    Ok((info, key))
}

/// The header of an encoded filter, fully verified (checksum included) but not decoded, and
/// readable without its key.
///
/// # Errors
/// As [`from_bytes`](super::from_bytes), except for key and kind-specific checks.
pub fn read_info(bytes: &[u8]) -> Result<FileInfo> {
    open(bytes).map(|p| p.info)
}

/// Verify the container against what the caller expects, resolve the key, check the MAC of a
/// tagged file.
pub(super) fn verify<'a>(bytes: &'a [u8], opts: &LoadOptions) -> Result<Parts<'a>> {
    let p = open(bytes)?;
    let key = expect(&p.info, p.key, opts)?;
    if p.info.tagged {
        mac::check(p.tag, &mac::tag(key, p.body))?;
    }
    Ok(Parts { key, ..p })
}

/// Check a verified header against what the caller expects; the resolved key material.
pub(super) fn expect(
    info: &FileInfo,
    stored_key: KeyMaterial,
    opts: &LoadOptions,
) -> Result<KeyMaterial> {
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
            if !info.tagged {
                return Err(mac::untagged());
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
    Ok(key)
}

pub(super) fn identity(p: &Parts<'_>) -> Identity {
    Identity {
        hash: p.info.hash,
        key: p.key,
        strategy: p.info.strategy,
    }
}
