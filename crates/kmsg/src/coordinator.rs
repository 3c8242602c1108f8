//! Coordinator records (`__consumer_offsets`, `__transaction_state`): the key
//! and the value of each record start with an int16 version
//! (`CoordinatorRecordSerde`, `TransactionLog`), then the message.

use serde_json::Value;

use crate::codec::{self, Reader};
use crate::error::{Error, Result};
use crate::schema;

/// Read an int16 version, then the message `name` at it.
pub fn decode_versioned(bytes: &[u8], name: &str) -> Result<(i16, Value)> {
    let mut r = Reader::new(bytes);
    let version = r.i16()?;
    let schema = schema::by_name(name).ok_or_else(|| Error::Schema(format!("no message {name}")))?;
    let v = codec::read(&mut r, schema, version)?;
    Ok((version, v))
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

#[cfg(test)]
mod tests {
    use super::*;

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
}
