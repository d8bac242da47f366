//! The `memory` runner: heap bytes (counting allocator) of filters and `HashSet` baselines.

use super::{RunOutput, apply_bpk, build, series_row, spec_warm_up};
use crate::alloc_count;
use crate::error::{Error, Param, Result};
use crate::experiment::table::{Row, Table};
use crate::experiment::{Baseline, Experiment, Progress, SeriesDef};
use crate::filter::Filter;
use crate::spec::FilterSpec;
use crate::theory;
use crate::workload::{KeyGen, KeyKind};
use std::collections::HashSet;

pub use crate::measure::{hashset_buckets, hashset_table_bytes};

/// The filter series `s` is built as at n.
///
/// # Errors
/// `bits_per_key × n` is not a bit count.
pub(super) fn point_spec(s: &SeriesDef, n: u64) -> Result<FilterSpec> {
    let mut fs = FilterSpec {
        n,
        ..s.spec.clone()
    };
    apply_bpk(&mut fs, s.bits_per_key)?;
    Ok(fs)
}

pub(super) fn run(exp: &Experiment, progress: &dyn Progress) -> Result<RunOutput> {
    if !alloc_count::installed() {
        return Err(Error::invalid(
            Param::Other("memory runner"),
            "no counting allocator",
            "a process whose #[global_allocator] is bloomlab::alloc_count::CountingAlloc \
             (the bloomlab binary installs it)",
        ));
    }
    let spec = &exp.spec;
    let mut ns = exp.sweep_values();
    ns.sort_by(f64::total_cmp);
    let series = exp.series();
    let string_cap = spec.params.string_cap.unwrap_or(u64::MAX);
    let string_keys = spec
        .keys
        .iter()
        .copied()
        .find(|k| matches!(k, KeyKind::String | KeyKind::Email | KeyKind::Url))
        .unwrap_or(KeyKind::Email);
    let mut total = 0u64;
    for &n in &ns {
        let n = n as u64;
        total += n * series.len() as u64;
        for b in &spec.baselines {
            if *b == Baseline::HashsetU64 || n <= string_cap {
                total += n;
            }
        }
    }
    progress.begin(total);
    let mut out = RunOutput::default();
    // (n, mean string heap bytes, mean string chunk bytes) at the largest measured n
    let mut string_stats: Option<(u64, f64, f64)> = None;
    let mut buf = Vec::with_capacity(256);
    for &nf in &ns {
        let n = nf as u64;
        for s in &series {
            progress.status(&format!("{} n={n}", s.label));
            let fspec = point_spec(s, n)?;
            let keygen = KeyGen::new(s.keys, spec.seed);
            // Build once untimed and unmeasured first: sizing may fill process-wide caches (the
            // blocked model memoises its occupancy sweep, ~78 KB at k = 6), which belong to no
            // filter and must not be counted as the first one's heap.
            drop(spec_warm_up(&fspec));
            // A static kind is built from its whole key set: the keys are made before the
            // count starts (they are not the filter's), the construction's scratch is freed
            // before it ends.
            let keys: Vec<Vec<u8>> = if fspec.kind.caps().static_set {
                (0..n).map(|i| keygen.present_key(i)).collect()
            } else {
                Vec::new()
            };
            let before = alloc_count::snapshot();
            let mut f = if fspec.kind.caps().static_set {
                fspec.build_from(&keys)?
            } else {
                build(&fspec)?
            };
            let mut failures = 0u64;
            let inserts = if keys.is_empty() { n } else { 0 };
            for i in 0..inserts {
                keygen.present(i, &mut buf);
                failures += u64::from(f.try_insert(&buf).is_err());
                if (i + 1).is_multiple_of(1 << 20) {
                    progress.advance(1 << 20);
                }
            }
            let after = alloc_count::snapshot();
            progress.advance(n - inserts / (1 << 20) * (1 << 20));
            drop(keys);
            let bytes = after.live_since(&before);
            let mut r = series_row(s, &f);
            r.set("structure", s.label.as_str())
                .set("p", fspec.p)
                .set("n", n)
                .set("x", n)
                .set("bytes", bytes)
                .set("bytes_reported", f.bytes())
                .set("bytes_malloc_model", after.chunks_since(&before))
                .set("bytes_per_item", bytes as f64 / n as f64)
                .set("bits_per_key", bytes as f64 * 8.0 / n as f64)
                .set("m_bits", f.bits())
                .set("k", f.k())
                .set("insert_failures", failures);
            if let Some(p) = fspec.p {
                r.set(
                    "lower_bound_bits_per_key",
                    theory::lower_bound_bits_per_key(p),
                )
                .set("bloom_optimal_bits_per_key", theory::bloom_bits_per_key(p));
            }
            drop(f);
            out.table.push(r);
        }
        for b in &spec.baselines {
            match b {
                Baseline::HashsetU64 => {
                    progress.status(&format!("HashSet<u64> n={n}"));
                    let keygen = KeyGen::new(KeyKind::U64, spec.seed);
                    let before = alloc_count::snapshot();
                    let mut set: HashSet<u64> = HashSet::new();
                    for i in 0..n {
                        keygen.present(i, &mut buf);
                        let mut w = [0u8; 8];
                        w.copy_from_slice(&buf[..8]);
                        set.insert(u64::from_le_bytes(w));
                        if (i + 1).is_multiple_of(1 << 20) {
                            progress.advance(1 << 20);
                        }
                    }
                    let after = alloc_count::snapshot();
                    progress.advance(n % (1 << 20));
                    let bytes = after.live_since(&before);
                    let mut r = Row::new();
                    r.set("series", b.label())
                        .set("row_type", "measured")
                        .set("structure", b.label())
                        .set("keys", "u64")
                        .set("n", n)
                        .set("x", n)
                        .set("bytes", bytes)
                        .set("bytes_model", hashset_table_bytes(set.len() as u64, 8))
                        .set("bytes_malloc_model", after.chunks_since(&before))
                        .set("bytes_per_item", bytes as f64 / n as f64)
                        .set("bits_per_key", bytes as f64 * 8.0 / n as f64)
                        .set("buckets", hashset_buckets(n))
                        .set("key_bytes_mean", 8.0);
                    drop(set);
                    out.table.push(r);
                }
                Baseline::HashsetString => {
                    if n > string_cap {
                        continue;
                    }
                    progress.status(&format!("HashSet<String> n={n}"));
                    let keygen = KeyGen::new(string_keys, spec.seed);
                    let before = alloc_count::snapshot();
                    let mut set: HashSet<String> = HashSet::new();
                    let (mut key_bytes, mut key_chunks) = (0u64, 0u64);
                    for i in 0..n {
                        keygen.present(i, &mut buf);
                        // `to_vec` allocates exactly the key's length, as reading a string from
                        // a database or a file into its own String would.
                        let s = String::from_utf8(buf.to_vec()).map_err(|e| Error::Io {
                            path: "<key generator>".into(),
                            message: e.to_string(),
                        })?;
                        key_bytes += s.len() as u64;
                        key_chunks += alloc_count::glibc_chunk(s.len()) as u64;
                        set.insert(s);
                        if (i + 1).is_multiple_of(1 << 20) {
                            progress.advance(1 << 20);
                        }
                    }
                    let after = alloc_count::snapshot();
                    progress.advance(n % (1 << 20));
                    let bytes = after.live_since(&before);
                    let table = hashset_table_bytes(n, std::mem::size_of::<String>());
                    let mut r = Row::new();
                    r.set("series", b.label())
                        .set("row_type", "measured")
                        .set("structure", b.label())
                        .set("keys", string_keys.name())
                        .set("n", n)
                        .set("x", n)
                        .set("bytes", bytes)
                        .set("bytes_model", table + key_bytes)
                        .set("bytes_malloc_model", after.chunks_since(&before))
                        .set("bytes_per_item", bytes as f64 / n as f64)
                        .set("bits_per_key", bytes as f64 * 8.0 / n as f64)
                        .set("buckets", hashset_buckets(n))
                        .set("key_bytes_mean", key_bytes as f64 / n as f64);
                    string_stats =
                        Some((n, key_bytes as f64 / n as f64, key_chunks as f64 / n as f64));
                    drop(set);
                    out.table.push(r);
                }
            }
        }
    }
    // Extrapolate HashSet<String> past the cap: the table model (checked against the allocator
    // at every measured n) plus the measured mean heap bytes per string.
    if let Some((at, key_mean, chunk_mean)) = string_stats
        && spec.baselines.contains(&Baseline::HashsetString)
    {
        // From the last measured n (where model and measurement agree) onwards.
        let mut targets: Vec<f64> = ns.iter().copied().filter(|&n| n as u64 >= at).collect();
        targets.extend(spec.params.extrapolate_to.clone().unwrap_or_default());
        targets.sort_by(f64::total_cmp);
        targets.dedup();
        for nf in targets {
            let n = nf as u64;
            let table = hashset_table_bytes(n, std::mem::size_of::<String>());
            let bytes = table as f64 + n as f64 * key_mean;
            let label = format!(
                "{} (extrapolated from n={at})",
                Baseline::HashsetString.label()
            );
            let mut r = Row::new();
            r.set("series", label.as_str())
                .set("row_type", "extrapolated")
                .set("structure", Baseline::HashsetString.label())
                .set("keys", string_keys.name())
                .set("n", n)
                .set("x", n)
                .set("bytes", bytes)
                .set("bytes_model", bytes)
                .set(
                    "bytes_malloc_model",
                    alloc_count::glibc_chunk(table as usize) as f64 + n as f64 * chunk_mean,
                )
                .set("bytes_per_item", bytes / n as f64)
                .set("bits_per_key", bytes * 8.0 / n as f64)
                .set("buckets", hashset_buckets(n))
                .set("key_bytes_mean", key_mean);
            out.table.push(r);
        }
    }
    out.summary = memory_summary(&out.table);
    Ok(out)
}

/// Bytes per item of each structure at its largest measured n, and the articles' 10⁹-strings
/// claim checked against them.
fn memory_summary(t: &Table) -> Vec<String> {
    let mut best: Vec<(String, u64, f64, f64)> = Vec::new();
    for r in 0..t.rows.len() {
        if t.text(r, "row_type") != "measured" {
            continue;
        }
        let (Some(n), Some(bpi)) = (t.num(r, "n"), t.num(r, "bytes_per_item")) else {
            continue;
        };
        let chunk = t.num(r, "bytes_malloc_model").unwrap_or(f64::NAN) / n;
        let label = t.text(r, "series");
        match best.iter_mut().find(|b| b.0 == label) {
            Some(b) if (n as u64) > b.1 => *b = (label, n as u64, bpi, chunk),
            Some(_) => {}
            None => best.push((label, n as u64, bpi, chunk)),
        }
    }
    let mut lines: Vec<String> = best
        .iter()
        .map(|(l, n, bpi, chunk)| {
            format!("{l}: {bpi:.2} bytes/item at n={n} (with malloc chunk rounding: {chunk:.2})")
        })
        .collect();
    let string = best.iter().find(|b| b.0 == Baseline::HashsetString.label());
    let filter = best
        .iter()
        .find(|b| b.0.starts_with("standard") && b.0.contains("p=1%"));
    if let (Some(s), Some(f)) = (string, filter) {
        let set_bytes = hashset_table_bytes(1_000_000_000, std::mem::size_of::<String>()) as f64
            + 1e9 * (s.2 - hashset_table_bytes(s.1, 24) as f64 / s.1 as f64);
        let filt = f.2 * 1e9;
        lines.push(format!(
            "10^9 strings: HashSet<String> ≈ {:.1} GB (table model + measured string bytes), \
             standard filter at 1% ≈ {:.2} GB: ratio 1/{:.0} (articles: 40 GB vs 1.2 GB, 1/30)",
            set_bytes / 1e9,
            filt / 1e9,
            set_bytes / filt
        ));
    }
    lines
}
