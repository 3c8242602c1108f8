//! ZooKeeper's data dir (`version-2/`): the input is a snapshot's length
//! (2 bytes, big-endian), the snapshot, then a transaction log, read as
//! `--zookeeper-data` reads them and turned into Kafka's topic configs
//! (fuzz/run.sh seeds it with the fixtures' real ones).
#![no_main]
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Some((len, rest)) = data.split_first_chunk::<2>() else { return };
    let (snapshot, log) = rest.split_at(usize::from(u16::from_be_bytes(*len)).min(rest.len()));
    let Ok(dir) = tempfile::tempdir() else { return };
    let v2 = dir.path().join("version-2");
    if std::fs::create_dir(&v2).is_err()
        || std::fs::write(v2.join("snapshot.5"), snapshot).is_err()
        || std::fs::write(v2.join("log.1"), log).is_err()
    {
        return;
    }
    if let Ok(tree) = logfmt::zookeeper::read_data_dir(dir.path()) {
        let meta = tree.cluster_metadata();
        let _ = meta.topic_config("t", logfmt::metadata::CLEANUP_POLICY, Some("1"));
        let _ = tree.migration();
    }
});
