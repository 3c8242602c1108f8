//! The small files of a log dir: producer snapshots, offset checkpoints,
//! `leader-epoch-checkpoint`, `partition.metadata`, `meta.properties`
//! (Java properties), and replica digests (`logtool digest`).
#![no_main]
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let _ = logfmt::snapshot::parse(data);
    let _ = logfmt::checkpoint::parse_offsets(data);
    let _ = logfmt::checkpoint::parse_epochs(data);
    let _ = logfmt::properties::parse_partition_metadata(data);
    let _ = logfmt::properties::parse_java_properties(&String::from_utf8_lossy(data));
    if let Ok(dir) = tempfile::tempdir() {
        let path = dir.path().join("digest");
        if std::fs::write(&path, data).is_ok()
            && let Ok((_, mut stream)) = repl_check::digest::open(&path)
        {
            use repl_check::replica::BatchStream;
            while let Ok(Some(_)) = stream.next_batch() {}
        }
    }
});
