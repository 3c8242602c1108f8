//! `logtool verify` on real-Kafka fixtures: clean ones verify clean; real
//! corruptions, made by [`Damaged`] in a temp dir, are each found with the
//! right kind and position.

use std::path::{Path, PathBuf};

use serde_json::Value;

use crate::util::{copy_dir, copy_tree, fix_crc, fixtures, of_type, run, run_json};

/// A copy of the clean fixture log dir to damage.
struct Damaged {
    _tmp: tempfile::TempDir,
    logs: PathBuf,
}

/// A batch of a segment, as `dump` reports it.
#[derive(Clone, Copy, Debug)]
struct Batch {
    position: u64,
    size: u64,
    base_offset: i64,
}

impl Damaged {
    fn new() -> Damaged {
        let (tmp, logs) = copy_tree(&fixtures().join("clean").join("logs"));
        Damaged { _tmp: tmp, logs }
    }

    fn path(&self, rel: &str) -> PathBuf {
        self.logs.join(rel)
    }

    fn batches(&self, rel: &str) -> Vec<Batch> {
        let (_, lines) = run_json(&["dump", self.path(rel).to_str().unwrap()]);
        of_type(&lines, "batch")
            .iter()
            .map(|b| Batch {
                position: b["position"].as_u64().unwrap(),
                size: b["size"].as_u64().unwrap(),
                base_offset: b["base_offset"].as_i64().unwrap(),
            })
            .collect()
    }

    fn edit(&self, rel: &str, f: impl FnOnce(&mut Vec<u8>)) {
        let p = self.path(rel);
        let mut bytes = std::fs::read(&p).unwrap();
        f(&mut bytes);
        std::fs::write(&p, bytes).unwrap();
    }

    fn edit_text(&self, rel: &str, f: impl FnOnce(String) -> String) {
        let p = self.path(rel);
        let text = std::fs::read_to_string(&p).unwrap();
        std::fs::write(&p, f(text)).unwrap();
    }

    /// Verify the whole log dir; returns the exit code and the findings.
    fn verify(&self, extra: &[&str]) -> (i32, Vec<Value>) {
        let mut args = vec!["verify"];
        args.extend_from_slice(extra);
        args.push(self.logs.to_str().unwrap());
        let (code, lines) = run_json(&args);
        (code, of_type(&lines, "finding").into_iter().cloned().collect())
    }
}

/// A finding as (file relative to the log dir, position, end position, offset).
type Where = (String, Option<u64>, Option<u64>, Option<i64>);

/// The findings of `kind`.
fn found(findings: &[Value], kind: &str, logs: &Path) -> Vec<Where> {
    findings
        .iter()
        .filter(|f| f["kind"] == kind)
        .map(|f| {
            let file = PathBuf::from(f["file"].as_str().unwrap());
            let rel = file
                .strip_prefix(logs)
                .map(|p| p.to_str().unwrap().to_string())
                .unwrap_or_else(|_| file.display().to_string());
            (rel, f["position"].as_u64(), f["end_position"].as_u64(), f["offset"].as_i64())
        })
        .collect()
}

fn at_least<'a>(findings: &'a [Value], severity: &str) -> Vec<&'a Value> {
    let rank = |s: &str| ["info", "warning", "error"].iter().position(|x| *x == s).unwrap();
    findings.iter().filter(|f| rank(f["severity"].as_str().unwrap()) >= rank(severity)).collect()
}

const SEG0: &str = "plain-0/00000000000000000000.log";

/// Record offsets `dump --deep` prints for a segment.
fn record_offsets(path: &Path) -> Vec<i64> {
    let (_, lines) = run_json(&["dump", "--deep", "--payload", "none", path.to_str().unwrap()]);
    of_type(&lines, "record").iter().map(|r| r["offset"].as_i64().unwrap()).collect()
}

/// Every header field of a batch in the middle of a segment, damaged: verify
/// names the field and the batch's bytes, dump reports the same range, and
/// every intact batch after it is still read (its records are dumped).
#[test]
fn every_header_field_flipped_is_found_and_reading_goes_on() {
    let clean = Damaged::new();
    let batches = clean.batches(SEG0);
    let k = batches.len() / 2;
    let (b, next) = (batches[k], batches[k + 1]);
    let after: Vec<i64> = record_offsets(&clean.path(SEG0)).into_iter().filter(|&o| o >= next.base_offset).collect();
    let len_at = (b.position + 8) as usize;
    let set_len = move |x: &mut Vec<u8>, v: i32| x[len_at..len_at + 4].copy_from_slice(&v.to_be_bytes());
    let old_len = (b.size - 12) as i32;
    let whole = (b.position, b.position + b.size);
    let to_next = (b.position, next.position);
    type Edit = Box<dyn Fn(&mut Vec<u8>)>;
    let at = |rel: u64, x: u8| -> Edit { Box::new(move |v: &mut Vec<u8>| v[(b.position + rel) as usize] ^= x) };
    let cases: Vec<(&str, Edit, &str, (u64, u64))> = vec![
        ("baseOffset, a high byte", at(1, 0xff), "base_offset_invalid", whole),
        ("baseOffset, the low byte", at(7, 0xff), "base_offset_invalid", whole),
        ("batchLength larger", Box::new(move |v| set_len(v, old_len + 300)), "batch_length_invalid", to_next),
        ("batchLength smaller", Box::new(move |v| set_len(v, old_len - 16)), "batch_length_invalid", to_next),
        ("batchLength 2^31-1", Box::new(move |v| set_len(v, i32::MAX)), "batch_length_invalid", to_next),
        ("partitionLeaderEpoch", at(12, 0x80), "partition_leader_epoch_invalid", whole),
        ("magic", at(16, 0xff), "magic_invalid", whole),
        ("crc", at(18, 0x01), "crc_mismatch", whole),
        ("attributes", at(22, 0x08), "crc_mismatch", whole),
        ("recordCount", at(60, 0x01), "crc_mismatch", whole),
        ("a record byte", at(70, 0xff), "crc_mismatch", whole),
    ];
    for (what, edit, kind, (start, end)) in cases {
        let d = Damaged::new();
        d.edit(SEG0, |x| edit(x));
        let (code, f) = d.verify(&[]);
        assert_eq!(code, 1, "{what}");
        assert_eq!(
            found(&f, kind, &d.logs),
            vec![(SEG0.into(), Some(start), Some(end), found(&f, kind, &d.logs)[0].3)],
            "{what}: {f:#?}"
        );
        // nothing else in the segment at warning or above, but on that batch
        let others: Vec<&Value> = at_least(&f, "warning")
            .into_iter()
            .filter(|x| x["file"].as_str().unwrap().ends_with(SEG0))
            .filter(|x| !x["position"].as_u64().is_some_and(|p| p >= start && p < end))
            .collect();
        assert!(others.is_empty(), "{what}: {others:#?}");
        // dump reports the same range, and reads every intact batch after it
        let (dcode, lines) = run_json(&["dump", d.path(SEG0).to_str().unwrap()]);
        assert_eq!(dcode, 1, "{what}");
        let errors: Vec<(u64, u64)> = of_type(&lines, "error")
            .iter()
            .filter(|e| e["end_position"].is_u64())
            .map(|e| (e["position"].as_u64().unwrap(), e["end_position"].as_u64().unwrap()))
            .collect();
        assert!(errors.contains(&(start, end)), "{what}: dump reports {errors:?}");
        for (s, e) in &errors {
            assert!(s < e, "{what}: a backwards range {s}..{e}");
        }
        let got = record_offsets(&d.path(SEG0));
        for o in &after {
            assert!(got.contains(o), "{what}: record {o} after the damaged batch is not dumped");
        }
    }
}

#[test]
fn untouched_fixtures_verify_clean() {
    let mut dirs: Vec<PathBuf> = ["clean", "sigkill", "legacy", "timestamps", "healthy", "incident", "tiered"]
        .iter()
        .map(|s| fixtures().join(s).join("logs"))
        .collect();
    for state in ["before", "after"] {
        for broker in ["broker-2", "broker-3"] {
            dirs.push(fixtures().join("failover").join(state).join(broker).join("div-0"));
        }
    }
    dirs.extend(crate::util::tiered_dirs().into_iter().skip(1).map(|d| d.join("logs")));
    for logs in dirs {
        let scenario = logs.display().to_string();
        let mut records = Vec::new();
        // Kafka's shallow iteration (the default), and the full walk
        for extra in [&[][..], &["--deep"][..]] {
            let (code, lines) =
                run_json(&[&["verify", "--fail-on", "warning"], extra, &[logs.to_str().unwrap()]].concat());
            let findings: Vec<Value> = of_type(&lines, "finding").into_iter().cloned().collect();
            assert!(at_least(&findings, "warning").is_empty(), "{scenario}: {:#?}", at_least(&findings, "warning"));
            assert_eq!(code, 0, "{scenario} {extra:?}");
            let summary = lines.last().unwrap();
            assert_eq!(summary["type"], "summary");
            assert!(summary["records"].as_u64().unwrap() > 0);
            records.push(summary["records"].clone());
        }
        assert_eq!(records[0], records[1], "{scenario}: the records counted from the headers");
    }
}

#[test]
fn a_sigkilled_log_dir_shows_crash_artefacts_not_corruption() {
    let logs = fixtures().join("sigkill").join("logs");
    let (code, lines) = run_json(&["verify", logs.to_str().unwrap()]);
    assert_eq!(code, 0);
    let findings: Vec<Value> = of_type(&lines, "finding").into_iter().cloned().collect();
    assert!(at_least(&findings, "error").is_empty(), "{findings:#?}");
    let kinds: Vec<&str> = findings.iter().map(|f| f["kind"].as_str().unwrap()).collect();
    assert!(kinds.contains(&"index_preallocated"), "{kinds:?}");
    assert!(kinds.contains(&"unclean_shutdown"), "{kinds:?}");
    // a torn tail, if the kill left one, is a warning on the active segment
    for f in findings.iter().filter(|f| f["kind"] == "truncated_tail" || f["kind"] == "zeroed_tail") {
        assert_eq!(f["severity"], "warning");
    }
}

/// A Kafka 4.x broker killed with SIGKILL mid-write (issue 50: the
/// `sigkill` scenario on 4.4.0, committed as its log dir; the interop
/// suite's fresh 4.3.1 and 4.4.0 data holds its metadata log dir too): a
/// kill loses nothing the page cache holds, so nothing at warning or
/// above, and the start plan recovers what the recovery point leaves.
#[test]
fn a_sigkilled_kafka_4_dir_has_no_false_alarm() {
    let mut checked = 0;
    for base in crate::util::fixtures_4x() {
        let scenario = base.join("sigkill");
        if !scenario.exists() {
            continue; // (the committed 4.3.1 dir has no sigkill)
        }
        for dir in [scenario.join("logs"), scenario.join("metadata")] {
            if !dir.exists() {
                continue; // (the committed one holds the log dir only)
            }
            let (code, lines) = run_json(&["verify", "--fail-on", "warning", dir.to_str().unwrap()]);
            let findings: Vec<Value> = of_type(&lines, "finding").into_iter().cloned().collect();
            assert!(at_least(&findings, "warning").is_empty(), "{}: {:#?}", dir.display(), findings);
            assert_eq!(code, 0, "{}", dir.display());
            assert!(findings.iter().any(|f| f["kind"] == "unclean_shutdown"), "{}: {findings:#?}", dir.display());
            checked += 1;
        }
        let plan = run_json(&["verify", scenario.join("logs").to_str().unwrap()]).1;
        assert!(of_type(&plan, "start_plan")[0]["partitions_recovered"].as_u64().unwrap() > 0);
    }
    assert!(checked > 0, "no Kafka 4.x sigkill dir in {:?}", crate::util::fixtures_4x());
}

#[test]
fn a_flipped_payload_byte_is_a_crc_mismatch_of_that_batch() {
    let d = Damaged::new();
    let b = d.batches(SEG0)[3];
    d.edit(SEG0, |x| x[(b.position + 70) as usize] ^= 0x01);
    let (code, f) = d.verify(&[]);
    assert_eq!(code, 1);
    assert_eq!(
        found(&f, "crc_mismatch", &d.logs),
        vec![(SEG0.into(), Some(b.position), Some(b.position + b.size), Some(b.base_offset))]
    );
}

#[test]
fn a_flipped_length_byte_is_a_wrong_batch_length_up_to_the_next_batch() {
    let d = Damaged::new();
    let batches = d.batches(SEG0);
    let (b, next) = (batches[3], batches[4]);
    d.edit(SEG0, |x| x[(b.position + 9) as usize] ^= 0x40);
    let (code, f) = d.verify(&[]);
    assert_eq!(code, 1);
    assert_eq!(
        found(&f, "batch_length_invalid", &d.logs),
        vec![(SEG0.into(), Some(b.position), Some(next.position), None)]
    );
    // reading resumed: nothing else in that segment is reported
    assert!(found(&f, "crc_mismatch", &d.logs).is_empty());
    assert!(found(&f, "corrupt", &d.logs).is_empty());
}

#[test]
fn a_flipped_header_byte_is_found() {
    let d = Damaged::new();
    let batches = d.batches(SEG0);
    // the magic byte (not covered by the CRC): framing damage
    let b = batches[2];
    d.edit(SEG0, |x| x[(b.position + 16) as usize] = 7);
    // a producer id byte (covered by the CRC)
    let c = batches[5];
    d.edit(SEG0, |x| x[(c.position + 45) as usize] ^= 0x10);
    let (_, f) = d.verify(&[]);
    assert_eq!(
        found(&f, "magic_invalid", &d.logs),
        vec![(SEG0.into(), Some(b.position), Some(batches[3].position), None)]
    );
    assert_eq!(
        found(&f, "crc_mismatch", &d.logs),
        vec![(SEG0.into(), Some(c.position), Some(c.position + c.size), Some(c.base_offset))]
    );
}

#[test]
fn a_torn_tail_is_a_warning_and_the_high_watermark_is_then_too_high() {
    let d = Damaged::new();
    let last = "plain-0/00000000000000000197.log";
    let batches = d.batches(last);
    let b = *batches.last().unwrap();
    let cut = b.position + b.size / 2;
    d.edit(last, |x| x.truncate(cut as usize));
    let (code, f) = d.verify(&[]);
    assert_eq!(found(&f, "truncated_tail", &d.logs), vec![(last.into(), Some(b.position), Some(cut), None)]);
    assert_eq!(f.iter().find(|x| x["kind"] == "truncated_tail").unwrap()["severity"], "warning");
    // the records cut away were below the checkpointed high watermark
    let hw = found(&f, "high_watermark_above_log_end", &d.logs);
    assert_eq!(hw.len(), 1, "{f:#?}");
    assert_eq!(code, 1);
    // the same tail in a rolled segment is an error
    let d = Damaged::new();
    let b = *d.batches(SEG0).last().unwrap();
    d.edit(SEG0, |x| x.truncate((b.position + 30) as usize));
    let (_, f) = d.verify(&[]);
    assert_eq!(
        found(&f, "truncated_segment", &d.logs),
        vec![(SEG0.into(), Some(b.position), Some(b.position + 30), None)]
    );
}

#[test]
fn a_zeroed_region_is_reported_with_its_range() {
    let d = Damaged::new();
    let batches = d.batches(SEG0);
    let (b, c) = (batches[2], batches[3]);
    d.edit(SEG0, |x| x[b.position as usize..(c.position + c.size) as usize].fill(0));
    let (code, f) = d.verify(&[]);
    assert_eq!(code, 1);
    assert_eq!(
        found(&f, "zeroed_region", &d.logs),
        vec![(SEG0.into(), Some(b.position), Some(c.position + c.size), None)]
    );
}

#[test]
fn swapped_segments_break_offset_order() {
    let d = Damaged::new();
    let (a, b) = ("plain-0/00000000000000000000.log", "plain-0/00000000000000000068.log");
    let (na, nb) = (d.batches(a).len(), d.batches(b).len());
    let (x, y) = (std::fs::read(d.path(a)).unwrap(), std::fs::read(d.path(b)).unwrap());
    std::fs::write(d.path(a), &y).unwrap();
    std::fs::write(d.path(b), &x).unwrap();
    let (code, f) = d.verify(&[]);
    assert_eq!(code, 1);
    // every batch of both lies outside its segment's offsets
    let bad = found(&f, "base_offset_invalid", &d.logs);
    for (seg, n) in [(a, nb), (b, na)] {
        assert_eq!(bad.iter().filter(|(file, ..)| file == seg).count(), n, "{f:#?}");
    }
}

#[test]
fn a_bad_index_entry_is_found_at_its_slot() {
    let d = Damaged::new();
    let idx = "plain-0/00000000000000000000.index";
    d.edit(idx, |x| {
        let pos = i32::from_be_bytes(x[12..16].try_into().unwrap());
        x[12..16].copy_from_slice(&(pos + 5).to_be_bytes());
    });
    let (code, f) = d.verify(&[]);
    assert_eq!(code, 1);
    let m = found(&f, "index_entry_mismatch", &d.logs);
    assert_eq!(m.len(), 1, "{f:#?}");
    assert_eq!((m[0].0.as_str(), m[0].1), (idx, Some(8)));
}

#[test]
fn index_entries_out_of_order_are_reported_as_such_and_only_they() {
    let idx = "plain-0/00000000000000000000.index";
    let entry = |rel: i32, pos: i32| [rel.to_be_bytes(), pos.to_be_bytes()].concat();
    // a wild entry in slot 0 and one past everything in the last slot
    let d = Damaged::new();
    let n = std::fs::metadata(d.path(idx)).unwrap().len() as usize / 8;
    assert!(n >= 4);
    d.edit(idx, |x| {
        x[0..8].copy_from_slice(&entry(20, 10_000_000));
        let last = x.len() - 8;
        x[last..].copy_from_slice(&entry(i32::MAX, i32::MAX));
    });
    let (_, f) = d.verify(&[]);
    let idx_findings: Vec<&Value> = f.iter().filter(|x| x["file"].as_str().unwrap().ends_with(idx)).collect();
    assert_eq!(
        found(&f, "index_not_monotonic", &d.logs),
        vec![(idx.into(), Some(0), None, Some(20))],
        "{idx_findings:#?}"
    );
    let beyond = found(&f, "index_beyond_log_end", &d.logs);
    assert_eq!(beyond, vec![(idx.into(), Some((n as u64 - 1) * 8), None, Some(i32::MAX as i64))], "{idx_findings:#?}");
    assert!(beyond_message(&f).contains("1 offset index entry"), "{idx_findings:#?}");
    assert!(found(&f, "index_entry_mismatch", &d.logs).is_empty(), "{idx_findings:#?}");
    // two entries swapped: one is out of order, the other still points at its batch
    let d = Damaged::new();
    d.edit(idx, |x| {
        let (a, b) = (x[8..16].to_vec(), x[16..24].to_vec());
        x[8..16].copy_from_slice(&b);
        x[16..24].copy_from_slice(&a);
    });
    let (_, f) = d.verify(&[]);
    let idx_findings: Vec<&Value> = f.iter().filter(|x| x["file"].as_str().unwrap().ends_with(idx)).collect();
    assert_eq!(idx_findings.len(), 1, "{idx_findings:#?}");
    assert_eq!(idx_findings[0]["kind"], "index_not_monotonic");
}

fn beyond_message(f: &[Value]) -> String {
    f.iter()
        .find(|x| x["kind"] == "index_beyond_log_end")
        .map(|x| x["message"].as_str().unwrap().to_string())
        .unwrap_or_default()
}

#[test]
fn files_given_by_name() {
    let d = Damaged::new();
    // not a Kafka file: a usage error
    let other = d.logs.join("notes.txt");
    std::fs::write(&other, b"hello").unwrap();
    let (code, lines) = run_json(&["verify", other.to_str().unwrap()]);
    assert_eq!(code, 2, "{lines:?}");
    assert_eq!(of_type(&lines, "finding")[0]["kind"], "not_a_kafka_file");
    let (code, _) = run_json(&["dump", other.to_str().unwrap()]);
    assert_eq!(code, 2);
    // a segment under another name is read as one, and logtool says so
    let copy = d.logs.join("copy.log");
    std::fs::copy(d.path(SEG0), &copy).unwrap();
    let (code, lines) = run_json(&["verify", copy.to_str().unwrap()]);
    assert_eq!(code, 0, "{lines:?}");
    let f = of_type(&lines, "finding");
    assert!(f.iter().any(|x| x["kind"] == "note" && x["message"].as_str().unwrap().contains("base offset")), "{f:?}");
    let (code, lines) = run_json(&["dump", "--deep", copy.to_str().unwrap()]);
    assert_eq!(code, 0);
    assert!(!of_type(&lines, "record").is_empty());
    assert!(!of_type(&lines, "note").is_empty());
    // dump exits 1 on damage it reports
    d.edit(SEG0, |x| x[100] ^= 0xff);
    let (code, _) = run_json(&["dump", d.path(SEG0).to_str().unwrap()]);
    assert_eq!(code, 1);
}

#[test]
fn a_time_index_going_backwards_is_found() {
    let d = Damaged::new();
    let ti = "plain-0/00000000000000000135.timeindex";
    d.edit(ti, |x| {
        assert!(x.len() >= 24, "needs two entries");
        let t0 = i64::from_be_bytes(x[0..8].try_into().unwrap());
        x[12..20].copy_from_slice(&(t0 - 1000).to_be_bytes());
    });
    let (code, f) = d.verify(&[]);
    assert_eq!(code, 1);
    let m = found(&f, "index_not_monotonic", &d.logs);
    assert_eq!(m.len(), 1, "{f:#?}");
    assert_eq!((m[0].0.as_str(), m[0].1), (ti, Some(12)));
}

#[test]
fn checkpoints_are_checked_against_the_log() {
    let d = Damaged::new();
    d.edit_text("replication-offset-checkpoint", |t| {
        t.lines()
            .map(|l| if l.starts_with("plain 0 ") { "plain 0 99999".to_string() } else { l.to_string() })
            .collect::<Vec<_>>()
            .join("\n")
            + "\n"
    });
    d.edit_text("plain-0/leader-epoch-checkpoint", |t| {
        // move epoch 2's start five offsets later than the batches say
        let mut lines: Vec<String> = t.lines().map(str::to_string).collect();
        let last = lines.len() - 1;
        let (e, o) = lines[last].split_once(' ').unwrap();
        lines[last] = format!("{e} {}", o.parse::<i64>().unwrap() + 5);
        lines.join("\n") + "\n"
    });
    let (code, f) = d.verify(&[]);
    assert_eq!(code, 1);
    let hw = found(&f, "high_watermark_above_log_end", &d.logs);
    assert_eq!(hw.len(), 1);
    assert_eq!((hw[0].0.as_str(), hw[0].3), ("replication-offset-checkpoint", Some(99999)));
    // reported on the first batch of epoch 2
    let e = found(&f, "leader_epoch_mismatch", &d.logs);
    assert_eq!(e.len(), 1, "{f:#?}");
    assert!(e[0].0.starts_with("plain-0/") && e[0].0.ends_with(".log"), "{e:?}");
    // a malformed checkpoint takes a broker's log dir offline
    d.edit_text("recovery-point-offset-checkpoint", |t| t.replacen("plain 0", "plain x", 1));
    let (_, f) = d.verify(&[]);
    assert_eq!(found(&f, "checkpoint_malformed", &d.logs).len(), 1);
}

#[test]
fn a_missing_abort_entry_in_the_transaction_index_is_an_error() {
    let d = Damaged::new();
    let txn = "txn-1/00000000000000000000.txnindex";
    d.edit(txn, |x| x.truncate(x.len() - 34));
    let (code, f) = d.verify(&[]);
    assert_eq!(code, 1);
    assert_eq!(found(&f, "txn_index_missing_entry", &d.logs).len(), 1, "{f:#?}");
}

#[test]
fn leftovers_and_foreign_directories() {
    let d = Damaged::new();
    std::fs::write(d.path("plain-0/00000000000000000068.log.swap"), b"").unwrap();
    std::fs::create_dir(d.path("quarantine")).unwrap();
    let (code, f) = d.verify(&["--fail-on", "error"]);
    assert_eq!(found(&f, "leftover_swap", &d.logs).len(), 1);
    assert_eq!(found(&f, "foreign_directory", &d.logs), vec![("quarantine".into(), None, None, None)]);
    assert_eq!(code, 1);
}

/// Tiered storage's `remote-log-index-cache` is Kafka's own directory
/// (`LogManager.loadLogs` skips `RemoteIndexCache.DIR_NAME`): said as info,
/// never a foreign directory; dump passes over it with a note (issue 51).
#[test]
fn the_remote_log_index_cache_is_kafkas() {
    let d = Damaged::new();
    let cache = d.path("remote-log-index-cache");
    std::fs::create_dir(&cache).unwrap();
    std::fs::write(cache.join("00000000000000000000_VAAv1XyJQDWpyR4R0Q4fSg.index"), b"").unwrap();
    let (code, f) = d.verify(&["--fail-on", "warning"]);
    assert_eq!(code, 0, "{f:#?}");
    assert!(found(&f, "foreign_directory", &d.logs).is_empty());
    assert_eq!(found(&f, "remote_index_cache", &d.logs).len(), 1, "{f:#?}");
    let (code, out, err) = run(&["dump", d.logs.to_str().unwrap()]);
    assert_eq!(code, 0, "{out}{err}");
    assert!(out.contains("remote-log-index-cache") && !out.contains("not a partition (Kafka 3.9 refuses"), "{out}");
}

#[test]
fn exit_codes_follow_fail_on() {
    let d = Damaged::new();
    let last = "plain-0/00000000000000000197.log";
    let b = *d.batches(last).last().unwrap();
    // records cut below the high watermark or the recovery point would also
    // be errors: lower both first, as if the cut batch was never flushed
    for cp in ["replication-offset-checkpoint", "recovery-point-offset-checkpoint"] {
        d.edit_text(cp, |t| {
            t.lines()
                .map(|l| if l.starts_with("plain 0 ") { "plain 0 1".to_string() } else { l.to_string() })
                .collect::<Vec<_>>()
                .join("\n")
                + "\n"
        });
    }
    d.edit(last, |x| x.truncate((b.position + 10) as usize));
    assert_eq!(d.verify(&[]).0, 0, "a warning does not fail by default");
    assert_eq!(d.verify(&["--fail-on", "warning"]).0, 1);
    let (code, _, _) = run(&["verify", "/nonexistent/logtool"]);
    assert_eq!(code, 2);
}

#[cfg(target_os = "linux")]
#[test]
fn a_locked_log_dir_is_reported_and_still_read() {
    let d = Damaged::new();
    let lock = std::fs::OpenOptions::new().create(true).truncate(false).write(true).open(d.path(".lock")).unwrap();
    lock.lock().unwrap();
    let (code, f) = d.verify(&[]);
    let l = found(&f, "log_dir_locked", &d.logs);
    assert_eq!(l.len(), 1, "{f:#?}");
    assert_eq!(code, 0);
    // (explicitly: a child forked by another test thread shares the lock
    // until it execs)
    lock.unlock().unwrap();
    drop(lock);
    let (_, f) = d.verify(&[]);
    assert!(found(&f, "log_dir_locked", &d.logs).is_empty());
}

#[test]
fn the_table_says_what_and_where() {
    let d = Damaged::new();
    let b = d.batches(SEG0)[1];
    d.edit(SEG0, |x| x[(b.position + 80) as usize] ^= 0xff);
    let (code, out, _) = run(&["verify", d.logs.to_str().unwrap()]);
    assert_eq!(code, 1);
    for want in [
        "crc_mismatch",
        "plain-0/00000000000000000000.log",
        // first-last, both included
        &format!("{}-{}", b.position, b.position + b.size - 1),
        "1 error(s)",
    ] {
        assert!(out.contains(want), "missing {want:?} in\n{out}");
    }
}

#[test]
fn forged_batch_headers_are_checked_against_their_records() {
    // codec-none-0: idempotent producer, so sequences are checked too
    let d = Damaged::new();
    let seg = "codec-none-0/00000000000000000000.log";
    let b = d.batches(seg);
    d.edit(seg, |x| {
        // recordsCount one too many (the records run out)
        let p = b[1].position as usize;
        let n = i32::from_be_bytes(x[p + 57..p + 61].try_into().unwrap());
        x[p + 57..p + 61].copy_from_slice(&(n + 1).to_be_bytes());
        fix_crc(&mut x[b[1].position as usize..(b[1].position + b[1].size) as usize]);
        // maxTimestamp off by one second
        let p = b[2].position as usize;
        let t = i64::from_be_bytes(x[p + 35..p + 43].try_into().unwrap());
        x[p + 35..p + 43].copy_from_slice(&(t + 1000).to_be_bytes());
        fix_crc(&mut x[b[2].position as usize..(b[2].position + b[2].size) as usize]);
        // baseSequence jumps by 5
        let p = b[4].position as usize;
        let s = i32::from_be_bytes(x[p + 53..p + 57].try_into().unwrap());
        x[p + 53..p + 57].copy_from_slice(&(s + 5).to_be_bytes());
        fix_crc(&mut x[b[4].position as usize..(b[4].position + b[4].size) as usize]);
        // a codec id that does not exist (attributes bits 0-2: 5)
        let p = b[7].position as usize;
        x[p + 22] |= 5;
        fix_crc(&mut x[b[7].position as usize..(b[7].position + b[7].size) as usize]);
    });
    // the records are read only with --deep: by default (Kafka's shallow
    // iteration) the headers are checked against one another, not against
    // records their CRC vouches for (the codec id is a header field)
    let (code, f) = d.verify(&["--fail-on", "warning"]);
    assert_eq!(code, 1);
    let at = |kind: &str| found(&f, kind, &d.logs).into_iter().map(|w| w.1).collect::<Vec<_>>();
    assert_eq!(at("record_count_mismatch"), vec![Some(b[1].position)], "{f:#?}");
    assert_eq!(at("record_invalid"), vec![Some(b[7].position + 21)], "{f:#?}");
    assert!(at("max_timestamp_mismatch").is_empty(), "{f:#?}");
    assert_eq!(at("sequence_gap"), vec![Some(b[4].position), Some(b[5].position)], "{f:#?}");
    let (code, f) = d.verify(&["--deep", "--fail-on", "warning"]);
    assert_eq!(code, 1);
    let at = |kind: &str| found(&f, kind, &d.logs).into_iter().map(|w| w.1).collect::<Vec<_>>();
    assert_eq!(at("record_count_mismatch"), vec![Some(b[1].position)], "{f:#?}");
    // ... and the records run out at the end of the batch: the batch's range,
    // the message says where
    assert_eq!(at("record_invalid"), vec![Some(b[1].position), Some(b[7].position + 21)], "{f:#?}");
    assert_eq!(at("max_timestamp_mismatch"), vec![Some(b[2].position)], "{f:#?}");
    assert_eq!(at("sequence_gap"), vec![Some(b[4].position), Some(b[5].position)], "{f:#?}");
    assert!(at("crc_mismatch").is_empty(), "{f:#?}");
}

/// The first gzip batch damaged inside its deflate stream (after the gzip
/// header), its CRC made to match: returns its segment and the batch.
fn undecodable_gzip_batch(d: &Damaged) -> (&'static str, Batch) {
    let seg = "codec-gzip-0/00000000000000000000.log";
    let b = d.batches(seg)[0];
    d.edit(seg, |x| {
        for i in 0..8 {
            x[(b.position + 61 + 20 + i) as usize] ^= 0x5a;
        }
        fix_crc(&mut x[b.position as usize..(b.position + b.size) as usize]);
    });
    (seg, b)
}

#[test]
fn a_damaged_compressed_payload_does_not_decompress() {
    let d = Damaged::new();
    let (_, b) = undecodable_gzip_batch(&d);
    // its CRC holds: only the full walk decompresses it
    let (code, f) = d.verify(&["--deep"]);
    assert_eq!(code, 1);
    let w = found(&f, "decompression_failed", &d.logs);
    assert_eq!(w.len(), 1, "{f:#?}");
    assert_eq!((w[0].1, w[0].3), (Some(b.position + 61), Some(b.base_offset)));
}

/// By default (Kafka's shallow iteration) a batch whose CRC holds is
/// checked by its CRC and header, its records not read: a compressed
/// payload that does not decompress under a CRC that holds is not found,
/// and the summary says how many batches were checked that way; a CRC that
/// does not hold still is, and the records are counted from the headers, as
/// many as `--deep`'s full walk counts.
#[test]
fn by_default_batches_are_checked_by_crc_and_header_only() {
    let d = Damaged::new();
    let logs = d.logs.to_str().unwrap();
    let summary_of = |args: &[&str]| {
        let (code, lines) = run_json(&[&["verify"], args, &[logs]].concat());
        let summary = lines.last().unwrap().clone();
        assert_eq!(summary["type"], "summary");
        (code, summary)
    };
    let (_, deep) = summary_of(&["--deep"]);
    let (code, shallow) = summary_of(&[]);
    assert_eq!(code, 0);
    assert_eq!(shallow["records"], deep["records"]);
    assert_eq!(deep.get("batches_header_only"), None, "absent when 0: {deep}");
    let header_only = shallow["batches_header_only"].as_u64().unwrap();
    // (control batches are read either way)
    assert!(header_only > 0 && header_only < shallow["batches"].as_u64().unwrap(), "{shallow}");

    let (seg, b) = undecodable_gzip_batch(&d);
    let (code, f) = d.verify(&[]);
    assert_eq!((code, found(&f, "decompression_failed", &d.logs).len()), (0, 0), "{f:#?}");
    let (_, text, _) = run(&["verify", logs]);
    let note = format!("({header_only} by CRC and header, as Kafka does; --deep reads their records)");
    assert!(text.contains(&note), "{text}");

    // a CRC that fails: found, and the batch read to say where
    d.edit(seg, |x| x[(b.position + 61 + 20) as usize] ^= 0x01);
    let (code, f) = d.verify(&[]);
    assert_eq!(code, 1);
    assert_eq!(found(&f, "crc_mismatch", &d.logs).len(), 1, "{f:#?}");
    assert_eq!(found(&f, "decompression_failed", &d.logs).len(), 1, "{f:#?}");
}

#[test]
fn stale_and_missing_index_files() {
    let d = Damaged::new();
    // the log loses its last two batches (at a batch boundary): the index and
    // time index now name batches that do not exist
    let seg = "plain-0/00000000000000000068.log";
    let b = d.batches(seg);
    let cut = b[b.len() - 2].position;
    d.edit(seg, |x| x.truncate(cut as usize));
    std::fs::remove_file(d.path("plain-0/00000000000000000135.index")).unwrap();
    let (_, f) = d.verify(&[]);
    let stale = found(&f, "index_beyond_log_end", &d.logs);
    assert!(stale.iter().any(|w| w.0 == "plain-0/00000000000000000068.index"), "{f:#?}");
    assert_eq!(found(&f, "index_missing", &d.logs).len(), 1);
    assert_eq!(found(&f, "offset_gap", &d.logs).len(), 1, "offsets lost between segments: {f:#?}");
}

#[test]
fn snapshots_epochs_metadata_and_log_start() {
    let d = Damaged::new();
    // a producer snapshot with a flipped byte
    let snap = std::fs::read_dir(d.path("txn-0"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .find(|p| p.extension().is_some_and(|x| x == "snapshot") && std::fs::metadata(p).unwrap().len() > 10)
        .unwrap();
    let name = format!("txn-0/{}", snap.file_name().unwrap().to_str().unwrap());
    d.edit(&name, |x| x[20] ^= 1);
    // leader epochs out of order
    d.edit_text("txn-0/leader-epoch-checkpoint", |t| {
        let lines: Vec<&str> = t.lines().collect();
        format!("{}\n{}\n{}\n{}\n", lines[0], lines[1], lines[3], lines[2])
    });
    std::fs::remove_file(d.path("plain-1/partition.metadata")).unwrap();
    d.edit_text("log-start-offset-checkpoint", |_| "0\n1\nplain 2 99999\n".into());
    let (code, f) = d.verify(&["--fail-on", "warning"]);
    assert_eq!(code, 1);
    assert_eq!(
        found(&f, "producer_snapshot_corrupt", &d.logs).iter().map(|w| w.0.clone()).collect::<Vec<_>>(),
        vec![name]
    );
    assert_eq!(found(&f, "leader_epoch_not_increasing", &d.logs).len(), 1, "{f:#?}");
    assert_eq!(found(&f, "partition_metadata_missing", &d.logs)[0].0, "plain-1/partition.metadata");
    assert_eq!(found(&f, "log_start_out_of_range", &d.logs).len(), 1, "{f:#?}");
    assert_eq!(found(&f, "log_start_above_high_watermark", &d.logs).len(), 1, "{f:#?}");
}

/// A batch whose leader epoch falls back below the epoch the cache starts
/// before it, where no batch of that epoch is left to show the rise (the
/// cleaner removed them): here the first batch of a compacted segment, its
/// epoch 2 flipped to 0 (the flips property test found it). Kafka's cache
/// says epoch 2 from offset 188, so a batch at 302 cannot carry epoch 0.
#[test]
fn a_batch_below_the_epoch_the_cache_starts_before_it_is_a_mismatch() {
    let (_tmp, logs) = copy_tree(&fixtures().join("clean/logs"));
    let seg = "compacted-0/00000000000000000282.log";
    let mut b = std::fs::read(logs.join(seg)).unwrap();
    assert_eq!(&b[12..16], &2i32.to_be_bytes(), "the first batch's partitionLeaderEpoch");
    b[15] ^= 2;
    std::fs::write(logs.join(seg), &b).unwrap();
    let (code, lines) = run_json(&["verify", logs.join("compacted-0").to_str().unwrap()]);
    let findings: Vec<Value> = of_type(&lines, "finding").into_iter().cloned().collect();
    let m = found(&findings, "leader_epoch_mismatch", &logs);
    assert_eq!(m.iter().map(|w| w.0.clone()).collect::<Vec<_>>(), vec![seg], "{findings:#?}");
    assert_eq!(code, 1);
}

/// A producer snapshot cut short (here empty) where the broker did not stop
/// cleanly is what a kill leaves while Kafka writes one (it creates the
/// file, then writes it; the interop suite's SIGKILLed Kafka 4.4.0 left one):
/// Kafka deletes it at the next start and rebuilds from the log, so it is
/// info. After a clean shutdown the same file is damage: a warning.
#[test]
fn a_snapshot_cut_short_without_a_clean_shutdown_is_info() {
    let (_tmp, logs) = copy_tree(&fixtures().join("clean/logs"));
    let snap = "txn-0/00000000000000000054.snapshot";
    std::fs::write(logs.join(snap), b"").unwrap();
    let findings = |args: &[&str]| -> Vec<Value> {
        let (_, lines) = run_json(&[&["verify"], args].concat());
        of_type(&lines, "finding").into_iter().cloned().collect()
    };
    let clean = findings(&[logs.to_str().unwrap()]);
    assert_eq!(
        found(&clean, "producer_snapshot_corrupt", &logs).iter().map(|w| w.0.clone()).collect::<Vec<_>>(),
        vec![snap]
    );
    std::fs::remove_file(logs.join(".kafka_cleanshutdown")).unwrap();
    for path in [logs.clone(), logs.join("txn-0"), logs.join(snap)] {
        let unclean = findings(&[path.to_str().unwrap()]);
        assert!(found(&unclean, "producer_snapshot_corrupt", &logs).is_empty(), "{unclean:#?}");
        let torn = found(&unclean, "producer_snapshot_torn", &logs);
        assert_eq!(torn.iter().map(|w| w.0.clone()).collect::<Vec<_>>(), vec![snap], "{}", path.display());
        assert!(
            unclean.iter().all(|f| f["kind"] != "producer_snapshot_torn" || f["severity"] == "info"),
            "{unclean:#?}"
        );
    }
}

/// A `.log` whose name Kafka cannot parse an offset from (not digits, or
/// not UTF-8) makes Kafka's log loading fail: verify reports it as an error
/// instead of skipping it, and dump of the dir reads it (a name that is not
/// UTF-8 used to be reopened by its lossy text and not found).
#[test]
fn a_segment_name_kafka_cannot_load_is_an_error_and_dump_still_reads_it() {
    use std::os::unix::ffi::OsStrExt;
    let (_tmp, part) = copy_tree(&fixtures().join("clean/logs/plain-0"));
    let seg = part.join("00000000000000000000.log");
    std::fs::copy(&seg, part.join("abc.log")).unwrap();
    let odd = part.join(std::ffi::OsStr::from_bytes(b"0000000000000000000\xff.log"));
    std::fs::copy(&seg, &odd).unwrap();
    let (code, lines) = run_json(&["verify", "--format", "json", part.to_str().unwrap()]);
    assert_eq!(code, 1);
    let bad: Vec<&str> = of_type(&lines, "finding")
        .into_iter()
        .filter(|f| f["kind"] == "segment_name_invalid")
        .map(|f| f["severity"].as_str().unwrap())
        .collect();
    assert_eq!(bad, ["error", "error"], "{lines:?}");
    let (code, lines) = run_json(&["dump", "--format", "json", part.to_str().unwrap()]);
    assert!(of_type(&lines, "error").is_empty(), "{lines:?}");
    assert_eq!(code, 0);
    let logs = of_type(&lines, "file").into_iter().filter(|f| f["kind"] == "log").count();
    let shipped = std::fs::read_dir(fixtures().join("clean/logs/plain-0"))
        .unwrap()
        .filter(|e| e.as_ref().unwrap().file_name().to_string_lossy().ends_with(".log"))
        .count();
    assert_eq!(logs, shipped + 2);
}

/// A segment that cannot be read (here a dangling symlink) is reported,
/// and nothing is judged against the log end it hides: no knock-on
/// findings blaming the checkpoints or snapshots.
#[test]
fn an_unreadable_segment_is_reported_without_knock_on_findings() {
    let (_tmp, logs) = copy_tree(&fixtures().join("clean/logs"));
    let part = logs.join("plain-0");
    let mut logs_in: Vec<PathBuf> = std::fs::read_dir(&part)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|x| x == "log"))
        .collect();
    logs_in.sort();
    let last = logs_in.pop().unwrap();
    std::fs::remove_file(&last).unwrap();
    std::os::unix::fs::symlink("/nonexistent/segment", &last).unwrap();
    let (code, lines) = run_json(&["verify", "--format", "json", part.to_str().unwrap()]);
    assert_eq!(code, 2, "an I/O error");
    let kinds: Vec<&str> = of_type(&lines, "finding").iter().map(|f| f["kind"].as_str().unwrap()).collect();
    assert_eq!(kinds, ["io_error", "note"], "{lines:?}");
}

/// The findings of one kind in `verify --format json` output.
fn findings_of<'a>(lines: &'a [Value], kind: &str) -> Vec<&'a Value> {
    of_type(lines, "finding").into_iter().filter(|f| f["kind"] == kind).collect()
}

/// `verify --kafka-version 4.3` on a dir Kafka 3.9.1 wrote with sub-MiB
/// segments: an error per topic with Kafka 4.3.1's exception (the interop
/// suite starts 4.3.1 on it to see it refuse); 3.9 and the 4.3.1 fixture
/// give none; 3.9 on the 4.3.1 fixture refuses its metadata.version.
#[test]
fn verify_says_which_release_refuses_to_start() {
    let clean = fixtures().join("clean").join("logs");
    let (code, lines) = run_json(&["verify", "--kafka-version", "4.3", clean.to_str().unwrap()]);
    assert_eq!(code, 1);
    let refused = findings_of(&lines, "start_refused");
    assert!(!refused.is_empty());
    assert!(refused.iter().all(|f| {
        f["severity"] == "error"
            && f["message"].as_str().unwrap().contains("Error starting LogManager: ConfigException: Invalid value")
            && f["message"]
                .as_str()
                .unwrap()
                .ends_with("for configuration segment.bytes: Value must be at least 1048576")
    }));
    let plan = of_type(&lines, "start_plan");
    assert_eq!(plan[0]["kafka_version"], "4.3");
    assert_eq!(plan[0]["refusals"].as_u64(), Some(refused.len() as u64));

    let (code, lines) = run_json(&["verify", clean.to_str().unwrap()]);
    assert_eq!(code, 0);
    assert!(findings_of(&lines, "start_refused").is_empty());
    assert_eq!(of_type(&lines, "start_plan")[0]["version_from"], "the dir's metadata.version 3.9-IV0");

    // the 4.x dir (4.3.1 committed; fresh 4.4.0 data in the interop suite)
    let k4 = crate::util::fixtures_4().join("kafka4").join("logs");
    let level = logfmt::metadata::read_log_dir_metadata(&k4, &logfmt::Limits::default())
        .unwrap()
        .and_then(|m| m.metadata_version)
        .unwrap();
    let (code, lines) = run_json(&["verify", k4.to_str().unwrap()]);
    assert_eq!(code, 0);
    assert_eq!(
        of_type(&lines, "start_plan")[0]["kafka_version"],
        logrules::KafkaVersion::of_metadata_version(level).name()
    );
    let (code, lines) = run_json(&["verify", "--kafka-version", "3.9", k4.to_str().unwrap()]);
    assert_eq!(code, 1);
    let refused = findings_of(&lines, "start_refused");
    assert_eq!(refused.len(), 1);
    assert!(
        refused[0]["message"].as_str().unwrap().ends_with(&format!("No MetadataVersion with feature level {level}"))
    );
}

/// A partition dir whose topic id was edited, one of a topic the metadata
/// does not know, one without partition.metadata: each a stray_partition
/// warning (Kafka renames them -stray, `tests/interop/start.sh`); no other.
#[test]
fn stray_partitions_are_warnings() {
    let d = Damaged::new();
    let (code, lines) = run_json(&["verify", d.logs.to_str().unwrap()]);
    assert_eq!(code, 0);
    assert!(findings_of(&lines, "stray_partition").is_empty());
    std::fs::write(d.path("plain-0/partition.metadata"), "version: 0\ntopic_id: AAAAAAAAAAAAAAAAAAAAAQ\n").unwrap();
    copy_dir(&d.path("plain-1"), &d.path("ghost-0"));
    std::fs::write(d.path("ghost-0/partition.metadata"), "version: 0\ntopic_id: AAAAAAAAAAAAAAAAAAAAAg\n").unwrap();
    std::fs::remove_file(d.path("plain-2/partition.metadata")).unwrap();
    let (code, lines) = run_json(&["verify", "--fail-on", "warning", d.logs.to_str().unwrap()]);
    assert_eq!(code, 1);
    let mut strays: Vec<String> = findings_of(&lines, "stray_partition")
        .iter()
        .map(|f| Path::new(f["file"].as_str().unwrap()).file_name().unwrap().to_string_lossy().into_owned())
        .collect();
    strays.sort();
    assert_eq!(strays, ["ghost-0", "plain-0", "plain-2"]);
    let messages: Vec<&str> =
        findings_of(&lines, "stray_partition").iter().map(|f| f["message"].as_str().unwrap()).collect();
    assert!(
        messages.iter().any(|m| m.ends_with("the topicId AAAAAAAAAAAAAAAAAAAAAQ does not exist in the metadata image"))
    );
    assert_eq!(of_type(&lines, "start_plan")[0]["stray_partitions"], 3);
}

/// The group coordinator writes each transactional offset commit with its
/// producer's id and epoch and base sequence 0; Kafka checks no sequence of
/// the coordinators' own appends (`AppendOrigin.COORDINATOR`), so neither
/// does verify. Before, the incident dir's `__consumer_offsets` got
/// "sequence 0 follows 0 ... the cleaner removed batches".
#[test]
fn no_sequence_findings_in_the_coordinators_topics() {
    let logs = crate::util::fixtures().join("incident/logs");
    let (_, lines) = run_json(&["verify", logs.to_str().unwrap()]);
    let seq: Vec<&Value> = of_type(&lines, "finding")
        .into_iter()
        .filter(|f| f["kind"].as_str().unwrap().starts_with("sequence_gap"))
        .filter(|f| f["file"].as_str().unwrap().contains("__"))
        .collect();
    assert!(seq.is_empty(), "{seq:?}");
}

/// A dir written by a Kafka newer than logtool knows (issue 50): the
/// kafka4 fixture with its metadata log's metadata.version raised to one
/// level above the newest release of the table (a copy, its batch's CRC
/// fixed) is read with the newest rules, said once as info, exit 0; named
/// as 4.4 it is the refusal Kafka 4.4 gives.
#[test]
fn a_dir_of_a_newer_kafka_is_info_not_an_error() {
    let newest = logrules::release::newest();
    let level = newest.latest_production_level + 1;
    let (_tmp, logs) = copy_tree(&crate::util::fixtures_4().join("kafka4").join("logs"));
    let log = logs.join("__cluster_metadata-0").join("00000000000000000000.log");
    let mut bytes = std::fs::read(&log).unwrap();
    let name = b"\x11metadata.version";
    let at = bytes.windows(name.len()).position(|w| w == name).expect("a metadata.version FeatureLevelRecord");
    let level_at = at + name.len();
    bytes[level_at..level_at + 2].copy_from_slice(&level.to_be_bytes());
    let mut pos = 0usize;
    while pos + 12 <= bytes.len() {
        let len = i32::from_be_bytes(bytes[pos + 8..pos + 12].try_into().unwrap()) as usize;
        let end = pos + 12 + len;
        if (pos..end).contains(&level_at) {
            fix_crc(&mut bytes[pos..end]);
            break;
        }
        pos = end;
    }
    std::fs::write(&log, &bytes).unwrap();
    let (code, lines) = run_json(&["verify", logs.to_str().unwrap()]);
    let newer = findings_of(&lines, "newer_kafka");
    assert_eq!(newer.len(), 1, "{lines:?}");
    assert_eq!(newer[0]["severity"], "info");
    assert!(newer[0]["message"].as_str().unwrap().contains(&format!("read with {}'s rules", newest.name)));
    assert_eq!(code, 0, "{lines:?}");
    assert!(findings_of(&lines, "start_refused").is_empty());
    assert_eq!(of_type(&lines, "start_plan")[0]["kafka_version"], newest.name);
    let (code, lines) = run_json(&["verify", "--kafka-version", newest.name, logs.to_str().unwrap()]);
    assert_eq!(code, 1);
    assert_eq!(findings_of(&lines, "start_refused").len(), 1);
}

/// A tiered partition (fixtures/kafka-3.9.1/tiered) whose
/// leader-epoch-checkpoint no longer reaches down to its log start (the
/// epochs below the local data dropped, as an older logtool's `retain`
/// did): its remote offsets cannot be fetched any more
/// (`RemoteLogManager.read` finds a remote segment by epoch), a warning;
/// the dir as Kafka left it has none.
#[test]
fn a_tiered_partitions_epochs_must_cover_its_remote_offsets() {
    let (_tmp, logs) = copy_tree(&fixtures().join("tiered").join("logs"));
    let (_, lines) = run_json(&["verify", logs.to_str().unwrap()]);
    assert!(findings_of(&lines, "remote_epochs_uncovered").is_empty());
    std::fs::write(logs.join("tiered-0/leader-epoch-checkpoint"), "0\n1\n0 250\n").unwrap();
    let (code, lines) = run_json(&["verify", "--fail-on", "warning", logs.to_str().unwrap()]);
    assert_eq!(code, 1);
    let found = findings_of(&lines, "remote_epochs_uncovered");
    assert_eq!(found.len(), 1, "{lines:?}");
    assert_eq!(found[0]["offset"], 100);
    assert!(found[0]["message"].as_str().unwrap().contains("offsets 100-249 are in remote storage only"));
}
