//! Fuzz the bloomlab file decoder: `cargo fuzz run -s none load_filter`.
//!
//! Each input is decoded twice: as given (exercising magic, version, length and checksum
//! checks) and with its last 8 bytes replaced by the correct checksum, so that libFuzzer also
//! explores everything behind the checksum (ids, key, params, payload). Whatever loads must
//! answer queries and take inserts; nothing may panic.
#![no_main]

use bloomlab::{AnyFilter, Filter};
use bloomlab::persist::{self, LoadOptions};
use libfuzzer_sys::fuzz_target;

fn exercise(bytes: &[u8]) {
    let _ = persist::read_info(bytes);
    for opts in [LoadOptions::new(), LoadOptions::new().key([0x5a; 16])] {
        if let Ok(mut f) = AnyFilter::from_bytes(bytes, &opts) {
            assert!(f.bits() >= 1 && (1..=64).contains(&f.k()));
            for i in 0u64..8 {
                let _ = f.contains(&i.to_le_bytes());
            }
            // Filters with a hard capacity (cuckoo, non-scaling scalable) may refuse an
            // insert, with `Full` and nothing else; what they take they must then report.
            // Static sets (xor, binary fuse, ribbon) refuse every insert, with `Static`.
            match f.try_insert(b"fuzz") {
                Ok(()) => assert!(f.contains(b"fuzz"), "false negative after load"),
                Err(bloomlab::Error::Full { .. }) => {}
                Err(bloomlab::Error::Static { .. }) if f.kind().caps().static_set => {}
                Err(e) => panic!("insert into a loaded filter failed: {e}"),
            }
            let _ = f.expected_fpr();
            let _ = f.details();
        }
    }
    let _ = persist::read_from(&mut &bytes[..], "fuzz");
}

fuzz_target!(|data: &[u8]| {
    exercise(data);
    if data.len() >= 8 {
        let mut sealed = data.to_vec();
        let n = sealed.len() - 8;
        let sum = xxhash_rust::xxh3::xxh3_64(&sealed[..n]);
        sealed[n..].copy_from_slice(&sum.to_le_bytes());
        exercise(&sealed);
    }
});
