//! Any single-byte change anywhere in a valid segment a real Kafka wrote is
//! reported by `verify` on the batch it hit (a finding at warning or above in
//! that segment whose byte range meets the batch's), or is one of the changes
//! `docs/findings.md` lists as undetectable on the batch, and why.
//!
//! Inputs: partitions of the committed clean fixture (a real Kafka 3.9.1),
//! checked with their log dir (checkpoints, and the metadata log that says
//! which topics are compacted). A proptest picks the partition, segment,
//! byte and the change; `exhaustive_header_sweep` (ignored by default; the
//! CI run includes it in release mode) tries every byte of every batch.
#![allow(clippy::restriction, missing_docs)] // test code: [workspace.lints] is for library code

use std::path::{Path, PathBuf};
use std::sync::OnceLock;

use inspect::verify::{self, Options, Severity};
use logfmt::log::{Item, LogReader};
use logfmt::partition::{LogDir, Partition};
use logrules::log::{Compaction, compaction};
use proptest::prelude::*;

/// Partitions tried: plain (not compacted), transactions, a compressed one,
/// the compacted one.
const PARTITIONS: [&str; 4] = ["plain-0", "txn-0", "codec-lz4-0", "compacted-0"];

/// A segment: its file, its bytes, its batches' byte ranges.
type Seg = (PathBuf, Vec<u8>, Vec<(u64, u64)>);

struct Fixture {
    logs: PathBuf,
    log_dir: LogDir,
    /// Per partition: its segments.
    segments: Vec<Vec<Seg>>,
    compaction: Vec<Compaction>,
}

/// A copy of the clean fixture per test process (the proptest cases of one
/// test run one after another; each restores what it changed).
fn fixture() -> &'static std::sync::Mutex<Fixture> {
    static F: OnceLock<std::sync::Mutex<Fixture>> = OnceLock::new();
    F.get_or_init(|| {
        let src = test_support::committed_fixtures().join("clean/logs");
        // under cargo's scratch dir for tests (a static is never dropped, so
        // no guard removes it at exit): copies of processes that ended are
        // removed here, the next run's first step
        let scratch = PathBuf::from(env!("CARGO_TARGET_TMPDIR"));
        for e in std::fs::read_dir(&scratch).into_iter().flatten().flatten() {
            let name = e.file_name().to_string_lossy().into_owned();
            let pid = name.strip_prefix("logfmt-flips-").and_then(|p| p.parse::<u32>().ok());
            if pid.is_some_and(|pid| !Path::new(&format!("/proc/{pid}")).exists()) {
                let _ = std::fs::remove_dir_all(e.path());
            }
        }
        let logs = scratch.join(format!("logfmt-flips-{}", std::process::id())).join("logs");
        let _ = std::fs::remove_dir_all(&logs);
        test_support::copy_dir(&src, &logs);
        let opts = Options::default();
        let log_dir = LogDir::read(&logs, &opts.limits);
        let mut segments = Vec::new();
        let mut comp = Vec::new();
        for part in PARTITIONS {
            let p = Partition::open_with(&logs.join(part), &log_dir.checkpoints).unwrap();
            comp.push(compaction(&p, &log_dir));
            let mut segs = Vec::new();
            for seg in &p.segments {
                let bytes = std::fs::read(&seg.log).unwrap();
                let mut batches = Vec::new();
                let mut r = LogReader::open(&seg.log, opts.limits).unwrap();
                while let Some(Item::Entry(e)) = r.next_item().unwrap() {
                    batches.push((e.position(), e.position() + e.size()));
                }
                if bytes.is_empty() {
                    continue; // a segment the cleaner emptied
                }
                assert_eq!(batches.last().map(|b| b.1), Some(bytes.len() as u64), "{}", seg.log.display());
                segs.push((seg.log.clone(), bytes, batches));
            }
            segments.push(segs);
        }
        std::sync::Mutex::new(Fixture { logs, log_dir, segments, compaction: comp })
    })
}

/// Change byte `at` of segment `seg` of partition `part` by `xor`; `Ok` when
/// verify reports it on its batch or it is documented as undetectable there.
fn check(part: usize, seg: usize, at: usize, xor: u8) -> Result<(), String> {
    let f = fixture().lock().unwrap_or_else(|e| e.into_inner());
    let (log, orig, batches) = &f.segments[part][seg];
    let at = at % orig.len();
    let (bs, be) = *batches.iter().find(|(s, e)| (*s as usize) <= at && at < *e as usize).unwrap();
    let mut damaged = orig.clone();
    damaged[at] ^= xor;
    std::fs::write(log, &damaged).unwrap();
    let opts = Options { read_ahead: false, ..Options::default() };
    let dir = f.logs.join(PARTITIONS[part]);
    let report = verify::check_partition(&dir, &f.log_dir, &opts, &|_| {});
    std::fs::write(log, orig).unwrap();
    let on_batch = report.findings.iter().any(|x| {
        x.severity >= Severity::Warning
            && x.file == *log
            && x.position.is_some_and(|p| p < be)
            && x.end_position.unwrap_or(x.position.unwrap_or(0) + 1) > bs
    });
    let rel = at - bs as usize;
    // docs/findings.md: in a partition that may have been compacted, the low
    // bytes of the baseOffset of a segment's last batch can move it into the
    // gap before the next segment, which compaction leaves too
    let last_of_segment = batches.last() == Some(&(bs, be));
    let undetectable = f.compaction[part] != Compaction::Never && rel < 8 && last_of_segment;
    if on_batch || undetectable {
        Ok(())
    } else {
        Err(format!(
            "{}: byte {at} (batch [{bs}, {be}), byte {rel} of it) ^ {xor:#04x} not reported on its batch: {:?}",
            log.display(),
            report
                .findings
                .iter()
                .map(|x| (x.kind.name(), x.file.display().to_string(), x.position))
                .collect::<Vec<_>>()
        ))
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 600, failure_persistence: None, ..ProptestConfig::default() })]

    #[test]
    fn a_flipped_byte_is_reported_on_its_batch(
        part in 0..PARTITIONS.len(),
        seg in 0usize..8,
        at in any::<usize>(),
        xor in prop_oneof![Just(0xffu8), Just(0x01u8), Just(0x80u8), 1u8..=255],
        header in any::<bool>(),
    ) {
        let n = fixture().lock().unwrap_or_else(|e| e.into_inner()).segments[part].len();
        let seg = seg % n;
        // half the cases hit a batch header (the bytes outside the CRC matter most)
        let at = if header {
            let f = fixture().lock().unwrap_or_else(|e| e.into_inner());
            let batches = &f.segments[part][seg].2;
            let (bs, _) = batches[at % batches.len()];
            bs as usize + (at / batches.len()) % 61
        } else {
            at
        };
        check(part, seg, at, xor).map_err(TestCaseError::fail)?;
    }
}

/// Every byte of every batch header (and every 16th record byte), with three
/// changes each.
#[test]
#[ignore = "a few minutes in a debug build: run with --release --ignored (.ci/run does)"]
fn exhaustive_header_sweep() {
    let mut failures = Vec::new();
    let n: Vec<usize> = {
        let f = fixture().lock().unwrap_or_else(|e| e.into_inner());
        f.segments.iter().map(Vec::len).collect()
    };
    for (part, segs) in n.iter().enumerate() {
        for seg in 0..*segs {
            let positions: Vec<usize> = {
                let f = fixture().lock().unwrap_or_else(|e| e.into_inner());
                let (_, _, batches) = &f.segments[part][seg];
                batches
                    .iter()
                    .flat_map(|(s, e)| (*s as usize..*e as usize).filter(move |i| i - *s as usize <= 61 || i % 16 == 0))
                    .collect()
            };
            for at in positions {
                for xor in [0xff, 0x01, 0x80] {
                    if let Err(e) = check(part, seg, at, xor) {
                        failures.push(e);
                    }
                }
            }
        }
    }
    assert!(failures.is_empty(), "{} change(s) not reported on their batch:\n{}", failures.len(), failures.join("\n"));
}
