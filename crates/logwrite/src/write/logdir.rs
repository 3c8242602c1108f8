//! A whole log dir a KRaft node accepts as its own.
//!
//! A KRaft broker keeps only the partition dirs its metadata log names (it
//! renames the others to `-stray` and deletes them), so a log dir is its
//! partitions *and* the cluster's metadata. [`Cluster`] describes the
//! cluster (nodes, topics, where each partition lives); [`LogDirWriter`]
//! writes one node's log dir: the partitions appended through
//! [`PartitionWriter`], then, at [`LogDirWriter::finish`]:
//!
//! * `meta.properties` version 1 (`MetaProperties`: node id, directory id,
//!   cluster id), as `kafka-storage format` writes it;
//! * `bootstrap.checkpoint` (`BootstrapDirectory`): a snapshot holding the
//!   `metadata.version` feature level;
//! * `__cluster_metadata-0` (the metadata log, `KafkaMetadataLog`) holding
//!   what a freshly formatted cluster plus `kafka-topics --create` writes
//!   ([`metadata_batches`]), and its `quorum-state` (a static quorum: the
//!   controller, node 1, leads epoch 1);
//! * the checkpoints a shutdown leaves (`LogManager.shutdown`):
//!   `recovery-point-offset-checkpoint` (the log end of every partition),
//!   `replication-offset-checkpoint` (high watermarks),
//!   `log-start-offset-checkpoint` (only partitions whose log start is past
//!   their first segment, `LogManager.checkpointLogStartOffsetsInDir`), an
//!   empty `cleaner-offset-checkpoint` (created by `LogCleanerManager`), and
//!   `.kafka_cleanshutdown` with the broker's epoch.
//!
//! [`LogDirWriter::create_live`] (the broker's) writes the node's files and
//! the registrations at once and appends every later change to the
//! metadata log as it happens, so the dir is one Kafka starts on at every
//! moment; [`LogDirWriter::finish`] then adds only the controlled shutdown.
//!
//! A [`Shutdown`] that is not clean leaves what a SIGKILL does instead: no clean-shutdown
//! marker, the recovery points at each active segment's base (flushed at
//! the roll), high watermarks behind the log end, and no controlled-shutdown
//! records in the metadata log.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use kmsg::Message;
use kmsg::metadata::entry;
use kmsg::records::leader_change_message::Voter;
use kmsg::records::register_broker_record::{BrokerEndpoint, BrokerFeature};
use kmsg::records::register_controller_record::{ControllerEndpoint, ControllerFeature};
use kmsg::records::{
    BeginTransactionRecord, BrokerRegistrationChangeRecord, ConfigRecord, EndTransactionRecord, FeatureLevelRecord,
    LeaderChangeMessage, PartitionChangeRecord, PartitionRecord, ProducerIdsRecord, RegisterBrokerRecord,
    RegisterControllerRecord, SnapshotFooterRecord, SnapshotHeaderRecord, TopicRecord, ZkMigrationStateRecord,
};
use logfmt::metadata::{RESOURCE_BROKER, RESOURCE_TOPIC};
use serde_json::Value;

use logfmt::checkpoint::OffsetCheckpointEntry;
use logfmt::control::EndTxnMarker;
use logfmt::error::{Error, Result};
use logfmt::spec::names as n;
use logfmt::uuid::Uuid;
use logrules::config::Version;

use super::file::write_atomic;
use super::partition::{ClosedPartition, LogConfig, PartitionWriter};
use logfmt::builder::{BatchBuilder, NewRecord};
use logfmt::emit;

/// The metadata version a Kafka 3.9 cluster is formatted with (3.9-IV0).
pub const METADATA_VERSION: i16 = 21;
/// The metadata version a Kafka 4.3 cluster is formatted with (4.3-IV0).
pub const METADATA_VERSION_4_3: i16 = 30;
/// The `metadata.version` a Kafka 4.4.0 cluster formats with (4.4-IV2).
pub const METADATA_VERSION_4_4: i16 = 33;
/// The metadata log's topic id (`Uuid.METADATA_TOPIC_ID`).
pub const METADATA_TOPIC_ID: Uuid = Uuid([0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1]);
/// The node of a static quorum that is its controller (and a broker).
pub const CONTROLLER_ID: i32 = 1;
/// The leader epoch of the metadata log the controller wrote under.
pub const METADATA_LEADER_EPOCH: i32 = 1;

/// A broker of the cluster.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Node {
    /// `node.id`.
    pub node_id: i32,
    /// Its log dir's `directory.id`.
    pub directory_id: Uuid,
    /// Its registration's incarnation id.
    pub incarnation_id: Uuid,
}

/// Where one partition lives and who leads it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Placement {
    /// Replicas (node ids).
    pub replicas: Vec<i32>,
    /// In-sync replicas.
    pub isr: Vec<i32>,
    /// The leader.
    pub leader: i32,
    /// Its leader epoch (the latest epoch of the leader's log).
    pub leader_epoch: i32,
}

/// A topic.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Topic {
    /// Its name.
    pub name: String,
    /// Its id (`partition.metadata`, `TopicRecord`).
    pub topic_id: Uuid,
    /// Topic-level configs (`ConfigRecord`s).
    pub configs: BTreeMap<String, String>,
    /// One placement per partition.
    pub partitions: Vec<Placement>,
}

/// A KRaft cluster: node 1 is the controller of a static quorum and a
/// broker; further nodes are brokers.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Cluster {
    /// `cluster.id`.
    pub cluster_id: String,
    /// The brokers, node 1 first.
    pub nodes: Vec<Node>,
    /// The controller's incarnation id.
    pub controller_incarnation_id: Uuid,
    /// The topics.
    pub topics: Vec<Topic>,
    /// The next producer id the controller hands out, when producer ids
    /// were used (`ProducerIdsRecord`).
    pub next_producer_id: Option<i64>,
    /// The time the metadata records carry (ms).
    pub time_ms: i64,
    /// The Kafka release whose format is written: its `metadata.version`,
    /// feature levels and registrations.
    pub kafka_version: Version,
}

/// The releases the writer makes dirs of (a dir of another is refused
/// before anything is written: `logtool broker`, `logtool fixture`).
pub const WRITES: [Version; 3] = [Version::Kafka3_9, Version::Kafka4_3, Version::Kafka4_4];

/// `Err` with what the writer makes, for a release it does not.
pub fn check_writes(v: Version) -> std::result::Result<(), String> {
    if WRITES.contains(&v) {
        Ok(())
    } else {
        Err(format!(
            "Kafka {}: logtool writes the dirs of Kafka 3.9 (3.9.1), 4.3 (4.3.1) and 4.4 (4.4.0); it reads every release of {}",
            v.name(),
            Version::known()
        ))
    }
}

/// The finalized feature levels `kafka-storage format` of `v` writes by
/// default (3.9.1: metadata.version 3.9-IV0 only; 4.3.1 and 4.4.0 as their
/// bootstrap snapshots hold them, in their order; the levels are the release
/// table's, `logrules::release`). A 4.x other than those is not
/// written ([`WRITES`]); it gets 4.3's.
pub fn feature_levels(v: Version) -> &'static [(&'static str, i16)] {
    match v {
        Version::Kafka3_9 => &[("metadata.version", METADATA_VERSION)],
        Version::Kafka4_4 => &[
            ("metadata.version", METADATA_VERSION_4_4),
            ("eligible.leader.replicas.version", 1),
            ("group.version", 1),
            ("share.version", 2),
            ("streams.version", 1),
            ("transaction.version", 2),
        ],
        _ => &[
            ("metadata.version", METADATA_VERSION_4_3),
            ("eligible.leader.replicas.version", 1),
            ("group.version", 1),
            ("share.version", 1),
            ("streams.version", 1),
            ("transaction.version", 2),
        ],
    }
}

/// The supported feature ranges a node of `v` registers with: (name,
/// minimum, maximum: the release's greatest production level).
pub fn supported_features(v: Version) -> &'static [(&'static str, i16, i16)] {
    match v {
        Version::Kafka3_9 => &[("kraft.version", 0, 1), ("metadata.version", 1, METADATA_VERSION)],
        Version::Kafka4_4 => &[
            ("group.version", 0, 1),
            ("kraft.version", 0, 1),
            ("metadata.version", 7, METADATA_VERSION_4_4),
            ("share.version", 0, 2),
            ("streams.version", 0, 1),
            ("transaction.version", 0, 2),
            ("eligible.leader.replicas.version", 0, 1),
        ],
        _ => &[
            ("group.version", 0, 1),
            ("kraft.version", 0, 1),
            ("metadata.version", 7, METADATA_VERSION_4_3),
            ("share.version", 0, 1),
            ("streams.version", 0, 1),
            ("transaction.version", 0, 2),
            ("eligible.leader.replicas.version", 0, 1),
        ],
    }
}

/// The FeatureLevelRecords of `v`'s bootstrap.
fn feature_records(v: Version) -> MetadataBatch {
    feature_levels(v)
        .iter()
        .map(|(name, level)| entry(0, &FeatureLevelRecord { name: (*name).to_string(), feature_level: *level }))
        .collect()
}

/// How the node stopped.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Shutdown {
    /// A clean shutdown (else a SIGKILL).
    pub clean: bool,
    /// High watermarks to checkpoint, by partition dir name (the log end
    /// when absent).
    pub high_watermarks: BTreeMap<String, i64>,
}

impl Shutdown {
    /// A clean shutdown with every high watermark at the log end.
    pub fn clean() -> Shutdown {
        Shutdown { clean: true, high_watermarks: BTreeMap::new() }
    }
}

/// One batch of metadata records: (message name, version, data).
pub type MetadataBatch = Vec<(&'static str, i16, Value)>;

/// The metadata log of `cluster` after its brokers registered and the
/// topics were created; with `clean`, the controlled shutdown of every
/// broker too. Also returns each broker's epoch (the offset of its
/// registration, as the controller assigns it).
pub fn metadata_batches(cluster: &Cluster, clean: bool) -> (Vec<MetadataBatch>, BTreeMap<i32, i64>) {
    let (mut batches, epochs) = registration_batches(cluster);
    for t in &cluster.topics {
        batches.push(topic_batch(cluster, t));
    }
    if let Some(next) = cluster.next_producer_id {
        batches.push(producer_ids_batch(next, epochs.get(&CONTROLLER_ID).copied().unwrap_or(-1)));
    }
    if clean {
        batches.extend(shutdown_batches(cluster, &epochs));
    }
    (batches, epochs)
}

/// The first batches of a new cluster's metadata log (after the
/// LeaderChange at offset 0): the bootstrap records, the controller's and
/// every broker's registration; each broker's epoch.
pub fn registration_batches(cluster: &Cluster) -> (Vec<MetadataBatch>, BTreeMap<i32, i64>) {
    // QuorumController.bootstrap: the bootstrap records in a transaction
    let mut bootstrap: MetadataBatch =
        vec![entry(0, &BeginTransactionRecord { name: Some("Bootstrap records".into()) })];
    bootstrap.extend(feature_records(cluster.kafka_version));
    match cluster.kafka_version {
        Version::Kafka3_9 => bootstrap.push(entry(0, &ZkMigrationStateRecord { zk_migration_state: 0 })),
        // with eligible leader replicas on, the format pins the cluster-wide
        // min.insync.replicas (Formatter, KIP-966)
        _ => bootstrap.push(entry(
            0,
            &ConfigRecord {
                resource_type: RESOURCE_BROKER, // with no name: the cluster-wide default
                resource_name: String::new(),
                name: "min.insync.replicas".into(),
                value: Some("1".into()),
            },
        )),
    }
    bootstrap.push(entry(0, &EndTransactionRecord {}));
    // offset 0 is the LeaderChange control batch
    let (registrations, epochs) = registrations(cluster, 1i64.saturating_add(bootstrap.len() as i64));
    let mut batches = vec![bootstrap];
    batches.extend(registrations);
    (batches, epochs)
}

/// The controller's and every broker's registration (each broker then
/// unfenced), their first record at offset `first_offset` of the metadata
/// log; each broker's epoch (the offset of its registration, as the
/// controller assigns it).
pub fn registrations(cluster: &Cluster, first_offset: i64) -> (Vec<MetadataBatch>, BTreeMap<i32, i64>) {
    let mut batches: Vec<MetadataBatch> = Vec::new();
    let next_offset =
        |batches: &[MetadataBatch]| first_offset.saturating_add(batches.iter().map(|b| b.len() as i64).sum());
    let features = supported_features(cluster.kafka_version);
    let controller = RegisterControllerRecord {
        controller_id: CONTROLLER_ID,
        incarnation_id: cluster.controller_incarnation_id.to_string(),
        zk_migration_ready: false,
        end_points: vec![ControllerEndpoint {
            name: "CONTROLLER".into(),
            host: "127.0.0.1".into(),
            port: 9093,
            security_protocol: 0,
        }],
        features: features
            .iter()
            .map(|(name, min, max)| ControllerFeature {
                name: (*name).to_string(),
                min_supported_version: *min,
                max_supported_version: *max,
            })
            .collect(),
    };
    batches.push(vec![entry(0, &controller)]);
    let mut epochs = BTreeMap::new();
    for node in &cluster.nodes {
        let epoch = next_offset(&batches);
        epochs.insert(node.node_id, epoch);
        let broker = RegisterBrokerRecord {
            broker_id: node.node_id,
            is_migrating_zk_broker: false,
            incarnation_id: node.incarnation_id.to_string(),
            broker_epoch: epoch,
            end_points: vec![BrokerEndpoint {
                name: "PLAINTEXT".into(),
                host: "127.0.0.1".into(),
                port: u16::try_from(9092i32.saturating_add(node.node_id.saturating_mul(10))).unwrap_or(u16::MAX),
                security_protocol: 0,
            }],
            features: features
                .iter()
                .map(|(name, min, max)| BrokerFeature {
                    name: (*name).to_string(),
                    min_supported_version: *min,
                    max_supported_version: *max,
                })
                .collect(),
            rack: None,
            fenced: true,
            in_controlled_shutdown: false,
            log_dirs: vec![node.directory_id.to_string()],
            ..Default::default()
        };
        batches.push(vec![entry(3, &broker)]);
        let unfenced = BrokerRegistrationChangeRecord {
            broker_id: node.node_id,
            broker_epoch: epoch,
            fenced: -1,
            ..Default::default()
        };
        batches.push(vec![entry(0, &unfenced)]);
    }
    (batches, epochs)
}

/// `kafka-topics --create` of `t`: its TopicRecord, ConfigRecords and
/// PartitionRecords, in one batch.
pub fn topic_batch(cluster: &Cluster, t: &Topic) -> MetadataBatch {
    let mut b: MetadataBatch = vec![entry(0, &TopicRecord { name: t.name.clone(), topic_id: t.topic_id.to_string() })];
    for (k, v) in &t.configs {
        let config = ConfigRecord {
            resource_type: RESOURCE_TOPIC,
            resource_name: t.name.clone(),
            name: k.clone(),
            value: Some(v.clone()),
        };
        b.push(entry(0, &config));
    }
    b.extend(partition_records(cluster, t, 0));
    b
}

/// IncrementalAlterConfigs of one resource as Kafka's controller writes it
/// (`ConfigurationControlManager.incrementalAlterConfigResource`): one
/// `ConfigRecord` per changed config, a `None` value removing it.
pub fn config_batch(resource_type: i8, resource_name: &str, changes: &[(String, Option<String>)]) -> MetadataBatch {
    changes
        .iter()
        .map(|(name, value)| {
            let record = ConfigRecord {
                resource_type,
                resource_name: resource_name.to_string(),
                name: name.clone(),
                value: value.clone(),
            };
            entry(0, &record)
        })
        .collect()
}

/// The PartitionRecords of `t`'s partitions from `from` on (a creation, or
/// CreatePartitions).
pub fn partition_records(cluster: &Cluster, t: &Topic, from: usize) -> MetadataBatch {
    let dir_of = |id: i32| cluster.nodes.iter().find(|n| n.node_id == id).map(|n| n.directory_id.to_string());
    t.partitions
        .iter()
        .enumerate()
        .skip(from)
        .map(|(i, p)| {
            // (a replica on no node has no directory: the record cannot be written)
            let directories = p.replicas.iter().map(|r| dir_of(*r).unwrap_or_default()).collect();
            let record = PartitionRecord {
                partition_id: i32::try_from(i).unwrap_or(i32::MAX),
                topic_id: t.topic_id.to_string(),
                replicas: p.replicas.clone(),
                isr: p.isr.clone(),
                leader: p.leader,
                leader_epoch: p.leader_epoch,
                partition_epoch: 0,
                directories,
                ..Default::default()
            };
            entry(1, &record)
        })
        .collect()
}

/// The controller handing out producer ids up to `next`.
pub fn producer_ids_batch(next: i64, broker_epoch: i64) -> MetadataBatch {
    vec![entry(0, &ProducerIdsRecord { broker_id: CONTROLLER_ID, broker_epoch, next_producer_id: next })]
}

/// Each broker's controlled shutdown: it leads nothing, then it is fenced.
pub fn shutdown_batches(cluster: &Cluster, epochs: &BTreeMap<i32, i64>) -> Vec<MetadataBatch> {
    let mut batches = Vec::new();
    for node in &cluster.nodes {
        let epoch = epochs.get(&node.node_id).copied().unwrap_or(-1);
        let shutting_down = BrokerRegistrationChangeRecord {
            broker_id: node.node_id,
            broker_epoch: epoch,
            in_controlled_shutdown: 1,
            ..Default::default()
        };
        batches.push(vec![entry(1, &shutting_down)]);
        let mut moves: MetadataBatch = Vec::new();
        for t in &cluster.topics {
            for (i, p) in t.partitions.iter().enumerate() {
                if p.leader == node.node_id {
                    let change = PartitionChangeRecord {
                        partition_id: i32::try_from(i).unwrap_or(i32::MAX),
                        topic_id: t.topic_id.to_string(),
                        leader: -1,
                        ..Default::default()
                    };
                    moves.push(entry(1, &change));
                }
            }
        }
        if !moves.is_empty() {
            batches.push(moves);
        }
        let fenced = BrokerRegistrationChangeRecord {
            broker_id: node.node_id,
            broker_epoch: epoch,
            fenced: 1,
            ..Default::default()
        };
        batches.push(vec![entry(0, &fenced)]);
    }
    batches
}

fn record_error(e: kmsg::Error) -> Error {
    Error::refused(format!("a metadata record could not be written: {e}"))
}

/// The LeaderChange control batch that opens an epoch of the metadata log.
fn leader_change(time_ms: i64) -> Result<BatchBuilder> {
    let voters = vec![Voter { voter_id: CONTROLLER_ID, ..Default::default() }];
    let message = LeaderChangeMessage { version: 0, leader_id: CONTROLLER_ID, granting_voters: voters.clone(), voters };
    let value = message.encode(0).map_err(record_error)?;
    Ok(control_batch(logfmt::spec::control::LEADER_CHANGE, &value, time_ms))
}

/// A control batch of one record: key (version 0, `kind`), `value`.
fn control_batch(kind: i16, value: &[u8], time_ms: i64) -> BatchBuilder {
    let mut key = 0i16.to_be_bytes().to_vec();
    key.extend(kind.to_be_bytes());
    let mut b = BatchBuilder::new(0);
    b.control = true;
    b.push(&NewRecord { timestamp: time_ms, key: Some(&key), value: Some(value), headers: &[] });
    b
}

/// A batch of metadata records.
fn records_batch(records: &MetadataBatch, time_ms: i64) -> Result<BatchBuilder> {
    let mut b = BatchBuilder::new(0);
    for (name, version, data) in records {
        let value = kmsg::metadata::encode(name, *version, data).map_err(record_error)?;
        b.push(&NewRecord { timestamp: time_ms, key: None, value: Some(&value), headers: &[] });
    }
    Ok(b)
}

/// `bootstrap.checkpoint` as `kafka-storage format` writes it: a snapshot
/// header at offset 0, the version's feature levels from offset 1 in one
/// batch, a snapshot footer after them; epoch 0.
pub fn bootstrap_checkpoint(time_ms: i64, version: Version) -> Result<Vec<u8>> {
    let header =
        SnapshotHeaderRecord { version: 0, last_contained_log_timestamp: 0 }.encode(0).map_err(record_error)?;
    let footer = SnapshotFooterRecord { version: 0 }.encode(0).map_err(record_error)?;
    let feature = feature_records(version);
    let mut out = Vec::new();
    let mut offset = 0i64;
    for (mut b, count) in [
        (control_batch(logfmt::spec::control::SNAPSHOT_HEADER, &header, time_ms), 1),
        (records_batch(&feature, time_ms)?, feature.len() as i64),
        (control_batch(logfmt::spec::control::SNAPSHOT_FOOTER, &footer, time_ms), 1),
    ] {
        b.base_offset = offset;
        offset = offset.saturating_add(count);
        out.extend(b.build());
    }
    Ok(out)
}

/// One node's log dir being written (see the module docs).
pub struct LogDirWriter {
    dir: PathBuf,
    node_id: i32,
    partitions: BTreeMap<String, PartitionWriter>,
    /// Partitions written in place ([`PartitionWriter::create_in_place`]).
    in_place: bool,
    /// A live metadata log ([`LogDirWriter::create_live`]): appended to as
    /// the cluster changes, and each broker's epoch.
    live: Option<(PartitionWriter, BTreeMap<i32, i64>)>,
}

/// `topic-partition`, the name of a partition's dir.
pub fn partition_dir_name(topic: &str, partition: i32) -> String {
    format!("{topic}-{partition}")
}

impl LogDirWriter {
    /// Start writing the log dir `dir` of node `node_id` (`dir` must not
    /// exist, or be empty).
    pub fn create(dir: &Path, node_id: i32) -> Result<LogDirWriter> {
        Self::create_with(dir, node_id, false)
    }

    /// [`LogDirWriter::create`], every partition's segments written in
    /// place (a broker's log dir).
    pub fn create_in_place(dir: &Path, node_id: i32) -> Result<LogDirWriter> {
        Self::create_with(dir, node_id, true)
    }

    fn create_with(dir: &Path, node_id: i32, in_place: bool) -> Result<LogDirWriter> {
        std::fs::create_dir_all(dir).map_err(|e| Error::io(e, Some(dir)))?;
        // (a `.lock` the caller holds is no content)
        let mut entries = std::fs::read_dir(dir).map_err(|e| Error::io(e, Some(dir)))?;
        if entries.any(|e| e.is_ok_and(|e| e.file_name() != n::LOCK)) {
            return Err(Error::refused(format!(
                "{}: not empty; logtool writes a log dir only into an empty one",
                dir.display()
            )));
        }
        Ok(LogDirWriter { dir: dir.to_path_buf(), node_id, partitions: BTreeMap::new(), in_place, live: None })
    }

    /// A broker's log dir (partitions written in place) that a Kafka 3.9
    /// node can start on at every moment, as a running controller keeps it:
    /// `meta.properties`, `bootstrap.checkpoint` and `quorum-state` at once,
    /// and a metadata log holding the registrations now and appended to with
    /// every change ([`LogDirWriter::append_metadata`]); a SIGKILL leaves
    /// what Kafka recovers. `cluster` gives the nodes (its topics are
    /// ignored: they are appended as they are made).
    pub fn create_live(dir: &Path, node_id: i32, cluster: &Cluster) -> Result<LogDirWriter> {
        let mut w = Self::create_with(dir, node_id, true)?;
        let node = cluster
            .nodes
            .iter()
            .find(|n| n.node_id == node_id)
            .ok_or_else(|| Error::refused(format!("node {node_id} is not in the cluster")))?;
        write_atomic(
            &dir.join(n::META_PROPERTIES),
            &emit::meta_properties(node_id, &cluster.cluster_id, &node.directory_id),
        )?;
        write_atomic(
            &dir.join(n::BOOTSTRAP_CHECKPOINT),
            &bootstrap_checkpoint(cluster.time_ms, cluster.kafka_version)?,
        )?;
        let meta_dir = dir.join(partition_dir_name(n::CLUSTER_METADATA_TOPIC, 0));
        let mut meta = PartitionWriter::create_in_place(&meta_dir, &METADATA_TOPIC_ID, LogConfig::default())?;
        write_atomic(
            &meta_dir.join(n::QUORUM_STATE),
            &emit::quorum_state_static(CONTROLLER_ID, METADATA_LEADER_EPOCH, &[CONTROLLER_ID]),
        )?;
        meta.become_leader(METADATA_LEADER_EPOCH)?;
        meta.append(&mut leader_change(cluster.time_ms)?, cluster.time_ms, None)?;
        let (batches, epochs) = registration_batches(cluster);
        for b in &batches {
            meta.append(&mut records_batch(b, cluster.time_ms)?, cluster.time_ms, None)?;
        }
        w.live = Some((meta, epochs));
        Ok(w)
    }

    /// Reopen the log dir `dir` of node `node_id` that this writer or
    /// Kafka left (recovered first if it was not shut down cleanly), as its
    /// controller and broker start again: the metadata log gets a new
    /// leader epoch (`quorum-state`, a LeaderChange), the controller's and
    /// the broker's registrations with new incarnation ids, the broker
    /// unfenced; its epoch is the offset of its registration. Partitions
    /// are opened with [`LogDirWriter::open_partition`]. `.kafka_cleanshutdown`
    /// is removed, as Kafka removes it once its logs are loaded, so a crash
    /// from now on is seen as one. The registrations say what a node of
    /// `version` supports.
    pub fn open_live(
        dir: &Path,
        node: &Node,
        controller_incarnation_id: Uuid,
        time_ms: i64,
        version: Version,
    ) -> Result<LogDirWriter> {
        let limits = logfmt::Limits::default();
        let meta_dir = dir.join(partition_dir_name(n::CLUSTER_METADATA_TOPIC, 0));
        let checkpoints = logfmt::partition::LogDirCheckpoints::read(dir, &limits);
        let mut meta = PartitionWriter::open_in_place(&meta_dir, LogConfig::default(), &checkpoints, &limits)?;
        let quorum_epoch = std::fs::read(meta_dir.join(n::QUORUM_STATE))
            .ok()
            .and_then(|b| serde_json::from_slice::<Value>(&b).ok())
            .and_then(|v| v.get("leaderEpoch").and_then(Value::as_i64))
            .and_then(|e| i32::try_from(e).ok())
            .unwrap_or(0);
        let epoch = quorum_epoch.max(meta.leader_epoch()).saturating_add(1);
        write_atomic(
            &meta_dir.join(n::QUORUM_STATE),
            &emit::quorum_state_static(CONTROLLER_ID, epoch, &[CONTROLLER_ID]),
        )?;
        meta.become_leader(epoch)?;
        meta.append(&mut leader_change(time_ms)?, time_ms, None)?;
        let cluster = Cluster {
            cluster_id: String::new(),
            nodes: vec![node.clone()],
            controller_incarnation_id,
            topics: Vec::new(),
            next_producer_id: None,
            time_ms,
            kafka_version: version,
        };
        let (batches, epochs) = registrations(&cluster, meta.log_end_offset());
        for b in &batches {
            meta.append(&mut records_batch(b, time_ms)?, time_ms, None)?;
        }
        let clean = dir.join(n::CLEAN_SHUTDOWN);
        if clean.exists() {
            std::fs::remove_file(&clean).map_err(|e| Error::io(e, Some(&clean)))?;
            super::file::fsync_dir(dir)?;
        }
        Ok(LogDirWriter {
            dir: dir.to_path_buf(),
            node_id: node.node_id,
            partitions: BTreeMap::new(),
            in_place: true,
            live: Some((meta, epochs)),
        })
    }

    /// Open a partition of `topic` that the log dir holds (see
    /// [`PartitionWriter::open_in_place`]).
    pub fn open_partition(&mut self, topic: &Topic, partition: i32, config: LogConfig) -> Result<&mut PartitionWriter> {
        let limits = logfmt::Limits::default();
        let name = partition_dir_name(&topic.name, partition);
        let checkpoints = logfmt::partition::LogDirCheckpoints::read(&self.dir, &limits);
        let w = PartitionWriter::open_in_place(&self.dir.join(&name), config, &checkpoints, &limits)?;
        Ok(self.partitions.entry(name).or_insert(w))
    }

    /// Append a batch of metadata records to a live metadata log (see
    /// [`LogDirWriter::create_live`]).
    pub fn append_metadata(&mut self, batch: &MetadataBatch, time_ms: i64) -> Result<()> {
        let (meta, _) = self.live.as_mut().ok_or_else(|| Error::refused("the metadata log is not live"))?;
        meta.append(&mut records_batch(batch, time_ms)?, time_ms, None)?;
        Ok(())
    }

    /// The offset of a live metadata log's last record (the metadata
    /// image's version, as `MetadataImage.provenance` has it); -1 when none.
    pub fn metadata_version(&self) -> i64 {
        self.live.as_ref().map_or(-1, |(m, _)| m.log_end_offset().saturating_sub(1))
    }

    /// A broker's epoch in a live metadata log.
    pub fn broker_epoch(&self, node_id: i32) -> i64 {
        self.live.as_ref().and_then(|(_, e)| e.get(&node_id).copied()).unwrap_or(-1)
    }

    /// The log dir.
    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// Add a partition of `topic` (created now, empty).
    pub fn add_partition(&mut self, topic: &Topic, partition: i32, config: LogConfig) -> Result<&mut PartitionWriter> {
        let name = partition_dir_name(&topic.name, partition);
        let dir = self.dir.join(&name);
        let w = if self.in_place {
            PartitionWriter::create_in_place(&dir, &topic.topic_id, config)?
        } else {
            PartitionWriter::create(&dir, &topic.topic_id, config)?
        };
        Ok(self.partitions.entry(name).or_insert(w))
    }

    /// Remove a partition added before, and its dir (a deleted topic's).
    pub fn remove_partition(&mut self, topic: &str, partition: i32) -> Result<()> {
        let name = partition_dir_name(topic, partition);
        if let Some(w) = self.partitions.remove(&name) {
            let dir = w.dir().to_path_buf();
            drop(w);
            std::fs::remove_dir_all(&dir).map_err(|e| Error::io(e, Some(&dir)))?;
            super::file::fsync_dir(&self.dir)?;
        }
        Ok(())
    }

    /// Every partition added.
    pub fn partitions(&self) -> impl Iterator<Item = &PartitionWriter> {
        self.partitions.values()
    }

    /// A partition added before.
    pub fn partition(&mut self, topic: &str, partition: i32) -> Option<&mut PartitionWriter> {
        self.partitions.get_mut(&partition_dir_name(topic, partition))
    }

    /// Close every partition and write the node's files (see the module
    /// docs). Returns what each partition left, by dir name.
    pub fn finish(self, cluster: &Cluster, shutdown: &Shutdown) -> Result<BTreeMap<String, ClosedPartition>> {
        // a partition gone offline (a failed write it could not cut back)
        // makes the stop unclean, as a failed log dir does in Kafka: the
        // next start recovers it
        let clean = shutdown.clean && self.partitions.values().all(|w| w.offline().is_none());
        let node = cluster
            .nodes
            .iter()
            .find(|n| n.node_id == self.node_id)
            .ok_or_else(|| Error::refused(format!("node {} is not in the cluster", self.node_id)))?;
        let mut closed = BTreeMap::new();
        for (name, w) in self.partitions {
            closed.insert(name, if clean { w.close()? } else { w.crash()? });
        }
        // the metadata log, replicated to every node alike
        let meta_dir = self.dir.join(partition_dir_name(n::CLUSTER_METADATA_TOPIC, 0));
        let live = self.live.is_some();
        let epochs = match self.live {
            // live: the changes are in it; the controlled shutdown is not yet
            Some((mut meta, epochs)) => {
                if clean {
                    for b in shutdown_batches(cluster, &epochs) {
                        meta.append(&mut records_batch(&b, cluster.time_ms)?, cluster.time_ms, None)?;
                    }
                    meta.close()?;
                } else {
                    meta.crash()?;
                }
                epochs
            }
            None => {
                let (batches, epochs) = metadata_batches(cluster, clean);
                let mut meta = PartitionWriter::create(&meta_dir, &METADATA_TOPIC_ID, LogConfig::default())?;
                meta.become_leader(METADATA_LEADER_EPOCH)?;
                meta.append(&mut leader_change(cluster.time_ms)?, cluster.time_ms, None)?;
                for b in &batches {
                    meta.append(&mut records_batch(b, cluster.time_ms)?, cluster.time_ms, None)?;
                }
                if clean {
                    meta.close()?;
                } else {
                    meta.crash()?;
                }
                epochs
            }
        };
        // a live dir's node files were written when it was made (by this
        // writer or by Kafka) and stay as they are
        if !live {
            write_atomic(
                &meta_dir.join(n::QUORUM_STATE),
                &emit::quorum_state_static(CONTROLLER_ID, METADATA_LEADER_EPOCH, &[CONTROLLER_ID]),
            )?;
            write_atomic(
                &self.dir.join(n::BOOTSTRAP_CHECKPOINT),
                &bootstrap_checkpoint(cluster.time_ms, cluster.kafka_version)?,
            )?;
            write_atomic(
                &self.dir.join(n::META_PROPERTIES),
                &emit::meta_properties(self.node_id, &cluster.cluster_id, &node.directory_id),
            )?;
        }
        // the log dir's checkpoints
        let entry = |name: &str, offset: i64| {
            let (topic, partition) = name.rsplit_once('-').unwrap_or((name, "0"));
            OffsetCheckpointEntry { topic: topic.to_string(), partition: partition.parse().unwrap_or(0), offset }
        };
        let recovery: Vec<_> =
            closed.iter().map(|(name, c)| entry(name, if clean { c.log_end_offset } else { c.active_base })).collect();
        let hw: Vec<_> = closed
            .iter()
            .map(|(name, c)| entry(name, shutdown.high_watermarks.get(name).copied().unwrap_or(c.log_end_offset)))
            .collect();
        let starts: Vec<_> = closed
            .iter()
            .filter(|(_, c)| c.log_start_offset > c.first_base)
            .map(|(name, c)| entry(name, c.log_start_offset))
            .collect();
        write_atomic(&self.dir.join(n::RECOVERY_POINT_OFFSET_CHECKPOINT), &emit::offset_checkpoint(&recovery))?;
        write_atomic(&self.dir.join(n::REPLICATION_OFFSET_CHECKPOINT), &emit::offset_checkpoint(&hw))?;
        write_atomic(&self.dir.join(n::LOG_START_OFFSET_CHECKPOINT), &emit::offset_checkpoint(&starts))?;
        write_atomic(&self.dir.join(n::CLEANER_OFFSET_CHECKPOINT), b"")?;
        if clean {
            let epoch = epochs.get(&self.node_id).copied().unwrap_or(-1);
            write_atomic(&self.dir.join(n::CLEAN_SHUTDOWN), &emit::clean_shutdown(epoch))?;
        }
        Ok(closed)
    }
}

/// An end-transaction marker batch for `producer_id`/`producer_epoch`.
pub fn end_txn_batch(producer_id: i64, producer_epoch: i16, marker: &EndTxnMarker, time_ms: i64) -> BatchBuilder {
    let kind = if marker.commit { logfmt::spec::control::COMMIT } else { logfmt::spec::control::ABORT };
    let mut value = marker.version.to_be_bytes().to_vec();
    value.extend(marker.coordinator_epoch.to_be_bytes());
    let mut b = control_batch(kind, &value, time_ms);
    b.transactional = true;
    b.producer_id = producer_id;
    b.producer_epoch = producer_epoch;
    b
}

#[cfg(test)]
mod tests {
    use super::*;
    use logfmt::log::{Entry, Item, LogReader};

    /// (offset, attributes, epoch, producer id, records' key and value) of every batch.
    type Shape = Vec<(i64, i16, i32, i64, Vec<(Option<Vec<u8>>, Option<Vec<u8>>)>)>;

    fn shape(path: &Path) -> Shape {
        let limits = logfmt::Limits::default();
        let mut r = LogReader::open(path, limits).unwrap();
        let mut out = Vec::new();
        let mut scratch = Vec::new();
        while let Some(item) = r.next_item().unwrap() {
            let Item::Entry(Entry::V2(b)) = item else { panic!("{path:?}: not a v2 batch") };
            assert!(b.is_valid());
            let h = *b.header();
            let mut it = b.records(&mut scratch, &limits).unwrap();
            let mut records = Vec::new();
            while let Some(r) = it.next_record() {
                let r = r.unwrap();
                records.push((r.key.map(<[u8]>::to_vec), r.value.map(<[u8]>::to_vec)));
            }
            out.push((h.base_offset, h.attributes, h.partition_leader_epoch, h.producer_id, records));
        }
        out
    }

    fn real(path: &str) -> PathBuf {
        test_support::committed_fixtures().join(path)
    }

    /// The features the writer finalizes and registers for a 4.x release
    /// are the release table's (`logrules::release`, from the jars).
    #[test]
    fn features_are_the_release_tables() {
        for v in [Version::Kafka4_3, Version::Kafka4_4] {
            let row = v.release();
            let mut want: Vec<(&str, i16)> = vec![("metadata.version", row.latest_production_level)];
            let mut ranges: Vec<(&str, i16, i16)> =
                vec![("metadata.version", row.minimum_level, row.latest_production_level)];
            for (name, default, max) in row.features {
                if *name != "kraft.version" {
                    want.push((name, *default));
                }
                ranges.push((name, 0, *max));
            }
            let mut ours = feature_levels(v).to_vec();
            want.sort_unstable();
            ours.sort_unstable();
            assert_eq!(ours, want, "{}", v.name());
            let mut ours = supported_features(v).to_vec();
            ranges.sort_unstable();
            ours.sort_unstable();
            assert_eq!(ours, ranges, "{}", v.name());
        }
    }

    #[test]
    fn bootstrap_checkpoint_as_kafka_storage_format_writes_it() {
        let tmp = tempfile::tempdir().unwrap();
        let ours = tmp.path().join("bootstrap.checkpoint");
        std::fs::write(&ours, bootstrap_checkpoint(1_700_000_000_000, Version::Kafka3_9).unwrap()).unwrap();
        // the same batches and records; only the timestamps differ
        assert_eq!(shape(&ours), shape(&real("clean/logs/bootstrap.checkpoint")));
    }

    #[test]
    fn the_metadata_log_opens_with_kafkas_leader_change() {
        let ours = leader_change(0).unwrap().build();
        let tmp = tempfile::tempdir().unwrap();
        let path = tmp.path().join("00000000000000000000.log");
        std::fs::write(&path, ours).unwrap();
        let real = shape(&real("clean/logs/__cluster_metadata-0/00000000000000000000.log"));
        let ours = shape(&path);
        // a static quorum's leader change is a dynamic one's first record
        assert_eq!(ours[0].4[0], real[0].4[0]);
        assert_eq!(ours[0].1, real[0].1, "control batch attributes");
    }

    #[test]
    fn a_written_log_dir_reads_back() {
        let tmp = tempfile::tempdir().unwrap();
        let dir = tmp.path().join("logs");
        let node = Node { node_id: 1, directory_id: Uuid([3; 16]), incarnation_id: Uuid([4; 16]) };
        let topic = Topic {
            name: "t".into(),
            topic_id: Uuid([5; 16]),
            configs: [("segment.bytes".to_string(), "4096".to_string())].into(),
            partitions: vec![Placement { replicas: vec![1], isr: vec![1], leader: 1, leader_epoch: 0 }],
        };
        let mut w = LogDirWriter::create(&dir, 1).unwrap();
        let p = w.add_partition(&topic, 0, LogConfig { segment_bytes: 4096, ..LogConfig::default() }).unwrap();
        let mut b = BatchBuilder::new(0);
        b.push(&NewRecord { timestamp: 5, key: None, value: Some(b"v"), headers: &[] });
        p.append(&mut b, 5, None).unwrap();
        let cluster = Cluster {
            cluster_id: "bG9ndG9vbC1maXh0dXJlcw".into(),
            nodes: vec![node],
            controller_incarnation_id: Uuid([6; 16]),
            topics: vec![topic],
            next_producer_id: None,
            time_ms: 5,
            kafka_version: Version::Kafka3_9,
        };
        w.finish(&cluster, &Shutdown::clean()).unwrap();
        let ld = logfmt::partition::LogDir::read(&dir, &logfmt::Limits::default());
        let (v, _) = ld.topic_config("t", logfmt::metadata::SEGMENT_BYTES).unwrap();
        assert_eq!(v, "4096");
        assert_eq!(std::fs::read_to_string(dir.join("replication-offset-checkpoint")).unwrap(), "0\n1\nt 0 1\n");
        assert_eq!(std::fs::read_to_string(dir.join("log-start-offset-checkpoint")).unwrap(), "0\n0\n");
        // the broker's epoch is the offset of its registration
        let (_, epochs) = metadata_batches(&cluster, true);
        assert_eq!(
            std::fs::read_to_string(dir.join(".kafka_cleanshutdown")).unwrap(),
            format!("{{\"version\":0,\"brokerEpoch\":{}}}", epochs[&1])
        );
        assert!(LogDirWriter::create(&dir, 1).is_err(), "never into a non-empty dir");
    }
}
