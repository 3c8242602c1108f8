//! `logtool diff-replicas` and `logtool digest` against what Kafka 3.9.1 did
//! to two replicas that diverged for real (fixtures/kafka-3.9.1/failover: an
//! unclean leader election, then Kafka's own reconciliation).

use crate::util::{fixtures, of_type, run_json};
use serde_json::Value;

fn replica(state: &str, broker: u32) -> String {
    fixtures().join("failover").join(state).join(format!("broker-{broker}")).join("div-0").display().to_string()
}

/// The offset broker 2 truncated div-0 to, from its own log.
fn kafka_truncation_offset() -> i64 {
    let text = std::fs::read_to_string(fixtures().join("failover/truncation.txt")).unwrap();
    let offsets: Vec<i64> = text
        .lines()
        .filter_map(|l| l.split("Truncating to offset ").nth(1))
        .filter_map(|rest| rest.split(|c: char| !c.is_ascii_digit()).next()?.parse().ok())
        .collect();
    assert!(!offsets.is_empty(), "no truncation in {text}");
    *offsets.last().unwrap()
}

fn by_path<'a>(lines: &'a [Value], path: &str) -> &'a Value {
    of_type(lines, "replica").into_iter().find(|r| r["path"] == path).unwrap_or_else(|| panic!("no {path}"))
}

#[test]
fn predicts_the_truncation_kafka_did_after_an_unclean_election() {
    let (old_leader, new_leader) = (replica("before", 2), replica("before", 3));
    let (code, lines) = run_json(&["diff-replicas", &old_leader, &new_leader]);
    assert_eq!(code, 1, "{lines:#?}");
    let summary = of_type(&lines, "summary")[0];
    assert_eq!(summary["diverged"], true);
    assert_eq!(summary["leader"], new_leader.as_str(), "the replica with the highest epoch leads");
    let f = by_path(&lines, &old_leader);
    let x = kafka_truncation_offset();
    assert_eq!(f["truncate_to"], x, "{f:#}");
    assert_eq!(f["divergence_offset"], x, "{f:#}");
    // what it loses: exactly the records only it had, all of them
    assert_eq!(f["lost_offsets"], serde_json::json!([x, f["log_end_offset"]]));
    assert_eq!(f["records_lost"], f["log_end_offset"].as_i64().unwrap() - x);
    assert_eq!(f["records_kept_divergent"], 0);
    // broker 2 alone was the ISR: its high watermark covered them, they were committed
    assert_eq!(f["records_lost_below_hw"], f["records_lost"]);
    assert_eq!(by_path(&lines, &new_leader)["role"], "leader");
}

#[test]
fn kafkas_reconciliation_is_exactly_the_predicted_one() {
    let x = kafka_truncation_offset();
    // after: broker 2's log is its old one up to the truncation, then the new leader's
    let (code, lines) = run_json(&["diff-replicas", "--leader", "2", &replica("before", 2), &replica("after", 2)]);
    assert_eq!(code, 1);
    assert_eq!(by_path(&lines, &replica("before", 2))["divergence_offset"], x);
    let (code, lines) = run_json(&["diff-replicas", "--leader", "2", &replica("after", 2), &replica("before", 3)]);
    assert_eq!(code, 0, "after reconciling, broker 2 holds the new leader's records: {lines:#?}");
    // and the two replicas agree
    let (code, lines) = run_json(&["diff-replicas", &replica("after", 2), &replica("after", 3)]);
    assert_eq!(code, 0, "{lines:#?}");
    let r: Vec<&Value> = of_type(&lines, "replica");
    assert_eq!(r[0]["log_end_offset"], r[1]["log_end_offset"]);
    assert!(r.iter().all(|r| r["truncate_to"].is_null() && r["records_lost"] == 0));
}

#[test]
fn digests_give_the_same_answers_as_the_dirs() {
    let tmp = tempfile::tempdir().unwrap();
    let mut digests = Vec::new();
    for b in [2, 3] {
        let out = tmp.path().join(format!("before-{b}.digest"));
        let (code, lines) = run_json(&["digest", &replica("before", b), "-o", out.to_str().unwrap()]);
        assert_eq!(code, 0, "{lines:?}");
        assert!(std::fs::metadata(&out).unwrap().len() < 4096);
        digests.push(out.display().to_string());
    }
    let (code_dirs, dirs) = run_json(&["diff-replicas", &replica("before", 2), &replica("before", 3)]);
    let (code_digests, dig) = run_json(&["diff-replicas", &digests[0], &digests[1]]);
    assert_eq!(code_dirs, code_digests);
    let strip = |v: &Value| {
        let mut v = v.clone();
        for k in ["path", "source", "notes", "leader"] {
            v.as_object_mut().unwrap().remove(k);
        }
        v
    };
    for (a, b) in dirs.iter().zip(&dig) {
        assert_eq!(strip(a), strip(b));
    }
    // a digest and a dir mix
    let (code, _) = run_json(&["diff-replicas", &digests[0], &replica("before", 3)]);
    assert_eq!(code, 1);
}

#[test]
fn records_show_what_each_side_wrote_after_the_divergence() {
    let (old_leader, new_leader) = (replica("before", 2), replica("before", 3));
    let (_, lines) = run_json(&["diff-replicas", "--records", &old_leader, &new_leader]);
    let recs = of_type(&lines, "divergent_record");
    let key = |r: &Value| String::from_utf8(hex(r["key"].as_str().unwrap())).unwrap();
    let lost: Vec<String> = recs.iter().filter(|r| r["replica"] == old_leader.as_str()).map(|r| key(r)).collect();
    let kept: Vec<String> = recs.iter().filter(|r| r["replica"] == new_leader.as_str()).map(|r| key(r)).collect();
    // the workload wrote a-* only to broker 2 and b-* only to broker 3
    assert!(!lost.is_empty() && lost.iter().all(|k| k.starts_with("a-")), "{lost:?}");
    assert!(!kept.is_empty() && kept.iter().all(|k| k.starts_with("b-")), "{kept:?}");
}

/// `diff-replicas --records` takes dump's record filters, and --redact.
#[test]
fn divergent_records_filtered_and_redacted() {
    let (old_leader, new_leader) = (replica("before", 2), replica("before", 3));
    let (_, all) = run_json(&["diff-replicas", "--records", &old_leader, &new_leader]);
    let all = of_type(&all, "divergent_record");
    let key = |r: &Value| String::from_utf8(hex(r["key"].as_str().unwrap())).unwrap();
    let one = key(all[0]);
    let (_, some) = run_json(&["diff-replicas", "--records", "--key", &one, &old_leader, &new_leader]);
    let some = of_type(&some, "divergent_record");
    assert_eq!(some.len(), all.iter().filter(|r| key(r) == one).count());
    assert!(!some.is_empty());
    let (_, re) = run_json(&["diff-replicas", "--records", "--key-regex", "^b-", &old_leader, &new_leader]);
    let re = of_type(&re, "divergent_record");
    assert_eq!(re.len(), all.iter().filter(|r| key(r).starts_with("b-")).count());
    // redacted: tokens instead of keys, the same for equal keys, sizes kept
    let (_, red) = run_json(&["diff-replicas", "--records", "--redact", "--redact-key", "k", &old_leader, &new_leader]);
    let red = of_type(&red, "divergent_record");
    assert_eq!(red.len(), all.len());
    let mut token_of = std::collections::BTreeMap::new();
    for (a, r) in all.iter().zip(&red) {
        assert_eq!(a["offset"], r["offset"]);
        assert_eq!(a["value_size"], r["value_size"]);
        let t = r["key"].as_str().unwrap();
        assert!(t.starts_with("redacted:"), "{t}");
        assert_eq!(*token_of.entry(key(a)).or_insert(t.to_string()), t);
    }
}

fn hex(s: &str) -> Vec<u8> {
    (0..s.len()).step_by(2).map(|i| u8::from_str_radix(&s[i..i + 2], 16).unwrap()).collect()
}

/// Given the two brokers' log dirs, diff-replicas compares every partition
/// they share, exactly as their partition dirs: div-0 DIVERGED from the
/// same offset, exit 1. Before, two log dirs were read as two empty
/// replicas: "consistent", exit 0. Mixed levels and a segment file are
/// refused (exit 2), never compared.
#[test]
fn log_dirs_are_compared_partition_by_partition() {
    let logs = |b: u32| fixtures().join("failover/before").join(format!("broker-{b}")).display().to_string();
    let (code, by_partition) = run_json(&["diff-replicas", &replica("before", 2), &replica("before", 3)]);
    assert_eq!(code, 1);
    let (code, by_log_dir) = run_json(&["diff-replicas", &logs(2), &logs(3)]);
    assert_eq!(code, 1, "{by_log_dir:?}");
    let summary = |lines: &[Value]| of_type(lines, "summary").last().map(|s| s["divergence_offset"].clone());
    assert_eq!(summary(&by_log_dir), summary(&by_partition));
    assert_eq!(of_type(&by_log_dir, "replica"), of_type(&by_partition, "replica"));
    let segment = format!("{}/00000000000000000000.log", replica("before", 2));
    for args in [[logs(2), replica("before", 3)], [segment, replica("before", 3)]] {
        let (code, _, err) = crate::util::run(&["diff-replicas", &args[0], &args[1]]);
        assert_eq!(code, 2, "{args:?}: {err}");
    }
}

/// `diff-replicas -` reads a digest from stdin, as `digest -o -` writes it
/// (before: "-" was taken for a path), and answers as with the digest file.
#[test]
fn a_digest_on_stdin_is_a_replica() {
    let tmp = tempfile::tempdir().unwrap();
    let file = tmp.path().join("b2.digest");
    let (code, _) = run_json(&["digest", "-o", file.to_str().unwrap(), &replica("before", 2)]);
    assert_eq!(code, 0);
    let (code, from_file) = run_json(&["diff-replicas", file.to_str().unwrap(), &replica("before", 3)]);
    assert_eq!(code, 1);
    let out = crate::util::logtool()
        .args(["--format", "json", "diff-replicas", "-", &replica("before", 3)])
        .write_stdin(std::fs::read(&file).unwrap())
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1), "{}", String::from_utf8_lossy(&out.stderr));
    let lines: Vec<Value> =
        String::from_utf8(out.stdout).unwrap().lines().map(|l| serde_json::from_str(l).unwrap()).collect();
    let summary = |l: &[Value]| of_type(l, "summary")[0]["divergence_offset"].clone();
    assert_eq!(summary(&lines), summary(&from_file));
}
