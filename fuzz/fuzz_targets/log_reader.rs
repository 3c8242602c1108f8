//! A whole segment's bytes through the reader every command uses: v2
//! batches, legacy message sets (and their compressed wrappers), damage
//! and resynchronisation.
#![no_main]
use libfuzzer_sys::fuzz_target;
use logfmt::log::{Entry, Item, LogReader};

fuzz_target!(|data: &[u8]| {
    let limits = logfmt::Limits { max_decompressed_size: 1 << 20, ..logfmt::Limits::default() };
    let mut r = LogReader::new(std::io::Cursor::new(data), data.len() as u64, limits);
    let mut scratch = Vec::new();
    while let Ok(Some(item)) = r.next_item() {
        match item {
            Item::Entry(Entry::V2(b)) => {
                if let Ok(mut records) = b.records(&mut scratch, &limits) {
                    while let Some(rec) = records.next_record() {
                        if rec.is_err() {
                            break;
                        }
                    }
                }
            }
            Item::Entry(Entry::Legacy(m)) => {
                if let Ok(mut records) = m.records(&mut scratch, &limits) {
                    while let Some(rec) = records.next_record() {
                        if rec.is_err() {
                            break;
                        }
                    }
                }
            }
            Item::Damage(_) => {}
        }
    }
});
