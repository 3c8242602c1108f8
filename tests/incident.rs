//! `logtool groups` and `logtool txns` against what a live Kafka 3.9.1 said of
//! the same cluster just before it stopped (fixtures/kafka-3.9.1/incident:
//! `kafka-consumer-groups --describe --all-groups`, `kafka-transactions
//! describe-producers`, `describe` and `find-hanging`), and `dump --decode`.

use std::collections::BTreeMap;
use std::path::PathBuf;

use crate::util::{copy_tree, fixtures, run, run_json};
use serde_json::Value;

fn incident() -> PathBuf {
    fixtures().join("incident")
}

fn logs() -> String {
    incident().join("logs").to_str().unwrap().to_string()
}

/// The whitespace-separated columns of each data row of a Kafka tool's
/// table, keyed by its header's column names; repeated headers, blank lines
/// and notes ("Consumer group 'x' has no active members.") are skipped.
fn table(file: &str, first_column: &str) -> Vec<BTreeMap<String, String>> {
    let text = std::fs::read_to_string(incident().join(file)).unwrap();
    let mut header: Vec<String> = Vec::new();
    let mut rows = Vec::new();
    for line in text.lines() {
        let cols: Vec<&str> = line.split_whitespace().collect();
        if cols.first() == Some(&first_column) {
            header = cols.iter().map(|c| c.to_string()).collect();
        } else if !header.is_empty() && cols.len() >= header.len() - 3 && !line.contains("has no active members") {
            rows.push(header.iter().cloned().zip(cols.iter().map(|c| c.to_string())).collect());
        }
    }
    rows
}

type GroupKey = (String, String, i64); // group, topic, partition

#[test]
fn groups_gives_the_offsets_and_lags_kafka_consumer_groups_gave() {
    let kafka: BTreeMap<GroupKey, (i64, i64, i64)> = table("groups-describe.txt", "GROUP")
        .into_iter()
        .map(|r| {
            let n = |c: &str| r[c].parse::<i64>().unwrap_or_else(|e| panic!("{c} in {r:?}: {e}"));
            (
                (r["GROUP"].clone(), r["TOPIC"].clone(), n("PARTITION")),
                (n("CURRENT-OFFSET"), n("LOG-END-OFFSET"), n("LAG")),
            )
        })
        .collect();
    assert!(kafka.len() >= 5, "{kafka:?}");
    let (code, lines) = run_json(&["groups", &logs()]);
    assert_eq!(code, 0);
    let ours: BTreeMap<GroupKey, (i64, i64, i64)> = lines
        .iter()
        .filter(|v| v["type"] == "committed_offset")
        .map(|v| {
            let key = (
                v["group"].as_str().unwrap().into(),
                v["topic"].as_str().unwrap().into(),
                v["partition"].as_i64().unwrap(),
            );
            let n = |f: &str| v[f].as_i64().unwrap_or_else(|| panic!("{f} in {v}"));
            (key, (n("offset"), n("high_watermark"), n("lag")))
        })
        .collect();
    // the deleted group (g-gone) and the one whose offsets expired (g-expired)
    // are in the log, and gone from both answers
    assert_eq!(ours, kafka);
    let dumped = run(&[
        "dump",
        "--deep",
        &format!("{}/__consumer_offsets-0", logs()),
        &format!("{}/__consumer_offsets-1", logs()),
    ]);
    assert!(dumped.1.contains("g-expired") || dumped.1.contains("g-gone"), "{}", dumped.1);
    // commits of several value versions: v3 (today's clients) and v1 (an
    // old client's OffsetCommit v2 with a retention time: an expire timestamp)
    let retained = lines.iter().find(|v| v["type"] == "committed_offset" && v["group"] == "g-retained").unwrap();
    assert!(retained["expire_timestamp"].as_i64() > retained["commit_timestamp"].as_i64(), "{retained}");
    let mut versions = std::collections::BTreeSet::new();
    for p in 0..3 {
        let (_, recs) = run_json(&["dump", "--deep", &format!("{}/__consumer_offsets-{p}", logs())]);
        versions.extend(
            recs.iter()
                .filter(|v| v["decoded"]["record"] == "OffsetCommit")
                .filter_map(|v| v["decoded"]["version"].as_i64()),
        );
    }
    assert_eq!(versions, [1, 3].into(), "OffsetCommitValue versions");
    // the group's state and its member, as describe --members would show them
    let active = lines.iter().find(|v| v["type"] == "group" && v["group"] == "g-active").unwrap();
    assert_eq!(active["state"], "Stable");
    assert_eq!(active["members"][0]["client_id"], "active-consumer");
    // --group narrows the answer to one group
    let (_, one) = run_json(&["groups", &logs(), "--group", "g-kept"]);
    assert!(one.iter().filter(|v| v["type"] == "committed_offset").all(|v| v["group"] == "g-kept"));
    assert_eq!(one.iter().filter(|v| v["type"] == "committed_offset").count(), 1);
}

#[test]
fn which_names_the_partition_that_holds_each_group() {
    let (_, lines) = run_json(&["groups", &logs()]);
    for g in lines.iter().filter(|v| v["type"] == "group") {
        let name = g["group"].as_str().unwrap();
        let (code, out, _) = run(&["groups", "--which", name, &logs()]);
        assert_eq!(code, 0);
        let want = format!("__consumer_offsets-{}", g["coordinator_partition"]);
        assert!(out.contains(&want), "{name}: {out}");
        // and the group's records are in that partition
        let dumped = run(&["dump", "--deep", &format!("{}/{want}", logs())]).1;
        assert!(dumped.contains(&format!("group={name}")), "{name} not in {want}");
    }
}

#[test]
fn txns_names_the_open_transaction_kafka_transactions_described() {
    let wall = std::fs::read_to_string(incident().join("wall.txt")).unwrap();
    let producers = table("describe-producers.txt", "ProducerId");
    let open: Vec<_> = producers.iter().filter(|r| r["CurrentTransactionStartOffset"] != "None").collect();
    assert_eq!(open.len(), 1, "{producers:?}");
    let txn = &table("describe-txn.txt", "CoordinatorId")[0];
    let (code, lines) = run_json(&["txns", &logs(), "--at", wall.trim()]);
    assert_eq!(code, 0, "nothing hangs: {lines:?}");
    let ours: Vec<&Value> = lines.iter().filter(|v| v["type"] == "open_transaction").collect();
    assert_eq!(ours.len(), 1, "{ours:?}");
    let o = ours[0];
    assert_eq!(o["producer_id"].to_string(), open[0]["ProducerId"]);
    assert_eq!(o["producer_epoch"].to_string(), open[0]["ProducerEpoch"]);
    assert_eq!(o["first_offset"].to_string(), open[0]["CurrentTransactionStartOffset"]);
    assert_eq!(o["last_timestamp"].to_string(), open[0]["LastTimestamp"]);
    assert_eq!(o["transactional_id"], txn["TransactionalId"].as_str());
    assert_eq!(o["coordinator_state"], txn["TransactionState"].as_str());
    assert_eq!(format!("{}-{}", o["topic"].as_str().unwrap(), o["partition"]), txn["TopicPartitions"]);
    // the LSO it holds: a read_committed consumer stops at its first offset
    let p = lines.iter().find(|v| v["type"] == "txn_partition" && v["topic"] == o["topic"]).unwrap();
    assert_eq!(p["last_stable_offset"], o["first_offset"]);
    assert!(p["high_watermark"].as_i64() > p["last_stable_offset"].as_i64());
}

#[test]
fn txns_finds_hanging_what_find_hanging_finds() {
    // find-hanging --max-transaction-timeout 0 on the live broker: nothing,
    // because the coordinator still has tx-open Ongoing on payments-0
    let rows = table("find-hanging.txt", "Topic");
    let (code, lines) = run_json(&["txns", &logs(), "--max-timeout-ms", "0"]);
    let summary = lines.iter().find(|v| v["type"] == "summary").unwrap();
    assert_eq!(summary["hanging"].as_u64().unwrap() as usize, rows.len());
    assert_eq!(code, 0);
    // The coordinator's state lost (the broker restarted on a copy without
    // __transaction_state-0): find-hanging named the producer; so does txns,
    // on the same files, and exits 1
    let lost = table("find-hanging-lost.txt", "Topic");
    assert_eq!(lost.len(), 1, "{lost:?}");
    let (_tmp, copy) = copy_tree(&incident().join("logs"));
    std::fs::remove_dir_all(copy.join("__transaction_state-0")).unwrap();
    let (code, lines) =
        run_json(&["txns", copy.to_str().unwrap(), "--partition", "payments-0", "--max-timeout-ms", "0"]);
    assert_eq!(code, 1);
    let hanging: Vec<_> = lines.iter().filter(|v| v["type"] == "open_transaction" && v["hanging"] == true).collect();
    assert_eq!(hanging.len(), 1, "{lines:?}");
    let (h, k) = (hanging[0], &lost[0]);
    assert_eq!(
        (h["topic"].as_str().unwrap(), h["partition"].to_string()),
        (k["Topic"].as_str(), k["Partition"].clone())
    );
    assert_eq!(h["producer_id"].to_string(), k["ProducerId"]);
    assert_eq!(h["producer_epoch"].to_string(), k["ProducerEpoch"]);
    assert_eq!(h["first_offset"].to_string(), k["StartOffset"]);
    assert_eq!(h["last_timestamp"].to_string(), k["LastTimestamp"]);
}

#[test]
fn dump_decodes_internal_topics_by_name() {
    for (part, record) in [("__consumer_offsets-0", "OffsetCommit"), ("__transaction_state-0", "TransactionLog")] {
        let (code, lines) = run_json(&["dump", "--deep", &format!("{}/{part}", logs())]);
        assert_eq!(code, 0);
        let recs: Vec<_> = lines.iter().filter(|v| v["type"] == "record").collect();
        assert!(!recs.is_empty());
        assert!(recs.iter().all(|v| v["decoded"].is_object()), "{part}");
        assert!(recs.iter().any(|v| v["decoded"]["record"] == record), "{part}");
        let (_, none) = run_json(&["dump", "--deep", "--decode", "none", &format!("{}/{part}", logs())]);
        assert!(none.iter().filter(|v| v["type"] == "record").all(|v| v.get("decoded").is_none()));
    }
    let (_, meta) = run_json(&["dump", "--deep", &format!("{}/__cluster_metadata-0", logs())]);
    assert!(meta.iter().any(|v| v["decoded"]["type"] == "TOPIC_RECORD" && v["decoded"]["data"]["name"] == "payments"));
    // a data topic forced through a decoder: decoded with an error, never a failure
    let (code, forced) =
        run_json(&["dump", "--deep", "--decode", "consumer-offsets", &format!("{}/payments-0", logs())]);
    assert_eq!(code, 0);
    let data: Vec<_> = forced.iter().filter(|v| v["type"] == "record" && v.get("control").is_none()).collect();
    assert!(data.len() > 10 && data.iter().all(|v| v["decoded"]["error"].is_string()));
}

/// A partition dir given to `txns` or `groups` is answered for exactly as
/// its log dir answers for that partition (the coordinators' state is in
/// the log dir); a file is refused (exit 2). Before, `txns` on payments-0
/// said "0 open transaction(s)" (exit 0) and `groups` on
/// `__consumer_offsets-0` "no __consumer_offsets partition".
#[test]
fn a_partition_dir_is_answered_as_its_log_dir_answers_for_it() {
    let logs = logs();
    let part = |p: &str| format!("{logs}/{p}");
    let open_in = |args: &[&str]| {
        let mut args = args.to_vec();
        args.extend(["--at", "2026-11-24T00:00:00Z"]);
        let (_, lines) = run_json(&args);
        lines.into_iter().filter(|l| l["type"] == "open_transaction").collect::<Vec<Value>>()
    };
    let whole: Vec<Value> = open_in(&["txns", &logs])
        .into_iter()
        .filter(|t| t["partition"] == "payments-0" || t["topic"] == "payments")
        .collect();
    assert!(!whole.is_empty(), "the log dir shows an open transaction on payments-0");
    assert_eq!(open_in(&["txns", &part("payments-0")]), whole);
    // groups: the coordinator partition's groups, a data partition's commits
    let commits = |args: &[&str]| {
        let (code, lines) = run_json(args);
        assert!(code <= 1, "{args:?}: {lines:?}");
        let mut c: Vec<Value> = lines.into_iter().filter(|l| l["type"] == "committed_offset").collect();
        c.sort_by_key(|v| v.to_string());
        c
    };
    let all = commits(&["groups", &logs]);
    assert_eq!(commits(&["groups", &part("__consumer_offsets-0")]).is_empty(), all.is_empty());
    let orders0: Vec<Value> = all.iter().filter(|c| c["topic"] == "orders" && c["partition"] == 0).cloned().collect();
    assert!(!orders0.is_empty());
    assert_eq!(commits(&["groups", &part("orders-0")]), orders0);
    for cmd in ["txns", "groups"] {
        let (code, _, err) = run(&[cmd, &part("orders-0/00000000000000000000.log")]);
        assert_eq!(code, 2, "{cmd}: {err}");
    }
}
