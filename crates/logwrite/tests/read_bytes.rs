//! What `recover` reads of a log dir whose active segments' indexes are
//! preallocated (a crashed broker's: `segment.index.bytes`, 10 MiB by
//! default, zeros after a few entries): never those zeros (issue 66: the
//! plan read 195 GiB of them at 10,000 partitions). Counted with the
//! process's `rchar` (`/proc/self/io`: every byte a read call returned,
//! holes included), so this is the binary's only test.
#![allow(clippy::restriction, missing_docs)] // test code: [workspace.lints] is for library code

use std::path::Path;

use logwrite::repair::DryRun;
use logwrite::repair::recover::{Interval, RecoverOptions, recover};

fn rchar() -> u64 {
    let io = std::fs::read_to_string("/proc/self/io").unwrap();
    io.lines().find_map(|l| l.strip_prefix("rchar: ")).unwrap().trim().parse().unwrap()
}

fn bytes_under(dir: &Path) -> u64 {
    let mut n = 0;
    for e in std::fs::read_dir(dir).unwrap().flatten() {
        let m = e.metadata().unwrap();
        n += if m.is_dir() { bytes_under(&e.path()) } else { m.len() };
    }
    n
}

#[test]
fn recover_reads_no_preallocated_index_past_its_entries() {
    let src = test_support::committed_fixtures().join("sigkill/logs");
    let tmp = tempfile::tempdir().unwrap();
    let logs = tmp.path().join("logs");
    test_support::copy_dir(&src, &logs);
    // many partitions: copies of kill-plain-0 (named in no checkpoint, so
    // recovered whole)
    for n in 1..=12 {
        test_support::copy_dir(&logs.join("kill-plain-0"), &logs.join(format!("kill-plain-{n}")));
    }
    let on_disk = bytes_under(&logs);
    // every active segment's indexes preallocated to 4 MiB (sparse: read
    // calls still return the zeros)
    let mut grown = 0;
    for part in std::fs::read_dir(&logs).unwrap().flatten().filter(|e| e.path().is_dir()) {
        let mut logs_of: Vec<_> = std::fs::read_dir(part.path())
            .unwrap()
            .flatten()
            .map(|e| e.path())
            .filter(|p| p.extension().is_some_and(|x| x == "log"))
            .collect();
        logs_of.sort();
        let Some(active) = logs_of.last() else { continue };
        for ext in ["index", "timeindex"] {
            let f = active.with_extension(ext);
            if f.exists() {
                std::fs::OpenOptions::new().write(true).open(&f).unwrap().set_len(4 << 20).unwrap();
                grown += 1;
            }
        }
    }
    assert!(grown >= 26, "{grown}");
    let opts = RecoverOptions {
        all: false,
        interval: Interval::FromMetadata,
        metadata: None,
        zookeeper: None,
        limits: logfmt::Limits::default(),
        allow_data_loss: false,
        roll: false,
        progress: Default::default(),
        kafka_version: None,
    };
    let before = rchar();
    let mut plan = DryRun::default();
    let recovered = recover(&logs, &opts, &mut plan).unwrap();
    let read = rchar() - before;
    assert!(recovered.iter().filter(|r| r.segments_recovered > 0).count() >= 13);
    // at most what the dir held before its indexes grew, and some slack
    assert!(read < on_disk + (1 << 20), "read {read} bytes of a dir of {on_disk} (+{grown} preallocated indexes)");
}
