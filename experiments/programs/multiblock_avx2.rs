//! What the AVX2 dispatch buys the multiblock kind's query, in instructions: a filter of shape
//! (word bits, words) for n = 10^4 at 1%, filled, then Q queries of absent keys through
//! `contains` (the run-time dispatched path: AVX2 where the CPU has it) or `portable_contains`
//! (the portable code on any CPU). Run under callgrind with Q = 0 and Q = 10^6 and divide the
//! difference by 10^6:
//!
//! ```sh
//! cargo build --release --example multiblock_avx2
//! for mode in dispatched portable; do for q in 0 1000000; do
//!   valgrind --tool=callgrind --callgrind-out-file=/dev/null target/release/examples/multiblock_avx2 32 8 $mode $q 2>&1 | grep refs
//! done; done
//! ```

use bloomlab::Filter;
use bloomlab::filters::MultiblockBloom;
use bloomlab::theory::multiblock::Shape;
use std::hint::black_box;

fn main() {
    let a: Vec<String> = std::env::args().collect();
    let (w, k, mode, q): (u32, u32, &str, u64) = (
        a[1].parse().expect("word bits"),
        a[2].parse().expect("words"),
        &a[3],
        a[4].parse().expect("queries"),
    );
    let n = 10_000u64;
    let mut f = MultiblockBloom::with_rate(Shape::new(w, k, None).expect("shape"), n, 0.01)
        .expect("filter");
    for i in 0..n {
        f.insert(&i.to_le_bytes());
    }
    let mut hits = 0u64;
    for i in n..n + q {
        let key = black_box(i).to_le_bytes();
        let hit = if mode == "portable" {
            f.portable_contains(&key)
        } else {
            f.contains(&key)
        };
        hits += u64::from(hit);
    }
    println!("{hits} false positives in {q} queries");
}
