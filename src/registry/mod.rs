//! The filter registry: every kind, what it can do, and its concrete type, in one place.
//!
//! [`FilterKind`] (in [`crate::filter`], below the filters) names a kind and knows its
//! [`Capabilities`](crate::filter::Capabilities) and its file-format code; [`AnyFilter`] is a closed enum over the concrete filter types (with run-time hash
//! [`AnyHasher`] and strategy [`AnyStrategy`]). Specs build an `AnyFilter`
//! ([`FilterSpec::build`]), loading any file returns one ([`AnyFilter::load`]), and the
//! CLI, TUI and experiments work with it. The kind → type match is written here once; every
//! other place asks a kind's capabilities or an `AnyFilter` method, and every `match` over
//! kinds in the crate is exhaustive, so a new kind makes the compiler list the places that
//! must handle it.
//!
//! Dispatch is by `match` (one predictable branch per call), not through a vtable, and the
//! inner filters stay monomorphic over `AnyHasher` / `AnyStrategy`.

use std::io;
use std::path::Path;

use crate::bits::BitVec;
use crate::error::{Error, Param, Result};
use crate::filter::{Filter, FilterKind, Removable};
use crate::filters::{
    BinaryFuseFilter, BlockedBloom, CountingBloom, CuckooFilter, MultiblockBloom, PrefixFilter,
    QuotientFilter, RibbonFilter, ScalableBloom, SplitBlockBloom, StandardBloom, XorFilter,
};
use crate::hash::{AnyHasher, AnyStrategy, HashId, StrategyId};
use crate::persist::{self, Identity, LoadOptions, Payload, Persist, SaveOptions};
use crate::spec::FilterSpec;

mod details;
mod plan;
use plan::{Layout, refuse_m_k, spec_arity, static_width};
pub use plan::{Plan, Widths};

/// Any filter, with run-time hash and strategy: what specs build and files load.
#[derive(Debug, Clone)]
pub enum AnyFilter {
    /// [`FilterKind::Standard`].
    Standard(StandardBloom<AnyHasher, AnyStrategy>),
    /// [`FilterKind::Counting`].
    Counting(CountingBloom<AnyHasher, AnyStrategy>),
    /// [`FilterKind::Blocked`].
    Blocked(BlockedBloom<AnyHasher>),
    /// [`FilterKind::SplitBlock`].
    SplitBlock(SplitBlockBloom<AnyHasher>),
    /// [`FilterKind::Scalable`].
    Scalable(ScalableBloom<AnyHasher, AnyStrategy>),
    /// [`FilterKind::Cuckoo`].
    Cuckoo(CuckooFilter<AnyHasher>),
    /// [`FilterKind::Xor`].
    Xor(XorFilter<AnyHasher>),
    /// [`FilterKind::BinaryFuse`].
    BinaryFuse(BinaryFuseFilter<AnyHasher>),
    /// [`FilterKind::Ribbon`].
    Ribbon(RibbonFilter<AnyHasher>),
    /// [`FilterKind::Quotient`].
    Quotient(QuotientFilter<AnyHasher>),
    /// [`FilterKind::Multiblock`].
    Multiblock(MultiblockBloom<AnyHasher>),
    /// [`FilterKind::Prefix`].
    Prefix(PrefixFilter<AnyHasher>),
}

/// `each!(self, f => expr)`: evaluate `expr` with `f` bound to the concrete filter.
macro_rules! each {
    ($s:expr, $f:ident => $e:expr) => {
        match $s {
            AnyFilter::Standard($f) => $e,
            AnyFilter::Counting($f) => $e,
            AnyFilter::Blocked($f) => $e,
            AnyFilter::SplitBlock($f) => $e,
            AnyFilter::Scalable($f) => $e,
            AnyFilter::Cuckoo($f) => $e,
            AnyFilter::Xor($f) => $e,
            AnyFilter::BinaryFuse($f) => $e,
            AnyFilter::Ribbon($f) => $e,
            AnyFilter::Quotient($f) => $e,
            AnyFilter::Multiblock($f) => $e,
            AnyFilter::Prefix($f) => $e,
        }
    };
}

impl AnyFilter {
    /// Build `spec` with its own hasher, empty, to insert into.
    ///
    /// # Errors
    /// Invalid parameters (each kind sized by its own rule), or the memory cannot be had;
    /// [`Error::Static`] for static-set kinds, which are built from their keys
    /// ([`AnyFilter::build_from`]).
    pub fn build(spec: &FilterSpec) -> Result<Self> {
        Self::build_with(spec, spec.hasher())
    }

    /// Build `spec` with a given hasher (e.g. a SipHash key read from a key file).
    ///
    /// # Errors
    /// As [`AnyFilter::build`].
    pub fn build_with(spec: &FilterSpec, hasher: AnyHasher) -> Result<Self> {
        let strategy = AnyStrategy(spec.strategy);
        let plan = spec.plan()?;
        Ok(match plan.layout {
            Layout::Standard { m, k, .. } => {
                Self::Standard(StandardBloom::with_bits_and(m, k, hasher, strategy)?)
            }
            Layout::Counting { cells, k } => Self::Counting(CountingBloom::with_counters_and(
                cells, k, hasher, strategy,
            )?),
            Layout::Blocked { sized: Some(s), .. } => {
                Self::Blocked(BlockedBloom::with_sizing_and(s, hasher)?)
            }
            Layout::Blocked {
                blocks,
                k,
                sized: None,
            } => Self::Blocked(BlockedBloom::with_blocks_and(blocks, k, hasher)?),
            Layout::SplitBlock { blocks } => {
                Self::SplitBlock(SplitBlockBloom::with_blocks_and(blocks, hasher)?)
            }
            Layout::Scalable { params, .. } => {
                Self::Scalable(ScalableBloom::with_params_and(params, hasher, strategy)?)
            }
            Layout::Cuckoo(s) => Self::Cuckoo(CuckooFilter::with_sizing_and(s, hasher)?),
            Layout::Quotient { q, r } => Self::Quotient(QuotientFilter::with_qr_and(q, r, hasher)?),
            Layout::Multiblock { shape, blocks } => {
                Self::Multiblock(MultiblockBloom::with_blocks_and(shape, blocks, hasher)?)
            }
            Layout::Prefix(s) => Self::Prefix(PrefixFilter::with_sizing_and(s, hasher)?),
            Layout::Xor { .. } | Layout::BinaryFuse { .. } | Layout::Ribbon { .. } => {
                return Err(Error::Static {
                    kind: spec.kind.name(),
                });
            }
        })
    }

    /// Build `spec` holding `keys`, with its own hasher: see [`FilterSpec::build_from`].
    ///
    /// # Errors
    /// As [`FilterSpec::build_from`].
    pub fn build_from<I, K>(spec: &FilterSpec, keys: I) -> Result<Self>
    where
        I: IntoIterator<Item = K>,
        K: AsRef<[u8]>,
    {
        Self::build_from_with(spec, spec.hasher(), keys)
    }

    /// Build `spec` holding `keys`, with a given hasher.
    ///
    /// # Errors
    /// As [`FilterSpec::build_from`].
    pub fn build_from_with<I, K>(spec: &FilterSpec, hasher: AnyHasher, keys: I) -> Result<Self>
    where
        I: IntoIterator<Item = K>,
        K: AsRef<[u8]>,
    {
        let arity = spec_arity(spec)?;
        // A static kind: sized from its keys, its width by the plan's rule.
        let width = || refuse_m_k(spec).and_then(|()| static_width(spec));
        Ok(match spec.kind {
            FilterKind::Xor => Self::Xor(XorFilter::from_keys_and(keys, width()?, hasher)?),
            FilterKind::BinaryFuse => Self::BinaryFuse(BinaryFuseFilter::from_keys_arity_and(
                keys,
                width()?,
                arity,
                hasher,
            )?),
            FilterKind::Ribbon => {
                Self::Ribbon(RibbonFilter::from_keys_and(keys, width()?, hasher)?)
            }
            FilterKind::Standard
            | FilterKind::Counting
            | FilterKind::Blocked
            | FilterKind::SplitBlock
            | FilterKind::Scalable
            | FilterKind::Cuckoo
            | FilterKind::Multiblock
            | FilterKind::Prefix => {
                let mut f = Self::build_with(spec, hasher)?;
                for k in keys {
                    f.try_insert(k.as_ref())?;
                }
                f
            }
            // Sorted bulk construction: the same table as one insert after another.
            FilterKind::Quotient => match Self::build_with(spec, hasher)? {
                Self::Quotient(mut f) => {
                    f.insert_all(keys)?;
                    Self::Quotient(f)
                }
                other => other,
            },
        })
    }

    /// Decode the payload of a verified container holding `kind` (see
    /// [`persist::open_verified`]).
    ///
    /// # Errors
    /// [`Error::Corrupt`] naming the inconsistency; [`Error::Allocation`].
    pub fn decode(kind: FilterKind, id: &Identity, params: &[u8], payload: &[u8]) -> Result<Self> {
        Self::decode_from(kind, id, params, &mut Payload::from_slice(payload))
    }

    /// [`AnyFilter::decode`] reading the payload as it goes ([`Persist::decode_from`]).
    ///
    /// # Errors
    /// As [`AnyFilter::decode`]; [`Error::Io`] from a file.
    pub fn decode_from(
        kind: FilterKind,
        id: &Identity,
        params: &[u8],
        payload: &mut Payload<'_>,
    ) -> Result<Self> {
        let (i, p, b) = (id, params, payload);
        Ok(match kind {
            FilterKind::Standard => Self::Standard(Persist::decode_from(i, p, b)?),
            FilterKind::Counting => Self::Counting(Persist::decode_from(i, p, b)?),
            FilterKind::Blocked => Self::Blocked(Persist::decode_from(i, p, b)?),
            FilterKind::SplitBlock => Self::SplitBlock(Persist::decode_from(i, p, b)?),
            FilterKind::Scalable => Self::Scalable(Persist::decode_from(i, p, b)?),
            FilterKind::Cuckoo => Self::Cuckoo(Persist::decode_from(i, p, b)?),
            FilterKind::Xor => Self::Xor(Persist::decode_from(i, p, b)?),
            FilterKind::BinaryFuse => Self::BinaryFuse(Persist::decode_from(i, p, b)?),
            FilterKind::Ribbon => Self::Ribbon(Persist::decode_from(i, p, b)?),
            FilterKind::Quotient => Self::Quotient(Persist::decode_from(i, p, b)?),
            FilterKind::Multiblock => Self::Multiblock(Persist::decode_from(i, p, b)?),
            FilterKind::Prefix => Self::Prefix(Persist::decode_from(i, p, b)?),
        })
    }

    /// Encode in bloomlab's format ([`crate::persist`]).
    ///
    /// # Errors
    /// [`Error::Allocation`].
    pub fn to_bytes(&self, opts: &SaveOptions) -> Result<Vec<u8>> {
        each!(self, f => persist::to_bytes(f, opts))
    }

    /// Write in bloomlab's format to `w`.
    ///
    /// # Errors
    /// What the writer returns.
    pub fn write_to(&self, w: &mut dyn io::Write, opts: &SaveOptions) -> io::Result<()> {
        each!(self, f => persist::write_to(f, w, opts))
    }

    /// Save atomically to `path`.
    ///
    /// # Errors
    /// [`Error::Io`].
    pub fn save(&self, path: impl AsRef<Path>, opts: &SaveOptions) -> Result<()> {
        each!(self, f => persist::save(f, path, opts))
    }

    /// Decode whatever filter `bytes` holds.
    ///
    /// # Errors
    /// As [`persist::from_bytes`].
    pub fn from_bytes(bytes: &[u8], opts: &LoadOptions) -> Result<Self> {
        let v = persist::open_verified(bytes, opts)?;
        Self::decode(v.kind, &v.identity, v.params, v.payload)
    }

    /// Load whatever filter `path` holds.
    ///
    /// # Errors
    /// As [`persist::load`].
    pub fn load(path: impl AsRef<Path>, opts: &LoadOptions) -> Result<Self> {
        // Decoded as it is read: the file is never in memory twice.
        persist::stream::load_with(path.as_ref(), opts, |info, id, params, payload| {
            Self::decode_from(info.kind, id, params, payload)
        })
    }

    /// The bit array, for kinds that are one (the bit picture).
    #[must_use]
    pub fn bit_vec(&self) -> Option<&BitVec> {
        match self {
            Self::Standard(f) => Some(f.bit_vec()),
            Self::Counting(_)
            | Self::Blocked(_)
            | Self::SplitBlock(_)
            | Self::Scalable(_)
            | Self::Cuckoo(_)
            | Self::Xor(_)
            | Self::BinaryFuse(_)
            | Self::Ribbon(_)
            | Self::Quotient(_)
            | Self::Multiblock(_) => None,
            Self::Prefix(_) => None,
        }
    }

    /// The cell positions `item` maps to, for kinds that expose them
    /// ([`crate::filter::Capabilities::exposes_positions`]).
    #[must_use]
    pub fn positions(&self, item: &[u8]) -> Option<Vec<u64>> {
        match self {
            Self::Standard(f) => Some(f.positions(item)),
            Self::Counting(f) => Some(f.positions(item)),
            Self::Blocked(_)
            | Self::SplitBlock(_)
            | Self::Scalable(_)
            | Self::Cuckoo(_)
            | Self::Xor(_)
            | Self::BinaryFuse(_)
            | Self::Ribbon(_)
            | Self::Quotient(_)
            | Self::Multiblock(_) => None,
            Self::Prefix(_) => None,
        }
    }

    /// Remove one occurrence of `item`.
    ///
    /// # Errors
    /// [`Error::NotPresent`] (the filter can tell `item` is absent);
    /// [`Error::InvalidParameter`] (on `filter`) for kinds that cannot remove.
    pub fn remove(&mut self, item: &[u8]) -> Result<()> {
        let kind = self.kind();
        match self.as_removable() {
            Some(r) => r.remove(item),
            None => Err(Error::invalid(
                Param::Other("filter"),
                kind,
                "a removable kind (counting, cuckoo, quotient) to remove items",
            )),
        }
    }
}

impl FilterSpec {
    /// Build the filter, empty (each kind by its own sizing rule; see [`AnyFilter::build`]).
    ///
    /// # Errors
    /// Invalid parameters, or the memory cannot be had; [`Error::Static`] for a static-set
    /// kind ([`crate::filter::Capabilities::static_set`]: xor, binary-fuse), which must be built from its whole key
    /// set with [`FilterSpec::build_from`].
    pub fn build(&self) -> Result<AnyFilter> {
        AnyFilter::build(self)
    }

    /// Build the filter holding `keys`, for every kind: a dynamic kind is built
    /// ([`FilterSpec::build`]) and every key inserted with [`Filter::try_insert`], stopping at the
    /// first refusal with its error; a static-set kind is constructed from the whole set (repeats
    /// allowed), its fingerprint width from `fingerprint_bits` (8 or 16; ribbon 1 to 32) or else
    /// from `p` ([`crate::theory::xor::fingerprint_bits_for`], [`crate::theory::ribbon::result_bits_for`]),
    /// its size from the number of distinct keys (`n` is not used).
    ///
    /// ```
    /// use bloomlab::{Filter, FilterKind, FilterSpec};
    /// let keys = ["apple", "banana", "cherry"];
    /// let f = FilterSpec::new(FilterKind::Xor, 3, 0.004).build_from(keys).unwrap();
    /// assert!(keys.iter().all(|k| f.contains(k.as_bytes())));
    /// assert_eq!((f.len(), f.k(), f.expected_fpr()), (3, 3, 1.0 / 256.0));
    /// ```
    ///
    /// # Errors
    /// As [`FilterSpec::build`] (except [`Error::Static`]); the first insert refused
    /// ([`Error::Full`]); for static kinds a `p` below `2^−16` or fingerprint bits other than 8
    /// and 16, and [`Error::Construction`] when every seed fails to peel.
    pub fn build_from<I, K>(&self, keys: I) -> Result<AnyFilter>
    where
        I: IntoIterator<Item = K>,
        K: AsRef<[u8]>,
    {
        AnyFilter::build_from(self, keys)
    }
}

/// Keys per [`Filter::contains_batch`] call of [`AnyFilter::contains_many`]: a chunk of 16 of
/// them is the pipeline's warm-up, the rest run with their lines prefetched a chunk ahead.
pub const CONTAINS_MANY_GROUP: usize = 1024;

/// Batched operations: one dispatch on the kind per batch, the loop inside the concrete type
/// (monomorphic over the kind; the hasher and strategy stay run-time values, matched per item
/// by predictable branches). What `measure` times.
impl AnyFilter {
    /// How many of `items` may be present (`contains` answers true): the count of false
    /// positives for absent keys, of found keys for present ones.
    #[inline]
    #[must_use]
    pub fn count_present(&self, items: &[&[u8]]) -> u64 {
        each!(self, f => count_present_in(f, items))
    }

    /// The bulk query: one answer per key, `contains(keys[i])` in `[i]`, through the kind's
    /// pipelined [`Filter::contains_batch`] (hash a chunk of keys, prefetch their lines, probe
    /// the chunk before while those lines arrive; in tables of 1 MiB and more,
    /// `filters/bulk.rs`). Keys go in groups of [`CONTAINS_MANY_GROUP`], one dispatch on the
    /// kind each. At 10^8 keys a batched miss of the blocked filter costs about the DRAM
    /// latency-bound floor of one random line, where a single query waits for its own line
    /// (`results/bench/bulk-probe.md`).
    ///
    /// ```
    /// use bloomlab::{Filter, FilterKind, FilterSpec};
    /// // 10^6 keys at 1%: 1.2 MB of blocks, past the 1 MiB where the prefetch starts.
    /// let mut f = FilterSpec::new(FilterKind::Blocked, 1_000_000, 0.01).build().unwrap();
    /// let keys: Vec<String> = (0..1_100_000).map(|i| format!("user:{i}")).collect();
    /// let items: Vec<&[u8]> = keys.iter().map(|k| k.as_bytes()).collect();
    /// assert_eq!(f.insert_many(&items[..1_000_000]), 0);
    /// let found = f.contains_many(&keys);
    /// assert!(found[..1_000_000].iter().all(|&b| b)); // no false negative
    /// let fp = found[1_000_000..].iter().filter(|&&b| b).count();
    /// assert_eq!(fp, 945); // of 100,000 absent keys: 0.945%
    /// assert!((f.expected_fpr() - 0.0100).abs() < 5e-5); // the model's rate: 1.00% // of 100,000 absent keys; the model's rate is 1.0%
    /// ```
    #[must_use]
    pub fn contains_many<K: AsRef<[u8]>>(&self, keys: &[K]) -> Vec<bool> {
        let mut out = vec![false; keys.len()];
        for (ks, o) in keys
            .chunks(CONTAINS_MANY_GROUP)
            .zip(out.chunks_mut(CONTAINS_MANY_GROUP))
        {
            let mut items = [&[][..]; CONTAINS_MANY_GROUP];
            for (it, k) in items.iter_mut().zip(ks) {
                *it = k.as_ref();
            }
            self.contains_many_into(&items[..ks.len()], o);
        }
        out
    }

    /// `out[i] = contains(items[i])` for the first `min(items, out)` items (the filter's own
    /// [`Filter::contains_batch`], dispatched once): [`AnyFilter::contains_many`] without
    /// allocating.
    #[inline]
    pub fn contains_many_into(&self, items: &[&[u8]], out: &mut [bool]) {
        each!(self, f => f.contains_batch(items, out));
    }

    /// [`Filter::try_insert`] every item in turn; returns how many were refused (a full cuckoo
    /// or non-scaling filter; every item for a static-set kind).
    #[inline]
    pub fn insert_many(&mut self, items: &[&[u8]]) -> u64 {
        each!(self, f => insert_many_in(f, items))
    }
}

#[inline]
fn count_present_in<F: Filter>(f: &F, items: &[&[u8]]) -> u64 {
    items.iter().map(|it| u64::from(f.contains(it))).sum()
}

#[inline]
fn insert_many_in<F: Filter>(f: &mut F, items: &[&[u8]]) -> u64 {
    items
        .iter()
        .map(|it| u64::from(f.try_insert(it).is_err()))
        .sum()
}

impl Filter for AnyFilter {
    #[inline]
    fn try_insert(&mut self, item: &[u8]) -> Result<()> {
        each!(self, f => f.try_insert(item))
    }
    #[inline]
    fn insert(&mut self, item: &[u8]) {
        each!(self, f => f.insert(item));
    }
    #[inline]
    fn contains(&self, item: &[u8]) -> bool {
        each!(self, f => f.contains(item))
    }
    #[inline]
    fn contains_batch(&self, items: &[&[u8]], out: &mut [bool]) {
        each!(self, f => f.contains_batch(items, out));
    }
    #[inline]
    fn len(&self) -> u64 {
        each!(self, f => f.len())
    }
    #[inline]
    fn bits(&self) -> u64 {
        each!(self, f => f.bits())
    }
    #[inline]
    fn bytes(&self) -> usize {
        each!(self, f => f.bytes())
    }
    #[inline]
    fn k(&self) -> u32 {
        each!(self, f => f.k())
    }
    fn classic_params(&self) -> Option<(u64, u32)> {
        each!(self, f => f.classic_params())
    }
    fn expected_fpr(&self) -> f64 {
        each!(self, f => f.expected_fpr())
    }
    #[inline]
    fn kind(&self) -> FilterKind {
        each!(self, f => f.kind())
    }
    #[inline]
    fn hash_id(&self) -> HashId {
        each!(self, f => f.hash_id())
    }
    #[inline]
    fn strategy_id(&self) -> Option<StrategyId> {
        each!(self, f => f.strategy_id())
    }
    fn details(&self) -> Vec<(String, String)> {
        each!(self, f => f.details())
    }
    fn as_removable(&mut self) -> Option<&mut dyn Removable> {
        each!(self, f => f.as_removable())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::filter::Sizing;

    /// The file format's kind bytes: fixed forever, never reuse a number.
    #[test]
    fn batched_operations_answer_as_single_ones() {
        for kind in [
            FilterKind::Standard,
            FilterKind::Scalable,
            FilterKind::Cuckoo,
        ] {
            let mut f = FilterSpec::new(kind, 2_000, 0.01).build().unwrap();
            let keys: Vec<[u8; 8]> = (0u64..3_000).map(|i| (i * 3).to_le_bytes()).collect();
            let items: Vec<&[u8]> = keys.iter().map(|k| &k[..]).collect();
            assert_eq!(f.insert_many(&items[..1_000]), 0, "{kind}");
            let want = items.iter().filter(|it| f.contains(it)).count() as u64;
            assert!((1_000..1_500).contains(&want), "{kind}: {want}");
            assert_eq!(f.count_present(&items), want, "{kind}");
            let mut out = vec![false; items.len()];
            f.contains_many_into(&items, &mut out);
            assert_eq!(out.iter().filter(|&&b| b).count() as u64, want, "{kind}");
            let single: Vec<bool> = items.iter().map(|it| f.contains(it)).collect();
            assert_eq!(f.contains_many(&keys), single, "{kind}");
        }
        let xor = FilterSpec::new(FilterKind::Xor, 100, 0.004);
        let mut x = xor.build_from([b"a".as_slice()]).unwrap();
        assert_eq!(
            x.insert_many(&[b"b", b"c"]),
            2,
            "a static kind refuses each insert"
        );
    }

    #[test]
    fn kind_codes_are_pinned() {
        let pinned = [
            (FilterKind::Standard, 0u8),
            (FilterKind::Counting, 1),
            (FilterKind::Blocked, 2),
            (FilterKind::SplitBlock, 3),
            (FilterKind::Scalable, 4),
            (FilterKind::Cuckoo, 5),
            (FilterKind::Xor, 6),
            (FilterKind::BinaryFuse, 7),
            (FilterKind::Ribbon, 8),
            (FilterKind::Quotient, 9),
            (FilterKind::Multiblock, 10),
            (FilterKind::Prefix, 11),
        ];
        assert_eq!(pinned.len(), FilterKind::ALL.len());
        for (kind, code) in pinned {
            assert_eq!(kind.code(), code, "{kind}");
        }
        for c in 0..=u8::MAX {
            match FilterKind::from_code(c) {
                Some(k) => assert_eq!(k.code(), c),
                None => assert!(pinned.iter().all(|&(_, code)| code != c), "{c}"),
            }
        }
    }

    #[test]
    fn every_kind_builds_with_its_own_rule_and_reports_its_capabilities() {
        for kind in FilterKind::ALL {
            let spec = FilterSpec::new(kind, 1000, 0.01);
            let keys = (0u64..1000).map(u64::to_le_bytes);
            let mut f = spec.build_from(keys).unwrap();
            assert_eq!((f.kind(), f.len()), (kind, 1000));
            assert!((0u64..1000).all(|i| f.contains(&i.to_le_bytes())), "{kind}");
            let caps = kind.caps();
            // Static kinds: built from keys only, and no insert afterwards (a typed error).
            let refused = Err(Error::Static { kind: kind.name() });
            assert_eq!(
                caps.static_set,
                spec.build().err() == refused.clone().err(),
                "{kind}"
            );
            assert_eq!(caps.static_set, f.try_insert(b"more") == refused, "{kind}");
            if let Some(k) = caps.fixed_k {
                assert_eq!(f.k(), k, "{kind}");
            }
            assert_eq!(f.as_removable().is_some(), caps.removable, "{kind}");
            assert_eq!(f.strategy_id().is_some(), caps.has_strategy, "{kind}");
            assert_eq!(
                f.positions(b"x").is_some(),
                caps.exposes_positions,
                "{kind}"
            );
            assert_eq!(
                caps.removable,
                f.remove(&7u64.to_le_bytes()).is_ok(),
                "{kind}"
            );
        }
    }

    #[test]
    fn split_block_refuses_a_k_other_than_8() {
        let spec = FilterSpec {
            k: Some(7),
            ..FilterSpec::new(FilterKind::SplitBlock, 1000, 0.01)
        };
        let e = AnyFilter::build(&spec).unwrap_err();
        assert!(
            matches!(
                e,
                Error::InvalidParameter {
                    param: Param::K,
                    ..
                }
            ),
            "{e}"
        );
    }

    #[test]
    fn rate_sized_kinds_refuse_m_and_k() {
        for kind in FilterKind::ALL {
            let spec = FilterSpec {
                m: Some(10_000),
                ..FilterSpec::new(kind, 1000, 0.01)
            };
            let r = spec.build_from([b"x"]);
            assert_eq!(
                r.is_err(),
                kind.caps().sizing == Sizing::Rate,
                "{kind}: {r:?}"
            );
        }
    }

    #[test]
    fn build_from_stops_at_the_first_refusal_and_checks_static_parameters() {
        // A cuckoo filter holds at most 2b = 8 copies of one item: the 9th is refused.
        let spec = FilterSpec::new(FilterKind::Cuckoo, 100, 0.01);
        let e = spec
            .build_from(std::iter::repeat_n(b"same", 20))
            .unwrap_err();
        assert!(matches!(e, Error::Full { .. }), "{e}");
        // Static kinds: the fingerprint width comes from p (refused below 2^-16, naming p) or
        // fingerprint-bits (8 or 16); ribbon's below.
        let peeled = |k: &FilterKind| k.caps().static_set && *k != FilterKind::Ribbon;
        for kind in FilterKind::ALL.into_iter().filter(peeled) {
            let e = FilterSpec::new(kind, 10, 1e-6)
                .build_from([b"a"])
                .unwrap_err();
            assert!(
                matches!(
                    e,
                    Error::InvalidParameter {
                        param: Param::P,
                        ..
                    }
                ),
                "{kind}: {e}"
            );
            let f = FilterSpec::new(kind, 10, 1e-3).build_from([b"a"]).unwrap();
            assert_eq!(f.expected_fpr(), 2f64.powi(-16), "{kind}");
            let spec = FilterSpec {
                fingerprint_bits: 12,
                ..FilterSpec::new(kind, 10, 0.01)
            };
            let e = spec.build_from([b"a"]).unwrap_err();
            assert!(
                matches!(
                    e,
                    Error::InvalidParameter {
                        param: Param::FingerprintBits,
                        ..
                    }
                ),
                "{kind}: {e}"
            );
        }
    }

    #[test]
    fn ribbon_takes_any_result_width_from_1_to_32_bits() {
        let spec = |p, fingerprint_bits| FilterSpec {
            fingerprint_bits,
            ..FilterSpec::new(FilterKind::Ribbon, 10, p)
        };
        // r = ⌈log2(1/p)⌉: 10^-6 -> 20 bits, 0.01 -> 7, 0.9 -> 1; below 2^-32 refused naming p.
        for (p, r) in [(1e-6, 20), (0.01, 7), (0.9, 1), (2f64.powi(-32), 32)] {
            let f = spec(p, 0).build_from([b"a"]).unwrap();
            assert_eq!(f.expected_fpr(), 2f64.powi(-r), "{p}");
        }
        let e = spec(1e-10, 0).build_from([b"a"]).unwrap_err();
        assert!(
            matches!(
                e,
                Error::InvalidParameter {
                    param: Param::P,
                    ..
                }
            ),
            "{e}"
        );
        // fingerprint-bits wins over p, 1 to 32.
        let f = spec(0.01, 13).build_from([b"a"]).unwrap();
        assert_eq!(f.expected_fpr(), 2f64.powi(-13));
        for bad in [33, 64] {
            let e = spec(0.01, bad).build_from([b"a"]).unwrap_err();
            assert!(
                matches!(
                    e,
                    Error::InvalidParameter {
                        param: Param::FingerprintBits,
                        ..
                    }
                ),
                "{e}"
            );
        }
    }

    #[test]
    fn round_trips_through_the_format() {
        for kind in FilterKind::ALL {
            let spec = FilterSpec::new(kind, 500, 0.01);
            let f = spec.build_from((0u64..500).map(u64::to_le_bytes)).unwrap();
            let bytes = f.to_bytes(&SaveOptions::default()).unwrap();
            let g = AnyFilter::from_bytes(&bytes, &LoadOptions::new()).unwrap();
            assert_eq!(g.kind(), kind);
            assert_eq!((g.len(), g.bits(), g.k()), (f.len(), f.bits(), f.k()));
            for i in 0u64..2000 {
                let x = i.to_le_bytes();
                assert_eq!(f.contains(&x), g.contains(&x), "{kind} {i}");
            }
        }
    }
}
