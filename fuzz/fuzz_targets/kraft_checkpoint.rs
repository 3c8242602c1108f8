//! A KRaft snapshot (`.checkpoint` in `__cluster_metadata-0`): replayed as
//! the metadata log is (topic names, configs, placements), and checked by
//! `verify` as a file.
#![no_main]
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Ok(dir) = tempfile::tempdir() else { return };
    let meta = dir.path().join("__cluster_metadata-0");
    if std::fs::create_dir(&meta).is_err() {
        return;
    }
    let snapshot = meta.join("00000000000000000000-0000000000.checkpoint");
    if std::fs::write(&snapshot, data).is_err() {
        return;
    }
    let limits = logfmt::Limits { max_decompressed_size: 1 << 20, ..logfmt::Limits::default() };
    if let Ok(Some(m)) = logfmt::metadata::read_metadata_at(&snapshot, &limits) {
        let _ = m.partition_count("t");
        let _ = m.topic_config("t", logfmt::metadata::INDEX_INTERVAL_BYTES, Some("1"));
    }
    let _ = logfmt::metadata::read_metadata_dir(&meta, &limits);
    let opts = inspect::verify::Options { limits, max_per_kind: 10, read_ahead: false, ..Default::default() };
    let _ = inspect::verify::check_file(&snapshot, &opts, &|_| {});
});
