//! Lessons: short interactive steps through the articles' story and the book's first chapters.
//! Each lesson has one setting to change (←→), live numbers computed with the library (theory,
//! and small real filters, n ≤ 10^5, built when the setting changes) and one question (a, b, c).
//! Progress (done per lesson) lasts for the session.

use bloomlab::hash::HashId;
use bloomlab::measure::{Control, MeasureConfig, Measurement, measure};
use bloomlab::stats::RateText;
use bloomlab::walkthrough::{Outcome, SEED, Walkthrough};
use bloomlab::workload::{KeyGen, KeyKind};
use bloomlab::{Filter, FilterKind, FilterSpec, theory};

use super::fmt;

/// One lesson's fixed text.
pub struct LessonInfo {
    /// Title.
    pub title: &'static str,
    /// The book chapter it follows (title, file under `book/src/`).
    pub chapter: (&'static str, &'static str),
    /// The one thing to do.
    pub task: &'static str,
    /// The settings ←→ steps through (labels).
    pub settings: &'static [&'static str],
}

/// The lessons, in order.
pub const LESSONS: [LessonInfo; 8] = [
    LessonInfo {
        title: "Filling up: 10%, 100%, 150% of capacity",
        chapter: ("Sizing in practice", "sizing.md"),
        task: "A filter sized for 10,000 items at 1%. Step the load with ←→ and watch the rate.",
        settings: &["10%", "50%", "100%", "150%", "200%"],
    },
    LessonInfo {
        title: "k = 1 is bad, and so is k = 20",
        chapter: ("The mathematics", "maths.md"),
        task: "10 bits per key, 10,000 items. Step k with ←→: too few hashes, too many.",
        settings: &["k = 1", "k = 3", "k = 7", "k = 12", "k = 20"],
    },
    LessonInfo {
        title: "Deleting from a counting filter",
        chapter: ("Counting Bloom filters", "counting.md"),
        task: "64 counters, k = 3, 12 words in. Remove false positives (never inserted): ←→",
        settings: &["remove 0", "remove 1", "remove 2", "remove 4", "remove 8"],
    },
    LessonInfo {
        title: "Overfilled: the articles' \"90%\"",
        chapter: ("Pitfalls and security", "pitfalls.md"),
        task: "Sized for 1,000 at 1% (1/10 of the articles' scale). Insert 10× and 100× with ←→.",
        settings: &["1,000", "10,000", "100,000"],
    },
    LessonInfo {
        title: "A weak hash on sequential keys",
        chapter: ("Hashing", "hashing.md"),
        task: "10,000 sequential keys (1, 2, 3 …) at 1%. Change the hash with ←→.",
        settings: &["weak", "fnv1a", "xxh3", "murmur3"],
    },
    LessonInfo {
        title: "Blocked vs standard: memory at the same rate",
        chapter: ("Blocked and split-block filters", "blocked.md"),
        task: "10,000 items; both sized for the same target. Step the target with ←→.",
        settings: &["1%", "0.1%", "0.01%"],
    },
    LessonInfo {
        title: "A static set: xor vs Bloom",
        chapter: ("Choosing a filter", "choosing.md"),
        task: "10,000 keys known up front. Step the target (←→); compare at the same rate.",
        settings: &["1%", "0.4%", "0.1%"],
    },
    LessonInfo {
        title: "Deleting from a cuckoo filter",
        chapter: ("Cuckoo filters", "cuckoo.md"),
        task: "10,000 keys in a cuckoo filter at 1%. Delete a share of them with ←→.",
        settings: &["delete 25%", "delete 50%", "delete 75%"],
    },
];

/// What a lesson shows for its current setting: lines of numbers, and the question with three
/// answers and the index of the true one (decided by the numbers, not written in).
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Live {
    /// Numbers, one line each.
    pub lines: Vec<String>,
    /// The question.
    pub question: String,
    /// Three answers.
    pub answers: [String; 3],
    /// Index of the right answer.
    pub correct: usize,
    /// Why it is right (shown once answered).
    pub because: String,
    /// What to look at (shown after a wrong answer).
    pub hint: String,
}

/// Session progress and the open lesson.
#[derive(Debug, Clone, PartialEq)]
pub struct Lessons {
    /// Open lesson.
    pub current: usize,
    /// Setting of each lesson.
    pub setting: [usize; LESSONS.len()],
    /// Done (answered right) per lesson.
    pub done: [bool; LESSONS.len()],
    /// The answer given to the open lesson, if any.
    pub answer: Option<usize>,
    /// The open lesson's numbers for its setting.
    pub live: Live,
    /// Lines of the reason scrolled past (PgDn), where the screen cannot hold all of it.
    pub scroll: u16,
    /// The most lines that can be scrolled past, as last drawn (the screen sets it).
    pub scroll_max: std::cell::Cell<u16>,
}

impl Lessons {
    /// Lesson 1, nothing done.
    pub fn new() -> Self {
        let mut l = Self {
            current: 0,
            setting: [0; LESSONS.len()],
            done: [false; LESSONS.len()],
            answer: None,
            live: Live::default(),
            scroll: 0,
            scroll_max: std::cell::Cell::new(0),
        };
        l.refresh();
        l
    }

    /// Recompute the open lesson's numbers.
    pub fn refresh(&mut self) {
        self.live = compute(self.current, self.setting[self.current]);
        self.scroll = 0;
    }

    /// Open lesson `i` (wrapping).
    pub fn open(&mut self, i: isize) {
        let n = LESSONS.len() as isize;
        self.current = i.rem_euclid(n) as usize;
        self.answer = None;
        self.refresh();
    }

    /// Step the open lesson's setting by `d` (clamped).
    pub fn step(&mut self, d: isize) {
        let last = LESSONS[self.current].settings.len() as isize - 1;
        let s = (self.setting[self.current] as isize + d).clamp(0, last) as usize;
        if s != self.setting[self.current] {
            self.setting[self.current] = s;
            self.answer = None;
            self.refresh();
        }
    }

    /// Scroll the reason by `d` lines, up to its last line as last drawn.
    pub fn scroll_by(&mut self, d: i16) {
        self.scroll = self
            .scroll
            .min(self.scroll_max.get())
            .saturating_add_signed(d)
            .min(self.scroll_max.get());
    }

    /// Answer the question; a right answer marks the lesson done.
    pub fn answer(&mut self, a: usize) {
        self.answer = Some(a);
        self.scroll = 0;
        if a == self.live.correct {
            self.done[self.current] = true;
        }
    }
}

/// `measured 8e-5 (4 of 50,000 absent keys; 95% 3e-5–2e-4)`: the digits the interval supports
/// ([`RateText`]).
fn m_of(r: &Measurement) -> String {
    let mut t = RateText::wilson(r.false_positives, r.queries);
    t.count.push_str(" absent keys");
    format!("measured {t}")
}

fn run(
    spec: FilterSpec,
    keys: KeyKind,
    inserted: Option<u64>,
    queries: u64,
) -> Option<Measurement> {
    let cfg = MeasureConfig {
        inserted,
        queries,
        check_hits: false,
        ..MeasureConfig::new(spec, keys)
    };
    measure(&cfg, &Control::default()).ok()
}

fn three(a: impl Into<String>, b: impl Into<String>, c: impl Into<String>) -> [String; 3] {
    [a.into(), b.into(), c.into()]
}

/// The index of the smallest of three values.
fn argmin(v: [f64; 3]) -> usize {
    (0..3).fold(0, |b, i| if v[i] < v[b] { i } else { b })
}

/// The numbers and question of lesson `i` at setting `s`.
pub fn compute(i: usize, s: usize) -> Live {
    match i {
        0 => filling(s),
        1 => hashes_k(s),
        2 => counting_delete(s),
        3 => overfill(s),
        4 => weak_hash(s),
        5 => blocked(s),
        6 => static_set(s),
        _ => cuckoo_delete(s),
    }
}

fn filling(s: usize) -> Live {
    let load = [0.1, 0.5, 1.0, 1.5, 2.0][s];
    let n = 10_000u64;
    let m = theory::optimal_bits(n, 0.01).unwrap_or(95_851);
    let k = theory::optimal_k(m, n);
    let items = (n as f64 * load) as u64;
    let mut lines = vec![format!(
        "m = {} bits, k = {k} · {} items inserted ({:.0}% of capacity)",
        fmt::int(m),
        fmt::int(items),
        load * 100.0
    )];
    lines.push(format!(
        "theory {} · fill {:.1}%",
        fmt::prob(theory::fpr_classic(m, items, k)),
        theory::expected_fill(m, items, k) * 100.0
    ));
    if let Some(r) = run(
        FilterSpec::new(FilterKind::Standard, n, 0.01),
        KeyKind::U64,
        Some(items),
        20_000,
    ) {
        lines.push(m_of(&r));
    }
    let at = |f: f64| theory::fpr_classic(m, (n as f64 * f) as u64, k);
    let r150 = at(1.5);
    Live {
        lines,
        question: "At 150% of capacity, the rate is about:".into(),
        answers: three(fmt::prob(0.015), fmt::prob(r150), fmt::prob(0.1)),
        correct: argmin([(0.015 - r150).abs(), 0.0, (0.1 - r150).abs()]),
        because: format!(
            "the rate grows faster than the load: {} at 100%, {} at 150%, {} at 200%",
            fmt::prob(at(1.0)),
            fmt::prob(r150),
            fmt::prob(at(2.0))
        ),
        hint: "the question is about 150%: step there (→) and read the theory line, which the \
               measured rate below it follows"
            .into(),
    }
}

fn hashes_k(s: usize) -> Live {
    let ks = [1u32, 3, 7, 12, 20];
    let n = 10_000u64;
    let m = 10 * n;
    let k = ks[s];
    let mut lines = vec![format!(
        "m = {} bits (10 per key), k = {k} · optimal k = {} (k* = {:.2})",
        fmt::int(m),
        theory::optimal_k(m, n),
        theory::optimal_k_real(m, n)
    )];
    let exact = theory::fpr_exact_with_bound(m, n, k).map_or("n/a".to_string(), |e| {
        bloomlab::units::format_prob_bounded(e.ln_value, e.rel_error)
    });
    lines.push(format!(
        "theory classic {} · exact {exact} · fill {:.1}%",
        fmt::prob(theory::fpr_classic(m, n, k)),
        theory::expected_fill(m, n, k) * 100.0
    ));
    let spec = FilterSpec {
        n,
        m: Some(m),
        k: Some(k),
        p: None,
        ..FilterSpec::default()
    };
    if let Some(r) = run(spec, KeyKind::U64, None, 20_000) {
        lines.push(m_of(&r));
    }
    let cand = [1u32, 7, 20];
    let rates = cand.map(|k| theory::fpr_classic(m, n, k));
    Live {
        lines,
        question: "At 10 bits per key, which k gives the lowest rate?".into(),
        answers: three("k = 1", "k = 7", "k = 20"),
        correct: argmin(rates),
        because: format!(
            "k = 1: {} (few bits per key checked), k = 7: {}, k = 20: {} (the array fills up)",
            fmt::prob(rates[0]),
            fmt::prob(rates[1]),
            fmt::prob(rates[2])
        ),
        hint: "the answers are k = 1, 7 and 20: step to each (←→) and compare the theory line; \
               the lowest rate of the three wins"
            .into(),
    }
}

/// The lesson's filter: 64 counters, k = 3, `word-0` … `word-11` inserted, counting mode.
fn counting_filter() -> (Walkthrough, Vec<String>) {
    let mut w = Walkthrough::with_size(SEED, 64, 3).expect("64 counters, k = 3");
    w.set_counting(true);
    let words: Vec<String> = (0..12).map(|i| format!("word-{i}")).collect();
    for x in &words {
        w.insert(x);
    }
    (w, words)
}

/// The never-inserted words `absent-0`, `absent-1`, … that pass `w`, the first `count` of them.
fn false_positives(w: &Walkthrough, count: usize) -> impl Iterator<Item = String> + '_ {
    (0..1_000_000u64)
        .map(|j| format!("absent-{j}"))
        .filter(|x| w.contains(x))
        .take(count)
}

/// Of the first `count` false positives of the lesson's filter, how many, removed alone from
/// it, leave an inserted word testing absent: (that many, how many were tried).
pub fn removals_that_hide_a_word(count: usize) -> (usize, usize) {
    let (w, _) = counting_filter();
    let mut tried = 0;
    let hide = false_positives(&w, count)
        .filter(|x| {
            tried += 1;
            let mut c = w.clone();
            matches!(c.remove(x), Outcome::Removed { now_missing, .. } if !now_missing.is_empty())
        })
        .count();
    (hide, tried)
}

fn counting_delete(s: usize) -> Live {
    let remove = [0usize, 1, 2, 4, 8][s];
    let (mut w, words) = counting_filter();
    // The first `remove` false positives among absent words, removed as a counting filter must
    // (one at a time: each removal changes which words pass).
    let mut removed = Vec::new();
    let mut j = 0u64;
    while removed.len() < remove && j < 100_000 {
        let x = format!("absent-{j}");
        j += 1;
        if w.contains(&x) && matches!(w.remove(&x), Outcome::Removed { .. }) {
            removed.push(x);
        }
    }
    let missing: Vec<&String> = words.iter().filter(|x| !w.contains(x)).collect();
    let mut lines = vec![format!(
        "12 words inserted · {} false positives removed{}",
        removed.len(),
        if removed.is_empty() {
            String::new()
        } else {
            format!(": {}", removed.join(", "))
        }
    )];
    lines.push(format!(
        "inserted words that now test absent (false negatives): {}",
        if missing.is_empty() {
            "none".to_string()
        } else {
            format!(
                "{} ({})",
                missing.len(),
                missing
                    .iter()
                    .map(|s| s.as_str())
                    .collect::<Vec<_>>()
                    .join(", ")
            )
        }
    ));
    let (hide, tried) = removals_that_hide_a_word(1_000);
    Live {
        lines,
        question: "Can removing a word that was never inserted make an inserted word test absent?"
            .into(),
        answers: three(
            "no: a counting filter never has false negatives",
            "yes: its counters are shared with inserted words",
            "only when a counter saturates at 15",
        ),
        // "yes" is true of counting filters in general (answer a claims the opposite for all of
        // them), so it is not decided by this one filter; the lesson sweep checks that this
        // filter's removals do show it.
        correct: 1,
        because: format!(
            "its counters were all raised by inserted words; removing it lowers each by 1, and \
             one at 1 drops to 0, so the word that raised it tests absent. Removed alone, {hide} \
             of this filter's first {} false positives ({:.1}%) did that (see 'remove 8')",
            fmt::int(tried as u64),
            100.0 * hide as f64 / tried.max(1) as f64
        ),
        hint: "remove more false positives (→ up to 'remove 8') and read the second Live \
               line: any word listed there was inserted"
            .into(),
    }
}

fn overfill(s: usize) -> Live {
    let items = [1_000u64, 10_000, 100_000][s];
    let cap = 1_000u64;
    let m = theory::optimal_bits(cap, 0.01).unwrap_or(9_586);
    let k = theory::optimal_k(m, cap);
    let mut lines = vec![format!(
        "sized for {} at 1%: m = {} bits, k = {k} · {} items inserted",
        fmt::int(cap),
        fmt::int(m),
        fmt::int(items)
    )];
    lines.push(format!(
        "theory {} · fill {:.2}%",
        fmt::prob(theory::fpr_classic(m, items, k)),
        theory::expected_fill(m, items, k) * 100.0
    ));
    if let Some(r) = run(
        FilterSpec::new(FilterKind::Standard, cap, 0.01),
        KeyKind::U64,
        Some(items),
        20_000,
    ) {
        lines.push(m_of(&r));
    }
    let big_m = theory::optimal_bits(10_000, 0.01).unwrap_or(95_851);
    let big_k = theory::optimal_k(big_m, 10_000);
    let claim = theory::fpr_classic(big_m, 1_000_000, big_k);
    lines.push(format!(
        "the articles' case (10,000 → 1,000,000, m = {}, k = {big_k}): theory {}",
        fmt::int(big_m),
        fmt::prob(claim)
    ));
    Live {
        lines,
        question: "Sized for 10,000 at 1%, given 1,000,000 items: the rate is".into(),
        answers: three("about 90%", "practically 100%", "about 10%"),
        correct: argmin([
            (claim - 0.9).abs(),
            (claim - 1.0).abs(),
            (claim - 0.1).abs(),
        ]),
        because: format!(
            "100× capacity fills every bit: theory {}; the articles' \"90%\" understates it",
            fmt::prob(claim)
        ),
        hint: "the question is the articles' case, on the last Live line (theory at 100× \
               capacity); the settings show 1×, 10× and 100× at 1/10 of their scale"
            .into(),
    }
}

fn weak_hash(s: usize) -> Live {
    let hashes = [HashId::Weak, HashId::Fnv1a, HashId::Xxh3, HashId::Murmur3];
    let n = 10_000u64;
    let mut lines = Vec::new();
    let mut ratios = [0.0f64; 3];
    let shown = [HashId::Weak, HashId::Xxh3, HashId::Murmur3];
    for h in hashes {
        let spec = FilterSpec {
            hash: h,
            ..FilterSpec::new(FilterKind::Standard, n, 0.01)
        };
        if let Some(r) = run(spec, KeyKind::Seq, None, 20_000) {
            let ratio = r.fpr
                / r.theory
                    .exact
                    .or(r.theory.classic)
                    .unwrap_or(r.theory.model)
                    .max(1e-12);
            if let Some(i) = shown.iter().position(|x| *x == h) {
                ratios[i] = ratio;
            }
            if h == hashes[s] {
                lines.push(format!(
                    "hash {h} on seq keys: {} · {ratio:.2}× the exact rate",
                    m_of(&r)
                ));
            }
        }
    }
    let worst = (0..3).fold(0, |b, i| if ratios[i] > ratios[b] { i } else { b });
    Live {
        lines,
        question: "On sequential keys, which hash's rate is far above the target?".into(),
        answers: three("weak", "xxh3", "murmur3"),
        correct: worst,
        because: format!(
            "measured/exact: weak {:.2}×, xxh3 {:.2}×, murmur3 {:.2}× — a weak hash maps \
             neighbouring keys to correlated bits",
            ratios[0], ratios[1], ratios[2]
        ),
        hint: "step through the hashes (←→) and read the number before \"the exact rate\": \
               near 1× is on target, far above it is not"
            .into(),
    }
}

fn pair(kinds: [FilterKind; 2], p: f64) -> ([Option<Measurement>; 2], Vec<String>) {
    let n = 10_000u64;
    let r = kinds
        .each_ref()
        .map(|k| run(FilterSpec::new(*k, n, p), KeyKind::U64, None, 50_000));
    let lines = kinds
        .iter()
        .zip(&r)
        .filter_map(|(k, r)| r.as_ref().map(|r| row(k.name(), r)))
        .collect();
    (r, lines)
}

fn blocked(s: usize) -> Live {
    let p = [0.01, 0.001, 0.0001][s];
    let (r, mut lines) = pair([FilterKind::Standard, FilterKind::Blocked], p);
    lines.insert(
        0,
        format!(
            "target {} · 10,000 items · each kind sized by its own rule",
            fmt::prob(p)
        ),
    );
    let b = r
        .each_ref()
        .map(|r| r.as_ref().map_or(0.0, |r| r.bits_per_key));
    Live {
        lines,
        question: "At the same target rate, which needs more memory?".into(),
        answers: three("standard", "blocked", "the same"),
        correct: if (b[0] - b[1]).abs() < 0.05 {
            2
        } else if b[0] > b[1] {
            0
        } else {
            1
        },
        because: format!(
            "standard {:.2} bits/key, blocked {:.2}: a 512-bit block fills unevenly, so it \
             needs more bits for the same rate",
            b[0], b[1]
        ),
        hint: "both rows are sized for this target and measured near it: compare their \
               bits/key and bytes"
            .into(),
    }
}

/// One row of a lesson's table: kind (and what it was sized for), bits per key, bytes, the
/// measured rate.
fn row(label: &str, r: &Measurement) -> String {
    format!(
        "{label:<12} {:>6.2} bits/key {:>9} · {}",
        r.bits_per_key,
        fmt::bytes(r.bytes as f64),
        m_of(r)
    )
}

/// Lesson 7's three filters at target `p`: the Bloom filter sized for `p`, the xor filter sized
/// for `p`, and the Bloom filter sized for the rate the xor filter delivers (`2^−f`, which is
/// below `p`: its fingerprints are 8 or 16 bits). The xor's delivered rate is returned too.
pub fn static_set_filters(p: f64) -> ([Option<Measurement>; 3], f64) {
    let n = 10_000u64;
    let delivered = theory::xor::fingerprint_bits_for(p).map_or(p, theory::xor::fpr);
    let r = [
        (FilterKind::Standard, p),
        (FilterKind::Xor, p),
        (FilterKind::Standard, delivered),
    ]
    .map(|(k, p)| run(FilterSpec::new(k, n, p), KeyKind::U64, None, 50_000));
    (r, delivered)
}

fn static_set(s: usize) -> Live {
    let p = [0.01, 0.004, 0.001][s];
    let (r, delivered) = static_set_filters(p);
    let mut lines = vec![format!(
        "target {} · 10,000 keys · xor delivers 2^-f = {}",
        fmt::prob(p),
        fmt::prob(delivered)
    )];
    let labels = [
        format!("standard for {}", fmt::prob(p)),
        format!("xor for {}", fmt::prob(p)),
        format!("standard for {}", fmt::prob(delivered)),
    ];
    for (l, r) in labels.iter().zip(&r) {
        if let Some(r) = r {
            let t = RateText::wilson(r.false_positives, r.queries);
            lines.push(format!(
                "{l:<20} {:>5.2} bits/key · measured {} ({})",
                r.bits_per_key,
                t.rate,
                t.interval()
            ));
        }
    }
    let b = r
        .each_ref()
        .map(|r| r.as_ref().map_or(f64::MAX, |r| r.bits_per_key));
    // Equal delivered rate: the xor filter against the Bloom filter sized for the xor's rate.
    Live {
        lines,
        question: "For the rate the xor filter delivers, which needs fewer bits per key?".into(),
        answers: three("the Bloom filter", "the xor filter", "the same"),
        correct: if (b[2] - b[1]).abs() < 0.05 {
            2
        } else if b[2] < b[1] {
            0
        } else {
            1
        },
        because: format!(
            "xor's 8- or 16-bit fingerprints deliver {}, below the target; at that rate \
             Bloom takes {:.2} bits/key, xor {:.2}. Compare at the rate delivered (and xor \
             cannot add keys)",
            fmt::prob(delivered),
            b[2],
            b[1]
        ),
        hint: "rows 1 and 2 deliver different rates: compare xor with row 3, Bloom sized for \
               xor's rate"
            .into(),
    }
}

fn cuckoo_delete(s: usize) -> Live {
    let share = [0.25, 0.5, 0.75][s];
    let n = 10_000u64;
    let spec = FilterSpec::new(FilterKind::Cuckoo, n, 0.01);
    let keys = KeyGen::new(KeyKind::U64, 1);
    let mut lines = Vec::new();
    let (mut fneg, mut refused) = (0u64, 0u64);
    // Never-inserted keys queried, those of them that passed and were deleted, and the kept
    // keys that tested absent afterwards.
    let (probe, mut fp_deleted, mut fp_fneg) = (10_000u64, 0u64, 0u64);
    let del = (n as f64 * share) as u64;
    if let Ok(mut f) = spec.build() {
        refused = (0..n)
            .filter(|&i| f.try_insert(&keys.present_key(i)).is_err())
            .count() as u64;
        if let Some(r) = f.as_removable() {
            for i in 0..del {
                let _ = r.remove(&keys.present_key(i));
            }
        }
        let gone = (0..del)
            .filter(|&i| !f.contains(&keys.present_key(i)))
            .count() as u64;
        fneg = (del..n)
            .filter(|&i| !f.contains(&keys.present_key(i)))
            .count() as u64;
        lines.push(format!(
            "{} of 10,000 deleted: {} test absent, {} still pass (false positives)",
            fmt::int(del),
            fmt::int(gone),
            fmt::int(del - gone)
        ));
        lines.push(format!(
            "the {} kept keys: {} test absent (false negatives)",
            fmt::int(n - del),
            fmt::int(fneg)
        ));
        // Then the mistake of lesson 3: deleting keys that were never inserted but pass.
        for j in 0..probe {
            let x = keys.absent_key(j);
            if f.contains(&x) && f.as_removable().is_some_and(|r| r.remove(&x).is_ok()) {
                fp_deleted += 1;
            }
        }
        fp_fneg = (del..n)
            .filter(|&i| !f.contains(&keys.present_key(i)))
            .count() as u64;
    }
    let kept = n - del;
    Live {
        lines,
        question: "After deleting inserted keys from a cuckoo filter, the kept keys".into(),
        answers: three(
            "all still test present",
            "some test absent: a delete can take a kept key's fingerprint",
            "all test absent",
        ),
        correct: if fneg == 0 {
            0
        } else if fneg == kept {
            2
        } else {
            1
        },
        because: format!(
            "deleting an inserted key removes one copy of its own fingerprint; a kept key with \
             the same fingerprint and bucket keeps its own copy: {fneg} of {} kept keys test \
             absent{}. Deleting a false positive (never inserted, but passes) takes another \
             key's copy, as in lesson 3: deleting the {} among {} never-inserted keys made {} \
             kept keys test absent",
            fmt::int(kept),
            if refused > 0 {
                format!(" ({refused} inserts refused: the table was full)")
            } else {
                String::new()
            },
            fmt::int(fp_deleted),
            fmt::int(probe),
            fmt::int(fp_fneg)
        ),
        hint: "read the second Live line: how many of the kept keys test absent after the \
               deletes"
            .into(),
    }
}

#[cfg(test)]
mod sweep;
