//! Helpers shared by the integration tests.

use std::process::Output;

use serde_json::Value;

pub use test_support::{
    batch, copy_dir, copy_tree, files_under, fix_crc, fixtures, fixtures_4, idempotent_batch, root,
};

/// A `logtool` command with a scrubbed environment.
pub fn logtool() -> assert_cmd::Command {
    let mut c = assert_cmd::Command::new(env!("CARGO_BIN_EXE_logtool"));
    c.env_clear().env("PATH", std::env::var_os("PATH").unwrap_or_default());
    c
}

/// Run logtool and return (exit code, stdout, stderr).
pub fn run(args: &[&str]) -> (i32, String, String) {
    let Output { status, stdout, stderr } = logtool().args(args).output().unwrap();
    (status.code().unwrap_or(-1), String::from_utf8(stdout).unwrap(), String::from_utf8_lossy(&stderr).into_owned())
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
