//! The keyed MAC of withheld-key files (issue 40, `persist::mac`): the plain checksum detects
//! accidents, not tampering; with the key withheld, a forged file with a recomputed checksum is
//! refused as "authentication failed" (in memory and streamed from a file), distinctly from
//! damage ("corrupt"); without a key (the key stored in the file) the same forgery loads and
//! gives false negatives: the documented limit.

use bloomlab::hash::Sip24;
use bloomlab::persist::{
    self, HEADER_LEN, KEY_MODE_TAGGED, KeyPolicy, LoadOptions, SaveOptions, mac::MAC_LEN,
};
use bloomlab::{Error, Filter, StandardBloom};

const KEY: [u8; 16] = *b"0123456789abcdef";
const ITEMS: u32 = 500;

fn filter() -> StandardBloom<Sip24> {
    let mut f = StandardBloom::keyed(u64::from(ITEMS), 0.01, KEY).unwrap();
    for i in 0..ITEMS {
        f.insert(&i.to_le_bytes());
    }
    f
}

/// What a forger without the key can do: clear the payload (every bit), keep everything else,
/// and recompute the plain checksum over the result.
fn forge(b: &[u8], trailer: usize) -> Vec<u8> {
    let mut b = b.to_vec();
    let params_len = u32::from_le_bytes(b[40..44].try_into().unwrap()) as usize;
    let end = b.len() - trailer;
    for x in &mut b[HEADER_LEN + params_len..end] {
        *x = 0;
    }
    reseal(&mut b);
    b
}

fn reseal(b: &mut [u8]) {
    let n = b.len() - 8;
    let sum = xxhash_rust::xxh3::xxh3_64(&b[..n]);
    b[n..].copy_from_slice(&sum.to_le_bytes());
}

fn found(g: &StandardBloom<Sip24>) -> u32 {
    (0..ITEMS).filter(|i| g.contains(&i.to_le_bytes())).count() as u32
}

/// Load `b` from memory and from a file (the streamed path); both results.
fn both(b: &[u8], opts: &LoadOptions) -> [bloomlab::Result<StandardBloom<Sip24>>; 2] {
    let dir = tempfile::tempdir().unwrap();
    let p = dir.path().join("f.bloom");
    std::fs::write(&p, b).unwrap();
    [persist::from_bytes(b, opts), persist::load(&p, opts)]
}

#[test]
fn a_forged_payload_with_a_recomputed_checksum_is_refused_in_keyed_mode() {
    let b = persist::to_bytes(&filter(), &SaveOptions::default()).unwrap();
    assert_eq!(b[13], KEY_MODE_TAGGED);
    let keyed = LoadOptions::new().key(KEY);
    for r in both(&b, &keyed) {
        assert_eq!(found(&r.unwrap()), ITEMS, "the genuine file loads");
    }
    let forged = forge(&b, 8 + MAC_LEN);
    for r in both(&forged, &keyed) {
        match r {
            Err(Error::AuthenticationFailed(m)) => {
                let e = Error::AuthenticationFailed(m).to_string();
                assert!(e.starts_with("authentication failed: "), "{e}");
                assert!(!e.contains("corrupt"), "{e}");
            }
            other => panic!("forgery not caught: {:?}", other.map(|g| found(&g))),
        }
    }
    // Without the key it cannot be loaded at all (the key is needed), forged or not.
    for r in both(&forged, &LoadOptions::new()) {
        assert!(matches!(r, Err(Error::KeyRequired { .. })), "{r:?}");
    }
}

#[test]
fn without_a_key_the_same_forgery_loads_and_gives_false_negatives() {
    // The documented limit: a file whose key is in the clear carries no MAC; anyone who can
    // write it can rewrite payload and checksum.
    let plain = SaveOptions::default().key_policy(KeyPolicy::Store);
    let b = persist::to_bytes(&filter(), &plain).unwrap();
    assert_eq!(b[13], 0, "key stored: no MAC");
    let forged = forge(&b, 8);
    for r in both(&forged, &LoadOptions::new()) {
        let g = r.expect("the forgery passes the plain checksum");
        assert_eq!(found(&g), 0, "every inserted item now answers absent");
    }
}

#[test]
fn damage_is_corrupt_not_an_authentication_failure() {
    let b = persist::to_bytes(&filter(), &SaveOptions::default()).unwrap();
    let keyed = LoadOptions::new().key(KEY);
    for at in [HEADER_LEN + 30, b.len() - 8 - MAC_LEN, b.len() - 8 - 1] {
        let mut d = b.clone();
        d[at] ^= 0x10;
        for r in both(&d, &keyed) {
            match r {
                Err(Error::Corrupt(m)) => assert!(m.contains("checksum mismatch"), "{m}"),
                other => panic!("byte {at}: {:?}", other.map(|g| found(&g))),
            }
        }
    }
}

#[test]
fn a_forged_tag_or_header_is_refused_and_a_stripped_tag_too() {
    let b = persist::to_bytes(&filter(), &SaveOptions::default()).unwrap();
    let keyed = LoadOptions::new().key(KEY);
    // The tag itself changed (and the checksum recomputed).
    let mut t = b.clone();
    let at = b.len() - 8 - 1;
    t[at] ^= 1;
    reseal(&mut t);
    for r in both(&t, &keyed) {
        assert!(matches!(r, Err(Error::AuthenticationFailed(_))), "{r:?}");
    }
    // A header field the MAC covers: k of the standard filter's params (52 + 8).
    let mut h = b.clone();
    h[HEADER_LEN + 8] -= 1;
    reseal(&mut h);
    for r in both(&h, &keyed) {
        assert!(matches!(r, Err(Error::AuthenticationFailed(_))), "{r:?}");
    }
    // Downgrade: strip the tag and claim key mode 1 (withheld, no MAC): refused too.
    let mut s = b[..b.len() - 8 - MAC_LEN].to_vec();
    s[13] = 1;
    s.extend_from_slice(&[0u8; 8]);
    let s = forge(&s, 8);
    for r in both(&s, &keyed) {
        match r {
            Err(Error::AuthenticationFailed(m)) => assert!(m.contains("no MAC"), "{m}"),
            other => panic!("downgrade not caught: {:?}", other.map(|g| found(&g))),
        }
    }
}

#[test]
fn a_wrong_key_is_still_a_wrong_key() {
    let b = persist::to_bytes(&filter(), &SaveOptions::default()).unwrap();
    for r in both(&b, &LoadOptions::new().key(*b"0123456789abcdeX")) {
        assert!(matches!(r, Err(Error::WrongKey { .. })), "{r:?}");
    }
}

/// The command line: `build --key-file`, a forgery, `query --key-file` (exit 2, "authentication
/// failed"); the same forgery of a file built without a key answers "absent" (exit 1).
#[test]
fn the_cli_refuses_a_forged_keyed_file_and_cannot_for_an_unkeyed_one() {
    use std::process::Command;
    let bin = env!("CARGO_BIN_EXE_bloomlab");
    let dir = tempfile::tempdir().unwrap();
    let p = |n: &str| dir.path().join(n);
    std::fs::write(p("key.hex"), "000102030405060708090a0b0c0d0e0f\n").unwrap();
    std::fs::write(p("keys.txt"), "apple\nbanana\ncherry\n").unwrap();
    let run = |args: &[&str]| {
        let o = Command::new(bin)
            .args(args)
            .current_dir(dir.path())
            .output()
            .unwrap();
        let err = String::from_utf8_lossy(&o.stderr).into_owned();
        eprintln!(
            "$ bloomlab {}\n{}{err}exit {:?}",
            args.join(" "),
            String::from_utf8_lossy(&o.stdout),
            o.status.code()
        );
        (o.status.code(), err)
    };
    let build = |key: bool, out: &str| {
        let mut a = vec![
            "build", "--keys", "keys.txt", "--n", "1000", "--p", "0.01", "--out", out,
        ];
        if key {
            a.extend(["--hash", "sip24", "--key-file", "key.hex"]);
        }
        assert_eq!(run(&a).0, Some(0));
    };
    build(true, "keyed.bloom");
    assert_eq!(
        run(&["query", "keyed.bloom", "apple", "--key-file", "key.hex"]).0,
        Some(0)
    );
    let b = std::fs::read(p("keyed.bloom")).unwrap();
    std::fs::write(p("keyed.bloom"), forge(&b, 8 + MAC_LEN)).unwrap();
    let (code, err) = run(&["query", "keyed.bloom", "apple", "--key-file", "key.hex"]);
    assert_eq!(code, Some(2));
    assert!(err.contains("authentication failed"), "{err}");
    let (code, err) = run(&["query", "keyed.bloom", "apple"]);
    assert_eq!(code, Some(2));
    assert!(err.contains("supply the key"), "{err}");

    build(false, "plain.bloom");
    let b = std::fs::read(p("plain.bloom")).unwrap();
    std::fs::write(p("plain.bloom"), forge(&b, 8)).unwrap();
    let (code, _) = run(&["query", "plain.bloom", "apple"]);
    assert_eq!(
        code,
        Some(1),
        "the documented limit: no key, no MAC, the forgery answers absent"
    );
}
