//! The RedisBloom module's filters (`BF.*` Bloom, `CF.*` cuckoo), hashed on the server: the
//! peers [`super::BitmapBloom`] is compared with. Each batch is one round trip.

use super::conn::RedisConn;
use crate::error::{Error, Result};
use redis::Value;

/// Items per round trip by default.
pub const DEFAULT_BATCH: usize = 1000;

/// Turn "unknown command" into an error that names the missing module.
fn module_error(conn: &RedisConn, e: Error, command: &str) -> Error {
    match e {
        Error::Redis {
            message,
            connection: false,
            ..
        } if message.to_ascii_lowercase().contains("unknown command") => Error::Redis {
            target: format!("module RedisBloom on {}", conn.addr()),
            message: format!(
                "not loaded: the server does not know {command} (start redis-server with \
                 --loadmodule /path/to/redisbloom.so); server said: {message}"
            ),
            connection: false,
        },
        other => other,
    }
}

fn ints(v: Vec<Value>) -> Vec<bool> {
    v.iter().map(|v| matches!(v, Value::Int(1))).collect()
}

/// Server memory of `key` (`MEMORY USAGE key SAMPLES 0`), bytes.
///
/// # Errors
/// [`Error::Redis`].
pub fn memory_usage(conn: &mut RedisConn, key: &str) -> Result<u64> {
    let v: Option<u64> = conn.query(
        redis::cmd("MEMORY")
            .arg("USAGE")
            .arg(key)
            .arg("SAMPLES")
            .arg(0),
        &format!("key {key}"),
    )?;
    Ok(v.unwrap_or(0))
}

/// Whether the server has the RedisBloom module (`BF.*` commands).
///
/// # Errors
/// [`Error::Redis`] when the server fails.
pub fn has_redisbloom(conn: &mut RedisConn) -> Result<bool> {
    let v: Value = conn.query(
        redis::cmd("COMMAND").arg("INFO").arg("BF.RESERVE"),
        "COMMAND INFO",
    )?;
    Ok(matches!(v, Value::Array(ref a) if a.iter().any(|x| !matches!(x, Value::Nil))))
}

/// A RedisBloom Bloom filter (`BF.RESERVE`, `BF.MADD`, `BF.MEXISTS`, `BF.INFO`).
#[derive(Debug)]
pub struct BfFilter {
    conn: RedisConn,
    key: String,
    batch: usize,
}

impl BfFilter {
    /// `BF.RESERVE key p n` (a scaling filter with RedisBloom's default expansion 2; with
    /// `nonscaling`, a fixed one that refuses items past `n`).
    ///
    /// # Errors
    /// [`Error::Redis`] naming the module when it is not loaded, or the key when it exists.
    pub fn reserve(
        mut conn: RedisConn,
        key: &str,
        p: f64,
        n: u64,
        nonscaling: bool,
    ) -> Result<Self> {
        let mut c = redis::cmd("BF.RESERVE");
        c.arg(key).arg(p).arg(n);
        if nonscaling {
            c.arg("NONSCALING");
        }
        if let Err(e) = conn.query::<()>(&c, &format!("key {key}")) {
            return Err(module_error(&conn, e, "BF.RESERVE"));
        }
        Ok(Self {
            conn,
            key: key.to_string(),
            batch: DEFAULT_BATCH,
        })
    }

    /// Items per round trip.
    pub fn set_batch(&mut self, items: usize) {
        self.batch = items.max(1);
    }

    /// The connection.
    pub fn conn(&mut self) -> &mut RedisConn {
        &mut self.conn
    }

    /// `BF.MADD`, one round trip per batch; returns how many items were new.
    ///
    /// # Errors
    /// [`Error::Redis`].
    pub fn add_many<T: AsRef<[u8]>>(&mut self, items: &[T]) -> Result<u64> {
        let mut new = 0;
        for chunk in items.chunks(self.batch) {
            let mut c = redis::cmd("BF.MADD");
            c.arg(&self.key);
            for it in chunk {
                c.arg(it.as_ref());
            }
            let r: Vec<Value> = self
                .conn
                .query(&c, &format!("key {}", self.key))
                .map_err(|e| module_error(&self.conn, e, "BF.MADD"))?;
            new += ints(r).iter().filter(|&&b| b).count() as u64;
        }
        Ok(new)
    }

    /// `BF.MEXISTS`, one round trip per batch.
    ///
    /// # Errors
    /// [`Error::Redis`].
    pub fn contains_many<T: AsRef<[u8]>>(&mut self, items: &[T]) -> Result<Vec<bool>> {
        let mut out = Vec::with_capacity(items.len());
        for chunk in items.chunks(self.batch) {
            let mut c = redis::cmd("BF.MEXISTS");
            c.arg(&self.key);
            for it in chunk {
                c.arg(it.as_ref());
            }
            let r: Vec<Value> = self
                .conn
                .query(&c, &format!("key {}", self.key))
                .map_err(|e| module_error(&self.conn, e, "BF.MEXISTS"))?;
            out.extend(ints(r));
        }
        Ok(out)
    }

    /// `BF.INFO` as name/value pairs (Capacity, Size, Number of filters, …).
    ///
    /// # Errors
    /// [`Error::Redis`].
    pub fn info(&mut self) -> Result<Vec<(String, String)>> {
        let v: Value = self
            .conn
            .query(
                redis::cmd("BF.INFO").arg(&self.key),
                &format!("key {}", self.key),
            )
            .map_err(|e| module_error(&self.conn, e, "BF.INFO"))?;
        Ok(pairs(v))
    }

    /// Server memory of the key.
    ///
    /// # Errors
    /// [`Error::Redis`].
    pub fn memory(&mut self) -> Result<u64> {
        memory_usage(&mut self.conn, &self.key)
    }

    /// Delete the key.
    ///
    /// # Errors
    /// [`Error::Redis`].
    pub fn delete(&mut self) -> Result<()> {
        self.conn
            .query::<u64>(redis::cmd("UNLINK").arg(&self.key), &self.key)
            .map(|_| ())
    }
}

/// A RedisBloom cuckoo filter (`CF.RESERVE`, `CF.ADD`, `CF.MEXISTS`).
#[derive(Debug)]
pub struct CfFilter {
    conn: RedisConn,
    key: String,
    batch: usize,
}

impl CfFilter {
    /// `CF.RESERVE key capacity` (RedisBloom's defaults: buckets of 2 slots, 8-bit
    /// fingerprints, expansion 1).
    ///
    /// # Errors
    /// [`Error::Redis`] naming the module when it is not loaded.
    pub fn reserve(mut conn: RedisConn, key: &str, capacity: u64) -> Result<Self> {
        if let Err(e) = conn.query::<()>(
            redis::cmd("CF.RESERVE").arg(key).arg(capacity),
            &format!("key {key}"),
        ) {
            return Err(module_error(&conn, e, "CF.RESERVE"));
        }
        Ok(Self {
            conn,
            key: key.to_string(),
            batch: DEFAULT_BATCH,
        })
    }

    /// Items per round trip.
    pub fn set_batch(&mut self, items: usize) {
        self.batch = items.max(1);
    }

    /// The connection.
    pub fn conn(&mut self) -> &mut RedisConn {
        &mut self.conn
    }

    /// `CF.ADD` per item, pipelined: one round trip per batch. Returns how many were added.
    ///
    /// # Errors
    /// [`Error::Redis`] (e.g. "Filter is full").
    pub fn add_many<T: AsRef<[u8]>>(&mut self, items: &[T]) -> Result<u64> {
        let mut added = 0;
        for chunk in items.chunks(self.batch) {
            let cmds = chunk
                .iter()
                .map(|it| {
                    let mut c = redis::cmd("CF.ADD");
                    c.arg(&self.key).arg(it.as_ref());
                    c
                })
                .collect();
            let r = self
                .conn
                .pipeline(cmds, &format!("key {}", self.key))
                .map_err(|e| module_error(&self.conn, e, "CF.ADD"))?;
            added += ints(r).iter().filter(|&&b| b).count() as u64;
        }
        Ok(added)
    }

    /// `CF.MEXISTS`, one round trip per batch.
    ///
    /// # Errors
    /// [`Error::Redis`].
    pub fn contains_many<T: AsRef<[u8]>>(&mut self, items: &[T]) -> Result<Vec<bool>> {
        let mut out = Vec::with_capacity(items.len());
        for chunk in items.chunks(self.batch) {
            let mut c = redis::cmd("CF.MEXISTS");
            c.arg(&self.key);
            for it in chunk {
                c.arg(it.as_ref());
            }
            let r: Vec<Value> = self
                .conn
                .query(&c, &format!("key {}", self.key))
                .map_err(|e| module_error(&self.conn, e, "CF.MEXISTS"))?;
            out.extend(ints(r));
        }
        Ok(out)
    }

    /// `CF.INFO` as name/value pairs.
    ///
    /// # Errors
    /// [`Error::Redis`].
    pub fn info(&mut self) -> Result<Vec<(String, String)>> {
        let v: Value = self
            .conn
            .query(
                redis::cmd("CF.INFO").arg(&self.key),
                &format!("key {}", self.key),
            )
            .map_err(|e| module_error(&self.conn, e, "CF.INFO"))?;
        Ok(pairs(v))
    }

    /// Server memory of the key.
    ///
    /// # Errors
    /// [`Error::Redis`].
    pub fn memory(&mut self) -> Result<u64> {
        memory_usage(&mut self.conn, &self.key)
    }

    /// Delete the key.
    ///
    /// # Errors
    /// [`Error::Redis`].
    pub fn delete(&mut self) -> Result<()> {
        self.conn
            .query::<u64>(redis::cmd("UNLINK").arg(&self.key), &self.key)
            .map(|_| ())
    }
}

fn text(v: &Value) -> String {
    match v {
        Value::Int(i) => i.to_string(),
        Value::BulkString(b) => String::from_utf8_lossy(b).into_owned(),
        Value::SimpleString(s) => s.clone(),
        Value::Double(d) => d.to_string(),
        Value::Nil => "nil".into(),
        other => format!("{other:?}"),
    }
}

/// A flat `[name, value, name, value, …]` array (RESP2) or a map (RESP3) as pairs.
fn pairs(v: Value) -> Vec<(String, String)> {
    match v {
        Value::Array(a) => a
            .chunks(2)
            .filter(|c| c.len() == 2)
            .map(|c| (text(&c[0]), text(&c[1])))
            .collect(),
        Value::Map(m) => m.iter().map(|(a, b)| (text(a), text(b))).collect(),
        _ => Vec::new(),
    }
}
