//! Coordinator records (`__consumer_offsets`, `__transaction_state`,
//! `__share_group_state`): the key
//! and the value of each record start with an int16 version
//! (`CoordinatorRecordSerde`, `TransactionLog`), then the message.

use serde_json::Value;

use crate::codec::{self, Reader};
use crate::error::{Error, Result};
use crate::records::*;
use crate::{Message, schema};

/// Read an int16 version, then the message `name` at it.
pub fn decode_versioned(bytes: &[u8], name: &str) -> Result<(i16, Value)> {
    let mut r = Reader::new(bytes);
    let version = r.i16()?;
    let schema = schema::by_name(name).ok_or_else(|| Error::Schema(format!("no message {name}")))?;
    let v = codec::read(&mut r, schema, version)?;
    Ok((version, v))
}

/// Read an int16 version, then the typed message at it.
pub fn decode_message<M: Message>(bytes: &[u8]) -> Result<(i16, M)> {
    let (version, v) = decode_versioned(bytes, M::NAME)?;
    Ok((version, M::from_value(v)?))
}

/// Write an int16 version, then the typed message at it.
pub fn encode_message<M: Message>(version: i16, message: &M) -> Result<Vec<u8>> {
    encode_versioned(M::NAME, version, &message.to_value())
}

/// Write an int16 version, then the message `name` at it.
pub fn encode_versioned(name: &str, version: i16, value: &Value) -> Result<Vec<u8>> {
    let schema = schema::by_name(name).ok_or_else(|| Error::Schema(format!("no message {name}")))?;
    let mut out = version.to_be_bytes().to_vec();
    codec::write(&mut out, schema, version, value)?;
    Ok(out)
}

/// The key and value definitions of a group coordinator record type (the
/// int16 that starts a `__consumer_offsets` key: 0 and 1 offset commits, 2
/// classic group metadata, 3.. the KIP-848 consumer, share and streams group
/// records; `CoordinatorRecordSerde.apiMessageKeyFor`): the `*Key`
/// definition of that type, and its `*Value`. Kafka 4's definitions give the
/// type as the key's `apiKey` (the key is then version 0); Kafka 3's as the
/// key's versions ([`key_version`]).
pub fn group_record(record_type: i16) -> Option<(&'static schema::MessageSchema, &'static schema::MessageSchema)> {
    const GROUP_RECORDS: [&str; 6] =
        ["LegacyOffsetCommit", "OffsetCommit", "GroupMetadata", "ConsumerGroup", "ShareGroup", "StreamsGroup"];
    schema::names().into_iter().find_map(|name| {
        let stem = name.strip_suffix("Key")?;
        if !GROUP_RECORDS.iter().any(|p| stem.starts_with(p)) {
            return None;
        }
        let key = schema::by_name(name)?;
        let matches = match key.api_key {
            Some(k) if key.kind == "coordinator-key" => k == record_type,
            _ => key.valid.contains(record_type),
        };
        if !matches {
            return None;
        }
        Some((key, schema::by_name(&format!("{stem}Value"))?))
    })
}

/// The key and value definitions of a share coordinator record type (the
/// int16 that starts a `__share_group_state` key: 0 ShareSnapshot, 1
/// ShareUpdate; the `coordinator-key` definitions' `apiKey`).
pub fn share_record(record_type: i16) -> Option<(&'static schema::MessageSchema, &'static schema::MessageSchema)> {
    ["ShareSnapshot", "ShareUpdate"].into_iter().find_map(|stem| {
        let key = schema::by_name(&format!("{stem}Key"))?;
        (key.api_key == Some(record_type)).then_some(())?;
        Some((key, schema::by_name(&format!("{stem}Value"))?))
    })
}

/// The version a coordinator key's message is read and written at, after
/// the int16 record type: 0 for Kafka 4's `coordinator-key` definitions, the
/// type itself for Kafka 3's.
pub fn key_version(key: &schema::MessageSchema, record_type: i16) -> i16 {
    if key.kind == "coordinator-key" { 0 } else { record_type }
}

/// A group coordinator record key: the int16 record type, then the key
/// message of that type.
pub fn encode_group_key(record_type: i16, value: &Value) -> Result<Vec<u8>> {
    let (key, _) =
        group_record(record_type).ok_or_else(|| Error::Schema(format!("no group record type {record_type}")))?;
    let mut out = record_type.to_be_bytes().to_vec();
    codec::write(&mut out, key, key_version(key, record_type), value)?;
    Ok(out)
}

/// A group coordinator record key of the typed `key` (its record type is
/// the key definition's: [`group_record`]).
pub fn encode_group_key_message<M: Message>(record_type: i16, key: &M) -> Result<Vec<u8>> {
    encode_group_key(record_type, &key.to_value())
}

/// A typed coordinator record's key and value (none: a tombstone) as
/// Kafka 4's coordinator writes them: the key's int16 record type (its
/// definition's `apiKey`), the key at version 0, the value's int16 version
/// 0 and the value.
fn encode_typed<K: Message, V: Message>(key: &K, value: Option<&V>) -> Result<(Vec<u8>, Option<Vec<u8>>)> {
    let schema = schema::by_name(K::NAME).ok_or_else(|| Error::Schema(format!("no message {}", K::NAME)))?;
    let record_type = schema.api_key.ok_or_else(|| Error::Schema(format!("{} names no record type", K::NAME)))?;
    let mut out = record_type.to_be_bytes().to_vec();
    codec::write(&mut out, schema, 0, &key.to_value())?;
    Ok((out, value.map(|v| encode_message(0, v)).transpose()?))
}

/// The key and value (none: a tombstone) of a KIP-848 consumer group or
/// KIP-932 share group record, as Kafka 4's group coordinator writes it
/// (`GroupCoordinatorRecordHelpers`); the other records are written
/// elsewhere (offset commits and classic groups at the versions Kafka 3.9
/// writes) or not at all (streams groups) and are refused here.
pub fn encode_group_record(record: &GroupRecord) -> Result<(Vec<u8>, Option<Vec<u8>>)> {
    match record {
        GroupRecord::ConsumerGroupMetadata(k, v) => encode_typed(k, v.as_ref()),
        GroupRecord::ConsumerGroupMemberMetadata(k, v) => encode_typed(k, v.as_ref()),
        GroupRecord::ConsumerGroupCurrentMemberAssignment(k, v) => encode_typed(k, v.as_ref()),
        GroupRecord::ConsumerGroupTargetAssignmentMember(k, v) => encode_typed(k, v.as_ref()),
        GroupRecord::ConsumerGroupTargetAssignmentMetadata(k, v) => encode_typed(k, v.as_ref()),
        GroupRecord::ConsumerGroupRegularExpression(k, v) => encode_typed(k, v.as_ref()),
        GroupRecord::ShareGroupMetadata(k, v) => encode_typed(k, v.as_ref()),
        GroupRecord::ShareGroupMemberMetadata(k, v) => encode_typed(k, v.as_ref()),
        GroupRecord::ShareGroupCurrentMemberAssignment(k, v) => encode_typed(k, v.as_ref()),
        GroupRecord::ShareGroupTargetAssignmentMember(k, v) => encode_typed(k, v.as_ref()),
        GroupRecord::ShareGroupTargetAssignmentMetadata(k, v) => encode_typed(k, v.as_ref()),
        GroupRecord::ShareGroupStatePartitionMetadata(k, v) => encode_typed(k, v.as_ref()),
        other => Err(Error::Value(format!("not a consumer or share group record: {other:?}"))),
    }
}

/// The key and value (none: a tombstone) of a `__share_group_state`
/// record, as Kafka 4's share coordinator writes it
/// (`ShareCoordinatorRecordHelpers`).
pub fn encode_share_record(record: &ShareRecord) -> Result<(Vec<u8>, Option<Vec<u8>>)> {
    match record {
        ShareRecord::Snapshot(k, v) => encode_typed(k, v.as_ref()),
        ShareRecord::Update(k, v) => encode_typed(k, v.as_ref()),
    }
}

/// A `__consumer_offsets` record, typed for the records logtool reads by
/// field; a value of `None` is a tombstone.
#[derive(Clone, Debug, PartialEq)]
pub enum GroupRecord {
    /// An offset commit (record type 1), with its value's version.
    OffsetCommit(OffsetCommitKey, Option<(i16, OffsetCommitValue)>),
    /// A classic group (type 2).
    GroupMetadata(GroupMetadataKey, Option<GroupMetadataValue>),
    /// A KIP-848 consumer group.
    ConsumerGroupMetadata(ConsumerGroupMetadataKey, Option<ConsumerGroupMetadataValue>),
    /// A KIP-848 member.
    ConsumerGroupMemberMetadata(ConsumerGroupMemberMetadataKey, Option<ConsumerGroupMemberMetadataValue>),
    /// A KIP-848 member's assignment.
    ConsumerGroupCurrentMemberAssignment(
        ConsumerGroupCurrentMemberAssignmentKey,
        Option<ConsumerGroupCurrentMemberAssignmentValue>,
    ),
    /// A KIP-848 member's target assignment.
    ConsumerGroupTargetAssignmentMember(
        ConsumerGroupTargetAssignmentMemberKey,
        Option<ConsumerGroupTargetAssignmentMemberValue>,
    ),
    /// A KIP-848 group's target assignment epoch.
    ConsumerGroupTargetAssignmentMetadata(
        ConsumerGroupTargetAssignmentMetadataKey,
        Option<ConsumerGroupTargetAssignmentMetadataValue>,
    ),
    /// A regular expression's resolved topics (tombstone: none subscribes).
    ConsumerGroupRegularExpression(ConsumerGroupRegularExpressionKey, Option<ConsumerGroupRegularExpressionValue>),
    /// A share group (KIP-932).
    ShareGroupMetadata(ShareGroupMetadataKey, Option<ShareGroupMetadataValue>),
    /// A share group's member.
    ShareGroupMemberMetadata(ShareGroupMemberMetadataKey, Option<ShareGroupMemberMetadataValue>),
    /// A share group member's target assignment.
    ShareGroupTargetAssignmentMember(
        ShareGroupTargetAssignmentMemberKey,
        Option<ShareGroupTargetAssignmentMemberValue>,
    ),
    /// A share group's target assignment epoch.
    ShareGroupTargetAssignmentMetadata(
        ShareGroupTargetAssignmentMetadataKey,
        Option<ShareGroupTargetAssignmentMetadataValue>,
    ),
    /// A share group member's assignment.
    ShareGroupCurrentMemberAssignment(
        ShareGroupCurrentMemberAssignmentKey,
        Option<ShareGroupCurrentMemberAssignmentValue>,
    ),
    /// The partitions whose share-group state is initialized.
    ShareGroupStatePartitionMetadata(
        ShareGroupStatePartitionMetadataKey,
        Option<ShareGroupStatePartitionMetadataValue>,
    ),
    /// A streams group (KIP-1071).
    StreamsGroupMetadata(StreamsGroupMetadataKey, Option<StreamsGroupMetadataValue>),
    /// A streams group's topology.
    StreamsGroupTopology(StreamsGroupTopologyKey, Option<StreamsGroupTopologyValue>),
    /// A streams group's member.
    StreamsGroupMemberMetadata(StreamsGroupMemberMetadataKey, Option<StreamsGroupMemberMetadataValue>),
    /// A streams group's target assignment epoch.
    StreamsGroupTargetAssignmentMetadata(
        StreamsGroupTargetAssignmentMetadataKey,
        Option<StreamsGroupTargetAssignmentMetadataValue>,
    ),
    /// A streams group member's assignment.
    StreamsGroupCurrentMemberAssignment(
        StreamsGroupCurrentMemberAssignmentKey,
        Option<StreamsGroupCurrentMemberAssignmentValue>,
    ),
    /// Any other record type that decodes by its definitions (legacy
    /// offset commits, target assignments of members...).
    Other(i16),
}

/// A `__share_group_state` record (`ShareCoordinatorRecordSerde`); a value
/// of `None` is a tombstone.
#[derive(Clone, Debug, PartialEq)]
pub enum ShareRecord {
    /// A share partition's whole state (type 0).
    Snapshot(ShareSnapshotKey, Option<ShareSnapshotValue>),
    /// A change to it (type 1).
    Update(ShareUpdateKey, Option<ShareUpdateValue>),
}

/// Read a `__share_group_state` record: the key's int16 record type picks
/// the definitions (ShareSnapshot 0, ShareUpdate 1). Fails as the JSON
/// decoder does: no key, an unknown type, a key or value that does not
/// decode.
pub fn decode_share_record(key: Option<&[u8]>, value: Option<&[u8]>) -> Result<ShareRecord> {
    let key = key.ok_or_else(|| Error::Value("no key".into()))?;
    let record_type = Reader::new(key).i16()?;
    // the type's definitions, as the JSON decoder finds them
    let (key_schema, _) =
        share_record(record_type).ok_or_else(|| Error::Value(format!("unknown record type {record_type}")))?;
    let rest = key.get(2..).unwrap_or_default();
    Ok(match key_schema.name.as_str() {
        "ShareSnapshotKey" => {
            let (k, v) = unversioned(typed::<ShareSnapshotKey, ShareSnapshotValue>(rest, 0, value)?);
            ShareRecord::Snapshot(k, v)
        }
        _ => {
            let (k, v) = unversioned(typed::<ShareUpdateKey, ShareUpdateValue>(rest, 0, value)?);
            ShareRecord::Update(k, v)
        }
    })
}

fn typed<K: Message, V: Message>(key: &[u8], version: i16, value: Option<&[u8]>) -> Result<(K, Option<(i16, V)>)> {
    let key = K::decode(version, key)?;
    Ok((key, value.map(decode_message::<V>).transpose()?))
}

fn unversioned<K, V>((key, value): (K, Option<(i16, V)>)) -> (K, Option<V>) {
    (key, value.map(|(_, v)| v))
}

/// Read a `__consumer_offsets` record (`CoordinatorRecordSerde`): the
/// key's int16 record type picks the key and value definitions. Fails as
/// the JSON decoder does: no key, an unknown record type, a key or value
/// that does not decode.
pub fn decode_group_record(key: Option<&[u8]>, value: Option<&[u8]>) -> Result<GroupRecord> {
    let key = key.ok_or_else(|| Error::Value("no key".into()))?;
    let record_type = Reader::new(key).i16()?;
    let (key_schema, value_schema) =
        group_record(record_type).ok_or_else(|| Error::Value(format!("unknown record type {record_type}")))?;
    let v = key_version(key_schema, record_type);
    let key = key.get(2..).unwrap_or_default();
    // the variant named as the definitions are, its key and value typed
    macro_rules! group_typed {
        ($name:ident, $key:ty, $value:ty) => {{
            let (k, value) = unversioned(typed::<$key, $value>(key, v, value)?);
            GroupRecord::$name(k, value)
        }};
    }
    Ok(match key_schema.name.strip_suffix("Key").unwrap_or_default() {
        "OffsetCommit" => {
            let (k, value) = typed::<OffsetCommitKey, OffsetCommitValue>(key, v, value)?;
            GroupRecord::OffsetCommit(k, value)
        }
        "GroupMetadata" => group_typed!(GroupMetadata, GroupMetadataKey, GroupMetadataValue),
        "ConsumerGroupMetadata" => {
            group_typed!(ConsumerGroupMetadata, ConsumerGroupMetadataKey, ConsumerGroupMetadataValue)
        }
        "ConsumerGroupMemberMetadata" => {
            group_typed!(ConsumerGroupMemberMetadata, ConsumerGroupMemberMetadataKey, ConsumerGroupMemberMetadataValue)
        }
        "ConsumerGroupCurrentMemberAssignment" => group_typed!(
            ConsumerGroupCurrentMemberAssignment,
            ConsumerGroupCurrentMemberAssignmentKey,
            ConsumerGroupCurrentMemberAssignmentValue
        ),
        "ConsumerGroupTargetAssignmentMember" => group_typed!(
            ConsumerGroupTargetAssignmentMember,
            ConsumerGroupTargetAssignmentMemberKey,
            ConsumerGroupTargetAssignmentMemberValue
        ),
        "ConsumerGroupTargetAssignmentMetadata" => group_typed!(
            ConsumerGroupTargetAssignmentMetadata,
            ConsumerGroupTargetAssignmentMetadataKey,
            ConsumerGroupTargetAssignmentMetadataValue
        ),
        "ConsumerGroupRegularExpression" => group_typed!(
            ConsumerGroupRegularExpression,
            ConsumerGroupRegularExpressionKey,
            ConsumerGroupRegularExpressionValue
        ),
        "ShareGroupMetadata" => group_typed!(ShareGroupMetadata, ShareGroupMetadataKey, ShareGroupMetadataValue),
        "ShareGroupMemberMetadata" => {
            group_typed!(ShareGroupMemberMetadata, ShareGroupMemberMetadataKey, ShareGroupMemberMetadataValue)
        }
        "ShareGroupTargetAssignmentMember" => group_typed!(
            ShareGroupTargetAssignmentMember,
            ShareGroupTargetAssignmentMemberKey,
            ShareGroupTargetAssignmentMemberValue
        ),
        "ShareGroupTargetAssignmentMetadata" => group_typed!(
            ShareGroupTargetAssignmentMetadata,
            ShareGroupTargetAssignmentMetadataKey,
            ShareGroupTargetAssignmentMetadataValue
        ),
        "ShareGroupCurrentMemberAssignment" => group_typed!(
            ShareGroupCurrentMemberAssignment,
            ShareGroupCurrentMemberAssignmentKey,
            ShareGroupCurrentMemberAssignmentValue
        ),
        "ShareGroupStatePartitionMetadata" => group_typed!(
            ShareGroupStatePartitionMetadata,
            ShareGroupStatePartitionMetadataKey,
            ShareGroupStatePartitionMetadataValue
        ),
        "StreamsGroupMetadata" => {
            group_typed!(StreamsGroupMetadata, StreamsGroupMetadataKey, StreamsGroupMetadataValue)
        }
        "StreamsGroupTopology" => {
            group_typed!(StreamsGroupTopology, StreamsGroupTopologyKey, StreamsGroupTopologyValue)
        }
        "StreamsGroupMemberMetadata" => {
            group_typed!(StreamsGroupMemberMetadata, StreamsGroupMemberMetadataKey, StreamsGroupMemberMetadataValue)
        }
        "StreamsGroupTargetAssignmentMetadata" => group_typed!(
            StreamsGroupTargetAssignmentMetadata,
            StreamsGroupTargetAssignmentMetadataKey,
            StreamsGroupTargetAssignmentMetadataValue
        ),
        "StreamsGroupCurrentMemberAssignment" => group_typed!(
            StreamsGroupCurrentMemberAssignment,
            StreamsGroupCurrentMemberAssignmentKey,
            StreamsGroupCurrentMemberAssignmentValue
        ),
        _ => {
            codec::read(&mut Reader::new(key), key_schema, v)?;
            if let Some(value) = value {
                decode_versioned(value, &value_schema.name)?;
            }
            GroupRecord::Other(record_type)
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A value of a version above Kafka's definitions here (a newer Kafka
    /// wrote it) is not decoded, and the error says why.
    #[test]
    fn a_newer_version_says_so() {
        let bytes = encode_versioned(
            "OffsetCommitValue",
            1,
            &serde_json::json!({
                "offset": 1, "metadata": "", "commitTimestamp": 0, "expireTimestamp": -1
            }),
        )
        .unwrap();
        let mut newer = bytes.clone();
        newer[..2].copy_from_slice(&99i16.to_be_bytes());
        let e = decode_versioned(&newer, "OffsetCommitValue").unwrap_err().to_string();
        assert!(e.contains("version 99 is newer than logtool knows"), "{e}");
    }

    #[test]
    fn group_record_types_as_the_coordinator_numbers_them() {
        let name = |t| group_record(t).map(|(k, v)| (k.name.as_str(), v.name.as_str()));
        assert_eq!(name(0), Some(("LegacyOffsetCommitKey", "LegacyOffsetCommitValue")));
        assert_eq!(name(1), Some(("OffsetCommitKey", "OffsetCommitValue")));
        assert_eq!(name(2), Some(("GroupMetadataKey", "GroupMetadataValue")));
        assert_eq!(name(3), Some(("ConsumerGroupMetadataKey", "ConsumerGroupMetadataValue")));
        assert_eq!(
            name(8),
            Some(("ConsumerGroupCurrentMemberAssignmentKey", "ConsumerGroupCurrentMemberAssignmentValue"))
        );
        assert_eq!(name(-1), None);
        assert_eq!(name(999), None);
    }

    #[test]
    fn tagged_fields_without_versions_exist_in_their_tagged_versions() {
        use crate::records::TransactionLogValue;
        // TransactionLogValue v1 (transaction version 2): PreviousProducerId,
        // NextProducerId... have no "versions", only taggedVersions 1+, and a
        // numeric default of -1 (Kafka's FieldSpec)
        let v = TransactionLogValue {
            producer_id: 7,
            previous_producer_id: 6,
            client_transaction_version: 2,
            transaction_partitions: Some(Vec::new()),
            ..Default::default()
        };
        assert_eq!((v.next_producer_id, v.next_producer_epoch), (-1, -1));
        let bytes = encode_message(1, &v).unwrap();
        assert_eq!(decode_message::<TransactionLogValue>(&bytes).unwrap(), (1, v));
        let (_, json) = decode_versioned(&bytes, "TransactionLogValue").unwrap();
        assert_eq!(
            (json["previousProducerId"].as_i64(), json["clientTransactionVersion"].as_i64()),
            (Some(6), Some(2))
        );
        // a tagged field at its default is not written, so not read back
        assert!(json.get("nextProducerId").is_none());
    }

    #[test]
    fn group_records_decode_typed() {
        use crate::records::{OffsetCommitKey, OffsetCommitValue};
        let key = OffsetCommitKey { group: "g".into(), topic: "t".into(), partition: 3 };
        let value = OffsetCommitValue { offset: 42, commit_timestamp: 1000, ..Default::default() };
        let k = encode_group_key_message(1, &key).unwrap();
        let v = encode_message(3, &value).unwrap();
        assert_eq!(
            decode_group_record(Some(&k), Some(&v)).unwrap(),
            GroupRecord::OffsetCommit(key.clone(), Some((3, value)))
        );
        assert_eq!(decode_group_record(Some(&k), None).unwrap(), GroupRecord::OffsetCommit(key, None));
        assert!(decode_group_record(None, Some(&v)).is_err());
        assert!(decode_group_record(Some(&[0, 99]), Some(&v)).is_err());
        assert!(decode_group_record(Some(&k), Some(&[0, 3, 1])).is_err());
    }
}
