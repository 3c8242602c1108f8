//! KRaft metadata records (`__cluster_metadata`, `.checkpoint` snapshots,
//! `bootstrap.checkpoint`): the value of each record is
//! `MetadataRecordSerde`'s frame: unsigned varint frame version (1), unsigned
//! varint apiKey (`MetadataRecordType`), unsigned varint record version, then
//! the record.

use serde_json::Value;

use crate::codec::{self, Reader};
use crate::error::{Error, Result};
use crate::{Message, schema};

/// `AbstractApiMessageSerde.DEFAULT_FRAME_VERSION`.
pub const FRAME_VERSION: u32 = 1;

/// A decoded metadata record.
#[derive(Clone, Debug, PartialEq)]
pub struct MetadataRecord {
    /// `MetadataRecordType` api key.
    pub api_key: i16,
    /// The record's version.
    pub version: i16,
    /// Its message name (`TopicRecord`, ...).
    pub name: String,
    /// Its fields, as Kafka's JSON converter writes them.
    pub data: Value,
}

impl MetadataRecord {
    /// The type name as `DumpLogSegments` prints it (`TOPIC_RECORD`).
    pub fn type_name(&self) -> String {
        upper_snake(&self.name)
    }

    /// The typed record, when it is an `M` (`None` for another record).
    pub fn parse<M: Message>(&self) -> Option<Result<M>> {
        (self.name == M::NAME).then(|| M::from_value(self.data.clone()))
    }

    /// `{"type": ..., "version": ..., "data": ...}`, as DumpLogSegments prints it.
    pub fn to_json(&self) -> Value {
        serde_json::json!({ "type": self.type_name(), "version": self.version, "data": self.data })
    }
}

/// `TopicRecord` → `TOPIC_RECORD` (Kafka's `MessageGenerator.toSnakeCase`).
pub fn upper_snake(name: &str) -> String {
    let mut out = String::new();
    let mut prev_lower = false;
    for c in name.chars() {
        if c.is_uppercase() && prev_lower {
            out.push('_');
        }
        prev_lower = c.is_lowercase() || c.is_ascii_digit();
        out.extend(c.to_uppercase());
    }
    out
}

/// Decode a metadata record value.
pub fn decode(value: &[u8]) -> Result<MetadataRecord> {
    decode_framed(value, schema::metadata_record, "metadata")
}

/// Decode a value framed as `AbstractApiMessageSerde` frames it, the api
/// key looked up with `lookup` (`what` names the family in errors).
pub(crate) fn decode_framed(
    value: &[u8],
    lookup: fn(i16) -> Option<&'static schema::MessageSchema>,
    what: &str,
) -> Result<MetadataRecord> {
    let mut r = Reader::new(value);
    let frame = r.uvarint()?;
    if frame != FRAME_VERSION {
        return Err(Error::Invalid { at: 0, what: format!("frame version {frame}") });
    }
    let key_at = r.position();
    let api_key = i16::try_from(r.uvarint()?).map_err(|_| Error::Invalid { at: key_at, what: "api key".into() })?;
    let ver_at = r.position();
    let version = i16::try_from(r.uvarint()?).map_err(|_| Error::Invalid { at: ver_at, what: "version".into() })?;
    let schema = lookup(api_key)
        .ok_or_else(|| Error::Invalid { at: key_at, what: format!("unknown {what} record type {api_key}") })?;
    let data = codec::read(&mut r, schema, version)?;
    if r.remaining() > 0 {
        return Err(Error::Invalid { at: r.position(), what: format!("{} byte(s) after the record", r.remaining()) });
    }
    Ok(MetadataRecord { api_key, version, name: schema.name.clone(), data })
}

/// Encode the metadata record `name` at `version` (its value bytes).
pub fn encode(name: &str, version: i16, data: &Value) -> Result<Vec<u8>> {
    let schema = schema::by_name(name).ok_or_else(|| Error::Schema(format!("no message {name}")))?;
    let key = schema.api_key.ok_or_else(|| Error::Schema(format!("{name} is not a metadata record")))?;
    let mut out = Vec::new();
    codec::put_uvarint(&mut out, FRAME_VERSION);
    codec::put_uvarint(&mut out, u32::try_from(key).map_err(|_| Error::Schema("api key".into()))?);
    codec::put_uvarint(&mut out, u32::try_from(version).map_err(|_| Error::Value("version".into()))?);
    codec::write(&mut out, schema, version, data)?;
    Ok(out)
}

/// A typed metadata record: its name, version and JSON value, as a batch
/// of the metadata log is built from ([`encode`] each).
pub fn entry<M: Message>(version: i16, record: &M) -> (&'static str, i16, Value) {
    (M::NAME, version, record.to_value())
}

/// Encode a typed metadata record at `version` (its value bytes).
pub fn encode_message<M: Message>(version: i16, record: &M) -> Result<Vec<u8>> {
    encode(M::NAME, version, &record.to_value())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_as_kafka_prints_them() {
        assert_eq!(upper_snake("TopicRecord"), "TOPIC_RECORD");
        assert_eq!(upper_snake("RegisterBrokerRecord"), "REGISTER_BROKER_RECORD");
        assert_eq!(upper_snake("ZkMigrationStateRecord"), "ZK_MIGRATION_STATE_RECORD");
    }

    #[test]
    fn round_trip() {
        let data = serde_json::json!({"partitionId": 3, "topicId": "_iN_5CkATpWymOxyNMOLxA", "replicas": [1], "isr": [1],
            "removingReplicas": [], "addingReplicas": [], "leader": 1, "leaderEpoch": 0, "partitionEpoch": 0,
            "directories": ["8E8H0kAURQWgcR_6cU-7pw"]});
        let bytes = encode("PartitionRecord", 1, &data).unwrap();
        let r = decode(&bytes).unwrap();
        assert_eq!((r.name.as_str(), r.version), ("PartitionRecord", 1));
        assert_eq!(r.data, data);
        let typed: crate::records::PartitionRecord = r.parse().unwrap().unwrap();
        assert_eq!((typed.partition_id, typed.leader, typed.directories.len()), (3, 1, 1));
        assert_eq!(encode_message(1, &typed).unwrap(), bytes);
        assert!(r.parse::<crate::records::TopicRecord>().is_none());
    }

    #[test]
    fn a_typed_record_gets_kafkas_defaults() {
        use crate::records::PartitionChangeRecord;
        // only what changed: the rest are Kafka's defaults (isr null, leader -2...)
        let change = PartitionChangeRecord { partition_id: 1, leader: -1, ..Default::default() };
        let json = serde_json::json!({"partitionId": 1, "topicId": crate::schema::ZERO_UUID, "leader": -1});
        assert_eq!(encode_message(0, &change).unwrap(), encode("PartitionChangeRecord", 0, &json).unwrap());
        assert_eq!(PartitionChangeRecord::default().leader, -2);
        assert_eq!(PartitionChangeRecord::default().isr, None);
    }
}
