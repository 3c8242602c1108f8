//! `logtool dump` against Apache Kafka's own `DumpLogSegments`, field by field,
//! for every file of every committed fixture log dir that Kafka's tool reads
//! (`.log`, KRaft `.checkpoint`, `.index`, `.timeindex`, `.txnindex`,
//! `.snapshot`).
//!
//! The reference is `fixtures/kafka-3.9.1/<scenario>/dump-hex/<file>.txt`:
//! what `kafka.tools.DumpLogSegments --deep-iteration` printed with keys and
//! values hex-encoded (fixtures/kafka/HexDecoder.java), so payloads compare
//! byte for byte. We run `logtool dump --format json --deep --payload hex` on
//! the same file and compare every batch, record, index entry, snapshot entry
//! and torn-tail report.

use std::collections::HashMap;
use std::path::Path;

use serde_json::Value;

use crate::util::{files_under, fixtures, run_json};

/// `key: value` pairs of a DumpLogSegments line (values are single tokens).
fn pairs(line: &str) -> HashMap<String, String> {
    let mut out = HashMap::new();
    let toks: Vec<&str> = line.split(' ').collect();
    let mut i = 0;
    while i + 1 < toks.len() {
        if let Some(k) = toks[i].strip_suffix(':') {
            out.insert(k.to_string(), toks[i + 1].to_string());
            i += 2;
        } else {
            i += 1;
        }
    }
    out
}

fn num(v: &Value) -> String {
    match v {
        Value::Null => "null".into(),
        Value::String(s) => s.clone(),
        other => other.to_string(),
    }
}

fn ts_key(t: &Value) -> &'static str {
    match t.as_str().unwrap() {
        "create_time" => "CreateTime",
        "log_append_time" => "LogAppendTime",
        "no_timestamp" => "NoTimestampType",
        other => panic!("unknown timestamp type {other}"),
    }
}

fn optional_long(v: &Value) -> String {
    match v {
        Value::Null => "OptionalLong.empty".into(),
        n => format!("OptionalLong[{n}]"),
    }
}

struct Ctx<'a> {
    file: &'a str,
}

impl Ctx<'_> {
    fn eq(&self, what: &str, kafka: &str, ours: impl std::fmt::Display, line: &str) {
        let ours = ours.to_string();
        assert_eq!(kafka, ours, "{}: field {what} differs\n  kafka: {line}", self.file);
    }
}

fn compare_batch(cx: &Ctx<'_>, line: &str, b: &Value) {
    let p = pairs(line);
    let magic = b["magic"].as_i64().unwrap();
    if magic >= 2 {
        for (k, j) in [
            ("baseOffset", "base_offset"),
            ("lastOffset", "last_offset"),
            ("count", "count"),
            ("baseSequence", "base_sequence"),
            ("lastSequence", "last_sequence"),
            ("producerId", "producer_id"),
            ("producerEpoch", "producer_epoch"),
            ("partitionLeaderEpoch", "partition_leader_epoch"),
            ("isTransactional", "is_transactional"),
            ("isControl", "is_control"),
        ] {
            cx.eq(k, &p[k], num(&b[j]), line);
        }
        cx.eq("deleteHorizonMs", &p["deleteHorizonMs"], optional_long(&b["delete_horizon_ms"]), line);
    } else {
        cx.eq("offset", &p["offset"], num(&b["last_offset"]), line);
    }
    cx.eq("position", &p["position"], num(&b["position"]), line);
    let tk = ts_key(&b["timestamp_type"]);
    cx.eq(tk, p.get(tk).map(String::as_str).unwrap_or("<missing>"), num(&b["max_timestamp"]), line);
    cx.eq("size", &p["size"], num(&b["size"]), line);
    cx.eq("magic", &p["magic"], magic, line);
    cx.eq("compresscodec", &p["compresscodec"], num(&b["compression"]), line);
    cx.eq("crc", &p["crc"], num(&b["crc"]), line);
    cx.eq("isvalid", &p["isvalid"], num(&b["crc_valid"]), line);
}

/// Kafka's JSON for KRaft control records, from ours.
fn kraft_control_json(c: &Value) -> Value {
    use serde_json::json;
    match c["type"].as_str().unwrap() {
        "snapshot_header" => {
            json!({"version": c["version"], "lastContainedLogTimestamp": c["last_contained_log_timestamp"]})
        }
        "snapshot_footer" => json!({"version": c["version"]}),
        "leader_change" => {
            let ids = |k: &str| c[k].as_array().unwrap().iter().map(|v| json!({"voterId": v})).collect::<Vec<_>>();
            json!({"version": c["version"], "leaderId": c["leader_id"], "voters": ids("voters"), "grantingVoters": ids("granting_voters")})
        }
        "kraft_version" => json!({"version": c["version"], "kRaftVersion": c["kraft_version"]}),
        "kraft_voters" => json!({
            "version": c["version"],
            "voters": c["voters"].as_array().unwrap().iter().map(|v| json!({
                "voterId": v["voter_id"],
                "voterDirectoryId": v["voter_directory_id"],
                "endpoints": v["endpoints"],
                "kRaftVersionFeature": {
                    "minSupportedVersion": v["kraft_version_feature"]["min_supported_version"],
                    "maxSupportedVersion": v["kraft_version_feature"]["max_supported_version"],
                },
            })).collect::<Vec<_>>(),
        }),
        other => panic!("no Kafka JSON for {other}"),
    }
}

fn compare_record(cx: &Ctx<'_>, line: &str, batch: &Value, r: &Value) {
    let body = line.strip_prefix("| ").unwrap();
    let magic = batch["magic"].as_i64().unwrap();
    // metadata part: up to "headerKeys: [...]" (v2) or "crc: N}" (legacy)
    let (meta, rest) = if magic >= 2 {
        let i = body.find("headerKeys: [").expect("headerKeys");
        let close = i + body[i..].find(']').unwrap();
        (&body[..=close], &body[close + 1..])
    } else {
        let i = body.find("crc: ").expect("crc");
        let close = i + body[i..].find('}').unwrap();
        (&body[..close], &body[close + 1..])
    };
    let p = pairs(meta);
    cx.eq("offset", &p["offset"], num(&r["offset"]), line);
    let tk = ts_key(&batch["timestamp_type"]);
    cx.eq(tk, &p[tk], num(&r["timestamp"]), line);
    cx.eq("keySize", &p["keySize"], num(&r["key_size"]), line);
    cx.eq("valueSize", &p["valueSize"], num(&r["value_size"]), line);
    if magic >= 2 {
        cx.eq("sequence", &p["sequence"], num(&r["sequence"]), line);
        let keys: Vec<&str> = r["headers"].as_array().unwrap().iter().map(|h| h["key"].as_str().unwrap()).collect();
        let hk = &meta[meta.find("headerKeys: ").unwrap() + "headerKeys: ".len()..];
        cx.eq("headerKeys", hk, format!("[{}]", keys.join(",")), line);
    } else {
        cx.eq("isValid", &p["isValid"], num(&r["crc_valid"]), line);
        cx.eq("crc", &p["crc"], num(&r["crc"]), line);
    }
    if batch["is_control"] == true {
        let c = &r["control"];
        let ty = c["type"].as_str().unwrap();
        let expected = match ty {
            "commit" | "abort" => {
                format!(" endTxnMarker: {} coordinatorEpoch: {}", ty.to_uppercase(), c["coordinator_epoch"])
            }
            // (Kafka 4.x's DumpLogSegments prints the record as JSON)
            "leader_change" if rest.starts_with(" LeaderChange: ") => {
                let kafka: Value = serde_json::from_str(&rest[" LeaderChange: ".len()..]).unwrap();
                assert_eq!(kafka, kraft_control_json(c), "{}: control record differs\n  kafka: {line}", cx.file);
                return;
            }
            "leader_change" => " controlType: LEADER_CHANGE(2)".to_string(),
            "snapshot_header" | "snapshot_footer" | "kraft_version" | "kraft_voters" => {
                let label = match ty {
                    "snapshot_header" => "SnapshotHeader",
                    "snapshot_footer" => "SnapshotFooter",
                    "kraft_version" => "KRaftVersion",
                    _ => "KRaftVoters",
                };
                let json = rest.strip_prefix(&format!(" {label} ")).unwrap_or_else(|| panic!("{}: {line}", cx.file));
                let kafka: Value = serde_json::from_str(json).unwrap();
                assert_eq!(kafka, kraft_control_json(c), "{}: control record differs\n  kafka: {line}", cx.file);
                return;
            }
            other => panic!("{}: unexpected control type {other}", cx.file),
        };
        cx.eq("control", rest, expected, line);
        return;
    }
    let mut expected = String::new();
    if let Some(k) = r["key"].as_str() {
        expected.push_str(&format!(" key: {k}"));
    }
    if let Some(v) = r["value"].as_str() {
        expected.push_str(&format!(" payload: {v}"));
    }
    cx.eq("key/payload", rest, expected, line);
}

fn compare_log(path: &Path, kafka: &str) {
    let file = path.to_str().unwrap();
    let cx = Ctx { file };
    let (_, lines) = run_json(&["dump", "--deep", "--payload", "hex", file]);
    let ours: Vec<&Value> = lines.iter().filter(|l| l["type"] == "batch" || l["type"] == "record").collect();
    let mut i = 0;
    let mut batch: Option<&Value> = None;
    let size = std::fs::metadata(path).unwrap().len();
    let mut saw_tail = false;
    for line in kafka.lines() {
        if line.starts_with("Log starting offset: ") {
            let base = line.trim_start_matches("Log starting offset: ");
            assert_eq!(base, num(&lines[0]["base_offset"]), "{file}: base offset");
            continue;
        }
        if line.starts_with("Snapshot end offset: ") || line == "KRaft bootstrap snapshot" {
            continue;
        }
        if let Some(rest) = line.strip_prefix("Found ") {
            // torn tail: "Found N invalid bytes at the end of NAME"
            let n: u64 = rest.split(' ').next().unwrap().parse().unwrap();
            let errs: Vec<&Value> = lines.iter().filter(|l| l["type"] == "error").collect();
            assert!(
                errs.iter()
                    .any(|e| e["position"].as_u64() == Some(size - n) && e["end_position"].as_u64() == Some(size)),
                "{file}: Kafka found {n} invalid bytes at the end; logtool reported {errs:?}"
            );
            saw_tail = true;
            continue;
        }
        let ours_line =
            ours.get(i).unwrap_or_else(|| panic!("{file}: logtool has fewer lines than Kafka; next: {line}"));
        i += 1;
        if line.starts_with("| ") {
            assert_eq!(ours_line["type"], "record", "{file}: expected a record for {line}");
            compare_record(&cx, line, batch.unwrap(), ours_line);
        } else {
            assert_eq!(ours_line["type"], "batch", "{file}: expected a batch for {line}");
            compare_batch(&cx, line, ours_line);
            batch = Some(ours_line);
        }
    }
    assert_eq!(i, ours.len(), "{file}: logtool printed more batches/records than Kafka");
    if !saw_tail {
        let errs: Vec<&Value> = lines.iter().filter(|l| l["type"] == "error").collect();
        assert!(errs.is_empty(), "{file}: Kafka saw no damage, logtool reported {errs:?}");
    }
}

fn compare_index(path: &Path, kafka: &str, time: bool) {
    let file = path.to_str().unwrap();
    let cx = Ctx { file };
    let (_, lines) = run_json(&["dump", file]);
    let ty = if time { "time_index_entry" } else { "index_entry" };
    let mut ours: Vec<(String, String)> = lines
        .iter()
        .filter(|l| l["type"] == ty)
        .map(
            |l| if time { (num(&l["timestamp"]), num(&l["offset"])) } else { (num(&l["offset"]), num(&l["position"])) },
        )
        .collect();
    // A zero-filled slot 0 is preallocation, not an entry, to logtool; Kafka's
    // tool lists it (as timestamp 0 / position 0 at the base offset) and stops.
    let tail = lines.iter().find(|l| l["type"] == "index_tail");
    if let Some(t) = tail {
        assert_eq!(t["zeroed"], true, "{file}: index tail not zero-filled");
        if t["position"] == 0 {
            let base = num(&lines[0]["base_offset"]);
            ours.push(if time { ("0".into(), base) } else { (base, "0".into()) });
        }
    }
    let kafka_entries: Vec<(String, String)> = kafka
        .lines()
        .filter(|l| !l.ends_with(" is empty."))
        .map(|l| {
            let p = pairs(l);
            if time {
                (p["timestamp"].clone(), p["offset"].clone())
            } else {
                (p["offset"].clone(), p["position"].clone())
            }
        })
        .collect();
    if kafka.lines().any(|l| l.ends_with(" is empty.")) {
        assert!(ours.is_empty(), "{file}: Kafka says empty");
    }
    cx.eq("entries", &format!("{kafka_entries:?}"), format!("{ours:?}"), "(all entries)");
    assert!(lines.iter().all(|l| l["type"] != "error"), "{file}: unexpected error {lines:?}");
}

fn compare_txn_index(path: &Path, kafka: &str) {
    let file = path.to_str().unwrap();
    let cx = Ctx { file };
    let (_, lines) = run_json(&["dump", file]);
    let ours: Vec<&Value> = lines.iter().filter(|l| l["type"] == "txn_index_entry").collect();
    let kl: Vec<&str> = kafka.lines().collect();
    assert_eq!(kl.len(), ours.len(), "{file}: entry count");
    for (line, o) in kl.iter().zip(ours) {
        let p = pairs(line);
        for (k, j) in [
            ("version", "version"),
            ("producerId", "producer_id"),
            ("firstOffset", "first_offset"),
            ("lastOffset", "last_offset"),
            ("lastStableOffset", "last_stable_offset"),
        ] {
            cx.eq(k, &p[k], num(&o[j]), line);
        }
    }
}

fn compare_snapshot(path: &Path, kafka: &str) {
    let file = path.to_str().unwrap();
    let cx = Ctx { file };
    let (_, lines) = run_json(&["dump", file]);
    let ours: Vec<&Value> = lines.iter().filter(|l| l["type"] == "producer_state").collect();
    let kl: Vec<&str> = kafka.lines().collect();
    assert_eq!(kl.len(), ours.len(), "{file}: producer count");
    for (line, o) in kl.iter().zip(ours) {
        let p = pairs(line);
        for (k, j) in [
            ("producerId", "producer_id"),
            ("producerEpoch", "producer_epoch"),
            ("coordinatorEpoch", "coordinator_epoch"),
            ("lastTimestamp", "last_timestamp"),
        ] {
            cx.eq(k, &p[k], num(&o[j]), line);
        }
        cx.eq(
            "currentTxnFirstOffset",
            &p["currentTxnFirstOffset"],
            optional_long(&o["current_txn_first_offset"]),
            line,
        );
        if o["first_sequence"].is_null() {
            assert!(!p.contains_key("firstSequence"), "{file}: Kafka has batch metadata: {line}");
        } else {
            for (k, j) in [
                ("firstSequence", "first_sequence"),
                ("lastSequence", "last_sequence"),
                ("lastOffset", "last_offset"),
                ("offsetDelta", "offset_delta"),
                ("timestamp", "last_timestamp"),
            ] {
                cx.eq(k, &p[k], num(&o[j]), line);
            }
        }
    }
    assert!(lines.iter().all(|l| l["type"] != "error"), "{file}: unexpected error");
}

/// Compare every file of one fixture scenario; returns how many of each kind.
fn compare_scenario(scenario: &str) -> HashMap<&'static str, usize> {
    compare_dir(&fixtures().join(scenario))
}

/// [`compare_scenario`] of the scenario dir `base`.
fn compare_dir(base: &Path) -> HashMap<&'static str, usize> {
    compare_tree(&base.join("dump-hex"), &base.join("logs"))
}

/// Every DumpLogSegments output under `dumps` (hex payloads) against
/// logtool's dump of the same file under `files`.
fn compare_tree(dumps: &Path, files: &Path) -> HashMap<&'static str, usize> {
    let mut seen = HashMap::new();
    for txt in files_under(dumps) {
        let rel = txt.strip_prefix(dumps).unwrap().to_str().unwrap().to_string();
        if rel.ends_with("stderr.txt") {
            continue;
        }
        let target = files.join(rel.strip_suffix(".txt").unwrap());
        assert!(target.exists(), "{} has no log file", txt.display());
        let kafka = std::fs::read_to_string(&txt).unwrap();
        let name = target.file_name().unwrap().to_str().unwrap();
        let kind = if name.ends_with(".log") || name.ends_with(".checkpoint") {
            compare_log(&target, &kafka);
            "log"
        } else if name.ends_with(".timeindex") {
            compare_index(&target, &kafka, true);
            "timeindex"
        } else if name.ends_with(".index") {
            compare_index(&target, &kafka, false);
            "index"
        } else if name.ends_with(".txnindex") {
            compare_txn_index(&target, &kafka);
            "txnindex"
        } else if name.ends_with(".snapshot") {
            compare_snapshot(&target, &kafka);
            "snapshot"
        } else {
            panic!("unexpected dump {rel}");
        };
        *seen.entry(kind).or_insert(0) += 1;
    }
    seen
}

#[test]
fn clean_log_dir_agrees_with_dump_log_segments() {
    let seen = compare_scenario("clean");
    for kind in ["log", "index", "timeindex", "txnindex", "snapshot"] {
        assert!(seen.get(kind).copied().unwrap_or(0) > 0, "no {kind} file compared: {seen:?}");
    }
}

#[test]
fn sigkill_log_dir_agrees_with_dump_log_segments() {
    let seen = compare_scenario("sigkill");
    assert!(seen["log"] > 0 && seen["timeindex"] > 0);
}

/// Tiered storage (the tiered scenario): the broker's log dir, and the
/// remote store's copies under their own names (`<offset>-<segment
/// id>.log`, ...), which DumpLogSegments read from copies named as in a log
/// dir (`fixtures/generate.sh` dump_remote).
#[test]
fn tiered_log_dir_and_remote_store_agree_with_dump_log_segments() {
    for base in crate::util::tiered_dirs() {
        let seen = compare_dir(&base);
        assert!(seen["log"] > 0 && seen["index"] > 0);
        let remote = compare_tree(&base.join("dump-remote"), &base.join("remote"));
        for kind in ["log", "index", "timeindex", "snapshot"] {
            assert!(
                remote.get(kind).copied().unwrap_or(0) > 0,
                "{}: no remote {kind} file compared: {remote:?}",
                base.display()
            );
        }
    }
}

/// What Kafka 4.3.1 and 4.4.0 wrote (fixtures/kafka-4.3.1 and
/// kafka-4.4.0, or the interop suite's fresh copy) against each release's
/// own DumpLogSegments.
#[test]
fn kafka_4_log_dir_agrees_with_dump_log_segments() {
    for base in crate::util::fixtures_4x() {
        let seen = compare_dir(&base.join("kafka4"));
        for kind in ["log", "index", "timeindex", "snapshot"] {
            assert!(seen.get(kind).copied().unwrap_or(0) > 0, "{}: no {kind} file compared: {seen:?}", base.display());
        }
    }
}

/// Kafka 4.3.1's and 4.4.0's log dirs: verify finds nothing at warning or above (no
/// false alarm on transaction v2's epoch bumps, compaction, share groups),
/// and every internal record decodes (KIP-848 consumer and share group
/// records, the share group state topic's records dumped).
#[test]
fn kafka_4_log_dir_verifies_clean_and_every_record_decodes() {
    for base in crate::util::fixtures_4x() {
        kafka_4_verifies_clean_and_decodes(&base.join("kafka4/logs"));
    }
}

fn kafka_4_verifies_clean_and_decodes(logs: &Path) {
    let logs = logs.to_str().unwrap();
    let (code, v) = run_json(&["verify", "--fail-on", "warning", logs]);
    assert_eq!(code, 0, "{v:?}");
    let (code, lines) = run_json(&["dump", "--deep", "--payload", "none", logs]);
    assert_eq!(code, 0);
    assert!(lines.iter().all(|l| l["type"] != "error"));
    let mut records = std::collections::BTreeSet::new();
    let mut txn_epochs = std::collections::BTreeSet::new();
    for l in &lines {
        if let Some(d) = l.get("decoded") {
            assert!(d.get("error").is_none(), "{l}");
            if let Some(r) = d["record"].as_str() {
                records.insert(r.to_string());
            }
        }
        if l["type"] == "batch" && l["file"].as_str().unwrap().contains("/txn-0/") && l["is_transactional"] == true {
            txn_epochs.insert(l["producer_epoch"].as_i64().unwrap());
        }
    }
    for r in
        ["ConsumerGroupMetadata", "ConsumerGroupMemberMetadata", "ShareGroupMetadata", "OffsetCommit", "TransactionLog"]
    {
        assert!(records.contains(r), "no {r} record: {records:?}");
    }
    // transaction v2: the producer epoch goes up with the transactions
    assert!(txn_epochs.len() > 2, "{txn_epochs:?}");
}

/// `partition-of` against where Kafka 4.3.1's console producer (the default
/// partitioner) put 200 keys over 4 partitions.
#[test]
fn partition_of_agrees_with_the_producers_partitioner() {
    let logs = crate::util::fixtures_4().join("kafka4/logs");
    let mut checked = 0;
    for p in 0..4 {
        let (_, lines) = run_json(&["dump", "--deep", logs.join(format!("keyed-{p}")).to_str().unwrap()]);
        let keys: Vec<String> =
            lines.iter().filter(|l| l["type"] == "record").map(|l| l["key"].as_str().unwrap().to_string()).collect();
        assert!(!keys.is_empty(), "keyed-{p} holds no record");
        let mut args = vec!["partition-of", "--partitions", "4"];
        args.extend(keys.iter().map(String::as_str));
        let (code, out) = run_json(&args);
        assert_eq!(code, 0);
        for l in &out {
            assert_eq!(l["partition"], p, "{l}");
            checked += 1;
        }
    }
    assert_eq!(checked, 200);
}

#[test]
fn legacy_log_dir_agrees_with_dump_log_segments() {
    let seen = compare_scenario("legacy");
    assert!(seen["log"] > 0);
}

/// The fixtures cover what the oracle tests claim: every codec, both legacy
/// magics, transactions, control records of every kind, compaction artefacts.
#[test]
fn fixtures_cover_the_format() {
    let mut codecs = std::collections::BTreeSet::new();
    let mut magics = std::collections::BTreeSet::new();
    let mut controls = std::collections::BTreeSet::new();
    let mut horizon = false;
    let mut log_append = false;
    let mut aborted = false;
    for scenario in ["clean", "legacy", "sigkill"] {
        let (_, lines) = run_json(&[
            "dump",
            "--deep",
            "--payload",
            "none",
            fixtures().join(scenario).join("logs").to_str().unwrap(),
        ]);
        for l in &lines {
            match l["type"].as_str().unwrap() {
                "batch" => {
                    codecs.insert((l["magic"].as_i64().unwrap() >= 2, l["compression"].as_str().unwrap().to_string()));
                    magics.insert(l["magic"].as_i64().unwrap());
                    horizon |= !l["delete_horizon_ms"].is_null();
                    log_append |= l["timestamp_type"] == "log_append_time";
                }
                "record" if !l["control"].is_null() => {
                    controls.insert(l["control"]["type"].as_str().unwrap().to_string());
                }
                "txn_index_entry" => aborted = true,
                _ => {}
            }
        }
    }
    for c in ["none", "gzip", "snappy", "lz4", "zstd"] {
        assert!(codecs.contains(&(true, c.to_string())), "no v2 {c} batch in the fixtures");
    }
    for c in ["none", "gzip", "snappy", "lz4"] {
        assert!(codecs.contains(&(false, c.to_string())), "no legacy {c} message in the fixtures");
    }
    assert_eq!(magics.into_iter().collect::<Vec<_>>(), vec![0, 1, 2]);
    for c in ["commit", "abort", "leader_change", "snapshot_header", "snapshot_footer", "kraft_version", "kraft_voters"]
    {
        assert!(controls.contains(c), "no {c} control record in the fixtures: {controls:?}");
    }
    assert!(horizon && log_append && aborted);
}

/// The rows of a table a Kafka tool printed (`describe/FILE` of the kafka4
/// scenario): columns split at whitespace (a header cell of two words, e.g.
/// `COORDINATOR (ID)`, has a two-token value), by header name.
fn kafka_table(base: &Path, file: &str) -> Vec<HashMap<String, String>> {
    let path = base.join("kafka4/describe").join(file);
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let mut header: Vec<String> = Vec::new();
    let mut rows = Vec::new();
    for line in text.lines() {
        let cols: Vec<&str> = line.split_whitespace().collect();
        if cols.first() == Some(&"GROUP") {
            header = cols.iter().map(|c| c.to_string()).collect();
        } else if !header.is_empty() && cols.len() == header.len() {
            rows.push(header.iter().cloned().zip(cols.iter().map(|c| c.to_string())).collect());
        }
    }
    rows
}

/// `logtool groups` on the log dir Kafka 4.3.1 left, against what Kafka's
/// own tools said of every group just before the broker stopped
/// (`kafka-groups --list`, `kafka-consumer-groups`, `kafka-share-groups`,
/// `kafka-streams-groups --describe`): each group's type and protocol,
/// state, group and target assignment epochs, members (id, host, client,
/// epoch, assignment), committed offsets and lag, and a share group's
/// start offsets and lag.
#[test]
fn kafka_4_groups_are_what_kafkas_describe_commands_said() {
    for base in crate::util::fixtures_4x() {
        groups_are_what_kafka_said(&base);
    }
}

fn groups_are_what_kafka_said(base: &Path) {
    let logs = base.join("kafka4/logs");
    let (code, lines) = run_json(&["groups", logs.to_str().unwrap()]);
    assert_eq!(code, 0, "{lines:?}");
    let groups: HashMap<String, &Value> =
        lines.iter().filter(|l| l["type"] == "group").map(|l| (l["group"].as_str().unwrap().to_string(), l)).collect();
    let dash = |v: &Value| match v {
        Value::Null => "-".to_string(),
        Value::String(s) => s.clone(),
        other => other.to_string(),
    };
    // kafka-groups --list: every group, its type and protocol
    let listed = kafka_table(base, "groups-list.txt");
    assert_eq!(listed.len(), groups.len(), "{listed:?} vs {:?}", groups.keys());
    let mut types = std::collections::BTreeSet::new();
    for row in &listed {
        let g = groups.get(&row["GROUP"]).unwrap_or_else(|| panic!("{} not found: {:?}", row["GROUP"], groups.keys()));
        assert_eq!(g["group_type"], row["TYPE"].as_str(), "{g}");
        assert_eq!(g["protocol_type"], row["PROTOCOL"].as_str(), "{g}");
        types.insert(row["TYPE"].clone());
    }
    assert_eq!(types.len(), 4, "every group type: {types:?}");
    // --describe --state --verbose of each group
    let mut states = vec![];
    for row in &listed {
        let (name, file) = match row["TYPE"].as_str() {
            "Share" => (row["GROUP"].clone(), "share-state.txt".to_string()),
            "Streams" => (row["GROUP"].clone(), "streams-state.txt".to_string()),
            _ => (row["GROUP"].clone(), format!("consumer-{}-state.txt", row["GROUP"])),
        };
        let kafka = kafka_table(base, &file);
        assert_eq!(kafka.len(), 1, "{file}: {kafka:?}");
        let k = &kafka[0];
        let g = groups[&name];
        let classic = row["TYPE"] == "Classic";
        assert_eq!(g["state"], k["STATE"].as_str(), "{name}");
        assert_eq!(g["members"].as_array().unwrap().len().to_string(), k["#MEMBERS"], "{name}");
        if !classic {
            assert_eq!(dash(&g["generation"]), k["GROUP-EPOCH"], "{name}");
            let target = k.get("TARGET-ASSIGNMENT-EPOCH").or(k.get("ASSIGNMENT-EPOCH")).unwrap();
            assert_eq!(&dash(&g["assignment_epoch"]), target, "{name}");
        }
        if let Some(strategy) = k.get("ASSIGNMENT-STRATEGY") {
            assert_eq!(&dash(&g["assignor"]), strategy, "{name}");
        }
        states.push(k["STATE"].clone());
    }
    assert!(states.iter().any(|s| s == "Stable"), "a group with a live member: {states:?}");
    // --members --verbose: the live KIP-848 member
    for row in listed.iter().filter(|r| r["TYPE"] == "Consumer") {
        let kafka = kafka_table(base, &format!("consumer-{}-members.txt", row["GROUP"]));
        let members = groups[&row["GROUP"]]["members"].as_array().unwrap();
        assert_eq!(members.len(), kafka.len(), "{}", row["GROUP"]);
        for k in &kafka {
            let m = members.iter().find(|m| m["member_id"] == k["CONSUMER-ID"].as_str()).expect("the member");
            assert_eq!(m["client_host"], k["HOST"].as_str());
            assert_eq!(m["client_id"], k["CLIENT-ID"].as_str());
            assert_eq!(m["member_epoch"].to_string(), k["CURRENT-EPOCH"]);
            let assignment: Vec<String> = m["assignment"]
                .as_array()
                .unwrap()
                .iter()
                .map(|t| {
                    let parts: Vec<String> = t[1].as_array().unwrap().iter().map(|p| p.to_string()).collect();
                    format!("{}:{}", t[0].as_str().unwrap(), parts.join(","))
                })
                .collect();
            assert_eq!(assignment.join(";"), k["CURRENT-ASSIGNMENT"]);
        }
    }
    // committed offsets and lag of the consumer groups
    for row in listed.iter().filter(|r| r["TYPE"] == "Consumer" || r["TYPE"] == "Classic") {
        let kafka = kafka_table(base, &format!("consumer-{}-offsets.txt", row["GROUP"]));
        assert!(!kafka.is_empty(), "{}", row["GROUP"]);
        for k in kafka {
            let c = lines
                .iter()
                .find(|l| {
                    l["type"] == "committed_offset"
                        && l["group"] == row["GROUP"].as_str()
                        && l["topic"] == k["TOPIC"].as_str()
                        && l["partition"].as_i64() == k["PARTITION"].parse().ok()
                })
                .unwrap_or_else(|| panic!("no commit of {k:?}"));
            assert_eq!(c["offset"].to_string(), k["CURRENT-OFFSET"], "{k:?}");
            assert_eq!(c["high_watermark"].to_string(), k["LOG-END-OFFSET"], "{k:?}");
            assert_eq!(c["lag"].to_string(), k["LAG"], "{k:?}");
        }
    }
    // the share group's start offsets and lag
    let kafka = kafka_table(base, "share-offsets.txt");
    let ours: Vec<&Value> = lines.iter().filter(|l| l["type"] == "share_offset").collect();
    assert_eq!(ours.len(), kafka.len(), "{ours:?} vs {kafka:?}");
    for k in &kafka {
        let s = ours
            .iter()
            .find(|l| l["group"] == k["GROUP"].as_str() && l["topic"] == k["TOPIC"].as_str())
            .unwrap_or_else(|| panic!("no share offset of {k:?}"));
        assert_eq!(s["partition"].to_string(), k["PARTITION"]);
        assert_eq!(dash(&s["start_offset"]), k["START-OFFSET"], "{k:?}");
        assert_eq!(dash(&s["leader_epoch"]), k["LEADER-EPOCH"], "{k:?}");
        assert_eq!(dash(&s["lag"]), k["LAG"], "{k:?}");
    }
}
