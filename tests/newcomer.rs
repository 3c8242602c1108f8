//! What a new user meets first: errors in words with the right exit code,
//! output that fits the terminal, human units, fixture specs checked field
//! by field (issue 27). Each test failed before its fix.

use std::path::Path;

use crate::util::*;

fn s(p: &Path) -> &str {
    p.to_str().unwrap()
}

/// (code, stdout, stderr) of logtool with the environment `env` added.
fn run_env(env: &[(&str, &str)], args: &[&str]) -> (i32, String, String) {
    run_with(env, args)
}

/// A chart that cannot be written is refused before anything is read, in
/// words (no nested debug form, also not in JSON), and leaves nothing.
#[test]
fn a_chart_that_cannot_be_written_is_refused_first_in_words() {
    let part = fixtures().join("clean/logs/plain-0");
    let (code, out, err) = run(&["stats", "--chart", "/no/such/dir/x.png", s(&part)]);
    assert_eq!(code, 2, "{err}");
    assert!(out.is_empty(), "the table was printed before the refusal: {out}");
    assert!(err.contains("no such directory: /no/such/dir"), "{err}");
    assert!(!err.contains("Error(") && !err.contains("Os {"), "{err}");
    let (code, lines) = run_json(&["stats", "--chart", "/no/such/dir/x.png", s(&part)]);
    assert_eq!(code, 2);
    let m = of_type(&lines, "command_error")[0]["message"].as_str().unwrap().to_string();
    assert!(!m.contains("Error(") && m.contains("no such directory"), "{m}");
    let tmp = tempfile::tempdir().unwrap();
    let jpg = tmp.path().join("x.jpg");
    let (code, out, err) = run(&["stats", "--chart", s(&jpg), s(&part)]);
    assert_eq!(code, 2, "{err}");
    assert!(out.is_empty(), "{out}");
    assert!(err.contains("must end in .png or .svg"), "{err}");
    assert_eq!(std::fs::read_dir(tmp.path()).unwrap().count(), 0);
}

/// A directory without Kafka data is a usage error (2) for every command
/// that reads a path, with one message.
#[test]
fn a_path_without_kafka_data_is_an_error_for_every_command() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("etc");
    std::fs::create_dir_all(dir.join("ssl")).unwrap();
    std::fs::write(dir.join("hosts"), b"127.0.0.1 localhost\n").unwrap();
    let d = s(&dir);
    for args in [
        vec!["dump", d],
        vec!["stats", d],
        vec!["verify", d],
        vec!["offset-for-time", d, "latest"],
        vec!["recover", d],
        vec!["reindex", d],
        vec!["retain", "--log-start", "5", d],
    ] {
        let (code, out, err) = run(&args);
        let all = format!("{out}{err}");
        assert_eq!(code, 2, "{args:?}: {all}");
        assert!(all.contains("holds no Kafka log data"), "{args:?}: {all}");
        assert!(!all.contains("(unknown,"), "{args:?} listed files: {all}");
    }
}

/// `groups --group` for a group that is not there says so, exit 1.
#[test]
fn a_group_that_does_not_exist_is_said() {
    let logs = fixtures().join("incident/logs");
    let (code, out, err) = run(&["groups", s(&logs), "--group", "nosuch"]);
    assert_eq!(code, 1, "{out}{err}");
    assert!(out.contains("consumer group 'nosuch' does not exist"), "{out}");
    assert!(out.contains("__consumer_offsets-"), "{out}");
}

/// Errors say what is wrong once, without the library's internals.
#[test]
fn messages_do_not_leak_internals() {
    let readme = root().join("README.md");
    let (code, _, err) = run(&["diff-replicas", s(&readme), s(&readme)]);
    assert_eq!(code, 2);
    assert!(err.contains("neither a partition dir nor a replica digest"), "{err}");
    assert!(!err.contains("Corrupt") && !err.contains("decompressed"), "{err}");
    let (code, _, err) = run(&["offset-for-time", s(&readme), "latest"]);
    assert_eq!(code, 2);
    assert!(!err.contains("I/O error") && err.contains("is a file"), "{err}");
    let (code, _, err) = run(&["stats", "/tmp/logtool-no-such-path"]);
    assert_eq!(code, 2);
    assert_eq!(err.matches("/tmp/logtool-no-such-path").count(), 1, "{err}");
}

/// One notation for offset ranges: `first-last`, both included.
#[test]
fn offset_ranges_read_first_dash_last() {
    let logs = fixtures().join("clean/logs");
    let (_, lines) = run_json(&["dump", s(&logs.join("plain-0"))]);
    let b = of_type(&lines, "batch").into_iter().find(|b| b["base_offset"] != b["last_offset"]).unwrap().clone();
    let (base, last) = (b["base_offset"].as_i64().unwrap(), b["last_offset"].as_i64().unwrap());
    let (_, table, _) = run(&["dump", s(&logs.join("plain-0"))]);
    assert!(table.contains(&format!(" {base}-{last} ")), "{table}");
    assert!(!table.contains(&format!("{base}..{last}")), "{table}");
    let (_, plan, _) = run(&["truncate", "--to", &(base + 1).to_string(), s(&logs.join("plain-0"))]);
    assert!(plan.contains(&format!("batch of offsets {base}-{last}")), "{plan}");
    assert!(!plan.contains("..="), "{plan}");
    // control records in words, not JSON
    let (_, table, _) = run(&["dump", "--deep", s(&logs.join("txn-0"))]);
    assert!(table.contains("control commit coordinator_epoch=") || table.contains("control abort"), "{table}");
    assert!(!table.contains("control {"), "{table}");
}

/// A selection that reaches no record says so instead of printing empty
/// headers.
#[test]
fn an_empty_selection_is_said() {
    let part = fixtures().join("clean/logs/plain-0");
    let (code, out, _) = run(&["dump", "--offsets", "100000..100100", s(&part)]);
    assert_eq!(code, 0);
    assert!(out.contains("no records in --offsets: the log holds offsets 0-"), "{out}");
    assert!(!out.contains(".log ("), "{out}");
    let (_, lines) = run_json(&["dump", "--deep", s(&part)]);
    let t = of_type(&lines, "record")[3]["timestamp"].as_i64().unwrap().to_string();
    let (_, out, _) = run(&["dump", "--since", &t, "--until", &t, s(&part)]);
    assert!(out.contains("no records between --since and --until"), "{out}");
}

/// Tables fit 80 and 200 columns (COLUMNS, as a terminal would give), and
/// --help wraps.
#[test]
fn tables_fit_the_terminal() {
    let logs = fixtures().join("sigkill/logs");
    let clean = fixtures().join("clean/logs");
    for width in [80usize, 200] {
        let w = width.to_string();
        for args in [
            vec!["verify", s(&logs)],
            vec!["dump", "--deep", s(&clean.join("txn-0"))],
            vec!["stats", "--no-charts", s(&clean)],
            vec!["txns", s(&fixtures().join("incident/logs"))],
        ] {
            let (_, out, err) = run_env(&[("COLUMNS", &w)], &args);
            for l in out.lines() {
                assert!(l.chars().count() <= width, "{args:?} at {width}: {} chars: {l}\n{err}", l.chars().count());
            }
            // words stay whole where they fit (no "unclean_shutdo / wn")
            if args[0] == "verify" {
                assert!(out.contains("unclean_shutdown"), "{out}");
            }
        }
    }
    // at 80 columns a lag table stays a table, one line per partition, its
    // names whole; the detail columns left out are named (before: every
    // name cut mid-word, "fixtur / e- / group", 4 lines a partition)
    let (_, out, _) = run_env(&[("COLUMNS", "80")], &["groups", s(&clean)]);
    let rows: Vec<&str> = out.lines().filter(|l| l.starts_with("fixture-group ") && l.contains(" plain ")).collect();
    assert_eq!(rows.len(), 3, "{out}");
    assert!(out.contains("CONSUMER-ID"), "{out}");
    // piped: every column, the member's too
    let (_, out, _) = run(&["groups", s(&clean)]);
    assert!(out.contains("CLIENT-ID") && out.contains("EPOCH") && !out.contains("not shown"), "{out}");
    for args in [vec!["--help"], vec!["dump", "--help"], vec!["verify", "--help"]] {
        let (code, out, _) = run(&args);
        assert_eq!(code, 0);
        let longest = out.lines().map(|l| l.chars().count()).max().unwrap();
        assert!(longest <= 100, "{args:?}: a {longest}-character line");
    }
}

/// Durations and sizes in tables are for people; JSON keeps numbers.
#[test]
fn units_for_people() {
    // the fixture's own wall clock (CI may run on freshly generated fixtures)
    let inc = fixtures().join("incident");
    let wall = std::fs::read_to_string(inc.join("wall.txt")).unwrap();
    let logs = inc.join("logs");
    let (_, lines) = run_json(&["txns", s(&logs), "--at", wall.trim()]);
    let open = of_type(&lines, "open_transaction");
    assert_eq!(open.len(), 1, "{lines:?}");
    let age = open[0]["age_ms"].as_i64().unwrap();
    let want = wall.trim().parse::<i64>().unwrap() - open[0]["last_timestamp"].as_i64().unwrap();
    assert_eq!(age, want, "JSON keeps the exact number: {lines:?}");
    // 4109 ms reads "4.1 s" in the table, never "4109 ms"
    let at = (open[0]["last_timestamp"].as_i64().unwrap() + 4109).to_string();
    let (_, out, _) = run(&["txns", s(&logs), "--at", &at]);
    assert!(out.contains(" 4.1 s ") && out.contains("within the last 15 min"), "{out}");
    assert!(!out.contains(" ms") && !out.contains("4s "), "{out}");
    let (_, out, _) = run(&["verify", s(&fixtures().join("clean/logs"))]);
    let summary = out.lines().find(|l| l.starts_with("checked ")).unwrap();
    assert!(summary.contains("KiB") || summary.contains("MiB"), "{summary}");
    assert!(!summary.contains("byte(s)"), "{summary}");
    let (_, out, _) = run(&["stats", s(&fixtures().join("clean/logs/plain-0"))]);
    assert!(!out.contains("0 records with 0 headers"), "{out}");
}

/// The small things: help for everything, commands in the order people
/// use them, no --max-rate where nothing is read, man says what it did,
/// digest to stdout.
#[test]
fn the_small_things() {
    for cmd in ["completions", "man", "partition-of", "help"] {
        let (code, out, _) = run(&[cmd, "--help"]);
        assert_eq!(code, 0, "{cmd} --help");
        assert!(!out.contains("--max-rate"), "{cmd}: {out}");
    }
    let (code, out, _) = run(&["help", "dump"]);
    assert_eq!(code, 0);
    assert!(out.contains("Usage: logtool dump"), "{out}");
    let (code, _, err) = run(&["help", "nosuch"]);
    assert_eq!(code, 2, "{err}");
    let (_, out, _) = run(&["--help"]);
    let at = |c: &str| out.find(&format!("\n  {c} ")).unwrap_or_else(|| panic!("{c} not listed: {out}"));
    assert!(at("dump") < at("verify") && at("verify") < at("stats") && at("stats") < at("partition-of"), "{out}");
    assert!(at("broker") < at("completions") && at("completions") < at("man"), "{out}");
    let tmp = tempfile::tempdir().unwrap();
    let (code, out, _) = run(&["man", s(&tmp.path().join("man"))]);
    assert_eq!(code, 0);
    assert!(out.contains("man page(s)"), "{out}");
    let part = fixtures().join("clean/logs/plain-0");
    let o = logtool().args(["digest", s(&part), "-o", "-"]).output().unwrap();
    assert!(o.status.success());
    assert!(o.stdout.starts_with(b"LTDIGEST"), "{:?}", &o.stdout.get(..16));
    let file = tmp.path().join("d");
    std::fs::write(&file, &o.stdout).unwrap();
    let (code, out, err) = run(&["diff-replicas", s(&part), s(&file)]);
    assert_eq!(code, 0, "{out}{err}");
}

/// Write `spec` into a file and run fixture on it.
fn fixture_of(spec: &str) -> (i32, String, String, tempfile::TempDir) {
    let tmp = tempfile::tempdir().unwrap();
    let file = tmp.path().join("my-spec.toml");
    std::fs::write(&file, spec).unwrap();
    let out = tmp.path().join("out");
    let (code, o, e) = run(&["fixture", s(&file), "--out", s(&out)]);
    (code, o, e, tmp)
}

/// Every spec value is checked; the error names the spec file, the field
/// and the rule; nothing is left behind.
#[test]
fn fixture_specs_are_checked_field_by_field() {
    for (spec, field) in [
        ("[[topic]]\nname = \"t\"\nconfigs = { \"segment.byte\" = 65536 }\n", "segment.byte"),
        ("[[topic]]\nname = \"t\"\nconfigs = { \"retention.ms\" = \"abc\" }\n", "retention.ms"),
        ("[[topic]]\nname = \"..\"\n", "name = \"..\""),
        ("[[topic]]\nname = \"t\"\n[topic.workload]\nlog_start_offset = -5\n", "workload.log_start_offset = -5"),
        ("[[topic]]\nname = \"t\"\n[topic.workload]\nlog_start_offset = 5000\n", "workload.log_start_offset = 5000"),
        ("[[topic]]\nname = \"t\"\n[topic.workload.key]\nsize = [10, 2]\n", "workload.key.size = [10, 2]"),
        ("[[topic]]\nname = \"t\"\n[topic.workload.timestamps]\nstart = -1000\n", "workload.timestamps.start = -1000"),
        (
            "[[topic]]\nname = \"t\"\n[topic.workload]\nleader_epochs = [{ offset = 10, epoch = 5 }, { offset = 50, epoch = 3 }]\n",
            "epoch 3 from offset 50 follows epoch 5 from offset 10",
        ),
        // in our words: not "expected u64", not the date library's, not the staging dir
        ("[[topic]]\nname = \"t\"\n[topic.workload]\nrecords = -5\n", "expected a whole number, 0 or more"),
        ("[[topic]]\nname = \"t\"\n[topic.workload.timestamps]\nstart = \"yesterday\"\n", "\"yesterday\": not a time"),
        (
            "[[topic]]\nname = \"t\"\n[[damage]]\nkind = \"torn_tail\"\npartition = \"u-0\"\n",
            "damage[0].partition = \"u-0\"",
        ),
    ] {
        let (code, out, err, tmp) = fixture_of(spec);
        assert_eq!(code, 2, "{spec}: {out}{err}");
        assert!(err.contains("my-spec.toml") && err.contains(field), "{spec}: {err}");
        assert!(!err.contains("logtool-fixture-partial"), "{err}");
        assert!(!err.contains("u64") && !err.contains("failed to parse"), "{err}");
        let left: Vec<_> = std::fs::read_dir(tmp.path()).unwrap().map(|e| e.unwrap().file_name()).collect();
        assert_eq!(left, ["my-spec.toml"], "{spec}: left behind");
    }
    let (code, _, err, _) = {
        let tmp = tempfile::tempdir().unwrap();
        let (c, o, e) = run(&["fixture", "basic", "--out", s(&tmp.path().join("no/such/out"))]);
        (c, o, e, tmp)
    };
    assert_eq!(code, 2);
    assert!(err.contains("no such directory") && !err.contains("partial"), "{err}");
}

/// `[replicas]` takes its documented default; leader elections may be given
/// in any order.
#[test]
fn fixture_defaults_and_order() {
    let (code, out, err, _tmp) = fixture_of("[[topic]]\nname = \"t\"\n[replicas]\ncount = 2\n");
    assert_eq!(code, 0, "{out}{err}");
    let epochs = |order: &str| {
        let (code, out, err, tmp) =
            fixture_of(&format!("[[topic]]\nname = \"t\"\n[topic.workload]\nleader_epochs = [{order}]\n"));
        assert_eq!(code, 0, "{out}{err}");
        std::fs::read_to_string(tmp.path().join("out/t-0/leader-epoch-checkpoint")).unwrap()
    };
    let sorted = epochs("{ offset = 20, epoch = 2 }, { offset = 60, epoch = 4 }");
    let reversed = epochs("{ offset = 60, epoch = 4 }, { offset = 20, epoch = 2 }");
    assert_eq!(sorted, reversed);
    assert!(sorted.contains("2 20") && sorted.contains("4 60"), "{sorted}");
}

/// Long commands show a progress bar on a terminal - recover, reindex and
/// digest too - and its first frame gives no ETA (there is no rate yet).
/// On a pseudo-terminal (script(1)); LOGTOOL_TEST_PROGRESS shows the bar
/// for work of any size.
#[test]
fn progress_bars_on_a_terminal() {
    if std::process::Command::new("script").arg("--version").output().is_err() {
        eprintln!("no script(1): skipped");
        return;
    }
    let (_tmp, logs) = copy_tree(&fixtures().join("sigkill/logs"));
    let digest = logs.parent().unwrap().join("d");
    let bin = env!("CARGO_BIN_EXE_logtool");
    for args in [
        format!("recover --all {}", s(&logs)),
        format!("reindex {}", s(&logs)),
        format!("digest {} -o {}", s(&logs.join("kill-plain-0")), s(&digest)),
        format!("stats --no-charts {}", s(&logs)),
    ] {
        let o = std::process::Command::new("script")
            .args(["-qec", &format!("{bin} {args} >/dev/null"), "/dev/null"])
            .env("LOGTOOL_TEST_PROGRESS", "1")
            .output()
            .unwrap();
        let screen = String::from_utf8_lossy(&o.stdout);
        assert!(screen.contains("ETA"), "{args}: no progress bar on the terminal: {screen:?}");
        let first = screen.split("ETA").nth(1).unwrap_or_default();
        assert!(first.trim_start().starts_with('…'), "{args}: the first frame guesses an ETA: {screen:?}");
    }
}

/// Every command at the levels it does not take, and at a path without
/// Kafka data (a dir shaped like /etc: `dbus-1` is named like a partition
/// dir) or a missing one: exit 2 with the reason on stderr, never exit 0
/// with a clean answer. Before, `dump` and `stats` of such a dir exited 0,
/// `digest LOGDIR` wrote "(0 batches)", and `recover FILE` said "malformed
/// recover target".
#[test]
fn every_command_refuses_a_level_it_cannot_serve() {
    let tmp = tempfile::tempdir().unwrap();
    let etc = tmp.path().join("etc");
    std::fs::create_dir_all(etc.join("dbus-1/system.d")).unwrap();
    std::fs::create_dir_all(etc.join("polkit-1")).unwrap();
    std::fs::write(etc.join("polkit-1/rules"), b"x").unwrap();
    std::fs::write(etc.join("passwd"), b"root:x:0:0\n").unwrap();
    let etc = etc.to_str().unwrap().to_string();
    let missing = tmp.path().join("missing").to_str().unwrap().to_string();
    let logs = crate::util::fixtures().join("clean/logs");
    let log_dir = logs.to_str().unwrap().to_string();
    let segment = logs.join("txn-1/00000000000000000000.log").to_str().unwrap().to_string();
    let digest = tmp.path().join("d").to_str().unwrap().to_string();
    let commands: Vec<Vec<&str>> = vec![
        vec!["dump"],
        vec!["verify"],
        vec!["stats"],
        vec!["offset-for-time", "latest"],
        vec!["txns"],
        vec!["groups"],
        vec!["digest", "-o", &digest],
        vec!["recover"],
        vec!["reindex"],
        vec!["truncate-to-hw"],
        vec!["retain", "--max-bytes", "1"],
        vec!["compact"],
        vec!["undo"],
    ];
    let at = |cmd: &[&str], path: &str| -> Vec<String> {
        // the path goes before a trailing query (offset-for-time PATH latest)
        let mut v: Vec<String> = cmd.iter().map(ToString::to_string).collect();
        let pos = if cmd[0] == "offset-for-time" { 1 } else { v.len() };
        v.insert(pos, path.to_string());
        v
    };
    for cmd in &commands {
        for path in [&etc, &missing] {
            let v = at(cmd, path);
            let (code, _, err) = run(&v.iter().map(String::as_str).collect::<Vec<_>>());
            assert_eq!(code, 2, "{v:?}: {err}");
            assert!(err.contains("no Kafka log data") || err.contains("no such file"), "{v:?}: {err}");
            assert!(!err.contains("os error"), "{v:?}: {err}");
        }
    }
    // the levels each command does not take
    for (cmd, path) in [
        (vec!["txns"], &segment),
        (vec!["groups"], &segment),
        (vec!["digest", "-o", &digest], &segment),
        (vec!["digest", "-o", &digest], &log_dir),
        (vec!["stats"], &segment),
        (vec!["recover"], &segment),
        (vec!["truncate-to-hw"], &segment),
        (vec!["retain", "--max-bytes", "1"], &segment),
        (vec!["compact"], &segment),
    ] {
        let v = at(&cmd, path);
        let (code, _, err) = run(&v.iter().map(String::as_str).collect::<Vec<_>>());
        assert_eq!(code, 2, "{v:?}: {err}");
        assert!(err.contains("give a"), "{v:?} does not say what it takes: {err}");
    }
}

/// One range notation: verify's BYTES column and compact's plan print
/// `first-last` (before: `14984..15222` and `[0, 2987)`), `--offsets` takes
/// it back (both included) as well as `A..B`, and a wrong form is refused
/// naming the accepted ones; a time that is not one is refused in our words
/// (before: "failed to parse two digit integer as month").
#[test]
fn one_range_notation_and_errors_in_our_words() {
    let txn = fixtures().join("clean/logs/txn-1");
    let txn = txn.to_str().unwrap();
    let records = |range: &str| {
        let (code, lines) = run_json(&["dump", "--deep", "--offsets", range, txn]);
        assert!(code <= 1);
        of_type(&lines, "record").iter().map(|r| r["offset"].as_i64().unwrap()).collect::<Vec<_>>()
    };
    assert_eq!(records("10-12"), records("10..13"));
    assert_eq!(records("10-12"), vec![10, 11, 12]);
    for bad in ["10-x", "abc", "10:20"] {
        let (code, _, err) = run(&["dump", "--offsets", bad, txn]);
        assert_eq!(code, 2);
        assert!(err.contains("FIRST-LAST") && err.contains("A..B"), "{bad}: {err}");
    }
    for bad in ["2026-13-45", "yesterday"] {
        let (code, _, err) = run(&["offset-for-time", txn, bad]);
        assert_eq!(code, 2);
        assert!(err.contains("is not a time") && !err.contains("failed to parse"), "{bad}: {err}");
    }
    // a damaged segment's byte range in verify's table
    let c = tempfile::tempdir().unwrap();
    let dir = c.path().join("txn-1");
    copy_dir(Path::new(txn), &dir);
    let seg = dir.join("00000000000000000000.log");
    let mut bytes = std::fs::read(&seg).unwrap();
    let at = bytes.len() / 2;
    bytes[at] ^= 0xff;
    std::fs::write(&seg, bytes).unwrap();
    let (_, out, _) = run(&["verify", dir.to_str().unwrap()]);
    assert!(out.lines().any(|l| l.starts_with("error ")), "{out}");
    assert!(!out.contains(".."), "{out}");
}

/// `dump --deep`'s table says what its record rows hold: the key and value
/// under a header that names records (`FLAGS / RECORD`), their sizes as
/// `k6 v41` (before: keys under FLAGS, sizes as an unexplained `6/41`).
#[test]
fn dump_record_rows_say_what_they_hold() {
    let txn = fixtures().join("clean/logs/txn-1");
    let (code, out, _) = run(&["dump", "--deep", s(&txn)]);
    assert!(code <= 1);
    assert!(out.contains("FLAGS / RECORD"), "{out}");
    assert!(out.contains("k6 v41"), "{out}");
}

/// `help` offers no progress bar or colour option, and `--format json`
/// gives the command's arguments as JSON, not the text help.
#[test]
fn help_offers_what_it_takes_and_answers_in_json() {
    let (code, out, _) = run(&["help", "--help"]);
    assert_eq!(code, 0);
    assert!(!out.contains("--quiet") && !out.contains("--color"), "{out}");
    assert!(out.contains("--format"), "{out}");
    // still taken where a user puts them
    for args in [&["help", "-q", "dump"][..], &["-q", "help", "dump"], &["help", "--color", "never", "dump"]] {
        let (code, out, err) = run(args);
        assert_eq!(code, 0, "{args:?}: {err}");
        assert!(out.starts_with("Print the contents"), "{args:?}: {out}");
    }
    let (code, lines) = run_json(&["help", "dump"]);
    assert_eq!(code, 0);
    assert_eq!(lines.len(), 1, "{lines:?}");
    let h = &lines[0];
    assert_eq!(h["type"], "help");
    assert_eq!(h["command"], "logtool dump");
    let args = h["arguments"].as_array().unwrap();
    let deep = args.iter().find(|a| a["long"] == "--deep").expect("--deep");
    assert_eq!(deep["required"], false);
    let payload = args.iter().find(|a| a["long"] == "--payload").expect("--payload");
    assert!(payload["possible_values"].as_array().unwrap().iter().any(|v| v == "hex"), "{payload}");
    assert!(args.iter().any(|a| a["id"] == "paths" && a["positional"] == true));
    let (_, top) = run_json(&["help"]);
    assert!(top[0]["subcommands"].as_array().unwrap().iter().any(|c| c == "verify"));
}
