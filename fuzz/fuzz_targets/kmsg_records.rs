//! Records of the internal topics decoded by Kafka's own definitions: KRaft
//! metadata records (`__cluster_metadata`), the group coordinator's and the
//! transaction coordinator's keys and values.
#![no_main]
use libfuzzer_sys::fuzz_target;

const CONSUMER_OFFSETS: &[&str] = &[
    "OffsetCommitKey",
    "OffsetCommitValue",
    "GroupMetadataKey",
    "GroupMetadataValue",
    "ConsumerGroupMetadataValue",
    "ConsumerGroupMemberMetadataValue",
    "ConsumerGroupTargetAssignmentMemberValue",
    "ShareGroupMetadataValue",
    "TransactionLogKey",
    "TransactionLogValue",
];

fuzz_target!(|data: &[u8]| {
    let _ = kmsg::metadata::decode(data);
    if let Some((which, rest)) = data.split_first() {
        let name = CONSUMER_OFFSETS[usize::from(*which) % CONSUMER_OFFSETS.len()];
        let _ = kmsg::coordinator::decode_versioned(rest, name);
    }
});
