//! The records of a divergent range, for people to look at: offset, epoch,
//! timestamp, key and a digest of the value. Partition dirs only (a digest
//! holds no records).

use std::path::Path;

use logfmt::index::lookup_offset;
use logfmt::limits::Limits;
use logfmt::log::{Entry, Item};
use logfmt::partition::{LogDirCheckpoints, Partition};
use logfmt::spec::names as n;

use crate::error::Result;

/// A record as a filter sees it (`keep` of [`records_from`]).
pub struct Candidate<'a> {
    /// Its batch's producer id (-1 for none and for legacy messages).
    pub producer_id: i64,
    /// Its batch is transactional.
    pub is_transactional: bool,
    /// Key (`None`: null).
    pub key: Option<&'a [u8]>,
    /// Value (`None`: null).
    pub value: Option<&'a [u8]>,
    /// Headers: (key, value).
    pub headers: Vec<(&'a [u8], Option<&'a [u8]>)>,
}

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

/// Records of the partition dir `dir` at or after `from` that `keep`
/// accepts, at most `limit`; the flag says whether more follow. The offset
/// index finds where to start.
pub fn records_from(
    dir: &Path,
    from: i64,
    limit: usize,
    limits: &Limits,
    keep: &dyn Fn(&Candidate<'_>) -> bool,
) -> Result<(Vec<DivergentRecord>, bool)> {
    let p = Partition::open_with(dir, &LogDirCheckpoints::default())?;
    let first = p.segments.iter().rposition(|s| s.base <= from).unwrap_or(0);
    let mut out = Vec::new();
    let mut scratch = Vec::new();
    for (i, seg) in p.segments.iter().enumerate().skip(first) {
        let in_seg = |e: logfmt::Error| e.with_path(&seg.log);
        let mut r = seg.reader(limits).map_err(in_seg)?;
        if i == first {
            let at = lookup_offset(&seg.sibling(n::INDEX_FILE_SUFFIX), seg.base, from)
                .ok()
                .flatten()
                .and_then(|e| u64::try_from(e.position).ok())
                .unwrap_or(0);
            r.seek(at);
        }
        while let Some(item) = r.next_item().map_err(in_seg)? {
            let Item::Entry(e) = item else { return Ok((out, false)) };
            // (offset, timestamp, key, value) of each record at or after `from`
            let mut push = |offset: i64, timestamp: i64, c: Candidate<'_>, epoch, control| {
                if offset < from || !keep(&c) {
                    return true;
                }
                let (key, value) = (c.key, c.value);
                if out.len() >= limit {
                    return false;
                }
                out.push(DivergentRecord {
                    offset,
                    epoch,
                    timestamp,
                    key: key.map(<[u8]>::to_vec),
                    value_size: value.map_or(-1, |v| v.len() as i64),
                    value_crc32c: value.map(logfmt::crc::crc32c),
                    is_control: control,
                });
                true
            };
            match e {
                Entry::V2(b) => {
                    let h = b.header();
                    if h.last_offset() < from {
                        continue;
                    }
                    let mut records = b.records(&mut scratch, limits).map_err(in_seg)?;
                    while let Some(rec) = records.next_record() {
                        let rec = rec.map_err(in_seg)?;
                        let c = Candidate {
                            producer_id: h.producer_id,
                            is_transactional: h.is_transactional(),
                            key: rec.key,
                            value: rec.value,
                            headers: rec.headers.iter().map(|hd| (hd.key, hd.value)).collect(),
                        };
                        if !push(rec.offset, rec.timestamp, c, h.partition_leader_epoch, h.is_control()) {
                            return Ok((out, true));
                        }
                    }
                }
                Entry::Legacy(m) => {
                    if m.offset < from {
                        continue;
                    }
                    let mut records = m.records(&mut scratch, limits).map_err(in_seg)?;
                    while let Some(rec) = records.next_record() {
                        let rec = rec.map_err(in_seg)?;
                        let c = Candidate {
                            producer_id: -1,
                            is_transactional: false,
                            key: rec.message.key,
                            value: rec.message.value,
                            headers: Vec::new(),
                        };
                        if !push(rec.offset, rec.timestamp, c, -1, false) {
                            return Ok((out, true));
                        }
                    }
                }
            }
        }
    }
    Ok((out, false))
}
