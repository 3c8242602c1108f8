//! One v2 record batch: header, CRC, every record (any codec, decoded as it
//! streams out of the decompressor, under a small memory budget), its
//! headers; and `summarize` (the fast path, records walked as they stream
//! past) agrees with reading record by record.
#![no_main]
use libfuzzer_sys::fuzz_target;
use logfmt::batch::RecordBatch;

fn limits() -> logfmt::Limits {
    static BUDGET: std::sync::OnceLock<&'static logfmt::budget::Budget> = std::sync::OnceLock::new();
    let budget = BUDGET.get_or_init(|| logfmt::budget::Budget::leak(4 << 20));
    logfmt::Limits { max_decompressed_size: 1 << 20, budget, ..logfmt::Limits::default() }
}

fuzz_target!(|data: &[u8]| {
    let limits = limits();
    let Ok(b) = RecordBatch::parse(data, 0) else { return };
    let _ = b.is_valid();
    let mut scratch = Vec::new();
    let Ok(mut records) = b.records(&mut scratch, &limits) else { return };
    let mut read = Some(0i32);
    while let Some(r) = records.next_record() {
        match r {
            Ok(r) => {
                for h in r.headers.iter() {
                    let _ = (h.key, h.value);
                }
                read = read.map(|n| n + 1);
            }
            Err(_) => read = None,
        }
    }
    drop(records);
    let summary = b.records(&mut scratch, &limits).and_then(|r| r.summarize());
    if let (Some(n), Ok(s)) = (read, &summary) {
        assert_eq!(n, s.count, "summarize and reading disagree");
    }
    if read.is_some() {
        assert!(summary.is_ok(), "reading succeeded, summarize did not: {summary:?}");
    }
    logfmt::compression::release_thread_caches();
    assert_eq!(limits.budget.used(), 0, "memory held after the batch");
});
