//! Kafka's log cleaner (compaction), as rules: what one cleaning pass of
//! Kafka 3.9 may clean, how it groups segments, and what it keeps of each
//! batch and record. Each function names the Kafka code it follows
//! (`LogCleanerManager.cleanableOffsets`, `Cleaner.groupSegmentsBySize`,
//! `CleanedTransactionMetadata`, `Cleaner.cleanInto` and `shouldRetainRecord`,
//! `MemoryRecords.filterTo`).
//!
//! Nothing here reads or writes a file: a planner walks the segments and
//! asks. Invariants: offsets are compared as Kafka compares them; every
//! decision takes only what Kafka's takes (no wall clock: `now` is given).

use std::cmp::Reverse;
use std::collections::{BTreeSet, BinaryHeap, HashMap};
use std::ops::Range;

use crate::index::TxnIndexEntry;

/// The range one cleaning pass works on (`OffsetsToClean`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct CleanableOffsets {
    /// Where the dirty part starts: the cleaner checkpoint, else the log
    /// start.
    pub first_dirty: i64,
    /// The first offset the pass may not clean (at least `first_dirty`).
    pub first_uncleanable: i64,
    /// The checkpoint was outside the log (below its start or past its
    /// end) and is reset to the log start.
    pub checkpoint_reset: bool,
}

/// What [`cleanable_offsets`] needs of a partition.
#[derive(Clone, Copy, Debug)]
pub struct CleanerView<'a> {
    /// The log start offset.
    pub log_start: i64,
    /// The log end offset.
    pub log_end: i64,
    /// The last stable offset (already capped by the high watermark).
    pub last_stable_offset: i64,
    /// The active (last) segment's base offset.
    pub active_base: i64,
    /// Every segment but the active one, in order: (base offset, largest
    /// timestamp).
    pub inactive: &'a [(i64, i64)],
}

/// `LogCleanerManager.cleanableOffsets`: from the cleaner checkpoint
/// (`last_clean`; reset to the log start when it lies outside the log) to
/// the first offset that cannot be cleaned: the last stable offset, the
/// active segment, and the first dirty inactive segment whose largest
/// timestamp is within `min.compaction.lag.ms` of `now`.
pub fn cleanable_offsets(
    log: &CleanerView<'_>,
    last_clean: Option<i64>,
    min_compaction_lag_ms: i64,
    now: i64,
) -> CleanableOffsets {
    let checkpoint = last_clean.unwrap_or(log.log_start);
    let (first_dirty, checkpoint_reset) = if checkpoint < log.log_start || checkpoint > log.log_end {
        (log.log_start, true)
    } else {
        (checkpoint, false)
    };
    let lag = min_compaction_lag_ms.max(0);
    let mut first_uncleanable = log.last_stable_offset.min(log.active_base);
    if lag > 0 {
        // UnifiedLog.nonActiveLogSegmentsFrom: from the segment holding the offset
        let from = log.inactive.iter().rposition(|(base, _)| *base <= first_dirty).unwrap_or(0);
        let young = log.inactive.get(from..).unwrap_or_default().iter().find(|(_, ts)| *ts > now.saturating_sub(lag));
        if let Some((base, _)) = young {
            first_uncleanable = first_uncleanable.min(*base);
        }
    }
    CleanableOffsets { first_dirty, first_uncleanable: first_uncleanable.max(first_dirty), checkpoint_reset }
}

/// The sizes `Cleaner.groupSegmentsBySize` weighs a segment by.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SegmentSizes {
    /// Base offset.
    pub base_offset: i64,
    /// The `.log` file's size.
    pub size: u64,
    /// The offset index's size.
    pub index_size: u64,
    /// The time index's size.
    pub time_index_size: u64,
}

/// `Cleaner.groupSegmentsBySize`: consecutive segments cleaned into one,
/// as long as the group's log stays within `max_size` (segment.bytes), each
/// index within `max_index_size` (segment.index.bytes), and its offsets
/// within an int of the group's base (estimated by the next segment's base,
/// or `first_uncleanable` for the last; not checked for an empty segment).
pub fn group_segments_by_size(
    segments: &[SegmentSizes],
    max_size: u64,
    max_index_size: u64,
    first_uncleanable: i64,
) -> Vec<Range<usize>> {
    let mut groups = Vec::new();
    let mut start = 0;
    while let Some(first) = segments.get(start) {
        let (mut log, mut index, mut time) = (first.size, first.index_size, first.time_index_size);
        let mut end = start.saturating_add(1);
        while let Some(s) = segments.get(end) {
            // lastOffsetForFirstSegment: the next segment's base - 1, else first_uncleanable - 1
            let last_offset = segments.get(end.saturating_add(1)).map_or(first_uncleanable, |n| n.base_offset);
            let last_offset = last_offset.saturating_sub(1);
            let fits = log.saturating_add(s.size) <= max_size
                && index.saturating_add(s.index_size) <= max_index_size
                && time.saturating_add(s.time_index_size) <= max_index_size
                && (s.size == 0 || last_offset.saturating_sub(first.base_offset) <= i64::from(i32::MAX));
            if !fits {
                break;
            }
            log = log.saturating_add(s.size);
            index = index.saturating_add(s.index_size);
            time = time.saturating_add(s.time_index_size);
            end = end.saturating_add(1);
        }
        groups.push(start..end);
        start = end;
    }
    groups
}

/// `SkimpyOffsetMap`: the cleaner's map of key -> latest offset, as Kafka
/// builds it: each key's MD5 (16 bytes) and an 8-byte offset in one flat
/// table of `memory / 24` slots, probed first by the hash's successive
/// ints, then linearly. A pass stops mapping once it holds
/// [`OffsetMap::max_desired`] keys (`log.cleaner.io.buffer.load.factor`),
/// which is how far one cleaning reaches. The table is allocated whole, as
/// Kafka allocates its dedupe buffer: its memory is exactly what is given.
#[derive(Debug)]
pub struct OffsetMap {
    table: Vec<u8>,
    slots: u32,
    entries: u32,
    latest_offset: i64,
}

/// Bytes per slot: the MD5 of a key and its offset.
const SLOT_BYTES: usize = 24;
/// `LogCleaner`'s default `log.cleaner.io.buffer.load.factor`.
pub const DEFAULT_LOAD_FACTOR: f64 = 0.9;

impl OffsetMap {
    /// A map in `memory` bytes (Kafka: `log.cleaner.dedupe.buffer.size` over
    /// `log.cleaner.threads`, at most `Int.MaxValue`).
    pub fn new(memory: u64) -> OffsetMap {
        let memory = usize::try_from(memory.min(i32::MAX as u64)).unwrap_or(0);
        let slots = memory.checked_div(SLOT_BYTES).unwrap_or(0);
        OffsetMap {
            table: vec![0; slots.saturating_mul(SLOT_BYTES)],
            slots: u32::try_from(slots).unwrap_or(0),
            entries: 0,
            latest_offset: -1,
        }
    }

    /// Its slots.
    pub fn slots(&self) -> u32 {
        self.slots
    }

    /// How many keys a pass maps before it stops (`slots * load factor`).
    pub fn max_desired(&self, load_factor: f64) -> u32 {
        // (a product of a u32 and a factor below 1: it fits)
        (f64::from(self.slots) * load_factor) as u32
    }

    /// Keys put (a key put again does not count twice).
    pub fn size(&self) -> u32 {
        self.entries
    }

    /// The latest offset put or set (-1 for none).
    pub fn latest_offset(&self) -> i64 {
        self.latest_offset
    }

    /// `updateLatestOffset`.
    pub fn update_latest_offset(&mut self, offset: i64) {
        self.latest_offset = offset;
    }

    /// `positionOf`: the byte position of the `attempt`th probe of `hash`.
    fn position_of(&self, hash: &[u8; 16], attempt: u32) -> usize {
        let at = attempt.min(12) as usize;
        let word = hash.get(at..at.saturating_add(4)).and_then(|b| <[u8; 4]>::try_from(b).ok()).unwrap_or_default();
        // Java's int arithmetic: the sum wraps; Utils.abs(MIN_VALUE) is 0
        let probe =
            i32::from_be_bytes(word).wrapping_add(i32::try_from(attempt.saturating_sub(12)).unwrap_or(i32::MAX));
        let abs = if probe == i32::MIN { 0 } else { probe.unsigned_abs() };
        let slot = abs.checked_rem(self.slots).unwrap_or(0) as usize;
        slot.saturating_mul(SLOT_BYTES)
    }

    fn slot(&self, pos: usize) -> &[u8] {
        self.table.get(pos..pos.saturating_add(SLOT_BYTES)).unwrap_or_default()
    }

    fn hash(key: &[u8]) -> [u8; 16] {
        use md5::Digest;
        md5::Md5::digest(key).into()
    }

    /// `get`: the offset of `key`, if mapped.
    pub fn get(&self, key: &[u8]) -> Option<i64> {
        if self.slots == 0 {
            return None;
        }
        let hash = Self::hash(key);
        let max_attempts = self.slots.saturating_add(12);
        for attempt in 0..max_attempts {
            let slot = self.slot(self.position_of(&hash, attempt));
            if slot.iter().all(|b| *b == 0) {
                return None;
            }
            if slot.get(..16) == Some(hash.as_slice()) {
                return slot.get(16..24).and_then(|b| <[u8; 8]>::try_from(b).ok()).map(i64::from_be_bytes);
            }
        }
        None
    }

    /// `put`: map `key` to `offset` (its latest); false when the map is
    /// full (Kafka refuses the same way; a pass stops well before).
    pub fn put(&mut self, key: &[u8], offset: i64) -> bool {
        if self.entries >= self.slots {
            return false;
        }
        let hash = Self::hash(key);
        let mut attempt = 0u32;
        loop {
            let pos = self.position_of(&hash, attempt);
            let slot = self.slot(pos);
            let empty = slot.iter().all(|b| *b == 0);
            if empty || slot.get(..16) == Some(hash.as_slice()) {
                if let Some(s) = self.table.get_mut(pos..pos.saturating_add(SLOT_BYTES)) {
                    s.iter_mut().zip(hash.iter().chain(offset.to_be_bytes().iter())).for_each(|(d, b)| *d = *b);
                }
                self.latest_offset = offset;
                if empty {
                    self.entries = self.entries.saturating_add(1);
                }
                return true;
            }
            attempt = attempt.saturating_add(1);
        }
    }
}

/// A transaction marker's type, for [`CleanedTransactions`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Marker {
    /// `ControlRecordType.ABORT`.
    Abort,
    /// `ControlRecordType.COMMIT`.
    Commit,
    /// Any other control record (KRaft's).
    Other,
}

/// `CleanedTransactionMetadata`: the transactions a pass walks through,
/// deciding which batches of aborted transactions go and when a marker may
/// go; the aborted transactions whose markers stay are written to the
/// cleaned segment's `.txnindex`.
#[derive(Debug, Default)]
pub struct CleanedTransactions {
    /// Aborted transactions not reached yet, by first offset (each with
    /// its place in `entries`).
    pending: BinaryHeap<Reverse<(i64, usize)>>,
    /// Every aborted transaction added, as read.
    entries: Vec<TxnIndexEntry>,
    /// Aborted transactions walked into, by producer: the entry and the
    /// last offset of a batch of it seen.
    aborted: HashMap<i64, (TxnIndexEntry, Option<i64>)>,
    /// Producers whose committed transaction had a batch in this pass.
    committed: BTreeSet<i64>,
}

/// What a control batch is to the cleaner.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ControlDecision {
    /// The marker may be discarded (once its delete horizon has passed).
    pub discardable: bool,
    /// The aborted transaction to write to the cleaned `.txnindex` (its
    /// marker stays).
    pub index_entry: Option<TxnIndexEntry>,
}

impl CleanedTransactions {
    /// `addAbortedTransactions`: aborted transactions of the range walked
    /// next (`collectAbortedTransactions`).
    pub fn add_aborted(&mut self, entries: impl IntoIterator<Item = TxnIndexEntry>) {
        for e in entries {
            self.pending.push(Reverse((e.first_offset, self.entries.len())));
            self.entries.push(e);
        }
    }

    fn consume_up_to(&mut self, offset: i64) {
        while let Some(Reverse((first, at))) = self.pending.peek().copied() {
            if first > offset {
                break;
            }
            self.pending.pop();
            if let Some(entry) = self.entries.get(at).copied() {
                self.aborted.entry(entry.producer_id).or_insert((entry, None));
            }
        }
    }

    /// `onBatchRead`: a data batch ending at `last_offset`; true when it is
    /// part of an aborted transaction (and may be discarded).
    pub fn on_data_batch(&mut self, producer_id: i64, last_offset: i64, is_transactional: bool) -> bool {
        self.consume_up_to(last_offset);
        if !is_transactional {
            return false;
        }
        match self.aborted.get_mut(&producer_id) {
            Some((_, seen)) => {
                *seen = Some(last_offset);
                true
            }
            None => {
                self.committed.insert(producer_id);
                false
            }
        }
    }

    /// `onControlBatchRead`: a control batch of `producer_id` ending at
    /// `last_offset` whose first record is `marker` (`None`: the batch is
    /// empty, already cleaned).
    pub fn on_control_batch(&mut self, producer_id: i64, last_offset: i64, marker: Option<Marker>) -> ControlDecision {
        self.consume_up_to(last_offset);
        let discardable = |discardable| ControlDecision { discardable, index_entry: None };
        match marker {
            None => discardable(true),
            Some(Marker::Abort) => match self.aborted.remove(&producer_id) {
                // kept until every batch of the transaction is gone
                Some((entry, Some(_))) => ControlDecision { discardable: false, index_entry: Some(entry) },
                _ => discardable(true),
            },
            Some(Marker::Commit) => discardable(!self.committed.remove(&producer_id)),
            Some(Marker::Other) => discardable(false),
        }
    }
}

/// `MemoryRecords.BatchRetention`: what becomes of a batch.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BatchRetention {
    /// Dropped whole.
    Delete,
    /// Kept, even with no record left (an active producer's last batch:
    /// its sequence and epoch).
    RetainEmpty,
    /// Kept if a record is left.
    DeleteEmpty,
}

/// `cleanInto`'s `checkBatchRetention`. `discardable` is what
/// [`CleanedTransactions`] said; a control batch is only dropped once its
/// delete horizon has passed `now`. `last_of_active_producer`: the batch
/// holds the last data offset of a producer still in the producer state
/// (or, with no data left, its last marker in its current epoch).
/// Returns the retention and whether its records all go.
pub fn batch_retention(
    has_producer_id: bool,
    last_of_active_producer: bool,
    is_control: bool,
    discardable: bool,
    delete_horizon_ms: Option<i64>,
    now: i64,
) -> (BatchRetention, bool) {
    let discard_records =
        if is_control { discardable && delete_horizon_ms.is_some_and(|h| h <= now) } else { discardable };
    let retention = if has_producer_id && last_of_active_producer {
        BatchRetention::RetainEmpty
    } else if discard_records {
        BatchRetention::Delete
    } else {
        BatchRetention::DeleteEmpty
    };
    (retention, discard_records)
}

/// A record as [`retain_record`] weighs it.
#[derive(Clone, Copy, Debug)]
pub struct RecordView {
    /// Its offset.
    pub offset: i64,
    /// It has a key.
    pub has_key: bool,
    /// It has a value (else a tombstone).
    pub has_value: bool,
    /// The latest offset of its key in the offset map (none: not mapped).
    pub latest_for_key: Option<i64>,
}

/// `Cleaner.shouldRetainRecord` for a data record of a v2 batch (whose
/// delete horizon is `delete_horizon_ms`) or of a legacy one
/// (`legacy_retain_deletes`: its segment was modified after the legacy
/// delete horizon). Past the map's latest offset everything stays; a record
/// without a key goes; otherwise it stays when it is its key's latest and
/// has a value or is a tombstone whose horizon has not passed.
pub fn retain_record(
    r: &RecordView,
    map_latest_offset: i64,
    legacy: bool,
    legacy_retain_deletes: bool,
    delete_horizon_ms: Option<i64>,
    now: i64,
) -> bool {
    if r.offset > map_latest_offset {
        return true;
    }
    if !r.has_key {
        return false;
    }
    let latest = r.offset >= r.latest_for_key.unwrap_or(-1);
    let retain_deletes = if legacy { legacy_retain_deletes } else { delete_horizon_ms.is_none_or(|h| now < h) };
    latest && (r.has_value || retain_deletes)
}

/// `MemoryRecords.filterTo`: whether a retained v2 batch is rewritten with
/// a delete horizon (`now + delete.retention.ms`): it keeps a tombstone, or
/// it is a marker the transactions allow to go, and it has no horizon yet.
pub fn needs_delete_horizon(
    magic: i8,
    keeps_tombstone: bool,
    discardable_marker: bool,
    delete_horizon_ms: Option<i64>,
) -> bool {
    magic >= 2 && (keeps_tombstone || discardable_marker) && delete_horizon_ms.is_none()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_cleanable_range_stops_at_the_lso_the_active_segment_and_the_compaction_lag() {
        let inactive = [(0, 1_000), (100, 2_000), (200, 9_000)];
        let log =
            CleanerView { log_start: 0, log_end: 350, last_stable_offset: 340, active_base: 300, inactive: &inactive };
        let c = cleanable_offsets(&log, None, 0, 10_000);
        assert_eq!(c, CleanableOffsets { first_dirty: 0, first_uncleanable: 300, checkpoint_reset: false });
        // an open transaction holds the LSO back
        let held = CleanerView { last_stable_offset: 150, ..log };
        assert_eq!(cleanable_offsets(&held, Some(100), 0, 10_000).first_uncleanable, 150);
        // min.compaction.lag.ms: the segment written within the lag is not cleaned
        assert_eq!(cleanable_offsets(&log, Some(100), 5_000, 10_000).first_uncleanable, 200);
        // a checkpoint outside the log is reset to the log start
        let c = cleanable_offsets(&log, Some(400), 0, 10_000);
        assert_eq!((c.first_dirty, c.checkpoint_reset), (0, true));
        // never below the first dirty offset
        assert_eq!(cleanable_offsets(&held, Some(200), 0, 10_000).first_uncleanable, 200);
    }

    #[test]
    fn segments_group_within_the_segment_and_index_sizes() {
        let s = |base, size| SegmentSizes { base_offset: base, size, index_size: 80, time_index_size: 120 };
        let segs = [s(0, 400), s(10, 500), s(20, 200), s(30, 900), s(40, 0)];
        assert_eq!(group_segments_by_size(&segs, 1_000, 10_000, 50), vec![0..2, 2..3, 3..5]);
        // the time index fills first
        assert_eq!(group_segments_by_size(&segs, 10_000, 250, 50), vec![0..2, 2..4, 4..5]);
        // offsets beyond an int from the group's base start a new group (not for an empty segment)
        let far = [s(0, 10), s(1, 10), s(i64::from(i32::MAX) + 5, 10)];
        assert_eq!(group_segments_by_size(&far, 1_000, 10_000, i64::from(i32::MAX) + 9), vec![0..1, 1..2, 2..3]);
    }

    #[test]
    fn the_offset_map_keeps_each_keys_latest_offset_in_the_memory_given() {
        let mut m = OffsetMap::new(24 * 100);
        assert_eq!((m.slots(), m.max_desired(DEFAULT_LOAD_FACTOR), m.latest_offset()), (100, 90, -1));
        assert!(m.put(b"a", 1) && m.put(b"b", 2) && m.put(b"a", 3));
        assert_eq!((m.get(b"a"), m.get(b"b"), m.get(b"c")), (Some(3), Some(2), None));
        assert_eq!((m.size(), m.latest_offset()), (2, 3));
        // every slot taken: probing ends in linear search, and a new key is refused
        let mut full = OffsetMap::new(24 * 3);
        assert!(full.put(b"x", 1) && full.put(b"y", 2) && full.put(b"z", 3));
        assert!(!full.put(b"w", 4));
        assert_eq!((full.get(b"x"), full.get(b"y"), full.get(b"z"), full.get(b"w")), (Some(1), Some(2), Some(3), None));
        assert!(!OffsetMap::new(10).put(b"k", 0), "no slot at all");
        // MD5, as Kafka hashes: the known digest of "abc"
        assert_eq!(OffsetMap::hash(b"abc")[..4], [0x90, 0x01, 0x50, 0x98]);
    }

    fn entry(producer_id: i64, first: i64, last: i64) -> TxnIndexEntry {
        TxnIndexEntry { version: 0, producer_id, first_offset: first, last_offset: last, last_stable_offset: first }
    }

    #[test]
    fn aborted_batches_go_and_their_marker_stays_until_they_are_gone() {
        let mut t = CleanedTransactions::default();
        t.add_aborted([entry(7, 10, 20)]);
        assert!(!t.on_data_batch(7, 5, true), "before the aborted transaction");
        assert!(t.on_data_batch(7, 12, true));
        let d = t.on_control_batch(7, 20, Some(Marker::Abort));
        assert_eq!(d, ControlDecision { discardable: false, index_entry: Some(entry(7, 10, 20)) });
        // a later pass: the batches are gone, so is the need for the marker
        let mut later = CleanedTransactions::default();
        later.add_aborted([entry(7, 10, 20)]);
        assert!(later.on_control_batch(7, 20, Some(Marker::Abort)).discardable);
    }

    #[test]
    fn a_commit_marker_goes_once_no_batch_of_its_transaction_is_left() {
        let mut t = CleanedTransactions::default();
        assert!(!t.on_data_batch(3, 4, true));
        assert!(!t.on_control_batch(3, 5, Some(Marker::Commit)).discardable);
        assert!(t.on_control_batch(3, 9, Some(Marker::Commit)).discardable);
        assert!(t.on_control_batch(3, 9, None).discardable, "an empty control batch");
        assert!(!t.on_control_batch(3, 9, Some(Marker::Other)).discardable);
    }

    #[test]
    fn batches_and_records_are_kept_as_the_cleaner_keeps_them() {
        // a producer's last batch stays even empty; a marker only goes after its horizon
        assert_eq!(batch_retention(true, true, false, true, None, 0), (BatchRetention::RetainEmpty, true));
        assert_eq!(batch_retention(true, false, false, true, None, 0), (BatchRetention::Delete, true));
        assert_eq!(batch_retention(true, false, true, true, None, 0), (BatchRetention::DeleteEmpty, false));
        assert_eq!(batch_retention(true, false, true, true, Some(5), 5), (BatchRetention::Delete, true));
        let r = |offset, has_value, latest| RecordView { offset, has_key: true, has_value, latest_for_key: latest };
        assert!(retain_record(&r(9, true, Some(9)), 20, false, false, None, 0));
        assert!(!retain_record(&r(8, true, Some(9)), 20, false, false, None, 0), "superseded");
        assert!(retain_record(&r(30, true, Some(40)), 20, false, false, None, 0), "past the map");
        assert!(retain_record(&r(9, false, Some(9)), 20, false, false, None, 0), "tombstone, no horizon yet");
        assert!(!retain_record(&r(9, false, Some(9)), 20, false, false, Some(100), 100), "horizon passed");
        assert!(!retain_record(&r(9, false, Some(9)), 20, true, false, None, 0), "legacy, old segment");
        let keyless = RecordView { offset: 1, has_key: false, has_value: true, latest_for_key: None };
        assert!(!retain_record(&keyless, 20, false, false, None, 0));
        assert!(needs_delete_horizon(2, true, false, None));
        assert!(!needs_delete_horizon(2, true, false, Some(1)));
        assert!(!needs_delete_horizon(1, true, false, None));
    }
}
