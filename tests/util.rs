//! Helpers shared by the integration tests.

use std::process::Output;

use serde_json::Value;

pub use test_support::{
    batch, copy_dir, copy_tree, damage_three_ways, files_under, fix_crc, fixtures, fixtures_4, fixtures_4x,
    idempotent_batch, root, tiered_dirs,
};

/// A `logtool` command with a scrubbed environment.
pub fn logtool() -> assert_cmd::Command {
    let mut c = assert_cmd::Command::new(env!("CARGO_BIN_EXE_logtool"));
    c.env_clear().env("PATH", std::env::var_os("PATH").unwrap_or_default());
    c
}

/// Run logtool and return (exit code, stdout, stderr). Every message it
/// gives is checked for the libraries' wording ([`in_our_words`]).
pub fn run(args: &[&str]) -> (i32, String, String) {
    run_with(&[], args)
}

/// Wording of the libraries and the OS that must not reach a user (issue
/// 37): errno suffixes, Rust range syntax, serde's and jiff's phrasing, debug
/// forms.
const NOT_OUR_WORDS: &[&str] = &[
    "(os error",
    "..=",
    "expected u64",
    "expected i64",
    "expected u32",
    "invalid type:",
    "invalid digit",
    "failed to parse",
    "two digit integer",
    "four digit integer",
    "Os {",
    "kind: ",
    "Custom {",
    "TOML parse error",
];

/// Panic when stderr, or a JSON `command_error`/`error` message on stdout,
/// carries [`NOT_OUR_WORDS`]. Every test that runs logtool through [`run`],
/// [`run_json`] or [`run_with`] checks this on what it provoked.
pub fn in_our_words(args: &[&str], stdout: &str, stderr: &str) {
    let errors = stdout.lines().filter(|l| l.contains("\"command_error\"") || l.starts_with("logtool: error"));
    for text in std::iter::once(stderr).chain(errors) {
        for bad in NOT_OUR_WORDS {
            assert!(!text.contains(bad), "`logtool {}` says {bad:?}, a library's wording:\n{text}", args.join(" "));
        }
    }
}

/// [`run`] with environment variables set.
pub fn run_with(env: &[(&str, &str)], args: &[&str]) -> (i32, String, String) {
    let mut c = logtool();
    for (k, v) in env {
        c.env(k, v);
    }
    let Output { status, stdout, stderr } = c.args(args).output().unwrap();
    let out = (
        status.code().unwrap_or(-1),
        String::from_utf8(stdout).unwrap(),
        String::from_utf8_lossy(&stderr).into_owned(),
    );
    in_our_words(args, &out.1, &out.2);
    out
}

/// Run logtool with `--format json` and parse every line.
pub fn run_json(args: &[&str]) -> (i32, Vec<Value>) {
    let mut all = vec!["--format", "json"];
    all.extend_from_slice(args);
    let (code, out, err) = run(&all);
    let lines = out
        .lines()
        .map(|l| serde_json::from_str(l).unwrap_or_else(|e| panic!("bad JSON line {l:?}: {e}\n{err}")))
        .collect();
    (code, lines)
}

/// Lines of one `type`.
pub fn of_type<'a>(lines: &'a [Value], t: &str) -> Vec<&'a Value> {
    lines.iter().filter(|l| l["type"] == t).collect()
}
