//! The ribbon filter: a key's 64-row window of the solution, its coefficient bits, and the XOR
//! of the rows they pick against its fingerprint.

use super::fingerprint::FRUIT;
use super::{BLUE, Font, GREEN, GREY, GRID, INK, MUTED, Svg, VERMILLION};
use crate::Filter;
use crate::filters::RibbonFilter;
use crate::filters::ribbon::WIDTH;

/// Keys not in the set; the first the filter rejects is drawn (at r = 4 one in 16 absent keys
/// is a false positive: "kiwi", the xor diagrams' absent key, is one here).
const ABSENT: [&str; 4] = ["kiwi", "lemon", "mango", "nectarine"];

/// Result bits of the drawn filter: few enough to read each row.
const R: u32 = 4;

/// Left edge and cell width of a 64-row window (64 × 11.5 = 736 px).
const X0: f64 = 150.0;
const CW: f64 = 11.5;

/// `v` as `r` binary digits, bit `r − 1` first.
fn bin(v: u32, r: u32) -> String {
    (0..r)
        .rev()
        .map(|j| if v >> j & 1 == 1 { '1' } else { '0' })
        .collect()
}

/// The whole solution as a strip of rows, each key's window marked.
fn strip(s: &mut Svg, f: &RibbonFilter, top: f64, windows: &[(u64, &'static str)]) -> f64 {
    let m = f.slots();
    let w = 736.0 / m as f64;
    s.text(
        X0 - 10.0,
        top + 14.0,
        Font::new(13).end().fill(MUTED),
        &format!("rows 0–{}", m - 1),
    );
    for i in 0..m {
        let x = X0 + i as f64 * w;
        let fill = if f.view().row(i) == 0 {
            "#ffffff"
        } else {
            GREY
        };
        s.rect((x, top, w, 18.0), fill, GRID, r#"stroke-width="0.4""#);
    }
    for (k, (start, colour)) in windows.iter().enumerate() {
        let y = top + 22.0 + 8.0 * k as f64;
        s.rect(
            (X0 + *start as f64 * w, y, f64::from(WIDTH) * w, 5.0),
            colour,
            colour,
            "",
        );
    }
    top + 22.0 + 8.0 * windows.len() as f64 + 12.0
}

/// One key's window: the coefficient bits above the rows `s .. s+64`, each row's `r` bits,
/// the picked rows framed, and the equation. Returns the next free y.
fn window(
    s: &mut Svg,
    f: &RibbonFilter,
    top: f64,
    (key, member): (&str, bool),
    colour: &'static str,
) -> f64 {
    let (start, c, fp) = f.view().equation_of(key.as_bytes());
    let r = f.result_bits();
    let picked: Vec<u64> = (0..u64::from(WIDTH)).filter(|t| c >> t & 1 == 1).collect();
    let x = picked.iter().fold(0, |a, &t| a ^ f.view().row(start + t));
    s.text(
        X0 - 10.0,
        top + 14.0,
        Font::new(13).end().fill(colour),
        &format!("{key}: c"),
    );
    for t in 0..u64::from(WIDTH) {
        let cx = X0 + t as f64 * CW;
        let on = c >> t & 1 == 1;
        s.rect(
            (cx, top, CW, 18.0),
            if on { colour } else { "#ffffff" },
            GRID,
            &format!(r#"data-coeff="{}" data-t="{t}""#, u8::from(on)),
        );
    }
    let rows_top = top + 24.0;
    for j in (0..r).rev() {
        let y = rows_top + f64::from(r - 1 - j) * 16.0;
        s.text(
            X0 - 10.0,
            y + 12.0,
            Font::new(13).end().fill(MUTED),
            &format!("bit {j}"),
        );
        for t in 0..u64::from(WIDTH) {
            let on = f.view().row(start + t) >> j & 1 == 1;
            let extra = if j == 0 {
                format!(
                    r#"data-row="{}" data-value="{}""#,
                    start + t,
                    f.view().row(start + t)
                )
            } else {
                String::new()
            };
            s.rect(
                (X0 + t as f64 * CW, y, CW, 16.0),
                if on { BLUE } else { "#ffffff" },
                GRID,
                &extra,
            );
        }
    }
    let bottom = rows_top + f64::from(r) * 16.0;
    for &t in &picked {
        s.rect(
            (
                X0 + t as f64 * CW + 1.0,
                rows_top - 1.0,
                CW - 2.0,
                bottom - rows_top + 2.0,
            ),
            "none",
            colour,
            r#"stroke-width="2""#,
        );
    }
    let verdict = match (x == fp, member) {
        (true, true) => "= fingerprint: in the set",
        (false, _) => "≠ fingerprint: certainly absent",
        (true, false) => "= fingerprint by chance (2^−r): a false positive",
    };
    let extra = format!(
        r#"data-key="{key}" data-start="{start}" data-coefficients="{c}" data-fingerprint="{fp}" data-xor="{x}""#
    );
    let y = bottom + 22.0;
    s.text_attr(
        X0,
        y,
        Font::new(14).bold().fill(colour),
        &format!(
            "{key}: start row s = {start}, fingerprint {} ({} of the 64 coefficient bits set)",
            bin(fp, r),
            picked.len()
        ),
        &extra,
    );
    s.text(
        X0,
        y + 21.0,
        Font::new(14).mono().fill(colour),
        &format!("XOR of rows s+t where c_t = 1 = {} {verdict}", bin(x, r)),
    );
    y + 44.0
}

/// (h) A ribbon filter of eight keys: the solution's rows, one key's window and equation.
pub(super) fn ribbon() -> String {
    let f = RibbonFilter::from_keys(FRUIT, R).expect("eight keys solve");
    let mut s = Svg::default();
    s.heading(
        &format!(
            "A ribbon filter of {} keys: {} rows of r = {R} result bits, windows of w = {WIDTH} rows",
            FRUIT.len(),
            f.slots()
        ),
        "a key XORs the rows its coefficient bits pick in its 64-row window; construction made that XOR its fingerprint",
    );
    let absent = ABSENT
        .into_iter()
        .find(|k| !f.contains(k.as_bytes()))
        .unwrap_or(ABSENT[0]);
    let (a, _, _) = f.view().equation_of(FRUIT[0].as_bytes());
    let (k, _, _) = f.view().equation_of(absent.as_bytes());
    let y = strip(&mut s, &f, 76.0, &[(a, VERMILLION), (k, GREEN)]);
    let y = window(&mut s, &f, y + 8.0, (FRUIT[0], true), VERMILLION);
    let y = window(&mut s, &f, y + 6.0, (absent, false), GREEN);
    s.text(
        X0,
        y,
        Font::new(14).fill(MUTED),
        &format!("keys: {}", FRUIT.join(", ")),
    );
    s.text(
        X0,
        y + 20.0,
        Font::new(14).fill(INK),
        &format!(
            "grey: rows holding a non-zero value; every window overlaps its neighbours: the ribbon ({} bits per key)",
            f.slots() * u64::from(R) / FRUIT.len() as u64
        ),
    );
    s.finish(
        960,
        (y + 42.0) as u32,
        "The rows of a ribbon filter and one key's window",
    )
}
