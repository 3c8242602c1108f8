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
    // no false alarm on what a healthy ZooKeeper-mode broker left, either way
    for logs in [zk_logs(), fixtures().join("zookeeper-sigkill/logs")] {
        for deep in [&[][..], &["--deep"][..]] {
            let (code, lines) =
                run_json(&[&["verify", "--fail-on", "warning"], deep, &[logs.to_str().unwrap()]].concat());
            assert_eq!(code, 0, "{logs:?} {deep:?}: {lines:?}");
        }
    }
    let (code, lines) = run_json(&["verify", "--fail-on", "warning", zk_logs().to_str().unwrap()]);
    assert_eq!(code, 0);
    let plan = of_type(&lines, "start_plan")[0];
    assert_eq!((plan["mode"].as_str(), plan["stray_partitions"].as_u64()), (Some("zookeeper"), Some(0)));
    assert!(plan["mode_from"].as_str().unwrap().contains("meta.properties version 0"));
}

fn zk_data(scenario: &str) -> String {
    fixtures().join(scenario).join("zookeeper-data").to_str().unwrap().to_string()
}

/// The partition dirs a retain plan changes.
fn changed_partitions(lines: &[Value]) -> BTreeSet<String> {
    of_type(lines, "change")
        .iter()
        .filter_map(|c| {
            PathBuf::from(c["file"].as_str()?).parent()?.file_name().map(|n| n.to_string_lossy().into_owned())
        })
        .collect()
}

#[test]
fn retain_plans_nothing_for_a_topic_whose_policy_is_only_in_zookeeper_unless_told() {
    let logs = zk_logs();
    let logs = logs.to_str().unwrap();
    let before = ["retain", "--before", "2100-01-01T00:00:00Z"];
    // no policy known: the compact-only topics (and every other) are skipped, and said so
    let (_, lines) = run_json(&[&before[..], &[logs]].concat());
    assert!(changed_partitions(&lines).is_empty(), "{lines:?}");
    let skipped = of_type(&lines, "warning")
        .iter()
        .filter(|w| w["message"].as_str().unwrap().contains("cleanup.policy is not known here"))
        .count();
    assert_eq!(skipped, 7, "{lines:?}");
    // ZooKeeper's data dir says which are compact-only
    let (code, lines) = run_json(&[&before[..], &["--zookeeper-data", &zk_data("zookeeper"), logs]].concat());
    assert_eq!(code, 1);
    let changed = changed_partitions(&lines);
    for kept in ["zk-compact-0", "zk-compact-2-0", "__consumer_offsets-0"] {
        assert!(!changed.contains(kept), "{kept}: {changed:?}");
        assert!(
            of_type(&lines, "note").iter().any(|n| n["file"].as_str().unwrap().ends_with(kept)
                && n["message"].as_str().unwrap().contains("cleanup.policy is compact")),
            "{kept}"
        );
    }
    for deleted in ["zk-plain-0", "zk-plain-1", "zk-fine-0", "zk-both-0"] {
        assert!(changed.contains(deleted), "{deleted}: {changed:?}");
    }
    // told: as the operator says
    let (_, lines) = run_json(&[&before[..], &["--assume-policy", "delete", logs]].concat());
    assert!(changed_partitions(&lines).contains("zk-compact-0"));
}

/// `recover` of the SIGKILLed ZooKeeper-mode broker's dir rebuilds every
/// index as Kafka 3.9.1's recovery did, given ZooKeeper's data dir (the
/// topics' own index.interval.bytes, 1024 and 256): rolled segments byte
/// for byte; the active segment's entries, which Kafka's start then
/// preallocates to segment.index.bytes. Without it, the default 4096 gives
/// other indexes.
#[test]
fn recover_of_a_zookeeper_broker_rebuilds_the_indexes_kafka_rebuilt() {
    let kafka = fixtures().join("zookeeper-sigkill/kafka-recovered");
    let differing = |with_zk: bool| {
        let (_tmp, dir) = test_support::copy_tree(&fixtures().join("zookeeper-sigkill/logs"));
        let d = dir.to_str().unwrap();
        let zk = zk_data("zookeeper-sigkill");
        let mut args = vec!["recover", "--execute", "--quiet", d];
        if with_zk {
            args.extend(["--zookeeper-data", zk.as_str()]);
        }
        let (code, _) = run_json(&args);
        assert_eq!(code, 0);
        let mut differing = Vec::new();
        let mut compared = 0;
        for part in std::fs::read_dir(&kafka).unwrap().flatten() {
            for f in std::fs::read_dir(part.path()).unwrap().flatten() {
                let theirs = std::fs::read(f.path()).unwrap();
                let rel = f.path().strip_prefix(&kafka).unwrap().to_path_buf();
                let ours = std::fs::read(dir.join(&rel)).unwrap_or_default();
                compared += 1;
                let entries_match = theirs.len() >= ours.len()
                    && theirs[..ours.len()] == ours[..]
                    && theirs[ours.len()..].iter().all(|b| *b == 0);
                if theirs != ours && !entries_match {
                    differing.push(rel);
                }
            }
        }
        assert!(compared > 80, "{compared}");
        differing
    };
    assert_eq!(differing(true), Vec::<PathBuf>::new());
    assert!(differing(false).len() > 20);
}

/// `stats` reads the policy from ZooKeeper and never shows Kafka's default
/// as the topic's value: the broker's server.properties (here
/// log.retention.ms=-1) may differ, and no log dir holds it.
#[test]
fn stats_never_presents_a_broker_level_default_as_the_topics_value() {
    let zk = zk_data("zookeeper");
    let part = |p: &str| zk_logs().join(p).to_str().unwrap().to_string();
    let (code, lines) = run_json(&["stats", "--zookeeper-data", &zk, &part("zk-plain-0"), &part("zk-compact-0")]);
    assert_eq!(code, 0);
    let stats: Vec<&Value> = of_type(&lines, "stats");
    let of = |dir: &str| {
        stats
            .iter()
            .find(|s| s["path"].as_str().is_some_and(|p| p.ends_with(dir)))
            .unwrap_or_else(|| panic!("{dir}: {stats:?}"))
    };
    let plain = &of("zk-plain-0")["reclaimable"];
    assert_eq!(plain["cleanup_policy"], "delete");
    assert_eq!(
        (plain["retention_ms_source"].as_str(), plain["retention_bytes_source"].as_str()),
        (Some("kafka-default"), Some("kafka-default"))
    );
    assert_eq!(of("zk-compact-0")["reclaimable"]["cleanup_policy"], "compact");
    let (_, text, _) = crate::util::run(&["stats", "--zookeeper-data", &zk, &part("zk-plain-0")]);
    assert!(
        text.contains("retention.ms=604800000 if Kafka's default holds: server.properties may set log.retention.ms"),
        "{text}"
    );
}

/// A KRaft controller's own metadata dir (fixtures/generate.sh controller):
/// Kafka 4.4's controller starts there, though the topic `small`'s
/// segment.bytes (16 KiB) stops a 4.4 broker's LogManager; the same
/// metadata log under the broker's node id is refused.
#[test]
fn a_controller_dir_checked_as_4_4_starts_and_a_brokers_is_refused() {
    let logs = fixtures().join("controller/logs");
    let (code, lines) = run_json(&["verify", "--kafka-version", "4.4", logs.to_str().unwrap()]);
    assert_eq!(code, 0, "{lines:?}");
    assert!(of_type(&lines, "finding").iter().all(|f| f["kind"] != "start_refused" && f["kind"] != "unclean_shutdown"));
    let plan = of_type(&lines, "start_plan")[0];
    assert_eq!((plan["mode"].as_str(), plan["refusals"].as_u64()), (Some("kraft-controller"), Some(0)));
    let (_, text, _) = crate::util::run(&["verify", "--kafka-version", "4.4", logs.to_str().unwrap()]);
    assert!(text.contains("start, as the controller it is"), "{text}");
    // the broker (node 2) on the same metadata log
    let (_tmp, dir) = test_support::copy_tree(&logs);
    let props = std::fs::read_to_string(dir.join("meta.properties")).unwrap().replace("node.id=1", "node.id=2");
    std::fs::write(dir.join("meta.properties"), props).unwrap();
    let (code, lines) = run_json(&["verify", "--kafka-version", "4.4", dir.to_str().unwrap()]);
    assert_eq!(code, 1);
    let refused: Vec<&Value> =
        of_type(&lines, "finding").into_iter().filter(|f| f["kind"] == "start_refused").collect();
    assert!(refused.iter().any(|f| f["message"].as_str().unwrap().contains("topic small: segment.bytes")), "{lines:?}");
}
