//! The book layout: panels stacked in one column [`BOOK_WIDTH`] px wide, titles wrapped to the
//! width, text at 16 px and more in the SVG (12 pt at the book's column width), and each
//! panel's legend in a band of its own under the plot area, so that no legend covers data.

use super::{
    BOOK_PLOT_HEIGHT, BOOK_WIDTH, Chart, FAMILY, Legend, Look, Panel, Series, Style, color,
    draw_panel, shape_scaled,
};
use plotters::prelude::*;
use plotters::style::text_anchor::{HPos, Pos, VPos};

/// Requested font sizes (the SVG backend writes them divided by 1.24: 20 → 16.1 px).
const TITLE: u32 = 26;
const CAPTION: u32 = 23;
const LEGEND: u32 = 20;
const TITLE_LINE: u32 = 34;
const CAPTION_LINE: u32 = 30;
const LEGEND_ROW: u32 = 30;
/// Legend sample (line or marker) width and the gap between sample and text.
const SAMPLE: u32 = 40;
const GAP: u32 = 10;
/// Space between legend columns.
const COLUMN_GAP: u32 = 28;
const SIDE: u32 = 24;

const BOOK: Look = Look {
    caption: 0,
    ticks: 20,
    desc: 22,
    x_area: 64,
    x_area_categories: 92,
    y_area: 112,
    margin: 16,
    legend_inside: false,
    marker: 1.25,
};

/// Width of `text` in pixels at `size`, from the font's metrics (an estimate if the font is
/// unavailable).
fn text_width(text: &str, size: u32) -> u32 {
    super::register_font();
    (FAMILY, size)
        .into_font()
        .box_size(text)
        .map(|(w, _)| w)
        .unwrap_or_else(|_| (text.chars().count() as f64 * 0.6 * f64::from(size)) as u32)
}

/// Greedy word wrap of `text` into lines no wider than `width` at `size`.
fn wrap(text: &str, size: u32, width: u32) -> Vec<String> {
    let mut lines: Vec<String> = Vec::new();
    let mut cur = String::new();
    for word in text.split_whitespace() {
        let candidate = if cur.is_empty() {
            word.to_string()
        } else {
            format!("{cur} {word}")
        };
        if !cur.is_empty() && text_width(&candidate, size) > width {
            lines.push(std::mem::take(&mut cur));
            cur = word.to_string();
        } else {
            cur = candidate;
        }
    }
    if !cur.is_empty() {
        lines.push(cur);
    }
    lines
}

/// Where the parts of one panel go.
struct PanelBox {
    title: Vec<String>,
    /// Indexes of the series shown in the legend.
    entries: Vec<usize>,
    columns: usize,
    column_width: u32,
    plot_height: u32,
}

impl PanelBox {
    fn legend_rows(&self) -> u32 {
        self.entries.len().div_ceil(self.columns.max(1)) as u32
    }
    fn title_height(&self) -> u32 {
        if self.title.is_empty() {
            8
        } else {
            10 + self.title.len() as u32 * CAPTION_LINE
        }
    }
    fn legend_height(&self) -> u32 {
        if self.entries.is_empty() {
            0
        } else {
            self.legend_rows() * LEGEND_ROW + 18
        }
    }
    fn height(&self) -> u32 {
        self.title_height() + self.plot_height + self.legend_height()
    }
}

fn layout(panel: &Panel, plot_height: u32) -> PanelBox {
    let avail = BOOK_WIDTH - 2 * SIDE;
    let entries: Vec<usize> = if panel.legend == Legend::None {
        Vec::new()
    } else {
        // Measured series first, then lines: with one legend row per group, a series and its
        // model line share a column.
        let shown =
            |i: &usize| !panel.series[*i].label.is_empty() && !panel.series[*i].points.is_empty();
        let measured = |i: &usize| {
            matches!(
                panel.series[*i].style,
                Style::Points | Style::PointsLine | Style::DashedPoints
            )
        };
        let mut v: Vec<usize> = (0..panel.series.len())
            .filter(shown)
            .filter(measured)
            .collect();
        v.extend(
            (0..panel.series.len())
                .filter(shown)
                .filter(|i| !measured(i)),
        );
        v
    };
    let widest = entries
        .iter()
        .map(|&i| SAMPLE + GAP + text_width(&panel.series[i].label, LEGEND))
        .max()
        .unwrap_or(0);
    let columns = ((avail + COLUMN_GAP) / (widest + COLUMN_GAP)).max(1) as usize;
    let columns = columns.min(entries.len().max(1));
    PanelBox {
        title: wrap(&panel.title, CAPTION, avail),
        entries,
        columns,
        column_width: widest + COLUMN_GAP,
        plot_height,
    }
}

fn title_lines(chart: &Chart) -> Vec<String> {
    wrap(&chart.title, TITLE, BOOK_WIDTH - 2 * SIDE)
}

fn title_height(lines: &[String]) -> u32 {
    if lines.is_empty() {
        0
    } else {
        14 + lines.len() as u32 * TITLE_LINE
    }
}

fn boxes(chart: &Chart) -> Vec<PanelBox> {
    let h = if chart.panel_size.1 >= 200 {
        chart.panel_size.1
    } else {
        BOOK_PLOT_HEIGHT
    };
    chart.panels.iter().map(|p| layout(p, h)).collect()
}

/// Pixel size of a book-layout chart.
pub(super) fn size(chart: &Chart) -> (u32, u32) {
    let h: u32 = boxes(chart).iter().map(PanelBox::height).sum();
    (BOOK_WIDTH, title_height(&title_lines(chart)) + h + 8)
}

fn text<DB: DrawingBackend>(
    area: &DrawingArea<DB, plotters::coord::Shift>,
    s: &str,
    at: (i32, i32),
    size: u32,
    h: HPos,
) -> Result<(), String> {
    area.draw(&Text::new(
        s.to_string(),
        at,
        (FAMILY, size)
            .into_font()
            .color(&BLACK)
            .pos(Pos::new(h, VPos::Center)),
    ))
    .map_err(|e| e.to_string())
}

/// Draw a book-layout chart on `root` (already filled white).
pub(super) fn draw<DB: DrawingBackend>(
    chart: &Chart,
    root: &DrawingArea<DB, plotters::coord::Shift>,
) -> Result<(), String> {
    let lines = title_lines(chart);
    let mid = (BOOK_WIDTH / 2) as i32;
    for (i, l) in lines.iter().enumerate() {
        let y = 14 + i as u32 * TITLE_LINE + TITLE_LINE / 2;
        text(root, l, (mid, y as i32), TITLE, HPos::Center)?;
    }
    let mut top = title_height(&lines);
    for (panel, b) in chart.panels.iter().zip(boxes(chart)) {
        for (i, l) in b.title.iter().enumerate() {
            let y = top + 10 + i as u32 * CAPTION_LINE + CAPTION_LINE / 2;
            text(root, l, (mid, y as i32), CAPTION, HPos::Center)?;
        }
        let plot_top = top + b.title_height();
        let area = root
            .clone()
            .shrink((0, plot_top), (BOOK_WIDTH, b.plot_height));
        draw_panel(panel, &area, &BOOK)?;
        let legend_top = plot_top + b.plot_height;
        draw_legend(root, panel, &b, legend_top)?;
        top += b.height();
    }
    Ok(())
}

fn draw_legend<DB: DrawingBackend>(
    root: &DrawingArea<DB, plotters::coord::Shift>,
    panel: &Panel,
    b: &PanelBox,
    top: u32,
) -> Result<(), String> {
    if b.entries.is_empty() {
        return Ok(());
    }
    // Centre the block of columns.
    let used = b.columns as u32 * b.column_width - COLUMN_GAP;
    let left = (BOOK_WIDTH.saturating_sub(used) / 2).max(SIDE);
    let frame = (
        (left as i32 - 12, top as i32 + 4),
        (
            (left + used) as i32 + 12,
            (top + b.legend_height()) as i32 - 6,
        ),
    );
    root.draw(&Rectangle::new(
        [frame.0, frame.1],
        RGBColor(200, 200, 200).stroke_width(1),
    ))
    .map_err(|e| e.to_string())?;
    for (k, &si) in b.entries.iter().enumerate() {
        let (row, col) = (k / b.columns, k % b.columns);
        let x = (left + col as u32 * b.column_width) as i32;
        let y = (top + 9 + row as u32 * LEGEND_ROW + LEGEND_ROW / 2) as i32;
        sample(root, &panel.series[si], si, x, y)?;
        text(
            root,
            &panel.series[si].label,
            (x + (SAMPLE + GAP) as i32, y),
            LEGEND,
            HPos::Left,
        )?;
    }
    Ok(())
}

/// The legend sample of a series: its line (solid or dashed) and/or its marker.
fn sample<DB: DrawingBackend>(
    root: &DrawingArea<DB, plotters::coord::Shift>,
    s: &Series,
    si: usize,
    x: i32,
    y: i32,
) -> Result<(), String> {
    let c = color(s.color);
    let idx = s.color.unwrap_or(si);
    let w = SAMPLE as i32;
    let err = |e: DrawingAreaErrorKind<DB::ErrorType>| e.to_string();
    match s.style {
        Style::Line => root
            .draw(&PathElement::new(
                vec![(x, y), (x + w, y)],
                c.stroke_width(3),
            ))
            .map_err(err)?,
        Style::Dashed | Style::DashedPoints => {
            for a in (0..w).step_by(14) {
                root.draw(&PathElement::new(
                    vec![(x + a, y), (x + (a + 8).min(w), y)],
                    c.stroke_width(3),
                ))
                .map_err(err)?;
            }
        }
        Style::PointsLine => root
            .draw(&PathElement::new(
                vec![(x, y), (x + w, y)],
                c.mix(0.5).stroke_width(1),
            ))
            .map_err(err)?,
        Style::Points => {}
    }
    if matches!(
        s.style,
        Style::Points | Style::PointsLine | Style::DashedPoints
    ) {
        let pts: Vec<(i32, i32)> = shape_scaled(idx, BOOK.marker)
            .into_iter()
            .map(|(dx, dy)| (x + w / 2 + dx, y + dy))
            .collect();
        root.draw(&Polygon::new(pts, c.filled())).map_err(err)?;
    }
    Ok(())
}

/// Category names under a categorical x axis, centred on their ticks (`at`, pixels of `area`)
/// and wrapped to the distance between ticks.
pub(super) fn category_labels<DB: DrawingBackend>(
    area: &DrawingArea<DB, plotters::coord::Shift>,
    at: &[(i32, i32)],
    names: &[String],
    size: u32,
) -> Result<(), String> {
    let slot = match at {
        [a, b, ..] => (b.0 - a.0).unsigned_abs().saturating_sub(8).max(40),
        _ => BOOK_WIDTH / 2,
    };
    let line = size + 4;
    for (&(x, y), name) in at.iter().zip(names) {
        for (i, l) in wrap(name, size, slot).iter().enumerate() {
            let ly = y + 8 + (i as u32 * line + line / 2) as i32;
            text(area, l, (x, ly), size, HPos::Center)?;
        }
    }
    Ok(())
}
