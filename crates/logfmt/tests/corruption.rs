//! Damage real-Kafka files every way we can and check the readers: no panic,
//! damage reported at the right position, a cut file reported as truncated.
//!
//! Inputs are the committed fixtures (fixtures/kafka-3.9.1), read into memory
//! and cut or flipped there.
#![allow(clippy::restriction, missing_docs)] // test code: [workspace.lints] is for library code

use std::io::Cursor;
use std::path::PathBuf;

use logfmt::control;
use logfmt::index::{IndexKind, IndexReader};
use logfmt::log::{Entry, Item, LogReader};
use logfmt::{ErrorClass, Limits};

fn fixture(rel: &str) -> Vec<u8> {
    let p = test_support::committed_fixtures().join(rel);
    std::fs::read(&p).unwrap_or_else(|e| panic!("{}: {e}", p.display()))
}

/// Pick a small segment of a partition (the first `.log` under `max` bytes).
fn small_log(partition: &str, max: usize) -> (String, Vec<u8>) {
    let dir = test_support::committed_fixtures().join(partition);
    let mut logs: Vec<PathBuf> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|x| x == "log"))
        .collect();
    logs.sort();
    for p in logs {
        let data = std::fs::read(&p).unwrap();
        if !data.is_empty() && data.len() <= max {
            return (p.display().to_string(), data);
        }
    }
    panic!("no .log under {max} bytes in {partition}");
}

#[derive(Debug, Default)]
struct Scan {
    /// (position, size, crc valid)
    entries: Vec<(u64, u64, bool)>,
    /// (start, end, truncated tail, error class, error position)
    damage: Vec<(u64, u64, bool, ErrorClass, Option<u64>)>,
    record_errors: usize,
}

/// Read everything; with `deep`, decode every record (and control record) too.
fn scan_with(data: &[u8], deep: bool) -> Scan {
    let limits = Limits::default();
    let mut r = LogReader::new(Cursor::new(data), data.len() as u64, limits);
    let mut s = Scan::default();
    let mut scratch = Vec::new();
    while let Some(item) = r.next_item().unwrap() {
        match item {
            Item::Entry(e) => {
                s.entries.push((e.position(), e.size(), e.is_valid()));
                if !deep {
                    continue;
                }
                match e {
                    Entry::V2(b) => match b.records(&mut scratch, &limits) {
                        Ok(mut recs) => {
                            while let Some(rec) = recs.next_record() {
                                match rec {
                                    Ok(rec) if b.header().is_control() => {
                                        if control::parse(&rec, b.position()).is_err() {
                                            s.record_errors += 1;
                                        }
                                    }
                                    Ok(_) => {}
                                    Err(_) => s.record_errors += 1,
                                }
                            }
                        }
                        Err(_) => s.record_errors += 1,
                    },
                    Entry::Legacy(m) => match m.records(&mut scratch, &limits) {
                        Ok(mut recs) => {
                            while let Some(r) = recs.next_record() {
                                s.record_errors += usize::from(r.is_err());
                            }
                        }
                        Err(_) => s.record_errors += 1,
                    },
                }
            }
            Item::Damage(d) => s.damage.push((d.start, d.end, d.truncated_tail, d.error.class(), d.error.position())),
        }
    }
    s
}

fn scan(data: &[u8]) -> Scan {
    scan_with(data, true)
}

fn truncate_everywhere(name: &str, data: &[u8], stride: usize) {
    let full = scan(data);
    assert!(full.damage.is_empty() && full.record_errors == 0, "{name} is not clean: {full:?}");
    assert!(full.entries.iter().all(|e| e.2), "{name}: bad CRC in the original");
    let mut cuts: Vec<usize> = (0..data.len()).step_by(stride).collect();
    // every byte around every batch boundary
    for &(pos, size, _) in &full.entries {
        for k in pos.saturating_sub(20)..(pos + 20).min(data.len() as u64) {
            cuts.push(k as usize);
        }
        cuts.push((pos + size / 2) as usize);
    }
    for k in cuts {
        let s = scan_with(&data[..k], false);
        let whole: Vec<_> = full.entries.iter().filter(|(p, z, _)| p + z <= k as u64).collect();
        assert_eq!(s.entries.len(), whole.len(), "{name} cut at {k}: entries");
        let boundary = whole.last().map_or(0, |(p, z, _)| p + z);
        if boundary == k as u64 {
            assert!(s.damage.is_empty(), "{name} cut at batch boundary {k}: {:?}", s.damage);
        } else {
            assert_eq!(s.damage.len(), 1, "{name} cut at {k}: {:?}", s.damage);
            let (start, end, tail, class, pos) = s.damage[0];
            assert_eq!((start, end), (boundary, k as u64), "{name} cut at {k}: damage range");
            assert!(tail, "{name} cut at {k}: not reported as a truncated tail");
            assert_eq!(class, ErrorClass::Truncated, "{name} cut at {k}");
            assert_eq!(pos, Some(boundary), "{name} cut at {k}: error position");
        }
    }
}

fn flip_everywhere(name: &str, data: &[u8], stride: usize) {
    use rayon::prelude::*;
    let full = scan(data);
    // (every flip on its own copy: on all cores)
    let flips: Vec<usize> = (0..data.len()).step_by(stride).collect();
    flips.into_par_iter().for_each(|p| {
        let mut bad = data.to_vec();
        bad[p] ^= 0xff;
        let s = scan(&bad);
        let p = p as u64;
        // The batch that held the byte, in the original.
        let &(pos, _, _) = full.entries.iter().rev().find(|(q, _, _)| *q <= p).unwrap();
        let v2 = data[pos as usize + 16] == 2;
        // Fields no checksum covers: the offset (and, in v2, the leader epoch and magic).
        let uncovered = p < pos + 8 || (v2 && (pos + 12..pos + 17).contains(&p));
        let damaged = s.damage.iter().any(|&(a, b, _, _, _)| a <= p && p < b);
        let bad_crc = s.entries.iter().any(|&(q, z, ok)| !ok && q <= p && p < q + z);
        assert!(uncovered || damaged || bad_crc, "{name}: flipping byte {p} (batch at {pos}) went unnoticed\n{s:?}");
        if v2 && p == pos + 16 {
            // the magic byte: 2 ^ 0xff = -3, never a valid format
            assert!(damaged, "{name}: a flipped magic byte at {p} must be damage");
        }
    });
}

const SMALL: usize = 8 << 10;

#[test]
fn logs_truncated_at_every_byte_report_a_torn_tail_at_the_right_position() {
    for partition in [
        "clean/logs/txn-0",
        "clean/logs/txn-1",
        "clean/logs/compacted-0",
        "legacy/logs/legacy-v0-0",
        "legacy/logs/legacy-v1-0",
        "legacy/logs/legacy-mixed-0",
    ] {
        let (name, data) = small_log(partition, SMALL);
        truncate_everywhere(&name, &data, 1);
    }
    for (partition, stride) in [
        ("clean/logs/codec-gzip-0", 7),
        ("clean/logs/codec-snappy-0", 7),
        ("clean/logs/codec-lz4-0", 7),
        ("clean/logs/codec-zstd-0", 7),
    ] {
        let (name, data) = small_log(partition, 1 << 20);
        truncate_everywhere(&name, &data, stride);
    }
    let boot = fixture("clean/logs/bootstrap.checkpoint");
    truncate_everywhere("bootstrap.checkpoint", &boot, 1);
}

#[test]
fn flipped_bytes_are_found_or_lie_in_unchecked_fields() {
    for partition in
        ["clean/logs/txn-0", "legacy/logs/legacy-v0-0", "legacy/logs/legacy-v1-0", "legacy/logs/legacy-mixed-0"]
    {
        let (name, data) = small_log(partition, SMALL);
        flip_everywhere(&name, &data, 1);
    }
    for partition in
        ["clean/logs/codec-gzip-0", "clean/logs/codec-snappy-0", "clean/logs/codec-lz4-0", "clean/logs/codec-zstd-0"]
    {
        let (name, data) = small_log(partition, 1 << 20);
        flip_everywhere(&name, &data, 13);
    }
    let boot = fixture("clean/logs/bootstrap.checkpoint");
    flip_everywhere("bootstrap.checkpoint", &boot, 1);
}

#[test]
fn corruption_in_the_middle_is_skipped_and_reading_resumes() {
    let (name, data) = small_log("clean/logs/txn-1", SMALL);
    let full = scan(&data);
    assert!(full.entries.len() >= 4, "{name}");
    // zero the length of the third batch: it and nothing else is lost
    let (pos, size, _) = full.entries[2];
    let mut bad = data.clone();
    bad[pos as usize + 8..pos as usize + 12].copy_from_slice(&[0, 0, 0, 0]);
    let s = scan(&bad);
    assert_eq!(s.damage.len(), 1);
    let (start, end, tail, class, at) = s.damage[0];
    assert_eq!((start, end, tail, class), (pos, pos + size, false, ErrorClass::Corrupt));
    assert_eq!(at, Some(pos + 8), "the error names the length field");
    assert_eq!(s.entries.len(), full.entries.len() - 1);
    // a zero-filled region in the middle
    let mut zeroed = data.clone();
    for b in &mut zeroed[pos as usize..(pos + size) as usize] {
        *b = 0;
    }
    let s = scan(&zeroed);
    assert_eq!(s.damage.len(), 1);
    assert_eq!((s.damage[0].0, s.damage[0].1, s.damage[0].2), (pos, pos + size, false));
}

fn index_scan(data: &[u8], kind: IndexKind) -> usize {
    IndexReader::new(Cursor::new(data), data.len() as u64, kind, 0).filter(|e| e.is_ok()).count()
}

#[test]
fn index_snapshot_and_checkpoint_files_never_panic() {
    let files: Vec<(&str, Option<IndexKind>)> = vec![
        ("clean/logs/txn-1/00000000000000000000.index", Some(IndexKind::Offset)),
        ("clean/logs/txn-1/00000000000000000000.timeindex", Some(IndexKind::Time)),
        ("clean/logs/txn-1/00000000000000000000.txnindex", Some(IndexKind::Txn)),
        ("clean/logs/txn-1/leader-epoch-checkpoint", None),
        ("clean/logs/replication-offset-checkpoint", None),
        ("clean/logs/plain-0/partition.metadata", None),
        ("clean/logs/meta.properties", None),
    ];
    for (rel, kind) in files {
        let data = fixture(rel);
        for k in 0..=data.len() {
            for variant in [data[..k].to_vec(), {
                let mut v = data.clone();
                if k < v.len() {
                    v[k] ^= 0xff;
                }
                v
            }] {
                match kind {
                    Some(kind) => {
                        index_scan(&variant, kind);
                    }
                    None => {
                        let _ = logfmt::checkpoint::parse_offsets(&variant);
                        let _ = logfmt::checkpoint::parse_epochs(&variant);
                        let _ = logfmt::properties::parse_partition_metadata(&variant);
                        let _ = logfmt::properties::parse_java_properties(&String::from_utf8_lossy(&variant));
                    }
                }
            }
        }
    }
}

#[test]
fn truncated_producer_snapshots_are_reported_as_truncated() {
    let dir = test_support::committed_fixtures().join("clean/logs/txn-1");
    let snap = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|x| x == "snapshot"))
        .map(|p| std::fs::read(p).unwrap())
        .find(|d| d.len() > 10)
        .expect("a non-empty producer snapshot");
    assert!(logfmt::snapshot::parse(&snap).unwrap().crc_valid());
    for k in 0..snap.len() {
        let e = logfmt::snapshot::parse(&snap[..k]).unwrap_err();
        assert!(e.is_truncated(), "cut at {k}: {e}");
    }
    for k in 0..snap.len() {
        let mut v = snap.clone();
        v[k] ^= 0xff;
        // every byte after the version is covered by the CRC
        if let Ok(s) = logfmt::snapshot::parse(&v) {
            assert!(!s.crc_valid(), "flip at {k} not detected");
        }
    }
}

#[test]
fn random_garbage_never_panics() {
    // a small deterministic generator (xorshift) so failures reproduce
    let mut x: u64 = 0x9e37_79b9_7f4a_7c15;
    let mut next = || {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        x
    };
    for round in 0..2000 {
        let len = (next() % 600) as usize;
        let mut data: Vec<u8> = (0..len).map(|_| next() as u8).collect();
        // make some inputs look like batch headers so deeper code runs
        if round % 2 == 0 && len > 61 {
            data[8..12].copy_from_slice(&((len - 12) as i32).to_be_bytes());
            data[16] = (round % 3) as u8;
            if data[16] == 2 {
                let crc = crc32c::crc32c(&data[21..]);
                data[17..21].copy_from_slice(&crc.to_be_bytes());
            }
        }
        let _ = scan(&data);
        for kind in [IndexKind::Offset, IndexKind::Time, IndexKind::Txn] {
            index_scan(&data, kind);
        }
        let _ = logfmt::snapshot::parse(&data);
    }
}
