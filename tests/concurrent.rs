//! Load test of the lock-free filter: threads insert and query at once, and an item whose
//! insert has returned is always found, by its own thread and by every thread that learned of it
//! through an atomic counter published after the insert returned.

use bloomlab::filters::ConcurrentBloom;
use bloomlab::persist::{self, LoadOptions, SaveOptions};
use bloomlab::{Filter, StandardBloom};
use std::sync::Barrier;
use std::sync::atomic::{AtomicU64, Ordering};

const THREADS: u64 = 4;
const PER_THREAD: u64 = 20_000;

fn key(t: u64, i: u64) -> [u8; 8] {
    (t << 32 | i).to_le_bytes()
}

#[test]
fn inserts_that_returned_are_always_found() {
    // Sized for the total so the filter is realistically full at the end (FPR ~1%).
    let f = ConcurrentBloom::with_rate(THREADS * PER_THREAD, 0.01).unwrap();
    let published: Vec<AtomicU64> = (0..THREADS).map(|_| AtomicU64::new(0)).collect();
    let barrier = Barrier::new(THREADS as usize);
    let cross_checks = AtomicU64::new(0);
    std::thread::scope(|s| {
        for t in 0..THREADS {
            let (f, published, barrier, cross_checks) = (&f, &published, &barrier, &cross_checks);
            s.spawn(move || {
                barrier.wait();
                let mut rng = 0x9e37_79b9_7f4a_7c15u64 ^ t;
                let mut checked = 0u64;
                for i in 0..PER_THREAD {
                    f.insert(&key(t, i));
                    // Its own insert, immediately.
                    assert!(f.contains(&key(t, i)), "thread {t} lost its own key {i}");
                    // Publish: every key below i + 1 has been inserted (Release).
                    published[t as usize].store(i + 1, Ordering::Release);
                    // Query a key another thread has published (Acquire).
                    rng ^= rng << 13;
                    rng ^= rng >> 7;
                    rng ^= rng << 17;
                    let u = (t + 1 + rng % (THREADS - 1)) % THREADS;
                    let c = published[u as usize].load(Ordering::Acquire);
                    if c > 0 {
                        let j = (rng >> 20) % c;
                        assert!(
                            f.contains(&key(u, j)),
                            "thread {t} cannot see key {j} of thread {u} published as inserted ({c})"
                        );
                        checked += 1;
                    }
                }
                cross_checks.fetch_add(checked, Ordering::Relaxed);
            });
        }
    });
    // The cross-thread check really ran (threads overlapped), and everything is there.
    let cross = cross_checks.load(Ordering::Relaxed);
    assert!(cross > PER_THREAD, "only {cross} cross-thread checks ran");
    assert_eq!(f.len(), THREADS * PER_THREAD);
    assert!((0..THREADS).all(|t| (0..PER_THREAD).all(|i| f.contains(&key(t, i)))));

    // Whatever the interleaving, the bits are those of a sequential build (OR commutes).
    let mut seq = StandardBloom::with_rate(THREADS * PER_THREAD, 0.01).unwrap();
    for t in 0..THREADS {
        for i in 0..PER_THREAD {
            seq.insert(&key(t, i));
        }
    }
    let snap = f.snapshot().unwrap();
    assert_eq!(snap.bit_vec(), seq.bit_vec());

    // And its false-positive rate is the standard filter's: count over fresh keys.
    let fp = (0..50_000u64)
        .filter(|i| f.contains(&key(THREADS + 1, *i)))
        .count();
    let fpr = fp as f64 / 50_000.0;
    assert!((0.006..0.015).contains(&fpr), "FPR {fpr}");
}

#[test]
fn concurrent_and_standard_share_the_file_format() {
    let f = ConcurrentBloom::with_rate(1_000, 0.01).unwrap();
    for i in 0u64..500 {
        f.insert(&i.to_le_bytes());
    }
    let b = persist::to_bytes(&f, &SaveOptions::default()).unwrap();
    let s: StandardBloom = persist::from_bytes(&b, &LoadOptions::new()).unwrap();
    assert!((0u64..500).all(|i| s.contains(&i.to_le_bytes())));
    assert_eq!(persist::to_bytes(&s, &SaveOptions::default()).unwrap(), b);
    let c: ConcurrentBloom = persist::from_bytes(&b, &LoadOptions::new()).unwrap();
    assert_eq!(c.ones(), f.ones());
    assert_eq!(Filter::len(&c), 500);
}
