//! What other systems allocate for (n, p): the sizing rules of Guava, RedisBloom and the Parquet
//! writers, next to the real-valued optimum, each as the system computes it, with the false-positive
//! rate that allocation really has.
//!
//! - **Guava** (`com.google.common.hash.BloomFilter.create`): `numBits = optimalNumOfBits(n, p)
//!   = (long)(−n·ln p / (ln 2)²)`, `k = optimalNumOfHashFunctions(n, numBits) = max(1, round(numBits/n
//!   · ln 2))` ([`super::size_for`]); the bits live in `long[⌈numBits/64⌉]` (`LockFreeBitArray`) and
//!   the strategies index modulo `bitSize() = 64·words`, so the filter has `64·⌈numBits/64⌉` bits.
//! - **RedisBloom** (RedisBloom/RedisBloom, `deps/bloom/bloom.c`: `calc_bpe`, `bloom_init`):
//!   bits per entry `bpe = −ln(ε)/0.480453013918201` (ln² 2), `hashes = ceil(0.693147180559945 ·
//!   bpe)`. `BF.RESERVE` (`src/rebloom.c`: `BFReserve_RedisCommand` → `bfCreateChain`) passes
//!   `BLOOM_OPT_FORCE64 | BLOOM_OPT_NOROUND` (plus `BLOOM_OPT_NO_SCALING` for `NONSCALING` or
//!   `EXPANSION 0`), so the bit count is *not* rounded to a power of two (that is `bloom_init`'s
//!   path without `NOROUND`; `ENTS_IS_BITS` would read the capacity as log2 of the bits):
//!   `bits = (uint64_t)(n · bpe)`, `bytes = ⌈bits/64⌉·8`, and the filter indexes `bytes·8` bits
//!   (`bloom_check_add_compat`, `% bloom->bits`). The scalable chain (`src/sb.c`: `SB_NewChain`)
//!   sizes its first filter for `ε = p · 0.5` (`ERROR_TIGHTENING_RATIO`) unless the filter is
//!   non-scaling, where `ε = p`; an error rate above 0.25 is capped at 0.25 (`BF_ERROR_RATE_CAP`,
//!   `src/config.h`, since RedisBloom 8.0; the 2.8 modules take it as given: there, and only
//!   there, p > 0.25 allocates differently from this rule).
//!   `BF.INFO`'s `Size` is that plus the structs: `sizeof(SBChain) + sizeof(SBLink) + bytes`
//!   = 32 + 64 + bytes on a 64-bit build (`BFMemUsage`).
//! - **Parquet** (the split-block filter; arrow-rs `num_of_bits_from_ndv_fpp` /
//!   `optimal_num_of_bytes`): [`super::split_block::parquet_bytes`], a power of two of bytes, k = 8
//!   bits per item (one in each word of a 256-bit block); its real rate is the split-block model
//!   [`super::split_block::fpr_split_block`], not the standard filter's formula.
//! - **optimal**: the real-valued optimum of Bloom (1970) as in Broder & Mitzenmacher (2004, §2.1),
//!   `m = ⌈−n·ln p / (ln 2)²⌉`, `k = round((m/n)·ln 2)`, `⌈m/8⌉` bytes (no implementation's words).

use super::{ExactFpr, check_n, check_p, fpr_classic, fpr_exact_with_bound, split_block};
use crate::error::{Error, Param, Result};

/// A system's sizing rule.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, serde::Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Rule {
    /// Guava's `BloomFilter.create(funnel, n, p)`.
    Guava,
    /// RedisBloom's `BF.RESERVE key p n` (scaling, the default: first filter at p/2).
    Redisbloom,
    /// RedisBloom's `BF.RESERVE key p n NONSCALING` (one filter at p).
    RedisbloomNonscaling,
    /// The Parquet writers' split-block filter.
    Parquet,
    /// The real-valued optimum, rounded up.
    Optimal,
}

impl Rule {
    /// Every rule, in the order `calc --rule` prints them.
    pub const ALL: [Rule; 5] = [
        Rule::Guava,
        Rule::Redisbloom,
        Rule::RedisbloomNonscaling,
        Rule::Parquet,
        Rule::Optimal,
    ];

    /// The rule's name on the command line and in JSON.
    #[must_use]
    pub fn name(self) -> &'static str {
        match self {
            Rule::Guava => "guava",
            Rule::Redisbloom => "redisbloom",
            Rule::RedisbloomNonscaling => "redisbloom-nonscaling",
            Rule::Parquet => "parquet",
            Rule::Optimal => "optimal",
        }
    }

    /// The rule named `s` (as [`Rule::name`]).
    ///
    /// # Errors
    /// [`Error::Invalid`] naming `--rule` and the accepted names.
    pub fn parse(s: &str) -> Result<Rule> {
        Rule::ALL
            .into_iter()
            .find(|r| r.name() == s)
            .ok_or_else(|| {
                Error::invalid(
                    Param::Other("--rule"),
                    s,
                    "one of guava, redisbloom, redisbloom-nonscaling, parquet, optimal",
                )
            })
    }
}

/// What one rule allocates for (n, p), and the rate that allocation has at n items.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct Allocation {
    /// The rule.
    pub rule: Rule,
    /// Bits the filter indexes.
    pub m_bits: u64,
    /// Hash functions (bits set per item).
    pub k: u32,
    /// Bytes of the bit array as the system allocates it.
    pub bytes: u64,
    /// `(1 − e^(−kn/m))^k` at (m_bits, n, k).
    pub fpr_classic: f64,
    /// The exact standard-filter rate at (m_bits, n, k) (Bose et al. 2008), `None` where the
    /// bounded method cannot give one.
    pub fpr_exact: Option<f64>,
    /// That rate with its logarithm and relative error bound.
    #[serde(skip)]
    pub exact: Option<ExactFpr>,
    /// The split-block model's rate (Parquet only: its filter is not a standard one).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub fpr_split_block: Option<f64>,
    /// The error rate the system sized its (first) filter for (RedisBloom: p/2 when scaling).
    pub sized_for_p: f64,
}

/// RedisBloom's `calc_bpe` (`deps/bloom/bloom.c`): `−ln(ε) / ln² 2` with its constant.
fn redis_bpe(eps: f64) -> f64 {
    const DENOM: f64 = 0.480_453_013_918_201; // ln(2)^2, as bloom.c spells it
    (-(eps.ln() / DENOM)).abs()
}

/// RedisBloom's `bloom_init(entries, error, FORCE64 | NOROUND)`: (bits indexed, hashes, bytes).
fn redis_bloom_init(n: u64, eps: f64) -> (u64, u32, u64) {
    #[allow(
        clippy::approx_constant,
        reason = "bloom.c's own truncated LN2, kept so hashes = ceil(LN2 · bpe) matches it bit for bit"
    )]
    const LN2: f64 = 0.693_147_180_559_945;
    let bpe = redis_bpe(eps);
    let bits = ((n as f64 * bpe) as u64).max(1);
    let bytes = bits.div_ceil(64) * 8;
    (bytes * 8, (LN2 * bpe).ceil() as u32, bytes)
}

/// RedisBloom's cap on `BF.RESERVE`'s error rate (`src/config.h`: `BF_ERROR_RATE_CAP`).
pub const REDISBLOOM_ERROR_RATE_CAP: f64 = 0.25;

/// `BF.INFO`'s `Size` minus the bit array: `sizeof(SBChain) + sizeof(SBLink)` on a 64-bit build.
pub const REDISBLOOM_STRUCT_BYTES: u64 = 32 + 64;

/// What `rule` allocates for `n` items at rate `p`.
///
/// ```
/// use bloomlab::theory::rules::{Rule, allocate};
/// let g = allocate(Rule::Guava, 1000, 0.03).unwrap();
/// let r = allocate(Rule::RedisbloomNonscaling, 1000, 0.03).unwrap();
/// assert_eq!((g.k, r.k), (5, 6));
/// ```
///
/// # Errors
/// Invalid `n` or `p`, or a size beyond 64 bits.
pub fn allocate(rule: Rule, n: u64, p: f64) -> Result<Allocation> {
    check_n(n)?;
    check_p(p)?;
    let too_big = || Error::invalid(Param::N, n, "small enough that m fits in 64 bits");
    let mut sized_for_p = p;
    let (m_bits, k, bytes) = match rule {
        Rule::Guava => {
            let s = super::size_for(n, p)?;
            let words = s.m.div_ceil(64);
            (words.checked_mul(64).ok_or_else(too_big)?, s.k, words * 8)
        }
        Rule::Redisbloom | Rule::RedisbloomNonscaling => {
            let capped = p.min(REDISBLOOM_ERROR_RATE_CAP);
            sized_for_p = if rule == Rule::Redisbloom {
                capped * 0.5
            } else {
                capped
            };
            if n as f64 * redis_bpe(sized_for_p) >= (u64::MAX / 2) as f64 {
                return Err(too_big());
            }
            redis_bloom_init(n, sized_for_p)
        }
        Rule::Parquet => {
            let bytes = split_block::parquet_bytes(n, p)?;
            (bytes * 8, split_block::WORDS, bytes)
        }
        Rule::Optimal => {
            let ln2 = std::f64::consts::LN_2;
            let m = (-(n as f64) * p.ln() / (ln2 * ln2)).ceil().max(1.0);
            if !m.is_finite() || m >= u64::MAX as f64 {
                return Err(too_big());
            }
            let m = m as u64;
            (m, super::optimal_k(m, n), m.div_ceil(8))
        }
    };
    let exact = fpr_exact_with_bound(m_bits, n, k);
    Ok(Allocation {
        rule,
        m_bits,
        k,
        bytes,
        fpr_classic: fpr_classic(m_bits, n, k),
        fpr_exact: exact.map(|e| e.value),
        exact,
        fpr_split_block: (rule == Rule::Parquet).then(|| split_block::fpr_split_block(m_bits, n)),
        sized_for_p,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    // Hand computations (see tests/cli.rs for the same numbers through the command):
    // Guava (10^6, 1%): ⌊10^6·4.605170/0.480453⌋ = 9,585,058 bits, k = round(6.644) = 7,
    //   ⌈9,585,058/64⌉ = 149,767 words = 9,585,088 bits, 1,198,136 bytes.
    // RedisBloom scaling (1000, 3%): ε = 1.5%, bpe = 4.199705/0.480453 = 8.74114, bits = 8741,
    //   ⌈8741/64⌉ = 137 words = 1096 bytes = 8768 bits, k = ⌈6.0590⌉ = 7 (BF.DEBUG on RedisBloom
    //   2.8.2: "bytes:1096 bits:8768 hashes:7").
    #[test]
    fn hand_computed_points() {
        let g = allocate(Rule::Guava, 1_000_000, 0.01).unwrap();
        assert_eq!((g.m_bits, g.k, g.bytes), (9_585_088, 7, 1_198_136));
        let r = allocate(Rule::Redisbloom, 1000, 0.03).unwrap();
        assert_eq!((r.m_bits, r.k, r.bytes), (8768, 7, 1096));
        let r = allocate(Rule::RedisbloomNonscaling, 1000, 0.03).unwrap();
        assert_eq!((r.m_bits, r.k, r.bytes), (7360, 6, 920));
        let q = allocate(Rule::Parquet, 1_000_000, 0.01).unwrap();
        assert_eq!((q.m_bits, q.k, q.bytes), (16_777_216, 8, 2_097_152));
        assert!(q.fpr_split_block.unwrap() < 0.0011);
        let o = allocate(Rule::Optimal, 1_000_000, 0.01).unwrap();
        assert_eq!((o.m_bits, o.k, o.bytes), (9_585_059, 7, 1_198_133));
    }

    #[test]
    fn names_round_trip_and_bad_names_are_refused() {
        for r in Rule::ALL {
            assert_eq!(Rule::parse(r.name()).unwrap(), r);
        }
        let e = Rule::parse("bloomier").unwrap_err().to_string();
        assert!(e.contains("--rule") && e.contains("guava"), "{e}");
    }

    #[test]
    fn the_redis_cap_and_tiny_inputs() {
        let a = allocate(Rule::RedisbloomNonscaling, 1, 0.9).unwrap();
        assert_eq!(a.sized_for_p, 0.25);
        assert!(a.m_bits >= 64 && a.k >= 1);
        assert!(allocate(Rule::Optimal, 0, 0.01).is_err());
        assert!(allocate(Rule::Guava, u64::MAX, 1e-300).is_err());
    }
}
