//! Every command at every path level (issue 37: no false all-clear): given a
//! partition dir (or a file) where it would also take the log dir, a command
//! answers exactly what the log dir's answer says of that partition (or
//! file), or exits 2 saying which level it wants; a dir that only holds log
//! dirs, or no Kafka data at all, is exit 2 for every command.
//!
//! "What the log dir's answer says of X": its JSON lines that name X (a path
//! in X, or X as a partition), summaries and closing lines left out.

use std::path::{Path, PathBuf};

use serde_json::Value;

use crate::util::{root, run};

/// Each command as it is run on a PATH (`{}`), plan-only for the repairs.
const COMMANDS: &[&[&str]] = &[
    &["dump", "{}"],
    &["dump", "--deep", "{}"],
    &["verify", "{}"],
    &["stats", "--no-charts", "{}"],
    &["txns", "{}", "--at", "2026-11-23T14:09:50.495Z"],
    &["groups", "{}"],
    &["offset-for-time", "{}", "earliest", "latest", "max-timestamp"],
    &["recover", "--all", "{}"],
    &["truncate-to-hw", "{}"],
    &["reindex", "{}"],
    &["retain", "--log-start", "0", "{}"],
    &["compact", "{}"],
];

/// Lines that speak of the whole run, not of one partition or file.
const WHOLE_RUN: &[&str] = &["summary", "repair", "start_plan", "txn_summary", "command_error"];

/// Lines a command prints of the log dir's own files, which a partition
/// dir does not hold: (command, line type). `dump` prints files; the log
/// dir's checkpoint files are not in a partition dir.
const LOG_DIR_FILES: &[(&str, &str)] = &[("dump", "checkpoint_entry")];

fn json(args: &[&str], path: &Path) -> (i32, Vec<Value>, String) {
    let p = path.to_str().unwrap();
    let mut all: Vec<&str> = vec!["--format", "json", "-q"];
    all.extend(args.iter().map(|a| if *a == "{}" { p } else { a }));
    let (code, out, err) = run(&all);
    let lines = out.lines().map(|l| serde_json::from_str(l).unwrap_or_else(|e| panic!("{all:?}: {l}: {e}"))).collect();
    (code, lines, err)
}

/// Whether `line` names `x` (a partition dir or a file, absolute).
fn names(line: &Value, x: &Path) -> bool {
    let x = x.to_str().unwrap();
    let name = Path::new(x).file_name().unwrap().to_str().unwrap();
    let text = line.to_string();
    text.contains(&format!("{x}/"))
        || text.contains(&format!("{x}\""))
        || line.get("message").and_then(Value::as_str).is_some_and(|m| m.starts_with(&format!("{name}: ")))
        || {
            // a partition named as topic + partition, or as "topic-N"
            let (topic, part) = name.rsplit_once('-').unwrap_or((name, ""));
            line.get("partition").is_some_and(|p| p == name)
                || (line.get("topic").is_some_and(|t| t == topic)
                    && line
                        .get("partition")
                        .is_some_and(|p| p.as_i64().is_some() && p.as_i64() == part.parse::<i64>().ok()))
        }
}

fn about(cmd: &str, lines: &[Value], x: &Path) -> Vec<String> {
    let mut v: Vec<String> = lines
        .iter()
        .filter(|l| !WHOLE_RUN.iter().any(|t| l["type"] == *t))
        .filter(|l| !LOG_DIR_FILES.iter().any(|(c, t)| *c == cmd && l["type"] == *t))
        .filter(|l| names(l, x))
        .map(|l| l.to_string())
        .collect();
    v.sort();
    v
}

#[test]
fn every_command_at_every_level_answers_as_the_log_dir_does_or_refuses() {
    // an incident (groups, transactions, one open) and a SIGKILLed broker's
    // dir (torn tails, preallocated indexes, no metadata log)
    let mut compared = levels(
        "fixtures/kafka-3.9.1/incident/logs",
        &["payments-0", "orders-0", "__consumer_offsets-0", "__transaction_state-0"],
        "payments-0/00000000000000000000.log",
    );
    compared.extend(levels(
        "fixtures/kafka-3.9.1/sigkill/logs",
        &["kill-plain-0", "kill-txn-0"],
        "kill-plain-0/00000000000000000000.log",
    ));
    // every reading command said something of the partitions somewhere
    for cmd in ["dump", "verify", "stats", "txns", "groups", "offset-for-time", "recover", "truncate-to-hw", "reindex"]
    {
        let n: usize = compared.iter().filter(|(c, _)| *c == cmd).map(|(_, n)| n).sum();
        assert!(n > 0, "{cmd}: nothing of the partitions compared: {compared:?}");
    }
}

/// The matrix on one log dir: (command, lines of its partitions compared).
fn levels(log_dir: &str, partitions: &[&str], segment: &str) -> Vec<(&'static str, usize)> {
    // (canonical: the repairs print canonical paths)
    let logs: PathBuf = std::fs::canonicalize(root().join(log_dir)).unwrap();
    let parent = logs.parent().unwrap().to_path_buf();
    // (lines compared, per command: the check compared something)
    let mut compared = Vec::new();
    for cmd in COMMANDS {
        let mut n = 0usize;
        let (lcode, whole, lerr) = json(cmd, &logs);
        if lcode == 2 {
            // (groups without a __consumer_offsets partition): no partition
            // of it gets an answer the log dir did not give
            for p in partitions {
                let (code, _, err) = json(cmd, &logs.join(p));
                assert_eq!(code, 2, "{cmd:?} on {p}: the log dir's exit 2 ({lerr}), then: {err}");
            }
            compared.push((cmd[0], 0));
            continue;
        }
        assert!(lcode <= 1, "{cmd:?} on the log dir: exit {lcode}: {lerr}");
        for p in partitions {
            let dir = logs.join(p);
            let (code, lines, err) = json(cmd, &dir);
            if code == 2 {
                assert!(err.contains("give"), "{cmd:?} on {p}: exit 2 without saying what to give: {err}");
                continue;
            }
            let want = about(cmd[0], &whole, &dir);
            let got = about(cmd[0], &lines, &dir);
            n += want.len();
            let missing: Vec<&String> = want.iter().filter(|w| !got.contains(w)).collect();
            // (a partition given alone may say more of why nothing is done
            // there: a `note`, a compaction line saying why it is skipped)
            let explains = |l: &String| l.contains("\"type\":\"note\"") || l.contains("\"skipped\":\"");
            let extra: Vec<&String> = got.iter().filter(|g| !want.contains(g) && !explains(g)).collect();
            assert!(
                missing.is_empty() && extra.is_empty(),
                "{cmd:?} on the partition dir {p} (exit {code}) does not say what the log dir's answer says of it:\n\
                 only in the log dir's: {missing:#?}\nonly in the partition's: {extra:#?}"
            );
            // a partition the log dir's answer finds problems in is not clean alone
            if code == 0 && lcode == 1 && !want.is_empty() && cmd[0] != "groups" && cmd[0] != "stats" {
                let problems = whole.iter().filter(|l| names(l, &dir)).any(|l| {
                    l["severity"] == "error"
                        || l["severity"] == "warning"
                        || l["type"] == "change"
                        || l["type"] == "loss"
                });
                assert!(!problems, "{cmd:?} on {p}: exit 0, but the log dir's answer has problems there");
            }
        }
        // a segment file: the partition's answer about that file, or exit 2
        let seg = logs.join(segment);
        let (code, lines, err) = json(cmd, &seg);
        if code == 2 {
            assert!(err.contains("give") || err.contains("is a file"), "{cmd:?} on a segment: {err}");
        } else {
            let (_, part, _) = json(cmd, seg.parent().unwrap());
            assert_eq!(about(cmd[0], &lines, &seg), about(cmd[0], &part, &seg), "{cmd:?} on a segment file");
        }
        // the dir holding the log dir, and a dir of no Kafka data: exit 2
        let (code, _, err) = json(cmd, &parent);
        assert_eq!(code, 2, "{cmd:?} on the dir holding the log dir: {err}");
        assert!(err.contains("logs"), "{cmd:?} on the dir holding the log dir does not point at it: {err}");
        let (code, _, err) = json(cmd, &root().join("docs"));
        assert_eq!(code, 2, "{cmd:?} on docs/: {err}");
        compared.push((cmd[0], n));
    }
    compared
}
