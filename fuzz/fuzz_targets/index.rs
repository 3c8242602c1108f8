//! `.index`, `.timeindex` and `.txnindex` bytes, and lookups in them.
#![no_main]
use libfuzzer_sys::fuzz_target;
use logfmt::index::{IndexKind, IndexReader};

fuzz_target!(|data: &[u8]| {
    for kind in [IndexKind::Offset, IndexKind::Time, IndexKind::Txn] {
        let r = IndexReader::new(std::io::Cursor::new(data), data.len() as u64, kind, 1000);
        for e in r {
            if e.is_err() {
                break;
            }
        }
    }
});
