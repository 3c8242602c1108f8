//! A segment cut anywhere is read as its whole batches before the cut, then
//! a torn tail from the start of the batch the cut went through up to the
//! cut, exactly; a cut on a batch boundary leaves no damage at all. Inputs:
//! segments of the committed clean fixture (a real Kafka 3.9.1), every codec,
//! transactions; a proptest picks the segment and the cut.
#![allow(clippy::restriction, missing_docs)] // test code: [workspace.lints] is for library code

use std::path::PathBuf;

use logfmt::Limits;
use logfmt::log::{Item, LogReader};
use proptest::prelude::*;

/// A segment: its file, its bytes, its batches' byte ranges.
type Seg = (PathBuf, Vec<u8>, Vec<(u64, u64)>);

/// The fixture's segments.
fn segments() -> &'static [Seg] {
    static S: std::sync::OnceLock<Vec<Seg>> = std::sync::OnceLock::new();
    S.get_or_init(|| {
        let logs = test_support::committed_fixtures().join("clean/logs");
        let mut out = Vec::new();
        for part in ["plain-0", "txn-0", "codec-gzip-0", "codec-lz4-0", "codec-zstd-0", "codec-snappy-0", "compacted-0"]
        {
            let mut files: Vec<PathBuf> = std::fs::read_dir(logs.join(part))
                .unwrap()
                .map(|e| e.unwrap().path())
                .filter(|p| p.extension().is_some_and(|e| e == "log"))
                .collect();
            files.sort();
            for f in files {
                let bytes = std::fs::read(&f).unwrap();
                let mut r = LogReader::new(std::io::Cursor::new(bytes.clone()), bytes.len() as u64, Limits::default());
                let mut batches = Vec::new();
                while let Some(item) = r.next_item().unwrap() {
                    match item {
                        Item::Entry(e) => batches.push((e.position(), e.position() + e.size())),
                        Item::Damage(d) => panic!("{}: damage in the fixture at {}", f.display(), d.start),
                    }
                }
                if !batches.is_empty() {
                    out.push((f, bytes, batches));
                }
            }
        }
        out
    })
}

/// Segment `seg` (modulo their number) cut at `cut_per_mille` of its size.
fn check(seg: usize, cut_per_mille: u64) -> Result<(), String> {
    let segs = segments();
    let len = segs[seg % segs.len()].1.len() as u64;
    check_cut(seg % segs.len(), (len * cut_per_mille / 1000).clamp(1, len - 1))
}

fn check_cut(seg: usize, cut: u64) -> Result<(), String> {
    let (file, bytes, batches) = &segments()[seg];
    let cut_bytes = bytes[..cut as usize].to_vec();
    let mut r = LogReader::new(std::io::Cursor::new(cut_bytes), cut, Limits::default());
    let mut seen = Vec::new();
    let mut damage = Vec::new();
    while let Some(item) = r.next_item().map_err(|e| e.to_string())? {
        match item {
            Item::Entry(e) => seen.push((e.position(), e.position() + e.size())),
            Item::Damage(d) => damage.push((d.start, d.end, d.truncated_tail)),
        }
    }
    let whole: Vec<(u64, u64)> = batches.iter().copied().filter(|&(_, end)| end <= cut).collect();
    if seen != whole {
        return Err(format!("{} cut at {cut}: batches {seen:?}, expected {whole:?}", file.display()));
    }
    let torn_from = batches.iter().find(|&&(start, end)| start < cut && cut < end).map(|&(start, _)| start);
    let expected: Vec<(u64, u64, bool)> = torn_from.map(|s| vec![(s, cut, true)]).unwrap_or_default();
    if damage != expected {
        return Err(format!("{} cut at {cut}: damage {damage:?}, expected {expected:?}", file.display()));
    }
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 2000, failure_persistence: None, ..ProptestConfig::default() })]

    #[test]
    fn a_cut_segment_is_a_torn_tail_at_exactly_the_cut(seg in 0usize..1000, cut in 0u64..1000) {
        check(seg, cut).map_err(TestCaseError::fail)?;
    }
}

/// Every cut of one segment with several batches, byte by byte.
#[test]
fn every_cut_of_a_segment() {
    let segs = segments();
    assert!(segs.len() >= 7, "{} segments", segs.len());
    let (i, (_, bytes, _)) = segs.iter().enumerate().find(|(_, s)| s.2.len() >= 3).unwrap();
    for cut in 1..bytes.len() as u64 {
        check_cut(i, cut).unwrap();
    }
}
