//! The quotient filter (Bender et al. 2012), with remove, merge and resize.

mod bulk;
mod legacy;
mod select;
mod table;
#[cfg(test)]
mod tests;

use crate::error::{Error, Result};
use crate::filter::{Filter, FilterKind, Removable};
use crate::hash::{HashId, ItemHasher, StrategyId, Xxh3};
use crate::theory::quotient as model;
use table::Table;

/// The quotient (the slot, `0 .. 2^q`) and the remainder (`r` bits) of a 64-bit hash `h`: its
/// low `q + r` bits, split. What inserts, queries and the reachability audit
/// ([`crate::reach`]) use.
#[inline]
#[must_use]
pub fn split_hash(h: u64, q: u32, r: u32) -> (u64, u64) {
    let fp = h & (u64::MAX >> (64 - q - r));
    (fp >> r, fp & ((1u64 << r) - 1))
}

/// A quotient filter: `2^q` slots holding `r`-bit remainders of `(q + r)`-bit fingerprints;
/// supports [`Removable::remove`], [`QuotientFilter::merge`] and [`QuotientFilter::resize`]
/// (Bender, Farach-Colton, Johnson, Kraner, Kuszmaul, Medjedovic, Montes, Shetty, Spillane &
/// Zadok 2012, "Don't Thrash: How to Cache Your Hash on Flash", PVLDB 5(11)).
///
/// * **Hashing**: one [`ItemHasher::hash64`] per item; its low `q + r` bits are the
///   fingerprint, whose top `q` bits (the quotient) name the item's canonical slot and whose low
///   `r` bits (the remainder) are stored. The table is a circle: a run that reaches the last
///   slot continues at slot 0.
/// * **Layout: rank-select blocks** (Pandey, Bender, Johnson & Patro 2017, "A General-Purpose
///   Counting Filter: Making Every Bit Count", SIGMOD, §3; see `table.rs`): per 64 slots an
///   `occupieds` word, a `runends` word, an 8-bit offset and the 64 packed remainders, so a
///   run is found by one popcount and one select instead of the classic layout's walk back to
///   the cluster's start, and memory is `(r + 2.125)` bits a slot ([`model::table_bits`])
///   against the classic `(r + 3)`. Files of the classic layout (version 1) still load
///   ([`QuotientFilter::from_classic_parts`]).
/// * **Remainders** of 1 to 32 bits (a remainder never spans more than two words), quotients
///   of 1 to 48 bits, `q + r ≤ 64`. Runs are kept sorted, so a table is a function of the
///   multiset of fingerprints it holds (merge and resize give bit for bit the table that
///   inserting every item would).
/// * **Load limit**: inserts past `⌊α_max·2^q⌋` items (α_max = 95% unless
///   [`QuotientFilter::set_max_load`] says otherwise) return [`Error::Full`] and change nothing;
///   at least one slot always stays empty, which bounds every walk.
/// * **Remove** deletes one copy of the item's fingerprint, [`Error::NotPresent`] when its run
///   does not hold it (nothing changes). As with every fingerprint filter, removing a
///   never-inserted item whose fingerprint collides with a stored one removes that one.
/// * **Merge** of two filters with the same `q`, `r` and hasher: the union of both multisets
///   of fingerprints, laid out in one pass after a sort ([`Error::Incompatible`] otherwise,
///   [`Error::Full`] past the load limit; either way `self` is unchanged).
/// * **Resize** doubles the slots with the quotienting trick: the fingerprint of `q + r` bits is
///   kept and cut one bit further left (`q + 1`, `r − 1`), so no item is needed. The same items
///   then answer with the same rate (`α` halves, `2^−r` doubles); filled to the same load, the
///   rate is twice what it was. That is why the kind does not claim `grows`: resizing is
///   explicit, and it does not keep the rate bound.
///
/// The model ([`Filter::expected_fpr`]) is `1 − e^(−α/2^r)` at the current load
/// ([`model::fpr_at_load`]).
///
/// ```
/// use bloomlab::{Filter, Removable};
/// use bloomlab::filters::QuotientFilter;
/// let mut f = QuotientFilter::with_qr(10, 8).unwrap();
/// for i in 0u64..972 { f.try_insert(&i.to_le_bytes()).unwrap(); }
/// assert!(f.try_insert(b"one too many").is_err());     // 972 = ⌊0.95·1024⌋ is the limit
/// f.remove(&0u64.to_le_bytes()).unwrap();
/// f.resize().unwrap();                                  // 2048 slots, 7-bit remainders
/// assert_eq!((f.q(), f.r(), f.len()), (11, 7, 971));
/// assert!((1u64..972).all(|i| f.contains(&i.to_le_bytes())));
/// ```
#[derive(Debug, Clone)]
pub struct QuotientFilter<H = Xxh3> {
    table: Table,
    q: u32,
    r: u32,
    len: u64,
    max_load: f64,
    max_items: u64,
    hasher: H,
}

impl QuotientFilter<Xxh3> {
    /// A filter for `n` items at rate `p` with the default hash ([`model::sizing`]).
    ///
    /// # Errors
    /// As [`QuotientFilter::with_rate_and`].
    pub fn with_rate(n: u64, p: f64) -> Result<Self> {
        Self::with_rate_and(n, p, Xxh3::default())
    }

    /// A filter of `2^q` slots and `r`-bit remainders with the default hash.
    ///
    /// # Errors
    /// As [`QuotientFilter::with_qr_and`].
    pub fn with_qr(q: u32, r: u32) -> Result<Self> {
        Self::with_qr_and(q, r, Xxh3::default())
    }
}

/// A saved shape's checks (remainder and quotient widths, load limit), as the text of the error.
fn check_saved_shape(q: u32, r: u32, max_load: f64) -> std::result::Result<(), String> {
    model::check_remainder_bits(r)
        .and_then(|_| model::check_quotient_bits(q, r))
        .and_then(|_| model::check_max_load(max_load))
        .map(|_| ())
        .map_err(|e| e.to_string())
}

/// The most items `2^q` slots take at load limit `a`: `⌊a·2^q⌋`, and one slot stays empty.
fn max_items(q: u32, a: f64) -> u64 {
    let slots = 1u64 << q;
    ((a * slots as f64).floor() as u64).min(slots - 1)
}

impl<H: ItemHasher> QuotientFilter<H> {
    /// A filter for `n` items at rate `p`: `q = ⌈log2(n/0.95)⌉`, `r = ⌈log2(α/p)⌉` at the
    /// design load `α = n/2^q` ([`model::sizing`]).
    ///
    /// # Errors
    /// Invalid `n` or `p` (more than 32 remainder bits needed); [`Error::Allocation`].
    pub fn with_rate_and(n: u64, p: f64, hasher: H) -> Result<Self> {
        let (q, r) = model::sizing(n, Some(p), 0, model::DEFAULT_MAX_LOAD)?;
        Self::with_qr_and(q, r, hasher)
    }

    /// A filter for `n` items with `r`-bit remainders.
    ///
    /// # Errors
    /// Invalid `n` or `r`; [`Error::Allocation`].
    pub fn with_capacity_and(n: u64, r: u32, hasher: H) -> Result<Self> {
        let (q, r) = model::sizing(
            n,
            None,
            model::check_remainder_bits(r)?,
            model::DEFAULT_MAX_LOAD,
        )?;
        Self::with_qr_and(q, r, hasher)
    }

    /// A filter of `2^q` slots (q from 1 to 48) and `r`-bit remainders (1 to 32), `q + r ≤ 64`.
    ///
    /// # Errors
    /// Parameters out of range; [`Error::Allocation`].
    pub fn with_qr_and(q: u32, r: u32, hasher: H) -> Result<Self> {
        model::check_remainder_bits(r)?;
        model::check_quotient_bits(q, r)?;
        Ok(Self {
            table: Table::new(q, r)?,
            q,
            r,
            len: 0,
            max_load: model::DEFAULT_MAX_LOAD,
            max_items: max_items(q, model::DEFAULT_MAX_LOAD),
            hasher,
        })
    }

    /// Rebuild from saved parts (see [`crate::persist`]): `blocks` (per 64 slots, `2 + r`
    /// words: occupieds, runends, the packed remainders), `offsets` (one byte per block), the
    /// shape and the load limit. The table is checked invariant by invariant and the count of
    /// stored items is the number of used slots.
    ///
    /// # Errors
    /// [`Error::Corrupt`] naming what is wrong.
    pub fn from_parts(
        mut blocks: Vec<u64>,
        offsets: Vec<u8>,
        q: u32,
        r: u32,
        max_load: f64,
        hasher: H,
    ) -> Result<Self> {
        let corrupt = |what: String| Error::Corrupt(format!("quotient filter: {what}"));
        check_saved_shape(q, r, max_load).map_err(corrupt)?;
        let (dw, nb) = (table::data_words(q, r), table::blocks(q));
        if blocks.len() as u64 != dw || offsets.len() as u64 != nb {
            return Err(corrupt(format!(
                "{} block words and {} offsets, but 2^{q} slots of {r} bits need {dw} and {nb}",
                blocks.len(),
                offsets.len()
            )));
        }
        let slots = 1u64 << q;
        if slots < 64 {
            let past = u64::MAX << slots;
            let rem_bits = slots * u64::from(r);
            let rems_clean = blocks[2..].iter().enumerate().all(|(w, &v)| {
                let from = (w as u64 * 64).max(rem_bits) - w as u64 * 64;
                from >= 64 || v >> from == 0
            });
            if blocks[0] & past != 0 || blocks[1] & past != 0 || !rems_clean {
                return Err(corrupt("bits set past the last slot".into()));
            }
        }
        blocks
            .try_reserve_exact(1)
            .map_err(|_| Error::Allocation { bytes: 8 })?;
        blocks.push(0);
        let table = Table::from_words(blocks, offsets, q, r);
        let len = table.scan(|_, _| ()).map_err(corrupt)?;
        Ok(Self::assembled(table, q, r, len, max_load, hasher))
    }

    /// Rebuild from the parts of the classic three-bit layout (file layout version 1: per 64
    /// slots occupied, continuation and shifted words, then the packed remainders), checked as
    /// that layout's decoder did, and laid out again in this one.
    ///
    /// # Errors
    /// [`Error::Corrupt`] naming what is wrong; [`Error::Allocation`].
    pub fn from_classic_parts(
        meta: Vec<u64>,
        rems: Vec<u64>,
        q: u32,
        r: u32,
        max_load: f64,
        hasher: H,
    ) -> Result<Self> {
        let corrupt = |what: String| Error::Corrupt(format!("quotient filter: {what}"));
        check_saved_shape(q, r, max_load).map_err(corrupt)?;
        let (mw, rw) = legacy::words(q, r);
        if meta.len() as u64 != mw || rems.len() as u64 != rw {
            return Err(corrupt(format!(
                "{} metadata and {} remainder words, but 2^{q} slots of {r} bits need {mw} and {rw}",
                meta.len(),
                rems.len()
            )));
        }
        let slots = 1u64 << q;
        if slots < 64 && meta.iter().any(|w| w >> slots != 0) {
            return Err(corrupt("metadata bits set past the last slot".into()));
        }
        let rem_bits = slots * u64::from(r);
        if !rem_bits.is_multiple_of(64) && rems.last().is_some_and(|w| w >> (rem_bits % 64) != 0) {
            return Err(corrupt("remainder bits set past the last slot".into()));
        }
        let old = legacy::Table::from_words(meta, rems, q, r);
        old.scan(|_, _| ()).map_err(corrupt)?;
        let fps = old.fingerprints();
        drop(old);
        let mut table = Table::new(q, r)?;
        table.place_sorted(&fps);
        Ok(Self::assembled(
            table,
            q,
            r,
            fps.len() as u64,
            max_load,
            hasher,
        ))
    }

    /// A filter around a checked table holding `len` items.
    fn assembled(table: Table, q: u32, r: u32, len: u64, max_load: f64, hasher: H) -> Self {
        Self {
            table,
            q,
            r,
            len,
            max_load,
            max_items: max_items(q, max_load),
            hasher,
        }
    }

    /// The hash function.
    #[must_use]
    pub fn hasher(&self) -> &H {
        &self.hasher
    }

    /// Quotient bits: the table has `2^q` slots.
    #[must_use]
    pub fn q(&self) -> u32 {
        self.q
    }

    /// Remainder bits.
    #[must_use]
    pub fn r(&self) -> u32 {
        self.r
    }

    /// Number of slots, `2^q`.
    #[must_use]
    pub fn slots(&self) -> u64 {
        self.table.slots()
    }

    /// Stored items over slots, α.
    #[must_use]
    pub fn load_factor(&self) -> f64 {
        self.len as f64 / self.slots() as f64
    }

    /// The load past which inserts are refused.
    #[must_use]
    pub fn max_load(&self) -> f64 {
        self.max_load
    }

    /// The most items the filter takes at its load limit.
    #[must_use]
    pub fn capacity(&self) -> u64 {
        self.max_items
    }

    /// Set the load limit (strictly between 0 and 1; at least one slot stays empty).
    ///
    /// # Errors
    /// [`Error::InvalidParameter`] when `a` is out of range or below the current load.
    pub fn set_max_load(&mut self, a: f64) -> Result<()> {
        model::check_max_load(a)?;
        if max_items(self.q, a) < self.len {
            return Err(Error::invalid(
                crate::error::Param::Other("max-load"),
                a,
                format!("at least the current load {:.4}", self.load_factor()),
            ));
        }
        self.max_load = a;
        self.max_items = max_items(self.q, a);
        Ok(())
    }

    /// The block words: per 64 slots, occupieds, runends and `r` words of packed remainders
    /// (for savers).
    #[must_use]
    pub fn block_words(&self) -> &[u64] {
        &self.table.data[..self.table.data.len() - 1]
    }

    /// The offsets: one byte per block of 64 slots, saturated at 255 (for savers).
    #[must_use]
    pub fn offset_bytes(&self) -> &[u8] {
        &self.table.offs
    }

    /// Every stored fingerprint (`q + r` bits), ascending, repeats kept.
    #[must_use]
    pub fn fingerprints(&self) -> Vec<u64> {
        self.table.fingerprints()
    }

    /// The read-only view of where items go and what the slots hold, which the structure
    /// diagrams (and their tests) draw from.
    #[must_use]
    pub fn view(&self) -> QuotientView<'_, H> {
        QuotientView(self)
    }

    #[inline]
    fn split(&self, item: &[u8]) -> (u64, u64) {
        split_hash(self.hasher.hash64(item), self.q, self.r)
    }

    /// A filter of shape `(q, r)` holding `fps` (ascending), with this one's hasher and limit.
    fn rebuilt(&self, q: u32, r: u32, fps: &[u64]) -> Result<Self> {
        let mut table = Table::new(q, r)?;
        table.place_sorted(fps);
        Ok(Self {
            table,
            q,
            r,
            len: fps.len() as u64,
            max_load: self.max_load,
            max_items: max_items(q, self.max_load),
            hasher: self.hasher.clone(),
        })
    }

    /// Add every item of `other` (same `q`, `r` and hasher): the result holds both multisets
    /// of fingerprints, as if every item had been inserted here.
    ///
    /// # Errors
    /// [`Error::Incompatible`] when `q`, `r` or the hasher differ; [`Error::Full`] when both
    /// together exceed this filter's load limit; [`Error::Allocation`]. `self` is unchanged then.
    pub fn merge(&mut self, other: &Self) -> Result<()>
    where
        H: PartialEq,
    {
        if self.q != other.q || self.r != other.r || self.hasher != other.hasher {
            return Err(Error::Incompatible(format!(
                "quotient filters merge only with the same q, r and hash (q {} vs {}, r {} vs {}, hash {} vs {}, or another seed)",
                self.q,
                other.q,
                self.r,
                other.r,
                self.hasher.id(),
                other.hasher.id()
            )));
        }
        let total = self.len.saturating_add(other.len);
        if total > self.max_items {
            return Err(Error::Full {
                len: self.len,
                reason: "quotient filter: the merged items would exceed the load limit (nothing changed)",
            });
        }
        let (a, b) = (self.fingerprints(), other.fingerprints());
        let mut all = Vec::new();
        all.try_reserve_exact(a.len() + b.len())
            .map_err(|_| Error::Allocation {
                bytes: (a.len() + b.len()) as u128 * 8,
            })?;
        let (mut i, mut j) = (0, 0);
        while i < a.len() && j < b.len() {
            if a[i] <= b[j] {
                all.push(a[i]);
                i += 1;
            } else {
                all.push(b[j]);
                j += 1;
            }
        }
        all.extend_from_slice(&a[i..]);
        all.extend_from_slice(&b[j..]);
        *self = self.rebuilt(self.q, self.r, &all)?;
        Ok(())
    }

    /// Double the slots: `q + 1` quotient bits, `r − 1` remainder bits, the same fingerprints.
    /// The rate of the items already stored does not change; the filter takes twice the items,
    /// and at the same load its rate is twice what it was.
    ///
    /// # Errors
    /// [`Error::InvalidParameter`] when `r` is 1 (no bit left to move) or `q` is 48;
    /// [`Error::Allocation`]. `self` is unchanged then.
    pub fn resize(&mut self) -> Result<()> {
        if self.r < 2 {
            return Err(Error::invalid(
                crate::error::Param::FingerprintBits,
                self.r,
                "at least 2 remainder bits to resize (one moves into the quotient)",
            ));
        }
        model::check_quotient_bits(self.q + 1, self.r - 1)?;
        let fps = self.fingerprints();
        *self = self.rebuilt(self.q + 1, self.r - 1, &fps)?;
        Ok(())
    }
}

/// A read-only view of a [`QuotientFilter`]: an item's quotient and remainder, and each slot's
/// metadata bits and remainder ([`QuotientFilter::view`]).
#[derive(Debug)]
pub struct QuotientView<'a, H>(&'a QuotientFilter<H>);

impl<H: ItemHasher> QuotientView<'_, H> {
    /// The quotient and remainder of `item`.
    #[must_use]
    pub fn quotient_and_remainder(&self, item: &[u8]) -> (u64, u64) {
        self.0.split(item)
    }

    /// Slot `i`'s three classic metadata bits — occupied, continuation (it holds a remainder
    /// of the same run as the slot before), shifted (it holds a remainder of another quotient)
    /// — and its remainder. The table stores occupieds and runends (2.125 bits a slot); the
    /// other two are derived by a walk over the whole table, which is what the diagrams of
    /// small tables draw (each call walks every slot).
    #[must_use]
    pub fn slot(&self, i: u64) -> ([bool; 3], u64) {
        let t = &self.0.table;
        let owners = t.owners();
        let n = t.slots();
        let i = i & (n - 1);
        let here = owners[i as usize];
        let before = owners[((i + n - 1) & (n - 1)) as usize];
        let cont = here.is_some() && before == here && !t.runend(i + n - 1);
        let shifted = here.is_some_and(|x| x != i);
        ([t.occupied(i), cont, shifted], t.rem(i))
    }
}

impl<H: ItemHasher> Filter for QuotientFilter<H> {
    fn try_insert(&mut self, item: &[u8]) -> Result<()> {
        if self.len >= self.max_items {
            return Err(Error::Full {
                len: self.len,
                reason: "quotient filter at its load limit (nothing changed; resize() doubles it)",
            });
        }
        let (fq, fr) = self.split(item);
        self.table.insert(fq, fr);
        self.len += 1;
        Ok(())
    }

    #[inline]
    fn contains(&self, item: &[u8]) -> bool {
        let (fq, fr) = self.split(item);
        self.table.contains(fq, fr)
    }

    /// Items stored: successful inserts minus removes.
    fn len(&self) -> u64 {
        self.len
    }

    /// Blocks × (64 remainders + 136 metadata bits): `r + 2.125` bits a slot
    /// ([`model::table_bits`]).
    fn bits(&self) -> u64 {
        model::table_bits(self.q, self.r)
    }

    fn bytes(&self) -> usize {
        self.table.data.capacity() * 8 + self.table.offs.capacity()
    }

    /// One hash, one canonical slot.
    fn k(&self) -> u32 {
        1
    }

    fn classic_params(&self) -> Option<(u64, u32)> {
        None
    }

    /// `1 − e^(−α/2^r)` at the current load α (Bender et al. 2012).
    fn expected_fpr(&self) -> f64 {
        model::fpr_at_load(self.r, self.load_factor())
    }

    fn kind(&self) -> FilterKind {
        FilterKind::Quotient
    }

    fn hash_id(&self) -> HashId {
        self.hasher.id()
    }

    fn strategy_id(&self) -> Option<StrategyId> {
        None
    }

    fn details(&self) -> Vec<(String, String)> {
        vec![
            ("slots".into(), self.slots().to_string()),
            ("quotient bits".into(), self.q.to_string()),
            ("remainder bits".into(), self.r.to_string()),
            ("load factor".into(), format!("{:.4}", self.load_factor())),
            ("load limit".into(), format!("{:.4}", self.max_load)),
            (
                "bits per item".into(),
                if self.len == 0 {
                    "- (empty)".into()
                } else {
                    format!("{:.3}", model::bits_per_key(self.r, self.load_factor()))
                },
            ),
        ]
    }

    fn as_removable(&mut self) -> Option<&mut dyn Removable> {
        Some(self)
    }
}

impl<H: ItemHasher> Removable for QuotientFilter<H> {
    fn remove(&mut self, item: &[u8]) -> Result<()> {
        let (fq, fr) = self.split(item);
        if self.table.remove(fq, fr) {
            self.len -= 1;
            Ok(())
        } else {
            Err(Error::NotPresent)
        }
    }
}
