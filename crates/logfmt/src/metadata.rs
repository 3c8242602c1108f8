//! Topic and broker configs from the KRaft metadata log.
//!
//! In KRaft mode every per-topic override (`index.interval.bytes`,
//! `segment.bytes`, `message.timestamp.type`, `cleanup.policy`,
//! `retention.*`, ...) and every dynamic broker config lives in the metadata
//! log `__cluster_metadata-0`, as `ConfigRecord`s (metadata record api key 4;
//! resource type 2 = topic, 4 = broker, where broker name "" is the
//! cluster-wide default). This module replays that log: the newest KRaft
//! snapshot (`<offset>-<epoch>.checkpoint`), then the log's batches from the
//! snapshot's end offset on.
//!
//! Each record value is decoded by `kmsg` from Kafka's own message
//! definitions (`MetadataRecordSerde` framing: frame version, api key,
//! version). Records this module does not need are skipped; a record that
//! does not decode is counted, never fatal.
//!
//! Values a broker takes from its `server.properties` (static configs) are not
//! in the metadata log; [`ClusterMetadata::topic_config`] says where a value
//! came from so callers can tell the user.

use std::collections::{BTreeMap, HashMap};
use std::path::{Path, PathBuf};

use kmsg::records::{
    BrokerRegistrationChangeRecord, ConfigRecord, FeatureLevelRecord, PartitionChangeRecord, PartitionRecord,
    ProducerIdsRecord, RegisterBrokerRecord, RegisterControllerRecord, RemoveTopicRecord, TopicRecord,
    ZkMigrationStateRecord,
};

use crate::error::Result;
use crate::limits::Limits;
use crate::log::{Entry, Item, LogReader};
use crate::logdir;
use crate::naming::{self, FileKind};
use crate::uuid::Uuid;

/// `ConfigResource.Type.TOPIC`.
pub const RESOURCE_TOPIC: i8 = 2;
/// `ConfigResource.Type.BROKER`.
pub const RESOURCE_BROKER: i8 = 4;

/// Where a cluster's metadata (topic ids, assignments, configs) was read:
/// what a config's source names.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum MetadataStore {
    /// The KRaft metadata log (`__cluster_metadata-0`).
    #[default]
    MetadataLog,
    /// ZooKeeper's data dir (`--zookeeper-data`: [`crate::zookeeper`]).
    ZooKeeper,
}

impl MetadataStore {
    /// Where a topic's configs live there.
    fn topic_place(self, topic: &str) -> String {
        match self {
            MetadataStore::MetadataLog => "__cluster_metadata".into(),
            MetadataStore::ZooKeeper => format!("ZooKeeper (/config/topics/{topic})"),
        }
    }

    /// Where broker `id`'s ("": the cluster-wide default) dynamic configs live there.
    fn broker_place(self, id: &str) -> String {
        match self {
            MetadataStore::MetadataLog => "__cluster_metadata".into(),
            MetadataStore::ZooKeeper => {
                format!("ZooKeeper (/config/brokers/{})", if id.is_empty() { "<default>" } else { id })
            }
        }
    }
}

/// Where a config value came from.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ConfigSource {
    /// A topic override, in the topic's store.
    Topic(String),
    /// A dynamic config of this broker (`kafka-configs --entity-type brokers
    /// --entity-name N`), and where it is stored.
    Broker(String, String),
    /// A dynamic cluster-wide broker default, and where it is stored.
    ClusterDefault(String),
    /// Kafka's built-in default; the broker-level config (`log.` prefixed)
    /// that a broker's `server.properties` may set instead, which no log dir
    /// holds.
    KafkaDefault(&'static str),
}

impl ConfigSource {
    /// Words for output.
    pub fn describe(&self) -> String {
        match self {
            ConfigSource::Topic(place) => format!("topic config in {place}"),
            ConfigSource::Broker(id, place) => format!("dynamic config of broker {id} in {place}"),
            ConfigSource::ClusterDefault(place) => format!("dynamic cluster-wide default in {place}"),
            ConfigSource::KafkaDefault("") => "Kafka's default".into(),
            ConfigSource::KafkaDefault(broker) => {
                format!("Kafka's default, unless the broker's server.properties sets {broker} (no log dir holds it)")
            }
        }
    }

    /// Whether the value is Kafka's built-in default, not one the cluster set.
    pub fn is_default(&self) -> bool {
        matches!(self, ConfigSource::KafkaDefault(_))
    }
}

/// The configs a replay of the metadata log ends with.
#[derive(Clone, Debug, Default)]
pub struct ClusterMetadata {
    /// Topic name to topic id.
    pub topics: BTreeMap<String, Uuid>,
    /// Topic id to partition count (the highest `PartitionRecord` id + 1).
    pub partition_counts: HashMap<Uuid, i32>,
    /// (resource type, resource name) to config name to value.
    pub configs: HashMap<(i8, String), BTreeMap<String, String>>,
    /// Topic id to partition id to where it lives and who leads it.
    pub partitions: HashMap<Uuid, BTreeMap<i32, PartitionState>>,
    /// The next producer id the controller hands out (`ProducerIdsRecord`).
    pub next_producer_id: Option<i64>,
    /// The `metadata.version` feature level (`FeatureLevelRecord`), from the
    /// log or its snapshot; `None` when neither holds one.
    pub metadata_version: Option<i16>,
    /// Every finalized feature's level (`FeatureLevelRecord`s: the last of
    /// each name), `metadata.version` included.
    pub feature_levels: BTreeMap<String, i16>,
    /// TopicRecords for a name that already had one with no RemoveTopicRecord
    /// between: (name, previous id, new id). A controller replaying them
    /// fails (`ReplicationControlManager.replay(TopicRecord)`).
    pub duplicate_topics: Vec<(String, Uuid, Uuid)>,
    /// Broker id to the directory ids of its log dirs, as its latest
    /// registration says (`RegisterBrokerRecord.LogDirs`, replaced by a
    /// `BrokerRegistrationChangeRecord` that names them): which node a log
    /// dir's `directory.id` belongs to.
    pub broker_log_dirs: BTreeMap<i32, Vec<Uuid>>,
    /// The KRaft voters and their directory ids, as the latest `VotersRecord`
    /// (a control record, kraft.version 1: a quorum formatted with
    /// `--standalone` or `--initial-controllers`) says; `None` for a static
    /// quorum (`controller.quorum.voters`, kraft.version 0), which names no
    /// directory.
    pub voters: Option<Vec<(i32, Uuid)>>,
    /// The files replayed.
    pub sources: Vec<PathBuf>,
    /// Records that did not decode (skipped).
    pub undecodable: u64,
    /// Where it was read.
    pub store: MetadataStore,
    /// The last `ZkMigrationStateRecord`'s state (KIP-866,
    /// `ZkMigrationState`: 0 none, 2 pre-migration, 1 migration, 3
    /// post-migration); `None` when the log holds none.
    pub zk_migration_state: Option<i8>,
    /// Brokers whose latest registration is a ZooKeeper-mode broker's in
    /// the migration (`RegisterBrokerRecord.isMigratingZkBroker`).
    pub migrating_zk_brokers: std::collections::BTreeSet<i32>,
    /// Controllers that registered (`RegisterControllerRecord`).
    pub controllers: std::collections::BTreeSet<i32>,
}

/// A partition's placement as the metadata image holds it
/// (`PartitionRegistration`).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct PartitionState {
    /// Replicas (node ids).
    pub replicas: Vec<i32>,
    /// The leader (-1: none).
    pub leader: i32,
    /// The leader epoch.
    pub leader_epoch: i32,
    /// The in-sync replicas.
    pub isr: Vec<i32>,
}

/// `PartitionChangeRecord.leader` when the leader does not change
/// (`LeaderConstants.NO_LEADER_CHANGE`).
const NO_LEADER_CHANGE: i32 = -2;

/// A topic config and its broker-wide counterpart, with Kafka's default.
#[derive(Clone, Copy, Debug)]
pub struct ConfigKey {
    /// The topic-level name.
    pub topic: &'static str,
    /// The broker-level name (`log.` prefixed).
    pub broker: &'static str,
    /// Kafka's built-in default.
    pub default: &'static str,
}

/// `index.interval.bytes` / `log.index.interval.bytes`, default 4096.
pub const INDEX_INTERVAL_BYTES: ConfigKey =
    ConfigKey { topic: "index.interval.bytes", broker: "log.index.interval.bytes", default: "4096" };
/// `segment.index.bytes` / `log.index.size.max.bytes`, default 10 MiB.
pub const SEGMENT_INDEX_BYTES: ConfigKey =
    ConfigKey { topic: "segment.index.bytes", broker: "log.index.size.max.bytes", default: "10485760" };
/// `segment.bytes` / `log.segment.bytes`, default 1 GiB.
pub const SEGMENT_BYTES: ConfigKey =
    ConfigKey { topic: "segment.bytes", broker: "log.segment.bytes", default: "1073741824" };
/// `segment.ms` / `log.roll.ms`, default 7 days.
pub const SEGMENT_MS: ConfigKey = ConfigKey { topic: "segment.ms", broker: "log.roll.ms", default: "604800000" };
/// `message.timestamp.type` / `log.message.timestamp.type`.
pub const MESSAGE_TIMESTAMP_TYPE: ConfigKey =
    ConfigKey { topic: "message.timestamp.type", broker: "log.message.timestamp.type", default: "CreateTime" };
/// `cleanup.policy` / `log.cleanup.policy`.
pub const CLEANUP_POLICY: ConfigKey =
    ConfigKey { topic: "cleanup.policy", broker: "log.cleanup.policy", default: "delete" };
/// `delete.retention.ms` / `log.cleaner.delete.retention.ms`, default 1 day.
pub const DELETE_RETENTION_MS: ConfigKey =
    ConfigKey { topic: "delete.retention.ms", broker: "log.cleaner.delete.retention.ms", default: "86400000" };
/// `min.compaction.lag.ms` / `log.cleaner.min.compaction.lag.ms`, default 0.
pub const MIN_COMPACTION_LAG_MS: ConfigKey =
    ConfigKey { topic: "min.compaction.lag.ms", broker: "log.cleaner.min.compaction.lag.ms", default: "0" };
/// `max.compaction.lag.ms` / `log.cleaner.max.compaction.lag.ms`, default unbounded.
pub const MAX_COMPACTION_LAG_MS: ConfigKey = ConfigKey {
    topic: "max.compaction.lag.ms",
    broker: "log.cleaner.max.compaction.lag.ms",
    default: "9223372036854775807",
};
/// `retention.ms` / `log.retention.ms`, default 7 days.
pub const RETENTION_MS: ConfigKey =
    ConfigKey { topic: "retention.ms", broker: "log.retention.ms", default: "604800000" };
/// `retention.bytes` / `log.retention.bytes`, default unlimited.
pub const RETENTION_BYTES: ConfigKey =
    ConfigKey { topic: "retention.bytes", broker: "log.retention.bytes", default: "-1" };
/// `remote.storage.enable` (tiered storage), default false; a topic config
/// only (no broker counterpart: the empty name is never set).
pub const REMOTE_STORAGE_ENABLE: ConfigKey = ConfigKey { topic: "remote.storage.enable", broker: "", default: "false" };
/// `remote.log.copy.disable` (tiered storage: uploads stopped), default
/// false; a topic config only.
pub const REMOTE_LOG_COPY_DISABLE: ConfigKey =
    ConfigKey { topic: "remote.log.copy.disable", broker: "", default: "false" };
/// `local.retention.ms` / `log.local.retention.ms` (tiered storage), default
/// -2: `retention.ms`'s value.
pub const LOCAL_RETENTION_MS: ConfigKey =
    ConfigKey { topic: "local.retention.ms", broker: "log.local.retention.ms", default: "-2" };
/// `local.retention.bytes` / `log.local.retention.bytes` (tiered storage),
/// default -2: `retention.bytes`'s value.
pub const LOCAL_RETENTION_BYTES: ConfigKey =
    ConfigKey { topic: "local.retention.bytes", broker: "log.local.retention.bytes", default: "-2" };

impl ClusterMetadata {
    /// The partition count of `topic`, if the metadata log holds it.
    pub fn partition_count(&self, topic: &str) -> Option<i32> {
        self.partition_counts.get(self.topics.get(topic)?).copied()
    }

    /// A config of `topic`: the topic override, else the broker's dynamic
    /// config (`node_id`), else the cluster-wide dynamic default, else
    /// Kafka's default: Kafka's precedence, without static broker configs.
    pub fn topic_config(&self, topic: &str, key: ConfigKey, node_id: Option<&str>) -> (String, ConfigSource) {
        let get = |t: i8, name: &str, k: &str| self.configs.get(&(t, name.to_string())).and_then(|c| c.get(k)).cloned();
        if let Some(v) = get(RESOURCE_TOPIC, topic, key.topic) {
            return (v, ConfigSource::Topic(self.store.topic_place(topic)));
        }
        if let Some(id) = node_id
            && let Some(v) = get(RESOURCE_BROKER, id, key.broker)
        {
            return (v, ConfigSource::Broker(id.to_string(), self.store.broker_place(id)));
        }
        if let Some(v) = get(RESOURCE_BROKER, "", key.broker) {
            return (v, ConfigSource::ClusterDefault(self.store.broker_place("")));
        }
        (key.default.to_string(), ConfigSource::KafkaDefault(key.broker))
    }

    /// The broker whose latest registration names the log dir `directory`.
    pub fn broker_of_dir(&self, directory: Uuid) -> Option<i32> {
        self.broker_log_dirs.iter().find(|(_, dirs)| dirs.contains(&directory)).map(|(id, _)| *id)
    }

    /// Apply one decoded metadata record (only what the configs and topic
    /// ids need).
    fn apply(&mut self, rec: &kmsg::metadata::MetadataRecord) {
        fn typed<M: kmsg::Message>(rec: &kmsg::metadata::MetadataRecord) -> Option<M> {
            rec.parse::<M>()?.ok()
        }
        if let Some(r) = typed::<TopicRecord>(rec) {
            if let Some(id) = Uuid::parse(&r.topic_id)
                && let Some(previous) = self.topics.insert(r.name.clone(), id)
            {
                self.duplicate_topics.push((r.name, previous, id));
            }
        } else if let Some(r) = typed::<RemoveTopicRecord>(rec) {
            let Some(id) = Uuid::parse(&r.topic_id) else { return };
            let names: Vec<String> = self.topics.iter().filter(|(_, v)| **v == id).map(|(k, _)| k.clone()).collect();
            self.partitions.remove(&id);
            for n in names {
                self.topics.remove(&n);
                self.configs.remove(&(RESOURCE_TOPIC, n));
            }
        } else if let Some(r) = typed::<PartitionRecord>(rec) {
            let Some(id) = Uuid::parse(&r.topic_id) else { return };
            let n = self.partition_counts.entry(id).or_insert(0);
            *n = (*n).max(r.partition_id.saturating_add(1));
            let state =
                PartitionState { replicas: r.replicas, leader: r.leader, leader_epoch: r.leader_epoch, isr: r.isr };
            self.partitions.entry(id).or_default().insert(r.partition_id, state);
        } else if let Some(r) = typed::<PartitionChangeRecord>(rec) {
            // PartitionRegistration.merge: a new leader is a new leader epoch
            let state = Uuid::parse(&r.topic_id).and_then(|id| self.partitions.get_mut(&id)?.get_mut(&r.partition_id));
            let Some(state) = state else { return };
            if let Some(replicas) = r.replicas {
                state.replicas = replicas;
            }
            if let Some(isr) = r.isr {
                state.isr = isr;
            }
            if r.leader != NO_LEADER_CHANGE {
                state.leader = r.leader;
                state.leader_epoch = state.leader_epoch.saturating_add(1);
            }
        } else if let Some(r) = typed::<FeatureLevelRecord>(rec) {
            if r.name == "metadata.version" {
                self.metadata_version = Some(r.feature_level);
            }
            self.feature_levels.insert(r.name, r.feature_level);
        } else if let Some(r) = typed::<RegisterBrokerRecord>(rec) {
            if r.is_migrating_zk_broker {
                self.migrating_zk_brokers.insert(r.broker_id);
            } else {
                self.migrating_zk_brokers.remove(&r.broker_id);
            }
            self.broker_log_dirs.insert(r.broker_id, r.log_dirs.iter().filter_map(|d| Uuid::parse(d)).collect());
        } else if let Some(r) = typed::<RegisterControllerRecord>(rec) {
            self.controllers.insert(r.controller_id);
        } else if let Some(r) = typed::<ZkMigrationStateRecord>(rec) {
            self.zk_migration_state = Some(r.zk_migration_state);
        } else if let Some(r) = typed::<BrokerRegistrationChangeRecord>(rec) {
            if !r.log_dirs.is_empty() {
                self.broker_log_dirs.insert(r.broker_id, r.log_dirs.iter().filter_map(|d| Uuid::parse(d)).collect());
            }
        } else if let Some(r) = typed::<ProducerIdsRecord>(rec) {
            self.next_producer_id = Some(r.next_producer_id);
        } else if let Some(r) = typed::<ConfigRecord>(rec) {
            let configs = self.configs.entry((r.resource_type, r.resource_name)).or_default();
            match r.value {
                Some(v) => {
                    configs.insert(r.name, v);
                }
                None => {
                    configs.remove(&r.name);
                }
            }
        }
    }

    /// Apply the data records of one batch.
    fn batch(&mut self, b: &crate::batch::RecordBatch<'_>, scratch: &mut Vec<u8>, limits: &Limits) {
        if b.header().is_control() {
            self.control_batch(b, scratch, limits);
            return;
        }
        let Ok(mut records) = b.records(scratch, limits) else {
            self.undecodable = self.undecodable.saturating_add(1);
            return;
        };
        while let Some(rec) = records.next_record() {
            let Ok(rec) = rec else {
                self.undecodable = self.undecodable.saturating_add(1);
                break;
            };
            let Some(value) = rec.value else { continue };
            match kmsg::metadata::decode(value) {
                Ok(r) => self.apply(&r),
                Err(_) => self.undecodable = self.undecodable.saturating_add(1),
            }
        }
    }
}

impl ClusterMetadata {
    /// Take the voters of a control batch's `VotersRecord`s.
    fn control_batch(&mut self, b: &crate::batch::RecordBatch<'_>, scratch: &mut Vec<u8>, limits: &Limits) {
        let Ok(mut records) = b.records(scratch, limits) else { return };
        while let Some(Ok(rec)) = records.next_record() {
            if let Ok(crate::control::ControlRecord::KRaftVoters(v)) = crate::control::parse(&rec, 0) {
                self.voters = Some(v.voters.iter().map(|x| (x.voter_id, Uuid(x.voter_directory_id))).collect());
            }
        }
    }
}

/// Replay the metadata log directory `dir` (`__cluster_metadata-0`).
pub fn read_metadata_dir(dir: &Path, limits: &Limits) -> Result<ClusterMetadata> {
    let files = logdir::partition_files(dir)?;
    let mut meta = ClusterMetadata::default();
    let mut scratch = Vec::new();
    // the newest snapshot, then the log from its end offset
    let snapshot = files
        .iter()
        .filter_map(|f| {
            let n = naming::classify(&f.file_name()?.to_string_lossy());
            (n.kind == FileKind::KraftSnapshot && n.suffix.is_none()).then_some((n.offset?, f))
        })
        .max_by_key(|(o, _)| *o);
    let mut from = 0i64;
    if let Some((end, path)) = snapshot {
        replay(path, i64::MIN, &mut meta, &mut scratch, limits)?;
        from = end;
    }
    for f in &files {
        let n = naming::classify(&f.file_name().map(|s| s.to_string_lossy().into_owned()).unwrap_or_default());
        if n.kind == FileKind::Log && n.suffix.is_none() {
            replay(f, from, &mut meta, &mut scratch, limits)?;
        }
    }
    Ok(meta)
}

fn replay(path: &Path, from: i64, meta: &mut ClusterMetadata, scratch: &mut Vec<u8>, limits: &Limits) -> Result<()> {
    let mut r = LogReader::open(path, *limits)?;
    while let Some(item) = r.next_item()? {
        if let Item::Entry(Entry::V2(b)) = item
            && b.header().last_offset() >= from
            && b.is_valid()
        {
            meta.batch(&b, scratch, limits);
        }
    }
    meta.sources.push(path.to_path_buf());
    Ok(())
}

/// The metadata of the log dir `log_dir` (its `__cluster_metadata-0`), if it
/// holds one.
pub fn read_log_dir_metadata(log_dir: &Path, limits: &Limits) -> Result<Option<ClusterMetadata>> {
    let dir = log_dir.join(format!("{}-0", crate::spec::names::CLUSTER_METADATA_TOPIC));
    if !dir.is_dir() {
        return Ok(None);
    }
    read_metadata_dir(&dir, limits).map(Some)
}

/// The metadata at `path`: a `__cluster_metadata-0` directory, or a log dir
/// holding one (Kafka's `metadata.log.dir` may differ from `log.dirs`).
pub fn read_metadata_at(path: &Path, limits: &Limits) -> Result<Option<ClusterMetadata>> {
    let name = path.file_name().map(|s| s.to_string_lossy().into_owned()).unwrap_or_default();
    if name.starts_with(&format!("{}-", crate::spec::names::CLUSTER_METADATA_TOPIC)) {
        return read_metadata_dir(path, limits).map(Some);
    }
    read_log_dir_metadata(path, limits)
}

/// This log dir's node id, from `meta.properties` (`node.id`, or `broker.id`).
pub fn node_id(log_dir: &Path, limits: &Limits) -> Option<String> {
    node_id_with(log_dir, None, limits)
}

/// The node that runs on this log dir: the broker `meta` (its metadata
/// log) registered the dir's `directory.id` for, else `meta.properties`'
/// `node.id` (or `broker.id`). The two differ only when `meta.properties`
/// was changed, and Kafka then starts only as the registered node
/// (`rules::start::node_id_refusal`).
pub fn node_id_with(log_dir: &Path, meta: Option<&ClusterMetadata>, limits: &Limits) -> Option<String> {
    let props =
        crate::properties::read_meta_properties(&log_dir.join(crate::spec::names::META_PROPERTIES), limits).ok()?;
    let registered = props
        .iter()
        .find(|(k, _)| k == "directory.id")
        .and_then(|(_, v)| Uuid::parse(v))
        .and_then(|d| meta?.broker_of_dir(d));
    match registered {
        Some(id) => Some(id.to_string()),
        None => props.into_iter().find(|(k, _)| k == "node.id" || k == "broker.id").map(|(_, v)| v),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    use test_support::committed_fixtures as fixtures;

    /// Every CONFIG_RECORD and TOPIC_RECORD Kafka's own decoder printed for the
    /// clean fixture's metadata log ends up in the replayed state.
    #[test]
    fn replay_agrees_with_kafkas_cluster_metadata_decoder() {
        let logs = fixtures().join("clean/logs");
        let meta = read_log_dir_metadata(&logs, &Limits::default()).unwrap().unwrap();
        assert_eq!(meta.undecodable, 0);
        let dump = fixtures().join("clean/dump-decoded/__cluster_metadata-0/00000000000000000000.log.txt");
        let text = std::fs::read_to_string(dump).unwrap();
        let mut expected: HashMap<(i8, String), BTreeMap<String, String>> = HashMap::new();
        let mut topics = BTreeMap::new();
        for line in text.lines() {
            let Some(json) = line.split_once("payload: ").map(|(_, j)| j) else { continue };
            let field = |k: &str| {
                let at = json.find(&format!("\"{k}\":"))? + k.len() + 3;
                let rest = &json[at..];
                if let Some(s) = rest.strip_prefix('"') {
                    Some(s[..s.find('"')?].to_string())
                } else {
                    Some(rest[..rest.find([',', '}'])?].to_string())
                }
            };
            if json.contains("\"type\":\"CONFIG_RECORD\"") {
                let key = (field("resourceType").unwrap().parse().unwrap(), field("resourceName").unwrap());
                expected.entry(key).or_default().insert(field("name").unwrap(), field("value").unwrap());
            } else if json.contains("\"type\":\"TOPIC_RECORD\"") {
                topics.insert(field("name").unwrap(), field("topicId").unwrap());
            }
        }
        assert!(!expected.is_empty());
        assert_eq!(meta.configs, expected);
        let ours: BTreeMap<String, String> = meta.topics.iter().map(|(k, v)| (k.clone(), v.to_string())).collect();
        assert_eq!(ours, topics);
        let (v, src) = meta.topic_config("plain", INDEX_INTERVAL_BYTES, Some("1"));
        assert_eq!((v.as_str(), src), ("1024", ConfigSource::Topic("__cluster_metadata".into())));
        let (v, src) = meta.topic_config("log-append", INDEX_INTERVAL_BYTES, Some("1"));
        assert_eq!((v.as_str(), src), ("4096", ConfigSource::KafkaDefault("log.index.interval.bytes")));
        assert_eq!(node_id(&logs, &Limits::default()).as_deref(), Some("1"));
    }

    /// The clean fixture's quorum was formatted `--standalone` (a
    /// `VotersRecord` in its bootstrap snapshot, as Kafka's decoder printed
    /// it); the 4.x fixture's is static (no voters record).
    #[test]
    fn voters_are_the_voters_record_of_a_dynamic_quorum() {
        let logs = fixtures().join("clean/logs");
        let meta = read_log_dir_metadata(&logs, &Limits::default()).unwrap().unwrap();
        let voters: Vec<(i32, String)> =
            meta.voters.unwrap().into_iter().map(|(id, dir)| (id, dir.to_string())).collect();
        assert_eq!(voters, vec![(1, "8E8H0kAURQWgcR_6cU-7pw".to_string())]);
        let logs = test_support::fixtures_4x()[0].join("kafka4/logs");
        let meta = read_log_dir_metadata(&logs, &Limits::default()).unwrap().unwrap();
        assert_eq!(meta.voters, None);
    }
}
