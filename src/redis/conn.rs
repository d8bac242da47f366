//! One connection to a Redis server or a Redis Cluster, with typed errors that name the server
//! and key, a round-trip counter, and reconnection after a failed connection.

use crate::error::{Error, Result};
use redis::cluster::{ClusterClient, ClusterConnection, ClusterPipeline};
use redis::{Cmd, ConnectionLike, FromRedisValue, RedisError, Value};
use std::fmt;
use std::time::Duration;

/// How long to wait for a TCP connection before calling the server unreachable.
pub const CONNECT_TIMEOUT: Duration = Duration::from_secs(3);
/// How long to wait for a reply before calling the connection lost.
pub const RESPONSE_TIMEOUT: Duration = Duration::from_secs(60);

enum Inner {
    Single(redis::Connection),
    Cluster(Box<ClusterConnection>),
}

/// A connection to one Redis server (`redis://127.0.0.1:6379`) or to a Redis Cluster (several
/// comma-separated seed URLs, or one URL with [`RedisConn::open_cluster`]).
///
/// Every operation that goes to the server counts one *round trip* ([`RedisConn::round_trips`]):
/// a pipeline of many commands to one node is one round trip. After a connection failure the
/// next operation reconnects first.
pub struct RedisConn {
    inner: Option<Inner>,
    urls: Vec<String>,
    cluster: bool,
    addr: String,
    round_trips: u64,
}

impl fmt::Debug for RedisConn {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("RedisConn")
            .field("addr", &self.addr)
            .field("cluster", &self.cluster)
            .field("connected", &self.inner.is_some())
            .field("round_trips", &self.round_trips)
            .finish()
    }
}

/// A server address for people: `redis://:pw@host:port/2?x=y` → `host:port`, `unix:///run/r.sock`
/// → `unix:/run/r.sock`, several comma-separated seed URLs → `a:1,b:2`. User names, passwords,
/// database numbers and query parameters (which may carry a password) are never shown. Every
/// message and header bloomlab prints about a server goes through this function.
///
/// ```
/// use bloomlab::redis::conn::display_addr;
/// assert_eq!(display_addr("redis://:s3cret@127.0.0.1:6390/2"), "127.0.0.1:6390");
/// assert_eq!(display_addr("unix:///tmp/redis.sock?pass=s3cret"), "unix:/tmp/redis.sock");
/// assert_eq!(display_addr("redis://a:1, redis://u:p@b:2"), "a:1,b:2");
/// ```
#[must_use]
pub fn display_addr(spec: &str) -> String {
    spec.split(',')
        .map(str::trim)
        .filter(|s| !s.is_empty())
        .map(one_addr)
        .collect::<Vec<_>>()
        .join(",")
}

fn one_addr(url: &str) -> String {
    let (scheme, rest) = url.split_once("://").unwrap_or(("", url));
    // Query parameters (`?pass=…`) and fragments are never shown.
    let rest = rest.split(['?', '#']).next().unwrap_or("");
    let rest = rest.rsplit_once('@').map_or(rest, |(_, r)| r);
    if scheme.ends_with("unix") {
        return format!("unix:{rest}");
    }
    rest.split('/').next().unwrap_or(rest).to_string()
}

/// At most this many of a pipeline's failed commands are quoted in an error; the rest are counted.
const QUOTED_FAILURES: usize = 3;
/// A message from the server or the client is cut to this many characters.
const MESSAGE_CHARS: usize = 300;

/// `text` cut to [`MESSAGE_CHARS`] characters, saying how much was left out.
fn cut(text: &str) -> String {
    match text.char_indices().nth(MESSAGE_CHARS) {
        None => text.to_string(),
        Some((i, _)) => format!("{}… ({} more characters)", &text[..i], text.len() - i),
    }
}

/// A client error as one short line: a timeout says how long it waited; a pipeline's failures
/// are the first few and a count (a batch of 100,000 commands refused for lack of memory is not
/// a 40 KB line); a `MOVED` reply says the server is a cluster node.
/// `waited`: the timeout that applied (connecting or waiting for a reply).
fn describe(e: &RedisError, waited: Duration) -> String {
    if e.is_timeout() {
        return format!(
            "no reply within {:.0} s (the server is busy, frozen or unreachable; a command may \
             or may not have run)",
            waited.as_secs_f64()
        );
    }
    let mut text = match e.clone().into_server_errors() {
        Some(errs) if errs.len() > 1 => {
            let quoted: Vec<String> = errs
                .iter()
                .take(QUOTED_FAILURES)
                .map(|(i, err)| format!("command {}: {}", i + 1, cut(&err.to_string())))
                .collect();
            format!(
                "{} commands of the batch failed; the first {}: {}",
                errs.len(),
                quoted.len(),
                quoted.join("; ")
            )
        }
        _ => cut(&e.to_string()),
    };
    if e.kind() == redis::ErrorKind::Server(redis::ServerErrorKind::Moved) || text.contains("Moved")
    {
        text.push_str(
            " (the server is a Redis Cluster node: give several seed URLs, comma-separated, \
             e.g. redis://127.0.0.1:7001,redis://127.0.0.1:7002)",
        );
    }
    text
}

impl RedisConn {
    /// Connect to `spec`: one URL for a single server, or several comma-separated URLs for the
    /// seed nodes of a Redis Cluster.
    ///
    /// # Errors
    /// [`Error::Redis`] naming the address when the URL is malformed or the server unreachable.
    pub fn open(spec: &str) -> Result<Self> {
        let urls: Vec<String> = spec
            .split(',')
            .map(str::trim)
            .filter(|s| !s.is_empty())
            .map(String::from)
            .collect();
        match urls.len() {
            0 => Err(Error::Redis {
                target: "server".into(),
                message: "no URL given (expected redis://HOST:PORT)".into(),
                connection: false,
            }),
            1 => Self::open_single(&urls[0]),
            _ => Self::open_cluster(&urls),
        }
    }

    /// Connect to a single server.
    ///
    /// # Errors
    /// [`Error::Redis`] naming the address.
    pub fn open_single(url: &str) -> Result<Self> {
        let mut c = Self {
            inner: None,
            urls: vec![url.to_string()],
            cluster: false,
            addr: display_addr(url),
            round_trips: 0,
        };
        c.connect()?;
        Ok(c)
    }

    /// Connect to a Redis Cluster through one or more seed nodes.
    ///
    /// # Errors
    /// [`Error::Redis`] naming the seed addresses.
    pub fn open_cluster<S: AsRef<str>>(urls: &[S]) -> Result<Self> {
        let urls: Vec<String> = urls.iter().map(|u| u.as_ref().to_string()).collect();
        let addr = format!("cluster {}", display_addr(&urls.join(",")));
        let mut c = Self {
            inner: None,
            urls,
            cluster: true,
            addr,
            round_trips: 0,
        };
        c.connect()?;
        Ok(c)
    }

    fn connect(&mut self) -> Result<()> {
        let started = std::time::Instant::now();
        // A timeout says how long connecting took (the connection and the client's setup
        // commands each wait up to CONNECT_TIMEOUT).
        let unreachable = |e: RedisError, addr: &str| Error::Redis {
            target: format!("server {addr}"),
            message: format!("cannot connect: {}", describe(&e, started.elapsed())),
            connection: true,
        };
        let inner = if self.cluster {
            let client = ClusterClient::builder(self.urls.clone())
                .connection_timeout(CONNECT_TIMEOUT)
                .response_timeout(RESPONSE_TIMEOUT)
                .retries(2)
                .build()
                .map_err(|e| unreachable(e, &self.addr))?;
            Inner::Cluster(Box::new(
                client
                    .get_connection()
                    .map_err(|e| unreachable(e, &self.addr))?,
            ))
        } else {
            let client = redis::Client::open(self.urls[0].as_str())
                .map_err(|e| unreachable(e, &self.addr))?;
            let con = client
                .get_connection_with_timeout(CONNECT_TIMEOUT)
                .map_err(|e| unreachable(e, &self.addr))?;
            con.set_read_timeout(Some(RESPONSE_TIMEOUT))
                .map_err(|e| unreachable(e, &self.addr))?;
            con.set_write_timeout(Some(RESPONSE_TIMEOUT))
                .map_err(|e| unreachable(e, &self.addr))?;
            Inner::Single(con)
        };
        self.inner = Some(inner);
        Ok(())
    }

    /// The server address (or `cluster a,b,c`), for messages.
    #[must_use]
    pub fn addr(&self) -> &str {
        &self.addr
    }

    /// True for a Redis Cluster connection.
    #[must_use]
    pub fn is_cluster(&self) -> bool {
        self.cluster
    }

    /// Round trips made so far (a pipeline or a script call is one; the first call of a script on
    /// a server that does not have it cached also loads it, two more round trips not counted).
    #[must_use]
    pub fn round_trips(&self) -> u64 {
        self.round_trips
    }

    /// Turn a client error into [`Error::Redis`] naming `what` (a key, a module) and the server;
    /// a failed connection is dropped so the next call reconnects.
    pub(crate) fn error(&mut self, e: &RedisError, what: &str) -> Error {
        let connection = e.is_io_error()
            || e.is_connection_dropped()
            || e.is_connection_refusal()
            || e.is_timeout()
            || e.is_unrecoverable_error();
        if connection {
            self.inner = None;
        }
        Error::Redis {
            target: if what.is_empty() {
                format!("server {}", self.addr)
            } else {
                format!("{what} on {}", self.addr)
            },
            message: describe(e, RESPONSE_TIMEOUT),
            connection,
        }
    }

    fn live(&mut self) -> Result<&mut Inner> {
        if self.inner.is_none() {
            self.connect()?;
        }
        // `connect` either filled `inner` or returned an error.
        self.inner.as_mut().ok_or_else(|| Error::Redis {
            target: "server".into(),
            message: "not connected".into(),
            connection: true,
        })
    }

    /// The raw connection (for scripts), reconnecting first if needed.
    pub(crate) fn raw(&mut self) -> Result<&mut dyn ConnectionLike> {
        self.round_trips += 1;
        Ok(match self.live()? {
            Inner::Single(c) => c,
            Inner::Cluster(c) => c.as_mut(),
        })
    }

    /// Run one command; errors name `what`.
    ///
    /// # Errors
    /// [`Error::Redis`].
    pub fn query<T: FromRedisValue>(&mut self, cmd: &Cmd, what: &str) -> Result<T> {
        let r = {
            let con = self.raw()?;
            cmd.query::<T>(con)
        };
        r.map_err(|e| self.error(&e, what))
    }

    /// Run several commands in one round trip (a pipeline; on a cluster, one pipeline per node —
    /// one round trip when every key shares a hash tag). Returns one reply per command.
    ///
    /// # Errors
    /// [`Error::Redis`] (a server error in any command fails the whole call).
    pub fn pipeline(&mut self, cmds: Vec<Cmd>, what: &str) -> Result<Vec<Value>> {
        if cmds.is_empty() {
            return Ok(Vec::new());
        }
        self.round_trips += 1;
        let r = match self.live()? {
            Inner::Single(c) => {
                let mut p = redis::Pipeline::with_capacity(cmds.len());
                for cmd in cmds {
                    p.add_command(cmd);
                }
                p.query::<Vec<Value>>(c)
            }
            Inner::Cluster(c) => {
                let mut p = ClusterPipeline::with_capacity(cmds.len());
                for cmd in cmds {
                    p.add_command(cmd);
                }
                p.query::<Vec<Value>>(c)
            }
        };
        r.map_err(|e| self.error(&e, what))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn addresses_for_messages() {
        assert_eq!(display_addr("redis://127.0.0.1:6390"), "127.0.0.1:6390");
        assert_eq!(
            display_addr("redis://:pw@127.0.0.1:6390/2"),
            "127.0.0.1:6390"
        );
        assert_eq!(display_addr("127.0.0.1:1"), "127.0.0.1:1");
        // Unix sockets show their path; a password in the query is not shown.
        assert_eq!(display_addr("unix:///tmp/r.sock"), "unix:/tmp/r.sock");
        assert_eq!(
            display_addr("redis+unix:///tmp/r.sock?db=1&pass=s3cret"),
            "unix:/tmp/r.sock"
        );
        assert_eq!(
            display_addr("redis://user:s3cret@h:1?protocol=resp3"),
            "h:1"
        );
        assert_eq!(display_addr("redis://:a@x:1,redis://:b@y:2"), "x:1,y:2");
    }

    #[test]
    fn long_messages_are_cut() {
        let long = "x".repeat(40_000);
        let c = cut(&long);
        assert!(c.len() < MESSAGE_CHARS + 60, "{}", c.len());
        assert!(c.ends_with("(39700 more characters)"), "{c}");
        assert_eq!(cut("short"), "short");
    }

    #[test]
    fn unreachable_server_is_a_typed_error_naming_the_address() {
        // Port 1 on loopback: nothing listens there, the connection is refused at once.
        let e = RedisConn::open("redis://127.0.0.1:1").unwrap_err();
        match &e {
            Error::Redis {
                target, connection, ..
            } => {
                assert!(target.contains("127.0.0.1:1"), "{e}");
                assert!(connection);
            }
            other => panic!("unexpected {other:?}"),
        }
        assert!(RedisConn::open("").is_err());
        assert!(RedisConn::open("not a url").is_err());
    }
}
