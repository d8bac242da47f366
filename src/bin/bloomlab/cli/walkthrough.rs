//! `bloomlab walkthrough`: the articles' m = 16, k = 3 example with real hashes.

use bloomlab::Filter;
use bloomlab::hash::{ItemHasher, Murmur3};
use bloomlab::walkthrough::{self, INSERTED, K, M, QUERIED, SEED};

/// Walk through a 16-bit, 3-hash Bloom filter: insert apple and banana, query grape and cherry.
#[derive(Debug, clap::Args)]
pub struct Args {
    /// murmur3 seed (default: the first seed where the articles' story happens).
    #[arg(long, default_value_t = SEED)]
    pub seed: u32,
}

fn row(bits: &[bool]) -> String {
    bits.iter()
        .map(|&b| if b { " 1" } else { " 0" })
        .collect::<String>()
}

/// Run the command.
///
/// # Errors
/// None in practice.
pub fn run(a: &Args) -> bloomlab::Result<()> {
    let mut f = walkthrough::filter(a.seed);
    let hasher = Murmur3::with_seed(a.seed);
    let header: String = (0..M).map(|i| format!("{i:>2}")).collect();
    let show = |f: &bloomlab::StandardBloom<Murmur3, bloomlab::hash::DoubleHashing>| {
        let bits: Vec<bool> = (0..M).map(|i| f.bit_vec().get(i)).collect();
        println!("      bit {header}");
        println!("    value {}", row(&bits));
    };
    println!("A Bloom filter of m = {M} bits and k = {K} hash functions.");
    println!(
        "Positions: murmur3_128 (seed {}) gives h1, h2; position i = ⌊(h1 + i·h2) · m / 2^64⌋, i = 0..{}.\n",
        a.seed,
        K - 1
    );
    println!("Step 0: every bit starts at 0.");
    show(&f);
    let mut owners: Vec<(u64, &str)> = Vec::new();
    for (step, w) in INSERTED.iter().enumerate() {
        let h = hasher.hash128(w.as_bytes());
        let pos = f.positions(w.as_bytes());
        println!(
            "\nStep {}: insert \"{w}\": h1 = {:#018x}, h2 = {:#018x} → positions {:?}",
            step + 1,
            h.lo,
            h.hi,
            pos
        );
        for &p in &pos {
            if let Some((_, other)) = owners.iter().find(|(q, o)| *q == p && o != w) {
                println!(
                    "    bit {p} is already 1 (set by \"{other}\"): a collision, nothing changes there"
                );
            }
        }
        f.insert(w.as_bytes());
        for &p in &pos {
            owners.push((p, w));
        }
        show(&f);
    }
    let mut step = INSERTED.len();
    for w in INSERTED.iter().take(1).chain(QUERIED.iter()) {
        step += 1;
        let pos = f.positions(w.as_bytes());
        let zeros: Vec<u64> = pos
            .iter()
            .copied()
            .filter(|&p| !f.bit_vec().get(p))
            .collect();
        print!("\nStep {step}: query \"{w}\" → positions {pos:?}: ");
        if !zeros.is_empty() {
            println!("bit(s) {zeros:?} are 0, so \"{w}\" was DEFINITELY never inserted.");
        } else if INSERTED.contains(w) {
            println!("all 1 → \"maybe present\" (it was inserted: a true positive).");
        } else {
            let who: Vec<String> = pos
                .iter()
                .map(|p| {
                    let by: Vec<&str> = owners
                        .iter()
                        .filter(|(q, _)| q == p)
                        .map(|(_, o)| *o)
                        .collect();
                    format!("{p} by {}", by.join("+"))
                })
                .collect();
            println!("all 1 → \"maybe present\", but it was never inserted: a FALSE POSITIVE.");
            println!("    its bits were set by other words: {}", who.join(", "));
        }
    }
    println!(
        "\nSo: \"absent\" is always right (a 0 bit can only mean the word was never added), while \
         \"present\" can be wrong.\nWith {} of {} bits set, a random absent word passes with probability \
         about ({}/{})^{} = {:.1}%.",
        f.ones(),
        M,
        f.ones(),
        M,
        K,
        (f.ones() as f64 / M as f64).powi(K as i32) * 100.0
    );
    Ok(())
}
