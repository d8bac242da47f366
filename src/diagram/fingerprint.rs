//! The fingerprint family: cuckoo buckets and a kick path; xor and binary fuse segments.

use super::{BLUE, Font, GREEN, GRID, INK, MUTED, Svg, VERMILLION};
use crate::Filter;
use crate::filters::static_set::Table;
use crate::filters::{BinaryFuseFilter, CuckooFilter, XorFilter};
use crate::hash::Xxh3;

/// Buckets, fingerprint bits and slots per bucket of the cuckoo diagram's table.
const CUCKOO: (u64, u32, u32) = (8, 8, 4);

/// Every slot of a cuckoo table, bucket by bucket.
fn slots(f: &CuckooFilter) -> Vec<Vec<u64>> {
    (0..f.buckets())
        .map(|i| (0..f.bucket_size()).map(|j| f.view().slot(i, j)).collect())
        .collect()
}

/// One step of a kick path: `fp` put into slot `slot` of `bucket`, `evicted` taken out (0: the
/// slot was free and the insert ends there).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Step {
    pub bucket: u64,
    pub slot: u32,
    pub fp: u64,
    pub evicted: u64,
}

/// The kick path that turned table `before` into `after` when fingerprint `fp` with buckets
/// `i1`, `i2` was inserted, if each slot changed once: replayed on `before` it must give
/// `after` exactly.
fn kick_path(
    f: &CuckooFilter,
    before: &[Vec<u64>],
    after: &[Vec<u64>],
    fp: u64,
    starts: [u64; 2],
) -> Option<Vec<Step>> {
    'start: for start in starts {
        let mut t = before.to_vec();
        let (mut bucket, mut carry) = (start, fp);
        let mut path = Vec::new();
        for _ in 0..8 {
            let b = bucket as usize;
            let changed: Vec<usize> = (0..t[b].len())
                .filter(|&j| after[b][j] == carry && t[b][j] != carry)
                .collect();
            let [j] = changed.as_slice() else {
                continue 'start;
            };
            let evicted = t[b][*j];
            t[b][*j] = carry;
            path.push(Step {
                bucket,
                slot: *j as u32,
                fp: carry,
                evicted,
            });
            if evicted == 0 {
                return (t == after).then_some(path);
            }
            carry = evicted;
            bucket = f.view().other_bucket(bucket, carry);
        }
    }
    None
}

/// The cuckoo diagram's table: keys `item-0`, `item-1`, … inserted in order into [`CUCKOO`]
/// (xxh3 with seed `seed`, the first seed that gives such an insert) until one insert kicks
/// along a path the diagram can show: two different buckets, a fingerprint not stored yet, two
/// or three evictions, each slot changed once. Returns the filter before that insert, the key
/// count before it, the path and the seed.
pub(crate) fn cuckoo_story() -> (CuckooFilter, u64, Vec<Step>, u64) {
    let (m, fbits, b) = CUCKOO;
    // The bound keeps a regression from looping (a few seeds suffice).
    for seed in 0..1_000 {
        let mut f = CuckooFilter::with_layout_and(m, fbits, b, Xxh3::with_seed(seed))
            .expect("valid layout");
        for i in 0.. {
            let key = format!("item-{i}");
            let before = f.clone();
            let kicks = f.kicks();
            if f.try_insert(key.as_bytes()).is_err() {
                break; // full: try the next seed
            }
            if f.kicks() == kicks {
                continue;
            }
            let (i1, fp) = f.view().bucket_and_fingerprint(key.as_bytes());
            let starts = [i1, f.view().other_bucket(i1, fp)];
            let fresh = !slots(&before).iter().flatten().any(|&v| v == fp);
            if let Some(p) = kick_path(&f, &slots(&before), &slots(&f), fp, starts)
                && (3..=4).contains(&p.len())
                && starts[0] != starts[1]
                && fresh
            {
                return (before, i, p, seed);
            }
        }
    }
    unreachable!("no seed below 1,000 gives such an insert")
}

/// (e) Cuckoo buckets: a fingerprint, its two candidate buckets, the kick path.
pub(super) fn cuckoo() -> String {
    let (before, n, path, seed) = cuckoo_story();
    let key = format!("item-{n}");
    let mut after = before.clone();
    after.insert(key.as_bytes());
    let (i1, fp) = after.view().bucket_and_fingerprint(key.as_bytes());
    let i2 = after.view().other_bucket(i1, fp);
    let (m, _, b) = CUCKOO;
    let mut s = Svg::default();
    s.text(
        20.0,
        30.0,
        Font::new(18).bold(),
        &format!("A cuckoo filter: {m} buckets of b = {b} slots, 8-bit fingerprints (hex)"),
    );
    s.raw(&format!(
        r#"<desc data-seed="{seed}" data-inserted="{n}">xxh3 seed {seed}</desc>"#
    ));
    s.text(20.0, 52.0, Font::new(14).fill(MUTED), &format!(
        "item-0 … item-{} inserted; then “{key}”: fingerprint {fp:02x}, buckets i1 = {i1} and i2 = {i2}, both full: a kick",
        n - 1
    ));
    let (x0, cw, ch, gap) = (30.0, 26.0, 32.0, 12.0);
    let bx = |bucket: u64| x0 + bucket as f64 * (f64::from(b) * cw + gap);
    let cx = |bucket: u64, j: u32| bx(bucket) + (f64::from(j) + 0.5) * cw;
    let table = |s: &mut Svg, f: &CuckooFilter, top: f64, name: &str, label: &str| {
        s.text(x0, top - 34.0, Font::new(15).bold(), label);
        for i in 0..m {
            let mark = if i == i1 {
                " = i1"
            } else if i == i2 {
                " = i2"
            } else {
                ""
            };
            let head = format!("bucket {i}{mark}");
            let font = if mark.is_empty() {
                Font::new(12).fill(MUTED)
            } else {
                Font::new(13).bold().fill(GREEN)
            };
            s.text(
                bx(i) + f64::from(b) * cw / 2.0,
                top - 8.0,
                font.middle(),
                &head,
            );
            if !mark.is_empty() {
                s.rect(
                    (bx(i) - 3.0, top - 3.0, f64::from(b) * cw + 6.0, ch + 6.0),
                    "none",
                    GREEN,
                    r#"stroke-dasharray="5 3""#,
                );
            }
            for j in 0..b {
                let v = f.view().slot(i, j);
                let step = path.iter().position(|p| p.bucket == i && p.slot == j);
                let fill = match step {
                    Some(0) if name == "after" => VERMILLION,
                    Some(_) if name == "after" => BLUE,
                    _ => "#ffffff",
                };
                let extra = format!(
                    r#"data-table="{name}" data-bucket="{i}" data-slot="{j}" data-fp="{v}""#
                );
                s.rect((bx(i) + f64::from(j) * cw, top, cw, ch), fill, GRID, &extra);
                let ink = if fill == "#ffffff" { INK } else { "#ffffff" };
                let t = if v == 0 {
                    "·".to_string()
                } else {
                    format!("{v:02x}")
                };
                s.text(
                    cx(i, j),
                    top + 21.0,
                    Font::new(13).middle().mono().fill(ink),
                    &t,
                );
            }
        }
    };
    let top1 = 110.0;
    table(
        &mut s,
        &before,
        top1,
        "before",
        &format!("before inserting {key}"),
    );
    let top2 = top1 + ch + 100.0;
    table(
        &mut s,
        &after,
        top2,
        "after",
        &format!(
            "after: {} evictions, each evicted fingerprint moved to its other bucket",
            path.len() - 1
        ),
    );
    // The path: from each written slot to where its evicted fingerprint went.
    let below = top2 + ch;
    for (k, w) in path.windows(2).enumerate() {
        let (a, z) = (
            (cx(w[0].bucket, w[0].slot), below + 2.0),
            (cx(w[1].bucket, w[1].slot), below + 4.0),
        );
        let bulge = (((a.0 + z.0) / 2.0), below + 60.0 + 14.0 * k as f64);
        s.arrow(
            a,
            bulge,
            z,
            BLUE,
            &format!(r#"data-move="{k}" data-fp="{}""#, w[1].fp),
        );
    }
    let mut y = below + 96.0;
    for (k, st) in path.iter().enumerate() {
        let what = if k == 0 {
            format!("{key}'s fingerprint {:02x}", st.fp)
        } else {
            format!("evicted {:02x}", st.fp)
        };
        let then = if st.evicted == 0 {
            "a free slot: done".to_string()
        } else {
            format!("evicts {:02x}", st.evicted)
        };
        let extra = format!(
            r#"data-step="{k}" data-bucket="{}" data-slot="{}" data-fp="{}" data-evicted="{}""#,
            st.bucket, st.slot, st.fp, st.evicted
        );
        let colour = if k == 0 { VERMILLION } else { BLUE };
        s.text_attr(
            x0,
            y,
            Font::new(14).fill(colour),
            &format!(
                "{}. {what} → bucket {}, slot {}: {then}",
                k + 1,
                st.bucket,
                st.slot
            ),
            &extra,
        );
        y += 21.0;
    }
    y += 4.0;
    s.text(x0, y, Font::new(14).fill(MUTED), "The other bucket comes from the bucket and the fingerprint alone: i' = (c(fp) − i) mod m, so an entry can move without its key.");
    s.finish(
        960,
        (y + 22.0) as u32,
        "Cuckoo filter buckets and a kick path",
    )
}

/// Keys of the xor, binary fuse and ribbon diagrams; the first is the one drawn; [`ABSENT`] is queried.
pub(super) const FRUIT: [&str; 8] = [
    "apple",
    "banana",
    "cherry",
    "date",
    "elderberry",
    "fig",
    "grape",
    "honeydew",
];
/// A key not in the set.
pub(super) const ABSENT: &str = "kiwi";

/// Fingerprint slot `i` of a table.
fn cell(t: &Table, i: u32) -> u64 {
    match t {
        Table::F8(v) => u64::from(v[i as usize]),
        Table::F16(v) => u64::from(v[i as usize]),
    }
}

/// A table drawn as one row per segment of `l` slots, `key`'s slots filled, `absent`'s
/// outlined, and the xor equation of each.
fn segments(
    s: &mut Svg,
    t: &Table,
    l: u32,
    top: f64,
    key: (&str, &[u32], u64),
    absent: (&str, &[u32], u64),
) -> f64 {
    let rows = (t.slots() as u32).div_ceil(l);
    let cw = (760.0 / f64::from(l)).min(48.0);
    let (x0, ch, gap) = (150.0, 30.0, 18.0);
    let pos = |i: u32| {
        (
            x0 + f64::from(i % l) * cw,
            top + f64::from(i / l) * (ch + gap),
        )
    };
    for r in 0..rows {
        let (_, y) = pos(r * l);
        s.text(
            x0 - 10.0,
            y + 20.0,
            Font::new(13).end().fill(MUTED),
            &format!("segment {r}: {}–{}", r * l, r * l + l - 1),
        );
    }
    for i in 0..t.slots() as u32 {
        let (x, y) = pos(i);
        let v = cell(t, i);
        let mine = key.1.contains(&i);
        let extra = format!(r#"data-slot="{i}" data-fp="{v}""#);
        s.rect(
            (x, y, cw, ch),
            if mine { VERMILLION } else { "#ffffff" },
            GRID,
            &extra,
        );
        if absent.1.contains(&i) {
            s.rect(
                (x + 2.5, y + 2.5, cw - 5.0, ch - 5.0),
                "none",
                GREEN,
                r#"stroke-width="3""#,
            );
        }
        let ink = if mine { "#ffffff" } else { INK };
        s.text(
            x + cw / 2.0,
            y + 20.0,
            Font::new(13).middle().mono().fill(ink),
            &format!("{v:02x}"),
        );
    }
    let mut y = top + f64::from(rows) * (ch + gap) + 16.0;
    for ((name, slots, fp), colour) in [(key, VERMILLION), (absent, GREEN)] {
        let vals: Vec<u64> = slots.iter().map(|&i| cell(t, i)).collect();
        let x = vals.iter().fold(0, |a, v| a ^ v);
        let terms: Vec<String> = slots.iter().map(|i| format!("T[{i}]")).collect();
        let hexes: Vec<String> = vals.iter().map(|v| format!("{v:02x}")).collect();
        let verdict = match (x == fp, name == key.0) {
            (true, true) => "= fingerprint: in the set",
            (false, _) => "≠ fingerprint: certainly absent",
            (true, false) => "= fingerprint by chance (2^−f): a false positive",
        };
        let extra = format!(
            r#"data-key="{name}" data-slots="{}" data-fingerprint="{fp}" data-xor="{x}""#,
            slots
                .iter()
                .map(u32::to_string)
                .collect::<Vec<_>>()
                .join(" ")
        );
        s.text_attr(
            x0,
            y,
            Font::new(14).bold().fill(colour),
            &format!("{name}: fingerprint {fp:02x}"),
            &extra,
        );
        y += 21.0;
        s.text(
            x0,
            y,
            Font::new(14).mono().fill(colour),
            &format!(
                "{} = {} = {x:02x} {verdict}",
                terms.join(" ⊕ "),
                hexes.join(" ⊕ ")
            ),
        );
        y += 28.0;
    }
    y
}

/// (g) An xor filter's three segments and one key's three slots.
pub(super) fn xor() -> String {
    let f = XorFilter::from_keys(FRUIT, 8).expect("eight keys peel");
    let (slots, fp) = f.view().slots_and_fingerprint(FRUIT[0].as_bytes());
    let (aslots, afp) = f.view().slots_and_fingerprint(ABSENT.as_bytes());
    let l = f.segment_length();
    let mut s = Svg::default();
    s.heading(
        &format!(
            "An xor filter of {} keys: 3 segments of L = {l} slots, 8-bit fingerprints (hex)",
            FRUIT.len()
        ),
        "each key hashes to one slot per segment; construction chose the slots' values so that their XOR is the key's fingerprint",
    );
    let y = segments(
        &mut s,
        f.table(),
        l,
        80.0,
        (FRUIT[0], &slots, fp),
        (ABSENT, &aslots, afp),
    );
    s.text(
        150.0,
        y,
        Font::new(14).fill(MUTED),
        &format!("keys: {}", FRUIT.join(", ")),
    );
    s.text(
        150.0,
        y + 20.0,
        Font::new(14).fill(MUTED),
        &format!(
            "{} slots = 1.23·n + 32 rounded up: at n = 8 most are 0",
            f.table().slots()
        ),
    );
    s.finish(
        960,
        (y + 42.0) as u32,
        "The three segments of an xor filter",
    )
}

/// The binary fuse diagram's keys: enough for a table of several segments.
fn fuse_keys() -> Vec<String> {
    FRUIT
        .iter()
        .map(|s| (*s).to_string())
        .chain((0..32).map(|i| format!("key-{i}")))
        .collect()
}

/// (g′) A binary fuse filter's segments and one key's three slots in consecutive segments.
pub(super) fn binary_fuse() -> String {
    let keys = fuse_keys();
    let f = BinaryFuseFilter::from_keys(&keys, 8).expect("forty keys peel");
    let (slots, fp) = f.view().slots_and_fingerprint(FRUIT[0].as_bytes());
    let (aslots, afp) = f.view().slots_and_fingerprint(ABSENT.as_bytes());
    let l = f.segment_length();
    let mut s = Svg::default();
    s.heading(&format!(
            "A binary fuse filter of {} keys: {} slots in segments of L = {l}",
            keys.len(),
            f.table().slots()
        ), "a key's three slots lie in three consecutive segments (a window), so construction and queries stay local");
    let y = segments(
        &mut s,
        f.table(),
        l,
        80.0,
        (FRUIT[0], &slots, fp),
        (ABSENT, &aslots, afp),
    );
    s.text(
        150.0,
        y,
        Font::new(14).fill(MUTED),
        &format!(
            "keys: apple, banana, … honeydew and key-0 … key-31 ({} bits per key)",
            f.bits() / keys.len() as u64
        ),
    );
    s.finish(
        960,
        (y + 22.0) as u32,
        "The segments of a binary fuse filter",
    )
}
