//! The records of a divergent range, for people to look at: offset, epoch,
//! timestamp, key and a digest of the value. Partition dirs only (a digest
//! holds no records).

use std::path::Path;

use logfmt::index::lookup_offset;
use logfmt::limits::Limits;
use logfmt::log::{Entry, Item, LogReader};
use logfmt::repair::partition::Partition;
use logfmt::spec::names as n;

use crate::error::Result;

/// One record.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DivergentRecord {
    /// Offset.
    pub offset: i64,
    /// Its batch's `partition_leader_epoch` (-1 for legacy).
    pub epoch: i32,
    /// Timestamp.
    pub timestamp: i64,
    /// Key (`None`: null).
    pub key: Option<Vec<u8>>,
    /// Value size (-1: null).
    pub value_size: i64,
    /// CRC-32C of the value (`None`: null).
    pub value_crc32c: Option<u32>,
    /// A control record (transaction marker).
    pub is_control: bool,
}

/// Records of the partition dir `dir` at or after `from`, at most `limit`;
/// the flag says whether more follow. The offset index finds where to start.
pub fn records_from(dir: &Path, from: i64, limit: usize, limits: &Limits) -> Result<(Vec<DivergentRecord>, bool)> {
    let p = Partition::load(dir)?;
    let first = p.segments.iter().rposition(|s| s.base <= from).unwrap_or(0);
    let mut out = Vec::new();
    let mut scratch = Vec::new();
    for (i, seg) in p.segments.iter().enumerate().skip(first) {
        let mut r = LogReader::open(&seg.log, *limits)?;
        if i == first {
            let at = lookup_offset(&seg.sibling(n::INDEX_FILE_SUFFIX), seg.base, from)
                .ok()
                .flatten()
                .and_then(|e| u64::try_from(e.position).ok())
                .unwrap_or(0);
            r.seek(at);
        }
        while let Some(item) = r.next_item()? {
            let Item::Entry(e) = item else { return Ok((out, false)) };
            match e {
                Entry::V2(b) => {
                    let h = b.header();
                    if h.last_offset() < from {
                        continue;
                    }
                    for rec in b.records(&mut scratch, limits)? {
                        let rec = rec?;
                        if rec.offset < from {
                            continue;
                        }
                        if out.len() >= limit {
                            return Ok((out, true));
                        }
                        out.push(DivergentRecord {
                            offset: rec.offset,
                            epoch: h.partition_leader_epoch,
                            timestamp: rec.timestamp,
                            key: rec.key.map(<[u8]>::to_vec),
                            value_size: rec.value_size(),
                            value_crc32c: rec.value.map(crc32c::crc32c),
                            is_control: h.is_control(),
                        });
                    }
                }
                Entry::Legacy(m) => {
                    if m.offset < from {
                        continue;
                    }
                    for rec in m.records(&mut scratch, limits)? {
                        let rec = rec?;
                        if rec.offset < from {
                            continue;
                        }
                        if out.len() >= limit {
                            return Ok((out, true));
                        }
                        out.push(DivergentRecord {
                            offset: rec.offset,
                            epoch: -1,
                            timestamp: rec.timestamp,
                            key: rec.message.key.map(<[u8]>::to_vec),
                            value_size: rec.message.value_size(),
                            value_crc32c: rec.message.value.map(crc32c::crc32c),
                            is_control: false,
                        });
                    }
                }
            }
        }
    }
    Ok((out, false))
}
