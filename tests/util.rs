//! Helpers shared by the integration tests.

use std::path::{Path, PathBuf};
use std::process::Output;

use serde_json::Value;

/// The repository root.
pub fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// The real-Kafka fixtures: the committed ones, or `$LOGTOOL_FIXTURES` (the
/// interop suite points it at data a broker has just written).
pub fn fixtures() -> PathBuf {
    match std::env::var_os("LOGTOOL_FIXTURES") {
        Some(dir) => PathBuf::from(dir),
        None => root().join("fixtures").join("kafka-3.9.1"),
    }
}

/// The Kafka 4.3.1 fixtures: the committed ones, or `$LOGTOOL_FIXTURES_4`
/// (the interop suite's fresh ones).
pub fn fixtures_4() -> PathBuf {
    match std::env::var_os("LOGTOOL_FIXTURES_4") {
        Some(dir) => PathBuf::from(dir),
        None => root().join("fixtures").join("kafka-4.3.1"),
    }
}

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

/// Every file under `dir`, recursively, sorted.
pub fn files_under(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for e in std::fs::read_dir(&d).unwrap() {
            let p = e.unwrap().path();
            if p.is_dir() {
                stack.push(p);
            } else {
                out.push(p);
            }
        }
    }
    out.sort();
    out
}

/// Copy a directory tree into a fresh temp dir; returns the guard and the copy.
pub fn copy_tree(src: &Path) -> (tempfile::TempDir, PathBuf) {
    let tmp = tempfile::tempdir().unwrap();
    let dst = tmp.path().join(src.file_name().unwrap());
    for f in files_under(src) {
        let rel = f.strip_prefix(src).unwrap();
        let to = dst.join(rel);
        std::fs::create_dir_all(to.parent().unwrap()).unwrap();
        std::fs::copy(&f, &to).unwrap();
    }
    (tmp, dst)
}
