//! Explore: the parameters, the exact rate, the measurement.

use std::time::Duration;

use bloomlab::hash::{HashId, StrategyId};
use bloomlab::workload::KeyKind;
use bloomlab::{FilterKind, theory};

use super::{cycle, fresh_job, info, pause_others, queries_for, refusal};
use crate::tui::fmt;
use crate::tui::msg::{Cmd, ExploreJob, Msg, Slot};
use crate::tui::sizing;
use crate::tui::state::{
    ChartView, Design, ExploreRun, FILL_REGIONS, Field, Level, MAX_M, MAX_N, MIN_P, MIN_QUERIES,
    RunStatus, State, Tab,
};

/// Longest time the Explore measurement keeps querying.
const QUERY_BUDGET: Duration = Duration::from_secs(20);

/// Most absent keys the Explore measurement queries.
const MAX_QUERIES: u64 = 50_000_000;

/// Exact-FPR work (recurrence cells) cheap enough to compute on the UI thread.
const INLINE_EXACT_WORK: f64 = 2e5;

pub(super) fn start_explore(s: &mut State) -> Vec<Cmd> {
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
    let spec = s.explore.params.spec();
    let foot = match s.explore.footprint() {
        Some(Ok(f)) => f.clone(),
        Some(Err(e)) => {
            let why = format!("explore not measured: {e}");
            s.explore.run = ExploreRun {
                status: RunStatus::Refused(why.clone()),
                ..ExploreRun::default()
            };
            info(s, Level::Warn, format!("{why}; theory shown"));
            return vec![Cmd::Cancel(Slot::Explore)];
        }
        // Being sized in the background: measured once its size is known.
        None => {
            s.explore.run = ExploreRun {
                phase: "sizing",
                ..ExploreRun::default()
            };
            return vec![Cmd::Cancel(Slot::Explore)];
        }
    };
    let instances = sizing::instances_for(foot.bits);
    let inserts = d.n.saturating_mul(u64::from(instances));
    let sp = s.speed_of(s.explore.params.kind);
    let secs = sp.secs(inserts, MIN_QUERIES);
    if let Some(why) = refusal(s, foot.bits, inserts, secs, sp.ns_insert, "explore") {
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
        instances,
        ..ExploreRun::default()
    };
    let mut cmds = pause_others(s, Slot::Explore);
    cmds.push(Cmd::StartExplore(ExploreJob {
        job,
        spec,
        instances,
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
fn exact_work(m: u64, n: u64, k: u32) -> f64 {
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
pub(super) fn explore_changed(s: &mut State) -> Vec<Cmd> {
    let mut sizing_cmds = Vec::new();
    if s.explore.footprint().is_none() {
        let spec = s.explore.params.spec();
        let f = if sizing::bits_estimate(&spec) <= sizing::INLINE_BUILD_BITS
            || spec.kind.caps().static_set
            || spec.kind.caps().bit_array
        {
            Some(sizing::footprint(&spec, sizing::MAX_BUILD_BITS))
        } else {
            None
        };
        match f {
            Some(f) => s.explore.footprint = Some((spec, f)),
            None if s.explore.footprint_pending.as_ref() == Some(&spec) => {}
            None => {
                s.explore.footprint_pending = Some(spec.clone());
                sizing_cmds.push(Cmd::Footprint(spec));
            }
        }
    }
    let mut cmds = match s.explore.params.design() {
        Ok(d) => exact_cmds(s, &d),
        Err(_) => Vec::new(),
    };
    cmds.extend(sizing_cmds);
    if s.tab == Tab::Explore {
        cmds.extend(start_explore(s));
    } else {
        s.explore.run = ExploreRun::default();
        cmds.push(Cmd::Cancel(Slot::Explore));
    }
    cmds
}

/// A background sizing finished: keep it if it is still the current spec, then measure.
pub(super) fn footprint_done(
    s: &mut State,
    spec: bloomlab::FilterSpec,
    f: Result<sizing::Footprint, String>,
) -> Vec<Cmd> {
    if s.explore.footprint_pending.as_ref() == Some(&spec) {
        s.explore.footprint_pending = None;
    }
    if spec != s.explore.params.spec() {
        return Vec::new();
    }
    s.explore.footprint = Some((spec, f));
    if s.tab == Tab::Explore {
        start_explore(s)
    } else {
        Vec::new()
    }
}

pub(super) fn explore_msg(s: &mut State, msg: Msg) -> Vec<Cmd> {
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
                ChartView::FprVsN => ChartView::Details,
                ChartView::Details => ChartView::FprVsK,
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
