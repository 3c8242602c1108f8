//! The records of Kafka's internal topics, decoded ([`kmsg`] reads them by
//! Kafka's own message definitions): what `DumpLogSegments`
//! `--offsets-decoder`, `--transaction-log-decoder`,
//! `--share-group-state-decoder` (4.x) and `--cluster-metadata-decoder`
//! print, as JSON.
//!
//! * `__consumer_offsets` (`CoordinatorRecordSerde`): the key's int16 is the
//!   record type (0 and 1 offset commits, 2 classic group metadata, 3.. the
//!   KIP-848 records), the key read at that version; the value's int16 is
//!   its version; a null value is a tombstone. A classic group of the
//!   `consumer` protocol has its members' subscription and assignment
//!   decoded too (`ConsumerProtocolSubscription`/`Assignment`), as
//!   DumpLogSegments does.
//! * `__transaction_state` (`TransactionLog`): `TransactionLogKey` (version
//!   0) and `TransactionLogValue`; the state byte is also named
//!   (`TransactionState.fromId`).
//! * `__share_group_state` (Kafka 4.x's share coordinator,
//!   `ShareCoordinatorRecordSerde`): as `__consumer_offsets`, the key's
//!   int16 the record type (0 ShareSnapshot, 1 ShareUpdate), what
//!   `--share-group-state-decoder` prints.
//! * `__cluster_metadata` and KRaft snapshots (`MetadataRecordSerde`).
//! * `__remote_log_metadata` (tiered storage, `RemoteLogMetadataSerde`):
//!   `{type, version, data}` as a metadata record, with the segment's or
//!   partition deletion's `state` named (what
//!   `--remote-log-metadata-decoder` prints, as JSON).
//!
//! Nothing here fails: what does not decode (an unknown record type or
//! version, damaged bytes) gives an `error` member and whatever did decode.

use base64::Engine;
use serde_json::{Map, Value, json};

/// Which internal topic's records.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Decoder {
    /// `__consumer_offsets`.
    ConsumerOffsets,
    /// `__transaction_state`.
    TransactionState,
    /// `__share_group_state` (Kafka 4.x share groups).
    ShareGroupState,
    /// `__cluster_metadata` (and KRaft `.checkpoint` files).
    ClusterMetadata,
    /// `__remote_log_metadata` (tiered storage).
    RemoteLogMetadata,
}

pub use logfmt::spec::names::{CONSUMER_OFFSETS_TOPIC, SHARE_GROUP_STATE_TOPIC, TRANSACTION_STATE_TOPIC};

impl Decoder {
    /// The decoder for a topic's records, if it is an internal topic.
    pub fn for_topic(topic: &str) -> Option<Decoder> {
        match topic {
            CONSUMER_OFFSETS_TOPIC => Some(Decoder::ConsumerOffsets),
            TRANSACTION_STATE_TOPIC => Some(Decoder::TransactionState),
            SHARE_GROUP_STATE_TOPIC => Some(Decoder::ShareGroupState),
            logfmt::spec::names::CLUSTER_METADATA_TOPIC => Some(Decoder::ClusterMetadata),
            kmsg::remote::REMOTE_LOG_METADATA_TOPIC => Some(Decoder::RemoteLogMetadata),
            _ => None,
        }
    }

    /// Decode one record.
    pub fn decode(self, key: Option<&[u8]>, value: Option<&[u8]>) -> Value {
        match self {
            Decoder::ConsumerOffsets => coordinator_record(key, value, kmsg::coordinator::group_record),
            Decoder::ShareGroupState => coordinator_record(key, value, kmsg::coordinator::share_record),
            Decoder::TransactionState => transaction_state(key, value),
            Decoder::ClusterMetadata => cluster_metadata(value),
            Decoder::RemoteLogMetadata => remote_log_metadata(value),
        }
    }
}

fn error(mut obj: Map<String, Value>, e: impl std::fmt::Display) -> Value {
    obj.insert("error".into(), Value::String(e.to_string()));
    Value::Object(obj)
}

fn int16(bytes: &[u8]) -> Option<i16> {
    Some(i16::from_be_bytes(bytes.get(..2)?.try_into().ok()?))
}

/// The key and value definitions of a coordinator's record type.
type RecordDefs = fn(i16) -> Option<(&'static kmsg::MessageSchema, &'static kmsg::MessageSchema)>;

/// A `__consumer_offsets` or `__share_group_state` record (`defs` says
/// which): `{record, type, key, version, value}`.
fn coordinator_record(key: Option<&[u8]>, value: Option<&[u8]>, defs: RecordDefs) -> Value {
    let mut obj = Map::new();
    let Some(key) = key else { return error(obj, "no key") };
    let Some(record_type) = int16(key) else { return error(obj, "a key shorter than its type") };
    obj.insert("type".into(), json!(record_type));
    let Some((key_schema, value_schema)) = defs(record_type) else {
        return error(obj, format!("unknown record type {record_type}"));
    };
    obj.insert("record".into(), json!(key_schema.name.strip_suffix("Key").unwrap_or(&key_schema.name)));
    let key_version = kmsg::coordinator::key_version(key_schema, record_type);
    match kmsg::decode(&key_schema.name, key_version, key.get(2..).unwrap_or_default()) {
        Ok(k) => obj.insert("key".into(), k),
        Err(e) => return error(obj, format!("key: {e}")),
    };
    let Some(value) = value else {
        obj.insert("value".into(), Value::Null);
        return Value::Object(obj);
    };
    match kmsg::coordinator::decode_versioned(value, &value_schema.name) {
        Ok((version, mut v)) => {
            if value_schema.name == "GroupMetadataValue" {
                decode_consumer_protocol(&mut v);
            }
            obj.insert("version".into(), json!(version));
            obj.insert("value".into(), v);
            Value::Object(obj)
        }
        Err(e) => {
            if let Some(v) = int16(value) {
                obj.insert("version".into(), json!(v));
            }
            error(obj, format!("value: {e}"))
        }
    }
}

/// Members of a `consumer`-protocol group: subscription and assignment
/// decoded in place (left as bytes when they do not decode, as
/// DumpLogSegments does).
fn decode_consumer_protocol(group: &mut Value) {
    if group.get("protocolType").and_then(Value::as_str) != Some("consumer") {
        return;
    }
    let Some(members) = group.get_mut("members").and_then(Value::as_array_mut) else { return };
    for m in members {
        for (field, name) in
            [("subscription", "ConsumerProtocolSubscription"), ("assignment", "ConsumerProtocolAssignment")]
        {
            let Some(slot) = m.get_mut(field) else { continue };
            let decoded = slot
                .as_str()
                .and_then(|b64| base64::engine::general_purpose::STANDARD.decode(b64).ok())
                .and_then(|bytes| kmsg::coordinator::decode_versioned(&bytes, name).ok());
            if let Some((_, v)) = decoded {
                *slot = v;
            }
        }
    }
}

/// A `__transaction_state` record: `{record, key, version, value}`, the
/// value with `state` named.
fn transaction_state(key: Option<&[u8]>, value: Option<&[u8]>) -> Value {
    let mut obj = Map::new();
    obj.insert("record".into(), json!("TransactionLog"));
    let Some(key) = key else { return error(obj, "no key") };
    match kmsg::coordinator::decode_versioned(key, "TransactionLogKey") {
        Ok((_, k)) => obj.insert("key".into(), k),
        Err(e) => return error(obj, format!("key: {e}")),
    };
    let Some(value) = value else {
        obj.insert("value".into(), Value::Null);
        return Value::Object(obj);
    };
    match kmsg::coordinator::decode_versioned(value, "TransactionLogValue") {
        Ok((version, mut v)) => {
            let state = v
                .get("transactionStatus")
                .and_then(Value::as_u64)
                .and_then(|s| crate::transactions::TransactionState::from_id(i64::try_from(s).ok()?))
                .map(crate::transactions::TransactionState::name);
            if let (Some(state), Some(o)) = (state, v.as_object_mut()) {
                o.insert("state".into(), json!(state));
            }
            obj.insert("version".into(), json!(version));
            obj.insert("value".into(), v);
            Value::Object(obj)
        }
        Err(e) => error(obj, format!("value: {e}")),
    }
}

/// A metadata record: `{type, version, data}` as DumpLogSegments prints it.
fn cluster_metadata(value: Option<&[u8]>) -> Value {
    let Some(value) = value else { return error(Map::new(), "no value") };
    match kmsg::metadata::decode(value) {
        Ok(r) => r.to_json(),
        Err(e) => error(Map::new(), e),
    }
}

/// A `__remote_log_metadata` record: `{type, version, data, state}`.
fn remote_log_metadata(value: Option<&[u8]>) -> Value {
    let Some(value) = value else { return error(Map::new(), "no value") };
    match kmsg::remote::decode(value) {
        Ok(r) => {
            let mut v = r.to_json();
            let state = match r.name.as_str() {
                "RemotePartitionDeleteMetadataRecord" => r
                    .data
                    .get("remotePartitionDeleteState")
                    .and_then(Value::as_i64)
                    .and_then(kmsg::remote::partition_delete_state_name),
                _ => r
                    .data
                    .get("remoteLogSegmentState")
                    .and_then(Value::as_i64)
                    .and_then(kmsg::remote::segment_state_name),
            };
            if let (Some(state), Some(o)) = (state, v.as_object_mut()) {
                o.insert("state".into(), json!(state));
            }
            v
        }
        Err(e) => error(Map::new(), e),
    }
}

/// Which `__consumer_offsets` partition holds `group`
/// (`GroupCoordinatorService.partitionFor`: `Utils.abs(groupId.hashCode()) %
/// partitions`, Java's `String.hashCode` over UTF-16 code units).
pub fn partition_for_group(group: &str, partitions: i32) -> i32 {
    let hash = group.encode_utf16().fold(0i32, |h, c| h.wrapping_mul(31).wrapping_add(i32::from(c)));
    let abs = if hash == i32::MIN { 0 } else { hash.wrapping_abs() };
    abs.checked_rem(partitions).unwrap_or(0)
}

pub use logfmt::hash::murmur2;

/// The partition the Java producer's default partitioner gives a record
/// with key `key` (`BuiltInPartitioner.partitionForKey`:
/// `Utils.toPositive(Utils.murmur2(key)) % partitions`). Records without a
/// key, or with a partitioner of their own, go elsewhere.
pub fn partition_for_key(key: &[u8], partitions: i32) -> i32 {
    (murmur2(key) & 0x7fff_ffff).checked_rem(partitions).unwrap_or(0)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn murmur2_as_kafka_computes_it() {
        // Kafka's own vectors (clients' UtilsTest.testMurmur2)
        for (key, hash) in [
            (&b"21"[..], -973932308),
            (b"foobar", -790332482),
            (b"a-little-bit-long-string", -985981536),
            (b"a-little-bit-longer-string", -1486304829),
            (b"lkjh234lh9fiuh90y23oiuhsafujhadof229phr9h19h89h8", -58897971),
            (b"abc", 479470107),
        ] {
            assert_eq!(murmur2(key), hash, "{}", String::from_utf8_lossy(key));
        }
        assert_eq!(partition_for_key(b"foobar", 3), (-790332482i32 & 0x7fff_ffff) % 3);
        assert_eq!(partition_for_key(b"x", 0), 0);
    }

    #[test]
    fn groups_hash_to_partitions_as_kafka_does() {
        // Java's String.hashCode, abs, % 50 (checked with a JVM)
        assert_eq!(partition_for_group("fixture-group", 50), 1);
        assert_eq!(partition_for_group("", 50), 0);
        assert_eq!(partition_for_group("g", 50), 3);
        assert_eq!(partition_for_group("grüße-🎉", 50), 39);
        assert_eq!(partition_for_group("g", 1), 0);
        assert_eq!(partition_for_group("x", 0), 0);
    }

    #[test]
    fn nothing_fails() {
        for d in [
            Decoder::ConsumerOffsets,
            Decoder::TransactionState,
            Decoder::ShareGroupState,
            Decoder::ClusterMetadata,
            Decoder::RemoteLogMetadata,
        ] {
            for (k, v) in [(None, None), (Some(&[0u8][..]), Some(&[1u8][..])), (Some(&[0, 99, 1][..]), None)] {
                assert!(d.decode(k, v).get("error").is_some(), "{d:?} {k:?} {v:?}");
            }
        }
    }
}
