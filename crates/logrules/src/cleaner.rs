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

use logfmt::index::TxnIndexEntry;

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

/// `SkimpyOffsetMap`: the cleaner's map of key -> latest offset, holding
/// as many keys as Kafka's does: `memory / 24` slots (a 16-byte hash and an
/// 8-byte offset each), of which a pass maps at most
/// [`OffsetMap::max_desired`] keys (`log.cleaner.io.buffer.load.factor`),
/// which is how far one cleaning reaches. What a pass keeps depends only on
/// which keys are equal and how many distinct keys fit, never on where a
/// key's slot is, so this map differs from Kafka's where that cannot show:
/// keys are hashed with XXH3-128 (Kafka: MD5, ten times the cost; both
/// 128 bits), and the table grows with the keys mapped (doubling, open
/// addressing at most half full) up to the `memory / 24` slots given
/// instead of being allocated whole: a few keys stay in the CPU's caches
/// (a table the size of the dedupe buffer costs a cache miss per record),
/// and the memory is never more than what is given.
#[derive(Debug)]
pub struct OffsetMap {
    /// (hash, offset); a hash of 0 is an empty slot.
    table: Vec<(u128, i64)>,
    slots: u32,
    entries: u32,
    latest_offset: i64,
}

/// Bytes per slot of Kafka's map: the 16-byte hash of a key and its offset.
const SLOT_BYTES: usize = 24;
/// The table's first size, in slots (grown by doubling).
const FIRST_SLOTS: usize = 1 << 10;
/// `LogCleaner`'s default `log.cleaner.io.buffer.load.factor`.
pub const DEFAULT_LOAD_FACTOR: f64 = 0.9;

impl OffsetMap {
    /// A map in `memory` bytes (Kafka: `log.cleaner.dedupe.buffer.size` over
    /// `log.cleaner.threads`, at most `Int.MaxValue`).
    pub fn new(memory: u64) -> OffsetMap {
        let memory = usize::try_from(memory.min(i32::MAX as u64)).unwrap_or(0);
        let slots = memory.checked_div(SLOT_BYTES).unwrap_or(0);
        OffsetMap { table: Vec::new(), slots: u32::try_from(slots).unwrap_or(0), entries: 0, latest_offset: -1 }
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

    fn hash(key: &[u8]) -> u128 {
        // (0 marks an empty slot)
        xxhash_rust::xxh3::xxh3_128(key).max(1)
    }

    /// The slot of `hash` in the table: where it is, or the empty one
    /// where it would go (linear probing from its home slot; the table is
    /// never full, see [`OffsetMap::put`]).
    fn find(&self, hash: u128) -> Option<usize> {
        let len = self.table.len();
        // (the table's share of the hash's low 64 bits: a multiply, no division)
        let home = (u128::from(hash as u64).wrapping_mul(len as u128) >> 64) as usize;
        let probes = (home..len).chain(0..home);
        probes.into_iter().find(|&i| self.table.get(i).is_some_and(|&(h, _)| h == hash || h == 0))
    }

    /// `get`: the offset of `key`, if mapped.
    pub fn get(&self, key: &[u8]) -> Option<i64> {
        let hash = Self::hash(key);
        let (h, offset) = *self.table.get(self.find(hash)?)?;
        (h == hash).then_some(offset)
    }

    /// `put`: map `key` to `offset` (its latest); false when the map is
    /// full (Kafka refuses the same way; a pass stops well before).
    pub fn put(&mut self, key: &[u8], offset: i64) -> bool {
        let hash = Self::hash(key);
        if let Some(i) = self.find(hash)
            && let Some(slot) = self.table.get_mut(i)
            && slot.0 == hash
        {
            slot.1 = offset;
            self.latest_offset = offset;
            return true;
        }
        if self.entries >= self.slots {
            return false;
        }
        // room for one more: at most half full, up to every slot given
        let want = (self.entries as usize).saturating_add(1).saturating_mul(2).min(self.slots as usize);
        if want > self.table.len() || self.table.len() == self.entries as usize {
            self.grow(want);
        }
        let Some(i) = self.find(hash) else { return false };
        if let Some(slot) = self.table.get_mut(i) {
            *slot = (hash, offset);
        }
        self.entries = self.entries.saturating_add(1);
        self.latest_offset = offset;
        true
    }

    /// Rehash into a table of at least `want` slots (doubling, at most
    /// `slots`).
    fn grow(&mut self, want: usize) {
        let mut len = self.table.len().max(FIRST_SLOTS);
        while len < want {
            len = len.saturating_mul(2);
        }
        let len = len.min(self.slots as usize).max(want);
        if len <= self.table.len() {
            return;
        }
        let old = std::mem::replace(&mut self.table, vec![(0, 0); len]);
        for (h, offset) in old.into_iter().filter(|&(h, _)| h != 0) {
            if let Some(i) = self.find(h)
                && let Some(slot) = self.table.get_mut(i)
            {
                *slot = (h, offset);
            }
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
        // XXH3-128: the known hash of "abc"
        assert_eq!(OffsetMap::hash(b"abc"), 0x06b05ab6733a618578af5f94892f3950);
        // many keys: the table grows, each key's latest offset stays
        let mut big = OffsetMap::new(24 * 100_000);
        for round in 0..2i64 {
            for k in 0..50_000i64 {
                assert!(big.put(&k.to_be_bytes(), round * 100_000 + k));
            }
        }
        assert_eq!(big.size(), 50_000);
        assert!((0..50_000i64).all(|k| big.get(&k.to_be_bytes()) == Some(100_000 + k)));
        assert_eq!(big.get(&(-1i64).to_be_bytes()), None);
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
