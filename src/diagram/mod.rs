//! Diagrams of the structures, drawn from real filters: each one builds a small filter with
//! the library, inserts real items and draws what the filter holds (the bit positions,
//! counters, slots and fingerprints it reports), as a hand-written SVG for the book.
//!
//! Every picture is at most [`MAX_WIDTH`] pixels wide, has an explicit white background (so it
//! reads the same in the book's light and dark themes) and no text smaller than [`MIN_FONT`]
//! pixels. The marks carry `data-…` attributes (`data-word`, `data-bit`, `data-slot`, …) with
//! the numbers they show, which is what the tests compare with the filters.
//!
//! `bloomlab diagram NAME --out F.svg` writes one; `bloomlab diagram --all --out-dir DIR`
//! writes every one (the book's are in `book/src/figures/diagrams/`).

mod bloom;
mod fingerprint;
mod quotient;
mod ribbon;

use crate::error::{Error, Param, Result};
use std::fmt::Write as _;

/// The widest a diagram is, in pixels.
pub const MAX_WIDTH: u32 = 1000;
/// The smallest text in a diagram, in pixels.
pub const MIN_FONT: u32 = 12;

/// The diagrams: name and what it shows.
pub const DIAGRAMS: &[(&str, &str)] = &[
    (
        "standard",
        "the walkthrough's 16-bit filter (k = 3): apple and banana inserted, cherry queried",
    ),
    (
        "blocked",
        "one 512-bit block of a blocked filter and the k bits one item sets in it",
    ),
    (
        "split-block",
        "a split block's eight 32-bit words, one bit per word set by an item",
    ),
    (
        "counting",
        "4-bit counters after three inserts, and after one delete",
    ),
    (
        "cuckoo",
        "cuckoo buckets (b = 4): a fingerprint, its two buckets and the kick path of an insert",
    ),
    (
        "scalable",
        "the layers of a scalable filter: capacity, bits, k and rate of each",
    ),
    (
        "xor",
        "an xor filter's three segments and the three slots one key maps to",
    ),
    (
        "binary-fuse",
        "a binary fuse filter's segments and the three slots one key maps to",
    ),
    (
        "quotient",
        "a quotient filter's slots: runs, clusters and the three metadata bits",
    ),
    (
        "ribbon",
        "a ribbon filter's rows: one key's 64-row window, its coefficient bits and the XOR of the rows they pick",
    ),
];

/// The diagram called `name`, as SVG text.
///
/// # Errors
/// [`Error::InvalidParameter`] for an unknown name (the message lists the names).
pub fn render(name: &str) -> Result<String> {
    match name {
        "standard" => Ok(bloom::standard()),
        "blocked" => Ok(bloom::blocked()),
        "split-block" => Ok(bloom::split_block()),
        "counting" => Ok(bloom::counting()),
        "scalable" => Ok(bloom::scalable()),
        "cuckoo" => Ok(fingerprint::cuckoo()),
        "xor" => Ok(fingerprint::xor()),
        "binary-fuse" => Ok(fingerprint::binary_fuse()),
        "quotient" => Ok(quotient::quotient()),
        "ribbon" => Ok(ribbon::ribbon()),
        _ => Err(Error::invalid(
            Param::Other("diagram"),
            format!("'{name}'"),
            format!("one of {} (bloomlab diagram --list)", names().join(", ")),
        )),
    }
}

/// The names, in order.
#[must_use]
pub fn names() -> Vec<&'static str> {
    DIAGRAMS.iter().map(|(n, _)| *n).collect()
}

// ---------------------------------------------------------------------------------------------
// Drawing
// ---------------------------------------------------------------------------------------------

/// Colours that stay apart for colour-blind readers (Okabe & Ito 2008) on white.
pub(crate) const VERMILLION: &str = "#d55e00";
pub(crate) const BLUE: &str = "#0072b2";
pub(crate) const GREEN: &str = "#009e73";
pub(crate) const ORANGE: &str = "#e69f00";
pub(crate) const PURPLE: &str = "#cc79a7";
pub(crate) const SKY: &str = "#56b4e9";
/// Text and outlines.
pub(crate) const INK: &str = "#222222";
/// Secondary text.
pub(crate) const MUTED: &str = "#555555";
/// Set bits that belong to other items.
pub(crate) const GREY: &str = "#c8c8c8";
/// Empty cells' outline.
pub(crate) const GRID: &str = "#999999";

const SANS: &str = "DejaVu Sans, Verdana, Arial, sans-serif";
const MONO: &str = "DejaVu Sans Mono, Menlo, Consolas, monospace";

/// Escape text for SVG.
pub(crate) fn esc(s: &str) -> String {
    s.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
        .replace('"', "&quot;")
}

/// A text's options: size in px, anchor, weight, colour, monospace.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Font {
    pub size: u32,
    pub anchor: &'static str,
    pub bold: bool,
    pub fill: &'static str,
    pub mono: bool,
}

impl Font {
    pub(crate) const fn new(size: u32) -> Self {
        Font {
            size,
            anchor: "start",
            bold: false,
            fill: INK,
            mono: false,
        }
    }
    pub(crate) const fn middle(mut self) -> Self {
        self.anchor = "middle";
        self
    }
    pub(crate) const fn end(mut self) -> Self {
        self.anchor = "end";
        self
    }
    pub(crate) const fn bold(mut self) -> Self {
        self.bold = true;
        self
    }
    pub(crate) const fn mono(mut self) -> Self {
        self.mono = true;
        self
    }
    pub(crate) const fn fill(mut self, c: &'static str) -> Self {
        self.fill = c;
        self
    }
}

/// A body of SVG elements; [`Svg::finish`] wraps it with the size and a white background.
#[derive(Debug, Default)]
pub(crate) struct Svg {
    body: String,
}

impl Svg {
    /// A rectangle; `extra` is appended inside the tag (attributes such as `data-bit="3"`).
    pub(crate) fn rect(
        &mut self,
        (x, y, w, h): (f64, f64, f64, f64),
        fill: &str,
        stroke: &str,
        extra: &str,
    ) {
        let width = if extra.contains("stroke-width") {
            ""
        } else {
            r#"stroke-width="1.2" "#
        };
        let _ = writeln!(
            self.body,
            r#"<rect x="{x:.1}" y="{y:.1}" width="{w:.1}" height="{h:.1}" fill="{fill}" stroke="{stroke}" {width}{extra}/>"#
        );
    }

    /// Text at (x, y) (the baseline).
    pub(crate) fn text(&mut self, x: f64, y: f64, f: Font, s: &str) {
        self.text_attr(x, y, f, s, "");
    }

    /// The title (bold, 18 px) and the one-line subtitle (muted, 14 px) every diagram opens with.
    pub(crate) fn heading(&mut self, title: &str, subtitle: &str) {
        self.text(20.0, 30.0, Font::new(18).bold(), title);
        self.text(20.0, 52.0, Font::new(14).fill(MUTED), subtitle);
    }

    /// Text with extra attributes.
    pub(crate) fn text_attr(&mut self, x: f64, y: f64, f: Font, s: &str, extra: &str) {
        debug_assert!(f.size >= MIN_FONT);
        let family = if f.mono { MONO } else { SANS };
        let weight = if f.bold { r#" font-weight="bold""# } else { "" };
        let _ = writeln!(
            self.body,
            r#"<text x="{x:.1}" y="{y:.1}" font-family="{family}" font-size="{}" text-anchor="{}" fill="{}"{weight} {extra}>{}</text>"#,
            f.size,
            f.anchor,
            f.fill,
            esc(s)
        );
    }

    /// A straight line.
    pub(crate) fn line(
        &mut self,
        (x1, y1): (f64, f64),
        (x2, y2): (f64, f64),
        stroke: &str,
        width: f64,
        dashed: bool,
    ) {
        let dash = if dashed {
            r#" stroke-dasharray="4 3""#
        } else {
            ""
        };
        let _ = writeln!(
            self.body,
            r#"<line x1="{x1:.1}" y1="{y1:.1}" x2="{x2:.1}" y2="{y2:.1}" stroke="{stroke}" stroke-width="{width:.1}"{dash}/>"#
        );
    }

    /// A circle.
    pub(crate) fn circle(
        &mut self,
        (x, y): (f64, f64),
        r: f64,
        fill: &str,
        stroke: &str,
        extra: &str,
    ) {
        let _ = writeln!(
            self.body,
            r#"<circle cx="{x:.1}" cy="{y:.1}" r="{r:.1}" fill="{fill}" stroke="{stroke}" stroke-width="2" {extra}/>"#
        );
    }

    /// A quadratic curve from `a` to `b` bulging to `c`, with an arrow head at `b`.
    pub(crate) fn arrow(
        &mut self,
        a: (f64, f64),
        c: (f64, f64),
        b: (f64, f64),
        stroke: &str,
        extra: &str,
    ) {
        let _ = writeln!(
            self.body,
            r#"<path d="M {:.1} {:.1} Q {:.1} {:.1} {:.1} {:.1}" fill="none" stroke="{stroke}" stroke-width="2.2" marker-end="url(#head)" {extra}/>"#,
            a.0, a.1, c.0, c.1, b.0, b.1
        );
    }

    /// Raw SVG.
    pub(crate) fn raw(&mut self, s: &str) {
        self.body.push_str(s);
        self.body.push('\n');
    }

    /// The document: `w` × `h` pixels, white background, a title for screen readers.
    pub(crate) fn finish(self, w: u32, h: u32, title: &str) -> String {
        debug_assert!(w <= MAX_WIDTH);
        format!(
            r##"<svg xmlns="http://www.w3.org/2000/svg" width="{w}" height="{h}" viewBox="0 0 {w} {h}" role="img">
<title>{}</title>
<defs><marker id="head" viewBox="0 0 10 10" refX="9" refY="5" markerWidth="7" markerHeight="7" orient="auto-start-reverse"><path d="M 0 0 L 10 5 L 0 10 z" fill="{INK}"/></marker></defs>
<rect x="0" y="0" width="{w}" height="{h}" fill="#ffffff"/>
{}</svg>
"##,
            esc(title),
            self.body
        )
    }
}

/// `n` with thousands separators.
pub(crate) fn thousands(n: u64) -> String {
    crate::units::thousands(n)
}

/// A probability as a percentage with enough digits.
pub(crate) fn pct(p: f64) -> String {
    crate::units::format_prob(p)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_diagram_renders_within_the_size_rules() {
        for name in names() {
            let svg = render(name).unwrap();
            let w: u32 = svg
                .split("width=\"")
                .nth(1)
                .and_then(|s| s.split('"').next())
                .and_then(|s| s.parse().ok())
                .unwrap();
            assert!(w <= MAX_WIDTH, "{name}: {w} px wide");
            for size in svg.split("font-size=\"").skip(1) {
                let s: u32 = size.split('"').next().unwrap().parse().unwrap();
                assert!(s >= MIN_FONT, "{name}: text of {s} px");
            }
            assert!(
                svg.contains(r##"fill="#ffffff""##),
                "{name}: no white background"
            );
        }
    }

    #[test]
    fn an_unknown_name_is_an_error_listing_the_names() {
        let e = render("bogus").unwrap_err().to_string();
        assert!(
            e.contains("'bogus'") && e.contains("standard, blocked"),
            "{e}"
        );
    }
}
