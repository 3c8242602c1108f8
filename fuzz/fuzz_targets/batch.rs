//! One v2 record batch: header, CRC, every record (any codec, the
//! decompressed size bounded by the limits), its headers.
#![no_main]
use libfuzzer_sys::fuzz_target;
use logfmt::batch::RecordBatch;

fuzz_target!(|data: &[u8]| {
    let limits = logfmt::Limits { max_decompressed_size: 1 << 20, ..logfmt::Limits::default() };
    let Ok(b) = RecordBatch::parse(data, 0) else { return };
    let _ = b.is_valid();
    let mut scratch = Vec::new();
    let Ok(records) = b.records(&mut scratch, &limits) else { return };
    for r in records {
        let Ok(r) = r else { break };
        for h in r.headers.iter() {
            let _ = (h.key, h.value);
        }
    }
});
