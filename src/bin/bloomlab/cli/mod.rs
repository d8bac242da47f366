//! Command implementations and shared argument parsers.

pub mod calc;
pub mod measure;
#[cfg(feature = "redis")]
pub mod redis;
pub mod walkthrough;

/// Printed when `bloomlab` runs without a terminal, and after `--help`.
pub const GUIDE: &str = "\
bloomlab — a workbench for Bloom filters and their relatives

  bloomlab                       open the interactive explorer (needs a terminal)
  bloomlab calc --n 1000000 --p 1%          size a filter (any subset of n, p, m, k)
  bloomlab measure --filter standard --n 100000 --p 0.01
                                 build, insert, query absent keys, compare with theory
  bloomlab walkthrough           the m = 16, k = 3 example, step by step
  bloomlab <command> --help      flags and ranges of a command";
