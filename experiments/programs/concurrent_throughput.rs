//! Throughput of the lock-free [`ConcurrentBloom`] against a `Mutex<StandardBloom>`, with 1..T
//! threads inserting (then querying) a fixed total of keys.
//!
//! ```text
//! cargo run --release --example concurrent_throughput -- [TOTAL_KEYS] [MAX_THREADS] [REPEATS]
//! ```
//!
//! Prints one line per (threads, filter, operation) with million operations per second (the
//! best of REPEATS runs) and the ratio to the mutex in the same run. A timing program, not a
//! test: numbers depend on the machine and on what else runs on it.

use bloomlab::filters::ConcurrentBloom;
use bloomlab::{Filter, StandardBloom};
use std::sync::{Barrier, Mutex};
use std::time::{Duration, Instant};

fn key(i: u64) -> [u8; 8] {
    i.wrapping_mul(0x9e37_79b9_7f4a_7c15).to_le_bytes()
}

/// Run `work(range)` on `threads` threads over `total` keys; wall time from a common start
/// (a barrier) until every thread has finished.
fn run<F: Fn(std::ops::Range<u64>) + Sync>(threads: u64, total: u64, work: F) -> Duration {
    let barrier = Barrier::new(threads as usize + 1);
    let per = total / threads;
    let mut start = None;
    std::thread::scope(|s| {
        let handles: Vec<_> = (0..threads)
            .map(|t| {
                let (barrier, work) = (&barrier, &work);
                s.spawn(move || {
                    barrier.wait();
                    work(t * per..(t + 1) * per);
                })
            })
            .collect();
        barrier.wait();
        start = Some(Instant::now());
        for h in handles {
            h.join().expect("worker");
        }
    });
    start.map_or(Duration::ZERO, |s| s.elapsed())
}

fn main() {
    let args: Vec<u64> = std::env::args()
        .skip(1)
        .map(|a| a.parse().expect("numbers: TOTAL_KEYS MAX_THREADS REPEATS"))
        .collect();
    let total = args.first().copied().unwrap_or(4_000_000);
    let max_threads = args.get(1).copied().unwrap_or(4);
    let repeats = args.get(2).copied().unwrap_or(3);
    println!(
        "# {total} keys, p = 0.01, xxh3 + enhanced double hashing, best of {repeats}; {} CPUs available",
        std::thread::available_parallelism().map_or(0, |n| n.get())
    );
    println!("threads,filter,op,mops_per_s,ratio_vs_mutex");
    let mut threads = 1;
    while threads <= max_threads {
        let mut best = [f64::MAX; 4]; // atomic insert, mutex insert, atomic query, mutex query
        for _ in 0..repeats {
            let c = ConcurrentBloom::with_rate(total, 0.01).expect("size");
            let m = Mutex::new(StandardBloom::with_rate(total, 0.01).expect("size"));
            let t0 = run(threads, total, |r| {
                for i in r {
                    c.insert(&key(i));
                }
            });
            let t1 = run(threads, total, |r| {
                for i in r {
                    m.lock().expect("lock").insert(&key(i));
                }
            });
            // Queries: half present, half absent keys.
            let t2 = run(threads, total, |r| {
                let mut hits = 0u64;
                for i in r {
                    hits += u64::from(c.contains(&key(i ^ (i & 1) << 40)));
                }
                std::hint::black_box(hits);
            });
            let t3 = run(threads, total, |r| {
                let mut hits = 0u64;
                for i in r {
                    hits += u64::from(m.lock().expect("lock").contains(&key(i ^ (i & 1) << 40)));
                }
                std::hint::black_box(hits);
            });
            for (b, t) in best.iter_mut().zip([t0, t1, t2, t3]) {
                *b = b.min(t.as_secs_f64());
            }
            let snap = c.snapshot().expect("snapshot");
            assert_eq!(
                snap.bit_vec(),
                m.lock().expect("lock").bit_vec(),
                "same bits either way"
            );
        }
        let done = (total / threads * threads) as f64 / 1e6;
        for (name, op, t, peer) in [
            ("concurrent", "insert", best[0], best[1]),
            ("mutex", "insert", best[1], best[1]),
            ("concurrent", "query", best[2], best[3]),
            ("mutex", "query", best[3], best[3]),
        ] {
            println!("{threads},{name},{op},{:.2},{:.2}", done / t, peer / t);
        }
        threads *= 2;
    }
}
