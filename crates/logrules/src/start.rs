//! What a Kafka broker does when it starts on a log dir, per Kafka version:
//! what it refuses outright, which partition dirs it sets aside as stray,
//! and each partition's high watermark once it leads again. `verify`
//! (findings and the "on start" plan) and `offset-for-time` ask these; the
//! segments a start recovers are [`super::recovery::first_to_recover`]'s.
//!
//! | rule | Kafka (3.9.1 source; 4.3.1 checked by its jars and by starting it) |
//! |---|---|
//! | the `metadata.version` levels a release loads | `MetadataVersion.fromFeatureLevel`, `MetadataVersion.MINIMUM_VERSION` (4.x) |
//! | topic configs a release refuses when it loads a log | `LogManager` -> `new LogConfig` (`ConfigDef.parse`): [`config::check_at_start`] |
//! | two TopicRecords for one name | `ReplicationControlManager.replay(TopicRecord)` |
//! | a `.txnindex` entry of a version the release refuses | `TransactionIndex` (`KafkaException`): the broker halts ([`txn_index_version_refusal`]) |
//! | a checkpoint, `leader-epoch-checkpoint` or `partition.metadata` that does not parse | `CheckpointFileWithFailureHandler.read`, `PartitionMetadataFile.read`: the log dir goes offline ([`unreadable_file_refusal`]) |
//! | no `meta.properties` | `MetaPropertiesEnsemble` ([`meta_properties_missing_refusal`]) |
//! | `meta.properties` without the `directory.id` the voter set or the node's registration names | `MetaPropertiesEnsemble.Copier` writes a new one; `KafkaRaftClient` (not a voter) ([`directory_id_on_start`]) |
//! | `meta.properties` of another node id than the one that registered the dir | `MetaPropertiesEnsemble.verify`: "Stored node id ... doesn't match" ([`node_id_refusal`]) |
//! | a log dir checkpoint file missing | `CheckpointFile` creates it empty; its partitions start as if it named none ([`missing_checkpoint`]) |
//! | a replica in two of a broker's log dirs | `LogManager.loadLog`: "Duplicate log directories" ([`duplicate_replicas`]) |
//! | a partition dir set aside as stray | `LogManager.isStrayKraftReplica` (3.9), `LogManager.isStrayReplica` (4.x), called by `BrokerMetadataPublisher` |
//! | the high watermark once the broker leads | `Partition.makeLeader` -> `maybeIncrementLeaderHW` |
//! | markers the transaction coordinator writes after a start | `TransactionStateManager.loadTransactionsForTxnTopicPartition`, `TransactionCoordinator.abortTimedOutTransactions` |
//!
//! Neither release looks at the directory a partition is assigned to
//! (`PartitionRecord.directories` against `directory.id` in
//! `meta.properties`) when it decides a dir is stray, so neither does
//! [`stray`]. Not modelled yet: a segment whose offsets overflow its base
//! (Kafka splits it on load), transaction version 2 epoch bumps.
//!
//! Invariant: nothing here reads files; callers pass what they read.

use std::collections::BTreeMap;

use crate::config::{self, Version};
use crate::transactions::TxnMetadata;
use logfmt::metadata::{ClusterMetadata, PartitionState, RESOURCE_TOPIC};
use logfmt::spec::names as n;
use logfmt::uuid::Uuid;

pub use super::release::metadata_version_name;

/// The `metadata.version` levels a release's production build loads
/// (`MINIMUM_VERSION` to `LATEST_PRODUCTION`, [`super::release`]): 3.9.1
/// loads 1 (3.0-IV1) to 21, 4.4.0 7 (3.3-IV3) to 33.
pub fn supported_levels(v: Version) -> std::ops::RangeInclusive<i16> {
    let r = v.release();
    r.minimum_level..=r.latest_production_level
}

/// The release a dir's `metadata.version` level implies: the oldest that
/// runs it in production (3.9 without one); the newest logtool knows for a
/// level above them all ([`super::release::newer_than_known`]).
pub fn implied_version(level: Option<i16>) -> Version {
    level.map_or(Version::Kafka3_9, Version::of_metadata_version)
}

/// Something in the metadata log that stops Kafka from starting.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Refusal {
    /// What is at fault, in words ("topic crashed-txn: segment.bytes").
    pub what: String,
    /// What Kafka says (its exception and message).
    pub message: String,
}

/// What Kafka does on start with a log dir holding a file it reads and cannot
/// parse, named `name`: an offset checkpoint of the log dir, a partition's
/// `leader-epoch-checkpoint` (both `CheckpointFileWithFailureHandler.read`)
/// or `partition.metadata` (`PartitionMetadataFile.read`). The failure takes
/// the log dir offline (`LogDirFailureChannel`); a broker with no log dir
/// left halts ("Shutdown broker because all log dirs in ... have failed").
/// Kafka 3.9.1 and 4.3.1 both stopped so in the start matrix
/// (`tests/interop/start_matrix.sh`).
pub fn unreadable_file_refusal(name: &str) -> Refusal {
    Refusal {
        what: format!("{name} does not parse"),
        message: "KafkaStorageException: the log dir goes offline, and a broker with no other log dir halts".into(),
    }
}

/// The replicas a broker given several log dirs (`dirs`: each log dir with
/// its partition dirs' names) finds twice: the same topic-partition live in
/// two dirs, or future in two. `LogManager.loadLog` throws
/// `IllegalStateException` ("Duplicate log directories for ... are found in
/// both ...") and the broker does not start. A live replica in one dir and
/// a future one in another is a move under way, loaded as both.
pub fn duplicate_replicas(dirs: &[(std::path::PathBuf, Vec<String>)]) -> Vec<(String, Vec<std::path::PathBuf>)> {
    use logfmt::naming::{DirState, parse_partition_dir};
    let mut seen: BTreeMap<(String, i32, bool), Vec<std::path::PathBuf>> = BTreeMap::new();
    for (log_dir, names) in dirs {
        for name in names {
            let Some(pd) = parse_partition_dir(name) else { continue };
            let future = match pd.state {
                DirState::Live => false,
                DirState::Future(_) => true,
                DirState::Delete(_) | DirState::Stray(_) => continue,
            };
            seen.entry((pd.topic, pd.partition, future)).or_default().push(log_dir.join(name));
        }
    }
    seen.into_iter()
        .filter(|(_, found)| found.len() > 1)
        .map(|((topic, partition, future), found)| {
            (format!("{topic}-{partition}{}", if future { " (future)" } else { "" }), found)
        })
        .collect()
}

/// What Kafka `version` does on start with a segment whose `.txnindex`
/// (`file`) has an entry of a version it refuses (`read`, as it reads it:
/// [`super::recovery::LoadCheck::TxnIndexVersionRefused`]):
/// `LogSegment.sanityCheck` -> `TransactionIndex` throws a `KafkaException`
/// that `LogLoader.loadSegmentFiles` does not catch, and the broker halts
/// ("Error starting LogManager"), whatever other log dirs it has. Kafka
/// 4.4.0 halted so on an entry of version 1 in the start matrix; 3.9.1 to
/// 4.3.1 read that version as 0 ([`super::release::TxnIndexVersionRead`]).
pub fn txn_index_version_refusal(file: &str, read: i16, version: Version) -> Refusal {
    let range = match version.release().txn_index_version {
        super::release::TxnIndexVersionRead::Short => "supported version range is 0 to 0",
        super::release::TxnIndexVersionRead::FirstByte => "current version is 0",
    };
    Refusal {
        what: format!("{file}: an entry of version {read}"),
        message: format!(
            "KafkaException: Unexpected aborted transaction version {read} in transaction index {file}, {range} (the broker halts: Error starting LogManager)"
        ),
    }
}

/// What Kafka does on start with a log dir without `meta.properties`:
/// `MetaPropertiesEnsemble` finds it unformatted and the broker does not
/// start (Kafka 3.9.1 and 4.3.1 in the start matrix).
pub fn meta_properties_missing_refusal() -> Refusal {
    Refusal {
        what: "no meta.properties".into(),
        message: "RuntimeException: No `meta.properties` found (the log dir is not formatted: kafka-storage format)"
            .into(),
    }
}

/// What Kafka does on start with a log dir whose `meta.properties` says
/// `node.id` `stored` and `directory.id` `directory`, where the metadata log
/// registered that directory for broker `registered` (the node that wrote
/// the dir, so the one whose config names it): `MetaPropertiesEnsemble.verify`
/// stops the start before any log is loaded (Kafka 3.9.1 and 4.3.1 in the
/// start matrix). `None` when they agree. A changed `cluster.id` alone
/// stops neither release on a single node: nothing here says it.
pub fn node_id_refusal(stored: i32, registered: i32) -> Option<Refusal> {
    (stored != registered).then(|| Refusal {
        what: format!(
            "meta.properties says node.id={stored}, the metadata log registered this dir for node {registered}"
        ),
        message: format!("RuntimeException: Stored node id {stored} doesn't match previous node id {registered}"),
    })
}

/// What Kafka does on start with a log dir whose `meta.properties` lacks
/// the `directory.id` the metadata log knows it by
/// ([`directory_id_on_start`]).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum DirectoryIdOnStart {
    /// The node is a KRaft voter under `expected` (a dynamic quorum's
    /// `VotersRecord`): with another directory id it is no voter, the
    /// quorum elects no leader, and the broker exits when its registration
    /// times out. Kafka 3.9.1 so in the start matrix.
    Refused {
        /// Why Kafka does not start.
        refusal: Refusal,
        /// The directory id the voter set names.
        expected: Uuid,
    },
    /// The node registered this dir (its only one) as `expected`: Kafka
    /// writes a new random id and registers the dir under it, and the
    /// partitions the metadata log placed in `expected` are moved to it
    /// (`AssignReplicasToDirs`); Kafka 4.4.0 left them without a leader in
    /// logtool's test.
    Reassigned {
        /// The directory id the node's registration names.
        expected: Uuid,
    },
}

/// What Kafka does on start with node `node`'s log dir whose
/// `meta.properties` says `directory.id` `stored` (`None`: missing; Kafka
/// then writes a new random one, `MetaPropertiesEnsemble.Copier.
/// generateValidDirectoryId`, before anything else): a voter of the
/// dir's KRaft voter set under another id does not start
/// (`KafkaRaftClient`: the local `ReplicaKey` is not a voter); a node whose
/// registration names one dir gets that dir re-registered under the new
/// id. `None` when the ids agree or the metadata log names none.
pub fn directory_id_on_start(stored: Option<Uuid>, node: i32, meta: &ClusterMetadata) -> Option<DirectoryIdOnStart> {
    let said = |s: Option<Uuid>| match s {
        Some(d) => format!("meta.properties says directory.id={d}"),
        None => "meta.properties has no directory.id (Kafka writes a new one)".to_string(),
    };
    let voter = meta.voters.as_ref().and_then(|v| v.iter().find(|(id, _)| *id == node)).map(|(_, d)| *d);
    if let Some(expected) = voter.filter(|d| !d.is_zero()) {
        return (stored != Some(expected)).then(|| DirectoryIdOnStart::Refused {
            refusal: Refusal {
                what: format!("{}, the KRaft voter set names node {node} with directory.id={expected}", said(stored)),
                message: "the node is not that voter: the quorum elects no leader, and the broker exits after initial.broker.registration.timeout.ms (\"unable to register with the controller quorum\")".into(),
            },
            expected,
        });
    }
    match meta.broker_log_dirs.get(&node).map(Vec::as_slice) {
        Some(&[expected]) if stored != Some(expected) => Some(DirectoryIdOnStart::Reassigned { expected }),
        _ => None,
    }
}

/// What Kafka does on start with the log dir checkpoint `name` missing
/// (`CheckpointFile`'s constructor creates it empty, and each partition
/// starts as if the file did not name it; Kafka writes it again at its
/// next checkpoint): `None` for a file that is not one of the four.
/// `clean_shutdown`: the dir has `.kafka_cleanshutdown`.
pub fn missing_checkpoint(name: &str, clean_shutdown: bool) -> Option<&'static str> {
    Some(match name {
        // LogLoader.recoverLog: with the marker nothing is recovered and
        // the recovery point becomes the log end; without it, every
        // segment is recovered from 0
        n::RECOVERY_POINT_OFFSET_CHECKPOINT if clean_shutdown => {
            "missing: Kafka creates it empty; after a clean shutdown it recovers nothing and writes each log end again"
        }
        n::RECOVERY_POINT_OFFSET_CHECKPOINT => {
            "missing: Kafka creates it empty and, the shutdown unclean, recovers every segment of every partition"
        }
        // Partition.createLog: the high watermark starts at the log start;
        // the leader raises it (a single replica at once)
        n::REPLICATION_OFFSET_CHECKPOINT => {
            "missing: Kafka creates it empty; each high watermark starts at the log start until the leader raises it"
        }
        // LogLoader: logStartOffset = max(checkpoint 0, first segment base)
        n::LOG_START_OFFSET_CHECKPOINT => {
            "missing: Kafka creates it empty; each partition's log starts at its first segment (a log start DeleteRecords raised inside it is forgotten)"
        }
        // LogCleanerManager: no cleaned-up-to offset means from the start
        n::CLEANER_OFFSET_CHECKPOINT => {
            "missing: Kafka creates it empty; the cleaner cleans each compacted partition from its start again"
        }
        _ => return None,
    })
}

/// What stops Kafka `version` starting on a log dir whose metadata is `meta`:
/// a `metadata.version` it cannot load, a topic config it refuses when it
/// loads the topic's partitions, TopicRecords a controller cannot replay.
///
/// A `metadata.version` newer than every release logtool knows is no
/// refusal of the release the dir implies (`implied`: `version` was not
/// named by the user but taken from the dir): that Kafka is newer, and the
/// dir is read with the newest rules ([`super::release::newer_than_known`]).
///
/// `broker`: the node is a broker (or combined). A controller-only node has
/// no `LogManager` of topic partitions, so topic configs its release would
/// refuse at a broker's load do not stop it (Kafka 4.4.0's controller
/// started on a metadata log whose topics' `segment.bytes` its broker
/// refused).
pub fn refusals(meta: &ClusterMetadata, version: Version, implied: bool, broker: bool) -> Vec<Refusal> {
    let mut out = Vec::new();
    if let Some(level) = meta.metadata_version
        && !supported_levels(version).contains(&level)
        && !(implied && super::release::newer_than_known(level))
    {
        let name = metadata_version_name(level).unwrap_or("unknown");
        let message = if !(1..=version.release().latest_known_level).contains(&level) {
            format!("IllegalArgumentException: No MetadataVersion with feature level {level}")
        } else {
            format!(
                "metadata.version {name} (level {level}) is outside what Kafka {} loads ({} to {})",
                version.name(),
                metadata_version_name(*supported_levels(version).start()).unwrap_or("?"),
                metadata_version_name(*supported_levels(version).end()).unwrap_or("?"),
            )
        };
        out.push(Refusal { what: format!("metadata.version {name} (feature level {level})"), message });
    }
    let mut topics: Vec<(&String, &BTreeMap<String, String>)> = meta
        .configs
        .iter()
        .filter(|((t, name), _)| *t == RESOURCE_TOPIC && meta.topics.contains_key(name))
        .map(|((_, name), c)| (name, c))
        .collect();
    topics.sort();
    if !broker {
        topics.clear();
    }
    for (topic, configs) in topics {
        if let Err(e) = config::check_at_start(configs, version) {
            out.push(Refusal {
                what: format!("topic {topic}: {}", e.name.as_deref().unwrap_or("configs")),
                message: format!("Error starting LogManager: ConfigException: {}", e.message),
            });
        }
    }
    for (name, previous, id) in &meta.duplicate_topics {
        let message = if previous == id {
            format!("RuntimeException: Found duplicate TopicRecord for {name} with topic ID {id}")
        } else {
            format!(
                "RuntimeException: Found duplicate TopicRecord for {name} with a different ID than before. Previous ID was {previous} and new ID is {id}"
            )
        };
        out.push(Refusal { what: format!("TopicRecord of {name}"), message });
    }
    out
}

/// Why Kafka sets a partition dir aside as `<topic>-<n>.<uuid>-stray` (and
/// serves the partition empty, or not at all).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Stray {
    /// No topic id in `partition.metadata` (or no such file).
    NoTopicId,
    /// The topic id is not in the metadata (unknown or deleted topic, or an
    /// edited id), or has no such partition.
    UnknownTopicId(Uuid),
    /// The partition's replicas do not include this node.
    NotAReplica {
        /// The replicas the metadata assigns.
        replicas: Vec<i32>,
        /// This node.
        node: i32,
    },
}

impl Stray {
    /// Kafka's words (its INFO line at start).
    pub fn describe(&self) -> String {
        match self {
            Stray::NoTopicId => "the topicId does not exist in partition.metadata, treat it as a stray log".into(),
            Stray::UnknownTopicId(id) => format!("the topicId {id} does not exist in the metadata image"),
            Stray::NotAReplica { replicas, node } => {
                let r: Vec<String> = replicas.iter().map(i32::to_string).collect();
                format!("the current replica assignment [{}] does not contain the local brokerId {node}", r.join(", "))
            }
        }
    }
}

/// Whether Kafka (3.9 and 4.x alike) marks the partition dir stray: its
/// topic id (from `partition.metadata`) and partition number looked up in
/// the metadata image, and this node among its replicas. Asked only of live
/// partition dirs of a KRaft log dir whose metadata is known.
pub fn stray(topic_id: Option<Uuid>, partition: i32, meta: &ClusterMetadata, node: i32) -> Option<Stray> {
    let Some(id) = topic_id else { return Some(Stray::NoTopicId) };
    match meta.partitions.get(&id).and_then(|ps| ps.get(&partition)) {
        None => Some(Stray::UnknownTopicId(id)),
        Some(state) if !state.replicas.contains(&node) => {
            Some(Stray::NotAReplica { replicas: state.replicas.clone(), node })
        }
        Some(_) => None,
    }
}

/// Which rule gives a partition's high watermark after a start.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum HighWatermarkRule {
    /// The in-sync replicas are this node alone: once it leads, the high
    /// watermark is its log end.
    IsrIsThisNode,
    /// The checkpointed high watermark (within the log start and end) holds
    /// until other in-sync replicas fetch.
    Checkpoint,
    /// No checkpointed high watermark and no metadata to go by: the log end.
    NoCheckpoint,
}

impl HighWatermarkRule {
    /// In words, for output.
    pub fn describe(self) -> &'static str {
        match self {
            HighWatermarkRule::IsrIsThisNode => "the log end: the ISR is this broker alone (it leads once started)",
            HighWatermarkRule::Checkpoint => "the high watermark (replication-offset-checkpoint)",
            HighWatermarkRule::NoCheckpoint => "the log end offset (no high watermark checkpointed)",
        }
    }
}

/// A partition's high watermark once a broker has started on the dir and
/// the partition has a leader (`Partition.makeLeader` ->
/// `maybeIncrementLeaderHW`: the least log end of the in-sync replicas).
/// `state` is the partition in the metadata (if known), `node` this broker,
/// `checkpoint` the checkpointed high watermark already kept within the log
/// start and end (`UnifiedLog` on load), `log_end` the log end after
/// recovery, `markers` how many transaction markers the coordinator appends
/// then ([`markers_on_start`]), which a leader alone in its ISR moves its
/// high watermark past.
pub fn high_watermark_on_start(
    state: Option<&PartitionState>,
    node: Option<i32>,
    checkpoint: Option<i64>,
    log_end: i64,
    markers: usize,
) -> (i64, HighWatermarkRule) {
    let alone = match (state, node) {
        (Some(s), Some(n)) => s.isr == [n] && s.replicas.contains(&n),
        _ => false,
    };
    match checkpoint {
        _ if alone => {
            (log_end.saturating_add(i64::try_from(markers).unwrap_or(i64::MAX)), HighWatermarkRule::IsrIsThisNode)
        }
        Some(hw) => (hw, HighWatermarkRule::Checkpoint),
        None => (log_end, HighWatermarkRule::NoCheckpoint),
    }
}

/// The transactional ids whose coordinator writes a marker to
/// `topic`-`partition` soon after a start, at `now_ms`: those it loads in
/// `PrepareCommit`, `PrepareAbort` or `PrepareEpochFence` (it sends their
/// markers on load, again if they were written before:
/// `TransactionStateManager.loadTransactionsForTxnTopicPartition`), and those
/// `Ongoing` past their timeout (`TransactionCoordinator.abortTimedOutTransactions`,
/// every `transaction.abort.timed.out.transaction.cleanup.interval.ms`,
/// 10 s: the epoch is bumped and the transaction aborted). Each appends one
/// marker at the partition's log end, which a leader alone in its ISR
/// moves its high watermark past.
pub fn markers_on_start<'a>(
    txns: &'a BTreeMap<String, TxnMetadata>,
    topic: &str,
    partition: i32,
    now_ms: i64,
) -> Vec<&'a str> {
    txns.values()
        .filter(|t| t.partitions.iter().any(|(tp, p)| tp == topic && *p == partition))
        .filter(|t| writes_markers_on_start(t, now_ms))
        .map(|t| t.transactional_id.as_str())
        .collect()
}

/// Whether the coordinator writes `t`'s markers soon after a start (see
/// [`markers_on_start`]).
fn writes_markers_on_start(t: &TxnMetadata, now_ms: i64) -> bool {
    use super::transactions::TransactionState as S;
    match t.state {
        Some(S::PrepareCommit | S::PrepareAbort | S::PrepareEpochFence) => true,
        Some(S::Ongoing) => t.start_timestamp.saturating_add(t.timeout_ms) < now_ms,
        _ => false,
    }
}

/// What the transaction coordinator appends to `__transaction_state` for
/// `t` soon after a start (see [`markers_on_start`]), by state name: a
/// transaction loaded in `PrepareCommit`/`PrepareAbort` gets its
/// `CompleteCommit`/`CompleteAbort` once its markers are written
/// (`TransactionStateManager.loadTransactionsForTxnTopicPartition`, then
/// `TransactionMarkerChannelManager`'s completion); one `Ongoing` past its
/// timeout is aborted with its epoch bumped: `PrepareAbort`, the markers,
/// then `CompleteAbort` (`TransactionCoordinator.abortTimedOutTransactions`
/// -> `endTransaction`). Each is a batch of one record.
fn coordinator_records_on_start(t: &TxnMetadata, now_ms: i64) -> &'static [&'static str] {
    use super::transactions::TransactionState as S;
    if !writes_markers_on_start(t, now_ms) {
        return &[];
    }
    match t.state {
        Some(S::PrepareCommit) => &["CompleteCommit"],
        Some(S::Ongoing) => &["PrepareAbort", "CompleteAbort"],
        _ => &["CompleteAbort"],
    }
}

/// [`markers_on_start`] for every partition, from the `__transaction_state`
/// partitions of the log dir `log_dir`, at `now_ms`: (topic, partition) to
/// what is appended there soon after a start - for a data partition the
/// transactional ids whose markers the coordinator writes, for a
/// `__transaction_state` partition the coordinator's own records
/// ("PrepareAbort of ID": [`coordinator_records_on_start`]). One entry is
/// one offset.
pub fn pending_markers(
    log_dir: &std::path::Path,
    now_ms: i64,
    limits: &logfmt::limits::Limits,
) -> logfmt::error::Result<std::collections::HashMap<(String, i32), Vec<String>>> {
    let checkpoints = logfmt::partition::LogDirCheckpoints::read(log_dir, limits);
    let mut out: std::collections::HashMap<(String, i32), Vec<String>> = std::collections::HashMap::new();
    for (name, dir) in logfmt::logdir::live_partitions(log_dir)? {
        if name.topic != logfmt::spec::names::TRANSACTION_STATE_TOPIC {
            continue;
        }
        // each transactional id lives in one coordinator partition
        let coordinator = logfmt::partition::Partition::open_with(&dir, &checkpoints)?;
        let txns = super::transactions::load(std::slice::from_ref(&coordinator), limits)?;
        for t in txns.values().filter(|t| writes_markers_on_start(t, now_ms)) {
            for (topic, partition) in &t.partitions {
                out.entry((topic.clone(), *partition)).or_default().push(t.transactional_id.clone());
            }
            for record in coordinator_records_on_start(t, now_ms) {
                let id = &t.transactional_id;
                out.entry((name.topic.clone(), name.partition)).or_default().push(format!("{record} of {id}"));
            }
        }
    }
    Ok(out)
}

/// What a high watermark moved on start comes after, in words: the
/// transaction markers of `ids` in a data partition, the coordinator's own
/// records in a `__transaction_state` one ([`pending_markers`]).
pub fn written_on_start(topic: &str, ids: &[String]) -> String {
    if topic == logfmt::spec::names::TRANSACTION_STATE_TOPIC {
        format!("after the record(s) the transaction coordinator then writes: {}", ids.join(", "))
    } else {
        format!("after the transaction marker(s) the coordinator then writes for {}", ids.join(", "))
    }
}

/// The partition `topic`-`partition` as the metadata holds it: by the topic
/// id its dir carries, else by name.
pub fn partition_state<'a>(
    meta: &'a ClusterMetadata,
    topic_id: Option<Uuid>,
    topic: &str,
    partition: i32,
) -> Option<&'a PartitionState> {
    let id = topic_id.or_else(|| meta.topics.get(topic).copied())?;
    meta.partitions.get(&id)?.get(&partition)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_replica_twice_in_a_brokers_log_dirs() {
        let dirs = |b: &[&str]| {
            vec![
                (std::path::PathBuf::from("/a"), vec!["t-0".to_string(), "t-1".to_string()]),
                (std::path::PathBuf::from("/b"), b.iter().map(|s| s.to_string()).collect()),
            ]
        };
        let dup = duplicate_replicas(&dirs(&["t-1", "u-0"]));
        assert_eq!(dup.len(), 1);
        assert_eq!(dup[0].0, "t-1");
        assert_eq!(dup[0].1, vec![std::path::PathBuf::from("/a/t-1"), std::path::PathBuf::from("/b/t-1")]);
        // a move under way, a dir Kafka deletes, a stray one: loaded beside it
        let fine = ["t-1.0123456789abcdef0123456789abcdef-future", "t-0.0123456789abcdef0123456789abcdef-delete"];
        assert!(duplicate_replicas(&dirs(&fine)).is_empty());
    }

    fn meta_with(replicas: Vec<i32>, isr: Vec<i32>) -> (ClusterMetadata, Uuid) {
        let id = Uuid::parse("r_ZsKbHLR8Odp0xbQ2vbPw").unwrap();
        let mut m = ClusterMetadata::default();
        m.topics.insert("t".into(), id);
        m.partitions.entry(id).or_default().insert(0, PartitionState { replicas, leader: 1, leader_epoch: 0, isr });
        (m, id)
    }

    #[test]
    fn strays_as_kafka_finds_them() {
        let (m, id) = meta_with(vec![1, 2], vec![1, 2]);
        assert_eq!(stray(Some(id), 0, &m, 1), None);
        assert_eq!(stray(None, 0, &m, 1), Some(Stray::NoTopicId));
        assert_eq!(stray(Some(id), 1, &m, 1), Some(Stray::UnknownTopicId(id)));
        let other = Uuid::parse("AAAAAAAAAAAAAAAAAAAAAQ").unwrap();
        assert_eq!(stray(Some(other), 0, &m, 1), Some(Stray::UnknownTopicId(other)));
        assert_eq!(
            stray(Some(id), 0, &m, 3).map(|s| s.describe()).as_deref(),
            Some("the current replica assignment [1, 2] does not contain the local brokerId 3")
        );
    }

    #[test]
    fn the_high_watermark_moves_to_the_log_end_only_when_the_isr_is_this_node() {
        let (m, id) = meta_with(vec![1], vec![1]);
        let s = partition_state(&m, Some(id), "t", 0);
        assert_eq!(high_watermark_on_start(s, Some(1), Some(1496), 1500, 0), (1500, HighWatermarkRule::IsrIsThisNode));
        assert_eq!(high_watermark_on_start(s, Some(1), Some(1496), 1500, 2), (1502, HighWatermarkRule::IsrIsThisNode));
        let (m, _) = meta_with(vec![1, 2], vec![1, 2]);
        let s = partition_state(&m, None, "t", 0);
        assert_eq!(high_watermark_on_start(s, Some(1), Some(1496), 1500, 0), (1496, HighWatermarkRule::Checkpoint));
        assert_eq!(high_watermark_on_start(None, None, None, 1500, 0), (1500, HighWatermarkRule::NoCheckpoint));
    }

    #[test]
    fn markers_after_start_for_prepared_and_timed_out_transactions() {
        let txn = |id: &str, state: &str, start: i64| TxnMetadata {
            transactional_id: id.into(),
            producer_id: 1,
            producer_epoch: 0,
            state: super::super::transactions::TransactionState::from_name(state),
            partitions: vec![("t".into(), 0)],
            timeout_ms: 60_000,
            start_timestamp: start,
            last_update_timestamp: start,
            prev_producer_id: 1,
            client_transaction_version: 0,
        };
        let txns: BTreeMap<String, TxnMetadata> = [
            txn("a", "PrepareCommit", 0),
            txn("b", "Ongoing", 0),
            txn("c", "Ongoing", 100_000),
            txn("d", "CompleteCommit", 0),
        ]
        .into_iter()
        .map(|t| (t.transactional_id.clone(), t))
        .collect();
        assert_eq!(markers_on_start(&txns, "t", 0, 120_000), ["a", "b"]);
        assert!(markers_on_start(&txns, "t", 1, 120_000).is_empty());
    }

    #[test]
    fn refusals_name_the_config_and_kafkas_exception() {
        let (mut m, _) = meta_with(vec![1], vec![1]);
        m.configs.insert((RESOURCE_TOPIC, "t".into()), BTreeMap::from([("segment.bytes".into(), "16384".into())]));
        m.metadata_version = Some(21);
        assert!(refusals(&m, Version::Kafka3_9, false, true).is_empty());
        let r = refusals(&m, Version::Kafka4_3, false, true);
        assert_eq!(r.len(), 1);
        assert_eq!(r[0].what, "topic t: segment.bytes");
        assert_eq!(
            r[0].message,
            "Error starting LogManager: ConfigException: Invalid value 16384 for configuration segment.bytes: Value must be at least 1048576"
        );
        m.metadata_version = Some(30);
        m.configs.clear();
        assert_eq!(implied_version(m.metadata_version), Version::Kafka4_3);
        assert_eq!(
            refusals(&m, Version::Kafka3_9, false, true)[0].message,
            "IllegalArgumentException: No MetadataVersion with feature level 30"
        );
        assert!(refusals(&m, Version::Kafka4_3, false, true).is_empty());
        // 4.4.0's production level: 4.3 does not know it, 4.4 runs it
        m.metadata_version = Some(33);
        assert_eq!(implied_version(m.metadata_version), Version::Kafka4_4);
        assert_eq!(
            refusals(&m, Version::Kafka4_3, false, true)[0].message,
            "IllegalArgumentException: No MetadataVersion with feature level 33"
        );
        assert!(refusals(&m, Version::Kafka4_4, true, true).is_empty());
        // newer than logtool knows: no refusal of the release the dir
        // implies, but one when that release is named
        m.metadata_version = Some(34);
        assert!(refusals(&m, Version::Kafka4_4, true, true).is_empty());
        assert_eq!(refusals(&m, Version::Kafka4_4, false, true).len(), 1);
    }
}
