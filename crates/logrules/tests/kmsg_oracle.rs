//! `kmsg`, the codec over Kafka's message definitions, and the internal-topic
//! decoders built on it (`logrules::internal`), against Kafka itself: every
//! KRaft metadata record of the real-Kafka fixtures decodes to exactly the
//! JSON `DumpLogSegments --cluster-metadata-decoder` printed for it, and
//! encodes back to the same bytes; every `__consumer_offsets` and
//! `__transaction_state` record decodes to what `--offsets-decoder` and
//! `--transaction-log-decoder` printed, and every `__share_group_state`
//! record (Kafka 4.3.1) to what `--share-group-state-decoder` printed.
#![allow(clippy::restriction, missing_docs)] // test code: [workspace.lints] is for library code

use std::path::{Path, PathBuf};

use logfmt::Limits;
use logfmt::log::{Entry, Item, LogReader};

use test_support::fixtures;

/// Every scenario dir: the 3.9.1 fixtures and the Kafka 4.3.1 and 4.4.0
/// ones (committed, or fresh ones: `$LOGTOOL_FIXTURES`, `$LOGTOOL_FIXTURES_4`).
fn scenarios() -> Vec<PathBuf> {
    let mut out = Vec::new();
    for root in std::iter::once(fixtures()).chain(test_support::fixtures_4x()) {
        for s in std::fs::read_dir(root).unwrap() {
            out.push(s.unwrap().path());
        }
    }
    out
}

/// The `payload: {...}` lines of a DumpLogSegments decoded dump, in order.
fn payloads(dump: &Path) -> Vec<serde_json::Value> {
    std::fs::read_to_string(dump)
        .unwrap()
        .lines()
        .filter_map(|l| l.split_once(" payload: ").map(|(_, p)| serde_json::from_str(p).unwrap()))
        .collect()
}

/// Every metadata record value of a `.log` or `.checkpoint`, in order.
fn values(log: &Path) -> Vec<Vec<u8>> {
    records(log).into_iter().map(|(_, _, v)| v.unwrap()).collect()
}

/// A record's offset, key and value.
type Record = (i64, Option<Vec<u8>>, Option<Vec<u8>>);

/// (offset, key, value) of every data record of a `.log`.
fn records(log: &Path) -> Vec<Record> {
    let mut r = LogReader::open(log, Limits::default()).unwrap();
    let mut scratch = Vec::new();
    let mut out = Vec::new();
    while let Some(item) = r.next_item().unwrap() {
        let Item::Entry(Entry::V2(b)) = item else { panic!("{}: damage", log.display()) };
        if b.header().is_control() {
            continue;
        }
        let mut records = b.records(&mut scratch, &Limits::default()).unwrap();
        while let Some(rec) = records.next_record() {
            let rec = rec.unwrap();
            out.push((rec.offset, rec.key.map(<[u8]>::to_vec), rec.value.map(<[u8]>::to_vec)));
        }
    }
    out
}

/// (offset, key text, payload text) of each record line of a decoded dump.
fn decoded_lines(dump: &Path) -> Vec<(i64, String, String)> {
    std::fs::read_to_string(dump)
        .unwrap()
        .lines()
        .filter_map(|l| {
            let rest = l.strip_prefix("| offset: ")?;
            let offset = rest.split(' ').next()?.parse().ok()?;
            let (_, kv) = rest.split_once(" key: ")?;
            let (k, v) = kv.split_once(" payload: ")?;
            Some((offset, k.to_string(), v.to_string()))
        })
        .collect()
}

/// Every decoded dump of an internal topic's segments, with its segment.
fn decoded_dumps(topic: &str) -> Vec<(PathBuf, PathBuf)> {
    let mut out = Vec::new();
    for scenario in scenarios() {
        let dir = scenario.join("dump-decoded");
        let Ok(parts) = std::fs::read_dir(&dir) else { continue };
        for part in parts {
            let part = part.unwrap().path();
            let name = part.file_name().unwrap().to_string_lossy().into_owned();
            if !name.starts_with(&format!("{topic}-")) {
                continue;
            }
            for f in std::fs::read_dir(&part).unwrap() {
                let f = f.unwrap().path();
                let fname = f.file_name().unwrap().to_string_lossy().into_owned();
                if let Some(log) = fname.strip_suffix(".txt").filter(|n| n.ends_with(".log")) {
                    let seg = dir.parent().unwrap().join("logs").join(&name).join(log);
                    out.push((seg, f));
                }
            }
        }
    }
    out
}

/// A decoded record `d` against a decoder's `key: {..} payload: {..}` JSON
/// (`<DELETE>` for a tombstone); with `subset`, only the fields Kafka printed
/// are compared in the value.
fn same_as_printed(d: &serde_json::Value, want_key: &str, want_value: &str, subset: bool, at: &str) {
    let k: serde_json::Value = serde_json::from_str(want_key).unwrap();
    assert_eq!(d["key"], k["data"], "{at}");
    if want_value == "<DELETE>" {
        assert!(d["value"].is_null(), "{at}");
        return;
    }
    let v: serde_json::Value = serde_json::from_str(want_value).unwrap();
    assert_eq!(d["version"].to_string(), v["version"].as_str().unwrap(), "{at}");
    if subset {
        for (field, want) in v["data"].as_object().unwrap() {
            // Kafka 4.4's --transaction-log-decoder prints the state's name
            // (TransactionState), 3.9-4.3 its id: the name is ours `state`
            if field == "transactionStatus" && want.is_string() {
                assert_eq!(&d["value"]["state"], want, "{at}: {field}");
                continue;
            }
            assert_eq!(&d["value"][field], want, "{at}: {field}");
        }
    } else {
        assert_eq!(d["value"], v["data"], "{at}");
    }
}

/// Every record of `topic`'s decoded dumps through `decoder`: its record
/// type, key, value version and value as the coordinator's decoder printed
/// them (`{"type", "data"}` keys). Returns how many were checked.
fn coordinator_records_as_printed(topic: &str, decoder: logrules::internal::Decoder) -> usize {
    let mut checked = 0;
    for (seg, dump) in decoded_dumps(topic) {
        let want = decoded_lines(&dump);
        let got = records(&seg);
        assert_eq!(got.len(), want.len(), "{}", seg.display());
        for ((offset, key, value), (want_offset, want_key, want_value)) in got.iter().zip(&want) {
            assert_eq!(offset, want_offset);
            let d = decoder.decode(key.as_deref(), value.as_deref());
            let k: serde_json::Value = serde_json::from_str(want_key).unwrap();
            assert_eq!(d["type"].to_string(), k["type"].as_str().unwrap(), "{}@{offset}", seg.display());
            same_as_printed(&d, want_key, want_value, false, &format!("{}@{offset}", seg.display()));
            checked += 1;
        }
    }
    checked
}

#[test]
fn consumer_offsets_records_decode_as_kafka_prints_them() {
    let checked = coordinator_records_as_printed("__consumer_offsets", logrules::internal::Decoder::ConsumerOffsets);
    assert!(checked > 10, "only {checked} records");
}

/// Kafka 4.3.1's share coordinator records (ShareSnapshot, ShareUpdate) as
/// its `--share-group-state-decoder` printed them.
#[test]
fn share_group_state_records_decode_as_kafka_prints_them() {
    let checked = coordinator_records_as_printed("__share_group_state", logrules::internal::Decoder::ShareGroupState);
    assert!(checked >= 3, "only {checked} records");
}

#[test]
fn transaction_state_records_decode_as_kafka_prints_them() {
    let mut checked = 0;
    for (seg, dump) in decoded_dumps("__transaction_state") {
        let want = decoded_lines(&dump);
        let got = records(&seg);
        assert_eq!(got.len(), want.len(), "{}", seg.display());
        for ((offset, key, value), (_, want_key, want_value)) in got.iter().zip(&want) {
            let d = logrules::internal::Decoder::TransactionState.decode(key.as_deref(), value.as_deref());
            if want_key.starts_with('{') {
                // Kafka 4's decoder prints the key and value as JSON (the
                // value without the state's name logtool adds)
                same_as_printed(&d, want_key, want_value, true, &format!("{}@{offset}", seg.display()));
                checked += 1;
                continue;
            }
            assert_eq!(
                format!("transaction_metadata::transactionalId={}", d["key"]["transactionalId"].as_str().unwrap()),
                *want_key
            );
            let v = &d["value"];
            let text = if v.is_null() {
                "<DELETE>".to_string()
            } else {
                // TransactionLog.readTxnRecordValue: an Empty transaction has no partitions
                let mut parts: Vec<String> = Vec::new();
                if v["state"] != "Empty" {
                    for t in v["transactionPartitions"].as_array().unwrap() {
                        for p in t["partitionIds"].as_array().unwrap() {
                            parts.push(format!("{}-{p}", t["topic"].as_str().unwrap()));
                        }
                    }
                }
                parts.sort();
                format!(
                    "producerId:{},producerEpoch:{},state={},partitions=[{}],txnLastUpdateTimestamp={},txnTimeoutMs={}",
                    v["producerId"],
                    v["producerEpoch"],
                    v["state"].as_str().unwrap(),
                    parts.join(","),
                    v["transactionLastUpdateTimestampMs"],
                    v["transactionTimeoutMs"]
                )
            };
            // Kafka prints the partitions of a hash set: compare them sorted
            let sorted = |s: &str| match (s.find("partitions=["), s.find("],txn")) {
                (Some(a), Some(b)) => {
                    let mut p: Vec<&str> = s[a + 12..b].split(',').filter(|x| !x.is_empty()).collect();
                    p.sort();
                    format!("{}{}{}", &s[..a + 12], p.join(","), &s[b..])
                }
                _ => s.to_string(),
            };
            assert_eq!(sorted(&text), sorted(want_value), "{}@{offset}", seg.display());
            checked += 1;
        }
    }
    assert!(checked > 10, "only {checked} records");
}

/// Every decoded dump of KRaft metadata (`__cluster_metadata-0` segments and
/// snapshots, `bootstrap.checkpoint`) in every scenario, with its file.
fn metadata_dumps() -> Vec<(PathBuf, PathBuf)> {
    let mut out = Vec::new();
    for scenario in scenarios() {
        let dir = scenario.join("dump-decoded");
        let boot = dir.join("bootstrap.checkpoint.txt");
        if boot.exists() {
            out.push((scenario.join("logs/bootstrap.checkpoint"), boot));
        }
        let Ok(files) = std::fs::read_dir(dir.join("__cluster_metadata-0")) else { continue };
        for f in files {
            let f = f.unwrap().path();
            let fname = f.file_name().unwrap().to_string_lossy().into_owned();
            if let Some(name) = fname.strip_suffix(".txt").filter(|n| n.ends_with(".log") || n.ends_with(".checkpoint"))
            {
                out.push((scenario.join("logs/__cluster_metadata-0").join(name), f));
            }
        }
    }
    out
}

#[test]
fn metadata_records_decode_as_kafka_prints_them_and_encode_back() {
    let mut checked = 0;
    let mut files = 0;
    for (log, dump) in metadata_dumps() {
        let want = payloads(&dump);
        let got = values(&log);
        assert_eq!(got.len(), want.len(), "{}", log.display());
        for (bytes, want) in got.iter().zip(&want) {
            let r = kmsg::metadata::decode(bytes).unwrap_or_else(|e| panic!("{}: {e}: {want}", log.display()));
            assert_eq!(&r.to_json(), want, "{}", log.display());
            assert_eq!(&logrules::internal::Decoder::ClusterMetadata.decode(None, Some(bytes)), want);
            assert_eq!(
                &kmsg::metadata::encode(&r.name, r.version, &r.data).unwrap(),
                bytes,
                "{}: {want}",
                log.display()
            );
            checked += 1;
        }
        files += 1;
    }
    assert!(files >= 3 && checked > 50, "only {checked} records in {files} files");
}

/// A decoded `__remote_log_metadata` record as Kafka's `toString` of its
/// `RemoteLogMetadata` writes it (what `--remote-log-metadata-decoder`
/// prints): `RemoteLogSegmentMetadata{..}`, `RemoteLogSegmentMetadataUpdate{..}`
/// or `RemotePartitionDeleteMetadata{..}`.
fn remote_to_string(d: &serde_json::Value) -> String {
    let data = &d["data"];
    let tip = |t: &serde_json::Value| {
        format!("{}:{}-{}", t["id"].as_str().unwrap(), t["name"].as_str().unwrap(), t["partition"])
    };
    let seg_id = |s: &serde_json::Value| {
        format!(
            "RemoteLogSegmentId{{topicIdPartition={}, id={}}}",
            tip(&s["topicIdPartition"]),
            s["id"].as_str().unwrap()
        )
    };
    let custom = |c: &serde_json::Value| match c.as_str() {
        None => "Optional.empty".to_string(),
        Some(b64) => {
            use base64::Engine;
            let n = base64::engine::general_purpose::STANDARD.decode(b64).unwrap().len();
            format!("Optional[CustomMetadata{{{n} bytes}}]")
        }
    };
    let state = d["state"].as_str().unwrap();
    match d["type"].as_str().unwrap() {
        "REMOTE_LOG_SEGMENT_METADATA_RECORD" => {
            let epochs: Vec<String> = data["segmentLeaderEpochs"]
                .as_array()
                .unwrap()
                .iter()
                .map(|e| format!("{}={}", e["leaderEpoch"], e["offset"]))
                .collect();
            format!(
                "RemoteLogSegmentMetadata{{remoteLogSegmentId={}, startOffset={}, endOffset={}, brokerId={}, \
                 maxTimestampMs={}, eventTimestampMs={}, segmentLeaderEpochs={{{}}}, segmentSizeInBytes={}, \
                 customMetadata={}, state={state}}}",
                seg_id(&data["remoteLogSegmentId"]),
                data["startOffset"],
                data["endOffset"],
                data["brokerId"],
                data["maxTimestampMs"],
                data["eventTimestampMs"],
                epochs.join(", "),
                data["segmentSizeInBytes"],
                custom(&data["customMetadata"])
            )
        }
        "REMOTE_LOG_SEGMENT_METADATA_UPDATE_RECORD" => format!(
            "RemoteLogSegmentMetadataUpdate{{remoteLogSegmentId={}, customMetadata={}, state={state}, \
             eventTimestampMs={}, brokerId={}}}",
            seg_id(&data["remoteLogSegmentId"]),
            custom(&data["customMetadata"]),
            data["eventTimestampMs"],
            data["brokerId"]
        ),
        "REMOTE_PARTITION_DELETE_METADATA_RECORD" => format!(
            "RemotePartitionDeleteMetadata{{topicPartition={}, state={state}, eventTimestampMs={}, brokerId={}}}",
            tip(&data["topicIdPartition"]),
            data["eventTimestampMs"],
            data["brokerId"]
        ),
        other => panic!("{other}"),
    }
}

/// Tiered storage's `__remote_log_metadata` (the tiered scenario): every
/// record decodes to what `--remote-log-metadata-decoder` printed for it
/// (Kafka 4.x adds `txnIdxEmpty` to a segment's, the tagged field), and
/// encodes back to the same bytes.
#[test]
fn remote_log_metadata_records_decode_as_kafka_prints_them() {
    let mut checked = 0;
    let mut states = std::collections::BTreeSet::new();
    for (seg, dump) in decoded_dumps("__remote_log_metadata") {
        let want: Vec<(i64, String)> = std::fs::read_to_string(&dump)
            .unwrap()
            .lines()
            .filter_map(|l| {
                let rest = l.strip_prefix("| offset: ")?;
                let offset = rest.split(' ').next()?.parse().ok()?;
                Some((offset, rest.split_once(" payload: ")?.1.to_string()))
            })
            .collect();
        let got = records(&seg);
        assert_eq!(got.len(), want.len(), "{}", seg.display());
        for ((offset, key, value), (want_offset, want)) in got.iter().zip(&want) {
            assert_eq!(offset, want_offset);
            assert!(key.is_none());
            let bytes = value.as_deref().unwrap();
            let d = logrules::internal::Decoder::RemoteLogMetadata.decode(None, Some(bytes));
            let at = format!("{}@{offset}", seg.display());
            let mut printed = want.clone();
            if let Some((head, flag)) = want.rsplit_once(", txnIdxEmpty=") {
                let flag = flag.strip_suffix('}').unwrap();
                assert_eq!(d["data"]["txnIndexEmpty"].as_bool().unwrap_or(false).to_string(), flag, "{at}");
                printed = format!("{head}}}");
            }
            assert_eq!(remote_to_string(&d), printed, "{at}");
            let r = kmsg::remote::decode(bytes).unwrap();
            assert_eq!(kmsg::metadata::encode(&r.name, r.version, &r.data).unwrap(), bytes, "{at}");
            states.insert(d["state"].as_str().unwrap().to_string());
            checked += 1;
        }
    }
    assert!(checked >= 20, "only {checked} records");
    for s in ["COPY_SEGMENT_STARTED", "COPY_SEGMENT_FINISHED", "DELETE_SEGMENT_STARTED", "DELETE_SEGMENT_FINISHED"] {
        assert!(states.contains(s), "no {s} in {states:?}");
    }
}
