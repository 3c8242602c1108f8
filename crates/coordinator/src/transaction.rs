//! The transaction coordinator's state (`TransactionMetadata`,
//! `TransactionState`) and its `__transaction_state` records as Kafka 3.9's
//! coordinator writes them (`TransactionLog`: key v0, value v0, one record
//! an uncompressed batch, no producer id), so `logtool txns`, Kafka's own
//! tools and a real Kafka started on the dir read them.
//!
//! Transaction version 1 (what a Kafka 3.9 cluster and its clients use): a
//! producer keeps its epoch across transactions; the epoch is bumped by
//! InitProducerId, and by the coordinator fencing a producer whose
//! transaction it aborts (a timeout, or a new InitProducerId while one is
//! open). Markers are written at once (one node leads every partition), so
//! a `Prepare*` state is followed by its `Complete*` in the same call.

use std::collections::{BTreeMap, BTreeSet};

use kmsg::records::transaction_log_value::PartitionsSchema;
use kmsg::records::{TransactionLogKey, TransactionLogValue};

/// `TransactionState` (one enum with `logrules::transactions` and the
/// `__transaction_state` decoder).
pub use logrules::transactions::TransactionState as Status;

/// One transactional id's metadata.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Txn {
    /// Its producer id.
    pub producer_id: i64,
    /// Its producer epoch.
    pub producer_epoch: i16,
    /// `transaction.timeout.ms` of its producer.
    pub timeout_ms: i32,
    /// Its state.
    pub status: Status,
    /// The partitions of the transaction (topic, partition).
    pub partitions: BTreeSet<(String, i32)>,
    /// When the transaction started (-1: none).
    pub start_ms: i64,
    /// When the metadata last changed.
    pub last_update_ms: i64,
    /// The producer id before the last change (`prevProducerId`; written
    /// from value v1).
    pub prev_producer_id: i64,
    /// The producer id an epoch exhausted at this EndTxn moves to
    /// (`nextProducerId`, -1: none).
    pub next_producer_id: i64,
    /// The transaction version of the client's last call that set it
    /// (`clientTransactionVersion`: 2 when it added partitions or ended
    /// the transaction as a TV2 client).
    pub client_version: i16,
}

impl Txn {
    /// The partitions of the transaction, topic by topic.
    pub fn partitions_by_topic(&self) -> impl Iterator<Item = (&str, Vec<i32>)> {
        let mut by_topic: BTreeMap<&str, Vec<i32>> = BTreeMap::new();
        for (t, p) in &self.partitions {
            by_topic.entry(t).or_default().push(*p);
        }
        by_topic.into_iter()
    }

    /// The `TransactionLogKey` and `TransactionLogValue` record of
    /// `transactional_id` in this state, the value at `value_version`
    /// (`TransactionLog.keyToBytes`, `valueToBytes`: v0 on a cluster without
    /// `transaction.version`, v1 with its tagged previous and next producer
    /// ids and client version): an `Empty` state writes no partition list, a
    /// `Complete*` one an empty list (its partitions were cleared).
    pub fn record(&self, transactional_id: &str, value_version: i16) -> (Vec<u8>, Option<Vec<u8>>) {
        let key = TransactionLogKey { transactional_id: transactional_id.to_string() };
        let key = kmsg::coordinator::encode_message(0, &key).unwrap_or_default();
        let partitions = (self.status != Status::Empty).then(|| {
            self.partitions_by_topic()
                .map(|(t, ps)| PartitionsSchema { topic: t.to_string(), partition_ids: ps })
                .collect()
        });
        let mut value = TransactionLogValue {
            producer_id: self.producer_id,
            producer_epoch: self.producer_epoch,
            transaction_timeout_ms: self.timeout_ms,
            transaction_status: self.status.id(),
            transaction_partitions: partitions,
            transaction_last_update_timestamp_ms: self.last_update_ms,
            transaction_start_timestamp_ms: self.start_ms,
            client_transaction_version: self.client_version,
            ..Default::default()
        };
        if value_version >= 1 {
            value.previous_producer_id = self.prev_producer_id;
            value.next_producer_id = self.next_producer_id;
        }
        (key, kmsg::coordinator::encode_message(value_version, &value).ok())
    }
}

/// Kafka's default `transaction.max.timeout.ms` (15 min): the longest
/// `transaction.timeout.ms` InitProducerId takes.
pub const MAX_TIMEOUT_MS: i32 = 900_000;

/// The epoch after `epoch`, or `None` when it is exhausted and a new
/// producer id is due (`TransactionMetadata.prepareIncrementProducerEpoch`:
/// at `Short.MAX_VALUE - 1`).
pub fn next_epoch(epoch: i16) -> Option<i16> {
    (epoch < i16::MAX - 1).then(|| epoch.saturating_add(1))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    /// The records decode as `logtool dump --decode` shows Kafka's.
    #[test]
    fn records_decode_as_kafka_writes_them() {
        let t = Txn {
            producer_id: 5,
            producer_epoch: 0,
            timeout_ms: 60_000,
            status: Status::Ongoing,
            partitions: [("txn".to_string(), 0)].into_iter().collect(),
            start_ms: 1,
            last_update_ms: 2,
            prev_producer_id: 5,
            next_producer_id: -1,
            client_version: 0,
        };
        let (key, value) = t.record("tx-a", 0);
        let (kv, k) = kmsg::coordinator::decode_versioned(&key, "TransactionLogKey").unwrap();
        assert_eq!((kv, k["transactionalId"].as_str()), (0, Some("tx-a")));
        let (vv, v) = kmsg::coordinator::decode_versioned(&value.unwrap(), "TransactionLogValue").unwrap();
        assert_eq!(vv, 0);
        assert_eq!(v["transactionStatus"], 1);
        assert_eq!(v["transactionPartitions"], json!([{"topic": "txn", "partitionIds": [0]}]));
        let done = Txn { status: Status::CompleteCommit, partitions: BTreeSet::new(), ..t.clone() };
        let (_, v) =
            kmsg::coordinator::decode_versioned(&done.record("tx-a", 0).1.unwrap(), "TransactionLogValue").unwrap();
        assert_eq!(v["transactionPartitions"], json!([]));
        let empty = Txn { status: Status::Empty, partitions: BTreeSet::new(), ..t };
        let (_, v) =
            kmsg::coordinator::decode_versioned(&empty.record("tx-a", 0).1.unwrap(), "TransactionLogValue").unwrap();
        assert_eq!(v["transactionPartitions"], serde_json::Value::Null);
        assert_eq!(next_epoch(i16::MAX - 1), None);
        for s in Status::ALL {
            assert_eq!(Status::from_name(s.name()), Some(s));
        }
    }
}
