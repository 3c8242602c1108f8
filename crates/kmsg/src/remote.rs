//! Tiered storage's remote log metadata (KIP-405): the records
//! `TopicBasedRemoteLogMetadataManager` writes to `__remote_log_metadata`.
//!
//! A record has no key; its value is `RemoteLogMetadataSerde`'s frame, laid
//! out as a KRaft metadata record's (`AbstractApiMessageSerde`: unsigned
//! varint frame version 1, apiKey, version, then the record), over
//! kafka-storage's own definitions, whose api keys are their own
//! ([`crate::schema::REMOTE_LOG_METADATA_RECORDS`]):
//!
//! | key | record | what |
//! |---|---|---|
//! | 0 | `RemoteLogSegmentMetadataRecord` | a segment's copy started: its id, offsets, epochs, size, times |
//! | 1 | `RemoteLogSegmentMetadataUpdateRecord` | a segment's state moved on |
//! | 2 | `RemotePartitionDeleteMetadataRecord` | a partition's remote data is being deleted |
//! | 3 | `RemoteLogSegmentMetadataSnapshotRecord` | a segment in the consumer manager's snapshot files |
//!
//! The states are Kafka's `RemoteLogSegmentState` and
//! `RemotePartitionDeleteState` ids, named by [`segment_state_name`] and
//! [`partition_delete_state_name`].

use crate::error::Result;
use crate::metadata::{MetadataRecord, decode_framed};
use crate::schema;

/// The topic (`TopicBasedRemoteLogMetadataManagerConfig.REMOTE_LOG_METADATA_TOPIC_NAME`).
pub const REMOTE_LOG_METADATA_TOPIC: &str = "__remote_log_metadata";

/// Decode a `__remote_log_metadata` record value.
pub fn decode(value: &[u8]) -> Result<MetadataRecord> {
    decode_framed(value, schema::remote_log_metadata_record, "remote log metadata")
}

/// `RemoteLogSegmentState.forId`: the name of a segment's state.
pub fn segment_state_name(id: i64) -> Option<&'static str> {
    Some(match id {
        0 => "COPY_SEGMENT_STARTED",
        1 => "COPY_SEGMENT_FINISHED",
        2 => "DELETE_SEGMENT_STARTED",
        3 => "DELETE_SEGMENT_FINISHED",
        _ => return None,
    })
}

/// `RemotePartitionDeleteState.forId`: the name of a partition deletion's state.
pub fn partition_delete_state_name(id: i64) -> Option<&'static str> {
    Some(match id {
        0 => "DELETE_PARTITION_MARKED",
        1 => "DELETE_PARTITION_STARTED",
        2 => "DELETE_PARTITION_FINISHED",
        _ => return None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_segment_record_round_trips_and_keys_are_not_kraft_ones() {
        let data = serde_json::json!({
            "remoteLogSegmentId": {"topicIdPartition": {"name": "t", "id": "JlroLeYnSdSuDhajwVZLbA", "partition": 0},
                                   "id": "6SbtWcYtRHa9yQ0aaNYYMg"},
            "startOffset": 0, "endOffset": 98, "brokerId": 1, "maxTimestampMs": 5, "eventTimestampMs": 6,
            "segmentLeaderEpochs": [{"leaderEpoch": 0, "offset": 0}], "segmentSizeInBytes": 7901,
            "customMetadata": null, "remoteLogSegmentState": 0});
        let bytes = crate::metadata::encode("RemoteLogSegmentMetadataRecord", 0, &data).unwrap();
        let r = decode(&bytes).unwrap();
        assert_eq!((r.name.as_str(), r.api_key), ("RemoteLogSegmentMetadataRecord", 0));
        assert_eq!(r.data, data);
        // the same bytes are no KRaft record of key 0 (RegisterBrokerRecord)
        assert_ne!(crate::metadata::decode(&bytes).map(|m| m.name).ok().as_deref(), Some(r.name.as_str()));
        assert!(decode(&[1, 9, 0]).is_err());
        assert_eq!(segment_state_name(3), Some("DELETE_SEGMENT_FINISHED"));
        assert_eq!(partition_delete_state_name(3), None);
    }
}
