//! The commands that write (`recover`, `truncate-to-hw`, `truncate`,
//! `reindex`, `retain`, `undo`) on copies of the real-Kafka fixtures: plans
//! change nothing, locked dirs are refused, every step survives SIGKILL, and
//! undo restores every byte. (Agreement with what Kafka itself does is checked
//! by the interop suite, tests/interop/repair.sh.)

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use serde_json::Value;

use crate::util::{copy_tree, files_under, fixtures, of_type, run, run_json};

/// Every file under `dir` (path relative to it) with its bytes.
pub(crate) fn contents(dir: &Path) -> BTreeMap<String, Vec<u8>> {
    files_under(dir)
        .into_iter()
        .map(|f| (f.strip_prefix(dir).unwrap().display().to_string(), std::fs::read(&f).unwrap()))
        .collect()
}

pub(crate) struct Copy {
    _tmp: tempfile::TempDir,
    pub(crate) logs: PathBuf,
}

impl Copy {
    pub(crate) fn of(scenario: &str) -> Copy {
        let (tmp, logs) = copy_tree(&fixtures().join(scenario).join("logs"));
        Copy { _tmp: tmp, logs }
    }

    pub(crate) fn path(&self, rel: &str) -> PathBuf {
        self.logs.join(rel)
    }

    pub(crate) fn s(&self, rel: &str) -> String {
        self.path(rel).to_str().unwrap().to_string()
    }

    pub(crate) fn quarantine(&self) -> PathBuf {
        self.logs.with_file_name("logs.logtool-quarantine")
    }
}

fn kinds(lines: &[Value], t: &str) -> usize {
    of_type(lines, t).len()
}

#[test]
fn plans_change_nothing() {
    let c = Copy::of("sigkill");
    let before = contents(&c.logs);
    let logs = c.s("");
    for args in [
        vec!["recover", &logs],
        vec!["recover", "--all", &logs],
        vec!["truncate-to-hw", &logs],
        vec!["reindex", &logs],
        vec!["retain", "--max-bytes", "1", "--assume-policy", "delete", &logs],
    ] {
        let (code, lines) = run_json(&args);
        assert!(kinds(&lines, "change") > 0, "{args:?} planned nothing");
        assert_eq!(code, 1, "{args:?}: a plan with changes exits 1");
        assert_eq!(contents(&c.logs), before, "{args:?} changed the log dir");
    }
    assert!(!c.quarantine().exists(), "a dry run created the quarantine");
}

/// What logtool's own repairs leave is a log dir a healthy Kafka could have
/// left: `verify` finds nothing at warning or above.
#[test]
fn repaired_dirs_verify_clean() {
    let verify_clean = |logs: &str, what: &str| {
        let (_, lines) = run_json(&["verify", "--fail-on", "warning", logs]);
        let bad: Vec<&Value> = of_type(&lines, "finding").into_iter().filter(|f| f["severity"] != "info").collect();
        assert!(bad.is_empty(), "{what}: {bad:#?}");
    };
    for scenario in ["healthy", "clean"] {
        let c = Copy::of(scenario);
        let logs = c.s("");
        for args in [
            vec!["recover", "--all", "--execute", &logs],
            vec!["reindex", "--execute", &logs],
            vec!["retain", "--max-bytes", "4000", "--execute", &logs],
            vec!["truncate-to-hw", "--execute", &logs],
        ] {
            let (code, out, err) = run(&args);
            assert_eq!(code, 0, "{scenario}: {args:?}: {out}{err}");
            verify_clean(&logs, &format!("{scenario} after {args:?}"));
        }
        // the log start moved into the middle of a segment, and to a segment's base
        for (part, pick) in [("h-txn-0", 0usize), ("h-idempotent-0", 1), ("plain-0", 0), ("txn-0", 1)] {
            let dir = c.path(part);
            if !dir.exists() {
                continue;
            }
            let (_, lines) = run_json(&["dump", dir.to_str().unwrap()]);
            let files: Vec<&Value> = of_type(&lines, "file").into_iter().filter(|f| f["kind"] == "log").collect();
            let base = files.get(1).map_or(0, |f| f["base_offset"].as_i64().unwrap());
            let start = (base + if pick == 0 { 2 } else { 0 }).to_string();
            let (code, out, err) = run(&["retain", "--log-start", &start, "--execute", dir.to_str().unwrap()]);
            assert_eq!(code, 0, "{scenario}: retain --log-start {start} {part}: {out}{err}");
            verify_clean(&logs, &format!("{scenario} after retain --log-start {start} {part}"));
        }
        let (code, out, err) = run(&[
            "truncate",
            "--to",
            "5",
            "--execute",
            &c.s(if scenario == "clean" { "plain-1" } else { "h-codecs-0" }),
        ]);
        assert_eq!(code, 0, "{out}{err}");
        verify_clean(&logs, &format!("{scenario} after truncate --to 5"));
    }
}

#[test]
fn a_locked_log_dir_is_refused() {
    let c = Copy::of("sigkill");
    let lock = std::fs::OpenOptions::new().write(true).open(c.path(".lock")).unwrap();
    lock.lock().unwrap();
    let before = contents(&c.logs);
    let (code, _, err) = run(&["recover", "--execute", &c.s("")]);
    assert_eq!(code, 2);
    assert!(err.contains("holds this log dir's .lock"), "{err}");
    assert_eq!(contents(&c.logs), before);
    // unlocked explicitly: a child another test thread has forked but not yet
    // exec'd shares the open file (and so its flock) until it execs
    lock.unlock().unwrap();
    drop(lock);
    let (code, _, err) = run(&["recover", "--execute", &c.s("")]);
    assert_eq!(code, 0, "{err}");
}

#[test]
fn recover_then_undo_restores_every_byte_and_verify_is_clean_between() {
    let c = Copy::of("sigkill");
    let before = contents(&c.logs);
    let (code, lines) = run_json(&["recover", "--execute", "--index-interval-bytes", "1024", &c.s("")]);
    assert_eq!(code, 0);
    let repair = of_type(&lines, "repair")[0];
    assert_eq!(repair["state"], "done");
    // nothing of logtool's is left in the log dir: what is new is the
    // producer snapshot Kafka's load takes at each log end
    // (rules::recovery::snapshots_on_load), and no file went
    let after = contents(&c.logs);
    let new: Vec<_> = after.keys().filter(|k| !before.contains_key(*k)).collect();
    assert!(new.iter().all(|k| k.ends_with(".snapshot")), "{new:?}");
    assert!(before.keys().all(|k| after.contains_key(k) || k.ends_with(".snapshot")));
    let (code, v) = run_json(&["verify", "--fail-on", "warning", &c.s("")]);
    assert_eq!(code, 0, "{v:?}");
    assert!(of_type(&v, "finding").iter().all(|f| f["kind"] != "index_preallocated"));
    let (code, _) = run_json(&["undo", "--execute", &c.s("")]);
    assert_eq!(code, 0);
    assert_eq!(contents(&c.logs), before);
}

/// `recover --roll` leaves each partition as Kafka leaves it after a roll
/// and a flush at the recovered log end: a second recovery has nothing to
/// do, verify is clean, and undo restores every byte.
#[test]
fn recover_roll_leaves_nothing_to_recover() {
    let c = Copy::of("sigkill");
    let before = contents(&c.logs);
    let (code, lines) = run_json(&["recover", "--execute", "--roll", &c.s("")]);
    assert_eq!(code, 0, "{lines:?}");
    let rp = std::fs::read_to_string(c.path("recovery-point-offset-checkpoint")).unwrap();
    let parts = of_type(&lines, "partition");
    assert!(parts.iter().any(|p| p["partition"].as_str().unwrap().ends_with("kill-txn-0")));
    for p in parts {
        let dir = PathBuf::from(p["partition"].as_str().unwrap());
        let name = dir.file_name().unwrap().to_str().unwrap().to_string();
        if name.starts_with("__cluster_metadata") {
            assert!(p["rolled_at"].is_null(), "{p}");
            continue;
        }
        let end = p["log_end_offset"].as_i64().unwrap();
        assert_eq!(p["rolled_at"].as_i64(), Some(end), "{p}");
        let seg = dir.join(format!("{end:020}.log"));
        assert_eq!(std::fs::metadata(&seg).unwrap().len(), 0, "{}", seg.display());
        assert!(dir.join(format!("{end:020}.snapshot")).exists());
        let (topic, partition) = name.rsplit_once('-').unwrap();
        assert!(rp.lines().any(|l| l == format!("{topic} {partition} {end}")), "{rp}");
    }
    let (code, plan) = run_json(&["recover", &c.s("")]);
    assert_eq!(code, 0, "a second recovery plans changes: {plan:?}");
    let (code, v) = run_json(&["verify", "--fail-on", "warning", &c.s("")]);
    assert_eq!(code, 0, "{v:?}");
    let (code, _) = run_json(&["undo", "--execute", &c.s("")]);
    assert_eq!(code, 0);
    assert_eq!(contents(&c.logs), before);
}

/// `undo` takes the path the repair was given, a partition dir too.
#[test]
fn undo_accepts_the_partition_dir_the_repair_was_given() {
    let c = Copy::of("sigkill");
    let before = contents(&c.logs);
    let part = c.s("kill-plain-0");
    let (code, _) = run_json(&["recover", "--execute", "--roll", &part]);
    assert_eq!(code, 0);
    assert_ne!(contents(&c.logs), before);
    let (code, lines) = run_json(&["undo", "--execute", &part]);
    assert_eq!(code, 0, "{lines:?}");
    assert_eq!(contents(&c.logs), before);
}

/// A segment of kill-plain-0 with a flipped byte: the log is cut at that
/// batch, every later segment goes, and the checkpoints come down.
#[test]
fn recover_cuts_at_the_first_bad_batch_and_drops_later_segments() {
    let c = Copy::of("sigkill");
    let dir = c.path("kill-plain-0");
    let mut logs: Vec<PathBuf> =
        files_under(&dir).into_iter().filter(|f| f.extension().is_some_and(|e| e == "log")).collect();
    logs.sort();
    assert!(logs.len() >= 3);
    let (_, dump) = run_json(&["dump", logs[1].to_str().unwrap()]);
    let batches = of_type(&dump, "batch");
    let bad = batches[batches.len() / 2];
    let pos = bad["position"].as_u64().unwrap();
    let mut bytes = std::fs::read(&logs[1]).unwrap();
    bytes[pos as usize + 100] ^= 0x20;
    std::fs::write(&logs[1], &bytes).unwrap();
    // a cut in a rolled segment loses every later one: the plan says so, and
    // --execute refuses it without --allow-data-loss
    let before = contents(&c.logs);
    let (code, lines) = run_json(&["recover", &c.s("kill-plain-0")]);
    assert_eq!(code, 1);
    assert!(
        of_type(&lines, "warning").iter().any(|w| w["message"].as_str().unwrap().contains("--allow-data-loss")),
        "{lines:?}"
    );
    assert!(!of_type(&lines, "loss").is_empty(), "{lines:?}");
    let (code, _, err) = run(&["recover", "--execute", &c.s("kill-plain-0")]);
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("--allow-data-loss"), "{err}");
    assert_eq!(contents(&c.logs), before, "a refused recovery changed the log dir");
    assert!(!c.quarantine().exists(), "a refused recovery left a quarantine");
    let (code, lines) = run_json(&["recover", "--execute", "--allow-data-loss", &c.s("kill-plain-0")]);
    assert_eq!(code, 0, "{lines:?}");
    let part = of_type(&lines, "partition")[0];
    assert_eq!(part["cut_position"], pos);
    assert_eq!(std::fs::metadata(&logs[1]).unwrap().len(), pos);
    assert!(!logs[2].exists(), "later segments are removed");
    assert_eq!(part["log_end_offset"], bad["base_offset"]);
    // what the log dir's checkpoints say is not above the new end
    let end = bad["base_offset"].as_i64().unwrap();
    for cp in ["replication-offset-checkpoint", "recovery-point-offset-checkpoint"] {
        let text = std::fs::read_to_string(c.path(cp)).unwrap();
        for l in text.lines().skip(2).filter(|l| l.starts_with("kill-plain 0 ")) {
            assert!(l.rsplit(' ').next().unwrap().parse::<i64>().unwrap() <= end, "{cp}: {l}");
        }
    }
    let (code, v) = run_json(&["verify", &c.s("kill-plain-0")]);
    assert_eq!(code, 0, "{v:?}");
}

/// A batch of a crashed partition's active segment (a real Kafka killed
/// mid-write) with one header field outside the CRC damaged: `recover` cuts
/// exactly before it (where Kafka's own recovery keeps it), names the field,
/// counts what is lost, leaves a dir `verify` finds clean, and `undo` gives
/// back every byte.
#[test]
fn recover_cuts_exactly_at_a_batch_with_a_damaged_header() {
    type Edit = fn(&mut [u8], usize);
    let set_len = |x: &mut [u8], at: usize, v: i32| x[at + 8..at + 12].copy_from_slice(&v.to_be_bytes());
    let len_of = |x: &[u8], at: usize| i32::from_be_bytes(x[at + 8..at + 12].try_into().unwrap());
    let _ = (set_len, len_of);
    let cases: Vec<(&str, Edit, &str)> = vec![
        ("baseOffset, a high byte", |x, at| x[at + 1] ^= 0xff, "baseOffset"),
        // (one less, not the low byte flipped: a flip that raises the last
        // batch's base is a gap, which a healthy log may have too - nothing
        // tells it from one; it failed so on fresh data whose active segment
        // had two batches)
        (
            "baseOffset, one less",
            |x, at| {
                let b = i64::from_be_bytes(x[at..at + 8].try_into().unwrap());
                x[at..at + 8].copy_from_slice(&(b - 1).to_be_bytes())
            },
            "baseOffset",
        ),
        (
            "batchLength larger",
            |x, at| {
                let l = i32::from_be_bytes(x[at + 8..at + 12].try_into().unwrap());
                x[at + 8..at + 12].copy_from_slice(&(l + 200).to_be_bytes())
            },
            "batchLength",
        ),
        (
            "batchLength smaller",
            |x, at| {
                let l = i32::from_be_bytes(x[at + 8..at + 12].try_into().unwrap());
                x[at + 8..at + 12].copy_from_slice(&(l - 20).to_be_bytes())
            },
            "batchLength",
        ),
        ("batchLength 2^31-1", |x, at| x[at + 8..at + 12].copy_from_slice(&i32::MAX.to_be_bytes()), "batchLength"),
        ("partitionLeaderEpoch", |x, at| x[at + 12] ^= 0x80, "partitionLeaderEpoch"),
        ("magic", |x, at| x[at + 16] ^= 0xff, "magic"),
    ];
    for (what, edit, field) in cases {
        let c = Copy::of("sigkill");
        let dir = c.path("kill-plain-0");
        let mut logs: Vec<PathBuf> =
            files_under(&dir).into_iter().filter(|f| f.extension().is_some_and(|e| e == "log")).collect();
        logs.sort();
        let active = logs.last().unwrap().clone();
        let (_, dump) = run_json(&["dump", "--deep", active.to_str().unwrap()]);
        let batches = of_type(&dump, "batch");
        let bad = batches[batches.len() / 2];
        let (pos, base) = (bad["position"].as_u64().unwrap(), bad["base_offset"].as_i64().unwrap());
        let kept: Vec<i64> =
            of_type(&dump, "record").iter().map(|r| r["offset"].as_i64().unwrap()).filter(|&o| o < base).collect();
        let mut bytes = std::fs::read(&active).unwrap();
        edit(&mut bytes, pos as usize);
        std::fs::write(&active, &bytes).unwrap();
        let damaged = contents(&c.logs);
        let (code, plan) = run_json(&["recover", &c.s("")]);
        assert_eq!(code, 1, "{what}");
        let warn =
            of_type(&plan, "warning").iter().map(|w| w["message"].as_str().unwrap().to_string()).collect::<Vec<_>>();
        assert!(
            warn.iter().any(|w| w.contains(&format!("wrong {field}")) && w.contains("Kafka's recovery")),
            "{what}: {warn:?}"
        );
        let loss = of_type(&plan, "loss");
        assert!(
            loss.iter().any(|l| l["from_offset"] == base && l["records"].as_u64().unwrap() > 0),
            "{what}: {loss:?}"
        );
        let (code, lines) = run_json(&["recover", "--execute", &c.s("")]);
        assert_eq!(code, 0, "{what}: {lines:?}");
        assert_eq!(std::fs::metadata(&active).unwrap().len(), pos, "{what}: not cut at the batch");
        let part = of_type(&lines, "partition")
            .into_iter()
            .find(|p| p["partition"].as_str().unwrap().ends_with("kill-plain-0"))
            .unwrap();
        assert_eq!(part["log_end_offset"], base, "{what}");
        assert_eq!(part["cut_field"], field, "{what}");
        // every record before it is there; the dir verifies clean
        let (_, after) = run_json(&["dump", "--deep", active.to_str().unwrap()]);
        let got: Vec<i64> = of_type(&after, "record").iter().map(|r| r["offset"].as_i64().unwrap()).collect();
        assert_eq!(got, kept, "{what}");
        let (code, v) = run_json(&["verify", &c.s("")]);
        assert_eq!(code, 0, "{what}: {v:?}");
        let (code, _) = run_json(&["undo", "--execute", &c.s("")]);
        assert_eq!(code, 0);
        assert_eq!(contents(&c.logs), damaged, "{what}: undo did not restore every byte");
    }
}

/// A batch too large for the limit (whole in the file) is not damage:
/// recovery stops with an error naming the limit it needs, and that advice
/// works.
#[test]
fn the_batch_size_limit_is_never_a_reason_to_plan_nothing() {
    let c = Copy::of("sigkill");
    let before = contents(&c.logs);
    let (code, _, err) = run(&["recover", "--all", "--max-batch-size", "100", &c.s("kill-plain-0")]);
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("--max-batch-size "), "{err}");
    assert_eq!(contents(&c.logs), before);
    let need: String =
        err.split("rerun with --max-batch-size ").nth(1).unwrap().chars().take_while(char::is_ascii_digit).collect();
    let (code, _, err) = run(&["recover", "--all", "--max-batch-size", &need, &c.s("kill-plain-0")]);
    assert!(code == 0 || code == 1, "{err}");
}

/// Locks another process holds on `.lock`, of each kind, refuse a repair, and
/// the refusal names the holder.
#[test]
fn every_kind_of_lock_is_refused() {
    let c = Copy::of("sigkill");
    let lock = c.path(".lock");
    for (kind, code) in [
        ("posix", "fcntl.lockf(f, fcntl.LOCK_EX | fcntl.LOCK_NB)"),
        ("flock", "fcntl.flock(f, fcntl.LOCK_EX | fcntl.LOCK_NB)"),
        ("ofd", "fcntl.fcntl(f, fcntl.F_OFD_SETLK, struct.pack('hhqqi', fcntl.F_WRLCK, 0, 0, 0, 0))"),
    ] {
        let script = format!(
            "import fcntl, struct, sys, time\nf = open(sys.argv[1], 'r+')\n{code}\nprint('locked', flush=True)\ntime.sleep(60)\n"
        );
        let mut holder = std::process::Command::new("python3")
            .args(["-c", &script, lock.to_str().unwrap()])
            .stdout(std::process::Stdio::piped())
            .spawn()
            .expect("python3 runs the lock holder");
        let mut line = String::new();
        std::io::BufRead::read_line(&mut std::io::BufReader::new(holder.stdout.as_mut().unwrap()), &mut line).unwrap();
        assert_eq!(line.trim(), "locked", "{kind}");
        let before = contents(&c.logs);
        let (code, _, err) = run(&["reindex", "--execute", &c.s("")]);
        let (vcode, v) = run_json(&["verify", &c.s("")]);
        // a dry run says beforehand that --execute will be refused
        let (_, plan, _) = run(&["recover", &c.s("")]);
        holder.kill().unwrap();
        holder.wait().unwrap();
        assert_eq!(code, 2, "{kind}: {err}");
        assert!(err.contains(&format!("pid {}", holder.id())), "{kind}: the refusal does not name the holder: {err}");
        assert!(
            plan.contains("--execute will be refused") && plan.contains(&format!("pid {}", holder.id())),
            "{kind}: {plan}"
        );
        assert_eq!(contents(&c.logs), before, "{kind}");
        assert!(!c.quarantine().exists(), "{kind}");
        // verify only reads, and says who holds it
        assert!(vcode <= 1);
        assert!(
            of_type(&v, "finding").iter().any(|f| f["kind"] == "log_dir_locked"
                && f["message"].as_str().unwrap().contains(&format!("pid {}", holder.id()))),
            "{kind}: {v:?}"
        );
    }
}

/// While a repair is under way (held at a crash point), every other writing
/// command and undo are refused naming its pid; the first finishes, and undo
/// then restores every byte.
#[test]
fn repairs_are_exclusive() {
    let c = Copy::of("sigkill");
    let original = contents(&c.logs);
    let pause = tempfile::tempdir().unwrap();
    let mut first = std::process::Command::new(env!("CARGO_BIN_EXE_logtool"))
        .env("LOGTOOL_TEST_PAUSE_AT", "2")
        .env("LOGTOOL_TEST_PAUSE_DIR", pause.path())
        .args(["recover", "--execute", &c.s("")])
        .stdout(std::process::Stdio::null())
        .spawn()
        .unwrap();
    let paused = pause.path().join("paused");
    for _ in 0..500 {
        if paused.exists() {
            break;
        }
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
    assert!(paused.exists(), "the first repair did not reach its pause");
    let logs = c.s("");
    let part = c.s("kill-plain-0");
    for args in [
        vec!["recover", "--execute", &logs],
        vec!["truncate-to-hw", "--execute", &logs],
        vec!["truncate", "--to", "10", "--execute", &part],
        vec!["reindex", "--execute", &logs],
        vec!["retain", "--max-bytes", "1", "--execute", &logs],
        vec!["undo", "--execute", &logs],
    ] {
        let (code, _, err) = run(&args);
        assert_eq!(code, 2, "{args:?}: {err}");
        assert!(err.contains(&format!("pid {}", first.id())), "{args:?}: {err}");
    }
    std::fs::write(pause.path().join("resume"), b"").unwrap();
    assert!(first.wait().unwrap().success());
    let (code, _) = run_json(&["undo", "--execute", &logs]);
    assert_eq!(code, 0);
    assert_eq!(contents(&c.logs), original, "undo did not restore every byte");
}

/// The files that differ between two [`contents`] (for assertion messages).
pub(crate) fn differing(a: &BTreeMap<String, Vec<u8>>, b: &BTreeMap<String, Vec<u8>>) -> Vec<String> {
    a.keys()
        .chain(b.keys())
        .filter(|k| a.get(*k) != b.get(*k))
        .cloned()
        .collect::<std::collections::BTreeSet<_>>()
        .into_iter()
        .collect()
}

/// [`contents`] without an empty `.lock`: a writing command killed before
/// it could remove the `.lock` it created leaves it (Kafka creates the same
/// empty file at start).
pub(crate) fn sans_lock(dir: &Path) -> BTreeMap<String, Vec<u8>> {
    let mut c = contents(dir);
    if c.get(".lock").is_some_and(Vec::is_empty) {
        c.remove(".lock");
    }
    c
}

/// Undo every repair of `c`, newest first, back to the original (with
/// nothing left to undo, undo says so and exits 0).
pub(crate) fn undo_all(c: &Copy, path: &str, at: usize) {
    loop {
        let (code, lines) = run_json(&["undo", "--execute", &c.s(path)]);
        assert_eq!(code, 0, "point {at}: {lines:?}");
        if of_type(&lines, "repair").is_empty() {
            assert!(!of_type(&lines, "note").is_empty());
            break;
        }
    }
}

/// SIGKILL at every crash point of a writing command (`args`, then the path
/// `path` inside a copy of `scenario`): afterwards the log dir is untouched,
/// or a second run finishes the job to the same bytes as an uninterrupted
/// one; and `undo` brings back the original bytes either way.
fn every_crash_point(scenario: &str, args: &[&str], path: &str) {
    every_crash_point_of(&|| Copy::of(scenario), args, path, &|_, _| {});
}

/// [`every_crash_point`] on copies made by `copy`; `killed` also checks each
/// copy as the kill left it (with the crash point).
fn every_crash_point_of(copy: &dyn Fn() -> Copy, args: &[&str], path: &str, killed: &dyn Fn(&Copy, usize)) {
    let reference = copy();
    let original = sans_lock(&reference.logs);
    let with_path = |c: &Copy| {
        let mut v: Vec<String> = args.iter().map(ToString::to_string).collect();
        v.push(c.s(path));
        v
    };
    let run_it = |c: &Copy| {
        let v = with_path(c);
        run_json(&v.iter().map(String::as_str).collect::<Vec<_>>())
    };
    let (code, lines) = run_it(&reference);
    assert_eq!(code, 0, "{args:?}: {lines:?}");
    let repaired = sans_lock(&reference.logs);
    assert_ne!(repaired, original, "{args:?} changed nothing");
    let mut untouched = 0;
    let mut finished = 0;
    for at in 1.. {
        let c = copy();
        let out =
            crate::util::logtool().env("LOGTOOL_TEST_KILL_AT", at.to_string()).args(with_path(&c)).output().unwrap();
        if out.status.success() {
            // past the last crash point: every point was tried
            assert!(at > 3, "{args:?}: only {at} crash points");
            break;
        }
        assert!(out.status.code().is_none(), "{args:?}: killed by a signal at point {at}: {:?}", out.status);
        killed(&c, at);
        let now = sans_lock(&c.logs);
        if now == original {
            untouched += 1;
        } else {
            // a second run rolls the interrupted repair forward
            let (code, lines) = run_it(&c);
            assert_eq!(code, 0, "{args:?}, point {at}: {lines:?}");
            let now = sans_lock(&c.logs);
            assert!(now == repaired, "{args:?}, point {at}: not fully repaired: {:?}", differing(&now, &repaired));
            finished += 1;
        }
        undo_all(&c, path, at);
        let now = sans_lock(&c.logs);
        assert!(
            now == original,
            "{args:?}, point {at}: undo did not restore the original: {:?}",
            differing(&now, &original)
        );
    }
    assert!(untouched > 0 && finished > 0, "{args:?}: untouched {untouched}, finished {finished}");
}

#[test]
fn every_crash_point_is_recoverable_and_undoable() {
    every_crash_point("sigkill", &["recover", "--execute"], "");
}

#[test]
fn every_crash_point_of_recover_roll() {
    every_crash_point("sigkill", &["recover", "--execute", "--roll"], "");
}

#[test]
fn every_crash_point_of_truncate_to_hw() {
    every_crash_point("sigkill", &["truncate-to-hw", "--execute"], "");
}

#[test]
fn every_crash_point_of_truncate() {
    every_crash_point("clean", &["truncate", "--to", "60", "--execute"], "txn-1");
}

#[test]
fn every_crash_point_of_reindex() {
    every_crash_point("sigkill", &["reindex", "--execute"], "");
}

#[test]
fn every_crash_point_of_retain() {
    every_crash_point("sigkill", &["retain", "--max-bytes", "1", "--assume-policy", "delete", "--execute"], "");
}

/// SIGKILL at every crash point of `undo --execute` of a repair (a recovery,
/// which replaces and creates files; a cut to the high watermark, which
/// truncates and removes them): the next undo finishes the job (or does it
/// whole), to the original bytes.
#[test]
fn every_crash_point_of_undo() {
    for repair in [&["recover", "--execute"][..], &["truncate-to-hw", "--execute"][..]] {
        let reference = Copy::of("sigkill");
        let original = sans_lock(&reference.logs);
        for at in 1.. {
            let c = Copy::of("sigkill");
            let mut args = repair.to_vec();
            let logs = c.s("");
            args.push(&logs);
            let (code, _) = run_json(&args);
            assert_eq!(code, 0);
            let out = crate::util::logtool()
                .env("LOGTOOL_TEST_KILL_AT", at.to_string())
                .args(["undo", "--execute", &logs])
                .output()
                .unwrap();
            if out.status.success() {
                assert!(at > 3, "undo of {repair:?}: only {at} crash points");
                assert!(sans_lock(&c.logs) == original);
                break;
            }
            assert!(out.status.code().is_none(), "undo: killed by a signal at point {at}: {:?}", out.status);
            undo_all(&c, "", at);
            let now = sans_lock(&c.logs);
            assert!(now == original, "undo of {repair:?}, point {at}: {:?} not back", differing(&now, &original));
        }
    }
}

#[test]
fn truncate_reports_what_is_lost_and_cuts_at_a_batch_boundary() {
    let c = Copy::of("clean");
    let dir = c.s("txn-1");
    let (code, lines) = run_json(&["truncate", "--to", "60", &dir]);
    assert_eq!(code, 1);
    let loss = of_type(&lines, "loss")[0];
    assert_eq!(loss["from_offset"], 54, "the batch holding offset 60 starts at 54: {lines:?}");
    assert!(of_type(&lines, "warning").iter().any(|w| w["message"].as_str().unwrap().contains("inside the batch")));
    assert_eq!(loss["latest_epoch_lost"], true);
    let (code, _) = run_json(&["truncate", "--to", "60", "--execute", &dir]);
    assert_eq!(code, 0);
    let (_, d) = run_json(&["dump", "--deep", &dir]);
    let last = of_type(&d, "record").iter().map(|r| r["offset"].as_i64().unwrap()).max().unwrap();
    assert!(last < 54, "{last}");
    let epochs = std::fs::read_to_string(c.path("txn-1/leader-epoch-checkpoint")).unwrap();
    assert!(epochs.lines().skip(2).all(|l| l.split(' ').nth(1).unwrap().parse::<i64>().unwrap() < 54), "{epochs}");
    let (code, v) = run_json(&["verify", "--fail-on", "warning", &dir]);
    assert_eq!(code, 0, "{v:?}");
}

#[test]
fn truncate_to_hw_cuts_to_the_checkpointed_high_watermark() {
    let c = Copy::of("sigkill");
    let hw: BTreeMap<String, i64> = std::fs::read_to_string(c.path("replication-offset-checkpoint"))
        .unwrap()
        .lines()
        .skip(2)
        .map(|l| {
            let f: Vec<&str> = l.split(' ').collect();
            (format!("{}-{}", f[0], f[1]), f[2].parse().unwrap())
        })
        .collect();
    let (code, lines) = run_json(&["truncate-to-hw", "--execute", &c.s("")]);
    assert_eq!(code, 0);
    for (part, hw) in &hw {
        let (_, d) = run_json(&["dump", &c.s(part)]);
        let end = of_type(&d, "batch").iter().map(|b| b["last_offset"].as_i64().unwrap() + 1).max().unwrap_or(0);
        assert!(end <= *hw, "{part}: log ends at {end}, HW {hw}");
    }
    assert!(!of_type(&lines, "loss").is_empty());
}

#[test]
fn retain_deletes_whole_old_segments_and_moves_the_log_start() {
    let c = Copy::of("clean");
    let dir = c.s("plain-0");
    let segs = |c: &Copy| {
        let mut v: Vec<String> = std::fs::read_dir(c.path("plain-0"))
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .filter(|n| n.ends_with(".log"))
            .collect();
        v.sort();
        v
    };
    let before = segs(&c);
    assert!(before.len() >= 3);
    let second: i64 = before[1].trim_end_matches(".log").parse().unwrap();
    let (code, lines) = run_json(&["retain", "--log-start", &(second + 2).to_string(), "--execute", &dir]);
    assert_eq!(code, 0, "{lines:?}");
    assert_eq!(segs(&c), before[1..].to_vec());
    let text = std::fs::read_to_string(c.path("log-start-offset-checkpoint")).unwrap();
    assert!(text.contains(&format!("plain 0 {}", second + 2)), "{text}");
    // the loss counts the deleted segment and the two records of the kept one
    // that no consumer can read any more
    let loss = of_type(&lines, "loss");
    assert_eq!(loss.len(), 1);
    assert_eq!(loss[0]["to_offset"], second + 2);
    assert_eq!(loss[0]["records"], second + 2, "{:?}", loss[0]);
    // size-based: keep at most one segment's worth
    let (code, _) = run_json(&["retain", "--max-bytes", "1", "--execute", &dir]);
    assert_eq!(code, 0);
    assert_eq!(segs(&c).len(), 1, "only the active segment stays");
    let (code, v) = run_json(&["verify", &dir]);
    assert_eq!(code, 0, "{v:?}");
}

/// Tiered storage (fixtures/kafka-3.9.1/tiered): retention by size or time
/// is local retention, Kafka's: only segments remote storage holds go
/// (`tiered-txn`'s first local segment, held back from upload by an open
/// transaction, stays however small the limit), only the local log start
/// moves: `log-start-offset-checkpoint` and the leader epochs stay. On the
/// dir as Kafka left it (its local.retention.bytes applied), its own limit
/// deletes nothing more. A new log start into remote storage names the
/// remote segments the broker deletes; logtool deletes no remote data.
#[test]
fn retain_on_tiered_topics_is_local_retention_of_uploaded_segments() {
    let c = Copy::of("tiered");
    let names = |d: &str| -> Vec<String> {
        let mut v: Vec<String> = std::fs::read_dir(c.path(d))
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .filter(|n| n.ends_with(".log"))
            .collect();
        v.sort();
        v
    };
    let (tiered, txn) = (names("tiered-0"), names("tiered-txn-0"));
    // tiered's local.retention.bytes (20000): Kafka already applied it
    let (code, lines) = run_json(&["retain", "--max-bytes", "20000", &c.s("tiered-0")]);
    assert_eq!(code, 0, "{lines:?}");
    assert!(of_type(&lines, "change").is_empty(), "{lines:?}");
    let checkpoint = std::fs::read(c.path("log-start-offset-checkpoint")).unwrap();
    let epochs = std::fs::read(c.path("tiered-0/leader-epoch-checkpoint")).unwrap();
    let (code, lines) = run_json(&["retain", "--max-bytes", "1", "--execute", &c.s("")]);
    assert_eq!(code, 0, "{lines:?}");
    // tiered: every uploaded segment (latest-tiered 578) goes, the active one stays
    assert_eq!(names("tiered-0"), tiered[tiered.len() - 1..].to_vec());
    // tiered-txn: nothing above its highest uploaded offset (192) goes
    assert_eq!(names("tiered-txn-0"), txn);
    assert_eq!(std::fs::read(c.path("log-start-offset-checkpoint")).unwrap(), checkpoint);
    assert_eq!(std::fs::read(c.path("tiered-0/leader-epoch-checkpoint")).unwrap(), epochs);
    assert!(of_type(&lines, "loss").is_empty(), "nothing is lost: {lines:?}");
    let (code, answers) = run_json(&["offset-for-time", &c.s("tiered-0"), "earliest", "earliest-local"]);
    assert_eq!(code, 0);
    assert_eq!((answers[0]["offset"].as_i64(), answers[1]["offset"].as_i64()), (Some(100), Some(579)));
    // a new log start below the local data moves the log start alone
    let (code, lines) = run_json(&["retain", "--log-start", "150", "--execute", &c.s("tiered-0")]);
    assert_eq!(code, 0, "{lines:?}");
    let text = std::fs::read_to_string(c.path("log-start-offset-checkpoint")).unwrap();
    assert!(text.contains("tiered 0 150"), "{text}");
    assert_eq!(names("tiered-0"), tiered[tiered.len() - 1..].to_vec());
    // a new log start into remote storage: the remote segments below it are
    // named (a dry run with changes planned: exit 1)
    let (code, lines) = run_json(&["retain", "--log-start", "300", &c.s("tiered-0")]);
    assert_eq!(code, 1);
    assert!(
        of_type(&lines, "change")
            .iter()
            .any(|ch| ch["file"].as_str().unwrap().ends_with("log-start-offset-checkpoint")),
        "{lines:?}"
    );
    let notes: Vec<&str> = of_type(&lines, "note").iter().filter_map(|n| n["message"].as_str()).collect();
    assert!(
        notes
            .iter()
            .any(|m| m.contains("remote segment(s), offsets 99-291") && m.contains("never deletes remote data")),
        "{notes:?}"
    );
}

#[test]
fn reindex_uses_the_topic_config_and_rebuilds_deleted_indexes() {
    let c = Copy::of("clean");
    let (code, lines) = run_json(&["reindex", &c.s("")]);
    assert!(code == 0 || code == 1);
    let plain = of_type(&lines, "partition")
        .into_iter()
        .find(|p| p["partition"].as_str().unwrap().ends_with("plain-0"))
        .unwrap();
    assert_eq!(plain["index_interval_bytes"], 1024);
    assert!(plain["index_interval_source"].as_str().unwrap().contains("topic config"));
    // delete every index of txn-1 and rebuild: the segments written in one go get
    // back exactly the bytes the broker wrote
    let seg0 = c.path("txn-1/00000000000000000000");
    let originals: Vec<Vec<u8>> =
        ["index", "timeindex", "txnindex"].iter().map(|x| std::fs::read(seg0.with_extension(x)).unwrap()).collect();
    for x in ["index", "timeindex", "txnindex"] {
        std::fs::remove_file(seg0.with_extension(x)).unwrap();
    }
    let (code, _) = run_json(&["reindex", "--execute", &c.s("txn-1")]);
    assert_eq!(code, 0);
    for (x, orig) in ["index", "timeindex", "txnindex"].iter().zip(originals) {
        assert_eq!(std::fs::read(seg0.with_extension(x)).unwrap(), orig, ".{x}");
    }
}

/// The `clean` fixture with `compacted-0`'s cleaner checkpoint forgotten:
/// the whole partition is dirty again (what Kafka's cleaner left, cleaned
/// once more).
pub(crate) fn dirty_compacted() -> Copy {
    let c = Copy::of("clean");
    let path = c.path("cleaner-offset-checkpoint");
    let text = std::fs::read_to_string(&path).unwrap();
    let kept: Vec<String> =
        text.lines().skip(2).filter(|l| !l.starts_with("compacted ")).map(|l| format!("{l}\n")).collect();
    std::fs::write(&path, format!("0\n{}\n{}", kept.len(), kept.concat())).unwrap();
    c
}

/// What `compacted-0` of a copy holds, read from its files (the fixtures
/// are made again by a real Kafka in the interop suite: nothing here may
/// assume their offsets or times): the active segment's base offset, a time
/// before every delete horizon its batches carry (just after its newest
/// record: a horizon is a cleaning's clock plus delete.retention.ms), and
/// a time past them all.
pub(crate) struct CompactedShape {
    active_base: i64,
    pub(crate) before_horizons: String,
    past_horizons: String,
}

pub(crate) fn compacted_shape(c: &Copy) -> CompactedShape {
    let dir = c.path("compacted-0");
    let (_, lines) = run_json(&["dump", dir.to_str().unwrap()]);
    let batches = of_type(&lines, "batch");
    let newest = batches.iter().filter_map(|b| b["max_timestamp"].as_i64()).max().unwrap();
    let horizon = batches.iter().filter_map(|b| b["delete_horizon_ms"].as_i64()).max().unwrap_or(newest);
    let last_log = files_under(&dir).into_iter().filter(|f| f.extension().is_some_and(|e| e == "log")).max().unwrap();
    let active_base = last_log.file_stem().unwrap().to_str().unwrap().parse().unwrap();
    CompactedShape {
        active_base,
        before_horizons: (newest + 1).to_string(),
        past_horizons: (horizon.max(newest) + 86_400_000).to_string(),
    }
}

/// (offset, key, value) of every record `dump --deep` reads in the live
/// segments of a partition.
fn records_of(dir: &Path) -> Vec<(i64, Value, Value)> {
    let (_, lines) = run_json(&["dump", "--deep", dir.to_str().unwrap()]);
    let mut out: Vec<(i64, Value, Value)> = of_type(&lines, "record")
        .iter()
        .filter(|r| !r["file"].as_str().unwrap_or_default().ends_with(".deleted"))
        .map(|r| (r["offset"].as_i64().unwrap(), r["key"].clone(), r["value"].clone()))
        .collect();
    out.sort_by_key(|r| r.0);
    out
}

#[test]
fn compact_cleans_what_kafka_left_to_the_same_records_and_undo_restores_it() {
    let c = dirty_compacted();
    let shape = compacted_shape(&c);
    let now = shape.before_horizons.as_str();
    let original = sans_lock(&c.logs);
    let before = records_of(&c.path("compacted-0"));
    // the plan changes nothing and says what goes
    let (code, lines) = run_json(&["compact", "--now", now, &c.s("")]);
    assert_eq!(code, 1, "{lines:?}");
    assert_eq!(sans_lock(&c.logs), original);
    let plan = of_type(&lines, "compaction");
    assert_eq!(plan.len(), 1, "only the compacted topic is listed: {plan:?}");
    let ends = (plan[0]["first_dirty"].as_i64(), plan[0]["end_offset"].as_i64());
    assert_eq!(ends, (Some(0), Some(shape.active_base)));
    // executed: the same records (Kafka already removed the superseded ones), one segment
    let (code, lines) = run_json(&["compact", "--execute", "--now", now, &c.s("compacted-0")]);
    assert_eq!(code, 0, "{lines:?}");
    assert_eq!(records_of(&c.path("compacted-0")), before);
    assert!(!c.path("compacted-0/00000000000000000128.log").exists(), "segments merged");
    let checkpoint = std::fs::read_to_string(c.path("cleaner-offset-checkpoint")).unwrap();
    assert!(checkpoint.lines().any(|l| l == format!("compacted 0 {}", shape.active_base)), "{checkpoint}");
    // verify finds nothing at warning or above
    let (code, lines) = run_json(&["verify", &c.s("")]);
    assert_eq!(code, 0, "{lines:?}");
    // a second pass finds nothing dirty
    let (code, lines) = run_json(&["compact", &c.s("compacted-0")]);
    assert_eq!(code, 0, "{lines:?}");
    assert!(of_type(&lines, "change").is_empty());
    // undo: the original bytes
    undo_all(&c, "", 0);
    assert_eq!(sans_lock(&c.logs), original);
}

#[test]
fn compact_removes_tombstones_past_their_horizon() {
    let c = dirty_compacted();
    let shape = compacted_shape(&c);
    let before = records_of(&c.path("compacted-0"));
    let (code, lines) = run_json(&["compact", "--execute", "--now", &shape.past_horizons, &c.s("compacted-0")]);
    assert_eq!(code, 0, "{lines:?}");
    let after = records_of(&c.path("compacted-0"));
    let tombstones = |r: &[(i64, Value, Value)]| r.iter().filter(|x| x.2.is_null()).count();
    assert!(tombstones(&before) > 0);
    // the active segment's tombstones stay: it is never cleaned
    let active = |r: &[(i64, Value, Value)]| r.iter().filter(|x| x.0 >= shape.active_base && x.2.is_null()).count();
    assert_eq!(tombstones(&after), active(&before));
    assert_eq!(before.len() - after.len(), tombstones(&before) - active(&before));
}

#[test]
fn every_crash_point_of_compact() {
    // what each kill leaves is a dir verify finds no error in but logtool's
    // own journal saying the compaction stopped part way (a half-done swap
    // is a warning: Kafka's loader completes it; tests/interop/compact.sh
    // starts Kafka on such dirs)
    let verify_has_no_error = |c: &Copy, at: usize| {
        let (code, lines) = run_json(&["verify", &c.s("")]);
        let errors: Vec<&Value> = of_type(&lines, "finding")
            .into_iter()
            .filter(|f| f["severity"] == "error" && f["kind"] != "unfinished_repair")
            .collect();
        assert!(code <= 1 && errors.is_empty(), "crash point {at}: {errors:?}");
    };
    let now = compacted_shape(&dirty_compacted()).before_horizons;
    every_crash_point_of(
        &dirty_compacted,
        &["compact", "--execute", "--now", &now],
        "compacted-0",
        &verify_has_no_error,
    );
}

/// Retention as Kafka applies it (`UnifiedLog.deleteOldSegments`):
/// `--before` and `--max-bytes` leave a topic whose `cleanup.policy` lacks
/// `delete` alone (the compacted topic, `__consumer_offsets`,
/// `__transaction_state`) and say so; `--log-start` (DeleteRecords) moves
/// every topic's. Before, `retain --before` planned deleting `compacted-0`.
#[test]
fn retain_by_time_or_size_skips_topics_kafka_only_compacts() {
    let c = Copy::of("clean");
    let logs = c.s("");
    for rule in [&["--before", "2030-01-01T00:00:00Z"][..], &["--max-bytes", "1"][..]] {
        let mut args = vec!["retain"];
        args.extend_from_slice(rule);
        args.push(&logs);
        let (code, lines) = run_json(&args);
        assert_eq!(code, 1, "{rule:?}: {lines:?}");
        let changed: Vec<&str> = of_type(&lines, "change").iter().map(|ch| ch["file"].as_str().unwrap()).collect();
        for topic in ["compacted-0", "__consumer_offsets-0", "__transaction_state-0"] {
            assert!(!changed.iter().any(|f| f.contains(topic)), "{rule:?}: {topic} changed: {changed:?}");
            let skipped = of_type(&lines, "note").iter().any(|n| {
                n["file"].as_str().unwrap().ends_with(topic)
                    && n["message"].as_str().unwrap().contains("cleanup.policy is compact")
            });
            assert!(skipped, "{rule:?}: {topic} not said to be skipped");
        }
        assert!(changed.iter().any(|f| f.contains("plain-0")), "{rule:?}: {changed:?}");
    }
    // a new log start is Kafka's DeleteRecords: it applies to compacted topics too
    let (_, lines) = run_json(&["retain", "--log-start", "100", &c.s("compacted-0")]);
    assert!(!of_type(&lines, "loss").is_empty(), "{lines:?}");
}

/// A long plan (a compacted partition cleaned: three steps per file) is
/// counted by directory and kind in the table, each change listed with
/// --details and always in JSON.
#[test]
fn a_long_plan_is_summarised_unless_details_are_asked() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("logs");
    let (code, _, err) = run(&["fixture", "compacted", "-q", "--out", dir.to_str().unwrap()]);
    assert_eq!(code, 0, "{err}");
    let d = dir.to_str().unwrap();
    let (_, json) = run_json(&["compact", d]);
    let changes = of_type(&json, "change").len();
    assert!(changes > 100, "{changes}");
    assert!(of_type(&json, "change_group").is_empty());
    let (code, table, _) = run(&["compact", d]);
    assert_eq!(code, 1);
    assert!(
        table.contains(&format!("{changes} changes, counted by directory and kind: --details lists each")),
        "{table}"
    );
    assert!(table.lines().count() < 30, "{table}");
    assert!(
        table.lines().any(|l| l.starts_with("remove ")) && table.contains("cleaned into the new segment"),
        "{table}"
    );
    let (_, details, _) = run(&["compact", "--details", d]);
    assert!(details.lines().filter(|l| l.contains(".swap")).count() >= changes / 3, "{details}");
    assert!(!details.contains("counted by directory"));
}
