//! A share partition - a share group's view of one topic partition - as
//! Kafka 4.3.1's broker keeps it (`kafka.server.share.SharePartition`) and
//! its share coordinator persists it (`ShareCoordinatorShard`,
//! `PersisterStateBatchCombiner`).
//!
//! Records from the start offset on are in flight: acquired by a member
//! (for the lock duration, with a delivery count), available again
//! (released, or their lock ran out), or done - acknowledged (accepted) or
//! archived (rejected, a gap, or delivered as often as the delivery count
//! limit allows). The start offset moves past the leading records that are
//! done; at most the record-lock limit's records past it are in flight.
//! The limits are the caller's [`Limits`]: the group's
//! `share.record.lock.duration.ms`, `share.delivery.count.limit` and
//! `share.partition.max.record.locks`, else the broker's `group.share.*`,
//! and its `share.isolation.level` (`group_config::share_limits`), read at
//! each use as Kafka reads them. A read_committed group's records of
//! aborted transactions ([`aborted_batches`]) are archived as they are
//! acquired, never delivered ([`SharePartition::archive_aborted`]).
//!
//! Not modelled: Kafka 4.3.1's isolation of records near the delivery
//! limit (`acquireSubsetBatchRecords`: with a limit over 2, a record on
//! its last delivery goes alone, and records delivered at least half the
//! limit's times come in halving runs). A batch released over and over is
//! here delivered whole each time.
//!
//! What is persisted is what Kafka writes: the start offset, the leader
//! epoch, the state batches (first offset, last offset, delivery state
//! 0 available / 2 acknowledged / 4 archived, delivery count) and the
//! number of done records past the start offset (KIP-1226's
//! `deliveryCompleteCount`). An acquired record is persisted as available:
//! a broker that restarts hands it out again, with the count it had.
//!
//! The state batches and how the share coordinator combines them
//! ([`StateBatch`], [`combine_batches`]) are `logrules::groups`', which
//! replays them at load.
//!
//! Invariants: every tracked offset is at or past `start_offset` and
//! before `next_offset`; nothing here allocates per offset more than
//! [`MAX_IN_FLIGHT_BOUND`] records past the start plus what one fetched batch
//! holds, or, loading, [`MAX_LOADED_OFFSETS`].

use std::collections::{BTreeMap, BTreeSet};

pub use logrules::groups::{StateBatch, combine_batches};

/// `group.share.record.lock.duration.ms` (Kafka's default).
pub const RECORD_LOCK_DURATION_MS: i64 = 30_000;
/// `group.share.delivery.count.limit` (Kafka's default).
pub const DELIVERY_COUNT_LIMIT: i16 = 5;
/// `group.share.partition.max.record.locks` (Kafka's default).
pub const MAX_IN_FLIGHT: i64 = 2_000;
/// The most offsets a loaded state's batches are expanded to; a state
/// that names more is not one a broker wrote.
pub const MAX_LOADED_OFFSETS: i64 = 1_000_000;
/// What a share group's configs set for its partitions
/// (`group_config::share_limits`; Kafka's defaults by `Default`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Limits {
    /// `share.delivery.count.limit`: a record released (or whose lock ran
    /// out) after this many deliveries is archived.
    pub delivery_count_limit: i16,
    /// `share.partition.max.record.locks`: at most this many records past
    /// the start offset are in flight (at most [`MAX_IN_FLIGHT_BOUND`]).
    pub max_in_flight: i64,
    /// `share.record.lock.duration.ms`: how long an acquired record stays
    /// acquired.
    pub lock_ms: i64,
    /// `share.isolation.level` is `read_committed`: records are read up to
    /// the last stable offset, and those of aborted transactions are
    /// archived, never delivered ([`aborted_batches`],
    /// [`SharePartition::archive_aborted`]).
    pub read_committed: bool,
}

impl Default for Limits {
    fn default() -> Limits {
        Limits {
            delivery_count_limit: DELIVERY_COUNT_LIMIT,
            max_in_flight: MAX_IN_FLIGHT,
            lock_ms: RECORD_LOCK_DURATION_MS,
            read_committed: false,
        }
    }
}

impl Limits {
    /// The in-flight limit, within what any broker allows.
    fn in_flight(&self) -> i64 {
        self.max_in_flight.clamp(1, MAX_IN_FLIGHT_BOUND)
    }
}

/// The most records in flight a group's `share.partition.max.record.locks`
/// can ask for (`group.share.max.partition.max.record.locks`' own upper
/// bound, `ShareGroupConfig`: 10000).
pub const MAX_IN_FLIGHT_BOUND: i64 = 10_000;
/// `PartitionFactory.UNINITIALIZED_START_OFFSET`.
pub const UNINITIALIZED: i64 = -1;

/// `AcknowledgeType` ids.
pub mod ack {
    /// A gap: no record at the offset (archived).
    pub const GAP: i8 = 0;
    /// Processed (acknowledged).
    pub const ACCEPT: i8 = 1;
    /// Not processed: deliver again (available, or archived at the limit).
    pub const RELEASE: i8 = 2;
    /// Unprocessable (archived).
    pub const REJECT: i8 = 3;
}

/// `RecordState`, with the ids Kafka persists.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RecordState {
    /// May be acquired.
    Available,
    /// Held by a member.
    Acquired,
    /// Accepted.
    Acknowledged,
    /// Rejected, a gap, or delivered too often.
    Archived,
}

impl RecordState {
    /// The id Kafka persists (an acquired record as available).
    pub fn persisted(self) -> i8 {
        match self {
            RecordState::Available | RecordState::Acquired => 0,
            RecordState::Acknowledged => 2,
            RecordState::Archived => 4,
        }
    }

    /// From a persisted id (unknown ids: available, as a delivery that
    /// has to be made again).
    pub fn of_persisted(id: i8) -> RecordState {
        match id {
            2 => RecordState::Acknowledged,
            4 => RecordState::Archived,
            _ => RecordState::Available,
        }
    }

    fn done(self) -> bool {
        matches!(self, RecordState::Acknowledged | RecordState::Archived)
    }
}

/// One in-flight record.
#[derive(Clone, Debug, PartialEq, Eq)]
struct InFlight {
    state: RecordState,
    delivery_count: i16,
    member: String,
    lock_until_ms: i64,
}

/// A share partition's in-flight state.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SharePartition {
    /// The start offset: every record before it is done.
    pub start_offset: i64,
    /// The first offset never acquired.
    pub next_offset: i64,
    /// The state epoch (the group epoch its state was initialized at).
    pub state_epoch: i32,
    records: BTreeMap<i64, InFlight>,
}

/// What the share coordinator is asked to write after a change
/// (`WriteShareGroupState`): the start offset, the changed batches and the
/// done records past the start.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Write {
    /// The start offset.
    pub start_offset: i64,
    /// The changed offsets' batches.
    pub batches: Vec<StateBatch>,
    /// `deliveryCompleteCount`.
    pub delivery_complete_count: i32,
}

/// A batch a share fetch read, as [`aborted_batches`] looks at it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ReadBatch {
    /// Its first offset.
    pub base_offset: i64,
    /// Its last offset.
    pub last_offset: i64,
    /// Its producer id (-1: none).
    pub producer_id: i64,
    /// Part of a transaction.
    pub transactional: bool,
    /// A control batch holding an ABORT marker.
    pub abort_marker: bool,
}

/// The batches of aborted transactions among `batches` (read in order),
/// `aborted` being the aborted transactions the read was told of
/// ((producer id, first offset), as a read_committed Fetch is): each
/// transactional batch of a producer whose aborted transaction began at
/// or before the batch's last offset and whose ABORT marker has not come
/// yet (`SharePartition.fetchAbortedTransactionRecordBatches`). Their
/// (first, last) offsets, in order.
pub fn aborted_batches(batches: &[ReadBatch], aborted: &[(i64, i64)]) -> Vec<(i64, i64)> {
    let mut pending: Vec<(i64, i64)> = aborted.iter().map(|&(pid, first)| (first, pid)).collect();
    pending.sort_unstable();
    let mut pending = pending.into_iter().peekable();
    let mut aborting = std::collections::BTreeSet::new();
    let mut out = Vec::new();
    for b in batches.iter().filter(|b| b.producer_id >= 0) {
        while let Some((_, pid)) = pending.next_if(|(first, _)| *first <= b.last_offset) {
            aborting.insert(pid);
        }
        if b.abort_marker {
            aborting.remove(&b.producer_id);
        } else if b.transactional && aborting.contains(&b.producer_id) {
            out.push((b.base_offset, b.last_offset));
        }
    }
    out
}

/// An acknowledgement the partition refuses (`INVALID_RECORD_STATE`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct InvalidRecordState(pub String);

impl SharePartition {
    /// Initialized from what the share coordinator holds
    /// (`SharePartition.maybeInitialize`): the start offset (`start`,
    /// already resolved by `share.auto.offset.reset` where it was -1) and
    /// the batches past it.
    pub fn load(start: i64, state_epoch: i32, batches: &[StateBatch]) -> SharePartition {
        let mut p = SharePartition { start_offset: start, next_offset: start, state_epoch, records: BTreeMap::new() };
        let mut loaded = 0i64;
        for &(first, last, state, count) in batches {
            let first = first.max(start);
            for o in first..=last {
                if loaded >= MAX_LOADED_OFFSETS {
                    break;
                }
                loaded = loaded.saturating_add(1);
                let r = InFlight {
                    state: RecordState::of_persisted(state),
                    delivery_count: count,
                    member: String::new(),
                    lock_until_ms: 0,
                };
                p.records.insert(o, r);
                p.next_offset = p.next_offset.max(o.saturating_add(1));
            }
        }
        p.advance();
        p
    }

    /// Where the next fetch reads from: the first available record in
    /// flight, else the first never acquired (`findNextFetchOffset`).
    pub fn fetch_offset(&self) -> i64 {
        self.records.iter().find(|(_, r)| r.state == RecordState::Available).map_or(self.next_offset, |(o, _)| *o)
    }

    /// Whether more records may be acquired: some in flight are
    /// available, or fewer than the limit's records are past the start.
    pub fn can_acquire(&self, limits: &Limits) -> bool {
        self.records.values().any(|r| r.state == RecordState::Available)
            || self.next_offset.saturating_sub(self.start_offset) < limits.in_flight()
    }

    /// Acquire for `member` the records of the batches read from the log
    /// at [`fetch_offset`](Self::fetch_offset) ((base offset, last offset)
    /// each): the available ones in flight, and new ones a whole batch at a
    /// time (`acquire`: the limit may be passed to end on a batch) while
    /// fewer than `max_records` are acquired and the in-flight limit
    /// allows; each locked for the limits' lock duration.
    /// The acquired ranges: (first offset, last offset, delivery count).
    pub fn acquire(
        &mut self,
        member: &str,
        batches: &[(i64, i64)],
        max_records: i32,
        now_ms: i64,
        limits: &Limits,
    ) -> Vec<(i64, i64, i16)> {
        let max = i64::from(max_records.max(1));
        let lock_until_ms = now_ms.saturating_add(limits.lock_ms);
        let mut acquired: Vec<(i64, i64, i16)> = Vec::new();
        let mut count = 0i64;
        let mut push = |o: i64, delivery: i16| match acquired.last_mut() {
            Some(last) if last.1.saturating_add(1) == o && last.2 == delivery => last.1 = o,
            _ => acquired.push((o, o, delivery)),
        };
        for &(base, last) in batches {
            if count >= max {
                break;
            }
            let new_batch = last >= self.next_offset;
            if new_batch && self.next_offset.saturating_sub(self.start_offset) >= limits.in_flight() {
                break;
            }
            for o in base.max(self.start_offset)..=last {
                if o >= self.next_offset {
                    let r = InFlight {
                        state: RecordState::Acquired,
                        delivery_count: 1,
                        member: member.to_string(),
                        lock_until_ms,
                    };
                    self.records.insert(o, r);
                    self.next_offset = o.saturating_add(1);
                    push(o, 1);
                    count = count.saturating_add(1);
                } else if count < max
                    && let Some(r) = self.records.get_mut(&o)
                    && r.state == RecordState::Available
                {
                    r.state = RecordState::Acquired;
                    r.delivery_count = r.delivery_count.saturating_add(1);
                    r.member = member.to_string();
                    r.lock_until_ms = lock_until_ms;
                    push(o, r.delivery_count);
                    count = count.saturating_add(1);
                }
            }
        }
        acquired
    }

    /// Archive what was just acquired in the batches of aborted
    /// transactions (`aborted`, from [`aborted_batches`]), and take them out
    /// of `acquired` (`maybeFilterAbortedTransactionalAcquiredRecords`: they
    /// are done, not delivered; written with the next change, as Kafka
    /// writes them). The acquired ranges left.
    pub fn archive_aborted(&mut self, acquired: Vec<(i64, i64, i16)>, aborted: &[(i64, i64)]) -> Vec<(i64, i64, i16)> {
        if aborted.is_empty() {
            return acquired;
        }
        let is_aborted = |o: i64| aborted.iter().any(|&(f, l)| f <= o && o <= l);
        let mut out: Vec<(i64, i64, i16)> = Vec::new();
        for (first, last, count) in acquired {
            for o in first..=last {
                if is_aborted(o) {
                    if let Some(r) = self.records.get_mut(&o)
                        && r.state == RecordState::Acquired
                    {
                        r.state = RecordState::Archived;
                        r.member.clear();
                    }
                    continue;
                }
                match out.last_mut() {
                    Some(prev) if prev.1.saturating_add(1) == o && prev.2 == count => prev.1 = o,
                    _ => out.push((o, o, count)),
                }
            }
        }
        out
    }

    /// Apply `member`'s acknowledgements ((first offset, last offset,
    /// types: one for the range or one per offset)), all or none: every
    /// offset must be acquired by the member (`INVALID_RECORD_STATE`).
    pub fn acknowledge(
        &mut self,
        member: &str,
        batches: &[(i64, i64, Vec<i8>)],
        limits: &Limits,
    ) -> Result<Write, InvalidRecordState> {
        let mut changes: Vec<(i64, RecordState)> = Vec::new();
        for (first, last, types) in batches {
            if last < first {
                return Err(InvalidRecordState(format!("the batch {first}-{last} ends before it starts")));
            }
            let len = last.saturating_sub(*first).saturating_add(1);
            if types.is_empty() || (types.len() != 1 && i64::try_from(types.len()).ok() != Some(len)) {
                return Err(InvalidRecordState(format!("the batch {first}-{last} has {} types", types.len())));
            }
            for o in *first..=*last {
                let i = usize::try_from(o.saturating_sub(*first)).unwrap_or(usize::MAX);
                let t = if types.len() == 1 { types.first() } else { types.get(i) };
                let Some(&t) = t else { break };
                let Some(r) = self.records.get(&o) else {
                    return Err(InvalidRecordState(format!("offset {o} is not acquired")));
                };
                if r.state != RecordState::Acquired || r.member != member {
                    return Err(InvalidRecordState(format!("offset {o} is not acquired by member {member}")));
                }
                let to = match t {
                    ack::ACCEPT => RecordState::Acknowledged,
                    ack::RELEASE if r.delivery_count >= limits.delivery_count_limit => RecordState::Archived,
                    ack::RELEASE => RecordState::Available,
                    ack::REJECT | ack::GAP => RecordState::Archived,
                    other => return Err(InvalidRecordState(format!("acknowledge type {other}"))),
                };
                changes.push((o, to));
            }
        }
        let offsets: Vec<i64> = changes.iter().map(|(o, _)| *o).collect();
        for (o, to) in changes {
            if let Some(r) = self.records.get_mut(&o) {
                r.state = to;
                r.member.clear();
            }
        }
        Ok(self.write_of(&offsets))
    }

    /// Release what `member` holds (its share session closed, it left, or
    /// `now_ms` passed the locks: `None` for a member releases every
    /// expired lock): available again, archived at the delivery limit.
    /// None when nothing changed.
    pub fn release(&mut self, member: Option<&str>, now_ms: i64, limits: &Limits) -> Option<Write> {
        let mut offsets = Vec::new();
        for (o, r) in &mut self.records {
            let hit = match member {
                Some(m) => r.member == m,
                None => r.lock_until_ms <= now_ms,
            };
            if r.state == RecordState::Acquired && hit {
                r.state = if r.delivery_count >= limits.delivery_count_limit {
                    RecordState::Archived
                } else {
                    RecordState::Available
                };
                r.member.clear();
                offsets.push(*o);
            }
        }
        (!offsets.is_empty()).then(|| self.write_of(&offsets))
    }

    /// The earliest lock deadline of an acquired record.
    pub fn next_lock_deadline(&self) -> Option<i64> {
        self.records.values().filter(|r| r.state == RecordState::Acquired).map(|r| r.lock_until_ms).min()
    }

    /// Records past the start offset that are done.
    pub fn delivery_complete_count(&self) -> i32 {
        i32::try_from(self.records.values().filter(|r| r.state.done()).count()).unwrap_or(i32::MAX)
    }

    /// Move the start offset past the leading records that are done
    /// (`maybeUpdateCachedStateAndOffsets`).
    fn advance(&mut self) {
        while let Some(e) = self.records.first_entry() {
            if *e.key() != self.start_offset || !e.get().state.done() {
                break;
            }
            e.remove();
            self.start_offset = self.start_offset.saturating_add(1);
        }
        if self.records.is_empty() {
            self.start_offset = self.start_offset.max(self.next_offset);
        }
        self.next_offset = self.next_offset.max(self.start_offset);
    }

    /// The write after `changed` offsets changed, then the start offset
    /// advanced: as Kafka writes it, the start offset and the done records
    /// as they were before the advance (`SharePartition` moves its start
    /// offset once the write completes; the next write carries it), and
    /// every changed offset's batch.
    fn write_of(&mut self, changed: &[i64]) -> Write {
        let states =
            changed.iter().filter_map(|o| self.records.get(o).map(|r| (*o, r.state.persisted(), r.delivery_count)));
        let w = Write {
            start_offset: self.start_offset,
            batches: coalesce(states),
            delivery_complete_count: self.delivery_complete_count(),
        };
        self.advance();
        w
    }

    /// Every in-flight record as state batches (for a snapshot).
    pub fn batches(&self) -> Vec<StateBatch> {
        coalesce(self.records.iter().map(|(o, r)| (*o, r.state.persisted(), r.delivery_count)))
    }
}

/// Offsets in order with their persisted state and count, as batches of
/// consecutive offsets alike.
fn coalesce(items: impl Iterator<Item = (i64, i8, i16)>) -> Vec<StateBatch> {
    let mut out: Vec<StateBatch> = Vec::new();
    for (o, state, count) in items {
        match out.last_mut() {
            Some(b) if b.1.saturating_add(1) == o && b.2 == state && b.3 == count => b.1 = o,
            _ => out.push((o, o, state, count)),
        }
    }
    out
}

/// A member's share session (`ShareSession`): the partitions it fetches
/// (topic id, partition) and the epoch its next request carries.
#[derive(Clone, Debug, Default)]
pub struct ShareSession {
    /// The epoch the next request must carry.
    pub epoch: i32,
    /// The partitions in the session.
    pub partitions: BTreeSet<(String, i32)>,
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Accept, release and reject, then the released records are
    /// delivered again with their count raised, and the start offset moves
    /// past what is done.
    #[test]
    fn accept_release_reject_and_redelivery() {
        let mut p = SharePartition::load(0, 1, &[]);
        let l = Limits::default();
        let got = p.acquire("m", &[(0, 4), (5, 9)], 500, 0, &l);
        assert_eq!(got, vec![(0, 9, 1)]);
        let w = p
            .acknowledge("m", &[(0, 3, vec![ack::ACCEPT]), (4, 5, vec![ack::RELEASE]), (6, 9, vec![ack::REJECT])], &l)
            .unwrap();
        // (the start offset before the acknowledgement moved it, as Kafka
        // writes it)
        assert_eq!(w.start_offset, 0);
        assert_eq!(w.batches, vec![(0, 3, 2, 1), (4, 5, 0, 1), (6, 9, 4, 1)]);
        assert_eq!(w.delivery_complete_count, 8);
        assert_eq!(p.start_offset, 4);
        assert_eq!(p.fetch_offset(), 4);
        // the released records again (the log read from 4 on)
        let got = p.acquire("m2", &[(0, 4), (5, 9)], 500, 0, &l);
        assert_eq!(got, vec![(4, 5, 2)]);
        // not m's any more
        assert!(p.acknowledge("m", &[(4, 4, vec![ack::ACCEPT])], &l).is_err());
        let w = p.acknowledge("m2", &[(4, 5, vec![ack::ACCEPT, ack::ACCEPT])], &l).unwrap();
        assert_eq!((w.start_offset, w.delivery_complete_count), (4, 6));
        assert_eq!(p.start_offset, 10);
        assert_eq!(p.fetch_offset(), 10);
    }

    #[test]
    fn a_lock_runs_out_and_the_limit_archives() {
        let mut p = SharePartition::load(0, 1, &[]);
        let l = Limits::default();
        for round in 1..=DELIVERY_COUNT_LIMIT {
            let now = i64::from(round) * RECORD_LOCK_DURATION_MS * 2;
            let got = p.acquire("m", &[(0, 0)], 1, now, &l);
            assert_eq!(got, vec![(0, 0, round)]);
            assert!(p.release(None, now + RECORD_LOCK_DURATION_MS, &l).is_some());
        }
        // delivered five times: archived, and the start moves on
        assert_eq!(p.start_offset, 1);
        assert!(p.acquire("m", &[(0, 0)], 1, 0, &l).is_empty());
    }

    /// read_committed: the batches of an aborted transaction are found as
    /// Kafka finds them (its marker ends it; another producer's batches and
    /// a later transaction of the same producer are not aborted), archived
    /// and not delivered.
    #[test]
    fn aborted_transactions_are_archived_not_delivered() {
        let b = |base, last, pid, txn, abort| ReadBatch {
            base_offset: base,
            last_offset: last,
            producer_id: pid,
            transactional: txn,
            abort_marker: abort,
        };
        let batches = [
            b(0, 4, 7, true, false),   // committed
            b(5, 5, 7, true, false),   // (its COMMIT marker: no abort)
            b(6, 8, 7, true, false),   // aborted
            b(9, 9, 8, false, false),  // another producer, idempotent
            b(10, 10, 7, true, true),  // the ABORT marker
            b(11, 12, 7, true, false), // a later transaction
        ];
        assert_eq!(aborted_batches(&batches, &[(7, 6)]), vec![(6, 8)]);
        assert_eq!(aborted_batches(&batches, &[]), vec![]);
        let mut p = SharePartition::load(0, 1, &[]);
        let l = Limits { read_committed: true, ..Limits::default() };
        let got = p.acquire("m", &[(0, 4), (5, 5), (6, 8), (9, 9), (10, 10), (11, 12)], 500, 0, &l);
        assert_eq!(got, vec![(0, 12, 1)]);
        assert_eq!(p.archive_aborted(got, &[(6, 8)]), vec![(0, 5, 1), (9, 12, 1)]);
        assert_eq!(p.delivery_complete_count(), 3);
        // accepted (the markers as gaps): everything is done
        let w = p.acknowledge("m", &[(0, 5, vec![ack::ACCEPT]), (9, 12, vec![ack::ACCEPT])], &l).unwrap();
        assert_eq!(w.delivery_complete_count, 13);
        assert_eq!(p.start_offset, 13);
    }

    /// A group's own limits: two deliveries, then a release archives; a
    /// lock of its duration; no more new records than its record locks.
    #[test]
    fn a_groups_limits_hold() {
        let l = Limits { delivery_count_limit: 2, max_in_flight: 3, lock_ms: 15_000, read_committed: false };
        let mut p = SharePartition::load(0, 1, &[]);
        // a new batch is taken whole though it passes the locks (Kafka
        // acquires to the end of a batch), then no further one
        assert_eq!(p.acquire("m", &[(0, 4), (5, 9)], 500, 0, &l), vec![(0, 4, 1)]);
        assert!(!p.can_acquire(&l));
        assert_eq!(p.next_lock_deadline(), Some(15_000));
        p.acknowledge("m", &[(0, 4, vec![ack::RELEASE])], &l).unwrap();
        assert!(p.can_acquire(&l));
        assert_eq!(p.acquire("m", &[(0, 4)], 500, 0, &l), vec![(0, 4, 2)]);
        let w = p.acknowledge("m", &[(0, 4, vec![ack::RELEASE])], &l).unwrap();
        assert_eq!(w.batches, vec![(0, 4, 4, 2)]);
        assert_eq!((p.start_offset, p.fetch_offset()), (5, 5));
        // the default limit would have made them available again
        let mut q = SharePartition::load(0, 1, &[(0, 4, 0, 2)]);
        let d = Limits::default();
        q.acquire("m", &[(0, 4)], 500, 0, &d);
        assert_eq!(q.acknowledge("m", &[(0, 4, vec![ack::RELEASE])], &d).unwrap().batches, vec![(0, 4, 0, 3)]);
    }

    #[test]
    fn the_coordinator_combines_batches_newest_first() {
        let older = [(0, 9, 0, 1)];
        let newer = [(3, 4, 2, 1), (8, 12, 4, 2)];
        assert_eq!(combine_batches(&older, &newer, 2), vec![(2, 2, 0, 1), (3, 4, 2, 1), (5, 7, 0, 1), (8, 12, 4, 2)]);
        let p = SharePartition::load(2, 1, &combine_batches(&older, &newer, 2));
        assert_eq!((p.start_offset, p.next_offset, p.delivery_complete_count()), (2, 13, 7));
    }
}
