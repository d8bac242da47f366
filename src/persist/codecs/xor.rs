//! The xor filter's codec (kind 6).

use super::{
    ParamReader, Payload, Persist, PersistHasher, StaticBuild, check_static_params, plain_hasher,
    plain_identity, read_table,
};
use crate::error::Result;
use crate::filter::{Filter, FilterKind};
use crate::filters::XorFilter;
use crate::persist::Identity;
use crate::persist::container::corrupt;
use crate::theory::xor as model;
use std::io::{self, Write};

/// **Xor filter** (kind 6, no strategy): params = `f: u32` (fingerprint bits, 8 or 16),
/// `attempts: u32` (seeds tried, 1 to 32), `segment_length: u64` (L), `seed: u64` (the
/// construction seed that peeled), `len: u64` (keys given), `distinct: u64` (distinct key
/// hashes) (40 bytes); payload = the `3·L` slots in order, each `f/8` bytes little-endian, so
/// `L_payload = 3·L·f/8`. `L` must be the sizing of `distinct` keys
/// ([`model::segment_length`]), `distinct ≤ len`, and the payload exactly the table.
impl<H: PersistHasher> Persist for XorFilter<H> {
    const KIND: FilterKind = FilterKind::Xor;
    fn identity(&self) -> Identity {
        plain_identity(self.hasher())
    }
    fn params(&self) -> Vec<u8> {
        let mut p = Vec::with_capacity(40);
        p.extend_from_slice(&self.table().fingerprint_bits().to_le_bytes());
        p.extend_from_slice(&self.attempts().to_le_bytes());
        p.extend_from_slice(&u64::from(self.segment_length()).to_le_bytes());
        StaticBuild::write_tail(&mut p, self.seed(), Filter::len(self), self.distinct());
        p
    }
    fn payload_len(&self) -> u64 {
        self.table().bytes() as u64
    }
    fn write_payload(&self, w: &mut dyn Write) -> io::Result<()> {
        self.table().write_le(w)
    }
    fn decode(id: &Identity, params: &[u8], payload: &[u8]) -> Result<Self> {
        Self::decode_from(id, params, &mut Payload::from_slice(payload))
    }
    fn decode_from(id: &Identity, params: &[u8], payload: &mut Payload<'_>) -> Result<Self> {
        let kind = FilterKind::Xor;
        let mut r = ParamReader::new(params, kind);
        let f = r.u32("fingerprint bits")?;
        let attempts = r.u32("attempts")?;
        let segment = r.u64("segment length")?;
        let build = StaticBuild::read_tail(&mut r, attempts)?;
        r.finish()?;
        let hasher: H = plain_hasher(kind, id)?;
        check_static_params("xor filter", f, &build)?;
        let (seed, len, distinct) = (build.seed, build.len, build.distinct);
        let want_segment = model::segment_length(distinct);
        if segment != want_segment {
            return Err(corrupt(format!(
                "xor filter has segments of {segment} slots, but {distinct} keys get {want_segment}"
            )));
        }
        let want = 3 * segment * u64::from(f / 8);
        if payload.len() != want {
            return Err(corrupt(format!(
                "xor filter payload is {} bytes, but {} slots of {f} bits need {want}",
                payload.len(),
                3 * segment
            )));
        }
        let segment = u32::try_from(segment)
            .map_err(|_| corrupt(format!("xor filter segment of {segment} slots")))?;
        let table = read_table(f, payload)?;
        Ok(XorFilter::from_parts(
            table,
            segment,
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
    use crate::filters::XorFilter;
    use crate::persist::{self, LoadOptions, SaveOptions};

    /// Change the params at `at` to `v`, fix the checksum, and load.
    fn load_with(b: &[u8], at: usize, v: &[u8]) -> crate::error::Result<XorFilter> {
        persist::load_with_params(b, at, v)
    }

    #[test]
    fn round_trips_and_refuses_inconsistent_params() {
        let f = XorFilter::from_keys((0u64..300).map(u64::to_le_bytes), 16).unwrap();
        let b = persist::to_bytes(&f, &SaveOptions::default()).unwrap();
        assert_eq!(b.len(), 52 + 40 + 2 * 3 * 134 + 8); // L = ⌈(369 + 32)/3⌉
        let g: XorFilter = persist::from_bytes(&b, &LoadOptions::new()).unwrap();
        assert_eq!(g.table(), f.table());
        assert_eq!(
            (g.len(), g.seed(), g.attempts()),
            (300, f.seed(), f.attempts())
        );
        assert!((0u64..300).all(|k| g.contains(&k.to_le_bytes())));
        let bad: [(usize, &[u8]); 5] = [
            (0, &12u32.to_le_bytes()),   // f
            (4, &0u32.to_le_bytes()),    // attempts
            (4, &33u32.to_le_bytes()),   // attempts
            (8, &135u64.to_le_bytes()),  // segment length
            (32, &301u64.to_le_bytes()), // distinct > len, and another sizing
        ];
        for (at, v) in bad {
            let e = load_with(&b, at, v).unwrap_err();
            assert!(matches!(e, Error::Corrupt(_)), "{at}: {e}");
        }
        // 8-bit fingerprints with a 16-bit payload: the length does not fit.
        assert!(load_with(&b, 0, &8u32.to_le_bytes()).is_err());
    }
}
