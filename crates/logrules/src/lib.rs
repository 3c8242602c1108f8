//! Kafka's rules: what a Kafka broker (3.9, and each 4.x release the
//! [`release`] table knows) has on disk, or does, given a log dir's files
//! as `logfmt` reads them. One place every command asks (`verify` compares what
//! is on disk with what these say; `recover`, `reindex`, `truncate*`,
//! `retain`, `offset-for-time` and `repl-check` act on them); no command
//! re-derives a rule.
//!
//! | rule | module | Kafka |
//! |---|---|---|
//! | a batch's header fits its position | `logfmt::sanity` (a reader needs it too) | invariants of `LogValidator`, `LogSegment.ensureOffsetInRange`, `LeaderEpochFileCache` |
//! | producer state, completed transactions, `.txnindex`, the LSO | [`producer`] | `ProducerStateManager`, `ProducerAppendInfo` |
//! | the leader-epoch cache, its truncation from the start and the end | [`epochs`] | `LeaderEpochFileCache` |
//! | log start, log end, high watermark on load, what truncation does | [`log`] | `UnifiedLog`, `LogLoader` |
//! | which segments are recovered, recovering one, index spacing | [`recovery`] | `LogLoader.recoverLog`, `LogSegment.recover`, `LogSegment.append` |
//! | what the group coordinator loads: committed offsets, groups, members | [`groups`] | `GroupMetadataManager.loadGroupsAndOffsets`, `GroupCoordinatorShard.replay` |
//! | the releases logtool knows: `metadata.version` levels, default features, topic configs, per release | [`release`] | `MetadataVersion`, `Feature`, `LogConfig.configKeys` of each release's jars |
//! | which topic configs and names a controller takes, with its messages | [`config`] | `LogConfig.validate`, `ConfigDef`, `Topic.validate`, `ReplicationControlManager.validateNewTopicNames` |
//! | how IncrementalAlterConfigs changes a resource's configs (set, delete, append, subtract) | [`config`] | `ConfigurationControlManager.incrementalAlterConfigResource` |
//! | which mode a dir's node ran in (ZooKeeper, the migration to KRaft, KRaft; a controller's dir) and what a release's next start makes of it | [`mode`] | `KafkaRaftServer`, `KafkaServer`, `ZkMigrationState`, `MetaPropertiesEnsemble` |
//! | what a start refuses, which partition dirs it sets aside as stray, the high watermark once the broker leads | [`start`] | `LogManager.isStrayKraftReplica`, `ReplicationControlManager.replay`, `Partition.makeLeader` |
//! | where a follower truncates to after a failover (diverging epochs, KIP-279 rounds, the high watermark without epochs) | [`replication`] | `AbstractFetcherThread.getOffsetTruncationState`, `LeaderEpochFileCache.endOffsetFor`, `Partition.makeLeader` |
//! | what retention deletes (time, size, a new log start) | [`retention`] | `UnifiedLog.deleteOldSegments` |
//! | what a cleaning pass may clean and keeps (the cleanable range, segment groups, aborted transactions and markers, records and tombstones, delete horizons) | [`cleaner`] | `LogCleanerManager.cleanableOffsets`, `Cleaner.groupSegmentsBySize`, `CleanedTransactionMetadata`, `Cleaner.cleanInto`/`shouldRetainRecord`, `MemoryRecords.filterTo` |
//! | what the transaction coordinator loads: each transactional id's state | [`transactions`] | `TransactionStateManager.loadTransactionMetadata` |
//! | one pass of the log cleaner over a partition: the offset map, the cleaned segments and their indexes | [`compact`] | `Cleaner.doClean` (deciding through [`cleaner`]) |
//! | what ListOffsets answers from a partition's files (earliest, latest, a time, max-timestamp, tiered) | [`offsets`] | `UnifiedLog.fetchOffsetByTimestamp`, `LogSegment.findOffsetByTimestamp`, `ReplicaManager.fetchOffset` |
//! | the internal topics' records, decoded as Kafka's tools print them | [`internal`] | `CoordinatorRecordSerde`, `TransactionLog`, `ShareCoordinatorRecordSerde`, `MetadataRecordSerde`, `RemoteLogMetadataSerde` |
//! | tiered storage: a partition's remote segments, the highest offset in remote storage, where a time's answer lies | [`remote`] | `RemoteLogMetadataCache`, `RemoteLogManager.findHighestRemoteOffset`/`findOffsetByTimestamp`, `RemoteLogMetadataTopicPartitioner` |
//!
//! Layering: file formats → [`logfmt::partition`] → these rules → commands.
//! Nothing here writes; planners turn what the rules say into changes.

pub mod cleaner;
pub mod compact;
pub mod config;
pub mod epochs;
pub mod groups;
pub mod internal;
pub mod log;
pub mod mode;
pub mod offsets;
pub mod producer;
pub mod recovery;
pub mod release;
pub mod remote;
pub mod replication;
pub mod retention;
pub mod start;
pub mod transactions;

/// The Kafka release whose rules to apply (`--kafka-version`).
pub use config::Version as KafkaVersion;
