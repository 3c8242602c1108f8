//! What the transaction coordinator loads from `__transaction_state`
//! (`TransactionStateManager.loadTransactionMetadata`): every partition read
//! from its log start, the last record of a transactional id winning, a
//! tombstone removing it. An `Empty` transaction has no partitions
//! (`TransactionLog.readTxnRecordValue` ignores them).
//!
//! What `kafka-transactions describe` shows of a transactional id, and what
//! `find-hanging` asks of it: whether the coordinator still expects to
//! write markers to a partition (the partition is in its transaction, in
//! state `Ongoing`, `PrepareCommit`, `PrepareAbort` or `PrepareEpochFence`).

use std::collections::BTreeMap;

use kmsg::records::{TransactionLogKey, TransactionLogValue};

use logfmt::error::{Error, Result};
use logfmt::limits::Limits;
use logfmt::partition::Partition;

/// `TransactionState`, with the id Kafka writes as `TransactionStatus`:
/// one enum for the coordinator's rules here, the `__transaction_state`
/// decoder and `logtool broker`'s coordinator.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum TransactionState {
    /// No transaction.
    Empty = 0,
    /// Partitions were added; records may be written.
    Ongoing = 1,
    /// EndTxn(commit) taken; markers being written.
    PrepareCommit = 2,
    /// EndTxn(abort), a timeout or a fence; markers being written.
    PrepareAbort = 3,
    /// Committed; markers written.
    CompleteCommit = 4,
    /// Aborted; markers written.
    CompleteAbort = 5,
    /// Expired.
    Dead = 6,
    /// A fence in progress.
    PrepareEpochFence = 7,
}

impl TransactionState {
    /// Every state, by id.
    pub const ALL: [TransactionState; 8] = [
        TransactionState::Empty,
        TransactionState::Ongoing,
        TransactionState::PrepareCommit,
        TransactionState::PrepareAbort,
        TransactionState::CompleteCommit,
        TransactionState::CompleteAbort,
        TransactionState::Dead,
        TransactionState::PrepareEpochFence,
    ];

    /// Kafka's id of the state (`TransactionState.id`).
    pub fn id(self) -> i8 {
        self as i8
    }

    /// The state of id `id` (`TransactionState.fromId`).
    pub fn from_id(id: i64) -> Option<TransactionState> {
        TransactionState::ALL.into_iter().find(|s| i64::from(s.id()) == id)
    }

    /// The state named `name`.
    pub fn from_name(name: &str) -> Option<TransactionState> {
        TransactionState::ALL.into_iter().find(|s| s.name() == name)
    }

    /// Its name, as `DescribeTransactions`, `kafka-transactions` and
    /// DumpLogSegments' decoder print it (`TransactionState.name`).
    pub fn name(self) -> &'static str {
        match self {
            TransactionState::Empty => "Empty",
            TransactionState::Ongoing => "Ongoing",
            TransactionState::PrepareCommit => "PrepareCommit",
            TransactionState::PrepareAbort => "PrepareAbort",
            TransactionState::CompleteCommit => "CompleteCommit",
            TransactionState::CompleteAbort => "CompleteAbort",
            TransactionState::Dead => "Dead",
            TransactionState::PrepareEpochFence => "PrepareEpochFence",
        }
    }

    /// Whether the coordinator still has markers to write in this state
    /// (`Ongoing` will end in one; the `Prepare*` states are writing them).
    pub fn writes_markers(self) -> bool {
        matches!(
            self,
            TransactionState::Ongoing
                | TransactionState::PrepareCommit
                | TransactionState::PrepareAbort
                | TransactionState::PrepareEpochFence
        )
    }
}

/// The `transaction.version` feature (`TransactionVersion`, Kafka 4.x):
/// 0 and 1 keep a producer's epoch across transactions; 2 (KIP-890, a fresh
/// Kafka 4.x cluster's) bumps it at every EndTxn and lets Produce and
/// TxnOffsetCommit add their partitions to the transaction themselves.
pub mod version {
    /// The level from which EndTxn bumps the epoch (`supportsEpochBump`).
    pub const EPOCH_BUMP: i16 = 2;

    /// The `TransactionLogValue` version the coordinator writes at the
    /// cluster's level (`transactionLogValueVersion`: 1 from level 1).
    pub fn log_value_version(level: i16) -> i16 {
        if level >= 1 { 1 } else { 0 }
    }

    /// The client's level an EndTxn of request version `v` says
    /// (`transactionVersionForEndTxn`: v5 and later are TV2).
    pub fn of_end_txn(v: i16) -> i16 {
        if v > 4 { EPOCH_BUMP } else { 0 }
    }

    /// The client's level an AddPartitionsToTxn of version `v` says
    /// (`transactionVersionForAddPartitionsToTxn`: v4 and later, sent by a
    /// broker for a Produce of a TV2 client, are TV2).
    pub fn of_add_partitions(v: i16) -> i16 {
        if v > 3 { EPOCH_BUMP } else { 0 }
    }

    /// Whether a transactional Produce (or TxnOffsetCommit) of version `v`
    /// adds its partition to the transaction itself
    /// (`AddPartitionsToTxnManager.produceRequestVersionToTransactionSupportedOperation`:
    /// Produce v12+, TxnOffsetCommit v5+: `addPartition`).
    pub fn produce_adds_partitions(v: i16) -> bool {
        v >= 12
    }

    /// See [`produce_adds_partitions`].
    pub fn txn_offset_commit_adds_partition(v: i16) -> bool {
        v >= 5
    }

    /// Whether `epoch` leaves no epoch to bump to for its producer id
    /// (`isEpochExhausted`: `Short.MAX_VALUE - 1` and above, so the
    /// coordinator can always fence).
    pub fn epoch_exhausted(epoch: i16) -> bool {
        epoch >= i16::MAX - 1
    }
}

/// Why the coordinator refuses an EndTxn (Kafka's `Errors` names).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum EndTxnError {
    /// `INVALID_PRODUCER_ID_MAPPING`.
    InvalidProducerIdMapping,
    /// `PRODUCER_FENCED`.
    ProducerFenced,
    /// `CONCURRENT_TRANSACTIONS`: markers are being written; retry.
    ConcurrentTransactions,
    /// `INVALID_TXN_STATE`.
    InvalidTxnState,
}

/// What an EndTxn of a transaction version 2 client does.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum EndTxn {
    /// A retry of an EndTxn that completed: answered `NONE` with the
    /// current producer id and epoch.
    Done,
    /// The transaction moves to `PrepareCommit` or `PrepareAbort`
    /// (`noPartitionAdded`: an abort of a transaction that added none,
    /// which TV2 allows: it starts now).
    Prepare {
        /// `PrepareCommit` or `PrepareAbort`.
        state: TransactionState,
        /// No partition was added (an `Empty` or `Complete*` transaction).
        no_partition_added: bool,
    },
}

/// A transactional id's coordinator state, as EndTxn looks at it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Current {
    /// Its state.
    pub state: TransactionState,
    /// Its producer id.
    pub producer_id: i64,
    /// The producer id before the last change (`prevProducerId`).
    pub prev_producer_id: i64,
    /// Its producer epoch.
    pub producer_epoch: i16,
}

/// EndTxn from a transaction version 2 client
/// (`TransactionCoordinator.endTransaction`, Kafka 4.3.1, no epoch fence
/// pending): a retry is told by the epoch (the one before the bump, or the
/// last of an exhausted producer id), an abort may end a transaction that
/// added no partition, and each state takes only its own retry.
pub fn end_txn_v2(cur: &Current, producer_id: i64, producer_epoch: i16, commit: bool) -> Result<EndTxn, EndTxnError> {
    use TransactionState as S;
    let retry_on_overflow =
        cur.prev_producer_id == producer_id && producer_epoch == i16::MAX - 1 && cur.producer_epoch == 0;
    let retry_on_bump = i32::from(cur.producer_epoch) == i32::from(producer_epoch).saturating_add(1);
    let valid_epoch = match cur.state {
        S::Ongoing | S::Empty | S::Dead | S::PrepareEpochFence => producer_epoch == cur.producer_epoch,
        S::PrepareCommit | S::PrepareAbort => retry_on_bump,
        S::CompleteCommit | S::CompleteAbort => {
            retry_on_bump || retry_on_overflow || producer_epoch == cur.producer_epoch
        }
    };
    let retry = retry_on_bump || retry_on_overflow;
    if cur.producer_id != producer_id && !retry_on_overflow {
        return Err(EndTxnError::InvalidProducerIdMapping);
    }
    if !valid_epoch {
        return Err(EndTxnError::ProducerFenced);
    }
    let prepare = |no_partition_added| {
        let state = if commit { S::PrepareCommit } else { S::PrepareAbort };
        Ok(EndTxn::Prepare { state, no_partition_added })
    };
    match (cur.state, commit) {
        (S::Ongoing, _) => prepare(false),
        (S::CompleteCommit, true) | (S::CompleteAbort, false) if retry => Ok(EndTxn::Done),
        (S::CompleteCommit | S::CompleteAbort | S::Empty, false) if !retry => prepare(true),
        (S::PrepareCommit, true) | (S::PrepareAbort, false) => Err(EndTxnError::ConcurrentTransactions),
        _ => Err(EndTxnError::InvalidTxnState),
    }
}

/// A transactional id's metadata.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TxnMetadata {
    /// The transactional id.
    pub transactional_id: String,
    /// Its producer id.
    pub producer_id: i64,
    /// Its producer epoch.
    pub producer_epoch: i16,
    /// Its state (None: a record without a known one).
    pub state: Option<TransactionState>,
    /// The partitions of its transaction.
    pub partitions: Vec<(String, i32)>,
    /// `transaction.timeout.ms` of its producer.
    pub timeout_ms: i64,
    /// When the transaction started (-1 none).
    pub start_timestamp: i64,
    /// When the metadata last changed.
    pub last_update_timestamp: i64,
    /// The producer id before its last change (value v1; -1 in v0).
    pub prev_producer_id: i64,
    /// The transaction version of its client (value v1; 0 in v0).
    pub client_transaction_version: i16,
}

impl TxnMetadata {
    /// Its state's name ("Unknown" when its record had none Kafka defines).
    pub fn state_name(&self) -> &'static str {
        self.state.map_or("Unknown", TransactionState::name)
    }

    /// Whether the coordinator will still write a marker to `topic`-`partition`.
    pub fn expects_marker(&self, topic: &str, partition: i32) -> bool {
        self.state.is_some_and(TransactionState::writes_markers)
            && self.partitions.iter().any(|(t, p)| t == topic && *p == partition)
    }
}

/// Whether an open transaction hangs, as `kafka-transactions find-hanging`
/// decides (`TransactionsCommand.FindHangingTransactionsCommand`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Hanging {
    /// It hangs: no marker will close it.
    pub hanging: bool,
    /// Why, in words.
    pub why: String,
    /// Whether the coordinator will still write its marker (None: no
    /// transactional id has its producer id).
    pub coordinator_expects_marker: Option<bool>,
}

/// find-hanging's decision for the open transaction of a producer that last
/// wrote `age_ms` ago in `topic`-`partition`: a producer that wrote within
/// `max_timeout_ms` (the largest `transaction.max.timeout.ms`) does not
/// hang; else it hangs unless the coordinator (`coordinator`: the loaded
/// `__transaction_state`, None when there is none) holds its producer id
/// (`meta`) in a transaction that includes the partition.
pub fn find_hanging(
    age_ms: i64,
    max_timeout_ms: i64,
    coordinator_loaded: bool,
    meta: Option<&TxnMetadata>,
    topic: &str,
    partition: i32,
) -> Hanging {
    let expects = meta.map(|m| m.expects_marker(topic, partition));
    let (hanging, why) = if age_ms <= max_timeout_ms {
        (false, format!("its producer wrote within the last {}", logfmt::report::human_duration(max_timeout_ms)))
    } else {
        match (coordinator_loaded, meta, expects) {
            (_, Some(_), Some(true)) => (false, "the coordinator will still write its marker".to_string()),
            (_, Some(m), _) => {
                (true, format!("the coordinator's transaction ({}) does not include this partition", m.state_name()))
            }
            (true, None, _) => (true, "no transactional id has this producer id".to_string()),
            (false, None, _) => {
                (true, "no transactional id known for this producer (no __transaction_state here)".to_string())
            }
        }
    };
    Hanging { hanging, why, coordinator_expects_marker: expects }
}

/// Transactional ids held at most (see [`super::groups::MAX_KEYS`]).
pub const MAX_IDS: usize = super::groups::MAX_KEYS;

/// Load every `__transaction_state` partition given, by transactional id.
pub fn load(partitions: &[Partition], limits: &Limits) -> Result<BTreeMap<String, TxnMetadata>> {
    load_with_progress(partitions, limits, &mut |_| {})
}

/// [`load`], telling `done` the size of each segment read.
pub fn load_with_progress(
    partitions: &[Partition],
    limits: &Limits,
    done: &mut dyn FnMut(u64),
) -> Result<BTreeMap<String, TxnMetadata>> {
    let mut out = BTreeMap::new();
    for p in partitions {
        super::log::for_each_record(p, limits, done, &mut |h, _, rec| {
            if h.is_control() {
                return Ok(());
            }
            let key = rec.key.map(kmsg::coordinator::decode_message::<TransactionLogKey>);
            let Some(Ok((_, key))) = key else { return Ok(()) };
            let id = key.transactional_id;
            match rec.value.map(kmsg::coordinator::decode_message::<TransactionLogValue>) {
                None => {
                    out.remove(&id);
                }
                Some(Err(_)) => {}
                Some(Ok((_, v))) => {
                    let m = metadata(&id, v);
                    out.insert(id, m);
                }
            }
            if out.len() > MAX_IDS {
                return Err(Error::refused(format!(
                    "{}: more than {MAX_IDS} transactional ids; not a coordinator's state",
                    p.dir.display()
                )));
            }
            Ok(())
        })?;
    }
    Ok(out)
}

fn metadata(id: &str, v: TransactionLogValue) -> TxnMetadata {
    let state = TransactionState::from_id(i64::from(v.transaction_status));
    let mut partitions = Vec::new();
    if state != Some(TransactionState::Empty) {
        for t in v.transaction_partitions.into_iter().flatten() {
            partitions.extend(t.partition_ids.into_iter().map(|p| (t.topic.clone(), p)));
        }
    }
    partitions.sort();
    TxnMetadata {
        transactional_id: id.to_string(),
        producer_id: v.producer_id,
        producer_epoch: v.producer_epoch,
        state,
        partitions,
        timeout_ms: i64::from(v.transaction_timeout_ms),
        start_timestamp: v.transaction_start_timestamp_ms,
        last_update_timestamp: v.transaction_last_update_timestamp_ms,
        prev_producer_id: v.previous_producer_id,
        client_transaction_version: v.client_transaction_version,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `TransactionCoordinator`'s table of TV2 EndTxn on a finished
    /// transaction (Kafka 4.3.1's comment above `endTransaction`): a retry
    /// (the epoch before the bump) or the current epoch, abort or commit.
    #[test]
    fn end_txn_v2_follows_kafkas_table() {
        use EndTxnError::{InvalidTxnState as Its, ProducerFenced as Pf};
        use TransactionState as S;
        let cur = |state| Current { state, producer_id: 7, prev_producer_id: 7, producer_epoch: 5 };
        let bump = |no_partition_added| Ok(EndTxn::Prepare { state: S::PrepareAbort, no_partition_added });
        // (state, retry, commit) -> answer
        let table = [
            (S::Empty, true, false, Err(Pf)),
            (S::Empty, false, false, bump(true)),
            (S::Empty, true, true, Err(Pf)),
            (S::Empty, false, true, Err(Its)),
            (S::CompleteAbort, true, false, Ok(EndTxn::Done)),
            (S::CompleteAbort, false, false, bump(true)),
            (S::CompleteAbort, true, true, Err(Its)),
            (S::CompleteAbort, false, true, Err(Its)),
            (S::CompleteCommit, true, false, Err(Its)),
            (S::CompleteCommit, false, false, bump(true)),
            (S::CompleteCommit, true, true, Ok(EndTxn::Done)),
            (S::CompleteCommit, false, true, Err(Its)),
        ];
        for (state, retry, commit, want) in table {
            let epoch = if retry { 4 } else { 5 };
            assert_eq!(end_txn_v2(&cur(state), 7, epoch, commit), want, "{state:?} retry={retry} commit={commit}");
        }
        // an ongoing transaction at the current epoch ends; at another, or
        // of another producer id, it is refused; markers in flight: retry
        let commit = Ok(EndTxn::Prepare { state: S::PrepareCommit, no_partition_added: false });
        assert_eq!(end_txn_v2(&cur(S::Ongoing), 7, 5, true), commit);
        assert_eq!(end_txn_v2(&cur(S::Ongoing), 7, 4, true), Err(Pf));
        assert_eq!(end_txn_v2(&cur(S::Ongoing), 8, 5, true), Err(EndTxnError::InvalidProducerIdMapping));
        assert_eq!(end_txn_v2(&cur(S::PrepareCommit), 7, 4, true), Err(EndTxnError::ConcurrentTransactions));
        // a retry across an exhausted epoch: the new id at 0, asked with the old id
        let rotated = Current { state: S::CompleteCommit, producer_id: 9, prev_producer_id: 7, producer_epoch: 0 };
        assert_eq!(end_txn_v2(&rotated, 7, i16::MAX - 1, true), Ok(EndTxn::Done));
        assert!(version::epoch_exhausted(i16::MAX - 1) && !version::epoch_exhausted(i16::MAX - 2));
    }
}
