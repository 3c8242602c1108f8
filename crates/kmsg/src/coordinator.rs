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
/// classic group metadata, 3.. the KIP-848 consumer and share group records;
/// `CoordinatorRecordSerde.apiMessageKeyFor`): the `*Key` definition whose
/// versions hold the type, and its `*Value`.
pub fn group_record(record_type: i16) -> Option<(&'static schema::MessageSchema, &'static schema::MessageSchema)> {
    const GROUP_RECORDS: [&str; 4] = ["OffsetCommit", "GroupMetadata", "ConsumerGroup", "ShareGroup"];
    schema::names().into_iter().find_map(|name| {
        let stem = name.strip_suffix("Key")?;
        if !GROUP_RECORDS.iter().any(|p| stem.starts_with(p)) {
            return None;
        }
        let key = schema::by_name(name)?;
        if !key.valid.contains(record_type) {
            return None;
        }
        Some((key, schema::by_name(&format!("{stem}Value"))?))
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn group_record_types_as_the_coordinator_numbers_them() {
        let name = |t| group_record(t).map(|(k, v)| (k.name.as_str(), v.name.as_str()));
        assert_eq!(name(0), Some(("OffsetCommitKey", "OffsetCommitValue")));
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
