//! The bit-array family: standard, blocked, split-block, counting and scalable filters.

use super::{BLUE, Font, GREEN, GREY, GRID, INK, MUTED, ORANGE, Svg, VERMILLION, pct, thousands};
use crate::filters::{BlockedBloom, CountingBloom, ScalableBloom, SplitBlockBloom};
use crate::hash::{DoubleHashing, Murmur3};
use crate::walkthrough::{self, K, M, SEED};
use crate::{Filter, Removable};

/// Words of the standard and counting diagrams, in order, with their colours.
const WORDS: [(&str, &str); 3] = [("apple", VERMILLION), ("banana", BLUE), ("grape", ORANGE)];
/// The query of the standard diagram.
const QUERY: &str = "cherry";

/// Positions as "2, 7, 11".
fn list(p: &[u64]) -> String {
    p.iter().map(u64::to_string).collect::<Vec<_>>().join(", ")
}

/// Bit indices above a row of `n` cells of width `cw` from `x0`, every `every` cells.
fn indices(s: &mut Svg, x0: f64, y: f64, cw: f64, n: u64, every: u64) {
    for i in (0..n).step_by(every as usize) {
        let x = x0 + (i as f64 + 0.5) * cw;
        s.text(x, y, Font::new(13).middle().fill(MUTED), &i.to_string());
    }
}

/// One row of probe markers: `word`'s positions under a row of cells, numbered by probe.
fn markers(
    s: &mut Svg,
    (x0, cw): (f64, f64),
    (top, y): (f64, f64),
    word: &str,
    colour: &'static str,
    pos: &[u64],
    hollow: bool,
) {
    s.text(
        x0 - 14.0,
        y + 5.0,
        Font::new(15).end().bold().fill(colour),
        word,
    );
    for &p in pos {
        let x = x0 + (p as f64 + 0.5) * cw;
        s.line((x, top), (x, y - 11.0), colour, 1.5, true);
    }
    for (j, &p) in pos.iter().enumerate() {
        let x = x0 + (p as f64 + 0.5) * cw;
        let extra = format!(r#"data-word="{word}" data-bit="{p}" data-probe="{j}""#);
        let (fill, text) = if hollow {
            ("#ffffff", colour)
        } else {
            (colour, "#ffffff")
        };
        s.circle((x, y), 11.0, fill, colour, &extra);
        let probe = format!("h{}", j + 1);
        s.text(x, y + 4.5, Font::new(12).middle().bold().fill(text), &probe);
    }
}

/// (a) The walkthrough's filter: m = 16, k = 3, apple and banana inserted, cherry queried.
pub(super) fn standard() -> String {
    let mut f = walkthrough::filter(SEED);
    let words = &WORDS[..2];
    for (w, _) in words {
        f.insert(w.as_bytes());
    }
    let mut s = Svg::default();
    let (x0, cw, top, ch) = (110.0, 50.0, 84.0, 50.0);
    s.heading(&format!("A Bloom filter of m = {M} bits and k = {K} hash functions"), &format!(
        "murmur3 seed {SEED}, position i = ⌊(h1 + i·h2)·m / 2^64⌋: the walkthrough's real positions"
    ));
    indices(&mut s, x0, top - 8.0, cw, M, 1);
    let pos: Vec<Vec<u64>> = words
        .iter()
        .map(|(w, _)| f.positions(w.as_bytes()))
        .collect();
    for i in 0..M {
        let x = x0 + i as f64 * cw;
        let by: Vec<&str> = words
            .iter()
            .zip(&pos)
            .filter(|(_, p)| p.contains(&i))
            .map(|((_, c), _)| *c)
            .collect();
        let bit = f.bit_vec().get(i);
        let extra = format!(r#"data-cell="{i}" data-value="{}""#, u8::from(bit));
        match by.as_slice() {
            [] => s.rect((x, top, cw, ch), "#ffffff", GRID, &extra),
            [c] => s.rect((x, top, cw, ch), c, INK, &extra),
            [a, b, ..] => {
                s.rect((x, top, cw, ch / 2.0), a, "none", "");
                s.rect((x, top + ch / 2.0, cw, ch / 2.0), b, "none", "");
                s.rect((x, top, cw, ch), "none", INK, &extra);
            }
        }
        let ink = if bit { "#ffffff" } else { INK };
        s.text(
            x + cw / 2.0,
            top + 33.0,
            Font::new(20).middle().bold().fill(ink),
            if bit { "1" } else { "0" },
        );
    }
    let q = f.positions(QUERY.as_bytes());
    let rows: Vec<(&str, &str, &[u64], bool)> = words
        .iter()
        .zip(&pos)
        .map(|((w, c), p)| (*w, *c, p.as_slice(), false))
        .chain(std::iter::once((QUERY, GREEN, q.as_slice(), true)))
        .collect();
    let mut y = top + ch + 40.0;
    for (w, c, p, hollow) in &rows {
        markers(&mut s, (x0, cw), (top + ch, y), w, c, p, *hollow);
        y += 46.0;
    }
    y += 6.0;
    let mut seen: Vec<u64> = Vec::new();
    for (w, c, p, _) in &rows[..2] {
        let shared: Vec<u64> = p.iter().copied().filter(|b| seen.contains(b)).collect();
        let note = if shared.is_empty() {
            String::new()
        } else {
            format!(" (bit {} was already 1: a collision)", list(&shared))
        };
        s.text(
            x0,
            y,
            Font::new(14).fill(c),
            &format!("insert {w}: bits {} set to 1{note}", list(p)),
        );
        seen.extend_from_slice(p);
        y += 22.0;
    }
    let answer = if f.contains_item(QUERY.as_bytes()) {
        "all are 1, so “maybe present”; it was never inserted: a false positive".to_string()
    } else {
        let zeros: Vec<u64> = q.iter().copied().filter(|&b| !f.bit_vec().get(b)).collect();
        format!("bit {} is 0, so cherry is certainly absent", list(&zeros))
    };
    s.text(
        x0,
        y,
        Font::new(14).fill(GREEN),
        &format!("query {QUERY}: bits {}: {answer}", list(&q)),
    );
    s.finish(
        960,
        (y + 24.0) as u32,
        "A 16-bit Bloom filter with apple and banana inserted",
    )
}

/// Cells of a 512-bit block (or eight 32-bit words) with the item's bits coloured.
struct Grid<'a> {
    rows: usize,
    cols: usize,
    cw: f64,
    ch: f64,
    x0: f64,
    top: f64,
    /// Row labels.
    labels: &'a [String],
}

impl Grid<'_> {
    /// Draw: `set(r, c)` the bit, `mine(r, c)` whether the item sets it, `before(r, c)` whether
    /// it was set before the item.
    fn draw(
        &self,
        s: &mut Svg,
        set: impl Fn(usize, usize) -> bool,
        mine: impl Fn(usize, usize) -> bool,
        before: impl Fn(usize, usize) -> bool,
    ) {
        for r in 0..self.rows {
            let y = self.top + r as f64 * self.ch;
            s.text(
                self.x0 - 10.0,
                y + self.ch / 2.0 + 5.0,
                Font::new(13).end().fill(MUTED),
                &self.labels[r],
            );
            for c in 0..self.cols {
                let x = self.x0 + c as f64 * self.cw;
                let bit = r * self.cols + c;
                if mine(r, c) {
                    let extra = format!(r#"data-item-bit="{bit}""#);
                    let w = if before(r, c) { INK } else { VERMILLION };
                    s.rect((x, y, self.cw, self.ch), VERMILLION, w, &extra);
                    if before(r, c) {
                        s.rect(
                            (x + 2.0, y + 2.0, self.cw - 4.0, self.ch - 4.0),
                            "none",
                            "#ffffff",
                            "",
                        );
                    }
                } else if set(r, c) {
                    s.rect(
                        (x, y, self.cw, self.ch),
                        GREY,
                        "#ffffff",
                        &format!(r#"data-set-bit="{bit}""#),
                    );
                } else {
                    s.rect((x, y, self.cw, self.ch), "#ffffff", "#dddddd", "");
                }
            }
        }
    }
}

/// A legend entry: a swatch and its text.
fn swatch(s: &mut Svg, x: f64, y: f64, fill: &str, text: &str) -> f64 {
    s.rect((x, y - 12.0, 16.0, 16.0), fill, GRID, "");
    s.text(x + 22.0, y + 1.0, Font::new(13), text);
    x + 30.0 + 7.2 * text.chars().count() as f64
}

/// Keys inserted before the item in the blocked and split-block diagrams.
const OTHERS: u64 = 250;
/// The item whose bits are drawn.
const ITEM: &str = "apple";

/// (b) One 512-bit block of a blocked filter and the k bits one item sets.
pub(super) fn blocked() -> String {
    let mut base = BlockedBloom::with_rate(1000, 0.01).expect("valid parameters");
    for i in 0..OTHERS {
        base.insert(format!("key-{i}").as_bytes());
    }
    let mut f = base.clone();
    f.insert(ITEM.as_bytes());
    let (b, mask) = f.block_and_mask(ITEM.as_bytes());
    let (old, new) = (base.block_slice()[b].0, f.block_slice()[b].0);
    let bits: Vec<u64> = (0..512u64)
        .filter(|&i| mask[(i / 64) as usize] >> (i % 64) & 1 == 1)
        .collect();
    let mut s = Svg::default();
    s.heading(&format!(
            "Blocked filter: block {b} of {}: 512 bits, one 64-byte cache line",
            f.blocks()
        ), &format!(
        "{} bits, k = {}, {OTHERS} keys inserted, then “{ITEM}”: all its k bits fall in this one block",
        thousands(f.bits()),
        f.k()
    ));
    let labels: Vec<String> = (0..8)
        .map(|r| format!("{}–{}", r * 64, r * 64 + 63))
        .collect();
    let g = Grid {
        rows: 8,
        cols: 64,
        cw: 13.0,
        ch: 22.0,
        x0: 100.0,
        top: 90.0,
        labels: &labels,
    };
    indices(&mut s, g.x0, g.top - 8.0, g.cw, 64, 8);
    let at = |w: [u64; 8]| move |r: usize, c: usize| w[r] >> c & 1 == 1;
    g.draw(&mut s, at(new), at(mask), at(old));
    let mut y = g.top + 8.0 * g.ch + 32.0;
    let mut x = 100.0;
    x = swatch(
        &mut s,
        x,
        y,
        VERMILLION,
        &format!("the {} bits {ITEM} sets", f.k()),
    );
    x = swatch(
        &mut s,
        x,
        y,
        GREY,
        &format!("set by the {OTHERS} other keys"),
    );
    swatch(&mut s, x, y, "#ffffff", "0");
    y += 28.0;
    let again = bits
        .iter()
        .filter(|&&i| old[(i / 64) as usize] >> (i % 64) & 1 == 1)
        .count();
    s.text(
        100.0,
        y,
        Font::new(14),
        &format!("{ITEM}: block {b}, bits {}", list(&bits)),
    );
    y += 22.0;
    let note = if again == 0 {
        "none was set before".to_string()
    } else {
        format!("{again} of them already set by other keys (white inner frame)")
    };
    s.text(
        100.0,
        y,
        Font::new(14).fill(MUTED),
        &format!("A query reads this block alone: one cache miss, not k; {note}."),
    );
    s.finish(
        960,
        (y + 22.0) as u32,
        "A 512-bit block of a blocked Bloom filter",
    )
}

/// (c) A split block's eight 32-bit words, one bit in each set by an item.
pub(super) fn split_block() -> String {
    use crate::filters::split_block::{SALT, mask};
    let mut base = SplitBlockBloom::with_rate(1000, 0.01).expect("valid parameters");
    for i in 0..OTHERS {
        base.insert(format!("key-{i}").as_bytes());
    }
    let mut f = base.clone();
    f.insert(ITEM.as_bytes());
    let h = f.hash(ITEM.as_bytes());
    let b = f.block_index(h);
    let m = mask(h as u32);
    let (old, new) = (base.block_slice()[b].0, f.block_slice()[b].0);
    let mut s = Svg::default();
    s.heading(&format!(
            "Split block filter (Parquet): block {b} of {}, eight 32-bit words",
            f.blocks()
        ), &format!(
        "{OTHERS} keys inserted, then “{ITEM}”: exactly one bit in each word, bit = (low32(h) · salt) >> 27"
    ));
    let labels: Vec<String> = (0..8).map(|w| format!("word {w}")).collect();
    let g = Grid {
        rows: 8,
        cols: 32,
        cw: 22.0,
        ch: 24.0,
        x0: 90.0,
        top: 90.0,
        labels: &labels,
    };
    indices(&mut s, g.x0, g.top - 8.0, g.cw, 32, 4);
    let at = |w: [u32; 8]| move |r: usize, c: usize| w[r] >> c & 1 == 1;
    g.draw(&mut s, at(new), at(m), at(old));
    let right = g.x0 + 32.0 * g.cw + 12.0;
    for (w, (salt, bits)) in SALT.iter().zip(m).enumerate() {
        let y = g.top + w as f64 * g.ch + g.ch / 2.0 + 5.0;
        let text = format!("bit {:>2}  salt {salt:#010x}", bits.trailing_zeros());
        s.text_attr(
            right,
            y,
            Font::new(12).mono(),
            &text,
            &format!(r#"data-word="{w}" data-bit="{}""#, bits.trailing_zeros()),
        );
    }
    let mut y = g.top + 8.0 * g.ch + 32.0;
    let mut x = 90.0;
    x = swatch(&mut s, x, y, VERMILLION, &format!("the 8 bits {ITEM} sets"));
    x = swatch(
        &mut s,
        x,
        y,
        GREY,
        &format!("set by the {OTHERS} other keys"),
    );
    swatch(&mut s, x, y, "#ffffff", "0");
    y += 28.0;
    s.text(
        90.0,
        y,
        Font::new(14),
        &format!(
            "h = xxh64({ITEM}) = {h:#018x}; block = ((h >> 32) · {}) >> 32 = {b}",
            f.blocks()
        ),
    );
    y += 22.0;
    s.text(
        90.0,
        y,
        Font::new(14).fill(MUTED),
        "A query checks one 256-bit block: eight words, one bit each (one AVX2 register).",
    );
    s.finish(980, (y + 22.0) as u32, "The eight words of a split block")
}

/// (d) Counting filter: 4-bit counters after three inserts and after one delete.
pub(super) fn counting() -> String {
    let mut f = CountingBloom::with_counters_and(M, K, Murmur3::with_seed(SEED), DoubleHashing)
        .expect("16 counters and k = 3 are valid");
    for (w, _) in WORDS {
        f.insert(w.as_bytes());
    }
    let before: Vec<u8> = (0..M).map(|i| f.counter(i)).collect();
    let (gone, gone_colour) = WORDS[1];
    f.remove(gone.as_bytes()).expect("banana was inserted");
    let after: Vec<u8> = (0..M).map(|i| f.counter(i)).collect();
    let mut s = Svg::default();
    let (x0, cw, ch) = (110.0, 50.0, 56.0);
    s.heading(&format!("A counting Bloom filter: m = {M} four-bit counters, k = {K}"), "insert adds 1 at each of the k positions, remove subtracts 1; a query asks whether all k are above 0");
    let row = |s: &mut Svg, top: f64, v: &[u8], label: &str, changed: &[u64]| {
        s.text(20.0, top - 26.0, Font::new(15).bold(), label);
        indices(s, x0, top - 8.0, cw, M, 1);
        for i in 0..M {
            let x = x0 + i as f64 * cw;
            let c = v[i as usize];
            let fill = if c > 0 { "#dbe9f6" } else { "#ffffff" };
            let stroke = if changed.contains(&i) {
                gone_colour
            } else {
                GRID
            };
            let extra = format!(
                r#"data-row="{}" data-cell="{i}" data-counter="{c}""#,
                if changed.is_empty() {
                    "inserted"
                } else {
                    "removed"
                }
            );
            s.rect((x, top, cw, ch), fill, stroke, &extra);
            if changed.contains(&i) {
                s.rect(
                    (x + 2.0, top + 2.0, cw - 4.0, ch - 4.0),
                    "none",
                    gone_colour,
                    "",
                );
            }
            s.text(
                x + cw / 2.0,
                top + 26.0,
                Font::new(20).middle().bold(),
                &c.to_string(),
            );
            s.text(
                x + cw / 2.0,
                top + 46.0,
                Font::new(12).middle().mono().fill(MUTED),
                &format!("{c:04b}"),
            );
        }
    };
    let top = 110.0;
    row(
        &mut s,
        top,
        &before,
        "after inserting apple, banana and grape",
        &[],
    );
    let mut y = top + ch + 38.0;
    for (w, c) in WORDS {
        markers(
            &mut s,
            (x0, cw),
            (top + ch, y),
            w,
            c,
            &f.positions(w.as_bytes()),
            false,
        );
        y += 44.0;
    }
    let gp = f.positions(gone.as_bytes());
    let top2 = y + 30.0;
    row(
        &mut s,
        top2,
        &after,
        &format!("after removing {gone}: its counters go down by 1"),
        &gp,
    );
    let mut y = top2 + ch + 30.0;
    let still: Vec<u64> = gp
        .iter()
        .copied()
        .filter(|&p| after[p as usize] > 0)
        .collect();
    let note = if still.is_empty() {
        String::new()
    } else {
        format!("; {} still above 0: other words use them", list(&still))
    };
    s.text(
        x0,
        y,
        Font::new(14).fill(gone_colour),
        &format!("remove {gone}: counters {} − 1{note}", list(&gp)),
    );
    y += 22.0;
    s.text(x0, y, Font::new(14).fill(MUTED), "Four bits per counter: 4× the memory of the bit array; a counter stuck at 15 can no longer be decremented.");
    s.finish(
        960,
        (y + 22.0) as u32,
        "Counters of a counting Bloom filter before and after a remove",
    )
}

/// Items inserted into the scalable diagram's filter (its first layer holds [`FIRST`]).
const SCALABLE_ITEMS: u64 = 1400;
/// The scalable diagram's first-layer capacity.
const FIRST: u64 = 100;

/// (f) A scalable filter's layers.
pub(super) fn scalable() -> String {
    let mut f = ScalableBloom::new(FIRST, 0.01).expect("valid parameters");
    for i in 0..SCALABLE_ITEMS {
        f.insert(format!("key-{i}").as_bytes());
    }
    let targets = f.layer_targets();
    let layers: Vec<_> = f.layers().collect();
    let max_bits = layers.iter().map(|l| l.bits()).max().unwrap_or(1) as f64;
    let mut s = Svg::default();
    s.heading(&format!(
            "A scalable Bloom filter after {} inserts: {} layers",
            thousands(SCALABLE_ITEMS),
            layers.len()
        ), &format!(
        "first layer {FIRST} items, growth {}, tightening {}: a full layer is frozen and a larger, stricter one added",
        f.params().growth,
        f.params().tightening
    ));
    let (x0, wmax, bh) = (110.0, 820.0, 34.0);
    let mut y = 80.0;
    let colours = [BLUE, GREEN, ORANGE, VERMILLION, super::PURPLE, super::SKY];
    for (i, (l, &(cap, p))) in layers.iter().zip(&targets).enumerate() {
        let w = (l.bits() as f64 / max_bits * wmax).max(4.0);
        let fill = l.ones() as f64 / l.bits() as f64;
        let c = colours[i % colours.len()];
        s.text(
            x0 - 12.0,
            y + bh / 2.0 + 5.0,
            Font::new(14).end().bold(),
            &format!("layer {}", i + 1),
        );
        let extra = format!(
            r#"data-layer="{i}" data-capacity="{cap}" data-bits="{}" data-k="{}" data-len="{}""#,
            l.bits(),
            l.k(),
            l.len()
        );
        s.rect((x0, y, w, bh), "#ffffff", c, &extra);
        s.rect((x0, y, w * fill, bh), c, "none", "");
        y += bh + 20.0;
        s.text(
            x0,
            y,
            Font::new(13),
            &format!(
                "capacity {}, m = {} bits, k = {}, rate P{} = {}; holds {}, {:.0}% of bits set",
                thousands(cap),
                thousands(l.bits()),
                l.k(),
                i + 1,
                pct(p),
                thousands(l.len()),
                fill * 100.0
            ),
        );
        y += 20.0;
    }
    y += 8.0;
    s.text(x0, y, Font::new(14), &format!(
        "A query asks every layer: rate ≤ P1 + P2 + … < P1 / (1 − r) = {} (Almeida et al. 2007).",
        pct(f.compound_bound())
    ));
    y += 22.0;
    s.text(x0, y, Font::new(14).fill(MUTED), "Bar length: the layer's bits; filled part: the share of its bits set (a layer is full near 50%).");
    s.finish(
        960,
        (y + 22.0) as u32,
        "The layers of a scalable Bloom filter",
    )
}
