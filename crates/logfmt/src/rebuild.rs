//! Rebuilding a segment's indexes exactly as Kafka's recovery does.
//!
//! Mirrors `LogSegment.recover` (Kafka 3.9): read the batches from position 0;
//! stop at the first one Kafka would reject (bad CRC, too small, a torn or
//! damaged entry); at every batch that starts more than
//! `index.interval.bytes` after the last index point, add an offset index
//! entry (the batch's *last* offset, its position) and a time index entry for
//! the running maximum timestamp (if it grew); at the end add the "roll" time
//! index entry. Leader epochs rising in the batches are collected as Kafka's
//! epoch cache assigns them, and aborted transactions produce transaction
//! index entries, which needs each producer's open transaction as of the
//! segment's start ([`TxnState`]).
//!
//! An offset that does not increase at an index point makes Kafka's
//! `OffsetIndex.append` throw; the loader then empties the whole segment
//! ([`Stop::IndexOffsetRegression`]). A batch larger than our own limit is not
//! something Kafka would reject, so it is reported ([`Stop::OverLimit`]) and
//! callers must not truncate there.

use std::collections::{BTreeMap, HashMap};
use std::path::Path;

use crate::batch::BatchHeader;
use crate::control::{self, ControlRecord};
use crate::error::{Error, ErrorKind, Result};
use crate::index::TxnIndexEntry;
use crate::limits::Limits;
use crate::log::{Entry, Item, LogReader};
use crate::snapshot::ProducerSnapshot;
use crate::spec::index as layout;

/// Each producer's open transaction, as Kafka's `ProducerStateManager` keeps it.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct TxnState {
    /// first offset of an open transaction → its producer (Kafka's `ongoingTxns`)
    ongoing: BTreeMap<i64, i64>,
    /// producer → first offset of its open transaction
    by_producer: HashMap<i64, i64>,
}

impl TxnState {
    /// The open transactions recorded in a producer snapshot.
    pub fn from_snapshot(s: &ProducerSnapshot) -> TxnState {
        let mut t = TxnState::default();
        for e in &s.entries {
            if let Some(first) = e.open_transaction() {
                t.ongoing.insert(first, e.producer_id);
                t.by_producer.insert(e.producer_id, first);
            }
        }
        t
    }

    /// Apply a v2 batch (`marker`: its end-transaction marker, for control
    /// batches). Returns the transaction index entry of an aborted transaction
    /// the batch completes.
    pub fn apply(&mut self, h: &BatchHeader, marker: Option<bool>) -> Option<TxnIndexEntry> {
        if h.producer_id < 0 {
            return None;
        }
        if h.is_control() {
            let commit = marker?;
            let first = self.by_producer.get(&h.producer_id).copied().unwrap_or(h.base_offset);
            // Kafka's lastStableOffset: the earliest other open transaction, or after the marker
            let lso = self
                .ongoing
                .iter()
                .find(|(_, pid)| **pid != h.producer_id)
                .map_or(h.last_offset().wrapping_add(1), |(first, _)| *first);
            if let Some(f) = self.by_producer.remove(&h.producer_id) {
                self.ongoing.remove(&f);
            }
            return (!commit).then_some(TxnIndexEntry {
                version: layout::TXN_INDEX_VERSION,
                producer_id: h.producer_id,
                first_offset: first,
                last_offset: h.last_offset(),
                last_stable_offset: lso,
            });
        }
        if h.is_transactional() && !self.by_producer.contains_key(&h.producer_id) {
            self.by_producer.insert(h.producer_id, h.base_offset);
            self.ongoing.insert(h.base_offset, h.producer_id);
        }
        None
    }
}

/// The end-transaction marker of a control batch (`Some(commit)`), if it is one.
pub fn marker(b: &crate::batch::RecordBatch<'_>, scratch: &mut Vec<u8>, limits: &Limits) -> Option<bool> {
    let mut records = b.records(scratch, limits).ok()?;
    let rec = records.next()?.ok()?;
    match control::parse(&rec, b.position()).ok()? {
        ControlRecord::EndTxn(m) => Some(m.commit),
        _ => None,
    }
}

/// Why recovery stopped before the end of the segment.
#[derive(Debug)]
pub enum Stop {
    /// A batch Kafka rejects (or unreadable bytes): the log is cut here.
    Invalid {
        /// Where.
        position: u64,
        /// What is wrong.
        error: Error,
        /// Whether the rest of the file is a torn final write.
        torn_tail: bool,
    },
    /// An offset went backwards at an index point: Kafka empties the segment.
    IndexOffsetRegression {
        /// The offending batch's position.
        position: u64,
        /// Its last offset.
        offset: i64,
        /// The last indexed offset.
        previous: i64,
    },
    /// A batch larger than `Limits::max_batch_size`: not an error to Kafka;
    /// nothing may be cut until the limit is raised.
    OverLimit {
        /// Where.
        position: u64,
        /// What is wrong.
        error: Error,
    },
}

/// What rebuilding one segment produced.
#[derive(Debug)]
pub struct Rebuilt {
    /// Bytes of the log Kafka keeps (the file is cut here).
    pub valid_bytes: u64,
    /// The file's size.
    pub size: u64,
    /// Why it stopped early, if it did.
    pub stop: Option<Stop>,
    /// The new `.index` file.
    pub offset_index: Vec<u8>,
    /// The new `.timeindex` file.
    pub time_index: Vec<u8>,
    /// Aborted transactions of the segment, in order (`.txnindex` entries).
    pub txn_index: Vec<TxnIndexEntry>,
    /// (epoch, base offset) where a higher leader epoch first appears.
    pub epochs: Vec<(i32, i64)>,
    /// Offset after the last valid batch, if any.
    pub next_offset: Option<i64>,
    /// Batches kept.
    pub batches: u64,
}

impl Rebuilt {
    /// The `.txnindex` bytes.
    pub fn txn_index_bytes(&self) -> Vec<u8> {
        let mut out = Vec::with_capacity(self.txn_index.len().saturating_mul(layout::TXN_INDEX_ENTRY_SIZE));
        for e in &self.txn_index {
            out.extend(e.version.to_be_bytes());
            out.extend(e.producer_id.to_be_bytes());
            out.extend(e.first_offset.to_be_bytes());
            out.extend(e.last_offset.to_be_bytes());
            out.extend(e.last_stable_offset.to_be_bytes());
        }
        out
    }
}

/// Recover one segment as Kafka would: see the module docs. `txn` is the
/// producer state at the segment's start and is advanced through it;
/// `latest_epoch` is the epoch cache's latest epoch before the segment.
pub fn rebuild_segment(
    log: &Path,
    base_offset: i64,
    index_interval_bytes: u64,
    txn: &mut TxnState,
    latest_epoch: Option<i32>,
    limits: &Limits,
) -> Result<Rebuilt> {
    let mut r = LogReader::open(log, *limits)?;
    let size = r.end();
    let mut out = Rebuilt {
        valid_bytes: 0,
        size,
        stop: None,
        offset_index: Vec::new(),
        time_index: Vec::new(),
        txn_index: Vec::new(),
        epochs: Vec::new(),
        next_offset: None,
        batches: 0,
    };
    let mut last_index_entry = 0u64;
    let mut last_indexed_offset: Option<i64> = None;
    let mut max_ts = (-1i64, base_offset); // (timestamp, offset), Kafka's TimestampOffset.UNKNOWN
    let mut time_last = (-1i64, base_offset);
    let mut epoch = latest_epoch;
    let mut scratch = Vec::new();
    let time_append = |out: &mut Rebuilt, last: &mut (i64, i64), ts: i64, offset: i64| {
        if ts > last.0 {
            out.time_index.extend(ts.to_be_bytes());
            out.time_index.extend(relative(offset, base_offset).to_be_bytes());
            *last = (ts, offset);
        }
    };
    while let Some(item) = r.next_item()? {
        let entry = match item {
            Item::Entry(e) => e,
            Item::Damage(d) => {
                let over =
                    matches!(d.error.kind(), ErrorKind::BadLength { what, .. } if what.contains("max-batch-size"));
                out.stop = Some(if over {
                    Stop::OverLimit { position: d.start, error: d.error }
                } else {
                    Stop::Invalid { position: d.start, error: d.error, torn_tail: d.truncated_tail }
                });
                break;
            }
        };
        let pos = entry.position();
        if !entry.is_valid() {
            let e = Error::malformed(pos, "record batch", "CRC mismatch: Kafka's recovery stops here");
            out.stop = Some(Stop::Invalid { position: pos, error: e, torn_tail: false });
            break;
        }
        let last = entry.last_offset();
        let batch_max_ts = match &entry {
            Entry::V2(b) => b.header().max_timestamp,
            Entry::Legacy(m) => m.timestamp,
        };
        if batch_max_ts > max_ts.0 {
            max_ts = (batch_max_ts, last);
        }
        if out.valid_bytes.saturating_sub(last_index_entry) > index_interval_bytes {
            if last_indexed_offset.is_some_and(|p| last <= p) {
                out.stop = Some(Stop::IndexOffsetRegression {
                    position: pos,
                    offset: last,
                    previous: last_indexed_offset.unwrap_or(last),
                });
                out.valid_bytes = 0;
                out.offset_index.clear();
                out.time_index.clear();
                out.txn_index.clear();
                out.epochs.clear();
                out.next_offset = None;
                out.batches = 0;
                return Ok(out);
            }
            out.offset_index.extend(relative(last, base_offset).to_be_bytes());
            out.offset_index.extend(i32::try_from(out.valid_bytes).unwrap_or(i32::MAX).to_be_bytes());
            last_indexed_offset = Some(last);
            time_append(&mut out, &mut time_last, max_ts.0, max_ts.1);
            last_index_entry = out.valid_bytes;
        }
        out.valid_bytes = out.valid_bytes.saturating_add(entry.size());
        out.batches = out.batches.saturating_add(1);
        out.next_offset = Some(last.wrapping_add(1));
        if let Entry::V2(b) = &entry {
            let h = *b.header();
            if h.partition_leader_epoch >= 0 && epoch.is_none_or(|e| h.partition_leader_epoch > e) {
                epoch = Some(h.partition_leader_epoch);
                out.epochs.push((h.partition_leader_epoch, h.base_offset));
            }
            let m = if h.is_control() { marker(b, &mut scratch, limits) } else { None };
            if let Some(aborted) = txn.apply(&h, m) {
                out.txn_index.push(aborted);
            }
        }
    }
    // the entry a closed segment ends with
    time_append(&mut out, &mut time_last, max_ts.0, max_ts.1);
    Ok(out)
}

fn relative(offset: i64, base: i64) -> i32 {
    i32::try_from(offset.wrapping_sub(base)).unwrap_or(i32::MAX)
}

/// Replay `log` (headers only) into `txn`, up to offset `until` (exclusive).
pub fn replay_txn_state(log: &Path, from: i64, until: i64, txn: &mut TxnState, limits: &Limits) -> Result<()> {
    let mut r = LogReader::open(log, *limits)?;
    let mut scratch = Vec::new();
    while let Some(item) = r.next_item()? {
        let Item::Entry(Entry::V2(b)) = item else { continue };
        let h = *b.header();
        if h.base_offset >= until {
            break;
        }
        if h.last_offset() < from || !b.is_valid() {
            continue;
        }
        let m = if h.is_control() { marker(&b, &mut scratch, limits) } else { None };
        txn.apply(&h, m);
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::path::PathBuf;

    fn fixtures() -> PathBuf {
        Path::new(env!("CARGO_MANIFEST_DIR")).join("../../fixtures/kafka-3.9.1")
    }

    /// A segment the broker rolled and closed was indexed on append; rebuilt
    /// by recovery it must give the same files when nothing made the broker's
    /// byte counter restart (no restart, truncation or multi-batch append) in
    /// it: the first segments of partitions written in one go.
    #[test]
    fn rebuilt_indexes_equal_the_brokers_for_segments_written_in_one_go() {
        for (dir, interval) in
            [("clean/logs/plain-0", 1024), ("clean/logs/txn-0", 512), ("sigkill/logs/kill-plain-0", 1024)]
        {
            let d = fixtures().join(dir);
            let base = d.join("00000000000000000000");
            let mut txn = TxnState::default();
            let r =
                rebuild_segment(&base.with_extension("log"), 0, interval, &mut txn, None, &Limits::default()).unwrap();
            assert!(r.stop.is_none(), "{dir}: {:?}", r.stop);
            assert_eq!(r.valid_bytes, r.size);
            assert_eq!(r.offset_index, std::fs::read(base.with_extension("index")).unwrap(), "{dir} .index");
            assert_eq!(r.time_index, std::fs::read(base.with_extension("timeindex")).unwrap(), "{dir} .timeindex");
            if let Ok(txn) = std::fs::read(base.with_extension("txnindex")) {
                assert_eq!(r.txn_index_bytes(), txn, "{dir} .txnindex");
            }
        }
    }
}
