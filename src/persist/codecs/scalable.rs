//! The scalable filter's codec (kind 4).

use super::{
    ParamReader, Payload, Persist, PersistHasher, PersistStrategy, read_bits, reserved_zero,
    strategy_of, write_words_le,
};
use crate::error::Result;
use crate::filter::{Filter, FilterKind};
use crate::filters::{ScalableBloom, ScalableParams};
use crate::persist::container::corrupt;
use crate::persist::{Identity, MAX_PARAMS_LEN};
use std::io::{self, Write};

/// **Scalable filter** (kind 4): params = `n0: u64`, `p: f64`, `growth: f64`,
/// `tightening: f64`, `nonscaling: u32` (0 or 1), `layers: u32`, then per layer (oldest first)
/// `m: u64`, `k: u32`, `reserved: u32 = 0`, `len: u64` (40 + 24·layers bytes, so at most 169
/// layers); payload = each layer's bit array as a standard filter's, one after the other. Every
/// layer's m and k must be the ones the params give it, by the current sizing rule or by the
/// legacy classic one (files written before it; [`ScalableBloom::check_layer`]). The layout is
/// unchanged, so both load with the same format version.
impl<H: PersistHasher, S: PersistStrategy> Persist for ScalableBloom<H, S> {
    const KIND: FilterKind = FilterKind::Scalable;
    fn identity(&self) -> Identity {
        Identity {
            hash: self.hasher().id(),
            key: self.hasher().key_material(),
            strategy: Some(self.strategy().id()),
        }
    }
    fn params(&self) -> Vec<u8> {
        let q = self.params();
        let mut p = Vec::with_capacity(40 + 24 * self.layer_count());
        p.extend_from_slice(&q.initial_capacity.to_le_bytes());
        p.extend_from_slice(&q.p.to_le_bytes());
        p.extend_from_slice(&q.growth.to_le_bytes());
        p.extend_from_slice(&q.tightening.to_le_bytes());
        p.extend_from_slice(&u32::from(q.nonscaling).to_le_bytes());
        p.extend_from_slice(&(self.layer_count() as u32).to_le_bytes());
        for l in self.layers() {
            p.extend_from_slice(&l.bit_vec().len().to_le_bytes());
            p.extend_from_slice(&Filter::k(l).to_le_bytes());
            p.extend_from_slice(&0u32.to_le_bytes());
            p.extend_from_slice(&Filter::len(l).to_le_bytes());
        }
        p
    }
    fn payload_len(&self) -> u64 {
        self.layers()
            .map(|l| l.bit_vec().words().len() as u64 * 8)
            .sum()
    }
    fn write_payload(&self, w: &mut dyn Write) -> io::Result<()> {
        for l in self.layers() {
            write_words_le(l.bit_vec().words(), w)?;
        }
        Ok(())
    }
    fn decode(id: &Identity, params: &[u8], payload: &[u8]) -> Result<Self> {
        Self::decode_from(id, params, &mut Payload::from_slice(payload))
    }
    fn decode_from(id: &Identity, params: &[u8], payload: &mut Payload<'_>) -> Result<Self> {
        let kind = FilterKind::Scalable;
        let mut r = ParamReader::new(params, kind);
        let initial_capacity = r.u64("n0")?;
        let p = r.f64("p")?;
        let growth = r.f64("growth")?;
        let tightening = r.f64("tightening")?;
        let nonscaling = match r.u32("nonscaling")? {
            0 => false,
            1 => true,
            v => {
                return Err(corrupt(format!(
                    "scalable filter nonscaling flag is {v}, not 0 or 1"
                )));
            }
        };
        let count = r.u32("layer count")?;
        // Each layer takes 24 params bytes: the params length bounds the count.
        if count == 0 || count as usize > (MAX_PARAMS_LEN as usize - 40) / 24 {
            return Err(corrupt(format!("scalable filter has {count} layers")));
        }
        let mut heads = Vec::with_capacity(count as usize);
        for _ in 0..count {
            let m = r.u64("layer m")?;
            let k = r.u32("layer k")?;
            reserved_zero(kind, r.u32("layer reserved")?)?;
            let len = r.u64("layer len")?;
            heads.push((m, k, len));
        }
        r.finish()?;
        let strategy: S = strategy_of(kind, id)?;
        let hasher = H::from_key_material(id.hash, id.key)?;
        let params = ScalableParams {
            initial_capacity,
            p,
            growth,
            tightening,
            nonscaling,
        };
        // Check every layer's size against the params and the payload before allocating.
        let mut total = 0u64;
        for (i, &(m, k, _)) in heads.iter().enumerate() {
            ScalableBloom::<H, S>::check_layer(&params, strategy, i, m, k)?;
            total = total
                .checked_add(m.div_ceil(64) * 8)
                .ok_or_else(|| corrupt("scalable layers are impossibly large"))?;
        }
        if total != payload.len() {
            return Err(corrupt(format!(
                "scalable filter payload is {} bytes, but its layers need {total}",
                payload.len()
            )));
        }
        let mut layers = Vec::with_capacity(heads.len());
        for (i, &(m, k, len)) in heads.iter().enumerate() {
            let bits = read_bits(&format!("scalable layer {i}"), m, payload)?;
            layers.push((bits, k, len));
        }
        ScalableBloom::from_parts(params, layers, hasher, strategy)
    }
}
