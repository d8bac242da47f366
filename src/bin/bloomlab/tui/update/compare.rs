//! Compare: every filter kind at the Explore n and p.

use bloomlab::{FilterKind, FilterSpec, theory};

use super::{fresh_job, info, pause_others, queries_for, refusal};
use crate::tui::model;
use crate::tui::msg::{Cmd, CompareJob, Msg, Slot};
use crate::tui::results::{PEERS, RowState};
use crate::tui::state::{CompareKey, Level, MIN_QUERIES, RunStatus, State};

pub(super) fn ensure_compare(s: &mut State) -> Vec<Cmd> {
    let p = &s.explore.params;
    let key = CompareKey {
        n: p.n,
        p: p.p,
        hash: p.hash,
        strategy: p.strategy,
        keys: p.keys,
        seed: s.compare.seed,
    };
    if s.compare.key.as_ref() != Some(&key) {
        s.compare.rows = vec![RowState::Pending; FilterKind::ALL.len()];
        s.compare.peer_rows = vec![RowState::Pending; PEERS.len()];
        s.compare.key = Some(key.clone());
        s.compare.status = RunStatus::Idle;
        s.compare.job = 0;
        s.compare.models = FilterKind::ALL
            .iter()
            .map(|&kind| {
                model::model(&FilterSpec {
                    kind,
                    hash: key.hash,
                    strategy: key.strategy,
                    n: key.n,
                    p: Some(key.p),
                    ..FilterSpec::default()
                })
            })
            .collect();
    }
    if s.compare.status == RunStatus::Running {
        return Vec::new();
    }
    let rows: Vec<(usize, FilterKind)> = FilterKind::ALL
        .iter()
        .enumerate()
        .filter(|(i, _)| s.compare.rows[*i] == RowState::Pending)
        .map(|(i, k)| (i, *k))
        .collect();
    let peers: Vec<usize> = if s.compare.peers {
        (0..PEERS.len())
            .filter(|i| s.compare.peer_rows[*i] == RowState::Pending)
            .collect()
    } else {
        Vec::new()
    };
    if rows.is_empty() && peers.is_empty() {
        return Vec::new();
    }
    let queries = queries_for(key.p, 0.05, MIN_QUERIES, 2_000_000);
    // Counting filters hold 4 bits per cell: check the largest of them.
    let bits = theory::optimal_bits(key.n, key.p)
        .unwrap_or(u64::MAX)
        .saturating_mul(4);
    let inserts = key
        .n
        .saturating_mul(2)
        .saturating_mul((rows.len() + peers.len()) as u64);
    // Each kind by its own speed: one slow kind does not make the others look slow.
    let secs: f64 = rows
        .iter()
        .map(|(_, k)| s.speed_of(*k).secs(key.n.saturating_mul(2), queries))
        .sum::<f64>()
        + peers.len() as f64 * s.speed.secs(key.n.saturating_mul(2), queries);
    let per = secs * 1e9 / inserts.max(1) as f64;
    if let Some(why) = refusal(s, bits, inserts, secs, per, "compare") {
        s.compare.status = RunStatus::Refused(why.clone());
        info(s, Level::Warn, why);
        return Vec::new();
    }
    let job = fresh_job(s);
    s.compare.job = job;
    s.compare.status = RunStatus::Running;
    s.compare.progress = 0.0;
    let mut cmds = pause_others(s, Slot::Compare);
    cmds.push(Cmd::StartCompare(CompareJob {
        job,
        base: FilterSpec {
            hash: key.hash,
            strategy: key.strategy,
            n: key.n,
            p: Some(key.p),
            ..FilterSpec::default()
        },
        rows,
        keys: key.keys,
        queries,
        key_seed: key.seed,
        peers,
    }));
    cmds
}

pub(super) fn compare_msg(s: &mut State, msg: Msg) -> Vec<Cmd> {
    match msg {
        Msg::Remeasure => {
            s.compare.seed = s.compare.seed.wrapping_add(1);
            ensure_compare(s)
        }
        Msg::TogglePeers => {
            s.compare.peers = !s.compare.peers;
            ensure_compare(s)
        }
        Msg::CycleView => {
            s.compare.timings = !s.compare.timings;
            Vec::new()
        }
        _ => Vec::new(),
    }
}
