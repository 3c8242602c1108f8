//! ZooKeeper-mode log dirs (fixtures/generate.sh zookeeper: a Kafka 3.9.1
//! broker on ZooKeeper 3.8.4, its topic configs only in ZooKeeper) against
//! what Kafka did with them: Kafka 4.4.0 started on a copy in KRaft mode
//! (`kraft-4.4.0-start.txt`), Kafka 3.9.1's own recovery of the SIGKILLed
//! broker's dir (`zookeeper-sigkill/kafka-recovered`).

use std::collections::BTreeSet;
use std::path::PathBuf;

use serde_json::Value;
use test_support::committed_fixtures as fixtures;

use crate::util::{of_type, run_json};

fn zk_logs() -> PathBuf {
    fixtures().join("zookeeper/logs")
}

/// The partition dirs Kafka 4.4.0 renamed `-stray` when it started on the
/// dir in KRaft mode.
fn strays_kafka_made() -> BTreeSet<String> {
    let text = std::fs::read_to_string(fixtures().join("zookeeper/kraft-4.4.0-start.txt")).unwrap();
    text.lines()
        .filter_map(|l| l.split_once(' '))
        .filter(|(_, after)| after.ends_with("-stray"))
        .map(|(before, _)| before.to_string())
        .collect()
}

#[test]
fn a_kraft_start_on_a_zookeeper_dir_sets_every_partition_aside_as_kafka_did() {
    let kafka = strays_kafka_made();
    assert_eq!(kafka.len(), 9, "{kafka:?}");
    let (code, lines) = run_json(&["verify", "--kafka-version", "4.4", zk_logs().to_str().unwrap()]);
    assert_eq!(code, 1);
    let findings: Vec<&Value> = of_type(&lines, "finding");
    let kinds = |k: &str| findings.iter().filter(|f| f["kind"] == k).count();
    assert_eq!(kinds("zookeeper_dir_under_kraft"), 1);
    let ours: BTreeSet<String> = findings
        .iter()
        .filter(|f| f["kind"] == "stray_partition")
        .map(|f| PathBuf::from(f["file"].as_str().unwrap()).file_name().unwrap().to_string_lossy().into_owned())
        .collect();
    assert_eq!(ours, kafka);
    let plan = of_type(&lines, "start_plan")[0];
    assert_eq!(plan["stray_partitions"], 9);
    assert_eq!(plan["mode"], "zookeeper");
}

#[test]
fn a_zookeeper_dir_checked_as_3_9_loads_as_the_zookeeper_broker_it_was() {
    let (code, lines) = run_json(&["verify", "--fail-on", "warning", zk_logs().to_str().unwrap()]);
    assert_eq!(code, 0);
    let plan = of_type(&lines, "start_plan")[0];
    assert_eq!((plan["mode"].as_str(), plan["stray_partitions"].as_u64()), (Some("zookeeper"), Some(0)));
    assert!(plan["mode_from"].as_str().unwrap().contains("meta.properties version 0"));
}
