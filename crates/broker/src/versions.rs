//! The API versions the broker advertises: for each API it implements, the
//! range it reads and answers. The maximum is what a Kafka 3.9.1 broker
//! advertises (`ApiVersionsResponse` of a KRaft broker, from its
//! `common/message/*Request.json` `validVersions`); the minimum is Kafka
//! 3.9.1's too, raised to the lowest version the `kafka-protocol` codec reads
//! where that is higher: the versions Kafka 4.0 removed (KIP-896: Produce
//! v0-v2, Fetch v0-v3, ListOffsets v0, OffsetCommit v0-v1, OffsetFetch v0,
//! CreateTopics v0-v1, DeleteTopics v0, DescribeConfigs v0), which Kafka 4.x
//! no longer advertises either and no client since Kafka 2.1 needs. What is
//! advertised is answered: `tests/versions.rs` sends every advertised
//! (API, version) pair.

use kafka_protocol::messages::ApiKey;

/// One implemented API.
#[derive(Clone, Copy, Debug)]
pub struct Supported {
    /// The API.
    pub key: ApiKey,
    /// The lowest version advertised and read: Kafka 3.9.1's minimum, or
    /// the codec's (Kafka 4.0's) where higher.
    pub min: i16,
    /// Kafka 3.9.1's advertised maximum.
    pub max: i16,
    /// Kafka 3.9.1's advertised minimum (below `min`: refused, the
    /// connection closed, as Kafka 4.x does).
    pub kafka_min: i16,
    /// Its request's message definition (`kmsg`).
    pub schema: &'static str,
}

const fn api(key: ApiKey, kafka_min: i16, max: i16, codec_min: i16, schema: &'static str) -> Supported {
    let min = if codec_min > kafka_min { codec_min } else { kafka_min };
    Supported { key, min, max, kafka_min, schema }
}

/// Every API the broker answers, in api-key order.
pub const SUPPORTED: &[Supported] = &[
    api(ApiKey::Produce, 0, 11, 3, "ProduceRequest"),
    api(ApiKey::Fetch, 0, 17, 4, "FetchRequest"),
    api(ApiKey::ListOffsets, 0, 9, 1, "ListOffsetsRequest"),
    api(ApiKey::Metadata, 0, 12, 0, "MetadataRequest"),
    api(ApiKey::OffsetCommit, 0, 9, 2, "OffsetCommitRequest"),
    api(ApiKey::OffsetFetch, 0, 9, 1, "OffsetFetchRequest"),
    api(ApiKey::FindCoordinator, 0, 6, 0, "FindCoordinatorRequest"),
    api(ApiKey::JoinGroup, 0, 9, 0, "JoinGroupRequest"),
    api(ApiKey::Heartbeat, 0, 4, 0, "HeartbeatRequest"),
    api(ApiKey::LeaveGroup, 0, 5, 0, "LeaveGroupRequest"),
    api(ApiKey::SyncGroup, 0, 5, 0, "SyncGroupRequest"),
    api(ApiKey::DescribeGroups, 0, 5, 0, "DescribeGroupsRequest"),
    api(ApiKey::ListGroups, 0, 5, 0, "ListGroupsRequest"),
    api(ApiKey::ApiVersions, 0, 4, 0, "ApiVersionsRequest"),
    api(ApiKey::CreateTopics, 0, 7, 2, "CreateTopicsRequest"),
    api(ApiKey::DeleteTopics, 0, 6, 1, "DeleteTopicsRequest"),
    api(ApiKey::DeleteRecords, 0, 2, 0, "DeleteRecordsRequest"),
    api(ApiKey::InitProducerId, 0, 5, 0, "InitProducerIdRequest"),
    api(ApiKey::AddPartitionsToTxn, 0, 5, 0, "AddPartitionsToTxnRequest"),
    api(ApiKey::AddOffsetsToTxn, 0, 4, 0, "AddOffsetsToTxnRequest"),
    api(ApiKey::EndTxn, 0, 4, 0, "EndTxnRequest"),
    api(ApiKey::TxnOffsetCommit, 0, 4, 0, "TxnOffsetCommitRequest"),
    api(ApiKey::DescribeConfigs, 0, 4, 1, "DescribeConfigsRequest"),
    api(ApiKey::CreatePartitions, 0, 3, 0, "CreatePartitionsRequest"),
    api(ApiKey::IncrementalAlterConfigs, 0, 1, 0, "IncrementalAlterConfigsRequest"),
    api(ApiKey::DescribeTransactions, 0, 0, 0, "DescribeTransactionsRequest"),
    api(ApiKey::ListTransactions, 0, 1, 0, "ListTransactionsRequest"),
    // (KIP-848: what Kafka 3.9.1 advertises with the consumer protocol
    // enabled, `group.coordinator.rebalance.protocols=classic,consumer`;
    // Kafka 4.x's v1 adds regular-expression subscriptions: `KAFKA4_MAX`)
    api(ApiKey::ConsumerGroupHeartbeat, 0, 0, 0, "ConsumerGroupHeartbeatRequest"),
    api(ApiKey::ConsumerGroupDescribe, 0, 0, 0, "ConsumerGroupDescribeRequest"),
];

/// The versions a Kafka 4.3.1 cluster with transaction version 2 adds
/// (`--kafka-version 4.3`): Produce v12 and TxnOffsetCommit v5 (the client
/// adds no partition itself), EndTxn v5 (the answer names the bumped
/// epoch), ConsumerGroupHeartbeat v1 (regular-expression subscriptions).
/// Produce v13 (topic ids) is not read.
pub const KAFKA4_MAX: &[(ApiKey, i16)] =
    &[(ApiKey::Produce, 12), (ApiKey::EndTxn, 5), (ApiKey::TxnOffsetCommit, 5), (ApiKey::ConsumerGroupHeartbeat, 1)];

/// The APIs only a Kafka 4.3 cluster advertises (`--kafka-version 4.3`,
/// `share.version` 1 finalized): the KIP-932 share group APIs, at Kafka
/// 4.3.1's versions but ShareFetch and ShareAcknowledge v2 (KIP-1222's
/// record-limit acquisition and lock renewal; the client uses v1 then).
/// "Kafka 3.9.1" here is Kafka 4.3.1's advertised range.
pub const KAFKA4_ONLY: &[Supported] = &[
    api(ApiKey::ShareGroupHeartbeat, 1, 1, 1, "ShareGroupHeartbeatRequest"),
    api(ApiKey::ShareGroupDescribe, 1, 1, 1, "ShareGroupDescribeRequest"),
    api(ApiKey::ShareFetch, 1, 2, 1, "ShareFetchRequest"),
    api(ApiKey::ShareAcknowledge, 1, 2, 1, "ShareAcknowledgeRequest"),
    api(ApiKey::DescribeShareGroupOffsets, 0, 1, 0, "DescribeShareGroupOffsetsRequest"),
];

/// The versions of [`KAFKA4_ONLY`] logtool broker reads (below Kafka's
/// maximum where the codec stops).
const KAFKA4_ONLY_MAX: &[(ApiKey, i16)] = &[(ApiKey::ShareFetch, 1), (ApiKey::ShareAcknowledge, 1)];

/// Every API a cluster of `kafka4` advertises, in api-key order.
pub fn all(kafka4: bool) -> impl Iterator<Item = Supported> {
    let mut v: Vec<Supported> = SUPPORTED.iter().chain(if kafka4 { KAFKA4_ONLY } else { &[] }).copied().collect();
    v.sort_by_key(|s| s.key as i16);
    v.into_iter().filter_map(move |s| supported(s.key, kafka4))
}

/// The entry of `key`, if the broker implements it, as a cluster of
/// `kafka4` (a Kafka 4.x one) advertises it.
pub fn supported(key: ApiKey, kafka4: bool) -> Option<Supported> {
    if kafka4 && let Some(s) = KAFKA4_ONLY.iter().find(|s| s.key == key) {
        let mut s = *s;
        if let Some((_, max)) = KAFKA4_ONLY_MAX.iter().find(|(k, _)| *k == key) {
            s.max = *max;
        }
        return Some(s);
    }
    let mut s = *SUPPORTED.iter().find(|s| s.key == key)?;
    if kafka4 && let Some((_, max)) = KAFKA4_MAX.iter().find(|(k, _)| *k == key) {
        s.max = *max;
    }
    Some(s)
}
