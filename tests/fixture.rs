//! `logtool fixture`: log dirs written from specs. What a real Kafka does
//! with them is the interop suite's part (tests/interop/fixture.sh); here,
//! offline: logtool's own readers find them healthy (or damaged exactly as
//! the spec says), the same seed gives the same bytes, and bad input is
//! refused with exit code 2.

use std::path::Path;

use crate::util::{files_under, of_type, run, run_json};

fn write(spec: &str, out: &Path, extra: &[&str]) -> Vec<serde_json::Value> {
    let mut args = vec!["fixture", spec, "--out", out.to_str().unwrap()];
    args.extend_from_slice(extra);
    let (code, lines) = run_json(&args);
    assert_eq!(code, 0, "fixture {spec}: {lines:?}");
    lines
}

fn hash_tree(dir: &Path) -> Vec<(String, Vec<u8>)> {
    files_under(dir)
        .into_iter()
        .map(|p| (p.strip_prefix(dir).unwrap().display().to_string(), std::fs::read(&p).unwrap()))
        .collect()
}

#[test]
fn every_shipped_spec_is_listed() {
    let (code, lines) = run_json(&["fixture", "--list"]);
    assert_eq!(code, 0);
    let names: Vec<&str> = of_type(&lines, "spec").iter().map(|l| l["name"].as_str().unwrap()).collect();
    assert_eq!(names, ["basic", "transactions", "crash", "failover", "compacted", "large", "kafka4"]);
    for spec in names {
        assert!(Path::new(env!("CARGO_MANIFEST_DIR")).join(format!("fixtures/specs/{spec}.toml")).is_file());
    }
}

#[test]
fn clean_specs_verify_clean() {
    let tmp = tempfile::tempdir().unwrap();
    for spec in ["basic", "transactions", "compacted"] {
        let out = tmp.path().join(spec);
        let lines = write(spec, &out, &[]);
        let written = of_type(&lines, "written");
        assert!(!written.is_empty());
        for w in &written {
            assert_eq!(w["high_watermark"], w["log_end_offset"], "{spec}: {w}");
        }
        // (a cleaned topic has what Kafka's cleaner leaves: emptied segments, offsets in none)
        let (code, lines) = run_json(&["verify", "--fail-on", "warning", out.to_str().unwrap()]);
        assert_eq!(code, 0, "{spec}: {lines:?}");
        for f in of_type(&lines, "finding") {
            let cleaned = f["file"].as_str().unwrap_or_default().contains("compacted-cleaned-0");
            let kind = f["kind"].as_str().unwrap_or_default();
            assert!(cleaned && ["empty_segment", "segment_gap"].contains(&kind), "{spec}: {f}");
        }
        // the topic configs are in the metadata log, and logtool reads them back
        let (code, dump) = run_json(&["dump", out.join("bootstrap.checkpoint").to_str().unwrap()]);
        assert_eq!(code, 0, "{dump:?}");
    }
}

#[test]
fn the_basic_spec_writes_what_it_says() {
    let tmp = tempfile::tempdir().unwrap();
    let out = tmp.path().join("basic");
    let lines = write("basic", &out, &[]);
    let events = of_type(&lines, "written").into_iter().find(|w| w["partition"] == "events-0").unwrap().clone();
    // DeleteRecords to 250, elections to epochs 1 and 3
    assert_eq!(events["log_start_offset"], 250);
    assert_eq!(events["leader_epoch"], 3);
    assert_eq!(events["records"], 1500);
    let epochs = std::fs::read_to_string(out.join("events-0/leader-epoch-checkpoint")).unwrap();
    let entries: Vec<&str> = epochs.lines().skip(2).collect();
    assert_eq!(entries.len(), 3, "{epochs}");
    assert!(entries[0].starts_with("0 250"), "truncated from the start at the log start: {epochs}");
    let starts = std::fs::read_to_string(out.join("log-start-offset-checkpoint")).unwrap();
    assert_eq!(starts, "0\n1\nevents 0 250\n");
    // LogAppendTime batches
    let (_, dump) = run_json(&["dump", out.join("events-0").to_str().unwrap()]);
    assert!(of_type(&dump, "batch").iter().all(|b| b["timestamp_type"] == "log_append_time"));
    // the topic configs reach offset-for-time through the metadata log
    let (code, answers) = run_json(&["offset-for-time", out.to_str().unwrap(), "earliest"]);
    assert_eq!(code, 0);
    let earliest = of_type(&answers, "offset").into_iter().find(|a| a["topic"] == "events").unwrap().clone();
    assert_eq!(earliest["offset"], 250);
}

#[test]
fn transactions_leave_their_txnindex_and_snapshots() {
    let tmp = tempfile::tempdir().unwrap();
    let out = tmp.path().join("tx");
    write("transactions", &out, &[]);
    let files = files_under(&out);
    let has = |suffix: &str| files.iter().any(|f| f.to_str().unwrap().ends_with(suffix));
    assert!(has(".txnindex"), "aborted transactions leave .txnindex entries");
    assert!(has(".snapshot"), "producer snapshots at rolls and at the log end");
    // reindex rebuilds exactly what the writer wrote
    let (code, stdout, _) = run(&["reindex", out.to_str().unwrap()]);
    assert_eq!(code, 0, "{stdout}");
    assert!(stdout.contains("nothing to change"), "{stdout}");
}

#[test]
fn the_same_seed_gives_the_same_bytes() {
    let tmp = tempfile::tempdir().unwrap();
    let (a, b, c) = (tmp.path().join("a"), tmp.path().join("b"), tmp.path().join("c"));
    write("transactions", &a, &[]);
    write("transactions", &b, &[]);
    write("transactions", &c, &["--seed", "7"]);
    assert_eq!(hash_tree(&a), hash_tree(&b));
    assert_ne!(hash_tree(&a), hash_tree(&c));
}

#[test]
fn a_crash_spec_is_damaged_as_it_says_and_recover_repairs_it() {
    let tmp = tempfile::tempdir().unwrap();
    let out = tmp.path().join("crash");
    let lines = write("crash", &out, &[]);
    let summary = of_type(&lines, "summary")[0].clone();
    assert_eq!(summary["damage"].as_array().unwrap().len(), 2, "{summary}");
    assert!(!out.join(".kafka_cleanshutdown").exists());
    let (code, found) = run_json(&["verify", out.to_str().unwrap()]);
    assert_eq!(code, 1);
    let kinds: Vec<&str> = of_type(&found, "finding").iter().map(|f| f["kind"].as_str().unwrap()).collect();
    for k in ["unclean_shutdown", "index_preallocated", "truncated_tail", "crc_mismatch"] {
        assert!(kinds.contains(&k), "{k} in {kinds:?}");
    }
    let errors: Vec<_> = of_type(&found, "finding")
        .into_iter()
        .filter(|f| f["severity"] == "error")
        .map(|f| f["kind"].clone())
        .collect();
    assert_eq!(errors, ["crc_mismatch"], "only the flipped byte is an error");
    // the high watermarks lag the log end
    for w in of_type(&lines, "written") {
        assert!(w["high_watermark"].as_i64() < w["log_end_offset"].as_i64(), "{w}");
    }
    let (code, stdout, stderr) = run(&["recover", "--execute", out.to_str().unwrap()]);
    assert_eq!(code, 0, "{stdout}{stderr}");
    let (code, stdout, _) = run(&["verify", "--fail-on", "warning", out.to_str().unwrap()]);
    assert_eq!(code, 0, "{stdout}");
}

#[test]
fn failover_replicas_diverge_where_the_spec_says() {
    let tmp = tempfile::tempdir().unwrap();
    let out = tmp.path().join("failover");
    let lines = write("failover", &out, &[]);
    let at = of_type(&lines, "summary")[0]["divergence"]["failover-0"].as_i64().unwrap();
    assert!(at >= 500, "the first batch boundary at or after diverge_at = 500: {at}");
    for node in ["node-1", "node-2"] {
        let (code, stdout, _) = run(&["verify", "--fail-on", "info", out.join(node).to_str().unwrap()]);
        assert_eq!(code, 0, "{node}: {stdout}");
    }
    let (code, diff) = run_json(&[
        "diff-replicas",
        out.join("node-1/failover-0").to_str().unwrap(),
        out.join("node-2/failover-0").to_str().unwrap(),
    ]);
    assert_eq!(code, 1);
    let summary = of_type(&diff, "summary")[0];
    assert_eq!(summary["divergence_offset"], at);
    assert!(summary["leader"].as_str().unwrap().contains("node-2"));
    // --replicas 3: node 3 follows node 2
    let three = tmp.path().join("three");
    write("failover", &three, &["--replicas", "3"]);
    assert_eq!(hash_tree(&three.join("node-2/failover-0")).len(), hash_tree(&three.join("node-3/failover-0")).len());
}

#[test]
fn bad_specs_and_outputs_are_refused() {
    let tmp = tempfile::tempdir().unwrap();
    let spec = tmp.path().join("bad.toml");
    for (text, why) in [
        ("[[topic]]\nname = \"t\"\npartitons = 2\n", "unknown field"),
        ("[[topic]]\nname = \"__internal\"\n", "topic name"),
        ("[[topic]]\nname = \"t\"\nworkload = { compression = \"brotli\" }\n", "compression"),
        ("[[topic]]\nname = \"t\"\nconfigs = { \"segment.bytes\" = 3 }\n", "segment.bytes"),
        ("description = \"no topic\"\n", "at least one"),
    ] {
        std::fs::write(&spec, text).unwrap();
        let (code, _, stderr) =
            run(&["fixture", spec.to_str().unwrap(), "--out", tmp.path().join("x").to_str().unwrap()]);
        assert_eq!(code, 2, "{text}");
        assert!(stderr.contains(why), "{why} in {stderr}");
    }
    // a non-empty output dir is never written into
    let full = tmp.path().join("full");
    std::fs::create_dir(&full).unwrap();
    std::fs::write(full.join("keep"), b"mine").unwrap();
    let (code, _, stderr) = run(&["fixture", "basic", "--out", full.to_str().unwrap()]);
    assert_eq!(code, 2);
    assert!(stderr.contains("not empty"), "{stderr}");
    assert_eq!(files_under(&full).len(), 1);
    let (code, _, _) = run(&["fixture", "no-such-spec", "--out", tmp.path().join("y").to_str().unwrap()]);
    assert_eq!(code, 2);
}

/// `logtool fixture` killed at each of its crash points leaves the output
/// as it was (absent or empty) and only its staging dir beside it; the next
/// build removes that and writes the same bytes as an uninterrupted one.
#[test]
fn a_killed_fixture_leaves_nothing_half_written() {
    use std::os::unix::process::ExitStatusExt;
    let tmp = tempfile::tempdir().unwrap();
    let reference = tmp.path().join("reference");
    write("transactions", &reference, &[]);
    let want = hash_tree(&reference);
    let mut killed = 0;
    for n in 1..100 {
        let out = tmp.path().join(format!("out-{n}"));
        let status = crate::util::logtool()
            .env("LOGTOOL_TEST_KILL_AT", n.to_string())
            .args(["fixture", "transactions", "--out", out.to_str().unwrap()])
            .output()
            .unwrap()
            .status;
        if status.signal().is_none() {
            // past the last crash point: a whole build
            assert!(status.success(), "{status:?}");
            assert_eq!(hash_tree(&out), want);
            break;
        }
        killed += 1;
        let whole = out.exists() && hash_tree(&out) == want;
        assert!(!out.exists() || whole, "point {n}: a half-written {}", out.display());
        // the next build finishes the job, from scratch
        std::fs::remove_dir_all(&out).ok();
        write("transactions", &out, &[]);
        assert_eq!(hash_tree(&out), want, "point {n}");
        assert!(!fixture::staging_dir(&out).exists(), "point {n}: staging dir left");
    }
    assert!(killed >= 3, "{killed} crash points");
}

/// `--kafka-version 4.3`: a spec Kafka 4.3 refuses exits 2 naming the config
/// and leaves nothing; the kafka4 spec is written as Kafka 4.3.1 formats a
/// dir (metadata.version 4.3-IV0, which verify then judges by), and verify
/// finds it clean.
#[test]
fn kafka_4_3_dirs_and_what_4_3_refuses() {
    let tmp = tempfile::tempdir().unwrap();
    let refused = tmp.path().join("basic-4.3");
    let (code, _, err) = run(&["fixture", "basic", "--kafka-version", "4.3", "--out", refused.to_str().unwrap()]);
    assert_eq!(code, 2);
    assert!(
        err.contains("configs \"segment.bytes\": Kafka 4.3 refuses it: Invalid value 65536 for configuration segment.bytes: Value must be at least 1048576"),
        "{err}"
    );
    assert!(!refused.exists());
    let out = tmp.path().join("kafka4");
    write("kafka4", &out, &[]);
    let (code, lines) = run_json(&["verify", "--fail-on", "warning", out.to_str().unwrap()]);
    assert_eq!(code, 0, "{lines:?}");
    let plan = of_type(&lines, "start_plan");
    assert_eq!(plan[0]["version_from"], "the dir's metadata.version 4.3-IV0");
    let (_, lines) = run_json(&["dump", "--deep", out.join("bootstrap.checkpoint").to_str().unwrap()]);
    let text = serde_json::to_string(&lines).unwrap();
    for feature in ["\"featureLevel\":30", "transaction.version", "eligible.leader.replicas.version"] {
        assert!(text.contains(feature), "bootstrap.checkpoint lacks {feature}");
    }
}

/// After an unclean shutdown, `latest` is what Kafka answers once it leads
/// again: the log end of a partition whose ISR is this broker alone (the
/// interop suite compares with Kafka 3.9.1 started on the dir).
#[test]
fn latest_after_a_crash_is_the_log_end_when_the_isr_is_this_broker() {
    let tmp = tempfile::tempdir().unwrap();
    let out = tmp.path().join("crash");
    write("crash", &out, &[]);
    let (_, lines) = run_json(&["offset-for-time", out.join("crashed-2").to_str().unwrap(), "latest"]);
    let a = of_type(&lines, "offset")[0];
    assert_eq!(a["offset"], 1500);
    assert_eq!(a["detail"], "the log end: the ISR is this broker alone (it leads once started)");
    let hw = std::fs::read_to_string(out.join("replication-offset-checkpoint")).unwrap();
    assert!(hw.lines().any(|l| l == "crashed 2 1496"), "{hw}");
}
