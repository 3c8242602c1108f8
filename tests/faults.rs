//! Faults that Kafka operators meet, under the commands that write: an I/O
//! error at every step of every repair (injected, `LOGTOOL_TEST_FAIL_AT`, as
//! a full disk or a read-only file system would give it), a repair killed
//! part way through its commit as every other command then sees it, two
//! writers racing for a log dir's `.lock`, repairs run with relative paths
//! from inside the log dir, and a full disk under `logtool broker`
//! (docs/robustness.md lists each with what logtool does).

use std::path::Path;
use std::process::Stdio;

use serde_json::Value;

use crate::repair::{Copy, compacted_shape, contents, differing, dirty_compacted, sans_lock, undo_all};
use crate::util::{logtool, of_type, run, run_json};

/// An I/O error at every crash point of `args` (then the path `path` inside
/// a copy made by `copy`): each run exits 2 saying the log dir is as before
/// (and it is, byte for byte, with nothing left behind: no `.lock`, no
/// quarantine) or that the repair is complete (and it is; `undo` then gives
/// back the original).
fn every_fault_point(copy: &dyn Fn() -> Copy, args: &[&str], path: &str) {
    let reference = copy();
    let original = contents(&reference.logs);
    let with_path = |c: &Copy| {
        let mut v: Vec<String> = args.iter().map(ToString::to_string).collect();
        v.push(c.s(path));
        v
    };
    let out = logtool().args(with_path(&reference)).output().unwrap();
    assert!(out.status.success(), "{args:?}: {}", String::from_utf8_lossy(&out.stderr));
    let repaired = contents(&reference.logs);
    assert_ne!(repaired, original, "{args:?} changed nothing");
    let (mut before, mut complete) = (0, 0);
    for at in 1.. {
        let c = copy();
        let out = logtool().env("LOGTOOL_TEST_FAIL_AT", at.to_string()).args(with_path(&c)).output().unwrap();
        if out.status.success() {
            assert!(at > 3, "{args:?}: only {at} fault points");
            break;
        }
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{args:?}, point {at}: {err}");
        assert!(err.contains("injected fault"), "{args:?}, point {at}: {err}");
        let now = contents(&c.logs);
        if err.contains("nothing was changed") {
            assert!(now == original, "{args:?}, point {at}: not as before: {:?}", differing(&now, &original));
            assert!(!c.quarantine().exists(), "{args:?}, point {at}: the quarantine was left behind");
            before += 1;
        } else if err.contains("is complete") {
            assert!(now == repaired, "{args:?}, point {at}: not repaired: {:?}", differing(&now, &repaired));
            undo_all(&c, path, at);
            let now = contents(&c.logs);
            assert!(now == original, "{args:?}, point {at}: undo did not restore it: {:?}", differing(&now, &original));
            complete += 1;
        } else {
            panic!("{args:?}, point {at}: the error does not say what the log dir is now: {err}");
        }
    }
    assert!(before > 3 && complete > 0, "{args:?}: as before {before}, complete {complete}");
}

#[test]
fn an_io_error_at_every_step_of_recover_leaves_it_as_before_or_repaired() {
    every_fault_point(&|| Copy::of("sigkill"), &["recover", "--execute", "--roll"], "");
}

#[test]
fn an_io_error_at_every_step_of_truncate_to_hw_and_truncate() {
    every_fault_point(&|| Copy::of("sigkill"), &["truncate-to-hw", "--execute"], "");
    every_fault_point(&|| Copy::of("clean"), &["truncate", "--to", "60", "--execute"], "txn-1");
}

#[test]
fn an_io_error_at_every_step_of_reindex_and_retain() {
    every_fault_point(&|| Copy::of("sigkill"), &["reindex", "--execute"], "");
    every_fault_point(
        &|| Copy::of("sigkill"),
        &["retain", "--max-bytes", "1", "--assume-policy", "delete", "--execute"],
        "",
    );
}

#[test]
fn an_io_error_at_every_step_of_compact() {
    let now = compacted_shape(&dirty_compacted()).before_horizons;
    every_fault_point(&dirty_compacted, &["compact", "--execute", "--now", &now], "compacted-0");
}

/// An I/O error at every point of `undo --execute`: it says it stopped part
/// way and names the fix; running undo again finishes it, to the original.
#[test]
fn an_io_error_at_every_step_of_undo_is_finished_by_the_next_undo() {
    let original = contents(&Copy::of("sigkill").logs);
    for at in 1.. {
        let c = Copy::of("sigkill");
        let logs = c.s("");
        assert_eq!(run_json(&["recover", "--execute", &logs]).0, 0);
        let out = logtool().env("LOGTOOL_TEST_FAIL_AT", at.to_string()).args(["undo", "--execute", &logs]).output();
        let out = out.unwrap();
        if out.status.success() {
            assert!(at > 3);
            assert!(contents(&c.logs) == original);
            break;
        }
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(err.contains("its undo stopped part way") && err.contains("undo"), "point {at}: {err}");
        let (code, lines) = run_json(&["verify", &logs]);
        assert_eq!(code, 1);
        assert!(of_type(&lines, "finding").iter().any(|f| f["kind"] == "unfinished_repair"), "point {at}");
        undo_all(&c, "", at);
        let now = contents(&c.logs);
        assert!(now == original, "point {at}: {:?}", differing(&now, &original));
    }
}

/// The first crash point of `recover --execute` on `sigkill` at which a kill
/// leaves the log dir changed (a commit under way), and the copy it left.
fn killed_mid_commit() -> Copy {
    let original = sans_lock(&Copy::of("sigkill").logs);
    for at in 1..200 {
        let c = Copy::of("sigkill");
        let mut cmd = logtool();
        let status = cmd.env("LOGTOOL_TEST_KILL_AT", at.to_string()).args(["recover", "--execute", &c.s("")]);
        let status = status.output().unwrap().status;
        assert!(status.code().is_none(), "not killed at {at}");
        if sans_lock(&c.logs) != original {
            return c;
        }
    }
    panic!("no crash point changed the log dir");
}

fn unfinished(lines: &[Value]) -> Vec<&Value> {
    of_type(lines, "finding").into_iter().filter(|f| f["kind"] == "unfinished_repair").collect()
}

/// A repair killed part way through its commit is seen by every command:
/// `verify` (given the log dir, a partition dir or a segment) reports an
/// error naming undo and a re-run; other repairs and the broker refuse,
/// naming the same; a re-run of the same repair finishes it, and undo
/// brings back the original.
#[test]
fn a_repair_killed_mid_commit_is_seen_by_every_command() {
    let c = killed_mid_commit();
    let logs = c.s("");
    let part = c.s("kill-plain-0");
    let seg = c.s("kill-plain-0/00000000000000000000.log");
    for target in [&logs, &part, &seg] {
        let (code, lines) = run_json(&["verify", target]);
        let found = unfinished(&lines);
        assert_eq!(code, 1, "{target}");
        assert_eq!(found.len(), 1, "{target}: {lines:?}");
        assert_eq!(found[0]["severity"], "error");
        let message = found[0]["message"].as_str().unwrap();
        assert!(message.contains("logtool undo") && message.contains("re-run `logtool recover"), "{message}");
    }
    for args in [
        vec!["retain", "--max-bytes", "1", "--execute", &logs],
        vec!["reindex", "--execute", &part],
        vec!["truncate-to-hw", "--execute", &logs],
    ] {
        let before = contents(&c.logs);
        let (code, _, err) = run(&args);
        assert_eq!(code, 2, "{args:?}: {err}");
        assert!(err.contains("stopped part way") && err.contains("logtool undo"), "{args:?}: {err}");
        assert!(contents(&c.logs) == before, "{args:?} changed the dir");
    }
    let (code, _, err) = run(&["broker", "--log-dir", &logs, "--listen", "127.0.0.1:0"]);
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("stopped part way") && err.contains("logtool undo"), "{err}");
    // the same repair again finishes it
    let (code, lines) = run_json(&["recover", "--execute", &logs]);
    assert_eq!(code, 0, "{lines:?}");
    assert!(of_type(&lines, "note").iter().any(|n| n["message"].as_str().unwrap().contains("interrupted repair")));
    let (_, lines) = run_json(&["verify", &logs]);
    assert!(unfinished(&lines).is_empty(), "{lines:?}");
    undo_all(&c, "", 0);
    assert!(contents(&c.logs) == contents(&Copy::of("sigkill").logs));
}

fn wait_for(path: &Path) {
    for _ in 0..3000 {
        if path.exists() {
            return;
        }
        std::thread::sleep(std::time::Duration::from_millis(10));
    }
    panic!("{} never appeared", path.display());
}

/// The lock race: a writer that opened `.lock` just before its holder
/// unlinked it (the holder created it) and locked it just after, while a
/// third writer holds the new `.lock`, must not go on: it opens again and
/// is refused, naming the third writer's pid. (Before, it went on: two
/// writers at once on one log dir.)
#[test]
fn a_lock_won_on_an_unlinked_lock_file_is_not_taken() {
    let c = Copy::of("sigkill");
    // (Kafka's SIGKILL left one: here the first writer creates it)
    std::fs::remove_file(c.path(".lock")).unwrap();
    let logs = c.s("");
    let pauses = [tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap()];
    let paused = |i: usize, args: &[&str]| {
        std::process::Command::new(env!("CARGO_BIN_EXE_logtool"))
            .env("LOGTOOL_TEST_PAUSE_AT", "1")
            .env("LOGTOOL_TEST_PAUSE_DIR", pauses[i].path())
            .args(args)
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .unwrap()
    };
    // 1. a repair holds the log dir (it created .lock), paused
    assert!(!c.path(".lock").exists());
    let mut first = paused(0, &["reindex", "--execute", &logs]);
    wait_for(&pauses[0].path().join("paused"));
    // 2. a second one opens .lock, then waits 3 s before locking it
    let racer = std::process::Command::new(env!("CARGO_BIN_EXE_logtool"))
        .env("LOGTOOL_TEST_LOCK_GAP_MS", "3000")
        .args(["--format", "json", "retain", "--max-bytes", "1", "--execute", &logs])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    std::thread::sleep(std::time::Duration::from_millis(500));
    // 3. the first finishes (unlinking its .lock); a third takes a new one
    std::fs::write(pauses[0].path().join("resume"), b"").unwrap();
    assert!(first.wait().unwrap().success());
    assert!(!c.path(".lock").exists(), "the .lock the first created is gone");
    let mut third = paused(1, &["truncate-to-hw", "--execute", &logs]);
    wait_for(&pauses[1].path().join("paused"));
    // 4. the racer wins the lock on the unlinked file: it must open again and be refused
    let out = racer.wait_with_output().unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "the racer went on beside the third writer: {err}");
    assert!(err.contains(&format!("pid {}", third.id())), "{err}");
    std::fs::write(pauses[1].path().join("resume"), b"").unwrap();
    assert!(third.wait().unwrap().success());
    let (_, lines) = run_json(&["verify", &logs]);
    assert!(unfinished(&lines).is_empty());
}

/// Every `--execute` command given a relative path from inside the log dir
/// (`.`, `kill-plain-0`) or from inside a partition (`.`) does what it does
/// with the absolute path, to the same bytes, its quarantine beside the log
/// dir.
#[test]
fn relative_paths_repair_as_absolute_ones_do() {
    let cases: [(&[&str], &str, &str); 7] = [
        (&["recover", "--execute"], "", "."),
        (&["retain", "--log-start", "500", "--execute"], "", "kill-plain-0"),
        (&["truncate-to-hw", "--execute"], "", "."),
        (&["reindex", "--execute"], "", "kill-plain-0"),
        (&["reindex", "--execute"], "kill-plain-0", "00000000000000000000.log"),
        (&["truncate", "--to", "100", "--execute"], "kill-plain-0", "."),
        (&["retain", "--max-bytes", "1", "--assume-policy", "delete", "--execute"], "kill-plain-0", "../kill-txn-0"),
    ];
    for (args, cwd, rel) in cases {
        let absolute = Copy::of("sigkill");
        let target = absolute.path(cwd).join(rel);
        let mut v: Vec<String> = args.iter().map(ToString::to_string).collect();
        v.push(target.to_str().unwrap().into());
        let out = logtool().args(&v).output().unwrap();
        assert!(out.status.success(), "{args:?} {target:?}: {}", String::from_utf8_lossy(&out.stderr));
        let relative = Copy::of("sigkill");
        let mut v: Vec<String> = args.iter().map(ToString::to_string).collect();
        v.push(rel.into());
        let out = logtool().current_dir(relative.path(cwd)).args(&v).output().unwrap();
        assert!(out.status.success(), "{args:?} {rel} in {cwd:?}: {}", String::from_utf8_lossy(&out.stderr));
        let (a, r) = (contents(&absolute.logs), contents(&relative.logs));
        assert!(a == r, "{args:?} {rel} in {cwd:?}: {:?}", differing(&a, &r));
        assert!(relative.quarantine().is_dir(), "{args:?} {rel}: the quarantine is not beside the log dir");
        let stray: Vec<String> = r.keys().filter(|k| k.contains("quarantine")).cloned().collect();
        assert!(stray.is_empty(), "{args:?} {rel}: {stray:?}");
        // and undo from there gives back the original
        let out = logtool().current_dir(relative.path(cwd)).args(["undo", "--execute", rel]).output().unwrap();
        assert!(out.status.success(), "undo {rel}: {}", String::from_utf8_lossy(&out.stderr));
        let (now, original) = (contents(&relative.logs), contents(&Copy::of("sigkill").logs));
        assert!(now == original, "undo {rel} in {cwd:?}: {:?}", differing(&now, &original));
    }
}

/// A batch of producer 0 from sequence `seq`: 16 records of 4 KiB, values
/// naming the sequence (so what is read back says which batch it was).
fn big_batch(seq: i32) -> Vec<u8> {
    let mut b = logfmt::builder::BatchBuilder::new(0);
    b.producer_id = 0;
    b.producer_epoch = 0;
    b.base_sequence = seq * 16;
    for i in 0..16 {
        let mut v = format!("seq-{seq}-record-{i}-").into_bytes();
        v.resize(4096, b'x');
        b.push(&logfmt::builder::NewRecord {
            timestamp: 1_700_000_000_000 + i64::from(i),
            key: Some(b"k"),
            value: Some(&v),
            headers: &[],
        });
    }
    b.build()
}

/// The records a partition holds from offset 0, read through the broker
/// (every fetch from where the last ended).
fn records_served(s: &mut std::net::TcpStream) -> Vec<(i64, i32)> {
    let mut all = Vec::new();
    let mut offset = 0;
    loop {
        let (code, hw, records) = crate::broker::fetch(s, "t", 0, offset);
        assert_eq!(code, 0, "fetch at {offset}");
        let batches = crate::broker::batches_of(records);
        let Some(&(last, _)) = batches.last() else { break };
        all.extend(batches);
        // 16 records a batch
        offset = last + 16;
        if offset >= hw {
            break;
        }
    }
    all
}

/// A full disk under `logtool broker` (a small tmpfs mounted for the test;
/// skipped, saying so, where mounting is not allowed): produces that cannot
/// be written get KAFKA_STORAGE_ERROR and nothing of them stays; once space
/// is back the producer's retries are appended after the last good batch,
/// and every acknowledged batch of both phases is read back from the
/// running broker and after a restart, and `verify` finds no error. (Before,
/// the partial batch stayed and everything acknowledged after it was lost
/// to the next recovery.)
#[test]
fn a_full_disk_under_the_broker_loses_no_acknowledged_record() {
    let dir = tempfile::tempdir().unwrap();
    let mnt = dir.path();
    let Some(_mounted) = tmpfs(mnt, "6m") else { return };
    // room that is given back once the disk is full
    let filler = mnt.join("filler");
    std::fs::write(&filler, vec![0u8; 1 << 20]).unwrap();
    let tmp = tempfile::tempdir_in(mnt).unwrap();
    let mut b = crate::broker::Broker::start(&tmp, &[]);
    let mut s = b.connect();
    crate::broker::create_topic(&mut s, "t");
    let (mut acked, mut seq, mut refused) = (Vec::new(), 0, 0);
    // fill it: each batch is retried (same sequence) until it is written
    while refused < 5 {
        let (code, base) = crate::broker::produce(&mut s, big_batch(seq));
        match code {
            0 => {
                acked.push((base, seq));
                seq += 1;
            }
            56 => refused += 1, // KAFKA_STORAGE_ERROR
            other => panic!("produce of sequence {seq}: error {other}"),
        }
    }
    let before = acked.len();
    assert!(before > 10, "only {before} batches fit");
    std::fs::remove_file(&filler).unwrap();
    for _ in 0..8 {
        let (code, base) = crate::broker::produce(&mut s, big_batch(seq));
        assert_eq!(code, 0, "space is back: sequence {seq}");
        acked.push((base, seq));
        seq += 1;
    }
    let want: Vec<i64> = acked.iter().map(|(base, _)| *base).collect();
    let served: Vec<i64> = records_served(&mut s).into_iter().map(|(base, _)| base).collect();
    assert_eq!(served, want, "the running broker serves every acknowledged batch, and nothing else");
    assert_eq!(b.stop(), 0);
    let logs = tmp.path().join("logs");
    let (code, out, err) = run(&["verify", logs.to_str().unwrap()]);
    assert!(code <= 1 && !out.lines().any(|l| l.starts_with("error ")), "{out}{err}");
    let mut again = crate::broker::Broker::start(&tmp, &[]);
    let mut s = again.connect();
    let served: Vec<i64> = records_served(&mut s).into_iter().map(|(base, _)| base).collect();
    assert_eq!(served, want, "after a restart");
    assert_eq!(again.stop(), 0);
}

/// A real read-only file system partway: one partition dir bind-mounted
/// read-only (root only; skipped, saying so, elsewhere). Every repair that
/// reaches it exits 2 with the log dir as before, byte for byte: what it
/// had changed in the other partitions is reverted. (Before, the other
/// partitions stayed changed and the journal said `committing`.)
#[test]
fn a_read_only_partition_partway_leaves_the_dir_as_before() {
    for args in [
        &["recover", "--execute"][..],
        &["reindex", "--execute"][..],
        &["retain", "--max-bytes", "1", "--assume-policy", "delete", "--execute"][..],
        &["truncate-to-hw", "--execute"][..],
    ] {
        let c = Copy::of("sigkill");
        let ro = c.path("kill-txn-0");
        let bound = std::process::Command::new("mount").arg("--bind").arg(&ro).arg(&ro).stderr(Stdio::null()).status();
        if !bound.is_ok_and(|s| s.success()) {
            eprintln!("skipped: cannot bind-mount here (needs root) to make one partition read-only");
            return;
        }
        let _unmount = Unmount(ro.clone());
        let remount = std::process::Command::new("mount").args(["-o", "remount,bind,ro"]).arg(&ro).status();
        assert!(remount.unwrap().success());
        let before = contents(&c.logs);
        let mut v: Vec<&str> = args.to_vec();
        let logs = c.s("");
        v.push(&logs);
        let (code, _, err) = run(&v);
        assert_eq!(code, 2, "{args:?}: {err}");
        assert!(err.contains("nothing was changed") && err.contains("is as before"), "{args:?}: {err}");
        let now = contents(&c.logs);
        assert!(now == before, "{args:?}: {:?}", differing(&now, &before));
        assert!(!c.quarantine().exists(), "{args:?}: the quarantine was left behind");
    }
}

/// A mount undone (lazily) when the test ends, however it ends.
struct Unmount(std::path::PathBuf);

impl Drop for Unmount {
    fn drop(&mut self) {
        let _ = std::process::Command::new("umount").arg("-l").arg(&self.0).status();
    }
}

/// Mount a tmpfs of `size` on `at` for the life of the guard (None, having
/// said "skipped", where mounting is not allowed).
fn tmpfs(at: &Path, size: &str) -> Option<Unmount> {
    let mounted = std::process::Command::new("mount")
        .args(["-t", "tmpfs", "-o", &format!("size={size}"), "tmpfs"])
        .arg(at)
        .stderr(Stdio::null())
        .status()
        .is_ok_and(|s| s.success());
    if !mounted {
        eprintln!("skipped: cannot mount a tmpfs here (needs root, or CAP_SYS_ADMIN) to fill a disk");
        return None;
    }
    Some(Unmount(at.to_path_buf()))
}

/// A real full disk under a repair: the log dir and its quarantine on a
/// tmpfs 1.25 MiB larger than the log dir, filled to leave 0 to 1 MiB free (every page of it). Each `recover --execute
/// --roll` either completes or exits 2 with the log dir as before; either
/// way nothing is left on the disk that was not there (no `.tmp`, no
/// quarantine of a repair that did not happen, no `.lock` it made).
#[test]
fn a_full_disk_under_a_repair_leaves_it_as_before_or_repaired() {
    let fixture = crate::util::fixtures().join("sigkill/logs");
    let reference = Copy::of("sigkill");
    assert!(logtool().args(["recover", "--execute", "--roll", &reference.s("")]).output().unwrap().status.success());
    let repaired = contents(&reference.logs);
    let original = contents(&fixture);
    let (mut failed, mut done) = (0, 0);
    // room for the fixture and 1.25 MiB more (fresh data from a SIGKILL
    // differs in size from run to run: a fixed size did not always hold it)
    let fixture_bytes: u64 = crate::util::files_under(&fixture).iter().map(|f| f.metadata().unwrap().len()).sum();
    let size = format!("{}k", fixture_bytes / 1024 + 1280);
    // every 4 KiB (a page of the tmpfs) up to 1 MiB: where the disk fills
    // depends on the sizes of the fixture's files, so no few sizes are sure
    // to fall between the last staged byte and the journal's last word
    for free_kib in (0u64..=1024).step_by(4) {
        let dir = tempfile::tempdir().unwrap();
        let Some(_mounted) = tmpfs(dir.path(), &size) else { return };
        let logs = dir.path().join("logs");
        crate::util::copy_dir(&fixture, &logs);
        // fill what is left but `free_kib`
        let stat = rustix::fs::statvfs(dir.path()).unwrap();
        let free = stat.f_bavail * stat.f_bsize;
        let fill = free.saturating_sub(free_kib << 10);
        std::fs::write(dir.path().join("filler"), vec![1u8; fill as usize]).unwrap();
        let listing = |p: &Path| -> Vec<String> {
            crate::util::files_under(p).iter().map(|f| f.strip_prefix(p).unwrap().display().to_string()).collect()
        };
        let before = listing(dir.path());
        let out = logtool().args(["recover", "--execute", "--roll", logs.to_str().unwrap()]).output().unwrap();
        let err = String::from_utf8_lossy(&out.stderr);
        let now = contents(&logs);
        if out.status.success() {
            assert!(now == repaired, "{free_kib} KiB free: {:?}", differing(&now, &repaired));
            done += 1;
        } else {
            assert_eq!(out.status.code(), Some(2), "{free_kib} KiB free: {err}");
            assert!(err.contains("nothing was changed"), "{free_kib} KiB free: {err}");
            assert!(now == original, "{free_kib} KiB free: {:?}", differing(&now, &original));
            assert_eq!(listing(dir.path()), before, "{free_kib} KiB free: left behind");
            failed += 1;
        }
    }
    assert!(failed > 0 && done > 0, "failed {failed}, done {done}");
}
