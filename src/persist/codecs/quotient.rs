//! The quotient filter's codec (kind 9).

use super::{
    ParamReader, Payload, Persist, PersistHasher, plain_hasher, plain_identity, write_words_le,
};
use crate::bits::try_zeroed;
use crate::error::{Error, Result};
use crate::filter::{Filter, FilterKind};
use crate::filters::QuotientFilter;
use crate::persist::Identity;
use crate::persist::container::corrupt;
use crate::theory::quotient as model;
use std::io::{self, Write};

/// The layout version this codec writes: 2, the rank-select blocks. It reads 1 (the classic
/// three-bit layout) too, converting on load.
pub const LAYOUT_VERSION: u32 = 2;

/// The classic layout, which files written before the rank-select table hold.
pub const CLASSIC_LAYOUT_VERSION: u32 = 1;

/// **Quotient filter** (kind 9, no strategy). Params (32 bytes), both layouts: `layout: u32`,
/// `q: u32` (quotient bits, 1 to 48), `r: u32` (remainder bits, 1 to 32, `q + r ≤ 64`),
/// `reserved: u32 = 0`, `len: u64`, `max_load: f64` (strictly between 0 and 1).
///
/// * **Layout 2** (written): payload = per block of 64 slots (one block under 64 slots) `2 + r`
///   words — occupieds (bit `i`: quotient `64b + i` has a run), runends (bit `i`: slot `64b + i`
///   ends a run), then `r` words of packed remainders (slot `64b + i` at bits `i·r ..`) — and
///   then one offset byte per block (slots from the block's start taken by runs of earlier
///   quotients, saturated at 255), zero-padded to whole words; all little-endian.
/// * **Layout 1** (read, then laid out in layout 2): payload = `3·⌈2^q/64⌉` metadata words (per
///   64 slots: occupied, continuation, shifted) and then `⌈2^q·r/64⌉` remainder words.
///
/// Either way the table must satisfy every invariant of its layout (checked slot by slot: runs
/// sorted and owned by occupied quotients in order, empty slots all zero, one slot at least
/// empty, nothing past the last slot, and in layout 2 every offset exact), and `len` must equal
/// its used slots.
impl<H: PersistHasher> Persist for QuotientFilter<H> {
    const KIND: FilterKind = FilterKind::Quotient;
    fn identity(&self) -> Identity {
        plain_identity(self.hasher())
    }
    fn params(&self) -> Vec<u8> {
        let mut p = Vec::with_capacity(32);
        p.extend_from_slice(&LAYOUT_VERSION.to_le_bytes());
        p.extend_from_slice(&self.q().to_le_bytes());
        p.extend_from_slice(&self.r().to_le_bytes());
        p.extend_from_slice(&0u32.to_le_bytes());
        p.extend_from_slice(&Filter::len(self).to_le_bytes());
        p.extend_from_slice(&self.max_load().to_le_bytes());
        p
    }
    fn payload_len(&self) -> u64 {
        (self.block_words().len() + self.offset_bytes().len().div_ceil(8)) as u64 * 8
    }
    fn write_payload(&self, w: &mut dyn Write) -> io::Result<()> {
        write_words_le(self.block_words(), w)?;
        let offs = self.offset_bytes();
        w.write_all(offs)?;
        w.write_all(&[0u8; 8][..offs.len().next_multiple_of(8) - offs.len()])
    }
    fn decode(id: &Identity, params: &[u8], payload: &[u8]) -> Result<Self> {
        Self::decode_from(id, params, &mut Payload::from_slice(payload))
    }
    fn decode_from(id: &Identity, params: &[u8], payload: &mut Payload<'_>) -> Result<Self> {
        let kind = FilterKind::Quotient;
        let mut rd = ParamReader::new(params, kind);
        let layout = rd.u32("layout version")?;
        let q = rd.u32("q")?;
        let r = rd.u32("r")?;
        let reserved = rd.u32("reserved")?;
        let len = rd.u64("len")?;
        let max_load = rd.f64("max load")?;
        rd.finish()?;
        let hasher: H = plain_hasher(kind, id)?;
        if layout != LAYOUT_VERSION && layout != CLASSIC_LAYOUT_VERSION {
            return Err(corrupt(format!(
                "quotient filter layout version {layout} is not known (this build reads {CLASSIC_LAYOUT_VERSION} and {LAYOUT_VERSION})"
            )));
        }
        if reserved != 0 {
            return Err(corrupt(format!(
                "quotient filter reserved field is {reserved}, not 0"
            )));
        }
        model::check_remainder_bits(r)
            .and_then(|_| model::check_quotient_bits(q, r))
            .and_then(|_| model::check_max_load(max_load))
            .map_err(|e| corrupt(format!("quotient filter: {e}")))?;
        let slots = 1u64 << q;
        let (first, second) = if layout == LAYOUT_VERSION {
            let blocks = model::blocks(q);
            (blocks * (2 + u64::from(r)), blocks.div_ceil(8))
        } else {
            (3 * slots.div_ceil(64), (slots * u64::from(r)).div_ceil(64))
        };
        if Some(payload.len()) != (first + second).checked_mul(8) {
            return Err(corrupt(format!(
                "quotient filter payload is {} bytes, but 2^{q} slots of {r} bits need {} in layout {layout}",
                payload.len(),
                (first + second) * 8
            )));
        }
        if len >= slots {
            return Err(corrupt(format!(
                "quotient filter says it holds {len} items in 2^{q} slots (one must stay empty)"
            )));
        }
        let words = |n: u64| {
            usize::try_from(n).map_err(|_| Error::Allocation {
                bytes: u128::from(n) * 8,
            })
        };
        let mut a: Vec<u64> = try_zeroed(words(first)?)?;
        payload.read_words(&mut a)?;
        let mut b: Vec<u64> = try_zeroed(words(second)?)?;
        payload.read_words(&mut b)?;
        let g = if layout == LAYOUT_VERSION {
            let blocks = model::blocks(q) as usize;
            let mut offs: Vec<u8> = b.iter().flat_map(|w| w.to_le_bytes()).collect();
            if offs[blocks..].iter().any(|&x| x != 0) {
                return Err(corrupt(
                    "quotient filter offsets are not zero-padded".to_string(),
                ));
            }
            offs.truncate(blocks);
            QuotientFilter::from_parts(a, offs, q, r, max_load, hasher)?
        } else {
            QuotientFilter::from_classic_parts(a, b, q, r, max_load, hasher)?
        };
        if g.len() != len {
            return Err(corrupt(format!(
                "quotient filter says it holds {len} items, but its table holds {}",
                g.len()
            )));
        }
        Ok(g)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::hash::Xxh3;
    use crate::persist::{LoadOptions, SaveOptions, from_bytes, to_bytes};
    use crate::registry::AnyFilter;

    fn filled() -> QuotientFilter<Xxh3> {
        let mut f = QuotientFilter::with_qr(9, 11).unwrap();
        for i in 0u64..400 {
            f.insert(&i.to_le_bytes());
        }
        f
    }

    #[test]
    fn round_trips_bit_for_bit() {
        let mut f = filled();
        f.set_max_load(0.9).unwrap();
        let bytes = to_bytes(&f, &SaveOptions::default()).unwrap();
        let g: QuotientFilter<Xxh3> = from_bytes(&bytes, &LoadOptions::new()).unwrap();
        assert_eq!((g.q(), g.r(), g.len(), g.max_load()), (9, 11, 400, 0.9));
        assert_eq!(g.block_words(), f.block_words());
        assert_eq!(g.offset_bytes(), f.offset_bytes());
        assert!((0u64..400).all(|i| g.contains(&i.to_le_bytes())));
        let any = AnyFilter::from_bytes(&bytes, &LoadOptions::new()).unwrap();
        assert_eq!(any.kind(), FilterKind::Quotient);
    }

    /// Rewrite one params field of a saved filter (fixing the checksum) and decode it.
    fn with_param(f: &QuotientFilter<Xxh3>, at: usize, bytes: &[u8]) -> Result<AnyFilter> {
        let mut b = to_bytes(f, &SaveOptions::default()).unwrap();
        let start = crate::persist::HEADER_LEN + at;
        b[start..start + bytes.len()].copy_from_slice(bytes);
        crate::persist::reseal(&mut b);
        AnyFilter::from_bytes(&b, &LoadOptions::new())
    }

    #[test]
    fn bad_parameters_are_refused_as_corrupt() {
        let f = filled();
        assert!(with_param(&f, 0, &2u32.to_le_bytes()).is_ok());
        let cases: [(usize, Vec<u8>); 12] = [
            (0, 1u32.to_le_bytes().to_vec()), // layout version 1: another payload size
            (0, 3u32.to_le_bytes().to_vec()), // layout version 3
            (4, 0u32.to_le_bytes().to_vec()), // q = 0
            (4, 49u32.to_le_bytes().to_vec()), // q = 49
            (4, 10u32.to_le_bytes().to_vec()), // q disagrees with the payload
            (8, 0u32.to_le_bytes().to_vec()), // r = 0
            (8, 33u32.to_le_bytes().to_vec()), // r = 33
            (12, 1u32.to_le_bytes().to_vec()), // reserved
            (16, 399u64.to_le_bytes().to_vec()), // len disagrees with the table
            (16, 512u64.to_le_bytes().to_vec()), // len fills every slot
            (24, 1.0f64.to_le_bytes().to_vec()), // max load 1
            (24, f64::NAN.to_le_bytes().to_vec()), // max load NaN
        ];
        for (at, bytes) in cases {
            let e = with_param(&f, at, &bytes).unwrap_err();
            assert!(matches!(e, Error::Corrupt(_)), "at {at}: {e}");
        }
    }

    #[test]
    fn a_broken_table_is_refused() {
        let f = filled();
        let mut b = to_bytes(&f, &SaveOptions::default()).unwrap();
        // Set every runends bit of the first block: runs no longer match their quotients.
        let start = crate::persist::HEADER_LEN + 32 + 8;
        b[start..start + 8].copy_from_slice(&u64::MAX.to_le_bytes());
        crate::persist::reseal(&mut b);
        let e = AnyFilter::from_bytes(&b, &LoadOptions::new()).unwrap_err();
        assert!(matches!(e, Error::Corrupt(_)), "{e}");
    }
}
