//! The articles' worked example, with real hashes: a 16-bit filter with k = 3, "apple" and
//! "banana" inserted, "grape" correctly rejected and "cherry" a false positive.
//!
//! The articles draw the bits by hand (apple → 2, 7, 11; banana → 4, 7, 14). Here the positions
//! come from murmur3 (Guava's hash) with Kirsch–Mitzenmacher double hashing; [`SEED`] is the
//! first murmur3 seed for which the story really happens: apple and banana share a bit, grape
//! hits a 0 bit, and all three of cherry's bits were set by apple and banana.
//!
//! [`Walkthrough`] is the example as a session, one word at a time: insert, check, and (in
//! counting mode) remove, each step explained ([`Outcome`]). The `walkthrough` command and the
//! workbench's Walkthrough screen both run it.

use crate::bits::Counters4;
use crate::error::Error;
use crate::filters::{CountingBloom, StandardBloom};
use crate::hash::{DoubleHashing, Hash128, HashId, ItemHasher, Murmur3, StrategyId};

/// Bits in the example filter.
pub const M: u64 = 16;
/// Hash functions in the example filter.
pub const K: u32 = 3;
/// Words inserted.
pub const INSERTED: [&str; 2] = ["apple", "banana"];
/// Words queried but never inserted.
pub const QUERIED: [&str; 2] = ["grape", "cherry"];
/// The murmur3 seed used (see [`find_seed`]).
pub const SEED: u32 = 476;
/// Hash function of the example: Guava's murmur3_128, as the articles use.
pub const HASH: HashId = HashId::Murmur3;
/// Index strategy of the example: Kirsch–Mitzenmacher `h1 + i·h2`, as the articles describe.
pub const STRATEGY: StrategyId = StrategyId::Double;

/// The example filter for a seed: 16 bits, k = 3, murmur3 + double hashing.
///
/// # Panics
/// Never: the parameters are constants inside the valid range.
#[must_use]
pub fn filter(seed: u32) -> StandardBloom<Murmur3, DoubleHashing> {
    StandardBloom::with_bits_and(M, K, Murmur3::with_seed(seed), DoubleHashing)
        .expect("16 bits and k = 3 are valid")
}

/// Whether `seed` reproduces the articles' story.
#[must_use]
pub fn story_holds(seed: u32) -> bool {
    let f = filter(seed);
    let pos = |w: &str| {
        let mut p = f.positions(w.as_bytes());
        p.sort_unstable();
        p
    };
    let distinct = |p: &[u64]| p.windows(2).all(|w| w[0] != w[1]);
    let (a, b, g, c) = (pos("apple"), pos("banana"), pos("grape"), pos("cherry"));
    let set: Vec<u64> = a.iter().chain(&b).copied().collect();
    let shared = a.iter().filter(|x| b.contains(x)).count();
    distinct(&a)
        && distinct(&b)
        && distinct(&c)
        && shared == 1
        && c.iter().all(|x| set.contains(x))
        && !c.iter().all(|x| a.contains(x))
        && !c.iter().all(|x| b.contains(x))
        && g.iter().any(|x| !set.contains(x))
}

/// The first seed for which [`story_holds`].
#[must_use]
pub fn find_seed() -> u32 {
    (0..).find(|&s| story_holds(s)).unwrap_or(0)
}

/// What one step of a [`Walkthrough`] found.
#[derive(Debug, Clone, PartialEq)]
pub enum Outcome {
    /// Inserted.
    Inserted {
        /// The k positions, in probe order (repeats possible).
        positions: Vec<u64>,
        /// Positions that inserted words had already set, with those words.
        collisions: Vec<(u64, Vec<String>)>,
        /// Counters that reached 15 and lost an increment: stuck there from now on.
        saturated: Vec<u64>,
    },
    /// Some position is 0: certainly absent.
    Absent {
        /// The k positions.
        positions: Vec<u64>,
        /// Which of them are 0.
        zeros: Vec<u64>,
    },
    /// All positions set.
    MaybePresent {
        /// The k positions.
        positions: Vec<u64>,
        /// True when the word was never inserted.
        false_positive: bool,
        /// For each distinct position, the inserted words that set it.
        setters: Vec<(u64, Vec<String>)>,
    },
    /// Counters decremented (one decrement per occurrence of a position).
    Removed {
        /// The k positions.
        positions: Vec<u64>,
        /// False when the word had not been inserted (a false positive was removed).
        was_inserted: bool,
        /// Inserted words that now test absent (false negatives created).
        now_missing: Vec<String>,
    },
    /// Remove refused, nothing changed; why.
    RemoveRefused(String),
}

impl Outcome {
    /// The word's positions (empty for a refused remove).
    #[must_use]
    pub fn positions(&self) -> &[u64] {
        match self {
            Outcome::Inserted { positions, .. }
            | Outcome::Absent { positions, .. }
            | Outcome::MaybePresent { positions, .. }
            | Outcome::Removed { positions, .. } => positions,
            Outcome::RemoveRefused(_) => &[],
        }
    }
}

/// Positions that occur more than once in `positions`, with how often, in first-seen order: a
/// word whose k probes hit the same bit (double hashing can: `h1 + i·h2` wraps around m).
#[must_use]
pub fn repeats(positions: &[u64]) -> Vec<(u64, usize)> {
    let mut v: Vec<(u64, usize)> = Vec::new();
    for (j, &p) in positions.iter().enumerate() {
        if positions[..j].contains(&p) {
            continue;
        }
        let r = positions.iter().filter(|&&q| q == p).count();
        if r > 1 {
            v.push((p, r));
        }
    }
    v
}

/// The example filter as a session: m = 16 four-bit counters (a [`CountingBloom`], so inserts
/// and removes follow the library's counting filter exactly: one increment and one decrement per
/// occurrence of a position, saturating at 15, never below 0), the words inserted so far, and
/// whether remove is allowed (counting mode). In bit mode a bit is `counter > 0`.
#[derive(Debug, Clone)]
pub struct Walkthrough {
    filter: CountingBloom<Murmur3, DoubleHashing>,
    seed: u32,
    m: u64,
    k: u32,
    words: Vec<(String, Vec<u64>)>,
    counting: bool,
}

impl PartialEq for Walkthrough {
    fn eq(&self, o: &Self) -> bool {
        self.seed == o.seed
            && (self.m, self.k) == (o.m, o.k)
            && self.counting == o.counting
            && self.words == o.words
            && self.filter.counter_array() == o.filter.counter_array()
    }
}

impl Walkthrough {
    /// An empty example filter (bit mode) hashing with murmur3 seed `seed`.
    ///
    /// # Panics
    /// Never: m = 16 and k = 3 are valid constants.
    #[must_use]
    pub fn new(seed: u32) -> Self {
        Self::with_size(seed, M, K).expect("16 counters and k = 3 are valid")
    }

    /// An empty filter of `m` counters and `k` hash functions (the example's hash and strategy),
    /// for trying other sizes than the articles' 16 and 3.
    ///
    /// # Errors
    /// [`Error::InvalidParam`](crate::Error) for m or k out of the counting filter's range.
    pub fn with_size(seed: u32, m: u64, k: u32) -> Result<Self, Error> {
        let filter =
            CountingBloom::with_counters_and(m, k, Murmur3::with_seed(seed), DoubleHashing)?;
        Ok(Self {
            filter,
            seed,
            m,
            k,
            words: Vec::new(),
            counting: false,
        })
    }

    /// Counters (bits) in the filter.
    #[must_use]
    pub fn m(&self) -> u64 {
        self.m
    }

    /// Hash functions.
    #[must_use]
    pub fn k(&self) -> u32 {
        self.k
    }

    /// The articles' starting point: apple and banana inserted.
    #[must_use]
    pub fn story(seed: u32) -> Self {
        let mut w = Self::new(seed);
        w.preload();
        w
    }

    /// The murmur3 seed.
    #[must_use]
    pub fn seed(&self) -> u32 {
        self.seed
    }

    /// Whether remove is allowed (counters shown).
    #[must_use]
    pub fn counting(&self) -> bool {
        self.counting
    }

    /// Switch between bit mode and counting mode (the counters are kept).
    pub fn set_counting(&mut self, on: bool) {
        self.counting = on;
    }

    /// murmur3_128 of `word`: `lo` is h1, `hi` is h2 of the double hashing.
    #[must_use]
    pub fn hash(&self, word: &str) -> Hash128 {
        self.filter.hasher().hash128(word.as_bytes())
    }

    /// The k positions of `word`, in probe order (repeats possible).
    #[must_use]
    pub fn positions(&self, word: &str) -> Vec<u64> {
        self.filter.positions(word.as_bytes())
    }

    /// Counter `i` (0 for `i >= m`).
    #[must_use]
    pub fn counter(&self, i: u64) -> u8 {
        if i < self.m {
            self.filter.counter(i)
        } else {
            0
        }
    }

    /// Whether bit `i` is set (`counter > 0`).
    #[must_use]
    pub fn bit(&self, i: u64) -> bool {
        self.counter(i) > 0
    }

    /// Bits set.
    #[must_use]
    pub fn ones(&self) -> u64 {
        self.filter.nonzero()
    }

    /// The chance that a word never inserted passes, `(ones/m)^k`, as a fraction.
    #[must_use]
    pub fn pass_probability(&self) -> f64 {
        (self.ones() as f64 / self.m as f64).powi(self.k as i32)
    }

    /// Of `queries` words never inserted (`"absent-0"`, `"absent-1"`, …, skipping any that
    /// were inserted), how many the filter passes: the measured false-positive count.
    #[must_use]
    pub fn measured_false_positives(&self, queries: u64) -> u64 {
        let mut fp = 0;
        let mut asked = 0;
        let mut i = 0u64;
        while asked < queries {
            let w = format!("absent-{i}");
            i += 1;
            if self.words.iter().any(|(x, _)| *x == w) {
                continue;
            }
            asked += 1;
            fp += u64::from(self.contains(&w));
        }
        fp
    }

    /// Inserted words (a multiset, in order) with their positions.
    #[must_use]
    pub fn words(&self) -> &[(String, Vec<u64>)] {
        &self.words
    }

    /// Inserted words (distinct, in order) whose positions include `pos`.
    #[must_use]
    pub fn setters(&self, pos: u64) -> Vec<String> {
        let mut v: Vec<String> = Vec::new();
        for (w, ps) in &self.words {
            if ps.contains(&pos) && !v.contains(w) {
                v.push(w.clone());
            }
        }
        v
    }

    /// Whether every position of `word` is set.
    #[must_use]
    pub fn contains(&self, word: &str) -> bool {
        self.filter.contains_item(word.as_bytes())
    }

    /// Insert `word`: one increment per occurrence of each position (a counter at 15 stays).
    pub fn insert(&mut self, word: &str) -> Outcome {
        let positions = self.positions(word);
        let mut collisions = Vec::new();
        for &p in &positions {
            let before = self.setters(p);
            if !before.is_empty() && !collisions.iter().any(|(q, _)| *q == p) {
                collisions.push((p, before));
            }
        }
        let before: Vec<u8> = positions.iter().map(|&p| self.counter(p)).collect();
        self.filter.insert_item(word.as_bytes());
        let mut saturated = Vec::new();
        for (j, &p) in positions.iter().enumerate() {
            if positions[..j].contains(&p) {
                continue;
            }
            let r = positions.iter().filter(|&&q| q == p).count();
            if usize::from(self.counter(p) - before[j]) < r {
                saturated.push(p);
            }
        }
        self.words.push((word.to_string(), positions.clone()));
        Outcome::Inserted {
            positions,
            collisions,
            saturated,
        }
    }

    /// Check `word`, and say which inserted words set its bits.
    #[must_use]
    pub fn query(&self, word: &str) -> Outcome {
        let positions = self.positions(word);
        let zeros: Vec<u64> = positions
            .iter()
            .copied()
            .filter(|&p| !self.bit(p))
            .collect();
        if !zeros.is_empty() {
            return Outcome::Absent { positions, zeros };
        }
        let inserted = self.words.iter().any(|(w, _)| w == word);
        let mut setters = Vec::new();
        for &p in &positions {
            if !setters.iter().any(|(q, _)| *q == p) {
                setters.push((p, self.setters(p)));
            }
        }
        Outcome::MaybePresent {
            positions,
            false_positive: !inserted,
            setters,
        }
    }

    /// Remove `word` (counting mode only), as [`CountingBloom`] removes: refused with nothing
    /// changed unless every position can take its decrements (a position probed r times needs a
    /// counter ≥ r, or a saturated one). A false positive that passes is removed like a member
    /// (as a counting filter must), and the inserted words that now test absent are reported.
    pub fn remove(&mut self, word: &str) -> Outcome {
        let positions = self.positions(word);
        if !self.counting {
            let shared: Vec<String> = positions
                .iter()
                .filter_map(|&p| {
                    let s = self.setters(p);
                    (s.len() > 1).then(|| format!("bit {p} ({})", s.join(", ")))
                })
                .collect();
            let why = if shared.is_empty() {
                "a plain Bloom filter cannot delete: a bit does not know how many items set it"
                    .to_string()
            } else {
                format!(
                    "a plain Bloom filter cannot delete: {} is shared, clearing it would make \
                     other words absent (false negatives)",
                    shared.join(", ")
                )
            };
            return Outcome::RemoveRefused(format!("{why}; press m for counting mode"));
        }
        if positions.iter().any(|&p| !self.bit(p)) {
            return Outcome::RemoveRefused(format!(
                "'{word}' is definitely not in the filter (a counter is 0); nothing changed"
            ));
        }
        if let Err(e) = self.filter.remove_item(word.as_bytes()) {
            let short = repeats(&positions)
                .into_iter()
                .find(|&(p, r)| {
                    let c = self.counter(p);
                    c != Counters4::MAX && usize::from(c) < r
                })
                .map(|(p, r)| {
                    format!(
                        "'{word}' hits bit {p} {r} times but its counter is {}: {r} decrements \
                         would take it below 0",
                        self.counter(p)
                    )
                });
            let why = match (short, e) {
                (Some(s), _) => s,
                (None, Error::NotPresent) => format!("'{word}' is not in the filter"),
                (None, e) => e.to_string(),
            };
            return Outcome::RemoveRefused(format!("{why}; nothing changed"));
        }
        let was_inserted = match self.words.iter().position(|(w, _)| w == word) {
            Some(i) => {
                self.words.remove(i);
                true
            }
            None => false,
        };
        let mut now_missing: Vec<String> = Vec::new();
        for (w, _) in &self.words {
            if !self.contains(w) && !now_missing.contains(w) {
                now_missing.push(w.clone());
            }
        }
        Outcome::Removed {
            positions,
            was_inserted,
            now_missing,
        }
    }

    /// Empty the filter (the mode stays).
    pub fn clear(&mut self) {
        let counting = self.counting;
        if let Ok(w) = Self::with_size(self.seed, self.m, self.k) {
            *self = w;
        }
        self.counting = counting;
    }

    /// Empty the filter and insert apple and banana, as the articles do.
    pub fn preload(&mut self) {
        self.clear();
        for w in INSERTED {
            self.insert(w);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Filter;

    #[test]
    fn seed_is_the_first_that_tells_the_story() {
        assert_eq!(find_seed(), SEED);
        let mut f = filter(SEED);
        for w in INSERTED {
            f.insert(w.as_bytes());
        }
        assert!(f.contains(b"apple") && f.contains(b"banana"));
        assert!(!f.contains(b"grape"));
        assert!(f.contains(b"cherry"), "cherry must be a false positive");
    }

    fn counters(w: &Walkthrough) -> Vec<u8> {
        (0..M).map(|i| w.counter(i)).collect()
    }

    /// Counters as a list of (position, value) for the non-zero ones.
    fn nonzero(w: &Walkthrough) -> Vec<(u64, u8)> {
        (0..M)
            .filter(|&i| w.counter(i) > 0)
            .map(|i| (i, w.counter(i)))
            .collect()
    }

    #[test]
    fn the_session_uses_the_example_filter_and_tells_the_story() {
        let w = Walkthrough::story(SEED);
        let f = filter(SEED);
        for word in INSERTED.iter().chain(&QUERIED) {
            assert_eq!(w.positions(word), f.positions(word.as_bytes()), "{word}");
        }
        assert_eq!(w.ones(), 5);
        let Outcome::MaybePresent {
            false_positive: true,
            setters,
            ..
        } = w.query("cherry")
        else {
            panic!("{:?}", w.query("cherry"))
        };
        assert_eq!(
            setters,
            [
                (10, vec!["banana".to_string()]),
                (5, vec!["apple".to_string()]),
                (15, vec!["banana".to_string()])
            ]
        );
        assert!(matches!(w.query("grape"), Outcome::Absent { zeros, .. } if zeros == [0, 8]));
    }

    #[test]
    fn a_repeated_position_takes_one_increment_and_one_decrement_per_occurrence() {
        let mut w = Walkthrough::new(SEED);
        w.set_counting(true);
        // zebra's three probes hit bit 5 twice.
        assert_eq!(w.positions("zebra"), [5, 13, 5]);
        assert_eq!(repeats(&w.positions("zebra")), [(5, 2)]);
        let out = w.insert("zebra");
        assert_eq!(
            out,
            Outcome::Inserted {
                positions: vec![5, 13, 5],
                collisions: vec![],
                saturated: vec![],
            }
        );
        assert_eq!(nonzero(&w), [(5, 2), (13, 1)]);
        assert!(matches!(
            w.remove("zebra"),
            Outcome::Removed {
                was_inserted: true,
                ..
            }
        ));
        assert_eq!(counters(&w), [0; M as usize]);
    }

    #[test]
    fn a_repeated_position_never_goes_below_zero() {
        // apple sets bit 5 once, lemon sets bit 13: zebra {5, 13, 5} tests present, but bit 5's
        // counter is 1, too low for zebra's two decrements. Refused, nothing changed.
        let mut w = Walkthrough::new(SEED);
        w.insert("apple");
        assert_eq!(w.positions("lemon"), [15, 14, 13]);
        w.insert("lemon");
        w.set_counting(true);
        assert!(w.contains("zebra"));
        let before = counters(&w);
        let Outcome::RemoveRefused(why) = w.remove("zebra") else {
            panic!("zebra removed")
        };
        assert!(
            why.contains("hits bit 5 2 times but its counter is 1"),
            "{why}"
        );
        assert_eq!(counters(&w), before);
        assert_eq!(w.counter(5), 1);
        assert!(w.contains("apple") && w.contains("lemon"));
    }

    #[test]
    fn a_saturated_counter_stays_at_fifteen() {
        let mut w = Walkthrough::new(SEED);
        w.set_counting(true);
        for _ in 0..7 {
            w.insert("zebra");
        }
        assert_eq!(nonzero(&w), [(5, 14), (13, 7)]);
        // The 8th insert takes bit 5 from 14 to 15 and loses the second increment.
        let Outcome::Inserted { saturated, .. } = w.insert("zebra") else {
            panic!()
        };
        assert_eq!(saturated, [5]);
        assert_eq!(nonzero(&w), [(5, 15), (13, 8)]);
        w.remove("zebra");
        assert_eq!(nonzero(&w), [(5, 15), (13, 7)]);
    }

    #[test]
    fn other_sizes_and_the_measured_rate() {
        let mut w = Walkthrough::with_size(SEED, 32, 4).unwrap();
        assert_eq!((w.m(), w.k()), (32, 4));
        for word in ["a", "b", "c", "d", "e"] {
            w.insert(word);
            assert!(w.positions(word).iter().all(|&p| p < 32));
        }
        let fp = w.measured_false_positives(4096);
        // Each absent word passes with probability (ones/m)^k, give or take sampling noise.
        let expect = w.pass_probability() * 4096.0;
        assert!(
            (fp as f64 - expect).abs() < 5.0 * expect.sqrt() + 5.0,
            "{fp} vs {expect}"
        );
        w.clear();
        assert_eq!((w.m(), w.k(), w.ones()), (32, 4, 0));
        assert_eq!(w.measured_false_positives(100), 0);
        assert!(Walkthrough::with_size(SEED, 0, 4).is_err());
    }

    #[test]
    fn bit_mode_refuses_remove() {
        let mut w = Walkthrough::story(SEED);
        let Outcome::RemoveRefused(why) = w.remove("apple") else {
            panic!()
        };
        assert!(why.contains("bit 4 (apple, banana) is shared"), "{why}");
        assert!(w.contains("apple"));
    }
}
