//! The broker's data. [`Store`] is the log dir: topics, their partitions
//! (each a [`PartitionWriter`] appending in place), producer ids, the
//! cluster's metadata and the broker's configs, and the log dir's
//! shutdown; its fields are its own. [`State`] is what the broker holds:
//! the store and the coordinators' state ([`Groups`], [`Shares`],
//! [`Txns`]), loaded from the internal topics at the start and changed only
//! by replaying what was written through the store. One node, the only
//! replica of every partition: the high watermark is the log end after
//! every append.
//!
//! Invariants: a topic and its partition dirs exist together (created
//! under the store's lock); every append goes through the writer, which
//! keeps the indexes, producer state and epoch cache as Kafka does; the
//! metadata log is appended to before each change is made on disk, and
//! the controlled shutdown and the checkpoints are written at
//! [`Store::shutdown`] by [`LogDirWriter::finish`], so a log dir this broker
//! stopped, or that was killed, is one Kafka 3.9 starts on; [`Store::open`]
//! serves again a dir this broker or a single-node Kafka left.

use std::collections::BTreeMap;
use std::io::Read;
use std::path::{Path, PathBuf};

use kmsg::records::{PartitionChangeRecord, RemoveTopicRecord};
use logfmt::batch::Framing;
use logfmt::uuid::Uuid;
use logrules::config::{self as config_rules, Version};
use logrules::producer::AppendCheck;
use logwrite::write::logdir::{self, Cluster, LogDirWriter, Node, Placement, Shutdown, Topic};
use logwrite::write::partition::LogConfig;

use crate::BrokerError;
use crate::error::ApiError;

/// Producer ids the controller hands a broker at a time
/// (`ProducerIdManager`: blocks of 1000).
const PRODUCER_ID_BLOCK: i64 = 1000;

/// The group coordinator's topic.
pub const OFFSETS_TOPIC: &str = "__consumer_offsets";

/// The transaction coordinator's topic.
pub const TRANSACTION_TOPIC: &str = "__transaction_state";

/// The share coordinator's topic (KIP-932).
pub const SHARE_STATE_TOPIC: &str = "__share_group_state";

/// `share.coordinator.state.topic.num.partitions` (Kafka's default).
pub const SHARE_STATE_PARTITIONS: i32 = 50;

/// Kafka's default `transaction.state.log.num.partitions`.
pub const TRANSACTION_PARTITIONS: i32 = logrules::config::TRANSACTION_STATE_PARTITIONS;

/// A topic as the broker holds it.
pub struct TopicState {
    /// Its metadata (id, configs, placements).
    pub topic: Topic,
    /// The configs its partitions obey.
    pub config: LogConfig,
}

/// Where an append went, or why it did not.
pub enum AppendResult {
    /// Appended (or a duplicate of an earlier append) at this base offset.
    Appended { base_offset: i64 },
    /// A Kafka error code and message.
    Error(ApiError),
}

/// What a fetch of one partition reads.
pub struct ReadPlan {
    /// The segment to read.
    pub log: PathBuf,
    /// From this byte.
    pub position: u64,
    /// Up to this byte (the segment's size when planned).
    pub end: u64,
}

/// The log dir the broker serves (see the module docs): its topics and
/// partitions, the cluster's metadata, the broker's configs. What the
/// coordinators hold is [`State`]'s.
pub struct Store {
    node_id: i32,
    cluster_id: String,
    directory_id: Uuid,
    incarnation_id: Uuid,
    controller_incarnation_id: Uuid,
    writer: LogDirWriter,
    topics: BTreeMap<String, TopicState>,
    next_producer_id: i64,
    /// The dynamic configs set on each group (`ConfigRecord`s of resource
    /// type GROUP in the metadata log; `coordinator::group_config`): see
    /// [`Store::group_config`].
    group_configs: BTreeMap<String, BTreeMap<String, String>>,
    /// What a Kafka broker would hold in its server.properties to run as
    /// this one does (DescribeConfigs of the broker: STATIC_BROKER_CONFIG;
    /// the `group.*` defaults a group's configs fall back to): see
    /// [`Store::set_broker_configs`].
    broker_configs: BTreeMap<String, String>,
    /// `offsets.topic.num.partitions`.
    offsets_partitions: i32,
    /// `transaction.state.log.num.partitions`.
    transaction_partitions: i32,
    /// The Kafka release the cluster is (its `metadata.version`): 3.9, or
    /// 4.x with `transaction.version`, `group.version`... finalized.
    kafka_version: Version,
    /// Every finalized feature and its level, as ApiVersions tells them.
    features: Vec<(String, i16)>,
    /// A produce failed to write (a full disk) and none has succeeded since:
    /// said once in the log, and again when writes succeed.
    storage_failing: bool,
}

/// What the broker holds: the log dir ([`Store`]) and what the coordinators
/// hold, loaded from it and kept as they write (`coordinator` decides;
/// the API modules write the records through the store, then replay them
/// here). Derefs to the store.
pub struct State {
    /// The log dir.
    pub store: Store,
    /// The group coordinators' state.
    pub groups: Groups,
    /// The share coordinator's and the share partitions' state.
    pub shares: Shares,
    /// The transaction coordinator's state.
    pub txns: Txns,
}

/// What the group coordinators hold (`consumer_api`, `group_api`).
#[derive(Default)]
pub struct Groups {
    /// The classic groups, by id (and the committed offsets of every group).
    pub classic: BTreeMap<String, coordinator::classic::Group>,
    /// The KIP-848 consumer groups and the share groups, as the coordinator
    /// replays what it wrote (`rules::groups`).
    pub consumer: logrules::groups::Groups,
    /// When each consumer group member's session ends, and its rebalance
    /// timeout while it revokes partitions, by (group, member).
    pub consumer_timers: ConsumerTimers,
}

/// What the share coordinator and the share partitions hold (`share_api`).
#[derive(Default)]
pub struct Shares {
    /// When each share group member's session ends, by (group, member).
    pub timers: BTreeMap<(String, String), std::time::Instant>,
    /// What the share coordinator holds (`__share_group_state` replayed).
    pub states: logrules::groups::ShareStates,
    /// The share partitions read so far (`SharePartitionManager`'s cache),
    /// by (group, topic id, partition).
    pub partitions: BTreeMap<logrules::groups::SharePartitionKey, coordinator::share_partition::SharePartition>,
    /// The share sessions (`ShareSessionCache`), by (group, member).
    pub sessions: BTreeMap<(String, String), coordinator::share_partition::ShareSession>,
}

/// What the transaction coordinator holds (`txn_api`).
#[derive(Default)]
pub struct Txns {
    /// The transactional ids' transactions.
    pub ids: BTreeMap<String, coordinator::transaction::Txn>,
    /// Offsets committed in open transactions, by producer id: (group,
    /// topic, partition, offset), made visible by its COMMIT marker
    /// (`GroupMetadata.pendingTransactionalOffsetCommits`).
    pub pending_offsets: BTreeMap<i64, Vec<(String, String, i32, coordinator::classic::Committed)>>,
}

impl std::ops::Deref for State {
    type Target = Store;
    fn deref(&self) -> &Store {
        &self.store
    }
}

impl std::ops::DerefMut for State {
    fn deref_mut(&mut self) -> &mut Store {
        &mut self.store
    }
}

impl State {
    /// A new log dir (see [`Store::create`]), no coordinator state yet.
    pub fn create(
        dir: &Path,
        node_id: i32,
        offsets_partitions: i32,
        kafka_version: Version,
    ) -> Result<State, BrokerError> {
        Ok(State::of(Store::create(dir, node_id, offsets_partitions, kafka_version)?))
    }

    /// A log dir served again (see [`Store::open`]), with what the
    /// coordinators wrote loaded: the groups and their committed offsets
    /// from `__consumer_offsets` (`rules::groups`, members dropped: they
    /// rejoin), the share coordinator's state from `__share_group_state`,
    /// the transactional ids from `__transaction_state`.
    pub fn open(dir: &Path, node_id: i32, offsets_partitions: i32) -> Result<State, BrokerError> {
        let store = Store::open(dir, node_id, offsets_partitions)?;
        let limits = store.limits();
        let topics = store.topics();
        let (groups, consumer) = load_groups(dir, topics.get(OFFSETS_TOPIC), &limits)?;
        let share = match topics.get(SHARE_STATE_TOPIC) {
            Some(t) => logrules::groups::ShareStates::load(&open_partitions(dir, t, &limits)?, &limits, &mut |_| {})?,
            None => logrules::groups::ShareStates::default(),
        };
        let txns = load_txns(dir, topics.get(TRANSACTION_TOPIC), &limits)?;
        Ok(State {
            groups: Groups { classic: groups, consumer, ..Groups::default() },
            shares: Shares { states: share, ..Shares::default() },
            txns: Txns { ids: txns, ..Txns::default() },
            ..State::of(store)
        })
    }

    /// `store` with no coordinator state.
    fn of(store: Store) -> State {
        // (the members' sessions: `set_broker_configs`, before serving)
        State { store, groups: Groups::default(), shares: Shares::default(), txns: Txns::default() }
    }

    /// The broker's configs (as its server.properties would hold them),
    /// set once before it serves: the sessions of the members loaded start
    /// now, each for its group's session timeout under them (`onLoaded`).
    pub fn set_broker_configs(&mut self, configs: BTreeMap<String, String>) {
        self.store.broker_configs = configs;
        (self.groups.consumer_timers, self.shares.timers) =
            sessions_of(&self.groups.consumer, &self.store.group_configs, &self.store.broker_configs);
    }

    /// Write a COMMIT or ABORT marker ([`Store::write_marker`]); on a
    /// `__consumer_offsets` partition the producer's pending offsets become
    /// committed, or are dropped.
    pub fn write_marker(
        &mut self,
        topic: &str,
        partition: i32,
        producer_id: i64,
        producer_epoch: i16,
        commit: bool,
        coordinator_epoch: i32,
    ) -> Result<(), ApiError> {
        self.store.write_marker(topic, partition, producer_id, producer_epoch, commit, coordinator_epoch)?;
        if topic == OFFSETS_TOPIC
            && let Some(pending) = self.txns.pending_offsets.get_mut(&producer_id)
        {
            let offsets_partitions = self.store.offsets_partitions;
            let (here, rest): (Vec<_>, Vec<_>) = pending.drain(..).partition(|(group, ..)| {
                logrules::internal::partition_for_group(group, offsets_partitions) == partition
            });
            *pending = rest;
            if pending.is_empty() {
                self.txns.pending_offsets.remove(&producer_id);
            }
            if commit {
                for (group, t, p, c) in here {
                    self.groups
                        .classic
                        .entry(group.clone())
                        .or_insert_with(|| coordinator::classic::Group::new(&group))
                        .offsets
                        .insert((t, p), c);
                }
            }
        }
        Ok(())
    }

    /// Append offset commits made in a transaction
    /// ([`Store::append_txn_offsets`]); they stay pending until the
    /// producer's marker.
    pub fn append_txn_offsets(
        &mut self,
        group: &str,
        producer_id: i64,
        producer_epoch: i16,
        offsets: Vec<(String, i32, coordinator::classic::Committed)>,
    ) -> Result<(), ApiError> {
        self.store.append_txn_offsets(group, producer_id, producer_epoch, &offsets)?;
        let pending = self.txns.pending_offsets.entry(producer_id).or_default();
        for (t, p, c) in offsets {
            pending.retain(|(g, pt, pp, _)| !(g == group && *pt == t && *pp == p));
            pending.push((group.to_string(), t, p, c));
        }
        Ok(())
    }
}

/// When each consumer group member's session ends, and its rebalance
/// timeout while it revokes partitions, by (group, member).
pub type ConsumerTimers = BTreeMap<(String, String), (std::time::Instant, Option<std::time::Instant>)>;

/// The feature transaction version 2 is (`TransactionVersion.FEATURE_NAME`).
const TXN_VERSION: &str = "transaction.version";

/// Finalized features in name order, as ApiVersions lists them.
fn finalized(levels: impl IntoIterator<Item = (String, i16)>) -> Vec<(String, i16)> {
    let mut v: Vec<(String, i16)> = levels.into_iter().collect();
    v.sort();
    v
}

/// 16 random bytes from the system.
pub fn random_uuid() -> Uuid {
    let mut b = [0u8; 16];
    if let Ok(mut f) = std::fs::File::open("/dev/urandom") {
        let _ = f.read_exact(&mut b);
    }
    if b == [0; 16] {
        let t = now_ms().to_be_bytes();
        b[..8].copy_from_slice(&t);
        b[8..12].copy_from_slice(&std::process::id().to_be_bytes());
    }
    Uuid(b)
}

/// The wall clock in ms.
pub fn now_ms() -> i64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| i64::try_from(d.as_millis()).unwrap_or(i64::MAX))
}

impl Store {
    /// A new log dir at `dir` (which must not exist, or be empty).
    /// It is a cluster of `kafka_version`: 3.9, or 4.3 with the features a
    /// fresh Kafka 4.3.1 cluster finalizes (transaction version 2...).
    pub fn create(
        dir: &Path,
        node_id: i32,
        offsets_partitions: i32,
        kafka_version: Version,
    ) -> Result<Store, BrokerError> {
        let (cluster_id, directory_id, incarnation_id, controller_incarnation_id) =
            (random_uuid().to_string(), random_uuid(), random_uuid(), random_uuid());
        let cluster = Cluster {
            cluster_id: cluster_id.clone(),
            nodes: vec![Node { node_id, directory_id, incarnation_id }],
            controller_incarnation_id,
            topics: Vec::new(),
            next_producer_id: None,
            time_ms: now_ms(),
            kafka_version,
        };
        // the metadata log is kept as a controller keeps it: a SIGKILL
        // leaves a dir Kafka starts on and recovers
        let writer = LogDirWriter::create_live(dir, node_id, &cluster)?;
        Ok(Store {
            node_id,
            cluster_id,
            directory_id,
            incarnation_id,
            controller_incarnation_id,
            writer,
            topics: BTreeMap::new(),
            next_producer_id: 0,
            group_configs: BTreeMap::new(),
            broker_configs: BTreeMap::new(),
            offsets_partitions,
            storage_failing: false,
            transaction_partitions: TRANSACTION_PARTITIONS,
            kafka_version,
            features: finalized(logdir::feature_levels(kafka_version).iter().map(|(n, l)| ((*n).to_string(), *l))),
        })
    }

    /// A log dir this broker (stopped or killed) or a single-node Kafka
    /// 3.9 left, served again (`run` has recovered it first if it was not
    /// shut down cleanly, and holds its lock): the topics, their configs
    /// and leader epochs from its metadata log; the node registers anew and
    /// leads every partition (a new leader epoch where the controlled
    /// shutdown left none); each partition reopened where it ends; the
    /// groups and their committed offsets loaded from `__consumer_offsets`
    /// (`rules::groups`, members dropped: they rejoin); producer ids from
    /// the last block the controller handed out.
    pub fn open(dir: &Path, node_id: i32, offsets_partitions: i32) -> Result<Store, BrokerError> {
        use logfmt::spec::names as n;
        let limits = logfmt::Limits::default();
        let props = logfmt::properties::read_meta_properties(&dir.join(n::META_PROPERTIES), &limits)?;
        let prop = |k: &str| props.iter().find(|(key, _)| key == k).map(|(_, v)| v.clone());
        let refused = |why: String| BrokerError::Refused(format!("{}: {why}", dir.display()));
        if prop("node.id") != Some(node_id.to_string()) {
            return Err(refused(format!(
                "meta.properties names node {}; logtool broker is node {node_id}",
                prop("node.id").unwrap_or_else(|| "(none)".into())
            )));
        }
        let cluster_id = prop("cluster.id").ok_or_else(|| refused("meta.properties has no cluster.id".into()))?;
        let directory_id = prop("directory.id").and_then(|d| Uuid::parse(&d)).unwrap_or_else(random_uuid);
        let meta = logfmt::metadata::read_log_dir_metadata(dir, &limits)?
            .ok_or_else(|| refused("no __cluster_metadata-0: not a KRaft log dir".into()))?;
        if let Some(other) =
            meta.partitions.values().flat_map(|p| p.values()).flat_map(|p| &p.replicas).find(|r| **r != node_id)
        {
            return Err(refused(format!(
                "a partition has a replica on node {other}: logtool broker serves a single node's log dir"
            )));
        }
        let (incarnation_id, controller_incarnation_id) = (random_uuid(), random_uuid());
        let node = Node { node_id, directory_id, incarnation_id };
        let kafka_version = served_version(&meta).map_err(refused)?;
        let mut writer = LogDirWriter::open_live(dir, &node, controller_incarnation_id, now_ms(), kafka_version)?;
        let mut topics = BTreeMap::new();
        let mut elections: logdir::MetadataBatch = Vec::new();
        for (name, id) in &meta.topics {
            let configs =
                meta.configs.get(&(logfmt::metadata::RESOURCE_TOPIC, name.clone())).cloned().unwrap_or_default();
            let config =
                LogConfig::from_topic(|k| configs.get(k).cloned()).map_err(|e| refused(format!("{name}: {e}")))?;
            let mut partitions = Vec::new();
            for (p, st) in meta.partitions.get(id).into_iter().flatten() {
                if usize::try_from(*p).ok() != Some(partitions.len()) {
                    return Err(refused(format!("{name}: partition {p} follows {} partitions", partitions.len())));
                }
                let mut leader_epoch = st.leader_epoch;
                if st.leader != node_id {
                    // the broker is unfenced: the controller elects it
                    // (PartitionChangeRecord with a leader: a new epoch)
                    let change = PartitionChangeRecord {
                        partition_id: *p,
                        topic_id: id.to_string(),
                        leader: node_id,
                        ..Default::default()
                    };
                    elections.push(kmsg::metadata::entry(1, &change));
                    leader_epoch = leader_epoch.saturating_add(1);
                }
                partitions.push(Placement {
                    replicas: vec![node_id],
                    isr: vec![node_id],
                    leader: node_id,
                    leader_epoch,
                });
            }
            let topic = Topic { name: name.clone(), topic_id: *id, configs, partitions };
            topics.insert(name.clone(), TopicState { topic, config });
        }
        if !elections.is_empty() {
            writer.append_metadata(&elections, now_ms())?;
        }
        for t in topics.values() {
            for (p, placement) in t.topic.partitions.iter().enumerate() {
                let p = i32::try_from(p).unwrap_or(i32::MAX);
                let w = if dir.join(logdir::partition_dir_name(&t.topic.name, p)).is_dir() {
                    writer.open_partition(&t.topic, p, t.config)?
                } else {
                    writer.add_partition(&t.topic, p, t.config)?
                };
                if placement.leader_epoch > w.leader_epoch() {
                    w.become_leader(placement.leader_epoch)?;
                }
            }
        }
        let offsets_partitions = topics
            .get(OFFSETS_TOPIC)
            .map_or(offsets_partitions, |t| i32::try_from(t.topic.partitions.len()).unwrap_or(offsets_partitions));
        let transaction_partitions = topics.get(TRANSACTION_TOPIC).map_or(TRANSACTION_PARTITIONS, |t| {
            i32::try_from(t.topic.partitions.len()).unwrap_or(TRANSACTION_PARTITIONS)
        });
        Ok(Store {
            node_id,
            cluster_id,
            directory_id,
            incarnation_id,
            controller_incarnation_id,
            writer,
            topics,
            next_producer_id: meta.next_producer_id.unwrap_or(0).max(0),
            group_configs: meta
                .configs
                .iter()
                .filter(|((t, _), c)| *t == coordinator::group_config::RESOURCE_GROUP && !c.is_empty())
                .map(|((_, name), c)| (name.clone(), c.clone()))
                .collect(),
            broker_configs: BTreeMap::new(),
            offsets_partitions,
            storage_failing: false,
            kafka_version,
            features: finalized(meta.feature_levels.clone()),
            transaction_partitions,
        })
    }

    /// The cluster as it stands.
    fn cluster(&self) -> Cluster {
        Cluster {
            cluster_id: self.cluster_id.clone(),
            nodes: vec![Node {
                node_id: self.node_id,
                directory_id: self.directory_id,
                incarnation_id: self.incarnation_id,
            }],
            controller_incarnation_id: self.controller_incarnation_id,
            topics: self.topics.values().map(|t| t.topic.clone()).collect(),
            next_producer_id: None,
            time_ms: now_ms(),
            kafka_version: self.kafka_version,
        }
    }

    /// Append metadata records (a controller's commit) before the change
    /// they describe is made on disk.
    fn commit_metadata(&mut self, batch: &logdir::MetadataBatch) -> Result<(), ApiError> {
        self.writer
            .append_metadata(batch, now_ms())
            .map_err(|e| ApiError::new(kafka_protocol::ResponseError::KafkaStorageError, e.to_string()))
    }

    /// The broker's configs (as its server.properties would hold them).
    pub fn broker_configs(&self) -> &BTreeMap<String, String> {
        &self.broker_configs
    }

    /// The Kafka release the cluster is.
    pub fn kafka_version(&self) -> Version {
        self.kafka_version
    }

    /// Every finalized feature and its level, as ApiVersions tells them.
    pub fn features(&self) -> &[(String, i16)] {
        &self.features
    }

    /// The limits the store reads its files with.
    fn limits(&self) -> logfmt::Limits {
        logfmt::Limits::default()
    }

    /// `transaction.state.log.num.partitions` for `__transaction_state`
    /// when it is made (an existing one keeps its count).
    pub fn set_transaction_partitions(&mut self, n: i32) {
        if !self.topics.contains_key(TRANSACTION_TOPIC) {
            self.transaction_partitions = n.max(1);
        }
    }

    /// The cluster id.
    pub fn cluster_id(&self) -> &str {
        &self.cluster_id
    }

    /// This node's id.
    pub fn node_id(&self) -> i32 {
        self.node_id
    }

    /// The topics.
    pub fn topics(&self) -> &BTreeMap<String, TopicState> {
        &self.topics
    }

    /// Create a topic of `partitions` partitions with `configs`, checked as
    /// Kafka's controller checks them (`ReplicationControlManager.createTopics`:
    /// the name, a collision with an existing topic's, then the configs,
    /// `rules::config`); `validate_only` checks and creates nothing.
    /// Returns the new topic's id.
    pub fn create_topic(
        &mut self,
        name: &str,
        partitions: i32,
        configs: BTreeMap<String, String>,
        validate_only: bool,
    ) -> Result<Uuid, ApiError> {
        use kafka_protocol::ResponseError as E;
        config_rules::validate_topic_name(name).map_err(|m| ApiError::new(E::InvalidTopicException, m))?;
        if name == OFFSETS_TOPIC || name == TRANSACTION_TOPIC || name == SHARE_STATE_TOPIC {
            return Err(ApiError::new(E::InvalidRequest, format!("Creation of internal topic {name} is prohibited.")));
        }
        if let Some(other) = config_rules::colliding_topic(name, self.topics.keys().map(String::as_str)) {
            return Err(ApiError::new(
                E::InvalidTopicException,
                format!("Topic '{name}' collides with existing topic: {other}"),
            ));
        }
        self.create_topic_unchecked(name, partitions, configs, validate_only)
    }

    /// All or nothing: after the checks, every partition dir is made, then
    /// the topic is recorded in the metadata log; when either fails, the
    /// dirs made are removed (their handles closed) and nothing is recorded,
    /// so a retry or the next start finds the log dir as it was. A partition
    /// dir of the new topic's name that is there already and not empty is
    /// refused before anything is made (`KAFKA_STORAGE_ERROR`).
    fn create_topic_unchecked(
        &mut self,
        name: &str,
        partitions: i32,
        configs: BTreeMap<String, String>,
        validate_only: bool,
    ) -> Result<Uuid, ApiError> {
        use kafka_protocol::ResponseError as E;
        if self.topics.contains_key(name) {
            return Err(ApiError::new(E::TopicAlreadyExists, format!("Topic '{name}' already exists.")));
        }
        config_rules::validate(&configs, self.kafka_version).map_err(|e| ApiError::new(E::InvalidConfig, e.message))?;
        if partitions <= 0 {
            return Err(ApiError::new(
                E::InvalidPartitions,
                "Number of partitions was set to an invalid non-positive value.",
            ));
        }
        let config =
            LogConfig::from_topic(|k| configs.get(k).cloned()).map_err(|m| ApiError::new(E::InvalidConfig, m))?;
        let storage = |e: String| ApiError::new(E::KafkaStorageError, e);
        for p in 0..partitions {
            let dir = self.writer.dir().join(logdir::partition_dir_name(name, p));
            if std::fs::read_dir(&dir).is_ok_and(|mut d| d.next().is_some()) || dir.is_file() {
                return Err(storage(format!(
                    "{}: there already, and not an empty directory: the topic is not created",
                    dir.display()
                )));
            }
        }
        let topic_id = random_uuid();
        if validate_only {
            return Ok(topic_id);
        }
        let placement =
            Placement { replicas: vec![self.node_id], isr: vec![self.node_id], leader: self.node_id, leader_epoch: 0 };
        let topic = Topic {
            name: name.to_string(),
            topic_id,
            configs,
            partitions: (0..partitions).map(|_| placement.clone()).collect(),
        };
        let mut made: i32 = 0;
        let mut failed = None;
        for p in 0..partitions {
            match self.writer.add_partition(&topic, p, config) {
                Ok(_) => made = made.saturating_add(1),
                Err(e) => {
                    failed = Some(e.to_string());
                    break;
                }
            }
        }
        if failed.is_none()
            && let Err(ApiError { message: e, .. }) =
                self.commit_metadata(&logdir::topic_batch(&self.cluster(), &topic))
        {
            failed = Some(e);
        }
        if let Some(e) = failed {
            for p in 0..made {
                let _ = self.writer.remove_partition(name, p);
            }
            return Err(storage(e));
        }
        self.topics.insert(name.to_string(), TopicState { topic, config });
        Ok(topic_id)
    }

    /// The dynamic configs set on `group` (none: empty).
    pub fn group_config(&self, group: &str) -> &BTreeMap<String, String> {
        static NONE: BTreeMap<String, String> = BTreeMap::new();
        self.group_configs.get(group).unwrap_or(&NONE)
    }

    /// The session timeout and heartbeat interval of consumer group
    /// `group`'s members (`coordinator::group_config::Timing::consumer`).
    pub fn consumer_timing(&self, group: &str) -> coordinator::group_config::Timing {
        coordinator::group_config::Timing::consumer(self.group_config(group), &self.broker_configs)
    }

    /// The session timeout and heartbeat interval of share group
    /// `group`'s members (`coordinator::group_config::Timing::share`).
    pub fn share_timing(&self, group: &str) -> coordinator::group_config::Timing {
        coordinator::group_config::Timing::share(self.group_config(group), &self.broker_configs)
    }

    /// What share group `group`'s configs set for its share partitions
    /// (`coordinator::group_config::share_limits`).
    pub fn share_limits(&self, group: &str) -> coordinator::share_partition::Limits {
        coordinator::group_config::share_limits(self.group_config(group), &self.broker_configs)
    }

    /// IncrementalAlterConfigs of one topic or group, as Kafka's controller
    /// runs it (`ConfigurationControlManager.incrementalAlterConfigResource`,
    /// `ControllerConfigurationValidator`): the changes the ops make
    /// (`coordinator::config::incremental_alter`), the configs they leave checked
    /// (a topic's by `rules::config::validate`, then that it exists; a
    /// group's by `coordinator::group_config::validate` with the broker's
    /// `broker` configs), then, unless `validate_only`, one `ConfigRecord`
    /// per change written to the metadata log and applied (a topic's
    /// partitions obey its new configs from their next append on).
    pub fn alter_configs(
        &mut self,
        resource_type: i8,
        name: &str,
        ops: &[(String, coordinator::config::AlterOp, Option<String>)],
        validate_only: bool,
    ) -> Result<(), ApiError> {
        use coordinator::group_config;
        use kafka_protocol::ResponseError as E;
        let invalid = |m: String| ApiError::new(E::InvalidConfig, m);
        let is_group = resource_type == group_config::RESOURCE_GROUP;
        if is_group {
            if name.is_empty() {
                return Err(ApiError::new(E::InvalidRequest, "Default group resources are not allowed."));
            }
        } else {
            if name.is_empty() {
                return Err(ApiError::new(E::InvalidRequest, "Default topic resources are not allowed."));
            }
            config_rules::validate_topic_name(name).map_err(|m| ApiError::new(E::InvalidTopicException, m))?;
        }
        let empty = BTreeMap::new();
        let current =
            if is_group { self.group_config(name) } else { self.topics.get(name).map_or(&empty, |t| &t.topic.configs) };
        let list_default = |k: &str| if is_group { None } else { config_rules::topic_list_default(k) };
        let changes = coordinator::config::incremental_alter(current, ops, list_default).map_err(invalid)?;
        let after = coordinator::config::with_changes(current, &changes);
        if changes.iter().any(|(_, v)| v.as_ref().is_some_and(|v| v.len() > usize::from(i16::MAX.unsigned_abs()))) {
            return Err(invalid(
                "The configuration value cannot be added because it exceeds the maximum value size of 32767 bytes."
                    .into(),
            ));
        }
        if is_group {
            group_config::validate(&after, &self.broker_configs).map_err(|e| invalid(e.message))?;
        } else {
            config_rules::validate(&after, self.kafka_version).map_err(|e| invalid(e.message))?;
            if !self.topics.contains_key(name) {
                return Err(ApiError::new(E::UnknownTopicOrPartition, format!("The topic '{name}' does not exist.")));
            }
        }
        let log_config =
            if is_group { None } else { Some(LogConfig::from_topic(|k| after.get(k).cloned()).map_err(invalid)?) };
        if validate_only || changes.is_empty() {
            return Ok(());
        }
        self.commit_metadata(&logdir::config_batch(resource_type, name, &changes))?;
        if is_group {
            if after.is_empty() {
                self.group_configs.remove(name);
            } else {
                self.group_configs.insert(name.to_string(), after);
            }
        } else if let (Some(t), Some(config)) = (self.topics.get_mut(name), log_config) {
            t.topic.configs = after;
            t.config = config;
            for p in 0..t.topic.partitions.len() {
                let p = i32::try_from(p).unwrap_or(i32::MAX);
                if let Some(w) = self.writer.partition(name, p) {
                    w.set_config(config);
                }
            }
        }
        Ok(())
    }

    /// `__consumer_offsets`, created as the group coordinator creates it
    /// (`offsets.topic.num.partitions`, compacted, 100 MiB segments) when a
    /// group first needs it; the partition that holds `group`.
    pub fn offsets_partition(&mut self, group: &str) -> Result<i32, ApiError> {
        if !self.topics.contains_key(OFFSETS_TOPIC) {
            let configs: BTreeMap<String, String> =
                [("cleanup.policy", "compact"), ("compression.type", "producer"), ("segment.bytes", "104857600")]
                    .into_iter()
                    .map(|(k, v)| (k.to_string(), v.to_string()))
                    .collect();
            self.create_topic_unchecked(OFFSETS_TOPIC, self.offsets_partitions, configs, false)?;
        }
        Ok(logrules::internal::partition_for_group(group, self.offsets_partitions))
    }

    /// `__share_group_state`, created as the share coordinator creates it
    /// (`ShareCoordinatorService.shareGroupStateTopicConfigs`: delete
    /// policy, kept forever, the producer's compression, 100 MiB segments,
    /// `share.coordinator.state.topic.num.partitions`; min.insync.replicas 1,
    /// the single node's) when a share partition is first initialized; the
    /// partition that holds (group, topic id, partition)
    /// (`ShareCoordinatorService.partitionFor`: the Java hash of
    /// `group:topicId:partition` modulo the count).
    pub fn share_state_partition(&mut self, group: &str, topic_id: &str, partition: i32) -> Result<i32, ApiError> {
        if !self.topics.contains_key(SHARE_STATE_TOPIC) {
            let configs: BTreeMap<String, String> = [
                ("cleanup.policy", "delete"),
                ("compression.type", "producer"),
                ("min.insync.replicas", "1"),
                ("retention.ms", "-1"),
                ("segment.bytes", "104857600"),
            ]
            .into_iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect();
            self.create_topic_unchecked(SHARE_STATE_TOPIC, SHARE_STATE_PARTITIONS, configs, false)?;
        }
        let count = self.topics.get(SHARE_STATE_TOPIC).map_or(SHARE_STATE_PARTITIONS, |t| {
            i32::try_from(t.topic.partitions.len()).unwrap_or(SHARE_STATE_PARTITIONS)
        });
        Ok(logrules::internal::partition_for_group(&format!("{group}:{topic_id}:{partition}"), count))
    }

    /// `__transaction_state`, created as the transaction coordinator
    /// creates it (`TransactionStateManager`: compacted, uncompressed, 100
    /// MiB segments, `transaction.state.log.num.partitions`) when a
    /// transactional id first needs it; the partition that holds
    /// `transactional_id` (`partitionFor`: its hash modulo the count).
    pub fn transaction_partition(&mut self, transactional_id: &str) -> Result<i32, ApiError> {
        if !self.topics.contains_key(TRANSACTION_TOPIC) {
            let configs: BTreeMap<String, String> = [
                ("cleanup.policy", "compact"),
                ("compression.type", "uncompressed"),
                ("min.insync.replicas", "1"),
                ("segment.bytes", "104857600"),
                ("unclean.leader.election.enable", "false"),
            ]
            .into_iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect();
            self.create_topic_unchecked(TRANSACTION_TOPIC, self.transaction_partitions, configs, false)?;
        }
        Ok(logrules::internal::partition_for_group(transactional_id, self.transaction_partitions))
    }

    /// Write a transactional id's state to `__transaction_state`, as the
    /// coordinator does before it answers.
    pub fn write_txn(&mut self, transactional_id: &str, txn: &coordinator::transaction::Txn) -> Result<(), ApiError> {
        let p = self.transaction_partition(transactional_id)?;
        let version = logrules::transactions::version::log_value_version(self.transaction_version());
        self.append_records(TRANSACTION_TOPIC, p, &[txn.record(transactional_id, version)])
            .map_err(|e| ApiError::new(kafka_protocol::ResponseError::KafkaStorageError, e.to_string()))
    }

    /// The finalized `transaction.version` (0: none; 2: epoch bumps).
    pub fn transaction_version(&self) -> i16 {
        self.features.iter().find(|(n, _)| n == TXN_VERSION).map_or(0, |(_, l)| *l)
    }

    /// The metadata image's version: the metadata log's last offset.
    pub fn metadata_version(&self) -> i64 {
        self.writer.metadata_version()
    }

    /// The coordinator epoch a marker carries: the leader epoch of the
    /// `__transaction_state` partition that holds `transactional_id`.
    pub fn coordinator_epoch(&mut self, transactional_id: &str) -> i32 {
        let p = logrules::internal::partition_for_group(transactional_id, self.transaction_partitions);
        self.leader_epoch(TRANSACTION_TOPIC, p).unwrap_or(0)
    }

    /// Write a COMMIT or ABORT marker of producer `producer_id` at
    /// `producer_epoch` to a partition (`WriteTxnMarkers`, as the
    /// coordinator has each leader write it): the transaction ends there,
    /// an aborted one gets its `.txnindex` entry, the LSO moves
    /// ([`State::write_marker`] commits or drops pending offsets).
    pub fn write_marker(
        &mut self,
        topic: &str,
        partition: i32,
        producer_id: i64,
        producer_epoch: i16,
        commit: bool,
        coordinator_epoch: i32,
    ) -> Result<(), ApiError> {
        use kafka_protocol::ResponseError as E;
        let now = now_ms();
        let marker = logfmt::control::EndTxnMarker { commit, version: 0, coordinator_epoch };
        let Some(w) = self.writer.partition(topic, partition) else {
            return Err(ApiError::new(E::UnknownTopicOrPartition, format!("no partition {topic}-{partition}")));
        };
        let mut b = logdir::end_txn_batch(producer_id, producer_epoch, &marker, now);
        w.append(&mut b, now, Some(&marker)).map_err(|e| ApiError::new(E::KafkaStorageError, e.to_string()))?;
        Ok(())
    }

    /// Append offset commits made in a transaction to `__consumer_offsets`
    /// as Kafka's group coordinator does (`GroupMetadataManager.storeOffsets`
    /// with a producer: a transactional batch of the producer's id and
    /// epoch, base sequence 0, not checked as a client's batch is).
    pub fn append_txn_offsets(
        &mut self,
        group: &str,
        producer_id: i64,
        producer_epoch: i16,
        offsets: &[(String, i32, coordinator::classic::Committed)],
    ) -> Result<(), ApiError> {
        use kafka_protocol::ResponseError as E;
        use logfmt::builder::{BatchBuilder, NewRecord};
        let partition = self.offsets_partition(group)?;
        let now = now_ms();
        let records: Vec<_> =
            offsets.iter().map(|(t, p, c)| coordinator::classic::offset_record(group, t, *p, c)).collect();
        let Some(w) = self.writer.partition(OFFSETS_TOPIC, partition) else {
            return Err(ApiError::new(E::CoordinatorNotAvailable, format!("no partition {OFFSETS_TOPIC}-{partition}")));
        };
        let mut b = BatchBuilder::new(0);
        b.producer_id = producer_id;
        b.producer_epoch = producer_epoch;
        b.base_sequence = 0;
        b.transactional = true;
        for (k, v) in &records {
            b.push(&NewRecord { timestamp: now, key: Some(k), value: v.as_deref(), headers: &[] });
        }
        if !b.is_empty() {
            w.append(&mut b, now, None).map_err(|e| ApiError::new(E::KafkaStorageError, e.to_string()))?;
        }
        Ok(())
    }

    /// Append records (key, value; a null value is a tombstone) to a
    /// partition in one batch, as the coordinator appends its records.
    pub fn append_records(
        &mut self,
        topic: &str,
        partition: i32,
        records: &[(Vec<u8>, Option<Vec<u8>>)],
    ) -> Result<(), BrokerError> {
        use logfmt::builder::{BatchBuilder, NewRecord};
        let now = now_ms();
        let Some(w) = self.writer.partition(topic, partition) else {
            return Err(BrokerError::Refused(format!("no partition {topic}-{partition}")));
        };
        let mut b = BatchBuilder::new(0);
        for (k, v) in records {
            b.push(&NewRecord { timestamp: now, key: Some(k), value: v.as_deref(), headers: &[] });
        }
        if !b.is_empty() {
            w.append(&mut b, now, None)?;
        }
        Ok(())
    }

    /// The batches of `topic`-`partition` from the one holding `offset` on,
    /// at most `max_bytes` (but the first whole), below the high watermark
    /// (`committed`: below the last stable offset, as `FetchIsolation.TXN_COMMITTED`
    /// reads).
    pub fn read_from(
        &mut self,
        topic: &str,
        partition: i32,
        offset: i64,
        max_bytes: usize,
        committed: bool,
    ) -> Result<Vec<u8>, BrokerError> {
        let Some((_, high_watermark)) = self.offsets(topic, partition) else { return Ok(Vec::new()) };
        let end = if committed {
            self.last_stable_offset(topic, partition).unwrap_or(high_watermark)
        } else {
            high_watermark
        };
        let mut plan = self.plan_read(topic, partition, offset)?;
        while let Some(pl) = plan {
            let (bytes, reached_end) = read_batches(&pl, offset, max_bytes, end)?;
            if !bytes.is_empty() || !reached_end {
                return Ok(bytes);
            }
            plan = self.next_segment(topic, partition, &pl.log);
        }
        Ok(Vec::new())
    }

    /// The next producer id (`InitProducerId` without a transactional id).
    pub fn allocate_producer_id(&mut self) -> i64 {
        let id = self.next_producer_id;
        if id % PRODUCER_ID_BLOCK == 0 {
            // the controller hands out the next block (ProducerIdsRecord)
            let epoch = self.writer.broker_epoch(self.node_id);
            let block = logdir::producer_ids_batch(id.saturating_add(PRODUCER_ID_BLOCK), epoch);
            if let Err(ApiError { message: e, .. }) = self.commit_metadata(&block) {
                eprintln!("logtool broker: producer ids: {e}");
            }
        }
        self.next_producer_id = self.next_producer_id.saturating_add(1);
        id
    }

    /// (log start, high watermark = log end) of a partition.
    pub fn offsets(&mut self, topic: &str, partition: i32) -> Option<(i64, i64)> {
        let w = self.writer.partition(topic, partition)?;
        Some((w.log_start_offset(), w.log_end_offset()))
    }

    /// The last stable offset of a partition.
    pub fn last_stable_offset(&mut self, topic: &str, partition: i32) -> Option<i64> {
        Some(self.writer.partition(topic, partition)?.last_stable_offset())
    }

    /// The aborted transactions a read_committed fetch of `[from, upper)`
    /// is told of, as (producer id, first offset).
    pub fn aborted_transactions(&mut self, topic: &str, partition: i32, from: i64, upper: i64) -> Vec<(i64, i64)> {
        let Some(w) = self.writer.partition(topic, partition) else { return Vec::new() };
        w.aborted_transactions(from, upper)
            .map(|v| v.entries().iter().map(|e| (e.producer_id, e.first_offset)).collect())
            .unwrap_or_default()
    }

    /// The leader epoch of a partition.
    pub fn leader_epoch(&mut self, topic: &str, partition: i32) -> Option<i32> {
        Some(self.writer.partition(topic, partition)?.leader_epoch())
    }

    /// Append one producer batch (its whole bytes) to a partition, after
    /// Kafka's producer-state checks.
    pub fn append(&mut self, topic: &str, partition: i32, batch: &mut [u8]) -> AppendResult {
        use kafka_protocol::ResponseError as E;
        let Some(w) = self.writer.partition(topic, partition) else {
            return AppendResult::Error(ApiError::new(
                E::UnknownTopicOrPartition,
                "This server does not host this topic-partition.",
            ));
        };
        let header = match logfmt::batch::RecordBatch::parse(batch, 0) {
            Ok(b) => *b.header(),
            Err(e) => return AppendResult::Error(ApiError::new(E::CorruptMessage, e.to_string())),
        };
        match w.producers().check_append(&header) {
            AppendCheck::Append => {}
            AppendCheck::Duplicate { base_offset, .. } => return AppendResult::Appended { base_offset },
            AppendCheck::OutOfOrderSequence { expected } => {
                return AppendResult::Error(ApiError::new(
                    E::OutOfOrderSequenceNumber,
                    format!(
                        "Out of order sequence number for producer {} at offset {} in partition {topic}-{partition}: {} (incoming seq. number), {expected} (expected seq. number)",
                        header.producer_id,
                        w.log_end_offset(),
                        header.base_sequence
                    ),
                ));
            }
            AppendCheck::InvalidProducerEpoch { current } => {
                return AppendResult::Error(ApiError::new(
                    E::InvalidProducerEpoch,
                    format!(
                        "Epoch of producer {} at offset {} in {topic}-{partition} is {}, which is smaller than the last seen epoch {current}",
                        header.producer_id,
                        w.log_end_offset(),
                        header.producer_epoch
                    ),
                ));
            }
        }
        match w.append_raw(batch, now_ms()) {
            Ok(a) => {
                if std::mem::take(&mut self.storage_failing) {
                    eprintln!("logtool broker: writes to the log dir succeed again");
                }
                AppendResult::Appended { base_offset: a.base_offset }
            }
            Err(e) => {
                if !std::mem::replace(&mut self.storage_failing, true) {
                    eprintln!(
                        "logtool broker: cannot write to {topic}-{partition}: {e}; what was written of the batch is cut off and producers get KAFKA_STORAGE_ERROR (nothing is acknowledged that is not in place) until writes succeed again"
                    );
                }
                AppendResult::Error(ApiError::new(E::KafkaStorageError, e.to_string()))
            }
        }
    }

    /// A ListOffsets answer for a partition (`logrules::offsets`, the rule
    /// `offset-for-time` follows), over the files as written so far.
    pub fn answer_offsets(
        &mut self,
        topic: &str,
        partition: i32,
        spec: logrules::offsets::Spec,
    ) -> Result<Option<logrules::offsets::Answer>, BrokerError> {
        let limits = logfmt::Limits::default();
        let Some(w) = self.writer.partition(topic, partition) else { return Ok(None) };
        let p = logfmt::partition::Partition::open(w.dir(), &limits)?;
        let mut o = logrules::offsets::PartitionOffsets::open(&p, &limits)?;
        o.log_start_offset = w.log_start_offset();
        o.high_watermark = Some(w.log_end_offset());
        if let Some(max) = w.active_max_timestamp() {
            o.set_active_max(max);
        }
        Ok(Some(o.answer(spec)?))
    }

    /// DeleteRecords: the log start of a partition moves to `offset` (-1:
    /// the high watermark). Returns the new log start.
    pub fn delete_records(&mut self, topic: &str, partition: i32, offset: i64) -> Result<i64, ApiError> {
        use kafka_protocol::ResponseError as E;
        let Some(w) = self.writer.partition(topic, partition) else { return Err(E::UnknownTopicOrPartition.into()) };
        let hw = w.log_end_offset();
        let offset = if offset == -1 { hw } else { offset };
        if offset < 0 || offset > hw {
            return Err(E::OffsetOutOfRange.into());
        }
        if offset > w.log_start_offset() {
            w.delete_records(offset).map_err(|e| ApiError::new(E::KafkaStorageError, e.to_string()))?;
        }
        Ok(w.log_start_offset())
    }

    /// DeleteTopics: the topic and its partition dirs go.
    pub fn delete_topic(&mut self, name: &str) -> Result<(), ApiError> {
        use kafka_protocol::ResponseError as E;
        if name == OFFSETS_TOPIC || name == TRANSACTION_TOPIC || name == SHARE_STATE_TOPIC {
            return Err(E::TopicDeletionDisabled.into());
        }
        let Some(id) = self.topics.get(name).map(|t| t.topic.topic_id) else {
            return Err(E::UnknownTopicOrPartition.into());
        };
        let remove = RemoveTopicRecord { topic_id: id.to_string() };
        self.commit_metadata(&vec![kmsg::metadata::entry(0, &remove)])?;
        let Some(t) = self.topics.remove(name) else { return Err(E::UnknownTopicOrPartition.into()) };
        for p in 0..t.topic.partitions.len() {
            let p = i32::try_from(p).unwrap_or(i32::MAX);
            self.writer.remove_partition(name, p).map_err(|e| ApiError::new(E::KafkaStorageError, e.to_string()))?;
        }
        Ok(())
    }

    /// CreatePartitions: the topic grows to `count` partitions.
    pub fn create_partitions(&mut self, name: &str, count: i32, validate_only: bool) -> Result<(), ApiError> {
        use kafka_protocol::ResponseError as E;
        let Some(t) = self.topics.get(name) else {
            return Err(ApiError::new(E::UnknownTopicOrPartition, format!("The topic '{name}' does not exist.")));
        };
        let current = t.topic.partitions.len();
        let wanted = usize::try_from(count).unwrap_or(0);
        if wanted <= current {
            return Err(ApiError::new(
                E::InvalidPartitions,
                if wanted == current {
                    format!("Topic already has {current} partition(s).")
                } else {
                    format!("The topic {name} currently has {current} partition(s); {count} would not be an increase.")
                },
            ));
        }
        if validate_only {
            return Ok(());
        }
        let (mut grown, config) = (t.topic.clone(), t.config);
        let placement =
            Placement { replicas: vec![self.node_id], isr: vec![self.node_id], leader: self.node_id, leader_epoch: 0 };
        grown.partitions.resize(wanted, placement);
        self.commit_metadata(&logdir::partition_records(&self.cluster(), &grown, current))?;
        for p in current..wanted {
            let p = i32::try_from(p).unwrap_or(i32::MAX);
            self.writer
                .add_partition(&grown, p, config)
                .map_err(|e| ApiError::new(E::KafkaStorageError, e.to_string()))?;
        }
        if let Some(t) = self.topics.get_mut(name) {
            t.topic = grown;
        }
        Ok(())
    }

    /// Where to read `offset` of a partition from.
    pub fn plan_read(&mut self, topic: &str, partition: i32, offset: i64) -> Result<Option<ReadPlan>, BrokerError> {
        let Some(w) = self.writer.partition(topic, partition) else { return Ok(None) };
        let Some((base, position)) = w.locate(offset)? else { return Ok(None) };
        Ok(Some(segment_plan(w, base, position)))
    }

    /// The segment after the one at `log`, for a read that found nothing
    /// in it (offsets removed by compaction), as a plan from its start.
    pub fn next_segment(&mut self, topic: &str, partition: i32, log: &Path) -> Option<ReadPlan> {
        let w = self.writer.partition(topic, partition)?;
        let segments = w.segments().to_vec();
        let i = segments.iter().position(|b| w.segment_log(*b) == log)?;
        let base = *segments.get(i.checked_add(1)?)?;
        Some(segment_plan(w, base, 0))
    }

    /// Stop: every partition closed and the log dir's files written as a
    /// clean shutdown leaves them.
    pub fn shutdown(self) -> Result<(), BrokerError> {
        // producer id blocks were committed live (allocate_producer_id)
        let cluster = self.cluster();
        if let Some(why) = self.writer.partitions().find_map(|w| w.offline()) {
            eprintln!("logtool broker: stopping without a clean shutdown (the next start recovers): {why}");
        }
        self.writer.finish(&cluster, &Shutdown::clean())?;
        Ok(())
    }
}

/// Every partition of topic `t` in the log dir `dir`, for reading.
fn open_partitions(
    dir: &Path,
    t: &TopicState,
    limits: &logfmt::Limits,
) -> Result<Vec<logfmt::partition::Partition>, BrokerError> {
    (0..t.topic.partitions.len())
        .map(|p| {
            let p = i32::try_from(p).unwrap_or(i32::MAX);
            Ok(logfmt::partition::Partition::open(&dir.join(logdir::partition_dir_name(&t.topic.name, p)), limits)?)
        })
        .collect()
}

/// The sessions of the members of the groups loaded: each runs from now
/// (`onLoaded`) for its group's session timeout (`configs`: the groups'
/// dynamic configs, over the broker's `broker`), a consumer group member's
/// and a share group member's.
fn sessions_of(
    groups: &logrules::groups::Groups,
    configs: &BTreeMap<String, BTreeMap<String, String>>,
    broker: &BTreeMap<String, String>,
) -> (ConsumerTimers, BTreeMap<(String, String), std::time::Instant>) {
    use coordinator::group_config::Timing;
    use logrules::groups::GroupType;
    let none = BTreeMap::new();
    let of = |g: &str| configs.get(g).unwrap_or(&none);
    let now = std::time::Instant::now();
    let members = |t: GroupType| {
        groups
            .groups
            .iter()
            .filter(move |(_, x)| x.group_type == t)
            .flat_map(|(g, x)| x.members.keys().map(move |m| (g.clone(), m.clone())))
    };
    let ms = |ms: i32| std::time::Duration::from_millis(ms.unsigned_abs().into());
    let consumer = members(GroupType::Consumer)
        .map(|k| {
            let session = Timing::consumer(of(&k.0), broker).session_timeout_ms;
            (k, (crate::after(now, ms(session)), None))
        })
        .collect();
    let share = members(GroupType::Share)
        .map(|k| {
            let session = Timing::share(of(&k.0), broker).session_timeout_ms;
            (k, crate::after(now, ms(session)))
        })
        .collect();
    (consumer, share)
}

/// The groups a coordinator loads from `__consumer_offsets`
/// (`GroupMetadataManager.loadGroupsAndOffsets`, through
/// `rules::groups`): classic groups' generation, protocol and committed
/// offsets (members are not kept: their sessions ended with the broker;
/// they rejoin), and the KIP-848 consumer groups whole, members included
/// (their sessions run again from the load, as Kafka's `onLoaded` does).
fn load_groups(
    dir: &Path,
    offsets: Option<&TopicState>,
    limits: &logfmt::Limits,
) -> Result<(BTreeMap<String, coordinator::classic::Group>, logrules::groups::Groups), BrokerError> {
    let mut out = BTreeMap::new();
    let mut consumer = logrules::groups::Groups::default();
    let Some(t) = offsets else { return Ok((out, consumer)) };
    let parts = open_partitions(dir, t, limits)?;
    let loaded = logrules::groups::Groups::load(&parts, limits)?;
    consumer.groups = loaded
        .groups
        .iter()
        .filter(|(_, g)| {
            matches!(g.group_type, logrules::groups::GroupType::Consumer | logrules::groups::GroupType::Share)
        })
        .map(|(id, g)| (id.clone(), g.clone()))
        .collect();
    for (id, g) in &loaded.groups {
        if g.group_type != logrules::groups::GroupType::Classic {
            continue;
        }
        let mut group = coordinator::classic::Group::new(id);
        group.generation = g.generation;
        group.protocol_type = g.protocol_type.clone();
        group.protocol = g.assignor.clone();
        group.state_timestamp = g.state_timestamp.unwrap_or(-1);
        out.insert(id.clone(), group);
    }
    for ((group, topic, partition), c) in &loaded.offsets {
        let g = out.entry(group.clone()).or_insert_with(|| coordinator::classic::Group::new(group));
        g.offsets.insert(
            (topic.clone(), *partition),
            coordinator::classic::Committed {
                offset: c.offset,
                leader_epoch: c.leader_epoch,
                metadata: c.metadata.clone(),
                commit_timestamp: c.commit_timestamp,
            },
        );
    }
    Ok((out, consumer))
}

/// The transaction coordinator's state from `__transaction_state`
/// (`rules::transactions`, as `TransactionStateManager` loads it).
fn load_txns(
    dir: &Path,
    topic: Option<&TopicState>,
    limits: &logfmt::Limits,
) -> Result<BTreeMap<String, coordinator::transaction::Txn>, BrokerError> {
    let mut out = BTreeMap::new();
    let Some(t) = topic else { return Ok(out) };
    let parts = open_partitions(dir, t, limits)?;
    for (id, m) in logrules::transactions::load(&parts, limits)? {
        let Some(status) = m.state else { continue };
        out.insert(
            id,
            coordinator::transaction::Txn {
                producer_id: m.producer_id,
                producer_epoch: m.producer_epoch,
                timeout_ms: i32::try_from(m.timeout_ms).unwrap_or(coordinator::transaction::MAX_TIMEOUT_MS),
                status,
                partitions: m.partitions.into_iter().collect(),
                start_ms: m.start_timestamp,
                last_update_ms: m.last_update_timestamp,
                prev_producer_id: m.prev_producer_id,
                next_producer_id: -1,
                client_version: m.client_transaction_version,
            },
        );
    }
    Ok(out)
}

/// A read of the segment at `base` from `position` to its end now (the
/// active one's: what is appended so far).
fn segment_plan(w: &logwrite::write::partition::PartitionWriter, base: i64, position: u64) -> ReadPlan {
    let log = w.segment_log(base);
    let active = w.segments().last().copied() == Some(base);
    let end = if active { w.active_size() } else { std::fs::metadata(&log).map(|m| m.len()).unwrap_or(0) };
    ReadPlan { log, position, end }
}

/// The offset after the last batch of `data` (whole batches as read).
pub fn end_of_batches(mut data: &[u8]) -> Option<i64> {
    let mut end = None;
    while let Some(b) = Framing::read(data) {
        end = Some(b.next_offset());
        data = data.get(usize::try_from(b.size()).unwrap_or(usize::MAX)..).unwrap_or_default();
    }
    end
}

/// Each whole batch of `data` as `coordinator::share_partition::aborted_batches`
/// looks at it (its offsets, producer, and whether it is an ABORT marker).
pub fn read_batches_of(mut data: &[u8]) -> Vec<coordinator::share_partition::ReadBatch> {
    let limits = logfmt::Limits::default();
    let mut scratch = Vec::new();
    let mut out = Vec::new();
    while let Some(f) = Framing::read(data) {
        let size = usize::try_from(f.size()).unwrap_or(usize::MAX);
        let Some(bytes) = data.get(..size) else { break };
        data = data.get(size..).unwrap_or_default();
        let Ok(b) = logfmt::batch::RecordBatch::parse(bytes, 0) else { continue };
        let h = *b.header();
        let marker = if h.is_control() { logrules::producer::end_txn_marker(&b, &mut scratch, &limits) } else { None };
        out.push(coordinator::share_partition::ReadBatch {
            base_offset: h.base_offset,
            last_offset: h.last_offset(),
            producer_id: h.producer_id,
            transactional: h.is_transactional(),
            abort_marker: marker.is_some_and(|m| !m.commit),
        });
    }
    out
}

/// Each whole batch of `data`: its base offset, last offset and the byte
/// after it.
pub fn batch_ranges(mut data: &[u8]) -> Vec<(i64, i64, usize)> {
    let mut out = Vec::new();
    let mut at = 0usize;
    while let Some(b) = Framing::read(data) {
        let size = usize::try_from(b.size()).unwrap_or(usize::MAX);
        at = at.saturating_add(size);
        out.push((b.base_offset, b.next_offset().saturating_sub(1), at));
        data = data.get(size..).unwrap_or_default();
    }
    out
}

/// Where the batches a read takes lie: `len` bytes of the open segment
/// `file` from `position`. The file stays readable through this handle
/// when retention deletes the segment or compaction replaces it after
/// the plan (as Kafka's `FileRecords` slice keeps its channel).
pub struct Located {
    /// The segment, open.
    pub file: std::fs::File,
    /// The first byte of the first batch taken.
    pub position: u64,
    /// The bytes of the whole batches taken (0: none).
    pub len: u64,
    /// Whether the read stopped at the end of the plan (rather than at
    /// the limit or at `stable`).
    pub reached_end: bool,
    /// The offset after the last batch taken.
    pub next_offset: Option<i64>,
}

/// The batches of `plan` that hold offsets from `offset` on, at most
/// `max_bytes` (but always the first whole batch, as Kafka does), stopping
/// before `stable` (an offset not to reach: the high watermark), found by
/// their headers alone (`FileRecords.slice` over `batchesFrom`): no record
/// byte is read.
pub fn locate_batches(plan: &ReadPlan, offset: i64, max_bytes: usize, stable: i64) -> std::io::Result<Located> {
    use logfmt::spec::batch as layout;
    use std::os::unix::fs::FileExt;
    let file = std::fs::File::open(&plan.log)?;
    let mut pos = plan.position;
    let mut start: Option<u64> = None;
    let mut stop = pos;
    let mut next_offset = None;
    let mut head = [0u8; Framing::SIZE];
    let mut reached_end = true;
    while pos.saturating_add(head.len() as u64) <= plan.end {
        file.read_exact_at(&mut head, pos)?;
        let Some(b) = Framing::read(&head) else { break };
        let (base, size) = (b.base_offset, b.size());
        if size < layout::RECORD_BATCH_OVERHEAD as u64 || pos.saturating_add(size) > plan.end {
            break;
        }
        let last = b.next_offset().saturating_sub(1);
        if base >= stable {
            reached_end = false;
            break;
        }
        if last >= offset {
            let from = *start.get_or_insert(pos);
            if pos.saturating_add(size).saturating_sub(from) > max_bytes as u64 && pos > from {
                reached_end = false;
                break;
            }
        }
        pos = pos.saturating_add(size);
        if start.is_some() {
            stop = pos;
            next_offset = Some(b.next_offset());
        }
    }
    let position = start.unwrap_or(stop);
    Ok(Located { file, position, len: stop.saturating_sub(position), reached_end, next_offset })
}

/// Read the batches [`locate_batches`] finds into memory.
pub fn read_batches(plan: &ReadPlan, offset: i64, max_bytes: usize, stable: i64) -> std::io::Result<(Vec<u8>, bool)> {
    let located = locate_batches(plan, offset, max_bytes, stable)?;
    Ok((read_located(&located)?, located.reached_end))
}

/// The bytes [`locate_batches`] found.
fn read_located(l: &Located) -> std::io::Result<Vec<u8>> {
    read_at(&l.file, l.position, l.len)
}

/// The bytes of a Fetch's slice, read into memory.
pub fn read_slice(s: &crate::zerocopy::FileSlice) -> std::io::Result<Vec<u8>> {
    read_at(&s.file, s.position, s.len)
}

/// `len` bytes of `file` from `position`.
fn read_at(file: &std::fs::File, position: u64, len: u64) -> std::io::Result<Vec<u8>> {
    use std::os::unix::fs::FileExt;
    let mut out = vec![0u8; usize::try_from(len).unwrap_or(0)];
    file.read_exact_at(&mut out, position)?;
    Ok(out)
}

/// The release whose cluster the metadata `meta` of a dir is, when the
/// writer serves it (`logdir::WRITES`); a dir of another release, or of a
/// Kafka newer than logtool knows, is refused with what it is.
fn served_version(meta: &logfmt::metadata::ClusterMetadata) -> Result<Version, String> {
    let v = meta.metadata_version.map_or(Version::Kafka3_9, Version::of_metadata_version);
    logdir::check_writes(v).map_err(|e| {
        format!(
            "the dir is a Kafka {} cluster (metadata.version {}): {e}",
            v.name(),
            meta.metadata_version
                .and_then(logrules::release::metadata_version_name)
                .unwrap_or("newer than logtool knows")
        )
    })?;
    Ok(v)
}
