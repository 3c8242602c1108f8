//! One function per API: a decoded request in, the response out, each
//! answering as Kafka 3.9.1's `KafkaApis` does for a single-node cluster
//! whose node leads every partition (error codes included).

use std::collections::BTreeMap;
use std::time::Duration;

use bytes::Bytes;
use kafka_protocol::ResponseError as E;
use kafka_protocol::messages::api_versions_response::{ApiVersion, FinalizedFeatureKey, SupportedFeatureKey};
use kafka_protocol::messages::create_topics_response::CreatableTopicResult;
use kafka_protocol::messages::describe_configs_response::{DescribeConfigsResourceResult, DescribeConfigsResult};
use kafka_protocol::messages::fetch_response::{FetchableTopicResponse, PartitionData};
use kafka_protocol::messages::list_offsets_response::{ListOffsetsPartitionResponse, ListOffsetsTopicResponse};
use kafka_protocol::messages::metadata_response::{
    MetadataResponseBroker, MetadataResponsePartition, MetadataResponseTopic,
};
use kafka_protocol::messages::produce_response::{PartitionProduceResponse, TopicProduceResponse};
use kafka_protocol::messages::*;
use kafka_protocol::protocol::StrBytes;

use crate::Shared;
use crate::api::FETCH_MAX_BYTES;
use crate::error::ApiError;
use crate::store::{self, AppendResult};
use crate::zerocopy::{self, FileSlice};

/// Kafka's default `max.message.bytes`.
const DEFAULT_MAX_MESSAGE_BYTES: usize = logrules::config::MESSAGE_MAX_BYTES;

fn s(text: impl Into<String>) -> StrBytes {
    StrBytes::from_string(text.into())
}

fn uuid(u: logfmt::uuid::Uuid) -> uuid::Uuid {
    uuid::Uuid::from_bytes(u.0)
}

/// ApiVersions: the table of `versions::SUPPORTED` (see `versions`; a Kafka 4.x
/// cluster's newer versions too), and the features: those a node of the
/// cluster's release supports, and those the cluster finalized (its
/// metadata log's `FeatureLevelRecord`s).
pub fn api_versions(sh: &Shared, error: i16) -> ApiVersionsResponse {
    let mut r = ApiVersionsResponse::default();
    r.error_code = error;
    let (version, features) = {
        let store = sh.lock();
        (store.kafka_version(), store.features().to_vec())
    };
    r.api_keys = crate::versions::all(sh.kafka4)
        .map(|a| {
            let mut v = ApiVersion::default();
            v.api_key = a.key as i16;
            v.min_version = a.min;
            v.max_version = a.max;
            v
        })
        .collect();
    r.supported_features = logwrite::write::logdir::supported_features(version)
        .iter()
        .map(|(name, min, max)| {
            let mut f = SupportedFeatureKey::default();
            f.name = s(*name);
            f.min_version = *min;
            f.max_version = *max;
            f
        })
        .collect();
    r.finalized_features = features
        .iter()
        .map(|(name, level)| {
            let mut f = FinalizedFeatureKey::default();
            f.name = s(name.clone());
            f.min_version_level = *level;
            f.max_version_level = *level;
            f
        })
        .collect();
    r.finalized_features_epoch = 0;
    r
}

fn broker(sh: &Shared, node_id: i32) -> MetadataResponseBroker {
    let mut b = MetadataResponseBroker::default();
    b.node_id = BrokerId(node_id);
    b.host = s(sh.advertised.ip().to_string());
    b.port = i32::from(sh.advertised.port());
    b
}

/// Metadata: this node, the topics asked for (all when none is named),
/// auto-created when the broker and the request allow it.
pub fn metadata(sh: &Shared, version: i16, req: MetadataRequest) -> MetadataResponse {
    let mut store = sh.lock();
    let node_id = store.node_id();
    let mut r = MetadataResponse::default();
    r.brokers = vec![broker(sh, node_id)];
    r.cluster_id = Some(s(store.cluster_id()));
    r.controller_id = BrokerId(node_id);
    r.cluster_authorized_operations = i32::MIN;
    // v0: an empty list asks for every topic, as null does later
    let every = req.topics.as_ref().is_none_or(|t| version == 0 && t.is_empty());
    let names: Vec<String> = match &req.topics {
        _ if every => store.topics().keys().cloned().collect(),
        None => Vec::new(),
        Some(list) => list
            .iter()
            .filter_map(|t| match &t.name {
                Some(n) => Some(n.0.to_string()),
                None => {
                    let id = logfmt::uuid::Uuid(*t.topic_id.as_bytes());
                    store.topics().values().find(|x| x.topic.topic_id == id).map(|x| x.topic.name.clone())
                }
            })
            .collect(),
    };
    let allow_auto = version < 4 || req.allow_auto_topic_creation;
    for name in names {
        if !store.topics().contains_key(&name) && allow_auto && sh.auto_create {
            let _ = store.create_topic(&name, sh.default_partitions, BTreeMap::new(), false);
        }
        let mut t = MetadataResponseTopic::default();
        t.name = Some(TopicName(s(name.clone())));
        t.topic_authorized_operations = i32::MIN;
        match store.topics().get(&name) {
            None => {
                t.error_code = if logrules::config::validate_topic_name(&name).is_ok() {
                    E::UnknownTopicOrPartition.code()
                } else {
                    E::InvalidTopicException.code()
                };
            }
            Some(ts) => {
                t.topic_id = uuid(ts.topic.topic_id);
                // Topic.isInternal: the group and transaction coordinators' topics
                t.is_internal = name == store::OFFSETS_TOPIC || name == store::TRANSACTION_TOPIC;
                t.partitions = ts
                    .topic
                    .partitions
                    .iter()
                    .enumerate()
                    .map(|(i, p)| {
                        let mut mp = MetadataResponsePartition::default();
                        mp.partition_index = i32::try_from(i).unwrap_or(i32::MAX);
                        mp.leader_id = BrokerId(p.leader);
                        mp.leader_epoch = p.leader_epoch;
                        mp.replica_nodes = p.replicas.iter().map(|n| BrokerId(*n)).collect();
                        mp.isr_nodes = p.isr.iter().map(|n| BrokerId(*n)).collect();
                        mp
                    })
                    .collect();
            }
        }
        r.topics.push(t);
    }
    r
}

/// CreateTopics.
pub fn create_topics(sh: &Shared, _version: i16, req: CreateTopicsRequest) -> CreateTopicsResponse {
    let mut store = sh.lock();
    let mut r = CreateTopicsResponse::default();
    for t in req.topics {
        let name = t.name.0.to_string();
        let mut res = CreatableTopicResult::default();
        res.name = t.name.clone();
        res.num_partitions = -1;
        res.replication_factor = -1;
        let partitions = if t.assignments.is_empty() {
            if t.num_partitions == -1 { sh.default_partitions } else { t.num_partitions }
        } else {
            i32::try_from(t.assignments.len()).unwrap_or(i32::MAX)
        };
        let rf = if t.assignments.is_empty() {
            t.replication_factor
        } else {
            i16::try_from(t.assignments.first().map_or(0, |a| a.broker_ids.len())).unwrap_or(i16::MAX)
        };
        let configs: BTreeMap<String, String> =
            t.configs.iter().filter_map(|c| Some((c.name.to_string(), c.value.as_ref()?.to_string()))).collect();
        let result = if rf != -1 && rf != 1 {
            if rf <= 0 {
                Err(ApiError::new(
                    E::InvalidReplicationFactor,
                    "Replication factor must be larger than 0, or -1 to use the default value.".to_string(),
                ))
            } else {
                Err(ApiError::new(
                    E::InvalidReplicationFactor,
                    format!(
                        "Unable to replicate the partition {rf} time(s): The target replication factor of {rf} cannot be reached because only 1 broker(s) are registered."
                    ),
                ))
            }
        } else {
            store.create_topic(&name, partitions, configs.clone(), req.validate_only)
        };
        match result {
            Ok(id) => {
                res.topic_id = uuid(id);
                res.num_partitions = partitions;
                res.replication_factor = 1;
                // every topic config, sorted, as the controller's
                // `ReplicationControlManager.createTopic` answers (v5+)
                res.configs = Some(
                    coordinator::config::describe_topic(&configs)
                        .into_iter()
                        .map(|c| {
                            let mut x =
                                kafka_protocol::messages::create_topics_response::CreatableTopicConfigs::default();
                            x.name = s(c.name);
                            // (the value as it was given, as the controller answers)
                            x.value = c.given.or(c.value).map(s);
                            x.read_only = c.read_only;
                            x.config_source = c.source.id();
                            x.is_sensitive = c.sensitive;
                            x
                        })
                        .collect(),
                );
            }
            Err(ApiError { code, message }) => {
                res.error_code = code;
                res.error_message = Some(s(message));
            }
        }
        r.topics.push(res);
    }
    r
}

/// InitProducerId: a new producer id (epoch 0) for an idempotent producer;
/// with a transactional id, the transaction coordinator's answer
/// (`txn_api`).
pub fn init_producer_id(sh: &Shared, _version: i16, req: InitProducerIdRequest) -> InitProducerIdResponse {
    if req.transactional_id.is_some() {
        return crate::txn_api::init_producer_id(sh, &req);
    }
    let mut r = InitProducerIdResponse::default();
    r.producer_id = ProducerId(sh.lock().allocate_producer_id());
    r.producer_epoch = 0;
    r
}

fn max_message_bytes(sh: &Shared, topic: &str) -> usize {
    sh.lock()
        .topics()
        .get(topic)
        .and_then(|t| t.topic.configs.get("max.message.bytes"))
        .and_then(|v| v.trim().parse().ok())
        .unwrap_or(DEFAULT_MAX_MESSAGE_BYTES)
}

/// Check a partition's produce records as `ProduceRequest.validateRecords`
/// and `LogValidator` do: exactly one v2 batch, whole, with a valid CRC,
/// within `max.message.bytes`. Returns its header.
fn check_records(records: &[u8], max_bytes: usize) -> Result<logfmt::batch::BatchHeader, ApiError> {
    use logfmt::spec::batch as layout;
    if records.is_empty() {
        return Err(ApiError::new(E::InvalidRecord, "Record batch has no batches at all"));
    }
    let Some(size) = logfmt::batch::Framing::entry_size(records) else {
        return Err(ApiError::new(E::CorruptMessage, "a record batch shorter than its header"));
    };
    let size = usize::try_from(size).unwrap_or(usize::MAX);
    if records.get(layout::MAGIC_OFFSET) != Some(&2) {
        return Err(ApiError::new(
            E::InvalidRecord,
            "Produce requests with version 3 are only allowed to contain record batches with magic version 2",
        ));
    }
    if size > records.len() {
        return Err(ApiError::new(
            E::CorruptMessage,
            format!("a record batch of {size} bytes in {} bytes", records.len()),
        ));
    }
    if size < records.len() {
        // LogValidator.getFirstBatchAndMaybeValidateNoMoreBatches
        return Err(ApiError::new(E::InvalidRecord, "Compressed outer record has more than one batch"));
    }
    if size > max_bytes {
        return Err(ApiError::new(
            E::MessageTooLarge,
            format!(
                "The request included a message larger than the max message size the server will accept ({size} > {max_bytes})."
            ),
        ));
    }
    match logfmt::batch::RecordBatch::parse(records, 0) {
        Ok(b) if b.is_valid() => Ok(*b.header()),
        Ok(_) => Err(ApiError::new(E::CorruptMessage, "Record is corrupt (stored crc does not match computed crc)")),
        Err(e) => Err(ApiError::new(E::CorruptMessage, e.to_string())),
    }
}

/// Produce: each partition's batch appended, or its error. `None` for
/// acks=0 (no response is sent).
pub fn produce(sh: &Shared, version: i16, req: ProduceRequest) -> Option<ProduceResponse> {
    let mut r = ProduceResponse::default();
    let transactional_id = req.transactional_id.as_ref().map(|t| t.0.to_string());
    let acks_ok = matches!(req.acks, -1..=1);
    let mut appended = false;
    for t in req.topic_data {
        let topic = t.name.0.to_string();
        let mut tr = TopicProduceResponse::default();
        tr.name = t.name.clone();
        let max = max_message_bytes(sh, &topic);
        for p in t.partition_data {
            let mut pr = PartitionProduceResponse::default();
            pr.index = p.index;
            pr.base_offset = -1;
            pr.log_append_time_ms = -1;
            pr.log_start_offset = -1;
            let outcome = if !acks_ok {
                Err(ApiError::from(E::InvalidRequiredAcks))
            } else {
                let bytes = p.records.unwrap_or_default();
                match check_records(&bytes, max) {
                    Err(e) => Err(e),
                    Ok(header) => {
                        let mut batch = bytes.to_vec();
                        let mut store = sh.lock();
                        // a transaction's batch: the partition must be in it
                        let in_txn = match &transactional_id {
                            _ if !header.is_transactional() => Ok(()),
                            Some(id) => crate::txn_api::implicit_add(
                                &mut store,
                                version,
                                id,
                                (header.producer_id, header.producer_epoch),
                                (&topic, p.index),
                            )
                            .and_then(|()| {
                                crate::txn_api::check_produce(
                                    &store,
                                    id,
                                    header.producer_id,
                                    header.producer_epoch,
                                    &topic,
                                    p.index,
                                )
                            }),
                            None => Err(ApiError::new(
                                E::InvalidTxnState,
                                "a transactional batch without a transactional id".to_string(),
                            )),
                        };
                        in_txn.and_then(|()| match store.append(&topic, p.index, &mut batch) {
                            AppendResult::Appended { base_offset } => {
                                let log_start = store.offsets(&topic, p.index).map_or(-1, |o| o.0);
                                let append_time = store
                                    .topics()
                                    .get(&topic)
                                    .filter(|t| t.config.log_append_time)
                                    .map(|_| store::now_ms());
                                Ok((base_offset, log_start, append_time))
                            }
                            AppendResult::Error(e) => Err(e),
                        })
                    }
                }
            };
            match outcome {
                Ok((base, start, append_time)) => {
                    appended = true;
                    pr.base_offset = base;
                    pr.log_start_offset = start;
                    pr.log_append_time_ms = append_time.unwrap_or(-1);
                }
                Err(ApiError { code, message }) => {
                    pr.error_code = code;
                    pr.error_message = (!message.is_empty()).then(|| s(message));
                }
            }
            tr.partition_responses.push(pr);
        }
        r.responses.push(tr);
    }
    if appended {
        sh.appended.notify_waiters();
    }
    (req.acks != 0).then_some(r)
}

/// ListOffsets: earliest (the log start), latest (the high watermark, or
/// for read_committed the last stable offset), a time or
/// the largest timestamp (`logrules::offsets`, as `offset-for-time`).
pub fn list_offsets(sh: &Shared, version: i16, req: ListOffsetsRequest) -> ListOffsetsResponse {
    let mut store = sh.lock();
    let mut r = ListOffsetsResponse::default();
    for t in req.topics {
        let topic = t.name.0.to_string();
        let mut tr = ListOffsetsTopicResponse::default();
        tr.name = t.name.clone();
        for p in t.partitions {
            let mut pr = ListOffsetsPartitionResponse::default();
            pr.partition_index = p.partition_index;
            pr.timestamp = -1;
            pr.offset = -1;
            pr.leader_epoch = -1;
            match (store.offsets(&topic, p.partition_index), store.leader_epoch(&topic, p.partition_index)) {
                (Some((start, end)), Some(epoch)) => match p.timestamp {
                    -2 => {
                        pr.offset = start;
                        pr.leader_epoch = epoch;
                    }
                    -1 => {
                        // read_committed: the last stable offset (`UnifiedLog.fetchOffsetByTimestamp`)
                        pr.offset = if req.isolation_level == 1 {
                            store.last_stable_offset(&topic, p.partition_index).unwrap_or(end)
                        } else {
                            end
                        };
                        pr.leader_epoch = epoch;
                    }
                    t => {
                        let spec = if t == -3 {
                            logrules::offsets::Spec::MaxTimestamp
                        } else if t >= 0 {
                            logrules::offsets::Spec::Timestamp(t)
                        } else {
                            pr.error_code = E::InvalidRequest.code();
                            tr.partitions.push(pr);
                            continue;
                        };
                        match store.answer_offsets(&topic, p.partition_index, spec) {
                            Ok(Some(a)) => {
                                pr.offset = a.offset.unwrap_or(-1);
                                pr.timestamp = a.timestamp.unwrap_or(-1);
                                pr.leader_epoch = a.leader_epoch.unwrap_or(-1);
                            }
                            Ok(None) => pr.error_code = E::UnknownTopicOrPartition.code(),
                            Err(_) => pr.error_code = E::KafkaStorageError.code(),
                        }
                    }
                },
                _ => pr.error_code = E::UnknownTopicOrPartition.code(),
            }
            tr.partitions.push(pr);
        }
        r.topics.push(tr);
    }
    // what a version cannot carry: the leader epoch exists from v4 (the
    // codec refuses to write one below, and the client lost its connection)
    if version < 4 {
        for p in r.topics.iter_mut().flat_map(|t| t.partitions.iter_mut()) {
            p.leader_epoch = -1;
        }
    }
    r
}

/// What a Fetch answers: the response, whose non-empty records are
/// [`zerocopy::placeholder`]s of `slices` (sent from the segments).
pub struct Fetched {
    /// The response.
    pub response: FetchResponse,
    /// The segment bytes each placeholder stands for, by its index.
    pub slices: Vec<Option<FileSlice>>,
}

/// Fetch, in an incremental fetch session or without (`sessions`): waits
/// up to `max_wait_ms` for `min_bytes`; read_committed
/// reads up to the last stable offset and is told the aborted
/// transactions of what it reads (from the `.txnindex` files).
pub async fn fetch(sh: &Shared, version: i16, req: FetchRequest) -> Fetched {
    let plan = sh.fetch_sessions.lock().unwrap_or_else(std::sync::PoisonError::into_inner).plan(version, req);
    let (req, id, incremental) = match plan {
        crate::sessions::Plan::Read { request, id, incremental } => (request, id, incremental),
        crate::sessions::Plan::Error(e) => {
            let mut r = FetchResponse::default();
            r.error_code = e.code;
            return Fetched { response: r, slices: Vec::new() };
        }
    };
    let mut f = fetch_reading(sh, version, &req).await;
    sh.fetch_sessions.lock().unwrap_or_else(std::sync::PoisonError::into_inner).answered(
        id,
        incremental,
        &mut f.response,
    );
    f
}

/// Locate for `req` (every partition it names) what it reads, waiting up
/// to `max_wait_ms` for `min_bytes`: the batches' headers are read, their
/// records stay in the files until the response is sent.
async fn fetch_reading(sh: &Shared, version: i16, req: &FetchRequest) -> Fetched {
    let wait = Duration::from_millis(u64::try_from(req.max_wait_ms.max(0)).unwrap_or(0));
    let deadline = tokio::time::Instant::from_std(crate::after(std::time::Instant::now(), wait));
    let asked = if version < 3 { usize::MAX } else { usize::try_from(req.max_bytes.max(0)).unwrap_or(0) };
    let limit = asked.min(FETCH_MAX_BYTES);
    loop {
        // registered before reading, so an append in between wakes us
        let notified = sh.appended.notified();
        let (f, bytes) = fetch_once(sh, version, req, limit);
        let min = usize::try_from(req.min_bytes.max(0)).unwrap_or(0);
        if bytes >= min.max(1) || tokio::time::Instant::now() >= deadline {
            return f;
        }
        drop(f);
        if tokio::time::timeout_at(deadline, notified).await.is_err() {
            return fetch_once(sh, version, req, limit).0;
        }
    }
}

/// One read of every partition `req` names, at most `budget` record bytes
/// in all (but the first batch, whole, as Kafka sends it: KIP-74).
fn fetch_once(sh: &Shared, version: i16, req: &FetchRequest, mut budget: usize) -> (Fetched, usize) {
    let mut r = FetchResponse::default();
    let mut slices = Vec::new();
    let mut total = 0usize;
    for t in &req.topics {
        let mut tr = FetchableTopicResponse::default();
        tr.topic = t.topic.clone();
        tr.topic_id = t.topic_id;
        let name = if version >= 13 {
            let id = logfmt::uuid::Uuid(*t.topic_id.as_bytes());
            sh.lock().topics().values().find(|x| x.topic.topic_id == id).map(|x| x.topic.name.clone())
        } else {
            Some(t.topic.0.to_string())
        };
        for p in &t.partitions {
            let mut pd = PartitionData::default();
            pd.partition_index = p.partition;
            pd.high_watermark = -1;
            pd.last_stable_offset = -1;
            pd.log_start_offset = -1;
            pd.preferred_read_replica = BrokerId(-1);
            pd.records = Some(Bytes::new());
            if req.isolation_level == 1 {
                pd.aborted_transactions = Some(Vec::new());
            }
            let Some(name) = &name else {
                pd.error_code = E::UnknownTopicId.code();
                tr.partitions.push(pd);
                continue;
            };
            let mut store = sh.lock();
            let Some((start, end)) = store.offsets(name, p.partition) else {
                pd.error_code = E::UnknownTopicOrPartition.code();
                tr.partitions.push(pd);
                continue;
            };
            let stable = store.last_stable_offset(name, p.partition).unwrap_or(end);
            pd.high_watermark = end;
            pd.last_stable_offset = stable;
            pd.log_start_offset = start;
            // FetchIsolation: read_committed reads up to the last stable offset
            let upper = if req.isolation_level == 1 { stable } else { end };
            if p.fetch_offset < start || p.fetch_offset > end {
                pd.error_code = E::OffsetOutOfRange.code();
                tr.partitions.push(pd);
                continue;
            }
            let limit = usize::try_from(p.partition_max_bytes.max(0)).unwrap_or(0).min(budget);
            // nothing more fits: read nothing (only the first batch of a
            // response may go past the limits)
            let mut plan = if total > 0 && budget == 0 {
                None
            } else {
                store.plan_read(name, p.partition, p.fetch_offset).ok().flatten()
            };
            let mut found = None;
            while let Some(pl) = plan {
                match store::locate_batches(&pl, p.fetch_offset, limit, upper) {
                    Ok(l) if l.len == 0 && l.reached_end => {
                        plan = store.next_segment(name, p.partition, &pl.log);
                    }
                    Ok(l) => {
                        found = Some(l);
                        plan = None;
                    }
                    Err(_) => {
                        pd.error_code = E::KafkaStorageError.code();
                        plan = None;
                    }
                }
            }
            if req.isolation_level == 1
                && let Some(after) = found.as_ref().and_then(|l| l.next_offset)
            {
                let aborted = store.aborted_transactions(name, p.partition, p.fetch_offset, after);
                pd.aborted_transactions = Some(
                    aborted
                        .into_iter()
                        .map(|(producer_id, first_offset)| {
                            let mut a = fetch_response::AbortedTransaction::default();
                            a.producer_id = ProducerId(producer_id);
                            a.first_offset = first_offset;
                            a
                        })
                        .collect(),
                );
            }
            drop(store);
            // KIP-74: the first batch goes whole even past the limits
            if let Some(l) = found.filter(|l| l.len > 0 && (total == 0 || l.len <= budget as u64)) {
                let len = usize::try_from(l.len).unwrap_or(usize::MAX);
                budget = budget.saturating_sub(len);
                total = total.saturating_add(len);
                pd.records = Some(zerocopy::placeholder(slices.len()));
                slices.push(Some(FileSlice { file: l.file, position: l.position, len: l.len }));
            }
            tr.partitions.push(pd);
        }
        r.responses.push(tr);
    }
    (Fetched { response: r, slices }, total)
}

/// `ConfigResource.Type.TOPIC`.
const RESOURCE_TOPIC: i8 = 2;
/// `ConfigResource.Type.BROKER`.
const RESOURCE_BROKER: i8 = 4;

/// A described config as DescribeConfigs carries it: synonyms and
/// documentation when the request asks for them.
fn described(
    c: coordinator::config::DescribedConfig,
    synonyms: bool,
    documentation: bool,
) -> DescribeConfigsResourceResult {
    let mut d = DescribeConfigsResourceResult::default();
    d.name = s(c.name);
    d.value = c.value.map(s);
    d.read_only = c.read_only;
    d.is_sensitive = c.sensitive;
    d.config_source = c.source.id();
    d.config_type = c.config_type;
    if synonyms {
        d.synonyms = c.synonyms.into_iter().map(synonym).collect();
    }
    if documentation {
        d.documentation = Some(s(c.documentation));
    }
    d
}

/// A synonym as DescribeConfigs carries it.
fn synonym(
    y: coordinator::config::Synonym,
) -> kafka_protocol::messages::describe_configs_response::DescribeConfigsSynonym {
    let mut x = kafka_protocol::messages::describe_configs_response::DescribeConfigsSynonym::default();
    x.name = s(y.name);
    x.value = y.value.map(s);
    x.source = y.source.id();
    x
}

/// DescribeConfigs: every topic config of a topic as Kafka 3.9 describes
/// it (`coordinator::config::describe_topic`: value, source, synonyms when asked,
/// type, documentation when asked); the broker's 314 configs as a Kafka 3.9
/// broker with the settings it runs with describes them
/// (`coordinator::config::describe_broker`).
pub fn describe_configs(sh: &Shared, _version: i16, req: DescribeConfigsRequest) -> DescribeConfigsResponse {
    let store = sh.lock();
    let mut r = DescribeConfigsResponse::default();
    for res in req.resources {
        let mut out = DescribeConfigsResult::default();
        out.resource_type = res.resource_type;
        out.resource_name = res.resource_name.clone();
        if res.resource_type == RESOURCE_BROKER {
            // `ConfigHelper.describeConfigs`: "" is the cluster's dynamic
            // defaults (none set here), this node's id its configs
            let name = res.resource_name.to_string();
            let node = store.broker_configs().get("node.id").cloned().unwrap_or_default();
            if name == node {
                let wanted =
                    |k: &str| res.configuration_keys.as_ref().is_none_or(|keys| keys.iter().any(|x| x.as_str() == k));
                out.configs = coordinator::config::describe_broker(store.broker_configs())
                    .into_iter()
                    .filter(|c| wanted(&c.name))
                    .map(|c| described(c, req.include_synonyms, req.include_documentation))
                    .collect();
            } else if !name.is_empty() {
                out.error_code = E::InvalidRequest.code();
                out.error_message =
                    Some(s(format!("Unexpected broker id, expected {node} or empty string, but received {name}")));
            }
        } else if res.resource_type == coordinator::group_config::RESOURCE_GROUP && store.kafka_version().is_4x() {
            // `ConfigHelper.describeConfigs` of a group: its configs over
            // the broker's (`coordinator::group_config::describe`)
            let name = res.resource_name.to_string();
            if name.is_empty() {
                out.error_code = E::InvalidRequest.code();
                out.error_message = Some(s("Group name must not be empty"));
            } else {
                let set = store.group_config(&name);
                let wanted =
                    |k: &str| res.configuration_keys.as_ref().is_none_or(|keys| keys.iter().any(|x| x.as_str() == k));
                out.configs = coordinator::group_config::describe(set, store.broker_configs())
                    .into_iter()
                    .filter(|c| wanted(&c.name))
                    .map(|c| described(c, req.include_synonyms, req.include_documentation))
                    .collect();
            }
        } else if res.resource_type == RESOURCE_TOPIC {
            let name = res.resource_name.to_string();
            match store.topics().get(&name) {
                None => {
                    out.error_code = E::UnknownTopicOrPartition.code();
                    out.error_message = Some(s(format!("Topic {name} does not exist")));
                }
                Some(t) => {
                    let wanted = |k: &str| {
                        res.configuration_keys.as_ref().is_none_or(|keys| keys.iter().any(|x| x.as_str() == k))
                    };
                    out.configs = coordinator::config::describe_topic(&t.topic.configs)
                        .into_iter()
                        .filter(|c| wanted(&c.name))
                        .map(|c| described(c, req.include_synonyms, req.include_documentation))
                        .collect();
                }
            }
        }
        r.results.push(out);
    }
    r
}

/// IncrementalAlterConfigs: each resource's changes, as Kafka's broker
/// checks the request (`ConfigAdminManager.preprocess`: a resource named
/// twice, a config named twice, a value missing) and its controller
/// applies it (`Store::alter_configs`): topics, and on a Kafka 4.x cluster
/// groups; dynamic broker configs and the other resource types are not
/// taken (INVALID_REQUEST, saying so).
pub fn incremental_alter_configs(
    sh: &Shared,
    _version: i16,
    req: IncrementalAlterConfigsRequest,
) -> IncrementalAlterConfigsResponse {
    use kafka_protocol::messages::incremental_alter_configs_response::AlterConfigsResourceResponse;
    let mut store = sh.lock();
    let kafka4 = store.kafka_version().is_4x();
    let mut r = IncrementalAlterConfigsResponse::default();
    let mut seen: BTreeMap<(i8, String), usize> = BTreeMap::new();
    for res in &req.resources {
        let n = seen.entry((res.resource_type, res.resource_name.to_string())).or_default();
        *n = n.saturating_add(1);
    }
    for res in req.resources {
        let name = res.resource_name.to_string();
        let dup = seen.get(&(res.resource_type, name.clone())).copied().unwrap_or(0) > 1;
        let outcome = alter_one(&mut store, kafka4, dup, &res, req.validate_only);
        let mut out = AlterConfigsResourceResponse::default();
        out.resource_type = res.resource_type;
        out.resource_name = res.resource_name;
        // (success: no message, as Kafka's ApiError.NONE)
        out.error_message = None;
        if let Err(ApiError { code, message }) = outcome {
            out.error_code = code;
            out.error_message = Some(s(message));
        }
        r.responses.push(out);
    }
    r
}

/// One resource of an IncrementalAlterConfigs request (see
/// [`incremental_alter_configs`]); `duplicate`: the request names it twice.
fn alter_one(
    store: &mut store::State,
    kafka4: bool,
    duplicate: bool,
    res: &kafka_protocol::messages::incremental_alter_configs_request::AlterConfigsResource,
    validate_only: bool,
) -> Result<(), ApiError> {
    use coordinator::config::AlterOp;
    if duplicate {
        return Err(ApiError::new(E::InvalidRequest, "Each resource must appear at most once."));
    }
    let mut names = std::collections::BTreeSet::new();
    if !res.configs.iter().all(|c| names.insert(c.name.as_str())) {
        return Err(ApiError::new(E::InvalidRequest, "Error due to duplicate config keys"));
    }
    let nulls: Vec<&str> =
        res.configs.iter().filter(|c| c.config_operation != 1 && c.value.is_none()).map(|c| c.name.as_str()).collect();
    if !nulls.is_empty() {
        return Err(ApiError::new(E::InvalidRequest, format!("Null value not supported for : {}", nulls.join(", "))));
    }
    let taken = res.resource_type == RESOURCE_TOPIC
        || (kafka4 && res.resource_type == coordinator::group_config::RESOURCE_GROUP);
    if !taken {
        return Err(ApiError::new(
            E::InvalidRequest,
            format!(
                "logtool broker alters the configs of topics{} only, not of resource type {}",
                if kafka4 { " and groups" } else { "" },
                res.resource_type
            ),
        ));
    }
    let mut ops = Vec::new();
    for c in &res.configs {
        let op = AlterOp::from_id(c.config_operation).ok_or_else(|| {
            ApiError::new(E::InvalidRequest, format!("Unknown alter configs operation {}", c.config_operation))
        })?;
        ops.push((c.name.to_string(), op, c.value.as_ref().map(|v| v.to_string())));
    }
    store.alter_configs(res.resource_type, res.resource_name.as_str(), &ops, validate_only)
}

/// DeleteRecords: each partition's log start moves (`low_watermark`).
pub fn delete_records(sh: &Shared, _version: i16, req: DeleteRecordsRequest) -> DeleteRecordsResponse {
    use kafka_protocol::messages::delete_records_response::{DeleteRecordsPartitionResult, DeleteRecordsTopicResult};
    let mut store = sh.lock();
    let mut r = DeleteRecordsResponse::default();
    for t in req.topics {
        let mut tr = DeleteRecordsTopicResult::default();
        tr.name = t.name.clone();
        for p in t.partitions {
            let mut pr = DeleteRecordsPartitionResult::default();
            pr.partition_index = p.partition_index;
            match store.delete_records(t.name.as_str(), p.partition_index, p.offset) {
                Ok(low) => pr.low_watermark = low,
                Err(ApiError { code, .. }) => {
                    pr.low_watermark = -1;
                    pr.error_code = code;
                }
            }
            tr.partitions.push(pr);
        }
        r.topics.push(tr);
    }
    r
}

/// DeleteTopics, by name (or by id, v6+).
pub fn delete_topics(sh: &Shared, version: i16, req: DeleteTopicsRequest) -> DeleteTopicsResponse {
    use kafka_protocol::messages::delete_topics_response::DeletableTopicResult;
    let mut store = sh.lock();
    let mut r = DeleteTopicsResponse::default();
    let wanted: Vec<(Option<String>, uuid::Uuid)> = if version >= 6 {
        req.topics.iter().map(|t| (t.name.as_ref().map(|n| n.0.to_string()), t.topic_id)).collect()
    } else {
        req.topic_names.iter().map(|n| (Some(n.0.to_string()), uuid::Uuid::nil())).collect()
    };
    for (name, id) in wanted {
        let name = name.or_else(|| {
            let id = logfmt::uuid::Uuid(*id.as_bytes());
            store.topics().values().find(|t| t.topic.topic_id == id).map(|t| t.topic.name.clone())
        });
        let mut res = DeletableTopicResult::default();
        res.topic_id = id;
        match name {
            None => res.error_code = E::UnknownTopicId.code(),
            Some(n) => {
                if let Some(t) = store.topics().get(&n) {
                    res.topic_id = uuid(t.topic.topic_id);
                }
                res.name = Some(TopicName(s(n.clone())));
                if let Err(ApiError { code, .. }) = store.delete_topic(&n) {
                    res.error_code = code;
                }
            }
        }
        r.responses.push(res);
    }
    r
}

/// CreatePartitions.
pub fn create_partitions(sh: &Shared, _version: i16, req: CreatePartitionsRequest) -> CreatePartitionsResponse {
    use kafka_protocol::messages::create_partitions_response::CreatePartitionsTopicResult;
    let mut store = sh.lock();
    let mut r = CreatePartitionsResponse::default();
    for t in req.topics {
        let mut res = CreatePartitionsTopicResult::default();
        res.name = t.name.clone();
        if let Err(ApiError { code, message }) = store.create_partitions(t.name.as_str(), t.count, req.validate_only) {
            res.error_code = code;
            res.error_message = Some(s(message));
        }
        r.results.push(res);
    }
    r
}
