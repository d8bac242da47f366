//! Seeded key generators with absent keys disjoint from inserted ones **by construction**.
//!
//! Key number `i` is produced from a bijection of `i` (so different numbers give different keys).
//! Inserted keys use numbers `0..n`, absent keys numbers from [`ABSENT_BASE`] on, so no absent
//! key can equal an inserted one, whatever the seed; no rejection sampling, no luck involved.

use crate::error::{Error, Result};
use crate::hash::mix64;
use std::fmt;
use std::str::FromStr;

/// First key number used for absent keys (2³⁹ ≈ 5.5·10¹¹: more inserted keys than that are refused).
pub const ABSENT_BASE: u64 = 1 << 39;

/// The kinds of keys (public names `u64`, `seq`, `string`, `email`, `url`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "kebab-case")]
#[non_exhaustive]
pub enum KeyKind {
    /// Uniformly scattered 64-bit integers (8 bytes, little-endian).
    U64,
    /// Sequential integers `seed, seed+1, …` (8 bytes, little-endian): what auto-increment ids look
    /// like, and what exposes weak hashes.
    Seq,
    /// Random-looking alphanumeric identifiers of 12–20 characters.
    String,
    /// E-mail addresses like `ana.silva4821930@example.org`.
    Email,
    /// URLs like `https://news.example.com/2024/07/sports/article-88314`.
    Url,
}

impl KeyKind {
    /// Every key kind.
    pub const ALL: [KeyKind; 5] = [
        KeyKind::U64,
        KeyKind::Seq,
        KeyKind::String,
        KeyKind::Email,
        KeyKind::Url,
    ];

    /// The public name.
    #[must_use]
    pub fn name(self) -> &'static str {
        match self {
            KeyKind::U64 => "u64",
            KeyKind::Seq => "seq",
            KeyKind::String => "string",
            KeyKind::Email => "email",
            KeyKind::Url => "url",
        }
    }
}

impl fmt::Display for KeyKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl FromStr for KeyKind {
    type Err = Error;
    fn from_str(s: &str) -> Result<Self> {
        Self::ALL
            .iter()
            .copied()
            .find(|k| k.name().eq_ignore_ascii_case(s))
            .ok_or_else(|| Error::unknown("key kind", s, &Self::ALL.map(KeyKind::name)))
    }
}

const FIRST: [&str; 16] = [
    "ana", "li", "wei", "maria", "john", "fatima", "chen", "olga", "raj", "sara", "yuki", "omar",
    "lena", "ivan", "mei", "paul",
];
const LAST: [&str; 16] = [
    "silva", "wang", "zhang", "smith", "garcia", "kim", "muller", "rossi", "khan", "ivanova",
    "tanaka", "nguyen", "brown", "lopez", "chen", "novak",
];
const DOMAINS: [&str; 8] = [
    "example.org",
    "mail.example.com",
    "corp.example",
    "example.net",
    "school.example.edu",
    "shop.example",
    "example.cn",
    "post.example.de",
];
const SECTIONS: [&str; 8] = [
    "sports", "tech", "world", "food", "travel", "science", "money", "arts",
];

/// A 40-bit bijection (4-round Feistel network on two 20-bit halves keyed by the seed).
fn permute40(i: u64, seed: u64) -> u64 {
    const HALF: u64 = (1 << 20) - 1;
    let (mut l, mut r) = ((i >> 20) & HALF, i & HALF);
    for round in 0..4u64 {
        let f = mix64(r ^ seed.wrapping_add(round.wrapping_mul(0x9e37_79b9_7f4a_7c15))) & HALF;
        (l, r) = (r, l ^ f);
    }
    (l << 20) | r
}

/// Generates keys of one kind from a seed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct KeyGen {
    kind: KeyKind,
    seed: u64,
}

impl KeyGen {
    /// A generator.
    #[must_use]
    pub fn new(kind: KeyKind, seed: u64) -> Self {
        Self { kind, seed }
    }

    /// The key kind.
    #[must_use]
    pub fn kind(&self) -> KeyKind {
        self.kind
    }

    /// Check that `n` inserted keys can be generated disjoint from the absent ones.
    ///
    /// # Errors
    /// When `n` exceeds [`ABSENT_BASE`].
    pub fn check_n(n: u64) -> Result<()> {
        if n > ABSENT_BASE {
            return Err(Error::invalid(
                crate::error::Param::N,
                n,
                format!("at most {ABSENT_BASE} keys"),
            ));
        }
        Ok(())
    }

    /// Write inserted key number `i` (`i < ABSENT_BASE`) into `buf` (cleared first).
    pub fn present(&self, i: u64, buf: &mut Vec<u8>) {
        self.key(i, buf);
    }

    /// Write absent key number `j` into `buf` (cleared first). Never equal to any present key.
    pub fn absent(&self, j: u64, buf: &mut Vec<u8>) {
        self.key(ABSENT_BASE + j, buf);
    }

    /// Inserted key number `i` as an owned value.
    #[must_use]
    pub fn present_key(&self, i: u64) -> Vec<u8> {
        let mut b = Vec::new();
        self.present(i, &mut b);
        b
    }

    /// Absent key number `j` as an owned value.
    #[must_use]
    pub fn absent_key(&self, j: u64) -> Vec<u8> {
        let mut b = Vec::new();
        self.absent(j, &mut b);
        b
    }

    /// Key number `x` (any number below 2⁴⁰).
    fn key(&self, x: u64, buf: &mut Vec<u8>) {
        use std::io::Write;
        buf.clear();
        match self.kind {
            KeyKind::U64 => {
                // mix64 is a bijection on u64, so distinct x give distinct keys.
                buf.extend_from_slice(&mix64(x ^ mix64(self.seed)).to_le_bytes());
            }
            KeyKind::Seq => buf.extend_from_slice(&self.seed.wrapping_add(x).to_le_bytes()),
            KeyKind::String => {
                // Base-36 of a 40-bit bijection of x, after a seed-chosen prefix: injective in x.
                let v = permute40(x, self.seed);
                let extra = (mix64(v ^ self.seed) % 9) as usize;
                let alphabet = b"abcdefghijklmnopqrstuvwxyz0123456789";
                let mut h = mix64(v.wrapping_add(self.seed));
                for _ in 0..extra {
                    buf.push(alphabet[(h % 26) as usize]);
                    h /= 26;
                }
                buf.push(b'-');
                let mut digits = [0u8; 8];
                let mut w = v;
                for d in digits.iter_mut().rev() {
                    *d = alphabet[(w % 36) as usize];
                    w /= 36;
                }
                buf.extend_from_slice(&digits);
            }
            KeyKind::Email => {
                let v = permute40(x, self.seed);
                let h = mix64(v ^ self.seed);
                // letters, then the decimal of v (digits only): the number alone identifies x.
                let _ = write!(
                    buf,
                    "{}.{}{}@{}",
                    FIRST[(h & 15) as usize],
                    LAST[((h >> 4) & 15) as usize],
                    v,
                    DOMAINS[((h >> 8) & 7) as usize]
                );
            }
            KeyKind::Url => {
                let v = permute40(x, self.seed);
                let h = mix64(v ^ self.seed);
                let _ = write!(
                    buf,
                    "https://{}/{}/{:02}/{}/article-{}",
                    DOMAINS[((h >> 8) & 7) as usize],
                    2015 + (h >> 16) % 10,
                    1 + (h >> 24) % 12,
                    SECTIONS[((h >> 32) & 7) as usize],
                    v
                );
            }
        }
    }
}

/// A batch of generated keys stored flat (one buffer plus end offsets), so that keys can be made
/// outside a timed loop and then fed to a filter without an allocation per key.
#[derive(Debug, Default, Clone)]
pub struct KeyChunk {
    data: Vec<u8>,
    ends: Vec<usize>,
}

impl KeyChunk {
    /// Replace the contents with key numbers `from..to`: absent keys when `absent`, else present ones.
    ///
    /// # Panics
    /// When memory for the keys cannot be allocated: for a batch whose size the caller does not
    /// bound, use [`KeyChunk::try_fill`].
    pub fn fill(&mut self, keygen: &KeyGen, from: u64, to: u64, absent: bool) {
        if let Err(e) = self.try_fill(keygen, from, to, absent) {
            panic!("{e}");
        }
    }

    /// [`KeyChunk::fill`] that reports a failed allocation instead of aborting: the whole key
    /// set of a static build (10⁹ keys are about 30 GB here) is one batch.
    ///
    /// # Errors
    /// [`Error::Allocation`] with the bytes that could not be had; the chunk is then empty.
    pub fn try_fill(&mut self, keygen: &KeyGen, from: u64, to: u64, absent: bool) -> Result<()> {
        self.data.clear();
        self.ends.clear();
        let count = to.saturating_sub(from);
        let too_big = |bytes: u128| Error::Allocation { bytes };
        let want = usize::try_from(count).map_err(|_| too_big(u128::from(count) * 8))?;
        self.ends
            .try_reserve_exact(want)
            .map_err(|_| too_big(u128::from(count) * 8))?;
        let mut buf = Vec::with_capacity(64);
        for i in from..to {
            if absent {
                keygen.absent(i, &mut buf);
            } else {
                keygen.present(i, &mut buf);
            }
            if self.data.capacity() - self.data.len() < buf.len() {
                // Doubling, as `extend_from_slice` would, but asking first.
                let more = self.data.capacity().max(buf.len());
                if self.data.try_reserve(more).is_err() {
                    let bytes = (self.data.len() + more) as u128;
                    self.data = Vec::new();
                    self.ends.clear();
                    return Err(too_big(bytes));
                }
            }
            self.data.extend_from_slice(&buf);
            self.ends.push(self.data.len());
        }
        Ok(())
    }

    /// The keys, in order.
    pub fn iter(&self) -> impl Iterator<Item = &[u8]> {
        let mut start = 0;
        self.ends.iter().map(move |&e| {
            let s = &self.data[start..e];
            start = e;
            s
        })
    }

    /// Number of keys.
    #[must_use]
    pub fn len(&self) -> usize {
        self.ends.len()
    }

    /// True when there are no keys.
    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.ends.is_empty()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::HashSet;

    #[test]
    fn permute40_is_a_bijection_on_a_sample() {
        let s: HashSet<u64> = (0..100_000u64).map(|i| permute40(i, 42)).collect();
        assert_eq!(s.len(), 100_000);
        assert!(s.iter().all(|&v| v < 1 << 40));
    }

    #[test]
    fn absent_keys_are_disjoint_from_present_ones() {
        for kind in KeyKind::ALL {
            let g = KeyGen::new(kind, 7);
            let present: HashSet<Vec<u8>> = (0..20_000).map(|i| g.present_key(i)).collect();
            assert_eq!(present.len(), 20_000, "{kind}: present keys collide");
            assert!(
                (0..20_000).all(|j| !present.contains(&g.absent_key(j))),
                "{kind}"
            );
        }
    }

    #[test]
    fn seeds_change_keys_and_kinds_look_right() {
        let a = KeyGen::new(KeyKind::Email, 1).present_key(0);
        let b = KeyGen::new(KeyKind::Email, 2).present_key(0);
        assert_ne!(a, b);
        let e = String::from_utf8(a).unwrap();
        assert!(e.contains('@') && e.contains('.'), "{e}");
        let u = String::from_utf8(KeyGen::new(KeyKind::Url, 1).present_key(5)).unwrap();
        assert!(u.starts_with("https://"), "{u}");
        assert_eq!(
            KeyGen::new(KeyKind::Seq, 10).present_key(3),
            13u64.to_le_bytes()
        );
    }
}
