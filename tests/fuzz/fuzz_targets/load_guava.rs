//! Fuzz the Guava-format decoder (`BloomFilter.writeTo` bytes):
//! `cargo fuzz run -s none load_guava`.
//!
//! Whatever loads must answer queries, take inserts (a Guava filter never refuses one) and find
//! what it took, and write itself back in Guava's format; nothing may panic or allocate more
//! than the input justifies.
#![no_main]

use bloomlab::Filter;
use bloomlab::guava::{load_guava, save_guava};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    if let Ok(mut f) = load_guava(data) {
        assert!(f.bits() >= 1 && (1..=64).contains(&f.k()));
        for i in 0u64..8 {
            let _ = f.contains(&i.to_le_bytes());
        }
        f.insert(b"fuzz");
        assert!(f.contains(b"fuzz"), "false negative after load");
        let again = save_guava(&f).expect("a loaded Guava filter writes back");
        assert!(load_guava(&again).is_ok(), "written Guava bytes do not load");
    }
});
