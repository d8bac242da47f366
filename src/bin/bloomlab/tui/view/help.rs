//! Help: every key, and what to look at on each screen.

use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Paragraph, Wrap};

use super::{ACCENT, bold};
use crate::tui::state::State;

/// Keys: (keys, what they do), grouped by screen.
pub const KEYS: &[(&str, &[(&str, &str)])] = &[
    (
        "Everywhere",
        &[
            ("Tab / Shift-Tab", "next / previous screen"),
            (
                "1 2 3 4 5 6",
                "Explore, Compare, Hashes, Walkthrough, Lessons, Trade-offs",
            ),
            ("? or F1", "this help"),
            ("q, Ctrl-C", "quit"),
            ("Esc", "leave a text box (never quits)"),
        ],
    ),
    (
        "Explore",
        &[
            ("↑ ↓", "select a setting"),
            (
                "← → or - +",
                "change it: n and p in 1-2-5 steps, m ×2, bits/key ±1, k ±1",
            ),
            ("PgUp PgDn", "big steps: ×10 (k ±5, bits/key ±10)"),
            (
                "Enter",
                "type a value: 1000000, 1e6, 10k, 2^16; 1%, 1/100, 1 in 1000; m: 1Mb (bits), 1MB (bytes), 64KiB, 10Mbit",
            ),
            (
                "a",
                "automatic again: k optimal (on k), m from n and p (on m, bits/key, p)",
            ),
            (
                "v",
                "next view: FPR vs k / FPR vs n / timings (median and range) and the filter's details",
            ),
            (
                "r",
                "measure again with fresh keys (another filter instance)",
            ),
            (
                "o",
                "rates as \"1 in N\" / as percentages (Explore and Compare)",
            ),
            (
                "y",
                "show the bloomlab measure / calc command reproducing the screen",
            ),
            ("g", "run a measurement refused by its time estimate anyway"),
        ],
    ),
    (
        "Compare",
        &[
            ("r", "measure again with fresh keys"),
            ("o", "rates as \"1 in N\" / as percentages"),
            (
                "e",
                "the peer crates' rows (fastbloom, sbbf-rs-safe, growable-bloom-filter, cuckoofilter, qfilter, xorf), measured in the same worker",
            ),
            (
                "v",
                "rates / timings: ns per key as median (fastest–slowest) of timed chunks",
            ),
        ],
    ),
    (
        "Hashes",
        &[
            ("↑ ↓ ← →", "select hash (row) and strategy (column)"),
            (
                "k / K",
                "next / previous key kind: u64, seq, string, email, url",
            ),
            ("+ - PgUp PgDn", "n per filter ×2 / ×10"),
            ("v", "matrix shows FPR, χ² uniformity, or throughput"),
            ("r", "measure again with fresh keys"),
        ],
    ),
    (
        "Walkthrough",
        &[
            ("Enter or i", "type a word (Enter again when done)"),
            ("a", "insert the word"),
            ("c", "check (query) the word"),
            ("d", "delete the word (counting mode only)"),
            ("m", "bit mode / counting mode (4-bit counters)"),
            (
                "← →  - +",
                "m (bits) ∓8 / ±1, from 8 to 64; the words are inserted again",
            ),
            ("↑ ↓", "k (hashes) ±1, from 1 to 8"),
            (
                "x / p",
                "clear the filter / start again with apple and banana",
            ),
        ],
    ),
    (
        "Lessons",
        &[
            ("↑ ↓", "previous / next lesson"),
            (
                "← →",
                "change the lesson's setting (its numbers are computed again)",
            ),
            (
                "a b c",
                "answer the question (a right answer marks the lesson done)",
            ),
            (
                "PgUp PgDn",
                "scroll the reason, where the screen is too small to show all of it",
            ),
        ],
    ),
    (
        "Trade-offs",
        &[
            (
                "↑ ↓",
                "select n, p, the cost of a false positive, the hit ratio, static, deletes",
            ),
            (
                "← → or - +",
                "change it: n and p in 1-2-5 steps, the cost ×2, hits ±5%",
            ),
            ("PgUp PgDn", "big steps (three small ones; the cost ×8)"),
            ("s / d", "static kinds allowed / keys must be removable"),
            ("o", "rates as \"1 in N\""),
        ],
    ),
];

/// What to look at, one paragraph per screen.
pub const SCREENS: &[(&str, &str)] = &[
    (
        "Explore",
        "Set n and p and read off the size: m bits, k hashes, bytes (whole 64-bit words, as \
         the filter allocates them, ⌈m/64⌉·8; bloomlab calc prints the same numbers), bits per key against the \
         information-theoretic bound log2(1/p) (a Bloom filter needs about 44% more), and a \
         HashSet<u64> of the same n for scale (estimated from hashbrown's layout). The classic \
         formula (1 − e^(−kn/m))^k and the exact rate differ for small m. The FPR-vs-k chart \
         shows the optimum is flat: k a little off costs little. The FPR-vs-n chart shows the \
         filter filling up: far below the target early, exactly the design rate at n, and \
         rising fast past it. The green mark is a real filter measured in the background, \
         with its 95% interval narrowing as queries accumulate. That interval covers one \
         filter; below 4,096 bits one filter says little about the design (its rate depends on \
         where its few bits fell), so Explore measures 16 independently seeded filters and the \
         interval is over them (\"over 16 filters\"). Each kind is sized by its own rule and \
         its own memory is shown; the FPR lines are a standard filter's. The bit array shows \
         how many bits are set against 1 − e^(−kn/m). Try the weak hash with seq keys.",
    ),
    (
        "Compare",
        "Every filter kind at the same n and p, with the hash, strategy and keys of Explore: \
         bits per key, memory, measured FPR with its interval (one filter of each kind) against \
         the filter's theory, \
         nanoseconds per insert and per query (medians of timed chunks; v shows their range: \
         the machine is shared, one number alone can mislead), and whether it can delete or \
         grow. A row not measured (too big, or still pending) shows its kind's theory: bits \
         per key, memory and model rate from its sizing rule. The bars put \
         the memory next to a HashSet<u64> holding the same keys exactly.",
    ),
    (
        "Hashes",
        "Every hash function with every index strategy on the chosen key kind. A good pair \
         measures the exact FPR (ratio ≈ 1), and its bit positions are uniform (χ² p-value \
         not tiny; the histogram is flat). The weak hash on sequential keys fails both: its \
         positions pile up in a few places and the FPR is many times the theory. Switch the \
         metric with v to compare speed.",
    ),
    (
        "Walkthrough",
        "The articles' example: 16 bits, 3 hashes, apple and banana inserted. Bit positions \
         are real hashes (murmur3 with a fixed seed, double hashing). apple and banana share \
         a bit; checking grape finds a 0 bit (definitely absent); checking cherry finds all \
         three bits set by apple and banana: a false positive, and the screen says who set \
         each bit. In counting mode d deletes, and deleting a false positive creates false \
         negatives. Change m and k and watch the fill, the classic and exact rates for this m, \
         k and n, and the rate measured over 4,096 absent words.",
    ),
    (
        "Lessons",
        "Eight short lessons following the articles and the book: filling past capacity, too \
         few and too many hashes, deleting from a counting filter, the \"90%\" claim, a weak \
         hash, blocked memory, a static set, cuckoo deletes. Each names its chapter, has one \
         setting to change and one question; the numbers come from the library and small real \
         filters built on the spot. Progress lasts for the session.",
    ),
    (
        "Trade-offs",
        "Which filter for a workload: n keys at rate p, a false positive wasting some work (a \
         disk read is ~10 µs, a database query ~1 ms), a share of queries for present keys. \
         Every kind and variant the constraints admit is sized for p by its own rule and \
         priced from theory alone (no filter is built, so the screen follows every key): \
         bits per key, model FPR, a model lookup time, and the expected cost per query, lookup \
         + (1 − hits) · FPR · negative cost (Lang et al., PVLDB 2019). ★ marks the Pareto \
         front over bits/key, FPR and lookup; ▶ the cheapest. Make false positives cheap and \
         the fastest lookup wins; make them dear and the lowest rate does. bloomlab choose \
         measures the same candidates for real.",
    ),
];

pub(super) fn draw(f: &mut Frame<'_>, s: &State, area: Rect) {
    let mut lines: Vec<Line<'_>> = Vec::new();
    for (group, keys) in KEYS {
        lines.push(Line::from(Span::styled(*group, bold().fg(ACCENT))));
        for (k, what) in *keys {
            lines.push(Line::from(vec![
                Span::styled(format!("  {k:<16}"), bold()),
                Span::raw(*what),
            ]));
        }
    }
    lines.push(Line::from(""));
    for (screen, text) in SCREENS {
        lines.push(Line::from(Span::styled(*screen, bold().fg(ACCENT))));
        lines.push(Line::from(*text));
        lines.push(Line::from(""));
    }
    f.render_widget(
        Paragraph::new(lines)
            .wrap(Wrap { trim: false })
            .scroll((s.help_scroll, 0))
            .block(Block::bordered().title(" Help (↑↓ to scroll) ")),
        area,
    );
}

#[cfg(test)]
mod tests {
    use super::{KEYS, SCREENS};
    use crate::tui::msg::Msg;
    use crate::tui::state::{State, Tab};
    use crate::tui::update::update;
    use crate::tui::view::render_text;

    #[test]
    fn lists_every_key_and_every_screen() {
        let mut s = State::new();
        update(&mut s, Msg::Goto(Tab::Help));
        let t = render_text(&s, 160, 100);
        for (group, keys) in KEYS {
            assert!(t.contains(group), "{group}");
            for (k, what) in *keys {
                let line = format!("{k:<16}{what}");
                assert!(t.contains(&line), "missing {line:?}\n{t}");
            }
        }
        for (screen, text) in SCREENS {
            assert!(t.contains(screen));
            // The paragraph's opening words are shown.
            let start: String = text.chars().take(40).collect();
            assert!(t.contains(&start), "{start}");
        }
        // Every screen-specific key of the event map is documented.
        for k in ["PgUp", "Enter", "Tab", "Esc", "k / K", "x / p"] {
            assert!(t.contains(k), "{k}");
        }
        // Scrolling moves the text.
        let top = render_text(&s, 80, 24);
        update(&mut s, Msg::BigDown);
        let scrolled = render_text(&s, 80, 24);
        assert_ne!(top.lines().nth(2), scrolled.lines().nth(2));
    }
}
