//! The prefix filter (Even, Even & Morrison, "Prefix Filter: Practically and Theoretically
//! Better Than Bloom", PVLDB 15(7), 2022): an incremental filter whose first level is an array
//! of 32-byte pocket dictionaries ([`pd::Pd`], 25 fingerprints each) and whose overflow goes
//! to a small *spare* filter, a [`BlockedBloom`] here (the paper's `PF[BBF-Flex]` variant).
//!
//! Built here: the spare-based design at the paper's load 0.95 with the authors' `pd256`
//! geometry (25 quotients × 8-bit remainders, 6,400 fingerprints), portable word code
//! (SWAR byte compare for the query, broadword select for the insert): no SIMD and no `unsafe`.
//! The model, sizing and the paper's numbers are in [`theory::prefix`].

pub mod pd;
#[cfg(test)]
mod tests;

use crate::error::{Error, Result};
use crate::filter::{Filter, FilterKind};
use crate::filters::batch;
use crate::filters::blocked::BlockedBloom;
use crate::filters::count::InsertCount;
use crate::filters::prefetch::prefetch;
use crate::hash::{HashId, ItemHasher, StrategyId, Xxh3, reduce};
use crate::theory;
use crate::theory::prefix::{FINGERPRINTS, PD_BYTES, Sizing};
use pd::Pd;

/// How many items a batch query stages before it probes (as the blocked filter).
pub const BATCH: usize = 16;

/// A prefix filter: see the module docs.
///
/// **Hashing.** One 64-bit hash `h` per item ([`ItemHasher::hash64`]): the PD is `⌊h·pds/2⁶⁴⌋`
/// ([`reduce`]), the fingerprint `fp = ⌊(h mod 2¹⁶)·6400/2¹⁶⌋` (the authors' `fixed_reduce`),
/// quotient `fp >> 8` and remainder `fp mod 256`. The spare is keyed by the 8 little-endian
/// bytes of `pd·2¹³ + fp` (the authors' `incSpare_add`), hashed with XXH3 whatever the filter's
/// own hash.
///
/// ```
/// use bloomlab::Filter;
/// use bloomlab::filters::PrefixFilter;
/// let mut f = PrefixFilter::with_capacity(1_000_000).unwrap();
/// f.insert(b"apple");
/// assert!(f.contains(b"apple"));
/// assert_eq!(f.pds(), 42_106); // ⌈10^6 / (25 · 0.95)⌉ pocket dictionaries of 32 bytes
/// ```
#[derive(Debug, Clone)]
pub struct PrefixFilter<H = Xxh3> {
    pds: Vec<Pd>,
    spare: BlockedBloom<Xxh3>,
    spare_capacity: u64,
    len: InsertCount,
    hasher: H,
}

impl PrefixFilter<Xxh3> {
    /// A filter for `n` items, default hash.
    ///
    /// # Errors
    /// As [`theory::prefix::sizing`]; [`Error::Allocation`].
    pub fn with_capacity(n: u64) -> Result<Self> {
        Self::with_sizing_and(theory::prefix::sizing(n, None)?, Xxh3::default())
    }
}

/// The PD index and fingerprint of a 64-bit hash.
#[inline(always)]
fn split(h: u64, pds: u64) -> (usize, u32) {
    let fp = ((h & 0xffff) * u64::from(FINGERPRINTS)) >> 16;
    (reduce(h, pds) as usize, fp as u32)
}

/// The spare's key for fingerprint `fp` of PD `pd`.
#[inline(always)]
fn spare_key(pd: usize, fp: u32) -> [u8; 8] {
    ((pd as u64) << 13 | u64::from(fp)).to_le_bytes()
}

impl<H: ItemHasher> PrefixFilter<H> {
    /// A filter as [`theory::prefix::sizing`] sized it.
    ///
    /// # Errors
    /// [`Error::Allocation`].
    pub fn with_sizing_and(s: Sizing, hasher: H) -> Result<Self> {
        let alloc_err = || Error::Allocation {
            bytes: u128::from(s.pds) * u128::from(PD_BYTES),
        };
        let count = usize::try_from(s.pds).map_err(|_| alloc_err())?;
        let mut pds: Vec<Pd> = Vec::new();
        pds.try_reserve_exact(count).map_err(|_| alloc_err())?;
        pds.resize(count, Pd::default());
        let spare = BlockedBloom::with_sizing_and(s.spare, Xxh3::default())?;
        Ok(Self {
            pds,
            spare,
            spare_capacity: s.spare_capacity,
            len: InsertCount::default(),
            hasher,
        })
    }

    /// Rebuild from saved parts (see [`crate::persist`]).
    ///
    /// # Errors
    /// [`Error::Corrupt`] for no PDs, more than 2³², or a PD whose header is inconsistent.
    pub fn from_parts(
        pds: Vec<Pd>,
        spare: BlockedBloom<Xxh3>,
        spare_capacity: u64,
        len: u64,
        hasher: H,
    ) -> Result<Self> {
        if pds.is_empty() || pds.len() as u64 > u64::from(u32::MAX) {
            return Err(Error::Corrupt(format!(
                "prefix filter has {} pocket dictionaries, outside 1..=2^32",
                pds.len()
            )));
        }
        for (i, pd) in pds.iter().enumerate() {
            pd.check().map_err(|e| {
                Error::Corrupt(format!("prefix filter: pocket dictionary {i}: {e}"))
            })?;
        }
        Ok(Self {
            pds,
            spare,
            spare_capacity,
            len: InsertCount::new(len),
            hasher,
        })
    }

    /// The hash function.
    #[must_use]
    pub fn hasher(&self) -> &H {
        &self.hasher
    }

    /// Number of pocket dictionaries.
    #[must_use]
    pub fn pds(&self) -> u64 {
        self.pds.len() as u64
    }

    /// The pocket dictionaries.
    #[must_use]
    pub fn pd_slice(&self) -> &[Pd] {
        &self.pds
    }

    /// The spare.
    #[must_use]
    pub fn spare(&self) -> &BlockedBloom<Xxh3> {
        &self.spare
    }

    /// Items the spare takes before inserts are refused.
    #[must_use]
    pub fn spare_capacity(&self) -> u64 {
        self.spare_capacity
    }

    /// Items the first level holds (a scan of every PD).
    #[must_use]
    pub fn first_level_items(&self) -> u64 {
        self.pds.iter().map(|p| u64::from(p.len())).sum()
    }

    #[inline(always)]
    fn probe(&self, pd: usize, fp: u32) -> bool {
        let p = &self.pds[pd];
        match p.spare_threshold() {
            Some(t) if fp > t => self.spare.contains(&spare_key(pd, fp)),
            _ => p.find(fp >> 8, fp as u8),
        }
    }

    #[inline(always)]
    fn store(&mut self, pd: usize, fp: u32) -> Result<()> {
        if self.pds[pd].is_full() && self.spare.len() >= self.spare_capacity {
            return Err(Error::Full {
                len: self.len.get(),
                reason: "the prefix filter's spare is full: more items than it was sized for",
            });
        }
        if let Some(out) = self.pds[pd].insert(fp >> 8, fp as u8) {
            self.spare.insert(&spare_key(pd, out));
        }
        self.len.inc();
        Ok(())
    }
}

impl<H: ItemHasher> batch::Staged for PrefixFilter<H> {
    type Step = (usize, u32);
    #[inline(always)]
    fn stage(&self, item: &[u8], warm: bool) -> (usize, u32) {
        let s = split(self.hasher.hash64(item), self.pds.len() as u64);
        if warm {
            prefetch(&self.pds[s.0]);
        }
        s
    }
    #[inline(always)]
    fn probe_step(&self, (pd, fp): (usize, u32)) -> bool {
        self.probe(pd, fp)
    }
    #[inline(always)]
    fn store_step(&mut self, (pd, fp): (usize, u32)) -> bool {
        self.store(pd, fp).is_ok()
    }
}

impl<H: ItemHasher> Filter for PrefixFilter<H> {
    fn try_insert(&mut self, item: &[u8]) -> Result<()> {
        let (pd, fp) = split(self.hasher.hash64(item), self.pds.len() as u64);
        self.store(pd, fp)
    }
    #[inline]
    fn contains(&self, item: &[u8]) -> bool {
        let (pd, fp) = split(self.hasher.hash64(item), self.pds.len() as u64);
        self.probe(pd, fp)
    }
    fn contains_batch(&self, items: &[&[u8]], out: &mut [bool]) {
        batch::contains::<_, BATCH>(self, items, out, batch::prefetch_pays(self.bytes()));
    }
    fn len(&self) -> u64 {
        self.len.get()
    }
    fn bits(&self) -> u64 {
        self.pds.len() as u64 * PD_BYTES * 8 + self.spare.bits()
    }
    fn bytes(&self) -> usize {
        self.pds.capacity() * std::mem::size_of::<Pd>() + self.spare.bytes()
    }
    /// One PD (and the spare for the few queries above the PD's largest fingerprint).
    fn k(&self) -> u32 {
        1
    }
    fn classic_params(&self) -> Option<(u64, u32)> {
        None
    }
    /// [`theory::prefix::fpr_with_spare`] at the insert count: the spare at its expected
    /// share, as the plan computes it (the spare's actual count differs by its noise).
    fn expected_fpr(&self) -> f64 {
        theory::prefix::fpr_with_spare(
            self.pds(),
            self.len.get(),
            self.spare.bits(),
            self.spare.k(),
        )
    }
    fn kind(&self) -> FilterKind {
        FilterKind::Prefix
    }
    fn hash_id(&self) -> HashId {
        self.hasher.id()
    }
    fn strategy_id(&self) -> Option<StrategyId> {
        None
    }
    /// The plan's rows at the current fill ([`theory::prefix::detail_rows`]).
    fn details(&self) -> Vec<(String, String)> {
        theory::prefix::detail_rows(self.pds(), self.len.get(), self.spare_capacity)
    }
}
