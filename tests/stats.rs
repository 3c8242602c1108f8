//! `logtool stats` against counts computed from `dump --format json` (the
//! jq-equivalent, here in Rust) on every real-Kafka fixture log dir, and the
//! chart files it draws.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

use serde_json::Value;

use crate::util::{fixtures, fixtures_4, of_type, run, run_json};

fn s(p: &Path) -> &str {
    p.to_str().unwrap()
}

fn log_dirs() -> Vec<PathBuf> {
    let mut dirs: Vec<PathBuf> =
        std::fs::read_dir(fixtures()).unwrap().map(|e| e.unwrap().path().join("logs")).filter(|p| p.is_dir()).collect();
    dirs.push(fixtures_4().join("kafka4/logs"));
    dirs.sort();
    dirs
}

/// What a partition holds, counted from dump's lines.
#[derive(Default, Debug)]
struct Counted {
    batches: u64,
    records: u64,
    batch_bytes: u64,
    control_records: u64,
    null_keys: u64,
    tombstones: u64,
    headers: u64,
    records_with_headers: u64,
    keys: BTreeSet<String>,
    min_ts: Option<i64>,
    max_ts: Option<i64>,
    by_producer: BTreeMap<i64, u64>,
}

fn counted(dump: &[Value]) -> BTreeMap<PathBuf, Counted> {
    let mut out: BTreeMap<PathBuf, Counted> = BTreeMap::new();
    // the batch the record lines that follow belong to: (partition, control, counted)
    let mut current: Option<(PathBuf, bool)> = None;
    for l in dump {
        match l["type"].as_str().unwrap() {
            "batch" => {
                let file = PathBuf::from(l["file"].as_str().unwrap());
                if file.extension().is_none_or(|e| e != "log") || l["crc_valid"] != true {
                    current = None;
                    continue;
                }
                let dir = file.parent().unwrap().to_path_buf();
                let c = out.entry(dir.clone()).or_default();
                let count = l["count"].as_u64().unwrap();
                let control = l["is_control"] == true;
                c.batches += 1;
                c.records += count;
                c.batch_bytes += l["size"].as_u64().unwrap();
                if control {
                    c.control_records += count;
                }
                let pid = l["producer_id"].as_i64().unwrap();
                if pid >= 0 {
                    *c.by_producer.entry(pid).or_default() += count;
                }
                current = Some((dir, control));
            }
            "record" => {
                let Some((dir, false)) = &current else { continue };
                let c = out.get_mut(dir).unwrap();
                match l["key"].as_str() {
                    None => c.null_keys += 1,
                    Some(k) => {
                        c.keys.insert(k.to_string());
                    }
                }
                if l["value"].is_null() {
                    c.tombstones += 1;
                }
                let h = l["headers"].as_array().unwrap().len() as u64;
                c.headers += h;
                c.records_with_headers += u64::from(h > 0);
                let ts = l["timestamp"].as_i64().unwrap();
                if ts >= 0 {
                    c.min_ts = Some(c.min_ts.map_or(ts, |m| m.min(ts)));
                    c.max_ts = Some(c.max_ts.map_or(ts, |m| m.max(ts)));
                }
            }
            _ => {}
        }
    }
    out
}

#[test]
fn stats_equal_counts_from_dump() {
    let mut partitions_checked = 0;
    for dir in log_dirs() {
        let (_, dump) = run_json(&["dump", "--deep", "--payload", "base64", s(&dir)]);
        let counted = counted(&dump);
        let (code, lines) = run_json(&["stats", "--top", "1000", s(&dir)]);
        assert!(code <= 1, "{}", dir.display());
        let stats = of_type(&lines, "stats");
        let parts: Vec<&&Value> = stats.iter().filter(|l| l["scope"] == "partition").collect();
        assert!(!parts.is_empty(), "{}", dir.display());
        for st in &parts {
            let path = PathBuf::from(st["path"].as_str().unwrap());
            let empty = Counted::default();
            let c = counted.get(&path).unwrap_or(&empty);
            let at = path.display();
            let n = |k: &str| st[k].as_u64().unwrap_or_else(|| panic!("{at}: {k}"));
            assert_eq!(n("batches"), c.batches, "{at}: batches");
            assert_eq!(n("records"), c.records, "{at}: records");
            assert_eq!(n("batch_bytes"), c.batch_bytes, "{at}: batch bytes");
            assert_eq!(n("control_records"), c.control_records, "{at}: control records");
            assert_eq!(n("null_keys"), c.null_keys, "{at}: null keys");
            assert_eq!(n("tombstones"), c.tombstones, "{at}: tombstones");
            assert_eq!(n("headers"), c.headers, "{at}: headers");
            assert_eq!(n("records_with_headers"), c.records_with_headers, "{at}: records with headers");
            assert_eq!(st["min_timestamp"].as_i64(), c.min_ts, "{at}: min timestamp");
            assert_eq!(st["max_timestamp"].as_i64(), c.max_ts, "{at}: max timestamp");
            // the estimate: within 3% (or 2) of the exact count
            let exact = c.keys.len() as f64;
            let est = n("distinct_keys") as f64;
            assert!((est - exact).abs() <= (exact * 0.03).max(2.0), "{at}: ≈{est} distinct keys, exactly {exact}");
            let producers: BTreeMap<i64, u64> = st["top_producers"]
                .as_array()
                .unwrap()
                .iter()
                .map(|p| (p["producer_id"].as_i64().unwrap(), p["records"].as_u64().unwrap()))
                .collect();
            assert_eq!(producers, c.by_producer, "{at}: records per producer");
            assert_eq!(n("producer_count"), c.by_producer.len() as u64, "{at}: producers");
            // the histograms count every batch
            assert_eq!(st["batch_size"]["count"].as_u64(), Some(c.batches), "{at}");
            assert_eq!(st["batch_size"]["sum"].as_u64(), Some(c.batch_bytes), "{at}");
            let in_buckets: u64 = st["records_per_batch"]["buckets"]
                .as_array()
                .unwrap()
                .iter()
                .map(|b| b["count"].as_u64().unwrap())
                .sum();
            assert_eq!(in_buckets, c.batches, "{at}");
            let timeline: u64 = st["timeline"]["records"].as_array().unwrap().iter().map(|v| v.as_u64().unwrap()).sum();
            assert!(timeline <= c.records, "{at}");
            partitions_checked += 1;
        }
        // the log dir's line is the sum of its partitions'
        let sum = stats.iter().find(|l| l["scope"] == "log_dir").unwrap();
        for k in ["batches", "records", "batch_bytes", "tombstones", "null_keys", "aborted_records"] {
            let total: u64 = parts.iter().map(|p| p[k].as_u64().unwrap()).sum();
            assert_eq!(sum[k].as_u64(), Some(total), "{}: {k}", dir.display());
        }
    }
    assert!(partitions_checked >= 40, "{partitions_checked}");
}

/// Aborted records: what `dump --aborted` (from the .txnindex files) prints.
#[test]
fn aborted_records_are_what_the_txn_indexes_list() {
    let dir = fixtures().join("clean/logs");
    let (_, lines) = run_json(&["stats", s(&dir)]);
    let (_, aborted) = run_json(&["dump", "--deep", "--aborted", s(&dir)]);
    let mut from_dump: BTreeMap<String, u64> = BTreeMap::new();
    for r in of_type(&aborted, "record") {
        let dir = Path::new(r["file"].as_str().unwrap()).parent().unwrap().display().to_string();
        *from_dump.entry(dir).or_default() += 1;
    }
    assert!(from_dump.values().sum::<u64>() > 0);
    for st in of_type(&lines, "stats").iter().filter(|l| l["scope"] == "partition") {
        let path = st["path"].as_str().unwrap();
        assert_eq!(st["aborted_records"].as_u64(), Some(from_dump.get(path).copied().unwrap_or(0)), "{path}");
    }
}

#[test]
fn the_table_has_a_row_per_partition_and_charts_under_it() {
    let dir = fixtures().join("clean/logs");
    let (code, out, _) = run(&["stats", s(&dir)]);
    assert_eq!(code, 0, "{out}");
    for want in
        ["RECORDS", "KEYS≈", "txn-1", "batch sizes", "records per batch", "records over time", "reclaimable now"]
    {
        assert!(out.contains(want), "missing {want:?} in\n{out}");
    }
    // one partition: its own numbers under the table
    let (_, out, _) = run(&["stats", "--no-charts", s(&dir.join("txn-1"))]);
    assert!(!out.contains("batch sizes"), "{out}");
}

#[test]
fn charts_are_real_png_and_svg() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = fixtures().join("clean/logs");
    let png = tmp.path().join("stats.png");
    let svg = tmp.path().join("stats.svg");
    for f in [&png, &svg] {
        let (code, _, err) = run(&["stats", "--chart", s(f), s(&dir)]);
        assert_eq!(code, 0, "{err}");
    }
    let bytes = std::fs::read(&png).unwrap();
    assert!(bytes.starts_with(b"\x89PNG\r\n\x1a\n"), "not a PNG");
    // a blank 1600x1100 PNG compresses to a few KiB; charts with text do not
    assert!(bytes.len() > 30_000, "{} bytes", bytes.len());
    let text = std::fs::read_to_string(&svg).unwrap();
    assert!(text.starts_with("<svg"), "not an SVG");
    for want in ["share of bytes by producer", "batch sizes", "records/s", "<polygon", "<rect"] {
        assert!(text.contains(want), "missing {want:?} in the SVG");
    }
    let (code, _, err) = run(&["stats", "--chart", s(&tmp.path().join("x.gif")), s(&dir)]);
    assert_eq!(code, 2);
    assert!(err.contains(".png or .svg"), "{err}");
}

/// (bytes, records) by partition dir name.
type Reclaims = BTreeMap<String, (u64, u64)>;

/// Per partition (its dir name): what `stats` says one cleaner pass would
/// reclaim, and what `compact`'s plan says, as (bytes, records).
fn compaction_figures(dir: &Path) -> (Reclaims, Reclaims) {
    let name = |p: &str| Path::new(p).file_name().unwrap().to_string_lossy().into_owned();
    let (_, lines) = run_json(&["stats", s(dir)]);
    let mut stats = BTreeMap::new();
    for v in of_type(&lines, "stats").into_iter().filter(|v| v["scope"] == "partition") {
        let r = &v["reclaimable"];
        if let (Some(b), Some(n)) =
            (r["compaction_bytes_reclaimable"].as_u64(), r["compaction_records_reclaimable"].as_u64())
        {
            stats.insert(name(v["path"].as_str().unwrap()), (b, n));
        }
    }
    let (_, lines) = run_json(&["compact", s(dir)]);
    let mut plan = BTreeMap::new();
    for v in of_type(&lines, "compaction").into_iter().filter(|v| v["skipped"].is_null()) {
        let n = |k: &str| v[k].as_u64().unwrap();
        let figures = (n("bytes_before") - n("bytes_after"), n("records_before") - n("records_after"));
        plan.insert(name(v["partition"].as_str().unwrap()), figures);
    }
    (stats, plan)
}

#[test]
fn the_compaction_stats_reclaim_is_compacts_plan() {
    // every fixture, and one whose compacted partition is dirty again
    let copy = tempfile::tempdir().unwrap();
    let dirty = copy.path().join("logs");
    crate::util::copy_dir(&fixtures().join("clean/logs"), &dirty);
    std::fs::write(dirty.join("cleaner-offset-checkpoint"), "0\n0\n").unwrap();
    let mut cleaned = 0;
    for dir in log_dirs().into_iter().chain([dirty]) {
        let (mut stats, plan) = compaction_figures(&dir);
        // a compacted partition with nothing dirty: stats says a pass
        // removes 0, compact skips it (no plan row)
        stats.retain(|p, figures| *figures != (0, 0) || plan.contains_key(p));
        assert_eq!(stats, plan, "{}", dir.display());
        cleaned += plan.len();
    }
    assert!(cleaned > 0, "no fixture had anything for a cleaner pass");
}

/// `stats` of a compacted partition with nothing dirty says a cleaner pass
/// removes nothing, as `compact` does, before the records superseded in
/// all. Before, it said "compaction 17 superseded records" as what was
/// reclaimable, while `compact` had nothing to clean.
#[test]
fn stats_and_compact_agree_on_a_partition_with_nothing_dirty() {
    let dir = fixtures().join("clean/logs/__consumer_offsets-0");
    let (_, out, _) = run(&["stats", s(&dir)]);
    assert!(out.contains("a cleaner pass 0 B in 0 records"), "{out}");
    let (_, lines) = run_json(&["compact", s(&dir)]);
    let row = &of_type(&lines, "compaction")[0];
    assert!(row["skipped"].as_str().unwrap().contains("nothing to clean"), "{row}");
}

/// A tiered partition (fixtures/kafka-3.9.1/tiered): the log start Kafka
/// keeps (below the local data), the local log start, the topic's local
/// retention, and nothing reclaimable on the dir Kafka's local retention
/// left (`tiered-txn`'s local.retention.bytes is 1, but its local segments
/// are not in remote storage).
#[test]
fn tiered_partitions_show_both_log_starts_and_local_retention() {
    let logs = fixtures().join("tiered/logs");
    let (code, lines) = run_json(&["stats", s(&logs.join("tiered-0")), s(&logs.join("tiered-txn-0"))]);
    assert_eq!(code, 0);
    let parts: Vec<&Value> = lines.iter().filter(|l| l["scope"] == "partition").collect();
    let got: Vec<(i64, i64, i64, u64)> = parts
        .iter()
        .map(|p| {
            let r = &p["reclaimable"];
            (
                p["log_start_offset"].as_i64().unwrap(),
                p["local_log_start_offset"].as_i64().unwrap(),
                r["local_retention_bytes"].as_i64().unwrap(),
                r["retention_bytes_reclaimable"].as_u64().unwrap(),
            )
        })
        .collect();
    assert_eq!(got, [(100, 292, 20000, 0), (0, 193, 1, 0)]);
}
