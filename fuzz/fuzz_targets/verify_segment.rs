//! The verify pipeline on one segment file (with an offset index and a
//! time index cut from the same input), as `logtool verify FILE` runs it.
#![no_main]
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Ok(dir) = tempfile::tempdir() else { return };
    let part = dir.path().join("t-0");
    if std::fs::create_dir(&part).is_err() {
        return;
    }
    // the first byte splits the input: the index files, then the log
    let (cut, rest) = data.split_first().map_or((0, data), |(c, r)| (usize::from(*c) * 8, r));
    let (index, log) = rest.split_at(cut.min(rest.len()));
    let (offsets, times) = index.split_at(index.len() / 2);
    let _ = std::fs::write(part.join("00000000000000000000.index"), offsets);
    let _ = std::fs::write(part.join("00000000000000000000.timeindex"), times);
    let seg = part.join("00000000000000000000.log");
    if std::fs::write(&seg, log).is_err() {
        return;
    }
    let opts = inspect::verify::Options {
        limits: logfmt::Limits { max_decompressed_size: 1 << 20, ..logfmt::Limits::default() },
        max_per_kind: 10,
        read_ahead: false,
        kafka_version: None,
        // both ways of checking batches (headers only, every record), by the input's last bit
        deep: data.last().is_some_and(|b| b & 1 == 1),
    };
    let log_dir = logfmt::partition::LogDir::read(dir.path(), &opts.limits);
    let _ = inspect::verify::check_partition(&part, &log_dir, &opts, &|_| {});
    let _ = inspect::verify::check_file(&seg, &opts, &|_| {});
});
