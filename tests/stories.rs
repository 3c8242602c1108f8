//! The operator's stories end to end (issue 52): a full disk gets its
//! space back on purpose, tables stay one line per record at 80 columns,
//! filters print only what matched, verify puts errors first, and the
//! smaller edges a newcomer met. Each test quotes the commands it runs.

use std::path::Path;

use crate::util::{copy_dir, fixtures, logtool, of_type, run, run_json, run_with};

fn s(p: &Path) -> &str {
    p.to_str().unwrap()
}

/// The disk space under `dir`, as `du` counts it (allocated blocks, each
/// inode once).
fn du(dir: &Path) -> u64 {
    use std::os::unix::fs::MetadataExt;
    let mut seen = std::collections::HashSet::new();
    let mut total = 0u64;
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        let m = std::fs::symlink_metadata(&d).unwrap();
        if seen.insert(m.ino()) {
            total += m.blocks() * 512;
        }
        if m.is_dir() {
            for e in std::fs::read_dir(&d).unwrap() {
                stack.push(e.unwrap().path());
            }
        }
    }
    total
}

/// `retain --before ... --execute` then `quarantine --purge ID --execute`:
/// `du` of the filesystem (the log dir and its quarantine beside it) is
/// lower by what retain's plan said; each plan states its numbers.
#[test]
fn a_full_disk_gets_space_back_by_what_the_plan_said() {
    let tmp = tempfile::tempdir().unwrap();
    let logs = tmp.path().join("logs");
    copy_dir(&fixtures().join("clean/logs"), &logs);
    let before = du(tmp.path());
    let retain = ["retain", "--before", "2099-01-01T00:00:00Z", s(&logs)];
    let (code, plan) = run_json(&retain);
    assert_eq!(code, 1);
    let r = of_type(&plan, "repair")[0].clone();
    let freed = r["removed_bytes"].as_u64().unwrap() - r["written_bytes"].as_u64().unwrap();
    assert!(freed > 100 << 10, "{r}");
    let (_, table, _) = run(&retain);
    assert!(table.contains("the filesystem frees nothing yet") && table.contains("logtool quarantine"), "{table}");
    let mut exec = retain.to_vec();
    exec.push("--execute");
    let (code, _, err) = run(&exec);
    assert_eq!(code, 0, "{err}");
    // a repair alone frees nothing: the quarantine keeps every byte
    assert!(du(tmp.path()) >= before, "{} {before}", du(tmp.path()));
    let (code, listed) = run_json(&["quarantine", s(&logs)]);
    assert_eq!(code, 0);
    let repairs = of_type(&listed, "quarantined_repair");
    assert_eq!(repairs.len(), 1);
    let id = repairs[0]["id"].as_str().unwrap().to_string();
    // the purge plan says what it frees and deletes nothing
    let (code, table, _) = run(&["quarantine", s(&logs), "--purge", &id]);
    assert_eq!(code, 1);
    assert!(table.contains("dry run, nothing deleted") && table.contains("freeing"), "{table}");
    assert_eq!(listed.len(), 2);
    let (code, _, err) = run(&["quarantine", s(&logs), "--purge", &id, "--execute"]);
    assert_eq!(code, 0, "{err}");
    let after = du(tmp.path());
    // (the partition dirs' own blocks may differ by a block or two)
    let diff = (before - after).abs_diff(freed);
    assert!(diff <= 8192, "du fell by {} where the plan said {freed}", before - after);
    assert!(!tmp.path().join("logs.logtool-quarantine").exists());
    // nothing left to undo
    let (code, _, _) = run(&["undo", s(&logs)]);
    assert_eq!(code, 0);
}

/// `retain --execute --quarantine-dir` on another filesystem frees the
/// space at once, as its plan says, and `undo` with the same quarantine
/// copies every byte back.
#[test]
fn a_quarantine_on_another_filesystem_frees_the_space_at_once() {
    let shm = Path::new("/dev/shm");
    let tmp = tempfile::tempdir().unwrap();
    let Ok(other) = tempfile::tempdir_in(shm) else {
        return eprintln!("no /dev/shm here: skipped");
    };
    let logs = tmp.path().join("logs");
    copy_dir(&fixtures().join("clean/logs"), &logs);
    let q = other.path().join("q");
    let before = du(tmp.path());
    // every file under the log dir, with its bytes and modification time
    let listing = |dir: &Path| {
        let mut v = Vec::new();
        let mut stack = vec![dir.to_path_buf()];
        while let Some(d) = stack.pop() {
            for e in std::fs::read_dir(&d).unwrap().flatten() {
                let p = e.path();
                if p.is_dir() {
                    stack.push(p);
                } else {
                    let m = std::fs::metadata(&p).unwrap().modified().unwrap();
                    v.push((p.strip_prefix(dir).unwrap().to_path_buf(), std::fs::read(&p).unwrap(), m));
                }
            }
        }
        v.sort();
        v
    };
    let files = listing(&logs);
    let retain = ["retain", "--before", "2099-01-01T00:00:00Z", "--quarantine-dir", s(&q), s(&logs)];
    let (code, plan) = run_json(&retain);
    assert_eq!(code, 1);
    let r = of_type(&plan, "repair")[0].clone();
    assert_eq!(r["other_filesystem"], true, "{r}");
    let freed = r["removed_bytes"].as_u64().unwrap() - r["written_bytes"].as_u64().unwrap();
    let (_, table, _) = run(&retain);
    assert!(table.contains("freed on the log dir's filesystem once done"), "{table}");
    let mut exec = retain.to_vec();
    exec.push("--execute");
    let (code, out, err) = run(&exec);
    assert_eq!(code, 0, "{err}");
    assert!(out.contains("were moved to"), "{out}");
    let diff = (before - du(tmp.path())).abs_diff(freed);
    assert!(diff <= 8192, "du fell by {} where the plan said {freed}", before - du(tmp.path()));
    assert!(!tmp.path().join("logs.logtool-quarantine").exists(), "nothing stays beside the log dir");
    let (code, listed) = run_json(&["quarantine", "--quarantine-dir", s(&q), s(&logs)]);
    assert_eq!(code, 0);
    assert_eq!(of_type(&listed, "quarantined_repair").len(), 1);
    let (code, _, err) = run(&["undo", "--execute", "--quarantine-dir", s(&q), s(&logs)]);
    assert_eq!(code, 0, "{err}");
    assert_eq!(listing(&logs), files, "every byte back");
}

/// `retain --purge --execute` deletes at once, as its plan says.
#[test]
fn retain_purge_frees_at_once_without_undo() {
    let tmp = tempfile::tempdir().unwrap();
    let logs = tmp.path().join("logs");
    copy_dir(&fixtures().join("clean/logs"), &logs);
    let before = du(tmp.path());
    let args = ["retain", "--before", "2099-01-01T00:00:00Z", "--purge", s(&logs)];
    let (_, plan, _) = run(&args);
    assert!(plan.contains("with --purge the removed bytes are deleted at once") && plan.contains("no undo"), "{plan}");
    let mut exec = args.to_vec();
    exec.push("--execute");
    let (code, out, err) = run(&exec);
    assert_eq!(code, 0, "{err}");
    assert!(out.contains("were deleted (--purge)"), "{out}");
    assert!(du(tmp.path()) + (100 << 10) < before);
    assert!(!tmp.path().join("logs.logtool-quarantine").exists());
}

/// At COLUMNS=80 every line fits and every record, finding, partition or
/// change is one line (counted against the JSON).
#[test]
fn at_80_columns_one_line_per_record() {
    let clean = fixtures().join("clean/logs");
    let sigkill = fixtures().join("sigkill/logs");
    let narrow = |args: &[&str]| -> String {
        let (_, out, err) = run_with(&[("COLUMNS", "80")], args);
        for l in out.lines() {
            assert!(l.chars().count() <= 80, "{args:?}: {} columns: {l}\n{out}{err}", l.chars().count());
        }
        out
    };
    // verify --details: a line per finding, severity first
    let args = ["verify", "--details", s(&sigkill)];
    let out = narrow(&args);
    let (_, json) = run_json(&args);
    let rows = out.lines().filter(|l| l.starts_with("info ") || l.starts_with("warning ") || l.starts_with("error "));
    assert_eq!(rows.count(), of_type(&json, "finding").len(), "{out}");
    // dump --deep: a line per batch and per record (each shows its time)
    let txn = clean.join("txn-1/00000000000000000000.log");
    let out = narrow(&["dump", "--deep", s(&txn)]);
    let (_, json) = run_json(&["dump", "--deep", s(&txn)]);
    // (a time: RFC 3339 with ms, `2026-11-22T05:08:43.940Z`)
    let is_time = |w: &str| w.len() == 24 && w.ends_with('Z') && w.as_bytes().get(10) == Some(&b'T');
    let timed = out.lines().filter(|l| l.split_whitespace().any(is_time)).count();
    assert_eq!(timed, of_type(&json, "batch").len() + of_type(&json, "record").len(), "{out}");
    // one layout per output: every segment's table has the same columns
    let out = narrow(&["dump", "--deep", s(&clean.join("txn-1"))]);
    let headers: std::collections::BTreeSet<&str> = out.lines().filter(|l| l.starts_with("POSITION")).collect();
    assert_eq!(headers.len(), 1, "{headers:?}");
    // stats: a line per partition and the total
    let out = narrow(&["stats", "--no-charts", s(&clean)]);
    let (_, json) = run_json(&["stats", "--no-charts", s(&clean)]);
    let parts = of_type(&json, "stats").iter().filter(|l| l["scope"] == "partition").count();
    assert!(parts >= 15, "{parts}");
    let rows = out.lines().filter(|l| l.contains(" KiB ") || l.contains(" B ")).count();
    assert!(rows > parts, "{out}");
    // offset-for-time: a line per partition
    let out = narrow(&["offset-for-time", s(&clean), "earliest"]);
    assert_eq!(out.lines().filter(|l| l.contains(" earliest ")).count(), 14, "{out}");
    // recover and its plan: a line per partition and per change
    let tmp = tempfile::tempdir().unwrap();
    let copy = tmp.path().join("logs");
    copy_dir(&sigkill, &copy);
    let out = narrow(&["recover", "--details", s(&copy)]);
    let (_, json) = run_json(&["recover", s(&copy)]);
    let changes = of_type(&json, "change").len();
    let rows = out.lines().filter(|l| ["replace ", "create ", "remove ", "truncate "].iter().any(|o| l.starts_with(o)));
    assert_eq!(rows.count(), changes, "{out}");
    // undo's plan: a line per step
    let (code, _, err) = run(&["recover", "--execute", s(&copy)]);
    assert_eq!(code, 0, "{err}");
    let out = narrow(&["undo", s(&copy)]);
    let steps = out.lines().filter(|l| ["restore ", "remove ", "extend ", "rename "].iter().any(|o| l.starts_with(o)));
    assert_eq!(steps.count(), changes, "{out}");
    // groups: a line per group and per committed offset, laid out as
    // kafka-consumer-groups --describe
    let incident = fixtures().join("incident/logs");
    let out = narrow(&["groups", s(&incident)]);
    let (_, json) = run_json(&["groups", s(&incident)]);
    let rows = out.lines().filter(|l| l.starts_with("g-")).count();
    assert_eq!(rows, of_type(&json, "group").len() + of_type(&json, "committed_offset").len(), "{out}");
    assert!(out.contains("CURRENT-OFFSET") && out.contains("LOG-END-OFFSET") && out.contains("CONSUMER-ID"), "{out}");
    assert!(!out.contains("(HW)") && !out.contains("LOG END "), "one log end column: {out}");
    // diff-replicas: a line per replica, its DIVERGES AT and TRUNCATE TO kept
    let f = fixtures().join("failover/before");
    let out = narrow(&["diff-replicas", s(&f.join("broker-2/div-0")), s(&f.join("broker-3/div-0"))]);
    assert!(out.contains("DIVERGES AT") && out.contains("TRUNCATE TO"), "{out}");
    assert_eq!(out.lines().filter(|l| l.contains("div-0 ")).count(), 2, "{out}");
}

/// Piped, rows are whole and ASCII; `--format tsv` gives them tab-separated.
#[test]
fn piped_rows_are_whole_and_tsv_is_there() {
    let sigkill = fixtures().join("sigkill/logs");
    let (_, out, _) = run(&["verify", s(&sigkill)]);
    assert!(!out.contains(['│', '─', '┌', '…']), "{out}");
    let (_, out, _) = run(&["verify", "--details", "--format", "tsv", s(&sigkill)]);
    let header = out.lines().next().unwrap();
    assert!(header.starts_with("SEVERITY\tKIND\tFILE\t"), "{out}");
    let rows: Vec<&str> = out.lines().filter(|l| !l.starts_with('#') && !l.is_empty()).skip(1).collect();
    assert!(!rows.is_empty() && rows.iter().all(|r| r.split('\t').count() == 6), "{out}");
}

/// `dump --key a0-1-3 logs` shows only the file that holds it (JSON too);
/// `--key nosuch` exits 1, as grep does.
#[test]
fn filters_print_only_files_that_match() {
    let logs = fixtures().join("clean/logs");
    let (code, out, _) = run(&["dump", "--key", "a0-1-3", s(&logs)]);
    assert_eq!(code, 0);
    assert_eq!(out.lines().filter(|l| l.contains(".log (")).count(), 1, "{out}");
    let (_, json) = run_json(&["dump", "--key", "a0-1-3", s(&logs)]);
    assert_eq!(of_type(&json, "file").len(), 1);
    let (code, _, err) = run(&["dump", "--key", "nosuch", s(&logs)]);
    assert_eq!(code, 1, "{err}");
    assert!(err.contains("no record matched"), "{err}");
}

/// `verify` on a damaged copy: the error row first, info folded by kind;
/// `--severity error` shows only errors.
#[test]
fn verify_puts_errors_first_and_folds_info() {
    let tmp = tempfile::tempdir().unwrap();
    let logs = tmp.path().join("logs");
    copy_dir(&fixtures().join("sigkill/logs"), &logs);
    let seg = logs.join("kill-plain-0/00000000000000000000.log");
    let mut bytes = std::fs::read(&seg).unwrap();
    let at = bytes.len() / 2;
    bytes[at] ^= 0xff;
    std::fs::write(&seg, bytes).unwrap();
    let (code, out, _) = run(&["verify", s(&logs)]);
    assert_eq!(code, 1);
    let first = out.lines().nth(1).unwrap();
    assert!(first.starts_with("error "), "{out}");
    assert!(out.contains(" files)") && out.contains("--details lists each"), "{out}");
    let (_, out, _) = run(&["verify", "--severity", "error", s(&logs)]);
    assert!(!out.lines().any(|l| l.starts_with("info ")), "{out}");
}

/// `offset-for-time codec-none-0 earliest` from inside the log dir, and
/// `offset-for-time . earliest` inside the partition, answer; a time
/// without a zone says the zone taken and shows the instant used.
#[test]
fn offset_for_time_takes_relative_paths_and_says_the_zone() {
    let logs = fixtures().join("clean/logs");
    let out = logtool().current_dir(&logs).args(["offset-for-time", "codec-none-0", "earliest"]).output().unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", String::from_utf8_lossy(&out.stderr));
    let out =
        logtool().current_dir(logs.join("codec-none-0")).args(["offset-for-time", ".", "earliest"]).output().unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", String::from_utf8_lossy(&out.stderr));
    let out = logtool()
        .env("TZ", "Europe/Berlin")
        .args(["offset-for-time", s(&logs.join("codec-none-0")), "2026-11-22T06:07:42.5"])
        .output()
        .unwrap();
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(text.contains("taken in Europe/Berlin") && text.contains("2026-11-22T05:07:42.500Z"), "{text}");
}

/// `verify /etc` is an error of the command (exit 2, `command_error` in
/// JSON), not a table row nor a summary that reads as checked.
#[test]
fn a_path_without_kafka_data_is_a_command_error() {
    let (code, out, err) = run(&["verify", "/etc"]);
    assert_eq!(code, 2);
    assert!(out.trim().is_empty(), "{out}");
    assert!(err.contains("holds no Kafka log data"), "{err}");
    let (code, lines) = run_json(&["verify", "/etc"]);
    assert_eq!(code, 2);
    assert_eq!(lines.last().unwrap()["type"], "command_error", "{lines:?}");
    assert!(of_type(&lines, "finding").is_empty() && of_type(&lines, "summary").is_empty());
}

/// Arguments refused in our words, naming what to give.
#[test]
fn refusals_say_which_value_and_what_to_give() {
    let logs = fixtures().join("clean/logs");
    let (code, _, err) = run(&["verify", "-j", "0", s(&logs)]);
    assert_eq!(code, 2);
    assert!(err.contains("give a count of 1 or more") && !err.contains("non-zero type"), "{err}");
    let (_, _, err) = run(&["groups", "--which", "g", "--partitions", "0"]);
    assert!(err.contains("a partition count is a whole number from 1") && !err.contains("1..="), "{err}");
    let readme = crate::util::root().join("README.md");
    let (code, _, err) = run(&["reindex", s(&readme)]);
    assert_eq!(code, 2);
    assert!(err.contains("is not a segment: give a log dir") && !err.contains("malformed"), "{err}");
    // the units logtool prints are taken back
    let (code, _, err) = run(&["dump", "--max-bytes", "1MiB", s(&logs.join("plain-0"))]);
    assert_eq!(code, 0, "{err}");
    // a cut past the end says where the log ends
    let (code, out, _) = run(&["truncate", "--to", "99999999999", s(&logs.join("plain-0"))]);
    assert_eq!(code, 0);
    assert!(out.contains("the log ends at offset ") && out.contains("cuts nothing"), "{out}");
}

/// `digest -o - A | diff-replicas - B`: the replica from stdin is `-`,
/// never a temporary file.
#[test]
fn a_digest_from_stdin_is_named_as_given() {
    let f = fixtures().join("failover/before");
    let digest = logtool().args(["digest", "-o", "-", s(&f.join("broker-2/div-0"))]).output().unwrap().stdout;
    let out = logtool()
        .args(["--format", "json", "diff-replicas", "-", s(&f.join("broker-3/div-0"))])
        .write_stdin(digest)
        .output()
        .unwrap();
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(text.contains("\"path\":\"-\""), "{text}");
    assert!(!text.contains("/tmp/.tmp"), "{text}");
}

/// `undo`'s plan shows the sizes of files that exist (not `-`).
#[test]
fn undo_plans_show_sizes() {
    let tmp = tempfile::tempdir().unwrap();
    let logs = tmp.path().join("logs");
    copy_dir(&fixtures().join("sigkill/logs"), &logs);
    let (code, _, err) = run(&["recover", "--execute", s(&logs)]);
    assert_eq!(code, 0, "{err}");
    let (_, json) = run_json(&["undo", s(&logs)]);
    let restores: Vec<_> = of_type(&json, "change").into_iter().filter(|c| c["op"] == "restore").collect();
    assert!(!restores.is_empty());
    assert!(restores.iter().all(|c| c["size_before"].is_u64() && c["size_after"].is_u64()), "{restores:?}");
    // a log dir's own file names that log dir (not its parent)
    let (code, out, _) = run(&["undo", s(&logs.join("recovery-point-offset-checkpoint"))]);
    assert_eq!(code, 1, "{out}");
    assert!(out.contains("dry run, nothing changed"), "{out}");
    // undone once: the same id again says so, and changes nothing
    let id = of_type(&json, "repair")[0]["id"].as_str().unwrap().to_string();
    let (code, _, err) = run(&["undo", "--execute", s(&logs)]);
    assert_eq!(code, 0, "{err}");
    let (code, out, _) = run(&["undo", "--id", &id, "--execute", s(&logs)]);
    assert_eq!(code, 0);
    assert!(out.contains("is undone: nothing of it to undo"), "{out}");
}

/// `fixture crash --out X` in a directory that holds `crash/`: the shipped
/// spec wins (a directory is no spec file); a non-empty --out is named.
#[test]
fn fixture_names_what_it_refuses() {
    let tmp = tempfile::tempdir().unwrap();
    std::fs::create_dir(tmp.path().join("crash")).unwrap();
    let out = logtool().current_dir(tmp.path()).args(["fixture", "crash", "-q", "--out", "x"]).output().unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", String::from_utf8_lossy(&out.stderr));
    let again = logtool().current_dir(tmp.path()).args(["fixture", "crash", "-q", "--out", "x"]).output().unwrap();
    let err = String::from_utf8_lossy(&again.stderr);
    assert_eq!(again.status.code(), Some(2));
    assert!(err.contains("(the --out dir)"), "{err}");
}

/// One unreadable partition: `stats` says it and reports the others (exit 2).
#[test]
fn stats_goes_on_past_an_unreadable_partition() {
    use std::os::unix::fs::PermissionsExt;
    let tmp = tempfile::tempdir().unwrap();
    let logs = tmp.path().join("logs");
    copy_dir(&fixtures().join("clean/logs"), &logs);
    let seg = logs.join("plain-1/00000000000000000000.log");
    std::fs::set_permissions(&seg, std::fs::Permissions::from_mode(0o000)).unwrap();
    if std::fs::File::open(&seg).is_ok() {
        return; // (root reads it anyway)
    }
    let (code, out, _) = run(&["stats", "--no-charts", s(&logs)]);
    assert_eq!(code, 2);
    assert!(out.contains("plain-1") && out.contains("could not be read"), "{out}");
    assert!(out.lines().any(|l| l.starts_with("plain-2 ")), "{out}");
}

/// `verify` on a dir a running `logtool broker` holds: the indexes and the
/// leader-epoch checkpoint it writes lazily are "live", never warnings.
#[test]
fn a_live_broker_dir_has_no_missing_file_warnings() {
    let tmp = tempfile::tempdir().unwrap();
    let mut b = crate::broker::Broker::start(&tmp, &[]);
    let mut c = b.connect();
    crate::broker::create_topic(&mut c, "t");
    for seq in 0..3 {
        let (code, _) = crate::broker::produce(&mut c, crate::util::idempotent_batch(0, 0, seq * 5, 5));
        assert_eq!(code, 0);
    }
    let logs = tmp.path().join("logs");
    let (_, json) = run_json(&["verify", s(&logs)]);
    let loud: Vec<_> = of_type(&json, "finding").into_iter().filter(|f| f["severity"] != "info").collect();
    assert!(loud.is_empty(), "{loud:?}");
    let said =
        of_type(&json, "finding").iter().any(|f| f["message"].as_str().unwrap().starts_with("live, not missing"));
    assert!(said, "{json:?}");
    assert_eq!(b.stop(), 0);
}

/// `verify`, `stats` and `dump` count batches differently on one log dir,
/// each by what it reads, and GUIDE's Conventions say so with the clean
/// fixture's numbers: `logtool stats`, `logtool verify` and `logtool dump`
/// on it, as JSON.
#[test]
fn each_command_counts_what_guide_says() {
    let clean = fixtures().join("clean/logs");
    let (_, dump) = run_json(&["dump", s(&clean)]);
    let (_, verify) = run_json(&["verify", s(&clean)]);
    let (_, stats) = run_json(&["stats", "--no-charts", s(&clean)]);
    let batches_of = |pred: &dyn Fn(&str) -> bool| {
        of_type(&dump, "batch").iter().filter(|b| pred(b["file"].as_str().unwrap())).count() as u64
    };
    let segments = batches_of(&|f| f.ends_with(".log"));
    let snapshots = batches_of(&|f| f.contains("__cluster_metadata-0/") && f.ends_with(".checkpoint"));
    let all = batches_of(&|_| true);
    let total = stats.iter().find(|l| l["scope"] == "log_dir").unwrap()["batches"].as_u64().unwrap();
    let checked = of_type(&verify, "summary")[0]["batches"].as_u64().unwrap();
    let dumped = of_type(&dump, "summary")[0]["batches"].as_u64().unwrap();
    assert_eq!(total, segments, "stats: the batches of .log segments");
    assert_eq!(checked, segments + snapshots, "verify: those and the KRaft snapshots'");
    assert_eq!(dumped, all, "dump: every file it prints");
    assert!(dumped > checked && checked > total);
    if std::env::var_os("LOGTOOL_FIXTURES").is_none() {
        let guide = std::fs::read_to_string(crate::util::root().join("GUIDE.md")).unwrap();
        let said = format!("{total}, {checked} and {dumped}");
        assert!(guide.contains(&said), "GUIDE's Conventions should give the clean fixture's counts: {said}");
    }
}
