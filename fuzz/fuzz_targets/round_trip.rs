//! Batches written by logtool's writer (records cut from the input, every
//! codec) read back equal.
#![no_main]
use libfuzzer_sys::fuzz_target;
use logfmt::batch::RecordBatch;
use logfmt::compression::Compression;
use logfmt::builder::{BatchBuilder, NewRecord};

fuzz_target!(|data: &[u8]| {
    let Some((&codec, rest)) = data.split_first() else { return };
    let Some(compression) = Compression::from_id(codec % 5) else { return };
    // records: chunks of the input, a key of the first 3 bytes when the
    // chunk's first byte is odd
    let chunks: Vec<&[u8]> = rest.chunks(37).take(200).collect();
    let mut b = BatchBuilder::new(7);
    b.compression = compression;
    for (i, c) in chunks.iter().enumerate() {
        let key = (c.first().is_some_and(|x| x % 2 == 1)).then(|| &c[..c.len().min(3)]);
        let value = (c.len() != 5).then_some(*c);
        b.push(&NewRecord { timestamp: 1_700_000_000_000 + i as i64, key, value, headers: &[] });
    }
    if b.is_empty() {
        return;
    }
    let bytes = b.build();
    let parsed = RecordBatch::parse(&bytes, 0).expect("a written batch parses");
    assert!(parsed.is_valid(), "a written batch's CRC is valid");
    let mut scratch = Vec::new();
    let limits = logfmt::Limits::default();
    let mut records = parsed.records(&mut scratch, &limits).expect("records");
    let mut i = 0;
    while let Some(r) = records.next_record() {
        let r = r.expect("a record");
        let c = chunks[i];
        let key = (c.first().is_some_and(|x| x % 2 == 1)).then(|| &c[..c.len().min(3)]);
        let value = (c.len() != 5).then_some(c);
        assert_eq!(r.key, key);
        assert_eq!(r.value, value);
        assert_eq!(r.offset, 7 + i as i64);
        i += 1;
    }
    assert_eq!(i, chunks.len());
});
