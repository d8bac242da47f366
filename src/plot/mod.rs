//! Charts as SVG and PNG (plotters): measured points with their 95% intervals as error bars,
//! theory as lines, a legend, labelled axes, log scales.
//!
//! The model is deliberately small: a [`Chart`] is a grid of [`Panel`]s; a panel has two
//! [`Axis`]es and some [`Series`], each drawn as markers (with optional error bars) or as a
//! (dashed) line. Log axes are drawn by plotting `log10(value)` on a linear axis and labelling
//! the ticks with the original values, so every panel has one coordinate type and ticks fall on
//! whole decades (with 2 and 5 in between when the data spans less than two decades).
//!
//! PNG text needs a font: DejaVu Sans (Bitstream Vera license, `src/fonts/DejaVuSans.LICENSE`)
//! is embedded in the crate and registered with plotters once, as "sans-serif".
//!
//! ```
//! use bloomlab::plot::{Axis, Chart, Panel, Point, Series, Style};
//! let chart = Chart::single(Panel {
//!     title: "demo".into(),
//!     x: Axis::log("items"),
//!     y: Axis::log("false-positive rate"),
//!     series: vec![Series::new("measured", Style::Points, 0).with_points(vec![
//!         Point::with_interval(1e3, 0.01, 0.008, 0.012),
//!         Point::with_interval(1e4, 0.02, 0.018, 0.022),
//!     ])],
//!     legend: Default::default(),
//! });
//! let svg = chart.to_svg_string().unwrap();
//! assert!(svg.contains("<svg") && svg.contains("measured"));
//! ```

use crate::error::{Error, Result};
use crate::fsutil::{WriteOptions, write_atomic_path, write_atomic_with};
use plotters::coord::ranged1d::{DefaultFormatting, KeyPointHint, Ranged};
use plotters::prelude::*;
use std::path::Path;
use std::sync::Once;

mod book;

/// DejaVu Sans, embedded (see `src/fonts/DejaVuSans.LICENSE`).
static FONT: &[u8] = include_bytes!("../fonts/DejaVuSans.ttf");
static FONT_ONCE: Once = Once::new();
const FAMILY: &str = "sans-serif";

/// Register the embedded font with plotters as "sans-serif" (idempotent). Public so that other
/// plotters users in the same program (the benches' criterion reports) share the one copy.
pub fn register_font() {
    FONT_ONCE.call_once(|| {
        // The font is a valid TTF shipped with the crate; a failure would show as missing text,
        // which the rendering test below catches.
        let _ = plotters::style::register_font(FAMILY, FontStyle::Normal, FONT);
    });
}

/// Linear or logarithmic axis.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, serde::Deserialize, serde::Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Scale {
    /// Linear.
    #[default]
    Linear,
    /// Base-10 logarithmic.
    Log,
}

/// How tick labels are written.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, serde::Deserialize, serde::Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Format {
    /// Plain numbers; large ones with k/M/G, tiny ones as powers of ten.
    #[default]
    Auto,
    /// A fraction written as a percentage (0.01 → 1%).
    Percent,
    /// Bytes with decimal SI prefixes (kB, MB, GB).
    Bytes,
}

/// Where the legend goes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, serde::Deserialize, serde::Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Legend {
    /// Upper left corner (the default).
    #[default]
    UpperLeft,
    /// Upper right corner.
    UpperRight,
    /// Lower left corner.
    LowerLeft,
    /// Lower right corner.
    LowerRight,
    /// Middle of the left edge.
    MiddleLeft,
    /// Middle of the right edge.
    MiddleRight,
    /// Top centre.
    UpperMiddle,
    /// Bottom centre.
    LowerMiddle,
    /// No legend.
    None,
}

/// An axis.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Axis {
    /// Label, with units.
    pub label: String,
    /// Linear or log.
    pub scale: Scale,
    /// Tick label format.
    pub format: Format,
    /// Fixed range (in data units); automatic when `None`.
    pub range: Option<(f64, f64)>,
    /// Category names: the data's x values are then indexes 0, 1, … into this list.
    pub categories: Option<Vec<String>>,
}

impl Axis {
    /// A linear axis.
    #[must_use]
    pub fn linear(label: &str) -> Self {
        Self {
            label: label.to_string(),
            ..Self::default()
        }
    }
    /// A log axis.
    #[must_use]
    pub fn log(label: &str) -> Self {
        Self {
            label: label.to_string(),
            scale: Scale::Log,
            ..Self::default()
        }
    }
}

/// How a series is drawn.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Style {
    /// Markers, with error bars where points have an interval.
    Points,
    /// Markers joined by a thin line, with error bars.
    PointsLine,
    /// A solid line.
    Line,
    /// A dashed line (theory).
    Dashed,
    /// A dashed line with markers (extrapolation).
    DashedPoints,
}

/// One data point; `lo`/`hi` give an interval (drawn as an error bar).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Point {
    /// x.
    pub x: f64,
    /// y.
    pub y: f64,
    /// Lower end of the interval.
    pub lo: Option<f64>,
    /// Upper end of the interval.
    pub hi: Option<f64>,
}

impl Point {
    /// A point without interval.
    #[must_use]
    pub fn new(x: f64, y: f64) -> Self {
        Self {
            x,
            y,
            lo: None,
            hi: None,
        }
    }
    /// A point with an interval.
    #[must_use]
    pub fn with_interval(x: f64, y: f64, lo: f64, hi: f64) -> Self {
        Self {
            x,
            y,
            lo: Some(lo),
            hi: Some(hi),
        }
    }
}

/// A named series.
#[derive(Debug, Clone, PartialEq)]
pub struct Series {
    /// Legend text.
    pub label: String,
    /// Drawing style.
    pub style: Style,
    /// Palette index (colour and marker shape); `None` = black.
    pub color: Option<usize>,
    /// The data.
    pub points: Vec<Point>,
}

impl Series {
    /// An empty series.
    #[must_use]
    pub fn new(label: &str, style: Style, color: usize) -> Self {
        Self {
            label: label.to_string(),
            style,
            color: Some(color),
            points: Vec::new(),
        }
    }
    /// Set the points.
    #[must_use]
    pub fn with_points(mut self, points: Vec<Point>) -> Self {
        self.points = points;
        self
    }
}

/// One chart in the grid.
#[derive(Debug, Clone, PartialEq)]
pub struct Panel {
    /// Caption.
    pub title: String,
    /// x axis.
    pub x: Axis,
    /// y axis.
    pub y: Axis,
    /// Series, drawn in order.
    pub series: Vec<Series>,
    /// Legend position.
    pub legend: Legend,
}

/// A grid of panels with a title.
#[derive(Debug, Clone, PartialEq)]
pub struct Chart {
    /// Title over the whole figure.
    pub title: String,
    /// Panels, filled row by row.
    pub panels: Vec<Panel>,
    /// Panels per row.
    pub columns: usize,
    /// Pixel size of one panel (the grid layout; the book layout is [`BOOK_WIDTH`] wide).
    pub panel_size: (u32, u32),
    /// How the panels are arranged and how large the text is.
    pub layout: Layout,
}

/// Arrangement of a chart's panels.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, serde::Deserialize, serde::Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Layout {
    /// For a page of the book (the default): panels stacked in one column [`BOOK_WIDTH`] px
    /// wide, text of 16 px and more at that width (12 pt), titles wrapped, each panel's legend
    /// below its plot area (never over the data).
    #[default]
    Book,
    /// `columns` panels of `panel_size` per row, legends inside the plot area: for screens.
    Grid,
}

/// Width of a book-layout chart in pixels (a book column is about 940 px wide, so the text
/// is shown at nearly its size).
pub const BOOK_WIDTH: u32 = 1000;
/// Height of one book-layout panel's plot area (axes and tick labels included; its title and
/// legend come on top of that).
pub const BOOK_PLOT_HEIGHT: u32 = 440;

impl Chart {
    /// A chart of one panel, titled by the panel.
    #[must_use]
    pub fn single(panel: Panel) -> Self {
        Self {
            title: String::new(),
            panels: vec![panel],
            columns: 1,
            panel_size: (1000, 640),
            layout: Layout::Book,
        }
    }

    /// A book-layout chart: `panels` stacked in one column under `title`.
    #[must_use]
    pub fn book(title: &str, panels: Vec<Panel>) -> Self {
        Self {
            title: title.to_string(),
            panels,
            columns: 1,
            panel_size: (BOOK_WIDTH, BOOK_PLOT_HEIGHT),
            layout: Layout::Book,
        }
    }

    fn size(&self) -> (u32, u32) {
        if self.layout == Layout::Book {
            return book::size(self);
        }
        let cols = self.columns.clamp(1, self.panels.len().max(1));
        let rows = self.panels.len().div_ceil(cols).max(1);
        let title = if self.title.is_empty() { 0 } else { 50 };
        (
            self.panel_size.0 * cols as u32,
            self.panel_size.1 * rows as u32 + title,
        )
    }

    /// Write the chart as SVG.
    ///
    /// # Errors
    /// [`Error::Io`] when the file cannot be written or drawing fails.
    pub fn save_svg(&self, path: &Path) -> Result<()> {
        self.save_svg_with(path, WriteOptions::default())
    }

    /// Write the chart as SVG, atomically into a regular file ([`write_atomic_with`]).
    ///
    /// # Errors
    /// As [`Chart::save_svg`], and a refused path.
    pub fn save_svg_with(&self, path: &Path, opts: WriteOptions) -> Result<()> {
        let svg = self.to_svg_string()?;
        write_atomic_with(path, opts, |w| w.write_all(svg.as_bytes()))
    }

    /// The chart as an SVG document.
    ///
    /// # Errors
    /// [`Error::Io`] when drawing fails.
    pub fn to_svg_string(&self) -> Result<String> {
        register_font();
        let mut s = String::new();
        {
            let root = SVGBackend::with_string(&mut s, self.size()).into_drawing_area();
            self.draw(&root).map_err(|e| Error::Io {
                path: "<svg string>".into(),
                message: e,
            })?;
            root.present().map_err(|e| Error::Io {
                path: "<svg string>".into(),
                message: e.to_string(),
            })?;
        }
        Ok(s)
    }

    /// Write the chart as PNG.
    ///
    /// # Errors
    /// [`Error::Io`] when the file cannot be written or drawing fails.
    pub fn save_png(&self, path: &Path) -> Result<()> {
        self.save_png_with(path, WriteOptions::default())
    }

    /// Write the chart as PNG, atomically into a regular file ([`write_atomic_path`]: the
    /// encoder writes a temporary file named like `path`, which is then renamed over it).
    ///
    /// # Errors
    /// As [`Chart::save_png`], and a refused path.
    pub fn save_png_with(&self, path: &Path, opts: WriteOptions) -> Result<()> {
        register_font();
        write_atomic_path(path, opts, |tmp| {
            let io = |e: String| Error::Io {
                path: path.display().to_string(),
                message: e,
            };
            let root = BitMapBackend::new(tmp, self.size()).into_drawing_area();
            self.draw(&root).map_err(io)?;
            root.present().map_err(|e| io(e.to_string()))
        })
    }

    fn draw<DB: DrawingBackend>(
        &self,
        root: &DrawingArea<DB, plotters::coord::Shift>,
    ) -> std::result::Result<(), String> {
        root.fill(&WHITE).map_err(|e| e.to_string())?;
        if self.layout == Layout::Book {
            return book::draw(self, root);
        }
        let area = if self.title.is_empty() {
            root.clone()
        } else {
            // Drawn by hand: plotters' `titled` underestimates the text height and clips it.
            let (top, rest) = root.split_vertically(50);
            let w = top.dim_in_pixel().0 as i32;
            top.draw(&Text::new(
                self.title.clone(),
                (w / 2, 12),
                (FAMILY, 26)
                    .into_font()
                    .color(&BLACK)
                    .pos(plotters::style::text_anchor::Pos::new(
                        plotters::style::text_anchor::HPos::Center,
                        plotters::style::text_anchor::VPos::Top,
                    )),
            ))
            .map_err(|e| e.to_string())?;
            rest
        };
        let cols = self.columns.clamp(1, self.panels.len().max(1));
        let rows = self.panels.len().div_ceil(cols).max(1);
        let cells = area.split_evenly((rows, cols));
        for (panel, cell) in self.panels.iter().zip(cells.iter()) {
            draw_panel(panel, cell, &GRID)?;
        }
        Ok(())
    }
}

/// Number of distinct colours (series beyond it repeat colours with other markers).
pub const PALETTE_SIZE: usize = PALETTE.len();

/// Colours (the d3 "category10" palette: distinguishable, readable on white).
const PALETTE: [(u8, u8, u8); 10] = [
    (31, 119, 180),
    (255, 127, 14),
    (44, 160, 44),
    (214, 39, 40),
    (148, 103, 189),
    (140, 86, 75),
    (227, 119, 194),
    (127, 127, 127),
    (188, 189, 34),
    (23, 190, 207),
];

fn color(idx: Option<usize>) -> RGBColor {
    match idx {
        Some(i) => {
            let (r, g, b) = PALETTE[i % PALETTE.len()];
            RGBColor(r, g, b)
        }
        None => RGBColor(30, 30, 30),
    }
}

/// Transform a data value to plot coordinates (log10 for log axes); `None` if not drawable.
fn tx(scale: Scale, v: f64) -> Option<f64> {
    match scale {
        Scale::Linear => v.is_finite().then_some(v),
        Scale::Log => (v.is_finite() && v > 0.0).then(|| v.log10()),
    }
}

/// The plotted range of an axis (in transformed units).
fn axis_range(axis: &Axis, values: &[f64]) -> (f64, f64) {
    if let Some(cats) = &axis.categories {
        return (-0.6, cats.len().max(1) as f64 - 0.4);
    }
    if let Some((a, b)) = axis.range
        && let (Some(a), Some(b)) = (tx(axis.scale, a), tx(axis.scale, b))
        && b > a
    {
        return (a, b);
    }
    let mut lo = f64::INFINITY;
    let mut hi = f64::NEG_INFINITY;
    for &v in values {
        lo = lo.min(v);
        hi = hi.max(v);
    }
    if !lo.is_finite() || !hi.is_finite() {
        return (0.0, 1.0);
    }
    if hi - lo < 1e-12 {
        let pad = if axis.scale == Scale::Log {
            0.5
        } else {
            (lo.abs() * 0.1).max(0.5)
        };
        return (lo - pad, hi + pad);
    }
    let pad = (hi - lo) * 0.04;
    (lo - pad, hi + pad)
}

/// "Nice" linear ticks over [lo, hi].
fn linear_ticks(lo: f64, hi: f64) -> Vec<f64> {
    let span = hi - lo;
    if span <= 0.0 || !span.is_finite() {
        return vec![lo];
    }
    let raw = span / 6.0;
    let mag = 10f64.powf(raw.log10().floor());
    let step = [1.0, 2.0, 5.0, 10.0]
        .iter()
        .map(|m| m * mag)
        .find(|s| span / s <= 8.0)
        .unwrap_or(10.0 * mag);
    // Multiples of the step, computed (not accumulated) and rounded to the step's precision,
    // so labels read 0.6, not 0.6000000000000001.
    let digits = (-step.log10().floor()).max(0.0) as i32 + 2;
    let round = |v: f64| {
        let f = 10f64.powi(digits);
        (v * f).round() / f
    };
    let first = (lo / step - 1e-9).ceil() as i64;
    let last = (hi / step + 1e-9).floor() as i64;
    (first..=last).map(|i| round(i as f64 * step)).collect()
}

/// Ticks of a log axis (in log10 units) over [lo, hi].
fn log_ticks(lo: f64, hi: f64) -> Vec<f64> {
    let (a, b) = (lo.ceil() as i64, hi.floor() as i64);
    let decades: Vec<f64> = (a..=b).map(|e| e as f64).collect();
    if decades.len() >= 3 {
        let every = decades.len().div_ceil(10);
        return decades.into_iter().step_by(every.max(1)).collect();
    }
    // Less than two decades: 1, 2, 5 in every decade (and 1..9 if still too few).
    let mut v = Vec::new();
    for mults in [
        &[1.0, 2.0, 5.0][..],
        &[1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0, 9.0][..],
    ] {
        v.clear();
        for e in (lo.floor() as i64)..=(hi.ceil() as i64) {
            for m in mults {
                let t = e as f64 + f64::log10(*m);
                if t >= lo - 1e-12 && t <= hi + 1e-12 {
                    v.push(t);
                }
            }
        }
        if v.len() >= 3 {
            break;
        }
    }
    if v.len() < 2 {
        return linear_ticks(lo, hi);
    }
    v
}

const SUPERSCRIPT: [char; 10] = ['⁰', '¹', '²', '³', '⁴', '⁵', '⁶', '⁷', '⁸', '⁹'];

fn superscript(e: i64) -> String {
    let mut s = String::new();
    if e < 0 {
        s.push('⁻');
    }
    for c in e.unsigned_abs().to_string().chars() {
        s.push(SUPERSCRIPT[c.to_digit(10).unwrap_or(0) as usize]);
    }
    s
}

/// A number with at most `sig` significant digits, trailing zeros trimmed.
fn trim(v: f64, sig: i32) -> String {
    if v == 0.0 {
        return "0".into();
    }
    let mag = v.abs().log10().floor() as i32;
    let decimals = (sig - 1 - mag).max(0) as usize;
    let s = format!("{v:.decimals$}");
    if s.contains('.') {
        s.trim_end_matches('0').trim_end_matches('.').to_string()
    } else {
        s
    }
}

/// Format a tick value (in data units).
#[must_use]
pub fn format_value(v: f64, format: Format) -> String {
    let pow10 = |v: f64| -> Option<i64> {
        let e = v.abs().log10();
        ((e - e.round()).abs() < 1e-9).then(|| e.round() as i64)
    };
    match format {
        Format::Percent => {
            let p = v * 100.0;
            if p != 0.0
                && p.abs() < 1e-3
                && let Some(e) = pow10(p)
            {
                return format!("10{}%", superscript(e));
            }
            format!("{}%", trim(p, 3))
        }
        Format::Bytes => {
            let units = [
                (1e12, "TB"),
                (1e9, "GB"),
                (1e6, "MB"),
                (1e3, "kB"),
                (1.0, "B"),
            ];
            for (u, name) in units {
                if v.abs() >= u {
                    return format!("{} {name}", trim(v / u, 3));
                }
            }
            format!("{} B", trim(v, 3))
        }
        Format::Auto => {
            if v == 0.0 {
                return "0".into();
            }
            let a = v.abs();
            if !(1e-3..1e5).contains(&a)
                && let Some(e) = pow10(v)
            {
                let sign = if v < 0.0 { "-" } else { "" };
                return format!("{sign}10{}", superscript(e));
            }
            if a >= 1e4 {
                for (u, name) in [(1e12, "T"), (1e9, "G"), (1e6, "M"), (1e3, "k")] {
                    if a >= u {
                        return format!("{}{name}", trim(v / u, 3));
                    }
                }
            }
            if a < 1e-3 {
                let e = a.log10().floor() as i64;
                return format!("{}×10{}", trim(v / 10f64.powi(e as i32), 2), superscript(e));
            }
            trim(v, 4)
        }
    }
}

fn tick_label(axis: &Axis, t: f64) -> String {
    if let Some(c) = &axis.categories {
        let i = t.round();
        if (t - i).abs() < 1e-9 && i >= 0.0 && (i as usize) < c.len() {
            return c[i as usize].clone();
        }
        return String::new();
    }
    let v = match axis.scale {
        Scale::Linear => t,
        Scale::Log => {
            // Whole decades as 10ⁿ beyond 1000, so an axis does not mix "10k" and "10⁵".
            let e = t.round();
            if axis.format == Format::Auto && (t - e).abs() < 1e-9 && !(-2.0..=3.0).contains(&e) {
                return format!("10{}", superscript(e as i64));
            }
            10f64.powf(t)
        }
    };
    format_value(v, axis.format)
}

fn ticks(axis: &Axis, lo: f64, hi: f64) -> Vec<f64> {
    if let Some(c) = &axis.categories {
        return (0..c.len()).map(|i| i as f64).collect();
    }
    match axis.scale {
        Scale::Linear => linear_ticks(lo, hi),
        Scale::Log => log_ticks(lo, hi),
    }
}

/// Marker outline for palette index `idx` (pixel offsets): circle, triangle, square, diamond,
/// plus: shapes tell series apart where colours do not (print, colour blindness).
/// Scaled by `f`.
fn shape_scaled(idx: usize, f: f64) -> Vec<(i32, i32)> {
    let scale = |v: Vec<(i32, i32)>| -> Vec<(i32, i32)> {
        v.into_iter()
            .map(|(x, y)| {
                (
                    (f64::from(x) * f).round() as i32,
                    (f64::from(y) * f).round() as i32,
                )
            })
            .collect()
    };
    scale(shape_unit(idx))
}

fn shape_unit(idx: usize) -> Vec<(i32, i32)> {
    let s = 5;
    // Shapes cycle so that colour and shape together repeat only after 50 series.
    match (idx + idx / PALETTE.len()) % 5 {
        0 => (0..12)
            .map(|i| {
                let a = f64::from(i) * std::f64::consts::PI / 6.0;
                (
                    (a.cos() * 5.5).round() as i32,
                    (a.sin() * 5.5).round() as i32,
                )
            })
            .collect(),
        1 => vec![(0, -s - 1), (s + 1, s), (-s - 1, s)],
        2 => vec![(-s, -s), (s, -s), (s, s), (-s, s)],
        3 => vec![(0, -s - 2), (s + 2, 0), (0, s + 2), (-s - 2, 0)],
        _ => vec![
            (-2, -s - 1),
            (2, -s - 1),
            (2, -2),
            (s + 1, -2),
            (s + 1, 2),
            (2, 2),
            (2, s + 1),
            (-2, s + 1),
            (-2, 2),
            (-s - 1, 2),
            (-s - 1, -2),
            (-2, -2),
        ],
    }
}

/// A linear f64 coordinate with our own ticks (plotters' f64 ranges cannot take a label
/// formatter together with fixed key points).
#[derive(Debug, Clone)]
struct TickedRange {
    lo: f64,
    hi: f64,
    ticks: Vec<f64>,
}

impl Ranged for TickedRange {
    type FormatOption = DefaultFormatting;
    type ValueType = f64;
    fn map(&self, v: &f64, limit: (i32, i32)) -> i32 {
        let span = self.hi - self.lo;
        if span <= 0.0 {
            return (limit.0 + limit.1) / 2;
        }
        let f = (v - self.lo) / span;
        limit.0 + (f * f64::from(limit.1 - limit.0)).round() as i32
    }
    fn key_points<Hint: KeyPointHint>(&self, _hint: Hint) -> Vec<f64> {
        self.ticks.clone()
    }
    fn range(&self) -> std::ops::Range<f64> {
        self.lo..self.hi
    }
}

fn legend_pos(l: Legend) -> SeriesLabelPosition {
    match l {
        Legend::UpperLeft | Legend::None => SeriesLabelPosition::UpperLeft,
        Legend::UpperRight => SeriesLabelPosition::UpperRight,
        Legend::LowerLeft => SeriesLabelPosition::LowerLeft,
        Legend::LowerRight => SeriesLabelPosition::LowerRight,
        Legend::MiddleLeft => SeriesLabelPosition::MiddleLeft,
        Legend::MiddleRight => SeriesLabelPosition::MiddleRight,
        Legend::UpperMiddle => SeriesLabelPosition::UpperMiddle,
        Legend::LowerMiddle => SeriesLabelPosition::LowerMiddle,
    }
}

/// Text sizes and margins of a panel (requested sizes: the SVG backend writes them divided by
/// 1.24, so 20 is 16 px in the file).
struct Look {
    /// Panel caption drawn by plotters (0: none, the caller draws it).
    caption: u32,
    ticks: u32,
    desc: u32,
    x_area: u32,
    x_area_categories: u32,
    y_area: u32,
    margin: u32,
    /// The legend inside the plot area (grid); else the caller draws it outside.
    legend_inside: bool,
    /// Marker scale (1 = the grid's 5-6 px markers).
    marker: f64,
}

const GRID: Look = Look {
    caption: 22,
    ticks: 15,
    desc: 18,
    x_area: 52,
    x_area_categories: 70,
    y_area: 92,
    margin: 14,
    legend_inside: true,
    marker: 1.0,
};

fn draw_panel<DB: DrawingBackend>(
    panel: &Panel,
    area: &DrawingArea<DB, plotters::coord::Shift>,
    look: &Look,
) -> std::result::Result<(), String> {
    // Transformed data, gathered first for the ranges.
    let (mut xs, mut ys) = (Vec::new(), Vec::new());
    for s in &panel.series {
        for p in &s.points {
            if let Some(x) = tx(panel.x.scale, p.x) {
                xs.push(x);
                for v in [Some(p.y), p.lo, p.hi].into_iter().flatten() {
                    if let Some(y) = tx(panel.y.scale, v) {
                        ys.push(y);
                    }
                }
            }
        }
    }
    let (x0, x1) = axis_range(&panel.x, &xs);
    let (y0, y1) = axis_range(&panel.y, &ys);
    let xt = ticks(&panel.x, x0, x1);
    let yt = ticks(&panel.y, y0, y1);
    let many_categories = panel.x.categories.as_ref().is_some_and(|c| c.len() > 6);

    let mut builder = ChartBuilder::on(area);
    if look.caption > 0 {
        builder.caption(&panel.title, (FAMILY, look.caption));
    }
    let mut chart = builder
        .margin(look.margin)
        .x_label_area_size(
            if many_categories || (!look.legend_inside && panel.x.categories.is_some()) {
                look.x_area_categories
            } else {
                look.x_area
            },
        )
        .y_label_area_size(look.y_area)
        .build_cartesian_2d(
            TickedRange {
                lo: x0,
                hi: x1,
                ticks: xt,
            },
            TickedRange {
                lo: y0,
                hi: y1,
                ticks: yt,
            },
        )
        .map_err(|e| e.to_string())?;
    // Book: category names are drawn below by `book::category_labels`, wrapped to their slot.
    let own_categories = !look.legend_inside && panel.x.categories.is_some();
    let xfmt = |t: &f64| {
        if own_categories {
            String::new()
        } else {
            tick_label(&panel.x, *t)
        }
    };
    let yfmt = |t: &f64| tick_label(&panel.y, *t);
    chart
        .configure_mesh()
        .x_desc(&panel.x.label)
        .y_desc(&panel.y.label)
        .x_label_formatter(&xfmt)
        .y_label_formatter(&yfmt)
        .axis_desc_style((FAMILY, look.desc))
        .label_style((FAMILY, look.ticks))
        .bold_line_style(RGBColor(225, 225, 225))
        .light_line_style(TRANSPARENT)
        .draw()
        .map_err(|e| e.to_string())?;
    if own_categories && let Some(cats) = &panel.x.categories {
        let (bx, by) = area.get_base_pixel();
        let at: Vec<(i32, i32)> = (0..cats.len())
            .map(|i| {
                let (px, py) = chart.backend_coord(&(i as f64, y0));
                (px - bx, py - by)
            })
            .collect();
        book::category_labels(area, &at, cats, look.ticks)?;
    }

    let ybottom = y0;
    // With a fixed range, what falls outside is not drawn (plotters does not clip).
    let inside = |x: f64, y: f64| x >= x0 && x <= x1 && y >= y0 && y <= y1;
    for (si, s) in panel.series.iter().enumerate() {
        if s.points.is_empty() {
            continue;
        }
        let c = color(s.color);
        let idx = s.color.unwrap_or(si);
        let pts: Vec<(f64, f64, Option<f64>, Option<f64>)> = s
            .points
            .iter()
            .filter_map(|p| {
                let x = tx(panel.x.scale, p.x)?;
                let lo = p.lo.map(|v| tx(panel.y.scale, v).unwrap_or(ybottom));
                let hi = p.hi.and_then(|v| tx(panel.y.scale, v));
                match tx(panel.y.scale, p.y) {
                    Some(y) => Some((x, y, lo, hi)),
                    // Not drawable (0 on a log axis): keep its interval, from the bottom up.
                    None => hi.map(|h| (x, f64::NAN, Some(ybottom), Some(h))),
                }
            })
            .collect();
        let pts: Vec<(f64, f64, Option<f64>, Option<f64>)> = pts
            .into_iter()
            .filter(|p| p.0 >= x0 && p.0 <= x1)
            .map(|(x, y, lo, hi)| {
                let clamp = |v: f64| v.clamp(y0, y1);
                let y = if y.is_finite() && inside(x, y) {
                    y
                } else {
                    f64::NAN
                };
                (x, y, lo.map(clamp), hi.map(clamp))
            })
            .collect();
        let xy: Vec<(f64, f64)> = pts
            .iter()
            .filter(|p| p.1.is_finite())
            .map(|p| (p.0, p.1))
            .collect();
        let label = s.label.clone();
        match s.style {
            Style::Line | Style::Dashed | Style::DashedPoints => {
                if s.style == Style::DashedPoints {
                    let fill = c.filled();
                    chart
                        .draw_series(xy.iter().map(|&p| {
                            EmptyElement::at(p) + Polygon::new(shape_scaled(idx, look.marker), fill)
                        }))
                        .map_err(|e| e.to_string())?;
                }
                let style = c.stroke_width(2);
                let dashed = s.style != Style::Line;
                let anno = if !dashed {
                    chart
                        .draw_series(LineSeries::new(xy.clone(), style))
                        .map_err(|e| e.to_string())?
                } else {
                    chart
                        .draw_series(DashedLineSeries::new(xy.clone(), 9, 5, style))
                        .map_err(|e| e.to_string())?
                };
                if !label.is_empty() {
                    anno.label(label).legend(move |(x, y)| {
                        let st = c.stroke_width(2);
                        let (a, b) = if dashed {
                            (vec![(0, 0), (7, 0)], vec![(12, 0), (20, 0)])
                        } else {
                            (vec![(0, 0), (20, 0)], vec![(0, 0), (20, 0)])
                        };
                        EmptyElement::at((x, y)) + PathElement::new(a, st) + PathElement::new(b, st)
                    });
                }
            }
            Style::Points | Style::PointsLine => {
                if s.style == Style::PointsLine && xy.len() > 1 {
                    chart
                        .draw_series(LineSeries::new(xy.clone(), c.mix(0.5).stroke_width(1)))
                        .map_err(|e| e.to_string())?;
                }
                // Error bars (with caps) first, markers over them.
                let bars: Vec<(f64, f64, f64)> = pts
                    .iter()
                    .filter_map(|&(x, _, lo, hi)| Some((x, lo?, hi?)))
                    .filter(|b| b.2 > b.1)
                    .collect();
                let bar_style = c.stroke_width(1);
                chart
                    .draw_series(
                        bars.iter().map(|&(x, lo, hi)| {
                            PathElement::new(vec![(x, lo), (x, hi)], bar_style)
                        }),
                    )
                    .map_err(|e| e.to_string())?;
                chart
                    .draw_series(bars.iter().flat_map(|&(x, lo, hi)| {
                        [lo, hi].map(|y| {
                            EmptyElement::at((x, y))
                                + PathElement::new(vec![(-4, 0), (4, 0)], bar_style)
                        })
                    }))
                    .map_err(|e| e.to_string())?;
                let fill = c.filled();
                let anno = chart
                    .draw_series(xy.iter().map(|&p| {
                        EmptyElement::at(p) + Polygon::new(shape_scaled(idx, look.marker), fill)
                    }))
                    .map_err(|e| e.to_string())?;
                if !label.is_empty() {
                    anno.label(label).legend(move |(x, y)| {
                        EmptyElement::at((x + 10, y))
                            + Polygon::new(shape_scaled(idx, look.marker), fill)
                    });
                }
            }
        }
    }
    if look.legend_inside
        && panel.legend != Legend::None
        && panel.series.iter().any(|s| !s.label.is_empty())
    {
        chart
            .configure_series_labels()
            .position(legend_pos(panel.legend))
            .background_style(WHITE.mix(0.88))
            .border_style(RGBColor(160, 160, 160))
            .label_font((FAMILY, 15))
            .margin(10)
            .draw()
            .map_err(|e| e.to_string())?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tick_formats() {
        assert_eq!(format_value(0.01, Format::Percent), "1%");
        assert_eq!(format_value(0.0001, Format::Percent), "0.01%");
        assert_eq!(format_value(1e-8, Format::Percent), "10⁻⁶%");
        assert_eq!(format_value(1e6, Format::Auto), "10⁶");
        assert_eq!(format_value(250_000.0, Format::Auto), "250k");
        assert_eq!(format_value(0.5, Format::Auto), "0.5");
        assert_eq!(format_value(1e-5, Format::Auto), "10⁻⁵");
        assert_eq!(format_value(1.2e9, Format::Bytes), "1.2 GB");
        assert_eq!(format_value(2048.0, Format::Bytes), "2.05 kB");
    }

    #[test]
    fn log_ticks_fall_on_decades_or_1_2_5() {
        assert_eq!(log_ticks(-6.2, -1.1), vec![-6.0, -5.0, -4.0, -3.0, -2.0]);
        let t = log_ticks(-2.1, -1.2);
        let vals: Vec<f64> = t.iter().map(|v| 10f64.powf(*v)).collect();
        assert!(vals.iter().any(|v| (v - 0.01).abs() < 1e-12), "{vals:?}");
        assert!(vals.iter().any(|v| (v - 0.02).abs() < 1e-12), "{vals:?}");
        assert!(vals.iter().any(|v| (v - 0.05).abs() < 1e-12), "{vals:?}");
    }

    #[test]
    fn linear_ticks_are_nice() {
        assert_eq!(
            linear_ticks(0.0, 1.5),
            vec![0.0, 0.2, 0.4, 0.6, 0.8, 1.0, 1.2, 1.4]
        );
        assert_eq!(linear_ticks(0.0, 20.0), vec![0.0, 5.0, 10.0, 15.0, 20.0]);
    }

    #[test]
    fn renders_svg_and_png_with_text() {
        let mut chart = Chart::single(Panel {
            title: "FPR".into(),
            x: Axis::linear("fill"),
            y: Axis {
                format: Format::Percent,
                ..Axis::log("false-positive rate")
            },
            series: vec![
                Series::new("measured", Style::Points, 0).with_points(vec![
                    Point::with_interval(0.5, 0.001, 0.0008, 0.0012),
                    Point::with_interval(1.0, 0.01, 0.009, 0.011),
                    // zero on a log axis: only its upper bound is drawn
                    Point::with_interval(0.1, 0.0, 0.0, 0.00001),
                ]),
                Series {
                    color: None,
                    ..Series::new("classic", Style::Dashed, 0)
                        .with_points(vec![Point::new(0.1, 1e-6), Point::new(1.0, 0.01)])
                },
            ],
            legend: Legend::UpperLeft,
        });
        chart.title = "title".into();
        let svg = chart.to_svg_string().unwrap();
        assert!(svg.contains("measured") && svg.contains("classic") && svg.contains("1%"));
        let dir = std::env::temp_dir().join(format!("bloomlab-plot-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let png = dir.join("t.png");
        chart.save_png(&png).unwrap();
        let bytes = std::fs::read(&png).unwrap();
        assert_eq!(&bytes[1..4], b"PNG");
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
