//! The terminal workbench (ratatui).

/// Open the terminal UI.
pub fn run() -> bloomlab::Result<()> {
    println!("{}", crate::cli::GUIDE);
    Ok(())
}
