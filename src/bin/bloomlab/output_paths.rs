//! Every output path of every command, found in the clap definition, against hostile paths
//! (test only).
//!
//! **The rule that finds them**: an argument whose values are paths (`PathBuf`) is an output
//! when its long name (or id) is one of [`OUTPUT_NAMES`], an input when it is one of
//! [`INPUT_NAMES`]; any other path argument fails the test, so a new one must be classified.
//! Every output found must have a [`Template`] (a valid command line around it) and a runner in
//! [`run_cmd`], else the test fails naming it: a new command with an output is covered, or the
//! test says what is missing.
//!
//! For each output, the cases ([`hostile`]): an existing file of another format (it must
//! survive), a symbolic link (refused, its target untouched), a FIFO (refused at once: the
//! command runs on a thread with a time limit), a directory, a read-only directory (refused
//! when the operating system refuses a file there; as root it does not), the command's own
//! input; for an output directory, also the directory being a FIFO. A fresh path is the control:
//! it passes, and the command does its work (the Redis commands, pointed at a closed loopback
//! port, then fail to connect: the check came first). A refusal is exit status 2, the
//! connection failure 3.

use super::{Cli, Cmd, cli};
use bloomlab::Error;
use clap::{CommandFactory, Parser};
use std::path::{Path, PathBuf};
use std::time::Duration;

/// Long names (or ids) of path arguments that are outputs.
const OUTPUT_NAMES: &[&str] = &["out", "out-dir", "db"];
/// Long names (or ids) of path arguments that are inputs.
const INPUT_NAMES: &[&str] = &["keys", "key-file", "filter", "specs", "dir"];

/// Every (command, output argument) of the clap definition, by the rule above.
fn outputs_in_clap() -> Vec<(String, String)> {
    fn walk(cmd: &clap::Command, path: &str, found: &mut Vec<(String, String)>) {
        for arg in cmd.get_arguments() {
            if arg.get_value_parser().type_id() != std::any::TypeId::of::<PathBuf>() {
                continue;
            }
            let name = arg.get_long().unwrap_or(arg.get_id().as_str());
            if OUTPUT_NAMES.contains(&name) {
                found.push((path.trim().to_string(), name.to_string()));
            } else {
                assert!(
                    INPUT_NAMES.contains(&name),
                    "`{path} {name}` takes a path that is neither a known output nor a known \
                     input: name it by the rule or add it to a list in output_paths.rs"
                );
            }
        }
        for sub in cmd.get_subcommands() {
            walk(sub, &format!("{path} {}", sub.get_name()), found);
        }
    }
    let mut found = Vec::new();
    walk(&Cli::command(), "", &mut found);
    found
}

/// Where the command writes at `{OUT}`.
#[derive(Debug, Clone, Copy)]
enum Target {
    /// `{OUT}` is the file.
    File,
    /// `{OUT}` is a directory; the command writes this file (among others) into it.
    Dir(&'static str),
}

/// A valid command line around an output argument: `{OUT}` the output, `{IN}` the input that
/// must never be replaced (created with `input`'s content unless `None`), `{D}` the scratch
/// directory.
#[derive(Debug)]
struct Template {
    cmd: &'static str,
    arg: &'static str,
    line: &'static str,
    target: Target,
    input: Option<(&'static str, Option<&'static [u8]>)>,
    /// An existing file of a format the command does not write there.
    other: &'static [u8],
    redis: bool,
}

const KEYS: &[u8] = b"key-0\nkey-1\nkey-2\nkey-3\n";
const SQLITE: &[u8] = b"SQLite format 3\0\x10\0\x01\x01\0@  \0\0\0\x02 the user's data";
/// A text file beside the SQLite database (the penetration demo's outputs, feature `redis`).
#[cfg(feature = "redis")]
const NOTES: &[u8] = b"my notes, not a database\n";
/// The experiment tests/validation.rs runs too (well under a second with `--quick`).
const TINY_SPEC: &[u8] = include_bytes!("../../../tests/data/tiny-spec.toml");

fn templates() -> Vec<Template> {
    #[allow(unused_mut)]
    let mut t = vec![
        Template {
            cmd: "build",
            arg: "out",
            line: "build --keys {IN} --p 0.01 --out {OUT}",
            target: Target::File,
            input: Some(("keys.txt", Some(KEYS))),
            other: SQLITE,
            redis: false,
        },
        Template {
            cmd: "diagram",
            arg: "out",
            line: "diagram standard --out {OUT}",
            target: Target::File,
            input: None,
            other: SQLITE,
            redis: false,
        },
        Template {
            cmd: "diagram",
            arg: "out-dir",
            line: "diagram --all --out-dir {OUT}",
            target: Target::Dir("standard.svg"),
            input: None,
            other: SQLITE,
            redis: false,
        },
        Template {
            cmd: "run",
            arg: "out",
            line: "run {IN} --quick --out {OUT}",
            target: Target::Dir("tiny.csv"),
            input: Some(("tiny.toml", Some(TINY_SPEC))),
            other: SQLITE,
            redis: false,
        },
        Template {
            cmd: "choose",
            arg: "out",
            line: "choose --n 100 --p 10% --quick --out {OUT}",
            target: Target::Dir("choose.json"),
            input: None,
            other: SQLITE,
            redis: false,
        },
    ];
    #[cfg(feature = "redis")]
    t.extend([
        Template {
            cmd: "redis compare",
            arg: "out",
            line: "redis compare --url redis://127.0.0.1:1 --n 10 --no-module --out {OUT}",
            target: Target::File,
            input: None,
            other: SQLITE,
            redis: true,
        },
        Template {
            cmd: "redis penetration",
            arg: "out",
            line: "redis penetration --url redis://127.0.0.1:1 --products 10 --requests 10 --db {IN} --out {OUT}",
            target: Target::File,
            input: Some(("demo.sqlite", None)),
            other: SQLITE,
            redis: true,
        },
        Template {
            cmd: "redis penetration",
            arg: "db",
            line: "redis penetration --url redis://127.0.0.1:1 --products 10 --requests 10 --out {IN} --db {OUT}",
            target: Target::File,
            input: Some(("pen.csv", None)),
            other: NOTES,
            redis: true,
        },
    ]);
    t
}

/// Run a parsed command in this process, as `main` does.
fn run_cmd(cmd: Cmd) -> bloomlab::Result<()> {
    match cmd {
        Cmd::Build(a) => cli::build::run(&a),
        Cmd::Diagram(a) => cli::diagram::run(&a),
        Cmd::Run(a) => cli::run::run_all(&a).map(drop),
        Cmd::Choose(a) => cli::choose::run(&a),
        #[cfg(feature = "redis")]
        Cmd::Redis(a) => cli::redis::run(&a),
        other => panic!("no in-process runner for {other:?}: add it to run_cmd"),
    }
}

/// How a run ended: its result, or `None` when it did not end within the limit (blocked).
fn run_line(line: &str) -> Option<bloomlab::Result<()>> {
    let argv = std::iter::once("bloomlab".to_string())
        .chain(line.split_whitespace().map(str::to_string))
        .collect::<Vec<_>>();
    let cli = Cli::try_parse_from(&argv).unwrap_or_else(|e| panic!("{line}: {e}"));
    let cmd = cli.cmd.expect("a command");
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        let _ = tx.send(run_cmd(cmd));
    });
    rx.recv_timeout(Duration::from_secs(120)).ok()
}

fn mkfifo(p: &Path) {
    let st = std::process::Command::new("mkfifo")
        .arg(p)
        .status()
        .unwrap();
    assert!(st.success(), "mkfifo {}", p.display());
}

fn set_mode(p: &Path, mode: u32) {
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(p, std::fs::Permissions::from_mode(mode)).unwrap();
}

/// Whether this user may create a file in `dir` (root may, whatever the mode).
fn os_lets_write_in(dir: &Path) -> bool {
    let p = dir.join("probe-by-test");
    let ok = std::fs::write(&p, b"").is_ok();
    let _ = std::fs::remove_file(&p);
    ok
}

/// Run `t` with the hostile `case`; check the outcome and that nothing was lost. Returns
/// whether the command refused (`None`: the case does not apply to this output).
fn hostile(t: &Template, case: &str, base: &Path) -> Option<bool> {
    let d = base.join(format!("{}-{}-{case}", t.cmd.replace(' ', "-"), t.arg));
    std::fs::create_dir_all(&d).unwrap();
    let mut out = d.join("out.x");
    let mut input = t.input.map(|(name, content)| {
        let p = d.join(name);
        if let Some(c) = content {
            std::fs::write(&p, c).unwrap();
        }
        (p, content)
    });
    // The file the hostile object replaces: `{OUT}` itself, or the file written into it.
    let spot = |out: &Path| match t.target {
        Target::File => out.to_path_buf(),
        Target::Dir(f) => {
            std::fs::create_dir_all(out).unwrap();
            out.join(f)
        }
    };
    let victim = d.join("victim.txt");
    let mut refused = true;
    // What must hold afterwards.
    let mut after: Box<dyn Fn()> = Box::new(|| {});
    match case {
        "other-format" => {
            let s = spot(&out);
            std::fs::write(&s, t.other).unwrap();
            after = Box::new(move || assert_eq!(std::fs::read(&s).unwrap(), t.other));
        }
        "symlink" => {
            let s = spot(&out);
            std::fs::write(&victim, b"victim").unwrap();
            std::os::unix::fs::symlink(&victim, &s).unwrap();
            let v = victim.clone();
            after = Box::new(move || {
                assert!(std::fs::symlink_metadata(&s).unwrap().is_symlink());
                assert_eq!(std::fs::read(&v).unwrap(), b"victim");
            });
        }
        "fifo" => {
            let s = spot(&out);
            mkfifo(&s);
            after = Box::new(move || {
                use std::os::unix::fs::FileTypeExt;
                assert!(std::fs::symlink_metadata(&s).unwrap().file_type().is_fifo());
            });
        }
        "directory" => {
            let s = spot(&out);
            std::fs::create_dir_all(s.join("inside")).unwrap();
            after = Box::new(move || assert!(s.join("inside").is_dir()));
        }
        "dir-is-a-fifo" => {
            let Target::Dir(_) = t.target else {
                return None;
            };
            mkfifo(&out);
        }
        "read-only-dir" => {
            let ro = d.join("ro");
            std::fs::create_dir_all(&ro).unwrap();
            set_mode(&ro, 0o555);
            refused = !os_lets_write_in(&ro);
            out = match t.target {
                Target::File => ro.join("out.x"),
                Target::Dir(_) => ro.clone(),
            };
            if !refused {
                set_mode(&ro, 0o755); // root: the control case, in a directory of its own
            } else {
                after = Box::new(move || {
                    assert_eq!(std::fs::read_dir(&ro).unwrap().count(), 0);
                    set_mode(&ro, 0o755);
                });
            }
        }
        "own-input" => {
            let (p, content) = input.as_mut()?;
            let s = spot(&out);
            // The input sits where the command writes (created there if it has content).
            *p = s.clone();
            if let Some(c) = *content {
                std::fs::write(&s, c).unwrap();
                after = Box::new(move || assert_eq!(std::fs::read(&s).unwrap(), c));
            }
        }
        "fresh" => refused = false,
        _ => unreachable!("{case}"),
    }
    let mut line = t.line.replace("{OUT}", &out.display().to_string());
    if let Some((p, _)) = &input {
        line = line.replace("{IN}", &p.display().to_string());
    }
    let what = format!("bloomlab {line} [{case}]");
    let r = run_line(&line).unwrap_or_else(|| panic!("{what}: no answer within 120 s"));
    match (&r, refused) {
        (Err(e), true) => {
            assert!(
                !matches!(e, Error::Redis { .. }),
                "{what}: connected before checking the output: {e}"
            );
            assert!(
                e.to_string().contains(&out.display().to_string()),
                "{what}: the error does not name the path: {e}"
            );
            assert_eq!(cli::out::status(e), 2, "{what}: bad input is exit 2: {e}");
        }
        (Ok(()), true) => panic!("{what}: not refused"),
        (r, false) if t.redis => {
            assert!(
                matches!(r, Err(Error::Redis { .. })),
                "{what}: expected the connection error after the check passed: {r:?}"
            );
            assert_eq!(r.as_ref().map_err(cli::out::status), Err(3), "{what}");
        }
        (r, false) => {
            assert!(r.is_ok(), "{what}: {r:?}");
            assert!(spot(&out).is_file(), "{what}: nothing written");
        }
    }
    after();
    for e in walk(&d) {
        assert!(
            !e.contains("bloomlab-tmp"),
            "{what}: temporary file left: {e}"
        );
    }
    Some(refused)
}

fn walk(d: &Path) -> Vec<String> {
    let mut v = Vec::new();
    for e in std::fs::read_dir(d).into_iter().flatten().flatten() {
        v.push(e.path().display().to_string());
        if e.file_type().is_ok_and(|t| t.is_dir()) {
            v.extend(walk(&e.path()));
        }
    }
    v
}

const CASES: &[&str] = &[
    "other-format",
    "symlink",
    "fifo",
    "directory",
    "dir-is-a-fifo",
    "read-only-dir",
    "own-input",
    "fresh",
];

#[test]
fn every_output_path_of_every_command_refuses_hostile_paths_before_any_work() {
    let found = outputs_in_clap();
    let templates = templates();
    for (cmd, arg) in &found {
        assert!(
            templates.iter().any(|t| t.cmd == cmd && t.arg == arg),
            "`bloomlab {cmd} --{arg}` writes a file: add a Template for it in output_paths.rs"
        );
    }
    for t in &templates {
        assert!(
            found.iter().any(|(c, a)| c == t.cmd && a == t.arg),
            "template for `{} --{}`, which clap does not have",
            t.cmd,
            t.arg
        );
    }
    let base = tempfile::tempdir().unwrap();
    let (mut ran, mut refusals) = (0, 0);
    for t in &templates {
        for case in CASES {
            if let Some(refused) = hostile(t, case, base.path()) {
                ran += 1;
                refusals += usize::from(refused);
                let how = if refused { "refused" } else { "passed" };
                eprintln!("{} --{}: {case} {how}", t.cmd, t.arg);
            }
        }
    }
    eprintln!(
        "{} output arguments × cases: {ran} runs, {refusals} refused before any work",
        templates.len()
    );
    assert!(found.len() >= 5, "{found:?}");
}
