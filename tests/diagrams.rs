//! The structure diagrams (`bloomlab::diagram`, `bloomlab diagram`) show what the filters hold:
//! each test rebuilds the filter a diagram describes with the library and compares the marks'
//! `data-…` attributes with what the filter reports (positions, counters, slots, fingerprints).
//! A last test regenerates every diagram with the command and compares it with the copy the
//! book includes, so the committed figures cannot go stale.

use bloomlab::diagram::{self, names, render};
use bloomlab::filters::static_set::Table;
use bloomlab::filters::{
    BinaryFuseFilter, BlockedBloom, CountingBloom, CuckooFilter, QuotientFilter, RibbonFilter,
    ScalableBloom, SplitBlockBloom, XorFilter,
};
use bloomlab::hash::{DoubleHashing, Murmur3, Xxh3};
use bloomlab::walkthrough::{self, K, M, SEED};
use bloomlab::{Filter, Removable};
use std::collections::BTreeMap;

/// The attributes of every element of `svg` that has attribute `key`.
fn with(svg: &str, key: &str) -> Vec<BTreeMap<String, String>> {
    let mut out = Vec::new();
    for tag in svg.split('<').skip(1) {
        let tag = tag.split('>').next().unwrap_or("");
        let mut attrs = BTreeMap::new();
        let mut rest = tag;
        while let Some(eq) = rest.find("=\"") {
            let name = rest[..eq]
                .rsplit([' ', '\n'])
                .next()
                .unwrap_or("")
                .to_string();
            let after = &rest[eq + 2..];
            let end = after.find('"').expect("closed attribute");
            attrs.insert(name, after[..end].to_string());
            rest = &after[end + 1..];
        }
        if attrs.contains_key(key) {
            out.push(attrs);
        }
    }
    out
}

fn num(a: &BTreeMap<String, String>, k: &str) -> u64 {
    a[k].parse().unwrap_or_else(|_| panic!("{k} = {}", a[k]))
}

#[test]
fn standard_marks_exactly_the_bits_the_filter_reports() {
    let svg = render("standard").unwrap();
    let mut f = walkthrough::filter(SEED);
    f.insert(b"apple");
    f.insert(b"banana");
    for w in ["apple", "banana", "cherry"] {
        let mut marks: Vec<(u64, u64)> = with(&svg, "data-word")
            .iter()
            .filter(|a| a["data-word"] == w)
            .map(|a| (num(a, "data-probe"), num(a, "data-bit")))
            .collect();
        marks.sort_unstable();
        let want: Vec<(u64, u64)> = f
            .positions(w.as_bytes())
            .into_iter()
            .enumerate()
            .map(|(j, p)| (j as u64, p))
            .collect();
        assert_eq!(marks, want, "{w}");
        assert_eq!(marks.len(), K as usize);
    }
    let cells = with(&svg, "data-cell");
    assert_eq!(cells.len(), M as usize);
    for c in cells {
        assert_eq!(
            num(&c, "data-value") == 1,
            f.bit_vec().get(num(&c, "data-cell"))
        );
    }
    // cherry is the walkthrough's false positive: the diagram says so.
    assert!(f.contains_item(b"cherry") && svg.contains("a false positive"));
}

/// The bits an item sets and the other set bits a block diagram shows.
fn block_marks(svg: &str) -> (Vec<u64>, Vec<u64>) {
    let get = |k| {
        let mut v: Vec<u64> = with(svg, k).iter().map(|a| num(a, k)).collect();
        v.sort_unstable();
        v
    };
    (get("data-item-bit"), get("data-set-bit"))
}

#[test]
fn blocked_marks_the_block_and_the_k_bits_of_apple() {
    let mut f = BlockedBloom::with_rate(1000, 0.01).unwrap();
    for i in 0..250 {
        f.insert(format!("key-{i}").as_bytes());
    }
    f.insert(b"apple");
    let (b, mask) = f.block_and_mask(b"apple");
    let block = f.block_slice()[b].0;
    let bit = |w: [u64; 8], i: u64| w[(i / 64) as usize] >> (i % 64) & 1 == 1;
    let (mine, others) = block_marks(&render("blocked").unwrap());
    let want: Vec<u64> = (0..512).filter(|&i| bit(mask, i)).collect();
    assert_eq!(mine, want);
    assert_eq!(mine.len(), f.k() as usize);
    let rest: Vec<u64> = (0..512)
        .filter(|&i| bit(block, i) && !bit(mask, i))
        .collect();
    assert_eq!(others, rest);
}

#[test]
fn split_block_marks_one_bit_per_word_as_the_parquet_mask() {
    let mut f = SplitBlockBloom::with_rate(1000, 0.01).unwrap();
    for i in 0..250 {
        f.insert(format!("key-{i}").as_bytes());
    }
    f.insert(b"apple");
    let h = f.hash(b"apple");
    let m = bloomlab::filters::split_block::mask(h as u32);
    let (mine, others) = block_marks(&render("split-block").unwrap());
    let want: Vec<u64> = (0..8u64)
        .map(|w| w * 32 + u64::from(m[w as usize].trailing_zeros()))
        .collect();
    assert_eq!(mine, want);
    let block = f.block_slice()[f.block_index(h)].0;
    let rest: Vec<u64> = (0..256u64)
        .filter(|&i| block[(i / 32) as usize] >> (i % 32) & 1 == 1 && !want.contains(&i))
        .collect();
    assert_eq!(others, rest);
}

#[test]
fn counting_shows_the_counters_before_and_after_the_remove() {
    let svg = render("counting").unwrap();
    let mut f =
        CountingBloom::with_counters_and(M, K, Murmur3::with_seed(SEED), DoubleHashing).unwrap();
    for w in ["apple", "banana", "grape"] {
        f.insert(w.as_bytes());
    }
    let row = |name: &str| -> Vec<u64> {
        let mut v: Vec<(u64, u64)> = with(&svg, "data-counter")
            .iter()
            .filter(|a| a["data-row"] == name)
            .map(|a| (num(a, "data-cell"), num(a, "data-counter")))
            .collect();
        v.sort_unstable();
        v.into_iter().map(|(_, c)| c).collect()
    };
    let now = |f: &CountingBloom<Murmur3, DoubleHashing>| -> Vec<u64> {
        (0..M).map(|i| u64::from(f.counter(i))).collect()
    };
    assert_eq!(row("inserted"), now(&f));
    assert!(row("inserted").contains(&2), "a shared counter is shown");
    f.remove(b"banana").unwrap();
    assert_eq!(row("removed"), now(&f));
}

#[test]
fn cuckoo_shows_a_real_kick_path() {
    let svg = render("cuckoo").unwrap();
    let d = &with(&svg, "data-seed")[0];
    let (seed, n) = (num(d, "data-seed"), num(d, "data-inserted"));
    let mut f = CuckooFilter::with_layout_and(8, 8, 4, Xxh3::with_seed(seed)).unwrap();
    for i in 0..n {
        f.try_insert(format!("item-{i}").as_bytes()).unwrap();
    }
    let table = |f: &CuckooFilter, name: &str| {
        for a in with(&svg, "data-table")
            .iter()
            .filter(|a| a["data-table"] == name)
        {
            let (i, j) = (num(a, "data-bucket"), num(a, "data-slot") as u32);
            assert_eq!(
                num(a, "data-fp"),
                f.view().slot(i, j),
                "{name} bucket {i} slot {j}"
            );
        }
    };
    table(&f, "before");
    let key = format!("item-{n}");
    let (i1, fp) = f.view().bucket_and_fingerprint(key.as_bytes());
    let i2 = f.view().other_bucket(i1, fp);
    assert!(
        f.view().slot(i1, 3) != 0 && f.view().slot(i2, 3) != 0,
        "both buckets full"
    );
    let kicks = f.kicks();
    f.try_insert(key.as_bytes()).unwrap();
    assert!(f.kicks() > kicks, "the insert kicked");
    table(&f, "after");
    let mut steps = with(&svg, "data-step");
    steps.sort_by_key(|a| num(a, "data-step"));
    assert!(steps.len() >= 2);
    assert_eq!(num(&steps[0], "data-fp"), fp);
    assert!([i1, i2].contains(&num(&steps[0], "data-bucket")));
    for w in steps.windows(2) {
        // The evicted fingerprint goes to its other bucket.
        assert_eq!(num(&w[0], "data-evicted"), num(&w[1], "data-fp"));
        assert_eq!(
            num(&w[1], "data-bucket"),
            f.view()
                .other_bucket(num(&w[0], "data-bucket"), num(&w[1], "data-fp"))
        );
    }
    assert_eq!(num(steps.last().unwrap(), "data-evicted"), 0);
    for s in &steps {
        let (i, j) = (num(s, "data-bucket"), num(s, "data-slot") as u32);
        assert_eq!(f.view().slot(i, j), num(s, "data-fp"));
    }
}

#[test]
fn scalable_shows_each_layer_as_the_filter_has_it() {
    let mut f = ScalableBloom::new(100, 0.01).unwrap();
    for i in 0..1400 {
        f.insert(format!("key-{i}").as_bytes());
    }
    let svg = render("scalable").unwrap();
    let drawn = with(&svg, "data-layer");
    assert_eq!(drawn.len(), f.layer_count());
    for ((a, l), (cap, _)) in drawn.iter().zip(f.layers()).zip(f.layer_targets()) {
        assert_eq!(num(a, "data-bits"), l.bits());
        assert_eq!(num(a, "data-k"), u64::from(l.k()));
        assert_eq!(num(a, "data-len"), l.len());
        assert_eq!(num(a, "data-capacity"), cap);
    }
}

/// The key marks of a segment diagram agree with `slots_and_fingerprint` and the table.
fn check_segments(
    svg: &str,
    t: &Table,
    look: impl Fn(&str) -> (Vec<u32>, u64),
    has: impl Fn(&str) -> bool,
) {
    let cell = |i: u32| match t {
        Table::F8(v) => u64::from(v[i as usize]),
        Table::F16(v) => u64::from(v[i as usize]),
    };
    let cells = with(svg, "data-slot");
    assert_eq!(cells.len() as u64, t.slots());
    for c in &cells {
        assert_eq!(num(c, "data-fp"), cell(num(c, "data-slot") as u32));
    }
    for k in with(svg, "data-key") {
        let (slots, fp) = look(&k["data-key"]);
        let drawn: Vec<u32> = k["data-slots"]
            .split(' ')
            .map(|s| s.parse().unwrap())
            .collect();
        assert_eq!(drawn, slots, "{}", k["data-key"]);
        assert_eq!(num(&k, "data-fingerprint"), fp);
        let x = slots.iter().fold(0, |a, &i| a ^ cell(i));
        assert_eq!(num(&k, "data-xor"), x);
        assert_eq!(x == fp, has(&k["data-key"]));
    }
}

const FRUIT: [&str; 8] = [
    "apple",
    "banana",
    "cherry",
    "date",
    "elderberry",
    "fig",
    "grape",
    "honeydew",
];

#[test]
fn xor_shows_the_three_slots_and_the_equation_of_the_filter() {
    let f = XorFilter::from_keys(FRUIT, 8).unwrap();
    let svg = render("xor").unwrap();
    let look = |k: &str| {
        let (s, fp) = f.view().slots_and_fingerprint(k.as_bytes());
        (s.to_vec(), fp)
    };
    check_segments(&svg, f.table(), look, |k| f.contains(k.as_bytes()));
    assert_eq!(with(&svg, "data-key")[0]["data-key"], "apple");
}

#[test]
fn binary_fuse_shows_the_three_slots_and_the_equation_of_the_filter() {
    let keys: Vec<String> = FRUIT
        .iter()
        .map(|s| (*s).to_string())
        .chain((0..32).map(|i| format!("key-{i}")))
        .collect();
    let f = BinaryFuseFilter::from_keys(&keys, 8).unwrap();
    let svg = render("binary-fuse").unwrap();
    let look = |k: &str| f.view().slots_and_fingerprint(k.as_bytes());
    check_segments(&svg, f.table(), look, |k| f.contains(k.as_bytes()));
    // Three consecutive segments.
    let (s, _) = look("apple");
    let l = f.segment_length();
    assert_eq!((s[1] / l, s[2] / l), (s[0] / l + 1, s[0] / l + 2));
}

/// The ribbon diagram's window is the filter's: every drawn row holds the value the filter
/// stores, the coefficient bits are the key's, and the XOR of the rows they pick is what a
/// query computes: equal to the fingerprint for apple (in the set), not for the absent key.
#[test]
fn ribbon_shows_a_keys_window_and_the_xor_of_the_rows_it_picks() {
    let f = RibbonFilter::from_keys(FRUIT, 4).unwrap();
    let svg = render("ribbon").unwrap();
    for row in with(&svg, "data-row") {
        assert_eq!(
            num(&row, "data-value"),
            u64::from(f.view().row(num(&row, "data-row")))
        );
    }
    let keys = with(&svg, "data-key");
    // apple, and the first absent key the filter rejects ("kiwi" is a false positive at r = 4).
    assert_eq!(keys.len(), 2);
    assert_eq!(keys[0]["data-key"], "apple");
    assert!(
        f.contains(b"kiwi"),
        "kiwi's luck changed: the diagram's words need a look"
    );
    let coeff = with(&svg, "data-coeff");
    assert_eq!(coeff.len(), 2 * 64);
    for (k, bits) in keys.iter().zip(coeff.chunks(64)) {
        let (start, c, fp) = f.view().equation_of(k["data-key"].as_bytes());
        assert_eq!(num(k, "data-start"), start);
        assert_eq!(num(k, "data-coefficients"), c);
        assert_eq!(num(k, "data-fingerprint"), u64::from(fp));
        for b in bits {
            assert_eq!(num(b, "data-coeff"), c >> num(b, "data-t") & 1);
        }
        let x = (0..64)
            .filter(|t| c >> t & 1 == 1)
            .fold(0, |a, t| a ^ f.view().row(start + t));
        assert_eq!(num(k, "data-xor"), u64::from(x));
        assert_eq!(x == fp, f.contains(k["data-key"].as_bytes()));
    }
    assert!(f.contains(b"apple") && !f.contains(keys[1]["data-key"].as_bytes()));
}

#[test]
fn quotient_runs_hold_exactly_the_filters_fingerprints() {
    let svg = render("quotient").unwrap();
    let seed = num(&with(&svg, "data-seed")[0], "data-seed");
    let mut f = QuotientFilter::with_qr_and(4, 4, Xxh3::with_seed(seed)).unwrap();
    let items = [
        "apple",
        "banana",
        "cherry",
        "date",
        "elderberry",
        "fig",
        "grape",
        "honeydew",
        "kiwi",
        "lemon",
    ];
    for w in items {
        f.insert(w.as_bytes());
    }
    // The (run quotient, remainder) pairs drawn are the table's fingerprints.
    let mut drawn: Vec<u64> = with(&svg, "data-rem")
        .iter()
        .map(|a| num(a, "data-run") << 4 | num(a, "data-rem"))
        .collect();
    drawn.sort_unstable();
    assert_eq!(drawn, f.fingerprints());
    // The metadata bits drawn are the table's.
    for (name, which) in [
        ("data-occupied", 0),
        ("data-continuation", 1),
        ("data-shifted", 2),
    ] {
        let rows = with(&svg, name);
        assert_eq!(rows.len() as u64, f.slots());
        for a in rows {
            let i = num(&a, "data-slot");
            assert_eq!(num(&a, name) == 1, f.view().slot(i).0[which], "{name} {i}");
        }
    }
    let rem_at: BTreeMap<u64, (u64, u64)> = with(&svg, "data-rem")
        .iter()
        .map(|a| {
            (
                num(a, "data-slot"),
                (num(a, "data-run"), num(a, "data-rem")),
            )
        })
        .collect();
    let listed = with(&svg, "data-item");
    assert_eq!(listed.len(), items.len());
    for a in listed {
        let (q, r) = f.view().quotient_and_remainder(a["data-item"].as_bytes());
        assert_eq!((num(&a, "data-q"), num(&a, "data-r")), (q, r));
        assert_eq!(rem_at[&num(&a, "data-at")], (q, r), "{}", a["data-item"]);
    }
    assert!(f.view().slot(f.slots() - 1).0 == [false; 3]);
}

#[test]
fn the_books_diagrams_are_what_the_command_draws_now() {
    let dir = std::path::Path::new(env!("CARGO_TARGET_TMPDIR")).join("diagrams-all");
    let _ = std::fs::remove_dir_all(&dir);
    let o = std::process::Command::new(env!("CARGO_BIN_EXE_bloomlab"))
        .args(["diagram", "--all", "--out-dir"])
        .arg(&dir)
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let book = concat!(env!("CARGO_MANIFEST_DIR"), "/book/src/figures/diagrams");
    for name in names() {
        let made = std::fs::read_to_string(dir.join(format!("{name}.svg"))).unwrap();
        assert_eq!(made, render(name).unwrap());
        let committed = std::fs::read_to_string(format!("{book}/{name}.svg"))
            .unwrap_or_else(|_| panic!("{name}.svg missing from {book}"));
        assert!(
            committed == made,
            "{book}/{name}.svg is stale: run `bloomlab diagram --all --out-dir {book}`"
        );
    }
    assert_eq!(diagram::DIAGRAMS.len(), 10);
}

#[test]
fn one_diagram_to_a_file_and_to_standard_output() {
    let dir = std::path::Path::new(env!("CARGO_TARGET_TMPDIR")).join("diagrams-one");
    std::fs::create_dir_all(&dir).unwrap();
    let out = dir.join("c.svg");
    let run = |args: &[&str]| {
        std::process::Command::new(env!("CARGO_BIN_EXE_bloomlab"))
            .args(args)
            .output()
            .unwrap()
    };
    let o = run(&["diagram", "counting", "--out", out.to_str().unwrap()]);
    assert!(o.status.success());
    assert_eq!(
        std::fs::read_to_string(&out).unwrap(),
        render("counting").unwrap()
    );
    let o = run(&["diagram", "xor"]);
    assert!(o.status.success());
    assert_eq!(String::from_utf8(o.stdout).unwrap(), render("xor").unwrap());
    let o = run(&["diagram", "--list"]);
    let text = String::from_utf8(o.stdout).unwrap();
    assert!(names().iter().all(|n| text.contains(n)), "{text}");
}
