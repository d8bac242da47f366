//! Group "concurrent": the lock-free [`ConcurrentBloom`] (atomic bit setting through `&self`)
//! against a `Mutex<StandardBloom>` with the same hash, strategy and size, shared by 1 and 2
//! threads (the machines here have 2 cores). Ids: `concurrent/{impl}-{op}/{threads}t` with impl
//! `atomic` or `mutex`, op `insert` or `query`, throughput in keys.
//!
//! One timed iteration = [`PER_ITER`] keys split evenly over the threads (scoped threads spawned
//! per iteration: ~20 µs of a ~2 ms iteration). The filter is built for [`N`] keys at p = 1% (1.2 MB,
//! in L3) and pre-filled with half of them; queries are half present, half absent.

use crate::keys::key;
use crate::settings::{P, wanted};
use bloomlab::filters::ConcurrentBloom;
use bloomlab::{Filter, StandardBloom};
use criterion::{BenchmarkId, Criterion, Throughput};
use std::hint::black_box;
use std::sync::Mutex;
use std::time::{Duration, Instant};

/// Design capacity of the shared filter.
const N: u64 = 1_000_000;
/// Keys per timed iteration (over all threads).
const PER_ITER: u64 = 100_000;

/// One operation on key number i (true: hit or insert done), shared by the threads.
type Op<'a> = dyn Fn(u64) -> bool + Sync + 'a;

/// Run `work(first_key, count)` on `threads` scoped threads, `PER_ITER / threads` keys each,
/// starting at `base`; the wall time until all have finished.
fn timed<F: Fn(u64, u64) + Sync>(threads: u64, base: u64, work: &F) -> Duration {
    let per = PER_ITER / threads;
    let t = Instant::now();
    std::thread::scope(|s| {
        for i in 0..threads {
            s.spawn(move || work(base + i * per, per));
        }
    });
    t.elapsed()
}

pub fn run(c: &mut Criterion) {
    if !["atomic", "mutex"]
        .iter()
        .any(|i| wanted(&format!("concurrent/{i}")))
    {
        return;
    }
    let atomic = ConcurrentBloom::with_rate(N, P).expect("concurrent filter");
    let mutex = Mutex::new(StandardBloom::with_rate(N, P).expect("standard filter"));
    for i in 0..N / 2 {
        atomic.insert(&key(i).to_le_bytes());
        mutex.lock().expect("lock").insert(&key(i).to_le_bytes());
    }
    let mut g = c.benchmark_group("concurrent");
    g.throughput(Throughput::Elements(PER_ITER));
    // Queries: key(j) for even j < N/2 was inserted, odd j map to never-inserted keys.
    let probe = |i: u64| {
        let j = i % (N / 2);
        if j.is_multiple_of(2) {
            key(j)
        } else {
            key(1 << 40 | j)
        }
    };
    for threads in [1u64, 2] {
        // Inserts take fresh keys every iteration (from N on: the filter slowly overfills; bits
        // are set, not counted, so the cost per insert does not depend on the fill).
        let ops: [(&str, bool, &Op<'_>); 4] = [
            ("atomic-insert", true, &|i| {
                atomic.insert(&key(i).to_le_bytes())
            }),
            ("mutex-insert", true, &|i| {
                mutex.lock().expect("lock").insert(&key(i).to_le_bytes());
                true
            }),
            ("atomic-query", false, &|i| {
                atomic.contains(&probe(i).to_le_bytes())
            }),
            ("mutex-query", false, &|i| {
                mutex
                    .lock()
                    .expect("lock")
                    .contains(&probe(i).to_le_bytes())
            }),
        ];
        for (name, fresh, op) in ops {
            let mut next = if fresh { N } else { 0 };
            g.bench_function(BenchmarkId::new(name, format!("{threads}t")), |b| {
                b.iter_custom(|iters| {
                    let mut total = Duration::ZERO;
                    for _ in 0..iters {
                        total += timed(threads, next, &|from, count| {
                            let yes = (from..from + count).filter(|&i| op(i)).count();
                            black_box(yes);
                        });
                        next += PER_ITER;
                    }
                    total
                });
            });
        }
    }
    g.finish();
}
