//! The demo's product database (a SQLite file), and the rule that keeps the demo away from data
//! it did not create.
//!
//! Every database the demo creates gets a marker: a table [`MARKER_TABLE`] holding the row
//! `created_by = bloomlab redis penetration`. The demo fills (and refills) the `products` table
//! only of a database that is new or carries the marker; an existing file without it is refused
//! ([`check`]) unless the caller says `overwrite`, and then only the `products` table is replaced
//! (other tables are left alone) and the marker added.

use bloomlab::hash::mix64;
use bloomlab::{Error, Param, Result};
use rusqlite::{Connection, OpenFlags};
use std::fs::File;
use std::path::{Path, PathBuf};

/// The table that marks a database as the demo's.
pub const MARKER_TABLE: &str = "bloomlab_demo";
const MARKER_KEY: &str = "created_by";
const MARKER_VALUE: &str = "bloomlab redis penetration";

/// What is at a database path, found without changing anything.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Found {
    /// Nothing: the demo creates the file.
    New,
    /// A database the demo created (it carries the marker).
    Ours,
    /// An existing file without the marker (someone else's data, or an empty file).
    Foreign,
}

fn db_err(path: &str, e: &rusqlite::Error) -> Error {
    Error::Io {
        path: path.to_string(),
        message: format!("sqlite: {e}"),
    }
}

/// Look at `path` read-only: is it free, the demo's, or someone else's?
///
/// # Errors
/// [`Error::Io`] when the path cannot be read, or is not a SQLite database.
pub fn inspect(path: &Path) -> Result<Found> {
    let p = path.display().to_string();
    match std::fs::symlink_metadata(path) {
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(Found::New),
        Err(e) => {
            return Err(Error::Io {
                path: p,
                message: e.to_string(),
            });
        }
        Ok(_) => {}
    }
    let conn = Connection::open_with_flags(
        path,
        OpenFlags::SQLITE_OPEN_READ_ONLY | OpenFlags::SQLITE_OPEN_NO_MUTEX,
    )
    .map_err(|e| db_err(&p, &e))?;
    let has_table: i64 = conn
        .query_row(
            "SELECT COUNT(*) FROM sqlite_master WHERE type = 'table' AND name = ?1",
            [MARKER_TABLE],
            |r| r.get(0),
        )
        .map_err(|e| db_err(&p, &e))?;
    if has_table == 0 {
        return Ok(Found::Foreign);
    }
    let marked: i64 = conn
        .query_row(
            &format!("SELECT COUNT(*) FROM {MARKER_TABLE} WHERE key = ?1 AND value = ?2"),
            [MARKER_KEY, MARKER_VALUE],
            |r| r.get(0),
        )
        .unwrap_or(0);
    Ok(if marked > 0 {
        Found::Ours
    } else {
        Found::Foreign
    })
}

/// Refuse a database the demo did not create unless `overwrite` is given; answers what is there.
///
/// # Errors
/// [`Error::InvalidParameter`] naming `db` (exit status 2 on the command line); as [`inspect`].
pub fn check(path: &Path, overwrite: bool) -> Result<Found> {
    let found = inspect(path)?;
    if found == Found::Foreign && !overwrite {
        return Err(Error::invalid(
            Param::Other("db"),
            format!(
                "{} exists and was not created by this demo (it has no {MARKER_TABLE} table), \
                 so its products table is left alone",
                path.display()
            ),
            "a path that does not exist yet, a database the demo created, or --overwrite to \
             let the demo replace the products table",
        ));
    }
    Ok(found)
}

/// An exclusive lock on a database: the lock file `DB.lock` beside the database's real path
/// (links resolved), locked with `flock`; held while the value lives, removed when dropped. Two
/// demos on one database would refill its table under each other.
#[derive(Debug)]
pub struct DbLock {
    path: PathBuf,
    _file: File,
}

/// Lock `db` for this run, or refuse at once when another run holds it.
///
/// # Errors
/// [`Error::Io`] naming the database when another run holds the lock (exit status 3: retry
/// when it ends) or the lock file cannot be made.
pub fn lock(db: &Path) -> Result<DbLock> {
    let io = |message: String| Error::Io {
        path: db.display().to_string(),
        message,
    };
    let real = std::fs::canonicalize(db).or_else(|_| {
        let dir = db.parent().filter(|d| !d.as_os_str().is_empty());
        let dir = std::fs::canonicalize(dir.unwrap_or(Path::new(".")))?;
        Ok::<_, std::io::Error>(dir.join(db.file_name().unwrap_or_default()))
    });
    let real = real.map_err(|e| io(format!("cannot resolve the path: {e}")))?;
    let mut name = real.into_os_string();
    name.push(".lock");
    let path = PathBuf::from(name);
    // A run that ends removes its lock file: lock again if the file locked is not the one at
    // the path any more.
    for _ in 0..8 {
        let file = std::fs::OpenOptions::new()
            .create(true)
            .truncate(false)
            .write(true)
            .open(&path)
            .map_err(|e| {
                io(format!(
                    "cannot create the lock file {}: {e}",
                    path.display()
                ))
            })?;
        match file.try_lock() {
            Ok(()) => {}
            Err(std::fs::TryLockError::WouldBlock) => {
                return Err(io(format!(
                    "in use by another `bloomlab redis penetration` (lock file {}); run again \
                     when it has ended, or give another --db",
                    path.display()
                )));
            }
            Err(std::fs::TryLockError::Error(e)) => {
                return Err(io(format!("cannot lock {}: {e}", path.display())));
            }
        }
        if same_inode(&file, &path) {
            return Ok(DbLock { path, _file: file });
        }
    }
    Err(io(format!(
        "cannot lock {}: it keeps being replaced",
        path.display()
    )))
}

#[cfg(unix)]
fn same_inode(file: &File, path: &Path) -> bool {
    use std::os::unix::fs::MetadataExt;
    match (file.metadata(), std::fs::metadata(path)) {
        (Ok(a), Ok(b)) => a.dev() == b.dev() && a.ino() == b.ino(),
        _ => false,
    }
}

#[cfg(not(unix))]
fn same_inode(_file: &File, path: &Path) -> bool {
    path.exists()
}

impl DbLock {
    /// The lock file.
    #[must_use]
    pub fn path(&self) -> &Path {
        &self.path
    }
}

impl Drop for DbLock {
    fn drop(&mut self) {
        // Removed while still locked; a run waiting on the old file sees it is gone.
        let _ = std::fs::remove_file(&self.path);
    }
}

/// The product database.
#[derive(Debug)]
pub struct ProductDb {
    conn: Connection,
    path: String,
    queries: u64,
}

impl ProductDb {
    /// Open `path` so that it holds exactly `products` products: create it (with the marker), or
    /// refill the demo's own database; a database the demo did not create is refused unless
    /// `overwrite` ([`check`]), and then its `products` table is replaced.
    ///
    /// # Errors
    /// As [`check`]; [`Error::Io`] naming the file.
    pub fn open(path: &Path, products: u64, overwrite: bool) -> Result<Self> {
        let found = check(path, overwrite)?;
        let p = path.display().to_string();
        let conn = Connection::open_with_flags(
            path,
            OpenFlags::SQLITE_OPEN_READ_WRITE
                | OpenFlags::SQLITE_OPEN_CREATE
                | OpenFlags::SQLITE_OPEN_NO_MUTEX,
        )
        .map_err(|e| db_err(&p, &e))?;
        let replace = if found == Found::Foreign {
            "DROP TABLE IF EXISTS products;"
        } else {
            ""
        };
        conn.execute_batch(&format!(
            "BEGIN;
             CREATE TABLE IF NOT EXISTS {MARKER_TABLE} (key TEXT PRIMARY KEY, value TEXT NOT NULL);
             INSERT OR REPLACE INTO {MARKER_TABLE} (key, value) VALUES ('{MARKER_KEY}', '{MARKER_VALUE}');
             {replace}
             CREATE TABLE IF NOT EXISTS products (
                 id INTEGER PRIMARY KEY, name TEXT NOT NULL, price_cents INTEGER NOT NULL);
             COMMIT;"
        ))
        .map_err(|e| db_err(&p, &e))?;
        let (count, max): (i64, i64) = conn
            .query_row(
                "SELECT COUNT(*), COALESCE(MAX(id), 0) FROM products",
                [],
                |r| Ok((r.get(0)?, r.get(1)?)),
            )
            .map_err(|e| db_err(&p, &e))?;
        let want = i64::try_from(products)
            .map_err(|_| Error::invalid(Param::Other("products"), products, "at most 2^63 - 1"))?;
        if count != want || max != want {
            conn.execute_batch("BEGIN; DELETE FROM products;")
                .map_err(|e| db_err(&p, &e))?;
            {
                let mut st = conn
                    .prepare("INSERT INTO products (id, name, price_cents) VALUES (?1, ?2, ?3)")
                    .map_err(|e| db_err(&p, &e))?;
                for id in 1..=want {
                    st.execute(rusqlite::params![
                        id,
                        format!("product {id}"),
                        (mix64(id as u64) % 100_000) as i64
                    ])
                    .map_err(|e| db_err(&p, &e))?;
                }
            }
            conn.execute_batch("COMMIT;").map_err(|e| db_err(&p, &e))?;
        }
        Ok(Self {
            conn,
            path: p,
            queries: 0,
        })
    }

    /// `SELECT` one product; counts a database query.
    ///
    /// # Errors
    /// [`Error::Io`].
    pub fn lookup(&mut self, id: u64) -> Result<Option<String>> {
        self.queries += 1;
        let Ok(id) = i64::try_from(id) else {
            return Ok(None); // above every id SQLite can hold
        };
        let mut st = self
            .conn
            .prepare_cached("SELECT name, price_cents FROM products WHERE id = ?1")
            .map_err(|e| db_err(&self.path, &e))?;
        let mut rows = st.query([id]).map_err(|e| db_err(&self.path, &e))?;
        match rows.next().map_err(|e| db_err(&self.path, &e))? {
            Some(r) => {
                let name: String = r.get(0).map_err(|e| db_err(&self.path, &e))?;
                let price: i64 = r.get(1).map_err(|e| db_err(&self.path, &e))?;
                Ok(Some(format!("{name}|{price}")))
            }
            None => Ok(None),
        }
    }

    /// Every product id, ascending (for building the filter from the database).
    ///
    /// # Errors
    /// [`Error::Io`].
    pub fn ids(&self) -> Result<Vec<u64>> {
        let mut st = self
            .conn
            .prepare("SELECT id FROM products ORDER BY id")
            .map_err(|e| db_err(&self.path, &e))?;
        let ids = st
            .query_map([], |r| r.get::<_, i64>(0))
            .map_err(|e| db_err(&self.path, &e))?
            .map(|r| r.map(|v| v as u64).map_err(|e| db_err(&self.path, &e)))
            .collect::<Result<Vec<_>>>()?;
        Ok(ids)
    }

    /// Queries made so far.
    #[must_use]
    pub fn queries(&self) -> u64 {
        self.queries
    }

    /// Check that the products table still holds exactly what [`ProductDb::open`] wrote for
    /// `products` products (row count, largest id, sum of prices): run before a report, so a
    /// table changed under the run is not reported on.
    ///
    /// # Errors
    /// [`Error::Io`] naming the file and what differs.
    pub fn verify(&self, products: u64) -> Result<()> {
        let (count, max, sum): (i64, i64, i64) = self
            .conn
            .query_row(
                "SELECT COUNT(*), COALESCE(MAX(id), 0), COALESCE(SUM(price_cents), 0) FROM products",
                [],
                |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)),
            )
            .map_err(|e| db_err(&self.path, &e))?;
        let want_sum: u64 = (1..=products).map(|id| mix64(id) % 100_000).sum();
        let want = (products as i64, products as i64, want_sum as i64);
        if (count, max, sum) != want {
            return Err(Error::Io {
                path: self.path.clone(),
                message: format!(
                    "the products table changed during the run ({count} rows, largest id {max}, \
                     price sum {sum}; expected {}, {}, {}): another program wrote to the \
                     database, so the results are not reported",
                    want.0, want.1, want.2
                ),
            });
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A database somebody else made: a `products` table with 5 rows of their own, no marker.
    pub(crate) fn foreign_db(path: &Path) {
        let c = Connection::open(path).unwrap();
        c.execute_batch(
            "CREATE TABLE products (id INTEGER PRIMARY KEY, name TEXT NOT NULL, \
             price_cents INTEGER NOT NULL);
             INSERT INTO products VALUES (1, 'mine 1', 1), (2, 'mine 2', 2), (3, 'mine 3', 3),
                 (4, 'mine 4', 4), (5, 'mine 5', 5);
             CREATE TABLE customers (id INTEGER PRIMARY KEY, name TEXT);
             INSERT INTO customers VALUES (1, 'ana');",
        )
        .unwrap();
    }

    pub(crate) fn rows(path: &Path, table: &str) -> Vec<(i64, String)> {
        let c = Connection::open(path).unwrap();
        let mut st = c
            .prepare(&format!("SELECT id, name FROM {table} ORDER BY id"))
            .unwrap();
        st.query_map([], |r| Ok((r.get(0)?, r.get(1)?)))
            .unwrap()
            .map(|r| r.unwrap())
            .collect()
    }

    #[test]
    fn sqlite_database_holds_the_products() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("p.sqlite");
        assert_eq!(inspect(&path).unwrap(), Found::New);
        let mut db = ProductDb::open(&path, 50, false).unwrap();
        assert!(db.lookup(50).unwrap().unwrap().starts_with("product 50|"));
        assert_eq!(db.lookup(51).unwrap(), None);
        assert_eq!(db.lookup(u64::MAX).unwrap(), None);
        assert_eq!(db.queries(), 3);
        assert_eq!(db.ids().unwrap().len(), 50);
        drop(db);
        // The demo's own database carries the marker; reopening with another size refills it.
        assert_eq!(inspect(&path).unwrap(), Found::Ours);
        let db = ProductDb::open(&path, 20, false).unwrap();
        assert_eq!(db.ids().unwrap(), (1..=20).collect::<Vec<_>>());
    }

    #[test]
    fn a_database_the_demo_did_not_create_is_refused_and_left_alone() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("userdb.sqlite");
        foreign_db(&path);
        let before = std::fs::read(&path).unwrap();
        assert_eq!(inspect(&path).unwrap(), Found::Foreign);
        let e = ProductDb::open(&path, 100, false).unwrap_err();
        assert!(
            matches!(
                e,
                Error::InvalidParameter {
                    param: Param::Other("db"),
                    ..
                }
            ),
            "{e:?}"
        );
        let msg = e.to_string();
        assert!(
            msg.contains("userdb.sqlite")
                && msg.contains(MARKER_TABLE)
                && msg.contains("--overwrite")
                && !msg.contains('\n'),
            "{msg}"
        );
        assert_eq!(
            std::fs::read(&path).unwrap(),
            before,
            "the file was changed"
        );
        assert_eq!(rows(&path, "products").len(), 5);
        // An empty file is an existing file too: refused.
        let empty = dir.path().join("empty.sqlite");
        std::fs::write(&empty, b"").unwrap();
        assert!(check(&empty, false).is_err());
        assert_eq!(std::fs::read(&empty).unwrap(), b"");
    }

    #[test]
    fn overwrite_replaces_only_the_products_table_and_marks_the_database() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("userdb.sqlite");
        foreign_db(&path);
        let db = ProductDb::open(&path, 8, true).unwrap();
        assert_eq!(db.ids().unwrap(), (1..=8).collect::<Vec<_>>());
        drop(db);
        assert!(
            rows(&path, "products")
                .iter()
                .all(|r| r.1.starts_with("product "))
        );
        assert_eq!(rows(&path, "customers"), vec![(1, "ana".to_string())]);
        assert_eq!(inspect(&path).unwrap(), Found::Ours);
        // A marker table without the marker row does not count.
        let other = dir.path().join("other.sqlite");
        Connection::open(&other)
            .unwrap()
            .execute_batch(&format!(
                "CREATE TABLE {MARKER_TABLE} (key TEXT PRIMARY KEY, value TEXT NOT NULL);"
            ))
            .unwrap();
        assert_eq!(inspect(&other).unwrap(), Found::Foreign);
    }

    #[test]
    fn one_run_at_a_time_holds_a_database_and_a_changed_table_is_caught() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("p.sqlite");
        let held = lock(&path).unwrap();
        let e = lock(&path).unwrap_err().to_string();
        assert!(
            e.contains("in use by another") && e.contains("p.sqlite.lock"),
            "{e}"
        );
        drop(held);
        assert!(!dir.path().join("p.sqlite.lock").exists());
        let again = lock(&path).unwrap();
        let db = ProductDb::open(&path, 30, false).unwrap();
        db.verify(30).unwrap();
        Connection::open(&path)
            .unwrap()
            .execute_batch("UPDATE products SET price_cents = price_cents + 1 WHERE id = 7;")
            .unwrap();
        let e = db.verify(30).unwrap_err().to_string();
        assert!(e.contains("changed during the run"), "{e}");
        drop(again);
    }

    #[test]
    fn a_file_that_is_not_a_database_is_an_error() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("notes.txt");
        std::fs::write(&path, "my notes, not a database\n".repeat(100)).unwrap();
        let e = check(&path, true).unwrap_err();
        assert!(matches!(e, Error::Io { .. }), "{e:?}");
        assert_eq!(
            std::fs::read_to_string(&path).unwrap(),
            "my notes, not a database\n".repeat(100)
        );
    }
}
