//! Producer state as Kafka's `ProducerStateManager` keeps it, for what the
//! transactions of a partition leave on disk: the `.txnindex` entries and
//! the last stable offset.
//!
//! * A transactional data batch of a producer with no open transaction opens
//!   one at its base offset (`ProducerAppendInfo.appendDataBatch`: the
//!   transaction's first offset).
//! * An end-transaction marker completes the producer's open transaction
//!   (`ProducerAppendInfo.appendEndTxnMarker`). **Only a transaction that
//!   wrote something to this partition completes**: a marker of an empty
//!   transaction (an ABORT of a transaction that produced nothing here, as
//!   the coordinator writes to every partition it registered) completes
//!   nothing and leaves no `.txnindex` entry.
//! * A completed *aborted* transaction becomes a `.txnindex` entry
//!   (`LogSegment.updateTxnIndex`): producer, first offset, the marker's
//!   offset, and the last stable offset then: the first offset of the
//!   earliest other open transaction, or the offset after the marker
//!   (`ProducerStateManager.lastStableOffset`).
//! * Every idempotent or transactional producer has an entry
//!   (`ProducerStateEntry`, what a producer snapshot holds; kept only by the
//!   writer's state, [`ProducerState::with_entries`]): a data batch
//!   records its epoch, last sequence, last offset, offset delta and
//!   timestamp (`ProducerAppendInfo.appendDataBatch`; a new epoch starts the
//!   entry afresh); a marker sets the epoch, the coordinator epoch and the
//!   timestamp and closes the open transaction
//!   (`ProducerAppendInfo.appendEndTxnMarker`, `maybeUpdateProducerEpoch`
//!   drops the batch metadata when the epoch changes).
//! * The state at an offset is the latest producer snapshot at or below it,
//!   then the log replayed from there (`UnifiedLog.rebuildProducerState`),
//!   or the log from its first segment when no snapshot is left.
//!
//! State replayed from anywhere but the start of the producers' history
//! (offset 0, or a snapshot) does not know transactions opened before it:
//! such a state is *incomplete*, and a marker of a producer it knows no open
//! transaction of is [`Marker::Unknown`] rather than empty.
//!
//! The last stable offset a broker wrote into a `.txnindex` entry depends on
//! how batches arrived (a follower appends many batches at once, and a
//! transaction opening later in the same append already counts), so only the
//! producer and the offsets of an entry are facts of the log.

use std::collections::{BTreeMap, HashMap};

use logfmt::batch::{BatchHeader, RecordBatch};
use logfmt::control::{self, ControlRecord, EndTxnMarker};
use logfmt::error::Result;
use logfmt::index::TxnIndexEntry;
use logfmt::limits::Limits;
use logfmt::log::{Entry, Item};
use logfmt::partition::{Partition, Segment};
use logfmt::snapshot::{ProducerSnapshot, ProducerStateEntry};
use logfmt::spec::index as layout;

/// A transaction completed by a marker (`CompletedTxn`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct CompletedTxn {
    /// The producer.
    pub producer_id: i64,
    /// Its first offset.
    pub first_offset: i64,
    /// The marker's offset.
    pub last_offset: i64,
    /// ABORT (true) or COMMIT.
    pub aborted: bool,
    /// The last stable offset when the marker was appended.
    pub last_stable_offset: i64,
    /// Records and bytes of its data batches in the replay (0: a
    /// transaction a snapshot held open).
    pub records: u64,
    /// See `records`.
    pub bytes: u64,
}

impl CompletedTxn {
    /// The `.txnindex` entry of an aborted transaction.
    pub fn txn_index_entry(&self) -> Option<TxnIndexEntry> {
        self.aborted.then_some(TxnIndexEntry {
            version: layout::TXN_INDEX_VERSION,
            producer_id: self.producer_id,
            first_offset: self.first_offset,
            last_offset: self.last_offset,
            last_stable_offset: self.last_stable_offset,
        })
    }
}

/// What an end-transaction marker does.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Marker {
    /// It completes the producer's open transaction.
    Completed(CompletedTxn),
    /// The producer has no open transaction here: nothing completes, no
    /// `.txnindex` entry.
    Empty,
    /// The state does not know whether the producer had an open transaction
    /// (it began before where the state was rebuilt from): an entry may or
    /// may not exist, both are what some Kafka wrote.
    Unknown {
        /// ABORT (true) or COMMIT.
        aborted: bool,
    },
}

/// A producer's open transaction.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct OpenTxn {
    /// Its first offset (`currentTxnFirstOffset`).
    pub first_offset: i64,
    /// The producer's epoch.
    pub producer_epoch: i16,
    /// The maxTimestamp of the producer's last batch (`lastTimestamp`, what
    /// `kafka-transactions find-hanging` measures a transaction's age from).
    pub last_timestamp: i64,
    /// Records of its data batches replayed (0 for what a snapshot held).
    pub records: u64,
    /// Bytes of its data batches replayed, whole batches.
    pub bytes: u64,
}

/// Whether Kafka checks the producer sequences of batches in `topic`'s
/// partitions: only of batches from clients (`ProducerAppendInfo.append`
/// checks when `origin == AppendOrigin.CLIENT`). The coordinators append
/// to their own topics themselves (`AppendOrigin.COORDINATOR`): a
/// transactional offset commit in `__consumer_offsets` carries its
/// producer's id and epoch with base sequence 0, every time.
pub fn checks_sequences(topic: &str) -> bool {
    // (the coordinators' topics are Kafka's compacted internal ones)
    !logfmt::partition::COMPACTED_INTERNAL_TOPICS.contains(&topic)
}

/// `ProducerAppendInfo.inSequence`: whether `base_sequence` follows
/// `last_sequence` (wrapping from `i32::MAX` to 0).
pub fn follows(last_sequence: i32, base_sequence: i32) -> bool {
    base_sequence == logfmt::batch::increment_sequence(last_sequence, 1)
}

/// A producer's last batch in a log, for sequence continuity.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct LastBatch {
    /// Its producer epoch.
    pub epoch: i16,
    /// Its last sequence.
    pub last_sequence: i32,
    /// Its last offset.
    pub last_offset: i64,
}

/// What a producer's batch is to its previous one in the log
/// ([`SequenceTracker::observe`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Continuity {
    /// Not an idempotent or transactional data batch (no producer id or no
    /// sequence, or a control batch): nothing to check.
    NoSequence,
    /// The producer's first batch seen (or one not tracked).
    First,
    /// Same epoch, the next sequence ([`follows`]).
    InSequence,
    /// A later epoch: sequences start again (not checked; a bumped epoch
    /// need not start at 0 in every client's history).
    NewEpoch,
    /// Same epoch, a sequence that does not follow the previous batch's.
    Gap(LastBatch),
    /// An epoch below the producer's previous one.
    EpochRegression(LastBatch),
    /// The producer is new and [`SequenceTracker`] already tracks its
    /// maximum: it and later new ones are not checked (said once).
    CapReached,
}

/// Sequence continuity along a log, batch after batch, as the
/// `ProducerAppendInfo` of the leader that appended them checked it
/// (`checkSequence`, `checkProducerEpoch`); what a reader of the log can
/// check: a gap within an epoch, an epoch going back. At most `max`
/// producers are tracked (bounded memory).
#[derive(Clone, Debug)]
pub struct SequenceTracker {
    producers: HashMap<i64, LastBatch>,
    max: usize,
    capped: bool,
}

impl SequenceTracker {
    /// Track at most `max` producers.
    pub fn new(max: usize) -> SequenceTracker {
        SequenceTracker { producers: HashMap::new(), max, capped: false }
    }

    /// The next batch of the log.
    pub fn observe(&mut self, h: &BatchHeader) -> Continuity {
        if h.producer_id < 0 || h.base_sequence < 0 || h.is_control() {
            return Continuity::NoSequence;
        }
        let verdict = match self.producers.get(&h.producer_id).copied() {
            Some(p) if h.producer_epoch == p.epoch && follows(p.last_sequence, h.base_sequence) => {
                Continuity::InSequence
            }
            Some(p) if h.producer_epoch == p.epoch => Continuity::Gap(p),
            Some(p) if h.producer_epoch < p.epoch => Continuity::EpochRegression(p),
            Some(_) => Continuity::NewEpoch,
            None => Continuity::First,
        };
        let last =
            LastBatch { epoch: h.producer_epoch, last_sequence: h.last_sequence(), last_offset: h.last_offset() };
        if self.producers.len() < self.max || self.producers.contains_key(&h.producer_id) {
            self.producers.insert(h.producer_id, last);
        } else if !self.capped {
            self.capped = true;
            return Continuity::CapReached;
        }
        verdict
    }
}

/// What [`ProducerState::check_append`] decided.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum AppendCheck {
    /// Append it.
    Append,
    /// Already appended at these offsets: answer them, append nothing.
    Duplicate {
        /// The first append's base offset.
        base_offset: i64,
        /// Its last offset.
        last_offset: i64,
    },
    /// `OUT_OF_ORDER_SEQUENCE_NUMBER`.
    OutOfOrderSequence {
        /// The sequence that would have been in order.
        expected: i32,
    },
    /// `INVALID_PRODUCER_EPOCH`: an epoch older than the producer's.
    InvalidProducerEpoch {
        /// The producer's epoch.
        current: i16,
    },
}

/// `producer.id.expiration.ms`'s default (a broker config): a producer idle
/// for longer, with no open transaction, is dropped from the state
/// (`ProducerStateManager.isProducerExpired`).
pub const DEFAULT_PRODUCER_ID_EXPIRATION_MS: i64 = 86_400_000;

/// Each producer's open transaction.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ProducerState {
    /// first offset of an open transaction -> its producer (Kafka's `ongoingTxns`)
    ongoing: BTreeMap<i64, i64>,
    /// producer -> its open transaction
    by_producer: HashMap<i64, OpenTxn>,
    /// Whether it knows every transaction opened before where it stands.
    complete: bool,
    /// Each producer's entry (its `current_txn_first_offset` is kept in
    /// `by_producer` and filled in by [`ProducerState::snapshot_entries`]);
    /// kept only by a state made [`ProducerState::with_entries`] (one entry
    /// per producer id: readers of untrusted logs do not need them).
    producers: Option<BTreeMap<i64, ProducerStateEntry>>,
}

impl Default for ProducerState {
    /// The state at the start of a log: nothing open, and nothing before.
    fn default() -> ProducerState {
        ProducerState { ongoing: BTreeMap::new(), by_producer: HashMap::new(), complete: true, producers: None }
    }
}

impl ProducerState {
    /// A state at the start of a log that also keeps every producer's entry
    /// (what a snapshot taken from it holds): the writer's.
    pub fn with_entries() -> ProducerState {
        ProducerState { producers: Some(BTreeMap::new()), ..ProducerState::default() }
    }

    /// A state that knows nothing of what came before (see the module docs).
    pub fn incomplete() -> ProducerState {
        ProducerState { complete: false, ..ProducerState::default() }
    }

    /// The open transactions recorded in a producer snapshot.
    pub fn from_snapshot(s: &ProducerSnapshot) -> ProducerState {
        let mut t = ProducerState::default();
        for e in &s.entries {
            if let Some(first) = e.open_transaction() {
                t.ongoing.insert(first, e.producer_id);
                let txn = OpenTxn {
                    first_offset: first,
                    producer_epoch: e.producer_epoch,
                    last_timestamp: e.timestamp,
                    records: 0,
                    bytes: 0,
                };
                t.by_producer.insert(e.producer_id, txn);
            }
        }
        t
    }

    /// Whether it knows every transaction opened before where it stands.
    pub fn is_complete(&self) -> bool {
        self.complete
    }

    /// The first offset of `producer_id`'s open transaction.
    pub fn open_transaction(&self, producer_id: i64) -> Option<i64> {
        self.by_producer.get(&producer_id).map(|t| t.first_offset)
    }

    /// The open transactions by first offset: (producer, transaction).
    pub fn open_transactions(&self) -> impl Iterator<Item = (i64, OpenTxn)> + '_ {
        self.ongoing.values().filter_map(|pid| Some((*pid, *self.by_producer.get(pid)?)))
    }

    /// The open transactions, by first offset: (first offset, producer).
    pub fn ongoing(&self) -> impl Iterator<Item = (i64, i64)> + '_ {
        self.ongoing.iter().map(|(f, p)| (*f, *p))
    }

    /// The producers' entries as a snapshot taken now holds them
    /// (`ProducerStateManager.writeSnapshot`), by producer id.
    pub fn snapshot_entries(&self) -> Vec<ProducerStateEntry> {
        self.producers
            .iter()
            .flat_map(BTreeMap::values)
            .map(|e| ProducerStateEntry {
                current_txn_first_offset: self.by_producer.get(&e.producer_id).map_or(-1, |t| t.first_offset),
                ..*e
            })
            .collect()
    }

    fn record_entry(&mut self, h: &BatchHeader, marker: Option<&EndTxnMarker>) {
        let Some(producers) = self.producers.as_mut() else { return };
        let e = producers.entry(h.producer_id).or_insert(ProducerStateEntry {
            producer_id: h.producer_id,
            producer_epoch: h.producer_epoch,
            last_sequence: logfmt::spec::batch::NO_SEQUENCE,
            last_offset: -1,
            offset_delta: 0,
            timestamp: logfmt::spec::batch::NO_TIMESTAMP,
            coordinator_epoch: -1,
            current_txn_first_offset: -1,
        });
        if e.producer_epoch != h.producer_epoch {
            // a new epoch: the batch metadata goes (`maybeUpdateProducerEpoch`)
            e.producer_epoch = h.producer_epoch;
            e.last_sequence = logfmt::spec::batch::NO_SEQUENCE;
            e.last_offset = -1;
            e.offset_delta = 0;
        }
        e.timestamp = h.max_timestamp;
        match marker {
            Some(m) => e.coordinator_epoch = m.coordinator_epoch,
            None => {
                e.last_sequence = h.last_sequence();
                e.last_offset = h.last_offset();
                e.offset_delta = h.last_offset_delta;
            }
        }
    }

    /// Whether a producer's batch may be appended, as a leader decides
    /// before it appends (`UnifiedLog.analyzeAndValidateProducerState`:
    /// `ProducerStateEntry.findDuplicateBatch`, then
    /// `ProducerAppendInfo.checkProducerEpoch` and `checkSequence`). Needs a
    /// state made [`ProducerState::with_entries`] (else every batch may be
    /// appended). Kafka remembers a producer's last 5 batches for
    /// duplicates; the entry kept here (what a snapshot holds) is its last.
    pub fn check_append(&self, h: &BatchHeader) -> AppendCheck {
        use logfmt::spec::batch::{NO_PRODUCER_EPOCH, NO_SEQUENCE};
        if h.producer_id < 0 || h.is_control() {
            return AppendCheck::Append;
        }
        let Some(e) = self.producers.as_ref().and_then(|p| p.get(&h.producer_id)) else {
            return AppendCheck::Append;
        };
        let first_seq = h.base_sequence;
        if h.producer_epoch == e.producer_epoch && e.last_sequence != NO_SEQUENCE {
            let e_first = e.last_sequence.wrapping_sub(e.offset_delta);
            if first_seq == e_first && h.last_sequence() == e.last_sequence {
                let base = e.last_offset.saturating_sub(i64::from(e.offset_delta));
                return AppendCheck::Duplicate { base_offset: base, last_offset: e.last_offset };
            }
        }
        if h.producer_epoch < e.producer_epoch {
            return AppendCheck::InvalidProducerEpoch { current: e.producer_epoch };
        }
        if h.producer_epoch != e.producer_epoch {
            if first_seq != 0 && e.producer_epoch != NO_PRODUCER_EPOCH {
                return AppendCheck::OutOfOrderSequence { expected: 0 };
            }
            return AppendCheck::Append;
        }
        let last = e.last_sequence;
        if e.producer_epoch == NO_PRODUCER_EPOCH || last == NO_SEQUENCE || follows(last, first_seq) {
            AppendCheck::Append
        } else {
            AppendCheck::OutOfOrderSequence { expected: last.wrapping_add(1) }
        }
    }

    /// Apply a v2 batch; `marker` is its end-transaction marker for control
    /// batches. Returns what a marker did.
    pub fn apply(&mut self, h: &BatchHeader, marker: Option<&EndTxnMarker>) -> Option<Marker> {
        if h.producer_id < 0 {
            return None;
        }
        if h.is_control() {
            let m = marker?;
            self.record_entry(h, Some(m));
            let commit = m.commit;
            let Some(OpenTxn { first_offset: first, records, bytes, .. }) = self.by_producer.remove(&h.producer_id)
            else {
                return Some(if self.complete { Marker::Empty } else { Marker::Unknown { aborted: !commit } });
            };
            // the earliest other open transaction, or after the marker
            let lso = self
                .ongoing
                .iter()
                .find(|(_, pid)| **pid != h.producer_id)
                .map_or(h.last_offset().wrapping_add(1), |(first, _)| *first);
            self.ongoing.remove(&first);
            return Some(Marker::Completed(CompletedTxn {
                producer_id: h.producer_id,
                first_offset: first,
                last_offset: h.last_offset(),
                aborted: !commit,
                last_stable_offset: lso,
                records,
                bytes,
            }));
        }
        self.record_entry(h, None);
        if h.is_transactional() {
            let txn = self.by_producer.entry(h.producer_id).or_insert_with(|| {
                self.ongoing.insert(h.base_offset, h.producer_id);
                OpenTxn {
                    first_offset: h.base_offset,
                    producer_epoch: h.producer_epoch,
                    last_timestamp: h.max_timestamp,
                    records: 0,
                    bytes: 0,
                }
            });
            txn.producer_epoch = h.producer_epoch;
            txn.last_timestamp = h.max_timestamp;
            txn.records = txn.records.saturating_add(u64::try_from(h.records_count).unwrap_or(0));
            txn.bytes = txn.bytes.saturating_add(u64::try_from(h.size_in_bytes()).unwrap_or(0));
        }
        None
    }

    /// The last stable offset at `log_end`: the first offset of the earliest
    /// open transaction, or the log end (`UnifiedLog.lastStableOffset`
    /// before the high watermark caps it).
    pub fn last_stable_offset(&self, log_end: i64) -> i64 {
        self.ongoing.keys().next().copied().map_or(log_end, |f| f.min(log_end))
    }

    /// The state just before offset `at`: the latest valid producer snapshot
    /// at or below it, then the log replayed up to `at`
    /// (`UnifiedLog.rebuildProducerState`).
    pub fn at(p: &Partition, at: i64, limits: &Limits) -> Result<ProducerState> {
        Self::at_keeping(p, at, false, limits)
    }

    /// [`ProducerState::at`], keeping every producer's entry (a writer
    /// reopening a partition: `ProducerStateManager.truncateAndReload` then
    /// the replay of `UnifiedLog.rebuildProducerState`).
    pub fn at_with_entries(p: &Partition, at: i64, limits: &Limits) -> Result<ProducerState> {
        Self::at_keeping(p, at, true, limits)
    }

    fn at_keeping(p: &Partition, at: i64, entries: bool, limits: &Limits) -> Result<ProducerState> {
        let first_base = p.first_base().unwrap_or(0);
        let mut from = first_base;
        let mut state = if first_base <= 0 { ProducerState::default() } else { ProducerState::incomplete() };
        for (off, path) in p.snapshots.iter().rev() {
            if *off > at {
                continue;
            }
            if let Ok(s) = logfmt::snapshot::read(path, limits)
                && s.crc_valid()
            {
                state = if entries {
                    ProducerState::from_snapshot_with_entries(&s)
                } else {
                    ProducerState::from_snapshot(&s)
                };
                from = *off;
                break;
            }
        }
        if entries && state.producers.is_none() {
            state.producers = Some(BTreeMap::new());
        }
        state.replay_log(p, from, at, limits)?;
        Ok(state)
    }

    /// [`ProducerState::from_snapshot`], keeping every producer's entry (what
    /// `ProducerStateManager.loadFromSnapshot` loads).
    pub fn from_snapshot_with_entries(s: &ProducerSnapshot) -> ProducerState {
        let mut state = ProducerState::from_snapshot(s);
        let kept = s.entries.iter().map(|e| (e.producer_id, ProducerStateEntry { current_txn_first_offset: -1, ..*e }));
        state.producers = Some(kept.collect());
        state
    }

    /// Drop the producers a load drops from a snapshot it reads
    /// (`ProducerStateManager.isProducerExpired`): no open transaction, and
    /// their last batch at least `expiration_ms` before `now_ms`.
    pub fn expire(&mut self, now_ms: i64, expiration_ms: i64) {
        let open = &self.by_producer;
        if let Some(producers) = self.producers.as_mut() {
            producers.retain(|id, e| open.contains_key(id) || now_ms.saturating_sub(e.timestamp) < expiration_ms);
        }
    }

    /// Replay every segment of `p` holding offsets in `[from, until)` (the
    /// scan of `UnifiedLog.rebuildProducerState`).
    pub fn replay_log(&mut self, p: &Partition, from: i64, until: i64, limits: &Limits) -> Result<()> {
        for seg in &p.segments {
            if seg.base >= until || seg.next_base.is_some_and(|n| n <= from) {
                continue;
            }
            self.replay(seg, from, until, 0, limits)?;
        }
        Ok(())
    }

    /// Replay the valid batches of `seg` with offsets in `[from, until)`.
    /// Its first `checked` bytes were found valid already (by a recovery of
    /// it, which stops at the first batch that is not): their batches'
    /// checksums are not computed again.
    pub fn replay(&mut self, seg: &Segment, from: i64, until: i64, checked: u64, limits: &Limits) -> Result<()> {
        let mut r = seg.reader(limits)?;
        let mut scratch = Vec::new();
        while let Some(item) = r.next_item()? {
            let Item::Entry(Entry::V2(b)) = item else { continue };
            let h = *b.header();
            if h.base_offset >= until {
                break;
            }
            if h.last_offset() < from {
                continue;
            }
            let known_valid = b.position().saturating_add(b.size()) <= checked;
            if !known_valid && !b.is_valid() {
                continue;
            }
            let m = if h.is_control() { end_txn_marker(&b, &mut scratch, limits) } else { None };
            self.apply(&h, m.as_ref());
        }
        Ok(())
    }
}

/// The end-transaction marker of a control batch, if it is one.
pub fn end_txn_marker(b: &RecordBatch<'_>, scratch: &mut Vec<u8>, limits: &Limits) -> Option<EndTxnMarker> {
    let mut records = b.records(scratch, limits).ok()?;
    let rec = records.next_record()?.ok()?;
    match control::parse(&rec, b.position()).ok()? {
        ControlRecord::EndTxn(m) => Some(m),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn header(producer_id: i64, base_offset: i64, control: bool) -> BatchHeader {
        let attributes: i16 = 0x10 | if control { 0x20 } else { 0 };
        BatchHeader {
            base_offset,
            batch_length: 0,
            partition_leader_epoch: 0,
            magic: 2,
            crc: 0,
            attributes,
            last_offset_delta: 0,
            base_timestamp: 0,
            max_timestamp: 0,
            producer_id,
            producer_epoch: 0,
            base_sequence: 0,
            records_count: 1,
        }
    }

    fn end(commit: bool) -> Option<EndTxnMarker> {
        Some(EndTxnMarker { commit, version: 0, coordinator_epoch: 3 })
    }

    #[test]
    fn only_transactions_that_wrote_here_complete() {
        let mut s = ProducerState::default();
        // an ABORT of an empty transaction: nothing completes
        assert_eq!(s.apply(&header(7, 10, true), end(false).as_ref()), Some(Marker::Empty));
        // data from producers 7 and 8, then 7 aborts: LSO is 8's first offset
        s.apply(&header(7, 11, false), None);
        s.apply(&header(8, 12, false), None);
        assert_eq!(s.last_stable_offset(20), 11);
        let Some(Marker::Completed(c)) = s.apply(&header(7, 13, true), end(false).as_ref()) else { panic!() };
        assert_eq!((c.first_offset, c.last_offset, c.last_stable_offset), (11, 13, 12));
        assert_eq!(c.txn_index_entry().map(|e| e.producer_id), Some(7));
        let Some(Marker::Completed(c)) = s.apply(&header(8, 14, true), end(true).as_ref()) else { panic!() };
        assert_eq!(c.txn_index_entry(), None);
        // a state rebuilt from the middle of the log cannot tell
        let mut s = ProducerState::incomplete();
        assert_eq!(s.apply(&header(9, 30, true), end(false).as_ref()), Some(Marker::Unknown { aborted: true }));
    }
}
