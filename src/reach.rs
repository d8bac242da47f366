//! Reachability audit: does every kind's index derivation reach the whole table, at every size
//! from 2^20 to 2^40 bits (or slots, or buckets)?
//!
//! The bugs that hurt at a billion keys are range reductions that stop short: fastbloom's 32-bit
//! reduction reached 2^32 of ~2.9·10^10 bits; Guava's `MURMUR128_MITZ_32` never passes 2^31 − 1.
//! Such a filter works, just with a rate far above its design, and no test at 10^6 keys shows
//! it. This audit drives each kind's own derivation, the function the filter itself calls (no
//! copy: [`crate::hash::AnyStrategy`], [`crate::filters::blocked::block_of`],
//! [`crate::filters::split_block::block_of`], [`crate::filters::cuckoo::bucket_and_fp`] with
//! [`crate::filters::cuckoo::alt_bucket`], [`crate::filters::quotient::split_hash`],
//! [`crate::filters::xor::positions`], [`crate::filters::binary_fuse::positions`],
//! [`crate::filters::ribbon::start_row`]), with a stream of pseudo-random hashes (splitmix64 of
//! a counter) for a table of the size, **without allocating the table**: only the positions are
//! computed. Two statistics per (kind, size):
//!
//! * **top share**: the share of positions in the top-most 1/64 of the table, divided by 1/64
//!   (1.0 for a uniform derivation, 0 when the top is unreachable);
//! * **χ² over 1024 regions** of equal width, and its p-value ([`crate::stats::chi_square_uniform`]).
//!
//! A derivation passes at a size when the p-value is at least [`P_MIN`] = 10^−6 (one false alarm
//! in a million per cell, so a table of a few hundred cells stays quiet) and no position is
//! outside the table. Guava's MITZ_32 fails from 2^32 bits (beyond 2^31 + 2^31/64 its top
//! 1/64 is out of reach), and so does [`Derivation::Truncated32`], a deliberately broken 32-bit
//! multiply-shift kept to show the audit catches what it is for.

use crate::filters::{binary_fuse, blocked, cuckoo, quotient, ribbon, split_block, xor};
use crate::hash::{AnyStrategy, Hash128, IndexStrategy, StrategyId, mix64};
use crate::stats;
use crate::theory;

/// Regions of the χ² test.
pub const REGIONS: usize = 1024;
/// The smallest χ² p-value that passes.
pub const P_MIN: f64 = 1e-6;
/// Hash functions per key for the Bloom strategies (k = 7: p ≈ 1% at 10 bits per key).
pub const BLOOM_K: u32 = 7;
/// Table sizes audited by default: 2^20 to 2^40.
pub const SIZES_LOG2: std::ops::RangeInclusive<u32> = 20..=40;

/// An index derivation: what maps a key's hash to its places in the table.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Derivation {
    /// A Bloom filter's k positions by an index strategy (standard; counting and the scalable
    /// filter's layers use the same strategies).
    Standard(StrategyId),
    /// The blocked filter's block (512-bit blocks).
    Blocked,
    /// The split-block filter's block (256-bit blocks).
    SplitBlock,
    /// A cuckoo filter's two buckets.
    Cuckoo,
    /// A quotient filter's canonical slot (2^q slots).
    Quotient,
    /// An xor filter's three slots.
    Xor,
    /// A binary fuse filter's window start (3-wise), its three slots checked to lie inside.
    BinaryFuse,
    /// A ribbon filter's window start.
    Ribbon,
    /// Deliberately broken, for the audit's own test: the multiply-shift reduction done in 32
    /// bits, `((h mod 2^32)·(m mod 2^32)) >> 32`, as a port to 32-bit arithmetic would do it.
    Truncated32,
}

/// The result of one (derivation, size) cell.
#[derive(Debug, Clone, PartialEq)]
pub struct Coverage {
    /// What was audited.
    pub derivation: Derivation,
    /// The size asked for: 2^this bits (Bloom kinds, blocks of 512 or 256 bits) or slots or
    /// buckets (the others).
    pub size_log2: u32,
    /// Units of the table the derivation indexes (bits, blocks, buckets, slots).
    pub units: u64,
    /// Positions computed.
    pub positions: u64,
    /// Positions at or past the table's end (always a failure).
    pub outside: u64,
    /// Share of positions in the top 1/64 of the table over 1/64 (1.0 uniform).
    pub top_share: f64,
    /// χ² over [`REGIONS`] regions.
    pub chi2: f64,
    /// Its p-value.
    pub p_value: f64,
}

impl Coverage {
    /// No position outside, and a χ² p-value of at least [`P_MIN`].
    #[must_use]
    pub fn passes(&self) -> bool {
        self.outside == 0 && self.p_value >= P_MIN
    }
}

impl Derivation {
    /// Every real derivation (not [`Derivation::Truncated32`]): standard under each strategy,
    /// then the other kinds.
    #[must_use]
    pub fn all() -> Vec<Derivation> {
        let mut v: Vec<Derivation> = StrategyId::ALL
            .into_iter()
            .map(Derivation::Standard)
            .collect();
        v.extend([
            Derivation::Blocked,
            Derivation::SplitBlock,
            Derivation::Cuckoo,
            Derivation::Quotient,
            Derivation::Xor,
            Derivation::BinaryFuse,
            Derivation::Ribbon,
        ]);
        v
    }

    /// A short name: `standard/guava32`, `cuckoo`, …
    #[must_use]
    pub fn name(self) -> String {
        match self {
            Derivation::Standard(s) => format!("standard/{}", s.name()),
            Derivation::Blocked => "blocked".into(),
            Derivation::SplitBlock => "split-block".into(),
            Derivation::Cuckoo => "cuckoo".into(),
            Derivation::Quotient => "quotient".into(),
            Derivation::Xor => "xor".into(),
            Derivation::BinaryFuse => "binary-fuse".into(),
            Derivation::Ribbon => "ribbon".into(),
            Derivation::Truncated32 => "truncated-32 (broken on purpose)".into(),
        }
    }

    /// What the positions index, for a table of `2^size_log2`.
    #[must_use]
    pub fn unit(self) -> &'static str {
        match self {
            Derivation::Standard(_) | Derivation::Truncated32 => "bits",
            Derivation::Blocked => "512-bit blocks of 2^s bits",
            Derivation::SplitBlock => "256-bit blocks of 2^s bits",
            Derivation::Cuckoo => "buckets",
            Derivation::Quotient | Derivation::Xor => "slots",
            Derivation::BinaryFuse | Derivation::Ribbon => "window starts",
        }
    }

    /// The table of size `2^size_log2` this derivation indexes: its parameters, or why the kind
    /// does not make a table that large.
    fn table(self, size_log2: u32) -> std::result::Result<Table, String> {
        let size = 1u64 << size_log2;
        // The static kinds hold at most 2^31 keys (theory::xor::MAX_KEYS, ribbon::MAX_KEYS).
        let static_limit = |keys: f64| {
            if keys > theory::xor::MAX_KEYS as f64 {
                Err(format!(
                    "a table of 2^{size_log2} slots holds {keys:.3e} keys; the kind takes at most 2^31"
                ))
            } else {
                Ok(())
            }
        };
        Ok(match self {
            Derivation::Standard(_) | Derivation::Truncated32 | Derivation::Cuckoo => {
                Table::Units(size)
            }
            Derivation::Blocked => Table::Units(size / theory::blocked::BLOCK_BITS),
            Derivation::SplitBlock => Table::Units(size / 256),
            Derivation::Quotient => Table::Units(size),
            Derivation::Xor => {
                static_limit(size as f64 / 1.23)?;
                let l = (size / 3) as u32;
                Table::Segments {
                    l,
                    starts: 0,
                    units: 3 * u64::from(l),
                    slots: 3 * u64::from(l),
                }
            }
            Derivation::BinaryFuse => {
                static_limit(size as f64 / 1.125)?;
                let n = (size as f64 / 1.125) as u64;
                let (l, segments, slots) = theory::binary_fuse::layout(3, n);
                // Audited on its window starts: the slots of a window are uniform only in
                // the middle (the first and last two segments are reached by fewer windows,
                // by design), while the start is the range reduction that could stop short.
                Table::Segments {
                    l: l as u32,
                    starts: (segments * l) as u32,
                    units: segments * l,
                    slots,
                }
            }
            Derivation::Ribbon => {
                static_limit(size as f64)?;
                Table::Units(size)
            }
        })
    }

    /// Call `f` with each position of the hash `h` in the table `t`.
    fn positions(self, h: Hash128, t: Table, size_log2: u32, mut f: impl FnMut(u64)) {
        match (self, t) {
            (Derivation::Standard(s), Table::Units(m)) => {
                AnyStrategy(s).for_each_hashed(h, BLOOM_K, m, |x| {
                    f(x);
                    true
                });
            }
            (Derivation::Blocked, Table::Units(b)) => f(blocked::block_of(h.lo, b)),
            (Derivation::SplitBlock, Table::Units(b)) => f(split_block::block_of(h.lo, b)),
            (Derivation::Cuckoo, Table::Units(m)) => {
                // 12-bit fingerprints (fp_max = 2^12 − 1): both buckets.
                let (i, fp) = cuckoo::bucket_and_fp(h.lo, m, (1 << 12) - 1);
                f(i);
                f(cuckoo::alt_bucket(i, fp, m));
            }
            (Derivation::Quotient, Table::Units(_)) => {
                f(quotient::split_hash(h.lo, size_log2, 8).0);
            }
            (Derivation::Xor, Table::Segments { l, .. }) => {
                xor::positions(h.lo, l)
                    .into_iter()
                    .for_each(|p| f(p.into()));
            }
            (
                Derivation::BinaryFuse,
                Table::Segments {
                    l, starts, slots, ..
                },
            ) => {
                // Slot 0 of a window is its start; a slot past the table counts as outside.
                let p = binary_fuse::positions(h.lo, l, starts);
                f(p[0].into());
                if p.iter().any(|&x| u64::from(x) >= slots) {
                    f(u64::MAX);
                }
            }
            (Derivation::Ribbon, Table::Units(m)) => f(ribbon::start_row(h.lo, m - 63)),
            (Derivation::Truncated32, Table::Units(m)) => {
                f((u64::from(h.lo as u32) * u64::from(m as u32)) >> 32);
            }
            _ => unreachable!("Derivation::table gives each derivation its own table shape"),
        }
    }
}

/// The shape of an audited table.
#[derive(Debug, Clone, Copy)]
enum Table {
    /// `0 .. units`.
    Units(u64),
    /// Segmented (xor, binary fuse): segment length, window starts, the units audited, the
    /// slots in all.
    Segments {
        l: u32,
        starts: u32,
        units: u64,
        slots: u64,
    },
}

impl Table {
    fn units(self) -> u64 {
        match self {
            Table::Units(u) | Table::Segments { units: u, .. } => u,
        }
    }
}

/// The `i`-th hash of the stream of `seed`: splitmix64 of a counter, two independent halves.
#[must_use]
pub fn stream_hash(seed: u64, i: u64) -> Hash128 {
    let lo = mix64(seed.wrapping_add(i.wrapping_mul(0x9e37_79b9_7f4a_7c15)));
    Hash128 {
        lo,
        hi: mix64(lo ^ 0x2545_f491_4f6c_dd1d),
    }
}

/// Audit `d` on a table of `2^size_log2` with `hashes` hashes of the stream `seed`.
///
/// # Errors
/// Why the kind makes no table that large (the static kinds hold at most 2^31 keys).
pub fn audit(
    d: Derivation,
    size_log2: u32,
    hashes: u64,
    seed: u64,
) -> std::result::Result<Coverage, String> {
    let t = d.table(size_log2)?;
    let units = t.units();
    let top_from = units - units / 64;
    let mut regions = vec![0u64; REGIONS];
    let (mut total, mut outside, mut top) = (0u64, 0u64, 0u64);
    for i in 0..hashes {
        d.positions(stream_hash(seed, i), t, size_log2, |p| {
            total += 1;
            if p >= units {
                outside += 1;
                return;
            }
            top += u64::from(p >= top_from);
            regions[((u128::from(p) * REGIONS as u128) / u128::from(units)) as usize] += 1;
        });
    }
    let (chi2, p_value) = stats::chi_square_uniform(&regions);
    let expected_top = (units - top_from) as f64 / units as f64;
    Ok(Coverage {
        derivation: d,
        size_log2,
        units,
        positions: total,
        outside,
        top_share: top as f64 / total.max(1) as f64 / expected_top,
        chi2,
        p_value,
    })
}

/// The audit of every derivation in `ds` at every size in `sizes` as a Markdown table: one row
/// per derivation, one column per size, each cell `top share / p-value` and ✗ for a failure;
/// `—` where the kind makes no table that large. Followed by the list of failures.
#[must_use]
pub fn markdown(ds: &[Derivation], sizes: &[u32], hashes: u64, seed: u64) -> String {
    let mut s = String::new();
    s.push_str("| derivation | unit |");
    for z in sizes {
        s.push_str(&format!(" 2^{z} |"));
    }
    s.push_str("\n|---|---|");
    s.push_str(&"---:|".repeat(sizes.len()));
    s.push('\n');
    let mut failures = Vec::new();
    for &d in ds {
        s.push_str(&format!("| {} | {} |", d.name(), d.unit()));
        for &z in sizes {
            match audit(d, z, hashes, seed) {
                Ok(c) => {
                    let mark = if c.passes() { "" } else { " ✗" };
                    s.push_str(&format!(
                        " {:.2} / {}{mark} |",
                        c.top_share,
                        p_text(c.p_value)
                    ));
                    if !c.passes() {
                        failures.push(format!(
                            "{} at 2^{z}: top 1/64 share {:.3} of uniform, χ² = {:.0} over {REGIONS} regions (p = {}), {} of {} positions outside",
                            d.name(),
                            c.top_share,
                            c.chi2,
                            p_text(c.p_value),
                            c.outside,
                            c.positions
                        ));
                    }
                }
                Err(_) => s.push_str(" — |"),
            }
        }
        s.push('\n');
    }
    s.push_str(&format!(
        "\nEach cell: share of positions in the top 1/64 of the table ÷ 1/64 (1.00 = uniform) / χ² p-value over {REGIONS} regions; ✗ = fails (p < {P_MIN:e} or a position outside). — = the kind makes no table that large (static kinds: at most 2^31 keys). {hashes} hashes per cell, k = {BLOOM_K} positions each for the Bloom strategies.\n\nFailures:\n\n"
    ));
    if failures.is_empty() {
        s.push_str("- none\n");
    }
    for f in failures {
        s.push_str(&format!("- {f}\n"));
    }
    s
}

fn p_text(p: f64) -> String {
    if p < 1e-300 {
        "0".into()
    } else if p < 0.01 {
        format!("{p:.1e}")
    } else {
        format!("{p:.2}")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const HASHES: u64 = 1 << 14;
    const SIZES: [u32; 6] = [20, 31, 32, 33, 36, 40];

    fn cell(d: Derivation, z: u32) -> Option<Coverage> {
        audit(d, z, HASHES, 7).ok()
    }

    /// Every real derivation but Guava's MITZ_32 reaches its whole table at every size it
    /// makes (the static kinds up to 2^31 slots, their key limit).
    #[test]
    fn every_kind_reaches_its_whole_table_from_2_20_to_2_40() {
        for d in Derivation::all() {
            if d == Derivation::Standard(StrategyId::Guava32) {
                continue;
            }
            for z in SIZES {
                match cell(d, z) {
                    Some(c) => assert!(
                        c.passes() && (c.top_share - 1.0).abs() < 0.2,
                        "{} at 2^{z}: {c:?}",
                        d.name()
                    ),
                    None => assert!(
                        matches!(
                            d,
                            Derivation::Xor | Derivation::BinaryFuse | Derivation::Ribbon
                        ) && z > 31,
                        "{} refused 2^{z}",
                        d.name()
                    ),
                }
            }
        }
    }

    /// A 32-bit multiply-shift passes up to 2^31 bits and fails from 2^32 on: its top is never
    /// reached.
    #[test]
    fn the_audit_fails_a_truncated_32_bit_range_reduction() {
        let ok = cell(Derivation::Truncated32, 31).unwrap();
        assert!(ok.passes(), "{ok:?}");
        for z in [32, 33, 40] {
            let c = cell(Derivation::Truncated32, z).unwrap();
            assert!(!c.passes() && c.top_share == 0.0, "2^{z}: {c:?}");
        }
    }

    /// Guava's MITZ_32 reaches only `[0, 2^31)`: fine at 2^31 bits, failing above.
    #[test]
    fn the_audit_fails_guava_mitz_32_past_2_31_bits() {
        let g = Derivation::Standard(StrategyId::Guava32);
        assert!(cell(g, 31).unwrap().passes());
        for z in [32, 33, 40] {
            let c = cell(g, z).unwrap();
            assert!(!c.passes() && c.top_share == 0.0, "2^{z}: {c:?}");
        }
        // Its 64-bit successor reaches everything.
        assert!(
            cell(Derivation::Standard(StrategyId::Guava64), 40)
                .unwrap()
                .passes()
        );
    }

    #[test]
    fn the_table_marks_failures_and_refusals() {
        let md = markdown(
            &[Derivation::Standard(StrategyId::Guava32), Derivation::Xor],
            &[20, 33],
            1 << 12,
            1,
        );
        assert!(md.contains("| standard/guava32 | bits |"), "{md}");
        assert!(md.contains(" ✗ |") && md.contains(" — |"), "{md}");
        assert!(
            md.contains("- standard/guava32 at 2^33: top 1/64 share 0.000"),
            "{md}"
        );
    }
}
