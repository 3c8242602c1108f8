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

use crate::error::{Error, Result};
use crate::limits::Limits;
use crate::partition::Partition;

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
        (false, format!("its producer wrote within the last {}", crate::report::human_duration(max_timeout_ms)))
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
    }
}
