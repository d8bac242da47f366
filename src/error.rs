//! Typed errors for every fallible operation in the crate.
//!
//! Each variant names what was wrong with named fields, so a caller (or the command line)
//! can say *which* parameter was out of range and what the valid range is.

use std::fmt;

/// Which parameter an [`Error::InvalidParameter`] is about.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum Param {
    /// Expected number of items `n`.
    N,
    /// Target false-positive probability `p`.
    P,
    /// Number of bits `m`.
    M,
    /// Number of hash functions `k`.
    K,
    /// Fingerprint width of a cuckoo filter, in bits.
    FingerprintBits,
    /// Growth factor of a scalable filter.
    Growth,
    /// Tightening ratio of a scalable filter.
    Tightening,
    /// Number of trials.
    Trials,
    /// Number of queries.
    Queries,
    /// Any other named parameter.
    Other(&'static str),
}

impl Param {
    /// The name as used on the command line (without dashes).
    #[must_use]
    pub fn name(self) -> &'static str {
        match self {
            Param::N => "n",
            Param::P => "p",
            Param::M => "m",
            Param::K => "k",
            Param::FingerprintBits => "fingerprint-bits",
            Param::Growth => "growth",
            Param::Tightening => "tightening",
            Param::Trials => "trials",
            Param::Queries => "queries",
            Param::Other(s) => s,
        }
    }
}

impl fmt::Display for Param {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// Everything that can go wrong in bloomlab.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// A parameter was outside its valid range.
    #[error("invalid {param}: {value} (valid: {valid})")]
    InvalidParameter {
        /// Which parameter.
        param: Param,
        /// The value given, as text.
        value: String,
        /// The valid range, in words.
        valid: String,
    },
    /// A filter of this size cannot be allocated.
    #[error(
        "cannot allocate {bytes} bytes for the filter: m is too large for this machine (choose a smaller m or a larger p)"
    )]
    Allocation {
        /// Bytes that were requested.
        bytes: u128,
    },
    /// The filter cannot take another item (cuckoo table full, non-scaling filter at capacity).
    #[error("filter is full: {reason} (holds {len} items)")]
    Full {
        /// Items stored when the insert was refused.
        len: u64,
        /// Why.
        reason: &'static str,
    },
    /// A static-set filter (xor, binary fuse) is built from its whole key set at once: it takes
    /// no inserts, and a spec of its kind builds only from keys.
    #[error(
        "the {kind} filter is a static set: it is built from the whole key set at once (FilterSpec::build_from, or `bloomlab build --keys FILE`) and takes no inserts afterwards"
    )]
    Static {
        /// The kind's public name.
        kind: &'static str,
    },
    /// A static-set filter could not be built: every seed tried left keys that do not peel
    /// (xor, binary fuse) or a system without a solution (ribbon).
    #[error(
        "could not build the {kind} filter from {keys} distinct keys: {attempts} seeds all failed to peel or solve (the keys' hashes are not random enough; try another hash)"
    )]
    Construction {
        /// The kind's public name.
        kind: &'static str,
        /// Distinct key hashes.
        keys: u64,
        /// Seeds tried.
        attempts: u32,
    },
    /// A remove was refused because the item is (definitely) not in the filter.
    #[error("item is not in the filter; remove refused, nothing changed")]
    NotPresent,
    /// Two filters cannot be combined because their parameters differ.
    #[error("incompatible filters: {0}")]
    Incompatible(String),
    /// A name (filter, hash, strategy, key kind) is not known.
    #[error("unknown {what} '{name}' (known: {known})")]
    UnknownName {
        /// What kind of name (e.g. "filter", "hash").
        what: &'static str,
        /// The name given.
        name: String,
        /// The known names, comma separated.
        known: String,
    },
    /// A serialized filter could not be decoded.
    #[error("corrupt or unsupported filter data: {0}")]
    Corrupt(String),
    /// A saved filter uses a newer version of the file format than this build reads.
    #[error(
        "filter file format version {found} is newer than this bloomlab reads (up to {supported}); upgrade bloomlab"
    )]
    UnsupportedVersion {
        /// The version in the file.
        found: u16,
        /// The newest version this build reads.
        supported: u16,
    },
    /// A saved filter is not what the caller asked for (its hash, strategy or kind differs).
    #[error(
        "the filter file was saved with {what} '{found}', but '{requested}' was asked for: a filter can only be queried the way it was built"
    )]
    Mismatch {
        /// What differs: "hash", "strategy" or "filter kind".
        what: &'static str,
        /// What the file holds.
        found: String,
        /// What the caller asked for.
        requested: String,
    },
    /// A saved filter withholds its secret hash key and no key was supplied.
    #[error(
        "the filter file withholds its secret {hash} key (key fingerprint {fingerprint:016x}): supply the key to load it"
    )]
    KeyRequired {
        /// The keyed hash function.
        hash: String,
        /// The fingerprint of the key stored in the file.
        fingerprint: u64,
    },
    /// The key supplied for a saved filter is not the key it was built with.
    #[error(
        "wrong key for this filter file: the file's key fingerprint is {expected:016x}, the supplied key's is {given:016x}"
    )]
    WrongKey {
        /// The fingerprint stored in the file.
        expected: u64,
        /// The fingerprint of the key supplied.
        given: u64,
    },
    /// A file whose key is withheld failed its keyed MAC (`persist::mac`): it was changed after
    /// it was written, by someone without the key (accidental damage is [`Error::Corrupt`]).
    #[error("authentication failed: {0}")]
    AuthenticationFailed(String),
    /// An experiment spec (TOML) is invalid: where, which field, what is wrong.
    #[error("{file}:{line}:{column}: {field}: {message}")]
    Spec {
        /// The spec file.
        file: String,
        /// 1-based line of the offending value (or of its table).
        line: usize,
        /// 1-based column (in characters) where the offending value starts on that line.
        column: usize,
        /// The field, as a dotted path (`sweep.var`, `filters[2].p`).
        field: String,
        /// What is wrong and what is valid.
        message: String,
    },
    /// The operation was cancelled by its caller.
    #[error("cancelled")]
    Cancelled,
    /// A Redis server (feature `redis`) was unreachable, dropped the connection, or refused a
    /// command (wrong key type, unknown command, missing module, …).
    #[error("redis {target}: {message}")]
    Redis {
        /// What the operation was about: the server address, key or module (e.g.
        /// `key {users}:bits:0 on 127.0.0.1:6390`).
        target: String,
        /// What went wrong, as the server or the client said it.
        message: String,
        /// True when the connection failed (refused, dropped, timed out): the command may or may
        /// not have run. Adds are idempotent, so re-running the batch on a new connection is safe.
        connection: bool,
    },
    /// A filter stored in Redis (feature `redis`) is gone or is no longer the one this handle
    /// opened: its config was deleted, flushed, evicted, expired or lost by a server restart
    /// without persistence, or replaced by another filter of the same name (another generation
    /// id). The handle gives no answers for it: its bits may be partly or wholly lost, so a
    /// "not present" could be a false negative. Rebuild the filter from its source.
    #[error(
        "redis filter '{filter}' on {server} was lost: {reason}; its answers could be false negatives, so none are given (rebuild the filter from its source)"
    )]
    FilterLost {
        /// The filter's name.
        filter: String,
        /// The server address (without password).
        server: String,
        /// What the check found (config missing, another generation).
        reason: String,
    },
    /// A filter's config read from Redis (feature `redis`) is not a valid bloomlab config: a
    /// field is missing, unparsable or out of bounds (a config is untrusted input, checked
    /// before anything is allocated from it). Another program wrote the key, or it is damaged.
    #[error("redis key {key} holds no valid bloomlab filter config: {reason}")]
    RedisCorrupt {
        /// The config key.
        key: String,
        /// What is wrong (which field).
        reason: String,
    },
    /// An I/O error (kept as text so the error stays `Clone + PartialEq`): the machine failed
    /// a read or a write (a full disk, a device error) on a path that was usable.
    #[error("i/o error on {path}: {message}")]
    Io {
        /// The file involved.
        path: String,
        /// What the OS said.
        message: String,
    },
    /// A path the caller gave cannot be used as asked, found before anything was written: an
    /// input that does not exist or may not be read, an output that is refused (a directory,
    /// device, FIFO, symbolic link, read-only file, a directory that cannot take a new file, a
    /// file of another format, one of the inputs). Fix the path; displayed like [`Error::Io`].
    #[error("i/o error on {path}: {message}")]
    Path {
        /// The path as given.
        path: String,
        /// What is wrong with it.
        message: String,
    },
    /// A run completed but found a correctness failure (a false negative where a filter
    /// promises none): its results are not to be trusted.
    #[error("correctness failure: {0}")]
    Correctness(String),
}

/// What kind of failure an [`Error`] is, for a caller that must decide what to do next (the
/// command line's exit status: [`ErrorClass::exit_status`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ErrorClass {
    /// Bad input or usage: a parameter, name, file or path the caller gave. Retrying the same
    /// call fails the same way; fix the call.
    Input,
    /// The machine or a server failed (I/O, Redis unreachable, timed out, out of memory, a
    /// filter lost on the server, cancelled): the call may succeed later.
    Runtime,
    /// The work completed but found a correctness failure.
    Correctness,
}

impl ErrorClass {
    /// The command line's exit status: 2 for [`ErrorClass::Input`], 3 for
    /// [`ErrorClass::Runtime`], 4 for [`ErrorClass::Correctness`] (0 is success, 1 a query's
    /// "all absent").
    #[must_use]
    pub fn exit_status(self) -> u8 {
        match self {
            ErrorClass::Input => 2,
            ErrorClass::Runtime => 3,
            ErrorClass::Correctness => 4,
        }
    }
}

impl Error {
    /// What kind of failure this is. One exhaustive match: a new variant does not compile
    /// until it is classified here.
    #[must_use]
    pub fn class(&self) -> ErrorClass {
        match self {
            Error::InvalidParameter { .. }
            | Error::UnknownName { .. }
            | Error::Spec { .. }
            | Error::Path { .. }
            | Error::Mismatch { .. }
            | Error::KeyRequired { .. }
            | Error::WrongKey { .. }
            | Error::AuthenticationFailed(_)
            | Error::UnsupportedVersion { .. }
            | Error::Corrupt(_)
            | Error::Incompatible(_)
            | Error::Static { .. }
            | Error::NotPresent
            | Error::Full { .. }
            | Error::Construction { .. }
            | Error::Allocation { .. } => ErrorClass::Input,
            Error::Io { .. }
            | Error::Redis { .. }
            | Error::FilterLost { .. }
            | Error::RedisCorrupt { .. }
            | Error::Cancelled => ErrorClass::Runtime,
            Error::Correctness(_) => ErrorClass::Correctness,
        }
    }

    /// The error for a failure to open `path`, a path the caller gave: [`Error::Path`] when it
    /// does not exist, may not be opened or is the wrong kind of file, [`Error::Io`] otherwise.
    #[must_use]
    pub fn opening(path: impl fmt::Display, e: &std::io::Error) -> Self {
        use std::io::ErrorKind as K;
        let (path, message) = (path.to_string(), e.to_string());
        match e.kind() {
            K::NotFound
            | K::PermissionDenied
            | K::IsADirectory
            | K::NotADirectory
            | K::InvalidFilename
            | K::InvalidInput => Error::Path { path, message },
            _ => Error::Io { path, message },
        }
    }

    /// Shorthand for [`Error::InvalidParameter`].
    pub fn invalid(param: Param, value: impl fmt::Display, valid: impl Into<String>) -> Self {
        Error::InvalidParameter {
            param,
            value: value.to_string(),
            valid: valid.into(),
        }
    }

    /// Shorthand for [`Error::UnknownName`].
    pub fn unknown(what: &'static str, name: impl Into<String>, known: &[&str]) -> Self {
        Error::UnknownName {
            what,
            name: name.into(),
            known: known.join(", "),
        }
    }
}

/// The crate's result type.
pub type Result<T, E = Error> = std::result::Result<T, E>;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn opening_a_path_that_cannot_be_used_is_bad_input_and_a_failing_device_a_runtime_failure() {
        use std::io::{Error as IoError, ErrorKind as K};
        for kind in [
            K::NotFound,
            K::PermissionDenied,
            K::IsADirectory,
            K::NotADirectory,
        ] {
            let e = Error::opening("f.bloom", &IoError::from(kind));
            assert!(matches!(e, Error::Path { .. }), "{kind:?}: {e:?}");
            assert_eq!(e.class().exit_status(), 2);
        }
        for kind in [K::Other, K::UnexpectedEof, K::Interrupted, K::StorageFull] {
            let e = Error::opening("f.bloom", &IoError::from(kind));
            assert!(matches!(e, Error::Io { .. }), "{kind:?}: {e:?}");
            assert_eq!(e.class().exit_status(), 3);
        }
        let redis = Error::Redis {
            target: "server 127.0.0.1:1".into(),
            message: "cannot connect".into(),
            connection: true,
        };
        assert_eq!(redis.class(), ErrorClass::Runtime);
        assert_eq!(
            Error::Correctness("1 false negative".into())
                .class()
                .exit_status(),
            4
        );
        assert_eq!(
            Error::invalid(Param::N, 0, "at least 1")
                .class()
                .exit_status(),
            2
        );
    }
}
