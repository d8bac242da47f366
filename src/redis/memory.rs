//! Memory preflight: before a filter is created, how much memory the server has left for it
//! (`INFO memory`), so a design that cannot fit is refused with the numbers instead of filling
//! the server until every client's writes fail with OOM.

use super::conn::RedisConn;
use crate::error::Result;

/// What `INFO memory` says about the server's memory.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ServerMemory {
    /// `used_memory`: bytes the server holds now.
    pub used: u64,
    /// `maxmemory`: the configured limit, 0 when none is set.
    pub maxmemory: u64,
    /// `total_system_memory`: the machine's memory, 0 when the server does not report it.
    pub total_system: u64,
}

impl ServerMemory {
    /// Read `INFO memory` (one round trip; on a cluster, the node that answers).
    ///
    /// # Errors
    /// [`crate::Error::Redis`].
    pub fn read(conn: &mut RedisConn) -> Result<Self> {
        let text: String = conn.query(redis::cmd("INFO").arg("memory"), "INFO memory")?;
        Ok(Self::parse(&text))
    }

    /// The fields of an `INFO memory` reply (missing ones are 0).
    #[must_use]
    pub fn parse(info: &str) -> Self {
        let field = |name: &str| {
            info.lines()
                .filter_map(|l| l.trim().split_once(':'))
                .find(|(k, _)| *k == name)
                .and_then(|(_, v)| v.trim().parse::<u64>().ok())
                .unwrap_or(0)
        };
        Self {
            used: field("used_memory"),
            maxmemory: field("maxmemory"),
            total_system: field("total_system_memory"),
        }
    }

    /// The limit that applies: `maxmemory` if set, else the machine's memory (0: unknown).
    #[must_use]
    pub fn limit(&self) -> u64 {
        if self.maxmemory > 0 {
            self.maxmemory
        } else {
            self.total_system
        }
    }

    /// Bytes left under [`ServerMemory::limit`] (`None` when no limit is known).
    #[must_use]
    pub fn free(&self) -> Option<u64> {
        let limit = self.limit();
        (limit > 0).then(|| limit.saturating_sub(self.used))
    }

    /// Whether `bytes` more fit under the limit (true when no limit is known).
    #[must_use]
    pub fn fits(&self, bytes: u64) -> bool {
        self.free().is_none_or(|free| bytes <= free)
    }

    /// The numbers for a refusal: "maxmemory 100.0 MB, 1.0 MB used, 99.0 MB free".
    #[must_use]
    pub fn describe(&self) -> String {
        let what = if self.maxmemory > 0 {
            format!(
                "maxmemory {}",
                crate::units::format_bytes_short(self.maxmemory as f64)
            )
        } else if self.total_system > 0 {
            format!(
                "no maxmemory, machine memory {}",
                crate::units::format_bytes_short(self.total_system as f64)
            )
        } else {
            "no maxmemory".to_string()
        };
        match self.free() {
            Some(free) => format!(
                "{what}, {} used, {} free",
                crate::units::format_bytes_short(self.used as f64),
                crate::units::format_bytes_short(free as f64)
            ),
            None => format!(
                "{what}, {} used",
                crate::units::format_bytes_short(self.used as f64)
            ),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn info_memory_is_parsed_and_compared() {
        let info = "# Memory\r\nused_memory:1048576\r\nused_memory_human:1.00M\r\n\
                    total_system_memory:8000000000\r\nmaxmemory:104857600\r\n";
        let m = ServerMemory::parse(info);
        assert_eq!(
            (m.used, m.maxmemory, m.total_system),
            (1_048_576, 104_857_600, 8e9 as u64)
        );
        assert_eq!(m.free(), Some(104_857_600 - 1_048_576));
        assert!(m.fits(103_809_024));
        assert!(!m.fits(103_809_025));
        let no_max = ServerMemory { maxmemory: 0, ..m };
        assert_eq!(no_max.limit(), 8_000_000_000);
        let unknown = ServerMemory::parse("used_memory:5\r\n");
        assert_eq!(unknown.free(), None);
        assert!(unknown.fits(u64::MAX));
        assert!(m.describe().starts_with("maxmemory "), "{}", m.describe());
    }
}
