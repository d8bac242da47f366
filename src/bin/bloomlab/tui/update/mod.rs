//! `update`: the only place the state changes. Returns the commands the runtime must run
//! (start or cancel background jobs), so it can be tested without threads or a terminal.
//!
//! This module routes messages and worker reports and holds what the screens share (job
//! generations, pausing, refusals); each screen's messages are handled in its own module.

mod command;
mod compare;
mod explore;
mod hashes;
mod lessons;
#[cfg(test)]
mod tests;
mod tradeoffs;
mod walkthrough;

use compare::{compare_msg, ensure_compare};
use explore::{explore_changed, explore_msg, footprint_done, start_explore};
use hashes::{ensure_hashes, hashes_msg};
use walkthrough::walk_msg;

use bloomlab::workload::ABSENT_BASE;

use super::fmt;
use super::msg::{Cmd, Msg, Slot, WorkerEvent};
use super::results::{RowOutcome, RowState};
use super::state::{ExploreRun, Level, MAX_MEASURE_BITS, MAX_MEASURE_SECS, RunStatus, State, Tab};
use bloomlab::FilterKind;

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
        Msg::RunAnyway => run_anyway(s),
        Msg::ToggleOneIn => {
            s.one_in_n = !s.one_in_n;
            Vec::new()
        }
        Msg::CopyCommand => {
            if let Some(c) = command::command_for(s) {
                info(s, Level::Info, c);
            }
            Vec::new()
        }
        Msg::Escape => {
            info(
                s,
                Level::Info,
                "Esc leaves a text box; nothing to leave here (q quits)",
            );
            Vec::new()
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
            Tab::Lessons => lessons::lessons_msg(s, other),
            Tab::Tradeoffs => tradeoffs::tradeoffs_msg(s, other),
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

/// Why a measurement is refused: `bits` bits, `inserts` inserts, estimated at `secs` seconds
/// (each kind by its own measured speed, `per_insert` the ns quoted). The time limit is skipped
/// once after `g` ([`State::run_anyway`]); the memory limits never are.
fn refusal(
    s: &State,
    bits: u64,
    inserts: u64,
    secs: f64,
    per_insert: f64,
    what: &str,
) -> Option<String> {
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
    if secs > MAX_MEASURE_SECS && !s.run_anyway {
        return Some(format!(
            "{what} not measured: ~{secs:.0} s estimated ({} inserts at ~{} ns), over the {MAX_MEASURE_SECS:.0} s limit; press g to run anyway",
            fmt::int(inserts),
            fmt::ns(per_insert)
        ));
    }
    None
}

/// `g`: start the current screen's refused measurement once, whatever its time estimate.
fn run_anyway(s: &mut State) -> Vec<Cmd> {
    s.run_anyway = true;
    let cmds = match s.tab {
        Tab::Explore => start_explore(s),
        Tab::Compare => {
            if matches!(s.compare.status, RunStatus::Refused(_)) {
                s.compare.status = RunStatus::Idle;
            }
            ensure_compare(s)
        }
        Tab::Hashes => {
            if matches!(s.hashes.status, RunStatus::Refused(_)) {
                s.hashes.status = RunStatus::Idle;
            }
            ensure_hashes(s)
        }
        _ => Vec::new(),
    };
    s.run_anyway = false;
    cmds
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
            let kind = s.explore.params.kind;
            s.record_speed(kind, ns_insert, 0.0);
        }
        WorkerEvent::ExploreTiming { job, insert, query } if job == s.explore.run.job => {
            let r = &mut s.explore.run;
            r.insert_timing = insert;
            r.query_timing = query;
        }
        WorkerEvent::ExploreInstance { job, rate } if job == s.explore.run.job => {
            s.explore.run.rates.push(rate);
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
            let kind = s.explore.params.kind;
            s.record_speed(kind, 0.0, ns_query);
        }
        WorkerEvent::CompareRow { job, idx, outcome } if job == s.compare.job => {
            if let (RowOutcome::Done(r), Some(kind)) = (&outcome, FilterKind::ALL.get(idx)) {
                s.record_speed(*kind, r.m.ns_per_insert, r.m.ns_per_query);
            }
            if let Some(row) = s.compare.rows.get_mut(idx) {
                *row = RowState::Out(outcome);
            }
        }
        WorkerEvent::PeerRow { job, idx, outcome } if job == s.compare.job => {
            if let Some(row) = s.compare.peer_rows.get_mut(idx) {
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
                    // Peers asked for (e) while the kinds were measured: measure them now.
                    if s.tab == Tab::Compare
                        && s.compare.peers
                        && s.compare.status == RunStatus::Done
                        && s.compare.peer_rows.contains(&RowState::Pending)
                    {
                        return ensure_compare(s);
                    }
                }
                Slot::Hashes if job == s.hashes.job => {
                    s.hashes.status = status;
                    s.hashes.progress = 1.0;
                }
                _ => {}
            }
        }
        WorkerEvent::Footprint { spec, footprint } => return footprint_done(s, spec, footprint),
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

fn cycle<T: Copy + PartialEq>(all: &[T], cur: T, steps: i32) -> T {
    let len = all.len() as i32;
    let i = all.iter().position(|x| *x == cur).unwrap_or(0) as i32;
    let dir = steps.signum();
    all[(i + dir).rem_euclid(len) as usize]
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
