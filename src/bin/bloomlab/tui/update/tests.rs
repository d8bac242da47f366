//! Tests of `update`: messages in, state and commands out (no threads, no terminal).

use bloomlab::FilterKind;
use bloomlab::hash::{HashId, StrategyId};
use bloomlab::theory;
use bloomlab::walkthrough::Outcome as WalkOutcome;
use bloomlab::workload::KeyKind;

use super::{init, update};
use crate::tui::msg::{Cmd, ExploreJob, Msg, Slot, WorkerEvent};
use crate::tui::results::{FillMap, RowOutcome, RowState};
use crate::tui::state::{Field, HashMetric, Level, RunStatus, State, Tab};

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

/// (bits, k) of the filter a job builds.
fn built(job: &ExploreJob) -> (u64, u32) {
    use bloomlab::Filter;
    let f = job.spec.build().unwrap();
    (f.bits(), f.k())
}

#[test]
fn init_starts_a_measurement_of_the_design() {
    let mut s = State::new();
    let cmds = init(&mut s);
    let job = started_explore(&cmds).expect("a job");
    // Sized by the kind's own rule: the spec `measure --n 1000000 --p 0.01` uses.
    assert_eq!(
        job.spec,
        bloomlab::FilterSpec::new(FilterKind::Standard, 1_000_000, 0.01)
    );
    assert_eq!(built(job), (9_585_058, 7));
    assert_eq!(job.instances, 1);
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
    assert_eq!((job.spec.n, job.spec.m), (10_000, None));
    assert_eq!(built(job).0, 95_850);
    let cmds = typed(&mut s, Field::P, "0.1%");
    let job = started_explore(&cmds).expect("restarted");
    assert_eq!(
        (job.spec.m, job.spec.k, job.spec.p),
        (None, None, Some(0.001))
    );
    assert_eq!(built(job), (143_775, 10));
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
    // Unpinned: the kind's own rule (k = 7 at n = 10^6, p = 1%).
    let job = started_explore(&cmds).unwrap();
    assert_eq!(job.spec.k, None);
    assert_eq!(built(job).1, 7);
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
    assert_eq!(s.speed_of(FilterKind::Standard).ns_insert, 40.0);
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
            outcome: RowOutcome::Failed("x".into()),
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
            outcome: RowOutcome::Failed("out of memory".into()),
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
    assert_eq!(job.cells.len(), HashId::ALL.len() * StrategyId::ALL.len());
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
    // Down from the starting (weak) row moves one row; from the last row it wraps to the first.
    let start = s.hashes.row;
    update(&mut s, Msg::Down);
    assert_eq!(s.hashes.row, (start + 1) % HashId::ALL.len());
    s.hashes.row = HashId::ALL.len() - 1;
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
            stopped: Some("cannot start a thread: out of resources".into()),
        }),
    );
    assert_eq!(
        s.explore.run.status,
        RunStatus::Failed("cannot start a thread: out of resources".into())
    );
    let (lvl, text) = s.status.clone().unwrap();
    assert_eq!(lvl, Level::Error);
    assert!(text.contains("cannot start a thread"), "{text}");
}

#[test]
fn quitting_cancels_everything() {
    let mut s = State::new();
    let cmds = update(&mut s, Msg::Quit);
    assert!(s.quit);
    assert_eq!(cmds.len(), 3);
}

#[test]
fn large_filters_are_sized_in_the_background_then_measured() {
    use crate::tui::sizing;
    let mut s = State::new();
    init(&mut s);
    typed(&mut s, Field::N, "20,000,000");
    s.explore.field = Field::Kind;
    // standard → counting: ~767M bits estimated, over the inline limit.
    let cmds = update(&mut s, Msg::Right);
    assert_eq!(s.explore.params.kind, FilterKind::Counting);
    let spec = cmds
        .iter()
        .find_map(|c| match c {
            Cmd::Footprint(spec) => Some(spec.clone()),
            _ => None,
        })
        .expect("sized in the background");
    assert!(started_explore(&cmds).is_none(), "{cmds:?}");
    assert_eq!(spec, s.explore.params.spec());
    let footprint = sizing::footprint(&spec, sizing::MAX_BUILD_BITS);
    let bytes = footprint.as_ref().unwrap().bytes;
    let cmds = update(
        &mut s,
        Msg::worker(WorkerEvent::Footprint { spec, footprint }),
    );
    let job = started_explore(&cmds).expect("measured once sized");
    assert_eq!(job.spec.kind, FilterKind::Counting);
    assert_eq!(job.spec.m, None);
    // 4-bit counters: four times the standard filter's bytes (to a word).
    let std_bytes = s.explore.params.design().unwrap().bytes;
    assert!(bytes.abs_diff(4 * std_bytes) < 16, "{bytes} {std_bytes}");
}

/// Esc leaves a text box and never quits, however often it is pressed; q quits.
#[test]
fn esc_never_quits() {
    use crate::tui::event::key_to_msg;
    use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
    let esc = KeyEvent::new(KeyCode::Esc, KeyModifiers::NONE);
    let mut s = State::new();
    init(&mut s);
    for tab in Tab::ALL {
        update(&mut s, Msg::Goto(tab));
        update(&mut s, Msg::StartEdit);
        for _ in 0..3 {
            if let Some(m) = key_to_msg(esc, s.tab, s.typing()) {
                update(&mut s, m);
            }
            assert!(!s.quit, "{tab:?}");
            assert!(!s.typing(), "{tab:?}");
        }
    }
    let q = KeyEvent::new(KeyCode::Char('q'), KeyModifiers::NONE);
    let m = key_to_msg(q, s.tab, s.typing()).unwrap();
    update(&mut s, m);
    assert!(s.quit);
}

/// The time estimate is per kind: a slow counting run does not refuse the standard filter; a
/// refused run says how to run it anyway, and g does.
#[test]
fn time_estimate_is_per_kind_and_g_runs_anyway() {
    let mut s = State::new();
    init(&mut s);
    // One slow counting measurement (100 µs per operation).
    s.record_speed(FilterKind::Counting, 100_000.0, 100_000.0);
    let cmds = typed(&mut s, Field::N, "1000000");
    assert_eq!(s.explore.params.kind, FilterKind::Standard);
    assert!(
        cmds.iter().any(|c| matches!(c, Cmd::StartExplore(_))),
        "standard refused after a slow counting run: {:?}",
        s.status
    );
    // Counting itself is refused, and the message names the key.
    s.explore.field = Field::Kind;
    let mut cmds = Vec::new();
    while s.explore.params.kind != FilterKind::Counting {
        cmds = update(&mut s, Msg::Right);
    }
    assert!(!cmds.iter().any(|c| matches!(c, Cmd::StartExplore(_))));
    let RunStatus::Refused(why) = &s.explore.run.status else {
        panic!("{:?}", s.explore.run.status)
    };
    assert!(why.contains("press g to run anyway"), "{why}");
    let cmds = update(&mut s, Msg::RunAnyway);
    assert!(
        cmds.iter().any(|c| matches!(c, Cmd::StartExplore(_))),
        "{cmds:?}"
    );
    assert_eq!(s.explore.run.status, RunStatus::Running);
    assert!(!s.run_anyway, "g works once");
}
