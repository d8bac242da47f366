//! Measuring candidates: each built with the user's n and key kind (so the cache regime is the
//! real one) through the dynamic registry path of [`crate::measure`], timed over repeats.

use super::{
    Candidate, Choice, Constraints, Measured, candidates, crossovers, lookup_mix, pareto, recommend,
};
use crate::error::{Error, Param, Result};
use crate::measure::{Control, MeasureConfig, TimingStats, measure};
use crate::spec::FilterSpec;
use crate::workload::{KeyChunk, KeyGen};
use std::time::Instant;

/// Absent keys queried per candidate: `--quick` 100,000; otherwise enough for about 200 false
/// positives at the model rate, between 10⁶ and 10⁷.
#[must_use]
pub fn queries_for(c: &Constraints, fpr_model: f64) -> u64 {
    if c.quick {
        return 100_000;
    }
    let want = if fpr_model > 0.0 {
        200.0 / fpr_model
    } else {
        1e7
    };
    want.clamp(1e6, 1e7) as u64
}

/// Trials (independently seeded filters) per candidate: 1 with `--quick`, else 3.
#[must_use]
pub fn trials_for(c: &Constraints) -> u32 {
    if c.quick { 1 } else { 3 }
}

/// Measure one candidate: FPR with its 95% interval, bits/key, build ns/key, hit and miss
/// ns/key (median and min–max over timing samples; [`crate::measure::TIMING_REPEATS`] at
/// least), and the expected cost under `c`.
///
/// # Errors
/// The build's refusal; [`Error::Cancelled`]; [`Error::InvalidParameter`] naming
/// `constraints` when the filter refused inserts or lost a key (it does not hold n keys).
pub fn evaluate(cand: &Candidate, c: &Constraints, ctl: &Control<'_>) -> Result<Measured> {
    let cfg = MeasureConfig {
        queries: queries_for(c, cand.model.fpr),
        trials: trials_for(c),
        seed: c.seed,
        check_hits: true,
        ..MeasureConfig::new(cand.spec.clone(), c.keys)
    };
    let m = measure(&cfg, ctl)?;
    if m.insert_failures > 0 || m.false_negatives > 0 {
        return Err(Error::invalid(
            Param::Other("constraints"),
            &cand.label,
            format!(
                "a filter that holds n = {} keys ({} inserts refused, {} false negatives)",
                c.n, m.insert_failures, m.false_negatives
            ),
        ));
    }
    let flat = |ns: f64| TimingStats {
        median: ns,
        min: ns,
        max: ns,
        samples: 1,
    };
    let hit = m
        .timing
        .query_hit
        .clone()
        .unwrap_or_else(|| flat(m.ns_per_query_hit.unwrap_or(m.ns_per_query)));
    let miss = m
        .timing
        .query
        .clone()
        .unwrap_or_else(|| flat(m.ns_per_query));
    let miss_threads = if c.threads > 1 {
        Some(parallel_miss_ns(&cand.spec, c, cfg.queries)?)
    } else {
        None
    };
    // With several threads querying, their per-query time is the lookup cost that matters.
    let miss_for_cost = miss_threads.unwrap_or(miss.median);
    let lookup = lookup_mix(hit.median, miss_for_cost, c.hit_ratio);
    Ok(Measured {
        label: cand.label.clone(),
        spec: cand.spec.clone(),
        measured: true,
        bits: m.m_bits,
        bytes: m.bytes as u64,
        bits_per_key: m.bits_per_key,
        fpr: m.fpr,
        fpr_ci95: m.fpr_ci95,
        fpr_model: cand.model.fpr,
        queries: m.queries,
        build_ns_per_key: Some(m.ns_per_insert),
        hit_ns: hit,
        miss_ns: miss,
        miss_ns_threads: miss_threads,
        lookup_ns: lookup,
        expected_cost_ns: lookup + (1.0 - c.hit_ratio) * m.fpr * c.negative_cost_ns,
    })
}

/// Absent-key lookups with `c.threads` threads querying one shared filter at once: ns per
/// query per thread (median sample of the median thread).
fn parallel_miss_ns(spec: &FilterSpec, c: &Constraints, queries: u64) -> Result<f64> {
    let keygen = KeyGen::new(c.keys, c.seed);
    let mut chunk = KeyChunk::default();
    chunk.fill(&keygen, 0, c.n, false);
    let f = spec.build_from(chunk.iter())?;
    let per_thread = (queries / u64::from(c.threads)).max(1_000);
    let f = &f;
    let mut times: Vec<f64> = std::thread::scope(|s| {
        let handles: Vec<_> = (0..u64::from(c.threads))
            .map(|t| {
                let keygen = KeyGen::new(c.keys, c.seed);
                s.spawn(move || {
                    let mut ch = KeyChunk::default();
                    let from = t * per_thread;
                    ch.fill(&keygen, from, from + per_thread, true);
                    let items: Vec<&[u8]> = ch.iter().collect();
                    // Timed in samples of 16 batches, as `measure` does: the median sample is
                    // robust to the thread being descheduled on a loaded machine.
                    let mut samples: Vec<f64> = items
                        .chunks(16 * crate::measure::TIMING_BATCH)
                        .map(|sample| {
                            let start = Instant::now();
                            let mut found = 0u64;
                            for b in sample.chunks(crate::measure::TIMING_BATCH) {
                                found += f.count_present(b);
                            }
                            std::hint::black_box(found);
                            start.elapsed().as_nanos() as f64 / sample.len() as f64
                        })
                        .collect();
                    samples.sort_by(f64::total_cmp);
                    samples[samples.len() / 2]
                })
            })
            .collect();
        handles.into_iter().filter_map(|h| h.join().ok()).collect()
    });
    times.sort_by(f64::total_cmp);
    times
        .get(times.len() / 2)
        .copied()
        .ok_or_else(|| Error::invalid(Param::Other("threads"), c.threads, "threads that finish"))
}

/// Candidates, each measured, the Pareto set, the recommendation and the crossovers between
/// 1 ns and 10 ms of negative cost. `ctl.progress` gets the fraction of candidates done.
/// Candidates that cannot hold n keys (a cuckoo table whose inserts fail) are left out.
///
/// # Errors
/// As [`candidates`] and [`evaluate`]; [`Error::InvalidParameter`] naming `constraints` when
/// no candidate could be measured.
pub fn run(c: &Constraints, ctl: &Control<'_>) -> Result<Choice> {
    let cands = candidates(c)?;
    let total = cands.len() as f64;
    let mut measured = Vec::with_capacity(cands.len());
    let mut left_out = Vec::new();
    for (i, cand) in cands.iter().enumerate() {
        let outer = ctl.progress;
        let inner = move |x: f64| {
            if let Some(p) = outer {
                p((i as f64 + x) / total);
            }
        };
        let sub = Control {
            progress: Some(&inner),
            cancel: ctl.cancel,
        };
        match evaluate(cand, c, &sub) {
            Ok(m) => measured.push(m),
            Err(Error::Cancelled) => return Err(Error::Cancelled),
            Err(e) => left_out.push((cand.label.clone(), e.to_string())),
        }
    }
    let recommendation = recommend(&measured, c)?;
    Ok(Choice {
        constraints: c.clone(),
        pareto: pareto(&measured),
        crossovers: crossovers(&measured, c.hit_ratio, 1.0, 1e7),
        recommendation,
        candidates: measured,
        left_out,
    })
}
