//! The binary fuse filter's codec (kind 7).

use super::{
    ParamReader, Payload, Persist, PersistHasher, StaticBuild, check_static_params, plain_hasher,
    plain_identity, read_table, reserved_zero,
};
use crate::error::Result;
use crate::filter::{Filter, FilterKind};
use crate::filters::BinaryFuseFilter;
use crate::persist::Identity;
use crate::persist::container::corrupt;
use crate::theory::binary_fuse as model;
use std::io::{self, Write};

/// **Binary fuse filter** (kind 7, no strategy): params = `f: u32` (8 or 16), `attempts: u32`
/// (1 to 32), `arity: u32` (3 or 4; files before 4-wise filters hold 3), `reserved: u32 = 0`, `seed: u64`, `len: u64` (keys given),
/// `distinct: u64` (40 bytes); payload = the slots of [`model::layout`]`(arity, distinct)`, each
/// `f/8` bytes little-endian. The layout is not stored: it is the paper's sizing of `distinct`
/// keys as cut by the successful attempt ([`model::layout_for_attempt`]), and the payload must
/// be exactly that table.
impl<H: PersistHasher> Persist for BinaryFuseFilter<H> {
    const KIND: FilterKind = FilterKind::BinaryFuse;
    fn identity(&self) -> Identity {
        plain_identity(self.hasher())
    }
    fn params(&self) -> Vec<u8> {
        let mut p = Vec::with_capacity(40);
        p.extend_from_slice(&self.table().fingerprint_bits().to_le_bytes());
        p.extend_from_slice(&self.attempts().to_le_bytes());
        p.extend_from_slice(&self.arity().to_le_bytes());
        p.extend_from_slice(&0u32.to_le_bytes());
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
        let kind = FilterKind::BinaryFuse;
        let mut r = ParamReader::new(params, kind);
        let f = r.u32("fingerprint bits")?;
        let attempts = r.u32("attempts")?;
        let arity = r.u32("arity")?;
        let reserved = r.u32("reserved")?;
        let build = StaticBuild::read_tail(&mut r, attempts)?;
        r.finish()?;
        reserved_zero(kind, reserved)?;
        let hasher: H = plain_hasher(kind, id)?;
        check_static_params("binary fuse filter", f, &build)?;
        let (seed, len, distinct) = (build.seed, build.len, build.distinct);
        if model::check_arity(arity).is_err() {
            return Err(corrupt(format!(
                "binary fuse filter is {arity}-wise; this build reads 3-wise and 4-wise"
            )));
        }
        let (l, segments, slots) =
            model::layout_for_attempt(arity, distinct, attempts.saturating_sub(1));
        let want = slots * u64::from(f / 8);
        if payload.len() != want {
            return Err(corrupt(format!(
                "binary fuse filter payload is {} bytes, but {distinct} keys get {slots} slots of {f} bits ({want} bytes)",
                payload.len()
            )));
        }
        // distinct ≤ 2^31 keeps the layout's numbers below 2^32.
        let table = read_table(f, payload)?;
        Ok(BinaryFuseFilter::from_parts(
            table,
            (arity, l as u32, segments as u32),
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
    use crate::filters::BinaryFuseFilter;
    use crate::persist::{self, LoadOptions, SaveOptions};

    /// Change the params at `at` to `v`, fix the checksum, and load.
    fn load_with(b: &[u8], at: usize, v: &[u8]) -> crate::error::Result<BinaryFuseFilter> {
        persist::load_with_params(b, at, v)
    }

    /// Arity 3 and 4 are decoded (each with its own layout), arity 5 is refused.
    #[test]
    fn decodes_arity_3_and_4_and_refuses_5() {
        for (arity, f) in [(3u32, 8u32), (4, 8), (4, 16)] {
            let x = BinaryFuseFilter::from_keys_arity_and(
                (0u64..3000).map(u64::to_le_bytes),
                f,
                arity,
                crate::hash::Xxh3::default(),
            )
            .unwrap();
            let b = persist::to_bytes(&x, &SaveOptions::default()).unwrap();
            assert_eq!(b[52 + 8..52 + 12], arity.to_le_bytes());
            let g: BinaryFuseFilter = persist::from_bytes(&b, &LoadOptions::new()).unwrap();
            assert_eq!((g.arity(), g.table()), (arity, x.table()));
            assert!((0u64..3000).all(|k| g.contains(&k.to_le_bytes())));
            for k in 3000u64..6000 {
                assert_eq!(g.contains(&k.to_le_bytes()), x.contains(&k.to_le_bytes()));
            }
            let e = load_with(&b, 8, &5u32.to_le_bytes()).unwrap_err();
            assert!(e.to_string().contains("5-wise"), "{e}");
        }
    }

    #[test]
    fn round_trips_and_refuses_inconsistent_params() {
        let f = BinaryFuseFilter::from_keys((0u64..3000).map(u64::to_le_bytes), 8).unwrap();
        let b = persist::to_bytes(&f, &SaveOptions::default()).unwrap();
        let g: BinaryFuseFilter = persist::from_bytes(&b, &LoadOptions::new()).unwrap();
        assert_eq!(g.table(), f.table());
        assert!((0u64..3000).all(|k| g.contains(&k.to_le_bytes())));
        let bad: [(usize, &[u8]); 6] = [
            (0, &12u32.to_le_bytes()),    // f
            (4, &0u32.to_le_bytes()),     // attempts
            (8, &4u32.to_le_bytes()),     // arity 4: another layout than the payload
            (12, &1u32.to_le_bytes()),    // reserved
            (32, &3001u64.to_le_bytes()), // distinct > len
            (32, &100u64.to_le_bytes()),  // another layout than the payload
        ];
        for (at, v) in bad {
            let e = load_with(&b, at, v).unwrap_err();
            assert!(matches!(e, Error::Corrupt(_)), "{at}: {e}");
        }
    }
}
