//! The articles' worked example, with real hashes: a 16-bit filter with k = 3, "apple" and
//! "banana" inserted, "grape" correctly rejected and "cherry" a false positive.
//!
//! The articles draw the bits by hand (apple → 2, 7, 11; banana → 4, 7, 14). Here the positions
//! come from murmur3 (Guava's hash) with Kirsch–Mitzenmacher double hashing; [`SEED`] is the
//! first murmur3 seed for which the story really happens: apple and banana share a bit, grape
//! hits a 0 bit, and all three of cherry's bits were set by apple and banana.

use crate::filters::StandardBloom;
use crate::hash::{DoubleHashing, Murmur3};

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
}
