//! Kafka's coordinators as `logtool broker` runs them, with no I/O: each
//! takes a request's fields and the state loaded so far, and returns the
//! records to write and the answer; the broker writes the records through
//! `logwrite`, and the loaders of `logrules::groups` and
//! `logrules::transactions` replay them (the same replay `logtool groups`,
//! `logtool txns` and a restart use) before it answers.
//!
//! | coordinator | module | Kafka |
//! |---|---|---|
//! | classic groups: joins, rebalances, generations, sync, committed offsets | [`classic`] | `GroupCoordinator`, `GroupMetadata` (3.9) |
//! | KIP-848 consumer groups: heartbeats, epochs, assignors, reconciliation, regular expressions | [`consumer_group`] | `GroupMetadataManager.consumerGroupHeartbeat`, `CurrentAssignmentBuilder` (4.3.1) |
//! | KIP-932 share groups: heartbeats, the `simple` assignor, share-state initialization | [`share_group`] | `GroupMetadataManager.shareGroupHeartbeat` (4.3.1) |
//! | a share partition's records: acquisition, locks, delivery counts, acknowledgements | [`share_partition`] | `SharePartition` (4.3.1) |
//! | dynamic group configs: validation, description, the limits they set | [`group_config`] | `GroupConfig`, `ConfigHelper` (4.3.1) |
//! | a topic's and the broker's configs described, IncrementalAlterConfigs' changes | [`config`] | `ConfigHelper`, `ConfigurationControlManager` (3.9) |
//! | the transaction coordinator's state and records | [`transaction`] | `TransactionMetadata`, `TransactionLog` (3.9) |
//!
//! Depends on `logfmt`, `logrules` and `kmsg`; never on tokio, `logwrite`
//! or `kafka-protocol` (the broker maps its wire types to and from these).
#![cfg_attr(test, allow(clippy::arithmetic_side_effects))]

pub mod classic;
pub mod config;
pub mod consumer_group;
pub mod group_config;
pub mod share_group;
pub mod share_partition;
pub mod transaction;

/// `now + d`: a deadline from a client's timeout, a day from now should
/// that overflow (never a panic).
pub fn after(now: std::time::Instant, d: std::time::Duration) -> std::time::Instant {
    now.checked_add(d).or_else(|| now.checked_add(std::time::Duration::from_secs(86_400))).unwrap_or(now)
}
