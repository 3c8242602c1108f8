//! Builders for synthetic test data.

use crate::builder::{BatchBuilder, NewRecord};

/// An uncompressed batch of `n` records starting at `base_offset`.
pub fn batch(base_offset: i64, n: i32) -> Vec<u8> {
    let mut b = BatchBuilder::new(base_offset);
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

/// Concatenated entries.
pub fn segment(entries: &[Vec<u8>]) -> Vec<u8> {
    entries.concat()
}
