//! One legacy (v0/v1) log entry: the message, its CRC, and a compressed
//! wrapper's inner messages (read twice from the decompressor: checked,
//! then as asked for), under a small memory budget.
#![no_main]
use libfuzzer_sys::fuzz_target;
use logfmt::cursor::End;
use logfmt::legacy::LegacyMessage;

fuzz_target!(|data: &[u8]| {
    static BUDGET: std::sync::OnceLock<&'static logfmt::budget::Budget> = std::sync::OnceLock::new();
    let budget = BUDGET.get_or_init(|| logfmt::budget::Budget::leak(4 << 20));
    let limits = logfmt::Limits { max_decompressed_size: 1 << 20, budget, ..logfmt::Limits::default() };
    // the first entry, by its size field (a whole segment seeds it)
    let size = data.get(8..12).map_or(0, |b| i32::from_be_bytes(b.try_into().unwrap_or([0; 4])));
    let entry = data.get(..12 + usize::try_from(size).unwrap_or(0)).unwrap_or(data);
    let Ok(m) = LegacyMessage::parse(entry, 0, End::File) else { return };
    let _ = m.is_valid();
    let mut scratch = Vec::new();
    if let Ok(mut records) = m.records(&mut scratch, &limits) {
        let count = records.record_count();
        let mut read = 0u32;
        while let Some(r) = records.next_record() {
            let Ok(r) = r else { break };
            let _ = (r.offset, r.timestamp, r.message.key, r.message.value, r.message.is_valid());
            read += 1;
        }
        // the first pass counted what the second reads
        assert_eq!(read, count, "inner messages counted {count}, read {read}");
    }
    assert_eq!(budget.used(), 0, "memory held after the entry");
});
