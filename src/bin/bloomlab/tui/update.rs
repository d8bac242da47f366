//! `update`: the only place the state changes. Returns the commands the runtime must run
//! (start or cancel background jobs), so it can be tested without threads or a terminal.

use std::time::Duration;

use bloomlab::hash::{HashId, StrategyId};
use bloomlab::workload::{ABSENT_BASE, KeyKind};
use bloomlab::{FilterKind, FilterSpec, theory};

use super::fmt;
use super::msg::{Cmd, CompareJob, ExploreJob, HashesJob, Msg, Slot, WorkerEvent};
use super::results::RowState;
use super::state::{
    ChartView, CompareKey, Design, ExploreRun, FILL_REGIONS, Field, HashMetric, Hashes, HashesKey,
    Level, MAX_M, MAX_MEASURE_BITS, MAX_MEASURE_SECS, MAX_N, MIN_P, MIN_QUERIES, RunStatus, State,
    Tab,
};

/// Longest time the Explore measurement keeps querying.
const QUERY_BUDGET: Duration = Duration::from_secs(20);
/// Most absent keys the Explore measurement queries.
const MAX_QUERIES: u64 = 50_000_000;
/// Exact-FPR work (recurrence cells) cheap enough to compute on the UI thread.
const INLINE_EXACT_WORK: f64 = 2e5;
/// Hashes screen: n limits.
const HASHES_N: (u64, u64) = (1_000, 10_000_000);
/// Absent keys per Hashes cell.
const HASHES_QUERIES: u64 = 100_000;
/// Histogram bins of the Hashes screen.
const HASHES_BINS: usize = 64;

/// Commands to run at start-up (the first Explore measurement).
pub fn init(s: &mut State) -> Vec<Cmd> {
    explore_changed(s)
}

/// Apply `msg` to the state; return what the runtime must do.
pub fn update(s: &mut State, msg: Msg) -> Vec<Cmd> {
    if let Msg::Worker(ev) = msg {
        return worker_event(s, *ev);
    }
    s.status = None;
    match msg {
        Msg::Quit => {
            s.quit = true;
            vec![
                Cmd::Cancel(Slot::Explore),
                Cmd::Cancel(Slot::Compare),
                Cmd::Cancel(Slot::Hashes),
            ]
        }
        Msg::Goto(t) => switch_tab(s, t),
        Msg::NextTab => {
            let i = (s.tab.index() + 1) % Tab::ALL.len();
            switch_tab(s, Tab::ALL[i])
        }
        Msg::PrevTab => {
            let i = (s.tab.index() + Tab::ALL.len() - 1) % Tab::ALL.len();
            switch_tab(s, Tab::ALL[i])
        }
        other => match s.tab {
            Tab::Explore => explore_msg(s, other),
            Tab::Compare => compare_msg(s, other),
            Tab::Hashes => hashes_msg(s, other),
            Tab::Walkthrough => walk_msg(s, other),
            Tab::Help => help_msg(s, other),
        },
    }
}

fn info(s: &mut State, level: Level, text: impl Into<String>) {
    s.status = Some((level, text.into()));
}

fn fresh_job(s: &mut State) -> u64 {
    let g = s.next_job;
    s.next_job += 1;
    g
}

// ---------------------------------------------------------------------------------------------
// Screens and jobs

fn switch_tab(s: &mut State, t: Tab) -> Vec<Cmd> {
    s.tab = t;
    match t {
        Tab::Explore if s.explore.run.status == RunStatus::Idle => start_explore(s),
        Tab::Compare => ensure_compare(s),
        Tab::Hashes => ensure_hashes(s),
        _ => Vec::new(),
    }
}

/// Cancel every running job except `keep` (one measurement at a time: the machine's cores are
/// shared, and timings of two concurrent jobs would disturb each other). Paused jobs restart
/// when their screen is shown again; Compare and Hashes keep the rows already measured.
fn pause_others(s: &mut State, keep: Slot) -> Vec<Cmd> {
    let mut cmds = Vec::new();
    if keep != Slot::Explore && s.explore.run.status == RunStatus::Running {
        s.explore.run = ExploreRun::default();
        cmds.push(Cmd::Cancel(Slot::Explore));
    }
    if keep != Slot::Compare && s.compare.status == RunStatus::Running {
        s.compare.status = RunStatus::Idle;
        s.compare.job = 0;
        cmds.push(Cmd::Cancel(Slot::Compare));
    }
    if keep != Slot::Hashes && s.hashes.status == RunStatus::Running {
        s.hashes.status = RunStatus::Idle;
        s.hashes.job = 0;
        cmds.push(Cmd::Cancel(Slot::Hashes));
    }
    cmds
}

/// Why a measurement of `inserts` inserts and `queries` queries into `bits` bits is refused.
fn refusal(s: &State, bits: u64, inserts: u64, queries: u64, what: &str) -> Option<String> {
    if bits > MAX_MEASURE_BITS {
        return Some(format!(
            "{what} not measured: {} bits is over 2^33 bits (1 GiB), the most built here",
            fmt::int(bits)
        ));
    }
    if inserts > ABSENT_BASE {
        return Some(format!(
            "{what} not measured: more than {} keys",
            fmt::int(ABSENT_BASE)
        ));
    }
    let secs = s.speed.secs(inserts, queries);
    if secs > MAX_MEASURE_SECS {
        return Some(format!(
            "{what} not measured: ~{secs:.0} s estimated ({} inserts at ~{} ns), over the {MAX_MEASURE_SECS:.0} s limit",
            fmt::int(inserts),
            fmt::ns(s.speed.ns_insert)
        ));
    }
    None
}

/// Absent keys for a ~2% relative half-width of the 95% interval at rate `p`: (1.96/0.02)²·(1−p)/p.
fn queries_for(p: f64, rel: f64, lo: u64, hi: u64) -> u64 {
    let q = (1.96 / rel).powi(2) * (1.0 - p) / p.max(1e-300);
    if q.is_finite() {
        (q.ceil() as u64).clamp(lo, hi)
    } else {
        hi
    }
}

fn start_explore(s: &mut State) -> Vec<Cmd> {
    let d = match s.explore.params.design() {
        Ok(d) => d,
        Err(e) => {
            s.explore.run = ExploreRun {
                status: RunStatus::Failed(e.clone()),
                ..ExploreRun::default()
            };
            info(s, Level::Error, e);
            return vec![Cmd::Cancel(Slot::Explore)];
        }
    };
    if let Some(why) = refusal(s, d.m_actual, d.n, MIN_QUERIES, "explore") {
        s.explore.run = ExploreRun {
            status: RunStatus::Refused(why.clone()),
            ..ExploreRun::default()
        };
        info(s, Level::Warn, format!("{why}; theory shown"));
        return vec![Cmd::Cancel(Slot::Explore)];
    }
    let job = fresh_job(s);
    let p = s.explore.params.clone();
    let target = queries_for(d.classic, 0.02, MIN_QUERIES, MAX_QUERIES);
    s.explore.run = ExploreRun {
        job,
        status: RunStatus::Running,
        phase: "starting",
        design: Some((d.m_actual, d.n, d.k)),
        target,
        ..ExploreRun::default()
    };
    let mut cmds = pause_others(s, Slot::Explore);
    let sized_by_bits = !matches!(p.kind, FilterKind::Scalable | FilterKind::Cuckoo);
    cmds.push(Cmd::StartExplore(ExploreJob {
        job,
        spec: FilterSpec {
            kind: p.kind,
            hash: p.hash,
            strategy: p.strategy,
            n: d.n,
            p: Some(p.p),
            // Scalable and cuckoo filters size themselves from n and p only.
            m: sized_by_bits.then_some(d.m),
            k: sized_by_bits.then_some(d.k),
            ..FilterSpec::default()
        },
        keys: p.keys,
        key_seed: s.explore.key_seed,
        target_queries: target,
        time_budget: QUERY_BUDGET,
        regions: FILL_REGIONS,
    }));
    cmds
}

/// Work of `theory::fpr_exact` (mirrors its choice between the recurrence and the moment form:
/// t·min(24√m + 16, m) cells, or O(k²) beyond the 4·10⁸ budget).
pub fn exact_work(m: u64, n: u64, k: u32) -> f64 {
    let t = f64::from(k) * n as f64;
    let w = (24.0 * (m as f64).sqrt() + 16.0).min(m as f64);
    let cells = t * w;
    if cells <= 4e8 {
        cells
    } else {
        f64::from(k * k)
    }
}

fn exact_cmds(s: &mut State, d: &Design) -> Vec<Cmd> {
    let key = (d.m_actual, d.n, d.k);
    if s.explore.exact.map(|(k, _)| k) == Some(key) {
        return Vec::new();
    }
    if exact_work(key.0, key.1, key.2) <= INLINE_EXACT_WORK {
        s.explore.exact = Some((key, theory::fpr_exact(key.0, key.1, key.2)));
        s.explore.exact_pending = None;
        Vec::new()
    } else if s.explore.exact_pending == Some(key) {
        Vec::new()
    } else {
        s.explore.exact_pending = Some(key);
        vec![Cmd::Exact {
            m: key.0,
            n: key.1,
            k: key.2,
        }]
    }
}

/// The Explore parameters changed: refresh theory, restart the measurement.
fn explore_changed(s: &mut State) -> Vec<Cmd> {
    let mut cmds = match s.explore.params.design() {
        Ok(d) => exact_cmds(s, &d),
        Err(_) => Vec::new(),
    };
    if s.tab == Tab::Explore {
        cmds.extend(start_explore(s));
    } else {
        s.explore.run = ExploreRun::default();
        cmds.push(Cmd::Cancel(Slot::Explore));
    }
    cmds
}

fn ensure_compare(s: &mut State) -> Vec<Cmd> {
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
        s.compare.key = Some(key.clone());
        s.compare.status = RunStatus::Idle;
        s.compare.job = 0;
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
    if rows.is_empty() {
        return Vec::new();
    }
    let queries = queries_for(key.p, 0.05, MIN_QUERIES, 2_000_000);
    // Counting filters hold 4 bits per cell: check the largest of them.
    let bits = theory::optimal_bits(key.n, key.p)
        .unwrap_or(u64::MAX)
        .saturating_mul(4);
    let inserts = key.n.saturating_mul(2).saturating_mul(rows.len() as u64);
    if let Some(why) = refusal(s, bits, inserts, queries * rows.len() as u64, "compare") {
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
    }));
    cmds
}

fn ensure_hashes(s: &mut State) -> Vec<Cmd> {
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
    if let Some(why) = refusal(
        s,
        bits,
        key.n.saturating_mul(2).saturating_mul(count),
        HASHES_QUERIES * count,
        "hashes",
    ) {
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

// ---------------------------------------------------------------------------------------------
// Worker reports

fn worker_event(s: &mut State, ev: WorkerEvent) -> Vec<Cmd> {
    match ev {
        WorkerEvent::Progress {
            slot,
            job,
            frac,
            phase,
        } => match slot {
            Slot::Explore if job == s.explore.run.job => {
                s.explore.run.progress = frac;
                s.explore.run.phase = phase;
            }
            Slot::Compare if job == s.compare.job => s.compare.progress = frac,
            Slot::Hashes if job == s.hashes.job => s.hashes.progress = frac,
            _ => {}
        },
        WorkerEvent::ExploreBuilt {
            job,
            bits,
            bytes,
            fill,
            ns_insert,
            model_fpr,
            details,
        } if job == s.explore.run.job => {
            let r = &mut s.explore.run;
            r.bits = Some(bits);
            r.bytes = Some(bytes);
            r.fill = fill;
            r.ns_insert = Some(ns_insert);
            r.model_fpr = Some(model_fpr);
            r.details = details;
            if ns_insert > 0.0 {
                s.speed.ns_insert = ns_insert;
            }
        }
        WorkerEvent::ExplorePartial {
            job,
            queries,
            false_positives,
            ns_query,
        } if job == s.explore.run.job => {
            let r = &mut s.explore.run;
            r.queries = queries;
            r.false_positives = false_positives;
            r.ns_query = Some(ns_query);
            if ns_query > 0.0 {
                s.speed.ns_query = ns_query;
            }
        }
        WorkerEvent::CompareRow { job, idx, outcome } if job == s.compare.job => {
            if let Some(row) = s.compare.rows.get_mut(idx) {
                *row = RowState::Out(outcome);
            }
        }
        WorkerEvent::HashRow { job, idx, outcome } if job == s.hashes.job => {
            if let Some(cell) = s.hashes.cells.get_mut(idx) {
                *cell = RowState::Out(outcome);
            }
        }
        WorkerEvent::Finished { slot, job, stopped } => {
            let status = match stopped {
                None => RunStatus::Done,
                Some(why) => RunStatus::Stopped(why),
            };
            match slot {
                Slot::Explore if job == s.explore.run.job => {
                    if let RunStatus::Stopped(why) = &status
                        && s.explore.run.queries == 0
                    {
                        s.explore.run.status = RunStatus::Failed(why.clone());
                        info(s, Level::Error, format!("explore: {why}"));
                        return Vec::new();
                    }
                    s.explore.run.status = status;
                    s.explore.run.progress = 1.0;
                }
                Slot::Compare if job == s.compare.job => {
                    s.compare.status = status;
                    s.compare.progress = 1.0;
                }
                Slot::Hashes if job == s.hashes.job => {
                    s.hashes.status = status;
                    s.hashes.progress = 1.0;
                }
                _ => {}
            }
        }
        WorkerEvent::Exact { m, n, k, value } => {
            if s.explore.exact_pending == Some((m, n, k)) {
                s.explore.exact_pending = None;
            }
            if let Ok(d) = s.explore.params.design()
                && (d.m_actual, d.n, d.k) == (m, n, k)
            {
                s.explore.exact = Some(((m, n, k), value));
            }
        }
        _ => {}
    }
    Vec::new()
}

// ---------------------------------------------------------------------------------------------
// Explore

fn explore_msg(s: &mut State, msg: Msg) -> Vec<Cmd> {
    let e = &mut s.explore;
    match msg {
        Msg::Up => {
            let i = (e.field.index() + Field::ALL.len() - 1) % Field::ALL.len();
            e.field = Field::ALL[i];
            Vec::new()
        }
        Msg::Down => {
            let i = (e.field.index() + 1) % Field::ALL.len();
            e.field = Field::ALL[i];
            Vec::new()
        }
        Msg::Left | Msg::Minus => adjust(s, -1),
        Msg::Right | Msg::Plus => adjust(s, 1),
        Msg::BigUp => adjust(s, 10),
        Msg::BigDown => adjust(s, -10),
        Msg::StartEdit => {
            if e.field.typed() {
                e.edit = Some(String::new());
                Vec::new()
            } else {
                adjust(s, 1)
            }
        }
        Msg::Input(c) => {
            if let Some(buf) = &mut e.edit
                && buf.len() < 32
            {
                buf.push(c);
            }
            Vec::new()
        }
        Msg::Backspace => {
            if let Some(buf) = &mut e.edit {
                buf.pop();
            }
            Vec::new()
        }
        Msg::CancelEdit => {
            e.edit = None;
            Vec::new()
        }
        Msg::Submit => submit(s),
        Msg::Auto => {
            match e.field {
                Field::K => e.params.k_pin = None,
                Field::M | Field::BitsPerKey | Field::P => e.params.m_pin = None,
                _ => {
                    e.params.k_pin = None;
                    e.params.m_pin = None;
                }
            }
            explore_changed(s)
        }
        Msg::CycleView => {
            e.chart = match e.chart {
                ChartView::FprVsK => ChartView::FprVsN,
                ChartView::FprVsN => ChartView::FprVsK,
            };
            Vec::new()
        }
        Msg::Remeasure => {
            e.key_seed = e.key_seed.wrapping_add(1);
            start_explore(s)
        }
        _ => Vec::new(),
    }
}

fn cycle<T: Copy + PartialEq>(all: &[T], cur: T, steps: i32) -> T {
    let len = all.len() as i32;
    let i = all.iter().position(|x| *x == cur).unwrap_or(0) as i32;
    let dir = steps.signum();
    all[(i + dir).rem_euclid(len) as usize]
}

fn clamp_note(s: &mut State, what: &str, v: f64, lo: f64, hi: f64) -> f64 {
    if v < lo {
        info(s, Level::Info, format!("{what} is at its smallest ({lo})"));
        lo
    } else if v > hi {
        info(s, Level::Info, format!("{what} is at its largest ({hi})"));
        hi
    } else {
        v
    }
}

/// Change the selected field by `steps` (±1 small, ±10 big).
fn adjust(s: &mut State, steps: i32) -> Vec<Cmd> {
    let field = s.explore.field;
    let up = steps > 0;
    let big = steps.abs() >= 10;
    let design = s.explore.params.design().ok();
    let p = s.explore.params.clone();
    match field {
        Field::N => {
            let v = if big {
                if up {
                    p.n as f64 * 10.0
                } else {
                    p.n as f64 / 10.0
                }
            } else {
                fmt::step_125(p.n as f64, up)
            };
            let v = clamp_note(s, "n", v.round(), 1.0, MAX_N as f64);
            s.explore.params.n = v as u64;
        }
        Field::P => {
            let v = if big {
                if up { p.p * 10.0 } else { p.p / 10.0 }
            } else {
                fmt::step_125(p.p, up)
            };
            let v = clamp_note(s, "p", v, MIN_P, 0.5);
            s.explore.params.p = v;
            if s.explore.params.m_pin.take().is_some() {
                info(s, Level::Info, "m follows n and p again");
            }
        }
        Field::M => {
            let cur = design.as_ref().map_or(1, |d| d.m) as f64;
            let f = if big { 10.0 } else { 2.0 };
            let v = if up { cur * f } else { cur / f };
            let v = clamp_note(s, "m", v.round(), 1.0, MAX_M as f64);
            s.explore.params.m_pin = Some(v as u64);
        }
        Field::BitsPerKey => {
            let cur = design.as_ref().map_or(1.0, |d| d.m as f64 / d.n as f64);
            let step = if big { 10.0 } else { 1.0 };
            let target = if up { cur + step } else { cur - step };
            let m = (target * p.n as f64).round();
            let m = clamp_note(s, "m", m, 1.0, MAX_M as f64);
            s.explore.params.m_pin = Some(m as u64);
        }
        Field::K => {
            let cur = design.as_ref().map_or(1, |d| d.k);
            let step = if big { 5 } else { 1 };
            let v = if up {
                cur.saturating_add(step)
            } else {
                cur.saturating_sub(step)
            };
            let v = clamp_note(s, "k", f64::from(v), 1.0, f64::from(theory::MAX_K));
            s.explore.params.k_pin = Some(v as u32);
        }
        Field::Kind => s.explore.params.kind = cycle(&FilterKind::ALL, p.kind, steps),
        Field::Hash => s.explore.params.hash = cycle(&HashId::ALL, p.hash, steps),
        Field::Strategy => {
            s.explore.params.strategy = cycle(&StrategyId::ALL, p.strategy, steps);
        }
        Field::Keys => s.explore.params.keys = cycle(&KeyKind::ALL, p.keys, steps),
    }
    if s.explore.params == p {
        return Vec::new();
    }
    explore_changed(s)
}

/// Apply a typed value.
fn submit(s: &mut State) -> Vec<Cmd> {
    let Some(text) = s.explore.edit.clone() else {
        return Vec::new();
    };
    if text.trim().is_empty() {
        s.explore.edit = None;
        return Vec::new();
    }
    let n = s.explore.params.n;
    let res: Result<(), String> = match s.explore.field {
        Field::N => fmt::parse_count(&text).and_then(|v| {
            if v == 0 || v > MAX_N {
                Err(format!("n must be from 1 to {}", fmt::int(MAX_N)))
            } else {
                s.explore.params.n = v;
                Ok(())
            }
        }),
        Field::P => fmt::parse_prob(&text).and_then(|v| {
            if v < MIN_P {
                Err(format!("p must be at least {MIN_P}"))
            } else {
                s.explore.params.p = v;
                s.explore.params.m_pin = None;
                Ok(())
            }
        }),
        Field::M => fmt::parse_bits(&text).and_then(|v| {
            if v == 0 || v > MAX_M {
                Err(format!("m must be from 1 to {} bits", fmt::int(MAX_M)))
            } else {
                s.explore.params.m_pin = Some(v);
                Ok(())
            }
        }),
        Field::BitsPerKey => fmt::parse_f64(&text).and_then(|v| {
            let m = (v * n as f64).round();
            if m < 1.0 || m > MAX_M as f64 {
                Err(format!(
                    "{v} bits/key × n = {m} bits is outside 1..={} bits",
                    fmt::int(MAX_M)
                ))
            } else {
                s.explore.params.m_pin = Some(m as u64);
                Ok(())
            }
        }),
        Field::K => fmt::parse_count(&text).and_then(|v| {
            match u32::try_from(v).ok().and_then(|v| theory::check_k(v).ok()) {
                Some(k) => {
                    s.explore.params.k_pin = Some(k);
                    Ok(())
                }
                None => Err(format!("k must be from 1 to {}", theory::MAX_K)),
            }
        }),
        _ => Ok(()),
    };
    match res {
        Ok(()) => {
            s.explore.edit = None;
            explore_changed(s)
        }
        Err(e) => {
            info(
                s,
                Level::Error,
                format!("{}: {e} (Esc to cancel)", s.explore.field.label()),
            );
            Vec::new()
        }
    }
}

// ---------------------------------------------------------------------------------------------
// Compare, Hashes, Help

fn compare_msg(s: &mut State, msg: Msg) -> Vec<Cmd> {
    match msg {
        Msg::Remeasure => {
            s.compare.seed = s.compare.seed.wrapping_add(1);
            ensure_compare(s)
        }
        _ => Vec::new(),
    }
}

fn hashes_msg(s: &mut State, msg: Msg) -> Vec<Cmd> {
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

fn help_msg(s: &mut State, msg: Msg) -> Vec<Cmd> {
    match msg {
        Msg::Up => s.help_scroll = s.help_scroll.saturating_sub(1),
        Msg::Down => s.help_scroll = s.help_scroll.saturating_add(1).min(200),
        Msg::BigUp => s.help_scroll = s.help_scroll.saturating_sub(10),
        Msg::BigDown => s.help_scroll = s.help_scroll.saturating_add(10).min(200),
        _ => {}
    }
    Vec::new()
}

// ---------------------------------------------------------------------------------------------
// Walkthrough

fn walk_msg(s: &mut State, msg: Msg) -> Vec<Cmd> {
    let w = &mut s.walk;
    match msg {
        Msg::StartEdit => {
            w.editing = true;
            w.input.clear();
        }
        Msg::Input(c) if w.input.chars().count() < 24 && !c.is_control() => {
            w.input.push(c);
        }
        Msg::Backspace => {
            w.input.pop();
        }
        Msg::Submit | Msg::CancelEdit => w.editing = false,
        Msg::WalkInsert | Msg::WalkQuery | Msg::WalkRemove => {
            let word = w.input.clone();
            if word.is_empty() {
                info(s, Level::Info, "type a word first: press Enter (or i)");
                return Vec::new();
            }
            let out = match msg {
                Msg::WalkInsert => w.session.insert(&word),
                Msg::WalkQuery => w.session.query(&word),
                _ => w.session.remove(&word),
            };
            w.record(word, out);
        }
        Msg::WalkToggleCounting => {
            w.session.set_counting(!w.session.counting());
            let text = if w.session.counting() {
                "counting mode: each cell is a 4-bit counter; d removes"
            } else {
                "bit mode: a cell is 1 when its counter is above 0; no remove"
            };
            info(s, Level::Info, text);
        }
        Msg::WalkClear => w.clear(),
        Msg::WalkPreload => w.preload(),
        _ => {}
    }
    Vec::new()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tui::results::{FillMap, RowOutcome};
    use bloomlab::walkthrough::Outcome as WalkOutcome;

    fn typed(s: &mut State, field: Field, text: &str) -> Vec<Cmd> {
        s.explore.field = field;
        let mut cmds = update(s, Msg::StartEdit);
        for c in text.chars() {
            cmds.extend(update(s, Msg::Input(c)));
        }
        cmds.extend(update(s, Msg::Submit));
        cmds
    }

    fn started_explore(cmds: &[Cmd]) -> Option<&ExploreJob> {
        cmds.iter().find_map(|c| match c {
            Cmd::StartExplore(j) => Some(j),
            _ => None,
        })
    }

    #[test]
    fn init_starts_a_measurement_of_the_design() {
        let mut s = State::new();
        let cmds = init(&mut s);
        let job = started_explore(&cmds).expect("a job");
        assert_eq!(job.spec.m, Some(9_585_058));
        assert_eq!(job.spec.k, Some(7));
        assert_eq!(job.spec.n, 1_000_000);
        assert_eq!(s.explore.run.status, RunStatus::Running);
        assert_eq!(s.explore.run.job, job.job);
        // (1.96/0.02)^2 · 0.99/0.01004 ≈ 947k queries for a 2% interval.
        assert!(
            (900_000..1_000_000).contains(&job.target_queries),
            "{}",
            job.target_queries
        );
        // m = 9.6M: the exact rate takes the cheap moment form and is computed inline.
        assert!(s.explore.exact.is_some());
    }

    #[test]
    fn typed_n_and_p_resize_and_restart() {
        let mut s = State::new();
        init(&mut s);
        let old_job = s.explore.run.job;
        let cmds = typed(&mut s, Field::N, "10,000");
        let job = started_explore(&cmds).expect("restarted");
        assert!(job.job > old_job);
        assert_eq!(job.spec.m, Some(95_850));
        let cmds = typed(&mut s, Field::P, "0.1%");
        let job = started_explore(&cmds).expect("restarted");
        assert_eq!((job.spec.m, job.spec.k), (Some(143_775), Some(10)));
        // Bad input: refused with a message, nothing restarted, still editing.
        let cmds = typed(&mut s, Field::P, "150%");
        assert!(cmds.is_empty());
        assert_eq!(s.explore.params.p, 0.001);
        let (lvl, text) = s.status.clone().unwrap();
        assert_eq!(lvl, Level::Error);
        assert!(text.contains("between 0 and 1"), "{text}");
        assert!(s.explore.edit.is_some());
        update(&mut s, Msg::CancelEdit);
        assert!(s.explore.edit.is_none());
    }

    #[test]
    fn k_pins_and_auto_unpins() {
        let mut s = State::new();
        init(&mut s);
        s.explore.field = Field::K;
        let cmds = update(&mut s, Msg::Right);
        assert_eq!(started_explore(&cmds).unwrap().spec.k, Some(8));
        assert_eq!(s.explore.params.k_pin, Some(8));
        let cmds = update(&mut s, Msg::Auto);
        assert_eq!(started_explore(&cmds).unwrap().spec.k, Some(7));
        assert_eq!(s.explore.params.k_pin, None);
    }

    #[test]
    fn log_steps_for_n_and_m() {
        let mut s = State::new();
        init(&mut s);
        s.explore.field = Field::N;
        update(&mut s, Msg::Right);
        assert_eq!(s.explore.params.n, 2_000_000);
        update(&mut s, Msg::BigDown);
        assert_eq!(s.explore.params.n, 200_000);
        s.explore.field = Field::M;
        let m0 = s.explore.params.design().unwrap().m;
        update(&mut s, Msg::Plus);
        assert_eq!(s.explore.params.m_pin, Some(m0 * 2));
        // Changing p lets m follow p again.
        s.explore.field = Field::P;
        update(&mut s, Msg::Minus);
        assert_eq!(s.explore.params.m_pin, None);
        assert!((s.explore.params.p - 0.005).abs() < 1e-12);
    }

    #[test]
    fn huge_sizes_are_refused_with_a_reason() {
        let mut s = State::new();
        init(&mut s);
        let cmds = typed(&mut s, Field::N, "1e9");
        assert!(started_explore(&cmds).is_none());
        assert!(cmds.contains(&Cmd::Cancel(Slot::Explore)));
        let RunStatus::Refused(why) = &s.explore.run.status else {
            panic!("{:?}", s.explore.run.status)
        };
        assert!(why.contains("2^33"), "{why}");
        let (lvl, text) = s.status.clone().unwrap();
        assert_eq!(lvl, Level::Warn);
        assert!(text.contains("9,585,058,377 bits"), "{text}");
        // Small m but too many inserts: refused on time.
        typed(&mut s, Field::M, "1000000");
        let RunStatus::Refused(why) = &s.explore.run.status else {
            panic!("{:?}", s.explore.run.status)
        };
        assert!(why.contains("s estimated"), "{why}");
    }

    #[test]
    fn stale_reports_are_ignored() {
        let mut s = State::new();
        let cmds = init(&mut s);
        let old = started_explore(&cmds).unwrap().job;
        typed(&mut s, Field::N, "5000");
        update(
            &mut s,
            Msg::worker(WorkerEvent::ExplorePartial {
                job: old,
                queries: 1000,
                false_positives: 10,
                ns_query: 50.0,
            }),
        );
        assert_eq!(s.explore.run.queries, 0);
        let cur = s.explore.run.job;
        update(
            &mut s,
            Msg::worker(WorkerEvent::ExploreBuilt {
                job: cur,
                bits: 47_925,
                bytes: 5_992,
                fill: Some(FillMap {
                    m: 47_925,
                    regions: vec![(2_995, 5_990); 8],
                    ones: 23_962,
                }),
                ns_insert: 40.0,
                model_fpr: 0.01,
                details: Vec::new(),
            }),
        );
        update(
            &mut s,
            Msg::worker(WorkerEvent::ExplorePartial {
                job: cur,
                queries: 1000,
                false_positives: 10,
                ns_query: 30.0,
            }),
        );
        assert_eq!(s.explore.run.queries, 1000);
        assert_eq!(s.speed.ns_insert, 40.0);
        let (fpr, lo, hi) = s.explore.run.fpr().unwrap();
        assert!((fpr - 0.01).abs() < 1e-12 && lo < 0.01 && hi > 0.01);
        update(
            &mut s,
            Msg::worker(WorkerEvent::Finished {
                slot: Slot::Explore,
                job: cur,
                stopped: None,
            }),
        );
        assert_eq!(s.explore.run.status, RunStatus::Done);
    }

    #[test]
    fn exact_is_computed_in_background_when_expensive() {
        let mut s = State::new();
        init(&mut s);
        // m = 2^16, n = 6,000: the recurrence (~10^8 cells) goes to the worker.
        typed(&mut s, Field::N, "6000");
        let cmds = typed(&mut s, Field::M, "2^16");
        let exact = cmds.iter().find(|c| matches!(c, Cmd::Exact { .. }));
        let Some(Cmd::Exact { m, n, k }) = exact else {
            panic!("{cmds:?}")
        };
        assert_eq!((*m, *n, *k), (65_536, 6_000, 8));
        let d = s.explore.params.design().unwrap();
        assert_eq!(
            s.explore.exact_for(&d),
            None,
            "not known yet: the view says computing"
        );
        update(
            &mut s,
            Msg::worker(WorkerEvent::Exact {
                m: 65_536,
                n: 6_000,
                k: 8,
                value: 0.0123,
            }),
        );
        assert_eq!(s.explore.exact, Some(((65_536, 6_000, 8), 0.0123)));
        // Small filters are computed inline.
        typed(&mut s, Field::N, "26");
        let cmds = typed(&mut s, Field::M, "256");
        assert!(!cmds.iter().any(|c| matches!(c, Cmd::Exact { .. })));
        let e = s.explore.exact.unwrap().1;
        assert!((e - theory::fpr_exact(256, 26, 7)).abs() < 1e-15);
    }

    #[test]
    fn one_measurement_at_a_time() {
        let mut s = State::new();
        init(&mut s);
        let cmds = update(&mut s, Msg::Goto(Tab::Compare));
        assert!(cmds.contains(&Cmd::Cancel(Slot::Explore)));
        let job = cmds
            .iter()
            .find_map(|c| match c {
                Cmd::StartCompare(j) => Some(j.clone()),
                _ => None,
            })
            .expect("compare starts");
        assert_eq!(job.rows.len(), FilterKind::ALL.len());
        assert_eq!(job.base.n, 1_000_000);
        // Walkthrough does not stop Compare; going back to Explore does.
        assert!(update(&mut s, Msg::Goto(Tab::Walkthrough)).is_empty());
        let cmds = update(&mut s, Msg::Goto(Tab::Explore));
        assert!(cmds.contains(&Cmd::Cancel(Slot::Compare)));
        assert!(started_explore(&cmds).is_some());
        // A row reported by the cancelled job is ignored.
        update(
            &mut s,
            Msg::worker(WorkerEvent::CompareRow {
                job: job.job,
                idx: 0,
                outcome: RowOutcome::NotAvailable("x".into()),
            }),
        );
        assert_eq!(s.compare.rows[0], RowState::Pending);
    }

    #[test]
    fn compare_resumes_only_missing_rows() {
        let mut s = State::new();
        init(&mut s);
        let cmds = update(&mut s, Msg::Goto(Tab::Compare));
        let job = cmds
            .iter()
            .find_map(|c| match c {
                Cmd::StartCompare(j) => Some(j.job),
                _ => None,
            })
            .unwrap();
        update(
            &mut s,
            Msg::worker(WorkerEvent::CompareRow {
                job,
                idx: 1,
                outcome: RowOutcome::NotAvailable("unknown filter".into()),
            }),
        );
        update(&mut s, Msg::Goto(Tab::Explore));
        let cmds = update(&mut s, Msg::Goto(Tab::Compare));
        let job = cmds
            .iter()
            .find_map(|c| match c {
                Cmd::StartCompare(j) => Some(j.clone()),
                _ => None,
            })
            .unwrap();
        assert_eq!(job.rows.len(), FilterKind::ALL.len() - 1);
        assert!(job.rows.iter().all(|(i, _)| *i != 1));
    }

    #[test]
    fn hashes_controls() {
        let mut s = State::new();
        init(&mut s);
        let cmds = update(&mut s, Msg::Goto(Tab::Hashes));
        let job = cmds
            .iter()
            .find_map(|c| match c {
                Cmd::StartHashes(j) => Some(j.clone()),
                _ => None,
            })
            .unwrap();
        assert_eq!(job.cells.len(), 45);
        assert_eq!(job.keys, KeyKind::Seq);
        update(
            &mut s,
            Msg::worker(WorkerEvent::HashRow {
                job: job.job,
                idx: 3,
                outcome: RowOutcome::Failed("x".into()),
            }),
        );
        assert!(matches!(
            s.hashes.cells[3],
            RowState::Out(RowOutcome::Failed(_))
        ));
        // Changing the key kind starts over.
        let cmds = update(&mut s, Msg::NextKeys(true));
        assert_eq!(s.hashes.keys, KeyKind::String);
        assert!(s.hashes.cells.iter().all(|c| *c == RowState::Pending));
        assert!(cmds.iter().any(|c| matches!(c, Cmd::StartHashes(_))));
        update(&mut s, Msg::Down);
        assert_eq!(s.hashes.row, 0);
        update(&mut s, Msg::CycleView);
        assert_eq!(s.hashes.metric, HashMetric::Uniformity);
    }

    #[test]
    fn walkthrough_story() {
        let mut s = State::new();
        update(&mut s, Msg::Goto(Tab::Walkthrough));
        // Preloaded with apple and banana; the box holds "cherry".
        update(&mut s, Msg::WalkQuery);
        let Some((
            w,
            WalkOutcome::MaybePresent {
                false_positive,
                setters,
                ..
            },
        )) = s.walk.last().cloned()
        else {
            panic!("{:?}", s.walk.last())
        };
        assert_eq!(w, "cherry");
        assert!(false_positive);
        let all: Vec<String> = setters.iter().flat_map(|(_, v)| v.clone()).collect();
        assert!(all.contains(&"apple".to_string()) && all.contains(&"banana".to_string()));
        // Type grape: absent.
        update(&mut s, Msg::StartEdit);
        for c in "grape".chars() {
            update(&mut s, Msg::Input(c));
        }
        update(&mut s, Msg::Submit);
        update(&mut s, Msg::WalkQuery);
        assert!(matches!(
            s.walk.last(),
            Some((_, WalkOutcome::Absent { .. }))
        ));
        // Remove refused in bit mode.
        update(&mut s, Msg::WalkRemove);
        assert!(matches!(
            s.walk.last(),
            Some((_, WalkOutcome::RemoveRefused(_)))
        ));
        // Counting mode: removing the false positive cherry creates false negatives.
        update(&mut s, Msg::WalkToggleCounting);
        s.walk.input = "cherry".into();
        update(&mut s, Msg::WalkRemove);
        let Some((
            _,
            WalkOutcome::Removed {
                was_inserted,
                now_missing,
                ..
            },
        )) = s.walk.last().cloned()
        else {
            panic!("{:?}", s.walk.last())
        };
        assert!(!was_inserted);
        assert_eq!(now_missing, vec!["apple".to_string(), "banana".to_string()]);
        // Start over; remove a real member: its counters go back to 0.
        update(&mut s, Msg::WalkPreload);
        s.walk.input = "apple".into();
        update(&mut s, Msg::WalkRemove);
        let apple = s.walk.session.positions("apple");
        let banana = s.walk.session.positions("banana");
        for p in apple {
            let expect = u8::from(banana.contains(&p));
            assert_eq!(s.walk.session.counter(p), expect, "bit {p}");
        }
        assert!(s.walk.session.contains("banana"));
    }

    #[test]
    fn a_job_that_stops_before_any_query_is_a_failure() {
        let mut s = State::new();
        init(&mut s);
        let job = s.explore.run.job;
        update(
            &mut s,
            Msg::worker(WorkerEvent::Finished {
                slot: Slot::Explore,
                job,
                stopped: Some("not available in this build".into()),
            }),
        );
        assert_eq!(
            s.explore.run.status,
            RunStatus::Failed("not available in this build".into())
        );
        let (lvl, text) = s.status.clone().unwrap();
        assert_eq!(lvl, Level::Error);
        assert!(text.contains("not available"), "{text}");
    }

    #[test]
    fn quitting_cancels_everything() {
        let mut s = State::new();
        let cmds = update(&mut s, Msg::Quit);
        assert!(s.quit);
        assert_eq!(cmds.len(), 3);
    }
}
