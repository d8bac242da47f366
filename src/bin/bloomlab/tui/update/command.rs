//! `y`: the `bloomlab` command lines that reproduce what a screen shows (same settings; the
//! measurement's random keys come from `--seed`, not from the screen's own seeding).

use bloomlab::FilterSpec;
use bloomlab::hash::{HashId, StrategyId};
use bloomlab::workload::KeyKind;

use crate::tui::state::{Params, State, Tab};

/// `--hash`, `--strategy` and `--keys` when they differ from the command's defaults.
fn choices(p: &Params) -> String {
    let d = FilterSpec::default();
    let mut v = String::new();
    if p.hash != d.hash || p.hash != HashId::Xxh3 {
        v.push_str(&format!(" --hash {}", p.hash));
    }
    if p.strategy != d.strategy || p.strategy != StrategyId::EnhancedDouble {
        v.push_str(&format!(" --strategy {}", p.strategy));
    }
    if p.keys != KeyKind::U64 {
        v.push_str(&format!(" --keys {}", p.keys));
    }
    v
}

/// The Explore settings as `bloomlab measure` and `bloomlab calc` invocations.
pub fn explore_commands(s: &State) -> (String, String) {
    let p = &s.explore.params;
    let mut size = match p.m_pin {
        Some(m) => format!(" --m {m}"),
        None => format!(" --p {}", p.p),
    };
    if let Some(k) = p.k_pin {
        size.push_str(&format!(" --k {k}"));
    }
    let run = &s.explore.run;
    let mut extra = String::new();
    if run.target > 0 {
        extra.push_str(&format!(" --queries {}", run.target));
    }
    if run.instances > 1 {
        extra.push_str(&format!(" --trials {}", run.instances));
    }
    let measure = format!(
        "bloomlab measure --filter {} --n {}{size}{}{extra} --seed {}",
        p.kind,
        p.n,
        choices(p),
        s.explore.key_seed
    );
    let calc = format!("bloomlab calc --n {}{size}", p.n);
    (measure, calc)
}

/// The Compare table: one `measure` per kind at the same n and p.
pub fn compare_command(s: &State) -> String {
    let p = &s.explore.params;
    format!(
        "for f in {}; do bloomlab measure --filter $f --n {} --p {}{} --seed {}; done",
        bloomlab::FilterKind::names().join(" "),
        p.n,
        p.p,
        choices(p),
        s.compare.seed
    )
}

/// What `y` shows on the current screen.
pub fn command_for(s: &State) -> Option<String> {
    match s.tab {
        Tab::Explore => {
            let (m, c) = explore_commands(s);
            Some(format!("$ {m}   ·   $ {c}"))
        }
        Tab::Compare => Some(format!("$ {}", compare_command(s))),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tui::msg::Msg;
    use crate::tui::update::{init, update};

    /// The commands parse with the real command line: every flag they use exists.
    #[test]
    fn commands_use_real_flags() {
        use clap::Parser;
        let mut s = State::new();
        init(&mut s);
        s.explore.params.k_pin = Some(5);
        s.explore.params.hash = HashId::Murmur3;
        let (m, c) = explore_commands(&s);
        assert!(
            m.starts_with(
                "bloomlab measure --filter standard --n 1000000 --p 0.01 --k 5 --hash murmur3"
            ),
            "{m}"
        );
        assert_eq!(c, "bloomlab calc --n 1000000 --p 0.01 --k 5");
        for cmd in [m, c] {
            let args: Vec<&str> = cmd.split_whitespace().collect();
            crate::Cli::try_parse_from(&args).unwrap_or_else(|e| panic!("{cmd}: {e}"));
        }
        update(&mut s, Msg::CopyCommand);
        let (_, text) = s.status.clone().unwrap();
        assert!(
            text.contains("$ bloomlab measure --filter standard"),
            "{text}"
        );
        update(&mut s, Msg::Goto(Tab::Compare));
        update(&mut s, Msg::CopyCommand);
        let (_, text) = s.status.clone().unwrap();
        let one = text
            .split("; do ")
            .nth(1)
            .unwrap()
            .split("; done")
            .next()
            .unwrap();
        // The loop names every kind the Compare table shows, and each command parses.
        assert!(text.contains(&format!(
            "for f in {};",
            bloomlab::FilterKind::names().join(" ")
        )));
        for kind in bloomlab::FilterKind::names() {
            let one = one.replace("$f", kind);
            let args: Vec<&str> = one.split_whitespace().collect();
            crate::Cli::try_parse_from(&args).unwrap_or_else(|e| panic!("{one}: {e}"));
        }
    }
}
