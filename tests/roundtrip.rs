//! Arbitrary records (keys, values and header values of any bytes, null or
//! not; any codec) written as a batch by logfmt's writer come back exactly
//! through `logtool dump --deep --payload base64 --format json` (a proptest;
//! each case is one logtool process).

use base64::Engine;
use logfmt::builder::{BatchBuilder, NewRecord};
use logfmt::compression::Compression;
use proptest::prelude::*;

use crate::util::{of_type, run_json};

type Rec = (Option<Vec<u8>>, Option<Vec<u8>>, Vec<(String, Option<Vec<u8>>)>);

fn bytes(max: usize) -> impl Strategy<Value = Option<Vec<u8>>> {
    proptest::option::of(proptest::collection::vec(any::<u8>(), 0..max))
}

fn record() -> impl Strategy<Value = Rec> {
    (bytes(40), bytes(300), proptest::collection::vec(("[a-zA-Z0-9._é-]{0,12}", bytes(20)), 0..3))
}

fn decode(v: &serde_json::Value) -> Option<Vec<u8>> {
    v.as_str().map(|s| base64::engine::general_purpose::STANDARD.decode(s).unwrap())
}

fn check(records: &[Rec], codec: u8) -> Result<(), TestCaseError> {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("roundtrip-0");
    std::fs::create_dir_all(&dir).unwrap();
    let mut b = BatchBuilder::new(0);
    b.compression = match codec {
        0 => Compression::None,
        1 => Compression::Gzip,
        2 => Compression::Snappy,
        3 => Compression::Lz4,
        _ => Compression::Zstd,
    };
    for (i, (key, value, headers)) in records.iter().enumerate() {
        let headers: Vec<(&[u8], Option<&[u8]>)> = headers.iter().map(|(k, v)| (k.as_bytes(), v.as_deref())).collect();
        b.push(&NewRecord {
            timestamp: 1_800_000_000_000 + i as i64,
            key: key.as_deref(),
            value: value.as_deref(),
            headers: &headers,
        });
    }
    let log = dir.join("00000000000000000000.log");
    std::fs::write(&log, b.build()).unwrap();
    let (code, lines) = run_json(&["dump", "--deep", "--payload", "base64", log.to_str().unwrap()]);
    prop_assert_eq!(code, 0, "{:?}", lines);
    let got = of_type(&lines, "record");
    prop_assert_eq!(got.len(), records.len());
    for (i, (r, (key, value, headers))) in got.iter().zip(records).enumerate() {
        prop_assert_eq!(r["offset"].as_i64(), Some(i as i64));
        prop_assert_eq!(&decode(&r["key"]), key);
        prop_assert_eq!(&decode(&r["value"]), value);
        let hs = r["headers"].as_array().unwrap();
        prop_assert_eq!(hs.len(), headers.len());
        for (h, (k, v)) in hs.iter().zip(headers) {
            prop_assert_eq!(h["key"].as_str(), Some(k.as_str()));
            prop_assert_eq!(&decode(&h["value"]), v);
        }
    }
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 48, failure_persistence: None, ..ProptestConfig::default() })]

    #[test]
    fn arbitrary_records_round_trip_through_json(
        records in proptest::collection::vec(record(), 1..40),
        codec in 0u8..5,
    ) {
        check(&records, codec)?;
    }
}
