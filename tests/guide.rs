//! GUIDE.md's worked examples, run: each `$ logtool ...` block prints what
//! the GUIDE shows when piped (rows whole; a block may leave rows out, never
//! change one), and at `COLUMNS=80` no line is wider than 80 columns.
//!
//! Examples run in the repository root on the shipped fixtures; those the
//! GUIDE sets in a directory of their own (the failover walk-through's
//! `before/...`, the incident copy without `__transaction_state-0`) are run
//! there, made as the GUIDE says. `dump --follow` needs a live broker
//! (tests/interop/live_lock.sh runs it).

use std::path::{Path, PathBuf};

use crate::util::{copy_dir, logtool, root};

/// One worked example: its command line and the lines the GUIDE shows.
struct Example {
    line: usize,
    args: Vec<String>,
    shown: Vec<String>,
}

fn examples(text: &str) -> Vec<Example> {
    let mut out = Vec::new();
    let mut lines = text.lines().enumerate().peekable();
    while let Some((_, l)) = lines.next() {
        if l.trim() != "```" {
            continue;
        }
        let Some(&(n, first)) = lines.peek() else { break };
        let Some(cmd) = first.strip_prefix("$ logtool ") else { continue };
        lines.next();
        let cmd = cmd.split("  #").next().unwrap_or(cmd);
        let args = cmd.split_whitespace().map(String::from).collect();
        let mut shown = Vec::new();
        for (_, l) in lines.by_ref() {
            if l.trim() == "```" {
                break;
            }
            shown.push(l.trim_end().to_string());
        }
        out.push(Example { line: n + 1, args, shown });
    }
    out
}

/// Where an example runs: the repository root, or the directory the GUIDE
/// sets it in (made here as the GUIDE says).
fn workdir(ex: &Example, scratch: &Path) -> Option<PathBuf> {
    let root = root();
    let paths: Vec<&String> = ex.args.iter().filter(|a| !a.starts_with('-') && a.contains('/')).collect();
    if ex.args.iter().any(|a| a == "--follow") {
        return None;
    }
    if ex.args.iter().any(|a| a == "copy-without-txn-state") {
        let copy = scratch.join("copy-without-txn-state");
        if !copy.exists() {
            copy_dir(&root.join("fixtures/kafka-3.9.1/incident/logs"), &copy);
            std::fs::remove_dir_all(copy.join("__transaction_state-0")).unwrap();
        }
        return Some(scratch.to_path_buf());
    }
    let failover = root.join("fixtures/kafka-3.9.1/failover");
    if paths.iter().all(|p| root.join(p).exists()) {
        Some(root)
    } else if paths.iter().all(|p| failover.join(p).exists()) {
        Some(failover)
    } else {
        panic!("GUIDE.md line {}: an example on paths that exist nowhere: {:?}", ex.line, ex.args)
    }
}

fn output(dir: &Path, args: &[String], columns: Option<&str>) -> String {
    let mut cmd = logtool();
    cmd.current_dir(dir).args(args).env("TZ", "UTC");
    if let Some(c) = columns {
        cmd.env("COLUMNS", c);
    }
    let out = cmd.output().unwrap();
    String::from_utf8(out.stdout).unwrap()
}

#[test]
fn the_guide_examples_reproduce_piped_and_fit_80_columns() {
    let text = std::fs::read_to_string(root().join("GUIDE.md")).unwrap();
    let all = examples(&text);
    assert!(all.len() >= 8, "the GUIDE's worked examples were not found: {}", all.len());
    let scratch = tempfile::tempdir().unwrap();
    let mut ran = 0;
    for ex in &all {
        let Some(dir) = workdir(ex, scratch.path()) else { continue };
        ran += 1;
        // piped: every line the GUIDE shows, in order (it may leave rows out)
        let piped = output(&dir, &ex.args, None);
        let got: Vec<&str> = piped.lines().map(str::trim_end).collect();
        let mut at = 0;
        for want in ex.shown.iter().filter(|l| !l.is_empty()) {
            match got.iter().skip(at).position(|g| g == want) {
                Some(i) => at += i + 1,
                None => panic!(
                    "GUIDE.md line {}: `logtool {}` no longer prints\n{want}\nafter its line {at}; it prints:\n{piped}",
                    ex.line,
                    ex.args.join(" ")
                ),
            }
        }
        // a terminal of 80 columns: nothing wider
        let narrow = output(&dir, &ex.args, Some("80"));
        for l in narrow.lines() {
            assert!(
                l.chars().count() <= 80,
                "GUIDE.md line {}: `logtool {}` at COLUMNS=80 prints a line of {} columns:\n{l}\n\n{narrow}",
                ex.line,
                ex.args.join(" "),
                l.chars().count()
            );
        }
    }
    assert!(ran >= 7, "only {ran} GUIDE examples ran");
}
