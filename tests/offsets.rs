//! `logtool offset-for-time` against the answers a live Kafka 3.9.1 broker
//! gave (fixtures/kafka-3.9.1/timestamps: GetOffsetShell and Admin.listOffsets,
//! asked while the broker ran, before it stopped).

use std::collections::{BTreeMap, BTreeSet};

use crate::util::{fixtures, run, run_json};
use serde_json::Value;

type Key = (String, String, i64); // query, topic, partition

fn logtool_answers() -> BTreeMap<Key, Value> {
    answers_of("timestamps", "ts-")
}

/// logtool's answers to the scenario's queries, for the topics named `prefix*`.
fn answers_of(scenario: &str, prefix: &str) -> BTreeMap<Key, Value> {
    answers_in(&fixtures().join(scenario), prefix)
}

/// logtool's answers to the queries of the scenario dir `dir`.
fn answers_in(dir: &std::path::Path, prefix: &str) -> BTreeMap<Key, Value> {
    let queries: Vec<String> =
        std::fs::read_to_string(dir.join("queries")).unwrap().lines().map(str::to_string).collect();
    assert!(queries.len() > 40, "{} queries", queries.len());
    let logs = dir.join("logs");
    let mut args = vec!["offset-for-time", logs.to_str().unwrap()];
    args.extend(queries.iter().map(String::as_str));
    let (code, lines) = run_json(&args);
    assert!(code == 0 || code == 1, "exit {code}");
    lines
        .into_iter()
        .filter(|v| v["type"] == "offset" && v["topic"].as_str().unwrap().starts_with(prefix))
        .map(|v| {
            let key = (
                v["query"].as_str().unwrap().to_string(),
                v["topic"].as_str().unwrap().to_string(),
                v["partition"].as_i64().unwrap(),
            );
            (key, v)
        })
        .collect()
}

#[test]
fn every_answer_is_the_live_brokers_get_offsets_answer() {
    let ours = logtool_answers();
    // "<query> topic:partition:offset"; partitions without an offset are left out
    let text = std::fs::read_to_string(fixtures().join("timestamps/get-offsets.txt")).unwrap();
    let kafka: BTreeSet<(Key, i64)> = text
        .lines()
        .map(|l| {
            let (q, tpo) = l.split_once(' ').unwrap();
            let mut it = tpo.rsplitn(3, ':');
            let (o, p, t) = (it.next().unwrap(), it.next().unwrap(), it.next().unwrap());
            ((q.to_string(), t.to_string(), p.parse().unwrap()), o.parse().unwrap())
        })
        .collect();
    let found: BTreeSet<(Key, i64)> =
        ours.iter().filter_map(|(k, v)| v["offset"].as_i64().map(|o| (k.clone(), o))).collect();
    let differ: Vec<_> = kafka.symmetric_difference(&found).take(20).collect();
    assert!(differ.is_empty(), "{} differences, first: {differ:#?}", kafka.symmetric_difference(&found).count());
    // the fixture exercises both outcomes, every topic, and the special queries
    assert!(ours.values().any(|v| v["offset"].is_null()));
    let topics: BTreeSet<&str> = ours.keys().map(|k| k.1.as_str()).collect();
    assert_eq!(topics.len(), 8, "{topics:?}");
}

#[test]
fn timestamps_and_leader_epochs_are_the_live_brokers() {
    let ours = logtool_answers();
    let text = std::fs::read_to_string(fixtures().join("timestamps/list-offsets.txt")).unwrap();
    let mut n = 0;
    for l in text.lines() {
        let f: Vec<&str> = l.split_whitespace().collect();
        let [t, p, q, o, ts, ep] = f[..] else { panic!("bad line {l:?}") };
        let v = &ours[&(q.to_string(), t.to_string(), p.parse().unwrap())];
        let got = (v["offset"].as_i64().unwrap_or(-1), v["timestamp"].as_i64().unwrap_or(-1));
        assert_eq!(got, (o.parse().unwrap(), ts.parse().unwrap()), "{l}: {v}");
        // for latest a live broker reports the partition's current leader epoch
        if q != "latest" {
            let want = if ep == "-" { None } else { Some(ep.parse::<i64>().unwrap()) };
            assert_eq!(v["leader_epoch"].as_i64(), want, "{l}: {v}");
        }
        n += 1;
    }
    assert_eq!(n, ours.len());
}

/// Tiered storage (fixtures/kafka-3.9.1/tiered, Kafka's LocalTieredStorage):
/// every answer logtool gives is what the live broker's Admin.listOffsets
/// gave (offset, timestamp, leader epoch), earliest the log start below the
/// local data, -4 and -5 included; where the first record at or after a
/// time lies in remote storage only, logtool gives no offset and says so,
/// and Kafka's answer there is below the local log start.
#[test]
fn tiered_answers_are_the_live_brokers_or_say_remote_storage() {
    for dir in crate::util::tiered_dirs() {
        tiered_answers_in(&dir);
    }
}

fn tiered_answers_in(dir: &std::path::Path) {
    let ours = answers_in(dir, "tiered");
    let text = std::fs::read_to_string(dir.join("list-offsets.txt")).unwrap();
    let kafka: BTreeMap<Key, (i64, i64, Option<i64>)> = text
        .lines()
        .map(|l| {
            let f: Vec<&str> = l.split_whitespace().collect();
            let [t, p, q, o, ts, ep] = f[..] else { panic!("bad line {l:?}") };
            let ep = if ep == "-" { None } else { Some(ep.parse().unwrap()) };
            ((q.to_string(), t.to_string(), p.parse().unwrap()), (o.parse().unwrap(), ts.parse().unwrap(), ep))
        })
        .collect();
    assert_eq!(ours.len(), kafka.len());
    let (mut same, mut remote) = (0, 0);
    for (k, v) in &ours {
        let (o, ts, ep) = kafka[k];
        let local_start = kafka[&("earliest-local".to_string(), k.1.clone(), k.2)].0;
        match v["offset"].as_i64() {
            // (latest: once tiered-open's transaction timed out, a broker
            // started now writes its ABORT marker first)
            Some(got) if k.0 == "latest" && got == o + 1 => {
                assert!(v["detail"].as_str().unwrap().contains("transaction marker(s)"), "{k:?}: {v}");
            }
            Some(got) => {
                assert_eq!((got, v["timestamp"].as_i64().unwrap_or(-1)), (o, ts), "{k:?}: {v}");
                if k.0 != "latest" {
                    assert_eq!(v["leader_epoch"].as_i64(), ep, "{k:?}: {v}");
                }
                same += 1;
            }
            None if o == -1 => assert!(v["detail"].is_string(), "{k:?}: {v}"),
            None => {
                let detail = v["detail"].as_str().unwrap();
                assert!(detail.starts_with("in remote storage: remote segment "), "{k:?}: {v}");
                assert!(o < local_start, "{k:?}: Kafka answered {o}, at or above the local log start {local_start}");
                remote += 1;
            }
        }
    }
    // earliest below the local data, the special queries, local and remote times
    assert_eq!(ours[&("earliest".to_string(), "tiered".to_string(), 0)]["offset"], 100);
    assert!(ours[&("latest-tiered".to_string(), "tiered-txn".to_string(), 0)]["offset"].as_i64().unwrap() >= 0);
    assert!(same > 40 && remote > 10, "{same} answered, {remote} in remote storage");
}

#[test]
fn times_can_be_written_as_dates_and_kafkas_special_values() {
    let logs = fixtures().join("timestamps/logs/ts-plain-0");
    let p = logs.to_str().unwrap();
    let (_, by_name) = run_json(&["offset-for-time", p, "earliest", "latest", "max-timestamp"]);
    let (_, by_number) = run_json(&["offset-for-time", p, "-2", "-1", "-3"]);
    let offsets = |v: &[Value]| v.iter().map(|l| l["offset"].clone()).collect::<Vec<_>>();
    assert_eq!(offsets(&by_name), offsets(&by_number));
    // an RFC 3339 date-time means its epoch milliseconds
    let ms = by_name[2]["timestamp"].as_i64().unwrap();
    let date = jiff::Timestamp::from_millisecond(ms).unwrap().to_string();
    let (_, a) = run_json(&["offset-for-time", p, &ms.to_string(), &date]);
    assert_eq!(a[0]["offset"], a[1]["offset"]);
    assert_eq!(a[1]["time"], ms);
    // -4 and -5 as kafka-get-offsets takes them; other negative values are
    // no time
    let (_, local) = run_json(&["offset-for-time", p, "earliest-local", "-4", "latest-tiered", "-5"]);
    assert_eq!(local[0]["offset"], by_name[0]["offset"]);
    assert_eq!(local[1]["offset"], by_name[0]["offset"]);
    assert!(local[2]["offset"].is_null() && local[3]["offset"].is_null());
    assert!(local[3]["leader_epoch"].is_null());
    let (code, _, err) = run(&["offset-for-time", p, "-6"]);
    assert_eq!(code, 2, "{err}");
    // no answer: exit 1
    let (code, v) = run_json(&["offset-for-time", p, "9999999999999"]);
    assert_eq!(code, 1);
    assert!(v[0]["offset"].is_null() && v[0]["detail"].is_string());
}

/// After a start, the transaction coordinator aborts a transaction left open
/// past its timeout: the ABORT marker in its partition, and its own
/// PrepareAbort and CompleteAbort records in `__transaction_state`; `latest`
/// counts both (tests/interop/start.sh checks it against Kafka 3.9.1
/// started on this dir). Before, `__transaction_state` was 2 short.
#[test]
fn latest_counts_what_the_coordinator_writes_at_start() {
    let logs = test_support::committed_fixtures().join("incident/logs");
    let (_, lines) = run_json(&["offset-for-time", logs.to_str().unwrap(), "latest"]);
    let answer = |topic: &str| {
        lines.iter().find(|l| l["type"] == "offset" && l["topic"] == topic && l["partition"] == 0).unwrap().clone()
    };
    let (_, dump) = run_json(&["dump", logs.join("__transaction_state-0").to_str().unwrap()]);
    let log_end = dump.iter().filter(|l| l["type"] == "batch").map(|b| b["last_offset"].as_i64().unwrap()).max();
    let state = answer("__transaction_state");
    assert_eq!(state["offset"].as_i64(), log_end.map(|e| e + 1 + 2), "{state}");
    let detail = state["detail"].as_str().unwrap();
    assert!(detail.contains("PrepareAbort of tx-open, CompleteAbort of tx-open"), "{detail}");
    assert!(
        answer("payments")["detail"].as_str().unwrap().contains("marker(s) the coordinator then writes for tx-open")
    );
}
