//! `kmsg`, the codec over Kafka's message definitions, against Kafka itself:
//! every KRaft metadata record of the real-Kafka fixtures decodes to exactly
//! the JSON `DumpLogSegments --cluster-metadata-decoder` printed for it, and
//! encodes back to the same bytes.

use std::path::{Path, PathBuf};

use logfmt::Limits;
use logfmt::log::{Entry, Item, LogReader};

fn fixtures() -> PathBuf {
    match std::env::var_os("LOGTOOL_FIXTURES") {
        Some(d) => PathBuf::from(d),
        None => PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../fixtures/kafka-3.9.1"),
    }
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
    let mut r = LogReader::open(log, Limits::default()).unwrap();
    let mut scratch = Vec::new();
    let mut out = Vec::new();
    while let Some(item) = r.next_item().unwrap() {
        let Item::Entry(Entry::V2(b)) = item else { panic!("{}: damage", log.display()) };
        if b.header().is_control() {
            continue;
        }
        for rec in b.records(&mut scratch, &Limits::default()).unwrap() {
            out.push(rec.unwrap().value.unwrap().to_vec());
        }
    }
    out
}

#[test]
fn metadata_records_decode_as_kafka_prints_them_and_encode_back() {
    let base = fixtures().join("clean");
    let mut checked = 0;
    for rel in [
        "__cluster_metadata-0/00000000000000000000.log",
        "__cluster_metadata-0/00000000000000000000-0000000000.checkpoint",
        "bootstrap.checkpoint",
    ] {
        let log = base.join("logs").join(rel);
        let dump = base.join("dump-decoded").join(format!("{rel}.txt"));
        let want = payloads(&dump);
        let got = values(&log);
        assert_eq!(got.len(), want.len(), "{rel}");
        for (bytes, want) in got.iter().zip(&want) {
            let r = kmsg::metadata::decode(bytes).unwrap_or_else(|e| panic!("{rel}: {e}: {want}"));
            assert_eq!(&r.to_json(), want, "{rel}");
            assert_eq!(&kmsg::metadata::encode(&r.name, r.version, &r.data).unwrap(), bytes, "{rel}: {want}");
            checked += 1;
        }
    }
    assert!(checked > 50, "only {checked} records");
}
