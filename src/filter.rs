//! The common interface of every filter.

use crate::error::{Error, Result};
use crate::hash::{HashId, StrategyId};
use std::fmt;
use std::str::FromStr;

/// An approximate-membership filter over byte strings.
///
/// # The contract
/// **No false negatives**: after `try_insert(x)` has returned `Ok`, `contains(x)` returns `true`
/// for as long as the filter lives (for [`Removable`] filters: until `x` itself is removed as
/// many times as it was inserted). `contains(y)` for a `y` never inserted may return `true`: a
/// false positive, with a probability the filter's model ([`Filter::expected_fpr`]) predicts.
///
/// Items are byte strings; a `u64` key is hashed as its 8 little-endian bytes (as Guava's
/// `Funnels.longFunnel()` does), a string as its UTF-8 bytes.
pub trait Filter: Send + Sync + fmt::Debug {
    /// Insert `item`.
    ///
    /// # Errors
    /// [`Error::Full`] for filters with a hard capacity (cuckoo, quotient, non-scaling
    /// scalable); the filter is then unchanged and every earlier item is still found.
    /// [`Error::Static`] for static-set filters (xor, binary fuse, ribbon), built from their
    /// whole key set at once.
    fn try_insert(&mut self, item: &[u8]) -> Result<()>;

    /// Insert `item`.
    ///
    /// # Panics
    /// When [`Filter::try_insert`] fails: only filters with a hard capacity do, and static-set
    /// filters (xor, binary fuse, ribbon), which refuse every insert ([`Error::Static`]).
    fn insert(&mut self, item: &[u8]) {
        if let Err(e) = self.try_insert(item) {
            panic!("insert failed: {e}");
        }
    }

    /// `false`: `item` was certainly never inserted. `true`: it probably was.
    fn contains(&self, item: &[u8]) -> bool;

    /// Answer many queries; `out[i] = contains(items[i])`. Filters may override this to overlap
    /// memory accesses (prefetch) across items.
    fn contains_batch(&self, items: &[&[u8]], out: &mut [bool]) {
        for (o, it) in out.iter_mut().zip(items) {
            *o = self.contains(it);
        }
    }

    /// Number of successful inserts (repeated items count each time).
    fn len(&self) -> u64;

    /// True when nothing was inserted.
    fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Bits of filter payload (m for Bloom filters; slots × fingerprint bits for cuckoo).
    fn bits(&self) -> u64;

    /// Heap bytes the filter holds (what a counting allocator would see).
    fn bytes(&self) -> usize;

    /// Number of hash positions probed per item (k; 2 buckets for cuckoo).
    fn k(&self) -> u32;

    /// `(m, k)` to evaluate the textbook formulas with (m in cells: bits, or counters for the
    /// counting filter), or `None` where they do not apply (the fingerprint filters, scalable).
    fn classic_params(&self) -> Option<(u64, u32)> {
        Some((self.bits(), self.k()))
    }

    /// The false-positive probability the filter's own model predicts at its current fill.
    fn expected_fpr(&self) -> f64;

    /// Which filter this is.
    fn kind(&self) -> FilterKind;

    /// The hash function used.
    fn hash_id(&self) -> HashId;

    /// The index strategy used, where the filter has one.
    fn strategy_id(&self) -> Option<StrategyId>;

    /// Filter-specific facts for display (layers, saturated counters, load factor, …).
    fn details(&self) -> Vec<(String, String)> {
        Vec::new()
    }

    /// The filter as [`Removable`], when it supports deletion.
    fn as_removable(&mut self) -> Option<&mut dyn Removable> {
        None
    }
}

/// A filter that supports deletion (counting, cuckoo, quotient).
pub trait Removable: Filter {
    /// Remove one occurrence of `item`.
    ///
    /// Removing an item that was never inserted but tests positive (a false positive) is
    /// *accepted* by every counting-type filter and silently creates false negatives for other
    /// items: only remove what you inserted.
    ///
    /// # Errors
    /// [`Error::NotPresent`] when the filter can tell the item is absent; nothing changes then.
    fn remove(&mut self, item: &[u8]) -> Result<()>;
}

/// The filter kinds (public names: [`FilterKind::ALL`], [`FilterKind::name`]). The concrete
/// type of each kind is [`crate::registry::AnyFilter`]'s business; this enum sits below the
/// filters so they can name their kind without a cycle.
///
/// Not `#[non_exhaustive]` on purpose: the binary and the tests match on it exhaustively, so
/// adding a kind is a compile error everywhere it must be handled.
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, serde::Serialize, serde::Deserialize,
)]
#[serde(rename_all = "kebab-case")]
pub enum FilterKind {
    /// The classic Bloom filter: one bit array, k bits per item.
    Standard,
    /// 4-bit counters instead of bits: supports remove.
    Counting,
    /// All k bits of an item in one 512-bit (cache-line) block.
    Blocked,
    /// Apache Parquet's split block Bloom filter: 256-bit blocks of eight 32-bit words.
    SplitBlock,
    /// A growing sequence of standard filters with a compound FPR bound.
    Scalable,
    /// Cuckoo filter: fingerprints in buckets of 2, 4 (the default) or 8 slots, supports remove.
    Cuckoo,
    /// Xor filter: a static set, 8- or 16-bit fingerprints in 1.23·n slots, 3 per key.
    Xor,
    /// Binary fuse filter: a static set, 8- or 16-bit fingerprints in ≈1.125·n slots (3-wise,
    /// the default) or ≈1.075·n (4-wise).
    BinaryFuse,
    /// Standard ribbon filter (width 64): a static set, any 1- to 32-bit result in ≈1.1·n rows.
    Ribbon,
    /// Quotient filter: r-bit remainders in 2^q slots, supports remove, merge and resize.
    Quotient,
    /// Boost.Bloom's multiblock family: blocks of K words of 32 or 64 bits, b bits set in each
    /// word (one bit per word = `multiblock<Word, K>`; one word = register blocking,
    /// `block<Word, k>`).
    Multiblock,
    /// Prefix filter: 32-byte pocket dictionaries of 25 8-bit remainders, overflow to a spare.
    Prefix,
}

/// How a kind is sized.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Sizing {
    /// By bits (or cells) and k, or by (n, p) through its own rule: `m` and `k` may be given.
    Bits,
    /// Only by (n, p) (and kind-specific parameters): `m` and `k` are refused.
    Rate,
}

/// What a kind's width (`fingerprint_bits` in a spec) means, and which widths it takes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Width {
    /// No width: Bloom kinds, whose cells are bits or counters.
    None,
    /// f-bit fingerprints in buckets of slots (cuckoo): 4 to 32 bits; its load counts slots.
    BucketFingerprints,
    /// r-bit remainders, one per slot (quotient): 1 to 32 bits; its load counts slots.
    Remainders,
    /// f-bit fingerprints of a static table (xor, binary fuse): 8 or 16 bits.
    Fingerprints,
    /// r-bit results of a static ribbon: 1 to 32 bits.
    Results,
}

impl Width {
    /// Check a width given for a kind of this meaning.
    ///
    /// # Errors
    /// [`Error::InvalidParameter`] on `fingerprint-bits`: out of the kind's range, or any
    /// width for [`Width::None`].
    pub fn check(self, bits: u32) -> Result<u32> {
        match self {
            Width::None => Err(Error::invalid(
                crate::error::Param::FingerprintBits,
                bits,
                "not used by a Bloom kind: only cuckoo, xor, binary-fuse, ribbon (result bits) and quotient (remainder bits) take a width",
            )),
            Width::BucketFingerprints => crate::theory::cuckoo::check_fingerprint_bits(bits),
            Width::Remainders => crate::theory::quotient::check_remainder_bits(bits),
            Width::Fingerprints => crate::theory::xor::check_fingerprint_bits(bits),
            Width::Results => crate::theory::ribbon::check_result_bits(bits),
        }
    }

    /// The widths the kind takes, in words (`8 or 16`, `1 to 32`).
    #[must_use]
    pub fn range(self) -> &'static str {
        match self {
            Width::None => "none",
            Width::BucketFingerprints => "4 to 32",
            Width::Remainders | Width::Results => "1 to 32",
            Width::Fingerprints => "8 or 16",
        }
    }

    /// Whether the kind stores one entry per slot and fills to a load (cuckoo, quotient): the
    /// experiments sweep its load and its width.
    #[must_use]
    pub fn has_load(self) -> bool {
        match self {
            Width::BucketFingerprints | Width::Remainders => true,
            Width::None | Width::Fingerprints | Width::Results => false,
        }
    }
}

/// What a kind can do: every front end asks these instead of matching on kinds.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[allow(
    clippy::struct_excessive_bools,
    reason = "independent yes/no facts about a kind, read by name"
)]
pub struct Capabilities {
    /// Supports [`Removable::remove`].
    pub removable: bool,
    /// Keeps its FPR bound while growing past its design capacity.
    pub grows: bool,
    /// Built from the whole key set at once; `insert` after build is a typed error.
    pub static_set: bool,
    /// Uses an index strategy (`double`, `enhanced-double`, …).
    pub has_strategy: bool,
    /// Exposes the cell positions an item maps to (the walkthrough, the hash-quality runner).
    pub exposes_positions: bool,
    /// One plain array of m bits, k positions per item: the classic formulas are its model,
    /// and [`crate::registry::AnyFilter::bit_vec`] gives the bits for a picture.
    pub bit_array: bool,
    /// Whether m and k can be given.
    pub sizing: Sizing,
    /// The only k the kind accepts, if it fixes one (split-block: one bit in each of 8 words).
    pub fixed_k: Option<u32>,
    /// Stores fingerprints in slots that fill to a load (cuckoo, quotient):
    /// `width.has_load()`.
    pub fingerprints: bool,
    /// What its width means ([`Width`]), and whether it takes one.
    pub width: Width,
    /// Bits of one cell m counts when the kind is sized by bits: 1 (bit arrays), 4 (counting's
    /// counters); 0 for kinds sized by rate.
    pub cell_bits: u32,
    /// Bits of the blocks m is rounded up to (blocked 512, split-block 256; 1 for none).
    pub block_bits: u64,
    /// The arities it can be built with (slots per key: binary fuse 3, the default, or 4);
    /// empty for kinds that take none.
    pub arities: &'static [u32],
}

impl FilterKind {
    /// Every filter kind.
    pub const ALL: [FilterKind; 12] = [
        FilterKind::Standard,
        FilterKind::Counting,
        FilterKind::Blocked,
        FilterKind::SplitBlock,
        FilterKind::Scalable,
        FilterKind::Cuckoo,
        FilterKind::Xor,
        FilterKind::BinaryFuse,
        FilterKind::Ribbon,
        FilterKind::Quotient,
        FilterKind::Multiblock,
        FilterKind::Prefix,
    ];

    /// The public name.
    #[must_use]
    pub fn name(self) -> &'static str {
        match self {
            FilterKind::Standard => "standard",
            FilterKind::Counting => "counting",
            FilterKind::Blocked => "blocked",
            FilterKind::SplitBlock => "split-block",
            FilterKind::Scalable => "scalable",
            FilterKind::Cuckoo => "cuckoo",
            FilterKind::Xor => "xor",
            FilterKind::BinaryFuse => "binary-fuse",
            FilterKind::Ribbon => "ribbon",
            FilterKind::Quotient => "quotient",
            FilterKind::Multiblock => "multiblock",
            FilterKind::Prefix => "prefix",
        }
    }

    /// The known names.
    #[must_use]
    pub fn names() -> Vec<&'static str> {
        Self::ALL.iter().map(|h| h.name()).collect()
    }

    /// The one-byte id written in the file format. Fixed forever: never reuse a number.
    #[must_use]
    pub fn code(self) -> u8 {
        match self {
            FilterKind::Standard => 0,
            FilterKind::Counting => 1,
            FilterKind::Blocked => 2,
            FilterKind::SplitBlock => 3,
            FilterKind::Scalable => 4,
            FilterKind::Cuckoo => 5,
            FilterKind::Xor => 6,
            FilterKind::BinaryFuse => 7,
            FilterKind::Ribbon => 8,
            FilterKind::Quotient => 9,
            FilterKind::Multiblock => 10,
            FilterKind::Prefix => 11,
        }
    }

    /// The kind for a code written by [`FilterKind::code`].
    #[must_use]
    pub fn from_code(c: u8) -> Option<Self> {
        Some(match c {
            0 => FilterKind::Standard,
            1 => FilterKind::Counting,
            2 => FilterKind::Blocked,
            3 => FilterKind::SplitBlock,
            4 => FilterKind::Scalable,
            5 => FilterKind::Cuckoo,
            6 => FilterKind::Xor,
            7 => FilterKind::BinaryFuse,
            8 => FilterKind::Ribbon,
            9 => FilterKind::Quotient,
            10 => FilterKind::Multiblock,
            11 => FilterKind::Prefix,
            _ => return None,
        })
    }

    /// What this kind can do.
    #[must_use]
    pub fn caps(self) -> Capabilities {
        let bloom = Capabilities {
            removable: false,
            grows: false,
            static_set: false,
            has_strategy: true,
            exposes_positions: false,
            bit_array: false,
            sizing: Sizing::Bits,
            fixed_k: None,
            fingerprints: false,
            width: Width::None,
            cell_bits: 1,
            block_bits: 1,
            arities: &[],
        };
        let by_rate = Capabilities {
            sizing: Sizing::Rate,
            cell_bits: 0,
            ..bloom
        };
        match self {
            FilterKind::Standard => Capabilities {
                exposes_positions: true,
                bit_array: true,
                ..bloom
            },
            FilterKind::Counting => Capabilities {
                removable: true,
                exposes_positions: true,
                cell_bits: 4,
                ..bloom
            },
            FilterKind::Blocked => Capabilities {
                has_strategy: false,
                block_bits: crate::theory::blocked::BLOCK_BITS,
                ..bloom
            },
            FilterKind::SplitBlock => Capabilities {
                has_strategy: false,
                fixed_k: Some(8),
                block_bits: crate::theory::split_block::BLOCK_BITS,
                ..bloom
            },
            FilterKind::Scalable => Capabilities {
                grows: true,
                ..by_rate
            },
            // Resizing is explicit and doubles the rate at a given load: no `grows`.
            FilterKind::Cuckoo => Capabilities {
                removable: true,
                has_strategy: false,
                fingerprints: true,
                width: Width::BucketFingerprints,
                ..by_rate
            },
            FilterKind::Quotient => Capabilities {
                removable: true,
                has_strategy: false,
                fingerprints: true,
                width: Width::Remainders,
                ..by_rate
            },
            FilterKind::Xor => Capabilities {
                static_set: true,
                has_strategy: false,
                fixed_k: Some(3),
                width: Width::Fingerprints,
                ..by_rate
            },
            // k is the arity: 3 unless 4 is asked for.
            FilterKind::BinaryFuse => Capabilities {
                static_set: true,
                has_strategy: false,
                width: Width::Fingerprints,
                arities: &crate::theory::binary_fuse::ARITIES,
                ..by_rate
            },
            // Two adjacent 64-row blocks read per query. Not `fingerprints`: that capability means
            // slots that fill to a load (a load to sweep) to the experiments.
            FilterKind::Ribbon => Capabilities {
                static_set: true,
                has_strategy: false,
                fixed_k: Some(2),
                width: Width::Results,
                ..by_rate
            },
            // The block depends on the shape (32 to 1024 bits): 1024, the largest, is a multiple
            // of every block whose K is a power of two (what `choose` rounds m down to).
            FilterKind::Multiblock => Capabilities {
                has_strategy: false,
                block_bits: 1024,
                ..bloom
            },
            // Its width is fixed (8-bit remainders, 25 per PD) and so is its rate.
            FilterKind::Prefix => Capabilities {
                has_strategy: false,
                fixed_k: Some(1),
                ..by_rate
            },
        }
    }
}

impl fmt::Display for FilterKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl FromStr for FilterKind {
    type Err = Error;
    fn from_str(s: &str) -> Result<Self> {
        Self::ALL
            .iter()
            .copied()
            .find(|h| h.name().eq_ignore_ascii_case(s))
            .ok_or_else(|| Error::unknown("filter", s, &Self::names()))
    }
}
