//! `bloomlab walkthrough`: the articles' m = 16, k = 3 example with real hashes. The steps are
//! [`bloomlab::walkthrough::Walkthrough`]'s, the same the workbench's Walkthrough screen runs.

use super::out::{out, outln};
use bloomlab::walkthrough::{INSERTED, K, M, Outcome, QUERIED, SEED, Walkthrough, repeats};

/// Walk through a 16-bit, 3-hash Bloom filter: insert apple and banana, query grape and cherry.
#[derive(Debug, clap::Args)]
pub struct Args {
    /// murmur3 seed (default: the first seed where the articles' story happens).
    #[arg(long, default_value_t = SEED)]
    pub seed: u32,
}

/// The bit array, three characters per bit so that two-digit indices stay apart.
fn show(w: &Walkthrough) -> bloomlab::Result<()> {
    let header: String = (0..M).map(|i| format!("{i:>3}")).collect();
    let row: String = (0..M)
        .map(|i| if w.bit(i) { "  1" } else { "  0" })
        .collect();
    outln!("      bit {header}")?;
    outln!("    value {row}")
}

/// `n` in superscript digits (the book writes powers as superscripts, also in text output).
fn superscript(n: u32) -> String {
    const DIGITS: [char; 10] = ['⁰', '¹', '²', '³', '⁴', '⁵', '⁶', '⁷', '⁸', '⁹'];
    n.to_string()
        .bytes()
        .map(|b| DIGITS[usize::from(b - b'0')])
        .collect()
}

/// The line for a word whose probes hit one bit more than once.
fn repeat_note(word: &str, positions: &[u64]) -> bloomlab::Result<()> {
    for (p, r) in repeats(positions) {
        let times = if r == 2 {
            "twice".to_string()
        } else {
            format!("{r} times")
        };
        outln!(
            "    \"{word}\" hits bit {p} {times}:\n    its {K} positions are not all different, so it sets fewer bits"
        )?;
    }
    Ok(())
}

/// Run the command.
///
/// # Errors
/// None in practice.
pub fn run(a: &Args) -> bloomlab::Result<()> {
    let mut w = Walkthrough::new(a.seed);
    outln!("A Bloom filter of m = {M} bits and k = {K} hash functions.")?;
    outln!(
        "Positions: murmur3_128 (seed {}) gives h1, h2;\nposition i = ⌊(h1 + i·h2) · m / 2⁶⁴⌋, i = 0..{}.\n",
        a.seed,
        K - 1
    )?;
    outln!("Step 0: every bit starts at 0.")?;
    show(&w)?;
    for (step, word) in INSERTED.iter().enumerate() {
        let h = w.hash(word);
        let out = w.insert(word);
        let pos = out.positions();
        outln!(
            "\nStep {}: insert \"{word}\": h1 = {:#018x}, h2 = {:#018x}\n    → positions {pos:?}",
            step + 1,
            h.lo,
            h.hi,
        )?;
        repeat_note(word, pos)?;
        if let Outcome::Inserted { collisions, .. } = &out {
            for (p, by) in collisions {
                let others: Vec<&String> = by.iter().filter(|o| o != word).collect();
                if let Some(other) = others.first() {
                    outln!(
                        "    bit {p} is already 1 (set by \"{other}\"): a collision, nothing changes"
                    )?;
                }
            }
        }
        show(&w)?;
    }
    let mut step = INSERTED.len();
    for word in INSERTED.iter().take(1).chain(QUERIED.iter()) {
        step += 1;
        let out = w.query(word);
        let pos = out.positions();
        out!("\nStep {step}: query \"{word}\" → positions {pos:?}:\n    ")?;
        match &out {
            Outcome::Absent { zeros, .. } => {
                outln!("bit(s) {zeros:?} are 0, so \"{word}\" was DEFINITELY never inserted.")?;
            }
            Outcome::MaybePresent {
                false_positive: false,
                ..
            } => outln!("all 1 → \"maybe present\" (it was inserted: a true positive).")?,
            Outcome::MaybePresent { setters, .. } => {
                let who: Vec<String> = setters
                    .iter()
                    .map(|(p, by)| format!("{p} by {}", by.join("+")))
                    .collect();
                outln!("all 1 → \"maybe present\", but it was never inserted: a FALSE POSITIVE.")?;
                outln!("    its bits were set by other words: {}", who.join(", "))?;
            }
            // A query answers only absent or maybe present.
            _ => {}
        }
        repeat_note(word, pos)?;
    }
    outln!(
        "\nSo: \"absent\" is always right (a 0 bit can only mean the word was never\n\
         added), while \"present\" can be wrong. With {} of {} bits set, a random absent\n\
         word passes with probability about ({}/{}){} = {:.1}%.",
        w.ones(),
        M,
        w.ones(),
        M,
        superscript(K),
        w.pass_probability() * 100.0
    )?;
    Ok(())
}
