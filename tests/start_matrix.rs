//! `recover` against what Kafka's start did on the partial states operators
//! and tools leave, offline: `tests/interop/start_matrix.sh` started Kafka
//! 3.9.1 and 4.3.1 on damaged copies of the committed dirs and kept, in
//! `fixtures/kafka-<version>/start-matrix/`, each round's damaged partitions
//! (`input/`), what the start left of them and of the log dir's checkpoints
//! (`kafka/`) and what a start of the undamaged dir changed (`control/`:
//! restart noise), each as a difference from the committed dir (a
//! `NAME.list` of the files, `NAME/` those whose bytes differ).
//!
//! The comparison is the interop's (`start_matrix.py compare`): a file the
//! control start changed is noise (logtool may leave it or do as Kafka
//! did); every other file of a damaged partition is what Kafka left (an
//! empty `.txnindex` counts as absent; a `.deleted` file may be left to
//! Kafka, which deletes it on any start); undamaged partitions are untouched;
//! a checkpoint entry moves only where the damaged start moved it.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

use crate::util::{copy_tree, of_type, root, run, run_json};

const CHECKPOINTS: [&str; 4] = [
    "recovery-point-offset-checkpoint",
    "replication-offset-checkpoint",
    "log-start-offset-checkpoint",
    "cleaner-offset-checkpoint",
];

/// Rows whose damage Kafka's start keeps, and so does recover
/// (`start_matrix.py`'s `KEPT`): verify still reports it after the repair.
const KEPT: [&str; 10] = [
    "index_lost_crc_middle",
    "txnindex_version_unknown",
    "index_empty_rolled",
    "index_garbage_rolled",
    "timeindex_garbage_rolled",
    "snapshot_lost_middle",
    "snapshot_garbage_middle",
    "leader_epoch_checkpoint_lost",
    "index_empty_active",
    "timeindex_garbage_active",
];

/// The row of a log dir whose `.kafka_cleanshutdown` is lost (every data
/// partition is one): Kafka's start is then an unclean one.
const MARKER_LOST: &str = "clean_shutdown_marker_lost";

/// The same with its `recovery-point-offset-checkpoint` lost too: Kafka
/// recovers every segment from 0 (it creates the file empty; recover
/// leaves it to Kafka).
const MARKER_AND_RECOVERY_POINT_LOST: &str = "recovery_point_and_marker_lost";

/// Whether `row` damages the log dir as a whole (every data partition is
/// one of its rows) rather than one partition.
fn dir_wide(row: &str) -> bool {
    row == MARKER_LOST || row == MARKER_AND_RECOVERY_POINT_LOST
}

/// The committed dirs the matrix damaged, with their saved results.
fn versions() -> Vec<(PathBuf, PathBuf)> {
    let f = root().join("fixtures");
    vec![
        (f.join("kafka-3.9.1/clean/logs"), f.join("kafka-3.9.1/start-matrix")),
        (f.join("kafka-4.3.1/kafka4/logs"), f.join("kafka-4.3.1/start-matrix")),
    ]
}

/// The files of partition `part` as a saved difference from `base` makes
/// them (`None` where nothing was saved: the base's).
fn materialize(base: &Path, saved: &Path, part: &str) -> BTreeMap<String, Vec<u8>> {
    let list = saved.join(format!("{part}.list"));
    let Ok(names) = std::fs::read_to_string(&list) else { return files_of(&base.join(part)) };
    names
        .lines()
        .map(|n| {
            let mine = saved.join(part).join(n);
            let from = if mine.exists() { mine } else { base.join(part).join(n) };
            (n.to_string(), std::fs::read(&from).unwrap_or_else(|e| panic!("{}: {e}", from.display())))
        })
        .collect()
}

fn files_of(dir: &Path) -> BTreeMap<String, Vec<u8>> {
    let Ok(rd) = std::fs::read_dir(dir) else { return BTreeMap::new() };
    rd.map(|e| e.unwrap().path())
        .filter(|p| p.is_file())
        .map(|p| (p.file_name().unwrap().to_string_lossy().into_owned(), std::fs::read(&p).unwrap()))
        .collect()
}

/// A file's bytes as the comparison sees them (an empty `.txnindex` is absent).
fn seen<'a>(files: &'a BTreeMap<String, Vec<u8>>, name: &str) -> Option<&'a [u8]> {
    files.get(name).map(Vec::as_slice).filter(|b| !(name.ends_with(".txnindex") && b.is_empty()))
}

/// Whether `mine`'s leader-epoch entries are the first of `theirs`'.
fn epochs_prefix(mine: Option<&[u8]>, theirs: Option<&[u8]>) -> bool {
    let entries = |b: &[u8]| String::from_utf8_lossy(b).lines().skip(2).map(str::to_string).collect::<Vec<_>>();
    match (mine, theirs) {
        (Some(a), Some(b)) => {
            let (a, b) = (entries(a), entries(b));
            b.len() >= a.len() && b[..a.len()] == a[..]
        }
        _ => false,
    }
}

fn checkpoint(bytes: Option<Vec<u8>>) -> BTreeMap<String, String> {
    let text = String::from_utf8(bytes.unwrap_or_default()).unwrap();
    text.lines()
        .skip(2)
        .filter_map(|l| {
            let f: Vec<&str> = l.split_whitespace().collect();
            (f.len() == 3).then(|| (format!("{}-{}", f[0], f[1]), f[2].to_string()))
        })
        .collect()
}

fn data_partitions(logs: &Path) -> Vec<String> {
    let mut out: Vec<String> = std::fs::read_dir(logs)
        .unwrap()
        .map(|e| e.unwrap())
        .filter(|e| e.path().is_dir())
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .filter(|n| !n.starts_with("__") && !n.contains('.'))
        .collect();
    out.sort();
    out
}

/// Every row Kafka's start was tried on, for both versions: the same damage
/// recovered by logtool gives what Kafka gave, verify names each damaged
/// partition before and finds no warning after, undo restores the damage.
#[test]
fn recover_does_what_kafkas_start_did_on_every_row() {
    let mut rows_seen = BTreeSet::new();
    for (base, saved) in versions() {
        let control: BTreeMap<String, BTreeMap<String, Vec<u8>>> = data_partitions(&base)
            .into_iter()
            .map(|p| {
                let files = materialize(&base, &saved.join("control"), &p);
                (p, files)
            })
            .collect();
        let mut rounds: Vec<PathBuf> = std::fs::read_dir(&saved)
            .unwrap_or_else(|e| panic!("{}: {e}", saved.display()))
            .map(|e| e.unwrap().path())
            .filter(|p| p.file_name().unwrap().to_string_lossy().starts_with("round-"))
            .collect();
        rounds.sort();
        assert!(!rounds.is_empty(), "{}: no saved round", saved.display());
        for round in rounds {
            let rows: Vec<(String, String)> = std::fs::read_to_string(round.join("rows"))
                .unwrap()
                .lines()
                .map(|l| {
                    let f: Vec<&str> = l.split_whitespace().collect();
                    (f[0].to_string(), f[1].to_string())
                })
                .collect();
            let what =
                format!("{} ({})", round.display(), rows.iter().map(|r| r.0.as_str()).collect::<Vec<_>>().join(", "));
            let (_tmp, logs) = copy_tree(&base);
            for (_, part) in &rows {
                std::fs::remove_dir_all(logs.join(part)).unwrap();
                std::fs::create_dir_all(logs.join(part)).unwrap();
                for (name, bytes) in materialize(&base, &round.join("input"), part) {
                    std::fs::write(logs.join(part).join(name), bytes).unwrap();
                }
                rows_seen.insert(rows.iter().find(|r| &r.1 == part).unwrap().0.clone());
            }
            // the log dir's own damage: its clean-shutdown marker lost (and
            // its recovery points)
            let marker_lost = rows.iter().any(|r| dir_wide(&r.0));
            if marker_lost {
                std::fs::remove_file(logs.join(".kafka_cleanshutdown")).unwrap();
            }
            let recovery_points_lost = rows.iter().any(|r| r.0 == MARKER_AND_RECOVERY_POINT_LOST);
            if recovery_points_lost {
                std::fs::remove_file(logs.join(CHECKPOINTS[0])).unwrap();
            }
            let damaged = crate::repair::contents(&logs);
            // verify names every damaged partition
            let (_, findings) = run_json(&["verify", logs.to_str().unwrap()]);
            if marker_lost {
                assert!(of_type(&findings, "finding").iter().any(|f| f["kind"] == "unclean_shutdown"), "{what}");
            }
            for (row, part) in rows.iter().filter(|r| !KEPT.contains(&r.0.as_str()) && !dir_wide(&r.0)) {
                let named = of_type(&findings, "finding")
                    .iter()
                    .any(|f| f["file"].as_str().is_some_and(|p| Path::new(p).starts_with(logs.join(part))));
                assert!(named, "{what}: verify says nothing of {part} ({row})");
            }
            // (Kafka cuts a rolled segment without asking)
            let (code, out, err) = run(&["recover", "--execute", "--allow-data-loss", logs.to_str().unwrap()]);
            assert_eq!(code, 0, "{what}: {out}{err}");
            let bad = differences(&base, &saved, &round, &rows, &control, &logs);
            assert!(bad.is_empty(), "{what}:\n{}", bad.join("\n"));
            // no warning or error after the repair, but where Kafka keeps the damage too
            let kept: Vec<PathBuf> =
                rows.iter().filter(|r| KEPT.contains(&r.0.as_str())).map(|r| logs.join(&r.1)).collect();
            let (_, after) = run_json(&["verify", logs.to_str().unwrap()]);
            let left: Vec<_> = of_type(&after, "finding")
                .into_iter()
                .filter(|v| v["severity"] != "info")
                .filter(|v| !kept.iter().any(|k| Path::new(v["file"].as_str().unwrap_or("")).starts_with(k)))
                .collect();
            assert!(left.is_empty(), "{what}: verify after recover: {left:?}");
            let (code, out, err) = run(&["undo", "--execute", logs.to_str().unwrap()]);
            assert_eq!(code, 0, "{what}: {out}{err}");
            assert_eq!(crate::repair::contents(&logs), damaged, "{what}: undo");
        }
    }
    // the rows of the table in GUIDE's recover section that damage segment
    // files and snapshots, each tried on at least one version
    for row in [
        "index_lost_middle",
        "index_lost_compacted",
        "index_lost_crc_middle",
        "index_and_timeindex_lost_first",
        "index_lost_txn",
        "index_lost_active",
        "timeindex_lost_rolled",
        "snapshot_lost_latest",
        "snapshot_empty_latest",
        "snapshot_garbage_latest",
        "txnindex_zeroed",
        "cleaned_leftover",
        "deleted_leftover",
        "txnindex_version_unknown",
        "swap_interrupted",
        "index_empty_rolled",
        "index_garbage_rolled",
        "timeindex_garbage_rolled",
        "snapshot_lost_middle",
        "snapshot_garbage_middle",
        "index_empty_active",
        "index_garbage_active",
        "timeindex_lost_active",
        "timeindex_garbage_active",
        "leader_epoch_checkpoint_lost",
        MARKER_LOST,
        MARKER_AND_RECOVERY_POINT_LOST,
    ] {
        assert!(rows_seen.contains(row), "no saved Kafka start for the row {row}");
    }
}

/// What `recover` left in `logs` that differs from what Kafka's start did
/// in round `round` (the comparison the module docs describe).
fn differences(
    base: &Path,
    saved: &Path,
    round: &Path,
    rows: &[(String, String)],
    control: &BTreeMap<String, BTreeMap<String, Vec<u8>>>,
    logs: &Path,
) -> Vec<String> {
    let mut bad = Vec::new();
    for part in data_partitions(base) {
        let b = files_of(&base.join(&part));
        let l = files_of(&logs.join(&part));
        let Some((row, _)) = rows.iter().find(|r| r.1 == part) else {
            if l != b {
                bad.push(format!("{part}: undamaged, changed by recover"));
            }
            continue;
        };
        let c = &control[&part];
        let k = materialize(base, &round.join("kafka"), &part);
        let names: BTreeSet<&String> = b.keys().chain(c.keys()).chain(k.keys()).chain(l.keys()).collect();
        for name in names {
            let (hb, hc, hk, hl) = (seen(&b, name), seen(c, name), seen(&k, name), seen(&l, name));
            // a scheduled deletion Kafka deletes on any start: recover leaves it to Kafka
            let left_to_kafka = name.ends_with(".deleted") && hk.is_none();
            // the epochs of Kafka's load (truncateFromEnd at the log end)
            // before the new leader epoch its start then adds
            let epochs_of_load = name == "leader-epoch-checkpoint" && hc != hb && epochs_prefix(hl, hk);
            // a lost epoch cache: Kafka's load starts with none, recover
            // leaves the file to it
            let epochs_lost =
                name == "leader-epoch-checkpoint" && row == "leader_epoch_checkpoint_lost" && hl.is_none();
            let ok = left_to_kafka
                || epochs_of_load
                || epochs_lost
                || if hc != hb { hl == hb || hl == hk } else { hl == hk };
            if !ok {
                bad.push(format!(
                    "{part}/{name} ({row}): Kafka's start left {:?} bytes, recover {:?} (before: {:?})",
                    hk.map(<[u8]>::len),
                    hl.map(<[u8]>::len),
                    hb.map(<[u8]>::len)
                ));
            }
        }
    }
    let recovery_points_lost = rows.iter().any(|r| r.0 == MARKER_AND_RECOVERY_POINT_LOST);
    for cp in CHECKPOINTS {
        if recovery_points_lost && cp == CHECKPOINTS[0] {
            // Kafka creates the lost file at start: recover leaves it absent
            if logs.join(cp).exists() {
                bad.push(format!("{cp}: lost, and recover wrote it"));
            }
            continue;
        }
        let read = |dir: &Path| std::fs::read(dir.join(cp)).ok();
        let vb = checkpoint(read(base));
        let vc = checkpoint(read(&saved.join("control")).or_else(|| read(base)));
        let vk = checkpoint(read(&round.join("kafka")).or_else(|| read(base)));
        let vl = checkpoint(read(logs));
        let keys: BTreeSet<&String> = vb.keys().chain(vk.keys()).chain(vl.keys()).collect();
        for key in keys.into_iter().filter(|k| !k.starts_with("__")) {
            let want = if vk.get(key) != vc.get(key) { vk.get(key) } else { vb.get(key) };
            if vl.get(key) != want {
                bad.push(format!("{cp} {key}: recover {:?}, expected {want:?}", vl.get(key)));
            }
        }
    }
    bad
}

/// The example of issue 49: after a clean shutdown an operator deletes one
/// `.index` of a rolled segment. Kafka rebuilds that index and changes
/// nothing else; so does recover: no loss warning, no snapshot, epoch or
/// checkpoint touched, the index identical to the one Kafka wrote.
#[test]
fn a_lost_index_is_rebuilt_alone() {
    let clean = root().join("fixtures/kafka-3.9.1/clean/logs");
    let (_tmp, logs) = copy_tree(&clean);
    let index = "plain-0/00000000000000000068.index";
    std::fs::remove_file(logs.join(index)).unwrap();
    let (code, lines) = run_json(&["recover", logs.to_str().unwrap()]);
    assert_eq!(code, 1);
    let changes: Vec<String> = of_type(&lines, "change")
        .iter()
        .map(|c| c["file"].as_str().unwrap().to_string())
        .filter(|f| !f.contains("__cluster_metadata-0"))
        .collect();
    assert_eq!(changes, vec![logs.join(index).display().to_string()]);
    let notes = of_type(&lines, "note");
    assert!(notes.iter().all(|n| n["level"] != "warning" && n["kind"] != "loss"), "{notes:?}");
    let (code, out, err) = run(&["recover", "--execute", logs.to_str().unwrap()]);
    assert_eq!(code, 0, "{out}{err}");
    assert_eq!(std::fs::read(logs.join(index)).unwrap(), std::fs::read(clean.join(index)).unwrap());
    for part in data_partitions(&clean) {
        assert_eq!(files_of(&logs.join(&part)), files_of(&clean.join(&part)), "{part}");
    }
    let (code, out, _) = run(&["verify", "--fail-on", "warning", logs.to_str().unwrap()]);
    assert_eq!(code, 0, "{out}");
}

/// Row txnindex_version_unknown differs by release: a `.txnindex` entry
/// of version 1 is loaded as it is by 3.9 to 4.3 (they read the version's
/// first byte; Kafka 3.9.1 and 4.3.1 in the start matrix), while 4.4 does
/// not start on it (4.4.0 halted in the interop suite's start matrix). On
/// the committed 3.9.1 dir, judged as each: verify refuses the start for
/// 4.4 only, and recover keeps the file for 3.9 and, for 4.4, rebuilds it
/// byte for byte as Kafka wrote it.
#[test]
fn a_txnindex_entry_of_version_1_stops_only_kafka_4_4() {
    let clean = root().join("fixtures/kafka-3.9.1/clean/logs");
    let (_tmp, logs) = copy_tree(&clean);
    let rel = "txn-1/00000000000000000000.txnindex";
    let file = logs.join(rel);
    let mut bytes = std::fs::read(&file).unwrap();
    assert!(bytes.len() >= 34, "{rel} has an entry");
    bytes[1] = 1;
    std::fs::write(&file, &bytes).unwrap();
    let refused_on_file = |version: Option<&str>| {
        let mut args = vec!["verify"];
        args.extend(version.map(|v| ["--kafka-version", v]).into_iter().flatten());
        args.push(logs.to_str().unwrap());
        let (_, lines) = run_json(&args);
        of_type(&lines, "finding").iter().any(|v| v["kind"] == "start_refused" && v["file"].as_str() == file.to_str())
    };
    assert!(!refused_on_file(None), "3.9 loads it");
    assert!(!refused_on_file(Some("4.3")), "4.3 loads it");
    assert!(refused_on_file(Some("4.4")), "4.4 does not start on it");
    let (code, out, err) = run(&["recover", "--execute", logs.to_str().unwrap()]);
    assert_eq!(code, 0, "{out}{err}");
    assert_eq!(std::fs::read(&file).unwrap(), bytes, "3.9 keeps it, and so does recover");
    let (code, out, err) = run(&["recover", "--execute", "--kafka-version", "4.4", logs.to_str().unwrap()]);
    assert_eq!(code, 0, "{out}{err}");
    assert!(out.contains("which Kafka 4.4 does not start on"), "{out}");
    assert_eq!(std::fs::read(&file).unwrap(), std::fs::read(clean.join(rel)).unwrap(), "rebuilt as Kafka wrote it");
    assert!(!refused_on_file(Some("4.4")));
}

/// A 4.x dir of a static quorum (no voter set names a directory) whose
/// `meta.properties` lost its `directory.id`: Kafka writes a new one and
/// moves the partitions the node registered under the old one to it;
/// verify warns, and recover writes the registered id back, the file then
/// as Kafka wrote it.
#[test]
fn a_lost_directory_id_of_a_static_quorum_is_written_back() {
    for base in test_support::fixtures_4x() {
        let clean = base.join("kafka4/logs");
        let (_tmp, logs) = copy_tree(&clean);
        let file = logs.join("meta.properties");
        damage(&logs, &file, "meta_properties_directory_id_missing");
        let (code, lines) = run_json(&["verify", "--fail-on", "warning", logs.to_str().unwrap()]);
        assert_eq!(code, 1, "{}", base.display());
        let said = of_type(&lines, "finding")
            .iter()
            .any(|v| v["kind"] == "directory_id_unregistered" && v["file"].as_str() == file.to_str());
        assert!(said, "{}: {lines:?}", base.display());
        assert_eq!(of_type(&lines, "start_plan")[0]["refusals"], 0, "{}: Kafka starts", base.display());
        let (code, out, err) = run(&["recover", "--execute", logs.to_str().unwrap()]);
        assert_eq!(code, 0, "{out}{err}");
        assert_eq!(std::fs::read(&file).unwrap(), std::fs::read(clean.join("meta.properties")).unwrap());
        let (code, out, _) = run(&["verify", "--fail-on", "warning", logs.to_str().unwrap()]);
        assert_eq!(code, 0, "{out}");
    }
}

/// The starts Kafka refused (a file it cannot parse, no meta.properties) or
/// where it set a dir aside (no partition.metadata), as the start matrix
/// kept them (`starts`: row, file, outcome), done again to copies of the
/// committed dirs: verify says so before (a start_refused finding on the
/// file and a start plan that refuses, or stray_partition), and recover
/// leaves a dir verify sees no such thing in (Kafka started on each in the
/// matrix), or, for meta.properties, says what it cannot know.
#[test]
fn verify_and_recover_on_the_starts_kafka_refused() {
    for (base, saved) in versions() {
        let starts = std::fs::read_to_string(saved.join("starts")).unwrap();
        assert!(starts.lines().count() >= 8, "{}: {starts}", saved.display());
        for line in starts.lines() {
            let f: Vec<&str> = line.split_whitespace().collect();
            let (row, rel, outcome) = (f[0], f[1], f[2]);
            let (_tmp, logs) = copy_tree(&base);
            let file = logs.join(rel);
            damage(&logs, &file, row);
            let what = format!("{} {row}", base.display());
            let (_, lines) = run_json(&["verify", logs.to_str().unwrap()]);
            let on_file = |kind: &str, lines: &[serde_json::Value]| {
                of_type(lines, "finding")
                    .iter()
                    .any(|v| v["kind"] == kind && v["file"].as_str().is_some_and(|p| Path::new(p).starts_with(&file)))
            };
            let plan = of_type(&lines, "start_plan")[0].clone();
            match outcome {
                "refused" => {
                    assert!(on_file("start_refused", &lines), "{what}: no start_refused on {rel}");
                    assert!(plan["refusals"].as_u64().unwrap() > 0, "{what}: {plan}");
                }
                "started" => {
                    started_as_kafka(&base, &logs, row, &lines, &what);
                    continue;
                }
                _ => {
                    let dir = file.parent().unwrap();
                    let stray = of_type(&lines, "finding")
                        .iter()
                        .any(|v| v["kind"] == "stray_partition" && v["file"].as_str() == dir.to_str());
                    assert!(stray, "{what}: verify does not say {} is set aside", dir.display());
                }
            }
            let (code, out, err) = run(&["recover", "--execute", logs.to_str().unwrap()]);
            assert_eq!(code, 0, "{what}: {out}{err}");
            if row == "meta_properties_missing" {
                assert!(out.contains("recover cannot know its node.id"), "{what}: {out}");
                continue;
            }
            let (_, after) = run_json(&["verify", logs.to_str().unwrap()]);
            let bad: Vec<_> = of_type(&after, "finding")
                .into_iter()
                .filter(|v| v["severity"] != "info" && v["kind"] != "checkpoint_partition_missing")
                .collect();
            assert!(bad.is_empty(), "{what}: verify after recover: {bad:?}");
            if rel.ends_with("partition.metadata") {
                assert_eq!(std::fs::read(&file).unwrap(), std::fs::read(base.join(rel)).unwrap(), "{what}");
            }
        }
    }
}

/// Damage `file` of the copy `logs` the way of the start row `row`
/// (`start_matrix.py refuse`).
fn damage(logs: &Path, file: &Path, row: &str) {
    let set = |key: &str, value: &str| {
        let text = std::fs::read_to_string(file).unwrap();
        let lines: Vec<String> = text
            .lines()
            .map(|l| if l.starts_with(&format!("{key}=")) { format!("{key}={value}") } else { l.to_string() })
            .collect();
        std::fs::write(file, lines.join("\n") + "\n").unwrap();
    };
    match row {
        "meta_properties_node_id_wrong" => set("node.id", "2"),
        "meta_properties_directory_id_missing" => {
            let text = std::fs::read_to_string(file).unwrap();
            let kept: Vec<&str> = text.lines().filter(|l| !l.starts_with("directory.id=")).collect();
            std::fs::write(file, kept.join("\n") + "\n").unwrap();
        }
        "cluster_id_changed" => set("cluster.id", "AAAAAAAAAAAAAAAAAAAAAA"),
        "checkpoints_lost" => {
            for cp in CHECKPOINTS {
                let _ = std::fs::remove_file(logs.join(cp));
            }
        }
        _ if row.ends_with("_missing") => std::fs::remove_file(file).unwrap(),
        // start_matrix.py's GARBAGE
        _ => std::fs::write(file, b"garbage\x00\x01\n").unwrap(),
    }
}

/// A log dir damaged as a whole that Kafka started on changing no partition
/// (`start_matrix.sh`'s `dir_row`): verify finds no warning or error (the
/// lost checkpoints said as info), recover changes no partition file and
/// leaves the lost checkpoints to Kafka.
fn started_as_kafka(base: &Path, logs: &Path, row: &str, lines: &[serde_json::Value], what: &str) {
    let findings = of_type(lines, "finding");
    let loud: Vec<_> = findings.iter().filter(|v| v["severity"] != "info").collect();
    assert!(loud.is_empty(), "{what}: verify: {loud:?}");
    if row == "checkpoints_lost" {
        for cp in CHECKPOINTS {
            let said = findings
                .iter()
                .any(|v| v["kind"] == "checkpoint_file_missing" && v["file"].as_str() == logs.join(cp).to_str());
            assert!(said, "{what}: verify does not say {cp} is missing");
        }
    }
    let (code, out, err) = run(&["recover", "--execute", logs.to_str().unwrap()]);
    assert_eq!(code, 0, "{what}: {out}{err}");
    for part in data_partitions(base) {
        assert_eq!(files_of(&logs.join(&part)), files_of(&base.join(&part)), "{what}: recover changed {part}");
    }
    if row == "checkpoints_lost" {
        for cp in CHECKPOINTS {
            assert!(!logs.join(cp).exists(), "{what}: recover wrote {cp}");
        }
    }
}

/// What a partition move between log dirs leaves (issue 49): an empty
/// `-delete` dir of the moved-away replica, whose topic-partition still
/// has lines in the log dir's checkpoints (they are the live or future
/// replica's, `LogManager.logsInDir`), and a `-future` replica whose lines
/// are in its own dir's checkpoints. Neither is a problem to verify, and
/// recover leaves the `-delete` dir to Kafka.
#[test]
fn a_delete_dir_and_a_future_replica_are_no_problem() {
    let clean = root().join("fixtures/kafka-3.9.1/clean/logs");
    let (_tmp, logs) = copy_tree(&clean);
    let deleting = logs.join("plain-0.0123456789abcdef0123456789abcdef-delete");
    std::fs::create_dir(&deleting).unwrap();
    std::fs::rename(logs.join("plain-1"), logs.join("plain-1.0123456789abcdef0123456789abcdee-future")).unwrap();
    let (code, out, _) = run(&["verify", "--fail-on", "warning", logs.to_str().unwrap()]);
    assert_eq!(code, 0, "{out}");
    let (_, lines) = run_json(&["recover", logs.to_str().unwrap()]);
    assert!(of_type(&lines, "change").iter().all(|c| !c["file"].as_str().unwrap().contains("-delete")));
    assert!(
        of_type(&lines, "note").iter().any(|n| n["file"].as_str() == deleting.to_str()),
        "recover does not say it leaves the -delete dir: {lines:?}"
    );
    // stats counts the future replica in its dir (DescribeLogDirs does), not the -delete dir
    let (_, stats) = run_json(&["stats", logs.to_str().unwrap()]);
    let paths: Vec<&str> = of_type(&stats, "stats").iter().filter_map(|s| s["path"].as_str()).collect();
    assert!(paths.iter().any(|p| p.ends_with("-future")), "{paths:?}");
    assert!(!paths.iter().any(|p| p.ends_with("-delete")), "{paths:?}");
}

/// One broker's two log dirs holding the same partition dir (a move between
/// log dirs cut short by a failure): Kafka 3.9.1 and 4.3.1 refuse to start
/// ("Duplicate log directories", `tests/interop/start_matrix.sh`), and so
/// says verify given both dirs; either dir alone is fine. A future replica
/// beside a live one is a move under way: no refusal.
#[test]
fn a_replica_in_two_log_dirs_stops_the_start() {
    let clean = root().join("fixtures/kafka-3.9.1/clean/logs");
    let (_a_tmp, a) = copy_tree(&clean);
    let b_tmp = tempfile::tempdir().unwrap();
    let b = b_tmp.path().join("b");
    crate::util::copy_dir(&a.join("plain-1"), &b.join("plain-1"));
    std::fs::copy(a.join("meta.properties"), b.join("meta.properties")).unwrap();
    let (code, lines) = run_json(&["verify", a.to_str().unwrap(), b.to_str().unwrap()]);
    assert_eq!(code, 1);
    let refused: Vec<_> = of_type(&lines, "finding").into_iter().filter(|f| f["kind"] == "start_refused").collect();
    assert_eq!(refused.len(), 2, "{refused:?}");
    assert!(refused.iter().all(|f| f["message"].as_str().unwrap().contains("Duplicate log directories for plain-1")));
    assert!(of_type(&lines, "start_plan")[0]["refusals"].as_u64().unwrap() >= 1);
    std::fs::rename(b.join("plain-1"), b.join("plain-1.0123456789abcdef0123456789abcdef-future")).unwrap();
    let (_, lines) = run_json(&["verify", a.to_str().unwrap(), b.to_str().unwrap()]);
    assert!(of_type(&lines, "finding").iter().all(|f| f["kind"] != "start_refused"), "{lines:?}");
}
