//! GUIDE.md's worked examples, run: each `$ logtool ...` block prints what
//! the GUIDE shows in a terminal of 80 columns (`COLUMNS=80`; a block may
//! end in a `...` line where it leaves the rest out, never change a line),
//! where no line is wider than 80 columns; piped, the same rows are whole,
//! one line each, in ASCII separators. `LOGTOOL_BLESS=1` writes the blocks
//! again from what logtool prints (at most [`BLESS_LINES`] lines each).
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

/// The most lines a blessed example block keeps (then `...`).
const BLESS_LINES: usize = 30;

#[test]
fn the_guide_examples_reproduce_piped_and_fit_80_columns() {
    let path = root().join("GUIDE.md");
    let text = std::fs::read_to_string(&path).unwrap();
    let all = examples(&text);
    assert!(all.len() >= 8, "the GUIDE's worked examples were not found: {}", all.len());
    let scratch = tempfile::tempdir().unwrap();
    let bless = std::env::var_os("LOGTOOL_BLESS").is_some();
    let mut blessed: Vec<(usize, usize, Vec<String>)> = Vec::new();
    let mut ran = 0;
    for ex in &all {
        let Some(dir) = workdir(ex, scratch.path()) else { continue };
        ran += 1;
        // a terminal of 80 columns: every line the GUIDE shows, in order,
        // and nothing wider
        let narrow = output(&dir, &ex.args, Some("80"));
        let got: Vec<&str> = narrow.lines().map(str::trim_end).collect();
        if bless {
            let mut keep: Vec<String> = got.iter().take(BLESS_LINES).map(|l| l.to_string()).collect();
            if got.len() > BLESS_LINES {
                keep.push("...".into());
            }
            blessed.push((ex.line, ex.shown.len(), keep));
        } else {
            let mut at = 0;
            for want in ex.shown.iter().filter(|l| !l.is_empty() && l.as_str() != "...") {
                match got.iter().skip(at).position(|g| g == want) {
                    Some(i) => at += i + 1,
                    None => panic!(
                        "GUIDE.md line {}: `logtool {}` no longer prints\n{want}\nafter its line {at} at COLUMNS=80 (LOGTOOL_BLESS=1 writes the GUIDE's blocks again); it prints:\n{narrow}",
                        ex.line,
                        ex.args.join(" ")
                    ),
                }
            }
        }
        for l in narrow.lines() {
            assert!(
                l.chars().count() <= 80,
                "GUIDE.md line {}: `logtool {}` at COLUMNS=80 prints a line of {} columns:\n{l}\n\n{narrow}",
                ex.line,
                ex.args.join(" "),
                l.chars().count()
            );
        }
        // piped: whole rows, ASCII separators, never longer than the
        // terminal's (which adds wrapped text and notes)
        let piped = output(&dir, &ex.args, None);
        assert!(
            !piped.contains(['│', '─', '┌', '…']),
            "GUIDE.md line {}: `logtool {}` piped draws boxes or cuts cells:\n{piped}",
            ex.line,
            ex.args.join(" ")
        );
        assert!(
            piped.lines().count() <= narrow.lines().count(),
            "GUIDE.md line {}: `logtool {}` piped takes more lines than at 80 columns:\n{piped}\n\n{narrow}",
            ex.line,
            ex.args.join(" ")
        );
    }
    assert!(ran >= 7, "only {ran} GUIDE examples ran");
    if bless {
        // each block (its first line is the command, on line `at`) again
        let mut lines: Vec<String> = text.lines().map(String::from).collect();
        for (at, len, keep) in blessed.into_iter().rev() {
            let start = at; // (0-based: the line after the command)
            lines.splice(start..start + len, keep);
        }
        std::fs::write(&path, lines.join("\n") + "\n").unwrap();
    }
}
