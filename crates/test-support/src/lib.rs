//! What logtool's tests share (a dev-dependency only): where the fixtures
//! are, copies of them to damage, and the CRC of a forged batch. Test code:
//! it panics on what it cannot do.
#![allow(clippy::restriction)] // test code: [workspace.lints] is for library code

use std::path::{Path, PathBuf};

/// The workspace root.
pub fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// The committed Kafka 3.9.1 fixtures (`fixtures/kafka-3.9.1`), whatever
/// the environment says: for tests of exact bytes of one file.
pub fn committed_fixtures() -> PathBuf {
    root().join("fixtures").join("kafka-3.9.1")
}

/// The Kafka 3.9.1 fixtures: the committed ones, or `$LOGTOOL_FIXTURES`
/// (the interop suite's fresh ones).
pub fn fixtures() -> PathBuf {
    match std::env::var_os("LOGTOOL_FIXTURES") {
        Some(dir) => PathBuf::from(dir),
        None => committed_fixtures(),
    }
}

/// The Kafka 4.3.1 fixtures: the committed ones, or `$LOGTOOL_FIXTURES_4`.
pub fn fixtures_4() -> PathBuf {
    match std::env::var_os("LOGTOOL_FIXTURES_4") {
        Some(dir) => PathBuf::from(dir),
        None => root().join("fixtures").join("kafka-4.3.1"),
    }
}

/// Every Kafka 4.x fixture dir: `LOGTOOL_FIXTURES_4` alone when it is set
/// (fresh data), else the committed 4.3.1 and 4.4.0 ones.
pub fn fixtures_4x() -> Vec<PathBuf> {
    match std::env::var_os("LOGTOOL_FIXTURES_4") {
        Some(dir) => vec![PathBuf::from(dir)],
        None => vec![root().join("fixtures").join("kafka-4.3.1"), root().join("fixtures").join("kafka-4.4.0")],
    }
}

/// Every `tiered` scenario dir (tiered storage): Kafka 3.9.1's
/// ([`fixtures`]), and each 4.x one of [`fixtures_4x`] that has it.
pub fn tiered_dirs() -> Vec<PathBuf> {
    let mut out = vec![fixtures().join("tiered")];
    out.extend(fixtures_4x().into_iter().map(|d| d.join("tiered")).filter(|d| d.is_dir()));
    out
}

/// Every file under `dir`, sorted.
pub fn files_under(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for e in std::fs::read_dir(&d).unwrap() {
            let p = e.unwrap().path();
            if p.is_dir() {
                stack.push(p);
            } else {
                out.push(p);
            }
        }
    }
    out.sort();
    out
}

/// Copy the tree `src` to `dst` (created).
pub fn copy_dir(src: &Path, dst: &Path) {
    std::fs::create_dir_all(dst).unwrap();
    for f in files_under(src) {
        let to = dst.join(f.strip_prefix(src).unwrap());
        std::fs::create_dir_all(to.parent().unwrap()).unwrap();
        std::fs::copy(&f, &to).unwrap();
    }
}

/// Copy a directory tree into a fresh temp dir; returns the guard and the copy.
pub fn copy_tree(src: &Path) -> (tempfile::TempDir, PathBuf) {
    let tmp = tempfile::tempdir().unwrap();
    let dst = tmp.path().join(src.file_name().unwrap());
    copy_dir(src, &dst);
    (tmp, dst)
}

/// An uncompressed v2 batch of `n` records (key `k`, values `value-i`)
/// starting at `base_offset`, as `logfmt::builder` writes it.
pub fn batch(base_offset: i64, n: i32) -> Vec<u8> {
    idempotent_batch(base_offset, -1, -1, n)
}

/// [`batch`] of producer `producer_id` (epoch 0) from sequence
/// `base_sequence` (-1 and -1: no producer).
pub fn idempotent_batch(base_offset: i64, producer_id: i64, base_sequence: i32, n: i32) -> Vec<u8> {
    use logfmt::builder::{BatchBuilder, NewRecord};
    let mut b = BatchBuilder::new(base_offset);
    if producer_id >= 0 {
        b.producer_id = producer_id;
        b.producer_epoch = 0;
        b.base_sequence = base_sequence;
    }
    for i in 0..n {
        let v = format!("value-{i}");
        b.push(&NewRecord {
            timestamp: 1_700_000_000_000 + i64::from(i),
            key: Some(b"k"),
            value: Some(v.as_bytes()),
            headers: &[],
        });
    }
    b.build()
}

/// Damage the segment at `log` three ways: a flipped byte a third in (a
/// batch whose CRC no longer holds), 100 bytes of garbage inserted halfway
/// (between or inside batches) and a torn tail (its last 7 bytes gone).
pub fn damage_three_ways(log: &Path) {
    let mut bytes = std::fs::read(log).unwrap();
    let n = bytes.len();
    bytes[n / 3] ^= 0x55;
    bytes.splice(n / 2..n / 2, [0xab; 100]);
    bytes.truncate(bytes.len() - 7);
    std::fs::write(log, &bytes).unwrap();
}

/// Recompute the CRC-32C of the v2 batch that `batch` holds (from its first
/// byte), after editing it: the CRC covers the attributes to the end.
pub fn fix_crc(batch: &mut [u8]) {
    use logfmt::spec::batch::{ATTRIBUTES_OFFSET, CRC_OFFSET};
    let crc = crc32c::crc32c(&batch[ATTRIBUTES_OFFSET..]);
    batch[CRC_OFFSET..CRC_OFFSET + 4].copy_from_slice(&crc.to_be_bytes());
}
