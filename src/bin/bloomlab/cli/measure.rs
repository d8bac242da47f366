//! (being written)

/// Arguments.
#[derive(Debug, clap::Args)]
pub struct Args {}

/// Run.
pub fn run(_a: &Args) -> bloomlab::Result<()> {
    Ok(())
}
