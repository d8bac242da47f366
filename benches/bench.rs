//! The criterion bench: one binary, one module per group (benches/groups/), shared settings in
//! benches/common/settings.rs. Ids are `{op}/{impl}/{n}`; see benches/README.md.
//!
//! Run: `cargo bench --bench bench` (all), `cargo bench --bench bench -- query_hit/fastbloom`
//! (a subset), then `cargo bench --bench summary` for results/bench/summary.md and the plot.

#[path = "common/keys.rs"]
mod keys;
#[path = "common/settings.rs"]
mod settings;
#[path = "common/subjects.rs"]
mod subjects;

#[path = "groups/concurrent.rs"]
mod concurrent;
#[path = "groups/dynamic.rs"]
mod dynamic;
#[path = "groups/filters.rs"]
mod filters;
#[path = "groups/hash.rs"]
mod hash;

fn main() {
    let start = std::time::Instant::now();
    let load0 = settings::loadavg();
    let mut c = settings::criterion();
    hash::run(&mut c);
    filters::run(&mut c);
    concurrent::run(&mut c);
    dynamic::run(&mut c);
    c.final_summary();
    // What the summary reports about this run (only for a full run: no filter argument).
    if settings::filters().is_empty() {
        let dir = settings::criterion_dir();
        let _ = std::fs::create_dir_all(&dir);
        let _ = std::fs::write(
            dir.join("bloomlab-run.txt"),
            format!(
                "full run took {:.0} s; load average at start {load0}, at end {}\n",
                start.elapsed().as_secs_f64(),
                settings::loadavg()
            ),
        );
    }
}
