//! Helpers the command-line integration tests share (`mod common;` in each).
#![allow(
    dead_code,
    reason = "each test binary compiles this module and uses only some of its helpers"
)]

use std::path::PathBuf;
use std::process::{Command, Output, Stdio};

/// The `bloomlab` binary run with `args`, no standard input.
pub fn run(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_bloomlab"))
        .args(args)
        .stdin(Stdio::null())
        .output()
        .expect("binary runs")
}

/// A fresh, empty directory `bloomlab-{tag}-{pid}` in the temporary directory.
pub fn tmp(tag: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("bloomlab-{tag}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}
