//! The result table of an experiment and its CSV form.

use crate::error::{Error, Result};
use std::path::Path;

/// One value.
#[derive(Debug, Clone, PartialEq)]
pub enum Cell {
    /// Nothing (an empty CSV field).
    Empty,
    /// An integer.
    Int(i64),
    /// A real number (NaN is written as an empty field).
    Num(f64),
    /// Text.
    Text(String),
}

impl Cell {
    /// The value as a number, if it is one.
    #[must_use]
    pub fn num(&self) -> Option<f64> {
        match self {
            Cell::Int(i) => Some(*i as f64),
            Cell::Num(v) if v.is_finite() => Some(*v),
            _ => None,
        }
    }

    /// The value as CSV text.
    #[must_use]
    pub fn text(&self) -> String {
        match self {
            Cell::Empty => String::new(),
            Cell::Int(i) => i.to_string(),
            Cell::Num(v) => fmt_num(*v),
            Cell::Text(s) => s.clone(),
        }
    }
}

impl From<f64> for Cell {
    fn from(v: f64) -> Self {
        Cell::Num(v)
    }
}
impl From<u64> for Cell {
    fn from(v: u64) -> Self {
        Cell::Int(i64::try_from(v).unwrap_or(i64::MAX))
    }
}
impl From<i64> for Cell {
    fn from(v: i64) -> Self {
        Cell::Int(v)
    }
}
impl From<u32> for Cell {
    fn from(v: u32) -> Self {
        Cell::Int(i64::from(v))
    }
}
impl From<usize> for Cell {
    fn from(v: usize) -> Self {
        Cell::Int(i64::try_from(v).unwrap_or(i64::MAX))
    }
}
impl From<&str> for Cell {
    fn from(v: &str) -> Self {
        Cell::Text(v.to_string())
    }
}
impl From<String> for Cell {
    fn from(v: String) -> Self {
        Cell::Text(v)
    }
}
impl<T: Into<Cell>> From<Option<T>> for Cell {
    fn from(v: Option<T>) -> Self {
        v.map_or(Cell::Empty, Into::into)
    }
}

/// Shortest round-trip text; scientific notation for very small or large magnitudes.
fn fmt_num(v: f64) -> String {
    if !v.is_finite() {
        return String::new();
    }
    let a = v.abs();
    if a != 0.0 && !(1e-5..1e16).contains(&a) {
        format!("{v:e}")
    } else {
        format!("{v}")
    }
}

/// A row under construction: named cells in insertion order.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Row(pub Vec<(String, Cell)>);

impl Row {
    /// An empty row.
    #[must_use]
    pub fn new() -> Self {
        Self::default()
    }

    /// Set a column (replacing an earlier value of the same name).
    pub fn set(&mut self, name: &str, value: impl Into<Cell>) -> &mut Self {
        let v = value.into();
        if let Some(slot) = self.0.iter_mut().find(|(n, _)| n == name) {
            slot.1 = v;
        } else {
            self.0.push((name.to_string(), v));
        }
        self
    }

    /// Read a column.
    #[must_use]
    pub fn get(&self, name: &str) -> Option<&Cell> {
        self.0.iter().find(|(n, _)| n == name).map(|(_, c)| c)
    }
}

/// A table: columns in first-seen order, rows of cells.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Table {
    /// Column names.
    pub columns: Vec<String>,
    /// Rows (each as long as `columns`).
    pub rows: Vec<Vec<Cell>>,
}

impl Table {
    /// Append a row; new column names are added at the end (earlier rows get empty cells).
    pub fn push(&mut self, row: Row) {
        for (name, _) in &row.0 {
            if !self.columns.iter().any(|c| c == name) {
                self.columns.push(name.clone());
                for r in &mut self.rows {
                    r.push(Cell::Empty);
                }
            }
        }
        let mut cells = vec![Cell::Empty; self.columns.len()];
        for (name, v) in row.0 {
            if let Some(i) = self.col(&name) {
                cells[i] = v;
            }
        }
        self.rows.push(cells);
    }

    /// Index of a column.
    #[must_use]
    pub fn col(&self, name: &str) -> Option<usize> {
        self.columns.iter().position(|c| c == name)
    }

    /// Cell of row `r`, column `name`.
    #[must_use]
    pub fn get(&self, r: usize, name: &str) -> Option<&Cell> {
        self.col(name)
            .and_then(|i| self.rows.get(r).map(|row| &row[i]))
    }

    /// Numeric value of row `r`, column `name`.
    #[must_use]
    pub fn num(&self, r: usize, name: &str) -> Option<f64> {
        self.get(r, name).and_then(Cell::num)
    }

    /// Text of row `r`, column `name` (empty when missing).
    #[must_use]
    pub fn text(&self, r: usize, name: &str) -> String {
        self.get(r, name).map(Cell::text).unwrap_or_default()
    }

    /// The table as CSV text (header line, then one line per row).
    ///
    /// # Errors
    /// Never in practice (writing to memory); typed for the CSV writer's sake.
    pub fn to_csv(&self) -> Result<String> {
        let mut w = csv::Writer::from_writer(Vec::new());
        let err = |e: csv::Error| Error::Io {
            path: "<csv>".into(),
            message: e.to_string(),
        };
        w.write_record(&self.columns).map_err(err)?;
        for r in &self.rows {
            w.write_record(r.iter().map(Cell::text)).map_err(err)?;
        }
        let bytes = w.into_inner().map_err(|e| Error::Io {
            path: "<csv>".into(),
            message: e.to_string(),
        })?;
        String::from_utf8(bytes).map_err(|e| Error::Io {
            path: "<csv>".into(),
            message: e.to_string(),
        })
    }

    /// Write the table as CSV.
    ///
    /// # Errors
    /// [`Error::Io`].
    pub fn write_csv(&self, path: &Path) -> Result<()> {
        self.write_csv_with(path, crate::fsutil::WriteOptions::default())
    }

    /// Write the table as CSV with these options ([`crate::fsutil::write_atomic_with`]).
    ///
    /// # Errors
    /// [`Error::Io`].
    pub fn write_csv_with(&self, path: &Path, opts: crate::fsutil::WriteOptions) -> Result<()> {
        let text = self.to_csv()?;
        crate::fsutil::write_atomic_with(path, opts, |w| w.write_all(text.as_bytes()))
    }

    /// Read a CSV written by [`Table::write_csv`] (numbers come back as numbers).
    ///
    /// # Errors
    /// [`Error::Io`] when the file cannot be read or parsed.
    pub fn read_csv(path: &Path) -> Result<Self> {
        let io = |m: String| Error::Io {
            path: path.display().to_string(),
            message: m,
        };
        let mut r = csv::Reader::from_path(path).map_err(|e| io(e.to_string()))?;
        let columns: Vec<String> = r
            .headers()
            .map_err(|e| io(e.to_string()))?
            .iter()
            .map(str::to_string)
            .collect();
        let mut rows = Vec::new();
        for rec in r.records() {
            let rec = rec.map_err(|e| io(e.to_string()))?;
            rows.push(
                rec.iter()
                    .map(|s| {
                        if s.is_empty() {
                            Cell::Empty
                        } else if let Ok(i) = s.parse::<i64>() {
                            Cell::Int(i)
                        } else if let Ok(v) = s.parse::<f64>() {
                            Cell::Num(v)
                        } else {
                            Cell::Text(s.to_string())
                        }
                    })
                    .collect(),
            );
        }
        Ok(Self { columns, rows })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn columns_grow_and_csv_round_trips() {
        let mut t = Table::default();
        let mut r = Row::new();
        r.set("series", "a").set("x", 1u64).set("fpr", 0.0123);
        t.push(r);
        let mut r = Row::new();
        r.set("series", "b").set("x", 2u64).set("extra", 1e-9);
        t.push(r);
        assert_eq!(t.columns, ["series", "x", "fpr", "extra"]);
        assert_eq!(t.get(0, "extra"), Some(&Cell::Empty));
        let csv = t.to_csv().unwrap();
        assert_eq!(csv.lines().next(), Some("series,x,fpr,extra"));
        assert_eq!(csv.lines().nth(2), Some("b,2,,1e-9"));
        let dir = std::env::temp_dir().join(format!("bloomlab-table-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let p = dir.join("t.csv");
        t.write_csv(&p).unwrap();
        let back = Table::read_csv(&p).unwrap();
        assert_eq!(back.num(0, "fpr"), Some(0.0123));
        assert_eq!(back.num(1, "extra"), Some(1e-9));
        assert_eq!(back.text(1, "series"), "b");
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
