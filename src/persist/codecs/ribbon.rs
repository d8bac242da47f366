//! The ribbon filter's codec (kind 8).

use super::{
    ParamReader, Payload, Persist, PersistHasher, StaticBuild, plain_hasher, plain_identity,
    write_words_le,
};
use crate::bits::try_zeroed;
use crate::error::Result;
use crate::filter::{Filter, FilterKind};
use crate::filters::RibbonFilter;
use crate::persist::Identity;
use crate::persist::container::corrupt;
use crate::theory::ribbon as model;
use std::io::{self, Write};

/// The layout version of a ribbon file's params and payload (this is version 1).
pub const LAYOUT_VERSION: u32 = 1;

/// **Ribbon filter** (kind 8, no strategy), layout version 1: params = `version: u32 = 1`,
/// `r: u32` (result bits, 1 to 32), `attempts: u32` (seeds tried, 1 to 32), `width: u32 = 64`
/// (the ribbon width), `slots: u64` (rows m), `seed: u64` (the construction seed that solved),
/// `len: u64` (keys given), `distinct: u64` (distinct key hashes) (48 bytes); payload = the
/// interleaved solution, `m/64 · r` words little-endian (word `b·r + j` holds bit `j` of rows
/// `64b .. 64b+64`), so `L = m·r/8`. `m` must be the sizing of `distinct` keys
/// ([`model::slots`]), `distinct ≤ len`, and the payload exactly the solution.
impl<H: PersistHasher> Persist for RibbonFilter<H> {
    const KIND: FilterKind = FilterKind::Ribbon;
    fn identity(&self) -> Identity {
        plain_identity(self.hasher())
    }
    fn params(&self) -> Vec<u8> {
        let mut p = Vec::with_capacity(48);
        p.extend_from_slice(&LAYOUT_VERSION.to_le_bytes());
        p.extend_from_slice(&self.result_bits().to_le_bytes());
        p.extend_from_slice(&self.attempts().to_le_bytes());
        p.extend_from_slice(&model::WIDTH.to_le_bytes());
        p.extend_from_slice(&self.slots().to_le_bytes());
        StaticBuild::write_tail(&mut p, self.seed(), Filter::len(self), self.distinct());
        p
    }
    fn payload_len(&self) -> u64 {
        self.solution().len() as u64 * 8
    }
    fn write_payload(&self, w: &mut dyn Write) -> io::Result<()> {
        write_words_le(self.solution(), w)
    }
    fn decode(id: &Identity, params: &[u8], payload: &[u8]) -> Result<Self> {
        Self::decode_from(id, params, &mut Payload::from_slice(payload))
    }
    fn decode_from(id: &Identity, params: &[u8], payload: &mut Payload<'_>) -> Result<Self> {
        let kind = FilterKind::Ribbon;
        let mut p = ParamReader::new(params, kind);
        let version = p.u32("version")?;
        let r = p.u32("result bits")?;
        let attempts = p.u32("attempts")?;
        let width = p.u32("width")?;
        let slots = p.u64("slots")?;
        let build = StaticBuild::read_tail(&mut p, attempts)?;
        p.finish()?;
        let hasher: H = plain_hasher(kind, id)?;
        if version != LAYOUT_VERSION {
            return Err(corrupt(format!(
                "ribbon filter layout version {version}, this build reads {LAYOUT_VERSION}"
            )));
        }
        if width != model::WIDTH {
            return Err(corrupt(format!(
                "ribbon filter of width {width}, this build has width {}",
                model::WIDTH
            )));
        }
        model::check_result_bits(r)
            .map_err(|_| corrupt(format!("ribbon filter has {r}-bit results, not 1 to 32")))?;
        build.check("ribbon filter", model::MAX_KEYS)?;
        let (seed, len, distinct) = (build.seed, build.len, build.distinct);
        let want_slots = model::slots(distinct);
        if slots != want_slots {
            return Err(corrupt(format!(
                "ribbon filter has {slots} rows, but {distinct} keys get {want_slots}"
            )));
        }
        let words = slots / 64 * u64::from(r);
        if payload.len() != words * 8 {
            return Err(corrupt(format!(
                "ribbon filter payload is {} bytes, but {slots} rows of {r} bits need {}",
                payload.len(),
                words * 8
            )));
        }
        let n = usize::try_from(words).map_err(|_| corrupt(format!("ribbon of {words} words")))?;
        let mut solution: Vec<u64> = try_zeroed(n)?;
        payload.read_words(&mut solution)?;
        Ok(RibbonFilter::from_parts(
            solution,
            (slots, r),
            seed,
            (len, distinct, attempts),
            hasher,
        ))
    }
}

#[cfg(test)]
mod tests {
    use crate::error::Error;
    use crate::filter::Filter;
    use crate::filters::RibbonFilter;
    use crate::persist::{self, LoadOptions, SaveOptions};

    /// Change the params at `at` to `v`, fix the checksum, and load.
    fn load_with(b: &[u8], at: usize, v: &[u8]) -> crate::error::Result<RibbonFilter> {
        persist::load_with_params(b, at, v)
    }

    #[test]
    fn round_trips_and_refuses_inconsistent_params() {
        let f = RibbonFilter::from_keys((0u64..3000).map(u64::to_le_bytes), 11).unwrap();
        let b = persist::to_bytes(&f, &SaveOptions::default()).unwrap();
        // m = 64·⌈1.05·3000/64⌉ = 3200 rows of 11 bits: 50 blocks of 11 words.
        assert_eq!(f.slots(), 3200);
        assert_eq!(b.len(), 52 + 48 + 50 * 11 * 8 + 8);
        let g: RibbonFilter = persist::from_bytes(&b, &LoadOptions::new()).unwrap();
        assert_eq!(g.solution(), f.solution());
        assert_eq!(
            (g.len(), g.seed(), g.attempts(), g.result_bits()),
            (3000, f.seed(), f.attempts(), 11)
        );
        assert!((0u64..3000).all(|k| g.contains(&k.to_le_bytes())));
        for i in 5000u64..9000 {
            assert_eq!(f.contains(&i.to_le_bytes()), g.contains(&i.to_le_bytes()));
        }
        let bad: [(usize, &[u8]); 9] = [
            (0, &2u32.to_le_bytes()),     // version
            (4, &0u32.to_le_bytes()),     // r
            (4, &33u32.to_le_bytes()),    // r
            (8, &0u32.to_le_bytes()),     // attempts
            (8, &33u32.to_le_bytes()),    // attempts
            (12, &128u32.to_le_bytes()),  // width
            (16, &3264u64.to_le_bytes()), // slots: not the sizing of 3000 keys
            (40, &3001u64.to_le_bytes()), // distinct > len
            (4, &12u32.to_le_bytes()),    // r = 12: the payload holds 11-bit rows
        ];
        for (at, v) in bad {
            let e = load_with(&b, at, v).unwrap_err();
            assert!(matches!(e, Error::Corrupt(_)), "{at}: {e}");
        }
        assert!(load_with(&b, 0, &1u32.to_le_bytes()).is_ok());
    }
}
