//! Hashes: every hash × strategy on one key kind.

use bloomlab::hash::{HashId, StrategyId};
use bloomlab::theory;
use bloomlab::workload::KeyKind;

use super::{cycle, fresh_job, info, pause_others, refusal};
use crate::tui::fmt;
use crate::tui::msg::{Cmd, HashesJob, Msg, Slot};
use crate::tui::results::RowState;
use crate::tui::state::{HashMetric, Hashes, HashesKey, Level, RunStatus, State};

/// Hashes screen: n limits.
const HASHES_N: (u64, u64) = (1_000, 10_000_000);

/// Absent keys per Hashes cell.
const HASHES_QUERIES: u64 = 100_000;

/// Histogram bins of the Hashes screen.
const HASHES_BINS: usize = 64;

pub(super) fn ensure_hashes(s: &mut State) -> Vec<Cmd> {
    let h = &s.hashes;
    let key = HashesKey {
        n: h.n,
        keys: h.keys,
        seed: h.seed,
    };
    if h.key.as_ref() != Some(&key) {
        s.hashes.cells = vec![RowState::Pending; HashId::ALL.len() * StrategyId::ALL.len()];
        s.hashes.key = Some(key.clone());
        s.hashes.status = RunStatus::Idle;
        s.hashes.job = 0;
    }
    if s.hashes.status == RunStatus::Running {
        return Vec::new();
    }
    let mut cells = Vec::new();
    for (r, hash) in HashId::ALL.iter().enumerate() {
        for (c, strat) in StrategyId::ALL.iter().enumerate() {
            let i = Hashes::cell_index(r, c);
            if s.hashes.cells[i] == RowState::Pending {
                cells.push((i, *hash, *strat));
            }
        }
    }
    if cells.is_empty() {
        return Vec::new();
    }
    let bits = theory::optimal_bits(key.n, s.hashes.p).unwrap_or(u64::MAX);
    let count = cells.len() as u64;
    // Inserts, plus the histogram pass over the same keys.
    let sp = s.speed_of(bloomlab::FilterKind::Standard);
    let inserts = key.n.saturating_mul(2).saturating_mul(count);
    let secs = sp.secs(inserts, HASHES_QUERIES * count);
    if let Some(why) = refusal(s, bits, inserts, secs, sp.ns_insert, "hashes") {
        s.hashes.status = RunStatus::Refused(why.clone());
        info(s, Level::Warn, why);
        return Vec::new();
    }
    let job = fresh_job(s);
    s.hashes.job = job;
    s.hashes.status = RunStatus::Running;
    s.hashes.progress = 0.0;
    let mut cmds = pause_others(s, Slot::Hashes);
    cmds.push(Cmd::StartHashes(HashesJob {
        job,
        n: key.n,
        p: s.hashes.p,
        keys: key.keys,
        cells,
        queries: HASHES_QUERIES,
        bins: HASHES_BINS,
        key_seed: key.seed,
    }));
    cmds
}

pub(super) fn hashes_msg(s: &mut State, msg: Msg) -> Vec<Cmd> {
    let rows = HashId::ALL.len();
    let cols = StrategyId::ALL.len();
    let h = &mut s.hashes;
    match msg {
        Msg::Up => h.row = (h.row + rows - 1) % rows,
        Msg::Down => h.row = (h.row + 1) % rows,
        Msg::Left => h.col = (h.col + cols - 1) % cols,
        Msg::Right => h.col = (h.col + 1) % cols,
        Msg::CycleView => {
            h.metric = match h.metric {
                HashMetric::Fpr => HashMetric::Uniformity,
                HashMetric::Uniformity => HashMetric::Throughput,
                HashMetric::Throughput => HashMetric::Fpr,
            }
        }
        Msg::Plus | Msg::Minus | Msg::BigUp | Msg::BigDown => {
            let f = if matches!(msg, Msg::BigUp | Msg::BigDown) {
                10
            } else {
                2
            };
            let v = if matches!(msg, Msg::Plus | Msg::BigUp) {
                h.n.saturating_mul(f)
            } else {
                h.n / f
            };
            let v = v.clamp(HASHES_N.0, HASHES_N.1);
            if v == h.n {
                info(
                    s,
                    Level::Info,
                    format!(
                        "n on this screen stays within {}..{}",
                        fmt::int(HASHES_N.0),
                        fmt::int(HASHES_N.1)
                    ),
                );
                return Vec::new();
            }
            h.n = v;
            return ensure_hashes(s);
        }
        Msg::NextKeys(fwd) => {
            h.keys = cycle(&KeyKind::ALL, h.keys, if fwd { 1 } else { -1 });
            return ensure_hashes(s);
        }
        Msg::Remeasure => {
            h.seed = h.seed.wrapping_add(1);
            return ensure_hashes(s);
        }
        _ => {}
    }
    Vec::new()
}
